// The 3D SAT kernel's software module: loaded after shaders/d3/sat.wgsl
// (which comes after batch.wgsl and workgroup_scan.wgsl), it holds what
// exists for a software adapter (llvmpipe, lavapipe's compiler), which
// runs SIMD groups of eight lanes on a CPU with a limit on every loop
// (see "Loops and lavapipe" in sat.wgsl): the register-cached kinds
// ("hulls_small", "hulls_cached16", "hulls_cached", "hulls_cached64"),
// the straight-line large kinds ("hulls_large", "hulls_gridded",
// "hulls_gridded32") and their deferred pairs ("hulls_deferred"), with the
// stages sat.wgsl leaves to each module written in straight-line code.
// Its pipelines are created only where a pair takes these kinds (a
// software adapter, or GpuOptions::kinds asking for them), so a hardware
// GPU's driver never compiles it; shaders/d3/hardware.wgsl is the other
// module, with the kinds a hardware GPU runs.

// ---- The module's stages ------------------------------------------------------

// The face query's vertex source (see VertexSource): `hull2`'s vertices in
// registers (`cached`, `slots` of them: read once here), 32 a step
// (`wide`), 8 a step, or the vertices its Gauss-map grid lists for the
// face (`gridded`).
fn vertex_source(hull2: HullRecord, wide: bool, cached: bool, slots: u32, gridded: bool) -> VertexSource {
    if cached {
        cache_vertices(hull2, slots);
    }
    return vertex_source_with_grid(hull2, wide, cached, slots, gridded);
}

fn source_face_min(source: VertexSource, moved: vec3<f32>, moved_offset: f32) -> f32 {
    if source.cached {
        return cached_face_min(moved, moved_offset, source.slots);
    }
    if source.gridded {
        return grid_face_min(source.hull, source.grid, moved, moved_offset);
    }
    let hull2 = source.hull;
    let last = hull2.vertex_count - 1u;
    let step = select(8u, 32u, source.wide);
    var separation = HIGHEST;
    for (var k = 0u; k < hull2.vertex_count; k += step) {
        separation = min(separation, vertex_min8(hull2, moved, moved_offset, k, last));
        if source.wide {
            separation = min(separation, vertex_min8(hull2, moved, moved_offset, k + 8u, last));
            separation = min(separation, vertex_min8(hull2, moved, moved_offset, k + 16u, last));
            separation = min(separation, vertex_min8(hull2, moved, moved_offset, k + 24u, last));
        }
    }
    return separation;
}

// hot_faces's runs: 32 a step, in straight-line code (warm_run_word).
const WARM_RUNS_A_STEP: u32 = 32u;

fn warm_runs(hull: HullRecord, run: u32, last_run: u32, order: FaceOrder, radius: f32, extra: vec2<f32>, level: f32, limit: f32, allowance: f32) -> u32 {
    return warm_run_word(hull, run, last_run, order, radius, extra, level, limit, allowance);
}

// The vertices of a hull of at most `slots` vertices (8, 32 or 64; past
// the last, the last again: a minimum is unchanged by repeats), for the
// face query against it in "hulls_small", "hulls_cached" and
// "hulls_cached64". Every index into the array is a constant once the
// calls are inlined, so llvmpipe keeps it in registers (an array indexed
// at run time would live in memory and cost more than the texels): each
// vertex is read once per query instead of once per face computed.
var<private> vertex_cache: array<vec3<f32>, 64>;

fn cache_vertices(hull2: HullRecord, slots: u32) {
    let last = hull2.vertex_count - 1u;
    vertex_cache[0] = hull_vertex(hull2, min(0u, last));
    vertex_cache[1] = hull_vertex(hull2, min(1u, last));
    vertex_cache[2] = hull_vertex(hull2, min(2u, last));
    vertex_cache[3] = hull_vertex(hull2, min(3u, last));
    vertex_cache[4] = hull_vertex(hull2, min(4u, last));
    vertex_cache[5] = hull_vertex(hull2, min(5u, last));
    vertex_cache[6] = hull_vertex(hull2, min(6u, last));
    vertex_cache[7] = hull_vertex(hull2, min(7u, last));
    if slots > 8u {
        vertex_cache[8] = hull_vertex(hull2, min(8u, last));
        vertex_cache[9] = hull_vertex(hull2, min(9u, last));
        vertex_cache[10] = hull_vertex(hull2, min(10u, last));
        vertex_cache[11] = hull_vertex(hull2, min(11u, last));
        vertex_cache[12] = hull_vertex(hull2, min(12u, last));
        vertex_cache[13] = hull_vertex(hull2, min(13u, last));
        vertex_cache[14] = hull_vertex(hull2, min(14u, last));
        vertex_cache[15] = hull_vertex(hull2, min(15u, last));
        if slots > 16u {
            vertex_cache[16] = hull_vertex(hull2, min(16u, last));
            vertex_cache[17] = hull_vertex(hull2, min(17u, last));
            vertex_cache[18] = hull_vertex(hull2, min(18u, last));
            vertex_cache[19] = hull_vertex(hull2, min(19u, last));
            vertex_cache[20] = hull_vertex(hull2, min(20u, last));
            vertex_cache[21] = hull_vertex(hull2, min(21u, last));
            vertex_cache[22] = hull_vertex(hull2, min(22u, last));
            vertex_cache[23] = hull_vertex(hull2, min(23u, last));
            vertex_cache[24] = hull_vertex(hull2, min(24u, last));
            vertex_cache[25] = hull_vertex(hull2, min(25u, last));
            vertex_cache[26] = hull_vertex(hull2, min(26u, last));
            vertex_cache[27] = hull_vertex(hull2, min(27u, last));
            vertex_cache[28] = hull_vertex(hull2, min(28u, last));
            vertex_cache[29] = hull_vertex(hull2, min(29u, last));
            vertex_cache[30] = hull_vertex(hull2, min(30u, last));
            vertex_cache[31] = hull_vertex(hull2, min(31u, last));
        }
    }
    if slots > 32u {
        vertex_cache[32] = hull_vertex(hull2, min(32u, last));
        vertex_cache[33] = hull_vertex(hull2, min(33u, last));
        vertex_cache[34] = hull_vertex(hull2, min(34u, last));
        vertex_cache[35] = hull_vertex(hull2, min(35u, last));
        vertex_cache[36] = hull_vertex(hull2, min(36u, last));
        vertex_cache[37] = hull_vertex(hull2, min(37u, last));
        vertex_cache[38] = hull_vertex(hull2, min(38u, last));
        vertex_cache[39] = hull_vertex(hull2, min(39u, last));
        vertex_cache[40] = hull_vertex(hull2, min(40u, last));
        vertex_cache[41] = hull_vertex(hull2, min(41u, last));
        vertex_cache[42] = hull_vertex(hull2, min(42u, last));
        vertex_cache[43] = hull_vertex(hull2, min(43u, last));
        vertex_cache[44] = hull_vertex(hull2, min(44u, last));
        vertex_cache[45] = hull_vertex(hull2, min(45u, last));
        vertex_cache[46] = hull_vertex(hull2, min(46u, last));
        vertex_cache[47] = hull_vertex(hull2, min(47u, last));
        vertex_cache[48] = hull_vertex(hull2, min(48u, last));
        vertex_cache[49] = hull_vertex(hull2, min(49u, last));
        vertex_cache[50] = hull_vertex(hull2, min(50u, last));
        vertex_cache[51] = hull_vertex(hull2, min(51u, last));
        vertex_cache[52] = hull_vertex(hull2, min(52u, last));
        vertex_cache[53] = hull_vertex(hull2, min(53u, last));
        vertex_cache[54] = hull_vertex(hull2, min(54u, last));
        vertex_cache[55] = hull_vertex(hull2, min(55u, last));
        vertex_cache[56] = hull_vertex(hull2, min(56u, last));
        vertex_cache[57] = hull_vertex(hull2, min(57u, last));
        vertex_cache[58] = hull_vertex(hull2, min(58u, last));
        vertex_cache[59] = hull_vertex(hull2, min(59u, last));
        vertex_cache[60] = hull_vertex(hull2, min(60u, last));
        vertex_cache[61] = hull_vertex(hull2, min(61u, last));
        vertex_cache[62] = hull_vertex(hull2, min(62u, last));
        vertex_cache[63] = hull_vertex(hull2, min(63u, last));
    }
}

