//! Seeded random scenes (the `generate` feature), shared by the tests, the
//! benches, `gpusat bench` and `gpusat demo`, so that every figure and every
//! check is reproducible from a seed.
//!
//! [`d2`] and [`d3`] make the shapes and scenes of each dimension (the 2D
//! names are also here, as `generate::SceneSpec`). The reference
//! distribution for headline figures is [`SceneSpec::reference`]: 4,096 random convex polygons (points at random
//! angles on a circle of radius 0.5 to 1.5, hulled), one body each at a
//! uniform random position in [-1, 1]² with a random angle, and 1,000,000
//! random pairs.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

pub mod d2;
pub mod d3;

pub use d2::*;

/// The generator used everywhere: small, fast, and the same on every platform.
pub type SceneRng = Pcg64Mcg;

/// The generator for `seed`.
pub fn rng(seed: u64) -> SceneRng {
    Pcg64Mcg::seed_from_u64(seed)
}
