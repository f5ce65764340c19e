//! Contact manifolds on hand-worked cases, and degenerate ones that must
//! still give a sensible, finite manifold.

use glam::Vec2;
use gpusat::{Batch, Body, ContactPoint, Manifold, Pair, ShapeSet, collide_cpu, manifold};

fn rectangle(shapes: &mut ShapeSet, half_width: f32, half_height: f32) -> u32 {
    shapes
        .add_polygon(&[
            Vec2::new(-half_width, -half_height),
            Vec2::new(half_width, -half_height),
            Vec2::new(half_width, half_height),
            Vec2::new(-half_width, half_height),
        ])
        .expect("rectangle")
}

fn contact(shapes: &ShapeSet, a: Body, b: Body) -> Manifold {
    let bodies = [a, b];
    let pairs = [Pair::new(0, 1)];
    let batch = Batch::new(shapes, &bodies, &pairs, 0.0).expect("batch");
    let hits = batch.hits(&collide_cpu(&batch));
    assert_eq!(hits.len(), 1, "the pair should overlap");
    let m = manifold(&batch, &hits[0]);
    for p in m.points() {
        assert!(p.point.is_finite() && p.depth.is_finite(), "{p:?}");
    }
    assert!((m.normal.length() - 1.0).abs() < 1e-6);
    m
}

fn sorted_by_x(points: &[ContactPoint]) -> Vec<ContactPoint> {
    let mut points = points.to_vec();
    points.sort_by(|p, q| p.point.x.total_cmp(&q.point.x));
    points
}

fn assert_close(got: Vec2, expected: Vec2, what: &str) {
    assert!(
        (got - expected).length() < 1e-5,
        "{what}: {got} expected {expected}"
    );
}

#[test]
fn box_resting_face_down_on_a_wider_box_gives_the_two_ends_of_the_overlap() {
    let mut shapes = ShapeSet::new();
    let ground = rectangle(&mut shapes, 4.0, 0.5);
    let crate_ = rectangle(&mut shapes, 0.5, 0.5);
    // The crate sinks 0.1 into the ground's top face (y = 0.5), centred at x = 1.
    let m = contact(
        &shapes,
        Body::fixed(ground, Vec2::ZERO, 0.0),
        Body::new(crate_, Vec2::new(1.0, 0.9), 0.0),
    );
    assert_close(m.normal, Vec2::Y, "normal");
    let points = sorted_by_x(m.points());
    assert_eq!(points.len(), 2);
    // Ends of the overlap, x = 0.5 and 1.5, midway between y = 0.4 and 0.5.
    assert_close(points[0].point, Vec2::new(0.5, 0.45), "left point");
    assert_close(points[1].point, Vec2::new(1.5, 0.45), "right point");
    for p in &points {
        assert!((p.depth - 0.1).abs() < 1e-5, "depth {}", p.depth);
    }
    assert_ne!(points[0].id, points[1].id);
}

#[test]
fn overhanging_box_is_clipped_to_the_supporting_face() {
    let mut shapes = ShapeSet::new();
    let ground = rectangle(&mut shapes, 1.0, 0.5);
    let plank = rectangle(&mut shapes, 2.0, 0.25);
    // A plank 4 wide on a ground 2 wide, sunk 0.05: the points are at the
    // ground's ends, x = -1 and 1.
    let m = contact(
        &shapes,
        Body::fixed(ground, Vec2::ZERO, 0.0),
        Body::new(plank, Vec2::new(0.3, 0.7), 0.0),
    );
    let points = sorted_by_x(m.points());
    assert_eq!(points.len(), 2, "{points:?}");
    assert_close(points[0].point, Vec2::new(-1.0, 0.475), "left");
    assert_close(points[1].point, Vec2::new(1.0, 0.475), "right");
}

#[test]
fn tilted_box_touches_with_one_corner() {
    let mut shapes = ShapeSet::new();
    let ground = rectangle(&mut shapes, 4.0, 0.5);
    let crate_ = rectangle(&mut shapes, 0.5, 0.5);
    // Tilted 30 degrees, its lowest corner 0.05 below the top face at x = 0.2.
    let angle = 30f32.to_radians();
    let lowest = Vec2::new(0.5, -0.5)
        .rotate(Vec2::from_angle(angle))
        .y
        .min(Vec2::new(-0.5, -0.5).rotate(Vec2::from_angle(angle)).y);
    let centre = Vec2::new(0.2, 0.5 - 0.05 - lowest);
    let m = contact(
        &shapes,
        Body::fixed(ground, Vec2::ZERO, 0.0),
        Body::new(crate_, centre, angle),
    );
    assert_eq!(m.points().len(), 1, "{:?}", m.points());
    let p = m.points()[0];
    assert!((p.depth - 0.05).abs() < 1e-5, "depth {}", p.depth);
    assert!((p.point.y - 0.475).abs() < 1e-5, "midway in y: {}", p.point);
    assert_close(m.normal, Vec2::Y, "normal");
}

