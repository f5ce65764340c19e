//! The command's integration tests, one binary (`cargo test -p gpusat-cli
//! --test it`): each command a module (`collide`, `resolve`, `demo`,
//! `bench`, `gpu` for the adapters and `info`, `d3` for 3D scenes through
//! collide and resolve), and the peers (`peer::d2`, `peer::d3`).

#[path = "../../../tests/it/common/mod.rs"]
mod common;

mod bench;
mod collide;
mod d3;
mod demo;
mod gpu;
mod peer;
mod resolve;
