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
//     (the host scans `sums` the same way when there is more than one block)
//     scan_add:     every element of block k gets the scanned sums[k] added
//
// Where the device has subgroup operations, scan_blocks_subgroups
// (scan_subgroups.wgsl) takes scan_blocks' place: the same sums with three
// barriers instead of sixteen.
//
// The host's plan is `Scan::steps` in src/gpu/frame/scan.rs; the frame
// tests check its results (every pair's place) against the CPU's.

struct ScanParams {
    count: u32, // elements to scan
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> scan: ScanParams;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
@group(0) @binding(2) var<storage, read_write> sums: array<u32>;

const SCAN_GROUP: u32 = 256u;
const SCAN_BLOCK: u32 = 8192u;
const SCAN_ITEMS: u32 = 32u;     // SCAN_BLOCK / SCAN_GROUP


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
    let end = min(first + SCAN_ITEMS, scan.count);
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
    let end = min(first + SCAN_ITEMS, scan.count);
    for (var k = first; k < end; k++) {
        data[k] += offset;
    }
}
