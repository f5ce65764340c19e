// Exclusive prefix sums of u32 arrays on the GPU, in place: the frame's
// tool for turning counts into places (grid buckets into starts, radix
// digits into destinations, reported pairs into slots). Deterministic: a
// scan has one answer whatever the order the hardware runs its groups in.
//
// A block is 1,024 elements, 4 per invocation of a 256-invocation group:
//
//     scan_blocks:  each block scanned on its own; its total into sums[block]
//     (the host scans `sums` the same way when there is more than one block)
//     scan_add:     every element of block k gets the scanned sums[k] added
//
// Three levels cover 2^30 elements. The twin is `ScanPlan` in
// src/gpu/frame/scan.rs, which the tests compare against a CPU scan.

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
const SCAN_BLOCK: u32 = 1024u;

var<workgroup> partial: array<u32, SCAN_GROUP>;

// Inclusive scan of `partial` over the group (Hillis and Steele): 8 steps.
// Every invocation calls it (barriers).
fn scan_group(local: u32) {
    for (var step = 1u; step < SCAN_GROUP; step <<= 1u) {
        var add = 0u;
        if local >= step {
            add = partial[local - step];
        }
        workgroupBarrier();
        partial[local] += add;
        workgroupBarrier();
    }
}

@compute @workgroup_size(256)
fn scan_blocks(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let first = group.x * SCAN_BLOCK + local * 4u;
    var values = vec4<u32>(0u);
    for (var k = 0u; k < 4u; k++) {
        if first + k < scan.count {
            values[k] = data[first + k];
        }
    }
    let total = values.x + values.y + values.z + values.w;
    partial[local] = total;
    workgroupBarrier();
    scan_group(local);
    var running = partial[local] - total;
    for (var k = 0u; k < 4u; k++) {
        if first + k < scan.count {
            data[first + k] = running;
        }
        running += values[k];
    }
    if local == SCAN_GROUP - 1u {
        sums[group.x] = partial[local];
    }
}

@compute @workgroup_size(256)
fn scan_add(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let offset = sums[group.x];
    let first = group.x * SCAN_BLOCK + local * 4u;
    for (var k = 0u; k < 4u; k++) {
        if first + k < scan.count {
            data[first + k] += offset;
        }
    }
}
