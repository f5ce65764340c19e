//! Shapes with a radius: two polygon or segment cores, each grown by its
//! radius (rounded polygons, capsules, a capsule and a segment).
//!
//! A rounded shape is the set of points within `r` of its convex core, so
//! two of them overlap by `R - dist(core_a, core_b)` (`R = r_a + r_b`) along
//! the line of the cores' closest points, and, where the cores overlap, by
//! `R` plus the cores' own penetration along their SAT axis. In terms of the
//! cores' Minkowski difference `M = core_b - core_a`, the depth is `R` minus
//! the signed distance from the origin to `M`, and:
//!
//! * **Cores overlapping or touching** (the cores' SAT separation `s <= 0`):
//!   the origin is inside `M`, whose nearest edge is the SAT's best face, so
//!   the depth is `R - s` along that face's normal. The SAT runs with the
//!   limit `margin + R` (an early exit past it).
//! * **Cores apart** (`s > 0`): the SAT's `s` is only the largest distance
//!   from the origin to an edge's *line*, a lower bound of the distance to
//!   `M`. The closest point of `M` is either inside an edge, whose line
//!   distance is then the distance itself (and the largest: every line
//!   passes no nearer than `M`), or a vertex of `M`, whose two edges' line
//!   distances are the largest (any other edge's normal is farther in
//!   angle from the direction to the vertex). So the closest features are
//!   the best face's own: the face of one core (from its vertices `p0`,
//!   `p1`) and the other core's support vertex `w` along the face's
//!   negated normal with its two edges. find_closest_features measures the
//!   few point-segment distances among those; the nearest decides:
//!
//!   ```text
//!   w (or a neighbour) over the inside of the face:  the face, separation s - R
//!   p0 or p1 over the inside of w's edges:            the face, separation s - R
//!                                                     (its line distance is the
//!                                                     distance: the same line)
//!   a vertex of the face and a vertex of the other:   the vertex pair,
//!                                                     separation |w - p| - R
//!   ```
//!
//!   The tie rule may pick a face up to its tolerance below the best one;
//!   then the candidates above need not hold the closest pair. A vertex pair
//!   is kept only when the direction between the two vertices lies in both
//!   vertices' normal cones (the condition for the closest pair of two
//!   convex shapes); otherwise every vertex is measured against every edge
//!   of the other core (closest_features_everywhere), which is exact
//!   whatever the face.
//!
//! Two segment cores (capsules, segments) make a degenerate Minkowski
//! difference where they are parallel: a segment, whose ends' axes (the
//! segments' own directions, their caps) are not among the faces' normals.
//! So for two segments the cores count as overlapping only where no cap
//! axis separates them either (caps_separate, exact signs, no tie rule);
//! otherwise they are apart, and closest at an end of one of them: the four
//! distances of an end to the other segment decide
//! (closest_segment_features), with no face search.
//! A segment core against a circle's point core is taken exactly the same
//! way (collide_segment_circle): the point's nearest feature on the segment
//! by its regions, not by the two opposite faces' tie rule.
//!
//! A bare segment (radius 0) is a core like the others, a polygon of two
//! faces: its pairs run through here too, so that a segment's pair apart
//! within the margin reports the exact gap. (Two plain polygons report
//! their best face separation there, a lower bound of the gap, and do not
//! come here.)
//!
//! The vertex pair's axis is owned by the best face's owner, feature
//! `2 n + i m + j` for vertex `i` of the owner (`n` vertices) and vertex `j`
//! of the other (`m`): the normal runs from the owner's vertex to the
//! other's, rebuilt from the two vertices and the transforms
//! (`pair.rs`: `axis_normal`).

use glam::Vec2;

use crate::core::pair::Owner;
use crate::d2::math::{Transform, rotate, transform_point};
use crate::d2::shape::EdgeRecord;
use crate::d2::types::Axis;

