//! 3D bodies: a shape placed in the world, with mass and velocity.

use glam::{Quat, Vec3};

use super::math::Transform;
use crate::core::error::BodyError;
use crate::core::limits::MAX_COORDINATE;

/// A rigid body in 3D. `position` is where the shape's local origin sits in
/// the world and `rotation` (a unit quaternion) its orientation about it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// Index into the [`ShapeSet`](super::ShapeSet).
    pub shape: u32,
    /// Where the shape's local origin sits in the world.
    pub position: Vec3,
    /// Orientation about the local origin; normalised where it is used.
    pub rotation: Quat,
    /// Inverse mass; 0 makes the body static (it never moves).
    pub inv_mass: f32,
    /// Velocity of the centre of mass.
    pub velocity: Vec3,
    /// Angular velocity about the centre of mass, radians per second.
    pub angular_velocity: Vec3,
}

impl Body {
    /// A dynamic body of unit mass at rest.
    pub fn new(shape: u32, position: Vec3, rotation: Quat) -> Body {
        Body {
            shape,
            position,
            rotation,
            inv_mass: 1.0,
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
        }
    }

    /// A static body (inverse mass 0).
    pub fn fixed(shape: u32, position: Vec3, rotation: Quat) -> Body {
        Body {
            inv_mass: 0.0,
            ..Body::new(shape, position, rotation)
        }
    }

    /// The body with inverse mass `inv_mass` (0: static).
    pub fn with_inv_mass(self, inv_mass: f32) -> Body {
        Body { inv_mass, ..self }
    }

    /// Whether the body never moves (inverse mass 0).
    pub fn is_static(&self) -> bool {
        self.inv_mass == 0.0
    }

    /// Its transform, with the rotation normalised.
    pub fn transform(&self) -> Transform {
        Transform::new(self.position, self.rotation.normalize())
    }

    /// Checks the body against a library of `shapes` shapes.
    pub fn validate(&self, shapes: usize) -> Result<(), BodyError> {
        if self.shape as usize >= shapes {
            return Err(BodyError::MissingShape {
                shape: self.shape,
                shapes,
            });
        }
        let q = self.rotation;
        if !(q.is_finite() && q.length_squared() > 1e-30) {
            return Err(BodyError::Rotation {
                x: q.x,
                y: q.y,
                z: q.z,
                w: q.w,
            });
        }
        let fields = [
            ("position", self.position.is_finite()),
            ("inverse mass", self.inv_mass.is_finite()),
            ("velocity", self.velocity.is_finite()),
            ("angular velocity", self.angular_velocity.is_finite()),
        ];
        if let Some((field, _)) = fields.iter().find(|(_, finite)| !finite) {
            return Err(BodyError::NotFinite { field });
        }
        if self.position.abs().max_element() > MAX_COORDINATE {
            return Err(BodyError::TooFar3 {
                x: self.position.x,
                y: self.position.y,
                z: self.position.z,
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
