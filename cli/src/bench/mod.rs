//! `gpusat bench`: narrowphase throughput over a sweep of batch sizes and
//! backends on one seeded workload, as a table, CSV, JSON lines and a
//! log-log plot.
//!
//! The criterion benches (`benches/`) are the statistically careful
//! figures; this sweep is the quick, self-contained one a user runs on their
//! own machine. Both draw their pairs from `gpusat::generate`'s workloads.
//!
//! ## How a figure is measured
//!
//! Each (batch size, backend) cell is timed like criterion's flat sampling:
//! one warm-up call estimates the cost of a call, then `samples` samples are
//! taken, each of as many calls as fill `min_time / samples` (at least one),
//! and the cell reports the **median** sample as nanoseconds per pair. A call
//! slower than the sample budget still gets three samples. The GPU kernel
//! row reports the timestamp-query time of the same kind of calls, so it
//! leaves out upload, readback and the submission round trip.
//!
//! Every backend's hits are compared with the CPU reference's
//! ([`gpusat::compare_hits`]) before anything is timed: a backend that
//! disagrees fails the bench instead of producing a fast wrong number.
//! parry2d is a peer with its own conventions, so only its hit count is
//! shown.

mod backend;
pub mod d2;
pub mod d3;
pub mod frame;
mod measure;
mod plot;
mod report;

pub use backend::BenchBackend;
pub use measure::parallel_ceiling;
pub use report::{BenchReport, BenchRow, PlotKind};
