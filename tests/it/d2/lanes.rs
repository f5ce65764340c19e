//! The vectorised CPU narrowphase (`sat_lanes`, what `collide_cpu` runs)
//! computes exactly what the scalar twin of the WGSL kernel (`sat`) states,
//! on the AVX path (where the CPU has it) and on the portable one.

use gpusat::Batch;
use gpusat::generate::SceneSpec;
use gpusat::sat::{self, twins as sat_lanes};

#[test]
fn eight_faces_at_a_time_equals_one_at_a_time_bit_for_bit() {
    let specs = [
        SceneSpec {
            half_extent: 3.0,
            ..SceneSpec::mixed(101, 200_000)
        },
        SceneSpec {
            vertices: (17, 64),
            half_extent: 2.0,
            ..SceneSpec::mixed(102, 50_000)
        },
        SceneSpec {
            sliver_fraction: 0.6,
            half_extent: 2.0,
            ..SceneSpec::mixed(103, 50_000)
        },
        SceneSpec {
            vertices: (3, 5),
            circle_fraction: 0.0,
            half_extent: 0.7,
            ..SceneSpec::mixed(104, 50_000)
        },
        // Capsules and rounded polygons among the rest: their faces'
        // clips with radii wait for the lanes too.
        SceneSpec {
            capsule_fraction: 0.35,
            rounded_fraction: 0.35,
            half_extent: 2.0,
            ..SceneSpec::mixed(105, 50_000)
        },
    ];
    for (index, spec) in specs.iter().enumerate() {
        for margin in [0.0, 0.3] {
            let scene = spec.generate();
            let batch =
                Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
            let mut reported = 0;
            for (pair_index, pair) in scene.pairs.iter().enumerate() {
                let (a, b) = (pair.a as usize, pair.b as usize);
                let scalar = sat_lanes::collide_pair_records(
                    &scene.shapes,
                    batch.transforms()[a],
                    batch.transforms()[b],
                    scene.bodies[a].shape,
                    scene.bodies[b].shape,
                    margin,
                    sat::CPU_MERGE_THRESHOLD,
                );
                let lanes = batch.test_pair(pair_index);
                match (scalar, lanes) {
                    (None, None) => {}
                    (Some(s), Some(l)) => {
                        reported += 1;
                        assert_eq!(s.axis, l.axis, "scene {index} pair {pair_index}");
                        assert_eq!(
                            (-s.separation).to_bits(),
                            l.depth.to_bits(),
                            "scene {index} pair {pair_index}: {} vs {}",
                            -s.separation,
                            l.depth
                        );
                    }
                    other => panic!(
                        "scene {index} pair {pair_index}: scalar and lanes disagree: {other:?}"
                    ),
                }
            }
            assert!(reported > 1000, "scene {index}: {reported} reported");
            // Both vector paths, over the whole batch, give the same hits.
            let mut dispatched = Vec::new();
            sat_lanes::collide_range(&batch, 0..scene.pairs.len(), &mut dispatched);
            let mut portable = Vec::new();
            sat_lanes::collide_range_portable(&batch, 0..scene.pairs.len(), &mut portable);
            assert_eq!(dispatched.len(), reported);
            let bits = |hits: &[gpusat::SatHit]| {
                hits.iter()
                    .map(|h| (h.pair, h.axis.pack(), h.depth.to_bits()))
                    .collect::<Vec<_>>()
            };
            assert!(
                bits(&dispatched) == bits(&portable),
                "scene {index}: AVX and portable paths differ"
            );
            // The fused contacts (the polygon pairs' clips eight at a
            // time, `manifold/clip_across.rs`): the general path's
            // manifolds, bit for bit, on both vector types.
            let general = gpusat::manifolds(&batch, &batch.hits(&dispatched));
            assert_contacts_are(&batch, &general, &format!("scene {index} margin {margin}"));
        }
    }
}

/// A manifold's every field as bits (`==` on floats takes -0 for +0), and
/// its debug form, which shows the slot past its points too (exactly: a
/// float's debug form is the shortest that reads back to its bits).
#[allow(clippy::type_complexity)]
fn manifold_bits(
    m: &gpusat::Manifold,
) -> (u32, u32, u32, [u32; 2], Vec<([u32; 2], u32, u32)>, String) {
    let points = m
        .points()
        .iter()
        .map(|p| {
            (
                p.point.to_array().map(f32::to_bits),
                p.depth.to_bits(),
                p.id,
            )
        })
        .collect();
    (
        m.pair,
        m.a,
        m.b,
        m.normal.to_array().map(f32::to_bits),
        points,
        format!("{m:?}"),
    )
}

