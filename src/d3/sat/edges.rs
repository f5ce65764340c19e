//! Edge queries: pairs of edges, one from each hull.
//!
//! Besides face normals, the separating axis of two convex polyhedra may be
//! the cross product of an edge of A and an edge of B. There are `E_A x E_B`
//! such pairs, and most cannot matter: seed 003's insight (Gregorius, GDC
//! 2013) is that an edge pair gives a candidate axis only if it forms a face
//! of the Minkowski difference, and that shows on the Gauss maps.
//!
//! # The Gauss map test
//!
//! A hull's Gauss map puts each face at its unit normal on the sphere; an
//! edge becomes the great arc between its two faces' normals. For a
//! direction `n`, A's supporting feature is where `n` falls on A's map, and
//! B's supporting feature in the opposite direction is where `n` falls on B's
//! map negated. An edge pair can be the supporting features of both hulls in
//! one direction only if A's arc and B's negated arc cross, and at the
//! crossing point that direction is the axis. With A's edge between faces
//! `a`, `b` and B's negated faces `c = -u_B`, `d = -v_B`, the arcs cross when
//!
//! ```text
//! CBA * DBA < 0  and  ADC * BDC < 0  and  CBA * BDC > 0
//! where CBA = c . (b x a), DBA = d . (b x a), ADC = a . (d x c), BDC = b . (d x c)
//! ```
//!
//! (`c` and `d` lie on opposite sides of A's great circle, `a` and `b` on
//! opposite sides of B's, and on the same hemisphere). `b x a` is stored per
//! edge with the two normals ([`Hull::edge_gauss`]); for B it is rotated
//! into A's frame, since rotation keeps cross products.
//!
//! # The axis
//!
//! For a pair that passes, the crossing point itself is the axis: the point
//! of B's negated arc `c + t (d - c)` on A's great circle, `t = CBA / (CBA -
//! DBA)`, normalised (Box3D's construction). Lying on A's arc, it points out
//! of A, so no centre is needed to orient it; and its separation is just
//! `axis . (point on B's edge - point on A's edge)`, both edges being the
//! supporting features. Nearly parallel edges (B's faces nearly
//! perpendicular to A's edge: `CBA` and `DBA` both near zero) are skipped;
//! their axis is ill defined and the face axes cover them.
//!
//! # The brute force
//!
//! [`find_max_edge_separation_brute`] tests every pair of non-parallel edges
//! with the full projections of both hulls on `eA x eB`, in both
//! orientations: the unpruned SAT, several hundred times slower on large
//! hulls, for the tests (pruning must not change an answer) and the bench.

use glam::Vec3;

use super::super::math::{Transform, cross3, dot3, length3, rotate, transform_point};
use super::super::shape::shapes::Hull;
use super::super::types::EdgeStats;
use super::separation::{EdgeSeparation, LOWEST, PARALLEL_TOLERANCE};

/// The Gauss-map test of A's edge (`u_a`, `v_a`: its faces' normals;
/// `arc_a = v_a x u_a`) against B's edge, whose faces' normals are `u_b`,
/// `v_b` and `arc_b = v_b x u_b` (in A's frame). Returns `(CBA, DBA)` when
/// the arcs cross (the pair is a face of the Minkowski difference).
#[inline(always)]
pub fn gauss_test(
    (u_a, v_a, arc_a): (Vec3, Vec3, Vec3),
    (u_b, v_b, arc_b): (Vec3, Vec3, Vec3),
) -> Option<(f32, f32)> {
    let cba = -dot3(u_b, arc_a);
    let dba = -dot3(v_b, arc_a);
    let adc = dot3(u_a, arc_b);
    let bdc = dot3(v_a, arc_b);
    (cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0).then_some((cba, dba))
}

/// Whether the edges are too close to parallel for an axis: both of B's
/// face normals (nearly) perpendicular to A's edge.
#[inline(always)]
pub fn nearly_parallel(cba: f32, dba: f32, arc_a: Vec3) -> bool {
    cba.abs().max(dba.abs()) <= PARALLEL_TOLERANCE * length3(arc_a)
}

