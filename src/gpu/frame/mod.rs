//! A GPU-resident frame: the bodies live in a GPU buffer, and one submission
//! finds the candidate pairs in order and tests them, with no work per pair
//! on the host.
//!
//! The host's part of a frame is a fixed number of commands whatever the
//! number of bodies or pairs; everything that grows with them runs on the
//! device:
//!
//! ```text
//! bodies (FrameBody: position, cos/sin, shape, inverse mass; the caller may
//! │       write the buffer itself)
//! ▼ grid.wgsl  bounds      per body: its box (the CPU's body_aabb), its
//! │                        narrowphase texels, its grid cells counted
//! ▼ scan.wgsl              bucket counts -> bucket starts
//! ▼ grid.wgsl  scatter     bodies into buckets
//! │            count_pairs per body (or a team of 32 invocations a body in
//! │                        a frame of few bodies), the pairs it owns (with
//! │                        bodies after it: small ones in its cells, the
//! │                        few large ones)
//! ▼ scan.wgsl              the counts -> each body's first place
//! ▼ grid.wgsl  write_pairs per small body, its partners in increasing order
//! │            write_large per large body, a workgroup's prefix sums
//! │                        (both: each pair into its kind's region, the
//! │                        kinds' indirect dispatch arguments)
//! ▼ narrow.wgsl + sat.wgsl the 2D kernel's entry points, by indirect dispatch;
//! │                        each pair's outcome and reported flag
//! ▼ scan.wgsl, pairs.wgsl compact: the hits in pair order and their count
//! │                        (both over the pairs found, by indirect dispatch)
//! ▼ manifold.wgsl          each hit's contact manifold
//! one copy of the counters, hits and manifolds back; one map
//! ```
//!
//! Why each piece is there:
//!
//! * **A hashed uniform grid**, not a sweep: each body's work is its own
//!   cells, so it spreads over invocations without coordination. Bodies
//!   spanning more than four cells on an axis (walls, the ground) would
//!   flood the grid; they go to a short list instead, tested against every
//!   body by one loop per body.
//! * **Exact pairs.** Boxes are computed operation for operation as the CPU
//!   computes them, and a pair is reported from the one cell holding the
//!   lower corner of the overlap, so the set is exactly the CPU
//!   broadphase's (`tests/it/gpu/frame.rs` compares them on lavapipe; a
//!   compiler that fuses the boxes' multiply-adds could move a box by an
//!   ulp, and a pair touching to the ulp with it).
//! * **Pairs written by their owner, in order**, instead of appended by
//!   atomics (which hand out slots in whatever order invocations arrive)
//!   and sorted: a pair belongs to its lower body, a prefix sum over the
//!   bodies' counts gives each owner its place, and each owner writes its
//!   partners in increasing order — the CPU's `(a, b)` order with no sort.
//!   In a frame of few bodies, whose time is the length of one walk, a team
//!   of 32 invocations walks each body's cells (neighbouring invocations
//!   reading neighbouring entries) and sorts its partners in workgroup
//!   memory ([`FrameOptions::team_walk_below`]).
//! * **Counters that keep counting past capacity**, as in the narrowphase:
//!   an overflow is seen, the buffers grow, and the frame is run again; it
//!   is never truncated.
//! * **No loop longer than 60,000 iterations per invocation**: lavapipe
//!   silently stops longer ones. A cell so crowded that one body would scan
//!   more is reported as an error, not answered partly.

pub(crate) mod grid;
mod kernels;
pub(crate) mod narrow;
mod params;
mod plan;
mod readback;
pub(crate) mod scan;
pub(crate) mod stages;
pub(crate) mod state;

use std::sync::Arc;

use super::buffers::{GrowBuffer, GrowTexture, pad_to_rows};
use super::context::GpuContext;
use super::error::GpuError;
use super::layout::FrameBody;
use crate::d2::body::Body;
use crate::d2::shape::{EdgeRecord, ShapeSet};
use crate::gpu::d2::kinds::{frame_body_class, kind_of};
use grid::reach;
use kernels::{Kernel, range, storage, storage_texture, uniform};
use params::ParamArena;
use plan::{NARROW_WORKGROUP, Plan};
use readback::MANIFOLD_BYTES;
use scan::Scan;
use state::STATE_HEADER_WORDS;