// vertex_min8 on cached vertices `k` to `k + 7`.
fn cached_min8(moved: vec3<f32>, moved_offset: f32, k: u32) -> f32 {
    var separation = dot3(moved, vertex_cache[k]) - moved_offset;
    separation = min(separation, dot3(moved, vertex_cache[k + 1u]) - moved_offset);
    separation = min(separation, dot3(moved, vertex_cache[k + 2u]) - moved_offset);
    separation = min(separation, dot3(moved, vertex_cache[k + 3u]) - moved_offset);
    separation = min(separation, dot3(moved, vertex_cache[k + 4u]) - moved_offset);
    separation = min(separation, dot3(moved, vertex_cache[k + 5u]) - moved_offset);
    separation = min(separation, dot3(moved, vertex_cache[k + 6u]) - moved_offset);
    separation = min(separation, dot3(moved, vertex_cache[k + 7u]) - moved_offset);
    return separation;
}

// The lowest of `n . w - d` over the cached vertices (`slots` of them):
// vertex_min8's groups in the same order.
fn cached_face_min(moved: vec3<f32>, moved_offset: f32, slots: u32) -> f32 {
    var separation = HIGHEST;
    separation = min(separation, cached_min8(moved, moved_offset, 0u));
    if slots > 8u {
        separation = min(separation, cached_min8(moved, moved_offset, 8u));
        if slots > 16u {
            separation = min(separation, cached_min8(moved, moved_offset, 16u));
            separation = min(separation, cached_min8(moved, moved_offset, 24u));
        }
    }
    if slots > 32u {
        separation = min(separation, cached_min8(moved, moved_offset, 32u));
        separation = min(separation, cached_min8(moved, moved_offset, 40u));
        separation = min(separation, cached_min8(moved, moved_offset, 48u));
        separation = min(separation, cached_min8(moved, moved_offset, 56u));
    }
    return separation;
}

// ---- hulls_small: A's edges in registers -----------------------------------
//
// The edge query of "hulls_small" (both hulls of at most 8 vertices, so A
// has at most 18 edges): A's edges' face normals are read once per query
// into an array indexed only by constants (kept in registers, as the
// vertex cache), and each edge of B that the bound keeps is tested against
// all of them without a texel read. The rest is find_max_edge_separation's.
// (The other cached kinds cache only the edges of A that a bound keeps:
// see "A's kept edges in registers".)

// Two edges' normals a slot: the first 20 edges. Private to the
// invocation; module-scope, so that no call copies it.
var<private> edge_cache_u: array<vec3<f32>, 20>;
var<private> edge_cache_v: array<vec3<f32>, 20>;

// A's edges' normals, pair by pair (past the last pair, the last again).
fn cache_edges(hull_a: HullRecord) {
    let last_pair = (hull_a.edge_count - 1u) >> 1u;
    var n: EdgePairNormals;
    n = edge_pair_normals(hull_a, min(0u, last_pair));
    edge_cache_u[0] = n.first.u; edge_cache_v[0] = n.first.v; edge_cache_u[1] = n.second.u; edge_cache_v[1] = n.second.v;
    n = edge_pair_normals(hull_a, min(1u, last_pair));
    edge_cache_u[2] = n.first.u; edge_cache_v[2] = n.first.v; edge_cache_u[3] = n.second.u; edge_cache_v[3] = n.second.v;
    n = edge_pair_normals(hull_a, min(2u, last_pair));
    edge_cache_u[4] = n.first.u; edge_cache_v[4] = n.first.v; edge_cache_u[5] = n.second.u; edge_cache_v[5] = n.second.v;
    n = edge_pair_normals(hull_a, min(3u, last_pair));
    edge_cache_u[6] = n.first.u; edge_cache_v[6] = n.first.v; edge_cache_u[7] = n.second.u; edge_cache_v[7] = n.second.v;
    n = edge_pair_normals(hull_a, min(4u, last_pair));
    edge_cache_u[8] = n.first.u; edge_cache_v[8] = n.first.v; edge_cache_u[9] = n.second.u; edge_cache_v[9] = n.second.v;
    n = edge_pair_normals(hull_a, min(5u, last_pair));
    edge_cache_u[10] = n.first.u; edge_cache_v[10] = n.first.v; edge_cache_u[11] = n.second.u; edge_cache_v[11] = n.second.v;
    n = edge_pair_normals(hull_a, min(6u, last_pair));
    edge_cache_u[12] = n.first.u; edge_cache_v[12] = n.first.v; edge_cache_u[13] = n.second.u; edge_cache_v[13] = n.second.v;
    n = edge_pair_normals(hull_a, min(7u, last_pair));
    edge_cache_u[14] = n.first.u; edge_cache_v[14] = n.first.v; edge_cache_u[15] = n.second.u; edge_cache_v[15] = n.second.v;
    n = edge_pair_normals(hull_a, min(8u, last_pair));
    edge_cache_u[16] = n.first.u; edge_cache_v[16] = n.first.v; edge_cache_u[17] = n.second.u; edge_cache_v[17] = n.second.v;
    n = edge_pair_normals(hull_a, min(9u, last_pair));
    edge_cache_u[18] = n.first.u; edge_cache_v[18] = n.first.v; edge_cache_u[19] = n.second.u; edge_cache_v[19] = n.second.v;
}

// crossing_bits4 on cached edges `i` to `i + 3`.
fn cached_bits4(b: MovedEdge, i: u32, last: u32) -> u32 {
    return crossing_bit(EdgeNormals(edge_cache_u[i], edge_cache_v[i]), b, i, 0u, last)
        | crossing_bit(EdgeNormals(edge_cache_u[i + 1u], edge_cache_v[i + 1u]), b, i, 1u, last)
        | crossing_bit(EdgeNormals(edge_cache_u[i + 2u], edge_cache_v[i + 2u]), b, i, 2u, last)
        | crossing_bit(EdgeNormals(edge_cache_u[i + 3u], edge_cache_v[i + 3u]), b, i, 3u, last);
}

// All of A's cached edges against B's moved edge, as crossings.
fn cached_crossings(b: MovedEdge, last: u32) -> Crossings {
    var crossings = Crossings(vec4<u32>(0u), vec2<u32>(0u));
    crossings = add_crossings(crossings, cached_bits4(b, 0u, last), 0u);
    crossings = add_crossings(crossings, cached_bits4(b, 4u, last), 4u);
    crossings = add_crossings(crossings, cached_bits4(b, 8u, last), 8u);
    crossings = add_crossings(crossings, cached_bits4(b, 12u, last), 12u);
    crossings = add_crossings(crossings, cached_bits4(b, 16u, last), 16u);
    return crossings;
}