/// The crossing point of B's negated arc with A's great circle, normalised:
/// the axis of a pair that passed [`gauss_test`], pointing out of A.
#[inline(always)]
pub fn edge_axis(u_b: Vec3, v_b: Vec3, cba: f32, dba: f32) -> Vec3 {
    let t = cba / (cba - dba);
    let on_arc = -(u_b + t * (v_b - u_b));
    on_arc / length3(on_arc)
}

/// How far below the threshold (times the pair's reach, [`EdgeScan::new`])
/// the cheap estimate of an edge pair's separation must fall before the
/// exact axis is skipped. Both the estimate and the exact separation are
/// within about `20 x 2^-24` of the separation of the computed inputs, times
/// the length of the vertex difference, which the reach bounds: the slack is
/// some 80 times that.
pub(crate) const SKIP_SLACK: f32 = 1.0e-4;

/// The body of the pairwise edge loop for the fast searches (`lanes.rs`,
/// `walk.rs`): candidate pairs that passed the Gauss-map test, offered in
/// the loop's order, with the loop's tie rule and early exit, and the same
/// result bit for bit, but without the exact axis (a division, a square root
/// and three divisions) for pairs that cannot matter.
///
/// The crossing point of a pair that passes is `w / (CBA - DBA)` with
/// `w = DBA u_b - CBA v_b`, and `CBA - DBA` has the sign of `CBA` (the two
/// have opposite signs), so the separation is `sign(CBA) w . diff / |w|`.
/// That estimate, one square root and no division, decides whether the
/// exact value could replace the best or reach the limit:
///
/// ```text
/// threshold = min(best + tolerance, limit) - slack
/// if sign(CBA) w . diff < threshold |w|: skip        # cannot matter
/// else: the scalar loop's body (edge_axis, the separation, tie rule, exit)
/// ```
///
/// A pair is kept only above the scan's level: the best plus the
/// tolerance, or the query's floor where that is higher (see
/// [`find_max_edge_separation`]). While the level is the lowest value (no
/// pair computed yet, no floor) nothing is skipped; a NaN anywhere computes
/// the pair exactly.
pub(super) struct EdgeScan {
    /// The best pair so far.
    pub(super) best: EdgeSeparation,
    tolerance: f32,
    limit: f32,
    floor: f32,
    slack: f32,
}

impl EdgeScan {
    /// A scan with the tie rule's `tolerance`, the early exit's `limit` and
    /// the query's `floor`; `reach` bounds the length of `point_b -
    /// vertex_a` for every pair (B's offset in A's frame plus both hulls'
    /// reach).
    #[inline(always)]
    pub(super) fn new((tolerance, limit, floor): (f32, f32, f32), reach: f32) -> EdgeScan {
        EdgeScan {
            best: EdgeSeparation::NONE,
            tolerance,
            limit,
            floor,
            slack: SKIP_SLACK * reach,
        }
    }

    /// The level a pair's separation must exceed to be kept: the best plus
    /// the tolerance, or the floor where that is higher.
    #[inline(always)]
    pub(super) fn level(&self) -> f32 {
        let level = self.best.value + self.tolerance;
        if self.floor > level {
            self.floor
        } else {
            level
        }
    }

    /// Whether pairs whose separations are all at most `bound` (less the
    /// scan's rounding allowance, added here) could be skipped: none could
    /// be kept or reach the limit. Never while the level is the lowest
    /// value, and never on a NaN.
    #[inline(always)]
    pub(super) fn cannot_matter(&self, bound: f32) -> bool {
        let bound = bound + 2.0 * self.slack;
        let level = self.level();
        level > LOWEST && bound <= level && bound < self.limit
    }

    /// What `cannot_matter` compares with, for a vector of bounds:
    /// `(the level, limit, the allowance added to a bound)`.
    #[inline(always)]
    pub(super) fn skip_levels(&self) -> (f32, f32, f32) {
        (self.level(), self.limit, 2.0 * self.slack)
    }

