//! Positional separation: piles end with no pair deeper than the slop, static
//! bodies stay put, corrections split by inverse mass.

use glam::Vec2;
use gpusat::generate::SceneSpec;
use gpusat::{
    Batch, Body, Candidates, Pair, SeparationOptions, ShapeSet, collide_cpu, collide_cpu_parallel,
    separate_positions,
};

fn all_pairs(count: usize) -> Vec<Pair> {
    let mut pairs = Vec::new();
    for a in 0..count as u32 {
        for b in a + 1..count as u32 {
            pairs.push(Pair::new(a, b));
        }
    }
    pairs
}

fn max_depth(shapes: &ShapeSet, bodies: &[Body], pairs: &[Pair]) -> f32 {
    let batch = Batch::new(shapes, bodies, pairs, 0.0).expect("batch");
    collide_cpu(&batch)
        .iter()
        .map(|h| h.depth)
        .fold(0.0, f32::max)
}

fn pile(seed: u64, bodies: usize, half_extent: f32) -> (ShapeSet, Vec<Body>) {
    let scene = SceneSpec {
        bodies,
        pairs: 0,
        half_extent,
        ..SceneSpec::mixed(seed, 0)
    }
    .generate();
    (scene.shapes, scene.bodies)
}

#[test]
fn a_pile_ends_with_no_pair_deeper_than_the_slop() {
    let (shapes, mut bodies) = pile(61, 300, 6.0);
    let pairs = all_pairs(bodies.len());
    let before = max_depth(&shapes, &bodies, &pairs);
    assert!(
        before > 1.0,
        "the pile should start deeply overlapping: {before}"
    );
    let options = SeparationOptions {
        slop: 0.01,
        ..SeparationOptions::default()
    };
    let report = separate_positions(
        &shapes,
        &mut bodies,
        Candidates::Fixed(&pairs),
        &options,
        &mut |batch| Ok(collide_cpu_parallel(batch)),
    )
    .expect("separation");
    let after = max_depth(&shapes, &bodies, &pairs);
    eprintln!("{report:?}");
    assert!(report.resolved(), "{report:?}");
    assert!(
        after <= options.slop,
        "deepest pair {after} > slop {}",
        options.slop
    );
    assert_eq!(report.final_max_depth, after);
    assert!((report.initial_max_depth - before).abs() < 1e-6);
}

#[test]
fn static_bodies_never_move_and_static_pairs_are_left_alone() {
    let (mut shapes, mut bodies) = pile(62, 120, 4.0);
    // A static floor cutting through the bottom of the pile, and two
    // static bodies overlapping each other.
    let floor = shapes
        .add_polygon(&[
            Vec2::new(-6.0, -0.5),
            Vec2::new(6.0, -0.5),
            Vec2::new(6.0, 0.5),
            Vec2::new(-6.0, 0.5),
        ])
        .expect("floor");
    bodies.push(Body::fixed(floor, Vec2::new(0.0, -4.0), 0.0));
    bodies.push(Body::fixed(floor, Vec2::new(20.0, 0.0), 0.0));
    bodies.push(Body::fixed(floor, Vec2::new(20.5, 0.3), 0.1));
    let before = bodies.clone();
    let pairs = all_pairs(bodies.len());
    let options = SeparationOptions::default();
    let report = separate_positions(
        &shapes,
        &mut bodies,
        Candidates::Fixed(&pairs),
        &options,
        &mut |batch| Ok(collide_cpu(batch)),
    )
    .expect("separation");
    for (old, new) in before.iter().zip(&bodies) {
        if old.is_static() {
            assert_eq!(old.position, new.position, "a static body moved");
        }
        assert_eq!(
            old.angle, new.angle,
            "positional separation only translates"
        );
    }
    assert_eq!(report.static_pairs.len(), 1, "{:?}", report.static_pairs);
    let static_pair = report.static_pairs[0];
    assert_eq!((static_pair.a, static_pair.b), (121, 122));
    assert!(report.resolved(), "{report:?}");
    // Every pair with a free body is resolved; the static pair is not touched.
    let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).expect("batch");
    for hit in batch.hits(&collide_cpu(&batch)) {
        let free = !bodies[hit.a as usize].is_static() || !bodies[hit.b as usize].is_static();
        assert!(!free || hit.depth <= options.slop, "{hit:?}");
    }
}

