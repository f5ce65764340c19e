//! The 3D GPU kernel against the CPU reference on seeded random pairs: mixed
//! hulls, boxes, plates and spheres, large hulls (up to 256 vertices), deep
//! piles, bodies far from the origin, a margin; tiny windows and overflowing
//! outputs give what one window gives. Runs on any adapter, lavapipe
//! included; with GPUSAT_REQUIRE_GPU=1 a missing adapter fails.

use crate::common::gpu_context;
use glam::Vec3;
use gpusat::d3::{Batch, EdgeSearch, GpuNarrowphase, collide_cpu, compare_hits};
use gpusat::generate::d3::{GeneratedScene, SceneSpec};
use gpusat::gpu::{GpuError, GpuOptions, KernelKinds};

fn run(what: &str, scene: &GeneratedScene, margin: f32, options: GpuOptions) -> gpusat::Agreement {
    let Some(context) = gpu_context() else {
        return gpusat::Agreement::default();
    };
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
    let cpu = collide_cpu(&batch);
    let mut gpu = GpuNarrowphase::new(context, options).expect("3D kernel");
    let hits = gpu.collide(&batch).expect("GPU run");
    assert!(
        hits.windows(2).all(|w| w[0].pair < w[1].pair),
        "{what}: GPU hits not in pair order"
    );
    let agreement = compare_hits(&batch, &cpu, &hits);
    eprintln!(
        "{what}: {} pairs, {} CPU hits, {} GPU hits, {} identical (axis and depth bits), \
         {} near-ties, {} near-touching, worst depth difference {:.1e} x size; {:?}",
        agreement.pairs,
        agreement.reference_hits,
        agreement.candidate_hits,
        agreement.identical,
        agreement.near_ties,
        agreement.near_touching,
        agreement.max_depth_error,
        gpu.stats()
    );
    assert!(
        agreement.agrees(),
        "{what}: {} disagreements, the first: {:?}",
        agreement.disagreements.len(),
        &agreement.disagreements[..agreement.disagreements.len().min(5)]
    );
    agreement
}

#[test]
fn mixed_shapes_agree_with_the_cpu() {
    let mut total = gpusat::Agreement::default();
    for (seed, margin) in [(1801, 0.0), (1802, 0.1)] {
        let scene = SceneSpec {
            half_extent: 1.5,
            ..SceneSpec::mixed(seed, 20_000)
        }
        .generate();
        total.absorb(run("mixed", &scene, margin, GpuOptions::default()));
    }
    let far = SceneSpec {
        half_extent: 1.5,
        offset: Vec3::new(10_000.0, -5_000.0, 2_500.0),
        ..SceneSpec::mixed(1803, 10_000)
    }
    .generate();
    total.absorb(run("far", &far, 0.0, GpuOptions::default()));
    if gpu_context().is_some() {
        assert!(total.reference_hits > 10_000, "{total:?}");
        // Near-ties are rare: the same axis on all but a few.
        assert!(
            total.near_ties * 1000 <= total.reference_hits,
            "{} near-ties in {} hits",
            total.near_ties,
            total.reference_hits
        );
    }
}

/// Hulls of 9 to 64 vertices, which on a software adapter take the kinds
/// whose caches hold them (`hulls_cached`, `hulls_cached64`; see
/// `src/gpu/d3/kinds.rs`), the larger against each other and the smaller.
#[test]
fn mid_sized_hulls_agree_with_the_cpu() {
    for (seed, vertices) in [(1807, (9, 32)), (1808, (33, 64)), (1809, (9, 64))] {
        let scene = SceneSpec {
            shapes: 64,
            bodies: 256,
            vertices,
            sphere_fraction: 0.0,
            box_fraction: 0.0,
            plate_fraction: 0.0,
            half_extent: 1.0,
            ..SceneSpec::mixed(seed, 6_000)
        }
        .generate();
        let what = format!("hulls of {} to {} vertices", vertices.0, vertices.1);
        run(&what, &scene, 0.0, GpuOptions::default());
    }
}

