//! From the kernel's compacted records back to hits in pair order.
//!
//! Each workgroup writes its reported pairs as one block, in invocation
//! (slot) order; the blocks land in the output in whatever order the
//! workgroups reserved them. A record's workgroup is its slot divided by the
//! workgroup size, so the blocks are put in order by sorting one entry per
//! block, and copied out in one pass: linear in the records. When the window
//! was sorted (by kind, and by A's shape within a kind), each record's slot
//! is mapped to its pair through the slot-to-pair map and the hits are
//! placed by pair index: linear in the window's pairs.

use std::borrow::Cow;

use super::dimension::Dimension;
use super::dispatch::record_bytes;
use super::kinds::KindRanges;
use super::layout::HitRecord;
use super::windows::{DEFERRAL_COUNT, Window, deferral_word, rerun_capacity, timestamp_offset};

/// What one mapped staging buffer held.
pub(crate) struct Readout {
    /// The kernel's timestamps' difference, in ticks.
    pub kernel_ticks: Option<u64>,
    /// Windows whose output overflowed (now sized to run again).
    pub overflowed: u32,
    /// Pairs the windows that fit deferred to their second dispatch.
    pub deferred: u64,
}

/// Reads a mapped staging buffer laid out by
/// [`layout`](super::windows::layout): each pending window whose counter
/// and deferred pairs fit its output gets its hits, in pair order (the
/// compacted records from the start of its output, the deferred pairs'
/// records from its end); each whose did not gets the room to run again.
pub(crate) fn read_staging<D: Dimension>(
    staging: &[u8],
    windows: &mut [Window<D::Hit>],
    (slot_order, workgroup_size, timestamps): (&[u32], u32, bool),
    scratch: &mut ReadScratch<D::Hit>,
) -> Readout {
    let window_count = windows.len();
    let defers = !D::DEFERRING_KINDS.is_empty();
    let timestamp_offset = timestamp_offset(window_count, defers) as usize;
    let word = |index: u64| -> u32 {
        let at = 4 * index as usize;
        bytemuck::pod_read_unaligned(&staging[at..at + 4])
    };
    let kernel_ticks = timestamps.then(|| {
        let at = timestamp_offset;
        let begin: u64 = bytemuck::pod_read_unaligned(&staging[at..at + 8]);
        let end: u64 = bytemuck::pod_read_unaligned(&staging[at + 8..at + 16]);
        end.saturating_sub(begin)
    });
    let mut overflowed = 0;
    let mut deferred_pairs = 0;
    for (index, window) in windows.iter_mut().enumerate() {
        if window.hits.is_some() {
            continue;
        }
        let count = word(index as u64);
        // Every pair the kernel deferred, those that found the list full
        // (and were not tested) too.
        let deferred = if defers {
            word(deferral_word(window_count, index) + DEFERRAL_COUNT)
        } else {
            0
        };
        if u64::from(count) + u64::from(deferred) > u64::from(window.capacity) {
            let needed = count.saturating_add(deferred);
            window.capacity = rerun_capacity(needed, window.ranges.counts.iter().sum());
            overflowed += 1;
            continue;
        }
        deferred_pairs += u64::from(deferred);
        let at = window.staging_offset as usize;
        let end = at + record_bytes(window.capacity) as usize;
        let front = &staging[at..at + record_bytes(count) as usize];
        let back = &staging[end - record_bytes(deferred) as usize..end];
        let order = (
            &window.ranges,
            window.base,
            &slot_order[window.slot_order_start..],
        );
        let mut hits = Vec::new();
        append_window::<D>(
            (&records(front), &records(back)),
            workgroup_size,
            order,
            scratch,
            &mut hits,
        );
        window.hits = Some(hits);
    }
    Readout {
        kernel_ticks,
        overflowed,
        deferred: deferred_pairs,
    }
}

/// Staging bytes as records (copied where they are not aligned).
fn records(bytes: &[u8]) -> Cow<'_, [HitRecord]> {
    match bytemuck::try_cast_slice::<u8, HitRecord>(bytes) {
        Ok(records) => Cow::Borrowed(records),
        Err(_) => Cow::Owned(bytemuck::pod_collect_to_vec(bytes)),
    }
}

/// A deferred pair's record where the second dispatch did not report it.
const NOT_REPORTED: u32 = u32::MAX;

