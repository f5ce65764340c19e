//! Choosing and running a 3D narrowphase backend: the 2D
//! [`Narrowphase`](crate::d2::Narrowphase)'s choice (a hardware GPU for `auto`,
//! else the fastest CPU backend, with a note) over the 3D backends.

use super::batch::Batch;
use super::narrowphase::collide_cpu;
use super::types::SatHit;
use crate::core::backend::BackendKind;
use crate::core::error::Error;
#[cfg(feature = "gpu")]
use crate::gpu::{AdapterChoice, AdapterSummary, GpuOptions, GpuStats};

enum Engine {
    Cpu,
    #[cfg(feature = "parallel")]
    CpuParallel,
    #[cfg(feature = "gpu")]
    Gpu(Box<super::GpuNarrowphase>),
}

/// A ready 3D narrowphase: the CPU, or the 3D GPU pipeline with its buffers.
pub struct Narrowphase {
    engine: Engine,
    note: Option<String>,
    /// The GPU batch [`start`](Narrowphase::start)ed and not yet collected.
    #[cfg(feature = "gpu")]
    pending: Option<crate::gpu::PendingHits>,
}

impl std::fmt::Debug for Narrowphase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("d3::Narrowphase")
            .field("backend", &self.name())
            .field("note", &self.note)
            .finish()
    }
}

fn best_cpu() -> Engine {
    #[cfg(feature = "parallel")]
    return Engine::CpuParallel;
    #[cfg(not(feature = "parallel"))]
    return Engine::Cpu;
}

fn parallel() -> Result<Engine, Error> {
    #[cfg(feature = "parallel")]
    return Ok(Engine::CpuParallel);
    #[cfg(not(feature = "parallel"))]
    return Err(Error::NotBuilt {
        backend: "cpu-parallel",
        feature: "parallel",
    });
}

impl Narrowphase {
    /// Builds the backend, on the default adapter with default options for
    /// a GPU; [`BackendKind::Auto`] falls back to the CPU with a
    /// [note](Self::note).
    pub fn new(kind: BackendKind) -> Result<Narrowphase, Error> {
        #[cfg(feature = "gpu")]
        return Narrowphase::with_adapter(kind, &AdapterChoice::Auto, GpuOptions::default());
        #[cfg(not(feature = "gpu"))]
        return Ok(Narrowphase {
            engine: match kind {
                BackendKind::Cpu => Engine::Cpu,
                BackendKind::CpuParallel => parallel()?,
                BackendKind::Gpu => {
                    return Err(Error::NotBuilt {
                        backend: "gpu",
                        feature: "gpu",
                    });
                }
                BackendKind::Auto => best_cpu(),
            },
            note: None,
        });
    }

    /// Builds the backend on the adapter `adapter` picks, with `options`
    /// for a GPU (as [`crate::d2::Narrowphase::with_adapter`]).
    #[cfg(feature = "gpu")]
    pub fn with_adapter(
        kind: BackendKind,
        adapter: &AdapterChoice,
        options: GpuOptions,
    ) -> Result<Narrowphase, Error> {
        use crate::gpu::choice::{Choice, choose};
        let (engine, note) = match choose(kind, adapter, |context| {
            super::GpuNarrowphase::new(context, options.clone())
        })? {
            Choice::Cpu => (Engine::Cpu, None),
            Choice::CpuParallel => (parallel()?, None),
            Choice::Gpu(gpu) => (Engine::Gpu(Box::new(gpu)), None),
            Choice::Fallback(note) => (best_cpu(), Some(note)),
        };
        Ok(Narrowphase {
            engine,
            note,
            pending: None,
        })
    }

    /// A GPU backend on an existing 3D narrowphase (and so on its context,
    /// perhaps the caller's device, as a page's).
    #[cfg(feature = "gpu")]
    pub fn with_gpu(gpu: super::GpuNarrowphase) -> Narrowphase {
        Narrowphase {
            engine: Engine::Gpu(Box::new(gpu)),
            note: None,
            pending: None,
        }
    }

    /// The backend that runs: "cpu", "cpu-parallel" or "gpu".
    pub fn name(&self) -> &'static str {
        match self.engine {
            Engine::Cpu => "cpu",
            #[cfg(feature = "parallel")]
            Engine::CpuParallel => "cpu-parallel",
            #[cfg(feature = "gpu")]
            Engine::Gpu(_) => "gpu",
        }
    }

    /// Why `auto` did not pick a GPU, if it did not.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// The GPU adapter, for a GPU backend.
    #[cfg(feature = "gpu")]
    pub fn adapter(&self) -> Option<&AdapterSummary> {
        match &self.engine {
            Engine::Gpu(gpu) => Some(gpu.context().adapter()),
            _ => None,
        }
    }

    /// The GPU narrowphase, for a GPU backend.
    #[cfg(feature = "gpu")]
    pub fn gpu(&self) -> Option<&super::GpuNarrowphase> {
        match &self.engine {
            Engine::Gpu(gpu) => Some(gpu),
            _ => None,
        }
    }

    /// What the last GPU batch did, for a GPU backend.
    #[cfg(feature = "gpu")]
    pub fn gpu_stats(&self) -> Option<&GpuStats> {
        self.gpu().map(|gpu| gpu.stats())
    }

    /// Reported pairs of the batch, in pair order. On the CPU the worst case
    /// (every pair reported) must fit in memory before any work is done.
    pub fn collide(&mut self, batch: &Batch) -> Result<Vec<SatHit>, Error> {
        match &mut self.engine {
            Engine::Cpu => {
                crate::core::alloc::reserve_output::<SatHit>(batch.pairs().len(), "hits")?;
                Ok(collide_cpu(batch))
            }
            #[cfg(feature = "parallel")]
            Engine::CpuParallel => {
                crate::core::alloc::reserve_output::<SatHit>(batch.pairs().len(), "hits")?;
                Ok(super::narrowphase::collide_cpu_parallel(batch))
            }
            #[cfg(feature = "gpu")]
            Engine::Gpu(gpu) => Ok(gpu.collide(batch)?),
        }
    }

    /// Starts the batch without waiting for a GPU, as the 2D
    /// [`Narrowphase::start`](crate::d2::Narrowphase::start): the CPU
    /// engines return its hits at once; the GPU submits it and returns
    /// `None`: then [`poll`](Self::poll) until the hits come.
    pub fn start(&mut self, batch: &Batch) -> Result<Option<Vec<SatHit>>, Error> {
        #[cfg(feature = "gpu")]
        if let Engine::Gpu(gpu) = &mut self.engine {
            // A batch still in flight makes this `GpuError::Busy`.
            self.pending = Some(gpu.start(batch)?);
            return Ok(None);
        }
        self.collide(batch).map(Some)
    }

    /// The started batch's hits, in pair order, once the GPU is done;
    /// `None` while it is at it. Never waits. An error drops the batch.
    pub fn poll(&mut self) -> Result<Option<Vec<SatHit>>, Error> {
        #[cfg(feature = "gpu")]
        if let (Engine::Gpu(gpu), Some(pending)) = (&mut self.engine, self.pending.as_ref()) {
            let polled = gpu.poll(pending);
            if !matches!(polled, Ok(None)) {
                self.pending = None;
            }
            return Ok(polled?);
        }
        Err(Error::Argument {
            name: "poll",
            message: "was called with no GPU batch started (start starts one)".to_string(),
        })
    }
}
