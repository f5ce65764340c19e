// The frame's narrowphase prologue: loaded after common.wgsl and before
// sat.wgsl, in place of
// batch.wgsl, so the 2D kernel's pair functions and entry points run
// unchanged on pairs the GPU found. Where batch.wgsl takes a window's pairs
// and compacts the reports with atomics, this takes each kind's pairs from
// the partition (pairs.wgsl: classify, then one radix pass by kind), their
// count and grid from the frame's state (written by pairs.wgsl: plan, which
// also wrote the indirect dispatch's arguments: no count goes to the host),
// and writes every pair's outcome at the pair's own index, so that the
// compaction after it (pairs.wgsl: compact) keeps pair order.

// Mirror of src/gpu/frame/narrow.rs, checked against naga's layout by
// tests/it/gpu/layout.rs.
struct Pair {
    a: u32,
    b: u32,
}

struct NarrowParams {
    kind: u32,            // the entry point's kind of pair
    merge_threshold: u32, // as in batch.wgsl's Params
    margin: f32,
    capacity: u32,        // pairs a kind's region of the partition holds
}

@group(0) @binding(0) var<uniform> params: NarrowParams;
@group(0) @binding(4) var<storage, read> pairs: array<Pair>;
@group(0) @binding(5) var<storage, read> kind_pairs: array<u32>;
@group(0) @binding(6) var<storage, read_write> outcomes: array<vec4<u32>>;
@group(0) @binding(7) var<storage, read_write> places: array<u32>;
@group(0) @binding(8) var<storage, read> state: array<u32>;

override WORKGROUP_SIZE: u32 = 256u;

struct PairResult {
    reported: bool,
    axis: u32,
    separation: f32,
}

struct Task {
    live: bool,
    index: u32, // the pair's index in the frame's pairs
    pair: Pair,
}

fn begin(group: vec3<u32>, local: u32) -> Task {
    let start = params.kind * params.capacity;
    let count = min(state[STATE_KINDS + params.kind], params.capacity);
    let groups_x = state[STATE_ARGS + 3u * params.kind];
    let slot = (group.y * groups_x + group.x) * WORKGROUP_SIZE + local;
    let index = kind_pairs[start + min(slot, max(count, 1u) - 1u)];
    return Task(slot < count, index, pairs[index]);
}

// outcome: (reported, axis, depth bits, 0); places: the reported flag,
// scanned into the hit's place.
fn finish(task: Task, result: PairResult) {
    if task.live {
        let reported = select(0u, 1u, result.reported);
        outcomes[task.index] = vec4<u32>(reported, result.axis, bitcast<u32>(-result.separation), 0u);
        places[task.index] = reported;
    }
}
