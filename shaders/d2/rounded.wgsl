// Shapes with a radius: the twin of src/d2/sat/rounded.rs (the same
// functions with the same names, the same operations in the same order),
// and the kind "rounded", which takes every pair with a capsule, a segment
// or a rounded polygon. Loaded after d2/sat.wgsl. The cases, and why the
// closest features are the SAT's best face's own, are in rounded.rs's doc:
//
//   cores overlapping (s <= 0):  the face, separation s - R
//   cores apart:                 the closest features (find_closest_features),
//                                a face or a vertex pair, separation d - R
//
// The kind runs the loop paths (collide_polygons, collide_polygon_circle),
// whose results are the straight-line paths' bit for bit, so the straight-
// line kinds carry none of this.

// The features where two cores are closest (rounded.rs: ClosestFeatures):
// kind 0 the SAT's face; 1 the owner's vertex `i` and the other's vertex
// `j`; 2 a face `i` of the owner (`owner_b` false) or of the other, with
// `distance`.
const CLOSEST_FACE: u32 = 0u;
const CLOSEST_VERTICES: u32 = 1u;
const CLOSEST_OTHER_FACE: u32 = 2u;

struct ClosestFeatures {
    kind: u32,
    i: u32,
    j: u32,
    other_owner: bool,
    distance: f32,
}

// A shape the rounded cases take (src/gpu/d2/kinds.rs: is_rounded): a
// segment, or a core with a radius.
fn rounded_record(shape: ShapeRecord) -> bool {
    return shape.count == 2u || (shape.count > 0u && shape.radius > 0.0);
}

fn vertex_pair_feature(n: u32, m: u32, i: u32, j: u32) -> u32 {
    return 2u * n + i * m + j;
}

fn next_index(i: u32, count: u32) -> u32 {
    return select(0u, i + 1u, i + 1u < count);
}

fn previous_index(i: u32, count: u32) -> u32 {
    return select(count - 1u, i - 1u, i > 0u);
}

// Vertex `i` of a core, in its own frame.
fn core_vertex(core: ShapeRecord, i: u32) -> vec2<f32> {
    return edge(core.first + i).xy;
}

// Vertex `j` of the other core, moved into the owner's frame.
fn moved_vertex(core: ShapeRecord, xf: Transform, j: u32) -> vec2<f32> {
    return transform_point(xf, edge(core.first + j).xy);
}

fn vertex_pair_distance(owner: ShapeRecord, other: ShapeRecord, xf: Transform, i: u32, j: u32) -> f32 {
    return length2(moved_vertex(other, xf, j) - core_vertex(owner, i));
}

// The point of [a, b] nearest p: (its fraction, clamped, and the distance).
fn point_segment(p: vec2<f32>, a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let segment = b - a;
    let along = dot2(p - a, segment);
    let squared = dot2(segment, segment);
    var t = 0.0;
    if along <= 0.0 {
        t = 0.0;
    } else if along >= squared {
        t = 1.0;
    } else {
        t = along / squared;
    }
    return vec2<f32>(t, length2(p - (a + t * segment)));
}

// The endpoint a fraction names (0 or 1), or none (NO_VERTEX) inside.
const NO_VERTEX: u32 = 0xffffffffu;

fn vertex_at(t: f32, k0: u32, k1: u32) -> u32 {
    if t <= 0.0 {
        return k0;
    }
    if t >= 1.0 {
        return k1;
    }
    return NO_VERTEX;
}

// Whether `u` lies in vertex i's normal cone: the owner's (`moved` false,
// its own frame) or the other's (moved into the owner's frame by xf).
fn in_vertex_cone(core: ShapeRecord, xf: Transform, moved: bool, i: u32, u: vec2<f32>) -> bool {
    let count = core.count;
    var v = core_vertex(core, i);
    var before = core_vertex(core, previous_index(i, count));
    var after = core_vertex(core, next_index(i, count));
    if moved {
        v = moved_vertex(core, xf, i);
        before = moved_vertex(core, xf, previous_index(i, count));
        after = moved_vertex(core, xf, next_index(i, count));
    }
    return dot2(u, v - before) >= 0.0 && dot2(u, after - v) <= 0.0;
}

