//! The velocity solver: restitution, friction, conservation, warm starting.

use glam::Vec2;
use gpusat::generate::SceneSpec;
use gpusat::{
    Batch, Body, ContactSolver, Manifold, Pair, ShapeSet, SolverOptions, collide_cpu, manifolds,
};

fn contacts(shapes: &ShapeSet, bodies: &[Body], pairs: &[Pair]) -> Vec<Manifold> {
    let batch = Batch::new(shapes, bodies, pairs, 0.0).expect("batch");
    let hits = batch.hits(&collide_cpu(&batch));
    manifolds(&batch, &hits)
}

fn head_on(restitution: f32) -> [Body; 2] {
    let mut shapes = ShapeSet::new();
    let ball = shapes.add_circle(1.0).expect("ball");
    let mut bodies = [
        Body::new(ball, Vec2::new(0.0, 0.0), 0.0),
        Body::new(ball, Vec2::new(1.95, 0.0), 0.0),
    ];
    bodies[0].velocity = Vec2::new(3.0, 0.0);
    bodies[1].velocity = Vec2::new(-1.0, 0.0);
    let pairs = [Pair::new(0, 1)];
    let manifolds = contacts(&shapes, &bodies, &pairs);
    let options = SolverOptions {
        restitution,
        restitution_threshold: 0.0,
        friction: 0.0,
        ..SolverOptions::default()
    };
    ContactSolver::new().solve(&shapes, &mut bodies, &manifolds, &options, None);
    bodies
}

#[test]
fn elastic_head_on_collision_exchanges_velocities() {
    let bodies = head_on(1.0);
    assert!(
        (bodies[0].velocity - Vec2::new(-1.0, 0.0)).length() < 1e-5,
        "{}",
        bodies[0].velocity
    );
    assert!(
        (bodies[1].velocity - Vec2::new(3.0, 0.0)).length() < 1e-5,
        "{}",
        bodies[1].velocity
    );
}

#[test]
fn inelastic_head_on_collision_ends_with_equal_normal_velocity() {
    let bodies = head_on(0.0);
    assert!(
        (bodies[0].velocity.x - bodies[1].velocity.x).abs() < 1e-5,
        "{} vs {}",
        bodies[0].velocity,
        bodies[1].velocity
    );
    assert!(
        (bodies[0].velocity.x - 1.0).abs() < 1e-5,
        "momentum 2 shared: {}",
        bodies[0].velocity
    );
}

#[test]
fn linear_momentum_is_conserved_without_static_bodies() {
    let scene = SceneSpec {
        bodies: 150,
        pairs: 0,
        half_extent: 4.0,
        ..SceneSpec::mixed(71, 0)
    }
    .generate();
    let mut bodies = scene.bodies.clone();
    for (index, body) in bodies.iter_mut().enumerate() {
        body.inv_mass = 1.0 / (0.5 + (index % 5) as f32);
        body.velocity = Vec2::new((index as f32 * 0.7).sin(), (index as f32 * 1.3).cos()) * 2.0;
        body.angular_velocity = (index as f32 * 0.37).sin();
    }
    let mut pairs = Vec::new();
    for a in 0..bodies.len() as u32 {
        for b in a + 1..bodies.len() as u32 {
            pairs.push(Pair::new(a, b));
        }
    }
    let momentum = |bodies: &[Body]| {
        bodies
            .iter()
            .fold(Vec2::ZERO, |sum, b| sum + b.velocity / b.inv_mass)
    };
    let before = momentum(&bodies);
    let manifolds = contacts(&scene.shapes, &bodies, &pairs);
    assert!(manifolds.len() > 100);
    let options = SolverOptions {
        restitution: 0.3,
        friction: 0.5,
        ..SolverOptions::default()
    };
    ContactSolver::new().solve(&scene.shapes, &mut bodies, &manifolds, &options, None);
    let after = momentum(&bodies);
    assert!(
        (after - before).length() < 1e-3 * before.length().max(1.0),
        "momentum {before} -> {after}"
    );
}

