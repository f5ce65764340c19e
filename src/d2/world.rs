//! The frame pipeline: a [`World`] of bodies stepped through time.
//!
//! One [`World::step`]:
//!
//! ```text
//! integrate velocities (gravity)
//! broadphase: candidate pairs from boxes grown by the speculative margin
//! narrowphase on the chosen backend (CPU, CPU parallel, GPU), margin included
//! contact manifolds (clipping), from the backend's features only
//! impulse solve, warm started from last frame's matching contact ids,
//!     with a position bias (Baumgarte) that pushes overlaps apart
//! integrate positions (about each body's centre of mass)
//! relax: the same impulses without the bias, so the push does not linger
//!     in the velocities
//! positional correction of what overlap remains beyond the slop
//! ```
//!
//! The order of the stages and their timing are written once, for both
//! dimensions (`core::frame`: `step_frame` over the `FrameStages` a world
//! implements; the 3D world is [`crate::d3::World`]).
//!
//! With [`World::use_gpu_frame`] the broadphase, the narrowphase and the
//! manifolds run as one GPU-resident frame ([`crate::gpu::GpuFrame`]): the
//! host writes the bodies, the device finds, tests and clips the pairs, and
//! the hits and manifolds come back in one map for the CPU solver.
//!
//! The time of every stage is measured each frame ([`FrameStats`]); the GPU
//! backend reuses its buffers from frame to frame. With
//! [`World::set_check`], every frame's narrowphase is also run on the CPU
//! reference and compared.

use crate::core::clock::Instant;

use glam::Vec2;

use crate::core::check::Agreement;
use crate::core::error::Error;
use crate::core::frame::{
    FrameStages, FrameStats, Frames, RunStats, StageTimes, begin_frame, poll_frame, step_frame,
};
#[cfg(feature = "gpu")]
use crate::core::pair::Pair;
use crate::core::pair::PairFilter;
use crate::core::recycle::{Entry, PairCache, Split, check_tolerance, merge, split};
use crate::core::solver::SolverOptions;
use crate::d2::backend::Narrowphase;
use crate::d2::batch::Batch;
use crate::d2::body::Body;
use crate::d2::broadphase::find_pairs;
use crate::d2::manifold::Manifold;
use crate::d2::math::{Rot, rotate};
use crate::d2::narrowphase::compare_hits;
use crate::d2::narrowphase::{collide_cpu_best, manifolds_best};
use crate::d2::recycle::Recycle2;
use crate::d2::separation::Overlap;
use crate::d2::shape::ShapeSet;
use crate::d2::solver::ContactSolver;
use crate::d2::types::Hit;

/// How a world behaves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldOptions {
    /// Acceleration of every dynamic body.
    pub gravity: Vec2,
    /// Speculative margin: pairs this far apart already get contacts.
    pub margin: f32,
    /// The impulse solver's options.
    pub solver: SolverOptions,
    /// Overlap the positional correction leaves alone.
    pub slop: f32,
    /// Fraction of the overlap beyond the slop corrected per frame.
    pub correction: f32,
    /// Gauss–Seidel passes of the positional correction.
    pub correction_passes: usize,
    /// No body moves farther than this in one step.
    pub max_translation: f32,
    /// Contact recycling, **not exact**: a pair whose body B moved at most
    /// this length relative to body A (no point of B within its bounding
    /// radius farther) since its hit and manifold were computed gets them
    /// again, carried along by A, instead of a new narrowphase; a
    /// recycled depth is at most the tolerance off
    /// ([`FrameStats::recycled`](crate::FrameStats::recycled) counts the
    /// pairs). It must be below the margin: a pair left unreported stays so
    /// until it moves by the tolerance.
    /// Not with a GPU-resident frame, whose pairs stay on the device.
    /// `None` (the default): every pair through the narrowphase every
    /// frame, every answer exact.
    pub recycle: Option<f32>,
}

