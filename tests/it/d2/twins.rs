//! The straight-line `*8` and `*16` functions (polygons of up to 8 and 16
//! vertices, as the WGSL kernel runs them) compute exactly what the looped
//! ones do, and the merged face search what the brute force does.

use gpusat::generate::SceneSpec;
use gpusat::math::inv_mul_transforms;
use gpusat::sat::TIE_TOLERANCE;
use gpusat::sat::twins::{
    PairResult, collide_polygon_circle, collide_polygon_circle8, collide_polygon_circle16,
    collide_polygons, collide_polygons8, collide_polygons16,
};
use gpusat::{Batch, EdgeRecord, Owner, Transform};

type PolygonsFn =
    fn(&[EdgeRecord], &[EdgeRecord], Transform, Transform, f32, f32) -> Option<PairResult>;
type PolygonCircleFn = fn(&[EdgeRecord], glam::Vec2, f32, Owner, f32, f32) -> Option<PairResult>;

/// Every polygon pair and polygon–circle pair of three seeded scenes with
/// polygons of 3 to `max_vertices` vertices, through the looped functions
/// and the straight-line ones.
fn straight_line_equals_looped(
    max_vertices: usize,
    straight_polygons: PolygonsFn,
    straight_polygon_circle: PolygonCircleFn,
) {
    for (seed, half_extent, margin) in [(111, 2.0, 0.0), (112, 0.7, 0.0), (113, 3.0, 0.4)] {
        let spec = SceneSpec {
            vertices: (3, max_vertices),
            half_extent,
            ..SceneSpec::mixed(seed, 100_000)
        };
        let scene = spec.generate();
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
        let records = scene.shapes.records();
        let (mut polygons, mut circles) = (0, 0);
        for pair in &scene.pairs {
            let (a, b) = (pair.a as usize, pair.b as usize);
            let (ra, rb) = (
                &records[scene.bodies[a].shape as usize],
                &records[scene.bodies[b].shape as usize],
            );
            let (xa, xb) = (batch.transforms()[a], batch.transforms()[b]);
            let (xf_ab, xf_ba) = (inv_mul_transforms(xa, xb), inv_mul_transforms(xb, xa));
            let tolerance = TIE_TOLERANCE * (ra.size + rb.size);
            let (ea, eb) = (scene.shapes.edges_of(ra), scene.shapes.edges_of(rb));
            let bits =
                |result: Option<PairResult>| result.map(|r| (r.axis, r.separation.to_bits()));
            match (ra.count > 0, rb.count > 0) {
                (true, true) => {
                    let looped = collide_polygons(ea, eb, xf_ab, xf_ba, tolerance, margin);
                    let straight = straight_polygons(ea, eb, xf_ab, xf_ba, tolerance, margin);
                    assert_eq!(bits(looped), bits(straight), "{pair:?}");
                    polygons += looped.is_some() as usize;
                }
                (true, false) => {
                    let looped =
                        collide_polygon_circle(ea, xf_ab.p, rb.radius, Owner::A, tolerance, margin);
                    let straight = straight_polygon_circle(
                        ea,
                        xf_ab.p,
                        rb.radius,
                        Owner::A,
                        tolerance,
                        margin,
                    );
                    assert_eq!(bits(looped), bits(straight), "{pair:?}");
                    circles += looped.is_some() as usize;
                }
                _ => {}
            }
        }
        assert!(
            polygons > 1000 && circles > 300,
            "seed {seed}: {polygons} polygon and {circles} circle hits"
        );
    }
}

#[test]
fn straight_line_8_equals_looped_bit_for_bit() {
    straight_line_equals_looped(8, collide_polygons8, collide_polygon_circle8);
}

#[test]
fn straight_line_16_equals_looped_bit_for_bit() {
    straight_line_equals_looped(16, collide_polygons16, collide_polygon_circle16);
}

#[test]
fn merged_search_finds_what_brute_force_finds() {
    use gpusat::sat::TIE_TOLERANCE;
    use gpusat::sat::twins::{find_max_separation, find_max_separation_merged};
    let mut identical = 0;
    let mut compared = 0;
    for (seed, vertices) in [(121, (17, 64)), (122, (40, 64)), (123, (17, 24))] {
        let spec = SceneSpec {
            vertices,
            circle_fraction: 0.0,
            sliver_fraction: 0.0,
            half_extent: 1.5,
            ..SceneSpec::mixed(seed, 20_000)
        };
        let scene = spec.generate();
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
        let records = scene.shapes.records();
        for pair in &scene.pairs {
            let (a, b) = (pair.a as usize, pair.b as usize);
            let (ra, rb) = (
                &records[scene.bodies[a].shape as usize],
                &records[scene.bodies[b].shape as usize],
            );
            let xf_ba = inv_mul_transforms(batch.transforms()[b], batch.transforms()[a]);
            let tolerance = TIE_TOLERANCE * (ra.size + rb.size);
            let (ea, eb) = (scene.shapes.edges_of(ra), scene.shapes.edges_of(rb));
            // No early exit: every face's value is compared.
            let brute = find_max_separation(ea, eb, xf_ba, tolerance, f32::MAX);
            let merged = find_max_separation_merged(ea, eb, xf_ba, tolerance, f32::MAX);
            compared += 1;
            if brute == merged {
                identical += 1;
            } else {
                let size = ra.size.max(rb.size);
                assert!(
                    (brute.value - merged.value).abs() <= 1e-5 * size,
                    "{pair:?}: brute {brute:?}, merged {merged:?}"
                );
            }
        }
    }
    eprintln!("merged search: {identical} of {compared} identical to brute force");
    assert!(
        identical * 1000 >= compared * 999,
        "{identical} of {compared}"
    );
}
