//! 3D positional separation: piles of hulls, boxes and spheres end with no
//! pair deeper than the slop (checked by the exact oracle too), static bodies
//! stay put, corrections split by inverse mass, the free bodies' centre of
//! mass stays, impossible squeezes are reported.

use crate::common::oracle3::{oracle_depth, place};
use glam::{DVec3, Quat, Vec3};
use gpusat::d3::{Batch, Body, ShapeSet, collide_cpu, find_pairs, separate_positions};
use gpusat::generate::d3::SceneSpec;
use gpusat::{Candidates, Pair, PairFilter, SeparationOptions};

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
        shapes: 32,
        pairs: 0,
        half_extent,
        ..SceneSpec::mixed(seed, 0)
    }
    .generate();
    (scene.shapes, scene.bodies)
}

#[test]
fn a_pile_ends_with_no_pair_deeper_than_the_slop() {
    let (shapes, mut bodies) = pile(1701, 150, 3.0);
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
        Candidates::Broadphase { margin: 0.0 },
        &options,
        &mut |batch| Ok(collide_cpu(batch)),
    )
    .expect("separation");
    eprintln!("{report:?}");
    assert!(report.resolved(), "{report:?}");
    let after = max_depth(&shapes, &bodies, &pairs);
    assert!(
        after <= options.slop,
        "deepest pair {after} > slop {}",
        options.slop
    );
    assert!((report.initial_max_depth - before).abs() < 1e-6);
    // The exact oracle agrees on every pair: the broadphase missed none.
    let placed: Vec<_> = bodies.iter().map(|b| place(&shapes, b)).collect();
    for pair in &pairs {
        let depth = oracle_depth(&placed[pair.a as usize], &placed[pair.b as usize]);
        assert!(
            depth <= options.slop as f64 + 1e-5,
            "{pair:?}: exact depth {depth}"
        );
    }
}

#[test]
fn static_bodies_never_move_and_static_pairs_are_left_alone() {
    let (mut shapes, mut bodies) = pile(1702, 80, 2.0);
    let floor = shapes.add_cuboid(Vec3::new(5.0, 0.5, 5.0)).expect("floor");
    bodies.push(Body::fixed(
        floor,
        Vec3::new(0.0, -2.0, 0.0),
        Quat::IDENTITY,
    ));
    bodies.push(Body::fixed(
        floor,
        Vec3::new(20.0, 0.0, 0.0),
        Quat::IDENTITY,
    ));
    bodies.push(Body::fixed(
        floor,
        Vec3::new(20.5, 0.3, 0.0),
        Quat::from_rotation_z(0.1),
    ));
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
            old.rotation, new.rotation,
            "positional separation only translates"
        );
    }
    assert_eq!(report.static_pairs.len(), 1, "{:?}", report.static_pairs);
    assert_eq!(
        (report.static_pairs[0].a, report.static_pairs[0].b),
        (81, 82)
    );
    assert!(report.resolved(), "{report:?}");
    let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).expect("batch");
    for hit in batch.hits(&collide_cpu(&batch)) {
        let free = !bodies[hit.a as usize].is_static() || !bodies[hit.b as usize].is_static();
        assert!(!free || hit.depth <= options.slop, "{hit:?}");
    }
}

