//! Faces against a box: the face query in closed form, eight faces at a
//! time, with the answers of the general query bit for bit; and two
//! boxes' edges in closed form, a query of their own.
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
//! it, so two boxes do both ways. Two boxes then take their own edge query
//! ([`box_edge_separation`]): their nine pairs of edge directions in closed
//! form, each with its supporting edges, where the scan over their 144
//! pairs of edges would run the Gauss-map test on each. That query is the
//! boxes' own (the same axes' separations to rounding, not the scan's
//! bits), so every backend runs it: the CPU's [`collide_boxes`] and the
//! kernel's `boxes` entry point, its twin.

use glam::Vec3;

use super::super::math::{Transform, dot3, transform_point};
use super::super::shape::lanes::BoxRegions;
use super::super::shape::shapes::Hull;
use super::lanes::moved_planes;
use super::separation::{
    EdgeSeparation, PARALLEL_TOLERANCE, PairResult, Separation, choose_hull_axis, edge_floor,
};
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

/// Two boxes (hulls with [`BoxRegions`]): both face queries in closed form
/// (the scan's bits, [`box_face_separation`]), then the boxes' own edge
/// query ([`box_edge_separation`]), and the hull pairs' choice.
///
/// ```text
/// face_a = A's faces against B's corners        # stop if >= margin
/// face_b = B's faces against A's corners        # stop if >= margin
/// floor  = the better face's separation + the edge tolerance
/// edge   = the nine direction pairs above the floor   # stop if >= margin
/// choose as collide_hulls does
/// ```
#[inline]
pub(crate) fn collide_boxes(
    box_a: &Hull,
    box_b: &Hull,
    (xf_ab, xf_ba): (Transform, Transform),
    (tolerance, edge_tolerance): (f32, f32),
    margin: f32,
) -> Option<PairResult> {
    let (Some(corners_a), Some(corners_b)) =
        (box_a.lanes().cuboid_corners, box_b.lanes().cuboid_corners)
    else {
        return None;
    };
    let face_a = box_face_separation(box_a, corners_b, xf_ba, tolerance, margin);
    if face_a.value >= margin {
        return None;
    }
    let face_b = box_face_separation(box_b, corners_a, xf_ab, tolerance, margin);
    if face_b.value >= margin {
        return None;
    }
    let floor = edge_floor(face_a, face_b, tolerance, edge_tolerance);
    let edge = box_edge_separation(box_a, box_b, xf_ab, (tolerance, margin, floor));
    if edge.value >= margin {
        return None;
    }
    Some(choose_hull_axis(
        face_a,
        face_b,
        edge,
        tolerance,
        edge_tolerance,
    ))
}

/// Whether two hulls take [`collide_boxes`]: both boxes whose face normals
/// are exactly their axes.
#[inline(always)]
pub(crate) fn are_boxes(hull_a: &Hull, hull_b: &Hull) -> bool {
    hull_a.lanes().box_regions.is_some() && hull_b.lanes().box_regions.is_some()
}

/// Two boxes' edge query: their nine pairs of edge directions, each in
/// closed form, instead of the scan over their 144 pairs of edges.
///
/// Two boxes' Minkowski difference has a face for each pair of directions
/// `(A's axis i, B's axis j)` on the side of B's centre, so each direction
/// pair gives one candidate axis, `n = e_i x b_j` in A's frame (`b_j` the
/// column `j` of B's rotation), turned toward B's centre. Its supporting
/// features are edges, found from signs alone: A's along `i` at the corner
/// farthest along `n`, B's along `j` at the corner farthest along `-n`
/// (with B's axes a right-handed frame, `n . b_(j+1) = R[i][j+2]` and
/// `n . b_(j+2) = -R[i][j+1]`, `R[i][k] = e_i . b_k`). The separation is
/// the distance between those two corners along `n`.
///
/// ```text
/// d = B's centre - A's centre                       (A's frame)
/// for each axis j of B, then each axis i of A:      (B's edges outermost)
///     n = e_i x b_j          (n[i] = 0, n[i+1] = -b_j[i+2], n[i+2] = b_j[i+1])
///     len = |n|              (the sine of the angle): skip if <= PARALLEL_TOLERANCE
///     sign = +1 if n . d >= 0 else -1
///     corner_a = A's corner on the high side of axis k where sign n[k] > 0
///     corner_b = B's corner on the high side of axis k where -sign n . b_k > 0,
///                moved into A's frame
///     s = sign (n . (corner_b - corner_a)) / len
///     tie rule: keep if s > best + tolerance and s > floor
///     if s >= limit: return it
/// the pair kept: A's edge along i through corner_a, B's along j through corner_b
/// ```
///
/// This is the boxes' own query, not the scan's bits: its separations are
/// the same axes' to rounding. The kernel's `boxes` entry point runs its
/// twin, `box_edge_separation` in `shaders/d3/hardware.wgsl`, with the same
/// operations in the same order: the corners are chosen, not computed, and
/// every sum is one of the forms the other queries use (`dot3`,
/// `transform_point`), which lavapipe computes as the CPU does. (A form
/// with both boxes' half widths added up, Gottschalk's, came back a unit in
/// the last place apart there: lavapipe regrouped the four products.)
#[inline]
pub(crate) fn box_edge_separation(
    box_a: &Hull,
    box_b: &Hull,
    xf: Transform,
    (tolerance, limit, floor): (f32, f32, f32),
) -> EdgeSeparation {
    let (Some(regions_a), Some(regions_b)) =
        (&box_a.lanes().box_regions, &box_b.lanes().box_regions)
    else {
        return EdgeSeparation::NONE;
    };
    let d = box_centres_apart((regions_a, regions_b), xf);
    let columns = [xf.r.c0, xf.r.c1, xf.r.c2];
    let mut best = EdgeSeparation::NONE;
    // B's axes outermost, each candidate written out so that every index
    // is a constant once inlined.
    macro_rules! offer {
        ($i:literal, $j:literal) => {
            if let Some(stop) = offer_box_edges(
                (regions_a, regions_b),
                xf,
                (columns, d),
                ($i, $j),
                (tolerance, limit, floor),
                &mut best,
            ) {
                return stop;
            }
        };
    }
    offer!(0, 0);
    offer!(1, 0);
    offer!(2, 0);
    offer!(0, 1);
    offer!(1, 1);
    offer!(2, 1);
    offer!(0, 2);
    offer!(1, 2);
    offer!(2, 2);
    best
}

