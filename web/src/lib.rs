//! gpusat's demo page: the 2D particle demo in a browser, its narrowphase on
//! the page's WebGPU or on the CPU (compiled to WebAssembly), drawn on a
//! canvas and checked against the CPU reference every frame.
//!
//! The page (`index.html`, `main.js`) opens WebGPU when the browser has it
//! ([`open_webgpu`]), builds a [`Demo`] on it or on the CPU, and runs one
//! frame per animation frame: [`Demo::begin_frame`], then
//! [`Demo::poll_frame`] between turns of its event loop until the GPU's
//! results are in (a page cannot wait), then [`Demo::draw`].
//! `scripts/web.sh` builds it and serves it.

use std::sync::Arc;

use gpusat::BackendKind;
use gpusat::d2::{Narrowphase, World, WorldOptions};
use gpusat::generate::d2::{DEMO_DT, DemoScene, DemoShapes};
use gpusat::glam::Vec2;
use gpusat::gpu::{GpuContext, GpuNarrowphase, GpuOptions};
use gpusat::wgpu;
use wasm_bindgen::prelude::*;
use web_sys::CanvasRenderingContext2d;

/// The page's WebGPU device, wrapped for the narrowphase.
#[wasm_bindgen]
pub struct WebGpu {
    context: Arc<GpuContext>,
}

#[wasm_bindgen]
impl WebGpu {
    /// The adapter, in words: its name where the browser gives one, and
    /// its type (a browser may name neither its GPU nor its driver).
    pub fn adapter(&self) -> String {
        let summary = self.context.adapter();
        let kind = if self.context.is_software() {
            "a software adapter".to_string()
        } else {
            format!("a {} GPU", summary.device_type)
        };
        if summary.name.is_empty() {
            kind
        } else {
            format!("{} ({kind})", summary.name)
        }
    }
}

/// Opens the page's WebGPU device, with the limits its adapter offers; an
/// error when the browser has no WebGPU adapter.
#[wasm_bindgen]
pub async fn open_webgpu() -> Result<WebGpu, JsError> {
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
    descriptor.backends = wgpu::Backends::BROWSER_WEBGPU;
    let instance = wgpu::Instance::new(descriptor);
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .map_err(|err| JsError::new(&format!("no WebGPU adapter: {err}")))?;
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("gpusat demo"),
            required_limits: adapter.limits(),
            ..wgpu::DeviceDescriptor::default()
        })
        .await
        .map_err(|err| JsError::new(&format!("no WebGPU device: {err}")))?;
    let context = GpuContext::from_device(device, queue)?;
    // One thread: the Arc is what the narrowphase takes everywhere.
    #[allow(clippy::arc_with_non_send_sync)]
    let context = Arc::new(context);
    Ok(WebGpu { context })
}

/// The particle demo: a pile of polygons, circles, capsules and rounded
/// polygons falling into a container.
#[wasm_bindgen]
pub struct Demo {
    world: World,
    backend: String,
    /// The container's corners, for the view.
    low: Vec2,
    high: Vec2,
}

#[wasm_bindgen]
impl Demo {
    /// `particles` particles from `seed`, the narrowphase on `gpu` (the
    /// page's WebGPU) or, without it, on the CPU; checked against the CPU
    /// reference every frame.
    #[wasm_bindgen(constructor)]
    pub fn new(particles: usize, seed: u32, gpu: Option<WebGpu>) -> Result<Demo, JsError> {
        let scene = DemoScene::with_shapes(particles, u64::from(seed), DemoShapes::ALL)?;
        let (narrowphase, backend) = match gpu {
            Some(gpu) => {
                let adapter = gpu.adapter();
                let kernel = GpuNarrowphase::new(gpu.context, GpuOptions::default())?;
                (
                    Narrowphase::with_gpu(kernel),
                    format!("WebGPU on {adapter}"),
                )
            }
            None => (
                Narrowphase::new(BackendKind::Cpu)?,
                "CPU (WebAssembly, one thread)".to_string(),
            ),
        };
        let (mut low, mut high) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
        for body in &scene.bodies[..scene.walls] {
            let Some(shape) = scene.shapes.get(body.shape) else {
                continue;
            };
            let reach = Vec2::splat(shape.bounding_radius());
            low = low.min(body.position - reach);
            high = high.max(body.position + reach);
        }
        let mut world = World::new(
            scene.shapes,
            scene.bodies,
            narrowphase,
            WorldOptions::default(),
        )?;
        world.set_check(true);
        Ok(Demo {
            world,
            backend,
            low,
            high,
        })
    }

