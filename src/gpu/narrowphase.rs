//! The GPU narrowphase: a SAT kernel run over a batch, in either dimension
//! ([`GpuSat`]; [`GpuNarrowphase`](super::GpuNarrowphase) in 2D,
//! [`crate::d3::GpuNarrowphase`] in 3D).
//!
//! One batch goes like this:
//!
//! ```text
//! upload the shape library (when it changed) and the bodies: textures
//! split the pairs into windows no larger than one storage binding allows
//! for each window: sort its pairs by kind, upload them at the window's offset,
//!     write each kind's parameters, size its output from the last batch's hits
//! record: one compute pass over every window, then copies of the counters,
//!     the timestamps and each window's output into one staging buffer,
//!     mapped when the work is done
//! when mapped: each window whose counter fits its output is put in pair order;
//!     a window whose counter passed it gets room and runs again (nothing is
//!     ever dropped)
//! ```
//!
//! The work can be recorded into the caller's command encoder
//! ([`GpuSat::record`]), so that a frame loop submits once and
//! collects the hits later without waiting inside gpusat
//! ([`GpuNarrowphase::poll`]), or run start to finish
//! ([`GpuNarrowphase::collide`]). Buffers, textures, pipelines and the bind
//! group persist across calls and grow geometrically; the bind group is
//! rebuilt only when one of them grows.

use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::core::clock::Instant;

use super::buffers::{GrowBuffer, too_large};
use super::context::GpuContext;
use super::context::MAX_WORKGROUP_SIZE;
use super::dimension::{Dimension, KindChoice};
use super::dispatch::{Bindings, PARAM_SLOTS, PARAMS_STRIDE, SatPipelines, record_bytes};
use super::error::GpuError;
use super::kinds::{BodyClasses, PAIR_KINDS};
use super::layout::HitRecord;
use super::readback::{ReadScratch, read_staging};
use super::windows::{
    DEFERRAL_WORDS, LayoutInput, Window, densest_ratio, first_capacity, layout, plan,
};

/// Invocations per workgroup unless asked otherwise, chosen with
/// `gpusat bench --workgroup-size N` on lavapipe (kernel ns per pair, 1M
/// pairs): 8-gons 32: 78-83, 64: 57-58, 128: 55-56, 256: 53; mixed shapes,
/// sparse: 64: 276, 128: 268, 256: 263. Larger groups amortise lavapipe's
/// per-group cost; 256 is also the largest size every adapter must allow.
pub const DEFAULT_WORKGROUP_SIZE: u32 = 256;

/// Tuning and test knobs of the GPU narrowphase.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuOptions {
    /// Invocations per workgroup (1 to 256, and what the device allows).
    pub workgroup_size: u32,
    /// Split batches into windows of at most this many pairs (the device's
    /// limits cap it anyway). Tests force tiny windows with it.
    pub max_window_pairs: Option<usize>,
    /// Records each window's output holds in the first batch. `None` (the
    /// default): room for every pair, so the first batch never runs twice.
    /// Later batches size the output from the last one's hits. Tests force
    /// overflows with a tiny value.
    pub initial_capacity: Option<u32>,
    /// At most this many texture rows (of 2,048 texels), below what the
    /// device allows. Tests force the limit errors with a small value.
    pub texture_rows_limit: Option<u32>,
    /// Which of the kernel's kinds of pair run: the adapter's own (the
    /// default), or those of the other kind of adapter.
    pub kinds: KernelKinds,
    /// 2D: every pair with a polygon through the kernel's loop kind
    /// (`general`) instead of the straight-line kinds (`polygons8`,
    /// `polygon_circle8`, `polygons16`, `polygon_circle16`, written for
    /// lavapipe). The same answers; false by default, true when the
    /// environment variable `GPUSAT_POLYGON_LOOPS` is set. For measuring
    /// which a hardware GPU runs faster (`gpusat bench --polygon-loops`).
    pub polygon_loops: bool,
}

/// Which of a kernel's kinds of pair a narrowphase runs. A software adapter
/// (lavapipe) takes kinds of its own for 3D hulls of 9 to 128 vertices
/// (register caches, which llvmpipe keeps in vector registers and a GPU
/// would spill); a hardware GPU takes the texel kinds. The hardware kinds of
/// both dimensions also give a workgroup's reported pairs their slots by a
/// prefix sum over the workgroup, the software kinds by one invocation's
/// loop (barriers are dear on a CPU). Every kind gives the same answers; forcing the other adapter's kinds runs, on any adapter,
/// the kernels another adapter would run (CI runs the hardware kinds on
/// lavapipe this way).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KernelKinds {
    /// The kinds made for the adapter: software kinds on a native
    /// software adapter, hardware kinds elsewhere (in a browser too). `GPUSAT_KERNEL_KINDS=hardware`
    /// (or `software`) in the environment makes the default another.
    #[default]
    Adapter,
    /// The kinds made for hardware GPUs, on any adapter.
    Hardware,
    /// The kinds made for software adapters, on any adapter.
    Software,
}

