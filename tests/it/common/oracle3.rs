//! An exact double-precision oracle for 3D pairs, independent of the code
//! under test: the full SAT over every face normal and every edge-pair cross
//! product of the two placed hulls (no pruning), with both hulls projected on
//! each axis; exact distances for spheres.
#![allow(dead_code)]

use glam::{DQuat, DVec3};
use gpusat::d3::{Body, Shape, ShapeSet};

/// A 3D shape placed in the world, in double precision.
#[derive(Clone, Debug)]
pub enum Placed {
    /// A convex hull: vertices and each face's vertex loop.
    Hull {
        vertices: Vec<DVec3>,
        faces: Vec<Vec<u32>>,
        edges: Vec<(u32, u32)>,
    },
    /// A sphere.
    Sphere { centre: DVec3, radius: f64 },
    /// A capsule: its segment core's two ends and its radius.
    Capsule { ends: [DVec3; 2], radius: f64 },
    /// A hull grown by a radius.
    RoundedHull {
        vertices: Vec<DVec3>,
        faces: Vec<Vec<u32>>,
        edges: Vec<(u32, u32)>,
        radius: f64,
    },
}

/// The body's shape in world coordinates, from its single-precision data,
/// with the rotation normalised and applied in double precision.
pub fn place(shapes: &ShapeSet, body: &Body) -> Placed {
    let q = DQuat::from_xyzw(
        body.rotation.x as f64,
        body.rotation.y as f64,
        body.rotation.z as f64,
        body.rotation.w as f64,
    )
    .normalize();
    let position = body.position.as_dvec3();
    match shapes.get(body.shape).expect("shape") {
        Shape::Hull(hull) => Placed::Hull {
            vertices: hull
                .vertices()
                .iter()
                .map(|v| position + q * v.as_dvec3())
                .collect(),
            faces: (0..hull.face_count())
                .map(|f| hull.face(f).to_vec())
                .collect(),
            edges: hull.edges().iter().map(|e| (e.v0, e.v1)).collect(),
        },
        Shape::Sphere(sphere) => Placed::Sphere {
            centre: position,
            radius: sphere.radius() as f64,
        },
        Shape::Capsule(capsule) => Placed::Capsule {
            ends: capsule.points().map(|p| position + q * p.as_dvec3()),
            radius: capsule.radius() as f64,
        },
        Shape::RoundedHull(rounded) => {
            let hull = rounded.hull();
            Placed::RoundedHull {
                vertices: hull
                    .vertices()
                    .iter()
                    .map(|v| position + q * v.as_dvec3())
                    .collect(),
                faces: (0..hull.face_count())
                    .map(|f| hull.face(f).to_vec())
                    .collect(),
                edges: hull.edges().iter().map(|e| (e.v0, e.v1)).collect(),
                radius: rounded.radius() as f64,
            }
        }
    }
}

/// A placed shape's core (its vertices and edges; a hull's faces) and its radius.
pub struct CoreOf<'a> {
    pub vertices: Vec<DVec3>,
    pub edges: Vec<(u32, u32)>,
    /// A hull's faces (none for a segment or a point).
    pub faces: &'a [Vec<u32>],
    pub radius: f64,
}

pub fn core_of(shape: &Placed) -> CoreOf<'_> {
    match shape {
        Placed::Hull {
            vertices,
            faces,
            edges,
        } => CoreOf {
            vertices: vertices.clone(),
            edges: edges.clone(),
            faces,
            radius: 0.0,
        },
        Placed::RoundedHull {
            vertices,
            faces,
            edges,
            radius,
        } => CoreOf {
            vertices: vertices.clone(),
            edges: edges.clone(),
            faces,
            radius: *radius,
        },
        Placed::Capsule { ends, radius } => CoreOf {
            vertices: ends.to_vec(),
            edges: vec![(0, 1)],
            faces: &[],
            radius: *radius,
        },
        Placed::Sphere { centre, radius } => CoreOf {
            vertices: vec![*centre],
            edges: Vec::new(),
            faces: &[],
            radius: *radius,
        },
    }
}

