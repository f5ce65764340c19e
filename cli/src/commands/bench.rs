//! `gpusat bench`: narrowphase throughput over batch sizes and backends on
//! a seeded workload, in 2D or 3D: a table, and optionally CSV, JSON lines
//! and a plot (see `gpusat_cli::bench`).

use std::path::PathBuf;
use std::sync::Arc;

use gpusat::MAX_POLYGON_VERTICES;
use gpusat::generate::{Density, ShapeKind};
use gpusat::gpu::{AdapterChoice, GpuContext, GpuError, GpuNarrowphase, GpuOptions};
use gpusat_cli::CliError as Error;
use gpusat_cli::bench::{self, BenchBackend};
use gpusat_cli::output::write_atomically;

use super::{parse_size, with_progress};

/// `gpusat bench`'s options.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// 2D (polygons, circles) or 3D (boxes and hulls).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=3))]
    pub dim: u8,
    /// Batch sizes in pairs, comma-separated [2D: 1000,10000,100000,1000000;
    /// 3D: 100000].
    #[arg(long, value_delimiter = ',')]
    pub sizes: Vec<usize>,
    /// Backends to run, comma-separated [2D: cpu, cpu-parallel, cpu-contacts,
    /// gpu, gpu-kernel, parry2d; 3D: cpu, cpu-parallel, cpu-contacts, gpu,
    /// gpu-kernel, cpu-pairwise, cpu-brute, parry3d]; also, in 2D,
    /// gpu-resident and box2d (Box2D v3, in a build with the box2d feature),
    /// and in 3D box3d and box3d-cached (Box3D, in a build with the box3d
    /// feature).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub backends: Vec<BenchBackendArg>,
    /// 3D: the shape kinds, comma-separated: `boxes`, a hull vertex count
    /// (4 to 256), `capsules`, `spheres`, `spheres-boxes` (half spheres,
    /// half boxes), `rounded` and a vertex count (`rounded32`: hulls grown
    /// by a tenth of their radius), `capsules` and a vertex count
    /// (`capsules32`: half capsules, half hulls), `spheres` and a vertex
    /// count (`spheres32`: half spheres, half hulls).
    #[arg(long, value_delimiter = ',', default_value = "boxes,16,32,64,128,256")]
    pub shapes: Vec<String>,
    /// 3D: the brute force and parry3d run on at most this many pairs.
    #[arg(long, default_value_t = 10_000)]
    pub slow_pairs: usize,
    /// What the shapes are.
    #[arg(long, value_enum, default_value_t = KindArg::Polygons)]
    pub kind: KindArg,
    /// Vertices of every polygon, with `--kind polygons`, `circles-polygons` or `rounded`.
    #[arg(long, default_value_t = 8)]
    pub vertices: usize,
    /// How crowded the bodies are: the reference distribution (bodies in
    /// [-1, 1]², nearly all pairs overlap), sparse (~10%) or dense (~80%).
    #[arg(long, value_enum, default_value_t = DensityArg::Reference)]
    pub density: DensityArg,
    /// Seconds of measuring per batch size and backend.
    #[arg(long, default_value_t = 0.5)]
    pub time: f64,
    /// Samples per batch size and backend; the median is reported.
    #[arg(long, default_value_t = 7)]
    pub samples: usize,
    /// Seed of the scene generator (default: the reference seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Write the table as CSV.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Write the table as JSON lines, one object per row.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write a PNG plot of throughput against batch size (log-log).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Plot size, WIDTHxHEIGHT.
    #[arg(long, default_value = "900x600", value_parser = parse_size)]
    pub plot_size: (u32, u32),
    /// GPU adapter (see `collide`); with `auto`, no adapter skips the GPU rows.
    #[arg(long, default_value = "auto")]
    pub adapter: String,
    /// Invocations per GPU workgroup.
    #[arg(long, default_value_t = GpuOptions::default().workgroup_size)]
    pub workgroup_size: u32,
    /// 2D gpu and gpu-kernel: every pair with a polygon through the
    /// kernel's loop kind (`general`) instead of its straight-line kinds
    /// (the same answers; GPUSAT_POLYGON_LOOPS does the same).
    #[arg(long)]
    pub polygon_loops: bool,
    /// gpu-resident: below this many bodies a team of 32 invocations walks
    /// each body's cells (default: the library's: 65,536 on a hardware GPU,
    /// 0 on a software adapter).
    #[arg(long)]
    pub team_walk_below: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchBackendArg {
    Cpu,
    CpuParallel,
    CpuContacts,
    Gpu,
    GpuKernel,
    Parry2d,
    /// Box2D v3 (2D; a build with `--features box2d`).
    Box2d,
    CpuBrute,
    CpuPairwise,
    Parry3d,
    /// Box3D, each pair from an empty cache (3D; a build with `--features box3d`).
    Box3d,
    /// Box3D, each pair's cache kept from a call before on the same poses
    /// (3D; a build with `--features box3d`).
    Box3dCached,
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
            BenchBackendArg::Box2d => BenchBackend::Box2d,
            BenchBackendArg::CpuBrute => BenchBackend::CpuBrute,
            BenchBackendArg::CpuPairwise => BenchBackend::CpuPairwise,
            BenchBackendArg::Parry3d => BenchBackend::Parry3d,
            BenchBackendArg::Box3d => BenchBackend::Box3d,
            BenchBackendArg::Box3dCached => BenchBackend::Box3dCached,
            BenchBackendArg::GpuResident => BenchBackend::GpuResident,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KindArg {
    Polygons,
    Circles,
    /// Polygons of 3 to 16 vertices, circles and slivers.
    Mixed,
    /// Capsules.
    Capsules,
    /// Half capsules, half 8-gons.
    CapsulesPolygons,
    /// Half circles, half polygons of `--vertices` vertices.
    CirclesPolygons,
    /// Rounded polygons of `--vertices` vertices.
    Rounded,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DensityArg {
    Reference,
    Sparse,
    Dense,
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
            BenchBackend::Parry2d | BenchBackend::GpuResident | BenchBackend::Box2d => {
                args.dim == 2
            }
            BenchBackend::CpuBrute
            | BenchBackend::CpuPairwise
            | BenchBackend::Parry3d
            | BenchBackend::Box3d
            | BenchBackend::Box3dCached => args.dim == 3,
            _ => true,
        };
        if !fits {
            return Err(invalid(format!(
                "the {} backend is not a {}D backend",
                backend.name(),
                args.dim
            )));
        }
        if backend == BenchBackend::Box2d && !cfg!(feature = "box2d") {
            return Err(invalid(
                "the box2d backend needs a gpusat built with the box2d feature \
                 (cargo run --release --features box2d -- bench ...)"
                    .to_string(),
            ));
        }
        if matches!(backend, BenchBackend::Box3d | BenchBackend::Box3dCached)
            && !cfg!(feature = "box3d")
        {
            return Err(invalid(format!(
                "the {} backend needs a gpusat built with the box3d feature \
                 (cargo run --release --features box3d -- bench --dim 3 ...)",
                backend.name()
            )));
        }
        if !backends.contains(&backend) {
            backends.push(backend);
        }
    }
    Ok((sizes, backends))
}

