//! Two triangle or quad cores, eight pairs at a time: a lane a pair, what
//! `polygons.rs` computes for one pair (and `rounded.rs` after it, for
//! cores with radii), bit for bit.
//!
//! Inside one pair the faces fill the lanes (`lanes.rs`): a quad's four
//! faces leave half of an eight-lane vector idle, and every pair pays its
//! own branches (the early exit, the tie rule's near-ties, A's face or B's)
//! on random poses. Across pairs each lane runs one pair's scalar loop,
//! face after face and vertex after vertex, its branches as selections:
//! as the GPU runs an invocation a pair.
//!
//! ```text
//! gather:  each pair's world transforms, its polygons' first four faces
//!          (normals and vertices, face i of every lane in one vector),
//!          sizes and radii
//! lanes:   for the faces of A against B's vertices, then B's against A's:
//!              n, v = face i moved into the other's frame; offset = n . v
//!              s    = min over the other's vertices w of (n.x w.x - offset) + n.y w.y
//!              the tie rule (s > best + tolerance), separated where
//!              s >= margin + radii
//!          B's best only where better than A's by more than the tolerance
//! check:   a lane where a face's separation is zero or not finite is
//!          left to the pair's own path (which of a +0 and a -0 a minimum
//!          keeps depends on the order it meets them in); elsewhere every
//!          operation is the scalar one, in the same order, on the same
//!          values
//! radii:   a reported lane with radii goes on to rounded.rs's cases, pair
//!          by pair (finish_rounded)
//! ```
//!
//! Triangles and quads: beyond four faces a polygon's own eight lanes do
//! better (measured on a 2-vCPU Intel Xeon, 1M pairs of the reference
//! distribution, one thread, SAT, pair by pair -> here, with every lane
//! running to its polygon's own count: triangles 35.7 -> 27.8 ns a pair,
//! quads 39.5 -> 34.0, 5-gons 40.9 -> 38.5, 6-gons 40.7 -> 43.0, 8-gons
//! 42.9 -> 55.5; four faces in every lane, quads 40.5 -> 30.3). A triangle's fourth
//! face is its face group's padding, a copy of face 0, which changes
//! nothing (see `side_best`).
//!
//! The batch loops (`lanes.rs`) take a range whose first 64 pairs are all
//! of two such cores eight consecutive pairs at a time, and a group of
//! eight with another kind of pair in it pair by pair. The test
//! `polygon_pairs_take_their_own_path_with_the_general_paths_bits`
//! (`tests/it/d2/lanes.rs`) holds both vector types to the general path.

use crate::core::pair::Owner;
use crate::core::simd::Lanes;
use crate::d2::math::{Transform, inv_mul_transforms};
use crate::d2::shape::{EdgeRecord, FaceLanes};
use crate::d2::types::Axis;

use super::rounded::finish_rounded;
use super::segments_across::{PAIRS, Pair2, dot, inv_mul, rotate, transform_point};
use super::separation::{LOWEST, PairResult, TIE_TOLERANCE};

/// The most vertices a polygon of these lanes has.
pub(crate) const MAX_VERTICES: u32 = 4;
/// Faces a lane holds: [`MAX_VERTICES`], the rest of a polygon's face
/// group repeating its face 0.
const FACES: usize = MAX_VERTICES as usize;

/// One side of eight pairs: its world transform, the first [`FACES`] of
/// its polygon's face group turned around (`nx[i][lane]`: face `i` of the
/// lane's polygon), its size and radius.
#[derive(Clone, Copy)]
struct SideLanes {
    px: [f32; PAIRS],
    py: [f32; PAIRS],
    c: [f32; PAIRS],
    s: [f32; PAIRS],
    nx: [[f32; PAIRS]; FACES],
    ny: [[f32; PAIRS]; FACES],
    vx: [[f32; PAIRS]; FACES],
    vy: [[f32; PAIRS]; FACES],
    size: [f32; PAIRS],
    radius: [f32; PAIRS],
}

impl Default for SideLanes {
    fn default() -> SideLanes {
        SideLanes {
            px: [0.0; PAIRS],
            py: [0.0; PAIRS],
            c: [1.0; PAIRS],
            s: [0.0; PAIRS],
            nx: [[0.0; PAIRS]; FACES],
            ny: [[0.0; PAIRS]; FACES],
            vx: [[0.0; PAIRS]; FACES],
            vy: [[0.0; PAIRS]; FACES],
            size: [0.0; PAIRS],
            radius: [0.0; PAIRS],
        }
    }
}

