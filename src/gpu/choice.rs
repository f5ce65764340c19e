//! What [`BackendKind::Auto`] picks, for a narrowphase of either dimension:
//! a hardware GPU when there is one; when the only adapter is a software
//! rasterizer (lavapipe, WARP: wgpu's device type `Cpu`), the CPU, which is
//! faster than a GPU emulated on the same cores, with a note saying why.

use std::sync::Arc;

use super::context::{AdapterChoice, GpuContext};
use super::error::GpuError;
use crate::core::backend::BackendKind;
use crate::core::error::Error;

/// What [`choose`] settled on.
pub(crate) enum Choice<G> {
    Cpu,
    CpuParallel,
    Gpu(G),
    /// `auto` found no GPU worth using: the fastest CPU backend, and why.
    Fallback(String),
}

/// The backend `kind` on the adapter `adapter` picks, the GPU narrowphase
/// (of either dimension) made by `open`: for `auto`, a missing or unusable
/// GPU, or a software one when the adapter was not named, falls back to
/// the CPU with a note.
// On the web wgpu's handles are neither Send nor Sync (one thread), and the
// shared context is still one `Arc` so that both targets have one API.
#[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
pub(crate) fn choose<G>(
    kind: BackendKind,
    adapter: &AdapterChoice,
    open: impl Fn(Arc<GpuContext>) -> Result<G, GpuError>,
) -> Result<Choice<G>, Error> {
    match kind {
        BackendKind::Cpu => Ok(Choice::Cpu),
        BackendKind::CpuParallel => Ok(Choice::CpuParallel),
        BackendKind::Gpu => {
            let context = Arc::new(GpuContext::new(adapter)?);
            Ok(Choice::Gpu(open(context)?))
        }
        BackendKind::Auto => {
            let context = match GpuContext::new(adapter) {
                Ok(context) => context,
                Err(err) => {
                    return Ok(Choice::Fallback(format!(
                        "no usable GPU ({err}); using the CPU"
                    )));
                }
            };
            if context.is_software() && *adapter == AdapterChoice::Auto {
                return Ok(Choice::Fallback(format!(
                    "the only GPU adapter, {}, is a software rasterizer, slower than the \
                     CPU it runs on; using the CPU (--backend gpu runs it anyway)",
                    context.adapter().name
                )));
            }
            match open(Arc::new(context)) {
                Ok(gpu) => Ok(Choice::Gpu(gpu)),
                Err(err) => Ok(Choice::Fallback(format!(
                    "no usable GPU ({err}); using the CPU"
                ))),
            }
        }
    }
}
