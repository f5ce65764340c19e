//! Two boxes, eight pairs at a time: a lane a pair, what `boxes.rs`
//! computes for one pair (`collide_boxes`), bit for bit.
//!
//! Inside one pair a box's six faces fill six of eight lanes and its nine
//! edge candidates run one after another, each waiting on its square root
//! and division. Across pairs each lane runs one pair's scalar query, face
//! after face and candidate after candidate, its branches as selections: as
//! the GPU runs an invocation a pair. The eight pairs' transforms and boxes
//! are gathered first, so their loads are in flight together.
//!
//! ```text
//! gather:  each pair's world transforms, the first six rows of each box's
//!          face planes, its corners, the two sizes
//! lanes:   xf_ab, xf_ba = inv_mul_transforms, as collide_pair forms them
//!          for the faces of A (in B's frame), then of B (in A's):
//!              n', d' = the plane moved (moved_planes' operations)
//!              s = the deepest corner's height (box_face_separation's)
//!              tie rule (s > best + tolerance), separated where s >= margin
//!          floor = the chosen face + the edge tolerance
//!          for each of B's axes j, then A's axes i (offer_box_edges):
//!              n = e_i x b_j, its length, the sign toward B, the corners,
//!              s = sign (n . (corner_b - corner_a)) / len
//!              kept where s > best + tolerance and s > floor, the sides
//!              kept with it; separated where s >= margin
//! finish:  per lane, the kept candidate's edges from the box's table and
//!          the hull pairs' choice (choose_hull_axis), as the scalar query
//! ```
//!
//! Every value is the scalar operation on the same operands in the same
//! order (a lane's minimum is the same instruction's), so NaNs, signed
//! zeros and ties come out as they do pair by pair; the test
//! `box_pairs_take_their_own_lanes_with_the_scalar_bits`
//! (`tests/it/d3/lanes.rs`) holds both vector types to `collide_pair`.

use crate::core::simd::Lanes;
use crate::d3::math::Transform;
use crate::d3::shape::lanes::BoxRegions;
use crate::d3::shape::shapes::Hull;

use super::boxes::box_edge;
use super::segments_across::{LaneAnswer, PAIRS, V3, add3, dot3, inv_rotate, load3, rotate, sub3};
use super::separation::{
    EDGE_TOLERANCE, EdgeSeparation, LOWEST, PARALLEL_TOLERANCE, Separation, TIE_TOLERANCE,
    choose_hull_axis,
};

/// Faces of a box: the first six of its face group's rows.
const FACES: usize = 6;

/// One side of eight pairs: its world transform, its box's face planes
/// (`planes[f][row][lane]`, rows `n.x, n.y, n.z, d`), corners and size.
#[derive(Clone, Copy)]
struct SideLanes {
    r: [[[f32; PAIRS]; 3]; 3],
    p: [[f32; PAIRS]; 3],
    planes: [[[f32; PAIRS]; 4]; FACES],
    low: [[f32; PAIRS]; 3],
    high: [[f32; PAIRS]; 3],
    size: [f32; PAIRS],
}

impl Default for SideLanes {
    fn default() -> SideLanes {
        let mut identity = [[[0.0; PAIRS]; 3]; 3];
        for (k, column) in identity.iter_mut().enumerate() {
            column[k] = [1.0; PAIRS];
        }
        SideLanes {
            r: identity,
            p: [[0.0; PAIRS]; 3],
            planes: [[[0.0; PAIRS]; 4]; FACES],
            low: [[-1.0; PAIRS]; 3],
            high: [[1.0; PAIRS]; 3],
            size: [1.0; PAIRS],
        }
    }
}

