//! A 3D shape as one of its kinds ([`Shape`]), and the core and radius
//! every kind is for the narrowphase ([`Core`]).

use glam::{Mat3, Vec3};

use super::rounded::{Capsule, RoundedHull};
use super::shapes::{Hull, Sphere};

/// A 3D shape: a convex hull, a sphere, a capsule or a rounded hull.
// Unboxed: shapes are few (a library that many bodies share), and a box
// would put one more pointer between every pair and its hull's data.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A convex polyhedron.
    Hull(Hull),
    /// A sphere.
    Sphere(Sphere),
    /// A capsule: a segment grown by a radius.
    Capsule(Capsule),
    /// A convex polyhedron grown by a radius.
    RoundedHull(RoundedHull),
}

/// A shape's core, the convex set a shape is its radius around: a hull, a
/// segment (a capsule's), or a point (a sphere's centre, the local origin).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Core<'a> {
    /// A hull (a plain hull's radius is 0).
    Hull(&'a Hull),
    /// A segment, its two points in the local frame.
    Segment([Vec3; 2]),
    /// The local origin.
    Point,
}

impl Core<'_> {
    /// Vertex `i` (the last for an index past them: a backend's garbage,
    /// made total; a segment's are its ends, a point's the origin).
    pub(crate) fn vertex(self, i: u32) -> Vec3 {
        match self {
            Core::Hull(hull) => hull.vertices()[(i as usize).min(hull.vertices().len() - 1)],
            Core::Segment(points) => points[(i as usize).min(1)],
            Core::Point => Vec3::ZERO,
        }
    }

    /// Edge `e`'s two ends (a segment's one edge; a point's is the point).
    pub(crate) fn edge(self, e: u32) -> (Vec3, Vec3) {
        match self {
            Core::Hull(hull) => {
                let edge = hull.edges()[(e as usize).min(hull.edges().len() - 1)];
                (
                    hull.vertices()[edge.v0 as usize],
                    hull.vertices()[edge.v1 as usize],
                )
            }
            Core::Segment([a, b]) => (a, b),
            Core::Point => (Vec3::ZERO, Vec3::ZERO),
        }
    }
}

impl From<Capsule> for Shape {
    fn from(capsule: Capsule) -> Shape {
        Shape::Capsule(capsule)
    }
}

impl From<RoundedHull> for Shape {
    fn from(rounded: RoundedHull) -> Shape {
        Shape::RoundedHull(rounded)
    }
}

impl From<Hull> for Shape {
    fn from(hull: Hull) -> Shape {
        Shape::Hull(hull)
    }
}

impl From<Sphere> for Shape {
    fn from(sphere: Sphere) -> Shape {
        Shape::Sphere(sphere)
    }
}

impl Shape {
    /// The length scale of the shape: a hull's [`Hull::size`], a sphere's
    /// radius, a capsule's half length plus its radius, a rounded hull's
    /// core size plus its radius.
    pub fn size(&self) -> f32 {
        match self {
            Shape::Hull(hull) => hull.size(),
            Shape::Sphere(sphere) => sphere.radius(),
            Shape::Capsule(capsule) => capsule.size(),
            Shape::RoundedHull(rounded) => rounded.size(),
        }
    }

    /// The enclosed volume.
    pub fn volume(&self) -> f32 {
        match self {
            Shape::Hull(hull) => hull.volume(),
            Shape::Sphere(sphere) => 4.0 / 3.0 * std::f32::consts::PI * sphere.radius().powi(3),
            Shape::Capsule(capsule) => capsule.volume(),
            Shape::RoundedHull(rounded) => rounded.volume(),
        }
    }

    /// The centre of mass in the local frame.
    pub fn centroid(&self) -> Vec3 {
        match self {
            Shape::Hull(hull) => hull.centroid(),
            Shape::Sphere(_) => Vec3::ZERO,
            Shape::Capsule(capsule) => capsule.centroid(),
            Shape::RoundedHull(rounded) => rounded.centroid(),
        }
    }

    /// The inertia tensor about the centroid, per unit mass.
    pub fn unit_inertia(&self) -> Mat3 {
        match self {
            Shape::Hull(hull) => hull.unit_inertia(),
            Shape::Sphere(sphere) => {
                Mat3::from_diagonal(Vec3::splat(0.4 * sphere.radius() * sphere.radius()))
            }
            Shape::Capsule(capsule) => capsule.unit_inertia(),
            Shape::RoundedHull(rounded) => rounded.unit_inertia(),
        }
    }

    /// The radius of the smallest sphere about the local origin that holds the shape.
    pub fn bounding_radius(&self) -> f32 {
        let (core, radius) = self.core();
        let reach = match core {
            Core::Hull(hull) => hull
                .vertices()
                .iter()
                .map(|v| v.length())
                .fold(0.0, f32::max),
            Core::Segment([a, b]) => a.length().max(b.length()),
            Core::Point => 0.0,
        };
        reach + radius
    }

    /// The hull, if the shape is a plain one.
    pub fn hull(&self) -> Option<&Hull> {
        match self {
            Shape::Hull(hull) => Some(hull),
            _ => None,
        }
    }

    /// The hull core: a plain hull, or a rounded hull's core.
    pub fn core_hull(&self) -> Option<&Hull> {
        match self {
            Shape::Hull(hull) => Some(hull),
            Shape::RoundedHull(rounded) => Some(rounded.hull()),
            Shape::Sphere(_) | Shape::Capsule(_) => None,
        }
    }

    /// The radius the shape's core is grown by (0 for a plain hull).
    pub fn radius(&self) -> f32 {
        self.core().1
    }

    /// Whether the shape is a hull or a sphere: the kinds every backend
    /// collides, the GPU kernels included.
    pub fn is_plain(&self) -> bool {
        matches!(self, Shape::Hull(_) | Shape::Sphere(_))
    }

    /// The shape's kind, as errors and scene files name it.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Shape::Hull(_) => "hull",
            Shape::Sphere(_) => "sphere",
            Shape::Capsule(_) => "capsule",
            Shape::RoundedHull(_) => "rounded hull",
        }
    }

    /// The core and the radius it is grown by.
    #[inline]
    pub(crate) fn core(&self) -> (Core<'_>, f32) {
        match self {
            Shape::Hull(hull) => (Core::Hull(hull), 0.0),
            Shape::Sphere(sphere) => (Core::Point, sphere.radius()),
            Shape::Capsule(capsule) => (Core::Segment(capsule.points()), capsule.radius()),
            Shape::RoundedHull(rounded) => (Core::Hull(rounded.hull()), rounded.radius()),
        }
    }
}
