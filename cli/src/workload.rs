//! Benchmark workloads: the seeded scenes behind every speed figure, shared
//! by the criterion benches and `gpusat bench`, and parry2d as a peer on the
//! identical pairs.
//!
//! * [`Density::Reference`] is the reference distribution of the headline
//!   figures: 4,096 random shapes (polygons: points at random angles on a
//!   circle of radius 0.5 to 1.5, hulled), one body each at a uniform random
//!   position in [-1, 1]² with a random angle, random pairs. Nearly every
//!   pair overlaps.
//! * [`Density::Sparse`] and [`Density::Dense`] spread the same bodies over
//!   a square sized so that about 10% or 80% of random pairs overlap. The
//!   size is found by bisection on a sample of the scene itself, so the
//!   fraction holds for every shape kind.

use glam::Vec2;

use gpusat::generate::{GeneratedScene, SceneSpec};
use gpusat::{Batch, Body, Pair, Shape, ShapeSet, collide_cpu};

/// What the shapes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeKind {
    /// Polygons with exactly this many vertices.
    Polygons(usize),
    Circles,
    /// Polygons of 3 to 16 vertices, circles and thin slivers.
    Mixed,
}

impl ShapeKind {
    pub fn name(self) -> String {
        match self {
            ShapeKind::Polygons(n) => format!("{n}-gons"),
            ShapeKind::Circles => "circles".to_string(),
            ShapeKind::Mixed => "mixed".to_string(),
        }
    }
}

/// How crowded the bodies are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Density {
    /// Bodies in [-1, 1]²: the reference distribution.
    Reference,
    /// About 10% of pairs overlap.
    Sparse,
    /// About 80% of pairs overlap.
    Dense,
}

impl Density {
    pub fn name(self) -> &'static str {
        match self {
            Density::Reference => "reference",
            Density::Sparse => "sparse",
            Density::Dense => "dense",
        }
    }

    /// The fraction of overlapping pairs aimed at, if any.
    pub fn target(self) -> Option<f64> {
        match self {
            Density::Reference => None,
            Density::Sparse => Some(0.10),
            Density::Dense => Some(0.80),
        }
    }
}

/// The scene description of a workload (with `pairs` random pairs).
pub fn workload_spec(kind: ShapeKind, density: Density, pairs: usize) -> SceneSpec {
    let base = match kind {
        ShapeKind::Polygons(n) => SceneSpec::reference(n),
        ShapeKind::Circles => SceneSpec {
            circle_fraction: 1.0,
            ..SceneSpec::reference(8)
        },
        ShapeKind::Mixed => SceneSpec {
            vertices: (3, 16),
            circle_fraction: 0.2,
            sliver_fraction: 0.1,
            ..SceneSpec::reference(8)
        },
    };
    let base = SceneSpec { pairs, ..base };
    match density.target() {
        None => base,
        Some(target) => SceneSpec {
            half_extent: calibrate_half_extent(&base, target),
            ..base
        },
    }
}

/// A workload's scene.
pub fn workload(kind: ShapeKind, density: Density, pairs: usize) -> GeneratedScene {
    workload_spec(kind, density, pairs).generate()
}

/// The half extent at which about `target` of the scene's random pairs
/// overlap, by bisection (in log scale) on 4,000 of them.
fn calibrate_half_extent(spec: &SceneSpec, target: f64) -> f32 {
    let fraction = |half_extent: f32| {
        let scene = SceneSpec {
            pairs: 4000,
            half_extent,
            ..spec.clone()
        }
        .generate();
        match Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0) {
            Ok(batch) => collide_cpu(&batch).len() as f64 / scene.pairs.len().max(1) as f64,
            Err(_) => 0.0,
        }
    };
    let (mut low, mut high) = (0.01f32.ln(), 1000f32.ln());
    for _ in 0..24 {
        let middle = 0.5 * (low + high);
        // Larger squares: fewer overlaps.
        if fraction(middle.exp()) > target {
            low = middle;
        } else {
            high = middle;
        }
    }
    (0.5 * (low + high)).exp()
}

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
                    parry2d::shape::ConvexPolygon::from_convex_polyline_unmodified(points)
                        .map(parry2d::shape::SharedShape::new)
                        .unwrap_or_else(|| parry2d::shape::SharedShape::ball(polygon.size()))
                }
                Shape::Circle(circle) => parry2d::shape::SharedShape::ball(circle.radius()),
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