#[test]
fn circle_on_a_box_touches_midway_below_its_centre() {
    let mut shapes = ShapeSet::new();
    let ground = rectangle(&mut shapes, 4.0, 0.5);
    let ball = shapes.add_circle(0.5).expect("circle");
    // Centre at (1, 0.9): 0.1 deep into the face y = 0.5.
    let m = contact(
        &shapes,
        Body::fixed(ground, Vec2::ZERO, 0.0),
        Body::new(ball, Vec2::new(1.0, 0.9), 0.0),
    );
    assert_eq!(m.points().len(), 1);
    let p = m.points()[0];
    assert_close(
        p.point,
        Vec2::new(1.0, 0.45),
        "midway between y = 0.4 and 0.5",
    );
    assert!((p.depth - 0.1).abs() < 1e-5);
    // The same from the circle's side (circle is A): same point, normal flipped.
    let m = contact(
        &shapes,
        Body::new(ball, Vec2::new(1.0, 0.9), 0.0),
        Body::fixed(ground, Vec2::ZERO, 0.0),
    );
    assert_close(m.points()[0].point, Vec2::new(1.0, 0.45), "swapped");
    assert_close(m.normal, -Vec2::Y, "swapped normal");
}

#[test]
fn circle_in_a_vertex_region_touches_on_the_diagonal() {
    let mut shapes = ShapeSet::new();
    let square = rectangle(&mut shapes, 1.0, 1.0);
    let ball = shapes.add_circle(0.5).expect("circle");
    let m = contact(
        &shapes,
        Body::new(square, Vec2::ZERO, 0.0),
        Body::new(ball, Vec2::new(1.3, 1.3), 0.0),
    );
    let p = m.points()[0];
    let diagonal = Vec2::ONE.normalize();
    // Midway between the corner (1, 1) and the circle's nearest point.
    let circle_point = Vec2::new(1.3, 1.3) - 0.5 * diagonal;
    assert_close(
        p.point,
        0.5 * (Vec2::ONE + circle_point),
        "vertex region point",
    );
}

#[test]
fn two_circles_touch_midway() {
    let mut shapes = ShapeSet::new();
    let ball = shapes.add_circle(1.0).expect("circle");
    let small = shapes.add_circle(0.5).expect("circle");
    let m = contact(
        &shapes,
        Body::new(ball, Vec2::ZERO, 0.0),
        Body::new(small, Vec2::new(0.0, 1.3), 0.0),
    );
    // Surfaces at y = 1 (A) and y = 0.8 (B).
    assert_close(m.points()[0].point, Vec2::new(0.0, 0.9), "midway");
    assert!((m.points()[0].depth - 0.2).abs() < 1e-6);
}

#[test]
fn degenerate_cases_stay_finite_and_sensible() {
    let mut shapes = ShapeSet::new();
    let square = rectangle(&mut shapes, 1.0, 1.0);
    let thin = rectangle(&mut shapes, 0.001, 1.0);
    let ball = shapes.add_circle(0.5).expect("circle");
    let at = |shape, x: f32, y: f32, angle: f32| Body::new(shape, Vec2::new(x, y), angle);

    // Identical bodies: full overlap, points on the reference face.
    let m = contact(
        &shapes,
        at(square, 0.0, 0.0, 0.0),
        at(square, 0.0, 0.0, 0.0),
    );
    assert!(!m.points().is_empty() && m.points().len() <= 2);
    for p in m.points() {
        assert!((p.depth - 2.0).abs() < 1e-5, "{p:?}");
    }
    // A sliver standing on its end: the incident edge is a 0.002 segment.
    let m = contact(&shapes, at(square, 0.0, 0.0, 0.0), at(thin, 0.3, 1.9, 0.0));
    assert!(!m.points().is_empty());
    assert!(
        m.points().iter().all(|p| (p.depth - 0.1).abs() < 1e-4),
        "{:?}",
        m.points()
    );
    // A sliver lying at 90 degrees: its long edge is parallel to the normal.
    let m = contact(
        &shapes,
        at(square, 0.0, 0.0, 0.0),
        at(thin, 1.0005 - 0.0003, 0.0, 0.0),
    );
    assert!(!m.points().is_empty());
    // A corner pushed exactly onto a corner, at 45 degrees: a one-point
    // clipped segment.
    let m = contact(
        &shapes,
        at(square, 0.0, 0.0, 0.0),
        at(
            square,
            1.0 + std::f32::consts::SQRT_2 - 0.01,
            0.0,
            std::f32::consts::FRAC_PI_4,
        ),
    );
    assert_eq!(m.points().len(), 1, "{:?}", m.points());
    // Circle centre exactly on an edge and exactly on a vertex.
    for (x, y) in [(1.0, 0.3), (1.0, 1.0), (0.0, 0.0)] {
        let m = contact(&shapes, at(square, 0.0, 0.0, 0.0), at(ball, x, y, 0.0));
        assert_eq!(m.points().len(), 1);
        assert!(
            m.points()[0].depth >= 0.5 - 1e-6,
            "({x}, {y}): {:?}",
            m.points()
        );
    }
}
