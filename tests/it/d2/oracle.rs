//! The CPU reference SAT against an exact double-precision oracle (Minkowski
//! difference), on seeded random pairs of mixed polygons, circles and thin
//! slivers, near the origin and 10,000 units from it.

use crate::common::{oracle_depth, overlap_along, pair_scale, world_shape};
use glam::{DVec2, Vec2};
use gpusat::generate::SceneSpec;
use gpusat::{Batch, collide_cpu};

/// Depth agreement, relative to the pair's size.
const DEPTH_TOLERANCE: f64 = 1e-4;
/// Pairs this close to touching (relative) may be classified either way.
const TOUCH_TOLERANCE: f64 = 1e-4;

struct Tally {
    pairs: usize,
    overlapping: usize,
    near_touching: usize,
}

/// Checks every pair of one generated scene; returns what it saw.
fn check_scene(spec: &SceneSpec, margin: f32) -> Tally {
    let scene = spec.generate();
    let batch =
        Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("valid batch");
    let hits = batch.hits(&collide_cpu(&batch));
    let mut reported = vec![None; scene.pairs.len()];
    for hit in &hits {
        reported[hit.pair as usize] = Some(*hit);
    }
    let mut tally = Tally {
        pairs: scene.pairs.len(),
        overlapping: 0,
        near_touching: 0,
    };
    for (index, pair) in scene.pairs.iter().enumerate() {
        let (body_a, body_b) = (
            &scene.bodies[pair.a as usize],
            &scene.bodies[pair.b as usize],
        );
        let shape_a = world_shape(&scene.shapes, body_a);
        let shape_b = world_shape(&scene.shapes, body_b);
        let scale = pair_scale(&scene.shapes, body_a, body_b);
        let exact = oracle_depth(&shape_a, &shape_b);
        let margin = margin as f64;
        if exact > 0.0 {
            tally.overlapping += 1;
        }
        if (exact + margin).abs() <= TOUCH_TOLERANCE * scale {
            tally.near_touching += 1;
            continue;
        }
        match reported[index] {
            None => assert!(
                exact < -margin,
                "seed {} pair {index} ({pair:?}): oracle depth {exact} > -margin {margin} but not reported",
                spec.seed
            ),
            Some(hit) => {
                let depth = hit.depth as f64;
                let normal = hit.normal.as_dvec2();
                assert!(
                    (normal.length() - 1.0).abs() < 1e-6,
                    "seed {} pair {index}: normal {normal} is not unit",
                    spec.seed
                );
                assert!(
                    depth > -margin,
                    "pair {index}: reported depth {depth} <= -margin"
                );
                if exact > 0.0 {
                    // Overlapping: the depth is the exact penetration depth.
                    assert!(
                        (depth - exact).abs() <= DEPTH_TOLERANCE * scale,
                        "seed {} pair {index} ({pair:?}): depth {depth}, oracle {exact}, scale {scale}, axis {:?}",
                        spec.seed,
                        hit.axis
                    );
                } else {
                    // Separated, reported through the margin: a face
                    // separation is a lower bound of the gap.
                    assert!(
                        depth >= exact - DEPTH_TOLERANCE * scale,
                        "seed {} pair {index}: depth {depth} below minus the gap {exact}",
                        spec.seed
                    );
                }
                // The normal is an axis along which the overlap is the depth.
                let overlap = overlap_along(&shape_a, &shape_b, normal);
                assert!(
                    (overlap - depth).abs() <= DEPTH_TOLERANCE * scale,
                    "seed {} pair {index} ({pair:?}): overlap along {normal} is {overlap}, depth {depth}",
                    spec.seed
                );
            }
        }
    }
    tally
}

fn mixed(seed: u64, pairs: usize, half_extent: f32) -> SceneSpec {
    SceneSpec {
        half_extent,
        ..SceneSpec::mixed(seed, pairs)
    }
}

#[test]
fn mixed_shapes_near_the_origin_agree_with_the_oracle() {
    let tally = check_scene(&mixed(11, 4000, 2.0), 0.0);
    assert!(
        tally.overlapping > tally.pairs / 4,
        "too few overlaps to mean much: {}",
        tally.overlapping
    );
    assert!(
        tally.overlapping < tally.pairs * 9 / 10,
        "too few separated pairs: {}",
        tally.overlapping
    );
}

#[test]
fn bodies_ten_thousand_units_from_the_origin_agree_with_the_oracle() {
    let spec = SceneSpec {
        offset: Vec2::new(10_000.0, -10_000.0),
        ..mixed(12, 4000, 2.0)
    };
    let tally = check_scene(&spec, 0.0);
    assert!(tally.overlapping > tally.pairs / 4);
}

#[test]
fn thin_slivers_agree_with_the_oracle() {
    let spec = SceneSpec {
        sliver_fraction: 0.6,
        circle_fraction: 0.1,
        ..mixed(13, 3000, 1.5)
    };
    let tally = check_scene(&spec, 0.0);
    assert!(tally.overlapping > tally.pairs / 5);
}

#[test]
fn large_polygons_agree_with_the_oracle() {
    let spec = SceneSpec {
        vertices: (17, gpusat::MAX_POLYGON_VERTICES),
        circle_fraction: 0.1,
        sliver_fraction: 0.0,
        ..mixed(14, 1500, 1.5)
    };
    check_scene(&spec, 0.0);
}

#[test]
fn speculative_margin_reports_near_pairs_with_a_lower_bound_of_the_gap() {
    let tally = check_scene(&mixed(15, 3000, 3.0), 0.25);
    assert!(tally.pairs > 0);
}

#[test]
fn hand_checked_oracle_cases() {
    // The oracle itself, on cases worked by hand.
    let square = |centre: DVec2, half: f64| {
        crate::common::WorldShape::Polygon(vec![
            centre + DVec2::new(-half, -half),
            centre + DVec2::new(half, -half),
            centre + DVec2::new(half, half),
            centre + DVec2::new(-half, half),
        ])
    };
    let a = square(DVec2::ZERO, 1.0);
    assert!((oracle_depth(&a, &square(DVec2::new(1.5, 0.0), 1.0)) - 0.5).abs() < 1e-12);
    // Corners (1, 1) and (2, 3) are nearest: a gap of sqrt(5).
    assert!((oracle_depth(&a, &square(DVec2::new(3.0, 4.0), 1.0)) + 5f64.sqrt()).abs() < 1e-12);
    let circle = crate::common::WorldShape::Circle {
        centre: DVec2::new(1.3, 1.3),
        radius: 0.5,
    };
    assert!((oracle_depth(&a, &circle) - (0.5 - 0.3 * 2f64.sqrt())).abs() < 1e-12);
}
