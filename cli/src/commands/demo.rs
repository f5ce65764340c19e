//! `gpusat demo`: the main job. Bodies poured into a container and
//! simulated frame by frame (broadphase, narrowphase, contacts, impulses),
//! in 2D (polygons and circles) or 3D (hulls, boxes and spheres), with a
//! summary, and optionally the CPU reference checked beside every frame, a
//! picture of the last frame and an animation.

use std::path::PathBuf;
use std::time::Instant;

use glam::Vec2;
use gpusat::generate::d2::{
    DEMO_DT, DEMO_FRAMES, DEMO_PARTICLES, DEMO_SEED, DemoScene, DemoShapes,
};
use gpusat::generate::d3::{DEMO_BODIES, DemoScene as DemoScene3D, DemoShapes as DemoShapes3D};
use gpusat::{World, WorldOptions};
use gpusat_cli::CliError as Error;
use gpusat_cli::output::write_atomically;
use gpusat_cli::render::{self, GifRecorder, encode_png};
use indicatif::{ProgressBar, ProgressStyle};

use super::{BackendArg, ms, narrowphase_2d, narrowphase_3d, parse_size};

/// `gpusat demo`'s options.
#[derive(clap::Args)]
pub struct DemoArgs {
    /// 2D (polygons and circles in a container) or 3D (hulls, boxes and
    /// spheres in an open box).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=3))]
    pub dim: u8,
    /// Bodies dropped [2D: 3,000 polygons of 3 to 8 vertices and
    /// circles; 3D: 1,000 hulls of 4 to 64 vertices, boxes, spheres,
    /// capsules and rounded hulls and boxes].
    #[arg(long)]
    pub bodies: Option<usize>,
    #[arg(long, default_value_t = DEMO_FRAMES)]
    pub frames: u64,
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    #[arg(long, default_value = "auto")]
    pub adapter: String,
    #[arg(long, default_value_t = DEMO_SEED)]
    pub seed: u64,
    /// Run the CPU reference beside the narrowphase on every frame and
    /// report any disagreement (which makes the exit status non-zero).
    #[arg(long)]
    pub check: bool,
    /// Write a picture of the last frame.
    #[arg(long)]
    pub png: Option<PathBuf>,
    /// Write an animation of the run.
    #[arg(long)]
    pub gif: Option<PathBuf>,
    /// Picture size, WIDTHxHEIGHT.
    #[arg(long, default_value = "800x600", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Time step in seconds.
    #[arg(long, default_value_t = DEMO_DT)]
    pub dt: f32,
    /// The bodies' shapes, comma-separated. 2D: `polygons`, `circles`,
    /// `capsules`, `rounded` [default: all four]. 3D: `hulls`, `boxes`,
    /// `spheres`, `capsules`, `rounded` [default: all five on the CPU
    /// backends; all but `rounded` with `--backend gpu`, whose 3D kernel
    /// takes no rounded hull with a hull of more than 32 vertices, as the
    /// demo's are: `hulls` and `rounded` together are an error there].
    #[arg(long)]
    pub shapes: Option<String>,
    /// Contact recycling, which is not exact: a pair whose body B moved at
    /// most this length relative to body A since its contacts were computed
    /// keeps them (carried along by A) instead of a new narrowphase; below
    /// the margin (0.02); not with `--backend gpu-resident` [default: off,
    /// every pair exact every frame].
    #[arg(long, value_name = "LENGTH")]
    pub recycle: Option<f32>,
}

/// Which of `names` a `--shapes` list names, in their order: an unknown
/// name is an error naming the choices.
fn named_shapes<const N: usize>(list: &str, names: [&str; N]) -> Result<[bool; N], Error> {
    let mut chosen = [false; N];
    for name in list.split(',').map(str::trim) {
        let Some(index) = names.iter().position(|known| *known == name) else {
            return Err(Error::option(
                "--shapes",
                format!("{name:?} is not one of {}", names.join(", ")),
            ));
        };
        chosen[index] = true;
    }
    Ok(chosen)
}

