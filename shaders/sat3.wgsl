// The 3D SAT narrowphase: one candidate pair per invocation. Loaded after
// batch.wgsl (the pairs, the compacted output, the parameters, the entry
// points' prologue and epilogue), which the 2D kernel shares.
//
// This is the twin of src/d3/math.rs and src/d3/sat/ (separation.rs,
// faces.rs, edges.rs, sphere.rs, pair.rs, in that order): the same functions
// with the same names, doing the same operations in the same order. The
// conventions (A's frame, the normal from A to B, axes as features, the tie
// rule, the early exit, the Gauss-map test) are documented in
// src/d3/sat/mod.rs and src/d3/sat/edges.rs. The kernel runs the pruned edge
// query only; the brute force is a CPU reference.
//
// Data (src/gpu/layout.rs: HullRecord). The hull library is two textures:
// `hull_floats` holds each hull's vertices, its face planes (normal, offset)
// and two texels per edge (the normals of its two faces, the edge's arc on
// the Gauss map being their cross product, recomputed here as the CPU
// computed it); `hull_ints` holds each edge's vertices and faces, each
// face's loop (start, length) and the loops' vertex indices, four to a
// texel. Per body: its transform (three texels: a rotation column and a
// position coordinate each) and its shape's record (two texels, copied per
// body so that no lookup depends on another).

// Mirror of src/gpu/layout.rs, checked against naga's layout by
// tests/gpu_layout.rs.
struct HullRecord {
    float_base: u32,
    vertex_count: u32, // 0 marks a sphere
    face_count: u32,
    edge_count: u32,
    int_base: u32,
    radius: f32,
    size: f32,
    _pad: u32,
}

@group(0) @binding(1) var hull_floats: texture_2d<f32>;
@group(0) @binding(2) var body_transforms: texture_2d<f32>;
@group(0) @binding(3) var body_shapes: texture_2d<u32>;
@group(0) @binding(7) var hull_ints: texture_2d<u32>;

// src/d3/sat/separation.rs
const TIE_TOLERANCE: f32 = 2.0e-6;
const EDGE_TOLERANCE: f32 = 2.0e-5;
const PARALLEL_TOLERANCE: f32 = 1.0e-4;

// Axis::pack (src/d3/types.rs): the kind in bits 29 to 31, the index below
// (two edges: A's from bit 14, B's below).
const KIND_SHIFT: u32 = 29u;
const INDEX_MASK: u32 = 0x1fffffffu;
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

// Face `f`'s plane: unit normal in .xyz, offset in .w.
fn hull_plane(hull: HullRecord, f: u32) -> vec4<f32> {
    return textureLoad(hull_floats, texel(hull.float_base + hull.vertex_count + f), 0);
}

