//! Shapes with a radius (capsules, segments, rounded polygons) against an
//! exact double-precision oracle: the depth is the two radii less the
//! signed distance between the cores (`common::core_signed_distance`, from
//! the Minkowski difference), on seeded pairs of every kind with a rounded
//! or segment side, deep, resting, apart within the margin and far apart,
//! near the origin and 10,000 units out; the batch paths against the
//! one-pair path; hand-worked cases.

use crate::common::{WorldShape, distance_to_shape, oracle_depth, overlap_along, world_shape};
use glam::Vec2;
use gpusat::generate::{SceneRng, random_polygon, rng};
use gpusat::{
    Batch, Body, Capsule, Circle, Pair, Polygon, Segment, Shape, ShapeSet, collide_cpu,
    collide_scalar, collide_shapes, contacts_cpu, manifolds,
};
use rand::RngExt;

/// Depth, and overlap along the normal, against the oracle: relative to
/// the pair's size.
const DEPTH_TOLERANCE: f64 = 1e-5;
/// Pairs this close (relative) to the margin may be reported or not.
const TOUCH_TOLERANCE: f64 = 1e-5;

/// A random shape of one kind: 0 capsule, 1 segment, 2 rounded polygon,
/// 3 plain polygon, 4 circle.
fn random_shape(random: &mut SceneRng, kind: u32) -> Shape {
    let size = random.random_range(0.3..1.5f32);
    let direction = Vec2::from_angle(random.random_range(0.0..std::f32::consts::TAU));
    let vertices = random.random_range(3..=8);
    match kind {
        0 => Capsule::new(
            -0.5 * size * direction,
            0.5 * size * direction,
            random.random_range(0.05..0.5f32),
        )
        .expect("a capsule")
        .into(),
        1 => Segment::new(-0.5 * size * direction, 0.5 * size * direction)
            .expect("a segment")
            .into(),
        2 => {
            let core = random_polygon(random, vertices, 0.5 * size);
            Polygon::rounded(core.vertices(), random.random_range(0.02..0.3f32))
                .expect("a rounded polygon")
                .into()
        }
        3 => random_polygon(random, vertices, 0.5 * size).into(),
        _ => Circle::new(0.5 * size).expect("a circle").into(),
    }
}

