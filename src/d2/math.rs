//! Rotations and rigid transforms in single precision.
//!
//! These few functions are the arithmetic that the CPU reference and the WGSL
//! kernel share. `shaders/d2/sat.wgsl` repeats them with the same names and the
//! same order of operations, so that both produce the same bits on an adapter
//! that neither reassociates nor fuses (lavapipe does neither).

use glam::Vec2;

/// A rotation stored as its cosine and sine, computed once per body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rot {
    /// Cosine of the angle.
    pub c: f32,
    /// Sine of the angle.
    pub s: f32,
}

impl Rot {
    /// No rotation.
    pub const IDENTITY: Rot = Rot { c: 1.0, s: 0.0 };

    /// The rotation by `angle` radians, counter-clockwise.
    pub fn from_angle(angle: f32) -> Rot {
        let (s, c) = angle.sin_cos();
        Rot { c, s }
    }

    /// The angle in radians, in (-pi, pi].
    pub fn angle(self) -> f32 {
        self.s.atan2(self.c)
    }
}

/// A rigid transform: rotate, then translate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Translation: where the local origin lands.
    pub p: Vec2,
    /// Rotation about the local origin.
    pub q: Rot,
}

impl Transform {
    /// The identity transform.
    pub const IDENTITY: Transform = Transform {
        p: Vec2::ZERO,
        q: Rot::IDENTITY,
    };

    /// Rotation by `angle` radians about the local origin, then translation
    /// to `position`.
    pub fn new(position: Vec2, angle: f32) -> Transform {
        Transform {
            p: position,
            q: Rot::from_angle(angle),
        }
    }
}

/// `q * v`.
#[inline(always)]
pub fn rotate(q: Rot, v: Vec2) -> Vec2 {
    Vec2::new(q.c * v.x - q.s * v.y, q.s * v.x + q.c * v.y)
}

/// `q^T * v`.
#[inline(always)]
pub fn inv_rotate(q: Rot, v: Vec2) -> Vec2 {
    Vec2::new(q.c * v.x + q.s * v.y, -q.s * v.x + q.c * v.y)
}

/// `xf * v`: a point from the transform's local frame into its parent frame.
///
/// The translation is added before the second product: lavapipe's compiler
/// reassociates the WGSL twin's `(a - b) + p` into `(a + p) - b` (measured),
/// so this order keeps more GPU results bit-identical to the CPU's.
#[inline(always)]
pub fn transform_point(xf: Transform, v: Vec2) -> Vec2 {
    Vec2::new(
        (xf.q.c * v.x + xf.p.x) - xf.q.s * v.y,
        (xf.q.s * v.x + xf.p.y) + xf.q.c * v.y,
    )
}

/// `xf^-1 * v`: a point from the parent frame into the transform's local frame.
#[inline(always)]
pub fn inv_transform_point(xf: Transform, v: Vec2) -> Vec2 {
    inv_rotate(xf.q, v - xf.p)
}

/// `a^-1 * b`: the transform that takes points from B's local frame into A's.
///
/// `b.p - a.p` is the only subtraction of world coordinates in the whole
/// narrowphase. For two bodies that can touch, their positions are within a
/// factor of two of each other wherever they are far from the origin, so this
/// difference is exact (Sterbenz) and a pair at 1e5 units computes on the same
/// small numbers as the same pair at the origin.
#[inline(always)]
pub fn inv_mul_transforms(a: Transform, b: Transform) -> Transform {
    let q = Rot {
        c: a.q.c * b.q.c + a.q.s * b.q.s,
        s: a.q.c * b.q.s - a.q.s * b.q.c,
    };
    let d = b.p - a.p;
    Transform {
        p: inv_rotate(a.q, d),
        q,
    }
}

/// The 2D cross product `a.x * b.y - a.y * b.x`.
#[inline(always)]
pub fn cross(a: Vec2, b: Vec2) -> f32 {
    a.x * b.y - a.y * b.x
}

/// The right-hand perpendicular `(v.y, -v.x)`: the outward normal direction of
/// a counter-clockwise edge `v`.
#[inline(always)]
pub fn right_perp(v: Vec2) -> Vec2 {
    Vec2::new(v.y, -v.x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inv_mul_maps_b_local_points_into_a_local_frame() {
        let a = Transform::new(Vec2::new(3.0, -2.0), 0.7);
        let b = Transform::new(Vec2::new(4.5, -1.0), -1.9);
        let rel = inv_mul_transforms(a, b);
        let local_b = Vec2::new(0.25, 0.5);
        let world = transform_point(b, local_b);
        let via_rel = transform_point(rel, local_b);
        let expected = inv_transform_point(a, world);
        assert!(
            (via_rel - expected).length() < 1e-5,
            "a^-1 b maps {local_b} to {via_rel}, expected {expected}"
        );
    }
}
