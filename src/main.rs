//! The `gpusat` command.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use gpusat::generate::SceneSpec;
use gpusat::gpu::{AdapterChoice, GpuContext, GpuOptions, list_adapters};
use gpusat::{
    BackendKind, Batch, Candidates, CollideOutput, ContactOut, ContactSolver, Error, Hit, HitOut,
    Narrowphase, Pair, PairFilter, Scene, SeparationOptions, SolverOptions, find_pairs,
    manifolds_parallel, separate_positions, to_json_pretty, write_atomically,
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
    /// Push a scene's overlapping bodies apart and write the scene back.
    ///
    /// Contact impulses first (for bodies with velocities), then positional
    /// separation split by inverse mass until no candidate pair overlaps by
    /// more than the slop. Static bodies never move.
    Resolve {
        scene: PathBuf,
        /// Where to write the resolved scene.
        #[arg(long, short)]
        output: PathBuf,
        #[arg(long, value_enum, default_value_t = BackendArg::Cpu)]
        backend: BackendArg,
        #[arg(long, default_value = "auto")]
        adapter: String,
        /// Overlap allowed to remain; default 0.5% of the median shape size.
        #[arg(long)]
        slop: Option<f32>,
        /// Fraction of the excess depth corrected per pass.
        #[arg(long, default_value_t = 0.8)]
        fraction: f32,
        /// Rounds of narrowphase and correction before giving up.
        #[arg(long, default_value_t = 200)]
        max_rounds: usize,
        /// Restitution of the contact impulses.
        #[arg(long, default_value_t = 0.0)]
        restitution: f32,
        /// Friction coefficient of the contact impulses.
        #[arg(long, default_value_t = 0.6)]
        friction: f32,
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
    let pairs = candidate_pairs(&scene, PairFilter::default());
    let batch = scene.batch_with(&pairs)?;
    let mut narrowphase = narrowphase(backend, adapter)?;
    let sat_hits = narrowphase.collide(&batch)?;
    let hits: Vec<Hit> = batch.hits(&sat_hits);
    let manifolds = manifolds_parallel(&batch, &hits);
    let hits: Vec<HitOut> = hits
        .iter()
        .zip(&manifolds)
        .map(|(hit, manifold)| {
            let contacts = manifold
                .points()
                .iter()
                .map(|p| ContactOut {
                    point: p.point.to_array(),
                    depth: p.depth,
                    id: p.id,
                })
                .collect();
            HitOut::new(hit, contacts)
        })
        .collect();
    let result = CollideOutput {
        backend: narrowphase.name().to_string(),
        pairs_tested: batch.pairs().len() as u64,
        hits,
    };
    let json = to_json_pretty(&result).map_err(|err| Error::Input {
        file: "output".to_string(),
        message: err.to_string(),
    })?;
    let json = json.into_bytes();
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

/// The scene's own pairs, or the broadphase's when it lists none.
fn candidate_pairs(scene: &Scene, filter: PairFilter) -> Vec<Pair> {
    match &scene.pairs {
        Some(pairs) => pairs.clone(),
        None => find_pairs(&scene.shapes, &scene.bodies, scene.margin, filter),
    }
}

struct ResolveArgs {
    slop: Option<f32>,
    fraction: f32,
    max_rounds: usize,
    restitution: f32,
    friction: f32,
}

fn resolve(
    scene_path: &Path,
    output: &Path,
    backend: BackendArg,
    adapter: &str,
    args: &ResolveArgs,
) -> Result<(), Error> {
    let mut scene = Scene::load(scene_path)?;
    let pairs = candidate_pairs(&scene, PairFilter::default());
    let mut narrowphase = narrowphase(backend, adapter)?;
    let slop = match args.slop {
        Some(slop) => slop,
        None => {
            let mut sizes: Vec<f32> = scene.shapes.shapes().iter().map(|s| s.size()).collect();
            sizes.sort_by(f32::total_cmp);
            0.005 * sizes.get(sizes.len() / 2).copied().unwrap_or(1.0)
        }
    };
    let invalid = |message: String| Error::Input {
        file: "options".to_string(),
        message,
    };
    if !(slop.is_finite() && slop >= 0.0) {
        return Err(invalid(format!(
            "--slop {slop} is not a finite number >= 0"
        )));
    }
    if !(args.restitution.is_finite() && args.restitution >= 0.0)
        || !(args.friction.is_finite() && args.friction >= 0.0)
    {
        return Err(invalid(
            "--restitution and --friction must be finite numbers >= 0".to_string(),
        ));
    }

    // Velocities: one solve on the current contacts, when anything moves.
    let moving = scene
        .bodies
        .iter()
        .any(|b| b.velocity != glam::Vec2::ZERO || b.angular_velocity != 0.0);
    if moving {
        let batch = scene.batch_with(&pairs)?;
        let hits = batch.hits(&narrowphase.collide(&batch)?);
        let manifolds = manifolds_parallel(&batch, &hits);
        let options = SolverOptions {
            restitution: args.restitution,
            friction: args.friction,
            ..SolverOptions::default()
        };
        ContactSolver::new().solve(&scene.shapes, &mut scene.bodies, &manifolds, &options);
    }

    let options = SeparationOptions {
        slop,
        fraction: args.fraction,
        max_rounds: args.max_rounds,
        ..SeparationOptions::default()
    };
    let candidates = match &scene.pairs {
        Some(pairs) => Candidates::Fixed(pairs),
        None => Candidates::Broadphase {
            margin: scene.margin,
        },
    };
    let report = separate_positions(
        &scene.shapes,
        &mut scene.bodies,
        candidates,
        &options,
        &mut |batch| narrowphase.collide(batch),
    )?;
    for hit in &report.static_pairs {
        eprintln!(
            "gpusat: bodies {} and {} are both static and overlap by {}; left as they are",
            hit.a, hit.b, hit.depth
        );
    }
    if !report.resolved() {
        return Err(Error::Input {
            file: scene_path.display().to_string(),
            message: format!(
                "after {} rounds {} pairs still overlap by more than the slop {slop} (deepest {}); \
                 no output written (a body squeezed between static ones cannot be freed by moving it)",
                report.rounds, report.unresolved, report.final_max_depth
            ),
        });
    }
    let json = to_json_pretty(&scene.to_file()).map_err(|err| Error::Input {
        file: output.display().to_string(),
        message: err.to_string(),
    })?;
    write_atomically(output, json.as_bytes())?;
    eprintln!(
        "gpusat: resolved {} candidate pairs in {} rounds on {}: deepest overlap {} -> {} (slop {slop})",
        pairs.len(),
        report.rounds,
        narrowphase.name(),
        report.initial_max_depth,
        report.final_max_depth
    );
    Ok(())
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
        Command::Resolve {
            scene,
            output,
            backend,
            adapter,
            slop,
            fraction,
            max_rounds,
            restitution,
            friction,
        } => resolve(
            scene,
            output,
            *backend,
            adapter,
            &ResolveArgs {
                slop: *slop,
                fraction: *fraction,
                max_rounds: *max_rounds,
                restitution: *restitution,
                friction: *friction,
            },
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("gpusat: error: {err}");
            ExitCode::FAILURE
        }
    }
}
