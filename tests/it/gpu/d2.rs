//! The GPU kernel against the CPU reference on seeded random pairs (more
//! than a million in all): polygons of 3 to 64 vertices, circles, thin
//! slivers, bodies far from the origin, dense piles, a margin. Chunked and
//! overflowing runs give what an unchunked run gives. Runs on any adapter,
//! lavapipe included; with GPUSAT_REQUIRE_GPU=1 a missing adapter fails.

use std::time::Instant;

use crate::common::gpu_context;
use glam::Vec2;
use gpusat::generate::{GeneratedScene, SceneSpec};
use gpusat::gpu::{GpuNarrowphase, GpuOptions};
use gpusat::{Batch, SatHit, collide_cpu, collide_cpu_parallel};

/// Depth agreement, relative to the pair's size.
const DEPTH_TOLERANCE: f32 = 1e-5;
/// Pairs this close to the reporting threshold may be reported by one side only.
const TOUCH_TOLERANCE: f32 = 1e-5;

#[derive(Debug, Default)]
struct Agreement {
    pairs: usize,
    cpu_hits: usize,
    gpu_hits: usize,
    /// Reported by one backend only, within TOUCH_TOLERANCE of touching.
    near_touching: usize,
    /// Different axes at a near-tie (depths within tolerance).
    near_ties: usize,
    /// Same axis, same depth bits.
    identical: usize,
    max_depth_error: f32,
}

fn pair_size(batch: &Batch, pair: u32) -> f32 {
    let pair = batch.pairs()[pair as usize];
    let size =
        |body: u32| batch.shapes().records()[batch.bodies()[body as usize].shape as usize].size;
    size(pair.a).max(size(pair.b))
}

fn compare(what: &str, batch: &Batch, cpu: &[SatHit], gpu: &[SatHit]) -> Agreement {
    assert!(
        gpu.windows(2).all(|w| w[0].pair < w[1].pair),
        "{what}: GPU hits not in pair order"
    );
    let mut agreement = Agreement {
        pairs: batch.pairs().len(),
        cpu_hits: cpu.len(),
        gpu_hits: gpu.len(),
        ..Agreement::default()
    };
    let margin = batch.margin();
    let (mut i, mut j) = (0, 0);
    while i < cpu.len() || j < gpu.len() {
        let next_cpu = cpu.get(i).map_or(u32::MAX, |h| h.pair);
        let next_gpu = gpu.get(j).map_or(u32::MAX, |h| h.pair);
        if next_cpu != next_gpu {
            let (only, side) = if next_cpu < next_gpu {
                (cpu[i], "CPU")
            } else {
                (gpu[j], "GPU")
            };
            let size = pair_size(batch, only.pair);
            assert!(
                (only.depth + margin).abs() <= TOUCH_TOLERANCE * size,
                "{what}: pair {} reported by the {side} only, depth {} (size {size})",
                only.pair,
                only.depth
            );
            agreement.near_touching += 1;
            if next_cpu < next_gpu {
                i += 1
            } else {
                j += 1
            }
            continue;
        }
        let (c, g) = (cpu[i], gpu[j]);
        let size = pair_size(batch, c.pair);
        let error = (c.depth - g.depth).abs();
        assert!(
            error <= DEPTH_TOLERANCE * size,
            "{what}: pair {}: CPU depth {} axis {:?}, GPU depth {} axis {:?} (size {size})",
            c.pair,
            c.depth,
            c.axis,
            g.depth,
            g.axis
        );
        agreement.max_depth_error = agreement.max_depth_error.max(error / size);
        if c.axis != g.axis {
            agreement.near_ties += 1;
        } else if c.depth.to_bits() == g.depth.to_bits() {
            agreement.identical += 1;
        }
        i += 1;
        j += 1;
    }
    agreement
}

