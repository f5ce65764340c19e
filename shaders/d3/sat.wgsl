// The 3D SAT narrowphase: one candidate pair per invocation. Loaded after
// batch.wgsl (the pairs, the compacted output, the parameters, the entry
// points' prologue and epilogue), which the 2D kernel shares, and before
// one of the kernel's two modules' own files: shaders/d3/hardware.wgsl (the
// kinds a hardware GPU runs, in loops) or shaders/d3/software.wgsl (the
// register caches and straight-line kinds written for llvmpipe). This file
// is what both share; a few stages are each module's own (vertex_source and
// source_face_min, warm_runs and WARM_RUNS_A_STEP, kept_edges_by_edge),
// called from here and defined there.
//
// This is the twin of src/d3/math.rs and src/d3/sat/ (separation.rs,
// faces.rs, edges.rs, lanes.rs, sphere.rs, pair.rs, in that order): the same
// functions with the same names, doing the same operations in the same
// order. The conventions (A's frame, the normal from A to B, axes as
// features, the tie rule, the early exit, the Gauss-map test) are documented
// in src/d3/sat/mod.rs and src/d3/sat/edges.rs. The hull queries take the
// shape of lanes.rs (faces and B's edges that a bound rules out are passed
// over; the pairs whose arcs cross are offered in the pairwise loop's order)
// with the pairwise loop's body (faces.rs, edges.rs) for each face and pair,
// so the result is the CPU's bit for bit. The kernel runs the pruned edge
// query only; the brute force is a CPU reference.
//
// Data (src/gpu/layout/d3.rs: HullRecord). The hull library is two textures:
// `hull_floats` holds each hull's vertices, its face planes (normal, offset),
// its edges' face normals two edges to three texels (the edge's arc on the
// Gauss map being their cross product, recomputed here as the CPU computed
// it), its inner ball (centre, radius: HullLanes), each edge's bound
// record ((u, u . p), (v, v . p): two texels), the face bound's `k` and
// `delta` (one texel) and each run of eight faces' cone (one texel);
// `hull_ints` holds each edge's vertices and faces, each face's loop
// (start, length) and the loops' vertex indices, four to a texel, the
// Gauss-map grid where it has one, the face queries' start per direction
// cell (96 bytes) and each edge's faces as 16-bit pairs, four edges to a
// texel (where: face 0's, 1's and 2's loop records' spare slots). Per body: its transform (three texels: a rotation column and a
// position coordinate each) and its shape's record (two texels, copied per
// body so that no lookup depends on another).

// Mirror of src/gpu/layout/d3.rs, checked against naga's layout by
// tests/it/gpu/layout.rs.
struct HullRecord {
    float_base: u32,
    vertex_count: u32, // 0 marks a sphere
    face_count: u32,
    edge_count: u32,
    int_base: u32,
    radius: f32,
    size: f32,
    reach: f32, // the largest distance of a vertex from the origin (HullLanes)
}

@group(0) @binding(1) var hull_floats: texture_2d<f32>;
@group(0) @binding(2) var body_transforms: texture_2d<f32>;
@group(0) @binding(3) var body_shapes: texture_2d<u32>;
@group(0) @binding(7) var hull_ints: texture_2d<u32>;

// src/d3/sat/separation.rs
const TIE_TOLERANCE: f32 = 2.0e-6;
const EDGE_TOLERANCE: f32 = 2.0e-5;
const PARALLEL_TOLERANCE: f32 = 1.0e-4;
// src/d3/sat/edges.rs
const SKIP_SLACK: f32 = 1.0e-4;
// f32::EPSILON (2^-23)
const F32_EPSILON: f32 = 1.1920929e-7;

// Axis::pack (src/d3/types.rs): the kind in bits 28 to 31, the index below
// (two edges: A's from bit 14, B's below).
const KIND_SHIFT: u32 = 28u;
const INDEX_MASK: u32 = 0x0fffffffu;
const EDGE_BITS: u32 = 14u;
const AXIS_FACE_A: u32 = 0u;
const AXIS_FACE_B: u32 = 1u;
const AXIS_EDGES: u32 = 2u;
const AXIS_EDGE_A: u32 = 3u;
const AXIS_VERTEX_A: u32 = 5u;
const AXIS_CENTRES: u32 = 7u;
// A hull feature of B is A's kind plus one (EdgeB = EdgeA + 1, ...).
const OWNER_B_KIND: u32 = 1u;

fn pack_axis(kind: u32, index: u32) -> u32 {
    return (kind << KIND_SHIFT) | (index & INDEX_MASK);
}

// ---- math.rs ---------------------------------------------------------------

struct Rot3 {
    c0: vec3<f32>,
    c1: vec3<f32>,
    c2: vec3<f32>,
}

struct Transform3 {
    p: vec3<f32>,
    r: Rot3,
}

// Written out rather than dot() and length(), so the order of operations is
// the CPU's.
fn dot3(a: vec3<f32>, b: vec3<f32>) -> f32 {
    return (a.x * b.x + a.y * b.y) + a.z * b.z;
}

fn cross3(a: vec3<f32>, b: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(
        a.y * b.z - a.z * b.y,
        a.z * b.x - a.x * b.z,
        a.x * b.y - a.y * b.x,
    );
}

fn length3(v: vec3<f32>) -> f32 {
    return sqrt(dot3(v, v));
}

fn rotate3(r: Rot3, v: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(
        (r.c0.x * v.x + r.c1.x * v.y) + r.c2.x * v.z,
        (r.c0.y * v.x + r.c1.y * v.y) + r.c2.y * v.z,
        (r.c0.z * v.x + r.c1.z * v.y) + r.c2.z * v.z,
    );
}

fn inv_rotate3(r: Rot3, v: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(dot3(r.c0, v), dot3(r.c1, v), dot3(r.c2, v));
}

fn transform_point3(xf: Transform3, v: vec3<f32>) -> vec3<f32> {
    return rotate3(xf.r, v) + xf.p;
}

fn inv_transform_point3(xf: Transform3, v: vec3<f32>) -> vec3<f32> {
    return inv_rotate3(xf.r, v - xf.p);
}

// The cube cell (0 to 95) the ray along `v` crosses: the cube face of the
// largest component (x before y before z on a tie; positive, then
// negative), then the other two compared with -m/2, 0 and m/2, their
// column numbers interleaved bit by bit. Comparisons and a halving only.
fn direction_cell(v: vec3<f32>) -> u32 {
    let a = abs(v);
    var face = 4u + select(0u, 1u, v.z < 0.0);
    var u = v.x;
    var w = v.y;
    var m = a.z;
    if a.y >= a.z {
        face = 2u + select(0u, 1u, v.y < 0.0);
        u = v.z;
        w = v.x;
        m = a.y;
    }
    if a.x >= a.y && a.x >= a.z {
        face = select(0u, 1u, v.x < 0.0);
        u = v.y;
        w = v.z;
        m = a.x;
    }
    let half = 0.5 * m;
    let cu = select(0u, 1u, u > -half) + select(0u, 1u, u > 0.0) + select(0u, 1u, u > half);
    let cw = select(0u, 1u, w > -half) + select(0u, 1u, w > 0.0) + select(0u, 1u, w > half);
    return 16u * face + ((cu & 1u) | ((cw & 1u) << 1u) | ((cu & 2u) << 1u) | ((cw & 2u) << 2u));
}

fn inv_mul_transforms3(a: Transform3, b: Transform3) -> Transform3 {
    return Transform3(
        inv_rotate3(a.r, b.p - a.p),
        Rot3(inv_rotate3(a.r, b.r.c0), inv_rotate3(a.r, b.r.c1), inv_rotate3(a.r, b.r.c2)),
    );
}

// ---- The hull library ------------------------------------------------------

fn hull_vertex(hull: HullRecord, v: u32) -> vec3<f32> {
    return textureLoad(hull_floats, texel(hull.float_base + v), 0).xyz;
}

// Where face `f`'s plane is in `hull_floats`.
fn plane_texel(hull: HullRecord, f: u32) -> u32 {
    return hull.float_base + hull.vertex_count + f;
}

// Face `f`'s plane: unit normal in .xyz, offset in .w.
fn hull_plane(hull: HullRecord, f: u32) -> vec4<f32> {
    return textureLoad(hull_floats, texel(plane_texel(hull, f)), 0);
}

// The normals of an edge's two faces (f0, f1).
struct EdgeNormals {
    u: vec3<f32>,
    v: vec3<f32>,
}

// The edges' normals are packed two edges to three texels:
// (u0.xyz, v0.x), (v0.yz, u1.xy), (u1.z, v1.xyz).
fn edge_texels(hull: HullRecord) -> u32 {
    return hull.float_base + hull.vertex_count + hull.face_count;
}

// Edges `2 pair` and `2 pair + 1`'s normals (three texel reads).
struct EdgePairNormals {
    first: EdgeNormals,
    second: EdgeNormals,
}

fn edge_pair_normals(hull: HullRecord, pair: u32) -> EdgePairNormals {
    let at = edge_texels(hull) + 3u * pair;
    let t0 = textureLoad(hull_floats, texel(at), 0);
    let t1 = textureLoad(hull_floats, texel(at + 1u), 0);
    let t2 = textureLoad(hull_floats, texel(at + 2u), 0);
    return EdgePairNormals(
        EdgeNormals(t0.xyz, vec3<f32>(t0.w, t1.xy)),
        EdgeNormals(vec3<f32>(t1.zw, t2.x), t2.yzw),
    );
}

// The hull's inner ball: its centre in .xyz, its radius in .w.
fn hull_inner(hull: HullRecord) -> vec4<f32> {
    return textureLoad(hull_floats, texel(edge_texels(hull) + 3u * ((hull.edge_count + 1u) >> 1u)), 0);
}

