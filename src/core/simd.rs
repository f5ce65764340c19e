//! Eight `f32` lanes for the CPU queries that test eight faces, vertices or
//! edges at a time (`sat/lanes.rs` in 2D, `d3/sat/lanes.rs` in 3D).
//!
//! Two vector types implement [`Lanes`]: AVX registers on x86-64 CPUs that
//! have AVX (detected at run time, once: [`uses_avx`]), and two portable
//! 4-lane vectors (`wide`, SSE on x86-64) everywhere else. Both do IEEE
//! single-precision arithmetic lane by lane with no fused multiply-adds, so
//! a lane computes what the scalar code computes, bit for bit; a query is
//! written once, generic over the lanes, and compiled for each path (the
//! AVX one inside a `#[target_feature(enable = "avx,popcnt")]` function:
//! every CPU with AVX has POPCNT, and without it the lanes' bit counts
//! compile to a dozen shifts and masks each).

use std::ops::{Add, Mul, Sub};

use wide::f32x4;

use crate::core::limits::LOWEST;

/// What [`Lanes::scan`] finds in a group of lanes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct GroupScan {
    /// The largest of the active lanes.
    pub(crate) largest: f32,
    /// The first active lane holding it.
    pub(crate) lane: usize,
    /// Active lanes at least `largest - 2 * tolerance` (1: no near-tie).
    pub(crate) close: u32,
}

/// Eight `f32` lanes with IEEE single-precision arithmetic.
pub(crate) trait Lanes:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
{
    fn splat(value: f32) -> Self;
    fn load(values: &[f32; 8]) -> Self;
    /// The first 8 values of a slice of at least 8.
    #[inline(always)]
    fn load_slice(values: &[f32]) -> Self {
        Self::load(&std::array::from_fn(|i| values[i]))
    }
    /// The first of the first `active` lanes where `self > other`, if any.
    #[inline(always)]
    fn first_greater(self, other: Self, active: usize) -> Option<usize> {
        let (mine, theirs) = (self.to_array(), other.to_array());
        (0..active).find(|&lane| mine[lane] > theirs[lane])
    }
    /// `self < other ? self : other`, lane by lane (no NaN occurs here).
    fn min(self, other: Self) -> Self;
    /// `self > other ? self : other`, lane by lane (no NaN occurs here).
    fn max(self, other: Self) -> Self;
    /// `|self|`, lane by lane.
    fn abs(self) -> Self;
    /// The square root, lane by lane, correctly rounded (as `f32::sqrt`).
    fn sqrt(self) -> Self;
    /// `self / other`, lane by lane, correctly rounded.
    fn div(self, other: Self) -> Self;
    fn to_array(self) -> [f32; 8];
    /// Bit `k` set where lane `k` of `self` is below `other`'s.
    fn less_bits(self, other: Self) -> u32;
    /// Bit `k` set where lane `k` of `self` is above `other`'s.
    fn greater_bits(self, other: Self) -> u32;

    // Masks: every bit set in a lane where a comparison holds, none where it
    // does not (ordered: a NaN compares false, as in scalar code). They
    // let a lane a pair follow the scalar code's branches as selections.

    /// `self < other`, lane by lane, as a mask.
    fn lt(self, other: Self) -> Self;
    /// `self <= other`, as a mask.
    fn le(self, other: Self) -> Self;
    /// `self > other`, as a mask.
    fn gt(self, other: Self) -> Self;
    /// `self >= other`, as a mask.
    fn ge(self, other: Self) -> Self;
    /// `self == other`, as a mask.
    fn eq(self, other: Self) -> Self;
    /// Both masks.
    fn and(self, other: Self) -> Self;
    /// Either mask.
    fn or(self, other: Self) -> Self;
    /// The mask's complement.
    fn not(self) -> Self;
    /// `yes` in the lanes of the mask `self`, `no` elsewhere.
    fn select(self, yes: Self, no: Self) -> Self;
    /// Bit `k` set where lane `k` of the mask `self` is.
    fn mask_bits(self) -> u32;
    /// `-self`, lane by lane: the sign flipped, as scalar negation does
    /// (`0 - x` would turn `+0` into `+0`, not `-0`).
    fn neg(self) -> Self;

