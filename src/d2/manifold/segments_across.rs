//! Two segment cores' contacts (capsules, segments), eight pairs at a time:
//! a lane a pair, what the general path (`manifold.rs`: the hit's normal,
//! then `vertex_pair_point`, `crossing_point` or `clip`) builds for each,
//! bit for bit.
//!
//! The SAT of the eight pairs has just run in lanes
//! (`sat/segments_across.rs`) and left its values there: the transforms,
//! each segment's ends in its own frame and moved into the other's. The
//! manifold is a short computation on those four points per pair, with
//! choices that random poses make coin tosses for a branch predictor (which
//! kind of axis, crossing or side by side, which incident edge, which end
//! each side plane cuts, which points are kept). Here every kind is
//! computed in every lane and the lane's own chosen:
//!
//! ```text
//! reference = the axis's owner; the other's ends are already in its frame
//! normal    = the face's normal, or the unit vector between a vertex pair
//!             (the face's normal where they coincide), signed A to B
//! vertex pair:            one point midway between the rounded surfaces
//! face, cores crossing:   one point where they cross (not near-parallel)
//! face, otherwise:        the incident end pair clipped to the reference
//!                         face's side planes; each end at or below the face
//!                         (within the margin) a point, midway between the
//!                         surfaces; two points closer than the degenerate
//!                         length one, the deeper
//! ```
//!
//! A lane whose clipping keeps no point (a near-tie, a sliver, a separated
//! pair through the margin), or that the SAT's check sent to the scalar path,
//! goes to the general path whole. Everything else is the scalar operations
//! in the same order on the same values; no vector `min` or `max` (whose
//! treatment of NaN and of signed zeros is not the scalar one) is used.
//! The test `segment_pairs_take_their_own_path_with_the_general_paths_bits`
//! (`tests/it/d2/lanes.rs`) holds the manifolds of both vector types to the
//! general path's.

use glam::Vec2;

use crate::core::pair::Owner;
use crate::core::simd::Lanes;
use crate::d2::sat::PairResult;
use crate::d2::sat::segments_across::{
    PAIRS, Pair2, SegmentLanes, SegmentPairs, dot, inv_rotate, rotate, select2, sub,
    transform_point,
};
use crate::d2::types::Axis;

use super::Manifold;
use super::clip_across::{ClipLanes, PointLanes, clip_lanes, id_bits, point_of, rounded_to_world};

/// Which of eight lanes have a manifold (`contact`), and which were
/// reported with a result from which the general path builds theirs
/// (`general`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LaneKinds {
    pub contact: u32,
    pub general: u32,
}

/// Eight manifolds: the normal, the first and second points (the second
/// zero where none was written, as in a new manifold), the point counts,
/// and a mask of the lanes for the general path.
struct ContactLanes {
    normal: [[f32; PAIRS]; 2],
    first: [[f32; PAIRS]; 4],
    second: [[f32; PAIRS]; 4],
    count: [f32; PAIRS],
    general: u32,
}

/// End `k` of both sides: the reference's face normal and vertex, the
/// incident's face normal and its end moved into the reference frame.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn end_of_sides<V: Lanes>(
    s: &SegmentLanes<V>,
    k: usize,
) -> (Pair2<V>, Pair2<V>, Pair2<V>, Pair2<V>) {
    let b = s.owner_b;
    (
        select2(b, s.faces_b[k].0, s.faces_a[k].0),
        select2(b, s.faces_b[k].1, s.faces_a[k].1),
        select2(b, s.faces_a[k].0, s.faces_b[k].0),
        select2(b, s.a_in_b[k], s.b_in_a[k]),
    )
}

