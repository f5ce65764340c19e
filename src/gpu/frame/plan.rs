//! A frame's plan: the bind groups and parameters of every stage, kept from
//! frame to frame while the buffers and sizes they were made for hold, and
//! the recording of the stages (one compute pass, or one a stage when they
//! are timed).

use super::grid::{
    GRID_GROUP_SIZE, GridParams, MAX_LARGE_BODIES, TEAM, TEAM_GROUPS_MOST, partition_bytes,
};
use super::narrow::{self, NarrowParams, PairsParams};
use super::readback::MANIFOLD_BYTES;
use super::scan::{ScanCount, ScanStep};
use super::stages::{Recorder, Stage};
use super::state::{
    STATE_ARGS, STATE_COMPACT_ARGS, STATE_HEADER_WORDS, STATE_HIT_ARGS, STATE_LARGE_ARGS,
    STATE_PAIRS, STATE_SCAN_ARGS,
};
use super::{GpuFrame, range, whole};

/// The narrowphase's workgroup size in a frame.
pub(super) const NARROW_WORKGROUP: u32 = 64;

impl GpuFrame {
    /// Records a frame into `encoder`: the broadphase, and with `narrow`
    /// the narrowphase and the compaction.
    pub(super) fn record(&mut self, encoder: &mut wgpu::CommandEncoder, narrow: bool) {
        // The bind groups and parameters are the last frame's unless a
        // buffer, a capacity or the bodies' number changed since.
        let key = self.plan_key();
        if self.plan.as_ref().is_none_or(|plan| plan.key != key) {
            self.plan = Some(self.build_plan(key));
        }
        let Some(plan) = self.plan.as_ref() else {
            return;
        };
        encoder.clear_buffer(&self.state.buffer, 0, Some(STATE_HEADER_WORDS * 4));
        // The buckets and the bodies' tallies.
        encoder.clear_buffer(&self.buckets.buffer, 0, Some(self.tally_end() * 4));
        let body_groups = self.body_count.div_ceil(GRID_GROUP_SIZE);
        // count_pairs and write_pairs: a team of invocations a body, at
        // most TEAM_GROUPS_MOST workgroups (they loop over the rest).
        let team_groups = self
            .body_count
            .div_ceil(GRID_GROUP_SIZE / TEAM)
            .min(TEAM_GROUPS_MOST)
            .min(self.context.limits().max_compute_workgroups_per_dimension);
        let mut recorder = Recorder::new(encoder, self.stage_clock.as_ref());
        if body_groups > 0 {
            let grid = |recorder: &mut Recorder<'_>, entry_point| {
                recorder.bind(
                    self.grid_kernel.pipeline(entry_point),
                    &plan.grid_group,
                    &[],
                );
                let groups = match entry_point {
                    "count_pairs_team" | "write_pairs_team" => team_groups,
                    _ => body_groups,
                };
                recorder.dispatch(groups);
            };
            recorder.stage(Stage::Bounds);
            grid(&mut recorder, "bounds");
            recorder.stage(Stage::Buckets);
            self.scan.record(&mut recorder, &plan.bucket_scan);
            recorder.stage(Stage::Scatter);
            grid(&mut recorder, "scatter");
            let teams = self.body_count < self.team_walk_below();
            let (count_pairs, write_pairs) = if teams {
                ("count_pairs_team", "write_pairs_team")
            } else {
                ("count_pairs", "write_pairs")
            };
            recorder.stage(Stage::CountPairs);
            grid(&mut recorder, count_pairs);
            recorder.stage(Stage::PairOffsets);
            self.scan.record(&mut recorder, &plan.tally_scan);
            // write_large's arguments, a workgroup per large body (written
            // by bounds), out of the state its pass binds read-write.
            self.copy_args(&mut recorder, STATE_LARGE_ARGS, 3);
            recorder.stage(Stage::WritePairs);
            grid(&mut recorder, write_pairs);
            recorder.bind(
                self.grid_kernel.pipeline("write_large"),
                &plan.grid_group,
                &[],
            );
            recorder.dispatch_indirect(&self.dispatch_args.buffer, 0);
            if narrow {
                // The places scan's and compact's, from the pair count
                // (written by write_pairs).
                self.copy_args(
                    &mut recorder,
                    STATE_SCAN_ARGS,
                    STATE_COMPACT_ARGS + 3 - STATE_SCAN_ARGS,
                );
                self.record_narrow(&mut recorder, &plan.narrow);
            }
        }
        let (ran, dispatches) = recorder.finish();
        self.last_stages = ran;
        self.stats.dispatches = dispatches;
    }

    /// Copies `words` indirect arguments from `word` of the state into the
    /// dispatch arguments' buffer (at [`args_offset`]).
    fn copy_args(&self, recorder: &mut Recorder<'_>, word: u32, words: u32) {
        recorder.copy(
            &self.state.buffer,
            u64::from(word) * 4,
            &self.dispatch_args.buffer,
            args_offset(word),
            u64::from(words) * 4,
        );
    }

    /// Bodies below which teams walk the bodies' cells
    /// ([`FrameOptions::team_walk_below`](super::FrameOptions::team_walk_below)).
    fn team_walk_below(&self) -> u32 {
        self.options
            .team_walk_below
            .unwrap_or(if self.context.is_software() {
                0
            } else {
                super::TEAM_WALK_BELOW
            })
    }

    /// What a frame's bind groups and parameters depend on.
    fn plan_key(&self) -> PlanKey {
        let mut buffers: Vec<wgpu::Buffer> = [
            &self.shape_records,
            &self.bodies,
            &self.boxes,
            &self.buckets,
            &self.entries,
            &self.pairs,
            &self.state,
            &self.partition,
            &self.outcomes,
            &self.places,
            &self.hits,
            &self.manifolds,
        ]
        .iter()
        .map(|buffer| buffer.buffer.clone())
        .collect();
        buffers.extend(self.scan.buffers());
        buffers.push(self.params.buffer().clone());
        PlanKey {
            buffers,
            views: vec![
                self.edges.view.clone(),
                self.transforms.view.clone(),
                self.body_shapes.view.clone(),
            ],
            numbers: [
                self.body_count,
                self.shape_count,
                self.bucket_count,
                self.entry_capacity,
                self.pair_capacity,
                self.cell_size.to_bits(),
                self.options.margin.to_bits(),
                u32::from(self.options.skip_static_pairs),
            ],
        }
    }

    /// The bind groups and parameters of every stage, for `key`; the
    /// parameters written to the device.
    fn build_plan(&mut self, key: PlanKey) -> Plan {
        let context = self.context.clone();
        let grid_params = GridParams {
            body_count: self.body_count,
            shape_count: self.shape_count,
            bucket_mask: self.bucket_count - 1,
            entry_capacity: self.entry_capacity,
            pair_capacity: self.pair_capacity,
            large_capacity: MAX_LARGE_BODIES,
            skip_static: u32::from(self.options.skip_static_pairs),
            merge_threshold: crate::d2::sat::GPU_MERGE_THRESHOLD,
            cell_inverse: 1.0 / self.cell_size,
            margin: self.options.margin,
            narrow_workgroup: NARROW_WORKGROUP,
            max_groups: context.limits().max_compute_workgroups_per_dimension,
        };
        self.params.clear();
        let grid_offset = self.params.push(&grid_params);
        debug_assert_eq!(grid_offset, 0);
        let grid_group = self.grid_bind_group();
        let bucket_scan = self.scan.steps(
            &context,
            &mut self.params,
            (&self.buckets.buffer, 0),
            ScanCount::Known(self.bucket_count),
            &self.state.buffer,
        );
        // The tallies follow the buckets (an offset the binding alignment
        // allows: the bucket count is a power of two of at least 1,024).
        let tally_scan = self.scan.steps(
            &context,
            &mut self.params,
            (&self.buckets.buffer, u64::from(self.bucket_count) * 4),
            ScanCount::Known(self.body_count.max(1)),
            &self.state.buffer,
        );
        let narrow = self.narrow_stage();
        self.params.upload(&context);
        Plan {
            key,
            grid_group,
            bucket_scan,
            tally_scan,
            narrow,
        }
    }

    /// The bind groups and parameters of the narrowphase stage.
    fn narrow_stage(&mut self) -> NarrowStage {
        let context = self.context.clone();
        let capacity = self.pair_capacity;
        let pairs = &self.pairs.buffer;
        let pair_bytes = u64::from(capacity) * 8;
        let pairs_offset = self.params.push(&PairsParams {
            count_index: STATE_PAIRS,
            capacity,
            ..PairsParams::default()
        });
        let pairs_group = self.pairs_kernel.bind(
            &context,
            "pairs",
            &[
                (0, self.params.binding()),
                (1, range(pairs, 0, pair_bytes)),
                (4, whole(&self.state)),
                (5, range(&self.outcomes.buffer, 0, u64::from(capacity) * 16)),
                (6, range(&self.places.buffer, 0, u64::from(capacity) * 4)),
                (7, range(&self.hits.buffer, 0, u64::from(capacity) * 16)),
            ],
        );
        let kind_offsets: Vec<u32> = (0..narrow::ENTRY_POINTS.len() as u32)
            .map(|kind| {
                self.params.push(&NarrowParams {
                    kind,
                    merge_threshold: crate::d2::sat::GPU_MERGE_THRESHOLD,
                    margin: self.options.margin,
                    capacity,
                })
            })
            .collect();
        let narrow_group = self.narrow_kernel.bind(
            &context,
            "narrowphase",
            &[
                (0, self.params.binding()),
                (1, wgpu::BindingResource::TextureView(&self.edges.view)),
                (2, wgpu::BindingResource::TextureView(&self.transforms.view)),
                (
                    3,
                    wgpu::BindingResource::TextureView(&self.body_shapes.view),
                ),
                (4, range(pairs, 0, pair_bytes)),
                (
                    5,
                    range(&self.partition.buffer, 0, partition_bytes(capacity)),
                ),
                (6, range(&self.outcomes.buffer, 0, u64::from(capacity) * 16)),
                (7, range(&self.places.buffer, 0, u64::from(capacity) * 4)),
                (8, whole(&self.state)),
                (9, range(&self.hits.buffer, 0, u64::from(capacity) * 16)),
                (
                    10,
                    range(
                        &self.manifolds.buffer,
                        0,
                        u64::from(capacity) * MANIFOLD_BYTES,
                    ),
                ),
            ],
        );
        // Over the pairs found (the device's count), or the capacity.
        let count = if self.options.over_pairs_found {
            ScanCount::Device {
                index: STATE_PAIRS,
                capacity,
                args: (&self.dispatch_args.buffer, args_offset(STATE_SCAN_ARGS)),
            }
        } else {
            ScanCount::Known(capacity)
        };
        let places_scan = self.scan.steps(
            &context,
            &mut self.params,
            (&self.places.buffer, 0),
            count,
            &self.state.buffer,
        );
        NarrowStage {
            pairs_group,
            pairs_offset,
            narrow_group,
            kind_offsets,
            places_scan,
        }
    }

    fn record_narrow(&self, recorder: &mut Recorder<'_>, stage: &NarrowStage) {
        recorder.stage(Stage::Narrowphase);
        // The kinds the library's shapes can make (no pair has another).
        for &kind in &self.kinds {
            let entry_point = narrow::ENTRY_POINTS[kind];
            recorder.bind(
                self.narrow_kernel.pipeline(entry_point),
                &stage.narrow_group,
                &[stage.kind_offsets[kind]],
            );
            recorder.dispatch_indirect(
                &self.state.buffer,
                u64::from(STATE_ARGS + 3 * kind as u32) * 4,
            );
        }
        recorder.stage(Stage::Compaction);
        // The narrowphase wrote each pair's reported flag into its place.
        self.scan.record(recorder, &stage.places_scan);
        recorder.bind(
            self.pairs_kernel.pipeline("compact"),
            &stage.pairs_group,
            &[stage.pairs_offset],
        );
        if self.options.over_pairs_found {
            recorder.dispatch_indirect(&self.dispatch_args.buffer, args_offset(STATE_COMPACT_ARGS));
        } else {
            recorder.dispatch(self.pair_capacity.div_ceil(256));
        }
        recorder.stage(Stage::Manifolds);
        recorder.bind(
            self.narrow_kernel.pipeline("manifold"),
            &stage.narrow_group,
            &[stage.kind_offsets[0]],
        );
        recorder.dispatch_indirect(&self.state.buffer, u64::from(STATE_HIT_ARGS) * 4);
    }
}

