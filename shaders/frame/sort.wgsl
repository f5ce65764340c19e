// A least-significant-digit radix sort of (u32, u32) records on the GPU,
// four bits a pass, stable. The frame sorts its candidate pairs by (a, b)
// with it, so their order is the CPU broadphase's whatever order the grid
// found them in (the keys are distinct, so a sorted order is the only
// one), and partitions pairs by kind with one pass of it.
//
// A tile is 256 records, one per invocation. Per pass, with `digit(r)` the
// four bits of word `word` of record r from bit `shift`:
//
//     sort_count:    each tile's count of each digit, into
//                    histogram[digit * tiles + tile] (digit-major)
//     (scan.wgsl: an exclusive scan of the histogram gives, for each digit
//     and tile, where that tile's records of that digit go)
//     sort_scatter:  each record to histogram[digit * tiles + tile] + its
//                    rank among the tile's records of its digit before it
//
// The rank is what keeps the pass stable: an inclusive scan over the group
// of one-hot digit counters, sixteen 8-bit counters packed in a vec4<u32>
// (an exclusive rank within a tile of 256 is at most 255, so 8 bits hold it).
// Records past `count` take no part; tiles past the last write zeros.

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

const SORT_TILE: u32 = 256u;
const DIGITS: u32 = 16u;
const NO_DIGIT: u32 = 16u;

var<workgroup> digit_counts: array<atomic<u32>, DIGITS>;
var<workgroup> ranks: array<vec4<u32>, SORT_TILE>;

fn record_count() -> u32 {
    return min(state[sort.count_index], sort.capacity);
}

// The record's digit, or NO_DIGIT past the count.
fn digit_of(index: u32) -> u32 {
    if index >= record_count() {
        return NO_DIGIT;
    }
    let record = records_in[index];
    let word = select(record.x, record.y, sort.word == 1u);
    return (word >> sort.shift) & (DIGITS - 1u);
}

@compute @workgroup_size(256)
fn sort_count(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    if local < DIGITS {
        atomicStore(&digit_counts[local], 0u);
    }
    workgroupBarrier();
    let digit = digit_of(group.x * SORT_TILE + local);
    if digit != NO_DIGIT {
        atomicAdd(&digit_counts[digit], 1u);
    }
    workgroupBarrier();
    if local < DIGITS {
        histogram[local * sort.tiles + group.x] = atomicLoad(&digit_counts[local]);
    }
}

// A digit as one count in the 8-bit counter `digit` of a vec4<u32>.
fn one_hot(digit: u32) -> vec4<u32> {
    var counter = vec4<u32>(0u);
    if digit != NO_DIGIT {
        counter[digit / 4u] = 1u << (8u * (digit % 4u));
    }
    return counter;
}

@compute @workgroup_size(256)
fn sort_scatter(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let index = group.x * SORT_TILE + local;
    let digit = digit_of(index);
    let own = one_hot(digit);
    ranks[local] = own;
    workgroupBarrier();
    // Inclusive scan of the packed counters over the tile.
    for (var step = 1u; step < SORT_TILE; step <<= 1u) {
        var add = vec4<u32>(0u);
        if local >= step {
            add = ranks[local - step];
        }
        workgroupBarrier();
        ranks[local] += add;
        workgroupBarrier();
    }
    if digit != NO_DIGIT {
        let before = ranks[local] - own;
        let rank = (before[digit / 4u] >> (8u * (digit % 4u))) & 0xffu;
        let destination = histogram[digit * sort.tiles + group.x] + rank;
        records_out[destination] = records_in[index];
    }
}
