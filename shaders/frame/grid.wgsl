// The frame's broadphase on the GPU: every body's box, a hashed uniform
// grid, and the pairs whose boxes overlap — the same set as the CPU's
// sweep and prune (src/d2/broadphase.rs), which the tests compare.
//
//     bounds:      per body, its world box grown by the margin (the CPU's
//                  body_aabb, operation for operation), its transform and
//                  shape texels for the narrowphase; a body whose box spans
//                  at most MAX_SPAN cells on each axis counts one entry in
//                  the bucket of each cell it covers, a larger one goes to
//                  the list of large bodies
//     (scan.wgsl: the bucket counts into bucket starts, in place)
//     scatter:     each small body into its cells' buckets, each bucket's
//                  start counted up as it fills: afterwards bucket h holds
//                  its end, and its start is bucket h - 1's end
//     find_pairs:  per small body a, every body b > a in the buckets of a's
//                  cells whose box overlaps a's, reported from the one cell
//                  that holds the lower corner of the two boxes' overlap
//     find_large:  per body, every large body it overlaps
//     (sort.wgsl: the pairs into (a, b) order)
//
// Exactness. A cell of a point is floor(p / cell size), monotone in p, so
// the corner of an overlap, which lies in both boxes, lies in a cell both
// boxes were entered in: every overlapping pair is found, and from exactly
// one cell. A bucket holds every cell hashed to it; an entry records which
// of its body's cells it stands for, so cells that share a bucket are told
// apart exactly. Boxes touching count as overlapping, as on the CPU.
//
// lavapipe ends an invocation's loops after 65,535 iterations in all (see
// d3/sat.wgsl), silently. No invocation here loops more than MAX_SCAN times:
// past it the frame is flagged crowded and the host reports it instead of
// returning a partial set.

// Mirrors of src/gpu/layout/mod.rs, checked against naga's layout by
// tests/it/gpu/layout.rs.
struct FrameBody {
    position: vec2<f32>,
    rotation: vec2<f32>, // (cos, sin)
    shape: u32,
    inv_mass: f32,       // 0: static
    _pad: vec2<u32>,
}

struct ShapeRecord {
    first: u32,
    count: u32,  // 0 marks a circle
    radius: f32,
    size: f32,
}

