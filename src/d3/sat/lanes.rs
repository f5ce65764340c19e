//! The face and edge queries of small and middle-sized hulls, eight
//! vertices or eight edges at a time.
//!
//! `faces.rs` and `edges.rs` state the queries one vertex and one edge pair
//! at a time (they are the WGSL kernel's twin). This module computes exactly
//! the same values with vectors whose eight lanes are eight vertices of the
//! other hull (face queries) or eight edges of A (edge queries): each lane
//! does the scalar code's operations in the scalar code's order, with no
//! fused multiply-adds, so each lane holds the scalar value bit for bit.
//!
//! * **Face queries**: for each face, the minimum over the other hull's
//!   vertices of `n . w - d` is taken lane by lane and then across the lanes.
//!   The minimum of finite values does not depend on the order it is
//!   taken in (every input is validated finite), so the face's separation
//!   is the scalar loop's, up to the sign of an exact zero reached both as
//!   +0 and -0 (which neither order specifies); the tie rule and the early
//!   exit then run face by face as in `faces.rs`. Against hulls of more
//!   than eight vertices the faces are first bounded from above by the
//!   other hull's inner ball, eight at a time (`face_separation_scan`): a
//!   face that could neither replace the best nor reach the limit is
//!   skipped (a chunk none of whose faces is kept before its normals are
//!   rotated), which changes nothing the scan decides (on 32-vertex hulls
//!   some 12 of 60 faces are computed).
//! * **Edge queries**: for each edge of B (moved into A's frame once), the
//!   Gauss-map test of seed 003 runs on eight edges of A at once and leaves
//!   a bit mask of the pairs whose arcs cross, with the lanes' `CBA` and
//!   `DBA`; only those pairs, in ascending order, go through the scalar
//!   loop's body (`EdgeScan` in `edges.rs`, which builds the
//!   exact axis only for a pair that might replace the best or reach the
//!   limit). The branches that a scalar loop mispredicts on every other
//!   pair are gone; the candidates, their order, the tie rule and the early
//!   exit are the scalar loop's, so the result is the same bit for bit
//!   (`tests/it/d3/lanes.rs` compares them on every pair). Before that, every
//!   edge of both hulls is bounded against the other hull's inner ball,
//!   eight at a time (`edge_bounds`): an edge of B whose pairs cannot
//!   matter is skipped before it is moved, and an edge of B is tested only
//!   against the edges of A that the bound keeps (`EdgeFilter`), so on
//!   32-vertex hulls about 11 of 87 edges of B are tested, each against
//!   about a fifth of A's edges.
//! * **Two boxes** where the general query meets them (the public
//!   `collide_hulls`, and rounded boxes' cores; `collide_pair` gives plain
//!   boxes their own query, `boxes.rs`): their edge pairs' axes take only
//!   nine directions, along each of which the boxes' separation has a
//!   closed form (the OBB test's; `box_edge_bound_lanes`, eight directions
//!   at a time). Only B's edges
//!   along a direction that could be kept or reach the limit are tested,
//!   each only against A's edges along such a direction with it; when there
//!   is none, the edge query ends before any edge is moved, with the answer
//!   the scan would give. On the bench's boxes 10.5 of B's 12 edges are
//!   passed over (deep random overlaps: nearly every pair has a direction
//!   that could beat the faces, and B's edges are then passed over by the
//!   inner ball).
//!
//! Both are written once over [`Lanes`](crate::core::simd) and compiled twice:
//! with AVX registers where the CPU has AVX (detected at run time), and
//! with two SSE vectors elsewhere (`tests/it/d3/lanes.rs` runs both).
//!
//! The hull keeps its vertices and its edges' faces' normals as structure
//! of arrays in chunks of eight (`HullLanes`); the last chunk is padded
//! with copies of vertex 0 (which cannot change a minimum) and with zero
//! normals, whose arcs are zero (which no test passes: every product is
//! zero). The arcs `v x u` are recomputed eight at a time (`arc_lanes`),
//! with the operations the hull was built with: the same bits for a third
//! less memory to bring in per hull.

use glam::Vec3;

#[cfg(target_arch = "x86_64")]
use crate::core::simd::avx::Avx;
#[cfg(target_arch = "x86_64")]
use crate::core::simd::uses_avx;
use crate::core::simd::{Lanes, Portable};

use super::super::math::{
    Transform, dot3, inv_mul_transforms, inv_transform_point, length3, transform_point,
};
use super::super::shape::hull::MAX_HULL_VERTICES;
use super::super::shape::lanes::{HullLanes, LANES};
use super::super::shape::shapes::Hull;
use super::super::types::EdgeStats;
use super::edges::{EdgeScan, moved_edge};
use super::faces::{first_face, scan_order};
use super::segments_across as across;
use super::separation::{EdgeSeparation, LOWEST, PARALLEL_TOLERANCE, Separation};
use super::sphere::{Closest, inside_face, nearest_edge_at_vertex};

/// [`find_max_face_separation`](super::find_max_face_separation), the
/// other hull's vertices eight at a time: the same result bit for bit.
///
/// ```text
/// for each face i of hull1 (in faces.rs's order, a chunk at a time):
///     n', d' = the plane in hull2's frame            (as faces.rs)
///     low    = min over chunks of (n'.x x + n'.y y) + n'.z z - d'   (lane by lane)
///     s      = the smallest lane of low
///     tie rule, early exit                           (as faces.rs)
/// ```
#[inline]
pub fn find_max_face_separation_lanes(
    hull1: &Hull,
    hull2: &Hull,
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    #[cfg(target_arch = "x86_64")]
    if uses_avx() {
        // SAFETY: AVX was detected on this CPU.
        return unsafe { face_separation_avx(hull1, hull2, xf, tolerance, limit) };
    }
    face_separation_with::<Portable>(hull1, hull2, xf, tolerance, limit)
}

