//! The radix sort of (u32, u32) records (`shaders/frame/sort.wgsl`): eight
//! bits a pass, least significant first, stable, between two buffers; one
//! workgroup of 256 invocations per tile of 2,048 records, its digit counts
//! and ranks in workgroup memory.

use bytemuck::{Pod, Zeroable};

use super::super::buffers::GrowBuffer;
use super::super::context::GpuContext;
use super::super::error::GpuError;
use super::kernels::{Kernel, range, storage, uniform};
use super::params::ParamArena;
use super::scan::{Scan, ScanStep};
use super::stages::Recorder;

/// Records one workgroup sorts a pass of.
pub(crate) const SORT_TILE: u32 = 2048;
/// Invocations per workgroup (each does `SORT_TILE / SORT_GROUP` records a
/// pass, a round of `SORT_GROUP` at a time).
pub(crate) const SORT_GROUP: u32 = 256;
/// Bits a pass sorts by.
pub(crate) const DIGIT_BITS: u32 = 8;
pub(crate) const DIGITS: u32 = 1 << DIGIT_BITS;

/// The sort's source.
pub const SORT_WGSL: &str = include_str!("../../../shaders/frame/sort.wgsl");

/// Mirror of `SortParams` in `sort.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SortParams {
    /// The digit's lowest bit.
    pub shift: u32,
    /// 0: sort by the record's first word, 1: by its second.
    pub word: u32,
    /// Tiles the histogram has room for.
    pub tiles: u32,
    /// Where the record count is in the state buffer (in words).
    pub count_index: u32,
    /// Records the buffers hold.
    pub capacity: u32,
    /// Padding.
    pub _pad0: u32,
    /// Padding.
    pub _pad1: u32,
    /// Padding to 32 bytes.
    pub _pad2: u32,
}

/// Which bits of which word a sort orders by, least significant first:
/// `(word, bits)` from the most significant key to the least.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SortKey {
    pub keys: [(u32, u32); 2],
}

pub(crate) struct RadixSort {
    kernel: Kernel,
    histogram: GrowBuffer,
}

/// One pass: the count, the histogram's scan, the scatter.
pub(crate) struct SortPass {
    bind_group: wgpu::BindGroup,
    offset: u32,
    scan: Vec<ScanStep>,
}

/// The bits needed for values below `count`.
pub(crate) fn bits_for(count: u32) -> u32 {
    32 - count.saturating_sub(1).leading_zeros()
}

impl RadixSort {
    pub fn new(context: &GpuContext) -> Result<RadixSort, GpuError> {
        let kernel = Kernel::new(
            context,
            "sort",
            SORT_WGSL,
            &[
                uniform(0, true),
                storage(1, true),
                storage(2, false),
                storage(3, false),
                storage(4, true),
            ],
            &["sort_count", "sort_scatter"],
            &[],
        )?;
        let histogram =
            GrowBuffer::new(context, "sort histogram", wgpu::BufferUsages::STORAGE, 16)?;
        Ok(RadixSort { kernel, histogram })
    }

    /// Tiles of `capacity` records.
    fn tiles(capacity: u32) -> u32 {
        capacity.div_ceil(SORT_TILE).max(1)
    }

    /// Makes room to sort `capacity` records.
    pub fn reserve(
        &mut self,
        context: &GpuContext,
        scan: &mut Scan,
        capacity: u32,
    ) -> Result<(), GpuError> {
        let entries = u64::from(Self::tiles(capacity)) * u64::from(DIGITS);
        let limit = context.limits().max_storage_buffer_binding_size;
        self.histogram.ensure(
            context,
            entries * 4,
            (limit, "max_storage_buffer_binding_size"),
        )?;
        scan.reserve(context, entries)
    }

    /// The passes that sort the first `state[count_index]` (at most
    /// `capacity`) records of `buffers.0` by `key`; the sorted records end
    /// in the buffer the returned flag names (false: `buffers.0`, true:
    /// `buffers.1`).
    #[allow(clippy::too_many_arguments)]
    pub fn passes(
        &self,
        context: &GpuContext,
        params: &mut ParamArena,
        scan: &Scan,
        buffers: (&wgpu::Buffer, &wgpu::Buffer),
        state: &wgpu::Buffer,
        count_index: u32,
        capacity: u32,
        key: SortKey,
    ) -> (Vec<SortPass>, bool) {
        let tiles = Self::tiles(capacity);
        let record_bytes = u64::from(capacity.max(1)) * 8;
        let mut passes = Vec::new();
        let mut flipped = false;
        for &(word, bits) in key.keys.iter().rev() {
            for shift in (0..bits).step_by(DIGIT_BITS as usize) {
                let (from, to) = if flipped {
                    (buffers.1, buffers.0)
                } else {
                    (buffers.0, buffers.1)
                };
                let offset = params.push(&SortParams {
                    shift,
                    word,
                    tiles,
                    count_index,
                    capacity,
                    ..SortParams::default()
                });
                let bind_group = self.kernel.bind(
                    context,
                    "sort",
                    &[
                        (0, params.binding()),
                        (1, range(from, 0, record_bytes)),
                        (2, range(to, 0, record_bytes)),
                        (
                            3,
                            range(&self.histogram.buffer, 0, u64::from(tiles * DIGITS) * 4),
                        ),
                        (4, state.as_entire_binding()),
                    ],
                );
                let scan = scan.steps(context, params, (&self.histogram.buffer, 0), tiles * DIGITS);
                passes.push(SortPass {
                    bind_group,
                    offset,
                    scan,
                });
                flipped = !flipped;
            }
        }
        (passes, flipped)
    }

    /// Records `passes` into `pass`.
    pub fn record(
        &self,
        recorder: &mut Recorder<'_>,
        scan: &Scan,
        passes: &[SortPass],
        capacity: u32,
    ) {
        // One workgroup a tile.
        let groups = Self::tiles(capacity);
        for sort in passes {
            recorder.bind(
                self.kernel.pipeline("sort_count"),
                &sort.bind_group,
                &[sort.offset],
            );
            recorder.dispatch(groups);
            scan.record(recorder, &sort.scan);
            recorder.bind(
                self.kernel.pipeline("sort_scatter"),
                &sort.bind_group,
                &[sort.offset],
            );
            recorder.dispatch(groups);
        }
    }

    /// Device memory held.
    pub fn bytes(&self) -> u64 {
        self.histogram.size
    }

    /// The histogram buffer (what a recording binds).
    pub fn histogram_buffer(&self) -> &wgpu::Buffer {
        &self.histogram.buffer
    }

    /// The histogram, whose last pass's scan says where each digit starts.
    pub fn histogram_binding(&self) -> wgpu::BindingResource<'_> {
        self.histogram.buffer.as_entire_binding()
    }
}
