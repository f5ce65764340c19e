//! Which narrowphase a pipeline runs, named the same in both dimensions.
//! `d2::Narrowphase` and `d3::Narrowphase` run the choice; what `auto`
//! picks is decided in `gpu::choice`.

/// Which narrowphase to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackendKind {
    /// The CPU reference, one thread.
    Cpu,
    /// The reference on all cores (the `parallel` feature); identical results.
    CpuParallel,
    /// The WGSL kernel (the `gpu` feature); an error when there is no adapter.
    Gpu,
    /// A hardware GPU when there is one, otherwise the fastest CPU backend.
    Auto,
}

impl BackendKind {
    /// The name the command uses: `cpu`, `cpu-parallel`, `gpu`, `auto`.
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Cpu => "cpu",
            BackendKind::CpuParallel => "cpu-parallel",
            BackendKind::Gpu => "gpu",
            BackendKind::Auto => "auto",
        }
    }
}
