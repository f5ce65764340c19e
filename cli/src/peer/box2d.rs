//! Box2D v3 as a peer on the identical pairs of a 2D workload: its
//! one-pair manifold functions (`b2CollidePolygons`, `b2CollideCapsules`,
//! `b2CollidePolygonAndCapsule`, ...), the calls a Box2D world makes for
//! each touching pair, on the shapes converted once. Built with the `box2d`
//! feature (`boxdd-sys`: Box2D's C sources compiled by `cc`, no CMake or
//! libclang), which a default build leaves out.

use boxdd_sys::ffi::{
    b2Capsule, b2Circle, b2CollideCapsuleAndCircle, b2CollideCapsules, b2CollideCircles,
    b2CollidePolygonAndCapsule, b2CollidePolygonAndCircle, b2CollidePolygons,
    b2CollideSegmentAndCapsule, b2CollideSegmentAndCircle, b2CollideSegmentAndPolygon, b2Hull,
    b2MakePolygon, b2Manifold, b2Polygon, b2Rot, b2Segment, b2SetAssertFcn, b2Transform, b2Vec2,
};
use gpusat::{Body, Pair, Shape, ShapeSet};

/// Box2D's largest polygon (`B2_MAX_POLYGON_VERTICES`).
pub const MAX_POLYGON_VERTICES: usize = 8;

/// A shape as Box2D holds it, in Box2D's order of shape types (circle,
/// capsule, segment, polygon), which its collide functions follow.
#[derive(Clone, Copy)]
enum Converted {
    Circle(b2Circle),
    Capsule(b2Capsule),
    Segment(b2Segment),
    Polygon(b2Polygon),
}

impl Converted {
    fn rank(&self) -> u8 {
        match self {
            Converted::Circle(_) => 0,
            Converted::Capsule(_) => 1,
            Converted::Segment(_) => 2,
            Converted::Polygon(_) => 3,
        }
    }
}

fn vec2(v: glam::Vec2) -> b2Vec2 {
    b2Vec2 { x: v.x, y: v.y }
}

/// Box2D's assertion handler for the bench: go on. Box2D's release builds
/// compile its assertions out (`-DNDEBUG`, which `.cargo/config.toml` sets
/// on x86-64 Linux); where they are compiled in, its hull validation would
/// stop the bench at polygons gpusat accepts but Box2D's own builder would
/// have welded (vertices within its linear slop, 0.005, of collinear).
unsafe extern "C" fn go_on(
    _condition: *const std::os::raw::c_char,
    _file: *const std::os::raw::c_char,
    _line: std::os::raw::c_int,
) -> std::os::raw::c_int {
    0
}

/// Box2D's narrowphase on the same shapes and bodies.
pub struct Peer {
    shapes: Vec<Converted>,
    transforms: Vec<b2Transform>,
    body_shapes: Vec<u32>,
}

impl Peer {
    /// The shapes converted once (a polygon's vertices through
    /// `b2MakePolygon` with its radius), the bodies' transforms; an error
    /// naming a shape Box2D cannot hold (a polygon of more than
    /// [`MAX_POLYGON_VERTICES`]).
    pub fn new(shapes: &ShapeSet, bodies: &[Body]) -> Result<Peer, String> {
        // SAFETY: a handler that reads nothing and returns.
        unsafe { b2SetAssertFcn(Some(go_on)) };
        let mut converted = Vec::with_capacity(shapes.len());
        for (index, shape) in shapes.shapes().iter().enumerate() {
            converted.push(match shape {
                Shape::Polygon(polygon) => {
                    let points: Vec<b2Vec2> =
                        polygon.vertices().iter().map(|&v| vec2(v)).collect();
                    if points.len() > MAX_POLYGON_VERTICES {
                        return Err(format!(
                            "shape {index}: a polygon of {} vertices (Box2D takes at most {MAX_POLYGON_VERTICES})",
                            points.len()
                        ));
                    }
                    // The polygon's own vertices, in its order: gpusat has
                    // checked them convex and counter-clockwise, which is
                    // what b2MakePolygon needs. (b2ComputeHull would weld
                    // vertices closer than Box2D's linear slop, 0.005, and
                    // drop nearly collinear ones: a different shape, and no
                    // shape at all for some of the bench's quads.)
                    let mut hull = b2Hull {
                        points: [b2Vec2 { x: 0.0, y: 0.0 }; MAX_POLYGON_VERTICES],
                        count: points.len() as i32,
                    };
                    hull.points[..points.len()].copy_from_slice(&points);
                    // SAFETY: a convex counter-clockwise outline of at most
                    // eight points, in a hull of `count` of them (closer to
                    // collinear than Box2D's validation allows, perhaps:
                    // see `go_on`).
                    Converted::Polygon(unsafe { b2MakePolygon(&hull, polygon.radius()) })
                }
                Shape::Circle(circle) => Converted::Circle(b2Circle {
                    center: b2Vec2 { x: 0.0, y: 0.0 },
                    radius: circle.radius(),
                }),
                Shape::Capsule(capsule) => {
                    let [a, b] = capsule.points();
                    Converted::Capsule(b2Capsule {
                        center1: vec2(a),
                        center2: vec2(b),
                        radius: capsule.radius(),
                    })
                }
                Shape::Segment(segment) => {
                    let [a, b] = segment.points();
                    Converted::Segment(b2Segment {
                        point1: vec2(a),
                        point2: vec2(b),
                    })
                }
            });
        }
        let transforms = bodies
            .iter()
            .map(|body| b2Transform {
                p: vec2(body.position),
                q: b2Rot {
                    c: body.angle.cos(),
                    s: body.angle.sin(),
                },
            })
            .collect();
        Ok(Peer {
            shapes: converted,
            transforms,
            body_shapes: bodies.iter().map(|body| body.shape).collect(),
        })
    }