use super::polygon_circle::circle_face_separation;
use super::separation::{PairResult, dot, length};

/// Where two cores are closest: the distance, and the features.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ClosestFeatures {
    /// A face of the owner (or the other core's face on the same line):
    /// the SAT's best face holds the closest pair.
    Face,
    /// Vertex `i` of the owner and vertex `j` of the other core.
    Vertices { i: u32, j: u32 },
    /// Face `face` of `owner` (the pair's, or flipped) with the other
    /// core's nearest point over its inside, `distance` from it (the
    /// measure over every feature found it off the SAT's face).
    OtherFace {
        owner: Owner,
        face: u32,
        distance: f32,
    },
}

/// The feature of the vertex pair (`i` of the owner's `n`, `j` of the
/// other's `m`) in an [`Axis`].
pub(crate) fn vertex_pair_feature(n: u32, m: u32, i: u32, j: u32) -> u32 {
    2 * n + i * m + j
}

/// The distance of the owner's vertex `i` from the other's vertex `j`
/// (moved into the owner's frame by `xf`): the one computation of it, for
/// the SAT and the manifold alike.
#[inline(always)]
pub(crate) fn vertex_pair_distance(
    owner: &[EdgeRecord],
    other: &[EdgeRecord],
    xf: Transform,
    i: u32,
    j: u32,
) -> f32 {
    length(transform_point(xf, other[j as usize].vertex) - owner[i as usize].vertex)
}

/// The inverse of [`vertex_pair_feature`] for a feature of at least `2 n`.
pub(crate) fn vertex_pair_of(n: u32, m: u32, feature: u32) -> (u32, u32) {
    let k = feature - 2 * n;
    ((k / m).min(n - 1), k % m)
}

fn next(i: u32, count: u32) -> u32 {
    if i + 1 < count { i + 1 } else { 0 }
}

fn previous(i: u32, count: u32) -> u32 {
    if i > 0 { i - 1 } else { count - 1 }
}

/// The point of segment `[a, b]` nearest `p`: its fraction along the
/// segment (clamped to `[0, 1]`) and the distance.
#[inline(always)]
fn point_segment(p: Vec2, a: Vec2, b: Vec2) -> (f32, f32) {
    let edge = b - a;
    let along = dot(p - a, edge);
    let squared = dot(edge, edge);
    let t = if along <= 0.0 {
        0.0
    } else if along >= squared {
        1.0
    } else {
        along / squared
    };
    (t, length(p - (a + t * edge)))
}

/// The end of a segment `[k0, k1]` a clamped fraction `t` names, or none
/// inside it.
#[inline(always)]
fn vertex_at(t: f32, k0: u32, k1: u32) -> Option<u32> {
    if t <= 0.0 {
        Some(k0)
    } else if t >= 1.0 {
        Some(k1)
    } else {
        None
    }
}

/// Whether direction `u` lies in the normal cone of vertex `i` of a
/// counter-clockwise outline (`vertex(k)` its vertices, `count` of them):
/// past vertex `i` along the edge into it, and before it along the edge out
/// (for a segment's end, a half-plane).
#[inline(always)]
fn in_vertex_cone(vertex: impl Fn(u32) -> Vec2, count: u32, i: u32, u: Vec2) -> bool {
    let v = vertex(i);
    dot(u, v - vertex(previous(i, count))) >= 0.0 && dot(u, vertex(next(i, count)) - v) <= 0.0
}

