//! `gpusat resolve`: a scene's overlapping bodies pushed apart (contact
//! impulses, then positional separation split by inverse mass), the scene
//! written back.

use std::path::{Path, PathBuf};

use gpusat::{
    AnyScene, Candidates, ContactSolver, PairFilter, SeparationOptions, SolverOptions,
    manifolds_parallel, separate_positions,
};
use gpusat_cli::CliError as Error;
use gpusat_cli::output::{to_json_pretty, write_atomically};

use super::{BackendArg, candidate_pairs_2d, narrowphase_2d, narrowphase_3d};

/// `gpusat resolve`'s options.
#[derive(clap::Args)]
pub struct ResolveArgs {
    pub scene: PathBuf,
    /// Where to write the resolved scene.
    #[arg(long, short)]
    pub output: PathBuf,
    #[arg(long, value_enum, default_value_t = BackendArg::Cpu)]
    pub backend: BackendArg,
    #[arg(long, default_value = "auto")]
    pub adapter: String,
    /// Overlap allowed to remain; default 0.5% of the median shape size.
    #[arg(long)]
    pub slop: Option<f32>,
    /// Fraction of the excess depth corrected per pass.
    #[arg(long, default_value_t = 0.8)]
    pub fraction: f32,
    /// Rounds of narrowphase and correction before giving up.
    #[arg(long, default_value_t = 200)]
    pub max_rounds: usize,
    /// Restitution of the contact impulses.
    #[arg(long, default_value_t = 0.0)]
    pub restitution: f32,
    /// Friction coefficient of the contact impulses.
    #[arg(long, default_value_t = 0.6)]
    pub friction: f32,
}

/// Runs `gpusat resolve`.
pub fn run(args: &ResolveArgs) -> Result<(), Error> {
    let (backend, adapter) = (args.backend, args.adapter.as_str());
    let (scene_path, output) = (args.scene.as_path(), args.output.as_path());
    backend.not_resident("gpusat resolve")?;
    match gpusat::load_any(scene_path)? {
        AnyScene::Planar(scene) => resolve_2d(scene, scene_path, output, (backend, adapter), args),
        AnyScene::Spatial(scene) => resolve_3d(scene, scene_path, output, (backend, adapter), args),
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

fn resolve_3d(
    mut scene: gpusat::d3::Scene,
    scene_path: &Path,
    output: &Path,
    (backend, adapter): (BackendArg, &str),
    args: &ResolveArgs,
) -> Result<(), Error> {
    let mut narrowphase = narrowphase_3d(backend, adapter)?;
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

fn resolve_2d(
    mut scene: gpusat::Scene,
    scene_path: &Path,
    output: &Path,
    (backend, adapter): (BackendArg, &str),
    args: &ResolveArgs,
) -> Result<(), Error> {
    let pairs = candidate_pairs_2d(&scene, PairFilter::default());
    let mut narrowphase = narrowphase_2d(backend, adapter)?;
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