// Runs `run` to `run + 31` that may hold a hot face, in straight-line code.
fn warm_run_word(hull: HullRecord, run: u32, last_run: u32, order: FaceOrder, radius: f32, extra: vec2<f32>, level: f32, limit: f32, allowance: f32) -> u32 {
    var word = 0u;
    word |= warm_run_bit(hull, run, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 1u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 2u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 3u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 4u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 5u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 6u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 7u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 8u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 9u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 10u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 11u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 12u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 13u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 14u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 15u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 16u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 17u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 18u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 19u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 20u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 21u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 22u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 23u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 24u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 25u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 26u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 27u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 28u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 29u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 30u, last_run, order, radius, extra, level, limit, allowance);
    word |= warm_run_bit(hull, run + 31u, last_run, order, radius, extra, level, limit, allowance);
    return word;
}

// The edges of `hull_b` (at most 18, 44, 90 or 186 as `slots` is 8, 16,
// 32 or 64; A's in the cached kinds too) that have a hot face in `hot`, as
// bits, in straight-line code: no lane waiting on another's skips.
fn hot_edges(hull_b: HullRecord, hot: FaceBits, slots: u32) -> Crossings {
    let last_b = hull_b.edge_count - 1u;
    var candidates = Crossings(vec4<u32>(0u), vec2<u32>(0u));
    candidates = add_crossings(candidates, candidate_bits4(hull_b, 0u, last_b, hot, 1u), 0u);
    candidates = add_crossings(candidates, candidate_bits4(hull_b, 4u, last_b, hot, 1u), 4u);
    candidates = add_crossings(candidates, candidate_bits4(hull_b, 8u, last_b, hot, 1u), 8u);
    candidates = add_crossings(candidates, candidate_bits4(hull_b, 12u, last_b, hot, 1u), 12u);
    candidates = add_crossings(candidates, candidate_bits4(hull_b, 16u, last_b, hot, 1u), 16u);
    if slots > 8u {
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 20u, last_b, hot, 1u), 20u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 24u, last_b, hot, 1u), 24u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 28u, last_b, hot, 1u), 28u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 32u, last_b, hot, 1u), 32u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 36u, last_b, hot, 1u), 36u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 40u, last_b, hot, 1u), 40u);
        if slots > 16u {
            candidates = add_crossings(candidates, candidate_bits4(hull_b, 44u, last_b, hot, 1u), 44u);
            candidates = add_crossings(candidates, candidate_bits4(hull_b, 48u, last_b, hot, 1u), 48u);
            candidates = add_crossings(candidates, candidate_bits4(hull_b, 52u, last_b, hot, 1u), 52u);
            candidates = add_crossings(candidates, candidate_bits4(hull_b, 56u, last_b, hot, 1u), 56u);
            candidates = add_crossings(candidates, candidate_bits4(hull_b, 60u, last_b, hot, 1u), 60u);
            candidates = add_crossings(candidates, candidate_bits4(hull_b, 64u, last_b, hot, 1u), 64u);
            candidates = add_crossings(candidates, candidate_bits4(hull_b, 68u, last_b, hot, 1u), 68u);
            candidates = add_crossings(candidates, candidate_bits4(hull_b, 72u, last_b, hot, 1u), 72u);
            candidates = add_crossings(candidates, candidate_bits4(hull_b, 76u, last_b, hot, 1u), 76u);
            candidates = add_crossings(candidates, candidate_bits4(hull_b, 80u, last_b, hot, 1u), 80u);
            candidates = add_crossings(candidates, candidate_bits4(hull_b, 84u, last_b, hot, 1u), 84u);
            candidates = add_crossings(candidates, candidate_bits4(hull_b, 88u, last_b, hot, 1u), 88u);
            candidates = add_crossings(candidates, candidate_bits4(hull_b, 92u, last_b, hot, 1u), 92u);
        }
    }
    if slots > 32u {
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 96u, last_b, hot, 1u), 96u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 100u, last_b, hot, 1u), 100u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 104u, last_b, hot, 1u), 104u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 108u, last_b, hot, 1u), 108u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 112u, last_b, hot, 1u), 112u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 116u, last_b, hot, 1u), 116u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 120u, last_b, hot, 1u), 120u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 124u, last_b, hot, 1u), 124u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 128u, last_b, hot, 1u), 128u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 132u, last_b, hot, 1u), 132u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 136u, last_b, hot, 1u), 136u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 140u, last_b, hot, 1u), 140u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 144u, last_b, hot, 1u), 144u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 148u, last_b, hot, 1u), 148u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 152u, last_b, hot, 1u), 152u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 156u, last_b, hot, 1u), 156u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 160u, last_b, hot, 1u), 160u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 164u, last_b, hot, 1u), 164u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 168u, last_b, hot, 1u), 168u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 172u, last_b, hot, 1u), 172u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 176u, last_b, hot, 1u), 176u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 180u, last_b, hot, 1u), 180u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 184u, last_b, hot, 1u), 184u);
        candidates = add_crossings(candidates, candidate_bits4(hull_b, 188u, last_b, hot, 1u), 188u);
    }
    return candidates;
}

// ---- A's kept edges in registers ------------------------------------------
//
// The cached kinds above "hulls_small" and the large kinds test each edge of
// B that the bound keeps against the edges of A that it keeps (lanes.rs's
// EdgeFilter does the same on the CPU): A's kept edges, in order, have their
// normals read once into an array indexed only by constants (registers),
// and each kept edge of B is tested against them without a texel read.

fn count_crossings(c: Crossings) -> u32 {
    let low = countOneBits(c.low);
    let high = countOneBits(c.high);
    return ((low.x + low.y) + (low.z + low.w)) + (high.x + high.y);
}

fn count_wide(edges: WideCrossings, blocks: u32) -> u32 {
    var count = count_crossings(edges.c0);
    if blocks > 1u {
        count += count_crossings(edges.c1);
    }
    if blocks > 2u {
        count += count_crossings(edges.c2) + count_crossings(edges.c3);
    }
    return count;
}

// Up to 64 of A's kept edges, in order: their normals and their index.
// Their arcs (cross3(v, u), as crossing_bit computes them) are recomputed
// per test rather than held: a third array of 64 vectors made the large
// kinds slightly slower on lavapipe (2,000 pairs, four interleaved runs:
// 128 vertices 10.7-13.1 -> 10.0-10.9 us, 256: 20.7-21.5 -> 19.9-20.6 but
// for one outlier), the likelier cost being registers, not arithmetic.
var<private> kept_u: array<vec3<f32>, 64>;
var<private> kept_v: array<vec3<f32>, 64>;
var<private> kept_edge: array<u32, 64>;

// The lowest edge left in `kept` into slot `s` (a constant once inlined),
// and taken out (none left: the last edge again, whose slot is not used).
fn cache_kept_edge(kept: WideCrossings, hull_a: HullRecord, s: u32, blocks: u32) -> WideCrossings {
    let i = select(hull_a.edge_count - 1u, lowest_crossing_wide(kept, blocks), any_crossing_wide(kept, blocks));
    let n = edge_bound_record(hull_a, i);
    kept_u[s] = n.u_plane.xyz;
    kept_v[s] = n.v_plane.xyz;
    kept_edge[s] = i;
    return remove_crossing_wide(kept, i, blocks);
}

