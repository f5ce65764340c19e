// What the frame's shaders share, written once and loaded first in each of
// grid.wgsl, pairs.wgsl and narrow.wgsl (+ sat.wgsl + manifold.wgsl): the
// state buffer's words, the hit record, the texture addressing and the
// float sentinels (batch.wgsl has the last two for the batch kernels).

// The state buffer's words: src/gpu/frame/mod.rs, STATE_*.
const STATE_PAIRS: u32 = 0u;         // candidate pairs found (counts on past capacity)
const STATE_ENTRIES: u32 = 1u;       // grid entries made
const STATE_LARGE: u32 = 2u;         // bodies too large for the grid
const STATE_CROWDED: u32 = 3u;       // a body would scan past MAX_SCAN entries
const STATE_HITS: u32 = 4u;          // reported pairs
const STATE_PAIR_OVERFLOW: u32 = 5u; // a pair was found past the capacity
const STATE_KINDS: u32 = 8u;         // per kind: its pairs in the partition
const STATE_ARGS: u32 = 32u;         // per kind: indirect dispatch arguments
const STATE_HIT_ARGS: u32 = 52u;     // one invocation per hit, workgroups of 256
const STATE_LARGE_ARGS: u32 = 56u;   // write_large: a workgroup per large body
const STATE_SCAN_ARGS: u32 = 59u;    // the places scan, per level: a workgroup per block
const STATE_COMPACT_ARGS: u32 = 68u; // compact: one invocation per pair, workgroups of 256
const STATE_LARGE_LIST: u32 = 72u;   // the large bodies

// A reported pair: src/gpu/frame/narrow.rs, FrameHit.
struct FrameHit {
    a: u32,
    b: u32,
    axis: u32,
    depth: f32,
}

// Texels per texture row, as a power of two (src/gpu/layout/mod.rs).
const TEXTURE_WIDTH_LOG2: u32 = 11u;
// The largest finite f32 and its negation, in hexadecimal: exactly
// f32::MAX. (Tint, the browsers' WGSL compiler, refuses a decimal literal
// past it instead of rounding, and 3.40282347e38 is past it by a hair.)
const LOWEST: f32 = -0x1.fffffep+127f;
const HIGHEST: f32 = 0x1.fffffep+127f;

fn texel(index: u32) -> vec2<u32> {
    return vec2<u32>(index & ((1u << TEXTURE_WIDTH_LOG2) - 1u), index >> TEXTURE_WIDTH_LOG2);
}