impl KernelKinds {
    /// The kinds `GPUSAT_KERNEL_KINDS` asks for (`hardware`, `software`,
    /// `adapter`); [`KernelKinds::Adapter`] when it is unset or says
    /// anything else.
    pub fn from_env() -> KernelKinds {
        match std::env::var("GPUSAT_KERNEL_KINDS").as_deref() {
            Ok("hardware") => KernelKinds::Hardware,
            Ok("software") => KernelKinds::Software,
            _ => KernelKinds::Adapter,
        }
    }

    /// Whether a narrowphase on `context` runs the software adapters' kinds:
    /// by default on a native software adapter only (lavapipe), never in a
    /// browser (see [`GpuContext::is_software`] and `tests/web`).
    pub fn software(self, context: &GpuContext) -> bool {
        match self {
            KernelKinds::Adapter => context.is_native_software(),
            KernelKinds::Hardware => false,
            KernelKinds::Software => true,
        }
    }
}

impl Default for GpuOptions {
    fn default() -> GpuOptions {
        GpuOptions {
            workgroup_size: DEFAULT_WORKGROUP_SIZE,
            max_window_pairs: None,
            initial_capacity: None,
            texture_rows_limit: None,
            kinds: KernelKinds::from_env(),
            polygon_loops: std::env::var_os("GPUSAT_POLYGON_LOOPS").is_some(),
        }
    }
}

/// What the last batch did and where its time went.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuStats {
    /// Pairs tested.
    pub pairs: u64,
    /// Pairs reported.
    pub hits: u64,
    /// Windows the batch was split into.
    pub windows: u32,
    /// Windows run again because their output overflowed.
    pub reruns: u32,
    /// 3D: pairs of large hulls whose edge query was deferred to a second
    /// dispatch (their A keeps more edges than their kind caches: 64, or
    /// 32 for hulls of at most 128 vertices on a software adapter;
    /// `shaders/d3/software.wgsl`, "Deferred pairs"), summed over re-runs.
    pub deferred: u64,
    /// Submissions: one per round of windows that fits the device's
    /// buffers, plus one per re-run.
    pub submissions: u32,
    /// Sorting, packing and queueing the uploads on the CPU.
    pub upload: Duration,
    /// Kernel time from timestamp queries, summed over rounds and re-runs;
    /// `None` when the device has no timestamp queries.
    pub kernel: Option<Duration>,
    /// From submitting the work to its results being mapped (transfers,
    /// kernel and the round trip), when gpusat submitted it.
    pub gpu: Duration,
    /// Reading the mapped results and putting them in pair order.
    pub readback: Duration,
    /// The whole call.
    pub total: Duration,
    /// Bytes written to the device.
    pub bytes_uploaded: u64,
    /// Bytes copied back from the device.
    pub bytes_read_back: u64,
}

/// The results of a batch recorded with [`GpuSat::record`], to be
/// collected with [`GpuSat::poll`] or [`GpuSat::wait`].
#[derive(Debug, PartialEq, Eq)]
#[must_use = "the hits of a recorded batch must be collected (poll or wait) or discarded"]
pub struct PendingHits {
    ticket: u64,
}

/// Set by the staging buffer's map callback.
type MapFlag = Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>;

/// A recorded batch whose results are not collected yet.
struct InFlight<H> {
    ticket: u64,
    windows: Vec<Window<H>>,
    slot_order: Vec<u32>,
    margin: f32,
    flags: u32,
    mapped: MapFlag,
    /// Bytes of staging mapped.
    staging_bytes: u64,
    /// When gpusat submitted the work itself (collide, re-runs).
    submitted: Option<Instant>,
}

