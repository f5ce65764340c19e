//! Spheres: against a hull's closest feature, and against each other.
//!
//! A sphere against a hull is the hull against the sphere's centre, minus
//! the radius. The centre's separation from each face plane gives the best
//! face (tie rule, early exit). If it is not positive the centre is inside
//! and that face is the axis. Otherwise the centre is outside and the axis
//! runs from the closest point of the hull's surface to the centre: in a
//! face (its projection falls inside the face's loop) or on an edge or at a
//! vertex (the closest point of the edge's segment, clamped at an end).

use glam::Vec3;

use super::super::math::{cross3, dot3, length3};
use super::super::shape::shapes::Hull;
use super::super::types::Axis;
use super::lanes::{closest_feature_lanes, sphere_face_separation};
use super::separation::{PairResult, Separation};
use crate::core::pair::Owner;

/// The closest feature of a hull to an outside point: a face, an edge or a
/// vertex, and the distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Closest {
    /// In face `i`, whose plane is at this distance.
    Face(u32),
    /// On edge `e`, strictly between its vertices.
    Edge(u32),
    /// At vertex `v`.
    Vertex(u32),
}

/// Whether `point`, in face `face`'s plane, lies inside its loop.
#[inline]
pub(crate) fn inside_face(hull: &Hull, face: usize, point: Vec3) -> bool {
    // The lanes' copies of the normal, the loop and the vertices: the bits
    // of `normals()`, `face()` and `vertices()`, in fewer cache lines.
    let lanes = hull.lanes();
    let normal = lanes.face_plane(face).0;
    let loop_ = lanes.face_loop(face);
    (0..loop_.len()).all(|k| {
        let next = if k + 1 < loop_.len() { k + 1 } else { 0 };
        let a = lanes.vertex(usize::from(loop_[k]));
        let b = lanes.vertex(usize::from(loop_[next]));
        dot3(cross3(b - a, point - a), normal) >= 0.0
    })
}

/// The closest point of edge `edge`'s segment to `centre`: the point, and
/// where it lies (clamped to an end: that vertex).
#[inline]
pub fn closest_on_edge(hull: &Hull, edge: usize, centre: Vec3) -> (Vec3, Closest) {
    // The lanes' copies: the bits of `edges()` and `vertices()`.
    let lanes = hull.lanes();
    let [v0, v1] = lanes.edge_ends[edge].map(u32::from);
    let (p0, p1) = lanes.edge_vertices(edge);
    let along = p1 - p0;
    let t = dot3(centre - p0, along) / dot3(along, along);
    if t <= 0.0 {
        (p0, Closest::Vertex(v0))
    } else if t >= 1.0 {
        (p1, Closest::Vertex(v1))
    } else {
        (p0 + t * along, Closest::Edge(edge as u32))
    }
}

/// The closest feature of `hull` to `centre`, which lies outside it (the
/// best face's separation is positive), and the distance, by the features'
/// regions rather than by comparing distances alone:
///
/// ```text
/// a face whose plane the centre is outside of and whose loop holds its
///     projection: that face (its point is the closest: the direction to
///     the centre is the face's normal), the plane's separation
/// else the nearest of every edge's closest point (a vertex when clamped),
///     the first of equals; and where that is a vertex, the nearest edge at
///     the vertex whose closest point is inside it, if one is
/// ```
///
/// Near a vertex an edge's closest point is nearer than the vertex by only
/// the square of its distance from it over twice the centre's distance,
/// below single precision's resolution of the distances (a centre 0.18 away
/// and a point 1e-4 along a 0.6 edge: 1e-8 nearer), yet the direction from
/// the two differs by their distance over the centre's. So a vertex stands
/// only where no edge at it has the centre over its inside, which is the
/// vertex's region; and a face's region is its own test. Where features are
/// equally near they share the closest point, so either gives its
/// direction.
pub fn closest_feature(hull: &Hull, centre: Vec3) -> (Closest, f32) {
    for (face, (&normal, &offset)) in hull.normals().iter().zip(hull.offsets()).enumerate() {
        let separation = dot3(normal, centre) - offset;
        if separation > 0.0 && inside_face(hull, face, centre - separation * normal) {
            return (Closest::Face(face as u32), separation);
        }
    }
    // An edge's closest point to the centre (a vertex when clamped), and
    // the distance.
    let on_edge = |edge: usize| {
        let (point, feature) = closest_on_edge(hull, edge, centre);
        (feature, length3(centre - point))
    };
    let mut best = (Closest::Face(0), f32::MAX);
    for edge in 0..hull.edges().len() {
        let (feature, distance) = on_edge(edge);
        if distance < best.1 {
            best = (feature, distance);
        }
    }
    if let Closest::Vertex(vertex) = best.0 {
        best = nearest_edge_at_vertex(hull, centre, vertex).unwrap_or(best);
    }
    best
}

