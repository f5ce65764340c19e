//! The result of a sweep: its rows, and the table, CSV and JSON lines
//! written from them.

use std::fmt::Write as _;

use serde::Serialize;

use gpusat::{Manifold, Pair, SatHit};

use super::backend::BenchBackend;
use crate::error::CliError as Error;

/// One cell of the sweep.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    pub workload: String,
    pub backend: &'static str,
    pub pairs: usize,
    /// Pairs the backend reported (overlapping ones).
    pub hits: usize,
    pub samples: usize,
    /// Median nanoseconds per pair.
    pub ns_per_pair: f64,
    pub pairs_per_second: f64,
    /// Throughput over the single-thread CPU reference's at the same size.
    pub vs_cpu: Option<f64>,
    /// Throughput over the peer's (parry2d, parry3d) at the same size.
    pub vs_peer: Option<f64>,
    /// GPU rows: bytes uploaded per pair and read back per reported pair
    /// (from the last call, shapes already resident).
    pub upload_bytes_per_pair: Option<f64>,
    pub readback_bytes_per_hit: Option<f64>,
    /// Memory per pair: what the backend's output takes in host memory, and
    /// for GPU rows the device memory held, divided by the batch size.
    pub host_bytes_per_pair: f64,
    pub device_bytes_per_pair: Option<f64>,
    /// 3D: the hulls' mean vertex count (a box has 8).
    pub vertices: Option<f64>,
    /// 3D: edge pairs per candidate pair the edge query could test
    /// (`E_A x E_B`, hull pairs only), and how many it tested (the pruned
    /// search: those that passed the Gauss-map test; the brute force: every
    /// non-parallel one).
    pub edge_pairs_per_pair: Option<f64>,
    pub edge_pairs_tested_per_pair: Option<f64>,
    /// CPU time of the calling thread per pair (median, ns): what the host
    /// itself spends on a batch; blocking waits and other threads (a
    /// software GPU's, rayon's) do not count. For `cpu` about `ns_per_pair`;
    /// for `gpu` the packing, sorting by kind and ordering of hits, and any
    /// polling while it waits.
    pub host_ns_per_pair: Option<f64>,
    /// The GPU-resident frame: dispatches a frame.
    pub dispatches: Option<u32>,
    /// The GPU-resident frame: each stage's GPU time in microseconds, the
    /// median over a few frames timed stage by stage (timestamp queries).
    pub stage_times_us: Option<Vec<(&'static str, f64)>>,
}

/// The result of a sweep.
#[derive(Clone, Debug)]
pub struct BenchReport {
    pub workload: String,
    /// What ran it: CPU threads, the GPU adapter.
    pub machine: String,
    pub rows: Vec<BenchRow>,
    /// What all threads together get over one thread on a loop of vector
    /// arithmetic (no memory traffic): about the ceiling of `cpu-parallel`'s
    /// ratio on this machine, which on a shared virtual machine can be well
    /// under the thread count.
    pub parallel_ceiling: f64,
    /// Backends left out, and why.
    pub skipped: Vec<String>,
    /// Lines the table ends with (3D: the edge pairs tested).
    pub notes: Vec<String>,
    /// What the plot's x axis is.
    pub plot: PlotKind,
}

/// The plot of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotKind {
    /// Throughput against batch size (2D).
    ThroughputBySize,
    /// Cost per pair against the hulls' vertex count, at the largest batch
    /// (3D).
    CostByVertices,
}

fn ratio(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |ratio| format!("{ratio:.2}x"))
}