// Edge `e`'s record, three texels in the hull's own frame: its faces'
// normals with their offsets through its first vertex `p` (lanes.rs
// edge_planes' `u . p` and `v . p`, the same bits; the normals are those
// of edge_pair_normals, the same bits), then `p` itself. The bound reads the
// first two; an edge taken into the edge query reads all three, adjacent,
// instead of its normals, its vertex indices and its vertex from three
// arrays (one cache line or two instead of three or four).
struct EdgeBoundRecord {
    u_plane: vec4<f32>,
    v_plane: vec4<f32>,
}

fn edge_record_texel(hull: HullRecord, e: u32) -> u32 {
    return edge_texels(hull) + 3u * ((hull.edge_count + 1u) >> 1u) + 1u + 3u * e;
}

fn edge_bound_record(hull: HullRecord, e: u32) -> EdgeBoundRecord {
    let at = edge_record_texel(hull, e);
    return EdgeBoundRecord(textureLoad(hull_floats, texel(at), 0), textureLoad(hull_floats, texel(at + 1u), 0));
}

// Edge `e`'s first vertex, from its record (the bits of hull_vertex).
fn edge_point(hull: HullRecord, e: u32) -> vec3<f32> {
    return textureLoad(hull_floats, texel(edge_record_texel(hull, e) + 2u), 0).xyz;
}

// Edge `e`'s vertices and faces: (v0, v1, f0, f1).
fn hull_edge(hull: HullRecord, e: u32) -> vec4<u32> {
    return textureLoad(hull_ints, texel(hull.int_base + e), 0);
}

// Vertex `k` of face `f`'s loop.
fn face_vertex(hull: HullRecord, loop_start: u32, k: u32) -> u32 {
    let at = loop_start + k;
    let base = hull.int_base + hull.edge_count + hull.face_count;
    return textureLoad(hull_ints, texel(base + at / 4u), 0)[at % 4u];
}

// ---- separation.rs ---------------------------------------------------------

struct Separation {
    value: f32,
    index: u32,
}

struct EdgeSeparation {
    value: f32,
    a: u32,
    b: u32,
}

// The face axis of a hull pair (packed) and its separation.
struct FaceChoice {
    axis: u32,
    value: f32,
}

// B's best face if it beats A's by more than the face tolerance, else A's.
fn choose_face(face_a: Separation, face_b: Separation, tolerance: f32) -> FaceChoice {
    if face_b.value > face_a.value + tolerance {
        return FaceChoice(pack_axis(AXIS_FACE_B, face_b.index), face_b.value);
    }
    return FaceChoice(pack_axis(AXIS_FACE_A, face_a.index), face_a.value);
}

// The edge query's floor: the chosen face's separation plus the edge
// tolerance; no edge pair below it could be chosen.
fn edge_floor(face_a: Separation, face_b: Separation, tolerance: f32, edge_tolerance: f32) -> f32 {
    return choose_face(face_a, face_b, tolerance).value + edge_tolerance;
}

// Faces of A, then of B, then the edge pair: B's face only by more than the
// face tolerance, the edge pair only by more than the edge tolerance.
fn choose_hull_axis(face_a: Separation, face_b: Separation, edge: EdgeSeparation, tolerance: f32, edge_tolerance: f32) -> PairResult {
    let face = choose_face(face_a, face_b, tolerance);
    if edge.value > face.value + edge_tolerance {
        return PairResult(true, pack_axis(AXIS_EDGES, (edge.a << EDGE_BITS) | edge.b), edge.value);
    }
    return PairResult(true, face.axis, face.value);
}

// ---- Loops and lavapipe ----------------------------------------------------
//
// llvmpipe runs eight invocations as one SIMD program. An `if` only masks
// lanes: both sides run whatever the lanes decided, so work guarded by an
// `if` costs every invocation as much as if it had been done. Only a loop
// ends early, once no lane is left in it (after one pass at least). So the
// queries skip work with loops: each lane moves on to its own next face or
// edge of B that a bound does not rule out (a loop); the Gauss-map tests of
// an edge of B against all of A's keep the crossings as bits in registers,
// and a loop as long as the longest lane's list offers them, instead of
// paying for the exact axis on every pair tested. (Each texel read gathers
// eight lanes and costs some 150 cycles; a private array indexed at run
// time costs more still, so the crossings are not kept in one.)
//
// lavapipe also ends every loop once 65,535 iterations have run in all,
// counted over every loop of the eight invocations together
// (LP_MAX_TGSI_LOOP_ITERATIONS, a guard against hangs); the results are
// then silently wrong. So the inner loops take several steps per iteration
// in straight-line code: 8 vertices, 4 edges and one crossing ("hulls",
// hulls of up to 64 vertices on both sides), or 32 vertices, 64 edges and
// 32 crossings, or one to four crossings of the cached edges (the large
// kinds, see "hulls_large"). A chunk past the last index re-reads the
// last one: a minimum is unchanged by repeats, an edge past the last one
// is not a crossing, and a crossing offered again changes nothing (the tie
// rule needs a strictly larger separation, and one that reached the limit
// has already returned). So the results are the CPU's loops' exactly.
// src/gpu/d3/loop_budget.rs checks that the worst case (every lane's skips out of
// step with the others', every pair crossing) stays under the limit.

// ---- faces.rs --------------------------------------------------------------

// The lowest of `n . w - d` over 8 vertices of `hull2` from `k` (clamped to
// `last`).
fn vertex_min8(hull2: HullRecord, moved: vec3<f32>, moved_offset: f32, k: u32, last: u32) -> f32 {
    var separation = dot3(moved, hull_vertex(hull2, min(k, last))) - moved_offset;
    separation = min(separation, dot3(moved, hull_vertex(hull2, min(k + 1u, last))) - moved_offset);
    separation = min(separation, dot3(moved, hull_vertex(hull2, min(k + 2u, last))) - moved_offset);
    separation = min(separation, dot3(moved, hull_vertex(hull2, min(k + 3u, last))) - moved_offset);
    separation = min(separation, dot3(moved, hull_vertex(hull2, min(k + 4u, last))) - moved_offset);
    separation = min(separation, dot3(moved, hull_vertex(hull2, min(k + 5u, last))) - moved_offset);
    separation = min(separation, dot3(moved, hull_vertex(hull2, min(k + 6u, last))) - moved_offset);
    separation = min(separation, dot3(moved, hull_vertex(hull2, min(k + 7u, last))) - moved_offset);
    return separation;
}

// lanes.rs: whether a face (its plane moved into `hull2`'s frame) can be
// passed over: `hull2`'s inner ball bounds its separation from above, and
// the bound can neither beat the best nor reach the limit.
fn face_cannot_matter(bound: f32, best: Separation, tolerance: f32, limit: f32) -> bool {
    return bound <= best.value + tolerance && bound < limit;
}

// The bound on a face's separation from `hull2`'s inner ball (`inner`):
// the plane's offset at the ball's centre less its radius.
fn face_bound(moved: vec3<f32>, moved_offset: f32, inner: vec4<f32>) -> f32 {
    return (dot3(moved, inner.xyz) - inner.w) - moved_offset;
}

// faces.rs face_order: where a face query of `hull1` against `hull2`
// starts (the run of eight faces facing `hull2`), and what bounds a whole
// run ("Runs of faces" below): `towards`, `hull2`'s inner centre less
// `hull1`'s in `hull1`'s frame, its length, and what the run's bound takes
// off (both inner radii, less an allowance for rounding). `grouped`: runs
// are bounded (`hull2` has more than eight vertices and the query marks no
// hot faces, which needs every plane read).
struct FaceOrder {
    first: u32,
    towards: vec3<f32>,
    length: f32,
    lowered: f32,
    grouped: bool,
}

// c = xf^-1 (hull2's inner centre); first = 8 face_start[cell(c - hull1's
// inner centre)]. The run's bound (face_cone_bound) is a third upper
// bound beside face_bound's, so it needs an allowance of its own: the
// rounding of `towards` (a few ulps of the lengths it came from), of the
// cone's dot products and of the sine recomputed from its cosine (at most
// `2^-24 / sin 0.01 < 2^-16` of `length`).
fn face_order(hull1: HullRecord, hull2: HullRecord, xf: Transform3, inner1: vec4<f32>, inner2: vec4<f32>, grouped: bool) -> FaceOrder {
    let centre = inv_transform_point3(xf, inner2.xyz);
    let towards = centre - inner1.xyz;
    let first = 8u * face_start(hull1, direction_cell(towards));
    let length = length3(towards);
    let allowance = run_bound_allowance((length3(xf.p) + length3(inner2.xyz)) + length3(inner1.xyz), hull1.reach, length);
    return FaceOrder(first, towards, length, (inner1.w + inner2.w) - allowance, grouped);
}

// What a run's bound takes off for rounding (see face_order): `lengths`,
// what the two centres' lengths add to; `reach`, `hull1`'s; `length`,
// that of `towards`.
fn run_bound_allowance(lengths: f32, reach: f32, length: f32) -> f32 {
    return 32.0 * F32_EPSILON * (lengths + 2.0 * reach) + length * (1.0 / 65536.0);
}

// Face number `t` of the query's order: from `first` on, going round.
fn face_at(hull1: HullRecord, order: FaceOrder, t: u32) -> u32 {
    let i = order.first + t;
    return select(i, i - hull1.face_count, i >= hull1.face_count);
}

