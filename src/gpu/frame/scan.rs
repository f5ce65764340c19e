//! Exclusive prefix sums on the GPU (`shaders/frame/scan.wgsl`): a block of
//! 8,192 elements per workgroup, the blocks' totals scanned the same way one
//! level up, then added back.

use bytemuck::{Pod, Zeroable};

use super::super::buffers::GrowBuffer;
use super::super::context::GpuContext;
use super::super::error::GpuError;
use super::kernels::{Kernel, range, storage, uniform};
use super::params::ParamArena;
use super::stages::Recorder;

/// Elements one workgroup scans (32 an invocation).
pub(crate) const SCAN_BLOCK: u32 = 8192;
/// Levels of block sums: enough for `SCAN_BLOCK^3` elements.
const LEVELS: usize = 3;

/// Levels of block sums: enough for `SCAN_BLOCK^3` elements.
pub(crate) const SCAN_LEVELS: u32 = LEVELS as u32;

/// [`ScanParams::count_index`] of a scan whose count is the uniform's.
pub(crate) const NO_COUNT_INDEX: u32 = u32::MAX;

/// Mirror of `ScanParams` in `scan.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ScanParams {
    /// Elements to scan: the count, or where the count is read from the
    /// frame's state, the most this level can have (the capacity's).
    pub count: u32,
    /// The state word holding the count of the scan's first level, or
    /// `NO_COUNT_INDEX` (u32::MAX).
    pub count_index: u32,
    /// The level: its count is the first level's divided by `SCAN_BLOCK`
    /// (rounded up) this many times.
    pub level: u32,
    /// The first level's capacity (the state's count is clamped to it).
    pub first_capacity: u32,
}

/// The scan's pipelines and its block-sum buffers.
pub(crate) struct Scan {
    kernel: Kernel,
    /// `scan_blocks`, or `scan_blocks_subgroups` where the device has
    /// subgroup operations and the frame uses them.
    blocks_entry: &'static str,
    sums: Vec<GrowBuffer>,
}

/// The scan's source.
pub const SCAN_WGSL: &str = concat!(
    include_str!("../../../shaders/workgroup_scan.wgsl"),
    "\n",
    include_str!("../../../shaders/frame/scan.wgsl")
);
/// The scan's source with subgroup operations (`scan_blocks_subgroups`),
/// for devices that have them (naga takes the subgroup built-ins without
/// the `enable subgroups;` directive, which it does not parse yet).
pub const SCAN_SUBGROUPS_WGSL: &str = concat!(
    include_str!("../../../shaders/workgroup_scan.wgsl"),
    "\n",
    include_str!("../../../shaders/frame/scan.wgsl"),
    "\n",
    include_str!("../../../shaders/frame/scan_subgroups.wgsl")
);

/// One dispatch of a scan: its pipeline, bind group, parameter offset and
/// workgroups, in the order they run.
pub(crate) struct ScanStep {
    entry_point: &'static str,
    bind_group: wgpu::BindGroup,
    offset: u32,
    groups: ScanGroups,
}

/// How many workgroups a scan's dispatch runs.
enum ScanGroups {
    /// This many: the count is known when the frame is recorded.
    Direct(u32),
    /// As many as the arguments at this byte offset of this buffer say
    /// (the count is the device's).
    Indirect(wgpu::Buffer, u64),
}

/// Where a scan's count comes from.
pub(crate) enum ScanCount<'a> {
    /// Known when the frame is recorded.
    Known(u32),
    /// Written by the device into the frame's state word `index`, at most
    /// `capacity`; each level's dispatch arguments at `args` (three words
    /// a level, from the byte offset), written with it.
    Device {
        index: u32,
        capacity: u32,
        args: (&'a wgpu::Buffer, u64),
    },
}

