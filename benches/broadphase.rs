//! Sweep and prune against a uniform grid, on the demo's scenes: the
//! starting grid of particles, and the settled pile after the demo's frames.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gpusat::generate::{DEMO_DT, DEMO_FRAMES, DEMO_PARTICLES, DEMO_SEED, DemoScene};
use gpusat::{
    Aabb, BackendKind, Narrowphase, World, WorldOptions, body_aabbs, sweep_and_prune, uniform_grid,
};

fn scenes() -> Vec<(&'static str, Vec<Aabb>)> {
    let scene = DemoScene::new(DEMO_PARTICLES, DEMO_SEED).expect("demo scene");
    let margin = WorldOptions::default().margin;
    let start = body_aabbs(&scene.shapes, &scene.bodies, margin);
    let narrowphase = Narrowphase::new(BackendKind::CpuParallel).expect("CPU");
    let mut world = World::new(
        scene.shapes,
        scene.bodies,
        narrowphase,
        WorldOptions::default(),
    )
    .expect("world");
    for _ in 0..DEMO_FRAMES {
        world.step(DEMO_DT).expect("step");
    }
    let settled = body_aabbs(world.shapes(), world.bodies(), margin);
    vec![("demo start", start), ("demo settled", settled)]
}

fn broadphase(c: &mut Criterion) {
    let mut group = c.benchmark_group("broadphase");
    for (name, boxes) in scenes() {
        group.throughput(Throughput::Elements(boxes.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("sweep and prune", name),
            &boxes,
            |b, boxes| b.iter(|| sweep_and_prune(boxes)),
        );
        group.bench_with_input(
            BenchmarkId::new("uniform grid", name),
            &boxes,
            |b, boxes| b.iter(|| uniform_grid(boxes, 0.0)),
        );
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // Numbers only: criterion's plots would need a system font.
    config = Criterion::default().without_plots();
    targets = broadphase
}
criterion_main!(benches);
