// The frame's outcomes compacted in pair order after the narrowphase.
//
//     (grid.wgsl: the pairs, partitioned by kind as they are written)
//     (narrow.wgsl + sat.wgsl: each pair's outcome and its reported flag)
//     (scan.wgsl: the flags into each report's place)
//     compact:   each reported pair's record at its place: pair order, with
//                no sort and no host, and the number of hits

struct PairsParams {
    count_index: u32,    // where the pair count is in `state`
    capacity: u32,       // pairs the buffers hold
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> pairs_params: PairsParams;
@group(0) @binding(1) var<storage, read> pairs: array<vec2<u32>>;
@group(0) @binding(4) var<storage, read_write> state: array<u32>;
@group(0) @binding(5) var<storage, read> outcomes: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> places: array<u32>;
@group(0) @binding(7) var<storage, read_write> hits: array<FrameHit>;

fn pair_count() -> u32 {
    return min(state[pairs_params.count_index], pairs_params.capacity);
}

// One invocation per pair: the indirect arguments (grid.wgsl,
// write_dispatch_args) cover the pairs found, in a second dimension past
// the device's workgroups per dimension.
@compute @workgroup_size(256)
fn compact(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = (group.y * groups.x + group.x) * 256u + local;
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
