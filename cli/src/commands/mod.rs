//! The command's subcommands, one file each, and what they share: the
//! `--backend` option, the narrowphase it builds in each dimension, a
//! scene's candidate pairs, where a result goes, sizes, progress bars.

use std::path::{Path, PathBuf};

use gpusat::gpu::{AdapterChoice, AdapterSummary, GpuOptions};
use gpusat::{BackendKind, Narrowphase, Pair, PairFilter, Scene, find_pairs};
use gpusat_cli::CliError as Error;
use gpusat_cli::output::write_atomically_with;
use indicatif::{ProgressBar, ProgressStyle};

pub mod bench;
pub mod collide;
pub mod demo;
pub mod info;
pub mod render;
pub mod resolve;

/// The `--backend` option of `collide`, `resolve` and `demo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendArg {
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
    pub fn kind(self) -> BackendKind {
        match self {
            BackendArg::Cpu => BackendKind::Cpu,
            BackendArg::CpuParallel => BackendKind::CpuParallel,
            BackendArg::Gpu | BackendArg::GpuResident => BackendKind::Gpu,
            BackendArg::Auto => BackendKind::Auto,
        }
    }

    /// An error for a command that has no GPU-resident frame.
    pub fn not_resident(self, command: &str) -> Result<(), Error> {
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

/// Builds the 2D backend, telling stderr what `auto` chose and why.
pub fn narrowphase_2d(backend: BackendArg, adapter: &str) -> Result<Narrowphase, Error> {
    let narrowphase = Narrowphase::with_adapter(
        backend.kind(),
        &AdapterChoice::parse(adapter),
        GpuOptions::default(),
    )?;
    if backend == BackendArg::Auto {
        tell_choice(narrowphase.note(), narrowphase.adapter());
    }
    Ok(narrowphase)
}

/// The 3D backend, telling stderr what `auto` chose and why.
pub fn narrowphase_3d(
    backend: BackendArg,
    adapter: &str,
) -> Result<gpusat::d3::Narrowphase, Error> {
    let narrowphase = gpusat::d3::Narrowphase::with_adapter(
        backend.kind(),
        &AdapterChoice::parse(adapter),
        GpuOptions::default(),
    )?;
    if backend == BackendArg::Auto {
        tell_choice(narrowphase.note(), narrowphase.adapter());
    }
    Ok(narrowphase)
}

/// Tells stderr what `auto` chose (a backend of either dimension): the note
/// saying why it passed over the GPU, or the GPU it uses.
fn tell_choice(note: Option<&str>, adapter: Option<&AdapterSummary>) {
    match (note, adapter) {
        (Some(note), _) => eprintln!("gpusat: {note}"),
        (None, Some(adapter)) => eprintln!("gpusat: using the GPU: {adapter}"),
        (None, None) => {}
    }
}

/// The scene's own pairs, or the broadphase's when it lists none.
pub fn candidate_pairs_2d(scene: &Scene, filter: PairFilter) -> Vec<Pair> {
    match &scene.pairs {
        Some(pairs) => pairs.clone(),
        None => find_pairs(&scene.shapes, &scene.bodies, scene.margin, filter),
    }
}

/// A 3D scene's own pairs, or the 3D broadphase's when it lists none.
pub fn candidate_pairs_3d(scene: &gpusat::d3::Scene, filter: PairFilter) -> Vec<Pair> {
    match &scene.pairs {
        Some(pairs) => pairs.clone(),
        None => gpusat::d3::find_pairs(&scene.shapes, &scene.bodies, scene.margin, filter),
    }
}

/// Writes a result to `output` whole or not at all, or to standard output.
pub fn emit(
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

pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
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

/// Milliseconds of a duration.
pub fn ms(duration: std::time::Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// Runs `work` with a progress bar of `cells` steps, each told by `tick`.
pub fn with_progress<T>(
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
