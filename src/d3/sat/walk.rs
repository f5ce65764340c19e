//! The output-sensitive queries for larger hulls: each face's deepest vertex
//! looked up on the other hull's Gauss map, and the edge pairs that cross on
//! the Gauss maps found by walking, not by testing all `E_A x E_B`.
//!
//! # The walk
//!
//! A's Gauss map is a network of arcs (A's edges) cutting the sphere into
//! regions (A's vertices: the directions in which that vertex is A's
//! support). B's edge `j`, negated, is an arc from `c = -u_b` to `d = -v_b`
//! (its faces' normals moved into A's frame). The pairs `(i, j)` that pass
//! the Gauss-map test are exactly the arcs `i` of A this arc crosses, and a
//! great arc crosses a convex region's boundary at most twice, so:
//!
//! ```text
//! v = A's support along c          (the face query of B's face f0 found it)
//! loop: test the edges around v, but the one we came in by
//!       none crosses: stop;  one: record it, step to its other vertex;
//!       two or more: give up (a degenerate crossing)
//! the walk must stop at A's support along d   (B's face f1's query found it)
//! ```
//!
//! About two regions per edge of B, instead of `E_A` tests; each region's
//! edges are tested eight at a time, from one contiguous record per
//! region (the hull's `RegionLanes`), with the lanes' arithmetic. When the walk gives up or ends elsewhere (a path through a
//! Gauss-map vertex, a tie between supports), that edge of B falls back to
//! the test against every edge of A. The recorded pairs, sorted, go through
//! the body of `edges.rs`'s loop in its order (B's edges outside, A's
//! inside), so the tie rule and the early exit see the same candidates the
//! pairwise loop's passing pairs are: the same result, bit for bit (the
//! tests compare them on every pair).

use glam::Vec3;

use super::super::math::{Transform, dot3, inv_transform_point, length3, rotate, transform_point};
use super::super::shape::lanes::LANES;
use super::super::shape::shapes::Hull;
use super::super::types::EdgeStats;
use super::edges::{EdgeScan, gauss_test};
use super::faces::{face_at, face_cone_bound, face_order};
use super::lanes::{crossing_mask, edge_bounds, face_cannot_matter};
use super::separation::{EdgeSeparation, Separation};
#[cfg(target_arch = "x86_64")]
use crate::core::simd::avx::Avx;
#[cfg(target_arch = "x86_64")]
use crate::core::simd::uses_avx;
use crate::core::simd::{Lanes, Portable};

/// What a face query of the walking search records for each face of
/// `hull1`: the face's plane moved into `hull2`'s frame (B's normals in A's
/// frame are its edges' Gauss-map ends, the same bits `moved_edge`
/// computes) and `hull2`'s deepest vertex along it, looked up when the query
/// computed the face or, for a face the bound skipped, when a walk first
/// asks ([`FaceSupports::support`], the same lookup).
#[derive(Clone, Debug, Default)]
pub struct FaceSupports {
    /// `hull2`'s deepest vertex along each face's negated normal;
    /// `u16::MAX` until it is looked up.
    pub vertices: Vec<u16>,
    /// Each face's normal, rotated into `hull2`'s frame.
    pub normals: Vec<Vec3>,
    /// Each face's offset in `hull2`'s frame.
    pub offsets: Vec<f32>,
}

impl FaceSupports {
    /// `hull2`'s deepest vertex along face `face`'s negated normal, looked
    /// up now if the face query skipped the face.
    #[inline]
    pub fn support(&mut self, face: usize, hull2: &Hull) -> u16 {
        if self.vertices[face] == u16::MAX {
            self.vertices[face] = deepest_vertex(hull2, self.normals[face], self.offsets[face]).1;
        }
        self.vertices[face]
    }
}

/// The lowest `moved . w - moved_offset` over `hull2`'s vertices, and the
/// first vertex holding it: over the regions its Gauss-map grid lists for
/// `-moved` when it has one, else over every vertex.
#[inline(always)]
fn deepest_vertex(hull2: &Hull, moved: Vec3, moved_offset: f32) -> (f32, u16) {
    let vertices = hull2.vertices();
    let mut separation = f32::MAX;
    let mut deepest = 0u16;
    let mut offer = |v: u16| {
        let value = dot3(moved, vertices[v as usize]) - moved_offset;
        if value < separation {
            separation = value;
            deepest = v;
        }
    };
    match hull2.gauss_grid() {
        Some(grid) => grid.regions_at(-moved).iter().for_each(|&v| offer(v)),
        None => (0..vertices.len() as u16).for_each(&mut offer),
    }
    (separation, deepest)
}

