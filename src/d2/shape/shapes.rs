//! The shapes: convex polygons and circles, each built only through its
//! validating constructor, and the views the narrowphase reads them
//! through.

use bytemuck::{Pod, Zeroable};
use glam::{DVec2, Vec2};

use crate::core::error::ShapeError;
use crate::d2::shape::hull;

/// A polygon vertex and the outward unit normal of the edge that starts at it,
/// fetched together as one `vec4<f32>` on the GPU.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct EdgeRecord {
    /// Vertex `i`.
    pub vertex: Vec2,
    /// The outward unit normal of the edge from vertex `i` to `i + 1`.
    pub normal: Vec2,
}

/// A validated convex polygon in its local frame: counter-clockwise, strictly
/// convex, with unit outward normals. Build one with [`Polygon::new`].
#[derive(Clone, Debug, PartialEq)]
pub struct Polygon {
    vertices: Vec<Vec2>,
    normals: Vec<Vec2>,
    /// Vertex and normal together, as the narrowphase reads them.
    edges: Vec<EdgeRecord>,
    centroid: Vec2,
    area: f32,
    size: f32,
    unit_inertia: f32,
}

impl Polygon {
    /// Validates `points` (either winding) and builds the polygon; see
    /// [the hull module](crate::d2::shape::hull) for every check and tolerance.
    pub fn new(points: &[Vec2]) -> Result<Polygon, ShapeError> {
        let outline = hull::build_outline(points)?;
        Ok(Polygon::from_outline(&outline.vertices, outline.area))
    }

    /// An axis-aligned box centred on the local origin.
    pub fn rectangle(half_width: f32, half_height: f32) -> Result<Polygon, ShapeError> {
        Polygon::new(&[
            Vec2::new(-half_width, -half_height),
            Vec2::new(half_width, -half_height),
            Vec2::new(half_width, half_height),
            Vec2::new(-half_width, half_height),
        ])
    }

    /// A regular polygon with `count` vertices on a circle of `radius`.
    pub fn regular(count: usize, radius: f32) -> Result<Polygon, ShapeError> {
        let points: Vec<Vec2> = (0..count)
            .map(|i| {
                let angle = std::f32::consts::TAU * i as f32 / count as f32;
                Vec2::new(radius * angle.cos(), radius * angle.sin())
            })
            .collect();
        Polygon::new(&points)
    }

    /// Normals, centroid, size and inertia of a validated CCW outline, in
    /// double precision, rounded once.
    fn from_outline(vertices: &[DVec2], area: f64) -> Polygon {
        let count = vertices.len();
        let normals: Vec<Vec2> = (0..count)
            .map(|i| {
                let edge = vertices[(i + 1) % count] - vertices[i];
                (DVec2::new(edge.y, -edge.x) / edge.length()).as_vec2()
            })
            .collect();

        // Centroid and second moment of area about the centroid, from
        // triangles fanned around the first vertex (small numbers, little
        // cancellation).
        let origin = vertices[0];
        let mut centroid_sum = DVec2::ZERO;
        let mut area_sum = 0.0;
        for i in 1..count - 1 {
            let e1 = vertices[i] - origin;
            let e2 = vertices[i + 1] - origin;
            let triangle_area = 0.5 * e1.perp_dot(e2);
            centroid_sum += triangle_area * (e1 + e2) / 3.0;
            area_sum += triangle_area;
        }
        let centroid = origin + centroid_sum / area_sum;
        // Polar moment of each triangle (centroid, v_i, v_i+1) about the centroid.
        let mut polar = 0.0;
        for i in 0..count {
            let e1 = vertices[i] - centroid;
            let e2 = vertices[(i + 1) % count] - centroid;
            let triangle_area = 0.5 * e1.perp_dot(e2);
            polar += triangle_area * (e1.dot(e1) + e1.dot(e2) + e2.dot(e2)) / 6.0;
        }
        let size = vertices
            .iter()
            .map(|v| (*v - centroid).length())
            .fold(0.0, f64::max);

        let vertices: Vec<Vec2> = vertices.iter().map(|v| v.as_vec2()).collect();
        let edges = vertices
            .iter()
            .zip(&normals)
            .map(|(&vertex, &normal)| EdgeRecord { vertex, normal })
            .collect();
        Polygon {
            vertices,
            normals,
            edges,
            centroid: centroid.as_vec2(),
            area: area as f32,
            size: size as f32,
            unit_inertia: (polar / area) as f32,
        }
    }

