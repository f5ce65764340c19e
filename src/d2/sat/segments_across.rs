//! Two segment cores (capsules, segments), eight pairs at a time: a lane a
//! pair, what `segments.rs` computes for one pair, bit for bit.
//!
//! One pair's computation is short arithmetic with a division and a square
//! root in its closest ends, and six choices (the tie rule twice, A's face
//! or B's, cores apart or not, which end is nearest, at an end or inside)
//! that random poses make coin tosses for a branch predictor. Across pairs
//! every choice is a selection between lanes, the divisions and square
//! roots go eight at once, and nothing mispredicts. It is the GPU's way,
//! an invocation a pair, on the CPU's vectors.
//!
//! ```text
//! gather:  each pair's two world transforms, its segments' ends and face
//!          normals, its shapes' sizes and radii, into the lanes
//! lanes:   the relative transforms; segments.rs's steps, every branch a
//!          select on a mask; the results' axis and separation per lane
//! check:   a lane where a face's height is zero or not finite, or a
//!          distance is not finite, is computed again by segments.rs (the
//!          scalar `min` of a +0 and a -0, or of a NaN, is not the
//!          vectors'); elsewhere every operation is the scalar one, in the
//!          same order, on the same values
//! ```
//!
//! The batch paths (`lanes.rs`) gather a chunk's segment pairs eight at a
//! time and answer the others pair by pair, in pair order. The test
//! `segment_pairs_take_their_own_path_with_the_general_paths_bits`
//! (`tests/it/d2/lanes.rs`) holds both vector types to the general path.

use crate::core::pair::Owner;
use crate::core::simd::Lanes;
use crate::d2::math::Transform;
use crate::d2::shape::EdgeRecord;
use crate::d2::types::Axis;

use super::segments::collide_segments;
use super::separation::{LOWEST, PairResult, TIE_TOLERANCE};

/// Pairs a group of lanes holds.
pub(crate) const PAIRS: usize = 8;

/// One side of eight pairs, a lane a pair: its world transform and its
/// segment's two edge records (ends and face normals), size and radius.
#[derive(Clone, Copy, Default)]
struct SideLanes {
    px: [f32; PAIRS],
    py: [f32; PAIRS],
    c: [f32; PAIRS],
    s: [f32; PAIRS],
    v0x: [f32; PAIRS],
    v0y: [f32; PAIRS],
    v1x: [f32; PAIRS],
    v1y: [f32; PAIRS],
    n0x: [f32; PAIRS],
    n0y: [f32; PAIRS],
    n1x: [f32; PAIRS],
    n1y: [f32; PAIRS],
    size: [f32; PAIRS],
    radius: [f32; PAIRS],
}

impl SideLanes {
    #[inline(always)]
    fn set(
        &mut self,
        lane: usize,
        xf: Transform,
        edges: &[EdgeRecord; 2],
        (size, radius): (f32, f32),
    ) {
        self.px[lane] = xf.p.x;
        self.py[lane] = xf.p.y;
        self.c[lane] = xf.q.c;
        self.s[lane] = xf.q.s;
        self.v0x[lane] = edges[0].vertex.x;
        self.v0y[lane] = edges[0].vertex.y;
        self.v1x[lane] = edges[1].vertex.x;
        self.v1y[lane] = edges[1].vertex.y;
        self.n0x[lane] = edges[0].normal.x;
        self.n0y[lane] = edges[0].normal.y;
        self.n1x[lane] = edges[1].normal.x;
        self.n1y[lane] = edges[1].normal.y;
        self.size[lane] = size;
        self.radius[lane] = radius;
    }
}

/// Eight pairs of segment cores waiting for their lanes: what each lane
/// reads, and the pairs' own records for the scalar check.
#[derive(Clone, Copy, Default)]
pub(crate) struct SegmentPairs<'a> {
    a: SideLanes,
    b: SideLanes,
    /// Each lane's pair, for the scalar path of a lane the check sends back.
    pairs: [Option<ScalarPair<'a>>; PAIRS],
    /// Lanes filled.
    len: usize,
}

