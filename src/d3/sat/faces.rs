//! Face queries: each face of one hull against the other's vertices.
//!
//! For a face with outward normal `n` and offset `d` (`n . x = d` on it),
//! the other hull's separation from it is how far its deepest vertex lies
//! beyond the face: `min over vertices w of n . w - d`. The face's plane is
//! moved into the other hull's frame (one rotation and one dot product per
//! face) so that the inner loop reads the other hull's vertices untouched.

use super::super::math::{Transform3, dot3, rotate3};
use super::super::shapes::Hull;
use super::separation::Separation;

/// The deepest face of `hull1` against the vertices of `hull2`; `xf` takes
/// `hull1`'s local points into `hull2`'s frame.
///
/// ```text
/// best = (LOWEST, 0)
/// for each face i of hull1:
///     n' = R n_i;  d' = d_i + n' . t        # the plane in hull2's frame
///     s  = min over vertices w of hull2 of n' . w - d'
///     tie rule: replace best only when s > best + tolerance
///     if s >= limit: return (s, i)          # separated: stop
/// ```
#[inline]
pub fn find_max_face_separation(
    hull1: &Hull,
    hull2: &Hull,
    xf: Transform3,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let mut best = Separation::NONE;
    for (i, (&normal, &offset)) in hull1.normals().iter().zip(hull1.offsets()).enumerate() {
        let moved = rotate3(xf.r, normal);
        let moved_offset = offset + dot3(moved, xf.p);
        let mut separation = f32::MAX;
        for &w in hull2.vertices() {
            separation = separation.min(dot3(moved, w) - moved_offset);
        }
        best.offer(separation, i as u32, tolerance);
        if separation >= limit {
            return Separation {
                value: separation,
                index: i as u32,
            };
        }
    }
    best
}
