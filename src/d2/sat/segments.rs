//! Two segment cores (capsules, segments) in one straight line of
//! arithmetic: what the CPU backends run for the pair, bit for bit what
//! `polygons.rs` and `rounded.rs` compute for it.
//!
//! A segment is a polygon of two faces (`p0 -> p1` with normal `n`, and
//! `p1 -> p0` with `-n`), so the general path runs a two-polygon SAT over
//! slices, then `rounded.rs`'s caps test and closest ends. Each of those
//! is a handful of operations on four points; through the general code
//! they cost loops, slice bounds and a branch at every comparison. Here the
//! same operations run in the same order on fixed arrays:
//!
//! ```text
//! s_a[i] = separation of B's ends from A's face i      (moved into B's frame)
//! s_b[j] = separation of A's ends from B's face j      (moved into A's frame)
//! any s >= margin + radii:  not reported
//! core   = the tie rule over A's faces, B's faces, then A against B
//! cores apart (core > 0) or a cap axis separating them:
//!     the four distances of an end to the other segment, in the core
//!     owner's frame (their divisions and square roots in one vector each),
//!     the nearest (the first of equals) naming the features
//! separation = core's (or the nearest's) - radii, reported below the margin
//! ```
//!
//! The early exits of the general path (a face at or past the limit ends
//! the scan) only decide between "not reported" and "not reported", so all
//! four faces are measured before the one test. A test
//! (`tests/it/d2/lanes.rs`: `segment_pairs_take_their_own_path_with_the_general_paths_bits`)
//! holds this to the general path, bit for bit, on random and degenerate
//! poses (parallel, on one line, end to end, crossing, quarter turns, on a
//! grid), near the origin and 10,000 units out.

use glam::{Vec2, Vec4};

use crate::core::pair::Owner;
use crate::d2::math::{Transform, rotate, transform_point};
use crate::d2::shape::EdgeRecord;
use crate::d2::types::Axis;

use super::rounded::vertex_pair_feature;
use super::separation::{LOWEST, PairResult, Separation, dot, length};

/// The separations of `other`'s two ends from `own`'s two faces, each face
/// moved into `other`'s frame by `xf`: `find_max_separation`'s arithmetic.
#[inline(always)]
fn face_separations(own: &[EdgeRecord; 2], other: &[EdgeRecord; 2], xf: Transform) -> [f32; 2] {
    let (w0, w1) = (other[0].vertex, other[1].vertex);
    // A loop or `map` here would be a call that does not take the AVX
    // caller's features: written out, it inlines.
    let face = |edge: &EdgeRecord| -> f32 {
        let normal = rotate(xf.q, edge.normal);
        let vertex = transform_point(xf, edge.vertex);
        let offset = dot(normal, vertex);
        f32::MAX
            .min((normal.x * w0.x - offset) + normal.y * w0.y)
            .min((normal.x * w1.x - offset) + normal.y * w1.y)
    };
    [face(&own[0]), face(&own[1])]
}

/// `if take { yes } else { no }` without a branch: the pairs' random
/// poses make every such choice a coin toss for a branch predictor.
#[inline(always)]
fn select(take: bool, yes: f32, no: f32) -> f32 {
    let mask = (take as u32).wrapping_neg();
    f32::from_bits((yes.to_bits() & mask) | (no.to_bits() & !mask))
}

/// The tie rule over two faces, as `find_max_separation` scans them once
/// neither reaches the limit.
#[inline(always)]
fn best_of_two([s0, s1]: [f32; 2], tolerance: f32) -> Separation {
    let first = s0 > LOWEST + tolerance;
    let first_value = select(first, s0, LOWEST);
    let second = s1 > first_value + tolerance;
    Separation {
        value: select(second, s1, first_value),
        edge: second as u32,
    }
}

/// Whether the direction of `own` at either end has both of `other`'s
/// points (in `own`'s frame) beyond it: `rounded.rs`'s `caps_separate`, one
/// side.
#[inline(always)]
fn beyond_caps((p0, p1): (Vec2, Vec2), (w0, w1): (Vec2, Vec2)) -> bool {
    let d = p1 - p0;
    let past_end = dot(d, w0 - p1).min(dot(d, w1 - p1)) > 0.0;
    let before_start = (-dot(d, w0 - p0)).min(-dot(d, w1 - p0)) > 0.0;
    past_end | before_start
}

/// Four point-segment distances at once: point `k` against segment
/// `[a_k, a_k + edge_k]`, `rounded.rs`'s `point_segment` lane by lane (a
/// vector division and square root round each lane as the scalar ones do).
/// Returns the clamped fractions and the distances.
#[inline(always)]
fn point_segment4(
    (px, py): (Vec4, Vec4),
    (ax, ay): (Vec4, Vec4),
    (ex, ey): (Vec4, Vec4),
) -> (Vec4, Vec4) {
    let (dx, dy) = (px - ax, py - ay);
    let along = dx * ex + dy * ey;
    let squared = ex * ex + ey * ey;
    let inside = along / squared;
    let t = Vec4::select(
        along.cmple(Vec4::ZERO),
        Vec4::ZERO,
        Vec4::select(along.cmpge(squared), Vec4::ONE, inside),
    );
    let (cx, cy) = (px - (ax + t * ex), py - (ay + t * ey));
    (t, (cx * cx + cy * cy).sqrt())
}

/// Whether `side_face` takes face 1: not at or above the line.
#[inline(always)]
fn below_or_nan(height: f32) -> bool {
    height < 0.0 || height.is_nan()
}

/// The owner `B` where `b` holds, else `A`.
#[inline(always)]
fn owner_where(b: bool) -> Owner {
    if b { Owner::B } else { Owner::A }
}

