// The frame's broadphase on the GPU: every body's box, a hashed uniform
// grid, and the pairs whose boxes overlap — the same set in the same
// (a, b) order as the CPU's sweep and prune (src/d2/broadphase.rs), which
// the tests compare, with no sort: each pair has an owner, its lower body,
// and each owner writes its own partners in order at its place.
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
//     count_pairs: per body a (one invocation, or in a frame of few bodies
//                  count_pairs_team: a team of 32 sharing its walk), the
//                  partners it owns: every small body b > a in the
//                  buckets of a's cells whose box overlaps a's, reported
//                  from the one cell that holds the lower corner of the two
//                  boxes' overlap, and every large body b > a it overlaps;
//                  a pair with a large body l < a is counted into l's tally
//                  instead
//     (scan.wgsl: the tallies into each owner's first place, in place)
//     write_pairs: per small body a, its partners walked again, kept in
//                  order by insertion (32 at most) and written from a's
//                  place on; write_pairs_team: walked by a team into its
//                  list in workgroup memory and sorted there (a bitonic
//                  network of 64); an owner of more has one invocation
//                  append them and heap-sort them in place
//     write_large: a workgroup per large body l: every body b > l, 2,048 at
//                  a time in order, a workgroup prefix sum placing the
//                  partners
//
// Both writes also partition the pairs by kind for the narrowphase
// (src/gpu/d2/kinds.rs): each kind has its own region of the partition
// buffer, filled through one atomic add per kind per workgroup, and the
// indirect dispatch arguments of the kind's entry point grow by atomic
// maximum as it fills (order inside a kind does not matter: the
// narrowphase writes each outcome at its pair's index).
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
    merge_threshold: u32, // body_class: polygons above it on both sides merge
    cell_inverse: f32,   // 1 / the cell's side
    margin: f32,
    narrow_workgroup: u32, // the narrowphase's workgroup size
    max_groups: u32,     // workgroups per dimension the device allows
}