/// The batch loops' hits on both vector types are `expected`, bit for bit.
fn assert_hits_are(batch: &Batch, expected: &[gpusat::SatHit], what: &str) {
    let range = 0..batch.pairs().len();
    let mut dispatched = Vec::new();
    sat_lanes::collide_range(batch, range.clone(), &mut dispatched);
    let mut portable = Vec::new();
    sat_lanes::collide_range_portable(batch, range, &mut portable);
    for (lanes, name) in [
        (&dispatched, "AVX (where present)"),
        (&portable, "portable"),
    ] {
        assert_eq!(lanes.len(), expected.len(), "{what}, {name} lanes");
        for (got, want) in lanes.iter().zip(expected) {
            assert_eq!(
                (got.pair, got.axis, got.depth.to_bits()),
                (want.pair, want.axis, want.depth.to_bits()),
                "{what}, {name} lanes: {} vs {}",
                got.depth,
                want.depth
            );
        }
    }
}

/// The batch's fused contacts on both vector types are `general`, bit for
/// bit.
fn assert_contacts_are(batch: &Batch, general: &[gpusat::Manifold], what: &str) {
    for (lanes, name) in [
        (contacts_of(batch, false), "AVX (where present)"),
        (contacts_of(batch, true), "portable"),
    ] {
        assert_eq!(lanes.len(), general.len(), "{what}, {name} contacts");
        for (got, want) in lanes.iter().zip(general) {
            assert_eq!(
                manifold_bits(got),
                manifold_bits(want),
                "{what}, {name} contacts: {got:?} vs {want:?}"
            );
        }
    }
}

/// The batch's fused contacts on the dispatched lanes (AVX where present)
/// or the portable ones.
fn contacts_of(batch: &Batch, portable: bool) -> Vec<gpusat::Manifold> {
    let mut out = Vec::new();
    if portable {
        sat_lanes::contacts_range_portable(batch, 0..batch.pairs().len(), &mut out);
    } else {
        sat_lanes::contacts_range(batch, 0..batch.pairs().len(), &mut out);
    }
    out
}

