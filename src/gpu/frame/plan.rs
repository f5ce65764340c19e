//! A frame's plan: the bind groups and parameters of every stage, kept from
//! frame to frame while the buffers and sizes they were made for hold, and
//! the recording of the stages (one compute pass, or one a stage when they
//! are timed).

use super::grid::{FIND_GROUP_SIZE, GridParams, MAX_LARGE_BODIES};
use super::narrow::{self, NarrowParams, PairsParams};
use super::readback::MANIFOLD_BYTES;
use super::scan::ScanStep;
use super::sort::{self, SortKey, SortPass, bits_for};
use super::stages::{Recorder, Stage};
use super::state::{STATE_ARGS, STATE_HEADER_WORDS, STATE_HIT_ARGS, STATE_PAIRS};
use super::{GpuFrame, range, whole};

/// The narrowphase's workgroup size in a frame.
pub(super) const NARROW_WORKGROUP: u32 = 64;

impl GpuFrame {
    /// Records a frame into `encoder`: the broadphase, and with `narrow`
    /// the narrowphase and the compaction. Returns which pairs buffer holds
    /// the sorted pairs.
    pub(super) fn record(&mut self, encoder: &mut wgpu::CommandEncoder, narrow: bool) -> usize {
        // The bind groups and parameters are the last frame's unless a
        // buffer, a capacity or the bodies' number changed since.
        let key = self.plan_key();
        if self.plan.as_ref().is_none_or(|plan| plan.key != key) {
            self.plan = Some(self.build_plan(key));
        }
        let Some(plan) = self.plan.as_ref() else {
            return 0;
        };
        encoder.clear_buffer(&self.state.buffer, 0, Some(STATE_HEADER_WORDS * 4));
        encoder.clear_buffer(
            &self.buckets.buffer,
            0,
            Some(u64::from(self.bucket_count) * 4),
        );
        let body_groups = self.body_count.div_ceil(256);
        let mut recorder = Recorder::new(encoder, self.stage_clock.as_ref());
        if body_groups > 0 {
            let grid = |recorder: &mut Recorder<'_>, entry_point| {
                // find_pairs and find_large run FIND_GROUP_SIZE to a
                // workgroup (their workgroup lists of pairs), the others 256.
                let groups = match entry_point {
                    "find_pairs" | "find_large" => self.body_count.div_ceil(FIND_GROUP_SIZE),
                    _ => body_groups,
                };
                recorder.bind(
                    self.grid_kernel.pipeline(entry_point),
                    &plan.grid_group,
                    &[],
                );
                recorder.dispatch(groups);
            };
            recorder.stage(Stage::Bounds);
            grid(&mut recorder, "bounds");
            recorder.stage(Stage::Buckets);
            self.scan.record(&mut recorder, &plan.bucket_scan);
            recorder.stage(Stage::Scatter);
            grid(&mut recorder, "scatter");
            recorder.stage(Stage::FindPairs);
            grid(&mut recorder, "find_pairs");
            grid(&mut recorder, "find_large");
            recorder.stage(Stage::Sort);
            self.sort.record(
                &mut recorder,
                &self.scan,
                &plan.sort_passes,
                self.pair_capacity,
            );
            if narrow {
                self.record_narrow(&mut recorder, &plan.narrow);
            }
        }
        let sorted = plan.sorted;
        let (ran, dispatches) = recorder.finish();
        self.last_stages = ran;
        self.stats.dispatches = dispatches;
        sorted
    }

    /// What a frame's bind groups and parameters depend on.
    fn plan_key(&self) -> PlanKey {
        let mut buffers: Vec<wgpu::Buffer> = [
            &self.shape_records,
            &self.bodies,
            &self.boxes,
            &self.buckets,
            &self.entries,
            &self.pairs[0],
            &self.pairs[1],
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
        buffers.push(self.sort.histogram_buffer().clone());
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
        let grid_params = GridParams {
            body_count: self.body_count,
            shape_count: self.shape_count,
            bucket_mask: self.bucket_count - 1,
            entry_capacity: self.entry_capacity,
            pair_capacity: self.pair_capacity,
            large_capacity: MAX_LARGE_BODIES,
            skip_static: u32::from(self.options.skip_static_pairs),
            cell_inverse: 1.0 / self.cell_size,
            margin: self.options.margin,
            ..GridParams::default()
        };
        let context = self.context.clone();
        self.params.clear();
        let grid_offset = self.params.push(&grid_params);
        debug_assert_eq!(grid_offset, 0);
        let grid_group = self.grid_bind_group(&self.pairs[0].buffer);
        let bucket_scan = self.scan.steps(
            &context,
            &mut self.params,
            (&self.buckets.buffer, 0),
            self.bucket_count,
        );
        let key_bits = bits_for(self.body_count.max(2));
        let (sort_passes, flipped) = self.sort.passes(
            &context,
            &mut self.params,
            &self.scan,
            (&self.pairs[0].buffer, &self.pairs[1].buffer),
            &self.state.buffer,
            STATE_PAIRS,
            self.pair_capacity,
            SortKey {
                keys: [(0, key_bits), (1, key_bits)],
            },
        );
        let sorted = usize::from(flipped);
        let narrow = self.narrow_stage(sorted);
        self.params.upload(&context);
        Plan {
            key,
            grid_group,
            bucket_scan,
            sort_passes,
            sorted,
            narrow,
        }
    }

    /// The bind groups and parameters of the narrowphase stage, the sorted
    /// pairs being in `pairs[sorted]`.
    fn narrow_stage(&mut self, sorted: usize) -> NarrowStage {
        let context = self.context.clone();
        let capacity = self.pair_capacity;
        let pairs = &self.pairs[sorted].buffer;
        let tagged = &self.pairs[1 - sorted].buffer;
        let pair_bytes = u64::from(capacity) * 8;
        let (partition_passes, partition_flipped) = self.sort.passes(
            &context,
            &mut self.params,
            &self.scan,
            (tagged, &self.partition.buffer),
            &self.state.buffer,
            STATE_PAIRS,
            capacity,
            SortKey {
                keys: [(0, 0), (0, sort::DIGIT_BITS)],
            },
        );
        debug_assert!(
            partition_flipped,
            "one pass: the partition ends in its own buffer"
        );
        let pairs_offset = self.params.push(&PairsParams {
            count_index: STATE_PAIRS,
            capacity,
            tiles: capacity.div_ceil(sort::SORT_TILE).max(1),
            merge_threshold: crate::d2::sat::GPU_MERGE_THRESHOLD,
            workgroup_size: NARROW_WORKGROUP,
            max_groups: context.limits().max_compute_workgroups_per_dimension,
            ..PairsParams::default()
        });
        let pairs_group = self.pairs_kernel.bind(
            &context,
            "pairs",
            &[
                (0, self.params.binding()),
                (1, range(pairs, 0, pair_bytes)),
                (2, range(tagged, 0, pair_bytes)),
                (3, self.sort.histogram_binding()),
                (4, whole(&self.state)),
                (5, range(&self.outcomes.buffer, 0, u64::from(capacity) * 16)),
                (6, range(&self.places.buffer, 0, u64::from(capacity) * 4)),
                (7, range(&self.hits.buffer, 0, u64::from(capacity) * 16)),
                (
                    9,
                    wgpu::BindingResource::TextureView(&self.body_shapes.view),
                ),
            ],
        );
        let kind_offsets: Vec<u32> = (0..narrow::ENTRY_POINTS.len() as u32)
            .map(|kind| {
                self.params.push(&NarrowParams {
                    kind,
                    merge_threshold: crate::d2::sat::GPU_MERGE_THRESHOLD,
                    margin: self.options.margin,
                    _pad: 0,
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
                (5, range(&self.partition.buffer, 0, pair_bytes)),
                (6, range(&self.outcomes.buffer, 0, u64::from(capacity) * 16)),
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
        let places_scan = self.scan.steps(
            &context,
            &mut self.params,
            (&self.places.buffer, 0),
            capacity,
        );
        NarrowStage {
            partition_passes,
            pairs_group,
            pairs_offset,
            narrow_group,
            kind_offsets,
            places_scan,
        }
    }

    fn record_narrow(&self, recorder: &mut Recorder<'_>, stage: &NarrowStage) {
        let pair_groups = self.pair_capacity.div_ceil(256);
        let pairs = |recorder: &mut Recorder<'_>, entry_point, groups| {
            recorder.bind(
                self.pairs_kernel.pipeline(entry_point),
                &stage.pairs_group,
                &[stage.pairs_offset],
            );
            recorder.dispatch(groups);
        };
        recorder.stage(Stage::Partition);
        pairs(recorder, "classify", pair_groups);
        self.sort.record(
            recorder,
            &self.scan,
            &stage.partition_passes,
            self.pair_capacity,
        );
        pairs(recorder, "plan", 1);
        recorder.stage(Stage::Narrowphase);
        for (kind, entry_point) in narrow::ENTRY_POINTS.iter().enumerate() {
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
        pairs(recorder, "flags", pair_groups);
        self.scan.record(recorder, &stage.places_scan);
        pairs(recorder, "compact", pair_groups);
        recorder.stage(Stage::Manifolds);
        recorder.bind(
            self.narrow_kernel.pipeline("manifold"),
            &stage.narrow_group,
            &[stage.kind_offsets[0]],
        );
        recorder.dispatch_indirect(&self.state.buffer, u64::from(STATE_HIT_ARGS) * 4);
    }
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
    sort_passes: Vec<SortPass>,
    /// Which pairs buffer holds the sorted pairs.
    sorted: usize,
    narrow: NarrowStage,
}

/// The narrowphase stage's bindings, recorded after the broadphase.
struct NarrowStage {
    partition_passes: Vec<SortPass>,
    pairs_group: wgpu::BindGroup,
    pairs_offset: u32,
    narrow_group: wgpu::BindGroup,
    kind_offsets: Vec<u32>,
    places_scan: Vec<ScanStep>,
}