impl Default for WorldOptions {
    fn default() -> WorldOptions {
        WorldOptions {
            gravity: Vec2::new(0.0, -10.0),
            margin: 0.02,
            solver: SolverOptions::default(),
            slop: 0.005,
            correction: 0.2,
            correction_passes: 4,
            max_translation: 4.0,
            recycle: None,
        }
    }
}

/// Bodies, their shapes, and everything that steps them.
pub struct World {
    shapes: ShapeSet,
    bodies: Vec<Body>,
    narrowphase: Narrowphase,
    solver: ContactSolver,
    options: WorldOptions,
    frames: Frames<Hit, Manifold>,
    /// Last frame's answers, by pair, when recycling.
    recycle: PairCache<Entry<Recycle2>>,
    /// Each shape's bounding radius about its origin, for recycling.
    reach: Vec<f32>,
    /// A started frame's split, while its fresh pairs are on the GPU.
    split: Option<Split<Recycle2>>,
    /// When a started resident frame began ([`World::begin_step`]).
    #[cfg(feature = "gpu")]
    narrowphase_started: Option<Instant>,
    /// The GPU-resident frame, when the world runs its pairs on one.
    #[cfg(feature = "gpu")]
    resident: Option<Box<crate::gpu::GpuFrame>>,
}

impl World {
    /// A world of validated bodies over `shapes`.
    pub fn new(
        shapes: ShapeSet,
        bodies: Vec<Body>,
        narrowphase: Narrowphase,
        options: WorldOptions,
    ) -> Result<World, Error> {
        Batch::new(&shapes, &bodies, &[], options.margin)?;
        check_tolerance(options.recycle, options.margin)?;
        let reach = shapes
            .shapes()
            .iter()
            .map(|s| s.bounding_radius())
            .collect();
        Ok(World {
            shapes,
            bodies,
            narrowphase,
            solver: ContactSolver::new(),
            options,
            frames: Frames::default(),
            recycle: PairCache::default(),
            reach,
            split: None,
            #[cfg(feature = "gpu")]
            narrowphase_started: None,
            #[cfg(feature = "gpu")]
            resident: None,
        })
    }

    /// Runs each frame's broadphase, narrowphase and manifolds as one
    /// GPU-resident frame on `context` ([`crate::gpu::GpuFrame`]): per frame
    /// the host writes the bodies' transforms, and one map brings back the
    /// hits and their manifolds, which the CPU solver consumes. The hits'
    /// `pair` is then the hit's own index (the candidate pairs stay on the
    /// device). With [`World::set_check`] the CPU broadphase and reference
    /// narrowphase run beside it and every frame is compared.
    #[cfg(feature = "gpu")]
    pub fn use_gpu_frame(
        &mut self,
        context: std::sync::Arc<crate::gpu::GpuContext>,
    ) -> Result<(), Error> {
        if self.options.recycle.is_some() {
            return Err(Error::Argument {
                name: "the GPU-resident frame",
                message: "keeps the candidate pairs on the device, where contact recycling \
                          cannot match them: turn WorldOptions::recycle off to use it"
                    .to_string(),
            });
        }
        let options = crate::gpu::FrameOptions {
            margin: self.options.margin,
            skip_static_pairs: true,
            ..crate::gpu::FrameOptions::default()
        };
        let mut frame = crate::gpu::GpuFrame::new(context, &self.shapes, options)?;
        let records: Vec<crate::gpu::FrameBody> = self
            .bodies
            .iter()
            .map(crate::gpu::FrameBody::from_body)
            .collect();
        frame.set_bodies(&self.shapes, &records)?;
        self.resident = Some(Box::new(frame));
        Ok(())
    }

    /// The GPU-resident frame, when the world runs on one.
    #[cfg(feature = "gpu")]
    pub fn gpu_frame(&self) -> Option<&crate::gpu::GpuFrame> {
        self.resident.as_deref()
    }

