//! Splitting CPU work over rayon's pool (the `parallel` feature).
//!
//! Batches are cut into chunks of 2,048 to 4,096 pairs (fewer, down to one,
//! when each pair weighs more: 3D hulls), each chunk's output reserved for
//! the worst case, and the outputs joined in order with a parallel copy.
//! Small batches stay on the calling thread.

use rayon::prelude::*;

/// Maps `items` on all cores, keeping their order.
pub(crate) fn map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync + Send) -> Vec<U> {
    items.par_iter().map(f).collect()
}

/// Pairs per rayon task: at most 4,096 (small enough to balance dense and
/// sparse stretches of a batch), at least 2,048 (about 0.1 ms of work, as
/// long as waking a pool thread can take on a virtual machine), and
/// otherwise eight tasks per thread so that a batch of ten thousand pairs
/// still keeps every core busy to the end.
fn parallel_chunk(count: usize) -> usize {
    (count / (8 * rayon::current_num_threads()).max(1)).clamp(2048, 4096)
}

/// Below this many pairs the parallel variants run on the calling thread:
/// waking the pool's threads took 0.1 to 0.2 ms on the 2-core virtual
/// machine (a Xeon) where it was measured, as long as 5,000 pairs take on one
/// thread, and 10,000 pairs split in parallel ran 0.9 to 1.05x one thread.
pub const PARALLEL_MIN_PAIRS: usize = 16_384;

/// Runs `range_fn` over the batch's pairs in parallel chunks, each into an
/// output reserved for the worst case (every pair reported), and joins the
/// outputs in pair order.
pub(crate) fn in_parallel_chunks<T: Copy + Send + Sync>(
    count: usize,
    range_fn: impl Fn(std::ops::Range<usize>, &mut Vec<T>) + Sync,
) -> Vec<T> {
    in_parallel_chunks_weighted(count, 1, range_fn)
}

/// [`in_parallel_chunks`] for pairs that each cost about `weight` times a
/// 2D polygon pair (3D hulls: tens to thousands of times): the chunks and
/// the size below which the batch stays on the calling thread shrink by
/// that factor, so a batch of a few hundred large-hull pairs is split too.
pub(crate) fn in_parallel_chunks_weighted<T: Copy + Send + Sync>(
    count: usize,
    weight: usize,
    range_fn: impl Fn(std::ops::Range<usize>, &mut Vec<T>) + Sync,
) -> Vec<T> {
    let weight = weight.max(1);
    let chunk_len = (parallel_chunk(count.saturating_mul(weight)) / weight).max(1);
    if count.saturating_mul(weight) < PARALLEL_MIN_PAIRS {
        // Handing work to the pool costs a round trip that, measured with
        // `gpusat bench`, outweighs splitting less than this.
        let mut out = Vec::with_capacity(count);
        range_fn(0..count, &mut out);
        return out;
    }
    let chunks: Vec<Vec<T>> = (0..count.div_ceil(chunk_len))
        .into_par_iter()
        .map(|chunk| {
            let start = chunk * chunk_len;
            let end = (start + chunk_len).min(count);
            let mut out = Vec::with_capacity(end - start);
            range_fn(start..end, &mut out);
            out
        })
        .collect();
    concat_parallel(chunks)
}

/// Joins per-chunk results in order, copying them in parallel: a large output
/// is fresh memory, and first touching it (page faults) is then shared by the
/// cores instead of following the parallel work on one.
fn concat_parallel<T: Copy + Send + Sync>(chunks: Vec<Vec<T>>) -> Vec<T> {
    let total: usize = chunks.iter().map(Vec::len).sum();
    let mut out: Vec<T> = Vec::with_capacity(total);
    {
        let mut rest = &mut out.spare_capacity_mut()[..total];
        let mut places = Vec::with_capacity(chunks.len());
        for chunk in &chunks {
            let (place, tail) = rest.split_at_mut(chunk.len());
            places.push(place);
            rest = tail;
        }
        places
            .into_par_iter()
            .zip(chunks.par_iter())
            .for_each(|(place, chunk)| {
                for (slot, item) in place.iter_mut().zip(chunk) {
                    slot.write(*item);
                }
            });
    }
    // SAFETY: the `total` slots were split into one place per chunk, each
    // exactly as long as its chunk, and every place was written in full.
    unsafe { out.set_len(total) };
    out
}
