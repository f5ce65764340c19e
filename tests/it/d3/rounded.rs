//! 3D shapes with a radius (capsules, rounded hulls and boxes, and spheres
//! and plain hulls against them) against an exact double-precision
//! oracle: the depth is the two radii less the cores' signed distance
//! (`oracle3::core_signed_distance`: every vertex against the other core
//! and every pair of edges when apart, the unpruned SAT when overlapping),
//! on seeded pairs deep, resting, apart within the margin and far apart,
//! near the origin and 10,000 units out; the batch against the one-pair
//! call; properties; hand-worked manifolds; the GPU's refusal.

use crate::common::oracle3::{distance_to_placed, oracle_depth, overlap_along, place};
use glam::{Quat, Vec3};
use gpusat::Pair;
use gpusat::d3::{
    Axis, Batch, Body, Capsule, Hull, RoundedHull, Shape, ShapeSet, Sphere, Transform, collide_cpu,
    collide_shapes, manifolds,
};
use gpusat::generate::d3::{random_direction, random_hull, random_rotation};
use gpusat::generate::{SceneRng, rng};
use rand::RngExt;

use super::assert_fused_contacts_are_the_manifolds;

/// Depth, and overlap along the normal, against the oracle: relative to
/// the sum of the pair's sizes.
const DEPTH_TOLERANCE: f64 = 1e-5;
/// The same for a face axis of a hull core: a face wins near-ties with an
/// edge pair (or, apart, with the cores' nearest features) by
/// `EDGE_TOLERANCE x (size_a + size_b)` (2e-5), as for plain hulls, so the
/// depth may be that much off.
const HULL_AXIS_TOLERANCE: f64 = 2.5e-5;
/// Pairs this close (relative) to the margin may be reported or not.
const TOUCH_TOLERANCE: f64 = 1e-5;

/// A random shape of one kind: 0 capsule, 1 rounded hull, 2 rounded box,
/// 3 plain hull, 4 sphere, 5 plain box.
fn random_shape(random: &mut SceneRng, kind: u32) -> Shape {
    let size = random.random_range(0.3..1.5f32);
    let radius = random.random_range(0.02..0.4f32) * size;
    match kind {
        0 => {
            let direction = random_direction(random);
            Capsule::new(-0.5 * size * direction, 0.5 * size * direction, radius)
                .expect("a capsule")
                .into()
        }
        1 => {
            let count = random.random_range(4..=32);
            let core = random_hull(random, count, 0.5 * size, 1.0);
            RoundedHull::from_hull(core, radius)
                .expect("a rounded hull")
                .into()
        }
        2 => {
            let half = Vec3::new(
                random.random_range(0.1..0.5f32),
                random.random_range(0.1..0.5f32),
                random.random_range(0.1..0.5f32),
            ) * size;
            RoundedHull::cuboid(half, radius)
                .expect("a rounded box")
                .into()
        }
        3 => {
            let count = random.random_range(4..=24);
            random_hull(random, count, 0.5 * size, 1.0).into()
        }
        4 => Sphere::new(0.5 * size).expect("a sphere").into(),
        _ => Hull::cuboid(Vec3::splat(0.4 * size)).expect("a box").into(),
    }
}

