// Shapes with a radius: capsules (a segment core), rounded hulls (a hull
// core) and spheres (a point core), against each other and against plain
// hulls: the entry points "rounded", "hull_capsule" and "capsules". Loaded after d3/sat.wgsl and
// d3/hardware.wgsl (whose narrow hull query, collide_hulls_hardware, is the
// cores' SAT), in the hardware module, which every adapter creates.
//
// This is the twin of src/d3/sat/rounded.rs: the same functions with the
// same names (`finish` is `finish_rounded` here, batch.wgsl having its own),
// doing the same operations in the same order; the algorithm (the depth as
// R minus the signed distance of the cores, the SAT to `margin + R` where
// they overlap, the exact nearest features where they are apart, the
// ranks) is taught in that file's module docs. The result is the CPU's bit
// for bit on lavapipe (tests/it/gpu/d3.rs).
//
// The records (src/gpu/d3/texels.rs): a rounded hull is its core's hull
// record with its radius; a capsule a record of two vertices, no face and
// one edge (0, 1), its radius beside them; a sphere a record of no vertex.
// So hull_vertex and hull_edge read a segment core as they read a hull.
//
// lavapipe's loop limit (sat.wgsl, "Loops and lavapipe"): the pairs of two
// hull cores are limited to ROUNDED_HULL_VERTICES on both sides
// (src/gpu/d3/kinds.rs), whose worst case src/gpu/d3/loop_budget.rs checks;
// a hull against a segment or a point runs a bounded number of loops over
// the hull's faces and edges, whatever its size.

// Axis::pack's kinds of the feature pairs (src/d3/types.rs).
const AXIS_VERTEX_EDGE: u32 = 8u;
const AXIS_EDGE_VERTEX: u32 = 9u;
const AXIS_VERTICES: u32 = 10u;

// end_of's answer for a parameter strictly inside (0 and 1 are the ends).
const INSIDE: u32 = 2u;

fn pack_features(kind: u32, a: u32, b: u32) -> u32 {
    return pack_axis(kind, (a << EDGE_BITS) | b);
}

// Keeps a sum the CPU rounded from being merged into the next one (lavapipe
// reassociates chains of additions; see shaders/frame/manifold.wgsl's
// `keep`): a select on a uniform the compiler cannot see through, always
// false.
fn keep(v: f32) -> f32 {
    return select(v, 0.0, params.capacity == 0xffffffffu);
}

fn keep3(v: vec3<f32>) -> vec3<f32> {
    return select(v, vec3<f32>(0.0), params.capacity == 0xffffffffu);
}

// The kinds of core a record holds.
fn is_point_core(core: HullRecord) -> bool {
    return core.vertex_count == 0u;
}

fn is_segment_core(core: HullRecord) -> bool {
    return core.vertex_count != 0u && core.face_count == 0u;
}

// Core::vertex: vertex `i` (the last past them); a point's is the origin.
fn core_vertex(core: HullRecord, i: u32) -> vec3<f32> {
    if is_point_core(core) {
        return vec3<f32>(0.0);
    }
    return hull_vertex(core, min(i, core.vertex_count - 1u));
}

// Core::edge: edge `e`'s two ends; a point's is the point, twice.
struct EdgeEnds {
    e0: vec3<f32>,
    e1: vec3<f32>,
}

fn core_edge(core: HullRecord, e: u32) -> EdgeEnds {
    if is_point_core(core) {
        return EdgeEnds(vec3<f32>(0.0), vec3<f32>(0.0));
    }
    let ends = hull_edge(core, min(e, core.edge_count - 1u));
    return EdgeEnds(hull_vertex(core, ends.x), hull_vertex(core, ends.y));
}

// The closest points of segments [p1, q1] and [p2, q2] and their clamped
// parameters (Ericson 5.1.9; parallel segments take s = 0 first).
struct SegmentPoints {
    on_a: vec3<f32>,
    on_b: vec3<f32>,
    s: f32,
    t: f32,
}

fn closest_points_of_segments(p1: vec3<f32>, q1: vec3<f32>, p2: vec3<f32>, q2: vec3<f32>) -> SegmentPoints {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = dot3(d1, d1);
    let e = dot3(d2, d2);
    let f = dot3(d2, r);
    let c = dot3(d1, r);
    let b = dot3(d1, d2);
    let denominator = a * e - b * b;
    var s = 0.0;
    if denominator > 0.0 {
        s = clamp((b * f - c * e) / denominator, 0.0, 1.0);
    }
    var t = 0.0;
    if e > 0.0 {
        t = (b * s + f) / e;
    }
    if t < 0.0 {
        t = 0.0;
        s = 0.0;
        if a > 0.0 {
            s = clamp(-c / a, 0.0, 1.0);
        }
    } else if t > 1.0 {
        t = 1.0;
        s = 0.0;
        if a > 0.0 {
            s = clamp((b - c) / a, 0.0, 1.0);
        }
    }
    return SegmentPoints(p1 + s * d1, p2 + t * d2, s, t);
}

