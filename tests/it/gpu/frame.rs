//! The GPU-resident frame against the CPU: the broadphase's pairs on the
//! device equal the CPU broadphase's, set and order, on seeded scenes
//! (sparse, dense, far from the origin, with a margin, with static bodies
//! and walls far larger than the grid's cells), whatever the buffers'
//! starting sizes. Runs on any adapter, lavapipe included; with
//! GPUSAT_REQUIRE_GPU=1 a missing adapter fails.

use crate::common::gpu_context;
use glam::Vec2;
use gpusat::generate::SceneSpec;
use gpusat::gpu::{FrameBody, FrameHit, FrameOptions, GpuFrame, GpuNarrowphase, GpuOptions};
use gpusat::{Axis, Batch, Body, PairFilter, SatHit, ShapeSet, collide_cpu, find_pairs, manifolds};

fn scene(seed: u64, bodies: usize, half_extent: f32) -> (ShapeSet, Vec<Body>) {
    let scene = SceneSpec {
        bodies,
        pairs: 0,
        half_extent,
        ..SceneSpec::mixed(seed, 0)
    }
    .generate();
    (scene.shapes, scene.bodies)
}

/// A frame over `bodies`, set.
fn frame_over(
    context: &std::sync::Arc<gpusat::gpu::GpuContext>,
    shapes: &ShapeSet,
    bodies: &[Body],
    options: FrameOptions,
) -> GpuFrame {
    let mut frame = GpuFrame::new(context.clone(), shapes, options).expect("frame");
    let records: Vec<FrameBody> = bodies.iter().map(FrameBody::from_body).collect();
    frame.set_bodies(shapes, &records).expect("bodies");
    frame
}

/// The GPU's pairs and the CPU's for `bodies`.
fn both(
    frame: &mut GpuFrame,
    shapes: &ShapeSet,
    bodies: &[Body],
    options: FrameOptions,
) -> (Vec<gpusat::Pair>, Vec<gpusat::Pair>) {
    let records: Vec<FrameBody> = bodies.iter().map(FrameBody::from_body).collect();
    frame.set_bodies(shapes, &records).expect("bodies set");
    let gpu = frame.find_pairs().expect("GPU broadphase");
    let cpu = find_pairs(
        shapes,
        bodies,
        options.margin,
        PairFilter {
            skip_static_pairs: options.skip_static_pairs,
        },
    );
    (gpu, cpu)
}

fn assert_same(what: &str, gpu: &[gpusat::Pair], cpu: &[gpusat::Pair]) {
    if gpu != cpu {
        let first = gpu
            .iter()
            .zip(cpu)
            .position(|(g, c)| g != c)
            .unwrap_or(gpu.len().min(cpu.len()));
        panic!(
            "{what}: GPU {} pairs, CPU {}; first difference at {first}: GPU {:?}, CPU {:?}",
            gpu.len(),
            cpu.len(),
            gpu.get(first),
            cpu.get(first)
        );
    }
}

#[test]
fn gpu_broadphase_finds_the_cpu_broadphases_pairs_in_its_order() {
    let Some(context) = gpu_context() else {
        return;
    };
    for (seed, count, half_extent, margin, statics) in [
        (901, 3000, 40.0, 0.0, 0),
        (902, 2000, 10.0, 0.0, 5),
        (903, 3000, 60.0, 0.5, 3),
        (904, 400, 2.0, 0.1, 2),
        (905, 1, 1.0, 0.0, 0),
        (906, 2, 0.1, 0.0, 2),
        // More bodies than the teams' workgroups take in one round.
        (907, 20_000, 110.0, 0.0, 7),
    ] {
        let (shapes, mut bodies) = scene(seed, count, half_extent);
        for (index, body) in bodies.iter_mut().enumerate() {
            if statics > 0 && index % statics == 0 {
                body.inv_mass = 0.0;
            }
        }
        for team_walk_below in WALKS {
            let options = FrameOptions {
                margin,
                team_walk_below,
                ..FrameOptions::default()
            };
            let what = format!("seed {seed}, teams below {team_walk_below:?}");
            let mut frame = GpuFrame::new(context.clone(), &shapes, options).expect("frame");
            let (gpu, cpu) = both(&mut frame, &shapes, &bodies, options);
            assert_same(&what, &gpu, &cpu);
            if count > 100 {
                assert!(cpu.len() > count / 4, "{what}: only {} pairs", cpu.len());
            }
            // The same frame again.
            let again = frame.find_pairs().expect("second run");
            assert_same(&format!("{what}, again"), &again, &cpu);
        }
    }
}

