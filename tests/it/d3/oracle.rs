//! The 3D SAT against an exact double-precision oracle (every face normal
//! and every edge-pair cross product of the two placed hulls, no pruning;
//! exact sphere distances), on more than 10,000 seeded random pairs: hulls
//! of 4 to 256 vertices, boxes, flat plates (1:50), spheres, deep overlaps,
//! resting contact (nearly parallel faces), bodies 10,000 units out.
//!
//! For each pair: the classification (reported exactly when the oracle says
//! the depth passes `-margin`, except within `1e-4 x size` of it), the depth
//! within `1e-4 x size` of the oracle's (the SAT prefers a face to an edge
//! pair unless the edge pair is shallower by `2e-5 x (size A + size B)`, so
//! up to that much deeper than the exact minimum is by design: seen 3.2e-5
//! x size at most here), and the reported normal an axis
//! along which the two shapes' overlap equals the depth.

use crate::common::oracle3::{oracle_depth, overlap_along, pair_scale, place};
use glam::{Quat, Vec3};
use gpusat::Pair;
use gpusat::d3::{Batch, Body, ShapeSet, collide_cpu};
use gpusat::generate::d3::{SceneSpec, random_hull};
use gpusat::generate::rng;
use rand::RngExt;

const TOLERANCE: f64 = 1e-4;

#[derive(Default, Debug)]
struct Tally {
    pairs: usize,
    overlapping: usize,
    reported: usize,
    worst_depth: f64,
    worst_overlap: f64,
}

fn check(what: &str, shapes: &ShapeSet, bodies: &[Body], pairs: &[Pair], margin: f32) -> Tally {
    let batch = Batch::new(shapes, bodies, pairs, margin).expect("batch");
    let sat_hits = collide_cpu(&batch);
    let mut tally = Tally {
        pairs: pairs.len(),
        reported: sat_hits.len(),
        ..Tally::default()
    };
    let mut next = 0;
    for (index, pair) in pairs.iter().enumerate() {
        let (a, b) = (&bodies[pair.a as usize], &bodies[pair.b as usize]);
        let (placed_a, placed_b) = (place(shapes, a), place(shapes, b));
        let exact = oracle_depth(&placed_a, &placed_b);
        let scale = pair_scale(shapes, a, b);
        let tolerance = TOLERANCE * scale;
        let hit = sat_hits
            .get(next)
            .filter(|hit| hit.pair as usize == index)
            .copied();
        if hit.is_some() {
            next += 1;
        }
        if exact > tolerance {
            tally.overlapping += 1;
        }
        match hit {
            None => assert!(
                exact <= -(margin as f64) + tolerance,
                "{what}: pair {index} not reported, the oracle's depth is {exact} (size {scale})"
            ),
            Some(sat_hit) => {
                // Separated: reported only through the margin (the depth then
                // is minus the largest separation over the Minkowski
                // difference's faces, a lower bound of the gap).
                let depth = sat_hit.depth as f64;
                if exact > 0.0 {
                    let error = (depth - exact).abs();
                    tally.worst_depth = tally.worst_depth.max(error / scale);
                    assert!(
                        error <= tolerance,
                        "{what}: pair {index} depth {depth} ({:?}), the oracle's {exact} (size {scale})",
                        sat_hit.axis
                    );
                } else {
                    assert!(
                        depth > -(margin as f64) - tolerance && depth >= exact - tolerance,
                        "{what}: pair {index} reported with depth {depth}, the oracle's {exact}"
                    );
                }
                let normal = batch.hit(sat_hit).normal.as_dvec3();
                assert!(
                    (normal.length() - 1.0).abs() < 1e-5,
                    "{what}: pair {index} normal {normal}"
                );
                let along = overlap_along(&placed_a, &placed_b, normal);
                let error = (along - depth).abs();
                tally.worst_overlap = tally.worst_overlap.max(error / scale);
                assert!(
                    error <= tolerance,
                    "{what}: pair {index}: overlap along the normal {along}, depth {depth} ({:?}, size {scale})",
                    sat_hit.axis
                );
            }
        }
    }
    assert_eq!(next, sat_hits.len(), "{what}: hits out of pair order");
    eprintln!("{what}: {tally:?}");
    tally
}