/// What `segments.rs` takes for one pair.
#[derive(Clone, Copy)]
struct ScalarPair<'a> {
    a: &'a [EdgeRecord; 2],
    b: &'a [EdgeRecord; 2],
    xf_a: Transform,
    xf_b: Transform,
    radii: f32,
    tolerance: f32,
}

/// A side's values in lanes: `(x, y)` vectors.
pub(crate) type Pair2<V> = (V, V);

/// `rotate(q, v)` lane by lane.
#[inline(always)]
pub(crate) fn rotate<V: Lanes>((c, s): Pair2<V>, (x, y): Pair2<V>) -> Pair2<V> {
    (c * x - s * y, s * x + c * y)
}

/// `transform_point(xf, v)` lane by lane (the translation added before the
/// second product, as the scalar one does).
#[inline(always)]
pub(crate) fn transform_point<V: Lanes>(
    (c, s): Pair2<V>,
    (px, py): Pair2<V>,
    (x, y): Pair2<V>,
) -> Pair2<V> {
    ((c * x + px) - s * y, (s * x + py) + c * y)
}

/// `dot(a, b)` lane by lane.
#[inline(always)]
pub(crate) fn dot<V: Lanes>((ax, ay): Pair2<V>, (bx, by): Pair2<V>) -> V {
    ax * bx + ay * by
}

#[inline(always)]
pub(crate) fn sub<V: Lanes>((ax, ay): Pair2<V>, (bx, by): Pair2<V>) -> Pair2<V> {
    (ax - bx, ay - by)
}

#[inline(always)]
pub(crate) fn select2<V: Lanes>(mask: V, (ax, ay): Pair2<V>, (bx, by): Pair2<V>) -> Pair2<V> {
    (mask.select(ax, bx), mask.select(ay, by))
}

/// Not finite (infinite or NaN), as a mask: `|x| < inf` fails exactly
/// there.
#[inline(always)]
fn not_finite<V: Lanes>(x: V) -> V {
    x.abs().lt(V::splat(f32::INFINITY)).not()
}

/// One side's two faces moved into the other's frame (`xf`) against the
/// other's two ends (`w0`, `w1`, in its own frame): the separations as
/// `face_separations` computes them, the faces' moved normals and
/// vertices, and a mask of the lanes whose heights a scalar `min` could
/// take otherwise (zero, or not finite).
struct Faces<V> {
    separation: [V; 2],
    normal0: Pair2<V>,
    vertex: [Pair2<V>; 2],
    doubtful: V,
}

#[inline(always)]
fn faces<V: Lanes>(
    [(normal_0, point_0), (normal_1, point_1)]: [(Pair2<V>, Pair2<V>); 2],
    (q, p): (Pair2<V>, Pair2<V>),
    (w0, w1): (Pair2<V>, Pair2<V>),
) -> Faces<V> {
    let (moved_0, h_0) = face(normal_0, point_0, (q, p), (w0, w1));
    let (moved_1, h_1) = face(normal_1, point_1, (q, p), (w0, w1));
    let max = V::splat(f32::MAX);
    let doubtful = doubtful_height(h_0.0)
        .or(doubtful_height(h_0.1))
        .or(doubtful_height(h_1.0))
        .or(doubtful_height(h_1.1));
    Faces {
        // `f32::MAX.min(h0).min(h1)`: the vectors' min returns its second
        // operand where the first is NaN, as the scalar one passes a NaN by.
        separation: [h_0.1.min(h_0.0.min(max)), h_1.1.min(h_1.0.min(max))],
        normal0: moved_0.0,
        vertex: [moved_0.1, moved_1.1],
        doubtful,
    }
}

