//! The GPU backend: a WGSL compute shader per candidate pair, through wgpu
//! (the `gpu` feature).
//!
//! [`GpuContext`] holds the device and queue: opened by gpusat
//! ([`GpuContext::new`]) or handed over by an engine
//! ([`GpuContext::from_device`]). [`GpuNarrowphase`] builds the SAT pipeline
//! and its buffers on it and runs batches, either start to finish
//! ([`GpuNarrowphase::collide`]) or recorded into the caller's command
//! encoder and collected later ([`GpuNarrowphase::record`],
//! [`GpuNarrowphase::poll`]). `shaders/d2/sat.wgsl` is the kernel, the twin of
//! [`crate::d2::sat`]; every error is a [`GpuError`].
//!
//! [`GpuFrame`] is the GPU-resident frame: bodies in (a buffer the caller
//! may write), the candidate pairs found, ordered and tested, and their
//! contact manifolds clipped on the device, in one submission; the hits and
//! manifolds stay on the device for a GPU consumer or come back in one map
//! (`frame/`, `shaders/frame/`).
//!
//! | file | concern |
//! |---|---|
//! | `context.rs` | adapter choice, the device, capabilities, error capture |
//! | `buffers.rs` | device memory that only grows, checked against the limits |
//! | `kinds.rs` | kinds of pair and their entry points; a window sorted by kind |
//! | `dispatch.rs` | pipelines, bindings, recording the pass and the copies back |
//! | `windows.rs` | a batch in windows; outputs sized; the layout of one recording |
//! | `readback.rs` | the staging buffer read: compacted records back in pair order, overflows found |
//! | `narrowphase.rs` | device memory, recording, polling, re-runs: one batch from start to finish |
//! | `layout.rs` | the byte layout shared with the kernel |
//! | `frame/` | the GPU-resident frame: grid, scan, radix sort, partition, narrowphase, manifolds |

mod buffers;
pub(crate) mod choice;
mod context;
mod d2;
mod d3;
mod dimension;
mod dispatch;
mod error;
mod frame;
mod kinds;
#[doc(hidden)]
pub mod layout;
mod narrowphase;
mod readback;
mod windows;

pub use context::{
    AdapterChoice, AdapterSummary, GpuContext, backend_name, device_type_name, list_adapters,
};
pub use d3::kinds::ROUNDED_HULL_VERTICES;
pub use dimension::{Dimension, Planar, Spatial};
pub use error::{GpuError, NO_ADAPTER_HELP};
pub use frame::{
    FrameHit, FrameManifold, FrameOptions, FrameOutput, FrameStats, FrameView, GpuFrame,
    MAX_LARGE_BODIES, STATE_HIT_ARGS, STATE_HITS, Stage, TEAM_WALK_BELOW,
};
pub use layout::FrameBody;
pub use narrowphase::{
    DEFAULT_WORKGROUP_SIZE, GpuOptions, GpuSat, GpuStats, KernelKinds, PendingHits,
};

/// The 2D GPU narrowphase: polygons and circles (`shaders/d2/sat.wgsl`).
pub type GpuNarrowphase = GpuSat<Planar>;
