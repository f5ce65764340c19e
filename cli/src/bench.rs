//! `gpusat bench`: narrowphase throughput over a sweep of batch sizes and
//! backends on one seeded workload, as a table, CSV, JSON lines and a
//! log-log plot.
//!
//! The criterion benches (`benches/`) are the statistically careful
//! figures; this sweep is the quick, self-contained one a user runs on their
//! own machine. Both draw their pairs from [`crate::workload`].
//!
//! ## How a figure is measured
//!
//! Each (batch size, backend) cell is timed like criterion's flat sampling:
//! one warm-up call estimates the cost of a call, then `samples` samples are
//! taken, each of as many calls as fill `min_time / samples` (at least one),
//! and the cell reports the **median** sample as nanoseconds per pair. A call
//! slower than the sample budget still gets three samples. The GPU kernel
//! row reports the timestamp-query time of the same kind of calls, so it
//! leaves out upload, readback and the submission round trip.
//!
//! Every backend's hits are compared with the CPU reference's
//! ([`gpusat::compare_hits`]) before anything is timed: a backend that
//! disagrees fails the bench instead of producing a fast wrong number.
//! parry2d is a peer with its own conventions, so only its hit count is
//! shown.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::error::CliError as Error;
use crate::workload::{Density, Peer, ShapeKind, workload_spec};
use gpusat::gpu::{Dimension, GpuNarrowphase, GpuSat};
use gpusat::{
    Batch, Pair, SatHit, collide_cpu, collide_cpu_parallel, contacts_cpu, contacts_cpu_into,
};
use gpusat::{Manifold, compare_hits};

/// One way of running the narrowphase, as a row of the bench.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BenchBackend {
    /// The CPU reference on one thread (SAT only).
    Cpu,
    /// The CPU reference on all cores.
    CpuParallel,
    /// SAT and contact clipping on one thread: the figure to put beside
    /// parry2d's `query::contact`, which also builds contacts.
    CpuContacts,
    /// The GPU end to end: upload, kernel, readback and ordering.
    Gpu,
    /// The GPU kernel alone, from timestamp queries.
    GpuKernel,
    /// parry2d's `query::contact` on the same pairs, one thread.
    Parry2d,
    /// 3D: the unpruned edge query (every edge pair projected in full).
    CpuBrute,
    /// 3D: the pruned queries' loops over every vertex and every edge pair
    /// (the GPU kernel's), without the Gauss-map grid.
    CpuPairwise,
    /// 3D: parry3d's `query::contact` on the same pairs, one thread.
    Parry3d,
    /// A GPU-resident frame ([`gpusat::gpu::GpuFrame`]): bodies in, hits
    /// out, on a scene of its own with about the batch size's candidate
    /// pairs, beside the CPU's and today's GPU frame on the same bodies
    /// (`crate::bench_frame`).
    GpuResident,
}

impl BenchBackend {
    pub const ALL: [BenchBackend; 7] = [
        BenchBackend::Cpu,
        BenchBackend::CpuParallel,
        BenchBackend::CpuContacts,
        BenchBackend::Gpu,
        BenchBackend::GpuKernel,
        BenchBackend::Parry2d,
        BenchBackend::GpuResident,
    ];

    /// The 3D bench's backends.
    pub const ALL3: [BenchBackend; 8] = [
        BenchBackend::Cpu,
        BenchBackend::CpuParallel,
        BenchBackend::CpuContacts,
        BenchBackend::Gpu,
        BenchBackend::GpuKernel,
        BenchBackend::CpuPairwise,
        BenchBackend::CpuBrute,
        BenchBackend::Parry3d,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BenchBackend::Cpu => "cpu",
            BenchBackend::CpuParallel => "cpu-parallel",
            BenchBackend::CpuContacts => "cpu-contacts",
            BenchBackend::Gpu => "gpu",
            BenchBackend::GpuKernel => "gpu-kernel",
            BenchBackend::Parry2d => "parry2d",
            BenchBackend::CpuBrute => "cpu-brute",
            BenchBackend::CpuPairwise => "cpu-pairwise",
            BenchBackend::Parry3d => "parry3d",
            BenchBackend::GpuResident => "gpu-resident",
        }
    }

    pub fn needs_gpu(self) -> bool {
        matches!(
            self,
            BenchBackend::Gpu | BenchBackend::GpuKernel | BenchBackend::GpuResident
        )
    }
}

