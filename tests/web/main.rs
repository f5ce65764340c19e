//! The library in a browser: built for `wasm32-unknown-unknown` and run in
//! headless Chromium by `wasm-bindgen-test-runner` (`.ci/run`, phase "the
//! browser"; `cargo test --target wasm32-unknown-unknown --no-default-features
//! --test web`). There the lanes are the portable ones (no AVX), there is
//! one thread, and the clock is the page's `performance.now()`:
//!
//! - 2D: the batch narrowphase (its portable lanes) gives the scalar
//!   reference's hits (the WGSL kernel's twin) bit for bit on seeded pairs
//!   of every kind of shape, and the fused contacts equal `Batch::hits` and
//!   `manifolds` in turn;
//! - 3D: every hull pair's face and edge queries through the lanes give the
//!   scalar queries' results bit for bit, as natively (`tests/it/d3/lanes.rs`);
//! - the 2D and 3D demo worlds step, their stage times read from the
//!   browser's clock.
//!
//! On any other target this binary is empty.

#![cfg(all(target_arch = "wasm32", target_os = "unknown"))]

use gpusat::BackendKind;
use gpusat::glam::Vec2;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn the_2d_batch_equals_the_scalar_reference_bit_for_bit() {
    use gpusat::d2::{Batch, collide_cpu, collide_scalar, contacts_cpu, manifolds};
    use gpusat::generate::d2::SceneSpec;
    for (seed, half_extent, margin) in [(7001, 4.0, 0.0), (7002, 2.0, 0.05), (7003, 4.0, 0.2)] {
        let scene = SceneSpec {
            half_extent,
            capsule_fraction: 0.15,
            rounded_fraction: 0.15,
            offset: Vec2::new(0.0, 1.0e4 * (seed as f32 - 7002.0)),
            ..SceneSpec::mixed(seed, 20_000)
        }
        .generate();
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
        let hits = collide_cpu(&batch);
        let scalar = collide_scalar(&batch);
        assert!(hits.len() > 1_000, "seed {seed}: {} hits", hits.len());
        assert!(
            hits == scalar,
            "seed {seed}: the batch's {} hits differ from the scalar reference's {}",
            hits.len(),
            scalar.len()
        );
        let separate = manifolds(&batch, &batch.hits(&hits));
        assert!(
            contacts_cpu(&batch) == separate,
            "seed {seed}: fused contacts differ from SAT + manifolds"
        );
    }
}

#[wasm_bindgen_test]
fn the_3d_queries_through_the_lanes_equal_the_scalar_ones_bit_for_bit() {
    use gpusat::d3::math::inv_mul_transforms;
    use gpusat::d3::sat::{
        EDGE_TOLERANCE, TIE_TOLERANCE, edge_floor, find_max_edge_separation,
        find_max_edge_separation_lanes, find_max_face_separation, find_max_face_separation_lanes,
    };
    use gpusat::d3::{Batch, EdgeStats, Shape};
    use gpusat::generate::d3::SceneSpec;
    let mut compared = 0;
    for (seed, vertices, margin) in [(7011, (4, 12), 0.0), (7012, (8, 40), 0.1)] {
        let scene = SceneSpec {
            shapes: 40,
            bodies: 150,
            vertices,
            sphere_fraction: 0.0,
            ..SceneSpec::mixed(seed, 600)
        }
        .generate();
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
        for pair in &scene.pairs {
            let (Shape::Hull(a), Shape::Hull(b)) = (batch.shape_of(pair.a), batch.shape_of(pair.b))
            else {
                continue;
            };
            let (xf_a, xf_b) = (
                batch.transforms()[pair.a as usize],
                batch.transforms()[pair.b as usize],
            );
            let (xf_ab, xf_ba) = (
                inv_mul_transforms(xf_a, xf_b),
                inv_mul_transforms(xf_b, xf_a),
            );
            let tolerance = TIE_TOLERANCE * (a.size() + b.size());
            let edge_tolerance = EDGE_TOLERANCE * (a.size() + b.size());
            for limit in [margin, f32::MAX] {
                let face_a = find_max_face_separation(a, b, xf_ba, tolerance, limit);
                let lanes_a = find_max_face_separation_lanes(a, b, xf_ba, tolerance, limit);
                let face_b = find_max_face_separation(b, a, xf_ab, tolerance, limit);
                let lanes_b = find_max_face_separation_lanes(b, a, xf_ab, tolerance, limit);
                assert_eq!(
                    [face_a, face_b].map(|f| (f.index, f.value.to_bits())),
                    [lanes_a, lanes_b].map(|f| (f.index, f.value.to_bits())),
                    "seed {seed}, pair {pair:?}: faces, scalar against lanes"
                );
                let floor = edge_floor(face_a, face_b, tolerance, edge_tolerance);
                let scalar = find_max_edge_separation(
                    a,
                    b,
                    xf_ab,
                    tolerance,
                    limit,
                    floor,
                    &mut EdgeStats::default(),
                );
                let lanes = find_max_edge_separation_lanes(
                    a,
                    b,
                    xf_ab,
                    tolerance,
                    limit,
                    floor,
                    &mut EdgeStats::default(),
                );
                assert_eq!(
                    (scalar.a, scalar.b, scalar.value.to_bits()),
                    (lanes.a, lanes.b, lanes.value.to_bits()),
                    "seed {seed}, pair {pair:?}: edges, scalar {scalar:?} against lanes {lanes:?}"
                );
            }
            compared += 1;
        }
    }
    assert!(compared > 500, "{compared} hull pairs compared");
}

