// Prefix sums over a workgroup's array of 256 u32s (`scan_values`), written
// once for the kernels that need them: the SAT kernels' epilogue
// (batch.wgsl: the reported pairs' slots), the frame's block scans
// (frame/scan.wgsl, frame/scan_subgroups.wgsl) and its large bodies' writes
// (frame/grid.wgsl). (One array, not a pointer: naga passes no pointer to
// workgroup memory into a function.)

var<workgroup> scan_values: array<u32, 256>;

// Inclusive prefix sums of scan_values[0 .. count) in place, invocation
// `local` holding scan_values[local] (Hillis and Steele: log2(count) steps
// of two barriers). Every invocation of the workgroup calls it, with one
// count.
fn workgroup_inclusive_scan(local: u32, count: u32) {
    for (var step = 1u; step < count; step <<= 1u) {
        var add = 0u;
        if local >= step {
            add = scan_values[local - step];
        }
        workgroupBarrier();
        scan_values[local] += add;
        workgroupBarrier();
    }
}

// Exclusive prefix sums of scan_values[0 .. count) in place, by one
// invocation (where barriers are dear, or the values few); returns their
// total.
fn serial_exclusive_scan(count: u32) -> u32 {
    var running = 0u;
    for (var k = 0u; k < count; k++) {
        let value = scan_values[k];
        scan_values[k] = running;
        running += value;
    }
    return running;
}
