//! Positional separation of 3D bodies: the generic rounds
//! ([`crate::core::separation`]) with the 3D broadphase and narrowphase. Each round runs the candidate pairs (a fixed list, or the 3D
//! broadphase again) and the narrowphase on the bodies as they are, then
//! Gauss–Seidel passes push each pair apart along its normal, the push split
//! by inverse mass: a static body never moves, a pair of two static bodies
//! is reported, not moved. Only translation; rotations stay.

use glam::Vec3;

use super::batch::Batch;
use super::body::Body;
use super::broadphase::find_pairs;
use super::shape::set::ShapeSet;
use super::types::{Hit, SatHit};
use crate::core::error::Error;
use crate::core::pair::Pair;
use crate::core::pair::PairFilter;
use crate::core::separation::{Candidates, Movable, SeparationOptions, separate};

/// What [`separate_positions`] did.
pub type SeparationReport = crate::core::separation::SeparationReport<Hit>;

/// One overlap to correct: bodies, normal from A to B, depth.
pub type Overlap = crate::core::separation::Overlap<Vec3>;

impl Movable for Body {
    type Vector = Vec3;
    fn inv_mass(&self) -> f32 {
        self.inv_mass
    }
    fn translate(&mut self, by: Vec3) {
        self.position += by;
    }
}

/// Runs the 3D narrowphase on a batch; the closure lets any backend do it.
pub type NarrowphaseFn<'f> = dyn FnMut(&Batch) -> Result<Vec<SatHit>, Error> + 'f;

/// Moves the 3D bodies (translation only) until no candidate pair overlaps
/// by more than the slop, or the round limit is reached (see the report).
///
/// ```
/// use gpusat::d3::{Body, ShapeSet, collide_cpu, separate_positions};
/// use gpusat::glam::{Quat, Vec3};
/// use gpusat::{Candidates, SeparationOptions};
///
/// let mut shapes = ShapeSet::new();
/// let cube = shapes.add_cuboid(Vec3::splat(0.5))?;
/// let mut bodies = vec![
///     Body::fixed(cube, Vec3::ZERO, Quat::IDENTITY),
///     Body::new(cube, Vec3::new(0.1, 0.7, 0.0), Quat::IDENTITY),
/// ];
/// let report = separate_positions(
///     &shapes,
///     &mut bodies,
///     Candidates::Broadphase { margin: 0.0 },
///     &SeparationOptions::default(),
///     &mut |batch| Ok(collide_cpu(batch)),
/// )?;
/// assert!(report.resolved());
/// assert_eq!(bodies[0].position, Vec3::ZERO, "the static body stays");
/// assert!(bodies[1].position.y > 0.99);
/// # Ok::<(), gpusat::Error>(())
/// ```
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