    /// Box2D's manifold of one pair, and whether its shape A is the pair's
    /// body B (the collide functions take the shapes in Box2D's type
    /// order: its normal then points from the pair's B to A); `None` for
    /// two segments, which Box2D does not collide.
    pub fn manifold(&self, pair: Pair) -> Option<(b2Manifold, bool)> {
        let side = |body: u32| {
            (
                &self.shapes[self.body_shapes[body as usize] as usize],
                self.transforms[body as usize],
            )
        };
        let (mut a, mut b) = (side(pair.a), side(pair.b));
        let mut reversed = false;
        if a.0.rank() < b.0.rank() {
            std::mem::swap(&mut a, &mut b);
            reversed = true;
        }
        use Converted::{Capsule, Circle, Polygon, Segment};
        // SAFETY: every pointer is to a shape converted by `new`, alive for
        // the call; the functions only read them.
        let manifold = unsafe {
            match (a.0, b.0) {
                (Circle(s), Circle(t)) => b2CollideCircles(s, a.1, t, b.1),
                (Capsule(s), Circle(t)) => b2CollideCapsuleAndCircle(s, a.1, t, b.1),
                (Capsule(s), Capsule(t)) => b2CollideCapsules(s, a.1, t, b.1),
                (Segment(s), Circle(t)) => b2CollideSegmentAndCircle(s, a.1, t, b.1),
                (Segment(s), Capsule(t)) => b2CollideSegmentAndCapsule(s, a.1, t, b.1),
                (Polygon(s), Circle(t)) => b2CollidePolygonAndCircle(s, a.1, t, b.1),
                (Polygon(s), Capsule(t)) => b2CollidePolygonAndCapsule(s, a.1, t, b.1),
                (Polygon(s), Segment(t)) => {
                    // Box2D takes the segment first.
                    reversed = !reversed;
                    b2CollideSegmentAndPolygon(t, b.1, s, a.1)
                }
                (Polygon(s), Polygon(t)) => b2CollidePolygons(s, a.1, t, b.1),
                (Segment(_), Segment(_)) | (Circle(_) | Capsule(_) | Segment(_), _) => {
                    return None;
                }
            }
        };
        Some((manifold, reversed))
    }

    /// One pair's overlap as Box2D reports it: `(depth, normal)` from its
    /// deepest manifold point (the normal from A to B) where a point has a
    /// negative separation; Box2D's manifolds also hold speculative points,
    /// within its speculative distance, which are not overlaps.
    pub fn contact(&self, pair: Pair) -> Option<(f32, glam::Vec2)> {
        let (manifold, reversed) = self.manifold(pair)?;
        let deepest = manifold.points[..manifold.pointCount.clamp(0, 2) as usize]
            .iter()
            .map(|point| point.separation)
            .fold(f32::MAX, f32::min);
        if deepest >= 0.0 {
            return None;
        }
        let normal = glam::Vec2::new(manifold.normal.x, manifold.normal.y);
        Some((-deepest, if reversed { -normal } else { normal }))
    }

    /// Every pair's manifold; the number that overlap ([`Peer::contact`]).
    pub fn collide(&self, pairs: &[Pair]) -> usize {
        pairs
            .iter()
            .filter(|pair| self.contact(**pair).is_some())
            .count()
    }
}
