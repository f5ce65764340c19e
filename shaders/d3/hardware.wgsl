// The 3D SAT kernel's hardware module: loaded after shaders/d3/sat.wgsl
// (which comes after batch.wgsl and workgroup_scan.wgsl), it holds the
// kinds a hardware GPU runs ("hulls", "hull_sphere", "spheres",
// "hulls_large_loops", "hulls_gridded_loops", "boxes"; src/gpu/d3/kinds.rs
// says which pairs take them) and the stages sat.wgsl leaves to each
// module, written as loops. Every adapter runs "hull_sphere", "spheres" and
// "boxes" from here; a software adapter also runs "hulls" and the loop kinds where the
// hardware kinds are forced. shaders/d3/software.wgsl is the other module:
// the register caches, the straight-line large kinds and the deferred
// pairs that exist for llvmpipe, compiled only where a pair takes them.

// ---- The module's stages ------------------------------------------------------

// The face query's vertex source (see VertexSource): `hull2`'s vertices 8 a
// step, or the vertices its Gauss-map grid lists for the face (`gridded`).
// `wide` and `cached` are the software module's and are not read.
fn vertex_source(hull2: HullRecord, wide: bool, cached: bool, slots: u32, gridded: bool) -> VertexSource {
    return vertex_source_with_grid(hull2, wide, cached, slots, gridded);
}

fn source_face_min(source: VertexSource, moved: vec3<f32>, moved_offset: f32) -> f32 {
    if source.gridded {
        return grid_face_min(source.hull, source.grid, moved, moved_offset);
    }
    let last = source.hull.vertex_count - 1u;
    var separation = HIGHEST;
    for (var k = 0u; k < source.hull.vertex_count; k += 8u) {
        separation = min(separation, vertex_min8(source.hull, moved, moved_offset, k, last));
    }
    return separation;
}

// hot_faces's runs: one a step.
const WARM_RUNS_A_STEP: u32 = 1u;

fn warm_runs(hull: HullRecord, run: u32, last_run: u32, order: FaceOrder, radius: f32, extra: vec2<f32>, level: f32, limit: f32, allowance: f32) -> u32 {
    return warm_run_bit(hull, run, last_run, order, radius, extra, level, limit, allowance);
}

// kept_edges edge by edge: 8 edges a step.
fn kept_edges_by_edge(hull: HullRecord, hot: FaceBits, blocks: u32) -> WideCrossings {
    let last = hull.edge_count - 1u;
    let empty = Crossings(vec4<u32>(0u), vec2<u32>(0u));
    var kept = WideCrossings(empty, empty, empty, empty);
    for (var j = 0u; j < hull.edge_count; j += 8u) {
        kept = add_kept_edges8(kept, hull, hot, j, last, blocks);
    }
    return kept;
}

// ---- The hardware GPUs' large kinds: loops ----------------------------------
//
// "hulls_large_loops" and "hulls_gridded_loops" are the kinds a hardware GPU
// runs for a hull of more than 64 vertices. A GPU runs a warp's branch only
// where a lane takes it, has no loop limit, and its compiler unrolls and
// inlines whatever it is given (NVIDIA's took 11 to 16 s to build each of
// the straight-line large kinds of shaders/d3/software.wgsl), so these kinds run the large kinds'
// queries as plain loops: the face queries 8 vertices a step or through the
// Gauss-map grid; both hulls' kept edges at the floor (hot_faces one run a
// step, kept_edges face by face or 8 edges a step); then, in one loop, each
// kept edge of B offered every kept edge of A in turn, edge_step (the CPU pairwise
// loop's body, which runs the Gauss-map test itself) passing over those
// whose arcs do not cross. Nothing is cached in registers and no pair is
// deferred. The pairs offered that cross are the large kinds' pairs, in the
// pairwise loop's order: the CPU's answer, bit for bit.
//
// On a software adapter these kinds run only where the hardware kinds are
// forced (CI runs them so), and only for a large hull against a hull of at
// most 8 vertices: lavapipe's loop limit allows no more (src/gpu/d3/
// loop_budget.rs: loop_pair_iterations); the other large pairs take the
// straight-line kinds there.

