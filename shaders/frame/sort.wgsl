// A least-significant-digit radix sort of (u32, u32) records on the GPU,
// four bits a pass, stable. The frame sorts its candidate pairs by (a, b)
// with it, so their order is the CPU broadphase's whatever order the grid
// found them in (the keys are distinct, so a sorted order is the only
// one), and partitions pairs by kind with one pass of it.
//
// A tile is 128 consecutive records, and one invocation does a tile from
// start to end, in order. Per pass, with `digit(r)` the four bits of word
// `word` of record r from bit `shift`:
//
//     sort_count:    each tile's count of each digit, into
//                    histogram[digit * tiles + tile] (digit-major)
//     (scan.wgsl: an exclusive scan of the histogram gives, for each digit
//     and tile, where that tile's records of that digit go)
//     sort_scatter:  each record to histogram[digit * tiles + tile] + the
//                    number of the tile's records of its digit before it
//
// Walking the tile in order is what keeps a pass stable. The sixteen
// counts are 8-bit counters packed in a vec4<u32> (a tile's count is at
// most 128), so no invocation indexes an array of its own (slow on
// lavapipe), and there is no workgroup barrier: a first version ranked a
// tile of 256 with a workgroup scan, and its 16 barriers per tile made the
// scatter cost 16 ms a pass on 200,000 records on lavapipe.
// Records past `count` take no part.

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

const SORT_TILE: u32 = 128u;
const DIGITS: u32 = 16u;

fn record_count() -> u32 {
    return min(state[sort.count_index], sort.capacity);
}

fn digit_of(record: vec2<u32>) -> u32 {
    let word = select(record.x, record.y, sort.word == 1u);
    return (word >> sort.shift) & (DIGITS - 1u);
}

// Count `digit` in the packed counters.
fn count_digit(counters: vec4<u32>, digit: u32) -> vec4<u32> {
    var counted = counters;
    counted[digit / 4u] += 1u << (8u * (digit % 4u));
    return counted;
}

fn counted(counters: vec4<u32>, digit: u32) -> u32 {
    return (counters[digit / 4u] >> (8u * (digit % 4u))) & 0xffu;
}

// The records of `tile`: [first, end).
fn tile_range(tile: u32) -> vec2<u32> {
    let count = record_count();
    let first = min(tile * SORT_TILE, count);
    return vec2<u32>(first, min(first + SORT_TILE, count));
}

@compute @workgroup_size(64)
fn sort_count(@builtin(global_invocation_id) id: vec3<u32>) {
    let tile = id.x;
    if tile >= sort.tiles {
        return;
    }
    let range = tile_range(tile);
    var counters = vec4<u32>(0u);
    for (var index = range.x; index < range.y; index++) {
        counters = count_digit(counters, digit_of(records_in[index]));
    }
    for (var digit = 0u; digit < DIGITS; digit++) {
        histogram[digit * sort.tiles + tile] = counted(counters, digit);
    }
}

@compute @workgroup_size(64)
fn sort_scatter(@builtin(global_invocation_id) id: vec3<u32>) {
    let tile = id.x;
    if tile >= sort.tiles {
        return;
    }
    let range = tile_range(tile);
    var counters = vec4<u32>(0u);
    for (var index = range.x; index < range.y; index++) {
        let record = records_in[index];
        let digit = digit_of(record);
        records_out[histogram[digit * sort.tiles + tile] + counted(counters, digit)] = record;
        counters = count_digit(counters, digit);
    }
}
