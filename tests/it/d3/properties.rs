//! Property tests of the 3D CPU reference SAT: symmetry under swapping A and
//! B, invariance under moving (and turning) both bodies together, and the
//! meaning of the depth (moving B by it separates the pair, by a little less
//! does not).

use crate::common::oracle3;

use crate::common::oracle3::{overlap_along, place};
use glam::{Quat, Vec3};
use gpusat::Pair;
use gpusat::d3::sat::{EDGE_TOLERANCE, TIE_TOLERANCE};
use gpusat::d3::{Batch, Body, Hit, Hull, Shape, ShapeSet, Sphere, collide_cpu};
use proptest::prelude::*;

/// A shape description proptest can shrink.
#[derive(Clone, Debug)]
enum ShapeSpec {
    Sphere(f32),
    Cuboid(f32, f32, f32),
    /// Points on an ellipsoid: directions (as two angles) scaled.
    Hull {
        angles: Vec<(f32, f32)>,
        radius: f32,
        stretch: (f32, f32),
    },
}

fn build(spec: &ShapeSpec) -> Option<Shape> {
    match spec {
        ShapeSpec::Sphere(radius) => Some(Shape::Sphere(Sphere::new(*radius).ok()?)),
        ShapeSpec::Cuboid(x, y, z) => Some(Shape::Hull(Hull::cuboid(Vec3::new(*x, *y, *z)).ok()?)),
        ShapeSpec::Hull {
            angles,
            radius,
            stretch,
        } => {
            let points: Vec<Vec3> = angles
                .iter()
                .map(|&(azimuth, height)| {
                    let ring = (1.0 - height * height).max(0.0).sqrt();
                    Vec3::new(
                        ring * azimuth.cos() * stretch.0,
                        height * stretch.1,
                        ring * azimuth.sin(),
                    ) * *radius
                })
                .collect();
            Hull::new(&points).ok().map(Shape::Hull)
        }
    }
}

fn shape_spec() -> impl Strategy<Value = ShapeSpec> {
    prop_oneof![
        1 => (0.2f32..2.0).prop_map(ShapeSpec::Sphere),
        1 => (0.1f32..1.5, 0.1f32..1.5, 0.1f32..1.5).prop_map(|(x, y, z)| ShapeSpec::Cuboid(x, y, z)),
        4 => (
            prop::collection::vec((0.0f32..std::f32::consts::TAU, -1.0f32..1.0), 4..40),
            0.3f32..2.0,
            (0.2f32..3.0, 0.1f32..3.0),
        )
            .prop_map(|(angles, radius, stretch)| ShapeSpec::Hull { angles, radius, stretch }),
    ]
}

/// Positions on a 1/64 grid, so that adding a multiple of 1024 is exact.
fn grid_position() -> impl Strategy<Value = Vec3> {
    (-128i32..=128, -128i32..=128, -128i32..=128)
        .prop_map(|(x, y, z)| Vec3::new(x as f32, y as f32, z as f32) / 64.0)
}

fn rotation() -> impl Strategy<Value = Quat> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_filter_map(
        "a quaternion away from zero",
        |(x, y, z, w)| {
            let q = Quat::from_xyzw(x, y, z, w);
            (q.length() > 0.1).then(|| q.normalize())
        },
    )
}

struct Setup {
    shapes: ShapeSet,
    scale: f32,
    /// How much two answers may differ at a tie: the edge tolerance.
    tie: f32,
}