#[wasm_bindgen_test]
fn the_2d_demo_world_steps_with_the_browsers_clock() {
    use gpusat::d2::{Narrowphase, World, WorldOptions};
    use gpusat::generate::d2::{DEMO_DT, DemoScene};
    let scene = DemoScene::new(300, 7021).expect("demo scene");
    let narrowphase = Narrowphase::new(BackendKind::Cpu).expect("CPU backend");
    let mut world = World::new(
        scene.shapes,
        scene.bodies,
        narrowphase,
        WorldOptions::default(),
    )
    .expect("world");
    let mut reported = 0;
    for _ in 0..60 {
        let stats = world.step(DEMO_DT).expect("step");
        reported += stats.hits;
        assert!(
            stats.times.total >= stats.times.broadphase,
            "stage times: {:?}",
            stats.times
        );
    }
    assert!(reported > 0, "no pair reported in 60 frames of a pile");
    assert!(
        world.frame_stats().times.total.as_nanos() > 0,
        "the clock did not advance"
    );
}

#[wasm_bindgen_test]
fn the_3d_demo_world_steps_with_the_browsers_clock() {
    use gpusat::d3::{Narrowphase, World, WorldOptions};
    use gpusat::generate::d3::DemoScene;
    let scene = DemoScene::new(120, 7031).expect("demo scene");
    let narrowphase = Narrowphase::new(BackendKind::Cpu).expect("CPU backend");
    let mut world = World::new(
        scene.shapes,
        scene.bodies,
        narrowphase,
        WorldOptions::default(),
    )
    .expect("world");
    let mut reported = 0;
    for _ in 0..60 {
        reported += world.step(1.0 / 60.0).expect("step").hits;
    }
    assert!(reported > 0, "no pair reported in 60 frames of a pile");
    assert!(
        world.frame_stats().times.total.as_nanos() > 0,
        "the clock did not advance"
    );
}

/// The page's WebGPU device, opened as a web application opens one (wgpu's
/// asynchronous calls), with the limits its adapter offers, wrapped for the
/// narrowphase; and the errors WebGPU reports for it. Chromium serves
/// WebGPU on its software adapter (SwiftShader) only with
/// `--enable-unsafe-webgpu` (webdriver.json): without it there is no
/// adapter, and the GPU tests fail here, by design.
#[cfg(feature = "gpu")]
async fn webgpu() -> (
    std::sync::Arc<gpusat::gpu::GpuContext>,
    std::sync::Arc<std::sync::Mutex<Vec<String>>>,
) {
    use gpusat::wgpu;
    use std::sync::{Arc, Mutex};
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
    descriptor.backends = wgpu::Backends::BROWSER_WEBGPU;
    let instance = wgpu::Instance::new(descriptor);
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .expect("no WebGPU adapter in this browser (Chromium needs --enable-unsafe-webgpu)");
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("gpusat web tests"),
            required_limits: adapter.limits(),
            ..wgpu::DeviceDescriptor::default()
        })
        .await
        .expect("a WebGPU device");
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = errors.clone();
    device.set_device_lost_callback(move |reason, message| {
        if let Ok(mut list) = sink.lock() {
            list.push(format!("device lost ({reason:?}): {message}"));
        }
    });
    let sink = errors.clone();
    device.on_uncaptured_error(Arc::new(move |err: wgpu::Error| {
        if let Ok(mut list) = sink.lock() {
            list.push(err.to_string());
        }
    }));
    let context = gpusat::gpu::GpuContext::from_device(device, queue).expect("a usable device");
    // The narrowphase takes an Arc, on the web as natively (one thread).
    #[allow(clippy::arc_with_non_send_sync)]
    let context = Arc::new(context);
    (context, errors)
}

