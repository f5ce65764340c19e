//! Box3D as a peer (a build with the `box3d` feature): on the same pairs its
//! manifold functions and our SAT agree on which pairs overlap (but where a
//! pair barely touches: Box3D keeps speculative points), and, on nearly all
//! of them, on the depth; where the normals differ (Box3D keeps a face over
//! an edge pair by a wider margin) ours is the shorter translation, by the
//! exact overlaps. For boxes, hulls, capsules,
//! capsules with hulls and spheres among hulls. Box3D's depth is its
//! deepest manifold point's, which clipping can leave short of the minimum
//! translation (a deep incident vertex clipped away, the points then all
//! above the reference face): where it reports none of a pair we find
//! overlapping, the exact oracle confirms our depth. Its cached calls (each pair's `b3SATCache` from a call
//! before, the bodies unmoved) answer as the cold ones do; rounded hulls
//! are refused by name.

use crate::common::oracle3::{oracle_depth, overlap_along, place};
use gpusat::d3::{Batch, ShapeSet, collide_cpu};
use gpusat::generate::d3::{GeneratedScene, SceneSpec, ShapeKind, workload};
use gpusat_cli::peer::box3d::{PairCache, Peer};

fn compare(what: &str, scene: &GeneratedScene) -> usize {
    let batch = Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0).expect("batch");
    let hits = batch.hits(&collide_cpu(&batch));
    let peer = Peer::new(&scene.shapes, &scene.bodies).expect("Box3D takes the shapes");
    let mut ours = vec![None; scene.pairs.len()];
    for hit in &hits {
        ours[hit.pair as usize] = Some(*hit);
    }
    let mut caches = vec![PairCache::new(); scene.pairs.len()];
    let (mut compared, mut near_touching, mut other_normals, mut other_depths) = (0, 0, 0, 0);
    let mut clipped_away = 0;
    for (index, pair) in scene.pairs.iter().enumerate() {
        let size = batch.pair_size(index as u32);
        let slop = 1e-2 * size;
        let theirs = peer.contact(*pair);
        // Filled by a first call, the cache leaves the answer as it was.
        peer.contact_cached(*pair, &mut caches[index]);
        let cached = peer.contact_cached(*pair, &mut caches[index]);
        assert_eq!(
            cached.is_some(),
            theirs.is_some(),
            "{what} pair {index}: cached {cached:?}, cold {theirs:?}"
        );
        match (ours[index], theirs) {
            (Some(hit), Some((depth, normal))) => {
                compared += 1;
                if (hit.depth - depth).abs() > slop {
                    other_depths += 1;
                }
                if (hit.normal - normal).length() > 1e-2 {
                    // Box3D keeps a face over an edge pair by more than our
                    // tie rule does: ours must then be at least as short a
                    // translation (exact overlaps, in f64), but for our own
                    // preference of a face, up to 2e-5 x (size A + size B).
                    let a = place(&scene.shapes, &scene.bodies[pair.a as usize]);
                    let b = place(&scene.shapes, &scene.bodies[pair.b as usize]);
                    let along_ours = overlap_along(&a, &b, hit.normal.as_dvec3());
                    let along_theirs = overlap_along(&a, &b, normal.as_dvec3().normalize());
                    assert!(
                        along_ours <= along_theirs + 5e-5 * f64::from(size),
                        "{what} pair {index}: our normal {} ({:?}) overlaps by {along_ours}, \
                         Box3D's {normal} by {along_theirs}",
                        hit.normal,
                        hit.axis
                    );
                    other_normals += 1;
                }
            }
            (Some(hit), None) if hit.depth <= slop => near_touching += 1,
            (Some(hit), None) => {
                let exact = oracle_depth(
                    &place(&scene.shapes, &scene.bodies[pair.a as usize]),
                    &place(&scene.shapes, &scene.bodies[pair.b as usize]),
                );
                assert!(
                    (f64::from(hit.depth) - exact).abs() <= 1e-4 * f64::from(size),
                    "{what} pair {index}: {hit:?}, Box3D none, the oracle's depth {exact}"
                );
                clipped_away += 1;
            }
            (None, Some((depth, _))) => {
                assert!(
                    depth <= slop,
                    "{what} pair {index}: Box3D {depth}, ours none"
                );
                near_touching += 1;
            }
            (None, None) => {}
        }
    }
    eprintln!(
        "{what}: {compared} overlaps compared, {near_touching} touching on one side only, \
         {clipped_away} overlapping where Box3D's points are all above the face, \
         {other_depths} other depths, {other_normals} other normals"
    );
    // Other normals come from Box3D's wider preference of faces, each
    // checked above (on random hulls, a third of the overlaps); other
    // depths from deep pairs whose deepest incident vertex it clips away.
    assert!(
        other_depths * 10 <= compared && clipped_away * 20 <= compared,
        "{what}: {other_depths} other depths, {clipped_away} clipped away of {compared}"
    );
    compared
}

#[test]
fn box3d_agrees_with_the_reference_sat() {
    let mut compared = 0;
    for kind in [
        ShapeKind::Boxes,
        ShapeKind::Hulls(16),
        ShapeKind::Hulls(32),
        ShapeKind::Capsules,
        ShapeKind::CapsulesAndHulls(16),
    ] {
        let scene = workload(kind, 4000);
        let overlaps = compare(&kind.name(), &scene);
        assert!(overlaps > 500, "{}: {overlaps} overlaps", kind.name());
        compared += overlaps;
    }
    // Spheres, boxes and plates among hulls.
    let mixed = SceneSpec {
        half_extent: 1.5,
        ..SceneSpec::mixed(1601, 4000)
    }
    .generate();
    compared += compare("mixed", &mixed);
    assert!(compared > 10_000, "{compared} pairs compared");
}

#[test]
fn box3d_refuses_a_rounded_hull_by_name() {
    let mut shapes = ShapeSet::new();
    shapes.add_cuboid(glam::Vec3::ONE).expect("a box");
    shapes
        .add_rounded_cuboid(glam::Vec3::ONE, 0.1)
        .expect("a rounded box");
    let error = Peer::new(&shapes, &[]).err().expect("refused");
    assert!(
        error.contains("shape 1") && error.contains("radius"),
        "{error}"
    );
}
