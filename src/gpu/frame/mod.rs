//! A GPU-resident frame: the bodies live in a GPU buffer, and one submission
//! finds the candidate pairs, puts them in order and tests them, with no
//! work per pair on the host.
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
//! │            find_pairs  small bodies against their cells' buckets
//! │            find_large  every body against the few large ones
//! ▼ sort.wgsl              the pairs into (a, b) order: the CPU's order
//! ▼ pairs.wgsl classify    each pair's kind; one radix pass partitions them
//! │            plan        each kind's range and indirect dispatch arguments
//! ▼ narrow.wgsl + sat.wgsl the 2D kernel's entry points, by indirect dispatch
//! ▼ pairs.wgsl flags, scan, compact: the hits in pair order and their count
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
//!   broadphase's (`tests/gpu_frame.rs` compares them on lavapipe; a
//!   compiler that fuses the boxes' multiply-adds could move a box by an
//!   ulp, and a pair touching to the ulp with it).
//! * **A radix sort by (a, b)** because atomics hand out slots in whatever
//!   order invocations arrive: the pairs are found in a different order
//!   every run, and sorted they are in the one order (the keys are
//!   distinct), the CPU's.
//! * **Counters that keep counting past capacity**, as in the narrowphase:
//!   an overflow is seen, the buffers grow, and the frame is run again; it
//!   is never truncated.
//! * **No loop longer than 60,000 iterations per invocation**: lavapipe
//!   silently stops longer ones. A cell so crowded that one body would scan
//!   more is reported as an error, not answered partly.

mod kernels;
mod narrow;
mod params;
mod scan;
mod sort;

use std::sync::{Arc, Mutex};

use bytemuck::{Pod, Zeroable};

use super::buffers::{GrowBuffer, GrowTexture, pad_to_rows};
use super::context::GpuContext;
use super::error::GpuError;
use super::layout::FrameBody;
use crate::core::pair::Pair;
use crate::d2::body::Body;
use crate::d2::shape::{EdgeRecord, Shape, ShapeSet};
use kernels::{Kernel, range, storage, storage_texture, uniform};
use params::ParamArena;
use scan::Scan;
use sort::{RadixSort, SortKey, bits_for};

pub use narrow::{FrameHit, FrameManifold, NARROW_WGSL, NarrowParams, PAIRS_WGSL, PairsParams};
pub use scan::{SCAN_WGSL, ScanParams};
pub use sort::{SORT_WGSL, SortParams};

/// The broadphase's source.
pub const GRID_WGSL: &str = concat!(
    include_str!("../../../shaders/frame/common.wgsl"),
    "\n",
    include_str!("../../../shaders/frame/grid.wgsl")
);

// The state buffer's words (grid.wgsl: STATE_*).
const STATE_PAIRS: u32 = 0;
const STATE_ENTRIES: u32 = 1;
const STATE_LARGE: u32 = 2;
const STATE_CROWDED: u32 = 3;
/// The state buffer's word holding the frame's hit count (see
/// [`GpuFrame::state_buffer`]).
pub const STATE_HITS: u32 = 4;
/// Set when a pair was found past the pairs' capacity: with the count, it
/// tells a grown frame from a count that wrapped around 2^32.
const STATE_PAIR_OVERFLOW: u32 = 5;
/// Per kind of pair: its first place in the partition, its count, its
/// workgroups along x (pairs.wgsl: plan).
#[allow(dead_code)] // used by the shaders (narrow.wgsl, pairs.wgsl)
const STATE_KINDS: u32 = 8;
/// Per kind of pair: its entry point's indirect dispatch arguments.
const STATE_ARGS: u32 = 32;
/// The indirect dispatch arguments of one invocation per hit, in workgroups
/// of 256 (pairs.wgsl: compact), for a GPU consumer of the hits.
pub const STATE_HIT_ARGS: u32 = 52;
const STATE_LARGE_LIST: u32 = 64;
/// Words of the state buffer before the large bodies' list.
const STATE_HEADER_WORDS: u64 = STATE_LARGE_LIST as u64;

