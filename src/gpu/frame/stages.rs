//! Recording a frame's stages, and counting them: every dispatch goes
//! through a [`Recorder`], which counts it. A frame is one compute pass; a
//! frame that times its stages ([`GpuFrame::set_stage_times`]) is one pass
//! per stage instead, with a timestamp at each end of each, resolved into a
//! buffer that comes back with the frame's counters.

use std::time::Duration;

use super::GpuFrame;

/// The stages of a frame, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Each body's box, texels and grid cells counted.
    Bounds,
    /// The buckets' counts scanned into their starts.
    Buckets,
    /// The bodies into their buckets.
    Scatter,
    /// Each body's pairs with the bodies after it counted: small bodies
    /// against their cells' buckets, every body against the large ones.
    CountPairs,
    /// The counts scanned into each body's first place.
    PairOffsets,
    /// Each body's pairs written in order from its place, and partitioned
    /// by kind for the narrowphase.
    WritePairs,
    /// The SAT, one indirect dispatch a kind.
    Narrowphase,
    /// The reported pairs' places scanned, the hits compacted in pair order.
    Compaction,
    /// Each hit's contact manifold.
    Manifolds,
}

impl Stage {
    /// Every stage, in order.
    pub const ALL: [Stage; 9] = [
        Stage::Bounds,
        Stage::Buckets,
        Stage::Scatter,
        Stage::CountPairs,
        Stage::PairOffsets,
        Stage::WritePairs,
        Stage::Narrowphase,
        Stage::Compaction,
        Stage::Manifolds,
    ];

    /// The stage's name in tables and files.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Bounds => "bounds",
            Stage::Buckets => "buckets",
            Stage::Scatter => "scatter",
            Stage::CountPairs => "count pairs",
            Stage::PairOffsets => "pair offsets",
            Stage::WritePairs => "write pairs",
            Stage::Narrowphase => "narrowphase",
            Stage::Compaction => "compaction",
            Stage::Manifolds => "manifolds",
        }
    }

    fn index(self) -> u32 {
        Stage::ALL
            .iter()
            .position(|&stage| stage == self)
            .unwrap_or(0) as u32
    }
}

/// Timestamps a frame's stages: the query set, where it is resolved to,
/// and the device's tick length.
pub(super) struct StageClock {
    pub(super) queries: wgpu::QuerySet,
    pub(super) resolved: wgpu::Buffer,
    period_ns: f32,
}

/// Bytes of the resolved timestamps: two a stage.
pub(super) const STAGE_TIMESTAMP_BYTES: u64 = 16 * Stage::ALL.len() as u64;

impl StageClock {
    pub(super) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> StageClock {
        let count = 2 * Stage::ALL.len() as u32;
        StageClock {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("frame stages"),
                ty: wgpu::QueryType::Timestamp,
                count,
            }),
            resolved: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("frame stage times"),
                size: STAGE_TIMESTAMP_BYTES,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            period_ns: queue.get_timestamp_period(),
        }
    }

    /// The times of the stages `ran`, from the resolved timestamps' bytes.
    pub(super) fn times(&self, bytes: &[u8], ran: &[Stage]) -> Vec<(Stage, Duration)> {
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(bytes);
        ran.iter()
            .filter_map(|&stage| {
                let at = 2 * stage.index() as usize;
                let (start, end) = (*ticks.get(at)?, *ticks.get(at + 1)?);
                let ns = end.saturating_sub(start) as f64 * f64::from(self.period_ns);
                Some((stage, Duration::from_nanos(ns as u64)))
            })
            .collect()
    }
}

/// Records a frame's dispatches, stage by stage, counting them.
pub(crate) struct Recorder<'e> {
    encoder: &'e mut wgpu::CommandEncoder,
    pass: Option<wgpu::ComputePass<'static>>,
    clock: Option<&'e StageClock>,
    /// The stages begun, in order.
    pub(super) ran: Vec<Stage>,
    /// The dispatches recorded.
    pub(super) dispatches: u32,
}