fn end_of(t: f32) -> u32 {
    if t <= 0.0 {
        return 0u;
    }
    if t >= 1.0 {
        return 1u;
    }
    return INSIDE;
}

fn closest_on_segment(e0: vec3<f32>, e1: vec3<f32>, p: vec3<f32>) -> vec3<f32> {
    let along = e1 - e0;
    let squared = dot3(along, along);
    if squared <= 0.0 {
        return e0;
    }
    let t = clamp(dot3(p - e0, along) / squared, 0.0, 1.0);
    return e0 + t * along;
}

fn parallel(da: vec3<f32>, db: vec3<f32>) -> bool {
    return length3(cross3(da, db)) <= PARALLEL_TOLERANCE * length3(da) * length3(db);
}

fn perpendicular(d: vec3<f32>) -> vec3<f32> {
    let a = abs(d);
    var other = vec3<f32>(0.0, 0.0, 1.0);
    if a.x <= a.y && a.x <= a.z {
        other = vec3<f32>(1.0, 0.0, 0.0);
    } else if a.y <= a.z {
        other = vec3<f32>(0.0, 1.0, 0.0);
    }
    let normal = cross3(d, other);
    let length = length3(normal);
    if length > 0.0 {
        return normal / length;
    }
    return vec3<f32>(1.0, 0.0, 0.0);
}

fn crossing_normal(a0: vec3<f32>, a1: vec3<f32>, b0: vec3<f32>, b1: vec3<f32>) -> vec3<f32> {
    let crossed = cross3(a1 - a0, b1 - b0);
    let length = length3(crossed);
    if length <= 0.0 {
        return perpendicular(a1 - a0);
    }
    let normal = crossed / length;
    if dot3(normal, keep3(b0 + b1) - keep3(a0 + a1)) < 0.0 {
        return -normal;
    }
    return normal;
}

fn touching_normal(core_a: HullRecord, core_b: HullRecord, xf_ab: Transform3) -> vec3<f32> {
    let segment_a = is_segment_core(core_a);
    let segment_b = is_segment_core(core_b);
    if segment_a && segment_b {
        return crossing_normal(hull_vertex(core_a, 0u), hull_vertex(core_a, 1u), transform_point3(xf_ab, hull_vertex(core_b, 0u)), transform_point3(xf_ab, hull_vertex(core_b, 1u)));
    }
    if segment_a {
        return perpendicular(hull_vertex(core_a, 1u) - hull_vertex(core_a, 0u));
    }
    if segment_b {
        return perpendicular(rotate3(xf_ab.r, hull_vertex(core_b, 1u) - hull_vertex(core_b, 0u)));
    }
    return vec3<f32>(1.0, 0.0, 0.0);
}

// FeaturePair: the geometry of a closest-feature axis, in A's frame.
struct FeaturePair {
    normal: vec3<f32>,
    on_a: vec3<f32>,
    on_b: vec3<f32>,
    distance: f32,
}

// segment_pair's answer: the packed axis and its geometry.
struct SegmentPair {
    axis: u32,
    pair: FeaturePair,
}

fn segment_pair(a0: vec3<f32>, a1: vec3<f32>, b0: vec3<f32>, b1: vec3<f32>) -> SegmentPair {
    let points = closest_points_of_segments(a0, a1, b0, b1);
    let end_a = end_of(points.s);
    let end_b = end_of(points.t);
    var axis = pack_features(AXIS_VERTICES, end_a, end_b);
    if end_a == INSIDE && end_b == INSIDE {
        axis = pack_features(AXIS_EDGES, 0u, 0u);
    } else if end_a == INSIDE {
        axis = pack_features(AXIS_EDGE_VERTEX, 0u, end_b);
    } else if end_b == INSIDE {
        axis = pack_features(AXIS_VERTEX_EDGE, end_a, 0u);
    }
    let da = a1 - a0;
    let db = b1 - b0;
    let offset = points.on_b - points.on_a;
    if end_a == INSIDE && end_b == INSIDE && !parallel(da, db) {
        let crossed = cross3(da, db);
        var normal = crossed / length3(crossed);
        let side = dot3(normal, offset);
        if side < 0.0 {
            normal = -normal;
        } else if !(side > 0.0) {
            normal = crossing_normal(a0, a1, b0, b1);
        }
        let distance = max(dot3(normal, b0 - a0), 0.0);
        return SegmentPair(axis, FeaturePair(normal, points.on_a, points.on_b, distance));
    }
    let distance = length3(offset);
    var normal = crossing_normal(a0, a1, b0, b1);
    if distance > 0.0 {
        normal = offset / distance;
    }
    return SegmentPair(axis, FeaturePair(normal, points.on_a, points.on_b, distance));
}

// feature_pair: a vertex-edge or vertex-vertex axis's geometry between two
// cores (B's placed in A's frame by `xf_ab`); `has` false for the other
// kinds.
struct MaybeFeaturePair {
    has: bool,
    pair: FeaturePair,
}

