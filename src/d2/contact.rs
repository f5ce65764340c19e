//! One pair, no batch: [`collide_shapes`].
//!
//! Box2D answers "do these two shapes touch, and where?" with one call
//! (`b2CollidePolygons`); so does this module. It runs exactly what the
//! batch backends run for one pair — the same SAT, the same normal rebuilt
//! from the chosen feature, the same clipping — so its answer is bit for bit
//! the batch's for the same shapes and transforms (`tests/it/d2/contact.rs` checks
//! it on many random pairs). The batch layer ([`Batch`](crate::d2::Batch),
//! [`collide_cpu`](crate::d2::collide_cpu), the GPU) sits on top of the same
//! functions.

use glam::Vec2;

use crate::d2::manifold::{ContactPoint, ContactSide, Manifold, contact_points};
use crate::d2::math::Transform;
use crate::d2::sat::{self, CPU_MERGE_THRESHOLD};
use crate::d2::shape::{EdgeRecord, Shape};
use crate::d2::types::{Axis, Hit};

/// The contact of two overlapping (or, with a margin, nearly touching)
/// shapes: the minimum translation vector and the contact points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Unit vector from A to B: moving B by `normal * depth` makes them touch.
    pub normal: Vec2,
    /// Penetration depth; negative for a pair within the margin but apart.
    pub depth: f32,
    /// The feature the normal came from.
    pub axis: Axis,
    points: [ContactPoint; 2],
    count: u8,
}

impl Contact {
    /// The one or two contact points, midway between the surfaces, each with
    /// its own depth and feature id.
    pub fn points(&self) -> &[ContactPoint] {
        &self.points[..self.count as usize]
    }
}

/// Tests shape `a` placed by `xf_a` against shape `b` placed by `xf_b`.
///
/// Returns the contact when the pair's depth exceeds `-margin` (with
/// `margin` 0: when they overlap), `None` otherwise. A negative or non-finite
/// margin counts as 0. The transforms must be finite (a
/// [`Body`](crate::d2::Body)'s transform is, once validated).
///
/// ```
/// use gpusat::{Polygon, Shape, Transform, collide_shapes};
/// use glam::Vec2;
///
/// let square = Shape::from(Polygon::rectangle(1.0, 1.0).unwrap());
/// let a = Transform::new(Vec2::ZERO, 0.0);
/// let b = Transform::new(Vec2::new(1.5, 0.0), 0.0);
/// let contact = collide_shapes(&square, &a, &square, &b, 0.0).expect("they overlap");
/// assert_eq!(contact.normal, Vec2::X);
/// assert!((contact.depth - 0.5).abs() < 1e-6);
/// assert_eq!(contact.points().len(), 2);
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
        a.view(),
        b.view(),
        margin,
        CPU_MERGE_THRESHOLD,
    )?;
    let normal = sat::axis_normal(normal_side(a, *xf_a), normal_side(b, *xf_b), result.axis);
    let hit = Hit {
        pair: 0,
        a: 0,
        b: 1,
        normal,
        depth: -result.separation,
        axis: result.axis,
    };
    let mut manifold = Manifold::new(0, 0, 1, normal);
    contact_points(
        &mut manifold,
        (*xf_a, contact_side(a)),
        (*xf_b, contact_side(b)),
        &hit,
        margin,
    );
    Some(Contact {
        normal,
        depth: hit.depth,
        axis: result.axis,
        points: manifold.points,
        count: manifold.count,
    })
}

fn normal_side(shape: &Shape, xf: Transform) -> sat::Side<&[EdgeRecord]> {
    sat::Side {
        xf,
        faces: shape.edges(),
        radius: shape.radius(),
    }
}

fn contact_side(shape: &Shape) -> ContactSide<&[EdgeRecord]> {
    ContactSide {
        faces: shape.edges(),
        radius: shape.radius(),
        size: shape.size(),
    }
}
