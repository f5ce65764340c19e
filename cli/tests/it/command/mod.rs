//! The command end to end, a module a command (`collide`, `resolve`,
//! `demo`, `bench`, `gpu` for the adapters and `info`, `d3` for 3D scenes
//! through collide and resolve), and the peers (`peer::d2`, `peer::d3`).
//! One top module, so that a filter such as `command::d3::` names these
//! tests alone in a workspace-wide `cargo test --test it`.

mod bench;
mod collide;
mod d3;
mod demo;
mod gpu;
mod peer;
mod resolve;
