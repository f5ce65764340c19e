//! The 3D frame pipeline: a [`World`] of hulls, boxes and spheres stepped
//! through time. The stages, their timing and the check against the CPU
//! reference are the 2D world's ([`crate::d2::World`]); only the geometry and
//! the rotation are 3D.
//!
//! One [`World::step`]:
//!
//! ```text
//! integrate velocities (gravity)
//! broadphase: candidate pairs from boxes grown by the speculative margin,
//!     pairs of two static bodies left out
//! narrowphase on the chosen backend (CPU, CPU parallel, GPU), margin included
//! contact manifolds (clipping, up to 4 points), from the backend's features
//! impulse solve (friction, warm started from last frame's matching contact
//!     ids), with a position bias that pushes overlaps apart
//! integrate positions about each body's centre of mass; the orientation by
//!     q' = normalise(q + dt/2 (w, 0) q)
//! relax: the same impulses without the bias
//! positional correction of what overlap remains beyond the slop
//! ```

use crate::core::clock::Instant;

use glam::{Quat, Vec3};

use super::backend::Narrowphase;
use super::batch::Batch;
use super::body::Body;
use super::broadphase::find_pairs;
use super::manifold::{Manifold, manifold};
use super::narrowphase::{collide_cpu, compare_hits};
use super::recycle::Recycle3;
use super::shape::set::ShapeSet;
use super::solver::{ContactSolver, SolverOptions, mass_state};
use super::types::Hit;
use crate::core::check::Agreement;
use crate::core::error::Error;
use crate::core::frame::{
    FrameStages, FrameStats, Frames, RunStats, StageTimes, begin_frame, poll_frame, step_frame,
};
use crate::core::pair::PairFilter;
use crate::core::recycle::{Entry, PairCache, Split, check_tolerance, merge, split};
use crate::d3::separation::Overlap;

/// How a 3D world behaves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldOptions {
    /// Acceleration of every dynamic body.
    pub gravity: Vec3,
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
    /// No body turns by more than this (radians) in one step.
    pub max_rotation: f32,
    /// Fraction of the angular velocity lost per second (rolling resistance
    /// stand-in: a sphere on a plane would roll forever without it).
    pub angular_damping: f32,
    /// Contact recycling, **not exact**: a pair whose body B moved at most
    /// this length relative to body A (no point of B within its bounding
    /// radius farther) since its hit and manifold were computed gets them
    /// again, carried along by A, instead of a new narrowphase; a
    /// recycled depth is at most the tolerance off ([`FrameStats::recycled`]
    /// counts the pairs). It must be below the margin: a pair left
    /// unreported stays so until it moves by the tolerance. `None` (the default): every
    /// pair through the narrowphase every frame, every answer exact.
    pub recycle: Option<f32>,
}

impl Default for WorldOptions {
    fn default() -> WorldOptions {
        WorldOptions {
            gravity: Vec3::new(0.0, -10.0, 0.0),
            margin: 0.02,
            solver: SolverOptions::default(),
            // Resting contacts settle this deep: 1% of a 0.2-unit shape.
            slop: 0.002,
            correction: 0.3,
            correction_passes: 4,
            max_translation: 4.0,
            max_rotation: 0.25 * std::f32::consts::PI,
            angular_damping: 0.05,
            recycle: None,
        }
    }
}

/// 3D bodies, their shapes, and everything that steps them.
pub struct World {
    shapes: ShapeSet,
    bodies: Vec<Body>,
    narrowphase: Narrowphase,
    solver: ContactSolver,
    options: WorldOptions,
    frames: Frames<Hit, Manifold>,
    /// Last frame's answers, by pair, when recycling.
    recycle: PairCache<Entry<Recycle3>>,
    /// Each shape's bounding radius about its origin, for recycling.
    reach: Vec<f32>,
    /// A started frame's split, while its fresh pairs are on the GPU.
    split: Option<Split<Recycle3>>,
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
        })
    }

    /// The shape library.
    pub fn shapes(&self) -> &ShapeSet {
        &self.shapes
    }

    /// The bodies, as the last step left them.
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// The options.
    pub fn options(&self) -> &WorldOptions {
        &self.options
    }

    /// The narrowphase backend.
    pub fn narrowphase(&self) -> &Narrowphase {
        &self.narrowphase
    }

    /// The last step's reported pairs.
    pub fn hits(&self) -> &[Hit] {
        &self.frames.hits
    }

    /// The last step's contact manifolds.
    pub fn manifolds(&self) -> &[Manifold] {
        &self.frames.manifolds
    }

    /// What the last step did.
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

    /// Kinetic energy of the dynamic bodies: `m v^2 / 2 + w . I w / 2`.
    pub fn kinetic_energy(&self) -> f64 {
        self.bodies
            .iter()
            .filter(|b| !b.is_static())
            .map(|b| {
                let mass = 1.0 / f64::from(b.inv_mass);
                let unit_inertia = self
                    .shapes
                    .get(b.shape)
                    .map_or(glam::Mat3::ZERO, |s| s.unit_inertia());
                // w in the body's frame against the body-frame tensor.
                let local = b.rotation.normalize().inverse() * b.angular_velocity;
                let rotational = f64::from(local.dot(unit_inertia * local)) * mass;
                0.5 * mass * f64::from(b.velocity.length_squared()) + 0.5 * rotational
            })
            .sum()
    }

    /// Advances the world by `dt` seconds.
    pub fn step(&mut self, dt: f32) -> Result<&FrameStats, Error> {
        step_frame(self, dt)?;
        Ok(&self.frames.frame)
    }

    /// [`step`](Self::step) without waiting for a GPU narrowphase, as the
    /// 2D [`World::begin_step`](crate::d2::World::begin_step): the frame's
    /// statistics when it is done already (a CPU narrowphase), `None` when
    /// its narrowphase runs on the GPU: then [`poll_step`](Self::poll_step)
    /// until they come. The same frames as `step`, bit for bit.
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
        let split = split::<Recycle3>(
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
        split: Split<Recycle3>,
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

    fn solver_options(&self) -> SolverOptions {
        SolverOptions {
            slop: self.options.slop,
            ..self.options.solver
        }
    }
}

