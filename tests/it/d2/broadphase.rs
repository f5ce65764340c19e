//! The broadphases against brute-force all-pairs box overlap.

use glam::Vec2;
use gpusat::generate::SceneSpec;
use gpusat::{
    Body, PairFilter, ShapeSet, body_aabbs, brute_force_pairs, find_pairs, sweep_and_prune,
    uniform_grid,
};

fn scene(seed: u64, bodies: usize, half_extent: f32) -> (ShapeSet, Vec<Body>) {
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
fn sweep_and_prune_and_grid_find_exactly_the_overlapping_boxes() {
    for (seed, bodies, half_extent, margin) in [
        (81, 2000, 40.0, 0.0),
        (82, 1500, 10.0, 0.0),
        (83, 2000, 60.0, 0.5),
        (84, 300, 2.0, 0.1),
    ] {
        let (shapes, bodies) = scene(seed, bodies, half_extent);
        let boxes = body_aabbs(&shapes, &bodies, margin);
        let expected = brute_force_pairs(&boxes);
        assert!(
            expected.len() > bodies.len() / 4,
            "seed {seed}: only {} pairs",
            expected.len()
        );
        assert_eq!(
            sweep_and_prune(&boxes),
            expected,
            "seed {seed}: sweep and prune"
        );
        assert_eq!(
            uniform_grid(&boxes, 0.0),
            expected,
            "seed {seed}: grid, median cell"
        );
        assert_eq!(
            uniform_grid(&boxes, 0.37),
            expected,
            "seed {seed}: grid, small cells"
        );
        assert_eq!(
            uniform_grid(&boxes, 25.0),
            expected,
            "seed {seed}: grid, large cells"
        );
    }
}

#[test]
fn boxes_hold_the_shapes_and_grow_by_the_margin() {
    let (shapes, bodies) = scene(85, 200, 5.0);
    for (body, grown) in bodies.iter().zip(body_aabbs(&shapes, &bodies, 0.25)) {
        let tight = gpusat::body_aabb(&shapes, body, 0.0);
        assert_eq!(grown.min, tight.min - Vec2::splat(0.25));
        assert_eq!(grown.max, tight.max + Vec2::splat(0.25));
        let size = shapes.get(body.shape).expect("shape").bounding_radius();
        assert!(
            tight
                .min
                .cmpge(body.position - Vec2::splat(size + 1e-5))
                .all()
        );
        assert!(
            tight
                .max
                .cmple(body.position + Vec2::splat(size + 1e-5))
                .all()
        );
    }
}

#[test]
fn static_pairs_can_be_left_out_and_order_is_deterministic() {
    let (shapes, mut bodies) = scene(86, 500, 8.0);
    for body in bodies.iter_mut().step_by(2) {
        body.inv_mass = 0.0;
    }
    let all = find_pairs(&shapes, &bodies, 0.0, PairFilter::default());
    let moving = find_pairs(
        &shapes,
        &bodies,
        0.0,
        PairFilter {
            skip_static_pairs: true,
        },
    );
    assert!(moving.len() < all.len());
    assert!(
        moving
            .iter()
            .all(|p| !(bodies[p.a as usize].is_static() && bodies[p.b as usize].is_static()))
    );
    assert!(
        all.windows(2).all(|w| w[0] < w[1]),
        "sorted and without duplicates"
    );
    assert!(all.iter().all(|p| p.a < p.b));
    assert_eq!(
        all,
        find_pairs(&shapes, &bodies, 0.0, PairFilter::default())
    );
}