fn run(what: &str, scene: &GeneratedScene, margin: f32, gpu: &mut GpuNarrowphase) -> Agreement {
    let batch =
        Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("valid batch");
    let cpu_start = Instant::now();
    let cpu = collide_cpu(&batch);
    let cpu_time = cpu_start.elapsed();
    let gpu_start = Instant::now();
    let gpu_hits = gpu.collide(&batch).expect("GPU narrowphase");
    let gpu_time = gpu_start.elapsed();
    let agreement = compare(what, &batch, &cpu, &gpu_hits);
    eprintln!(
        "{what}: {} pairs, CPU {} hits in {:.0} ms, GPU {} hits in {:.0} ms (kernel {:?}); \
         identical {}, near-ties {}, near-touching {}, max depth error {:.1e} of size",
        agreement.pairs,
        agreement.cpu_hits,
        cpu_time.as_secs_f64() * 1e3,
        agreement.gpu_hits,
        gpu_time.as_secs_f64() * 1e3,
        gpu.stats().kernel,
        agreement.identical,
        agreement.near_ties,
        agreement.near_touching,
        agreement.max_depth_error
    );
    agreement
}

fn mixed(seed: u64, pairs: usize, half_extent: f32) -> SceneSpec {
    SceneSpec {
        half_extent,
        ..SceneSpec::mixed(seed, pairs)
    }
}

#[test]
fn gpu_agrees_with_cpu_on_a_million_pairs() {
    let Some(context) = gpu_context() else { return };
    let mut gpu = GpuNarrowphase::new(context, GpuOptions::default()).expect("GPU narrowphase");
    let scenarios: Vec<(&str, SceneSpec, f32)> = vec![
        (
            "mixed 3-16 vertices, circles, slivers",
            mixed(31, 300_000, 6.0),
            0.0,
        ),
        (
            "far from the origin",
            SceneSpec {
                offset: Vec2::new(10_000.0, -10_000.0),
                ..mixed(32, 150_000, 6.0)
            },
            0.0,
        ),
        (
            "thin slivers",
            SceneSpec {
                sliver_fraction: 0.7,
                circle_fraction: 0.1,
                ..mixed(33, 100_000, 3.0)
            },
            0.0,
        ),
        ("dense pile", mixed(34, 200_000, 0.8), 0.0),
        (
            "circles",
            SceneSpec {
                circle_fraction: 1.0,
                ..mixed(35, 50_000, 3.0)
            },
            0.0,
        ),
        (
            "17 to 64 vertices",
            SceneSpec {
                vertices: (17, 64),
                circle_fraction: 0.1,
                sliver_fraction: 0.0,
                ..mixed(36, 100_000, 3.0)
            },
            0.0,
        ),
        ("margin 0.2", mixed(37, 150_000, 4.0), 0.2),
    ];
    let start = Instant::now();
    let mut total = Agreement::default();
    for (what, spec, margin) in &scenarios {
        let scene = spec.generate();
        let agreement = run(what, &scene, *margin, &mut gpu);
        assert!(
            agreement.cpu_hits > agreement.pairs / 100,
            "{what}: too few hits to test much ({})",
            agreement.cpu_hits
        );
        total.pairs += agreement.pairs;
        total.cpu_hits += agreement.cpu_hits;
        total.gpu_hits += agreement.gpu_hits;
        total.identical += agreement.identical;
        total.near_ties += agreement.near_ties;
        total.near_touching += agreement.near_touching;
        total.max_depth_error = total.max_depth_error.max(agreement.max_depth_error);
    }
    eprintln!(
        "all: {} pairs on {} in {:.1} s: CPU {} hits, GPU {} hits, identical {}, near-ties {}, \
         near-touching {}, max depth error {:.1e} of size",
        total.pairs,
        gpu.context().adapter(),
        start.elapsed().as_secs_f64(),
        total.cpu_hits,
        total.gpu_hits,
        total.identical,
        total.near_ties,
        total.near_touching,
        total.max_depth_error
    );
    assert!(total.pairs >= 1_000_000);
    // The twins are written in the order lavapipe evaluates the kernel, so
    // there every result is the CPU's, bit for bit; a difference means the
    // two drifted apart. Other adapters may fuse or reassociate: tolerances.
    if gpu.context().adapter().name.contains("llvmpipe") {
        assert_eq!(
            total.identical, total.cpu_hits,
            "on lavapipe every result should be bit-identical"
        );
    }
}

