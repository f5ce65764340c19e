//! Circle against circle, eight pairs at a time: a lane a pair, what
//! `circles.rs` computes for one pair, bit for bit.
//!
//! One pair is a handful of operations (B's centre in A's frame, its
//! length, less the radii) around one unpredictable choice, reported or
//! not; the overhead of taking the pair through the general path (its
//! records, both relative transforms, the dispatch on the kinds) is most
//! of its cost. Here eight pairs' transforms and radii go into lanes and
//! the centre line is measured for all eight at once:
//!
//! ```text
//! centre     = inv_rotate(q_a, p_b - p_a)       # inv_mul_transforms(a, b).p
//! separation = length(centre) - (r_a + r_b)     # reported below the margin
//! ```
//!
//! The same operations in the same order as the scalar path, with no vector
//! `min` or `max`, so every lane is the scalar path's bits; the manifolds
//! follow in the same lanes (`manifold/circles_across.rs`). The test
//! `circle_pairs_take_their_own_path_with_the_general_paths_bits`
//! (`tests/it/d2/lanes.rs`) holds both vector types to the general path.

use crate::core::pair::Owner;
use crate::core::simd::Lanes;
use crate::d2::math::Transform;
use crate::d2::types::Axis;

use super::segments_across::{PAIRS, Pair2, dot, inv_rotate, sub};
use super::separation::PairResult;

/// Eight pairs of circles waiting for their lanes: each pair's two world
/// transforms (B's rotation is not read) and radii.
#[derive(Clone, Copy, Default)]
pub(crate) struct CirclePairs {
    c_a: [f32; PAIRS],
    s_a: [f32; PAIRS],
    px_a: [f32; PAIRS],
    py_a: [f32; PAIRS],
    px_b: [f32; PAIRS],
    py_b: [f32; PAIRS],
    radius_a: [f32; PAIRS],
    radius_b: [f32; PAIRS],
    len: usize,
}

/// Eight circle pairs' SAT in lanes, with what their manifolds read.
pub(crate) struct CircleLanes<V> {
    /// A's world rotation and each centre.
    pub q_a: Pair2<V>,
    pub p_a: Pair2<V>,
    pub p_b: Pair2<V>,
    pub radius_a: V,
    pub radius_b: V,
    /// B's centre in A's frame, and its length.
    pub centre: Pair2<V>,
    pub distance: V,
    pub separation: V,
    /// Reported (below the margin), as a mask.
    pub reported: V,
}

impl CirclePairs {
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

    /// Fills the next lane with a pair: its bodies' world transforms and
    /// the two radii. The caller checks [`is_full`](Self::is_full) first.
    #[inline(always)]
    pub(crate) fn push(
        &mut self,
        (xf_a, radius_a): (Transform, f32),
        (xf_b, radius_b): (Transform, f32),
    ) {
        let lane = self.len;
        (self.c_a[lane], self.s_a[lane]) = (xf_a.q.c, xf_a.q.s);
        (self.px_a[lane], self.py_a[lane]) = (xf_a.p.x, xf_a.p.y);
        (self.px_b[lane], self.py_b[lane]) = (xf_b.p.x, xf_b.p.y);
        (self.radius_a[lane], self.radius_b[lane]) = (radius_a, radius_b);
        self.len += 1;
    }

    /// The filled lanes' SAT in lanes (the lanes past [`len`](Self::len)
    /// compute on what they last held, or zeros, and are not to be read).
    #[inline(always)]
    pub(crate) fn lanes<V: Lanes>(&self, margin: f32) -> CircleLanes<V> {
        let q_a = (V::load(&self.c_a), V::load(&self.s_a));
        let p_a = (V::load(&self.px_a), V::load(&self.py_a));
        let p_b = (V::load(&self.px_b), V::load(&self.py_b));
        let (radius_a, radius_b) = (V::load(&self.radius_a), V::load(&self.radius_b));
        // `inv_mul_transforms(a, b).p`: `inv_rotate(q_a, p_b - p_a)`.
        let centre = inv_rotate(q_a, sub(p_b, p_a));
        let distance = dot(centre, centre).sqrt();
        let separation = distance - (radius_a + radius_b);
        CircleLanes {
            q_a,
            p_a,
            p_b,
            radius_a,
            radius_b,
            centre,
            distance,
            separation,
            // `separation >= margin` is not reported: NaN is.
            reported: separation.ge(V::splat(margin)).not(),
        }
    }

    /// The filled lanes' results, in the order they were pushed, and the
    /// lanes emptied.
    #[inline(always)]
    pub(crate) fn finish<V: Lanes>(&mut self, margin: f32) -> [Option<PairResult>; PAIRS] {
        let lanes = self.lanes::<V>(margin);
        let separation = lanes.separation.to_array();
        let reported = lanes.reported.mask_bits();
        let mut results = [None; PAIRS];
        for (lane, result) in results.iter_mut().enumerate().take(self.len) {
            if reported & (1 << lane) != 0 {
                *result = Some(PairResult {
                    axis: Axis::new(Owner::A, 0),
                    separation: separation[lane],
                });
            }
        }
        self.clear();
        results
    }

    /// Empties the lanes.
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
}
