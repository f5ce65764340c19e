//! A batch cut into windows, and the layout of one recording.
//!
//! A window is as many pairs as one storage binding holds with room for
//! every one of them to be reported. Each window is sorted by kind of pair
//! ([`kinds`](super::kinds)), its output sized from the last batch's hits,
//! and all the windows of a recording run in one pass: each has its own
//! region of the pairs and output buffers (at dynamic offsets), its own
//! counter, and its own place in the staging buffer that brings everything
//! back in one copy:
//!
//! ```text
//! staging: [counter of each window][pad to 8][2 timestamps][output of window 0][output of window 1]...
//! ```
//!
//! These are plain functions over plain data; the device work is in
//! [`narrowphase`](super::narrowphase).

use super::buffers::too_large;
use super::dispatch::{Dispatch, StagingCopy, grid, params_offset, record_bytes};
use super::error::GpuError;
use super::kinds::{BodyClasses, KindRanges, PAIR_KINDS, sort_by_kind};
use super::layout::Params;
use crate::types::Pair;

/// A window's output is sized at this many times the hits per pair of the
/// last batch's densest window (plus [`CAPACITY_SLACK`]), so that the copy
/// back moves little more than the hits while a batch a little denser than
/// the last still fits; a window that does not fit runs again.
pub(crate) const CAPACITY_GROWTH: f64 = 1.125;
/// Records added to every window's estimated output.
pub(crate) const CAPACITY_SLACK: u64 = 256;

/// One window of a batch in flight; `H` is the dimension's hit.
pub(crate) struct Window<H> {
    /// Index of its first pair in the batch.
    pub base: u32,
    pub ranges: KindRanges,
    /// Where its slots' pair indices start in the plan's `slot_order`.
    pub slot_order_start: usize,
    /// Records its output holds.
    pub capacity: u32,
    /// Its hits, once read back.
    pub hits: Option<Vec<H>>,
    /// Where its output sits in the staging buffer.
    pub staging_offset: u64,
}

/// A range of a batch's pairs in windows, sorted by kind.
pub(crate) struct Plan<H> {
    pub windows: Vec<Window<H>>,
    /// For each window sorted by kind, the batch index of the pair in each
    /// of its slots (windows in order have none).
    pub slot_order: Vec<u32>,
    /// Each window's pairs in slot order, when sorted (empty when the
    /// window goes up as it is).
    pub staged: Vec<Vec<Pair>>,
}

/// Cuts `pairs` (whose first is pair `base` of the batch) into windows of at
/// most `max_window`, sorts each by kind, and sizes each output with
/// `capacity` (given the window's pair count).
pub(crate) fn plan<H>(
    pairs: &[Pair],
    base: usize,
    max_window: usize,
    (classes, workgroup_size): (&BodyClasses, u32),
    capacity: impl Fn(u32) -> u32,
) -> Plan<H> {
    let mut plan = Plan {
        windows: Vec::new(),
        slot_order: Vec::new(),
        staged: Vec::new(),
    };
    let mut staged = Vec::new();
    for (index, window) in pairs.chunks(max_window).enumerate() {
        let window_base = (base + index * max_window) as u32;
        let slot_order_start = plan.slot_order.len();
        let ranges = sort_by_kind(
            window,
            window_base,
            classes,
            workgroup_size,
            &mut staged,
            &mut plan.slot_order,
        );
        plan.staged.push(if ranges.in_order {
            Vec::new()
        } else {
            std::mem::take(&mut staged)
        });
        plan.windows.push(Window {
            base: window_base,
            ranges,
            slot_order_start,
            capacity: capacity(window.len() as u32),
            hits: None,
            staging_offset: 0,
        });
    }
    plan
}

/// Records of output for a window of `pairs` pairs in a new batch: from the
/// last batch's `hit_ratio` when there was one, else `initial` (an option),
/// else room for every pair.
pub(crate) fn first_capacity(pairs: u32, hit_ratio: Option<f64>, initial: Option<u32>) -> u32 {
    let estimate = match (hit_ratio, initial) {
        (Some(ratio), _) => {
            (f64::from(pairs) * ratio * CAPACITY_GROWTH).ceil() as u64 + CAPACITY_SLACK
        }
        (None, Some(initial)) => u64::from(initial),
        (None, None) => u64::from(pairs),
    };
    estimate.clamp(1, u64::from(pairs.max(1))) as u32
}

