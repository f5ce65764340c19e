//! The GPU's data, byte for byte.
//!
//! Storage-buffer records are `#[repr(C)]` + `Pod` mirrors of the WGSL
//! structs, with explicit padding, `u32` for flags, 16-byte multiples;
//! `tests/gpu_layout.rs` compares every size and field offset with naga's
//! layout of `shaders/sat.wgsl`, without a GPU. The 8-byte
//! [`Pair`](crate::Pair) is uploaded as the CPU stores it. Not a stable API:
//! public for that test.
//!
//! Shapes and bodies, which invocations read at scattered places, are
//! textures of 16-byte texels, [`TEXTURE_WIDTH`] texels to a row (texel `i`
//! at `(i % TEXTURE_WIDTH, i / TEXTURE_WIDTH)`):
//!
//! | texture | format | texel |
//! |---|---|---|
//! | edges | rgba32float | an [`EdgeRecord`](crate::d2::EdgeRecord): vertex.xy, normal.zw |
//! | body transforms | rgba32float | [`TransformTexel`]: position.xy, cos, sin |
//! | body shapes | rgba32uint | [`ShapeTexel`]: the body's [`ShapeRecord`] |
//!
//! The 3D kernel's textures: the hull library as floats and as integers
//! (see [`HullRecord`]), per body its transform ([`Transform3Texels`]) and
//! its shape's [`HullRecord`].

use bytemuck::{Pod, Zeroable};

use crate::d2::math::Transform;
use crate::d2::shape::ShapeRecord;
use crate::d3;

pub use super::frame::{
    GRID_WGSL, GridParams, NARROW_WGSL, NarrowParams, PAIRS_WGSL, PairsParams, SCAN_WGSL,
    SORT_WGSL, ScanParams, SortParams,
};

/// What every SAT kernel shares: the pairs, the compacted output, the
/// parameters, the entry points' prologue and epilogue.
pub const BATCH_WGSL: &str = include_str!("../../shaders/batch.wgsl");

/// The 2D SAT kernel's source: `batch.wgsl`, then `sat.wgsl`.
pub const SAT_WGSL: &str = concat!(
    include_str!("../../shaders/batch.wgsl"),
    "\n",
    include_str!("../../shaders/sat.wgsl")
);

/// The 3D SAT kernel's source: `batch.wgsl`, then `sat3.wgsl`.
pub const SAT3_WGSL: &str = concat!(
    include_str!("../../shaders/batch.wgsl"),
    "\n",
    include_str!("../../shaders/sat3.wgsl")
);

/// The 3D kernel's deferred pairs (`shaders/sat3.wgsl`, "Deferred pairs"),
/// the same constants as there (tests/gpu_layout.rs checks): where the
/// count of pairs deferred sits among a window's deferral words
/// (`DEFERRAL_COUNT`), the workgroups along x every device allows, and the
/// deferred dispatch's invocations per workgroup (one llvmpipe SIMD group;
/// the kernel says why).
pub const DEFERRAL_COUNT_WORD: u32 = 3;
pub const MAX_DEFERRED_GROUPS: u32 = 65_535;
pub const DEFERRED_WORKGROUP_SIZE: u32 = 8;

/// The most hot faces a hull may have for the 3D kernel's large kinds to
/// find its kept edges face by face (`FACE_BY_FACE_MOST` in
/// `shaders/sat3.wgsl`, "Kept edges face by face"; tests/gpu_layout.rs
/// checks): beyond, edge by edge.
pub const FACE_BY_FACE_MOST: u32 = 32;

/// Texels per texture row, as a power of two (`TEXTURE_WIDTH_LOG2` in the kernel).
pub const TEXTURE_WIDTH_LOG2: u32 = 11;
/// Texels per texture row.
pub const TEXTURE_WIDTH: u32 = 1 << TEXTURE_WIDTH_LOG2;

/// A body's transform: position, then the cosine and sine of its angle
/// (computed once on the CPU).
pub type TransformTexel = [f32; 4];

/// A body's shape record, as `u32` bits: first edge, vertex count (0 for a
/// circle), radius bits, size bits.
pub type ShapeTexel = [u32; 4];

/// A body's transform texel.
pub fn transform_texel(xf: &Transform) -> TransformTexel {
    [xf.p.x, xf.p.y, xf.q.c, xf.q.s]
}

/// A body's shape texel.
pub fn shape_texel(record: &ShapeRecord) -> ShapeTexel {
    [
        record.first,
        record.count,
        record.radius.to_bits(),
        record.size.to_bits(),
    ]
}

