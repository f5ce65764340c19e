// The frame's pairs between the stages: partitioned by kind for the
// narrowphase, and its outcomes compacted in pair order after it.
//
//     classify:  per pair, (its kind, its index): one radix pass (sort.wgsl)
//                by kind turns these into each kind's pairs in pair order
//     plan:      one invocation: each kind's start and count (read from the
//                pass's scanned histogram), its grid, and the indirect
//                dispatch arguments of its entry point
//     (narrow.wgsl + sat.wgsl: the outcomes)
//     flags:     per pair, 1 if reported (0 past the count)
//     (scan.wgsl: the flags into each report's place)
//     compact:   each reported pair's record at its place: pair order, with
//                no sort and no host, and the number of hits
//
// The classes and kinds are src/gpu/d2/kinds.rs's: kinds pick the entry point
// whose straight-line code fits the pair.

struct PairsParams {
    count_index: u32,    // where the pair count is in `state`
    capacity: u32,       // pairs the buffers hold
    tiles: u32,          // the partition pass's histogram tiles
    merge_threshold: u32,
    workgroup_size: u32, // the narrowphase's
    max_groups: u32,     // workgroups per dimension
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> pairs_params: PairsParams;
@group(0) @binding(1) var<storage, read> pairs: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> tagged: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> histogram: array<u32>;
@group(0) @binding(4) var<storage, read_write> state: array<u32>;
@group(0) @binding(5) var<storage, read_write> outcomes: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read_write> places: array<u32>;
@group(0) @binding(7) var<storage, read_write> hits: array<FrameHit>;
@group(0) @binding(9) var body_shapes: texture_2d<u32>;

const PAIR_KINDS: u32 = 6u;

fn pair_count() -> u32 {
    return min(state[pairs_params.count_index], pairs_params.capacity);
}

// src/gpu/d2/kinds.rs: body_class.
fn body_class(body: u32) -> u32 {
    let count = textureLoad(body_shapes, texel(body), 0).y;
    if count == 0u {
        return 1u;
    }
    if count <= 8u {
        return 0u;
    }
    if count <= 16u && pairs_params.merge_threshold >= 16u {
        return 3u;
    }
    return 2u;
}

// src/gpu/d2/kinds.rs: KIND_OF_CLASSES, row by row.
const KIND_OF_CLASSES = array<u32, 16>(0u, 1u, 3u, 4u, 1u, 2u, 3u, 5u, 3u, 3u, 3u, 3u, 4u, 5u, 3u, 4u);

@compute @workgroup_size(256)
fn classify(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index >= pair_count() {
        return;
    }
    let pair = pairs[index];
    tagged[index] = vec2<u32>(KIND_OF_CLASSES[body_class(pair.x) * 4u + body_class(pair.y)], index);
}

@compute @workgroup_size(1)
fn plan() {
    let count = pair_count();
    for (var kind = 0u; kind < PAIR_KINDS; kind++) {
        // The exclusive scan of the digit-major histogram: digit k's first
        // place is its entry for tile 0.
        let start = histogram[kind * pairs_params.tiles];
        var end = count;
        if kind + 1u < PAIR_KINDS {
            end = histogram[(kind + 1u) * pairs_params.tiles];
        }
        let groups = (end - start + pairs_params.workgroup_size - 1u) / pairs_params.workgroup_size;
        let groups_x = clamp(groups, 1u, pairs_params.max_groups);
        var groups_y = (groups + groups_x - 1u) / groups_x;
        state[STATE_KINDS + 3u * kind] = start;
        state[STATE_KINDS + 3u * kind + 1u] = end - start;
        state[STATE_KINDS + 3u * kind + 2u] = groups_x;
        state[STATE_ARGS + 3u * kind] = select(0u, groups_x, groups > 0u);
        state[STATE_ARGS + 3u * kind + 1u] = select(0u, groups_y, groups > 0u);
        state[STATE_ARGS + 3u * kind + 2u] = 1u;
    }
}

@compute @workgroup_size(256)
fn flags(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index >= pairs_params.capacity {
        return;
    }
    var reported = 0u;
    if index < pair_count() {
        reported = outcomes[index].x;
    }
    places[index] = reported;
}

@compute @workgroup_size(256)
fn compact(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    let count = pair_count();
    if index >= count {
        return;
    }
    let outcome = outcomes[index];
    let place = places[index];
    if outcome.x == 1u {
        let pair = pairs[index];
        hits[place] = FrameHit(pair.x, pair.y, outcome.y, bitcast<f32>(outcome.z));
    }
    if index + 1u == count {
        let hit_count = place + outcome.x;
        state[STATE_HITS] = hit_count;
        // One invocation per hit, for a GPU consumer's indirect dispatch.
        state[STATE_HIT_ARGS] = (hit_count + 255u) / 256u;
        state[STATE_HIT_ARGS + 1u] = 1u;
        state[STATE_HIT_ARGS + 2u] = 1u;
    }
}
