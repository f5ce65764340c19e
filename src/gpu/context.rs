//! The GPU context: adapter choice, device, and error capture.
//!
//! Build one [`GpuContext`] and reuse it: it holds the device and queue that
//! every GPU pipeline of this crate is built on. [`GpuContext::new`] finds an
//! adapter and opens a device of its own; [`GpuContext::from_device`] takes
//! an engine's device and queue, so that the narrowphase shares buffers and
//! submissions with the engine's own work. Errors that wgpu would otherwise
//! turn into a panic are captured: everything this crate creates runs inside
//! error scopes, and on a device of its own it also listens for uncaptured
//! errors and device loss ([`GpuContext::check`]). A caller's device keeps
//! the caller's handlers.

use std::sync::{Arc, Mutex};

use super::error::GpuError;
use super::layout::TEXTURE_WIDTH;

/// The most invocations a workgroup may have: what every adapter must allow
/// (WebGPU's limit), and what the kernels' workgroup arrays are sized for
/// (`MAX_WORKGROUP_SIZE` in `shaders/batch.wgsl`).
pub(crate) const MAX_WORKGROUP_SIZE: u32 = 256;

/// How to pick an adapter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum AdapterChoice {
    /// Hardware first (discrete, integrated, virtual), then a software
    /// adapter such as Mesa's lavapipe; Vulkan, Metal and DX12 before GL.
    #[default]
    Auto,
    /// The first adapter whose name contains this text (case-insensitive), or
    /// whose type (`discrete`, `integrated`, `virtual`, `cpu`) or backend
    /// (`vulkan`, `metal`, `dx12`, `gl`) is this word.
    Named(String),
}

impl AdapterChoice {
    /// `auto` (or nothing) for [`AdapterChoice::Auto`], anything else as a name.
    pub fn parse(text: &str) -> AdapterChoice {
        if text.is_empty() || text.eq_ignore_ascii_case("auto") {
            AdapterChoice::Auto
        } else {
            AdapterChoice::Named(text.to_string())
        }
    }

    fn matches(&self, info: &wgpu::AdapterInfo) -> bool {
        match self {
            AdapterChoice::Auto => true,
            AdapterChoice::Named(name) => {
                let wanted = name.to_lowercase();
                info.name.to_lowercase().contains(&wanted)
                    || device_type_name(info.device_type) == wanted
                    || backend_name(info.backend) == wanted
            }
        }
    }
}

/// What `gpusat info` shows of an adapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterSummary {
    /// The adapter's name.
    pub name: String,
    /// Its backend: `vulkan`, `metal`, `dx12`, `gl`, ...
    pub backend: String,
    /// Its type: `discrete`, `integrated`, `virtual`, `cpu` (software), `other`.
    pub device_type: String,
    /// The driver's name.
    pub driver: String,
    /// The driver's version and details.
    pub driver_info: String,
    /// Whether it can run compute shaders (the kernel needs them).
    pub compute: bool,
}

impl std::fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}, {}, driver {} {})",
            self.name,
            self.backend,
            self.device_type,
            if self.driver.is_empty() {
                "?"
            } else {
                &self.driver
            },
            self.driver_info
        )?;
        if !self.compute {
            write!(f, " [no compute shaders]")?;
        }
        Ok(())
    }
}

/// The short name of a device type, as [`AdapterChoice::Named`] matches it.
pub fn device_type_name(device_type: wgpu::DeviceType) -> &'static str {
    match device_type {
        wgpu::DeviceType::DiscreteGpu => "discrete",
        wgpu::DeviceType::IntegratedGpu => "integrated",
        wgpu::DeviceType::VirtualGpu => "virtual",
        wgpu::DeviceType::Cpu => "cpu",
        wgpu::DeviceType::Other => "other",
    }
}

/// The short name of a backend, as [`AdapterChoice::Named`] matches it.
pub fn backend_name(backend: wgpu::Backend) -> &'static str {
    match backend {
        wgpu::Backend::Vulkan => "vulkan",
        wgpu::Backend::Metal => "metal",
        wgpu::Backend::Dx12 => "dx12",
        wgpu::Backend::Gl => "gl",
        wgpu::Backend::BrowserWebGpu => "webgpu",
        wgpu::Backend::Noop => "noop",
    }
}