    /// The shape library.
    pub fn shapes(&self) -> &ShapeSet {
        &self.shapes
    }

    /// The bodies, as the last step left them.
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// How the world behaves.
    pub fn options(&self) -> &WorldOptions {
        &self.options
    }

    /// The narrowphase backend.
    pub fn narrowphase(&self) -> &Narrowphase {
        &self.narrowphase
    }

    /// The last frame's reported pairs and their manifolds.
    pub fn hits(&self) -> &[Hit] {
        &self.frames.hits
    }

    /// The last frame's contact manifolds.
    pub fn manifolds(&self) -> &[Manifold] {
        &self.frames.manifolds
    }

    /// The last frame's statistics.
    pub fn frame_stats(&self) -> &FrameStats {
        &self.frames.frame
    }

    /// Totals over every frame so far.
    pub fn run_stats(&self) -> &RunStats {
        &self.frames.totals
    }

    /// Runs the CPU reference beside the narrowphase every frame and keeps
    /// the comparison ([`World::check`]).
    pub fn set_check(&mut self, on: bool) {
        self.frames.set_check(on);
    }

    /// The accumulated comparison with the CPU reference, when checking.
    pub fn check(&self) -> Option<&Agreement> {
        self.frames.check.as_ref()
    }

    /// Kinetic energy of the dynamic bodies (linear and rotational).
    pub fn kinetic_energy(&self) -> f64 {
        self.bodies
            .iter()
            .filter(|b| !b.is_static())
            .map(|b| {
                let mass = 1.0 / b.inv_mass as f64;
                let inertia = self
                    .shapes
                    .get(b.shape)
                    .map_or(0.0, |s| s.unit_inertia() as f64)
                    * mass;
                0.5 * mass * b.velocity.length_squared() as f64
                    + 0.5 * inertia * (b.angular_velocity as f64).powi(2)
            })
            .sum()
    }

    /// Advances the world by `dt` seconds.
    pub fn step(&mut self, dt: f32) -> Result<&FrameStats, Error> {
        step_frame(self, dt)?;
        Ok(&self.frames.frame)
    }

    /// [`step`](Self::step) without waiting for a GPU narrowphase: the
    /// frame up to its narrowphase, which is started
    /// ([`Narrowphase::start`]). The frame's statistics when it is done
    /// already (a CPU narrowphase); `None` when its narrowphase runs on the
    /// GPU: then call [`poll_step`](Self::poll_step) until they come. The
    /// same frames as `step`, bit for bit. A page's way to step a world on
    /// WebGPU (`docs/web.md`), where `step` would wait.
    pub fn begin_step(&mut self, dt: f32) -> Result<Option<&FrameStats>, Error> {
        let done = begin_frame(self, dt)?;
        Ok(done.then_some(&self.frames.frame))
    }

    /// The frame [`begin_step`](Self::begin_step) started, finished once
    /// the GPU's hits are in: its statistics, or `None` while the GPU is at
    /// it. Never waits. An error drops the frame.
    pub fn poll_step(&mut self) -> Result<Option<&FrameStats>, Error> {
        let done = poll_frame(self)?;
        Ok(done.then_some(&self.frames.frame))
    }

    /// The broadphase, narrowphase and manifolds of a frame on the
    /// GPU-resident frame, and the check against the CPU when on.
    #[cfg(feature = "gpu")]
    fn resident_frame(&mut self, times: &mut StageTimes) -> Result<(), Error> {
        let stage = Instant::now();
        let Some(frame) = self.write_resident_bodies()? else {
            return Ok(());
        };
        let results = frame.step_with(resident_results)?;
        times.kernel = stage.elapsed();
        self.absorb_resident(results)
    }