// A's first `n` kept edges (16, 32 or 64; a constant once inlined) into
// the cache, in order; the others returned.
fn cache_kept_edges(kept: WideCrossings, hull_a: HullRecord, n: u32, blocks: u32) -> WideCrossings {
    var rest = kept;
    rest = cache_kept_edge(rest, hull_a, 0u, blocks);
    rest = cache_kept_edge(rest, hull_a, 1u, blocks);
    rest = cache_kept_edge(rest, hull_a, 2u, blocks);
    rest = cache_kept_edge(rest, hull_a, 3u, blocks);
    rest = cache_kept_edge(rest, hull_a, 4u, blocks);
    rest = cache_kept_edge(rest, hull_a, 5u, blocks);
    rest = cache_kept_edge(rest, hull_a, 6u, blocks);
    rest = cache_kept_edge(rest, hull_a, 7u, blocks);
    rest = cache_kept_edge(rest, hull_a, 8u, blocks);
    rest = cache_kept_edge(rest, hull_a, 9u, blocks);
    rest = cache_kept_edge(rest, hull_a, 10u, blocks);
    rest = cache_kept_edge(rest, hull_a, 11u, blocks);
    rest = cache_kept_edge(rest, hull_a, 12u, blocks);
    rest = cache_kept_edge(rest, hull_a, 13u, blocks);
    rest = cache_kept_edge(rest, hull_a, 14u, blocks);
    rest = cache_kept_edge(rest, hull_a, 15u, blocks);
    if n > 16u {
        rest = cache_kept_edge(rest, hull_a, 16u, blocks);
        rest = cache_kept_edge(rest, hull_a, 17u, blocks);
        rest = cache_kept_edge(rest, hull_a, 18u, blocks);
        rest = cache_kept_edge(rest, hull_a, 19u, blocks);
        rest = cache_kept_edge(rest, hull_a, 20u, blocks);
        rest = cache_kept_edge(rest, hull_a, 21u, blocks);
        rest = cache_kept_edge(rest, hull_a, 22u, blocks);
        rest = cache_kept_edge(rest, hull_a, 23u, blocks);
        rest = cache_kept_edge(rest, hull_a, 24u, blocks);
        rest = cache_kept_edge(rest, hull_a, 25u, blocks);
        rest = cache_kept_edge(rest, hull_a, 26u, blocks);
        rest = cache_kept_edge(rest, hull_a, 27u, blocks);
        rest = cache_kept_edge(rest, hull_a, 28u, blocks);
        rest = cache_kept_edge(rest, hull_a, 29u, blocks);
        rest = cache_kept_edge(rest, hull_a, 30u, blocks);
        rest = cache_kept_edge(rest, hull_a, 31u, blocks);
    }
    if n > 32u {
        rest = cache_kept_edge(rest, hull_a, 32u, blocks);
        rest = cache_kept_edge(rest, hull_a, 33u, blocks);
        rest = cache_kept_edge(rest, hull_a, 34u, blocks);
        rest = cache_kept_edge(rest, hull_a, 35u, blocks);
        rest = cache_kept_edge(rest, hull_a, 36u, blocks);
        rest = cache_kept_edge(rest, hull_a, 37u, blocks);
        rest = cache_kept_edge(rest, hull_a, 38u, blocks);
        rest = cache_kept_edge(rest, hull_a, 39u, blocks);
        rest = cache_kept_edge(rest, hull_a, 40u, blocks);
        rest = cache_kept_edge(rest, hull_a, 41u, blocks);
        rest = cache_kept_edge(rest, hull_a, 42u, blocks);
        rest = cache_kept_edge(rest, hull_a, 43u, blocks);
        rest = cache_kept_edge(rest, hull_a, 44u, blocks);
        rest = cache_kept_edge(rest, hull_a, 45u, blocks);
        rest = cache_kept_edge(rest, hull_a, 46u, blocks);
        rest = cache_kept_edge(rest, hull_a, 47u, blocks);
        rest = cache_kept_edge(rest, hull_a, 48u, blocks);
        rest = cache_kept_edge(rest, hull_a, 49u, blocks);
        rest = cache_kept_edge(rest, hull_a, 50u, blocks);
        rest = cache_kept_edge(rest, hull_a, 51u, blocks);
        rest = cache_kept_edge(rest, hull_a, 52u, blocks);
        rest = cache_kept_edge(rest, hull_a, 53u, blocks);
        rest = cache_kept_edge(rest, hull_a, 54u, blocks);
        rest = cache_kept_edge(rest, hull_a, 55u, blocks);
        rest = cache_kept_edge(rest, hull_a, 56u, blocks);
        rest = cache_kept_edge(rest, hull_a, 57u, blocks);
        rest = cache_kept_edge(rest, hull_a, 58u, blocks);
        rest = cache_kept_edge(rest, hull_a, 59u, blocks);
        rest = cache_kept_edge(rest, hull_a, 60u, blocks);
        rest = cache_kept_edge(rest, hull_a, 61u, blocks);
        rest = cache_kept_edge(rest, hull_a, 62u, blocks);
        rest = cache_kept_edge(rest, hull_a, 63u, blocks);
    }
    return rest;
}

// Bit `s` set if the cached edge in slot `s` (one of the first `count`)
// and B's moved edge cross on the Gauss maps.
fn kept_bit(b: MovedEdge, s: u32, count: u32) -> u32 {
    let crossing = gauss_test(kept_u[s], kept_v[s], cross3(kept_v[s], kept_u[s]), b.u, b.v, b.arc);
    return select(0u, 1u << (s & 31u), crossing.z != 0.0 && s < count);
}

// The cached edges (`n` slots: 16, 32 or 64) that cross B's moved edge,
// as slots (two words).
fn kept_crossings(b: MovedEdge, count: u32, n: u32) -> vec2<u32> {
    var low = 0u;
    var high = 0u;
    low |= kept_bit(b, 0u, count);
    low |= kept_bit(b, 1u, count);
    low |= kept_bit(b, 2u, count);
    low |= kept_bit(b, 3u, count);
    low |= kept_bit(b, 4u, count);
    low |= kept_bit(b, 5u, count);
    low |= kept_bit(b, 6u, count);
    low |= kept_bit(b, 7u, count);
    low |= kept_bit(b, 8u, count);
    low |= kept_bit(b, 9u, count);
    low |= kept_bit(b, 10u, count);
    low |= kept_bit(b, 11u, count);
    low |= kept_bit(b, 12u, count);
    low |= kept_bit(b, 13u, count);
    low |= kept_bit(b, 14u, count);
    low |= kept_bit(b, 15u, count);
    if n > 16u {
        low |= kept_bit(b, 16u, count);
        low |= kept_bit(b, 17u, count);
        low |= kept_bit(b, 18u, count);
        low |= kept_bit(b, 19u, count);
        low |= kept_bit(b, 20u, count);
        low |= kept_bit(b, 21u, count);
        low |= kept_bit(b, 22u, count);
        low |= kept_bit(b, 23u, count);
        low |= kept_bit(b, 24u, count);
        low |= kept_bit(b, 25u, count);
        low |= kept_bit(b, 26u, count);
        low |= kept_bit(b, 27u, count);
        low |= kept_bit(b, 28u, count);
        low |= kept_bit(b, 29u, count);
        low |= kept_bit(b, 30u, count);
        low |= kept_bit(b, 31u, count);
    }
    if n > 32u {
        high |= kept_bit(b, 32u, count);
        high |= kept_bit(b, 33u, count);
        high |= kept_bit(b, 34u, count);
        high |= kept_bit(b, 35u, count);
        high |= kept_bit(b, 36u, count);
        high |= kept_bit(b, 37u, count);
        high |= kept_bit(b, 38u, count);
        high |= kept_bit(b, 39u, count);
        high |= kept_bit(b, 40u, count);
        high |= kept_bit(b, 41u, count);
        high |= kept_bit(b, 42u, count);
        high |= kept_bit(b, 43u, count);
        high |= kept_bit(b, 44u, count);
        high |= kept_bit(b, 45u, count);
        high |= kept_bit(b, 46u, count);
        high |= kept_bit(b, 47u, count);
        high |= kept_bit(b, 48u, count);
        high |= kept_bit(b, 49u, count);
        high |= kept_bit(b, 50u, count);
        high |= kept_bit(b, 51u, count);
        high |= kept_bit(b, 52u, count);
        high |= kept_bit(b, 53u, count);
        high |= kept_bit(b, 54u, count);
        high |= kept_bit(b, 55u, count);
        high |= kept_bit(b, 56u, count);
        high |= kept_bit(b, 57u, count);
        high |= kept_bit(b, 58u, count);
        high |= kept_bit(b, 59u, count);
        high |= kept_bit(b, 60u, count);
        high |= kept_bit(b, 61u, count);
        high |= kept_bit(b, 62u, count);
        high |= kept_bit(b, 63u, count);
    }
    return vec2<u32>(low, high);
}

