//! Positional separation, in either dimension.
//!
//! The seeds push each overlapping pair apart "half to each" along the
//! minimum translation vector. Done properly:
//!
//! * The push is split by inverse mass: A moves by `-w_a / (w_a + w_b)` of
//!   it, B by `w_b / (w_a + w_b)`. A static body (`w = 0`) never moves; a pair
//!   of two static bodies is skipped. Mass-weighted, the pushes cancel, so the
//!   centre of mass of the free bodies does not move.
//! * Only the part of the depth beyond a `slop` is corrected, and only a
//!   `fraction` of it per pass, so that resting contacts do not jitter and
//!   piles converge instead of overshooting.
//! * One pass fixes a pair and disturbs its neighbours, so the batch is
//!   swept several times (Gauss–Seidel): each pass sees the depths as the
//!   earlier corrections left them, updated along each pair's normal.
//! * After the passes the narrowphase runs again (normals and depths change
//!   as bodies move), and the whole repeats until no pair is deeper than the
//!   slop, or a round limit is hit, which is reported, never hidden.
//!
//! [`separate`] and [`relax`] are generic over the body ([`Movable`]) and
//! its vector ([`Offset`]); `d2::separation` and `d3::separation` give them
//! their bodies, broadphase and narrowphase.

use glam::{Vec2, Vec3};

use super::error::Error;
use super::pair::Pair;

/// How positional separation works.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeparationOptions {
    /// Overlap left alone; a pair is resolved when no deeper than this.
    pub slop: f32,
    /// Fraction of the excess depth corrected per pass (0 to 1].
    pub fraction: f32,
    /// Gauss–Seidel passes over the pairs per round.
    pub passes: usize,
    /// Rounds (narrowphase + passes) before giving up.
    pub max_rounds: usize,
}

impl Default for SeparationOptions {
    fn default() -> SeparationOptions {
        SeparationOptions {
            slop: 0.005,
            fraction: 0.8,
            passes: 8,
            max_rounds: 200,
        }
    }
}

/// What [`crate::d2::separate_positions`] or [`crate::d3::separate_positions`]
/// did;
/// `H` is the hit type of the dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct SeparationReport<H> {
    /// Rounds of narrowphase and correction run.
    pub rounds: usize,
    /// Deepest overlap before, over pairs with at least one free body.
    pub initial_max_depth: f32,
    /// Deepest overlap after, over pairs with at least one free body.
    pub final_max_depth: f32,
    /// Pairs still deeper than the slop (0 when resolved).
    pub unresolved: usize,
    /// Overlapping pairs of two static bodies, left as they are.
    pub static_pairs: Vec<H>,
}

impl<H> Default for SeparationReport<H> {
    fn default() -> SeparationReport<H> {
        SeparationReport {
            rounds: 0,
            initial_max_depth: 0.0,
            final_max_depth: 0.0,
            unresolved: 0,
            static_pairs: Vec::new(),
        }
    }
}

impl<H> SeparationReport<H> {
    /// Whether no pair with a free body is deeper than the slop.
    pub fn resolved(&self) -> bool {
        self.unresolved == 0
    }
}

/// Where the pairs to resolve come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Candidates<'a> {
    /// A fixed list (a scene's own pairs): only these are resolved.
    Fixed(&'a [Pair]),
    /// The broadphase, run again every round since moving bodies meet new
    /// neighbours; boxes grown by `margin`.
    Broadphase {
        /// How much the boxes grow.
        margin: f32,
    },
}

/// What positional separation needs of a body in either dimension.
pub(crate) trait Movable {
    /// The translation type.
    type Vector: Offset;
    fn inv_mass(&self) -> f32;
    fn translate(&mut self, by: Self::Vector);
}

pub(crate) trait Offset:
    Copy
    + Default
    + std::ops::AddAssign
    + std::ops::SubAssign
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<f32, Output = Self>
{
    fn dot(self, other: Self) -> f32;
}