impl SideLanes {
    #[inline(always)]
    fn set(&mut self, lane: usize, xf: Transform, hull: &Hull, regions: &BoxRegions) {
        for (k, column) in [xf.r.c0, xf.r.c1, xf.r.c2].into_iter().enumerate() {
            for row in 0..3 {
                self.r[k][row][lane] = column[row];
            }
        }
        let rows = &hull.lanes().face_planes[0];
        for row in 0..3 {
            self.p[row][lane] = xf.p[row];
            self.low[row][lane] = regions.low[row];
            self.high[row][lane] = regions.high[row];
        }
        for (f, plane) in self.planes.iter_mut().enumerate() {
            for (row, values) in plane.iter_mut().enumerate() {
                values[lane] = rows[row][f];
            }
        }
        self.size[lane] = hull.size();
    }

    #[inline(always)]
    fn transform<V: Lanes>(&self) -> ([V3<V>; 3], V3<V>) {
        (
            [load3(&self.r[0]), load3(&self.r[1]), load3(&self.r[2])],
            load3(&self.p),
        )
    }
}

/// Up to eight pairs of two boxes (hulls with `BoxRegions`), filled one at
/// a time and answered together.
#[derive(Default)]
pub(crate) struct BoxPairs<'a> {
    a: SideLanes,
    b: SideLanes,
    regions: [Option<(&'a BoxRegions, &'a BoxRegions)>; PAIRS],
    len: usize,
}

/// What the lanes leave for each pair to finish on its own: both face
/// queries' results, the kept edge candidate with its sides, and whether
/// the pair separated.
struct LaneResults {
    face_a: ([f32; PAIRS], [f32; PAIRS]),
    face_b: ([f32; PAIRS], [f32; PAIRS]),
    edge: [f32; PAIRS],
    candidate: [f32; PAIRS],
    sides: [[f32; PAIRS]; 4],
    tolerance: [f32; PAIRS],
    edge_tolerance: [f32; PAIRS],
    separated: u32,
}

/// The candidates' axes in the scan's order: B's axis outermost.
const CANDIDATES: [(usize, usize); 9] = [
    (0, 0),
    (1, 0),
    (2, 0),
    (0, 1),
    (1, 1),
    (2, 1),
    (0, 2),
    (1, 2),
    (2, 2),
];

impl<'a> BoxPairs<'a> {
    /// Whether all eight lanes are filled.
    #[inline(always)]
    pub(crate) fn is_full(&self) -> bool {
        self.len == PAIRS
    }

