//! Contact recycling, the 2D world's option that is not exact by design
//! (the twin of `d3/recycle.rs`): the demo's pile with it settles, and on
//! every frame each recycled answer stays within the tolerance of the exact
//! answer for the same poses (the depth of a pair reported by both; a pair
//! reported by one only lies within the tolerance of the margin's edge).

use gpusat::generate::{DEMO_DT, DEMO_FRAMES, DEMO_PARTICLES, DEMO_SEED, DemoScene};
use gpusat::sat::TIE_TOLERANCE;
use gpusat::{
    BackendKind, Batch, Narrowphase, PairFilter, World, WorldOptions, collide_cpu, find_pairs,
};

const TOLERANCE: f32 = 1e-3;

#[test]
fn a_recycling_pile_settles_with_every_answer_within_the_tolerance() {
    let scene = DemoScene::new(DEMO_PARTICLES, DEMO_SEED).expect("demo scene");
    let options = WorldOptions {
        recycle: Some(TOLERANCE),
        ..WorldOptions::default()
    };
    let narrowphase = Narrowphase::new(BackendKind::Cpu).expect("backend");
    let mut world = World::new(
        scene.shapes.clone(),
        scene.bodies.clone(),
        narrowphase,
        options,
    )
    .expect("world");
    let size = |body: u32| {
        let shape = scene.bodies[body as usize].shape;
        scene.shapes.get(shape).expect("shape").bounding_radius()
    };
    let (mut peak, mut recycled, mut worst_depth, mut one_sided) = (0.0f64, 0usize, 0.0f32, 0);
    for frame in 0..DEMO_FRAMES {
        let before = world.bodies().to_vec();
        let stats = world.step(DEMO_DT).expect("step").clone();
        recycled += stats.recycled;
        peak = peak.max(world.kinetic_energy());
        let filter = PairFilter {
            skip_static_pairs: true,
        };
        let pairs = find_pairs(&scene.shapes, &before, options.margin, filter);
        assert_eq!(
            pairs.len(),
            stats.pairs,
            "frame {frame}: the broadphase's pairs"
        );
        let batch = Batch::new(&scene.shapes, &before, &pairs, options.margin).expect("batch");
        let exact = collide_cpu(&batch);
        let (mut got, mut want) = (world.hits().iter().peekable(), exact.iter().peekable());
        while got.peek().is_some() || want.peek().is_some() {
            match (got.peek(), want.peek()) {
                (Some(g), Some(w)) if g.pair == w.pair => {
                    let pair = pairs[g.pair as usize];
                    let slack = TOLERANCE + 4.0 * TIE_TOLERANCE * (size(pair.a) + size(pair.b));
                    let error = (g.depth - w.depth).abs();
                    assert!(
                        error <= slack,
                        "frame {frame}, pair {pair:?}: recycled depth {} against the exact {}",
                        g.depth,
                        w.depth
                    );
                    worst_depth = worst_depth.max(error);
                    got.next();
                    want.next();
                }
                (g, w) => {
                    // Reported by one only: within the tolerance of the
                    // margin's edge.
                    let take_got = match (g, w) {
                        (Some(g), Some(w)) => g.pair < w.pair,
                        (g, _) => g.is_some(),
                    };
                    let depth = if take_got {
                        got.next().map(|g| g.depth)
                    } else {
                        want.next().map(|w| w.depth)
                    }
                    .unwrap_or_default();
                    assert!(
                        (depth + options.margin).abs() <= 2.0 * TOLERANCE,
                        "frame {frame}: a pair reported by one side only at depth {depth}"
                    );
                    one_sided += 1;
                }
            }
        }
    }
    println!(
        "recycled {recycled} pairs; largest depth error {worst_depth:.2e}, {one_sided} pairs \
         reported by one side only"
    );
    assert!(recycled > 100_000, "only {recycled} pairs recycled");
    let end = world.kinetic_energy();
    assert!(
        end < 0.01 * peak,
        "kinetic energy {end} at the end, {peak} at the peak"
    );
    let deepest = world.frame_stats().max_depth;
    assert!(deepest < 2.0 * options.slop, "deepest contact {deepest}");
}

#[test]
fn a_recycling_tolerance_must_be_below_the_margin_and_not_resident() {
    let scene = DemoScene::new(10, DEMO_SEED).expect("demo scene");
    for bad in [-1e-3, f32::NAN, f32::INFINITY, 0.02, 1.0] {
        let narrowphase = Narrowphase::new(BackendKind::Cpu).expect("backend");
        let options = WorldOptions {
            recycle: Some(bad),
            ..WorldOptions::default()
        };
        let error = World::new(
            scene.shapes.clone(),
            scene.bodies.clone(),
            narrowphase,
            options,
        )
        .err()
        .expect("rejected")
        .to_string();
        assert!(error.contains("recycling tolerance"), "{error}");
    }
    // A GPU-resident frame keeps its pairs on the device: refused, by name.
    let Some(context) = crate::common::gpu_context() else {
        return;
    };
    let options = WorldOptions {
        recycle: Some(TOLERANCE),
        ..WorldOptions::default()
    };
    let narrowphase = Narrowphase::new(BackendKind::Cpu).expect("backend");
    let mut world = World::new(scene.shapes, scene.bodies, narrowphase, options).expect("world");
    let error = world
        .use_gpu_frame(context)
        .expect_err("refused")
        .to_string();
    assert!(
        error.contains("GPU-resident frame") && error.contains("recycling"),
        "{error}"
    );
    assert!(world.gpu_frame().is_none());
}
