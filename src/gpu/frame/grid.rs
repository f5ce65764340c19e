//! The broadphase's grid: its source and parameters, the bind group of its
//! stages (bounds, scatter, find_pairs, find_large), and how far a body
//! reaches.

use bytemuck::{Pod, Zeroable};

use super::{GpuFrame, range, whole};
use crate::d2::shape::{Shape, ShapeSet};
use crate::gpu::layout::FrameBody;

/// The broadphase's source.
pub const GRID_WGSL: &str = concat!(
    include_str!("../../../shaders/frame/common.wgsl"),
    "\n",
    include_str!("../../../shaders/frame/grid.wgsl")
);

/// Invocations per workgroup of `find_pairs` and `find_large`, whose
/// workgroups list their pairs together (`GROUP_SIZE` in `grid.wgsl`); the
/// other stages run 256.
pub(crate) const FIND_GROUP_SIZE: u32 = 64;
/// The most loop iterations one invocation of the grid runs: a body whose
/// cells hold more is an error, not a partial answer (`MAX_SCAN` in
/// `grid.wgsl`; lavapipe silently ends an invocation's loops after 65,535).
pub(crate) const MAX_SCAN: u32 = 60_000;
/// Cells per axis a small body may span (grid.wgsl: MAX_SPAN).
pub(crate) const MAX_SPAN: f32 = 4.0;
/// Large bodies a frame can hold: each body loops over them once.
pub const MAX_LARGE_BODIES: u32 = 4096;

/// Mirror of `GridParams` in `grid.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GridParams {
    /// Bodies in the frame.
    pub body_count: u32,
    /// Shapes in the library (a body's shape past them is a point).
    pub shape_count: u32,
    /// Buckets minus one (a power of two minus one).
    pub bucket_mask: u32,
    /// Grid entries the entries buffer holds.
    pub entry_capacity: u32,
    /// Pairs the pairs buffers hold.
    pub pair_capacity: u32,
    /// Large bodies the state buffer's list holds.
    pub large_capacity: u32,
    /// 1: leave out pairs of two static bodies.
    pub skip_static: u32,
    /// Padding.
    pub _pad0: u32,
    /// One over the cell's side.
    pub cell_inverse: f32,
    /// The margin boxes are grown by.
    pub margin: f32,
    /// Padding.
    pub _pad1: u32,
    /// Padding to 48 bytes.
    pub _pad2: u32,
}

/// A body's box size at any rotation: its shape's bounding circle's
/// diameter, plus the margin on both sides.
pub(super) fn reach(shapes: &ShapeSet, body: &FrameBody, margin: f32) -> f32 {
    let radius = shapes.get(body.shape).map_or(0.0, Shape::bounding_radius);
    2.0 * (radius + margin)
}

impl GpuFrame {
    pub(super) fn grid_bind_group(&self, pairs: &wgpu::Buffer) -> wgpu::BindGroup {
        self.grid_kernel.bind(
            &self.context,
            "grid",
            &[
                (0, self.params.binding()),
                (1, whole(&self.bodies)),
                (2, whole(&self.shape_records)),
                (3, wgpu::BindingResource::TextureView(&self.edges.view)),
                (4, whole(&self.boxes)),
                (
                    5,
                    range(&self.buckets.buffer, 0, u64::from(self.bucket_count) * 4),
                ),
                (6, whole(&self.entries)),
                (7, range(pairs, 0, u64::from(self.pair_capacity) * 8)),
                (8, whole(&self.state)),
                (9, wgpu::BindingResource::TextureView(&self.transforms.view)),
                (
                    10,
                    wgpu::BindingResource::TextureView(&self.body_shapes.view),
                ),
            ],
        )
    }
}
