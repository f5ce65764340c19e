//! Face queries: each face of one hull against the other's vertices.
//!
//! For a face with outward normal `n` and offset `d` (`n . x = d` on it),
//! the other hull's separation from it is how far its deepest vertex lies
//! beyond the face: `min over vertices w of n . w - d`. The face's plane is
//! moved into the other hull's frame (one rotation and one dot product per
//! face) so that the inner loop reads the other hull's vertices untouched.
//!
//! # The order of the faces
//!
//! A query goes through the faces in a fixed order, which the tie rule
//! depends on (a later face replaces the best only by more than the
//! tolerance), so every backend follows the same one: the hull's order
//! (its faces sorted along their normals by the hull builder), starting at
//! the run of eight faces that points towards the other hull and going
//! round ([`first_face`]). The faces facing the other hull come first, so
//! the best separation rises to its final value early, and the bounds that
//! skip a face (`lanes.rs`, the GPU kernel) rule out more of the rest.

use glam::Vec3;

use super::super::math::{Transform, direction_cell, dot3, inv_transform_point, length3, rotate};
use super::super::shape::lanes::LANES;
use super::super::shape::shapes::Hull;
use super::separation::Separation;

/// The deepest face of `hull1` against the vertices of `hull2`; `xf` takes
/// `hull1`'s local points into `hull2`'s frame.
///
/// ```text
/// best = (LOWEST, 0)
/// for each face i of hull1, from first_face on, going round:
///     n' = R n_i;  d' = d_i + n' . t        # the plane in hull2's frame
///     s  = min over vertices w of hull2 of n' . w - d'
///     tie rule: replace best only when s > best + tolerance
///     if s >= limit: return (s, i)          # separated: stop
/// ```
#[inline]
pub fn find_max_face_separation(
    hull1: &Hull,
    hull2: &Hull,
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let mut best = Separation::NONE;
    let (first, _) = first_face(hull1, hull2, xf);
    for i in scan_order(first, hull1.face_count()) {
        let (normal, offset) = (hull1.normals()[i], hull1.offsets()[i]);
        let moved = rotate(xf.r, normal);
        let moved_offset = offset + dot3(moved, xf.p);
        let mut separation = f32::MAX;
        for &w in hull2.vertices() {
            separation = separation.min(dot3(moved, w) - moved_offset);
        }
        if let Some(stop) = best.offer_or_stop(separation, i as u32, tolerance, limit) {
            return stop;
        }
    }
    best
}

/// Where a face query of `hull1` against `hull2` starts, and `hull2`'s inner
/// centre in `hull1`'s frame (the bounds' centre, `lanes.rs`):
///
/// ```text
/// c     = xf^-1 (hull2's inner centre)
/// cell  = direction_cell(c - hull1's inner centre)
/// first = 8 x hull1's face_start[cell]     # the run facing hull2
/// ```
#[inline(always)]
pub(crate) fn first_face(hull1: &Hull, hull2: &Hull, xf: Transform) -> (usize, Vec3) {
    let (lanes1, lanes2) = (hull1.lanes(), hull2.lanes());
    let centre = inv_transform_point(xf, lanes2.inner_centre);
    if lanes1.face_planes.len() == 1 {
        // One run (a box, a hull of at most eight faces): every cell's.
        return (0, centre);
    }
    let cell = direction_cell(centre - lanes1.inner_centre);
    (
        LANES * usize::from(lanes1.face_start[cell as usize]),
        centre,
    )
}

/// What bounds a whole run of eight faces of `hull1` at once (the GPU
/// kernel's `FaceOrder`, and the walking search's face query of A):
/// `towards`, `hull2`'s inner centre less `hull1`'s in `hull1`'s frame,
/// its length, and what [`face_cone_bound`] takes off.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FaceOrder {
    pub(crate) first: usize,
    pub(crate) towards: Vec3,
    pub(crate) length: f32,
    pub(crate) lowered: f32,
}