#[test]
fn dense_pile_is_mostly_overlapping() {
    let scene = mixed(34, 20_000, 0.8).generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let hits = collide_cpu(&batch).len();
    assert!(
        hits > scene.pairs.len() * 7 / 10,
        "dense pile: only {hits} of {} overlap",
        scene.pairs.len()
    );
}

fn bits(hits: &[SatHit]) -> Vec<(u32, u32, u32)> {
    hits.iter()
        .map(|h| (h.pair, h.axis.pack(), h.depth.to_bits()))
        .collect()
}

#[test]
fn tiny_windows_and_overflowing_output_change_nothing() {
    let Some(context) = gpu_context() else { return };
    let scene = mixed(41, 60_000, 3.0).generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let mut whole = GpuNarrowphase::new(context.clone(), GpuOptions::default()).expect("GPU");
    let expected = whole.collide(&batch).expect("unchunked");
    assert_eq!(whole.stats().windows, 1);
    assert!(expected.len() > 1000, "{} hits", expected.len());

    let options = GpuOptions {
        max_window_pairs: Some(1000),
        initial_capacity: Some(8),
        ..GpuOptions::default()
    };
    let mut chunked = GpuNarrowphase::new(context, options).expect("GPU");
    let got = chunked.collide(&batch).expect("chunked");
    let stats = chunked.stats().clone();
    assert_eq!(stats.windows, 60, "{stats:?}");
    assert!(stats.reruns >= 1, "the output never overflowed: {stats:?}");
    assert!(
        bits(&got) == bits(&expected),
        "chunked run differs from the unchunked one"
    );
    // Room was made once and kept: a second call does not overflow.
    let again = chunked.collide(&batch).expect("chunked again");
    assert_eq!(chunked.stats().reruns, 0, "{:?}", chunked.stats());
    assert!(bits(&again) == bits(&expected));
    // Uploads stay within 16 bytes per pair in (8 per pair, sorted by kind
    // into whole workgroups); what comes back is each window's counter, the
    // timestamps, and each window's output sized at 1.125 times the last
    // batch's hits per pair in its densest window, plus 256 records.
    let bodies_and_shapes = (scene.bodies.len() * 32) as u64;
    assert!(
        stats.bytes_uploaded <= 16 * scene.pairs.len() as u64 + bodies_and_shapes + 16 * 1024 * 64
    );
    let windows = 60u64;
    let densest = (0..60u32)
        .map(|w| expected.iter().filter(|hit| hit.pair / 1000 == w).count())
        .max()
        .unwrap_or(0);
    let most_per_window = (1.125 * densest as f64).ceil() as u64 + 256;
    let bound = 16 * windows * most_per_window.min(1000) + 4 * windows + 8 + 16;
    let read_back = chunked.stats().bytes_read_back;
    assert!(
        read_back <= bound && read_back >= 16 * expected.len() as u64,
        "{read_back} bytes read back for {} hits (bound {bound})",
        expected.len()
    );
}

#[test]
fn empty_single_and_hitless_batches() {
    let Some(context) = gpu_context() else { return };
    let mut gpu = GpuNarrowphase::new(context, GpuOptions::default()).expect("GPU");
    let scene = mixed(42, 1000, 50.0).generate();
    for count in [0, 1, 2, 63, 64, 65, 1000] {
        let batch =
            Batch::new(&scene.shapes, &scene.bodies, &scene.pairs[..count], 0.0).expect("batch");
        let got = gpu.collide(&batch).expect("GPU");
        let agreement = compare(
            &format!("{count} pairs"),
            &batch,
            &collide_cpu(&batch),
            &got,
        );
        assert_eq!(agreement.near_touching, 0, "{count} pairs");
    }
    // A batch where nothing overlaps: after one such batch, the next reads
    // back its counter, the timestamps and the 256 records of slack
    // every window's output keeps.
    let mut apart = scene.bodies.clone();
    for (index, body) in apart.iter_mut().enumerate() {
        body.position = Vec2::new(10.0 * index as f32, 0.0);
    }
    let batch = Batch::new(&scene.shapes, &apart, &scene.pairs, 0.0).expect("batch");
    assert!(collide_cpu(&batch).is_empty());
    assert!(gpu.collide(&batch).expect("GPU").is_empty());
    assert!(gpu.collide(&batch).expect("GPU").is_empty());
    // The counter padded to 8 bytes, 16 for the timestamps, 256 records.
    assert_eq!(gpu.stats().bytes_read_back, 8 + 16 + 256 * 16);
}

