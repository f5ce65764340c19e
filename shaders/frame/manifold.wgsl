// The frame's contact manifolds: one invocation per hit, the twin of
// src/d2/manifold.rs (and of sat::axis_normal, which gives a hit its normal),
// the same functions in the same order with the same operations, so that a
// manifold made here is the CPU's bit for bit where the compiler keeps the
// order (lavapipe does; tests/it/gpu/frame.rs compares them). Loaded after
// narrow.wgsl, sat.wgsl and rounded.wgsl, whose math (rotate,
// transform_point, inv_mul_transforms, next_index) and reads (edge,
// body_transform, body_shape) it uses.
// Dispatched indirectly, one invocation per hit: pairs.wgsl's compact wrote
// the arguments beside the hit count.

// Mirror of src/gpu/frame/narrow.rs: FrameManifold.
struct FrameManifold {
    normal: vec2<f32>,
    point0: vec2<f32>,
    point1: vec2<f32>,
    depth0: f32,
    depth1: f32,
    id0: u32,
    id1: u32,
    count: u32,
    _pad: u32,
}

@group(0) @binding(9) var<storage, read> frame_hits: array<FrameHit>;
@group(0) @binding(10) var<storage, read_write> manifolds: array<FrameManifold>;

// src/d2/sat/separation.rs, src/d2/manifold.rs.
const CONCENTRIC_TOLERANCE: f32 = 1.0e-6;
const DEGENERATE_SEGMENT: f32 = 1.0e-6;

// Keeps a sum the CPU rounded from being merged into the next one.
// lavapipe's compiler reassociates chains of additions (measured:
// `inv_mul_transforms(..).p - vertex` came out a ulp off in both
// coordinates, each operand equal to the CPU's), and WGSL has no way to
// forbid it; a select on a uniform the compiler cannot see through (always
// false: no capacity is that large) ends the chain at no measurable cost. Each use below is at a sum
// that the CPU rounds before adding it to something else.
fn keep(v: f32) -> f32 {
    return select(v, 0.0, params.capacity == 0xffffffffu);
}

fn keep2(v: vec2<f32>) -> vec2<f32> {
    return select(v, vec2<f32>(0.0), params.capacity == 0xffffffffu);
}

fn dot_v(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return a.x * b.x + a.y * b.y;
}

fn scale(s: f32, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(s * v.x, s * v.y);
}

// Rust's f32::total_cmp(a, b) == Less.
fn total_less(a: f32, b: f32) -> bool {
    let ia = bitcast<i32>(a);
    let ib = bitcast<i32>(b);
    let ka = ia ^ ((ia >> 31u) & 0x7fffffff);
    let kb = ib ^ ((ib >> 31u) & 0x7fffffff);
    return ka < kb;
}

fn contact_id(owner_b: bool, reference: u32, incident: u32) -> u32 {
    return (select(0u, 1u, owner_b) << 16u) | ((reference & 0xffu) << 8u) | (incident & 0xffu);
}

fn vertex_of(shape: ShapeRecord, i: u32) -> vec2<f32> {
    return edge(shape.first + i).xy;
}

fn normal_of(shape: ShapeRecord, i: u32) -> vec2<f32> {
    return edge(shape.first + i).zw;
}

// next_index: d2/rounded.wgsl's (loaded before this file).

