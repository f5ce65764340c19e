//! parry3d as a peer on the identical pairs of a 3D workload.

use glam::Vec3;

use gpusat::Pair;
use gpusat::d3::{Body, Shape, ShapeSet};

/// parry3d's narrowphase on the same shapes and bodies: convex polyhedra
/// built from our hulls' vertices and faces (fan-triangulated, parry merges
/// the coplanar triangles back), `RoundShape`s of them for rounded hulls,
/// balls for spheres, its `Capsule` for capsules.
pub struct Peer {
    shapes: Vec<parry3d::shape::SharedShape>,
    poses: Vec<parry3d::math::Pose>,
    body_shapes: Vec<u32>,
}

/// A hull as parry3d's convex polyhedron, rounded by `radius` when it is
/// positive (a ball of the hull's size if parry refuses the mesh).
fn convex(hull: &gpusat::d3::Hull, radius: f32) -> parry3d::shape::SharedShape {
    use parry3d::math::Vector;
    use parry3d::shape::SharedShape;
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
    let shape = if radius > 0.0 {
        SharedShape::round_convex_mesh(points, &triangles, radius)
    } else {
        SharedShape::convex_mesh(points, &triangles)
    };
    shape.unwrap_or_else(|| SharedShape::ball(hull.size() + radius))
}

impl Peer {
    /// Converts the shapes and the bodies' poses.
    pub fn new(shapes: &ShapeSet, bodies: &[Body]) -> Peer {
        use parry3d::math::Vector;
        let converted = shapes
            .shapes()
            .iter()
            .map(|shape| match shape {
                Shape::Hull(hull) => convex(hull, 0.0),
                Shape::RoundedHull(rounded) => convex(rounded.hull(), rounded.radius()),
                Shape::Sphere(sphere) => parry3d::shape::SharedShape::ball(sphere.radius()),
                Shape::Capsule(capsule) => {
                    let [a, b] = capsule.points();
                    parry3d::shape::SharedShape::capsule(
                        Vector::new(a.x, a.y, a.z),
                        Vector::new(b.x, b.y, b.z),
                        capsule.radius(),
                    )
                }
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
        Peer {
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
