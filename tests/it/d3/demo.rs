//! The 3D demo scene through the 3D frame pipeline: the default pile of
//! 1,000 hulls, boxes and spheres settles (kinetic energy at the end below
//! 1% of its peak, the deepest contact below 1% of the median shape size),
//! the same bit for bit on cpu and cpu-parallel.

use gpusat::BackendKind;
use gpusat::d3::{Narrowphase, World, WorldOptions};
use gpusat::generate::d2::{DEMO_DT, DEMO_FRAMES, DEMO_SEED};
use gpusat::generate::d3::{DEMO_BODIES, DemoScene};

#[test]
fn the_default_3d_pile_settles_the_same_on_both_cpu_backends() {
    let scene = DemoScene::new(DEMO_BODIES, DEMO_SEED).expect("demo scene");
    let mut sizes: Vec<f32> = scene.bodies[scene.walls..]
        .iter()
        .map(|b| 2.0 * scene.shapes.get(b.shape).expect("shape").bounding_radius())
        .collect();
    sizes.sort_by(f32::total_cmp);
    let median = sizes[sizes.len() / 2];
    let world = |kind| {
        let narrowphase = Narrowphase::new(kind).expect("backend");
        World::new(
            scene.shapes.clone(),
            scene.bodies.clone(),
            narrowphase,
            WorldOptions::default(),
        )
        .expect("world")
    };
    let (mut serial, mut parallel) = (world(BackendKind::Cpu), world(BackendKind::CpuParallel));
    let mut peak = 0.0f64;
    for frame in 0..DEMO_FRAMES {
        serial.step(DEMO_DT).expect("step");
        parallel.step(DEMO_DT).expect("step");
        assert!(
            serial.bodies() == parallel.bodies(),
            "frame {frame}: cpu and cpu-parallel differ"
        );
        peak = peak.max(serial.kinetic_energy());
    }
    let end = serial.kinetic_energy();
    assert!(
        end < 0.01 * peak,
        "kinetic energy {end} at the end, {peak} at the peak"
    );
    let deepest = serial.frame_stats().max_depth;
    assert!(
        deepest < 0.01 * median,
        "deepest contact {deepest}, median shape size {median}"
    );
    let inside = serial.bodies()[scene.walls..]
        .iter()
        .filter(|b| b.position.x.abs() < scene.half_width && b.position.z.abs() < scene.half_width)
        .count();
    assert_eq!(inside, DEMO_BODIES, "bodies left the box");
}
