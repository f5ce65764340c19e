// scan_blocks with subgroup operations, for devices that have them
// (loaded after scan.wgsl; naga takes the subgroup built-ins on a device
// with wgpu::Features::SUBGROUP, without an `enable` directive): the same
// block sums and places, the group's sums scanned by subgroups.
//
//     the invocations take the block's elements from
//     (subgroup id x subgroup size + lane) x 32 on (shared out by these
//     places, not by local index, so nothing depends on how the device
//     groups invocations into subgroups; the 256 invocations make whole
//     subgroups of a power of two)
//     subgroupInclusiveAdd over each invocation's sum; the subgroups'
//     totals scanned by one invocation (8 of them in subgroups of 32)
//     each invocation writes its elements' places from its subgroup's
//     start plus its exclusive sum in the subgroup

var<workgroup> subgroup_starts: array<u32, SCAN_GROUP>;

@compute @workgroup_size(256)
fn scan_blocks_subgroups(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    let place = subgroup * size + lane;
    let first = group.x * SCAN_BLOCK + place * SCAN_ITEMS;
    let end = min(first + SCAN_ITEMS, scan.count);
    let total = block_sum(first, end);
    let inclusive = subgroupInclusiveAdd(total);
    if lane + 1u == size {
        subgroup_starts[subgroup] = inclusive;
    }
    workgroupBarrier();
    if local == 0u {
        var running = 0u;
        for (var k = 0u; k < SCAN_GROUP / size; k++) {
            let value = subgroup_starts[k];
            subgroup_starts[k] = running;
            running += value;
        }
        sums[group.x] = running;
    }
    workgroupBarrier();
    block_write(first, end, subgroup_starts[subgroup] + inclusive - total);
}
