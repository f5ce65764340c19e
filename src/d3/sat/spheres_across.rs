//! Sphere against sphere, eight pairs at a time: a lane a pair, what
//! `sphere.rs`'s `collide_spheres` computes for one pair, bit for bit. The
//! 2D twin is `d2/sat/circles_across.rs`.
//!
//! One pair is a dozen operations (B's centre in A's frame, its length,
//! less the radii) around one unpredictable choice, reported or not; taking
//! it through the general path (the dispatch on the shapes' kinds, a result
//! to branch on, then the manifold's own dispatch) costs more than the
//! arithmetic. Here eight pairs' transforms and radii go into lanes and the
//! centre line is measured for all eight at once:
//!
//! ```text
//! centre     = inv_rotate(r_a, p_b - p_a)       # sphere_centre(xf_a, xf_b)
//! distance   = sqrt(centre . centre)            # length3
//! separation = distance - (r_a + r_b)           # reported below the margin
//! ```
//!
//! The same operations in the same order as the scalar path, with no vector
//! `min` or `max`, so every lane has the scalar path's bits; the manifolds
//! follow from the same lanes (`manifold/spheres_across.rs`). The test
//! `sphere_pairs_fused_equal_the_general_path_bit_for_bit`
//! (`tests/it/d3/manifold.rs`) holds both vector types to the general path.

use glam::Vec3;

use crate::core::simd::Lanes;
use crate::d3::math::Transform;
use crate::d3::types::Axis;

use super::segments_across::{PAIRS, V3, dot3, inv_rotate, load3, sub3};
use super::separation::PairResult;

/// Eight pairs of spheres waiting for their lanes: A's world rotation,
/// both centres (B's rotation is not read) and both radii.
#[derive(Clone, Copy, Default)]
pub(crate) struct SpherePairs {
    r_a: [[[f32; PAIRS]; 3]; 3],
    p_a: [[f32; PAIRS]; 3],
    p_b: [[f32; PAIRS]; 3],
    radius_a: [f32; PAIRS],
    radius_b: [f32; PAIRS],
    len: usize,
}

/// Eight sphere pairs' SAT in lanes, with what their manifolds read.
pub(crate) struct SphereLanes<V> {
    /// A's world rotation (its columns) and each centre.
    pub r_a: [V3<V>; 3],
    pub p_a: V3<V>,
    pub p_b: V3<V>,
    pub radius_a: V,
    pub radius_b: V,
    /// B's centre in A's frame, and its length.
    pub centre: V3<V>,
    pub distance: V,
    pub separation: V,
    /// Reported (below the margin), as bits.
    pub reported: u32,
}

/// Lane `lane` of three coordinate rows set to `v`.
#[inline(always)]
fn set3(rows: &mut [[f32; PAIRS]; 3], lane: usize, v: Vec3) {
    rows[0][lane] = v.x;
    rows[1][lane] = v.y;
    rows[2][lane] = v.z;
}

impl SpherePairs {
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
        set3(&mut self.r_a[0], lane, xf_a.r.c0);
        set3(&mut self.r_a[1], lane, xf_a.r.c1);
        set3(&mut self.r_a[2], lane, xf_a.r.c2);
        set3(&mut self.p_a, lane, xf_a.p);
        set3(&mut self.p_b, lane, xf_b.p);
        (self.radius_a[lane], self.radius_b[lane]) = (radius_a, radius_b);
        self.len += 1;
    }

    /// Empties the lanes.
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// The filled lanes' SAT in lanes (the lanes past [`len`](Self::len)
    /// compute on what they last held, or zeros, and are not to be read).
    #[inline(always)]
    pub(crate) fn lanes<V: Lanes>(&self, margin: f32) -> SphereLanes<V> {
        let r_a = [
            load3(&self.r_a[0]),
            load3(&self.r_a[1]),
            load3(&self.r_a[2]),
        ];
        let (p_a, p_b) = (load3::<V>(&self.p_a), load3::<V>(&self.p_b));
        let (radius_a, radius_b) = (V::load(&self.radius_a), V::load(&self.radius_b));
        // `sphere_centre`: `inv_rotate(r_a, p_b - p_a)`.
        let centre = inv_rotate(r_a, sub3(p_b, p_a));
        let distance = dot3(centre, centre).sqrt();
        let separation = distance - (radius_a + radius_b);
        let filled = (1u32 << self.len) - 1;
        SphereLanes {
            r_a,
            p_a,
            p_b,
            radius_a,
            radius_b,
            centre,
            distance,
            separation,
            // `separation < margin`: a NaN is not reported.
            reported: separation.lt(V::splat(margin)).mask_bits() & filled,
        }
    }

    /// The filled lanes' results, in the order they were pushed, and the
    /// lanes emptied.
    pub(crate) fn finish(&mut self, margin: f32) -> [Option<PairResult>; PAIRS] {
        #[cfg(target_arch = "x86_64")]
        if crate::core::simd::uses_avx() {
            // SAFETY: AVX was detected on this CPU.
            return unsafe { finish_avx(self, margin) };
        }
        self.finish_with::<crate::core::simd::Portable>(margin)
    }

    #[inline(always)]
    fn finish_with<V: Lanes>(&mut self, margin: f32) -> [Option<PairResult>; PAIRS] {
        let lanes = self.lanes::<V>(margin);
        let separation = lanes.separation.to_array();
        let mut results = [None; PAIRS];
        for (lane, result) in results.iter_mut().enumerate().take(self.len) {
            if lanes.reported & (1 << lane) != 0 {
                *result = Some(PairResult {
                    axis: Axis::Centres,
                    separation: separation[lane],
                });
            }
        }
        self.clear();
        results
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn finish_avx(pairs: &mut SpherePairs, margin: f32) -> [Option<PairResult>; PAIRS] {
    pairs.finish_with::<crate::core::simd::avx::Avx>(margin)
}
