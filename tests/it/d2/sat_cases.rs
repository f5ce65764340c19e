//! Hand-worked SAT cases, numbered like Box2D's collision tests. Each states
//! the expected depth, normal and axis worked out on paper.

use glam::Vec2;
use gpusat::{Axis, Batch, Body, Hit, Owner, Pair, ShapeSet, collide_cpu};

const EPS: f32 = 1e-6;

fn square(shapes: &mut ShapeSet, half: f32) -> u32 {
    shapes
        .add_polygon(&[
            Vec2::new(-half, -half),
            Vec2::new(half, -half),
            Vec2::new(half, half),
            Vec2::new(-half, half),
        ])
        .expect("valid square")
}

/// Runs one pair (body 0 against body 1) with a margin.
fn collide(shapes: &ShapeSet, a: Body, b: Body, margin: f32) -> Option<Hit> {
    let bodies = [a, b];
    let pairs = [Pair::new(0, 1)];
    let batch = Batch::new(shapes, &bodies, &pairs, margin).expect("valid batch");
    let hits = batch.hits(&collide_cpu(&batch));
    assert!(hits.len() <= 1);
    hits.first().copied()
}

fn assert_hit(hit: Option<Hit>, depth: f32, normal: Vec2, axis: Axis) {
    let hit = hit.expect("the pair should be reported");
    assert!(
        (hit.depth - depth).abs() <= EPS * depth.abs().max(1.0),
        "depth {} expected {depth}",
        hit.depth
    );
    assert!(
        (hit.normal - normal).length() <= 1e-6,
        "normal {} expected {normal}",
        hit.normal
    );
    assert_eq!(hit.axis, axis, "axis {:?} expected {axis:?}", hit.axis);
}

// The square's edges: 0 bottom (0,-1), 1 right (1,0), 2 top (0,1), 3 left (-1,0).

#[test]
fn case_01_separated_boxes_are_not_reported() {
    let mut shapes = ShapeSet::new();
    let s = square(&mut shapes, 1.0);
    let hit = collide(
        &shapes,
        Body::new(s, Vec2::ZERO, 0.0),
        Body::new(s, Vec2::new(2.5, 0.3), 0.0),
        0.0,
    );
    assert!(hit.is_none(), "separated boxes reported: {hit:?}");
}

#[test]
fn case_02_touching_boxes_are_reported_only_through_a_margin() {
    let mut shapes = ShapeSet::new();
    let s = square(&mut shapes, 1.0);
    let a = Body::new(s, Vec2::ZERO, 0.0);
    let b = Body::new(s, Vec2::new(2.0, 0.5), 0.0);
    assert!(
        collide(&shapes, a, b, 0.0).is_none(),
        "touching is not overlapping"
    );
    // Through a margin: depth 0, A's right face (ties go to A).
    assert_hit(
        collide(&shapes, a, b, 0.1),
        0.0,
        Vec2::X,
        Axis::new(Owner::A, 1),
    );
    // A gap of 0.25 comes back as depth -0.25.
    let c = Body::new(s, Vec2::new(2.25, 0.0), 0.0);
    assert_hit(
        collide(&shapes, a, c, 0.5),
        -0.25,
        Vec2::X,
        Axis::new(Owner::A, 1),
    );
}

#[test]
fn case_03_overlapping_boxes() {
    let mut shapes = ShapeSet::new();
    let s = square(&mut shapes, 1.0);
    // B's left face and A's right face tie at -0.5: the tie goes to A.
    let hit = collide(
        &shapes,
        Body::new(s, Vec2::ZERO, 0.0),
        Body::new(s, Vec2::new(1.5, 0.0), 0.0),
        0.0,
    );
    assert_hit(hit, 0.5, Vec2::X, Axis::new(Owner::A, 1));
}

#[test]
fn case_04_rotated_box_corner_into_a_face() {
    let mut shapes = ShapeSet::new();
    let s = square(&mut shapes, 1.0);
    let half_diagonal = std::f32::consts::SQRT_2;
    // B turned 45 degrees: its left corner is 0.1 inside A's right face.
    let b = Body::new(
        s,
        Vec2::new(1.0 + half_diagonal - 0.1, 0.0),
        std::f32::consts::FRAC_PI_4,
    );
    let hit = collide(&shapes, Body::new(s, Vec2::ZERO, 0.0), b, 0.0);
    assert_hit(hit, 0.1, Vec2::X, Axis::new(Owner::A, 1));
}