impl SideLanes {
    #[inline(always)]
    fn set(&mut self, lane: usize, xf: Transform, faces: &FaceLanes, (size, radius): (f32, f32)) {
        self.px[lane] = xf.p.x;
        self.py[lane] = xf.p.y;
        self.c[lane] = xf.q.c;
        self.s[lane] = xf.q.s;
        for i in 0..FACES {
            self.nx[i][lane] = faces.nx[i];
            self.ny[i][lane] = faces.ny[i];
            self.vx[i][lane] = faces.vx[i];
            self.vy[i][lane] = faces.vy[i];
        }
        self.size[lane] = size;
        self.radius[lane] = radius;
    }

    #[inline(always)]
    fn transform<V: Lanes>(&self) -> (Pair2<V>, Pair2<V>) {
        (
            (V::load(&self.c), V::load(&self.s)),
            (V::load(&self.px), V::load(&self.py)),
        )
    }
}

/// What `rounded.rs` takes for one pair.
#[derive(Clone, Copy)]
struct ScalarPair<'a> {
    a: &'a [EdgeRecord],
    b: &'a [EdgeRecord],
    xf_a: Transform,
    xf_b: Transform,
    radii: f32,
}

/// Eight pairs of polygon cores waiting for their lanes.
#[derive(Clone, Copy, Default)]
pub(crate) struct PolygonPairs<'a> {
    a: SideLanes,
    b: SideLanes,
    /// Each lane's pair, for rounded.rs.
    pairs: [Option<ScalarPair<'a>>; PAIRS],
    /// Lanes filled.
    len: usize,
}

/// One side's faces against the other's vertices, in lanes: the tie rule's
/// best separation and face, and masks of the lanes separated by the limit
/// and of those the check sends back.
struct SideBest<V> {
    value: V,
    edge: V,
    separated: V,
    doubtful: V,
}

/// `find_max_separation` lane by lane: `own`'s faces, moved by `xf` into
/// the other's frame, against `other`'s vertices.
///
/// ```text
/// best = (LOWEST, 0)
/// for i < FACES:
///     n = rotate(q, normal_i); offset = dot(n, transform_point(xf, vertex_i))
///     s = min over j < FACES of (n.x w_j.x - offset) + n.y w_j.y
///     s > best + tolerance: best = (s, i)
///     s >= limit: separated
///     s zero or not finite: doubtful
/// ```
///
/// A triangle's fourth face and vertex repeat its first (the face group's
/// padding): a vertex seen twice leaves a minimum as it was, and a face
/// seen again cannot pass the tie rule (the best is at least its first
/// value), nor separate or doubt where its first did not, so no lane
/// needs a mask.
#[inline(always)]
fn side_best<V: Lanes>(
    own: &SideLanes,
    other: &SideLanes,
    (q, p): (Pair2<V>, Pair2<V>),
    tolerance: V,
    limit: V,
) -> SideBest<V> {
    let (zero, infinity) = (V::splat(0.0), V::splat(f32::INFINITY));
    let vertices: [Pair2<V>; FACES] =
        std::array::from_fn(|j| (V::load(&other.vx[j]), V::load(&other.vy[j])));
    let mut best = SideBest {
        value: V::splat(LOWEST),
        edge: zero,
        separated: zero.lt(zero),
        doubtful: zero.lt(zero),
    };
    for i in 0..FACES {
        let normal = rotate(q, (V::load(&own.nx[i]), V::load(&own.ny[i])));
        let moved = transform_point(q, p, (V::load(&own.vx[i]), V::load(&own.vy[i])));
        let offset = dot(normal, moved);
        let mut s = V::splat(f32::MAX);
        for &(wx, wy) in &vertices {
            // `s.min(h)` of the scalar loop: the vectors' min keeps its
            // second operand where the first is NaN, as the scalar one
            // passes a NaN by.
            s = ((normal.0 * wx - offset) + normal.1 * wy).min(s);
        }
        let better = s.gt(best.value + tolerance);
        best.value = better.select(s, best.value);
        best.edge = better.select(V::splat(i as f32), best.edge);
        best.separated = best.separated.or(s.ge(limit));
        best.doubtful = best.doubtful.or(s.eq(zero).or(s.abs().lt(infinity).not()));
    }
    best
}