fn feature_pair(core_a: HullRecord, core_b: HullRecord, xf_ab: Transform3, axis: u32) -> MaybeFeaturePair {
    let kind = axis >> KIND_SHIFT;
    let index = axis & INDEX_MASK;
    let high = index >> EDGE_BITS;
    let low = index & ((1u << EDGE_BITS) - 1u);
    var on_a: vec3<f32>;
    var on_b: vec3<f32>;
    if kind == AXIS_VERTEX_EDGE {
        let p = core_vertex(core_a, high);
        let edge = core_edge(core_b, low);
        on_a = p;
        on_b = closest_on_segment(transform_point3(xf_ab, edge.e0), transform_point3(xf_ab, edge.e1), p);
    } else if kind == AXIS_EDGE_VERTEX {
        let q = transform_point3(xf_ab, core_vertex(core_b, low));
        let edge = core_edge(core_a, high);
        on_a = closest_on_segment(edge.e0, edge.e1, q);
        on_b = q;
    } else if kind == AXIS_VERTICES {
        on_a = core_vertex(core_a, high);
        on_b = transform_point3(xf_ab, core_vertex(core_b, low));
    } else {
        return MaybeFeaturePair(false, FeaturePair(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), 0.0));
    }
    let offset = on_b - on_a;
    let distance = length3(offset);
    var normal: vec3<f32>;
    if distance > 0.0 {
        normal = offset / distance;
    } else {
        normal = touching_normal(core_a, core_b, xf_ab);
    }
    return MaybeFeaturePair(true, FeaturePair(normal, on_a, on_b, distance));
}

// hull_segment_axis past its test (segment_edge_axis): hull edge `e`
// crossed with `along`, whose arc crosses the segment's great circle (the
// normals `u`, `v` of its faces on opposite sides): the unit axis out of
// the hull in .xyz, 1 in .w (0: too near parallel, no axis).
fn segment_edge_axis(hull: HullRecord, e: u32, u: vec3<f32>, v: vec3<f32>, along: vec3<f32>) -> vec4<f32> {
    let ends = hull_edge(hull, e);
    let p0 = hull_vertex(hull, ends.x);
    let p1 = hull_vertex(hull, ends.y);
    let direction = p1 - p0;
    let crossed = cross3(direction, along);
    let length = length3(crossed);
    if length <= PARALLEL_TOLERANCE * length3(direction) * length3(along) {
        return vec4<f32>(0.0);
    }
    let axis = crossed / length;
    if dot3(axis, u + v) < 0.0 {
        return vec4<f32>(-axis, 1.0);
    }
    return vec4<f32>(axis, 1.0);
}

// hull_segment_axis: the axis where the edge's arc crosses the segment's
// great circle (.w 1), else none (.w 0).
fn hull_segment_axis(hull: HullRecord, e: u32, along: vec3<f32>) -> vec4<f32> {
    let record = edge_bound_record(hull, e);
    let u = record.u_plane.xyz;
    let v = record.v_plane.xyz;
    let du = dot3(u, along);
    let dv = dot3(v, along);
    if du * dv >= 0.0 {
        return vec4<f32>(0.0);
    }
    return segment_edge_axis(hull, e, u, v, along);
}

// The nearest feature pair found so far: its distance, its rank (3 a vertex
// over a face, 2 two edges' inner points, 1 a vertex and an edge, 0 two
// vertices) and its axis (none where the SAT's own axis stands for it).
struct Nearest {
    distance: f32,
    rank: u32,
    has_axis: bool,
    axis: u32,
}

fn no_nearest() -> Nearest {
    return Nearest(HIGHEST, 0u, false, 0u);
}

// Nearest::offer: a candidate nearer by more than `tolerance`, or as near
// within it and of a higher rank.
fn offer_nearest(nearest: Nearest, distance: f32, rank: u32, axis: u32, tolerance: f32) -> Nearest {
    if distance < nearest.distance - tolerance || (distance <= nearest.distance + tolerance && rank > nearest.rank) {
        return Nearest(distance, rank, true, axis);
    }
    return nearest;
}

// The result of a pair whose cores' SAT gave `sat` (with the limit
// `margin + R`), given its nearest features where the cores are apart
// (`finish` in rounded.rs, whose closure is computed by the caller only
// where sat.separation > 0).
fn finish_rounded(core_a: HullRecord, core_b: HullRecord, xf_ab: Transform3, sat: PairResult, nearest: Nearest, radii: f32, tolerance: f32, edge_tolerance: f32, margin: f32) -> PairResult {
    if sat.separation > 0.0 {
        let stands = select(tolerance, edge_tolerance, axis_is_face(sat.axis));
        if nearest.distance > sat.separation + stands && nearest.has_axis {
            let kind = nearest.axis >> KIND_SHIFT;
            if kind == AXIS_FACE_A || kind == AXIS_FACE_B || kind == AXIS_EDGES {
                let separation = nearest.distance - radii;
                return PairResult(separation < margin, nearest.axis, separation);
            }
            return finish_feature(core_a, core_b, xf_ab, nearest.axis, radii, margin);
        }
    }
    let separation = sat.separation - radii;
    return PairResult(separation < margin, sat.axis, separation);
}