    /// The smallest lane (no NaN occurs here), taken pairwise as the AVX
    /// version does: lanes `k` and `k + 4`, then `k` and `k + 2`, then the
    /// two left, each as `min` (which, of an exact `+0` and `-0`, keeps the
    /// second).
    #[inline(always)]
    fn smallest(self) -> f32 {
        let pick = |a: f32, b: f32| if a < b { a } else { b };
        let v = self.to_array();
        let quad: [f32; 4] = std::array::from_fn(|k| pick(v[k], v[k + 4]));
        let pair = [pick(quad[0], quad[2]), pick(quad[1], quad[3])];
        pick(pair[0], pair[1])
    }

    /// Looks at the first `active` lanes; the default is the plain loop.
    #[inline(always)]
    fn scan(self, active: usize, tolerance: f32) -> GroupScan {
        let values = self.to_array();
        let mut largest = LOWEST;
        let mut lane_of_largest = 0usize;
        for (lane, &value) in values.iter().enumerate().take(active) {
            if value > largest {
                largest = value;
                lane_of_largest = lane;
            }
        }
        let near = largest - 2.0 * tolerance;
        GroupScan {
            largest,
            lane: lane_of_largest,
            close: values
                .iter()
                .take(active)
                .map(|&v| (v >= near) as u32)
                .sum(),
        }
    }
}

/// Two SSE (or other 4-lane) vectors.
#[derive(Clone, Copy)]
pub(crate) struct Portable(f32x4, f32x4);

impl Add for Portable {
    type Output = Portable;
    #[inline(always)]
    fn add(self, other: Portable) -> Portable {
        Portable(self.0 + other.0, self.1 + other.1)
    }
}

impl Sub for Portable {
    type Output = Portable;
    #[inline(always)]
    fn sub(self, other: Portable) -> Portable {
        Portable(self.0 - other.0, self.1 - other.1)
    }
}

impl Mul for Portable {
    type Output = Portable;
    #[inline(always)]
    fn mul(self, other: Portable) -> Portable {
        Portable(self.0 * other.0, self.1 * other.1)
    }
}

impl Lanes for Portable {
    #[inline(always)]
    fn splat(value: f32) -> Portable {
        Portable(f32x4::splat(value), f32x4::splat(value))
    }

    #[inline(always)]
    fn load(values: &[f32; 8]) -> Portable {
        Portable(
            f32x4::from([values[0], values[1], values[2], values[3]]),
            f32x4::from([values[4], values[5], values[6], values[7]]),
        )
    }

    #[inline(always)]
    fn min(self, other: Portable) -> Portable {
        Portable(self.0.fast_min(other.0), self.1.fast_min(other.1))
    }

    #[inline(always)]
    fn max(self, other: Portable) -> Portable {
        Portable(self.0.fast_max(other.0), self.1.fast_max(other.1))
    }

    #[inline(always)]
    fn abs(self) -> Portable {
        Portable(self.0.abs(), self.1.abs())
    }

    #[inline(always)]
    fn sqrt(self) -> Portable {
        Portable(self.0.sqrt(), self.1.sqrt())
    }

    #[inline(always)]
    fn div(self, other: Portable) -> Portable {
        Portable(self.0 / other.0, self.1 / other.1)
    }

    #[inline(always)]
    fn less_bits(self, other: Portable) -> u32 {
        let (low, high) = (self.0.simd_lt(other.0), self.1.simd_lt(other.1));
        low.to_bitmask() | (high.to_bitmask() << 4)
    }

    #[inline(always)]
    fn greater_bits(self, other: Portable) -> u32 {
        let (low, high) = (self.0.simd_gt(other.0), self.1.simd_gt(other.1));
        low.to_bitmask() | (high.to_bitmask() << 4)
    }

    #[inline(always)]
    fn lt(self, other: Portable) -> Portable {
        Portable(self.0.simd_lt(other.0), self.1.simd_lt(other.1))
    }

    #[inline(always)]
    fn le(self, other: Portable) -> Portable {
        Portable(self.0.simd_le(other.0), self.1.simd_le(other.1))
    }

    #[inline(always)]
    fn gt(self, other: Portable) -> Portable {
        Portable(self.0.simd_gt(other.0), self.1.simd_gt(other.1))
    }