/// `batch` on a new narrowphase with `kinds`: its hits must be the CPU's
/// (`cpu`), bit for bit where the adapter is bit-exact. The narrowphase,
/// the agreement and the kinds it compiled.
fn run_kinds(
    context: &std::sync::Arc<gpusat::gpu::GpuContext>,
    batch: &Batch<'_>,
    cpu: &[gpusat::d3::SatHit],
    kinds: KernelKinds,
) -> (GpuNarrowphase, gpusat::Agreement, Vec<&'static str>) {
    let options = GpuOptions {
        kinds,
        ..GpuOptions::default()
    };
    let mut gpu = GpuNarrowphase::new(context.clone(), options).expect("3D kernel");
    let hits = gpu.collide(batch).expect("GPU run");
    let agreement = compare_hits(batch, cpu, &hits);
    assert!(
        agreement.agrees(),
        "{kinds:?}: {:?}",
        &agreement.disagreements[..agreement.disagreements.len().min(5)]
    );
    if crate::common::gpu_is_bit_exact() {
        assert_eq!(
            agreement.identical, agreement.reference_hits,
            "{kinds:?}: every hit the CPU's bits on this adapter"
        );
    }
    let compiled = gpu
        .compiled_kinds()
        .into_iter()
        .filter_map(|(kind, time)| time.map(|_| kind))
        .collect();
    (gpu, agreement, compiled)
}

/// Each adapter's kinds run on any adapter (`GpuOptions::kinds`), with the
/// CPU's answers: on a software adapter the hardware GPUs' kinds (`hulls`
/// for hulls of up to 64 vertices, the loop kinds for a larger one with a
/// box, the straight-line large kinds for the other large pairs, as
/// lavapipe's loop limit requires), on a hardware GPU the register-cached
/// ones; the kinds compiled are those asked for.
#[test]
fn either_adapters_kinds_give_the_cpus_answers() {
    let Some(context) = gpu_context() else {
        return;
    };
    let scene = SceneSpec {
        shapes: 48,
        bodies: 256,
        vertices: (9, 128),
        sphere_fraction: 0.0,
        box_fraction: 0.3,
        plate_fraction: 0.0,
        half_extent: 1.0,
        ..SceneSpec::mixed(1812, 4_000)
    }
    .generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let cpu = collide_cpu(&batch);
    for (kinds, wanted, unwanted) in [
        (
            KernelKinds::Hardware,
            ["hulls", "hulls_gridded_loops"],
            ["hulls_cached", "hulls_gridded32"],
        ),
        (
            KernelKinds::Software,
            ["hulls_cached", "hulls_gridded32"],
            ["hulls_gridded_loops", "hulls_large_loops"],
        ),
    ] {
        let (_, _, compiled) = run_kinds(&context, &batch, &cpu, kinds);
        for kind in wanted {
            assert!(
                compiled.contains(&kind),
                "{kinds:?}: {kind} not run: {compiled:?}"
            );
        }
        for kind in unwanted {
            assert!(
                !compiled.contains(&kind),
                "{kinds:?}: {kind} run: {compiled:?}"
            );
        }
    }
}

#[test]
fn large_hulls_agree_with_the_cpu() {
    let scene = SceneSpec {
        shapes: 16,
        bodies: 64,
        vertices: (64, 256),
        sphere_fraction: 0.1,
        box_fraction: 0.1,
        plate_fraction: 0.1,
        half_extent: 1.0,
        ..SceneSpec::mixed(1804, 600)
    }
    .generate();
    run("large", &scene, 0.0, GpuOptions::default());
}

#[test]
fn tiny_windows_and_overflows_give_the_same_hits() {
    let Some(context) = gpu_context() else { return };
    let scene = SceneSpec {
        half_extent: 1.2,
        ..SceneSpec::mixed(1805, 5_000)
    }
    .generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.05).expect("batch");
    let mut reference =
        GpuNarrowphase::new(context.clone(), GpuOptions::default()).expect("kernel");
    let expected = reference.collide(&batch).expect("one window");
    assert!(expected.len() > 1000, "{} hits", expected.len());
    let mut chopped = GpuNarrowphase::new(
        context,
        GpuOptions {
            max_window_pairs: Some(777),
            initial_capacity: Some(3),
            workgroup_size: 64,
            ..GpuOptions::default()
        },
    )
    .expect("kernel");
    let hits = chopped.collide(&batch).expect("windows");
    assert_eq!(hits, expected, "tiny windows with overflowing outputs");
    assert!(
        chopped.stats().windows > 5 && chopped.stats().reruns > 0,
        "{:?}",
        chopped.stats()
    );
    // The second batch sizes its outputs from the first.
    let again = chopped.collide(&batch).expect("again");
    assert_eq!(again, expected);
}

