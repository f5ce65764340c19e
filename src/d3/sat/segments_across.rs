//! Two capsules (segment cores), eight pairs at a time: a lane a pair, what
//! `rounded.rs`'s `collide_segment_cores` computes for one pair, bit for
//! bit. The 2D twin is `d2/sat/segments_across.rs`.
//!
//! One pair is the segments' clamped closest points (Ericson), the axis
//! their parameters name, and that axis's distance: a few dozen operations
//! with two divisions and a square root, and a chain of choices (the
//! clamps, which end, which kind of axis) that random poses make coin
//! tosses for a branch predictor. Across pairs every choice is a select
//! between lanes and nothing mispredicts.
//!
//! ```text
//! gather:  each pair's two world transforms, its segments' ends, its radii
//! lanes:   B's frame in A's (inv_mul_transforms), B's ends moved;
//!          s, t = the clamped closest parameters (every branch a select);
//!          the distance of each kind of axis (edge pair, an end and the
//!          other's inside, two ends), the one the parameters name picked
//! check:   a lane whose separation is NaN, or whose edge pair's common
//!          normal meets a zero (the crossing normal's case, or the scalar
//!          max of a -0 and a +0), is computed again by the scalar path
//! ```
//!
//! The batch loops (`narrowphase.rs`) run a range this way where at least
//! half of its first 64 pairs are two capsules. The test
//! `capsule_pairs_across_pairs_have_the_scalar_bits` (`tests/it/d3/rounded.rs`)
//! holds both vector types to the scalar path.

use crate::core::simd::Lanes;
use crate::d3::math::Transform;
use crate::d3::types::Axis;

use super::separation::{PARALLEL_TOLERANCE, PairResult};

/// Pairs a group of lanes holds.
pub(crate) const PAIRS: usize = 8;

/// Three coordinates, each in lanes.
pub(crate) type V3<V> = [V; 3];

/// One side of eight pairs, a lane a pair: its world transform (position,
/// rotation columns), its segment's ends in its own frame and its radius.
#[derive(Clone, Copy, Default)]
struct SideLanes {
    p: [[f32; PAIRS]; 3],
    r: [[[f32; PAIRS]; 3]; 3],
    ends: [[[f32; PAIRS]; 3]; 2],
    radius: [f32; PAIRS],
}

impl SideLanes {
    #[inline(always)]
    fn set(&mut self, lane: usize, xf: Transform, ends: [glam::Vec3; 2], radius: f32) {
        for (k, column) in [xf.r.c0, xf.r.c1, xf.r.c2].into_iter().enumerate() {
            self.r[k][0][lane] = column.x;
            self.r[k][1][lane] = column.y;
            self.r[k][2][lane] = column.z;
        }
        self.p[0][lane] = xf.p.x;
        self.p[1][lane] = xf.p.y;
        self.p[2][lane] = xf.p.z;
        for (k, end) in ends.into_iter().enumerate() {
            self.ends[k][0][lane] = end.x;
            self.ends[k][1][lane] = end.y;
            self.ends[k][2][lane] = end.z;
        }
        self.radius[lane] = radius;
    }
}

/// Eight capsule pairs waiting for their lanes.
#[derive(Clone, Copy, Default)]
pub(crate) struct CapsulePairs {
    a: SideLanes,
    b: SideLanes,
    len: usize,
}

/// A lane's answer: the pair's result, or `Err` where the check sends it
/// to the scalar path.
pub(crate) type LaneAnswer = Result<Option<PairResult>, ()>;

#[inline(always)]
pub(crate) fn load3<V: Lanes>(values: &[[f32; PAIRS]; 3]) -> V3<V> {
    [
        V::load(&values[0]),
        V::load(&values[1]),
        V::load(&values[2]),
    ]
}

#[inline(always)]
pub(crate) fn dot3<V: Lanes>(a: V3<V>, b: V3<V>) -> V {
    (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2]
}