/// [`find_max_face_separation`](super::find_max_face_separation) with each
/// face's deepest vertex looked up on `hull2`'s Gauss-map grid when it has
/// one, skipping a face whose upper bound shows it cannot matter (as the
/// lanes skip it). With `supports` it records each face's moved plane and
/// the deepest vertices it computed ([`FaceSupports`]: B's face query,
/// whose supports the walks need).
#[inline]
pub fn find_max_face_separation_supports(
    hull1: &Hull,
    hull2: &Hull,
    xf: Transform,
    (tolerance, limit): (f32, f32),
    mut supports: Option<&mut FaceSupports>,
) -> Separation {
    let faces = hull1.face_count();
    if let Some(supports) = supports.as_deref_mut() {
        supports.vertices.clear();
        supports.normals.clear();
        supports.offsets.clear();
        supports.vertices.resize(faces, u16::MAX);
        supports.normals.resize(faces, Vec3::ZERO);
        supports.offsets.resize(faces, 0.0);
    }
    let mut best = Separation::NONE;
    let lanes2 = hull2.lanes();
    let bounded = lanes2.vertices.len() > 1;
    // A's query (no supports to record) passes over a run of eight faces
    // at once where its cone bound shows none of them can matter.
    let order = face_order(hull1, hull2, xf);
    let runs = bounded && supports.is_none();
    let cones = &hull1.lanes().face_cones;
    let mut t = 0;
    while t < faces {
        let i = face_at(order.first, t, faces);
        if runs && i.is_multiple_of(LANES) {
            let bound = face_cone_bound(cones[i / LANES], &order);
            if bound <= best.value + tolerance && bound < limit {
                t += LANES.min(faces - i);
                continue;
            }
        }
        t += 1;
        let (normal, offset) = (hull1.normals()[i], hull1.offsets()[i]);
        let moved = rotate(xf.r, normal);
        let moved_offset = offset + dot3(moved, xf.p);
        if let Some(supports) = supports.as_deref_mut() {
            supports.normals[i] = moved;
            supports.offsets[i] = moved_offset;
        }
        if bounded && face_cannot_matter(moved, moved_offset, lanes2, (best, tolerance, limit)) {
            continue;
        }
        let (separation, deepest) = deepest_vertex(hull2, moved, moved_offset);
        if let Some(supports) = supports.as_deref_mut() {
            supports.vertices[i] = deepest;
        }
        if let Some(stop) = best.offer_or_stop(separation, i as u32, tolerance, limit) {
            return stop;
        }
    }
    best
}

/// The edges of A one walk crossed, each with its `(CBA, DBA)`, and the
/// scratch of their separations.
type Crossed = (Vec<(u16, (f32, f32))>, Vec<f32>);

thread_local! {
    /// The edges of A one walk crossed, with their `(CBA, DBA)`.
    static CROSSED: std::cell::RefCell<Crossed> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// Walks B's negated arc `j` (`u_b`, `v_b`, `arc_b` in A's frame) across
/// A's Gauss map from `start` (A's support along `-u_b`), recording the
/// edges of A crossed with their test's `(CBA, DBA)`; `None` when the walk
/// cannot be trusted. Each region's edges are tested eight at a time
/// (`RegionLanes`, the lanes' `crossing_mask`: the scalar test's values).
#[inline(always)]
fn walk<V: Lanes>(
    hull_a: &Hull,
    (u_b, v_b, arc_b): (Vec3, Vec3, Vec3),
    (start, end): (u16, u16),
    crossed: &mut Vec<(u16, (f32, f32))>,
) -> Option<()> {
    let (edges_a, regions) = (hull_a.edges(), hull_a.regions());
    let mut vertex = start;
    let mut came = u16::MAX;
    for _ in 0..=edges_a.len() {
        let mut exit = None;
        for chunk in regions.of(vertex) {
            let (mut mask, cba, dba) = crossing_mask::<V>(&chunk.arcs, (u_b, v_b, arc_b));
            while mask != 0 {
                let k = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let e = chunk.edges[k];
                if e == came {
                    continue;
                }
                if exit.is_some() {
                    return None;
                }
                exit = Some((e, (cba.to_array()[k], dba.to_array()[k])));
            }
        }
        let Some((e, test)) = exit else {
            return (vertex == end).then_some(());
        };
        crossed.push((e, test));
        let edge = edges_a[e as usize];
        vertex = if edge.v0 as u16 == vertex {
            edge.v1
        } else {
            edge.v0
        } as u16;
        came = e;
    }
    None
}

/// [`find_max_edge_separation`](super::find_max_edge_separation) by walking
/// each of B's arcs across A's Gauss map; `levels` are its `(tolerance,
/// limit, floor)`; `supports` is what B's face query recorded (A's support
/// along each of B's faces, B's normals in A's frame).
///
/// ```text
/// for each edge j of B, in order:
///     walk its negated arc from supports[f0] to supports[f1]
///     trusted: the crossed edges of A, ascending, through the loop's body
///     else:    every edge of A through the Gauss-map test and the body
/// ```
///
/// The pairs reach the body (`EdgeScan`) in the pairwise loop's order, B's
/// edges outside and A's ascending inside, so the tie rule and the early
/// exit see what the pairwise loop's passing pairs are.
pub fn find_max_edge_separation_walk(
    hull_a: &Hull,
    hull_b: &Hull,
    xf: Transform,
    levels: (f32, f32, f32),
    supports: &mut FaceSupports,
    stats: &mut EdgeStats,
) -> EdgeSeparation {
    // A walk's next region depends on the last one's test: the regions are
    // asked for up front (collide_hulls asks before the face queries too).
    hull_a.prefetch_for_walk();
    // The scratch is borrowed here, outside the AVX function: a closure
    // inside it would be compiled without AVX.
    CROSSED.with_borrow_mut(|(crossed, bounds_b)| {
        let context = (supports, stats, crossed, bounds_b);
        #[cfg(target_arch = "x86_64")]
        if uses_avx() {
            // SAFETY: AVX was detected on this CPU.
            return unsafe { edge_walk_avx(hull_a, hull_b, xf, levels, context) };
        }
        edge_walk_with::<Portable>(hull_a, hull_b, xf, levels, context)
    })
}

/// What a walk reads and writes besides the hulls: B's face supports, the
/// statistics, the scratch list of crossed edges and B's edge bounds.
type WalkContext<'a> = (
    &'a mut FaceSupports,
    &'a mut EdgeStats,
    &'a mut Vec<(u16, (f32, f32))>,
    &'a mut Vec<f32>,
);

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn edge_walk_avx(
    hull_a: &Hull,
    hull_b: &Hull,
    xf: Transform,
    levels: (f32, f32, f32),
    context: WalkContext,
) -> EdgeSeparation {
    edge_walk_with::<Avx>(hull_a, hull_b, xf, levels, context)
}