/// Gives the page's event loop a turn (a zero timeout): where WebGPU
/// resolves the staging buffer's mapping.
#[cfg(feature = "gpu")]
async fn next_turn() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .expect("a window")
            .set_timeout_with_callback(&resolve)
            .expect("setTimeout");
    });
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .expect("a timeout");
}

/// `poll` until the results come, giving the event loop a turn in between.
#[cfg(feature = "gpu")]
async fn collect<T>(
    mut poll: impl FnMut() -> Result<Option<T>, gpusat::gpu::GpuError>,
) -> Result<T, gpusat::gpu::GpuError> {
    for _ in 0..100_000 {
        if let Some(results) = poll()? {
            return Ok(results);
        }
        next_turn().await;
    }
    panic!("no results after 100,000 turns of the event loop");
}

/// Prints to the test's output (the browser's console, which the runner
/// copies).
#[cfg(feature = "gpu")]
/// A GPU batch's hits against the CPU's on the page's WebGPU (`dim`, the
/// scene's seed, the fewest hits the scene must give): noted, no error
/// reported by WebGPU, the CPU's within the tolerances, and on a software
/// adapter (Chromium's SwiftShader computes IEEE floats as the CPU does,
/// with no fused operations) the CPU's bits.
#[cfg(feature = "gpu")]
fn assert_webgpu_hits<H: PartialEq>(
    (dim, seed, fewest): (&str, u64, usize),
    (context, errors): (&gpusat::gpu::GpuContext, &std::sync::Mutex<Vec<String>>),
    hits: &[H],
    cpu: &[H],
    agreement: gpusat::Agreement,
) {
    note(&format!(
        "{dim} seed {seed} on {}: {} hits, the CPU's bits: {}",
        context.adapter(),
        hits.len(),
        hits == cpu
    ));
    assert!(cpu.len() > fewest, "seed {seed}: {} hits", cpu.len());
    let reported = errors.lock().expect("errors").clone();
    assert!(
        reported.is_empty(),
        "seed {seed}: WebGPU reported {reported:?}"
    );
    assert!(
        agreement.agrees(),
        "seed {seed}: {:?}",
        &agreement.disagreements[..agreement.disagreements.len().min(5)]
    );
    if context.is_software() {
        assert!(hits == cpu, "seed {seed}: not the CPU's bits");
    }
}

fn note(line: &str) {
    wasm_bindgen_test::console_log!("{line}");
}

#[cfg(feature = "gpu")]
#[wasm_bindgen_test]
async fn the_2d_gpu_narrowphase_on_webgpu_agrees_with_the_cpu() {
    use gpusat::d2::{Batch, collide_cpu, compare_hits};
    use gpusat::generate::d2::SceneSpec;
    use gpusat::gpu::GpuNarrowphase;
    use gpusat::gpu::GpuOptions;
    let (context, errors) = webgpu().await;
    let mut gpu = GpuNarrowphase::new(context.clone(), GpuOptions::default()).expect("2D kernel");
    for (seed, margin) in [(7041, 0.0), (7042, 0.05)] {
        let scene = SceneSpec {
            capsule_fraction: 0.15,
            rounded_fraction: 0.15,
            ..SceneSpec::mixed(seed, 20_000)
        }
        .generate();
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
        let cpu = collide_cpu(&batch);
        let pending = gpu.start(&batch).expect("start");
        let hits = collect(|| gpu.poll(&pending))
            .await
            .expect("the GPU's hits");
        let agreement = compare_hits(&batch, &cpu, &hits);
        assert_webgpu_hits(
            ("2D", seed, 1_000),
            (&context, &errors),
            &hits,
            &cpu,
            agreement,
        );
    }
}

