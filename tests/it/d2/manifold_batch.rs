//! Contact manifolds for every hit of large seeded batches, from the CPU and
//! the GPU backends: one or two finite points, each within its depth (plus a
//! tolerance) of both shapes, and a unit normal.

use crate::common::{distance_to_shape, gpu_context, pair_scale, world_shape};
use gpusat::generate::SceneSpec;
use gpusat::gpu::{GpuNarrowphase, GpuOptions};
use gpusat::{Batch, Hit, collide_cpu, manifolds, manifolds_parallel};

const TOLERANCE: f64 = 1e-4;

fn check(what: &str, batch: &Batch, hits: &[Hit]) -> (usize, usize) {
    let all = manifolds(batch, hits);
    assert!(
        all == manifolds_parallel(batch, hits),
        "{what}: parallel manifolds differ"
    );
    let (mut one, mut two) = (0, 0);
    for (hit, m) in hits.iter().zip(&all) {
        let points = m.points();
        assert!(
            (1..=2).contains(&points.len()),
            "{what}: pair {}: {} points",
            hit.pair,
            points.len()
        );
        if points.len() == 1 {
            one += 1
        } else {
            two += 1
        }
        assert!(
            (m.normal.length() - 1.0).abs() < 1e-5,
            "{what}: normal {}",
            m.normal
        );
        let (body_a, body_b) = (
            &batch.bodies()[hit.a as usize],
            &batch.bodies()[hit.b as usize],
        );
        let (shape_a, shape_b) = (
            world_shape(batch.shapes(), body_a),
            world_shape(batch.shapes(), body_b),
        );
        let scale = pair_scale(batch.shapes(), body_a, body_b);
        for p in points {
            assert!(p.point.is_finite() && p.depth.is_finite(), "{what}: {p:?}");
            assert!(
                p.depth <= hit.depth + (TOLERANCE * scale) as f32,
                "{what}: point deeper than the pair: {p:?} {hit:?}"
            );
            let point = p.point.as_dvec2();
            let reach = p.depth.abs().max(hit.depth.abs()) as f64 + TOLERANCE * scale;
            for (shape, name) in [(&shape_a, "A"), (&shape_b, "B")] {
                let distance = distance_to_shape(point, shape);
                assert!(
                    distance <= reach,
                    "{what}: pair {}: point {} is {distance} outside {name} (depth {})",
                    hit.pair,
                    p.point,
                    p.depth
                );
            }
        }
    }
    (one, two)
}

#[test]
fn every_hit_gets_one_or_two_points_on_both_shapes() {
    let gpu = gpu_context()
        .map(|context| GpuNarrowphase::new(context, GpuOptions::default()).expect("GPU"));
    let mut gpu = gpu;
    for (seed, half_extent, margin) in [(51, 3.0, 0.0), (52, 1.0, 0.0), (53, 4.0, 0.2)] {
        let scene = SceneSpec {
            half_extent,
            ..SceneSpec::mixed(seed, 60_000)
        }
        .generate();
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
        let cpu_hits = batch.hits(&collide_cpu(&batch));
        let (one, two) = check(&format!("CPU seed {seed}"), &batch, &cpu_hits);
        assert!(
            one > 100 && two > 100,
            "seed {seed}: {one} one-point and {two} two-point manifolds"
        );
        if let Some(gpu) = gpu.as_mut() {
            let gpu_hits = batch.hits(&gpu.collide(&batch).expect("GPU"));
            check(&format!("GPU seed {seed}"), &batch, &gpu_hits);
        }
    }
}

#[test]
fn fused_contacts_equal_sat_then_manifolds() {
    for (seed, half_extent, margin) in [(54, 2.0, 0.0), (55, 4.0, 0.25), (56, 1.0, 0.0)] {
        let scene = SceneSpec {
            half_extent,
            ..SceneSpec::mixed(seed, 50_000)
        }
        .generate();
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
        let separate = manifolds(&batch, &batch.hits(&collide_cpu(&batch)));
        let fused = gpusat::contacts_cpu(&batch);
        assert!(separate.len() > 1000);
        assert!(
            fused == separate,
            "seed {seed}: fused contacts differ from SAT + manifolds"
        );
        assert!(
            gpusat::contacts_cpu_parallel(&batch) == separate,
            "seed {seed}: parallel fused contacts differ"
        );
    }
}
