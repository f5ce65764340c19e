//! 3D contact manifolds: hand-worked cases (a box resting on a box gives its
//! four corners, crossed edges one point, a sphere one point where it
//! touches), every point of random pairs within its depth of both shapes,
//! ids stable under small motion, and the one-pair call and the parallel
//! backend equal to the batch reference bit for bit.

use crate::common::oracle3::{Placed, hull_distance, place};
use glam::{Quat, Vec3};
use gpusat::Pair;
use gpusat::d3::{
    Axis, Batch, Body, ShapeSet, collide_cpu, collide_shapes, contacts_cpu, manifold, manifolds,
};
use gpusat::generate::d3::SceneSpec;
use gpusat::generate::rng;
use rand::RngExt;

use super::assert_fused_contacts_are_the_manifolds;

/// Signed distance from `p` to a placed shape (negative inside).
fn distance_to(shape: &Placed, p: glam::DVec3) -> f64 {
    match shape {
        Placed::Hull {
            vertices,
            faces,
            edges,
        } => hull_distance(vertices, faces, edges, p),
        Placed::Sphere { centre, radius } => (p - *centre).length() - radius,
        Placed::Capsule { .. } | Placed::RoundedHull { .. } => {
            crate::common::oracle3::distance_to_placed(p, shape)
        }
    }
}

#[test]
fn a_box_resting_on_a_box_gives_four_corners() {
    let mut random = rng(1501);
    let mut shapes = ShapeSet::new();
    let floor = shapes.add_cuboid(Vec3::new(3.0, 0.5, 3.0)).expect("floor");
    let crate_ = shapes.add_cuboid(Vec3::new(0.5, 0.4, 0.3)).expect("crate");
    for _ in 0..200 {
        let depth = random.random_range(1e-3f32..0.05);
        let yaw = Quat::from_rotation_y(random.random_range(-3.0..3.0));
        let position = Vec3::new(
            random.random_range(-2.0..2.0),
            0.5 + 0.4 - depth,
            random.random_range(-2.0..2.0),
        );
        let bodies = [
            Body::fixed(floor, Vec3::ZERO, Quat::IDENTITY),
            Body::new(crate_, position, yaw),
        ];
        for pair in [Pair::new(0, 1), Pair::new(1, 0)] {
            let pairs = [pair];
            let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).expect("batch");
            let hits = batch.hits(&collide_cpu(&batch));
            assert_eq!(hits.len(), 1);
            let hit = hits[0];
            assert!(hit.axis.is_face(), "{hit:?}");
            let up = if pair.a == 0 { Vec3::Y } else { -Vec3::Y };
            assert!(
                (hit.normal - up).length() < 1e-5,
                "normal {} expected {up}",
                hit.normal
            );
            assert!(
                (hit.depth - depth).abs() < 1e-5,
                "depth {} expected {depth}",
                hit.depth
            );
            let contact = manifold(&batch, &hit);
            assert_eq!(contact.points().len(), 4, "{contact:?}");
            // The crate's four bottom corners, midway into the floor's top.
            for corner in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let expected = position
                    + yaw * Vec3::new(0.5 * corner.0, -0.4, 0.3 * corner.1)
                    + Vec3::Y * 0.5 * depth;
                let nearest = contact
                    .points()
                    .iter()
                    .map(|p| (p.point - expected).length())
                    .fold(f32::MAX, f32::min);
                assert!(nearest < 1e-4, "corner {expected} missing from {contact:?}");
            }
            for point in contact.points() {
                assert!(
                    (point.depth - depth).abs() < 1e-5,
                    "{point:?} expected depth {depth}"
                );
            }
        }
    }
}

