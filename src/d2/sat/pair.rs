//! One candidate pair: which path it takes, and its normal rebuilt from the
//! reported feature.

use glam::Vec2;

use crate::core::pair::Owner;
use crate::d2::batch::Batch;
use crate::d2::math::{Transform, inv_mul_transforms, rotate, transform_point};
use crate::d2::shape::{FaceView, Faces, ShapeView};
use crate::d2::types::{Axis, Hit, SatHit};

use super::circles::collide_circles;
use super::merged::collide_polygons_merged;
use super::polygon_circle::collide_polygon_circle;
use super::polygons::collide_polygons;
use super::rounded::{collide_segment_circle, finish_rounded, vertex_pair_of};
use super::separation::{
    CONCENTRIC_TOLERANCE, PairResult, TIE_TOLERANCE, length, uses_merge_above,
};
use super::straight::{
    collide_polygon_circle8, collide_polygon_circle16, collide_polygons8, collide_polygons16,
};

/// One candidate pair, given the two bodies' world transforms; polygons with
/// more than `merge_threshold` vertices on both sides use the merged search.
///
/// ```text
/// xf_ab, xf_ba = B's frame into A's, A's into B's     (the only world arithmetic)
/// tolerance    = TIE_TOLERANCE * (size_a + size_b)
/// two polygons:        straight-line up to 8 (or 16) vertices, merged above
///                      the threshold, every face against every vertex between
///                      (segments: polygons of two faces); with radii, the
///                      rounded cases (rounded.rs)
/// polygon and circle:  the circle's centre in the polygon's frame, the
///                      polygon's radius added to the circle's
/// two circles:         the centre line
/// ```
#[inline(always)]
pub(crate) fn collide_pair(
    xf_a: Transform,
    xf_b: Transform,
    shape_a: ShapeView,
    shape_b: ShapeView,
    margin: f32,
    merge_threshold: u32,
) -> Option<PairResult> {
    let xf_ab = inv_mul_transforms(xf_a, xf_b);
    let xf_ba = inv_mul_transforms(xf_b, xf_a);
    let tolerance = TIE_TOLERANCE * (shape_a.size() + shape_b.size());
    match (shape_a, shape_b) {
        (
            ShapeView::Polygon {
                edges: poly_a,
                radius: radius_a,
                ..
            },
            ShapeView::Polygon {
                edges: poly_b,
                radius: radius_b,
                ..
            },
        ) => {
            let radii = radius_a + radius_b;
            let core = collide_cores(
                poly_a,
                poly_b,
                (xf_ab, xf_ba),
                tolerance,
                margin + radii,
                merge_threshold,
            )?;
            if radii > 0.0 || poly_a.len() == 2 || poly_b.len() == 2 {
                finish_rounded(poly_a, poly_b, radii, (xf_ab, xf_ba), core, margin)
            } else {
                Some(core)
            }
        }
        (
            ShapeView::Polygon {
                edges: poly,
                radius: grown,
                ..
            },
            ShapeView::Circle { radius },
        ) => polygon_circle(poly, xf_ab.p, radius + grown, Owner::A, tolerance, margin),
        (
            ShapeView::Circle { radius },
            ShapeView::Polygon {
                edges: poly,
                radius: grown,
                ..
            },
        ) => polygon_circle(poly, xf_ba.p, radius + grown, Owner::B, tolerance, margin),
        (ShapeView::Circle { radius: radius_a }, ShapeView::Circle { radius: radius_b }) => {
            collide_circles(xf_ab.p, radius_a, radius_b, margin)
        }
    }
}

/// Two polygon (or segment) cores: straight-line up to 8 (or 16) vertices,
/// merged above the threshold, every face against every vertex between.
#[inline(always)]
fn collide_cores(
    poly_a: &[crate::d2::shape::EdgeRecord],
    poly_b: &[crate::d2::shape::EdgeRecord],
    (xf_ab, xf_ba): (Transform, Transform),
    tolerance: f32,
    margin: f32,
    merge_threshold: u32,
) -> Option<PairResult> {
    let (count_a, count_b) = (poly_a.len() as u32, poly_b.len() as u32);
    if count_a <= 8 && count_b <= 8 {
        collide_polygons8(poly_a, poly_b, xf_ab, xf_ba, tolerance, margin)
    } else if uses_merge_above(count_a, count_b, merge_threshold) {
        collide_polygons_merged(poly_a, poly_b, xf_ab, xf_ba, tolerance, margin)
    } else if count_a <= 16 && count_b <= 16 {
        collide_polygons16(poly_a, poly_b, xf_ab, xf_ba, tolerance, margin)
    } else {
        collide_polygons(poly_a, poly_b, xf_ab, xf_ba, tolerance, margin)
    }
}

