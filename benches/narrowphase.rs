//! Narrowphase throughput in pairs per second: the CPU reference, the CPU
//! parallel backend, the GPU end to end (upload + kernel + readback) and the
//! GPU kernel alone (timestamp queries), for batches of 1k to 1M pairs of
//! 4-, 8- and 16-gons, circles and mixed shapes, sparse (about 10%
//! overlapping) and dense (about 80%); plus the reference distribution
//! (`Density::Reference`) and SAT + clipping. The comparison with parry2d
//! on the identical pairs is `gpusat bench --backends cpu-contacts,parry2d`
//! (the command's bench, which has the peers).
//!
//! Select with criterion's filter, e.g. `cargo bench --bench narrowphase -- reference`.

use std::sync::Arc;
use std::time::Duration;

mod support;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gpusat::generate::{Density, ShapeKind, workload};
use gpusat::gpu::{AdapterChoice, GpuContext, GpuNarrowphase, GpuOptions};
use gpusat::{Batch, collide_cpu, collide_cpu_parallel, contacts_cpu};

const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

fn gpu() -> Option<GpuNarrowphase> {
    match GpuContext::new(&AdapterChoice::Auto) {
        Ok(context) => GpuNarrowphase::new(Arc::new(context), GpuOptions::default()).ok(),
        Err(err) => {
            eprintln!("no GPU benches: {err}");
            None
        }
    }
}

fn bench_backends(
    c: &mut Criterion,
    group_name: &str,
    kind: ShapeKind,
    density: Density,
    gpu: &mut Option<GpuNarrowphase>,
) {
    let scene = workload(kind, density, *SIZES.last().unwrap_or(&1000));
    let mut group = c.benchmark_group(group_name);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for size in SIZES {
        let pairs = &scene.pairs[..size];
        let batch = Batch::new(&scene.shapes, &scene.bodies, pairs, 0.0).expect("batch");
        group.throughput(Throughput::Elements(size as u64));
        group.bench_with_input(BenchmarkId::new("cpu", size), &batch, |b, batch| {
            b.iter(|| collide_cpu(batch))
        });
        group.bench_with_input(
            BenchmarkId::new("cpu-parallel", size),
            &batch,
            |b, batch| b.iter(|| collide_cpu_parallel(batch)),
        );
        if let Some(gpu) = gpu.as_mut() {
            gpu.collide(&batch).expect("GPU warm-up");
            group.bench_with_input(BenchmarkId::new("gpu", size), &batch, |b, batch| {
                b.iter(|| gpu.collide(batch).expect("GPU"))
            });
            if gpu.context().has_timestamps() {
                group.bench_with_input(BenchmarkId::new("gpu-kernel", size), &batch, |b, batch| {
                    b.iter_custom(|iterations| support::kernel_time(gpu, batch, iterations))
                });
            }
        }
    }
    group.finish();
}

fn matrix(c: &mut Criterion) {
    let mut gpu = gpu();
    for kind in [
        ShapeKind::Polygons(4),
        ShapeKind::Polygons(8),
        ShapeKind::Polygons(16),
        ShapeKind::Circles,
        ShapeKind::Mixed,
    ] {
        for density in [Density::Sparse, Density::Dense] {
            let name = format!("sat/{}/{}", kind.name(), density.name());
            bench_backends(c, &name, kind, density, &mut gpu);
        }
    }
}

fn reference(c: &mut Criterion) {
    let mut gpu = gpu();
    for vertices in [4, 8, 16] {
        bench_backends(
            c,
            &format!("reference/{vertices}-gons"),
            ShapeKind::Polygons(vertices),
            Density::Reference,
            &mut gpu,
        );
    }
}

/// SAT alone and SAT + clipping per pair, so the ratio comes from one run.
fn contacts(c: &mut Criterion) {
    for vertices in [4, 8] {
        let scene = workload(ShapeKind::Polygons(vertices), Density::Reference, 100_000);
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
        let mut group = c.benchmark_group(format!("contacts/{vertices}-gons"));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3));
        group.throughput(Throughput::Elements(scene.pairs.len() as u64));
        group.bench_function("gpusat sat", |b| b.iter(|| collide_cpu(&batch)));
        group.bench_function("gpusat sat+manifold", |b| b.iter(|| contacts_cpu(&batch)));
        group.finish();
    }
}

criterion_group! {
    name = benches;
    // Numbers only: criterion's plots would need a system font.
    config = Criterion::default().without_plots();
    targets = reference, contacts, matrix
}
criterion_main!(benches);