impl Scan {
    /// The scan's pipelines: with `subgroups` (the device must have them)
    /// the block scans use subgroup operations.
    pub fn new(context: &GpuContext, subgroups: bool) -> Result<Scan, GpuError> {
        let (source, blocks_entry) = if subgroups {
            (SCAN_SUBGROUPS_WGSL, "scan_blocks_subgroups")
        } else {
            (SCAN_WGSL, "scan_blocks")
        };
        let kernel = Kernel::new(
            context,
            "scan",
            source,
            &[
                uniform(0, true),
                storage(1, false),
                storage(2, false),
                storage(3, true),
            ],
            &[blocks_entry, "scan_add"],
            &[],
        )?;
        let sums = (0..LEVELS)
            .map(|_| GrowBuffer::new(context, "scan block sums", wgpu::BufferUsages::STORAGE, 16))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Scan {
            kernel,
            blocks_entry,
            sums,
        })
    }

    /// Whether the block scans use subgroup operations.
    pub fn uses_subgroups(&self) -> bool {
        self.blocks_entry == "scan_blocks_subgroups"
    }

    /// Makes room to scan `count` elements; an error past what one
    /// dispatch's workgroups can cover.
    pub fn reserve(&mut self, context: &GpuContext, count: u64) -> Result<(), GpuError> {
        let max_groups = u64::from(context.limits().max_compute_workgroups_per_dimension);
        let mut level_count = count;
        for level in 0..LEVELS {
            let blocks = level_count.div_ceil(u64::from(SCAN_BLOCK)).max(1);
            if blocks > max_groups {
                return Err(GpuError::OverLimit {
                    what: format!("a prefix sum over {count} elements"),
                    needed: blocks,
                    allowed: max_groups,
                    limit: "max_compute_workgroups_per_dimension",
                });
            }
            let limit = context.limits().max_storage_buffer_binding_size;
            self.sums[level].ensure(
                context,
                blocks * 4,
                (limit, "max_storage_buffer_binding_size"),
            )?;
            if blocks == 1 {
                return Ok(());
            }
            level_count = blocks;
        }
        Err(GpuError::OverLimit {
            what: format!("a prefix sum over {count} elements"),
            needed: count,
            allowed: u64::from(SCAN_BLOCK).pow(LEVELS as u32),
            limit: "the scan's three levels",
        })
    }

    /// The dispatches that scan `count` u32s of `data` from byte `offset`
    /// in place (after [`Scan::reserve`] for at least the count, or the
    /// capacity); `state` is the frame's state buffer.
    pub fn steps(
        &self,
        context: &GpuContext,
        params: &mut ParamArena,
        (data, offset): (&wgpu::Buffer, u64),
        count: ScanCount<'_>,
        state: &wgpu::Buffer,
    ) -> Vec<ScanStep> {
        let (first_count, count_index, args) = match count {
            ScanCount::Known(count) => (count, NO_COUNT_INDEX, None),
            ScanCount::Device {
                index,
                capacity,
                args,
            } => (capacity, index, Some(args)),
        };
        let mut down = Vec::new();
        let mut up = Vec::new();
        let mut level_data = (data, offset, first_count);
        for level in 0..LEVELS {
            let (buffer, offset, count) = level_data;
            let blocks = count.div_ceil(SCAN_BLOCK).max(1);
            let param = params.push(&ScanParams {
                count,
                count_index,
                level: level as u32,
                first_capacity: first_count,
            });
            let groups = || match args {
                None => ScanGroups::Direct(blocks),
                Some((args, args_offset)) => {
                    ScanGroups::Indirect(args.clone(), args_offset + 12 * level as u64)
                }
            };
            let bind = |label| {
                self.kernel.bind(
                    context,
                    label,
                    &[
                        (0, params.binding()),
                        (1, range(buffer, offset, u64::from(count.max(1)) * 4)),
                        (2, self.sums[level].buffer.as_entire_binding()),
                        (3, state.as_entire_binding()),
                    ],
                )
            };
            up.push(ScanStep {
                entry_point: self.blocks_entry,
                bind_group: bind("scan blocks"),
                offset: param,
                groups: groups(),
            });
            if blocks == 1 {
                break;
            }
            down.push(ScanStep {
                entry_point: "scan_add",
                bind_group: bind("scan add"),
                offset: param,
                groups: groups(),
            });
            level_data = (&self.sums[level].buffer, 0, blocks);
        }
        up.extend(down.into_iter().rev());
        up
    }

    /// Records `steps` into `pass`.
    pub fn record(&self, recorder: &mut Recorder<'_>, steps: &[ScanStep]) {
        for step in steps {
            recorder.bind(
                self.kernel.pipeline(step.entry_point),
                &step.bind_group,
                &[step.offset],
            );
            match &step.groups {
                ScanGroups::Direct(groups) => recorder.dispatch(*groups),
                ScanGroups::Indirect(args, offset) => recorder.dispatch_indirect(args, *offset),
            }
        }
    }

    /// The block-sum buffers (what a recording binds).
    pub fn buffers(&self) -> impl Iterator<Item = wgpu::Buffer> + '_ {
        self.sums.iter().map(|sums| sums.buffer.clone())
    }

    /// Device memory held.
    pub fn bytes(&self) -> u64 {
        self.sums.iter().map(|sums| sums.size).sum()
    }
}
