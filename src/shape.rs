//! Shapes and the shape library.
//!
//! A [`ShapeSet`] stores every shape once, in local space. Bodies refer to a
//! shape by its index, so ten thousand copies of one particle polygon cost one
//! polygon. The library keeps its polygons in one flat array of
//! [`EdgeRecord`]s (vertex and the outward unit normal of the edge that starts
//! there, 16 bytes), which is exactly what the GPU kernel reads, and one
//! [`ShapeRecord`] per shape.

use bytemuck::{Pod, Zeroable};
use glam::Vec2;

use crate::error::{Error, ShapeError};
use crate::hull;

/// The most vertices a polygon may keep after cleanup.
pub const MAX_POLYGON_VERTICES: usize = 64;

/// The smallest shape size accepted (a polygon's bounding-box diagonal, a
/// circle's diameter): its fourth power (moments of inertia) is still a
/// normal single-precision number, and so are the products the narrowphase
/// forms. The fuzzer found a triangle 4e-42 wide whose every cross product
/// was zero.
pub const MIN_SHAPE_SIZE: f64 = 1e-9;
/// The largest shape size accepted: its fourth power is still finite in
/// single precision.
pub const MAX_SHAPE_SIZE: f64 = 1e9;

/// Whether a shape `size` units across is within the supported range.
pub(crate) fn check_size(size: f64) -> Result<(), ShapeError> {
    if (MIN_SHAPE_SIZE..=MAX_SHAPE_SIZE).contains(&size) {
        Ok(())
    } else {
        Err(ShapeError::SizeOutOfRange { size })
    }
}

/// A validated convex polygon in its local frame: counter-clockwise, strictly
/// convex, with unit outward normals. Build one with [`Polygon::new`].
#[derive(Clone, Debug, PartialEq)]
pub struct Polygon {
    pub(crate) vertices: Vec<Vec2>,
    pub(crate) normals: Vec<Vec2>,
    pub(crate) centroid: Vec2,
    pub(crate) area: f32,
    pub(crate) size: f32,
    pub(crate) unit_inertia: f32,
}

impl Polygon {
    /// Validates `points` (either winding) and builds the polygon; see
    /// [the hull module](crate::hull) for every check and tolerance.
    pub fn new(points: &[Vec2]) -> Result<Polygon, ShapeError> {
        hull::build_polygon(points)
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

    /// Counter-clockwise vertices in the local frame.
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices
    }

    /// `normals()[i]` is the outward unit normal of the edge from vertex `i`
    /// to vertex `i + 1`.
    pub fn normals(&self) -> &[Vec2] {
        &self.normals
    }

    pub fn centroid(&self) -> Vec2 {
        self.centroid
    }

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
    pub(crate) radius: f32,
}

impl Circle {
    pub fn new(radius: f32) -> Result<Circle, ShapeError> {
        if !radius.is_finite() {
            return Err(ShapeError::RadiusNotFinite { radius });
        }
        if radius <= 0.0 {
            return Err(ShapeError::RadiusNotPositive { radius });
        }
        check_size(2.0 * f64::from(radius))?;
        Ok(Circle { radius })
    }

    pub fn radius(&self) -> f32 {
        self.radius
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Polygon(Polygon),
    Circle(Circle),
}

impl Shape {
    /// The length scale of the shape: a polygon's [`Polygon::size`], a circle's radius.
    pub fn size(&self) -> f32 {
        match self {
            Shape::Polygon(polygon) => polygon.size,
            Shape::Circle(circle) => circle.radius,
        }
    }

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
}

/// One shape as the narrowphase reads it. `count == 0` marks a circle.
/// Mirrored by `ShapeRecord` in `shaders/sat.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ShapeRecord {
    /// Index of the polygon's first [`EdgeRecord`].
    pub first: u32,
    /// Number of vertices; 0 for a circle.
    pub count: u32,
    /// The circle's radius; 0 for a polygon.
    pub radius: f32,
    /// [`Shape::size`], for tolerances.
    pub size: f32,
}

/// A polygon vertex and the outward unit normal of the edge that starts at it,
/// fetched together as one `vec4<f32>` on the GPU.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct EdgeRecord {
    pub vertex: Vec2,
    pub normal: Vec2,
}