fn axis_is_face(axis: u32) -> bool {
    let kind = axis >> KIND_SHIFT;
    return kind == AXIS_FACE_A || kind == AXIS_FACE_B;
}

fn finish_feature(core_a: HullRecord, core_b: HullRecord, xf_ab: Transform3, axis: u32, radii: f32, margin: f32) -> PairResult {
    let feature = feature_pair(core_a, core_b, xf_ab, axis);
    if !feature.has {
        return PairResult(false, axis, 0.0);
    }
    let separation = feature.pair.distance - radii;
    return PairResult(separation < margin, axis, separation);
}

fn segment_parameter(p0: vec3<f32>, p1: vec3<f32>, point: vec3<f32>) -> f32 {
    let along = p1 - p0;
    return dot3(point - p0, along) / dot3(along, along);
}

// hull_pair_axis: the SAT axis of a hull pair's result, in A's frame. An
// edge pair's is the crossing of its arcs (the kernel offers no pair that
// failed the Gauss-map test, so the CPU's brute-force fallback is never
// taken here).
fn hull_pair_axis(a: HullRecord, b: HullRecord, xf_ab: Transform3, axis: u32) -> vec3<f32> {
    let kind = axis >> KIND_SHIFT;
    let index = axis & INDEX_MASK;
    if kind == AXIS_FACE_A {
        return hull_plane(a, min(index, a.face_count - 1u)).xyz;
    }
    if kind == AXIS_FACE_B {
        return -rotate3(xf_ab.r, hull_plane(b, min(index, b.face_count - 1u)).xyz);
    }
    if kind == AXIS_EDGES {
        let i = index >> EDGE_BITS;
        let j = index & ((1u << EDGE_BITS) - 1u);
        let moved = moved_edge(b, j, xf_ab);
        let record = edge_bound_record(a, i);
        let u_a = record.u_plane.xyz;
        let v_a = record.v_plane.xyz;
        let crossing = gauss_test(u_a, v_a, cross3(v_a, u_a), moved.u, moved.v, moved.arc);
        return edge_axis(moved.u, moved.v, crossing.x, crossing.y);
    }
    return vec3<f32>(1.0, 0.0, 0.0);
}

// `vertex` of a core over the inside of `hull`'s face `face` (both in the
// hull's frame): its height over the face if positive and inside, else -1.
fn over_face(hull: HullRecord, face: u32, vertex: vec3<f32>) -> f32 {
    let plane = hull_plane(hull, face);
    let gap = dot3(plane.xyz, vertex) - plane.w;
    if gap > 0.0 && inside_face(hull, face, plane.xyz, vertex - gap * plane.xyz) {
        return gap;
    }
    return -1.0;
}

// edge_pair_features: the features two edges' closest points lie on, from
// their clamped parameters: the rank in .x, the packed axis in .y.
fn edge_pair_features(i: u32, edge_a: vec4<u32>, j: u32, edge_b: vec4<u32>, s: f32, t: f32) -> vec2<u32> {
    let end_a = end_of(s);
    let end_b = end_of(t);
    let vertex_a = select(edge_a.y, edge_a.x, end_a == 0u);
    let vertex_b = select(edge_b.y, edge_b.x, end_b == 0u);
    if end_a == INSIDE && end_b == INSIDE {
        return vec2<u32>(2u, pack_features(AXIS_EDGES, i, j));
    }
    if end_a == INSIDE {
        return vec2<u32>(1u, pack_features(AXIS_EDGE_VERTEX, i, vertex_b));
    }
    if end_b == INSIDE {
        return vec2<u32>(1u, pack_features(AXIS_VERTEX_EDGE, vertex_a, j));
    }
    return vec2<u32>(0u, pack_features(AXIS_VERTICES, vertex_a, vertex_b));
}

// The slab of nearest_in_slab: the extreme heights along the normal and the
// slack (see there).
struct Slab {
    normal: vec3<f32>,
    top_a: f32,
    low_b: f32,
    slack: f32,
}

// A vertex's depth into the slab (negative: outside it): below A's top
// plane, above B's bottom plane.
fn height_a(slab: Slab, v: vec3<f32>) -> f32 {
    return slab.slack - (slab.top_a - dot3(slab.normal, v));
}

fn height_b(slab: Slab, w: vec3<f32>) -> f32 {
    return slab.slack - (dot3(slab.normal, w) - slab.low_b);
}

// Whether any vertex of `hull`'s face `face` is in the slab (`of_a`: A's
// heights; else B's, the hull's points moved into A's frame by `xf`).
// Four vertices a step (lavapipe's loop limit; past the last, the last
// again).
fn face_in_slab(hull: HullRecord, face: u32, slab: Slab, of_a: bool, xf: Transform3) -> bool {
    let info = textureLoad(hull_ints, texel(hull.int_base + hull.edge_count + face), 0);
    let last = info.y - 1u;
    for (var k = 0u; k < info.y; k += 4u) {
        let found = (vertex_in_slab(hull, face_vertex(hull, info.x, min(k, last)), slab, of_a, xf)
            | vertex_in_slab(hull, face_vertex(hull, info.x, min(k + 1u, last)), slab, of_a, xf))
            | (vertex_in_slab(hull, face_vertex(hull, info.x, min(k + 2u, last)), slab, of_a, xf)
            | vertex_in_slab(hull, face_vertex(hull, info.x, min(k + 3u, last)), slab, of_a, xf));
        if found {
            return true;
        }
    }
    return false;
}

