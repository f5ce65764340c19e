//! The stages of a simulation frame and their timing, written once for
//! both dimensions: a world ([`crate::d2::World`], [`crate::d3::World`])
//! implements [`FrameStages`], and [`step_frame`] runs them in order:
//!
//! ```text
//! integrate velocities (gravity)
//! broadphase: candidate pairs from boxes grown by the speculative margin
//! narrowphase on the chosen backend, margin included; manifolds
//! impulse solve with a position bias (Baumgarte)
//! integrate positions (about each body's centre of mass)
//! relax: the same impulses without the bias
//! positional correction of what overlap remains beyond the slop
//! ```
//!
//! Each stage's time is measured every frame ([`FrameStats`]) and summed
//! over the run ([`RunStats`]).

use std::time::Duration;

use crate::core::clock::Instant;

use super::check::Agreement;
use super::error::Error;
use super::pair::Pair;
use super::separation::{Movable, Overlap, relax};

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
    /// Candidate pairs: the narrowphase tested all but those recycled.
    pub pairs: usize,
    /// Pairs reported (overlapping, or within the margin).
    pub hits: usize,
    /// Candidate pairs answered from an earlier frame by contact recycling
    /// (0 when the world's option is off), not by the narrowphase.
    pub recycled: usize,
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
    /// Pairs answered by contact recycling, in all.
    pub recycled: u64,
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
    /// The pairs contact recycling answered this frame.
    pub(crate) recycled: usize,
    pub(crate) hits: Vec<H>,
    pub(crate) manifolds: Vec<M>,
    pub(crate) frame: FrameStats,
    pub(crate) totals: RunStats,
    pub(crate) check: Option<Agreement>,
    /// A frame whose narrowphase was started and not yet collected
    /// ([`begin_frame`]).
    pub(crate) pending: Option<PendingFrame>,
}

/// A started frame: when it started, the times of its stages so far, and
/// its time step.
#[derive(Clone, Debug)]
pub(crate) struct PendingFrame {
    start: Instant,
    times: StageTimes,
    dt: f32,
}

impl<H, M> Default for Frames<H, M> {
    fn default() -> Frames<H, M> {
        Frames {
            pairs: Vec::new(),
            pair_count: None,
            recycled: 0,
            hits: Vec::new(),
            manifolds: Vec::new(),
            frame: FrameStats::default(),
            totals: RunStats::default(),
            check: None,
            pending: None,
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
            recycled: self.recycled,
            contact_points,
            max_depth,
            times,
        };
        self.totals.frames += 1;
        self.totals.pairs += self.frame.pairs as u64;
        self.totals.hits += self.hits.len() as u64;
        self.totals.recycled += self.recycled as u64;
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
    /// The narrowphase, started without waiting for a GPU: true when it is
    /// done (as [`narrowphase`](Self::narrowphase)), false when its results
    /// are to be collected by [`poll_narrowphase`](Self::poll_narrowphase).
    fn start_narrowphase(&mut self, times: &mut StageTimes) -> Result<bool, Error> {
        self.narrowphase(times).map(|()| true)
    }
    /// A started narrowphase's results if they are in: true once done.
    fn poll_narrowphase(&mut self, times: &mut StageTimes) -> Result<bool, Error> {
        let _ = times;
        Ok(true)
    }
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
    let (start, mut times) = frame_begin(world, dt)?;
    world.narrowphase(&mut times)?;
    frame_end(world, PendingFrame { start, times, dt });
    Ok(())
}

/// A frame up to its narrowphase, which is started without waiting for a
/// GPU: true when the frame is done (a CPU narrowphase), false when it waits
/// for [`poll_frame`].
pub(crate) fn begin_frame<W: FrameStages>(world: &mut W, dt: f32) -> Result<bool, Error> {
    let (start, mut times) = frame_begin(world, dt)?;
    let pending = if world.start_narrowphase(&mut times)? {
        frame_end(world, PendingFrame { start, times, dt });
        None
    } else {
        Some(PendingFrame { start, times, dt })
    };
    let done = pending.is_none();
    world.frames().pending = pending;
    Ok(done)
}

/// The frame [`begin_frame`] started, finished once its narrowphase's
/// results are in: true when the frame is done. An error drops the frame.
pub(crate) fn poll_frame<W: FrameStages>(world: &mut W) -> Result<bool, Error> {
    let Some(mut pending) = world.frames().pending.take() else {
        return Err(Error::Argument {
            name: "poll_step",
            message: "was called with no frame started (begin_step starts one)".to_string(),
        });
    };
    if world.poll_narrowphase(&mut pending.times)? {
        frame_end(world, pending);
        Ok(true)
    } else {
        world.frames().pending = Some(pending);
        Ok(false)
    }
}

/// The stages before the narrowphase: the time step checked, the
/// velocities, the broadphase. No frame may be pending.
fn frame_begin<W: FrameStages>(world: &mut W, dt: f32) -> Result<(Instant, StageTimes), Error> {
    if !(dt.is_finite() && dt > 0.0) {
        return Err(Error::Argument {
            name: "the time step",
            message: format!("{dt} is not a positive number"),
        });
    }
    if world.frames().pending.is_some() {
        return Err(Error::Argument {
            name: "the world",
            message: "has a started frame: finish it with poll_step first".to_string(),
        });
    }
    let start = Instant::now();
    let mut times = StageTimes::default();
    // Set again by a world whose recycling answered pairs this frame.
    world.frames().recycled = 0;

    let stage = Instant::now();
    world.accelerate(dt);
    times.integrate += stage.elapsed();

    let stage = Instant::now();
    world.broadphase();
    times.broadphase = stage.elapsed();
    Ok((start, times))
}

/// The stages after the narrowphase: the solver, the positions, the
/// correction, the frame's statistics.
fn frame_end<W: FrameStages>(world: &mut W, pending: PendingFrame) {
    let PendingFrame {
        start,
        mut times,
        dt,
    } = pending;
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
}