struct GridParams {
    body_count: u32,
    shape_count: u32,
    bucket_mask: u32,    // buckets - 1 (a power of two minus one)
    entry_capacity: u32,
    pair_capacity: u32,
    large_capacity: u32,
    skip_static: u32,    // 1: leave out pairs of two static bodies
    _pad0: u32,
    cell_inverse: f32,   // 1 / the cell's side
    margin: f32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> grid_params: GridParams;
@group(0) @binding(1) var<storage, read> bodies: array<FrameBody>;
@group(0) @binding(2) var<storage, read> shapes: array<ShapeRecord>;
@group(0) @binding(3) var edges: texture_2d<f32>;
@group(0) @binding(4) var<storage, read_write> boxes: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> buckets: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> entries: array<u32>;
@group(0) @binding(7) var<storage, read_write> pairs_found: array<vec2<u32>>;
@group(0) @binding(8) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(9) var transforms_out: texture_storage_2d<rgba32float, write>;
@group(0) @binding(10) var shapes_out: texture_storage_2d<rgba32uint, write>;

const MAX_SPAN: i32 = 4;          // cells per axis of a small body
const MAX_SCAN: u32 = 60000u;     // loop iterations of one invocation
const CELL_LIMIT: f32 = 1.0e9;    // cell coordinates are clamped to this

// src/d2/math.rs transform_point, in sat.wgsl's order (which lavapipe keeps).
fn transform_point(p: vec2<f32>, q: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(
        (q.x * v.x + p.x) - q.y * v.y,
        (q.y * v.x + p.y) + q.x * v.y,
    );
}

fn cell_of(p: vec2<f32>) -> vec2<i32> {
    let c = clamp(floor(p * grid_params.cell_inverse), vec2<f32>(-CELL_LIMIT), vec2<f32>(CELL_LIMIT));
    return vec2<i32>(c);
}

fn cell_hash(c: vec2<i32>) -> u32 {
    return ((bitcast<u32>(c.x) * 73856093u) ^ (bitcast<u32>(c.y) * 19349663u)) & grid_params.bucket_mask;
}

fn overlaps(a: vec4<f32>, b: vec4<f32>) -> bool {
    return a.x <= b.z && b.x <= a.z && a.y <= b.w && b.y <= a.w;
}

// Whether every coordinate of a box is finite, read from the bits (the
// exponent's all set: infinite or NaN). WGSL lets a compiler assume that no
// value is infinite or NaN, so a float comparison cannot tell: on an H100,
// `abs(x) <= HIGHEST` let NaN and infinite boxes through (as if folded to
// true).
fn is_finite_box(box: vec4<f32>) -> bool {
    let exponent = vec4<u32>(0x7f800000u);
    return all((bitcast<vec4<u32>>(box) & exponent) != exponent);
}

// The cells a box covers: the first cell and the count on each axis; a
// count of 0 marks a large body (more than MAX_SPAN cells on an axis) or a
// box that is not finite (in neither the grid nor the large list: `bounds`
// and `find_large_pairs` pass over it), so no cell loop runs for it.
struct Cells {
    first: vec2<i32>,
    span: vec2<i32>,
}

fn cells_of(box: vec4<f32>) -> Cells {
    let first = cell_of(box.xy);
    let span = cell_of(box.zw) - first + vec2<i32>(1);
    let small = is_finite_box(box) && span.x >= 1 && span.y >= 1 && span.x <= MAX_SPAN
        && span.y <= MAX_SPAN && box.x <= box.z && box.y <= box.w;
    return Cells(first, select(vec2<i32>(0), span, small));
}

fn is_static(body: u32) -> bool {
    return bodies[body].inv_mass == 0.0;
}

// After the scatter: the entries of bucket `h`, [start, end).
fn bucket_range(h: u32) -> vec2<u32> {
    var start = 0u;
    if h > 0u {
        start = atomicLoad(&buckets[h - 1u]);
    }
    return vec2<u32>(start, atomicLoad(&buckets[h]));
}

// Per workgroup: the grid entries its bodies make, added to the frame's
// count once (an atomic add per body on one word measured ~10 ms per
// 100,000 bodies on lavapipe: the word's cache line goes back and forth
// between the worker threads).
var<workgroup> group_entries: atomic<u32>;

// One body's box, texels and grid cells (`bounds`' body).
fn bound_body(index: u32) {
    let body = bodies[index];
    var record = ShapeRecord(0u, 0u, 0.0, 0.0);
    var lo = body.position;
    var hi = body.position;
    if body.shape < grid_params.shape_count {
        record = shapes[body.shape];
        if record.count > 0u {
            lo = vec2<f32>(HIGHEST);
            hi = vec2<f32>(LOWEST);
            for (var v = 0u; v < record.count; v++) {
                let p = transform_point(body.position, body.rotation, textureLoad(edges, texel(record.first + v), 0).xy);
                lo = min(lo, p);
                hi = max(hi, p);
            }
        } else {
            lo = body.position - vec2<f32>(record.radius);
            hi = body.position + vec2<f32>(record.radius);
        }
    }
    let box = vec4<f32>(lo - vec2<f32>(grid_params.margin), hi + vec2<f32>(grid_params.margin));
    boxes[index] = box;
    textureStore(transforms_out, texel(index), vec4<f32>(body.position, body.rotation));
    textureStore(shapes_out, texel(index), vec4<u32>(record.first, record.count, bitcast<u32>(record.radius), bitcast<u32>(record.size)));
    // A box that is not finite (a caller-written body with a position or
    // rotation that is not) is in no pair: in neither the grid nor the list
    // (cells_of gives it no cells in scatter and find_pairs).
    if !is_finite_box(box) {
        return;
    }

    let cells = cells_of(box);
    if cells.span.x == 0 {
        let slot = atomicAdd(&state[STATE_LARGE], 1u);
        if slot < grid_params.large_capacity {
            atomicStore(&state[STATE_LARGE_LIST + slot], index);
        }
        return;
    }
    atomicAdd(&group_entries, u32(cells.span.x * cells.span.y));
    for (var y = 0; y < cells.span.y; y++) {
        for (var x = 0; x < cells.span.x; x++) {
            atomicAdd(&buckets[cell_hash(cells.first + vec2<i32>(x, y))], 1u);
        }
    }
}

@compute @workgroup_size(256)
fn bounds(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    if local == 0u {
        atomicStore(&group_entries, 0u);
    }
    workgroupBarrier();
    if id.x < grid_params.body_count {
        bound_body(id.x);
    }
    workgroupBarrier();
    if local == 0u {
        atomicAdd(&state[STATE_ENTRIES], atomicLoad(&group_entries));
    }
}

@compute @workgroup_size(256)
fn scatter(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index >= grid_params.body_count {
        return;
    }
    let cells = cells_of(boxes[index]);
    let flags = select(0u, 16u, is_static(index));
    for (var y = 0; y < cells.span.y; y++) {
        for (var x = 0; x < cells.span.x; x++) {
            let bucket = cell_hash(cells.first + vec2<i32>(x, y));
            let slot = atomicAdd(&buckets[bucket], 1u);
            if slot < grid_params.entry_capacity {
                entries[slot] = (index << 5u) | flags | u32(y * cells.span.x + x);
            }
        }
    }
}

// Pairs are reported into the workgroup's own list first and reserved in
// the frame's list with one atomic add per workgroup: an add per pair on
// the one shared counter was most of find_pairs' time on lavapipe.
const GROUP_PAIRS: u32 = 1024u;
var<workgroup> group_count: atomic<u32>;
var<workgroup> group_pairs: array<vec2<u32>, GROUP_PAIRS>;
var<workgroup> group_base: u32;

fn report(a: u32, b: u32) {
    let slot = atomicAdd(&group_count, 1u);
    if slot < GROUP_PAIRS {
        group_pairs[slot] = vec2<u32>(a, b);
        return;
    }
    // The workgroup's list is full: straight to the frame's.
    let place = atomicAdd(&state[STATE_PAIRS], 1u);
    if place < grid_params.pair_capacity {
        pairs_found[place] = vec2<u32>(a, b);
    } else {
        atomicMax(&state[STATE_PAIR_OVERFLOW], 1u);
    }
}

fn begin_reports(local: u32) {
    if local == 0u {
        atomicStore(&group_count, 0u);
    }
    workgroupBarrier();
}

// Every invocation of the group calls it (barriers).
fn flush_reports(local: u32) {
    workgroupBarrier();
    let count = min(atomicLoad(&group_count), GROUP_PAIRS);
    if local == 0u {
        let base = atomicAdd(&state[STATE_PAIRS], count);
        // Past the capacity (the host grows the buffers), or so far past
        // that the count wrapped: the flag tells the two apart.
        if base + count > grid_params.pair_capacity || base + count < base {
            atomicMax(&state[STATE_PAIR_OVERFLOW], 1u);
        }
        group_base = base;
    }
    workgroupBarrier();
    let base = group_base;
    for (var slot = local; slot < count; slot += GROUP_SIZE) {
        if base + slot < grid_params.pair_capacity {
            pairs_found[base + slot] = group_pairs[slot];
        }
    }
}

const GROUP_SIZE: u32 = 64u;

// Body a's pairs with the bodies after it in its cells.
fn find_body_pairs(a: u32) {
    let box_a = boxes[a];
    let cells = cells_of(box_a);
    let skip_static = grid_params.skip_static == 1u && is_static(a);
    var scanned = 0u;
    for (var y = 0; y < cells.span.y; y++) {
        for (var x = 0; x < cells.span.x; x++) {
            let cell = cells.first + vec2<i32>(x, y);
            // Clamped to the entries written: past an overflow the rest
            // are an earlier frame's (the frame runs again with room).
            let bucket = min(bucket_range(cell_hash(cell)), vec2<u32>(grid_params.entry_capacity));
            for (var k = bucket.x; k < bucket.y; k++) {
                scanned++;
                if scanned > MAX_SCAN {
                    atomicMax(&state[STATE_CROWDED], 1u);
                    return;
                }
                let entry = entries[k];
                let b = entry >> 5u;
                if b <= a || (skip_static && (entry & 16u) != 0u) {
                    continue;
                }
                let box_b = boxes[b];
                if !overlaps(box_a, box_b) {
                    continue;
                }
                // The entry's own cell: another of b's cells may share the bucket.
                let cells_b = cells_of(box_b);
                let local = i32(entry & 15u);
                if any(cells_b.first + vec2<i32>(local % cells_b.span.x, local / cells_b.span.x) != cell) {
                    continue;
                }
                if any(cell_of(max(box_a.xy, box_b.xy)) != cell) {
                    continue;
                }
                report(a, b);
            }
        }
    }
}

@compute @workgroup_size(64)
fn find_pairs(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    begin_reports(local);
    if id.x < grid_params.body_count {
        find_body_pairs(id.x);
    }
    flush_reports(local);
}

// Body b's pairs with the large bodies.
fn find_large_pairs(b: u32) {
    let large = min(atomicLoad(&state[STATE_LARGE]), grid_params.large_capacity);
    if large == 0u {
        return;
    }
    let box_b = boxes[b];
    if !is_finite_box(box_b) {
        return;
    }
    let b_large = cells_of(box_b).span.x == 0;
    let skip_static = grid_params.skip_static == 1u && is_static(b);
    for (var k = 0u; k < large; k++) {
        let l = atomicLoad(&state[STATE_LARGE_LIST + k]);
        // Two large bodies: found once, from the higher one.
        if l == b || (b_large && l > b) || (skip_static && is_static(l)) {
            continue;
        }
        if overlaps(boxes[l], box_b) {
            report(min(l, b), max(l, b));
        }
    }
}

@compute @workgroup_size(64)
fn find_large(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    begin_reports(local);
    if id.x < grid_params.body_count {
        find_large_pairs(id.x);
    }
    flush_reports(local);
}
