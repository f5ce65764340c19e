//! The 3D side of the GPU narrowphase: `shaders/d3/sat.wgsl` in two
//! modules (with `hardware.wgsl`; with `software.wgsl`, the kinds written
//! for software adapters, created only where a pair takes them), the hull
//! library and the bodies as textures (see [`HullRecord`]), thirteen kinds
//! of pair (two hulls: up to 64 vertices, a larger one with or without a
//! Gauss-map grid, in loops on a hardware GPU and in straight-line code on
//! a software adapter, or, on a software adapter, both of up to 8, 16, 32
//! or 64 vertices with caches of that size, or of up to 128 with a grid and
//! a smaller cache of kept edges; a hull and a sphere either way round; two
//! spheres; in `rounded.wgsl`, a rounded hull with a hull or a sphere, a
//! capsule with a hull or a rounded hull, a capsule with a capsule or a
//! sphere).

pub(crate) mod kinds;
#[cfg(test)]
mod loop_budget;
mod texels;

use super::buffers::{GrowTexture, pad_to_rows};
use super::context::GpuContext;
use super::dimension::{Dimension, KindChoice, Spatial, Upload, float_texture, uint_texture};
use super::dispatch::DEFERRED_KIND;
use super::error::GpuError;
use super::kinds::BodyClasses;
use super::kinds::kinds_of_classes;
use super::layout::d3::{
    HullRecord, SAT_SOFTWARE_WGSL, SAT_WGSL, TransformTexels, hull_record_texels, transform_texels,
};
use crate::core::pair::Pair;
use crate::d3::{Axis, Batch, EdgeSearch, SatHit};
use kinds::{
    CAPSULE_CLASS, HullKinds, NO_GRID, ROUNDED_CLASS, SPHERE_CLASS, body_class,
    check_rounded_pairs, hull_classes, kind_of,
};
use texels::library_texels;

/// The 3D kernel's textures and the scratch they are filled from.
pub struct SpatialResources {
    hull_floats: GrowTexture,
    hull_ints: GrowTexture,
    body_transforms: GrowTexture,
    body_shapes: GrowTexture,
    /// (library id, shape count) of the shapes on the device.
    uploaded_shapes: Option<(u64, usize)>,
    /// Each shape's record, once uploaded.
    records: Vec<HullRecord>,
    /// Whether each shape's grid went up with it ([`gpu_grid`]).
    gridded: Vec<bool>,
    floats: Vec<[f32; 4]>,
    ints: Vec<[u32; 4]>,
    transform_texels: Vec<[f32; 4]>,
    shape_texels: Vec<[u32; 4]>,
}

