//! `gpusat bench --dim 3`: the 3D narrowphase over shape kinds (boxes and
//! hulls of 16 to 256 vertices), batch sizes and backends, measured as the
//! 2D bench measures ([`crate::bench::d2`]: the median of several samples, every
//! backend checked against the CPU reference first).
//!
//! The rows add what the Gauss-map pruning does: how many edge pairs a hull
//! pair has (`E_A x E_B`) and how many each search tested. The brute force
//! (every edge pair projected in full) and parry3d are much slower on large
//! hulls, so they run on the first `slow_pairs` pairs of each batch (their
//! rows say how many): cost per pair does not depend on the batch size on
//! the CPU.

use std::fmt::Write as _;
use std::time::Duration;

use gpusat::d3::{
    Batch, EdgeSearch, GpuNarrowphase, Manifold, SatHit, Shape, collide_cpu, collide_cpu_parallel,
    collide_cpu_with_stats, compare_hits, contacts_cpu, contacts_cpu_into,
};

use gpusat::generate::d3::{ShapeKind, workload_spec};

use super::backend::BenchBackend;
use super::measure::{measure_gpu, parallel_ceiling, sample, timed};
use super::report::{BenchReport, BenchRow, PlotKind};
use crate::error::CliError as Error;
use crate::peer::d3::Peer;

/// Pairs over which the notes count the edge pairs that pass the Gauss-map
/// test (with the pairwise loops, which test every one).
const GAUSS_NOTE_PAIRS: usize = 1000;

/// What to sweep in 3D.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub kinds: Vec<ShapeKind>,
    /// Batch sizes in pairs; every size is a prefix of one scene's pairs.
    pub sizes: Vec<usize>,
    pub backends: Vec<BenchBackend>,
    pub min_time: Duration,
    pub samples: usize,
    pub seed: Option<u64>,
    /// The brute force and parry3d run on at most this many pairs.
    pub slow_pairs: usize,
}

impl Default for BenchOptions {
    fn default() -> BenchOptions {
        BenchOptions {
            kinds: ShapeKind::ALL.to_vec(),
            sizes: vec![100_000],
            backends: BenchBackend::ALL3.to_vec(),
            min_time: Duration::from_millis(500),
            samples: 7,
            seed: None,
            slow_pairs: 10_000,
        }
    }
}

fn check(
    backend: BenchBackend,
    batch: &Batch,
    reference: &[SatHit],
    candidate: &[SatHit],
) -> Result<(), Error> {
    let agreement = compare_hits(batch, reference, candidate);
    if agreement.agrees() {
        return Ok(());
    }
    Err(Error::Bench(format!(
        "the {} backend disagrees with the CPU reference on {} of {} pairs; first: {}",
        backend.name(),
        agreement.disagreements.len(),
        batch.pairs().len(),
        agreement.disagreements.first().cloned().unwrap_or_default()
    )))
}