impl BenchReport {
    /// The table `gpusat bench` prints.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "workload: {}", self.workload);
        let _ = writeln!(out, "machine:  {}", self.machine);
        let by_shape = self.plot == PlotKind::CostByVertices;
        let _ = writeln!(
            out,
            "{}{:>9}  {:<13} {:>9} {:>10} {:>9} {:>8} {:>9}",
            if by_shape {
                format!("{:<10}", "shapes")
            } else {
                String::new()
            },
            "pairs",
            "backend",
            "hits",
            "Mpairs/s",
            "ns/pair",
            "vs cpu",
            "vs parry"
        );
        for row in &self.rows {
            let _ = writeln!(
                out,
                "{}{:>9}  {:<13} {:>9} {:>10.2} {:>9.1} {:>8} {:>9}",
                if by_shape {
                    format!("{:<10}", row.workload)
                } else {
                    String::new()
                },
                row.pairs,
                row.backend,
                row.hits,
                row.pairs_per_second / 1e6,
                row.ns_per_pair,
                ratio(row.vs_cpu),
                ratio(row.vs_peer),
            );
        }
        let largest_gpu = self
            .rows
            .iter()
            .filter(|row| row.backend == BenchBackend::Gpu.name())
            .max_by_key(|row| row.pairs);
        if let Some(row) = largest_gpu
            && let (Some(up), Some(down)) = (row.upload_bytes_per_pair, row.readback_bytes_per_hit)
        {
            let _ = writeln!(
                out,
                "GPU transfer at {} pairs: {up:.1} bytes uploaded per pair, {down:.1} bytes read back per reported pair \
                 (16-byte records; each window's output is sized at 1.125 times the last batch's hits \
                 plus 256 records and comes back whole, with the counters, in one round trip)",
                row.pairs
            );
        }
        if let Some(row) = largest_gpu
            && let Some(host) = row.host_ns_per_pair
        {
            let cpu_host = self
                .rows
                .iter()
                .find(|r| {
                    r.backend == BenchBackend::Cpu.name()
                        && r.pairs == row.pairs
                        && r.workload == row.workload
                })
                .and_then(|r| r.host_ns_per_pair);
            let _ = writeln!(
                out,
                "host CPU time of the calling thread at {} pairs: gpu {host:.1} ns per pair{} \
                 (packing, sorting by kind, polling, ordering the hits; not blocked waits or the GPU's own threads)",
                row.pairs,
                cpu_host.map_or_else(String::new, |cpu| format!(", cpu {cpu:.1}")),
            );
        }
        let _ = writeln!(
            out,
            "memory: {} bytes per pair in (two body indices), {} per reported pair out ({} with contacts)",
            size_of::<Pair>(),
            size_of::<SatHit>(),
            size_of::<Manifold>()
        );
        if let Some(row) = largest_gpu
            && let Some(device) = row.device_bytes_per_pair
        {
            let _ = writeln!(
                out,
                "GPU device memory at {} pairs: {device:.1} bytes per pair ({:.1} MiB)",
                row.pairs,
                device * row.pairs as f64 / f64::from(1 << 20)
            );
        }
        let _ = writeln!(
            out,
            "parallel ceiling: {:.2}x one thread with {} threads on vector arithmetic alone (about what cpu-parallel can reach here)",
            self.parallel_ceiling,
            rayon::current_num_threads()
        );
        for row in &self.rows {
            if let Some(dispatches) = row.dispatches {
                let stages = stage_list(row, ", ");
                let _ = writeln!(
                    out,
                    "{} at {} candidate pairs: {dispatches} dispatches a frame{}",
                    row.backend,
                    row.pairs,
                    if stages.is_empty() {
                        String::new()
                    } else {
                        format!("; GPU time a stage (us, timestamps): {stages}")
                    }
                );
            }
        }
        for reason in &self.skipped {
            let _ = writeln!(out, "skipped {reason}");
        }
        for note in &self.notes {
            let _ = writeln!(out, "{note}");
        }
        out
    }

    /// The rows as CSV with a header line.
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "workload,backend,pairs,hits,samples,ns_per_pair,pairs_per_second,vs_cpu,vs_peer,upload_bytes_per_pair,readback_bytes_per_hit,host_bytes_per_pair,device_bytes_per_pair,vertices,edge_pairs_per_pair,edge_pairs_tested_per_pair,host_ns_per_pair,dispatches,stage_times_us\n",
        );
        let optional = |value: Option<f64>| value.map_or_else(String::new, |v| format!("{v:.4}"));
        for row in &self.rows {
            let _ = writeln!(
                out,
                "\"{}\",{},{},{},{},{:.3},{:.1},{},{},{},{},{:.2},{},{},{},{},{},{},\"{}\"",
                row.workload.replace('"', "\"\""),
                row.backend,
                row.pairs,
                row.hits,
                row.samples,
                row.ns_per_pair,
                row.pairs_per_second,
                optional(row.vs_cpu),
                optional(row.vs_peer),
                optional(row.upload_bytes_per_pair),
                optional(row.readback_bytes_per_hit),
                row.host_bytes_per_pair,
                optional(row.device_bytes_per_pair),
                optional(row.vertices),
                optional(row.edge_pairs_per_pair),
                optional(row.edge_pairs_tested_per_pair),
                optional(row.host_ns_per_pair),
                row.dispatches.map_or_else(String::new, |d| d.to_string()),
                stage_list(row, ";"),
            );
        }
        out
    }

    /// The rows as JSON lines, one object per row.
    pub fn json_lines(&self) -> Result<String, Error> {
        let mut out = String::new();
        for row in &self.rows {
            let line = serde_json::to_string(row)
                .map_err(|err| Error::Render(format!("cannot write the bench as JSON: {err}")))?;
            out.push_str(&line);
            out.push('\n');
        }
        Ok(out)
    }
}

/// A row's stage times as `name value` items joined by `separator` (empty
/// without them).
fn stage_list(row: &BenchRow, separator: &str) -> String {
    row.stage_times_us
        .iter()
        .flatten()
        .map(|(stage, us)| format!("{stage} {us:.1}"))
        .collect::<Vec<_>>()
        .join(separator)
}
