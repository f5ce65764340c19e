//! The `gpusat` command.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use gpusat::generate::SceneSpec;
use gpusat::gpu::{AdapterChoice, GpuContext, GpuOptions, list_adapters};
use gpusat::{
    BackendKind, Batch, CollideOutput, Error, Hit, HitOut, Narrowphase, Scene, write_atomically,
};

#[derive(Parser)]
#[command(
    name = "gpusat",
    version,
    about = "Batch 2D collision detection (SAT) on the GPU, checked against a CPU reference"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Test a scene file's candidate pairs and write the overlapping ones as JSON.
    Collide {
        /// The scene file (JSON; see the README for the format).
        scene: PathBuf,
        /// Which narrowphase to run.
        #[arg(long, value_enum, default_value_t = BackendArg::Cpu)]
        backend: BackendArg,
        /// Where to write the result; standard output when absent.
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// GPU adapter: part of its name, or a type (discrete, integrated,
        /// cpu) or backend (vulkan, metal, dx12, gl).
        #[arg(long, default_value = "auto")]
        adapter: String,
    },
    /// Run the built-in random scene and print what the narrowphase found.
    Demo {
        /// Bodies in the scene.
        #[arg(long, default_value_t = 4000)]
        bodies: usize,
        /// Candidate pairs to test.
        #[arg(long, default_value_t = 200_000)]
        pairs: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
        backend: BackendArg,
        #[arg(long, default_value = "auto")]
        adapter: String,
    },
    /// List the GPU adapters and say which one `auto` picks.
    Info,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BackendArg {
    /// The scalar CPU reference.
    Cpu,
    /// The CPU reference on all cores.
    CpuParallel,
    /// The WGSL kernel through wgpu.
    Gpu,
    /// A GPU when there is one, else the CPU.
    Auto,
}

impl BackendArg {
    fn kind(self) -> BackendKind {
        match self {
            BackendArg::Cpu => BackendKind::Cpu,
            BackendArg::CpuParallel => BackendKind::CpuParallel,
            BackendArg::Gpu => BackendKind::Gpu,
            BackendArg::Auto => BackendKind::Auto,
        }
    }
}

/// Builds the backend, telling stderr what `auto` chose and why.
fn narrowphase(backend: BackendArg, adapter: &str) -> Result<Narrowphase, Error> {
    let narrowphase = Narrowphase::new(
        backend.kind(),
        &AdapterChoice::parse(adapter),
        GpuOptions::default(),
    )?;
    if backend == BackendArg::Auto {
        match (narrowphase.note(), narrowphase.adapter()) {
            (Some(note), _) => eprintln!("gpusat: {note}"),
            (None, Some(adapter)) => eprintln!("gpusat: using the GPU: {adapter}"),
            (None, None) => {}
        }
    }
    Ok(narrowphase)
}

fn collide(
    scene_path: &Path,
    backend: BackendArg,
    adapter: &str,
    output: Option<&Path>,
) -> Result<(), Error> {
    let scene = Scene::load(scene_path)?;
    let batch = scene.batch()?;
    let mut narrowphase = narrowphase(backend, adapter)?;
    let sat_hits = narrowphase.collide(&batch)?;
    let hits: Vec<HitOut> = sat_hits
        .iter()
        .map(|&sat_hit| HitOut::new(&batch.hit(sat_hit), Vec::new()))
        .collect();
    let result = CollideOutput {
        backend: narrowphase.name().to_string(),
        pairs_tested: batch.pairs().len() as u64,
        hits,
    };
    let mut json = serde_json::to_vec_pretty(&result).map_err(|err| Error::Input {
        file: "output".to_string(),
        message: err.to_string(),
    })?;
    json.push(b'\n');
    match output {
        Some(path) => write_atomically(path, &json),
        None => {
            use std::io::Write;
            std::io::stdout()
                .write_all(&json)
                .map_err(|source| Error::Io {
                    path: PathBuf::from("<stdout>"),
                    source,
                })
        }
    }
}

fn demo(
    bodies: usize,
    pairs: usize,
    seed: u64,
    backend: BackendArg,
    adapter: &str,
) -> Result<(), Error> {
    let spec = SceneSpec {
        bodies,
        pairs,
        half_extent: (bodies as f32).sqrt() * 0.9,
        ..SceneSpec::mixed(seed, pairs)
    };
    let scene = spec.generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0)?;
    let mut narrowphase = narrowphase(backend, adapter)?;
    let start = Instant::now();
    let sat_hits = narrowphase.collide(&batch)?;
    let elapsed = start.elapsed();
    let hits: Vec<Hit> = batch.hits(&sat_hits);
    let deepest = hits.iter().map(|h| h.depth).fold(0.0f32, f32::max);
    println!(
        "gpusat demo: {} shapes, {} bodies, {} candidate pairs (seed {seed})",
        scene.shapes.len(),
        scene.bodies.len(),
        scene.pairs.len()
    );
    println!(
        "backend {}: {} overlapping pairs in {:.2} ms ({:.1} Mpairs/s), deepest {:.4}",
        narrowphase.name(),
        hits.len(),
        elapsed.as_secs_f64() * 1e3,
        scene.pairs.len() as f64 / elapsed.as_secs_f64() / 1e6,
        deepest
    );
    Ok(())
}

fn info() -> Result<(), Error> {
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
            println!("auto picks: {}", context.adapter());
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Collide {
            scene,
            backend,
            output,
            adapter,
        } => collide(scene, *backend, adapter, output.as_deref()),
        Command::Demo {
            bodies,
            pairs,
            seed,
            backend,
            adapter,
        } => demo(*bodies, *pairs, *seed, *backend, adapter),
        Command::Info => info(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("gpusat: error: {err}");
            ExitCode::FAILURE
        }
    }
}