    /// Offers A's edge `i` against B's edge `j` (in A's frame: `u_b`, `v_b`,
    /// `point_b`), which passed the Gauss-map test with `(cba, dba)`;
    /// `parallel` is A's edge's `PARALLEL_TOLERANCE x |arc|`. Returns the
    /// pair when it reaches the limit (the scan ends there).
    #[inline(always)]
    pub(super) fn offer(
        &mut self,
        (i, j): (u32, u32),
        (cba, dba): (f32, f32),
        parallel: f32,
        (u_b, v_b, point_b): (Vec3, Vec3, Vec3),
        vertex_a: Vec3,
    ) -> Option<EdgeSeparation> {
        // nearly_parallel, with the bound precomputed.
        if cba.abs().max(dba.abs()) <= parallel {
            return None;
        }
        let diff = point_b - vertex_a;
        let level = self.level();
        if level > LOWEST {
            let threshold = level.min(self.limit) - self.slack;
            let w = dba * u_b - cba * v_b;
            let toward = dot3(w, diff);
            let along = if cba < 0.0 { -toward } else { toward };
            if along < threshold * length3(w) {
                return None;
            }
        }
        let axis = edge_axis(u_b, v_b, cba, dba);
        let separation = dot3(axis, diff);
        let pair = EdgeSeparation {
            value: separation,
            a: i,
            b: j,
        };
        if separation > self.best.value + self.tolerance && separation > self.floor {
            self.best = pair;
        }
        (separation >= self.limit).then_some(pair)
    }
}

/// B's edge `edge` moved into A's frame by `xf`: its faces' normals, its arc
/// normal, and its first vertex.
///
/// Read from the lanes' copies of [`Hull::edge_gauss`] (the same bits, eight
/// edges to a chunk), which the searches have already brought into the
/// cache to bound B's edges: the scalar array would be one more cache miss
/// per pair when many hulls take turns.
#[inline(always)]
pub fn moved_edge(hull_b: &Hull, edge: usize, xf: Transform) -> (Vec3, Vec3, Vec3, Vec3) {
    let lanes = hull_b.lanes();
    let gauss = lanes.edge_gauss(edge);
    (
        rotate(xf.r, gauss.u),
        rotate(xf.r, gauss.v),
        rotate(xf.r, gauss.arc),
        transform_point(xf, lanes.edge_origin(edge)),
    )
}

/// The deepest edge pair of two hulls, in A's frame (`xf` takes B's local
/// points into A's), pruned by the Gauss-map test.
///
/// ```text
/// best = (LOWEST, -, -)
/// for each edge j of B (moved into A's frame once):
///     for each edge i of A:
///         if the arcs do not cross on the Gauss maps: skip   # the pruning
///         if the edges are nearly parallel: skip
///         axis = the crossing point, normalised
///         s = axis . (B's edge point - A's edge point)
///         if s > best + tolerance and s > floor: best = (s, i, j)   # the tie rule
///         if s >= limit: return (s, i, j)
/// ```
///
/// `floor`: pairs that do not exceed it are not kept (the result is `NONE`
/// if none does). `f32::MIN` keeps every pair; `collide_hulls` passes the
/// best face's separation plus the edge tolerance
/// ([`edge_floor`](super::edge_floor)), below which no edge pair could be
/// chosen over the face, so that the searches pass over most pairs from
/// the start. Every edge query takes the same floor and keeps the same
/// pairs, so they agree bit for bit with it as without.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn find_max_edge_separation(
    hull_a: &Hull,
    hull_b: &Hull,
    xf: Transform,
    tolerance: f32,
    limit: f32,
    floor: f32,
    stats: &mut EdgeStats,
) -> EdgeSeparation {
    let mut best = EdgeSeparation::NONE;
    let (gauss_a, vertices_a) = (hull_a.edge_gauss(), hull_a.vertices());
    stats.hull_pairs += 1;
    stats.edge_pairs += (hull_a.edges().len() * hull_b.edges().len()) as u64;
    for j in 0..hull_b.edges().len() {
        let (u_b, v_b, arc_b, point_b) = moved_edge(hull_b, j, xf);
        for (i, a) in gauss_a.iter().enumerate() {
            let Some((cba, dba)) = gauss_test((a.u, a.v, a.arc), (u_b, v_b, arc_b)) else {
                continue;
            };
            stats.kept += 1;
            if nearly_parallel(cba, dba, a.arc) {
                continue;
            }
            let axis = edge_axis(u_b, v_b, cba, dba);
            let v0 = hull_a.edges()[i].v0;
            let separation = dot3(axis, point_b - vertices_a[v0 as usize]);
            if separation > best.value + tolerance && separation > floor {
                best = EdgeSeparation {
                    value: separation,
                    a: i as u32,
                    b: j as u32,
                };
            }
            if separation >= limit {
                return EdgeSeparation {
                    value: separation,
                    a: i as u32,
                    b: j as u32,
                };
            }
        }
    }
    best
}