    #[inline(always)]
    fn ge(self, other: Portable) -> Portable {
        Portable(self.0.simd_ge(other.0), self.1.simd_ge(other.1))
    }

    #[inline(always)]
    fn eq(self, other: Portable) -> Portable {
        Portable(self.0.simd_eq(other.0), self.1.simd_eq(other.1))
    }

    #[inline(always)]
    fn and(self, other: Portable) -> Portable {
        Portable(self.0 & other.0, self.1 & other.1)
    }

    #[inline(always)]
    fn or(self, other: Portable) -> Portable {
        Portable(self.0 | other.0, self.1 | other.1)
    }

    #[inline(always)]
    fn not(self) -> Portable {
        Portable(!self.0, !self.1)
    }

    #[inline(always)]
    fn select(self, yes: Portable, no: Portable) -> Portable {
        Portable(self.0.bitselect(yes.0, no.0), self.1.bitselect(yes.1, no.1))
    }

    #[inline(always)]
    fn mask_bits(self) -> u32 {
        self.0.to_bitmask() | (self.1.to_bitmask() << 4)
    }

    #[inline(always)]
    fn neg(self) -> Portable {
        let sign = f32x4::splat(-0.0);
        Portable(self.0 ^ sign, self.1 ^ sign)
    }

    #[inline(always)]
    fn to_array(self) -> [f32; 8] {
        let (low, high) = (self.0.to_array(), self.1.to_array());
        [
            low[0], low[1], low[2], low[3], high[0], high[1], high[2], high[3],
        ]
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx {
    use std::arch::x86_64::*;
    use std::ops::{Add, Mul, Sub};

    /// An AVX register. Only ever created inside the `#[target_feature(enable
    /// = "avx,popcnt")]` entry points of the 2D and 3D lanes (`*_avx`), which
    /// are called only after [`uses_avx`](super::uses_avx) detected both: that is
    /// what makes the `unsafe` blocks below sound.
    #[derive(Clone, Copy)]
    pub(crate) struct Avx(__m256);

    impl Add for Avx {
        type Output = Avx;
        #[inline(always)]
        fn add(self, other: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_add_ps(self.0, other.0) })
        }
    }