#[test]
fn ten_million_pairs_in_several_windows() {
    let Some(context) = gpu_context() else { return };
    // Workgroups of 64: a window then needs more than the 65,535
    // workgroups one dispatch dimension allows, so the 2D grid is used too.
    // Windows of at most one 128 MiB binding of 16-byte records (lavapipe's
    // limit; a hardware GPU's is larger), so that every adapter splits.
    let options = GpuOptions {
        workgroup_size: 64,
        max_window_pairs: Some((128 << 20) / 16),
        ..GpuOptions::default()
    };
    let mut gpu = GpuNarrowphase::new(context, options).expect("GPU");
    let scene = SceneSpec {
        shapes: 256,
        vertices: (3, 8),
        ..mixed(43, 10_000_000, 30.0)
    }
    .generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let start = Instant::now();
    let got = gpu.collide(&batch).expect("10M pairs on the GPU");
    let elapsed = start.elapsed();
    let stats = gpu.stats().clone();
    let expected = collide_cpu_parallel(&batch);
    eprintln!(
        "10M pairs: {} hits in {:.2} s, {stats:?}",
        got.len(),
        elapsed.as_secs_f64()
    );
    // Larger than one window (one 128 MiB binding of 16-byte records), and
    // each window larger than one dispatch dimension (65,535 x 64 = 4.2M).
    assert!(
        stats.windows >= 2,
        "{} windows of at most {}",
        stats.windows,
        gpu.max_window_pairs()
    );
    assert!(
        gpu.max_window_pairs().min(10_000_000) > 65_535 * 64,
        "{}",
        gpu.max_window_pairs()
    );
    assert!(expected.len() > 10_000, "{} hits", expected.len());
    compare("10M pairs", &batch, &expected, &got);
}

#[test]
fn more_bodies_than_the_textures_hold_is_an_error() {
    let Some(context) = gpu_context() else { return };
    // Two texture rows of 2,048 texels: 4,096 bodies at most.
    let options = GpuOptions {
        texture_rows_limit: Some(2),
        ..GpuOptions::default()
    };
    let mut gpu = GpuNarrowphase::new(context, options).expect("GPU");
    let scene = mixed(44, 1, 1.0).generate();
    let bodies = vec![scene.bodies[0]; 4097];
    let pairs = [gpusat::Pair::new(0, 4096)];
    let batch = Batch::new(&scene.shapes, &bodies, &pairs, 0.0).expect("batch");
    let err = gpu.collide(&batch).expect_err("over the texture limit");
    let message = err.to_string();
    assert!(
        message.contains("4097 body transform texels need 65552 bytes")
            && message.contains("the 65536 bytes the device allows"),
        "{message}"
    );
    // The narrowphase is still usable afterwards.
    let small = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    assert_eq!(
        gpu.collide(&small).expect("still works").len(),
        collide_cpu(&small).len()
    );
}

