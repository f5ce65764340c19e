//! The eight-at-a-time face and edge queries (`sat/lanes.rs`) give the
//! scalar queries' results bit for bit: every face query and every edge
//! query of every hull pair, with the margin as the early exit's limit and
//! with no early exit, the edge queries with no floor and with the floor
//! the face queries give (as `collide_hulls` runs them), on hulls of 4 to 256 vertices, boxes and plates, near
//! the origin and 10,000 units out; and the batch with the default search
//! equals the pairwise loops (the GPU's) on small hulls, where it uses them.

use gpusat::d3::Hull;
use gpusat::d3::math::Transform;
use gpusat::d3::math::inv_mul_transforms;
use gpusat::d3::sat::{
    EDGE_TOLERANCE, EdgeSeparation, Separation, TIE_TOLERANCE, edge_floor,
    find_max_edge_separation, find_max_edge_separation_lanes, find_max_edge_separation_portable,
    find_max_face_separation, find_max_face_separation_lanes, find_max_face_separation_portable,
};

type FaceQuery = fn(&Hull, &Hull, Transform, f32, f32) -> Separation;
type EdgeQuery = fn(&Hull, &Hull, Transform, f32, f32, f32, &mut EdgeStats) -> EdgeSeparation;

/// The lanes as the library runs them (AVX where the CPU has it) and the
/// portable lanes, whatever the CPU.
const PATHS: [(&str, FaceQuery, EdgeQuery); 2] = [
    (
        "dispatched",
        find_max_face_separation_lanes,
        find_max_edge_separation_lanes,
    ),
    (
        "portable",
        find_max_face_separation_portable,
        find_max_edge_separation_portable,
    ),
];
use gpusat::d3::{Batch, EdgeSearch, EdgeStats, Shape};
use gpusat::generate::d3::{GeneratedScene, SceneSpec, random_hull, random_rotation};
use gpusat::generate::rng;
use gpusat::glam::Vec3;

use super::assert_search_is_the_pairwise_loops;
use rand::RngExt;

/// Every hull pair of a scene through both versions of each query; returns
/// the hull pairs compared, the edges of B the lanes skipped and the edges
/// of A they left out of an edge of B's tests.
fn compare_queries(what: &str, spec: SceneSpec, margin: f32) -> (usize, u64, u64) {
    compare_scene(what, &spec.generate(), margin)
}

