//! One 3D pair, no batch: [`collide_shapes`].

use glam::Vec3;

use super::manifold::{ContactPoint, Manifold, contact_points};
use super::math::Transform;
use super::sat;
use super::shape::kind::Shape;
use super::types::{Axis, EdgeSearch, EdgeStats, Hit};

/// The contact of two overlapping (or, with a margin, nearly touching) 3D
/// shapes: the minimum translation vector and one to four contact points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Unit vector from A to B: moving B by `normal * depth` makes them touch.
    pub normal: Vec3,
    /// Penetration depth; negative for a pair within the margin but apart.
    pub depth: f32,
    /// The features the normal came from.
    pub axis: Axis,
    manifold: Manifold,
}

impl Contact {
    /// The contact points, midway between the surfaces, each with its own
    /// depth and feature id.
    pub fn points(&self) -> &[ContactPoint] {
        self.manifold.points()
    }
}

/// Tests 3D shape `a` placed by `xf_a` against shape `b` placed by `xf_b`:
/// the same SAT, normal and contact points as the batch paths. A negative or
/// non-finite margin counts as 0; the transforms must be finite.
///
/// ```
/// use gpusat::d3::{Hull, Shape, Transform, collide_shapes};
/// use gpusat::glam::{Quat, Vec3};
///
/// let cube = Shape::from(Hull::cuboid(Vec3::splat(0.5)).unwrap());
/// let below = Transform::new(Vec3::ZERO, Quat::IDENTITY);
/// let above = Transform::new(Vec3::new(0.1, 0.9, 0.2), Quat::IDENTITY);
/// let contact = collide_shapes(&cube, &below, &cube, &above, 0.0).expect("they overlap");
/// assert_eq!(contact.normal, Vec3::Y);
/// assert!((contact.depth - 0.1).abs() < 1e-6);
/// assert_eq!(contact.points().len(), 4, "a box resting on a box");
/// ```
pub fn collide_shapes(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    margin: f32,
) -> Option<Contact> {
    let margin = if margin.is_finite() && margin > 0.0 {
        margin
    } else {
        0.0
    };
    let result = sat::collide_pair(
        *xf_a,
        *xf_b,
        a,
        b,
        margin,
        EdgeSearch::Pruned,
        &mut EdgeStats::default(),
    )?;
    let normal = sat::axis_normal((*xf_a, a), (*xf_b, b), result.axis, EdgeSearch::Pruned);
    let hit = Hit {
        pair: 0,
        a: 0,
        b: 1,
        normal,
        depth: -result.separation,
        axis: result.axis,
    };
    let mut manifold = Manifold::new(0, 0, 1, normal);
    contact_points(&mut manifold, (*xf_a, a), (*xf_b, b), &hit, margin);
    Some(Contact {
        normal,
        depth: hit.depth,
        axis: result.axis,
        manifold,
    })
}
