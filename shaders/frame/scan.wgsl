// Exclusive prefix sums of u32 arrays on the GPU, in place: the frame's
// tool for turning counts into places (grid buckets into starts, bodies'
// pair counts into their first places, reported pairs into slots).
// Deterministic: a scan has one answer whatever the order the hardware runs
// its groups in.
//
// A block is 8,192 elements, 32 consecutive ones per invocation of a
// 256-invocation group (a frame's scans of up to 8,192 elements are one
// dispatch, up to 2^26 three):
//
//     scan_blocks:  each block scanned on its own: each invocation sums its
//                   elements, the group scans the sums, each invocation
//                   writes its elements' places; the block's total into
//                   sums[block]
//     (`sums` scanned the same way, one level up, when there is more than
//     one block)
//     scan_add:     every element of block k gets the scanned sums[k] added
//
// A scan's count is the host's (the buckets, the bodies), or the device's
// (the places scan runs over the frame's pairs, whose count only the
// device knows): its dispatches then take indirect arguments written with
// that count, and run over the pairs found, not over the buffers' capacity.
//
// Where the device has subgroup operations, scan_blocks_subgroups
// (scan_subgroups.wgsl) takes scan_blocks' place: the same sums with three
// barriers instead of sixteen.
//
// The host's plan is `Scan::steps` in src/gpu/frame/scan.rs; the frame
// tests check its results (every pair's place) against the CPU's.

struct ScanParams {
    count: u32,          // elements to scan (with count_index: at most)
    count_index: u32,    // the state word holding the first level's count, or NO_COUNT_INDEX
    level: u32,          // this level's count: the first's / SCAN_BLOCK this many times
    first_capacity: u32, // the most the first level's count can be
}

@group(0) @binding(0) var<uniform> scan: ScanParams;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
@group(0) @binding(2) var<storage, read_write> sums: array<u32>;
@group(0) @binding(3) var<storage, read> frame_state: array<u32>;

const SCAN_GROUP: u32 = 256u;
const SCAN_BLOCK: u32 = 8192u;
const SCAN_ITEMS: u32 = 32u;     // SCAN_BLOCK / SCAN_GROUP
const NO_COUNT_INDEX: u32 = 0xffffffffu;

// The elements this dispatch scans: the host's count, or one the device
// wrote into the frame's state (the places scan runs over the frame's
// pairs, dispatched by indirect arguments written with that count:
// grid.wgsl, write_dispatch_args).
fn scan_count() -> u32 {
    if scan.count_index == NO_COUNT_INDEX {
        return scan.count;
    }
    var count = min(frame_state[scan.count_index], scan.first_capacity);
    for (var level = 0u; level < scan.level; level++) {
        count = (count + SCAN_BLOCK - 1u) / SCAN_BLOCK;
    }
    return count;
}


// The sum of data[first .. end).
fn block_sum(first: u32, end: u32) -> u32 {
    var total = 0u;
    for (var k = first; k < end; k++) {
        total += data[k];
    }
    return total;
}

// data[first .. end) replaced by their exclusive prefix sums from `start`.
fn block_write(first: u32, end: u32, start: u32) {
    var running = start;
    for (var k = first; k < end; k++) {
        let value = data[k];
        data[k] = running;
        running += value;
    }
}

@compute @workgroup_size(256)
fn scan_blocks(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let first = group.x * SCAN_BLOCK + local * SCAN_ITEMS;
    let end = min(first + SCAN_ITEMS, scan_count());
    let total = block_sum(first, end);
    scan_values[local] = total;
    workgroupBarrier();
    workgroup_inclusive_scan(local, SCAN_GROUP);
    block_write(first, end, scan_values[local] - total);
    if local == SCAN_GROUP - 1u {
        sums[group.x] = scan_values[local];
    }
}

@compute @workgroup_size(256)
fn scan_add(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let offset = sums[group.x];
    let first = group.x * SCAN_BLOCK + local * SCAN_ITEMS;
    let end = min(first + SCAN_ITEMS, scan_count());
    for (var k = first; k < end; k++) {
        data[k] += offset;
    }
}