/// [`compare_queries`] on a scene given.
fn compare_scene(what: &str, scene: &GeneratedScene, margin: f32) -> (usize, u64, u64) {
    let (mut skipped, mut skipped_a) = (0, 0);
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
    let mut compared = 0;
    for pair in &scene.pairs {
        let (Shape::Hull(a), Shape::Hull(b)) = (batch.shape_of(pair.a), batch.shape_of(pair.b))
        else {
            continue;
        };
        let (xf_a, xf_b) = (
            batch.transforms()[pair.a as usize],
            batch.transforms()[pair.b as usize],
        );
        let (xf_ab, xf_ba) = (
            inv_mul_transforms(xf_a, xf_b),
            inv_mul_transforms(xf_b, xf_a),
        );
        let tolerance = TIE_TOLERANCE * (a.size() + b.size());
        let edge_tolerance = EDGE_TOLERANCE * (a.size() + b.size());
        for (path, face_lanes, edge_lanes) in PATHS {
            for (limit, floored) in [
                (margin, false),
                (margin, true),
                (f32::MAX, false),
                (f32::MAX, true),
            ] {
                let face_a = find_max_face_separation(a, b, xf_ba, tolerance, limit);
                let lanes = face_lanes(a, b, xf_ba, tolerance, limit);
                assert_eq!(
                    (face_a.index, face_a.value.to_bits()),
                    (lanes.index, lanes.value.to_bits()),
                    "{what}: pair {pair:?}, A's faces: scalar {face_a:?}, {path} lanes {lanes:?}"
                );
                let face_b = find_max_face_separation(b, a, xf_ab, tolerance, limit);
                let lanes = face_lanes(b, a, xf_ab, tolerance, limit);
                assert_eq!(
                    (face_b.index, face_b.value.to_bits()),
                    (lanes.index, lanes.value.to_bits()),
                    "{what}: pair {pair:?}, B's faces: scalar {face_b:?}, {path} lanes {lanes:?}"
                );
                let floor = if floored {
                    edge_floor(face_a, face_b, tolerance, edge_tolerance)
                } else {
                    f32::MIN
                };
                let (mut scalar_stats, mut lanes_stats) =
                    (EdgeStats::default(), EdgeStats::default());
                let scalar = find_max_edge_separation(
                    a,
                    b,
                    xf_ab,
                    tolerance,
                    limit,
                    floor,
                    &mut scalar_stats,
                );
                let lanes = edge_lanes(a, b, xf_ab, tolerance, limit, floor, &mut lanes_stats);
                assert_eq!(
                    (scalar.a, scalar.b, scalar.value.to_bits()),
                    (lanes.a, lanes.b, lanes.value.to_bits()),
                    "{what}: pair {pair:?}, edges (floor {floor}): scalar {scalar:?}, {path} lanes {lanes:?}"
                );
                // The lanes skip edges of B, and edges of A for an edge of
                // B, that a bound rules out: the pairs they test are a
                // subset, all of them when none was skipped.
                assert_eq!(
                    (scalar_stats.hull_pairs, scalar_stats.edge_pairs),
                    (lanes_stats.hull_pairs, lanes_stats.edge_pairs),
                    "{what}: pair {pair:?}: edge pairs looked at ({path} lanes)"
                );
                assert!(
                    lanes_stats.kept <= scalar_stats.kept
                        && (lanes_stats.skipped + lanes_stats.skipped_a > 0
                            || lanes_stats.kept == scalar_stats.kept),
                    "{what}: pair {pair:?}: edge pairs kept: scalar {scalar_stats:?}, {path} lanes {lanes_stats:?}"
                );
                skipped += lanes_stats.skipped;
                skipped_a += lanes_stats.skipped_a;
            }
        }
        compared += 1;
    }
    (compared, skipped, skipped_a)
}

#[test]
fn the_lanes_equal_the_scalar_queries_on_every_hull_size() {
    let (mut compared, mut skipped, mut skipped_a) = (0, 0, 0);
    for (seed, vertices, half_extent, margin) in [
        (2101, (4, 12), 1.0, 0.0),
        (2102, (4, 40), 1.2, 0.1),
        (2103, (16, 64), 0.8, 0.0),
        (2104, (64, 256), 1.0, 0.2),
    ] {
        let (pairs, skips, skips_a) = compare_queries(
            &format!("seed {seed}"),
            SceneSpec {
                shapes: 40,
                bodies: 150,
                vertices,
                half_extent,
                sphere_fraction: 0.0,
                ..SceneSpec::mixed(seed, 600)
            },
            margin,
        );
        (compared, skipped, skipped_a) = (compared + pairs, skipped + skips, skipped_a + skips_a);
    }
    let (pairs, skips, skips_a) = compare_queries(
        "far out",
        SceneSpec {
            shapes: 30,
            bodies: 120,
            offset: Vec3::new(1.0e4, -1.0e4, 1.0e4),
            sphere_fraction: 0.0,
            ..SceneSpec::mixed(2105, 600)
        },
        0.0,
    );
    (compared, skipped, skipped_a) = (compared + pairs, skipped + skips, skipped_a + skips_a);
    assert!(
        compared > 2500 && skipped > 1000 && skipped_a > 1_000_000,
        "{compared} hull pairs compared, {skipped} edges of B skipped by the bound, \
         {skipped_a} edges of A left out of an edge of B's tests"
    );
}

#[test]
fn boxes_and_plates_use_the_lanes_and_equal_the_pairwise_loops() {
    let (mut compared, mut skipped) = (0, 0);
    for (seed, box_fraction, plate_fraction, margin) in [
        (2111, 1.0, 0.0, 0.0),
        (2112, 0.5, 0.5, 0.05),
        (2113, 0.3, 0.3, 0.0),
    ] {
        let spec = SceneSpec {
            shapes: 30,
            bodies: 150,
            vertices: (4, 11),
            box_fraction,
            plate_fraction,
            half_extent: 0.8,
            ..SceneSpec::mixed(seed, 3000)
        };
        let (pairs, skips, _) = compare_queries(&format!("seed {seed}"), spec.clone(), margin);
        (compared, skipped) = (compared + pairs, skipped + skips);
        let what = format!("seed {seed}");
        assert_search_is_the_pairwise_loops(&what, &spec.generate(), margin, EdgeSearch::Pruned);
    }
    assert!(
        compared > 3000 && skipped > 1000,
        "{compared} hull pairs compared, {skipped} edges skipped by the bound"
    );
}

