//! `gpusat collide`: a scene file's candidate pairs through the
//! narrowphase, the overlapping ones written as JSON.

use std::path::PathBuf;

use gpusat::{AnyScene, PairFilter};
use gpusat_cli::CliError as Error;
use gpusat_cli::output;

use super::{
    BackendArg, candidate_pairs_2d, candidate_pairs_3d, emit, narrowphase_2d, narrowphase_3d,
};

/// `gpusat collide`'s options.
#[derive(clap::Args)]
pub struct CollideArgs {
    /// The scene file (JSON; see docs/cli.md for the format).
    pub scene: PathBuf,
    /// Which narrowphase to run.
    #[arg(long, value_enum, default_value_t = BackendArg::Cpu)]
    pub backend: BackendArg,
    /// Where to write the result; standard output when absent.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// GPU adapter: part of its name, or a type (discrete, integrated,
    /// cpu) or backend (vulkan, metal, dx12, gl).
    #[arg(long, default_value = "auto")]
    pub adapter: String,
    /// Indent the JSON for people (compact by default).
    #[arg(long)]
    pub pretty: bool,
}

/// Runs `gpusat collide`.
pub fn run(args: &CollideArgs) -> Result<(), Error> {
    let (backend, adapter, pretty) = (args.backend, args.adapter.as_str(), args.pretty);
    let output = args.output.as_deref();
    backend.not_resident("gpusat collide")?;
    match gpusat::load_any(&args.scene)? {
        AnyScene::Planar(scene) => {
            let pairs = candidate_pairs_2d(&scene, PairFilter::default());
            let batch = scene.batch_with(&pairs)?;
            let mut narrowphase = narrowphase_2d(backend, adapter)?;
            let sat_hits = narrowphase.collide(&batch)?;
            let name = narrowphase.name();
            emit(output, |out| {
                output::d2::write_collide_output(out, name, &batch, &sat_hits, pretty)
            })
        }
        AnyScene::Spatial(scene) => {
            let pairs = candidate_pairs_3d(&scene, PairFilter::default());
            let batch = scene.batch_with(&pairs)?;
            let mut narrowphase = narrowphase_3d(backend, adapter)?;
            let sat_hits = narrowphase.collide(&batch)?;
            let name = narrowphase.name();
            emit(output, |out| {
                output::d3::write_collide_output(out, name, &batch, &sat_hits, pretty)
            })
        }
    }
}