// The normal of edge `e`'s face `side` (0: f0, 1: f1).
fn edge_normal(hull: HullRecord, e: u32, side: u32) -> vec3<f32> {
    let base = hull.float_base + hull.vertex_count + hull.face_count;
    return textureLoad(hull_floats, texel(base + 2u * e + side), 0).xyz;
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

// Faces of A, then of B, then the edge pair: B's face only by more than the
// face tolerance, the edge pair only by more than the edge tolerance.
fn choose_hull_axis(face_a: Separation, face_b: Separation, edge: EdgeSeparation, tolerance: f32, edge_tolerance: f32) -> PairResult {
    var face_axis = pack_axis(AXIS_FACE_A, face_a.index);
    var face_value = face_a.value;
    if face_b.value > face_a.value + tolerance {
        face_axis = pack_axis(AXIS_FACE_B, face_b.index);
        face_value = face_b.value;
    }
    if edge.value > face_value + edge_tolerance {
        return PairResult(true, pack_axis(AXIS_EDGES, (edge.a << EDGE_BITS) | edge.b), edge.value);
    }
    return PairResult(true, face_axis, face_value);
}

// ---- Loops and lavapipe ----------------------------------------------------
//
// lavapipe (llvmpipe's gallivm) ends every loop of a shader invocation once
// 65,535 iterations have run in all, counted together over every loop of the
// invocation (LP_MAX_TGSI_LOOP_ITERATIONS, a guard against hangs); the
// results are then silently wrong. A pair of 256-vertex hulls takes about
// 840,000 vertex and edge-pair steps, so the two queries' inner loops take
// 8 steps per iteration ("hulls": hulls of up to 128 vertices on both
// sides), or 16 vertices and 32 edge pairs ("hulls_large"), in straight-line
// code. A chunk past the last index re-reads the last one: a minimum is
// unchanged by repeats, and an edge pair offered again changes nothing (the
// tie rule needs a strictly larger separation, and one that reached the
// limit has already returned). So the results are the CPU's loops'
// exactly. src/gpu/spatial.rs checks the worst case stays under the limit.

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

// The deepest face of `hull1` against the vertices of `hull2`; `xf` takes
// `hull1`'s local points into `hull2`'s frame. `wide`: 16 vertices a step.
fn find_max_face_separation(hull1: HullRecord, hull2: HullRecord, xf: Transform3, tolerance: f32, limit: f32, wide: bool) -> Separation {
    var best = Separation(LOWEST, 0u);
    let last = hull2.vertex_count - 1u;
    let step = select(8u, 16u, wide);
    for (var i = 0u; i < hull1.face_count; i++) {
        let plane = hull_plane(hull1, i);
        let moved = rotate3(xf.r, plane.xyz);
        let moved_offset = plane.w + dot3(moved, xf.p);
        var separation = HIGHEST;
        for (var k = 0u; k < hull2.vertex_count; k += step) {
            separation = min(separation, vertex_min8(hull2, moved, moved_offset, k, last));
            if wide {
                separation = min(separation, vertex_min8(hull2, moved, moved_offset, k + 8u, last));
            }
        }
        if separation > best.value + tolerance {
            best = Separation(separation, i);
        }
        if separation >= limit {
            return Separation(separation, i);
        }
    }
    return best;
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
    let u = edge_normal(hull_b, e, 0u);
    let v = edge_normal(hull_b, e, 1u);
    let ends = hull_edge(hull_b, e);
    return MovedEdge(
        rotate3(xf.r, u),
        rotate3(xf.r, v),
        rotate3(xf.r, cross3(v, u)),
        transform_point3(xf, hull_vertex(hull_b, ends.x)),
    );
}

// The edge query so far: the best pair, and whether a pair reached the limit
// (then `best` is that pair and the query is over).
struct EdgeScan {
    best: EdgeSeparation,
    done: bool,
}

// The body of the CPU's inner loop, for A's edge `i` against B's moved edge `j`.
fn edge_step(scan: EdgeScan, hull_a: HullRecord, b: MovedEdge, i: u32, j: u32, tolerance: f32, limit: f32) -> EdgeScan {
    if scan.done {
        return scan;
    }
    let u_a = edge_normal(hull_a, i, 0u);
    let v_a = edge_normal(hull_a, i, 1u);
    let arc_a = cross3(v_a, u_a);
    let crossing = gauss_test(u_a, v_a, arc_a, b.u, b.v, b.arc);
    if crossing.z == 0.0 || nearly_parallel(crossing.x, crossing.y, arc_a) {
        return scan;
    }
    let axis = edge_axis(b.u, b.v, crossing.x, crossing.y);
    let separation = dot3(axis, b.point - hull_vertex(hull_a, hull_edge(hull_a, i).x));
    var result = scan;
    if separation > scan.best.value + tolerance {
        result.best = EdgeSeparation(separation, i, j);
    }
    if separation >= limit {
        return EdgeScan(EdgeSeparation(separation, i, j), true);
    }
    return result;
}

// A's edges `i` to `i + 7` (clamped to `last`) against B's edge `j`.
fn edge_steps8(scan: EdgeScan, hull_a: HullRecord, b: MovedEdge, i: u32, last: u32, j: u32, tolerance: f32, limit: f32) -> EdgeScan {
    var s = edge_step(scan, hull_a, b, min(i, last), j, tolerance, limit);
    s = edge_step(s, hull_a, b, min(i + 1u, last), j, tolerance, limit);
    s = edge_step(s, hull_a, b, min(i + 2u, last), j, tolerance, limit);
    s = edge_step(s, hull_a, b, min(i + 3u, last), j, tolerance, limit);
    s = edge_step(s, hull_a, b, min(i + 4u, last), j, tolerance, limit);
    s = edge_step(s, hull_a, b, min(i + 5u, last), j, tolerance, limit);
    s = edge_step(s, hull_a, b, min(i + 6u, last), j, tolerance, limit);
    s = edge_step(s, hull_a, b, min(i + 7u, last), j, tolerance, limit);
    return s;
}

// The deepest edge pair, in A's frame (`xf` takes B's local points into
// A's), pruned by the Gauss-map test: B's edges outside, A's inside.
// `wide`: 32 of A's edges a step.
fn find_max_edge_separation(hull_a: HullRecord, hull_b: HullRecord, xf: Transform3, tolerance: f32, limit: f32, wide: bool) -> EdgeSeparation {
    var scan = EdgeScan(EdgeSeparation(LOWEST, 0u, 0u), false);
    let last = hull_a.edge_count - 1u;
    let step = select(8u, 32u, wide);
    for (var j = 0u; j < hull_b.edge_count; j++) {
        let b = moved_edge(hull_b, j, xf);
        for (var i = 0u; i < hull_a.edge_count; i += step) {
            scan = edge_steps8(scan, hull_a, b, i, last, j, tolerance, limit);
            if wide {
                scan = edge_steps8(scan, hull_a, b, i + 8u, last, j, tolerance, limit);
                scan = edge_steps8(scan, hull_a, b, i + 16u, last, j, tolerance, limit);
                scan = edge_steps8(scan, hull_a, b, i + 24u, last, j, tolerance, limit);
            }
            if scan.done {
                return scan.best;
            }
        }
    }
    return scan.best;
}

// ---- sphere.rs -------------------------------------------------------------

// The closest feature of a hull to an outside point: kind 0 a face, 1 an
// edge, 2 a vertex; its index; the distance.
struct Closest {
    kind: u32,
    index: u32,
    distance: f32,
}

// Whether `point`, in face `face`'s plane, lies inside its loop.
fn inside_face(hull: HullRecord, face: u32, normal: vec3<f32>, point: vec3<f32>) -> bool {
    let info = textureLoad(hull_ints, texel(hull.int_base + hull.edge_count + face), 0);
    let start = info.x;
    let count = info.y;
    for (var k = 0u; k < count; k++) {
        let a = hull_vertex(hull, face_vertex(hull, start, k));
        let b = hull_vertex(hull, face_vertex(hull, start, select(k + 1u, 0u, k + 1u == count)));
        if !(dot3(cross3(b - a, point - a), normal) >= 0.0) {
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

fn closest_feature(hull: HullRecord, centre: vec3<f32>, tolerance: f32) -> Closest {
    var best = Closest(0u, 0u, HIGHEST);
    for (var face = 0u; face < hull.face_count; face++) {
        let plane = hull_plane(hull, face);
        let separation = dot3(plane.xyz, centre) - plane.w;
        if separation > 0.0 && separation < best.distance - tolerance
            && inside_face(hull, face, plane.xyz, centre - separation * plane.xyz) {
            best = Closest(0u, face, separation);
        }
    }
    for (var e = 0u; e < hull.edge_count; e++) {
        let on_edge = closest_on_edge(hull, e, centre);
        let distance = length3(centre - on_edge.point);
        if distance < best.distance - tolerance {
            best = Closest(on_edge.kind, on_edge.index, distance);
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
        feature = closest_feature(hull, centre, tolerance);
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

// Hull A against hull B: A's faces, B's faces, then the edge pairs, each
// stopping at the first separation that reaches the margin.
// `wide`: the queries' wide steps (see "Loops and lavapipe").
fn collide_hulls(hull_a: HullRecord, hull_b: HullRecord, xf_ab: Transform3, xf_ba: Transform3, tolerance: f32, edge_tolerance: f32, margin: f32, wide: bool) -> PairResult {
    let face_a = find_max_face_separation(hull_a, hull_b, xf_ba, tolerance, margin, wide);
    if face_a.value >= margin {
        return PairResult(false, 0u, face_a.value);
    }
    let face_b = find_max_face_separation(hull_b, hull_a, xf_ab, tolerance, margin, wide);
    if face_b.value >= margin {
        return PairResult(false, 0u, face_b.value);
    }
    let edge = find_max_edge_separation(hull_a, hull_b, xf_ab, tolerance, margin, wide);
    if edge.value >= margin {
        return PairResult(false, 0u, edge.value);
    }
    return choose_hull_axis(face_a, face_b, edge, tolerance, edge_tolerance);
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
    return HullRecord(t0.x, t0.y, t0.z, t0.w, t1.x, bitcast<f32>(t1.y), bitcast<f32>(t1.z), 0u);
}

// The pair functions, one per kind (src/gpu/spatial.rs: ENTRY_POINTS).

// Two hulls; `wide` for "hulls_large".
fn hulls_pair(pair: Pair, wide: bool) -> PairResult {
    let xf_a = body_transform(pair.a);
    let xf_b = body_transform(pair.b);
    let xf_ab = inv_mul_transforms3(xf_a, xf_b);
    let xf_ba = inv_mul_transforms3(xf_b, xf_a);
    let hull_a = body_shape(pair.a);
    let hull_b = body_shape(pair.b);
    let sizes = hull_a.size + hull_b.size;
    return collide_hulls(hull_a, hull_b, xf_ab, xf_ba, TIE_TOLERANCE * sizes, EDGE_TOLERANCE * sizes, params.margin, wide);
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

// The entry points: the prologue, the kind's pair function, the epilogue.

@compute @workgroup_size(WORKGROUP_SIZE)
fn hulls(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hulls_pair(task.pair, false));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hull_sphere(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hull_sphere_pair(task.pair));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn spheres(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, spheres_pair(task.pair));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hulls_large(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hulls_pair(task.pair, true));
}
