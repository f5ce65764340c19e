// A least-significant-digit radix sort of (u32, u32) records on the GPU,
// eight bits a pass, stable. The frame sorts its candidate pairs by (a, b)
// with it, so their order is the CPU broadphase's whatever order the grid
// found them in (the keys are distinct, so a sorted order is the only
// one), and partitions pairs by kind with one pass of it.
//
// A tile is SORT_TILE consecutive records, and one workgroup of
// SORT_GROUP invocations does a tile, ITEMS rounds of SORT_GROUP records.
// Per pass, with `digit(r)` the eight bits of word `word` of record r from
// bit `shift`:
//
//     sort_count:    the tile's count of each digit, in workgroup memory,
//                    into histogram[digit * tiles + tile] (digit-major)
//     (scan.wgsl: an exclusive scan of the histogram gives, for each digit
//     and tile, where that tile's records of that digit go)
//     sort_scatter:  each record to histogram[digit * tiles + tile] + the
//                    number of the tile's records of its digit before it
//
// The scatter keeps a pass stable: round by round, each invocation counts
// the round's earlier records of its digit (a loop over the round's digits
// in workgroup memory, which every invocation reads in step), and the
// rounds before it are each digit's running count. Records past `count`
// take no part, but their invocations reach every barrier.

struct SortParams {
    shift: u32,       // the digit's lowest bit
    word: u32,        // 0: sort by record.x, 1: by record.y
    tiles: u32,       // tiles the histogram has room for
    count_index: u32, // where the record count is in `state`
    capacity: u32,    // records the buffers hold (the count is clamped to it)
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> sort: SortParams;
@group(0) @binding(1) var<storage, read> records_in: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> records_out: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read_write> histogram: array<u32>;
@group(0) @binding(4) var<storage, read> state: array<u32>;

const SORT_GROUP: u32 = 256u;
const ITEMS: u32 = 8u;
const SORT_TILE: u32 = 2048u; // SORT_GROUP * ITEMS
const DIGITS: u32 = 256u;
// A record that takes no part: no digit equals it.
const NO_DIGIT: u32 = 0xffffffffu;

var<workgroup> digit_count: array<atomic<u32>, 256>;
var<workgroup> round_count: array<atomic<u32>, 256>;
var<workgroup> running: array<u32, 256>;
var<workgroup> round_digits: array<u32, 256>;

fn record_count() -> u32 {
    return min(state[sort.count_index], sort.capacity);
}

fn digit_of(record: vec2<u32>) -> u32 {
    let word = select(record.x, record.y, sort.word == 1u);
    return (word >> sort.shift) & (DIGITS - 1u);
}

@compute @workgroup_size(256)
fn sort_count(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let tile = group.x;
    let count = record_count();
    atomicStore(&digit_count[local], 0u);
    workgroupBarrier();
    let first = tile * SORT_TILE;
    for (var item = 0u; item < ITEMS; item++) {
        let index = first + item * SORT_GROUP + local;
        if index < count {
            atomicAdd(&digit_count[digit_of(records_in[index])], 1u);
        }
    }
    workgroupBarrier();
    if tile < sort.tiles {
        histogram[local * sort.tiles + tile] = atomicLoad(&digit_count[local]);
    }
}

@compute @workgroup_size(256)
fn sort_scatter(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let tile = min(group.x, sort.tiles - 1u);
    let count = record_count();
    running[local] = 0u;
    atomicStore(&round_count[local], 0u);
    let first = tile * SORT_TILE;
    for (var item = 0u; item < ITEMS; item++) {
        let index = first + item * SORT_GROUP + local;
        var record = vec2<u32>(0u);
        var digit = NO_DIGIT;
        if index < count && group.x < sort.tiles {
            record = records_in[index];
            digit = digit_of(record);
        }
        round_digits[local] = digit;
        workgroupBarrier();
        var rank = 0u;
        for (var earlier = 0u; earlier < local; earlier++) {
            rank += select(0u, 1u, round_digits[earlier] == digit);
        }
        if digit != NO_DIGIT {
            records_out[histogram[digit * sort.tiles + tile] + running[digit] + rank] = record;
            atomicAdd(&round_count[digit], 1u);
        }
        workgroupBarrier();
        // Invocation `local` keeps digit `local`'s running count.
        running[local] += atomicLoad(&round_count[local]);
        atomicStore(&round_count[local], 0u);
        workgroupBarrier();
    }
}
