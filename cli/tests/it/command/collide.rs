//! `gpusat collide` end to end: the output format, and bad input that must
//! exit non-zero with one clear line and no output file.

use std::path::Path;
use std::process::Command;

use super::gpusat;

use gpusat::{Batch, Scene, collide_cpu};
use gpusat_cli::output::d2::CollideOutput;

const SCENE: &str = r#"{
  "shapes": [{"polygon": [[-1,-1],[1,-1],[1,1],[-1,1]]}, {"circle": 0.5},
             {"polygon": [[0,0],[0,1],[2,0]]}],
  "bodies": [{"shape": 0, "position": [0,0]},
             {"shape": 0, "position": [1.5,0.2], "angle": 0.1},
             {"shape": 1, "position": [0,1.3], "inv_mass": 0},
             {"shape": 2, "position": [10,10]}],
  "pairs": [[0,1],[1,3],[1,2],[0,2]]
}"#;

fn write(dir: &Path, name: &str, contents: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write scene");
    path.display().to_string()
}

#[test]
fn collide_writes_every_reported_pair_in_pair_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene_path = write(dir.path(), "scene.json", SCENE);
    let out_path = dir.path().join("out.json");
    let out = gpusat(&[
        "collide",
        &scene_path,
        "--backend",
        "cpu",
        "--output",
        &out_path.display().to_string(),
    ]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let text = std::fs::read_to_string(&out_path).expect("output written");
    let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let keys = |v: &serde_json::Value| {
        let mut k: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&value), ["backend", "hits", "pairs_tested"]);
    let hit = &value["hits"][0];
    assert_eq!(
        keys(hit),
        ["a", "axis", "b", "contacts", "depth", "normal", "pair"]
    );
    assert_eq!(keys(&hit["axis"]), ["feature", "owner"]);

    let output: CollideOutput = serde_json::from_str(&text).expect("CollideOutput");
    assert_eq!(output.backend, "cpu");
    assert_eq!(output.pairs_tested, 4);
    // The same hits as the library computes, in pair order.
    let scene = Scene::from_json(SCENE, "scene").expect("scene");
    let batch: Batch = scene.batch().expect("batch");
    let expected = batch.hits(&collide_cpu(&batch));
    let pairs: Vec<u32> = output.hits.iter().map(|h| h.pair).collect();
    assert_eq!(pairs, expected.iter().map(|h| h.pair).collect::<Vec<_>>());
    assert_eq!(pairs, [0, 2, 3]);
    for (written, hit) in output.hits.iter().zip(&expected) {
        assert_eq!(written.normal, hit.normal.to_array());
        assert_eq!(written.depth, hit.depth);
        assert_eq!((written.a, written.b), (hit.a, hit.b));
        assert_eq!(written.axis.feature, hit.axis.feature);
    }
    assert!(
        output
            .hits
            .iter()
            .all(|h| h.axis.owner == "a" || h.axis.owner == "b")
    );
}

#[test]
fn collide_prints_to_standard_output_without_an_output_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene_path = write(dir.path(), "scene.json", SCENE);
    let out = gpusat(&["collide", &scene_path, "--backend", "cpu-parallel"]);
    assert!(out.status.success());
    let output: CollideOutput = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(output.backend, "cpu-parallel");
    assert_eq!(output.hits.len(), 3);
}

/// Each bad scene, and words its one-line error must contain.
const BAD_SCENES: &[(&str, &[&str])] = &[
    (
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "position": [0,0]}"#,
        &["EOF"],
    ),
    (
        r#"{"shapes": [{"polygon": [[0,0],[2,0],[2,1],[1,1],[1,2],[0,2]]}], "bodies": []}"#,
        &["shape 0", "not convex"],
    ),
    (
        r#"{"shapes": [{"polygon": [[0,0],[1,0],[2,0]]}], "bodies": []}"#,
        &["shape 0", "one line"],
    ),
    (
        r#"{"shapes": [{"polygon": [[0,0],[1,0]]}], "bodies": []}"#,
        &["shape 0", "at least 3"],
    ),
    (
        r#"{"shapes": [{"circle": 1}, {"circle": 0}], "bodies": []}"#,
        &["shape 1", "not positive"],
    ),
    (
        r#"{"shapes": [{"circle": 1e300}], "bodies": []}"#,
        &["shape 0", "not finite"],
    ),
    (
        r#"{"shapes": [{"square": 1}], "bodies": []}"#,
        &["shapes[0]", "square"],
    ),
    (
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 3, "position": [0,0]}]}"#,
        &["body 0", "shape 3"],
    ),
    (
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "position": [1e300,0]}]}"#,
        &["body 0", "position", "not finite"],
    ),
    (
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "position": [0,0], "inv_mass": -2}]}"#,
        &["body 0", "negative inverse mass"],
    ),
    (
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "position": [0,0], "mass": 2}]}"#,
        &["bodies[0]", "unknown field `mass`"],
    ),
    (
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "position": [0,0]}], "pairs": [[0,5]]}"#,
        &["pair 0", "body 5"],
    ),
    (
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "position": [0,0]}], "pairs": [[0,0]]}"#,
        &["pair 0", "itself"],
    ),
    (
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "position": [0,0]}], "pairs": [[0,1,2]]}"#,
        &["pairs[0]", "two body indices"],
    ),
    (
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "position": [0,0]}], "pairs": [[0]]}"#,
        &["pairs[0]", "two body indices"],
    ),
    (
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 0, "position": [0,0]}], "pairs": [[-1,0]]}"#,
        &["pairs[0][0]", "-1"],
    ),
    (
        r#"{"shapes": [{"circle": 1}], "bodies": [], "margin": -1}"#,
        &["margin"],
    ),
    (
        r#"{"shapes": [], "bodies": [], "extra": 1}"#,
        &["unknown field `extra`"],
    ),
    (
        r#"{"shapes": [{"capsule": [[0,0],[1,0]]}], "bodies": []}"#,
        &["shapes[0]", "needs a \"radius\""],
    ),
    (
        r#"{"shapes": [{"capsule": [[1,1],[1,1]], "radius": 0.5}], "bodies": []}"#,
        &["shape 0", "two points"],
    ),
    (
        r#"{"shapes": [{"polygon": [[0,0],[1,0],[0,1]], "radius": -0.5}], "bodies": []}"#,
        &["shape 0", "negative radius"],
    ),
    (
        r#"{"shapes": [{"segment": [[0,0],[1,0]], "radius": 0.5}], "bodies": []}"#,
        &["shapes[0]", "a capsule"],
    ),
    (
        r#"{"shapes": [{"circle": 1, "polygon": [[0,0],[1,0],[0,1]]}], "bodies": []}"#,
        &["shapes[0]", "one of"],
    ),
];