/// `count` pairs, each of its own two bodies: A at `offset`, B around it
/// at a random distance (deep, resting, within the margin or apart), at
/// least one of the two a capsule or a rounded hull.
fn rounded_pairs(seed: u64, count: usize, offset: Vec3) -> (ShapeSet, Vec<Body>, Vec<Pair>) {
    let mut random = rng(seed);
    let mut shapes = ShapeSet::new();
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    for k in 0..count {
        let kind_a = random.random_range(0..3);
        let kind_b = random.random_range(0..6);
        let (kind_a, kind_b) = if random.random_bool(0.5) {
            (kind_a, kind_b)
        } else {
            (kind_b, kind_a)
        };
        let a = shapes.push(random_shape(&mut random, kind_a));
        let b = shapes.push(random_shape(&mut random, kind_b));
        let reach = shapes.get(a).expect("a").bounding_radius()
            + shapes.get(b).expect("b").bounding_radius();
        let distance = reach * random.random_range(0.0..1.1f32);
        let direction = random_direction(&mut random);
        bodies.push(Body::new(a, offset, random_rotation(&mut random)));
        bodies.push(Body::new(
            b,
            offset + distance * direction,
            random_rotation(&mut random),
        ));
        pairs.push(Pair::new(2 * k as u32, 2 * k as u32 + 1));
    }
    (shapes, bodies, pairs)
}

#[derive(Debug, Default)]
struct Tally {
    pairs: usize,
    reported: usize,
    overlapping: usize,
    apart_reported: usize,
    feature_pairs: usize,
    worst_depth: f64,
}

/// Every pair against the oracle, and the batch against the one-pair call.
fn check(what: &str, shapes: &ShapeSet, bodies: &[Body], pairs: &[Pair], margin: f32) -> Tally {
    let batch = Batch::new(shapes, bodies, pairs, margin).expect("valid batch");
    let hits = batch.hits(&collide_cpu(&batch));
    let contacts = manifolds(&batch, &hits);
    let mut reported = vec![None; pairs.len()];
    for (hit, contact) in hits.iter().zip(&contacts) {
        reported[hit.pair as usize] = Some((*hit, *contact));
    }
    let mut tally = Tally {
        pairs: pairs.len(),
        ..Tally::default()
    };
    let margin = f64::from(margin);
    for (index, pair) in pairs.iter().enumerate() {
        let (body_a, body_b) = (&bodies[pair.a as usize], &bodies[pair.b as usize]);
        let (shape_a, shape_b) = (
            shapes.get(body_a.shape).expect("a"),
            shapes.get(body_b.shape).expect("b"),
        );
        let (placed_a, placed_b) = (place(shapes, body_a), place(shapes, body_b));
        let scale = f64::from(shape_a.size() + shape_b.size());
        let exact = oracle_depth(&placed_a, &placed_b);
        let what = || {
            format!(
                "{what} pair {index}: {} at {} {:?} against {} at {} {:?}, the oracle's depth \
                 {exact}",
                describe(shape_a),
                body_a.position,
                body_a.rotation,
                describe(shape_b),
                body_b.position,
                body_b.rotation
            )
        };
        let single = collide_shapes(
            shape_a,
            &body_a.transform(),
            shape_b,
            &body_b.transform(),
            batch.margin(),
        );
        assert_eq!(
            single.map(|c| (c.depth, c.normal, c.axis)),
            reported[index].map(|(h, _)| (h.depth, h.normal, h.axis)),
            "{}: collide_shapes and the batch differ",
            what()
        );
        if exact > 0.0 {
            tally.overlapping += 1;
        }
        if (exact + margin).abs() <= TOUCH_TOLERANCE * scale {
            continue;
        }
        let Some((hit, contact)) = reported[index] else {
            assert!(exact < -margin, "{}: not reported", what());
            continue;
        };
        tally.reported += 1;
        if exact <= 0.0 {
            tally.apart_reported += 1;
        }
        if matches!(
            hit.axis,
            Axis::VertexEdge(..) | Axis::EdgeVertex(..) | Axis::Vertices(..)
        ) {
            tally.feature_pairs += 1;
        }
        let depth = f64::from(hit.depth);
        assert!(exact > -margin, "{}: reported with depth {depth}", what());
        let error = (depth - exact).abs();
        tally.worst_depth = tally.worst_depth.max(error / scale);
        let tolerance = if matches!(hit.axis, Axis::FaceA(_) | Axis::FaceB(_)) {
            HULL_AXIS_TOLERANCE
        } else {
            DEPTH_TOLERANCE
        };
        assert!(
            error <= tolerance * scale,
            "{}: depth {depth}, axis {:?}",
            what(),
            hit.axis
        );
        let normal = hit.normal.as_dvec3();
        assert!(
            (normal.length() - 1.0).abs() < 1e-5,
            "{}: normal {normal}",
            what()
        );
        let overlap = overlap_along(&placed_a, &placed_b, normal);
        assert!(
            (overlap - depth).abs() <= tolerance * scale,
            "{}: overlap along {normal} is {overlap}, depth {depth}, axis {:?}",
            what(),
            hit.axis
        );
        // Every contact point within the depth (its own, for a pair apart)
        // of both shapes, and a tolerance for a world position in single
        // precision.
        let position_tolerance = DEPTH_TOLERANCE * scale
            + 4.0 * f64::from(f32::EPSILON) * body_a.position.length() as f64;
        assert!(!contact.points().is_empty(), "{}: no contact point", what());
        for point in contact.points() {
            let p = point.point.as_dvec3();
            let allowed = depth.abs().max(f64::from(point.depth).abs()) + position_tolerance;
            for (shape, name) in [(&placed_a, "A"), (&placed_b, "B")] {
                let distance = distance_to_placed(p, shape);
                assert!(
                    distance <= allowed,
                    "{}: contact {p} is {distance} from {name} (allowed {allowed}), axis {:?}",
                    what(),
                    hit.axis
                );
            }
            assert!(
                f64::from(point.depth) <= depth + position_tolerance,
                "{}: a contact deeper ({}) than the pair ({depth})",
                what(),
                point.depth
            );
        }
    }
    eprintln!("{what}: {tally:?}");
    tally
}

