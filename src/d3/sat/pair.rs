//! One 3D candidate pair: which test it takes, and its normal rebuilt from
//! the reported feature.

use glam::Vec3;

use super::super::batch::Batch;
use super::super::math::{Transform, cross3, inv_mul_transforms, length3, rotate, transform_point};
use super::super::shape::hull::MAX_HULL_VERTICES;
use super::super::shape::shapes::{Hull, Shape};
use super::super::types::{Axis, EdgeSearch, EdgeStats, Hit, SatHit};
use super::edges::{
    edge_axis, find_max_edge_separation, find_max_edge_separation_brute, gauss_test, moved_edge,
    projected_separation,
};
use super::faces::find_max_face_separation;
use super::lanes::{find_max_edge_separation_lanes, find_max_face_separation_lanes};
use super::rounded::{collide_rounded, rounded_axis_normal};
use super::separation::{
    CONCENTRIC_TOLERANCE, EDGE_TOLERANCE, PairResult, TIE_TOLERANCE, choose_hull_axis, edge_floor,
};
use super::sphere::{collide_hull_sphere, collide_spheres, sphere_axis};
use super::walk::{FaceSupports, find_max_edge_separation_walk, find_max_face_separation_supports};
use crate::core::pair::Owner;
use crate::core::simd::uses_avx;

/// Hull pairs with fewer vertices than this on both sides search every pair
/// of edges, eight at a time (`lanes.rs`), on the portable lanes; larger ones
/// walk the Gauss maps (`walk.rs`). First measured with `gpusat bench --dim
/// 3 --backends cpu` (4,000 pairs, one thread, ns per pair, the lanes
/// against the walk): 16-vertex hulls 3,537 against 5,168; 32: 11,814
/// against 15,169; 64: 40,708 against 34,180; 128: 138,840 against 76,144,
/// a crossing near 48. Since the lanes read only their own rows (no scalar
/// array missed per pair), bound both hulls' edges and find the faces and
/// edges the bounds keep eight at a time, they win at every size the
/// library builds (`GPUSAT_NO_AVX=1`, 5,000 pairs, min of 2 runs, the lanes
/// against the walk): 48 vertices 2,056 against 7,247; 64: 2,657 against
/// 9,311; 128: 5,167 against 15,107; 256: 11,366 against 24,829. So no
/// hull pair walks by default; [`EdgeSearch::Walk`] still walks every
/// pair.
pub const WALK_MIN_VERTICES: usize = MAX_HULL_VERTICES + 1;

/// The same on AVX lanes. First measured the same way (2,000 pairs; the
/// lanes against the walk): 48-vertex hulls 14,780 against 27,572; 64:
/// 24,589 against 40,220; 96: 45,268 against 54,831; 128: 69,848 against
/// 80,852; 160: 106,934 against 96,025, a crossing near 144. Measured again
/// after the same changes (20,000 pairs, min of 3 interleaved runs): 128
/// vertices 4,600 against 4,004 (within noise), 256: 9,431 against 23,697.
pub const WALK_MIN_VERTICES_AVX: usize = MAX_HULL_VERTICES + 1;

/// The hull size from which the default search walks, on this CPU.
#[inline]
pub fn walk_min_vertices() -> usize {
    if uses_avx() {
        WALK_MIN_VERTICES_AVX
    } else {
        WALK_MIN_VERTICES
    }
}

thread_local! {
    /// The face queries' supports, reused from pair to pair on a thread.
    static SUPPORTS: std::cell::RefCell<FaceSupports> =
        std::cell::RefCell::new(FaceSupports::default());
}