pub use grid::{GRID_WGSL, GridParams, MAX_LARGE_BODIES};
pub use narrow::{FrameHit, FrameManifold, NARROW_WGSL, NarrowParams, PAIRS_WGSL, PairsParams};
pub use readback::{FrameOutput, FrameView};
pub use scan::{SCAN_SUBGROUPS_WGSL, SCAN_WGSL, ScanParams};
pub use stages::Stage;
use stages::StageClock;
pub use state::{STATE_HIT_ARGS, STATE_HITS};

/// How a [`GpuFrame`] finds its pairs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameOptions {
    /// The speculative margin each box is grown by.
    pub margin: f32,
    /// Leave out pairs of two static bodies (a simulation has no use for them).
    pub skip_static_pairs: bool,
    /// The grid's cell side; `None`: the 90th percentile of the bodies'
    /// box sizes (at any rotation), measured when their number changes.
    pub cell_size: Option<f32>,
    /// Below this many bodies, a team of 32 invocations walks each body's
    /// cells and sorts its partners in workgroup memory (a frame of few
    /// bodies is bound by each walk's length); from it on, one invocation
    /// walks each body (a frame of many is bound by the work itself). The
    /// pairs are the same either way. `None`: 65,536 on a hardware GPU (on
    /// an H100 the teams are 5x faster at 2,500 bodies and 2x slower at
    /// 250,000), 0 on a software adapter (a CPU runs a team's barriers
    /// slowly: lavapipe 7x slower at 2,500 bodies).
    pub team_walk_below: Option<u32>,
    /// Use subgroup operations (the prefix sums) where the device has them
    /// (`GpuContext::has_subgroups`); both ways give the same answers. True
    /// by default, false when the environment variable
    /// `GPUSAT_NO_SUBGROUPS` is set (CI runs the frame both ways).
    pub subgroups: bool,
    /// Dispatch the places scan and the compaction over the pairs found,
    /// by indirect arguments the device writes from its pair count (the
    /// default); false: over the pair capacity, a direct dispatch, the
    /// buffers' whole room scanned. The same answers either way. Measured
    /// on an H100 (`docs/bench/nvidia-h100-80gb-hbm3/`, the stage
    /// "compaction"): over the capacity 43.5, 48.6 and 98.0 us at 9,882,
    /// 100,197 and 1,005,084 candidate pairs, over the pairs found 67.3,
    /// 71.4 and 98.2; but the capacity grows with the densest frame and
    /// never shrinks, which the default does not pay for after one. False
    /// by default when the environment variable `GPUSAT_FRAME_OVER_CAPACITY`
    /// is set.
    pub over_pairs_found: bool,
}

/// [`FrameOptions::team_walk_below`] on a hardware GPU.
pub const TEAM_WALK_BELOW: u32 = 65_536;

impl Default for FrameOptions {
    fn default() -> FrameOptions {
        FrameOptions {
            margin: 0.0,
            skip_static_pairs: true,
            cell_size: None,
            team_walk_below: None,
            subgroups: std::env::var_os("GPUSAT_NO_SUBGROUPS").is_none(),
            over_pairs_found: std::env::var_os("GPUSAT_FRAME_OVER_CAPACITY").is_none(),
        }
    }
}

/// The frame's pipelines and device memory.
pub struct GpuFrame {
    context: Arc<GpuContext>,
    options: FrameOptions,
    grid_kernel: Kernel,
    scan: Scan,
    params: ParamArena,
    /// The shape library: records and edges (vertex, normal).
    shape_records: GrowBuffer,
    edges: GrowTexture,
    shape_count: u32,
    /// The narrowphase's kinds a pair of the library's shapes can take (the
    /// others are not dispatched).
    kinds: Vec<usize>,
    bodies: GrowBuffer,
    body_count: u32,
    cell_size: f32,
    /// The body count the automatic cell size was measured for.
    cell_measured_for: Option<usize>,
    boxes: GrowBuffer,
    /// The grid's buckets, then each body's tally of the pairs it owns
    /// (scanned into its first place).
    buckets: GrowBuffer,
    bucket_count: u32,
    entries: GrowBuffer,
    entry_capacity: u32,
    /// The candidate pairs, in `(a, b)` order.
    pairs: GrowBuffer,
    pair_capacity: u32,
    state: GrowBuffer,
    /// The indirect arguments of `write_large`, the places scan and
    /// `compact`, copied from the state ([`state::STATE_COPIED_ARGS`] words
    /// from [`state::STATE_LARGE_ARGS`]).
    dispatch_args: GrowBuffer,
    transforms: GrowTexture,
    body_shapes: GrowTexture,
    staging: Option<GrowBuffer>,
    /// The frame [`GpuFrame::begin_step`] started, not yet collected.
    started: Option<readback::FrameRead>,
    texture_rows: u32,
    narrow_kernel: Kernel,
    pairs_kernel: Kernel,
    /// Each kind's pair indices, a region of `pair_capacity` a kind.
    partition: GrowBuffer,
    /// Per pair: reported, axis, depth bits.
    outcomes: GrowBuffer,
    /// Per pair: 1 if reported, then its hit's place.
    places: GrowBuffer,
    hits: GrowBuffer,
    /// Per hit: its manifold.
    manifolds: GrowBuffer,
    /// Hits the last frame reported: how much of the hits to copy back
    /// (`None` before the first frame: all it has room for).
    last_hits: Option<u32>,
    stats: FrameStats,
    /// Times the stages when set ([`GpuFrame::set_stage_times`]).
    stage_clock: Option<StageClock>,
    /// The stages the last recording began.
    last_stages: Vec<Stage>,
    /// The bind groups and parameters of the last frame.
    plan: Option<Plan>,
}

