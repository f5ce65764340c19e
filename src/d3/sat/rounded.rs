//! Shapes with a radius: capsules (a segment core), rounded hulls (a hull
//! core) and spheres (a point core), against each other and against plain
//! hulls.
//!
//! A rounded shape is the set of points within `r` of its convex core. With
//! `M = core_b - core_a` the cores' Minkowski difference and `R = r_a + r_b`,
//! the depth is `R` minus the signed distance from the origin to `M`:
//!
//! * **Cores overlapping or touching** (the cores' SAT separation
//!   `s <= 0`): the origin is inside `M` and its nearest face is the SAT's
//!   best axis, so the depth is `R - s` along it. The SAT runs with the
//!   limit `margin + R`.
//! * **Cores apart** (`s > 0`): `s` is the largest distance from the origin
//!   to a face *plane* of `M`, a lower bound of the distance. The closest
//!   point of `M` lies in a face of `M` (then `s` is the distance, and the
//!   SAT's face or edge pair is the axis), on an edge of `M` (a vertex of one
//!   core against an edge of the other) or at a vertex of `M` (a vertex
//!   against a vertex). So the exact closest features are searched, and
//!   the SAT's axis kept when their distance is within the tie tolerance
//!   of `s`, or for a face the edge tolerance (the margin by which the SAT
//!   prefers a face to an edge pair, so that a resting pair keeps its face
//!   and its four points):
//!
//!   ```text
//!   candidates (the features whose points can be nearest, below):
//!       a vertex of one core over the inside of a face of the other   rank 3
//!       two edges, closest at inner points of both (not parallel)     rank 2
//!       a vertex and an edge's inner point                            rank 1
//!       two vertices                                                  rank 0
//!   nearest = the least distance; within the tie tolerance of it the higher rank
//!   if nearest <= s + tolerance (a face: the edge tolerance):
//!          the SAT's axis, separation s - R
//!   else:  the nearest pair's axis (FaceA, FaceB or Edges for a face of M
//!          the SAT passed over, as an edge pair it skips as parallel; else
//!          VertexEdge, EdgeVertex or Vertices), separation d - R with d
//!          from its two closest points
//!   ```
//!
//!   Near a vertex an edge's inner point is nearer than the vertex by less
//!   than single precision resolves, yet the direction from the two differs
//!   by their distance over the gap (seed issue: 2.3 mrad); the rank keeps
//!   the inner point, whose direction is the right one.
//!
//! Which features can be nearest, by pair of cores:
//!
//! * **Hull and hull, hull and segment** (a capsule's core): first the
//!   features that made the SAT's axis (the other core's support vertex
//!   over the face, or the edge pair's inner closest points): where they
//!   are within the tolerance of `s`, the SAT's axis is the answer, the
//!   common case of a resting pair. Otherwise the slab search: the axis
//!   `n` and the two supports bound the distance from above
//!   (`d_up = |w - v|`), the nearest points lie within `d_up - s` of each
//!   core's extreme plane along `n`, so only the vertices in that slab,
//!   the edges with an end in it and the faces with a vertex in it are
//!   measured: a vertex over a face, and every two edges (a segment is one
//!   edge, its ends its vertices).
//! * **Hull and segment, the SAT**: the hull's faces against the segment's
//!   two ends, and each hull edge crossed with the segment where the
//!   edge's arc on the Gauss map crosses the segment's great circle (its
//!   two faces' normals on opposite sides of the segment).
//! * **Hull and point** (a sphere against a rounded hull): the sphere's own
//!   test (`sphere.rs`) with the radius `R`.
//! * **Segment and segment**: their closest points (Ericson's clamped
//!   parameters); inside both, the axis is the common normal, or where
//!   the cores cross (distance 0) the normal of the two directions.
//! * **Segment and point**: the point's closest point on the segment.
//!
//! A segment core has vertices 0 and 1 and edge 0; a point core vertex 0.

use std::cell::RefCell;

use glam::Vec3;

use super::super::math::{
    Transform, cross3, dot3, inv_mul_transforms, length3, rotate, transform_point,
};
use super::super::shape::edge::HullEdge;
use super::super::shape::kind::{Core, Shape};
use super::super::shape::lanes::LANES;
use super::super::shape::shapes::Hull;
use super::super::types::{Axis, EdgeSearch, EdgeStats};
use super::hulls::{collide_hulls, edge_pair_axis};
use super::lanes::hull_segment_queries_lanes;
use super::separation::{PARALLEL_TOLERANCE, PairResult, Separation};
use super::sphere::{collide_hull_sphere_cpu, collide_spheres, inside_face, sphere_axis};
use crate::core::pair::Owner;