/// Both walks of the bodies' cells, whatever the adapter's default: one
/// invocation a body (`team_walk_below` 0), a team of 32 a body (every
/// frame below it).
const WALKS: [Option<u32>; 2] = [Some(0), Some(u32::MAX)];

#[test]
fn cell_sizes_far_from_the_bodies_sizes_give_the_same_pairs() {
    let Some(context) = gpu_context() else {
        return;
    };
    let (shapes, bodies) = scene(911, 1500, 12.0);
    for cell_size in [0.05, 0.37, 3.0, 1.0e4] {
        let options = FrameOptions {
            cell_size: Some(cell_size),
            skip_static_pairs: false,
            ..FrameOptions::default()
        };
        let mut frame = GpuFrame::new(context.clone(), &shapes, options).expect("frame");
        let (gpu, cpu) = both(&mut frame, &shapes, &bodies, options);
        assert_same(&format!("cell {cell_size}"), &gpu, &cpu);
    }
}

#[test]
fn far_out_dense_and_walled_scenes_match() {
    let Some(context) = gpu_context() else {
        return;
    };
    // Far from the origin: the same scene moved 10,000 units out.
    let (shapes, mut bodies) = scene(921, 2000, 15.0);
    for body in &mut bodies {
        body.position += Vec2::new(10_000.0, -7_500.0);
    }
    let options = FrameOptions::default();
    let mut frame = GpuFrame::new(context.clone(), &shapes, options).expect("frame");
    let (gpu, cpu) = both(&mut frame, &shapes, &bodies, options);
    assert_same("far out", &gpu, &cpu);

    // Dense: far more pairs than the frame first has room for, and more
    // partners a body than either walk sorts as it goes.
    let (shapes, bodies) = scene(922, 3000, 4.0);
    for team_walk_below in WALKS {
        let options = FrameOptions {
            team_walk_below,
            ..options
        };
        let mut frame = GpuFrame::new(context.clone(), &shapes, options).expect("frame");
        let (gpu, cpu) = both(&mut frame, &shapes, &bodies, options);
        assert!(
            cpu.len() > 20 * bodies.len(),
            "dense: only {} pairs",
            cpu.len()
        );
        assert_same(
            &format!("dense, teams below {team_walk_below:?}"),
            &gpu,
            &cpu,
        );
    }

    // A box of four static walls, each thousands of cells long, around
    // particles, with the walls last and first.
    let (mut shapes, particles) = scene(923, 2500, 20.0);
    let wall = shapes
        .add_polygon(&[
            Vec2::new(-21.0, -0.5),
            Vec2::new(21.0, -0.5),
            Vec2::new(21.0, 0.5),
            Vec2::new(-21.0, 0.5),
        ])
        .expect("wall");
    let walls: Vec<Body> = [
        (0.0, -20.0, 0.0),
        (0.0, 20.0, 0.0),
        (-20.0, 0.0, std::f32::consts::FRAC_PI_2),
        (20.0, 0.0, std::f32::consts::FRAC_PI_2),
    ]
    .iter()
    .map(|&(x, y, angle)| {
        let mut body = Body::new(wall, Vec2::new(x, y), angle);
        body.inv_mass = 0.0;
        body
    })
    .collect();
    for (what, bodies) in [
        (
            "walls first",
            walls.iter().chain(&particles).cloned().collect::<Vec<_>>(),
        ),
        (
            "walls last",
            particles.iter().chain(&walls).cloned().collect::<Vec<_>>(),
        ),
    ] {
        for team_walk_below in WALKS {
            let options = FrameOptions {
                margin: 0.05,
                team_walk_below,
                ..FrameOptions::default()
            };
            let mut frame = GpuFrame::new(context.clone(), &shapes, options).expect("frame");
            let (gpu, cpu) = both(&mut frame, &shapes, &bodies, options);
            let wall_pairs = cpu
                .iter()
                .filter(|p| {
                    bodies[p.a as usize].inv_mass == 0.0 || bodies[p.b as usize].inv_mass == 0.0
                })
                .count();
            assert!(
                wall_pairs > 20,
                "{what}: only {wall_pairs} pairs with a wall"
            );
            assert_same(
                &format!("{what}, teams below {team_walk_below:?}"),
                &gpu,
                &cpu,
            );
        }
    }
}