/// The closest features of the owner's core (`owner`, in its own frame) and
/// the other's (`other`, moved into the owner's frame by `xf`), given the
/// SAT's best face `face` of the owner with a positive separation.
///
/// ```text
/// p0, p1 = the face's vertices; n its normal
/// j      = the other's vertex lowest along n (the first on ties); w_k its vertices
/// nearest of:  w_{j-1}, w_j, w_{j+1} against [p0, p1]
///              p0, p1 against [w_{j-1}, w_j] and [w_j, w_{j+1}]
/// inside a segment:      Face
/// at two vertices p, w:  Vertices, if w - p lies in both vertices' cones,
///                        else closest_features_everywhere
/// ```
pub(crate) fn find_closest_features(
    owner: &[EdgeRecord],
    other: &[EdgeRecord],
    xf: Transform,
    face: u32,
) -> ClosestFeatures {
    let (n, m) = (owner.len() as u32, other.len() as u32);
    let p = |i: u32| owner[i as usize].vertex;
    let w = |j: u32| transform_point(xf, other[j as usize].vertex);
    let normal = owner[face as usize].normal;
    let mut j = 0;
    let mut lowest = dot(normal, w(0));
    for k in 1..m {
        let along = dot(normal, w(k));
        if along < lowest {
            lowest = along;
            j = k;
        }
    }
    let (i0, i1) = (face, next(face, n));
    let (j0, j2) = (previous(j, m), next(j, m));
    // (distance, the owner's vertex or none, the other's vertex or none).
    let mut best = (f32::MAX, None, None);
    let mut offer = |distance: f32, on_owner: Option<u32>, on_other: Option<u32>| {
        if distance < best.0 {
            best = (distance, on_owner, on_other);
        }
    };
    // The other's three vertices, moved once.
    let near = [(j0, w(j0)), (j, w(j)), (j2, w(j2))];
    for (k, wk) in near {
        let (t, distance) = point_segment(wk, p(i0), p(i1));
        offer(distance, vertex_at(t, i0, i1), Some(k));
    }
    for i in [i0, i1] {
        for ((k0, w0), (k1, w1)) in [(near[0], near[1]), (near[1], near[2])] {
            let (t, distance) = point_segment(p(i), w0, w1);
            offer(distance, Some(i), vertex_at(t, k0, k1));
        }
    }
    match best {
        (_, Some(i), Some(j)) => {
            let u = w(j) - p(i);
            if in_vertex_cone(p, n, i, u) && in_vertex_cone(w, m, j, -u) {
                ClosestFeatures::Vertices { i, j }
            } else {
                closest_features_everywhere(owner, other, xf)
            }
        }
        _ => ClosestFeatures::Face,
    }
}

/// The closest features of two cores by every vertex against every edge of
/// the other: exact whatever the SAT's face (see the module's doc).
fn closest_features_everywhere(
    owner: &[EdgeRecord],
    other: &[EdgeRecord],
    xf: Transform,
) -> ClosestFeatures {
    let (n, m) = (owner.len() as u32, other.len() as u32);
    let p = |i: u32| owner[i as usize].vertex;
    let w = |j: u32| transform_point(xf, other[j as usize].vertex);
    let mut best = (f32::MAX, ClosestFeatures::Face);
    for j in 0..m {
        let wj = w(j);
        for i in 0..n {
            let (t, distance) = point_segment(wj, p(i), p(next(i, n)));
            if distance < best.0 {
                best.1 = match vertex_at(t, i, next(i, n)) {
                    Some(vertex) => ClosestFeatures::Vertices { i: vertex, j },
                    None => ClosestFeatures::OtherFace {
                        owner: Owner::A,
                        face: i,
                        distance,
                    },
                };
                best.0 = distance;
            }
        }
    }
    for i in 0..n {
        for j in 0..m {
            let (t, distance) = point_segment(p(i), w(j), w(next(j, m)));
            if distance < best.0 && t > 0.0 && t < 1.0 {
                best = (
                    distance,
                    ClosestFeatures::OtherFace {
                        owner: Owner::B,
                        face: j,
                        distance,
                    },
                );
            }
        }
    }
    best.1
}

