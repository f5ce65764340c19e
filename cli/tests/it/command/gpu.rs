//! The command's GPU side: `--backend gpu|auto`, `--adapter`, `gpusat info`,
//! and what happens without an adapter.

use std::process::{Command, Output};

use gpusat_cli::output::d2::CollideOutput;

const SCENE: &str = r#"{
  "shapes": [{"polygon": [[-1,-1],[1,-1],[1,1],[-1,1]]}, {"circle": 0.5},
             {"polygon": [[0,0],[0,1],[2,0]]}],
  "bodies": [{"shape": 0, "position": [0,0]},
             {"shape": 0, "position": [1.5,0.2], "angle": 0.1},
             {"shape": 1, "position": [0,1.3], "inv_mass": 0},
             {"shape": 2, "position": [0.5,-1.2], "angle": 2.0}],
  "pairs": [[0,1],[1,3],[1,2],[0,2],[0,3],[2,3]]
}"#;

fn gpusat(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gpusat"));
    command.args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("gpusat runs")
}

fn scene_file(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("scene.json");
    std::fs::write(&path, SCENE).expect("write");
    path.display().to_string()
}

fn collide(scene: &str, backend: &str) -> (CollideOutput, String) {
    let out = gpusat(&["collide", scene, "--backend", backend], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{backend}: {stderr}");
    (serde_json::from_slice(&out.stdout).expect("JSON"), stderr)
}

#[test]
fn gpu_backend_reports_what_the_cpu_reports() {
    if crate::common::gpu_context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = scene_file(&dir);
    let (cpu, _) = collide(&scene, "cpu");
    let (gpu, _) = collide(&scene, "gpu");
    assert_eq!(gpu.backend, "gpu");
    assert_eq!(gpu.pairs_tested, cpu.pairs_tested);
    assert_eq!(gpu.hits.len(), cpu.hits.len());
    assert!(cpu.hits.len() >= 4, "{} hits", cpu.hits.len());
    for (g, c) in gpu.hits.iter().zip(&cpu.hits) {
        assert_eq!((g.pair, g.a, g.b), (c.pair, c.a, c.b));
        assert_eq!(g.axis, c.axis);
        assert_eq!(
            g.normal, c.normal,
            "the normal is rebuilt from the same feature"
        );
        assert!(
            (g.depth - c.depth).abs() <= 1e-5,
            "depth {} vs {}",
            g.depth,
            c.depth
        );
    }
}

/// `auto` picks by speed: a hardware GPU when there is one; when the only
/// adapter is a software rasterizer (lavapipe here), the CPU, saying why.
/// An adapter named with `--adapter` is used whatever it is.
#[test]
fn auto_passes_over_a_software_adapter_for_the_cpu() {
    let Some(context) = crate::common::gpu_context() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = scene_file(&dir);
    let (cpu, _) = collide(&scene, "cpu");
    let out = gpusat(&["collide", &scene, "--backend", "auto"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let auto: CollideOutput = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(auto.hits, cpu.hits);
    if context.is_software() {
        assert_eq!(auto.backend, "cpu-parallel");
        assert!(
            stderr.contains("software rasterizer") && stderr.contains("using the CPU"),
            "{stderr}"
        );
        let out = gpusat(
            &[
                "collide",
                &scene,
                "--backend",
                "auto",
                "--adapter",
                &context.adapter().name,
            ],
            &[],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        let named: CollideOutput = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(named.backend, "gpu", "{stderr}");
        assert!(stderr.contains("using the GPU"), "{stderr}");
        let info = gpusat(&["info"], &[]);
        let stdout = String::from_utf8_lossy(&info.stdout);
        assert!(
            stdout.contains("auto picks: the CPU") && stdout.contains("software rasterizer"),
            "{stdout}"
        );
    } else {
        assert_eq!(auto.backend, "gpu");
        assert!(stderr.contains("using the GPU"), "{stderr}");
    }
}

#[test]
fn without_an_adapter_gpu_fails_and_auto_falls_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = scene_file(&dir);
    // No Metal on this platform: wgpu finds no adapter at all.
    let no_adapter = [("WGPU_BACKEND", "metal")];
    let out_path = dir.path().join("out.json").display().to_string();
    let out = gpusat(
        &["collide", &scene, "--backend", "gpu", "--output", &out_path],
        &no_adapter,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("mesa-vulkan-drivers"), "{stderr}");
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("gpusat")).count(),
        1,
        "{stderr}"
    );
    assert!(!std::path::Path::new(&out_path).exists());

    let out = gpusat(&["collide", &scene, "--backend", "auto"], &no_adapter);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("using the CPU"), "{stderr}");
    let output: CollideOutput = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(output.backend, "cpu-parallel");
}

#[test]
fn an_adapter_that_does_not_exist_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = scene_file(&dir);
    let out = gpusat(
        &[
            "collide",
            &scene,
            "--backend",
            "gpu",
            "--adapter",
            "no-such-adapter",
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("no-such-adapter"), "{stderr}");
}

#[test]
fn info_lists_the_adapters() {
    let out = gpusat(&["info"], &[]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("auto picks:"), "{stdout}");
    if crate::common::gpu_context().is_some() {
        assert!(stdout.contains("adapter 0:"), "{stdout}");
        assert!(stdout.contains("timestamps"), "{stdout}");
    }
}

/// `gpusat info` lists every entry point of every kernel with its SPIR-V
/// size (with or without an adapter), and with `--compile` how long each
/// kind's pipeline took to create: either adapter's kinds.
#[test]
fn info_lists_the_kernels_and_times_their_pipelines() {
    let out = gpusat(&["info"], &[]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let sizes: Vec<(&str, usize)> = stdout
        .lines()
        .skip_while(|line| !line.starts_with("kernels (SPIR-V"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| {
            let mut fields = line.split_whitespace().rev();
            let words = fields.next()?.parse().ok()?;
            Some((fields.next()?, words))
        })
        .collect();
    for entry_point in [
        "polygons8",
        "general",
        "hulls",
        "hulls_deferred",
        "count_pairs",
        "write_pairs",
        "compact",
    ] {
        assert!(
            sizes
                .iter()
                .any(|&(name, words)| name == entry_point && words > 100),
            "{entry_point} missing or empty in:\n{stdout}"
        );
    }
    assert!(sizes.len() >= 30, "{} entry points:\n{stdout}", sizes.len());
    if crate::common::gpu_context().is_none() {
        return;
    }
    let out = gpusat(&["info", "--compile"], &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let timed: Vec<&str> = stdout
        .lines()
        .skip_while(|line| !line.starts_with("pipeline creation"))
        .collect();
    // Every kind of both kernels, either adapter's, and the frame's.
    for kind in [
        "polygons8",
        "general",
        "hulls ",
        "hulls_cached ",
        "hulls_gridded ",
        "hulls_deferred",
    ] {
        assert!(
            timed.iter().any(|line| line.contains(kind)),
            "{kind}: {timed:?}"
        );
    }
    assert!(
        timed
            .iter()
            .any(|line| line.contains("the resident frame's pipelines")),
        "{timed:?}"
    );
}