/// Cells per axis a small body may span (grid.wgsl: MAX_SPAN).
const MAX_SPAN: f32 = 4.0;
/// Large bodies a frame can hold: each body loops over them once.
pub const MAX_LARGE_BODIES: u32 = 4096;

/// Mirror of `GridParams` in `grid.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GridParams {
    /// Bodies in the frame.
    pub body_count: u32,
    /// Shapes in the library (a body's shape past them is a point).
    pub shape_count: u32,
    /// Buckets minus one (a power of two minus one).
    pub bucket_mask: u32,
    /// Grid entries the entries buffer holds.
    pub entry_capacity: u32,
    /// Pairs the pairs buffers hold.
    pub pair_capacity: u32,
    /// Large bodies the state buffer's list holds.
    pub large_capacity: u32,
    /// 1: leave out pairs of two static bodies.
    pub skip_static: u32,
    /// Padding.
    pub _pad0: u32,
    /// One over the cell's side.
    pub cell_inverse: f32,
    /// The margin boxes are grown by.
    pub margin: f32,
    /// Padding.
    pub _pad1: u32,
    /// Padding to 48 bytes.
    pub _pad2: u32,
}

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
}

impl Default for FrameOptions {
    fn default() -> FrameOptions {
        FrameOptions {
            margin: 0.0,
            skip_static_pairs: true,
            cell_size: None,
        }
    }
}

/// The frame's pipelines and device memory.
pub struct GpuFrame {
    context: Arc<GpuContext>,
    options: FrameOptions,
    grid_kernel: Kernel,
    scan: Scan,
    sort: RadixSort,
    params: ParamArena,
    /// The shape library: records and edges (vertex, normal).
    shape_records: GrowBuffer,
    edges: GrowTexture,
    shape_count: u32,
    bodies: GrowBuffer,
    body_count: u32,
    cell_size: f32,
    /// The body count the automatic cell size was measured for.
    cell_measured_for: Option<usize>,
    boxes: GrowBuffer,
    buckets: GrowBuffer,
    bucket_count: u32,
    entries: GrowBuffer,
    entry_capacity: u32,
    pairs: [GrowBuffer; 2],
    pair_capacity: u32,
    state: GrowBuffer,
    transforms: GrowTexture,
    body_shapes: GrowTexture,
    staging: Option<GrowBuffer>,
    texture_rows: u32,
    narrow_kernel: Kernel,
    pairs_kernel: Kernel,
    /// Each kind's pairs (kind, pair index), after the partition pass.
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
    /// The bind groups and parameters of the last frame.
    plan: Option<Plan>,
}

/// What a frame did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// Frames run.
    pub frames: u64,
    /// Frames run again because a buffer overflowed.
    pub reruns: u64,
    /// Buffers mapped for reading (one per frame, unless the hits
    /// outgrew the last frame's by more than a quarter).
    pub maps: u64,
}

/// One frame's results where the GPU left them (the mapped readback):
/// see [`GpuFrame::step_with`].
#[derive(Clone, Copy, Debug)]
pub struct FrameView<'a> {
    /// The candidate pairs the broadphase found.
    pub pairs: u32,
    /// The reported pairs, in `(a, b)` order.
    pub hits: &'a [FrameHit],
    /// Their contact manifolds, one per hit.
    pub manifolds: &'a [FrameManifold],
}

/// One frame's results, read back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameOutput {
    /// The candidate pairs the broadphase found.
    pub pairs: u32,
    /// The reported pairs, in `(a, b)` order.
    pub hits: Vec<FrameHit>,
    /// Their contact manifolds, one per hit.
    pub manifolds: Vec<FrameManifold>,
}

/// Bytes of a [`FrameManifold`].
const MANIFOLD_BYTES: u64 = 48;