/// The closest points of segments `[p1, q1]` and `[p2, q2]` and their
/// parameters along each, clamped to `[0, 1]` (Ericson, *Real-Time
/// Collision Detection*, 5.1.9; parallel segments take `s = 0` first).
pub(crate) fn closest_points_of_segments(
    p1: Vec3,
    q1: Vec3,
    p2: Vec3,
    q2: Vec3,
) -> (Vec3, Vec3, f32, f32) {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (dot3(d1, d1), dot3(d2, d2), dot3(d2, r));
    let c = dot3(d1, r);
    let b = dot3(d1, d2);
    let denominator = a * e - b * b;
    let mut s = if denominator > 0.0 {
        ((b * f - c * e) / denominator).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = if e > 0.0 { (b * s + f) / e } else { 0.0 };
    if t < 0.0 {
        t = 0.0;
        s = if a > 0.0 {
            (-c / a).clamp(0.0, 1.0)
        } else {
            0.0
        };
    } else if t > 1.0 {
        t = 1.0;
        s = if a > 0.0 {
            ((b - c) / a).clamp(0.0, 1.0)
        } else {
            0.0
        };
    }
    (p1 + s * d1, p2 + t * d2, s, t)
}

/// The end a clamped parameter sits at (`None`: strictly inside).
#[inline]
fn end_of(t: f32) -> Option<u32> {
    if t <= 0.0 {
        Some(0)
    } else if t >= 1.0 {
        Some(1)
    } else {
        None
    }
}

/// The closest point of segment `[e0, e1]` to `p` (`e0` for a segment of
/// no length: a point core's edge, from a backend's garbage).
#[inline]
fn closest_on_segment(e0: Vec3, e1: Vec3, p: Vec3) -> Vec3 {
    let along = e1 - e0;
    let squared = dot3(along, along);
    if squared <= 0.0 {
        return e0;
    }
    let t = (dot3(p - e0, along) / squared).clamp(0.0, 1.0);
    e0 + t * along
}

/// Whether two directions are within [`PARALLEL_TOLERANCE`] of parallel
/// (the sine of their angle), as the SAT skips such edge pairs.
#[inline]
fn parallel(da: Vec3, db: Vec3) -> bool {
    parallel_scaled(da, db, PARALLEL_TOLERANCE * length3(da), length3(db))
}

/// [`parallel`] with `PARALLEL_TOLERANCE * length3(da)` and `length3(db)`
/// given (the same bits, for an edge tested against many).
#[inline]
fn parallel_scaled(da: Vec3, db: Vec3, scaled_a: f32, length_b: f32) -> bool {
    length3(cross3(da, db)) <= scaled_a * length_b
}

/// A unit vector perpendicular to `d` (not zero), the same for the same
/// bits: the normal of a pair whose closest points coincide on a segment.
fn perpendicular(d: Vec3) -> Vec3 {
    let a = d.abs();
    let other = if a.x <= a.y && a.x <= a.z {
        Vec3::X
    } else if a.y <= a.z {
        Vec3::Y
    } else {
        Vec3::Z
    };
    let normal = cross3(d, other);
    let length = length3(normal);
    if length > 0.0 {
        normal / length
    } else {
        Vec3::X
    }
}

/// The normal of two segments (B's in A's frame) that touch or cross: the
/// normal of their directions, from A's midpoint towards B's (any sign is
/// the same depth: the cores' Minkowski difference is flat); for parallel
/// segments a perpendicular of A's.
fn crossing_normal(a: [Vec3; 2], b: [Vec3; 2]) -> Vec3 {
    let crossed = cross3(a[1] - a[0], b[1] - b[0]);
    let length = length3(crossed);
    if length <= 0.0 {
        return perpendicular(a[1] - a[0]);
    }
    let normal = crossed / length;
    if dot3(normal, (b[0] + b[1]) - (a[0] + a[1])) < 0.0 {
        -normal
    } else {
        normal
    }
}

/// The normal of two cores whose closest points coincide (at a segment's
/// end or inside it): the crossing normal of two segments, else a
/// perpendicular of the segment.
fn touching_normal(core_a: Core, core_b: Core, xf_ab: Transform) -> Vec3 {
    match (core_a, core_b) {
        (Core::Segment(a), Core::Segment(b)) => {
            crossing_normal(a, b.map(|p| transform_point(xf_ab, p)))
        }
        (Core::Segment([a0, a1]), _) => perpendicular(a1 - a0),
        (_, Core::Segment([b0, b1])) => perpendicular(rotate(xf_ab.r, b1 - b0)),
        _ => Vec3::X,
    }
}

/// The geometry of a closest-feature axis, in A's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FeaturePair {
    /// Unit normal from A to B.
    pub normal: Vec3,
    /// The closest point of A's core.
    pub on_a: Vec3,
    /// The closest point of B's core.
    pub on_b: Vec3,
    /// Their distance.
    pub distance: f32,
}

/// Two segments in A's frame: their axis (`Edges(0, 0)` where the closest
/// points are inside both, else the vertex and edge features) and its
/// geometry.
///
/// ```text
/// p, q = the closest points (clamped parameters)
/// inside both, not parallel:  normal = normalise(d_a x d_b), turned along q - p
///                             (where p = q, the cores cross: from A's midpoint
///                             towards B's); distance = normal . (b0 - a0)
///                             (the line between inner closest points is the
///                             common normal: this stays accurate however
///                             close the cores, where (q - p) / |q - p| would not)
/// else:                       the end(s) clamped name the features,
///                             normal (q - p) / |q - p|
/// p = q at an end:            a perpendicular of A's segment
/// ```
pub(crate) fn segment_pair(a: [Vec3; 2], b: [Vec3; 2]) -> (Axis, FeaturePair) {
    let (on_a, on_b, s, t) = closest_points_of_segments(a[0], a[1], b[0], b[1]);
    let axis = segment_axis(s, t);
    let (da, db) = (a[1] - a[0], b[1] - b[0]);
    let offset = on_b - on_a;
    if axis == Axis::Edges(0, 0) && !parallel(da, db) {
        let normal = inner_normal(a, b, (da, db), offset);
        let pair = FeaturePair {
            normal,
            on_a,
            on_b,
            distance: dot3(normal, b[0] - a[0]).max(0.0),
        };
        return (axis, pair);
    }
    let distance = length3(offset);
    let normal = if distance > 0.0 {
        offset / distance
    } else {
        crossing_normal(a, b)
    };
    (
        axis,
        FeaturePair {
            normal,
            on_a,
            on_b,
            distance,
        },
    )
}

/// The axis two segments' clamped closest parameters name: `Edges(0, 0)`
/// inside both, else the end(s) they sit at.
#[inline]
fn segment_axis(s: f32, t: f32) -> Axis {
    match (end_of(s), end_of(t)) {
        (None, None) => Axis::Edges(0, 0),
        (None, Some(j)) => Axis::EdgeVertex(0, j),
        (Some(i), None) => Axis::VertexEdge(i, 0),
        (Some(i), Some(j)) => Axis::Vertices(i, j),
    }
}

/// The common normal of two segments (directions `da`, `db`, not
/// parallel) closest at inner points `offset` apart: their directions'
/// normal turned along the offset, or, where it is none (the cores cross),
/// the crossing normal.
#[inline]
fn inner_normal(a: [Vec3; 2], b: [Vec3; 2], (da, db): (Vec3, Vec3), offset: Vec3) -> Vec3 {
    let crossed = cross3(da, db);
    let normal = crossed / length3(crossed);
    let side = dot3(normal, offset);
    if side > 0.0 {
        normal
    } else if side < 0.0 {
        -normal
    } else {
        crossing_normal(a, b)
    }
}