/// Hull A against hull B: A's faces, B's faces, then the edge pairs, each
/// stopping at the first separation that reaches the margin.
///
/// ```text
/// face_a = A's faces against B's vertices (in B's frame)    # stop if >= margin
/// face_b = B's faces against A's vertices (in A's frame)    # stop if >= margin
/// floor  = the better face's separation + the edge tolerance
/// edge   = the edge pairs above the floor, in A's frame,
///          pruned or not                                    # stop if >= margin
/// choose: B's face over A's only by more than the face tolerance,
///         an edge pair over the face only by more than the edge tolerance
/// ```
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn collide_hulls(
    hull_a: &Hull,
    hull_b: &Hull,
    (xf_ab, xf_ba): (Transform, Transform),
    tolerance: f32,
    edge_tolerance: f32,
    margin: f32,
    search: EdgeSearch,
    stats: &mut EdgeStats,
) -> Option<PairResult> {
    let walk_min = walk_min_vertices();
    let small = |hull: &Hull| hull.vertices().len() < walk_min;
    let walks = match search {
        EdgeSearch::Pruned => !(small(hull_a) && small(hull_b)),
        EdgeSearch::Walk => true,
        EdgeSearch::Pairwise | EdgeSearch::BruteForce => false,
    };
    if walks {
        // The output-sensitive queries: B's face query records A's support
        // along each of B's faces, where the walks start and end, and B's
        // normals in A's frame, the ends of its arcs.
        hull_a.prefetch_for_faces();
        hull_b.prefetch_for_faces();
        hull_a.prefetch_for_walk();
        return SUPPORTS.with_borrow_mut(|supports_a| {
            let face_a =
                find_max_face_separation_supports(hull_a, hull_b, xf_ba, (tolerance, margin), None);
            if face_a.value >= margin {
                return None;
            }
            let face_b = find_max_face_separation_supports(
                hull_b,
                hull_a,
                xf_ab,
                (tolerance, margin),
                Some(supports_a),
            );
            if face_b.value >= margin {
                return None;
            }
            let floor = edge_floor(face_a, face_b, tolerance, edge_tolerance);
            let edge = find_max_edge_separation_walk(
                hull_a,
                hull_b,
                xf_ab,
                (tolerance, margin, floor),
                supports_a,
                stats,
            );
            (edge.value < margin)
                .then(|| choose_hull_axis(face_a, face_b, edge, tolerance, edge_tolerance))
        });
    }
    // Small hulls under the default search: the loops, eight at a time.
    let faces = match search {
        EdgeSearch::Pruned | EdgeSearch::Walk => find_max_face_separation_lanes,
        EdgeSearch::Pairwise | EdgeSearch::BruteForce => find_max_face_separation,
    };
    let face_a = faces(hull_a, hull_b, xf_ba, tolerance, margin);
    if face_a.value >= margin {
        return None;
    }
    let face_b = faces(hull_b, hull_a, xf_ab, tolerance, margin);
    if face_b.value >= margin {
        return None;
    }
    let edges = match search {
        EdgeSearch::Pruned | EdgeSearch::Walk => find_max_edge_separation_lanes,
        EdgeSearch::Pairwise => find_max_edge_separation,
        EdgeSearch::BruteForce => find_max_edge_separation_brute,
    };
    let floor = edge_floor(face_a, face_b, tolerance, edge_tolerance);
    let edge = edges(hull_a, hull_b, xf_ab, tolerance, margin, floor, stats);
    if edge.value >= margin {
        return None;
    }
    Some(choose_hull_axis(
        face_a,
        face_b,
        edge,
        tolerance,
        edge_tolerance,
    ))
}

/// One candidate pair, given the two bodies' world transforms.
///
/// ```text
/// xf_ab, xf_ba = B's frame into A's, A's into B's     (the only world arithmetic)
/// tolerance    = TIE_TOLERANCE * (size_a + size_b)
/// two hulls:       collide_hulls
/// hull and sphere: the hull against the centre in the hull's frame
/// two spheres:     the centre line
/// ```
#[inline]
pub fn collide_pair(
    xf_a: Transform,
    xf_b: Transform,
    shape_a: &Shape,
    shape_b: &Shape,
    margin: f32,
    search: EdgeSearch,
    stats: &mut EdgeStats,
) -> Option<PairResult> {
    let xf_ab = inv_mul_transforms(xf_a, xf_b);
    let xf_ba = inv_mul_transforms(xf_b, xf_a);
    let sizes = shape_a.size() + shape_b.size();
    let tolerance = TIE_TOLERANCE * sizes;
    match (shape_a, shape_b) {
        (Shape::Hull(a), Shape::Hull(b)) => collide_hulls(
            a,
            b,
            (xf_ab, xf_ba),
            tolerance,
            EDGE_TOLERANCE * sizes,
            margin,
            search,
            stats,
        ),
        (Shape::Hull(a), Shape::Sphere(b)) => {
            collide_hull_sphere(a, xf_ab.p, b.radius(), Owner::A, tolerance, margin)
        }
        (Shape::Sphere(a), Shape::Hull(b)) => {
            collide_hull_sphere(b, xf_ba.p, a.radius(), Owner::B, tolerance, margin)
        }
        (Shape::Sphere(a), Shape::Sphere(b)) => {
            collide_spheres(xf_ab.p, a.radius(), b.radius(), margin)
        }
        // A capsule or a rounded hull on either side.
        _ => collide_rounded(
            shape_a,
            shape_b,
            (xf_ab, xf_ba),
            tolerance,
            margin,
            search,
            stats,
        ),
    }
}

