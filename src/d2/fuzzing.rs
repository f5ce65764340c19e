//! The fuzz targets' bodies: arbitrary bytes in, invariants asserted.
//!
//! Each `check_*` function turns bytes into an input (a scene file, a polygon
//! outline, a pair of placed shapes), runs it through the library, and panics
//! if an invariant breaks. The cargo-fuzz targets in `fuzz/` call them, and
//! `tests/it/core/fuzz.rs` replays the saved inputs of `fuzz/regressions/`
//! through the same functions in `cargo test`, without the fuzzer.
//!
//! What is asserted:
//!
//! * nothing panics, whatever the input (bad input is an [`Error`](crate::Error));
//! * every built polygon is what the hull builder promises: 3 to
//!   [`MAX_POLYGON_VERTICES`] finite vertices, counter-clockwise, strictly
//!   convex, unit outward normals;
//! * every reported hit has a finite depth and a finite unit normal;
//! * swapping A and B reports the same pair with the same depth (within the
//!   tie tolerance) and, away from near-ties, the opposite normal;
//! * the depth is the overlap of the two shapes' projections on the normal,
//!   computed independently in double precision, and no face normal of either
//!   polygon gives a smaller overlap (the minimum translation);
//! * the vectorised CPU path equals the scalar reference bit for bit;
//! * contact points are finite, one or two, no deeper than the hit.

use glam::{DVec2, Vec2};

use crate::core::pair::Pair;
use crate::d2::batch::Batch;
use crate::d2::body::Body;
use crate::d2::manifold::manifold;
use crate::d2::narrowphase::{collide_cpu, collide_scalar};
use crate::d2::scene::Scene;
use crate::d2::shape::hull::MAX_POLYGON_VERTICES;
use crate::d2::shape::{Shape, ShapeSet};
use crate::d2::types::{Axis, Hit, SatHit};

/// Reads the fuzzer's bytes as numbers, yielding zeros once they run out.
struct Bytes<'a> {
    data: &'a [u8],
}

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&first, rest)) => {
                self.data = rest;
                first
            }
            None => 0,
        }
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    /// Any f32 bit pattern: NaN, infinities and subnormals included.
    fn raw_f32(&mut self) -> f32 {
        f32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// A value in `[-range, range]` on a grid of 65,536 steps.
    fn within(&mut self, range: f32) -> f32 {
        (self.u16() as f32 / 65_535.0 * 2.0 - 1.0) * range
    }
}

/// A scene file from arbitrary text: parsing and validation either fail
/// with an error or give a scene whose hits and contacts are sound.
pub fn check_scene(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(scene) = Scene::from_json(&text, "fuzz.json") else {
        return;
    };
    let Ok(batch) = scene.batch() else { return };
    let hits = batch.hits(&collide_cpu(&batch));
    for hit in &hits {
        check_hit(&batch, hit);
    }
}

/// Points from bytes: the first byte picks raw f32 bit patterns (to reach
/// non-finite and extreme values) or a grid at a scale from 1e-3 to 1e3
/// (to reach valid, nearly collinear and nearly coincident outlines).
fn outline(bytes: &mut Bytes, count: usize) -> Vec<Vec2> {
    let mode = bytes.byte();
    let scale = 10f32.powi(i32::from(mode % 7) - 3);
    (0..count)
        .map(|_| {
            if mode >= 240 {
                Vec2::new(bytes.raw_f32(), bytes.raw_f32())
            } else {
                Vec2::new(bytes.within(scale), bytes.within(scale))
            }
        })
        .collect()
}

/// A polygon outline from bytes: building it fails with an error or gives a
/// valid polygon.
pub fn check_polygon(data: &[u8]) {
    let mut bytes = Bytes { data };
    let count = usize::from(bytes.byte()) % (MAX_POLYGON_VERTICES + 8);
    let points = outline(&mut bytes, count);
    let mut shapes = ShapeSet::new();
    let Ok(index) = shapes.add_polygon(&points) else {
        return;
    };
    let Some(Shape::Polygon(polygon)) = shapes.get(index) else {
        panic!("add_polygon returned {index}, which is not a polygon");
    };
    let (vertices, normals) = (polygon.vertices(), polygon.normals());
    let n = vertices.len();
    assert!(
        (3..=MAX_POLYGON_VERTICES).contains(&n),
        "{n} vertices from {points:?}"
    );
    for i in 0..n {
        let (v0, v1, v2) = (vertices[i], vertices[(i + 1) % n], vertices[(i + 2) % n]);
        assert!(v0.is_finite(), "vertex {i} {v0} of {vertices:?}");
        let turn = (v1 - v0).perp_dot(v2 - v1);
        assert!(
            turn > 0.0,
            "vertices {i}..{} turn {turn}: not strictly convex and CCW: {vertices:?}",
            i + 2
        );
        let normal = normals[i];
        assert!(
            (normal.length() - 1.0).abs() < 1e-5,
            "normal {i} {normal} is not unit"
        );
        let edge = v1 - v0;
        assert!(
            normal.dot(edge).abs() <= 1e-4 * edge.length(),
            "normal {i} {normal} is not perpendicular to its edge {edge}"
        );
        assert!(
            normal.perp_dot(edge) > 0.0,
            "normal {i} {normal} points inwards"
        );
    }
}

