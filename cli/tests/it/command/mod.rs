//! The command end to end, a module a command (`collide`, `resolve`,
//! `demo`, `bench`, `gpu` for the adapters and `info`, `d3` for 3D scenes
//! through collide and resolve), and the peers (`peer::d2`, `peer::d3`).
//! One top module, so that a filter such as `command::d3::` names these
//! tests alone in a workspace-wide `cargo test --test it`.

use std::process::{Command, Output};

/// Runs the built `gpusat` with `args`.
fn gpusat(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusat"))
        .args(args)
        .output()
        .expect("gpusat runs")
}

mod bench;
mod collide;
mod d3;
mod demo;
mod gpu;
mod peer;
mod resolve;
