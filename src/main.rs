//! The `gpusat` command.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use gpusat::generate::SceneSpec;
use gpusat::{
    Batch, CollideOutput, Error, Hit, HitOut, SatHit, Scene, collide_cpu, collide_cpu_parallel,
    write_atomically,
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
    },
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

/// The narrowphase that actually ran, for the output's "backend" field.
struct Ran {
    backend: &'static str,
    hits: Vec<SatHit>,
}

fn run_narrowphase(batch: &Batch, backend: BackendArg) -> Result<Ran, Error> {
    match backend {
        BackendArg::Cpu => Ok(Ran {
            backend: "cpu",
            hits: collide_cpu(batch),
        }),
        BackendArg::CpuParallel => Ok(Ran {
            backend: "cpu-parallel",
            hits: collide_cpu_parallel(batch),
        }),
        BackendArg::Gpu => Err(Error::NoAdapter(
            "the GPU backend is not available in this build yet; use --backend cpu".to_string(),
        )),
        BackendArg::Auto => {
            eprintln!("gpusat: no GPU backend in this build; using the CPU");
            Ok(Ran {
                backend: "cpu-parallel",
                hits: collide_cpu_parallel(batch),
            })
        }
    }
}

fn collide(scene_path: &Path, backend: BackendArg, output: Option<&Path>) -> Result<(), Error> {
    let scene = Scene::load(scene_path)?;
    let batch = scene.batch()?;
    let ran = run_narrowphase(&batch, backend)?;
    let hits: Vec<HitOut> = ran
        .hits
        .iter()
        .map(|&sat_hit| HitOut::new(&batch.hit(sat_hit), Vec::new()))
        .collect();
    let result = CollideOutput {
        backend: ran.backend.to_string(),
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

fn demo(bodies: usize, pairs: usize, seed: u64, backend: BackendArg) -> Result<(), Error> {
    let spec = SceneSpec {
        bodies,
        pairs,
        half_extent: (bodies as f32).sqrt() * 0.9,
        ..SceneSpec::mixed(seed, pairs)
    };
    let scene = spec.generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0)?;
    let start = Instant::now();
    let ran = run_narrowphase(&batch, backend)?;
    let elapsed = start.elapsed();
    let hits: Vec<Hit> = batch.hits(&ran.hits);
    let deepest = hits.iter().map(|h| h.depth).fold(0.0f32, f32::max);
    println!(
        "gpusat demo: {} shapes, {} bodies, {} candidate pairs (seed {seed})",
        scene.shapes.len(),
        scene.bodies.len(),
        scene.pairs.len()
    );
    println!(
        "backend {}: {} overlapping pairs in {:.2} ms ({:.1} Mpairs/s), deepest {:.4}",
        ran.backend,
        hits.len(),
        elapsed.as_secs_f64() * 1e3,
        scene.pairs.len() as f64 / elapsed.as_secs_f64() / 1e6,
        deepest
    );
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Collide {
            scene,
            backend,
            output,
        } => collide(scene, *backend, output.as_deref()),
        Command::Demo {
            bodies,
            pairs,
            seed,
            backend,
        } => demo(*bodies, *pairs, *seed, *backend),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("gpusat: error: {err}");
            ExitCode::FAILURE
        }
    }
}