/// Two segment cores (capsules and bare segments) take their own straight
/// path on the CPU backends (`segments.rs`): it computes exactly what the
/// general two-polygon SAT and `rounded.rs` state, on random poses and on
/// the degenerate ones where the tie rule, the caps and the closest ends
/// decide (parallel, on one line, end to end, crossing, a quarter turn,
/// an end on the other's line), near the origin and 10,000 units out.
#[test]
fn segment_pairs_take_their_own_path_with_the_general_paths_bits() {
    use glam::Vec2;
    use gpusat::generate::rng;
    use gpusat::{Body, Capsule, Pair, Segment, ShapeSet};
    use rand::RngExt;

    let mut random = rng(0x5e9);
    let mut shapes = ShapeSet::new();
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    let quarter = std::f32::consts::FRAC_PI_2;
    for k in 0..40_000u32 {
        let mut segment = |random: &mut gpusat::generate::SceneRng| {
            let half = random.random_range(0.2..1.2f32);
            // Some ends on a grid, so that exact ties happen.
            let half = if random.random_bool(0.3) {
                half.round().max(0.5)
            } else {
                half
            };
            let (a, b) = (Vec2::new(-half, 0.0), Vec2::new(half, 0.0));
            if random.random_bool(0.25) {
                shapes.push(Segment::new(a, b).expect("a segment").into())
            } else {
                let radius = if random.random_bool(0.3) {
                    0.25
                } else {
                    random.random_range(0.02..0.6f32)
                };
                shapes.push(Capsule::new(a, b, radius).expect("a capsule").into())
            }
        };
        let (shape_a, shape_b) = (segment(&mut random), segment(&mut random));
        let offset = if k % 4 == 3 {
            Vec2::new(10_000.0, -7_500.0)
        } else {
            Vec2::ZERO
        };
        let angle_a = random.random_range(-3.2..3.2f32);
        let (angle_b, position) = match k % 8 {
            // Parallel, beside or overlapping along the line.
            0 => (
                angle_a,
                Vec2::new(
                    random.random_range(-2.5..2.5),
                    random.random_range(-1.2..1.2),
                ),
            ),
            // Anti-parallel, on one line (end to end, overlapping, apart).
            1 => (
                angle_a + std::f32::consts::PI,
                Vec2::new(random.random_range(-3.0..3.0), 0.0),
            ),
            // A quarter turn: an end against the other's side.
            2 => (
                angle_a + quarter,
                Vec2::new(
                    random.random_range(-1.5..1.5),
                    random.random_range(-1.5..1.5),
                ),
            ),
            // Small grid steps: exact touching and exact ties.
            3 => (
                angle_a + quarter * random.random_range(0..4) as f32,
                Vec2::new(
                    0.25 * random.random_range(-8..9) as f32,
                    0.25 * random.random_range(-6..7) as f32,
                ),
            ),
            // Crossing near the middle.
            4 => (
                random.random_range(-3.2..3.2f32),
                Vec2::new(
                    random.random_range(-0.3..0.3),
                    random.random_range(-0.3..0.3),
                ),
            ),
            // Anywhere within reach.
            _ => (
                random.random_range(-3.2..3.2f32),
                Vec2::new(
                    random.random_range(-3.0..3.0),
                    random.random_range(-3.0..3.0),
                ),
            ),
        };
        let (sin, cos) = angle_a.sin_cos();
        let world = Vec2::new(
            cos * position.x - sin * position.y,
            sin * position.x + cos * position.y,
        );
        bodies.push(Body::new(shape_a, offset, angle_a));
        bodies.push(Body::new(shape_b, offset + world, angle_b));
        pairs.push(Pair::new(2 * k, 2 * k + 1));
    }
    for margin in [0.0, 0.3] {
        let batch = Batch::new(&shapes, &bodies, &pairs, margin).expect("batch");
        let (mut reported, mut apart, mut vertex_pairs) = (0, 0, 0);
        for (index, pair) in pairs.iter().enumerate() {
            let (a, b) = (pair.a as usize, pair.b as usize);
            let general = sat_lanes::collide_pair_records(
                &shapes,
                batch.transforms()[a],
                batch.transforms()[b],
                bodies[a].shape,
                bodies[b].shape,
                margin,
                sat::CPU_MERGE_THRESHOLD,
            );
            let own = batch.test_pair(index);
            match (general, own) {
                (None, None) => {}
                (Some(g), Some(o)) => {
                    reported += 1;
                    apart += usize::from(g.separation > 0.0);
                    vertex_pairs += usize::from(g.axis.feature >= 4);
                    assert_eq!(g.axis, o.axis, "margin {margin} pair {index}");
                    assert_eq!(
                        (-g.separation).to_bits(),
                        o.depth.to_bits(),
                        "margin {margin} pair {index}: {} vs {}",
                        -g.separation,
                        o.depth
                    );
                }
                other => panic!("margin {margin} pair {index}: the paths disagree: {other:?}"),
            }
        }
        // Every case is met, not just some.
        assert!(reported > 12_000, "margin {margin}: {reported} reported");
        assert!(
            vertex_pairs > 1_500,
            "margin {margin}: {vertex_pairs} end-to-end pairs"
        );
        if margin > 0.0 {
            assert!(apart > 3_000, "margin {margin}: {apart} reported apart");
        }
        // The batch loops take segment pairs eight at a time, a lane a
        // pair: the same bits, on either vector type.
        let expected: Vec<_> = (0..pairs.len())
            .filter_map(|index| batch.test_pair(index))
            .collect();
        assert_eq!(expected.len(), reported);
        assert_hits_are(&batch, &expected, &format!("margin {margin}"));
        // Their contacts too (`manifold/segments_across.rs`): the general
        // path's manifolds, bit for bit, on either vector type.
        let general = gpusat::manifolds(&batch, &batch.hits(&expected));
        let (mut two_points, mut ids) = (0, std::collections::BTreeSet::new());
        for m in &general {
            two_points += usize::from(m.points().len() == 2);
            ids.extend(m.points().iter().map(|p| p.id));
        }
        assert!(
            two_points > 1_000,
            "margin {margin}: {two_points} two-point manifolds"
        );
        // Both owners, both faces, every vertex pair, crossings.
        assert!(ids.len() >= 14, "margin {margin}: ids {ids:?}");
        assert_contacts_are(&batch, &general, &format!("margin {margin}"));
    }
}

