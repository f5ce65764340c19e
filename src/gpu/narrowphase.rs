//! The GPU narrowphase: `shaders/sat.wgsl` run over a [`Batch`].
//!
//! One call goes like this:
//!
//! 1. Upload the shape library (only when it changed) and the bodies (their
//!    transforms and shapes, 32 bytes each).
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
//! Buffers, the pipeline and the bind group persist across calls; buffers grow
//! geometrically and the bind group is rebuilt only when one of them does, so
//! a caller running frame after frame pays for neither.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytemuck::Pod;

use super::context::GpuContext;
use super::layout::{BodyRecord, HitRecord, Params, SAT_WGSL};
use crate::error::Error;
use crate::narrowphase::{Axis, Batch, Pair, SatHit};
use crate::shape::{EdgeRecord, ShapeRecord};

/// Tuning and test knobs of the GPU narrowphase.
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
}

impl Default for GpuOptions {
    fn default() -> GpuOptions {
        GpuOptions {
            workgroup_size: 64,
            max_window_pairs: None,
            initial_capacity: 1 << 16,
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

impl GrowBuffer {
    fn new(
        context: &GpuContext,
        label: &'static str,
        usage: wgpu::BufferUsages,
        size: u64,
    ) -> Result<GrowBuffer, Error> {
        let size = size.max(16).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
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
            return Err(Error::Gpu(format!(
                "the {} need {} MiB, more than the {} MiB the device allows in one buffer",
                self.label,
                needed.div_ceil(1 << 20),
                limit >> 20
            )));
        }
        let size = needed.max(self.size.saturating_mul(2)).min(limit);
        *self = GrowBuffer::new(context, self.label, self.usage, size)?;
        Ok(true)
    }
}

const COUNT_STAGING_SIZE: u64 = 32;
/// Where the two timestamps sit in the count staging buffer.
const TIMESTAMP_OFFSET: u64 = 8;

/// The SAT kernel with its buffers, built once on a [`GpuContext`].
pub struct GpuNarrowphase {
    context: Arc<GpuContext>,
    options: GpuOptions,
    pipeline: wgpu::ComputePipeline,
    bind_group_layout: wgpu::BindGroupLayout,
    bind_group: Option<wgpu::BindGroup>,
    params: wgpu::Buffer,
    shapes: GrowBuffer,
    edges: GrowBuffer,
    bodies: GrowBuffer,
    pairs: GrowBuffer,
    hits: GrowBuffer,
    counter: wgpu::Buffer,
    count_staging: wgpu::Buffer,
    hits_staging: GrowBuffer,
    timestamps: Option<(wgpu::QuerySet, wgpu::Buffer)>,
    /// (library id, shape count) of the shapes on the device.
    uploaded_shapes: Option<(u64, usize)>,
    body_records: Vec<BodyRecord>,
    /// Most bytes one binding (and one buffer) may have.
    binding_limit: u64,
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
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sat bindings"),
            entries: &[
                uniform,
                storage_entry(1, true),
                storage_entry(2, true),
                storage_entry(3, true),
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
        let pipeline = context.scoped("the SAT pipeline", || {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("sat"),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some("main"),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    // Every slot is written before it is read.
                    zero_initialize_workgroup_memory: false,
                },
                cache: None,
            })
        })?;

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
                size: size_of::<Params>() as u64,
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
        let narrowphase = GpuNarrowphase {
            shapes: GrowBuffer::new(&context, "shape records", storage_in, 1024)?,
            edges: GrowBuffer::new(&context, "polygon edges", storage_in, 4096)?,
            bodies: GrowBuffer::new(&context, "bodies", storage_in, 4096)?,
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
            pipeline,
            bind_group_layout,
            bind_group: None,
            params,
            counter,
            count_staging,
            timestamps,
            uploaded_shapes: None,
            body_records: Vec::new(),
            binding_limit,
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

        let mut records: Vec<HitRecord> = Vec::new();
        for (window_index, window) in pairs.chunks(self.max_window).enumerate() {
            let base = window_index * self.max_window;
            self.run_window(base as u32, window, batch.margin(), &mut records)?;
        }

        let order_start = Instant::now();
        // Blocks of records, each in order: a run-adaptive stable sort.
        records.sort_by_key(|record| record.pair);
        let hits: Vec<SatHit> = records
            .iter()
            .map(|record| SatHit {
                pair: record.pair,
                axis: Axis::unpack(record.axis),
                depth: record.depth,
            })
            .collect();
        self.stats.readback += order_start.elapsed();
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
            let records: &[ShapeRecord] = shapes.records();
            let edges: &[EdgeRecord] = shapes.edges();
            let mut grew =
                self.shapes
                    .ensure(&context, size_of_val(records) as u64, self.binding_limit)?;
            grew |= self
                .edges
                .ensure(&context, size_of_val(edges) as u64, self.binding_limit)?;
            if grew {
                self.bind_group = None;
            }
            context
                .queue
                .write_buffer(&self.shapes.buffer, 0, as_bytes(records));
            if !edges.is_empty() {
                context
                    .queue
                    .write_buffer(&self.edges.buffer, 0, as_bytes(edges));
            }
            self.stats.bytes_uploaded += (size_of_val(records) + size_of_val(edges)) as u64;
            self.uploaded_shapes = Some(key);
        }