/// What to sweep.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub kind: ShapeKind,
    pub density: Density,
    /// Batch sizes in pairs; every size is a prefix of one scene's pairs.
    pub sizes: Vec<usize>,
    pub backends: Vec<BenchBackend>,
    /// Measuring time per cell, warm-up excluded.
    pub min_time: Duration,
    /// Samples per cell (the median is reported).
    pub samples: usize,
    pub seed: Option<u64>,
}

impl Default for BenchOptions {
    fn default() -> BenchOptions {
        BenchOptions {
            kind: ShapeKind::Polygons(8),
            density: Density::Reference,
            sizes: vec![1_000, 10_000, 100_000, 1_000_000],
            backends: BenchBackend::ALL.to_vec(),
            min_time: Duration::from_millis(500),
            samples: 7,
            seed: None,
        }
    }
}

/// One cell of the sweep.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    pub workload: String,
    pub backend: &'static str,
    pub pairs: usize,
    /// Pairs the backend reported (overlapping ones).
    pub hits: usize,
    pub samples: usize,
    /// Median nanoseconds per pair.
    pub ns_per_pair: f64,
    pub pairs_per_second: f64,
    /// Throughput over the single-thread CPU reference's at the same size.
    pub vs_cpu: Option<f64>,
    /// Throughput over the peer's (parry2d, parry3d) at the same size.
    pub vs_peer: Option<f64>,
    /// GPU rows: bytes uploaded per pair and read back per reported pair
    /// (from the last call, shapes already resident).
    pub upload_bytes_per_pair: Option<f64>,
    pub readback_bytes_per_hit: Option<f64>,
    /// Memory per pair: what the backend's output takes in host memory, and
    /// for GPU rows the device memory held, divided by the batch size.
    pub host_bytes_per_pair: f64,
    pub device_bytes_per_pair: Option<f64>,
    /// 3D: the hulls' mean vertex count (a box has 8).
    pub vertices: Option<f64>,
    /// 3D: edge pairs per candidate pair the edge query could test
    /// (`E_A x E_B`, hull pairs only), and how many it tested (the pruned
    /// search: those that passed the Gauss-map test; the brute force: every
    /// non-parallel one).
    pub edge_pairs_per_pair: Option<f64>,
    pub edge_pairs_tested_per_pair: Option<f64>,
    /// CPU time of the calling thread per pair (median, ns): what the host
    /// itself spends on a batch; blocking waits and other threads (a
    /// software GPU's, rayon's) do not count. For `cpu` about `ns_per_pair`;
    /// for `gpu` the packing, sorting by kind and ordering of hits, and any
    /// polling while it waits.
    pub host_ns_per_pair: Option<f64>,
}

/// The result of a sweep.
#[derive(Clone, Debug)]
pub struct BenchReport {
    pub workload: String,
    /// What ran it: CPU threads, the GPU adapter.
    pub machine: String,
    pub rows: Vec<BenchRow>,
    /// What all threads together get over one thread on a loop of vector
    /// arithmetic (no memory traffic): about the ceiling of `cpu-parallel`'s
    /// ratio on this machine, which on a shared virtual machine can be well
    /// under the thread count.
    pub parallel_ceiling: f64,
    /// Backends left out, and why.
    pub skipped: Vec<String>,
    /// Lines the table ends with (3D: the edge pairs tested).
    pub notes: Vec<String>,
    /// What the plot's x axis is.
    pub plot: PlotKind,
}

/// The plot of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotKind {
    /// Throughput against batch size (2D).
    ThroughputBySize,
    /// Cost per pair against the hulls' vertex count, at the largest batch
    /// (3D).
    CostByVertices,
}

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

/// All threads against one on [`spin`]: the median of seven rounds.
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

