//! An application that owns its GPU: it opens its own wgpu device (with
//! `DeviceDescriptor::default()`, as a renderer would), hands it to gpusat,
//! and every frame records the narrowphase and a render pass into one
//! command encoder, submits once, and collects the hits when they are ready,
//! never waiting inside gpusat. Particles drift in a box; the ones that
//! overlapped in the frame before are drawn red (translucent, so overlaps
//! show darker). After the last frame the picture is copied back and
//! written as a PNG.
//!
//! ```sh
//! cargo run --release --example own_device -- particles.png
//! ```

use std::error::Error;
use std::sync::Arc;

use gpusat::glam::Vec2;
use gpusat::gpu::{GpuContext, GpuNarrowphase, GpuOptions};
use gpusat::wgpu;
use gpusat::{Batch, Body, PairFilter, Shape, ShapeSet, find_pairs};

const WIDTH: u32 = 800;
const HEIGHT: u32 = 600;
const FRAMES: u32 = 120;
/// The world box the particles drift in: x in ±BOX_X, y in ±BOX_Y.
const BOX_X: f32 = 8.0;
const BOX_Y: f32 = 6.0;

const SHADER: &str = r#"
struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) colour: vec4<f32>,
}

@vertex
fn vertex(@location(0) position: vec2<f32>, @location(1) colour: vec4<f32>) -> VertexOut {
    // The world box onto the whole picture.
    return VertexOut(vec4<f32>(position.x / 8.0, position.y / 6.0, 0.0, 1.0), colour);
}

@fragment
fn fragment(input: VertexOut) -> @location(0) vec4<f32> {
    return input.colour;
}
"#;

/// A small seeded generator (xorshift64*).
struct Random(u64);

impl Random {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32
    }

    fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.next()
    }
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Vertex {
    position: [f32; 2],
    colour: [f32; 4],
}

/// Triangles (fans) of every body in world coordinates, red where the body
/// overlapped another.
fn vertices(shapes: &ShapeSet, bodies: &[Body], overlapping: &[bool]) -> Vec<Vertex> {
    let mut out = Vec::new();
    for (body, &hit) in bodies.iter().zip(overlapping) {
        let colour = if hit {
            [0.85, 0.15, 0.12, 0.7]
        } else {
            [0.22, 0.45, 0.78, 0.7]
        };
        let transform = body.transform();
        let place = |v: Vec2| {
            let p = gpusat::math::transform_point(transform, v);
            Vertex {
                position: [p.x, p.y],
                colour,
            }
        };
        let outline: Vec<Vec2> = match shapes.get(body.shape) {
            Some(Shape::Polygon(polygon)) => polygon.vertices().to_vec(),
            Some(Shape::Circle(circle)) => (0..20)
                .map(|i| {
                    let angle = std::f32::consts::TAU * i as f32 / 20.0;
                    circle.radius() * Vec2::new(angle.cos(), angle.sin())
                })
                .collect(),
            // The resident frame takes neither (its scenes have none).
            Some(Shape::Capsule(_) | Shape::Segment(_)) | None => continue,
        };
        for i in 1..outline.len() - 1 {
            out.extend([place(outline[0]), place(outline[i]), place(outline[i + 1])]);
        }
    }
    out
}