/// One face moved by `xf` (its normal and vertex) and the heights of
/// `w0`, `w1` over it, in `find_max_separation`'s order.
#[inline(always)]
fn face<V: Lanes>(
    normal: Pair2<V>,
    point: Pair2<V>,
    (q, p): (Pair2<V>, Pair2<V>),
    (w0, w1): (Pair2<V>, Pair2<V>),
) -> ((Pair2<V>, Pair2<V>), (V, V)) {
    let normal = rotate(q, normal);
    let moved = transform_point(q, p, point);
    let offset = dot(normal, moved);
    let h0 = (normal.0 * w0.0 - offset) + normal.1 * w0.1;
    let h1 = (normal.0 * w1.0 - offset) + normal.1 * w1.1;
    ((normal, moved), (h0, h1))
}

/// A height the scalar `min` could take otherwise than the vectors' (a
/// zero of either sign, or not finite), as a mask.
#[inline(always)]
fn doubtful_height<V: Lanes>(h: V) -> V {
    h.eq(V::splat(0.0)).or(not_finite(h))
}

/// The tie rule over two faces (`best_of_two`): the best value and its
/// face, 0 or 1.
#[inline(always)]
fn best_of_two<V: Lanes>([s0, s1]: [V; 2], tolerance: V) -> (V, V) {
    let lowest = V::splat(LOWEST);
    let first = s0.gt(lowest + tolerance);
    let first_value = first.select(s0, lowest);
    let second = s1.gt(first_value + tolerance);
    (
        second.select(s1, first_value),
        second.select(V::splat(1.0), V::splat(0.0)),
    )
}

/// `beyond_caps` lane by lane, as a mask.
#[inline(always)]
fn beyond_caps<V: Lanes>((p0, p1): (Pair2<V>, Pair2<V>), (w0, w1): (Pair2<V>, Pair2<V>)) -> V {
    let zero = V::splat(0.0);
    let d = sub(p1, p0);
    let past_end = dot(d, sub(w0, p1)).min(dot(d, sub(w1, p1))).gt(zero);
    let before_start = dot(d, sub(w0, p0))
        .neg()
        .min(dot(d, sub(w1, p0)).neg())
        .gt(zero);
    past_end.or(before_start)
}

/// `point_segment` lane by lane: the clamped fraction and the distance of
/// `point` from `[a, a + edge]`.
#[inline(always)]
fn point_segment<V: Lanes>(point: Pair2<V>, a: Pair2<V>, edge: Pair2<V>) -> (V, V) {
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    let d = sub(point, a);
    let along = dot(d, edge);
    let squared = dot(edge, edge);
    let inside = along.div(squared);
    let t = along
        .le(zero)
        .select(zero, along.ge(squared).select(one, inside));
    let c = (point.0 - (a.0 + t * edge.0), point.1 - (a.1 + t * edge.1));
    (t, dot(c, c).sqrt())
}

/// A placed side in lanes: its rotation `(c, s)` and translation.
pub(crate) type TransformLanes<V> = (Pair2<V>, Pair2<V>);

/// Eight pairs' results in lanes, with what the manifold reads of them
/// (`manifold/segments_across.rs`): the transforms, each segment's ends
/// and face normals in its own frame and its ends moved into the other's.
pub(crate) struct SegmentLanes<V> {
    pub xf_a: TransformLanes<V>,
    pub xf_b: TransformLanes<V>,
    /// B's frame into A's, and A's into B's.
    pub xf_ab: TransformLanes<V>,
    pub xf_ba: TransformLanes<V>,
    /// Each side's faces: `(normal, vertex)`, vertex `k` being end `k`.
    pub faces_a: [(Pair2<V>, Pair2<V>); 2],
    pub faces_b: [(Pair2<V>, Pair2<V>); 2],
    pub a_in_b: [Pair2<V>; 2],
    pub b_in_a: [Pair2<V>; 2],
    pub radius_a: V,
    pub radius_b: V,
    /// The two shapes' sizes, summed.
    pub size: V,
    /// The result: the axis (owner B as a mask, feature as a number) and
    /// the separation.
    pub owner_b: V,
    pub feature: V,
    pub separation: V,
    /// Masks: reported, and sent to the scalar path by the check.
    pub reported: V,
    pub doubtful: V,
}