    /// [`resident_frame`](Self::resident_frame) without waiting: the bodies
    /// written and the frame started ([`crate::gpu::GpuFrame::begin_step`]).
    #[cfg(feature = "gpu")]
    fn start_resident_frame(&mut self) -> Result<(), Error> {
        let started = Instant::now();
        let Some(frame) = self.write_resident_bodies()? else {
            return Ok(());
        };
        frame.begin_step()?;
        self.narrowphase_started = Some(started);
        Ok(())
    }

    /// The bodies written to the resident frame, which is returned (`None`
    /// without one).
    #[cfg(feature = "gpu")]
    fn write_resident_bodies(&mut self) -> Result<Option<&mut crate::gpu::GpuFrame>, Error> {
        let Some(frame) = self.resident.as_deref_mut() else {
            return Ok(None);
        };
        let records: Vec<crate::gpu::FrameBody> = self
            .bodies
            .iter()
            .map(crate::gpu::FrameBody::from_body)
            .collect();
        frame.set_bodies(&self.shapes, &records)?;
        Ok(Some(frame))
    }

    /// The started resident frame's results if they are in: true once
    /// absorbed.
    #[cfg(feature = "gpu")]
    fn poll_resident_frame(&mut self, times: &mut StageTimes) -> Result<bool, Error> {
        let Some(frame) = self.resident.as_mut() else {
            return Ok(true);
        };
        let Some(results) = frame.poll_step_with(resident_results)? else {
            return Ok(false);
        };
        if let Some(started) = self.narrowphase_started.take() {
            times.kernel = started.elapsed();
        }
        self.absorb_resident(results)?;
        Ok(true)
    }

    /// A resident frame's pairs, hits and manifolds, checked against the
    /// CPU when the check is on, kept as the frame's.
    #[cfg(feature = "gpu")]
    fn absorb_resident(
        &mut self,
        (pairs, hits, manifolds): (usize, Vec<Hit>, Vec<Manifold>),
    ) -> Result<(), Error> {
        if let Some(check) = self.frames.check.as_mut() {
            let pairs_cpu = find_pairs(
                &self.shapes,
                &self.bodies,
                self.options.margin,
                PairFilter {
                    skip_static_pairs: true,
                },
            );
            let batch = Batch::new(&self.shapes, &self.bodies, &pairs_cpu, self.options.margin)?;
            let reference = collide_cpu_best(&batch);
            let mut missing = Vec::new();
            let candidate: Vec<crate::d2::types::SatHit> = hits
                .iter()
                .filter_map(|hit| {
                    match pairs_cpu.binary_search(&Pair::new(hit.a, hit.b)) {
                        Ok(pair) => Some(crate::d2::types::SatHit {
                            pair: pair as u32,
                            axis: hit.axis,
                            depth: hit.depth,
                        }),
                        Err(_) => {
                            missing.push(format!(
                                "bodies {} and {}: reported by the GPU frame, not a CPU candidate pair",
                                hit.a, hit.b
                            ));
                            None
                        }
                    }
                })
                .collect();
            let mut agreement = compare_hits(&batch, &reference, &candidate);
            if pairs != pairs_cpu.len() {
                agreement.disagreements.push(format!(
                    "frame {}: the GPU broadphase found {pairs} candidate pairs, the CPU's {}",
                    self.frames.frame.frame + 1,
                    pairs_cpu.len()
                ));
            }
            agreement.disagreements.extend(missing);
            check.absorb(agreement);
        }
        self.frames.pair_count = Some(pairs);
        self.frames.hits = hits;
        self.frames.manifolds = manifolds;
        Ok(())
    }

    fn solver_options(&self) -> SolverOptions {
        SolverOptions {
            slop: self.options.slop,
            ..self.options.solver
        }
    }
}

