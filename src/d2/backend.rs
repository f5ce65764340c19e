//! Choosing and running a narrowphase backend.
//!
//! [`Narrowphase`] is one type over every backend, so that a pipeline (the
//! [`World`](crate::d2::World), the command) picks one at start and calls
//! [`Narrowphase::collide`] frame after frame. [`BackendKind::Auto`] picks by
//! speed: a hardware GPU when there is one; when the only adapter is a
//! software rasterizer (lavapipe, WARP: wgpu's device type `Cpu`), the CPU,
//! which is faster than a GPU emulated on the same cores, with a
//! [note](Narrowphase::note) saying why.

use crate::core::backend::BackendKind;
use crate::core::error::Error;
use crate::d2::batch::Batch;
use crate::d2::narrowphase::collide_cpu_into;
use crate::d2::types::SatHit;
#[cfg(feature = "gpu")]
use crate::gpu::choice::{Choice, choose};
#[cfg(feature = "gpu")]
use crate::gpu::{AdapterChoice, AdapterSummary, GpuNarrowphase, GpuOptions, GpuStats};

enum Engine {
    Cpu,
    #[cfg(feature = "parallel")]
    CpuParallel,
    #[cfg(feature = "gpu")]
    Gpu(Box<GpuNarrowphase>),
}

/// The fastest CPU engine this build has.
fn best_cpu() -> Engine {
    #[cfg(feature = "parallel")]
    return Engine::CpuParallel;
    #[cfg(not(feature = "parallel"))]
    return Engine::Cpu;
}

/// A ready narrowphase: the CPU, or a GPU pipeline with its buffers.
pub struct Narrowphase {
    engine: Engine,
    note: Option<String>,
    /// The GPU batch [`start`](Narrowphase::start)ed and not yet collected.
    #[cfg(feature = "gpu")]
    pending: Option<crate::gpu::PendingHits>,
}

impl std::fmt::Debug for Narrowphase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Narrowphase")
            .field("backend", &self.name())
            .field("note", &self.note)
            .finish()
    }
}

impl Narrowphase {
    /// Builds the backend, on the default adapter with default options for
    /// a GPU. With [`BackendKind::Auto`] a missing, unusable or software GPU
    /// is not an error: the CPU is used and [`note`](Self::note) says why.
    pub fn new(kind: BackendKind) -> Result<Narrowphase, Error> {
        #[cfg(feature = "gpu")]
        return Narrowphase::with_adapter(kind, &AdapterChoice::Auto, GpuOptions::default());
        #[cfg(not(feature = "gpu"))]
        return match kind {
            BackendKind::Cpu => Ok(Narrowphase::cpu(Engine::Cpu)),
            BackendKind::CpuParallel => Narrowphase::parallel(),
            BackendKind::Gpu => Err(Error::NotBuilt {
                backend: "gpu",
                feature: "gpu",
            }),
            BackendKind::Auto => Ok(Narrowphase::cpu(best_cpu())),
        };
    }

    fn cpu(engine: Engine) -> Narrowphase {
        Narrowphase {
            engine,
            note: None,
            #[cfg(feature = "gpu")]
            pending: None,
        }
    }

    fn parallel() -> Result<Narrowphase, Error> {
        #[cfg(feature = "parallel")]
        return Ok(Narrowphase::cpu(Engine::CpuParallel));
        #[cfg(not(feature = "parallel"))]
        return Err(Error::NotBuilt {
            backend: "cpu-parallel",
            feature: "parallel",
        });
    }

    /// Builds the backend on the adapter `adapter` picks, with `options`
    /// for a GPU. With [`BackendKind::Auto`] and [`AdapterChoice::Auto`], a
    /// software adapter is passed over for the CPU; an adapter asked for by
    /// name is used whatever it is.
    #[cfg(feature = "gpu")]
    pub fn with_adapter(
        kind: BackendKind,
        adapter: &AdapterChoice,
        options: GpuOptions,
    ) -> Result<Narrowphase, Error> {
        Ok(
            match choose(kind, adapter, |context| {
                GpuNarrowphase::new(context, options.clone())
            })? {
                Choice::Cpu => Narrowphase::cpu(Engine::Cpu),
                Choice::CpuParallel => Narrowphase::parallel()?,
                Choice::Gpu(gpu) => Narrowphase::with_gpu(gpu),
                Choice::Fallback(note) => Narrowphase {
                    note: Some(note),
                    ..Narrowphase::cpu(best_cpu())
                },
            },
        )
    }

    /// A GPU backend on an existing narrowphase (and so on its context,
    /// perhaps the caller's device).
    #[cfg(feature = "gpu")]
    pub fn with_gpu(gpu: GpuNarrowphase) -> Narrowphase {
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
        self.gpu().map(|gpu| gpu.context().adapter())
    }

    /// The GPU narrowphase, for a GPU backend.
    #[cfg(feature = "gpu")]
    pub fn gpu(&self) -> Option<&GpuNarrowphase> {
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
    /// (every pair reported) must fit in memory before any work is done: a
    /// batch too large for the machine is an error saying how much it
    /// needs, not an abort half-way.
    pub fn collide(&mut self, batch: &Batch) -> Result<Vec<SatHit>, Error> {
        match &mut self.engine {
            Engine::Cpu => {
                let mut hits = Vec::new();
                collide_cpu_into(batch, &mut hits)?;
                Ok(hits)
            }
            #[cfg(feature = "parallel")]
            Engine::CpuParallel => {
                crate::core::alloc::reserve_output::<SatHit>(batch.pairs().len(), "hits")?;
                Ok(crate::d2::narrowphase::collide_cpu_parallel(batch))
            }
            #[cfg(feature = "gpu")]
            Engine::Gpu(gpu) => Ok(gpu.collide(batch)?),
        }
    }

    /// Starts the batch without waiting for a GPU: the CPU engines run it at
    /// once and return its hits; the GPU records it into an encoder of its
    /// own, submits it and returns `None`: then [`poll`](Self::poll) until
    /// the hits come. A page's way to run a GPU batch (it cannot wait), and
    /// a native application's to do other work meanwhile.
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
