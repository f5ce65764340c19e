//! parry2d as a peer: on the same pairs, its `query::contact` and our SAT
//! agree on which pairs overlap, how deep, and along which normal.

use gpusat::{Batch, collide_cpu};
use gpusat_cli::workload::{Density, Peer, ShapeKind, workload};

#[test]
fn parry2d_agrees_with_the_reference_sat() {
    for kind in [ShapeKind::Polygons(8), ShapeKind::Circles, ShapeKind::Mixed] {
        let scene = workload(kind, Density::Dense, 20_000);
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
        let hits = batch.hits(&collide_cpu(&batch));
        let peer = Peer::new(&scene.shapes, &scene.bodies);
        let mut reported = vec![None; scene.pairs.len()];
        for hit in &hits {
            reported[hit.pair as usize] = Some(*hit);
        }
        let (mut compared, mut worst_depth, mut worst_normal) = (0, 0.0f32, 0.0f32);
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
                    worst_depth = worst_depth.max((ours.depth - depth).abs() / size);
                    assert!(
                        (ours.depth - depth).abs() <= 1e-3 * size,
                        "{kind:?} pair {index}: depth {} vs parry {depth}",
                        ours.depth
                    );
                    // Normals may differ only where two axes give the same depth.
                    if ours.depth > 1e-3 * size {
                        worst_normal = worst_normal.max((ours.normal - normal).length());
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
            "{kind:?}: {compared} overlapping pairs compared, worst depth difference {worst_depth:.1e} of size, worst normal difference {worst_normal:.1e}"
        );
        assert!(compared > 10_000);
    }
}