/// The lowest and highest projections of `points` on `axis`.
pub fn extent(points: &[Vec3], axis: Vec3) -> (f32, f32) {
    points
        .iter()
        .fold((f32::MAX, -f32::MAX), |(low, high), &p| {
            let height = dot3(axis, p);
            (low.min(height), high.max(height))
        })
}

/// The separation of two point sets along the unit `axis` in whichever
/// orientation separates them more: along `+axis` B must lie beyond A, along
/// `-axis` A beyond B. Returns it and whether `+axis` (from A to B) won; a
/// tie goes to `+axis`.
pub fn projected_separation(points_a: &[Vec3], points_b: &[Vec3], axis: Vec3) -> (f32, bool) {
    let (low_a, high_a) = extent(points_a, axis);
    let (low_b, high_b) = extent(points_b, axis);
    let (forward, backward) = (low_b - high_a, low_a - high_b);
    if forward >= backward {
        (forward, true)
    } else {
        (backward, false)
    }
}

/// Every pair of non-parallel edges, each axis `eA x eB` with the full
/// projections of both hulls in both orientations: the unpruned SAT's edge
/// query (the same scan order, tie rule, floor and early exit).
#[allow(clippy::too_many_arguments)]
pub fn find_max_edge_separation_brute(
    hull_a: &Hull,
    hull_b: &Hull,
    xf: Transform,
    tolerance: f32,
    limit: f32,
    floor: f32,
    stats: &mut EdgeStats,
) -> EdgeSeparation {
    let vertices_b: Vec<Vec3> = hull_b
        .vertices()
        .iter()
        .map(|&w| transform_point(xf, w))
        .collect();
    let vertices_a = hull_a.vertices();
    stats.hull_pairs += 1;
    stats.edge_pairs += (hull_a.edges().len() * hull_b.edges().len()) as u64;
    let mut best = EdgeSeparation::NONE;
    for (j, edge_b) in hull_b.edges().iter().enumerate() {
        let direction_b = vertices_b[edge_b.v1 as usize] - vertices_b[edge_b.v0 as usize];
        for (i, edge_a) in hull_a.edges().iter().enumerate() {
            let direction_a = vertices_a[edge_a.v1 as usize] - vertices_a[edge_a.v0 as usize];
            let axis = cross3(direction_a, direction_b);
            let length = length3(axis);
            if length <= PARALLEL_TOLERANCE * length3(direction_a) * length3(direction_b) {
                continue;
            }
            stats.kept += 1;
            let separation = projected_separation(vertices_a, &vertices_b, axis / length).0;
            if separation > best.value + tolerance && separation > floor {
                best = EdgeSeparation {
                    value: separation,
                    a: i as u32,
                    b: j as u32,
                };
            }
            if separation >= limit {
                return EdgeSeparation {
                    value: separation,
                    a: i as u32,
                    b: j as u32,
                };
            }
        }
    }
    best
}