#[test]
fn an_impossible_squeeze_is_reported_not_hidden() {
    let mut shapes = ShapeSet::new();
    let wall = shapes
        .add_polygon(&[
            Vec2::new(-0.5, -2.0),
            Vec2::new(0.5, -2.0),
            Vec2::new(0.5, 2.0),
            Vec2::new(-0.5, 2.0),
        ])
        .expect("wall");
    let ball = shapes.add_circle(1.0).expect("ball");
    // A ball of diameter 2 between walls 1.5 apart, and tall: no translation frees it.
    let mut bodies = vec![
        Body::fixed(wall, Vec2::new(-1.25, 0.0), 0.0),
        Body::fixed(wall, Vec2::new(1.25, 0.0), 0.0),
        Body::new(ball, Vec2::ZERO, 0.0),
    ];
    let pairs = [Pair::new(0, 2), Pair::new(1, 2)];
    let options = SeparationOptions {
        max_rounds: 20,
        ..SeparationOptions::default()
    };
    let report = separate_positions(
        &shapes,
        &mut bodies,
        Candidates::Fixed(&pairs),
        &options,
        &mut |batch| Ok(collide_cpu(batch)),
    )
    .expect("separation");
    assert!(!report.resolved());
    assert_eq!(report.rounds, 20);
    assert!(report.final_max_depth > options.slop);
}

#[test]
fn equal_masses_move_by_equal_and_opposite_amounts() {
    let mut shapes = ShapeSet::new();
    let square = shapes
        .add_polygon(&[
            Vec2::new(-1.0, -1.0),
            Vec2::new(1.0, -1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(-1.0, 1.0),
        ])
        .expect("square");
    let mut bodies = vec![
        Body::new(square, Vec2::new(0.0, 0.0), 0.0).with_inv_mass(0.5),
        Body::new(square, Vec2::new(1.5, 0.3), 0.2).with_inv_mass(0.5),
    ];
    let before = bodies.clone();
    let pairs = [Pair::new(0, 1)];
    let options = SeparationOptions {
        slop: 0.0,
        ..SeparationOptions::default()
    };
    separate_positions(
        &shapes,
        &mut bodies,
        Candidates::Fixed(&pairs),
        &options,
        &mut |batch| Ok(collide_cpu(batch)),
    )
    .expect("separation");
    let moved_a = bodies[0].position - before[0].position;
    let moved_b = bodies[1].position - before[1].position;
    assert!(moved_a.length() > 0.1, "nothing moved");
    assert!(
        (moved_a + moved_b).length() < 1e-6,
        "A moved {moved_a}, B moved {moved_b}"
    );
    // A static A: only B moves, by the whole depth.
    let mut bodies = vec![Body::fixed(square, Vec2::ZERO, 0.0), before[1]];
    separate_positions(
        &shapes,
        &mut bodies,
        Candidates::Fixed(&pairs),
        &options,
        &mut |batch| Ok(collide_cpu(batch)),
    )
    .expect("separation");
    assert_eq!(bodies[0].position, Vec2::ZERO);
    assert!(max_depth(&shapes, &bodies, &pairs) <= 1e-5);
}

#[test]
fn the_centre_of_mass_of_free_bodies_does_not_move() {
    let (shapes, mut bodies) = pile(63, 200, 5.0);
    for (index, body) in bodies.iter_mut().enumerate() {
        body.inv_mass = 1.0 / (1.0 + (index % 7) as f32);
    }
    let centre = |bodies: &[Body]| {
        let (weighted, total) = bodies.iter().fold((Vec2::ZERO, 0.0f64), |(sum, total), b| {
            let mass = 1.0 / b.inv_mass;
            (sum + mass * b.position, total + mass as f64)
        });
        weighted / total as f32
    };
    let before = centre(&bodies);
    let pairs = all_pairs(bodies.len());
    let report = separate_positions(
        &shapes,
        &mut bodies,
        Candidates::Fixed(&pairs),
        &SeparationOptions::default(),
        &mut |batch| Ok(collide_cpu(batch)),
    )
    .expect("separation");
    assert!(report.resolved());
    let after = centre(&bodies);
    assert!(
        (after - before).length() < 1e-4,
        "centre of mass moved from {before} to {after}"
    );
}

#[test]
fn bad_options_are_errors() {
    let (shapes, mut bodies) = pile(64, 3, 1.0);
    for options in [
        SeparationOptions {
            fraction: 0.0,
            ..SeparationOptions::default()
        },
        SeparationOptions {
            fraction: 1.5,
            ..SeparationOptions::default()
        },
        SeparationOptions {
            slop: f32::NAN,
            ..SeparationOptions::default()
        },
    ] {
        assert!(
            separate_positions(
                &shapes,
                &mut bodies,
                Candidates::Fixed(&[]),
                &options,
                &mut |batch| Ok(collide_cpu(batch))
            )
            .is_err()
        );
    }
}