/// Two segment cores (capsules; B's in A's frame) grown by `radii`: the
/// separation [`segment_pair`] and [`finish_feature`] give their axis,
/// without the normals they also find (the rebuild's business).
///
/// ```text
/// s, t = the clamped closest parameters; the axis they name
/// inside both, not parallel:  normal . (b0 - a0), at least 0 (segment_pair)
/// inside both, parallel:      |q - p|
/// an end and the other's inside, or two ends: the feature's points'
///                             distance, as feature_points measures it
/// separation = distance - radii, reported below the margin
/// ```
#[inline]
pub(crate) fn collide_segment_cores(
    a: [Vec3; 2],
    b: [Vec3; 2],
    radii: f32,
    margin: f32,
) -> Option<PairResult> {
    let (on_a, on_b, s, t) = closest_points_of_segments(a[0], a[1], b[0], b[1]);
    let axis = segment_axis(s, t);
    let distance = match axis {
        Axis::VertexEdge(i, _) => {
            let p = a[i as usize];
            length3(closest_on_segment(b[0], b[1], p) - p)
        }
        Axis::EdgeVertex(_, j) => {
            let q = b[j as usize];
            length3(q - closest_on_segment(a[0], a[1], q))
        }
        Axis::Vertices(i, j) => length3(b[j as usize] - a[i as usize]),
        _ => {
            let (da, db) = (a[1] - a[0], b[1] - b[0]);
            let offset = on_b - on_a;
            if parallel(da, db) {
                length3(offset)
            } else {
                dot3(inner_normal(a, b, (da, db), offset), b[0] - a[0]).max(0.0)
            }
        }
    };
    let separation = distance - radii;
    (separation < margin).then_some(PairResult { axis, separation })
}

/// Two capsules' axis geometry in A's frame (`b`: B's segment moved into
/// it by `xf_ab`, `b_local` the same in B's frame): for an edge pair
/// [`segment_pair`]'s, else [`feature_pair`]'s; what
/// [`rounded_axis_normal`] rotates out and the manifold's closest points,
/// found once.
pub(crate) fn capsule_axis_geometry(
    a: [Vec3; 2],
    (b, b_local): ([Vec3; 2], [Vec3; 2]),
    xf_ab: Transform,
    axis: Axis,
) -> FeaturePair {
    match axis {
        Axis::Edges(..) => segment_pair(a, b).1,
        _ => feature_pair(Core::Segment(a), Core::Segment(b_local), xf_ab, axis).unwrap_or(
            FeaturePair {
                normal: Vec3::X,
                on_a: Vec3::ZERO,
                on_b: xf_ab.p,
                distance: 0.0,
            },
        ),
    }
}

/// The closest points of a vertex-edge or vertex-vertex axis between two
/// cores (B's placed in A's frame by `xf_ab`); `None` for the other kinds.
#[inline]
fn feature_points(
    core_a: Core,
    core_b: Core,
    xf_ab: Transform,
    axis: Axis,
) -> Option<(Vec3, Vec3)> {
    Some(match axis {
        Axis::VertexEdge(v, e) => {
            let p = core_a.vertex(v);
            let (e0, e1) = core_b.edge(e);
            let (e0, e1) = (transform_point(xf_ab, e0), transform_point(xf_ab, e1));
            (p, closest_on_segment(e0, e1, p))
        }
        Axis::EdgeVertex(e, v) => {
            let q = transform_point(xf_ab, core_b.vertex(v));
            let (e0, e1) = core_a.edge(e);
            (closest_on_segment(e0, e1, q), q)
        }
        Axis::Vertices(v, w) => (core_a.vertex(v), transform_point(xf_ab, core_b.vertex(w))),
        _ => return None,
    })
}

/// The geometry of a vertex-edge or vertex-vertex axis between two cores
/// (B's placed in A's frame by `xf_ab`); `None` for the other kinds.
pub(crate) fn feature_pair(
    core_a: Core,
    core_b: Core,
    xf_ab: Transform,
    axis: Axis,
) -> Option<FeaturePair> {
    let (on_a, on_b) = feature_points(core_a, core_b, xf_ab, axis)?;
    let offset = on_b - on_a;
    let distance = length3(offset);
    let normal = if distance > 0.0 {
        offset / distance
    } else {
        touching_normal(core_a, core_b, xf_ab)
    };
    Some(FeaturePair {
        normal,
        on_a,
        on_b,
        distance,
    })
}

/// Hull edge `e` crossed with a segment's direction `along` (both in the
/// hull's frame), where the edge's arc crosses the segment's great circle on
/// the Gauss map: the unit axis out of the hull, and the edge's first
/// vertex.
///
/// ```text
/// u, v = the edge's faces' normals; a face of M only if (u . d)(v . d) < 0
/// axis = normalise(edge x d), turned towards u + v (the arc's side)
/// ```
pub(crate) fn hull_segment_axis(hull: &Hull, e: usize, along: Vec3) -> Option<(Vec3, Vec3)> {
    let gauss = hull.lanes().edge_gauss(e);
    let (du, dv) = (dot3(gauss.u, along), dot3(gauss.v, along));
    if du * dv >= 0.0 {
        return None;
    }
    segment_edge_axis(hull, e, (gauss.u, gauss.v), along)
}

/// The axis of hull edge `e` crossed with `along`, whose arc crosses the
/// segment's great circle (the normals `u`, `v` of its faces on opposite
/// sides): `hull_segment_axis` past its test.
#[inline]
fn segment_edge_axis(
    hull: &Hull,
    e: usize,
    (u, v): (Vec3, Vec3),
    along: Vec3,
) -> Option<(Vec3, Vec3)> {
    let (p0, p1) = hull.lanes().edge_vertices(e);
    let direction = p1 - p0;
    let crossed = cross3(direction, along);
    let length = length3(crossed);
    if length <= PARALLEL_TOLERANCE * length3(direction) * length3(along) {
        return None;
    }
    let axis = crossed / length;
    if dot3(axis, u + v) < 0.0 {
        Some((-axis, p0))
    } else {
        Some((axis, p0))
    }
}