/// What a frame did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// Frames run.
    pub frames: u64,
    /// Frames run again because a buffer overflowed.
    pub reruns: u64,
    /// Buffers mapped for reading (one per frame, unless the hits
    /// outgrew the last frame's by more than an eighth).
    pub maps: u64,
    /// Dispatches the last frame recorded.
    pub dispatches: u32,
    /// The last frame's GPU time in each stage, from timestamp queries,
    /// when [`GpuFrame::set_stage_times`] asked for them.
    pub stage_times: Vec<(Stage, std::time::Duration)>,
}

impl std::fmt::Debug for GpuFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuFrame")
            .field("options", &self.options)
            .field("bodies", &self.body_count)
            .field("cell_size", &self.cell_size)
            .field("pair_capacity", &self.pair_capacity)
            .finish()
    }
}

impl GpuFrame {
    /// Builds the frame's pipelines on `context` for the shapes of `shapes`
    /// (bodies refer to them by index).
    pub fn new(
        context: Arc<GpuContext>,
        shapes: &ShapeSet,
        options: FrameOptions,
    ) -> Result<GpuFrame, GpuError> {
        if !(options.margin.is_finite() && options.margin >= 0.0) {
            return Err(GpuError::InvalidOption {
                message: format!("the margin {} is not a finite value >= 0", options.margin),
            });
        }
        if let Some(cell) = options.cell_size
            && !(cell.is_finite() && cell > 0.0)
        {
            return Err(GpuError::InvalidOption {
                message: format!("the cell size {cell} is not a finite value > 0"),
            });
        }
        let float = wgpu::TextureFormat::Rgba32Float;
        let uint = wgpu::TextureFormat::Rgba32Uint;
        let grid_kernel = Kernel::new(
            &context,
            "grid",
            GRID_WGSL,
            &[
                uniform(0, false),
                storage(1, true),
                storage(2, true),
                super::dimension::float_texture(3),
                storage(4, false),
                storage(5, false),
                storage(6, false),
                storage(7, false),
                storage(8, false),
                storage_texture(9, float),
                storage_texture(10, uint),
                storage(11, false),
            ],
            &[
                "bounds",
                "scatter",
                "count_pairs",
                "write_pairs",
                "count_pairs_team",
                "write_pairs_team",
                "write_large",
            ],
            &[],
        )?;
        use wgpu::BufferUsages as U;
        let texture_rows = context.limits().max_texture_dimension_2d;
        let storage_texture_usage =
            wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::STORAGE_BINDING;
        let mut frame = GpuFrame {
            scan: Scan::new(&context, options.subgroups && context.has_subgroups())?,
            params: ParamArena::new(&context)?,
            shape_records: GrowBuffer::new(&context, "frame shapes", U::STORAGE | U::COPY_DST, 16)?,
            edges: GrowTexture::new(&context, "frame shape edges", float, 1)?,
            shape_count: 0,
            kinds: Vec::new(),
            bodies: GrowBuffer::new(&context, "frame bodies", U::STORAGE | U::COPY_DST, 16)?,
            body_count: 0,
            cell_size: 1.0,
            cell_measured_for: None,
            boxes: GrowBuffer::new(&context, "frame boxes", U::STORAGE, 16)?,
            buckets: GrowBuffer::new(&context, "grid buckets", U::STORAGE | U::COPY_DST, 16)?,
            bucket_count: 1,
            entries: GrowBuffer::new(&context, "grid entries", U::STORAGE, 16)?,
            entry_capacity: 4,
            pairs: GrowBuffer::new(&context, "candidate pairs", U::STORAGE | U::COPY_SRC, 16)?,
            pair_capacity: 2,
            state: GrowBuffer::new(
                &context,
                "frame state",
                U::STORAGE | U::COPY_SRC | U::COPY_DST | U::INDIRECT,
                (STATE_HEADER_WORDS + u64::from(MAX_LARGE_BODIES)) * 4,
            )?,
            dispatch_args: GrowBuffer::new(
                &context,
                "frame dispatch arguments",
                U::INDIRECT | U::COPY_DST,
                u64::from(state::STATE_COPIED_ARGS) * 4,
            )?,
            transforms: GrowTexture::with_usage(
                &context,
                "frame body transforms",
                float,
                1,
                storage_texture_usage,
            )?,
            body_shapes: GrowTexture::with_usage(
                &context,
                "frame body shapes",
                uint,
                1,
                storage_texture_usage,
            )?,
            staging: None,
            started: None,
            texture_rows,
            narrow_kernel: narrow::narrow_kernel(&context, NARROW_WORKGROUP)?,
            pairs_kernel: narrow::pairs_kernel(&context)?,
            partition: GrowBuffer::new(&context, "pair partition", U::STORAGE, 16)?,
            outcomes: GrowBuffer::new(&context, "pair outcomes", U::STORAGE, 16)?,
            places: GrowBuffer::new(&context, "hit places", U::STORAGE, 16)?,
            hits: GrowBuffer::new(&context, "frame hits", U::STORAGE | U::COPY_SRC, 16)?,
            manifolds: GrowBuffer::new(&context, "frame manifolds", U::STORAGE | U::COPY_SRC, 16)?,
            last_hits: None,
            stats: FrameStats::default(),
            stage_clock: None,
            last_stages: Vec::new(),
            plan: None,
            grid_kernel,
            context,
            options,
        };
        frame.upload_shapes(shapes)?;
        // Room for a first frame of no bodies, so that every binding fits
        // its buffer before the first set_bodies.
        frame.resize_bodies(shapes, &[])?;
        frame.context.check()?;
        Ok(frame)
    }

