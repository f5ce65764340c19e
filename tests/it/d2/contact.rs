//! `collide_shapes`, one pair without a batch, gives bit for bit what the
//! batch paths give for the same shapes and transforms: the same pairs
//! reported, the same axis, normal and depth bits, the same contact points
//! (against `collide_cpu` + `Batch::hit` + `manifold`, and against the fused
//! `contacts_cpu`).

use glam::Vec2;
use gpusat::generate::SceneSpec;
use gpusat::{
    Batch, Circle, Contact, ContactPoint, Manifold, Owner, Polygon, Shape, Transform, collide_cpu,
    collide_shapes, contacts_cpu, manifold,
};

fn point_bits(points: &[ContactPoint]) -> Vec<[u32; 4]> {
    points
        .iter()
        .map(|p| {
            [
                p.point.x.to_bits(),
                p.point.y.to_bits(),
                p.depth.to_bits(),
                p.id,
            ]
        })
        .collect()
}

fn contact_bits(contact: &Contact) -> ([u32; 3], u32, Vec<[u32; 4]>) {
    (
        [
            contact.normal.x.to_bits(),
            contact.normal.y.to_bits(),
            contact.depth.to_bits(),
        ],
        contact.axis.pack(),
        point_bits(contact.points()),
    )
}

fn manifold_bits(manifold: &Manifold, depth: f32, axis: u32) -> ([u32; 3], u32, Vec<[u32; 4]>) {
    (
        [
            manifold.normal.x.to_bits(),
            manifold.normal.y.to_bits(),
            depth.to_bits(),
        ],
        axis,
        point_bits(manifold.points()),
    )
}

#[test]
fn one_pair_equals_the_batch_bit_for_bit() {
    let specs = [
        // Polygons of 3 to 16 vertices, circles, slivers.
        SceneSpec {
            half_extent: 2.0,
            ..SceneSpec::mixed(301, 60_000)
        },
        // Large polygons (the merged search above 48 vertices).
        SceneSpec {
            vertices: (17, 64),
            half_extent: 2.0,
            ..SceneSpec::mixed(302, 20_000)
        },
        // Far from the origin.
        SceneSpec {
            offset: Vec2::new(10_000.0, -10_000.0),
            half_extent: 2.0,
            ..SceneSpec::mixed(303, 20_000)
        },
    ];
    let mut reported = 0;
    let mut kinds = [0usize; 3];
    for spec in &specs {
        let scene = spec.generate();
        for margin in [0.0, 0.3] {
            let batch =
                Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
            let sat_hits = collide_cpu(&batch);
            let fused = contacts_cpu(&batch);
            assert_eq!(fused.len(), sat_hits.len());
            let mut next = 0;
            for (index, pair) in scene.pairs.iter().enumerate() {
                let (body_a, body_b) = (
                    &scene.bodies[pair.a as usize],
                    &scene.bodies[pair.b as usize],
                );
                let shape_a = scene.shapes.get(body_a.shape).expect("shape");
                let shape_b = scene.shapes.get(body_b.shape).expect("shape");
                let contact = collide_shapes(
                    shape_a,
                    &body_a.transform(),
                    shape_b,
                    &body_b.transform(),
                    margin,
                );
                let batch_hit = sat_hits
                    .get(next)
                    .filter(|hit| hit.pair as usize == index)
                    .copied();
                match (contact, batch_hit) {
                    (None, None) => {}
                    (Some(contact), Some(sat_hit)) => {
                        let hit = batch.hit(sat_hit);
                        let expected =
                            manifold_bits(&manifold(&batch, &hit), hit.depth, hit.axis.pack());
                        assert_eq!(
                            contact_bits(&contact),
                            expected,
                            "pair {index} (margin {margin}): one pair {contact:?}, batch {hit:?}"
                        );
                        assert_eq!(
                            contact_bits(&contact),
                            manifold_bits(&fused[next], hit.depth, hit.axis.pack()),
                            "pair {index}: one pair against the fused contacts"
                        );
                        let kind = match (shape_a, shape_b) {
                            (Shape::Polygon(_), Shape::Polygon(_)) => 0,
                            (Shape::Circle(_), Shape::Circle(_)) => 2,
                            _ => 1,
                        };
                        kinds[kind] += 1;
                        reported += 1;
                        next += 1;
                    }
                    (contact, hit) => panic!(
                        "pair {index} (margin {margin}): one pair says {contact:?}, the batch {hit:?}"
                    ),
                }
            }
            assert_eq!(next, sat_hits.len(), "every batch hit matched");
        }
    }
    eprintln!(
        "{reported} reported pairs identical (polygons {}, polygon-circle {}, circles {})",
        kinds[0], kinds[1], kinds[2]
    );
    assert!(
        kinds.iter().all(|&count| count > 100),
        "too few of some kind: {kinds:?}"
    );
}

#[test]
fn two_boxes_side_by_side_by_hand() {
    let a = Shape::from(Polygon::rectangle(1.0, 1.0).expect("box"));
    let b = Shape::from(Polygon::rectangle(0.5, 0.5).expect("box"));
    // B overlaps A's right face by 0.25, sitting a little high.
    let contact = collide_shapes(
        &a,
        &Transform::new(Vec2::ZERO, 0.0),
        &b,
        &Transform::new(Vec2::new(1.25, 0.25), 0.0),
        0.0,
    )
    .expect("overlap");
    assert_eq!(contact.normal, Vec2::X, "{contact:?}");
    assert!((contact.depth - 0.25).abs() < 1e-6, "{contact:?}");
    assert_eq!(contact.axis.owner, Owner::A);
    assert_eq!(contact.axis.feature, 1, "A's right face is edge 1");
    // Two points, midway between the surfaces (x = 1 - 0.125), at B's
    // corners' heights.
    let mut ys: Vec<f32> = contact.points().iter().map(|p| p.point.y).collect();
    ys.sort_by(f32::total_cmp);
    assert_eq!(contact.points().len(), 2);
    for point in contact.points() {
        assert!((point.point.x - 0.875).abs() < 1e-6, "{point:?}");
        assert!((point.depth - 0.25).abs() < 1e-6, "{point:?}");
    }
    assert!(
        (ys[0] + 0.25).abs() < 1e-6 && (ys[1] - 0.75).abs() < 1e-6,
        "{ys:?}"
    );
}

#[test]
fn apart_pairs_and_margins() {
    let circle = Shape::from(Circle::new(0.5).expect("circle"));
    let at = |x: f32| Transform::new(Vec2::new(x, 0.0), 0.0);
    // 0.1 apart: not reported without a margin, reported with a negative
    // depth through one.
    assert!(collide_shapes(&circle, &at(0.0), &circle, &at(1.1), 0.0).is_none());
    let near = collide_shapes(&circle, &at(0.0), &circle, &at(1.1), 0.2).expect("within margin");
    assert!((near.depth + 0.1).abs() < 1e-6, "{near:?}");
    assert_eq!(near.normal, Vec2::X);
    assert_eq!(near.points().len(), 1);
    assert!((near.points()[0].point.x - 0.55).abs() < 1e-6, "{near:?}");
    // A negative or non-finite margin counts as 0.
    for margin in [-1.0, f32::NAN, f32::NEG_INFINITY, f32::INFINITY] {
        assert!(
            collide_shapes(&circle, &at(0.0), &circle, &at(1.1), margin).is_none(),
            "margin {margin}"
        );
    }
}