/// A polygon and a circle, by the polygon's size.
#[inline(always)]
fn polygon_circle(
    poly: &[crate::d2::shape::EdgeRecord],
    centre: Vec2,
    radius: f32,
    owner: Owner,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    match poly.len() {
        // A segment core: its regions, exactly (rounded.rs).
        2 => collide_segment_circle(poly, centre, radius, owner, margin),
        0..=8 => collide_polygon_circle8(poly, centre, radius, owner, tolerance, margin),
        9..=16 => collide_polygon_circle16(poly, centre, radius, owner, tolerance, margin),
        _ => collide_polygon_circle(poly, centre, radius, owner, tolerance, margin),
    }
}

/// `collide_pair` on two shapes of a library, for the twin tests.
#[cfg(feature = "testing")]
pub fn collide_pair_records(
    shapes: &crate::d2::shape::ShapeSet,
    xf_a: Transform,
    xf_b: Transform,
    shape_a: u32,
    shape_b: u32,
    margin: f32,
    merge_threshold: u32,
) -> Option<PairResult> {
    collide_pair(
        xf_a,
        xf_b,
        shapes.view(shape_a),
        shapes.view(shape_b),
        margin,
        merge_threshold,
    )
}

/// What [`axis_normal`] reads of one side of a pair: its world transform,
/// and its faces (`None` for a circle) or radius.
#[derive(Clone, Copy)]
pub(crate) struct Side<F> {
    pub xf: Transform,
    pub faces: Option<F>,
    pub radius: f32,
}

/// Rebuilds the world-frame unit normal (from A to B) of a reported axis.
///
/// This runs on the CPU for the results of every backend, so two backends
/// that report the same feature report the same normal, bit for bit.
///
/// ```text
/// owner's face i:           its outward normal
/// owner's vertex region i:  from the vertex to the other (circle's) centre
/// vertex pair (i, j):       from the owner's vertex i to the other's j
/// circle:                   the centre line (A's x axis when concentric)
/// then rotated into the world, and negated when B owns the axis
/// ```
#[inline(always)]
pub(crate) fn axis_normal<F: Faces>(a: Side<F>, b: Side<F>, axis: Axis) -> Vec2 {
    // Everything is expressed in the owner's frame, then rotated out.
    let (owner, other, sign) = match axis.owner {
        Owner::A => (a, b, 1.0),
        Owner::B => (b, a, -1.0),
    };
    let local = match owner.faces {
        None => {
            // Centre line of two circles.
            let other_centre = inv_mul_transforms(owner.xf, other.xf).p;
            let distance = length(other_centre);
            if distance > CONCENTRIC_TOLERANCE * (owner.radius + other.radius) {
                other_centre / distance
            } else {
                Vec2::X
            }
        }
        Some(faces) => {
            let count = faces.count();
            let feature = axis.feature;
            if feature < count {
                faces.normal(feature)
            } else if let (true, Some(other_faces)) = (feature >= 2 * count, other.faces) {
                // A vertex pair (rounded.rs): from the owner's vertex to
                // the other's, in the owner's frame.
                let (i, j) = vertex_pair_of(count, other_faces.count(), feature);
                let xf = inv_mul_transforms(owner.xf, other.xf);
                let offset = transform_point(xf, other_faces.vertex(j)) - faces.vertex(i);
                let distance = length(offset);
                if distance > 0.0 {
                    offset / distance
                } else {
                    faces.normal(i)
                }
            } else {
                // A vertex region: from the vertex to the circle's centre.
                let vertex_index = (feature - count).min(count - 1);
                let other_centre = inv_mul_transforms(owner.xf, other.xf).p;
                let offset = other_centre - faces.vertex(vertex_index);
                let distance = length(offset);
                if distance > 0.0 {
                    offset / distance
                } else {
                    // Cannot be chosen (the SAT only picks a vertex at a
                    // positive distance); the adjacent edge's normal keeps
                    // this total.
                    faces.normal(vertex_index)
                }
            }
        }
    };
    sign * rotate(owner.xf.q, local)
}

/// A backend's result completed with the bodies and the world normal
/// ([`Batch::hit`]).
#[inline]
pub(crate) fn complete_hit(batch: &Batch, sat_hit: SatHit) -> Hit {
    let pair = batch.pairs()[sat_hit.pair as usize];
    let shapes = batch.shapes();
    let side = |body: u32| -> Side<FaceView> {
        let index = batch.shape_of()[body as usize];
        let record = &shapes.records()[index as usize];
        Side {
            xf: batch.transforms()[body as usize],
            faces: (record.count > 0).then(|| shapes.faces(index, record)),
            radius: record.radius,
        }
    };
    Hit {
        pair: sat_hit.pair,
        a: pair.a,
        b: pair.b,
        normal: axis_normal(side(pair.a), side(pair.b), sat_hit.axis),
        depth: sat_hit.depth,
        axis: sat_hit.axis,
    }
}