/// The byte offset in the frame's dispatch arguments' buffer of the
/// arguments at `word` of the state (copied from [`STATE_LARGE_ARGS`] on).
fn args_offset(word: u32) -> u64 {
    u64::from(word - STATE_LARGE_ARGS) * 4
}

/// What a frame's bind groups and parameters were made for: the buffers
/// and views they bind, and the sizes the parameters hold.
#[derive(PartialEq)]
pub(super) struct PlanKey {
    buffers: Vec<wgpu::Buffer>,
    views: Vec<wgpu::TextureView>,
    numbers: [u32; 8],
}

/// A frame's bind groups and the offsets of its parameters, kept from
/// frame to frame while their key holds (making them each frame was most
/// of the frame's fixed host time).
pub(super) struct Plan {
    pub(super) key: PlanKey,
    grid_group: wgpu::BindGroup,
    bucket_scan: Vec<ScanStep>,
    /// The bodies' tallies into their first places.
    tally_scan: Vec<ScanStep>,
    narrow: NarrowStage,
}

/// The narrowphase stage's bindings, recorded after the broadphase.
struct NarrowStage {
    pairs_group: wgpu::BindGroup,
    pairs_offset: u32,
    narrow_group: wgpu::BindGroup,
    kind_offsets: Vec<u32>,
    places_scan: Vec<ScanStep>,
}