#[inline(always)]
fn cross3<V: Lanes>(a: V3<V>, b: V3<V>) -> V3<V> {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline(always)]
pub(crate) fn sub3<V: Lanes>(a: V3<V>, b: V3<V>) -> V3<V> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline(always)]
pub(crate) fn add3<V: Lanes>(a: V3<V>, b: V3<V>) -> V3<V> {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `s * v`, as glam's `f32 * Vec3`.
#[inline(always)]
pub(crate) fn scale3<V: Lanes>(s: V, v: V3<V>) -> V3<V> {
    [s * v[0], s * v[1], s * v[2]]
}

#[inline(always)]
pub(crate) fn select3<V: Lanes>(mask: V, yes: V3<V>, no: V3<V>) -> V3<V> {
    [
        mask.select(yes[0], no[0]),
        mask.select(yes[1], no[1]),
        mask.select(yes[2], no[2]),
    ]
}

#[inline(always)]
pub(crate) fn length3<V: Lanes>(v: V3<V>) -> V {
    dot3(v, v).sqrt()
}

/// `r * v` with the rotation's columns `r`.
#[inline(always)]
pub(crate) fn rotate<V: Lanes>(r: [V3<V>; 3], v: V3<V>) -> V3<V> {
    [
        (r[0][0] * v[0] + r[1][0] * v[1]) + r[2][0] * v[2],
        (r[0][1] * v[0] + r[1][1] * v[1]) + r[2][1] * v[2],
        (r[0][2] * v[0] + r[1][2] * v[1]) + r[2][2] * v[2],
    ]
}

/// A side's rotation columns. (Functions, not closures, in this file:
/// they must inline into the AVX caller.)
#[inline(always)]
fn load_rotation<V: Lanes>(side: &SideLanes) -> [V3<V>; 3] {
    [load3(&side.r[0]), load3(&side.r[1]), load3(&side.r[2])]
}

/// `r^T * v`.
#[inline(always)]
pub(crate) fn inv_rotate<V: Lanes>(r: [V3<V>; 3], v: V3<V>) -> V3<V> {
    [dot3(r[0], v), dot3(r[1], v), dot3(r[2], v)]
}

/// `f32::clamp(x, 0, 1)` lane by lane (a NaN stays NaN).
#[inline(always)]
fn clamp01<V: Lanes>(x: V) -> V {
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    x.lt(zero).select(zero, x.gt(one).select(one, x))
}

/// `closest_on_segment(e0, e1, p)` with `along = e1 - e0` and `squared` its
/// squared length already found.
#[inline(always)]
fn closest_on_segment<V: Lanes>(e0: V3<V>, (along, squared): (V3<V>, V), p: V3<V>) -> V3<V> {
    let t = clamp01(dot3(sub3(p, e0), along).div(squared));
    select3(squared.le(V::splat(0.0)), e0, add3(e0, scale3(t, along)))
}

/// Eight pairs' answers, in lanes.
struct LaneResults {
    separation: [f32; PAIRS],
    /// 0 `Edges`, 1 `EdgeVertex`, 2 `VertexEdge`, 3 `Vertices`.
    kind: [f32; PAIRS],
    i: u32,
    j: u32,
    reported: u32,
    doubtful: u32,
}

/// `collide_segment_cores` on eight pairs, a lane each.
#[inline(always)]
fn collide_lanes<V: Lanes>(a: &SideLanes, b: &SideLanes, margin: f32) -> LaneResults {
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    let (ra, rb) = (load_rotation::<V>(a), load_rotation::<V>(b));
    let (pa, pb) = (load3::<V>(&a.p), load3::<V>(&b.p));
    // inv_mul_transforms(xf_a, xf_b): B's frame in A's; B's ends moved
    // into it (transform_point).
    let r_ab = [
        inv_rotate(ra, rb[0]),
        inv_rotate(ra, rb[1]),
        inv_rotate(ra, rb[2]),
    ];
    let p_ab = inv_rotate(ra, sub3(pb, pa));
    let (a0, a1) = (load3::<V>(&a.ends[0]), load3::<V>(&a.ends[1]));
    let b0 = add3(rotate(r_ab, load3(&b.ends[0])), p_ab);
    let b1 = add3(rotate(r_ab, load3(&b.ends[1])), p_ab);
    let radii = V::load(&a.radius) + V::load(&b.radius);
    // closest_points_of_segments(a0, a1, b0, b1).
    let (d1, d2, r) = (sub3(a1, a0), sub3(b1, b0), sub3(a0, b0));
    let (sq_a, sq_e, f) = (dot3(d1, d1), dot3(d2, d2), dot3(d2, r));
    let c = dot3(d1, r);
    let bb = dot3(d1, d2);
    let denominator = sq_a * sq_e - bb * bb;
    let s = denominator
        .gt(zero)
        .select(clamp01((bb * f - c * sq_e).div(denominator)), zero);
    let t = sq_e.gt(zero).select((bb * s + f).div(sq_e), zero);
    let t_low = t.lt(zero);
    let t_high = t_low.not().and(t.gt(one));
    let a_positive = sq_a.gt(zero);
    let s_low = a_positive.select(clamp01(c.neg().div(sq_a)), zero);
    let s_high = a_positive.select(clamp01((bb - c).div(sq_a)), zero);
    let s = t_low.select(s_low, t_high.select(s_high, s));
    let t = t_low.select(zero, t_high.select(one, t));
    let on_a = add3(a0, scale3(s, d1));
    let on_b = add3(b0, scale3(t, d2));
    // The ends the parameters sit at (end_of).
    let (s_first, t_first) = (s.le(zero), t.le(zero));
    let (s_second, t_second) = (s_first.not().and(s.ge(one)), t_first.not().and(t.ge(one)));
    let (s_end, t_end) = (s_first.or(s_second), t_first.or(t_second));
    // Each kind of axis's distance, as the scalar measures it.
    let p = select3(s_second, a1, a0);
    let q = select3(t_second, b1, b0);
    let vertex_edge = length3(sub3(closest_on_segment(b0, (d2, sq_e), p), p));
    let edge_vertex = length3(sub3(q, closest_on_segment(a0, (d1, sq_a), q)));
    let vertices = length3(sub3(q, p));
    let offset = sub3(on_b, on_a);
    let crossed = cross3(d1, d2);
    let crossed_length = length3(crossed);
    let parallel = crossed_length.le(V::splat(PARALLEL_TOLERANCE) * length3(d1) * length3(d2));
    let normal = [
        crossed[0].div(crossed_length),
        crossed[1].div(crossed_length),
        crossed[2].div(crossed_length),
    ];
    let side = dot3(normal, offset);
    let normal = select3(
        side.gt(zero),
        normal,
        [normal[0].neg(), normal[1].neg(), normal[2].neg()],
    );
    let inner = dot3(normal, sub3(b0, a0));
    let edges = parallel.select(length3(offset), inner.max(zero));
    let distance = s_end.select(
        t_end.select(vertices, vertex_edge),
        t_end.select(edge_vertex, edges),
    );
    let separation = distance - radii;
    // The crossing normal's case (side neither above nor below zero), and
    // a -0 against max's +0: the scalar path.
    let inner_doubt = parallel
        .not()
        .and(side.gt(zero).or(side.lt(zero)).not().or(inner.eq(zero)));
    let doubtful = s_end
        .or(t_end)
        .not()
        .and(inner_doubt)
        .or(separation.eq(separation).not());
    let kind = s_end.select(
        t_end.select(V::splat(3.0), V::splat(2.0)),
        t_end.select(one, zero),
    );
    LaneResults {
        separation: separation.to_array(),
        kind: kind.to_array(),
        i: s_second.mask_bits(),
        j: t_second.mask_bits(),
        reported: separation.lt(V::splat(margin)).mask_bits(),
        doubtful: doubtful.mask_bits(),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn collide_lanes_avx(a: &SideLanes, b: &SideLanes, margin: f32) -> LaneResults {
    collide_lanes::<crate::core::simd::avx::Avx>(a, b, margin)
}

impl CapsulePairs {
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

    /// Fills the next lane with a pair of capsules: each body's world
    /// transform, the capsule's points and radius. The caller checks
    /// [`is_full`](Self::is_full) first.
    #[inline(always)]
    pub(crate) fn push(
        &mut self,
        (xf_a, ends_a, radius_a): (Transform, [glam::Vec3; 2], f32),
        (xf_b, ends_b, radius_b): (Transform, [glam::Vec3; 2], f32),
    ) {
        self.a.set(self.len, xf_a, ends_a, radius_a);
        self.b.set(self.len, xf_b, ends_b, radius_b);
        self.len += 1;
    }

    /// The filled lanes' answers, in the order they were pushed (lanes
    /// past them compute on what they last held, and are not read), and
    /// the lanes emptied.
    pub(crate) fn finish(&mut self, margin: f32) -> [LaneAnswer; PAIRS] {
        #[cfg(target_arch = "x86_64")]
        let lanes = if crate::core::simd::uses_avx() {
            // SAFETY: AVX was detected on this CPU.
            unsafe { collide_lanes_avx(&self.a, &self.b, margin) }
        } else {
            collide_lanes::<crate::core::simd::Portable>(&self.a, &self.b, margin)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let lanes = collide_lanes::<crate::core::simd::Portable>(&self.a, &self.b, margin);
        let mut answers = [Ok(None); PAIRS];
        for (lane, answer) in answers.iter_mut().enumerate().take(self.len) {
            let bit = 1 << lane;
            if lanes.doubtful & bit != 0 {
                *answer = Err(());
                continue;
            }
            if lanes.reported & bit == 0 {
                continue;
            }
            let (i, j) = (u32::from(lanes.i & bit != 0), u32::from(lanes.j & bit != 0));
            let axis = match lanes.kind[lane] as u32 {
                0 => Axis::Edges(0, 0),
                1 => Axis::EdgeVertex(0, j),
                2 => Axis::VertexEdge(i, 0),
                _ => Axis::Vertices(i, j),
            };
            *answer = Ok(Some(PairResult {
                axis,
                separation: lanes.separation[lane],
            }));
        }
        self.len = 0;
        answers
    }
}
