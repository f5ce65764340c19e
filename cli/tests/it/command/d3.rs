//! `gpusat collide` and `gpusat resolve` on 3D scenes end to end: the output
//! format, every backend giving the same hits, the broadphase finding what
//! the listed pairs give, resolution, and bad input (one clear line naming
//! the item, a non-zero exit, no output file).

use std::path::Path;
use std::process::Output;

use super::gpusat;

use gpusat::Pair;
use gpusat::d3::{Batch, BodyDesc, Scene, SceneFile, Shape, ShapeDesc, collide_cpu, find_pairs};
use gpusat::generate::d3::SceneSpec;
use gpusat_cli::output::d3::{CollideOutput, FeatureOut};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A seeded 3D scene file: hulls, boxes, plates and spheres, some static.
fn scene_file(seed: u64, pairs: usize, listed: bool) -> SceneFile {
    scene_file_of(
        SceneSpec {
            shapes: 24,
            bodies: 120,
            half_extent: 2.0,
            ..SceneSpec::mixed(seed, pairs)
        },
        listed,
    )
}

/// The scene file of a generated scene, every tenth body static.
fn scene_file_of(spec: SceneSpec, listed: bool) -> SceneFile {
    let scene = spec.generate();
    let shapes = scene
        .shapes
        .shapes()
        .iter()
        .map(|shape| match shape {
            Shape::Hull(hull) => ShapeDesc::Hull {
                points: hull.vertices().iter().map(|v| v.to_array()).collect(),
                radius: 0.0,
            },
            Shape::Sphere(sphere) => ShapeDesc::Sphere(sphere.radius()),
            Shape::Capsule(capsule) => ShapeDesc::Capsule {
                points: capsule.points().map(|p| p.to_array()),
                radius: capsule.radius(),
            },
            Shape::RoundedHull(rounded) => ShapeDesc::Hull {
                points: rounded
                    .hull()
                    .vertices()
                    .iter()
                    .map(|v| v.to_array())
                    .collect(),
                radius: rounded.radius(),
            },
        })
        .collect();
    let bodies = scene
        .bodies
        .iter()
        .enumerate()
        .map(|(index, body)| BodyDesc {
            shape: body.shape,
            position: body.position.to_array(),
            rotation: body.rotation.to_array(),
            inv_mass: if index % 10 == 0 { 0.0 } else { 1.0 },
            velocity: [0.0; 3],
            angular_velocity: [0.0; 3],
        })
        .collect();
    SceneFile {
        shapes,
        bodies,
        pairs: listed.then(|| {
            scene
                .pairs
                .iter()
                .map(|p| gpusat::PairDesc([p.a, p.b]))
                .collect()
        }),
        margin: 0.0,
    }
}

fn write_scene(dir: &Path, name: &str, file: &SceneFile) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(file).expect("JSON")).expect("write scene");
    path.display().to_string()
}

fn collide(scene: &str, backend: &str, out: &Path) -> CollideOutput {
    let run = gpusat(&[
        "collide",
        scene,
        "--backend",
        backend,
        "-o",
        &out.display().to_string(),
    ]);
    assert!(run.status.success(), "{backend}: {}", stderr(&run));
    serde_json::from_str(&std::fs::read_to_string(out).expect("output")).expect("3D result")
}

#[test]
fn collide_writes_3d_hits_and_every_backend_agrees() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = scene_file(1901, 3000, true);
    let path = write_scene(dir.path(), "scene.json", &file);
    let cpu = collide(&path, "cpu", &dir.path().join("cpu.json"));
    assert_eq!(cpu.pairs_tested, 3000);
    assert!(cpu.hits.len() > 300, "{} hits", cpu.hits.len());
    // The library's own answer on the same scene.
    let scene = Scene::from_file(file.clone()).expect("scene");
    let batch = scene.batch().expect("batch");
    let expected = batch.hits(&collide_cpu(&batch));
    assert_eq!(cpu.hits.len(), expected.len());
    for (written, hit) in cpu.hits.iter().zip(&expected) {
        assert_eq!(
            (written.pair, written.a, written.b),
            (hit.pair, hit.a, hit.b)
        );
        assert_eq!(written.normal, hit.normal.to_array());
        assert_eq!(written.depth, hit.depth);
        assert!((1..=4).contains(&written.contacts.len()), "{written:?}");
        let kinds = [
            "face_a", "face_b", "edges", "edge_a", "edge_b", "vertex_a", "vertex_b", "centres",
        ];
        assert!(kinds.contains(&written.axis.kind.as_str()), "{written:?}");
        if written.axis.kind == "edges" {
            assert!(
                matches!(written.axis.feature, FeatureOut::Two(_)),
                "{written:?}"
            );
        }
    }
    let parallel = collide(&path, "cpu-parallel", &dir.path().join("parallel.json"));
    assert_eq!(parallel.hits, cpu.hits, "cpu-parallel");
    if crate::common::gpu_context().is_some() {
        let gpu = collide(&path, "gpu", &dir.path().join("gpu.json"));
        assert_eq!(gpu.backend, "gpu");
        if crate::common::gpu_is_bit_exact() {
            assert_eq!(gpu.hits, cpu.hits, "gpu");
        } else {
            assert_close_to_the_cpu(&batch, &gpu, &cpu);
        }
    }
}