/// The nearest of the edges at `vertex` whose closest point to `centre`
/// lies inside the edge (the first of equals), if one does: the closest
/// feature where the nearest point found is that vertex. The edges are
/// found by a pass over the lanes' edge ends (the bits of `edges()`' `v0`
/// and `v1`), already brought in for the search: the hull's list of each
/// vertex's edges, two more arrays to bring in, measured no faster
/// (100,000 pairs of half spheres and half 32-vertex hulls, SAT and
/// manifold, four interleaved rounds: 607.1 to 685.5 ns a pair with the
/// pass, 623.0 to 716.8 with the list).
pub(crate) fn nearest_edge_at_vertex(
    hull: &Hull,
    centre: Vec3,
    vertex: u32,
) -> Option<(Closest, f32)> {
    let mut inside = (Closest::Vertex(vertex), f32::MAX);
    for (edge, ends) in hull.lanes().edge_ends.iter().enumerate() {
        if !ends.map(u32::from).contains(&vertex) {
            continue;
        }
        let (point, feature) = closest_on_edge(hull, edge, centre);
        let distance = length3(centre - point);
        if matches!(feature, Closest::Edge(_)) && distance < inside.1 {
            inside = (feature, distance);
        }
    }
    (inside.1 < f32::MAX).then_some(inside)
}

/// Width of the band about a box's face planes, relative to the larger of
/// its size and the centre's largest coordinate, within which
/// [`box_closest_feature`] leaves a centre to [`closest_feature`]: a
/// thousand times the rounding of the plane tests and of the edges'
/// clamping there.
pub const BOX_REGION_BAND: f32 = 1e-4;

