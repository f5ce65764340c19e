//! Compiling the frame's shaders: one module per concern, one bind group
//! layout per module, a pipeline per entry point.

use super::super::context::GpuContext;
use super::super::error::GpuError;

/// A shader module's pipelines and their bind group layout.
pub(crate) struct Kernel {
    pub layout: wgpu::BindGroupLayout,
    pipelines: Vec<(&'static str, wgpu::ComputePipeline)>,
}

impl Kernel {
    /// Compiles `source`'s `entry_points` against one bind group of `entries`.
    pub fn new(
        context: &GpuContext,
        label: &'static str,
        source: &str,
        entries: &[wgpu::BindGroupLayoutEntry],
        entry_points: &[&'static str],
        constants: &[(&str, f64)],
    ) -> Result<Kernel, GpuError> {
        let device = context.device();
        let what = format!("the frame's {label} shader");
        let module = context.scoped(&what, || {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
        })?;
        let layout = context.scoped(&what, || {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries,
            })
        })?;
        let pipeline_layout = context.scoped(&what, || {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            })
        })?;
        let pipelines = entry_points
            .iter()
            .map(|&entry_point| {
                context
                    .scoped(&what, || {
                        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                            label: Some(entry_point),
                            layout: Some(&pipeline_layout),
                            module: &module,
                            entry_point: Some(entry_point),
                            compilation_options: wgpu::PipelineCompilationOptions {
                                constants,
                                zero_initialize_workgroup_memory: false,
                            },
                            cache: None,
                        })
                    })
                    .map(|pipeline| (entry_point, pipeline))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Kernel { layout, pipelines })
    }

    /// The pipeline of `entry_point` (one of those it was built with).
    pub fn pipeline(&self, entry_point: &str) -> &wgpu::ComputePipeline {
        &self
            .pipelines
            .iter()
            .find(|(name, _)| *name == entry_point)
            .expect("an entry point the kernel was built with")
            .1
    }

    /// A bind group of `resources`, by binding, on this kernel's layout.
    pub fn bind(
        &self,
        context: &GpuContext,
        label: &str,
        resources: &[(u32, wgpu::BindingResource<'_>)],
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = resources
            .iter()
            .map(|(binding, resource)| wgpu::BindGroupEntry {
                binding: *binding,
                resource: resource.clone(),
            })
            .collect();
        context
            .device()
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout: &self.layout,
                entries: &entries,
            })
    }
}

/// A uniform binding, at a dynamic offset when `dynamic`.
pub(crate) fn uniform(binding: u32, dynamic: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: dynamic,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A storage buffer binding (the batch kernels' entry, without a dynamic
/// offset).
pub(crate) fn storage(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    super::super::dispatch::storage_entry(binding, read_only, false)
}

/// A write-only storage texture binding.
pub(crate) fn storage_texture(
    binding: u32,
    format: wgpu::TextureFormat,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::StorageTexture {
            access: wgpu::StorageTextureAccess::WriteOnly,
            format,
            view_dimension: wgpu::TextureViewDimension::D2,
        },
        count: None,
    }
}

/// `bytes` of `buffer` from `offset`, as a binding.
pub(crate) fn range(buffer: &wgpu::Buffer, offset: u64, bytes: u64) -> wgpu::BindingResource<'_> {
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer,
        offset,
        size: wgpu::BufferSize::new(bytes.max(4)),
    })
}
