//! The narrowphase on a device the caller opened (`GpuContext::from_device`):
//! with wgpu's default limits (128 MiB bindings, no timestamp queries), its
//! work recorded into the caller's command encoder beside the caller's own,
//! one submission by the caller, hits collected later by polling; and what
//! goes wrong: a second batch before the first is collected, an encoder never
//! submitted, an output that overflows, a device that cannot run compute
//! shaders.

use std::sync::Arc;

use gpusat::generate::SceneSpec;
use gpusat::gpu::{GpuContext, GpuError, GpuNarrowphase, GpuOptions, PendingHits};
use gpusat::wgpu;
use gpusat::{Batch, SatHit, collide_cpu};

fn bits(hits: &[SatHit]) -> Vec<(u32, u32, u32)> {
    hits.iter()
        .map(|h| (h.pair, h.axis.pack(), h.depth.to_bits()))
        .collect()
}

/// The GPU's hits equal the CPU's: bit for bit on lavapipe, within the
/// tolerances elsewhere.
fn assert_matches_cpu(what: &str, gpu: &GpuNarrowphase, batch: &Batch, hits: &[SatHit]) {
    let reference = collide_cpu(batch);
    if gpu.context().adapter().name.contains("llvmpipe") {
        assert!(
            bits(hits) == bits(&reference),
            "{what}: {} GPU hits differ from the CPU's {}",
            hits.len(),
            reference.len()
        );
    } else {
        let agreement = gpusat::compare_hits(batch, &reference, hits);
        assert!(agreement.agrees(), "{what}: {:?}", agreement.disagreements);
    }
}

fn scene(seed: u64, pairs: usize) -> gpusat::generate::GeneratedScene {
    SceneSpec {
        half_extent: 2.0,
        ..SceneSpec::mixed(seed, pairs)
    }
    .generate()
}

/// Polls as a frame loop would: between polls the caller does its own
/// waiting (here, on the whole queue), never gpusat.
fn poll_until_done(
    gpu: &mut GpuNarrowphase,
    pending: &PendingHits,
    device: &wgpu::Device,
) -> (Vec<SatHit>, usize) {
    for polls in 1..100 {
        if let Some(hits) = gpu.poll(pending).expect("poll") {
            return (hits, polls);
        }
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("the caller's wait");
    }
    panic!("no hits after 100 polls");
}

#[test]
fn a_device_opened_with_default_limits_runs_the_narrowphase() {
    let Some(caller) =
        crate::common::caller_device(wgpu::Limits::default(), wgpu::Features::empty())
    else {
        return;
    };
    let context = GpuContext::from_device(caller.device.clone(), caller.queue.clone())
        .expect("default limits are enough");
    assert!(
        !context.has_timestamps(),
        "no timestamp queries were asked for"
    );
    assert!(!context.owns_device());
    let limits = context.limits();
    assert_eq!(limits.max_storage_buffer_binding_size, 128 << 20);
    let mut gpu = GpuNarrowphase::new(Arc::new(context), GpuOptions::default()).expect("GPU");
    // Windows sized from the device's own binding limit (16 bytes of output
    // per pair), less a workgroup per kind of pair (sixteen: the 3D
    // kernel's kinds, the most a kernel has).
    let expected = (128usize << 20) / 16 - 16 * 256;
    assert_eq!(gpu.max_window_pairs(), expected);

    let scene = scene(401, 200_000);
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let hits = gpu.collide(&batch).expect("collide");
    assert_matches_cpu("default limits", &gpu, &batch, &hits);
    assert_eq!(gpu.stats().kernel, None, "no timestamps, no kernel time");
    assert_eq!(gpu.stats().submissions, 1);
}

