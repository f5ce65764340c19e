//! What can go wrong on the GPU, as values a caller can match on.

/// An error of the GPU backend.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// No adapter (or none matching the one asked for) can run compute
    /// shaders.
    #[error("{}", no_adapter_message(requested.as_deref(), found))]
    NoAdapter {
        /// The adapter asked for by name, type or backend; `None` for any.
        requested: Option<String>,
        /// The adapters wgpu sees, described.
        found: Vec<String>,
    },
    /// The device does not have something the narrowphase needs (compute
    /// shaders, storage buffers, textures, dynamic offsets).
    #[error("the GPU device lacks {capability}, which the narrowphase needs ({detail})")]
    MissingCapability {
        /// What is missing.
        capability: &'static str,
        /// The device's limit and what is needed.
        detail: String,
    },
    /// A buffer or texture larger than the device allows.
    #[error(
        "the {what} need {}, more than the {} the device allows ({limit})",
        format_bytes(*needed, true),
        format_bytes(*allowed, false)
    )]
    OverLimit {
        /// What the memory is for.
        what: String,
        /// Bytes needed.
        needed: u64,
        /// Bytes the device allows.
        allowed: u64,
        /// The wgpu limit (`max_buffer_size`, `max_texture_dimension_2d`, ...).
        limit: &'static str,
    },
    /// The device ran out of memory.
    #[error("out of GPU memory for {what}: {message}")]
    OutOfMemory {
        /// What the memory was for.
        what: String,
        /// wgpu's message.
        message: String,
    },
    /// wgpu refused to create a shader, pipeline or resource.
    #[error("cannot create {what}: {message}")]
    Validation {
        /// What was being created.
        what: String,
        /// wgpu's message.
        message: String,
    },
    /// An error wgpu reported outside any call of this crate (on a device
    /// gpusat opened itself, where it listens for them).
    #[error("GPU error: {message}")]
    Uncaptured {
        /// wgpu's message (and how many more followed).
        message: String,
    },
    /// The device was lost or destroyed, or stopped running submitted work.
    #[error("the GPU device was lost ({reason})")]
    DeviceLost {
        /// What wgpu said.
        reason: String,
    },
    /// A pair the GPU kernels do not collide.
    #[error(
        "pair {pair} (bodies {a} and {b}): {reason}; use the cpu or cpu-parallel backend for it"
    )]
    UnsupportedPair {
        /// The pair's index in the batch.
        pair: u32,
        /// Its body A.
        a: u32,
        /// Its body B.
        b: u32,
        /// Why the kernels do not take it.
        reason: String,
    },
    /// Reading results back failed.
    #[error("cannot read the results back: {message}")]
    Readback {
        /// What failed.
        message: String,
    },
    /// An option out of range.
    #[error("{message}")]
    InvalidOption {
        /// What is wrong.
        message: String,
    },
    /// The narrowphase still has a recorded batch whose results were not
    /// collected ([`GpuNarrowphase::record`](super::GpuNarrowphase::record)).
    #[error(
        "the GPU narrowphase has a recorded batch whose results were not collected yet; \
         collect them (poll or wait) or discard them first"
    )]
    Busy,
    /// A [`PendingHits`](super::PendingHits) handed to a narrowphase that did
    /// not record it, or whose results were already collected or discarded.
    #[error("these pending results are not the ones this GPU narrowphase has in flight")]
    NotPending,
    /// The command encoder the batch was recorded into was never submitted.
    #[error(
        "the batch's work finished without its results: the command encoder it was recorded \
         into was not submitted to this device's queue"
    )]
    NotSubmitted,
    /// A call that waits for the GPU, in a browser, whose page cannot
    /// block: there the device is opened with wgpu's asynchronous calls and
    /// wrapped with [`GpuContext::from_device`](super::GpuContext::from_device),
    /// and results are collected with `record` and `poll`.
    #[error(
        "{what} waits for the GPU, which a web page cannot do: open the device with wgpu's \
         asynchronous calls, wrap it with GpuContext::from_device, and collect results with \
         record and poll"
    )]
    Blocking {
        /// The call.
        what: &'static str,
    },
}

/// What to say when there is no adapter.
pub const NO_ADAPTER_HELP: &str = "For a software adapter install Mesa's Vulkan drivers \
     (Debian/Ubuntu: apt-get install mesa-vulkan-drivers), or use --backend cpu";

fn no_adapter_message(requested: Option<&str>, found: &[String]) -> String {
    match (requested, found.is_empty()) {
        (_, true) => format!("no GPU adapter found. {NO_ADAPTER_HELP}"),
        (None, false) => format!(
            "no GPU adapter with compute shaders (found: {}). {NO_ADAPTER_HELP}",
            found.join("; ")
        ),
        (Some(name), false) => format!(
            "no adapter with compute shaders matches \"{name}\" (found: {})",
            found.join("; ")
        ),
    }
}

/// Bytes for people: exact below 1 MiB, else whole MiB (rounded up when
/// needed, down when allowed: neither side flatters the device).
fn format_bytes(bytes: u64, round_up: bool) -> String {
    if bytes < 1 << 20 {
        format!("{bytes} bytes")
    } else if round_up {
        format!("{} MiB", bytes.div_ceil(1 << 20))
    } else {
        format!("{} MiB", bytes >> 20)
    }
}
