//! Clipping eight pairs at a time: a lane a pair, what `clip` computes for
//! each, bit for bit.
//!
//! `clip` is a few dot products and at most two divisions on four points
//! (the reference face's ends, the incident edge's ends in the reference
//! frame), with choices that random poses make coin tosses for a branch
//! predictor: does a side plane cut, which end, is each point kept, are the
//! two points one. Here every choice is a select on a mask:
//!
//! ```text
//! tangent = the face's direction (left of its outward normal)
//! for the lower side plane (side -1), then the upper (side 1):
//!     d0, d1 = side (tangent . w - plane)
//!     both > 0: nothing survives (the lane goes to the scalar `clip`)
//!     one > 0:  that end moves to the cut at d0 / (d0 - d1)
//! each end kept where its separation (its height over the face less the
//!     radii) is within the margin; placed midway between the surfaces
//! two kept closer than the degenerate length: one, the deeper
//! ```
//!
//! A lane where nothing survives, or no end is kept, takes the scalar
//! `clip` (its fallbacks: the deepest vertex, or the closest points).
//! Everything else is the scalar operations in the same order on the same
//! values; no vector `min` or `max` is used (their treatment of NaN and
//! signed zeros is not the scalar one).
//!
//! Two users: two segment cores' manifolds (`segments_across.rs`, which
//! finds the incident edge in lanes too) and the polygon pairs of the batch
//! loops, whose clips wait in [`PendingClips`] until eight are ready.

use glam::Vec2;

use crate::core::simd::Lanes;
use crate::d2::math::transform_point as transform_point_scalar;
use crate::d2::sat::segments_across::{PAIRS, Pair2, dot, select2, sub, transform_point};
use crate::d2::shape::Faces;

use super::{Clip, ContactPoint, DEGENERATE_SEGMENT, Manifold, clip, contact_id, next};

/// One contact point in lanes: position, depth, and its id as a number
/// (`contact_id`'s bits, below 2^24: exact).
#[derive(Clone, Copy)]
pub(crate) struct PointLanes<V> {
    pub point: Pair2<V>,
    pub depth: V,
    pub id: V,
}

impl<V: Lanes> PointLanes<V> {
    #[inline(always)]
    pub(crate) fn select(mask: V, yes: Self, no: Self) -> Self {
        PointLanes {
            point: select2(mask, yes.point, no.point),
            depth: mask.select(yes.depth, no.depth),
            id: mask.select(yes.id, no.id),
        }
    }

    /// The point of no lane: zeros, as in a new manifold.
    #[inline(always)]
    pub(crate) fn zero() -> Self {
        let zero = V::splat(0.0);
        PointLanes {
            point: (zero, zero),
            depth: zero,
            id: zero,
        }
    }

    #[inline(always)]
    pub(crate) fn to_arrays(self) -> [[f32; PAIRS]; 4] {
        [
            self.point.0.to_array(),
            self.point.1.to_array(),
            self.depth.to_array(),
            self.id.to_array(),
        ]
    }
}

/// A contact point from lane `lane` of its arrays.
#[inline(always)]
pub(crate) fn point_of(arrays: &[[f32; PAIRS]; 4], lane: usize) -> ContactPoint {
    ContactPoint {
        point: Vec2::new(arrays[0][lane], arrays[1][lane]),
        depth: arrays[2][lane],
        id: arrays[3][lane] as u32,
    }
}

/// `contact_id` as a number in lanes: the owner's bit (B's lanes in `b`),
/// the reference feature and the incident one.
#[inline(always)]
pub(crate) fn id_bits<V: Lanes>(b: V, reference: V, incident: V) -> V {
    b.select(V::splat(65536.0), V::splat(0.0)) + (V::splat(256.0) * reference + incident)
}

/// A reference-frame point moved by half the difference of the radii along
/// `normal` where they differ (`clip`'s `rounded`), then into the world.
#[inline(always)]
pub(crate) fn rounded_to_world<V: Lanes>(
    point: Pair2<V>,
    (unequal, half_difference, normal): (V, V, Pair2<V>),
    (q, p): (Pair2<V>, Pair2<V>),
) -> Pair2<V> {
    let moved = (
        point.0 + half_difference * normal.0,
        point.1 + half_difference * normal.1,
    );
    transform_point(q, p, select2(unequal, moved, point))
}

/// What `clip` reads, in lanes: the reference face (its two ends and
/// outward normal) and the incident edge's two ends with their vertex
/// numbers, in the reference frame; the owner (B's lanes) and the face's
/// number; the reference core's radius and the incident one's; the
/// reference transform; the two shapes' sizes summed.
pub(crate) struct ClipLanes<V> {
    pub v1: Pair2<V>,
    pub v2: Pair2<V>,
    pub normal: Pair2<V>,
    pub w1: Pair2<V>,
    pub w2: Pair2<V>,
    pub incident: (V, V),
    pub owner_b: V,
    pub reference: V,
    pub radii: (V, V),
    pub reference_xf: (Pair2<V>, Pair2<V>),
    pub size: V,
}