    fn upload_shapes(&mut self, shapes: &ShapeSet) -> Result<(), GpuError> {
        let context = self.context.clone();
        let records = shapes.records();
        let limit = (
            context.limits().max_storage_buffer_binding_size,
            "max_storage_buffer_binding_size",
        );
        self.shape_records
            .ensure(&context, size_of_val(records) as u64, limit)?;
        if !records.is_empty() {
            context.queue().write_buffer(
                &self.shape_records.buffer,
                0,
                bytemuck::cast_slice(records),
            );
        }
        let mut edges: Vec<EdgeRecord> = shapes.edges().to_vec();
        self.edges
            .ensure(&context, edges.len(), self.texture_rows)?;
        pad_to_rows(&mut edges, EdgeRecord::default());
        self.edges.write(&context, &edges);
        self.shape_count = records.len() as u32;
        let classes: Vec<u8> = records
            .iter()
            .map(|record| frame_body_class(record, crate::d2::sat::GPU_MERGE_THRESHOLD))
            .collect();
        self.kinds = (0..narrow::ENTRY_POINTS.len())
            .filter(|&kind| {
                classes
                    .iter()
                    .any(|&a| classes.iter().any(|&b| usize::from(kind_of(a, b)) == kind))
            })
            .collect();
        Ok(())
    }

    /// Whether its prefix sums use subgroup operations
    /// ([`FrameOptions::subgroups`] and a device that has them).
    pub fn uses_subgroups(&self) -> bool {
        self.scan.uses_subgroups()
    }

    /// The options it runs with.
    pub fn options(&self) -> &FrameOptions {
        &self.options
    }

    /// The context it runs on.
    pub fn context(&self) -> &Arc<GpuContext> {
        &self.context
    }

    /// The bodies' buffer: `body_count` [`FrameBody`] records (32 bytes
    /// each, the layout in `src/gpu/layout/mod.rs`). A GPU consumer may write
    /// it between frames instead of calling [`GpuFrame::set_bodies`].
    pub fn bodies_buffer(&self) -> &wgpu::Buffer {
        &self.bodies.buffer
    }

    /// Bodies in the frame.
    pub fn body_count(&self) -> u32 {
        self.body_count
    }