#[test]
fn mixed_shapes_agree_with_the_oracle() {
    let mut pairs = 0;
    for (seed, margin) in [(1301, 0.0), (1302, 0.2), (1303, 0.0)] {
        let scene = SceneSpec::mixed(seed, 2500).generate();
        let tally = check("mixed", &scene.shapes, &scene.bodies, &scene.pairs, margin);
        assert!(tally.overlapping > 200, "{tally:?}");
        pairs += tally.pairs;
    }
    // Deep overlaps: everything within half a unit of the origin.
    let scene = SceneSpec {
        half_extent: 0.3,
        ..SceneSpec::mixed(1304, 2000)
    }
    .generate();
    let tally = check("deep", &scene.shapes, &scene.bodies, &scene.pairs, 0.0);
    assert!(tally.overlapping > 1000, "{tally:?}");
    pairs += tally.pairs;
    // 10,000 units from the origin.
    let scene = SceneSpec {
        offset: Vec3::new(10_000.0, -10_000.0, 5_000.0),
        ..SceneSpec::mixed(1305, 1500)
    }
    .generate();
    let tally = check("far", &scene.shapes, &scene.bodies, &scene.pairs, 0.1);
    assert!(tally.overlapping > 200, "{tally:?}");
    pairs += tally.pairs;
    assert!(pairs >= 10_000, "{pairs} pairs");
}

#[test]
fn large_hulls_agree_with_the_oracle() {
    let scene = SceneSpec {
        shapes: 12,
        bodies: 24,
        vertices: (64, 256),
        sphere_fraction: 0.0,
        box_fraction: 0.0,
        plate_fraction: 0.2,
        half_extent: 0.8,
        ..SceneSpec::mixed(1306, 40)
    }
    .generate();
    let largest = scene
        .shapes
        .shapes()
        .iter()
        .filter_map(|s| s.hull())
        .map(|h| h.vertices().len())
        .max()
        .unwrap_or(0);
    assert!(largest > 200, "the largest hull has {largest} vertices");
    let tally = check("large", &scene.shapes, &scene.bodies, &scene.pairs, 0.0);
    assert!(tally.overlapping > 25, "{tally:?}");
}

/// Boxes and flat-topped hulls resting on each other: nearly parallel faces,
/// depths from a millionth to a hundredth of their size, tilts of a
/// ten-thousandth of a radian, where face and edge axes nearly tie.
#[test]
fn resting_contact_agrees_with_the_oracle() {
    let mut random = rng(1307);
    let mut shapes = ShapeSet::new();
    let floor = shapes.add_cuboid(Vec3::new(2.0, 0.5, 2.0)).expect("floor");
    let cube = shapes.add_cuboid(Vec3::splat(0.5)).expect("cube");
    let slab = shapes.add_cuboid(Vec3::new(0.8, 0.1, 0.4)).expect("slab");
    let plate = shapes.push(random_hull(&mut random, 32, 0.7, 0.02).into());
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    for i in 0..800 {
        let top = [cube, slab, plate][i % 3];
        let depth = 10f32.powf(random.random_range(-6.0..-2.0));
        let tilt = Quat::from_axis_angle(
            Vec3::new(
                random.random_range(-1.0..1.0),
                0.0,
                random.random_range(-1.0..1.0),
            )
            .normalize_or_zero(),
            random.random_range(-1e-4..1e-4),
        );
        let spin = Quat::from_rotation_y(random.random_range(-3.0..3.0));
        let rotation = tilt * spin;
        // Rest the shape's lowest point `depth` into the floor's top (y = 0.5).
        let shape = shapes.get(top).expect("shape").hull().expect("hull");
        let lowest = shape
            .vertices()
            .iter()
            .map(|v| (rotation * *v).y)
            .fold(f32::MAX, f32::min);
        let position = Vec3::new(
            random.random_range(-1.0..1.0),
            0.5 - lowest - depth,
            random.random_range(-1.0..1.0),
        );
        let base = bodies.len() as u32;
        bodies.push(Body::fixed(floor, Vec3::ZERO, Quat::IDENTITY));
        bodies.push(Body::new(top, position, rotation));
        pairs.push(if i % 2 == 0 {
            Pair::new(base, base + 1)
        } else {
            Pair::new(base + 1, base)
        });
    }
    let tally = check("resting", &shapes, &bodies, &pairs, 0.0);
    assert!(tally.reported > 700, "{tally:?}");
}

