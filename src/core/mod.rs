//! What both dimensions share: errors, candidate pairs and the checks made
//! of them, the numeric limits, backend names, the comparison of two
//! backends' results, the stages of a simulation frame, positional
//! separation and the solvers' options, sweep and prune, scene-file
//! reading, SIMD lanes and threads.
//!
//! `d2` and `d3` build on this module and nothing here imports them.

pub(crate) mod alloc;
pub(crate) mod backend;
pub(crate) mod check;
pub(crate) mod clock;
pub(crate) mod error;
pub(crate) mod frame;
pub(crate) mod limits;
pub(crate) mod pair;
#[cfg(feature = "parallel")]
pub(crate) mod parallel;
pub(crate) mod recycle;
#[cfg(feature = "serde")]
pub(crate) mod scene;
pub(crate) mod separation;
pub(crate) mod simd;
pub(crate) mod solver;
pub(crate) mod sweep;
pub(crate) mod uid;
