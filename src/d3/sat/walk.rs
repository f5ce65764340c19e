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
//! About two regions and a dozen Gauss-map tests per edge of B, instead of
//! `E_A`. When the walk gives up or ends elsewhere (a path through a
//! Gauss-map vertex, a tie between supports), that edge of B falls back to
//! the test against every edge of A. The recorded pairs, sorted, go through
//! the body of `edges.rs`'s loop in its order (B's edges outside, A's
//! inside), so the tie rule and the early exit see the same candidates the
//! pairwise loop's passing pairs are: the same result, bit for bit (the
//! tests compare them on every pair).

use glam::Vec3;

use super::super::math::{Transform3, dot3, length3, rotate3};
use super::super::shapes::Hull;
use super::super::types::EdgeStats;
use super::edges::{EdgeScan, gauss_test, moved_edge};
use super::separation::{EdgeSeparation, Separation};

/// [`find_max_face_separation`](super::find_max_face_separation) that also
/// records, for each face of `hull1`, `hull2`'s deepest vertex
/// (`supports[i]`), looked up on `hull2`'s Gauss-map grid when it has one.
#[inline]
pub fn find_max_face_separation_supports(
    hull1: &Hull,
    hull2: &Hull,
    xf: Transform3,
    (tolerance, limit): (f32, f32),
    supports: &mut Vec<u16>,
) -> Separation {
    supports.clear();
    let mut best = Separation::NONE;
    let vertices = hull2.vertices();
    let grid = hull2.gauss_grid();
    for (i, (&normal, &offset)) in hull1.normals().iter().zip(hull1.offsets()).enumerate() {
        let moved = rotate3(xf.r, normal);
        let moved_offset = offset + dot3(moved, xf.p);
        let mut separation = f32::MAX;
        let mut deepest = 0u16;
        let mut offer = |v: u16| {
            let value = dot3(moved, vertices[v as usize]) - moved_offset;
            if value < separation {
                separation = value;
                deepest = v;
            }
        };
        match grid {
            Some(grid) => grid.regions_at(-moved).iter().for_each(|&v| offer(v)),
            None => (0..vertices.len() as u16).for_each(&mut offer),
        }
        supports.push(deepest);
        best.offer(separation, i as u32, tolerance);
        if separation >= limit {
            return Separation {
                value: separation,
                index: i as u32,
            };
        }
    }
    best
}

/// What the walk reuses from call to call on a thread.
#[derive(Default)]
struct Scratch {
    crossed: Vec<u16>,
    /// (B's edge, A's edge), in the order edges.rs scans them.
    candidates: Vec<(u16, u16)>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// Walks B's negated arc `j` (`u_b`, `v_b`, `arc_b` in A's frame) across
/// A's Gauss map from `start` (A's support along `-u_b`), recording the
/// edges of A crossed; `None` when the walk cannot be trusted.
#[inline]
fn walk(
    hull_a: &Hull,
    (u_b, v_b, arc_b): (Vec3, Vec3, Vec3),
    (start, end): (u16, u16),
    crossed: &mut Vec<u16>,
) -> Option<()> {
    let (gauss_a, edges_a) = (hull_a.edge_gauss(), hull_a.edges());
    let mut vertex = start;
    let mut came = u16::MAX;
    for _ in 0..=edges_a.len() {
        let mut exit = None;
        for &e in hull_a.vertex_edges(vertex as usize) {
            if e == came {
                continue;
            }
            let a = gauss_a[e as usize];
            if gauss_test((a.u, a.v, a.arc), (u_b, v_b, arc_b)).is_some() {
                if exit.is_some() {
                    return None;
                }
                exit = Some(e);
            }
        }
        let Some(e) = exit else {
            return (vertex == end).then_some(());
        };
        crossed.push(e);
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
/// each of B's arcs across A's Gauss map; `supports[f]` is A's support
/// along B's face `f`'s negated normal (from B's face query).
pub fn find_max_edge_separation_walk(
    hull_a: &Hull,
    hull_b: &Hull,
    xf: Transform3,
    (tolerance, limit): (f32, f32),
    supports: &[u16],
    stats: &mut EdgeStats,
) -> EdgeSeparation {
    stats.hull_pairs += 1;
    stats.edge_pairs += (hull_a.edges().len() * hull_b.edges().len()) as u64;
    SCRATCH.with_borrow_mut(|scratch| {
        let Scratch {
            crossed,
            candidates,
        } = scratch;
        candidates.clear();
        for (j, edge) in hull_b.edges().iter().enumerate() {
            let (u_b, v_b, arc_b, _) = moved_edge(hull_b, j, xf);
            crossed.clear();
            let ends = (supports[edge.f0 as usize], supports[edge.f1 as usize]);
            if walk(hull_a, (u_b, v_b, arc_b), ends, crossed).is_some() {
                crossed.sort_unstable();
                candidates.extend(crossed.iter().map(|&i| (j as u16, i)));
            } else {
                candidates.extend((0..hull_a.edges().len() as u16).map(|i| (j as u16, i)));
            }
        }
        scan(hull_a, hull_b, xf, (tolerance, limit), candidates, stats)
    })
}

/// The body of edges.rs's loops on the candidate pairs, in their order
/// ([`EdgeScan`]: the same result, the exact axis only where it can matter).
fn scan(
    hull_a: &Hull,
    hull_b: &Hull,
    xf: Transform3,
    (tolerance, limit): (f32, f32),
    candidates: &[(u16, u16)],
    stats: &mut EdgeStats,
) -> EdgeSeparation {
    let lanes_a = hull_a.lanes();
    let reach = length3(xf.p) + lanes_a.reach + hull_b.lanes().reach;
    let mut scan = EdgeScan::new(tolerance, limit, reach);
    let (gauss_a, edges_a, vertices_a) = (hull_a.edge_gauss(), hull_a.edges(), hull_a.vertices());
    let mut moved: Option<(u16, (Vec3, Vec3, Vec3, Vec3))> = None;
    for &(j, i) in candidates {
        let (u_b, v_b, arc_b, point_b) = match moved {
            Some((edge, data)) if edge == j => data,
            _ => {
                let data = moved_edge(hull_b, j as usize, xf);
                moved = Some((j, data));
                data
            }
        };
        let a = gauss_a[i as usize];
        let Some(test) = gauss_test((a.u, a.v, a.arc), (u_b, v_b, arc_b)) else {
            continue;
        };
        stats.kept += 1;
        if let Some(exit) = scan.offer(
            (u32::from(i), u32::from(j)),
            test,
            lanes_a.parallel[i as usize],
            (u_b, v_b, point_b),
            vertices_a[edges_a[i as usize].v0 as usize],
        ) {
            return exit;
        }
    }
    scan.best
}