/// A shape in a few words: its kind, vertices, size and radius.
fn describe(shape: &Shape) -> String {
    let vertices = match shape {
        Shape::Hull(hull) => hull.vertices().len(),
        Shape::RoundedHull(rounded) => rounded.hull().vertices().len(),
        Shape::Capsule(_) => 2,
        Shape::Sphere(_) => 1,
    };
    format!(
        "{} ({vertices} core vertices, size {}, radius {})",
        shape.kind_name(),
        shape.size(),
        shape.radius()
    )
}

#[test]
fn capsules_and_rounded_hulls_agree_with_the_oracle() {
    let mut pairs = 0;
    for (seed, margin) in [(4101, 0.0), (4102, 0.05), (4103, 0.2)] {
        let (shapes, bodies, pairs_) = rounded_pairs(seed, 2500, Vec3::ZERO);
        let tally = check(&format!("seed {seed}"), &shapes, &bodies, &pairs_, margin);
        assert!(tally.overlapping > 500, "{tally:?}");
        assert!(tally.feature_pairs > 20, "{tally:?}");
        pairs += tally.pairs;
    }
    let (shapes, bodies, pairs_) = rounded_pairs(4104, 2500, Vec3::new(1e4, -1e4, 5e3));
    let tally = check("10,000 units out", &shapes, &bodies, &pairs_, 0.1);
    assert!(tally.apart_reported > 50, "{tally:?}");
    pairs += tally.pairs;
    assert!(pairs >= 10_000, "{pairs} pairs");
}

/// Resting pairs: B moved towards A along a random direction until the
/// two touch (each step the oracle's gap, which cannot overshoot), then
/// nudged by up to 1% of their sizes in or out: the cores' closest
/// features are vertices, edges and faces nearly touching.
#[test]
fn resting_pairs_agree_with_the_oracle() {
    let mut random = rng(4105);
    let (shapes, mut bodies, pairs) = rounded_pairs(4106, 2000, Vec3::ZERO);
    for pair in &pairs {
        let a = bodies[pair.a as usize];
        let mut b = bodies[pair.b as usize];
        let direction = random_direction(&mut random);
        let sizes = shapes.get(a.shape).expect("a").bounding_radius()
            + shapes.get(b.shape).expect("b").bounding_radius();
        let mut along = 1.01 * sizes;
        for _ in 0..6 {
            b.position = a.position + along * direction;
            let gap = -oracle_depth(&place(&shapes, &a), &place(&shapes, &b));
            if gap <= 0.0 {
                break;
            }
            along -= gap as f32;
        }
        along += random.random_range(-0.01..0.01f32) * sizes;
        bodies[pair.b as usize].position = a.position + along * direction;
    }
    let tally = check("resting", &shapes, &bodies, &pairs, 0.02);
    assert!(tally.reported > 1500, "{tally:?}");
}

