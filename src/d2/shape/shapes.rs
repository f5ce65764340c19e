//! The shapes: convex polygons and circles, each built only through its
//! validating constructor, and the views the narrowphase reads them
//! through.

use bytemuck::{Pod, Zeroable};
use glam::{DVec2, Vec2};

use crate::core::error::ShapeError;
use crate::d2::shape::hull;
use crate::d2::shape::mass::mass_properties;

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
    /// The radius it is grown by (0: a plain polygon).
    radius: f32,
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

    /// Validates `points` and `radius` and builds the polygon grown by
    /// `radius`: the points within `radius` of the polygon (a rounded
    /// polygon, Box2D's polygon radius). `radius` must be finite and at
    /// least 0, and at most [`MAX_RADIUS_RATIO`] times the polygon's size.
    pub fn rounded(points: &[Vec2], radius: f32) -> Result<Polygon, ShapeError> {
        let outline = hull::build_outline(points)?;
        check_radius(radius, outline_extent(&outline.vertices))?;
        Ok(Polygon::from_outline_rounded(
            &outline.vertices,
            outline.area,
            radius,
        ))
    }

    /// A box centred on the local origin with corners rounded by `radius`
    /// (its outline `half_width + radius` by `half_height + radius`).
    pub fn rounded_rectangle(
        half_width: f32,
        half_height: f32,
        radius: f32,
    ) -> Result<Polygon, ShapeError> {
        Polygon::rounded(
            &[
                Vec2::new(-half_width, -half_height),
                Vec2::new(half_width, -half_height),
                Vec2::new(half_width, half_height),
                Vec2::new(-half_width, half_height),
            ],
            radius,
        )
    }

    /// Normals, centroid, size and inertia of a validated CCW outline, in
    /// double precision, rounded once.
    fn from_outline(vertices: &[DVec2], area: f64) -> Polygon {
        Polygon::from_outline_rounded(vertices, area, 0.0)
    }

    /// [`Polygon::from_outline`] grown by `radius` (see [`mass_properties`]).
    fn from_outline_rounded(vertices: &[DVec2], area: f64, radius: f32) -> Polygon {
        let mass = mass_properties(vertices, f64::from(radius));
        // The outline's own area where there is no radius (the hull
        // builder's sum), the rounded shape's otherwise.
        let area = if radius > 0.0 { mass.area } else { area };
        let (normals, edges) = core_edges(vertices);
        let size = vertices
            .iter()
            .map(|v| (*v - mass.centroid).length())
            .fold(0.0, f64::max)
            + f64::from(radius);
        Polygon {
            vertices: vertices.iter().map(|v| v.as_vec2()).collect(),
            normals,
            edges,
            centroid: mass.centroid.as_vec2(),
            area: area as f32,
            size: size as f32,
            unit_inertia: (mass.polar / area) as f32,
            radius,
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

    /// The radius the polygon is grown by (0 for a plain polygon).
    pub fn radius(&self) -> f32 {
        self.radius
    }
}

/// The outward unit normals of a counter-clockwise core's edges (for a
/// segment `[a, b]`: the edge from `a` to `b` and back), and each vertex
/// with the normal of the edge that starts there, in double precision
/// rounded once.
pub(crate) fn core_edges(vertices: &[DVec2]) -> (Vec<Vec2>, Vec<EdgeRecord>) {
    let count = vertices.len();
    let normals: Vec<Vec2> = (0..count)
        .map(|i| {
            let edge = vertices[(i + 1) % count] - vertices[i];
            (DVec2::new(edge.y, -edge.x) / edge.length()).as_vec2()
        })
        .collect();
    let edges = vertices
        .iter()
        .zip(&normals)
        .map(|(vertex, &normal)| EdgeRecord {
            vertex: vertex.as_vec2(),
            normal,
        })
        .collect();
    (normals, edges)
}

/// The largest distance between two of `vertices`: a core's extent.
pub(crate) fn outline_extent(vertices: &[DVec2]) -> f64 {
    vertices
        .iter()
        .flat_map(|a| vertices.iter().map(move |b| (*a - *b).length()))
        .fold(0.0, f64::max)
}

pub use crate::core::limits::MAX_RADIUS_RATIO;
pub(crate) use crate::core::limits::check_radius;

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
