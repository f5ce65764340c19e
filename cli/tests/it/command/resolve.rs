//! `gpusat resolve`, and `gpusat collide`'s contacts and broadphase.

use super::gpusat;

use gpusat::{Batch, PairFilter, Scene, collide_cpu, find_pairs};
use gpusat_cli::output::d2::CollideOutput;

/// A pile of overlapping boxes, circles, triangles, capsules and rounded
/// boxes on a static floor, without pairs.
fn pile_scene() -> String {
    let mut bodies = Vec::new();
    for i in 0..40 {
        let x = -3.0 + 0.15 * i as f32;
        let y = 0.3 + 0.11 * ((i * 7) % 13) as f32;
        let shape = i % 5;
        bodies.push(format!(
            r#"{{"shape": {shape}, "position": [{x}, {y}], "angle": {}}}"#,
            0.1 * i as f32
        ));
    }
    bodies.push(r#"{"shape": 5, "position": [0, -0.5], "inv_mass": 0}"#.to_string());
    format!(
        r#"{{"shapes": [{{"polygon": [[-0.3,-0.3],[0.3,-0.3],[0.3,0.3],[-0.3,0.3]]}}, {{"circle": 0.25}},
                      {{"polygon": [[0,0.4],[-0.35,-0.2],[0.35,-0.2]]}},
                      {{"capsule": [[-0.2,0],[0.2,0]], "radius": 0.15}},
                      {{"polygon": [[-0.2,-0.2],[0.2,-0.2],[0.2,0.2],[-0.2,0.2]], "radius": 0.08}},
                      {{"polygon": [[-6,-0.5],[6,-0.5],[6,0.5],[-6,0.5]]}}],
           "bodies": [{}]}}"#,
        bodies.join(",\n")
    )
}

#[test]
fn resolve_leaves_no_pair_deeper_than_the_slop_and_keeps_static_bodies() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("pile.json");
    std::fs::write(&input, pile_scene()).expect("write");
    let output = dir.path().join("resolved.json");
    let out = gpusat(&[
        "resolve",
        &input.display().to_string(),
        "--output",
        &output.display().to_string(),
        "--slop",
        "0.01",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("resolved"), "{stderr}");

    let before = Scene::load(&input).expect("input");
    let after = Scene::load(&output).expect("the output is a valid scene");
    assert_eq!(after.shape_descs, before.shape_descs);
    assert_eq!(after.bodies.len(), before.bodies.len());
    let floor = before.bodies.len() - 1;
    assert_eq!(
        after.bodies[floor].position, before.bodies[floor].position,
        "the static floor moved"
    );
    let pairs = find_pairs(&after.shapes, &after.bodies, 0.0, PairFilter::default());
    let batch = Batch::new(&after.shapes, &after.bodies, &pairs, 0.0).expect("batch");
    let deepest = collide_cpu(&batch)
        .iter()
        .map(|h| h.depth)
        .fold(0.0, f32::max);
    assert!(deepest <= 0.01, "deepest overlap after resolve: {deepest}");
    let before_batch = Batch::new(&before.shapes, &before.bodies, &pairs, 0.0).expect("batch");
    assert!(
        collide_cpu(&before_batch).iter().any(|h| h.depth > 0.1),
        "the pile should start overlapping"
    );
}

#[test]
fn an_unresolvable_scene_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("squeeze.json");
    std::fs::write(
        &input,
        r#"{"shapes": [{"polygon": [[-0.5,-2],[0.5,-2],[0.5,2],[-0.5,2]]}, {"circle": 1}],
            "bodies": [{"shape": 0, "position": [-1.25, 0], "inv_mass": 0},
                       {"shape": 0, "position": [1.25, 0], "inv_mass": 0},
                       {"shape": 1, "position": [0, 0]}]}"#,
    )
    .expect("write");
    let output = dir.path().join("out.json");
    let out = gpusat(&[
        "resolve",
        &input.display().to_string(),
        "-o",
        &output.display().to_string(),
        "--max-rounds",
        "10",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("still overlap"), "{stderr}");
    assert!(!output.exists());
}

#[test]
fn collide_fills_contacts_and_uses_the_broadphase_without_pairs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("pile.json");
    std::fs::write(&input, pile_scene()).expect("write");
    let out = gpusat(&["collide", &input.display().to_string()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let output: CollideOutput = serde_json::from_slice(&out.stdout).expect("JSON");
    let scene = Scene::load(&input).expect("scene");
    let pairs = find_pairs(&scene.shapes, &scene.bodies, 0.0, PairFilter::default());
    assert_eq!(output.pairs_tested, pairs.len() as u64);
    assert!(output.hits.len() > 20);
    for hit in &output.hits {
        assert_eq!(
            (pairs[hit.pair as usize].a, pairs[hit.pair as usize].b),
            (hit.a, hit.b)
        );
        assert!((1..=2).contains(&hit.contacts.len()), "{hit:?}");
        for contact in &hit.contacts {
            assert!(contact.depth <= hit.depth + 1e-5);
            assert!(contact.point.iter().all(|c| c.is_finite()));
        }
    }
}

#[test]
fn resolve_rejects_bad_input() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("bad.json");
    std::fs::write(
        &input,
        r#"{"shapes": [{"circle": 1}], "bodies": [{"shape": 1, "position": [0, 0]}]}"#,
    )
    .expect("write");
    let output = dir.path().join("out.json");
    let out = gpusat(&[
        "resolve",
        &input.display().to_string(),
        "-o",
        &output.display().to_string(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("body 0"));
    assert!(!output.exists());
    let out = gpusat(&[
        "resolve",
        &input.display().to_string(),
        "-o",
        &output.display().to_string(),
        "--slop",
        "-1",
    ]);
    assert!(!out.status.success());
}