// sat::axis_normal: the hit's world normal, from the owner's feature.
fn axis_normal(xf_a: Transform, shape_a: ShapeRecord, xf_b: Transform, shape_b: ShapeRecord, axis: u32) -> vec2<f32> {
    let owner_b = (axis & OWNER_B_BIT) != 0u;
    let feature_in = axis & ~OWNER_B_BIT;
    var owner_xf = xf_a;
    var owner = shape_a;
    var other_xf = xf_b;
    var other = shape_b;
    var sign = 1.0;
    if owner_b {
        owner_xf = xf_b;
        owner = shape_b;
        other_xf = xf_a;
        other = shape_a;
        sign = -1.0;
    }
    var local = vec2<f32>(1.0, 0.0);
    if owner.count == 0u {
        let other_centre = keep2(inv_mul_transforms(owner_xf, other_xf).p);
        let distance = length2(other_centre);
        if distance > CONCENTRIC_TOLERANCE * (owner.radius + other.radius) {
            local = vec2<f32>(other_centre.x / distance, other_centre.y / distance);
        }
    } else {
        let count = owner.count;
        let feature = feature_in;
        if feature < count {
            local = normal_of(owner, feature);
        } else if feature >= 2u * count && other.count > 0u {
            // A vertex pair (rounded.rs): from the owner's vertex to the
            // other's, in the owner's frame.
            let k = feature - 2u * count;
            let i = min(k / other.count, count - 1u);
            let j = k % other.count;
            let xf = inv_mul_transforms(owner_xf, other_xf);
            let offset = keep2(transform_point(xf, vertex_of(other, j))) - vertex_of(owner, i);
            let distance = length2(offset);
            if distance > 0.0 {
                local = vec2<f32>(offset.x / distance, offset.y / distance);
            } else {
                local = normal_of(owner, i);
            }
        } else {
            let vertex_index = min(feature - count, count - 1u);
            let other_centre = keep2(inv_mul_transforms(owner_xf, other_xf).p);
            let offset = other_centre - vertex_of(owner, vertex_index);
            let distance = length2(offset);
            if distance > 0.0 {
                local = vec2<f32>(offset.x / distance, offset.y / distance);
            } else {
                local = normal_of(owner, vertex_index);
            }
        }
    }
    return scale(sign, rotate(owner_xf.q, local));
}

// A manifold being built.
struct Points {
    point0: vec2<f32>,
    point1: vec2<f32>,
    depth0: f32,
    depth1: f32,
    id0: u32,
    id1: u32,
    count: u32,
}

fn push_point(points: Points, point: vec2<f32>, depth: f32, id: u32) -> Points {
    var out = points;
    if out.count == 0u {
        out.point0 = point;
        out.depth0 = depth;
        out.id0 = id;
        out.count = 1u;
    } else if out.count == 1u {
        out.point1 = point;
        out.depth1 = depth;
        out.id1 = id;
        out.count = 2u;
    }
    return out;
}

// incident_edge: the incident polygon's edge most anti-parallel to the
// reference normal (given in the incident frame).
fn incident_edge(normal_in_incident: vec2<f32>, incident: ShapeRecord) -> u32 {
    var best = 0u;
    var most_opposed = HIGHEST;
    for (var j = 0u; j < incident.count; j++) {
        let alignment = dot_v(normal_in_incident, normal_of(incident, j));
        if alignment < most_opposed {
            best = j;
            most_opposed = alignment;
        }
    }
    return best;
}

struct Closest {
    on_reference: vec2<f32>,
    on_incident: vec2<f32>,
    t: f32,
}

struct OnSegment {
    point: vec2<f32>,
    t: f32,
}

fn closest_on(p: vec2<f32>, s1: vec2<f32>, s2: vec2<f32>) -> OnSegment {
    let d = s2 - s1;
    let length_squared = dot_v(d, d);
    var t = 0.0;
    if length_squared > 0.0 {
        t = clamp(dot_v(p - s1, d) / length_squared, 0.0, 1.0);
    }
    return OnSegment(keep2(s1 + scale(t, d)), t);
}

// closest_points_of_segments.
fn closest_points_of_segments(a1: vec2<f32>, a2: vec2<f32>, b1: vec2<f32>, b2: vec2<f32>) -> Closest {
    let c1 = closest_on(a1, b1, b2);
    let c2 = closest_on(a2, b1, b2);
    var best = Closest(a1, c1.point, c1.t);
    var best_distance = HIGHEST;
    let d1 = dot_v(a1 - c1.point, a1 - c1.point);
    if d1 < best_distance {
        best = Closest(a1, c1.point, c1.t);
        best_distance = d1;
    }
    let d2 = dot_v(a2 - c2.point, a2 - c2.point);
    if d2 < best_distance {
        best = Closest(a2, c2.point, c2.t);
        best_distance = d2;
    }
    let e1 = closest_on(b1, a1, a2);
    let f1 = dot_v(e1.point - b1, e1.point - b1);
    if f1 < best_distance {
        best = Closest(e1.point, b1, 0.0);
        best_distance = f1;
    }
    let e2 = closest_on(b2, a1, a2);
    let f2 = dot_v(e2.point - b2, e2.point - b2);
    if f2 < best_distance {
        best = Closest(e2.point, b2, 1.0);
        best_distance = f2;
    }
    return best;
}

