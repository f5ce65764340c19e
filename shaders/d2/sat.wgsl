// The SAT narrowphase: one candidate pair per invocation.
//
// This is the twin of src/sat/ (separation.rs, polygons.rs, merged.rs,
// polygon_circle.rs, circles.rs, straight.rs, pair.rs, in that order): the
// same functions with the same names, doing the same operations in the same
// order, so that a difference between the two can be found by reading them
// side by side. The conventions (frames, normal, axis features, the tie rule,
// the early exit) are documented in src/d2/sat/mod.rs.
//
// Data. The shapes and bodies that invocations read at scattered places are
// textures, because gathers through the texture path measured 2.4 times
// faster than through storage buffers on lavapipe: the shape library's
// edges (one rgba32float texel per vertex: vertex.xy, normal.zw) and, per
// body, its transform (rgba32float: position, cos, sin) and its shape's
// record (rgba32uint: first, count, radius bits, size bits; copied per body
// so that no lookup depends on another). Texel i is at (i % 2048, i / 2048).
// The pairs (read in order) and the output are storage buffers.
//
// Shape of the code. Polygons of up to 8 vertices, the common case, take a
// straight-line path (`*8` functions): each polygon read once into values,
// every face separation computed without a loop. Loops whose state is
// carried from one iteration to the next, and reads inside them, ran five
// times slower on lavapipe. Polygons of 9 to 16 vertices take the same
// path twice over (`*16`); larger ones loop, or merge above the threshold.
//
// Loaded after batch.wgsl (the pairs, the compacted output, the parameters,
// the entry points' prologue and epilogue), which the 3D kernel shares.

// Mirror of src/d2/shape/set.rs, checked against naga's layout by tests/it/gpu/layout.rs.
struct ShapeRecord {
    first: u32,
    count: u32,      // 0 marks a circle
    radius: f32,
    size: f32,
}

@group(0) @binding(1) var edges: texture_2d<f32>;
@group(0) @binding(2) var body_transforms: texture_2d<f32>;
@group(0) @binding(3) var body_shapes: texture_2d<u32>;

const TIE_TOLERANCE: f32 = 2.0e-6;
const OWNER_B_BIT: u32 = 0x80000000u;

struct Transform {
    p: vec2<f32>,
    q: vec2<f32>, // (cos, sin)
}

struct Separation {
    value: f32,
    edge: u32,
}