#[cfg(feature = "gpu")]
#[wasm_bindgen_test]
async fn the_3d_gpu_narrowphase_on_webgpu_agrees_with_the_cpu() {
    use gpusat::d3::{Batch, GpuNarrowphase, collide_cpu, compare_hits};
    use gpusat::generate::d3::SceneSpec;
    use gpusat::gpu::GpuOptions;
    let (context, errors) = webgpu().await;
    let mut gpu = GpuNarrowphase::new(context.clone(), GpuOptions::default()).expect("3D kernel");
    for (seed, vertices, margin) in [(7051, (4, 16), 0.0), (7052, (8, 64), 0.05)] {
        let scene = SceneSpec {
            shapes: 64,
            bodies: 400,
            vertices,
            half_extent: 2.0,
            ..SceneSpec::mixed(seed, 4_000)
        }
        .generate();
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
        let cpu = collide_cpu(&batch);
        let pending = gpu.start(&batch).expect("start");
        let hits = collect(|| gpu.poll(&pending)).await.unwrap_or_else(|err| {
            panic!(
                "seed {seed}: the GPU's hits: {err}; WebGPU reported {:?}",
                errors.lock().map(|list| list.clone())
            )
        });
        let agreement = compare_hits(&batch, &cpu, &hits);
        assert_webgpu_hits(
            ("3D", seed, 400),
            (&context, &errors),
            &hits,
            &cpu,
            agreement,
        );
    }
}

#[cfg(feature = "gpu")]
#[wasm_bindgen_test]
async fn calls_that_would_wait_for_the_gpu_are_errors_that_say_what_to_do() {
    use gpusat::d2::{Batch, collide_cpu};
    use gpusat::generate::d2::SceneSpec;
    use gpusat::gpu::{AdapterChoice, GpuContext, GpuError, GpuNarrowphase, GpuOptions};
    let opened = GpuContext::new(&AdapterChoice::Auto);
    assert!(
        matches!(opened, Err(GpuError::Blocking { .. })),
        "GpuContext::new in a page: {opened:?}"
    );
    let message = opened.err().map(|err| err.to_string()).unwrap_or_default();
    assert!(message.contains("GpuContext::from_device"), "{message}");
    // The blocking batch call fails, and leaves the narrowphase usable by
    // the page's way: record, submit, poll.
    let (context, _errors) = webgpu().await;
    let mut gpu = GpuNarrowphase::new(context.clone(), GpuOptions::default()).expect("2D kernel");
    let scene = SceneSpec::mixed(7061, 2_000).generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let waited = gpu.collide(&batch);
    assert!(
        matches!(waited, Err(GpuError::Blocking { .. })),
        "collide in a page: {waited:?}"
    );
    let mut encoder = context
        .device()
        .create_command_encoder(&gpusat::wgpu::CommandEncoderDescriptor::default());
    let pending = gpu
        .record(&batch, &mut encoder)
        .expect("record after the error");
    context.queue().submit([encoder.finish()]);
    let hits = collect(|| gpu.poll(&pending))
        .await
        .expect("the GPU's hits");
    assert_eq!(hits.len(), collide_cpu(&batch).len());
}

#[cfg(feature = "gpu")]
#[wasm_bindgen_test]
async fn a_world_stepped_on_webgpu_follows_the_cpu_world_bit_for_bit() {
    use gpusat::d2::{Narrowphase, World, WorldOptions};
    use gpusat::generate::d2::{DEMO_DT, DemoScene, DemoShapes};
    use gpusat::gpu::{GpuNarrowphase, GpuOptions};
    let (context, errors) = webgpu().await;
    let scene = DemoScene::with_shapes(300, 7071, DemoShapes::ALL).expect("demo scene");
    let world = |narrowphase| {
        World::new(
            scene.shapes.clone(),
            scene.bodies.clone(),
            narrowphase,
            WorldOptions::default(),
        )
        .expect("world")
    };
    let gpu = GpuNarrowphase::new(context.clone(), GpuOptions::default()).expect("2D kernel");
    let mut on_gpu = world(Narrowphase::with_gpu(gpu));
    let mut on_cpu = world(Narrowphase::new(BackendKind::Cpu).expect("CPU backend"));
    on_gpu.set_check(true);
    for frame in 0..90 {
        // The page's way: start the frame, then give the event loop turns
        // until the GPU's results are in.
        let mut done = on_gpu.begin_step(DEMO_DT).expect("begin_step").is_some();
        while !done {
            next_turn().await;
            done = on_gpu.poll_step().expect("poll_step").is_some();
        }
        on_cpu.step(DEMO_DT).expect("step");
        let check = on_gpu.check().expect("the check");
        assert!(
            check.agrees(),
            "frame {frame}: {:?}",
            check.disagreements.first()
        );
        if context.is_software() {
            assert!(
                on_gpu.bodies() == on_cpu.bodies(),
                "frame {frame}: the WebGPU world left the CPU world's trajectory"
            );
        }
    }
    let reported = errors.lock().expect("errors").clone();
    assert!(reported.is_empty(), "WebGPU reported {reported:?}");
}