/// `count` pairs, each of its own two bodies: A at `offset` with a random
/// angle, B around it at a random distance (deep, resting, within the
/// margin or apart), at least one of the two a capsule, segment or rounded
/// polygon.
pub(crate) fn rounded_pairs(
    seed: u64,
    count: usize,
    offset: Vec2,
) -> (ShapeSet, Vec<Body>, Vec<Pair>) {
    let mut random = rng(seed);
    let mut shapes = ShapeSet::new();
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    for k in 0..count {
        let kind_a = random.random_range(0..3);
        let kind_b = random.random_range(0..5);
        let (kind_a, kind_b) = if random.random_bool(0.5) {
            (kind_a, kind_b)
        } else {
            (kind_b, kind_a)
        };
        let a = shapes.push(random_shape(&mut random, kind_a));
        let b = shapes.push(random_shape(&mut random, kind_b));
        let reach = shapes.get(a).expect("a").bounding_radius()
            + shapes.get(b).expect("b").bounding_radius();
        // Mostly within touching range, some deep, some just apart.
        let distance = reach * random.random_range(0.0..1.15f32);
        let direction = Vec2::from_angle(random.random_range(0.0..std::f32::consts::TAU));
        let angle = |random: &mut SceneRng| random.random_range(-3.2..3.2f32);
        bodies.push(Body::new(a, offset, angle(&mut random)));
        bodies.push(Body::new(
            b,
            offset + distance * direction,
            angle(&mut random),
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
    vertex_pairs: usize,
}

/// Every pair of `rounded_pairs(seed, ..)` against the oracle, and the
/// batch paths against each other and the one-pair call.
fn check(seed: u64, count: usize, offset: Vec2, margin: f32) -> Tally {
    let (shapes, bodies, pairs) = rounded_pairs(seed, count, offset);
    check_pairs(seed, &shapes, &bodies, &pairs, margin)
}

/// [`check`] on given pairs (`seed` names them in messages).
fn check_pairs(
    seed: u64,
    shapes: &ShapeSet,
    bodies: &[Body],
    pairs: &[Pair],
    margin: f32,
) -> Tally {
    let batch = Batch::new(shapes, bodies, pairs, margin).expect("valid batch");
    let sat_hits = collide_cpu(&batch);
    assert_eq!(
        sat_hits,
        collide_scalar(&batch),
        "seed {seed}: the lanes and the scalar path differ"
    );
    let hits = batch.hits(&sat_hits);
    let contacts = manifolds(&batch, &hits);
    assert_eq!(
        contacts,
        contacts_cpu(&batch),
        "seed {seed}: the pair-by-pair contacts differ"
    );
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
        let (shape_a, shape_b) = (world_shape(shapes, body_a), world_shape(shapes, body_b));
        let scale = f64::from(
            shapes.get(body_a.shape).expect("a").size()
                + shapes.get(body_b.shape).expect("b").size(),
        );
        let exact = oracle_depth(&shape_a, &shape_b);
        let what = || {
            format!(
                "seed {seed} pair {index}: {:?} at {} against {:?} at {}, oracle depth {exact}",
                shapes.get(body_a.shape),
                body_a.position,
                shapes.get(body_b.shape),
                body_b.position
            )
        };
        // The one-pair call gives the batch's answer.
        let single = collide_shapes(
            shapes.get(body_a.shape).expect("a"),
            &body_a.transform(),
            shapes.get(body_b.shape).expect("b"),
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
        let feature_count = |shape: &WorldShape| match shape {
            WorldShape::Rounded { core, .. } => core.len() as u32,
            WorldShape::Polygon(vertices) => vertices.len() as u32,
            WorldShape::Circle { .. } => 0,
        };
        let owner_count = match hit.axis.owner {
            gpusat::Owner::A => feature_count(&shape_a),
            gpusat::Owner::B => feature_count(&shape_b),
        };
        if owner_count > 0 && hit.axis.feature >= 2 * owner_count {
            tally.vertex_pairs += 1;
        }
        let depth = f64::from(hit.depth);
        assert!(exact > -margin, "{}: reported with depth {depth}", what());
        assert!(
            (depth - exact).abs() <= DEPTH_TOLERANCE * scale,
            "{}: depth {depth}, axis {:?}",
            what(),
            hit.axis
        );
        let normal = hit.normal.as_dvec2();
        assert!(
            (normal.length() - 1.0).abs() < 1e-6,
            "{}: normal {normal}",
            what()
        );
        let overlap = overlap_along(&shape_a, &shape_b, normal);
        assert!(
            (overlap - depth).abs() <= DEPTH_TOLERANCE * scale,
            "{}: overlap along {normal} is {overlap}, depth {depth}, axis {:?}",
            what(),
            hit.axis
        );
        // Every contact point within the pair's depth (or its own, for a
        // point of a pair apart) of both rounded shapes (inside counts as
        // 0), and a tolerance: the pair's, and the rounding of a world
        // position in single precision.
        assert!(!contact.points().is_empty(), "{}: no contact point", what());
        for point in contact.points() {
            let p = point.point.as_dvec2();
            let allowance = depth.abs().max(f64::from(point.depth).abs())
                + DEPTH_TOLERANCE * scale
                + f64::from(f32::EPSILON) * p.length();
            for shape in [&shape_a, &shape_b] {
                let distance = distance_to_shape(p, shape);
                assert!(
                    distance <= allowance,
                    "{}: contact {point:?} is {distance} from a surface",
                    what()
                );
            }
            assert!(
                f64::from(point.depth) <= depth + DEPTH_TOLERANCE * scale,
                "{}: contact {point:?} deeper than the pair ({depth})",
                what()
            );
        }
    }
    tally
}

#[test]
fn rounded_shapes_near_the_origin_agree_with_the_oracle() {
    let tally = check(4101, 6_000, Vec2::ZERO, 0.05);
    eprintln!("{tally:?}");
    assert!(tally.overlapping > tally.pairs / 3, "{tally:?}");
    assert!(tally.apart_reported > 50, "{tally:?}");
    assert!(tally.vertex_pairs > 50, "{tally:?}");
}

#[test]
fn rounded_shapes_ten_thousand_units_out_agree_with_the_oracle() {
    let tally = check(4102, 4_000, Vec2::new(10_000.0, -10_000.0), 0.05);
    eprintln!("{tally:?}");
    assert!(tally.overlapping > tally.pairs / 3, "{tally:?}");
}

#[test]
fn rounded_shapes_without_a_margin_report_only_overlaps() {
    let tally = check(4103, 2_000, Vec2::new(-3.0, 7.0), 0.0);
    assert_eq!(tally.apart_reported, 0, "{tally:?}");
}

/// A capsule lying on a box: two contacts, at its ends, each as deep as
/// the pair; two crossed capsules: one.
#[test]
fn hand_worked_capsule_cases() {
    let ground = Shape::from(Polygon::rectangle(2.0, 0.5).expect("a box"));
    let capsule = Shape::from(
        Capsule::new(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.25).expect("a capsule"),
    );
    // The capsule's core 0.7 above the box's top face (y = 0.5): 0.05 deep.
    let on_top = gpusat::Transform::new(Vec2::new(0.3, 0.5 + 0.2), 0.0);
    let contact = collide_shapes(
        &ground,
        &gpusat::Transform::IDENTITY,
        &capsule,
        &on_top,
        0.0,
    )
    .expect("the capsule rests in the box");
    assert!((contact.depth - 0.05).abs() < 1e-6, "{contact:?}");
    assert!((contact.normal - Vec2::Y).length() < 1e-6, "{contact:?}");
    let points = contact.points();
    assert_eq!(points.len(), 2, "{contact:?}");
    for (point, x) in points.iter().zip([-0.2, 0.8]) {
        assert!((point.depth - 0.05).abs() < 1e-6, "{point:?}");
        // Midway between the box's top (0.5) and the capsule's bottom (0.45).
        assert!(
            (point.point - Vec2::new(x, 0.475)).length() < 1e-5,
            "{point:?} against ({x}, 0.475)"
        );
    }

    // Two capsules crossed at right angles: their cores cross, half a core
    // and both radii deep (1.0), one point, at the crossing.
    let other = Shape::from(
        Capsule::new(Vec2::new(0.0, -0.5), Vec2::new(0.0, 0.5), 0.25).expect("a capsule"),
    );
    let crossed = collide_shapes(
        &capsule,
        &gpusat::Transform::IDENTITY,
        &other,
        &gpusat::Transform::new(Vec2::new(0.0, 0.0), 0.0),
        0.0,
    )
    .expect("crossed capsules overlap");
    assert!((crossed.depth - 1.0).abs() < 1e-6, "{crossed:?}");
    assert_eq!(crossed.points().len(), 1, "{crossed:?}");
    assert!(crossed.points()[0].point.length() < 1e-6, "{crossed:?}");
    let apart = collide_shapes(
        &capsule,
        &gpusat::Transform::IDENTITY,
        &Shape::from(
            Capsule::new(Vec2::new(0.0, 0.0), Vec2::new(0.0, 1.0), 0.25).expect("a capsule"),
        ),
        &gpusat::Transform::new(Vec2::new(0.0, 0.4), 0.0),
        0.0,
    )
    .expect("the end caps overlap");
    assert!((apart.depth - 0.1).abs() < 1e-6, "{apart:?}");
    assert!((apart.normal - Vec2::Y).length() < 1e-6, "{apart:?}");
    assert_eq!(apart.points().len(), 1, "{apart:?}");
    assert!(
        (apart.points()[0].point - Vec2::new(0.0, 0.2)).length() < 1e-6,
        "{apart:?}"
    );

    // Two end caps meeting end to end along a diagonal: a vertex pair, its
    // normal along the line of the two core ends.
    let diagonal = Vec2::new(1.0, 1.0).normalize();
    let end_to_end = collide_shapes(
        &capsule,
        &gpusat::Transform::IDENTITY,
        &capsule,
        &gpusat::Transform::new(Vec2::new(1.0, 0.0) + 0.45 * diagonal, 0.0),
        0.0,
    )
    .expect("the caps overlap by 0.05");
    assert!((end_to_end.depth - 0.05).abs() < 1e-6, "{end_to_end:?}");
    assert!(
        (end_to_end.normal - diagonal).length() < 1e-6,
        "{end_to_end:?}"
    );
}

/// Shapes with a radius are validated, errors naming the reason.
#[test]
fn bad_rounded_shapes_are_refused_with_a_reason() {
    let message = |err: gpusat::ShapeError| err.to_string();
    let same = Capsule::new(Vec2::ONE, Vec2::ONE, 0.5).expect_err("coincident points");
    assert!(message(same).contains("two points"), "coincident");
    let close = Capsule::new(Vec2::ZERO, Vec2::new(1e-5, 0.0), 0.5).expect_err("too close");
    assert!(message(close).contains("apart"), "close");
    let negative = Polygon::rounded(&[Vec2::ZERO, Vec2::X, Vec2::Y], -0.1).expect_err("negative");
    assert!(message(negative).contains("negative"), "negative");
    let huge = Polygon::rounded(&[Vec2::ZERO, Vec2::X, Vec2::Y], 1e4).expect_err("huge");
    assert!(message(huge).contains("times its core"), "huge");
    let nan = Capsule::new(Vec2::ZERO, Vec2::X, f32::NAN).expect_err("NaN");
    assert!(message(nan).contains("not finite"), "NaN");
    let zero = Capsule::new(Vec2::ZERO, Vec2::X, 0.0).expect_err("zero radius");
    assert!(message(zero).contains("not positive"), "zero");
    let point = Segment::new(Vec2::X, Vec2::X).expect_err("a point");
    assert!(message(point).contains("two points"), "segment");
    let infinite = Segment::new(Vec2::ZERO, Vec2::new(f32::INFINITY, 0.0)).expect_err("inf");
    assert!(message(infinite).contains("non-finite"), "infinite");
}

/// Stacks of capsules lying on their sides and of rounded boxes, on a
/// static box and on a static segment, stand in a world: after ten seconds
/// each body is where it was put (less the settling), at rest and level.
#[test]
fn capsule_and_rounded_box_stacks_stand() {
    use gpusat::{BackendKind, Narrowphase, World, WorldOptions};
    for (kind, ground_is_segment) in [("capsule", false), ("rounded box", true)] {
        let mut shapes = ShapeSet::new();
        let ground = if ground_is_segment {
            shapes
                .add_segment(Vec2::new(-10.0, 0.0), Vec2::new(10.0, 0.0))
                .expect("a segment")
        } else {
            shapes
                .add_rounded_polygon(
                    &[
                        Vec2::new(-10.0, -1.0),
                        Vec2::new(10.0, -1.0),
                        Vec2::new(10.0, 0.0),
                        Vec2::new(-10.0, 0.0),
                    ],
                    0.0,
                )
                .expect("a box")
        };
        // Each body 0.5 tall: a capsule of radius 0.25, or a box of half
        // height 0.15 rounded by 0.1.
        let body_shape = if kind == "capsule" {
            shapes
                .add_capsule(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.25)
                .expect("a capsule")
        } else {
            shapes.push(
                Polygon::rounded_rectangle(0.4, 0.15, 0.1)
                    .expect("a rounded box")
                    .into(),
            )
        };
        let mut bodies = vec![Body::fixed(ground, Vec2::ZERO, 0.0)];
        for level in 0..5 {
            bodies.push(Body::new(
                body_shape,
                Vec2::new(0.01 * level as f32, 0.25 + 0.502 * level as f32),
                0.0,
            ));
        }
        let start = bodies.clone();
        let narrowphase = Narrowphase::new(BackendKind::Cpu).expect("cpu backend");
        let mut world =
            World::new(shapes, bodies, narrowphase, WorldOptions::default()).expect("world");
        for _ in 0..600 {
            world.step(1.0 / 60.0).expect("step");
        }
        for (level, (now, then)) in world.bodies()[1..].iter().zip(&start[1..]).enumerate() {
            assert!(
                (now.position.x - then.position.x).abs() < 0.02,
                "{kind} {level} slid to {}",
                now.position
            );
            let expected = 0.25 + 0.5 * level as f32;
            assert!(
                (now.position.y - expected).abs() < 0.03,
                "{kind} {level} at height {}, expected about {expected}",
                now.position.y
            );
            assert!(
                now.angle.abs() < 0.02,
                "{kind} {level} turned to {}",
                now.angle
            );
            assert!(
                now.velocity.length() < 0.02,
                "{kind} {level} still moving at {}",
                now.velocity
            );
        }
    }
}

/// Where the faces of a segment core cannot decide alone: two capsules or
/// segments on one line end to end (their Minkowski difference a segment,
/// whose ends' axes are the segments' own directions), or tilted from it by
/// a microradian (the faces' tie rule then keeps a face whose separation is
/// not positive); a circle's centre on a capsule's line past its end, or a
/// micrometre off it. At 1,000 angles each, against the oracle: none is
/// reported where the shapes are apart, and the GPU gives the CPU's bits.
#[test]
fn segment_cores_on_one_line_and_centres_on_a_segments_line() {
    let mut shapes = ShapeSet::new();
    let capsule = shapes
        .add_capsule(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.25)
        .expect("a capsule");
    let segment = shapes
        .add_segment(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0))
        .expect("a segment");
    let circle = shapes.add_circle(0.25).expect("a circle");
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    let mut add = |a: Body, b: Body| {
        let k = bodies.len() as u32;
        bodies.push(a);
        bodies.push(b);
        pairs.push(Pair::new(k, k + 1));
    };
    for k in 0..1000 {
        let angle = std::f32::consts::TAU * k as f32 / 1000.0;
        let along = |x: f32, y: f32| Vec2::from_angle(angle).rotate(Vec2::new(x, y));
        let tilt = if k % 2 == 0 { 0.0 } else { 1e-6 };
        // Capsules 0.5 apart end to end, 0.1 overlapping end to end.
        add(
            Body::new(capsule, Vec2::ZERO, angle),
            Body::new(capsule, along(2.0, 0.0), angle + tilt),
        );
        add(
            Body::new(capsule, Vec2::ZERO, angle),
            Body::new(capsule, along(1.4, 0.0), angle + tilt),
        );
        // Bare segments 1.0 apart end to end, and 0.02 apart.
        add(
            Body::new(segment, Vec2::ZERO, angle),
            Body::new(segment, along(2.0, 0.0), angle + tilt),
        );
        add(
            Body::new(segment, Vec2::ZERO, angle),
            Body::new(segment, along(1.02, 0.0), angle + tilt),
        );
        // A circle past the capsule's end on its line (1.0 apart), a
        // micrometre off it, and overlapping the cap by 0.1.
        add(
            Body::new(capsule, Vec2::ZERO, angle),
            Body::new(circle, along(2.0, 0.0), 0.0),
        );
        add(
            Body::new(capsule, Vec2::ZERO, angle),
            Body::new(circle, along(2.0, 1e-6), 0.0),
        );
        add(
            Body::new(circle, along(0.9, 0.0), 0.0),
            Body::new(capsule, Vec2::ZERO, angle),
        );
    }
    let tally = check_pairs(4131, &shapes, &bodies, &pairs, 0.05);
    eprintln!("{tally:?}");
    // Per angle: the overlapping capsules and the overlapping circle, and
    // the segments 0.02 apart through the margin.
    assert_eq!(tally.reported, 3 * 1000, "{tally:?}");
    if let Some(context) = crate::common::gpu_context() {
        let batch = Batch::new(&shapes, &bodies, &pairs, 0.05).expect("batch");
        let mut gpu = gpusat::gpu::GpuNarrowphase::new(context, gpusat::gpu::GpuOptions::default())
            .expect("narrowphase");
        let hits = gpu.collide(&batch).expect("GPU run");
        let cpu = collide_cpu(&batch);
        if crate::common::gpu_is_bit_exact() {
            assert_eq!(hits, cpu, "the GPU's hits, the CPU's bits");
        } else {
            assert!(gpusat::compare_hits(&batch, &cpu, &hits).agrees());
        }
    }
}
