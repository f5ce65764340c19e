//! The 2D side of the GPU narrowphase: `shaders/d2/sat.wgsl`, the shape
//! library's edges and the bodies as textures, six kinds of pair.

pub(crate) mod kinds;

use super::buffers::{GrowTexture, pad_to_rows};
use super::context::GpuContext;
use super::dimension::{Dimension, KindChoice, Planar, Upload, float_texture, uint_texture};
use super::error::GpuError;
use super::kinds::BodyClasses;
use super::kinds::kinds_of_classes;
use super::layout::d2::{SAT_WGSL, ShapeTexel, TransformTexel, shape_texel, transform_texel};
use crate::core::pair::Pair;
use crate::d2::batch::Batch;
use crate::d2::sat::GPU_MERGE_THRESHOLD;
use crate::d2::shape::EdgeRecord;
use crate::d2::types::{Axis, SatHit};
use kinds::{LOOP_CLASS, ROUNDED_CLASS, body_class, is_rounded, kind_of};

/// The 2D kernel's textures and the scratch they are filled from.
pub struct PlanarResources {
    edges: GrowTexture,
    body_transforms: GrowTexture,
    body_shapes: GrowTexture,
    /// (library id, shape count) of the shapes on the device.
    uploaded_shapes: Option<(u64, usize)>,
    edge_texels: Vec<EdgeRecord>,
    transform_texels: Vec<TransformTexel>,
    shape_texels: Vec<ShapeTexel>,
}

impl Dimension for Planar {
    type Batch<'a> = Batch<'a>;
    type Hit = SatHit;
    type Resources = PlanarResources;
    const LABEL: &'static str = "sat.wgsl";
    const SOURCE: &'static str = SAT_WGSL;
    const SOFTWARE_SOURCE: Option<(&'static str, &'static str)> = None;
    const SOFTWARE_KINDS: &'static [usize] = &[];
    const ENTRY_POINTS: &'static [&'static str] = &[
        "polygons8",
        "polygon_circle8",
        "circles",
        "general",
        "polygons16",
        "polygon_circle16",
        "rounded",
    ];
    const DEFERRING_KINDS: &'static [usize] = &[];

    fn scene_layout() -> Vec<wgpu::BindGroupLayoutEntry> {
        vec![float_texture(1), float_texture(2), uint_texture(3)]
    }

    fn resources(context: &GpuContext) -> Result<PlanarResources, GpuError> {
        let float = wgpu::TextureFormat::Rgba32Float;
        Ok(PlanarResources {
            edges: GrowTexture::new(context, "shape edge", float, 1)?,
            body_transforms: GrowTexture::new(context, "body transform", float, 1)?,
            body_shapes: GrowTexture::new(
                context,
                "body shape",
                wgpu::TextureFormat::Rgba32Uint,
                1,
            )?,
            uploaded_shapes: None,
            edge_texels: Vec::new(),
            transform_texels: Vec::new(),
            shape_texels: Vec::new(),
        })
    }

    fn check(_: &Batch<'_>) -> Result<(), GpuError> {
        Ok(())
    }

    fn pairs<'b>(batch: &'b Batch<'_>) -> &'b [Pair] {
        batch.pairs()
    }

    fn margin(batch: &Batch<'_>) -> f32 {
        batch.margin()
    }

    fn flags(batch: &Batch<'_>) -> u32 {
        batch.face_search().threshold(GPU_MERGE_THRESHOLD)
    }

    fn upload(
        resources: &mut PlanarResources,
        context: &GpuContext,
        batch: &Batch<'_>,
        (merge_threshold, texture_rows): (u32, u32),
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
            let edges: &[EdgeRecord] = shapes.edges();
            upload.grew |= r.edges.ensure(context, edges.len(), texture_rows)?;
            r.edge_texels.clear();
            r.edge_texels.extend_from_slice(edges);
            pad_to_rows(&mut r.edge_texels, EdgeRecord::default());
            r.edges.write(context, &r.edge_texels);
            upload.bytes += size_of_val(edges) as u64;
            r.uploaded_shapes = Some(key);
        }

        let records = shapes.records();
        let shape_of = batch.shape_of();
        r.transform_texels.clear();
        r.transform_texels
            .extend(batch.transforms().iter().map(transform_texel));
        r.shape_texels.clear();
        r.shape_texels.extend(
            shape_of
                .iter()
                .map(|&shape| shape_texel(&records[shape as usize])),
        );
        classes.classify(
            shape_of.iter().map(|&shape| {
                let record = &records[shape as usize];
                if choice.polygon_loops && record.count > 0 && !is_rounded(record) {
                    // A large polygon's class: its pairs go to `general`.
                    LOOP_CLASS
                } else {
                    body_class(record, merge_threshold)
                }
            }),
            kind_of,
        );
        let bodies = batch.bodies().len();
        upload.grew |= r.body_transforms.ensure(context, bodies, texture_rows)?;
        upload.grew |= r.body_shapes.ensure(context, bodies, texture_rows)?;
        pad_to_rows(&mut r.transform_texels, [0.0; 4]);
        pad_to_rows(&mut r.shape_texels, [0; 4]);
        r.body_transforms.write(context, &r.transform_texels);
        r.body_shapes.write(context, &r.shape_texels);
        upload.bytes += (bodies * (size_of::<TransformTexel>() + size_of::<ShapeTexel>())) as u64;
        Ok(upload)
    }

    fn kinds_in_use(choice: KindChoice, _software_adapter: bool) -> Vec<usize> {
        // Circles, and polygons as their classes (class 3 where the batch's
        // merge threshold allows it), or all through the loop kind.
        let classes: &[u8] = if choice.polygon_loops {
            &[1, LOOP_CLASS, ROUNDED_CLASS]
        } else {
            &[0, 1, 2, 3, ROUNDED_CLASS]
        };
        kinds_of_classes(classes, kind_of)
    }

    fn scene_bindings(r: &PlanarResources) -> Vec<(u32, &wgpu::TextureView)> {
        vec![
            (1, &r.edges.view),
            (2, &r.body_transforms.view),
            (3, &r.body_shapes.view),
        ]
    }

    fn device_bytes(r: &PlanarResources) -> u64 {
        r.edges.bytes() + r.body_transforms.bytes() + r.body_shapes.bytes()
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