    impl Sub for Avx {
        type Output = Avx;
        #[inline(always)]
        fn sub(self, other: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_sub_ps(self.0, other.0) })
        }
    }

    impl Mul for Avx {
        type Output = Avx;
        #[inline(always)]
        fn mul(self, other: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_mul_ps(self.0, other.0) })
        }
    }

    impl super::Lanes for Avx {
        #[inline(always)]
        fn splat(value: f32) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_set1_ps(value) })
        }

        #[inline(always)]
        fn load(values: &[f32; 8]) -> Avx {
            // SAFETY: see the type's documentation; the read is of 8 floats.
            Avx(unsafe { _mm256_loadu_ps(values.as_ptr()) })
        }

        #[inline(always)]
        fn load_slice(values: &[f32]) -> Avx {
            let values = &values[..8];
            // SAFETY: see the type's documentation; the slice holds 8 floats.
            Avx(unsafe { _mm256_loadu_ps(values.as_ptr()) })
        }

        #[inline(always)]
        fn first_greater(self, other: Avx, active: usize) -> Option<usize> {
            // SAFETY: see the type's documentation.
            let mask =
                unsafe { _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(self.0, other.0)) } as u32;
            let mask = mask & ((1u32 << active.min(8)) - 1);
            (mask != 0).then(|| mask.trailing_zeros() as usize)
        }

        #[inline(always)]
        fn min(self, other: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_min_ps(self.0, other.0) })
        }

        #[inline(always)]
        fn max(self, other: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_max_ps(self.0, other.0) })
        }

        #[inline(always)]
        fn abs(self) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
        }

        #[inline(always)]
        fn sqrt(self) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_sqrt_ps(self.0) })
        }

        #[inline(always)]
        fn div(self, other: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_div_ps(self.0, other.0) })
        }

        #[inline(always)]
        fn less_bits(self, other: Avx) -> u32 {
            // SAFETY: see the type's documentation.
            unsafe { _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(self.0, other.0)) as u32 }
        }

        #[inline(always)]
        fn greater_bits(self, other: Avx) -> u32 {
            // SAFETY: see the type's documentation.
            unsafe { _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(self.0, other.0)) as u32 }
        }

        #[inline(always)]
        fn lt(self, other: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, other.0) })
        }

        #[inline(always)]
        fn le(self, other: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_cmp_ps::<_CMP_LE_OQ>(self.0, other.0) })
        }

        #[inline(always)]
        fn gt(self, other: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, other.0) })
        }

        #[inline(always)]
        fn ge(self, other: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_cmp_ps::<_CMP_GE_OQ>(self.0, other.0) })
        }

        #[inline(always)]
        fn eq(self, other: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_cmp_ps::<_CMP_EQ_OQ>(self.0, other.0) })
        }

        #[inline(always)]
        fn and(self, other: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_and_ps(self.0, other.0) })
        }

        #[inline(always)]
        fn or(self, other: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_or_ps(self.0, other.0) })
        }

        #[inline(always)]
        fn not(self) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_xor_ps(self.0, _mm256_castsi256_ps(_mm256_set1_epi32(-1))) })
        }

        #[inline(always)]
        fn select(self, yes: Avx, no: Avx) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_blendv_ps(no.0, yes.0, self.0) })
        }

        #[inline(always)]
        fn mask_bits(self) -> u32 {
            // SAFETY: see the type's documentation.
            unsafe { _mm256_movemask_ps(self.0) as u32 }
        }

        #[inline(always)]
        fn neg(self) -> Avx {
            // SAFETY: see the type's documentation.
            Avx(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
        }

        #[inline(always)]
        fn to_array(self) -> [f32; 8] {
            let mut values = [0.0f32; 8];
            // SAFETY: see the type's documentation; the write is of 8 floats.
            unsafe { _mm256_storeu_ps(values.as_mut_ptr(), self.0) };
            values
        }

        #[inline(always)]
        fn smallest(self) -> f32 {
            // SAFETY: see the type's documentation.
            unsafe {
                let halves = _mm256_min_ps(self.0, _mm256_permute2f128_ps::<1>(self.0, self.0));
                let pairs = _mm256_min_ps(halves, _mm256_permute_ps::<0b01_00_11_10>(halves));
                let one = _mm256_min_ps(pairs, _mm256_permute_ps::<0b10_11_00_01>(pairs));
                _mm256_cvtss_f32(one)
            }
        }

        /// The same as the loop, in registers: inactive lanes blended to
        /// the lowest value, a horizontal max, then masks.
        #[inline(always)]
        fn scan(self, active: usize, tolerance: f32) -> super::GroupScan {
            // SAFETY: see the type's documentation.
            unsafe {
                let index = _mm256_setr_ps(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0);
                let live = _mm256_cmp_ps::<_CMP_LT_OQ>(index, _mm256_set1_ps(active as f32));
                let values = _mm256_blendv_ps(_mm256_set1_ps(super::LOWEST), self.0, live);
                let halves = _mm256_max_ps(values, _mm256_permute2f128_ps::<1>(values, values));
                let pairs = _mm256_max_ps(halves, _mm256_permute_ps::<0b01_00_11_10>(halves));
                let largest = _mm256_max_ps(pairs, _mm256_permute_ps::<0b10_11_00_01>(pairs));
                let at_largest =
                    _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_EQ_OQ>(values, largest)) as u32;
                let largest = _mm256_cvtss_f32(largest);
                let near = _mm256_set1_ps(largest - 2.0 * tolerance);
                let close = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GE_OQ>(values, near)) as u32;
                super::GroupScan {
                    largest,
                    lane: at_largest.trailing_zeros() as usize,
                    close: close.count_ones(),
                }
            }
        }
    }
}