/// Swapping A and B flips the normal and keeps the depth; moving both
/// bodies together changes nothing beyond rounding; pushing B by
/// `normal x depth x (1 + 1e-3)` separates them.
#[test]
fn properties_hold_for_rounded_pairs() {
    let (shapes, bodies, pairs) = rounded_pairs(4107, 3000, Vec3::ZERO);
    let mut random = rng(4108);
    let mut checked = 0;
    for pair in &pairs {
        let (a, b) = (&bodies[pair.a as usize], &bodies[pair.b as usize]);
        let (shape_a, shape_b) = (
            shapes.get(a.shape).expect("a"),
            shapes.get(b.shape).expect("b"),
        );
        let scale = shape_a.size() + shape_b.size();
        let Some(forward) = collide_shapes(shape_a, &a.transform(), shape_b, &b.transform(), 0.0)
        else {
            continue;
        };
        let what = format!(
            "{} at {a:?} against {} at {b:?}",
            describe(shape_a),
            describe(shape_b)
        );
        let backward = collide_shapes(shape_b, &b.transform(), shape_a, &a.transform(), 0.0);
        if forward.depth > 1e-4 * scale {
            let backward = backward.unwrap_or_else(|| panic!("{what}: not reported swapped"));
            assert!(
                (backward.depth - forward.depth).abs() <= 2e-5 * scale,
                "{what}: depth {} swapped, {} forward",
                backward.depth,
                forward.depth
            );
        }
        let shift = Vec3::new(
            random.random_range(-50.0..50.0),
            random.random_range(-50.0..50.0),
            random.random_range(-50.0..50.0),
        );
        let moved = |body: &Body| Transform::new(body.position + shift, body.rotation);
        if let Some(shifted) = collide_shapes(shape_a, &moved(a), shape_b, &moved(b), 0.0) {
            assert!(
                (shifted.depth - forward.depth).abs() <= 2e-5 * scale,
                "{what}: depth {} moved by {shift}, {} in place",
                shifted.depth,
                forward.depth
            );
        } else {
            assert!(
                forward.depth <= 2e-5 * scale,
                "{what}: lost when moved by {shift}"
            );
        }
        if forward.depth > 0.0 {
            let pushed = Transform::new(
                b.position + forward.normal * forward.depth * 1.001 + forward.normal * 1e-6 * scale,
                b.rotation,
            );
            let mut at = *b;
            at.position = pushed.p;
            let after = oracle_depth(&place(&shapes, a), &place(&shapes, &at));
            assert!(
                after <= 2e-5 * f64::from(scale),
                "{what}: still {after} deep after the push along {} by {}",
                forward.normal,
                forward.depth
            );
            checked += 1;
        }
    }
    assert!(checked > 500, "{checked} pushed");
}