/// One reported pair, as the kernel writes it: 16 bytes. The normal is not
/// sent; the CPU rebuilds it exactly from the axis feature.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct HitRecord {
    /// The pair's slot in its window (the host maps it back to the batch).
    pub pair: u32,
    /// [`Axis::pack`](crate::d2::Axis::pack): bit 31 for owner B, the feature below.
    pub axis: u32,
    /// The depth.
    pub depth: f32,
    /// Padding to 16 bytes.
    pub _pad: u32,
}

/// The parameters of one dispatch: one kind of pair in one window (a
/// uniform buffer, at a dynamic offset per window and kind).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Params {
    /// The slot of this kind's first pair in the window's pairs.
    pub pair_base: u32,
    /// Pairs of this kind in the window.
    pub pair_count: u32,
    /// Workgroups along x of the 2D dispatch.
    pub groups_x: u32,
    /// Records the window's output holds.
    pub capacity: u32,
    /// The speculative margin.
    pub margin: f32,
    /// Polygons with more vertices than this on both sides merge.
    pub merge_threshold: u32,
    /// The window's counter, in the counters buffer.
    pub window: u32,
    /// 3D: where the window's deferral words start in the counters buffer
    /// (`shaders/sat3.wgsl`, "Deferred pairs"). 2D: unused.
    pub deferral: u32,
}

/// A 3D shape as the 3D kernel reads it: two rgba32uint texels, copied per
/// body (`body_shapes`, texels `2 body` and `2 body + 1`).
///
/// A hull's data sits at `float_base` in the `hull_floats` texture
/// (rgba32float): its vertices (`xyz`), then its face planes (unit normal,
/// offset), then its edges' face normals (`f0`'s `u`, `f1`'s `v`), two
/// edges to three texels (`u0.xyz, v0.x`; `v0.yz, u1.xy`; `u1.z, v1.xyz`),
/// then its inner ball (centre, radius: the bound that lets
/// the face and edge queries pass over faces and edges), then each edge's
/// record, three texels (`u.xyz, u . p`; `v.xyz, v . p` with `p` its
/// first vertex: the edge's bound in the hull's own frame; `p.xyz, 0`: what
/// the edge query reads of an edge, adjacent), then the face
/// bound's `k` and `delta` (one texel), then each run of eight faces' cone
/// (axis, cosine; one texel a run); and at `int_base` in the
/// `hull_ints` texture (rgba32uint): one texel per edge (`v0`, `v1`, `f0`,
/// `f1`), one per face (where its loop starts among the loop indices, its
/// length; face 0's spare slots say where the Gauss-map grid is, face 1's
/// where the edges' faces are, face 2's where the face queries' starts
/// are), then the faces' loops, four vertex indices to a texel, the grid's
/// lists where it has one, the run each face query starts at per direction
/// cell (96 bytes, four to a u32), and each edge's faces as
/// `f0 | f1 << 16`, four edges to a texel. A sphere has `vertex_count` 0.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct HullRecord {
    /// The hull's first texel in `hull_floats`.
    pub float_base: u32,
    /// Vertices (0 for a sphere).
    pub vertex_count: u32,
    /// Faces.
    pub face_count: u32,
    /// Edges.
    pub edge_count: u32,
    /// The hull's first texel in `hull_ints`.
    pub int_base: u32,
    /// A sphere's radius (0 for a hull).
    pub radius: f32,
    /// The shape's size (for the tolerances).
    pub size: f32,
    /// A hull's reach: the largest distance of a vertex from its origin,
    /// rounded up (0 for a sphere), for the edge query's slack.
    pub reach: f32,
}

/// A 3D body's shape texels.
pub fn hull_record_texels(record: &HullRecord) -> [[u32; 4]; 2] {
    bytemuck::cast(*record)
}

/// A 3D body's transform: three rgba32float texels, each a column of the
/// rotation matrix with one coordinate of the position:
/// `(c0, p.x), (c1, p.y), (c2, p.z)`.
pub type Transform3Texels = [[f32; 4]; 3];

/// A 3D body's transform texels.
pub fn transform3_texels(xf: &d3::Transform) -> Transform3Texels {
    let (c0, c1, c2) = (xf.r.c0, xf.r.c1, xf.r.c2);
    [
        [c0.x, c0.y, c0.z, xf.p.x],
        [c1.x, c1.y, c1.z, xf.p.y],
        [c2.x, c2.y, c2.z, xf.p.z],
    ]
}

/// A body of a GPU-resident frame ([`GpuFrame`](crate::gpu::GpuFrame)), as
/// the caller writes it into the frame's bodies buffer: 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct FrameBody {
    /// The position of the body's origin in the world.
    pub position: [f32; 2],
    /// The cosine and sine of its angle.
    pub rotation: [f32; 2],
    /// Its shape's index in the frame's shape library.
    pub shape: u32,
    /// Its inverse mass; 0 for a static body.
    pub inv_mass: f32,
    /// Padding to 32 bytes.
    pub _pad: [u32; 2],
}