/// The SAT kernel of dimension `D` with its buffers, built once on a
/// [`GpuContext`]: [`GpuNarrowphase`](super::GpuNarrowphase) (2D) and
/// [`crate::d3::GpuNarrowphase`] (3D) are this type.
pub struct GpuSat<D: Dimension> {
    context: Arc<GpuContext>,
    options: GpuOptions,
    kernel: SatPipelines,
    bind_group: Option<wgpu::BindGroup>,
    params: GrowBuffer,
    /// The dimension's shape and body textures.
    resources: D::Resources,
    pairs: GrowBuffer,
    hits: GrowBuffer,
    counters: GrowBuffer,
    /// The deferred dispatches' workgroup counts, copied from `counters`.
    indirect: GrowBuffer,
    /// The readback buffer; `None` after a batch was abandoned (its old
    /// buffer may yet be mapped by work submitted later), made again when
    /// the next batch is recorded.
    staging: Option<GrowBuffer>,
    timestamps: Option<(wgpu::QuerySet, wgpu::Buffer)>,
    /// Bytes of one window's pairs, and of one window's output, in their
    /// buffers (and the bindings' sizes); they only grow.
    pairs_stride: u64,
    hits_stride: u64,
    classes: BodyClasses,
    /// Scratch reused from call to call.
    scratch: ReadScratch<D::Hit>,
    /// Hits per pair of the last batch (its densest window), for sizing outputs.
    hit_ratio: Option<f64>,
    /// Most bytes one binding may have.
    binding_limit: u64,
    /// Most bytes one buffer may have.
    buffer_limit: u64,
    /// Storage buffers' dynamic offsets are multiples of this.
    storage_alignment: u64,
    /// Most rows a texture may have.
    texture_rows: u32,
    max_window: usize,
    in_flight: Option<InFlight<D::Hit>>,
    stats: GpuStats,
}

impl<D: Dimension> std::fmt::Debug for GpuSat<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuSat")
            .field("kernel", &D::LABEL)
            .field("context", &self.context)
            .field("options", &self.options)
            .field("max_window", &self.max_window)
            .finish()
    }
}