/// The manifolds of the eight pairs whose SAT is `s`, a lane each.
#[inline(always)]
fn contact_lanes<V: Lanes>(s: &SegmentLanes<V>, margin: f32) -> ContactLanes {
    let (zero, one, half) = (V::splat(0.0), V::splat(1.0), V::splat(0.5));
    let b = s.owner_b;
    // The reference side owns the axis; the incident side's ends are
    // already moved into its frame by the SAT.
    let reference_xf = (
        select2(b, s.xf_b.0, s.xf_a.0),
        select2(b, s.xf_b.1, s.xf_a.1),
    );
    let xf_q = select2(b, s.xf_ba.0, s.xf_ab.0);
    let (ref_normal0, ref_vertex0, inc_normal0, inc_end0) = end_of_sides(s, 0);
    let (ref_normal1, ref_vertex1, inc_normal1, inc_end1) = end_of_sides(s, 1);
    let radius_ref = b.select(s.radius_b, s.radius_a);
    let radius_inc = b.select(s.radius_a, s.radius_b);
    let radii = radius_ref + radius_inc;
    let unequal = radius_ref.eq(radius_inc).not();
    let half_difference = half * (radius_ref - radius_inc);
    let feature = s.feature;
    let depth = s.separation.neg();

    // A vertex pair (features 4 + 2 i + j): the unit vector from the
    // reference's vertex i to the incident's j.
    let vertex_pair = feature.ge(V::splat(4.0));
    let i1 = feature.ge(V::splat(6.0));
    let j1 = feature.eq(V::splat(5.0)).or(feature.eq(V::splat(7.0)));
    let p = select2(i1, ref_vertex1, ref_vertex0);
    let w = select2(j1, inc_end1, inc_end0);
    let offset = sub(w, p);
    let distance = dot(offset, offset).sqrt();
    let direction = select2(
        distance.gt(zero),
        (offset.0.div(distance), offset.1.div(distance)),
        select2(i1, ref_normal1, ref_normal0),
    );
    let surface_ref = (
        p.0 + radius_ref * direction.0,
        p.1 + radius_ref * direction.1,
    );
    let surface_inc = (
        w.0 - radius_inc * direction.0,
        w.1 - radius_inc * direction.1,
    );
    let vertex_point = PointLanes {
        point: transform_point(
            reference_xf.0,
            reference_xf.1,
            (
                half * (surface_ref.0 + surface_inc.0),
                half * (surface_ref.1 + surface_inc.1),
            ),
        ),
        depth: (distance - radii).neg(),
        id: id_bits(
            b,
            V::splat(2.0) + i1.select(one, zero),
            j1.select(one, zero),
        ),
    };

    // The hit's normal: the face's, or the vertex pair's direction,
    // rotated into the world and negated when B owns the axis.
    let face1 = feature.eq(one);
    let face_normal = select2(face1, ref_normal1, ref_normal0);
    let local = select2(vertex_pair, direction, face_normal);
    let sign = b.select(V::splat(-1.0), one);
    let rotated = rotate(reference_xf.0, local);
    let normal = (sign * rotated.0, sign * rotated.1);

    // Cores that cross (`crossing_point`), deeper than the radii: one
    // point where they cross, unless near-parallel.
    let (v1, v2) = (ref_vertex0, ref_vertex1);
    let (w1, w2) = (inc_end0, inc_end1);
    let (along_ref, along_inc) = (sub(v2, v1), sub(w2, w1));
    let cross = along_ref.0 * along_inc.1 - along_ref.1 * along_inc.0;
    let parallel = cross
        .abs()
        .le(V::splat(1e-3) * dot(along_ref, along_ref).sqrt() * dot(along_inc, along_inc).sqrt());
    let start = sub(w1, v1);
    let t = (start.0 * along_inc.1 - start.1 * along_inc.0).div(cross);
    // `clamp(0, 1)`: NaN passes through.
    let t = t.lt(zero).select(zero, t);
    let t = t.gt(one).select(one, t);
    let crossing = (v1.0 + t * along_ref.0, v1.1 + t * along_ref.1);
    let crossing_point = PointLanes {
        point: rounded_to_world(
            crossing,
            (unequal, half_difference, face_normal),
            reference_xf,
        ),
        depth,
        id: id_bits(b, feature, zero),
    };
    let face = vertex_pair.not();
    let crossed = face.and(depth.ge(radii)).and(parallel.not());

    // Otherwise the incident edge (the most anti-parallel to the reference
    // normal, moved into the incident frame) clipped to the reference
    // face's side planes.
    let n = face_normal;
    let (v1, v2) = (
        select2(face1, ref_vertex1, ref_vertex0),
        select2(face1, ref_vertex0, ref_vertex1),
    );
    let normal_in_incident = inv_rotate(xf_q, n);
    let max = V::splat(f32::MAX);
    let alignment0 = dot(normal_in_incident, inc_normal0);
    let most_opposed = alignment0.lt(max).select(alignment0, max);
    let incident1 = dot(normal_in_incident, inc_normal1).lt(most_opposed);
    let ends = (
        select2(incident1, inc_end1, inc_end0),
        select2(incident1, inc_end0, inc_end1),
    );
    let incident_vertex = (incident1.select(one, zero), incident1.select(zero, one));
    let clipped = clip_lanes(
        &ClipLanes {
            v1,
            v2,
            normal: n,
            w1: ends.0,
            w2: ends.1,
            incident: incident_vertex,
            owner_b: b,
            reference: feature,
            radii: (radius_ref, radius_inc),
            reference_xf,
            size: s.size,
        },
        margin,
    );

    let first = PointLanes::select(
        vertex_pair,
        vertex_point,
        PointLanes::select(crossed, crossing_point, clipped.first),
    );
    let clipping = face.and(crossed.not());
    // Features 2 and 3 are no segment pair's: the general path, if ever.
    let not_segment_feature = face.and(feature.ge(V::splat(2.0)));
    let general = s
        .doubtful
        .or(clipping.and(clipped.scalar))
        .or(not_segment_feature);
    ContactLanes {
        normal: [normal.0.to_array(), normal.1.to_array()],
        first: first.to_arrays(),
        second: PointLanes::select(clipping, clipped.second, PointLanes::zero()).to_arrays(),
        count: clipping.select(clipped.count, one).to_array(),
        general: general.mask_bits(),
    }
}