/// The two cores' closest ends, and the result they give, in the frame of
/// the core owner (`owner_is_b` says which: its ends `p`, the other's `w`
/// moved in): `closest_segment_features` and `from_closest` in one,
/// without a branch.
///
/// ```text
/// lane 0, 1: w0, w1 against [p0, p1]   (the owner's face on w's side inside)
/// lane 2, 3: p0, p1 against [w0, w1]   (the other's face on p's side inside)
/// the first smallest distance names the features; at two ends, the
/// distance is measured again end to end (vertex_pair_distance)
/// ```
///
/// `face` is the SAT face's result, kept where no distance is below
/// `f32::MAX` (NaN or overflowed points).
#[inline(always)]
fn closest_ends(
    owner_is_b: bool,
    (p0, p1): (Vec2, Vec2),
    (w0, w1): (Vec2, Vec2),
    (owner_normal, other_normal): (Vec2, Vec2),
    face: PairResult,
    radii: f32,
) -> PairResult {
    let (own_edge, other_edge) = (p1 - p0, w1 - w0);
    let (t, distance) = point_segment4(
        (
            Vec4::new(w0.x, w1.x, p0.x, p1.x),
            Vec4::new(w0.y, w1.y, p0.y, p1.y),
        ),
        (
            Vec4::new(p0.x, p0.x, w0.x, w0.x),
            Vec4::new(p0.y, p0.y, w0.y, w0.y),
        ),
        (
            Vec4::new(own_edge.x, own_edge.x, other_edge.x, other_edge.x),
            Vec4::new(own_edge.y, own_edge.y, other_edge.y, other_edge.y),
        ),
    );
    // The first of the smallest below f32::MAX, as the scalar scan's
    // strict `<` from f32::MAX keeps it (a NaN never is: counted as
    // infinite).
    let distance = Vec4::select(distance.cmpeq(distance), distance, Vec4::INFINITY);
    let nearest = distance.min_element();
    if nearest >= f32::MAX {
        return face;
    }
    let lane = distance
        .cmpeq(Vec4::splat(nearest))
        .bitmask()
        .trailing_zeros() as usize;
    let (t, distance) = (t.to_array()[lane], distance.to_array()[lane]);
    let (p, w) = ([p0, p1], [w0, w1]);
    // The end a clamped fraction names (`vertex_at`), or none inside.
    let (end, at_end) = ((t >= 1.0) as usize, (t <= 0.0) | (t >= 1.0));
    let on_owner_face = lane < 2;
    let k = lane & 1;
    let (i, j) = if on_owner_face { (end, k) } else { (k, end) };
    // Inside a segment: its face on the point's side (`side_face`), the
    // other's face flipping the owner.
    let side = if on_owner_face {
        below_or_nan(dot(owner_normal, w[k] - p0))
    } else {
        below_or_nan(dot(other_normal, p[k] - w0))
    };
    let vertex_pair = PairResult {
        axis: Axis::new(
            owner_where(owner_is_b),
            vertex_pair_feature(2, 2, i as u32, j as u32),
        ),
        separation: length(w[j] - p[i]) - radii,
    };
    let other_face = PairResult {
        axis: Axis::new(owner_where(owner_is_b == on_owner_face), side as u32),
        separation: distance - radii,
    };
    if at_end { vertex_pair } else { other_face }
}

/// Two segment cores grown by `radii` (their sum), reported within
/// `margin`: the module's computation. `xf_ab` takes B's points into A's frame, `xf_ba` A's
/// into B's.
#[inline(always)]
pub(crate) fn collide_segments(
    a: &[EdgeRecord; 2],
    b: &[EdgeRecord; 2],
    radii: f32,
    (xf_ab, xf_ba): (Transform, Transform),
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    let limit = margin + radii;
    let separations_a = face_separations(a, b, xf_ba);
    let separations_b = face_separations(b, a, xf_ab);
    // Any face at or past the limit (a NaN face never is, as in the scans).
    let [a0, a1] = separations_a;
    let [b0, b1] = separations_b;
    if (a0 >= limit) | (a1 >= limit) | (b0 >= limit) | (b1 >= limit) {
        return None;
    }
    let best_a = best_of_two(separations_a, tolerance);
    let best_b = best_of_two(separations_b, tolerance);
    let b_wins = best_b.value > best_a.value + tolerance;
    let core_separation = select(b_wins, best_b.value, best_a.value);
    let face = PairResult {
        axis: Axis::new(
            owner_where(b_wins),
            if b_wins { best_b.edge } else { best_a.edge },
        ),
        separation: core_separation - radii,
    };
    // Each segment's ends, in its own frame and moved into the other's.
    let (a0, a1) = (a[0].vertex, a[1].vertex);
    let (b0, b1) = (b[0].vertex, b[1].vertex);
    let (a0_in_b, a1_in_b) = (transform_point(xf_ba, a0), transform_point(xf_ba, a1));
    let (b0_in_a, b1_in_a) = (transform_point(xf_ab, b0), transform_point(xf_ab, b1));
    let apart = (core_separation > 0.0)
        | beyond_caps((a0, a1), (b0_in_a, b1_in_a))
        | beyond_caps((b0, b1), (a0_in_b, a1_in_b));
    let result = if !apart {
        face
    } else if b_wins {
        closest_ends(
            true,
            (b0, b1),
            (a0_in_b, a1_in_b),
            (b[0].normal, rotate(xf_ba.q, a[0].normal)),
            face,
            radii,
        )
    } else {
        closest_ends(
            false,
            (a0, a1),
            (b0_in_a, b1_in_a),
            (a[0].normal, rotate(xf_ab.q, b[0].normal)),
            face,
            radii,
        )
    };
    (result.separation < margin).then_some(result)
}