/// The closest points of segments `[p1, q1]` and `[p2, q2]`, in double
/// precision (Ericson 5.1.9).
pub fn segment_distance(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    let (c, b) = (d1.dot(r), d1.dot(d2));
    let denominator = a * e - b * b;
    let mut s = if denominator > 1e-300 {
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
    ((p1 + s * d1) - (p2 + t * d2)).length()
}

/// The distance from `p` to a core (0 inside a hull).
fn point_core_distance(p: DVec3, core: &CoreOf) -> f64 {
    if !core.faces.is_empty() {
        return hull_distance(&core.vertices, core.faces, &core.edges, p).max(0.0);
    }
    match core.vertices.as_slice() {
        [a, b] => segment_distance(p, p, *a, *b),
        [c] => (p - *c).length(),
        _ => f64::INFINITY,
    }
}

/// The signed distance between two cores: the distance when apart (every
/// vertex against the other core, every pair of edges), minus the
/// penetration when they overlap (the SAT over every face normal and every
/// edge pair's cross product, both ways), 0 for two flat cores that touch
/// or cross (segments, points).
pub fn core_signed_distance(a: &CoreOf, b: &CoreOf) -> f64 {
    let mut axes: Vec<DVec3> = Vec::new();
    for core in [a, b] {
        axes.extend(core.faces.iter().map(|f| face_normal(&core.vertices, f)));
    }
    for &(i, j) in &a.edges {
        let da = a.vertices[j as usize] - a.vertices[i as usize];
        for &(k, l) in &b.edges {
            let db = b.vertices[l as usize] - b.vertices[k as usize];
            let axis = da.cross(db);
            if axis.length() > 1e-9 * da.length() * db.length() {
                axes.push(axis.normalize());
            }
        }
    }
    let extent = |core: &CoreOf, d: DVec3| {
        core.vertices
            .iter()
            .map(|v| v.dot(d))
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let separation = axes
        .iter()
        .flat_map(|&axis| [axis, -axis])
        .map(|d| -(extent(a, d) + extent(b, -d)))
        .fold(f64::NEG_INFINITY, f64::max);
    let mut distance = f64::INFINITY;
    for v in &a.vertices {
        distance = distance.min(point_core_distance(*v, b));
    }
    for v in &b.vertices {
        distance = distance.min(point_core_distance(*v, a));
    }
    for &(i, j) in &a.edges {
        for &(k, l) in &b.edges {
            distance = distance.min(segment_distance(
                a.vertices[i as usize],
                a.vertices[j as usize],
                b.vertices[k as usize],
                b.vertices[l as usize],
            ));
        }
    }
    let solid = !(a.faces.is_empty() && b.faces.is_empty());
    if solid && separation <= 0.0 {
        // Overlapping polytope cores: the SAT's best is minus the penetration.
        separation
    } else {
        distance
    }
}

/// The exact depth of a pair of which either shape may have a radius: the
/// radii less the cores' signed distance.
pub fn rounded_oracle_depth(a: &Placed, b: &Placed) -> f64 {
    let (core_a, core_b) = (core_of(a), core_of(b));
    core_a.radius + core_b.radius - core_signed_distance(&core_a, &core_b)
}

/// The distance from `p` to a placed shape (0 inside).
pub fn distance_to_placed(p: DVec3, shape: &Placed) -> f64 {
    let core = core_of(shape);
    (point_core_distance(p, &core) - core.radius).max(0.0)
}

/// The largest projection of the shape on `direction` (unit).
pub fn support(shape: &Placed, direction: DVec3) -> f64 {
    match shape {
        Placed::Hull { vertices, .. } => vertices
            .iter()
            .map(|v| v.dot(direction))
            .fold(f64::NEG_INFINITY, f64::max),
        Placed::Sphere { centre, radius } => centre.dot(direction) + radius,
        Placed::Capsule { .. } | Placed::RoundedHull { .. } => {
            let core = core_of(shape);
            core.vertices
                .iter()
                .map(|v| v.dot(direction))
                .fold(f64::NEG_INFINITY, f64::max)
                + core.radius
        }
    }
}

/// How much A and B overlap along `normal` (unit, from A to B): how far B
/// must move along it for the projections to just touch. Negative: a gap.
pub fn overlap_along(a: &Placed, b: &Placed, normal: DVec3) -> f64 {
    support(a, normal) + support(b, -normal)
}

fn face_normal(vertices: &[DVec3], face: &[u32]) -> DVec3 {
    let mut normal = DVec3::ZERO;
    for k in 0..face.len() {
        let p = vertices[face[k] as usize];
        let q = vertices[face[(k + 1) % face.len()] as usize];
        normal += p.cross(q);
    }
    normal.normalize()
}

/// Signed distance from `p` to a placed hull: negative inside.
pub fn hull_distance(
    vertices: &[DVec3],
    faces: &[Vec<u32>],
    edges: &[(u32, u32)],
    p: DVec3,
) -> f64 {
    let mut deepest = f64::NEG_INFINITY;
    for face in faces {
        let normal = face_normal(vertices, face);
        deepest = deepest.max(normal.dot(p - vertices[face[0] as usize]));
    }
    if deepest <= 0.0 {
        return deepest;
    }
    let mut nearest = f64::INFINITY;
    for face in faces {
        let normal = face_normal(vertices, face);
        let height = normal.dot(p - vertices[face[0] as usize]);
        let q = p - height * normal;
        let inside = (0..face.len()).all(|k| {
            let a = vertices[face[k] as usize];
            let b = vertices[face[(k + 1) % face.len()] as usize];
            (b - a).cross(q - a).dot(normal) >= 0.0
        });
        if inside && height >= 0.0 {
            nearest = nearest.min(height);
        }
    }
    for &(i, j) in edges {
        let (a, b) = (vertices[i as usize], vertices[j as usize]);
        let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
        nearest = nearest.min((p - (a + t * (b - a))).length());
    }
    nearest
}

/// The exact penetration depth of the pair: positive when they overlap (the
/// shortest translation of B that separates them), minus the gap otherwise
/// (for hulls, the largest separation over the SAT's candidate axes, which
/// for separated hulls is a lower bound of the gap, as the code reports).
pub fn oracle_depth(a: &Placed, b: &Placed) -> f64 {
    match (a, b) {
        (Placed::Capsule { .. } | Placed::RoundedHull { .. }, _)
        | (_, Placed::Capsule { .. } | Placed::RoundedHull { .. }) => rounded_oracle_depth(a, b),
        (
            Placed::Hull {
                vertices: va,
                faces: fa,
                edges: ea,
            },
            Placed::Hull {
                vertices: vb,
                faces: fb,
                edges: eb,
            },
        ) => {
            let mut axes: Vec<DVec3> = Vec::new();
            axes.extend(fa.iter().map(|f| face_normal(va, f)));
            axes.extend(fb.iter().map(|f| face_normal(vb, f)));
            for &(i, j) in ea {
                let da = va[j as usize] - va[i as usize];
                for &(k, l) in eb {
                    let db = vb[l as usize] - vb[k as usize];
                    let axis = da.cross(db);
                    if axis.length() > 1e-9 * da.length() * db.length() {
                        axes.push(axis.normalize());
                    }
                }
            }
            let mut separation = f64::NEG_INFINITY;
            for axis in axes {
                for direction in [axis, -axis] {
                    separation = separation.max(-overlap_along(a, b, direction));
                }
            }
            -separation
        }
        (
            Placed::Hull {
                vertices,
                faces,
                edges,
            },
            Placed::Sphere { centre, radius },
        )
        | (
            Placed::Sphere { centre, radius },
            Placed::Hull {
                vertices,
                faces,
                edges,
            },
        ) => radius - hull_distance(vertices, faces, edges, *centre),
        (
            Placed::Sphere {
                centre: ca,
                radius: ra,
            },
            Placed::Sphere {
                centre: cb,
                radius: rb,
            },
        ) => ra + rb - (*cb - *ca).length(),
    }
}

/// The length scale of a pair: the larger of the two shapes' sizes.
pub fn pair_scale(shapes: &ShapeSet, a: &Body, b: &Body) -> f64 {
    let size = |body: &Body| shapes.get(body.shape).expect("shape").size() as f64;
    size(a).max(size(b))
}