#[test]
fn recording_into_the_callers_encoder_collects_later_without_waiting() {
    let Some(caller) =
        crate::common::caller_device(wgpu::Limits::default(), wgpu::Features::empty())
    else {
        return;
    };
    let (device, queue) = (&caller.device, &caller.queue);
    let context = GpuContext::from_device(device.clone(), queue.clone()).expect("context");
    let mut gpu = GpuNarrowphase::new(Arc::new(context), GpuOptions::default()).expect("GPU");
    // The caller's own work in the same encoder: a buffer it clears and
    // copies, as a renderer or simulation would.
    let own = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("the caller's buffer"),
        size: 1 << 16,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let own_copy = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("the caller's copy"),
        size: 1 << 16,
        usage: wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });

    for (frame, seed) in [402u64, 403, 404].into_iter().enumerate() {
        let scene = scene(seed, 100_000);
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.1).expect("batch");
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("the caller's frame"),
        });
        encoder.clear_buffer(&own, 0, None);
        let pending = gpu.record(&batch, &mut encoder).expect("record");
        encoder.copy_buffer_to_buffer(&own, 0, &own_copy, 0, 1 << 16);
        // Nothing submitted yet: nothing to collect, and no waiting.
        assert_eq!(gpu.poll(&pending).expect("poll before submit"), None);
        queue.submit([encoder.finish()]);
        let (hits, polls) = poll_until_done(&mut gpu, &pending, device);
        assert_matches_cpu(&format!("frame {frame}"), &gpu, &batch, &hits);
        assert_eq!(
            gpu.stats().submissions,
            0,
            "frame {frame}: gpusat submitted work of its own"
        );
        assert!(polls >= 1);
    }
}

#[test]
fn many_windows_recorded_at_once_equal_the_cpu() {
    let Some(caller) =
        crate::common::caller_device(wgpu::Limits::default(), wgpu::Features::TIMESTAMP_QUERY)
    else {
        return;
    };
    let context = Arc::new(
        GpuContext::from_device(caller.device.clone(), caller.queue.clone()).expect("context"),
    );
    assert!(context.has_timestamps());
    let options = GpuOptions {
        max_window_pairs: Some(9_000),
        ..GpuOptions::default()
    };
    let mut gpu = GpuNarrowphase::new(context, options).expect("GPU");
    let scene = scene(405, 100_000);
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let mut encoder = caller
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let pending = gpu.record(&batch, &mut encoder).expect("record");
    caller.queue.submit([encoder.finish()]);
    let hits = gpu.wait(pending).expect("wait");
    assert_eq!(gpu.stats().windows, 12, "100,000 pairs in windows of 9,000");
    assert!(
        gpu.stats().kernel.is_some(),
        "timestamps measure the kernel"
    );
    assert_matches_cpu("12 windows", &gpu, &batch, &hits);
}

#[test]
fn an_overflowing_output_is_run_again_through_poll() {
    let Some(caller) =
        crate::common::caller_device(wgpu::Limits::default(), wgpu::Features::empty())
    else {
        return;
    };
    let context = Arc::new(
        GpuContext::from_device(caller.device.clone(), caller.queue.clone()).expect("context"),
    );
    let options = GpuOptions {
        initial_capacity: Some(16),
        max_window_pairs: Some(30_000),
        ..GpuOptions::default()
    };
    let mut gpu = GpuNarrowphase::new(context, options).expect("GPU");
    let scene = scene(406, 80_000);
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let mut encoder = caller
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let pending = gpu.record(&batch, &mut encoder).expect("record");
    caller.queue.submit([encoder.finish()]);
    let (hits, polls) = poll_until_done(&mut gpu, &pending, &caller.device);
    let stats = gpu.stats().clone();
    assert_eq!(
        stats.reruns, 3,
        "each of the 3 windows overflowed 16 records"
    );
    assert_eq!(stats.submissions, 1, "one re-run submission for all three");
    assert!(polls >= 2, "the re-run's hits came on a later poll");
    assert_matches_cpu("after re-runs", &gpu, &batch, &hits);
    // The next batch sizes its outputs from this one: no re-run.
    let mut encoder = caller
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let pending = gpu.record(&batch, &mut encoder).expect("record");
    caller.queue.submit([encoder.finish()]);
    let again = gpu.wait(pending).expect("wait");
    assert_eq!(gpu.stats().reruns, 0);
    assert!(bits(&again) == bits(&hits));
}

#[test]
fn a_second_batch_before_collecting_is_busy_and_discard_frees_it() {
    let Some(caller) =
        crate::common::caller_device(wgpu::Limits::default(), wgpu::Features::empty())
    else {
        return;
    };
    let context = Arc::new(
        GpuContext::from_device(caller.device.clone(), caller.queue.clone()).expect("context"),
    );
    let mut gpu = GpuNarrowphase::new(context, GpuOptions::default()).expect("GPU");
    let scene = scene(407, 10_000);
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let mut encoder = caller
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let first = gpu.record(&batch, &mut encoder).expect("record");
    assert_eq!(
        gpu.record(&batch, &mut encoder).expect_err("busy"),
        GpuError::Busy
    );
    assert!(matches!(gpu.collide(&batch), Err(GpuError::Busy)));
    // The encoder is dropped, never submitted: discard the batch.
    drop(encoder);
    gpu.discard(first).expect("discard");
    let hits = gpu.collide(&batch).expect("free again");
    assert_matches_cpu("after discard", &gpu, &batch, &hits);
}

