//! The shape library: every shape once, and the flat records the
//! narrowphase backends read.
//!
//! Polygons are kept three ways: one flat array of [`EdgeRecord`]s (vertex
//! and the outward unit normal of the edge that starts there, 16 bytes),
//! which is exactly what the GPU kernel reads; groups of eight faces as
//! structure of arrays ([`FaceLanes`]) for the vectorised CPU path; and each
//! polygon's vertices as a padded ring for its merged search. One
//! [`ShapeRecord`] per shape says where its data is.

use bytemuck::{Pod, Zeroable};
use glam::Vec2;

use super::capsule::{Capsule, Segment};
use super::kind::{Faces, Shape, ShapeView};
use super::shapes::{Circle, EdgeRecord, Polygon};
use crate::core::error::{Error, ShapeError};
use crate::core::uid::next_uid;

/// One shape as the narrowphase reads it: a core of `count` faces (2 for a
/// segment; 0 marks a circle's point core) grown by `radius`. Mirrored by
/// `ShapeRecord` in `shaders/d2/sat.wgsl`.
#[doc(hidden)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ShapeRecord {
    /// Index of the polygon's first [`EdgeRecord`].
    pub first: u32,
    /// Number of vertices; 2 for a segment or capsule; 0 for a circle.
    pub count: u32,
    /// The radius the core is grown by: a circle's, a capsule's, a rounded
    /// polygon's; 0 for a plain polygon or a segment.
    pub radius: f32,
    /// [`Shape::size`], for tolerances.
    pub size: f32,
}

/// Eight faces of a polygon, structure of arrays, for the vectorised CPU
/// narrowphase: the faces' normals and vertices (which also serve as the
/// polygon's vertices when it is the other shape). 128 bytes, two cache
/// lines. Lanes past the polygon's last face repeat face 0 and are never
/// read.
#[doc(hidden)]
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Default)]
pub struct FaceLanes {
    /// Normals' x.
    pub nx: [f32; 8],
    /// Normals' y.
    pub ny: [f32; 8],
    /// Vertices' x.
    pub vx: [f32; 8],
    /// Vertices' y.
    pub vy: [f32; 8],
}

/// Faces per [`FaceLanes`] group.
#[doc(hidden)]
pub const FACE_LANES: usize = 8;

/// Vertices repeated after a polygon's last in its ring (see [`ShapeSet::ring_of`]).
#[doc(hidden)]
pub const RING_PADDING: usize = 2 * FACE_LANES;

/// A polygon's faces, read from its face groups (which the narrowphase has
/// just brought into cache).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct FaceView<'a> {
    lanes: &'a [FaceLanes],
    count: u32,
}

impl Faces for FaceView<'_> {
    #[inline(always)]
    fn count(&self) -> u32 {
        self.count
    }

    #[inline(always)]
    fn vertex(&self, i: u32) -> Vec2 {
        let group = &self.lanes[i as usize / FACE_LANES];
        let lane = i as usize % FACE_LANES;
        Vec2::new(group.vx[lane], group.vy[lane])
    }

    #[inline(always)]
    fn normal(&self, i: u32) -> Vec2 {
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
    /// Shapes with a segment core (capsules, segments), and circles: where
    /// there are none, the CPU backends skip looking for pairs of them.
    segments: u32,
    circles: u32,
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
            segments: 0,
            circles: 0,
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
            segments: self.segments,
            circles: self.circles,
        }
    }
}

