//! Segments and capsules: a segment core, bare or grown by a radius.
//!
//! The narrowphase takes a segment `[a, b]` as a polygon of two vertices
//! and two faces, the edge from `a` to `b` with the outward normal
//! `n = perp(b - a)` (the right-hand side, as a counter-clockwise polygon's
//! edges have) and the edge back with `-n`. The SAT over those two faces
//! and the other shape's is the SAT of the segment; the ends' own axes
//! (a capsule's round caps) come from the exact closest features once the
//! cores are apart (`sat/rounded.rs`).

use glam::Vec2;

use super::mass::mass_properties;
use super::shapes::{EdgeRecord, core_edges};
use crate::core::error::ShapeError;
use crate::core::limits::check_segment_core;

/// A validated segment from `a` to `b` in its local frame: a shape with no
/// area (Box2D's `b2Segment`), for ground lines and walls. Build one with
/// [`Segment::new`].
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    points: [Vec2; 2],
    normals: [Vec2; 2],
    edges: [EdgeRecord; 2],
    size: f32,
    unit_inertia: f32,
}

impl Segment {
    /// The segment from `a` to `b`: finite points at least
    /// [`MIN_SHAPE_SIZE`](crate::core::limits::MIN_SHAPE_SIZE) apart.
    pub fn new(a: Vec2, b: Vec2) -> Result<Segment, ShapeError> {
        Segment::with_radius(a, b, 0.0).map(|(segment, _)| segment)
    }

    /// The segment and its mass properties grown by `radius` (checked
    /// against the segment's length).
    fn with_radius(a: Vec2, b: Vec2, radius: f32) -> Result<(Segment, [f32; 2]), ShapeError> {
        for (vertex, p) in [a, b].into_iter().enumerate() {
            if !p.is_finite() {
                return Err(ShapeError::NonFinite {
                    vertex,
                    x: p.x,
                    y: p.y,
                });
            }
        }
        let points = [a.as_dvec2(), b.as_dvec2()];
        let length = (points[1] - points[0]).length();
        check_segment_core(length, radius)?;
        let mass = mass_properties(&points, f64::from(radius));
        let (normals, edges) = core_edges(&points);
        let segment = Segment {
            points: [a, b],
            normals: [normals[0], normals[1]],
            edges: [edges[0], edges[1]],
            size: (0.5 * length + f64::from(radius)) as f32,
            unit_inertia: mass.unit_inertia as f32,
        };
        Ok((segment, [mass.area as f32, mass.unit_inertia as f32]))
    }

    /// Its two points.
    pub fn points(&self) -> [Vec2; 2] {
        self.points
    }

    /// The outward unit normals of its two faces: from `a` to `b`, and back.
    pub fn normals(&self) -> [Vec2; 2] {
        self.normals
    }

    /// Its two faces, as the narrowphase reads them.
    pub fn edges(&self) -> &[EdgeRecord] {
        &self.edges
    }

    /// Its midpoint.
    pub fn centroid(&self) -> Vec2 {
        0.5 * (self.points[0] + self.points[1])
    }

    /// Half its length: the length scale tolerances are relative to.
    pub fn size(&self) -> f32 {
        self.size
    }

    /// A thin rod's rotational inertia per unit mass (`length^2 / 12`).
    pub fn unit_inertia(&self) -> f32 {
        self.unit_inertia
    }
}

/// A validated capsule: the points within `radius` of the segment from `a`
/// to `b` (Box2D's `b2Capsule`, parry's `Capsule`). Build one with
/// [`Capsule::new`].
#[derive(Clone, Debug, PartialEq)]
pub struct Capsule {
    segment: Segment,
    radius: f32,
    area: f32,
}

impl Capsule {
    /// The capsule around `a`-`b` of `radius`: finite points, a positive
    /// finite radius, the points at least `radius /`
    /// [`MAX_RADIUS_RATIO`](super::shapes::MAX_RADIUS_RATIO) apart (closer,
    /// it is a circle).
    pub fn new(a: Vec2, b: Vec2, radius: f32) -> Result<Capsule, ShapeError> {
        if !radius.is_finite() {
            return Err(ShapeError::RadiusNotFinite { radius });
        }
        if radius <= 0.0 {
            return Err(ShapeError::RadiusNotPositive { radius });
        }
        let (mut segment, [area, unit_inertia]) = Segment::with_radius(a, b, radius)?;
        segment.unit_inertia = unit_inertia;
        Ok(Capsule {
            segment,
            radius,
            area,
        })
    }

    /// Its core segment's points.
    pub fn points(&self) -> [Vec2; 2] {
        self.segment.points
    }

    /// The radius.
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// Its core's two faces, as the narrowphase reads them.
    pub fn edges(&self) -> &[EdgeRecord] {
        &self.segment.edges
    }

    /// The enclosed area: `2 r l + pi r^2`.
    pub fn area(&self) -> f32 {
        self.area
    }

    /// Its centre (the core's midpoint).
    pub fn centroid(&self) -> Vec2 {
        self.segment.centroid()
    }

    /// Half the core's length plus the radius.
    pub fn size(&self) -> f32 {
        self.segment.size
    }

    /// Rotational inertia about the centre per unit mass.
    pub fn unit_inertia(&self) -> f32 {
        self.segment.unit_inertia
    }
}
