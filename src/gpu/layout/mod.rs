//! The GPU's data, byte for byte.
//!
//! Storage-buffer records are `#[repr(C)]` + `Pod` mirrors of the WGSL
//! structs, with explicit padding, `u32` for flags, 16-byte multiples;
//! the layout tests (`tests/it/gpu/layout.rs`) compare every size and field offset with naga's
//! layout of `shaders/d2/sat.wgsl`, without a GPU. The 8-byte
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
//! | body transforms | rgba32float | [`d2::TransformTexel`]: position.xy, cos, sin |
//! | body shapes | rgba32uint | [`d2::ShapeTexel`]: the body's [`ShapeRecord`](crate::d2::ShapeRecord) |
//!
//! The 3D kernel's textures: the hull library as floats and as integers
//! (see [`d3::HullRecord`]), per body its transform ([`d3::TransformTexels`]) and
//! its shape's [`d3::HullRecord`].

use bytemuck::{Pod, Zeroable};

pub mod constants;
pub mod d2;
pub mod d3;

pub use super::frame::{
    GRID_WGSL, GridParams, NARROW_WGSL, NarrowParams, PAIRS_WGSL, PairsParams, SCAN_SUBGROUPS_WGSL,
    SCAN_WGSL, ScanParams,
};

/// What every SAT kernel shares: the pairs, the compacted output, the
/// parameters, the entry points' prologue and epilogue.
pub const BATCH_WGSL: &str = include_str!("../../../shaders/batch.wgsl");

/// Texels per texture row, as a power of two (`TEXTURE_WIDTH_LOG2` in the kernel).
pub const TEXTURE_WIDTH_LOG2: u32 = 11;
/// Texels per texture row.
pub const TEXTURE_WIDTH: u32 = 1 << TEXTURE_WIDTH_LOG2;

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
    /// (`shaders/d3/software.wgsl`, "Deferred pairs"). 2D: unused.
    pub deferral: u32,
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

/// Every kernel the host builds: its name (the files it is made of) and
/// its source, as the device gets it (the scan's with subgroup operations
/// where the device has them). Validate them with [`naga_validator`].
pub fn kernels() -> [(&'static str, &'static str); 8] {
    [
        ("batch.wgsl + d2/sat.wgsl", d2::SAT_WGSL),
        (
            "batch.wgsl + d3/sat.wgsl + d3/hardware.wgsl + d3/rounded.wgsl",
            d3::SAT_WGSL,
        ),
        (
            "batch.wgsl + d3/sat.wgsl + d3/software.wgsl",
            d3::SAT_SOFTWARE_WGSL,
        ),
        ("frame/grid", GRID_WGSL),
        ("frame/narrow", NARROW_WGSL),
        ("frame/pairs", PAIRS_WGSL),
        ("frame/scan", SCAN_WGSL),
        ("frame/scan_subgroups", SCAN_SUBGROUPS_WGSL),
    ]
}

/// A naga validator for the kernels: every check, and the subgroup
/// operations the scan uses where the device has them. Not on wasm32,
/// where wgpu hands shaders to the browser's WebGPU and has no naga.
#[cfg(not(target_arch = "wasm32"))]
pub fn naga_validator() -> wgpu::naga::valid::Validator {
    use wgpu::naga::valid::{
        Capabilities, ShaderStages, SubgroupOperationSet, ValidationFlags, Validator,
    };
    let mut validator = Validator::new(
        ValidationFlags::all(),
        Capabilities::default() | Capabilities::SUBGROUP,
    );
    validator
        .subgroup_stages(ShaderStages::COMPUTE)
        .subgroup_operations(SubgroupOperationSet::all());
    validator
}
