//! The rows a bench can have: one way of running the narrowphase each.

use gpusat::{Manifold, SatHit};

/// One way of running the narrowphase, as a row of the bench.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BenchBackend {
    /// The CPU reference on one thread (SAT only).
    Cpu,
    /// The CPU reference on all cores.
    CpuParallel,
    /// SAT and contact clipping on one thread: the figure to put beside
    /// parry2d's `query::contact`, which also builds contacts.
    CpuContacts,
    /// The GPU end to end: upload, kernel, readback and ordering.
    Gpu,
    /// The GPU kernel alone, from timestamp queries.
    GpuKernel,
    /// parry2d's `query::contact` on the same pairs, one thread.
    Parry2d,
    /// Box2D v3's manifold functions (`b2CollidePolygons`, ...) on the
    /// same pairs, one thread (built with the `box2d` feature).
    Box2d,
    /// 3D: the unpruned edge query (every edge pair projected in full).
    CpuBrute,
    /// 3D: the pruned queries' loops over every vertex and every edge pair
    /// (the GPU kernel's), without the Gauss-map grid.
    CpuPairwise,
    /// 3D: parry3d's `query::contact` on the same pairs, one thread.
    Parry3d,
    /// 3D: Box3D's manifold functions (`b3CollideHulls`, ...) on the same
    /// pairs, one thread, each call from an empty cache (built with the
    /// `box3d` feature).
    Box3d,
    /// 3D: the same, each pair's cache kept from a call before on the same
    /// poses (Box3D's frame-to-frame hint, bodies unmoved).
    Box3dCached,
    /// A GPU-resident frame ([`gpusat::gpu::GpuFrame`]): bodies in, hits
    /// out, on a scene of its own with about the batch size's candidate
    /// pairs, beside the CPU's and today's GPU frame on the same bodies
    /// (`crate::bench_frame`).
    GpuResident,
}

impl BenchBackend {
    pub const ALL: [BenchBackend; 7] = [
        BenchBackend::Cpu,
        BenchBackend::CpuParallel,
        BenchBackend::CpuContacts,
        BenchBackend::Gpu,
        BenchBackend::GpuKernel,
        BenchBackend::Parry2d,
        BenchBackend::GpuResident,
    ];

    /// The 3D bench's backends.
    pub const ALL3: [BenchBackend; 8] = [
        BenchBackend::Cpu,
        BenchBackend::CpuParallel,
        BenchBackend::CpuContacts,
        BenchBackend::Gpu,
        BenchBackend::GpuKernel,
        BenchBackend::CpuPairwise,
        BenchBackend::CpuBrute,
        BenchBackend::Parry3d,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BenchBackend::Cpu => "cpu",
            BenchBackend::CpuParallel => "cpu-parallel",
            BenchBackend::CpuContacts => "cpu-contacts",
            BenchBackend::Gpu => "gpu",
            BenchBackend::GpuKernel => "gpu-kernel",
            BenchBackend::Parry2d => "parry2d",
            BenchBackend::Box2d => "box2d",
            BenchBackend::CpuBrute => "cpu-brute",
            BenchBackend::CpuPairwise => "cpu-pairwise",
            BenchBackend::Parry3d => "parry3d",
            BenchBackend::Box3d => "box3d",
            BenchBackend::Box3dCached => "box3d-cached",
            BenchBackend::GpuResident => "gpu-resident",
        }
    }

    pub fn needs_gpu(self) -> bool {
        matches!(
            self,
            BenchBackend::Gpu | BenchBackend::GpuKernel | BenchBackend::GpuResident
        )
    }
}

/// Host bytes per reported pair of a backend's output.
pub(crate) fn output_bytes(backend: BenchBackend) -> usize {
    match backend {
        BenchBackend::CpuContacts => size_of::<Manifold>(),
        // parry's contacts are counted, not kept.
        BenchBackend::Parry2d
        | BenchBackend::Parry3d
        | BenchBackend::Box2d
        | BenchBackend::Box3d
        | BenchBackend::Box3dCached => 0,
        _ => size_of::<SatHit>(),
    }
}