#[test]
fn the_brute_force_is_refused_with_a_reason() {
    let Some(context) = gpu_context() else { return };
    let scene = SceneSpec::mixed(1806, 10).generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0)
        .expect("batch")
        .with_edge_search(EdgeSearch::BruteForce);
    let mut gpu = GpuNarrowphase::new(context, GpuOptions::default()).expect("kernel");
    match gpu.collide(&batch) {
        Err(GpuError::InvalidOption { message }) => {
            assert!(message.contains("pruned"), "{message}")
        }
        other => panic!("expected an invalid option, got {other:?}"),
    }
    // And the narrowphase is not left busy.
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    gpu.collide(&batch).expect("a pruned batch runs");
}

/// Two 256-vertex hulls (508 faces, 762 edges each) overlapping deeply, so
/// that every query runs to its end: the most loop iterations the kernel
/// ever runs, under lavapipe's limit of 65,535 per invocation.
#[test]
fn the_largest_hulls_run_to_the_end() {
    use gpusat::Pair;
    use gpusat::d3::{Body, ShapeSet};
    use gpusat::generate::d3::{random_hull, random_rotation};
    use gpusat::generate::rng;
    let mut random = rng(1807);
    let mut shapes = ShapeSet::new();
    let mut largest = 0;
    for _ in 0..6 {
        let hull = random_hull(&mut random, 256, 1.0, 1.0);
        largest = largest.max(hull.face_count());
        shapes.push(hull.into());
    }
    assert!(largest >= 480, "the largest hull has {largest} faces");
    let bodies: Vec<Body> = (0..64)
        .map(|i| {
            let offset = gpusat::generate::d3::random_direction(&mut random) * 0.2;
            Body::new(i % 6, offset, random_rotation(&mut random))
        })
        .collect();
    let pairs: Vec<Pair> = (0..63u32).map(|i| Pair::new(i, i + 1)).collect();
    let scene = GeneratedScene {
        shapes,
        bodies,
        pairs,
    };
    let agreement = run("largest", &scene, 0.0, GpuOptions::default());
    if gpu_context().is_some() {
        assert_eq!(agreement.reference_hits, 63, "{agreement:?}");
        if crate::common::gpu_is_bit_exact() {
            assert_eq!(agreement.identical, 63, "{agreement:?}");
        }
    }
}

/// The points of a cylinder of radius 1 and half height 0.6, `ring` points
/// on each cap's rim.
fn cylinder_points(ring: usize) -> Vec<Vec3> {
    (0..2 * ring)
        .map(|k| {
            let angle = std::f32::consts::TAU * (k % ring) as f32 / ring as f32;
            let y = if k < ring { -0.6 } else { 0.6 };
            Vec3::new(angle.cos(), y, angle.sin())
        })
        .collect()
}