/// On a GPU that does not compute the CPU's bits: the same pairs, and on
/// each the same axis with depths within `DEPTH_TOLERANCE x size`, or a
/// face against an edge pair at a near-tie within the edge tolerance more
/// (`gpusat::check`).
fn assert_close_to_the_cpu(batch: &Batch, gpu: &CollideOutput, cpu: &CollideOutput) {
    let pairs = |output: &CollideOutput| output.hits.iter().map(|h| h.pair).collect::<Vec<_>>();
    assert_eq!(pairs(gpu), pairs(cpu), "gpu: the pairs reported");
    for (g, c) in gpu.hits.iter().zip(&cpu.hits) {
        let size = batch.pair_size(c.pair);
        let error = (g.depth - c.depth).abs();
        let faces_and_edges = (g.axis.kind == "edges") != (c.axis.kind == "edges");
        let allowed = if g.axis != c.axis && faces_and_edges {
            gpusat::DEPTH_TOLERANCE + 2.0 * gpusat::d3::sat::EDGE_TOLERANCE
        } else {
            gpusat::DEPTH_TOLERANCE
        };
        assert!(
            error <= allowed * size,
            "gpu: pair {}: {g:?} against the CPU's {c:?}",
            c.pair
        );
    }
}

#[test]
fn without_pairs_the_3d_broadphase_finds_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = scene_file(1902, 0, false);
    let path = write_scene(dir.path(), "scene.json", &file);
    let result = collide(&path, "cpu", &dir.path().join("out.json"));
    // Every overlapping pair of all n(n-1)/2, found without being listed.
    let scene = Scene::from_file(file).expect("scene");
    let count = scene.bodies.len() as u32;
    let all: Vec<Pair> = (0..count)
        .flat_map(|a| (a + 1..count).map(move |b| Pair::new(a, b)))
        .collect();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &all, 0.0).expect("batch");
    let mut expected: Vec<(u32, u32)> = collide_cpu(&batch)
        .iter()
        .map(|h| (all[h.pair as usize].a, all[h.pair as usize].b))
        .collect();
    expected.sort_unstable();
    let mut found: Vec<(u32, u32)> = result.hits.iter().map(|h| (h.a, h.b)).collect();
    found.sort_unstable();
    assert_eq!(found, expected);
    assert_eq!(
        result.pairs_tested as usize,
        find_pairs(&scene.shapes, &scene.bodies, 0.0, Default::default()).len()
    );
}

#[test]
fn resolve_separates_a_3d_scene() {
    resolve_and_check(scene_file(1903, 0, false));
}

/// The same with capsules and rounded hulls and boxes among the shapes.
#[test]
fn resolve_separates_capsules_and_rounded_shapes() {
    resolve_and_check(scene_file_of(
        SceneSpec {
            shapes: 24,
            bodies: 120,
            half_extent: 2.0,
            capsule_fraction: 0.3,
            rounded_fraction: 0.5,
            ..SceneSpec::mixed(1904, 0)
        },
        false,
    ));
}