/// [`first_face`] with what bounds the runs:
///
/// ```text
/// towards = c - hull1's inner centre       (c: hull2's, in hull1's frame)
/// lowered = r1 + r2 - allowance            (the inner radii)
/// ```
///
/// The allowance covers the rounding of `towards` (a few ulps of the
/// lengths it came from), of the cone's dot products, and of the sine that
/// [`face_cone_bound`] recomputes from the cone's cosine (at most
/// `2^-24 / sin 0.01 < 2^-16` of `length`, the cones being at least 0.01
/// radians wide).
#[inline(always)]
pub(crate) fn face_order(hull1: &Hull, hull2: &Hull, xf: Transform) -> FaceOrder {
    let (lanes1, lanes2) = (hull1.lanes(), hull2.lanes());
    let (first, centre) = first_face(hull1, hull2, xf);
    let towards = centre - lanes1.inner_centre;
    let length = length3(towards);
    let allowance = 32.0
        * f32::EPSILON
        * (((length3(xf.p) + length3(lanes2.inner_centre)) + length3(lanes1.inner_centre))
            + 2.0 * lanes1.reach)
        + length * (1.0 / 65536.0);
    FaceOrder {
        first,
        towards,
        length,
        lowered: (lanes1.inner_radius + lanes2.inner_radius) - allowance,
    }
}

/// An upper bound on the separation of every face of a run of eight whose
/// normals lie in `cone` (`[axis, cos]`, `HullLanes::face_cones`): with `o`
/// and `c` the two inner centres in `hull1`'s frame, `v = c - o` and `r1`,
/// `r2` the inner radii, a face `(n, d)` of the run has
///
/// ```text
/// separation <= n . c - d - r2                     (the face's own bound)
///             = n . v - (d - n . o) - r2 <= n . v - r1 - r2
/// n . v <= max over the cone = |v|                               if angle(axis, v) <= theta
///                            = (axis . v) cos + |v - (axis . v) axis| sin   else
/// ```
///
/// so a run that could neither replace the best nor reach the limit is
/// passed over at once.
#[inline(always)]
pub(crate) fn face_cone_bound(cone: [f32; 4], order: &FaceOrder) -> f32 {
    let axis = Vec3::new(cone[0], cone[1], cone[2]);
    let along = dot3(axis, order.towards);
    let mut reach = order.length;
    if along < order.length * cone[3] {
        let sine = (1.0 - cone[3] * cone[3]).max(0.0).sqrt();
        reach = along * cone[3] + length3(order.towards - axis * along) * sine;
    }
    reach - order.lowered
}

/// Face number `t` of a query's order over `faces` faces: from `first`
/// on, going round (the kernel's `face_at`).
#[inline(always)]
pub(crate) fn face_at(first: usize, t: usize, faces: usize) -> usize {
    let i = first + t;
    if i >= faces { i - faces } else { i }
}