/// The axis of an edge pair, in A's frame, exactly as `search` computed it.
/// The pruned search reports only pairs whose arcs cross and takes the
/// crossing point, pointing out of A. The brute force takes `eA x eB`
/// normalised, in the orientation along which the hulls' projections
/// separate more; a pair of parallel edges stands for both of the
/// Minkowski difference's faces it makes, so only the projections can tell
/// which one was meant (a pruned report whose arcs do not cross, a
/// backend's garbage, gets the same).
pub fn edge_pair_axis(
    hull_a: &Hull,
    hull_b: &Hull,
    xf_ab: Transform,
    (a, b): (u32, u32),
    search: EdgeSearch,
) -> Vec3 {
    let (u_b, v_b, arc_b, point_b) = moved_edge(hull_b, b as usize, xf_ab);
    let gauss = hull_a.lanes().edge_gauss(a as usize);
    if search != EdgeSearch::BruteForce
        && let Some((cba, dba)) = gauss_test((gauss.u, gauss.v, gauss.arc), (u_b, v_b, arc_b))
    {
        return edge_axis(u_b, v_b, cba, dba);
    }
    let edge = hull_a.edges()[a as usize];
    let vertices = hull_a.vertices();
    let direction_a = vertices[edge.v1 as usize] - vertices[edge.v0 as usize];
    let edge_b = hull_b.edges()[b as usize];
    let direction_b = transform_point(xf_ab, hull_b.vertices()[edge_b.v1 as usize]) - point_b;
    let axis = cross3(direction_a, direction_b);
    let axis = axis / length3(axis).max(f32::MIN_POSITIVE);
    let vertices_b: Vec<Vec3> = hull_b
        .vertices()
        .iter()
        .map(|&w| transform_point(xf_ab, w))
        .collect();
    if projected_separation(vertices, &vertices_b, axis).1 {
        axis
    } else {
        -axis
    }
}

/// Face `i`'s normal (the last face for an index past it: a backend's
/// garbage, made total), read where the face queries read it.
fn face_normal(hull: &Hull, i: u32) -> Vec3 {
    hull.lanes()
        .face_plane((i as usize).min(hull.face_count() - 1))
        .0
}

/// Rebuilds the world-frame unit normal (from A to B) of a reported axis,
/// with the operations the SAT used, so two backends that report the same
/// feature report the same normal bits.
pub fn axis_normal(
    (xf_a, shape_a): (Transform, &Shape),
    (xf_b, shape_b): (Transform, &Shape),
    axis: Axis,
    search: EdgeSearch,
) -> Vec3 {
    if !(shape_a.is_plain() && shape_b.is_plain()) {
        return rounded_axis_normal((xf_a, shape_a), (xf_b, shape_b), axis, search);
    }
    match (axis, shape_a, shape_b) {
        (Axis::FaceA(i), Shape::Hull(a), _) => rotate(xf_a.r, face_normal(a, i)),
        (Axis::FaceB(i), _, Shape::Hull(b)) => -rotate(xf_b.r, face_normal(b, i)),
        (Axis::Edges(i, j), Shape::Hull(a), Shape::Hull(b)) => {
            let xf_ab = inv_mul_transforms(xf_a, xf_b);
            let i = i.min(a.edges().len() as u32 - 1);
            let j = j.min(b.edges().len() as u32 - 1);
            rotate(xf_a.r, edge_pair_axis(a, b, xf_ab, (i, j), search))
        }
        (Axis::EdgeA(_) | Axis::VertexA(_), Shape::Hull(a), _) => {
            let centre = inv_mul_transforms(xf_a, xf_b).p;
            rotate(xf_a.r, sphere_axis(a, centre, axis).0)
        }
        (Axis::EdgeB(_) | Axis::VertexB(_), _, Shape::Hull(b)) => {
            let centre = inv_mul_transforms(xf_b, xf_a).p;
            -rotate(xf_b.r, sphere_axis(b, centre, axis).0)
        }
        _ => {
            // Two spheres (or an axis that does not fit the shapes: a
            // backend's garbage, made total): the centre line.
            let centre = inv_mul_transforms(xf_a, xf_b).p;
            let distance = length3(centre);
            if distance > CONCENTRIC_TOLERANCE * (shape_a.size() + shape_b.size()) {
                rotate(xf_a.r, centre / distance)
            } else {
                rotate(xf_a.r, Vec3::X)
            }
        }
    }
}

/// A backend's result completed with the bodies and the world normal.
pub fn complete_hit(batch: &Batch, sat_hit: SatHit) -> Hit {
    let pair = batch.pairs()[sat_hit.pair as usize];
    let side = |body: u32| (batch.transforms()[body as usize], batch.shape_of(body));
    Hit {
        pair: sat_hit.pair,
        a: pair.a,
        b: pair.b,
        normal: axis_normal(
            side(pair.a),
            side(pair.b),
            sat_hit.axis,
            batch.edge_search(),
        ),
        depth: sat_hit.depth,
        axis: sat_hit.axis,
    }
}