/// What clipping leaves in lanes: the first and second points (the second
/// zero where none was written, as in a new manifold), the count, and a
/// mask of the lanes the scalar `clip` must answer.
pub(crate) struct Clipped<V> {
    pub first: PointLanes<V>,
    pub second: PointLanes<V>,
    pub count: V,
    pub scalar: V,
}

/// One side plane's clip of `[w1, w2]` (`clip`'s loop body): `side` -1 for
/// the lower plane, 1 for the upper. Returns the clipped ends and a mask of
/// the lanes where both ends are outside.
#[inline(always)]
fn clip_to_plane<V: Lanes>(
    (w1, w2): (Pair2<V>, Pair2<V>),
    tangent: Pair2<V>,
    (plane, side): (V, V),
) -> ((Pair2<V>, Pair2<V>), V) {
    let zero = V::splat(0.0);
    let d0 = side * (dot(tangent, w1) - plane);
    let d1 = side * (dot(tangent, w2) - plane);
    let (outside0, outside1) = (d0.gt(zero), d1.gt(zero));
    let t = d0.div(d0 - d1);
    let cut = (w1.0 + t * (w2.0 - w1.0), w1.1 + t * (w2.1 - w1.1));
    (
        (
            select2(outside0, cut, w1),
            select2(outside0.not().and(outside1), cut, w2),
        ),
        outside0.and(outside1),
    )
}

/// A clipped incident end as a contact point (`clip`'s `place`): midway
/// between the surfaces over and under it, and its separation.
#[inline(always)]
fn clipped_point<V: Lanes>(
    end: Pair2<V>,
    input: &ClipLanes<V>,
    (radii, unequal, half_difference): (V, V, V),
    vertex: V,
) -> (PointLanes<V>, V) {
    let (n, v1) = (input.normal, input.v1);
    let half = V::splat(0.5);
    let core = dot(n, sub(end, v1));
    let separation = core - radii;
    let placed = (end.0 - half * core * n.0, end.1 - half * core * n.1);
    (
        PointLanes {
            point: rounded_to_world(placed, (unequal, half_difference, n), input.reference_xf),
            depth: separation.neg(),
            id: id_bits(input.owner_b, input.reference, vertex),
        },
        separation,
    )
}

/// `clip` on eight lanes.
#[inline(always)]
pub(crate) fn clip_lanes<V: Lanes>(input: &ClipLanes<V>, margin: f32) -> Clipped<V> {
    let (zero, one, half) = (V::splat(0.0), V::splat(1.0), V::splat(0.5));
    let (radius_ref, radius_inc) = input.radii;
    let radii = radius_ref + radius_inc;
    let unequal = radius_ref.eq(radius_inc).not();
    let half_difference = half * (radius_ref - radius_inc);
    let n = input.normal;
    let tangent = (n.1.neg(), n.0);
    let (lower, upper) = (dot(tangent, input.v1), dot(tangent, input.v2));
    let ends = (input.w1, input.w2);
    let (ends, emptied_lower) = clip_to_plane(ends, tangent, (lower, V::splat(-1.0)));
    let (ends, emptied_upper) = clip_to_plane(ends, tangent, (upper, one));
    let emptied = emptied_lower.or(emptied_upper);
    let kept_limit = V::splat(margin.max(0.0));
    let rounding = (radii, unequal, half_difference);
    let (point0, separation0) = clipped_point(ends.0, input, rounding, input.incident.0);
    let (point1, separation1) = clipped_point(ends.1, input, rounding, input.incident.1);
    let (kept0, kept1) = (separation0.le(kept_limit), separation1.le(kept_limit));
    let both = kept0.and(kept1);
    // Two points closer than the degenerate length: one, the deeper.
    let gap = sub(point0.point, point1.point);
    let shortest = V::splat(DEGENERATE_SEGMENT) * input.size;
    let collapsed = both.and(dot(gap, gap).le(shortest * shortest));
    let swapped = collapsed.and(point1.depth.gt(point0.depth));
    Clipped {
        first: PointLanes::select(kept0.and(swapped.not()), point0, point1),
        second: PointLanes::select(
            both,
            PointLanes::select(swapped, point0, point1),
            PointLanes::zero(),
        ),
        count: kept0.select(one, zero) + kept1.select(one, zero) - collapsed.select(one, zero),
        scalar: emptied.or(kept0.or(kept1).not()),
    }
}

/// One side of the lanes' inputs, filled lane by lane.
#[derive(Clone, Copy, Default)]
struct ClipInputs {
    v1x: [f32; PAIRS],
    v1y: [f32; PAIRS],
    v2x: [f32; PAIRS],
    v2y: [f32; PAIRS],
    nx: [f32; PAIRS],
    ny: [f32; PAIRS],
    w1x: [f32; PAIRS],
    w1y: [f32; PAIRS],
    w2x: [f32; PAIRS],
    w2y: [f32; PAIRS],
    i1: [f32; PAIRS],
    i2: [f32; PAIRS],
    owner_b: [f32; PAIRS],
    reference: [f32; PAIRS],
    radius_ref: [f32; PAIRS],
    radius_inc: [f32; PAIRS],
    c: [f32; PAIRS],
    s: [f32; PAIRS],
    px: [f32; PAIRS],
    py: [f32; PAIRS],
    size: [f32; PAIRS],
}