    /// Starts a frame: true when it is done (the CPU), false when the GPU's
    /// results are to be collected with [`poll_frame`](Self::poll_frame).
    pub fn begin_frame(&mut self) -> Result<bool, JsError> {
        Ok(self.world.begin_step(DEMO_DT)?.is_some())
    }

    /// The started frame finished if the GPU's results are in: true when
    /// the frame is done. Never waits.
    pub fn poll_frame(&mut self) -> Result<bool, JsError> {
        Ok(self.world.poll_step()?.is_some())
    }

    /// Frames run.
    pub fn frames(&self) -> u64 {
        self.world.run_stats().frames
    }

    /// The last frame's candidate pairs.
    pub fn pairs(&self) -> usize {
        self.world.frame_stats().pairs
    }

    /// The last frame's reported pairs.
    pub fn hits(&self) -> usize {
        self.world.frame_stats().hits
    }

    /// The last frame's narrowphase time in milliseconds (on the GPU: from
    /// the submission to the results, as the page's clock sees it).
    pub fn narrowphase_ms(&self) -> f64 {
        self.world.frame_stats().times.kernel.as_secs_f64() * 1e3
    }

    /// The disagreements with the CPU reference so far.
    pub fn disagreements(&self) -> usize {
        self.world
            .check()
            .map_or(0, |agreement| agreement.disagreements.len())
    }

    /// The first disagreement, in words, if any.
    pub fn first_disagreement(&self) -> Option<String> {
        self.world
            .check()
            .and_then(|agreement| agreement.disagreements.first().cloned())
    }

    /// Where the narrowphase runs, in words.
    pub fn backend(&self) -> String {
        self.backend.clone()
    }

    /// Draws the bodies on a canvas of `width` by `height` pixels: each
    /// shape's core filled and stroked as wide as twice its radius with
    /// round joins and caps, which is the rounded shape exactly (a segment
    /// core so stroked is a capsule); circles as circles; the pairs
    /// reported this frame in orange.
    pub fn draw(&self, canvas: &CanvasRenderingContext2d, width: f64, height: f64) {
        let size = self.high - self.low;
        let scale = f64::from((width as f32 / size.x).min(height as f32 / size.y)) * 0.96;
        let origin = (
            0.5 * (width - scale * f64::from(size.x)),
            0.5 * (height + scale * f64::from(size.y)),
        );
        let to_canvas = |p: Vec2| {
            (
                origin.0 + scale * f64::from(p.x - self.low.x),
                origin.1 - scale * f64::from(p.y - self.low.y),
            )
        };
        canvas.set_fill_style_str("#101418");
        canvas.fill_rect(0.0, 0.0, width, height);
        let mut touching = vec![false; self.world.bodies().len()];
        for hit in self.world.hits().iter().filter(|hit| hit.depth > 0.0) {
            touching[hit.a as usize] = true;
            touching[hit.b as usize] = true;
        }
        canvas.set_line_join("round");
        canvas.set_line_cap("round");
        for (index, body) in self.world.bodies().iter().enumerate() {
            let Some(shape) = self.world.shapes().get(body.shape) else {
                continue;
            };
            let colour = if body.is_static() {
                "#5a6470"
            } else if touching[index] {
                "#f0a040"
            } else {
                "#58a6d8"
            };
            canvas.set_fill_style_str(colour);
            canvas.set_stroke_style_str(colour);
            canvas.begin_path();
            let radius = f64::from(shape.radius()) * scale;
            match shape.edges() {
                Some(edges) => {
                    let (sin, cos) = body.angle.sin_cos();
                    for (k, edge) in edges.iter().enumerate() {
                        let v = edge.vertex;
                        let world =
                            body.position + Vec2::new(cos * v.x - sin * v.y, sin * v.x + cos * v.y);
                        let (x, y) = to_canvas(world);
                        if k == 0 {
                            canvas.move_to(x, y);
                        } else {
                            canvas.line_to(x, y);
                        }
                    }
                    canvas.close_path();
                    canvas.fill();
                    canvas.set_line_width((2.0 * radius).max(1.0));
                    canvas.stroke();
                }
                None => {
                    let (x, y) = to_canvas(body.position);
                    let _ = canvas.arc(x, y, radius, 0.0, std::f64::consts::TAU);
                    canvas.fill();
                }
            }
        }
    }
}