/// A resident frame's view as the world keeps it: the candidate pairs'
/// count, the hits (each its own pair index) and their manifolds.
#[cfg(feature = "gpu")]
fn resident_results(view: crate::gpu::FrameView<'_>) -> (usize, Vec<Hit>, Vec<Manifold>) {
    use crate::d2::types::Axis;
    let mut hits = Vec::with_capacity(view.hits.len());
    let mut manifolds = Vec::with_capacity(view.hits.len());
    for (index, (hit, manifold)) in view.hits.iter().zip(view.manifolds).enumerate() {
        let manifold = manifold.to_manifold(index as u32, hit.a, hit.b);
        hits.push(Hit {
            pair: index as u32,
            a: hit.a,
            b: hit.b,
            normal: manifold.normal,
            depth: hit.depth,
            axis: Axis::unpack(hit.axis),
        });
        manifolds.push(manifold);
    }
    (view.pairs as usize, hits, manifolds)
}

/// The narrowphase's end, once its hits are in: the GPU's times, the check
/// against the CPU reference, the hits completed, and their manifolds. Over
/// the fields it needs, so that the batch the hits came from (which borrows
/// the world's bodies and pairs) serves here too.
fn narrowphase_results(
    batch: &Batch,
    sat_hits: &[crate::d2::types::SatHit],
    narrowphase: &Narrowphase,
    check: &mut Option<Agreement>,
    times: &mut StageTimes,
) -> (Vec<Hit>, Vec<Manifold>) {
    #[cfg(feature = "gpu")]
    if let Some(gpu) = narrowphase.gpu_stats() {
        times.upload = gpu.upload;
        times.readback = gpu.readback;
        times.kernel = gpu.kernel.unwrap_or(gpu.gpu);
    }
    #[cfg(not(feature = "gpu"))]
    let _ = narrowphase;
    if let Some(check) = check.as_mut() {
        let reference = collide_cpu_best(batch);
        check.absorb(compare_hits(batch, &reference, sat_hits));
    }
    let hits = batch.hits(sat_hits);
    let stage = Instant::now();
    let manifolds = manifolds_best(batch, &hits);
    times.manifolds = stage.elapsed();
    (hits, manifolds)
}

impl World {
    /// The narrowphase with contact recycling: the pairs that moved at most
    /// the tolerance since their answer keep it, the others go through the
    /// backend (and the check) as a batch of their own, started without
    /// waiting for a GPU when `without_waiting`. Returns true when the frame
    /// is done, false when its fresh pairs are on the GPU (for
    /// [`poll_recycled`](Self::poll_recycled)).
    fn start_recycled(
        &mut self,
        tolerance: f32,
        without_waiting: bool,
        times: &mut StageTimes,
    ) -> Result<bool, Error> {
        let stage = Instant::now();
        let all = Batch::new(
            &self.shapes,
            &self.bodies,
            &self.frames.pairs,
            self.options.margin,
        )?;
        let (reach, bodies) = (&self.reach, &self.bodies);
        let split = split::<Recycle2>(
            (all.transforms(), &self.frames.pairs),
            |pair| reach[bodies[pair.b as usize].shape as usize],
            tolerance,
            &self.recycle,
        );
        let fresh = all.with_pairs(split.fresh_pairs())?;
        let sat_hits = if without_waiting {
            self.narrowphase.start(&fresh)?
        } else {
            Some(self.narrowphase.collide(&fresh)?)
        };
        times.kernel = stage.elapsed();
        let Some(sat_hits) = sat_hits else {
            self.split = Some(split);
            return Ok(false);
        };
        (
            self.frames.hits,
            self.frames.manifolds,
            self.frames.recycled,
        ) = finish_recycled(
            (&all, &fresh),
            &split,
            &sat_hits,
            (&self.narrowphase, &mut self.frames.check, &mut self.recycle),
            times,
        );
        Ok(true)
    }