#[test]
fn masses_split_the_push_and_the_centre_of_mass_stays() {
    let mut shapes = ShapeSet::new();
    let cube = shapes.add_cuboid(Vec3::splat(1.0)).expect("cube");
    let pairs = [Pair::new(0, 1)];
    let options = SeparationOptions {
        slop: 0.0,
        ..SeparationOptions::default()
    };
    let start = [
        Body::new(cube, Vec3::ZERO, Quat::IDENTITY).with_inv_mass(1.0),
        Body::new(cube, Vec3::new(1.5, 0.3, -0.2), Quat::from_rotation_y(0.2)).with_inv_mass(3.0),
    ];
    let mut bodies = start;
    separate_positions(
        &shapes,
        &mut bodies,
        Candidates::Fixed(&pairs),
        &options,
        &mut |batch| Ok(collide_cpu(batch)),
    )
    .expect("separation");
    let moved_a = bodies[0].position - start[0].position;
    let moved_b = bodies[1].position - start[1].position;
    assert!(moved_b.length() > 0.1, "nothing moved");
    // Mass 1 and 1/3: B moves three times as far, the other way.
    assert!(
        (moved_b + 3.0 * moved_a).length() < 1e-5,
        "A moved {moved_a}, B moved {moved_b}"
    );
    assert!(max_depth(&shapes, &bodies, &pairs) <= 1e-5);
    // A static A: only B moves, by the whole depth.
    let mut bodies = [Body::fixed(cube, Vec3::ZERO, Quat::IDENTITY), start[1]];
    separate_positions(
        &shapes,
        &mut bodies,
        Candidates::Fixed(&pairs),
        &options,
        &mut |batch| Ok(collide_cpu(batch)),
    )
    .expect("separation");
    assert_eq!(bodies[0].position, Vec3::ZERO);
    assert!(max_depth(&shapes, &bodies, &pairs) <= 1e-5);
}

#[test]
fn the_centre_of_mass_of_a_pile_does_not_move() {
    let (shapes, mut bodies) = pile(1703, 100, 2.5);
    for (index, body) in bodies.iter_mut().enumerate() {
        body.inv_mass = 1.0 / (1.0 + (index % 5) as f32);
    }
    let centre = |bodies: &[Body]| {
        let (weighted, total) = bodies
            .iter()
            .fold((DVec3::ZERO, 0.0f64), |(sum, total), b| {
                let mass = 1.0 / b.inv_mass as f64;
                (sum + mass * b.position.as_dvec3(), total + mass)
            });
        weighted / total
    };
    let before = centre(&bodies);
    let report = separate_positions(
        &shapes,
        &mut bodies,
        Candidates::Broadphase { margin: 0.0 },
        &SeparationOptions::default(),
        &mut |batch| Ok(collide_cpu(batch)),
    )
    .expect("separation");
    assert!(report.resolved(), "{report:?}");
    let after = centre(&bodies);
    assert!(
        (after - before).length() < 1e-4,
        "centre of mass moved from {before} to {after}"
    );
}

#[test]
fn an_impossible_squeeze_is_reported_not_hidden() {
    let mut shapes = ShapeSet::new();
    let wall = shapes.add_cuboid(Vec3::new(0.5, 3.0, 3.0)).expect("wall");
    let ball = shapes.add_sphere(1.0).expect("ball");
    let mut bodies = [
        Body::fixed(wall, Vec3::new(-1.25, 0.0, 0.0), Quat::IDENTITY),
        Body::fixed(wall, Vec3::new(1.25, 0.0, 0.0), Quat::IDENTITY),
        Body::new(ball, Vec3::ZERO, Quat::IDENTITY),
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
fn the_broadphase_finds_every_overlapping_pair() {
    use gpusat::d3::{body_aabbs, brute_force_pairs, sweep_and_prune};
    for (seed, margin) in [(1704, 0.0), (1705, 0.3)] {
        let (shapes, bodies) = pile(seed, 600, 8.0);
        let boxes = body_aabbs(&shapes, &bodies, margin);
        let swept = sweep_and_prune(&boxes);
        assert_eq!(swept, brute_force_pairs(&boxes), "seed {seed}");
        assert!(swept.len() > 500, "{} pairs", swept.len());
        // Every pair the narrowphase reports with the margin among all pairs
        // is a candidate.
        let all = all_pairs(bodies.len());
        let batch = Batch::new(&shapes, &bodies, &all, margin).expect("batch");
        let candidates: std::collections::HashSet<Pair> = swept.iter().copied().collect();
        for hit in collide_cpu(&batch) {
            assert!(
                candidates.contains(&all[hit.pair as usize]),
                "{:?} missed",
                all[hit.pair as usize]
            );
        }
        // Static pairs are left out on request.
        let filtered = find_pairs(
            &shapes,
            &bodies,
            margin,
            PairFilter {
                skip_static_pairs: true,
            },
        );
        assert_eq!(filtered, swept, "no static bodies here");
    }
}
