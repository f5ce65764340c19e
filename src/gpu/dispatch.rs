//! The SAT kernel's pipelines and bindings, and recording its work into a
//! command encoder: one compute pass over every window of a batch, then the
//! copies that bring the counters, the kernel's timestamps and each window's
//! output back in one staging buffer.

use super::context::GpuContext;
use super::dimension::Dimension;
use super::error::GpuError;
use super::kinds::PAIR_KINDS;
use super::layout::{HitRecord, Params};

/// Each dispatch's parameters sit at a multiple of this in the uniform
/// buffer (the largest uniform offset alignment a device may ask).
pub(crate) const PARAMS_STRIDE: u64 = 256;

/// The pipelines, one per kind of pair, and their bind group layout. A
/// kind's pipeline is compiled at the first batch that has pairs of that
/// kind ([`SatPipelines::prepare`]): on a software adapter the cached 3D
/// kinds take llvmpipe about two seconds to compile, which a scene of boxes
/// or spheres never needs.
pub(crate) struct SatPipelines {
    module: wgpu::ShaderModule,
    /// The software adapters' module ([`Dimension::SOFTWARE_SOURCE`]),
    /// created with the first pipeline of one of its kinds.
    software_module: Option<wgpu::ShaderModule>,
    software_source: Option<(&'static str, &'static str)>,
    software_kinds: &'static [usize],
    pipeline_layout: wgpu::PipelineLayout,
    entry_points: &'static [&'static str],
    workgroup_size: u32,
    /// The hardware kinds' slots: a workgroup prefix sum with barriers
    /// (`PARALLEL_SLOTS` in `batch.wgsl`), not one invocation's loop.
    parallel_slots: bool,
    pipelines: Vec<Option<wgpu::ComputePipeline>>,
    /// How long each compiled pipeline took to create.
    compile_times: Vec<Option<std::time::Duration>>,
    layout: wgpu::BindGroupLayout,
}

pub(crate) fn storage_entry(
    binding: u32,
    read_only: bool,
    dynamic: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: dynamic,
            min_binding_size: None,
        },
        count: None,
    }
}

/// What the bind group binds.
pub(crate) struct Bindings<'a> {
    pub params: &'a wgpu::Buffer,
    /// The kernel's own textures, by binding.
    pub scene: Vec<(u32, &'a wgpu::TextureView)>,
    pub pairs: &'a wgpu::Buffer,
    /// Bytes of one window's pairs (the binding's size).
    pub pairs_stride: u64,
    pub hits: &'a wgpu::Buffer,
    /// Bytes of one window's output (the binding's size).
    pub hits_stride: u64,
    pub counters: &'a wgpu::Buffer,
}

/// One dispatch: one kind of pair in one window, or a window's deferred
/// pairs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dispatch {
    pub kind: usize,
    /// Offsets of its parameters, its window's pairs and its window's output.
    pub offsets: [u32; 3],
    pub groups: (u32, u32),
    /// The deferred pairs' dispatch: where its workgroup counts are in the
    /// indirect buffer (copied there from the counters, which the first
    /// dispatches wrote). Such dispatches run in a second pass.
    pub indirect: Option<u64>,
}

/// A copy from the device's buffers into the staging buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StagingCopy {
    pub source_offset: u64,
    pub staging_offset: u64,
    pub bytes: u64,
}

