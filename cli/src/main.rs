//! The `gpusat` command: collide, resolve, demo, render, info, bench (one
//! file each under `commands/`).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod commands;

use commands::bench::BenchArgs;
use commands::collide::CollideArgs;
use commands::demo::DemoArgs;
use commands::info::InfoArgs;
use commands::render::RenderArgs;
use commands::resolve::ResolveArgs;

#[derive(Parser)]
#[command(
    name = "gpusat",
    version,
    about = "Batch collision detection in 2D and 3D (SAT) on the GPU, checked against a CPU reference"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Test a scene file's candidate pairs and write the overlapping ones as JSON.
    Collide(CollideArgs),
    /// Push a scene's overlapping bodies apart and write the scene back.
    ///
    /// Contact impulses first (for bodies with velocities), then positional
    /// separation split by inverse mass until no candidate pair overlaps by
    /// more than the slop. Static bodies never move.
    Resolve(ResolveArgs),
    /// The main job: particles poured into a container, simulated frame by
    /// frame (broadphase, narrowphase, contacts, impulses), with a summary.
    Demo(DemoArgs),
    /// Draw a scene file: bodies, contacts, and the overlapping pairs with
    /// their minimum translation vectors.
    Render(RenderArgs),
    /// List the GPU adapters, say which one `auto` picks and what it
    /// offers, and the kernels' entry points with their SPIR-V sizes.
    Info(InfoArgs),
    /// Measure narrowphase throughput over batch sizes and backends on a
    /// seeded workload: a table, and optionally CSV, JSON lines and a plot.
    ///
    /// Every backend's hits are checked against the CPU reference before it
    /// is timed; each figure is the median of several samples.
    Bench(BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Collide(args) => commands::collide::run(args),
        Command::Resolve(args) => commands::resolve::run(args),
        Command::Demo(args) => match commands::demo::run(args) {
            Ok(true) => Ok(()),
            Ok(false) => {
                eprintln!("gpusat: error: the narrowphase disagreed with the CPU reference");
                return ExitCode::FAILURE;
            }
            Err(err) => Err(err),
        },
        Command::Render(args) => commands::render::run(args),
        Command::Info(args) => commands::info::run(args),
        Command::Bench(args) => commands::bench::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("gpusat: error: {err}");
            ExitCode::FAILURE
        }
    }
}