/// Hulls resting on, leaning on and near flat boxes (floors, walls,
/// planks: a hull's edges are bounded in closed form against such a box,
/// `tighten_against_box`), the box as A and as B, the hulls of 12 to 64
/// vertices, turned a hair or at random, touching within a hair, sunk a
/// little or a little apart, near the box's middle and its edges: every
/// query the scalar one's bits, and the batch the pairwise loops'.
#[test]
fn hulls_on_flat_boxes_equal_the_scalar_queries() {
    use gpusat::d3::{Body, ShapeSet};
    use gpusat::glam::Quat;
    let mut random = rng(2121);
    let mut shapes = ShapeSet::new();
    let flat = [
        Vec3::new(3.0, 0.05, 3.0),
        Vec3::new(2.0, 0.1, 0.5),
        Vec3::new(1.5, 0.08, 0.08),
        Vec3::new(0.6, 0.12, 0.6),
    ];
    let boxes: Vec<u32> = flat
        .iter()
        .map(|&half| shapes.add_cuboid(half).expect("a valid box"))
        .collect();
    let hulls: Vec<u32> = (0..24)
        .map(|k| {
            let count = [12, 24, 40, 64][k % 4];
            let radius = random.random_range(0.1..0.4f32);
            let flatness = random.random_range(0.5..1.0f32);
            shapes.push(Shape::Hull(random_hull(
                &mut random,
                count,
                radius,
                flatness,
            )))
        })
        .collect();
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    for (b, &wall) in boxes.iter().enumerate() {
        let half = flat[b];
        // The box turned about y, or level.
        let box_rotation = match b % 2 {
            0 => Quat::from_rotation_y(random.random_range(0.0..1.0f32)),
            _ => Quat::IDENTITY,
        };
        let box_body = Body::new(wall, Vec3::new(0.0, 0.0, 0.0), box_rotation);
        for k in 0..160 {
            let shape = hulls[k % hulls.len()];
            let Some(Shape::Hull(hull)) = shapes.get(shape) else {
                unreachable!("a hull")
            };
            let rotation = match k % 3 {
                0 => random_rotation(&mut random),
                1 => Quat::from_axis_angle(
                    Vec3::new(random.random_range(-1.0..1.0f32), 1.0, 0.3).normalize(),
                    random.random_range(-1e-3..1e-3f32),
                ),
                _ => Quat::from_rotation_y(random.random_range(0.0..6.0f32)),
            };
            // Resting on the top face: the hull's lowest point at the
            // top, within a hair, sunk or apart; over the middle or near
            // an edge or a corner.
            let lowest = hull
                .vertices()
                .iter()
                .map(|&v| (rotation * v).y)
                .fold(f32::MAX, f32::min);
            let gap = [0.0, 1e-6, -1e-6, 1e-3, -1e-3, 0.02, -0.03][k % 7];
            let reach = [0.2, 0.9, 1.0, 1.1][k / 7 % 4];
            let along = Vec3::new(
                random.random_range(-reach..reach) * half.x,
                0.0,
                random.random_range(-reach..reach) * half.z,
            );
            let local = along + Vec3::Y * (half.y - lowest + gap);
            let position = box_rotation * local;
            let rotation = box_rotation * rotation;
            let first = bodies.len() as u32;
            bodies.push(box_body);
            bodies.push(Body::new(shape, position, rotation));
            // The box as A and as B.
            pairs.push(gpusat::Pair::new(first, first + 1));
            pairs.push(gpusat::Pair::new(first + 1, first));
        }
    }
    let scene = GeneratedScene {
        shapes,
        bodies,
        pairs,
    };
    let (mut compared, mut skipped) = (0, 0);
    for margin in [0.0, 0.05] {
        let (pairs, skips, _) = compare_scene("on flat boxes", &scene, margin);
        (compared, skipped) = (compared + pairs, skipped + skips);
        let what = format!("margin {margin}");
        assert_search_is_the_pairwise_loops(&what, &scene, margin, EdgeSearch::Pruned);
    }
    assert!(
        compared > 2000 && skipped > 100_000,
        "{compared} hull pairs compared, {skipped} edges skipped by the bound"
    );
}