/// Resolves `file` with one static body and checks that no two bodies
/// that can move overlap by more than the slop afterwards.
fn resolve_and_check(mut file: SceneFile) {
    let dir = tempfile::tempdir().expect("temp dir");
    // One static body: every other can be moved free.
    for (index, body) in file.bodies.iter_mut().enumerate() {
        body.inv_mass = if index == 0 { 0.0 } else { 1.0 };
    }
    let path = write_scene(dir.path(), "scene.json", &file);
    let out = dir.path().join("resolved.json");
    let run = gpusat(&[
        "resolve",
        &path,
        "-o",
        &out.display().to_string(),
        "--slop",
        "0.01",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let resolved: SceneFile =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("resolved")).expect("scene");
    for (before, after) in file.bodies.iter().zip(&resolved.bodies) {
        if before.inv_mass == 0.0 {
            assert_eq!(before.position, after.position, "a static body moved");
        }
        assert_eq!(before.shape, after.shape);
    }
    let scene = Scene::from_file(resolved).expect("valid scene");
    let pairs = find_pairs(&scene.shapes, &scene.bodies, 0.0, Default::default());
    let batch = Batch::new(&scene.shapes, &scene.bodies, &pairs, 0.0).expect("batch");
    for hit in batch.hits(&collide_cpu(&batch)) {
        let both_static =
            scene.bodies[hit.a as usize].is_static() && scene.bodies[hit.b as usize].is_static();
        assert!(both_static || hit.depth <= 0.01, "{hit:?}");
    }
}

/// Capsules, a rounded hull and a rounded box from a scene file: the same
/// hits on every backend, the GPU's included, their axes written with the
/// new kinds; a rounded hull against a hull of 40 vertices is refused by
/// the GPU backend in one line naming the pair, with no output.
#[test]
fn capsules_and_rounded_shapes_collide_on_every_backend() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = r#"{"shapes": [
        {"capsule": [[-0.5, 0, 0], [0.5, 0, 0]], "radius": 0.2},
        {"hull": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], "radius": 0.1},
        {"cuboid": [2, 0.5, 2], "radius": 0.05},
        {"sphere": 0.3}],
      "bodies": [
        {"shape": 2, "position": [0, -0.5, 0], "inv_mass": 0},
        {"shape": 0, "position": [0, 0.24, 0]},
        {"shape": 0, "position": [0.3, 0.62, 0.1], "rotation": [0, 0.7071068, 0, 0.7071068]},
        {"shape": 1, "position": [-1.0, 0.1, 0.5]},
        {"shape": 3, "position": [0.9, 0.3, 0.0]}],
      "pairs": [[0, 1], [1, 2], [0, 3], [0, 4], [1, 4], [3, 1]],
      "margin": 0.05}"#;
    let scene = dir.path().join("rounded.json");
    std::fs::write(&scene, json).expect("write");
    let scene = scene.display().to_string();
    let cpu = collide(&scene, "cpu", &dir.path().join("cpu.json"));
    let parallel = collide(&scene, "cpu-parallel", &dir.path().join("parallel.json"));
    assert_eq!(cpu.hits, parallel.hits);
    // The capsule lies on the rounded floor (2 points), the crossed capsules
    // touch (1 point), the ball rests on the floor.
    let by_pair = |pair: u32| cpu.hits.iter().find(|hit| hit.pair == pair);
    assert_eq!(by_pair(0).expect("capsule on the floor").contacts.len(), 2);
    assert_eq!(by_pair(1).expect("crossed capsules").contacts.len(), 1);
    assert!(by_pair(3).is_some(), "the ball on the floor");
    if crate::common::gpu_context().is_none() {
        return;
    }
    let gpu = collide(&scene, "gpu", &dir.path().join("gpu.json"));
    if crate::common::gpu_is_bit_exact() {
        assert_eq!(gpu.hits, cpu.hits);
    } else {
        let pairs =
            |output: &CollideOutput| output.hits.iter().map(|hit| hit.pair).collect::<Vec<_>>();
        assert_eq!(pairs(&gpu), pairs(&cpu));
    }
    // A rounded box and a hull of 40 points on a sphere.
    let points: Vec<String> = (0..40)
        .map(|k| {
            let (t, z) = (k as f32 * 2.399_963, 1.0 - 2.0 * (k as f32 + 0.5) / 40.0);
            let r = (1.0 - z * z).sqrt();
            format!("[{},{},{}]", r * t.cos(), r * t.sin(), z)
        })
        .collect();
    let json = format!(
        r#"{{"shapes": [{{"cuboid": [0.5, 0.5, 0.5], "radius": 0.1}}, {{"hull": [{}]}}],
          "bodies": [{{"shape": 0, "position": [0, 0, 0]}}, {{"shape": 1, "position": [1.2, 0, 0]}}],
          "pairs": [[0, 1]]}}"#,
        points.join(",")
    );
    let large = dir.path().join("large.json");
    std::fs::write(&large, json).expect("write");
    let out = dir.path().join("gpu.json");
    std::fs::remove_file(&out).expect("the first GPU output");
    let run = gpusat(&[
        "collide",
        &large.display().to_string(),
        "--backend",
        "gpu",
        "-o",
        &out.display().to_string(),
    ]);
    let message = stderr(&run);
    assert!(
        !run.status.success(),
        "the GPU took a rounded box and a large hull"
    );
    assert!(
        message.contains("pair 0") && message.contains("a hull of 40 vertices"),
        "{message}"
    );
    // One line of ours; a software adapter may print its own warnings
    // (lavapipe without XDG_RUNTIME_DIR).
    assert_eq!(
        message.lines().filter(|l| l.starts_with("gpusat")).count(),
        1,
        "{message}"
    );
    assert!(!out.exists());
}

