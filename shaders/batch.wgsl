// What every SAT kernel shares (2D: d2/sat.wgsl, 3D: d3/sat.wgsl, each loaded
// after this file): the pairs in, the compacted records out, the per-dispatch
// parameters, and the prologue and epilogue of every entry point.
//
// Output is compacted on the GPU: each workgroup counts its reported pairs,
// one invocation reserves room for all of them with a single atomicAdd on its
// window's counter, and each writes its record at its place in the group's
// block. Within a block the records are in slot order; the host puts the
// blocks in order. The counter keeps counting past `capacity`, so the host
// sees an overflow and re-runs with room instead of losing results. Windows
// of one batch run in one pass: each has its own pairs, output and counter,
// the first two at dynamic offsets of their buffers. Bindings 1 to 3 and 7
// on are the kernel's own (shapes and bodies).

// Mirrors of src/gpu/layout/mod.rs, checked against naga's layout by
// tests/it/gpu/layout.rs.
struct Pair {
    a: u32,
    b: u32,
}

struct HitRecord {
    pair: u32,       // the pair's slot in its window
    axis: u32,       // the dimension's Axis::pack
    depth: f32,
    _pad: u32,
}

struct Params {
    pair_base: u32,  // the slot of this kind's first pair in the window
    pair_count: u32, // pairs of this kind in the window
    groups_x: u32,   // workgroups along x in the 2D dispatch
    capacity: u32,   // records the window's output can hold
    margin: f32,
    // 2D: polygons with more vertices than this on both sides merge
    // (GPU_MERGE_THRESHOLD by default; FaceSearch). 3D: unused.
    merge_threshold: u32,
    window: u32,     // the window's counter
    // 3D: where the window's deferral words start in `counters` (d3/sat.wgsl:
    // "Deferred pairs"). 2D: unused.
    deferral: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(4) var<storage, read> pairs: array<Pair>;
@group(0) @binding(5) var<storage, read_write> hits: array<HitRecord>;
@group(0) @binding(6) var<storage, read_write> counters: array<atomic<u32>>;

override WORKGROUP_SIZE: u32 = 256u;  // the host sets it (GpuOptions::workgroup_size)
// How `finish` gives each reported pair its slot: a prefix sum over the
// workgroup in log2(WORKGROUP_SIZE) steps with barriers (hardware kinds:
// a GPU idles while one invocation loops), or one invocation's loop over
// the group (software kinds: barriers are dear on a CPU). The same slots.
override PARALLEL_SLOTS: bool = false;
// The largest WORKGROUP_SIZE allowed: the length of the workgroup array the
// slots are scanned in (scan_values, workgroup_scan.wgsl).
const MAX_WORKGROUP_SIZE: u32 = 256u;
// Texels per texture row (src/gpu/layout/mod.rs: TEXTURE_WIDTH).
const TEXTURE_WIDTH_LOG2: u32 = 11u;

// The largest finite f32 and its negation, in hexadecimal: exactly
// f32::MAX. (Tint, the browsers' WGSL compiler, refuses a decimal literal
// past it instead of rounding, and 3.40282347e38 is past it by a hair.)
const LOWEST: f32 = -0x1.fffffep+127f;
const HIGHEST: f32 = 0x1.fffffep+127f;

// What a pair function returns: whether the pair is reported, its axis
// (packed as the dimension's `Axis::pack`) and its separation (-depth).
struct PairResult {
    reported: bool,
    axis: u32,
    separation: f32,
}

fn texel(index: u32) -> vec2<u32> {
    return vec2<u32>(index & ((1u << TEXTURE_WIDTH_LOG2) - 1u), index >> TEXTURE_WIDTH_LOG2);
}

// Per invocation (scan_values, workgroup_scan.wgsl): 1 if its pair is
// reported, turned into its slot in the group.
var<workgroup> group_base: u32;

// One invocation's work: where it is in its workgroup and dispatch, and the
// pair in its slot (`live` false past the kind's last pair, whose lanes test
// that last pair again and report nothing).
struct Task {
    local: u32,
    index: u32,
    live: bool,
    pair: Pair,
}

// The prologue of every entry point. The host sorts each window's pairs by
// kind; `params.pair_base` is where this dispatch's pairs start in the
// window's pairs.
fn begin(group: vec3<u32>, local: u32) -> Task {
    let index = (group.y * params.groups_x + group.x) * WORKGROUP_SIZE + local;
    let last = max(params.pair_count, 1u) - 1u;
    return Task(local, index, index < params.pair_count, pairs[params.pair_base + min(index, last)]);
}

// The epilogue of every entry point: writes the workgroup's reported results
// as one block, in invocation order. Every invocation of the group must call
// it (it has barriers).
fn finish(task: Task, tested: PairResult) {
    var result = tested;
    result.reported = tested.reported && task.live;
    let flag = select(0u, 1u, result.reported);
    scan_values[task.local] = flag;
    workgroupBarrier();
    // Exclusive prefix sum of the flags, in invocation order: deterministic
    // slots.
    var before = 0u;
    var running = 0u;
    if PARALLEL_SLOTS {
        // Inclusive sums, then less one's own flag.
        workgroup_inclusive_scan(task.local, WORKGROUP_SIZE);
        before = scan_values[task.local] - flag;
        running = scan_values[WORKGROUP_SIZE - 1u];
    } else if task.local == 0u {
        running = serial_exclusive_scan(WORKGROUP_SIZE);
    }
    if task.local == 0u {
        var base = 0u;
        if running > 0u {
            base = atomicAdd(&counters[params.window], running);
        }
        group_base = base;
    }
    workgroupBarrier();
    if !PARALLEL_SLOTS {
        before = scan_values[task.local];
    }

    if result.reported {
        let slot = group_base + before;
        if slot < params.capacity {
            hits[slot] = HitRecord(params.pair_base + task.index, result.axis, -result.separation, 0u);
        }
    }
}