/// Pairs of two capsules go through the batch eight at a time, a lane a
/// pair (`sat/segments_across.rs`): every pair's axis and depth the scalar
/// path's bits, and every manifold the same, on random and degenerate
/// poses (parallel, on one line, crossing, end to end, a quarter turn, on
/// a grid), near the origin and 10,000 units out. (CI runs this file again
/// with `GPUSAT_NO_AVX=1`: the portable lanes.)
#[test]
fn capsule_pairs_across_pairs_have_the_scalar_bits() {
    use glam::{Quat, Vec3};
    use gpusat::Pair;
    use gpusat::d3::{Axis, Body, Capsule, ShapeSet};
    use gpusat::generate::d3::random_rotation;
    use gpusat::generate::rng;
    use rand::RngExt;

    let mut random = rng(0xca95);
    let mut shapes = ShapeSet::new();
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    for k in 0..24_000u32 {
        let mut capsule = |random: &mut gpusat::generate::SceneRng| {
            let half = random.random_range(0.2..1.0f32);
            let half = if random.random_bool(0.3) {
                half.round().max(0.5)
            } else {
                half
            };
            let radius = if random.random_bool(0.3) {
                0.25
            } else {
                random.random_range(0.05..0.5f32)
            };
            shapes.push(
                Capsule::new(
                    Vec3::new(-half, 0.0, 0.0),
                    Vec3::new(half, 0.0, 0.0),
                    radius,
                )
                .expect("a capsule")
                .into(),
            )
        };
        let (a, b) = (capsule(&mut random), capsule(&mut random));
        let offset = if k % 4 == 3 {
            Vec3::new(10_000.0, -7_500.0, 2_500.0)
        } else {
            Vec3::ZERO
        };
        let rotation_a = random_rotation(&mut random);
        let quarter = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let coordinate = |random: &mut gpusat::generate::SceneRng, reach: f32| {
            random.random_range(-reach..reach)
        };
        let (rotation_b, position) = match k % 6 {
            // Parallel, beside or along.
            0 => (
                rotation_a,
                Vec3::new(
                    coordinate(&mut random, 2.5),
                    coordinate(&mut random, 1.0),
                    coordinate(&mut random, 1.0),
                ),
            ),
            // On one line.
            1 => (
                rotation_a,
                Vec3::new(coordinate(&mut random, 3.0), 0.0, 0.0),
            ),
            // A quarter turn about the line between them, and crossing.
            2 => (
                rotation_a * quarter,
                Vec3::new(
                    coordinate(&mut random, 1.5),
                    coordinate(&mut random, 1.5),
                    coordinate(&mut random, 0.8),
                ),
            ),
            // On a grid: exact touching, exact zeros.
            3 => (
                rotation_a * quarter,
                Vec3::new(
                    0.25 * random.random_range(-8..9) as f32,
                    0.25 * random.random_range(-6..7) as f32,
                    0.25 * random.random_range(-2..3) as f32,
                ),
            ),
            _ => (
                random_rotation(&mut random),
                Vec3::new(
                    coordinate(&mut random, 2.0),
                    coordinate(&mut random, 2.0),
                    coordinate(&mut random, 2.0),
                ),
            ),
        };
        bodies.push(Body::new(a, offset, rotation_a));
        bodies.push(Body::new(b, offset + rotation_a * position, rotation_b));
        pairs.push(Pair::new(2 * k, 2 * k + 1));
    }
    assert_across_pairs_are_the_pair_path::<4>((&shapes, &bodies, &pairs), |axis| match axis {
        Axis::Edges(..) => 0,
        Axis::EdgeVertex(..) => 1,
        Axis::VertexEdge(..) => 2,
        _ => 3,
    });
}