/// `inv_mul_transforms(a, b)` lane by lane: `(q, p)`.
#[inline(always)]
pub(crate) fn inv_mul<V: Lanes>(
    (qa, pa): (Pair2<V>, Pair2<V>),
    (qb, pb): (Pair2<V>, Pair2<V>),
) -> (Pair2<V>, Pair2<V>) {
    let q = (qa.0 * qb.0 + qa.1 * qb.1, qa.0 * qb.1 - qa.1 * qb.0);
    (q, inv_rotate(qa, sub(pb, pa)))
}

/// `inv_rotate(q, v)` lane by lane: `q^T v`.
#[inline(always)]
pub(crate) fn inv_rotate<V: Lanes>((c, s): Pair2<V>, (x, y): Pair2<V>) -> Pair2<V> {
    (c * x + s * y, s.neg() * x + c * y)
}

/// A side's transform, faces (normal, vertex) and ends, loaded.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn load_side<V: Lanes>(
    l: &SideLanes,
) -> (
    (Pair2<V>, Pair2<V>),
    [(Pair2<V>, Pair2<V>); 2],
    (Pair2<V>, Pair2<V>),
) {
    let v0 = (V::load(&l.v0x), V::load(&l.v0y));
    let v1 = (V::load(&l.v1x), V::load(&l.v1y));
    (
        (
            (V::load(&l.c), V::load(&l.s)),
            (V::load(&l.px), V::load(&l.py)),
        ),
        [
            ((V::load(&l.n0x), V::load(&l.n0y)), v0),
            ((V::load(&l.n1x), V::load(&l.n1y)), v1),
        ],
        (v0, v1),
    )
}

/// A distance, NaN counted as infinite (as the scalar scan never picks a
/// NaN).
#[inline(always)]
fn nan_as_infinite<V: Lanes>(d: V) -> V {
    d.eq(d).select(d, V::splat(f32::INFINITY))
}

/// 1 in the lanes of a mask, 0 elsewhere.
#[inline(always)]
fn as_one<V: Lanes>(mask: V) -> V {
    mask.select(V::splat(1.0), V::splat(0.0))
}

