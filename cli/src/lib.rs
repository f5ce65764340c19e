//! The `gpusat` command's own code: the bench, its plots and workloads
//! (parry2d as a peer), pictures of scenes, the demo's scene and the result
//! files. Shared by the binary, its tests and its benches; not a library for
//! other programs (that is `gpusat`).

pub mod bench;
pub mod bench3;
pub mod bench_frame;
pub mod demo;
pub mod demo3;
pub mod error;
pub mod output;
mod plot;
pub mod render;
pub mod render3;
pub mod workload;
pub mod workload3;

pub use error::CliError;
