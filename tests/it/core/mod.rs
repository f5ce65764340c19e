//! What both dimensions share: the comparison rules, determinism, scene limits, the fuzzers' saved inputs.

mod check;
mod determinism;
mod fuzz;
mod scene;
