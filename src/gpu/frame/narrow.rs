//! The frame's narrowphase and the stages around it: the pairs partitioned
//! by kind (`shaders/frame/pairs.wgsl`), the 2D SAT kernel run on them by
//! indirect dispatch (`shaders/frame/narrow.wgsl` + `shaders/sat.wgsl`),
//! and the outcomes compacted in pair order.

use bytemuck::{Pod, Zeroable};

use super::super::context::GpuContext;
use super::super::dimension::{float_texture, uint_texture};
use super::super::error::GpuError;
use super::kernels::{Kernel, storage, uniform};

/// The narrowphase prologue's source (loaded before `sat.wgsl`).
pub const NARROW_WGSL: &str = concat!(
    include_str!("../../../shaders/frame/narrow.wgsl"),
    "\n",
    include_str!("../../../shaders/sat.wgsl")
);

/// The partition and compaction's source.
pub const PAIRS_WGSL: &str = include_str!("../../../shaders/frame/pairs.wgsl");

/// The 2D kernel's entry points, by kind (src/gpu/planar.rs).
pub(crate) const ENTRY_POINTS: [&str; 6] = [
    "polygons8",
    "polygon_circle8",
    "circles",
    "general",
    "polygons16",
    "polygon_circle16",
];

/// Mirror of `NarrowParams` in `narrow.wgsl`: one kind's dispatch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct NarrowParams {
    /// The entry point's kind of pair.
    pub kind: u32,
    /// Polygons with more vertices than this on both sides merge.
    pub merge_threshold: u32,
    /// The speculative margin.
    pub margin: f32,
    /// Padding to 16 bytes.
    pub _pad: u32,
}

/// Mirror of `PairsParams` in `pairs.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PairsParams {
    /// Where the pair count is in the state buffer (in words).
    pub count_index: u32,
    /// Pairs the buffers hold.
    pub capacity: u32,
    /// The partition pass's histogram tiles.
    pub tiles: u32,
    /// Polygons with more vertices than this on both sides merge.
    pub merge_threshold: u32,
    /// The narrowphase's workgroup size.
    pub workgroup_size: u32,
    /// Workgroups per dimension the device allows.
    pub max_groups: u32,
    /// Padding.
    pub _pad0: u32,
    /// Padding to 32 bytes.
    pub _pad1: u32,
}

/// A reported pair as the frame writes it (`FrameHit` in `pairs.wgsl`):
/// the bodies, the axis packed as [`Axis::pack`](crate::Axis::pack), the
/// depth. 16 bytes, in pair order.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct FrameHit {
    /// Body A (the lower index).
    pub a: u32,
    /// Body B.
    pub b: u32,
    /// The axis, packed.
    pub axis: u32,
    /// The depth (> 0 penetrating).
    pub depth: f32,
}

pub(crate) fn narrow_kernel(context: &GpuContext, workgroup_size: u32) -> Result<Kernel, GpuError> {
    Kernel::new(
        context,
        "narrowphase",
        NARROW_WGSL,
        &[
            uniform(0, true),
            float_texture(1),
            float_texture(2),
            uint_texture(3),
            storage(4, true),
            storage(5, true),
            storage(6, false),
            storage(8, true),
        ],
        &ENTRY_POINTS,
        &[("WORKGROUP_SIZE", f64::from(workgroup_size))],
    )
}

pub(crate) fn pairs_kernel(context: &GpuContext) -> Result<Kernel, GpuError> {
    Kernel::new(
        context,
        "pairs",
        PAIRS_WGSL,
        &[
            uniform(0, true),
            storage(1, true),
            storage(2, false),
            storage(3, true),
            storage(4, false),
            storage(5, false),
            storage(6, false),
            storage(7, false),
            uint_texture(9),
        ],
        &["classify", "plan", "flags", "compact"],
        &[],
    )
}