/// Spheres touching hulls near a vertex, where an edge's closest point and
/// the vertex are nearly as near: the reported feature is the exact closest
/// one, so the normal is the direction from the hull's closest point, and
/// the overlap along it is the depth (within 1e-5 of the size). Placed at
/// the origin and 8,000 units out: the same answers.
#[test]
fn spheres_touching_near_hull_vertices_get_the_exact_axis() {
    use crate::common::oracle3::{Placed, hull_distance};
    use gpusat::generate::d3::{random_direction, random_rotation};
    let mut random = rng(4121);
    let mut shapes = ShapeSet::new();
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    for k in 0..3_000u32 {
        let count = random.random_range(6..=20);
        let hull = random_hull(&mut random, count, 0.6, 1.0);
        let radius = random.random_range(0.1..0.5f32);
        let hull_shape = shapes.push(hull.clone().into());
        let sphere_shape = shapes.add_sphere(radius).expect("a sphere");
        let offset = if k % 2 == 0 {
            Vec3::ZERO
        } else {
            Vec3::new(8_000.0, -2_000.0, 500.0)
        };
        let rotation = random_rotation(&mut random);
        // A vertex, and a direction out of the hull near its normal cone's
        // edge: the centre's closest point on or near an edge by the vertex.
        let vertex = hull.vertices()[random.random_range(0..hull.vertices().len())];
        let outward = (vertex.normalize() + 0.6 * random_direction(&mut random)).normalize();
        let centre = vertex + (radius - random.random_range(0.0..0.01f32)) * outward;
        bodies.push(Body::new(hull_shape, offset, rotation));
        bodies.push(Body::new(
            sphere_shape,
            offset + rotation * centre,
            Quat::IDENTITY,
        ));
        pairs.push(Pair::new(2 * k, 2 * k + 1));
    }
    let batch = Batch::new(&shapes, &bodies, &pairs, 0.02).expect("batch");
    let hits = batch.hits(&collide_cpu(&batch));
    let mut checked = 0;
    for hit in &hits {
        let (a, b) = (&bodies[hit.a as usize], &bodies[hit.b as usize]);
        let (hull, sphere) = (place(&shapes, a), place(&shapes, b));
        let Placed::Hull {
            vertices,
            faces,
            edges,
        } = &hull
        else {
            unreachable!("body A is the hull")
        };
        let Placed::Sphere { centre, radius } = sphere else {
            unreachable!("body B is the sphere")
        };
        let scale = pair_scale(&shapes, a, b);
        let exact = radius - hull_distance(vertices, faces, edges, centre);
        let depth = f64::from(hit.depth);
        assert!(
            (depth - exact).abs() <= 1e-5 * scale,
            "pair {}: depth {depth}, exact {exact}",
            hit.pair
        );
        let overlap = overlap_along(&hull, &sphere, hit.normal.as_dvec3());
        assert!(
            (overlap - depth).abs() <= 1e-5 * scale,
            "pair {}: along {:?} ({:?}) the overlap is {overlap}, the depth {depth}",
            hit.pair,
            hit.normal,
            hit.axis
        );
        checked += 1;
    }
    assert!(checked > 2_500, "{checked} of 3,000 pairs reported");
}