#[test]
fn crossed_edges_give_one_point_between_them() {
    let mut shapes = ShapeSet::new();
    let bar = shapes.add_cuboid(Vec3::new(1.0, 0.2, 0.2)).expect("bar");
    // Both bars turned 45 degrees about their length: an edge at the top of
    // the lower one, an edge at the bottom of the upper one, crossed.
    let lower = Quat::from_rotation_x(std::f32::consts::FRAC_PI_4);
    let upper = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2) * lower;
    let reach = 0.2 * std::f32::consts::SQRT_2;
    let depth = 0.01;
    let bodies = [
        Body::new(bar, Vec3::ZERO, lower),
        Body::new(bar, Vec3::new(0.0, 2.0 * reach - depth, 0.0), upper),
    ];
    let pairs = [Pair::new(0, 1)];
    let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).expect("batch");
    let hits = batch.hits(&collide_cpu(&batch));
    assert_eq!(hits.len(), 1);
    assert!(matches!(hits[0].axis, Axis::Edges(..)), "{:?}", hits[0]);
    assert!((hits[0].normal - Vec3::Y).length() < 1e-5, "{:?}", hits[0]);
    assert!((hits[0].depth - depth).abs() < 1e-5, "{:?}", hits[0]);
    let contact = manifold(&batch, &hits[0]);
    assert_eq!(contact.points().len(), 1);
    let point = contact.points()[0];
    let expected = Vec3::new(0.0, reach - 0.5 * depth, 0.0);
    assert!(
        (point.point - expected).length() < 1e-5,
        "{point:?} expected {expected}"
    );
    assert!((point.depth - depth).abs() < 1e-5, "{point:?}");
}

#[test]
fn a_sphere_touches_at_one_point() {
    let mut shapes = ShapeSet::new();
    let floor = shapes.add_cuboid(Vec3::new(2.0, 0.5, 2.0)).expect("floor");
    let ball = shapes.add_sphere(0.3).expect("ball");
    let cases = [
        // Over the face, over an edge, over a corner (offset diagonally).
        (Vec3::new(0.4, 0.78, -0.2), Vec3::new(0.4, 0.5, -0.2)),
        (Vec3::new(2.1, 0.6, 0.3), Vec3::new(2.0, 0.5, 0.3)),
        (Vec3::new(2.1, 0.6, 2.1), Vec3::new(2.0, 0.5, 2.0)),
    ];
    for (centre, touching) in cases {
        let bodies = [
            Body::fixed(floor, Vec3::ZERO, Quat::IDENTITY),
            Body::new(ball, centre, Quat::IDENTITY),
        ];
        let pairs = [Pair::new(0, 1), Pair::new(1, 0)];
        let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).expect("batch");
        let hits = batch.hits(&collide_cpu(&batch));
        assert_eq!(hits.len(), 2, "{centre}");
        let expected_normal = (centre - touching).normalize();
        let expected_depth = 0.3 - (centre - touching).length();
        for (hit, sign) in hits.iter().zip([1.0, -1.0]) {
            assert!(
                (hit.normal - sign * expected_normal).length() < 1e-5,
                "{centre}: normal {} expected {}",
                hit.normal,
                sign * expected_normal
            );
            assert!(
                (hit.depth - expected_depth).abs() < 1e-5,
                "{centre}: {hit:?}"
            );
            let contact = manifold(&batch, hit);
            assert_eq!(contact.points().len(), 1);
            let midway = touching + expected_normal * (0.5 * -expected_depth);
            let point = contact.points()[0];
            assert!(
                (point.point - midway).length() < 1e-5,
                "{centre}: point {} expected {midway}",
                point.point
            );
        }
    }
}

