//! The 3D kernel's loops against lavapipe's loop limit: lavapipe silently
//! ends a SIMD group's loops after 65,535 iterations in all, so the most
//! iterations any pair can take, kind by kind, is modelled here from the
//! kernel's loop steps and checked to stay under the limit.

use super::kinds::*;
use crate::d3::MAX_HULL_VERTICES;

/// lavapipe ends a SIMD group's loops after this many iterations in all.
const LAVAPIPE_LOOP_ITERATIONS: u64 = 65_535;

/// Invocations in one llvmpipe SIMD group (256-bit vectors of 32-bit
/// lanes), whose loop iterations count together.
const SIMD_LANES: u64 = 8;

/// The steps of the kernel's inner loops: vertices per face-query
/// iteration, A's edges per Gauss-map iteration, crossing pairs offered
/// per iteration (`shaders/d3/sat.wgsl`).
struct Steps {
    vertices: u64,
    edges: u64,
    offers: u64,
}

const NARROW: Steps = Steps {
    vertices: 8,
    edges: 4,
    offers: 1,
};
/// `hulls_cached`: a face's vertices, and an edge of B's Gauss-map
/// tests against A's cached hot edges (all of A's edges in
/// `hulls_small`), in straight-line code (no loop); A's other hot edges
/// are offered one a step with the crossings, at most all of A's edges
/// per edge of B, which the offers already count.
const CACHED: Steps = Steps {
    vertices: CACHED_HULL_VERTICES as u64,
    edges: 3 * CACHED_HULL_VERTICES as u64,
    offers: 1,
};
const CACHED64: Steps = Steps {
    vertices: CACHED64_HULL_VERTICES as u64,
    edges: 3 * CACHED64_HULL_VERTICES as u64,
    offers: 1,
};
const WIDE: Steps = Steps {
    vertices: 32,
    edges: 64,
    offers: 32,
};

/// The most loop iterations one SIMD group runs for two hulls of `va`
/// and `vb` vertices (with the most faces and edges such hulls can
/// have: `2V - 4` and `3V - 6`), whatever the lanes do: each query's
/// outer loop runs once per face or edge and once more; the loops that
/// pass over faces and edges a bound rules out run at least once per
/// outer iteration plus, at most, every lane's every face or edge, out of
/// step with each other; each face scans all of the other's vertices;
/// each edge of B tests all of A's and may find all of them crossing.
/// (The cached kinds mark B's hot faces inside B's face query: no loop
/// of their own.)
fn hull_pair_iterations(va: u64, vb: u64, steps: &Steps) -> u64 {
    let (ea, eb) = (edges(va), edges(vb));
    face_iterations(va, vb, steps)
        + passes(eb)
        + (eb + 1) * ea.div_ceil(steps.edges)
        + (eb + 1) * ea.div_ceil(steps.offers)
}

/// The most faces and edges a hull of `v` vertices can have.
fn faces(v: u64) -> u64 {
    2 * v - 4
}

fn edges(v: u64) -> u64 {
    3 * v - 6
}

/// A loop that passes over `n` items a bound rules out, each lane
/// going on to its own next one: once per item and once more, plus, at
/// most, every lane's every item, out of step with each other.
fn passes(n: u64) -> u64 {
    (n + 1) + (n + 1) + SIMD_LANES * n
}

/// Both face queries: each face scans all of the other's vertices; the
/// loop that passes over faces reads each run of eight's cone too.
fn face_iterations(va: u64, vb: u64, steps: &Steps) -> u64 {
    let face_query =
        |f: u64, v: u64| passes(f + f.div_ceil(8)) + (f + 1) * v.div_ceil(steps.vertices);
    face_query(faces(va), vb) + face_query(faces(vb), va)
}

/// The loops that find a hull's hot faces (`hot_faces`): its runs'
/// cones 32 a step, then each run that may hold one, one a step.
fn hot_face_iterations(v: u64) -> u64 {
    let runs = faces(v).div_ceil(8);
    (runs.div_ceil(32) + 1) + (runs + 1)
}

/// The loops that find a hull's kept edges face by face
/// (`kept_edges_of_faces`): at most `FACE_BY_FACE_MOST` hot faces a
/// lane, one a step and once more, each face's loop four edges a step
/// and once more, a face having at most `v` edges (lanes out of step:
/// each step waits on the largest face).
fn face_by_face_iterations(v: u64) -> u64 {
    (u64::from(crate::gpu::layout::d3::FACE_BY_FACE_MOST) + 1) * (v.div_ceil(4) + 1)
}