// The edge of A in slot `s` (of `n`).
fn kept_edge_at(s: u32, n: u32) -> u32 {
    var i = kept_edge[0];
    i = select(i, kept_edge[1u], s == 1u);
    i = select(i, kept_edge[2u], s == 2u);
    i = select(i, kept_edge[3u], s == 3u);
    i = select(i, kept_edge[4u], s == 4u);
    i = select(i, kept_edge[5u], s == 5u);
    i = select(i, kept_edge[6u], s == 6u);
    i = select(i, kept_edge[7u], s == 7u);
    i = select(i, kept_edge[8u], s == 8u);
    i = select(i, kept_edge[9u], s == 9u);
    i = select(i, kept_edge[10u], s == 10u);
    i = select(i, kept_edge[11u], s == 11u);
    i = select(i, kept_edge[12u], s == 12u);
    i = select(i, kept_edge[13u], s == 13u);
    i = select(i, kept_edge[14u], s == 14u);
    i = select(i, kept_edge[15u], s == 15u);
    if n > 16u {
        i = select(i, kept_edge[16u], s == 16u);
        i = select(i, kept_edge[17u], s == 17u);
        i = select(i, kept_edge[18u], s == 18u);
        i = select(i, kept_edge[19u], s == 19u);
        i = select(i, kept_edge[20u], s == 20u);
        i = select(i, kept_edge[21u], s == 21u);
        i = select(i, kept_edge[22u], s == 22u);
        i = select(i, kept_edge[23u], s == 23u);
        i = select(i, kept_edge[24u], s == 24u);
        i = select(i, kept_edge[25u], s == 25u);
        i = select(i, kept_edge[26u], s == 26u);
        i = select(i, kept_edge[27u], s == 27u);
        i = select(i, kept_edge[28u], s == 28u);
        i = select(i, kept_edge[29u], s == 29u);
        i = select(i, kept_edge[30u], s == 30u);
        i = select(i, kept_edge[31u], s == 31u);
    }
    if n > 32u {
        i = select(i, kept_edge[32u], s == 32u);
        i = select(i, kept_edge[33u], s == 33u);
        i = select(i, kept_edge[34u], s == 34u);
        i = select(i, kept_edge[35u], s == 35u);
        i = select(i, kept_edge[36u], s == 36u);
        i = select(i, kept_edge[37u], s == 37u);
        i = select(i, kept_edge[38u], s == 38u);
        i = select(i, kept_edge[39u], s == 39u);
        i = select(i, kept_edge[40u], s == 40u);
        i = select(i, kept_edge[41u], s == 41u);
        i = select(i, kept_edge[42u], s == 42u);
        i = select(i, kept_edge[43u], s == 43u);
        i = select(i, kept_edge[44u], s == 44u);
        i = select(i, kept_edge[45u], s == 45u);
        i = select(i, kept_edge[46u], s == 46u);
        i = select(i, kept_edge[47u], s == 47u);
        i = select(i, kept_edge[48u], s == 48u);
        i = select(i, kept_edge[49u], s == 49u);
        i = select(i, kept_edge[50u], s == 50u);
        i = select(i, kept_edge[51u], s == 51u);
        i = select(i, kept_edge[52u], s == 52u);
        i = select(i, kept_edge[53u], s == 53u);
        i = select(i, kept_edge[54u], s == 54u);
        i = select(i, kept_edge[55u], s == 55u);
        i = select(i, kept_edge[56u], s == 56u);
        i = select(i, kept_edge[57u], s == 57u);
        i = select(i, kept_edge[58u], s == 58u);
        i = select(i, kept_edge[59u], s == 59u);
        i = select(i, kept_edge[60u], s == 60u);
        i = select(i, kept_edge[61u], s == 61u);
        i = select(i, kept_edge[62u], s == 62u);
        i = select(i, kept_edge[63u], s == 63u);
    }
    return i;
}

// How many of A's hot edges the cached kinds (but "hulls_small") hold in
// registers; the others, rare, are tested one a step. Kernel instructions
// per pair (lavapipe, cachegrind) with 16 and 32: 64-vertex hulls 67.2k and
// 49.5k, 32: 37.1k and 28.0k, 16: 22.8k and 20.4k (A's face query marks
// loosely at first, before its best has risen, so 16 overflow often).
const CACHED_KEPT_EDGES: u32 = 32u;

// The edge query of the cached kinds: B's hot edges (found once, from
// B's hot faces) taken one at a time, each checked again at the scan's
// current level before it is moved and tested; in "hulls_small", against
// all of A's cached edges (at most 18); in the others, against A's hot
// edges (from A's hot faces, which A's face query marked), the first
// CACHED_KEPT_EDGES of them in registers and any others one a step. Either
// way each edge of B offers the edges of A it crosses in ascending order,
// one a step, as find_max_edge_separation does: the CPU's result, bit for
// bit.
//
// Before A's edges were filtered, each kept edge of B was tested against
// all of A's (186 tests on a 64-vertex hull, a SIMD group running some 15
// kept edges of B per pair, however few crossings came of them: a 64-vertex
// pair's count of instructions was half edge query). On the bench's
// 64-vertex hulls A keeps 16.8 edges a pair on average (its marks are
// loose at first, see "Edge masks from face bounds"), at most 30 in a SIMD
// group of eight on average, more than 32 in 69 pairs of 2,000 (32
// vertices: 13.5, 25, 23).
fn find_max_edge_separation_cached(hull_a: HullRecord, hull_b: HullRecord, xf: Transform3, tolerance: f32, limit: f32, floor: f32, slots: u32, hot_a: FaceBits, hot_b: FaceBits) -> EdgeSeparation {
    var scan = EdgeScan(EdgeSeparation(LOWEST, 0u, 0u), false);
    let last = hull_a.edge_count - 1u;
    let inner_a = inner_in_b(hull_a, xf);
    let slack = SKIP_SLACK * ((length3(xf.p) + hull_a.reach) + hull_b.reach);
    var candidates = hot_edges(hull_b, hot_b, slots);
    if !any_crossing(candidates) {
        return scan.best;
    }
    let filtered = slots > 8u;
    let empty = Crossings(vec4<u32>(0u), vec2<u32>(0u));
    var count = 0u;
    var rest = empty;
    if filtered {
        let kept_a = hot_edges(hull_a, hot_a, slots);
        count = count_crossings(kept_a);
        rest = cache_kept_edges(WideCrossings(kept_a, empty, empty, empty), hull_a, CACHED_KEPT_EDGES, 1u).c0;
    } else {
        cache_edges(hull_a);
    }
    loop {
        loop {
            if !any_crossing(candidates) {
                break;
            }
            let j = lowest_crossing(candidates);
            if !skips_edge(scan.best, edge_bound_record(hull_b, j), inner_a, tolerance, limit, slack, floor) {
                break;
            }
            candidates = remove_crossing(candidates, j);
        }
        if !any_crossing(candidates) {
            break;
        }
        let j = lowest_crossing(candidates);
        candidates = remove_crossing(candidates, j);
        let b = moved_edge(hull_b, j, xf);
        // The edges of A to offer: crossings among the cached ones (as
        // slots), then the others (edge_step tests them).
        var offered = vec2<u32>(0u);
        var others = rest;
        if filtered {
            offered = kept_crossings(b, count, CACHED_KEPT_EDGES);
        } else {
            others = cached_crossings(b, last);
        }
        loop {
            let from_slots = any(offered != vec2<u32>(0u));
            if !from_slots && !any_crossing(others) {
                break;
            }
            var i = 0u;
            if from_slots {
                let s = lowest_slot(offered);
                offered = remove_slot(offered, s);
                i = kept_edge_at(s, CACHED_KEPT_EDGES);
            } else {
                i = lowest_crossing(others);
                others = remove_crossing(others, i);
            }
            scan = edge_step(scan, hull_a, b, min(i, last), j, tolerance, limit, floor);
            if scan.done {
                return scan.best;
            }
        }
    }
    return scan.best;
}

