//! The frame rows of `gpusat bench`: bodies in, hits out, per candidate
//! pair, on a scene whose broadphase finds about the sweep's batch size.
//!
//! | row | what one call does |
//! |---|---|
//! | `cpu-frame` | the CPU broadphase (sweep and prune) and the CPU narrowphase, one thread |
//! | `gpu-frame` | the CPU broadphase, then the `gpu` backend on its pairs: today's GPU frame |
//! | `gpu-resident` | [`GpuFrame::step_with`]: broadphase, partition, narrowphase and compaction on the GPU, one submission, one map, the hits read in place |
//!
//! `host_ns_per_pair` is the calling thread's CPU time per candidate pair:
//! what the host spends, without the time it waits and without a software
//! GPU's worker threads. The resident frame's hits are checked against the
//! CPU's before anything is timed.

use gpusat::generate::{Density, ShapeKind, workload_spec};

use super::measure::{check_against_reference, sample, timed};
use super::report::BenchRow;
use crate::error::CliError as Error;
use gpusat::gpu::{FrameBody, FrameOptions, GpuFrame, GpuNarrowphase, Stage};
use gpusat::{Axis, Batch, Body, PairFilter, SatHit, ShapeSet, collide_cpu, find_pairs};

/// Candidate pairs per body the frame scenes are made for: a loose pile.
const PAIRS_PER_BODY: f64 = 4.0;

/// A scene of the workload's shapes whose broadphase finds about `pairs`
/// candidate pairs: `pairs / 4` bodies, spread so that each box overlaps
/// about eight others (calibrated once on 20,000 bodies: the count of pairs
/// goes as the inverse of the area).
pub fn frame_scene(kind: ShapeKind, pairs: usize, seed: Option<u64>) -> (ShapeSet, Vec<Body>) {
    let bodies = ((pairs as f64 / PAIRS_PER_BODY).ceil() as usize).max(2);
    let mut spec = workload_spec(kind, Density::Reference, 0);
    if let Some(seed) = seed {
        spec.seed = seed;
    }
    let sample_bodies = 20_000;
    let guess = 0.6 * (sample_bodies as f32).sqrt();
    let sample = gpusat::generate::SceneSpec {
        bodies: sample_bodies,
        pairs: 0,
        half_extent: guess,
        ..spec.clone()
    }
    .generate();
    let found = find_pairs(&sample.shapes, &sample.bodies, 0.0, PairFilter::default()).len();
    let per_body = (found as f64 / sample_bodies as f64).max(1e-3);
    // Pairs per body go as bodies / area: scale the side for the target
    // density, then for the body count.
    let half_extent = guess
        * (per_body / PAIRS_PER_BODY).sqrt() as f32
        * (bodies as f32 / sample_bodies as f32).sqrt();
    let scene = gpusat::generate::SceneSpec {
        bodies,
        pairs: 0,
        half_extent,
        ..spec
    }
    .generate();
    (scene.shapes, scene.bodies)
}

fn row(
    workload: &str,
    backend: &'static str,
    pairs: usize,
    hits: usize,
    cell: (f64, usize, Option<f64>),
) -> BenchRow {
    let (median, samples, host) = cell;
    let ns_per_pair = median / pairs.max(1) as f64;
    BenchRow {
        workload: workload.to_string(),
        backend,
        pairs,
        hits,
        samples,
        ns_per_pair,
        pairs_per_second: 1e9 / ns_per_pair,
        vs_cpu: None,
        vs_peer: None,
        upload_bytes_per_pair: None,
        readback_bytes_per_hit: None,
        host_bytes_per_pair: (hits * size_of::<SatHit>()) as f64 / pairs.max(1) as f64,
        device_bytes_per_pair: None,
        vertices: None,
        edge_pairs_per_pair: None,
        edge_pairs_tested_per_pair: None,
        host_ns_per_pair: host.map(|host| host / pairs.max(1) as f64),
        dispatches: None,
        stage_times_us: None,
    }
}

