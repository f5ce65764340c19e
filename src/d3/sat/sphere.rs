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
    let normal = hull.normals()[face];
    let vertices = hull.vertices();
    let loop_ = hull.face(face);
    (0..loop_.len()).all(|k| {
        let a = vertices[loop_[k] as usize];
        let b = vertices[loop_[(k + 1) % loop_.len()] as usize];
        dot3(cross3(b - a, point - a), normal) >= 0.0
    })
}

/// The closest point of edge `edge`'s segment to `centre`: the point, and
/// where it lies (clamped to an end: that vertex).
#[inline]
pub fn closest_on_edge(hull: &Hull, edge: usize, centre: Vec3) -> (Vec3, Closest) {
    let data = hull.edges()[edge];
    let (p0, p1) = (
        hull.vertices()[data.v0 as usize],
        hull.vertices()[data.v1 as usize],
    );
    let along = p1 - p0;
    let t = dot3(centre - p0, along) / dot3(along, along);
    if t <= 0.0 {
        (p0, Closest::Vertex(data.v0))
    } else if t >= 1.0 {
        (p1, Closest::Vertex(data.v1))
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
        let mut inside = (Closest::Vertex(vertex), f32::MAX);
        for (edge, data) in hull.edges().iter().enumerate() {
            if data.v0 != vertex && data.v1 != vertex {
                continue;
            }
            let (feature, distance) = on_edge(edge);
            if matches!(feature, Closest::Edge(_)) && distance < inside.1 {
                inside = (feature, distance);
            }
        }
        if inside.1 < f32::MAX {
            best = inside;
        }
    }
    best
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
    let limit = margin + radius;
    let mut best = Separation::NONE;
    for (face, (&normal, &offset)) in hull.normals().iter().zip(hull.offsets()).enumerate() {
        let separation = dot3(normal, centre) - offset;
        best.offer(separation, face as u32, tolerance);
        if separation >= limit {
            return None;
        }
    }
    let (feature, distance) = if best.value <= 0.0 {
        (Closest::Face(best.index), best.value)
    } else {
        closest_feature(hull, centre)
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
            let (normal, offset) = (hull.normals()[face], hull.offsets()[face]);
            let separation = dot3(normal, centre) - offset;
            (normal, centre - separation * normal, separation)
        }
        Axis::EdgeA(index) | Axis::EdgeB(index) | Axis::VertexA(index) | Axis::VertexB(index) => {
            let point = match axis {
                Axis::EdgeA(_) | Axis::EdgeB(_) => {
                    closest_on_edge(hull, (index as usize).min(hull.edges().len() - 1), centre).0
                }
                _ => hull.vertices()[(index as usize).min(hull.vertices().len() - 1)],
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