    /// Counter-clockwise vertices in the local frame.
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices
    }

    /// `normals()[i]` is the outward unit normal of the edge from vertex `i`
    /// to vertex `i + 1`.
    pub fn normals(&self) -> &[Vec2] {
        &self.normals
    }

    /// Vertices and normals together, as the narrowphase reads them.
    pub fn edges(&self) -> &[EdgeRecord] {
        &self.edges
    }

    /// The centre of mass, in the local frame.
    pub fn centroid(&self) -> Vec2 {
        self.centroid
    }

    /// The enclosed area.
    pub fn area(&self) -> f32 {
        self.area
    }

    /// The largest distance from the centroid to a vertex: the length scale
    /// that tolerances are relative to.
    pub fn size(&self) -> f32 {
        self.size
    }

    /// Rotational inertia about the centroid per unit mass.
    pub fn unit_inertia(&self) -> f32 {
        self.unit_inertia
    }
}

/// A circle centred on its body's position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circle {
    radius: f32,
}

impl Circle {
    /// A circle of `radius`, which must be positive, finite and within the
    /// supported sizes.
    pub fn new(radius: f32) -> Result<Circle, ShapeError> {
        if !radius.is_finite() {
            return Err(ShapeError::RadiusNotFinite { radius });
        }
        if radius <= 0.0 {
            return Err(ShapeError::RadiusNotPositive { radius });
        }
        crate::core::limits::check_size(2.0 * f64::from(radius))?;
        Ok(Circle { radius })
    }

    /// The radius.
    pub fn radius(&self) -> f32 {
        self.radius
    }
}

/// A shape: a convex polygon or a circle.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A convex polygon.
    Polygon(Polygon),
    /// A circle.
    Circle(Circle),
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

impl Shape {
    /// The length scale of the shape: a polygon's [`Polygon::size`], a circle's radius.
    pub fn size(&self) -> f32 {
        match self {
            Shape::Polygon(polygon) => polygon.size,
            Shape::Circle(circle) => circle.radius,
        }
    }

    /// The enclosed area.
    pub fn area(&self) -> f32 {
        match self {
            Shape::Polygon(polygon) => polygon.area,
            Shape::Circle(circle) => std::f32::consts::PI * circle.radius * circle.radius,
        }
    }

    /// The centre of mass in the local frame.
    pub fn centroid(&self) -> Vec2 {
        match self {
            Shape::Polygon(polygon) => polygon.centroid,
            Shape::Circle(_) => Vec2::ZERO,
        }
    }

    /// Rotational inertia about the centroid per unit mass.
    pub fn unit_inertia(&self) -> f32 {
        match self {
            Shape::Polygon(polygon) => polygon.unit_inertia,
            Shape::Circle(circle) => 0.5 * circle.radius * circle.radius,
        }
    }

    /// The radius of the smallest circle about the local origin that holds the shape.
    pub fn bounding_radius(&self) -> f32 {
        match self {
            Shape::Polygon(polygon) => polygon
                .vertices
                .iter()
                .map(|v| v.length())
                .fold(0.0, f32::max),
            Shape::Circle(circle) => circle.radius,
        }
    }

    /// What the narrowphase reads of the shape.
    pub(crate) fn view(&self) -> ShapeView<'_> {
        match self {
            Shape::Polygon(polygon) => ShapeView::Polygon {
                edges: &polygon.edges,
                size: polygon.size,
            },
            Shape::Circle(circle) => ShapeView::Circle {
                radius: circle.radius,
            },
        }
    }
}

/// What the narrowphase reads of a shape, wherever it is stored: a
/// polygon's edges and size, or a circle's radius.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ShapeView<'a> {
    Polygon { edges: &'a [EdgeRecord], size: f32 },
    Circle { radius: f32 },
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