fn summary_of(info: &wgpu::AdapterInfo, compute: bool) -> AdapterSummary {
    AdapterSummary {
        name: info.name.clone(),
        backend: backend_name(info.backend).to_string(),
        device_type: device_type_name(info.device_type).to_string(),
        driver: info.driver.clone(),
        driver_info: info.driver_info.clone(),
        compute,
    }
}

fn summary(adapter: &wgpu::Adapter) -> AdapterSummary {
    summary_of(&adapter.get_info(), supports_compute(adapter))
}

fn supports_compute(adapter: &wgpu::Adapter) -> bool {
    adapter
        .get_downlevel_capabilities()
        .flags
        .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
}

/// Preference order for `Auto`: lower is better.
fn rank(info: &wgpu::AdapterInfo) -> (u8, u8) {
    let device = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    let backend = match info.backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        _ => 1,
    };
    (device, backend)
}

/// An instance for `backends`, unless `WGPU_BACKEND` says otherwise.
fn instance(backends: wgpu::Backends) -> wgpu::Instance {
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
    descriptor.backends = backends;
    wgpu::Instance::new(descriptor.with_env())
}

/// The backends to try, in order: Vulkan, Metal and DX12 first; GL only when
/// they offer nothing (initialising GL is slow and, on Mesa, noisy).
const BACKEND_TIERS: [wgpu::Backends; 2] = [wgpu::Backends::PRIMARY, wgpu::Backends::SECONDARY];

fn adapters_of(instance: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    // A page has no list of adapters to wait for (it asks for one,
    // asynchronously).
    if cfg!(target_arch = "wasm32") {
        return Vec::new();
    }
    let mut adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    adapters.sort_by_key(|a| rank(&a.get_info()));
    adapters
}

/// Every adapter wgpu can see, in the order `Auto` prefers them.
pub fn list_adapters() -> Vec<AdapterSummary> {
    BACKEND_TIERS
        .iter()
        .flat_map(|&backends| adapters_of(&instance(backends)))
        .map(|adapter| summary(&adapter))
        .collect()
}

/// Errors captured from wgpu's callbacks.
#[derive(Default)]
struct ErrorSink {
    uncaptured: Mutex<Vec<String>>,
    lost: Mutex<Option<String>>,
}

/// A device and its queue, and what this crate knows of them.
pub struct GpuContext {
    // Kept alive for as long as the device, when this crate opened it.
    _instance: Option<wgpu::Instance>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    summary: AdapterSummary,
    device_type: wgpu::DeviceType,
    timestamps: bool,
    /// The features the adapter offers (a caller's device: those it has).
    offered: wgpu::Features,
    /// wgpu's callbacks, on a device this crate opened.
    errors: Option<Arc<ErrorSink>>,
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext")
            .field("adapter", &self.summary)
            .field("timestamps", &self.timestamps)
            .field("own_device", &self.errors.is_some())
            .finish()
    }
}