/// The closest features of two segment cores that do not cross (the
/// owner's `owner`, in its own frame; the other's `other`, moved into it by
/// `xf`): two disjoint segments are closest at an end of one of them, so
/// four point-segment distances decide, and the side of the segment the
/// end lies on names the face.
///
/// ```text
/// p0, p1 = the owner's ends; w0, w1 = the other's, in the owner's frame
/// nearest of (the first of equals, in this order):
///     w0, w1 against [p0, p1]:  at an end i of it, Vertices { i, j };
///                               inside, the owner's face on w_j's side
///     p0, p1 against [w0, w1]:  at an end j of it, Vertices { i, j };
///                               inside, the other's face on p_i's side
/// a face's side: face 0 if the point is at or above its line, else face 1
/// ```
pub(crate) fn closest_segment_features(
    owner: &[EdgeRecord],
    other: &[EdgeRecord],
    xf: Transform,
) -> ClosestFeatures {
    let (p0, p1) = (owner[0].vertex, owner[1].vertex);
    let (w0, w1) = (
        transform_point(xf, other[0].vertex),
        transform_point(xf, other[1].vertex),
    );
    let owner_normal = owner[0].normal;
    let other_normal = rotate(xf.q, other[0].normal);
    let mut best = (f32::MAX, ClosestFeatures::Face);
    for (j, w) in [(0, w0), (1, w1)] {
        let (t, distance) = point_segment(w, p0, p1);
        if distance < best.0 {
            let features = match vertex_at(t, 0, 1) {
                Some(i) => ClosestFeatures::Vertices { i, j },
                None => ClosestFeatures::OtherFace {
                    owner: Owner::A,
                    face: side_face(owner_normal, w - p0),
                    distance,
                },
            };
            best = (distance, features);
        }
    }
    for (i, p) in [(0, p0), (1, p1)] {
        let (t, distance) = point_segment(p, w0, w1);
        if distance < best.0 {
            let features = match vertex_at(t, 0, 1) {
                Some(j) => ClosestFeatures::Vertices { i, j },
                None => ClosestFeatures::OtherFace {
                    owner: Owner::B,
                    face: side_face(other_normal, p - w0),
                    distance,
                },
            };
            best = (distance, features);
        }
    }
    best.1
}

/// The face of a segment (face 0's outward normal `normal`) on whose side
/// `offset` (from a point of the segment) lies: 0 at or above the line.
#[inline(always)]
fn side_face(normal: Vec2, offset: Vec2) -> u32 {
    if dot(normal, offset) >= 0.0 { 0 } else { 1 }
}

/// Whether a cap axis separates two segment cores: the direction of either
/// segment at either of its ends, with the other's points beyond it. `xf_ab`
/// takes B's points into A's frame, `xf_ba` A's into B's.
///
/// ```text
/// for each segment [p0, p1] and the other's points w0, w1 in its frame:
///     d = p1 - p0
///     separated if  min(d . (w0 - p1), d . (w1 - p1)) > 0
///                or min(-d . (w0 - p0), -d . (w1 - p0)) > 0
/// ```
pub(crate) fn caps_separate(
    poly_a: &[EdgeRecord],
    poly_b: &[EdgeRecord],
    (xf_ab, xf_ba): (Transform, Transform),
) -> bool {
    let beyond = |own: &[EdgeRecord], other: &[EdgeRecord], xf: Transform| {
        let (p0, p1) = (own[0].vertex, own[1].vertex);
        let (w0, w1) = (
            transform_point(xf, other[0].vertex),
            transform_point(xf, other[1].vertex),
        );
        let d = p1 - p0;
        let past_end = dot(d, w0 - p1).min(dot(d, w1 - p1)) > 0.0;
        let before_start = (-dot(d, w0 - p0)).min(-dot(d, w1 - p0)) > 0.0;
        past_end || before_start
    };
    beyond(poly_a, poly_b, xf_ab) || beyond(poly_b, poly_a, xf_ba)
}