/// A 128-vertex cylinder's Gauss-map grid lists more than 32 vertices in
/// some squares (each rim vertex's region runs from the side to the cap),
/// so its pairs scan every vertex (`hulls_large`, `hulls_large_loops`),
/// where random 128-vertex hulls look each face's deepest vertex up on the
/// grid (`hulls_gridded`, `hulls_gridded_loops`); both against the CPU,
/// with each other and with small hulls and boxes, with the adapter's
/// kinds and with the hardware GPUs'.
#[test]
fn cylinders_and_round_hulls_agree_with_the_cpu() {
    use gpusat::Pair;
    use gpusat::d3::{Body, Hull, ShapeSet};
    use gpusat::generate::d3::{random_hull, random_rotation};
    use gpusat::generate::rng;
    let mut random = rng(1811);
    let mut shapes = ShapeSet::new();
    let cylinder = Hull::new(&cylinder_points(64)).expect("a cylinder");
    assert_eq!(cylinder.vertices().len(), 128);
    let longest = cylinder.gauss_grid().map_or(0, |grid| grid.longest_list());
    assert!(longest > 32, "the cylinder's longest grid list: {longest}");
    shapes.push(cylinder.into());
    shapes.push(random_hull(&mut random, 128, 1.0, 1.0).into());
    shapes.push(random_hull(&mut random, 16, 0.8, 1.0).into());
    shapes.push(
        Hull::cuboid(Vec3::new(0.5, 0.3, 0.7))
            .expect("a box")
            .into(),
    );
    let bodies: Vec<Body> = (0..48)
        .map(|i| {
            let position = gpusat::generate::d3::random_direction(&mut random) * 1.2;
            Body::new(i % 4, position, random_rotation(&mut random))
        })
        .collect();
    let pairs: Vec<Pair> = (0..48u32)
        .flat_map(|a| (a + 1..48).map(move |b| Pair::new(a, b)))
        .collect();
    let scene = GeneratedScene {
        shapes,
        bodies,
        pairs,
    };
    let agreement = run("cylinders", &scene, 0.0, GpuOptions::default());
    if gpu_context().is_some() {
        assert!(agreement.reference_hits > 300, "{agreement:?}");
    }
    // The hardware GPUs' kinds on any adapter: the large hulls with the
    // boxes through the loop kinds (`hulls_large_loops` for the cylinder,
    // `hulls_gridded_loops` for the round hull), the other large pairs as
    // the adapter's loop limit allows.
    let hardware = GpuOptions {
        kinds: KernelKinds::Hardware,
        ..GpuOptions::default()
    };
    run("cylinders, the hardware kinds", &scene, 0.0, hardware);
}

/// The software adapters' module (`shaders/d3/software.wgsl`) is created
/// only where a pair takes one of its kinds: a narrowphase with the hardware
/// GPUs' kinds whose pairs take `hulls`, `hull_sphere`, `spheres` and the
/// loop kinds never creates it, with the CPU's answers; one with the
/// software adapters' kinds does.
#[test]
fn the_software_module_is_created_only_for_its_kinds() {
    use gpusat::Pair;
    use gpusat::d3::{Body, Hull, ShapeSet, Sphere};
    use gpusat::generate::d3::{random_hull, random_rotation};
    use gpusat::generate::rng;
    let Some(context) = gpu_context() else {
        return;
    };
    let mut random = rng(1813);
    let mut shapes = ShapeSet::new();
    shapes.push(Hull::new(&cylinder_points(64)).expect("a cylinder").into());
    shapes.push(
        Hull::cuboid(Vec3::new(0.5, 0.3, 0.7))
            .expect("a box")
            .into(),
    );
    shapes.push(random_hull(&mut random, 8, 0.6, 1.0).into());
    shapes.push(Sphere::new(0.5).expect("a sphere").into());
    // One cylinder (body 0) among boxes, small hulls and spheres: every
    // pair with it is a large hull with a hull of at most 8 vertices or a
    // sphere.
    let bodies: Vec<Body> = (0..40)
        .map(|i| {
            let shape = if i == 0 { 0 } else { 1 + i % 3 };
            let position = gpusat::generate::d3::random_direction(&mut random) * 1.0;
            Body::new(shape, position, random_rotation(&mut random))
        })
        .collect();
    let pairs: Vec<Pair> = (0..40u32)
        .flat_map(|a| (a + 1..40).map(move |b| Pair::new(a, b)))
        .collect();
    let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).expect("batch");
    let cpu = collide_cpu(&batch);
    for (kinds, created) in [
        (KernelKinds::Hardware, false),
        (KernelKinds::Software, true),
    ] {
        let (gpu, agreement, compiled) = run_kinds(&context, &batch, &cpu, kinds);
        assert!(agreement.reference_hits > 100, "{kinds:?}: {agreement:?}");
        assert_eq!(
            gpu.software_module_created(),
            created,
            "{kinds:?}: the software module created; compiled {compiled:?}"
        );
        if !created {
            assert!(
                compiled.contains(&"hulls_large_loops") && compiled.contains(&"hulls"),
                "{kinds:?}: compiled {compiled:?}"
            );
        }
    }
}

