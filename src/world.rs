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
//! dimensions (`step_frame` over the `FrameStages` a world implements; the
//! 3D world is [`crate::d3::World`]).
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

use std::time::{Duration, Instant};

use glam::Vec2;

use crate::backend::Narrowphase;
use crate::batch::Batch;
use crate::body::Body;
use crate::broadphase::{PairFilter, find_pairs};
use crate::check::{Agreement, compare_hits};
use crate::error::Error;
use crate::manifold::Manifold;
use crate::math::{Rot, rotate};
use crate::narrowphase::{collide_cpu_best, manifolds_best};
use crate::resolve::{ContactSolver, Movable, Overlap, SolverOptions, relax};
use crate::shape::ShapeSet;
use crate::types::{Hit, Pair};

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
        }
    }
}

/// Time spent in each stage of one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes {
    /// Velocities and positions.
    pub integrate: Duration,
    /// Finding the candidate pairs.
    pub broadphase: Duration,
    /// GPU only: packing and queueing uploads.
    pub upload: Duration,
    /// The narrowphase computation: the GPU kernel (timestamps, or the wait
    /// when the adapter has none) or the CPU's SAT.
    pub kernel: Duration,
    /// GPU only: reading back and ordering the results.
    pub readback: Duration,
    /// Contact points by clipping.
    pub manifolds: Duration,
    /// The impulse solver.
    pub solve: Duration,
    /// Positional correction.
    pub correct: Duration,
    /// The whole step.
    pub total: Duration,
}

impl StageTimes {
    /// Stage names and times, in pipeline order.
    pub fn stages(&self) -> [(&'static str, Duration); 8] {
        [
            ("integrate", self.integrate),
            ("broadphase", self.broadphase),
            ("upload", self.upload),
            ("kernel", self.kernel),
            ("readback", self.readback),
            ("manifolds", self.manifolds),
            ("solve", self.solve),
            ("correct", self.correct),
        ]
    }

    pub(crate) fn add(&mut self, other: &StageTimes) {
        self.integrate += other.integrate;
        self.broadphase += other.broadphase;
        self.upload += other.upload;
        self.kernel += other.kernel;
        self.readback += other.readback;
        self.manifolds += other.manifolds;
        self.solve += other.solve;
        self.correct += other.correct;
        self.total += other.total;
    }
}

/// What one frame did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// The frame's number, from 1.
    pub frame: u64,
    /// Candidate pairs tested by the narrowphase.
    pub pairs: usize,
    /// Pairs reported (overlapping, or within the margin).
    pub hits: usize,
    /// Contact points solved.
    pub contact_points: usize,
    /// Deepest contact point after the step's correction was planned.
    pub max_depth: f32,
    /// Time per stage.
    pub times: StageTimes,
}

/// Totals over all frames so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunStats {
    /// Frames stepped.
    pub frames: u64,
    /// Candidate pairs tested, in all.
    pub pairs: u64,
    /// Pairs reported, in all.
    pub hits: u64,
    /// The most candidate pairs of one frame.
    pub max_pairs: usize,
    /// The most pairs reported in one frame.
    pub max_hits: usize,
    /// Time per stage, in all.
    pub times: StageTimes,
}

/// What a world of either dimension keeps of its frames: the last frame's
/// pairs, hits and manifolds, its statistics and the totals, and the
/// comparison with the CPU reference when checking.
#[derive(Clone, Debug)]
pub(crate) struct Frames<H, M> {
    pub(crate) pairs: Vec<Pair>,
    /// The candidate pairs counted where they are not on the host (a
    /// GPU-resident frame's); `None`: `pairs.len()`.
    pub(crate) pair_count: Option<usize>,
    pub(crate) hits: Vec<H>,
    pub(crate) manifolds: Vec<M>,
    pub(crate) frame: FrameStats,
    pub(crate) totals: RunStats,
    pub(crate) check: Option<Agreement>,
}

impl<H, M> Default for Frames<H, M> {
    fn default() -> Frames<H, M> {
        Frames {
            pairs: Vec::new(),
            pair_count: None,
            hits: Vec::new(),
            manifolds: Vec::new(),
            frame: FrameStats::default(),
            totals: RunStats::default(),
            check: None,
        }
    }
}

impl<H, M> Frames<H, M> {
    /// Closes a frame: its statistics from the pairs and hits it kept, and
    /// the totals.
    pub(crate) fn record(&mut self, contact_points: usize, max_depth: f32, times: StageTimes) {
        self.frame = FrameStats {
            frame: self.frame.frame + 1,
            pairs: self.pair_count.unwrap_or(self.pairs.len()),
            hits: self.hits.len(),
            contact_points,
            max_depth,
            times,
        };
        self.totals.frames += 1;
        self.totals.pairs += self.frame.pairs as u64;
        self.totals.hits += self.hits.len() as u64;
        self.totals.max_pairs = self.totals.max_pairs.max(self.frame.pairs);
        self.totals.max_hits = self.totals.max_hits.max(self.hits.len());
        self.totals.times.add(&times);
    }

    pub(crate) fn set_check(&mut self, on: bool) {
        self.check = on.then(Agreement::default);
    }
}