#[test]
fn contacts_lie_within_their_depth_of_both_shapes() {
    let mut checked = 0;
    for (seed, margin) in [(1502, 0.0), (1503, 0.1)] {
        let scene = SceneSpec {
            half_extent: 1.5,
            ..SceneSpec::mixed(seed, 4000)
        }
        .generate();
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
        let hits = batch.hits(&collide_cpu(&batch));
        for (hit, contact) in hits.iter().zip(manifolds(&batch, &hits)) {
            let count = contact.points().len();
            assert!(
                (1..=4).contains(&count),
                "pair {}: {count} points",
                hit.pair
            );
            let size = batch.pair_size(hit.pair) as f64;
            let a = place(&scene.shapes, &scene.bodies[hit.a as usize]);
            let b = place(&scene.shapes, &scene.bodies[hit.b as usize]);
            for point in contact.points() {
                let p = point.point.as_dvec3();
                let reach = point.depth.abs() as f64 + 1e-4 * size;
                let (to_a, to_b) = (distance_to(&a, p), distance_to(&b, p));
                assert!(
                    to_a <= reach && to_b <= reach,
                    "pair {} ({:?}): point {point:?} is {to_a} from A and {to_b} from B",
                    hit.pair,
                    hit.axis
                );
                assert!(
                    point.depth <= hit.depth + 1e-4 * size as f32,
                    "pair {}: point {point:?} deeper than the pair's {}",
                    hit.pair,
                    hit.depth
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 4000, "{checked} points");
}

#[test]
fn ids_stay_the_same_under_small_motion() {
    let mut shapes = ShapeSet::new();
    let floor = shapes.add_cuboid(Vec3::new(3.0, 0.5, 3.0)).expect("floor");
    let crate_ = shapes.add_cuboid(Vec3::splat(0.4)).expect("crate");
    let ids = |offset: Vec3, yaw: f32| {
        let bodies = [
            Body::fixed(floor, Vec3::ZERO, Quat::IDENTITY),
            Body::new(
                crate_,
                Vec3::new(0.3, 0.89, -0.2) + offset,
                Quat::from_rotation_y(yaw),
            ),
        ];
        let pairs = [Pair::new(0, 1)];
        let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).expect("batch");
        let hit = batch.hits(&collide_cpu(&batch))[0];
        let mut ids: Vec<u32> = manifold(&batch, &hit)
            .points()
            .iter()
            .map(|p| p.id)
            .collect();
        ids.sort_unstable();
        ids
    };
    let first = ids(Vec3::ZERO, 0.3);
    assert_eq!(first.len(), 4);
    let unique: std::collections::BTreeSet<u32> = first.iter().copied().collect();
    assert_eq!(unique.len(), 4, "ids repeat: {first:?}");
    for step in 1..20 {
        let t = step as f32 * 1e-3;
        assert_eq!(
            ids(Vec3::new(t, -0.1 * t, 0.5 * t), 0.3 + t),
            first,
            "step {step}"
        );
    }
}

#[test]
fn one_pair_and_parallel_equal_the_batch() {
    let scene = SceneSpec {
        half_extent: 1.5,
        ..SceneSpec::mixed(1504, 6000)
    }
    .generate();
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.05).expect("batch");
    let sat_hits = collide_cpu(&batch);
    let hits = batch.hits(&sat_hits);
    let reference = manifolds(&batch, &hits);
    assert_eq!(contacts_cpu(&batch), reference, "contacts_cpu");
    // Into a reused vector holding a previous frame's output.
    let mut reused = contacts_cpu(&batch);
    reused.truncate(reused.len() / 3);
    gpusat::d3::contacts_cpu_into(&batch, &mut reused);
    assert_eq!(reused, reference, "contacts_cpu_into");
    #[cfg(feature = "parallel")]
    {
        assert_eq!(
            gpusat::d3::collide_cpu_parallel(&batch),
            sat_hits,
            "collide_cpu_parallel"
        );
        assert_eq!(
            gpusat::d3::contacts_cpu_parallel(&batch),
            reference,
            "contacts_cpu_parallel"
        );
    }
    let mut next = 0;
    for (index, pair) in scene.pairs.iter().enumerate() {
        let (a, b) = (
            &scene.bodies[pair.a as usize],
            &scene.bodies[pair.b as usize],
        );
        let shape = |body: &Body| scene.shapes.get(body.shape).expect("shape");
        let one = collide_shapes(shape(a), &a.transform(), shape(b), &b.transform(), 0.05);
        let from_batch = hits.get(next).filter(|h| h.pair as usize == index);
        match (one, from_batch) {
            (Some(contact), Some(hit)) => {
                assert_eq!(
                    (contact.normal, contact.depth, contact.axis),
                    (hit.normal, hit.depth, hit.axis),
                    "pair {index}"
                );
                assert_eq!(contact.points(), reference[next].points(), "pair {index}");
                next += 1;
            }
            (None, None) => {}
            (one, batch) => panic!("pair {index}: one-pair {one:?}, batch {batch:?}"),
        }
    }
    assert_eq!(next, hits.len());
    assert!(hits.len() > 1000, "{} hits", hits.len());
}

/// The points of one manifold never share an id (the solver keys its warm
/// start on them): boxes of every size turned every way over a box and over
/// each other, incident faces hanging over the reference face's corners,
/// so that points are cut twice and corners of the reference face are kept.
#[test]
fn the_points_of_a_manifold_have_distinct_ids() {
    let mut shapes = ShapeSet::new();
    let slab = shapes.add_cuboid(Vec3::new(0.5, 0.2, 0.5)).expect("slab");
    let mut random = rng(2151);
    let mut cut_twice = 0;
    let mut manifolds_seen = 0;
    for _ in 0..3000 {
        let half = Vec3::new(
            random.random_range(0.2..0.9),
            random.random_range(0.05..0.3),
            random.random_range(0.2..0.9),
        );
        let plate = shapes.add_cuboid(half).expect("plate");
        let tilt = random.random_range(-0.05..0.05);
        let bodies = [
            Body::fixed(slab, Vec3::ZERO, Quat::IDENTITY),
            Body::new(
                plate,
                Vec3::new(
                    random.random_range(-0.6..0.6),
                    0.2 + half.y - random.random_range(0.001..0.02),
                    random.random_range(-0.6..0.6),
                ),
                Quat::from_rotation_y(random.random_range(0.0..std::f32::consts::TAU))
                    * Quat::from_rotation_x(tilt),
            ),
        ];
        let pairs = [Pair::new(0, 1), Pair::new(1, 0)];
        let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).expect("batch");
        for hit in batch.hits(&collide_cpu(&batch)) {
            let contact = manifold(&batch, &hit);
            let ids: Vec<u32> = contact.points().iter().map(|p| p.id).collect();
            let unique: std::collections::BTreeSet<u32> = ids.iter().copied().collect();
            assert_eq!(
                unique.len(),
                ids.len(),
                "ids repeat in {contact:?} (plate {half}, {:?})",
                bodies[1]
            );
            manifolds_seen += 1;
            // Points cut by a side plane on a line that is itself a side
            // plane: corners of the reference face.
            cut_twice += ids
                .iter()
                .filter(|&&id| (id & 0xfff) >= 256 && (id & 0x3f) >= 32)
                .count();
        }
    }
    assert!(manifolds_seen > 3000, "{manifolds_seen} manifolds");
    assert!(
        cut_twice > 100,
        "only {cut_twice} corner points: the case is not exercised"
    );
}

