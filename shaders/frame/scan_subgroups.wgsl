// scan_blocks with subgroup operations, for devices that have them
// (loaded after scan.wgsl; naga takes the subgroup built-ins on a device
// with wgpu::Features::SUBGROUP, without an `enable` directive): the same
// block sums and places, the group's sums scanned by subgroups.
//
//     each subgroup counts its invocations (subgroupAdd), and one
//     invocation turns the counts into each subgroup's first place; an
//     invocation takes the block's elements from (its subgroup's first
//     place + its lane) x 32 on (shared out by these places, not by local
//     index: nothing depends on how the device groups invocations into
//     subgroups, nor on their being full)
//     subgroupInclusiveAdd over each invocation's sum; the subgroups'
//     totals scanned by one invocation (8 of them in subgroups of 32):
//     three barriers a block where the portable scan takes sixteen
//     each invocation writes its elements' places from its subgroup's
//     start plus its exclusive sum in the subgroup

var<workgroup> subgroup_bases: array<u32, SCAN_GROUP>;

@compute @workgroup_size(256)
fn scan_blocks_subgroups(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
    @builtin(subgroup_invocation_id) lane: u32,
) {
    // Each subgroup's invocations (a device may leave one partly empty):
    // its first place is the sum of the sizes before it.
    let members = subgroupAdd(1u);
    if lane == 0u {
        subgroup_bases[subgroup] = members;
    }
    workgroupBarrier();
    if local == 0u {
        var running = 0u;
        for (var k = 0u; k < subgroups; k++) {
            let size = subgroup_bases[k];
            subgroup_bases[k] = running;
            running += size;
        }
    }
    workgroupBarrier();
    let place = subgroup_bases[subgroup] + lane;
    let first = group.x * SCAN_BLOCK + place * SCAN_ITEMS;
    let end = min(first + SCAN_ITEMS, scan_count());
    let total = block_sum(first, end);
    let inclusive = subgroupInclusiveAdd(total);
    if lane + 1u == members {
        scan_values[subgroup] = inclusive;
    }
    workgroupBarrier();
    if local == 0u {
        sums[group.x] = serial_exclusive_scan(subgroups);
    }
    workgroupBarrier();
    block_write(first, end, scan_values[subgroup] + inclusive - total);
}