// A's edges `i` to `i + 7` (`i` a multiple of eight) against B's moved
// edge, their crossings added.
fn add_crossings8_wide(crossings: WideCrossings, hull_a: HullRecord, b: MovedEdge, i: u32, last: u32, blocks: u32) -> WideCrossings {
    let bits = crossing_bits4(hull_a, b, i, last) | (crossing_bits4(hull_a, b, i + 4u, last) << 4u);
    return place_bits8_wide(crossings, bits, i, blocks);
}

// The crossings still to offer, the scan, and the last edge of A offered.
struct Offering {
    crossings: WideCrossings,
    scan: EdgeScan,
    i: u32,
}

// The lowest crossing left offered and removed; once none is left, the
// last one offered again (which changes nothing).
fn offer_lowest(offering: Offering, hull_a: HullRecord, b: MovedEdge, j: u32, tolerance: f32, limit: f32, floor: f32, blocks: u32) -> Offering {
    let i = select(offering.i, lowest_crossing_wide(offering.crossings, blocks), any_crossing_wide(offering.crossings, blocks));
    let crossings = remove_crossing_wide(offering.crossings, i, blocks);
    return Offering(crossings, edge_step(offering.scan, hull_a, b, i, j, tolerance, limit, floor), i);
}

// Eight of them, in straight-line code (see "Loops and lavapipe").
fn offer_lowest8(offering: Offering, hull_a: HullRecord, b: MovedEdge, j: u32, tolerance: f32, limit: f32, floor: f32, blocks: u32) -> Offering {
    var o = offer_lowest(offering, hull_a, b, j, tolerance, limit, floor, blocks);
    o = offer_lowest(o, hull_a, b, j, tolerance, limit, floor, blocks);
    o = offer_lowest(o, hull_a, b, j, tolerance, limit, floor, blocks);
    o = offer_lowest(o, hull_a, b, j, tolerance, limit, floor, blocks);
    o = offer_lowest(o, hull_a, b, j, tolerance, limit, floor, blocks);
    o = offer_lowest(o, hull_a, b, j, tolerance, limit, floor, blocks);
    o = offer_lowest(o, hull_a, b, j, tolerance, limit, floor, blocks);
    o = offer_lowest(o, hull_a, b, j, tolerance, limit, floor, blocks);
    return o;
}

// ---- hulls_large: the edges both bounds keep --------------------------------
//
// lanes.rs bounds both hulls' edges against the other's inner ball: an edge
// of B whose bound rules out all its pairs is skipped, and each edge of B is
// tested only against the edges of A whose bound keeps them. The kernel
// does the same once, at the floor (the scan's level only rises from there,
// so an edge skipped at the floor could never be kept nor reach the
// limit): both hulls' edges with a hot face (see "Edge masks from face
// bounds") as bits, 64 edges a step in straight-line code. Where A keeps at
// most 64 edges (on 256-vertex hulls of the bench, 98% of the pairs that
// reach the edge query), their normals and arcs are read once into
// registers (an array indexed only by constants), and each kept edge of B
// is tested against them without a texel read, its crossings offered one,
// two or four a step (hulls_gridded32, the other kinds' first dispatch,
// hulls_deferred: as many as lavapipe's loop limit allows; fewer a step
// wastes fewer offers on the edges of B that cross one or none: 128-vertex
// pairs 101.8k -> 95.8k kernel instructions with one instead of four, 256:
// 188.6k -> 182.2k with two). A pair whose A keeps more is deferred (see
// below), and the deferred dispatch tests each kept edge of B against all
// of A's edges, 64 a step, and offers the crossings 32 a step. The cache is
// read in full and each kept edge of B is tested against all of it,
// whatever A keeps, so pairs of hulls of at most 128 vertices
// ("hulls_gridded32") cache 32 edges: A keeps more in 64 of the bench's
// 10,000 128-vertex pairs, which are deferred. (In the deferred dispatch
// both paths run in a SIMD group whose lanes differ: a loop runs one pass at
// least, so the path no lane takes costs one edge of B's work.) Either way
// the pairs offered are the pairs of kept edges that cross, in the pairwise
// loop's order: the CPU's result, bit for bit.
//
// The sets of edges (WideCrossings) and of hot faces (FaceBits) are sized
// by the kind's `blocks`, a constant: a 128-vertex hull has at most 378
// edges and 252 faces, two blocks of 192 edges and 8 words of face bits,
// and its kinds drop the other words from their registers and selects
// (128-vertex pairs 116.3k -> 109.0k kernel instructions a pair).

// kept_edges edge by edge: the edges of `hull` (all its edges: at most
// 762) with a hot face in `hot` (found by hot_faces at the floor), 64 a
// step in straight-line code.
fn kept_edges_by_edge(hull: HullRecord, hot: FaceBits, blocks: u32) -> WideCrossings {
    let last = hull.edge_count - 1u;
    let empty = Crossings(vec4<u32>(0u), vec2<u32>(0u));
    var kept = WideCrossings(empty, empty, empty, empty);
    for (var j = 0u; j < hull.edge_count; j += 64u) {
        kept = add_kept_edges8(kept, hull, hot, j + 0u, last, blocks);
        kept = add_kept_edges8(kept, hull, hot, j + 8u, last, blocks);
        kept = add_kept_edges8(kept, hull, hot, j + 16u, last, blocks);
        kept = add_kept_edges8(kept, hull, hot, j + 24u, last, blocks);
        kept = add_kept_edges8(kept, hull, hot, j + 32u, last, blocks);
        kept = add_kept_edges8(kept, hull, hot, j + 40u, last, blocks);
        kept = add_kept_edges8(kept, hull, hot, j + 48u, last, blocks);
        kept = add_kept_edges8(kept, hull, hot, j + 56u, last, blocks);
    }
    return kept;
}

// The crossings of B's current edge still to offer (slots), and the scan.
struct SlotOffering {
    slots: vec2<u32>,
    scan: EdgeScan,
}

// The lowest slot left (of the `n` cached) offered and taken out (none
// left: nothing offered).
fn offer_lowest_slot(offering: SlotOffering, hull_a: HullRecord, b: MovedEdge, j: u32, tolerance: f32, limit: f32, floor: f32, n: u32) -> SlotOffering {
    let slots = offering.slots;
    let s = lowest_slot(slots);
    var result = offering;
    if any(slots != vec2<u32>(0u)) {
        result.slots = remove_slot(slots, s);
        result.scan = edge_step(offering.scan, hull_a, b, kept_edge_at(s, n), j, tolerance, limit, floor);
    }
    return result;
}

