//! Two hulls: the faces and edge pairs of the SAT (each query in its own
//! file: `faces.rs`, `edges.rs`, `lanes.rs`, `walk.rs`), which search a pair
//! takes, and the axis of a reported edge pair rebuilt exactly.

use glam::Vec3;

use super::super::math::{Transform, cross3, length3, transform_point};
use super::super::shape::hull::MAX_HULL_VERTICES;
use super::super::shape::shapes::Hull;
use super::super::types::{EdgeSearch, EdgeStats};
use super::boxes::box_face_separation;
use super::edges::{
    edge_axis, find_max_edge_separation, find_max_edge_separation_brute, gauss_test, moved_edge,
    projected_separation,
};
use super::faces::find_max_face_separation;
use super::lanes::{find_max_edge_separation_lanes, find_max_face_separation_lanes};
use super::separation::{PairResult, choose_hull_axis, edge_floor};
use super::walk::{FaceSupports, find_max_edge_separation_walk, find_max_face_separation_supports};
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
///
/// This is the general query on any two hulls. [`collide_pair`](super::collide_pair)
/// gives two boxes whose face normals are their axes their own query
/// instead (`boxes.rs`, [`Hull::is_axis_box`]), whose edge pair and normal
/// ([`axis_normal`](super::axis_normal)) are this query's to rounding.
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
    // Small hulls under the default search: the loops, eight at a time;
    // faces of one run against a box, its deepest corner in closed form
    // (`boxes.rs`).
    let faces = |hull1: &Hull, hull2: &Hull, xf: Transform| match search {
        EdgeSearch::Pruned | EdgeSearch::Walk => match hull2.lanes().cuboid_corners {
            Some(corners) if hull1.lanes().face_planes.len() == 1 => {
                box_face_separation(hull1, corners, xf, tolerance, margin)
            }
            _ => find_max_face_separation_lanes(hull1, hull2, xf, tolerance, margin),
        },
        EdgeSearch::Pairwise | EdgeSearch::BruteForce => {
            find_max_face_separation(hull1, hull2, xf, tolerance, margin)
        }
    };
    let face_a = faces(hull_a, hull_b, xf_ba);
    if face_a.value >= margin {
        return None;
    }
    let face_b = faces(hull_b, hull_a, xf_ab);
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