    /// The grid's cell side in use.
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// Makes room for `count` bodies, whose records the caller writes into
    /// [`GpuFrame::bodies_buffer`]; `shapes` sizes the grid's cells when the
    /// options leave that automatic.
    pub fn resize_bodies(
        &mut self,
        shapes: &ShapeSet,
        bodies: &[FrameBody],
    ) -> Result<(), GpuError> {
        let count = bodies.len();
        // The grid's stages run a body an invocation.
        let most = (self.context.limits().max_compute_workgroups_per_dimension as usize
            * grid::GRID_GROUP_SIZE as usize)
            .min(1 << 27);
        if count > most {
            return Err(GpuError::InvalidOption {
                message: format!("{count} bodies are more than a frame holds ({most})"),
            });
        }
        let count32 = count as u32;
        let context = self.context.clone();
        let limit = (
            context.limits().max_storage_buffer_binding_size,
            "max_storage_buffer_binding_size",
        );
        self.bodies
            .ensure(&context, size_of_val(bodies) as u64, limit)?;
        self.boxes.ensure(&context, count as u64 * 16, limit)?;
        self.transforms.ensure(&context, count, self.texture_rows)?;
        self.body_shapes
            .ensure(&context, count, self.texture_rows)?;
        let buckets = (2 * count32).next_power_of_two().max(1024);
        // Each buffer grows before the size the kernels are told is set, so
        // a failure leaves the frame consistent.
        // The buckets, then a tally per body.
        self.buckets.ensure(
            &context,
            (u64::from(buckets) + count.max(1) as u64) * 4,
            limit,
        )?;
        self.scan.reserve(&context, u64::from(buckets))?;
        self.bucket_count = buckets;
        let entries = self.entry_capacity.max(4 * count32 + 64);
        self.entries
            .ensure(&context, u64::from(entries) * 4, limit)?;
        self.entry_capacity = entries;
        let pairs = (2 * count32).max(1024);
        if self.pair_capacity < pairs {
            self.reserve_pairs(pairs)?;
        }
        // The cell from the bodies' shapes: computed when their number
        // changes, not every frame.
        let measured = self.cell_measured_for == Some(count);
        self.cell_size = match self.options.cell_size {
            Some(cell) => cell,
            None if measured => self.cell_size,
            None => {
                let mut reaches: Vec<f32> = bodies
                    .iter()
                    .map(|body| reach(shapes, body, self.options.margin))
                    .filter(|reach| reach.is_finite() && *reach > 0.0)
                    .collect();
                if reaches.is_empty() {
                    1.0
                } else {
                    let at = (reaches.len() * 9 / 10).min(reaches.len() - 1);
                    *reaches.select_nth_unstable_by(at, f32::total_cmp).1
                }
            }
        };
        self.body_count = count32;
        self.cell_measured_for = Some(count);
        Ok(())
    }

    /// Sets the frame's bodies: checks them (a finite position, a finite
    /// rotation of unit length within 1e-3, a shape of the library, an
    /// inverse mass finite and >= 0: an error names the first bad body),
    /// makes room ([`GpuFrame::resize_bodies`]) and writes them. A caller
    /// writing the buffer itself is not checked: a body whose box is not
    /// finite (a position or rotation that is not) or whose shape is not in
    /// the library is in no pair.
    pub fn set_bodies(&mut self, shapes: &ShapeSet, bodies: &[FrameBody]) -> Result<(), GpuError> {
        for (index, body) in bodies.iter().enumerate() {
            let [x, y] = body.position;
            let [c, s] = body.rotation;
            let reason = if !(x.is_finite() && y.is_finite()) {
                Some(format!("its position ({x}, {y}) is not finite"))
            } else if !(c.is_finite() && s.is_finite() && (c * c + s * s - 1.0).abs() <= 1e-3) {
                Some(format!(
                    "its rotation (cos {c}, sin {s}) is not a unit vector"
                ))
            } else if body.shape as usize >= shapes.len() {
                Some(format!(
                    "its shape {} is not one of the {} shapes",
                    body.shape,
                    shapes.len()
                ))
            } else if !(body.inv_mass.is_finite() && body.inv_mass >= 0.0) {
                Some(format!(
                    "its inverse mass {} is not a finite value >= 0",
                    body.inv_mass
                ))
            } else {
                None
            };
            if let Some(reason) = reason {
                return Err(GpuError::InvalidOption {
                    message: format!("frame body {index}: {reason}"),
                });
            }
        }
        self.resize_bodies(shapes, bodies)?;
        if !bodies.is_empty() {
            self.context
                .queue()
                .write_buffer(&self.bodies.buffer, 0, bytemuck::cast_slice(bodies));
        }
        Ok(())
    }