// clip_polygons and clip.
// The incident point `p` of the cores moved midway between the rounded
// surfaces (manifold.rs: clip's `rounded`): by half the difference of the
// radii along the normal, none where they are equal.
fn rounded_point(point: vec2<f32>, radius_ref: f32, radius_inc: f32, normal: vec2<f32>) -> vec2<f32> {
    if radius_ref != radius_inc {
        return keep2(point + scale(0.5 * (radius_ref - radius_inc), normal));
    }
    return point;
}

fn clip_polygons(ref_xf: Transform, reference_shape: ShapeRecord, inc_xf: Transform, incident_shape: ShapeRecord, feature: u32, owner_b: bool, overlapping: bool, size: f32, margin: f32) -> Points {
    let radius_ref = reference_shape.radius;
    let radius_inc = incident_shape.radius;
    let radii = radius_ref + radius_inc;
    let reference = min(feature, reference_shape.count - 1u);
    let xf = inv_mul_transforms(ref_xf, inc_xf);
    let normal = normal_of(reference_shape, reference);
    let incident = incident_edge(inv_rotate(xf.q, normal), incident_shape);

    let v1 = vertex_of(reference_shape, reference);
    let v2 = vertex_of(reference_shape, next_index(reference, reference_shape.count));
    let tangent = vec2<f32>(-normal.y, normal.x);
    let i1 = incident;
    let i2 = next_index(incident, incident_shape.count);
    let w1 = keep2(transform_point(xf, vertex_of(incident_shape, i1)));
    let w2 = keep2(transform_point(xf, vertex_of(incident_shape, i2)));

    let lower = dot_v(tangent, v1);
    let upper = dot_v(tangent, v2);
    var s0 = w1;
    var s1 = w2;
    var kept = 2u;
    for (var k = 0u; k < 2u; k++) {
        let plane = select(upper, lower, k == 0u);
        let side = select(1.0, -1.0, k == 0u);
        let d0 = side * (keep(dot_v(tangent, s0)) - plane);
        let d1 = side * (keep(dot_v(tangent, s1)) - plane);
        if d0 > 0.0 && d1 > 0.0 {
            kept = 0u;
            break;
        }
        if d0 > 0.0 || d1 > 0.0 {
            let t = d0 / (d0 - d1);
            let cut = keep2(s0 + scale(t, s1 - s0));
            if d0 > 0.0 {
                s0 = cut;
            } else {
                s1 = cut;
            }
        }
    }

    var points = Points(vec2<f32>(0.0), vec2<f32>(0.0), 0.0, 0.0, 0u, 0u, 0u);
    if kept == 2u {
        let limit = max(margin, 0.0);
        let core0 = dot_v(normal, s0 - v1);
        let separation0 = core0 - radii;
        if separation0 <= limit {
            let placed = rounded_point(keep2(s0 - scale(0.5 * core0, normal)), radius_ref, radius_inc, normal);
            points = push_point(points, keep2(transform_point(ref_xf, placed)), -separation0, contact_id(owner_b, reference, i1));
        }
        let core1 = dot_v(normal, s1 - v1);
        let separation1 = core1 - radii;
        if separation1 <= limit {
            let placed = rounded_point(keep2(s1 - scale(0.5 * core1, normal)), radius_ref, radius_inc, normal);
            points = push_point(points, keep2(transform_point(ref_xf, placed)), -separation1, contact_id(owner_b, reference, i2));
        }
        let shortest = DEGENERATE_SEGMENT * size;
        let apart = points.point0 - points.point1;
        if points.count == 2u && dot_v(apart, apart) <= shortest * shortest {
            // A zero-length segment: one point, the deeper.
            if points.depth1 > points.depth0 {
                points.point0 = points.point1;
                points.depth0 = points.depth1;
                points.id0 = points.id1;
            }
            points.count = 1u;
        }
    }
    if points.count == 0u {
        if overlapping {
            // The incident polygon's deepest vertex (the first of equals).
            var vertex = 0u;
            var deepest = keep2(transform_point(xf, vertex_of(incident_shape, 0u)));
            for (var j = 1u; j < incident_shape.count; j++) {
                let p = keep2(transform_point(xf, vertex_of(incident_shape, j)));
                if total_less(dot_v(normal, p), dot_v(normal, deepest)) {
                    vertex = j;
                    deepest = p;
                }
            }
            let core = dot_v(normal, deepest - v1);
            let placed = rounded_point(keep2(deepest - scale(0.5 * core, normal)), radius_ref, radius_inc, normal);
            points = push_point(points, transform_point(ref_xf, placed), -(core - radii), contact_id(owner_b, reference, vertex));
        } else {
            let closest = closest_points_of_segments(v1, v2, w1, w2);
            let vertex = select(i2, i1, closest.t < 0.5);
            let gap = closest.on_incident - closest.on_reference;
            let placed = rounded_point(keep2(scale(0.5, closest.on_reference + closest.on_incident)), radius_ref, radius_inc, normal);
            points = push_point(points, transform_point(ref_xf, placed), -(sqrt(dot_v(gap, gap)) - radii), contact_id(owner_b, reference, vertex));
        }
    }
    return points;
}