/// The frame's hits as the batch API's hits over the CPU broadphase's pairs
/// (the frame's pairs are those, in that order: the test above).
fn as_sat_hits(pairs: &[gpusat::Pair], hits: &[FrameHit]) -> Vec<SatHit> {
    hits.iter()
        .map(|hit| {
            let pair = pairs
                .binary_search(&gpusat::Pair::new(hit.a, hit.b))
                .unwrap_or_else(|_| panic!("hit ({}, {}) is not a candidate pair", hit.a, hit.b));
            SatHit {
                pair: pair as u32,
                axis: Axis::unpack(hit.axis),
                depth: hit.depth,
            }
        })
        .collect()
}

#[test]
fn gpu_frame_reports_what_the_narrowphase_reports_on_the_same_pairs() {
    let Some(context) = gpu_context() else {
        return;
    };
    let mut narrowphase =
        GpuNarrowphase::new(context.clone(), GpuOptions::default()).expect("narrowphase");
    // The last two with capsules and rounded polygons among the shapes.
    for (seed, count, half_extent, margin, statics, rounded) in [
        (931, 3000, 25.0, 0.0, 0, false),
        (932, 2500, 8.0, 0.02, 7, false),
        (933, 1500, 40.0, 0.3, 0, false),
        (934, 3, 0.2, 0.0, 0, false),
        (935, 3000, 25.0, 0.05, 0, true),
        (936, 2000, 12.0, 0.0, 5, true),
    ] {
        let (shapes, mut bodies) = if rounded {
            let scene = SceneSpec {
                bodies: count,
                pairs: 0,
                half_extent,
                capsule_fraction: 0.25,
                rounded_fraction: 0.4,
                ..SceneSpec::mixed(seed, 0)
            }
            .generate();
            (scene.shapes, scene.bodies)
        } else {
            scene(seed, count, half_extent)
        };
        for (index, body) in bodies.iter_mut().enumerate() {
            if statics > 0 && index % statics == 0 {
                body.inv_mass = 0.0;
            }
        }
        let options = FrameOptions {
            margin,
            ..FrameOptions::default()
        };
        let mut frame = frame_over(&context, &shapes, &bodies, options);
        let output = frame.step().expect("frame");
        let pairs = find_pairs(
            &shapes,
            &bodies,
            margin,
            PairFilter {
                skip_static_pairs: true,
            },
        );
        assert_eq!(
            output.pairs as usize,
            pairs.len(),
            "seed {seed}: candidate pairs"
        );
        assert!(
            output
                .hits
                .windows(2)
                .all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)),
            "seed {seed}: hits not in (a, b) order"
        );
        let batch = Batch::new(&shapes, &bodies, &pairs, margin).expect("batch");
        let gpu_batch = narrowphase.collide(&batch).expect("GPU narrowphase");
        let frame_hits = as_sat_hits(&pairs, &output.hits);
        // The same kernel on the same pairs: the same bits.
        assert_eq!(
            frame_hits, gpu_batch,
            "seed {seed}: frame and batch GPU paths"
        );
        // And the CPU reference: the same pairs and axes, the same depths
        // but for documented near-ties (tests/it/gpu/d2.rs).
        let cpu = collide_cpu(&batch);
        assert_eq!(
            frame_hits.len(),
            cpu.len(),
            "seed {seed}: hits, frame vs CPU"
        );
        let identical = frame_hits
            .iter()
            .zip(&cpu)
            .filter(|(g, c)| {
                g.pair == c.pair && g.axis == c.axis && g.depth.to_bits() == c.depth.to_bits()
            })
            .count();
        eprintln!(
            "seed {seed}: {identical} of {} hits identical to the CPU",
            cpu.len()
        );
        if crate::common::gpu_is_bit_exact() {
            assert!(
                identical * 1000 >= cpu.len() * 999,
                "seed {seed}: only {identical} of {} hits identical to the CPU's",
                cpu.len()
            );
        }
        let agreement = gpusat::compare_hits(&batch, &cpu, &frame_hits);
        assert!(agreement.agrees(), "seed {seed}: {agreement:?}");
        if count > 100 {
            assert!(
                cpu.len() > count / 4,
                "seed {seed}: only {} hits",
                cpu.len()
            );
        }
        // The manifolds: the CPU's, from the same hits, bit for bit.
        assert_eq!(
            output.manifolds.len(),
            output.hits.len(),
            "seed {seed}: a manifold per hit"
        );
        let cpu_manifolds = manifolds(&batch, &batch.hits(&frame_hits));
        for ((gpu, hit), cpu) in output
            .manifolds
            .iter()
            .zip(&output.hits)
            .zip(&cpu_manifolds)
        {
            let gpu = gpu.to_manifold(cpu.pair, hit.a, hit.b);
            if !crate::common::gpu_is_bit_exact() {
                assert_manifolds_close(&batch, seed, &gpu, cpu);
                continue;
            }
            assert_eq!(
                (gpu.a, gpu.b, gpu.normal.to_array().map(f32::to_bits)),
                (cpu.a, cpu.b, cpu.normal.to_array().map(f32::to_bits)),
                "seed {seed}: pair {} (axis {:?}) normal: GPU {:?}, CPU {:?}",
                cpu.pair,
                Axis::unpack(hit.axis),
                gpu.normal,
                cpu.normal
            );
            let bits = |m: &gpusat::Manifold| -> Vec<(u32, u32, u32, u32)> {
                m.points()
                    .iter()
                    .map(|p| {
                        (
                            p.point.x.to_bits(),
                            p.point.y.to_bits(),
                            p.depth.to_bits(),
                            p.id,
                        )
                    })
                    .collect()
            };
            assert_eq!(
                bits(&gpu),
                bits(cpu),
                "seed {seed}: pair {} points: GPU {:?}, CPU {:?}",
                cpu.pair,
                gpu.points(),
                cpu.points()
            );
        }
        assert_eq!(
            frame.stats().maps,
            frame.stats().frames + frame.stats().reruns,
            "seed {seed}: one map per run"
        );
        // A second frame over the same bodies: the same output, one map,
        // no re-run.
        let before = frame.stats().clone();
        assert_eq!(
            frame.step().expect("second frame"),
            output,
            "seed {seed}: second frame"
        );
        assert_eq!(
            frame.stats().maps,
            before.maps + 1,
            "seed {seed}: second frame's maps"
        );
        assert_eq!(
            frame.stats().reruns,
            before.reruns,
            "seed {seed}: second frame re-ran"
        );
    }
}

