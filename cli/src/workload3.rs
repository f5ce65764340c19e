//! 3D benchmark workloads and parry3d as a peer on the identical pairs.
//!
//! The reference distribution of the 3D figures: 1,024 shapes of one kind
//! (boxes with half extents 0.3 to 1.0 of a radius 0.5 to 1.5, or hulls of
//! exactly `n` vertices: random points on a sphere of that radius, hulled),
//! 4,096 bodies each at a uniform random position in [-1, 1]³ with a random
//! rotation, random pairs. Nearly every pair overlaps, so every pair runs
//! the whole SAT (no early exit) and most produce contacts.

use glam::Vec3;

use gpusat::Pair;
use gpusat::d3::{Body, Shape, ShapeSet};
use gpusat::generate::d3::{Scene, SceneSpec};

/// What the 3D shapes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeKind3 {
    /// Cuboids (6 faces, 12 edges).
    Boxes,
    /// Hulls of exactly this many vertices.
    Hulls(usize),
}

impl ShapeKind3 {
    /// The name in tables and files.
    pub fn name(self) -> String {
        match self {
            ShapeKind3::Boxes => "boxes".to_string(),
            ShapeKind3::Hulls(n) => format!("{n}-hulls"),
        }
    }

    /// The kinds of `gpusat bench --dim 3`.
    pub const ALL: [ShapeKind3; 6] = [
        ShapeKind3::Boxes,
        ShapeKind3::Hulls(16),
        ShapeKind3::Hulls(32),
        ShapeKind3::Hulls(64),
        ShapeKind3::Hulls(128),
        ShapeKind3::Hulls(256),
    ];
}

/// The scene description of a 3D workload with `pairs` random pairs.
pub fn workload3_spec(kind: ShapeKind3, pairs: usize) -> SceneSpec {
    let base = SceneSpec {
        seed: 3003,
        shapes: 1024,
        bodies: 4096,
        pairs,
        half_extent: 1.0,
        sphere_fraction: 0.0,
        plate_fraction: 0.0,
        ..SceneSpec::mixed(3003, pairs)
    };
    match kind {
        ShapeKind3::Boxes => SceneSpec {
            box_fraction: 1.0,
            ..base
        },
        ShapeKind3::Hulls(n) => SceneSpec {
            vertices: (n, n),
            box_fraction: 0.0,
            ..base
        },
    }
}

/// A 3D workload's scene.
pub fn workload3(kind: ShapeKind3, pairs: usize) -> Scene {
    workload3_spec(kind, pairs).generate()
}

/// parry3d's narrowphase on the same shapes and bodies: convex polyhedra
/// built from our hulls' vertices and faces (fan-triangulated, parry merges
/// the coplanar triangles back), balls for spheres.
pub struct Peer3 {
    shapes: Vec<parry3d::shape::SharedShape>,
    poses: Vec<parry3d::math::Pose>,
    body_shapes: Vec<u32>,
}

impl Peer3 {
    /// Converts the shapes and the bodies' poses.
    pub fn new(shapes: &ShapeSet, bodies: &[Body]) -> Peer3 {
        use parry3d::math::Vector;
        let converted = shapes
            .shapes()
            .iter()
            .map(|shape| match shape {
                Shape::Hull(hull) => {
                    let points: Vec<Vector> = hull
                        .vertices()
                        .iter()
                        .map(|v| Vector::new(v.x, v.y, v.z))
                        .collect();
                    let mut triangles = Vec::new();
                    for face in 0..hull.face_count() {
                        let loop_ = hull.face(face);
                        for k in 1..loop_.len() - 1 {
                            triangles.push([loop_[0], loop_[k], loop_[k + 1]]);
                        }
                    }
                    parry3d::shape::SharedShape::convex_mesh(points, &triangles)
                        .unwrap_or_else(|| parry3d::shape::SharedShape::ball(hull.size()))
                }
                Shape::Sphere(sphere) => parry3d::shape::SharedShape::ball(sphere.radius()),
            })
            .collect();
        let poses = bodies
            .iter()
            .map(|body| {
                let q = body.rotation.normalize();
                parry3d::math::Pose::from_parts(
                    Vector::new(body.position.x, body.position.y, body.position.z),
                    parry3d::math::Rotation::from_xyzw(q.x, q.y, q.z, q.w),
                )
            })
            .collect();
        Peer3 {
            shapes: converted,
            poses,
            body_shapes: bodies.iter().map(|b| b.shape).collect(),
        }
    }

    /// parry3d's `query::contact` on one pair: `(depth, normal)` when the
    /// shapes overlap (depth > 0), the normal from A to B.
    pub fn contact(&self, pair: Pair) -> Option<(f32, Vec3)> {
        let (a, b) = (pair.a as usize, pair.b as usize);
        let contact = parry3d::query::contact(
            &self.poses[a],
            &*self.shapes[self.body_shapes[a] as usize].0,
            &self.poses[b],
            &*self.shapes[self.body_shapes[b] as usize].0,
            0.0,
        )
        .ok()
        .flatten()?;
        (contact.dist < 0.0).then(|| {
            (
                -contact.dist,
                Vec3::new(contact.normal1.x, contact.normal1.y, contact.normal1.z),
            )
        })
    }

    /// `query::contact` on every pair; the number that overlap.
    pub fn collide(&self, pairs: &[Pair]) -> usize {
        pairs
            .iter()
            .filter(|pair| self.contact(**pair).is_some())
            .count()
    }
}