/// One figure of a GPU row, in either dimension: its median, samples, host
/// time, hits and transfer (bytes uploaded per pair, read back per hit,
/// device bytes per pair).
pub(crate) type GpuCell = (f64, usize, Option<f64>, usize, Option<(f64, f64, f64)>);

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
) -> Result<Option<GpuCell>, Error> {
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

/// Runs the sweep. `gpu` is required for the GPU rows (they are skipped,
/// with a reason, without it); `progress` is told each cell as it starts.
pub fn run_bench(
    options: &BenchOptions,
    mut gpu: Option<&mut GpuNarrowphase>,
    mut progress: impl FnMut(&str),
) -> Result<BenchReport, Error> {
    let largest = options.sizes.iter().copied().max().unwrap_or(0);
    let mut spec = workload_spec(options.kind, options.density, largest);
    if let Some(seed) = options.seed {
        spec.seed = seed;
    }
    let scene = spec.generate();
    let workload = format!(
        "{}, {} distribution, {} shapes, {} bodies, seed {:#x}",
        options.kind.name(),
        options.density.name(),
        scene.shapes.len(),
        scene.bodies.len(),
        spec.seed
    );
    let threads = rayon::current_num_threads();
    let mut machine = format!("{threads} CPU threads");
    let mut skipped = Vec::new();
    let wants_kernel = options.backends.contains(&BenchBackend::GpuKernel);
    match gpu.as_deref() {
        Some(gpu) => {
            let _ = write!(machine, "; GPU: {}", gpu.context().adapter());
            if wants_kernel && !gpu.context().has_timestamps() {
                skipped.push("gpu-kernel: the adapter has no timestamp queries".to_string());
            }
        }
        None => {
            let wanted: Vec<&str> = options
                .backends
                .iter()
                .filter(|backend| backend.needs_gpu())
                .map(|backend| match backend {
                    BenchBackend::GpuResident => "gpu-frame, gpu-resident",
                    other => other.name(),
                })
                .collect();
            if !wanted.is_empty() {
                skipped.push(format!("{}: no GPU adapter", wanted.join(", ")));
            }
        }
    }
    let peer = options
        .backends
        .contains(&BenchBackend::Parry2d)
        .then(|| Peer::new(&scene.shapes, &scene.bodies));

    let mut rows: Vec<BenchRow> = Vec::new();
    for &size in &options.sizes {
        let pairs: &[Pair] = &scene.pairs[..size.min(scene.pairs.len())];
        let batch = Batch::new(&scene.shapes, &scene.bodies, pairs, 0.0)?;
        let reference = collide_cpu(&batch);
        let first_row = rows.len();
        let mut frame_rows = Vec::new();
        for &backend in &options.backends {
            progress(&format!("{} pairs, {}", size, backend.name()));
            let (median, samples, host, hits, transfer) = match backend {
                BenchBackend::Cpu => {
                    let (median, samples, host) =
                        sample(options.min_time, options.samples, || {
                            Ok(timed(|| collide_cpu(&batch)).1)
                        })?;
                    (median, samples, host, reference.len(), None)
                }
                BenchBackend::CpuParallel => {
                    let hits = collide_cpu_parallel(&batch);
                    check_against_reference(backend.name(), &batch, &reference, &hits)?;
                    let (median, samples, host) =
                        sample(options.min_time, options.samples, || {
                            Ok(timed(|| collide_cpu_parallel(&batch)).1)
                        })?;
                    (median, samples, host, hits.len(), None)
                }
                BenchBackend::CpuContacts => {
                    // One output reused from call to call, as a simulation
                    // reuses it from frame to frame (the GPU rows reuse
                    // their buffers too).
                    let mut manifolds = contacts_cpu(&batch);
                    let (median, samples, host) =
                        sample(options.min_time, options.samples, || {
                            let start = Instant::now();
                            contacts_cpu_into(&batch, &mut manifolds);
                            Ok(start.elapsed())
                        })?;
                    (median, samples, host, manifolds.len(), None)
                }
                BenchBackend::Gpu | BenchBackend::GpuKernel => {
                    let Some(gpu) = gpu.as_deref_mut() else {
                        continue;
                    };
                    let measured = measure_gpu(
                        gpu,
                        &batch,
                        backend == BenchBackend::GpuKernel,
                        (options.min_time, options.samples),
                        |hits| check_against_reference("gpu", &batch, &reference, hits),
                    )?;
                    let Some(cell) = measured else { continue };
                    cell
                }
                BenchBackend::CpuBrute | BenchBackend::CpuPairwise | BenchBackend::Parry3d => {
                    continue;
                }
                BenchBackend::GpuResident => {
                    frame_rows.extend(crate::bench_frame::frame_rows(
                        options.kind,
                        size,
                        options.seed,
                        gpu.as_deref_mut(),
                        (options.min_time, options.samples),
                    )?);
                    continue;
                }
                BenchBackend::Parry2d => {
                    let Some(peer) = peer.as_ref() else { continue };
                    let hits = peer.collide(pairs);
                    let (median, samples, host) =
                        sample(options.min_time, options.samples, || {
                            Ok(timed(|| peer.collide(pairs)).1)
                        })?;
                    (median, samples, host, hits, None)
                }
            };
            let ns_per_pair = median / size.max(1) as f64;
            rows.push(BenchRow {
                workload: workload.clone(),
                backend: backend.name(),
                pairs: size,
                hits,
                samples,
                ns_per_pair,
                pairs_per_second: 1e9 / ns_per_pair,
                vs_cpu: None,
                vs_peer: None,
                upload_bytes_per_pair: transfer.map(|(up, _, _)| up),
                readback_bytes_per_hit: transfer.map(|(_, down, _)| down),
                host_bytes_per_pair: (size_of::<Pair>() * size + hits * output_bytes(backend))
                    as f64
                    / size.max(1) as f64,
                device_bytes_per_pair: transfer.map(|(_, _, device)| device),
                vertices: None,
                edge_pairs_per_pair: None,
                edge_pairs_tested_per_pair: None,
                host_ns_per_pair: host.map(|host| host / size.max(1) as f64),
            });
        }
        let size_rows = &mut rows[first_row..];
        let find = |rows: &[BenchRow], name: &str| {
            rows.iter()
                .find(|row| row.backend == name)
                .map(|row| row.ns_per_pair)
        };
        let cpu = find(size_rows, BenchBackend::Cpu.name());
        let parry = find(size_rows, BenchBackend::Parry2d.name());
        for row in size_rows.iter_mut() {
            row.vs_cpu = cpu.map(|cpu| cpu / row.ns_per_pair);
            row.vs_peer = parry.map(|parry| parry / row.ns_per_pair);
        }
        // The frame rows, on their own scene, against their own cpu-frame.
        rows.extend(frame_rows);
    }
    Ok(BenchReport {
        workload,
        machine,
        rows,
        parallel_ceiling: parallel_ceiling(),
        skipped,
        notes: Vec::new(),
        plot: PlotKind::ThroughputBySize,
    })
}

/// Host bytes per reported pair of a backend's output.
fn output_bytes(backend: BenchBackend) -> usize {
    match backend {
        BenchBackend::CpuContacts => size_of::<Manifold>(),
        // parry's contacts are counted, not kept.
        BenchBackend::Parry2d | BenchBackend::Parry3d => 0,
        _ => size_of::<SatHit>(),
    }
}

fn ratio(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |ratio| format!("{ratio:.2}x"))
}