/// The same for the large kinds, whose edge query
/// (`find_max_edge_separation_large`) finds the two hulls' hot faces
/// (`hot_face_iterations`) and their kept edges, 64 a step or, but in
/// `hulls_deferred`, face by face (`face_by_face_iterations`: the SIMD
/// group runs both where its lanes differ); then the pairs whose A
/// keeps at most `slots` edges (64, or 32 in `hulls_gridded32`) take
/// each kept edge of B once and offer its crossings with the cached
/// edges `offers` a step (at most `slots / offers` steps, at least one).
/// The first dispatch defers the other pairs; `hulls_deferred` runs
/// both paths in one SIMD group (`fallback`), the other taking each
/// kept edge of B once, testing it against all of A's 64 a step and
/// offering its crossings `WIDE.offers` a step (and one step more that
/// finds none left). Every edge kept, every pair crossing.
fn large_pair_iterations(va: u64, vb: u64, slots: u64, offers: u64, fallback: bool) -> u64 {
    let (ea, eb) = (edges(va), edges(vb));
    let masks = (ea.div_ceil(64) + 1)
        + (eb.div_ceil(64) + 1)
        + hot_face_iterations(va)
        + hot_face_iterations(vb)
        + if fallback {
            0
        } else {
            face_by_face_iterations(va) + face_by_face_iterations(vb)
        };
    let cached = (eb + 1) + eb * slots.div_ceil(offers);
    let fallback = if fallback {
        (eb + 1) + eb * (ea.div_ceil(WIDE.edges) + 1) + eb * (ea.div_ceil(WIDE.offers) + 1)
    } else {
        0
    };
    face_iterations(va, vb, &WIDE) + masks + cached + fallback
}

/// The loop kinds (`hulls_large_loops`, `hulls_gridded_loops`) for two
/// hulls of at most `va` and `vb` vertices, in a SIMD group whose lanes
/// hold either order: both face queries 8 vertices a step (the gridded
/// query's lists, at most `GPU_GRID_LIST_MAX` four a step, take at most
/// eight, which the larger hull's steps are at least), every face
/// computed against the larger hull; each hull's hot faces one run a step
/// (the warm runs, then each warm run), its kept edges face by face and
/// edge by edge, 8 a step (lanes differing run both); then one loop over
/// B's kept edges and, for each, A's kept edges, a step each, every edge
/// kept: a lane's own count, as the lanes go through that one loop each
/// at its own pace.
fn loop_pair_iterations(va: u64, vb: u64) -> u64 {
    let most = va.max(vb);
    let steps = most
        .div_ceil(NARROW.vertices)
        .max(GPU_GRID_LIST_MAX.div_ceil(4) as u64);
    let face_query = passes(faces(most) + faces(most).div_ceil(8)) + (faces(most) + 1) * steps;
    let masks = |v: u64| {
        let runs = faces(v).div_ceil(8);
        2 * (runs + 1) + face_by_face_iterations(v) + (edges(v).div_ceil(8) + 1)
    };
    let pairs = edges(va) * (edges(vb) + 1) + 1;
    2 * face_query + 2 * masks(most) + pairs.max(edges(vb) * (edges(va) + 1) + 1)
}

/// The loop kinds stay under lavapipe's limit where a software adapter
/// runs them (the hardware kinds forced): a large hull of up to
/// [`LOOP_KINDS_SOFTWARE_MOST`] vertices against one of up to
/// [`LOOP_PARTNER_VERTICES`], with half the limit to spare; not two such
/// hulls, and not the largest hull against a box, which would leave 4%.
#[test]
fn the_loop_kinds_stay_under_lavapipes_limit_where_it_runs_them() {
    let (large, partner) = (
        LOOP_KINDS_SOFTWARE_MOST as u64,
        LOOP_PARTNER_VERTICES as u64,
    );
    let fits = loop_pair_iterations(large, partner);
    assert!(
        fits < LAVAPIPE_LOOP_ITERATIONS,
        "{large} and {partner}: {fits}"
    );
    let two_large = loop_pair_iterations(large, large);
    assert!(
        two_large > LAVAPIPE_LOOP_ITERATIONS,
        "two of {large}: {two_large}"
    );
    // The largest hull against a box would come within 4% of the limit:
    // no room for a model's slip.
    let most = MAX_HULL_VERTICES as u64;
    let largest = loop_pair_iterations(most, partner);
    assert!(
        largest * 25 > LAVAPIPE_LOOP_ITERATIONS * 24,
        "{most} and {partner}: {largest}"
    );
    assert!(
        fits * 2 < LAVAPIPE_LOOP_ITERATIONS,
        "{large} and {partner}: {fits}"
    );
}