#[test]
fn case_05_polygon_inside_another() {
    let mut shapes = ShapeSet::new();
    let big = square(&mut shapes, 2.0);
    let small = square(&mut shapes, 0.25);
    // Out through the right: 2 - (0.5 - 0.25) = 1.75; left would be 2.75,
    // up or down 2.25. A's right face and B's left face tie: A's wins.
    let hit = collide(
        &shapes,
        Body::new(big, Vec2::ZERO, 0.0),
        Body::new(small, Vec2::new(0.5, 0.0), 0.0),
        0.0,
    );
    assert_hit(hit, 1.75, Vec2::X, Axis::new(Owner::A, 1));
}

#[test]
fn case_06_parallel_edges_partly_overlapping() {
    let mut shapes = ShapeSet::new();
    let s = square(&mut shapes, 1.0);
    let hit = collide(
        &shapes,
        Body::new(s, Vec2::ZERO, 0.0),
        Body::new(s, Vec2::new(0.5, 1.8), 0.0),
        0.0,
    );
    assert_hit(hit, 0.2, Vec2::Y, Axis::new(Owner::A, 2));
}

#[test]
fn case_07_circle_inside_polygon() {
    let mut shapes = ShapeSet::new();
    let s = square(&mut shapes, 1.0);
    let c = shapes.add_circle(0.25).expect("circle");
    // Nearest face: the right one, 0.5 away: depth 0.5 + 0.25.
    let hit = collide(
        &shapes,
        Body::new(s, Vec2::ZERO, 0.0),
        Body::new(c, Vec2::new(0.5, 0.1), 0.0),
        0.0,
    );
    assert_hit(hit, 0.75, Vec2::X, Axis::new(Owner::A, 1));
}

#[test]
fn case_08_circle_in_a_vertex_region() {
    let mut shapes = ShapeSet::new();
    let s = square(&mut shapes, 1.0);
    let c = shapes.add_circle(0.5).expect("circle");
    // Centre (1.3, 1.3) is 0.3 * sqrt(2) from corner (1, 1), vertex 2:
    // feature 4 + 2 = 6, normal along the diagonal.
    let hit = collide(
        &shapes,
        Body::new(s, Vec2::ZERO, 0.0),
        Body::new(c, Vec2::new(1.3, 1.3), 0.0),
        0.0,
    );
    let depth = 0.5 - 0.3 * std::f32::consts::SQRT_2;
    assert_hit(hit, depth, Vec2::ONE.normalize(), Axis::new(Owner::A, 6));
}

#[test]
fn case_09_concentric_circles_use_a_local_x_axis() {
    let mut shapes = ShapeSet::new();
    let big = shapes.add_circle(1.0).expect("circle");
    let small = shapes.add_circle(0.5).expect("circle");
    let a = Body::new(big, Vec2::new(3.0, 4.0), std::f32::consts::FRAC_PI_2);
    let b = Body::new(small, Vec2::new(3.0, 4.0), 0.0);
    let hit = collide(&shapes, a, b, 0.0).expect("reported");
    assert!((hit.depth - 1.5).abs() < EPS);
    // A's local x axis, turned 90 degrees with A.
    assert!(
        (hit.normal - Vec2::Y).length() < 1e-6,
        "normal {}",
        hit.normal
    );
    assert_eq!(hit.axis, Axis::new(Owner::A, 0));
}

#[test]
fn case_10_clockwise_input_gives_the_same_result() {
    let mut shapes = ShapeSet::new();
    let ccw = shapes
        .add_polygon(&[
            Vec2::new(0.0, 0.0),
            Vec2::new(2.0, 0.0),
            Vec2::new(1.0, 1.5),
        ])
        .expect("ccw");
    let cw = shapes
        .add_polygon(&[
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 1.5),
            Vec2::new(2.0, 0.0),
        ])
        .expect("cw");
    let s = square(&mut shapes, 0.5);
    let other = Body::new(s, Vec2::new(1.0, 1.6), 0.3);
    let from_ccw = collide(&shapes, Body::new(ccw, Vec2::ZERO, 0.0), other, 0.0).expect("reported");
    let from_cw = collide(&shapes, Body::new(cw, Vec2::ZERO, 0.0), other, 0.0).expect("reported");
    assert!(
        (from_ccw.depth - from_cw.depth).abs() < EPS,
        "{} vs {}",
        from_ccw.depth,
        from_cw.depth
    );
    assert!((from_ccw.normal - from_cw.normal).length() < 1e-6);
    let polygon = match shapes.get(cw) {
        Some(gpusat::Shape::Polygon(p)) => p.clone(),
        other => panic!("expected a polygon, got {other:?}"),
    };
    let area2: f32 = (0..3)
        .map(|i| gpusat::math::cross(polygon.vertices()[i], polygon.vertices()[(i + 1) % 3]))
        .sum();
    assert!(area2 > 0.0, "stored counter-clockwise");
}