impl<'e> Recorder<'e> {
    /// A recorder into `encoder`, timing each stage when `clock` is given.
    pub(super) fn new(
        encoder: &'e mut wgpu::CommandEncoder,
        clock: Option<&'e StageClock>,
    ) -> Recorder<'e> {
        Recorder {
            encoder,
            pass: None,
            clock,
            ran: Vec::new(),
            dispatches: 0,
        }
    }

    /// Begins `stage`: a pass of its own when timing, else the frame's one.
    pub(super) fn stage(&mut self, stage: Stage) {
        self.ran.push(stage);
        if self.clock.is_none() && self.pass.is_some() {
            return;
        }
        self.pass = None;
        let timestamp_writes = self.clock.map(|clock| wgpu::ComputePassTimestampWrites {
            query_set: &clock.queries,
            beginning_of_pass_write_index: Some(2 * stage.index()),
            end_of_pass_write_index: Some(2 * stage.index() + 1),
        });
        let label = if self.clock.is_some() {
            stage.name()
        } else {
            "frame"
        };
        self.pass = Some(
            self.encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(label),
                    timestamp_writes,
                })
                .forget_lifetime(),
        );
    }

    /// The pass being recorded: the current stage's (every recording
    /// begins a stage before it dispatches; otherwise an untimed pass).
    fn pass(&mut self) -> &mut wgpu::ComputePass<'static> {
        let encoder = &mut *self.encoder;
        self.pass.get_or_insert_with(|| {
            encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("frame"),
                    timestamp_writes: None,
                })
                .forget_lifetime()
        })
    }

    /// Sets the pipeline and the bind group of the next dispatches.
    pub(super) fn bind(
        &mut self,
        pipeline: &wgpu::ComputePipeline,
        group: &wgpu::BindGroup,
        offsets: &[u32],
    ) {
        let pass = self.pass();
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, group, offsets);
    }

    /// A dispatch of `groups` workgroups along x.
    pub(super) fn dispatch(&mut self, groups: u32) {
        self.pass().dispatch_workgroups(groups, 1, 1);
        self.dispatches += 1;
    }

    /// A dispatch whose workgroup counts are at `offset` in `arguments`.
    pub(super) fn dispatch_indirect(&mut self, arguments: &wgpu::Buffer, offset: u64) {
        self.pass().dispatch_workgroups_indirect(arguments, offset);
        self.dispatches += 1;
    }

    /// Copies `size` bytes of `source` from `offset` to `target` at
    /// `target_offset`, between two passes (a buffer a pass binds
    /// read-write cannot give that pass's indirect arguments).
    pub(super) fn copy(
        &mut self,
        source: &wgpu::Buffer,
        offset: u64,
        target: &wgpu::Buffer,
        target_offset: u64,
        size: u64,
    ) {
        self.pass = None;
        self.encoder
            .copy_buffer_to_buffer(source, offset, target, target_offset, size);
    }

    /// Ends the last pass and, when timing, resolves the timestamps.
    pub(super) fn finish(mut self) -> (Vec<Stage>, u32) {
        self.pass = None;
        if let Some(clock) = self.clock {
            self.encoder.resolve_query_set(
                &clock.queries,
                0..2 * Stage::ALL.len() as u32,
                &clock.resolved,
                0,
            );
        }
        (self.ran, self.dispatches)
    }
}

impl GpuFrame {
    /// Times each stage of the frames to come (one compute pass a stage,
    /// timestamps at both ends) when `on` and the device has timestamp
    /// queries; the times are in [`FrameStats::stage_times`]. Off by
    /// default: one pass a frame.
    ///
    /// [`FrameStats::stage_times`]: super::FrameStats::stage_times
    pub fn set_stage_times(&mut self, on: bool) {
        self.stage_clock = match (on, self.context.has_timestamps()) {
            (true, true) => Some(StageClock::new(self.context.device(), self.context.queue())),
            _ => None,
        };
    }
}
