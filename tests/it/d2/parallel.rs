//! The parallel CPU backend returns exactly what the scalar reference does.

use gpusat::generate::SceneSpec;
use gpusat::{
    Batch, PARALLEL_MIN_PAIRS, SatHit, collide_cpu, collide_cpu_parallel, contacts_cpu,
    contacts_cpu_into, contacts_cpu_parallel,
};

fn bits(hits: &[SatHit]) -> Vec<(u32, u32, u32)> {
    hits.iter()
        .map(|h| (h.pair, h.axis.pack(), h.depth.to_bits()))
        .collect()
}

#[test]
fn parallel_batch_equals_scalar_batch_bit_for_bit() {
    for (seed, margin) in [(21, 0.0), (22, 0.3)] {
        let scene = SceneSpec::mixed(seed, 300_000).generate();
        let batch =
            Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("valid batch");
        let scalar = collide_cpu(&batch);
        let parallel = collide_cpu_parallel(&batch);
        assert!(
            scalar.len() > 1000,
            "seed {seed}: only {} hits",
            scalar.len()
        );
        assert_eq!(
            scalar.len(),
            parallel.len(),
            "seed {seed}: hit counts differ"
        );
        assert!(bits(&scalar) == bits(&parallel), "seed {seed}: hits differ");
        assert!(
            scalar.windows(2).all(|w| w[0].pair < w[1].pair),
            "hits in pair order"
        );
    }
}

#[test]
fn empty_and_tiny_batches() {
    let scene = SceneSpec::mixed(23, 3).generate();
    for count in [0, 1, 3] {
        let batch =
            Batch::new(&scene.shapes, &scene.bodies, &scene.pairs[..count], 0.0).expect("valid");
        assert_eq!(
            bits(&collide_cpu(&batch)),
            bits(&collide_cpu_parallel(&batch))
        );
    }
}

/// Around the size where the parallel variants start splitting, and at
/// sizes that leave a short last chunk, both variants match the scalar ones.
#[test]
fn batches_around_the_parallel_threshold() {
    let largest = PARALLEL_MIN_PAIRS + 4095;
    let scene = SceneSpec::mixed(24, largest).generate();
    for count in [
        PARALLEL_MIN_PAIRS - 1,
        PARALLEL_MIN_PAIRS,
        PARALLEL_MIN_PAIRS + 1,
        largest,
    ] {
        let batch =
            Batch::new(&scene.shapes, &scene.bodies, &scene.pairs[..count], 0.0).expect("valid");
        let (scalar, parallel) = (collide_cpu(&batch), collide_cpu_parallel(&batch));
        assert!(!scalar.is_empty(), "{count} pairs: no hits");
        assert!(
            bits(&scalar) == bits(&parallel),
            "{count} pairs: hits differ"
        );
        let (scalar, parallel) = (contacts_cpu(&batch), contacts_cpu_parallel(&batch));
        assert_eq!(
            scalar.len(),
            parallel.len(),
            "{count} pairs: manifold counts differ"
        );
        assert!(scalar == parallel, "{count} pairs: manifolds differ");
        // Into a reused vector holding a previous frame's output.
        let mut reused = contacts_cpu(&batch);
        reused.truncate(reused.len() / 3);
        contacts_cpu_into(&batch, &mut reused);
        assert!(reused == scalar, "{count} pairs: contacts_cpu_into differs");
    }
}