#[inline(always)]
fn edge_walk_with<V: Lanes>(
    hull_a: &Hull,
    hull_b: &Hull,
    xf: Transform,
    levels: (f32, f32, f32),
    (supports, stats, crossed, bounds_b): WalkContext,
) -> EdgeSeparation {
    stats.hull_pairs += 1;
    stats.edge_pairs += (hull_a.edges().len() * hull_b.edges().len()) as u64;
    let lanes_a = hull_a.lanes();
    let reach = length3(xf.p) + lanes_a.reach + hull_b.lanes().reach;
    let mut scan = EdgeScan::new(levels, reach);
    // B's edges bounded by A's inner ball once, eight at a time (as the
    // lanes do): an edge that cannot matter is passed over before it is
    // moved into A's frame.
    let centre_a = inv_transform_point(xf, lanes_a.inner_centre);
    edge_bounds::<V>(hull_b.lanes(), (centre_a, lanes_a.inner_radius), bounds_b);
    let gauss_a = hull_a.edge_gauss();
    let (gauss_b, vertices_b) = (hull_b.edge_gauss(), hull_b.vertices());
    for (j, edge) in hull_b.edges().iter().enumerate() {
        if scan.cannot_matter(bounds_b[j]) {
            stats.skipped += 1;
            continue;
        }
        // moved_edge, with the face normals the face query moved.
        let (u_b, v_b) = (
            supports.normals[edge.f0 as usize],
            supports.normals[edge.f1 as usize],
        );
        let arc_b = rotate(xf.r, gauss_b[j].arc);
        let point_b = transform_point(xf, vertices_b[edge.v0 as usize]);
        crossed.clear();
        let ends = (
            supports.support(edge.f0 as usize, hull_a),
            supports.support(edge.f1 as usize, hull_a),
        );
        let mut offer = |i: u16, test: (f32, f32)| {
            stats.kept += 1;
            scan.offer(
                (u32::from(i), j as u32),
                test,
                lanes_a.parallel_bound(usize::from(i)),
                (u_b, v_b, point_b),
                lanes_a.edge_origin(usize::from(i)),
            )
        };
        if walk::<V>(hull_a, (u_b, v_b, arc_b), ends, crossed).is_some() {
            crossed.sort_unstable_by_key(|&(i, _)| i);
            for &(i, test) in crossed.iter() {
                if let Some(exit) = offer(i, test) {
                    return exit;
                }
            }
        } else {
            for (i, a) in gauss_a.iter().enumerate() {
                if let Some(test) = gauss_test((a.u, a.v, a.arc), (u_b, v_b, arc_b))
                    && let Some(exit) = offer(i as u16, test)
                {
                    return exit;
                }
            }
        }
    }
    scan.best
}
