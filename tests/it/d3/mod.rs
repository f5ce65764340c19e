//! 3D: hulls, the SAT (the exact oracle, properties, lanes, pruning), manifolds, separation, the world and the demo world.

mod demo;
mod lanes;
mod manifold;
mod oracle;
mod properties;
mod pruning;
mod recycle;
mod rounded;
mod separation;
mod shape;
mod world;

use gpusat::d3::{Batch, EdgeSearch, SatHit, collide_cpu, contacts_cpu, manifolds};
use gpusat::generate::d3::GeneratedScene;

/// The batch of `scene` under `search` against the pairwise loops (the
/// GPU kernel's): the same hits, axes and depths, bit for bit, in pair
/// order. Returns how many hits.
fn assert_search_is_the_pairwise_loops(
    what: &str,
    scene: &GeneratedScene,
    margin: f32,
    search: EdgeSearch,
) -> usize {
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
    let ours = collide_cpu(&batch.clone().with_edge_search(search));
    let loops = collide_cpu(&batch.with_edge_search(EdgeSearch::Pairwise));
    assert_eq!(ours.len(), loops.len(), "{what}: hits");
    for (o, l) in ours.iter().zip(&loops) {
        assert_eq!(
            (o.pair, o.axis, o.depth.to_bits()),
            (l.pair, l.axis, l.depth.to_bits()),
            "{what}: {search:?} {o:?}, pairwise loops {l:?}"
        );
    }
    ours.len()
}

/// The fused `contacts_cpu` of `batch` against the manifolds of its SAT's
/// `hits` built one after the other, bit for bit and in pair order, and
/// `contacts_cpu_parallel` against one thread.
fn assert_fused_contacts_are_the_manifolds(label: &str, batch: &Batch, hits: &[SatHit]) {
    let bits = |m: &gpusat::d3::Manifold| format!("{m:?}");
    let want: Vec<_> = manifolds(batch, &batch.hits(hits))
        .iter()
        .map(bits)
        .collect();
    let fused: Vec<_> = contacts_cpu(batch).iter().map(bits).collect();
    assert_eq!(fused.len(), want.len(), "{label}");
    for (got, want) in fused.iter().zip(&want) {
        assert_eq!(got, want, "{label}");
    }
    #[cfg(feature = "parallel")]
    {
        let parallel: Vec<_> = gpusat::d3::contacts_cpu_parallel(batch)
            .iter()
            .map(bits)
            .collect();
        assert!(parallel == fused, "{label}: cpu-parallel differs");
    }
}
