//! The 3D broadphase: candidate pairs from bodies' world bounding boxes, by
//! sweep and prune along x (the 2D broadphase's sweep, on 3D boxes).
//!
//! A hull's box is that of its vertices moved into the world, tight for
//! every rotation; a sphere's is its centre plus the radius. Boxes grow by
//! the speculative margin. Pairs come sorted by `(a, b)` with `a < b`.

use glam::Vec3;

use super::body::Body;
use super::math::transform_point3;
use super::set::ShapeSet;
use super::shapes::Shape;
use crate::broadphase::{PairFilter, SweepBox, sweep};
use crate::types::Pair;

/// An axis-aligned 3D box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb3 {
    /// The lower corner.
    pub min: Vec3,
    /// The upper corner.
    pub max: Vec3,
}

impl Aabb3 {
    /// Whether the two boxes overlap (touching counts).
    pub fn overlaps(&self, other: &Aabb3) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }
}

impl SweepBox for Aabb3 {
    fn x_range(&self) -> (f32, f32) {
        (self.min.x, self.max.x)
    }

    fn overlaps_across(&self, other: &Aabb3) -> bool {
        self.min.y <= other.max.y
            && other.min.y <= self.max.y
            && self.min.z <= other.max.z
            && other.min.z <= self.max.z
    }
}

/// The world box of a body's shape, grown by `margin` on every side.
pub fn body_aabb3(shapes: &ShapeSet, body: &Body, margin: f32) -> Aabb3 {
    let xf = body.transform();
    let (min, max) = match shapes.get(body.shape) {
        Some(Shape::Hull(hull)) => hull.vertices().iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), v| {
                let p = transform_point3(xf, *v);
                (lo.min(p), hi.max(p))
            },
        ),
        Some(Shape::Sphere(sphere)) => (
            xf.p - Vec3::splat(sphere.radius()),
            xf.p + Vec3::splat(sphere.radius()),
        ),
        None => (xf.p, xf.p),
    };
    Aabb3 {
        min: min - Vec3::splat(margin),
        max: max + Vec3::splat(margin),
    }
}

/// Every body's box.
pub fn body_aabbs3(shapes: &ShapeSet, bodies: &[Body], margin: f32) -> Vec<Aabb3> {
    bodies
        .iter()
        .map(|body| body_aabb3(shapes, body, margin))
        .collect()
}

/// Sweep and prune along x. Pairs sorted by `(a, b)`, `a < b`.
pub fn sweep_and_prune3(boxes: &[Aabb3]) -> Vec<Pair> {
    sweep(boxes)
}

/// Every pair of overlapping boxes by testing all `n (n - 1) / 2`: the
/// reference the sweep is tested against.
pub fn brute_force_pairs3(boxes: &[Aabb3]) -> Vec<Pair> {
    let mut pairs = Vec::new();
    for a in 0..boxes.len() {
        for b in a + 1..boxes.len() {
            if boxes[a].overlaps(&boxes[b]) {
                pairs.push(Pair::new(a as u32, b as u32));
            }
        }
    }
    pairs
}

/// Candidate pairs of 3D `bodies`: the pairs whose boxes, grown by
/// `margin`, overlap; sorted by `(a, b)` with `a < b`.
pub fn find_pairs3(
    shapes: &ShapeSet,
    bodies: &[Body],
    margin: f32,
    filter: PairFilter,
) -> Vec<Pair> {
    let mut pairs = sweep_and_prune3(&body_aabbs3(shapes, bodies, margin));
    if filter.skip_static_pairs {
        pairs.retain(|p| !(bodies[p.a as usize].is_static() && bodies[p.b as usize].is_static()));
    }
    pairs
}