/// Whether the AVX path runs (x86-64 with AVX and POPCNT, unless
/// `GPUSAT_NO_AVX` is set).
pub fn uses_avx() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static AVX: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *AVX.get_or_init(|| {
            std::arch::is_x86_feature_detected!("avx")
                && std::arch::is_x86_feature_detected!("popcnt")
                && std::env::var_os("GPUSAT_NO_AVX").is_none()
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Which cache a prefetch asks for.
#[derive(Clone, Copy)]
pub(crate) enum Cache {
    /// The nearest: data about to be read.
    Nearest,
    /// The second level: data read a little later, or in an order the
    /// hardware cannot predict.
    Second,
}

/// Asks for `lines` cache lines from the one that holds `first` on: a
/// hint, which never faults whatever the address. The one loop every
/// prefetch below runs; its count is the caller's, so that it follows a
/// value's size and not its alignment (counted by alignment, random
/// bodies mispredicted the loop's exit about once a call).
#[inline(always)]
pub(crate) fn prefetch_line_run(first: *const u8, lines: usize, cache: Cache) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _MM_HINT_T1, _mm_prefetch};
        let start = first.wrapping_sub(first as usize % 64) as *const i8;
        for line in 0..lines {
            let address = start.wrapping_add(64 * line);
            // SAFETY: a prefetch is a hint; it never faults, whatever the address.
            unsafe {
                match cache {
                    Cache::Nearest => _mm_prefetch::<_MM_HINT_T0>(address),
                    Cache::Second => _mm_prefetch::<_MM_HINT_T1>(address),
                }
            };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (first, lines, cache);
}

/// Asks for the first `lines` cache lines of a value into the nearest
/// cache: the part of a large value (a shape enum whose largest variant is
/// many lines) a reader actually touches.
#[inline(always)]
pub(crate) fn prefetch_lines<T>(value: &T, lines: usize) {
    prefetch_line_run(value as *const T as *const u8, lines, Cache::Nearest);
}

/// Asks for the cache lines of one value (a body's transform, its shape)
/// into the second-level cache: as many as a value of its size can
/// straddle, a count fixed at compile time.
#[inline(always)]
pub(crate) fn prefetch_value<T>(value: &T) {
    let lines = std::mem::size_of::<T>().div_ceil(64) + 1;
    prefetch_line_run(value as *const T as *const u8, lines, Cache::Second);
}

/// Lines [`prefetch_head`] asks for at most. Measured with `gpusat bench
/// --dim 3 --shapes 16,32,64,128 --sizes 100000 --backends cpu --samples 3`
/// (Intel Xeon VM, one thread, two interleaved rounds, ns a pair), every
/// line of each array against at most 2, 4 and 8: 16-vertex hulls 758,
/// 762 against 761, 825 / 762, 746 / 736, 745; 32: 1,123, 1,163 against
/// 1,055, 1,047 / 1,068, 1,045 / 1,062, 1,034; 64: 1,830, 1,830 against
/// 1,563, 1,556 / 1,591, 1,550 / 1,568, 1,558; 128: 3,215, 3,231 against
/// 2,657, 2,617 / 2,664, 2,690 / 2,677, 2,630. Past a few lines the
/// hardware's prefetcher follows each array on its own, and asking for
/// every line of a large hull's arrays (a 128-vertex hull's are some 250
/// lines) only holds up the loads behind the requests.
const PREFETCH_HEAD_LINES: usize = 8;

/// Asks for every cache line of `data` to be brought into the second-level
/// cache: a hint, for data about to be read in an order the hardware cannot
/// predict (a walk across a hull's Gauss map, a sphere's closest feature).
/// As many lines as a slice of its length can straddle, whatever its
/// alignment, so that a run of same-sized shapes (every box) exits the loop
/// where the branch predictor expects.
#[inline]
pub(crate) fn prefetch_all<T>(data: &[T]) {
    prefetch_line_run(
        data.as_ptr() as *const u8,
        lines_spanned(data),
        Cache::Second,
    );
}

/// Asks for the first lines of `data` (all of a short slice, at most
/// [`PREFETCH_HEAD_LINES`]) to be brought into the second-level cache: a
/// hint, for arrays about to be read from start to end (the lanes' rows of
/// a pair's hulls), whose first lines the hardware cannot predict and
/// whose rest it follows. As many lines as a
/// slice of its length can straddle, whatever its alignment, so that a run
/// of same-sized shapes (every box) exits the loop where the branch
/// predictor expects.
#[inline]
pub(crate) fn prefetch_head<T>(data: &[T]) {
    let lines = lines_spanned(data).min(PREFETCH_HEAD_LINES);
    prefetch_line_run(data.as_ptr() as *const u8, lines, Cache::Second);
}

/// The cache lines a slice of `data`'s length can straddle, whatever its
/// alignment.
#[inline(always)]
fn lines_spanned<T>(data: &[T]) -> usize {
    std::mem::size_of_val(data).div_ceil(64) + 1
}