/// The nearest feature pair found so far: its distance, its rank (3: a
/// vertex over a face, 2: two edges' inner points, both a face of `M`; 1:
/// an edge of `M`; 0: a vertex of `M`), and its axis (none where the SAT's
/// own axis stands for it).
#[derive(Clone, Copy, Debug)]
struct Nearest {
    distance: f32,
    rank: u8,
    axis: Option<Axis>,
}

impl Nearest {
    const NONE: Nearest = Nearest {
        distance: f32::MAX,
        rank: 0,
        axis: None,
    };

    /// Takes a candidate nearer by more than `tolerance`, or one as near
    /// within it and of a higher rank.
    #[inline]
    fn offer(&mut self, distance: f32, rank: u8, axis: Option<Axis>, tolerance: f32) {
        if distance < self.distance - tolerance
            || (distance <= self.distance + tolerance && rank > self.rank)
        {
            *self = Nearest {
                distance,
                rank,
                axis,
            };
        }
    }
}

/// The end of a pair whose cores' SAT gave `sat` (with the limit
/// `margin + R`): overlapping cores keep the SAT's axis; apart, the nearest
/// features decide (see the module's table).
fn finish(
    (core_a, core_b, xf_ab): (Core, Core, Transform),
    sat: PairResult,
    nearest: impl FnOnce() -> Nearest,
    (radii, (tolerance, edge_tolerance), margin): (f32, (f32, f32), f32),
) -> Option<PairResult> {
    if sat.separation > 0.0 {
        let nearest = nearest();
        let stands = if sat.axis.is_face() {
            edge_tolerance
        } else {
            tolerance
        };
        if nearest.distance > sat.separation + stands
            && let Some(axis) = nearest.axis
        {
            return match axis {
                // A face of M the SAT passed over (an edge pair it skipped
                // as parallel): its own distance.
                Axis::FaceA(_) | Axis::FaceB(_) | Axis::Edges(..) => {
                    let separation = nearest.distance - radii;
                    (separation < margin).then_some(PairResult { axis, separation })
                }
                _ => finish_feature((core_a, core_b, xf_ab), axis, radii, margin),
            };
        }
    }
    let separation = sat.separation - radii;
    (separation < margin).then_some(PairResult {
        axis: sat.axis,
        separation,
    })
}

/// A feature pair's result: its distance minus the radii, if within the margin.
fn finish_feature(
    (core_a, core_b, xf_ab): (Core, Core, Transform),
    axis: Axis,
    radii: f32,
    margin: f32,
) -> Option<PairResult> {
    // feature_pair's distance, without the normal it goes on to find.
    let (on_a, on_b) = feature_points(core_a, core_b, xf_ab, axis)?;
    let separation = length3(on_b - on_a) - radii;
    (separation < margin).then_some(PairResult { axis, separation })
}

/// Where `point`'s projection falls along a segment (0 and 1 at its ends).
#[inline]
fn segment_parameter(points: [Vec3; 2], point: Vec3) -> f32 {
    let along = points[1] - points[0];
    dot3(point - points[0], along) / dot3(along, along)
}

/// What the slab search keeps from pair to pair on a thread: B's vertices
/// in A's frame, both cores' depths into the slab, and what lies in it.
#[derive(Default)]
struct Slab {
    vertices_b: Vec<Vec3>,
    heights_a: Vec<f32>,
    heights_b: Vec<f32>,
    /// Each core's vertices in the slab, in increasing order.
    in_a: Vec<u32>,
    in_b: Vec<u32>,
    /// B's edges with an end in the slab, in increasing order: the edge,
    /// its depth into the slab, its ends in A's frame and its length.
    edges_b: Vec<(u32, f32, (Vec3, Vec3), f32)>,
}

thread_local! {
    static SLAB: RefCell<Slab> = RefCell::new(Slab::default());
}

/// The SAT axis of a hull pair's result, in A's frame.
fn hull_pair_axis(a: &Hull, b: &Hull, xf_ab: Transform, axis: Axis, search: EdgeSearch) -> Vec3 {
    match axis {
        Axis::FaceA(i) => a.normals()[(i as usize).min(a.face_count() - 1)],
        Axis::FaceB(i) => -rotate(xf_ab.r, b.normals()[(i as usize).min(b.face_count() - 1)]),
        Axis::Edges(i, j) => edge_pair_axis(a, b, xf_ab, (i, j), search),
        _ => Vec3::X,
    }
}

/// A segment core's one edge, as a hull's edges are read.
const SEGMENT_EDGE: [HullEdge; 1] = [HullEdge {
    v0: 0,
    v1: 1,
    f0: 0,
    f1: 0,
}];

/// A core as the slab search reads it: its vertices in its own frame, its
/// edges, and its faces if it is a hull.
#[derive(Clone, Copy)]
struct Mesh<'a> {
    vertices: &'a [Vec3],
    edges: &'a [HullEdge],
    hull: Option<&'a Hull>,
}