/// Eight faces of a polygon, structure of arrays, for the vectorised CPU
/// narrowphase: the faces' normals and vertices (which also serve as the
/// polygon's vertices when it is the other shape). 128 bytes, two cache
/// lines. Lanes past the polygon's last face repeat face 0 and are never
/// read.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Default)]
pub struct FaceLanes {
    pub nx: [f32; 8],
    pub ny: [f32; 8],
    pub vx: [f32; 8],
    pub vy: [f32; 8],
}

/// Faces per [`FaceLanes`] group.
pub const FACE_LANES: usize = 8;

/// Vertices repeated after a polygon's last in its ring (see [`ShapeSet::ring_of`]).
pub const RING_PADDING: usize = 2 * FACE_LANES;

/// A polygon's faces, read from its face groups (which the narrowphase has
/// just brought into cache).
#[derive(Clone, Copy, Debug)]
pub struct FaceView<'a> {
    lanes: &'a [FaceLanes],
    count: u32,
}

impl FaceView<'_> {
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Vertex `i` (the start of edge `i`).
    #[inline(always)]
    pub fn vertex(&self, i: u32) -> Vec2 {
        let group = &self.lanes[i as usize / FACE_LANES];
        let lane = i as usize % FACE_LANES;
        Vec2::new(group.vx[lane], group.vy[lane])
    }

    /// The outward unit normal of edge `i`.
    #[inline(always)]
    pub fn normal(&self, i: u32) -> Vec2 {
        let group = &self.lanes[i as usize / FACE_LANES];
        let lane = i as usize % FACE_LANES;
        Vec2::new(group.nx[lane], group.ny[lane])
    }
}

/// The shape library: every shape once, plus its flat narrowphase records.
#[derive(Debug)]
pub struct ShapeSet {
    shapes: Vec<Shape>,
    records: Vec<ShapeRecord>,
    edges: Vec<EdgeRecord>,
    /// Each polygon's faces in groups of eight; `first_lane[shape]` is its first group.
    lanes: Vec<FaceLanes>,
    first_lane: Vec<u32>,
    /// Each polygon's vertex x's then y's, each followed by its first
    /// `RING_PADDING` again, so that any `RING_PADDING` consecutive vertices
    /// (going round) are one slice; `first_ring[shape]` is where they start.
    ring: Vec<f32>,
    first_ring: Vec<u32>,
    /// Unique per library; with the length (the library only grows) it tells
    /// a GPU backend whether its copy is current.
    uid: u64,
}

fn next_uid() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Default for ShapeSet {
    fn default() -> ShapeSet {
        ShapeSet {
            shapes: Vec::new(),
            records: Vec::new(),
            edges: Vec::new(),
            lanes: Vec::new(),
            first_lane: Vec::new(),
            ring: Vec::new(),
            first_ring: Vec::new(),
            uid: next_uid(),
        }
    }
}

impl Clone for ShapeSet {
    /// A clone is a new library: it gets its own id, since the two may grow apart.
    fn clone(&self) -> ShapeSet {
        ShapeSet {
            shapes: self.shapes.clone(),
            records: self.records.clone(),
            edges: self.edges.clone(),
            lanes: self.lanes.clone(),
            first_lane: self.first_lane.clone(),
            ring: self.ring.clone(),
            first_ring: self.first_ring.clone(),
            uid: next_uid(),
        }
    }
}

impl ShapeSet {
    pub fn new() -> ShapeSet {
        ShapeSet::default()
    }

    /// An id unique to this library (clones get their own).
    pub fn uid(&self) -> u64 {
        self.uid
    }

