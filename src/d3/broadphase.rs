//! The 3D broadphase: candidate pairs from bodies' world bounding boxes, by
//! sweep and prune along x (the 2D broadphase's sweep, on 3D boxes).
//!
//! A hull's box is that of its vertices moved into the world, tight for
//! every rotation; a sphere's is its centre plus the radius. Boxes grow by
//! the speculative margin. Pairs come sorted by `(a, b)` with `a < b`.

use glam::Vec3;

use super::body::Body;
use super::math::transform_point;
use super::shape::kind::Core;
use super::shape::set::ShapeSet;
use crate::core::pair::Pair;
use crate::core::pair::PairFilter;
use crate::core::sweep::{SweepBox, sweep};

/// An axis-aligned 3D box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// The lower corner.
    pub min: Vec3,
    /// The upper corner.
    pub max: Vec3,
}

impl Aabb {
    /// Whether the two boxes overlap (touching counts).
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }
}

impl SweepBox for Aabb {
    fn x_range(&self) -> (f32, f32) {
        (self.min.x, self.max.x)
    }

    fn overlaps_across(&self, other: &Aabb) -> bool {
        self.min.y <= other.max.y
            && other.min.y <= self.max.y
            && self.min.z <= other.max.z
            && other.min.z <= self.max.z
    }
}

/// The world box of a body's shape, grown by `margin` on every side.
pub fn body_aabb(shapes: &ShapeSet, body: &Body, margin: f32) -> Aabb {
    let xf = body.transform();
    let Some(shape) = shapes.get(body.shape) else {
        return Aabb {
            min: xf.p - Vec3::splat(margin),
            max: xf.p + Vec3::splat(margin),
        };
    };
    // The core's box, grown by the radius and the margin.
    let (core, radius) = shape.core();
    let points: &mut dyn Iterator<Item = Vec3> = match core {
        Core::Hull(hull) => &mut hull.vertices().iter().copied(),
        Core::Segment(points) => &mut points.into_iter(),
        Core::Point => &mut std::iter::once(Vec3::ZERO),
    };
    let (min, max) = points.fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), v| {
            let p = transform_point(xf, v);
            (lo.min(p), hi.max(p))
        },
    );
    let (min, max) = (min - Vec3::splat(radius), max + Vec3::splat(radius));
    Aabb {
        min: min - Vec3::splat(margin),
        max: max + Vec3::splat(margin),
    }
}

/// Every body's box.
pub fn body_aabbs(shapes: &ShapeSet, bodies: &[Body], margin: f32) -> Vec<Aabb> {
    bodies
        .iter()
        .map(|body| body_aabb(shapes, body, margin))
        .collect()
}

/// Sweep and prune along x. Pairs sorted by `(a, b)`, `a < b`.
pub fn sweep_and_prune(boxes: &[Aabb]) -> Vec<Pair> {
    sweep(boxes)
}

/// Every pair of overlapping boxes by testing all `n (n - 1) / 2`: the
/// reference the sweep is tested against.
pub fn brute_force_pairs(boxes: &[Aabb]) -> Vec<Pair> {
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
pub fn find_pairs(
    shapes: &ShapeSet,
    bodies: &[Body],
    margin: f32,
    filter: PairFilter,
) -> Vec<Pair> {
    let mut pairs = sweep_and_prune(&body_aabbs(shapes, bodies, margin));
    pairs.retain(|p| {
        filter.keeps(
            bodies[p.a as usize].is_static(),
            bodies[p.b as usize].is_static(),
        )
    });
    pairs
}
