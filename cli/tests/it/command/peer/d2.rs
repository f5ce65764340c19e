//! parry2d as a peer: on the same pairs, its `query::contact` and our SAT
//! agree on which pairs overlap, how deep, and along which normal; polygons,
//! circles, mixed, capsules and rounded 8-gons (parry's `Capsule` and
//! `RoundShape`).

use gpusat::generate::{Density, ShapeKind, workload};
use gpusat::{Batch, collide_cpu};
use gpusat_cli::peer::d2::Peer;

use crate::common::{oracle_depth, overlap_along, world_shape};

#[test]
fn parry2d_agrees_with_the_reference_sat() {
    for kind in [
        ShapeKind::Polygons(8),
        ShapeKind::Circles,
        ShapeKind::Mixed,
        ShapeKind::Capsules,
        ShapeKind::CapsulesAndPolygons,
        ShapeKind::CirclesAndPolygons(4),
        ShapeKind::Rounded(8),
    ] {
        let scene = workload(kind, Density::Dense, 20_000);
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
        let hits = batch.hits(&collide_cpu(&batch));
        let peer = Peer::new(&scene.shapes, &scene.bodies);
        let mut reported = vec![None; scene.pairs.len()];
        for hit in &hits {
            reported[hit.pair as usize] = Some(*hit);
        }
        let (mut compared, mut worst_depth, mut worst_normal, mut other_normals) =
            (0, 0.0f32, 0.0f32, 0);
        let mut parry_short = 0;
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
            let theirs = peer.contact(*pair);
            match (reported[index], theirs) {
                (Some(ours), Some((depth, normal))) => {
                    compared += 1;
                    if (ours.depth - depth).abs() > 1e-3 * size {
                        // parry's capsule contacts can fall short of the
                        // overlap along their own normal: ours must then be
                        // the exact depth (the float64 oracle's).
                        let a = world_shape(&scene.shapes, &scene.bodies[pair.a as usize]);
                        let b = world_shape(&scene.shapes, &scene.bodies[pair.b as usize]);
                        let exact = oracle_depth(&a, &b);
                        let along_theirs = overlap_along(&a, &b, normal.as_dvec2().normalize());
                        assert!(
                            (f64::from(ours.depth) - exact).abs() <= 1e-5 * f64::from(size)
                                && (along_theirs - f64::from(depth)).abs() > 1e-3 * f64::from(size),
                            "{kind:?} pair {index}: depth {} vs parry {depth} (exact {exact}, \
                             overlap along parry's normal {along_theirs})",
                            ours.depth
                        );
                        parry_short += 1;
                        continue;
                    }
                    worst_depth = worst_depth.max((ours.depth - depth).abs() / size);
                    // Normals may differ where two axes give nearly the same
                    // depth; ours must then be at least as short a
                    // translation as parry's (exact overlaps, in f64).
                    let difference = (ours.normal - normal).length();
                    if difference > 1e-2 {
                        other_normals += 1;
                        let a = world_shape(&scene.shapes, &scene.bodies[pair.a as usize]);
                        let b = world_shape(&scene.shapes, &scene.bodies[pair.b as usize]);
                        let along_ours = overlap_along(&a, &b, ours.normal.as_dvec2());
                        let along_theirs = overlap_along(&a, &b, normal.as_dvec2().normalize());
                        assert!(
                            along_ours <= along_theirs + 1e-5 * size as f64,
                            "{kind:?} pair {index}: our normal {} ({:?}) overlaps by {along_ours}, parry's {normal} by {along_theirs}",
                            ours.normal,
                            ours.axis
                        );
                    } else {
                        worst_normal = worst_normal.max(difference);
                    }
                }
                (Some(ours), None) => assert!(
                    ours.depth <= 1e-3 * size,
                    "{kind:?} pair {index}: parry misses depth {}",
                    ours.depth
                ),
                (None, Some((depth, _))) => assert!(
                    depth <= 1e-3 * size,
                    "{kind:?} pair {index}: we miss parry's depth {depth}"
                ),
                (None, None) => {}
            }
        }
        eprintln!(
            "{kind:?}: {compared} overlapping pairs compared, worst depth difference {worst_depth:.1e} of size, \
             worst normal difference {worst_normal:.1e}, {other_normals} others (ours no longer), \
             {parry_short} where parry's depth falls short of its own normal's overlap (ours exact)"
        );
        assert!(
            parry_short * 100 <= compared,
            "{kind:?}: parry off the overlap along its normal on {parry_short} of {compared}"
        );
        assert!(
            other_normals * 100 <= compared,
            "{kind:?}: {other_normals} of {compared} normals differ"
        );
        assert!(compared > 10_000, "{compared} pairs compared");
    }
}
