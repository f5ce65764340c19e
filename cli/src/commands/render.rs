//! `gpusat render`: a picture of a 2D scene file: bodies, contacts, and the
//! overlapping pairs with their minimum translation vectors.

use std::path::PathBuf;

use gpusat::{AnyScene, PairFilter, manifolds_parallel};
use gpusat_cli::CliError as Error;
use gpusat_cli::output::write_atomically;
use gpusat_cli::render::{
    d2::{RenderOptions, render},
    encode_png,
};

use super::{candidate_pairs_2d, parse_size};

/// `gpusat render`'s options.
#[derive(clap::Args)]
pub struct RenderArgs {
    pub scene: PathBuf,
    #[arg(long, short)]
    pub output: PathBuf,
    /// Picture size, WIDTHxHEIGHT.
    #[arg(long, default_value = "800x600", value_parser = parse_size)]
    pub size: (u32, u32),
}

/// Runs `gpusat render`.
pub fn run(args: &RenderArgs) -> Result<(), Error> {
    let (scene_path, output, size) = (args.scene.as_path(), args.output.as_path(), args.size);
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
    let pairs = candidate_pairs_2d(&scene, PairFilter::default());
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