// ---- Runs of faces -----------------------------------------------------------
//
// The hull builder orders faces along their normals, so eight consecutive
// faces (a run: 8 run to 8 run + 7) point within a narrow cone, axis `a`
// and half-angle `theta` (HullLanes::face_cones). For a face `n` of the run,
// with `o` and `c` the two inner centres in hull1's frame, `v = c - o` and
// `r1`, `r2` the inner radii:
//
//     separation <= n . c - d - r2                      (face_bound)
//                 = n . v - (d - n . o) - r2 <= n . v - r1 - r2
//     n . v <= max over the cone = |v|                    if angle(a, v) <= theta
//                                = (a . v) cos theta + |v - (a . v) a| sin theta   else
//
// so one texel bounds eight faces, and a run that can neither beat the best
// nor reach the limit is passed over in one step instead of eight. The
// faces computed, and their order, are those of the face-by-face bound, so
// the answer is unchanged; on the bench's 128-vertex pairs a face query
// reads about 85 texels instead of 214 (docs/sat-3d.md, runs of faces).
fn face_cone_bound(cone: vec4<f32>, order: FaceOrder) -> f32 {
    let along = dot3(cone.xyz, order.towards);
    var reach = order.length;
    if along < order.length * cone.w {
        let sine = sqrt(max(0.0, 1.0 - cone.w * cone.w));
        reach = along * cone.w + length3(order.towards - cone.xyz * along) * sine;
    }
    return reach - order.lowered;
}

// Where a face query stands: position `t` in its order, face `i` there,
// its plane moved into `hull2`'s frame; `checked`: the run that starts at
// `t` was bounded and not passed over.
struct FaceCursor {
    t: u32,
    i: u32,
    moved: vec3<f32>,
    moved_offset: f32,
    hot: FaceBits,
    found: bool, // face `i` is one to compute (else `steps` were passed over)
    checked: bool,
}

// From face `i` on, the first that the bound (`inner`: `hull2`'s inner
// ball, when `bounded`) does not rule out, its plane moved (`i` the face
// count if none is left), passing over at most `steps` faces: if all of
// them are ruled out, `found` is false and `i` is the next face to look
// at. With `marking`, every face read on the way is marked hot or not
// (see "Edge masks from face bounds").
//
// Why at most `steps`: each lane goes on to its own next face, and the
// SIMD group's loop runs until its last lane has found one, so a lane far
// from its next face holds the others at every step. Bounded, a call ends
// after `steps` passes, the lanes that found a face compute it while the
// others sit that pass out (masked), and every lane goes on from where it
// stood. Simulated on the bench's pairs in groups of eight (a throwaway
// replay of the loops), a 64-vertex face query ran 476 passes of this loop
// and 14.4 face computations per group unbounded; 179 and 24.1 with eight
// steps. Kernel instructions per pair (cachegrind, lavapipe) with 4, 8
// and 16 steps: 64 vertices 75.2k unbounded -> 62.8k, 61.1k, 64.0k; 128
// (the wide kinds, whose face computation costs more) 183k -> 161k with
// 8, 158k with 16; 256: 238k -> 202k, 192k. Hence 8 for the narrow and
// cached kinds, 16 for the wide ones. The faces computed are the same, in
// the same order, so the answer is too.
fn next_face(hull1: HullRecord, xf: Transform3, t: u32, checked: bool, order: FaceOrder, bounded: bool, inner: vec4<f32>, best: Separation, tolerance: f32, limit: f32, marks: FaceMarks, marking: bool, steps: u32) -> FaceCursor {
    var cursor = FaceCursor(t, 0u, vec3<f32>(0.0), 0.0, marks.hot, false, checked);
    for (var step = 0u; step < steps; step++) {
        if cursor.t >= hull1.face_count {
            break;
        }
        cursor.i = face_at(hull1, order, cursor.t);
        // One texel a step: a run's cone where a run starts (unless it was
        // bounded already), else the face's plane.
        let at_run = order.grouped && (cursor.i & 7u) == 0u && !cursor.checked;
        let read = textureLoad(hull_floats, texel(select(plane_texel(hull1, cursor.i), face_cone_texel(hull1, cursor.i >> 3u), at_run)), 0);
        if at_run {
            if face_cannot_matter(face_cone_bound(read, order), best, tolerance, limit) {
                cursor.t += min(8u, hull1.face_count - cursor.i);
            } else {
                cursor.checked = true;
            }
            continue;
        }
        cursor.checked = false;
        let plane = read;
        cursor.moved = rotate3(xf.r, plane.xyz);
        cursor.moved_offset = plane.w + dot3(cursor.moved, xf.p);
        let bound = face_bound(cursor.moved, cursor.moved_offset, inner);
        if marking {
            cursor.hot = mark_face(cursor.hot, cursor.i, face_marked_hot(marks, bound + inner.w, inner.w, limit));
        }
        if !(bounded && face_cannot_matter(bound, best, tolerance, limit)) {
            cursor.found = true;
            break;
        }
        cursor.t++;
    }
    return cursor;
}

// Where a face query finds each face's lowest vertex of `hull2` (`n . w -
// d` over its vertices): set up once per query by the module's
// vertex_source, read per face by its source_face_min. Each module has its
// own (shaders/d3/hardware.wgsl: the vertices 8 a step, or the Gauss-map
// grid's list; shaders/d3/software.wgsl: also 32 a step (`wide`) and the
// register cache (`cached`, `slots` of them)), so the hardware kinds hold
// none of the software adapters' straight-line code. Every source takes
// the minimum over every vertex (a repeat, or a vertex the grid leaves out,
// cannot change it), so every kind finds the same face.
struct VertexSource {
    hull: HullRecord,
    grid: HullGrid,
    wide: bool,
    cached: bool,
    slots: u32,
    gridded: bool,
}

// A vertex source with `hull2`'s grid read where `gridded` (what every
// module's vertex_source does first).
fn vertex_source_with_grid(hull2: HullRecord, wide: bool, cached: bool, slots: u32, gridded: bool) -> VertexSource {
    var grid = HullGrid(0u, 0u);
    if gridded {
        grid = hull_grid(hull2);
    }
    return VertexSource(hull2, grid, wide, cached, slots, gridded);
}

// The deepest face of `hull1` against the vertices of `hull2`; `xf` takes
// `hull1`'s local points into `hull2`'s frame. Each face's lowest vertex
// comes from the module's vertex source (VertexSource: `wide`, `cached`,
// `slots` and `gridded` say which). As lanes.rs, faces the bound rules out
// are passed over when `hull2` has more than eight vertices; each lane goes
// on to its own next face. `marking` (both queries in the cached kinds
// but "hulls_small"; A's with `face_a` the lowest value, B's after A's,
// whose best is `face_a`): the hot faces of `hull1` for the edge query,
// marked as the planes are read.
fn find_max_face_separation(hull1: HullRecord, hull2: HullRecord, xf: Transform3, tolerance: f32, limit: f32, wide: bool, cached: bool, slots: u32, gridded: bool, marking: bool, face_a: Separation, edge_tolerance: f32, slack: f32) -> FaceQuery {
    var marks = FaceMarks(no_face_bits(), vec2<f32>(0.0), LOWEST, 3.0 * slack);
    if marking {
        marks.extra = face_bound_extra(hull1);
        marks.hot.edge_faces = textureLoad(hull_ints, texel(hull1.int_base + hull1.edge_count + 1u), 0).z;
    }
    let source = vertex_source(hull2, wide, cached, slots, gridded);
    var best = Separation(LOWEST, 0u);
    let bounded = hull2.vertex_count > 8u;
    let inner = hull_inner(hull2);
    let order = face_order(hull1, hull2, xf, hull_inner(hull1), inner, bounded && !marking);
    var t = 0u;
    var checked = false;
    loop {
        marks.level = edge_floor(face_a, best, tolerance, edge_tolerance);
        let face = next_face(hull1, xf, t, checked, order, bounded, inner, best, tolerance, limit, marks, marking, select(8u, 16u, wide));
        t = face.t;
        checked = face.checked;
        let i = face.i;
        marks.hot = face.hot;
        let moved = face.moved;
        let moved_offset = face.moved_offset;
        if t >= hull1.face_count {
            break;
        }
        if !face.found {
            // Ruled out `steps` faces on; the next call goes on from `t`.
            continue;
        }
        let separation = source_face_min(source, moved, moved_offset);
        if separation > best.value + tolerance {
            best = Separation(separation, i);
        }
        if separation >= limit {
            return FaceQuery(Separation(separation, i), marks.hot);
        }
        t++;
    }
    return FaceQuery(best, marks.hot);
}

// ---- gauss_grid.rs: each face's deepest vertex looked up --------------------
//
// A face query asks, for each face computed, `hull2`'s deepest vertex along
// the face's negated normal: the vertex whose Gauss-map region holds that
// direction. `hull2`'s grid (src/d3/shape/gauss_grid.rs) lists, for each square
// of a cube map around the sphere, the vertices whose regions come within
// a pad of it, so the minimum over the square's list is the minimum over
// every vertex, bit for bit (the module's doc has the argument). In
// "hulls_gridded" (a hull above 64 vertices, both hulls' lists at most 32
// long) a face reads its square's list four vertices a step, some 16
// vertices on a 256-vertex hull instead of all 256. The lists are in
// hull_ints (src/gpu/d3/kinds.rs: gpu_grid): per square its first texel
// and its texels, two squares a texel, then each list four vertices a
// texel, padded with its last (a minimum is unchanged by repeats); where
// they are, in the spare slots of face 0's loop record.

struct HullGrid {
    base: u32,  // the squares' first texel
    cells: u32, // squares per side of a cube face
}

fn hull_grid(hull: HullRecord) -> HullGrid {
    let record = textureLoad(hull_ints, texel(hull.int_base + hull.edge_count), 0);
    return HullGrid(record.z, record.w);
}

