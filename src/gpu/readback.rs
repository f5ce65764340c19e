//! From the kernel's compacted records back to hits in pair order.
//!
//! Each workgroup writes its reported pairs as one block, in invocation
//! (slot) order; the blocks land in the output in whatever order the
//! workgroups reserved them. A record's workgroup is its slot divided by the
//! workgroup size, so the blocks are put in order by sorting one entry per
//! block, and copied out in one pass: linear in the records. When the window
//! was sorted by kind, each kind's slots are one run ascending in pair
//! index, and the runs are merged through the slot-to-pair map.

use super::dimension::Dimension;
use super::dispatch::record_bytes;
use super::kinds::{KindRanges, PAIR_KINDS};
use super::layout::HitRecord;
use super::windows::{Window, rerun_capacity};

/// What one mapped staging buffer held.
pub(crate) struct Readout {
    /// The kernel's timestamps' difference, in ticks.
    pub kernel_ticks: Option<u64>,
    /// Windows whose output overflowed (now sized to run again).
    pub overflowed: u32,
}

/// Reads a mapped staging buffer laid out by
/// [`layout`](super::windows::layout): each pending window whose counter
/// fits its output gets its hits, in pair order; each whose counter passed
/// it gets the room to run again.
pub(crate) fn read_staging<D: Dimension>(
    staging: &[u8],
    windows: &mut [Window<D::Hit>],
    (slot_order, workgroup_size, timestamps): (&[u32], u32, bool),
    scratch: &mut Vec<D::Hit>,
) -> Readout {
    let timestamp_offset = (4 * windows.len()).next_multiple_of(8);
    let kernel_ticks = timestamps.then(|| {
        let at = timestamp_offset;
        let begin: u64 = bytemuck::pod_read_unaligned(&staging[at..at + 8]);
        let end: u64 = bytemuck::pod_read_unaligned(&staging[at + 8..at + 16]);
        end.saturating_sub(begin)
    });
    let mut overflowed = 0;
    for (index, window) in windows.iter_mut().enumerate() {
        if window.hits.is_some() {
            continue;
        }
        let count: u32 = bytemuck::pod_read_unaligned(&staging[4 * index..4 * index + 4]);
        if count > window.capacity {
            window.capacity = rerun_capacity(count, window.ranges.counts.iter().sum());
            overflowed += 1;
            continue;
        }
        let at = window.staging_offset as usize;
        let bytes = &staging[at..at + record_bytes(count) as usize];
        let order = (
            &window.ranges,
            window.base,
            &slot_order[window.slot_order_start..],
        );
        let mut hits = Vec::new();
        match bytemuck::try_cast_slice::<u8, HitRecord>(bytes) {
            Ok(records) => append_window::<D>(records, workgroup_size, order, scratch, &mut hits),
            Err(_) => append_window::<D>(
                &bytemuck::pod_collect_to_vec::<u8, HitRecord>(bytes),
                workgroup_size,
                order,
                scratch,
                &mut hits,
            ),
        }
        window.hits = Some(hits);
    }
    Readout {
        kernel_ticks,
        overflowed,
    }
}

/// Appends a window's `records` to `out` in pair order. `base` is the
/// window's first pair's index in the batch and `slot_order` (for a window
/// sorted by kind) the batch index of the pair in each slot; `scratch` is
/// reused from call to call.
fn append_window<D: Dimension>(
    records: &[HitRecord],
    workgroup_size: u32,
    (ranges, base, slot_order): (&KindRanges, u32, &[u32]),
    scratch: &mut Vec<D::Hit>,
    out: &mut Vec<D::Hit>,
) {
    if ranges.in_order {
        // Slots are the window's own order.
        let start = out.len();
        append_in_slot_order::<D>(records, workgroup_size, out);
        for hit in &mut out[start..] {
            let pair = D::hit_pair(hit) + base;
            D::set_hit_pair(hit, pair);
        }
        return;
    }
    scratch.clear();
    append_in_slot_order::<D>(records, workgroup_size, scratch);
    // Slots back to pair indices: one ascending run per kind, merged.
    let mut runs: [&[D::Hit]; PAIR_KINDS] = [&[]; PAIR_KINDS];
    let mut rest = &scratch[..];
    for (kind, run) in runs.iter_mut().enumerate() {
        let end = ranges.starts.get(kind + 1).map_or(u32::MAX, |&start| start);
        let split = rest.partition_point(|hit| D::hit_pair(hit) < end);
        *run = &rest[..split];
        rest = &rest[split..];
    }
    merge_runs::<D>(&runs, slot_order, out);
}

/// Appends the records in slot order: blocks ordered by workgroup, each
/// block already in order.
fn append_in_slot_order<D: Dimension>(
    records: &[HitRecord],
    workgroup_size: u32,
    out: &mut Vec<D::Hit>,
) {
    let group = |record: &HitRecord| record.pair / workgroup_size;
    let mut blocks: Vec<(u32, usize, usize)> = Vec::new();
    let mut start = 0;
    for index in 1..=records.len() {
        if index == records.len() || group(&records[index]) != group(&records[start]) {
            blocks.push((group(&records[start]), start, index));
            start = index;
        }
    }
    blocks.sort_unstable_by_key(|&(group, _, _)| group);
    out.reserve(records.len());
    for (_, start, end) in blocks {
        out.extend(
            records[start..end]
                .iter()
                .map(|record| D::hit(record.pair, record.axis, record.depth)),
        );
    }
}

/// Merges runs of hits that are each ascending in pair index once their
/// slots are mapped through `slot_order`, appending to `out`.
fn merge_runs<D: Dimension>(
    runs: &[&[D::Hit]; PAIR_KINDS],
    slot_order: &[u32],
    out: &mut Vec<D::Hit>,
) {
    let mut heads = [0usize; PAIR_KINDS];
    out.reserve(runs.iter().map(|run| run.len()).sum());
    loop {
        let mut next: Option<(usize, u32)> = None;
        for (kind, run) in runs.iter().enumerate() {
            if let Some(hit) = run.get(heads[kind]) {
                let pair = slot_order[D::hit_pair(hit) as usize];
                if next.is_none_or(|(_, best)| pair < best) {
                    next = Some((kind, pair));
                }
            }
        }
        let Some((kind, pair)) = next else { break };
        let mut hit = runs[kind][heads[kind]];
        D::set_hit_pair(&mut hit, pair);
        out.push(hit);
        heads[kind] += 1;
    }
}