// The best so far of find_closest_features: distance, the owner's vertex
// and the other's (NO_VERTEX for none).
struct Offer {
    distance: f32,
    on_owner: u32,
    on_other: u32,
}

fn offer(best: Offer, distance: f32, on_owner: u32, on_other: u32) -> Offer {
    if distance < best.distance {
        return Offer(distance, on_owner, on_other);
    }
    return best;
}

fn find_closest_features(owner: ShapeRecord, other: ShapeRecord, xf: Transform, face: u32) -> ClosestFeatures {
    let n = owner.count;
    let m = other.count;
    let normal = edge(owner.first + face).zw;
    var j = 0u;
    var lowest = dot2(normal, moved_vertex(other, xf, 0u));
    for (var k = 1u; k < m; k++) {
        let along = dot2(normal, moved_vertex(other, xf, k));
        if along < lowest {
            lowest = along;
            j = k;
        }
    }
    let i0 = face;
    let i1 = next_index(face, n);
    let j0 = previous_index(j, m);
    let j2 = next_index(j, m);
    let p0 = core_vertex(owner, i0);
    let p1 = core_vertex(owner, i1);
    let w0 = moved_vertex(other, xf, j0);
    let w1 = moved_vertex(other, xf, j);
    let w2 = moved_vertex(other, xf, j2);
    var best = Offer(HIGHEST, NO_VERTEX, NO_VERTEX);
    var hit = point_segment(w0, p0, p1);
    best = offer(best, hit.y, vertex_at(hit.x, i0, i1), j0);
    hit = point_segment(w1, p0, p1);
    best = offer(best, hit.y, vertex_at(hit.x, i0, i1), j);
    hit = point_segment(w2, p0, p1);
    best = offer(best, hit.y, vertex_at(hit.x, i0, i1), j2);
    hit = point_segment(p0, w0, w1);
    best = offer(best, hit.y, i0, vertex_at(hit.x, j0, j));
    hit = point_segment(p0, w1, w2);
    best = offer(best, hit.y, i0, vertex_at(hit.x, j, j2));
    hit = point_segment(p1, w0, w1);
    best = offer(best, hit.y, i1, vertex_at(hit.x, j0, j));
    hit = point_segment(p1, w1, w2);
    best = offer(best, hit.y, i1, vertex_at(hit.x, j, j2));
    if best.on_owner != NO_VERTEX && best.on_other != NO_VERTEX {
        let u = moved_vertex(other, xf, best.on_other) - core_vertex(owner, best.on_owner);
        if in_vertex_cone(owner, xf, false, best.on_owner, u) && in_vertex_cone(other, xf, true, best.on_other, -u) {
            return ClosestFeatures(CLOSEST_VERTICES, best.on_owner, best.on_other, false, 0.0);
        }
        return closest_features_everywhere(owner, other, xf);
    }
    return ClosestFeatures(CLOSEST_FACE, 0u, 0u, false, 0.0);
}

fn closest_features_everywhere(owner: ShapeRecord, other: ShapeRecord, xf: Transform) -> ClosestFeatures {
    let n = owner.count;
    let m = other.count;
    var best_distance = HIGHEST;
    var best = ClosestFeatures(CLOSEST_FACE, 0u, 0u, false, 0.0);
    for (var j = 0u; j < m; j++) {
        let w = moved_vertex(other, xf, j);
        for (var i = 0u; i < n; i++) {
            let hit = point_segment(w, core_vertex(owner, i), core_vertex(owner, next_index(i, n)));
            if hit.y < best_distance {
                if hit.x <= 0.0 || hit.x >= 1.0 {
                    let vertex = select(next_index(i, n), i, hit.x <= 0.0);
                    best = ClosestFeatures(CLOSEST_VERTICES, vertex, j, false, 0.0);
                } else {
                    best = ClosestFeatures(CLOSEST_OTHER_FACE, i, 0u, false, hit.y);
                }
                best_distance = hit.y;
            }
        }
    }
    for (var i = 0u; i < n; i++) {
        let p = core_vertex(owner, i);
        for (var j = 0u; j < m; j++) {
            let hit = point_segment(p, moved_vertex(other, xf, j), moved_vertex(other, xf, next_index(j, m)));
            if hit.y < best_distance && hit.x > 0.0 && hit.x < 1.0 {
                best = ClosestFeatures(CLOSEST_OTHER_FACE, j, 0u, true, hit.y);
                best_distance = hit.y;
            }
        }
    }
    return best;
}

