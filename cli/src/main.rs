//! The `gpusat` command.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use glam::Vec2;
use gpusat::gpu::{AdapterChoice, GpuContext, GpuError, GpuNarrowphase, GpuOptions, list_adapters};
use gpusat::{
    AnyScene, BackendKind, Candidates, ContactSolver, MAX_POLYGON_VERTICES, Narrowphase, Pair,
    PairFilter, Scene, SeparationOptions, SolverOptions, World, WorldOptions, find_pairs,
    manifolds_parallel, separate_positions,
};
use gpusat_cli::CliError as Error;
use gpusat_cli::bench::{BenchBackend, BenchOptions, run_bench};
use gpusat_cli::bench3::{BenchOptions3, run_bench3};
use gpusat_cli::demo::{DEMO_DT, DEMO_FRAMES, DEMO_PARTICLES, DEMO_SEED, DemoScene};
use gpusat_cli::demo3::{DEMO3_BODIES, DemoScene3};
use gpusat_cli::output::{
    to_json_pretty, write_atomically, write_atomically_with, write_collide_output,
    write_collide_output3,
};
use gpusat_cli::render::{GifRecorder, RenderOptions, encode_png, render};
use gpusat_cli::render3::{Camera3, Render3Options, render3};
use gpusat_cli::workload::{Density, ShapeKind};
use gpusat_cli::workload3::ShapeKind3;
use indicatif::{ProgressBar, ProgressStyle};

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
        /// Indent the JSON for people (compact by default).
        #[arg(long)]
        pretty: bool,
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
    /// The main job: particles poured into a container, simulated frame by
    /// frame (broadphase, narrowphase, contacts, impulses), with a summary.
    Demo {
        /// 2D (polygons and circles in a container) or 3D (hulls, boxes and
        /// spheres in an open box).
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=3))]
        dim: u8,
        /// Bodies dropped [2D: 3,000 polygons of 3 to 8 vertices and
        /// circles; 3D: 1,000 hulls of 4 to 64 vertices, boxes and spheres].
        #[arg(long)]
        bodies: Option<usize>,
        #[arg(long, default_value_t = DEMO_FRAMES)]
        frames: u64,
        #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
        backend: BackendArg,
        #[arg(long, default_value = "auto")]
        adapter: String,
        #[arg(long, default_value_t = DEMO_SEED)]
        seed: u64,
        /// Run the CPU reference beside the narrowphase on every frame and
        /// report any disagreement (which makes the exit status non-zero).
        #[arg(long)]
        check: bool,
        /// Write a picture of the last frame.
        #[arg(long)]
        png: Option<PathBuf>,
        /// Write an animation of the run.
        #[arg(long)]
        gif: Option<PathBuf>,
        /// Picture size, WIDTHxHEIGHT.
        #[arg(long, default_value = "800x600", value_parser = parse_size)]
        size: (u32, u32),
        /// Time step in seconds.
        #[arg(long, default_value_t = DEMO_DT)]
        dt: f32,
    },
    /// Draw a scene file: bodies, contacts, and the overlapping pairs with
    /// their minimum translation vectors.
    Render {
        scene: PathBuf,
        #[arg(long, short)]
        output: PathBuf,
        /// Picture size, WIDTHxHEIGHT.
        #[arg(long, default_value = "800x600", value_parser = parse_size)]
        size: (u32, u32),
    },
    /// List the GPU adapters and say which one `auto` picks.
    Info,
    /// Measure narrowphase throughput over batch sizes and backends on a
    /// seeded workload: a table, and optionally CSV, JSON lines and a plot.
    ///
    /// Every backend's hits are checked against the CPU reference before it
    /// is timed; each figure is the median of several samples.
    Bench(BenchArgs),
}