/// Appends a window's records to `out` in pair order: the compacted ones
/// and the deferred pairs' (those reported among them). `base` is the
/// window's first pair's index in the batch and `slot_order` (for a window
/// sorted) the batch index of the pair in each slot; `scratch` is reused
/// from call to call.
fn append_window<D: Dimension>(
    (records, deferred): (&[HitRecord], &[HitRecord]),
    workgroup_size: u32,
    (ranges, base, slot_order): (&KindRanges, u32, &[u32]),
    scratch: &mut ReadScratch<D::Hit>,
    out: &mut Vec<D::Hit>,
) {
    if ranges.in_order {
        // Slots are the window's own order.
        let start = out.len();
        append_in_slot_order::<D>((records, deferred), workgroup_size, out);
        for hit in &mut out[start..] {
            let pair = D::hit_pair(hit) + base;
            D::set_hit_pair(hit, pair);
        }
        return;
    }
    let ReadScratch { hits, places } = scratch;
    hits.clear();
    append_in_slot_order::<D>((records, deferred), workgroup_size, hits);
    // Slots back to pair indices, and each hit to its pair's place (a pair
    // has at most one hit). The kernel reports no padding slot and no slot
    // past the window; a record that did (a faulty device) is dropped
    // rather than trusted.
    let pairs = ranges.counts.iter().sum::<u32>() as usize;
    places.clear();
    places.resize(pairs, u32::MAX);
    for (index, hit) in hits.iter_mut().enumerate() {
        let Some(&pair) = slot_order.get(D::hit_pair(hit) as usize) else {
            continue;
        };
        let Some(place) = pair
            .checked_sub(base)
            .and_then(|offset| places.get_mut(offset as usize))
        else {
            continue;
        };
        D::set_hit_pair(hit, pair);
        *place = index as u32;
    }
    out.reserve(hits.len());
    out.extend(
        places
            .iter()
            .filter(|&&index| index != u32::MAX)
            .map(|&index| hits[index as usize]),
    );
}

/// What [`read_staging`] reuses from call to call: a window's hits in slot
/// order, and where each of its pairs' hit is among them.
pub(crate) struct ReadScratch<H> {
    hits: Vec<H>,
    places: Vec<u32>,
}

impl<H> Default for ReadScratch<H> {
    fn default() -> Self {
        ReadScratch {
            hits: Vec::new(),
            places: Vec::new(),
        }
    }
}