// The face of a segment (face 0's outward normal `normal`) on whose side
// `offset` lies: 0 at or above the line.
fn side_face(normal: vec2<f32>, offset: vec2<f32>) -> u32 {
    return select(1u, 0u, dot2(normal, offset) >= 0.0);
}

// Two segment cores that do not cross: their ends against each other
// (rounded.rs: closest_segment_features).
fn closest_segment_features(owner: ShapeRecord, other: ShapeRecord, xf: Transform) -> ClosestFeatures {
    let p0 = core_vertex(owner, 0u);
    let p1 = core_vertex(owner, 1u);
    let w0 = moved_vertex(other, xf, 0u);
    let w1 = moved_vertex(other, xf, 1u);
    let owner_normal = edge(owner.first).zw;
    let other_normal = rotate(xf.q, edge(other.first).zw);
    var best_distance = HIGHEST;
    var best = ClosestFeatures(CLOSEST_FACE, 0u, 0u, false, 0.0);
    for (var j = 0u; j < 2u; j++) {
        let w = select(w0, w1, j == 1u);
        let hit = point_segment(w, p0, p1);
        if hit.y < best_distance {
            let i = vertex_at(hit.x, 0u, 1u);
            if i != NO_VERTEX {
                best = ClosestFeatures(CLOSEST_VERTICES, i, j, false, 0.0);
            } else {
                best = ClosestFeatures(CLOSEST_OTHER_FACE, side_face(owner_normal, w - p0), 0u, false, hit.y);
            }
            best_distance = hit.y;
        }
    }
    for (var i = 0u; i < 2u; i++) {
        let p = select(p0, p1, i == 1u);
        let hit = point_segment(p, w0, w1);
        if hit.y < best_distance {
            let j = vertex_at(hit.x, 0u, 1u);
            if j != NO_VERTEX {
                best = ClosestFeatures(CLOSEST_VERTICES, i, j, false, 0.0);
            } else {
                best = ClosestFeatures(CLOSEST_OTHER_FACE, side_face(other_normal, p - w0), 0u, true, hit.y);
            }
            best_distance = hit.y;
        }
    }
    return best;
}

// Whether the direction of segment `own` at either end has the other's
// points beyond it (`xf` takes the other's points into own's frame).
fn cap_beyond(own: ShapeRecord, other: ShapeRecord, xf: Transform) -> bool {
    let p0 = core_vertex(own, 0u);
    let p1 = core_vertex(own, 1u);
    let w0 = moved_vertex(other, xf, 0u);
    let w1 = moved_vertex(other, xf, 1u);
    let d = p1 - p0;
    let past_end = min(dot2(d, w0 - p1), dot2(d, w1 - p1)) > 0.0;
    let before_start = min(-dot2(d, w0 - p0), -dot2(d, w1 - p0)) > 0.0;
    return past_end || before_start;
}

fn caps_separate(poly_a: ShapeRecord, poly_b: ShapeRecord, xf_ab: Transform, xf_ba: Transform) -> bool {
    return cap_beyond(poly_a, poly_b, xf_ab) || cap_beyond(poly_b, poly_a, xf_ba);
}

// A segment core against a circle's centre in its frame (both radii).
fn collide_segment_circle(segment: ShapeRecord, centre: vec2<f32>, radius: f32, owner_b: bool, margin: f32) -> PairResult {
    let a = core_vertex(segment, 0u);
    let b = core_vertex(segment, 1u);
    var feature = 0u;
    var distance = 0.0;
    if dot2(centre - a, b - a) < 0.0 {
        feature = 2u;
        distance = length2(centre - a);
    } else if dot2(centre - b, a - b) < 0.0 {
        feature = 3u;
        distance = length2(centre - b);
    } else {
        let s0 = circle_face_separation(edge(segment.first), centre);
        let s1 = circle_face_separation(edge(segment.first + 1u), centre);
        if s1 > s0 {
            feature = 1u;
            distance = s1;
        } else {
            feature = 0u;
            distance = s0;
        }
    }
    let separation = distance - radius;
    if !(separation < margin) {
        return NOT_REPORTED;
    }
    return PairResult(true, make_axis(owner_b, feature), separation);
}