/// One shape from bytes: a circle or a polygon of 3 to 64 vertices near the
/// origin, at a size from 1e-2 to 1e2; `None` when the outline is invalid.
fn shape(bytes: &mut Bytes, shapes: &mut ShapeSet) -> Option<u32> {
    let kind = bytes.byte();
    let scale = 10f32.powi(i32::from(kind % 5) - 2);
    if kind >= 200 {
        let radius = (bytes.u16() as f32 + 1.0) / 65_536.0 * scale;
        return shapes.add_circle(radius).ok();
    }
    let count = 3 + usize::from(bytes.byte()) % (MAX_POLYGON_VERTICES - 2);
    let points: Vec<Vec2> = (0..count)
        .map(|_| Vec2::new(bytes.within(scale), bytes.within(scale)))
        .collect();
    shapes.add_polygon(&points).ok()
}

/// One shape from bytes for the rounded target: a capsule, a segment or a
/// rounded polygon (3 to 8 vertices) near the origin, at a size from 1e-2
/// to 1e2, with a radius up to the shape's size, or any bit pattern for
/// the radius; `None` when the shape is invalid.
fn rounded_shape(bytes: &mut Bytes, shapes: &mut ShapeSet) -> Option<u32> {
    let kind = bytes.byte();
    let scale = 10f32.powi(i32::from(kind % 5) - 2);
    let radius = if bytes.byte() >= 248 {
        bytes.raw_f32()
    } else {
        (bytes.u16() as f32 / 65_535.0) * scale
    };
    let mut point = || Vec2::new(bytes.within(scale), bytes.within(scale));
    match kind % 3 {
        0 => {
            let (a, b) = (point(), point());
            shapes.add_capsule(a, b, radius).ok()
        }
        1 => {
            let (a, b) = (point(), point());
            shapes.add_segment(a, b).ok()
        }
        _ => {
            let count = 3 + usize::from(kind / 3) % 6;
            let points: Vec<Vec2> = (0..count).map(|_| point()).collect();
            shapes.add_rounded_polygon(&points, radius).ok()
        }
    }
}

/// Two shapes from bytes, and the sum of their bounding radii (how far
/// apart their origins can be while they touch).
fn two_shapes(bytes: &mut Bytes) -> Option<(ShapeSet, [u32; 2], f32)> {
    let mut shapes = ShapeSet::new();
    let shape_a = shape(bytes, &mut shapes)?;
    let shape_b = shape(bytes, &mut shapes)?;
    let reach = shapes.shapes()[shape_a as usize].bounding_radius()
        + shapes.shapes()[shape_b as usize].bounding_radius();
    Some((shapes, [shape_a, shape_b], reach))
}

/// The two bodies as the pairs (0, 1) and (1, 0): the vectorised path equal
/// to the scalar reference, every hit sound, the two ways round symmetric.
/// `may_refuse`: bodies placed beyond the coordinate limit, which the batch
/// must refuse.
fn check_both_ways(shapes: &ShapeSet, bodies: &[Body; 2], margin: f32, may_refuse: bool) {
    let pairs = [Pair::new(0, 1), Pair::new(1, 0)];
    let batch = match Batch::new(shapes, bodies, &pairs, margin) {
        Ok(batch) => batch,
        Err(_) if may_refuse => return,
        Err(err) => panic!("valid shapes and bodies gave an invalid batch: {err}"),
    };
    let sat_hits = collide_cpu(&batch);
    let scalar = collide_scalar(&batch);
    assert!(
        bits(&sat_hits) == bits(&scalar),
        "vectorised {sat_hits:?} and scalar {scalar:?} SAT differ"
    );
    let hits = batch.hits(&sat_hits);
    for hit in &hits {
        check_hit(&batch, hit);
    }
    check_swap(&batch, &hits, bodies[0].position);
}

fn bits(hits: &[SatHit]) -> Vec<(u32, Axis, u32)> {
    hits.iter()
        .map(|hit| (hit.pair, hit.axis, hit.depth.to_bits()))
        .collect()
}