impl<D: Dimension> GpuSat<D> {
    /// Builds the kernel's shader and buffers on `context`; each kind's
    /// pipeline is compiled at the first batch with pairs of that kind.
    pub fn new(context: Arc<GpuContext>, options: GpuOptions) -> Result<GpuSat<D>, GpuError> {
        let limits = context.limits();
        let largest_group = limits
            .max_compute_invocations_per_workgroup
            .min(limits.max_compute_workgroup_size_x)
            .min(MAX_WORKGROUP_SIZE);
        if options.workgroup_size == 0 || options.workgroup_size > largest_group {
            return Err(GpuError::InvalidOption {
                message: format!(
                    "workgroup size {} is not between 1 and {largest_group}",
                    options.workgroup_size
                ),
            });
        }
        // The context checked what every kernel needs; the textures are the
        // dimension's own (2D three, 3D four).
        let textures = D::scene_layout()
            .iter()
            .filter(|entry| matches!(entry.ty, wgpu::BindingType::Texture { .. }))
            .count() as u32;
        if textures > limits.max_sampled_textures_per_shader_stage {
            return Err(GpuError::MissingCapability {
                capability: "sampled textures",
                detail: format!(
                    "{textures} per compute shader needed ({}), {} allowed",
                    D::LABEL,
                    limits.max_sampled_textures_per_shader_stage
                ),
            });
        }
        let kernel = SatPipelines::new::<D>(
            &context,
            options.workgroup_size,
            options.kinds.software(&context),
        )?;
        let buffer_limit = limits.max_buffer_size;
        let binding_limit = limits.max_storage_buffer_binding_size.min(buffer_limit);
        // A window's pairs and its worst-case output must each fit one
        // binding (the pairs, sorted by kind, gain at most a workgroup per kind).
        let padding = (PAIR_KINDS as u64) * u64::from(options.workgroup_size);
        let mut max_window =
            (binding_limit / size_of::<HitRecord>() as u64).saturating_sub(padding) as usize;
        if let Some(forced) = options.max_window_pairs {
            max_window = max_window.min(forced.max(1));
        }
        let storage_alignment = u64::from(limits.min_storage_buffer_offset_alignment).max(16);
        let mut texture_rows = limits.max_texture_dimension_2d;
        if let Some(forced) = options.texture_rows_limit {
            texture_rows = texture_rows.min(forced.max(1));
        }

        use wgpu::BufferUsages as U;
        let device = context.device();
        let timestamps = if context.has_timestamps() {
            let query_set = context.scoped("the timestamp queries", || {
                device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("kernel time"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2,
                })
            })?;
            let resolve =
                GrowBuffer::new(&context, "timestamps", U::QUERY_RESOLVE | U::COPY_SRC, 16)?;
            Some((query_set, resolve.buffer))
        } else {
            None
        };
        let narrowphase = GpuSat {
            kernel,
            bind_group: None,
            params: GrowBuffer::new(
                &context,
                "parameters",
                U::UNIFORM | U::COPY_DST,
                PARAMS_STRIDE * PARAM_SLOTS as u64,
            )?,
            resources: D::resources(&context)?,
            pairs: GrowBuffer::new(&context, "pairs", U::STORAGE | U::COPY_DST, 1 << 16)?,
            hits: GrowBuffer::new(&context, "hit records", U::STORAGE | U::COPY_SRC, 1 << 16)?,
            counters: GrowBuffer::new(
                &context,
                "counters",
                U::STORAGE | U::COPY_SRC | U::COPY_DST,
                256,
            )?,
            indirect: GrowBuffer::new(
                &context,
                "deferred workgroups",
                U::INDIRECT | U::COPY_DST,
                256,
            )?,
            staging: None,
            timestamps,
            pairs_stride: storage_alignment,
            hits_stride: storage_alignment,
            classes: BodyClasses::default(),
            scratch: ReadScratch::default(),
            hit_ratio: None,
            binding_limit,
            buffer_limit,
            storage_alignment,
            texture_rows,
            max_window: max_window.max(1),
            in_flight: None,
            stats: GpuStats::default(),
            context,
            options,
        };
        narrowphase.context.check()?;
        Ok(narrowphase)
    }

    /// The context it runs on.
    pub fn context(&self) -> &Arc<GpuContext> {
        &self.context
    }

    /// The options it was built with.
    pub fn options(&self) -> &GpuOptions {
        &self.options
    }

    /// Compiles the pipeline of every kind this narrowphase's pairs may
    /// take (its adapter's kinds, or those [`GpuOptions::kinds`] and
    /// [`GpuOptions::polygon_loops`] ask for) now, rather than when a batch
    /// first has pairs of that kind: an engine calls this at load time,
    /// since a driver may take seconds a kind.
    pub fn compile_all_kinds(&mut self) -> Result<(), GpuError> {
        let kinds = D::kinds_in_use(self.kind_choice(), self.context.is_native_software());
        self.kernel.prepare_kinds(&self.context, kinds)
    }

    /// The kinds the options say, on this narrowphase's adapter.
    fn kind_choice(&self) -> KindChoice {
        KindChoice {
            software: self.options.kinds.software(&self.context),
            polygon_loops: self.options.polygon_loops,
        }
    }

    /// Every kind's entry point, and how long its pipeline took to create
    /// where it is compiled (a batch with pairs of that kind, or
    /// [`GpuSat::compile_all_kinds`]).
    pub fn compiled_kinds(&self) -> Vec<(&'static str, Option<Duration>)> {
        self.kernel.compiled()
    }

    /// Whether the kernel's software module (3D: `shaders/d3/software.wgsl`,
    /// the kinds written for software adapters) has been created: only
    /// where a pair took one of its kinds, or [`GpuSat::compile_all_kinds`]
    /// compiled them.
    pub fn software_module_created(&self) -> bool {
        self.kernel.software_module_created()
    }

    /// What the last batch did.
    pub fn stats(&self) -> &GpuStats {
        &self.stats
    }

    /// Bytes of device memory held now: the textures, the pairs and output
    /// buffers and their staging copy (all grown to the largest batch seen).
    pub fn device_bytes(&self) -> u64 {
        D::device_bytes(&self.resources)
            + self.params.size
            + self.pairs.size
            + self.hits.size
            + self.counters.size
            + self.indirect.size
            + self.staging.as_ref().map_or(0, |staging| staging.size)
    }

    /// The most pairs one window holds.
    pub fn max_window_pairs(&self) -> usize {
        self.max_window
    }

    /// The most pairs [`record`](Self::record) takes in one batch: as many
    /// windows as the device's buffers hold with room for every pair to be
    /// reported. [`collide`](Self::collide) takes any number, in several
    /// submissions.
    pub fn max_recorded_pairs(&self) -> usize {
        let align = self.storage_alignment;
        let padding = PAIR_KINDS as u64 * u64::from(self.options.workgroup_size);
        let window = self.max_window as u64;
        // What one window takes in each buffer (each on its own below the
        // device's largest buffer; dynamic offsets are 32-bit).
        let per_window = [
            ((window + padding) * 8).next_multiple_of(align),
            record_bytes(self.max_window as u32).next_multiple_of(align),
            PARAMS_STRIDE * PARAM_SLOTS as u64,
            // Staging: the window's output, its counter and deferral words.
            record_bytes(self.max_window as u32)
                + 4
                + if D::DEFERRING_KINDS.is_empty() {
                    0
                } else {
                    4 * DEFERRAL_WORDS
                },
        ];
        let room = self.buffer_limit.min(1 << 32).saturating_sub(1 << 16);
        let windows = per_window
            .iter()
            .map(|&bytes| room / bytes)
            .min()
            .unwrap_or(1)
            .max(1);
        (windows as usize).saturating_mul(self.max_window)
    }

    /// Runs the SAT kernel on every pair of the batch and waits for the
    /// result: the same as the CPU reference ([`crate::d2::collide_cpu`],
    /// [`crate::d3::collide_cpu`]), in pair order. In a browser, which
    /// cannot wait, [`GpuError::Blocking`]: use [`record`](Self::record) and
    /// [`poll`](Self::poll) there.
    pub fn collide(&mut self, batch: &D::Batch<'_>) -> Result<Vec<D::Hit>, GpuError> {
        if cfg!(target_arch = "wasm32") {
            return Err(GpuError::Blocking {
                what: "GpuNarrowphase::collide",
            });
        }
        let start = Instant::now();
        self.begin(batch)?;
        let result = self.collide_rounds(batch);
        let hits = self.or_abandon(result)?;
        self.finish_stats(&hits, start);
        Ok(hits)
    }

    /// The batch in rounds that each fit the device's buffers.
    fn collide_rounds(&mut self, batch: &D::Batch<'_>) -> Result<Vec<D::Hit>, GpuError> {
        let count = D::pairs(batch).len();
        let mut hits = Vec::new();
        let per_round = self.max_recorded_pairs();
        let mut round_start = 0;
        while round_start < count {
            let round = round_start..(round_start + per_round).min(count);
            let mut encoder = self
                .context
                .device()
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("sat") });
            let ticket = self.record_round(batch, round.clone(), round_start == 0, &mut encoder)?;
            self.submit(encoder);
            let mut round_hits = self.wait_for(ticket)?;
            if hits.is_empty() {
                hits = round_hits;
            } else {
                hits.append(&mut round_hits);
            }
            round_start = round.end;
        }
        Ok(hits)
    }

    /// Records the batch into `encoder`: its uploads go through the queue
    /// (so they happen when `encoder` is submitted, before its work), and the
    /// kernel and the copies back into `encoder`. Submit `encoder` on this
    /// context's queue, then collect the hits with [`poll`](Self::poll) (never
    /// waits) or [`wait`](Self::wait). One batch at a time: recording another
    /// before collecting this one is [`GpuError::Busy`]. A batch larger than
    /// [`max_recorded_pairs`](Self::max_recorded_pairs) is an error (use
    /// [`collide`](Self::collide), which runs it in several submissions).
    pub fn record(
        &mut self,
        batch: &D::Batch<'_>,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<PendingHits, GpuError> {
        self.begin(batch)?;
        let pairs = D::pairs(batch).len();
        let most = self.max_recorded_pairs();
        if pairs > most {
            return Err(too_large(
                &format!("outputs of {pairs} pairs (at most {most} in one recording)"),
                record_bytes(pairs.min(u32::MAX as usize) as u32),
                self.buffer_limit,
                "max_buffer_size",
            ));
        }
        let ticket = self.record_round(batch, 0..pairs, true, encoder)?;
        Ok(PendingHits { ticket })
    }

    /// [`record`](Self::record) into an encoder of the narrowphase's own,
    /// submitted at once, without waiting: collect the hits with
    /// [`poll`](Self::poll). The backends' `start` (and so a world's
    /// `begin_step`) runs a GPU batch this way.
    pub fn start(&mut self, batch: &D::Batch<'_>) -> Result<PendingHits, GpuError> {
        let mut encoder = self
            .context
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("sat") });
        let pending = self.record(batch, &mut encoder)?;
        self.submit(encoder);
        Ok(pending)
    }

    /// The hits of a recorded batch if its work is done, in pair order;
    /// `None` while the GPU is still at it (call again later). Never waits.
    /// A window whose output overflowed is run again here (gpusat submits
    /// that work itself), and the hits come a call or two later.
    pub fn poll(&mut self, pending: &PendingHits) -> Result<Option<Vec<D::Hit>>, GpuError> {
        self.check_ticket(pending.ticket)?;
        let start = Instant::now();
        let polled = self.context.poll().and_then(|()| self.try_finish());
        let done = self.or_abandon(polled)?;
        if let Some(hits) = &done {
            self.finish_stats(hits, start);
        }
        Ok(done)
    }

    /// The hits of a recorded batch, in pair order, waiting for the GPU if
    /// need be. The encoder it was recorded into must have been submitted
    /// (else [`GpuError::NotSubmitted`]).
    pub fn wait(&mut self, pending: PendingHits) -> Result<Vec<D::Hit>, GpuError> {
        self.check_ticket(pending.ticket)?;
        let start = Instant::now();
        let waited = self.wait_for(pending.ticket);
        let hits = self.or_abandon(waited)?;
        self.finish_stats(&hits, start);
        Ok(hits)
    }

    /// Forgets a recorded batch without collecting it (say, when its encoder
    /// was dropped instead of submitted), so that another can be recorded.
    pub fn discard(&mut self, pending: PendingHits) -> Result<(), GpuError> {
        self.check_ticket(pending.ticket)?;
        self.abandon();
        Ok(())
    }

    /// Drops the batch in flight, if any. Its staging buffer may still be
    /// mapped later by work submitted after this (a caller's encoder), so it
    /// is let go and a fresh one is made for the next batch.
    fn abandon(&mut self) {
        if self.in_flight.take().is_some() {
            self.staging = None;
        }
    }

    /// `result`, after abandoning the batch in flight if it is an error:
    /// a failed batch never leaves the narrowphase busy.
    fn or_abandon<T>(&mut self, result: Result<T, GpuError>) -> Result<T, GpuError> {
        if result.is_err() {
            self.abandon();
        }
        result
    }

    fn check_ticket(&self, ticket: u64) -> Result<(), GpuError> {
        match &self.in_flight {
            Some(in_flight) if in_flight.ticket == ticket => Ok(()),
            _ => Err(GpuError::NotPending),
        }
    }

    /// The checks and resets at the start of a batch.
    fn begin(&mut self, batch: &D::Batch<'_>) -> Result<(), GpuError> {
        self.context.check()?;
        D::check(batch)?;
        if self.in_flight.is_some() {
            return Err(GpuError::Busy);
        }
        self.stats = GpuStats {
            pairs: D::pairs(batch).len() as u64,
            ..GpuStats::default()
        };
        Ok(())
    }

    fn finish_stats(&mut self, hits: &[D::Hit], start: Instant) {
        self.stats.hits = hits.len() as u64;
        self.stats.total += start.elapsed();
    }

    fn submit(&mut self, encoder: wgpu::CommandEncoder) {
        self.context.queue().submit([encoder.finish()]);
        self.stats.submissions += 1;
        if let Some(in_flight) = self.in_flight.as_mut() {
            in_flight.submitted = Some(Instant::now());
        }
    }

    /// Waits until the batch `ticket` is read back, re-runs included.
    fn wait_for(&mut self, ticket: u64) -> Result<Vec<D::Hit>, GpuError> {
        loop {
            self.check_ticket(ticket)?;
            self.context.wait(None)?;
            let is_mapped = |narrowphase: &Self| {
                narrowphase
                    .in_flight
                    .as_ref()
                    .is_some_and(|in_flight| flag(&in_flight.mapped).is_some())
            };
            let mut mapped = is_mapped(self);
            // On a device shared between threads, another thread's poll may
            // have seen the work finish and not yet run the mapping's
            // callback when this wait returns: poll until it has run (a
            // bounded number of times, as the frame's readback does).
            for _ in 0..10_000 {
                if mapped {
                    break;
                }
                std::thread::yield_now();
                self.context.wait(None)?;
                mapped = is_mapped(self);
            }
            if !mapped {
                // Everything submitted is done, and still no results.
                self.abandon();
                return Err(GpuError::NotSubmitted);
            }
            if let Some(hits) = self.try_finish()? {
                return Ok(hits);
            }
        }
    }

    /// Uploads the shapes (when changed) and the bodies, plans the windows of
    /// `range` (of the batch's pairs), uploads them and records the work.
    fn record_round(
        &mut self,
        batch: &D::Batch<'_>,
        range: Range<usize>,
        upload_bodies: bool,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<u64, GpuError> {
        let start = Instant::now();
        let flags = D::flags(batch);
        if upload_bodies {
            let choice = self.kind_choice();
            let upload = D::upload(
                &mut self.resources,
                &self.context,
                batch,
                (flags, self.texture_rows),
                choice,
                &mut self.classes,
            )?;
            if upload.grew {
                self.bind_group = None;
            }
            self.stats.bytes_uploaded += upload.bytes;
        }
        let (hit_ratio, initial) = (self.hit_ratio, self.options.initial_capacity);
        let plan = plan(
            &D::pairs(batch)[range.clone()],
            range.start,
            self.max_window,
            (&self.classes, self.options.workgroup_size),
            |pairs| first_capacity(pairs, hit_ratio, initial),
        );
        let ticket = next_ticket();
        let mut in_flight = InFlight {
            ticket,
            windows: plan.windows,
            slot_order: plan.slot_order,
            margin: D::margin(batch),
            flags,
            mapped: Arc::new(Mutex::new(None)),
            staging_bytes: 0,
            submitted: None,
        };
        if in_flight.windows.is_empty() {
            // Nothing to run: already done.
            *in_flight.mapped.lock().map_err(|_| poisoned())? = Some(Ok(()));
            self.in_flight = Some(in_flight);
            return Ok(ticket);
        }
        self.upload_pairs(batch, &in_flight.windows, &plan.staged)?;
        self.stats.windows += in_flight.windows.len() as u32;
        // Stored only once recorded: a batch that failed is not in flight.
        self.encode_windows(&mut in_flight, encoder)?;
        self.in_flight = Some(in_flight);
        self.stats.upload += start.elapsed();
        Ok(ticket)
    }

    /// Writes each window's pairs at its offset: straight from the batch
    /// when they kept their order, else sorted by kind.
    fn upload_pairs(
        &mut self,
        batch: &D::Batch<'_>,
        windows: &[Window<D::Hit>],
        staged: &[Vec<crate::core::pair::Pair>],
    ) -> Result<(), GpuError> {
        let slots = windows.iter().map(|window| window.ranges.slots).max();
        let stride = (u64::from(slots.unwrap_or(0)) * 8).next_multiple_of(self.storage_alignment);
        if stride > self.pairs_stride {
            self.pairs_stride = stride;
            self.bind_group = None;
        }
        let needed = self.pairs_stride * windows.len() as u64;
        let limit = (self.buffer_limit, "max_buffer_size");
        if self.pairs.ensure(&self.context, needed, limit)? {
            self.bind_group = None;
        }
        for (index, (window, staged)) in windows.iter().zip(staged).enumerate() {
            let bytes: &[u8] = if window.ranges.in_order {
                let first = window.base as usize;
                bytemuck::cast_slice(&D::pairs(batch)[first..first + window.ranges.slots as usize])
            } else {
                bytemuck::cast_slice(staged)
            };
            if !bytes.is_empty() {
                let offset = index as u64 * self.pairs_stride;
                self.context
                    .queue()
                    .write_buffer(&self.pairs.buffer, offset, bytes);
            }
            self.stats.bytes_uploaded += bytes.len() as u64;
        }
        Ok(())
    }

    /// Records the work of the windows not read back yet into `encoder`,
    /// with the staging buffer mapped on submission.
    fn encode_pending(&mut self, encoder: &mut wgpu::CommandEncoder) -> Result<(), GpuError> {
        let Some(mut in_flight) = self.in_flight.take() else {
            return Ok(());
        };
        let result = self.encode_windows(&mut in_flight, encoder);
        self.in_flight = Some(in_flight);
        result
    }

    fn encode_windows(
        &mut self,
        in_flight: &mut InFlight<D::Hit>,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), GpuError> {
        let context = self.context.clone();
        let windows = in_flight.windows.len() as u64;
        // Outputs: one stride per window, as large as the largest pending one.
        let largest = in_flight
            .windows
            .iter()
            .filter(|window| window.hits.is_none())
            .map(|window| window.capacity)
            .max()
            .unwrap_or(1);
        let stride = record_bytes(largest).next_multiple_of(self.storage_alignment);
        if stride > self.hits_stride {
            self.hits_stride = stride;
            self.bind_group = None;
        }
        let recording = layout(
            &mut in_flight.windows,
            &LayoutInput {
                pairs_stride: self.pairs_stride,
                hits_stride: self.hits_stride,
                margin: in_flight.margin,
                flags: in_flight.flags,
                workgroup_size: self.options.workgroup_size,
                max_groups: context.limits().max_compute_workgroups_per_dimension,
                deferring_kinds: D::DEFERRING_KINDS,
            },
        )?;
        let limit = (self.buffer_limit, "max_buffer_size");
        let mut grew = self
            .hits
            .ensure(&context, self.hits_stride * windows, limit)?;
        grew |= self
            .counters
            .ensure(&context, recording.counter_bytes, limit)?;
        grew |= self
            .params
            .ensure(&context, recording.params.len() as u64, limit)?;
        // Not bound: only a dispatch's size is read from it.
        self.indirect
            .ensure(&context, recording.indirect_bytes.max(16), limit)?;
        if grew {
            self.bind_group = None;
        }
        // Not mapped here: every batch unmaps it before another is recorded,
        // and an abandoned batch's buffer is let go.
        let staging = match self.staging.take() {
            Some(mut staging) => {
                staging.ensure(&context, recording.staging_bytes, limit)?;
                staging
            }
            None => GrowBuffer::new(
                &context,
                "hit readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                recording.staging_bytes,
            )?,
        };
        let staging = self.staging.insert(staging);
        context
            .queue()
            .write_buffer(&self.params.buffer, 0, &recording.params);
        let staging_buffer = staging.buffer.clone();
        let bind_group = self.bind_group()?;
        self.kernel.prepare(&context, &recording.dispatches)?;
        self.kernel.encode(
            encoder,
            &bind_group,
            &recording.dispatches,
            (&self.counters.buffer, recording.counter_bytes),
            (&self.indirect.buffer, &recording.indirect_copies),
            self.timestamps.as_ref(),
            (&self.hits.buffer, &recording.copies),
            (&staging_buffer, recording.timestamp_offset),
        )?;
        let mapped = Arc::new(Mutex::new(None));
        let sink = mapped.clone();
        encoder.map_buffer_on_submit(
            &staging_buffer,
            wgpu::MapMode::Read,
            0..recording.staging_bytes,
            move |result| {
                if let Ok(mut flag) = sink.lock() {
                    *flag = Some(result);
                }
            },
        );
        in_flight.mapped = mapped;
        in_flight.staging_bytes = recording.staging_bytes;
        in_flight.submitted = None;
        self.stats.bytes_read_back += recording.staging_bytes;
        Ok(())
    }

    /// Reads the mapped staging buffer: every window that fit is put in
    /// pair order; the others get room and are recorded and submitted again.
    /// Returns the batch's hits once every window is in.
    fn try_finish(&mut self) -> Result<Option<Vec<D::Hit>>, GpuError> {
        let Some(in_flight) = self.in_flight.as_mut() else {
            return Err(GpuError::NotPending);
        };
        match flag(&in_flight.mapped) {
            None => return Ok(None),
            Some(Err(err)) => {
                self.abandon();
                return Err(GpuError::Readback {
                    message: format!("mapping the staging buffer failed: {err}"),
                });
            }
            Some(Ok(())) => {}
        }
        if let Some(submitted) = in_flight.submitted.take() {
            self.stats.gpu += submitted.elapsed();
        }
        let start = Instant::now();
        let mut overflowed = 0;
        if in_flight.staging_bytes > 0 {
            let Some(staging) = self.staging.as_ref() else {
                return Err(GpuError::Readback {
                    message: "the staging buffer is gone".to_string(),
                });
            };
            let slice = staging.buffer.slice(0..in_flight.staging_bytes);
            let view = slice.get_mapped_range().map_err(|err| GpuError::Readback {
                message: format!("the mapped staging buffer cannot be read: {err}"),
            })?;
            let readout = read_staging::<D>(
                &view,
                &mut in_flight.windows,
                (
                    &in_flight.slot_order,
                    self.options.workgroup_size,
                    self.timestamps.is_some(),
                ),
                &mut self.scratch,
            );
            drop(view);
            staging.buffer.unmap();
            // Mapped no more: a re-run maps it again on its own submission.
            in_flight.mapped = Arc::new(Mutex::new(None));
            if let Some(ticks) = readout.kernel_ticks {
                let period = f64::from(self.context.queue().get_timestamp_period());
                *self.stats.kernel.get_or_insert(Duration::ZERO) +=
                    Duration::from_nanos((ticks as f64 * period) as u64);
            }
            overflowed = readout.overflowed;
            self.stats.deferred += readout.deferred;
        }
        self.stats.readback += start.elapsed();
        if overflowed > 0 {
            self.stats.reruns += overflowed;
            let mut encoder =
                self.context
                    .device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("sat re-run"),
                    });
            self.encode_pending(&mut encoder)?;
            self.submit(encoder);
            return Ok(None);
        }
        let Some(in_flight) = self.in_flight.take() else {
            return Err(GpuError::NotPending);
        };
        if in_flight.windows.is_empty() {
            return Ok(Some(Vec::new()));
        }
        self.hit_ratio = Some(densest_ratio(&in_flight.windows));
        let mut hits = Vec::new();
        for window in in_flight.windows {
            let window_hits = window.hits.unwrap_or_default();
            if hits.is_empty() {
                hits = window_hits;
            } else {
                hits.extend_from_slice(&window_hits);
            }
        }
        Ok(Some(hits))
    }

    fn bind_group(&mut self) -> Result<wgpu::BindGroup, GpuError> {
        if let Some(bind_group) = &self.bind_group {
            return Ok(bind_group.clone());
        }
        let bind_group = self.kernel.bind_group(
            &self.context,
            &Bindings {
                params: &self.params.buffer,
                scene: D::scene_bindings(&self.resources),
                pairs: &self.pairs.buffer,
                pairs_stride: self.pairs_stride.min(self.binding_limit),
                hits: &self.hits.buffer,
                hits_stride: self.hits_stride.min(self.binding_limit),
                counters: &self.counters.buffer,
            },
        )?;
        self.bind_group = Some(bind_group.clone());
        Ok(bind_group)
    }
}

/// What the map callback has said so far.
fn flag(mapped: &MapFlag) -> Option<Result<(), wgpu::BufferAsyncError>> {
    mapped.lock().ok().and_then(|flag| flag.clone())
}

/// Tickets unique across every narrowphase, so that one never accepts
/// another's [`PendingHits`].
fn next_ticket() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

fn poisoned() -> GpuError {
    GpuError::Readback {
        message: "the map flag is poisoned".to_string(),
    }
}
