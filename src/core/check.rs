//! Checking one backend's results against another's, pair by pair.
//!
//! Two correct backends may differ only where floating-point rounding can
//! tip a decision, and then only within tolerances:
//!
//! * a pair may be reported by one backend only if its depth is within
//!   `TOUCH_TOLERANCE × size` of the reporting threshold (`-margin`);
//! * the axes may differ only at a near-tie, where both depths agree within
//!   `DEPTH_TOLERANCE × size`, or, where the tie rule itself keeps one kind
//!   of axis over another by a tolerance (3D: a face over an edge pair, or
//!   over the nearest features of two rounded shapes' cores apart, by
//!   `EDGE_TOLERANCE × (size_a + size_b)`), within that tolerance more;
//! * on the same axis, depths must always agree within
//!   `DEPTH_TOLERANCE × size`.
//!
//! `size` is the larger of the two shapes' sizes. Anything else is a
//! disagreement.
//!
//! Why the second allowance: when an edge pair's separation and the best
//! face's differ by about the edge tolerance, the tie rule's choice turns
//! on their last bits. A backend whose arithmetic rounds differently (a
//! hardware GPU that fuses a multiply and an add: an NVIDIA H100 did) can
//! then keep the face where the CPU took the edge pair, and the two depths
//! differ by the tolerance, not by rounding. On lavapipe, which computes
//! the CPU's bits, it never arises.

/// Depth agreement, relative to the pair's size.
pub const DEPTH_TOLERANCE: f32 = 1e-5;
/// How close to the reporting threshold a pair reported by one side only must be.
pub const TOUCH_TOLERANCE: f32 = 1e-5;

/// The outcome of comparing two backends on one batch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Agreement {
    /// Pairs compared.
    pub pairs: usize,
    /// Pairs the reference reported.
    pub reference_hits: usize,
    /// Pairs the candidate reported.
    pub candidate_hits: usize,
    /// Same axis and the same depth bits.
    pub identical: usize,
    /// Different axes at a near-tie.
    pub near_ties: usize,
    /// Reported by one side only, within tolerance of touching.
    pub near_touching: usize,
    /// The largest depth difference, relative to size.
    pub max_depth_error: f32,
    /// Everything outside the tolerances, described.
    pub disagreements: Vec<String>,
}

impl Agreement {
    /// Whether nothing fell outside the tolerances.
    pub fn agrees(&self) -> bool {
        self.disagreements.is_empty()
    }

    /// Adds another batch's counts to these.
    pub fn absorb(&mut self, other: Agreement) {
        self.pairs += other.pairs;
        self.reference_hits += other.reference_hits;
        self.candidate_hits += other.candidate_hits;
        self.identical += other.identical;
        self.near_ties += other.near_ties;
        self.near_touching += other.near_touching;
        self.max_depth_error = self.max_depth_error.max(other.max_depth_error);
        self.disagreements.extend(other.disagreements);
    }
}

/// What the comparison reads of a hit, in either dimension.
pub(crate) trait CheckedHit: Copy + std::fmt::Debug {
    /// The pair's index in the batch.
    fn pair(&self) -> u32;
    /// The depth.
    fn depth(&self) -> f32;
    /// Whether the two name the same axis.
    fn same_axis(&self, other: &Self) -> bool;
    /// How much more than `DEPTH_TOLERANCE` (times the pair's size) the
    /// depths of two different axes may differ by at a near-tie: the tie
    /// rule's own tolerance between their kinds. None in 2D (its face tie
    /// tolerance lies inside `DEPTH_TOLERANCE`).
    fn tie_allowance(&self, _other: &Self) -> f32 {
        0.0
    }
}

/// `compare_hits` in either dimension (`d2::compare_hits`,
/// `d3::compare_hits`): `pairs` and `margin` of the batch,
/// the size of each pair.
pub(crate) fn compare<H: CheckedHit>(
    (pairs, margin): (usize, f32),
    pair_size: impl Fn(u32) -> f32,
    reference: &[H],
    candidate: &[H],
) -> Agreement {
    let mut agreement = Agreement {
        pairs,
        reference_hits: reference.len(),
        candidate_hits: candidate.len(),
        ..Agreement::default()
    };
    let (mut i, mut j) = (0, 0);
    while i < reference.len() || j < candidate.len() {
        let next_reference = reference.get(i).map_or(u32::MAX, |h| h.pair());
        let next_candidate = candidate.get(j).map_or(u32::MAX, |h| h.pair());
        if next_reference != next_candidate {
            let (only, side) = if next_reference < next_candidate {
                i += 1;
                (reference[i - 1], "the reference")
            } else {
                j += 1;
                (candidate[j - 1], "the candidate")
            };
            let size = pair_size(only.pair());
            if (only.depth() + margin).abs() <= TOUCH_TOLERANCE * size {
                agreement.near_touching += 1;
            } else {
                agreement.disagreements.push(format!(
                    "pair {} reported by {side} only ({only:?})",
                    only.pair()
                ));
            }
            continue;
        }
        let (r, c) = (reference[i], candidate[j]);
        i += 1;
        j += 1;
        let size = pair_size(r.pair());
        let error = (r.depth() - c.depth()).abs();
        let same_axis = r.same_axis(&c);
        if !same_axis
            && error > DEPTH_TOLERANCE * size
            && error <= (DEPTH_TOLERANCE + r.tie_allowance(&c)) * size
        {
            // A near-tie across the tie rule's tolerance: counted, and
            // left out of the depth error, which measures rounding.
            agreement.near_ties += 1;
            continue;
        }
        agreement.max_depth_error = agreement.max_depth_error.max(error / size);
        if error > DEPTH_TOLERANCE * size {
            agreement
                .disagreements
                .push(format!("pair {}: {r:?} against {c:?}", r.pair()));
        } else if !same_axis {
            agreement.near_ties += 1;
        } else if r.depth().to_bits() == c.depth().to_bits() {
            agreement.identical += 1;
        }
    }
    agreement
}