/// The faces `first .. faces`, then `0 .. first`: a face query's order.
#[inline(always)]
pub(crate) fn scan_order(first: usize, faces: usize) -> impl Iterator<Item = usize> {
    (first..faces).chain(0..first)
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::super::lanes::tests::xorshift;
    use super::*;
    use crate::d3::math::direction_cell;

    /// Hulls of every kind the oracle covers: clouds of 4 to 256 points in
    /// a ball or on a sphere, flat plates (1:50), and boxes.
    fn hulls(next: &mut impl FnMut() -> f32) -> Vec<Hull> {
        let mut hulls = Vec::new();
        for (k, count) in [4usize, 6, 12, 16, 32, 48, 64, 100, 128, 200, 256]
            .into_iter()
            .enumerate()
        {
            let points: Vec<Vec3> = (0..count)
                .map(|_| {
                    let p = Vec3::new(next(), next(), next());
                    match k % 3 {
                        0 => p,
                        1 => p.normalize_or_zero() * 1.5,
                        _ => p * Vec3::new(2.0, 2.0, 0.04),
                    }
                })
                .collect();
            if let Ok(hull) = Hull::new(&points) {
                hulls.push(hull);
            }
        }
        hulls.push(Hull::cuboid(Vec3::new(0.5, 1.0, 2.0)).expect("a valid box"));
        hulls.push(Hull::cuboid(Vec3::new(3.0, 3.0, 0.06)).expect("a valid plate"));
        hulls
    }

    /// The hull builder orders faces by their normals' direction cells, and
    /// each run of eight faces' cone holds its normals (checked in double
    /// precision, beside the builder's own computation).
    #[test]
    fn faces_come_ordered_along_their_normals_in_cones() {
        let mut next = xorshift(0x2468_ace1);
        for hull in hulls(&mut next) {
            let cells: Vec<u32> = hull.normals().iter().map(|&n| direction_cell(n)).collect();
            assert!(
                cells.windows(2).all(|w| w[0] <= w[1]),
                "faces out of order along their normals: cells {cells:?}"
            );
            let cones = &hull.lanes().face_cones;
            assert_eq!(cones.len(), hull.face_count().div_ceil(LANES));
            for (i, n) in hull.normals().iter().enumerate() {
                let [x, y, z, cos] = cones[i / LANES];
                let axis = Vec3::new(x, y, z).as_dvec3();
                let n = n.as_dvec3();
                let along = n.dot(axis) / (n.length() * axis.length());
                assert!(
                    along >= f64::from(cos),
                    "face {i}'s normal is outside its run's cone: cos {along} < {cos}"
                );
            }
        }
    }

    /// A run's cone bound is at least the separation of every face of the
    /// run as the queries compute it (faces.rs's loop body), for hulls of
    /// every kind in random poses: apart, touching, deeply overlapping,
    /// concentric, and 10,000 units from the origin.
    #[test]
    fn a_runs_cone_bound_is_above_each_of_its_faces() {
        let mut next = xorshift(0x1357_9bdf);
        let shapes = hulls(&mut next);
        let mut checked = 0;
        let mut ruled_out = 0;
        for (a, hull1) in shapes.iter().enumerate() {
            for hull2 in &shapes[a..] {
                for pose in 0..40 {
                    let far = if pose % 4 == 3 { 1.0e4 } else { 0.0 };
                    let spread = [0.0, 0.5, 2.0, 5.0][pose % 4];
                    let rotation = |next: &mut dyn FnMut() -> f32| {
                        Quat::from_xyzw(next(), next(), next(), next() + 1e-3).normalize()
                    };
                    let base = Vec3::splat(far);
                    let xf1 = Transform::new(base, rotation(&mut next));
                    let offset = Vec3::new(next(), next(), next()) * spread;
                    let xf2 = Transform::new(base + offset, rotation(&mut next));
                    // hull1's points into hull2's frame.
                    let xf = crate::d3::math::inv_mul_transforms(xf2, xf1);
                    let order = face_order(hull1, hull2, xf);
                    assert_eq!(order.first % LANES, 0, "a query starts at a run");
                    assert!(order.first < hull1.face_count());
                    for (run, cone) in hull1.lanes().face_cones.iter().enumerate() {
                        let bound = face_cone_bound(*cone, &order);
                        let faces = LANES * run..(LANES * run + LANES).min(hull1.face_count());
                        for i in faces {
                            let moved = rotate(xf.r, hull1.normals()[i]);
                            let moved_offset = hull1.offsets()[i] + dot3(moved, xf.p);
                            let separation = hull2
                                .vertices()
                                .iter()
                                .map(|&w| dot3(moved, w) - moved_offset)
                                .fold(f32::MAX, f32::min);
                            checked += 1;
                            ruled_out += usize::from(bound < 0.0);
                            assert!(
                                separation <= bound,
                                "face {i} of run {run}: separation {separation} above the \
                                 run's bound {bound} (pose {pose})"
                            );
                        }
                    }
                }
            }
        }
        // The bound is not vacuous: it is below zero for some faces.
        assert!(
            ruled_out * 10 > checked,
            "the cone bound is below zero for only {ruled_out} of {checked} faces"
        );
    }
}