/// One candidate of [`box_edge_separation`]: A's axis `i` against B's axis
/// `j`, offered to `best` with the tie rule and the floor; the pair itself
/// where it reaches the limit.
#[inline(always)]
fn offer_box_edges(
    (regions_a, regions_b): (&BoxRegions, &BoxRegions),
    xf: Transform,
    (columns, d): ([Vec3; 3], Vec3),
    (i, j): (usize, usize),
    (tolerance, limit, floor): (f32, f32, f32),
    best: &mut EdgeSeparation,
) -> Option<EdgeSeparation> {
    let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
    let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
    let (n, len, sign) = box_axis((columns, d), (i, j))?;
    let mut high_a = [false; 3];
    high_a[i1] = sign * n[i1] > 0.0;
    high_a[i2] = sign * n[i2] > 0.0;
    let mut high_b = [false; 3];
    high_b[j1] = -sign * columns[j2][i] > 0.0;
    high_b[j2] = sign * columns[j1][i] > 0.0;
    let corner_a = box_corner(regions_a, high_a);
    let corner_b = transform_point(xf, box_corner(regions_b, high_b));
    let separation = sign * dot3(n, corner_b - corner_a) / len;
    let kept = separation > best.value + tolerance && separation > floor;
    let stop = separation >= limit;
    if !(kept || stop) {
        return None;
    }
    let pair = EdgeSeparation {
        value: separation,
        a: box_edge(regions_a, i, high_a),
        b: box_edge(regions_b, j, high_b),
    };
    if kept {
        *best = pair;
    }
    stop.then_some(pair)
}

/// The candidate axis of A's axis `i` and B's axis `j` (`columns`: B's
/// axes in A's frame, `d`: B's centre from A's): `n = e_i x b_j`
/// unnormalised, its length, and the sign that turns it toward B's centre;
/// none where the two are within [`PARALLEL_TOLERANCE`] of parallel.
#[inline(always)]
fn box_axis((columns, d): ([Vec3; 3], Vec3), (i, j): (usize, usize)) -> Option<(Vec3, f32, f32)> {
    let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
    let b = columns[j];
    let mut n = Vec3::ZERO;
    n[i1] = -b[i2];
    n[i2] = b[i1];
    let len = (n[i1] * n[i1] + n[i2] * n[i2]).sqrt();
    if len <= PARALLEL_TOLERANCE {
        return None;
    }
    let sign = if n[i1] * d[i1] + n[i2] * d[i2] >= 0.0 {
        1.0
    } else {
        -1.0
    };
    Some((n, len, sign))
}

/// The unit axis of two boxes' edges `a` and `b` as [`box_edge_separation`]
/// computed it, in A's frame (`xf` takes B's points into A's): the normal
/// of a reported edge pair of two boxes. None where an edge is not a box's
/// or the two are parallel (a backend's garbage: the caller falls back to
/// the hulls' rebuild).
pub(crate) fn box_edge_pair_axis(
    box_a: &Hull,
    box_b: &Hull,
    xf: Transform,
    (a, b): (u32, u32),
) -> Option<Vec3> {
    let (lanes_a, lanes_b) = (box_a.lanes(), box_b.lanes());
    let (regions_a, regions_b) = (lanes_a.box_regions.as_ref()?, lanes_b.box_regions.as_ref()?);
    let i = lanes_a.cuboid_axis_of(a as usize)?;
    let j = lanes_b.cuboid_axis_of(b as usize)?;
    let d = box_centres_apart((regions_a, regions_b), xf);
    let (n, len, sign) = box_axis(([xf.r.c0, xf.r.c1, xf.r.c2], d), (i, j))?;
    Some(sign * n / len)
}