// polygon_circle_point.
fn polygon_circle_point(poly_xf: Transform, poly: ShapeRecord, circle_xf: Transform, radius: f32, feature: u32, owner_b: bool, hit_normal: vec2<f32>) -> Points {
    let count = poly.count;
    // The SAT adds the polygon's radius to the circle's (in this order).
    let grown = poly.radius;
    let radii = radius + grown;
    let centre = keep2(inv_mul_transforms(poly_xf, circle_xf).p);
    var outward = inv_rotate(poly_xf.q, hit_normal);
    if owner_b {
        outward = inv_rotate(poly_xf.q, -hit_normal);
    }
    var polygon_surface: vec2<f32>;
    var distance: f32;
    if feature >= count {
        let vertex = vertex_of(poly, min(feature - count, count - 1u));
        let offset = centre - vertex;
        polygon_surface = vertex;
        distance = sqrt(offset.x * offset.x + offset.y * offset.y);
    } else {
        let vertex = vertex_of(poly, feature);
        let normal = normal_of(poly, feature);
        let offset = keep(normal.x * vertex.x + normal.y * vertex.y);
        let separation = keep(normal.x * centre.x - offset) + normal.y * centre.y;
        polygon_surface = keep2(centre - scale(separation, outward));
        distance = separation;
    }
    if grown > 0.0 {
        polygon_surface = keep2(polygon_surface + scale(grown, outward));
    }
    let circle_surface = keep2(centre - scale(radius, outward));
    let empty = Points(vec2<f32>(0.0), vec2<f32>(0.0), 0.0, 0.0, 0u, 0u, 0u);
    return push_point(empty, transform_point(poly_xf, scale(0.5, polygon_surface + circle_surface)), -(distance - radii), contact_id(owner_b, feature, 0u));
}

// crossing_point: two segment cores that cross, one point where they do;
// `reported` false for (nearly) parallel cores, which are clipped.
struct Crossing {
    reported: bool,
    points: Points,
}

fn crossing_point(ref_xf: Transform, reference: ShapeRecord, inc_xf: Transform, incident: ShapeRecord, feature: u32, owner_b: bool, depth: f32) -> Crossing {
    let empty = Points(vec2<f32>(0.0), vec2<f32>(0.0), 0.0, 0.0, 0u, 0u, 0u);
    let xf = inv_mul_transforms(ref_xf, inc_xf);
    let v1 = vertex_of(reference, 0u);
    let v2 = vertex_of(reference, 1u);
    let w1 = keep2(transform_point(xf, vertex_of(incident, 0u)));
    let w2 = keep2(transform_point(xf, vertex_of(incident, 1u)));
    let along_ref = v2 - v1;
    let along_inc = w2 - w1;
    let cross = along_ref.x * along_inc.y - along_ref.y * along_inc.x;
    if abs(cross) <= 1e-3 * length2(along_ref) * length2(along_inc) {
        return Crossing(false, empty);
    }
    let offset = w1 - v1;
    let t = clamp((offset.x * along_inc.y - offset.y * along_inc.x) / cross, 0.0, 1.0);
    let crossing = keep2(v1 + scale(t, along_ref));
    let normal = normal_of(reference, min(feature, 1u));
    let point = rounded_point(crossing, reference.radius, incident.radius, normal);
    return Crossing(true, push_point(empty, transform_point(ref_xf, point), depth, contact_id(owner_b, feature, 0u)));
}