/// [`closest_feature`] for a box whose face normals are exactly its axes,
/// from the side of each pair of face planes the centre lies on: the same
/// feature and the same distance, bit for bit, computed as
/// `closest_feature` computes them for that feature; none where the centre
/// lies within [`BOX_REGION_BAND`] of a face plane (or inside, or the hull
/// is not such a box), where `closest_feature` is to be asked.
///
/// ```text
/// each axis k: below the low plane, above the high one, or between them,
///              each by more than the band (else: none)
/// beyond one plane:     that face, the plane's separation (the only face
///                       with a positive one, and the centre over it)
/// beyond two planes:    the edge along the third axis at those two sides
///                       (nearer than any other point of the box; its
///                       closest point inside it), its distance
/// beyond three planes:  the corner on those sides (every edge at it
///                       clamps to it), its distance
/// beyond two or three:  none where the box is so small against the
///                       distance that another corner's distance could
///                       round to the same value (below)
/// ```
///
/// `closest_feature` compares rounded distances and keeps the first of
/// equals, so a feature the regions name is its answer only where no other
/// feature's distance can round to the same value. Beyond the planes of
/// the axes `k` (by `g_k`, extents `e_k`), a point of another corner, or
/// of an edge parallel to the named one, is farther by at least
/// `2 e_k g_k` in squared distance for some such `k`: that stays clear of
/// the rounding of the squared distances (`G = sum of g_k^2`, a few
/// `f32::EPSILON G`) where `e_k g_k > 64 f32::EPSILON G` for each. The
/// named edge's own ends may round to its distance: there
/// `closest_feature`'s vertex step finds the edge at the vertex whose
/// closest point is inside it, the same edge and distance.
pub fn box_closest_feature(hull: &Hull, centre: Vec3) -> Option<(Closest, f32)> {
    let regions = hull.lanes().box_regions.as_ref()?;
    let band = BOX_REGION_BAND * hull.size().max(centre.abs().max_element());
    // Per axis: 0 or 1 beyond the low or high plane (by `gaps[k]`), 2
    // between them (a gap of 0).
    let (mut sides, mut gaps) = ([2usize; 3], [0.0f32; 3]);
    for k in 0..3 {
        let (c, low, high) = (centre[k], regions.low[k], regions.high[k]);
        (sides[k], gaps[k]) = if c > high + band {
            (1, c - high)
        } else if c < low - band {
            (0, low - c)
        } else if c > low + band && c < high - band {
            (2, 0.0)
        } else {
            return None;
        };
    }
    let beyond = sides.iter().filter(|&&side| side < 2).count();
    if beyond >= 2 {
        let squared: f32 = gaps.iter().map(|gap| gap * gap).sum();
        let clear = (0..3).all(|k| {
            sides[k] == 2
                || (regions.high[k] - regions.low[k]) * gaps[k] > 64.0 * f32::EPSILON * squared
        });
        if !clear {
            return None;
        }
    }
    match beyond {
        1 => {
            let k = sides.iter().position(|&side| side < 2)?;
            let face = regions.faces[k][sides[k]] as usize;
            let (normal, offset) = hull.lanes().face_plane(face);
            let separation = dot3(normal, centre) - offset;
            Some((Closest::Face(face as u32), separation))
        }
        2 => {
            let k = sides.iter().position(|&side| side == 2)?;
            let (j0, j1) = ((k + 1) % 3, (k + 2) % 3);
            let (j0, j1) = (j0.min(j1), j0.max(j1));
            let edge = regions.edges[k][sides[j0] | sides[j1] << 1] as usize;
            let (point, feature) = closest_on_edge(hull, edge, centre);
            matches!(feature, Closest::Edge(_)).then(|| (feature, length3(centre - point)))
        }
        3 => {
            let vertex = regions.vertices[sides[0] | sides[1] << 1 | sides[2] << 2];
            let point = hull.lanes().vertex(vertex as usize);
            Some((Closest::Vertex(vertex), length3(centre - point)))
        }
        _ => None,
    }
}

/// A hull against a sphere of `radius` whose centre is `centre` in the
/// hull's frame; `owner` says whether the hull is body A or B.
pub fn collide_hull_sphere(
    hull: &Hull,
    centre: Vec3,
    radius: f32,
    owner: Owner,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    hull_sphere(
        hull,
        (centre, radius),
        owner,
        (tolerance, margin),
        (sphere_face_loop, closest_feature),
    )
}

/// [`collide_hull_sphere`] with a box's closest feature by its regions
/// where they decide ([`box_closest_feature`]): the same results, what the
/// CPU backends run.
pub(crate) fn collide_hull_sphere_cpu(
    hull: &Hull,
    centre: Vec3,
    radius: f32,
    owner: Owner,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    hull_sphere(
        hull,
        (centre, radius),
        owner,
        (tolerance, margin),
        (sphere_face_separation, |hull: &Hull, centre: Vec3| {
            box_closest_feature(hull, centre).unwrap_or_else(|| closest_feature_lanes(hull, centre))
        }),
    )
}