impl SatPipelines {
    /// Compiles dimension `D`'s kernel's entry points for `workgroup_size`,
    /// with the software kinds' slots or the hardware kinds'.
    pub fn new<D: Dimension>(
        context: &GpuContext,
        workgroup_size: u32,
        software_kinds: bool,
    ) -> Result<SatPipelines, GpuError> {
        let device = context.device();
        let module = context.scoped("the SAT shader", || {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(D::LABEL),
                source: wgpu::ShaderSource::Wgsl(D::SOURCE.into()),
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
        let mut entries = vec![
            uniform,
            storage_entry(4, true, true),
            storage_entry(5, false, true),
            storage_entry(6, false, false),
        ];
        entries.extend(D::scene_layout());
        let layout = context.scoped("the SAT bindings", || {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("sat bindings"),
                entries: &entries,
            })
        })?;
        let pipeline_layout = context.scoped("the SAT pipeline layout", || {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("sat"),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            })
        })?;
        Ok(SatPipelines {
            module,
            software_module: None,
            software_source: D::SOFTWARE_SOURCE,
            software_kinds: D::SOFTWARE_KINDS,
            pipeline_layout,
            entry_points: D::ENTRY_POINTS,
            workgroup_size,
            parallel_slots: !software_kinds,
            pipelines: D::ENTRY_POINTS.iter().map(|_| None).collect(),
            compile_times: D::ENTRY_POINTS.iter().map(|_| None).collect(),
            layout,
        })
    }

    /// Compiles the pipelines of `dispatches`' kinds that are not yet.
    pub fn prepare(
        &mut self,
        context: &GpuContext,
        dispatches: &[Dispatch],
    ) -> Result<(), GpuError> {
        self.prepare_kinds(context, dispatches.iter().map(|dispatch| dispatch.kind))
    }

    /// Compiles the pipelines of `kinds` that are not yet, timing each.
    pub fn prepare_kinds(
        &mut self,
        context: &GpuContext,
        kinds: impl IntoIterator<Item = usize>,
    ) -> Result<(), GpuError> {
        let constants = [
            ("WORKGROUP_SIZE", f64::from(self.workgroup_size)),
            ("PARALLEL_SLOTS", f64::from(u8::from(self.parallel_slots))),
        ];
        for kind in kinds {
            let Some(&entry_point) = self.entry_points.get(kind) else {
                return Err(GpuError::Validation {
                    what: format!("the pipeline of kind {kind}"),
                    message: format!("the kernel has {} entry points", self.entry_points.len()),
                });
            };
            if self.pipelines[kind].is_some() {
                continue;
            }
            let start = crate::core::clock::Instant::now();
            self.ensure_module(context, kind)?;
            let module = self.module_of(kind);
            let pipeline = context.scoped("the SAT pipelines", || {
                context
                    .device()
                    .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: Some(entry_point),
                        layout: Some(&self.pipeline_layout),
                        module,
                        entry_point: Some(entry_point),
                        compilation_options: wgpu::PipelineCompilationOptions {
                            constants: &constants,
                            // Every slot is written before it is read.
                            zero_initialize_workgroup_memory: false,
                        },
                        cache: None,
                    })
            })?;
            self.pipelines[kind] = Some(pipeline);
            self.compile_times[kind] = Some(start.elapsed());
        }
        Ok(())
    }

    /// Whether `kind`'s entry point is in the software module.
    fn in_software_module(&self, kind: usize) -> bool {
        self.software_source.is_some() && self.software_kinds.contains(&kind)
    }

    /// Creates the software module if `kind`'s entry point is in it and it
    /// is not yet.
    fn ensure_module(&mut self, context: &GpuContext, kind: usize) -> Result<(), GpuError> {
        let Some((label, source)) = self.software_source else {
            return Ok(());
        };
        if self.software_module.is_some() || !self.in_software_module(kind) {
            return Ok(());
        }
        let device = context.device();
        let module = context.scoped("the SAT shader's software module", || {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
        })?;
        self.software_module = Some(module);
        Ok(())
    }

    /// The module that holds `kind`'s entry point (after
    /// [`Self::ensure_module`]).
    fn module_of(&self, kind: usize) -> &wgpu::ShaderModule {
        match (&self.software_module, self.in_software_module(kind)) {
            (Some(software), true) => software,
            _ => &self.module,
        }
    }

    /// Whether the software module has been created (a pipeline of one of
    /// its kinds was).
    pub fn software_module_created(&self) -> bool {
        self.software_module.is_some()
    }

    /// Every kind's entry point, and how long its pipeline took to create
    /// where it is compiled.
    pub fn compiled(&self) -> Vec<(&'static str, Option<std::time::Duration>)> {
        self.entry_points
            .iter()
            .copied()
            .zip(self.compile_times.iter().copied())
            .collect()
    }

    /// The bind group over these buffers and textures.
    pub fn bind_group(
        &self,
        context: &GpuContext,
        bindings: &Bindings,
    ) -> Result<wgpu::BindGroup, GpuError> {
        let buffer = |buffer, size| {
            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset: 0,
                size: wgpu::BufferSize::new(size),
            })
        };
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer(bindings.params, size_of::<Params>() as u64),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: buffer(bindings.pairs, bindings.pairs_stride),
            },
            wgpu::BindGroupEntry {
                binding: 5,
                resource: buffer(bindings.hits, bindings.hits_stride),
            },
            wgpu::BindGroupEntry {
                binding: 6,
                resource: bindings.counters.as_entire_binding(),
            },
        ];
        entries.extend(
            bindings
                .scene
                .iter()
                .map(|&(binding, view)| wgpu::BindGroupEntry {
                    binding,
                    resource: wgpu::BindingResource::TextureView(view),
                }),
        );
        context.scoped("the SAT bind group", || {
            context
                .device()
                .create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("sat bindings"),
                    layout: &self.layout,
                    entries: &entries,
                })
        })
    }

    /// Records the passes and the copies back:
    ///
    /// ```text
    /// clear the windows' counters
    /// one compute pass (a timestamp before it): each dispatch's pipeline,
    ///     bind group at its window's offsets, a 2D grid of workgroups
    /// where pairs may have been deferred: copy each window's workgroup
    ///     counts from the counters into the indirect buffer, and a second
    ///     pass of the deferred dispatches, each as large as its count says
    /// (a timestamp after the last pass)
    /// copy the counters, the timestamps and each window's output into staging
    /// ```
    ///
    /// (The counts are copied because a dispatch may not read its size from
    /// a buffer it also binds for writing.)
    #[allow(clippy::too_many_arguments)]
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bind_group: &wgpu::BindGroup,
        dispatches: &[Dispatch],
        (counters, counter_bytes): (&wgpu::Buffer, u64),
        (indirect, indirect_copies): (&wgpu::Buffer, &[StagingCopy]),
        timestamps: Option<&(wgpu::QuerySet, wgpu::Buffer)>,
        (hits, copies): (&wgpu::Buffer, &[StagingCopy]),
        (staging, timestamp_offset): (&wgpu::Buffer, u64),
    ) -> Result<(), GpuError> {
        encoder.clear_buffer(counters, 0, Some(counter_bytes));
        let (first, deferred): (Vec<&Dispatch>, Vec<&Dispatch>) = dispatches
            .iter()
            .partition(|dispatch| dispatch.indirect.is_none());
        let passes = if deferred.is_empty() { 1 } else { 2 };
        for pass_index in 0..passes {
            if pass_index == 1 {
                for copy in indirect_copies {
                    encoder.copy_buffer_to_buffer(
                        counters,
                        copy.source_offset,
                        indirect,
                        copy.staging_offset,
                        copy.bytes,
                    );
                }
            }
            let timestamp_writes =
                timestamps.map(|(query_set, _)| wgpu::ComputePassTimestampWrites {
                    query_set,
                    beginning_of_pass_write_index: (pass_index == 0).then_some(0),
                    end_of_pass_write_index: (pass_index + 1 == passes).then_some(1),
                });
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(if pass_index == 0 {
                    "sat"
                } else {
                    "sat deferred"
                }),
                timestamp_writes,
            });
            for dispatch in if pass_index == 0 { &first } else { &deferred } {
                // Compiled by `prepare`, which every recording calls first.
                let Some(Some(pipeline)) = self.pipelines.get(dispatch.kind) else {
                    return Err(GpuError::Validation {
                        what: format!(
                            "the {} pipeline",
                            self.entry_points.get(dispatch.kind).unwrap_or(&"deferred")
                        ),
                        message: "recorded before it was compiled (SatPipelines::prepare)"
                            .to_string(),
                    });
                };
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, bind_group, &dispatch.offsets);
                match dispatch.indirect {
                    Some(offset) => pass.dispatch_workgroups_indirect(indirect, offset),
                    None => pass.dispatch_workgroups(dispatch.groups.0, dispatch.groups.1, 1),
                }
            }
        }
        encoder.copy_buffer_to_buffer(counters, 0, staging, 0, counter_bytes);
        if let Some((query_set, resolve)) = timestamps {
            encoder.resolve_query_set(query_set, 0..2, resolve, 0);
            encoder.copy_buffer_to_buffer(resolve, 0, staging, timestamp_offset, 16);
        }
        for copy in copies.iter().filter(|copy| copy.bytes > 0) {
            encoder.copy_buffer_to_buffer(
                hits,
                copy.source_offset,
                staging,
                copy.staging_offset,
                copy.bytes,
            );
        }
        Ok(())
    }
}

