//! `gpusat info`: the GPU adapters, which one `auto` picks, and its limits.

use gpusat::gpu::{AdapterChoice, GpuContext, list_adapters};
use gpusat_cli::CliError as Error;

/// Runs `gpusat info`.
pub fn run() -> Result<(), Error> {
    let adapters = list_adapters();
    if adapters.is_empty() {
        println!("no GPU adapters found");
    }
    for (index, adapter) in adapters.iter().enumerate() {
        println!("adapter {index}: {adapter}");
    }
    match GpuContext::new(&AdapterChoice::Auto) {
        Ok(context) => {
            let limits = context.limits();
            if context.is_software() {
                println!(
                    "auto picks: the CPU ({} is a software rasterizer, slower than the CPU it \
                     runs on; --backend gpu uses it)",
                    context.adapter()
                );
            } else {
                println!("auto picks: {}", context.adapter());
            }
            println!("the best adapter: {}", context.adapter());
            println!(
                "  storage binding {} MiB, buffer {} MiB, {} workgroups per dimension, timestamps {}",
                limits.max_storage_buffer_binding_size >> 20,
                limits.max_buffer_size >> 20,
                limits.max_compute_workgroups_per_dimension,
                if context.has_timestamps() {
                    "yes"
                } else {
                    "no"
                }
            );
            Ok(())
        }
        Err(err) => {
            println!("auto picks: the CPU ({err})");
            Ok(())
        }
    }
}