/// The batch of `pairs`, without a margin and with one, through the lanes
/// across pairs (`collide_cpu`, `contacts_cpu`) against each pair alone
/// (`test_pair`, `manifolds`): the same hits bit for bit, in pair order, and
/// the same manifolds; and every one of the `K` kinds of axis `kind` sorts
/// the hits into is met more than 500 times.
fn assert_across_pairs_are_the_pair_path<const K: usize>(
    (shapes, bodies, pairs): (&gpusat::d3::ShapeSet, &[gpusat::d3::Body], &[gpusat::Pair]),
    kind: impl Fn(gpusat::d3::Axis) -> usize,
) {
    use gpusat::d3::{Batch, collide_cpu, contacts_cpu, manifolds};
    for margin in [0.0, 0.3] {
        let batch = Batch::new(shapes, bodies, pairs, margin).expect("batch");
        let scalar: Vec<_> = (0..pairs.len())
            .filter_map(|index| batch.test_pair(index))
            .collect();
        let lanes = collide_cpu(&batch);
        let mut kinds = [0usize; K];
        for hit in &scalar {
            kinds[kind(hit.axis)] += 1;
        }
        for (got, want) in lanes.iter().zip(&scalar) {
            assert_eq!(
                (got.pair, got.axis, got.depth.to_bits()),
                (want.pair, want.axis, want.depth.to_bits()),
                "margin {margin}: {} vs {}",
                got.depth,
                want.depth
            );
        }
        assert_eq!(lanes.len(), scalar.len(), "margin {margin}");
        // Every kind of axis is met, and plenty of each.
        assert!(kinds.iter().all(|&n| n > 500), "margin {margin}: {kinds:?}");
        assert_eq!(
            contacts_cpu(&batch),
            manifolds(&batch, &batch.hits(&scalar)),
            "margin {margin}: the manifolds differ"
        );
    }
}

/// Two boxes go eight pairs at a time (`sat/boxes_across.rs`): the batch
/// gives each pair `collide_pair`'s answer bit for bit, and the same
/// manifolds: boxes centred and off centre, cubes, plates and sticks, in
/// random poses, turned by quarter turns (parallel edges, faces that tie
/// exactly), on a grid (exact touching, exact zeros), near each other's
/// faces, and ten thousand units out; without a margin and with one.
#[test]
fn box_pairs_take_their_own_lanes_with_the_scalar_bits() {
    use glam::{Quat, Vec3};
    use gpusat::Pair;
    use gpusat::d3::{Axis, Body, Hull, ShapeSet};
    use gpusat::generate::d3::random_rotation;
    use gpusat::generate::rng;
    use rand::RngExt;

    let mut random = rng(0xb0c5);
    let mut shapes = ShapeSet::new();
    let mut boxes = Vec::new();
    for k in 0..40 {
        let mut half = Vec3::new(
            random.random_range(0.1..1.2f32),
            random.random_range(0.1..1.2f32),
            random.random_range(0.1..1.2f32),
        );
        match k % 5 {
            0 => half = Vec3::splat(0.5),
            1 => half.z = 0.05,
            2 => half.y = 2.5,
            _ => {}
        }
        let hull = if k % 3 == 0 {
            // Off centre: eight corners about a point.
            let centre = Vec3::new(
                random.random_range(-0.5..0.5f32),
                random.random_range(-0.5..0.5f32),
                random.random_range(-0.5..0.5f32),
            );
            let corners: Vec<Vec3> = (0..8)
                .map(|c| {
                    let sign = |bit: u32| if c >> bit & 1 == 1 { 1.0 } else { -1.0 };
                    centre + half * Vec3::new(sign(0), sign(1), sign(2))
                })
                .collect();
            Hull::new(&corners).expect("a box of corners")
        } else {
            Hull::cuboid(half).expect("a box")
        };
        assert!(hull.is_axis_box(), "box {k} takes the boxes' own query");
        boxes.push(shapes.push(hull.into()));
    }
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    let quarter = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    for k in 0..24_000u32 {
        let a = boxes[random.random_range(0..boxes.len())];
        let b = boxes[random.random_range(0..boxes.len())];
        let offset = if k % 4 == 3 {
            Vec3::new(10_000.0, -7_500.0, 2_500.0)
        } else {
            Vec3::ZERO
        };
        let rotation_a = if k % 5 == 0 {
            Quat::IDENTITY
        } else {
            random_rotation(&mut random)
        };
        let turned = random_rotation(&mut random);
        let mut coordinate = |reach: f32| random.random_range(-reach..reach);
        let (rotation_b, position) = match k % 6 {
            0 => (
                rotation_a,
                Vec3::new(coordinate(2.0), coordinate(2.0), coordinate(2.0)),
            ),
            1 => (
                rotation_a * quarter,
                Vec3::new(coordinate(1.5), coordinate(1.5), coordinate(1.5)),
            ),
            2 => (
                rotation_a * quarter,
                Vec3::new(
                    0.25 * (coordinate(8.0) as i32) as f32,
                    0.25 * (coordinate(6.0) as i32) as f32,
                    0.25 * (coordinate(3.0) as i32) as f32,
                ),
            ),
            _ => (
                turned,
                Vec3::new(coordinate(2.0), coordinate(2.0), coordinate(2.0)),
            ),
        };
        bodies.push(Body::new(a, offset, rotation_a));
        bodies.push(Body::new(b, offset + rotation_a * position, rotation_b));
        pairs.push(Pair::new(2 * k, 2 * k + 1));
    }
    assert_across_pairs_are_the_pair_path::<3>((&shapes, &bodies, &pairs), |axis| match axis {
        Axis::FaceA(_) => 0,
        Axis::FaceB(_) => 1,
        _ => 2,
    });
}