/// Capsules, segments and rounded polygons in a scene file: the CPU
/// backends' hits with the rounded depths, and the GPU kernel's.
#[test]
fn collide_takes_capsules_segments_and_rounded_polygons() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = write(
        dir.path(),
        "rounded.json",
        r#"{"shapes": [{"polygon": [[-2,-0.5],[2,-0.5],[2,0.5],[-2,0.5]]},
                       {"capsule": [[-0.5,0],[0.5,0]], "radius": 0.25},
                       {"segment": [[-1,0],[1,0]]},
                       {"polygon": [[-0.5,-0.5],[0.5,-0.5],[0.5,0.5],[-0.5,0.5]], "radius": 0.1}],
            "bodies": [{"shape": 0, "position": [0,0]},
                       {"shape": 1, "position": [0.3,0.7]},
                       {"shape": 2, "position": [0,1.2]},
                       {"shape": 3, "position": [1.5,1.05]}]}"#,
    );
    for backend in ["cpu", "cpu-parallel"] {
        let out_path = dir.path().join(format!("{backend}.json"));
        let out = gpusat(&[
            "collide",
            &scene,
            "--backend",
            backend,
            "--output",
            &out_path.display().to_string(),
        ]);
        assert!(out.status.success(), "{backend}: {out:?}");
        let output: CollideOutput =
            serde_json::from_str(&std::fs::read_to_string(&out_path).expect("output"))
                .expect("collide output");
        let depths: Vec<(u32, u32, f32, usize)> = output
            .hits
            .iter()
            .map(|hit| (hit.a, hit.b, hit.depth, hit.contacts.len()))
            .collect();
        // The capsule and the rounded box 0.05 into the ground box (two
        // points each); the capsule and the segment 0.15 and 0.1 into the
        // rounded box's side (one point each).
        let expected = [
            (0, 1, 0.05, 2),
            (0, 3, 0.05, 2),
            (1, 3, 0.15, 1),
            (2, 3, 0.1, 1),
        ];
        assert_eq!(depths.len(), expected.len(), "{backend}: {depths:?}");
        for (got, want) in depths.iter().zip(expected) {
            assert!(
                (got.0, got.1, got.3) == (want.0, want.1, want.3) && (got.2 - want.2).abs() < 1e-5,
                "{backend}: {got:?} against {want:?}"
            );
        }
    }
    if crate::common::gpu_context().is_some() {
        let out_path = dir.path().join("gpu.json");
        let out = gpusat(&[
            "collide",
            &scene,
            "--backend",
            "gpu",
            "--output",
            &out_path.display().to_string(),
        ]);
        assert!(out.status.success(), "{out:?}");
        let gpu: CollideOutput =
            serde_json::from_str(&std::fs::read_to_string(&out_path).expect("output"))
                .expect("collide output");
        assert_eq!(gpu.hits.len(), 4, "{:?}", gpu.hits);
    }
}

#[test]
fn bad_input_exits_non_zero_with_one_line_and_no_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (index, (scene, words)) in BAD_SCENES.iter().enumerate() {
        let scene_path = write(dir.path(), &format!("bad{index}.json"), scene);
        let out_path = dir.path().join(format!("out{index}.json"));
        let out = gpusat(&[
            "collide",
            &scene_path,
            "--output",
            &out_path.display().to_string(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "{scene}: exit status {:?}",
            out.status
        );
        assert_eq!(stderr.lines().count(), 1, "{scene}: stderr {stderr:?}");
        assert!(
            stderr.contains(&format!("bad{index}.json")),
            "{scene}: file not named in {stderr:?}"
        );
        for word in *words {
            assert!(stderr.contains(word), "{scene}: {word:?} not in {stderr:?}");
        }
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            !out_path.exists(),
            "{scene}: output written despite the error"
        );
    }
}

#[test]
fn unreadable_scene_is_an_error() {
    let out = gpusat(&["collide", "/nonexistent/scene.json"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("/nonexistent/scene.json"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1);
}

#[test]
fn the_command_refuses_a_file_that_never_ends_and_writes_nothing() {
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let output = dir.path().join("out.json");
    let out = Command::new(env!("CARGO_BIN_EXE_gpusat"))
        .args(["collide", "/dev/zero", "--output"])
        .arg(&output)
        .output()
        .expect("gpusat runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("/dev/zero") && stderr.contains("limit"),
        "{stderr}"
    );
    assert!(!output.exists());
}
