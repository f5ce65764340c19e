//! GPU faults reach the caller as errors, never as panics or wrong answers:
//! a lost device, a batch larger than the device's limits allow, and a
//! workgroup size the device cannot run. (No adapter at all is tested in
//! `cli/tests/it/command/gpu.rs`.)

use std::sync::Arc;

use gpusat::generate::SceneSpec;
use gpusat::gpu::{AdapterChoice, GpuContext, GpuError, GpuNarrowphase, GpuOptions};
use gpusat::wgpu;
use gpusat::{Batch, collide_cpu};

/// A context of its own: these tests break it.
fn own_context() -> Option<Arc<GpuContext>> {
    crate::common::gpu_context()?;
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
    let Some(context) = crate::common::gpu_context() else {
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

/// On a device with small buffers, a batch whose output cannot fit one
/// recording is an error for `record` that says how many bytes were needed
/// and allowed; `collide` runs the same batch in several submissions and
/// gets the CPU's hits.
#[test]
fn a_batch_too_large_for_one_recording_is_an_error_and_collide_splits_it() {
    let limits = wgpu::Limits {
        max_buffer_size: 1 << 20,
        max_storage_buffer_binding_size: 1 << 20,
        ..wgpu::Limits::default()
    };
    let Some(device) = crate::common::caller_device(limits, wgpu::Features::empty()) else {
        return;
    };
    let context = Arc::new(
        GpuContext::from_device(device.device.clone(), device.queue.clone()).expect("context"),
    );
    let mut gpu = GpuNarrowphase::new(context, GpuOptions::default()).expect("GPU");
    let scene = SceneSpec::mixed(82, 200_000).generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    assert!(
        gpu.max_recorded_pairs() < scene.pairs.len(),
        "{} pairs fit one recording",
        gpu.max_recorded_pairs()
    );
    let mut encoder = device
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let err = gpu
        .record(&batch, &mut encoder)
        .expect_err("200,000 pairs' outputs do not fit 1 MiB");
    let message = err.to_string();
    eprintln!("{message}");
    match &err {
        GpuError::OverLimit {
            needed,
            allowed,
            limit,
            ..
        } => {
            assert_eq!(*allowed, 1 << 20, "{message}");
            assert!(*needed > *allowed, "{message}");
            assert_eq!(*limit, "max_buffer_size", "{message}");
        }
        other => panic!("not an OverLimit error: {other:?}"),
    }
    assert!(
        message.contains("MiB") && message.contains("the device allows"),
        "{message}"
    );
    let hits = gpu.collide(&batch).expect("collide runs it in rounds");
    assert!(
        gpu.stats().submissions >= 2,
        "{} submissions",
        gpu.stats().submissions
    );
    let bits = |hits: &[gpusat::SatHit]| {
        hits.iter()
            .map(|h| (h.pair, h.axis.pack(), h.depth.to_bits()))
            .collect::<Vec<_>>()
    };
    let reference = collide_cpu(&batch);
    assert_eq!(hits.len(), reference.len());
    if context_is_lavapipe(&gpu) {
        assert!(
            bits(&hits) == bits(&reference),
            "rounds differ from the CPU"
        );
    }
}

fn context_is_lavapipe(gpu: &GpuNarrowphase) -> bool {
    gpu.context().adapter().name.contains("llvmpipe")
}
