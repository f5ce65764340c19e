//! The broadphase's grid: its source and parameters, the bind group of its
//! stages (bounds, scatter, count_pairs, write_pairs, write_large), and how
//! far a body reaches.

use bytemuck::{Pod, Zeroable};

use super::{GpuFrame, range, whole};
use crate::d2::shape::{Shape, ShapeSet};
use crate::gpu::layout::FrameBody;

/// The broadphase's source.
pub const GRID_WGSL: &str = concat!(
    include_str!("../../../shaders/frame/common.wgsl"),
    "\n",
    include_str!("../../../shaders/workgroup_scan.wgsl"),
    "\n",
    include_str!("../../../shaders/frame/grid.wgsl")
);

/// Invocations per workgroup of every grid stage.
pub(crate) const GRID_GROUP_SIZE: u32 = 256;
/// Invocations that walk one body's cells together in `count_pairs_team`
/// and `write_pairs_team` (`TEAM` in `grid.wgsl`).
pub(crate) const TEAM: u32 = 32;
/// Partners one invocation of `write_pairs` keeps in order as it walks
/// (`KEPT` in `grid.wgsl`): an owner of more appends them and heap-sorts
/// them in place.
pub(crate) const KEPT: u32 = 32;
/// The most workgroups `count_pairs_team` and `write_pairs_team` run (524,288
/// invocations: about twice what an H100 holds at once); past 16,384
/// bodies each takes several rounds of bodies.
pub(crate) const TEAM_GROUPS_MOST: u32 = 2048;
/// Partners a team sorts in workgroup memory (`TEAM_LIST` in `grid.wgsl`):
/// an owner of more has one invocation append them and heap-sort them in
/// place.
pub(crate) const TEAM_LIST: u32 = 64;
/// The most loop iterations one invocation of the grid runs (its walk over
/// its cells' buckets and the large bodies, the writes and the sort of its
/// partners): a body whose cells hold more is an error, not a partial
/// answer (`MAX_SCAN` in `grid.wgsl`; lavapipe silently ends an
/// invocation's loops after 65,535).
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
    /// Polygons with more vertices than this on both sides merge (the
    /// pairs' kinds).
    pub merge_threshold: u32,
    /// One over the cell's side.
    pub cell_inverse: f32,
    /// The margin boxes are grown by.
    pub margin: f32,
    /// The narrowphase's workgroup size (its dispatch arguments).
    pub narrow_workgroup: u32,
    /// Workgroups per dimension the device allows.
    pub max_groups: u32,
}

/// Bytes of the partition for `capacity` pairs: a region a kind.
pub(super) fn partition_bytes(capacity: u32) -> u64 {
    u64::from(capacity) * 4 * super::narrow::ENTRY_POINTS.len() as u64
}

/// A body's box size at any rotation: its shape's bounding circle's
/// diameter, plus the margin on both sides.
pub(super) fn reach(shapes: &ShapeSet, body: &FrameBody, margin: f32) -> f32 {
    let radius = shapes.get(body.shape).map_or(0.0, Shape::bounding_radius);
    2.0 * (radius + margin)
}

impl GpuFrame {
    pub(super) fn grid_bind_group(&self) -> wgpu::BindGroup {
        self.grid_kernel.bind(
            &self.context,
            "grid",
            &[
                (0, self.params.binding()),
                (1, whole(&self.bodies)),
                (2, whole(&self.shape_records)),
                (3, wgpu::BindingResource::TextureView(&self.edges.view)),
                (4, whole(&self.boxes)),
                (5, range(&self.buckets.buffer, 0, self.tally_end() * 4)),
                (6, whole(&self.entries)),
                (
                    7,
                    range(&self.pairs.buffer, 0, u64::from(self.pair_capacity) * 8),
                ),
                (8, whole(&self.state)),
                (9, wgpu::BindingResource::TextureView(&self.transforms.view)),
                (
                    10,
                    wgpu::BindingResource::TextureView(&self.body_shapes.view),
                ),
                (
                    11,
                    range(
                        &self.partition.buffer,
                        0,
                        partition_bytes(self.pair_capacity),
                    ),
                ),
            ],
        )
    }

    /// Words of the buckets buffer in use: the buckets, then a tally per
    /// body (at least one, so that the tallies' binding is never empty).
    pub(super) fn tally_end(&self) -> u64 {
        u64::from(self.bucket_count) + u64::from(self.body_count.max(1))
    }
}