/// The narrowphase's workgroup size in a frame.
const NARROW_WORKGROUP: u32 = 64;

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

/// A body's box size at any rotation: its shape's bounding circle's
/// diameter, plus the margin on both sides.
fn reach(shapes: &ShapeSet, body: &FrameBody, margin: f32) -> f32 {
    let radius = shapes.get(body.shape).map_or(0.0, Shape::bounding_radius);
    2.0 * (radius + margin)
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
            ],
            &["bounds", "scatter", "find_pairs", "find_large"],
            &[],
        )?;
        use wgpu::BufferUsages as U;
        let texture_rows = context.limits().max_texture_dimension_2d;
        let storage_texture_usage =
            wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::STORAGE_BINDING;
        let mut frame = GpuFrame {
            scan: Scan::new(&context)?,
            sort: RadixSort::new(&context)?,
            params: ParamArena::new(&context)?,
            shape_records: GrowBuffer::new(&context, "frame shapes", U::STORAGE | U::COPY_DST, 16)?,
            edges: GrowTexture::new(&context, "frame shape edges", float, 1)?,
            shape_count: 0,
            bodies: GrowBuffer::new(&context, "frame bodies", U::STORAGE | U::COPY_DST, 16)?,
            body_count: 0,
            cell_size: 1.0,
            cell_measured_for: None,
            boxes: GrowBuffer::new(&context, "frame boxes", U::STORAGE, 16)?,
            buckets: GrowBuffer::new(&context, "grid buckets", U::STORAGE | U::COPY_DST, 16)?,
            bucket_count: 1,
            entries: GrowBuffer::new(&context, "grid entries", U::STORAGE, 16)?,
            entry_capacity: 4,
            pairs: [
                GrowBuffer::new(&context, "candidate pairs", U::STORAGE | U::COPY_SRC, 16)?,
                GrowBuffer::new(&context, "candidate pairs", U::STORAGE | U::COPY_SRC, 16)?,
            ],
            pair_capacity: 2,
            state: GrowBuffer::new(
                &context,
                "frame state",
                U::STORAGE | U::COPY_SRC | U::COPY_DST | U::INDIRECT,
                (STATE_HEADER_WORDS + u64::from(MAX_LARGE_BODIES)) * 4,
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
        Ok(())
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
    /// each, the layout in `src/gpu/layout.rs`). A GPU consumer may write
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
        // find_pairs and find_large run 64 bodies to a workgroup.
        let most =
            (self.context.limits().max_compute_workgroups_per_dimension as usize * 64).min(1 << 27);
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
        self.buckets
            .ensure(&context, u64::from(buckets) * 4, limit)?;
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
    /// finite (a position or rotation that is not) is in no pair.
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
        for pairs in &mut self.pairs {
            pairs.ensure(&context, u64::from(capacity) * 8, limit)?;
        }
        self.partition
            .ensure(&context, u64::from(capacity) * 8, limit)?;
        self.outcomes
            .ensure(&context, u64::from(capacity) * 16, limit)?;
        self.places
            .ensure(&context, u64::from(capacity) * 4, limit)?;
        self.hits
            .ensure(&context, u64::from(capacity) * 16, limit)?;
        self.manifolds
            .ensure(&context, u64::from(capacity) * MANIFOLD_BYTES, limit)?;
        self.scan.reserve(&context, u64::from(capacity))?;
        self.sort.reserve(&context, &mut self.scan, capacity)?;
        self.pair_capacity = capacity;
        Ok(())
    }

    fn grid_bind_group(&self, pairs: &wgpu::Buffer) -> wgpu::BindGroup {
        self.grid_kernel.bind(
            &self.context,
            "grid",
            &[
                (0, self.params.binding()),
                (1, whole(&self.bodies)),
                (2, whole(&self.shape_records)),
                (3, wgpu::BindingResource::TextureView(&self.edges.view)),
                (4, whole(&self.boxes)),
                (
                    5,
                    range(&self.buckets.buffer, 0, u64::from(self.bucket_count) * 4),
                ),
                (6, whole(&self.entries)),
                (7, range(pairs, 0, u64::from(self.pair_capacity) * 8)),
                (8, whole(&self.state)),
                (9, wgpu::BindingResource::TextureView(&self.transforms.view)),
                (
                    10,
                    wgpu::BindingResource::TextureView(&self.body_shapes.view),
                ),
            ],
        )
    }

    /// Records a frame into `encoder`: the broadphase, and with `narrow`
    /// the narrowphase and the compaction. Returns which pairs buffer holds
    /// the sorted pairs.
    fn record(&mut self, encoder: &mut wgpu::CommandEncoder, narrow: bool) -> usize {
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
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("frame"),
            timestamp_writes: None,
        });
        if body_groups > 0 {
            let grid = |pass: &mut wgpu::ComputePass<'_>, entry_point| {
                // find_pairs and find_large run 64 to a workgroup (their
                // workgroup lists of pairs), the others 256.
                let groups = match entry_point {
                    "find_pairs" | "find_large" => self.body_count.div_ceil(64),
                    _ => body_groups,
                };
                pass.set_pipeline(self.grid_kernel.pipeline(entry_point));
                pass.set_bind_group(0, &plan.grid_group, &[]);
                pass.dispatch_workgroups(groups, 1, 1);
            };
            grid(&mut pass, "bounds");
            self.scan.record(&mut pass, &plan.bucket_scan);
            grid(&mut pass, "scatter");
            grid(&mut pass, "find_pairs");
            grid(&mut pass, "find_large");
            self.sort
                .record(&mut pass, &self.scan, &plan.sort_passes, self.pair_capacity);
            if narrow {
                self.record_narrow(&mut pass, &plan.narrow);
            }
        }
        drop(pass);
        plan.sorted
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

    fn record_narrow(&self, pass: &mut wgpu::ComputePass<'_>, stage: &NarrowStage) {
        let pair_groups = self.pair_capacity.div_ceil(256);
        let pairs = |pass: &mut wgpu::ComputePass<'_>, entry_point, groups| {
            pass.set_pipeline(self.pairs_kernel.pipeline(entry_point));
            pass.set_bind_group(0, &stage.pairs_group, &[stage.pairs_offset]);
            pass.dispatch_workgroups(groups, 1, 1);
        };
        pairs(pass, "classify", pair_groups);
        self.sort.record(
            pass,
            &self.scan,
            &stage.partition_passes,
            self.pair_capacity,
        );
        pairs(pass, "plan", 1);
        for (kind, entry_point) in narrow::ENTRY_POINTS.iter().enumerate() {
            pass.set_pipeline(self.narrow_kernel.pipeline(entry_point));
            pass.set_bind_group(0, &stage.narrow_group, &[stage.kind_offsets[kind]]);
            pass.dispatch_workgroups_indirect(
                &self.state.buffer,
                u64::from(STATE_ARGS + 3 * kind as u32) * 4,
            );
        }
        pairs(pass, "flags", pair_groups);
        self.scan.record(pass, &stage.places_scan);
        pairs(pass, "compact", pair_groups);
        pass.set_pipeline(self.narrow_kernel.pipeline("manifold"));
        pass.set_bind_group(0, &stage.narrow_group, &[stage.kind_offsets[0]]);
        pass.dispatch_workgroups_indirect(&self.state.buffer, u64::from(STATE_HIT_ARGS) * 4);
    }

    /// Finds the frame's candidate pairs and reads them back, sorted by
    /// `(a, b)`: the broadphase alone, for tests and for callers who want
    /// the pairs on the host. Two maps (the count, then the pairs).
    pub fn find_pairs(&mut self) -> Result<Vec<Pair>, GpuError> {
        loop {
            let mut encoder =
                self.context
                    .device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("frame broadphase"),
                    });
            let sorted = self.record(&mut encoder, false);
            let header = self.read(encoder, &self.state.buffer.clone(), STATE_HEADER_WORDS * 4)?;
            let words: Vec<u32> = bytemuck::pod_collect_to_vec(&header);
            if self.check_counts(&words)? {
                continue;
            }
            let count = words[STATE_PAIRS as usize];
            let encoder =
                self.context
                    .device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("frame pairs"),
                    });
            let bytes = self.read(
                encoder,
                &self.pairs[sorted].buffer.clone(),
                u64::from(count) * 8,
            )?;
            let records: Vec<[u32; 2]> = bytemuck::pod_collect_to_vec(&bytes);
            return Ok(records.iter().map(|&[a, b]| Pair::new(a, b)).collect());
        }
    }

    /// Runs one frame: one submission (the broadphase, the partition, the
    /// narrowphase by indirect dispatch, the compaction) and one map of the
    /// counters and the hits, in `(a, b)` order. Nothing per pair runs on
    /// the host but copying the hits out. A second map is needed only when
    /// the hits outgrow the last frame's by more than a quarter; an
    /// overflowing buffer grows and the frame runs again.
    pub fn step(&mut self) -> Result<FrameOutput, GpuError> {
        self.step_with(|view| FrameOutput {
            pairs: view.pairs,
            hits: view.hits.to_vec(),
            manifolds: view.manifolds.to_vec(),
        })
    }

    /// [`GpuFrame::step`] without copying the hits out: `read` gets them
    /// where the GPU left them (the mapped readback), and what it returns
    /// is returned. The view lives until `read` returns.
    pub fn step_with<R>(&mut self, read: impl FnOnce(FrameView<'_>) -> R) -> Result<R, GpuError> {
        self.stats.frames += 1;
        let header_bytes = STATE_HEADER_WORDS * 4;
        let mut read = Some(read);
        let (words, early) = loop {
            let mut encoder =
                self.context
                    .device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("frame"),
                    });
            self.record(&mut encoder, true);
            let expected = self
                .last_hits
                .map_or(self.pair_capacity, |last| last + last / 4 + 256)
                .min(self.pair_capacity);
            let state = self.state.buffer.clone();
            let hits = self.hits.buffer.clone();
            let manifolds = self.manifolds.buffer.clone();
            let room = (self.pair_capacity, self.entry_capacity);
            // The counters, and when they show a frame that fit and hits
            // that fit the copy, the hits handed over in place.
            let (words, early) = self.map_regions(
                encoder,
                &[
                    (&state, 0, header_bytes),
                    (&hits, 0, u64::from(expected) * 16),
                    (&manifolds, 0, u64::from(expected) * MANIFOLD_BYTES),
                ],
                |bytes| {
                    let words: Vec<u32> =
                        bytemuck::pod_collect_to_vec(&bytes[..header_bytes as usize]);
                    let hit_count = words[STATE_HITS as usize];
                    let fits = words[STATE_CROWDED as usize] == 0
                        && words[STATE_PAIR_OVERFLOW as usize] == 0
                        && words[STATE_PAIRS as usize] <= room.0
                        && words[STATE_ENTRIES as usize] <= room.1
                        && words[STATE_LARGE as usize] <= MAX_LARGE_BODIES
                        && hit_count <= expected;
                    let at = header_bytes as usize;
                    let manifolds_at = at + expected as usize * 16;
                    let early = match read.take() {
                        Some(reader) if fits => Some(read_view(
                            words[STATE_PAIRS as usize],
                            &bytes[at..at + hit_count as usize * 16],
                            &bytes[manifolds_at
                                ..manifolds_at + hit_count as usize * MANIFOLD_BYTES as usize],
                            reader,
                        )),
                        unused => {
                            read = unused;
                            None
                        }
                    };
                    (words, early)
                },
            )?;
            if self.check_counts(&words)? {
                self.stats.reruns += 1;
                continue;
            }
            break (words, early);
        };
        let hit_count = words[STATE_HITS as usize];
        self.last_hits = Some(hit_count);
        if let Some(result) = early {
            return Ok(result);
        }
        // More hits than the last frame's by over a quarter: all of them
        // in a second map.
        let encoder =
            self.context
                .device()
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("frame hits"),
                });
        let hits = self.hits.buffer.clone();
        let manifolds = self.manifolds.buffer.clone();
        let pairs = words[STATE_PAIRS as usize];
        let reader = read.take();
        let hit_bytes = hit_count as usize * 16;
        self.map_regions(
            encoder,
            &[
                (&hits, 0, hit_bytes as u64),
                (&manifolds, 0, u64::from(hit_count) * MANIFOLD_BYTES),
            ],
            |bytes| {
                reader.map(|reader| {
                    read_view(pairs, &bytes[..hit_bytes], &bytes[hit_bytes..], reader)
                })
            },
        )?
        .ok_or_else(|| GpuError::Readback {
            message: "the frame's hits were read twice".to_string(),
        })
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

    /// Checks the frame's counters: an error for a crowded grid or too many
    /// large bodies; true when a buffer overflowed and has grown (run the
    /// frame again).
    fn check_counts(&mut self, words: &[u32]) -> Result<bool, GpuError> {
        if words[STATE_CROWDED as usize] != 0 {
            return Err(GpuError::InvalidOption {
                message: format!(
                    "the broadphase grid is too crowded: a body's cells hold more than 60,000 \
                     bodies (cell size {}); spread the bodies out or set a smaller cell size",
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

    /// Submits `encoder` with a copy of `bytes` of `source` and reads them back.
    fn read(
        &mut self,
        encoder: wgpu::CommandEncoder,
        source: &wgpu::Buffer,
        bytes: u64,
    ) -> Result<Vec<u8>, GpuError> {
        self.read_regions(encoder, &[(source, 0, bytes)])
    }

    /// Submits `encoder` with copies of `(source, offset, bytes)` regions
    /// back to back (each rounded up to 4 bytes) and reads them back: one
    /// map.
    fn read_regions(
        &mut self,
        encoder: wgpu::CommandEncoder,
        regions: &[(&wgpu::Buffer, u64, u64)],
    ) -> Result<Vec<u8>, GpuError> {
        self.map_regions(encoder, regions, |bytes| bytes.to_vec())
    }

    /// [`GpuFrame::read_regions`], handing the mapped bytes to `read`
    /// instead of copying them.
    fn map_regions<R>(
        &mut self,
        mut encoder: wgpu::CommandEncoder,
        regions: &[(&wgpu::Buffer, u64, u64)],
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, GpuError> {
        let context = self.context.clone();
        let bytes: u64 = regions
            .iter()
            .map(|region| region.2.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT))
            .sum();
        let limit = (context.limits().max_buffer_size, "max_buffer_size");
        let staging = match self.staging.take() {
            Some(mut staging) => {
                staging.ensure(&context, bytes, limit)?;
                staging
            }
            None => GrowBuffer::new(
                &context,
                "frame readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                bytes,
            )?,
        };
        let staging = self.staging.insert(staging);
        let mut at = 0;
        for &(source, offset, region_bytes) in regions {
            let region_bytes = region_bytes.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
            if region_bytes > 0 {
                encoder.copy_buffer_to_buffer(source, offset, &staging.buffer, at, region_bytes);
            }
            at += region_bytes;
        }
        self.stats.maps += 1;
        let mapped = Arc::new(Mutex::new(None));
        let sink = mapped.clone();
        let map_bytes = bytes.max(wgpu::COPY_BUFFER_ALIGNMENT);
        encoder.map_buffer_on_submit(
            &staging.buffer,
            wgpu::MapMode::Read,
            0..map_bytes,
            move |result| {
                if let Ok(mut flag) = sink.lock() {
                    *flag = Some(result);
                }
            },
        );
        let submission = context.queue().submit([encoder.finish()]);
        context.wait(Some(submission))?;
        let take = || mapped.lock().ok().and_then(|mut flag| flag.take());
        let mut outcome = take();
        // On a device shared between threads, another thread's poll may have
        // seen the work finish and not yet run the mapping's callback when
        // this wait returns: poll until it has run (a bounded number of
        // times: a callback that never comes is an error below).
        for _ in 0..10_000 {
            if outcome.is_some() {
                break;
            }
            std::thread::yield_now();
            context.wait(None)?;
            outcome = take();
        }
        match outcome {
            Some(Ok(())) => {}
            Some(Err(err)) => {
                return Err(GpuError::Readback {
                    message: format!("mapping the frame's readback failed: {err}"),
                });
            }
            None => {
                return Err(GpuError::Readback {
                    message: "the frame's readback was not mapped after the wait".to_string(),
                });
            }
        }
        let slice = staging.buffer.slice(0..map_bytes);
        let data = {
            let view = slice.get_mapped_range().map_err(|err| GpuError::Readback {
                message: format!("the mapped readback cannot be read: {err}"),
            })?;
            read(&view[..bytes as usize])
        };
        staging.buffer.unmap();
        Ok(data)
    }

    /// Device memory held, in bytes.
    pub fn device_bytes(&self) -> u64 {
        self.shape_records.size
            + self.edges.bytes()
            + self.bodies.size
            + self.boxes.size
            + self.buckets.size
            + self.entries.size
            + self.pairs.iter().map(|pairs| pairs.size).sum::<u64>()
            + self.state.size
            + self.transforms.bytes()
            + self.body_shapes.bytes()
            + self.scan.bytes()
            + self.sort.bytes()
            + self.partition.size
            + self.outcomes.size
            + self.places.size
            + self.hits.size
            + self.manifolds.size
            + self.staging.as_ref().map_or(0, |staging| staging.size)
            + self.params.bytes()
    }
}

/// Hands the hits and manifolds to `read`, in place when they are aligned
/// for it (a mapped range is), else copied.
fn read_view<R>(
    pairs: u32,
    hits: &[u8],
    manifolds: &[u8],
    read: impl FnOnce(FrameView<'_>) -> R,
) -> R {
    match (
        bytemuck::try_cast_slice(hits),
        bytemuck::try_cast_slice(manifolds),
    ) {
        (Ok(hits), Ok(manifolds)) => read(FrameView {
            pairs,
            hits,
            manifolds,
        }),
        _ => read(FrameView {
            pairs,
            hits: &bytemuck::pod_collect_to_vec(hits),
            manifolds: &bytemuck::pod_collect_to_vec(manifolds),
        }),
    }
}

/// What a frame's bind groups and parameters were made for: the buffers
/// and views they bind, and the sizes the parameters hold.
#[derive(PartialEq)]
struct PlanKey {
    buffers: Vec<wgpu::Buffer>,
    views: Vec<wgpu::TextureView>,
    numbers: [u32; 8],
}

/// A frame's bind groups and the offsets of its parameters, kept from
/// frame to frame while their key holds (making them each frame was most
/// of the frame's fixed host time).
struct Plan {
    key: PlanKey,
    grid_group: wgpu::BindGroup,
    bucket_scan: Vec<scan::ScanStep>,
    sort_passes: Vec<sort::SortPass>,
    /// Which pairs buffer holds the sorted pairs.
    sorted: usize,
    narrow: NarrowStage,
}

/// The narrowphase stage's bindings, recorded after the broadphase.
struct NarrowStage {
    partition_passes: Vec<sort::SortPass>,
    pairs_group: wgpu::BindGroup,
    pairs_offset: u32,
    narrow_group: wgpu::BindGroup,
    kind_offsets: Vec<u32>,
    places_scan: Vec<scan::ScanStep>,
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