// GaussGrid::square_of: the square of a direction (any length but zero).
fn grid_square(cells: u32, p: vec3<f32>) -> u32 {
    let a = abs(p);
    var face: u32;
    var major: f32;
    var u: f32;
    var v: f32;
    if a.x >= a.y && a.x >= a.z {
        face = select(0u, 1u, p.x < 0.0);
        major = a.x;
        u = p.y;
        v = p.z;
    } else if a.y >= a.z {
        face = select(2u, 3u, p.y < 0.0);
        major = a.y;
        u = p.z;
        v = p.x;
    } else {
        face = select(4u, 5u, p.z < 0.0);
        major = a.z;
        u = p.x;
        v = p.y;
    }
    let n = f32(cells);
    let scale = n * 0.5 / max(major, 1e-30);
    let top = i32(cells) - 1;
    let cell_u = u32(clamp(i32(u * scale + n * 0.5), 0, top));
    let cell_v = u32(clamp(i32(v * scale + n * 0.5), 0, top));
    return (face * cells + cell_u) * cells + cell_v;
}

// walk.rs deepest_vertex on the grid: the lowest `n . w - d` over the
// vertices listed in the square of `-moved`, four a step.
fn grid_face_min(hull2: HullRecord, grid: HullGrid, moved: vec3<f32>, moved_offset: f32) -> f32 {
    let square = grid_square(grid.cells, -moved);
    let entry = textureLoad(hull_ints, texel(grid.base + (square >> 1u)), 0);
    let odd = (square & 1u) == 1u;
    let start = select(entry.x, entry.z, odd);
    let texels = select(entry.y, entry.w, odd);
    var separation = HIGHEST;
    var k = 0u;
    loop {
        let four = textureLoad(hull_ints, texel(start + k), 0);
        separation = min(separation, dot3(moved, hull_vertex(hull2, four.x)) - moved_offset);
        separation = min(separation, dot3(moved, hull_vertex(hull2, four.y)) - moved_offset);
        separation = min(separation, dot3(moved, hull_vertex(hull2, four.z)) - moved_offset);
        separation = min(separation, dot3(moved, hull_vertex(hull2, four.w)) - moved_offset);
        k++;
        if k >= texels {
            break;
        }
    }
    return separation;
}

// ---- edges.rs --------------------------------------------------------------

// The Gauss-map test of A's edge (normals u_a, v_a, arc_a = v_a x u_a)
// against B's (in A's frame): (CBA, DBA) in .xy and 1 in .z when the arcs
// cross, 0 in .z when they do not.
fn gauss_test(u_a: vec3<f32>, v_a: vec3<f32>, arc_a: vec3<f32>, u_b: vec3<f32>, v_b: vec3<f32>, arc_b: vec3<f32>) -> vec3<f32> {
    let cba = -dot3(u_b, arc_a);
    let dba = -dot3(v_b, arc_a);
    let adc = dot3(u_a, arc_b);
    let bdc = dot3(v_a, arc_b);
    let crosses = cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0;
    return vec3<f32>(cba, dba, select(0.0, 1.0, crosses));
}

fn nearly_parallel(cba: f32, dba: f32, arc_a: vec3<f32>) -> bool {
    return max(abs(cba), abs(dba)) <= PARALLEL_TOLERANCE * length3(arc_a);
}

fn edge_axis(u_b: vec3<f32>, v_b: vec3<f32>, cba: f32, dba: f32) -> vec3<f32> {
    let t = cba / (cba - dba);
    let on_arc = -(u_b + t * (v_b - u_b));
    return on_arc / length3(on_arc);
}

struct MovedEdge {
    u: vec3<f32>,
    v: vec3<f32>,
    arc: vec3<f32>,
    point: vec3<f32>,
}

// B's edge `e` moved into A's frame by `xf`.
fn moved_edge(hull_b: HullRecord, e: u32, xf: Transform3) -> MovedEdge {
    let record = edge_bound_record(hull_b, e);
    let u = record.u_plane.xyz;
    let v = record.v_plane.xyz;
    return MovedEdge(
        rotate3(xf.r, u),
        rotate3(xf.r, v),
        rotate3(xf.r, cross3(v, u)),
        transform_point3(xf, edge_point(hull_b, e)),
    );
}

// The edge query so far: the best pair, and whether a pair reached the limit
// (then `best` is that pair and the query is over).
struct EdgeScan {
    best: EdgeSeparation,
    done: bool,
}

// EdgeScan::level: what a pair's separation must exceed to be kept, the
// best plus the tolerance or the floor where that is higher.
fn scan_level(best: EdgeSeparation, tolerance: f32, floor: f32) -> f32 {
    let level = best.value + tolerance;
    return select(level, floor, floor > level);
}

// The body of the CPU's inner loop, for A's edge `i` against B's moved edge
// `j`: kept above the best plus the tolerance and above the floor.
fn edge_step(scan: EdgeScan, hull_a: HullRecord, b: MovedEdge, i: u32, j: u32, tolerance: f32, limit: f32, floor: f32) -> EdgeScan {
    if scan.done {
        return scan;
    }
    let record = edge_bound_record(hull_a, i);
    let u_a = record.u_plane.xyz;
    let v_a = record.v_plane.xyz;
    let arc_a = cross3(v_a, u_a);
    let crossing = gauss_test(u_a, v_a, arc_a, b.u, b.v, b.arc);
    if crossing.z == 0.0 || nearly_parallel(crossing.x, crossing.y, arc_a) {
        return scan;
    }
    let axis = edge_axis(b.u, b.v, crossing.x, crossing.y);
    let separation = dot3(axis, b.point - edge_point(hull_a, i));
    var result = scan;
    if separation > scan.best.value + tolerance && separation > floor {
        result.best = EdgeSeparation(separation, i, j);
    }
    if separation >= limit {
        return EdgeScan(EdgeSeparation(separation, i, j), true);
    }
    return result;
}

// A's inner ball moved into B's frame (`xf` takes B's points into A's),
// where B's edges' bound records are.
fn inner_in_b(hull_a: HullRecord, xf: Transform3) -> vec4<f32> {
    let inner = hull_inner(hull_a);
    return vec4<f32>(inv_rotate3(xf.r, inner.xyz - xf.p), inner.w);
}

// lanes.rs edge_bounds for one edge of B, in B's own frame from its bound
// record (`(u, u . p)`, `(v, v . p)`: two texels, no rotation), then
// edges.rs EdgeScan::cannot_matter: whether every pair of B's edge is sure
// to fall below the threshold, by A's inner ball (`inner`, in B's frame);
// `slack` is SKIP_SLACK times the pair's reach, which covers the rounding
// of the frame change. Nothing is skipped while the level is the lowest
// value (no pair computed, no floor).
fn skips_edge(best: EdgeSeparation, record: EdgeBoundRecord, inner: vec4<f32>, tolerance: f32, limit: f32, slack: f32, floor: f32) -> bool {
    let level = scan_level(best, tolerance, floor);
    if level <= LOWEST {
        return false;
    }
    let u = record.u_plane.xyz;
    let v = record.v_plane.xyz;
    let m = max(dot3(u, inner.xyz) - record.u_plane.w, dot3(v, inner.xyz) - record.v_plane.w);
    var along = m;
    if m > 0.0 {
        along = m / sqrt(max((1.0 + dot3(u, v)) * 0.5, 0.0));
    }
    let bound = along - inner.w + 2.0 * slack;
    return bound <= level && bound < limit;
}

// The edges of A whose arcs cross B's current one, as bits (hulls of up to
// 64 vertices have at most 186 edges: six words, held in registers).
struct Crossings {
    low: vec4<u32>,
    high: vec2<u32>,
}

// Bit `k` set if A's edge `i + k` (not past `last`; its normals `a`) and
// B's moved edge cross on the Gauss maps.
fn crossing_bit(a: EdgeNormals, b: MovedEdge, i: u32, k: u32, last: u32) -> u32 {
    let crossing = gauss_test(a.u, a.v, cross3(a.v, a.u), b.u, b.v, b.arc);
    return select(0u, 1u << k, crossing.z != 0.0 && i + k <= last);
}

// lanes.rs crossing_mask: A's edges `i` to `i + 3` (`i` even; those up to
// `last`) against B's moved edge, in straight-line code (see "Loops and
// lavapipe"): bit `k` set when edge `i + k` crosses.
fn crossing_bits4(hull_a: HullRecord, b: MovedEdge, i: u32, last: u32) -> u32 {
    let low = edge_pair_normals(hull_a, i >> 1u);
    let high = edge_pair_normals(hull_a, (i >> 1u) + 1u);
    return crossing_bit(low.first, b, i, 0u, last)
        | crossing_bit(low.second, b, i, 1u, last)
        | crossing_bit(high.first, b, i, 2u, last)
        | crossing_bit(high.second, b, i, 3u, last);
}

// `bits` added to `crossings` from bit `at` (a multiple of 4: the bits stay
// in one word).
fn add_crossings(crossings: Crossings, bits: u32, at: u32) -> Crossings {
    let word = at >> 5u;
    let placed = bits << (at & 31u);
    return merge_crossings(crossings, Crossings(
        select(vec4<u32>(0u), vec4<u32>(placed), vec4<u32>(0u, 1u, 2u, 3u) == vec4<u32>(word)),
        select(vec2<u32>(0u), vec2<u32>(placed), vec2<u32>(4u, 5u) == vec2<u32>(word)),
    ));
}

fn merge_crossings(a: Crossings, b: Crossings) -> Crossings {
    return Crossings(a.low | b.low, a.high | b.high);
}

// The lowest edge of A in `crossings` (which must hold one).
fn lowest_crossing(crossings: Crossings) -> u32 {
    var word = 5u;
    var bits = crossings.high.y;
    if crossings.high.x != 0u { word = 4u; bits = crossings.high.x; }
    if crossings.low.w != 0u { word = 3u; bits = crossings.low.w; }
    if crossings.low.z != 0u { word = 2u; bits = crossings.low.z; }
    if crossings.low.y != 0u { word = 1u; bits = crossings.low.y; }
    if crossings.low.x != 0u { word = 0u; bits = crossings.low.x; }
    return 32u * word + firstTrailingBit(bits);
}

