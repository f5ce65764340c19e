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

/// Mirror of `ScanParams` in `scan.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ScanParams {
    /// Elements to scan.
    pub count: u32,
    /// Padding.
    pub _pad0: u32,
    /// Padding.
    pub _pad1: u32,
    /// Padding to 16 bytes.
    pub _pad2: u32,
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
    groups: u32,
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
            &[uniform(0, true), storage(1, false), storage(2, false)],
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
    /// in place (after [`Scan::reserve`] for at least `count`).
    pub fn steps(
        &self,
        context: &GpuContext,
        params: &mut ParamArena,
        (data, offset): (&wgpu::Buffer, u64),
        count: u32,
    ) -> Vec<ScanStep> {
        let mut down = Vec::new();
        let mut up = Vec::new();
        let mut level_data = (data, offset, count);
        for level in 0..LEVELS {
            let (buffer, offset, count) = level_data;
            let blocks = count.div_ceil(SCAN_BLOCK).max(1);
            let param = params.push(&ScanParams {
                count,
                ..ScanParams::default()
            });
            let bind = |label| {
                self.kernel.bind(
                    context,
                    label,
                    &[
                        (0, params.binding()),
                        (1, range(buffer, offset, u64::from(count.max(1)) * 4)),
                        (2, self.sums[level].buffer.as_entire_binding()),
                    ],
                )
            };
            up.push(ScanStep {
                entry_point: self.blocks_entry,
                bind_group: bind("scan blocks"),
                offset: param,
                groups: blocks,
            });
            if blocks == 1 {
                break;
            }
            down.push(ScanStep {
                entry_point: "scan_add",
                bind_group: bind("scan add"),
                offset: param,
                groups: blocks,
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
            recorder.dispatch(step.groups);
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
