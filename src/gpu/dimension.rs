//! What the GPU narrowphase needs of a dimension: its kernel, its shape and
//! body data on the device, its batches and its results.
//!
//! Everything else — windows, sorting by kind, output sizing and overflow
//! re-runs, the compacted readback put back in pair order, recording into
//! the caller's encoder, error capture — is one implementation,
//! [`GpuSat`](super::GpuSat), for both: [`Planar`] (2D, `shaders/d2/sat.wgsl`)
//! and [`Spatial`] (3D, `shaders/d3/sat.wgsl` with `shaders/d3/hardware.wgsl`,
//! and, for the kinds written for software adapters, with
//! `shaders/d3/software.wgsl`), each loaded after the shared
//! `shaders/batch.wgsl`. The trait is sealed: its hidden items are the
//! narrowphase's internals.

use super::context::GpuContext;
use super::error::GpuError;
use super::kinds::BodyClasses;
use crate::core::pair::Pair;

mod sealed {
    pub trait Sealed {}
}

/// What one upload of a batch's scene did.
pub struct Upload {
    /// A texture grew (the bind group must be made again).
    pub grew: bool,
    /// Bytes written.
    pub bytes: u64,
}

/// A dimension the GPU narrowphase runs in: [`Planar`] or [`Spatial`].
pub trait Dimension: sealed::Sealed + Sized + 'static {
    /// A validated batch of candidate pairs.
    type Batch<'a>;
    /// One reported pair, as the CPU backends give it.
    type Hit: Copy + std::fmt::Debug + PartialEq;
    #[doc(hidden)]
    type Resources;
    #[doc(hidden)]
    const LABEL: &'static str;
    #[doc(hidden)]
    const SOURCE: &'static str;
    /// The software adapters' module, where the kernel has one: the code
    /// that exists for llvmpipe only, created only where a pair takes one
    /// of [`Self::SOFTWARE_KINDS`], whose entry points are in it (and not
    /// in [`Self::SOURCE`]); its label.
    #[doc(hidden)]
    const SOFTWARE_SOURCE: Option<(&'static str, &'static str)>;
    /// The kinds whose entry points are in the software module.
    #[doc(hidden)]
    const SOFTWARE_KINDS: &'static [usize];
    /// The entry points, one per kind of pair (the index is the kind), then,
    /// where the kernel defers pairs, the deferred pairs' (at `PAIR_KINDS`).
    #[doc(hidden)]
    const ENTRY_POINTS: &'static [&'static str];
    /// The kinds whose pairs the kernel may defer to a second dispatch.
    #[doc(hidden)]
    const DEFERRING_KINDS: &'static [usize];
    /// The kernel's own bindings: textures at 1 to 3 and from 7 on.
    #[doc(hidden)]
    fn scene_layout() -> Vec<wgpu::BindGroupLayoutEntry>;
    #[doc(hidden)]
    fn resources(context: &GpuContext) -> Result<Self::Resources, GpuError>;
    /// What the kernel cannot run, as an error.
    #[doc(hidden)]
    fn check(batch: &Self::Batch<'_>) -> Result<(), GpuError>;
    #[doc(hidden)]
    fn pairs<'b>(batch: &'b Self::Batch<'_>) -> &'b [Pair];
    #[doc(hidden)]
    fn margin(batch: &Self::Batch<'_>) -> f32;
    /// `Params::merge_threshold` (2D); 0 in 3D.
    #[doc(hidden)]
    fn flags(batch: &Self::Batch<'_>) -> u32;
    /// Uploads the shapes (when they changed) and the bodies, and classifies
    /// the bodies for sorting by kind, with the kinds `choice` says.
    #[doc(hidden)]
    fn upload(
        resources: &mut Self::Resources,
        context: &GpuContext,
        batch: &Self::Batch<'_>,
        flags_and_rows: (u32, u32),
        choice: KindChoice,
        classes: &mut BodyClasses,
    ) -> Result<Upload, GpuError>;
    /// Every kind a pair may take with the kinds `choice` says on an
    /// adapter that is software or not (`software_adapter`), in order: what
    /// `GpuSat::compile_all_kinds` compiles.
    #[doc(hidden)]
    fn kinds_in_use(choice: KindChoice, software_adapter: bool) -> Vec<usize>;
    /// The textures to bind, by binding.
    #[doc(hidden)]
    fn scene_bindings(resources: &Self::Resources) -> Vec<(u32, &wgpu::TextureView)>;
    #[doc(hidden)]
    fn device_bytes(resources: &Self::Resources) -> u64;
    /// A result from the kernel's record (pair slot, packed axis, depth).
    #[doc(hidden)]
    fn hit(pair: u32, axis: u32, depth: f32) -> Self::Hit;
    #[doc(hidden)]
    fn hit_pair(hit: &Self::Hit) -> u32;
    #[doc(hidden)]
    fn set_hit_pair(hit: &mut Self::Hit, pair: u32);
}

/// 2D: convex polygons and circles ([`crate::d2::Batch`], [`crate::d2::SatHit`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Planar;

/// 3D: convex hulls and spheres ([`crate::d3::Batch`], [`crate::d3::SatHit`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spatial;

impl sealed::Sealed for Planar {}
impl sealed::Sealed for Spatial {}

/// A sampled, unfilterable 2D texture binding of the compute stage.
pub(crate) fn texture_entry(
    binding: u32,
    sample_type: wgpu::TextureSampleType,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Texture {
            sample_type,
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

/// A float texture binding.
pub(crate) fn float_texture(binding: u32) -> wgpu::BindGroupLayoutEntry {
    texture_entry(
        binding,
        wgpu::TextureSampleType::Float { filterable: false },
    )
}

/// A `u32` texture binding.
pub(crate) fn uint_texture(binding: u32) -> wgpu::BindGroupLayoutEntry {
    texture_entry(binding, wgpu::TextureSampleType::Uint)
}

/// Which of a kernel's kinds a narrowphase's pairs take.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KindChoice {
    /// The software adapters' kinds (3D: the register-cached hull kinds).
    pub software: bool,
    /// 2D: every pair with a polygon through the loop kind (`general`)
    /// instead of the straight-line kinds (`GpuOptions::polygon_loops`).
    pub polygon_loops: bool,
}