/// The places scan and the compaction run over the pairs found (indirect
/// arguments the device writes from its pair count), not over the buffers'
/// capacity: one frame over a dense scene (its scans two levels deep), then
/// over sparser ones in the room the first left (stale flags past the new
/// count), then over bodies far apart (no pair at all), each frame's hits
/// the batch kernel's on the CPU broadphase's pairs, bit for bit.
#[test]
fn a_frame_of_fewer_pairs_than_its_capacity_compacts_only_its_own() {
    let Some(context) = gpu_context() else {
        return;
    };
    let mut narrowphase =
        GpuNarrowphase::new(context.clone(), GpuOptions::default()).expect("narrowphase");
    let (shapes, dense) = scene(951, 20_000, 60.0);
    let mut frame = frame_over(&context, &shapes, &dense, FrameOptions::default());
    let mut counts = Vec::new();
    for half_extent in [60.0, 200.0, 100_000.0] {
        let (_, bodies) = scene(951, 20_000, half_extent);
        let records: Vec<FrameBody> = bodies.iter().map(FrameBody::from_body).collect();
        frame.set_bodies(&shapes, &records).expect("bodies set");
        let output = frame.step().expect("frame");
        let filter = PairFilter {
            skip_static_pairs: true,
        };
        let pairs = find_pairs(&shapes, &bodies, 0.0, filter);
        assert_eq!(
            output.pairs as usize,
            pairs.len(),
            "half extent {half_extent}: candidate pairs"
        );
        let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).expect("batch");
        let expected = narrowphase.collide(&batch).expect("GPU narrowphase");
        assert_eq!(
            as_sat_hits(&pairs, &output.hits),
            expected,
            "half extent {half_extent}: hits"
        );
        assert_eq!(
            output.manifolds.len(),
            output.hits.len(),
            "half extent {half_extent}: a manifold per hit"
        );
        counts.push((pairs.len(), expected.len()));
    }
    // Dense enough for the scans' second level, sparse enough to leave
    // most of the room stale, and nothing at all.
    assert!(counts[0].0 > 8192, "{counts:?}");
    assert!(
        counts[1].0 * 4 < counts[0].0 && counts[1].1 > 0,
        "{counts:?}"
    );
    assert_eq!(counts[2], (0, 0), "{counts:?}");
}