/// Large hulls overlapping deeply keep more than 64 of A's edges, and the
/// kernel defers them to a second dispatch (`shaders/d3/software.wgsl`, "Deferred
/// pairs"): their records come back among the others in pair order, the
/// CPU's hits, in one window or in tiny ones whose outputs overflow (the
/// deferred list shares the far end of each output), sorted by kind or not.
#[test]
fn deferred_pairs_come_back_in_pair_order() {
    use gpusat::Pair;
    use gpusat::d3::{Body, ShapeSet, Sphere};
    use gpusat::generate::d3::{random_direction, random_hull, random_rotation};
    use gpusat::generate::rng;
    let Some(context) = gpu_context() else { return };
    let mut random = rng(1809);
    let mut shapes = ShapeSet::new();
    for vertices in [256, 128, 200, 96] {
        shapes.push(random_hull(&mut random, vertices, 1.0, 1.0).into());
    }
    shapes.push(Sphere::new(0.5).expect("sphere").into());
    // Bodies 0..48 piled within 0.15 of the origin (deep overlaps), the
    // rest spread over [-2, 2]^3; a sphere every seventh body.
    let bodies: Vec<Body> = (0..96u32)
        .map(|i| {
            let reach = if i < 48 { 0.15 } else { 2.0 };
            let shape = if i % 7 == 6 { 4 } else { i % 4 };
            Body::new(
                shape,
                random_direction(&mut random) * reach,
                random_rotation(&mut random),
            )
        })
        .collect();
    let mut pairs = Vec::new();
    for a in 0..96u32 {
        for b in (a + 1..96).step_by(3) {
            pairs.push(Pair::new(a, b));
        }
    }
    let scene = GeneratedScene {
        shapes,
        bodies,
        pairs,
    };
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let cpu = collide_cpu(&batch);
    for (what, options) in [
        ("one window", GpuOptions::default()),
        (
            "tiny windows, overflowing",
            GpuOptions {
                max_window_pairs: Some(301),
                initial_capacity: Some(5),
                workgroup_size: 32,
                ..GpuOptions::default()
            },
        ),
    ] {
        let mut gpu = GpuNarrowphase::new(context.clone(), options).expect("3D kernel");
        for round in 0..2 {
            let hits = gpu.collide(&batch).expect("GPU run");
            let stats = gpu.stats().clone();
            let agreement = compare_hits(&batch, &cpu, &hits);
            assert!(
                agreement.agrees(),
                "{what}, round {round}: {} disagreements, the first: {:?}",
                agreement.disagreements.len(),
                agreement.disagreements.first()
            );
            assert!(
                hits.windows(2).all(|w| w[0].pair < w[1].pair),
                "{what}, round {round}: hits not in pair order"
            );
            assert!(
                stats.deferred >= 20,
                "{what}, round {round}: {} pairs deferred; {stats:?}",
                stats.deferred
            );
            if what.starts_with("tiny") && round == 0 {
                assert!(stats.reruns > 0 && stats.windows > 5, "{what}: {stats:?}");
            }
        }
    }
}

