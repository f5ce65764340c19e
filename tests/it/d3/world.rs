//! The 3D frame pipeline steps bodies as a person expects them to move: a
//! box resting on the ground stays put, a stack of boxes stands, a sphere
//! rolls down a ramp, a pile settles; and the GPU backend gives the CPU's
//! trajectory.

use gpusat::BackendKind;
use gpusat::d3::{Body, Narrowphase, ShapeSet, World, WorldOptions};
use gpusat::glam::{Quat, Vec3};

const DT: f32 = 1.0 / 60.0;

/// A static ground slab whose top face is the plane y = 0, and its shape set.
fn ground(shapes: &mut ShapeSet) -> Body {
    let slab = shapes.add_cuboid(Vec3::new(10.0, 0.5, 10.0)).expect("slab");
    Body::fixed(slab, Vec3::new(0.0, -0.5, 0.0), Quat::IDENTITY)
}

fn world(shapes: ShapeSet, bodies: Vec<Body>) -> World {
    let narrowphase = Narrowphase::new(BackendKind::Cpu).expect("cpu backend");
    World::new(shapes, bodies, narrowphase, WorldOptions::default()).expect("world")
}

/// The angle between two orientations, in radians.
fn turned(from: Quat, to: Quat) -> f32 {
    from.normalize().angle_between(to.normalize())
}

#[test]
fn a_box_resting_on_the_ground_stays_put() {
    let mut shapes = ShapeSet::new();
    let floor = ground(&mut shapes);
    let cube = shapes.add_cuboid(Vec3::splat(0.5)).expect("cube");
    let start = Body::new(cube, Vec3::new(0.3, 0.5, -0.2), Quat::from_rotation_y(0.4));
    let mut world = world(shapes, vec![floor, start]);
    let mut highest_speed = 0.0f32;
    for frame in 0..600 {
        world.step(DT).expect("step");
        let body = world.bodies()[1];
        if frame >= 60 {
            highest_speed = highest_speed
                .max(body.velocity.length())
                .max(body.angular_velocity.length());
        }
    }
    let body = world.bodies()[1];
    let drift = (body.position - start.position).length();
    assert!(drift < 5e-3, "the box moved {drift} to {}", body.position);
    let angle = turned(start.rotation, body.rotation);
    assert!(angle < 1e-3, "the box turned by {angle} radians");
    assert!(
        highest_speed < 1e-2,
        "after the first second the box still moved at {highest_speed}"
    );
    let contacts = world
        .manifolds()
        .iter()
        .map(|m| m.points().len())
        .sum::<usize>();
    assert_eq!(contacts, 4, "a box resting flat has 4 contact points");
}

#[test]
fn a_stack_of_five_boxes_stands() {
    let mut shapes = ShapeSet::new();
    let floor = ground(&mut shapes);
    let cube = shapes.add_cuboid(Vec3::splat(0.5)).expect("cube");
    let mut bodies = vec![floor];
    for level in 0..5 {
        // Slightly apart and a little turned, each differently.
        let position = Vec3::new(0.01 * level as f32, 0.5 + 1.002 * level as f32, 0.0);
        bodies.push(Body::new(
            cube,
            position,
            Quat::from_rotation_y(0.05 * level as f32),
        ));
    }
    let start: Vec<Body> = bodies.clone();
    let mut world = world(shapes, bodies);
    for _ in 0..600 {
        world.step(DT).expect("step");
    }
    for (level, (now, then)) in world.bodies()[1..].iter().zip(&start[1..]).enumerate() {
        let sideways = Vec3::new(
            now.position.x - then.position.x,
            0.0,
            now.position.z - then.position.z,
        );
        assert!(
            sideways.length() < 0.02,
            "box {level} slid by {sideways} (now at {})",
            now.position
        );
        let expected_height = 0.5 + level as f32;
        assert!(
            (now.position.y - expected_height).abs() < 0.03,
            "box {level} at height {}, expected about {expected_height}",
            now.position.y
        );
        assert!(
            now.velocity.length() < 0.02,
            "box {level} still moving at {}",
            now.velocity
        );
    }
}