/// A GPU consumer of the frame: the caller's own compute pass, recorded in
/// the same encoder after the frame, dispatched indirectly on the count the
/// frame left on the device, counts each body's contacts; nothing about the
/// hits crosses to the host but the caller's own result.
#[test]
fn a_gpu_consumer_reads_the_hits_by_indirect_dispatch_in_the_same_submission() {
    use gpusat::gpu::{STATE_HIT_ARGS, STATE_HITS};
    use gpusat::wgpu;
    let Some(context) = gpu_context() else {
        return;
    };
    let (shapes, bodies) = scene(941, 2500, 20.0);
    let options = FrameOptions::default();
    let mut frame = frame_over(&context, &shapes, &bodies, options);
    // One step sizes the buffers; the frames after it are recorded only.
    frame.step().expect("first frame");

    let device = context.device();
    let source = format!(
        "struct FrameHit {{ a: u32, b: u32, axis: u32, depth: f32 }}
         @group(0) @binding(0) var<storage, read> hits: array<FrameHit>;
         @group(0) @binding(1) var<storage, read> state: array<u32>;
         @group(0) @binding(2) var<storage, read_write> touching: array<atomic<u32>>;
         @compute @workgroup_size(256)
         fn count(@builtin(global_invocation_id) id: vec3<u32>) {{
             if id.x >= state[{STATE_HITS}u] {{ return; }}
             let hit = hits[id.x];
             atomicAdd(&touching[hit.a], 1u);
             atomicAdd(&touching[hit.b], 1u);
         }}"
    );
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("consumer"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("consumer"),
        layout: None,
        module: &module,
        entry_point: Some("count"),
        compilation_options: Default::default(),
        cache: None,
    });
    let bytes = (bodies.len() * 4) as u64;
    let touching = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("touching"),
        size: bytes,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("touching readback"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    frame.record_frame(&mut encoder);
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("consumer"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: frame.hits_buffer().as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: frame.state_buffer().as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: touching.as_entire_binding(),
            },
        ],
    });
    encoder.clear_buffer(&touching, 0, None);
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups_indirect(frame.state_buffer(), u64::from(STATE_HIT_ARGS) * 4);
    }
    encoder.copy_buffer_to_buffer(&touching, 0, &readback, 0, bytes);
    context.queue().submit([encoder.finish()]);
    readback
        .slice(..)
        .map_async(wgpu::MapMode::Read, |result| result.expect("mapped"));
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("the GPU ran the work");
    let counts: Vec<u32> =
        bytemuck::pod_collect_to_vec(&readback.slice(..).get_mapped_range().expect("mapped range"));

    // The CPU's: each body's reported pairs.
    let pairs = find_pairs(
        &shapes,
        &bodies,
        0.0,
        PairFilter {
            skip_static_pairs: true,
        },
    );
    let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).expect("batch");
    let mut expected = vec![0u32; bodies.len()];
    for hit in collide_cpu(&batch) {
        let pair = pairs[hit.pair as usize];
        expected[pair.a as usize] += 1;
        expected[pair.b as usize] += 1;
    }
    assert!(
        expected.iter().sum::<u32>() > 1000,
        "too few contacts to say anything"
    );
    assert_eq!(
        counts, expected,
        "contacts per body: the GPU consumer's against the CPU's"
    );
}

#[test]
fn bad_bodies_and_overfull_grids_are_errors_that_say_why() {
    let Some(context) = gpu_context() else {
        return;
    };
    let (shapes, bodies) = scene(951, 200, 5.0);
    // A frame run before it has bodies: nothing, not a validation error.
    let mut fresh =
        GpuFrame::new(context.clone(), &shapes, FrameOptions::default()).expect("frame");
    assert_eq!(
        fresh.step().expect("an empty frame"),
        gpusat::gpu::FrameOutput::default()
    );
    assert!(fresh.find_pairs().expect("no pairs").is_empty());
    let good: Vec<FrameBody> = bodies.iter().map(FrameBody::from_body).collect();
    let mut frame =
        GpuFrame::new(context.clone(), &shapes, FrameOptions::default()).expect("frame");
    type Spoil = fn(&mut FrameBody);
    let cases: [(&str, Spoil); 5] = [
        ("position", |b| b.position[0] = f32::NAN),
        ("position", |b| b.position[1] = f32::INFINITY),
        ("rotation", |b| b.rotation = [0.0, 0.0]),
        ("shape", |b| b.shape = 100_000),
        ("inverse mass", |b| b.inv_mass = -1.0),
    ];
    for (what, spoil) in cases {
        let mut records = good.clone();
        spoil(&mut records[17]);
        let err = frame.set_bodies(&shapes, &records).expect_err("a bad body");
        let message = err.to_string();
        assert!(
            message.contains("frame body 17") && message.contains(what),
            "{what}: {message}"
        );
    }
    // The frame still works after refusing them.
    frame.set_bodies(&shapes, &good).expect("good bodies");
    let pairs = frame.find_pairs().expect("pairs");
    assert_eq!(
        pairs,
        find_pairs(
            &shapes,
            &bodies,
            0.0,
            PairFilter {
                skip_static_pairs: true
            }
        )
    );

    // Cells far smaller than the bodies: every body is "large", more than
    // the frame's list holds; an error naming the cell size, not a partial
    // answer.
    let (shapes, bodies) = scene(952, 5000, 30.0);
    let options = FrameOptions {
        cell_size: Some(0.01),
        ..FrameOptions::default()
    };
    let mut frame = frame_over(&context, &shapes, &bodies, options);
    let message = frame.step().expect_err("too many large bodies").to_string();
    assert!(
        message.contains("5000 bodies span more than 4 grid cells") && message.contains("0.01"),
        "{message}"
    );
    // Bad options.
    for options in [
        FrameOptions {
            margin: -1.0,
            ..FrameOptions::default()
        },
        FrameOptions {
            margin: f32::NAN,
            ..FrameOptions::default()
        },
        FrameOptions {
            cell_size: Some(0.0),
            ..FrameOptions::default()
        },
    ] {
        let err = GpuFrame::new(context.clone(), &shapes, options).expect_err("bad options");
        assert!(err.to_string().contains("not a finite value"), "{err}");
    }
}

