//! The GPU narrowphase: `shaders/sat.wgsl` run over a [`Batch`].
//!
//! One call goes like this:
//!
//! 1. Upload the shape library (only when it changed) and the bodies (their
//!    transforms and shape records, 32 bytes each) into textures (see
//!    [`layout`](super::layout) for why textures).
//! 2. Split the pairs into *windows* no larger than one storage binding and
//!    one output binding allow (or [`GpuOptions::max_window_pairs`]). For each
//!    window: upload its pairs (8 bytes each), clear the counter, dispatch one
//!    invocation per pair on a 2D grid of workgroups (so that no dimension
//!    passes the 65,535 limit), and read back the counter.
//! 3. If the counter passed the output's capacity, grow the output and run the
//!    window again: nothing is ever dropped. Otherwise copy back exactly the
//!    reported records (16 bytes each).
//! 4. Put the records in pair order (they come in blocks, one per workgroup,
//!    each already in order) and return them as [`SatHit`]s.
//!
//! Buffers, textures, the pipeline and the bind group persist across calls;
//! buffers and textures grow geometrically and the bind group is rebuilt only
//! when one of them does, so a caller running frame after frame pays for
//! neither.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytemuck::Pod;

use super::context::GpuContext;
use super::layout::{
    HitRecord, Params, SAT_WGSL, ShapeTexel, TEXTURE_WIDTH, TransformTexel, shape_texel,
    transform_texel,
};
use crate::error::Error;
use crate::narrowphase::{Axis, Batch, Pair, SatHit};
use crate::sat::GPU_MERGE_THRESHOLD;
use crate::shape::EdgeRecord;

/// Tuning and test knobs of the GPU narrowphase.
/// Invocations per workgroup unless asked otherwise, chosen with
/// `gpusat bench --workgroup-size N` on lavapipe (kernel ns per pair, 1M
/// pairs): 8-gons 32: 78-83, 64: 57-58, 128: 55-56, 256: 53; mixed shapes,
/// sparse: 64: 276, 128: 268, 256: 263. Larger groups amortise lavapipe's
/// per-group cost; 256 is also the largest size every adapter must allow.
pub const DEFAULT_WORKGROUP_SIZE: u32 = 256;

#[derive(Clone, Debug, PartialEq)]
pub struct GpuOptions {
    /// Invocations per workgroup (1 to 256).
    pub workgroup_size: u32,
    /// Split batches into windows of at most this many pairs (the device's
    /// limits cap it anyway). Tests force tiny windows with it.
    pub max_window_pairs: Option<usize>,
    /// Output records to allocate at first; the output grows when a window
    /// reports more. Tests force overflows with a tiny value.
    pub initial_capacity: u32,
    /// At most this many texture rows (of 2,048 texels), below what the
    /// device allows. Tests force the limit errors with a small value.
    pub texture_rows_limit: Option<u32>,
}

impl Default for GpuOptions {
    fn default() -> GpuOptions {
        GpuOptions {
            workgroup_size: DEFAULT_WORKGROUP_SIZE,
            max_window_pairs: None,
            initial_capacity: 1 << 16,
            texture_rows_limit: None,
        }
    }
}

/// What the last call did and where its time went.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuStats {
    pub pairs: u64,
    pub hits: u64,
    /// Windows the batch was split into.
    pub windows: u32,
    /// Windows run again because their output overflowed.
    pub reruns: u32,
    /// Packing and queueing the uploads on the CPU.
    pub upload: Duration,
    /// Kernel time from timestamp queries, summed over windows (and re-runs);
    /// `None` when the adapter has no timestamps.
    pub kernel: Option<Duration>,
    /// From the first submission to the counters being read (transfer,
    /// kernel and the first round trip).
    pub gpu: Duration,
    /// Copying back the records, mapping them, and putting them in order.
    pub readback: Duration,
    pub total: Duration,
    pub bytes_uploaded: u64,
    pub bytes_read_back: u64,
}

/// A buffer that only ever grows, geometrically.
struct GrowBuffer {
    buffer: wgpu::Buffer,
    size: u64,
    usage: wgpu::BufferUsages,
    label: &'static str,
}