/// Runs the 3D sweep; `gpu` for the GPU rows (skipped, with a reason,
/// without it); `progress` is told each cell as it starts.
pub fn run(
    options: &BenchOptions,
    mut gpu: Option<&mut GpuNarrowphase>,
    mut progress: impl FnMut(&str),
) -> Result<BenchReport, Error> {
    let largest = options.sizes.iter().copied().max().unwrap_or(0);
    let threads = rayon::current_num_threads();
    let mut machine = format!("{threads} CPU threads");
    let mut skipped = Vec::new();
    match gpu.as_deref() {
        Some(gpu) => {
            let _ = write!(machine, "; GPU: {}", gpu.context().adapter());
            if options.backends.contains(&BenchBackend::GpuKernel)
                && !gpu.context().has_timestamps()
            {
                skipped.push("gpu-kernel: the adapter has no timestamp queries".to_string());
            }
        }
        None => {
            if options.backends.iter().any(|backend| backend.needs_gpu()) {
                skipped.push("gpu, gpu-kernel: no GPU adapter".to_string());
            }
        }
    }
    let mut rows: Vec<BenchRow> = Vec::new();
    let mut notes = Vec::new();
    let mut seed = 0;
    for &kind in &options.kinds {
        let mut spec = workload_spec(kind, largest);
        if let Some(chosen) = options.seed {
            spec.seed = chosen;
        }
        seed = spec.seed;
        let scene = spec.generate();
        let vertices = {
            let counts: Vec<usize> = scene
                .shapes
                .shapes()
                .iter()
                .filter_map(|shape| match shape {
                    Shape::Hull(hull) => Some(hull.vertices().len()),
                    Shape::RoundedHull(rounded) => Some(rounded.hull().vertices().len()),
                    Shape::Capsule(_) => Some(2),
                    Shape::Sphere(_) => None,
                })
                .collect();
            counts.iter().sum::<usize>() as f64 / counts.len().max(1) as f64
        };
        let peer = options
            .backends
            .contains(&BenchBackend::Parry3d)
            .then(|| Peer::new(&scene.shapes, &scene.bodies));
        // Box3D's hulls take no radius, nor more than 128 vertices, faces or
        // edges: its rows are left out, with the reason, where the shapes
        // do.
        #[cfg(feature = "box3d")]
        let box3d = match options
            .backends
            .iter()
            .any(|backend| matches!(backend, BenchBackend::Box3d | BenchBackend::Box3dCached))
        {
            true => match crate::peer::box3d::Peer::new(&scene.shapes, &scene.bodies) {
                Ok(peer) => Some(peer),
                Err(message) => {
                    skipped.push(format!("box3d, {}: {message}", kind.name()));
                    None
                }
            },
            false => None,
        };
        for &size in &options.sizes {
            let pairs = &scene.pairs[..size.min(scene.pairs.len())];
            let batch = Batch::new(&scene.shapes, &scene.bodies, pairs, 0.0)?;
            let (reference, stats) = collide_cpu_with_stats(&batch);
            let slow = &pairs[..options.slow_pairs.min(pairs.len()).max(1).min(pairs.len())];
            let slow_batch = Batch::new(&scene.shapes, &scene.bodies, slow, 0.0)?;
            let first_row = rows.len();
            for &backend in &options.backends {
                progress(&format!(
                    "{}, {} pairs, {}",
                    kind.name(),
                    size,
                    backend.name()
                ));
                let mut edge_stats = None;
                let mut measured = size;
                let (median, samples, host, hits, transfer) = match backend {
                    BenchBackend::Cpu => {
                        let (median, samples, host) =
                            sample(options.min_time, options.samples, || {
                                Ok(timed(|| collide_cpu(&batch)).1)
                            })?;
                        edge_stats = Some(stats);
                        (median, samples, host, reference.len(), None)
                    }
                    BenchBackend::CpuParallel => {
                        let hits = collide_cpu_parallel(&batch);
                        check(backend, &batch, &reference, &hits)?;
                        let (median, samples, host) =
                            sample(options.min_time, options.samples, || {
                                Ok(timed(|| collide_cpu_parallel(&batch)).1)
                            })?;
                        (median, samples, host, hits.len(), None)
                    }
                    BenchBackend::CpuContacts => {
                        // One output reused from call to call, as a
                        // simulation reuses it from frame to frame (and as
                        // the 2D bench does).
                        let mut manifolds = contacts_cpu(&batch);
                        let (median, samples, host) =
                            sample(options.min_time, options.samples, || {
                                Ok(timed(|| contacts_cpu_into(&batch, &mut manifolds)).1)
                            })?;
                        (median, samples, host, manifolds.len(), None)
                    }
                    BenchBackend::CpuPairwise => {
                        measured = slow.len();
                        let pairwise = slow_batch.clone().with_edge_search(EdgeSearch::Pairwise);
                        let (hits, pairwise_stats) = collide_cpu_with_stats(&pairwise);
                        check(backend, &slow_batch, &collide_cpu(&slow_batch), &hits)?;
                        edge_stats = Some(pairwise_stats);
                        let (median, samples, host) =
                            sample(options.min_time, options.samples, || {
                                Ok(timed(|| collide_cpu(&pairwise)).1)
                            })?;
                        (median, samples, host, hits.len(), None)
                    }
                    BenchBackend::CpuBrute => {
                        measured = slow.len();
                        let brute = slow_batch.clone().with_edge_search(EdgeSearch::BruteForce);
                        let (hits, brute_stats) = collide_cpu_with_stats(&brute);
                        let expected = collide_cpu(&slow_batch);
                        let agreement = compare_hits(&slow_batch, &expected, &hits);
                        // Separated pairs within no margin cannot differ; an
                        // overlapping pair's depth is the same (see the
                        // pruning tests), so the usual rules hold.
                        if !agreement.agrees() {
                            return Err(Error::Bench(format!(
                                "the brute force disagrees with the pruned search: {:?}",
                                agreement.disagreements.first()
                            )));
                        }
                        edge_stats = Some(brute_stats);
                        let (median, samples, host) =
                            sample(options.min_time, options.samples, || {
                                Ok(timed(|| collide_cpu(&brute)).1)
                            })?;
                        (median, samples, host, hits.len(), None)
                    }
                    BenchBackend::Gpu | BenchBackend::GpuKernel => {
                        let Some(gpu) = gpu.as_deref_mut() else {
                            continue;
                        };
                        if let ShapeKind::Rounded(vertices) = kind
                            && vertices > gpusat::gpu::ROUNDED_HULL_VERTICES
                        {
                            let reason = format!(
                                "{}, {}: the 3D GPU kernel collides rounded hulls of at most {} \
                                 vertices with each other",
                                backend.name(),
                                kind.name(),
                                gpusat::gpu::ROUNDED_HULL_VERTICES
                            );
                            if !skipped.contains(&reason) {
                                skipped.push(reason);
                            }
                            continue;
                        }
                        let measured = measure_gpu(
                            gpu,
                            &batch,
                            backend == BenchBackend::GpuKernel,
                            (options.min_time, options.samples),
                            |hits| check(BenchBackend::Gpu, &batch, &reference, hits),
                        )?;
                        let Some(cell) = measured else { continue };
                        cell
                    }
                    BenchBackend::Parry3d => {
                        let Some(peer) = peer.as_ref() else { continue };
                        measured = slow.len();
                        let hits = peer.collide(slow);
                        let (median, samples, host) =
                            sample(options.min_time, options.samples, || {
                                Ok(timed(|| {
                                    // SAT and contacts, as parry's contact() does both.
                                    peer.collide(slow)
                                })
                                .1)
                            })?;
                        (median, samples, host, hits, None)
                    }
                    #[cfg(feature = "box3d")]
                    BenchBackend::Box3d => {
                        let Some(peer) = box3d.as_ref() else { continue };
                        let hits = peer.collide(pairs);
                        let (median, samples, host) =
                            sample(options.min_time, options.samples, || {
                                Ok(timed(|| peer.collide(pairs)).1)
                            })?;
                        (median, samples, host, hits, None)
                    }
                    #[cfg(feature = "box3d")]
                    BenchBackend::Box3dCached => {
                        let Some(peer) = box3d.as_ref() else { continue };
                        // Each pair's cache filled by a first call; every
                        // timed call starts from the last one's.
                        let mut caches = vec![crate::peer::box3d::PairCache::new(); pairs.len()];
                        let hits = peer.collide_cached(pairs, &mut caches);
                        let (median, samples, host) =
                            sample(options.min_time, options.samples, || {
                                Ok(timed(|| peer.collide_cached(pairs, &mut caches)).1)
                            })?;
                        (median, samples, host, hits, None)
                    }
                    #[cfg(not(feature = "box3d"))]
                    BenchBackend::Box3d | BenchBackend::Box3dCached => continue,
                    BenchBackend::Parry2d | BenchBackend::GpuResident | BenchBackend::Box2d => {
                        continue;
                    }
                };
                let ns_per_pair = median / measured.max(1) as f64;
                let (edge_pairs, tested) = match edge_stats {
                    Some(stats) => (
                        Some(stats.edge_pairs as f64 / measured.max(1) as f64),
                        Some(stats.kept as f64 / measured.max(1) as f64),
                    ),
                    None => (None, None),
                };
                rows.push(BenchRow {
                    workload: kind.name(),
                    backend: backend.name(),
                    pairs: measured,
                    hits,
                    samples,
                    ns_per_pair,
                    pairs_per_second: 1e9 / ns_per_pair,
                    vs_cpu: None,
                    vs_peer: None,
                    upload_bytes_per_pair: transfer.map(|(up, _, _)| up),
                    readback_bytes_per_hit: transfer.map(|(_, down, _)| down),
                    host_bytes_per_pair: (8 * measured
                        + hits
                            * if backend == BenchBackend::CpuContacts {
                                size_of::<Manifold>()
                            } else {
                                size_of::<SatHit>()
                            }) as f64
                        / measured.max(1) as f64,
                    device_bytes_per_pair: transfer.map(|(_, _, device)| device),
                    vertices: Some(vertices),
                    edge_pairs_per_pair: edge_pairs,
                    edge_pairs_tested_per_pair: tested,
                    host_ns_per_pair: host.map(|host| host / measured.max(1) as f64),
                    dispatches: None,
                    stage_times_us: None,
                });
            }
            let group = &mut rows[first_row..];
            let find = |rows: &[BenchRow], name: &str| {
                rows.iter()
                    .find(|row| row.backend == name)
                    .map(|row| row.ns_per_pair)
            };
            let cpu = find(group, BenchBackend::Cpu.name());
            let peer_cost = find(group, BenchBackend::Parry3d.name());
            for row in group.iter_mut() {
                row.vs_cpu = cpu.map(|cpu| cpu / row.ns_per_pair);
                row.vs_peer = peer_cost.map(|peer| peer / row.ns_per_pair);
            }
            // How many edge pairs pass the Gauss-map test: the pairwise
            // loops test them all (the default search skips edges a bound
            // rules out), on the first pairs of the batch.
            let gauss_pairs = &pairs[..GAUSS_NOTE_PAIRS.min(pairs.len())];
            let gauss_batch = Batch::new(&scene.shapes, &scene.bodies, gauss_pairs, 0.0)?
                .with_edge_search(EdgeSearch::Pairwise);
            let (_, gauss) = collide_cpu_with_stats(&gauss_batch);
            if gauss.hull_pairs > 0 && stats.hull_pairs > 0 {
                notes.push(format!(
                    "{} at {} pairs: {:.0} edge pairs per hull pair, {:.1} pass the Gauss-map test ({:.2}%, pairwise on the first {}); the default search tested {:.1} and skipped {:.1} of B's edges by the bound; of the other edges' pairs, the bound on A's edges left {:.0} untested",
                    kind.name(),
                    size,
                    gauss.edge_pairs as f64 / gauss.hull_pairs as f64,
                    gauss.kept as f64 / gauss.hull_pairs as f64,
                    100.0 * gauss.kept as f64 / gauss.edge_pairs.max(1) as f64,
                    gauss_pairs.len(),
                    stats.kept as f64 / stats.hull_pairs as f64,
                    stats.skipped as f64 / stats.hull_pairs as f64,
                    stats.skipped_a as f64 / stats.hull_pairs as f64,
                ));
            }
        }
    }
    let workload = format!(
        "3D: {} bodies each of 1,024 shapes per kind, positions in [-1, 1]^3, random rotations, seed {seed:#x}",
        4096
    );
    let ceiling = parallel_ceiling();
    Ok(BenchReport {
        workload,
        machine,
        rows,
        parallel_ceiling: ceiling,
        skipped,
        notes,
        plot: PlotKind::CostByVertices,
    })
}