/// The SAT and the manifolds of the filled lanes of `pairs`, lane `k`'s
/// into `manifolds[at[k]]` (but for the pair's index and bodies, which the
/// caller writes) and, for the general path, its result into
/// `results[at[k]]`; the lanes emptied. Every filled lane's manifold is
/// written, reported or not (no branch on it): the kinds say which to read.
#[inline(always)]
pub(crate) fn contacts<V: Lanes>(
    pairs: &mut SegmentPairs,
    margin: f32,
    at: &[usize; PAIRS],
    (manifolds, results): (&mut [Manifold], &mut [Option<PairResult>]),
) -> LaneKinds {
    let sat = pairs.lanes::<V>(margin);
    let lanes = contact_lanes(&sat, margin);
    let (owner_b, reported, doubtful) = (
        sat.owner_b.mask_bits(),
        sat.reported.mask_bits(),
        sat.doubtful.mask_bits(),
    );
    let filled = (1u32 << pairs.len()) - 1;
    let general = (reported & lanes.general | doubtful) & filled;
    let mut kinds = LaneKinds {
        contact: reported & !general & filled,
        general: 0,
    };
    for (lane, &position) in at.iter().enumerate().take(pairs.len()) {
        let manifold = &mut manifolds[position];
        manifold.normal = Vec2::new(lanes.normal[0][lane], lanes.normal[1][lane]);
        manifold.points = [point_of(&lanes.first, lane), point_of(&lanes.second, lane)];
        manifold.count = lanes.count[lane] as u8;
    }
    if general != 0 {
        let (separation, feature) = (sat.separation.to_array(), sat.feature.to_array());
        for (lane, &position) in at.iter().enumerate().take(pairs.len()) {
            let bit = 1 << lane;
            if general & bit == 0 {
                continue;
            }
            let result = if doubtful & bit != 0 {
                // The SAT's check: the scalar SAT, then the general path.
                pairs.scalar_result(lane, margin)
            } else {
                let owner = if owner_b & bit != 0 {
                    Owner::B
                } else {
                    Owner::A
                };
                Some(PairResult {
                    axis: Axis::new(owner, feature[lane] as u32),
                    separation: separation[lane],
                })
            };
            if result.is_some() {
                kinds.general |= bit;
            }
            results[position] = result;
        }
    }
    pairs.clear();
    kinds
}
