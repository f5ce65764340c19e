//! The 3D shape library: every shape once, referred to by index.

use glam::Vec3;

use super::kind::Shape;
use super::rounded::{Capsule, RoundedHull};
use super::shapes::{Hull, Sphere};
use crate::core::error::Error;
use crate::core::error::ShapeError;
use crate::core::uid::next_uid;

/// The 3D shape library. Bodies refer to a shape by its index, so ten
/// thousand copies of one particle hull cost one hull.
#[derive(Debug)]
pub struct ShapeSet {
    shapes: Vec<Shape>,
    /// Unique per library; with the length (the library only grows) it tells
    /// a GPU backend whether its copy is current.
    uid: u64,
}

impl Default for ShapeSet {
    fn default() -> ShapeSet {
        ShapeSet {
            shapes: Vec::new(),
            uid: next_uid(),
        }
    }
}

impl Clone for ShapeSet {
    /// A clone is a new library: it gets its own id, since the two may grow apart.
    fn clone(&self) -> ShapeSet {
        ShapeSet {
            shapes: self.shapes.clone(),
            uid: next_uid(),
        }
    }
}

impl ShapeSet {
    /// An empty library.
    pub fn new() -> ShapeSet {
        ShapeSet::default()
    }

    /// Adds a shape and returns its index.
    pub fn push(&mut self, shape: Shape) -> u32 {
        self.shapes.push(shape);
        (self.shapes.len() - 1) as u32
    }

    /// Adds a shape that validation built, or names the index it would
    /// have had with the reason it was refused.
    fn add_built<S: Into<Shape>>(&mut self, built: Result<S, ShapeError>) -> Result<u32, Error> {
        let shape = built.map_err(|reason| Error::Shape {
            index: self.shapes.len(),
            reason,
        })?;
        Ok(self.push(shape.into()))
    }

    /// Validates a point cloud, adds its hull, and returns its index; the
    /// error names the index it would have had.
    pub fn add_hull(&mut self, points: &[Vec3]) -> Result<u32, Error> {
        self.add_built(Hull::new(points))
    }

    /// Adds a box with these half extents.
    pub fn add_cuboid(&mut self, half_extents: Vec3) -> Result<u32, Error> {
        self.add_built(Hull::cuboid(half_extents))
    }

    /// Adds a sphere.
    pub fn add_sphere(&mut self, radius: f32) -> Result<u32, Error> {
        self.add_built(Sphere::new(radius))
    }

    /// Adds a capsule around the segment `a`-`b`.
    pub fn add_capsule(&mut self, a: Vec3, b: Vec3, radius: f32) -> Result<u32, Error> {
        self.add_built(Capsule::new(a, b, radius))
    }

    /// Adds the hull of `points` grown by `radius` (0: a plain hull).
    pub fn add_rounded_hull(&mut self, points: &[Vec3], radius: f32) -> Result<u32, Error> {
        if radius == 0.0 {
            return self.add_hull(points);
        }
        self.add_built(RoundedHull::new(points, radius))
    }

    /// Adds a box with these half extents grown by `radius` (0: a plain box).
    pub fn add_rounded_cuboid(&mut self, half_extents: Vec3, radius: f32) -> Result<u32, Error> {
        if radius == 0.0 {
            return self.add_cuboid(half_extents);
        }
        self.add_built(RoundedHull::cuboid(half_extents, radius))
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

    /// An id unique to this library (clones get their own).
    pub fn uid(&self) -> u64 {
        self.uid
    }
}