/// Polygons of 3 to 24 vertices (both straight-line paths, the looped and
/// the merged search) and circles, with each face search forced: the GPU
/// reports what the CPU reports, pair for pair, and on lavapipe bit for bit.
#[test]
fn every_face_search_agrees_with_the_cpu() {
    use gpusat::FaceSearch;
    let Some(context) = gpu_context() else { return };
    let mut gpu = GpuNarrowphase::new(context, GpuOptions::default()).expect("GPU");
    let scene = SceneSpec {
        vertices: (3, 24),
        circle_fraction: 0.15,
        ..mixed(45, 60_000, 3.0)
    }
    .generate();
    for search in [FaceSearch::Auto, FaceSearch::BruteForce, FaceSearch::Merged] {
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0)
            .expect("batch")
            .with_face_search(search);
        let expected = collide_cpu(&batch);
        let got = gpu.collide(&batch).expect("GPU");
        assert!(
            expected.len() > 5_000,
            "{search:?}: {} hits",
            expected.len()
        );
        let agreement = compare(&format!("{search:?}"), &batch, &expected, &got);
        if gpu.context().adapter().name.contains("llvmpipe") {
            assert_eq!(
                agreement.identical,
                expected.len(),
                "{search:?}: lavapipe computes every pair as the CPU does"
            );
        }
    }
}

/// The loop kind for every pair with a polygon (`GpuOptions::polygon_loops`)
/// gives the straight-line kinds' answers: the CPU's, bit for bit where the
/// adapter computes the CPU's bits (lavapipe).
#[test]
fn polygon_pairs_through_the_loop_kind_agree_with_the_cpu() {
    let Some(context) = gpu_context() else {
        return;
    };
    let options = GpuOptions {
        polygon_loops: true,
        ..GpuOptions::default()
    };
    let mut gpu = GpuNarrowphase::new(context, options).expect("narrowphase");
    let scene = mixed(961, 60_000, 3.0).generate();
    let agreement = run("polygon loops", &scene, 0.02, &mut gpu);
    assert!(agreement.cpu_hits > 10_000, "{agreement:?}");
    if crate::common::gpu_is_bit_exact() {
        assert_eq!(agreement.gpu_hits, agreement.cpu_hits, "{agreement:?}");
        assert_eq!(agreement.identical, agreement.cpu_hits, "{agreement:?}");
    }
    // Only the loop kind and the circles' ran.
    let compiled: Vec<&str> = gpu
        .compiled_kinds()
        .into_iter()
        .filter_map(|(kind, time)| time.map(|_| kind))
        .collect();
    assert_eq!(compiled, ["circles", "general"], "{compiled:?}");
}

/// Capsules, segments and rounded polygons with every other kind of shape
/// (`rounded_pairs`: deep, resting, apart within the margin, near the
/// origin and 10,000 units out) through the kind `rounded`: the CPU's hits,
/// bit for bit on a software adapter; and no other kind compiled for a
/// library of rounded shapes alone.
#[test]
fn rounded_shapes_agree_with_the_cpu() {
    let Some(context) = gpu_context() else { return };
    for (seed, offset, margin) in [
        (4111, Vec2::ZERO, 0.05),
        (4112, Vec2::new(10_000.0, -10_000.0), 0.05),
        (4113, Vec2::new(-3.0, 7.0), 0.0),
    ] {
        let (shapes, bodies, pairs) = crate::d2::rounded::rounded_pairs(seed, 3_000, offset);
        let batch = Batch::new(&shapes, &bodies, &pairs, margin).expect("batch");
        let cpu = collide_cpu(&batch);
        let mut gpu =
            GpuNarrowphase::new(context.clone(), GpuOptions::default()).expect("narrowphase");
        let hits = gpu.collide(&batch).expect("GPU run");
        let agreement = gpusat::compare_hits(&batch, &cpu, &hits);
        assert!(agreement.reference_hits > 1_000, "{seed}: {agreement:?}");
        assert!(
            agreement.agrees(),
            "seed {seed}: {:?}",
            &agreement.disagreements[..agreement.disagreements.len().min(5)]
        );
        if crate::common::gpu_is_bit_exact() {
            assert_eq!(cpu, hits, "seed {seed}: the CPU's hits, bit for bit");
        }
        let compiled: Vec<&str> = gpu
            .compiled_kinds()
            .into_iter()
            .filter_map(|(kind, time)| time.map(|_| kind))
            .collect();
        assert_eq!(compiled, ["rounded"], "seed {seed}");
    }
}