/// Records of output for a window of `pairs` pairs run again after `count`
/// records did not fit: all of them and some, at most one per pair.
pub(crate) fn rerun_capacity(count: u32, pairs: u32) -> u32 {
    (u64::from(count) + u64::from(count) / 8 + CAPACITY_SLACK).min(u64::from(pairs.max(1))) as u32
}

/// The hits per pair of the densest window: what the next batch's outputs
/// are sized from.
pub(crate) fn densest_ratio<H>(windows: &[Window<H>]) -> f64 {
    windows
        .iter()
        .map(|window| {
            let pairs = window.ranges.counts.iter().sum::<u32>().max(1);
            window.hits.as_ref().map_or(0, Vec::len) as f64 / f64::from(pairs)
        })
        .fold(0.0, f64::max)
}

/// Where everything of one recording goes.
pub(crate) struct Recording {
    /// Each window's and kind's [`Params`], at their offsets.
    pub params: Vec<u8>,
    pub dispatches: Vec<Dispatch>,
    pub copies: Vec<StagingCopy>,
    /// Bytes of the windows' counters (at the start of the staging buffer).
    pub counter_bytes: u64,
    /// Where the timestamps go in the staging buffer.
    pub timestamp_offset: u64,
    /// Bytes of staging used.
    pub staging_bytes: u64,
}

/// What [`layout`] needs besides the windows.
pub(crate) struct LayoutInput {
    /// Bytes of one window's pairs, and of one window's output, in their buffers.
    pub pairs_stride: u64,
    pub hits_stride: u64,
    pub margin: f32,
    /// `Params::merge_threshold` (the dimension's flags).
    pub flags: u32,
    pub workgroup_size: u32,
    pub max_groups: u32,
}

/// Lays out a recording of the windows not read back yet: each one's place
/// in the staging buffer, the dispatches of its kinds (with their dynamic
/// offsets) and their parameters.
pub(crate) fn layout<H>(
    windows: &mut [Window<H>],
    input: &LayoutInput,
) -> Result<Recording, GpuError> {
    let counter_bytes = 4 * windows.len() as u64;
    let timestamp_offset = counter_bytes.next_multiple_of(8);
    let mut recording = Recording {
        params: vec![0u8; params_offset(windows.len(), 0) as usize],
        dispatches: Vec::new(),
        copies: Vec::new(),
        counter_bytes,
        timestamp_offset,
        staging_bytes: timestamp_offset + 16,
    };
    for (index, window) in windows.iter_mut().enumerate() {
        if window.hits.is_some() {
            continue;
        }
        let offset_of = |stride: u64| {
            u32::try_from(index as u64 * stride).map_err(|_| {
                too_large(
                    "windows of one recording",
                    (index as u64 + 1) * stride,
                    u64::from(u32::MAX),
                    "dynamic offsets are 32-bit",
                )
            })
        };
        let (pairs_offset, hits_offset) = (
            offset_of(input.pairs_stride)?,
            offset_of(input.hits_stride)?,
        );
        window.staging_offset = recording.staging_bytes;
        let bytes = record_bytes(window.capacity);
        recording.copies.push(StagingCopy {
            source_offset: u64::from(hits_offset),
            staging_offset: recording.staging_bytes,
            bytes,
        });
        recording.staging_bytes += bytes;
        for kind in 0..PAIR_KINDS {
            let count = window.ranges.counts[kind];
            let groups = grid(count, input.workgroup_size, input.max_groups);
            let params = Params {
                pair_base: window.ranges.starts[kind],
                pair_count: count,
                groups_x: groups.0,
                capacity: window.capacity,
                margin: input.margin,
                merge_threshold: input.flags,
                window: index as u32,
                _pad: 0,
            };
            let offset = params_offset(index, kind);
            recording.params[offset as usize..offset as usize + size_of::<Params>()]
                .copy_from_slice(bytemuck::bytes_of(&params));
            if count > 0 {
                let params_at = u32::try_from(offset).map_err(|_| {
                    too_large(
                        "parameters of one recording",
                        offset + size_of::<Params>() as u64,
                        u64::from(u32::MAX),
                        "dynamic offsets are 32-bit",
                    )
                })?;
                recording.dispatches.push(Dispatch {
                    kind,
                    offsets: [params_at, pairs_offset, hits_offset],
                    groups,
                });
            }
        }
    }
    Ok(recording)
}