/// A buffer larger than the device allows, with how much was needed.
fn too_large(label: &str, needed: u64, limit: u64) -> Error {
    Error::Gpu(format!(
        "the {label} need {} MiB, more than the {} MiB the device allows in one buffer",
        needed.div_ceil(1 << 20),
        limit >> 20
    ))
}

impl GrowBuffer {
    fn new(
        context: &GpuContext,
        label: &'static str,
        usage: wgpu::BufferUsages,
        size: u64,
    ) -> Result<GrowBuffer, Error> {
        let size = size.max(16).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        let limit = context.limits().max_buffer_size;
        if size > limit {
            return Err(too_large(label, size, limit));
        }
        let buffer = context.scoped(label, || {
            context.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        })?;
        Ok(GrowBuffer {
            buffer,
            size,
            usage,
            label,
        })
    }

    /// Makes room for `needed` bytes (at most `limit`); true if reallocated.
    fn ensure(&mut self, context: &GpuContext, needed: u64, limit: u64) -> Result<bool, Error> {
        if needed <= self.size {
            return Ok(false);
        }
        if needed > limit {
            return Err(too_large(self.label, needed, limit));
        }
        let size = needed.max(self.size.saturating_mul(2)).min(limit);
        *self = GrowBuffer::new(context, self.label, self.usage, size)?;
        Ok(true)
    }
}

/// A texture of 16-byte texels, `TEXTURE_WIDTH` to a row, that only ever
/// grows (by rows, geometrically).
struct GrowTexture {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    rows: u32,
    format: wgpu::TextureFormat,
    label: &'static str,
}

impl GrowTexture {
    fn new(
        context: &GpuContext,
        label: &'static str,
        format: wgpu::TextureFormat,
        rows: u32,
    ) -> Result<GrowTexture, Error> {
        let rows = rows.max(1);
        let texture = context.scoped(label, || {
            context.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width: TEXTURE_WIDTH,
                    height: rows,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            })
        })?;
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Ok(GrowTexture {
            texture,
            view,
            rows,
            format,
            label,
        })
    }

    /// Makes room for `texels` (at most `max_rows` rows); true if reallocated.
    fn ensure(
        &mut self,
        context: &GpuContext,
        texels: usize,
        max_rows: u32,
    ) -> Result<bool, Error> {
        let needed = texels.div_ceil(TEXTURE_WIDTH as usize).max(1);
        if needed <= self.rows as usize {
            return Ok(false);
        }
        if needed > max_rows as usize {
            return Err(Error::Gpu(format!(
                "the batch needs {texels} {} texels; the device holds at most {} ({max_rows} rows of {TEXTURE_WIDTH})",
                self.label,
                max_rows as u64 * TEXTURE_WIDTH as u64,
            )));
        }
        let rows = (needed as u32)
            .max(self.rows.saturating_mul(2))
            .min(max_rows);
        *self = GrowTexture::new(context, self.label, self.format, rows)?;
        Ok(true)
    }

    /// Writes whole rows from `texels`, which holds a multiple of a row.
    fn write<T: Pod>(&self, context: &GpuContext, texels: &[T]) {
        let rows = (texels.len() / TEXTURE_WIDTH as usize) as u32;
        if rows == 0 {
            return;
        }
        context.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            as_bytes(texels),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(TEXTURE_WIDTH * size_of::<T>() as u32),
                rows_per_image: Some(rows),
            },
            wgpu::Extent3d {
                width: TEXTURE_WIDTH,
                height: rows,
                depth_or_array_layers: 1,
            },
        );
    }
}

/// Pads `texels` with copies of `filler` to a whole number of rows.
fn pad_to_rows<T: Copy>(texels: &mut Vec<T>, filler: T) {
    let padded = texels.len().div_ceil(TEXTURE_WIDTH as usize).max(1) * TEXTURE_WIDTH as usize;
    texels.resize(padded, filler);
}

const COUNT_STAGING_SIZE: u64 = 32;
/// Where the two timestamps sit in the count staging buffer.
const TIMESTAMP_OFFSET: u64 = 8;