/// Bytes of `records` hit records.
pub(crate) fn record_bytes(records: u32) -> u64 {
    u64::from(records) * size_of::<HitRecord>() as u64
}

/// The 2D grid of workgroups for `count` pairs: as wide as the device
/// allows, then as many rows as needed.
pub(crate) fn grid(count: u32, workgroup_size: u32, max_groups: u32) -> (u32, u32) {
    let groups = count.div_ceil(workgroup_size);
    let groups_x = groups.clamp(1, max_groups);
    (groups_x, groups.div_ceil(groups_x))
}

/// Parameter slots per window: one per kind of pair, and one for the
/// second dispatch of the pairs deferred ([`DEFERRED_KIND`], an entry point
/// of a dimension that defers; `shaders/d3/software.wgsl`, "Deferred pairs").
pub(crate) const PARAM_SLOTS: usize = PAIR_KINDS + 1;

/// The deferred pairs' entry point and parameter slot.
pub(crate) const DEFERRED_KIND: usize = PAIR_KINDS;

/// Where each kind's parameters sit for window `window` (`kind` up to
/// `PAIR_KINDS`, the deferred dispatch's).
pub(crate) fn params_offset(window: usize, kind: usize) -> u64 {
    (window * PARAM_SLOTS + kind) as u64 * PARAMS_STRIDE
}
