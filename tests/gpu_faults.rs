//! GPU faults reach the caller as errors, never as panics or wrong answers:
//! a lost device, a batch larger than the device's limits allow, and a
//! workgroup size the device cannot run. (No adapter at all is tested in
//! `cli_gpu.rs`.)

mod common;

use std::sync::Arc;

use gpusat::generate::SceneSpec;
use gpusat::gpu::{AdapterChoice, GpuContext, GpuNarrowphase, GpuOptions};
use gpusat::{Batch, collide_cpu};

/// A context of its own: these tests break it.
fn own_context() -> Option<Arc<GpuContext>> {
    common::gpu_context()?;
    Some(Arc::new(
        GpuContext::new(&AdapterChoice::Auto).expect("a second context"),
    ))
}

#[test]
fn a_lost_device_is_an_error_on_every_later_call() {
    let Some(context) = own_context() else { return };
    let scene = SceneSpec::mixed(81, 20_000).generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let mut gpu = GpuNarrowphase::new(context.clone(), GpuOptions::default()).expect("GPU");
    assert_eq!(
        gpu.collide(&batch).expect("before").len(),
        collide_cpu(&batch).len()
    );
    context.device().destroy();
    for attempt in 0..2 {
        let err = gpu
            .collide(&batch)
            .expect_err("a destroyed device cannot answer");
        let message = err.to_string();
        assert!(
            message.contains("lost")
                || message.contains("invalid")
                || message.contains("destroyed"),
            "attempt {attempt}: {message}"
        );
    }
    // A new narrowphase on the lost device fails as surely, at the latest
    // on its first call.
    if let Ok(mut fresh) = GpuNarrowphase::new(context, GpuOptions::default()) {
        assert!(fresh.collide(&batch).is_err());
    }
}

#[test]
fn a_workgroup_size_the_device_cannot_run_is_an_error() {
    let Some(context) = common::gpu_context() else {
        return;
    };
    for workgroup_size in [0, 257, 1024] {
        let options = GpuOptions {
            workgroup_size,
            ..GpuOptions::default()
        };
        let message = match GpuNarrowphase::new(context.clone(), options) {
            Ok(_) => panic!("workgroup size {workgroup_size} accepted"),
            Err(err) => err.to_string(),
        };
        assert!(message.contains("workgroup size"), "{message}");
    }
}

/// An output larger than the device allows is an error that says how much
/// was asked for, not an abort.
#[test]
fn an_output_too_large_for_the_device_is_an_error() {
    let Some(context) = own_context() else { return };
    let options = GpuOptions {
        initial_capacity: u32::MAX,
        ..GpuOptions::default()
    };
    let message = match GpuNarrowphase::new(context.clone(), options) {
        Ok(mut gpu) => {
            let scene = SceneSpec::mixed(82, 1_000).generate();
            let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
            match gpu.collide(&batch) {
                Ok(hits) => panic!("{} hits from a 64 GiB output", hits.len()),
                Err(err) => err.to_string(),
            }
        }
        Err(err) => err.to_string(),
    };
    eprintln!("{message}");
    assert!(
        message.contains("hit records need 65536 MiB") && message.contains("the device allows"),
        "{message}"
    );
}