/// B's centre from A's, in A's frame.
#[inline(always)]
fn box_centres_apart((regions_a, regions_b): (&BoxRegions, &BoxRegions), xf: Transform) -> Vec3 {
    let centre_a = (regions_a.low + regions_a.high) * 0.5;
    let centre_b = (regions_b.low + regions_b.high) * 0.5;
    transform_point(xf, centre_b) - centre_a
}

/// The box's corner on the high side of axis `k` where `high[k]`, else on
/// the low side.
#[inline(always)]
fn box_corner(regions: &BoxRegions, high: [bool; 3]) -> Vec3 {
    Vec3::new(
        if high[0] {
            regions.high.x
        } else {
            regions.low.x
        },
        if high[1] {
            regions.high.y
        } else {
            regions.low.y
        },
        if high[2] {
            regions.high.z
        } else {
            regions.low.z
        },
    )
}

/// The box's edge along axis `k` whose ends lie on the high side of each
/// other axis `m` where `high[m]` (`high[k]` unread).
#[inline(always)]
pub(super) fn box_edge(regions: &BoxRegions, k: usize, high: [bool; 3]) -> u32 {
    // BoxRegions lists the sides by the lower-numbered axis first.
    let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
    let (first, second) = (k1.min(k2), k1.max(k2));
    regions.edges[k][usize::from(high[first]) | usize::from(high[second]) << 1]
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::super::faces::find_max_face_separation;
    use super::super::lanes::tests::xorshift;
    use super::super::separation::LOWEST;
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

    /// The boxes' edge query against the pruned scan over their 144 pairs
    /// of edges, an independent search: where the scan keeps a pair, the
    /// closed form's best is the scan's to rounding, and its edges are
    /// supporting features: the two boxes' projections on the axis those
    /// edges make are that far apart, and the axis rebuilt from them
    /// (`box_edge_pair_axis`) is the hulls' (`edge_pair_axis`).
    #[test]
    fn box_edges_find_the_scans_deepest_pair() {
        use super::super::edges::{find_max_edge_separation, projected_separation};
        use super::super::hulls::edge_pair_axis;
        use crate::d3::types::{EdgeSearch, EdgeStats};
        let mut next = xorshift(0x0B0D);
        let hulls: Vec<Hull> = boxes(&mut next)
            .into_iter()
            .filter(|hull| hull.lanes().box_regions.is_some())
            .collect();
        assert!(hulls.len() >= 10, "{} boxes with regions", hulls.len());
        let (mut compared, mut stats) = (0, EdgeStats::default());
        for xf in poses(&mut next) {
            for box_a in &hulls {
                for box_b in &hulls {
                    let scan = find_max_edge_separation(
                        box_a,
                        box_b,
                        xf,
                        0.0,
                        f32::MAX,
                        f32::MIN,
                        &mut stats,
                    );
                    let closed = box_edge_separation(box_a, box_b, xf, (0.0, f32::MAX, f32::MIN));
                    if scan.value <= LOWEST {
                        continue;
                    }
                    let reach = (box_a.size() + box_b.size() + xf.p.length()) * 2e-6;
                    assert!(
                        (closed.value - scan.value).abs() <= reach,
                        "closed form {closed:?} against the scan {scan:?}, xf {xf:?}"
                    );
                    let axis =
                        edge_pair_axis(box_a, box_b, xf, (closed.a, closed.b), EdgeSearch::Pruned);
                    let moved: Vec<Vec3> = box_b
                        .vertices()
                        .iter()
                        .map(|&w| transform_point(xf, w))
                        .collect();
                    let (projected, _) = projected_separation(box_a.vertices(), &moved, axis);
                    let rebuilt = box_edge_pair_axis(box_a, box_b, xf, (closed.a, closed.b))
                        .expect("the pair's axis");
                    assert!(
                        dot3(rebuilt, axis) > 1.0 - 1e-5,
                        "edges {} and {}: the boxes' axis {rebuilt} against the hulls' {axis}",
                        closed.a,
                        closed.b
                    );
                    assert!(
                        (projected - closed.value).abs() <= reach,
                        "edges {} and {}: projections {projected} apart on their axis, \
                         the query says {closed:?}, xf {xf:?}",
                        closed.a,
                        closed.b
                    );
                    compared += 1;
                }
            }
        }
        assert!(compared > 20_000, "{compared} queries compared");
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
