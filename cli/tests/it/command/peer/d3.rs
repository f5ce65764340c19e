//! parry3d as a peer: on the same 3D pairs (hulls, boxes, spheres, and
//! capsules and rounded hulls against its `Capsule` and `RoundShape`), its
//! `query::contact` and our SAT agree on which pairs overlap, how deep, and
//! along which normal.

use crate::common::oracle3::{oracle_depth, overlap_along, place};
use gpusat::d3::{Batch, collide_cpu};
use gpusat::generate::d3::SceneSpec;
use gpusat::generate::d3::{ShapeKind, workload};
use gpusat_cli::peer::d3::Peer;

fn compare(what: &str, scene: &gpusat::generate::d3::GeneratedScene) -> usize {
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let hits = batch.hits(&collide_cpu(&batch));
    let peer = Peer::new(&scene.shapes, &scene.bodies);
    let mut reported = vec![None; scene.pairs.len()];
    for hit in &hits {
        reported[hit.pair as usize] = Some(*hit);
    }
    let (mut compared, mut worst_depth, mut worst_normal, mut other_normals) =
        (0, 0.0f32, 0.0f32, 0);
    let mut parry_off = 0;
    for (index, pair) in scene.pairs.iter().enumerate() {
        let size = batch.pair_size(index as u32);
        let theirs = peer.contact(*pair);
        match (reported[index], theirs) {
            (Some(ours), Some((depth, normal))) => {
                compared += 1;
                let exact = || {
                    oracle_depth(
                        &place(&scene.shapes, &scene.bodies[pair.a as usize]),
                        &place(&scene.shapes, &scene.bodies[pair.b as usize]),
                    )
                };
                if (ours.depth - depth).abs() > 1e-3 * size {
                    // Where the two differ, the exact oracle decides: ours
                    // must be its depth (parry's capsule pairs can be off
                    // by a few percent of their depth).
                    let exact = exact();
                    assert!(
                        (f64::from(ours.depth) - exact).abs() <= 1e-4 * f64::from(size),
                        "{what} pair {index}: depth {} ({:?}) vs parry {depth}, the oracle's {exact}",
                        ours.depth,
                        ours.axis,
                    );
                    parry_off += 1;
                    continue;
                }
                worst_depth = worst_depth.max((ours.depth - depth).abs() / size);
                // Normals may differ where two axes give nearly the same
                // depth, or by EPA's tolerance; ours must then be at least as
                // short a translation as parry's (exact overlaps, in f64),
                // but for the SAT's preference of a face over an edge pair up
                // to 2e-5 x (size A + size B) shallower.
                let difference = (ours.normal - normal).length();
                if difference > 1e-2 {
                    other_normals += 1;
                    let a = place(&scene.shapes, &scene.bodies[pair.a as usize]);
                    let b = place(&scene.shapes, &scene.bodies[pair.b as usize]);
                    let along_ours = overlap_along(&a, &b, ours.normal.as_dvec3());
                    let along_theirs = overlap_along(&a, &b, normal.as_dvec3().normalize());
                    assert!(
                        along_ours <= along_theirs + 5e-5 * size as f64,
                        "{what} pair {index}: our normal {} ({:?}) overlaps by {along_ours}, parry's {normal} by {along_theirs}",
                        ours.normal,
                        ours.axis
                    );
                } else {
                    worst_normal = worst_normal.max(difference);
                }
            }
            (Some(ours), None) => assert!(
                ours.depth <= 1e-3 * size,
                "{what} pair {index}: parry misses depth {} ({:?})",
                ours.depth,
                ours.axis
            ),
            (None, Some((depth, _))) => assert!(
                depth <= 1e-3 * size,
                "{what} pair {index}: we miss parry's depth {depth}"
            ),
            (None, None) => {}
        }
    }
    eprintln!(
        "{what}: {compared} overlapping pairs compared, worst depth difference {worst_depth:.1e} of size, \
         worst normal difference {worst_normal:.1e}, {other_normals} others (ours no longer), \
         {parry_off} where parry's depth is off the oracle's and ours is not"
    );
    assert!(
        other_normals * 20 <= compared,
        "{what}: {other_normals} of {compared} normals differ"
    );
    compared
}

#[test]
fn parry3d_agrees_with_the_reference_sat() {
    let mut compared = 0;
    for kind in [
        ShapeKind::Boxes,
        ShapeKind::Hulls(32),
        ShapeKind::Hulls(128),
        ShapeKind::Capsules,
        ShapeKind::CapsulesAndHulls(32),
        ShapeKind::Rounded(32),
    ] {
        compared += compare(&kind.name(), &workload(kind, 2000));
    }
    let mixed = SceneSpec {
        half_extent: 1.5,
        ..SceneSpec::mixed(1601, 4000)
    }
    .generate();
    compared += compare("mixed", &mixed);
    assert!(compared > 5000, "{compared} pairs compared");
}
