//! Rotations and rigid transforms in 3D, single precision.
//!
//! Every operation is written out component by component in a fixed order,
//! as in 2D, so that the CPU reference and the WGSL kernel (its twin) do the
//! same arithmetic in the same order. A body's rotation is stored as a unit
//! quaternion and turned into a matrix once per body; everything after that
//! is matrix arithmetic.

use glam::{Quat, Vec3};

/// A rotation matrix, by columns: `rotate(r, v) = v.x c0 + v.y c1 + v.z c2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rot {
    /// The image of the x axis.
    pub c0: Vec3,
    /// The image of the y axis.
    pub c1: Vec3,
    /// The image of the z axis.
    pub c2: Vec3,
}

impl Rot {
    /// No rotation.
    pub const IDENTITY: Rot = Rot {
        c0: Vec3::X,
        c1: Vec3::Y,
        c2: Vec3::Z,
    };

    /// The rotation of a unit quaternion.
    pub fn from_quat(q: Quat) -> Rot {
        let (x, y, z, w) = (q.x, q.y, q.z, q.w);
        let (x2, y2, z2) = (x + x, y + y, z + z);
        let (xx, yy, zz) = (x * x2, y * y2, z * z2);
        let (xy, xz, yz) = (x * y2, x * z2, y * z2);
        let (wx, wy, wz) = (w * x2, w * y2, w * z2);
        Rot {
            c0: Vec3::new(1.0 - (yy + zz), xy + wz, xz - wy),
            c1: Vec3::new(xy - wz, 1.0 - (xx + zz), yz + wx),
            c2: Vec3::new(xz + wy, yz - wx, 1.0 - (xx + yy)),
        }
    }
}

/// A rigid transform: rotate, then translate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Translation: where the local origin lands.
    pub p: Vec3,
    /// Rotation about the local origin.
    pub r: Rot,
}

impl Transform {
    /// The identity transform.
    pub const IDENTITY: Transform = Transform {
        p: Vec3::ZERO,
        r: Rot::IDENTITY,
    };

    /// Rotation by the unit quaternion `rotation`, then translation to `position`.
    pub fn new(position: Vec3, rotation: Quat) -> Transform {
        Transform {
            p: position,
            r: Rot::from_quat(rotation),
        }
    }
}

/// `a . b`, in the kernel's order.
#[inline(always)]
pub fn dot3(a: Vec3, b: Vec3) -> f32 {
    (a.x * b.x + a.y * b.y) + a.z * b.z
}

/// `a x b`.
#[inline(always)]
pub fn cross3(a: Vec3, b: Vec3) -> Vec3 {
    Vec3::new(
        a.y * b.z - a.z * b.y,
        a.z * b.x - a.x * b.z,
        a.x * b.y - a.y * b.x,
    )
}

/// `|v|`, in the kernel's order.
#[inline(always)]
pub fn length3(v: Vec3) -> f32 {
    dot3(v, v).sqrt()
}

/// `r * v`.
#[inline(always)]
pub fn rotate(r: Rot, v: Vec3) -> Vec3 {
    Vec3::new(
        (r.c0.x * v.x + r.c1.x * v.y) + r.c2.x * v.z,
        (r.c0.y * v.x + r.c1.y * v.y) + r.c2.y * v.z,
        (r.c0.z * v.x + r.c1.z * v.y) + r.c2.z * v.z,
    )
}

/// `r^T * v`.
#[inline(always)]
pub fn inv_rotate(r: Rot, v: Vec3) -> Vec3 {
    Vec3::new(dot3(r.c0, v), dot3(r.c1, v), dot3(r.c2, v))
}

/// `xf * v`: a point from the transform's local frame into its parent frame.
#[inline(always)]
pub fn transform_point(xf: Transform, v: Vec3) -> Vec3 {
    rotate(xf.r, v) + xf.p
}