/// [`find_max_face_separation_lanes`] on the portable lanes, whatever the
/// CPU (for the tests).
#[cfg(feature = "testing")]
#[doc(hidden)]
pub fn find_max_face_separation_portable(
    hull1: &Hull,
    hull2: &Hull,
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    face_separation_with::<Portable>(hull1, hull2, xf, tolerance, limit)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn face_separation_avx(
    hull1: &Hull,
    hull2: &Hull,
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    face_separation_with::<Avx>(hull1, hull2, xf, tolerance, limit)
}

/// The face of `hull` most anti-parallel to `direction` (in its frame): the
/// first face with the least `direction . normal`, as the scalar loop
///
/// ```text
/// best = 0, least = f32::MAX
/// for each face k: if direction . normal_k < least: best = k, least = it
/// ```
///
/// finds it (the manifold's incident face), with the products eight faces at
/// a time from the lanes' face rows (the same bits as `normals()`): only
/// the lanes below the least so far are looked at, in order, with the
/// loop's strict comparison, so the answer is the loop's, ties included.
pub(crate) fn most_opposed_face(hull: &Hull, direction: Vec3) -> usize {
    #[cfg(target_arch = "x86_64")]
    if uses_avx() {
        // SAFETY: AVX was detected on this CPU.
        return unsafe { most_opposed_face_avx(hull, direction) };
    }
    most_opposed_face_with::<Portable>(hull, direction)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn most_opposed_face_avx(hull: &Hull, direction: Vec3) -> usize {
    most_opposed_face_with::<Avx>(hull, direction)
}

#[inline(always)]
fn most_opposed_face_with<V: Lanes>(hull: &Hull, direction: Vec3) -> usize {
    let faces = hull.face_count();
    let s = V::splat;
    let (dx, dy, dz) = (s(direction.x), s(direction.y), s(direction.z));
    let (mut best, mut least) = (0, f32::MAX);
    for (c, rows) in hull.lanes().face_planes.iter().enumerate() {
        // dot3(direction, normal), operand for operand.
        let alignment = (dx * V::load(&rows[0]) + dy * V::load(&rows[1])) + dz * V::load(&rows[2]);
        let valid = (1u32 << (faces - LANES * c).min(LANES)) - 1;
        let mut below = alignment.less_bits(s(least)) & valid;
        if below == 0 {
            continue;
        }
        let values = alignment.to_array();
        while below != 0 {
            let k = below.trailing_zeros() as usize;
            below &= below - 1;
            if values[k] < least {
                (best, least) = (LANES * c + k, values[k]);
            }
        }
    }
    best
}

/// The face query, with the upper bound that skips faces where the other
/// hull has more than eight vertices: against eight or fewer (a box) the
/// exact minimum is one vector, cheaper than the bound's unpredictable
/// branch.
#[inline(always)]
fn face_separation_with<V: Lanes>(
    hull1: &Hull,
    hull2: &Hull,
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    if hull2.lanes().vertices.len() > 1 {
        face_separation_scan::<V, true>(hull1, hull2, xf, tolerance, limit)
    } else {
        face_separation_scan::<V, false>(hull1, hull2, xf, tolerance, limit)
    }
}

/// The lanes whose bound can be passed over: at most `level` and below
/// `limit` (`bound <= level && bound < limit` on each lane; never on a NaN,
/// which is not below the limit).
#[inline(always)]
fn skip_bits<V: Lanes>(bounds: V, level: f32, limit: f32) -> u32 {
    !bounds.greater_bits(V::splat(level)) & bounds.less_bits(V::splat(limit))
}

/// The face query's scan. Bounded, it first bounds eight faces at a time
/// from above, in `hull1`'s frame, by `hull2`'s inner ball (centre `c`,
/// radius `r`): a face's separation is at most `n' . c - r - d'` with its
/// plane moved into `hull2`'s frame (`face_cannot_matter`), and that is
/// `n . c1 - d - r` with `c1` the centre moved into `hull1`'s frame. So
/// a face is skipped before its normal is even rotated (a chunk's planes
/// are rotated eight at once, when its first kept face is computed):
///
/// ```text
/// c1      = xf^-1 (c)                                     # once per pair
/// bound_i = (n_i . c1 - d_i) - r + allowance              # eight at a time
/// skip face i when bound_i <= best + tolerance and bound_i < limit
/// ```
///
/// The allowance covers the rounding of `c1` and of the dot product
/// (`8 x 2^-24` times the lengths involved, doubled); the ball's own slack
/// covers the computed separation's, as in `face_cannot_matter`.
#[inline(always)]
fn face_separation_scan<V: Lanes, const BOUNDED: bool>(
    hull1: &Hull,
    hull2: &Hull,
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let mut best = Separation::NONE;
    let (lanes1, lanes2) = (hull1.lanes(), hull2.lanes());
    let chunks = &lanes2.vertices;
    let faces = hull1.face_count();
    // The chunks from the one facing hull2 on, going round (faces.rs).
    let (first, centre) = first_face(hull1, hull2, xf);
    let allowance =
        16.0 * f32::EPSILON * (length3(xf.p) + length3(lanes2.inner_centre) + 2.0 * lanes1.reach);
    let s = V::splat;
    let (cx, cy, cz) = (s(centre.x), s(centre.y), s(centre.z));
    let lowered = s(lanes2.inner_radius - allowance);
    for c in scan_order(first / LANES, lanes1.face_planes.len()) {
        let plane = &lanes1.face_planes[c];
        let lane = |row: usize| V::load(&plane[row]);
        let bounds = if BOUNDED {
            (((lane(0) * cx + lane(1) * cy) + lane(2) * cz) - lane(3)) - lowered
        } else {
            V::splat(f32::MAX)
        };
        // The chunk's faces, as bits; those the bound keeps at the best as
        // the chunk starts are found eight at a time (a branch per face
        // would be mispredicted at random). The mask is not narrowed again
        // after each face: computing a face the risen best would now skip
        // only costs its time (its offer changes nothing), while narrowing
        // made every face wait on the last one's separation (32-vertex
        // hulls, 20,000 pairs, interleaved minimum: 1,311 -> 1,203 ns).
        let pending = (1u32 << (faces - LANES * c).min(LANES)) - 1;
        let mut moved = None;
        let skip = if BOUNDED {
            skip_bits(bounds, best.value + tolerance, limit)
        } else {
            0
        };
        let mut kept = pending & !skip;
        while kept != 0 {
            let k = kept.trailing_zeros() as usize;
            kept &= kept - 1;
            let i = LANES * c + k;
            // The chunk's planes moved into `hull2`'s frame, eight at once
            // when its first face is computed.
            let [mx, my, mz, md] = *moved
                .get_or_insert_with(|| moved_planes::<V>(plane, xf).map(|row| row.to_array()));
            let (nx, ny, nz) = (s(mx[k]), s(my[k]), s(mz[k]));
            let mut low = V::splat(f32::MAX);
            for [x, y, z] in chunks {
                let height = (nx * V::load(x) + ny * V::load(y)) + nz * V::load(z);
                low = low.min(height);
            }
            // The scalar loop's minimum of `height - d`, with `d` taken off
            // the lowest height once: subtracting one value rounds
            // monotonically, so the smallest difference is the smallest
            // height's (the same bits, the sign of an exact zero aside).
            let separation = low.smallest() - md[k];
            if let Some(stop) = best.offer_or_stop(separation, i as u32, tolerance, limit) {
                return stop;
            }
        }
    }
    best
}

/// A sphere's centre (in the hull's frame) against the hull's faces, eight
/// at a time: `sphere.rs`'s `sphere_face_loop`, bit for bit.
/// Each lane is `dot3(normal, centre) - offset` from the lanes' face rows
/// (the bits of `normals()` and `offsets()`), operand for operand; the
/// loop's early exit (`None`: a face at or above `limit`, wherever it
/// comes, separates the pair) and its tie rule over each chunk as 2D's
/// `scan_group` takes it: with no other lane within twice the tolerance of
/// the largest, the face-by-face rule picks the largest or keeps the best;
/// near-ties (and values that are not finite) go face by face.
pub fn sphere_face_separation(
    hull: &Hull,
    centre: Vec3,
    tolerance: f32,
    limit: f32,
) -> Option<Separation> {
    #[cfg(target_arch = "x86_64")]
    if uses_avx() {
        // SAFETY: AVX was detected on this CPU.
        return unsafe { sphere_face_separation_avx(hull, centre, tolerance, limit) };
    }
    sphere_face_separation_with::<Portable>(hull, centre, tolerance, limit)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn sphere_face_separation_avx(
    hull: &Hull,
    centre: Vec3,
    tolerance: f32,
    limit: f32,
) -> Option<Separation> {
    sphere_face_separation_with::<Avx>(hull, centre, tolerance, limit)
}

/// [`sphere_face_separation`] on the portable lanes, whatever the CPU.
#[cfg(feature = "testing")]
#[doc(hidden)]
pub fn sphere_face_separation_portable(
    hull: &Hull,
    centre: Vec3,
    tolerance: f32,
    limit: f32,
) -> Option<Separation> {
    sphere_face_separation_with::<Portable>(hull, centre, tolerance, limit)
}

#[inline(always)]
fn sphere_face_separation_with<V: Lanes>(
    hull: &Hull,
    centre: Vec3,
    tolerance: f32,
    limit: f32,
) -> Option<Separation> {
    let faces = hull.face_count();
    let s = V::splat;
    let (cx, cy, cz) = (s(centre.x), s(centre.y), s(centre.z));
    let mut best = Separation::NONE;
    for (c, plane) in hull.lanes().face_planes.iter().enumerate() {
        let values = centre_heights::<V>(plane, (cx, cy, cz));
        let active = (faces - LANES * c).min(LANES);
        let valid = (1u32 << active) - 1;
        if values.ge(s(limit)).mask_bits() & valid != 0 {
            return None;
        }
        let first = (LANES * c) as u32;
        // Finite values only: the group scan blends its padding lanes to the
        // lowest finite value, which an infinite lane would let win.
        let numbers = values.abs().lt(s(f32::INFINITY)).mask_bits() & valid == valid;
        let scan = values.scan(active, tolerance);
        let array = values.to_array();
        if numbers && scan.close == 1 {
            best.offer(array[scan.lane], first + scan.lane as u32, tolerance);
        } else {
            for (k, &value) in array.iter().enumerate().take(active) {
                best.offer(value, first + k as u32, tolerance);
            }
        }
    }
    Some(best)
}

/// A centre's heights over eight faces, `dot3(normal, centre) - offset`
/// from a chunk of the lanes' face rows, operand for operand.
#[inline(always)]
fn centre_heights<V: Lanes>(plane: &[[f32; LANES]; 4], (cx, cy, cz): (V, V, V)) -> V {
    ((V::load(&plane[0]) * cx + V::load(&plane[1]) * cy) + V::load(&plane[2]) * cz)
        - V::load(&plane[3])
}

/// [`closest_feature`](super::sphere::closest_feature) with its loops
/// eight faces and eight edges at a time: the same feature and distance,
/// bit for bit.
///
/// ```text
/// faces, eight a step:  s = n . c - d (the face rows' bits); in order,
///                       the first with s > 0 whose loop holds c - s n
///                       (inside_face, one face at a time)
/// edges, eight a step:  t = (c - p0) . e / (e . e), the point p0, p1 or
///                       p0 + t e as t <= 0, t >= 1 or between, and its
///                       distance |c - point|; the first of the nearest
/// then, at a vertex:    the edges there, one at a time, as the loop does
/// ```
///
/// Each lane takes `closest_on_edge`'s and `length3`'s operations in their
/// order (the division and the square root are correctly rounded in
/// both); the nearest is taken lane by lane with the loop's strict
/// comparison, so its ties and NaN go as the loop's.
pub fn closest_feature_lanes(hull: &Hull, centre: Vec3) -> (Closest, f32) {
    #[cfg(target_arch = "x86_64")]
    if uses_avx() {
        // SAFETY: AVX was detected on this CPU.
        return unsafe { closest_feature_avx(hull, centre) };
    }
    closest_feature_with::<Portable>(hull, centre)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn closest_feature_avx(hull: &Hull, centre: Vec3) -> (Closest, f32) {
    closest_feature_with::<Avx>(hull, centre)
}

/// [`closest_feature_lanes`] on the portable lanes, whatever the CPU.
#[cfg(feature = "testing")]
#[doc(hidden)]
pub fn closest_feature_portable(hull: &Hull, centre: Vec3) -> (Closest, f32) {
    closest_feature_with::<Portable>(hull, centre)
}

#[inline(always)]
fn closest_feature_with<V: Lanes>(hull: &Hull, centre: Vec3) -> (Closest, f32) {
    let lanes = hull.lanes();
    let s = V::splat;
    let (cx, cy, cz) = (s(centre.x), s(centre.y), s(centre.z));
    let faces = hull.face_count();
    for (c, plane) in lanes.face_planes.iter().enumerate() {
        let values = centre_heights::<V>(plane, (cx, cy, cz));
        let valid = (1u32 << (faces - LANES * c).min(LANES)) - 1;
        let mut outside = values.greater_bits(s(0.0)) & valid;
        if outside == 0 {
            continue;
        }
        let separations = values.to_array();
        while outside != 0 {
            let k = outside.trailing_zeros() as usize;
            outside &= outside - 1;
            let (face, separation) = (LANES * c + k, separations[k]);
            let normal = Vec3::new(plane[0][k], plane[1][k], plane[2][k]);
            if inside_face(hull, face, centre - separation * normal) {
                return (Closest::Face(face as u32), separation);
            }
        }
    }
    // Every edge's closest point and its distance, eight edges at a time
    // (their ends gathered into the lanes), the first of the nearest kept.
    let edges = lanes.edge_ends.len();
    let mut best = (Closest::Face(0), f32::MAX);
    for first in (0..edges).step_by(LANES) {
        let count = (edges - first).min(LANES);
        let mut ends = [[[0.0f32; LANES]; 3]; 2];
        for k in 0..count {
            let (p0, p1) = lanes.edge_vertices(first + k);
            for (end, point) in ends.iter_mut().zip([p0, p1]) {
                (end[0][k], end[1][k], end[2][k]) = (point.x, point.y, point.z);
            }
        }
        // (No closures handed to other functions, as `array::map` or
        // `from_fn` take them: they would not inherit the AVX caller's
        // target features, and the lanes' operations would become calls.)
        let (x0, y0, z0) = (
            V::load(&ends[0][0]),
            V::load(&ends[0][1]),
            V::load(&ends[0][2]),
        );
        let (x1, y1, z1) = (
            V::load(&ends[1][0]),
            V::load(&ends[1][1]),
            V::load(&ends[1][2]),
        );
        let (ax, ay, az) = (x1 - x0, y1 - y0, z1 - z0);
        let (dx, dy, dz) = (cx - x0, cy - y0, cz - z0);
        let t = ((dx * ax + dy * ay) + dz * az).div((ax * ax + ay * ay) + az * az);
        let (low, high) = (t.le(s(0.0)), t.ge(s(1.0)));
        let px = low.select(x0, high.select(x1, x0 + t * ax));
        let py = low.select(y0, high.select(y1, y0 + t * ay));
        let pz = low.select(z0, high.select(z1, z0 + t * az));
        let (gx, gy, gz) = (cx - px, cy - py, cz - pz);
        let distances = ((gx * gx + gy * gy) + gz * gz).sqrt().to_array();
        let (low, high) = (low.mask_bits(), high.mask_bits());
        for (k, &distance) in distances.iter().enumerate().take(count) {
            if distance < best.1 {
                let edge = first + k;
                let [v0, v1] = lanes.edge_ends[edge];
                let feature = if low & (1 << k) != 0 {
                    Closest::Vertex(u32::from(v0))
                } else if high & (1 << k) != 0 {
                    Closest::Vertex(u32::from(v1))
                } else {
                    Closest::Edge(edge as u32)
                };
                best = (feature, distance);
            }
        }
    }
    if let Closest::Vertex(vertex) = best.0 {
        best = nearest_edge_at_vertex(hull, centre, vertex).unwrap_or(best);
    }
    best
}

/// A chunk of eight face planes (`HullLanes::face_planes`) moved by `xf`:
/// `[n'x, n'y, n'z, d']` with `n' = R n` and `d' = d + n' . t`, `rotate`
/// and `dot3` operand for operand, so each lane has the bits of the planes
/// moved one at a time.
#[inline(always)]
pub(super) fn moved_planes<V: Lanes>(plane: &[[f32; LANES]; 4], xf: Transform) -> [V; 4] {
    let s = V::splat;
    let lane = |row: usize| V::load(&plane[row]);
    let r = xf.r;
    let (nx, ny, nz) = (lane(0), lane(1), lane(2));
    let x = (s(r.c0.x) * nx + s(r.c1.x) * ny) + s(r.c2.x) * nz;
    let y = (s(r.c0.y) * nx + s(r.c1.y) * ny) + s(r.c2.y) * nz;
    let z = (s(r.c0.z) * nx + s(r.c1.z) * ny) + s(r.c2.z) * nz;
    let d = lane(3) + ((x * s(xf.p.x) + y * s(xf.p.y)) + z * s(xf.p.z));
    [x, y, z, d]
}

/// Whether a face (its plane moved into `hull2`'s frame) can be skipped:
/// an upper bound of its separation shows it can neither replace the best
/// face nor reach the limit, so the scan goes on as if it had been computed.
///
/// `hull2` holds a ball of radius `r` about a point `c` (`HullLanes`'
/// inner ball), so along any unit `n` its deepest vertex lies at or below
/// `n . c - r`, and the face's separation is at most
/// `U = (n . c - r) - d`. The separation is the minimum over `hull2`'s
/// vertices of `n . w - d` as computed; the ball's allowance covers the
/// rounding of both dot products, and subtracting `d` rounds monotonically,
/// so the computed separation is at most the computed `U` too. Then
///
/// ```text
/// U <= best + tolerance and U < limit:  skip (the face would change nothing)
/// ```
#[inline(always)]
pub(super) fn face_cannot_matter(
    moved: Vec3,
    moved_offset: f32,
    lanes2: &HullLanes,
    (best, tolerance, limit): (Separation, f32, f32),
) -> bool {
    let bound = (dot3(moved, lanes2.inner_centre) - lanes2.inner_radius) - moved_offset;
    bound <= best.value + tolerance && bound < limit
}

/// The Gauss-map test of B's moved edge against A's edges
/// `8 chunk .. 8 chunk + 7`: bit `k` set when edge `8 chunk + k`'s arc and
/// B's negated arc cross (exactly when [`gauss_test`](super::edges::gauss_test)
/// passes), with the lanes' `CBA` and `DBA` (the scalar test's values, bit
/// for bit).
#[inline(always)]
pub(super) fn crossing_mask<V: Lanes>(
    chunk: &[[f32; LANES]; 9],
    edge_b: (Vec3, Vec3, Vec3),
) -> (u32, V, V) {
    let lane = |k: usize| V::load(&chunk[k]);
    let arc = [lane(6), lane(7), lane(8)];
    crossing_mask_of(chunk, arc, edge_b)
}

/// [`crossing_mask`] on a chunk of a hull's edge normals
/// (`HullLanes::edge_normals`), the arcs recomputed (`arc_lanes`).
#[inline(always)]
fn crossing_mask_normals<V: Lanes>(
    chunk: &[[f32; LANES]; 6],
    edge_b: (Vec3, Vec3, Vec3),
) -> (u32, V, V) {
    crossing_mask_of(chunk, arc_lanes::<V>(chunk), edge_b)
}

/// Eight edges' arcs `v x u` from their normals' rows (`u` in rows 0-2,
/// `v` in rows 3-5), lane by lane with `cross3`'s operations: the bits the
/// hull was built with ([`EdgeGauss::arc`](crate::d3::EdgeGauss::arc)).
#[inline(always)]
fn arc_lanes<V: Lanes>(rows: &[[f32; LANES]]) -> [V; 3] {
    let lane = |k: usize| V::load(&rows[k]);
    let (ux, uy, uz) = (lane(0), lane(1), lane(2));
    let (vx, vy, vz) = (lane(3), lane(4), lane(5));
    [vy * uz - vz * uy, vz * ux - vx * uz, vx * uy - vy * ux]
}

/// [`crossing_mask`] with the normals in `rows` 0-5 and the arcs given.
#[inline(always)]
fn crossing_mask_of<V: Lanes>(
    rows: &[[f32; LANES]],
    [ax, ay, az]: [V; 3],
    (u_b, v_b, arc_b): (Vec3, Vec3, Vec3),
) -> (u32, V, V) {
    let lane = |k: usize| V::load(&rows[k]);
    let (ux, uy, uz) = (lane(0), lane(1), lane(2));
    let (vx, vy, vz) = (lane(3), lane(4), lane(5));
    let s = V::splat;
    // The scalar test's four dot products, operand for operand (a product
    // with -1 is the exact negation).
    let cba = s(-1.0) * ((s(u_b.x) * ax + s(u_b.y) * ay) + s(u_b.z) * az);
    let dba = s(-1.0) * ((s(v_b.x) * ax + s(v_b.y) * ay) + s(v_b.z) * az);
    let adc = (ux * s(arc_b.x) + uy * s(arc_b.y)) + uz * s(arc_b.z);
    let bdc = (vx * s(arc_b.x) + vy * s(arc_b.y)) + vz * s(arc_b.z);
    let zero = s(0.0);
    let crossing =
        (cba * dba).less_bits(zero) & (adc * bdc).less_bits(zero) & (cba * bdc).greater_bits(zero);
    (crossing, cba, dba)
}

/// [`find_max_edge_separation`](super::find_max_edge_separation) with the
/// Gauss-map test on eight edges of A at a time: the same candidates in the
/// same order, the same result bit for bit.
///
/// ```text
/// for each edge j of B (moved into A's frame once):
///     for each chunk of eight edges of A:
///         mask = the lanes whose arcs cross B's negated arc
///         for each set bit, lowest first: the scalar loop's body
/// ```
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn find_max_edge_separation_lanes(
    hull_a: &Hull,
    hull_b: &Hull,
    xf: Transform,
    tolerance: f32,
    limit: f32,
    floor: f32,
    stats: &mut EdgeStats,
) -> EdgeSeparation {
    // The scratch is borrowed here, outside the AVX function: code in a
    // closure does not inherit `target_feature`, and the intrinsics would
    // become calls (eight times slower).
    let levels = (tolerance, limit, floor);
    EDGE_FILTER.with_borrow_mut(|filter| {
        #[cfg(target_arch = "x86_64")]
        if uses_avx() {
            // SAFETY: AVX was detected on this CPU.
            return unsafe { edge_separation_avx(hull_a, hull_b, xf, levels, stats, filter) };
        }
        edge_separation_filtered::<Portable>(hull_a, hull_b, xf, levels, stats, filter)
    })
}

/// [`find_max_edge_separation_lanes`] on the portable lanes, whatever the
/// CPU (for the tests).
#[cfg(feature = "testing")]
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn find_max_edge_separation_portable(
    hull_a: &Hull,
    hull_b: &Hull,
    xf: Transform,
    tolerance: f32,
    limit: f32,
    floor: f32,
    stats: &mut EdgeStats,
) -> EdgeSeparation {
    let levels = (tolerance, limit, floor);
    EDGE_FILTER.with_borrow_mut(|filter| {
        edge_separation_filtered::<Portable>(hull_a, hull_b, xf, levels, stats, filter)
    })
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn edge_separation_avx(
    hull_a: &Hull,
    hull_b: &Hull,
    xf: Transform,
    levels: (f32, f32, f32),
    stats: &mut EdgeStats,
    filter: &mut EdgeFilter,
) -> EdgeSeparation {
    edge_separation_filtered::<Avx>(hull_a, hull_b, xf, levels, stats, filter)
}

/// Hulls whose edges fill at most this many chunks of eight are not
/// filtered by the bound on A's side (see `edge_separation_filtered`).
const FILTER_MIN_CHUNKS: usize = 2;

/// 64-bit words of a bit set with one bit per edge of a hull (at most
/// `3 x MAX_HULL_VERTICES - 6` edges, by Euler's formula), and the chunks
/// of eight edges a word holds.
const CANDIDATE_WORDS: usize = (3 * MAX_HULL_VERTICES).div_ceil(64);
const CHUNKS_PER_WORD: usize = 64 / LANES;

/// The edge query's scratch, reused from pair to pair on a thread.
#[derive(Default)]
struct EdgeFilter {
    /// Per edge of A, then of B: the bound of its pairs' separations.
    bounds_a: Vec<f32>,
    bounds_b: Vec<f32>,
    /// The edges of A whose bound keeps them, ascending, and their arcs
    /// gathered eight to a chunk (the last padded with zero arcs).
    kept: Vec<u32>,
    chunks: Vec<[[f32; LANES]; 9]>,
    /// Per chunk of A's edges, the ones the bound keeps at the last refilter.
    masks: Vec<u32>,
    /// The scan's level the masks were computed at (`LOWEST`: not yet
    /// filtered, every edge of A is tested).
    level: f32,
}

thread_local! {
    static EDGE_FILTER: std::cell::RefCell<EdgeFilter> = std::cell::RefCell::new(EdgeFilter::default());
}

/// Each edge's bound on the separation of any of its pairs, against the
/// other hull's inner ball (`centre` in this hull's frame, `radius`).
///
/// An edge pair's axis `n` lies on the edge's arc (for A; on the negated
/// arc for B, and then `n` is taken as the direction out of B): `n = a u +
/// b v` with `a, b >= 0` and `1 <= a + b <= k = 1 / cos(angle / 2)`. The
/// pair's separation is `n . (q - p)` with `p` on this edge (this hull's
/// support along `n`) and `q` the other hull's support along `-n`, which
/// the other hull's inner ball puts at most `n . centre - radius` along
/// `n`. So, with `x = centre - p`,
///
/// ```text
/// m     = max(u . x, v . x) = max(u . centre - u . p, v . centre - v . p)
/// bound = max(m, k m) - radius       # m if m <= 0, k m otherwise
/// ```
///
/// (for an edge of B the same with B's own normals: the arc negated and the
/// axis flipped cancel). The rounding is left to `EdgeScan::cannot_matter`.
#[inline(always)]
pub(super) fn edge_bounds<V: Lanes>(
    lanes: &HullLanes,
    (centre, radius): (Vec3, f32),
    out: &mut Vec<f32>,
) {
    out.clear();
    let s = V::splat;
    let (cx, cy, cz) = (s(centre.x), s(centre.y), s(centre.z));
    for (arc, plane) in lanes.edge_normals.iter().zip(&lanes.edge_planes) {
        let lane = |row: &[f32; LANES]| V::load(row);
        let along_u =
            ((lane(&arc[0]) * cx + lane(&arc[1]) * cy) + lane(&arc[2]) * cz) - lane(&plane[0]);
        let along_v =
            ((lane(&arc[3]) * cx + lane(&arc[4]) * cy) + lane(&arc[5]) * cz) - lane(&plane[1]);
        let m = along_u.max(along_v);
        let bound = m.max(m * lane(&plane[2])) - s(radius);
        out.extend_from_slice(&bound.to_array());
    }
}

impl EdgeFilter {
    /// After the scan's level has risen: which edges of A each chunk still keeps
    /// (the bounds eight at a time), and, when that is at most three
    /// quarters of the edges gathered last (or none were gathered yet), the
    /// kept edges' arcs gathered again. A gathered list that still holds a
    /// few edges the bound now rules out only costs their tests.
    #[inline(always)]
    fn refilter<V: Lanes>(&mut self, lanes_a: &HullLanes, scan: &EdgeScan) {
        let first = self.level <= LOWEST;
        self.level = scan.level();
        let (ceiling, limit, allowance) = scan.skip_levels();
        let edges = lanes_a.edge_ends.len();
        let mut count = 0;
        self.masks.clear();
        for (c, bounds) in self.bounds_a.chunks_exact(LANES).enumerate() {
            let bound = V::load_slice(bounds) + V::splat(allowance);
            let skip = skip_bits(bound, ceiling, limit);
            let valid = if LANES * (c + 1) <= edges {
                (1 << LANES) - 1
            } else {
                (1u32 << (edges - LANES * c)) - 1
            };
            let keep = !skip & valid;
            count += keep.count_ones() as usize;
            self.masks.push(keep);
        }
        if !first && 4 * count > 3 * self.kept.len() {
            return;
        }
        // Written in place: the chunks zeroed first (zero normals pad the
        // last), then each kept edge's six normal values into its lane, and
        // then each chunk's arcs from them (`arc_lanes`).
        self.kept.clear();
        self.chunks.clear();
        self.chunks.resize(count.div_ceil(LANES), [[0.0; LANES]; 9]);
        for (c, &mask) in self.masks.iter().enumerate() {
            let source = &lanes_a.edge_normals[c];
            let mut mask = mask;
            while mask != 0 {
                let k = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let n = self.kept.len();
                let chunk = &mut self.chunks[n / LANES];
                for (values, row) in chunk.iter_mut().zip(source) {
                    values[n % LANES] = row[k];
                }
                self.kept.push((LANES * c + k) as u32);
            }
        }
        for chunk in &mut self.chunks {
            let arc = arc_lanes::<V>(&chunk[..]);
            for (row, lanes) in chunk[6..].iter_mut().zip(arc) {
                *row = lanes.to_array();
            }
        }
    }
}

/// The edge query with both hulls' edges bounded against the other's inner
/// ball (`edge_bounds`): an edge of B whose bound rules out all its pairs
/// is skipped before it is even moved into A's frame, and each edge of B
/// is tested only against the edges of A whose bound keeps them (refiltered
/// each time the best rises, gathered again when that drops a quarter). Skipping a pair that cannot replace the best
/// nor reach the limit changes nothing the scan decides.
#[inline(always)]
fn edge_separation_filtered<V: Lanes>(
    hull_a: &Hull,
    hull_b: &Hull,
    xf: Transform,
    levels: (f32, f32, f32),
    stats: &mut EdgeStats,
    filter: &mut EdgeFilter,
) -> EdgeSeparation {
    let (lanes_a, lanes_b) = (hull_a.lanes(), hull_b.lanes());
    let reach = length3(xf.p) + lanes_a.reach + lanes_b.reach;
    let mut scan = EdgeScan::new(levels, reach);
    let edges_a = hull_a.edges();
    let edges_b = hull_b.edges().len();
    stats.hull_pairs += 1;
    stats.edge_pairs += (edges_a.len() * edges_b) as u64;
    // Two boxes: the edges of B, and for each the edges of A, whose
    // direction pairs could matter (all where not two boxes).
    let mut live_b = None;
    let mut allowed_a = [0u32; 3];
    if let (Some(box_a), Some(box_b)) = (lanes_a.cuboid, lanes_b.cuboid)
        && let Some(bounds) = box_edge_bound_lanes::<V>(box_a, box_b, xf)
    {
        let mut live = 0;
        for (j, allowed) in allowed_a.iter_mut().enumerate() {
            for (i, row) in bounds.iter().enumerate() {
                if !scan.cannot_matter(row[j]) {
                    *allowed |= lanes_a.cuboid_axis_edges[i];
                }
            }
            if *allowed != 0 {
                live |= lanes_b.cuboid_axis_edges[j];
            }
        }
        if live == 0 {
            // No edge pair can be kept or reach the limit: the answer of
            // the full scan, which would keep none.
            stats.skipped += edges_b as u64;
            return scan.best;
        }
        live_b = Some(live);
    }
    let centre_a = inv_transform_point(xf, lanes_a.inner_centre);
    // A's edges are filtered where they fill more than two chunks (below
    // that the filter costs more than the tests it saves: boxes were 20%
    // slower with it).
    let filter_a = lanes_a.edge_normals.len() > FILTER_MIN_CHUNKS;
    if filter_a {
        let centre_b = transform_point(xf, lanes_b.inner_centre);
        edge_bounds::<V>(
            lanes_a,
            (centre_b, lanes_b.inner_radius),
            &mut filter.bounds_a,
        );
        if let (Some(box_b), None) = (lanes_b.cuboid, lanes_a.cuboid)
            && flat_box(box_b)
        {
            let xf_ba = inv_mul_transforms(xf, Transform::IDENTITY);
            tighten_against_box::<V>(hull_a, xf_ba, box_b, &mut filter.bounds_a);
        }
    }
    edge_bounds::<V>(
        lanes_b,
        (centre_a, lanes_a.inner_radius),
        &mut filter.bounds_b,
    );
    // A hull against a flat box (two boxes have their own bound above).
    if let (Some(box_a), None) = (lanes_a.cuboid, lanes_b.cuboid)
        && flat_box(box_a)
    {
        tighten_against_box::<V>(hull_b, xf, box_a, &mut filter.bounds_b);
    }
    filter.level = LOWEST;
    // B's edges that the bound keeps at the scan's level, found eight at a
    // time (`EdgeScan::cannot_matter` on each lane: a branch per edge would
    // be mispredicted at random) into a bit set, whose bits are then taken
    // in order. An edge step can raise the level, so each edge is checked
    // again, alone, when its turn comes (the same test on the same bound:
    // where the level has not risen, the same answer).
    let mut candidates = [0u64; CANDIDATE_WORDS];
    let (level, limit, allowance) = scan.skip_levels();
    for c in 0..filter.bounds_b.len() / LANES {
        let all = (1u32 << (edges_b - LANES * c).min(LANES)) - 1;
        // A box's edges fill two chunks.
        let live = live_b.map_or(all, |live| all & live >> (LANES * c));
        let skip = if level > LOWEST {
            let bounds = V::load_slice(&filter.bounds_b[LANES * c..]) + V::splat(allowance);
            skip_bits(bounds, level, limit)
        } else {
            0
        };
        candidates[c / CHUNKS_PER_WORD] |=
            u64::from(live & !skip) << (LANES * (c % CHUNKS_PER_WORD));
    }
    let mut tested = 0;
    for (w, &word) in candidates.iter().enumerate().take(edges_b.div_ceil(64)) {
        let mut word = word;
        while word != 0 {
            let j = 64 * w + word.trailing_zeros() as usize;
            word &= word - 1;
            if scan.cannot_matter(filter.bounds_b[j]) {
                continue;
            }
            tested += 1;
            // Two boxes: the edges of A whose directions could matter with
            // this edge's (its bit is in one axis' set).
            let allowed = live_b.and_then(|_| Some(allowed_a[lanes_b.cuboid_axis_of(j)?]));
            let exit = edge_step::<V>(
                (hull_a, hull_b),
                xf,
                (j, allowed),
                filter_a,
                (&mut scan, stats, filter),
            );
            if let Some(exit) = exit {
                // The edges before it that were passed over.
                stats.skipped += (j + 1 - tested) as u64;
                return exit;
            }
        }
    }
    stats.skipped += (edges_b - tested) as u64;
    scan.best
}

/// [`hull_segment_queries`](super::rounded::hull_segment_queries), eight
/// faces and eight edges at a time: the same results bit for bit, or
/// `None` where a face's two heights are both zero (the scalar `min` of a
/// +0 and a -0 need not be the vectors') or its separation is not finite,
/// for the caller to run the loops instead.
///
/// ```text
/// faces, eight a step:  s = min(n . s0, n . s1) - d     # the products in dot3's order
///                       offered in order (tie rule, stop at the limit)
/// edges, eight a step:  crossing where (u . along) (v . along) < 0
///                       for those: axis = (p1 - p0) x along, normalised,
///                       skipped if |axis| <= PARALLEL_TOLERANCE |p1 - p0| |along|,
///                       turned along u + v; s = axis . (s0 - p0)
///                       offered in order
/// ```
///
/// Every lane takes `segment_edge_axis`'s operations in its order (the
/// square roots and the division are correctly rounded in both), so only
/// the work is shared: the scalar loop's two square roots and three
/// divisions for each crossing edge, one edge after another, go eight at
/// once.
#[inline]
pub(crate) fn hull_segment_queries_lanes(
    hull: &Hull,
    segment: [Vec3; 2],
    levels: (f32, f32),
) -> Option<Option<(Separation, Separation)>> {
    #[cfg(target_arch = "x86_64")]
    if uses_avx() {
        // SAFETY: AVX was detected on this CPU.
        return unsafe { hull_segment_queries_avx(hull, segment, levels) };
    }
    hull_segment_queries_with::<Portable>(hull, segment, levels)
}

/// [`hull_segment_queries_lanes`] on the portable lanes, whatever the CPU
/// (for the tests).
#[cfg(test)]
pub(crate) fn hull_segment_queries_portable(
    hull: &Hull,
    segment: [Vec3; 2],
    levels: (f32, f32),
) -> Option<Option<(Separation, Separation)>> {
    hull_segment_queries_with::<Portable>(hull, segment, levels)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn hull_segment_queries_avx(
    hull: &Hull,
    segment: [Vec3; 2],
    levels: (f32, f32),
) -> Option<Option<(Separation, Separation)>> {
    hull_segment_queries_with::<Avx>(hull, segment, levels)
}

#[inline(always)]
fn hull_segment_queries_with<V: Lanes>(
    hull: &Hull,
    segment: [Vec3; 2],
    (tolerance, limit): (f32, f32),
) -> Option<Option<(Separation, Separation)>> {
    let lanes = hull.lanes();
    let s = V::splat;
    let [s0, s1] = segment;
    let face_count = hull.face_count();
    let mut face = Separation::NONE;
    for (chunk, rows) in lanes.face_planes.iter().enumerate() {
        let lane = |row: usize| V::load(&rows[row]);
        let (nx, ny, nz) = (lane(0), lane(1), lane(2));
        let along = |p: Vec3| (nx * s(p.x) + ny * s(p.y)) + nz * s(p.z);
        let (h0, h1) = (along(s0), along(s1));
        let separations = h0.min(h1) - lane(3);
        let valid = (1u32 << (face_count - LANES * chunk).min(LANES)) - 1;
        let zeros = h0.eq(s(0.0)).and(h1.eq(s(0.0)));
        let finite = separations.abs().lt(s(f32::INFINITY));
        if (zeros.mask_bits() | !finite.mask_bits()) & valid != 0 {
            return None;
        }
        // The tie rule over the chunk with the scan's outcome: where no
        // other face is within twice the tolerance of the largest, the
        // loop could only take that one (2D's `scan_group`).
        let active = valid.count_ones() as usize;
        let scan = separations.scan(active, tolerance);
        if scan.largest >= limit {
            return Some(None);
        }
        if scan.close == 1 {
            face.offer(scan.largest, (chunk * LANES + scan.lane) as u32, tolerance);
        } else {
            for (k, &separation) in separations.to_array().iter().enumerate().take(active) {
                face.offer(separation, (chunk * LANES + k) as u32, tolerance);
            }
        }
    }
    let along = s1 - s0;
    let (ax, ay, az) = (s(along.x), s(along.y), s(along.z));
    // `length3(along)`, once: the scalar loop's every crossing edge takes
    // the same value.
    let along_length = length3(along);
    let edge_count = hull.edges().len();
    let mut edge = Separation::NONE;
    for (chunk, rows) in lanes.edge_normals.iter().enumerate() {
        let lane = |row: usize| V::load(&rows[row]);
        let (ux, uy, uz) = (lane(0), lane(1), lane(2));
        let (vx, vy, vz) = (lane(3), lane(4), lane(5));
        let du = (ux * ax + uy * ay) + uz * az;
        let dv = (vx * ax + vy * ay) + vz * az;
        let valid = (1u32 << (edge_count - LANES * chunk).min(LANES)) - 1;
        let mut crossing = (du * dv).less_bits(s(0.0)) & valid;
        if crossing == 0 {
            continue;
        }
        // The crossing edges' ends, gathered into lanes (the others zero).
        let mut ends = [[0.0f32; LANES]; 6];
        let mut bits = crossing;
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let (p0, p1) = lanes.edge_vertices(chunk * LANES + k);
            for (row, value) in ends.iter_mut().zip([p0.x, p0.y, p0.z, p1.x, p1.y, p1.z]) {
                row[k] = value;
            }
        }
        let end = |row: usize| V::load(&ends[row]);
        let (p0x, p0y, p0z) = (end(0), end(1), end(2));
        let (dx, dy, dz) = (end(3) - p0x, end(4) - p0y, end(5) - p0z);
        // cross3(direction, along), length3, and the parallel test.
        let (cx, cy, cz) = (dy * az - dz * ay, dz * ax - dx * az, dx * ay - dy * ax);
        let length = ((cx * cx + cy * cy) + cz * cz).sqrt();
        let direction_length = ((dx * dx + dy * dy) + dz * dz).sqrt();
        let parallel = length.le(s(PARALLEL_TOLERANCE) * direction_length * s(along_length));
        crossing &= !parallel.mask_bits();
        let (x, y, z) = (cx.div(length), cy.div(length), cz.div(length));
        // Turned along u + v (negation is exact).
        let (wx, wy, wz) = (ux + vx, uy + vy, uz + vz);
        let flip = ((x * wx + y * wy) + z * wz).lt(s(0.0));
        let (x, y, z) = (
            flip.select(x.neg(), x),
            flip.select(y.neg(), y),
            flip.select(z.neg(), z),
        );
        let (ex, ey, ez) = (s(s0.x) - p0x, s(s0.y) - p0y, s(s0.z) - p0z);
        let separations = ((x * ex + y * ey) + z * ez).to_array();
        while crossing != 0 {
            let k = crossing.trailing_zeros() as usize;
            crossing &= crossing - 1;
            edge.offer(separations[k], (chunk * LANES + k) as u32, tolerance);
            if separations[k] >= limit {
                return Some(None);
            }
        }
    }
    Some(Some((face, edge)))
}

/// Whether a box (`(centre, half extents)`) is flat or long enough for
/// [`tighten_against_box`] to pay: its longest half extent more than
/// `FLAT_BOX_RATIO` times its shortest. Its inner ball, whose radius is the
/// shortest, then bounds a hull's edges poorly away from its centre.
#[inline(always)]
fn flat_box((_, half): (Vec3, Vec3)) -> bool {
    half.max_element() > FLAT_BOX_RATIO * half.min_element()
}

/// See [`flat_box`]. Measured on the 3D demo's settled pile (VM, Intel
/// Xeon, one thread, the SAT of its last frame's pairs, the bound taken
/// against every box): hulls above 16 vertices against its walls (5 to 50
/// times as wide as thick) 0.30 ms with it, 0.38 without; against its
/// boxes (half extents 0.05 to 0.2, at most 4 to 1) 0.60 with it, 0.38
/// without (measured with the edge's direction from its ends, the same
/// work), where the inner ball already bounds well and the bound's cost,
/// some 500 ns for a 64-vertex hull, is not repaid.
const FLAT_BOX_RATIO: f32 = 4.0;

/// A vector in every lane.
#[inline(always)]
fn splat3<V: Lanes>(v: Vec3) -> [V; 3] {
    [V::splat(v.x), V::splat(v.y), V::splat(v.z)]
}

/// Tightens each edge's bound in `bounds` (a hull's edges against another
/// hull, [`edge_bounds`]) where the other hull is a box (`(centre, half
/// extents)` in its own frame; `xf` takes the hull's points into it): the
/// separation of an edge pair is the two hulls' along the pair's axis, and
/// against a box that has a closed form. A flat box (a floor, a wall) has a
/// thin inner ball, whose bound keeps most edges of a hull resting on it;
/// this keeps about those in the contact plane.
///
/// The axis of a pair that passes the Gauss-map test is where the two arcs
/// cross: on the box's, so perpendicular to its edge `e_k`, and on the
/// hull's great circle, so perpendicular to the hull edge's arc `a = v x
/// u` (its faces' normals; the scan builds the axis from them, not from
/// the edge's ends). So `n = ±c / |c|` with `c = e_k x a`, the box's edge
/// is the box's support along `n`, and with `p` the edge's first vertex (in
/// the box's frame)
///
/// ```text
/// separation = n . (p - centre) - sum_m half_m |n_m|   (either orientation)
///           <= (|c . (p - centre)| - sum_m half_m |c_m|) / |c|
/// bound      = the largest over k; a direction closer to parallel than
///              BOX_PARALLEL adds none (the scan skips those pairs)
/// ```
///
/// the box pair's bound (`box_pair_bound`) with the hull's reach replaced
/// by the edge's own point. The bound is left as it is for an edge whose
/// arc is shorter than `ARC_TRUSTED` (the sine of the angle between its
/// faces' normals) or with a direction between `BOX_PARALLEL` and
/// `BOX_TRUSTED` of parallel. Otherwise `|c|` is at least `ARC_TRUSTED x
/// BOX_TRUSTED = 0.005`, so the rounding of the arc and of the rotations
/// (a few `1e-7`) turns `c`, and the scan's axis from the exact crossing,
/// by at most some `7e-5` radians; a separation moves with the axis by at
/// most some `1.4` reaches, so the bound is off by about `1e-4` of the
/// reach at worst, inside `EdgeScan::cannot_matter`'s allowance of `2e-4`.
/// Eight edges at a time; the inputs are finite (validated shapes and
/// bodies).
#[inline(always)]
fn tighten_against_box<V: Lanes>(
    hull: &Hull,
    xf: Transform,
    (centre, half): (Vec3, Vec3),
    bounds: &mut [f32],
) {
    let lanes = hull.lanes();
    let edges = lanes.edge_ends.len().min(bounds.len());
    let s = V::splat;
    // Into the box's frame: p = R p0 + (t - centre), a = R arc.
    let r = [splat3::<V>(xf.r.c0), splat3(xf.r.c1), splat3(xf.r.c2)];
    let shift = splat3::<V>(xf.p - centre);
    for (c, normals) in lanes.edge_normals.iter().enumerate() {
        let first = LANES * c;
        if first >= edges {
            break;
        }
        let count = (edges - first).min(LANES);
        // The edges' first vertices, gathered into the lanes (missing
        // lanes repeat the chunk's last edge, and are not written back).
        let mut origins = [[0.0f32; LANES]; 3];
        let edge_of_lane = (0..LANES).map(|k| first + k.min(count - 1));
        for (k, e) in edge_of_lane.enumerate() {
            let p = lanes.edge_origin(e);
            (origins[0][k], origins[1][k], origins[2][k]) = (p.x, p.y, p.z);
        }
        let [px, py, pz] = across::add3(across::rotate(r, across::load3(&origins)), shift);
        let arc = across::rotate(r, arc_lanes::<V>(&normals[..]));
        let length_a = across::length3(arc);
        let [ex, ey, ez] = arc;
        let mut bound = s(LOWEST);
        let mut untrusted = length_a.less_bits(s(ARC_TRUSTED));
        // c = e_k x a for k = x, y, z: (0, -az, ay), (az, 0, -ax), (-ay, ax, 0).
        for (c1, c2, h1, h2, p1, p2) in [
            (ez, ey, half.y, half.z, py, pz),
            (ez, ex, half.x, half.z, px, pz),
            (ey, ex, half.x, half.y, px, py),
        ] {
            // |c| and the sums below take c's two components up to sign,
            // which the absolute values drop: c . p = ±(c2 p2 - c1 p1)
            // with the components in this order for each axis.
            let length = (c1 * c1 + c2 * c2).sqrt();
            let parallel = length.lt(s(BOX_PARALLEL) * length_a);
            untrusted |= length.less_bits(s(BOX_TRUSTED) * length_a) & !parallel.mask_bits();
            let reach = s(h1) * c1.abs() + s(h2) * c2.abs();
            let along = (c2 * p2 - c1 * p1).abs();
            let this = (along - reach).div(length);
            bound = bound.max(parallel.select(s(LOWEST), this));
        }
        let bound = bound.to_array();
        for (k, slot) in bounds[first..first + count].iter_mut().enumerate() {
            if untrusted >> k & 1 == 0 && bound[k] < *slot {
                *slot = bound[k];
            }
        }
    }
}

/// An edge whose faces' normals are closer to parallel or opposite than
/// this (the sine of their angle, the length of its arc) keeps its bound
/// against a box ([`tighten_against_box`]): its arc's direction, a rounded
/// cross product of the two, is less certain. Measured on the 3D demo's
/// settled pile (VM, Intel Xeon, one thread, the SAT of its last frame's
/// hulls above 16 vertices against its walls): 0.34 ms at 0.2, 0.29 at
/// 0.1, 0.27 at 0.05 (whose error estimate comes within a factor of two of
/// the scan's allowance).
const ARC_TRUSTED: f32 = 0.1;

/// Edge pairs closer to parallel than this (the sine of their angle) are
/// all skipped by the scan's parallel test, whatever their bound: B's face
/// normals are then within about this of perpendicular to A's edge, far
/// inside `PARALLEL_TOLERANCE`.
const BOX_PARALLEL: f32 = 1.0e-6;

/// Below this sine (and above `BOX_PARALLEL`) the division by the axis'
/// length could magnify the bound's rounding past the scan's allowance, so
/// no bound is given. Random rotations meet it on about one pair in a
/// hundred (nine directions, each `P(|cos| > 0.99875) = 0.00125`).
const BOX_TRUSTED: f32 = 0.05;

/// [`box_edge_bound_lanes`] one direction pair after another: the scalar
/// form the tests hold the lanes to.
#[cfg(test)]
fn box_edge_bound(
    (centre_a, half_a): (Vec3, Vec3),
    (centre_b, half_b): (Vec3, Vec3),
    xf: Transform,
) -> Option<[[f32; 3]; 3]> {
    let d = transform_point(xf, centre_b) - centre_a;
    let axes_b = [xf.r.c0, xf.r.c1, xf.r.c2];
    let mut bounds = [[LOWEST; 3]; 3];
    for (i, row) in bounds.iter_mut().enumerate() {
        for (j, bound) in row.iter_mut().enumerate() {
            *bound = box_pair_bound((i, j), axes_b, (half_a, half_b), d)?;
        }
    }
    Some(bounds)
}

/// The bound of A's axis `i` with B's axis `j` ([`box_edge_bound_lanes`]'s
/// `[i][j]`; `LOWEST` where they are parallel; `None` too close to parallel
/// to trust).
#[inline(always)]
fn box_pair_bound(
    (i, j): (usize, usize),
    axes_b: [Vec3; 3],
    (half_a, half_b): (Vec3, Vec3),
    d: Vec3,
) -> Option<f32> {
    let b = axes_b[j];
    let c = match i {
        0 => Vec3::new(0.0, -b.z, b.y),
        1 => Vec3::new(b.z, 0.0, -b.x),
        _ => Vec3::new(-b.y, b.x, 0.0),
    };
    let length = length3(c);
    if length < BOX_PARALLEL {
        return Some(LOWEST);
    }
    if length < BOX_TRUSTED {
        return None;
    }
    let reach_a = half_a.x * c.x.abs() + half_a.y * c.y.abs() + half_a.z * c.z.abs();
    let reach_b = half_b.x * dot3(c, axes_b[0]).abs()
        + half_b.y * dot3(c, axes_b[1]).abs()
        + half_b.z * dot3(c, axes_b[2]).abs();
    Some((dot3(c, d).abs() - reach_a - reach_b) / length)
}

/// Upper bounds of the separation of the edge pairs of two boxes
/// (`(centre, half extents)` in each one's frame; `xf` takes B's points
/// into A's), for each direction pair (`[i][j]`: A's edges along its axis
/// `i` with B's along its axis `j`; `LOWEST` where the directions are
/// parallel, whose pairs the scan skips), or `None` where a direction pair
/// is too close to parallel to trust a bound.
///
/// A box's edges run along its three axes, so the pairs' axes take nine
/// directions, `c = e_i x b_j` (A's axis `i`, B's axis `j` in A's frame),
/// and along each the separation of the boxes is the classic OBB test's
/// (Gottschalk 1996):
///
/// ```text
/// d = B's centre - A's centre
/// s = (|c . d| - sum_k a_k |c_k| - sum_m b_m |c . b_m|) / |c|
/// ```
///
/// in whichever orientation separates more. An edge pair that passes the
/// Gauss-map test has both edges supporting along its axis, so its
/// separation is the boxes' along it (up to rounding, which the scan's
/// allowance covers: with `|c| >= BOX_TRUSTED` the bound's own rounding,
/// some `1e-6` of the reach, grows at most twentyfold). Most overlapping
/// box pairs touch on a face, and then no edge direction beats the deepest
/// face: the whole edge query is passed over, before any edge is moved.
///
/// Eight direction pairs at a time (lane `3 i + j`; the ninth, `i = j = 2`,
/// alone): the scalar form's operations lane by lane, so its bits, without
/// nine square roots and divisions in a row.
#[inline(always)]
fn box_edge_bound_lanes<V: Lanes>(
    (centre_a, half_a): (Vec3, Vec3),
    (centre_b, half_b): (Vec3, Vec3),
    xf: Transform,
) -> Option<[[f32; 3]; 3]> {
    let d = transform_point(xf, centre_b) - centre_a;
    let axes_b = [xf.r.c0, xf.r.c1, xf.r.c2];
    let last = box_pair_bound((2, 2), axes_b, (half_a, half_b), d)?;
    // The cross products e_i x b_j, lane 3 i + j.
    let mut c = [[0.0f32; LANES]; 3];
    for lane in 0..LANES {
        let b = axes_b[lane % 3];
        let column = match lane / 3 {
            0 => [0.0, -b.z, b.y],
            1 => [b.z, 0.0, -b.x],
            _ => [-b.y, b.x, 0.0],
        };
        for (row, value) in c.iter_mut().zip(column) {
            row[lane] = value;
        }
    }
    let s = V::splat;
    let (cx, cy, cz) = (V::load(&c[0]), V::load(&c[1]), V::load(&c[2]));
    let dot = |v: Vec3| (cx * s(v.x) + cy * s(v.y)) + cz * s(v.z);
    let length = ((cx * cx + cy * cy) + cz * cz).sqrt();
    let parallel = length.less_bits(s(BOX_PARALLEL));
    if length.less_bits(s(BOX_TRUSTED)) & !parallel != 0 {
        return None;
    }
    let reach_a = (s(half_a.x) * cx.abs() + s(half_a.y) * cy.abs()) + s(half_a.z) * cz.abs();
    let reach_b = (s(half_b.x) * dot(axes_b[0]).abs() + s(half_b.y) * dot(axes_b[1]).abs())
        + s(half_b.z) * dot(axes_b[2]).abs();
    let bound = ((dot(d).abs() - reach_a) - reach_b).div(length).to_array();
    let mut bounds = [[last; 3]; 3];
    for (lane, &value) in bound.iter().enumerate() {
        bounds[lane / 3][lane % 3] = if parallel >> lane & 1 == 1 {
            LOWEST
        } else {
            value
        };
    }
    Some(bounds)
}

/// One edge of B that the bound keeps, against A's edges (those A's bound
/// keeps, once A's edges are filtered): the pairs whose arcs cross are
/// offered in the pairwise loop's order. Returns the pair that reached the
/// limit, if one did.
#[inline(always)]
fn edge_step<V: Lanes>(
    (hull_a, hull_b): (&Hull, &Hull),
    xf: Transform,
    (j, allowed_a): (usize, Option<u32>),
    filter_a: bool,
    (scan, stats, filter): (&mut EdgeScan, &mut EdgeStats, &mut EdgeFilter),
) -> Option<EdgeSeparation> {
    let lanes_a = hull_a.lanes();
    let edges_a = hull_a.edges();
    if filter_a && scan.level() > filter.level {
        filter.refilter::<V>(lanes_a, scan);
    }
    let (u_b, v_b, arc_b, point_b) = moved_edge(hull_b, j, xf);
    if let Some(allowed) = allowed_a {
        stats.skipped_a += (edges_a.len() - (allowed.count_ones() as usize)) as u64;
    }
    let edge_b = (u_b, v_b, arc_b);
    let (chunks, kept) = if filter.level > LOWEST {
        stats.skipped_a += (edges_a.len() - filter.kept.len()) as u64;
        (filter.chunks.len(), Some(&filter.kept[..]))
    } else {
        (lanes_a.edge_normals.len(), None)
    };
    for c in 0..chunks {
        // The gathered chunks hold their arcs; A's own rows do not.
        let (mut mask, cba, dba) = match kept {
            Some(_) => crossing_mask::<V>(&filter.chunks[c], edge_b),
            None => crossing_mask_normals::<V>(&lanes_a.edge_normals[c], edge_b),
        };
        if let Some(allowed) = allowed_a {
            // A box's edges fill two chunks.
            mask &= allowed >> (LANES * c);
        }
        if mask == 0 {
            continue;
        }
        let (cba, dba) = (cba.to_array(), dba.to_array());
        while mask != 0 {
            let k = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let i = kept.map_or(LANES * c + k, |kept| kept[LANES * c + k] as usize);
            stats.kept += 1;
            if let Some(exit) = scan.offer(
                (i as u32, j as u32),
                (cba[k], dba[k]),
                lanes_a.parallel_bound(i),
                (u_b, v_b, point_b),
                lanes_a.edge_origin(i),
            ) {
                return Some(exit);
            }
        }
    }
    None
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::d3::sat::find_max_edge_separation;
    use glam::Quat;

    /// A seeded stream of values in `[-1, 1]` for the unit tests.
    pub(crate) fn xorshift(seed: u32) -> impl FnMut() -> f32 {
        let mut state = seed;
        move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as f32 / u32::MAX as f32 * 2.0 - 1.0
        }
    }

    /// The closed-form bound of a hull's edges against a flat box
    /// (`tighten_against_box`) is, within the scan's allowance, at least the
    /// separation the pairwise loop computes for every pair of the edge
    /// with the box's edges that it measures (the Gauss-map test passed,
    /// not nearly parallel), the box as A and as B; on random hulls,
    /// hulls of merged near-coplanar faces (jittered boxes and prisms),
    /// resting on the box, leaning and near it; and it is lower than the
    /// inner ball's bound on many of the resting hulls' edges.
    #[test]
    fn flat_box_bound_is_above_every_edge_pair() {
        use super::super::edges::{SKIP_SLACK, edge_axis, gauss_test, nearly_parallel};
        let mut next = xorshift(0x0F1A_7B0C);
        let boxes: Vec<Hull> = [
            Vec3::new(3.0, 0.05, 3.0),
            Vec3::new(2.0, 0.1, 0.5),
            Vec3::new(1.5, 0.08, 0.08),
        ]
        .into_iter()
        .map(|half| Hull::cuboid(half).expect("a valid box"))
        .chain(std::iter::once({
            // Off centre: its corners as given.
            let (low, high) = (Vec3::new(-1.0, 0.2, -2.0), Vec3::new(2.5, 0.3, 1.0));
            let corners: Vec<Vec3> = (0..8)
                .map(|k| {
                    let pick = |bit: u32, a: f32, b: f32| if k >> bit & 1 == 0 { a } else { b };
                    Vec3::new(
                        pick(0, low.x, high.x),
                        pick(1, low.y, high.y),
                        pick(2, low.z, high.z),
                    )
                })
                .collect();
            Hull::new(&corners).expect("a valid box")
        }))
        .collect();
        let mut hulls = Vec::new();
        for count in [8, 16, 40, 64] {
            let points: Vec<Vec3> = (0..count)
                .map(|_| Vec3::new(next(), 0.6 * next(), next()).normalize_or_zero() * 0.3)
                .collect();
            hulls.push(Hull::new(&points).expect("a valid hull"));
        }
        // Merged near-coplanar faces: a jittered box, a jittered prism.
        let jitter = |next: &mut dyn FnMut() -> f32| 1e-5 * next();
        let mut jittered = Vec::new();
        for _ in 0..3 {
            for k in 0..27 {
                let at = |i: i32| (i - 1) as f32 * 0.2;
                let p = Vec3::new(at(k % 3), at(k / 3 % 3) * 0.5, at(k / 9));
                jittered
                    .push(p + Vec3::new(jitter(&mut next), jitter(&mut next), jitter(&mut next)));
            }
        }
        hulls.push(Hull::new(&jittered).expect("a valid hull"));
        let prism: Vec<Vec3> = (0..24)
            .flat_map(|k| {
                let angle = k as f32 * std::f32::consts::TAU / 24.0;
                [-0.15, 0.0, 0.15].map(|y| {
                    Vec3::new(0.25 * angle.cos(), y, 0.25 * angle.sin())
                        + Vec3::new(jitter(&mut next), jitter(&mut next), jitter(&mut next))
                })
            })
            .collect();
        hulls.push(Hull::new(&prism).expect("a valid hull"));
        let (mut pairs, mut tightened, mut edges) = (0u64, 0u64, 0u64);
        for flat in &boxes {
            let (low, high) = flat.lanes().cuboid_corners.expect("a box");
            let cuboid = flat.lanes().cuboid.expect("a box");
            for hull in &hulls {
                for case in 0..60 {
                    let turn = match case % 3 {
                        0 => Quat::from_xyzw(next(), next(), next(), next()).normalize(),
                        1 => Quat::from_axis_angle(
                            Vec3::new(next(), 1.0, next()).normalize(),
                            1e-3 * next(),
                        ),
                        _ => Quat::from_axis_angle(Vec3::Y, 3.0 * next()),
                    };
                    let lowest = hull
                        .vertices()
                        .iter()
                        .map(|&v| (turn * v).y)
                        .fold(f32::MAX, f32::min);
                    let gap = [0.0, 1e-6, -1e-3, 0.02, 0.3][case % 5];
                    let spread = [0.5, 1.0, 1.1][case / 3 % 3];
                    let position = Vec3::new(
                        (low.x + high.x) * 0.5 + spread * next() * (high.x - low.x) * 0.5,
                        high.y - lowest + gap,
                        (low.z + high.z) * 0.5 + spread * next() * (high.z - low.z) * 0.5,
                    );
                    let box_xf =
                        Transform::new(Vec3::new(1.0, -2.0, 0.5), Quat::from_rotation_y(0.7));
                    let hull_xf = Transform::new(
                        transform_point(box_xf, position),
                        box_xf_rotation(box_xf) * turn,
                    );
                    for box_is_a in [true, false] {
                        let (hull_a, hull_b, xf_a, xf_b) = if box_is_a {
                            (flat, hull, box_xf, hull_xf)
                        } else {
                            (hull, flat, hull_xf, box_xf)
                        };
                        let xf = inv_mul_transforms(xf_a, xf_b);
                        // The bounds of the hull's edges, starting from the ball's.
                        let (the_hull, to_box) = if box_is_a {
                            (hull_b, xf)
                        } else {
                            (hull_a, inv_mul_transforms(xf, Transform::IDENTITY))
                        };
                        let mut ball = Vec::new();
                        let centre_box = if box_is_a {
                            inv_transform_point(xf, flat.lanes().inner_centre)
                        } else {
                            transform_point(xf, flat.lanes().inner_centre)
                        };
                        edge_bounds::<Portable>(
                            the_hull.lanes(),
                            (centre_box, flat.lanes().inner_radius),
                            &mut ball,
                        );
                        let mut bounds = ball.clone();
                        tighten_against_box::<Portable>(the_hull, to_box, cuboid, &mut bounds);
                        let reach = length3(xf.p) + hull_a.lanes().reach + hull_b.lanes().reach;
                        let allowance = 2.0 * SKIP_SLACK * reach;
                        for (e, (&tight, &wide)) in bounds
                            .iter()
                            .zip(&ball)
                            .enumerate()
                            .take(the_hull.edges().len())
                        {
                            edges += 1;
                            tightened += u64::from(tight < wide - allowance);
                            // Every pair of this edge with the box's edges.
                            for other in 0..flat.edges().len() {
                                let (i, j) = if box_is_a { (other, e) } else { (e, other) };
                                let (u_b, v_b, arc_b, point_b) = moved_edge(hull_b, j, xf);
                                let a = hull_a.lanes().edge_gauss(i);
                                let Some((cba, dba)) =
                                    gauss_test((a.u, a.v, a.arc), (u_b, v_b, arc_b))
                                else {
                                    continue;
                                };
                                if nearly_parallel(cba, dba, a.arc) {
                                    continue;
                                }
                                let axis = edge_axis(u_b, v_b, cba, dba);
                                let separation =
                                    dot3(axis, point_b - hull_a.lanes().edge_origin(i));
                                assert!(
                                    separation <= tight + allowance,
                                    "box as {}: edge {e} of a hull of {} vertices, pair ({i}, {j}): separation {separation} above the bound {tight} (+ {allowance}); case {case}",
                                    if box_is_a { "A" } else { "B" },
                                    hull.vertices().len()
                                );
                                pairs += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(
            pairs > 50_000 && tightened * 4 > edges,
            "{pairs} edge pairs checked, {tightened} of {edges} edges' bounds tightened"
        );
    }

    /// The rotation of a transform as a quaternion, for composing poses.
    fn box_xf_rotation(xf: Transform) -> Quat {
        Quat::from_mat3(&glam::Mat3::from_cols(xf.r.c0, xf.r.c1, xf.r.c2))
    }

    /// The closed-form bound of two boxes' edge pairs along the deepest pair's
    /// directions is at least that pair's separation (the pairwise loops,
    /// no floor, no limit), on
    /// random boxes in random poses, axis-aligned ones and nearly aligned
    /// ones; and it is given on most random poses.
    #[test]
    fn box_edge_bound_is_above_every_edge_pair() {
        let mut next = xorshift(0x1234_5677);
        let mut given = 0;
        let mut poses = 0;
        for case in 0..3000 {
            let half = |next: &mut dyn FnMut() -> f32| {
                Vec3::new(next(), next(), next()).abs() * 2.0 + Vec3::splat(0.05)
            };
            let (ha, hb) = (half(&mut next), half(&mut next));
            let (a, b) = (
                Hull::cuboid(ha).expect("a valid box"),
                Hull::cuboid(hb).expect("a valid box"),
            );
            let rotation = match case % 3 {
                0 => Quat::from_xyzw(next(), next(), next(), next()).normalize(),
                1 => Quat::IDENTITY,
                _ => Quat::from_axis_angle(
                    Vec3::new(next(), next(), next()).normalize(),
                    1e-3 * next(),
                ),
            };
            let xf = Transform::new(Vec3::new(next(), next(), next()) * 3.0, rotation);
            let (box_a, box_b) = (a.lanes().cuboid, b.lanes().cuboid);
            assert_eq!(
                (box_a, box_b),
                (Some((Vec3::ZERO, ha)), Some((Vec3::ZERO, hb)))
            );
            let mut stats = EdgeStats::default();
            let deepest = find_max_edge_separation(&a, &b, xf, 0.0, f32::MAX, LOWEST, &mut stats);
            poses += 1;
            let bounds = box_edge_bound((Vec3::ZERO, ha), (Vec3::ZERO, hb), xf);
            let bits =
                |bounds: Option<[[f32; 3]; 3]>| bounds.map(|b| b.map(|row| row.map(f32::to_bits)));
            let portable = box_edge_bound_lanes::<Portable>((Vec3::ZERO, ha), (Vec3::ZERO, hb), xf);
            assert_eq!(
                bits(portable),
                bits(bounds),
                "case {case}: the lanes' bound"
            );
            #[cfg(target_arch = "x86_64")]
            if uses_avx() {
                // SAFETY: AVX was detected on this CPU.
                let avx = unsafe { box_edge_bound_avx((Vec3::ZERO, ha), (Vec3::ZERO, hb), xf) };
                assert_eq!(bits(avx), bits(bounds), "case {case}: the AVX lanes' bound");
            }
            let Some(bounds) = bounds else {
                continue;
            };
            let axis_of = |hull: &Hull, e: u32| {
                let lanes = hull.lanes();
                assert_eq!(
                    lanes.cuboid_axis_edges.map(u32::count_ones),
                    [4, 4, 4],
                    "a box's edges four to an axis"
                );
                lanes
                    .cuboid_axis_of(e as usize)
                    .expect("every edge on an axis")
            };
            let bound = if deepest.value > LOWEST {
                bounds[axis_of(&a, deepest.a)][axis_of(&b, deepest.b)]
            } else {
                LOWEST
            };
            given += 1;
            let slack = 1e-5 * (length3(xf.p) + a.lanes().reach + b.lanes().reach);
            assert!(
                bound + slack >= deepest.value,
                "case {case}: bound {bound} below the deepest edge pair {deepest:?}"
            );
        }
        assert!(
            given * 10 >= poses * 6,
            "a bound on only {given} of {poses} poses"
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,popcnt")]
    fn box_edge_bound_avx(
        box_a: (Vec3, Vec3),
        box_b: (Vec3, Vec3),
        xf: Transform,
    ) -> Option<[[f32; 3]; 3]> {
        box_edge_bound_lanes::<Avx>(box_a, box_b, xf)
    }

    /// A hull against a segment, eight faces and edges at a time
    /// (`hull_segment_queries_lanes`, AVX where the CPU has it, and the
    /// portable lanes), gives the loops' best face and edge and early exit
    /// bit for bit: random hulls of 4 to 64 vertices and boxes, segments at
    /// random, along an axis, along a hull's edge (parallel pairs),
    /// through a vertex, short and long, far and deep, with no limit and
    /// with limits that stop the queries.
    #[test]
    fn hull_segment_queries_in_lanes_are_the_loops() {
        use super::super::rounded::hull_segment_queries;
        let mut next = xorshift(0x5e9_c0de);
        let mut hulls = vec![
            Hull::cuboid(Vec3::new(0.5, 1.0, 2.0)).expect("a valid box"),
            Hull::cuboid(Vec3::splat(0.3)).expect("a valid cube"),
        ];
        for count in [4, 6, 8, 12, 16, 24, 32, 48, 64] {
            for _ in 0..3 {
                let points: Vec<Vec3> = (0..count)
                    .map(|_| Vec3::new(next(), next(), next()).normalize_or_zero() * 0.8)
                    .collect();
                if let Ok(hull) = Hull::new(&points) {
                    hulls.push(hull);
                }
            }
        }
        let (mut compared, mut stopped, mut edges_found, mut fallbacks) = (0, 0, 0, 0);
        for hull in &hulls {
            for case in 0..300 {
                let centre =
                    Vec3::new(next(), next(), next()) * if case % 5 == 0 { 3.0 } else { 0.9 };
                let direction = match case % 6 {
                    0 => Vec3::X,
                    1 => {
                        // Along one of the hull's edges.
                        let e = (case as usize / 6) % hull.edges().len();
                        let (p0, p1) = hull.lanes().edge_vertices(e);
                        p1 - p0
                    }
                    2 => {
                        // Off an edge by one to two parallel tolerances.
                        let e = (case as usize / 6) % hull.edges().len();
                        let (p0, p1) = hull.lanes().edge_vertices(e);
                        let off = (p1 - p0)
                            .cross(Vec3::new(next(), next(), next()))
                            .normalize_or_zero();
                        let angle = PARALLEL_TOLERANCE * (1.0 + next().abs());
                        (p1 - p0) + off * (angle * (p1 - p0).length())
                    }
                    _ => Vec3::new(next(), next(), next()),
                };
                let half = if case % 7 == 0 {
                    1e-3
                } else {
                    0.3 + next().abs()
                };
                let segment = match case % 11 {
                    // From a vertex.
                    3 => {
                        let v = hull.vertices()[case as usize % hull.vertices().len()];
                        [v, v + direction * half]
                    }
                    _ => [centre - direction * half, centre + direction * half],
                };
                let tolerance = 2e-6 * (hull.size() + 2.0 * half);
                for limit in [f32::MAX, 0.0, 0.1] {
                    let want = hull_segment_queries(hull, segment, (tolerance, limit));
                    for (name, got) in [
                        (
                            "portable",
                            hull_segment_queries_portable(hull, segment, (tolerance, limit)),
                        ),
                        (
                            "default",
                            hull_segment_queries_lanes(hull, segment, (tolerance, limit)),
                        ),
                    ] {
                        let Some(got) = got else {
                            fallbacks += 1;
                            continue;
                        };
                        let bits = |r: Option<(Separation, Separation)>| {
                            r.map(|(f, e)| (f.index, f.value.to_bits(), e.index, e.value.to_bits()))
                        };
                        assert_eq!(
                            bits(got),
                            bits(want),
                            "{name}: hull of {} vertices, segment {segment:?}, limit {limit}: {got:?} against {want:?}",
                            hull.vertices().len()
                        );
                        compared += 1;
                    }
                    match want {
                        None => stopped += 1,
                        Some((_, e)) => edges_found += usize::from(e.value > LOWEST),
                    }
                }
            }
        }
        assert!(
            compared > 40_000
                && stopped > 5_000
                && edges_found > 10_000
                && fallbacks < compared / 100,
            "{compared} compared, {stopped} stopped, {edges_found} with an edge, {fallbacks} to the loops"
        );
    }

    /// Only exact axis-aligned boxes are taken as boxes.
    #[test]
    fn only_exact_boxes_are_cuboids() {
        let half = Vec3::new(0.5, 1.5, 0.25);
        let cuboid = Hull::cuboid(half).expect("a valid box");
        assert_eq!(cuboid.lanes().cuboid, Some((Vec3::ZERO, half)));
        let shifted: Vec<Vec3> = cuboid
            .vertices()
            .iter()
            .map(|&v| v + Vec3::new(2.0, -1.0, 0.5))
            .collect();
        let shifted = Hull::new(&shifted).expect("a valid box");
        assert_eq!(
            shifted.lanes().cuboid,
            Some((Vec3::new(2.0, -1.0, 0.5), half))
        );
        let turned = Quat::from_rotation_z(0.3);
        let turned: Vec<Vec3> = cuboid.vertices().iter().map(|&v| turned * v).collect();
        let turned = Hull::new(&turned).expect("a valid box");
        assert_eq!(turned.lanes().cuboid, None);
        let mut next = xorshift(0x0bad_cafe);
        let cloud: Vec<Vec3> = (0..8).map(|_| Vec3::new(next(), next(), next())).collect();
        let cloud = Hull::new(&cloud).expect("a random cloud hulls");
        assert_eq!(cloud.lanes().cuboid, None);
    }

    /// The incident-face search on the lanes (AVX where the CPU has it, and
    /// the portable lanes) finds the scalar loop's face, ties included: a
    /// box seen along a diagonal has two or three faces equally opposed.
    #[test]
    fn most_opposed_face_is_the_scalar_loops() {
        let mut next = xorshift(0x2545_f491);
        let mut hulls = vec![Hull::cuboid(Vec3::new(0.3, 1.0, 2.5)).expect("a valid box")];
        for count in [4, 9, 17, 40, 120, 256] {
            let points: Vec<Vec3> = (0..count)
                .map(|_| Vec3::new(next(), next(), next()))
                .collect();
            hulls.push(Hull::new(&points).expect("a random cloud hulls"));
        }
        let mut directions = Vec::new();
        for x in [-1.0, 0.0, 1.0] {
            for y in [-1.0, 0.0, 1.0] {
                for z in [-1.0, 0.0, 1.0] {
                    directions.push(Vec3::new(x, y, z));
                }
            }
        }
        directions.extend((0..200).map(|_| Vec3::new(next(), next(), next())));
        for (h, hull) in hulls.iter().enumerate() {
            for &direction in &directions {
                let mut scalar = (0, f32::MAX);
                for (k, &normal) in hull.normals().iter().enumerate() {
                    let alignment = dot3(direction, normal);
                    if alignment < scalar.1 {
                        scalar = (k, alignment);
                    }
                }
                let found = most_opposed_face(hull, direction);
                let portable = most_opposed_face_with::<Portable>(hull, direction);
                assert_eq!(
                    (found, portable),
                    (scalar.0, scalar.0),
                    "hull {h} ({} faces), direction {direction}: lanes and portable against the scalar loop",
                    hull.face_count()
                );
            }
        }
    }
}