// Edge `index` of the shape library: vertex in .xy, normal in .zw.
fn edge(index: u32) -> vec4<f32> {
    return textureLoad(edges, texel(index), 0);
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
// keeps the results bit-identical to the CPU twin. Other compilers may
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

const NOT_REPORTED = PairResult(false, 0u, 0.0);

// One face moved into the other polygon's frame by xf: its normal (xy) and
// dot(normal, vertex) (z).
fn face_plane(face: vec4<f32>, xf: Transform) -> vec3<f32> {
    let normal = rotate(xf.q, face.zw);
    let vertex = transform_point(xf, face.xy);
    return vec3<f32>(normal, dot2(normal, vertex));
}

// The end of every polygon–polygon test: nothing when either side separates
// by the margin, else B's axis only when it is better by more than the
// tolerance (the tie rule).
fn choose_polygon_axis(separation_a: Separation, separation_b: Separation, tolerance: f32, margin: f32) -> PairResult {
    if separation_a.value >= margin || separation_b.value >= margin {
        return NOT_REPORTED;
    }
    if separation_b.value > separation_a.value + tolerance {
        return PairResult(true, make_axis(true, separation_b.edge), separation_b.value);
    } else {
        return PairResult(true, make_axis(false, separation_a.edge), separation_a.value);
    }
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
        let face = edge(poly1.first + i);
        let normal = rotate(xf.q, face.zw);
        let vertex = transform_point(xf, face.xy);
        let offset = dot2(normal, vertex);
        var separation = HIGHEST;
        // dot(normal, other) - offset, with the loop-invariant offset taken
        // off the first product: the order lavapipe's compiler chooses
        // (measured), written out so that the CPU twin can match it bit for bit.
        for (var j = 0u; j < poly2.count; j++) {
            let other = edge(poly2.first + j).xy;
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

// dot(normal, w) - offset for vertex j of poly, in the loop's order.
fn vertex_separation(poly: ShapeRecord, face: vec3<f32>, j: u32) -> f32 {
    let w = edge(poly.first + j).xy;
    return (face.x * w.x - face.z) + face.y * w.y;
}

// From vertex `start`, walks forward while the next vertex lies no higher
// along the face's normal: a lowest vertex.
fn descend(poly: ShapeRecord, face: vec3<f32>, start: u32) -> u32 {
    var j = start;
    var height = vertex_separation(poly, face, j);
    for (var step = 1u; step < poly.count; step++) {
        let next = select(0u, j + 1u, j + 1u < poly.count);
        let next_height = vertex_separation(poly, face, next);
        if next_height > height {
            break;
        }
        j = next;
        height = next_height;
    }
    return j;
}

// find_max_separation in O(n + m) for large polygons (src/d2/sat/merged.rs explains):
// the faces of poly1 in groups of 8, each against the window of poly2's
// vertices from the previous group's last face's lowest vertex to this
// group's last face's.
fn find_max_separation_merged(
    poly1: ShapeRecord,
    poly2: ShapeRecord,
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let count2 = poly2.count;
    let first_face = face_plane(edge(poly1.first), xf);
    var low = 0u;
    var lowest = vertex_separation(poly2, first_face, 0u);
    for (var j = 1u; j < count2; j++) {
        let height = vertex_separation(poly2, first_face, j);
        if height < lowest {
            low = j;
            lowest = height;
        }
    }
    var best = Separation(LOWEST, 0u);
    for (var group_start = 0u; group_start < poly1.count; group_start += 8u) {
        let group_end = min(group_start + 8u, poly1.count);
        let start = low;
        let end = descend(poly2, face_plane(edge(poly1.first + group_end - 1u), xf), start);
        let window = (end + count2 - start) % count2 + 1u;
        for (var i = group_start; i < group_end; i++) {
            let face = face_plane(edge(poly1.first + i), xf);
            var separation = HIGHEST;
            for (var k = 0u; k < window; k++) {
                let j = select(start + k - count2, start + k, start + k < count2);
                separation = min(separation, vertex_separation(poly2, face, j));
            }
            if separation > best.value + tolerance {
                best = Separation(separation, i);
            }
            if separation >= limit {
                return Separation(separation, i);
            }
        }
        low = end;
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
    let merge = poly_a.count > params.merge_threshold && poly_b.count > params.merge_threshold;
    var separation_a: Separation;
    if merge {
        separation_a = find_max_separation_merged(poly_a, poly_b, xf_ba, tolerance, margin);
    } else {
        separation_a = find_max_separation(poly_a, poly_b, xf_ba, tolerance, margin);
    }
    if separation_a.value >= margin {
        return NOT_REPORTED;
    }
    var separation_b: Separation;
    if merge {
        separation_b = find_max_separation_merged(poly_b, poly_a, xf_ab, tolerance, margin);
    } else {
        separation_b = find_max_separation(poly_b, poly_a, xf_ab, tolerance, margin);
    }
    return choose_polygon_axis(separation_a, separation_b, tolerance, margin);
}

// One face of collide_polygon_circle: the centre's distance beyond it.
fn circle_face_separation(face: vec4<f32>, centre: vec2<f32>) -> f32 {
    let offset = dot2(face.zw, face.xy);
    return (face.z * centre.x - offset) + face.w * centre.y;
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
        let face = edge(poly.first + i);
        let offset = dot2(face.zw, face.xy);
        // dot(normal, centre) - offset, in lavapipe's order (as above).
        let separation = (face.z * centre.x - offset) + face.w * centre.y;
        if separation > best.value + tolerance {
            best = Separation(separation, i);
        }
        if separation >= limit {
            return NOT_REPORTED;
        }
    }
    return finish_polygon_circle(poly, centre, radius, owner_b, margin, best);
}

// The end of collide_polygon_circle, once the best face is known: the vertex
// regions, then the reporting test.
// From the vertex at the end of the chosen face that the centre lies beyond,
// walk along the outline (forward or back) to the feature whose region holds
// the centre: that vertex, the face past it (its separation when the centre
// lies over its edge and outside it), or on. The tie rule may choose a face
// up to the tolerance below the best, and then the centre can lie past its
// end in a neighbour's region.
struct Region {
    feature: u32,
    distance: f32,
}

fn walk_to_region(poly: ShapeRecord, centre: vec2<f32>, start: u32, forward: bool) -> Region {
    let count = poly.count;
    var vertex = start;
    for (var step = 0u; step < count; step++) {
        let previous = select(count - 1u, vertex - 1u, vertex > 0u);
        let next = select(0u, vertex + 1u, vertex + 1u < count);
        let face = select(previous, vertex, forward);
        let far = select(previous, next, forward);
        let near_point = edge(poly.first + vertex).xy;
        let far_point = edge(poly.first + far).xy;
        if dot2(centre - near_point, far_point - near_point) <= 0.0 {
            break;
        }
        if dot2(centre - far_point, near_point - far_point) > 0.0 {
            let separation = circle_face_separation(edge(poly.first + face), centre);
            if separation > 0.0 {
                return Region(face, separation);
            }
            break;
        }
        vertex = far;
    }
    return Region(count + vertex, length2(centre - edge(poly.first + vertex).xy));
}

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
        let v1 = edge(poly.first + i1).xy;
        let v2 = edge(poly.first + i2).xy;
        let u1 = dot2(centre - v1, v2 - v1);
        let u2 = dot2(centre - v2, v1 - v2);
        if u1 < 0.0 || u2 < 0.0 {
            let region = walk_to_region(poly, centre, select(i2, i1, u1 < 0.0), u1 >= 0.0);
            if region.distance > 0.0 {
                feature = region.feature;
                distance = region.distance;
            }
        }
    }
    let separation = distance - radius;
    if separation >= margin {
        return NOT_REPORTED;
    }
    return PairResult(true, make_axis(owner_b, feature), separation);
}

fn collide_circles(centre: vec2<f32>, radius_a: f32, radius_b: f32, margin: f32) -> PairResult {
    let separation = length2(centre) - (radius_a + radius_b);
    if separation >= margin {
        return NOT_REPORTED;
    }
    return PairResult(true, make_axis(false, 0u), separation);
}

// ---- Polygons of up to 8 vertices: straight-line code ----------------------
// Each polygon is read once into values, padded to 8 by repeating its last
// vertex (harmless to a minimum), and every face separation is computed
// without a loop; faces past the count are left out of the scan. The values
// are those of the looped functions above, operation for operation, and the
// scan gives what their face-by-face loop gives.

struct Faces8 {
    f0: vec4<f32>, f1: vec4<f32>, f2: vec4<f32>, f3: vec4<f32>,
    f4: vec4<f32>, f5: vec4<f32>, f6: vec4<f32>, f7: vec4<f32>,
}

fn load_faces8(shape: ShapeRecord) -> Faces8 {
    let first = shape.first;
    let last = shape.count - 1u;
    return Faces8(
        edge(first), edge(first + min(1u, last)), edge(first + min(2u, last)), edge(first + min(3u, last)),
        edge(first + min(4u, last)), edge(first + min(5u, last)), edge(first + min(6u, last)), edge(first + min(7u, last)),
    );
}

// `start` lowered to the least separation of 8 vertices from a face plane,
// in the vertices' order.
fn vertex_min8(start: f32, plane: vec3<f32>, other: Faces8) -> f32 {
    let normal = plane.xy;
    let offset = plane.z;
    var separation = start;
    separation = min(separation, (normal.x * other.f0.x - offset) + normal.y * other.f0.y);
    separation = min(separation, (normal.x * other.f1.x - offset) + normal.y * other.f1.y);
    separation = min(separation, (normal.x * other.f2.x - offset) + normal.y * other.f2.y);
    separation = min(separation, (normal.x * other.f3.x - offset) + normal.y * other.f3.y);
    separation = min(separation, (normal.x * other.f4.x - offset) + normal.y * other.f4.y);
    separation = min(separation, (normal.x * other.f5.x - offset) + normal.y * other.f5.y);
    separation = min(separation, (normal.x * other.f6.x - offset) + normal.y * other.f6.y);
    separation = min(separation, (normal.x * other.f7.x - offset) + normal.y * other.f7.y);
    return separation;
}

// One face of find_max_separation: min over the 8 vertices of `other`.
fn face_separation8(face: vec4<f32>, xf: Transform, other: Faces8) -> f32 {
    return vertex_min8(HIGHEST, face_plane(face, xf), other);
}

// The tie rule and the limit test of one face, without branches. Whether
// some face reached the limit is carried in bit 31 of `best.edge`.
fn scan_face8(best: Separation, value: f32, face: u32, count: u32, tolerance: f32, limit: f32) -> Separation {
    let live = face < count;
    let take = live && value > best.value + tolerance;
    let reached = select(0u, OWNER_B_BIT, live && value >= limit);
    return Separation(select(best.value, value, take), select(best.edge, face, take) | reached);
}

// The reached-the-limit flag made into a separation at or past the limit.
fn settle8(best: Separation) -> Separation {
    let reached = (best.edge & OWNER_B_BIT) != 0u;
    return Separation(select(best.value, HIGHEST, reached), best.edge & ~OWNER_B_BIT);
}

fn find_max_separation8(faces1: Faces8, count1: u32, faces2: Faces8, xf: Transform, tolerance: f32, limit: f32) -> Separation {
    var best = Separation(LOWEST, 0u);
    best = scan_face8(best, face_separation8(faces1.f0, xf, faces2), 0u, count1, tolerance, limit);
    best = scan_face8(best, face_separation8(faces1.f1, xf, faces2), 1u, count1, tolerance, limit);
    best = scan_face8(best, face_separation8(faces1.f2, xf, faces2), 2u, count1, tolerance, limit);
    best = scan_face8(best, face_separation8(faces1.f3, xf, faces2), 3u, count1, tolerance, limit);
    best = scan_face8(best, face_separation8(faces1.f4, xf, faces2), 4u, count1, tolerance, limit);
    best = scan_face8(best, face_separation8(faces1.f5, xf, faces2), 5u, count1, tolerance, limit);
    best = scan_face8(best, face_separation8(faces1.f6, xf, faces2), 6u, count1, tolerance, limit);
    best = scan_face8(best, face_separation8(faces1.f7, xf, faces2), 7u, count1, tolerance, limit);
    return settle8(best);
}

fn collide_polygons8(
    poly_a: ShapeRecord,
    poly_b: ShapeRecord,
    xf_ab: Transform,
    xf_ba: Transform,
    tolerance: f32,
    margin: f32,
) -> PairResult {
    let faces_a = load_faces8(poly_a);
    let faces_b = load_faces8(poly_b);
    let separation_a = find_max_separation8(faces_a, poly_a.count, faces_b, xf_ba, tolerance, margin);
    let separation_b = find_max_separation8(faces_b, poly_b.count, faces_a, xf_ab, tolerance, margin);
    return choose_polygon_axis(separation_a, separation_b, tolerance, margin);
}

fn collide_polygon_circle8(
    poly: ShapeRecord,
    centre: vec2<f32>,
    radius: f32,
    owner_b: bool,
    tolerance: f32,
    margin: f32,
) -> PairResult {
    let faces = load_faces8(poly);
    let count = poly.count;
    let limit = margin + radius;
    var best = Separation(LOWEST, 0u);
    best = scan_face8(best, circle_face_separation(faces.f0, centre), 0u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.f1, centre), 1u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.f2, centre), 2u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.f3, centre), 3u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.f4, centre), 4u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.f5, centre), 5u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.f6, centre), 6u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.f7, centre), 7u, count, tolerance, limit);
    let settled = settle8(best);
    if settled.value >= limit {
        return NOT_REPORTED;
    }
    return finish_polygon_circle(poly, centre, radius, owner_b, margin, settled);
}