impl Dimension for Spatial {
    type Batch<'a> = Batch<'a>;
    type Hit = SatHit;
    type Resources = SpatialResources;
    const LABEL: &'static str = "d3/sat.wgsl + d3/hardware.wgsl + d3/rounded.wgsl";
    const SOURCE: &'static str = SAT_WGSL;
    const SOFTWARE_SOURCE: Option<(&'static str, &'static str)> =
        Some(("d3/sat.wgsl + d3/software.wgsl", SAT_SOFTWARE_WGSL));
    // The register-cached kinds, the straight-line large kinds and the
    // deferred pairs' dispatch.
    const SOFTWARE_KINDS: &'static [usize] = &[3, 4, 5, 6, 7, 8, 9, DEFERRED_KIND];
    const ENTRY_POINTS: &'static [&'static str] = &[
        "hulls",
        "hull_sphere",
        "spheres",
        "hulls_large",
        "hulls_cached",
        "hulls_cached64",
        "hulls_gridded",
        "hulls_small",
        "hulls_cached16",
        "hulls_gridded32",
        "hulls_large_loops",
        "hulls_gridded_loops",
        "rounded",
        "hull_capsule",
        "capsules",
        "boxes",
        // Not a kind of pair: the large kinds' deferred pairs (DEFERRED_KIND).
        "hulls_deferred",
    ];
    // `hulls_large`, `hulls_gridded` and `hulls_gridded32`.
    const DEFERRING_KINDS: &'static [usize] = &[3, 6, 9];

    fn scene_layout() -> Vec<wgpu::BindGroupLayoutEntry> {
        vec![
            float_texture(1),
            float_texture(2),
            uint_texture(3),
            uint_texture(7),
        ]
    }

    fn resources(context: &GpuContext) -> Result<SpatialResources, GpuError> {
        let (float, uint) = (
            wgpu::TextureFormat::Rgba32Float,
            wgpu::TextureFormat::Rgba32Uint,
        );
        Ok(SpatialResources {
            hull_floats: GrowTexture::new(context, "hull float", float, 1)?,
            hull_ints: GrowTexture::new(context, "hull integer", uint, 1)?,
            body_transforms: GrowTexture::new(context, "body transform", float, 1)?,
            body_shapes: GrowTexture::new(context, "body shape", uint, 1)?,
            uploaded_shapes: None,
            records: Vec::new(),
            gridded: Vec::new(),
            floats: Vec::new(),
            ints: Vec::new(),
            transform_texels: Vec::new(),
            shape_texels: Vec::new(),
        })
    }

    fn check(batch: &Batch<'_>) -> Result<(), GpuError> {
        check_rounded_pairs(batch)?;
        match batch.edge_search() {
            EdgeSearch::Pruned | EdgeSearch::Pairwise | EdgeSearch::Walk => Ok(()),
            EdgeSearch::BruteForce => Err(GpuError::InvalidOption {
                message: "the GPU kernel runs the pruned edge query only (EdgeSearch::Pruned); \
                          the brute force is a CPU reference"
                    .to_string(),
            }),
        }
    }

    fn pairs<'b>(batch: &'b Batch<'_>) -> &'b [Pair] {
        batch.pairs()
    }

    fn margin(batch: &Batch<'_>) -> f32 {
        batch.margin()
    }

    fn flags(_: &Batch<'_>) -> u32 {
        0
    }

    fn upload(
        resources: &mut SpatialResources,
        context: &GpuContext,
        batch: &Batch<'_>,
        (_, texture_rows): (u32, u32),
        choice: KindChoice,
        classes: &mut BodyClasses,
    ) -> Result<Upload, GpuError> {
        let r = resources;
        let mut upload = Upload {
            grew: false,
            bytes: 0,
        };
        let shapes = batch.shapes();
        let key = (shapes.uid(), shapes.len());
        if r.uploaded_shapes != Some(key) {
            r.uploaded_shapes = None;
            library_texels(
                shapes,
                &mut r.records,
                &mut r.gridded,
                &mut r.floats,
                &mut r.ints,
            );
            upload.grew |= r
                .hull_floats
                .ensure(context, r.floats.len(), texture_rows)?;
            upload.grew |= r.hull_ints.ensure(context, r.ints.len(), texture_rows)?;
            upload.bytes += 16 * (r.floats.len() + r.ints.len()) as u64;
            pad_to_rows(&mut r.floats, [0.0; 4]);
            pad_to_rows(&mut r.ints, [0; 4]);
            r.hull_floats.write(context, &r.floats);
            r.hull_ints.write(context, &r.ints);
            r.uploaded_shapes = Some(key);
        }
        let bodies = batch.bodies();
        r.transform_texels.clear();
        r.shape_texels.clear();
        for (index, body) in bodies.iter().enumerate() {
            let texels: TransformTexels = transform_texels(&batch.transforms()[index]);
            r.transform_texels.extend_from_slice(&texels);
            r.shape_texels
                .extend_from_slice(&hull_record_texels(&r.records[body.shape as usize]));
        }
        let kinds = HullKinds::of(choice, context.is_native_software());
        classes.classify(
            bodies.iter().enumerate().map(|(index, body)| {
                let gridded = r.gridded[body.shape as usize];
                body_class(batch.shape_of(index as u32), kinds, gridded)
            }),
            kind_of,
        );
        // Hull data is large: neighbouring invocations share A's hull
        // (`kinds`, "grouped by the shape of their body A").
        classes.group_by_shape(bodies.iter().map(|body| body.shape));
        upload.grew |= r
            .body_transforms
            .ensure(context, r.transform_texels.len(), texture_rows)?;
        upload.grew |= r
            .body_shapes
            .ensure(context, r.shape_texels.len(), texture_rows)?;
        upload.bytes += 16 * (r.transform_texels.len() + r.shape_texels.len()) as u64;
        pad_to_rows(&mut r.transform_texels, [0.0; 4]);
        pad_to_rows(&mut r.shape_texels, [0; 4]);
        r.body_transforms.write(context, &r.transform_texels);
        r.body_shapes.write(context, &r.shape_texels);
        Ok(upload)
    }

    fn kinds_in_use(choice: KindChoice, software_adapter: bool) -> Vec<usize> {
        let classes: Vec<u8> = hull_classes(HullKinds::of(choice, software_adapter))
            .iter()
            .flat_map(|&class| [class, class | NO_GRID])
            .chain([SPHERE_CLASS, ROUNDED_CLASS, CAPSULE_CLASS])
            .collect();
        let mut kinds = kinds_of_classes(&classes, kind_of);
        if kinds
            .iter()
            .any(|kind| Self::DEFERRING_KINDS.contains(kind))
        {
            kinds.push(DEFERRED_KIND);
        }
        kinds
    }

    fn scene_bindings(r: &SpatialResources) -> Vec<(u32, &wgpu::TextureView)> {
        vec![
            (1, &r.hull_floats.view),
            (2, &r.body_transforms.view),
            (3, &r.body_shapes.view),
            (7, &r.hull_ints.view),
        ]
    }

    fn device_bytes(r: &SpatialResources) -> u64 {
        r.hull_floats.bytes()
            + r.hull_ints.bytes()
            + r.body_transforms.bytes()
            + r.body_shapes.bytes()
    }

    fn hit(pair: u32, axis: u32, depth: f32) -> SatHit {
        SatHit {
            pair,
            axis: Axis::unpack(axis),
            depth,
        }
    }

    fn hit_pair(hit: &SatHit) -> u32 {
        hit.pair
    }

    fn set_hit_pair(hit: &mut SatHit, pair: u32) {
        hit.pair = pair;
    }
}