#[cfg(feature = "gpu")]
#[wasm_bindgen_test]
async fn a_world_on_the_gpu_resident_frame_on_webgpu_follows_the_cpu_world_bit_for_bit() {
    use gpusat::d2::{Narrowphase, World, WorldOptions};
    use gpusat::generate::d2::{DEMO_DT, DemoScene, DemoShapes};
    let (context, errors) = webgpu().await;
    let scene = DemoScene::with_shapes(300, 7081, DemoShapes::ALL).expect("demo scene");
    let world = || {
        World::new(
            scene.shapes.clone(),
            scene.bodies.clone(),
            Narrowphase::new(BackendKind::Cpu).expect("CPU backend"),
            WorldOptions::default(),
        )
        .expect("world")
    };
    // The broadphase, the narrowphase and the manifolds on the device, one
    // copy back a frame; checked against the CPU's pairs and hits.
    let mut resident = world();
    resident
        .use_gpu_frame(context.clone())
        .expect("the resident frame");
    resident.set_check(true);
    let mut on_cpu = world();
    for frame in 0..90 {
        let mut done = resident.begin_step(DEMO_DT).expect("begin_step").is_some();
        while !done {
            next_turn().await;
            done = resident.poll_step().expect("poll_step").is_some();
        }
        on_cpu.step(DEMO_DT).expect("step");
        let check = resident.check().expect("the check");
        assert!(
            check.agrees(),
            "frame {frame}: {} candidate pairs and {} hits on the GPU, {} and {} on the CPU: {:?}; \
             WebGPU reported {:?}",
            resident.frame_stats().pairs,
            resident.frame_stats().hits,
            on_cpu.frame_stats().pairs,
            on_cpu.frame_stats().hits,
            check.disagreements.first(),
            errors.lock().map(|list| list.clone())
        );
        if context.is_software() {
            assert!(
                resident.bodies() == on_cpu.bodies(),
                "frame {frame}: the resident frame's world left the CPU world's trajectory"
            );
        }
    }
    assert!(
        resident.frame_stats().pairs > 100,
        "{} candidate pairs",
        resident.frame_stats().pairs
    );
    let reported = errors.lock().expect("errors").clone();
    assert!(reported.is_empty(), "WebGPU reported {reported:?}");
}

#[cfg(feature = "gpu")]
#[wasm_bindgen_test]
async fn a_3d_world_stepped_on_webgpu_follows_the_cpu_world_bit_for_bit() {
    use gpusat::d3::{GpuNarrowphase, Narrowphase, World, WorldOptions};
    use gpusat::generate::d3::DemoScene;
    use gpusat::gpu::GpuOptions;
    let (context, errors) = webgpu().await;
    let scene = DemoScene::new(120, 7091).expect("demo scene");
    let world = |narrowphase| {
        World::new(
            scene.shapes.clone(),
            scene.bodies.clone(),
            narrowphase,
            WorldOptions::default(),
        )
        .expect("world")
    };
    let gpu = GpuNarrowphase::new(context.clone(), GpuOptions::default()).expect("3D kernel");
    let mut on_gpu = world(Narrowphase::with_gpu(gpu));
    let mut on_cpu = world(Narrowphase::new(BackendKind::Cpu).expect("CPU backend"));
    on_gpu.set_check(true);
    let mut reported = 0;
    for frame in 0..60 {
        let mut done = on_gpu.begin_step(1.0 / 60.0).expect("begin_step").is_some();
        while !done {
            next_turn().await;
            done = on_gpu.poll_step().expect("poll_step").is_some();
        }
        on_cpu.step(1.0 / 60.0).expect("step");
        reported += on_gpu.frame_stats().hits;
        let check = on_gpu.check().expect("the check");
        assert!(
            check.agrees(),
            "frame {frame}: {:?}",
            check.disagreements.first()
        );
        if context.is_software() {
            assert!(
                on_gpu.bodies() == on_cpu.bodies(),
                "frame {frame}: the WebGPU world left the CPU world's trajectory"
            );
        }
    }
    assert!(reported > 0, "no pair reported in 60 frames of a pile");
    let errors = errors.lock().expect("errors").clone();
    assert!(errors.is_empty(), "WebGPU reported {errors:?}");
}
