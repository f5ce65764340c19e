//! Box2D v3 as a peer (a build with the `box2d` feature): on the same pairs
//! its manifold functions and our SAT agree on which pairs overlap (but
//! where a pair barely touches: Box2D keeps speculative points and a linear
//! slop), and, on nearly all of them, on the depth and the normal, for
//! quads and 8-gons (Box2D given each polygon's own vertices: its hull
//! builder would weld some of the quads' close vertices away), circles,
//! capsules, capsules with polygons, circles with quads and rounded 8-gons.
//! Box2D's depth is its deepest manifold point's: clipped to the reference
//! face's sides, it falls short of the minimum translation where a deep
//! incident vertex is clipped away.

use gpusat::generate::{Density, ShapeKind, workload};
use gpusat::{Batch, collide_cpu};
use gpusat_cli::peer::box2d::Peer;

#[test]
fn box2d_agrees_with_the_reference_sat() {
    for kind in [
        ShapeKind::Polygons(4),
        ShapeKind::Polygons(8),
        ShapeKind::Circles,
        ShapeKind::Capsules,
        ShapeKind::CapsulesAndPolygons,
        ShapeKind::CirclesAndPolygons(4),
        ShapeKind::Rounded(8),
    ] {
        let scene = workload(kind, Density::Dense, 20_000);
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
        let hits = batch.hits(&collide_cpu(&batch));
        let peer = Peer::new(&scene.shapes, &scene.bodies).expect("Box2D takes the shapes");
        let mut ours = vec![None; scene.pairs.len()];
        for hit in &hits {
            ours[hit.pair as usize] = Some(*hit);
        }
        let (mut compared, mut near_touching, mut other_normals, mut other_depths) = (0, 0, 0, 0);
        for (index, pair) in scene.pairs.iter().enumerate() {
            let size = {
                let s = |b: u32| {
                    scene
                        .shapes
                        .get(scene.bodies[b as usize].shape)
                        .expect("shape")
                        .size()
                };
                s(pair.a).max(s(pair.b))
            };
            let slop = 1e-2 * size;
            match (ours[index], peer.contact(*pair)) {
                (Some(hit), Some((depth, normal))) => {
                    compared += 1;
                    if (hit.depth - depth).abs() > slop {
                        other_depths += 1;
                    }
                    if (hit.normal - normal).length() > 1e-2 {
                        other_normals += 1;
                    }
                }
                (Some(hit), None) => {
                    assert!(
                        hit.depth <= slop,
                        "{kind:?} pair {index}: {hit:?}, Box2D none"
                    );
                    near_touching += 1;
                }
                (None, Some((depth, _))) => {
                    assert!(
                        depth <= slop,
                        "{kind:?} pair {index}: Box2D {depth}, ours none"
                    );
                    near_touching += 1;
                }
                (None, None) => {}
            }
        }
        eprintln!(
            "{kind:?}: {compared} overlaps compared, {near_touching} touching on one side only, \
             {other_depths} other depths, {other_normals} other normals"
        );
        assert!(compared > 5_000, "{kind:?}: {compared} overlaps");
        // Near-ties between two axes, and deep pairs whose deepest incident
        // vertex Box2D clips away.
        assert!(
            other_normals * 50 <= compared && other_depths * 20 <= compared,
            "{kind:?}: {other_normals} other normals, {other_depths} other depths"
        );
    }
}
