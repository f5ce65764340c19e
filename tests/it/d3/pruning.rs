//! The Gauss-map pruning is sound: on every pair, the edge query with the
//! test and without it (every non-parallel edge pair, projected in full) give
//! the same answer. The pruned query looks at a small fraction of the pairs.
//!
//! "The same answer": the same pairs reported and the same depth within
//! `1e-5 x size` for overlapping pairs, the same normal unless another axis
//! ties (then the other normal must overlap by the same depth). Separated
//! pairs within a margin are an exception by design: the SAT's separation
//! is the largest over the Minkowski difference's face planes, a lower bound
//! of the gap, and the brute force, projecting on more axes, may find a
//! larger one (and then drop a pair the pruned search keeps).

use crate::common::oracle3::{overlap_along, place};
use gpusat::d3::{Batch, EdgeSearch, collide_cpu_with_stats};
use gpusat::generate::d3::{GeneratedScene, SceneSpec};

use super::assert_search_is_the_pairwise_loops;

/// Runs both searches with `margin`; returns (edge pairs kept, looked at)
/// of the pruned search.
fn compare(what: &str, scene: &GeneratedScene, margin: f32) -> (u64, u64) {
    let pruned = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, margin).expect("batch");
    let brute = pruned.clone().with_edge_search(EdgeSearch::BruteForce);
    let (pruned_hits, pruned_stats) = collide_cpu_with_stats(&pruned);
    let (brute_hits, brute_stats) = collide_cpu_with_stats(&brute);
    let mut brute_of = vec![None; scene.pairs.len()];
    for hit in &brute_hits {
        brute_of[hit.pair as usize] = Some(*hit);
    }
    let (mut same_normal, mut overlapping, mut worst) = (0, 0, 0.0f32);
    for ours in &pruned_hits {
        let size = pruned.pair_size(ours.pair);
        let Some(theirs) = brute_of[ours.pair as usize].take() else {
            // The brute force also projects on axes that are not faces of
            // the Minkowski difference: with a margin it may find a larger
            // separation of a separated pair, never of an overlapping one.
            assert!(
                ours.depth <= 1e-5 * size,
                "{what}: pair {} (depth {}, {:?}) not reported by the brute force",
                ours.pair,
                ours.depth,
                ours.axis
            );
            continue;
        };
        let difference = (ours.depth - theirs.depth).abs();
        if ours.depth > 0.0 || theirs.depth > 0.0 {
            overlapping += 1;
            worst = worst.max(difference / size);
            assert!(
                difference <= 1e-5 * size,
                "{what}: pair {}: pruned depth {} ({:?}), brute force {} ({:?})",
                ours.pair,
                ours.depth,
                ours.axis,
                theirs.depth,
                theirs.axis
            );
        } else {
            // Separated: both lower bounds of the gap, the brute force's
            // over more axes.
            assert!(
                theirs.depth <= ours.depth + 1e-5 * size,
                "{what}: pair {}: brute force separation {} below the pruned {}",
                ours.pair,
                -theirs.depth,
                -ours.depth
            );
            continue;
        }
        // Parallel edges give one axis under different indices, so compare
        // normals; where they differ, both must be minimum translations.
        let (normal, other) = (pruned.hit(*ours).normal, brute.hit(theirs).normal);
        if (normal - other).length() <= 1e-4 {
            same_normal += 1;
        } else {
            let pair = scene.pairs[ours.pair as usize];
            let a = place(&scene.shapes, &scene.bodies[pair.a as usize]);
            let b = place(&scene.shapes, &scene.bodies[pair.b as usize]);
            let along = overlap_along(&a, &b, other.as_dvec3());
            assert!(
                (along - ours.depth as f64).abs() <= 1e-4 * size as f64,
                "{what}: pair {}: the brute force's normal {other} ({:?}) overlaps by {along}, the pruned depth is {} ({:?}, normal {normal})",
                ours.pair,
                theirs.axis,
                ours.depth,
                ours.axis
            );
        }
    }
    let missed: Vec<u32> = brute_of.iter().flatten().map(|h| h.pair).collect();
    assert!(
        missed.is_empty(),
        "{what}: pairs {missed:?} reported only by the brute force"
    );
    eprintln!(
        "{what} (margin {margin}): {} hits, {overlapping} overlapping, {same_normal} with the same normal, \
         worst depth difference {worst:.1e} x size; edge pairs kept {} of {} pruned ({:.2}%), {} of {} brute force",
        pruned_hits.len(),
        pruned_stats.kept,
        pruned_stats.edge_pairs,
        100.0 * pruned_stats.kept as f64 / pruned_stats.edge_pairs.max(1) as f64,
        brute_stats.kept,
        brute_stats.edge_pairs,
    );
    assert!(
        same_normal * 100 >= overlapping * 97,
        "{what}: only {same_normal} of {overlapping} overlapping hits have the same normal"
    );
    (pruned_stats.kept, pruned_stats.edge_pairs)
}