/// The frame rows at about `size` candidate pairs.
pub fn frame_rows(
    kind: ShapeKind,
    size: usize,
    seed: Option<u64>,
    gpu: Option<&mut GpuNarrowphase>,
    (min_time, samples): (std::time::Duration, usize),
    team_walk_below: Option<u32>,
) -> Result<Vec<BenchRow>, Error> {
    let (shapes, bodies) = frame_scene(kind, size, seed);
    let filter = PairFilter {
        skip_static_pairs: true,
    };
    let pairs = find_pairs(&shapes, &bodies, 0.0, filter);
    let batch = Batch::new(&shapes, &bodies, &pairs, 0.0)?;
    let reference = collide_cpu(&batch);
    let workload = format!(
        "{} frame: {} bodies, {} candidate pairs",
        kind.name(),
        bodies.len(),
        pairs.len()
    );
    let count = pairs.len();
    let mut rows = Vec::new();
    let cpu = sample(min_time, samples, || {
        Ok(timed(|| {
            let pairs = find_pairs(&shapes, &bodies, 0.0, filter);
            Batch::new(&shapes, &bodies, &pairs, 0.0).map(|batch| collide_cpu(&batch).len())
        })
        .1)
    })?;
    rows.push(row(&workload, "cpu-frame", count, reference.len(), cpu));
    rows[0].vs_cpu = Some(1.0);
    let Some(gpu) = gpu else {
        return Ok(rows);
    };
    let hits = gpu.collide(&batch)?;
    check_against_reference("gpu-frame", &batch, &reference, &hits)?;
    let today = sample(min_time, samples, || {
        let (result, wall) = timed(|| -> Result<usize, Error> {
            let pairs = find_pairs(&shapes, &bodies, 0.0, filter);
            let batch = Batch::new(&shapes, &bodies, &pairs, 0.0)?;
            Ok(gpu.collide(&batch)?.len())
        });
        result?;
        Ok(wall)
    })?;
    rows.push(row(&workload, "gpu-frame", count, hits.len(), today));

    let defaults = FrameOptions::default();
    let options = FrameOptions {
        margin: 0.0,
        skip_static_pairs: true,
        team_walk_below,
        ..defaults
    };
    let mut frame = GpuFrame::new(gpu.context().clone(), &shapes, options)?;
    let records: Vec<FrameBody> = bodies.iter().map(FrameBody::from_body).collect();
    frame.set_bodies(&shapes, &records)?;
    let output = frame.step()?;
    if output.pairs as usize != count {
        return Err(Error::Bench(format!(
            "the gpu-resident backend found {} candidate pairs, the CPU broadphase {count}",
            output.pairs
        )));
    }
    let resident: Vec<SatHit> = output
        .hits
        .iter()
        .map(|hit| {
            let pair = pairs
                .binary_search(&gpusat::Pair::new(hit.a, hit.b))
                .map_err(|_| {
                    Error::Bench(format!(
                        "gpu-resident reported ({}, {}), not a candidate pair",
                        hit.a, hit.b
                    ))
                })?;
            Ok(SatHit {
                pair: pair as u32,
                axis: Axis::unpack(hit.axis),
                depth: hit.depth,
            })
        })
        .collect::<Result<_, Error>>()?;
    check_against_reference("gpu-resident", &batch, &reference, &resident)?;
    // The hits read where the GPU left them, as a CPU consumer of the
    // frame would (step copies them out too: 16 bytes per hit).
    let resident_cell = sample(min_time, samples, || {
        let (result, wall) = timed(|| frame.step_with(|view| view.hits.len()));
        result?;
        Ok(wall)
    })?;
    let mut resident_row = row(
        &workload,
        "gpu-resident",
        count,
        resident.len(),
        resident_cell,
    );
    resident_row.dispatches = Some(frame.stats().dispatches);
    resident_row.stage_times_us = stage_times(&mut frame)?;
    rows.push(resident_row);
    let cpu_ns = rows[0].ns_per_pair;
    for row in &mut rows {
        row.vs_cpu = Some(cpu_ns / row.ns_per_pair);
    }
    Ok(rows)
}

/// Each stage's GPU time in microseconds, the median of five frames timed
/// stage by stage after two that are not counted; `None` without timestamp
/// queries.
fn stage_times(frame: &mut GpuFrame) -> Result<Option<Vec<(&'static str, f64)>>, Error> {
    if !frame.context().has_timestamps() {
        return Ok(None);
    }
    frame.set_stage_times(true);
    // Two frames first, not counted, so that the change to a pass a stage
    // has settled before frames are timed (an H100 run's stage times once
    // came out 2.5 times another's of the same binary and machine).
    for _ in 0..2 {
        frame.step_with(|_| ())?;
    }
    let mut samples: Vec<Vec<(Stage, std::time::Duration)>> = Vec::new();
    for _ in 0..5 {
        frame.step_with(|_| ())?;
        samples.push(frame.stats().stage_times.clone());
    }
    frame.set_stage_times(false);
    let medians = Stage::ALL
        .iter()
        .filter_map(|&stage| {
            let mut times: Vec<f64> = samples
                .iter()
                .filter_map(|frame| {
                    frame
                        .iter()
                        .find(|(s, _)| *s == stage)
                        .map(|(_, time)| time.as_secs_f64() * 1e6)
                })
                .collect();
            times.sort_by(f64::total_cmp);
            times.get(times.len() / 2).map(|&us| (stage.name(), us))
        })
        .collect();
    Ok(Some(medians))
}