        self.body_records.clear();
        self.body_records
            .extend(
                batch
                    .bodies()
                    .iter()
                    .zip(batch.transforms())
                    .map(|(body, xf)| BodyRecord {
                        position: xf.p.to_array(),
                        rotation: [xf.q.c, xf.q.s],
                        shape: body.shape,
                        ..BodyRecord::default()
                    }),
            );
        let bytes = as_bytes(&self.body_records);
        if self
            .bodies
            .ensure(&context, bytes.len() as u64, self.binding_limit)?
        {
            self.bind_group = None;
        }
        if !bytes.is_empty() {
            context.queue.write_buffer(&self.bodies.buffer, 0, bytes);
        }
        self.stats.bytes_uploaded += bytes.len() as u64;
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
                        resource: self.params.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: self.shapes.buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: self.edges.buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: self.bodies.buffer.as_entire_binding(),
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
        margin: f32,
        out: &mut Vec<HitRecord>,
    ) -> Result<(), Error> {
        let context = self.context.clone();
        let upload_start = Instant::now();
        if self
            .pairs
            .ensure(&context, size_of_val(window) as u64, self.binding_limit)?
        {
            self.bind_group = None;
        }
        context
            .queue
            .write_buffer(&self.pairs.buffer, 0, as_bytes(window));
        self.stats.bytes_uploaded += size_of_val(window) as u64;
        self.stats.windows += 1;
        self.stats.upload += upload_start.elapsed();

        let workgroup_size = self.options.workgroup_size;
        let groups = (window.len() as u32).div_ceil(workgroup_size);
        let max_groups = context.limits().max_compute_workgroups_per_dimension;
        let groups_x = groups.min(max_groups);
        let groups_y = groups.div_ceil(groups_x);

        let gpu_start = Instant::now();
        let count = loop {
            let capacity = self.capacity();
            let params = Params {
                pair_base: base,
                pair_count: window.len() as u32,
                groups_x,
                capacity,
                margin,
                ..Params::default()
            };
            context
                .queue
                .write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
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
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                pass.dispatch_workgroups(groups_x, groups_y, 1);
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
        read_mapped(
            &context,
            &self.hits_staging.buffer,
            bytes,
            submission,
            |mapped| {
                out.extend_from_slice(&bytemuck::pod_collect_to_vec::<u8, HitRecord>(mapped));
            },
        )?;
        self.stats.bytes_read_back += bytes;
        self.stats.readback += readback_start.elapsed();
        Ok(())
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
