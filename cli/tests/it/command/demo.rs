//! `gpusat demo` and `gpusat render` end to end: the summary, --check, the
//! PNG and the GIF.

use super::gpusat;

/// Runs gpusat, asserts that it succeeded (showing both outputs if not),
/// and returns its standard output.
fn gpusat_stdout(args: &[&str]) -> String {
    let out = gpusat(args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Share of pixels unlike the top-left one (the background), and distinct colours.
fn picture_stats(pixmap: &tiny_skia::Pixmap) -> (f64, usize) {
    let pixels = pixmap.pixels();
    let background = pixels[0];
    let different = pixels.iter().filter(|p| **p != background).count();
    let mut colours: Vec<u32> = pixels
        .iter()
        .map(|p| u32::from_be_bytes([p.red(), p.green(), p.blue(), p.alpha()]))
        .collect();
    colours.sort_unstable();
    colours.dedup();
    (different as f64 / pixels.len() as f64, colours.len())
}

/// Runs a whole default demo on the GPU with `--check` (when there is a
/// GPU) and returns its summary after asserting it found no disagreement.
fn whole_demo_checked_on_the_gpu(extra: &[&str]) -> Option<String> {
    crate::common::gpu_context()?;
    let mut args = vec!["demo"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--backend", "gpu", "--check"]);
    let stdout = gpusat_stdout(&args);
    let backend = args[args
        .iter()
        .position(|&a| a == "--backend")
        .map_or(0, |i| i + 1)];
    assert!(
        stdout.contains(&format!("backend: {backend} on")),
        "{stdout}"
    );
    assert!(stdout.contains("; 0 disagreements"), "{stdout}");
    eprintln!("{stdout}");
    Some(stdout)
}

#[test]
fn check_on_the_gpu_over_the_whole_demo_finds_no_disagreement() {
    whole_demo_checked_on_the_gpu(&[]);
}

/// The whole default demo as GPU-resident frames (broadphase, narrowphase
/// and manifolds on the device, one readback a frame) with the CPU
/// broadphase and reference beside it: no disagreement on any frame, and
/// the same trajectory as the CPU's (the summary's figures, to the digit).
#[test]
fn the_gpu_resident_demo_checks_clean_and_moves_as_the_cpu_demo() {
    if crate::common::gpu_context().is_none() {
        return;
    }
    let run = |backend: &str, check: bool| {
        let mut args = vec!["demo", "--backend", backend];
        if check {
            args.push("--check");
        }
        gpusat_stdout(&args)
    };
    let resident = run("gpu-resident", true);
    assert!(resident.contains("backend: gpu-resident on"), "{resident}");
    assert!(resident.contains("; 0 disagreements"), "{resident}");
    let cpu = run("cpu", false);
    let figures = |summary: &str| -> Vec<String> {
        summary
            .lines()
            .filter(|line| line.starts_with("pairs tested") || line.starts_with("kinetic energy"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(figures(&resident).len(), 2, "{resident}");
    if !crate::common::gpu_is_bit_exact() {
        // A hardware GPU's rounding (crate::common::gpu_is_bit_exact) sends the
        // pile along its own trajectory; the check above still holds.
        return;
    }
    assert_eq!(
        figures(&resident),
        figures(&cpu),
        "gpu-resident:\n{resident}\ncpu:\n{cpu}"
    );
}

#[test]
fn gpu_resident_is_a_2d_demo_backend_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = dir.path().join("scene.json");
    std::fs::write(
        &scene,
        r#"{"shapes": [{"circle": 1.0}], "bodies": [{"shape": 0, "position": [0, 0]}, {"shape": 0, "position": [1, 0]}]}"#,
    )
    .expect("scene written");
    let output = dir.path().join("out.json");
    for args in [
        vec![
            "demo",
            "--dim",
            "3",
            "--backend",
            "gpu-resident",
            "--frames",
            "1",
        ],
        vec![
            "collide",
            &scene.display().to_string(),
            "--backend",
            "gpu-resident",
        ],
        vec![
            "resolve",
            &scene.display().to_string(),
            "-o",
            &output.display().to_string(),
            "--backend",
            "gpu-resident",
        ],
    ] {
        let out = gpusat(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr.contains("gpu-resident"), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    assert!(!output.exists());
}

#[test]
fn demo_prints_a_summary_and_writes_a_png_and_a_gif() {
    let dir = tempfile::tempdir().expect("temp dir");
    let png = dir.path().join("last.png");
    let gif = dir.path().join("run.gif");
    let stdout = gpusat_stdout(&[
        "demo",
        "--backend",
        "cpu",
        "--bodies",
        "400",
        "--frames",
        "90",
        "--seed",
        "7",
        "--png",
        &png.display().to_string(),
        "--gif",
        &gif.display().to_string(),
        "--size",
        "640x360",
    ]);
    for words in [
        "400 particles",
        "90 frames",
        "seed 7",
        "backend: cpu",
        "frames/s",
        "per frame (ms): integrate",
        "broadphase",
        "kernel",
        "solve",
        "pairs tested per frame",
        "reported per frame",
        "kinetic energy",
    ] {
        assert!(stdout.contains(words), "{words:?} missing from:\n{stdout}");
    }

    let picture = tiny_skia::Pixmap::decode_png(&std::fs::read(&png).expect("PNG written"))
        .expect("PNG decodes");
    assert_eq!((picture.width(), picture.height()), (640, 360));
    let (covered, colours) = picture_stats(&picture);
    assert!(covered > 0.05, "the picture is nearly blank: {covered}");
    assert!(colours > 50, "only {colours} colours");

    let file = std::fs::File::open(&gif).expect("GIF written");
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(file).expect("GIF decodes");
    assert_eq!((decoder.width(), decoder.height()), (480, 270));
    let mut frames = 0;
    while decoder.read_next_frame().expect("GIF frame").is_some() {
        frames += 1;
    }
    assert!(frames >= 45, "{frames} frames");
}

#[test]
fn render_highlights_overlapping_pairs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = dir.path().join("scene.json");
    std::fs::write(
        &scene,
        r#"{"shapes": [{"polygon": [[-1,-1],[1,-1],[1,1],[-1,1]]}, {"circle": 0.6}],
            "bodies": [{"shape": 0, "position": [0, 0]}, {"shape": 0, "position": [1.6, 0.4], "angle": 0.3},
                       {"shape": 1, "position": [-1.2, 1.3]}, {"shape": 1, "position": [4, 0]}]}"#,
    )
    .expect("write");
    let png = dir.path().join("scene.png");
    let out = gpusat(&[
        "render",
        &scene.display().to_string(),
        "-o",
        &png.display().to_string(),
        "--size",
        "400x300",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 overlapping pairs"));
    let picture =
        tiny_skia::Pixmap::decode_png(&std::fs::read(&png).expect("PNG")).expect("decodes");
    assert_eq!((picture.width(), picture.height()), (400, 300));
    let red = picture
        .pixels()
        .iter()
        .filter(|p| p.red() > 200 && p.green() < 60 && p.blue() < 60)
        .count();
    assert!(
        red > 50,
        "overlaps are not highlighted in red ({red} red pixels)"
    );

    // Without overlaps, nothing is red.
    std::fs::write(&scene, r#"{"shapes": [{"circle": 0.5}], "bodies": [{"shape": 0, "position": [0, 0]}, {"shape": 0, "position": [3, 0]}]}"#).expect("write");
    let out = gpusat(&[
        "render",
        &scene.display().to_string(),
        "-o",
        &png.display().to_string(),
    ]);
    assert!(out.status.success());
    let picture =
        tiny_skia::Pixmap::decode_png(&std::fs::read(&png).expect("PNG")).expect("decodes");
    let red = picture
        .pixels()
        .iter()
        .filter(|p| p.red() > 200 && p.green() < 60 && p.blue() < 60)
        .count();
    assert_eq!(red, 0);
}

#[test]
fn bad_demo_and_render_arguments_are_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let png = dir.path().join("x.png");
    for args in [
        vec!["demo", "--dt", "-1", "--frames", "1"],
        vec!["demo", "--size", "0x10", "--frames", "1"],
        vec!["demo", "--size", "wide", "--frames", "1"],
        vec!["demo", "--shapes", "triangles", "--frames", "1"],
        vec!["demo", "--shapes", "", "--frames", "1"],
        vec!["demo", "--dim", "3", "--shapes", "cones", "--frames", "1"],
        vec!["demo", "--recycle=-0.001", "--frames", "1"],
        vec!["demo", "--dim", "3", "--recycle", "0.5", "--frames", "1"],
        vec!["demo", "--recycle", "NaN", "--frames", "1"],
        vec![
            "demo",
            "--dim",
            "3",
            "--backend",
            "gpu",
            "--shapes",
            "hulls,rounded",
            "--frames",
            "1",
        ],
        vec![
            "render",
            "/nonexistent.json",
            "-o",
            &png.display().to_string(),
        ],
    ] {
        let out = gpusat(&args);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    assert!(!png.exists());
}

/// The 3D demo of capsules and rounded hulls alone, checked against the
/// CPU reference on every frame, settles without a disagreement.
#[test]
fn demo_in_3d_with_capsules_and_rounded_shapes_alone() {
    let stdout = gpusat_stdout(&[
        "demo",
        "--dim",
        "3",
        "--backend",
        "cpu-parallel",
        "--check",
        "--shapes",
        "capsules,rounded",
        "--bodies",
        "60",
        "--frames",
        "90",
    ]);
    for words in ["gpusat demo --dim 3: 60 bodies", "; 0 disagreements"] {
        assert!(stdout.contains(words), "{words:?} missing from:\n{stdout}");
    }
}

/// The whole default 3D demo (1,000 bodies, 300 frames) on the GPU with the
/// CPU reference beside it: no disagreement on any frame.
#[test]
fn check_on_the_gpu_over_the_whole_3d_demo_finds_no_disagreement() {
    if let Some(stdout) = whole_demo_checked_on_the_gpu(&["--dim", "3"]) {
        assert!(stdout.contains("1000 bodies"), "{stdout}");
    }
}

/// A 3D pile of boxes, spheres, capsules and rounded hulls and boxes on the
/// GPU (every pair with a radius in the `rounded` kernel), the CPU
/// reference beside it on every frame: no disagreement as it settles.
#[test]
fn check_on_the_gpu_over_a_3d_demo_of_rounded_shapes_finds_no_disagreement() {
    if let Some(stdout) = whole_demo_checked_on_the_gpu(&[
        "--dim",
        "3",
        "--shapes",
        "boxes,spheres,capsules,rounded",
        "--bodies",
        "300",
        "--frames",
        "120",
    ]) {
        assert!(stdout.contains("300 bodies"), "{stdout}");
    }
}

/// `demo --dim 3` on the CPU (no GPU needed): the summary, `--check`
/// against the reference, the picture drawn in perspective and the
/// animation.
#[test]
fn demo_in_3d_prints_a_summary_and_writes_a_png_and_a_gif() {
    let dir = tempfile::tempdir().expect("temp dir");
    let png = dir.path().join("last3.png");
    let gif = dir.path().join("run3.gif");
    let stdout = gpusat_stdout(&[
        "demo",
        "--dim",
        "3",
        "--backend",
        "cpu-parallel",
        "--check",
        "--bodies",
        "80",
        "--frames",
        "60",
        "--seed",
        "5",
        "--png",
        &png.display().to_string(),
        "--gif",
        &gif.display().to_string(),
        "--size",
        "400x300",
    ]);
    for words in [
        "gpusat demo --dim 3: 80 bodies",
        "60 frames",
        "seed 5",
        "backend: cpu-parallel",
        "per frame (ms): integrate",
        "kinetic energy",
        "deepest contact",
        "; 0 disagreements",
    ] {
        assert!(stdout.contains(words), "{words:?} missing from:\n{stdout}");
    }
    let picture = tiny_skia::Pixmap::decode_png(&std::fs::read(&png).expect("PNG written"))
        .expect("PNG decodes");
    assert_eq!((picture.width(), picture.height()), (400, 300));
    let (covered, colours) = picture_stats(&picture);
    assert!(covered > 0.2, "the picture is nearly blank: {covered}");
    assert!(
        colours > 100,
        "only {colours} colours (shading by normal gives many)"
    );

    let file = std::fs::File::open(&gif).expect("GIF written");
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(file).expect("GIF decodes");
    assert_eq!((decoder.width(), decoder.height()), (400, 300));
    let mut frames = 0;
    while decoder.read_next_frame().expect("GIF frame").is_some() {
        frames += 1;
    }
    assert!(frames >= 60, "{frames} frames");
}