/// The stages of one frame, as a world of either dimension does them;
/// [`step_frame`] runs them in order and times them.
pub(crate) trait FrameStages {
    /// The bodies, which the positional correction moves.
    type Body: Movable;
    type Hit;
    type Manifold;
    fn frames(&mut self) -> &mut Frames<Self::Hit, Self::Manifold>;
    /// Gravity on the dynamic bodies' velocities.
    fn accelerate(&mut self, dt: f32);
    /// The candidate pairs, into the frame's `pairs`.
    fn broadphase(&mut self);
    /// The narrowphase on the pairs (the kernel's time, the GPU's uploads and
    /// readbacks), the check against the CPU reference, the hits, and the
    /// manifolds (their time).
    fn narrowphase(&mut self, times: &mut StageTimes) -> Result<(), Error>;
    /// The contact constraints, warm started, through the iterations with
    /// the position bias; returns the contact points solved.
    fn solve_biased(&mut self, dt: f32) -> usize;
    /// Moves the dynamic bodies by their velocities about their centres of
    /// mass; returns how far each body's centre moved.
    fn integrate(&mut self, dt: f32) -> Vec<<Self::Body as Movable>::Vector>;
    /// The iterations without the bias; the impulses remembered.
    fn relax(&mut self);
    /// What overlap each manifold has left after the bodies moved by
    /// `moved`, along its normal (its deepest point's depth, less the move).
    fn overlaps(
        &self,
        moved: &[<Self::Body as Movable>::Vector],
    ) -> Vec<Overlap<<Self::Body as Movable>::Vector>>;
    /// The bodies, and the correction's slop, fraction and passes.
    fn correction(&mut self) -> (&mut [Self::Body], (f32, f32, usize));
}

/// One frame of a world of either dimension: the stages in order, each
/// timed (see the module's list).
pub(crate) fn step_frame<W: FrameStages>(world: &mut W, dt: f32) -> Result<(), Error> {
    if !(dt.is_finite() && dt > 0.0) {
        return Err(Error::Argument {
            name: "the time step",
            message: format!("{dt} is not a positive number"),
        });
    }
    let start = Instant::now();
    let mut times = StageTimes::default();

    let stage = Instant::now();
    world.accelerate(dt);
    times.integrate += stage.elapsed();

    let stage = Instant::now();
    world.broadphase();
    times.broadphase = stage.elapsed();

    world.narrowphase(&mut times)?;

    let stage = Instant::now();
    let points = world.solve_biased(dt);
    times.solve = stage.elapsed();

    let stage = Instant::now();
    let moved = world.integrate(dt);
    times.integrate += stage.elapsed();

    let stage = Instant::now();
    world.relax();
    times.solve += stage.elapsed();

    let stage = Instant::now();
    let overlaps = world.overlaps(&moved);
    let (bodies, (slop, fraction, passes)) = world.correction();
    let mut offsets = vec![Default::default(); bodies.len()];
    relax(
        |body| bodies[body].inv_mass(),
        &overlaps,
        &mut offsets,
        (slop, fraction, passes),
    );
    for (body, offset) in bodies.iter_mut().zip(&offsets) {
        body.translate(*offset);
    }
    times.correct = stage.elapsed();
    times.total = start.elapsed();

    let max_depth = overlaps.iter().map(|o| o.depth).fold(0.0, f32::max);
    world.frames().record(points, max_depth, times);
    Ok(())
}

/// Bodies, their shapes, and everything that steps them.
pub struct World {
    shapes: ShapeSet,
    bodies: Vec<Body>,
    narrowphase: Narrowphase,
    solver: ContactSolver,
    options: WorldOptions,
    frames: Frames<Hit, Manifold>,
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
        Ok(World {
            shapes,
            bodies,
            narrowphase,
            solver: ContactSolver::new(),
            options,
            frames: Frames::default(),
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
        let options = crate::gpu::FrameOptions {
            margin: self.options.margin,
            skip_static_pairs: true,
            cell_size: None,
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

    /// The broadphase, narrowphase and manifolds of a frame on the
    /// GPU-resident frame, and the check against the CPU when on.
    #[cfg(feature = "gpu")]
    fn resident_frame(&mut self, times: &mut StageTimes) -> Result<(), Error> {
        use crate::types::Axis;
        let Some(frame) = self.resident.as_mut() else {
            return Ok(());
        };
        let stage = Instant::now();
        let records: Vec<crate::gpu::FrameBody> = self
            .bodies
            .iter()
            .map(crate::gpu::FrameBody::from_body)
            .collect();
        frame.set_bodies(&self.shapes, &records)?;
        let (pairs, hits, manifolds) = frame.step_with(|view| {
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
        })?;
        times.kernel = stage.elapsed();
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
            let candidate: Vec<crate::types::SatHit> = hits
                .iter()
                .filter_map(|hit| {
                    match pairs_cpu.binary_search(&Pair::new(hit.a, hit.b)) {
                        Ok(pair) => Some(crate::types::SatHit {
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
        let stage = Instant::now();
        let batch = Batch::new(
            &self.shapes,
            &self.bodies,
            &self.frames.pairs,
            self.options.margin,
        )?;
        let sat_hits = self.narrowphase.collide(&batch)?;
        times.kernel = stage.elapsed();
        #[cfg(feature = "gpu")]
        if let Some(gpu) = self.narrowphase.gpu_stats() {
            times.upload = gpu.upload;
            times.readback = gpu.readback;
            times.kernel = gpu.kernel.unwrap_or(gpu.gpu);
        }
        if let Some(check) = self.frames.check.as_mut() {
            let reference = collide_cpu_best(&batch);
            check.absorb(compare_hits(&batch, &reference, &sat_hits));
        }
        self.frames.hits = batch.hits(&sat_hits);

        let stage = Instant::now();
        self.frames.manifolds = manifolds_best(&batch, &self.frames.hits);
        times.manifolds = stage.elapsed();
        Ok(())
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