impl ShapeSet {
    /// An empty library.
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
        let record = match shape.edges() {
            Some(edges) => {
                let count = edges.len();
                for coordinate in [|v: Vec2| v.x, |v: Vec2| v.y] {
                    self.ring.extend(
                        (0..count + RING_PADDING).map(|i| coordinate(edges[i % count].vertex)),
                    );
                }
                for group in 0..count.div_ceil(FACE_LANES) {
                    let mut lanes = FaceLanes::default();
                    for lane in 0..FACE_LANES {
                        let i = group * FACE_LANES + lane;
                        let edge = edges[if i < count { i } else { 0 }];
                        lanes.nx[lane] = edge.normal.x;
                        lanes.ny[lane] = edge.normal.y;
                        lanes.vx[lane] = edge.vertex.x;
                        lanes.vy[lane] = edge.vertex.y;
                    }
                    self.lanes.push(lanes);
                }
                let first = self.edges.len() as u32;
                self.edges.extend_from_slice(edges);
                ShapeRecord {
                    first,
                    count: count as u32,
                    radius: shape.radius(),
                    size: shape.size(),
                }
            }
            None => ShapeRecord {
                first: 0,
                count: 0,
                radius: shape.radius(),
                size: shape.size(),
            },
        };
        self.segments += u32::from(record.count == 2);
        self.circles += u32::from(record.count == 0);
        self.shapes.push(shape);
        self.records.push(record);
        index
    }

    /// Whether the library holds a shape with a segment core (a capsule or
    /// a segment).
    #[inline(always)]
    #[doc(hidden)]
    pub fn has_segments(&self) -> bool {
        self.segments > 0
    }

    /// Whether the library holds a circle.
    #[inline(always)]
    #[doc(hidden)]
    pub fn has_circles(&self) -> bool {
        self.circles > 0
    }

    /// Validates and adds a polygon; the error names the index it would have had.
    pub fn add_polygon(&mut self, points: &[Vec2]) -> Result<u32, Error> {
        self.add_built(Polygon::new(points).map(Shape::Polygon))
    }

    /// Validates and adds a polygon grown by `radius` (0: a plain polygon);
    /// the error names the index it would have had.
    pub fn add_rounded_polygon(&mut self, points: &[Vec2], radius: f32) -> Result<u32, Error> {
        let polygon = if radius == 0.0 {
            Polygon::new(points)
        } else {
            Polygon::rounded(points, radius)
        };
        self.add_built(polygon.map(Shape::Polygon))
    }

    /// Validates and adds a capsule; the error names the index it would
    /// have had.
    pub fn add_capsule(&mut self, a: Vec2, b: Vec2, radius: f32) -> Result<u32, Error> {
        self.add_built(Capsule::new(a, b, radius).map(Shape::Capsule))
    }

    /// Validates and adds a segment; the error names the index it would
    /// have had.
    pub fn add_segment(&mut self, a: Vec2, b: Vec2) -> Result<u32, Error> {
        self.add_built(Segment::new(a, b).map(Shape::Segment))
    }

    /// Validates and adds a circle; the error names the index it would have had.
    pub fn add_circle(&mut self, radius: f32) -> Result<u32, Error> {
        self.add_built(Circle::new(radius).map(Shape::Circle))
    }

    /// A validated shape added, or its error naming the index it would have
    /// had.
    fn add_built(&mut self, built: Result<Shape, ShapeError>) -> Result<u32, Error> {
        let shape = built.map_err(|reason| Error::Shape {
            index: self.shapes.len(),
            reason,
        })?;
        Ok(self.push(shape))
    }

    /// Shapes in the library.
    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    /// Whether the library has no shape.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// Shape `index`, if there is one.
    pub fn get(&self, index: u32) -> Option<&Shape> {
        self.shapes.get(index as usize)
    }

    /// Every shape, in index order.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// What the narrowphase reads of shape `index` (which must exist).
    #[inline(always)]
    pub(crate) fn view(&self, index: u32) -> ShapeView<'_> {
        let record = &self.records[index as usize];
        if record.count == 0 {
            ShapeView::Circle {
                radius: record.radius,
            }
        } else {
            ShapeView::Polygon {
                edges: self.edges_of(record),
                size: record.size,
                radius: record.radius,
            }
        }
    }

    /// One record per shape, in index order.
    #[doc(hidden)]
    pub fn records(&self) -> &[ShapeRecord] {
        &self.records
    }

    /// Every polygon's edges, back to back.
    #[doc(hidden)]
    pub fn edges(&self) -> &[EdgeRecord] {
        &self.edges
    }

    /// The face groups of shape `index` (empty for a circle).
    #[inline(always)]
    #[doc(hidden)]
    pub fn lanes_of(&self, index: u32, record: &ShapeRecord) -> &[FaceLanes] {
        let first = self.first_lane[index as usize] as usize;
        &self.lanes[first..first + (record.count as usize).div_ceil(FACE_LANES)]
    }

    /// The faces of polygon `index` (no faces for a circle).
    #[inline(always)]
    #[doc(hidden)]
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
    #[doc(hidden)]
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
    #[doc(hidden)]
    pub fn first_lanes(&self, index: u32) -> Option<&FaceLanes> {
        let first = *self.first_lane.get(index as usize)? as usize;
        self.lanes.get(first)
    }

    /// The edges of the polygon described by `record` (empty for a circle).
    #[inline(always)]
    #[doc(hidden)]
    pub fn edges_of(&self, record: &ShapeRecord) -> &[EdgeRecord] {
        &self.edges[record.first as usize..(record.first + record.count) as usize]
    }
}