/// A caller writing the bodies buffer itself is not checked: a body whose
/// position is not a number, or whose shape is not in the library, is in no
/// pair, and the others' pairs are the CPU's.
#[test]
fn a_body_written_as_nan_by_the_caller_is_in_no_pair() {
    let Some(context) = gpu_context() else {
        return;
    };
    let (shapes, bodies) = scene(961, 1500, 10.0);
    let mut records: Vec<FrameBody> = bodies.iter().map(FrameBody::from_body).collect();
    let mut frame =
        GpuFrame::new(context.clone(), &shapes, FrameOptions::default()).expect("frame");
    frame.set_bodies(&shapes, &records).expect("bodies");
    for (body, value) in [(5usize, f32::NAN), (9, f32::INFINITY)] {
        records[body].position = [value, 0.0];
    }
    // A shape past the library: in no pair either.
    records[13].shape = 100_000;
    context
        .queue()
        .write_buffer(frame.bodies_buffer(), 0, bytemuck::cast_slice(&records));
    let pairs = frame.find_pairs().expect("pairs");
    let expected: Vec<gpusat::Pair> = find_pairs(
        &shapes,
        &bodies,
        0.0,
        PairFilter {
            skip_static_pairs: true,
        },
    )
    .into_iter()
    .filter(|pair| ![5, 9, 13].contains(&pair.a) && ![5, 9, 13].contains(&pair.b))
    .collect();
    assert!(expected.len() > 1000, "{} pairs", expected.len());
    assert_same("NaN and infinite bodies left out", &pairs, &expected);
    let output = frame.step().expect("frame");
    assert!(
        output
            .hits
            .iter()
            .all(|hit| ![5, 9, 13].contains(&hit.a) && ![5, 9, 13].contains(&hit.b))
    );
}

/// On a GPU that does not compute the CPU's bits (`crate::common::gpu_is_bit_exact`):
/// the same bodies, points and feature ids, the normal within 1e-5 and
/// each point and depth within `DEPTH_TOLERANCE x size`.
fn assert_manifolds_close(
    batch: &Batch,
    seed: u64,
    gpu: &gpusat::Manifold,
    cpu: &gpusat::Manifold,
) {
    let size = batch.pair_size(cpu.pair);
    let tolerance = gpusat::DEPTH_TOLERANCE * size;
    let what = format!("seed {seed}: pair {}: GPU {gpu:?}, CPU {cpu:?}", cpu.pair);
    assert_eq!((gpu.a, gpu.b), (cpu.a, cpu.b), "{what}");
    assert!((gpu.normal - cpu.normal).length() <= 1e-5, "{what}");
    assert_eq!(gpu.points().len(), cpu.points().len(), "{what}");
    for (g, c) in gpu.points().iter().zip(cpu.points()) {
        assert_eq!(g.id, c.id, "{what}");
        assert!((g.point - c.point).length() <= tolerance, "{what}");
        assert!((g.depth - c.depth).abs() <= tolerance, "{what}");
    }
}

