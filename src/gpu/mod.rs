//! The GPU backend: a WGSL compute shader per candidate pair, through wgpu.
//!
//! [`GpuContext`] picks the adapter and opens the device once;
//! [`GpuNarrowphase`] builds the SAT pipeline and its buffers on it and runs
//! batches. `shaders/sat.wgsl` is the kernel, the twin of [`crate::sat`].

mod context;
pub mod layout;
mod narrowphase;

pub use context::{
    AdapterChoice, AdapterSummary, GpuContext, NO_ADAPTER_HELP, backend_name, device_type_name,
    list_adapters,
};
pub use narrowphase::{DEFAULT_WORKGROUP_SIZE, GpuNarrowphase, GpuOptions, GpuStats};