// ---- Polygons of 9 to 16 vertices: straight-line code, twice over ----------
// The `*8` idea for the next size up: each polygon read as two groups of 8
// (padded by repeating its last vertex), each face's minimum taken over the
// first group, then the second (the looped functions' vertex order), and 16
// faces scanned in order.

struct Faces16 {
    low: Faces8,
    high: Faces8,
}

fn load_faces16(shape: ShapeRecord) -> Faces16 {
    let first = shape.first;
    let last = shape.count - 1u;
    return Faces16(
        Faces8(
            edge(first), edge(first + min(1u, last)), edge(first + min(2u, last)), edge(first + min(3u, last)),
            edge(first + min(4u, last)), edge(first + min(5u, last)), edge(first + min(6u, last)), edge(first + min(7u, last)),
        ),
        Faces8(
            edge(first + min(8u, last)), edge(first + min(9u, last)), edge(first + min(10u, last)), edge(first + min(11u, last)),
            edge(first + min(12u, last)), edge(first + min(13u, last)), edge(first + min(14u, last)), edge(first + min(15u, last)),
        ),
    );
}

// One face of find_max_separation: min over the 16 vertices of `other`.
fn face_separation16(face: vec4<f32>, xf: Transform, other: Faces16) -> f32 {
    let plane = face_plane(face, xf);
    return vertex_min8(vertex_min8(HIGHEST, plane, other.low), plane, other.high);
}

