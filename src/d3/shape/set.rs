//! The 3D shape library: every shape once, referred to by index.

use glam::Vec3;

use super::shapes::{Hull, Shape, Sphere};
use crate::core::error::Error;
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

    /// Validates a point cloud, adds its hull, and returns its index; the
    /// error names the index it would have had.
    pub fn add_hull(&mut self, points: &[Vec3]) -> Result<u32, Error> {
        let hull = Hull::new(points).map_err(|reason| Error::Shape {
            index: self.shapes.len(),
            reason,
        })?;
        Ok(self.push(Shape::Hull(hull)))
    }

    /// Adds a box with these half extents.
    pub fn add_cuboid(&mut self, half_extents: Vec3) -> Result<u32, Error> {
        let hull = Hull::cuboid(half_extents).map_err(|reason| Error::Shape {
            index: self.shapes.len(),
            reason,
        })?;
        Ok(self.push(Shape::Hull(hull)))
    }

    /// Adds a sphere.
    pub fn add_sphere(&mut self, radius: f32) -> Result<u32, Error> {
        let sphere = Sphere::new(radius).map_err(|reason| Error::Shape {
            index: self.shapes.len(),
            reason,
        })?;
        Ok(self.push(Shape::Sphere(sphere)))
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