/// Every body of a stack where it started (sideways within `slide`, in
/// height within 0.03 of `heights`), and at rest.
fn assert_stands(what: &str, world: &World, start: &[Body], heights: &[f32], slide: f32) {
    for (level, ((now, then), height)) in world.bodies()[1..]
        .iter()
        .zip(&start[1..])
        .zip(heights)
        .enumerate()
    {
        let sideways = Vec3::new(
            now.position.x - then.position.x,
            0.0,
            now.position.z - then.position.z,
        );
        assert!(
            sideways.length() < slide,
            "{what} {level} slid by {sideways} (now at {})",
            now.position
        );
        assert!(
            (now.position.y - height).abs() < 0.03,
            "{what} {level} at height {}, expected about {height}",
            now.position.y
        );
        assert!(
            now.velocity.length() < 0.02,
            "{what} {level} still moving at {}",
            now.velocity
        );
    }
}

#[test]
fn a_stack_of_five_rounded_boxes_stands() {
    let mut shapes = ShapeSet::new();
    let floor = ground(&mut shapes);
    // Half extents 0.4 grown by 0.1: a unit rounded cube.
    let cube = shapes
        .add_rounded_cuboid(Vec3::splat(0.4), 0.1)
        .expect("rounded cube");
    let mut bodies = vec![floor];
    for level in 0..5 {
        let position = Vec3::new(0.01 * level as f32, 0.5 + 1.002 * level as f32, 0.0);
        bodies.push(Body::new(
            cube,
            position,
            Quat::from_rotation_y(0.05 * level as f32),
        ));
    }
    let start = bodies.clone();
    let mut world = world(shapes, bodies);
    for _ in 0..600 {
        world.step(DT).expect("step");
    }
    let heights: Vec<f32> = (0..5).map(|level| 0.5 + level as f32).collect();
    assert_stands("rounded box", &world, &start, &heights, 0.02);
    // Each resting pair touches at its four flat corners.
    assert!(
        world.manifolds().iter().all(|m| m.points().len() == 4),
        "{:?}",
        world
            .manifolds()
            .iter()
            .map(|m| m.points().len())
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_log_pile_of_capsules_stands() {
    let mut shapes = ShapeSet::new();
    let floor = ground(&mut shapes);
    // Logs along x, 2 long and 0.4 thick; each layer two logs crossed on
    // the two below.
    let log = shapes
        .add_capsule(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), 0.2)
        .expect("capsule");
    let mut bodies = vec![floor];
    let mut heights = Vec::new();
    for layer in 0..4 {
        let turn = if layer % 2 == 0 {
            Quat::IDENTITY
        } else {
            Quat::from_rotation_y(std::f32::consts::FRAC_PI_2)
        };
        for side in [-0.6f32, 0.6] {
            let across = if layer % 2 == 0 {
                Vec3::new(0.0, 0.0, side)
            } else {
                Vec3::new(side, 0.0, 0.0)
            };
            let height = 0.2 + 0.401 * layer as f32;
            bodies.push(Body::new(log, across + Vec3::Y * height, turn));
            heights.push(0.2 + 0.4 * layer as f32);
        }
    }
    let start = bodies.clone();
    let mut world = world(shapes, bodies);
    for _ in 0..600 {
        world.step(DT).expect("step");
    }
    // A log on two crossed logs may roll along without slipping anywhere
    // and without rising (a neutral equilibrium, as in a real pile with no
    // rolling resistance): the pile stands if it comes to rest where it was
    // built, within what the first landings roll it.
    assert_stands("log", &world, &start, &heights, 0.05);
}

#[test]
fn a_sphere_rolls_down_a_ramp() {
    let mut shapes = ShapeSet::new();
    let slope = 0.3f32; // radians, about 17 degrees
    let ramp_shape = shapes.add_cuboid(Vec3::new(6.0, 0.25, 2.0)).expect("ramp");
    let ball = shapes.add_sphere(0.3).expect("ball");
    // The ramp tilted about z, going down towards +x.
    let tilt = Quat::from_rotation_z(-slope);
    let ramp = Body::fixed(ramp_shape, Vec3::ZERO, tilt);
    let up = tilt * Vec3::Y;
    let start = up * (0.25 + 0.3 + 0.001) + tilt * Vec3::new(-4.0, 0.0, 0.0);
    let mut world = world(shapes, vec![ramp, Body::new(ball, start, Quat::IDENTITY)]);
    let mut deepest = 0.0f32;
    for _ in 0..90 {
        world.step(DT).expect("step");
        deepest = deepest.max(world.frame_stats().max_depth);
    }
    let body = world.bodies()[1];
    let downhill = tilt * Vec3::X;
    let travelled = (body.position - start).dot(downhill);
    // Rolling without slipping: a = g sin(slope) / (1 + 2/5); 1.5 s.
    let time = 90.0 * DT;
    let expected = 0.5 * 10.0 * slope.sin() / 1.4 * time * time;
    assert!(
        (travelled - expected).abs() < 0.1 * expected,
        "rolled {travelled} down the ramp, expected about {expected} (rolling, not sliding)"
    );
    // Rolling: the contact point is at rest, w x (-r up) = -v.
    let contact_velocity = body.velocity + body.angular_velocity.cross(-0.3 * up);
    assert!(
        contact_velocity.length() < 0.05 * body.velocity.length(),
        "the ball slips: its contact point moves at {contact_velocity} (centre at {})",
        body.velocity
    );
    let height = (body.position).dot(up);
    assert!(
        (height - 0.55).abs() < 0.01,
        "the ball left the ramp's surface: {height} above its middle plane"
    );
    assert!(deepest < 0.01, "the ball sank {deepest} into the ramp");
}

/// 27 boxes, spheres and 20-vertex hulls in a loose 3 x 3 x 3 block above
/// the ground inside four walls, each turned differently, on the backend
/// `narrowphase`.
fn pile(narrowphase: Narrowphase) -> World {
    pile_with(narrowphase, WorldOptions::default())
}

/// [`pile`] with the world's options.
fn pile_with(narrowphase: Narrowphase, options: WorldOptions) -> World {
    let mut shapes = ShapeSet::new();
    let floor = ground(&mut shapes);
    let cube = shapes.add_cuboid(Vec3::new(0.2, 0.15, 0.25)).expect("cube");
    let ball = shapes.add_sphere(0.18).expect("ball");
    let points: Vec<Vec3> = (0..20)
        .map(|k| {
            let a = k as f32 * 2.399_963;
            let y = 1.0 - 2.0 * (k as f32 + 0.5) / 20.0;
            let r = (1.0 - y * y).sqrt();
            0.25 * Vec3::new(r * a.cos(), y, r * a.sin())
        })
        .collect();
    let rock = shapes.add_hull(&points).expect("rock");
    // Four static walls around it: a sphere on an open plane rolls on.
    let wall_x = shapes.add_cuboid(Vec3::new(0.1, 0.6, 1.6)).expect("wall");
    let wall_z = shapes.add_cuboid(Vec3::new(1.6, 0.6, 0.1)).expect("wall");
    let mut bodies = vec![
        floor,
        Body::fixed(wall_x, Vec3::new(-1.5, 0.6, 0.0), Quat::IDENTITY),
        Body::fixed(wall_x, Vec3::new(1.5, 0.6, 0.0), Quat::IDENTITY),
        Body::fixed(wall_z, Vec3::new(0.0, 0.6, -1.5), Quat::IDENTITY),
        Body::fixed(wall_z, Vec3::new(0.0, 0.6, 1.5), Quat::IDENTITY),
    ];
    for k in 0..27 {
        let (i, j, l) = (k % 3, k / 3 % 3, k / 9);
        let shape = [cube, ball, rock][k % 3];
        let position = Vec3::new(
            0.6 * i as f32 - 0.6 + 0.05 * l as f32,
            0.4 + 0.6 * l as f32,
            0.6 * j as f32 - 0.6,
        );
        let rotation = Quat::from_euler(
            gpusat::glam::EulerRot::XYZ,
            0.3 * k as f32,
            0.7 * k as f32,
            0.0,
        );
        bodies.push(Body::new(shape, position, rotation));
    }
    World::new(shapes, bodies, narrowphase, options).expect("world")
}

/// A small pile of mixed shapes inside four walls comes to rest. (Its
/// batches are too small for the parallel backend to split them; the
/// default 3D demo in `tests/it/d3/demo.rs` compares cpu and
/// cpu-parallel where they do split.)
#[test]
fn a_small_pile_inside_walls_settles() {
    let mut world = pile(Narrowphase::new(BackendKind::Cpu).expect("backend"));
    let mut peak = 0.0f64;
    for _ in 0..300 {
        world.step(DT).expect("step");
        peak = peak.max(world.kinetic_energy());
    }
    let end = world.kinetic_energy();
    assert!(
        peak > 1.0,
        "the pile never fell: peak kinetic energy {peak}"
    );
    assert!(
        end < 0.01 * peak,
        "kinetic energy {end} at the end, {peak} at the peak"
    );
    let deepest = world.frame_stats().max_depth;
    assert!(deepest < 0.01 * 0.4, "deepest contact {deepest}");
}

/// The GPU backend (lavapipe in CI) reports what the CPU does on every frame
/// of the pile, so the trajectories are the CPU's bit for bit.
#[cfg(feature = "gpu")]
#[test]
fn the_pile_on_the_gpu_follows_the_cpu_bit_for_bit() {
    if crate::common::gpu_context().is_none() {
        return;
    }
    let gpu = Narrowphase::new(BackendKind::Gpu).expect("the GPU narrowphase on that adapter");
    let mut on_gpu = pile(gpu);
    on_gpu.set_check(true);
    let mut on_cpu = pile(Narrowphase::new(BackendKind::Cpu).expect("cpu"));
    for frame in 0..120 {
        on_gpu.step(DT).expect("gpu step");
        on_cpu.step(DT).expect("cpu step");
        assert_eq!(
            on_gpu.bodies(),
            on_cpu.bodies(),
            "frame {frame}: the GPU world left the CPU's"
        );
    }
    let check = on_gpu.check().expect("checking");
    assert!(
        check.agrees(),
        "the GPU disagreed with the CPU reference: {check:?}"
    );
    assert!(on_gpu.run_stats().hits > 1000, "{:?}", on_gpu.run_stats());
}

/// The pile through `begin_step` and `poll_step` (polled until each frame
/// is done, as a page does) follows `step`'s frames bit for bit, on the CPU
/// and on the GPU, with contact recycling and without (with it, the fresh
/// pairs started on the GPU and the frame merged when they come in).
#[test]
fn begin_step_and_poll_step_follow_step_bit_for_bit() {
    let backends = |kind| {
        (
            Narrowphase::new(kind).expect("backend"),
            Narrowphase::new(kind).expect("backend"),
        )
    };
    let mut kinds = vec![("cpu", BackendKind::Cpu)];
    #[cfg(feature = "gpu")]
    if crate::common::gpu_context().is_some() {
        kinds.push(("gpu", BackendKind::Gpu));
    }
    let recycling = WorldOptions {
        recycle: Some(1e-3),
        ..WorldOptions::default()
    };
    for (what, kind) in kinds {
        for options in [WorldOptions::default(), recycling] {
            let (started, stepped) = backends(kind);
            let (mut started, mut stepped) =
                (pile_with(started, options), pile_with(stepped, options));
            let (mut polls, mut recycled) = (0, 0);
            for frame in 0..60 {
                let mut done = started.begin_step(DT).expect("begin_step").is_some();
                while !done {
                    polls += 1;
                    std::thread::yield_now();
                    done = started.poll_step().expect("poll_step").is_some();
                }
                stepped.step(DT).expect("step");
                assert_eq!(
                    started.bodies(),
                    stepped.bodies(),
                    "{what}, recycling {:?}: frame {frame}: begin_step and poll_step left step's frames",
                    options.recycle
                );
                assert_eq!(
                    started.frame_stats().recycled,
                    stepped.frame_stats().recycled
                );
                recycled += started.frame_stats().recycled;
            }
            assert_eq!(
                recycled > 0,
                options.recycle.is_some(),
                "{what}: {recycled} recycled"
            );
            eprintln!("{what}: {polls} polls in 60 frames");
        }
    }
}