fn find_max_separation16(faces1: Faces16, count1: u32, faces2: Faces16, xf: Transform, tolerance: f32, limit: f32) -> Separation {
    var best = Separation(LOWEST, 0u);
    best = scan_face8(best, face_separation16(faces1.low.f0, xf, faces2), 0u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.low.f1, xf, faces2), 1u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.low.f2, xf, faces2), 2u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.low.f3, xf, faces2), 3u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.low.f4, xf, faces2), 4u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.low.f5, xf, faces2), 5u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.low.f6, xf, faces2), 6u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.low.f7, xf, faces2), 7u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.high.f0, xf, faces2), 8u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.high.f1, xf, faces2), 9u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.high.f2, xf, faces2), 10u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.high.f3, xf, faces2), 11u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.high.f4, xf, faces2), 12u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.high.f5, xf, faces2), 13u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.high.f6, xf, faces2), 14u, count1, tolerance, limit);
    best = scan_face8(best, face_separation16(faces1.high.f7, xf, faces2), 15u, count1, tolerance, limit);
    return settle8(best);
}

fn collide_polygons16(
    poly_a: ShapeRecord,
    poly_b: ShapeRecord,
    xf_ab: Transform,
    xf_ba: Transform,
    tolerance: f32,
    margin: f32,
) -> PairResult {
    let faces_a = load_faces16(poly_a);
    let faces_b = load_faces16(poly_b);
    let separation_a = find_max_separation16(faces_a, poly_a.count, faces_b, xf_ba, tolerance, margin);
    let separation_b = find_max_separation16(faces_b, poly_b.count, faces_a, xf_ab, tolerance, margin);
    return choose_polygon_axis(separation_a, separation_b, tolerance, margin);
}

