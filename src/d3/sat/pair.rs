//! One 3D candidate pair: which test it takes, and its normal rebuilt from
//! the reported feature.

use glam::Vec3;

use super::super::batch::Batch;
use super::super::math::{
    Transform, inv_mul_transforms, inv_rotate, length3, rotate, transform_point,
};
use super::super::shape::kind::Shape;
use super::super::shape::shapes::Hull;
use super::super::types::{Axis, EdgeSearch, EdgeStats, Hit, SatHit};
use super::boxes::{are_boxes, box_edge_pair_axis, collide_boxes};
use super::hulls::{collide_hulls, edge_pair_axis};
use super::rounded::{collide_rounded, collide_segment_cores, rounded_axis_normal};
use super::separation::{CONCENTRIC_TOLERANCE, EDGE_TOLERANCE, PairResult, TIE_TOLERANCE};
use super::sphere::{collide_hull_sphere, collide_hull_sphere_cpu, collide_spheres, sphere_axis};
use crate::core::pair::Owner;

/// One candidate pair, given the two bodies' world transforms.
///
/// ```text
/// xf_ab, xf_ba = B's frame into A's, A's into B's     (the only world arithmetic)
/// tolerance    = TIE_TOLERANCE * (size_a + size_b)
/// two capsules:    their segments (rounded.rs: collide_segment_cores)
/// two boxes:       collide_boxes (boxes.rs: their nine edge directions)
/// two hulls:       collide_hulls
/// hull and sphere: the hull against the centre in the hull's frame
/// two spheres:     the centre line
/// ```
#[inline]
pub fn collide_pair(
    xf_a: Transform,
    xf_b: Transform,
    shape_a: &Shape,
    shape_b: &Shape,
    margin: f32,
    search: EdgeSearch,
    stats: &mut EdgeStats,
) -> Option<PairResult> {
    // A sphere needs the other's frame only where its centre lies: the
    // translation of `inv_mul_transforms`, without its rotation.
    match (shape_a, shape_b) {
        (Shape::Sphere(a), Shape::Sphere(b)) => {
            return collide_spheres(sphere_centre(xf_a, xf_b), a.radius(), b.radius(), margin);
        }
        (Shape::Hull(a), Shape::Sphere(b)) => {
            let tolerance = TIE_TOLERANCE * (shape_a.size() + shape_b.size());
            let centre = sphere_centre(xf_a, xf_b);
            return collide_hull_sphere_cpu(a, centre, b.radius(), Owner::A, tolerance, margin);
        }
        (Shape::Sphere(a), Shape::Hull(b)) => {
            let tolerance = TIE_TOLERANCE * (shape_a.size() + shape_b.size());
            let centre = sphere_centre(xf_b, xf_a);
            return collide_hull_sphere_cpu(b, centre, a.radius(), Owner::B, tolerance, margin);
        }
        _ => {}
    }
    let xf_ab = inv_mul_transforms(xf_a, xf_b);
    if let (Shape::Capsule(a), Shape::Capsule(b)) = (shape_a, shape_b) {
        // Two segment cores need B's frame in A's only: collide_rounded's
        // arm for them, without the other transform and the tolerances.
        let [b0, b1] = b.points();
        return collide_segment_cores(
            a.points(),
            [transform_point(xf_ab, b0), transform_point(xf_ab, b1)],
            a.radius() + b.radius(),
            margin,
        );
    }
    let xf_ba = inv_mul_transforms(xf_b, xf_a);
    let sizes = shape_a.size() + shape_b.size();
    let tolerance = TIE_TOLERANCE * sizes;
    match (shape_a, shape_b) {
        // Two boxes take their own query under every search but the brute
        // force, which stays the unpruned reference.
        (Shape::Hull(a), Shape::Hull(b)) if search != EdgeSearch::BruteForce && are_boxes(a, b) => {
            collide_boxes(
                a,
                b,
                (xf_ab, xf_ba),
                (tolerance, EDGE_TOLERANCE * sizes),
                margin,
            )
        }
        (Shape::Hull(a), Shape::Hull(b)) => collide_hulls(
            a,
            b,
            (xf_ab, xf_ba),
            tolerance,
            EDGE_TOLERANCE * sizes,
            margin,
            search,
            stats,
        ),
        // Reached only through the returns above, which take a sphere
        // without the other's rotation; the same results.
        (Shape::Hull(a), Shape::Sphere(b)) => {
            collide_hull_sphere(a, xf_ab.p, b.radius(), Owner::A, tolerance, margin)
        }
        (Shape::Sphere(a), Shape::Hull(b)) => {
            collide_hull_sphere(b, xf_ba.p, a.radius(), Owner::B, tolerance, margin)
        }
        (Shape::Sphere(a), Shape::Sphere(b)) => {
            collide_spheres(xf_ab.p, a.radius(), b.radius(), margin)
        }
        // A capsule or a rounded hull on either side.
        _ => collide_rounded(
            shape_a,
            shape_b,
            (xf_ab, xf_ba),
            (tolerance, EDGE_TOLERANCE * sizes),
            margin,
            search,
            stats,
        ),
    }
}

