//! Property tests of the CPU reference SAT: symmetry under swapping A and B,
//! invariance under moving both bodies together, and the meaning of the
//! depth (moving B by it separates the pair, by a little less does not), on
//! polygons, circles, rounded polygons, capsules and segments.

use crate::common::{overlap_along, world_shape};
use glam::Vec2;
use gpusat::{Batch, Body, Hit, Pair, Polygon, Shape, ShapeSet, collide_cpu, sat::TIE_TOLERANCE};
use proptest::prelude::*;

/// A shape description proptest can shrink.
#[derive(Clone, Debug)]
enum ShapeSpec {
    Circle(f32),
    Polygon {
        angles: Vec<f32>,
        radius: f32,
        stretch: f32,
        /// What the polygon is grown by (0: a plain polygon).
        rounding: f32,
    },
    /// A capsule (or, with no radius, a segment) `length` long.
    Capsule {
        length: f32,
        radius: f32,
    },
}

fn build(spec: &ShapeSpec) -> Option<Shape> {
    match spec {
        ShapeSpec::Circle(radius) => Some(Shape::Circle(gpusat::Circle::new(*radius).ok()?)),
        ShapeSpec::Polygon {
            angles,
            radius,
            stretch,
            rounding,
        } => {
            let mut sorted = angles.clone();
            sorted.sort_by(f32::total_cmp);
            let points: Vec<Vec2> = sorted
                .iter()
                .map(|a| Vec2::new(radius * stretch * a.cos(), radius * a.sin()))
                .collect();
            Polygon::rounded(&points, *rounding)
                .ok()
                .map(Shape::Polygon)
        }
        ShapeSpec::Capsule { length, radius } => {
            let (a, b) = (Vec2::new(-0.5 * length, 0.0), Vec2::new(0.5 * length, 0.0));
            if *radius > 0.0 {
                gpusat::Capsule::new(a, b, *radius).ok().map(Shape::Capsule)
            } else {
                gpusat::Segment::new(a, b).ok().map(Shape::Segment)
            }
        }
    }
}

fn shape_spec() -> impl Strategy<Value = ShapeSpec> {
    prop_oneof![
        1 => (0.2f32..2.0).prop_map(ShapeSpec::Circle),
        3 => (prop::collection::vec(0.0f32..std::f32::consts::TAU, 3..12), 0.3f32..2.0, 0.2f32..3.0)
            .prop_map(|(angles, radius, stretch)| ShapeSpec::Polygon { angles, radius, stretch, rounding: 0.0 }),
        1 => (prop::collection::vec(0.0f32..std::f32::consts::TAU, 3..12), 0.3f32..2.0, 0.2f32..3.0, 0.02f32..0.5)
            .prop_map(|(angles, radius, stretch, rounding)| ShapeSpec::Polygon { angles, radius, stretch, rounding }),
        1 => (0.2f32..3.0, prop_oneof![1 => Just(0.0f32), 3 => 0.05f32..0.8])
            .prop_map(|(length, radius)| ShapeSpec::Capsule { length, radius }),
    ]
}

/// Positions on a 1/64 grid, so that adding a multiple of 1024 is exact.
fn grid_position() -> impl Strategy<Value = Vec2> {
    (-192i32..=192, -192i32..=192).prop_map(|(x, y)| Vec2::new(x as f32 / 64.0, y as f32 / 64.0))
}

fn angle() -> impl Strategy<Value = f32> {
    -std::f32::consts::PI..std::f32::consts::PI
}

struct Setup {
    shapes: ShapeSet,
    scale: f32,
    tolerance: f32,
}

fn setup(a: &ShapeSpec, b: &ShapeSpec) -> Option<Setup> {
    let mut shapes = ShapeSet::new();
    let shape_a = build(a)?;
    let shape_b = build(b)?;
    let scale = shape_a.size().max(shape_b.size());
    let tolerance = TIE_TOLERANCE * (shape_a.size() + shape_b.size());
    shapes.push(shape_a);
    shapes.push(shape_b);
    Some(Setup {
        shapes,
        scale,
        tolerance,
    })
}