fn collide_polygon_circle16(
    poly: ShapeRecord,
    centre: vec2<f32>,
    radius: f32,
    owner_b: bool,
    tolerance: f32,
    margin: f32,
) -> PairResult {
    let faces = load_faces16(poly);
    let count = poly.count;
    let limit = margin + radius;
    var best = Separation(LOWEST, 0u);
    best = scan_face8(best, circle_face_separation(faces.low.f0, centre), 0u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.low.f1, centre), 1u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.low.f2, centre), 2u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.low.f3, centre), 3u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.low.f4, centre), 4u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.low.f5, centre), 5u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.low.f6, centre), 6u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.low.f7, centre), 7u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.high.f0, centre), 8u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.high.f1, centre), 9u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.high.f2, centre), 10u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.high.f3, centre), 11u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.high.f4, centre), 12u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.high.f5, centre), 13u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.high.f6, centre), 14u, count, tolerance, limit);
    best = scan_face8(best, circle_face_separation(faces.high.f7, centre), 15u, count, tolerance, limit);
    let settled = settle8(best);
    if settled.value >= limit {
        return NOT_REPORTED;
    }
    return finish_polygon_circle(poly, centre, radius, owner_b, margin, settled);
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
    let small_a = shape_a.count <= 8u;
    let small_b = shape_b.count <= 8u;
    let medium_a = shape_a.count <= 16u;
    let medium_b = shape_b.count <= 16u;
    let merge = shape_a.count > params.merge_threshold && shape_b.count > params.merge_threshold;
    // Shapes with a radius, and segments (d2/rounded.wgsl; the resident
    // frame's pairs of them come here, the batch kernel's take "rounded").
    if rounded_record(shape_a) || rounded_record(shape_b) {
        return collide_rounded_pair(xf_a, xf_b, shape_a, shape_b, margin);
    }
    if polygon_a && polygon_b {
        if small_a && small_b {
            return collide_polygons8(shape_a, shape_b, xf_ab, xf_ba, tolerance, margin);
        }
        if medium_a && medium_b && !merge {
            return collide_polygons16(shape_a, shape_b, xf_ab, xf_ba, tolerance, margin);
        }
        return collide_polygons(shape_a, shape_b, xf_ab, xf_ba, tolerance, margin);
    } else if polygon_a {
        if small_a {
            return collide_polygon_circle8(shape_a, xf_ab.p, shape_b.radius, false, tolerance, margin);
        }
        if medium_a {
            return collide_polygon_circle16(shape_a, xf_ab.p, shape_b.radius, false, tolerance, margin);
        }
        return collide_polygon_circle(shape_a, xf_ab.p, shape_b.radius, false, tolerance, margin);
    } else if polygon_b {
        if small_b {
            return collide_polygon_circle8(shape_b, xf_ba.p, shape_a.radius, true, tolerance, margin);
        }
        if medium_b {
            return collide_polygon_circle16(shape_b, xf_ba.p, shape_a.radius, true, tolerance, margin);
        }
        return collide_polygon_circle(shape_b, xf_ba.p, shape_a.radius, true, tolerance, margin);
    }
    return collide_circles(xf_ab.p, shape_a.radius, shape_b.radius, margin);
}

