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
    }
}

/// The largest projection of the shape on `direction` (unit).
pub fn support(shape: &Placed, direction: DVec3) -> f64 {
    match shape {
        Placed::Hull { vertices, .. } => vertices
            .iter()
            .map(|v| v.dot(direction))
            .fold(f64::NEG_INFINITY, f64::max),
        Placed::Sphere { centre, radius } => centre.dot(direction) + radius,
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
