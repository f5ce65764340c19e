//! The GPU context: adapter choice, device, and error capture.
//!
//! Build one [`GpuContext`] and reuse it: it owns the device and queue that
//! every GPU pipeline of this crate is built on. Errors that wgpu would
//! otherwise turn into a panic (validation errors, device loss) are captured
//! and returned by [`GpuContext::check`].

use std::sync::{Arc, Mutex};

use crate::error::Error;

/// How to pick an adapter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
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

pub fn device_type_name(device_type: wgpu::DeviceType) -> &'static str {
    match device_type {
        wgpu::DeviceType::DiscreteGpu => "discrete",
        wgpu::DeviceType::IntegratedGpu => "integrated",
        wgpu::DeviceType::VirtualGpu => "virtual",
        wgpu::DeviceType::Cpu => "cpu",
        wgpu::DeviceType::Other => "other",
    }
}

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

/// What to say when there is no adapter.
pub const NO_ADAPTER_HELP: &str = "no GPU adapter found. For a software adapter install Mesa's \
     Vulkan drivers (Debian/Ubuntu: apt-get install mesa-vulkan-drivers), or use --backend cpu";

fn summary(adapter: &wgpu::Adapter) -> AdapterSummary {
    let info = adapter.get_info();
    AdapterSummary {
        name: info.name.clone(),
        backend: backend_name(info.backend).to_string(),
        device_type: device_type_name(info.device_type).to_string(),
        driver: info.driver.clone(),
        driver_info: info.driver_info.clone(),
        compute: supports_compute(adapter),
    }
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

/// An adapter, its device and queue, built once and shared.
pub struct GpuContext {
    // Kept alive for as long as the device.
    _instance: wgpu::Instance,
    adapter: wgpu::Adapter,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    summary: AdapterSummary,
    timestamps: bool,
    errors: Arc<ErrorSink>,
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext")
            .field("adapter", &self.summary)
            .field("timestamps", &self.timestamps)
            .finish()
    }
}

impl GpuContext {
    /// Finds an adapter as `choice` says and opens a device on it.
    pub fn new(choice: &AdapterChoice) -> Result<GpuContext, Error> {
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
            let seen: Vec<String> = list_adapters().iter().map(|a| a.to_string()).collect();
            if seen.is_empty() {
                return Err(Error::NoAdapter(NO_ADAPTER_HELP.to_string()));
            }
            return Err(Error::NoAdapter(match choice {
                AdapterChoice::Auto => format!(
                    "no GPU adapter with compute shaders (found: {}). {NO_ADAPTER_HELP}",
                    seen.join("; ")
                ),
                AdapterChoice::Named(name) => format!(
                    "no adapter with compute shaders matches \"{name}\" (found: {})",
                    seen.join("; ")
                ),
            }));
        };

        let offered = adapter.limits();
        let required_limits = wgpu::Limits {
            max_storage_buffer_binding_size: offered.max_storage_buffer_binding_size,
            max_texture_dimension_2d: offered.max_texture_dimension_2d,
            max_buffer_size: offered.max_buffer_size,
            max_compute_workgroups_per_dimension: offered.max_compute_workgroups_per_dimension,
            max_compute_invocations_per_workgroup: offered
                .max_compute_invocations_per_workgroup
                .min(256),
            max_compute_workgroup_size_x: offered.max_compute_workgroup_size_x.min(256),
            max_storage_buffers_per_shader_stage: offered
                .max_storage_buffers_per_shader_stage
                .min(8),
            ..wgpu::Limits::downlevel_defaults()
        };
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let required_features = if timestamps {
            wgpu::Features::TIMESTAMP_QUERY
        } else {
            wgpu::Features::empty()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("gpusat"),
            required_features,
            required_limits,
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|err| {
            Error::Gpu(format!(
                "cannot open a device on {}: {err}",
                adapter.get_info().name
            ))
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

        Ok(GpuContext {
            summary: summary(&adapter),
            _instance: instance,
            adapter,
            device,
            queue,
            timestamps,
            errors,
        })
    }

    pub fn adapter(&self) -> &AdapterSummary {
        &self.summary
    }

    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

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

    /// Whether the adapter is a software one (lavapipe, SwiftShader, WARP).
    pub fn is_software(&self) -> bool {
        self.adapter.get_info().device_type == wgpu::DeviceType::Cpu
    }

    /// Fails if the device was lost or wgpu reported an error nobody caught.
    pub fn check(&self) -> Result<(), Error> {
        if let Some(reason) = self.errors.lost.lock().ok().and_then(|lost| lost.clone()) {
            return Err(Error::Gpu(format!("the GPU device was lost ({reason})")));
        }
        let mut list = match self.errors.uncaptured.lock() {
            Ok(list) => list,
            Err(_) => return Err(Error::Gpu("the GPU error log is poisoned".to_string())),
        };
        if let Some(first) = list.first().cloned() {
            let more = list.len() - 1;
            list.clear();
            return Err(Error::Gpu(if more > 0 {
                format!("GPU error: {first} (and {more} more)")
            } else {
                format!("GPU error: {first}")
            }));
        }
        Ok(())
    }

    /// Runs `create` inside error scopes, so that running out of memory or a
    /// validation error comes back as an error instead of a panic.
    pub(crate) fn scoped<T>(&self, what: &str, create: impl FnOnce() -> T) -> Result<T, Error> {
        let memory = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = create();
        let validation_error = pollster::block_on(validation.pop());
        let memory_error = pollster::block_on(memory.pop());
        if let Some(err) = memory_error {
            return Err(Error::Gpu(format!("out of GPU memory for {what}: {err}")));
        }
        if let Some(err) = validation_error {
            return Err(Error::Gpu(format!("cannot create {what}: {err}")));
        }
        Ok(value)
    }

    /// Waits for a submission, turning a failed wait into an error.
    pub(crate) fn wait(&self, submission: wgpu::SubmissionIndex) -> Result<(), Error> {
        let waited = self.device.poll(wgpu::PollType::Wait {
            submission_index: Some(submission),
            timeout: None,
        });
        // A rejected submission makes the wait fail too: report the cause.
        self.check()?;
        waited.map(|_| ()).map_err(|err| {
            Error::Gpu(format!(
                "the GPU did not run the submitted work; the device may have been lost \
                     or destroyed ({err})"
            ))
        })
    }
}