fn main() -> Result<(), Box<dyn Error>> {
    let output = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("gpusat-own-device.png"));

    // The application's own device, opened the usual way.
    let mut instance_descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
    instance_descriptor.backends = wgpu::Backends::PRIMARY;
    let instance = wgpu::Instance::new(instance_descriptor.with_env());
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))?;
    let (device, queue) =
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))?;
    println!("device: {}", adapter.get_info().name);

    // gpusat on that device.
    let context = Arc::new(GpuContext::from_device(device.clone(), queue.clone())?);
    let mut narrowphase = GpuNarrowphase::new(context, GpuOptions::default())?;

    // Particles: random convex polygons and circles drifting in the box.
    let mut random = Random(7);
    let mut shapes = ShapeSet::new();
    for _ in 0..24 {
        let radius = random.range(0.12, 0.3);
        let count = 3 + (random.next() * 6.0) as usize;
        let points: Vec<Vec2> = (0..count)
            .map(|i| {
                let angle =
                    std::f32::consts::TAU * (i as f32 + random.range(0.1, 0.9)) / count as f32;
                radius * Vec2::new(angle.cos(), angle.sin())
            })
            .collect();
        shapes.add_polygon(&points)?;
    }
    for _ in 0..8 {
        shapes.add_circle(random.range(0.1, 0.25))?;
    }
    let mut bodies: Vec<Body> = (0..420)
        .map(|_| {
            let shape = (random.next() * shapes.len() as f32) as u32 % shapes.len() as u32;
            let mut body = Body::new(
                shape,
                Vec2::new(random.range(-7.5, 7.5), random.range(-5.5, 5.5)),
                random.range(-3.0, 3.0),
            );
            body.velocity = Vec2::new(random.range(-2.0, 2.0), random.range(-2.0, 2.0));
            body.angular_velocity = random.range(-2.0, 2.0);
            body
        })
        .collect();

    // The renderer: a target texture, a vertex buffer, one pipeline.
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("picture"),
        size: wgpu::Extent3d {
            width: WIDTH,
            height: HEIGHT,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let target_view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("particles"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("particles"),
        layout: None,
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vertex"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<Vertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x2, 1 => Float32x4],
            })],
        },
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fragment"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: wgpu::TextureFormat::Rgba8Unorm,
                // Translucent: where two particles overlap, the colour deepens.
                blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        multiview_mask: None,
        cache: None,
    });
    let mut vertex_buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("vertices"),
        size: 1 << 20,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let row_bytes = (WIDTH * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let picture = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("picture readback"),
        size: u64::from(row_bytes * HEIGHT),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });

    let dt = 1.0 / 60.0;
    let mut overlapping = vec![false; bodies.len()];
    let (mut tested, mut reported) = (0usize, 0usize);
    for frame in 0..FRAMES {
        // Move the particles (the application's own simulation), bouncing
        // off the box.
        for body in &mut bodies {
            body.position += body.velocity * dt;
            body.angle += body.angular_velocity * dt;
            if body.position.x.abs() > BOX_X - 0.3 {
                body.velocity.x = -body.velocity.x.abs() * body.position.x.signum();
            }
            if body.position.y.abs() > BOX_Y - 0.3 {
                body.velocity.y = -body.velocity.y.abs() * body.position.y.signum();
            }
        }
        let pairs = find_pairs(&shapes, &bodies, 0.0, PairFilter::default());
        let batch = Batch::new(&shapes, &bodies, &pairs, 0.0)?;

        // One encoder for the frame: the narrowphase, then the picture.
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("frame"),
        });
        let pending = narrowphase.record(&batch, &mut encoder)?;
        let triangles = vertices(&shapes, &bodies, &overlapping);
        let bytes: &[u8] = bytemuck::cast_slice(&triangles);
        if bytes.len() as u64 > vertex_buffer.size() {
            vertex_buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("vertices"),
                size: (bytes.len() as u64).next_power_of_two(),
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
        }
        queue.write_buffer(&vertex_buffer, 0, bytes);
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("particles"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &target_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: 0.96,
                            g: 0.96,
                            b: 0.94,
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&pipeline);
            pass.set_vertex_buffer(0, vertex_buffer.slice(..bytes.len() as u64));
            pass.draw(0..triangles.len() as u32, 0..1);
        }
        if frame + 1 == FRAMES {
            encoder.copy_texture_to_buffer(
                target.as_image_copy(),
                wgpu::TexelCopyBufferInfo {
                    buffer: &picture,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(row_bytes),
                        rows_per_image: Some(HEIGHT),
                    },
                },
                target.size(),
            );
        }
        queue.submit([encoder.finish()]);

        // A frame loop would do other work here and poll later; this one has
        // nothing else to do, so it waits on its own device between polls.
        let hits = loop {
            if let Some(hits) = narrowphase.poll(&pending)? {
                break hits;
            }
            device.poll(wgpu::PollType::wait_indefinitely())?;
        };
        overlapping.iter_mut().for_each(|flag| *flag = false);
        for hit in &hits {
            let pair = pairs[hit.pair as usize];
            overlapping[pair.a as usize] = true;
            overlapping[pair.b as usize] = true;
        }
        tested += pairs.len();
        reported += hits.len();
        assert_eq!(
            narrowphase.stats().submissions,
            0,
            "gpusat submitted nothing of its own"
        );
    }
    println!(
        "{FRAMES} frames: {:.0} candidate pairs and {:.0} overlapping per frame, each frame one \
         submission of the application's (narrowphase and render pass together)",
        tested as f64 / f64::from(FRAMES),
        reported as f64 / f64::from(FRAMES)
    );

    // The last frame's picture, as drawn by the GPU.
    let slice = picture.slice(..);
    slice.map_async(wgpu::MapMode::Read, |_| {});
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let mut pixels = Vec::with_capacity((WIDTH * HEIGHT * 4) as usize);
    {
        let mapped = slice.get_mapped_range()?;
        for row in mapped.chunks(row_bytes as usize) {
            pixels.extend_from_slice(&row[..(WIDTH * 4) as usize]);
        }
    }
    picture.unmap();
    let file = std::io::BufWriter::new(std::fs::File::create(&output)?);
    let mut encoder = png::Encoder::new(file, WIDTH, HEIGHT);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&pixels)?;
    let drawn = pixels
        .chunks(4)
        .filter(|p| p[0] != 245 || p[1] != 245)
        .count();
    println!(
        "picture of the last frame: {} ({:.0}% of the pixels covered by particles)",
        output.display(),
        100.0 * drawn as f64 / f64::from(WIDTH * HEIGHT)
    );
    if drawn == 0 {
        return Err("the picture is empty".into());
    }
    Ok(())
}