impl Offset for Vec2 {
    fn dot(self, other: Vec2) -> f32 {
        Vec2::dot(self, other)
    }
}

impl Offset for Vec3 {
    fn dot(self, other: Vec3) -> f32 {
        Vec3::dot(self, other)
    }
}

/// The rounds of positional separation in either dimension: `hits` runs the
/// candidate pairs and the narrowphase on the bodies as they are, `overlap`
/// reads a hit.
// The options' check is written `!(x > 0.0 && ..)` so that a NaN fails it.
#[allow(clippy::nonminimal_bool, clippy::neg_cmp_op_on_partial_ord)]
pub(crate) fn separate<B: Movable, H: Copy>(
    bodies: &mut [B],
    options: &SeparationOptions,
    mut hits: impl FnMut(&[B]) -> Result<Vec<H>, Error>,
    overlap: impl Fn(&H) -> Overlap<B::Vector>,
) -> Result<SeparationReport<H>, Error> {
    if !(options.fraction > 0.0 && options.fraction <= 1.0) || !(options.slop >= 0.0) {
        return Err(Error::Argument {
            name: "separation options:",
            message: format!(
                "fraction {} must be in (0, 1] and slop {} >= 0",
                options.fraction, options.slop
            ),
        });
    }
    let mut report = SeparationReport::default();
    let target = 0.5 * options.slop;
    let mut offsets = vec![B::Vector::default(); bodies.len()];
    loop {
        let (movable, fixed): (Vec<H>, Vec<H>) = hits(bodies)?.into_iter().partition(|hit| {
            let o = overlap(hit);
            bodies[o.a as usize].inv_mass() + bodies[o.b as usize].inv_mass() > 0.0
        });
        let overlaps: Vec<Overlap<B::Vector>> = movable.iter().map(&overlap).collect();
        let max_depth = overlaps.iter().map(|o| o.depth).fold(0.0f32, f32::max);
        if report.rounds == 0 {
            report.initial_max_depth = max_depth;
        }
        report.final_max_depth = max_depth;
        report.unresolved = overlaps.iter().filter(|o| o.depth > options.slop).count();
        report.static_pairs = fixed;
        if report.unresolved == 0 || report.rounds >= options.max_rounds {
            return Ok(report);
        }
        report.rounds += 1;
        offsets.iter_mut().for_each(|o| *o = B::Vector::default());
        relax(
            |body| bodies[body].inv_mass(),
            &overlaps,
            &mut offsets,
            (target, options.fraction, options.passes),
        );
        for (body, offset) in bodies.iter_mut().zip(&offsets) {
            body.translate(*offset);
        }
    }
}

/// One overlap to correct: bodies, normal from A to B, depth; `V` is the
/// vector type of the dimension.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overlap<V> {
    /// Body A.
    pub a: u32,
    /// Body B.
    pub b: u32,
    /// Unit normal from A to B.
    pub normal: V,
    /// How deep the pair is along it.
    pub depth: f32,
}

/// Gauss–Seidel passes of positional correction in either dimension,
/// inverse masses by body index (see `d2::relax_positions`).
pub(crate) fn relax<V: Offset>(
    inv_mass: impl Fn(usize) -> f32,
    overlaps: &[Overlap<V>],
    offsets: &mut [V],
    (target, fraction, passes): (f32, f32, usize),
) {
    for _ in 0..passes {
        for overlap in overlaps {
            let (a, b) = (overlap.a as usize, overlap.b as usize);
            let (w_a, w_b) = (inv_mass(a), inv_mass(b));
            if w_a + w_b == 0.0 {
                continue;
            }
            let depth = overlap.depth - overlap.normal.dot(offsets[b] - offsets[a]);
            if depth <= target {
                continue;
            }
            let push = fraction * (depth - target) / (w_a + w_b);
            offsets[a] -= overlap.normal * (w_a * push);
            offsets[b] += overlap.normal * (w_b * push);
        }
    }
}
