//! A particle system that never leaves the GPU. The application opens its
//! own wgpu device, scatters 20,000 overlapping particles, and every frame
//! records, into one command encoder and one submission:
//!
//! 1. gpusat's GPU-resident frame (`GpuFrame::record_frame`): boxes, grid,
//!    candidate pairs in order, SAT, hits and contact manifolds, all on
//!    the device;
//! 2. the application's own compute passes, dispatched indirectly on the
//!    hit count the frame left on the device: each hit's manifold pushes
//!    its two particles apart, and the pushes are written straight into
//!    the frame's bodies buffer, ready for the next frame.
//!
//! Nothing about the pairs crosses to the host. Every 20 frames a
//! `GpuFrame::step_with` reads one frame back to report how many pairs
//! still overlap by more than 0.001 and how deep; the run fails (non-zero
//! exit) unless the overlaps are gone.
//!
//! ```sh
//! cargo run --release --example gpu_particles
//! ```

use std::error::Error;
use std::sync::Arc;

use gpusat::glam::Vec2;
use gpusat::gpu::{FrameBody, FrameOptions, GpuContext, GpuFrame, STATE_HIT_ARGS, STATE_HITS};
use gpusat::wgpu;
use gpusat::{Body, ShapeSet};

const PARTICLES: usize = 20_000;
const FRAMES: u32 = 100;

/// The application's shader: the frame's records as it reads them, and two
/// passes (accumulate the pushes of every hit, apply them to the bodies).
fn shader() -> String {
    format!(
        r#"
struct FrameHit {{ a: u32, b: u32, axis: u32, depth: f32 }}
struct FrameManifold {{
    normal: vec2<f32>, point0: vec2<f32>, point1: vec2<f32>,
    depth0: f32, depth1: f32, id0: u32, id1: u32, count: u32, _pad: u32,
}}
struct FrameBody {{ position: vec2<f32>, rotation: vec2<f32>, shape: u32, inv_mass: f32, _pad: vec2<u32> }}

@group(0) @binding(0) var<storage, read> hits: array<FrameHit>;
@group(0) @binding(1) var<storage, read> manifolds: array<FrameManifold>;
@group(0) @binding(2) var<storage, read> state: array<u32>;
@group(0) @binding(3) var<storage, read_write> pushes: array<atomic<i32>>;
@group(0) @binding(4) var<storage, read_write> bodies: array<FrameBody>;

// Pushes are summed in fixed point (WGSL has no float atomics).
const SCALE: f32 = 1048576.0;

@compute @workgroup_size(256)
fn accumulate(@builtin(global_invocation_id) id: vec3<u32>) {{
    if id.x >= state[{STATE_HITS}u] {{ return; }}
    let hit = hits[id.x];
    let manifold = manifolds[id.x];
    var depth = manifold.depth0;
    if manifold.count == 2u {{ depth = max(depth, manifold.depth1); }}
    if depth <= 0.0 {{ return; }}
    // Split by inverse mass, most of the way apart each frame.
    let wa = bodies[hit.a].inv_mass;
    let wb = bodies[hit.b].inv_mass;
    let total = wa + wb;
    if total <= 0.0 {{ return; }}
    let push = manifold.normal * (0.8 * depth / total);
    let pa = -push * wa * SCALE;
    let pb = push * wb * SCALE;
    atomicAdd(&pushes[2u * hit.a], i32(pa.x));
    atomicAdd(&pushes[2u * hit.a + 1u], i32(pa.y));
    atomicAdd(&pushes[2u * hit.b], i32(pb.x));
    atomicAdd(&pushes[2u * hit.b + 1u], i32(pb.y));
}}

@compute @workgroup_size(256)
fn apply(@builtin(global_invocation_id) id: vec3<u32>) {{
    if id.x >= arrayLength(&pushes) / 2u {{ return; }}
    let x = atomicExchange(&pushes[2u * id.x], 0);
    let y = atomicExchange(&pushes[2u * id.x + 1u], 0);
    bodies[id.x].position += vec2<f32>(f32(x), f32(y)) / SCALE;
}}
"#
    )
}

/// Overlap a pair may keep and count as touching.
const SLOP: f32 = 1e-3;

/// What one frame read back says: the pairs overlapping by more than the
/// slop, and the deepest.
fn overlaps(frame: &mut GpuFrame) -> Result<(usize, f32), Box<dyn Error>> {
    Ok(frame.step_with(|view| {
        let depths: Vec<f32> = view
            .manifolds
            .iter()
            .map(|m| m.depth0.max(if m.count == 2 { m.depth1 } else { m.depth0 }))
            .collect();
        let deep = depths.iter().filter(|&&depth| depth > SLOP).count();
        (deep, depths.iter().copied().fold(0.0f32, f32::max))
    })?)
}