/// A unit capsule lying across a box's top face: two contacts, at its ends.
#[test]
fn a_capsule_lying_on_a_box_touches_at_its_two_ends() {
    let ground = Shape::from(Hull::cuboid(Vec3::new(2.0, 0.5, 2.0)).expect("a box"));
    let capsule = Shape::from(
        Capsule::new(Vec3::new(-0.5, 0.0, 0.0), Vec3::new(0.5, 0.0, 0.0), 0.25).expect("a capsule"),
    );
    let below = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    let above = Transform::new(Vec3::new(0.3, 0.74, -0.2), Quat::from_rotation_y(0.4));
    let contact = collide_shapes(&ground, &below, &capsule, &above, 0.0).expect("touching");
    assert_eq!(contact.axis, Axis::FaceA(contact_face(&ground, Vec3::Y)));
    assert_eq!(contact.normal, Vec3::Y);
    assert!(
        (contact.depth - 0.01).abs() < 1e-6,
        "depth {}",
        contact.depth
    );
    let points = contact.points();
    assert_eq!(points.len(), 2, "{points:?}");
    for point in points {
        assert!((point.depth - 0.01).abs() < 1e-6, "{point:?}");
        // Midway between the box's top (0.5) and the capsule's bottom (0.49).
        assert!((point.point.y - 0.495).abs() < 1e-6, "{point:?}");
        let across = (point.point - above.p) * Vec3::new(1.0, 0.0, 1.0);
        assert!(
            (across.length() - 0.5).abs() < 1e-5,
            "{point:?} not at an end"
        );
    }
}

/// The face of `shape` (a plain hull) whose normal is `normal`.
fn contact_face(shape: &Shape, normal: Vec3) -> u32 {
    let hull = shape.hull().expect("a hull");
    hull.normals()
        .iter()
        .position(|n| (*n - normal).length() < 1e-6)
        .expect("a face with that normal") as u32
}

/// A rounded box resting on a box: four contacts, midway between the box's
/// top and the rounded box's flat bottom.
#[test]
fn a_rounded_box_resting_on_a_box_touches_at_four_points() {
    let ground = Shape::from(Hull::cuboid(Vec3::new(2.0, 0.5, 2.0)).expect("a box"));
    let rounded = Shape::from(RoundedHull::cuboid(Vec3::splat(0.3), 0.1).expect("a rounded box"));
    let below = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    let above = Transform::new(Vec3::new(0.2, 0.895, 0.1), Quat::from_rotation_y(0.3));
    let contact = collide_shapes(&ground, &below, &rounded, &above, 0.0).expect("touching");
    assert_eq!(contact.normal, Vec3::Y);
    assert!(
        (contact.depth - 0.005).abs() < 1e-5,
        "depth {}",
        contact.depth
    );
    let points = contact.points();
    assert_eq!(points.len(), 4, "{points:?}");
    for point in points {
        assert!((point.depth - 0.005).abs() < 1e-5, "{point:?}");
        assert!((point.point.y - 0.4975).abs() < 1e-5, "{point:?}");
    }
}

/// Two capsules crossed at right angles, one on the other: one contact,
/// on the line between their axes.
#[test]
fn crossed_capsules_touch_at_one_point() {
    let capsule = Shape::from(
        Capsule::new(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), 0.2).expect("a capsule"),
    );
    let below = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    let above = Transform::new(
        Vec3::new(0.1, 0.38, 0.2),
        Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
    );
    let contact = collide_shapes(&capsule, &below, &capsule, &above, 0.0).expect("touching");
    assert!(
        (contact.normal - Vec3::Y).length() < 1e-6,
        "{:?}",
        contact.normal
    );
    assert!(
        (contact.depth - 0.02).abs() < 1e-6,
        "depth {}",
        contact.depth
    );
    let points = contact.points();
    assert_eq!(points.len(), 1, "{points:?}");
    assert!(
        (points[0].point - Vec3::new(0.1, 0.19, 0.0)).length() < 1e-5,
        "{points:?}"
    );
}