@group(0) @binding(0) var<uniform> grid_params: GridParams;
@group(0) @binding(1) var<storage, read> bodies: array<FrameBody>;
@group(0) @binding(2) var<storage, read> shapes: array<ShapeRecord>;
@group(0) @binding(3) var edges: texture_2d<f32>;
@group(0) @binding(4) var<storage, read_write> boxes: array<vec4<f32>>;
// The buckets (bucket_mask + 1 of them), then each body's tally of the
// pairs it owns (scanned into its first place).
@group(0) @binding(5) var<storage, read_write> buckets: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> entries: array<u32>;
@group(0) @binding(7) var<storage, read_write> pairs: array<vec2<u32>>;
@group(0) @binding(8) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(9) var transforms_out: texture_storage_2d<rgba32float, write>;
@group(0) @binding(10) var shapes_out: texture_storage_2d<rgba32uint, write>;
// Each kind's pair indices, kind k's from k * pair_capacity.
@group(0) @binding(11) var<storage, read_write> kind_pairs: array<u32>;

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
// and the walks pass over it), so no cell loop runs for it.
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
    // A shape past the library (a caller-written body): no box (not a
    // number, made at run time: a constant NaN is a shader error), no pair.
    let none = bitcast<f32>(0x7fc00000u | (grid_params.shape_count & 0u));
    var lo = vec2<f32>(none);
    var hi = vec2<f32>(none);
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
            // The core's box grown by its radius (capsules, rounded
            // polygons; 0 for the others), as body_aabb grows it.
            lo = lo - vec2<f32>(record.radius);
            hi = hi + vec2<f32>(record.radius);
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
    // (cells_of gives it no cells in scatter and the walks).
    if !is_finite_box(box) {
        return;
    }

    let cells = cells_of(box);
    if cells.span.x == 0 {
        let slot = atomicAdd(&state[STATE_LARGE], 1u);
        if slot < grid_params.large_capacity {
            atomicStore(&state[STATE_LARGE_LIST + slot], index);
            // write_large's indirect dispatch: a workgroup per large body.
            atomicMax(&state[STATE_LARGE_ARGS], slot + 1u);
            atomicMax(&state[STATE_LARGE_ARGS + 1u], 1u);
            atomicMax(&state[STATE_LARGE_ARGS + 2u], 1u);
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

// Where body `body`'s tally (then its first place) is in `buckets`.
fn tally_at(body: u32) -> u32 {
    return grid_params.bucket_mask + 1u + body;
}

// ---------------------------------------------------------------------
// Each owner's partners: a walk over its cells' buckets and the large
// bodies, shared by the count and the write (the same tests, so the two
// passes agree on every pair). A team of TEAM invocations walks one body,
// each taking every TEAM-th entry of each bucket (neighbouring invocations
// read neighbouring entries), so a body's walk is TEAM times shorter than
// one invocation's.

const TEAM: u32 = 32u;            // invocations a body
const TEAMS: u32 = 8u;            // bodies a workgroup of 256
const TEAM_LIST: u32 = 64u;       // partners a team sorts in workgroup memory
const KEPT: u32 = 32u;            // partners one invocation keeps in order

// What offer does with a partner: counts it, lists it in the team's list,
// keeps it in order (one invocation a body, up to KEPT), or appends it at
// the owner's next place (one invocation, past TEAM_LIST or KEPT).
const COUNT: u32 = 0u;
const LIST: u32 = 1u;
const KEEP: u32 = 2u;
const APPEND: u32 = 3u;

var<private> mode: u32;
var<private> owner: u32;
var<private> team: u32;              // LIST: the invocation's team
var<private> first_place: u32;       // APPEND: the owner's first place
var<private> found: u32;             // partners this invocation walked
var<private> kept: array<u32, KEPT>; // KEEP: those partners, in order
var<private> tallied: u32;           // pairs counted into large bodies' tallies
var<private> spent: u32;             // loop iterations so far

var<workgroup> team_found: array<atomic<u32>, TEAMS>;
var<workgroup> team_list: array<u32, 512>; // TEAMS * TEAM_LIST

// One more loop iteration; false (and the frame flagged crowded) past
// MAX_SCAN.
fn spend() -> bool {
    spent++;
    if spent > MAX_SCAN {
        atomicMax(&state[STATE_CROWDED], 1u);
        return false;
    }
    return true;
}

// A partner b of the owner walking (b > owner).
fn offer(b: u32) {
    found++;
    if mode == APPEND {
        let place = first_place + found - 1u;
        if place < grid_params.pair_capacity {
            pairs[place] = vec2<u32>(owner, b);
        }
    } else if mode == LIST {
        let slot = atomicAdd(&team_found[team], 1u);
        if slot < TEAM_LIST {
            team_list[team * TEAM_LIST + slot] = b;
        }
    } else if mode == KEEP {
        // An insertion from the end (the count pass said at most KEPT).
        var slot = min(found - 1u, KEPT - 1u);
        while slot > 0u && kept[slot - 1u] > b {
            if !spend() {
                return;
            }
            kept[slot] = kept[slot - 1u];
            slot--;
        }
        kept[slot] = b;
    }
}

// Walks body a's partners, this invocation taking entries `lane`, `lane +
// stride`, ...: offers those a owns (small bodies b > a from its cells when
// a is small, large bodies b > a) in the order found, and with
// `tally_large` counts each pair with a large body l < a into l's tally.
// False when the walk ran out of iterations (the frame is flagged crowded).
fn walk_partners(a: u32, lane: u32, stride: u32, tally_large: bool) -> bool {
    let box_a = boxes[a];
    if !is_finite_box(box_a) {
        return true;
    }
    let cells = cells_of(box_a);
    let skip_static = grid_params.skip_static == 1u && is_static(a);
    for (var y = 0; y < cells.span.y; y++) {
        for (var x = 0; x < cells.span.x; x++) {
            let cell = cells.first + vec2<i32>(x, y);
            // Clamped to the entries written: past an overflow the rest
            // are an earlier frame's (the frame runs again with room).
            let bucket = min(bucket_range(cell_hash(cell)), vec2<u32>(grid_params.entry_capacity));
            for (var k = bucket.x + lane; k < bucket.y; k += stride) {
                if !spend() {
                    return false;
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
                offer(b);
            }
        }
    }
    let large = min(atomicLoad(&state[STATE_LARGE]), grid_params.large_capacity);
    let a_large = cells.span.x == 0;
    for (var k = lane; k < large; k += stride) {
        if !spend() {
            return false;
        }
        let l = atomicLoad(&state[STATE_LARGE_LIST + k]);
        // Two large bodies: walked from the higher one.
        if l == a || (a_large && l > a) || (skip_static && is_static(l)) {
            continue;
        }
        if !overlaps(boxes[l], box_a) {
            continue;
        }
        if l > a {
            offer(l);
        } else if tally_large {
            atomicAdd(&buckets[tally_at(l)], 1u);
            tallied++;
        }
    }
    return true;
}

// Whether body a is in the grid (a finite box of at most MAX_SPAN cells a
// side): its partners are written by write_pairs, a large body's by
// write_large.
fn is_small(a: u32) -> bool {
    return cells_of(boxes[a]).span.x != 0;
}

// Every invocation of the workgroup calls it (barriers): each team's list
// of TEAM_LIST partners (the empty places hold 0xffffffff) into increasing
// order, a bitonic network of compare-exchanges, TEAM at a time.
fn sort_team_lists(lane: u32) {
    let base = team * TEAM_LIST;
    for (var size = 2u; size <= TEAM_LIST; size <<= 1u) {
        for (var gap = size >> 1u; gap > 0u; gap >>= 1u) {
            workgroupBarrier();
            // This invocation's pair: i and i + gap (or, first in each
            // size, the mirror of i in its block: every comparison puts
            // the smaller first).
            let i = (lane / gap) * gap * 2u + lane % gap;
            var j = i + gap;
            if gap == size >> 1u {
                j = (i / size) * size + size - 1u - i % size;
            }
            let low = team_list[base + i];
            let high = team_list[base + j];
            if low > high {
                team_list[base + i] = high;
                team_list[base + j] = low;
            }
        }
    }
    workgroupBarrier();
}

// The partners b of pairs[first .. first + count) into increasing order,
// in place (a heap sort: no memory beside them, count log count steps).
fn sort_partners(first: u32, count: u32) -> bool {
    var start = count / 2u;
    while start > 0u {
        start--;
        if !sift_down(first, start, count) {
            return false;
        }
    }
    var end = count;
    while end > 1u {
        end--;
        let top = pairs[first];
        pairs[first] = pairs[first + end];
        pairs[first + end] = top;
        if !sift_down(first, 0u, end) {
            return false;
        }
    }
    return true;
}

// Moves heap entry `root` of pairs[first .. first + end) down to its place
// (the largest partner on top).
fn sift_down(first: u32, root_at: u32, end: u32) -> bool {
    var root = root_at;
    loop {
        if !spend() {
            return false;
        }
        var child = 2u * root + 1u;
        if child >= end {
            break;
        }
        if child + 1u < end && pairs[first + child + 1u].y > pairs[first + child].y {
            child++;
        }
        let top = pairs[first + root];
        let below = pairs[first + child];
        if top.y >= below.y {
            break;
        }
        pairs[first + root] = below;
        pairs[first + child] = top;
        root = child;
    }
    return true;
}

// ---------------------------------------------------------------------
// The partition by kind (src/gpu/d2/kinds.rs).

const PAIR_KINDS: u32 = 6u;

// src/gpu/d2/kinds.rs: frame_body_class (a shape past the library is a
// point): a capsule, a segment or a rounded polygon takes the loop kind.
fn body_class(body: u32) -> u32 {
    let shape = bodies[body].shape;
    var count = 0u;
    var radius = 0.0;
    if shape < grid_params.shape_count {
        count = shapes[shape].count;
        radius = shapes[shape].radius;
    }
    if count == 2u || (count > 0u && radius > 0.0) {
        return 2u;
    }
    if count == 0u {
        return 1u;
    }
    if count <= 8u {
        return 0u;
    }
    if count <= 16u && grid_params.merge_threshold >= 16u {
        return 3u;
    }
    return 2u;
}

// src/gpu/d2/kinds.rs: KIND_OF_CLASSES, row by row.
const KIND_OF_CLASSES = array<u32, 16>(0u, 1u, 3u, 4u, 1u, 2u, 3u, 5u, 3u, 3u, 3u, 3u, 4u, 5u, 3u, 4u);

// The kind of a pair of owner_class's owner with body b.
fn pair_kind(owner_class: u32, b: u32) -> u32 {
    return KIND_OF_CLASSES[owner_class * 4u + body_class(b)];
}

var<workgroup> group_kinds: array<atomic<u32>, PAIR_KINDS>;
var<workgroup> group_kind_bases: array<u32, PAIR_KINDS>;

// Every invocation of the workgroup calls it (barriers), with pairs of
// `owner` it wrote itself (first, first + stride, ... : `count` of them; no
// invocation reads another's writes, which a device need not show it
// before the pass ends): each goes into its kind's region, the workgroup
// reserving each kind's room with one atomic add, and the kind's dispatch
// arguments grown to cover it.
fn partition_pairs(local: u32, owner_body: u32, first: u32, count: u32, stride: u32) {
    if local < PAIR_KINDS {
        atomicStore(&group_kinds[local], 0u);
    }
    workgroupBarrier();
    let capacity = grid_params.pair_capacity;
    let end = min(first + count * stride, capacity);
    // The owner's class once (an idle invocation's owner may be no body).
    var owner_class = 0u;
    if count > 0u {
        owner_class = body_class(owner_body);
    }
    var mine = array<u32, PAIR_KINDS>();
    for (var p = first; p < end; p += stride) {
        mine[pair_kind(owner_class, pairs[p].y)] += 1u;
    }
    var at = array<u32, PAIR_KINDS>();
    for (var kind = 0u; kind < PAIR_KINDS; kind++) {
        if mine[kind] > 0u {
            at[kind] = atomicAdd(&group_kinds[kind], mine[kind]);
        }
    }
    workgroupBarrier();
    if local < PAIR_KINDS {
        let total = atomicLoad(&group_kinds[local]);
        var base = 0u;
        if total > 0u {
            base = atomicAdd(&state[STATE_KINDS + local], total);
            let size = grid_params.narrow_workgroup;
            let groups = (min(base + total, capacity) + size - 1u) / size;
            let most = grid_params.max_groups;
            atomicMax(&state[STATE_ARGS + 3u * local], min(groups, most));
            atomicMax(&state[STATE_ARGS + 3u * local + 1u], (groups + most - 1u) / most);
            atomicMax(&state[STATE_ARGS + 3u * local + 2u], 1u);
        }
        group_kind_bases[local] = base;
    }
    workgroupBarrier();
    for (var p = first; p < end; p += stride) {
        let kind = pair_kind(owner_class, pairs[p].y);
        let slot = group_kind_bases[kind] + at[kind];
        at[kind] += 1u;
        if slot < capacity {
            kind_pairs[kind * capacity + slot] = p;
        }
    }
}

// ---------------------------------------------------------------------
// The entry points.

const SCAN_BLOCK: u32 = 8192u;    // the places scan's block (scan.wgsl)
const SCAN_LEVELS: u32 = 3u;      // its levels at most

// The places scan's and compact's indirect dispatch arguments, from the
// frame's pair count (final once count_pairs has run): a workgroup per
// block of SCAN_BLOCK at each level of the scan (the pairs' flags, then
// each level's block sums), and one invocation per pair for compact, in
// workgroups of 256 (a second dimension past max_groups). So those stages
// run over the pairs found, not over the buffers' capacity. One
// invocation of write_pairs writes them.
fn write_dispatch_args() {
    let pairs = min(atomicLoad(&state[STATE_PAIRS]), grid_params.pair_capacity);
    var count = pairs;
    for (var level = 0u; level < SCAN_LEVELS; level++) {
        count = (count + SCAN_BLOCK - 1u) / SCAN_BLOCK;
        atomicStore(&state[STATE_SCAN_ARGS + 3u * level], count);
        atomicStore(&state[STATE_SCAN_ARGS + 3u * level + 1u], 1u);
        atomicStore(&state[STATE_SCAN_ARGS + 3u * level + 2u], 1u);
    }
    let groups = (pairs + 255u) / 256u;
    let most = grid_params.max_groups;
    atomicStore(&state[STATE_COMPACT_ARGS], min(groups, most));
    atomicStore(&state[STATE_COMPACT_ARGS + 1u], (groups + most - 1u) / most);
    atomicStore(&state[STATE_COMPACT_ARGS + 2u], 1u);
}

var<workgroup> group_pairs: atomic<u32>;

// The frame's pair count, one atomic add per workgroup; past the capacity
// (the host grows the buffers) or so far past that the count wrapped, the
// flag tells the two apart.
fn add_group_pairs() {
    let count = atomicLoad(&group_pairs);
    let base = atomicAdd(&state[STATE_PAIRS], count);
    if base + count > grid_params.pair_capacity || base + count < base {
        atomicMax(&state[STATE_PAIR_OVERFLOW], 1u);
    }
}

// The pairs body a owns, its first place being `first`: up to the
// next body's first place (the last body's: the frame's count).
fn owned_count(a: u32, first: u32) -> u32 {
    var end = 0u;
    if a + 1u < grid_params.body_count {
        end = atomicLoad(&buckets[tally_at(a + 1u)]);
    } else {
        end = atomicLoad(&state[STATE_PAIRS]);
    }
    return end - first;
}

// The workgroups walk TEAMS bodies at a time, as many times as it takes
// (the dispatch may hold fewer workgroups than the bodies need).
fn team_rounds(groups: u32) -> u32 {
    return (grid_params.body_count + groups * TEAMS - 1u) / (groups * TEAMS);
}

@compute @workgroup_size(256)
fn count_pairs_team(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    team = local / TEAM;
    let lane = local % TEAM;
    if local == 0u {
        atomicStore(&group_pairs, 0u);
    }
    let rounds = team_rounds(groups.x);
    for (var round = 0u; round < rounds; round++) {
        // The last round's counts read before they are cleared.
        workgroupBarrier();
        if local < TEAMS {
            atomicStore(&team_found[local], 0u);
        }
        workgroupBarrier();
        let a = (round * groups.x + group.x) * TEAMS + team;
        found = 0u;
        tallied = 0u;
        if a < grid_params.body_count {
            mode = COUNT;
            owner = a;
            spent = 0u;
            walk_partners(a, lane, TEAM, true);
            atomicAdd(&team_found[team], found);
            atomicAdd(&group_pairs, found + tallied);
        }
        workgroupBarrier();
        let own = atomicLoad(&team_found[team]);
        if lane == 0u && a < grid_params.body_count && own > 0u {
            atomicAdd(&buckets[tally_at(a)], own);
        }
    }
    workgroupBarrier();
    if local == 0u {
        add_group_pairs();
    }
}

@compute @workgroup_size(256)
fn write_pairs_team(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    team = local / TEAM;
    let lane = local % TEAM;
    if group.x == 0u && local == 0u {
        write_dispatch_args();
    }
    let rounds = team_rounds(groups.x);
    for (var round = 0u; round < rounds; round++) {
        let a = (round * groups.x + group.x) * TEAMS + team;
        var first = 0u;
        var count = 0u;
        if a < grid_params.body_count && is_small(a) {
            first = atomicLoad(&buckets[tally_at(a)]);
            count = owned_count(a, first);
        }
        if local < TEAMS {
            atomicStore(&team_found[local], 0u);
        }
        team_list[team * TEAM_LIST + lane] = 0xffffffffu;
        team_list[team * TEAM_LIST + lane + TEAM] = 0xffffffffu;
        workgroupBarrier();
        // The writes below and the partition's two loops over the pairs,
        // counted against the invocation's iterations up front.
        // (A walk that runs out flags the frame crowded: an error, so what
        // it leaves unwritten is never read.)
        spent = 3u * count;
        owner = a;
        found = 0u;
        if count > 0u && count <= TEAM_LIST {
            mode = LIST;
            walk_partners(a, lane, TEAM, false);
        } else if count > TEAM_LIST && lane == 0u {
            // More than the team's list: one invocation appends them and
            // sorts them in place (sorted only where they all fit, else the
            // frame runs again).
            mode = APPEND;
            first_place = first;
            if walk_partners(a, 0u, 1u, false) && first + count <= grid_params.pair_capacity {
                sort_partners(first, count);
            }
        }
        sort_team_lists(lane);
        if count <= TEAM_LIST {
            for (var k = lane; k < count; k += TEAM) {
                if first + k < grid_params.pair_capacity {
                    pairs[first + k] = vec2<u32>(a, team_list[team * TEAM_LIST + k]);
                }
            }
        }
        // Each invocation partitions the pairs it wrote: every TEAM-th from
        // its lane, or all of them for the one that appended them. One call
        // for every invocation, its arguments selected, so that the
        // partition's barriers are in uniform control flow (WebGPU's
        // uniformity rule; Tint refuses the call in a branch on `count`).
        let listed = count <= TEAM_LIST;
        let mine = select(
            select(0u, count, lane == 0u),
            select(0u, (count - lane + TEAM - 1u) / TEAM, lane < count),
            listed,
        );
        partition_pairs(
            local,
            a,
            select(first, first + lane, listed),
            mine,
            select(1u, TEAM, listed),
        );
    }
}

// One invocation a body: for many bodies, where the GPU is busy anyway and
// a team's idle lanes cost more than the walk's length.

@compute @workgroup_size(256)
fn count_pairs(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    if local == 0u {
        atomicStore(&group_pairs, 0u);
    }
    workgroupBarrier();
    let a = id.x;
    if a < grid_params.body_count {
        mode = COUNT;
        owner = a;
        found = 0u;
        tallied = 0u;
        spent = 0u;
        walk_partners(a, 0u, 1u, true);
        if found > 0u {
            atomicAdd(&buckets[tally_at(a)], found);
        }
        atomicAdd(&group_pairs, found + tallied);
    }
    workgroupBarrier();
    if local == 0u {
        add_group_pairs();
    }
}

@compute @workgroup_size(256)
fn write_pairs(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let a = id.x;
    if a == 0u {
        write_dispatch_args();
    }
    var first = 0u;
    var count = 0u;
    if a < grid_params.body_count && is_small(a) {
        first = atomicLoad(&buckets[tally_at(a)]);
        count = owned_count(a, first);
        owner = a;
        found = 0u;
        // The writes below and the partition's two loops over the pairs,
        // counted against the invocation's iterations up front.
        spent = 3u * count;
        if count == 0u {
            // No partners: nothing to walk for.
        } else if count <= KEPT {
            mode = KEEP;
            if walk_partners(a, 0u, 1u, false) {
                for (var k = 0u; k < count; k++) {
                    if first + k < grid_params.pair_capacity {
                        pairs[first + k] = vec2<u32>(a, kept[k]);
                    }
                }
            }
        } else {
            mode = APPEND;
            first_place = first;
            // Sorted only where they all fit (else the frame runs again).
            if walk_partners(a, 0u, 1u, false) && first + count <= grid_params.pair_capacity {
                sort_partners(first, count);
            }
        }
    }
    partition_pairs(local, a, first, count, 1u);
}

// Bodies each invocation of write_large tests a round.
const LARGE_ITEMS: u32 = 8u;
var<workgroup> large_body: u32;
var<workgroup> large_first: u32;
var<workgroup> large_count: u32;

@compute @workgroup_size(256)
fn write_large(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    // The indirect arguments give one workgroup per listed large body.
    if local == 0u {
        let l = atomicLoad(&state[STATE_LARGE_LIST + group.x]);
        large_body = l;
        let first = atomicLoad(&buckets[tally_at(l)]);
        large_first = first;
        large_count = owned_count(l, first);
    }
    let l = workgroupUniformLoad(&large_body);
    let first = workgroupUniformLoad(&large_first);
    // Its pairs (counted by the bodies it overlaps): the scan stops once
    // they are all placed.
    let owned = workgroupUniformLoad(&large_count);
    let count = grid_params.body_count;
    let box_l = boxes[l];
    let skip_static = grid_params.skip_static == 1u && is_static(l);
    let span = 256u * LARGE_ITEMS;
    if (count - l) / span > MAX_SCAN {
        if local == 0u {
            atomicMax(&state[STATE_CROWDED], 1u);
        }
        return;
    }
    var placed = 0u;
    for (var start = l + 1u; start < count && placed < owned; start += span) {
        // This invocation's bodies, in order: which are partners.
        var mask = 0u;
        var mine = 0u;
        for (var k = 0u; k < LARGE_ITEMS; k++) {
            let b = start + local * LARGE_ITEMS + k;
            if b < count {
                let box_b = boxes[b];
                if is_finite_box(box_b) && overlaps(box_l, box_b) && !(skip_static && is_static(b)) {
                    mask |= 1u << k;
                    mine++;
                }
            }
        }
        // The workgroup's exclusive prefix sum of the partners.
        scan_values[local] = mine;
        workgroupBarrier();
        workgroup_inclusive_scan(local, 256u);
        let before = scan_values[local] - mine;
        let total = workgroupUniformLoad(&scan_values[255]);
        var place = first + placed + before;
        for (var k = 0u; k < LARGE_ITEMS; k++) {
            if (mask & (1u << k)) != 0u {
                if place < grid_params.pair_capacity {
                    pairs[place] = vec2<u32>(l, start + local * LARGE_ITEMS + k);
                }
                place++;
            }
        }
        partition_pairs(local, l, first + placed + before, mine, 1u);
        placed += total;
    }
}