/// Face `i`'s normal (the last face for an index past it: a backend's
/// garbage, made total), read where the face queries read it.
fn face_normal(hull: &Hull, i: u32) -> Vec3 {
    hull.lanes()
        .face_plane((i as usize).min(hull.face_count() - 1))
        .0
}

/// Rebuilds the world-frame unit normal (from A to B) of a reported axis,
/// with the operations the SAT used, so two backends that report the same
/// feature report the same normal bits.
pub fn axis_normal(
    (xf_a, shape_a): (Transform, &Shape),
    (xf_b, shape_b): (Transform, &Shape),
    axis: Axis,
    search: EdgeSearch,
) -> Vec3 {
    if !(shape_a.is_plain() && shape_b.is_plain()) {
        return rounded_axis_normal((xf_a, shape_a), (xf_b, shape_b), axis, search);
    }
    match (axis, shape_a, shape_b) {
        (Axis::FaceA(i), Shape::Hull(a), _) => rotate(xf_a.r, face_normal(a, i)),
        (Axis::FaceB(i), _, Shape::Hull(b)) => -rotate(xf_b.r, face_normal(b, i)),
        (Axis::Edges(i, j), Shape::Hull(a), Shape::Hull(b)) => {
            let xf_ab = inv_mul_transforms(xf_a, xf_b);
            let i = i.min(a.edges().len() as u32 - 1);
            let j = j.min(b.edges().len() as u32 - 1);
            // Two boxes: the axis their own edge query computed (under
            // every search but the brute force, as collide_pair).
            let boxes = (search != EdgeSearch::BruteForce && are_boxes(a, b))
                .then(|| box_edge_pair_axis(a, b, xf_ab, (i, j)))
                .flatten();
            rotate(
                xf_a.r,
                boxes.unwrap_or_else(|| edge_pair_axis(a, b, xf_ab, (i, j), search)),
            )
        }
        (Axis::EdgeA(_) | Axis::VertexA(_), Shape::Hull(a), _) => {
            let centre = inv_mul_transforms(xf_a, xf_b).p;
            rotate(xf_a.r, sphere_axis(a, centre, axis).0)
        }
        (Axis::EdgeB(_) | Axis::VertexB(_), _, Shape::Hull(b)) => {
            let centre = inv_mul_transforms(xf_b, xf_a).p;
            -rotate(xf_b.r, sphere_axis(b, centre, axis).0)
        }
        _ => {
            // Two spheres (or an axis that does not fit the shapes: a
            // backend's garbage, made total): the centre line.
            let centre = inv_mul_transforms(xf_a, xf_b).p;
            centre_line(
                xf_a,
                (centre, length3(centre)),
                shape_a.size() + shape_b.size(),
            )
        }
    }
}

/// B's centre in A's frame: `inv_mul_transforms(xf_a, xf_b).p`, the same
/// operations, without the rotation.
#[inline(always)]
pub(crate) fn sphere_centre(xf_a: Transform, xf_b: Transform) -> Vec3 {
    inv_rotate(xf_a.r, xf_b.p - xf_a.p)
}

/// The unit normal of two spheres from A's centre to B's (`centre`, B's
/// in A's frame, `distance` its length), in the world: the centre line,
/// A's x axis when they are within the concentric tolerance (`sizes`: the
/// two radii summed).
#[inline(always)]
pub(crate) fn centre_line(xf_a: Transform, (centre, distance): (Vec3, f32), sizes: f32) -> Vec3 {
    if distance > CONCENTRIC_TOLERANCE * sizes {
        rotate(xf_a.r, centre / distance)
    } else {
        rotate(xf_a.r, Vec3::X)
    }
}

/// A backend's result completed with the bodies and the world normal.
pub fn complete_hit(batch: &Batch, sat_hit: SatHit) -> Hit {
    let pair = batch.pairs()[sat_hit.pair as usize];
    let side = |body: u32| (batch.transforms()[body as usize], batch.shape_of(body));
    Hit {
        pair: sat_hit.pair,
        a: pair.a,
        b: pair.b,
        normal: axis_normal(
            side(pair.a),
            side(pair.b),
            sat_hit.axis,
            batch.edge_search(),
        ),
        depth: sat_hit.depth,
        axis: sat_hit.axis,
    }
}