fn setup(a: &ShapeSpec, b: &ShapeSpec) -> Option<Setup> {
    let mut shapes = ShapeSet::new();
    let shape_a = build(a)?;
    let shape_b = build(b)?;
    let scale = shape_a.size().max(shape_b.size());
    let sizes = shape_a.size() + shape_b.size();
    shapes.push(shape_a);
    shapes.push(shape_b);
    Some(Setup {
        shapes,
        scale,
        tie: (EDGE_TOLERANCE + TIE_TOLERANCE) * sizes,
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
        cases: 1500,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn swapping_a_and_b_keeps_the_depth_and_negates_the_normal(
        spec_a in shape_spec(), spec_b in shape_spec(),
        pa in grid_position(), pb in grid_position(), ra in rotation(), rb in rotation(),
    ) {
        let Some(setup) = setup(&spec_a, &spec_b) else { return Ok(()) };
        let a = Body::new(0, pa, ra);
        let b = Body::new(1, pb, rb);
        let forward = collide(&setup.shapes, a, b);
        let backward = collide(&setup.shapes, b, a);
        match (forward, backward) {
            (Some(f), Some(r)) => {
                prop_assert!((f.depth - r.depth).abs() <= setup.tie + 1e-5 * setup.scale,
                    "depth {} ({:?}) swapped {} ({:?})", f.depth, f.axis, r.depth, r.axis);
                if (f.normal + r.normal).length() > 1e-4 {
                    // Only a near-tie may pick another axis: the swapped one
                    // must then be as good.
                    let (wa, wb) = (place(&setup.shapes, &a), place(&setup.shapes, &b));
                    let other = overlap_along(&wa, &wb, -r.normal.as_dvec3());
                    prop_assert!((other - f.depth as f64).abs() <= (setup.tie + 1e-5 * setup.scale) as f64,
                        "normal {} ({:?}) swapped {} ({:?}): overlap {other} vs depth {}",
                        f.normal, f.axis, r.normal, r.axis, f.depth);
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
        pa in grid_position(), pb in grid_position(), ra in rotation(), rb in rotation(),
        tx in -100i32..=100, ty in -100i32..=100, tz in -100i32..=100,
    ) {
        let Some(setup) = setup(&spec_a, &spec_b) else { return Ok(()) };
        let offset = Vec3::new(tx as f32, ty as f32, tz as f32) * 1024.0;
        let here = collide(&setup.shapes, Body::new(0, pa, ra), Body::new(1, pb, rb));
        let there = collide(&setup.shapes, Body::new(0, pa + offset, ra), Body::new(1, pb + offset, rb));
        // Exactly representable positions, the SAT in A's frame: exactly
        // the same computation.
        prop_assert_eq!(here, there, "moved by {}", offset);
    }

    #[test]
    fn turning_both_bodies_only_turns_the_normal(
        spec_a in shape_spec(), spec_b in shape_spec(),
        pa in grid_position(), pb in grid_position(), ra in rotation(), rb in rotation(),
        turn in rotation(),
    ) {
        let Some(setup) = setup(&spec_a, &spec_b) else { return Ok(()) };
        let here = collide(&setup.shapes, Body::new(0, pa, ra), Body::new(1, pb, rb));
        let there = collide(
            &setup.shapes,
            Body::new(0, turn * pa, turn * ra),
            Body::new(1, turn * pb, turn * rb),
        );
        match (here, there) {
            (Some(h), Some(t)) => {
                prop_assert!((h.depth - t.depth).abs() <= setup.tie + 2e-5 * setup.scale,
                    "depth {} turned {}", h.depth, t.depth);
                if h.axis == t.axis {
                    prop_assert!((turn * h.normal - t.normal).length() <= 1e-3,
                        "normal {} turned {} expected {}", h.normal, t.normal, turn * h.normal);
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
        pa in grid_position(), pb in grid_position(), ra in rotation(), rb in rotation(),
    ) {
        let Some(setup) = setup(&spec_a, &spec_b) else { return Ok(()) };
        let a = Body::new(0, pa * 0.25, ra);
        let b = Body::new(1, pb * 0.25, rb);
        let Some(hit) = collide(&setup.shapes, a, b) else { return Ok(()) };
        // The SAT may prefer a face to an edge pair shallower by the edge
        // tolerance (4e-5 x size at most); 1e-3 of the depth must exceed it.
        prop_assume!(hit.depth > 0.05 * setup.scale);
        let beyond = Body { position: b.position + hit.normal * hit.depth * (1.0 + 1e-3), ..b };
        let short = Body { position: b.position + hit.normal * hit.depth * (1.0 - 1e-3), ..b };
        prop_assert!(collide(&setup.shapes, a, beyond).is_none(), "still overlapping after {hit:?}");
        prop_assert!(collide(&setup.shapes, a, short).is_some(), "separated short of {hit:?}");
        // And the exact oracle agrees.
        let moved = |body: &Body| place(&setup.shapes, body);
        let exact_beyond = oracle3::oracle_depth(&moved(&a), &moved(&beyond));
        let exact_short = oracle3::oracle_depth(&moved(&a), &moved(&short));
        prop_assert!(exact_beyond < 0.0 && exact_short > 0.0,
            "the oracle: {exact_beyond} after the push, {exact_short} short of it ({hit:?})");
    }
}