/// The kernel's loops stay under lavapipe's limit for every pair it can
/// get: narrow steps up to [`WIDE_HULL_VERTICES`] on both sides, the
/// cached kind's up to [`CACHED_HULL_VERTICES`], wide steps for anything
/// up to [`MAX_HULL_VERTICES`].
#[test]
fn the_loops_stay_under_lavapipes_limit() {
    let (narrow_most, most) = (WIDE_HULL_VERTICES as u64, MAX_HULL_VERTICES as u64);
    let narrow = hull_pair_iterations(narrow_most, narrow_most, &NARROW);
    // Offers a step as the kernel's edge query picks them.
    let wide = large_pair_iterations(most, most, 64, 2, false);
    let deferred = large_pair_iterations(most, most, 64, 4, true);
    let gridded32_most = GRIDDED32_HULL_VERTICES as u64;
    let gridded32 = large_pair_iterations(gridded32_most, gridded32_most, 32, 1, false);
    assert!(
        gridded32 < LAVAPIPE_LOOP_ITERATIONS,
        "gridded32: {gridded32}"
    );
    assert!(deferred < LAVAPIPE_LOOP_ITERATIONS, "deferred: {deferred}");
    // One offer a step would not do for the largest hulls.
    let one_offer = large_pair_iterations(most, most, 64, 1, false);
    assert!(
        one_offer > LAVAPIPE_LOOP_ITERATIONS,
        "one offer: {one_offer}"
    );
    assert!(narrow < LAVAPIPE_LOOP_ITERATIONS, "narrow: {narrow}");
    let cached_most = CACHED_HULL_VERTICES as u64;
    let cached = hull_pair_iterations(cached_most, cached_most, &CACHED);
    assert!(cached < LAVAPIPE_LOOP_ITERATIONS, "cached: {cached}");
    let cached64_most = CACHED64_HULL_VERTICES as u64;
    let cached64 = hull_pair_iterations(cached64_most, cached64_most, &CACHED64);
    assert!(cached64 < LAVAPIPE_LOOP_ITERATIONS, "cached64: {cached64}");
    assert!(wide < LAVAPIPE_LOOP_ITERATIONS, "wide: {wide}");
    // Narrow steps would not do for larger hulls.
    let larger = hull_pair_iterations(2 * narrow_most, 2 * narrow_most, &NARROW);
    assert!(larger > LAVAPIPE_LOOP_ITERATIONS, "larger: {larger}");
    // A hull and a sphere: the faces, each face's loop, the edges.
    let v = most;
    let sphere = 2 * (2 * v - 4) + 2 * (3 * v - 6) + (3 * v - 6);
    assert!(sphere < LAVAPIPE_LOOP_ITERATIONS, "sphere: {sphere}");
}

/// Σ over a hull's faces of one loop over each face's loop, `step`
/// entries a step and once more: with the lanes' hulls out of step, each
/// face takes the longest of the eight lanes' loops, whose entries are at
/// most all of the eight lanes' `2E` together.
fn face_loop_iterations(v: u64, step: u64) -> u64 {
    2 * faces(v) + (SIMD_LANES * 2 * edges(v)).div_ceil(step)
}

/// A pass of `rounded`'s slab search over a hull of `v` vertices' faces
/// against the other core's `other` vertices: each face's slab test (four
/// of its vertices a step), every vertex of the other core, and for each
/// the face's inside test (eight edges a step).
fn slab_face_pass(v: u64, other: u64) -> u64 {
    (faces(v) + 1)
        + face_loop_iterations(v, 4)
        + faces(v) * (other + 1)
        + other * face_loop_iterations(v, 8)
}

/// `rounded` (`shaders/d3/rounded.wgsl`) for two hull cores of at most `va`
/// and `vb` vertices: the narrow hull query to `margin + R`, the supports
/// (each core's vertices, and one core's again for the SAT's own
/// feature), both slab passes, and every two edges.
fn rounded_pair_iterations(va: u64, vb: u64) -> u64 {
    let supports = (va + 1) + (vb + 1) + (va.max(vb) + 1);
    let edge_pairs = (edges(va) + 1) + edges(va) * (edges(vb) + 1);
    hull_pair_iterations(va, vb, &NARROW)
        + supports
        + slab_face_pass(va, vb)
        + slab_face_pass(vb, va)
        + edge_pairs
}

/// `rounded` for a hull of `v` vertices and a segment core: the hull's
/// faces and edges against the segment, the face's inside test of the
/// SAT's own feature, the supports, the slab pass over the hull's faces
/// against the segment's two ends, and every edge against the segment.
fn rounded_segment_iterations(v: u64) -> u64 {
    (faces(v) + 1)
        + (edges(v) + 1)
        + face_loop_iterations(v, 8)
        + (v + 1)
        + 3
        + slab_face_pass(v, 2)
        + (edges(v) + 1)
        + edges(v) * 2
}

/// `rounded` stays under lavapipe's limit: two hull cores of up to
/// [`ROUNDED_HULL_VERTICES`] (70% of it), a hull of any size with a
/// segment; not two cores of 40 vertices.
#[test]
fn the_rounded_kind_stays_under_lavapipes_limit() {
    let most = ROUNDED_HULL_VERTICES as u64;
    let two = rounded_pair_iterations(most, most);
    assert!(
        two * 10 < LAVAPIPE_LOOP_ITERATIONS * 7,
        "two cores of {most}: {two}"
    );
    let larger = rounded_pair_iterations(40, 40);
    assert!(
        larger > LAVAPIPE_LOOP_ITERATIONS,
        "two cores of 40: {larger}"
    );
    let segment = rounded_segment_iterations(MAX_HULL_VERTICES as u64);
    assert!(
        segment * 2 < LAVAPIPE_LOOP_ITERATIONS,
        "a hull of {MAX_HULL_VERTICES} and a segment: {segment}"
    );
}