/// Sphere pairs answered eight at a time among pairs that are not (a
/// sphere and a box or a hull, whose contacts come from one finding of the
/// hull's nearest feature; two boxes or hulls) keep the pair order and the
/// scalar path's bits: the SAT pair by pair (`Batch::test_pair`) and its
/// manifolds (`manifolds`, the general path), against the batch's hits and
/// contacts, on one thread and on all; where most pairs are spheres and
/// where few are, with boxes and with hulls of 4 to 32 vertices, some of
/// the pairs 10,000 units out.
#[test]
fn sphere_pairs_among_hulls_keep_the_scalar_bits_and_order() {
    for (seed, sphere_fraction, box_fraction) in
        [(1506, 0.85, 0.15), (1507, 0.85, 0.0), (1508, 0.5, 0.25)]
    {
        let mut scene = SceneSpec {
            sphere_fraction,
            box_fraction,
            plate_fraction: 0.0,
            vertices: (4, 32),
            half_extent: 0.6,
            radius: (0.2, 0.5),
            ..SceneSpec::mixed(seed, 20_000)
        }
        .generate();
        let offset = Vec3::new(10_000.0, -7_500.0, 2_500.0);
        for body in scene.bodies.iter_mut().step_by(5) {
            body.position += offset;
        }
        for margin in [0.0, 0.1] {
            let label = format!("seed {seed}, margin {margin}");
            let batch =
                Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
            let scalar: Vec<_> = (0..scene.pairs.len())
                .filter_map(|index| batch.test_pair(index))
                .collect();
            let kinds = |kind: fn(&Axis) -> bool| scalar.iter().filter(|h| kind(&h.axis)).count();
            let spheres = kinds(|axis| *axis == Axis::Centres);
            let hull_sphere = kinds(|axis| {
                matches!(
                    axis,
                    Axis::EdgeA(_) | Axis::EdgeB(_) | Axis::VertexA(_) | Axis::VertexB(_)
                )
            });
            assert!(
                spheres > 500 && hull_sphere > 200 && spheres < scalar.len(),
                "{label}: {spheres} sphere hits, {hull_sphere} at a hull's edge or vertex, of {}",
                scalar.len()
            );
            let key = |h: &gpusat::d3::SatHit| (h.pair, h.axis, h.depth.to_bits());
            let got: Vec<_> = collide_cpu(&batch).iter().map(key).collect();
            let want: Vec<_> = scalar.iter().map(key).collect();
            assert!(got == want, "{label}: the SAT's hits differ");
            assert_fused_contacts_are_the_manifolds(&label, &batch, &scalar);
        }
    }
}