/// `collide_segments` on eight pairs, a lane each.
#[inline(always)]
fn collide_lanes<V: Lanes>(a: &SideLanes, b: &SideLanes, margin: f32) -> SegmentLanes<V> {
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    let (xf_a, faces_a, (a0, a1)) = load_side::<V>(a);
    let (xf_b, faces_b, (b0, b1)) = load_side::<V>(b);
    let xf_ab = inv_mul(xf_a, xf_b);
    let xf_ba = inv_mul(xf_b, xf_a);
    let tolerance = V::splat(TIE_TOLERANCE) * (V::load(&a.size) + V::load(&b.size));
    let radii = V::load(&a.radius) + V::load(&b.radius);
    let limit = V::splat(margin) + radii;
    // A's faces in B's frame against B's ends, and B's in A's.
    let on_a = faces(faces_a, xf_ba, (b0, b1));
    let on_b = faces(faces_b, xf_ab, (a0, a1));
    let [sa0, sa1] = on_a.separation;
    let [sb0, sb1] = on_b.separation;
    let past_limit = sa0
        .ge(limit)
        .or(sa1.ge(limit))
        .or(sb0.ge(limit))
        .or(sb1.ge(limit));
    let (best_a, edge_a) = best_of_two(on_a.separation, tolerance);
    let (best_b, edge_b) = best_of_two(on_b.separation, tolerance);
    let b_wins = best_b.gt(best_a + tolerance);
    let core = b_wins.select(best_b, best_a);
    let face_separation = core - radii;
    let face_feature = b_wins.select(edge_b, edge_a);
    // The ends moved: A's faces' vertices are A's ends in B's frame.
    let ([a0_in_b, a1_in_b], [b0_in_a, b1_in_a]) = (on_a.vertex, on_b.vertex);
    let apart = core
        .gt(zero)
        .or(beyond_caps((a0, a1), (b0_in_a, b1_in_a)))
        .or(beyond_caps((b0, b1), (a0_in_b, a1_in_b)));
    // The closest ends, in the core owner's frame.
    let (p0, p1) = (select2(b_wins, b0, a0), select2(b_wins, b1, a1));
    let (w0, w1) = (
        select2(b_wins, a0_in_b, b0_in_a),
        select2(b_wins, a1_in_b, b1_in_a),
    );
    let owner_normal = select2(b_wins, faces_b[0].0, faces_a[0].0);
    // The other's face-0 normal moved into the owner's frame: its moved
    // face normal, computed above.
    let other_normal = select2(b_wins, on_a.normal0, on_b.normal0);
    let (own_edge, other_edge) = (sub(p1, p0), sub(w1, w0));
    let (t0, d0) = point_segment(w0, p0, own_edge);
    let (t1, d1) = point_segment(w1, p0, own_edge);
    let (t2, d2) = point_segment(p0, w0, other_edge);
    let (t3, d3) = point_segment(p1, w0, other_edge);
    let doubtful = on_a
        .doubtful
        .or(on_b.doubtful)
        .or(not_finite(d0))
        .or(not_finite(d1))
        .or(not_finite(d2))
        .or(not_finite(d3));
    let (d0, d1, d2, d3) = (
        nan_as_infinite(d0),
        nan_as_infinite(d1),
        nan_as_infinite(d2),
        nan_as_infinite(d3),
    );
    let nearest = d0.min(d1).min(d2.min(d3));
    let found = nearest.lt(V::splat(f32::MAX));
    // The first of the four holding the nearest.
    let k0 = d0.eq(nearest);
    let k1 = d1.eq(nearest).and(k0.not());
    let k2 = d2.eq(nearest).and(k0.or(k1).not());
    let k3 = k0.or(k1).or(k2).not();
    let t = k0.select(t0, k1.select(t1, k2.select(t2, t3)));
    let distance = k0.select(d0, k1.select(d1, k2.select(d2, d3)));
    let on_owner_face = k0.or(k1);
    let second = k1.or(k3);
    let end = t.ge(one);
    let at_end = t.le(zero).or(end);
    // Vertex `i` of the owner and `j` of the other, as masks of "1".
    let (i, j) = (
        on_owner_face.select(end, second),
        on_owner_face.select(second, end),
    );
    let w_second = select2(second, w1, w0);
    let p_second = select2(second, p1, p0);
    let height = on_owner_face.select(
        dot(owner_normal, sub(w_second, p0)),
        dot(other_normal, sub(p_second, w0)),
    );
    let side_1 = height.ge(zero).not();
    let gap = sub(select2(j, w1, w0), select2(i, p1, p0));
    let vertex_distance = dot(gap, gap).sqrt();
    let doubtful = doubtful.or(not_finite(vertex_distance));
    let vertex_feature = V::splat(4.0) + V::splat(2.0) * as_one(i) + as_one(j);
    // Closest: the vertex pair (owned by the core's owner), or the face on
    // the point's side, the other's face flipping the owner (B where the
    // core's owner is B exactly when the face is the owner's).
    let face_owner_b = b_wins.and(on_owner_face).or(b_wins.or(on_owner_face).not());
    let closest_owner_b = at_end.select(b_wins, face_owner_b);
    let closest_feature = at_end.select(vertex_feature, as_one(side_1));
    let closest_separation = at_end.select(vertex_distance, distance) - radii;
    let use_closest = apart.and(found);
    let owner_b = use_closest.select(closest_owner_b, b_wins);
    let feature = use_closest.select(closest_feature, face_feature);
    let separation = use_closest.select(closest_separation, face_separation);
    let reported = past_limit.not().and(separation.lt(V::splat(margin)));
    SegmentLanes {
        xf_a,
        xf_b,
        xf_ab,
        xf_ba,
        faces_a,
        faces_b,
        a_in_b: on_a.vertex,
        b_in_a: on_b.vertex,
        radius_a: V::load(&a.radius),
        radius_b: V::load(&b.radius),
        size: V::load(&a.size) + V::load(&b.size),
        owner_b,
        feature,
        separation,
        reported,
        doubtful,
    }
}