/// Two circles take their own path in the batch loops
/// (`sat/circles_across.rs`, `manifold/circles_across.rs`): eight pairs a
/// vector, the general path's hits and manifolds bit for bit, on both vector
/// types, for random, concentric, touching and far (10,000 units out)
/// pairs.
#[test]
fn circle_pairs_take_their_own_path_with_the_general_paths_bits() {
    use glam::Vec2;
    use gpusat::generate::rng;
    use gpusat::{Body, Circle, Pair, ShapeSet};
    use rand::RngExt;

    let mut random = rng(0xc1c);
    let mut shapes = ShapeSet::new();
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    for k in 0..30_000u32 {
        let mut circle = |random: &mut gpusat::generate::SceneRng| {
            let radius = if random.random_bool(0.3) {
                0.25
            } else {
                random.random_range(0.02..1.2f32)
            };
            shapes.push(Circle::new(radius).expect("a circle").into())
        };
        let (shape_a, shape_b) = (circle(&mut random), circle(&mut random));
        let offset = if k % 4 == 3 {
            Vec2::new(10_000.0, -7_500.0)
        } else {
            Vec2::ZERO
        };
        let position = match k % 6 {
            // Concentric, or within the concentric tolerance.
            0 => Vec2::new(random.random_range(-1e-7..1e-7), 0.0),
            // On a grid: exact touching (radii of 0.25 half a step apart).
            1 => {
                0.25 * Vec2::new(
                    random.random_range(-4..5) as f32,
                    random.random_range(-4..5) as f32,
                )
            }
            _ => Vec2::new(
                random.random_range(-3.0..3.0),
                random.random_range(-3.0..3.0),
            ),
        };
        let (angle_a, angle_b) = (
            random.random_range(-3.2..3.2f32),
            random.random_range(-3.2..3.2f32),
        );
        bodies.push(Body::new(shape_a, offset, angle_a));
        bodies.push(Body::new(shape_b, offset + position, angle_b));
        pairs.push(Pair::new(2 * k, 2 * k + 1));
    }
    for margin in [0.0, 0.3] {
        let batch = Batch::new(&shapes, &bodies, &pairs, margin).expect("batch");
        let expected: Vec<_> = (0..pairs.len())
            .filter_map(|index| batch.test_pair(index))
            .collect();
        assert!(
            expected.len() > 8_000,
            "margin {margin}: {} reported",
            expected.len()
        );
        assert_hits_are(&batch, &expected, &format!("margin {margin}"));
        let general = gpusat::manifolds(&batch, &batch.hits(&expected));
        let concentric = general.iter().filter(|m| m.normal == Vec2::X).count();
        assert!(concentric > 100, "margin {margin}: {concentric} concentric");
        assert_contacts_are(&batch, &general, &format!("margin {margin}"));
    }
}