    /// A started recycling frame's end (its `split`), once the GPU's results
    /// for its fresh pairs are in: true when done, false (the split kept)
    /// while the GPU is at it.
    fn poll_recycled(
        &mut self,
        split: Split<Recycle2>,
        times: &mut StageTimes,
    ) -> Result<bool, Error> {
        let Some(sat_hits) = self.narrowphase.poll()? else {
            self.split = Some(split);
            return Ok(false);
        };
        let all = Batch::new(
            &self.shapes,
            &self.bodies,
            &self.frames.pairs,
            self.options.margin,
        )?;
        let fresh = all.with_pairs(split.fresh_pairs())?;
        (
            self.frames.hits,
            self.frames.manifolds,
            self.frames.recycled,
        ) = finish_recycled(
            (&all, &fresh),
            &split,
            &sat_hits,
            (&self.narrowphase, &mut self.frames.check, &mut self.recycle),
            times,
        );
        Ok(true)
    }
}

/// A recycling frame's end, once the fresh pairs' SAT results are in: their
/// hits and manifolds (`narrowphase_results`, with the check), merged in
/// pair order with the recycled answers (`core/recycle.rs`), and how many
/// were recycled. The kernel's time: on a GPU backend the GPU's (its
/// timestamps, or the wait for it), on the CPU the host's from the split to
/// the end of the merge (not the check and the manifolds in between).
fn finish_recycled(
    (all, fresh): (&Batch, &Batch),
    split: &Split<Recycle2>,
    sat_hits: &[crate::d2::types::SatHit],
    (narrowphase, check, cache): (
        &Narrowphase,
        &mut Option<Agreement>,
        &mut PairCache<Entry<Recycle2>>,
    ),
    times: &mut StageTimes,
) -> (Vec<Hit>, Vec<Manifold>, usize) {
    let host = times.kernel;
    let answers = narrowphase_results(fresh, sat_hits, narrowphase, check, times);
    let stage = Instant::now();
    let recycled = split.recycled();
    let (hits, manifolds) = merge(split, (all.transforms(), all.pairs()), cache, answers);
    #[cfg(feature = "gpu")]
    let on_gpu = narrowphase.gpu_stats().is_some();
    #[cfg(not(feature = "gpu"))]
    let on_gpu = false;
    if !on_gpu {
        times.kernel = host + stage.elapsed();
    }
    (hits, manifolds, recycled)
}

impl FrameStages for World {
    type Body = Body;
    type Hit = Hit;
    type Manifold = Manifold;

    fn frames(&mut self) -> &mut Frames<Hit, Manifold> {
        &mut self.frames
    }

    fn accelerate(&mut self, dt: f32) {
        let gravity = self.options.gravity;
        for body in self.bodies.iter_mut().filter(|b| !b.is_static()) {
            body.velocity += gravity * dt;
        }
    }

    fn broadphase(&mut self) {
        #[cfg(feature = "gpu")]
        if self.resident.is_some() {
            // On the device, in the narrowphase stage's frame.
            self.frames.pairs.clear();
            return;
        }
        self.frames.pairs = find_pairs(
            &self.shapes,
            &self.bodies,
            self.options.margin,
            PairFilter {
                skip_static_pairs: true,
            },
        );
    }

    fn narrowphase(&mut self, times: &mut StageTimes) -> Result<(), Error> {
        #[cfg(feature = "gpu")]
        if self.resident.is_some() {
            return self.resident_frame(times);
        }
        self.frames.pair_count = None;
        if let Some(tolerance) = self.options.recycle {
            return self.start_recycled(tolerance, false, times).map(|_| ());
        }
        let stage = Instant::now();
        let batch = Batch::new(
            &self.shapes,
            &self.bodies,
            &self.frames.pairs,
            self.options.margin,
        )?;
        let sat_hits = self.narrowphase.collide(&batch)?;
        times.kernel = stage.elapsed();
        (self.frames.hits, self.frames.manifolds) = narrowphase_results(
            &batch,
            &sat_hits,
            &self.narrowphase,
            &mut self.frames.check,
            times,
        );
        Ok(())
    }