/// A box's closest feature to a sphere's centre by the centre's region
/// (`box_closest_feature`, what the CPU backends run for a box and a
/// sphere) is `closest_feature`'s, feature and distance bit for bit,
/// wherever it answers: centres all around boxes (centred and off-centre,
/// thin and thick), on and a hair off the face planes (where it must leave
/// the answer to `closest_feature`), and ten to ten thousand sizes away,
/// where the distances of neighbouring corners round alike. A box
/// turned in its own frame has no regions.
#[test]
fn box_regions_give_the_general_closest_feature_bit_for_bit() {
    use gpusat::d3::sat::{BOX_REGION_BAND, Closest, box_closest_feature, closest_feature};
    use gpusat::generate::rng;
    use rand::RngExt;

    let mut random = rng(0xb0c5);
    let (mut faces, mut edges, mut vertices, mut left) = (0, 0, 0, 0);
    for b in 0..300 {
        let half = Vec3::new(
            random.random_range(0.02..2.0f32),
            random.random_range(0.02..2.0f32),
            random.random_range(0.02..2.0f32),
        );
        let hull = if b % 3 == 0 {
            Hull::cuboid(half).expect("a box")
        } else {
            // Off-centre: the eight corners of a box about a shifted centre.
            let shift = Vec3::new(
                random.random_range(-1.0..1.0f32),
                random.random_range(-1.0..1.0f32),
                random.random_range(-1.0..1.0f32),
            );
            let corners: Vec<Vec3> = (0..8)
                .map(|k| {
                    let sign = |bit: usize| if k >> bit & 1 == 1 { 1.0 } else { -1.0 };
                    shift + Vec3::new(sign(0) * half.x, sign(1) * half.y, sign(2) * half.z)
                })
                .collect();
            Hull::new(&corners).expect("a box")
        };
        let (low, high) = hull.cuboid_corners().expect("an axis-aligned box");
        let size = hull.size();
        for k in 0..2_000 {
            let centre = match k % 4 {
                // All around.
                0 | 1 => Vec3::new(
                    random.random_range(low.x - 2.0 * size..high.x + 2.0 * size),
                    random.random_range(low.y - 2.0 * size..high.y + 2.0 * size),
                    random.random_range(low.z - 2.0 * size..high.z + 2.0 * size),
                ),
                // Each coordinate on a plane, a hair off it, or clear.
                2 => {
                    let mut pick = |lo: f32, hi: f32| match random.random_range(0..8) {
                        0 => lo,
                        1 => hi,
                        2 => hi + 0.5 * BOX_REGION_BAND * size,
                        3 => lo - 3.0 * BOX_REGION_BAND * size,
                        4 => hi.next_up(),
                        5 => lo.next_up(),
                        6 => hi + random.random_range(0.0..size),
                        _ => random.random_range(lo..hi),
                    };
                    Vec3::new(
                        pick(low.x, high.x),
                        pick(low.y, high.y),
                        pick(low.z, high.z),
                    )
                }
                // From ten to ten thousand sizes away.
                _ => {
                    let direction = Vec3::new(
                        random.random_range(-1.0..1.0f32),
                        random.random_range(-1.0..1.0f32),
                        random.random_range(-1.0..1.0f32),
                    );
                    let far = 10f32.powf(random.random_range(1.0..4.0f32));
                    (low + high) * 0.5 + far * size * direction
                }
            };
            let outside = hull
                .normals()
                .iter()
                .zip(hull.offsets())
                .any(|(&n, &d)| n.dot(centre) - d > 0.0);
            if !outside {
                continue;
            }
            let Some((feature, distance)) = box_closest_feature(&hull, centre) else {
                left += 1;
                continue;
            };
            let (want, want_distance) = closest_feature(&hull, centre);
            assert_eq!(
                (feature, distance.to_bits()),
                (want, want_distance.to_bits()),
                "box {b}, centre {centre:?}: {feature:?} {distance} vs {want:?} {want_distance}"
            );
            match feature {
                Closest::Face(_) => faces += 1,
                Closest::Edge(_) => edges += 1,
                Closest::Vertex(_) => vertices += 1,
            }
        }
    }
    // Every region is met, and the bands are left alone.
    assert!(
        faces > 20_000 && edges > 20_000 && vertices > 20_000 && left > 10_000,
        "{faces} faces, {edges} edges, {vertices} vertices, {left} left"
    );
    // A box turned in its frame is not an axis-aligned one.
    let turned: Vec<Vec3> = Hull::cuboid(Vec3::new(1.0, 0.5, 0.25))
        .expect("a box")
        .vertices()
        .iter()
        .map(|&v| gpusat::glam::Quat::from_rotation_z(0.3) * v)
        .collect();
    let turned = Hull::new(&turned).expect("a box");
    assert_eq!(box_closest_feature(&turned, Vec3::new(5.0, 0.0, 0.0)), None);
}