/// The SAT kernel with its buffers, built once on a [`GpuContext`].
pub struct GpuNarrowphase {
    context: Arc<GpuContext>,
    options: GpuOptions,
    /// One per kind of pair, in the order of `ENTRY_POINTS`.
    pipelines: Vec<wgpu::ComputePipeline>,
    bind_group_layout: wgpu::BindGroupLayout,
    bind_group: Option<wgpu::BindGroup>,
    params: wgpu::Buffer,
    edges: GrowTexture,
    body_transforms: GrowTexture,
    body_shapes: GrowTexture,
    pairs: GrowBuffer,
    hits: GrowBuffer,
    counter: wgpu::Buffer,
    count_staging: wgpu::Buffer,
    hits_staging: GrowBuffer,
    timestamps: Option<(wgpu::QuerySet, wgpu::Buffer)>,
    /// (library id, shape count) of the shapes on the device.
    uploaded_shapes: Option<(u64, usize)>,
    /// A window's pairs sorted by kind, where each came from, and its
    /// results by slot: scratch reused from call to call.
    kinds: Vec<u8>,
    /// Each body's class, and the class of all of them if they share one.
    body_classes: Vec<u8>,
    single_class: Option<u8>,
    staged_pairs: Vec<Pair>,
    slot_order: Vec<u32>,
    slot_hits: Vec<SatHit>,
    /// Texel staging, reused from call to call.
    edge_texels: Vec<EdgeRecord>,
    transform_texels: Vec<TransformTexel>,
    shape_texels: Vec<ShapeTexel>,
    /// Most bytes one binding (and one buffer) may have.
    binding_limit: u64,
    /// Most rows a texture may have.
    texture_rows: u32,
    max_window: usize,
    stats: GpuStats,
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn texture_entry(binding: u32, sample_type: wgpu::TextureSampleType) -> wgpu::BindGroupLayoutEntry {
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

fn as_bytes<T: Pod>(items: &[T]) -> &[u8] {
    bytemuck::cast_slice(items)
}

impl GpuNarrowphase {
    pub fn new(context: Arc<GpuContext>, options: GpuOptions) -> Result<GpuNarrowphase, Error> {
        let limits = context.limits();
        if options.workgroup_size == 0
            || options.workgroup_size > 256
            || options.workgroup_size > limits.max_compute_invocations_per_workgroup
        {
            return Err(Error::Gpu(format!(
                "workgroup size {} is not between 1 and {}",
                options.workgroup_size,
                limits.max_compute_invocations_per_workgroup.min(256)
            )));
        }
        let device = &context.device;
        let module = context.scoped("the SAT shader", || {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("sat.wgsl"),
                source: wgpu::ShaderSource::Wgsl(SAT_WGSL.into()),
            })
        })?;
        let uniform = wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: true,
                min_binding_size: None,
            },
            count: None,
        };
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sat bindings"),
            entries: &[
                uniform,
                texture_entry(1, wgpu::TextureSampleType::Float { filterable: false }),
                texture_entry(2, wgpu::TextureSampleType::Float { filterable: false }),
                texture_entry(3, wgpu::TextureSampleType::Uint),
                storage_entry(4, true),
                storage_entry(5, false),
                storage_entry(6, false),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("sat"),
            bind_group_layouts: &[Some(&bind_group_layout)],
            immediate_size: 0,
        });
        let constants = [("WORKGROUP_SIZE", options.workgroup_size as f64)];
        let pipelines = ENTRY_POINTS
            .iter()
            .map(|&entry_point| {
                context.scoped("the SAT pipelines", || {
                    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: Some(entry_point),
                        layout: Some(&pipeline_layout),
                        module: &module,
                        entry_point: Some(entry_point),
                        compilation_options: wgpu::PipelineCompilationOptions {
                            constants: &constants,
                            // Every slot is written before it is read.
                            zero_initialize_workgroup_memory: false,
                        },
                        cache: None,
                    })
                })
            })
            .collect::<Result<Vec<_>, _>>()?;

        let binding_limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        // A window's pairs and its worst-case output must each fit one binding.
        let mut max_window = (binding_limit / size_of::<HitRecord>() as u64) as usize;
        if let Some(forced) = options.max_window_pairs {
            max_window = max_window.min(forced.max(1));
        }

        use wgpu::BufferUsages as U;
        let storage_in = U::STORAGE | U::COPY_DST;
        let params = context.scoped("the parameters buffer", || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("params"),
                size: (PARAMS_STRIDE * PAIR_KINDS) as u64,
                usage: U::UNIFORM | U::COPY_DST,
                mapped_at_creation: false,
            })
        })?;
        let counter = context.scoped("the counter", || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("counter"),
                size: 4,
                usage: U::STORAGE | U::COPY_SRC | U::COPY_DST,
                mapped_at_creation: false,
            })
        })?;
        let count_staging = context.scoped("the counter readback", || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("counter readback"),
                size: COUNT_STAGING_SIZE,
                usage: U::MAP_READ | U::COPY_DST,
                mapped_at_creation: false,
            })
        })?;
        let timestamps = if context.has_timestamps() {
            let query_set = device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("kernel time"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            let resolve = context.scoped("the timestamp buffer", || {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("timestamps"),
                    size: 16,
                    usage: U::QUERY_RESOLVE | U::COPY_SRC,
                    mapped_at_creation: false,
                })
            })?;
            Some((query_set, resolve))
        } else {
            None
        };
        let capacity = options.initial_capacity.max(1) as u64 * size_of::<HitRecord>() as u64;
        let mut texture_rows = limits.max_texture_dimension_2d;
        if let Some(forced) = options.texture_rows_limit {
            texture_rows = texture_rows.min(forced.max(1));
        }
        let float = wgpu::TextureFormat::Rgba32Float;
        let narrowphase = GpuNarrowphase {
            edges: GrowTexture::new(&context, "shape edge", float, 1)?,
            body_transforms: GrowTexture::new(&context, "body transform", float, 1)?,
            body_shapes: GrowTexture::new(
                &context,
                "body shape",
                wgpu::TextureFormat::Rgba32Uint,
                1,
            )?,
            pairs: GrowBuffer::new(&context, "pairs", storage_in, 1 << 16)?,
            hits: GrowBuffer::new(&context, "hit records", U::STORAGE | U::COPY_SRC, capacity)?,
            hits_staging: GrowBuffer::new(
                &context,
                "hit readback",
                U::MAP_READ | U::COPY_DST,
                capacity,
            )?,
            context,
            options,
            pipelines,
            bind_group_layout,
            bind_group: None,
            params,
            counter,
            count_staging,
            timestamps,
            uploaded_shapes: None,
            kinds: Vec::new(),
            body_classes: Vec::new(),
            single_class: None,
            staged_pairs: Vec::new(),
            slot_order: Vec::new(),
            slot_hits: Vec::new(),
            edge_texels: Vec::new(),
            transform_texels: Vec::new(),
            shape_texels: Vec::new(),
            binding_limit,
            texture_rows,
            max_window,
            stats: GpuStats::default(),
        };
        narrowphase.context.check()?;
        Ok(narrowphase)
    }

    pub fn context(&self) -> &Arc<GpuContext> {
        &self.context
    }

    pub fn options(&self) -> &GpuOptions {
        &self.options
    }

    /// What the last [`collide`](Self::collide) did.
    pub fn stats(&self) -> &GpuStats {
        &self.stats
    }

    /// Bytes of device memory held now: the textures, the pairs and output
    /// buffers and their staging copy (all grown to the largest batch seen).
    pub fn device_bytes(&self) -> u64 {
        let texels = u64::from(self.edges.rows + self.body_transforms.rows + self.body_shapes.rows)
            * u64::from(TEXTURE_WIDTH);
        texels * 16 + self.pairs.size + self.hits.size + self.hits_staging.size
    }

    /// The most pairs one window holds.
    pub fn max_window_pairs(&self) -> usize {
        self.max_window
    }

    /// Runs the SAT kernel on every pair of the batch; the same result as
    /// [`collide_cpu`](crate::collide_cpu), in pair order.
    pub fn collide(&mut self, batch: &Batch) -> Result<Vec<SatHit>, Error> {
        let start = Instant::now();
        self.stats = GpuStats {
            pairs: batch.pairs().len() as u64,
            ..GpuStats::default()
        };
        self.context.check()?;
        let pairs = batch.pairs();
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        self.upload_scene(batch)?;

        let mut hits: Vec<SatHit> = Vec::new();
        for (window_index, window) in pairs.chunks(self.max_window).enumerate() {
            let base = window_index * self.max_window;
            self.run_window(
                base as u32,
                window,
                (
                    batch.margin(),
                    batch.face_search().threshold(GPU_MERGE_THRESHOLD),
                ),
                &mut hits,
            )?;
        }
        self.stats.hits = hits.len() as u64;
        self.stats.total = start.elapsed();
        Ok(hits)
    }

    fn upload_scene(&mut self, batch: &Batch) -> Result<(), Error> {
        let start = Instant::now();
        let context = self.context.clone();
        let shapes = batch.shapes();
        let key = (shapes.uid(), shapes.len());
        if self.uploaded_shapes != Some(key) {
            let edges: &[EdgeRecord] = shapes.edges();
            if self
                .edges
                .ensure(&context, edges.len(), self.texture_rows)?
            {
                self.bind_group = None;
            }
            self.edge_texels.clear();
            self.edge_texels.extend_from_slice(edges);
            pad_to_rows(&mut self.edge_texels, EdgeRecord::default());
            self.edges.write(&context, &self.edge_texels);
            self.stats.bytes_uploaded += size_of_val(edges) as u64;
            self.uploaded_shapes = Some(key);
        }

        let records = shapes.records();
        self.transform_texels.clear();
        self.transform_texels
            .extend(batch.transforms().iter().map(transform_texel));
        self.shape_texels.clear();
        self.shape_texels.extend(
            batch
                .shape_of()
                .iter()
                .map(|&shape| shape_texel(&records[shape as usize])),
        );
        let merge_threshold = batch.face_search().threshold(GPU_MERGE_THRESHOLD);
        self.body_classes.clear();
        self.body_classes.extend(
            batch
                .shape_of()
                .iter()
                .map(|&shape| body_class(&records[shape as usize], merge_threshold)),
        );
        self.single_class = match self.body_classes.first() {
            Some(&first) if self.body_classes.iter().all(|&class| class == first) => Some(first),
            _ => None,
        };
        let bodies = batch.bodies().len();
        let mut grew = self
            .body_transforms
            .ensure(&context, bodies, self.texture_rows)?;
        grew |= self
            .body_shapes
            .ensure(&context, bodies, self.texture_rows)?;
        if grew {
            self.bind_group = None;
        }
        pad_to_rows(&mut self.transform_texels, [0.0; 4]);
        pad_to_rows(&mut self.shape_texels, [0; 4]);
        self.body_transforms.write(&context, &self.transform_texels);
        self.body_shapes.write(&context, &self.shape_texels);
        self.stats.bytes_uploaded +=
            (bodies * (size_of::<TransformTexel>() + size_of::<ShapeTexel>())) as u64;
        self.stats.upload += start.elapsed();
        Ok(())
    }

    fn bind_group(&mut self) -> wgpu::BindGroup {
        if let Some(bind_group) = &self.bind_group {
            return bind_group.clone();
        }
        let bind_group = self
            .context
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("sat bindings"),
                layout: &self.bind_group_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &self.params,
                            offset: 0,
                            size: wgpu::BufferSize::new(size_of::<Params>() as u64),
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&self.edges.view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::TextureView(&self.body_transforms.view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: wgpu::BindingResource::TextureView(&self.body_shapes.view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: self.pairs.buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 5,
                        resource: self.hits.buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 6,
                        resource: self.counter.as_entire_binding(),
                    },
                ],
            });
        self.bind_group = Some(bind_group.clone());
        bind_group
    }

    /// Records that fit in the output buffer.
    fn capacity(&self) -> u32 {
        (self.hits.size / size_of::<HitRecord>() as u64).min(u32::MAX as u64) as u32
    }

    fn run_window(
        &mut self,
        base: u32,
        window: &[Pair],
        (margin, merge_threshold): (f32, u32),
        out: &mut Vec<SatHit>,
    ) -> Result<(), Error> {
        let context = self.context.clone();
        let upload_start = Instant::now();
        let workgroup_size = self.options.workgroup_size as usize;

        // Sort the window's pairs by kind, keeping their order within a kind,
        // each kind starting at a workgroup boundary so that no workgroup
        // mixes kinds and blocks of output stay one kind's. When every body
        // is of one class (the common case), every pair is of one kind: the
        // pairs go up as they are.
        let mut counts = [0usize; PAIR_KINDS];
        let mut starts = [0usize; PAIR_KINDS];
        let single_kind = match self.single_class {
            Some(class) => {
                counts[KIND_OF_CLASSES[class as usize][class as usize] as usize] = window.len();
                true
            }
            None => false,
        };
        let slots = if single_kind {
            window.len()
        } else {
            let classes = &self.body_classes;
            self.kinds.clear();
            self.kinds.extend(window.iter().map(|pair| {
                let kind = KIND_OF_CLASSES[classes[pair.a as usize] as usize]
                    [classes[pair.b as usize] as usize];
                counts[kind as usize] += 1;
                kind
            }));
            let mut slots = 0;
            for kind in 0..PAIR_KINDS {
                starts[kind] = slots;
                slots += counts[kind].div_ceil(workgroup_size) * workgroup_size;
            }
            self.staged_pairs.clear();
            self.staged_pairs.resize(slots, Pair::default());
            self.slot_order.clear();
            self.slot_order.resize(slots, u32::MAX);
            let mut next = starts;
            for (offset, (pair, &kind)) in window.iter().zip(&self.kinds).enumerate() {
                let slot = next[kind as usize];
                self.staged_pairs[slot] = *pair;
                self.slot_order[slot] = base + offset as u32;
                next[kind as usize] += 1;
            }
            slots
        };

        if self.pairs.ensure(
            &context,
            (slots * size_of::<Pair>()) as u64,
            self.binding_limit,
        )? {
            self.bind_group = None;
        }
        let staged: &[Pair] = if single_kind {
            window
        } else {
            &self.staged_pairs
        };
        context
            .queue
            .write_buffer(&self.pairs.buffer, 0, as_bytes(staged));
        self.stats.bytes_uploaded += size_of_val(window) as u64;
        self.stats.windows += 1;
        self.stats.upload += upload_start.elapsed();

        let max_groups = context.limits().max_compute_workgroups_per_dimension;
        let grid = |count: usize| {
            let groups = (count as u32).div_ceil(workgroup_size as u32);
            let groups_x = groups.clamp(1, max_groups);
            (groups_x, groups.div_ceil(groups_x))
        };

        let gpu_start = Instant::now();
        let count = loop {
            let capacity = self.capacity();
            let mut params = [0u8; PARAMS_STRIDE * PAIR_KINDS];
            for kind in 0..PAIR_KINDS {
                let kind_params = Params {
                    pair_base: starts[kind] as u32,
                    pair_count: counts[kind] as u32,
                    groups_x: grid(counts[kind]).0,
                    capacity,
                    margin,
                    merge_threshold,
                    ..Params::default()
                };
                params[kind * PARAMS_STRIDE..kind * PARAMS_STRIDE + size_of::<Params>()]
                    .copy_from_slice(bytemuck::bytes_of(&kind_params));
            }
            context.queue.write_buffer(&self.params, 0, &params);
            let bind_group = self.bind_group();

            let mut encoder = context
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("sat") });
            encoder.clear_buffer(&self.counter, 0, None);
            {
                let timestamp_writes = self.timestamps.as_ref().map(|(query_set, _)| {
                    wgpu::ComputePassTimestampWrites {
                        query_set,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: Some(1),
                    }
                });
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("sat"),
                    timestamp_writes,
                });
                for kind in 0..PAIR_KINDS {
                    if counts[kind] == 0 {
                        continue;
                    }
                    let (groups_x, groups_y) = grid(counts[kind]);
                    pass.set_pipeline(&self.pipelines[kind]);
                    pass.set_bind_group(0, &bind_group, &[(kind * PARAMS_STRIDE) as u32]);
                    pass.dispatch_workgroups(groups_x, groups_y, 1);
                }
            }
            encoder.copy_buffer_to_buffer(&self.counter, 0, &self.count_staging, 0, 4);
            if let Some((query_set, resolve)) = &self.timestamps {
                encoder.resolve_query_set(query_set, 0..2, resolve, 0);
                encoder.copy_buffer_to_buffer(
                    resolve,
                    0,
                    &self.count_staging,
                    TIMESTAMP_OFFSET,
                    16,
                );
            }
            let submission = context.queue.submit([encoder.finish()]);

            let (count, ticks) = read_mapped(
                &context,
                &self.count_staging,
                COUNT_STAGING_SIZE,
                submission,
                |bytes| {
                    let count: u32 = bytemuck::pod_read_unaligned(&bytes[0..4]);
                    let begin: u64 = bytemuck::pod_read_unaligned(&bytes[8..16]);
                    let end: u64 = bytemuck::pod_read_unaligned(&bytes[16..24]);
                    (count, end.saturating_sub(begin))
                },
            )?;
            self.stats.bytes_read_back += 4;
            if self.timestamps.is_some() {
                let nanos = ticks as f64 * context.queue.get_timestamp_period() as f64;
                let kernel = self.stats.kernel.get_or_insert(Duration::ZERO);
                *kernel += Duration::from_nanos(nanos as u64);
            }
            if count <= capacity {
                break count;
            }
            // Overflow: make room for all of them (and some), run again.
            let needed = (count as u64 + count as u64 / 4) * size_of::<HitRecord>() as u64;
            let limit = self.binding_limit;
            self.hits.ensure(&context, needed.min(limit), limit)?;
            self.hits_staging
                .ensure(&context, needed.min(limit), limit)?;
            self.bind_group = None;
            self.stats.reruns += 1;
            if (self.capacity() as u64) < count as u64 {
                return Err(Error::Gpu(format!(
                    "{count} reported pairs do not fit the largest output buffer the device allows"
                )));
            }
        };
        self.stats.gpu += gpu_start.elapsed();

        if count == 0 {
            return Ok(());
        }
        let readback_start = Instant::now();
        let bytes = count as u64 * size_of::<HitRecord>() as u64;
        self.hits_staging
            .ensure(&context, bytes, self.binding_limit)?;
        let mut encoder = context
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("sat readback"),
            });
        encoder.copy_buffer_to_buffer(&self.hits.buffer, 0, &self.hits_staging.buffer, 0, bytes);
        let submission = context.queue.submit([encoder.finish()]);
        let mut by_slot = std::mem::take(&mut self.slot_hits);
        by_slot.clear();
        read_mapped(
            &context,
            &self.hits_staging.buffer,
            bytes,
            submission,
            |mapped| match bytemuck::try_cast_slice::<u8, HitRecord>(mapped) {
                Ok(records) => {
                    append_in_pair_order(records, 0, workgroup_size as u32, &mut by_slot)
                }
                Err(_) => {
                    let records = bytemuck::pod_collect_to_vec::<u8, HitRecord>(mapped);
                    append_in_pair_order(&records, 0, workgroup_size as u32, &mut by_slot)
                }
            },
        )?;
        if single_kind {
            // Slots are the window's own order.
            out.extend(by_slot.iter().map(|hit| SatHit {
                pair: base + hit.pair,
                ..*hit
            }));
            self.slot_hits = by_slot;
            self.stats.bytes_read_back += bytes;
            self.stats.readback += readback_start.elapsed();
            return Ok(());
        }
        // Slots back to pair indices: one ascending run per kind, merged.
        let mut runs: [&[SatHit]; PAIR_KINDS] = [&[]; PAIR_KINDS];
        let mut rest = &by_slot[..];
        for (kind, run) in runs.iter_mut().enumerate() {
            let end = starts.get(kind + 1).copied().unwrap_or(usize::MAX);
            let split = rest.partition_point(|hit| (hit.pair as usize) < end);
            *run = &rest[..split];
            rest = &rest[split..];
        }
        merge_runs(&runs, &self.slot_order, out);
        self.slot_hits = by_slot;
        self.stats.bytes_read_back += bytes;
        self.stats.readback += readback_start.elapsed();
        Ok(())
    }
}