impl<'a> SegmentPairs<'a> {
    /// Whether all eight lanes are filled.
    #[inline(always)]
    pub(crate) fn is_full(&self) -> bool {
        self.len == PAIRS
    }

    /// Lanes filled.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Fills the next lane with a pair: its bodies' world transforms, its
    /// segments' edge records, and `(size, radius)` of each shape. The
    /// caller checks [`is_full`](Self::is_full) first.
    #[inline(always)]
    pub(crate) fn push(
        &mut self,
        (xf_a, a, record_a): (Transform, &'a [EdgeRecord; 2], (f32, f32)),
        (xf_b, b, record_b): (Transform, &'a [EdgeRecord; 2], (f32, f32)),
    ) {
        let lane = self.len;
        self.a.set(lane, xf_a, a, record_a);
        self.b.set(lane, xf_b, b, record_b);
        self.pairs[lane] = Some(ScalarPair {
            a,
            b,
            xf_a,
            xf_b,
            radii: record_a.1 + record_b.1,
            tolerance: TIE_TOLERANCE * (record_a.0 + record_b.0),
        });
        self.len += 1;
    }

    /// The filled lanes' results, in the order they were pushed, and the
    /// lanes emptied. Unfilled lanes compute on what they last held (or
    /// zeros), and are not read.
    #[inline(always)]
    pub(crate) fn finish<V: Lanes>(&mut self, margin: f32) -> [Option<PairResult>; PAIRS] {
        let lanes = self.lanes::<V>(margin);
        let (separation, feature) = (lanes.separation.to_array(), lanes.feature.to_array());
        let (owner_b, reported, doubtful) = (
            lanes.owner_b.mask_bits(),
            lanes.reported.mask_bits(),
            lanes.doubtful.mask_bits(),
        );
        let mut results = [None; PAIRS];
        for (lane, result) in results.iter_mut().enumerate().take(self.len) {
            if doubtful & (1 << lane) != 0 {
                // A height of zero or a non-finite value: the scalar path.
                *result = self.scalar_result(lane, margin);
                continue;
            }
            if reported & (1 << lane) != 0 {
                let owner = if owner_b & (1 << lane) != 0 {
                    Owner::B
                } else {
                    Owner::A
                };
                *result = Some(PairResult {
                    axis: Axis::new(owner, feature[lane] as u32),
                    separation: separation[lane],
                });
            }
        }
        self.clear();
        results
    }

    /// The filled lanes' SAT in lanes (the lanes past [`len`](Self::len)
    /// compute on what they last held, or zeros, and are not to be read).
    #[inline(always)]
    pub(crate) fn lanes<V: Lanes>(&self, margin: f32) -> SegmentLanes<V> {
        collide_lanes::<V>(&self.a, &self.b, margin)
    }

    /// Lane `lane`'s pair through `segments.rs`, the path of the lanes the
    /// check sends back.
    #[inline(always)]
    pub(crate) fn scalar_result(&self, lane: usize, margin: f32) -> Option<PairResult> {
        let pair = self.pairs[lane]?;
        let relative = (
            crate::d2::math::inv_mul_transforms(pair.xf_a, pair.xf_b),
            crate::d2::math::inv_mul_transforms(pair.xf_b, pair.xf_a),
        );
        collide_segments(pair.a, pair.b, pair.radii, relative, pair.tolerance, margin)
    }

    /// Empties the lanes.
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
}