/// `xf^-1 * v`: a point from the parent frame into the transform's local frame.
#[inline(always)]
pub fn inv_transform_point(xf: Transform, v: Vec3) -> Vec3 {
    inv_rotate(xf.r, v - xf.p)
}

/// The number of [`direction_cell`]s: six cube faces of sixteen cells.
pub const DIRECTION_CELLS: usize = 96;

/// Which of 96 cells of the unit cube's surface the ray along `v` crosses:
/// the cube face of `v`'s largest component (`x` before `y` before `z` on a
/// tie; positive, then negative: faces 0 to 5), then a 4 x 4 grid on that
/// face, the other two components `(u, w)` (`(y, z)`, `(z, x)` or
/// `(x, y)`) each compared with `-m / 2`, `0` and `m / 2` (`m` the largest
/// component's magnitude), the two column numbers interleaved bit by bit
/// (a Z-order curve):
///
/// ```text
/// cu = [u > -m/2] + [u > 0] + [u > m/2]        (0 to 3; cw likewise)
/// cell = 16 face + (cu bit 0) + 2 (cw bit 0) + 4 (cu bit 1) + 8 (cw bit 1)
/// ```
///
/// Comparisons and a halving only, so every backend computes the same cell
/// from the same `v` (a zero `v` is cell 0). The hull builder orders a
/// hull's faces by the cells of their normals, and a face query starts at
/// the faces whose normals share the cell of the direction to the other
/// hull (`sat/faces.rs`).
#[inline(always)]
pub fn direction_cell(v: Vec3) -> u32 {
    let (ax, ay, az) = (v.x.abs(), v.y.abs(), v.z.abs());
    let (face, u, w, m) = if ax >= ay && ax >= az {
        (u32::from(v.x < 0.0), v.y, v.z, ax)
    } else if ay >= az {
        (2 + u32::from(v.y < 0.0), v.z, v.x, ay)
    } else {
        (4 + u32::from(v.z < 0.0), v.x, v.y, az)
    };
    let half = 0.5 * m;
    let column = |x: f32| u32::from(x > -half) + u32::from(x > 0.0) + u32::from(x > half);
    let (cu, cw) = (column(u), column(w));
    16 * face + ((cu & 1) | (cw & 1) << 1 | (cu & 2) << 1 | (cw & 2) << 2)
}

/// `a^-1 b`: the transform that takes points from B's local frame into A's.
///
/// As in 2D, `b.p - a.p` is the only subtraction of world coordinates: for
/// two bodies close enough to touch it is exact far from the origin too, so
/// a pair computes the same small numbers wherever it is.
#[inline(always)]
pub fn inv_mul_transforms(a: Transform, b: Transform) -> Transform {
    Transform {
        p: inv_rotate(a.r, b.p - a.p),
        r: Rot {
            c0: inv_rotate(a.r, b.r.c0),
            c1: inv_rotate(a.r, b.r.c1),
            c2: inv_rotate(a.r, b.r.c2),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inv_mul_maps_b_local_points_into_a_local_frame() {
        let a = Transform::new(
            Vec3::new(3.0, -2.0, 1.0),
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1),
        );
        let b = Transform::new(
            Vec3::new(4.5, -1.0, 0.5),
            Quat::from_euler(glam::EulerRot::XYZ, -1.2, 0.4, 0.2),
        );
        let rel = inv_mul_transforms(a, b);
        let local_b = Vec3::new(0.25, 0.5, -0.75);
        let world = transform_point(b, local_b);
        let via_rel = transform_point(rel, local_b);
        let expected = inv_transform_point(a, world);
        assert!(
            (via_rel - expected).length() < 1e-5,
            "a^-1 b maps {local_b} to {via_rel}, expected {expected}"
        );
        let q = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
        let v = Vec3::new(1.0, 2.0, 3.0);
        assert!((rotate(Rot::from_quat(q), v) - q * v).length() < 1e-5);
    }
}
