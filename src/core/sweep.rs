//! Sweep and prune, for boxes of either dimension: sort the boxes by their
//! lower x bound, sweep along x keeping the boxes whose x range is still
//! open, and test the other axes only against those. `O(n log n + k)` plus
//! the pairs that overlap in x alone. Pairs come out sorted by `(a, b)` with
//! `a < b`: the one order every broadphase of the crate gives.

use super::pair::Pair;

/// A box the sweep can sort: its range along the sweep axis (x), and the
/// overlap test on the other axes. 2D and 3D boxes share one sweep.
pub(crate) trait SweepBox {
    /// The lower and upper bound along x.
    fn x_range(&self) -> (f32, f32);
    /// Whether the boxes overlap on every axis but x (touching counts).
    fn overlaps_across(&self, other: &Self) -> bool;
}

/// The sweep itself, for boxes of any dimension.
pub(crate) fn sweep<B: SweepBox>(boxes: &[B]) -> Vec<Pair> {
    let mut order: Vec<u32> = (0..boxes.len() as u32).collect();
    order.sort_unstable_by(|&i, &j| {
        boxes[i as usize]
            .x_range()
            .0
            .total_cmp(&boxes[j as usize].x_range().0)
            .then(i.cmp(&j))
    });
    let mut pairs = Vec::new();
    // Boxes whose x range may still overlap the next ones.
    let mut active: Vec<u32> = Vec::new();
    for &i in &order {
        let current = &boxes[i as usize];
        let low = current.x_range().0;
        active.retain(|&j| boxes[j as usize].x_range().1 >= low);
        for &j in &active {
            if current.overlaps_across(&boxes[j as usize]) {
                pairs.push(Pair::new(i.min(j), i.max(j)));
            }
        }
        active.push(i);
    }
    pairs.sort_unstable();
    pairs
}