    fn start_narrowphase(&mut self, times: &mut StageTimes) -> Result<bool, Error> {
        #[cfg(feature = "gpu")]
        if self.resident.is_some() {
            return self.start_resident_frame().map(|()| false);
        }
        self.frames.pair_count = None;
        if let Some(tolerance) = self.options.recycle {
            return self.start_recycled(tolerance, true, times);
        }
        let stage = Instant::now();
        let batch = Batch::new(
            &self.shapes,
            &self.bodies,
            &self.frames.pairs,
            self.options.margin,
        )?;
        let started = self.narrowphase.start(&batch)?;
        times.kernel = stage.elapsed();
        let Some(sat_hits) = started else {
            return Ok(false);
        };
        (self.frames.hits, self.frames.manifolds) = narrowphase_results(
            &batch,
            &sat_hits,
            &self.narrowphase,
            &mut self.frames.check,
            times,
        );
        Ok(true)
    }

    fn poll_narrowphase(&mut self, times: &mut StageTimes) -> Result<bool, Error> {
        #[cfg(feature = "gpu")]
        if self.resident.is_some() {
            return self.poll_resident_frame(times);
        }
        if let Some(split) = self.split.take() {
            return self.poll_recycled(split, times);
        }
        let Some(sat_hits) = self.narrowphase.poll()? else {
            return Ok(false);
        };
        let batch = Batch::new(
            &self.shapes,
            &self.bodies,
            &self.frames.pairs,
            self.options.margin,
        )?;
        (self.frames.hits, self.frames.manifolds) = narrowphase_results(
            &batch,
            &sat_hits,
            &self.narrowphase,
            &mut self.frames.check,
            times,
        );
        Ok(true)
    }

    fn solve_biased(&mut self, dt: f32) -> usize {
        let solver = self.solver_options();
        let report = self.solver.begin(
            &self.shapes,
            &mut self.bodies,
            &self.frames.manifolds,
            &solver,
            Some(dt),
        );
        self.solver.solve_biased(&mut self.bodies, &solver);
        report.points
    }

    fn integrate(&mut self, dt: f32) -> Vec<Vec2> {
        let max_translation = self.options.max_translation;
        let mut moved: Vec<Vec2> = vec![Vec2::ZERO; self.bodies.len()];
        for (body, displacement) in self.bodies.iter_mut().zip(moved.iter_mut()) {
            if body.is_static() {
                continue;
            }
            let step = body.velocity * dt;
            let length = step.length();
            if length > max_translation {
                body.velocity *= max_translation / length;
            }
            let centroid = self
                .shapes
                .get(body.shape)
                .map_or(Vec2::ZERO, |s| s.centroid());
            let centre =
                body.position + rotate(Rot::from_angle(body.angle), centroid) + body.velocity * dt;
            let angle = wrap_angle(body.angle + body.angular_velocity * dt);
            let position = centre - rotate(Rot::from_angle(angle), centroid);
            *displacement = position - body.position;
            body.position = position;
            body.angle = angle;
        }
        moved
    }

    fn relax(&mut self) {
        let solver = self.solver_options();
        self.solver.relax(&mut self.bodies, &solver);
        self.solver.finish();
    }

    fn overlaps(&self, moved: &[Vec2]) -> Vec<Overlap> {
        self.frames
            .manifolds
            .iter()
            .map(|m| Overlap {
                a: m.a,
                b: m.b,
                normal: m.normal,
                depth: m.depth() - m.normal.dot(moved[m.b as usize] - moved[m.a as usize]),
            })
            .collect()
    }

    fn correction(&mut self) -> (&mut [Body], (f32, f32, usize)) {
        let options = self.options;
        (
            &mut self.bodies,
            (options.slop, options.correction, options.correction_passes),
        )
    }
}

/// The same angle in (-pi, pi].
fn wrap_angle(angle: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    if angle > PI || angle <= -PI {
        angle - TAU * ((angle + PI) / TAU).floor()
    } else {
        angle
    }
}