/// Kinds of pair, each with its own kernel entry point (in this order).
const ENTRY_POINTS: [&str; PAIR_KINDS] = [
    "polygons8",
    "polygon_circle8",
    "circles",
    "general",
    "polygons16",
    "polygon_circle16",
];
const PAIR_KINDS: usize = 6;
/// Each kind's parameters sit at a multiple of this (the uniform offset alignment).
const PARAMS_STRIDE: usize = 256;

/// A body's class: 0 a polygon of up to 8 vertices, 1 a circle, 2 a larger
/// polygon, 3 a polygon of 9 to 16 vertices. Class 3 exists only when no
/// pair of such polygons merges (`merge_threshold` of 16 or more); otherwise
/// they are class 2 and go through the kernel's full dispatch.
fn body_class(record: &crate::shape::ShapeRecord, merge_threshold: u32) -> u8 {
    match record.count {
        0 => 1,
        1..=8 => 0,
        9..=16 if merge_threshold >= 16 => 3,
        _ => 2,
    }
}

/// The entry point (kind) for a pair of body classes: the straight-line
/// entry points take exactly the pairs for which the kernel's `collide_pair`
/// would pick the function they call.
const KIND_OF_CLASSES: [[u8; 4]; 4] = [
    // small polygon with: small polygon, circle, large polygon, medium polygon
    [0, 1, 3, 4],
    // circle with: small polygon, circle, large polygon, medium polygon
    [1, 2, 3, 5],
    // large polygon with anything
    [3, 3, 3, 3],
    // medium polygon with: small polygon, circle, large polygon, medium polygon
    [4, 5, 3, 4],
];