    /// Lanes filled.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Fills the next lane with a pair of boxes and their bodies' world
    /// transforms; `false` (and nothing filled) where either hull is not a
    /// box with `BoxRegions`. The caller checks
    /// [`is_full`](Self::is_full) first.
    #[inline(always)]
    pub(crate) fn push(
        &mut self,
        (xf_a, box_a): (Transform, &'a Hull),
        (xf_b, box_b): (Transform, &'a Hull),
    ) -> bool {
        let (Some(regions_a), Some(regions_b)) =
            (&box_a.lanes().box_regions, &box_b.lanes().box_regions)
        else {
            return false;
        };
        let lane = self.len;
        self.a.set(lane, xf_a, box_a, regions_a);
        self.b.set(lane, xf_b, box_b, regions_b);
        self.regions[lane] = Some((regions_a, regions_b));
        self.len += 1;
        true
    }

    /// The filled lanes' results, in the order they were pushed, and the
    /// lanes emptied. (Every lane answers: the lanes' operations are the
    /// scalar query's.)
    pub(crate) fn finish(&mut self, margin: f32) -> [LaneAnswer; PAIRS] {
        #[cfg(target_arch = "x86_64")]
        if crate::core::simd::uses_avx() {
            // SAFETY: AVX was detected on this CPU.
            return self.answers(unsafe { collide_lanes_avx(&self.a, &self.b, margin) });
        }
        self.answers(collide_lanes::<crate::core::simd::Portable>(
            &self.a, &self.b, margin,
        ))
    }

    /// Each filled lane's answer from what the lanes left: the kept
    /// candidate's edges and the hull pairs' choice, as `collide_boxes`.
    fn answers(&mut self, lanes: LaneResults) -> [LaneAnswer; PAIRS] {
        let mut answers = [Ok(None); PAIRS];
        for (lane, answer) in answers.iter_mut().enumerate().take(self.len) {
            if lanes.separated >> lane & 1 == 1 {
                continue;
            }
            let Some((regions_a, regions_b)) = self.regions[lane] else {
                continue;
            };
            let separation = |(value, index): &([f32; PAIRS], [f32; PAIRS])| Separation {
                value: value[lane],
                index: index[lane] as u32,
            };
            let value = lanes.edge[lane];
            let edge = if value <= LOWEST {
                EdgeSeparation::NONE
            } else {
                let (i, j) = CANDIDATES[lanes.candidate[lane] as usize];
                let side = |k: usize| lanes.sides[k][lane] != 0.0;
                let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
                let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
                let mut high_a = [false; 3];
                (high_a[i1], high_a[i2]) = (side(0), side(1));
                let mut high_b = [false; 3];
                (high_b[j1], high_b[j2]) = (side(2), side(3));
                EdgeSeparation {
                    value,
                    a: box_edge(regions_a, i, high_a),
                    b: box_edge(regions_b, j, high_b),
                }
            };
            *answer = Ok(Some(choose_hull_axis(
                separation(&lanes.face_a),
                separation(&lanes.face_b),
                edge,
                lanes.tolerance[lane],
                lanes.edge_tolerance[lane],
            )));
        }
        self.len = 0;
        self.regions = [None; PAIRS];
        answers
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn collide_lanes_avx(a: &SideLanes, b: &SideLanes, margin: f32) -> LaneResults {
    collide_lanes::<crate::core::simd::avx::Avx>(a, b, margin)
}

/// `inv_mul_transforms(a, b)` in lanes: B's frame in A's.
#[inline(always)]
fn inv_mul<V: Lanes>(
    (ra, pa): ([V3<V>; 3], V3<V>),
    (rb, pb): ([V3<V>; 3], V3<V>),
) -> ([V3<V>; 3], V3<V>) {
    (
        [
            inv_rotate(ra, rb[0]),
            inv_rotate(ra, rb[1]),
            inv_rotate(ra, rb[2]),
        ],
        inv_rotate(ra, sub3(pb, pa)),
    )
}

/// One face query of `box_face_separation` in lanes: `side`'s faces
/// against the other box's corners (`low`, `high`), the planes moved by
/// `(r, p)` (the face box into the corner box's frame). Its best
/// separation and face, and the lanes where a face reached `margin`.
#[inline(always)]
fn face_query<V: Lanes>(
    side: &SideLanes,
    (low, high): (V3<V>, V3<V>),
    (r, p): ([V3<V>; 3], V3<V>),
    tolerance: V,
    margin: V,
) -> (V, V, u32) {
    let (mut best, mut index) = (V::splat(LOWEST), V::splat(0.0));
    let mut separated = 0;
    for (f, plane) in side.planes.iter().enumerate() {
        let (nx, ny, nz) = (V::load(&plane[0]), V::load(&plane[1]), V::load(&plane[2]));
        // moved_planes: `s(r.c0.x) * nx`, column by column.
        let x = (r[0][0] * nx + r[1][0] * ny) + r[2][0] * nz;
        let y = (r[0][1] * nx + r[1][1] * ny) + r[2][1] * nz;
        let z = (r[0][2] * nx + r[1][2] * ny) + r[2][2] * nz;
        let d = V::load(&plane[3]) + ((x * p[0] + y * p[1]) + z * p[2]);
        let deepest = ((x * low[0]).min(x * high[0]) + (y * low[1]).min(y * high[1]))
            + (z * low[2]).min(z * high[2]);
        let separation = deepest - d;
        // Separation::offer: replace only when larger by the tolerance.
        let take = separation.gt(best + tolerance);
        best = take.select(separation, best);
        index = take.select(V::splat(f as f32), index);
        separated |= separation.ge(margin).mask_bits();
    }
    (best, index, separated)
}

#[inline(always)]
fn collide_lanes<V: Lanes>(a: &SideLanes, b: &SideLanes, margin: f32) -> LaneResults {
    let (xf_a, xf_b) = (a.transform::<V>(), b.transform::<V>());
    let xf_ab = inv_mul(xf_a, xf_b);
    let xf_ba = inv_mul(xf_b, xf_a);
    let sizes = V::load(&a.size) + V::load(&b.size);
    let tolerance = V::splat(TIE_TOLERANCE) * sizes;
    let edge_tolerance = V::splat(EDGE_TOLERANCE) * sizes;
    let limit = V::splat(margin);
    let (low_a, high_a) = (load3::<V>(&a.low), load3::<V>(&a.high));
    let (low_b, high_b) = (load3::<V>(&b.low), load3::<V>(&b.high));
    let (face_a, index_a, separated_a) = face_query(a, (low_b, high_b), xf_ba, tolerance, limit);
    let (face_b, index_b, separated_b) = face_query(b, (low_a, high_a), xf_ab, tolerance, limit);
    let mut separated = separated_a | separated_b;
    // edge_floor: B's face where it beats A's by the tolerance.
    let face = face_b.gt(face_a + tolerance).select(face_b, face_a);
    let floor = face + edge_tolerance;
    // box_centres_apart.
    let half = V::splat(0.5);
    let centre = |low: V3<V>, high: V3<V>| {
        let sum = add3(low, high);
        [sum[0] * half, sum[1] * half, sum[2] * half]
    };
    let (centre_a, centre_b) = (centre(low_a, high_a), centre(low_b, high_b));
    let (columns, p) = xf_ab;
    let d = sub3(add3(rotate(columns, centre_b), p), centre_a);
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    let (mut best, mut candidate) = (V::splat(LOWEST), zero);
    let mut sides = [zero; 4];
    for (c, &(i, j)) in CANDIDATES.iter().enumerate() {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
        // box_axis.
        let b_j = columns[j];
        let mut n = [zero; 3];
        n[i1] = b_j[i2].neg();
        n[i2] = b_j[i1];
        let len = (n[i1] * n[i1] + n[i2] * n[i2]).sqrt();
        let skipped = len.le(V::splat(PARALLEL_TOLERANCE));
        let sign = (n[i1] * d[i1] + n[i2] * d[i2])
            .ge(zero)
            .select(one, one.neg());
        // offer_box_edges: the sides, the corners, the separation.
        let side_a = [(sign * n[i1]).gt(zero), (sign * n[i2]).gt(zero)];
        let side_b = [
            (sign.neg() * columns[j2][i]).gt(zero),
            (sign * columns[j1][i]).gt(zero),
        ];
        let mut corner_a = low_a;
        corner_a[i1] = side_a[0].select(high_a[i1], low_a[i1]);
        corner_a[i2] = side_a[1].select(high_a[i2], low_a[i2]);
        let mut corner_b = low_b;
        corner_b[j1] = side_b[0].select(high_b[j1], low_b[j1]);
        corner_b[j2] = side_b[1].select(high_b[j2], low_b[j2]);
        let corner_b = add3(rotate(columns, corner_b), p);
        let separation = (sign * dot3(n, sub3(corner_b, corner_a))).div(len);
        let active = skipped.not();
        let kept = separation
            .gt(best + tolerance)
            .and(separation.gt(floor))
            .and(active);
        best = kept.select(separation, best);
        candidate = kept.select(V::splat(c as f32), candidate);
        for (kept_side, side) in sides
            .iter_mut()
            .zip([side_a[0], side_a[1], side_b[0], side_b[1]])
        {
            *kept_side = kept.select(side.select(one, zero), *kept_side);
        }
        separated |= separation.ge(limit).and(active).mask_bits();
    }
    LaneResults {
        face_a: (face_a.to_array(), index_a.to_array()),
        face_b: (face_b.to_array(), index_b.to_array()),
        edge: best.to_array(),
        candidate: candidate.to_array(),
        sides: sides.map(V::to_array),
        tolerance: tolerance.to_array(),
        edge_tolerance: edge_tolerance.to_array(),
        separated,
    }
}