    /// Adds a shape and returns its index.
    pub fn push(&mut self, shape: Shape) -> u32 {
        let index = self.shapes.len() as u32;
        self.first_lane.push(self.lanes.len() as u32);
        self.first_ring.push(self.ring.len() as u32);
        if let Shape::Polygon(polygon) = &shape {
            let count = polygon.vertices.len();
            for coordinate in [|v: &Vec2| v.x, |v: &Vec2| v.y] {
                self.ring.extend(
                    (0..count + RING_PADDING).map(|i| coordinate(&polygon.vertices[i % count])),
                );
            }
            let (v, n) = (&polygon.vertices, &polygon.normals);
            for group in 0..count.div_ceil(FACE_LANES) {
                let mut lanes = FaceLanes::default();
                for lane in 0..FACE_LANES {
                    let i = group * FACE_LANES + lane;
                    let i = if i < count { i } else { 0 };
                    lanes.nx[lane] = n[i].x;
                    lanes.ny[lane] = n[i].y;
                    lanes.vx[lane] = v[i].x;
                    lanes.vy[lane] = v[i].y;
                }
                self.lanes.push(lanes);
            }
        }
        let record = match &shape {
            Shape::Polygon(polygon) => {
                let first = self.edges.len() as u32;
                self.edges.extend(
                    polygon
                        .vertices
                        .iter()
                        .zip(&polygon.normals)
                        .map(|(&vertex, &normal)| EdgeRecord { vertex, normal }),
                );
                ShapeRecord {
                    first,
                    count: polygon.vertices.len() as u32,
                    radius: 0.0,
                    size: polygon.size,
                }
            }
            Shape::Circle(circle) => ShapeRecord {
                first: 0,
                count: 0,
                radius: circle.radius,
                size: circle.radius,
            },
        };
        self.shapes.push(shape);
        self.records.push(record);
        index
    }

    /// Validates and adds a polygon; the error names the index it would have had.
    pub fn add_polygon(&mut self, points: &[Vec2]) -> Result<u32, Error> {
        let polygon = Polygon::new(points).map_err(|reason| Error::Shape {
            index: self.shapes.len(),
            reason,
        })?;
        Ok(self.push(Shape::Polygon(polygon)))
    }

    /// Validates and adds a circle; the error names the index it would have had.
    pub fn add_circle(&mut self, radius: f32) -> Result<u32, Error> {
        let circle = Circle::new(radius).map_err(|reason| Error::Shape {
            index: self.shapes.len(),
            reason,
        })?;
        Ok(self.push(Shape::Circle(circle)))
    }

    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    pub fn get(&self, index: u32) -> Option<&Shape> {
        self.shapes.get(index as usize)
    }

    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// One record per shape, in index order.
    pub fn records(&self) -> &[ShapeRecord] {
        &self.records
    }

    /// Every polygon's edges, back to back.
    pub fn edges(&self) -> &[EdgeRecord] {
        &self.edges
    }

    /// The face groups of shape `index` (empty for a circle).
    #[inline(always)]
    pub fn lanes_of(&self, index: u32, record: &ShapeRecord) -> &[FaceLanes] {
        let first = self.first_lane[index as usize] as usize;
        &self.lanes[first..first + (record.count as usize).div_ceil(FACE_LANES)]
    }

    /// The faces of polygon `index` (no faces for a circle).
    #[inline(always)]
    pub fn faces(&self, index: u32, record: &ShapeRecord) -> FaceView<'_> {
        FaceView {
            lanes: self.lanes_of(index, record),
            count: record.count,
        }
    }

    /// Polygon `index`'s vertex x's and y's, each `count + RING_PADDING`
    /// long: vertex `i` and the `RING_PADDING - 1` after it (going round)
    /// are `xs[i..]`, for any `i < count`.
    #[inline(always)]
    pub fn ring_of(&self, index: u32, record: &ShapeRecord) -> (&[f32], &[f32]) {
        let first = self.first_ring[index as usize] as usize;
        let length = record.count as usize + RING_PADDING;
        (
            &self.ring[first..first + length],
            &self.ring[first + length..first + 2 * length],
        )
    }

    /// The first face group of shape `index`, if it has one (for prefetching).
    #[inline(always)]
    pub fn first_lanes(&self, index: u32) -> Option<&FaceLanes> {
        let first = *self.first_lane.get(index as usize)? as usize;
        self.lanes.get(first)
    }

    /// The edges of the polygon described by `record` (empty for a circle).
    #[inline(always)]
    pub fn edges_of(&self, record: &ShapeRecord) -> &[EdgeRecord] {
        &self.edges[record.first as usize..(record.first + record.count) as usize]
    }
}
