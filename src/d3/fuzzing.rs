//! The 3D fuzz targets' bodies (see [`crate::d2::fuzzing`] for the 2D ones):
//! arbitrary bytes in, invariants asserted.
//!
//! * [`check_hull`]: any point cloud either fails with an error or builds a
//!   hull that is what the builder promises: 4 to [`MAX_HULL_VERTICES`]
//!   finite vertices, unit normals, every vertex on or behind every face
//!   plane, every edge shared by two faces whose loops run it both ways,
//!   Euler's `V - E + F = 2`, a positive volume.
//! * [`check_pair`]: two shapes (hulls from bytes, boxes, spheres,
//!   capsules, rounded boxes and hulls) placed
//!   from bytes, near each other or far out, with or without a margin:
//!   nothing panics; every hit has a finite depth and a finite unit normal;
//!   the output-sensitive search, the pairwise loops agree bit for bit and
//!   the brute force on overlapping pairs' depths; swapping A and B reports
//!   the pair with the same depth within the tie tolerances; the depth is the
//!   overlap of the two shapes' projections on the normal, in double
//!   precision; contacts are finite, one to four, no deeper than the hit.

use glam::{DVec3, Quat, Vec3};

use crate::core::pair::Pair;
use crate::d3::sat::{EDGE_TOLERANCE, TIE_TOLERANCE};
use crate::d3::{
    Batch, Body, Capsule, EdgeSearch, Hit, Hull, MAX_HULL_VERTICES, RoundedHull, Shape, ShapeSet,
    Sphere, collide_cpu, manifold,
};

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

    fn raw_f32(&mut self) -> f32 {
        f32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// A value in `[-range, range]` on a grid of 65,536 steps.
    fn within(&mut self, range: f32) -> f32 {
        (self.u16() as f32 / 65_535.0 * 2.0 - 1.0) * range
    }

    fn point(&mut self, range: f32) -> Vec3 {
        Vec3::new(self.within(range), self.within(range), self.within(range))
    }

    fn rotation(&mut self) -> Quat {
        let q = Quat::from_xyzw(
            self.within(1.0),
            self.within(1.0),
            self.within(1.0),
            self.within(1.0),
        );
        if q.length() > 1e-3 {
            q.normalize()
        } else {
            Quat::IDENTITY
        }
    }
}

/// Points from bytes: the first byte picks raw bit patterns (NaN, huge,
/// subnormal), points on a coarse grid (duplicates, coplanar sets, collinear
/// runs), or points in a unit cube, squashed along an axis by the second.
fn cloud(bytes: &mut Bytes) -> Vec<Vec3> {
    let mode = bytes.byte();
    let count = 1 + bytes.u16() as usize % 320;
    let squash = 10f32.powf(-f32::from(bytes.byte() % 8));
    (0..count)
        .map(|_| match mode % 4 {
            0 => Vec3::new(bytes.raw_f32(), bytes.raw_f32(), bytes.raw_f32()),
            1 => Vec3::new(
                f32::from(bytes.byte() % 5),
                f32::from(bytes.byte() % 5),
                f32::from(bytes.byte() % 5),
            ),
            _ => bytes.point(1.0) * Vec3::new(1.0, squash, 1.0),
        })
        .collect()
}

/// Checks everything the hull builder promises.
pub fn check_hull_invariants(hull: &Hull) {
    let vertices = hull.vertices();
    assert!(
        (4..=MAX_HULL_VERTICES).contains(&vertices.len()),
        "{} vertices",
        vertices.len()
    );
    assert!(
        vertices.iter().all(|v| v.is_finite()),
        "a vertex is not finite"
    );
    let size = hull.size();
    for (face, (&normal, &offset)) in hull.normals().iter().zip(hull.offsets()).enumerate() {
        assert!(
            (normal.length() - 1.0).abs() < 1e-4,
            "face {face}: normal {normal}"
        );
        for (index, v) in vertices.iter().enumerate() {
            let height = normal.dot(*v) - offset;
            assert!(
                height <= 1e-3 * size,
                "vertex {index} is {height} outside face {face} (size {size})"
            );
        }
    }
    let (v, e, f) = (vertices.len(), hull.edges().len(), hull.face_count());
    assert_eq!(v + f, e + 2, "Euler: V {v}, E {e}, F {f}");
    for (index, edge) in hull.edges().iter().enumerate() {
        let runs = |face: u32, from: u32, to: u32| {
            let loop_ = hull.face(face as usize);
            (0..loop_.len()).any(|k| loop_[k] == from && loop_[(k + 1) % loop_.len()] == to)
        };
        assert!(
            runs(edge.f0, edge.v0, edge.v1) && runs(edge.f1, edge.v1, edge.v0),
            "edge {index} ({edge:?}) is not shared by its two faces"
        );
    }
    assert!(hull.volume() > 0.0, "volume {}", hull.volume());
}

/// A point cloud from bytes: an error, or a sound hull.
pub fn check_hull(data: &[u8]) {
    let points = cloud(&mut Bytes { data });
    if let Ok(hull) = Hull::new(&points) {
        check_hull_invariants(&hull);
    }
}