// The edge query of the loop kinds (see above).
fn find_max_edge_separation_loops(hull_a: HullRecord, hull_b: HullRecord, xf: Transform3, tolerance: f32, limit: f32, floor: f32) -> EdgeSeparation {
    let blocks = 4u;
    let inner_a = inner_in_b(hull_a, xf);
    let inner = hull_inner(hull_b);
    let inner_b = vec4<f32>(transform_point3(xf, inner.xyz), inner.w);
    let slack = SKIP_SLACK * ((length3(xf.p) + hull_a.reach) + hull_b.reach);
    let kept_a = kept_edges(hull_a, hot_faces(hull_a, inner_b, tolerance, limit, slack, floor, blocks), blocks, true);
    var kept_b = kept_edges(hull_b, hot_faces(hull_b, inner_a, tolerance, limit, slack, floor, blocks), blocks, true);
    var scan = EdgeScan(EdgeSeparation(LOWEST, 0u, 0u), false);
    if !any_crossing_wide(kept_a, blocks) {
        return scan.best;
    }
    // One loop, a step each: the next kept edge of B where the current
    // one has been offered all of A's, else A's next kept edge. (Two
    // nested loops would run, in a SIMD group whose lanes hold the pairs
    // either way round, the most edges of B times the most of A.)
    let empty = Crossings(vec4<u32>(0u), vec2<u32>(0u));
    var edges_a = WideCrossings(empty, empty, empty, empty);
    var j = 0u;
    var b: MovedEdge;
    loop {
        if !any_crossing_wide(edges_a, blocks) {
            if !any_crossing_wide(kept_b, blocks) {
                break;
            }
            j = take_lowest_wide(&kept_b, blocks);
            b = moved_edge(hull_b, j, xf);
            edges_a = kept_a;
            continue;
        }
        let i = take_lowest_wide(&edges_a, blocks);
        scan = edge_step(scan, hull_a, b, i, j, tolerance, limit, floor);
        if scan.done {
            return scan.best;
        }
    }
    return scan.best;
}

// collide_hulls for the kinds a hardware GPU runs: "hulls" (the narrow
// queries) and the loop kinds (`loops`, with `gridded` in
// "hulls_gridded_loops"). Its own function so that those entry points
// hold none of the software adapters' edge queries (naga writes every
// function an entry point reaches, whatever its constant arguments).
fn collide_hulls_hardware(hull_a: HullRecord, hull_b: HullRecord, xf_ab: Transform3, xf_ba: Transform3, tolerance: f32, edge_tolerance: f32, margin: f32, gridded: bool, loops: bool) -> PairResult {
    let faces = hull_faces(hull_a, hull_b, xf_ab, xf_ba, tolerance, edge_tolerance, margin, false, false, 0u, gridded);
    if faces.separated {
        return faces.result;
    }
    var edge: EdgeSeparation;
    if loops {
        edge = find_max_edge_separation_loops(hull_a, hull_b, xf_ab, tolerance, margin, faces.floor);
    } else {
        edge = find_max_edge_separation(hull_a, hull_b, xf_ab, tolerance, margin, faces.floor);
    }
    return hull_axis(faces, edge, tolerance, edge_tolerance, margin);
}

// hulls_pair for "hulls" and the loop kinds (see collide_hulls_hardware).
fn hulls_pair_hardware(pair: Pair, gridded: bool, loops: bool) -> PairResult {
    let p = hull_pair_frames(pair);
    return collide_hulls_hardware(p.hull_a, p.hull_b, p.xf_ab, p.xf_ba, p.tolerance, p.edge_tolerance, params.margin, gridded, loops);
}

// ---- Two boxes (src/d3/sat/boxes.rs) ----------------------------------------
//
// "boxes" takes two boxes whose face normals are exactly their axes (the
// host's BoxRegions): the face queries as "hulls" runs them, then the
// boxes' own edge query, their nine pairs of edge directions in closed
// form (box_edge_separation: the CPU's function of that name, the same
// operations in the same order).

// A box's lowest and highest corners: the lowest and highest coordinates
// of its eight vertices (the host's BoxRegions: the same bits).
struct BoxCorners {
    low: vec3<f32>,
    high: vec3<f32>,
}

fn box_corners(hull: HullRecord) -> BoxCorners {
    var low = hull_vertex(hull, 0u);
    var high = low;
    for (var v = 1u; v < 8u; v++) {
        let p = hull_vertex(hull, v);
        low = min(low, p);
        high = max(high, p);
    }
    return BoxCorners(low, high);
}

// The box's corner on the high side of each axis where `high_side` says so.
fn box_corner(corners: BoxCorners, high_side: vec3<bool>) -> vec3<f32> {
    return select(corners.low, corners.high, high_side);
}

// The box's edge along axis `k` whose ends lie on the high side of each
// other axis where `high_side` says so (its component `k` unread): the
// one edge BoxRegions lists there on the CPU.
fn box_edge(hull: HullRecord, corners: BoxCorners, k: u32, high_side: vec3<bool>) -> u32 {
    let k1 = (k + 1u) % 3u;
    let k2 = (k + 2u) % 3u;
    var found = 0u;
    for (var e = 0u; e < 12u; e++) {
        let ends = hull_edge(hull, e);
        let p0 = hull_vertex(hull, ends.x);
        let p1 = hull_vertex(hull, ends.y);
        let sides = p0 == corners.high;
        if p0[k] != p1[k] && sides[k1] == high_side[k1] && sides[k2] == high_side[k2] {
            found = e;
        }
    }
    return found;
}