impl GpuContext {
    /// Finds an adapter as `choice` says and opens a device of its own on it,
    /// with the limits the adapter offers for what the narrowphase uses, and
    /// timestamp queries when it has them.
    ///
    /// In a browser this is [`GpuError::Blocking`]: open the device there
    /// with wgpu's asynchronous calls and wrap it with
    /// [`from_device`](Self::from_device).
    pub fn new(choice: &AdapterChoice) -> Result<GpuContext, GpuError> {
        if cfg!(target_arch = "wasm32") {
            return Err(GpuError::Blocking {
                what: "opening a device (GpuContext::new)",
            });
        }
        let mut found = None;
        for backends in BACKEND_TIERS {
            let instance = instance(backends);
            let chosen = adapters_of(&instance)
                .into_iter()
                .find(|a| choice.matches(&a.get_info()) && supports_compute(a));
            if let Some(adapter) = chosen {
                found = Some((instance, adapter));
                break;
            }
        }
        let Some((instance, adapter)) = found else {
            return Err(GpuError::NoAdapter {
                requested: match choice {
                    AdapterChoice::Auto => None,
                    AdapterChoice::Named(name) => Some(name.clone()),
                },
                found: list_adapters().iter().map(|a| a.to_string()).collect(),
            });
        };

        let offered = adapter.limits();
        let required_limits = wgpu::Limits {
            max_storage_buffer_binding_size: offered.max_storage_buffer_binding_size,
            max_texture_dimension_2d: offered.max_texture_dimension_2d,
            max_buffer_size: offered.max_buffer_size,
            max_compute_workgroups_per_dimension: offered.max_compute_workgroups_per_dimension,
            max_compute_invocations_per_workgroup: offered
                .max_compute_invocations_per_workgroup
                .min(MAX_WORKGROUP_SIZE),
            max_compute_workgroup_size_x: offered
                .max_compute_workgroup_size_x
                .min(MAX_WORKGROUP_SIZE),
            max_storage_buffers_per_shader_stage: offered
                .max_storage_buffers_per_shader_stage
                .min(8),
            ..wgpu::Limits::downlevel_defaults()
        };
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        // What gpusat uses where the adapter offers it: timestamp queries
        // (kernel and stage times) and subgroup operations (the frame's
        // prefix sums).
        let required_features =
            adapter.features() & (wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::SUBGROUP);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("gpusat"),
            required_features,
            required_limits,
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|err| GpuError::Validation {
            what: format!("a device on {}", adapter.get_info().name),
            message: err.to_string(),
        })?;

