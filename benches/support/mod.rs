//! What the criterion benches share.

use std::time::Duration;

use gpusat::Batch;
use gpusat::gpu::GpuNarrowphase;

/// Kernel time of `iterations` GPU calls, from timestamp queries: for
/// `iter_custom`, so that the GPU kernel is measured without upload and
/// readback.
pub fn kernel_time(gpu: &mut GpuNarrowphase, batch: &Batch, iterations: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iterations {
        gpu.collide(batch).expect("GPU");
        total += gpu.stats().kernel.unwrap_or_default();
    }
    total
}