    fn reserve_pairs(&mut self, capacity: u32) -> Result<(), GpuError> {
        let context = self.context.clone();
        let max_groups = context.limits().max_compute_workgroups_per_dimension;
        let most = max_groups.saturating_mul(256);
        if capacity > most {
            return Err(GpuError::OverLimit {
                what: format!("a frame of {capacity} candidate pairs"),
                needed: u64::from(capacity),
                allowed: u64::from(most),
                limit: "max_compute_workgroups_per_dimension",
            });
        }
        let limit = (
            context.limits().max_storage_buffer_binding_size,
            "max_storage_buffer_binding_size",
        );
        self.pairs
            .ensure(&context, u64::from(capacity) * 8, limit)?;
        self.partition
            .ensure(&context, grid::partition_bytes(capacity), limit)?;
        self.outcomes
            .ensure(&context, u64::from(capacity) * 16, limit)?;
        self.places
            .ensure(&context, u64::from(capacity) * 4, limit)?;
        self.hits
            .ensure(&context, u64::from(capacity) * 16, limit)?;
        self.manifolds
            .ensure(&context, u64::from(capacity) * MANIFOLD_BYTES, limit)?;
        self.scan.reserve(&context, u64::from(capacity))?;
        self.pair_capacity = capacity;
        Ok(())
    }

    /// The hits of the last frame, for a GPU consumer: [`FrameHit`]
    /// records in `(a, b)` order; their count is word [`STATE_HITS`] of
    /// [`GpuFrame::state_buffer`].
    pub fn hits_buffer(&self) -> &wgpu::Buffer {
        &self.hits.buffer
    }

    /// The manifolds of the last frame, for a GPU consumer: one
    /// [`FrameManifold`] per hit, at the hit's index.
    pub fn manifolds_buffer(&self) -> &wgpu::Buffer {
        &self.manifolds.buffer
    }

    /// The frame's counters (u32 words; `INDIRECT` usage): the hit count at
    /// [`STATE_HITS`], and at [`STATE_HIT_ARGS`] the arguments of an
    /// indirect dispatch of one invocation per hit in workgroups of 256.
    /// Record a consumer's work after [`GpuFrame::record_frame`] in the
    /// same encoder.
    pub fn state_buffer(&self) -> &wgpu::Buffer {
        &self.state.buffer
    }

    /// Records a whole frame into the caller's `encoder` and returns; the
    /// results stay on the device ([`GpuFrame::hits_buffer`],
    /// [`GpuFrame::state_buffer`]) for work recorded after it. Nothing is
    /// read back, so an overflow is not seen here: size the frame with one
    /// [`GpuFrame::step`] first (it grows the buffers as needed), and check
    /// now and then with another. Submit the encoder before the frame's
    /// next `step`, `step_with`, `find_pairs` or `record_frame`: those
    /// rewrite the parameters the recorded work reads, and may grow the
    /// buffers it was recorded against.
    pub fn record_frame(&mut self, encoder: &mut wgpu::CommandEncoder) {
        self.record(encoder, true);
    }

    /// What the frames so far did.
    pub fn stats(&self) -> &FrameStats {
        &self.stats
    }

    /// Device memory held, in bytes.
    pub fn device_bytes(&self) -> u64 {
        self.shape_records.size
            + self.edges.bytes()
            + self.bodies.size
            + self.boxes.size
            + self.buckets.size
            + self.entries.size
            + self.pairs.size
            + self.state.size
            + self.dispatch_args.size
            + self.transforms.bytes()
            + self.body_shapes.bytes()
            + self.scan.bytes()
            + self.partition.size
            + self.outcomes.size
            + self.places.size
            + self.hits.size
            + self.manifolds.size
            + self.staging.as_ref().map_or(0, |staging| staging.size)
            + self.params.bytes()
    }
}

impl FrameBody {
    /// A CPU body's record: its transform (cos and sin computed on the CPU,
    /// as the CPU backends compute them), shape and inverse mass.
    pub fn from_body(body: &Body) -> FrameBody {
        let xf = body.transform();
        FrameBody {
            position: [xf.p.x, xf.p.y],
            rotation: [xf.q.c, xf.q.s],
            shape: body.shape,
            inv_mass: body.inv_mass,
            _pad: [0; 2],
        }
    }
}

fn whole(buffer: &GrowBuffer) -> wgpu::BindingResource<'_> {
    buffer.buffer.as_entire_binding()
}