/// Two spheres take their own path in the batch (B's centre in A's frame
/// only, the normal and the point from one centre line): the general
/// path's hits and manifolds (`Batch::hit`, `manifold`) bit for bit, on
/// random, concentric, touching and far (10,000 units out) pairs.
#[test]
fn sphere_pairs_fused_equal_the_general_path_bit_for_bit() {
    let mut scene = SceneSpec {
        sphere_fraction: 1.0,
        box_fraction: 0.0,
        plate_fraction: 0.0,
        half_extent: 0.6,
        radius: (0.2, 0.5),
        ..SceneSpec::mixed(1505, 20_000)
    }
    .generate();
    // Each pair its own two bodies: some concentric (B on A), some far out.
    let (mut bodies, mut pairs) = (Vec::new(), Vec::new());
    for (k, pair) in scene.pairs.iter().enumerate() {
        let (mut a, mut b) = (scene.bodies[pair.a as usize], scene.bodies[pair.b as usize]);
        match k % 7 {
            0 => b.position = a.position,
            1 => {
                let offset = Vec3::new(10_000.0, -7_500.0, 2_500.0);
                a.position += offset;
                b.position += offset;
            }
            _ => {}
        }
        bodies.extend([a, b]);
        pairs.push(Pair::new(2 * k as u32, 2 * k as u32 + 1));
    }
    scene.bodies = bodies;
    scene.pairs = pairs;
    for margin in [0.0, 0.1] {
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
        let sat_hits = collide_cpu(&batch);
        // The centre line as the general path measures it: B's whole frame
        // in A's, its translation's length, less the radii.
        let general: Vec<_> = (0..scene.pairs.len())
            .filter_map(|index| {
                let pair = scene.pairs[index];
                let (a, b) = (pair.a as usize, pair.b as usize);
                let radius =
                    |body: usize| scene.shapes.shapes()[scene.bodies[body].shape as usize].size();
                let centre = gpusat::d3::math::inv_mul_transforms(
                    batch.transforms()[a],
                    batch.transforms()[b],
                )
                .p;
                let separation = gpusat::d3::math::length3(centre) - (radius(a) + radius(b));
                (separation < margin).then_some((index as u32, (-separation).to_bits()))
            })
            .collect();
        let got: Vec<_> = sat_hits
            .iter()
            .map(|h| (h.pair, h.depth.to_bits()))
            .collect();
        assert!(got.len() > 5_000, "margin {margin}: {} hits", got.len());
        assert!(got == general, "margin {margin}: the SAT's hits differ");
        let reference = manifolds(&batch, &batch.hits(&sat_hits));
        let fused = contacts_cpu(&batch);
        assert_eq!(fused.len(), reference.len(), "margin {margin}");
        let bits = |m: &gpusat::d3::Manifold| {
            let points: Vec<_> = m
                .points()
                .iter()
                .map(|p| {
                    (
                        p.point.to_array().map(f32::to_bits),
                        p.depth.to_bits(),
                        p.id,
                    )
                })
                .collect();
            (m.pair, m.normal.to_array().map(f32::to_bits), points)
        };
        let concentric = reference.iter().filter(|m| m.pair % 7 == 0).count();
        assert!(concentric > 100, "margin {margin}: {concentric} concentric");
        for (got, want) in fused.iter().zip(&reference) {
            assert_eq!(
                bits(got),
                bits(want),
                "margin {margin}: {got:?} vs {want:?}"
            );
        }
    }
}