/// Eight pairs' core results in lanes: the axis (owner B as a mask, the
/// face as a number), the separation, and masks of the reported lanes and
/// of those the check sends back.
struct CoreLanes<V> {
    owner_b: V,
    feature: V,
    separation: V,
    reported: V,
    doubtful: V,
}

/// `collide_polygons` on eight pairs, a lane each, with each lane's limit
/// `margin + radii`.
#[inline(always)]
fn collide_lanes<V: Lanes>(a: &SideLanes, b: &SideLanes, margin: f32) -> CoreLanes<V> {
    let (xf_a, xf_b) = (a.transform::<V>(), b.transform::<V>());
    let xf_ab = inv_mul(xf_a, xf_b);
    let xf_ba = inv_mul(xf_b, xf_a);
    let tolerance = V::splat(TIE_TOLERANCE) * (V::load(&a.size) + V::load(&b.size));
    let limit = V::splat(margin) + (V::load(&a.radius) + V::load(&b.radius));
    let on_a = side_best(a, b, xf_ba, tolerance, limit);
    let on_b = side_best(b, a, xf_ab, tolerance, limit);
    let b_wins = on_b.value.gt(on_a.value + tolerance);
    CoreLanes {
        owner_b: b_wins,
        feature: b_wins.select(on_b.edge, on_a.edge),
        separation: b_wins.select(on_b.value, on_a.value),
        reported: on_a.separated.or(on_b.separated).not(),
        doubtful: on_a.doubtful.or(on_b.doubtful),
    }
}

impl<'a> PolygonPairs<'a> {
    /// Fills the next lane with a pair: each side's world transform, face
    /// group, edge records (of at most [`MAX_VERTICES`]) and `(size,
    /// radius)`. At most eight before [`finish`](Self::finish).
    #[inline(always)]
    pub(crate) fn push(
        &mut self,
        (xf_a, lanes_a, a, record_a): (Transform, &FaceLanes, &'a [EdgeRecord], (f32, f32)),
        (xf_b, lanes_b, b, record_b): (Transform, &FaceLanes, &'a [EdgeRecord], (f32, f32)),
    ) {
        let lane = self.len;
        self.a.set(lane, xf_a, lanes_a, record_a);
        self.b.set(lane, xf_b, lanes_b, record_b);
        self.pairs[lane] = Some(ScalarPair {
            a,
            b,
            xf_a,
            xf_b,
            radii: record_a.1 + record_b.1,
        });
        self.len += 1;
    }

    /// The eight lanes' results, in the order they were pushed, and the
    /// lanes the check leaves to the pair's own path (bit `k` for lane
    /// `k`; their results are not to be read); the lanes emptied.
    #[inline(always)]
    pub(crate) fn finish<V: Lanes>(&mut self, margin: f32) -> ([Option<PairResult>; PAIRS], u32) {
        let lanes = collide_lanes::<V>(&self.a, &self.b, margin);
        let (separation, feature) = (lanes.separation.to_array(), lanes.feature.to_array());
        let (owner_b, reported, doubtful) = (
            lanes.owner_b.mask_bits(),
            lanes.reported.mask_bits(),
            lanes.doubtful.mask_bits(),
        );
        let mut results = [None; PAIRS];
        for (lane, result) in results.iter_mut().enumerate().take(self.len) {
            let Some(pair) = self.pairs[lane] else {
                continue;
            };
            if (reported & !doubtful) & (1 << lane) == 0 {
                continue;
            }
            let owner = if owner_b & (1 << lane) != 0 {
                Owner::B
            } else {
                Owner::A
            };
            let core = PairResult {
                axis: Axis::new(owner, feature[lane] as u32),
                separation: separation[lane],
            };
            *result = if pair.radii > 0.0 {
                let relative = (
                    inv_mul_transforms(pair.xf_a, pair.xf_b),
                    inv_mul_transforms(pair.xf_b, pair.xf_a),
                );
                finish_rounded(pair.a, pair.b, pair.radii, relative, core, margin)
            } else {
                Some(core)
            };
        }
        self.clear();
        (results, doubtful)
    }

    /// Empties the lanes.
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
}