impl<'a> Mesh<'a> {
    fn of_hull(hull: &'a Hull) -> Mesh<'a> {
        Mesh {
            vertices: hull.vertices(),
            edges: hull.edges(),
            hull: Some(hull),
        }
    }

    fn of_segment(points: &'a [Vec3; 2]) -> Mesh<'a> {
        Mesh {
            vertices: points,
            edges: &SEGMENT_EDGE,
            hull: None,
        }
    }
}

/// `vertex` of a core over the inside of `hull`'s face `face` (both in the
/// hull's frame): its height over the face, if positive and inside.
#[inline]
fn over_face(hull: &Hull, face: usize, vertex: Vec3) -> Option<f32> {
    let (n, d) = (hull.normals()[face], hull.offsets()[face]);
    let gap = dot3(n, vertex) - d;
    (gap > 0.0 && inside_face(hull, face, vertex - gap * n)).then_some(gap)
}

/// The features two edges' closest points lie on, from their clamped
/// parameters: rank 2 (inner points of both) with the edge pair's axis,
/// else the vertex-edge or vertex-vertex axis and its rank.
#[inline]
fn edge_pair_features(
    (i, edge_a): (usize, HullEdge),
    (j, edge_b): (usize, HullEdge),
    (s, t): (f32, f32),
) -> (u8, Option<Axis>) {
    let end = |edge: HullEdge, k: u32| if k == 0 { edge.v0 } else { edge.v1 };
    match (end_of(s), end_of(t)) {
        (None, None) => (2, Some(Axis::Edges(i as u32, j as u32))),
        (None, Some(k)) => (1, Some(Axis::EdgeVertex(i as u32, end(edge_b, k)))),
        (Some(k), None) => (1, Some(Axis::VertexEdge(end(edge_a, k), j as u32))),
        (Some(k), Some(l)) => (0, Some(Axis::Vertices(end(edge_a, k), end(edge_b, l)))),
    }
}

/// The nearest features of two cores apart along `normal` by `separation`
/// (the SAT's axis and value, in A's frame), a hull and a hull or a hull
/// and a segment:
///
/// ```text
/// d_up  = |w - v| for the supports v of A along normal, w of B against it
/// slack = d_up - separation: the nearest points lie within it of each
///         core's extreme plane along normal
/// candidates among the vertices in that slab, the edges with an end in it
/// and the faces with a vertex in it: a vertex over a face, two edges
/// stop at the first within the tolerance of separation (the SAT's axis
/// is then the answer: nothing is nearer than separation)
/// ```
fn nearest_in_slab(
    a: Mesh,
    b: Mesh,
    (xf_ab, xf_ba): (Transform, Transform),
    (normal, separation): (Vec3, f32),
    (tolerance, stands): (f32, f32),
) -> Nearest {
    // Within this the SAT's axis stands (see `finish`).
    let enough = separation + stands;
    SLAB.with_borrow_mut(|slab| {
        let Slab {
            vertices_b,
            heights_a,
            heights_b,
            in_a,
            in_b,
            edges_b,
        } = slab;
        vertices_b.clear();
        vertices_b.extend(b.vertices.iter().map(|&w| transform_point(xf_ab, w)));
        let vertices_a = a.vertices;
        let (mut top_a, mut support_a) = (f32::MIN, 0);
        for (i, &v) in vertices_a.iter().enumerate() {
            let h = dot3(normal, v);
            if h > top_a {
                (top_a, support_a) = (h, i);
            }
        }
        let (mut low_b, mut support_b) = (f32::MAX, 0);
        for (i, &w) in vertices_b.iter().enumerate() {
            let h = dot3(normal, w);
            if h < low_b {
                (low_b, support_b) = (h, i);
            }
        }
        let slack = length3(vertices_b[support_b] - vertices_a[support_a]) - separation + tolerance;
        // Each vertex's depth into the slab (negative: outside it): how far
        // below A's top plane, above B's bottom plane, along the normal.
        heights_a.clear();
        heights_a.extend(
            vertices_a
                .iter()
                .map(|&v| slack - (top_a - dot3(normal, v))),
        );
        heights_b.clear();
        heights_b.extend(
            vertices_b
                .iter()
                .map(|&w| slack - (dot3(normal, w) - low_b)),
        );
        // The vertices in the slab, listed once: the passes below visit
        // them (and B's edges with an end in it) in the order of a loop
        // over all that tests each, and so offer the same candidates in
        // the same order.
        let listed = |heights: &[f32], list: &mut Vec<u32>| {
            list.clear();
            list.extend((0..heights.len() as u32).filter(|&v| heights[v as usize] >= 0.0));
        };
        listed(heights_a, in_a);
        listed(heights_b, in_b);
        let in_slab = |heights: &[f32], v: u32| heights[v as usize] >= 0.0;
        let mut nearest = Nearest::NONE;
        // A vertex over the inside of a face of the other core: B's over
        // A's faces first (A's face wins a tie, as in the SAT). Each pass:
        // the hull with its depths into the slab, the other core's vertices
        // in the slab, and the axis of a face.
        let passes = [
            (a.hull, true, Axis::FaceA as fn(u32) -> Axis),
            (b.hull, false, Axis::FaceB as fn(u32) -> Axis),
        ];
        for (hull, of_a, face_axis) in passes {
            let Some(hull) = hull else {
                continue;
            };
            let (hull_heights, others): (&[f32], &[u32]) = if of_a {
                (heights_a, in_b)
            } else {
                (heights_b, in_a)
            };
            if others.is_empty() {
                continue;
            }
            for face in 0..hull.face_count() {
                if !hull.face(face).iter().any(|&v| in_slab(hull_heights, v)) {
                    continue;
                }
                for &w in others.iter() {
                    let w = w as usize;
                    let point = if of_a {
                        vertices_b[w]
                    } else {
                        transform_point(xf_ba, vertices_a[w])
                    };
                    if let Some(gap) = over_face(hull, face, point) {
                        nearest.offer(gap, 3, Some(face_axis(face as u32)), tolerance);
                        if gap <= enough {
                            nearest.axis = None;
                            return nearest;
                        }
                    }
                }
            }
        }
        // Two edges, each with an end in the slab, unless their gap along
        // the normal alone puts them farther than the nearest so far.
        // (low_b + slack - depth_b) - (top_a - slack + depth_a): B's edge's
        // lowest end above A's edge's highest, along the normal.
        let gap_floor = (low_b - top_a) + 2.0 * slack;
        edges_b.clear();
        edges_b.extend(b.edges.iter().enumerate().filter_map(|(j, edge)| {
            let depth = heights_b[edge.v0 as usize].max(heights_b[edge.v1 as usize]);
            // Every edge not wholly below the slab (a NaN depth is
            // measured).
            (depth >= 0.0 || depth.is_nan()).then(|| {
                let ends = (vertices_b[edge.v0 as usize], vertices_b[edge.v1 as usize]);
                (j as u32, depth, ends, length3(ends.1 - ends.0))
            })
        }));
        for (i, &edge_a) in a.edges.iter().enumerate() {
            let depth_a = heights_a[edge_a.v0 as usize].max(heights_a[edge_a.v1 as usize]);
            if depth_a < 0.0 {
                continue;
            }
            let (a0, a1) = (
                vertices_a[edge_a.v0 as usize],
                vertices_a[edge_a.v1 as usize],
            );
            let scaled_a = PARALLEL_TOLERANCE * length3(a1 - a0);
            for &(j, depth_b, (b0, b1), length_b) in edges_b.iter() {
                if gap_floor - depth_a - depth_b > nearest.distance + tolerance {
                    continue;
                }
                let (j, edge_b) = (j as usize, b.edges[j as usize]);
                if parallel_scaled(a1 - a0, b1 - b0, scaled_a, length_b) {
                    // Their inner points' parameters are noise: each end
                    // against the other edge instead (a face of M the SAT
                    // passed over shows as a vertex and an edge at its
                    // distance).
                    for (k, p) in [(edge_a.v0, a0), (edge_a.v1, a1)] {
                        let q = closest_on_segment(b0, b1, p);
                        nearest.offer(
                            length3(q - p),
                            1,
                            Some(Axis::VertexEdge(k, j as u32)),
                            tolerance,
                        );
                    }
                    for (k, q) in [(edge_b.v0, b0), (edge_b.v1, b1)] {
                        let p = closest_on_segment(a0, a1, q);
                        nearest.offer(
                            length3(q - p),
                            1,
                            Some(Axis::EdgeVertex(i as u32, k)),
                            tolerance,
                        );
                    }
                    continue;
                }
                let (on_a, on_b, s, t) = closest_points_of_segments(a0, a1, b0, b1);
                let (rank, axis) = edge_pair_features((i, edge_a), (j, edge_b), (s, t));
                let distance = length3(on_b - on_a);
                nearest.offer(distance, rank, axis, tolerance);
                if rank == 2 && distance <= enough {
                    // The SAT's own axis stands for a face of M at its value.
                    nearest.axis = None;
                    return nearest;
                }
            }
        }
        nearest
    })
}

/// The distance of the features that made a hull pair's SAT axis, where
/// they are nearest as a face of `M`: the other hull's support vertex over
/// the inside of the face, or the two edges' inner closest points. `None`
/// where they are not (the slab search then decides).
fn sat_feature_distance(
    a: &Hull,
    b: &Hull,
    (xf_ab, xf_ba): (Transform, Transform),
    sat: PairResult,
    normal: Vec3,
) -> Option<f32> {
    let support = |vertices: &mut dyn Iterator<Item = Vec3>, direction: Vec3| {
        vertices
            .map(|v| (dot3(direction, v), v))
            .fold(
                (f32::MAX, Vec3::ZERO),
                |best, x| if x.0 < best.0 { x } else { best },
            )
            .1
    };
    match sat.axis {
        Axis::FaceA(i) => {
            let w = support(
                &mut b.vertices().iter().map(|&w| transform_point(xf_ab, w)),
                normal,
            );
            over_face(a, i as usize, w)
        }
        Axis::FaceB(j) => {
            let v = support(&mut a.vertices().iter().copied(), -normal);
            over_face(b, j as usize, transform_point(xf_ba, v))
        }
        Axis::Edges(i, j) => {
            let (edge_a, edge_b) = (a.edges()[i as usize], b.edges()[j as usize]);
            let (on_a, on_b, s, t) = closest_points_of_segments(
                a.vertices()[edge_a.v0 as usize],
                a.vertices()[edge_a.v1 as usize],
                transform_point(xf_ab, b.vertices()[edge_b.v0 as usize]),
                transform_point(xf_ab, b.vertices()[edge_b.v1 as usize]),
            );
            (end_of(s).is_none() && end_of(t).is_none()).then(|| length3(on_b - on_a))
        }
        _ => None,
    }
}

/// The same feature named from the other side (A's and B's roles swapped).
fn swapped(axis: Axis) -> Axis {
    match axis {
        Axis::FaceA(f) => Axis::FaceB(f),
        Axis::FaceB(f) => Axis::FaceA(f),
        Axis::Edges(i, j) => Axis::Edges(j, i),
        Axis::VertexEdge(v, e) => Axis::EdgeVertex(e, v),
        Axis::EdgeVertex(e, v) => Axis::VertexEdge(v, e),
        Axis::Vertices(v, w) => Axis::Vertices(w, v),
        other => other,
    }
}

/// The SAT queries of a hull against a segment `[s0, s1]` in its frame, one
/// face and one edge at a time (the twin of the kernel's loops): the best
/// face against the nearer end and the best edge crossed with the segment
/// whose arcs cross, each offered in order with the tie rule; `None` as
/// soon as a separation reaches `limit`.
pub(crate) fn hull_segment_queries(
    hull: &Hull,
    segment: [Vec3; 2],
    (tolerance, limit): (f32, f32),
) -> Option<(Separation, Separation)> {
    let mut face = Separation::NONE;
    // Eight faces a step from the lanes' planes (the bits of `normals()`
    // and `offsets()`, the products in `dot3`'s order), offered in order.
    let face_count = hull.face_count();
    let [s0, s1] = segment;
    for (chunk, rows) in hull.lanes().face_planes.iter().enumerate() {
        let mut separations = [0.0f32; LANES];
        for k in 0..LANES {
            let along = |p: Vec3| (rows[0][k] * p.x + rows[1][k] * p.y) + rows[2][k] * p.z;
            separations[k] = along(s0).min(along(s1)) - rows[3][k];
        }
        for (k, &separation) in separations.iter().enumerate() {
            let f = chunk * LANES + k;
            if f >= face_count {
                break;
            }
            face.offer(separation, f as u32, tolerance);
            if separation >= limit {
                return None;
            }
        }
    }
    let along = segment[1] - segment[0];
    let mut edge = Separation::NONE;
    // Eight edges' arc test at a time from the lanes' rows (the faces'
    // normals of each edge), the axis only for the edges that pass.
    let edge_count = hull.edges().len();
    for (chunk, rows) in hull.lanes().edge_normals.iter().enumerate() {
        let mut crossing = [false; LANES];
        for k in 0..LANES {
            let du = rows[0][k] * along.x + rows[1][k] * along.y + rows[2][k] * along.z;
            let dv = rows[3][k] * along.x + rows[4][k] * along.y + rows[5][k] * along.z;
            crossing[k] = du * dv < 0.0;
        }
        // The same products as `dot3` (hull_segment_axis's test), so the
        // rebuild accepts every edge this takes.
        for k in (0..LANES).filter(|&k| crossing[k]) {
            let e = chunk * LANES + k;
            if e >= edge_count {
                break;
            }
            let gauss = hull.lanes().edge_gauss(e);
            if let Some((axis, p0)) = segment_edge_axis(hull, e, (gauss.u, gauss.v), along) {
                let separation = dot3(axis, segment[0] - p0);
                edge.offer(separation, e as u32, tolerance);
                if separation >= limit {
                    return None;
                }
            }
        }
    }
    Some((face, edge))
}

/// A hull against a segment `[s0, s1]` given in the hull's frame; `owner`
/// says whether the hull is A or B. The SAT of the segment, then, apart,
/// the nearest features (see the module).
///
/// ```text
/// face = the hull's best face against the nearer end      # stop if >= limit
/// edge = the best edge x segment axis, where the arcs cross # stop if >= limit
/// axis = edge if it beats the face by the edge tolerance, else the face
/// ```
#[allow(clippy::too_many_arguments)]
fn collide_hull_segment(
    hull: &Hull,
    segment: [Vec3; 2],
    owner: Owner,
    (core_a, core_b, xf_ab): (Core, Core, Transform),
    (radii, tolerance, edge_tolerance, margin): (f32, f32, f32, f32),
) -> Option<PairResult> {
    let limit = margin + radii;
    let along = segment[1] - segment[0];
    // The queries eight faces and eight edges at a time (`lanes.rs`),
    // or, where a lane's minimum could take another zero than the loops',
    // the loops themselves.
    let queries = hull_segment_queries_lanes(hull, segment, (tolerance, limit))
        .unwrap_or_else(|| hull_segment_queries(hull, segment, (tolerance, limit)));
    let (face, edge) = queries?;
    let owned = |a: Axis, b: Axis| if owner == Owner::A { a } else { b };
    let sat = if edge.value > face.value + edge_tolerance {
        PairResult {
            axis: owned(Axis::Edges(edge.index, 0), Axis::Edges(0, edge.index)),
            separation: edge.value,
        }
    } else {
        PairResult {
            axis: owned(Axis::FaceA(face.index), Axis::FaceB(face.index)),
            separation: face.value,
        }
    };
    let nearest = || {
        // In the hull's frame, the hull as A: the SAT's own feature first
        // (the deeper end over the face, or the edge pair's inner points),
        // then the slab.
        let normal = match sat.axis {
            Axis::Edges(..) => {
                hull_segment_axis(hull, edge.index as usize, along).map_or(Vec3::X, |(n, _)| n)
            }
            _ => hull.normals()[face.index as usize],
        };
        let fast = match sat.axis {
            Axis::Edges(..) => {
                let data = hull.edges()[edge.index as usize];
                let (on_hull, on_segment, s, t) = closest_points_of_segments(
                    hull.vertices()[data.v0 as usize],
                    hull.vertices()[data.v1 as usize],
                    segment[0],
                    segment[1],
                );
                (end_of(s).is_none() && end_of(t).is_none()).then(|| length3(on_segment - on_hull))
            }
            _ => {
                let deeper = if dot3(normal, segment[1]) < dot3(normal, segment[0]) {
                    segment[1]
                } else {
                    segment[0]
                };
                over_face(hull, face.index as usize, deeper)
            }
        };
        let stands = if sat.axis.is_face() {
            edge_tolerance
        } else {
            tolerance
        };
        if let Some(distance) = fast.filter(|&d| d <= sat.separation + stands) {
            return Nearest {
                distance,
                rank: 2,
                axis: None,
            };
        }
        let identity = Transform::new(Vec3::ZERO, glam::Quat::IDENTITY);
        let mut nearest = nearest_in_slab(
            Mesh::of_hull(hull),
            Mesh::of_segment(&segment),
            (identity, identity),
            (normal, sat.separation),
            (tolerance, stands),
        );
        if owner == Owner::B {
            nearest.axis = nearest.axis.map(swapped);
        }
        nearest
    };
    finish(
        (core_a, core_b, xf_ab),
        sat,
        nearest,
        (radii, (tolerance, edge_tolerance), margin),
    )
}

/// One pair of which at least one shape has a radius or a segment core
/// (a capsule or a rounded hull), given `B`'s frame in A's and A's in B's,
/// and the tie rule's two tolerances: faces win near-ties with edge pairs
/// by the plain hulls' margin (a rounded box resting on another, turned a
/// little, keeps its face and four points).
///
/// ```text
/// R = r_a + r_b, limit = margin + R
/// hull, hull:       collide_hulls to the limit; apart, the slab's nearest features
/// hull, segment:    collide_hull_segment in the hull's frame
/// hull, point:      the sphere's test with the radius R
/// segment, segment: collide_segment_cores (segment_pair's axis)
/// segment, point:   the point's closest point on the segment
/// ```
#[allow(clippy::too_many_arguments)]
pub fn collide_rounded(
    shape_a: &Shape,
    shape_b: &Shape,
    (xf_ab, xf_ba): (Transform, Transform),
    (tolerance, edge_tolerance): (f32, f32),
    margin: f32,
    search: EdgeSearch,
    stats: &mut EdgeStats,
) -> Option<PairResult> {
    let ((core_a, r_a), (core_b, r_b)) = (shape_a.core(), shape_b.core());
    let radii = r_a + r_b;
    let cores = (core_a, core_b, xf_ab);
    match (core_a, core_b) {
        (Core::Hull(a), Core::Hull(b)) => {
            let sat = collide_hulls(
                a,
                b,
                (xf_ab, xf_ba),
                tolerance,
                edge_tolerance,
                margin + radii,
                search,
                stats,
            )?;
            let nearest = || {
                let normal = hull_pair_axis(a, b, xf_ab, sat.axis, search);
                let stands = if sat.axis.is_face() {
                    edge_tolerance
                } else {
                    tolerance
                };
                if let Some(distance) = sat_feature_distance(a, b, (xf_ab, xf_ba), sat, normal)
                    .filter(|&d| d <= sat.separation + stands)
                {
                    return Nearest {
                        distance,
                        rank: 2,
                        axis: None,
                    };
                }
                nearest_in_slab(
                    Mesh::of_hull(a),
                    Mesh::of_hull(b),
                    (xf_ab, xf_ba),
                    (normal, sat.separation),
                    (tolerance, stands),
                )
            };
            finish(
                cores,
                sat,
                nearest,
                (radii, (tolerance, edge_tolerance), margin),
            )
        }
        (Core::Hull(a), Core::Segment(points)) => collide_hull_segment(
            a,
            points.map(|p| transform_point(xf_ab, p)),
            Owner::A,
            cores,
            (radii, tolerance, edge_tolerance, margin),
        ),
        (Core::Segment(points), Core::Hull(b)) => collide_hull_segment(
            b,
            points.map(|p| transform_point(xf_ba, p)),
            Owner::B,
            cores,
            (radii, tolerance, edge_tolerance, margin),
        ),
        (Core::Hull(a), Core::Point) => {
            collide_hull_sphere_cpu(a, xf_ab.p, radii, Owner::A, tolerance, margin)
        }
        (Core::Point, Core::Hull(b)) => {
            collide_hull_sphere_cpu(b, xf_ba.p, radii, Owner::B, tolerance, margin)
        }
        (Core::Segment(a), Core::Segment(b)) => collide_segment_cores(
            a,
            [transform_point(xf_ab, b[0]), transform_point(xf_ab, b[1])],
            radii,
            margin,
        ),
        (Core::Segment(points), Core::Point) => {
            let axis = match end_of(segment_parameter(points, xf_ab.p)) {
                None => Axis::EdgeVertex(0, 0),
                Some(i) => Axis::Vertices(i, 0),
            };
            finish_feature(cores, axis, radii, margin)
        }
        (Core::Point, Core::Segment(points)) => {
            let axis = match end_of(segment_parameter(points, xf_ba.p)) {
                None => Axis::VertexEdge(0, 0),
                Some(i) => Axis::Vertices(0, i),
            };
            finish_feature(cores, axis, radii, margin)
        }
        (Core::Point, Core::Point) => collide_spheres(xf_ab.p, r_a, r_b, margin),
    }
}

/// The normal (out of the hull) of hull edge `e` against a segment in the
/// hull's frame: the edge crossed with the segment where their arcs cross,
/// else (an edge pair the slab found at its inner points whose arcs test
/// as not crossing, by rounding) the line between their closest points.
fn hull_segment_normal(hull: &Hull, e: u32, segment: [Vec3; 2]) -> Vec3 {
    let e = (e as usize).min(hull.edges().len() - 1);
    if let Some((axis, _)) = hull_segment_axis(hull, e, segment[1] - segment[0]) {
        return axis;
    }
    let (p0, p1) = hull.lanes().edge_vertices(e);
    let (on_hull, on_segment, _, _) = closest_points_of_segments(p0, p1, segment[0], segment[1]);
    let offset = on_segment - on_hull;
    let length = length3(offset);
    if length > 0.0 {
        offset / length
    } else {
        Vec3::X
    }
}

/// The world normal (from A to B) of a rounded pair's axis, rebuilt with
/// the operations the search used.
pub fn rounded_axis_normal(
    (xf_a, shape_a): (Transform, &Shape),
    (xf_b, shape_b): (Transform, &Shape),
    axis: Axis,
    search: EdgeSearch,
) -> Vec3 {
    let ((core_a, _), (core_b, _)) = (shape_a.core(), shape_b.core());
    let xf_ab = inv_mul_transforms(xf_a, xf_b);
    let local = match (axis, core_a, core_b) {
        (Axis::FaceA(i), Core::Hull(a), _) => a.normals()[(i as usize).min(a.face_count() - 1)],
        (Axis::FaceB(i), _, Core::Hull(b)) => {
            return -rotate(xf_b.r, b.normals()[(i as usize).min(b.face_count() - 1)]);
        }
        (Axis::Edges(i, j), Core::Hull(a), Core::Hull(b)) => {
            let i = i.min(a.edges().len() as u32 - 1);
            let j = j.min(b.edges().len() as u32 - 1);
            edge_pair_axis(a, b, xf_ab, (i, j), search)
        }
        (Axis::Edges(e, _), Core::Hull(a), Core::Segment(points)) => {
            hull_segment_normal(a, e, points.map(|p| transform_point(xf_ab, p)))
        }
        (Axis::Edges(_, e), Core::Segment(points), Core::Hull(b)) => {
            let xf_ba = inv_mul_transforms(xf_b, xf_a);
            let normal = hull_segment_normal(b, e, points.map(|p| transform_point(xf_ba, p)));
            return -rotate(xf_b.r, normal);
        }
        (Axis::Edges(..), Core::Segment(a), Core::Segment(b)) => {
            segment_pair(a, b.map(|p| transform_point(xf_ab, p)))
                .1
                .normal
        }
        (
            Axis::EdgeA(_) | Axis::VertexA(_) | Axis::EdgeB(_) | Axis::VertexB(_),
            Core::Hull(_),
            _,
        )
        | (
            Axis::EdgeA(_) | Axis::VertexA(_) | Axis::EdgeB(_) | Axis::VertexB(_),
            _,
            Core::Hull(_),
        ) => {
            return match (axis, core_a, core_b) {
                (Axis::EdgeA(_) | Axis::VertexA(_), Core::Hull(a), _) => {
                    rotate(xf_a.r, sphere_axis(a, xf_ab.p, axis).0)
                }
                (_, _, Core::Hull(b)) => {
                    let centre = inv_mul_transforms(xf_b, xf_a).p;
                    -rotate(xf_b.r, sphere_axis(b, centre, axis).0)
                }
                _ => rotate(xf_a.r, Vec3::X),
            };
        }
        _ => feature_pair(core_a, core_b, xf_ab, axis).map_or(Vec3::X, |pair| pair.normal),
    };
    rotate(xf_a.r, local)
}
