//! The frame's state buffer: the counters the stages keep (pairs, grid
//! entries, large bodies, hits, overflow flags), each kind's range and
//! indirect dispatch arguments, and the large bodies' list; and what the
//! host does with the counters after a frame (an error, or grown buffers
//! and the frame run again).

use super::grid::{MAX_LARGE_BODIES, MAX_SCAN, MAX_SPAN};
use super::{GpuError, GpuFrame};

// The state buffer's words (grid.wgsl: STATE_*).
pub(crate) const STATE_PAIRS: u32 = 0;
pub(crate) const STATE_ENTRIES: u32 = 1;
pub(crate) const STATE_LARGE: u32 = 2;
pub(crate) const STATE_CROWDED: u32 = 3;
/// The state buffer's word holding the frame's hit count (see
/// [`GpuFrame::state_buffer`]).
pub const STATE_HITS: u32 = 4;
/// Set when a pair was found past the pairs' capacity: with the count, it
/// tells a grown frame from a count that wrapped around 2^32.
pub(crate) const STATE_PAIR_OVERFLOW: u32 = 5;
/// Per kind of pair: its pairs in the partition (grid.wgsl:
/// partition_pairs).
#[allow(dead_code)] // used by the shaders (grid.wgsl, narrow.wgsl)
pub(crate) const STATE_KINDS: u32 = 8;
/// Per kind of pair: its entry point's indirect dispatch arguments.
pub(crate) const STATE_ARGS: u32 = 32;
/// The indirect dispatch arguments of one invocation per hit, in workgroups
/// of 256 (pairs.wgsl: compact), for a GPU consumer of the hits.
pub const STATE_HIT_ARGS: u32 = 52;
/// The indirect dispatch arguments of `write_large`: a workgroup per large
/// body (grid.wgsl: bounds).
pub(crate) const STATE_LARGE_ARGS: u32 = 56;
/// The indirect dispatch arguments of the places scan (a workgroup per
/// block of the pairs' flags, then of each level's block sums), three
/// levels; written by `write_pairs` from the frame's pair count.
pub(crate) const STATE_SCAN_ARGS: u32 = 59;
/// The indirect dispatch arguments of `compact` (one invocation per pair,
/// in workgroups of 256), written with the scan's.
pub(crate) const STATE_COMPACT_ARGS: u32 = 68;
/// The words from [`STATE_LARGE_ARGS`] on that the frame copies into its
/// dispatch arguments' buffer (a pass cannot dispatch from a buffer it
/// binds read-write).
pub(crate) const STATE_COPIED_ARGS: u32 = STATE_COMPACT_ARGS + 3 - STATE_LARGE_ARGS;
pub(crate) const STATE_LARGE_LIST: u32 = 72;
/// Words of the state buffer before the large bodies' list.
pub(crate) const STATE_HEADER_WORDS: u64 = STATE_LARGE_LIST as u64;

impl GpuFrame {
    /// Checks the frame's counters: an error for a crowded grid or too many
    /// large bodies; true when a buffer overflowed and has grown (run the
    /// frame again).
    pub(super) fn check_counts(&mut self, words: &[u32]) -> Result<bool, GpuError> {
        if words[STATE_CROWDED as usize] != 0 {
            return Err(GpuError::InvalidOption {
                message: format!(
                    "the broadphase grid is too crowded: a body would take more than {},{:03} \
                     steps to walk its cells' bodies and sort its partners (cell size {}); \
                     spread the bodies out or set a smaller cell size",
                    MAX_SCAN / 1000,
                    MAX_SCAN % 1000,
                    self.cell_size
                ),
            });
        }
        let large = words[STATE_LARGE as usize];
        if large > MAX_LARGE_BODIES {
            return Err(GpuError::InvalidOption {
                message: format!(
                    "{large} bodies span more than {MAX_SPAN} grid cells of side {} on an axis; a \
                     frame handles at most {MAX_LARGE_BODIES} (set a larger cell size)",
                    self.cell_size
                ),
            });
        }
        let mut grew = false;
        let entries = words[STATE_ENTRIES as usize];
        if entries > self.entry_capacity {
            let capacity = entries.saturating_add(entries / 4);
            let limit = (
                self.context.limits().max_storage_buffer_binding_size,
                "max_storage_buffer_binding_size",
            );
            let context = self.context.clone();
            self.entries
                .ensure(&context, u64::from(capacity) * 4, limit)?;
            self.entry_capacity = capacity;
            grew = true;
        }
        let pairs = words[STATE_PAIRS as usize];
        if words[STATE_PAIR_OVERFLOW as usize] != 0 && pairs <= self.pair_capacity {
            return Err(GpuError::InvalidOption {
                message: "the broadphase found more than 2^32 candidate pairs; spread the \
                          bodies out or split the frame"
                    .to_string(),
            });
        }
        if pairs > self.pair_capacity {
            self.reserve_pairs(pairs.saturating_add(pairs / 4))?;
            grew = true;
        }
        Ok(grew)
    }
}
