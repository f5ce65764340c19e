//! The 2D sweep: batch sizes and backends on one 2D workload.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use gpusat::generate::{Density, ShapeKind, workload_spec};
use gpusat::gpu::GpuNarrowphase;
use gpusat::{Batch, Pair, collide_cpu, collide_cpu_parallel, contacts_cpu, contacts_cpu_into};

use super::backend::{BenchBackend, output_bytes};
use super::measure::{
    RowCell, check_against_reference, measure_gpu, parallel_ceiling, sample, timed,
};
use super::report::{BenchReport, BenchRow, PlotKind};
use crate::error::CliError as Error;
use crate::peer::d2::Peer;

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
    /// The resident frame's `FrameOptions::team_walk_below` (its default
    /// when `None`).
    pub team_walk_below: Option<u32>,
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
            team_walk_below: None,
        }
    }
}

/// Runs the sweep. `gpu` is required for the GPU rows (they are skipped,
/// with a reason, without it); `progress` is told each cell as it starts.
pub fn run(
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
    #[cfg(feature = "box2d")]
    let box2d = match options.backends.contains(&BenchBackend::Box2d) {
        true => Some(
            crate::peer::box2d::Peer::new(&scene.shapes, &scene.bodies)
                .map_err(|message| Error::Bench(format!("box2d: {message}")))?,
        ),
        false => None,
    };

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
                BenchBackend::CpuBrute
                | BenchBackend::CpuPairwise
                | BenchBackend::Parry3d
                | BenchBackend::Box3d
                | BenchBackend::Box3dCached => {
                    continue;
                }
                BenchBackend::GpuResident => {
                    frame_rows.extend(super::frame::frame_rows(
                        options.kind,
                        size,
                        options.seed,
                        gpu.as_deref_mut(),
                        (options.min_time, options.samples),
                        options.team_walk_below,
                    )?);
                    continue;
                }
                #[cfg(feature = "box2d")]
                BenchBackend::Box2d => {
                    let Some(peer) = box2d.as_ref() else { continue };
                    time_peer(|| peer.collide(pairs), (options.min_time, options.samples))?
                }
                #[cfg(not(feature = "box2d"))]
                BenchBackend::Box2d => continue,
                BenchBackend::Parry2d => {
                    let Some(peer) = peer.as_ref() else { continue };
                    time_peer(|| peer.collide(pairs), (options.min_time, options.samples))?
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
                dispatches: None,
                stage_times_us: None,
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

/// A peer's row: its hits (`collide` returns how many pairs overlap), then
/// its time over the samples; no transfer.
fn time_peer(
    collide: impl Fn() -> usize,
    (min_time, samples): (Duration, usize),
) -> Result<RowCell, Error> {
    let hits = collide();
    let (median, samples, host) = sample(min_time, samples, || Ok(timed(&collide).1))?;
    Ok((median, samples, host, hits, None))
}