/// Shapes `a` and `b` placed from bytes: A at `offset`, B within `1.2
/// reach` of it, each at an angle; and a margin (0, or up to `reach`).
fn near_pair(bytes: &mut Bytes, [a, b]: [u32; 2], reach: f32, offset: Vec2) -> ([Body; 2], f32) {
    let bodies = [
        Body::new(a, offset, bytes.within(std::f32::consts::PI)),
        Body::new(
            b,
            offset + Vec2::new(bytes.within(1.2 * reach), bytes.within(1.2 * reach)),
            bytes.within(std::f32::consts::PI),
        ),
    ];
    let margin = if bytes.byte() >= 192 {
        bytes.within(reach).abs()
    } else {
        0.0
    };
    (bodies, margin)
}

/// Two shapes placed from bytes, near each other, mostly near the origin but
/// sometimes far out (where the local frames matter) or anywhere at all,
/// with or without a margin: see `check_both_ways` for what is checked.
pub fn check_pair(data: &[u8]) {
    let mut bytes = Bytes { data };
    let Some((shapes, [shape_a, shape_b], reach)) = two_shapes(&mut bytes) else {
        return;
    };
    let far = bytes.byte();
    let offset = if far >= 248 {
        Vec2::new(bytes.raw_f32(), bytes.raw_f32())
    } else if far >= 224 {
        Vec2::new(bytes.within(1e5), bytes.within(1e5))
    } else {
        Vec2::ZERO
    };
    let (bodies, margin) = near_pair(&mut bytes, [shape_a, shape_b], reach, offset);
    check_both_ways(&shapes, &bodies, margin, far >= 248);
}

/// A capsule, segment or rounded polygon and any other shape (the two ways
/// round), placed from bytes as [`check_pair`] places them, with its checks:
/// the depth the overlap along the normal, no face a smaller one, the
/// vectorised path the scalar one's bits, both ways round alike.
pub fn check_rounded_pair(data: &[u8]) {
    let mut bytes = Bytes { data };
    let mut shapes = ShapeSet::new();
    let Some(rounded) = rounded_shape(&mut bytes, &mut shapes) else {
        return;
    };
    let other = if bytes.byte() >= 128 {
        rounded_shape(&mut bytes, &mut shapes)
    } else {
        shape(&mut bytes, &mut shapes)
    };
    let Some(other) = other else {
        return;
    };
    let reach = shapes.shapes()[rounded as usize].bounding_radius()
        + shapes.shapes()[other as usize].bounding_radius();
    let offset = if bytes.byte() >= 224 {
        Vec2::new(bytes.within(1e5), bytes.within(1e5))
    } else {
        Vec2::ZERO
    };
    let (bodies, margin) = near_pair(&mut bytes, [rounded, other], reach, offset);
    check_both_ways(&shapes, &bodies, margin, false);
}

/// Contact clipping where it is hardest: B turned by at most a milliradian
/// from A (nearly parallel faces) and placed from deep overlap to just
/// apart along a direction from the bytes, with the checks of
/// [`check_pair`].
pub fn check_contacts(data: &[u8]) {
    let mut bytes = Bytes { data };
    let Some((shapes, [shape_a, shape_b], reach)) = two_shapes(&mut bytes) else {
        return;
    };
    let angle = bytes.within(std::f32::consts::PI);
    let direction = bytes.within(std::f32::consts::PI);
    let distance = reach * (0.3 + 0.8 * (bytes.u16() as f32 / 65_535.0));
    let bodies = [
        Body::new(shape_a, Vec2::ZERO, angle),
        Body::new(
            shape_b,
            Vec2::from_angle(direction) * distance,
            angle + bytes.within(1e-3),
        ),
    ];
    check_both_ways(&shapes, &bodies, 0.0, false);
}

fn pair_size(batch: &Batch, hit: &Hit) -> f32 {
    let records = batch.shapes().records();
    let shape_of = batch.shape_of();
    records[shape_of[hit.a as usize] as usize].size
        + records[shape_of[hit.b as usize] as usize].size
}

/// A shape's world-space outline in double precision, as `(vertices,
/// radius, normals)`: its core grown by the radius (a circle's core is its
/// centre).
fn world_outline(batch: &Batch, body: u32) -> (Vec<DVec2>, f64, Vec<DVec2>) {
    let body_data = &batch.bodies()[body as usize];
    let position = body_data.position.as_dvec2();
    let (sin, cos) = f64::from(body_data.angle).sin_cos();
    let rotate = |v: Vec2| {
        let v = v.as_dvec2();
        DVec2::new(cos * v.x - sin * v.y, sin * v.x + cos * v.y)
    };
    let shape = &batch.shapes().shapes()[body_data.shape as usize];
    match shape.edges() {
        Some(edges) => (
            edges.iter().map(|e| position + rotate(e.vertex)).collect(),
            f64::from(shape.radius()),
            edges.iter().map(|e| rotate(e.normal)).collect(),
        ),
        None => (vec![position], f64::from(shape.radius()), Vec::new()),
    }
}