/// Merges runs of hits that are each ascending in pair index once their
/// slots are mapped through `slot_order`, appending to `out`.
fn merge_runs(runs: &[&[SatHit]; PAIR_KINDS], slot_order: &[u32], out: &mut Vec<SatHit>) {
    let original = |hit: &SatHit| SatHit {
        pair: slot_order[hit.pair as usize],
        ..*hit
    };
    let mut heads = [0usize; PAIR_KINDS];
    out.reserve(runs.iter().map(|run| run.len()).sum());
    loop {
        let mut next: Option<(usize, u32)> = None;
        for (kind, run) in runs.iter().enumerate() {
            if let Some(hit) = run.get(heads[kind]) {
                let pair = slot_order[hit.pair as usize];
                if next.is_none_or(|(_, best)| pair < best) {
                    next = Some((kind, pair));
                }
            }
        }
        let Some((kind, _)) = next else { break };
        out.push(original(&runs[kind][heads[kind]]));
        heads[kind] += 1;
    }
}

/// Appends a window's records in pair order. The kernel writes one block per
/// workgroup, in pair order within the block, blocks in any order: find the
/// blocks (a record's workgroup is its pair's offset in the window divided by
/// the workgroup size), order them by workgroup, and copy them out in one
/// pass. Linear in the records, plus a sort of one entry per block.
fn append_in_pair_order(
    records: &[HitRecord],
    window_base: u32,
    workgroup_size: u32,
    out: &mut Vec<SatHit>,
) {
    let group = |record: &HitRecord| (record.pair - window_base) / workgroup_size;
    let mut blocks: Vec<(u32, usize, usize)> = Vec::new();
    let mut start = 0;
    for index in 1..=records.len() {
        if index == records.len() || group(&records[index]) != group(&records[start]) {
            blocks.push((group(&records[start]), start, index));
            start = index;
        }
    }
    blocks.sort_unstable_by_key(|&(group, _, _)| group);
    out.reserve(records.len());
    for (_, start, end) in blocks {
        out.extend(records[start..end].iter().map(|record| SatHit {
            pair: record.pair,
            axis: Axis::unpack(record.axis),
            depth: record.depth,
        }));
    }
}

/// Maps the first `size` bytes of `buffer` once `submission` is done, hands
/// them to `read`, and unmaps.
fn read_mapped<R>(
    context: &GpuContext,
    buffer: &wgpu::Buffer,
    size: u64,
    submission: wgpu::SubmissionIndex,
    read: impl FnOnce(&[u8]) -> R,
) -> Result<R, Error> {
    let slice = buffer.slice(0..size);
    let (sender, receiver) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        let _ = sender.send(result);
    });
    context.wait(submission)?;
    match receiver.recv() {
        Ok(Ok(())) => {}
        Ok(Err(err)) => {
            return Err(Error::Gpu(format!(
                "failed to map the readback buffer: {err}"
            )));
        }
        Err(_) => {
            return Err(Error::Gpu(
                "the readback buffer was never mapped".to_string(),
            ));
        }
    }
    let value = {
        let view = slice
            .get_mapped_range()
            .map_err(|err| Error::Gpu(format!("failed to read the mapped buffer: {err}")))?;
        read(&view)
    };
    buffer.unmap();
    Ok(value)
}
