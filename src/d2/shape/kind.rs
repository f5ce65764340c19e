//! A 2D shape as one of its kinds ([`Shape`]), and what the narrowphase
//! reads of any of them ([`ShapeView`], [`Faces`]).

use glam::Vec2;

use super::capsule::{Capsule, Segment};
use super::shapes::{Circle, EdgeRecord, Polygon};

/// A shape: a convex core and a radius (the points within the radius of
/// the core): a polygon (radius 0, or rounded), a circle (a point core), a
/// capsule (a segment core) or a bare segment.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A convex polygon, plain or rounded.
    Polygon(Polygon),
    /// A circle.
    Circle(Circle),
    /// A capsule.
    Capsule(Capsule),
    /// A segment (no area).
    Segment(Segment),
}

impl From<Polygon> for Shape {
    fn from(polygon: Polygon) -> Shape {
        Shape::Polygon(polygon)
    }
}

impl From<Circle> for Shape {
    fn from(circle: Circle) -> Shape {
        Shape::Circle(circle)
    }
}

impl From<Capsule> for Shape {
    fn from(capsule: Capsule) -> Shape {
        Shape::Capsule(capsule)
    }
}

impl From<Segment> for Shape {
    fn from(segment: Segment) -> Shape {
        Shape::Segment(segment)
    }
}

impl Shape {
    /// The length scale of the shape, tolerances' unit: a polygon's
    /// [`Polygon::size`], a circle's radius, half a segment's length (plus
    /// a capsule's radius).
    pub fn size(&self) -> f32 {
        match self {
            Shape::Polygon(polygon) => polygon.size(),
            Shape::Circle(circle) => circle.radius(),
            Shape::Capsule(capsule) => capsule.size(),
            Shape::Segment(segment) => segment.size(),
        }
    }

    /// The enclosed area (0 for a segment).
    pub fn area(&self) -> f32 {
        match self {
            Shape::Polygon(polygon) => polygon.area(),
            Shape::Circle(circle) => std::f32::consts::PI * circle.radius() * circle.radius(),
            Shape::Capsule(capsule) => capsule.area(),
            Shape::Segment(_) => 0.0,
        }
    }

    /// The centre of mass in the local frame.
    pub fn centroid(&self) -> Vec2 {
        match self {
            Shape::Polygon(polygon) => polygon.centroid(),
            Shape::Circle(_) => Vec2::ZERO,
            Shape::Capsule(capsule) => capsule.centroid(),
            Shape::Segment(segment) => segment.centroid(),
        }
    }

    /// Rotational inertia about the centroid per unit mass (a segment's: a
    /// thin rod's).
    pub fn unit_inertia(&self) -> f32 {
        match self {
            Shape::Polygon(polygon) => polygon.unit_inertia(),
            Shape::Circle(circle) => 0.5 * circle.radius() * circle.radius(),
            Shape::Capsule(capsule) => capsule.unit_inertia(),
            Shape::Segment(segment) => segment.unit_inertia(),
        }
    }

    /// The core's faces (a segment's two), or `None` for a circle's point
    /// core.
    pub fn edges(&self) -> Option<&[EdgeRecord]> {
        match self {
            Shape::Polygon(polygon) => Some(polygon.edges()),
            Shape::Circle(_) => None,
            Shape::Capsule(capsule) => Some(capsule.edges()),
            Shape::Segment(segment) => Some(segment.edges()),
        }
    }

    /// The radius the core is grown by (0 for a plain polygon and a
    /// segment).
    pub fn radius(&self) -> f32 {
        match self {
            Shape::Polygon(polygon) => polygon.radius(),
            Shape::Circle(circle) => circle.radius(),
            Shape::Capsule(capsule) => capsule.radius(),
            Shape::Segment(_) => 0.0,
        }
    }

    /// The radius of the smallest circle about the local origin that holds the shape.
    pub fn bounding_radius(&self) -> f32 {
        match self.edges() {
            Some(edges) => {
                edges
                    .iter()
                    .map(|edge| edge.vertex.length())
                    .fold(0.0, f32::max)
                    + self.radius()
            }
            None => self.radius(),
        }
    }

    /// What the narrowphase reads of the shape.
    pub(crate) fn view(&self) -> ShapeView<'_> {
        match self.edges() {
            Some(edges) => ShapeView::Polygon {
                edges,
                size: self.size(),
                radius: self.radius(),
            },
            None => ShapeView::Circle {
                radius: self.radius(),
            },
        }
    }
}

/// What the narrowphase reads of a shape, wherever it is stored: a
/// polygon's (or segment's) edges, size and radius, or a circle's radius.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ShapeView<'a> {
    /// A polygon or segment core, grown by `radius` (0: none).
    Polygon {
        edges: &'a [EdgeRecord],
        size: f32,
        radius: f32,
    },
    Circle {
        radius: f32,
    },
}

impl ShapeView<'_> {
    /// [`Shape::size`].
    #[inline(always)]
    pub(crate) fn size(&self) -> f32 {
        match *self {
            ShapeView::Polygon { size, .. } => size,
            ShapeView::Circle { radius } => radius,
        }
    }
}

/// A polygon's faces, wherever they are stored (its own edges, or the shape
/// library's face groups): the clipping and the normal rebuild read them
/// through this, so that the one-pair call and the batch paths run the same
/// operations on the same numbers.
pub(crate) trait Faces: Copy {
    /// Vertices (and faces).
    fn count(&self) -> u32;
    /// Vertex `i` (the start of edge `i`).
    fn vertex(&self, i: u32) -> Vec2;
    /// The outward unit normal of edge `i`.
    fn normal(&self, i: u32) -> Vec2;
}

impl Faces for &[EdgeRecord] {
    #[inline(always)]
    fn count(&self) -> u32 {
        self.len() as u32
    }

    #[inline(always)]
    fn vertex(&self, i: u32) -> Vec2 {
        self[i as usize].vertex
    }

    #[inline(always)]
    fn normal(&self, i: u32) -> Vec2 {
        self[i as usize].normal
    }
}