fn options_2d(args: &BenchArgs) -> Result<bench::d2::BenchOptions, Error> {
    let invalid = |message: String| Error::option("gpusat bench", message);
    let (sizes, backends) = bench_common(args)?;
    if matches!(
        args.kind,
        KindArg::Polygons | KindArg::Rounded | KindArg::CirclesPolygons
    ) && !(3..=MAX_POLYGON_VERTICES).contains(&args.vertices)
    {
        return Err(invalid(format!(
            "--vertices {} is not between 3 and {MAX_POLYGON_VERTICES}",
            args.vertices
        )));
    }
    Ok(bench::d2::BenchOptions {
        kind: match args.kind {
            KindArg::Polygons => ShapeKind::Polygons(args.vertices),
            KindArg::Circles => ShapeKind::Circles,
            KindArg::Mixed => ShapeKind::Mixed,
            KindArg::Capsules => ShapeKind::Capsules,
            KindArg::CapsulesPolygons => ShapeKind::CapsulesAndPolygons,
            KindArg::CirclesPolygons => ShapeKind::CirclesAndPolygons(args.vertices),
            KindArg::Rounded => ShapeKind::Rounded(args.vertices),
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
        team_walk_below: args.team_walk_below,
    })
}

fn options_3d(args: &BenchArgs) -> Result<bench::d3::BenchOptions, Error> {
    let invalid = |message: String| Error::option("gpusat bench", message);
    let (sizes, backends) = bench_common(args)?;
    let mut kinds = Vec::new();
    for shape in &args.shapes {
        use gpusat::generate::d3::ShapeKind as Kind3;
        let name = shape.trim();
        let count = |digits: &str| match digits.parse::<usize>() {
            Ok(n) if (4..=gpusat::d3::MAX_HULL_VERTICES).contains(&n) => Ok(n),
            _ => Err(invalid(format!(
                "--shapes: {name:?} is none of `boxes`, `capsules`, `spheres`, `spheres-boxes`, \
                 a vertex count from 4 to {} (hulls), `rounded`, `capsules` or `spheres` \
                 followed by one (`rounded32`: hulls grown by a radius; `capsules32`: half \
                 capsules, half hulls; `spheres32`: half spheres, half hulls)",
                gpusat::d3::MAX_HULL_VERTICES
            ))),
        };
        let kind = match name {
            "boxes" => Kind3::Boxes,
            "capsules" => Kind3::Capsules,
            "spheres" => Kind3::Spheres,
            "spheres-boxes" => Kind3::SpheresAndBoxes,
            _ if name.starts_with("rounded") => Kind3::Rounded(count(&name["rounded".len()..])?),
            _ if name.starts_with("capsules") => {
                Kind3::CapsulesAndHulls(count(&name["capsules".len()..])?)
            }
            _ if name.starts_with("spheres") => {
                Kind3::SpheresAndHulls(count(&name["spheres".len()..])?)
            }
            _ => Kind3::Hulls(count(name)?),
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
    Ok(bench::d3::BenchOptions {
        kinds,
        sizes,
        backends,
        min_time: std::time::Duration::from_secs_f64(args.time),
        samples: args.samples,
        seed: args.seed,
        slow_pairs: args.slow_pairs,
    })
}

/// Runs `gpusat bench`.
pub fn run(args: &BenchArgs) -> Result<(), Error> {
    let defaults = GpuOptions::default();
    let gpu_options = GpuOptions {
        workgroup_size: args.workgroup_size,
        polygon_loops: args.polygon_loops || defaults.polygon_loops,
        ..defaults
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
        let options = options_3d(args)?;
        let wanted = options.backends.iter().any(|backend| backend.needs_gpu());
        let mut gpu = open(args, wanted, |context| {
            gpusat::d3::GpuNarrowphase::new(context, gpu_options.clone())
        })?;
        let cells = options.kinds.len() * options.sizes.len() * options.backends.len();
        with_progress(cells, |tick| bench::d3::run(&options, gpu.as_mut(), tick))?
    } else {
        let options = options_2d(args)?;
        let wanted = options.backends.iter().any(|backend| backend.needs_gpu());
        let mut gpu = open(args, wanted, |context| {
            GpuNarrowphase::new(context, gpu_options.clone())
        })?;
        let cells = options.sizes.len() * options.backends.len();
        with_progress(cells, |tick| bench::d2::run(&options, gpu.as_mut(), tick))?
    };
    print!("{}", report.table());
    if gpu_options.polygon_loops && args.dim == 2 {
        println!(
            "2D GPU kinds: every pair with a polygon through the loop kind `general` \
             (--polygon-loops), not the straight-line kinds"
        );
    }
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
