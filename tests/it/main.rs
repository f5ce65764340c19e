//! The library's integration tests, one binary (`cargo test --test it`):
//! each concern a module, 2D and 3D twins under the same names
//! (`d2::oracle` and `d3::oracle`, ...). Filter by module path, e.g.
//! `cargo test --release --test it -- gpu::` or `-- d3::lanes`.

#![cfg(not(target_arch = "wasm32"))]

mod common;
mod core;
mod d2;
mod d3;
mod gpu;
