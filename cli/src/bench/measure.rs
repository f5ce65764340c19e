//! How a cell of the bench is measured: samples of repeated calls and their
//! median, the thread's own CPU time, the machine's parallel ceiling, a GPU
//! row's figures, and the check against the CPU reference that comes first.

use std::time::{Duration, Instant};

use gpusat::gpu::{Dimension, GpuSat};
use gpusat::{Batch, SatHit, compare_hits};

use crate::error::CliError as Error;

/// Median nanoseconds per call of `call` (which returns the time to count:
/// wall time, or the GPU's own).
pub(crate) fn sample<F>(
    min_time: Duration,
    samples: usize,
    mut call: F,
) -> Result<(f64, usize, Option<f64>), Error>
where
    F: FnMut() -> Result<Duration, Error>,
{
    let samples = samples.max(1);
    let warm_up = call()?.max(Duration::from_nanos(1));
    let budget = min_time / samples as u32;
    let calls_per_sample = (budget.as_secs_f64() / warm_up.as_secs_f64())
        .floor()
        .clamp(1.0, 1e6) as u32;
    // A call longer than a sample's budget: fewer samples, but never under three.
    let count = if warm_up > budget {
        ((min_time.as_secs_f64() / warm_up.as_secs_f64()).ceil() as usize)
            .max(3)
            .min(samples.max(3))
    } else {
        samples
    };
    let mut per_call = Vec::with_capacity(count);
    let mut host_per_call = Vec::with_capacity(count);
    for _ in 0..count {
        let mut total = Duration::ZERO;
        let host_start = thread_cpu_time();
        for _ in 0..calls_per_sample {
            total += call()?;
        }
        if let (Some(start), Some(end)) = (host_start, thread_cpu_time()) {
            host_per_call.push((end - start).as_secs_f64() * 1e9 / f64::from(calls_per_sample));
        }
        per_call.push(total.as_secs_f64() * 1e9 / f64::from(calls_per_sample));
    }
    per_call.sort_by(f64::total_cmp);
    host_per_call.sort_by(f64::total_cmp);
    let host = (host_per_call.len() == count).then(|| host_per_call[count / 2]);
    Ok((per_call[per_call.len() / 2], count, host))
}

/// CPU time the calling thread has used, where the platform tells
/// (`CLOCK_THREAD_CPUTIME_ID`): the host's own work on a batch, without the
/// time it waits and without the threads of a software GPU (lavapipe's
/// workers) or of rayon's pool.
pub(crate) fn thread_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid timespec to write into; the clock id is
        // a constant the platform defines.
        let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
        (status == 0).then(|| Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Multiply-adds on eight independent chains of eight lanes: arithmetic
/// only, nothing shared, bound by the vector units' throughput as the SAT is
/// (a loop bound by latency instead scales better on a virtual machine whose
/// two threads share one core's vector units).
#[inline(never)]
fn spin(steps: u64) -> f64 {
    let mut chains = [[1.0f32; 8]; 8];
    for step in 0..steps {
        let addend = (step & 7) as f32 * 1e-7;
        for chain in chains.iter_mut() {
            for lane in chain.iter_mut() {
                *lane = *lane * 0.999_999_9 + addend;
            }
        }
    }
    std::hint::black_box(chains.iter().flatten().map(|&lane| f64::from(lane)).sum())
}

/// All threads against one on `spin`: the median of seven rounds.
pub fn parallel_ceiling() -> f64 {
    const STEPS: u64 = 4_000_000;
    let threads = rayon::current_num_threads().max(1);
    let mut ratios: Vec<f64> = (0..7)
        .map(|_| {
            let (_, one) = timed(|| spin(STEPS));
            // Threads of its own, all started at once: a pool might run two
            // pieces on one thread before another wakes up.
            let (_, all) = timed(|| {
                std::thread::scope(|scope| {
                    let handles: Vec<_> = (0..threads)
                        .map(|_| scope.spawn(|| spin(STEPS / threads as u64)))
                        .collect();
                    handles
                        .into_iter()
                        .map(|handle| handle.join().unwrap_or(0.0))
                        .sum::<f64>()
                })
            });
            one.as_secs_f64() / all.as_secs_f64().max(1e-9)
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

pub(crate) fn timed<T>(work: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = work();
    (std::hint::black_box(value), start.elapsed())
}

/// One figure of a row, in either dimension: its median, samples, host
/// time, hits and, for a GPU row, transfer (bytes uploaded per pair, read
/// back per hit, device bytes per pair).
pub(crate) type RowCell = (f64, usize, Option<f64>, usize, Option<(f64, f64, f64)>);

/// Measures a GPU row: the first call's hits go to `check`, the second shows
/// what a frame-after-frame caller moves (the shapes are resident by then),
/// then the samples: wall time, or the kernel's timestamps when
/// `kernel_only` (`None` when the adapter has none).
pub(crate) fn measure_gpu<D: Dimension>(
    gpu: &mut GpuSat<D>,
    batch: &D::Batch<'_>,
    kernel_only: bool,
    (min_time, samples): (Duration, usize),
    check: impl FnOnce(&[D::Hit]) -> Result<(), Error>,
) -> Result<Option<RowCell>, Error> {
    if kernel_only && !gpu.context().has_timestamps() {
        return Ok(None);
    }
    let hits = gpu.collide(batch)?;
    check(&hits)?;
    gpu.collide(batch)?;
    let stats = gpu.stats();
    let size = stats.pairs.max(1) as f64;
    let transfer = (
        stats.bytes_uploaded as f64 / size,
        stats.bytes_read_back as f64 / stats.hits.max(1) as f64,
        gpu.device_bytes() as f64 / size,
    );
    let (median, samples, host) = sample(min_time, samples, || {
        let (result, wall) = timed(|| gpu.collide(batch));
        result?;
        Ok(if kernel_only {
            gpu.stats().kernel.unwrap_or_default()
        } else {
            wall
        })
    })?;
    Ok(Some((median, samples, host, hits.len(), Some(transfer))))
}

/// An error unless `candidate` (the hits of the backend named `backend`)
/// agrees with the CPU reference's.
pub(crate) fn check_against_reference(
    backend: &str,
    batch: &Batch,
    reference: &[SatHit],
    candidate: &[SatHit],
) -> Result<(), Error> {
    let agreement = compare_hits(batch, reference, candidate);
    if agreement.agrees() {
        return Ok(());
    }
    let first = agreement.disagreements.first().cloned().unwrap_or_default();
    Err(Error::Bench(format!(
        "the {backend} backend disagrees with the CPU reference on {} of {} pairs ({} against {} hits); first: {first}",
        agreement.disagreements.len(),
        batch.pairs().len(),
        agreement.candidate_hits,
        agreement.reference_hits,
    )))
}
