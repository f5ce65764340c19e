//! Precision where it is hardest: bodies 100,000 units from the origin,
//! touching and nearly touching pairs, nearly parallel edges, slivers of
//! aspect 1:1000 and polygons at the vertex limit, on the CPU and the GPU.

use glam::Vec2;
use gpusat::generate::SceneSpec;
use gpusat::gpu::{GpuNarrowphase, GpuOptions};
use gpusat::{
    Batch, Body, MAX_POLYGON_VERTICES, Pair, SatHit, ShapeSet, collide_cpu, compare_hits,
};

/// Where an f32 100,000 units out can sit: a multiple of 2^-7.
const GRID: f32 = 1.0 / 128.0;
const FAR: Vec2 = Vec2::new(100_000.0, -100_000.0);

fn on_grid(v: Vec2) -> Vec2 {
    (v / GRID).round() * GRID
}

/// Hits of the same pairs at the origin and far out, matched by pair.
fn compare_far(what: &str, near: &[SatHit], far: &[SatHit]) -> f32 {
    let mut worst = 0.0f32;
    let (mut i, mut j) = (0, 0);
    while i < near.len() && j < far.len() {
        let (n, f) = (near[i], far[j]);
        if n.pair == f.pair {
            worst = worst.max((n.depth - f.depth).abs());
            i += 1;
            j += 1;
        } else if n.pair < f.pair {
            assert!(
                n.depth.abs() < 1e-3,
                "{what}: pair {} only near, depth {}",
                n.pair,
                n.depth
            );
            i += 1;
        } else {
            assert!(
                f.depth.abs() < 1e-3,
                "{what}: pair {} only far, depth {}",
                f.pair,
                f.depth
            );
            j += 1;
        }
    }
    assert!(worst <= 1e-3, "{what}: depths differ by up to {worst}");
    worst
}

#[test]
fn bodies_far_from_the_origin_give_the_depths_of_the_origin() {
    let scene = SceneSpec::mixed(71, 100_000).generate();
    // Positions a far body can hold exactly, so that the test compares the
    // computation and not the rounding of the input.
    let near: Vec<Body> = scene
        .bodies
        .iter()
        .map(|body| Body {
            position: on_grid(body.position),
            ..*body
        })
        .collect();
    let far: Vec<Body> = near
        .iter()
        .map(|body| Body {
            position: body.position + FAR,
            ..*body
        })
        .collect();
    assert!(
        near.iter()
            .zip(&far)
            .all(|(n, f)| f.position - FAR == n.position)
    );
    let near_batch = Batch::new(&scene.shapes, &near, &scene.pairs, 0.0).expect("batch");
    let far_batch = Batch::new(&scene.shapes, &far, &scene.pairs, 0.0).expect("batch");
    let near_hits = collide_cpu(&near_batch);
    assert!(near_hits.len() > 5_000, "{} hits", near_hits.len());
    let cpu = compare_far("CPU", &near_hits, &collide_cpu(&far_batch));
    eprintln!("CPU: depths 100,000 units out differ by at most {cpu:e}");
    let Some(context) = crate::common::gpu_context() else {
        return;
    };
    let mut gpu = GpuNarrowphase::new(context, GpuOptions::default()).expect("GPU");
    let gpu_near = gpu.collide(&near_batch).expect("GPU");
    let gpu_far = gpu.collide(&far_batch).expect("GPU");
    let worst = compare_far("GPU", &gpu_near, &gpu_far);
    eprintln!("GPU: depths 100,000 units out differ by at most {worst:e}");
    compare_far("GPU far against CPU near", &near_hits, &gpu_far);
}

