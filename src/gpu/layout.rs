//! The GPU's data, byte for byte: `#[repr(C)]` + `Pod` mirrors of the WGSL
//! structs, with explicit padding, `u32` for flags, 16-byte multiples.
//!
//! `tests/gpu_layout.rs` compares every size and field offset here with
//! naga's layout of `shaders/sat.wgsl`, without a GPU. The shape library's
//! records ([`ShapeRecord`](crate::ShapeRecord),
//! [`EdgeRecord`](crate::EdgeRecord)) and the 8-byte [`Pair`](crate::Pair)
//! are uploaded as the CPU stores them.

use bytemuck::{Pod, Zeroable};

/// The SAT kernel's source.
pub const SAT_WGSL: &str = include_str!("../../shaders/sat.wgsl");

/// A body as the kernel reads it: where it is and how it is turned (cosine
/// and sine, computed once on the CPU), and its shape.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BodyRecord {
    pub position: [f32; 2],
    /// `(cos, sin)` of the angle.
    pub rotation: [f32; 2],
    pub shape: u32,
    pub _pad0: u32,
    pub _pad1: u32,
    pub _pad2: u32,
}

/// One reported pair, as the kernel writes it: 16 bytes. The normal is not
/// sent; the CPU rebuilds it exactly from the axis feature.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct HitRecord {
    /// Index of the pair in the whole batch.
    pub pair: u32,
    /// [`Axis::pack`](crate::Axis::pack): bit 31 for owner B, the feature below.
    pub axis: u32,
    pub depth: f32,
    pub _pad: u32,
}

/// Per-window parameters (a uniform buffer).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Params {
    /// Index of the window's first pair in the batch.
    pub pair_base: u32,
    /// Pairs in the window.
    pub pair_count: u32,
    /// Workgroups along x of the 2D dispatch.
    pub groups_x: u32,
    /// Records the output buffer holds.
    pub capacity: u32,
    pub margin: f32,
    pub _pad0: u32,
    pub _pad1: u32,
    pub _pad2: u32,
}