fn collide(shapes: &ShapeSet, a: Body, b: Body) -> Option<Hit> {
    let bodies = [a, b];
    let pairs = [Pair::new(0, 1)];
    let batch = Batch::new(shapes, &bodies, &pairs, 0.0).expect("valid batch");
    batch.hits(&collide_cpu(&batch)).first().copied()
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn swapping_a_and_b_keeps_the_depth_and_negates_the_normal(
        spec_a in shape_spec(), spec_b in shape_spec(),
        pa in grid_position(), pb in grid_position(), aa in angle(), ab in angle(),
    ) {
        let Some(setup) = setup(&spec_a, &spec_b) else { return Ok(()) };
        let a = Body::new(0, pa, aa);
        let b = Body::new(1, pb, ab);
        let forward = collide(&setup.shapes, a, b);
        // Swapped: body 0 is now B's shape, body 1 A's.
        let backward = collide(&setup.shapes, b, a);
        match (forward, backward) {
            (Some(f), Some(r)) => {
                prop_assert!((f.depth - r.depth).abs() <= 2.0 * setup.tolerance + 1e-6 * setup.scale,
                    "depth {} swapped {}", f.depth, r.depth);
                if (f.normal + r.normal).length() > 1e-5 {
                    // Only a near-tie may pick another axis: the swapped one
                    // must then be as good.
                    let (wa, wb) = (world_shape(&setup.shapes, &a), world_shape(&setup.shapes, &b));
                    let other = overlap_along(&wa, &wb, -r.normal.as_dvec2());
                    prop_assert!((other - f.depth as f64).abs() <= 1e-5 * setup.scale as f64,
                        "normal {} swapped {}: overlap {other} vs depth {}", f.normal, r.normal, f.depth);
                }
            }
            (Some(hit), None) | (None, Some(hit)) => {
                prop_assert!(hit.depth.abs() <= 1e-5 * setup.scale, "only one way reported: {hit:?}");
            }
            (None, None) => {}
        }
    }

    #[test]
    fn translating_both_bodies_changes_nothing(
        spec_a in shape_spec(), spec_b in shape_spec(),
        pa in grid_position(), pb in grid_position(), aa in angle(), ab in angle(),
        tx in -100i32..=100, ty in -100i32..=100,
    ) {
        let Some(setup) = setup(&spec_a, &spec_b) else { return Ok(()) };
        let offset = Vec2::new(tx as f32 * 1024.0, ty as f32 * 1024.0);
        let here = collide(&setup.shapes, Body::new(0, pa, aa), Body::new(1, pb, ab));
        let there = collide(&setup.shapes, Body::new(0, pa + offset, aa), Body::new(1, pb + offset, ab));
        // Exactly representable positions: exactly the same computation.
        prop_assert_eq!(here, there.map(|hit| Hit { ..hit }), "moved by {}", offset);
    }

    #[test]
    fn rotating_both_bodies_only_rotates_the_normal(
        spec_a in shape_spec(), spec_b in shape_spec(),
        pa in grid_position(), pb in grid_position(), aa in angle(), ab in angle(),
        turn in angle(),
    ) {
        let Some(setup) = setup(&spec_a, &spec_b) else { return Ok(()) };
        let rot = Vec2::from_angle(turn);
        let here = collide(&setup.shapes, Body::new(0, pa, aa), Body::new(1, pb, ab));
        let there = collide(&setup.shapes, Body::new(0, rot.rotate(pa), aa + turn), Body::new(1, rot.rotate(pb), ab + turn));
        match (here, there) {
            (Some(h), Some(t)) => {
                prop_assert!((h.depth - t.depth).abs() <= setup.tolerance + 2e-5 * setup.scale,
                    "depth {} turned {}", h.depth, t.depth);
                if h.axis == t.axis && (rot.rotate(h.normal) - t.normal).length() > 1e-4 {
                    // A normal between a circle's centre and a vertex turns
                    // with the rounding of both over their distance, which
                    // can be small: the turned normal must then be as good a
                    // translation as the original one turned (exact
                    // overlaps, in f64), which is flat about its best.
                    let turned_a = Body::new(0, rot.rotate(pa), aa + turn);
                    let turned_b = Body::new(1, rot.rotate(pb), ab + turn);
                    let (wa, wb) = (world_shape(&setup.shapes, &turned_a), world_shape(&setup.shapes, &turned_b));
                    let along_turned = overlap_along(&wa, &wb, t.normal.as_dvec2());
                    let along_expected = overlap_along(&wa, &wb, rot.rotate(h.normal).as_dvec2());
                    prop_assert!((along_turned - along_expected).abs() <= 1e-5 * setup.scale as f64,
                        "normal {} turned {} expected {}: overlaps {along_turned} and {along_expected}",
                        h.normal, t.normal, rot.rotate(h.normal));
                }
            }
            (Some(hit), None) | (None, Some(hit)) => {
                prop_assert!(hit.depth.abs() <= 2e-5 * setup.scale, "only one reported: {hit:?}");
            }
            (None, None) => {}
        }
    }

    #[test]
    fn moving_b_by_the_depth_separates_and_by_less_does_not(
        spec_a in shape_spec(), spec_b in shape_spec(),
        pa in grid_position(), pb in grid_position(), aa in angle(), ab in angle(),
    ) {
        let Some(setup) = setup(&spec_a, &spec_b) else { return Ok(()) };
        let a = Body::new(0, pa * 0.25, aa);
        let b = Body::new(1, pb * 0.25, ab);
        let Some(hit) = collide(&setup.shapes, a, b) else { return Ok(()) };
        // Tiny depths are within rounding of touching; the claim is about
        // the translation, not about rounding.
        prop_assume!(hit.depth > 0.02 * setup.scale);
        let beyond = Body { position: b.position + hit.normal * hit.depth * (1.0 + 1e-3), ..b };
        let short = Body { position: b.position + hit.normal * hit.depth * (1.0 - 1e-3), ..b };
        prop_assert!(collide(&setup.shapes, a, beyond).is_none(), "still overlapping after {hit:?}");
        prop_assert!(collide(&setup.shapes, a, short).is_some(), "separated short of {hit:?}");
    }
}