fn remove_crossing(crossings: Crossings, i: u32) -> Crossings {
    let keep = ~(1u << (i & 31u));
    let word = i >> 5u;
    return Crossings(
        crossings.low & select(vec4<u32>(~0u), vec4<u32>(keep), vec4<u32>(0u, 1u, 2u, 3u) == vec4<u32>(word)),
        crossings.high & select(vec2<u32>(~0u), vec2<u32>(keep), vec2<u32>(4u, 5u) == vec2<u32>(word)),
    );
}

fn any_crossing(crossings: Crossings) -> bool {
    return any(crossings.low != vec4<u32>(0u)) || any(crossings.high != vec2<u32>(0u));
}

// Where the edge query stands: B's edge `j`, moved into A's frame.
struct EdgeCursor {
    j: u32,
    b: MovedEdge,
}

// The same bound as a loop: from B's edge `j` on, the first
// that A's inner ball (`inner_a`, in B's frame) does not rule out (`j` the
// edge count if none is left), moved into A's frame. Each lane goes on to
// its own, two texels an edge.
fn next_edge_b(scan: EdgeScan, hull_b: HullRecord, xf: Transform3, j: u32, inner_a: vec4<f32>, tolerance: f32, limit: f32, slack: f32, floor: f32) -> EdgeCursor {
    var cursor = EdgeCursor(j, MovedEdge(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0)));
    loop {
        if cursor.j >= hull_b.edge_count {
            break;
        }
        if !skips_edge(scan.best, edge_bound_record(hull_b, cursor.j), inner_a, tolerance, limit, slack, floor) {
            break;
        }
        cursor.j++;
    }
    cursor.b = moved_edge(hull_b, min(cursor.j, hull_b.edge_count - 1u), xf);
    return cursor;
}

// The deepest edge pair, in A's frame (`xf` takes B's local points into
// A's), pruned by the Gauss-map test: B's edges outside, A's inside, as
// lanes.rs, for hulls of up to 64 vertices. Each lane passes over the edges
// of B that A's inner ball rules out, tests its edge against all of A's, 4
// a step, keeping the crossings as bits, then offers those in order, one a
// step.
fn find_max_edge_separation(hull_a: HullRecord, hull_b: HullRecord, xf: Transform3, tolerance: f32, limit: f32, floor: f32) -> EdgeSeparation {
    var scan = EdgeScan(EdgeSeparation(LOWEST, 0u, 0u), false);
    let last = hull_a.edge_count - 1u;
    let inner_a = inner_in_b(hull_a, xf);
    let slack = SKIP_SLACK * ((length3(xf.p) + hull_a.reach) + hull_b.reach);
    var j = 0u;
    loop {
        let cursor = next_edge_b(scan, hull_b, xf, j, inner_a, tolerance, limit, slack, floor);
        j = cursor.j;
        if j >= hull_b.edge_count {
            break;
        }
        var crossings = Crossings(vec4<u32>(0u), vec2<u32>(0u));
        for (var i = 0u; i < hull_a.edge_count; i += 4u) {
            crossings = add_crossings(crossings, crossing_bits4(hull_a, cursor.b, i, last), i);
        }
        loop {
            if !any_crossing(crossings) {
                break;
            }
            let i = lowest_crossing(crossings);
            crossings = remove_crossing(crossings, i);
            scan = edge_step(scan, hull_a, cursor.b, i, j, tolerance, limit, floor);
            if scan.done {
                return scan.best;
            }
        }
        j++;
    }
    return scan.best;
}

// ---- Edge masks from face bounds ---------------------------------------------
//
// The edges a bound keeps at the floor (B's in the cached kinds, both
// hulls' in the large ones) are found from the faces, not from each edge's
// bound record. skips_edge bounds an edge by
//
//     max(u . c - u . p, v . c - v . p) / cos(angle / 2) - r
//
// (`u`, `v` its faces' normals, `p` its first vertex, `c` and `r` the other
// hull's inner ball in this hull's frame). `u` is face f0's normal, and
// `u . p` lies at most `delta` below f0's offset `d` (the plane fit), so
// `u . c - u . p <= n . c - d + delta`, a quantity of the face alone; and
// `1 / cos(angle / 2)` is at most `k` over all the hull's edges. So a face
// is "hot" when
//
//     (n . c - d + delta) (times k when positive) - r + 3 slack
//
// can reach the level (or the limit), and an edge can be kept only if one
// of its faces is hot: one plane read per face and a 16-bit pair of face
// indices per edge (four edges to a texel) instead of two texels per edge
// (a 64-vertex hull: 124 + 47 texels instead of 372; 256 vertices: 508 +
// 191 instead of 1,524). `k` and `delta` come with the hull (src/gpu/
// spatial.rs: face_bound_texel), rounded up; the third slack covers the
// rounding of this bound beside skips_edge's (its two cover the frame
// change). Whatever this keeps, a kept edge is still tested against the
// scan as before, so the answer does not change; on the bench's hulls it
// keeps 7.8 edges of B where the edge bound keeps 7.3 (64 vertices), 13.5
// where it keeps 12.3 (256).
//
// In the cached kinds B's face query marks B's hot faces itself as it
// reads each plane (find_max_face_separation with `marking`): its bound
// there is the same `n . c - d` less `r`, taken in A's frame (the frame
// change's rounding is what the slacks cover). The floor is not known yet,
// but it is at least edge_floor(A's best, B's best so far), which only
// rises as B's best does (B's face counts only past A's by the tolerance),
// so marking at that level keeps a superset. That spares the second read
// of every plane: per pair (lavapipe, instructions counted under
// cachegrind) boxes 11.7k -> 9.8k, 32 vertices 40.5k -> 37.6k, 64
// 78.4k -> 75.4k. A's face query marks A's hot faces the same way (in the
// cached kinds but "hulls_small", whose edge query tests all of A's edges):
// the floor is at least edge_floor(none, A's best so far), A's best so far
// plus the edge tolerance. That level is low while A's first faces are
// read, before its best has risen, so A's marks keep more than a pass at
// the floor would (the bench's 64-vertex hulls: 16.8 edges of A a pair
// against 7.9, more than 32 in 69 pairs of 2,000 against 3), yet a pass
// at the floor (124 plane reads) cost as much as it saved (49.1k
// instructions a 64-vertex pair against 49.5k; 32 vertices 28.4k against
// 28.0k). The large kinds keep hot_faces, at the floor: marking
// up to 512 faces in the face loop (a select per word group per face)
// cost more than it saved (128 vertices 184k -> 189k with B's faces
// marked, 211k with both hulls').

// A bit per face of a hull (up to 512).
struct FaceBits {
    w0: vec4<u32>,
    w1: vec4<u32>,
    w2: vec4<u32>,
    w3: vec4<u32>,
    edge_faces: u32, // where the hull's edges' faces are, in hull_ints
}

// The face query's result: its best face, and the hot faces it marked.
struct FaceQuery {
    best: Separation,
    hot: FaceBits,
}

fn no_face_bits() -> FaceBits {
    return FaceBits(vec4<u32>(0u), vec4<u32>(0u), vec4<u32>(0u), vec4<u32>(0u), 0u);
}

// What a face query needs to mark its hull's hot faces as it reads the planes:
// the bits so far, the hull's `k` and `delta`, the level (what the edge
// query's floor is at least, rising with the query's best) and the
// allowance (three slacks).
struct FaceMarks {
    hot: FaceBits,
    extra: vec2<f32>,
    level: f32,
    allowance: f32,
}

// The hull's `k` and `delta`, in the texel after the edges' records.
fn face_bound_extra(hull: HullRecord) -> vec2<f32> {
    let at = edge_record_texel(hull, hull.edge_count);
    return textureLoad(hull_floats, texel(at), 0).xy;
}

// The cone of faces `8 run` to `8 run + 7`: (axis, cos), in the texels
// after `k` and `delta` (HullLanes::face_cones).
fn face_cone_texel(hull: HullRecord, run: u32) -> u32 {
    return edge_record_texel(hull, hull.edge_count) + 1u + run;
}

// The run of eight faces a face query starts at when the other hull lies in
// direction cell `cell` (HullLanes::face_start: 96 bytes, four to a u32,
// where face 2's loop record's spare slot says).
fn face_start(hull: HullRecord, cell: u32) -> u32 {
    let base = textureLoad(hull_ints, texel(hull.int_base + hull.edge_count + 2u), 0).z;
    let word = textureLoad(hull_ints, texel(base + cell / 16u), 0)[(cell / 4u) % 4u];
    return (word >> (8u * (cell % 4u))) & 0xffu;
}

// Whether a face whose plane passes `side` (n . c - d) from the other
// hull's inner ball's centre (radius `radius`) is hot: an edge of it may be
// kept at `level` or reach `limit`. The one spelling of the face bound,
// for hot_face_bit and face_marked_hot alike.
fn face_bound_hot(side: f32, radius: f32, extra: vec2<f32>, level: f32, limit: f32, allowance: f32) -> bool {
    let s = side + extra.y;
    let along = select(s, s * extra.x, s > 0.0);
    let bound = along - radius + allowance;
    return !(bound <= level && bound < limit);
}

// face_bound_hot at the marks' level; every face while the level is the
// lowest value (nothing is skipped then, as in skips_edge).
fn face_marked_hot(marks: FaceMarks, side: f32, radius: f32, limit: f32) -> bool {
    return marks.level <= LOWEST || face_bound_hot(side, radius, marks.extra, marks.level, limit, marks.allowance);
}

// Face `f`'s bit set in `bits` if `hot`, for a hull of at most 128 faces
// (`w0` alone: the cached kinds'); the word chosen by selects (a private
// array indexed at run time would live in memory).
fn mark_face(bits: FaceBits, f: u32, hot: bool) -> FaceBits {
    return add_face_word(bits, select(0u, 1u << (f & 31u), hot), f >> 5u, 1u);
}

