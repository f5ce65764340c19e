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
//! counters: [counter of each window][pad to 8 words][8 deferral words of each window (3D)]
//! staging:  [counters][pad to 8 bytes][2 timestamps][output of window 0][output of window 1]...
//! ```
//!
//! A window of a dimension that defers pairs (3D: `shaders/d3/software.wgsl`,
//! "Deferred pairs") has a second dispatch after its kinds', as large as its
//! deferral words say once the first dispatches are done.
//!
//! These are plain functions over plain data; the device work is in
//! [`narrowphase`](super::narrowphase).

use super::buffers::too_large;
use super::dispatch::{DEFERRED_KIND, Dispatch, StagingCopy, grid, params_offset, record_bytes};
use super::error::GpuError;
use super::kinds::{BodyClasses, KindRanges, sort_by_kind};
use super::layout::Params;
use super::layout::d3::DEFERRAL_COUNT_WORD;
use crate::core::pair::Pair;

/// A window's output is sized at this many times the hits per pair of the
/// last batch's densest window (plus [`CAPACITY_SLACK`]), so that the copy
/// back moves little more than the hits while a batch a little denser than
/// the last still fits; a window that does not fit runs again.
pub(crate) const CAPACITY_GROWTH: f64 = 1.125;
/// Records added to every window's estimated output.
pub(crate) const CAPACITY_SLACK: u64 = 256;

/// Words of each window's deferral record in the counters buffer: the
/// second dispatch's workgroups (x, y, z), the pairs deferred, four unused.
pub(crate) const DEFERRAL_WORDS: u64 = 8;
/// Where the count of pairs deferred is among them (it counts past the
/// window's capacity: a pair that finds the list full is counted, not
/// tested, and the window runs again with more room).
pub(crate) const DEFERRAL_COUNT: u64 = DEFERRAL_COUNT_WORD as u64;

/// Bytes of one window's workgroup counts in the indirect buffer.
pub(crate) const INDIRECT_BYTES: u64 = 16;

/// Where window `window`'s deferral words start in the counters buffer, in
/// words, in a recording of `windows` windows.
pub(crate) fn deferral_word(windows: usize, window: usize) -> u64 {
    (windows as u64).next_multiple_of(DEFERRAL_WORDS) + DEFERRAL_WORDS * window as u64
}

/// Bytes of the counters of a recording of `windows` windows, at the start
/// of the staging buffer: the hit counters, and the deferral words where
/// the dimension `defers` pairs.
pub(crate) fn counter_bytes(windows: usize, defers: bool) -> u64 {
    if defers {
        4 * deferral_word(windows, windows)
    } else {
        4 * windows as u64
    }
}

/// Where the timestamps go in the staging buffer.
pub(crate) fn timestamp_offset(windows: usize, defers: bool) -> u64 {
    counter_bytes(windows, defers).next_multiple_of(8)
}

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
    /// Copies of the deferring windows' workgroup counts from the counters
    /// into the indirect buffer (`staging_offset`: where in the indirect
    /// buffer), and the bytes of the indirect buffer used.
    pub indirect_copies: Vec<StagingCopy>,
    pub indirect_bytes: u64,
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
    /// The kinds whose pairs the kernel may defer to a second dispatch
    /// (entry point [`DEFERRED_KIND`]); none in 2D.
    pub deferring_kinds: &'static [usize],
}

/// Lays out a recording of the windows not read back yet: each one's place
/// in the staging buffer, the dispatches of its kinds (with their dynamic
/// offsets) and their parameters.
pub(crate) fn layout<H>(
    windows: &mut [Window<H>],
    input: &LayoutInput,
) -> Result<Recording, GpuError> {
    let window_count = windows.len();
    let defers = !input.deferring_kinds.is_empty();
    let counter_bytes = counter_bytes(window_count, defers);
    let timestamp_offset = timestamp_offset(window_count, defers);
    let mut recording = Recording {
        params: vec![0u8; params_offset(window_count, 0) as usize],
        dispatches: Vec::new(),
        copies: Vec::new(),
        indirect_copies: Vec::new(),
        indirect_bytes: 0,
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
        let deferral = if defers {
            deferral_word(window_count, index) as u32
        } else {
            0
        };
        let defers = input
            .deferring_kinds
            .iter()
            .any(|&kind| window.ranges.counts[kind] > 0);
        // The window's kinds, then (where some may defer) its deferred pairs.
        for kind in 0..=DEFERRED_KIND {
            let deferred = kind == DEFERRED_KIND;
            let count = if deferred {
                0
            } else {
                window.ranges.counts[kind]
            };
            let groups = grid(count, input.workgroup_size, input.max_groups);
            let params = Params {
                pair_base: if deferred {
                    0
                } else {
                    window.ranges.starts[kind]
                },
                pair_count: count,
                groups_x: groups.0,
                capacity: window.capacity,
                margin: input.margin,
                merge_threshold: input.flags,
                window: index as u32,
                deferral,
            };
            let offset = params_offset(index, kind);
            recording.params[offset as usize..offset as usize + size_of::<Params>()]
                .copy_from_slice(bytemuck::bytes_of(&params));
            if count == 0 && !(deferred && defers) {
                continue;
            }
            let params_at = u32::try_from(offset).map_err(|_| {
                too_large(
                    "parameters of one recording",
                    offset + size_of::<Params>() as u64,
                    u64::from(u32::MAX),
                    "dynamic offsets are 32-bit",
                )
            })?;
            let indirect = deferred.then(|| {
                let at = recording.indirect_bytes;
                recording.indirect_copies.push(StagingCopy {
                    source_offset: 4 * u64::from(deferral),
                    staging_offset: at,
                    bytes: 12,
                });
                recording.indirect_bytes += INDIRECT_BYTES;
                at
            });
            recording.dispatches.push(Dispatch {
                kind,
                offsets: [params_at, pairs_offset, hits_offset],
                groups,
                indirect,
            });
        }
    }
    Ok(recording)
}