/// A frame counts its dispatches and, asked to, times each stage in a pass
/// of its own: every stage once, in order, and the same hits and manifolds
/// as a frame recorded in one pass.
#[test]
fn a_frame_counts_its_dispatches_and_times_its_stages() {
    let Some(context) = gpu_context() else {
        return;
    };
    let (shapes, bodies) = scene(921, 2000, 10.0);
    let records: Vec<FrameBody> = bodies.iter().map(FrameBody::from_body).collect();
    let mut frame =
        GpuFrame::new(context.clone(), &shapes, FrameOptions::default()).expect("frame");
    frame.set_bodies(&shapes, &records).expect("bodies");
    let one_pass = frame.step().expect("a frame in one pass");
    let dispatches = frame.stats().dispatches;
    assert!(
        (15..=MOST_DISPATCHES).contains(&dispatches),
        "{dispatches} dispatches a frame"
    );
    assert!(frame.stats().stage_times.is_empty());
    frame.set_stage_times(true);
    let timed = frame.step().expect("a frame a pass a stage");
    assert_eq!(timed, one_pass, "timing the stages changed the frame");
    assert_eq!(frame.stats().dispatches, dispatches);
    if context.has_timestamps() {
        let stages: Vec<gpusat::gpu::Stage> = frame
            .stats()
            .stage_times
            .iter()
            .map(|&(stage, _)| stage)
            .collect();
        assert_eq!(stages, gpusat::gpu::Stage::ALL.to_vec());
        let total: std::time::Duration = frame
            .stats()
            .stage_times
            .iter()
            .map(|&(_, time)| time)
            .sum();
        assert!(total > std::time::Duration::ZERO, "{:?}", frame.stats());
    }
    frame.set_stage_times(false);
    assert_eq!(frame.step().expect("one pass again"), one_pass);
}

/// The most dispatches a frame records, whatever its size.
const MOST_DISPATCHES: u32 = 30;

/// A frame's dispatches do not grow with the scene: from ten bodies to
/// 600,000 (recorded, not run: 2^21 buckets and room for 1.2M pairs), at
/// most MOST_DISPATCHES; what a frame that runs counts is what it recorded.
#[test]
fn a_frame_records_at_most_30_dispatches_whatever_its_size() {
    let Some(context) = gpu_context() else {
        return;
    };
    let mut counts = Vec::new();
    for (bodies, run) in [(10, true), (2_000, true), (600_000, false)] {
        let (shapes, bodies) = scene(931, bodies, (bodies as f32).sqrt());
        let mut frame = frame_over(&context, &shapes, &bodies, FrameOptions::default());
        let mut encoder = context
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        frame.record_frame(&mut encoder);
        drop(encoder);
        let recorded = frame.stats().dispatches;
        if run {
            frame.step().expect("a frame");
            assert_eq!(
                frame.stats().dispatches,
                recorded,
                "{} bodies",
                bodies.len()
            );
        }
        assert!(
            recorded <= MOST_DISPATCHES,
            "{} bodies: {recorded} dispatches a frame, more than {MOST_DISPATCHES}",
            bodies.len()
        );
        counts.push(recorded);
    }
    // Only the three prefix sums grow (one dispatch up to 8,192 elements,
    // three up to 2^26, five past it); nothing else does.
    assert!(counts[2] - counts[0] <= 12, "{counts:?}");
}

/// Two ways of running the frame (`ways`, named by `what`) on scenes whose
/// scans span one block and several (`scenes`: seed, bodies, extent): each
/// gives the CPU's pairs, and the two give the same frame. `check` looks at
/// each frame as it is built.
fn the_same_frame_either_way(
    context: &std::sync::Arc<gpusat::gpu::GpuContext>,
    scenes: [(u64, usize, f32); 2],
    what: &str,
    ways: [(bool, FrameOptions); 2],
    check: impl Fn(&GpuFrame, bool, u64),
) {
    for (seed, count, half_extent) in scenes {
        let (shapes, bodies) = scene(seed, count, half_extent);
        let mut frames = Vec::new();
        for (on, options) in ways {
            let mut frame = frame_over(context, &shapes, &bodies, options);
            check(&frame, on, seed);
            let (gpu, cpu) = both(&mut frame, &shapes, &bodies, options);
            assert_same(&format!("seed {seed}, {what} {on}"), &gpu, &cpu);
            frames.push(frame.step().expect("a frame"));
        }
        assert!(
            frames[0].hits.len() > count / 4,
            "seed {seed}: {} hits",
            frames[0].hits.len()
        );
        assert_eq!(frames[0], frames[1], "seed {seed}: {what} on and off");
    }
}