#[derive(clap::Args)]
struct BenchArgs {
    /// 2D (polygons, circles) or 3D (boxes and hulls).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=3))]
    dim: u8,
    /// Batch sizes in pairs, comma-separated [2D: 1000,10000,100000,1000000;
    /// 3D: 100000].
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Backends to run, comma-separated [2D: cpu, cpu-parallel, cpu-contacts,
    /// gpu, gpu-kernel, parry2d; 3D: cpu, cpu-parallel, cpu-contacts, gpu,
    /// gpu-kernel, cpu-pairwise, cpu-brute, parry3d].
    #[arg(long, value_delimiter = ',', value_enum)]
    backends: Vec<BenchBackendArg>,
    /// 3D: the shape kinds, comma-separated: `boxes`, or a hull vertex count
    /// (4 to 256).
    #[arg(long, value_delimiter = ',', default_value = "boxes,16,32,64,128,256")]
    shapes: Vec<String>,
    /// 3D: the brute force and parry3d run on at most this many pairs.
    #[arg(long, default_value_t = 10_000)]
    slow_pairs: usize,
    /// What the shapes are.
    #[arg(long, value_enum, default_value_t = KindArg::Polygons)]
    kind: KindArg,
    /// Vertices of every polygon, with `--kind polygons`.
    #[arg(long, default_value_t = 8)]
    vertices: usize,
    /// How crowded the bodies are: the reference distribution (bodies in
    /// [-1, 1]², nearly all pairs overlap), sparse (~10%) or dense (~80%).
    #[arg(long, value_enum, default_value_t = DensityArg::Reference)]
    density: DensityArg,
    /// Seconds of measuring per batch size and backend.
    #[arg(long, default_value_t = 0.5)]
    time: f64,
    /// Samples per batch size and backend; the median is reported.
    #[arg(long, default_value_t = 7)]
    samples: usize,
    /// Seed of the scene generator (default: the reference seed).
    #[arg(long)]
    seed: Option<u64>,
    /// Write the table as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write the table as JSON lines, one object per row.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write a PNG plot of throughput against batch size (log-log).
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Plot size, WIDTHxHEIGHT.
    #[arg(long, default_value = "900x600", value_parser = parse_size)]
    plot_size: (u32, u32),
    /// GPU adapter (see `collide`); with `auto`, no adapter skips the GPU rows.
    #[arg(long, default_value = "auto")]
    adapter: String,
    /// Invocations per GPU workgroup.
    #[arg(long, default_value_t = GpuOptions::default().workgroup_size)]
    workgroup_size: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BenchBackendArg {
    Cpu,
    CpuParallel,
    CpuContacts,
    Gpu,
    GpuKernel,
    Parry2d,
    CpuBrute,
    CpuPairwise,
    Parry3d,
    GpuResident,
}

impl BenchBackendArg {
    fn backend(self) -> BenchBackend {
        match self {
            BenchBackendArg::Cpu => BenchBackend::Cpu,
            BenchBackendArg::CpuParallel => BenchBackend::CpuParallel,
            BenchBackendArg::CpuContacts => BenchBackend::CpuContacts,
            BenchBackendArg::Gpu => BenchBackend::Gpu,
            BenchBackendArg::GpuKernel => BenchBackend::GpuKernel,
            BenchBackendArg::Parry2d => BenchBackend::Parry2d,
            BenchBackendArg::CpuBrute => BenchBackend::CpuBrute,
            BenchBackendArg::CpuPairwise => BenchBackend::CpuPairwise,
            BenchBackendArg::Parry3d => BenchBackend::Parry3d,
            BenchBackendArg::GpuResident => BenchBackend::GpuResident,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum KindArg {
    Polygons,
    Circles,
    /// Polygons of 3 to 16 vertices, circles and slivers.
    Mixed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DensityArg {
    Reference,
    Sparse,
    Dense,
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
    /// The 2D demo only: broadphase, narrowphase and manifolds as one
    /// GPU-resident frame, one submission and one readback per frame.
    GpuResident,
}

impl BackendArg {
    fn kind(self) -> BackendKind {
        match self {
            BackendArg::Cpu => BackendKind::Cpu,
            BackendArg::CpuParallel => BackendKind::CpuParallel,
            BackendArg::Gpu | BackendArg::GpuResident => BackendKind::Gpu,
            BackendArg::Auto => BackendKind::Auto,
        }
    }

    /// An error for a command that has no GPU-resident frame.
    fn not_resident(self, command: &str) -> Result<(), Error> {
        if self == BackendArg::GpuResident {
            return Err(Error::option(
                command,
                "--backend gpu-resident runs the 2D demo's frames (bodies in, contacts out); \
                 use --backend gpu here"
                    .to_string(),
            ));
        }
        Ok(())
    }
}

/// Builds the backend, telling stderr what `auto` chose and why.
fn narrowphase(backend: BackendArg, adapter: &str) -> Result<Narrowphase, Error> {
    let narrowphase = Narrowphase::with_adapter(
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
    pretty: bool,
) -> Result<(), Error> {
    backend.not_resident("gpusat collide")?;
    match gpusat::load_any(scene_path)? {
        AnyScene::Planar(scene) => {
            let pairs = candidate_pairs(&scene, PairFilter::default());
            let batch = scene.batch_with(&pairs)?;
            let mut narrowphase = narrowphase(backend, adapter)?;
            let sat_hits = narrowphase.collide(&batch)?;
            let name = narrowphase.name();
            emit(output, |out| {
                write_collide_output(out, name, &batch, &sat_hits, pretty)
            })
        }
        AnyScene::Spatial(scene) => {
            let pairs = candidate_pairs3(&scene, PairFilter::default());
            let batch = scene.batch_with(&pairs)?;
            let mut narrowphase = narrowphase3(backend, adapter)?;
            let sat_hits = narrowphase.collide(&batch)?;
            let name = narrowphase.name();
            emit(output, |out| {
                write_collide_output3(out, name, &batch, &sat_hits, pretty)
            })
        }
    }
}

/// Writes a result to `output` whole or not at all, or to standard output.
fn emit(
    output: Option<&Path>,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    match output {
        Some(path) => write_atomically_with(path, |out| {
            write(out).map_err(|source| Error::File {
                path: path.to_path_buf(),
                source,
            })
        }),
        None => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
            write(&mut out)
                .and_then(|()| std::io::Write::flush(&mut out))
                .map_err(|source| Error::File {
                    path: PathBuf::from("<stdout>"),
                    source,
                })
        }
    }
}

/// The 3D backend, telling stderr what `auto` chose and why.
fn narrowphase3(backend: BackendArg, adapter: &str) -> Result<gpusat::d3::Narrowphase, Error> {
    let narrowphase = gpusat::d3::Narrowphase::with_adapter(
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

/// A 3D scene's own pairs, or the 3D broadphase's when it lists none.
fn candidate_pairs3(scene: &gpusat::d3::Scene, filter: PairFilter) -> Vec<Pair> {
    match &scene.pairs {
        Some(pairs) => pairs.clone(),
        None => gpusat::d3::find_pairs(&scene.shapes, &scene.bodies, scene.margin, filter),
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
    backend.not_resident("gpusat resolve")?;
    match gpusat::load_any(scene_path)? {
        AnyScene::Planar(scene) => resolve2(scene, scene_path, output, (backend, adapter), args),
        AnyScene::Spatial(scene) => resolve3(scene, scene_path, output, (backend, adapter), args),
    }
}

/// The slop: as asked, or 0.5% of the median shape size; checked.
fn resolve_slop(asked: Option<f32>, mut sizes: Vec<f32>) -> Result<f32, Error> {
    let slop = match asked {
        Some(slop) => slop,
        None => {
            sizes.sort_by(f32::total_cmp);
            0.005 * sizes.get(sizes.len() / 2).copied().unwrap_or(1.0)
        }
    };
    if !(slop.is_finite() && slop >= 0.0) {
        return Err(Error::option(
            "--slop",
            format!("{slop} is not a finite number >= 0"),
        ));
    }
    Ok(slop)
}

/// Says what separation did, or why it is no success.
fn finish_resolve<H>(
    report: &gpusat::SeparationReport<H>,
    scene_path: &Path,
    slop: f32,
    static_pair: impl Fn(&H) -> (u32, u32, f32),
) -> Result<(), Error> {
    for hit in &report.static_pairs {
        let (a, b, depth) = static_pair(hit);
        eprintln!(
            "gpusat: bodies {a} and {b} are both static and overlap by {depth}; left as they are"
        );
    }
    if !report.resolved() {
        return Err(Error::Unresolved {
            file: scene_path.display().to_string(),
            message: format!(
                "after {} rounds {} pairs still overlap by more than the slop {slop} (deepest {}); \
                 no output written (a body squeezed between static ones cannot be freed by moving it)",
                report.rounds, report.unresolved, report.final_max_depth
            ),
        });
    }
    Ok(())
}

fn resolve3(
    mut scene: gpusat::d3::Scene,
    scene_path: &Path,
    output: &Path,
    (backend, adapter): (BackendArg, &str),
    args: &ResolveArgs,
) -> Result<(), Error> {
    let mut narrowphase = narrowphase3(backend, adapter)?;
    let slop = resolve_slop(
        args.slop,
        scene.shapes.shapes().iter().map(|s| s.size()).collect(),
    )?;
    if scene
        .bodies
        .iter()
        .any(|b| b.velocity != glam::Vec3::ZERO || b.angular_velocity != glam::Vec3::ZERO)
    {
        eprintln!(
            "gpusat: a 3D scene is resolved by moving positions only; velocities are left as they are"
        );
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
    let report = gpusat::d3::separate_positions(
        &scene.shapes,
        &mut scene.bodies,
        candidates,
        &options,
        &mut |batch| narrowphase.collide(batch),
    )?;
    finish_resolve(&report, scene_path, slop, |hit| (hit.a, hit.b, hit.depth))?;
    let json = to_json_pretty(&scene.to_file()).map_err(|err| Error::File {
        path: output.to_path_buf(),
        source: err.into(),
    })?;
    write_atomically(output, json.as_bytes())?;
    eprintln!(
        "gpusat: resolved the 3D scene in {} rounds on {}: deepest overlap {} -> {} (slop {slop})",
        report.rounds,
        narrowphase.name(),
        report.initial_max_depth,
        report.final_max_depth
    );
    Ok(())
}

fn resolve2(
    mut scene: Scene,
    scene_path: &Path,
    output: &Path,
    (backend, adapter): (BackendArg, &str),
    args: &ResolveArgs,
) -> Result<(), Error> {
    let pairs = candidate_pairs(&scene, PairFilter::default());
    let mut narrowphase = narrowphase(backend, adapter)?;
    let slop = resolve_slop(
        args.slop,
        scene.shapes.shapes().iter().map(|s| s.size()).collect(),
    )?;
    if !(args.restitution.is_finite()
        && args.restitution >= 0.0
        && args.friction.is_finite()
        && args.friction >= 0.0)
    {
        return Err(Error::option(
            "--restitution and --friction",
            "must be finite numbers >= 0",
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
        ContactSolver::new().solve(&scene.shapes, &mut scene.bodies, &manifolds, &options, None);
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
    finish_resolve(&report, scene_path, slop, |hit| (hit.a, hit.b, hit.depth))?;
    let json = to_json_pretty(&scene.to_file()).map_err(|err| Error::File {
        path: output.to_path_buf(),
        source: err.into(),
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

fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (width, height) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{text:?} is not WIDTHxHEIGHT"))?;
    let parse = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|v| (1..=16384).contains(v))
            .ok_or_else(|| format!("{v:?} is not a size from 1 to 16384"))
    };
    Ok((parse(width)?, parse(height)?))
}

struct DemoArgs {
    bodies: usize,
    frames: u64,
    seed: u64,
    check: bool,
    png: Option<PathBuf>,
    gif: Option<PathBuf>,
    size: (u32, u32),
    dt: f32,
}

fn ms(duration: std::time::Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// Checks the demo's options that do not depend on the dimension.
fn check_demo_args(args: &DemoArgs) -> Result<(), Error> {
    if !(args.dt.is_finite() && args.dt > 0.0) {
        return Err(Error::option(
            "--dt",
            format!("{} is not a positive number", args.dt),
        ));
    }
    Ok(())
}

/// A GIF recorder for the demo, when one is asked for: at most 480 pixels
/// wide, the picture's aspect, one frame in `gif_stride`.
fn demo_gif(args: &DemoArgs) -> Result<Option<GifRecorder>, Error> {
    if args.gif.is_none() {
        return Ok(None);
    }
    let width = args.size.0.min(480);
    let height = (args.size.1 as u64 * width as u64 / args.size.0 as u64).max(1) as u32;
    Ok(Some(GifRecorder::new(
        width,
        height,
        (args.dt * 1000.0 * gif_stride(args.frames) as f32) as u32,
    )?))
}

/// Steps the demo's frames under a progress bar: `step` advances one frame
/// and returns its pairs, hits and kinetic energy afterwards. Returns the
/// peak kinetic energy (at least `initial_energy`) and the time taken.
fn run_demo_frames(
    frames: u64,
    initial_energy: f64,
    mut step: impl FnMut(u64) -> Result<(usize, usize, f64), Error>,
) -> Result<(f64, std::time::Duration), Error> {
    let progress = ProgressBar::new(frames);
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} frames {msg} [{elapsed}<{eta}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut peak_energy = initial_energy;
    let start = Instant::now();
    for frame in 0..frames {
        let (pairs, hits, energy) = step(frame)?;
        peak_energy = peak_energy.max(energy);
        progress.set_message(format!("{pairs} pairs, {hits} hits"));
        progress.inc(1);
    }
    let elapsed = start.elapsed();
    progress.finish_and_clear();
    Ok((peak_energy, elapsed))
}

/// What a demo run prints, in either dimension.
struct DemoSummary<'a> {
    title: String,
    backend: &'static str,
    adapter: Option<String>,
    elapsed: std::time::Duration,
    totals: &'a gpusat::RunStats,
    /// Kinetic energy at the start, at the peak and at the end.
    energy: (f64, f64, f64),
    deepest: f32,
    check: Option<&'a gpusat::Agreement>,
}

/// Prints the summary; false when the check found a disagreement.
fn print_demo_summary(summary: &DemoSummary) -> bool {
    let totals = summary.totals;
    let frames = totals.frames.max(1) as f64;
    println!("{}", summary.title);
    match &summary.adapter {
        Some(adapter) => println!("backend: {} on {adapter}", summary.backend),
        None => println!("backend: {}", summary.backend),
    }
    println!(
        "speed: {:.1} frames/s ({:.2} ms per frame, {:.2} s in all)",
        frames / summary.elapsed.as_secs_f64(),
        ms(summary.elapsed) / frames,
        summary.elapsed.as_secs_f64()
    );
    let stages: Vec<String> = totals
        .times
        .stages()
        .iter()
        .map(|(name, time)| format!("{name} {:.3}", ms(*time) / frames))
        .collect();
    println!("per frame (ms): {}", stages.join(", "));
    println!(
        "pairs tested per frame: {:.0} (max {}); reported per frame: {:.0} (max {})",
        totals.pairs as f64 / frames,
        totals.max_pairs,
        totals.hits as f64 / frames,
        totals.max_hits
    );
    let (initial, peak, last) = summary.energy;
    println!(
        "kinetic energy: {initial:.1} at the start, {peak:.1} at the peak, {last:.3} at the end; \
         deepest contact {:.4}",
        summary.deepest
    );
    let Some(check) = summary.check else {
        return true;
    };
    println!(
        "check against the CPU reference: {} pairs, {} reported; {} identical, {} near-ties, {} near-touching, \
         largest depth difference {:.1e} of size; {} disagreements",
        check.pairs,
        check.reference_hits,
        check.identical,
        check.near_ties,
        check.near_touching,
        check.max_depth_error,
        check.disagreements.len()
    );
    for line in check.disagreements.iter().take(10) {
        println!("  disagreement: {line}");
    }
    check.agrees()
}

/// Writes the GIF, when one was recorded.
fn finish_demo_gif(args: &DemoArgs, gif: Option<GifRecorder>) -> Result<(), Error> {
    if let (Some(path), Some(gif)) = (&args.gif, gif) {
        let frames = gif.len();
        write_atomically(path, &gif.encode()?)?;
        println!("animation ({frames} frames): {}", path.display());
    }
    Ok(())
}

fn demo(args: &DemoArgs, backend: BackendArg, adapter: &str) -> Result<bool, Error> {
    check_demo_args(args)?;
    let scene = DemoScene::new(args.bodies, args.seed)?;
    let view = (
        Vec2::new(scene.inner_left - 1.5, scene.floor - 1.5),
        Vec2::new(scene.inner_right + 1.5, scene.top + 0.5),
    );
    let narrowphase = narrowphase(backend, adapter)?;
    let resident = backend == BackendArg::GpuResident;
    let backend_name = if resident {
        "gpu-resident"
    } else {
        narrowphase.name()
    };
    let adapter_name = narrowphase.adapter().map(|a| a.to_string());
    let context = narrowphase.gpu().map(|gpu| gpu.context().clone());
    let walls = scene.walls;
    let mut world = World::new(
        scene.shapes,
        scene.bodies,
        narrowphase,
        WorldOptions::default(),
    )?;
    if resident && let Some(context) = context {
        world.use_gpu_frame(context)?;
    }
    world.set_check(args.check);
    let mut gif = demo_gif(args)?;
    let initial_energy = world.kinetic_energy();
    let (peak_energy, elapsed) = run_demo_frames(args.frames, initial_energy, |frame| {
        let stats = world.step(args.dt)?;
        let (pairs, hits) = (stats.pairs, stats.hits);
        if let Some(gif) = gif.as_mut()
            && (frame % gif_stride(args.frames) == 0 || frame + 1 == args.frames)
        {
            let options = RenderOptions {
                width: gif.width(),
                height: gif.height(),
                view: Some(view),
                contacts: false,
                highlight_depth: None,
            };
            gif.push(&render(world.shapes(), world.bodies(), &[], &[], &options)?)?;
        }
        Ok((pairs, hits, world.kinetic_energy()))
    })?;
    let totals = world.run_stats().clone();
    let agrees = print_demo_summary(&DemoSummary {
        title: format!(
            "gpusat demo: {} particles and {walls} static walls, {} frames of {:.4} s (seed {})",
            args.bodies, totals.frames, args.dt, args.seed
        ),
        backend: backend_name,
        adapter: adapter_name,
        elapsed,
        totals: &totals,
        energy: (initial_energy, peak_energy, world.kinetic_energy()),
        deepest: world.frame_stats().max_depth,
        check: world.check(),
    });
    if let Some(frame) = world.gpu_frame() {
        let stats = frame.stats();
        println!(
            "GPU-resident frame: {:.1} MiB of device memory, {} frames ({} run again for room), {} maps, grid cells of {:.3}",
            frame.device_bytes() as f64 / (1024.0 * 1024.0),
            stats.frames,
            stats.reruns,
            stats.maps,
            frame.cell_size()
        );
    }

    if let Some(path) = &args.png {
        // The pile: from the floor to the highest particle, wall to wall.
        let top = world.bodies()[walls..]
            .iter()
            .map(|b| gpusat::body_aabb(world.shapes(), b, 0.0).max.y)
            .fold(view.0.y + 1.0, f32::max);
        let options = RenderOptions {
            width: args.size.0,
            height: args.size.1,
            view: Some((view.0, Vec2::new(view.1.x, top + 0.5))),
            contacts: true,
            highlight_depth: Some(10.0 * world.options().slop),
        };
        let picture = render(
            world.shapes(),
            world.bodies(),
            world.hits(),
            world.manifolds(),
            &options,
        )?;
        write_atomically(path, &encode_png(&picture)?)?;
        println!("picture of the last frame: {}", path.display());
    }
    finish_demo_gif(args, gif)?;
    Ok(agrees)
}

/// The 3D demo's fixed camera: in front of the box and above it, far
/// enough for the ball around the box and the column of bodies to fill the
/// view.
fn demo3_camera(scene: &DemoScene3, width: u32, height: u32) -> Camera3 {
    let (w, top) = (scene.half_width, scene.top.max(scene.wall_height));
    let centre = glam::Vec3::new(0.0, 0.4 * top, 0.0);
    let radius = (2.0 * w * w + 0.36 * top * top).sqrt();
    let fov = 0.7f32;
    let direction = glam::Vec3::new(0.25, 0.7, 1.0).normalize();
    let eye = centre + direction * (0.85 * radius / (0.5 * fov).sin());
    Camera3::looking_at(eye, centre, fov, width, height)
}

fn demo3(args: &DemoArgs, backend: BackendArg, adapter: &str) -> Result<bool, Error> {
    check_demo_args(args)?;
    if backend == BackendArg::GpuResident {
        return Err(Error::option(
            "gpusat demo",
            "--backend gpu-resident is 2D only (the GPU-resident frame runs polygons and \
             circles); use --backend gpu with --dim 3"
                .to_string(),
        ));
    }
    let scene = DemoScene3::new(args.bodies, args.seed)?;
    let narrowphase = narrowphase3(backend, adapter)?;
    let backend_name = narrowphase.name();
    let adapter_name = narrowphase.adapter().map(|a| a.to_string());
    let walls = scene.walls;
    // The front wall is cut away in the pictures.
    let hidden = vec![walls - 1];
    let sizes: Vec<f32> = scene.bodies[walls..]
        .iter()
        .filter_map(|b| scene.shapes.get(b.shape).map(|s| 2.0 * s.bounding_radius()))
        .collect();
    let mut world = gpusat::d3::World::new(
        scene.shapes.clone(),
        scene.bodies.clone(),
        narrowphase,
        gpusat::d3::WorldOptions::default(),
    )?;
    world.set_check(args.check);
    let mut gif = demo_gif(args)?;
    let gif_camera = gif
        .as_ref()
        .map(|gif| demo3_camera(&scene, gif.width(), gif.height()));
    let initial_energy = world.kinetic_energy();
    let (peak_energy, elapsed) = run_demo_frames(args.frames, initial_energy, |frame| {
        let stats = world.step(args.dt)?;
        let (pairs, hits) = (stats.pairs, stats.hits);
        if let (Some(gif), Some(camera)) = (gif.as_mut(), gif_camera.as_ref())
            && (frame % gif_stride(args.frames) == 0 || frame + 1 == args.frames)
        {
            let options = Render3Options {
                width: gif.width(),
                height: gif.height(),
                contacts: false,
                hidden: hidden.clone(),
            };
            gif.push(&render3(
                world.shapes(),
                world.bodies(),
                &[],
                camera,
                &options,
            )?)?;
        }
        Ok((pairs, hits, world.kinetic_energy()))
    })?;
    let totals = world.run_stats().clone();
    let median_size = {
        let mut sizes = sizes;
        sizes.sort_by(f32::total_cmp);
        sizes.get(sizes.len() / 2).copied().unwrap_or(0.0)
    };
    let agrees = print_demo_summary(&DemoSummary {
        title: format!(
            "gpusat demo --dim 3: {} bodies (median size {median_size:.3}) in a box of {walls} static walls, \
             {} frames of {:.4} s (seed {})",
            args.bodies, totals.frames, args.dt, args.seed
        ),
        backend: backend_name,
        adapter: adapter_name,
        elapsed,
        totals: &totals,
        energy: (initial_energy, peak_energy, world.kinetic_energy()),
        deepest: world.frame_stats().max_depth,
        check: world.check(),
    });
    if let Some(path) = &args.png {
        let camera = demo3_camera(&scene, args.size.0, args.size.1);
        let options = Render3Options {
            width: args.size.0,
            height: args.size.1,
            contacts: true,
            hidden,
        };
        let picture = render3(
            world.shapes(),
            world.bodies(),
            world.manifolds(),
            &camera,
            &options,
        )?;
        write_atomically(path, &encode_png(&picture)?)?;
        println!("picture of the last frame: {}", path.display());
    }
    finish_demo_gif(args, gif)?;
    Ok(agrees)
}

/// Every how many frames the GIF takes one, for at most about 100.
fn gif_stride(frames: u64) -> u64 {
    frames.div_ceil(100).max(1)
}

fn render_scene(scene_path: &Path, output: &Path, size: (u32, u32)) -> Result<(), Error> {
    let scene = match gpusat::load_any(scene_path)? {
        AnyScene::Planar(scene) => scene,
        AnyScene::Spatial(_) => {
            return Err(Error::Unresolved {
                file: scene_path.display().to_string(),
                message: "is a 3D scene; `gpusat render` draws 2D scenes (collide and resolve \
                          take 3D scenes)"
                    .to_string(),
            });
        }
    };
    let pairs = candidate_pairs(&scene, PairFilter::default());
    let batch = scene.batch_with(&pairs)?;
    let hits = batch.hits(&gpusat::collide_cpu_parallel(&batch));
    let manifolds = manifolds_parallel(&batch, &hits);
    let options = RenderOptions {
        width: size.0,
        height: size.1,
        view: None,
        contacts: true,
        highlight_depth: Some(0.0),
    };
    let picture = render(&scene.shapes, &scene.bodies, &hits, &manifolds, &options)?;
    write_atomically(output, &encode_png(&picture)?)?;
    let overlapping = hits.iter().filter(|h| h.depth > 0.0).count();
    eprintln!(
        "gpusat: {} bodies, {overlapping} overlapping pairs highlighted: {}",
        scene.bodies.len(),
        output.display()
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

/// Pairs one `gpusat bench` batch may hold: the scene behind it takes about
/// 8 bytes per pair, the outputs up to 16 more per backend.
const MAX_BENCH_PAIRS: usize = 50_000_000;

/// The sizes and backends asked for, or the dimension's defaults, checked.
fn bench_common(args: &BenchArgs) -> Result<(Vec<usize>, Vec<BenchBackend>), Error> {
    let invalid = |message: String| Error::option("gpusat bench", message);
    let sizes = match (args.sizes.is_empty(), args.dim) {
        (false, _) => args.sizes.clone(),
        (true, 2) => vec![1_000, 10_000, 100_000, 1_000_000],
        (true, _) => vec![100_000],
    };
    if let Some(size) = sizes
        .iter()
        .find(|&&size| size == 0 || size > MAX_BENCH_PAIRS)
    {
        return Err(invalid(format!(
            "batch size {size} is not between 1 and {MAX_BENCH_PAIRS}"
        )));
    }
    if !(args.time.is_finite() && args.time > 0.0 && args.time <= 600.0) {
        return Err(invalid(format!(
            "--time {} is not a number of seconds between 0 and 600",
            args.time
        )));
    }
    if args.samples == 0 || args.samples > 1000 {
        return Err(invalid(format!(
            "--samples {} is not between 1 and 1000",
            args.samples
        )));
    }
    let asked: Vec<BenchBackend> = if args.backends.is_empty() {
        if args.dim == 2 {
            BenchBackend::ALL.to_vec()
        } else {
            BenchBackend::ALL3.to_vec()
        }
    } else {
        args.backends.iter().map(|arg| arg.backend()).collect()
    };
    let mut backends: Vec<BenchBackend> = Vec::new();
    for backend in asked {
        let fits = match backend {
            BenchBackend::Parry2d | BenchBackend::GpuResident => args.dim == 2,
            BenchBackend::CpuBrute | BenchBackend::CpuPairwise | BenchBackend::Parry3d => {
                args.dim == 3
            }
            _ => true,
        };
        if !fits {
            return Err(invalid(format!(
                "the {} backend is not a {}D backend",
                backend.name(),
                args.dim
            )));
        }
        if !backends.contains(&backend) {
            backends.push(backend);
        }
    }
    Ok((sizes, backends))
}

fn bench_options(args: &BenchArgs) -> Result<BenchOptions, Error> {
    let invalid = |message: String| Error::option("gpusat bench", message);
    let (sizes, backends) = bench_common(args)?;
    if args.kind == KindArg::Polygons && !(3..=MAX_POLYGON_VERTICES).contains(&args.vertices) {
        return Err(invalid(format!(
            "--vertices {} is not between 3 and {MAX_POLYGON_VERTICES}",
            args.vertices
        )));
    }
    Ok(BenchOptions {
        kind: match args.kind {
            KindArg::Polygons => ShapeKind::Polygons(args.vertices),
            KindArg::Circles => ShapeKind::Circles,
            KindArg::Mixed => ShapeKind::Mixed,
        },
        density: match args.density {
            DensityArg::Reference => Density::Reference,
            DensityArg::Sparse => Density::Sparse,
            DensityArg::Dense => Density::Dense,
        },
        sizes,
        backends,
        min_time: std::time::Duration::from_secs_f64(args.time),
        samples: args.samples,
        seed: args.seed,
    })
}

fn bench_options3(args: &BenchArgs) -> Result<BenchOptions3, Error> {
    let invalid = |message: String| Error::option("gpusat bench", message);
    let (sizes, backends) = bench_common(args)?;
    let mut kinds = Vec::new();
    for shape in &args.shapes {
        let kind = match shape.trim() {
            "boxes" => ShapeKind3::Boxes,
            count => match count.parse::<usize>() {
                Ok(n) if (4..=gpusat::d3::MAX_HULL_VERTICES).contains(&n) => ShapeKind3::Hulls(n),
                _ => {
                    return Err(invalid(format!(
                        "--shapes: {count:?} is neither `boxes` nor a vertex count from 4 to {}",
                        gpusat::d3::MAX_HULL_VERTICES
                    )));
                }
            },
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    if kinds.is_empty() {
        return Err(invalid("--shapes is empty".to_string()));
    }
    if args.slow_pairs == 0 {
        return Err(invalid("--slow-pairs must be at least 1".to_string()));
    }
    Ok(BenchOptions3 {
        kinds,
        sizes,
        backends,
        min_time: std::time::Duration::from_secs_f64(args.time),
        samples: args.samples,
        seed: args.seed,
        slow_pairs: args.slow_pairs,
    })
}

fn bench(args: &BenchArgs) -> Result<(), Error> {
    let gpu_options = GpuOptions {
        workgroup_size: args.workgroup_size,
        ..GpuOptions::default()
    };
    // The GPU narrowphase of either dimension, if a GPU row wants it.
    fn open<T>(
        args: &BenchArgs,
        wanted: bool,
        make: impl FnOnce(Arc<GpuContext>) -> Result<T, GpuError>,
    ) -> Result<Option<T>, Error> {
        if !wanted {
            return Ok(None);
        }
        match GpuContext::new(&AdapterChoice::parse(&args.adapter))
            .and_then(|context| make(Arc::new(context)))
        {
            Ok(narrowphase) => Ok(Some(narrowphase)),
            // An adapter asked for by name must be there; `auto` may find none.
            Err(err @ GpuError::NoAdapter { .. }) if args.adapter == "auto" => {
                eprintln!("gpusat: no GPU rows: {err}");
                Ok(None)
            }
            Err(err) => Err(err.into()),
        }
    }
    let report = if args.dim == 3 {
        let options = bench_options3(args)?;
        let wanted = options.backends.iter().any(|backend| backend.needs_gpu());
        let mut gpu = open(args, wanted, |context| {
            gpusat::d3::GpuNarrowphase::new(context, gpu_options.clone())
        })?;
        let cells = options.kinds.len() * options.sizes.len() * options.backends.len();
        with_progress(cells, |tick| run_bench3(&options, gpu.as_mut(), tick))?
    } else {
        let options = bench_options(args)?;
        let wanted = options.backends.iter().any(|backend| backend.needs_gpu());
        let mut gpu = open(args, wanted, |context| {
            GpuNarrowphase::new(context, gpu_options.clone())
        })?;
        let cells = options.sizes.len() * options.backends.len();
        with_progress(cells, |tick| run_bench(&options, gpu.as_mut(), tick))?
    };
    print!("{}", report.table());
    if let Some(path) = &args.csv {
        write_atomically(path, report.csv().as_bytes())?;
        eprintln!("gpusat: wrote {}", path.display());
    }
    if let Some(path) = &args.json {
        write_atomically(path, report.json_lines()?.as_bytes())?;
        eprintln!("gpusat: wrote {}", path.display());
    }
    if let Some(path) = &args.plot {
        let (width, height) = args.plot_size;
        write_atomically(path, &report.plot_png(width, height)?)?;
        eprintln!("gpusat: wrote {}", path.display());
    }
    Ok(())
}

/// Runs `work` with a progress bar of `cells` steps, each told by `tick`.
fn with_progress<T>(
    cells: usize,
    work: impl FnOnce(&mut dyn FnMut(&str)) -> Result<T, Error>,
) -> Result<T, Error> {
    let bar = ProgressBar::new(cells as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let result = work(&mut |cell: &str| {
        bar.inc(1);
        bar.set_message(cell.to_string());
    });
    bar.finish_and_clear();
    result
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Collide {
            scene,
            backend,
            output,
            adapter,
            pretty,
        } => collide(scene, *backend, adapter, output.as_deref(), *pretty),
        Command::Demo {
            dim,
            bodies,
            frames,
            backend,
            adapter,
            seed,
            check,
            png,
            gif,
            size,
            dt,
        } => {
            let args = DemoArgs {
                bodies: bodies.unwrap_or(if *dim == 3 {
                    DEMO3_BODIES
                } else {
                    DEMO_PARTICLES
                }),
                frames: *frames,
                seed: *seed,
                check: *check,
                png: png.clone(),
                gif: gif.clone(),
                size: *size,
                dt: *dt,
            };
            let run = if *dim == 3 { demo3 } else { demo };
            match run(&args, *backend, adapter) {
                Ok(true) => Ok(()),
                Ok(false) => {
                    eprintln!("gpusat: error: the narrowphase disagreed with the CPU reference");
                    return ExitCode::FAILURE;
                }
                Err(err) => Err(err),
            }
        }
        Command::Render {
            scene,
            output,
            size,
        } => render_scene(scene, output, *size),
        Command::Info => info(),
        Command::Bench(args) => bench(args),
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