// The edge query of "hulls_large" (see above), with A's first `slots` kept
// edges cached (64, or 32 in "hulls_gridded32"; a constant once inlined).
// `deferring` (a constant too): a pair whose A keeps more goes on the
// deferred list (from window slot `defer_slot`) and the fallback is not
// compiled in; that is every large kind's first dispatch, and the
// deferred dispatch runs the fallback.
fn find_max_edge_separation_large(hull_a: HullRecord, hull_b: HullRecord, xf: Transform3, tolerance: f32, limit: f32, floor: f32, deferring: bool, defer_slot: u32, slots: u32, blocks: u32) -> EdgeSeparation {
    let inner_a = inner_in_b(hull_a, xf);
    let inner = hull_inner(hull_b);
    let inner_b = vec4<f32>(transform_point3(xf, inner.xyz), inner.w);
    let slack = SKIP_SLACK * ((length3(xf.p) + hull_a.reach) + hull_b.reach);
    let kept_a = kept_edges(hull_a, hot_faces(hull_a, inner_b, tolerance, limit, slack, floor, blocks), blocks, deferring);
    let kept_b = kept_edges(hull_b, hot_faces(hull_b, inner_a, tolerance, limit, slack, floor, blocks), blocks, deferring);
    let count = count_wide(kept_a, blocks);
    let cached = count <= slots;
    // More than `slots`: the pair goes on to the window's second dispatch
    // (see "Deferred pairs"), unless this is it.
    if deferring && !cached {
        defer_pair(defer_slot);
    }
    let empty = Crossings(vec4<u32>(0u), vec2<u32>(0u));
    let none = WideCrossings(empty, empty, empty, empty);
    var scan = EdgeScan(EdgeSeparation(LOWEST, 0u, 0u), false);
    let offers = select(4u, select(2u, 1u, blocks < 4u), deferring);
    // A's kept edges in registers, B's kept edges one a step.
    cache_kept_edges(kept_a, hull_a, slots, blocks);
    var candidates = none;
    if cached {
        candidates = kept_b;
    }
    loop {
        if !any_crossing_wide(candidates, blocks) {
            break;
        }
        let j = take_lowest_wide(&candidates, blocks);
        let b = moved_edge(hull_b, j, xf);
        var offering = SlotOffering(kept_crossings(b, count, slots), scan);
        loop {
            offering = offer_lowest_slot(offering, hull_a, b, j, tolerance, limit, floor, slots);
            if offers > 1u {
                offering = offer_lowest_slot(offering, hull_a, b, j, tolerance, limit, floor, slots);
            }
            if offers > 2u {
                offering = offer_lowest_slot(offering, hull_a, b, j, tolerance, limit, floor, slots);
                offering = offer_lowest_slot(offering, hull_a, b, j, tolerance, limit, floor, slots);
            }
            if offering.scan.done || all(offering.slots == vec2<u32>(0u)) {
                break;
            }
        }
        scan = offering.scan;
        if scan.done {
            return scan.best;
        }
    }
    if deferring {
        // A deferred pair is not reported here (nor a lane past the kind's
        // last pair, nor a pair that found the list full: the window runs
        // again, see "Deferred pairs").
        if !cached {
            return EdgeSeparation(HIGHEST, 0u, 0u);
        }
        return scan.best;
    }
    // More than `slots` kept edges of A: each kept edge of B against all of A's.
    candidates = kept_b;
    if cached {
        candidates = none;
    }
    let last = hull_a.edge_count - 1u;
    loop {
        if !any_crossing_wide(candidates, blocks) {
            break;
        }
        let j = take_lowest_wide(&candidates, blocks);
        let b = moved_edge(hull_b, j, xf);
        var crossings = none;
        for (var i = 0u; i < hull_a.edge_count; i += 64u) {
            crossings = add_crossings8_wide(crossings, hull_a, b, i + 0u, last, blocks);
            crossings = add_crossings8_wide(crossings, hull_a, b, i + 8u, last, blocks);
            crossings = add_crossings8_wide(crossings, hull_a, b, i + 16u, last, blocks);
            crossings = add_crossings8_wide(crossings, hull_a, b, i + 24u, last, blocks);
            crossings = add_crossings8_wide(crossings, hull_a, b, i + 32u, last, blocks);
            crossings = add_crossings8_wide(crossings, hull_a, b, i + 40u, last, blocks);
            crossings = add_crossings8_wide(crossings, hull_a, b, i + 48u, last, blocks);
            crossings = add_crossings8_wide(crossings, hull_a, b, i + 56u, last, blocks);
        }
        var offering = Offering(crossings, scan, 0u);
        loop {
            if !any_crossing_wide(offering.crossings, blocks) {
                break;
            }
            offering = offer_lowest8(offering, hull_a, b, j, tolerance, limit, floor, blocks);
            offering = offer_lowest8(offering, hull_a, b, j, tolerance, limit, floor, blocks);
            offering = offer_lowest8(offering, hull_a, b, j, tolerance, limit, floor, blocks);
            offering = offer_lowest8(offering, hull_a, b, j, tolerance, limit, floor, blocks);
            if offering.scan.done {
                return offering.scan.best;
            }
        }
        scan = offering.scan;
    }
    return scan.best;
}

// ---- Deferred pairs ---------------------------------------------------------
//
// A pair of "hulls_large" or "hulls_gridded" whose A keeps more than 64
// edges (deep overlaps: at the floor every edge is hot; 4 pairs in 10,000
// on the bench's 128-vertex hulls, 17 on 256) cannot use the register
// cache, and testing each of B's kept edges against all of A's edges costs
// its SIMD group some hundred times a cached pair's edge query, paid by all
// eight lanes (llvmpipe runs a group as long as its busiest lane). So such
// a pair is not finished in place: its slot goes on its window's deferred
// list, and a second dispatch, as many workgroups as the list needs
// (an indirect dispatch whose size the first one counted), runs the whole
// SAT again on those pairs only, packed eight to a SIMD group, with 64
// slots and the fallback edge query. A pair of "hulls_gridded32" whose A
// keeps more than 32 edges is deferred the same way (64 of the bench's
// 10,000 128-vertex pairs), and the second dispatch caches its 33 to 64
// edges as "hulls_gridded" would have. The answer is the one the first
// dispatch would have given (the same functions in the same order: the
// CPU's, bit for bit); the order of the window's records is restored on
// the host.
//
// The list is kept at the far end of the window's output, growing down
// from `capacity - 1` while the hits grow up from 0, and the second
// dispatch writes each deferred pair's record over its own entry (its slot
// for "none" where the pair is not reported), so no invocation writes where
// another reads. The host checks that the two ends never met (hits plus
// deferred at most `capacity`, else the window runs again with more room:
// a pair is reported by the first dispatch or deferred, never both, so a
// window with room for every pair always fits) and puts the deferred
// records in among the others in slot order. The deferral words of a
// window, at `params.deferral` in `counters`:
//
//   +0..+2  the second dispatch's workgroups (x, y, z: an indirect dispatch
//           of up to MAX_DEFERRED_GROUPS along x, as many rows along y as
//           that takes)
//   +3      pairs deferred (counts past `capacity`)
//
// A pair that finds the list full (past `capacity`) is not tested: the
// host sees more pairs deferred than there was room for and runs the
// window again with more room, as it does when the hits overflow. So the
// first dispatch never runs the fallback, whose code (a loop runs one pass
// at least, see "Loops and lavapipe") cost every SIMD group of the large
// kinds a kept edge of B against all of A's whether a lane took it or not:
// 7.4k of a 128-vertex pair's 116.3k kernel instructions (cachegrind,
// 1,000 pairs).