// vertex_pair_point: two rounded cores closest at a vertex of each.
fn vertex_pair_point(ref_xf: Transform, reference: ShapeRecord, inc_xf: Transform, incident: ShapeRecord, feature: u32, owner_b: bool) -> Points {
    let n = reference.count;
    let m = incident.count;
    let k = feature - 2u * n;
    let i = min(k / m, n - 1u);
    let j = k % m;
    let xf = inv_mul_transforms(ref_xf, inc_xf);
    let p = vertex_of(reference, i);
    let w = keep2(transform_point(xf, vertex_of(incident, j)));
    let offset = keep2(w - p);
    let distance = sqrt(offset.x * offset.x + offset.y * offset.y);
    var direction = normal_of(reference, i);
    if distance > 0.0 {
        direction = vec2<f32>(offset.x / distance, offset.y / distance);
    }
    let surface_ref = keep2(p + scale(reference.radius, direction));
    let surface_inc = keep2(w - scale(incident.radius, direction));
    let empty = Points(vec2<f32>(0.0), vec2<f32>(0.0), 0.0, 0.0, 0u, 0u, 0u);
    return push_point(empty, transform_point(ref_xf, scale(0.5, keep2(surface_ref + surface_inc))), -(distance - keep(reference.radius + incident.radius)), contact_id(owner_b, n + i, j));
}

// circle_point.
fn circle_point(xf_a: Transform, xf_b: Transform, radius_a: f32, radius_b: f32, hit_normal: vec2<f32>) -> Points {
    let surface_a = keep2(xf_a.p + scale(radius_a, hit_normal));
    let surface_b = keep2(xf_b.p - scale(radius_b, hit_normal));
    let centre = keep2(inv_mul_transforms(xf_a, xf_b).p);
    let distance = sqrt(centre.x * centre.x + centre.y * centre.y);
    let empty = Points(vec2<f32>(0.0), vec2<f32>(0.0), 0.0, 0.0, 0u, 0u, 0u);
    return push_point(empty, scale(0.5, surface_a + surface_b), -(distance - keep(radius_a + radius_b)), contact_id(false, 0u, 0u));
}

// manifold + contact_points: one hit's manifold.
fn hit_manifold(hit: FrameHit) -> FrameManifold {
    let xf_a = body_transform(hit.a);
    let xf_b = body_transform(hit.b);
    let shape_a = body_shape(hit.a);
    let shape_b = body_shape(hit.b);
    let normal = axis_normal(xf_a, shape_a, xf_b, shape_b, hit.axis);
    let owner_b = (hit.axis & OWNER_B_BIT) != 0u;
    let feature = hit.axis & ~OWNER_B_BIT;
    var ref_xf = xf_a;
    var reference = shape_a;
    var inc_xf = xf_b;
    var incident = shape_b;
    if owner_b {
        ref_xf = xf_b;
        reference = shape_b;
        inc_xf = xf_a;
        incident = shape_a;
    }
    let size = shape_a.size + shape_b.size;
    var points: Points;
    if reference.count > 0u && incident.count > 0u && feature >= 2u * reference.count {
        points = vertex_pair_point(ref_xf, reference, inc_xf, incident, feature, owner_b);
    } else if reference.count > 0u && incident.count > 0u {
        var crossed = Crossing(false, Points(vec2<f32>(0.0), vec2<f32>(0.0), 0.0, 0.0, 0u, 0u, 0u));
        if reference.count == 2u && incident.count == 2u && hit.depth >= reference.radius + incident.radius {
            crossed = crossing_point(ref_xf, reference, inc_xf, incident, feature, owner_b, hit.depth);
        }
        if crossed.reported {
            points = crossed.points;
        } else {
            points = clip_polygons(ref_xf, reference, inc_xf, incident, feature, owner_b, hit.depth > 0.0, size, params.margin);
        }
    } else if reference.count > 0u {
        points = polygon_circle_point(ref_xf, reference, inc_xf, incident.radius, feature, owner_b, normal);
    } else {
        points = circle_point(xf_a, xf_b, shape_a.radius, shape_b.radius, normal);
    }
    return FrameManifold(normal, points.point0, points.point1, points.depth0, points.depth1, points.id0, points.id1, points.count, 0u);
}

@compute @workgroup_size(256)
fn manifold(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index >= state[STATE_HITS] {
        return;
    }
    manifolds[index] = hit_manifold(frame_hits[index]);
}