// Whether `hull`'s vertex `v` is in the slab (see face_in_slab).
fn vertex_in_slab(hull: HullRecord, v: u32, slab: Slab, of_a: bool, xf: Transform3) -> bool {
    let p = hull_vertex(hull, v);
    if of_a {
        return height_a(slab, p) >= 0.0;
    }
    return height_b(slab, transform_point3(xf, p)) >= 0.0;
}

// nearest_in_slab: the nearest features of two cores apart along `normal`
// by `separation` (the SAT's axis and value, in A's frame): a hull and a
// hull, or a hull (A) and a segment (B). `xf_ab` takes B's points into
// A's frame, `xf_ba` A's into B's.
//
//   d_up  = |w - v| for the supports v of A along normal, w of B against it
//   slack = d_up - separation: the nearest points lie within it of each
//           core's extreme plane along normal
//   candidates among the vertices in that slab, the edges with an end in it
//   and the faces with a vertex in it: a vertex over a face, two edges
//   stop at the first within the tolerance of separation (the SAT's axis
//   is then the answer)
fn nearest_in_slab(a: HullRecord, b: HullRecord, xf_ab: Transform3, xf_ba: Transform3, normal: vec3<f32>, separation: f32, tolerance: f32, stands: f32) -> Nearest {
    let enough = separation + stands;
    var top_a = LOWEST;
    var support_a = 0u;
    for (var i = 0u; i < a.vertex_count; i++) {
        let h = dot3(normal, hull_vertex(a, i));
        if h > top_a {
            top_a = h;
            support_a = i;
        }
    }
    var low_b = HIGHEST;
    var support_b = 0u;
    for (var w = 0u; w < b.vertex_count; w++) {
        let h = dot3(normal, transform_point3(xf_ab, hull_vertex(b, w)));
        if h < low_b {
            low_b = h;
            support_b = w;
        }
    }
    let reach = length3(transform_point3(xf_ab, hull_vertex(b, support_b)) - hull_vertex(a, support_a));
    let slab = Slab(normal, top_a, low_b, keep(reach - separation) + tolerance);
    var nearest = no_nearest();
    // B's vertices over A's faces first (A's face wins a tie, as in the SAT).
    if !is_segment_core(a) {
        for (var face = 0u; face < a.face_count; face++) {
            if !face_in_slab(a, face, slab, true, xf_ab) {
                continue;
            }
            for (var w = 0u; w < b.vertex_count; w++) {
                let point = transform_point3(xf_ab, hull_vertex(b, w));
                if height_b(slab, point) < 0.0 {
                    continue;
                }
                let gap = over_face(a, face, point);
                if gap > 0.0 {
                    nearest = offer_nearest(nearest, gap, 3u, pack_axis(AXIS_FACE_A, face), tolerance);
                    if gap <= enough {
                        nearest.has_axis = false;
                        return nearest;
                    }
                }
            }
        }
    }
    if !is_segment_core(b) {
        for (var face = 0u; face < b.face_count; face++) {
            if !face_in_slab(b, face, slab, false, xf_ab) {
                continue;
            }
            for (var v = 0u; v < a.vertex_count; v++) {
                let vertex = hull_vertex(a, v);
                if height_a(slab, vertex) < 0.0 {
                    continue;
                }
                let gap = over_face(b, face, transform_point3(xf_ba, vertex));
                if gap > 0.0 {
                    nearest = offer_nearest(nearest, gap, 3u, pack_axis(AXIS_FACE_B, face), tolerance);
                    if gap <= enough {
                        nearest.has_axis = false;
                        return nearest;
                    }
                }
            }
        }
    }
    // Two edges, each with an end in the slab, unless their gap along the
    // normal alone puts them farther than the nearest so far.
    let gap_floor = keep(low_b - top_a) + 2.0 * slab.slack;
    for (var i = 0u; i < a.edge_count; i++) {
        let edge_a = hull_edge(a, i);
        let a0 = hull_vertex(a, edge_a.x);
        let a1 = hull_vertex(a, edge_a.y);
        let depth_a = max(height_a(slab, a0), height_a(slab, a1));
        if depth_a < 0.0 {
            continue;
        }
        for (var j = 0u; j < b.edge_count; j++) {
            let edge_b = hull_edge(b, j);
            let b0 = transform_point3(xf_ab, hull_vertex(b, edge_b.x));
            let b1 = transform_point3(xf_ab, hull_vertex(b, edge_b.y));
            let depth_b = max(height_b(slab, b0), height_b(slab, b1));
            if depth_b < 0.0 || keep(gap_floor - depth_a) - depth_b > nearest.distance + tolerance {
                continue;
            }
            if parallel(a1 - a0, b1 - b0) {
                // Each end against the other edge (rounded.rs says why).
                let q0 = closest_on_segment(b0, b1, a0);
                nearest = offer_nearest(nearest, length3(q0 - a0), 1u, pack_features(AXIS_VERTEX_EDGE, edge_a.x, j), tolerance);
                let q1 = closest_on_segment(b0, b1, a1);
                nearest = offer_nearest(nearest, length3(q1 - a1), 1u, pack_features(AXIS_VERTEX_EDGE, edge_a.y, j), tolerance);
                let p0 = closest_on_segment(a0, a1, b0);
                nearest = offer_nearest(nearest, length3(b0 - p0), 1u, pack_features(AXIS_EDGE_VERTEX, i, edge_b.x), tolerance);
                let p1 = closest_on_segment(a0, a1, b1);
                nearest = offer_nearest(nearest, length3(b1 - p1), 1u, pack_features(AXIS_EDGE_VERTEX, i, edge_b.y), tolerance);
                continue;
            }
            let points = closest_points_of_segments(a0, a1, b0, b1);
            let features = edge_pair_features(i, edge_a, j, edge_b, points.s, points.t);
            let distance = length3(points.on_b - points.on_a);
            nearest = offer_nearest(nearest, distance, features.x, features.y, tolerance);
            if features.x == 2u && distance <= enough {
                nearest.has_axis = false;
                return nearest;
            }
        }
    }
    return nearest;
}

