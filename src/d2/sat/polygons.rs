//! Polygon against polygon, every face against every vertex.
//!
//! For each face of one polygon, the separation of the other is its deepest
//! vertex's distance beyond the face; the pair's axis is the face with the
//! largest separation over both polygons (see [the module](super)). The
//! other polygon's vertices are read untransformed: the face is moved into
//! their frame instead, one transform per face rather than one per vertex.

use crate::d2::math::{Transform, rotate, transform_point};
use crate::d2::shape::EdgeRecord;

use super::separation::{PairResult, Separation, choose_polygon_axis, dot};

/// The deepest face of `poly1` against the vertices of `poly2`.
///
/// ```text
/// best = (LOWEST, 0)
/// for each edge i of poly1:
///     n, v   = normal and vertex of edge i, moved into poly2's frame by xf
///     offset = dot(n, v)
///     s      = min over vertices w of poly2 of (n.x w.x - offset) + n.y w.y
///     if s > best.value + tolerance: best = (s, i)      # the tie rule
///     if s >= limit: return (s, i)                      # separated: stop
/// return best
/// ```
///
/// A returned value `>= limit` means the pair is separated by at least
/// `limit` along some face and is not reported.
#[inline(always)]
pub fn find_max_separation(
    poly1: &[EdgeRecord],
    poly2: &[EdgeRecord],
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let mut best = Separation::NONE;
    for (i, edge) in poly1.iter().enumerate() {
        let normal = rotate(xf.q, edge.normal);
        let vertex = transform_point(xf, edge.vertex);
        let offset = dot(normal, vertex);
        let mut separation = f32::MAX;
        // dot(normal, other) - offset, in the order lavapipe evaluates the
        // WGSL twin (it takes the loop-invariant offset off the first
        // product; measured), so that both give the same bits.
        for other in poly2 {
            separation =
                separation.min((normal.x * other.vertex.x - offset) + normal.y * other.vertex.y);
        }
        if separation > best.value + tolerance {
            best = Separation {
                value: separation,
                edge: i as u32,
            };
        }
        if separation >= limit {
            return Separation {
                value: separation,
                edge: i as u32,
            };
        }
    }
    best
}

/// Polygon A against polygon B. `xf_ab` takes B's local points into A's
/// frame, `xf_ba` the reverse.
#[inline(always)]
pub fn collide_polygons(
    poly_a: &[EdgeRecord],
    poly_b: &[EdgeRecord],
    xf_ab: Transform,
    xf_ba: Transform,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    let separation_a = find_max_separation(poly_a, poly_b, xf_ba, tolerance, margin);
    if separation_a.value >= margin {
        return None;
    }
    let separation_b = find_max_separation(poly_b, poly_a, xf_ab, tolerance, margin);
    choose_polygon_axis(separation_a, separation_b, tolerance, margin)
}