impl BenchReport {
    /// The table `gpusat bench` prints.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "workload: {}", self.workload);
        let _ = writeln!(out, "machine:  {}", self.machine);
        let by_shape = self.plot == PlotKind::CostByVertices;
        let _ = writeln!(
            out,
            "{}{:>9}  {:<13} {:>9} {:>10} {:>9} {:>8} {:>9}",
            if by_shape {
                format!("{:<10}", "shapes")
            } else {
                String::new()
            },
            "pairs",
            "backend",
            "hits",
            "Mpairs/s",
            "ns/pair",
            "vs cpu",
            "vs parry"
        );
        for row in &self.rows {
            let _ = writeln!(
                out,
                "{}{:>9}  {:<13} {:>9} {:>10.2} {:>9.1} {:>8} {:>9}",
                if by_shape {
                    format!("{:<10}", row.workload)
                } else {
                    String::new()
                },
                row.pairs,
                row.backend,
                row.hits,
                row.pairs_per_second / 1e6,
                row.ns_per_pair,
                ratio(row.vs_cpu),
                ratio(row.vs_peer),
            );
        }
        let largest_gpu = self
            .rows
            .iter()
            .filter(|row| row.backend == BenchBackend::Gpu.name())
            .max_by_key(|row| row.pairs);
        if let Some(row) = largest_gpu
            && let (Some(up), Some(down)) = (row.upload_bytes_per_pair, row.readback_bytes_per_hit)
        {
            let _ = writeln!(
                out,
                "GPU transfer at {} pairs: {up:.1} bytes uploaded per pair, {down:.1} bytes read back per reported pair \
                 (16-byte records; each window's output is sized at 1.125 times the last batch's hits \
                 plus 256 records and comes back whole, with the counters, in one round trip)",
                row.pairs
            );
        }
        if let Some(row) = largest_gpu
            && let Some(host) = row.host_ns_per_pair
        {
            let cpu_host = self
                .rows
                .iter()
                .find(|r| {
                    r.backend == BenchBackend::Cpu.name()
                        && r.pairs == row.pairs
                        && r.workload == row.workload
                })
                .and_then(|r| r.host_ns_per_pair);
            let _ = writeln!(
                out,
                "host CPU time of the calling thread at {} pairs: gpu {host:.1} ns per pair{} \
                 (packing, sorting by kind, polling, ordering the hits; not blocked waits or the GPU's own threads)",
                row.pairs,
                cpu_host.map_or_else(String::new, |cpu| format!(", cpu {cpu:.1}")),
            );
        }
        let _ = writeln!(
            out,
            "memory: {} bytes per pair in (two body indices), {} per reported pair out ({} with contacts)",
            size_of::<Pair>(),
            size_of::<SatHit>(),
            size_of::<Manifold>()
        );
        if let Some(row) = largest_gpu
            && let Some(device) = row.device_bytes_per_pair
        {
            let _ = writeln!(
                out,
                "GPU device memory at {} pairs: {device:.1} bytes per pair ({:.1} MiB)",
                row.pairs,
                device * row.pairs as f64 / f64::from(1 << 20)
            );
        }
        let _ = writeln!(
            out,
            "parallel ceiling: {:.2}x one thread with {} threads on vector arithmetic alone (about what cpu-parallel can reach here)",
            self.parallel_ceiling,
            rayon::current_num_threads()
        );
        for reason in &self.skipped {
            let _ = writeln!(out, "skipped {reason}");
        }
        for note in &self.notes {
            let _ = writeln!(out, "{note}");
        }
        out
    }

    /// The rows as CSV with a header line.
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "workload,backend,pairs,hits,samples,ns_per_pair,pairs_per_second,vs_cpu,vs_peer,upload_bytes_per_pair,readback_bytes_per_hit,host_bytes_per_pair,device_bytes_per_pair,vertices,edge_pairs_per_pair,edge_pairs_tested_per_pair,host_ns_per_pair\n",
        );
        let optional = |value: Option<f64>| value.map_or_else(String::new, |v| format!("{v:.4}"));
        for row in &self.rows {
            let _ = writeln!(
                out,
                "\"{}\",{},{},{},{},{:.3},{:.1},{},{},{},{},{:.2},{},{},{},{},{}",
                row.workload.replace('"', "\"\""),
                row.backend,
                row.pairs,
                row.hits,
                row.samples,
                row.ns_per_pair,
                row.pairs_per_second,
                optional(row.vs_cpu),
                optional(row.vs_peer),
                optional(row.upload_bytes_per_pair),
                optional(row.readback_bytes_per_hit),
                row.host_bytes_per_pair,
                optional(row.device_bytes_per_pair),
                optional(row.vertices),
                optional(row.edge_pairs_per_pair),
                optional(row.edge_pairs_tested_per_pair),
                optional(row.host_ns_per_pair),
            );
        }
        out
    }

    /// The rows as JSON lines, one object per row.
    pub fn json_lines(&self) -> Result<String, Error> {
        let mut out = String::new();
        for row in &self.rows {
            let line = serde_json::to_string(row)
                .map_err(|err| Error::Render(format!("cannot write the bench as JSON: {err}")))?;
            out.push_str(&line);
            out.push('\n');
        }
        Ok(out)
    }

    /// A PNG of throughput against batch size, log-log, one line per
    /// backend.
    pub fn plot_png(&self, width: u32, height: u32) -> Result<Vec<u8>, Error> {
        crate::plot::throughput_plot(self, width, height)
    }
}
