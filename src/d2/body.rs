//! Bodies: a shape placed in the world, with mass and velocity.

use glam::Vec2;

use crate::core::error::BodyError;
use crate::core::limits::MAX_COORDINATE;
use crate::d2::math::Transform;

/// A rigid body. `position` is where the shape's local origin sits in the
/// world and `angle` (radians, counter-clockwise) its rotation about it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// Index into the [`ShapeSet`](crate::d2::ShapeSet).
    pub shape: u32,
    /// Where the shape's local origin sits in the world.
    pub position: Vec2,
    /// Rotation about the local origin, in radians, counter-clockwise.
    pub angle: f32,
    /// Inverse mass; 0 makes the body static (it never moves).
    pub inv_mass: f32,
    /// Velocity of the centre of mass.
    pub velocity: Vec2,
    /// Angular velocity about the centre of mass, radians per second.
    pub angular_velocity: f32,
}

impl Body {
    /// A dynamic body of unit mass at rest.
    pub fn new(shape: u32, position: Vec2, angle: f32) -> Body {
        Body {
            shape,
            position,
            angle,
            inv_mass: 1.0,
            velocity: Vec2::ZERO,
            angular_velocity: 0.0,
        }
    }

    /// A static body (inverse mass 0).
    pub fn fixed(shape: u32, position: Vec2, angle: f32) -> Body {
        Body {
            inv_mass: 0.0,
            ..Body::new(shape, position, angle)
        }
    }

    /// The same body with another inverse mass.
    pub fn with_inv_mass(self, inv_mass: f32) -> Body {
        Body { inv_mass, ..self }
    }

    /// Whether the body never moves (inverse mass 0).
    pub fn is_static(&self) -> bool {
        self.inv_mass == 0.0
    }

    /// Its transform: rotation by `angle`, then translation to `position`.
    pub fn transform(&self) -> Transform {
        Transform::new(self.position, self.angle)
    }

    /// Checks the body against a library of `shapes` shapes.
    pub fn validate(&self, shapes: usize) -> Result<(), BodyError> {
        if self.shape as usize >= shapes {
            return Err(BodyError::MissingShape {
                shape: self.shape,
                shapes,
            });
        }
        let fields = [
            ("position", self.position.is_finite()),
            ("angle", self.angle.is_finite()),
            ("inverse mass", self.inv_mass.is_finite()),
            ("velocity", self.velocity.is_finite()),
            ("angular velocity", self.angular_velocity.is_finite()),
        ];
        if let Some((field, _)) = fields.iter().find(|(_, finite)| !finite) {
            return Err(BodyError::NotFinite { field });
        }
        if self.position.abs().max_element() > MAX_COORDINATE {
            return Err(BodyError::TooFar {
                x: self.position.x,
                y: self.position.y,
                max: MAX_COORDINATE,
            });
        }
        if self.inv_mass < 0.0 {
            return Err(BodyError::NegativeInvMass {
                inv_mass: self.inv_mass,
            });
        }
        Ok(())
    }
}