const NO_DEFERRAL: u32 = 0xffffffffu;
const DEFERRAL_COUNT: u32 = 3u;
// Workgroups along x (and y) every device allows
// (maxComputeWorkgroupsPerDimension).
const MAX_DEFERRED_GROUPS: u32 = 65535u;
// Invocations per workgroup of "hulls_deferred" (src/gpu/layout/d3.rs has
// the same, as it has the two above; tests/it/gpu/layout.rs checks): one
// llvmpipe SIMD group. Its lanes past the list repeat the
// last deferred pair, a deep overlap; in workgroups of 256 the SIMD groups
// with no pair of their own did that 31 times over, which made a
// 128-vertex pair's kernel time 13.6 us instead of 8.6 (10,000 pairs, 4
// deferred).
const DEFERRED_WORKGROUP_SIZE: u32 = 8u;

// How many pairs the window's deferred list holds: its whole output (a
// dispatch of MAX_DEFERRED_GROUPS squared workgroups takes more than a
// 32-bit count of pairs).
fn deferral_limit() -> u32 {
    return params.capacity;
}

// The slot a large kind's invocation may defer its pair from (none for the
// lanes past the kind's last pair, which test that pair again).
fn deferral_slot(task: Task) -> u32 {
    return select(NO_DEFERRAL, params.pair_base + task.index, task.live);
}

// Puts the pair in window slot `slot` on the deferred list (none for a lane
// past the kind's last pair) and counts the second dispatch's workgroups:
// the one that starts with the k-th pair widens the dispatch to its own
// column and row. Past the list's end the pair is only counted.
fn defer_pair(slot: u32) {
    if slot == NO_DEFERRAL {
        return;
    }
    let k = atomicAdd(&counters[params.deferral + DEFERRAL_COUNT], 1u);
    if k >= deferral_limit() {
        return;
    }
    if k % DEFERRED_WORKGROUP_SIZE == 0u {
        let group = k / DEFERRED_WORKGROUP_SIZE;
        atomicMax(&counters[params.deferral], min(group + 1u, MAX_DEFERRED_GROUPS));
        atomicMax(&counters[params.deferral + 1u], group / MAX_DEFERRED_GROUPS + 1u);
    }
    if k == 0u {
        atomicStore(&counters[params.deferral + 2u], 1u);
    }
    hits[params.capacity - 1u - k] = HitRecord(slot, 0u, 0.0, 0u);
}

// The prologue of "hulls_deferred": invocation k takes the k-th deferred
// pair (workgroups in rows of MAX_DEFERRED_GROUPS; lanes past the list
// repeat its last pair and write nothing). `local` is k, where the
// epilogue writes.
fn begin_deferred(group: vec3<u32>, local: u32) -> Task {
    let count = min(atomicLoad(&counters[params.deferral + DEFERRAL_COUNT]), deferral_limit());
    let index = (group.y * MAX_DEFERRED_GROUPS + group.x) * DEFERRED_WORKGROUP_SIZE + local;
    let k = min(index, max(count, 1u) - 1u);
    let slot = hits[params.capacity - 1u - k].pair;
    return Task(k, slot, index < count, pairs[slot]);
}

// The epilogue of "hulls_deferred": the pair's record over its entry in
// the list, its slot NO_DEFERRAL where it is not reported.
fn finish_deferred(task: Task, result: PairResult) {
    if task.live {
        let slot = select(NO_DEFERRAL, task.index, result.reported);
        hits[params.capacity - 1u - task.local] = HitRecord(slot, result.axis, -result.separation, 0u);
    }
}

// Hull A against hull B: A's faces, B's faces, then the edge pairs above the
// floor the faces set, each stopping at the first separation that reaches
// the margin.
// `wide`: the queries' wide steps (see "Loops and lavapipe"); `cached`: the
// face queries hold the other hull's vertices in registers, and the edge
// query A's hot edges, up to CACHED_KEPT_EDGES of them (both hulls of 9 to
// 32 vertices, "hulls_cached"; `slots`: 32), with room for 64 vertices
// ("hulls_cached64"; 64) or 16 ("hulls_cached16"; 16), or 8 vertices and
// all of A's edges, at most 18 ("hulls_small", both hulls of at most 8
// vertices, boxes among them; 8); `gridded`: the face queries
// look each face's deepest vertex up on the other hull's Gauss-map grid
// ("hulls_gridded", with `wide`). With `wide`, `slots` is how many of A's
// kept edges the edge query caches: 64, or 32 ("hulls_gridded32", a hull
// above 64 vertices and none above 128). Each is a constant of its entry
// point, so the code it leaves out is not compiled in.
fn collide_hulls(hull_a: HullRecord, hull_b: HullRecord, xf_ab: Transform3, xf_ba: Transform3, tolerance: f32, edge_tolerance: f32, margin: f32, wide: bool, cached: bool, slots: u32, gridded: bool, deferring: bool, defer_slot: u32, blocks: u32) -> PairResult {
    let faces = hull_faces(hull_a, hull_b, xf_ab, xf_ba, tolerance, edge_tolerance, margin, wide, cached, slots, gridded);
    if faces.separated {
        return faces.result;
    }
    var edge: EdgeSeparation;
    if wide {
        edge = find_max_edge_separation_large(hull_a, hull_b, xf_ab, tolerance, margin, faces.floor, deferring, defer_slot, slots, blocks);
    } else if cached {
        edge = find_max_edge_separation_cached(hull_a, hull_b, xf_ab, tolerance, margin, faces.floor, slots, faces.hot_a, faces.hot_b);
    } else {
        edge = find_max_edge_separation(hull_a, hull_b, xf_ab, tolerance, margin, faces.floor);
    }
    return hull_axis(faces, edge, tolerance, edge_tolerance, margin);
}

// Two hulls; `wide` for "hulls_large", "hulls_gridded" and
// "hulls_gridded32", `cached` for "hulls_cached", `gridded` for the last two;
// `deferring` in the wide kinds' first dispatch (see "Deferred pairs");
// `blocks` the WideCrossings blocks the wide kinds' hulls need (2 for
// hulls of up to 128 vertices, 4 up to 256; 1 in the other kinds);
// (hulls_pair_hardware for "hulls" and the loop kinds.)
fn hulls_pair(pair: Pair, wide: bool, cached: bool, slots: u32, gridded: bool, deferring: bool, defer_slot: u32, blocks: u32) -> PairResult {
    let p = hull_pair_frames(pair);
    return collide_hulls(p.hull_a, p.hull_b, p.xf_ab, p.xf_ba, p.tolerance, p.edge_tolerance, params.margin, wide, cached, slots, gridded, deferring, defer_slot, blocks);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hulls_large(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hulls_pair(task.pair, true, false, 64u, false, true, deferral_slot(task), 4u));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hulls_cached(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hulls_pair(task.pair, false, true, 32u, false, false, NO_DEFERRAL, 1u));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hulls_cached64(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hulls_pair(task.pair, false, true, 64u, false, false, NO_DEFERRAL, 1u));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hulls_gridded(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hulls_pair(task.pair, true, false, 64u, true, true, deferral_slot(task), 4u));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hulls_small(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hulls_pair(task.pair, false, true, 8u, false, false, NO_DEFERRAL, 1u));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hulls_cached16(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hulls_pair(task.pair, false, true, 16u, false, false, NO_DEFERRAL, 1u));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hulls_gridded32(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hulls_pair(task.pair, true, false, 32u, true, true, deferral_slot(task), 2u));
}

@compute @workgroup_size(DEFERRED_WORKGROUP_SIZE)
fn hulls_deferred(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin_deferred(group, local);
    finish_deferred(task, hulls_pair(task.pair, true, false, 64u, false, false, NO_DEFERRAL, 4u));
}