/// The overlap of A and B along `axis` (from A to B): how far B must move
/// along it to separate.
fn overlap_along(
    a: &(Vec<DVec2>, f64, Vec<DVec2>),
    b: &(Vec<DVec2>, f64, Vec<DVec2>),
    axis: DVec2,
) -> f64 {
    let reach_a = a.0.iter().map(|v| v.dot(axis)).fold(f64::MIN, f64::max) + a.1;
    let reach_b = b.0.iter().map(|v| v.dot(axis)).fold(f64::MAX, f64::min) - b.1;
    reach_a - reach_b
}

fn check_hit(batch: &Batch, hit: &Hit) {
    assert!(
        hit.depth.is_finite(),
        "pair {}: depth {}",
        hit.pair,
        hit.depth
    );
    assert!(
        hit.normal.is_finite() && (hit.normal.length() - 1.0).abs() < 1e-4,
        "pair {}: normal {} is not a finite unit vector",
        hit.pair,
        hit.normal
    );
    assert!(
        hit.depth > -batch.margin() - 1e-6 * pair_size(batch, hit),
        "pair {}: depth {} past the margin {}",
        hit.pair,
        hit.depth,
        batch.margin()
    );
    let size = f64::from(pair_size(batch, hit));
    let a = world_outline(batch, hit.a);
    let b = world_outline(batch, hit.b);
    // Rounding grows with the coordinates' magnitude.
    let magnitude =
        a.0.iter()
            .chain(&b.0)
            .map(|v| v.abs().max_element())
            .fold(0.0, f64::max);
    let tolerance = 1e-4 * size + 1e-6 * magnitude;
    let normal = hit.normal.as_dvec2();
    let overlap = overlap_along(&a, &b, normal);
    let describe = || {
        let bodies = batch.bodies();
        let shapes = batch.shapes().shapes();
        format!(
            "{hit:?}\nA: {:?} at {:?}\nB: {:?} at {:?}",
            shapes[bodies[hit.a as usize].shape as usize],
            bodies[hit.a as usize],
            shapes[bodies[hit.b as usize].shape as usize],
            bodies[hit.b as usize]
        )
    };
    assert!(
        (overlap - f64::from(hit.depth)).abs() <= tolerance,
        "pair {}: depth {} but the shapes overlap by {overlap} along the normal {}\n{}",
        hit.pair,
        hit.depth,
        hit.normal,
        describe()
    );
    // The minimum translation: no face normal of either polygon separates
    // them by less (circles' axes are checked by the depth test above).
    for axis in a.2.iter().copied().chain(b.2.iter().map(|&n| -n)) {
        let other = overlap_along(&a, &b, axis);
        assert!(
            f64::from(hit.depth) <= other + tolerance,
            "pair {}: depth {} but the axis {axis} overlaps only {other}",
            hit.pair,
            hit.depth
        );
    }
    let contacts = manifold(batch, hit);
    let points = contacts.points();
    assert!(
        (1..=2).contains(&points.len()),
        "pair {}: {} contact points",
        hit.pair,
        points.len()
    );
    for point in points {
        assert!(
            point.point.is_finite() && point.depth.is_finite(),
            "pair {}: contact {point:?}",
            hit.pair
        );
        assert!(
            f64::from(point.depth) <= f64::from(hit.depth) + tolerance,
            "pair {}: contact depth {} deeper than the hit's {}",
            hit.pair,
            point.depth,
            hit.depth
        );
    }
}

/// (0, 1) and (1, 0) are the same pair seen from both sides.
fn check_swap(batch: &Batch, hits: &[Hit], offset: Vec2) {
    let forward = hits.iter().find(|hit| hit.pair == 0);
    let backward = hits.iter().find(|hit| hit.pair == 1);
    let size = batch.shapes().records().iter().map(|r| r.size).sum::<f32>();
    let tolerance = 1e-4 * size + 1e-6 * offset.abs().max_element();
    match (forward, backward) {
        (Some(forward), Some(backward)) => {
            assert!(
                (forward.depth - backward.depth).abs() <= tolerance,
                "depth {} one way, {} the other",
                forward.depth,
                backward.depth
            );
            // Away from a near-tie both sides choose the same face.
            if forward.axis.owner != backward.axis.owner
                && forward.axis.feature == backward.axis.feature
            {
                assert!(
                    (forward.normal + backward.normal).length() < 1e-3,
                    "normals {} and {} are not opposite",
                    forward.normal,
                    backward.normal
                );
            }
        }
        (Some(only), None) | (None, Some(only)) => assert!(
            (only.depth + batch.margin()).abs() <= tolerance,
            "pair reported one way only, depth {} (margin {})",
            only.depth,
            batch.margin()
        ),
        (None, None) => {}
    }
}