/// Polygon pairs' clips waiting for their lanes: each one's manifold is
/// already in the output (its normal written, no point yet) at `slots[k]`.
pub(crate) struct PendingClips<F> {
    inputs: ClipInputs,
    clips: [Option<Clip<F>>; PAIRS],
    slots: [usize; PAIRS],
    len: usize,
    margin: f32,
}

/// Two arrays loaded as a pair of lanes.
#[inline(always)]
fn pair2<V: Lanes>(x: &[f32; PAIRS], y: &[f32; PAIRS]) -> Pair2<V> {
    (V::load(x), V::load(y))
}

/// A mask from lanes of zero and not zero.
#[inline(always)]
fn mask<V: Lanes>(values: &[f32; PAIRS]) -> V {
    V::load(values).gt(V::splat(0.0))
}

impl<F: Faces> PendingClips<F> {
    pub(crate) fn new(margin: f32) -> PendingClips<F> {
        PendingClips {
            inputs: ClipInputs::default(),
            clips: [None; PAIRS],
            slots: [0; PAIRS],
            len: 0,
            margin,
        }
    }

    /// Queues `input`'s clip for the manifold `out[slot]`, and clips the
    /// eight queued when the lanes are full. `input.margin` is the batch's
    /// (the one given to [`new`](Self::new)).
    #[inline(always)]
    pub(crate) fn push<V: Lanes>(&mut self, input: Clip<F>, slot: usize, out: &mut [Manifold]) {
        debug_assert_eq!(input.margin.to_bits(), self.margin.to_bits());
        let lane = self.len;
        let faces = input.reference_faces;
        let v1 = faces.vertex(input.reference);
        let v2 = faces.vertex(next(input.reference, faces.count()));
        let normal = faces.normal(input.reference);
        let i2 = next(input.incident, input.incident_faces.count());
        let w1 = transform_point_scalar(input.xf, input.incident_faces.vertex(input.incident));
        let w2 = transform_point_scalar(input.xf, input.incident_faces.vertex(i2));
        let l = &mut self.inputs;
        (l.v1x[lane], l.v1y[lane], l.v2x[lane], l.v2y[lane]) = (v1.x, v1.y, v2.x, v2.y);
        (l.nx[lane], l.ny[lane]) = (normal.x, normal.y);
        (l.w1x[lane], l.w1y[lane], l.w2x[lane], l.w2y[lane]) = (w1.x, w1.y, w2.x, w2.y);
        (l.i1[lane], l.i2[lane]) = (input.incident as f32, i2 as f32);
        l.owner_b[lane] = contact_id(input.owner, 0, 0) as f32;
        l.reference[lane] = input.reference as f32;
        (l.radius_ref[lane], l.radius_inc[lane]) = input.radii;
        (l.c[lane], l.s[lane]) = (input.ref_xf.q.c, input.ref_xf.q.s);
        (l.px[lane], l.py[lane]) = (input.ref_xf.p.x, input.ref_xf.p.y);
        l.size[lane] = input.size;
        self.clips[lane] = Some(input);
        self.slots[lane] = slot;
        self.len += 1;
        if self.len == PAIRS {
            self.flush::<V>(out);
        }
    }

    /// Clips the queued pairs into their manifolds in `out`.
    #[inline(always)]
    pub(crate) fn flush<V: Lanes>(&mut self, out: &mut [Manifold]) {
        if self.len == 0 {
            return;
        }
        let l = &self.inputs;
        let input = ClipLanes {
            v1: pair2(&l.v1x, &l.v1y),
            v2: pair2(&l.v2x, &l.v2y),
            normal: pair2(&l.nx, &l.ny),
            w1: pair2(&l.w1x, &l.w1y),
            w2: pair2(&l.w2x, &l.w2y),
            incident: pair2(&l.i1, &l.i2),
            owner_b: mask(&l.owner_b),
            reference: V::load(&l.reference),
            radii: pair2(&l.radius_ref, &l.radius_inc),
            reference_xf: (pair2(&l.c, &l.s), pair2(&l.px, &l.py)),
            size: V::load(&l.size),
        };
        let clipped = clip_lanes(&input, self.margin);
        let (first, second) = (clipped.first.to_arrays(), clipped.second.to_arrays());
        let count = clipped.count.to_array();
        let scalar = clipped.scalar.mask_bits();
        for lane in 0..self.len {
            let manifold = &mut out[self.slots[lane]];
            let input = self.clips[lane].take();
            if scalar & (1 << lane) != 0 {
                if let Some(input) = &input {
                    clip(manifold, input);
                }
                continue;
            }
            manifold.points = [point_of(&first, lane), point_of(&second, lane)];
            manifold.count = count[lane] as u8;
        }
        self.len = 0;
    }
}