        let errors = Arc::new(ErrorSink::default());
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |err: wgpu::Error| {
            if let Ok(mut list) = sink.uncaptured.lock() {
                list.push(err.to_string());
            }
        }));
        let sink = errors.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut lost) = sink.lost.lock() {
                *lost = Some(format!("{reason:?}: {message}"));
            }
        });

        let info = adapter.get_info();
        let context = GpuContext {
            summary: summary(&adapter),
            device_type: info.device_type,
            _instance: Some(instance),
            device,
            queue,
            timestamps,
            offered: adapter.features(),
            errors: Some(errors),
        };
        context.check_capabilities()?;
        Ok(context)
    }

    /// Wraps a device and queue the caller opened, so that the narrowphase
    /// runs on the caller's GPU: its buffers on the caller's device, its
    /// work recorded into the caller's command encoders
    /// ([`GpuNarrowphase::record`](super::GpuNarrowphase::record)).
    ///
    /// Any device that can run compute shaders will do, one opened with
    /// `wgpu::DeviceDescriptor::default()` included: windows of pairs are
    /// sized from the device's own limits, kernel times are measured only
    /// when it has `TIMESTAMP_QUERY`, and a missing capability is an error
    /// that names it. The caller's error and device-lost handlers are left
    /// as they are; this crate's own calls run inside error scopes, except
    /// in a browser, where WebGPU reports errors asynchronously and they
    /// reach the caller's uncaptured-error handler. This is how a page gets
    /// a context: its device opened with wgpu's asynchronous calls.
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue) -> Result<GpuContext, GpuError> {
        let info = device.adapter_info();
        let timestamps = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let context = GpuContext {
            _instance: None,
            summary: summary_of(
                &info,
                device.limits().max_compute_workgroups_per_dimension > 0,
            ),
            device_type: info.device_type,
            offered: device.features(),
            device,
            queue,
            timestamps,
            errors: None,
        };
        context.check_capabilities()?;
        Ok(context)
    }

    /// Fails, naming it, on the first thing the narrowphase needs that the
    /// device lacks.
    fn check_capabilities(&self) -> Result<(), GpuError> {
        let limits = self.device.limits();
        let missing = |capability: &'static str, detail: String| {
            Err(GpuError::MissingCapability { capability, detail })
        };
        if limits.max_compute_workgroups_per_dimension == 0
            || limits.max_compute_invocations_per_workgroup == 0
        {
            return missing(
                "compute shaders",
                "its compute limits are zero (a WebGL2-class device)".to_string(),
            );
        }
        if limits.max_storage_buffers_per_shader_stage < 3 {
            return missing(
                "storage buffers",
                format!(
                    "3 per compute shader needed, {} allowed",
                    limits.max_storage_buffers_per_shader_stage
                ),
            );
        }
        if limits.max_dynamic_storage_buffers_per_pipeline_layout < 2 {
            return missing(
                "dynamic storage buffer offsets",
                format!(
                    "2 needed, {} allowed",
                    limits.max_dynamic_storage_buffers_per_pipeline_layout
                ),
            );
        }
        if limits.max_dynamic_uniform_buffers_per_pipeline_layout < 1 {
            return missing(
                "dynamic uniform buffer offsets",
                "1 needed, 0 allowed".to_string(),
            );
        }
        if limits.max_sampled_textures_per_shader_stage < 3 {
            return missing(
                "sampled textures",
                format!(
                    "3 per compute shader needed, {} allowed",
                    limits.max_sampled_textures_per_shader_stage
                ),
            );
        }
        if limits.max_texture_dimension_2d < TEXTURE_WIDTH {
            return missing(
                "2D textures wide enough",
                format!(
                    "{TEXTURE_WIDTH} texels needed, {} allowed",
                    limits.max_texture_dimension_2d
                ),
            );
        }
        if limits.min_uniform_buffer_offset_alignment > 256 {
            return missing(
                "uniform offsets at 256-byte strides",
                format!(
                    "its uniform offsets must be multiples of {} bytes",
                    limits.min_uniform_buffer_offset_alignment
                ),
            );
        }
        if limits.max_compute_workgroup_storage_size < 1028 {
            return missing(
                "workgroup memory",
                format!(
                    "1028 bytes needed, {} allowed",
                    limits.max_compute_workgroup_storage_size
                ),
            );
        }
        if limits.max_uniform_buffers_per_shader_stage < 1
            || limits.max_uniform_buffer_binding_size < 32
        {
            return missing(
                "uniform buffers",
                format!(
                    "1 of 32 bytes needed, {} of {} bytes allowed",
                    limits.max_uniform_buffers_per_shader_stage,
                    limits.max_uniform_buffer_binding_size
                ),
            );
        }
        if limits.max_bind_groups < 1 || limits.max_bindings_per_bind_group < 7 {
            return missing(
                "bindings",
                format!(
                    "1 bind group of 7 bindings needed, {} of {} allowed",
                    limits.max_bind_groups, limits.max_bindings_per_bind_group
                ),
            );
        }
        if limits.max_storage_buffer_binding_size < 1 << 16 {
            return missing(
                "storage bindings large enough",
                format!(
                    "64 KiB needed, {} bytes allowed",
                    limits.max_storage_buffer_binding_size
                ),
            );
        }
        Ok(())
    }

    /// The adapter the device runs on.
    pub fn adapter(&self) -> &AdapterSummary {
        &self.summary
    }

    /// The device.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The device's queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// The limits the device was opened with.
    pub fn limits(&self) -> wgpu::Limits {
        self.device.limits()
    }

    /// Whether kernel times can be measured with timestamp queries.
    pub fn has_timestamps(&self) -> bool {
        self.timestamps
    }

    /// Whether the device has subgroup operations (`wgpu::Features::SUBGROUP`:
    /// Vulkan, Metal, DX12 where the hardware has them; lavapipe too).
    pub fn has_subgroups(&self) -> bool {
        self.device.features().contains(wgpu::Features::SUBGROUP)
    }

    /// The features the adapter offers, whether or not the device was
    /// opened with them (a caller's device: the features it has). gpusat
    /// uses `TIMESTAMP_QUERY` and `SUBGROUP` where offered.
    pub fn offered_features(&self) -> wgpu::Features {
        self.offered
    }

    /// Whether the adapter is a software one (lavapipe, SwiftShader, WARP):
    /// wgpu's device type `Cpu`.
    pub fn is_software(&self) -> bool {
        self.device_type == wgpu::DeviceType::Cpu
    }

    /// Whether the device is a native software adapter (lavapipe, llvmpipe),
    /// the one the software kinds and the lavapipe loop limit's workarounds
    /// are made for. In a browser, never: WGSL goes through the browser's
    /// own compiler there, even to its software adapter (Chromium's
    /// SwiftShader), which runs the hardware kinds (and loses its device on
    /// the software kinds' 3D shaders).
    pub(crate) fn is_native_software(&self) -> bool {
        !cfg!(target_arch = "wasm32") && self.is_software()
    }

    /// Whether this crate opened the device ([`GpuContext::new`]) rather
    /// than the caller ([`GpuContext::from_device`]).
    pub fn owns_device(&self) -> bool {
        self.errors.is_some()
    }

    /// Fails if the device was lost or wgpu reported an error nobody caught
    /// (known on a device this crate opened; on a caller's device those go to
    /// the caller's handlers).
    pub fn check(&self) -> Result<(), GpuError> {
        let Some(errors) = &self.errors else {
            return Ok(());
        };
        if let Some(reason) = errors.lost.lock().ok().and_then(|lost| lost.clone()) {
            return Err(GpuError::DeviceLost { reason });
        }
        let mut list = match errors.uncaptured.lock() {
            Ok(list) => list,
            Err(_) => {
                return Err(GpuError::Uncaptured {
                    message: "the GPU error log is poisoned".to_string(),
                });
            }
        };
        if let Some(first) = list.first().cloned() {
            let more = list.len() - 1;
            list.clear();
            return Err(GpuError::Uncaptured {
                message: if more > 0 {
                    format!("{first} (and {more} more)")
                } else {
                    first
                },
            });
        }
        Ok(())
    }

    /// Runs `create` inside error scopes, so that running out of memory or a
    /// validation error comes back as an error instead of a panic. In a
    /// browser, which reports errors asynchronously and where a page cannot
    /// wait for a scope, without: an error there goes to the device's
    /// uncaptured-error handler (this crate's, read by [`check`](Self::check),
    /// on a device it opened; the caller's on the caller's).
    pub(crate) fn scoped<T>(&self, what: &str, create: impl FnOnce() -> T) -> Result<T, GpuError> {
        if cfg!(target_arch = "wasm32") {
            return Ok(create());
        }
        let memory = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = create();
        let validation_error = pollster::block_on(validation.pop());
        let memory_error = pollster::block_on(memory.pop());
        if let Some(err) = memory_error {
            return Err(GpuError::OutOfMemory {
                what: what.to_string(),
                message: err.to_string(),
            });
        }
        if let Some(err) = validation_error {
            return Err(GpuError::Validation {
                what: what.to_string(),
                message: err.to_string(),
            });
        }
        Ok(value)
    }

    /// Waits for `submission` (or everything submitted, with `None`),
    /// turning a failed wait into an error.
    pub(crate) fn wait(&self, submission: Option<wgpu::SubmissionIndex>) -> Result<(), GpuError> {
        if cfg!(target_arch = "wasm32") {
            return Err(GpuError::Blocking {
                what: "waiting for submitted work (collide, wait, a frame's readback)",
            });
        }
        let waited = self.device.poll(wgpu::PollType::Wait {
            submission_index: submission,
            timeout: None,
        });
        // A rejected submission makes the wait fail too: report the cause.
        self.check()?;
        waited.map(|_| ()).map_err(|err| GpuError::DeviceLost {
            reason: format!(
                "the GPU did not run the submitted work; the device may have been lost or \
                 destroyed ({err})"
            ),
        })
    }

    /// Runs the callbacks of finished work without waiting.
    pub(crate) fn poll(&self) -> Result<(), GpuError> {
        let polled = self.device.poll(wgpu::PollType::Poll);
        self.check()?;
        polled.map(|_| ()).map_err(|err| GpuError::DeviceLost {
            reason: format!("polling the device failed ({err})"),
        })
    }
}
