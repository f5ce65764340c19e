//! parry2d as a peer on the identical pairs of a 2D workload.

use glam::Vec2;

use gpusat::{Body, Pair, Shape, ShapeSet};

/// parry2d's narrowphase on the same shapes and bodies: the peer that
/// gpusat's speed is compared with.
pub struct Peer {
    shapes: Vec<parry2d::shape::SharedShape>,
    poses: Vec<parry2d::math::Pose>,
    body_shapes: Vec<u32>,
}

impl Peer {
    pub fn new(shapes: &ShapeSet, bodies: &[Body]) -> Peer {
        use parry2d::math::Vector;
        let converted = shapes
            .shapes()
            .iter()
            .map(|shape| match shape {
                Shape::Polygon(polygon) => {
                    let points: Vec<Vector> = polygon
                        .vertices()
                        .iter()
                        .map(|v| Vector::new(v.x, v.y))
                        .collect();
                    let round = polygon.radius();
                    match parry2d::shape::ConvexPolygon::from_convex_polyline_unmodified(points) {
                        Some(core) if round > 0.0 => {
                            parry2d::shape::SharedShape::new(parry2d::shape::RoundShape {
                                inner_shape: core,
                                border_radius: round,
                            })
                        }
                        Some(core) => parry2d::shape::SharedShape::new(core),
                        None => parry2d::shape::SharedShape::ball(polygon.size()),
                    }
                }
                Shape::Circle(circle) => parry2d::shape::SharedShape::ball(circle.radius()),
                Shape::Capsule(capsule) => {
                    let [a, b] = capsule.points();
                    parry2d::shape::SharedShape::capsule(
                        Vector::new(a.x, a.y),
                        Vector::new(b.x, b.y),
                        capsule.radius(),
                    )
                }
                Shape::Segment(segment) => {
                    let [a, b] = segment.points();
                    parry2d::shape::SharedShape::segment(
                        Vector::new(a.x, a.y),
                        Vector::new(b.x, b.y),
                    )
                }
            })
            .collect();
        let poses = bodies
            .iter()
            .map(|body| {
                parry2d::math::Pose::new(Vector::new(body.position.x, body.position.y), body.angle)
            })
            .collect();
        Peer {
            shapes: converted,
            poses,
            body_shapes: bodies.iter().map(|b| b.shape).collect(),
        }
    }

    /// parry2d's `query::contact` on one pair: `(depth, normal)` when the
    /// shapes overlap (depth > 0), the normal from A to B.
    pub fn contact(&self, pair: Pair) -> Option<(f32, Vec2)> {
        let (a, b) = (pair.a as usize, pair.b as usize);
        let contact = parry2d::query::contact(
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
                Vec2::new(contact.normal1.x, contact.normal1.y),
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
