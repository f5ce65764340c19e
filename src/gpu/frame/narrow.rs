//! The frame's narrowphase and the stage after it: the 2D SAT kernel run by
//! indirect dispatch on each kind's pairs, as the broadphase partitioned
//! them (`shaders/frame/narrow.wgsl` + `shaders/d2/sat.wgsl`), and the
//! outcomes compacted in pair order (`shaders/frame/pairs.wgsl`).

use bytemuck::{Pod, Zeroable};

use super::super::context::GpuContext;
use super::super::dimension::{float_texture, uint_texture};
use super::super::error::GpuError;
use super::kernels::{Kernel, storage, uniform};

/// The frame's narrowphase and manifolds: `common.wgsl`, its prologue,
/// `d2/sat.wgsl`, then
/// the manifolds (which use `d2/sat.wgsl`'s math).
pub const NARROW_WGSL: &str = concat!(
    include_str!("../../../shaders/frame/common.wgsl"),
    "\n",
    include_str!("../../../shaders/frame/narrow.wgsl"),
    "\n",
    include_str!("../../../shaders/d2/sat.wgsl"),
    "\n",
    include_str!("../../../shaders/d2/rounded.wgsl"),
    "\n",
    include_str!("../../../shaders/frame/manifold.wgsl")
);

/// The compaction's source.
pub const PAIRS_WGSL: &str = concat!(
    include_str!("../../../shaders/frame/common.wgsl"),
    "\n",
    include_str!("../../../shaders/frame/pairs.wgsl")
);

/// The 2D kernel's entry points, by kind (src/gpu/d2/mod.rs).
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
    /// Pairs a kind's region of the partition holds.
    pub capacity: u32,
}

/// Mirror of `PairsParams` in `pairs.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PairsParams {
    /// Where the pair count is in the state buffer (in words).
    pub count_index: u32,
    /// Pairs the buffers hold.
    pub capacity: u32,
    /// Padding.
    pub _pad0: u32,
    /// Padding to 16 bytes.
    pub _pad1: u32,
}

/// A reported pair as the frame writes it (`FrameHit` in `pairs.wgsl`):
/// the bodies, the axis packed as [`Axis::pack`](crate::d2::Axis::pack), the
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

/// A hit's contact manifold as the frame writes it (`FrameManifold` in
/// `manifold.wgsl`), at the hit's index: the world normal from A to B and
/// one or two points (midway between the surfaces, their depths and feature
/// ids), as [`Manifold`](crate::d2::Manifold) has them. 48 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct FrameManifold {
    /// Unit normal from A to B.
    pub normal: [f32; 2],
    /// The first point.
    pub point0: [f32; 2],
    /// The second point (when `count` is 2).
    pub point1: [f32; 2],
    /// The first point's depth.
    pub depth0: f32,
    /// The second point's depth.
    pub depth1: f32,
    /// The first point's feature id ([`contact_id`](crate::d2::contact_id)).
    pub id0: u32,
    /// The second point's feature id.
    pub id1: u32,
    /// Points: 1 or 2.
    pub count: u32,
    /// Padding to 48 bytes.
    pub _pad: u32,
}

impl FrameManifold {
    /// As the CPU's [`Manifold`](crate::d2::Manifold) of pair `pair` between
    /// bodies `a` and `b`.
    pub fn to_manifold(&self, pair: u32, a: u32, b: u32) -> crate::d2::Manifold {
        let mut manifold = crate::d2::Manifold::new(pair, a, b, glam::Vec2::from(self.normal));
        let points = [
            (self.point0, self.depth0, self.id0),
            (self.point1, self.depth1, self.id1),
        ];
        for &(point, depth, id) in points.iter().take(self.count.min(2) as usize) {
            manifold.push(crate::d2::ContactPoint {
                point: glam::Vec2::from(point),
                depth,
                id,
            });
        }
        manifold
    }
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
            storage(7, false),
            storage(8, true),
            storage(9, true),
            storage(10, false),
        ],
        &[
            ENTRY_POINTS[0],
            ENTRY_POINTS[1],
            ENTRY_POINTS[2],
            ENTRY_POINTS[3],
            ENTRY_POINTS[4],
            ENTRY_POINTS[5],
            "manifold",
        ],
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
            storage(4, false),
            storage(5, true),
            storage(6, true),
            storage(7, false),
        ],
        &["compact"],
        &[],
    )
}
