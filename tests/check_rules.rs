//! The comparison rules behind `demo --check`: what counts as agreement.

use gpusat::generate::SceneSpec;
use gpusat::{Axis, Batch, Owner, SatHit, collide_cpu, compare_hits};

#[test]
fn identical_results_agree_and_real_differences_do_not() {
    let scene = SceneSpec {
        half_extent: 2.0,
        ..SceneSpec::mixed(91, 5000)
    }
    .generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let reference = collide_cpu(&batch);
    assert!(reference.len() > 100);
    let same = compare_hits(&batch, &reference, &reference);
    assert!(same.agrees());
    assert_eq!(same.identical, reference.len());

    // A depth off by a thousandth of the size: a disagreement.
    let mut deeper = reference.clone();
    deeper[10].depth += 1e-3 * 2.0;
    let result = compare_hits(&batch, &reference, &deeper);
    assert_eq!(result.disagreements.len(), 1, "{result:?}");

    // A deep pair missing: a disagreement.
    let deep = reference
        .iter()
        .position(|h| h.depth > 0.1)
        .expect("a deep pair");
    let mut missing = reference.clone();
    missing.remove(deep);
    assert!(!compare_hits(&batch, &reference, &missing).agrees());

    // A different axis with the same depth: a near-tie, not a disagreement.
    let mut tie = reference.clone();
    tie[5].axis = Axis::new(
        if tie[5].axis.owner == Owner::A {
            Owner::B
        } else {
            Owner::A
        },
        0,
    );
    let result = compare_hits(&batch, &reference, &tie);
    assert!(result.agrees());
    assert_eq!(result.near_ties, 1);

    // A barely touching pair reported by one side only: allowed.
    let mut touching = reference.clone();
    let extra = (0..scene.pairs.len() as u32)
        .find(|p| reference.iter().all(|h| h.pair != *p))
        .expect("an unreported pair");
    touching.push(SatHit {
        pair: extra,
        axis: Axis::new(Owner::A, 0),
        depth: 1e-7,
    });
    touching.sort_by_key(|h| h.pair);
    let result = compare_hits(&batch, &reference, &touching);
    assert!(result.agrees(), "{result:?}");
    assert_eq!(result.near_touching, 1);
}