fn body_transform(body: u32) -> Transform {
    let texel_value = textureLoad(body_transforms, texel(body), 0);
    return Transform(texel_value.xy, texel_value.zw);
}

fn body_shape(body: u32) -> ShapeRecord {
    let record = textureLoad(body_shapes, texel(body), 0);
    return ShapeRecord(record.x, record.y, bitcast<f32>(record.z), bitcast<f32>(record.w));
}

// The bodies of a pair, as the pair functions read them.
fn relative(a: u32, b: u32) -> array<Transform, 2> {
    let xf_a = body_transform(a);
    let xf_b = body_transform(b);
    return array<Transform, 2>(inv_mul_transforms(xf_a, xf_b), inv_mul_transforms(xf_b, xf_a));
}

// Two polygons: their records, the relative transforms, the tolerance.
struct PolygonPairArgs {
    shape_a: ShapeRecord,
    shape_b: ShapeRecord,
    xf_ab: Transform,
    xf_ba: Transform,
    tolerance: f32,
}

fn polygon_pair_args(pair: Pair) -> PolygonPairArgs {
    let xfs = relative(pair.a, pair.b);
    let shape_a = body_shape(pair.a);
    let shape_b = body_shape(pair.b);
    return PolygonPairArgs(shape_a, shape_b, xfs[0], xfs[1], TIE_TOLERANCE * (shape_a.size + shape_b.size));
}