/// A sphere's centre against a hull's faces and its closest feature, eight
/// faces and eight edges at a time (`sphere_face_separation`,
/// `closest_feature_lanes`, what the CPU backends run), give the loops'
/// answers bit for bit, on the AVX lanes where the CPU has them and on the
/// portable ones: hulls of 5 to 126 vertices, plates of 8 to 64, boxes
/// and prisms (faces of up to 24 vertices); centres inside and all around them, on
/// the line through two vertices' midpoint (exact ties of the face
/// loop), along edges (from a hair to half a size off them), at and past
/// vertices, and ten to ten thousand sizes away; with
/// limits that stop the face loop and ones that do not.
#[test]
fn the_sphere_queries_in_lanes_are_the_loops() {
    use gpusat::d3::sat::{
        Closest, closest_feature, closest_feature_lanes, closest_feature_portable,
        sphere_face_loop, sphere_face_separation, sphere_face_separation_portable,
    };
    use gpusat::generate::d3::random_hull;
    use gpusat::generate::rng;
    use rand::RngExt;

    let mut random = rng(0x5fe2e);
    let bits = |s: Option<Separation>| s.map(|s| (s.value.to_bits(), s.index));
    let (mut stopped, mut near_ties, mut closest) = (0, 0, [0usize; 3]);
    for h in 0..240 {
        let hull = match h % 4 {
            0 => Hull::cuboid(Vec3::new(
                random.random_range(0.05..2.0f32),
                random.random_range(0.05..2.0f32),
                random.random_range(0.05..2.0f32),
            ))
            .expect("a box"),
            1 => {
                let sides = 3 + h % 22;
                let points: Vec<Vec3> = (0..2 * sides)
                    .map(|k| {
                        let angle = std::f32::consts::TAU * (k % sides) as f32 / sides as f32;
                        let z = if k < sides { 0.4 } else { -0.4 };
                        Vec3::new(angle.cos(), angle.sin(), z)
                    })
                    .collect();
                Hull::new(&points).expect("a prism")
            }
            2 => random_hull(&mut random, 4 + h % 125, 1.0, 1.0),
            _ => random_hull(&mut random, 8 + h % 57, 1.0, 0.05),
        };
        let size = hull.size();
        let vertices = hull.vertices();
        for k in 0..400 {
            let centre = match k % 5 {
                0 => {
                    Vec3::new(
                        random.random_range(-2.0..2.0f32),
                        random.random_range(-2.0..2.0f32),
                        random.random_range(-2.0..2.0f32),
                    ) * size
                }
                // On the line through two faces' first vertices' midpoint
                // and beyond: ties of the face loop.
                1 => {
                    let (a, b) = (
                        vertices[random.random_range(0..vertices.len())],
                        vertices[random.random_range(0..vertices.len())],
                    );
                    (a + b) * random.random_range(0.0..3.0f32)
                }
                // Along an edge, past its ends.
                2 => {
                    let edge = hull.edges()[random.random_range(0..hull.edges().len())];
                    let (a, b) = (vertices[edge.v0 as usize], vertices[edge.v1 as usize]);
                    let out = Vec3::new(
                        random.random_range(-1.0..1.0f32),
                        random.random_range(-1.0..1.0f32),
                        random.random_range(-1.0..1.0f32),
                    ) * 10f32.powf(random.random_range(-5.0..-0.3f32))
                        * size;
                    a + (b - a) * random.random_range(-0.5..1.5f32) + out
                }
                // A vertex pushed straight out, or with some coordinates
                // kept (a box's edge then meets the centre at t = 0).
                3 => {
                    let v = vertices[random.random_range(0..vertices.len())];
                    if k % 2 == 0 {
                        v * random.random_range(1.0..1.5f32)
                    } else {
                        let mut push = |c: f32| match random.random_range(0..3) {
                            0 => c,
                            _ => c * random.random_range(1.0..1.5f32),
                        };
                        Vec3::new(push(v.x), push(v.y), push(v.z))
                    }
                }
                _ => {
                    let direction = Vec3::new(
                        random.random_range(-1.0..1.0f32),
                        random.random_range(-1.0..1.0f32),
                        random.random_range(-1.0..1.0f32),
                    );
                    10f32.powf(random.random_range(1.0..4.0f32)) * size * direction
                }
            };
            let radius = random.random_range(0.01..1.0f32) * size;
            let tolerance = TIE_TOLERANCE * (size + radius);
            let limit = if k % 3 == 0 { f32::MAX } else { radius };
            let want = sphere_face_loop(&hull, centre, tolerance, limit);
            for (name, got) in [
                (
                    "dispatched",
                    sphere_face_separation(&hull, centre, tolerance, limit),
                ),
                (
                    "portable",
                    sphere_face_separation_portable(&hull, centre, tolerance, limit),
                ),
            ] {
                assert_eq!(bits(got), bits(want), "{name}: hull {h}, centre {centre:?}");
            }
            stopped += usize::from(want.is_none());
            let separations: Vec<f32> = hull
                .normals()
                .iter()
                .zip(hull.offsets())
                .map(|(&n, &d)| gpusat::d3::math::dot3(n, centre) - d)
                .collect();
            let largest = separations.iter().copied().fold(f32::MIN, f32::max);
            near_ties += usize::from(
                separations
                    .iter()
                    .filter(|&&s| s >= largest - 2.0 * tolerance)
                    .count()
                    > 1,
            );
            if largest <= 0.0 {
                continue;
            }
            let (feature, distance) = closest_feature(&hull, centre);
            for (name, (got, got_distance)) in [
                ("dispatched", closest_feature_lanes(&hull, centre)),
                ("portable", closest_feature_portable(&hull, centre)),
            ] {
                assert_eq!(
                    (got, got_distance.to_bits()),
                    (feature, distance.to_bits()),
                    "{name}: hull {h}, centre {centre:?}"
                );
            }
            closest[match feature {
                Closest::Face(_) => 0,
                Closest::Edge(_) => 1,
                Closest::Vertex(_) => 2,
            }] += 1;
        }
    }
    assert!(
        stopped > 5_000 && near_ties > 1_000 && closest.iter().all(|&n| n > 3_000),
        "{stopped} stopped, {near_ties} near-ties, {closest:?} faces, edges, vertices"
    );
}