/// Two triangles or quads take their own path in the batch loops
/// (`sat/polygons_across.rs`): eight pairs a vector, the general path's
/// hits and manifolds bit for bit, on both vector types, for random
/// triangles and quads (some rounded), and for boxes on a grid, whose
/// exact touching makes separations of exactly zero (the lanes hand those
/// back to the scalar path) and, a millionth off the grid, near-ties that
/// the tie rule decides, near the origin and 10,000 units out, and a face
/// on an edge where a +0 and a -0 meet in a minimum. A
/// pentagon now and then sends its group of eight pair by pair.
#[test]
fn polygon_pairs_take_their_own_path_with_the_general_paths_bits() {
    use glam::Vec2;
    use gpusat::generate::{random_polygon, rng};
    use gpusat::{Body, Pair, Polygon, ShapeSet};
    use rand::RngExt;

    let mut random = rng(0x9a4);
    let mut shapes = ShapeSet::new();
    let mut bodies = Vec::new();
    let mut pairs = Vec::new();
    // First, in the first group of eight: a box whose face lies on a
    // triangle's edge, where a +0 and a -0 height meet in a minimum (which
    // one it keeps depends on the order it meets them in: the lanes leave
    // the pair to its own path), the triangle's vertices in each order,
    // as A and as B.
    let unit_box = shapes.push(Polygon::rectangle(1.0, 1.0).expect("a box").into());
    let corners = [
        Vec2::new(0.0, -1.0),
        Vec2::new(0.0, 1.0),
        Vec2::new(-1.0, 0.0),
    ];
    for rotation in 0..3 {
        let points: Vec<Vec2> = (0..3).map(|k| corners[(k + rotation) % 3]).collect();
        let triangle = shapes.push(Polygon::new(&points).expect("a triangle").into());
        for box_first in [true, false] {
            let first = bodies.len() as u32;
            let (on_box, on_triangle) = (
                Body::new(unit_box, Vec2::new(1.0, 0.0), 0.0),
                Body::new(triangle, Vec2::ZERO, 0.0),
            );
            if box_first {
                bodies.extend([on_box, on_triangle]);
            } else {
                bodies.extend([on_triangle, on_box]);
            }
            pairs.push(Pair::new(first, first + 1));
        }
    }
    for k in 0..40_000u32 {
        let grid = k % 4 == 1;
        let mut polygon = |random: &mut gpusat::generate::SceneRng| {
            let shape = if grid {
                let half = 0.25 * random.random_range(1..5) as f32;
                Polygon::rectangle(half, 0.25 * random.random_range(1..5) as f32).expect("a box")
            } else {
                // A pentagon in one pair of 500, past the first chunk.
                let count = if k > 100 && random.random_bool(0.002) {
                    5
                } else {
                    random.random_range(3..=4)
                };
                let radius = random.random_range(0.3..1.2f32);
                let core = random_polygon(random, count, radius);
                if random.random_bool(0.4) {
                    Polygon::rounded(core.vertices(), random.random_range(0.05..0.4f32))
                        .expect("a rounded polygon")
                } else {
                    core
                }
            };
            shapes.push(shape.into())
        };
        let (shape_a, shape_b) = (polygon(&mut random), polygon(&mut random));
        let offset = if k % 8 == 7 {
            Vec2::new(10_000.0, -7_500.0)
        } else {
            Vec2::ZERO
        };
        let (angle_a, angle_b, position) = if grid {
            let quarter = std::f32::consts::FRAC_PI_2;
            (
                quarter * random.random_range(0..4) as f32,
                quarter * random.random_range(0..4) as f32,
                // Half of them off the grid by less than the tie rule's
                // tolerance: near-ties that the scan order decides.
                0.25 * Vec2::new(
                    random.random_range(-8..9) as f32,
                    random.random_range(-8..9) as f32,
                ) + f32::from(random.random_bool(0.5))
                    * Vec2::new(
                        random.random_range(-1e-6..1e-6),
                        random.random_range(-1e-6..1e-6),
                    ),
            )
        } else {
            (
                random.random_range(-3.2..3.2f32),
                random.random_range(-3.2..3.2f32),
                Vec2::new(
                    random.random_range(-1.5..1.5),
                    random.random_range(-1.5..1.5),
                ),
            )
        };
        let first = bodies.len() as u32;
        bodies.push(Body::new(shape_a, offset, angle_a));
        bodies.push(Body::new(shape_b, offset + position, angle_b));
        pairs.push(Pair::new(first, first + 1));
    }
    // A margin of a grid step: gaps of exactly the margin.
    for margin in [0.0, 0.25] {
        let batch = Batch::new(&shapes, &bodies, &pairs, margin).expect("batch");
        let expected: Vec<_> = (0..pairs.len())
            .filter_map(|index| batch.test_pair(index))
            .collect();
        let zero = expected.iter().filter(|h| h.depth == 0.0).count();
        let owner_b = expected
            .iter()
            .filter(|h| h.axis.owner == gpusat::Owner::B)
            .count();
        let vertex_pairs = expected
            .iter()
            .filter(|h| {
                let owner = match h.axis.owner {
                    gpusat::Owner::A => pairs[h.pair as usize].a,
                    gpusat::Owner::B => pairs[h.pair as usize].b,
                };
                let record = shapes.records()[bodies[owner as usize].shape as usize];
                h.axis.feature >= 2 * record.count
            })
            .count();
        // Every case is met, not just some.
        assert!(
            expected.len() > 12_000,
            "margin {margin}: {} reported",
            expected.len()
        );
        assert!(owner_b > 4_000, "margin {margin}: {owner_b} B's faces");
        assert!(
            vertex_pairs > 300,
            "margin {margin}: {vertex_pairs} vertex pairs"
        );
        if margin > 0.0 {
            assert!(zero > 200, "margin {margin}: {zero} touching exactly");
        }
        assert_hits_are(&batch, &expected, &format!("margin {margin}"));
        let general = gpusat::manifolds(&batch, &batch.hits(&expected));
        assert_contacts_are(&batch, &general, &format!("margin {margin}"));
    }
}