/// The narrowphase's end, once its hits are in: the GPU's times, the check
/// against the CPU reference, the hits completed, and their manifolds. Over
/// the fields it needs, so that the batch the hits came from (which borrows
/// the world's bodies and pairs) serves here too.
fn narrowphase_results(
    batch: &Batch,
    sat_hits: &[crate::d3::types::SatHit],
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
        let reference = collide_cpu(batch);
        check.absorb(compare_hits(batch, &reference, sat_hits));
    }
    let hits = batch.hits(sat_hits);
    let stage = Instant::now();
    let manifolds = manifolds_of(batch, &hits);
    times.manifolds = stage.elapsed();
    (hits, manifolds)
}

/// A recycling frame's end, once the fresh pairs' SAT results are in: their
/// hits and manifolds (`narrowphase_results`, with the check), merged in
/// pair order with the recycled answers (`core/recycle.rs`), and how many
/// were recycled. The kernel's time: on a GPU backend the GPU's (its
/// timestamps, or the wait for it), on the CPU the host's from the split to
/// the end of the merge (not the check and the manifolds in between).
fn finish_recycled(
    (all, fresh): (&Batch, &Batch),
    split: &Split<Recycle3>,
    sat_hits: &[crate::d3::types::SatHit],
    (narrowphase, check, cache): (
        &Narrowphase,
        &mut Option<Agreement>,
        &mut PairCache<Entry<Recycle3>>,
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
        let (gravity, damping) = (
            self.options.gravity,
            1.0 / (1.0 + dt * self.options.angular_damping),
        );
        for body in self.bodies.iter_mut().filter(|b| !b.is_static()) {
            body.velocity += gravity * dt;
            body.angular_velocity *= damping;
        }
    }

    fn broadphase(&mut self) {
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

    fn integrate(&mut self, dt: f32) -> Vec<Vec3> {
        let mut moved: Vec<Vec3> = vec![Vec3::ZERO; self.bodies.len()];
        for (body, displacement) in self.bodies.iter_mut().zip(moved.iter_mut()) {
            if !body.is_static() {
                *displacement = integrate(&self.shapes, body, dt, &self.options);
            }
        }
        moved
    }

    fn relax(&mut self) {
        let solver = self.solver_options();
        self.solver.relax(&mut self.bodies, &solver);
        self.solver.finish();
    }

    fn overlaps(&self, moved: &[Vec3]) -> Vec<Overlap> {
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

/// The manifolds of the hits, in order (on every thread with `parallel`).
fn manifolds_of(batch: &Batch, hits: &[Hit]) -> Vec<Manifold> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if hits.len() >= 256 {
            return hits.par_iter().map(|hit| manifold(batch, hit)).collect();
        }
    }
    hits.iter().map(|hit| manifold(batch, hit)).collect()
}

/// Moves a dynamic body by its velocities over `dt`, about its centre of
/// mass, within the step limits; returns how far its centre moved.
fn integrate(shapes: &ShapeSet, body: &mut Body, dt: f32, options: &WorldOptions) -> Vec3 {
    let step = body.velocity * dt;
    let length = step.length();
    if length > options.max_translation {
        body.velocity *= options.max_translation / length;
    }
    let turn = body.angular_velocity.length() * dt;
    if turn > options.max_rotation {
        body.angular_velocity *= options.max_rotation / turn;
    }
    let centre = mass_state(shapes, body).centre;
    let centroid = shapes.get(body.shape).map_or(Vec3::ZERO, |s| s.centroid());
    let q = body.rotation.normalize();
    let w = body.angular_velocity;
    let spin = Quat::from_xyzw(w.x, w.y, w.z, 0.0) * q;
    let rotation = Quat::from_xyzw(
        q.x + 0.5 * dt * spin.x,
        q.y + 0.5 * dt * spin.y,
        q.z + 0.5 * dt * spin.z,
        q.w + 0.5 * dt * spin.w,
    )
    .normalize();
    let new_centre = centre + body.velocity * dt;
    let position = new_centre - rotation * centroid;
    body.position = position;
    body.rotation = rotation;
    new_centre - centre
}