/// A shape from bytes: a hull (of a cloud), a box, a sphere, a capsule,
/// or a rounded box or hull.
fn shape(bytes: &mut Bytes) -> Option<Shape> {
    match bytes.byte() % 7 {
        4 => Capsule::new(bytes.point(1.0), bytes.point(1.0), bytes.within(0.5).abs())
            .ok()
            .map(Shape::Capsule),
        5 => {
            let half = bytes.point(1.0).abs() + Vec3::splat(0.02);
            RoundedHull::cuboid(half, bytes.within(0.3).abs())
                .ok()
                .map(Shape::RoundedHull)
        }
        6 => {
            let count = 4 + bytes.byte() as usize % 30;
            let points: Vec<Vec3> = (0..count).map(|_| bytes.point(1.0)).collect();
            RoundedHull::new(&points, bytes.within(0.3).abs())
                .ok()
                .map(Shape::RoundedHull)
        }
        0 => Sphere::new(0.05 + bytes.within(1.0).abs())
            .ok()
            .map(Shape::Sphere),
        1 => {
            let half = bytes.point(1.0).abs() + Vec3::splat(0.02);
            Hull::cuboid(half).ok().map(Shape::Hull)
        }
        _ => {
            let count = 4 + bytes.byte() as usize % 60;
            let points: Vec<Vec3> = (0..count).map(|_| bytes.point(1.0)).collect();
            Hull::new(&points).ok().map(Shape::Hull)
        }
    }
}

/// Support of a placed shape along `axis`, in double precision.
fn support(shape: &Shape, body: &Body, axis: DVec3) -> f64 {
    let q = body.rotation.normalize().as_dquat();
    let position = body.position.as_dvec3();
    let core = |points: &[Vec3]| {
        points
            .iter()
            .map(|v| (position + q * v.as_dvec3()).dot(axis))
            .fold(f64::MIN, f64::max)
    };
    let radius = f64::from(shape.radius());
    match shape {
        Shape::Hull(hull) => core(hull.vertices()),
        Shape::RoundedHull(rounded) => core(rounded.hull().vertices()) + radius,
        Shape::Capsule(capsule) => core(&capsule.points()) + radius,
        Shape::Sphere(_) => position.dot(axis) + radius,
    }
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
        "pair {}: normal {}",
        hit.pair,
        hit.normal
    );
    let (a, b) = (
        &batch.bodies()[hit.a as usize],
        &batch.bodies()[hit.b as usize],
    );
    let (shape_a, shape_b) = (batch.shape_of(hit.a), batch.shape_of(hit.b));
    let size = f64::from(shape_a.size() + shape_b.size());
    let reach = f64::from(
        a.position
            .abs()
            .max_element()
            .max(b.position.abs().max_element()),
    );
    let axis = hit.normal.as_dvec3();
    let overlap = support(shape_a, a, axis) + support(shape_b, b, -axis);
    let slack = 2e-4 * size + 4e-7 * reach;
    assert!(
        (overlap - f64::from(hit.depth)).abs() <= slack,
        "pair {}: depth {} but the overlap along the normal is {overlap} ({:?})",
        hit.pair,
        hit.depth,
        hit.axis
    );
    let contact = manifold(batch, hit);
    let count = contact.points().len();
    assert!(
        (1..=4).contains(&count),
        "pair {}: {count} contacts",
        hit.pair
    );
    for point in contact.points() {
        assert!(
            point.point.is_finite() && point.depth.is_finite(),
            "pair {}: {point:?}",
            hit.pair
        );
        assert!(
            f64::from(point.depth) <= f64::from(hit.depth) + slack,
            "pair {}: a contact {point:?} deeper than the hit {}",
            hit.pair,
            hit.depth
        );
    }
}

/// Two shapes placed from bytes: see the module's list.
pub fn check_pair(data: &[u8]) {
    let mut bytes = Bytes { data };
    let mut shapes = ShapeSet::new();
    let (Some(a), Some(b)) = (shape(&mut bytes), shape(&mut bytes)) else {
        return;
    };
    let reach = a.size() + b.size();
    let ids = [shapes.push(a), shapes.push(b)];
    let far = bytes.byte();
    let offset = if far >= 240 {
        bytes.point(1e4)
    } else {
        Vec3::ZERO
    };
    let bodies = [
        Body::new(ids[0], offset, bytes.rotation()),
        Body::new(ids[1], offset + bytes.point(0.8 * reach), bytes.rotation()),
    ];
    let margin = if bytes.byte() >= 192 {
        bytes.within(reach).abs()
    } else {
        0.0
    };
    let pairs = [Pair::new(0, 1), Pair::new(1, 0)];
    let Ok(batch) = Batch::new(&shapes, &bodies, &pairs, margin) else {
        return;
    };
    let hits = collide_cpu(&batch);
    let pairwise = collide_cpu(&batch.clone().with_edge_search(EdgeSearch::Pairwise));
    assert_eq!(
        hits, pairwise,
        "the output-sensitive search and the pairwise loops differ"
    );
    let full = batch.hits(&hits);
    for hit in &full {
        check_hit(&batch, hit);
    }
    let tie = (EDGE_TOLERANCE + TIE_TOLERANCE) * reach;
    match (
        full.iter().find(|h| h.pair == 0),
        full.iter().find(|h| h.pair == 1),
    ) {
        (Some(forward), Some(backward)) => assert!(
            (forward.depth - backward.depth).abs() <= 2.0 * tie + 1e-5 * reach,
            "swapped: depth {} against {}",
            forward.depth,
            backward.depth
        ),
        (Some(only), None) | (None, Some(only)) => assert!(
            (only.depth + margin).abs() <= 1e-4 * reach,
            "reported one way only: {only:?}"
        ),
        (None, None) => {}
    }
    // The brute force on overlapping pairs: the same depth.
    let brute = collide_cpu(&batch.clone().with_edge_search(EdgeSearch::BruteForce));
    for hit in hits.iter().filter(|h| h.depth > 1e-4 * reach) {
        let other = brute.iter().find(|h| h.pair == hit.pair);
        assert!(
            other.is_some_and(|o| (o.depth - hit.depth).abs() <= 1e-4 * reach),
            "the brute force gives {other:?} for {hit:?}"
        );
    }
}