/// Capsules, rounded hulls and rounded boxes among hulls, boxes, plates
/// and spheres: every pair with a radius takes `rounded`, `hull_capsule` or
/// `capsules`, with either adapter's kinds, at the origin and 10,000 units
/// out, with a margin; the CPU's answers, bit for bit on a software
/// adapter, with every kind of axis among them (the cores overlapping, and
/// apart: faces, edge pairs, a vertex and an edge, two vertices), and
/// capsules against hulls of up to 256 vertices (the loops of
/// `hull_capsule` under lavapipe's limit).
#[test]
fn capsules_and_rounded_shapes_agree_with_the_cpu() {
    let Some(context) = gpu_context() else {
        return;
    };
    let far = Vec3::new(10_000.0, -5_000.0, 2_500.0);
    let mut kinds_seen = std::collections::BTreeSet::new();
    let mut entry_points = std::collections::BTreeSet::new();
    let mut rounded_hits = 0;
    let mixed = |seed, offset| SceneSpec {
        half_extent: 1.5,
        capsule_fraction: 0.3,
        rounded_fraction: 0.4,
        offset,
        ..SceneSpec::mixed(seed, 4_000)
    };
    let large = SceneSpec {
        vertices: (33, 256),
        capsule_fraction: 0.5,
        shapes: 64,
        bodies: 256,
        half_extent: 1.0,
        ..SceneSpec::mixed(1824, 1_500)
    };
    // `rounded` is one entry point whatever the kinds; the plain pairs
    // beside it take either adapter's kinds in the first scene.
    let both = [KernelKinds::Hardware, KernelKinds::Software];
    for (spec, margin, kinds) in [
        (mixed(1821, Vec3::ZERO), 0.0, &both[..]),
        (mixed(1822, Vec3::ZERO), 0.05, &both[..1]),
        (mixed(1823, far), 0.0, &both[..1]),
        (large, 0.0, &both[..1]),
    ] {
        let scene = spec.generate();
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
        let cpu = collide_cpu(&batch);
        for hit in &cpu {
            let pair = scene.pairs[hit.pair as usize];
            if !(batch.shape_of(pair.a).is_plain() && batch.shape_of(pair.b).is_plain()) {
                rounded_hits += 1;
                use gpusat::d3::Axis;
                kinds_seen.insert(match hit.axis {
                    Axis::FaceA(_) => "face_a",
                    Axis::FaceB(_) => "face_b",
                    Axis::Edges(..) => "edges",
                    Axis::VertexEdge(..) => "vertex_edge",
                    Axis::EdgeVertex(..) => "edge_vertex",
                    Axis::Vertices(..) => "vertices",
                    _ => "a sphere's",
                });
            }
        }
        for &kinds in kinds {
            let (_, agreement, compiled) = run_kinds(&context, &batch, &cpu, kinds);
            eprintln!(
                "seed {}, {kinds:?}: {} hits, {} identical",
                spec.seed, agreement.reference_hits, agreement.identical
            );
            entry_points.extend(compiled);
        }
    }
    for kind in ["rounded", "hull_capsule", "capsules"] {
        assert!(
            entry_points.contains(kind),
            "{kind} not run: {entry_points:?}"
        );
    }
    assert!(rounded_hits > 3_000, "{rounded_hits} hits with a radius");
    for kind in [
        "face_a",
        "face_b",
        "edges",
        "vertex_edge",
        "edge_vertex",
        "vertices",
        "a sphere's",
    ] {
        assert!(
            kinds_seen.contains(&kind),
            "axis kind {kind}: {kinds_seen:?}"
        );
    }
}

/// A rounded hull's pairs with a hull core of more than 32 vertices are
/// refused by name (lavapipe's loop limit), before anything runs.
#[test]
fn a_rounded_hull_against_a_large_hull_is_refused_by_name() {
    let Some(context) = gpu_context() else {
        return;
    };
    let mut random = gpusat::generate::rng(31);
    let mut shapes = gpusat::d3::ShapeSet::new();
    let rounded = shapes
        .add_rounded_cuboid(Vec3::splat(0.5), 0.1)
        .expect("a rounded box");
    let large = shapes.push(gpusat::d3::Shape::Hull(gpusat::generate::d3::random_hull(
        &mut random,
        40,
        1.0,
        1.0,
    )));
    let capsule = shapes
        .add_capsule(Vec3::ZERO, Vec3::X, 0.2)
        .expect("a capsule");
    let at =
        |shape, x: f32| gpusat::d3::Body::new(shape, Vec3::new(x, 0.0, 0.0), glam::Quat::IDENTITY);
    let bodies = [at(rounded, 0.0), at(large, 1.0), at(capsule, -1.0)];
    let mut gpu = GpuNarrowphase::new(context, GpuOptions::default()).expect("3D kernel");
    // A capsule takes a large hull.
    let pairs = [gpusat::Pair::new(2, 1), gpusat::Pair::new(0, 2)];
    let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).expect("batch");
    let hits = gpu.collide(&batch).expect("a capsule and a large hull");
    assert_eq!(hits, collide_cpu(&batch));
    let pairs = [gpusat::Pair::new(0, 2), gpusat::Pair::new(1, 0)];
    let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).expect("batch");
    let error = gpu
        .collide(&batch)
        .expect_err("a rounded box and a large hull");
    let message = error.to_string();
    assert!(
        matches!(
            error,
            GpuError::UnsupportedPair {
                pair: 1,
                a: 1,
                b: 0,
                ..
            }
        ) && message.contains("a hull of 40 vertices")
            && message.contains("rounded hull"),
        "{message}"
    );
}