/// Appends the records in slot order: blocks ordered by workgroup, each
/// block already in order, with the deferred pairs' reported records (few)
/// merged in as the blocks go out. A block that ends before the next
/// deferred pair goes out whole; only the blocks a deferred pair falls in
/// are taken a record at a time. (Merging after the fact, splitting the
/// window's hits off and merging them back one at a time, cost the host 40
/// to 50 ns a pair on 1M pairs of 128- and 256-vertex hulls on an H100,
/// whose kernel is 79 to 144: about five times the readback of a window with
/// nothing deferred.)
fn append_in_slot_order<D: Dimension>(
    (records, deferred): (&[HitRecord], &[HitRecord]),
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
    // A deferred pair is not among the compacted records: the slots differ.
    let mut late: Vec<&HitRecord> = deferred
        .iter()
        .filter(|record| record.pair != NOT_REPORTED)
        .collect();
    late.sort_unstable_by_key(|record| record.pair);
    let mut late = late.into_iter().peekable();
    let hit = |record: &HitRecord| D::hit(record.pair, record.axis, record.depth);
    out.reserve(records.len() + late.len());
    for (_, start, end) in blocks {
        let block = &records[start..end];
        let ends_first = match (late.peek(), block.last()) {
            (Some(next), Some(last)) => last.pair < next.pair,
            _ => true,
        };
        if ends_first {
            out.extend(block.iter().map(hit));
            continue;
        }
        for record in block {
            while let Some(early) = late.next_if(|next| next.pair < record.pair) {
                out.push(hit(early));
            }
            out.push(hit(record));
        }
    }
    out.extend(late.map(hit));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::Spatial;

    fn record(pair: u32) -> HitRecord {
        HitRecord {
            pair,
            axis: 0,
            depth: pair as f32,
            _pad: 0,
        }
    }

    /// Blocks of a workgroup of 4 in a scrambled order, and deferred
    /// records (some not reported) that fall inside blocks, between them,
    /// before the first and after the last: every reported slot once, in
    /// ascending order, whatever the blocks' order.
    #[test]
    fn deferred_records_are_merged_into_the_blocks_in_slot_order() {
        let workgroup_size = 4;
        // Slots 0..40; reported by the first dispatch: those not deferred
        // and not a multiple of 5; deferred: 0, 6, 13, 14, 19, 27, 39.
        let deferred_slots = [0u32, 6, 13, 14, 19, 27, 39];
        let compacted: Vec<u32> = (0..40)
            .filter(|slot| slot % 5 != 0 && !deferred_slots.contains(slot))
            .collect();
        let mut blocks: Vec<Vec<HitRecord>> = Vec::new();
        for slot in &compacted {
            let group = slot / workgroup_size;
            match blocks.last_mut() {
                Some(block) if block[0].pair / workgroup_size == group => block.push(record(*slot)),
                _ => blocks.push(vec![record(*slot)]),
            }
        }
        let order = [5usize, 0, 7, 2, 9, 1, 8, 3, 6, 4];
        assert_eq!(blocks.len(), order.len(), "one block per workgroup");
        let records: Vec<HitRecord> = order.iter().flat_map(|&b| blocks[b].clone()).collect();
        // The deferred list as the second dispatch leaves it: 13 and 27
        // not reported.
        let deferred: Vec<HitRecord> = deferred_slots
            .iter()
            .rev()
            .map(|&slot| match slot {
                13 | 27 => record(NOT_REPORTED),
                _ => record(slot),
            })
            .collect();
        let mut out = Vec::new();
        append_in_slot_order::<Spatial>((&records, &deferred), workgroup_size, &mut out);
        let pairs: Vec<u32> = out.iter().map(|hit| hit.pair).collect();
        let mut expected: Vec<u32> = compacted.clone();
        expected.extend([0, 6, 14, 19, 39]);
        expected.sort_unstable();
        assert_eq!(pairs, expected, "slots out against slots expected");
        for hit in &out {
            assert_eq!(
                hit.depth, hit.pair as f32,
                "slot {}: its own record",
                hit.pair
            );
        }
        // Nothing deferred: the blocks alone, in order.
        let mut alone = Vec::new();
        append_in_slot_order::<Spatial>((&records, &[]), workgroup_size, &mut alone);
        let alone: Vec<u32> = alone.iter().map(|hit| hit.pair).collect();
        assert_eq!(alone, compacted, "slots out against slots expected");
    }

    /// A window sorted by kind and shape: slots (a workgroup of 4, two
    /// kinds, one padding slot) in an order unrelated to the pairs', blocks
    /// scrambled, one hit deferred. The hits come out in pair order, each
    /// with its own record.
    #[test]
    fn a_sorted_windows_hits_come_out_in_pair_order() {
        let workgroup_size = 4;
        let base = 50;
        // Slot -> pair: kind 0 in slots 0..3 (slot 3 padding), kind 1 in
        // slots 4..8.
        let slot_order = [52, 56, 50, u32::MAX, 55, 51, 54, 53];
        let ranges = KindRanges {
            counts: [3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            starts: [0, 4, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8],
            slots: 8,
            in_order: false,
        };
        // Hits: slots 0, 1, 2, 5, 7 compacted (second block first), slot 6
        // deferred and reported; slot 4 no hit.
        let slot_depth = |slot: u32| 1000.0 + slot as f32;
        let with_depth = |slot: u32| HitRecord {
            depth: slot_depth(slot),
            ..record(slot)
        };
        // Slot 3 is padding: a record of it (a faulty device) is dropped.
        let records = [
            with_depth(5),
            with_depth(7),
            with_depth(0),
            with_depth(1),
            with_depth(2),
            with_depth(3),
        ];
        let deferred = [with_depth(6)];
        let mut scratch = ReadScratch::default();
        let mut out = Vec::new();
        append_window::<Spatial>(
            (&records, &deferred),
            workgroup_size,
            (&ranges, base, &slot_order),
            &mut scratch,
            &mut out,
        );
        let pairs: Vec<u32> = out.iter().map(|hit| hit.pair).collect();
        assert_eq!(
            pairs,
            [50, 51, 52, 53, 54, 56],
            "pairs out against expected"
        );
        for hit in &out {
            let slot = slot_order
                .iter()
                .position(|&pair| pair == hit.pair)
                .unwrap() as u32;
            assert_eq!(
                hit.depth,
                slot_depth(slot),
                "pair {}: the record of its slot {slot}",
                hit.pair
            );
        }
    }
}