/// Two capsules side by side: two contacts, at the ends of their overlap.
#[test]
fn parallel_capsules_touch_at_two_points() {
    let capsule = Shape::from(
        Capsule::new(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), 0.2).expect("a capsule"),
    );
    let below = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    let above = Transform::new(Vec3::new(0.5, 0.39, 0.0), Quat::IDENTITY);
    let contact = collide_shapes(&capsule, &below, &capsule, &above, 0.0).expect("touching");
    assert!(
        (contact.normal - Vec3::Y).length() < 1e-6,
        "{:?}",
        contact.normal
    );
    let points = contact.points();
    assert_eq!(points.len(), 2, "{points:?}");
    let mut xs: Vec<f32> = points.iter().map(|p| p.point.x).collect();
    xs.sort_by(f32::total_cmp);
    assert!(
        (xs[0] + 0.5).abs() < 1e-5 && (xs[1] - 1.0).abs() < 1e-5,
        "{points:?}"
    );
}

/// A sphere near a rounded box's corner: the closest feature is the core's
/// vertex; the normal runs from it to the centre.
#[test]
fn a_sphere_at_a_rounded_corner_takes_the_corner_direction() {
    let rounded = Shape::from(RoundedHull::cuboid(Vec3::splat(0.5), 0.1).expect("a rounded box"));
    let ball = Shape::from(Sphere::new(0.2).expect("a sphere"));
    let origin = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    let direction = Vec3::ONE.normalize();
    let at = Transform::new(Vec3::splat(0.5) + direction * 0.29, Quat::IDENTITY);
    let contact = collide_shapes(&rounded, &origin, &ball, &at, 0.0).expect("touching");
    assert!(
        (contact.normal - direction).length() < 1e-5,
        "{:?}",
        contact.normal
    );
    assert!(
        (contact.depth - 0.01).abs() < 1e-5,
        "depth {}",
        contact.depth
    );
}

/// Two capsules whose cores touch at an end (a T): the normal is the
/// normal of both cores' directions and the depth the two radii.
#[test]
fn capsules_touching_end_to_side_take_the_plane_of_both() {
    let a = Shape::from(
        Capsule::new(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), 0.25).expect("a"),
    );
    let b = Shape::from(Capsule::new(Vec3::new(0.0, 0.0, -1.0), Vec3::ZERO, 0.25).expect("b"));
    let origin = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    let contact = collide_shapes(&a, &origin, &b, &origin, 0.0).expect("touching");
    assert!(
        (contact.normal.y.abs() - 1.0).abs() < 1e-6,
        "{:?}",
        contact.normal
    );
    assert!(
        (contact.depth - 0.5).abs() < 1e-6,
        "depth {}",
        contact.depth
    );
}

/// A capsule parallel to a hull edge, set off from it in directions across
/// the edge's normal cone (where the SAT skips the parallel edge pair),
/// from overlapping to apart within the margin: the oracle's depth, and
/// that overlap along the normal.
#[test]
fn capsules_parallel_to_a_hull_edge_agree_with_the_oracle() {
    // A wedge: its top edge along z at (0, 1), faces at +-30 degrees.
    let wedge = [
        Vec3::new(-1.0, 0.0, -1.0),
        Vec3::new(1.0, 0.0, -1.0),
        Vec3::new(0.0, 1.0, -1.0),
        Vec3::new(-1.0, 0.0, 1.0),
        Vec3::new(1.0, 0.0, 1.0),
        Vec3::new(0.0, 1.0, 1.0),
    ];
    let mut shapes = ShapeSet::new();
    let hull = shapes.add_hull(&wedge).expect("a wedge");
    let capsule = shapes
        .add_capsule(Vec3::new(0.0, 0.0, -0.5), Vec3::new(0.0, 0.0, 0.5), 0.2)
        .expect("a capsule");
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    let (left, right) = (
        Vec3::new(-1.0, 1.0, 0.0).normalize(),
        Vec3::new(1.0, 1.0, 0.0).normalize(),
    );
    for k in 0..=40 {
        // Across the edge's normal cone: from the left face's normal to the right's.
        let t = k as f32 / 40.0;
        let direction = ((1.0 - t) * left + t * right).normalize();
        for gap in [0.15f32, 0.19, 0.2, 0.21, 0.24] {
            let first = bodies.len() as u32;
            bodies.push(Body::new(hull, Vec3::ZERO, Quat::IDENTITY));
            bodies.push(Body::new(
                capsule,
                Vec3::new(0.0, 1.0, 0.3) + gap * direction,
                Quat::IDENTITY,
            ));
            pairs.push(Pair::new(first, first + 1));
        }
    }
    let tally = check("parallel to an edge", &shapes, &bodies, &pairs, 0.1);
    assert!(tally.reported > 150, "{tally:?}");
}