#[test]
fn case_11_two_circles() {
    let mut shapes = ShapeSet::new();
    let c = shapes.add_circle(1.0).expect("circle");
    let hit = collide(
        &shapes,
        Body::new(c, Vec2::ZERO, 0.0),
        Body::new(c, Vec2::new(0.0, -1.5), 0.0),
        0.0,
    );
    assert_hit(hit, 0.5, -Vec2::Y, Axis::new(Owner::A, 0));
}

#[test]
fn case_12_circle_a_against_polygon_b() {
    let mut shapes = ShapeSet::new();
    let c = shapes.add_circle(0.5).expect("circle");
    let s = square(&mut shapes, 1.0);
    // The box's left face is 0.2 from the circle's centre: depth 0.3, B's
    // edge 3, normal from A to B along +x.
    let hit = collide(
        &shapes,
        Body::new(c, Vec2::ZERO, 0.0),
        Body::new(s, Vec2::new(1.2, 0.0), 0.0),
        0.0,
    );
    assert_hit(hit, 0.3, Vec2::X, Axis::new(Owner::B, 3));
}

#[test]
fn case_13_far_from_the_origin_is_the_same_pair() {
    let mut shapes = ShapeSet::new();
    let s = square(&mut shapes, 1.0);
    let offset = Vec2::new(100_000.0, -100_000.0);
    let near = collide(
        &shapes,
        Body::new(s, Vec2::ZERO, 0.3),
        Body::new(s, Vec2::new(1.5, 0.25), 0.1),
        0.0,
    )
    .expect("reported");
    let far = collide(
        &shapes,
        Body::new(s, offset, 0.3),
        Body::new(s, offset + Vec2::new(1.5, 0.25), 0.1),
        0.0,
    )
    .expect("reported");
    // Positions are exact in f32 and only their difference is used: same bits.
    assert_eq!(
        near.depth.to_bits(),
        far.depth.to_bits(),
        "{} vs {}",
        near.depth,
        far.depth
    );
    assert_eq!(near.normal, far.normal);
    assert_eq!(near.axis, far.axis);
}

#[test]
fn case_14_normal_from_the_face_not_from_the_centres() {
    let mut shapes = ShapeSet::new();
    let plank = shapes
        .add_polygon(&[
            Vec2::new(-5.0, -0.1),
            Vec2::new(5.0, -0.1),
            Vec2::new(5.0, 0.1),
            Vec2::new(-5.0, 0.1),
        ])
        .expect("plank");
    let s = square(&mut shapes, 0.2);
    // The box sits on the plank's far end: the centres differ mostly along x,
    // but the box must be pushed up.
    let hit = collide(
        &shapes,
        Body::new(plank, Vec2::ZERO, 0.0),
        Body::new(s, Vec2::new(4.0, 0.25), 0.0),
        0.0,
    );
    assert_hit(hit, 0.05, Vec2::Y, Axis::new(Owner::A, 2));
}

#[test]
fn case_15_owner_b_face_normal_points_from_a_to_b() {
    let mut shapes = ShapeSet::new();
    let s = square(&mut shapes, 1.0);
    let tri = shapes
        .add_polygon(&[
            Vec2::new(-0.5, -0.5),
            Vec2::new(0.5, -0.5),
            Vec2::new(0.0, 0.5),
        ])
        .expect("triangle");
    // A small triangle whose apex pokes 0.1 into the square's bottom face,
    // seen from the triangle as A: the square's bottom face (B's edge 0)
    // is the axis and the normal points from the triangle up into the square.
    let a = Body::new(tri, Vec2::new(0.0, -1.4), 0.0);
    let b = Body::new(s, Vec2::ZERO, 0.0);
    let hit = collide(&shapes, a, b, 0.0);
    assert_hit(hit, 0.1, Vec2::Y, Axis::new(Owner::B, 0));
}