// Whether face `f` is hot, of a hull of at most `128 blocks` faces (see
// WideCrossings; 1: `w0` alone, no selects among the words).
fn face_is_hot(bits: FaceBits, f: u32, blocks: u32) -> bool {
    let w = f >> 5u;
    var q = bits.w0;
    if blocks > 1u {
        q = select(q, bits.w1, w >= 4u);
    }
    if blocks > 2u {
        q = select(q, bits.w2, w >= 8u);
        q = select(q, bits.w3, w >= 12u);
    }
    let word = q[w & 3u];
    return ((word >> (f & 31u)) & 1u) != 0u;
}

// Bit `f & 31` set if face `f` (up to `last`) is hot: an edge of it may be
// kept at `level` or reach `limit`.
fn hot_face_bit(hull: HullRecord, f: u32, last: u32, inner: vec4<f32>, extra: vec2<f32>, level: f32, limit: f32, allowance: f32) -> u32 {
    let plane = hull_plane(hull, min(f, last));
    let hot = face_bound_hot(dot3(plane.xyz, inner.xyz) - plane.w, inner.w, extra, level, limit, allowance);
    return select(0u, 1u << (f & 31u), hot && f <= last);
}

// Bit `run & 31` set if run `run` (up to `last_run`) may hold a hot face:
// its cone's bound on `n . c - d` (`order`, see hot_faces) is hot.
fn warm_run_bit(hull: HullRecord, run: u32, last_run: u32, order: FaceOrder, radius: f32, extra: vec2<f32>, level: f32, limit: f32, allowance: f32) -> u32 {
    let cone = textureLoad(hull_floats, texel(face_cone_texel(hull, min(run, last_run))), 0);
    let warm = face_bound_hot(face_cone_bound(cone, order), radius, extra, level, limit, allowance);
    return select(0u, 1u << (run & 31u), warm && run <= last_run);
}

// The hot faces of run `run` (up to `last`), at their bits in their word.
fn hot_run_bits(hull: HullRecord, run: u32, last: u32, inner: vec4<f32>, extra: vec2<f32>, level: f32, limit: f32, allowance: f32) -> u32 {
    let f = 8u * run;
    return hot_face_bit(hull, f, last, inner, extra, level, limit, allowance)
        | hot_face_bit(hull, f + 1u, last, inner, extra, level, limit, allowance)
        | hot_face_bit(hull, f + 2u, last, inner, extra, level, limit, allowance)
        | hot_face_bit(hull, f + 3u, last, inner, extra, level, limit, allowance)
        | hot_face_bit(hull, f + 4u, last, inner, extra, level, limit, allowance)
        | hot_face_bit(hull, f + 5u, last, inner, extra, level, limit, allowance)
        | hot_face_bit(hull, f + 6u, last, inner, extra, level, limit, allowance)
        | hot_face_bit(hull, f + 7u, last, inner, extra, level, limit, allowance);
}

// `word` ORed into word `w` of `bits` (of `blocks`, see face_is_hot).
fn add_face_word(bits: FaceBits, word: u32, w: u32, blocks: u32) -> FaceBits {
    var result = bits;
    let at = vec4<u32>(w);
    result.w0 |= select(vec4<u32>(0u), vec4<u32>(word), vec4<u32>(0u, 1u, 2u, 3u) == at);
    if blocks > 1u {
        result.w1 |= select(vec4<u32>(0u), vec4<u32>(word), vec4<u32>(4u, 5u, 6u, 7u) == at);
    }
    if blocks > 2u {
        result.w2 |= select(vec4<u32>(0u), vec4<u32>(word), vec4<u32>(8u, 9u, 10u, 11u) == at);
        result.w3 |= select(vec4<u32>(0u), vec4<u32>(word), vec4<u32>(12u, 13u, 14u, 15u) == at);
    }
    return result;
}

// The hot faces of `hull` against the other hull's inner ball (`inner`, in
// `hull`'s frame) at the edge query's first level (the floor: the level
// only rises); every face while the level is the lowest value (nothing is
// skipped then, as in skips_edge).
//
// Runs first: the faces of a run of eight have normals in a narrow cone
// (see "Runs of faces"), and with `o`, `r1` this hull's inner ball and
// `v = c - o`, every face of the run has
//
//     n . c - d = n . v - (d - n . o) <= n . v - r1 <= face_cone_bound(cone)
//
// (FaceOrder with `lowered` = r1 less an allowance for rounding, as
// face_order's). face_bound_hot only rises with `n . c - d`, so a run
// whose bound is not hot holds no hot face: one texel rules out eight.
// Then each lane reads the planes of its own warm runs, one run a step,
// and marks their faces one by one as before, so the bits are the same.
fn hot_faces(hull: HullRecord, inner: vec4<f32>, tolerance: f32, limit: f32, slack: f32, floor: f32, blocks: u32) -> FaceBits {
    let level = scan_level(EdgeSeparation(LOWEST, 0u, 0u), tolerance, floor);
    let extra = face_bound_extra(hull);
    let last = hull.face_count - 1u;
    let edge_faces = textureLoad(hull_ints, texel(hull.int_base + hull.edge_count + 1u), 0).z;
    var bits = FaceBits(vec4<u32>(0u), vec4<u32>(0u), vec4<u32>(0u), vec4<u32>(0u), edge_faces);
    if level <= LOWEST {
        bits.w0 = vec4<u32>(~0u);
        bits.w1 = vec4<u32>(~0u);
        bits.w2 = vec4<u32>(~0u);
        bits.w3 = vec4<u32>(~0u);
        return bits;
    }
    let own = hull_inner(hull);
    let towards = inner.xyz - own.xyz;
    let length = length3(towards);
    let rounding = run_bound_allowance(length3(inner.xyz) + length3(own.xyz), hull.reach, length);
    let order = FaceOrder(0u, towards, length, own.w - rounding, true);
    let allowance = 3.0 * slack;
    let last_run = last >> 3u;
    var warm = vec2<u32>(0u);
    // WARM_RUNS_A_STEP runs a step, as the module's warm_runs reads them
    // (one in a loop on hardware, 32 in straight-line code on a software
    // adapter): the same bits.
    for (var run = 0u; run <= last_run; run += WARM_RUNS_A_STEP) {
        let word = warm_runs(hull, run, last_run, order, inner.w, extra, level, limit, allowance);
        warm |= select(vec2<u32>(0u), vec2<u32>(word), vec2<u32>(run >> 5u) == vec2<u32>(0u, 1u));
    }
    loop {
        if all(warm == vec2<u32>(0u)) {
            break;
        }
        let run = lowest_slot(warm);
        warm = remove_slot(warm, run);
        bits = add_face_word(bits, hot_run_bits(hull, run, last, inner, extra, level, limit, allowance), run >> 2u, blocks);
    }
    return bits;
}

// The texel of edges `j` to `j + 3`'s faces (16 bits each).
fn edge_faces4(hull: HullRecord, hot: FaceBits, j: u32) -> vec4<u32> {
    return textureLoad(hull_ints, texel(hot.edge_faces + min(j, hull.edge_count - 1u) / 4u), 0);
}

// Bit `k` set if edge `j + k` (up to `last`; its faces packed in `faces`)
// has a hot face.
fn edge_bit_hot(hot: FaceBits, faces: u32, j: u32, k: u32, last: u32, blocks: u32) -> u32 {
    let keeps = face_is_hot(hot, faces & 0xffffu, blocks) || face_is_hot(hot, faces >> 16u, blocks);
    return select(0u, 1u << k, keeps && j + k <= last);
}

// Bits 0 to 3 for edges `j` to `j + 3` (`j` a multiple of four) of the
// hull whose hot faces `hot` holds.
fn candidate_bits4(hull_b: HullRecord, j: u32, last_b: u32, hot: FaceBits, blocks: u32) -> u32 {
    let faces = edge_faces4(hull_b, hot, j);
    return edge_bit_hot(hot, faces.x, j, 0u, last_b, blocks)
        | edge_bit_hot(hot, faces.y, j, 1u, last_b, blocks)
        | edge_bit_hot(hot, faces.z, j, 2u, last_b, blocks)
        | edge_bit_hot(hot, faces.w, j, 3u, last_b, blocks);
}

// A set of edges of a hull of up to 256 vertices (762 edges), as bits:
// four blocks of 192.
struct WideCrossings {
    c0: Crossings,
    c1: Crossings,
    c2: Crossings,
    c3: Crossings,
}

fn any_crossing_wide(crossings: WideCrossings, blocks: u32) -> bool {
    var any_left = any_crossing(crossings.c0);
    if blocks > 1u {
        any_left = any_left || any_crossing(crossings.c1);
    }
    if blocks > 2u {
        any_left = any_left || any_crossing(crossings.c2) || any_crossing(crossings.c3);
    }
    return any_left;
}

// The lowest edge of A in `crossings` (which must hold one).
fn lowest_crossing_wide(crossings: WideCrossings, blocks: u32) -> u32 {
    var i = lowest_crossing(crossings.c0);
    if blocks > 1u {
        var later = 192u + lowest_crossing(crossings.c1);
        if blocks > 2u {
            let last = select(576u + lowest_crossing(crossings.c3), 384u + lowest_crossing(crossings.c2), any_crossing(crossings.c2));
            later = select(last, later, any_crossing(crossings.c1));
        }
        i = select(later, i, any_crossing(crossings.c0));
    }
    return i;
}