// A polygon–circle pair as the polygon, the circle's centre in the
// polygon's frame, and who owns the polygon: one call for both orders, so
// that no lane waits on the other branch.
struct PolygonCircleArgs {
    poly: ShapeRecord,
    centre: vec2<f32>,
    radius: f32,
    owner_b: bool,
    tolerance: f32,
}

fn polygon_circle_args(pair: Pair) -> PolygonCircleArgs {
    let xfs = relative(pair.a, pair.b);
    let shape_a = body_shape(pair.a);
    let shape_b = body_shape(pair.b);
    let owner_b = shape_a.count == 0u;
    let poly = ShapeRecord(
        select(shape_a.first, shape_b.first, owner_b),
        select(shape_a.count, shape_b.count, owner_b),
        0.0,
        0.0,
    );
    return PolygonCircleArgs(
        poly,
        select(xfs[0].p, xfs[1].p, owner_b),
        select(shape_b.radius, shape_a.radius, owner_b),
        owner_b,
        TIE_TOLERANCE * (shape_a.size + shape_b.size),
    );
}

// The pair functions: one per kind, each holding only the code its pairs run
// (lavapipe pays for code on branches no lane takes).

// Both bodies polygons of up to 8 vertices.
fn polygons8_pair(pair: Pair) -> PairResult {
    let args = polygon_pair_args(pair);
    return collide_polygons8(args.shape_a, args.shape_b, args.xf_ab, args.xf_ba, args.tolerance, params.margin);
}

// A polygon of up to 8 vertices and a circle, either way round.
fn polygon_circle8_pair(pair: Pair) -> PairResult {
    let args = polygon_circle_args(pair);
    return collide_polygon_circle8(args.poly, args.centre, args.radius, args.owner_b, args.tolerance, params.margin);
}

// Both bodies polygons of up to 16 vertices, one of more than 8 (only when
// the merge threshold is 16 or more, so that no such pair would merge).
fn polygons16_pair(pair: Pair) -> PairResult {
    let args = polygon_pair_args(pair);
    return collide_polygons16(args.shape_a, args.shape_b, args.xf_ab, args.xf_ba, args.tolerance, params.margin);
}

// A polygon of 9 to 16 vertices and a circle, either way round.
fn polygon_circle16_pair(pair: Pair) -> PairResult {
    let args = polygon_circle_args(pair);
    return collide_polygon_circle16(args.poly, args.centre, args.radius, args.owner_b, args.tolerance, params.margin);
}

// Two circles.
fn circles_pair(pair: Pair) -> PairResult {
    let xfs = relative(pair.a, pair.b);
    return collide_circles(xfs[0].p, body_shape(pair.a).radius, body_shape(pair.b).radius, params.margin);
}

// Everything else (a polygon of more than 16 vertices, or of 9 to 16 when
// the merge threshold is lower): the full dispatch.
fn general_pair(pair: Pair) -> PairResult {
    return collide_pair(body_transform(pair.a), body_transform(pair.b), body_shape(pair.a), body_shape(pair.b), params.margin);
}

// The entry points, one per kind of pair (src/gpu/kinds.rs: ENTRY_POINTS):
// the prologue, the kind's pair function, the epilogue.

@compute @workgroup_size(WORKGROUP_SIZE)
fn polygons8(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, polygons8_pair(task.pair));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn polygon_circle8(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, polygon_circle8_pair(task.pair));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn polygons16(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, polygons16_pair(task.pair));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn polygon_circle16(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, polygon_circle16_pair(task.pair));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn circles(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, circles_pair(task.pair));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn general(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, general_pair(task.pair));
}
