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
//! | edges | rgba32float | an [`EdgeRecord`](crate::EdgeRecord): vertex.xy, normal.zw |
//! | body transforms | rgba32float | [`TransformTexel`]: position.xy, cos, sin |
//! | body shapes | rgba32uint | [`ShapeTexel`]: the body's [`ShapeRecord`] |

use bytemuck::{Pod, Zeroable};

use crate::math::Transform;
use crate::shape::ShapeRecord;

/// What every SAT kernel shares: the pairs, the compacted output, the
/// parameters, the entry points' prologue and epilogue.
pub const BATCH_WGSL: &str = include_str!("../../shaders/batch.wgsl");

/// The 2D SAT kernel's source: `batch.wgsl`, then `sat.wgsl`.
pub const SAT_WGSL: &str = concat!(
    include_str!("../../shaders/batch.wgsl"),
    "\n",
    include_str!("../../shaders/sat.wgsl")
);

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
    /// [`Axis::pack`](crate::Axis::pack): bit 31 for owner B, the feature below.
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
    /// Padding to 32 bytes.
    pub _pad: u32,
}