fn remove_crossing_wide(crossings: WideCrossings, i: u32, blocks: u32) -> WideCrossings {
    let block = i / 192u;
    let at = i % 192u;
    var result = crossings;
    if block == 0u { result.c0 = remove_crossing(result.c0, at); }
    if blocks > 1u && block == 1u { result.c1 = remove_crossing(result.c1, at); }
    if blocks > 2u && block == 2u { result.c2 = remove_crossing(result.c2, at); }
    if blocks > 2u && block == 3u { result.c3 = remove_crossing(result.c3, at); }
    return result;
}

// The lowest slot in `slots` (which must hold one).
fn lowest_slot(slots: vec2<u32>) -> u32 {
    return select(32u + firstTrailingBit(slots.y), firstTrailingBit(slots.x), slots.x != 0u);
}

// `slots` without slot `s`.
fn remove_slot(slots: vec2<u32>, s: u32) -> vec2<u32> {
    return slots & select(vec2<u32>(~0u), vec2<u32>(~(1u << (s & 31u))), vec2<u32>(s >> 5u) == vec2<u32>(0u, 1u));
}

// `bits` (eight) placed in `edges` from bit `i` (a multiple of eight).
fn place_bits8_wide(edges: WideCrossings, bits: u32, i: u32, blocks: u32) -> WideCrossings {
    let block = i / 192u;
    let empty = Crossings(vec4<u32>(0u), vec2<u32>(0u));
    let added = add_crossings(empty, bits, i % 192u);
    var result = edges;
    if block == 0u { result.c0 = merge_crossings(result.c0, added); }
    if blocks > 1u && block == 1u { result.c1 = merge_crossings(result.c1, added); }
    if blocks > 2u && block == 2u { result.c2 = merge_crossings(result.c2, added); }
    if blocks > 2u && block == 3u { result.c3 = merge_crossings(result.c3, added); }
    return result;
}

// Edges `j` to `j + 7` of `hull` (`j` a multiple of eight; those up to
// `last`) with a hot face in `hot`, added to `kept`.
fn add_kept_edges8(kept: WideCrossings, hull: HullRecord, hot: FaceBits, j: u32, last: u32, blocks: u32) -> WideCrossings {
    return place_bits8_wide(kept, candidate_bits4(hull, j, last, hot, blocks) | (candidate_bits4(hull, j + 4u, last, hot, blocks) << 4u), j, blocks);
}

// ---- Kept edges face by face ------------------------------------------------
//
// kept_edges_by_edge reads every edge's two faces (a 128-vertex hull: 378
// edges, 95 texels, 756 bit tests), yet a pair's hot faces are few (a
// patch facing the other hull). So where a hull has at most
// FACE_BY_FACE_MOST hot faces, each lane takes its own hot faces one a step
// and sets the edges of each face's loop (face_loop_edges in src/gpu/
// spatial.rs: the edge from loop vertex k to k + 1, parallel to the vertex
// loops), four a step. An edge is kept when a face of it is hot either way,
// so the set is the same. A hull with more hot faces (at the lowest level
// every face is hot) is taken edge by edge as before.
const FACE_BY_FACE_MOST: u32 = 32u;

fn count_faces(bits: FaceBits, blocks: u32) -> u32 {
    var c = countOneBits(bits.w0);
    if blocks > 1u {
        c += countOneBits(bits.w1);
    }
    if blocks > 2u {
        c += countOneBits(bits.w2) + countOneBits(bits.w3);
    }
    return (c.x + c.y) + (c.z + c.w);
}

fn any_face(bits: FaceBits, blocks: u32) -> bool {
    var words = bits.w0;
    if blocks > 1u {
        words |= bits.w1;
    }
    if blocks > 2u {
        words |= bits.w2 | bits.w3;
    }
    return any(words != vec4<u32>(0u));
}

// The lowest face in `bits` (which must hold one).
fn lowest_face(bits: FaceBits, blocks: u32) -> u32 {
    let zero = vec4<u32>(0u);
    var q = bits.w0;
    var first = 0u;
    if blocks > 1u {
        var later = bits.w1;
        var at = 4u;
        if blocks > 2u {
            let in_w2 = any(bits.w2 != zero);
            let in_w1 = any(bits.w1 != zero);
            later = select(select(bits.w3, bits.w2, in_w2), bits.w1, in_w1);
            at = select(select(12u, 8u, in_w2), 4u, in_w1);
        }
        let in_w0 = any(bits.w0 != zero);
        q = select(later, bits.w0, in_w0);
        first = select(at, 0u, in_w0);
    }
    var word = 3u;
    var b = q.w;
    if q.z != 0u { word = 2u; b = q.z; }
    if q.y != 0u { word = 1u; b = q.y; }
    if q.x != 0u { word = 0u; b = q.x; }
    return 32u * (first + word) + firstTrailingBit(b);
}

// `bits` without face `f`.
fn remove_face(bits: FaceBits, f: u32, blocks: u32) -> FaceBits {
    let keep = vec4<u32>(~(1u << (f & 31u)));
    let all_set = vec4<u32>(~0u);
    let w = vec4<u32>(f >> 5u);
    var result = bits;
    result.w0 &= select(all_set, keep, vec4<u32>(0u, 1u, 2u, 3u) == w);
    if blocks > 1u {
        result.w1 &= select(all_set, keep, vec4<u32>(4u, 5u, 6u, 7u) == w);
    }
    if blocks > 2u {
        result.w2 &= select(all_set, keep, vec4<u32>(8u, 9u, 10u, 11u) == w);
        result.w3 &= select(all_set, keep, vec4<u32>(12u, 13u, 14u, 15u) == w);
    }
    return result;
}

// Loop entry `at`'s edge (the face loop edges from texel `base`).
fn loop_edge(base: u32, at: u32) -> u32 {
    return textureLoad(hull_ints, texel(base + at / 4u), 0)[at & 3u];
}

fn add_edge_wide(edges: WideCrossings, e: u32, blocks: u32) -> WideCrossings {
    return place_bits8_wide(edges, 1u << (e & 7u), e & ~7u, blocks);
}

// The edges of `hull` with a face in `hot`, face by face: the edges of
// each face's loop, four a step (past the loop's last, the last again).
fn kept_edges_of_faces(hull: HullRecord, hot: FaceBits, blocks: u32) -> WideCrossings {
    let base = textureLoad(hull_ints, texel(hull.int_base + hull.edge_count + 1u), 0).w;
    let empty = Crossings(vec4<u32>(0u), vec2<u32>(0u));
    var kept = WideCrossings(empty, empty, empty, empty);
    var faces = hot;
    loop {
        if !any_face(faces, blocks) {
            break;
        }
        let f = lowest_face(faces, blocks);
        faces = remove_face(faces, f, blocks);
        let record = textureLoad(hull_ints, texel(hull.int_base + hull.edge_count + f), 0);
        let last = record.x + record.y - 1u;
        for (var at = record.x; at <= last; at += 4u) {
            kept = add_edge_wide(kept, loop_edge(base, at), blocks);
            kept = add_edge_wide(kept, loop_edge(base, min(at + 1u, last)), blocks);
            kept = add_edge_wide(kept, loop_edge(base, min(at + 2u, last)), blocks);
            kept = add_edge_wide(kept, loop_edge(base, min(at + 3u, last)), blocks);
        }
    }
    return kept;
}

// The edges of `hull` with a hot face in `hot`: face by face where there
// are few, else edge by edge (the module's kept_edges_by_edge); always edge
// by edge in the deferred dispatch
// (`by_face` false: its pairs keep many edges, and its loops, with the
// fallback's, must stay under lavapipe's limit; src/gpu/d3/loop_budget.rs:
// large_pair_iterations).
fn kept_edges(hull: HullRecord, hot: FaceBits, blocks: u32, by_face: bool) -> WideCrossings {
    var kept: WideCrossings;
    if by_face && count_faces(hot, blocks) <= FACE_BY_FACE_MOST {
        kept = kept_edges_of_faces(hull, hot, blocks);
    } else {
        kept = kept_edges_by_edge(hull, hot, blocks);
    }
    return kept;
}

// The lowest edge left in `*edges` (which must hold one), taken out.
fn take_lowest_wide(edges: ptr<function, WideCrossings>, blocks: u32) -> u32 {
    let j = lowest_crossing_wide(*edges, blocks);
    *edges = remove_crossing_wide(*edges, j, blocks);
    return j;
}

// ---- sphere.rs -------------------------------------------------------------

// The closest feature of a hull to an outside point: kind 0 a face, 1 an
// edge, 2 a vertex; its index; the distance.
struct Closest {
    kind: u32,
    index: u32,
    distance: f32,
}

// Whether `point` is on the inner side of edge `k` of a face's loop (from
// its vertex k to k + 1; past the last, the last edge again).
fn inside_face_edge(hull: HullRecord, start: u32, count: u32, k: u32, normal: vec3<f32>, point: vec3<f32>) -> bool {
    let at = min(k, count - 1u);
    let a = hull_vertex(hull, face_vertex(hull, start, at));
    let b = hull_vertex(hull, face_vertex(hull, start, select(at + 1u, 0u, at + 1u == count)));
    return dot3(cross3(b - a, point - a), normal) >= 0.0;
}

// Whether `point`, in face `face`'s plane, lies inside its loop: eight
// edges a step in straight-line code (lavapipe's loop limit; an edge
// tested again past the last changes nothing).
fn inside_face(hull: HullRecord, face: u32, normal: vec3<f32>, point: vec3<f32>) -> bool {
    let info = textureLoad(hull_ints, texel(hull.int_base + hull.edge_count + face), 0);
    let start = info.x;
    let count = info.y;
    for (var k = 0u; k < count; k += 8u) {
        let inside = (inside_face_edge(hull, start, count, k, normal, point)
            & inside_face_edge(hull, start, count, k + 1u, normal, point)
            & inside_face_edge(hull, start, count, k + 2u, normal, point)
            & inside_face_edge(hull, start, count, k + 3u, normal, point))
            & (inside_face_edge(hull, start, count, k + 4u, normal, point)
            & inside_face_edge(hull, start, count, k + 5u, normal, point)
            & inside_face_edge(hull, start, count, k + 6u, normal, point)
            & inside_face_edge(hull, start, count, k + 7u, normal, point));
        if !inside {
            return false;
        }
    }
    return true;
}

