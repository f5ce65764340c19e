//! The same input gives the same bits, run after run: the scalar and the
//! parallel CPU paths, contacts, and the GPU on one adapter (with fresh
//! narrowphases and different window splits).

use gpusat::generate::SceneSpec;
use gpusat::gpu::{GpuNarrowphase, GpuOptions};
use gpusat::{
    Batch, Manifold, SatHit, collide_cpu, collide_cpu_parallel, contacts_cpu, contacts_cpu_parallel,
};

fn bits(hits: &[SatHit]) -> Vec<(u32, u32, u32)> {
    hits.iter()
        .map(|hit| (hit.pair, hit.axis.pack(), hit.depth.to_bits()))
        .collect()
}

fn contact_bits(manifolds: &[Manifold]) -> Vec<(u32, [u32; 2], Vec<[u32; 4]>)> {
    manifolds
        .iter()
        .map(|m| {
            (
                m.pair,
                [m.normal.x.to_bits(), m.normal.y.to_bits()],
                m.points()
                    .iter()
                    .map(|p| {
                        [
                            p.point.x.to_bits(),
                            p.point.y.to_bits(),
                            p.depth.to_bits(),
                            p.id,
                        ]
                    })
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn cpu_paths_repeat_bit_for_bit() {
    let scene = SceneSpec::mixed(61, 200_000).generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.1).expect("batch");
    let first = bits(&collide_cpu(&batch));
    assert!(first.len() > 10_000, "{} hits", first.len());
    for run in 0..3 {
        assert!(
            bits(&collide_cpu(&batch)) == first,
            "scalar run {run} differs"
        );
        assert!(
            bits(&collide_cpu_parallel(&batch)) == first,
            "parallel run {run} differs"
        );
    }
    let contacts = contact_bits(&contacts_cpu(&batch));
    for run in 0..3 {
        assert!(
            contact_bits(&contacts_cpu(&batch)) == contacts,
            "contacts run {run} differ"
        );
        assert!(
            contact_bits(&contacts_cpu_parallel(&batch)) == contacts,
            "parallel contacts run {run} differ"
        );
    }
}

#[test]
fn gpu_repeats_bit_for_bit_on_one_adapter() {
    let Some(context) = crate::common::gpu_context() else {
        return;
    };
    let scene = SceneSpec::mixed(62, 200_000).generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.1).expect("batch");
    let mut gpu = GpuNarrowphase::new(context.clone(), GpuOptions::default()).expect("GPU");
    let first = bits(&gpu.collide(&batch).expect("GPU"));
    assert!(first.len() > 10_000, "{} hits", first.len());
    for run in 0..3 {
        assert!(
            bits(&gpu.collide(&batch).expect("GPU")) == first,
            "run {run} differs"
        );
    }
    // A fresh narrowphase, small windows and a tiny first output (so that
    // windows overflow and re-run): the same bits.
    let options = GpuOptions {
        max_window_pairs: Some(7_919),
        initial_capacity: Some(64),
        workgroup_size: 64,
        ..GpuOptions::default()
    };
    let mut other = GpuNarrowphase::new(context, options).expect("GPU");
    assert!(
        bits(&other.collide(&batch).expect("GPU")) == first,
        "another narrowphase with other windows differs"
    );
}
