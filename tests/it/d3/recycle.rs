//! Contact recycling, the 3D world's option that is not exact by design:
//! the default pile with it settles as the exact one does, and on every
//! frame each recycled answer stays within the tolerance of the exact
//! answer for the same poses (the depth of a pair reported by both; a pair
//! reported by one only lies within the tolerance of the margin's edge).

use gpusat::BackendKind;
use gpusat::d3::{Batch, Narrowphase, World, WorldOptions, collide_cpu, find_pairs};
use gpusat::generate::d2::{DEMO_DT, DEMO_FRAMES, DEMO_SEED};
use gpusat::generate::d3::{DEMO_BODIES, DemoScene};
use gpusat::{PairFilter, d3::sat::EDGE_TOLERANCE};

const TOLERANCE: f32 = 1e-3;

#[test]
fn a_recycling_pile_settles_with_every_answer_within_the_tolerance() {
    let scene = DemoScene::new(DEMO_BODIES, DEMO_SEED).expect("demo scene");
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
        scene.shapes.get(shape).expect("shape").size()
    };
    let (mut peak, mut recycled_late, mut pairs_late) = (0.0f64, 0usize, 0usize);
    let (mut worst_depth, mut one_sided) = (0.0f32, 0usize);
    for frame in 0..DEMO_FRAMES {
        // The narrowphase runs on the poses the step starts from.
        let before = world.bodies().to_vec();
        let stats = world.step(DEMO_DT).expect("step").clone();
        if frame >= DEMO_FRAMES / 2 {
            (recycled_late, pairs_late) =
                (recycled_late + stats.recycled, pairs_late + stats.pairs);
        }
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
        loop {
            match (got.peek(), want.peek()) {
                (None, None) => break,
                (Some(g), Some(w)) if g.pair == w.pair => {
                    let pair = pairs[g.pair as usize];
                    let slack = TOLERANCE + 2.0 * EDGE_TOLERANCE * (size(pair.a) + size(pair.b));
                    let error = (g.depth - w.depth).abs();
                    assert!(
                        error <= slack,
                        "frame {frame}, pair {pair:?}: recycled depth {} against the exact {} ({error} > {slack})",
                        g.depth,
                        w.depth
                    );
                    worst_depth = worst_depth.max(error);
                    got.next();
                    want.next();
                }
                (g, w) => {
                    // Reported by one only: the other's depth is within the
                    // tolerance of the margin's edge.
                    let (index, depth) = match (g, w) {
                        (Some(g), Some(w)) if g.pair < w.pair => (g.pair, g.depth),
                        (Some(g), None) => (g.pair, g.depth),
                        (_, Some(w)) => (w.pair, w.depth),
                        (None, None) => unreachable!(),
                    };
                    assert!(
                        (depth + options.margin).abs() <= 2.0 * TOLERANCE,
                        "frame {frame}, pair {index}: reported by one side only at depth {depth}"
                    );
                    one_sided += 1;
                    if g.is_some_and(|g| g.pair == index) {
                        got.next();
                    } else {
                        want.next();
                    }
                }
            }
        }
    }
    let share = recycled_late as f64 / pairs_late.max(1) as f64;
    println!(
        "recycled {:.1}% of the pairs in the second half; largest depth error {worst_depth:.2e}, \
         {one_sided} pairs reported by one side only",
        100.0 * share
    );
    assert!(
        share > 0.5,
        "only {:.1}% recycled once settling",
        100.0 * share
    );
    let end = world.kinetic_energy();
    assert!(
        end < 0.01 * peak,
        "kinetic energy {end} at the end, {peak} at the peak"
    );
    let deepest = world.frame_stats().max_depth;
    assert!(deepest < 2.0 * options.slop, "deepest contact {deepest}");
}

#[test]
fn a_recycling_tolerance_must_be_a_length_below_the_margin() {
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
}
