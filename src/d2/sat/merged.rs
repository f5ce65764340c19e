//! The merged face search: [`find_max_separation`](super::polygons::find_max_separation)
//! in `O(n + m)` for large polygons, seed 003's Gauss map in 2D.
//!
//! A convex polygon's outward normals are sorted by angle around the circle
//! (its Gauss map). The deepest vertex of B against A's face normal `n` is
//! B's support point in direction `-n`: the vertex whose normal cone holds
//! `-n`. As `n` walks A's faces counter-clockwise, `-n` walks
//! counter-clockwise too, so B's support vertex only moves forward: one walk
//! over both sequences finds every face's deepest vertex. Ties between
//! equally deep vertices do not matter: the separation is the same number,
//! computed by the same operations, so this returns exactly what the brute
//! force returns, tie rule included.

use glam::Vec2;

use crate::d2::math::Transform;
use crate::d2::shape::EdgeRecord;

use super::separation::{PairResult, Separation, choose_polygon_axis, face_plane};

/// `dot(normal, w) - offset` for vertex `j` of `poly`, in the loop's order.
#[inline(always)]
fn vertex_separation(poly: &[EdgeRecord], normal: Vec2, offset: f32, j: usize) -> f32 {
    let w = poly[j].vertex;
    (normal.x * w.x - offset) + normal.y * w.y
}

/// From vertex `from`, walks forward while the next vertex lies no higher
/// along `normal`: a lowest vertex (a convex polygon's heights along a
/// direction fall, then rise).
#[inline(always)]
pub fn descend(poly: &[EdgeRecord], normal: Vec2, offset: f32, from: usize) -> usize {
    let count = poly.len();
    let mut j = from;
    let mut height = vertex_separation(poly, normal, offset, j);
    for _ in 1..count {
        let next = if j + 1 < count { j + 1 } else { 0 };
        let next_height = vertex_separation(poly, normal, offset, next);
        if next_height > height {
            break;
        }
        j = next;
        height = next_height;
    }
    j
}

/// [`find_max_separation`](super::polygons::find_max_separation) in `O(n + m)` instead of `O(n * m)`, for large
/// polygons: seed 003's Gauss map, in 2D.
///
/// The faces of `poly1` come in angular order, and so do the directions in
/// which `poly2` is deepest against them: as the face normal turns, `poly2`'s
/// deepest vertex (its support along `-n`) only moves forward. Merging the
/// two sorted sequences finds every face's deepest vertex in one sweep.
///
/// ```text
/// low = the first lowest vertex of poly2 along face 0      # O(m), once
/// for each group of 8 consecutive faces of poly1:
///     end = walk forward from low to the lowest vertex along the group's last face
///     for each face of the group:                           # as find_max_separation,
///         s = min over vertices low..=end of dot(n, w) - offset     # over that window only
///         tie rule, early exit
///     low = end
/// ```
///
/// Every face of the group has its deepest vertex inside the window (at or
/// after the previous group's last face's, at or before this group's last
/// face's), so the window's minimum is the same value the full loop finds. Groups of 8 match
/// the vectorised CPU path, which takes a group's faces at once.
// `i` is the face index the result names, as in the WGSL twin's loop.
#[allow(clippy::needless_range_loop)]
pub fn find_max_separation_merged(
    poly1: &[EdgeRecord],
    poly2: &[EdgeRecord],
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let (count1, count2) = (poly1.len(), poly2.len());
    let (normal, offset) = face_plane(&poly1[0], xf);
    let mut low = 0;
    let mut lowest = vertex_separation(poly2, normal, offset, 0);
    for j in 1..count2 {
        let height = vertex_separation(poly2, normal, offset, j);
        if height < lowest {
            low = j;
            lowest = height;
        }
    }
    let mut best = Separation::NONE;
    for group_start in (0..count1).step_by(8) {
        let group_end = (group_start + 8).min(count1);
        let start = low;
        let (last_normal, last_offset) = face_plane(&poly1[group_end - 1], xf);
        let end = descend(poly2, last_normal, last_offset, start);
        let window = (end + count2 - start) % count2 + 1;
        for i in group_start..group_end {
            let (normal, offset) = face_plane(&poly1[i], xf);
            let mut separation = f32::MAX;
            for k in 0..window {
                let j = if start + k < count2 {
                    start + k
                } else {
                    start + k - count2
                };
                separation = separation.min(vertex_separation(poly2, normal, offset, j));
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
        low = end;
    }
    best
}

/// [`collide_polygons`](super::polygons::collide_polygons) with the merged search.
pub fn collide_polygons_merged(
    poly_a: &[EdgeRecord],
    poly_b: &[EdgeRecord],
    xf_ab: Transform,
    xf_ba: Transform,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    let separation_a = find_max_separation_merged(poly_a, poly_b, xf_ba, tolerance, margin);
    if separation_a.value >= margin {
        return None;
    }
    let separation_b = find_max_separation_merged(poly_b, poly_a, xf_ab, tolerance, margin);
    choose_polygon_axis(separation_a, separation_b, tolerance, margin)
}
