//! Choosing and running a narrowphase backend.

use std::sync::Arc;

use crate::error::Error;
use crate::gpu::{AdapterChoice, AdapterSummary, GpuContext, GpuNarrowphase, GpuOptions, GpuStats};
use crate::narrowphase::{Batch, SatHit, collide_cpu_parallel, reserve_output};

/// Which narrowphase to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackendKind {
    /// The scalar CPU reference.
    Cpu,
    /// The reference on all cores (rayon); identical results.
    CpuParallel,
    /// The WGSL kernel; an error when there is no adapter.
    Gpu,
    /// A GPU when there is one, otherwise the parallel CPU backend.
    Auto,
}

impl BackendKind {
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Cpu => "cpu",
            BackendKind::CpuParallel => "cpu-parallel",
            BackendKind::Gpu => "gpu",
            BackendKind::Auto => "auto",
        }
    }
}

enum Engine {
    Cpu,
    CpuParallel,
    Gpu(Box<GpuNarrowphase>),
}

/// A ready narrowphase: the CPU, or a GPU pipeline with its buffers.
pub struct Narrowphase {
    engine: Engine,
    note: Option<String>,
}

impl Narrowphase {
    /// Builds the backend. With [`BackendKind::Auto`] a missing or unusable
    /// GPU is not an error: the CPU is used and [`note`](Self::note) says why.
    pub fn new(
        kind: BackendKind,
        adapter: &AdapterChoice,
        options: GpuOptions,
    ) -> Result<Narrowphase, Error> {
        let engine = match kind {
            BackendKind::Cpu => Engine::Cpu,
            BackendKind::CpuParallel => Engine::CpuParallel,
            BackendKind::Gpu => Engine::Gpu(Box::new(Narrowphase::open_gpu(adapter, options)?)),
            BackendKind::Auto => match Narrowphase::open_gpu(adapter, options) {
                Ok(gpu) => Engine::Gpu(Box::new(gpu)),
                Err(err) => {
                    return Ok(Narrowphase {
                        engine: Engine::CpuParallel,
                        note: Some(format!("no usable GPU ({err}); using the CPU")),
                    });
                }
            },
        };
        Ok(Narrowphase { engine, note: None })
    }

    fn open_gpu(adapter: &AdapterChoice, options: GpuOptions) -> Result<GpuNarrowphase, Error> {
        let context = Arc::new(GpuContext::new(adapter)?);
        GpuNarrowphase::new(context, options)
    }

    /// A GPU backend on an existing context.
    pub fn with_gpu(gpu: GpuNarrowphase) -> Narrowphase {
        Narrowphase {
            engine: Engine::Gpu(Box::new(gpu)),
            note: None,
        }
    }

    /// The backend that runs: "cpu", "cpu-parallel" or "gpu".
    pub fn name(&self) -> &'static str {
        match self.engine {
            Engine::Cpu => "cpu",
            Engine::CpuParallel => "cpu-parallel",
            Engine::Gpu(_) => "gpu",
        }
    }

    /// Why `auto` did not pick a GPU, if it did not.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    pub fn adapter(&self) -> Option<&AdapterSummary> {
        match &self.engine {
            Engine::Gpu(gpu) => Some(gpu.context().adapter()),
            _ => None,
        }
    }

    pub fn gpu(&self) -> Option<&GpuNarrowphase> {
        match &self.engine {
            Engine::Gpu(gpu) => Some(gpu),
            _ => None,
        }
    }

    pub fn gpu_stats(&self) -> Option<&GpuStats> {
        self.gpu().map(|gpu| gpu.stats())
    }

    /// Reported pairs of the batch, in pair order.
    pub fn collide(&mut self, batch: &Batch) -> Result<Vec<SatHit>, Error> {
        match &mut self.engine {
            // The worst case must fit before any work is done (the room is
            // virtual until written): a batch too large for the machine is
            // an error saying how much it needs, not an abort half-way.
            Engine::Cpu => {
                let mut hits = reserve_output::<SatHit>(batch.pairs().len(), "hits")?;
                crate::sat_lanes::collide_range(batch, 0..batch.pairs().len(), &mut hits);
                Ok(hits)
            }
            Engine::CpuParallel => {
                reserve_output::<SatHit>(batch.pairs().len(), "hits")?;
                Ok(collide_cpu_parallel(batch))
            }
            Engine::Gpu(gpu) => gpu.collide(batch),
        }
    }
}
