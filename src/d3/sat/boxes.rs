//! Faces against a box: the face query in closed form, eight faces at a
//! time, with the answers of the general query bit for bit.
//!
//! A face query (`faces.rs`) takes, for each face of one hull, the other
//! hull's deepest vertex beyond the face's plane moved into the other's
//! frame:
//!
//! ```text
//! n' = R n;  d' = d + n' . t
//! s  = min over vertices w of (n' . w) - d'
//! ```
//!
//! When the other hull is exactly an axis-aligned box in its frame (its
//! eight vertices are the eight corners, each coordinate its axis' lowest
//! or highest value: `HullLanes::cuboid_corners`), its deepest vertex needs
//! no search. `n' . w` is computed as `(n'x wx + n'y wy) + n'z wz`, and
//! rounding is monotonic, so taking for each axis the smaller of the two
//! products (`min(n'x low.x, n'x high.x)`, and so on) makes every partial
//! sum, and the sum, the least over the eight corners: the minimum the scan
//! over the vertices finds, to the bit (the sign of an exact zero aside,
//! as in the lanes). So a face costs two products and a minimum per axis
//! instead of a dot product per vertex, and a box's six faces (one run of
//! eight, which a face query starts at face 0 whatever the direction of the
//! other hull: `faces.rs`, `first_face`) are computed at once, one lane
//! each, from the lanes' face rows. The tie rule and the early exit then
//! take the six separations in order, as the scan does.
//!
//! The face query of any hull of at most eight faces against a box takes
//! it, so two boxes do both ways. Their edge query stays the lanes'
//! (`lanes.rs`), whose closed-form bound of two boxes' edge pairs passes
//! over the whole query on most pairs that touch on a face.

use glam::Vec3;

use super::super::math::Transform;
use super::super::shape::shapes::Hull;
use super::lanes::moved_planes;
use super::separation::Separation;
use crate::core::simd::{Lanes, Portable};
#[cfg(target_arch = "x86_64")]
use crate::core::simd::{avx::Avx, uses_avx};

/// The deepest face of `hull1` against the box `corners` (`(low, high)`,
/// `hull2`'s `HullLanes::cuboid_corners`); `xf` takes `hull1`'s points into
/// the box's frame, and `hull1` has at most eight faces (one run):
/// [`find_max_face_separation`](super::find_max_face_separation)'s result,
/// bit for bit but for the sign of an exact zero and where a corner's
/// height overflows (`+inf` here, the scan's `f32::MAX` there: both past any
/// limit).
///
/// ```text
/// for all faces i of hull1 at once:
///     n' = R n_i;  d' = d_i + n' . t
///     s_i = (min(n'x low.x, n'x high.x) + min(n'y low.y, n'y high.y))
///           + min(n'z low.z, n'z high.z) - d'            # the deepest corner
/// for each face i, in order:
///     tie rule: replace best only when s_i > best + tolerance
///     if s_i >= limit: return (s_i, i)
/// ```
#[inline]
pub(crate) fn box_face_separation(
    hull1: &Hull,
    corners: (Vec3, Vec3),
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    #[cfg(target_arch = "x86_64")]
    if uses_avx() {
        // SAFETY: AVX was detected on this CPU.
        return unsafe { box_face_separation_avx(hull1, corners, xf, tolerance, limit) };
    }
    box_face_separation_with::<Portable>(hull1, corners, xf, tolerance, limit)
}

