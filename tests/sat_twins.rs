//! The straight-line `*8` functions (polygons of up to 8 vertices, as the
//! WGSL kernel runs them) compute exactly what the looped ones do.

use gpusat::generate::SceneSpec;
use gpusat::sat::{
    TIE_TOLERANCE, collide_polygon_circle, collide_polygon_circle8, collide_polygons,
    collide_polygons8,
};
use gpusat::{Batch, Owner, inv_mul_transforms};

#[test]
fn straight_line_equals_looped_bit_for_bit() {
    for (seed, half_extent, margin) in [(111, 2.0, 0.0), (112, 0.7, 0.0), (113, 3.0, 0.4)] {
        let spec = SceneSpec {
            vertices: (3, 8),
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
            match (ra.count > 0, rb.count > 0) {
                (true, true) => {
                    let looped = collide_polygons(ea, eb, xf_ab, xf_ba, tolerance, margin);
                    let straight = collide_polygons8(ea, eb, xf_ab, xf_ba, tolerance, margin);
                    assert_eq!(
                        looped.map(|r| (r.axis, r.separation.to_bits())),
                        straight.map(|r| (r.axis, r.separation.to_bits())),
                        "{pair:?}"
                    );
                    polygons += looped.is_some() as usize;
                }
                (true, false) => {
                    let looped =
                        collide_polygon_circle(ea, xf_ab.p, rb.radius, Owner::A, tolerance, margin);
                    let straight = collide_polygon_circle8(
                        ea,
                        xf_ab.p,
                        rb.radius,
                        Owner::A,
                        tolerance,
                        margin,
                    );
                    assert_eq!(
                        looped.map(|r| (r.axis, r.separation.to_bits())),
                        straight.map(|r| (r.axis, r.separation.to_bits())),
                        "{pair:?}"
                    );
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