/// The frame's prefix sums with subgroup operations and without: the same
/// pairs, hits and manifolds (the CPU's), on scenes whose scans span one
/// block and several; where the adapter has subgroups (lavapipe does), the
/// frame uses them unless told not to.
#[test]
fn prefix_sums_with_and_without_subgroups_give_the_same_frame() {
    let Some(context) = gpu_context() else {
        return;
    };
    let way = |subgroups| {
        (
            subgroups,
            FrameOptions {
                subgroups,
                ..FrameOptions::default()
            },
        )
    };
    the_same_frame_either_way(
        &context,
        [(941, 700, 12.0), (942, 20_000, 110.0)],
        "subgroups",
        [way(true), way(false)],
        |frame, subgroups, seed| {
            assert_eq!(
                frame.uses_subgroups(),
                subgroups && context.has_subgroups(),
                "seed {seed}"
            );
        },
    );
}

/// The places scan and the compaction over the pairs found (indirect
/// arguments from the device's count) and over the pair capacity (a direct
/// dispatch): the same frame, the CPU's, on scenes whose scans span one
/// block and several.
#[test]
fn compaction_over_the_pairs_found_and_over_the_capacity_give_the_same_frame() {
    let Some(context) = gpu_context() else {
        return;
    };
    let way = |over_pairs_found| {
        (
            over_pairs_found,
            FrameOptions {
                over_pairs_found,
                ..FrameOptions::default()
            },
        )
    };
    the_same_frame_either_way(
        &context,
        [(951, 700, 12.0), (952, 20_000, 110.0)],
        "over the pairs found",
        [way(true), way(false)],
        |_, _, _| {},
    );
}

/// A frame run by `begin_step` and collected by `poll_step_with` (polled
/// until its results come, as a page does) gives `step`'s results on the
/// same scenes, frame after frame: the pile spread out, then packed (its
/// buffers overflow and the frame runs again; its hits outgrow the first
/// copy's room and take a second), then spread again; and the two are
/// refused where they must be.
#[test]
fn a_frame_begun_and_polled_gives_what_step_gives() {
    let Some(context) = gpu_context() else { return };
    let options = FrameOptions::default();
    let (shapes, bodies) = scene(71, 1500, 12.0);
    let mut stepped = frame_over(&context, &shapes, &bodies, options);
    let mut polled = frame_over(&context, &shapes, &bodies, options);
    assert!(
        matches!(
            polled.poll_step_with(|_| ()),
            Err(gpusat::gpu::GpuError::NotPending)
        ),
        "poll_step_with with no frame started"
    );
    let mut polls = 0;
    for (round, half_extent) in [12.0, 12.0, 3.0, 2.0, 2.0, 8.0].into_iter().enumerate() {
        let (_, moved) = scene(71, 1500, half_extent);
        let records: Vec<FrameBody> = moved.iter().map(FrameBody::from_body).collect();
        stepped.set_bodies(&shapes, &records).expect("bodies");
        polled.set_bodies(&shapes, &records).expect("bodies");
        let expected = stepped.step().expect("step");
        polled.begin_step().expect("begin_step");
        assert!(
            matches!(polled.begin_step(), Err(gpusat::gpu::GpuError::Busy)),
            "round {round}: a second begin_step"
        );
        let got = loop {
            polls += 1;
            if let Some(output) = polled
                .poll_step_with(|view| gpusat::gpu::FrameOutput {
                    pairs: view.pairs,
                    hits: view.hits.to_vec(),
                    manifolds: view.manifolds.to_vec(),
                })
                .expect("poll_step_with")
            {
                break output;
            }
            std::thread::yield_now();
        };
        assert!(
            got == expected,
            "round {round} (half extent {half_extent}): {} pairs and {} hits polled, {} and {} \
             stepped",
            got.pairs,
            got.hits.len(),
            expected.pairs,
            expected.hits.len()
        );
    }
    let (stepped, polled_stats) = (stepped.stats(), polled.stats());
    assert_eq!(
        (polled_stats.frames, polled_stats.reruns, polled_stats.maps),
        (stepped.frames, stepped.reruns, stepped.maps),
        "frames, reruns and maps"
    );
    assert!(
        stepped.reruns > 0 && stepped.maps > stepped.frames,
        "the scenes should overflow once and take a second copy: {stepped:?}"
    );
    eprintln!("{polls} polls for {} frames", polled_stats.frames);
}
