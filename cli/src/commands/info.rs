//! `gpusat info`: the GPU adapters, which one `auto` picks, its limits and
//! the features gpusat uses; every kernel's entry points with their SPIR-V
//! sizes; and with `--compile`, how long the adapter's driver takes to
//! create each kind's pipeline.

use std::sync::Arc;
use std::time::Instant;

use gpusat::gpu::{
    AdapterChoice, FrameOptions, GpuContext, GpuFrame, GpuNarrowphase, GpuOptions, KernelKinds,
    list_adapters,
};
use gpusat_cli::CliError as Error;
use gpusat_cli::kernels::spirv_sizes;

use super::ms;

/// `gpusat info`'s options.
#[derive(clap::Args)]
pub struct InfoArgs {
    /// Also create every kind's pipeline (both adapters' kinds) on the best
    /// adapter and say how long each took (a driver's first compile; its
    /// disk cache may serve later ones).
    #[arg(long)]
    pub compile: bool,
}

/// Runs `gpusat info`.
pub fn run(args: &InfoArgs) -> Result<(), Error> {
    let adapters = list_adapters();
    if adapters.is_empty() {
        println!("no GPU adapters found");
    }
    for (index, adapter) in adapters.iter().enumerate() {
        println!("adapter {index}: {adapter}");
    }
    let context = match GpuContext::new(&AdapterChoice::Auto) {
        Ok(context) => {
            report(&context);
            Some(Arc::new(context))
        }
        Err(err) => {
            println!("auto picks: the CPU ({err})");
            None
        }
    };
    println!("kernels (SPIR-V words per entry point, as naga writes them for a workgroup of 256):");
    let sizes = spirv_sizes(GpuOptions::default().workgroup_size)?;
    let width = sizes
        .iter()
        .map(|size| size.kernel.len())
        .max()
        .unwrap_or(0);
    for size in sizes {
        println!(
            "  {:<width$} {:<22} {:>7}",
            size.kernel, size.entry_point, size.words
        );
    }
    if args.compile {
        let Some(context) = context else {
            return Err(Error::option(
                "--compile",
                "there is no GPU adapter to compile the pipelines on".to_string(),
            ));
        };
        compile(context)?;
    }
    Ok(())
}

/// The best adapter, what `auto` does with it, its limits and features.
fn report(context: &GpuContext) {
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
    let yes = |on: bool| if on { "yes" } else { "no" };
    println!(
        "  storage binding {} MiB, buffer {} MiB, {} workgroups per dimension, timestamps {}",
        limits.max_storage_buffer_binding_size >> 20,
        limits.max_buffer_size >> 20,
        limits.max_compute_workgroups_per_dimension,
        yes(context.has_timestamps())
    );
    let features = context.offered_features();
    println!(
        "  features: timestamp queries {}, subgroups {}; kinds of pair: {}",
        yes(features.contains(gpusat::wgpu::Features::TIMESTAMP_QUERY)),
        yes(features.contains(gpusat::wgpu::Features::SUBGROUP)),
        if context.is_software() {
            "the software adapters'"
        } else {
            "the hardware GPUs'"
        }
    );
}

/// Creates every kind's pipeline of both SAT kernels (both adapters'
/// kinds), and the resident frame's, on `context`, and says how long each
/// took.
fn compile(context: Arc<GpuContext>) -> Result<(), Error> {
    println!("pipeline creation on {}, ms:", context.adapter());
    let mut printed = std::collections::BTreeSet::new();
    let mut print = |kernel: &str, compiled: Vec<(&'static str, Option<std::time::Duration>)>| {
        for (entry_point, time) in compiled {
            // A kind both narrowphases compile is timed at its first compile.
            if let Some(time) = time
                && printed.insert((kernel.to_string(), entry_point))
            {
                println!("  {kernel:<4} {entry_point:<22} {:>9.1}", ms(time));
            }
        }
    };
    // Each narrowphase compiles the kinds its options give its pairs: every
    // 2D kind without `polygon_loops`; the 3D kernel's hardware kinds, then
    // its software kinds.
    let options = GpuOptions {
        polygon_loops: false,
        ..GpuOptions::default()
    };
    let mut narrowphase = GpuNarrowphase::new(context.clone(), options.clone())?;
    narrowphase.compile_all_kinds()?;
    print("2D", narrowphase.compiled_kinds());
    for kinds in [KernelKinds::Hardware, KernelKinds::Software] {
        let options = GpuOptions {
            kinds,
            ..options.clone()
        };
        let mut narrowphase = gpusat::d3::GpuNarrowphase::new(context.clone(), options)?;
        narrowphase.compile_all_kinds()?;
        print("3D", narrowphase.compiled_kinds());
    }
    let start = Instant::now();
    GpuFrame::new(context, &gpusat::ShapeSet::new(), FrameOptions::default())?;
    println!(
        "  the resident frame's pipelines, together {:>9.1}",
        ms(start.elapsed())
    );
    Ok(())
}