#[test]
fn an_encoder_never_submitted_is_an_error_not_a_hang() {
    let Some(caller) =
        crate::common::caller_device(wgpu::Limits::default(), wgpu::Features::empty())
    else {
        return;
    };
    let context = Arc::new(
        GpuContext::from_device(caller.device.clone(), caller.queue.clone()).expect("context"),
    );
    let mut gpu = GpuNarrowphase::new(context, GpuOptions::default()).expect("GPU");
    let scene = scene(408, 10_000);
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let mut encoder = caller
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let pending = gpu.record(&batch, &mut encoder).expect("record");
    drop(encoder);
    let err = gpu.wait(pending).expect_err("never submitted");
    assert_eq!(err, GpuError::NotSubmitted, "{err}");
    // And the narrowphase is free for the next batch.
    let hits = gpu.collide(&batch).expect("collide");
    assert_matches_cpu("after the lost encoder", &gpu, &batch, &hits);
}

#[test]
fn pending_results_of_another_narrowphase_are_refused() {
    let Some(caller) =
        crate::common::caller_device(wgpu::Limits::default(), wgpu::Features::empty())
    else {
        return;
    };
    let context = Arc::new(
        GpuContext::from_device(caller.device.clone(), caller.queue.clone()).expect("context"),
    );
    let mut one = GpuNarrowphase::new(context.clone(), GpuOptions::default()).expect("GPU");
    let mut other = GpuNarrowphase::new(context, GpuOptions::default()).expect("GPU");
    let scene = scene(409, 5_000);
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let mut encoder = caller
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    let pending = one.record(&batch, &mut encoder).expect("record");
    caller.queue.submit([encoder.finish()]);
    assert_eq!(other.poll(&pending), Err(GpuError::NotPending));
    let hits = one.wait(pending).expect("wait");
    assert_matches_cpu("the right narrowphase", &one, &batch, &hits);
}

#[test]
fn a_device_that_cannot_run_compute_shaders_is_refused_naming_what_it_lacks() {
    let Some(caller) = crate::common::caller_device(
        wgpu::Limits::downlevel_webgl2_defaults(),
        wgpu::Features::empty(),
    ) else {
        return;
    };
    let err = GpuContext::from_device(caller.device.clone(), caller.queue.clone())
        .expect_err("WebGL2-class limits have no compute");
    match &err {
        GpuError::MissingCapability { capability, .. } => {
            assert_eq!(*capability, "compute shaders", "{err}");
        }
        other => panic!("not a missing capability: {other:?}"),
    }
    assert!(err.to_string().contains("compute shaders"), "{err}");
}

/// A device with three sampled textures a shader stage runs the 2D kernel
/// (three) and refuses the 3D one (four) naming what it lacks, before any
/// pipeline is made.
#[test]
fn a_device_with_too_few_textures_is_refused_by_the_kernel_that_needs_more() {
    let limits = wgpu::Limits {
        max_sampled_textures_per_shader_stage: 3,
        ..wgpu::Limits::default()
    };
    let Some(caller) = crate::common::caller_device(limits, wgpu::Features::empty()) else {
        return;
    };
    let context = Arc::new(
        GpuContext::from_device(caller.device.clone(), caller.queue.clone())
            .expect("three textures are enough for the context"),
    );
    gpusat::gpu::GpuNarrowphase::new(context.clone(), GpuOptions::default())
        .expect("the 2D kernel binds three textures");
    let err = gpusat::d3::GpuNarrowphase::new(context, GpuOptions::default())
        .expect_err("the 3D kernel binds four");
    match &err {
        GpuError::MissingCapability { capability, detail } => {
            assert_eq!(*capability, "sampled textures", "{err}");
            assert!(detail.contains("4 per compute shader needed"), "{err}");
        }
        other => panic!("not a missing capability: {other:?}"),
    }
}