// The support vertex of a hull (its points moved by `xf`) against
// `direction`: the first of the lowest `direction . p`.
fn support_against(hull: HullRecord, xf: Transform3, direction: vec3<f32>) -> vec3<f32> {
    var best = HIGHEST;
    var vertex = vec3<f32>(0.0);
    for (var i = 0u; i < hull.vertex_count; i++) {
        let p = transform_point3(xf, hull_vertex(hull, i));
        let h = dot3(direction, p);
        if h < best {
            best = h;
            vertex = p;
        }
    }
    return vertex;
}

// sat_feature_distance: the distance of the features that made a hull
// pair's SAT axis where they are nearest as a face of M (the other hull's
// support vertex over the inside of the face, or the two edges' inner
// closest points); negative where they are not.
fn sat_feature_distance(a: HullRecord, b: HullRecord, xf_ab: Transform3, xf_ba: Transform3, sat: PairResult, normal: vec3<f32>) -> f32 {
    let kind = sat.axis >> KIND_SHIFT;
    let index = sat.axis & INDEX_MASK;
    if kind == AXIS_FACE_A {
        let w = support_against(b, xf_ab, normal);
        return over_face(a, index, w);
    }
    if kind == AXIS_FACE_B {
        let identity = Transform3(vec3<f32>(0.0), Rot3(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0)));
        let v = support_against(a, identity, -normal);
        return over_face(b, index, transform_point3(xf_ba, v));
    }
    if kind == AXIS_EDGES {
        let edge_a = hull_edge(a, index >> EDGE_BITS);
        let edge_b = hull_edge(b, index & ((1u << EDGE_BITS) - 1u));
        let points = closest_points_of_segments(
            hull_vertex(a, edge_a.x),
            hull_vertex(a, edge_a.y),
            transform_point3(xf_ab, hull_vertex(b, edge_b.x)),
            transform_point3(xf_ab, hull_vertex(b, edge_b.y)),
        );
        if end_of(points.s) == INSIDE && end_of(points.t) == INSIDE {
            return length3(points.on_b - points.on_a);
        }
    }
    return -1.0;
}

// The same feature named from the other side (A's and B's roles swapped).
fn swapped(axis: u32) -> u32 {
    let kind = axis >> KIND_SHIFT;
    let index = axis & INDEX_MASK;
    let high = index >> EDGE_BITS;
    let low = index & ((1u << EDGE_BITS) - 1u);
    switch kind {
        case 0u: {
            return pack_axis(AXIS_FACE_B, index);
        }
        case 1u: {
            return pack_axis(AXIS_FACE_A, index);
        }
        case 2u, 10u: {
            return pack_features(kind, low, high);
        }
        case 8u: {
            return pack_features(AXIS_EDGE_VERTEX, low, high);
        }
        case 9u: {
            return pack_features(AXIS_VERTEX_EDGE, low, high);
        }
        default: {
            return axis;
        }
    }
}