// Two boxes' edge query (boxes.rs, box_edge_separation): for each of B's
// axes j, then each of A's axes i, the axis n = e_i x b_j in A's frame,
// turned toward B's centre; A's corner farthest along it and B's farthest
// against it, chosen by signs; their distance along n, the tie rule, the
// floor and the early exit; the kept pair's edges through those corners.
fn box_edge_separation(hull_a: HullRecord, hull_b: HullRecord, xf: Transform3, tolerance: f32, limit: f32, floor: f32) -> EdgeSeparation {
    let corners_a = box_corners(hull_a);
    let corners_b = box_corners(hull_b);
    let centre_a = (corners_a.low + corners_a.high) * 0.5;
    let centre_b = (corners_b.low + corners_b.high) * 0.5;
    let d = transform_point3(xf, centre_b) - centre_a;
    var columns = array<vec3<f32>, 3>(xf.r.c0, xf.r.c1, xf.r.c2);
    var best = EdgeSeparation(LOWEST, 0u, 0u);
    // The kept candidate's axes and sides: its edges are looked up once,
    // after the loop (the same edges the CPU takes from its table when it
    // keeps the candidate).
    var kept_i = 0u;
    var kept_j = 0u;
    var kept_a = vec3<bool>(false);
    var kept_b = vec3<bool>(false);
    for (var j = 0u; j < 3u; j++) {
        let j1 = (j + 1u) % 3u;
        let j2 = (j + 2u) % 3u;
        let b = columns[j];
        for (var i = 0u; i < 3u; i++) {
            let i1 = (i + 1u) % 3u;
            let i2 = (i + 2u) % 3u;
            var n = vec3<f32>(0.0);
            n[i1] = -b[i2];
            n[i2] = b[i1];
            let len = sqrt(n[i1] * n[i1] + n[i2] * n[i2]);
            if len <= PARALLEL_TOLERANCE {
                continue;
            }
            let sign = select(-1.0, 1.0, n[i1] * d[i1] + n[i2] * d[i2] >= 0.0);
            var high_a = vec3<bool>(false);
            high_a[i1] = sign * n[i1] > 0.0;
            high_a[i2] = sign * n[i2] > 0.0;
            var high_b = vec3<bool>(false);
            high_b[j1] = -sign * columns[j2][i] > 0.0;
            high_b[j2] = sign * columns[j1][i] > 0.0;
            let corner_a = box_corner(corners_a, high_a);
            let corner_b = transform_point3(xf, box_corner(corners_b, high_b));
            let separation = sign * dot3(n, corner_b - corner_a) / len;
            if separation >= limit {
                // The pair separates: its edges are not read.
                return EdgeSeparation(separation, 0u, 0u);
            }
            if separation > best.value + tolerance && separation > floor {
                best.value = separation;
                kept_i = i;
                kept_j = j;
                kept_a = high_a;
                kept_b = high_b;
            }
        }
    }
    if best.value > LOWEST {
        best.a = box_edge(hull_a, corners_a, kept_i, kept_a);
        best.b = box_edge(hull_b, corners_b, kept_j, kept_b);
    }
    return best;
}

// Two boxes (boxes.rs, collide_boxes): the faces, then the boxes' edges.
fn collide_boxes(hull_a: HullRecord, hull_b: HullRecord, xf_ab: Transform3, xf_ba: Transform3, tolerance: f32, edge_tolerance: f32, margin: f32) -> PairResult {
    let faces = hull_faces(hull_a, hull_b, xf_ab, xf_ba, tolerance, edge_tolerance, margin, false, false, 0u, false);
    if faces.separated {
        return faces.result;
    }
    let edge = box_edge_separation(hull_a, hull_b, xf_ab, tolerance, margin, faces.floor);
    return hull_axis(faces, edge, tolerance, edge_tolerance, margin);
}

fn boxes_pair(pair: Pair) -> PairResult {
    let p = hull_pair_frames(pair);
    return collide_boxes(p.hull_a, p.hull_b, p.xf_ab, p.xf_ba, p.tolerance, p.edge_tolerance, params.margin);
}

// The entry points: the prologue, the kind's pair function, the epilogue.

@compute @workgroup_size(WORKGROUP_SIZE)
fn hulls(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hulls_pair_hardware(task.pair, false, false));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hull_sphere(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hull_sphere_pair(task.pair));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn spheres(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, spheres_pair(task.pair));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hulls_large_loops(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hulls_pair_hardware(task.pair, false, true));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hulls_gridded_loops(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, hulls_pair_hardware(task.pair, true, true));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn boxes(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let task = begin(group, local);
    finish(task, boxes_pair(task.pair));
}