/// The 2D demo's shapes from `--shapes` (and the backend, for the default).
fn demo_shapes(args: &DemoArgs) -> Result<DemoShapes, Error> {
    let Some(list) = &args.shapes else {
        return Ok(DemoShapes::ALL);
    };
    let [polygons, circles, capsules, rounded] =
        named_shapes(list, ["polygons", "circles", "capsules", "rounded"])?;
    Ok(DemoShapes {
        polygons,
        circles,
        capsules,
        rounded,
    })
}

/// The 3D demo's shapes from `--shapes`, and whether the narrowphase runs
/// on a GPU (its kernels take no rounded hull with a hull of the demo's
/// larger sizes).
fn demo_shapes_3d(args: &DemoArgs, on_gpu: bool) -> Result<DemoShapes3D, Error> {
    let Some(list) = &args.shapes else {
        return Ok(if on_gpu {
            DemoShapes3D::GPU
        } else {
            DemoShapes3D::ALL
        });
    };
    let [hulls, boxes, spheres, capsules, rounded] =
        named_shapes(list, ["hulls", "boxes", "spheres", "capsules", "rounded"])?;
    let shapes = DemoShapes3D {
        hulls,
        boxes,
        spheres,
        capsules,
        rounded,
    };
    if on_gpu && shapes.hulls && shapes.rounded {
        return Err(Error::option(
            "--shapes",
            format!(
                "the 3D GPU kernel collides rounded hulls with hulls of at most {} vertices, \
                 and the demo's hulls have up to 64: name hulls or rounded on --backend gpu, \
                 or run both with --backend cpu or cpu-parallel",
                gpusat::gpu::ROUNDED_HULL_VERTICES
            ),
        ));
    }
    Ok(shapes)
}

/// Runs `gpusat demo`; false when the check found a disagreement.
pub fn run(args: &DemoArgs) -> Result<bool, Error> {
    let bodies = args.bodies.unwrap_or(if args.dim == 3 {
        DEMO_BODIES
    } else {
        DEMO_PARTICLES
    });
    if args.dim == 3 {
        run_3d(args, bodies)
    } else {
        run_2d(args, bodies)
    }
}