// A hull against a segment core (`segment`'s points moved into the hull's
// frame by `xf`); `owner_b` when the hull is body B. The SAT of the
// segment, then, apart, the nearest features.
//
//   face = the hull's best face against the nearer end      # stop if >= limit
//   edge = the best edge x segment axis, where the arcs cross # stop if >= limit
//   axis = edge if it beats the face by the edge tolerance, else the face
fn collide_hull_segment(hull: HullRecord, segment: HullRecord, xf: Transform3, owner_b: bool, core_a: HullRecord, core_b: HullRecord, xf_ab: Transform3, radii: f32, tolerance: f32, edge_tolerance: f32, margin: f32) -> PairResult {
    let limit = margin + radii;
    let s0 = transform_point3(xf, hull_vertex(segment, 0u));
    let s1 = transform_point3(xf, hull_vertex(segment, 1u));
    var face = Separation(LOWEST, 0u);
    for (var f = 0u; f < hull.face_count; f++) {
        let plane = hull_plane(hull, f);
        let separation = min(dot3(plane.xyz, s0), dot3(plane.xyz, s1)) - plane.w;
        if separation > face.value + tolerance {
            face = Separation(separation, f);
        }
        if separation >= limit {
            return PairResult(false, 0u, separation);
        }
    }
    let along = s1 - s0;
    var edge = Separation(LOWEST, 0u);
    for (var e = 0u; e < hull.edge_count; e++) {
        let record = edge_bound_record(hull, e);
        let u = record.u_plane.xyz;
        let v = record.v_plane.xyz;
        if !(dot3(u, along) * dot3(v, along) < 0.0) {
            continue;
        }
        let axis = segment_edge_axis(hull, e, u, v, along);
        if axis.w == 0.0 {
            continue;
        }
        let separation = dot3(axis.xyz, s0 - hull_vertex(hull, hull_edge(hull, e).x));
        if separation > edge.value + tolerance {
            edge = Separation(separation, e);
        }
        if separation >= limit {
            return PairResult(false, 0u, separation);
        }
    }
    var sat = PairResult(true, pack_axis(select(AXIS_FACE_A, AXIS_FACE_B, owner_b), face.index), face.value);
    if edge.value > face.value + edge_tolerance {
        sat = PairResult(true, select(pack_features(AXIS_EDGES, edge.index, 0u), pack_features(AXIS_EDGES, 0u, edge.index), owner_b), edge.value);
    }
    var nearest = no_nearest();
    if sat.separation > 0.0 {
        // In the hull's frame, the hull as A: the SAT's own feature first,
        // then the slab.
        let on_edge = (sat.axis >> KIND_SHIFT) == AXIS_EDGES;
        var normal = hull_plane(hull, face.index).xyz;
        var fast = -1.0;
        if on_edge {
            let crossing = hull_segment_axis(hull, edge.index, along);
            normal = select(vec3<f32>(1.0, 0.0, 0.0), crossing.xyz, crossing.w != 0.0);
            let ends = hull_edge(hull, edge.index);
            let points = closest_points_of_segments(hull_vertex(hull, ends.x), hull_vertex(hull, ends.y), s0, s1);
            if end_of(points.s) == INSIDE && end_of(points.t) == INSIDE {
                fast = length3(points.on_b - points.on_a);
            }
        } else {
            let deeper = select(s0, s1, dot3(normal, s1) < dot3(normal, s0));
            fast = over_face(hull, face.index, deeper);
        }
        let stands = select(tolerance, edge_tolerance, !on_edge);
        if fast >= 0.0 && fast <= sat.separation + stands {
            nearest = Nearest(fast, 2u, false, 0u);
        } else {
            let identity = Transform3(vec3<f32>(0.0), Rot3(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0)));
            nearest = nearest_in_slab(hull, segment, xf, identity, normal, sat.separation, tolerance, stands);
            if owner_b {
                nearest.axis = swapped(nearest.axis);
            }
        }
    }
    return finish_rounded(core_a, core_b, xf_ab, sat, nearest, radii, tolerance, edge_tolerance, margin);
}

// One pair of which at least one shape has a radius or a segment core (a
// capsule or a rounded hull), given B's frame in A's and A's in B's.
//
//   R = r_a + r_b, limit = margin + R
//   hull, hull:       the hulls' SAT to the limit; apart, the slab's nearest features
//   hull, segment:    collide_hull_segment in the hull's frame
//   hull, point:      the sphere's test with the radius R
//   segment, segment: segment_pair
//   segment, point:   the point's closest point on the segment
fn collide_rounded(a: HullRecord, b: HullRecord, xf_ab: Transform3, xf_ba: Transform3, tolerance: f32, edge_tolerance: f32, margin: f32) -> PairResult {
    let radii = a.radius + b.radius;
    let point_a = is_point_core(a);
    let point_b = is_point_core(b);
    let segment_a = is_segment_core(a);
    let segment_b = is_segment_core(b);
    let hull_a = !point_a && !segment_a;
    let hull_b = !point_b && !segment_b;
    if hull_a && hull_b {
        let sat = collide_hulls_hardware(a, b, xf_ab, xf_ba, tolerance, edge_tolerance, margin + radii, false, false);
        if !sat.reported {
            return sat;
        }
        var nearest = no_nearest();
        if sat.separation > 0.0 {
            let normal = hull_pair_axis(a, b, xf_ab, sat.axis);
            let stands = select(tolerance, edge_tolerance, axis_is_face(sat.axis));
            let distance = sat_feature_distance(a, b, xf_ab, xf_ba, sat, normal);
            if distance >= 0.0 && distance <= sat.separation + stands {
                nearest = Nearest(distance, 2u, false, 0u);
            } else {
                nearest = nearest_in_slab(a, b, xf_ab, xf_ba, normal, sat.separation, tolerance, stands);
            }
        }
        return finish_rounded(a, b, xf_ab, sat, nearest, radii, tolerance, edge_tolerance, margin);
    }
    if (hull_a && segment_b) || (segment_a && hull_b) {
        return collide_hull_capsule(a, b, xf_ab, xf_ba, tolerance, edge_tolerance, margin);
    }
    if hull_a && point_b {
        return collide_hull_sphere(a, xf_ab.p, radii, false, tolerance, margin);
    }
    if point_a && hull_b {
        return collide_hull_sphere(b, xf_ba.p, radii, true, tolerance, margin);
    }
    return collide_segment_cores(a, b, xf_ab, xf_ba, margin);
}