#[test]
fn bad_3d_input_is_one_line_naming_the_item_and_no_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = [
        (
            r#"{"shapes": [{"cuboid": [1,1,1]}, {"circle": 1}], "bodies": []}"#,
            "shapes[1]: a 2D shape",
        ),
        (
            r#"{"shapes": [{"cuboid": [1,1,1]}], "bodies": [{"shape": 0, "position": [1, 2]}]}"#,
            "bodies[0].position",
        ),
        (
            r#"{"shapes": [{"sphere": 1}], "bodies": [{"shape": 0, "position": [0,0,0], "rotation": [0,0,0,0]}]}"#,
            "body 0 has a rotation",
        ),
        (
            r#"{"shapes": [{"sphere": 1}], "bodies": [{"shape": 0, "position": [0,0,0], "rotation": [0,0,1e40,1]}]}"#,
            "body 0 has a rotation",
        ),
        (
            r#"{"shapes": [{"hull": [[0,0,0],[1,0,0],[0,1,0],[1,1,0]]}], "bodies": []}"#,
            "shape 0",
        ),
        (
            r#"{"shapes": [{"hull": [[0,0,0],[1,0,0],[0,1,0]]}], "bodies": []}"#,
            "shape 0",
        ),
        (
            r#"{"shapes": [{"cuboid": [1,-1,1]}], "bodies": []}"#,
            "shape 0",
        ),
        (
            r#"{"shapes": [{"sphere": 1}], "bodies": [{"shape": 3, "position": [0,0,0]}]}"#,
            "body 0",
        ),
        (
            r#"{"shapes": [{"capsule": [[0,0,0],[1,0,0]]}], "bodies": []}"#,
            "a capsule needs a \"radius\"",
        ),
        (
            r#"{"shapes": [{"capsule": [[0,0,0],[0,0,0]], "radius": 0.5}], "bodies": []}"#,
            "shape 0 has its two points",
        ),
        (
            r#"{"shapes": [{"cuboid": [1,1,1], "radius": -0.1}], "bodies": []}"#,
            "shape 0 has a negative radius",
        ),
        (
            r#"{"shapes": [{"sphere": 1, "radius": 0.5}], "bodies": []}"#,
            "a sphere's radius is its value",
        ),
        (
            r#"{"shapes": [{"capsule": [[0,0,0],[1,0,0]], "radius": 0.5}, {"circle": 1}], "bodies": []}"#,
            "shapes[1]: a 2D shape",
        ),
        (
            r#"{"shapes": [{"sphere": 1}], "bodies": [{"shape": 0, "position": [0,0,0]}], "pairs": [[0, 5]]}"#,
            "pair 0",
        ),
    ];
    for (index, (json, expected)) in cases.iter().enumerate() {
        let scene = dir.path().join(format!("bad{index}.json"));
        std::fs::write(&scene, json).expect("write");
        for command in ["collide", "resolve"] {
            let out = dir.path().join(format!("out{index}.json"));
            let run = gpusat(&[
                command,
                &scene.display().to_string(),
                "-o",
                &out.display().to_string(),
            ]);
            let message = stderr(&run);
            assert!(!run.status.success(), "{command} {json}: succeeded");
            assert!(message.contains(expected), "{command} {json}: {message}");
            assert_eq!(
                message.trim_end().lines().count(),
                1,
                "{command}: {message}"
            );
            assert!(!out.exists(), "{command} {json}: left an output file");
        }
    }
}
