// The SAT narrowphase: one candidate pair per invocation.
//
// This is the twin of src/sat.rs: the same functions with the same names, in
// the same order, doing the same operations in the same order, so that a
// difference between the two can be found by reading them side by side. The
// conventions (frames, normal, axis features, the tie rule, the early exit)
// are documented there.
//
// Output is compacted on the GPU: each workgroup counts its reported pairs,
// one invocation reserves room for all of them with a single atomicAdd on the
// global counter, and each writes its record at its place in the group's
// block. Within a block the records are in pair order; the host puts the
// blocks in order. The counter keeps counting past `capacity`, so the host
// sees an overflow and re-runs with room instead of losing results.

// Mirrors of src/gpu/layout.rs and src/shape.rs, checked against naga's
// layout by tests/gpu_layout.rs.
struct ShapeRecord {
    first: u32,
    count: u32,      // 0 marks a circle
    radius: f32,
    size: f32,
}

struct BodyRecord {
    position: vec2<f32>,
    rotation: vec2<f32>, // (cos, sin)
    shape: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct Pair {
    a: u32,
    b: u32,
}

struct HitRecord {
    pair: u32,
    axis: u32,       // bit 31: owner B; below: the feature
    depth: f32,
    _pad: u32,
}

struct Params {
    pair_base: u32,  // index of this window's first pair in the batch
    pair_count: u32, // pairs in this window
    groups_x: u32,   // workgroups along x in the 2D dispatch
    capacity: u32,   // records the output can hold
    margin: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> shapes: array<ShapeRecord>;
// Each edge: vertex in .xy, the outward unit normal of the edge starting there in .zw.
@group(0) @binding(2) var<storage, read> edges: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> bodies: array<BodyRecord>;
@group(0) @binding(4) var<storage, read> pairs: array<Pair>;
@group(0) @binding(5) var<storage, read_write> hits: array<HitRecord>;
@group(0) @binding(6) var<storage, read_write> counter: atomic<u32>;

override WORKGROUP_SIZE: u32 = 64u;
// Workgroup arrays need a constant size: the largest WORKGROUP_SIZE allowed.
const MAX_WORKGROUP_SIZE: u32 = 256u;

const TIE_TOLERANCE: f32 = 2.0e-6;
const LOWEST: f32 = -3.40282347e38;
const HIGHEST: f32 = 3.40282347e38;
const OWNER_B_BIT: u32 = 0x80000000u;

struct Transform {
    p: vec2<f32>,
    q: vec2<f32>, // (cos, sin)
}

struct Separation {
    value: f32,
    edge: u32,
}

struct PairResult {
    reported: bool,
    axis: u32,
    separation: f32,
}

// Written out rather than dot() and length(), so the order of operations is
// the CPU's.
fn dot2(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return a.x * b.x + a.y * b.y;
}

fn length2(v: vec2<f32>) -> f32 {
    return sqrt(v.x * v.x + v.y * v.y);
}

fn rotate(q: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(q.x * v.x - q.y * v.y, q.y * v.x + q.x * v.y);
}

fn inv_rotate(q: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(q.x * v.x + q.y * v.y, -q.y * v.x + q.x * v.y);
}

// The translation is added before the second product: lavapipe reassociates
// `(a - b) + p` into `(a + p) - b` (measured), so writing it in that order
// keeps more results bit-identical to the CPU twin. Other compilers may
// reassociate or fuse differently; results are compared with tolerances.
fn transform_point(xf: Transform, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(
        (xf.q.x * v.x + xf.p.x) - xf.q.y * v.y,
        (xf.q.y * v.x + xf.p.y) + xf.q.x * v.y,
    );
}

// a^-1 * b: takes points from B's local frame into A's.
fn inv_mul_transforms(a: Transform, b: Transform) -> Transform {
    let q = vec2<f32>(a.q.x * b.q.x + a.q.y * b.q.y, a.q.x * b.q.y - a.q.y * b.q.x);
    let d = b.p - a.p;
    return Transform(inv_rotate(a.q, d), q);
}

fn make_axis(owner_b: bool, feature: u32) -> u32 {
    return select(feature, feature | OWNER_B_BIT, owner_b);
}

// best = (LOWEST, 0)
// for each edge i of poly1:
//     n, v   = normal and vertex of edge i, moved into poly2's frame by xf
//     offset = dot(n, v)
//     s      = min over vertices w of poly2 of (n.x w.x - offset) + n.y w.y
//     if s > best.value + tolerance: best = (s, i)      # the tie rule
//     if s >= limit: return (s, i)                      # separated: stop
// return best
fn find_max_separation(
    poly1: ShapeRecord,
    poly2: ShapeRecord,
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    var best = Separation(LOWEST, 0u);
    for (var i = 0u; i < poly1.count; i++) {
        let edge = edges[poly1.first + i];
        let normal = rotate(xf.q, edge.zw);
        let vertex = transform_point(xf, edge.xy);
        let offset = dot2(normal, vertex);
        var separation = HIGHEST;
        // dot(normal, other) - offset, with the loop-invariant offset taken
        // off the first product: the order lavapipe's compiler chooses
        // (measured), written out so that the CPU twin can match it bit for bit.
        for (var j = 0u; j < poly2.count; j++) {
            let other = edges[poly2.first + j].xy;
            separation = min(separation, (normal.x * other.x - offset) + normal.y * other.y);
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

fn collide_polygons(
    poly_a: ShapeRecord,
    poly_b: ShapeRecord,
    xf_ab: Transform,
    xf_ba: Transform,
    tolerance: f32,
    margin: f32,
) -> PairResult {
    let separation_a = find_max_separation(poly_a, poly_b, xf_ba, tolerance, margin);
    if separation_a.value >= margin {
        return PairResult(false, 0u, 0.0);
    }
    let separation_b = find_max_separation(poly_b, poly_a, xf_ab, tolerance, margin);
    if separation_b.value >= margin {
        return PairResult(false, 0u, 0.0);
    }
    if separation_b.value > separation_a.value + tolerance {
        return PairResult(true, make_axis(true, separation_b.edge), separation_b.value);
    } else {
        return PairResult(true, make_axis(false, separation_a.edge), separation_a.value);
    }
}

// (s, i) = max over faces of dot(n_i, centre) - dot(n_i, v_i)   # tie rule, early exit
// if s > 0:                       # centre outside the polygon
//     if centre is before v_i along edge i:      vertex region of v_i
//     elif centre is past v_i+1 along edge i:    vertex region of v_i+1
// separation = (distance to that vertex, or s) - radius
fn collide_polygon_circle(
    poly: ShapeRecord,
    centre: vec2<f32>,
    radius: f32,
    owner_b: bool,
    tolerance: f32,
    margin: f32,
) -> PairResult {
    let count = poly.count;
    let limit = margin + radius;
    var best = Separation(LOWEST, 0u);
    for (var i = 0u; i < count; i++) {
        let edge = edges[poly.first + i];
        let offset = dot2(edge.zw, edge.xy);
        // dot(normal, centre) - offset, in lavapipe's order (as above).
        let separation = (edge.z * centre.x - offset) + edge.w * centre.y;
        if separation > best.value + tolerance {
            best = Separation(separation, i);
        }
        if separation >= limit {
            return PairResult(false, 0u, 0.0);
        }
    }

    return finish_polygon_circle(poly, centre, radius, owner_b, margin, best);
}

// The end of collide_polygon_circle, once the best face is known: the vertex
// regions, then the reporting test.
fn finish_polygon_circle(
    poly: ShapeRecord,
    centre: vec2<f32>,
    radius: f32,
    owner_b: bool,
    margin: f32,
    best: Separation,
) -> PairResult {
    let count = poly.count;
    var feature = best.edge;
    var distance = best.value;
    if best.value > 0.0 {
        let i1 = best.edge;
        let i2 = select(0u, i1 + 1u, i1 + 1u < count);
        let v1 = edges[poly.first + i1].xy;
        let v2 = edges[poly.first + i2].xy;
        let u1 = dot2(centre - v1, v2 - v1);
        let u2 = dot2(centre - v2, v1 - v2);
        if u1 < 0.0 {
            let to_vertex = length2(centre - v1);
            if to_vertex > 0.0 {
                feature = count + i1;
                distance = to_vertex;
            }
        } else if u2 < 0.0 {
            let to_vertex = length2(centre - v2);
            if to_vertex > 0.0 {
                feature = count + i2;
                distance = to_vertex;
            }
        }
    }
    let separation = distance - radius;
    if separation >= margin {
        return PairResult(false, 0u, 0.0);
    }
    return PairResult(true, make_axis(owner_b, feature), separation);
}

fn collide_circles(centre: vec2<f32>, radius_a: f32, radius_b: f32, margin: f32) -> PairResult {
    let separation = length2(centre) - (radius_a + radius_b);
    if separation >= margin {
        return PairResult(false, 0u, 0.0);
    }
    return PairResult(true, make_axis(false, 0u), separation);
}

fn collide_pair(
    xf_a: Transform,
    xf_b: Transform,
    shape_a: ShapeRecord,
    shape_b: ShapeRecord,
    margin: f32,
) -> PairResult {
    let xf_ab = inv_mul_transforms(xf_a, xf_b);
    let xf_ba = inv_mul_transforms(xf_b, xf_a);
    let tolerance = TIE_TOLERANCE * (shape_a.size + shape_b.size);
    let polygon_a = shape_a.count > 0u;
    let polygon_b = shape_b.count > 0u;
    if polygon_a && polygon_b {
        return collide_polygons(shape_a, shape_b, xf_ab, xf_ba, tolerance, margin);
    } else if polygon_a {
        return collide_polygon_circle(shape_a, xf_ab.p, shape_b.radius, false, tolerance, margin);
    } else if polygon_b {
        return collide_polygon_circle(shape_b, xf_ba.p, shape_a.radius, true, tolerance, margin);
    }
    return collide_circles(xf_ab.p, shape_a.radius, shape_b.radius, margin);
}

fn body_transform(body: BodyRecord) -> Transform {
    return Transform(body.position, body.rotation);
}

// Per invocation: 1 if its pair is reported, turned into its slot in the group.
var<workgroup> group_slots: array<u32, MAX_WORKGROUP_SIZE>;
var<workgroup> group_base: u32;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = (group.y * params.groups_x + group.x) * WORKGROUP_SIZE + local;
    // No early return: every invocation must reach the barriers below.
    var result = PairResult(false, 0u, 0.0);
    if index < params.pair_count {
        let pair = pairs[index];
        let body_a = bodies[pair.a];
        let body_b = bodies[pair.b];
        result = collide_pair(
            body_transform(body_a),
            body_transform(body_b),
            shapes[body_a.shape],
            shapes[body_b.shape],
            params.margin,
        );
    }

    group_slots[local] = select(0u, 1u, result.reported);
    workgroupBarrier();
    if local == 0u {
        // Exclusive prefix sum, in invocation order: deterministic slots.
        var running = 0u;
        for (var i = 0u; i < WORKGROUP_SIZE; i++) {
            let flag = group_slots[i];
            group_slots[i] = running;
            running += flag;
        }
        var base = 0u;
        if running > 0u {
            base = atomicAdd(&counter, running);
        }
        group_base = base;
    }
    workgroupBarrier();

    if result.reported {
        let slot = group_base + group_slots[local];
        if slot < params.capacity {
            hits[slot] = HitRecord(params.pair_base + index, result.axis, -result.separation, 0u);
        }
    }
}
