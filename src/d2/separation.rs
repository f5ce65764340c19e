//! Positional separation of 2D bodies: the generic rounds
//! ([`crate::core::separation`]) with the 2D broadphase and narrowphase.

use glam::Vec2;

use crate::core::error::Error;
use crate::core::pair::{Pair, PairFilter};
use crate::core::separation::{Candidates, Movable, SeparationOptions, relax, separate};
use crate::d2::batch::Batch;
use crate::d2::body::Body;
use crate::d2::broadphase::find_pairs;
use crate::d2::shape::ShapeSet;
use crate::d2::types::{Hit, SatHit};

/// What [`separate_positions`] did.
pub type SeparationReport = crate::core::separation::SeparationReport<Hit>;

/// One overlap to correct: bodies, normal from A to B, depth.
pub type Overlap = crate::core::separation::Overlap<Vec2>;

/// Runs the narrowphase on a batch; the closure lets any backend do it.
pub type NarrowphaseFn<'f> = dyn FnMut(&Batch) -> Result<Vec<SatHit>, Error> + 'f;

/// Moves the bodies (translation only) until no candidate pair overlaps by
/// more than the slop, or the round limit is reached (see the report).
pub fn separate_positions(
    shapes: &ShapeSet,
    bodies: &mut [Body],
    candidates: Candidates,
    options: &SeparationOptions,
    narrowphase: &mut NarrowphaseFn,
) -> Result<SeparationReport, Error> {
    let mut found: Vec<Pair> = Vec::new();
    separate(
        bodies,
        options,
        |bodies| {
            let pairs = match candidates {
                Candidates::Fixed(pairs) => pairs,
                Candidates::Broadphase { margin } => {
                    found = find_pairs(shapes, bodies, margin, PairFilter::default());
                    &found
                }
            };
            let batch = Batch::new(shapes, bodies, pairs, 0.0)?;
            let sat_hits = narrowphase(&batch)?;
            Ok(batch.hits(&sat_hits))
        },
        |hit: &Hit| Overlap {
            a: hit.a,
            b: hit.b,
            normal: hit.normal,
            depth: hit.depth,
        },
    )
}

impl Movable for Body {
    type Vector = Vec2;
    fn inv_mass(&self) -> f32 {
        self.inv_mass
    }
    fn translate(&mut self, by: Vec2) {
        self.position += by;
    }
}

/// its depth as the corrections so far left it (updated along its normal) is
/// brought `fraction` of the way down to `target`, the push split by inverse
/// mass. Accumulates into `offsets` (one per body); moves nothing itself.
pub fn relax_positions(
    bodies: &[Body],
    overlaps: &[Overlap],
    offsets: &mut [Vec2],
    target: f32,
    fraction: f32,
    passes: usize,
) {
    relax(
        |body| bodies[body].inv_mass,
        overlaps,
        offsets,
        (target, fraction, passes),
    );
}