/// Checks the demo's options that do not depend on the dimension.
fn check_demo_args(args: &DemoArgs) -> Result<(), Error> {
    if !(args.dt.is_finite() && args.dt > 0.0) {
        return Err(Error::option(
            "--dt",
            format!("{} is not a positive number", args.dt),
        ));
    }
    // The worlds check it too; here it is named as the option it came from,
    // before the scene is built. (Both dimensions' default margin.)
    let margin = WorldOptions::default().margin;
    if let Some(tolerance) = args.recycle
        && !(tolerance.is_finite() && tolerance >= 0.0 && tolerance < margin)
    {
        return Err(Error::option(
            "--recycle",
            format!("{tolerance} is not a length of at least zero below the margin {margin}"),
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
    /// The contact recycling tolerance, when on.
    recycle: Option<f32>,
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
    if let Some(tolerance) = summary.recycle {
        println!(
            "recycled per frame (tolerance {tolerance}, not exact): {:.0} pairs, {:.1}% of the candidates",
            totals.recycled as f64 / frames,
            100.0 * totals.recycled as f64 / totals.pairs.max(1) as f64
        );
    }
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

fn run_2d(args: &DemoArgs, bodies: usize) -> Result<bool, Error> {
    let (backend, adapter) = (args.backend, args.adapter.as_str());
    check_demo_args(args)?;
    let scene = DemoScene::with_shapes(bodies, args.seed, demo_shapes(args)?)?;
    let view = (
        Vec2::new(scene.inner_left - 1.5, scene.floor - 1.5),
        Vec2::new(scene.inner_right + 1.5, scene.top + 0.5),
    );
    let narrowphase = narrowphase_2d(backend, adapter)?;
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
        WorldOptions {
            recycle: args.recycle,
            ..WorldOptions::default()
        },
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
            let options = render::d2::RenderOptions {
                width: gif.width(),
                height: gif.height(),
                view: Some(view),
                contacts: false,
                highlight_depth: None,
            };
            gif.push(&render::d2::render(
                world.shapes(),
                world.bodies(),
                &[],
                &[],
                &options,
            )?)?;
        }
        Ok((pairs, hits, world.kinetic_energy()))
    })?;
    let totals = world.run_stats().clone();
    let agrees = print_demo_summary(&DemoSummary {
        title: format!(
            "gpusat demo: {} particles and {walls} static walls, {} frames of {:.4} s (seed {})",
            bodies, totals.frames, args.dt, args.seed
        ),
        backend: backend_name,
        adapter: adapter_name,
        elapsed,
        totals: &totals,
        energy: (initial_energy, peak_energy, world.kinetic_energy()),
        deepest: world.frame_stats().max_depth,
        check: world.check(),
        recycle: args.recycle,
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
        let options = render::d2::RenderOptions {
            width: args.size.0,
            height: args.size.1,
            view: Some((view.0, Vec2::new(view.1.x, top + 0.5))),
            contacts: true,
            highlight_depth: Some(10.0 * world.options().slop),
        };
        let picture = render::d2::render(
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
fn camera_3d(scene: &DemoScene3D, width: u32, height: u32) -> render::d3::Camera {
    let (w, top) = (scene.half_width, scene.top.max(scene.wall_height));
    let centre = glam::Vec3::new(0.0, 0.4 * top, 0.0);
    let radius = (2.0 * w * w + 0.36 * top * top).sqrt();
    let fov = 0.7f32;
    let direction = glam::Vec3::new(0.25, 0.7, 1.0).normalize();
    let eye = centre + direction * (0.85 * radius / (0.5 * fov).sin());
    render::d3::Camera::looking_at(eye, centre, fov, width, height)
}

fn run_3d(args: &DemoArgs, bodies: usize) -> Result<bool, Error> {
    let (backend, adapter) = (args.backend, args.adapter.as_str());
    check_demo_args(args)?;
    if backend == BackendArg::GpuResident {
        return Err(Error::option(
            "gpusat demo",
            "--backend gpu-resident is 2D only (the GPU-resident frame runs polygons and \
             circles); use --backend gpu with --dim 3"
                .to_string(),
        ));
    }
    let narrowphase = narrowphase_3d(backend, adapter)?;
    let which = demo_shapes_3d(args, narrowphase.adapter().is_some())?;
    let scene = DemoScene3D::with_shapes(bodies, args.seed, which)?;
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
        gpusat::d3::WorldOptions {
            recycle: args.recycle,
            ..gpusat::d3::WorldOptions::default()
        },
    )?;
    world.set_check(args.check);
    let mut gif = demo_gif(args)?;
    let gif_camera = gif
        .as_ref()
        .map(|gif| camera_3d(&scene, gif.width(), gif.height()));
    let initial_energy = world.kinetic_energy();
    let (peak_energy, elapsed) = run_demo_frames(args.frames, initial_energy, |frame| {
        let stats = world.step(args.dt)?;
        let (pairs, hits) = (stats.pairs, stats.hits);
        if let (Some(gif), Some(camera)) = (gif.as_mut(), gif_camera.as_ref())
            && (frame % gif_stride(args.frames) == 0 || frame + 1 == args.frames)
        {
            let options = render::d3::RenderOptions {
                width: gif.width(),
                height: gif.height(),
                contacts: false,
                hidden: hidden.clone(),
            };
            gif.push(&render::d3::render(
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
            bodies, totals.frames, args.dt, args.seed
        ),
        backend: backend_name,
        adapter: adapter_name,
        elapsed,
        totals: &totals,
        energy: (initial_energy, peak_energy, world.kinetic_energy()),
        deepest: world.frame_stats().max_depth,
        check: world.check(),
        recycle: args.recycle,
    });
    if let Some(path) = &args.png {
        let camera = camera_3d(&scene, args.size.0, args.size.1);
        let options = render::d3::RenderOptions {
            width: args.size.0,
            height: args.size.1,
            contacts: true,
            hidden,
        };
        let picture = render::d3::render(
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