// The pair's result from the cores' closest features (`face`: the SAT's
// face's result, kept for CLOSEST_FACE).
fn from_closest(owner_b: bool, owner: ShapeRecord, other: ShapeRecord, xf: Transform, closest: ClosestFeatures, face: PairResult, radii: f32) -> PairResult {
    if closest.kind == CLOSEST_VERTICES {
        return PairResult(
            true,
            make_axis(owner_b, vertex_pair_feature(owner.count, other.count, closest.i, closest.j)),
            vertex_pair_distance(owner, other, xf, closest.i, closest.j) - radii,
        );
    }
    if closest.kind == CLOSEST_OTHER_FACE {
        // The other core's face: the owner flipped.
        let flipped = select(owner_b, !owner_b, closest.other_owner);
        return PairResult(true, make_axis(flipped, closest.i), closest.distance - radii);
    }
    return face;
}

fn finish_rounded(poly_a: ShapeRecord, poly_b: ShapeRecord, radii: f32, xf_ab: Transform, xf_ba: Transform, core: PairResult, margin: f32) -> PairResult {
    let owner_b = (core.axis & OWNER_B_BIT) != 0u;
    let face = core.axis & ~OWNER_B_BIT;
    var result = PairResult(true, core.axis, core.separation - radii);
    var owner = poly_a;
    var other = poly_b;
    var xf = xf_ab;
    if owner_b {
        owner = poly_b;
        other = poly_a;
        xf = xf_ba;
    }
    let segments = poly_a.count == 2u && poly_b.count == 2u;
    if segments {
        // Two segments apart along a face or a cap axis: their ends against
        // each other.
        if core.separation > 0.0 || caps_separate(poly_a, poly_b, xf_ab, xf_ba) {
            result = from_closest(owner_b, owner, other, xf, closest_segment_features(owner, other, xf), result, radii);
        }
    } else if core.separation > 0.0 {
        result = from_closest(owner_b, owner, other, xf, find_closest_features(owner, other, xf, face), result, radii);
    }
    if !(result.separation < margin) {
        return NOT_REPORTED;
    }
    return result;
}

// rounded.rs's pair: the cores' SAT out to the margin plus the radii (the
// loop paths), then finish_rounded; a polygon's radius added to a circle's.
fn collide_rounded_pair(
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
        let radii = shape_a.radius + shape_b.radius;
        let core = collide_polygons(shape_a, shape_b, xf_ab, xf_ba, tolerance, margin + radii);
        if !core.reported {
            return NOT_REPORTED;
        }
        if radii > 0.0 || shape_a.count == 2u || shape_b.count == 2u {
            return finish_rounded(shape_a, shape_b, radii, xf_ab, xf_ba, core, margin);
        }
        return core;
    } else if polygon_a {
        if shape_a.count == 2u {
            return collide_segment_circle(shape_a, xf_ab.p, shape_b.radius + shape_a.radius, false, margin);
        }
        return collide_polygon_circle(shape_a, xf_ab.p, shape_b.radius + shape_a.radius, false, tolerance, margin);
    } else if polygon_b {
        if shape_b.count == 2u {
            return collide_segment_circle(shape_b, xf_ba.p, shape_a.radius + shape_b.radius, true, margin);
        }
        return collide_polygon_circle(shape_b, xf_ba.p, shape_a.radius + shape_b.radius, true, tolerance, margin);
    }
    return collide_circles(xf_ab.p, shape_a.radius, shape_b.radius, margin);
}

// A pair with a capsule, a segment or a rounded polygon on either side.
fn rounded_pair(pair: Pair) -> PairResult {
    return collide_rounded_pair(body_transform(pair.a), body_transform(pair.b), body_shape(pair.a), body_shape(pair.b), params.margin);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn rounded(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, rounded_pair(task.pair));
}
