//! The 3D edge query alone, on the pairs of `gpusat bench --dim 3`: the
//! Gauss-map test on every pair of edges (`pairwise`: the GPU kernel's loop
//! and the twin), the same eight edges at a time (`lanes`: the default below
//! `walk_min_vertices()`), and the output-sensitive walk across A's Gauss
//! map (`walk`: the default above it). The walk's supports come from B's
//! face query, which the SAT runs before it; here it runs outside the
//! timing. All three give the same result bit for bit
//! (the 3D lanes and pruning tests).

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gpusat::d3::math::{Transform, inv_mul_transforms};
use gpusat::d3::sat::{
    EdgeSeparation, FaceSupports, TIE_TOLERANCE, find_max_edge_separation,
    find_max_edge_separation_lanes, find_max_edge_separation_walk,
    find_max_face_separation_supports,
};
use gpusat::d3::{Batch, EdgeStats, Hull, Shape};
use gpusat::generate::d3::{ShapeKind, workload};

const PAIRS: usize = 400;

/// One hull pair as the SAT sees it: B's frame in A's, the tie tolerance,
/// and what B's face query records for the walk.
struct HullPair<'a> {
    a: &'a Hull,
    b: &'a Hull,
    xf_ab: Transform,
    tolerance: f32,
    supports: FaceSupports,
}

fn hull_pairs<'a>(batch: &Batch<'a>) -> Vec<HullPair<'a>> {
    batch
        .pairs()
        .iter()
        .filter_map(|pair| {
            let (Shape::Hull(a), Shape::Hull(b)) = (batch.shape_of(pair.a), batch.shape_of(pair.b))
            else {
                return None;
            };
            let (xf_a, xf_b) = (
                batch.transforms()[pair.a as usize],
                batch.transforms()[pair.b as usize],
            );
            let xf_ab = inv_mul_transforms(xf_a, xf_b);
            let tolerance = TIE_TOLERANCE * (a.size() + b.size());
            let mut supports = FaceSupports::default();
            find_max_face_separation_supports(
                b,
                a,
                xf_ab,
                (tolerance, f32::MAX),
                Some(&mut supports),
            );
            Some(HullPair {
                a,
                b,
                xf_ab,
                tolerance,
                supports,
            })
        })
        .collect()
}

/// One query over every pair, the separations summed (so that none is
/// optimised away).
fn sum_over(
    pairs: &mut [HullPair],
    mut query: impl FnMut(&mut HullPair, &mut EdgeStats) -> EdgeSeparation,
) -> f32 {
    let mut stats = EdgeStats::default();
    pairs.iter_mut().map(|p| query(p, &mut stats).value).sum()
}

fn edge_queries(c: &mut Criterion) {
    let mut group = c.benchmark_group("hull_edge_queries");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(PAIRS as u64));
    for vertices in [32, 64, 128, 256] {
        let scene = workload(ShapeKind::Hulls(vertices), PAIRS);
        let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
        let mut pairs = hull_pairs(&batch);
        let limit = batch.margin();
        // No floor (`f32::MIN`): the whole edge query, as if no face had
        // been found, the most work it can be asked for.
        type Query = fn(&Hull, &Hull, Transform, f32, f32, f32, &mut EdgeStats) -> EdgeSeparation;
        let queries: [(&str, Query); 2] = [
            ("pairwise", find_max_edge_separation),
            ("lanes", find_max_edge_separation_lanes),
        ];
        for (name, query) in queries {
            group.bench_function(BenchmarkId::new(name, vertices), |b| {
                b.iter(|| {
                    sum_over(&mut pairs, |p, stats| {
                        query(p.a, p.b, p.xf_ab, p.tolerance, limit, f32::MIN, stats)
                    })
                })
            });
        }
        // The walk looks up, on first use, the supports B's face query
        // skipped; they stay filled from one iteration to the next.
        group.bench_function(BenchmarkId::new("walk", vertices), |b| {
            b.iter(|| {
                sum_over(&mut pairs, |p, stats| {
                    find_max_edge_separation_walk(
                        p.a,
                        p.b,
                        p.xf_ab,
                        (p.tolerance, limit, f32::MIN),
                        &mut p.supports,
                        stats,
                    )
                })
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // Plots need fonts this machine may not have; the numbers are printed.
    config = Criterion::default().without_plots();
    targets = edge_queries
}
criterion_main!(benches);