#[test]
fn pruned_and_brute_force_agree_on_mixed_shapes() {
    let scene = SceneSpec {
        half_extent: 1.2,
        ..SceneSpec::mixed(1401, 4000)
    }
    .generate();
    compare("mixed", &scene, 0.0);
    let (kept, tested) = compare("mixed", &scene, 0.1);
    assert!(kept * 10 < tested, "kept {kept} of {tested}");
}

#[test]
fn pruned_and_brute_force_agree_on_large_hulls() {
    let scene = SceneSpec {
        shapes: 16,
        bodies: 64,
        vertices: (96, 256),
        sphere_fraction: 0.0,
        box_fraction: 0.0,
        plate_fraction: 0.1,
        half_extent: 1.0,
        ..SceneSpec::mixed(1402, 150)
    }
    .generate();
    let (kept, tested) = compare("large", &scene, 0.0);
    // About 0.86 x E of the E_A x E_B pairs pass on random hulls.
    assert!(kept * 100 < tested, "kept {kept} of {tested}");
}

#[test]
fn pruned_and_brute_force_agree_on_boxes() {
    let scene = SceneSpec {
        sphere_fraction: 0.0,
        box_fraction: 1.0,
        plate_fraction: 0.0,
        half_extent: 1.0,
        ..SceneSpec::mixed(1403, 3000)
    }
    .generate();
    compare("boxes", &scene, 0.0);
    compare("boxes", &scene, 0.1);
}

/// The output-sensitive queries (`EdgeSearch::Walk`: the face queries'
/// grid lookups and the walks across the Gauss maps, on every hull pair;
/// the default takes them from `walk_min_vertices()` on) give the pairwise
/// loops' results bit for bit: the same pairs, axes and depths.
#[test]
fn the_output_sensitive_queries_equal_the_pairwise_loops() {
    let mut compared = 0;
    let mut walked_pairs = 0;
    // Hulls with a Gauss-map grid: the lookups take it, not a scan.
    let walk_min = gpusat::d3::GRID_MIN_VERTICES;
    for (seed, vertices, half_extent, margin) in [
        (1411, (4, 40), 1.2, 0.0),
        (1412, (16, 64), 1.0, 0.1),
        (1413, (64, 256), 0.8, 0.0),
        (1414, (100, 256), 2.0, 0.3),
    ] {
        let scene = SceneSpec {
            shapes: 40,
            bodies: 200,
            vertices,
            half_extent,
            ..SceneSpec::mixed(seed, 1500)
        }
        .generate();
        let what = format!("seed {seed}");
        compared += assert_search_is_the_pairwise_loops(&what, &scene, margin, EdgeSearch::Walk);
        walked_pairs += scene
            .pairs
            .iter()
            .filter(|pair| {
                let walks = |body: u32| {
                    scene
                        .shapes
                        .get(scene.bodies[body as usize].shape)
                        .and_then(|s| s.hull())
                        .is_some_and(|h| h.vertices().len() >= walk_min && h.gauss_grid().is_some())
                };
                walks(pair.a) || walks(pair.b)
            })
            .count();
    }
    assert!(
        compared > 2000 && walked_pairs > 1500,
        "{compared} hits, {walked_pairs} pairs that walk"
    );
}