/// The centre against each face in turn, with the tie rule; `None` at the
/// first face whose separation reaches `limit` (the pair is apart).
pub fn sphere_face_loop(
    hull: &Hull,
    centre: Vec3,
    tolerance: f32,
    limit: f32,
) -> Option<Separation> {
    let mut best = Separation::NONE;
    for (face, (&normal, &offset)) in hull.normals().iter().zip(hull.offsets()).enumerate() {
        let separation = dot3(normal, centre) - offset;
        best.offer(separation, face as u32, tolerance);
        if separation >= limit {
            return None;
        }
    }
    Some(best)
}

/// [`collide_hull_sphere`] with the faces from `faces` (the loop above, or
/// the same eight at a time) and the outside centre's closest feature from
/// `closest`.
#[inline(always)]
fn hull_sphere(
    hull: &Hull,
    (centre, radius): (Vec3, f32),
    owner: Owner,
    (tolerance, margin): (f32, f32),
    (faces, closest): (
        impl Fn(&Hull, Vec3, f32, f32) -> Option<Separation>,
        impl Fn(&Hull, Vec3) -> (Closest, f32),
    ),
) -> Option<PairResult> {
    let limit = margin + radius;
    let best = faces(hull, centre, tolerance, limit)?;
    let (feature, distance) = if best.value <= 0.0 {
        (Closest::Face(best.index), best.value)
    } else {
        closest(hull, centre)
    };
    let separation = distance - radius;
    if separation >= margin {
        return None;
    }
    let axis = match (feature, owner) {
        (Closest::Face(i), Owner::A) => Axis::FaceA(i),
        (Closest::Face(i), Owner::B) => Axis::FaceB(i),
        (Closest::Edge(i), Owner::A) => Axis::EdgeA(i),
        (Closest::Edge(i), Owner::B) => Axis::EdgeB(i),
        (Closest::Vertex(i), Owner::A) => Axis::VertexA(i),
        (Closest::Vertex(i), Owner::B) => Axis::VertexB(i),
    };
    Some(PairResult { axis, separation })
}

/// Sphere A against sphere B, whose centre is `centre` in A's frame.
pub fn collide_spheres(
    centre: Vec3,
    radius_a: f32,
    radius_b: f32,
    margin: f32,
) -> Option<PairResult> {
    let separation = length3(centre) - (radius_a + radius_b);
    (separation < margin).then_some(PairResult {
        axis: Axis::Centres,
        separation,
    })
}

/// The axis of a reported hull–sphere feature in the hull's frame, with the
/// operations the SAT used: the unit normal (from the hull towards the
/// centre), the hull's surface point on it, and the centre's distance from
/// that point (its separation from the face, for a face). `axis` names the
/// hull's feature (of A or B: only the index matters here).
pub fn sphere_axis(hull: &Hull, centre: Vec3, axis: Axis) -> (Vec3, Vec3, f32) {
    match axis {
        Axis::FaceA(face) | Axis::FaceB(face) => {
            let face = (face as usize).min(hull.face_count() - 1);
            let (normal, offset) = hull.lanes().face_plane(face);
            let separation = dot3(normal, centre) - offset;
            (normal, centre - separation * normal, separation)
        }
        Axis::EdgeA(index) | Axis::EdgeB(index) | Axis::VertexA(index) | Axis::VertexB(index) => {
            let point = match axis {
                Axis::EdgeA(_) | Axis::EdgeB(_) => {
                    closest_on_edge(hull, (index as usize).min(hull.edges().len() - 1), centre).0
                }
                _ => hull
                    .lanes()
                    .vertex((index as usize).min(hull.vertices().len() - 1)),
            };
            let offset = centre - point;
            let distance = length3(offset);
            let normal = if distance > 0.0 {
                offset / distance
            } else {
                // Cannot be chosen (a centre on the surface makes a face the
                // axis); any unit vector keeps this total.
                Vec3::X
            };
            (normal, point, distance)
        }
        Axis::Edges(..)
        | Axis::Centres
        | Axis::VertexEdge(..)
        | Axis::EdgeVertex(..)
        | Axis::Vertices(..) => (Vec3::X, centre, length3(centre)),
    }
}
