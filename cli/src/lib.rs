//! The `gpusat` command's own code: the bench (tables, CSV, JSON, plots),
//! the peers it compares with (parry2d, parry3d), pictures of scenes and
//! result files, each by dimension (`d2`, `d3`). Shared by the binary, its
//! tests and its benches; not a library for other programs (that is
//! `gpusat`).

pub mod bench;
pub mod error;
pub mod kernels;
pub mod output;
pub mod peer;
pub mod render;

pub use error::CliError;