#[test]
fn static_bodies_keep_zero_velocity_and_stop_the_approach() {
    let mut shapes = ShapeSet::new();
    let ground = shapes
        .add_polygon(&[
            Vec2::new(-5.0, -0.5),
            Vec2::new(5.0, -0.5),
            Vec2::new(5.0, 0.5),
            Vec2::new(-5.0, 0.5),
        ])
        .expect("ground");
    let square = shapes
        .add_polygon(&[
            Vec2::new(-0.5, -0.5),
            Vec2::new(0.5, -0.5),
            Vec2::new(0.5, 0.5),
            Vec2::new(-0.5, 0.5),
        ])
        .expect("square");
    let mut bodies = [
        Body::fixed(ground, Vec2::ZERO, 0.0),
        Body::new(square, Vec2::new(0.0, 0.99), 0.0),
    ];
    bodies[1].velocity = Vec2::new(0.0, -2.0);
    let manifolds = contacts(&shapes, &bodies, &[Pair::new(0, 1)]);
    ContactSolver::new().solve(
        &shapes,
        &mut bodies,
        &manifolds,
        &SolverOptions::default(),
        None,
    );
    assert_eq!(bodies[0].velocity, Vec2::ZERO);
    assert_eq!(bodies[0].angular_velocity, 0.0);
    assert!(
        bodies[1].velocity.y.abs() < 1e-4,
        "still approaching: {}",
        bodies[1].velocity
    );
    assert!(
        bodies[1].angular_velocity.abs() < 1e-4,
        "a flat landing does not spin: {}",
        bodies[1].angular_velocity
    );
}

#[test]
fn friction_is_clamped_by_coulomb() {
    let mut shapes = ShapeSet::new();
    let ground = shapes
        .add_polygon(&[
            Vec2::new(-5.0, -0.5),
            Vec2::new(5.0, -0.5),
            Vec2::new(5.0, 0.5),
            Vec2::new(-5.0, 0.5),
        ])
        .expect("ground");
    let ball = shapes.add_circle(0.5).expect("ball");
    for (friction, sliding) in [(0.1f32, 5.0f32), (0.6, 5.0), (0.6, 0.2)] {
        let mut bodies = [
            Body::fixed(ground, Vec2::ZERO, 0.0),
            Body::new(ball, Vec2::new(0.0, 0.99), 0.0),
        ];
        bodies[1].velocity = Vec2::new(sliding, -1.0);
        let manifolds = contacts(&shapes, &bodies, &[Pair::new(0, 1)]);
        let options = SolverOptions {
            friction,
            restitution: 0.0,
            ..SolverOptions::default()
        };
        ContactSolver::new().solve(&shapes, &mut bodies, &manifolds, &options, None);
        let normal_change = bodies[1].velocity.y - (-1.0);
        let tangent_change = sliding - bodies[1].velocity.x;
        assert!(normal_change > 0.99, "{normal_change}");
        assert!(
            tangent_change <= friction * normal_change + 1e-4,
            "friction {friction}: tangential change {tangent_change} > {friction} x {normal_change}"
        );
        assert!(tangent_change >= 0.0, "friction never accelerates");
    }
}

#[test]
fn warm_starting_reuses_impulses_of_matching_points() {
    let mut shapes = ShapeSet::new();
    let ground = shapes
        .add_polygon(&[
            Vec2::new(-5.0, -0.5),
            Vec2::new(5.0, -0.5),
            Vec2::new(5.0, 0.5),
            Vec2::new(-5.0, 0.5),
        ])
        .expect("ground");
    let square = shapes
        .add_polygon(&[
            Vec2::new(-0.5, -0.5),
            Vec2::new(0.5, -0.5),
            Vec2::new(0.5, 0.5),
            Vec2::new(-0.5, 0.5),
        ])
        .expect("square");
    let mut bodies = [
        Body::fixed(ground, Vec2::ZERO, 0.0),
        Body::new(square, Vec2::new(0.3, 0.99), 0.0),
    ];
    let mut solver = ContactSolver::new();
    let options = SolverOptions::default();
    bodies[1].velocity = Vec2::new(0.0, -0.1);
    let manifolds = contacts(&shapes, &bodies, &[Pair::new(0, 1)]);
    assert_eq!(manifolds[0].points().len(), 2);
    let first = solver.solve(&shapes, &mut bodies, &manifolds, &options, None);
    assert_eq!((first.points, first.warm_started), (2, 0));
    // Gravity again, the same contact: both points start from last impulses.
    bodies[1].velocity = Vec2::new(0.0, -0.1);
    let second = solver.solve(&shapes, &mut bodies, &manifolds, &options, None);
    assert_eq!((second.points, second.warm_started), (2, 2));
    assert!(bodies[1].velocity.y.abs() < 1e-4, "{}", bodies[1].velocity);
}