fn main() -> Result<(), Box<dyn Error>> {
    // The application's own device, opened the usual way.
    let mut instance_descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
    instance_descriptor.backends = wgpu::Backends::PRIMARY;
    let instance = wgpu::Instance::new(instance_descriptor.with_env());
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))?;
    let (device, queue) =
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))?;
    println!("device: {}", adapter.get_info().name);
    let context = Arc::new(GpuContext::from_device(device.clone(), queue.clone())?);

    // Particles: small polygons and circles, scattered so that most overlap.
    let mut shapes = ShapeSet::new();
    for i in 0..16 {
        let radius = 0.1 + 0.01 * i as f32;
        let count = 3 + i % 6;
        let points: Vec<Vec2> = (0..count)
            .map(|k| {
                let angle = std::f32::consts::TAU * (k as f32 + 0.3) / count as f32;
                radius * Vec2::new(angle.cos(), angle.sin())
            })
            .collect();
        shapes.add_polygon(&points)?;
        shapes.add_circle(radius)?;
    }
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        (seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32
    };
    let side = (PARTICLES as f32).sqrt() * 0.6;
    let bodies: Vec<Body> = (0..PARTICLES)
        .map(|_| {
            let shape = (next() * shapes.len() as f32) as u32 % shapes.len() as u32;
            let position = Vec2::new(next() * side, next() * side);
            Body::new(shape, position, next() * std::f32::consts::TAU)
        })
        .collect();

    let mut frame = GpuFrame::new(context.clone(), &shapes, FrameOptions::default())?;
    let records: Vec<FrameBody> = bodies.iter().map(FrameBody::from_body).collect();
    frame.set_bodies(&shapes, &records)?;
    // The first frame read back: it sizes the frame's buffers too.
    let (first_hits, first_depth) = overlaps(&mut frame)?;
    println!(
        "frame 0: {first_hits} pairs overlapping by more than {SLOP}, deepest {first_depth:.4}"
    );

    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("particles"),
        source: wgpu::ShaderSource::Wgsl(shader().into()),
    });
    let pipeline = |entry_point| {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry_point),
            layout: None,
            module: &module,
            entry_point: Some(entry_point),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let (accumulate, apply) = (pipeline("accumulate"), pipeline("apply"));
    let pushes = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("pushes"),
        size: (PARTICLES * 8) as u64,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });

    let mut last = (first_hits, first_depth);
    for number in 1..=FRAMES {
        // The buffers the frame holds now (a frame read back may grow them).
        let bind = |pipeline: &wgpu::ComputePipeline, entries: &[(u32, &wgpu::Buffer)]| {
            let entries: Vec<wgpu::BindGroupEntry> = entries
                .iter()
                .map(|&(binding, buffer)| wgpu::BindGroupEntry {
                    binding,
                    resource: buffer.as_entire_binding(),
                })
                .collect();
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries,
            })
        };
        let accumulate_group = bind(
            &accumulate,
            &[
                (0, frame.hits_buffer()),
                (1, frame.manifolds_buffer()),
                (2, frame.state_buffer()),
                (3, &pushes),
                (4, frame.bodies_buffer()),
            ],
        );
        let apply_group = bind(&apply, &[(3, &pushes), (4, frame.bodies_buffer())]);
        let mut encoder = device.create_command_encoder(&Default::default());
        frame.record_frame(&mut encoder);
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&accumulate);
            pass.set_bind_group(0, &accumulate_group, &[]);
            pass.dispatch_workgroups_indirect(frame.state_buffer(), u64::from(STATE_HIT_ARGS) * 4);
            pass.set_pipeline(&apply);
            pass.set_bind_group(0, &apply_group, &[]);
            pass.dispatch_workgroups(PARTICLES.div_ceil(256) as u32, 1, 1);
        }
        queue.submit([encoder.finish()]);
        if number % 20 == 0 {
            last = overlaps(&mut frame)?;
            println!(
                "frame {number}: {} pairs overlapping by more than {SLOP}, deepest {:.4}",
                last.0, last.1
            );
        }
    }
    if !(last.0 < first_hits / 100 && last.1 < 0.01 * first_depth) {
        return Err(format!(
            "the particles did not separate: {} pairs, deepest {} after {FRAMES} frames \
             (from {first_hits}, {first_depth})",
            last.0, last.1
        )
        .into());
    }
    println!(
        "{PARTICLES} particles pushed apart on the GPU: {first_hits} -> {} pairs overlapping by more than {SLOP}",
        last.0
    );
    Ok(())
}