/// A rounded box resting on a box (4 points) and a capsule lying on it (2)
/// keep their contact ids, all distinct, under small motions.
#[test]
fn rounded_contact_ids_stay_the_same_under_small_motion() {
    let floor = Shape::from(Hull::cuboid(Vec3::new(3.0, 0.5, 3.0)).expect("floor"));
    let crate_ = Shape::from(RoundedHull::cuboid(Vec3::splat(0.35), 0.05).expect("crate"));
    let log = Shape::from(
        Capsule::new(Vec3::new(-0.5, 0.0, 0.0), Vec3::new(0.5, 0.0, 0.0), 0.15).expect("log"),
    );
    let below = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    for (shape, height, count) in [(&crate_, 0.89f32, 4usize), (&log, 0.64, 2)] {
        let ids = |offset: Vec3, yaw: f32| {
            let above = Transform::new(
                Vec3::new(0.3, height, -0.2) + offset,
                Quat::from_rotation_y(yaw),
            );
            let contact = collide_shapes(&floor, &below, shape, &above, 0.0).expect("touching");
            let mut ids: Vec<u32> = contact.points().iter().map(|p| p.id).collect();
            ids.sort_unstable();
            ids
        };
        let first = ids(Vec3::ZERO, 0.3);
        assert_eq!(first.len(), count, "{first:?}");
        let unique: std::collections::BTreeSet<u32> = first.iter().copied().collect();
        assert_eq!(unique.len(), count, "ids repeat: {first:?}");
        for step in 1..20 {
            let t = step as f32 * 1e-3;
            assert_eq!(
                ids(Vec3::new(t, -0.1 * t, 0.5 * t), 0.3 + t),
                first,
                "step {step}"
            );
        }
    }
}

/// The fused contacts (the SAT, the normal and the manifold pair by pair,
/// with capsules and spheres' points, and any pair of the cores' features,
/// from one finding of the closest points) are, bit for bit and in pair
/// order, the SAT's hits completed and their manifolds built one after the
/// other, on one thread and on all: a scene of capsules, spheres, boxes,
/// hulls and rounded hulls and boxes, touching, apart within the margin and
/// overlapping, with every axis kind of the cores' features met.
#[test]
fn fused_contacts_of_shapes_with_a_radius_are_the_manifolds_of_the_hits() {
    use gpusat::generate::d3::SceneSpec;

    for (seed, margin) in [(41, 0.0), (42, 0.05)] {
        let scene = SceneSpec {
            vertices: (4, 24),
            sphere_fraction: 0.25,
            box_fraction: 0.2,
            plate_fraction: 0.0,
            capsule_fraction: 0.3,
            rounded_fraction: 0.4,
            half_extent: 2.0,
            ..SceneSpec::mixed(seed, 60_000)
        }
        .generate();
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
        let hits = collide_cpu(&batch);
        let features = hits
            .iter()
            .filter(|h| {
                matches!(
                    h.axis,
                    Axis::VertexEdge(..) | Axis::EdgeVertex(..) | Axis::Vertices(..)
                )
            })
            .count();
        assert!(
            features > 1_000,
            "seed {seed}: {features} hits at a pair of features"
        );
        assert_fused_contacts_are_the_manifolds(&format!("seed {seed}"), &batch, &hits);
    }
}