// A hull core and a segment core, either way round: collide_hull_segment
// in the hull's frame (`collide_rounded`'s case, and the entry point
// "hull_capsule").
fn collide_hull_capsule(a: HullRecord, b: HullRecord, xf_ab: Transform3, xf_ba: Transform3, tolerance: f32, edge_tolerance: f32, margin: f32) -> PairResult {
    let radii = a.radius + b.radius;
    if is_segment_core(a) {
        return collide_hull_segment(b, a, xf_ba, true, a, b, xf_ab, radii, tolerance, edge_tolerance, margin);
    }
    return collide_hull_segment(a, b, xf_ab, false, a, b, xf_ab, radii, tolerance, edge_tolerance, margin);
}

// The pairs of segment and point cores (capsules with capsules and
// spheres): `collide_rounded`'s last cases, and the entry point
// "capsules", whose pairs take no hull core.
//
//   segment, segment: segment_pair
//   segment, point:   the point's closest point on the segment
fn collide_segment_cores(a: HullRecord, b: HullRecord, xf_ab: Transform3, xf_ba: Transform3, margin: f32) -> PairResult {
    let radii = a.radius + b.radius;
    let segment_a = is_segment_core(a);
    let segment_b = is_segment_core(b);
    if segment_a && segment_b {
        let a0 = hull_vertex(a, 0u);
        let a1 = hull_vertex(a, 1u);
        let found = segment_pair(a0, a1, transform_point3(xf_ab, hull_vertex(b, 0u)), transform_point3(xf_ab, hull_vertex(b, 1u)));
        if found.axis != pack_features(AXIS_EDGES, 0u, 0u) {
            return finish_feature(a, b, xf_ab, found.axis, radii, margin);
        }
        let separation = found.pair.distance - radii;
        return PairResult(separation < margin, found.axis, separation);
    }
    if segment_a {
        let end = end_of(segment_parameter(hull_vertex(a, 0u), hull_vertex(a, 1u), xf_ab.p));
        let axis = select(pack_features(AXIS_VERTICES, end, 0u), pack_features(AXIS_EDGE_VERTEX, 0u, 0u), end == INSIDE);
        return finish_feature(a, b, xf_ab, axis, radii, margin);
    }
    if segment_b {
        let end = end_of(segment_parameter(hull_vertex(b, 0u), hull_vertex(b, 1u), xf_ba.p));
        let axis = select(pack_features(AXIS_VERTICES, 0u, end), pack_features(AXIS_VERTEX_EDGE, 0u, 0u), end == INSIDE);
        return finish_feature(a, b, xf_ab, axis, radii, margin);
    }
    return collide_spheres(xf_ab.p, a.radius, b.radius, margin);
}

// The pair functions of the three entry points: any pair with a radius
// ("rounded": two hull cores, a rounded hull and a sphere), a hull core and
// a segment core either way round ("hull_capsule"), segment and point
// cores ("capsules"). Each entry point holds only its pairs' code: a SIMD
// group or a warp of capsules runs no hull loop.

fn rounded_pair(pair: Pair) -> PairResult {
    let p = hull_pair_frames(pair);
    return collide_rounded(p.hull_a, p.hull_b, p.xf_ab, p.xf_ba, p.tolerance, p.edge_tolerance, params.margin);
}

fn hull_capsule_pair(pair: Pair) -> PairResult {
    let p = hull_pair_frames(pair);
    return collide_hull_capsule(p.hull_a, p.hull_b, p.xf_ab, p.xf_ba, p.tolerance, p.edge_tolerance, params.margin);
}

fn capsules_pair(pair: Pair) -> PairResult {
    let xf_a = body_transform(pair.a);
    let xf_b = body_transform(pair.b);
    return collide_segment_cores(body_shape(pair.a), body_shape(pair.b), inv_mul_transforms3(xf_a, xf_b), inv_mul_transforms3(xf_b, xf_a), params.margin);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn rounded(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, rounded_pair(task.pair));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hull_capsule(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hull_capsule_pair(task.pair));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn capsules(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, capsules_pair(task.pair));
}