/// [`box_face_separation`] on the portable lanes, whatever the CPU (for the
/// tests).
#[cfg(test)]
fn box_face_separation_portable(
    hull1: &Hull,
    corners: (Vec3, Vec3),
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    box_face_separation_with::<Portable>(hull1, corners, xf, tolerance, limit)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn box_face_separation_avx(
    hull1: &Hull,
    corners: (Vec3, Vec3),
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    box_face_separation_with::<Avx>(hull1, corners, xf, tolerance, limit)
}

#[inline(always)]
fn box_face_separation_with<V: Lanes>(
    hull1: &Hull,
    (low, high): (Vec3, Vec3),
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    // The planes moved into the box's frame, as the scan moves them.
    let [x, y, z, d] = moved_planes::<V>(&hull1.lanes().face_planes[0], xf);
    let s = V::splat;
    let deepest = ((x * s(low.x)).min(x * s(high.x)) + (y * s(low.y)).min(y * s(high.y)))
        + (z * s(low.z)).min(z * s(high.z));
    let separations = (deepest - d).to_array();
    let mut best = Separation::NONE;
    for (i, &separation) in separations.iter().enumerate().take(hull1.face_count()) {
        if let Some(stop) = best.offer_or_stop(separation, i as u32, tolerance, limit) {
            return stop;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::super::faces::find_max_face_separation;
    use super::super::lanes::tests::xorshift;
    use super::*;

    /// Boxes of every proportion, centred and off centre, and a small hull
    /// of at most eight faces (a tetrahedron) for `hull1`.
    fn boxes(next: &mut impl FnMut() -> f32) -> Vec<Hull> {
        let mut hulls = vec![
            Hull::cuboid(Vec3::new(0.5, 1.0, 2.0)).expect("a valid box"),
            Hull::cuboid(Vec3::new(3.0, 3.0, 0.06)).expect("a valid plate"),
            Hull::cuboid(Vec3::splat(1e-3)).expect("a small box"),
        ];
        for _ in 0..8 {
            let half = Vec3::new(next(), next(), next()).abs() * 2.0 + Vec3::splat(0.01);
            let centre = Vec3::new(next(), next(), next()) * 3.0;
            let points: Vec<Vec3> = (0..8)
                .map(|k| {
                    let sign = |bit: u32| if k >> bit & 1 == 1 { 1.0 } else { -1.0 };
                    centre + half * Vec3::new(sign(0), sign(1), sign(2))
                })
                .collect();
            hulls.push(Hull::new(&points).expect("a valid box"));
        }
        hulls
    }

    /// Poses of every kind: random, axis-aligned (quarter turns), nearly
    /// aligned, far from the origin.
    fn poses(next: &mut impl FnMut() -> f32) -> Vec<Transform> {
        let mut poses = Vec::new();
        for k in 0..400 {
            let rotation = match k % 4 {
                0 => Quat::from_xyzw(next(), next(), next(), next()).normalize(),
                1 => Quat::from_axis_angle(Vec3::Y, std::f32::consts::FRAC_PI_2 * (k / 4) as f32),
                2 => Quat::from_axis_angle(
                    Vec3::new(next(), next(), next()).normalize(),
                    1e-6 * next(),
                ),
                _ => Quat::IDENTITY,
            };
            let scale = if k % 7 == 0 { 1e4 } else { 2.0 };
            let position = Vec3::new(next(), next(), next()) * scale;
            poses.push(Transform::new(position, rotation));
        }
        // Unturned, along diagonals: faces tie exactly, or within the
        // tolerance with the later face ahead (the scan keeps the first).
        for k in 0..64 {
            let t = 0.5 + 0.1 * k as f32;
            let hair = [0.0, 1e-7, 1e-6, 3e-6][k % 4] * t;
            for position in [
                Vec3::new(t, t + hair, 0.0),
                Vec3::new(-t - hair, 0.0, -t),
                Vec3::new(t, t, t + hair),
                Vec3::new(0.0, -t, t + hair),
            ] {
                poses.push(Transform::new(position, Quat::IDENTITY));
            }
        }
        poses
    }

    #[test]
    fn box_faces_give_the_scans_bits() {
        let mut next = xorshift(0x0B0C);
        let hulls = boxes(&mut next);
        let tetrahedron = Hull::new(&[Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z]).expect("valid");
        let mut compared = 0;
        for xf in poses(&mut next) {
            for hull1 in hulls.iter().chain([&tetrahedron]) {
                for hull2 in &hulls {
                    let corners = hull2.lanes().cuboid_corners.expect("a box");
                    for (tolerance, limit) in [(2e-6, f32::MAX), (2e-6, 0.0), (0.0, 0.05)] {
                        let scan = find_max_face_separation(hull1, hull2, xf, tolerance, limit);
                        type Query = fn(&Hull, (Vec3, Vec3), Transform, f32, f32) -> Separation;
                        let queries: [(&str, Query); 2] = [
                            ("portable", box_face_separation_portable),
                            ("default", box_face_separation),
                        ];
                        for (lanes, closed) in queries {
                            let got = closed(hull1, corners, xf, tolerance, limit);
                            assert_eq!(
                                (got.value.to_bits(), got.index),
                                (scan.value.to_bits(), scan.index),
                                "{lanes}: closed form {got:?} against the scan {scan:?}, xf {xf:?}"
                            );
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert!(compared > 50_000, "{compared} queries compared");
    }

    #[test]
    fn only_exact_boxes_have_corners() {
        let cuboid = Hull::cuboid(Vec3::new(0.3, 1.0, 2.5)).expect("a valid box");
        assert_eq!(cuboid.cuboid_corners(), cuboid.lanes().cuboid_corners);
        assert_eq!(
            cuboid.lanes().cuboid_corners,
            Some((Vec3::new(-0.3, -1.0, -2.5), Vec3::new(0.3, 1.0, 2.5)))
        );
        let turned = Quat::from_rotation_z(0.3);
        let turned: Vec<Vec3> = cuboid.vertices().iter().map(|&v| turned * v).collect();
        let turned = Hull::new(&turned).expect("a valid hull");
        assert_eq!(turned.lanes().cuboid_corners, None);
        let tetrahedron = Hull::new(&[Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z]).expect("valid");
        assert_eq!(tetrahedron.lanes().cuboid_corners, None);
    }
}