/// A scene of hard cases, built by hand.
fn hard_cases() -> (ShapeSet, Vec<Body>, Vec<Pair>) {
    let mut shapes = ShapeSet::new();
    let square = shapes
        .add_polygon(&[
            Vec2::new(-0.5, -0.5),
            Vec2::new(0.5, -0.5),
            Vec2::new(0.5, 0.5),
            Vec2::new(-0.5, 0.5),
        ])
        .expect("square");
    // 1:1000: 2 units long, 0.002 thick.
    let sliver = shapes
        .add_polygon(&[
            Vec2::new(-1.0, -0.001),
            Vec2::new(1.0, -0.001),
            Vec2::new(1.0, 0.001),
            Vec2::new(-1.0, 0.001),
        ])
        .expect("sliver 1:1000");
    let circle_points: Vec<Vec2> = (0..MAX_POLYGON_VERTICES)
        .map(|i| {
            Vec2::from_angle(i as f32 / MAX_POLYGON_VERTICES as f32 * std::f32::consts::TAU) * 0.7
        })
        .collect();
    let limit = shapes.add_polygon(&circle_points).expect("64-gon");
    let ball = shapes.add_circle(0.5).expect("circle");
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    let mut pair = |bodies: &mut Vec<Body>, a: Body, b: Body| {
        let first = bodies.len() as u32;
        bodies.push(a);
        bodies.push(b);
        pairs.push(Pair::new(first, first + 1));
        pairs.push(Pair::new(first + 1, first));
    };
    for (k, gap) in [-1e-3f32, -1e-6, -1e-7, 0.0, 1e-7, 1e-6, 1e-3]
        .into_iter()
        .enumerate()
    {
        let y = k as f32 * 10.0;
        // Squares face to face, touching within `gap`, edges parallel and
        // nearly parallel.
        for (j, turn) in [0.0f32, 1e-6, 1e-4].into_iter().enumerate() {
            let x = j as f32 * 10.0;
            pair(
                &mut bodies,
                Body::new(square, Vec2::new(x, y), 0.0),
                Body::new(square, Vec2::new(x + 1.0 + gap, y + 0.3), turn),
            );
        }
        // A sliver lying on a square, one standing on its end against it.
        pair(
            &mut bodies,
            Body::new(square, Vec2::new(40.0, y), 0.0),
            Body::new(sliver, Vec2::new(40.2, y + 0.501 + gap), 1e-5),
        );
        pair(
            &mut bodies,
            Body::new(square, Vec2::new(50.0, y), 0.0),
            Body::new(sliver, Vec2::new(51.5 + gap, y), 0.0),
        );
        // Polygons at the vertex limit against each other and a circle.
        pair(
            &mut bodies,
            Body::new(limit, Vec2::new(60.0, y), 0.0),
            Body::new(limit, Vec2::new(61.4 + gap, y), 0.3),
        );
        pair(
            &mut bodies,
            Body::new(limit, Vec2::new(70.0, y), 0.0),
            Body::new(ball, Vec2::new(71.2 + gap, y), 0.0),
        );
    }
    (shapes, bodies, pairs)
}

#[test]
fn hard_cases_are_finite_and_agree_on_both_backends() {
    let (shapes, bodies, pairs) = hard_cases();
    let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).expect("batch");
    let cpu = collide_cpu(&batch);
    assert!(
        cpu.len() > pairs.len() / 3,
        "{} of {} pairs hit",
        cpu.len(),
        pairs.len()
    );
    for hit in batch.hits(&cpu) {
        assert!(hit.depth.is_finite() && hit.depth > -1e-6, "{hit:?}");
        assert!((hit.normal.length() - 1.0).abs() < 1e-5, "{hit:?}");
    }
    // Each pair is there both ways round: the same depth either way.
    for pair in cpu.chunks(1) {
        let hit = pair[0];
        let twin = hit.pair ^ 1;
        if let Some(other) = cpu.iter().find(|h| h.pair == twin) {
            assert!(
                (hit.depth - other.depth).abs() <= 1e-5,
                "pair {} depth {} but swapped {}",
                hit.pair,
                hit.depth,
                other.depth
            );
        } else {
            assert!(
                hit.depth.abs() <= 1e-5,
                "pair {} only one way, depth {}",
                hit.pair,
                hit.depth
            );
        }
    }
    let Some(context) = crate::common::gpu_context() else {
        return;
    };
    let mut gpu = GpuNarrowphase::new(context, GpuOptions::default()).expect("GPU");
    let got = gpu.collide(&batch).expect("GPU");
    let agreement = compare_hits(&batch, &cpu, &got);
    assert!(agreement.agrees(), "{:?}", agreement.disagreements);
}
