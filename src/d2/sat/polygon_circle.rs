//! Polygon against circle.
//!
//! The circle's centre against the polygon's faces, with the tie rule and
//! the early exit, as for two polygons. When the best face's separation is
//! positive (the centre is outside) and the centre lies beyond the end of
//! that face, the nearest feature is a vertex: its Voronoi region, and the
//! axis runs from the vertex to the centre. The circle's radius comes off the
//! separation at the end.

use glam::Vec2;

use crate::core::pair::Owner;
use crate::d2::shape::EdgeRecord;
use crate::d2::types::Axis;

use super::separation::{PairResult, Separation, dot, length};

/// One face of [`collide_polygon_circle`]: the centre's distance beyond it.
#[inline(always)]
pub fn circle_face_separation(face: &EdgeRecord, centre: Vec2) -> f32 {
    let offset = dot(face.normal, face.vertex);
    (face.normal.x * centre.x - offset) + face.normal.y * centre.y
}

/// A polygon against a circle whose centre is `centre` in the polygon's frame.
/// The result's feature is the polygon's; the caller says who owns it.
///
/// ```text
/// (s, i) = max over faces of dot(n_i, centre) - dot(n_i, v_i)   # tie rule, early exit
/// if s > 0:                       # centre outside the polygon
///     if centre is before v_i along edge i:      vertex region of v_i
///     elif centre is past v_i+1 along edge i:    vertex region of v_i+1
///     (walking on to a neighbouring face or vertex if the centre lies
///     past that vertex too: see walk_to_region)
/// separation = (distance to that vertex, or s) - radius
/// ```
#[inline(always)]
pub fn collide_polygon_circle(
    poly: &[EdgeRecord],
    centre: Vec2,
    radius: f32,
    owner: Owner,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    let limit = margin + radius;
    let mut best = Separation::NONE;
    for (i, edge) in poly.iter().enumerate() {
        let offset = dot(edge.normal, edge.vertex);
        // dot(normal, centre) - offset, in lavapipe's order (as above).
        let separation = (edge.normal.x * centre.x - offset) + edge.normal.y * centre.y;
        if separation > best.value + tolerance {
            best = Separation {
                value: separation,
                edge: i as u32,
            };
        }
        if separation >= limit {
            return None;
        }
    }

    finish_polygon_circle(poly, centre, radius, owner, margin, best)
}

/// From the vertex at the end of the chosen face that the centre lies
/// beyond, walk along the outline (`forward` or back) to the feature whose
/// region holds the centre: that vertex, the face past it (its separation
/// when the centre lies over its edge and outside it), or on. The tie rule
/// may choose a face up to the tolerance below the best, and then the
/// centre can lie past its end in a neighbour's region: the fuzzer found a
/// circle over the second of two nearly parallel edges given the first's
/// vertex, whose depth was not the overlap along its axis. Returns the
/// feature and the distance; usually the first step settles it.
#[inline(always)]
pub fn walk_to_region(poly: &[EdgeRecord], centre: Vec2, start: u32, forward: bool) -> (u32, f32) {
    let count = poly.len() as u32;
    let mut vertex = start;
    for _ in 0..count {
        let previous = if vertex > 0 { vertex - 1 } else { count - 1 };
        let (face, far) = if forward {
            (vertex, if vertex + 1 < count { vertex + 1 } else { 0 })
        } else {
            (previous, previous)
        };
        let near_point = poly[vertex as usize].vertex;
        let far_point = poly[far as usize].vertex;
        if dot(centre - near_point, far_point - near_point) <= 0.0 {
            break;
        }
        if dot(centre - far_point, near_point - far_point) > 0.0 {
            let separation = circle_face_separation(&poly[face as usize], centre);
            if separation > 0.0 {
                return (face, separation);
            }
            break;
        }
        vertex = far;
    }
    (
        count + vertex,
        length(centre - poly[vertex as usize].vertex),
    )
}

/// The end of [`collide_polygon_circle`], once the best face is known: the
/// vertex regions (see [`walk_to_region`]), then the reporting test.
#[inline(always)]
pub fn finish_polygon_circle(
    poly: &[EdgeRecord],
    centre: Vec2,
    radius: f32,
    owner: Owner,
    margin: f32,
    best: Separation,
) -> Option<PairResult> {
    let count = poly.len() as u32;
    let mut feature = best.edge;
    let mut distance = best.value;
    if best.value > 0.0 {
        let i1 = best.edge;
        let i2 = if i1 + 1 < count { i1 + 1 } else { 0 };
        let v1 = poly[i1 as usize].vertex;
        let v2 = poly[i2 as usize].vertex;
        let u1 = dot(centre - v1, v2 - v1);
        let u2 = dot(centre - v2, v1 - v2);
        if u1 < 0.0 || u2 < 0.0 {
            let (start, forward) = if u1 < 0.0 { (i1, false) } else { (i2, true) };
            let (region, to_region) = walk_to_region(poly, centre, start, forward);
            if to_region > 0.0 {
                feature = region;
                distance = to_region;
            }
        }
    }
    let separation = distance - radius;
    if separation >= margin {
        return None;
    }
    Some(PairResult {
        axis: Axis::new(owner, feature),
        separation,
    })
}
