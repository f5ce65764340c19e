//! Large polygons: every face against every vertex (brute force) against the
//! merged search (seed 003's Gauss map in 2D), on the CPU and the GPU, for
//! polygons of 12 to 64 vertices. The thresholds `CPU_MERGE_THRESHOLD` and
//! `GPU_MERGE_THRESHOLD` come from here. `cpu scalar brute force` is the
//! one-face-at-a-time reference (`collide_scalar`) with every face
//! against every vertex: what the merge is measured against when the CPU's
//! brute force is not vectorised.

use std::sync::Arc;
use std::time::Duration;

mod support;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gpusat::generate::{Density, ShapeKind, workload};
use gpusat::gpu::{AdapterChoice, GpuContext, GpuNarrowphase, GpuOptions};
use gpusat::{Batch, FaceSearch, collide_cpu, collide_scalar};

const PAIRS: usize = 20_000;

fn large_polygons(c: &mut Criterion) {
    let mut gpu = GpuContext::new(&AdapterChoice::Auto)
        .ok()
        .and_then(|context| GpuNarrowphase::new(Arc::new(context), GpuOptions::default()).ok());
    let mut group = c.benchmark_group("large_polygons");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(PAIRS as u64));
    for vertices in [12, 16, 24, 32, 48, 64] {
        let scene = workload(ShapeKind::Polygons(vertices), Density::Reference, PAIRS);
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
        let brute_force = batch.clone().with_face_search(FaceSearch::BruteForce);
        group.bench_with_input(
            BenchmarkId::new("cpu scalar brute force", vertices),
            &brute_force,
            |b, batch| b.iter(|| collide_scalar(batch)),
        );
        for (name, search) in [
            ("brute force", FaceSearch::BruteForce),
            ("merged", FaceSearch::Merged),
        ] {
            let batch = batch.clone().with_face_search(search);
            group.bench_with_input(
                BenchmarkId::new(format!("cpu {name}"), vertices),
                &batch,
                |b, batch| b.iter(|| collide_cpu(batch)),
            );
            if let Some(gpu) = gpu.as_mut()
                && gpu.context().has_timestamps()
            {
                gpu.collide(&batch).expect("GPU warm-up");
                group.bench_with_input(
                    BenchmarkId::new(format!("gpu kernel {name}"), vertices),
                    &batch,
                    |b, batch| {
                        b.iter_custom(|iterations| support::kernel_time(gpu, batch, iterations))
                    },
                );
            }
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // Numbers only: criterion's plots would need a system font.
    config = Criterion::default().without_plots();
    targets = large_polygons
}
criterion_main!(benches);