// The closest point of edge `e` to `centre`: the point in .xyz; kind 1 (on
// the edge) or 2 (clamped to vertex `index`).
struct EdgePoint {
    point: vec3<f32>,
    kind: u32,
    index: u32,
}

fn closest_on_edge(hull: HullRecord, e: u32, centre: vec3<f32>) -> EdgePoint {
    let ends = hull_edge(hull, e);
    let p0 = hull_vertex(hull, ends.x);
    let p1 = hull_vertex(hull, ends.y);
    let along = p1 - p0;
    let t = dot3(centre - p0, along) / dot3(along, along);
    if t <= 0.0 {
        return EdgePoint(p0, 2u, ends.x);
    }
    if t >= 1.0 {
        return EdgePoint(p1, 2u, ends.y);
    }
    return EdgePoint(p0 + t * along, 1u, e);
}

// Edge `e`'s closest point to the centre (a vertex when clamped) as a
// candidate feature, with its distance.
fn edge_candidate(hull: HullRecord, e: u32, centre: vec3<f32>) -> Closest {
    let on_edge = closest_on_edge(hull, e, centre);
    return Closest(on_edge.kind, on_edge.index, length3(centre - on_edge.point));
}

fn closest_feature(hull: HullRecord, centre: vec3<f32>) -> Closest {
    for (var face = 0u; face < hull.face_count; face++) {
        let plane = hull_plane(hull, face);
        let separation = dot3(plane.xyz, centre) - plane.w;
        if separation > 0.0 && inside_face(hull, face, plane.xyz, centre - separation * plane.xyz) {
            return Closest(0u, face, separation);
        }
    }
    var best = Closest(0u, 0u, HIGHEST);
    for (var e = 0u; e < hull.edge_count; e++) {
        let candidate = edge_candidate(hull, e, centre);
        if candidate.distance < best.distance {
            best = candidate;
        }
    }
    if best.kind == 2u {
        // A vertex: the nearest edge at it whose closest point is inside
        // it, if one is (the vertex's region; sphere.rs says why).
        var inside = Closest(2u, best.index, HIGHEST);
        for (var e = 0u; e < hull.edge_count; e++) {
            let ends = hull_edge(hull, e);
            if ends.x != best.index && ends.y != best.index {
                continue;
            }
            let candidate = edge_candidate(hull, e, centre);
            if candidate.kind == 1u && candidate.distance < inside.distance {
                inside = candidate;
            }
        }
        if inside.distance < HIGHEST {
            best = inside;
        }
    }
    return best;
}

// A hull against a sphere of `radius` centred at `centre` in the hull's
// frame; `owner_b` when the hull is body B.
fn collide_hull_sphere(hull: HullRecord, centre: vec3<f32>, radius: f32, owner_b: bool, tolerance: f32, margin: f32) -> PairResult {
    let limit = margin + radius;
    var best = Separation(LOWEST, 0u);
    for (var face = 0u; face < hull.face_count; face++) {
        let plane = hull_plane(hull, face);
        let separation = dot3(plane.xyz, centre) - plane.w;
        if separation > best.value + tolerance {
            best = Separation(separation, face);
        }
        if separation >= limit {
            return PairResult(false, 0u, separation);
        }
    }
    var feature = Closest(0u, best.index, best.value);
    if best.value > 0.0 {
        feature = closest_feature(hull, centre);
    }
    let separation = feature.distance - radius;
    // Face: FaceA or FaceB; edge: EdgeA or EdgeB; vertex: VertexA or VertexB.
    var kind = select(AXIS_EDGE_A, AXIS_VERTEX_A, feature.kind == 2u);
    kind = select(kind, AXIS_FACE_A, feature.kind == 0u);
    kind += select(0u, OWNER_B_KIND, owner_b);
    return PairResult(separation < margin, pack_axis(kind, feature.index), separation);
}

fn collide_spheres(centre: vec3<f32>, radius_a: f32, radius_b: f32, margin: f32) -> PairResult {
    let separation = length3(centre) - (radius_a + radius_b);
    return PairResult(separation < margin, pack_axis(AXIS_CENTRES, 0u), separation);
}

// ---- pair.rs ---------------------------------------------------------------

// Both face queries of a pair of hulls (A's, then B's, each returning
// early at the margin), the hot faces they marked, and the edge query's
// floor.
struct HullFaces {
    face_a: Separation,
    face_b: Separation,
    hot_a: FaceBits,
    hot_b: FaceBits,
    floor: f32,
    separated: bool,    // a face reached the margin: `result` is the pair's
    result: PairResult,
}

fn hull_faces(hull_a: HullRecord, hull_b: HullRecord, xf_ab: Transform3, xf_ba: Transform3, tolerance: f32, edge_tolerance: f32, margin: f32, wide: bool, cached: bool, slots: u32, gridded: bool) -> HullFaces {
    let slack = SKIP_SLACK * ((length3(xf_ab.p) + hull_a.reach) + hull_b.reach);
    let none = Separation(LOWEST, 0u);
    var faces = HullFaces(none, none, no_face_bits(), no_face_bits(), 0.0, false, PairResult(false, 0u, 0.0));
    let query_a = find_max_face_separation(hull_a, hull_b, xf_ba, tolerance, margin, wide, cached, slots, gridded, cached && slots > 8u, none, edge_tolerance, slack);
    faces.face_a = query_a.best;
    faces.hot_a = query_a.hot;
    if faces.face_a.value >= margin {
        faces.separated = true;
        faces.result = PairResult(false, 0u, faces.face_a.value);
        return faces;
    }
    let query_b = find_max_face_separation(hull_b, hull_a, xf_ab, tolerance, margin, wide, cached, slots, gridded, cached, faces.face_a, edge_tolerance, slack);
    faces.face_b = query_b.best;
    faces.hot_b = query_b.hot;
    if faces.face_b.value >= margin {
        faces.separated = true;
        faces.result = PairResult(false, 0u, faces.face_b.value);
        return faces;
    }
    faces.floor = edge_floor(faces.face_a, faces.face_b, tolerance, edge_tolerance);
    return faces;
}

// The pair's result from its faces and its best edge pair.
fn hull_axis(faces: HullFaces, edge: EdgeSeparation, tolerance: f32, edge_tolerance: f32, margin: f32) -> PairResult {
    if edge.value >= margin {
        return PairResult(false, 0u, edge.value);
    }
    return choose_hull_axis(faces.face_a, faces.face_b, edge, tolerance, edge_tolerance);
}

fn body_transform(body: u32) -> Transform3 {
    let t0 = textureLoad(body_transforms, texel(3u * body), 0);
    let t1 = textureLoad(body_transforms, texel(3u * body + 1u), 0);
    let t2 = textureLoad(body_transforms, texel(3u * body + 2u), 0);
    return Transform3(vec3<f32>(t0.w, t1.w, t2.w), Rot3(t0.xyz, t1.xyz, t2.xyz));
}

fn body_shape(body: u32) -> HullRecord {
    let t0 = textureLoad(body_shapes, texel(2u * body), 0);
    let t1 = textureLoad(body_shapes, texel(2u * body + 1u), 0);
    return HullRecord(t0.x, t0.y, t0.z, t0.w, t1.x, bitcast<f32>(t1.y), bitcast<f32>(t1.z), bitcast<f32>(t1.w));
}

// The pair functions the modules share; the two-hull pairs' are each
// module's own (hulls_pair_hardware, hulls_pair), as are the entry points
// (src/gpu/d3/mod.rs: ENTRY_POINTS).

// A pair of hulls as the queries take it: each in the other's frame, and
// the tie and edge tolerances from their sizes.
struct HullPairFrames {
    hull_a: HullRecord,
    hull_b: HullRecord,
    xf_ab: Transform3,
    xf_ba: Transform3,
    tolerance: f32,
    edge_tolerance: f32,
}

fn hull_pair_frames(pair: Pair) -> HullPairFrames {
    let xf_a = body_transform(pair.a);
    let xf_b = body_transform(pair.b);
    let xf_ab = inv_mul_transforms3(xf_a, xf_b);
    let xf_ba = inv_mul_transforms3(xf_b, xf_a);
    let hull_a = body_shape(pair.a);
    let hull_b = body_shape(pair.b);
    let sizes = hull_a.size + hull_b.size;
    return HullPairFrames(hull_a, hull_b, xf_ab, xf_ba, TIE_TOLERANCE * sizes, EDGE_TOLERANCE * sizes);
}

// A hull and a sphere, either way round: one call for both orders, so that
// no lane waits on the other branch.
fn hull_sphere_pair(pair: Pair) -> PairResult {
    let shape_a = body_shape(pair.a);
    let shape_b = body_shape(pair.b);
    let owner_b = shape_a.vertex_count == 0u;
    let hull_body = select(pair.a, pair.b, owner_b);
    let sphere_body = select(pair.b, pair.a, owner_b);
    let centre = inv_mul_transforms3(body_transform(hull_body), body_transform(sphere_body)).p;
    let radius = select(shape_b.radius, shape_a.radius, owner_b);
    let tolerance = TIE_TOLERANCE * (shape_a.size + shape_b.size);
    return collide_hull_sphere(body_shape(hull_body), centre, radius, owner_b, tolerance, params.margin);
}

// Two spheres.
fn spheres_pair(pair: Pair) -> PairResult {
    let centre = inv_mul_transforms3(body_transform(pair.a), body_transform(pair.b)).p;
    return collide_spheres(centre, body_shape(pair.a).radius, body_shape(pair.b).radius, params.margin);
}