// Native only: they parse the WGSL with naga, which wgpu has no copy of on
// the web.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::gpu::dispatch::DEFERRED_KIND;

    fn parsed(source: &str) -> wgpu::naga::Module {
        wgpu::naga::front::wgsl::parse_str(source)
            .unwrap_or_else(|err| panic!("{}", err.emit_to_string(source)))
    }

    fn names(module: &wgpu::naga::Module) -> (Vec<&str>, Vec<&str>) {
        let entry_points = module.entry_points.iter().map(|e| e.name.as_str());
        let functions = module
            .functions
            .iter()
            .filter_map(|(_, f)| f.name.as_deref());
        (entry_points.collect(), functions.collect())
    }

    /// Each kind's entry point is in the module the host creates its
    /// pipeline from, and in that one only; the hardware module holds none
    /// of the software adapters' caches, straight-line large kinds or
    /// deferral.
    #[test]
    fn each_kind_is_in_its_own_module_and_the_hardware_one_holds_no_software_code() {
        let hardware = parsed(SAT_WGSL);
        let software = parsed(SAT_SOFTWARE_WGSL);
        let (hardware_entries, hardware_functions) = names(&hardware);
        let (software_entries, _) = names(&software);
        for (kind, &entry_point) in Spatial::ENTRY_POINTS.iter().enumerate() {
            let in_software = Spatial::SOFTWARE_KINDS.contains(&kind);
            assert_eq!(
                (
                    hardware_entries.contains(&entry_point),
                    software_entries.contains(&entry_point)
                ),
                (!in_software, in_software),
                "kind {kind} ({entry_point}): (in the hardware module, in the software module)"
            );
        }
        assert_eq!(
            hardware_entries.len() + software_entries.len(),
            Spatial::ENTRY_POINTS.len(),
            "entry points: hardware {hardware_entries:?}, software {software_entries:?}"
        );
        for software_only in [
            "cache_vertices",
            "cached_face_min",
            "warm_run_word",
            "hot_edges",
            "offer_lowest8",
            "cache_edges",
            "cache_kept_edges",
            "find_max_edge_separation_cached",
            "find_max_edge_separation_large",
            "defer_pair",
            "collide_hulls",
        ] {
            assert!(
                !hardware_functions.contains(&software_only),
                "the hardware module holds {software_only}"
            );
        }
    }

    /// What `compile_all_kinds` compiles: on a hardware GPU the hardware
    /// module's kinds only.
    #[test]
    fn a_hardware_gpu_uses_only_the_hardware_modules_kinds() {
        let hardware = KindChoice::default();
        let software = KindChoice {
            software: true,
            ..KindChoice::default()
        };
        assert_eq!(
            Spatial::kinds_in_use(hardware, false),
            vec![0, 1, 2, 10, 11, 12, 13, 14, 15]
        );
        assert_eq!(
            Spatial::kinds_in_use(hardware, true),
            vec![0, 1, 2, 3, 6, 10, 11, 12, 13, 14, 15, DEFERRED_KIND]
        );
        assert_eq!(
            Spatial::kinds_in_use(software, false),
            vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, DEFERRED_KIND]
        );
    }
}