/// A segment core (`segment`: its two faces) against a circle's centre
/// `centre` in the segment's frame, grown by `radius` (both radii): the
/// centre's nearest feature by its regions, exactly (the two faces are
/// always nearly tied near the segment's line, so their tie rule cannot
/// tell the side, and beyond an end neither face is the axis).
///
/// ```text
/// past the first point along the segment:   vertex region of it, |c - a|
/// past the second:                          vertex region of it, |c - b|
/// else: the face the centre is on (the first of equals), its separation
/// separation - radius, reported when below the margin
/// ```
pub(crate) fn collide_segment_circle(
    segment: &[EdgeRecord],
    centre: Vec2,
    radius: f32,
    owner: Owner,
    margin: f32,
) -> Option<PairResult> {
    let (a, b) = (segment[0].vertex, segment[1].vertex);
    let (feature, distance) = if dot(centre - a, b - a) < 0.0 {
        (2, length(centre - a))
    } else if dot(centre - b, a - b) < 0.0 {
        (3, length(centre - b))
    } else {
        let s0 = circle_face_separation(&segment[0], centre);
        let s1 = circle_face_separation(&segment[1], centre);
        if s1 > s0 { (1, s1) } else { (0, s0) }
    };
    let separation = distance - radius;
    (separation < margin).then_some(PairResult {
        axis: Axis::new(owner, feature),
        separation,
    })
}

/// The end of a pair of rounded cores, once the cores' SAT (`core`, run
/// with the limit `margin + radii`) has its best face: the module's cases.
/// `xf_ab` takes B's points into A's frame, `xf_ba` A's into B's.
pub(crate) fn finish_rounded(
    poly_a: &[EdgeRecord],
    poly_b: &[EdgeRecord],
    radii: f32,
    (xf_ab, xf_ba): (Transform, Transform),
    core: PairResult,
    margin: f32,
) -> Option<PairResult> {
    let mut result = PairResult {
        axis: core.axis,
        separation: core.separation - radii,
    };
    let (owner, other, xf) = match core.axis.owner {
        Owner::A => (poly_a, poly_b, xf_ab),
        Owner::B => (poly_b, poly_a, xf_ba),
    };
    let segments = poly_a.len() == 2 && poly_b.len() == 2;
    let closest = if segments {
        // Two segments apart along a face or a cap axis: their ends against
        // each other.
        (core.separation > 0.0 || caps_separate(poly_a, poly_b, (xf_ab, xf_ba)))
            .then(|| closest_segment_features(owner, other, xf))
    } else if core.separation > 0.0 {
        Some(find_closest_features(owner, other, xf, core.axis.feature))
    } else {
        None
    };
    if let Some(closest) = closest {
        result = from_closest(core.axis.owner, (owner, other, xf), closest, result, radii);
    }
    (result.separation < margin).then_some(result)
}

/// The pair's result from its cores' closest features (`face`: the result
/// the SAT's face gives, kept for `ClosestFeatures::Face`).
fn from_closest(
    axis_owner: Owner,
    (owner, other, xf): (&[EdgeRecord], &[EdgeRecord], Transform),
    closest: ClosestFeatures,
    face: PairResult,
    radii: f32,
) -> PairResult {
    let (n, m) = (owner.len() as u32, other.len() as u32);
    match closest {
        ClosestFeatures::Face => face,
        ClosestFeatures::Vertices { i, j } => PairResult {
            axis: Axis::new(axis_owner, vertex_pair_feature(n, m, i, j)),
            separation: vertex_pair_distance(owner, other, xf, i, j) - radii,
        },
        ClosestFeatures::OtherFace {
            owner: face_owner,
            face,
            distance,
        } => {
            // `Owner::A` here is the pair's owner side, `B` the other.
            let flipped = match (axis_owner, face_owner) {
                (owner, Owner::A) => owner,
                (Owner::A, Owner::B) => Owner::B,
                (Owner::B, Owner::B) => Owner::A,
            };
            PairResult {
                axis: Axis::new(flipped, face),
                separation: distance - radii,
            }
        }
    }
}
