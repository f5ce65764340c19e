//! The 3D side of the GPU narrowphase: `shaders/sat3.wgsl`, the hull
//! library and the bodies as textures (see [`HullRecord`]), ten kinds of
//! pair (two hulls: up to 64 vertices, a larger one with or without a
//! Gauss-map grid, or, on a software adapter, both of up to 8, 16, 32 or
//! 64 vertices with caches of that size, or of up to 128 with a grid and a
//! smaller cache of kept edges; a hull and a sphere either way round; two
//! spheres).

use super::buffers::{GrowTexture, pad_to_rows};
use super::context::GpuContext;
use super::dimension::{Dimension, Spatial, Upload, float_texture, uint_texture};
use super::error::GpuError;
use super::kinds::BodyClasses;
use super::layout::{
    HullRecord, SAT3_WGSL, Transform3Texels, hull_record_texels, transform3_texels,
};
use crate::core::pair::Pair;
use crate::d3::math::dot3;
use crate::d3::{Axis, Batch, EdgeSearch, Hull, SatHit, Shape, ShapeSet};
use glam::Vec3;

/// Hulls of more vertices than this take the kernel's wide loops
/// (`hulls_large`; see "Loops and lavapipe" in `shaders/sat3.wgsl`).
pub(crate) const WIDE_HULL_VERTICES: usize = 64;

/// Pairs of hulls of more than 8 and at most this many vertices on both
/// sides take `hulls_cached`, whose face queries hold the other hull's
/// vertices in registers (read once per query instead of once per face),
/// and whose edge query holds A's edges' face normals (read once instead of
/// once per edge of B kept). Measured with `gpusat bench --dim 3 --backends
/// gpu-kernel` on lavapipe (20,000 pairs, min of 3 interleaved runs, ns per
/// pair, without the cache and with it): the vertices, 16-vertex hulls
/// 2,561 -> 2,324, 32: 5,317 -> 4,770; A's edges, 32: 5,902 -> 4,330. Boxes
/// (8 vertices: one step of the loop) lost 8% when the cached path shared
/// their entry point, so they keep `hulls`. Only software adapters take
/// this kind ([`GpuContext::is_software`]): llvmpipe keeps the arrays in
/// vector registers and spills them to its stack at the cost of a cache
/// hit, where each texel read gathers eight lanes; a GPU would spill some
/// 700 floats per invocation to local memory and lose occupancy, and its
/// texture cache serves the repeated reads well, so GPUs keep `hulls`.
pub(crate) const CACHED_HULL_VERTICES: usize = 32;

/// Pairs of hulls of at most this many vertices on both sides (boxes among
/// them: a hull of 8 vertices has at most 18 edges) take `hulls_small` on a
/// software adapter: the caches of `hulls_cached` cut to 8 vertices and 20
/// edges, read in full as those are. Measured with `gpusat bench --dim 3
/// --shapes boxes --backends cpu,gpu-kernel` on lavapipe (20,000 pairs,
/// three interleaved runs, ns per pair): boxes 955-1,056 (`hulls`) ->
/// 576-651; at 1M pairs 481.5 against one CPU thread's 295.8 (0.61x).
pub(crate) const SMALL_HULL_VERTICES: usize = 8;

/// Pairs of hulls of 9 to this many vertices on both sides take
/// `hulls_cached16` on a software adapter: the caches cut to 16 vertices
/// and 44 edges (a hull of 16 vertices has at most 42), where
/// `hulls_cached` reads 32 vertices, 96 edges and 96 of B's bound records
/// whatever the hull. Measured as `hulls_small`: 16-vertex hulls
/// 1,515-1,589 -> 1,163-1,238 ns (32-vertex hulls, the control, 2,158 to
/// 2,322 both ways); at 1M pairs 1,150 against one CPU thread's 780
/// (0.68x).
pub(crate) const CACHED16_HULL_VERTICES: usize = 16;

/// The same with caches twice the size (`hulls_cached64`): pairs of hulls
/// of 9 to this many vertices, one of them above [`CACHED_HULL_VERTICES`].
/// Measured the same way: 64-vertex hulls 10,482 -> 4,382 ns; the larger
/// caches made 16- and 32-vertex pairs a third slower (each cache is read
/// in full, whatever the hull's size), so those keep `hulls_cached`.
pub(crate) const CACHED64_HULL_VERTICES: usize = WIDE_HULL_VERTICES;

/// Pairs of a hull of more than [`WIDE_HULL_VERTICES`] and at most this
/// many vertices with a hull of at most this many, both with grids, take
/// `hulls_gridded32` on a software adapter: `hulls_gridded` with 32 of
/// A's kept edges cached instead of 64 (its pairs whose A keeps more, 64
/// of the bench's 10,000 128-vertex pairs, are deferred to the second
/// dispatch, which caches 64). The cache is read in full and every kept
/// edge of B is tested against all of it, whatever A keeps; on the bench's
/// 128-vertex hulls A keeps at most 32 edges in 99.4% of the pairs.
/// Measured on lavapipe, 128-vertex hulls, `hulls_gridded` against this
/// kind: kernel instructions per pair under cachegrind (1,000 pairs)
/// 136.3k -> 127.5k; kernel time (10,000 pairs, eight interleaved runs,
/// the middle runs' medians) 8,806-8,977 -> 8,104-8,352 ns. Larger hulls
/// keep 64: with 32 for every large kind, 214 of 10,000 256-vertex pairs
/// deferred and their kernel time got worse (135-148 -> 148-162 ms).
pub(crate) const GRIDDED32_HULL_VERTICES: usize = 128;

/// The longest vertex list of a hull's Gauss-map grid for the kernel to
/// look its faces' deepest vertices up in it (`hulls_gridded`). Four
/// vertices a step, so at most eight steps a face: no more than the scan
/// over 256 vertices, 32 a step, takes (the loop-limit bound holds as it
/// is). The bench's random hulls list at most 17 (256 vertices; 12 to 17,
/// 300 hulls of each size from 24 to 256 vertices).
pub(crate) const GPU_GRID_LIST_MAX: usize = 32;

/// A hull's Gauss-map grid as the kernel reads it: squares per side of a
/// cube face, and each square's vertex list, in square order. Hulls with a
/// grid ([`GRID_MIN_VERTICES`](crate::d3::GRID_MIN_VERTICES) vertices or
/// more) give theirs; a smaller hull a one-cell grid whose six squares each
/// list every vertex. `None` where a list is empty or longer than
/// [`GPU_GRID_LIST_MAX`]: such a hull's pairs scan every vertex
/// (`hulls_large`).
fn gpu_grid(hull: &Hull) -> Option<(u32, Vec<Vec<u16>>)> {
    let (cells, lists) = match hull.gauss_grid() {
        Some(grid) => (grid.cells(), grid.lists().map(<[u16]>::to_vec).collect()),
        None => (1, vec![(0..hull.vertices().len() as u16).collect(); 6]),
    };
    let usable = lists
        .iter()
        .all(|list| (1..=GPU_GRID_LIST_MAX).contains(&list.len()));
    usable.then_some((cells, lists))
}

/// Marks a body class whose hull has no grid the kernel can use
/// ([`gpu_grid`]).
const NO_GRID: u8 = 8;

/// A body's class: 0 a hull of up to [`WIDE_HULL_VERTICES`] vertices (not
/// class 3, 4 or 5), 1 a sphere, 2 a larger hull (not class 7); when
/// `cached` (on a software adapter) 5 a hull of up to
/// [`SMALL_HULL_VERTICES`], 6 of up to [`CACHED16_HULL_VERTICES`], 3 of up
/// to [`CACHED_HULL_VERTICES`], 4 of more, up to
/// [`CACHED64_HULL_VERTICES`], and 7 of more than [`WIDE_HULL_VERTICES`],
/// up to [`GRIDDED32_HULL_VERTICES`]; a hull's class with [`NO_GRID`] added
/// where it has no `gridded` grid ([`gpu_grid`]).
fn body_class(shape: &Shape, cached: bool, gridded: bool) -> u8 {
    let flag = match shape {
        Shape::Hull(_) if !gridded => NO_GRID,
        _ => 0,
    };
    flag | match shape {
        Shape::Hull(hull)
            if cached
                && (WIDE_HULL_VERTICES + 1..=GRIDDED32_HULL_VERTICES)
                    .contains(&hull.vertices().len()) =>
        {
            7
        }
        Shape::Hull(hull) if hull.vertices().len() > WIDE_HULL_VERTICES => 2,
        Shape::Hull(hull) if cached && hull.vertices().len() <= SMALL_HULL_VERTICES => 5,
        Shape::Hull(hull) if cached && hull.vertices().len() <= CACHED16_HULL_VERTICES => 6,
        Shape::Hull(hull)
            if cached
                && (CACHED16_HULL_VERTICES + 1..=CACHED_HULL_VERTICES)
                    .contains(&hull.vertices().len()) =>
        {
            3
        }
        Shape::Hull(hull)
            if cached
                && (CACHED_HULL_VERTICES + 1..=CACHED64_HULL_VERTICES)
                    .contains(&hull.vertices().len()) =>
        {
            4
        }
        Shape::Hull(_) => 0,
        Shape::Sphere(_) => 1,
    }
}

/// The entry point of two classes: 0 `hulls`, 1 `hull_sphere` (either
/// order), 2 `spheres`, 3 `hulls_large` (a large hull with any hull), 4
/// `hulls_cached` (classes 3 and 6, one of them 3), 5 `hulls_cached64`
/// (classes 3, 4 and 6, one of them 4), 6 `hulls_gridded` (a large hull
/// with any hull, both with a grid the kernel can use), 7 `hulls_small`
/// (two hulls of class 5), 8 `hulls_cached16` (two hulls of class 6), 9
/// `hulls_gridded32` (a hull of class 7 with any hull but a class 2 one,
/// both with grids).
fn kind_of(a: u8, b: u8) -> u8 {
    let gridded = (a | b) & NO_GRID == 0;
    match (a & !NO_GRID, b & !NO_GRID) {
        (1, 1) => 2,
        (1, _) | (_, 1) => 1,
        (6, 6) => 8,
        (3 | 6, 3 | 6) => 4,
        (3 | 4 | 6, 3 | 4 | 6) => 5,
        (5, 5) => 7,
        (0 | 3 | 4 | 5 | 6, 0 | 3 | 4 | 5 | 6) => 0,
        (0 | 3..=7, 0 | 3..=7) if gridded => 9,
        _ if gridded => 6,
        _ => 3,
    }
}

/// The 3D kernel's textures and the scratch they are filled from.
pub struct SpatialResources {
    hull_floats: GrowTexture,
    hull_ints: GrowTexture,
    body_transforms: GrowTexture,
    body_shapes: GrowTexture,
    /// (library id, shape count) of the shapes on the device.
    uploaded_shapes: Option<(u64, usize)>,
    /// Each shape's record, once uploaded.
    records: Vec<HullRecord>,
    /// Whether each shape's grid went up with it ([`gpu_grid`]).
    gridded: Vec<bool>,
    floats: Vec<[f32; 4]>,
    ints: Vec<[u32; 4]>,
    transform_texels: Vec<[f32; 4]>,
    shape_texels: Vec<[u32; 4]>,
}

/// The hull library in texels: each shape's record, the float and the
/// integer data (see [`HullRecord`]).
pub(crate) fn library_texels(
    shapes: &ShapeSet,
    records: &mut Vec<HullRecord>,
    gridded: &mut Vec<bool>,
    floats: &mut Vec<[f32; 4]>,
    ints: &mut Vec<[u32; 4]>,
) {
    records.clear();
    gridded.clear();
    floats.clear();
    ints.clear();
    for shape in shapes.shapes() {
        let record = match shape {
            Shape::Sphere(sphere) => HullRecord {
                radius: sphere.radius(),
                size: shape.size(),
                ..HullRecord::default()
            },
            Shape::Hull(hull) => {
                let record = HullRecord {
                    float_base: floats.len() as u32,
                    vertex_count: hull.vertices().len() as u32,
                    face_count: hull.face_count() as u32,
                    edge_count: hull.edges().len() as u32,
                    int_base: ints.len() as u32,
                    radius: 0.0,
                    size: hull.size(),
                    reach: hull.lanes().reach,
                };
                floats.extend(hull.vertices().iter().map(|v| [v.x, v.y, v.z, 0.0]));
                floats.extend(
                    hull.normals()
                        .iter()
                        .zip(hull.offsets())
                        .map(|(n, &d)| [n.x, n.y, n.z, d]),
                );
                // Two edges' normals to three texels: (u0.xyz, v0.x),
                // (v0.yz, u1.xy), (u1.z, v1.xyz).
                let normals = hull.normals();
                for pair in hull.edges().chunks(2) {
                    let faces = |k: usize| {
                        pair.get(k).map_or([Vec3::ZERO; 2], |edge| {
                            [normals[edge.f0 as usize], normals[edge.f1 as usize]]
                        })
                    };
                    let ([u0, v0], [u1, v1]) = (faces(0), faces(1));
                    floats.push([u0.x, u0.y, u0.z, v0.x]);
                    floats.push([v0.y, v0.z, u1.x, u1.y]);
                    floats.push([u1.z, v1.x, v1.y, v1.z]);
                }
                let lanes = hull.lanes();
                let centre = lanes.inner_centre;
                floats.push([centre.x, centre.y, centre.z, lanes.inner_radius]);
                // Each edge's record: (u, u . p), (v, v . p), (p, 0).
                for (e, edge) in hull.edges().iter().enumerate() {
                    let gauss = lanes.edge_gauss(e);
                    let (u_p, v_p) = lanes.edge_plane(e);
                    let p = hull.vertices()[edge.v0 as usize];
                    floats.push([gauss.u.x, gauss.u.y, gauss.u.z, u_p]);
                    floats.push([gauss.v.x, gauss.v.y, gauss.v.z, v_p]);
                    floats.push([p.x, p.y, p.z, 0.0]);
                }
                floats.push(face_bound_texel(hull));
                // Each run of eight faces' cone: (axis, cos).
                floats.extend(lanes.face_cones.iter().copied());
                ints.extend(hull.edges().iter().map(|e| [e.v0, e.v1, e.f0, e.f1]));
                let mut start = 0;
                for face in 0..hull.face_count() {
                    let count = hull.face(face).len() as u32;
                    ints.push([start, count, 0, 0]);
                    start += count;
                }
                let loops: Vec<u32> = (0..hull.face_count())
                    .flat_map(|face| hull.face(face).iter().copied())
                    .collect();
                ints.extend(loops.chunks(4).map(|chunk| {
                    let mut texel = [0; 4];
                    texel[..chunk.len()].copy_from_slice(chunk);
                    texel
                }));
                let grid = gpu_grid(hull);
                if let Some((cells, lists)) = &grid {
                    // Where the grid is: face 0's loop record's spare slots.
                    let base = ints.len() as u32;
                    let face_0 = (record.int_base + record.edge_count) as usize;
                    ints[face_0][2..].copy_from_slice(&[base, *cells]);
                    grid_texels(lists, ints);
                }
                // Where a face query starts, per direction cell: 96 bytes,
                // four to a u32; where they are: face 2's loop record's
                // spare slot.
                let face_2 = (record.int_base + record.edge_count + 2) as usize;
                ints[face_2][2] = ints.len() as u32;
                ints.extend(lanes.face_start.chunks(16).map(|chunk| {
                    std::array::from_fn(|k| {
                        let bytes: [u8; 4] = std::array::from_fn(|b| chunk[4 * k + b]);
                        u32::from_le_bytes(bytes)
                    })
                }));
                // Each edge's faces, 16 bits each, four edges to a texel;
                // where they are: face 1's loop record's spare slot.
                let face_1 = (record.int_base + record.edge_count + 1) as usize;
                ints[face_1][2] = ints.len() as u32;
                ints.extend(hull.edges().chunks(4).map(|chunk| {
                    let mut texel = [0; 4];
                    for (slot, edge) in texel.iter_mut().zip(chunk) {
                        *slot = edge.f0 | edge.f1 << 16;
                    }
                    texel
                }));
                // Each face's edges in the order of its loop (the edge from
                // its vertex k to k + 1), four to a texel, parallel to the
                // loops; where they are: face 1's loop record's other spare
                // slot.
                ints[face_1][3] = ints.len() as u32;
                let loop_edges = face_loop_edges(hull);
                ints.extend(loop_edges.chunks(4).map(|chunk| {
                    let mut texel = [0; 4];
                    texel[..chunk.len()].copy_from_slice(chunk);
                    texel
                }));
                gridded.push(grid.is_some());
                record
            }
        };
        if matches!(shape, Shape::Sphere(_)) {
            gridded.push(false);
        }
        records.push(record);
    }
}

/// For each face, in order, the edges of its loop: entry `k` of face `f`'s
/// loop (`start + k`, as the vertex loops are numbered) is the edge from
/// its vertex `k` to vertex `k + 1` (the kernel's `kept_edges_of_faces`).
fn face_loop_edges(hull: &Hull) -> Vec<u32> {
    let index: std::collections::HashMap<(u32, u32), u32> = hull
        .edges()
        .iter()
        .enumerate()
        .map(|(e, edge)| ((edge.v0.min(edge.v1), edge.v0.max(edge.v1)), e as u32))
        .collect();
    (0..hull.face_count())
        .flat_map(|f| {
            let face = hull.face(f);
            (0..face.len()).map(|k| {
                let (a, b) = (face[k], face[(k + 1) % face.len()]);
                // A built hull is closed: every loop edge is one of its edges.
                index[&(a.min(b), a.max(b))]
            })
        })
        .collect()
}

/// The texel after a hull's edges' records: `k` and `delta` of the
/// kernel's face bound on edges ("Edge masks from face bounds" in
/// `shaders/sat3.wgsl`): `k` at least every edge's `1 / cos(angle / 2)` as
/// `skips_edge` computes it (the square root of `(1 + u . v) / 2`,
/// infinite for a zero), `delta` at least how far an edge's record offset
/// (`u . p`, `v . p`) lies below its face's offset; both rounded up.
fn face_bound_texel(hull: &Hull) -> [f32; 4] {
    let lanes = hull.lanes();
    let offsets = hull.offsets();
    let mut k = 1.0f32;
    let mut delta = 0.0f64;
    for (e, edge) in hull.edges().iter().enumerate() {
        let gauss = lanes.edge_gauss(e);
        let (u_p, v_p) = lanes.edge_plane(e);
        let cosine = ((1.0 + dot3(gauss.u, gauss.v)) * 0.5).max(0.0).sqrt();
        k = k.max(if cosine > 0.0 {
            1.0 / cosine
        } else {
            f32::INFINITY
        });
        delta = delta
            .max(f64::from(offsets[edge.f0 as usize]) - f64::from(u_p))
            .max(f64::from(offsets[edge.f1 as usize]) - f64::from(v_p));
    }
    [k * (1.0 + 1e-5), (delta * (1.0 + 1e-3)) as f32, 0.0, 0.0]
}

/// A grid's lists in texels (`shaders/sat3.wgsl`, `grid_face_min`): per
/// square its list's first texel and its texels, two squares a texel; then
/// each list four vertices a texel, the last texel padded with the list's
/// last vertex (a minimum is unchanged by repeats).
fn grid_texels(lists: &[Vec<u16>], ints: &mut Vec<[u32; 4]>) {
    let squares_base = ints.len();
    let mut next = (squares_base + lists.len().div_ceil(2)) as u32;
    let entries: Vec<[u32; 2]> = lists
        .iter()
        .map(|list| {
            let texels = list.len().div_ceil(4) as u32;
            let entry = [next, texels];
            next += texels;
            entry
        })
        .collect();
    ints.extend(entries.chunks(2).map(|pair| {
        let second = pair.get(1).copied().unwrap_or([0, 0]);
        [pair[0][0], pair[0][1], second[0], second[1]]
    }));
    for list in lists {
        let last = u32::from(list[list.len() - 1]);
        ints.extend(list.chunks(4).map(|chunk| {
            let mut texel = [last; 4];
            for (slot, &vertex) in texel.iter_mut().zip(chunk) {
                *slot = u32::from(vertex);
            }
            texel
        }));
    }
}

impl Dimension for Spatial {
    type Batch<'a> = Batch<'a>;
    type Hit = SatHit;
    type Resources = SpatialResources;
    const LABEL: &'static str = "sat3.wgsl";
    const SOURCE: &'static str = SAT3_WGSL;
    const ENTRY_POINTS: &'static [&'static str] = &[
        "hulls",
        "hull_sphere",
        "spheres",
        "hulls_large",
        "hulls_cached",
        "hulls_cached64",
        "hulls_gridded",
        "hulls_small",
        "hulls_cached16",
        "hulls_gridded32",
        // Not a kind of pair: the large kinds' deferred pairs (DEFERRED_KIND).
        "hulls_deferred",
    ];
    // `hulls_large`, `hulls_gridded` and `hulls_gridded32`.
    const DEFERRING_KINDS: &'static [usize] = &[3, 6, 9];

    fn scene_layout() -> Vec<wgpu::BindGroupLayoutEntry> {
        vec![
            float_texture(1),
            float_texture(2),
            uint_texture(3),
            uint_texture(7),
        ]
    }

    fn resources(context: &GpuContext) -> Result<SpatialResources, GpuError> {
        let (float, uint) = (
            wgpu::TextureFormat::Rgba32Float,
            wgpu::TextureFormat::Rgba32Uint,
        );
        Ok(SpatialResources {
            hull_floats: GrowTexture::new(context, "hull float", float, 1)?,
            hull_ints: GrowTexture::new(context, "hull integer", uint, 1)?,
            body_transforms: GrowTexture::new(context, "body transform", float, 1)?,
            body_shapes: GrowTexture::new(context, "body shape", uint, 1)?,
            uploaded_shapes: None,
            records: Vec::new(),
            gridded: Vec::new(),
            floats: Vec::new(),
            ints: Vec::new(),
            transform_texels: Vec::new(),
            shape_texels: Vec::new(),
        })
    }

    fn check(batch: &Batch<'_>) -> Result<(), GpuError> {
        match batch.edge_search() {
            EdgeSearch::Pruned | EdgeSearch::Pairwise | EdgeSearch::Walk => Ok(()),
            EdgeSearch::BruteForce => Err(GpuError::InvalidOption {
                message: "the GPU kernel runs the pruned edge query only (EdgeSearch::Pruned); \
                          the brute force is a CPU reference"
                    .to_string(),
            }),
        }
    }

    fn pairs<'b>(batch: &'b Batch<'_>) -> &'b [Pair] {
        batch.pairs()
    }

    fn margin(batch: &Batch<'_>) -> f32 {
        batch.margin()
    }

    fn flags(_: &Batch<'_>) -> u32 {
        0
    }

    fn upload(
        resources: &mut SpatialResources,
        context: &GpuContext,
        batch: &Batch<'_>,
        (_, texture_rows): (u32, u32),
        classes: &mut BodyClasses,
    ) -> Result<Upload, GpuError> {
        let r = resources;
        let mut upload = Upload {
            grew: false,
            bytes: 0,
        };
        let shapes = batch.shapes();
        let key = (shapes.uid(), shapes.len());
        if r.uploaded_shapes != Some(key) {
            r.uploaded_shapes = None;
            library_texels(
                shapes,
                &mut r.records,
                &mut r.gridded,
                &mut r.floats,
                &mut r.ints,
            );
            upload.grew |= r
                .hull_floats
                .ensure(context, r.floats.len(), texture_rows)?;
            upload.grew |= r.hull_ints.ensure(context, r.ints.len(), texture_rows)?;
            upload.bytes += 16 * (r.floats.len() + r.ints.len()) as u64;
            pad_to_rows(&mut r.floats, [0.0; 4]);
            pad_to_rows(&mut r.ints, [0; 4]);
            r.hull_floats.write(context, &r.floats);
            r.hull_ints.write(context, &r.ints);
            r.uploaded_shapes = Some(key);
        }
        let bodies = batch.bodies();
        r.transform_texels.clear();
        r.shape_texels.clear();
        for (index, body) in bodies.iter().enumerate() {
            let texels: Transform3Texels = transform3_texels(&batch.transforms()[index]);
            r.transform_texels.extend_from_slice(&texels);
            r.shape_texels
                .extend_from_slice(&hull_record_texels(&r.records[body.shape as usize]));
        }
        let cached = context.is_software();
        classes.classify(
            bodies.iter().enumerate().map(|(index, body)| {
                let gridded = r.gridded[body.shape as usize];
                body_class(batch.shape_of(index as u32), cached, gridded)
            }),
            kind_of,
        );
        // Hull data is large: neighbouring invocations share A's hull
        // (`kinds`, "grouped by the shape of their body A").
        classes.group_by_shape(bodies.iter().map(|body| body.shape));
        upload.grew |= r
            .body_transforms
            .ensure(context, r.transform_texels.len(), texture_rows)?;
        upload.grew |= r
            .body_shapes
            .ensure(context, r.shape_texels.len(), texture_rows)?;
        upload.bytes += 16 * (r.transform_texels.len() + r.shape_texels.len()) as u64;
        pad_to_rows(&mut r.transform_texels, [0.0; 4]);
        pad_to_rows(&mut r.shape_texels, [0; 4]);
        r.body_transforms.write(context, &r.transform_texels);
        r.body_shapes.write(context, &r.shape_texels);
        Ok(upload)
    }

    fn scene_bindings(r: &SpatialResources) -> Vec<(u32, &wgpu::TextureView)> {
        vec![
            (1, &r.hull_floats.view),
            (2, &r.body_transforms.view),
            (3, &r.body_shapes.view),
            (7, &r.hull_ints.view),
        ]
    }

    fn device_bytes(r: &SpatialResources) -> u64 {
        r.hull_floats.bytes()
            + r.hull_ints.bytes()
            + r.body_transforms.bytes()
            + r.body_shapes.bytes()
    }

    fn hit(pair: u32, axis: u32, depth: f32) -> SatHit {
        SatHit {
            pair,
            axis: Axis::unpack(axis),
            depth,
        }
    }

    fn hit_pair(hit: &SatHit) -> u32 {
        hit.pair
    }

    fn set_hit_pair(hit: &mut SatHit, pair: u32) {
        hit.pair = pair;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3::MAX_HULL_VERTICES;

    /// Hulls of up to 8, 9 to 32 and 33 to 64 vertices take the cached
    /// kinds only on a software adapter, and only against each other.
    #[test]
    fn the_cached_kind_is_for_software_adapters_and_mid_sized_hulls() {
        use crate::d3::{Hull, Sphere};
        let hull = |n: usize| {
            let points: Vec<Vec3> = (0..n)
                .map(|k| {
                    let (t, z) = (
                        k as f32 * 2.399_963,
                        1.0 - 2.0 * (k as f32 + 0.5) / n as f32,
                    );
                    let r = (1.0 - z * z).sqrt();
                    Vec3::new(r * t.cos(), r * t.sin(), z)
                })
                .collect();
            Shape::Hull(Hull::new(&points).expect("points on a sphere hull"))
        };
        let sphere = Shape::Sphere(Sphere::new(1.0).expect("a valid radius"));
        let cases = [
            (
                Shape::Hull(Hull::cuboid(Vec3::ONE).expect("a valid box")),
                0,
                5,
            ),
            (hull(4), 0, 5),
            (hull(8), 0, 5),
            (hull(9), 0, 6),
            (hull(16), 0, 6),
            (hull(17), 0, 3),
            (hull(32), 0, 3),
            (hull(33), 0, 4),
            (hull(64), 0, 4),
            (hull(65), 2, 7),
            (hull(128), 2, 7),
            (hull(129), 2, 2),
            (sphere, 1, 1),
        ];
        for (shape, on_gpu, on_software) in &cases {
            let vertices = match shape {
                Shape::Hull(hull) => hull.vertices().len(),
                Shape::Sphere(_) => 0,
            };
            assert_eq!(
                (
                    body_class(shape, false, true),
                    body_class(shape, true, true)
                ),
                (*on_gpu, *on_software),
                "a shape of {vertices} vertices: (GPU, software) classes"
            );
        }
        assert_eq!(kind_of(3, 3), 4, "two mid-sized hulls: hulls_cached");
        assert_eq!(kind_of(5, 5), 7, "two boxes: hulls_small");
        assert_eq!(kind_of(6, 6), 8, "two up to 16: hulls_cached16");
        assert_eq!(kind_of(6, 3), 4, "up to 16 and up to 32: hulls_cached");
        assert_eq!(kind_of(3, 6), 4, "up to 32 and up to 16: hulls_cached");
        assert_eq!(kind_of(6, 4), 5, "up to 16 and up to 64: hulls_cached64");
        assert_eq!(kind_of(6, 5), 0, "up to 16 and a box: hulls");
        assert_eq!(kind_of(0, 0), 0, "two boxes on a GPU: hulls");
        assert_eq!(kind_of(3, 5), 0, "a mid-sized hull and a box: hulls");
        assert_eq!(kind_of(5, 3), 0, "a box and a mid-sized hull: hulls");
        assert_eq!(kind_of(5, 4), 0, "a box and up to 64: hulls");
        assert_eq!(kind_of(5, 1), 1, "a box and a sphere: hull_sphere");
        assert_eq!(kind_of(5, 2), 6, "a box and a large hull: hulls_gridded");
        assert_eq!(kind_of(3, 4), 5, "up to 32 and up to 64: hulls_cached64");
        assert_eq!(kind_of(4, 4), 5, "two up to 64: hulls_cached64");
        assert_eq!(kind_of(4, 0), 0, "up to 64 and a box: hulls");
        assert_eq!(
            kind_of(3, 2),
            6,
            "a mid-sized and a large hull with grids: hulls_gridded"
        );
        assert_eq!(
            kind_of(3, 2 | NO_GRID),
            3,
            "a mid-sized hull and a large one without a grid: hulls_large"
        );
        assert_eq!(
            kind_of(1, 3),
            1,
            "a sphere and a mid-sized hull: hull_sphere"
        );
        assert_eq!(kind_of(7, 7), 9, "two up to 128: hulls_gridded32");
        assert_eq!(kind_of(7, 5), 9, "up to 128 and a box: hulls_gridded32");
        assert_eq!(kind_of(3, 7), 9, "up to 32 and up to 128: hulls_gridded32");
        assert_eq!(kind_of(7, 2), 6, "up to 128 and larger: hulls_gridded");
        assert_eq!(
            kind_of(7, 7 | NO_GRID),
            3,
            "up to 128, one without a grid: hulls_large"
        );
        assert_eq!(kind_of(7, 1), 1, "up to 128 and a sphere: hull_sphere");
    }

    /// Random hulls and boxes go up with a grid (a box's: one cell, every
    /// vertex in each square); a cylinder's rims list more than
    /// [`GPU_GRID_LIST_MAX`] vertices in a square, so it goes without, and
    /// its pairs with a large hull take `hulls_large`, not `hulls_gridded`.
    #[test]
    fn grids_go_up_where_their_lists_are_short() {
        let mut random = crate::generate::rng(5);
        let round = crate::generate::d3::random_hull(&mut random, 128, 1.0, 1.0);
        let (cells, lists) = gpu_grid(&round).expect("a round hull's grid");
        assert_eq!(cells, round.gauss_grid().expect("a grid").cells());
        assert_eq!(lists.len(), (6 * cells * cells) as usize);
        let cuboid = Hull::cuboid(Vec3::ONE).expect("a valid box");
        let (cells, lists) = gpu_grid(&cuboid).expect("a box's grid");
        assert_eq!((cells, lists.len()), (1, 6));
        assert!(lists.iter().all(|list| list == &[0, 1, 2, 3, 4, 5, 6, 7]));
        let rims: Vec<Vec3> = (0..128)
            .map(|k| {
                let angle = std::f32::consts::TAU * (k % 64) as f32 / 64.0;
                Vec3::new(angle.cos(), if k < 64 { -0.6 } else { 0.6 }, angle.sin())
            })
            .collect();
        let cylinder = Hull::new(&rims).expect("a cylinder");
        assert!(gpu_grid(&cylinder).is_none(), "the cylinder's grid went up");
        let (round_class, cylinder_class) = (
            body_class(&Shape::Hull(round), true, true),
            body_class(&Shape::Hull(cylinder), true, false),
        );
        assert_eq!(kind_of(round_class, round_class), 9, "hulls_gridded32");
        assert_eq!(
            kind_of(round_class, 0),
            9,
            "a large and a small hull with grids"
        );
        let larger = crate::generate::d3::random_hull(&mut random, 200, 1.0, 1.0);
        let larger_class = body_class(&Shape::Hull(larger), true, true);
        assert_eq!(kind_of(larger_class, round_class), 6, "hulls_gridded");
        assert_eq!(kind_of(round_class, cylinder_class), 3, "hulls_large");
        assert_eq!(kind_of(cylinder_class, 1), 1, "hull_sphere");
        assert_eq!(
            kind_of(round_class, NO_GRID),
            3,
            "a mid-sized hull without a grid"
        );
    }

    /// The kernel's face bound on edges keeps every edge that `skips_edge`
    /// keeps: for each edge, one of its faces' bounds (as `face_bound_hot`
    /// computes it, with its one slack of allowance) is at least the edge's
    /// own bound (as `skips_edge` computes it), for hulls of 4 to 256
    /// vertices, plates and boxes, against balls all around them; and it
    /// is not vacuous: it rules out faces.
    #[test]
    fn the_face_bound_keeps_every_edge_the_edge_bound_keeps() {
        use crate::d3::Hull;
        use crate::generate::d3::{random_direction, random_hull};
        use rand::RngExt;
        let mut rng = crate::generate::rng(0x4f7);
        let mut hulls = vec![
            Hull::cuboid(Vec3::new(1.0, 0.2, 0.5)).expect("a valid box"),
            Hull::cuboid(Vec3::new(40.0, 1.0, 3.0)).expect("a valid box"),
        ];
        for n in [4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256] {
            let radius = rng.random_range(0.1..10.0);
            hulls.push(random_hull(&mut rng, n, radius, 1.0));
            hulls.push(random_hull(&mut rng, n.max(8), 1.0, 0.02));
        }
        let (mut cold, mut faces) = (0, 0);
        for hull in &hulls {
            let [k, delta, _, _] = face_bound_texel(hull);
            let lanes = hull.lanes();
            let reach = lanes.reach;
            for _ in 0..40 {
                let distance = rng.random_range(0.0..3.0) * hull.size();
                let centre = hull.centroid() + distance * random_direction(&mut rng);
                let radius = rng.random_range(0.0..0.5) * hull.size();
                let slack = 1e-4 * (centre.length() + 2.0 * reach);
                let face_bound = |f: usize| {
                    let (n, d) = (hull.normals()[f], hull.offsets()[f]);
                    let s = (dot3(n, centre) - d) + delta;
                    let along = if s > 0.0 { s * k } else { s };
                    along - radius + 3.0 * slack
                };
                let bounds: Vec<f32> = (0..hull.face_count()).map(face_bound).collect();
                for (e, edge) in hull.edges().iter().enumerate() {
                    let gauss = lanes.edge_gauss(e);
                    let (u_p, v_p) = lanes.edge_plane(e);
                    let m = (dot3(gauss.u, centre) - u_p).max(dot3(gauss.v, centre) - v_p);
                    let along = if m > 0.0 {
                        m / ((1.0 + dot3(gauss.u, gauss.v)) * 0.5).max(0.0).sqrt()
                    } else {
                        m
                    };
                    let edge_bound = along - radius + 2.0 * slack;
                    let face = bounds[edge.f0 as usize].max(bounds[edge.f1 as usize]);
                    assert!(
                        face >= edge_bound,
                        "a hull of {} vertices, edge {e}: its faces' bound {face} below its own {edge_bound}",
                        hull.vertices().len()
                    );
                }
                // Faces ruled out at the level of the deepest face bound
                // less a tenth of the size.
                let level = bounds.iter().copied().fold(f32::MIN, f32::max) - 0.1 * hull.size();
                cold += bounds.iter().filter(|&&b| b <= level).count();
                faces += bounds.len();
            }
        }
        assert!(
            cold * 2 > faces,
            "the face bound rules out {cold} of {faces} faces at a level a tenth of the size below the deepest"
        );
    }

    /// The kernel's hot_faces passes over a run of eight faces whose cone
    /// bound on `n . c - d` is not hot: that bound (`face_cone_bound` with
    /// `lowered` = the hull's inner radius less the kernel's rounding
    /// allowance) is at least `n . c - d` as hot_face_bit computes it, for
    /// every face of every run, for hulls of 4 to 256 vertices, plates and
    /// boxes, against centres near, inside, far and 10,000 units out; and it
    /// is not vacuous: it is below the deepest face's value by a tenth of
    /// the size for many runs.
    #[test]
    fn a_runs_cone_bounds_each_faces_hot_value() {
        use crate::d3::Hull;
        use crate::d3::math::length3;
        use crate::d3::sat::{FaceOrder, face_cone_bound};
        use crate::generate::d3::{random_direction, random_hull};
        use rand::RngExt;
        let mut rng = crate::generate::rng(0x7a3);
        let mut hulls = vec![
            Hull::cuboid(Vec3::new(1.0, 0.2, 0.5)).expect("a valid box"),
            Hull::cuboid(Vec3::new(40.0, 1.0, 3.0)).expect("a valid box"),
        ];
        for n in [4, 8, 16, 32, 64, 96, 128, 192, 256] {
            let radius = rng.random_range(0.1..10.0);
            hulls.push(random_hull(&mut rng, n, radius, 1.0));
            hulls.push(random_hull(&mut rng, n.max(8), 1.0, 0.02));
        }
        let (mut cold, mut runs) = (0, 0);
        for hull in &hulls {
            let lanes = hull.lanes();
            let (own, r1) = (lanes.inner_centre, lanes.inner_radius);
            for trial in 0..60 {
                let far = if trial % 5 == 4 { 1.0e4 } else { 0.0 };
                let distance = rng.random_range(0.0..3.0) * hull.size() + far;
                let centre = hull.centroid() + distance * random_direction(&mut rng);
                // The kernel's hot_faces, in its order of operations.
                let towards = centre - own;
                let length = length3(towards);
                let rounding =
                    32.0 * f32::EPSILON * ((length3(centre) + length3(own)) + 2.0 * lanes.reach)
                        + length * (1.0 / 65536.0);
                let order = FaceOrder {
                    first: 0,
                    towards,
                    length,
                    lowered: r1 - rounding,
                };
                let sides: Vec<f32> = (0..hull.face_count())
                    .map(|f| dot3(hull.normals()[f], centre) - hull.offsets()[f])
                    .collect();
                let deepest = sides.iter().copied().fold(f32::MIN, f32::max);
                for (run, cone) in lanes.face_cones.iter().enumerate() {
                    let bound = face_cone_bound(*cone, &order);
                    for (f, &side) in sides.iter().enumerate().skip(8 * run).take(8) {
                        assert!(
                            side <= bound,
                            "a hull of {} vertices, face {f} of run {run}: n . c - d = {side} \
                             above the run's bound {bound} (centre {centre})",
                            hull.vertices().len()
                        );
                    }
                    cold += usize::from(bound < deepest - 0.1 * hull.size());
                    runs += 1;
                }
            }
        }
        assert!(
            cold * 4 > runs,
            "the run bound is a tenth of the size below the deepest face for only {cold} of {runs} runs"
        );
    }

    /// Each face's loop edges (what the kernel's kept_edges_of_faces
    /// reads) are the edges between its consecutive loop vertices, each
    /// with the face on one side, and every edge appears in both of its
    /// faces' loops: hulls of 4 to 256 vertices and a box.
    #[test]
    fn each_faces_loop_edges_are_its_edges() {
        use crate::d3::Hull;
        use crate::generate::d3::random_hull;
        let mut rng = crate::generate::rng(0x10e);
        let mut hulls = vec![Hull::cuboid(Vec3::new(1.0, 0.2, 0.5)).expect("a valid box")];
        for n in [4, 16, 64, 128, 256] {
            hulls.push(random_hull(&mut rng, n, 1.0, 1.0));
        }
        for hull in &hulls {
            let loop_edges = face_loop_edges(hull);
            let mut seen = vec![0; hull.edges().len()];
            let mut at = 0;
            for f in 0..hull.face_count() {
                let face = hull.face(f);
                for k in 0..face.len() {
                    let e = loop_edges[at] as usize;
                    let edge = hull.edges()[e];
                    let (a, b) = (face[k], face[(k + 1) % face.len()]);
                    assert!(
                        (edge.v0, edge.v1) == (a, b) || (edge.v0, edge.v1) == (b, a),
                        "face {f} entry {k}: edge {e} runs {} -> {}, the loop {a} -> {b}",
                        edge.v0,
                        edge.v1
                    );
                    assert!(
                        edge.f0 as usize == f || edge.f1 as usize == f,
                        "face {f}, edge {e}"
                    );
                    seen[e] += 1;
                    at += 1;
                }
            }
            assert_eq!(at, loop_edges.len(), "entries past the last loop");
            assert!(
                seen.iter().all(|&n| n == 2),
                "an edge not in exactly two loops: {seen:?}"
            );
        }
    }

    /// lavapipe ends a SIMD group's loops after this many iterations in all.
    const LAVAPIPE_LOOP_ITERATIONS: u64 = 65_535;

    /// Invocations in one llvmpipe SIMD group (256-bit vectors of 32-bit
    /// lanes), whose loop iterations count together.
    const SIMD_LANES: u64 = 8;

    /// The steps of the kernel's inner loops: vertices per face-query
    /// iteration, A's edges per Gauss-map iteration, crossing pairs offered
    /// per iteration (`shaders/sat3.wgsl`).
    struct Steps {
        vertices: u64,
        edges: u64,
        offers: u64,
    }

    const NARROW: Steps = Steps {
        vertices: 8,
        edges: 4,
        offers: 1,
    };
    /// `hulls_cached`: a face's vertices, and an edge of B's Gauss-map
    /// tests against A's cached hot edges (all of A's edges in
    /// `hulls_small`), in straight-line code (no loop); A's other hot edges
    /// are offered one a step with the crossings, at most all of A's edges
    /// per edge of B, which the offers already count.
    const CACHED: Steps = Steps {
        vertices: CACHED_HULL_VERTICES as u64,
        edges: 3 * CACHED_HULL_VERTICES as u64,
        offers: 1,
    };
    const CACHED64: Steps = Steps {
        vertices: CACHED64_HULL_VERTICES as u64,
        edges: 3 * CACHED64_HULL_VERTICES as u64,
        offers: 1,
    };
    const WIDE: Steps = Steps {
        vertices: 32,
        edges: 64,
        offers: 32,
    };

    /// The most loop iterations one SIMD group runs for two hulls of `va`
    /// and `vb` vertices (with the most faces and edges such hulls can
    /// have: `2V - 4` and `3V - 6`), whatever the lanes do: each query's
    /// outer loop runs once per face or edge and once more; the loops that
    /// pass over faces and edges a bound rules out run at least once per
    /// outer iteration plus, at most, every lane's every face or edge, out of
    /// step with each other; each face scans all of the other's vertices;
    /// each edge of B tests all of A's and may find all of them crossing.
    /// (The cached kinds mark B's hot faces inside B's face query: no loop
    /// of their own.)
    fn hull_pair_iterations(va: u64, vb: u64, steps: &Steps) -> u64 {
        let (ea, eb) = (edges(va), edges(vb));
        face_iterations(va, vb, steps)
            + passes(eb)
            + (eb + 1) * ea.div_ceil(steps.edges)
            + (eb + 1) * ea.div_ceil(steps.offers)
    }

    /// The most faces and edges a hull of `v` vertices can have.
    fn faces(v: u64) -> u64 {
        2 * v - 4
    }

    fn edges(v: u64) -> u64 {
        3 * v - 6
    }

    /// A loop that passes over `n` items a bound rules out, each lane
    /// going on to its own next one: once per item and once more, plus, at
    /// most, every lane's every item, out of step with each other.
    fn passes(n: u64) -> u64 {
        (n + 1) + (n + 1) + SIMD_LANES * n
    }

    /// Both face queries: each face scans all of the other's vertices; the
    /// loop that passes over faces reads each run of eight's cone too.
    fn face_iterations(va: u64, vb: u64, steps: &Steps) -> u64 {
        let face_query =
            |f: u64, v: u64| passes(f + f.div_ceil(8)) + (f + 1) * v.div_ceil(steps.vertices);
        face_query(faces(va), vb) + face_query(faces(vb), va)
    }

    /// The loops that find a hull's hot faces (`hot_faces`): its runs'
    /// cones 32 a step, then each run that may hold one, one a step.
    fn hot_face_iterations(v: u64) -> u64 {
        let runs = faces(v).div_ceil(8);
        (runs.div_ceil(32) + 1) + (runs + 1)
    }

    /// The loops that find a hull's kept edges face by face
    /// (`kept_edges_of_faces`): at most `FACE_BY_FACE_MOST` hot faces a
    /// lane, one a step and once more, each face's loop four edges a step
    /// and once more, a face having at most `v` edges (lanes out of step:
    /// each step waits on the largest face).
    fn face_by_face_iterations(v: u64) -> u64 {
        (u64::from(crate::gpu::layout::FACE_BY_FACE_MOST) + 1) * (v.div_ceil(4) + 1)
    }

    /// The same for the large kinds, whose edge query
    /// (`find_max_edge_separation_large`) finds the two hulls' hot faces
    /// (`hot_face_iterations`) and their kept edges, 64 a step or, but in
    /// `hulls_deferred`, face by face (`face_by_face_iterations`: the SIMD
    /// group runs both where its lanes differ); then the pairs whose A
    /// keeps at most `slots` edges (64, or 32 in `hulls_gridded32`) take
    /// each kept edge of B once and offer its crossings with the cached
    /// edges `offers` a step (at most `slots / offers` steps, at least one).
    /// The first dispatch defers the other pairs; `hulls_deferred` runs
    /// both paths in one SIMD group (`fallback`), the other taking each
    /// kept edge of B once, testing it against all of A's 64 a step and
    /// offering its crossings `WIDE.offers` a step (and one step more that
    /// finds none left). Every edge kept, every pair crossing.
    fn large_pair_iterations(va: u64, vb: u64, slots: u64, offers: u64, fallback: bool) -> u64 {
        let (ea, eb) = (edges(va), edges(vb));
        let masks = (ea.div_ceil(64) + 1)
            + (eb.div_ceil(64) + 1)
            + hot_face_iterations(va)
            + hot_face_iterations(vb)
            + if fallback {
                0
            } else {
                face_by_face_iterations(va) + face_by_face_iterations(vb)
            };
        let cached = (eb + 1) + eb * slots.div_ceil(offers);
        let fallback = if fallback {
            (eb + 1) + eb * (ea.div_ceil(WIDE.edges) + 1) + eb * (ea.div_ceil(WIDE.offers) + 1)
        } else {
            0
        };
        face_iterations(va, vb, &WIDE) + masks + cached + fallback
    }

    /// The kernel's loops stay under lavapipe's limit for every pair it can
    /// get: narrow steps up to [`WIDE_HULL_VERTICES`] on both sides, the
    /// cached kind's up to [`CACHED_HULL_VERTICES`], wide steps for anything
    /// up to [`MAX_HULL_VERTICES`].
    #[test]
    fn the_loops_stay_under_lavapipes_limit() {
        let (narrow_most, most) = (WIDE_HULL_VERTICES as u64, MAX_HULL_VERTICES as u64);
        let narrow = hull_pair_iterations(narrow_most, narrow_most, &NARROW);
        // Offers a step as the kernel's edge query picks them.
        let wide = large_pair_iterations(most, most, 64, 2, false);
        let deferred = large_pair_iterations(most, most, 64, 4, true);
        let gridded32_most = GRIDDED32_HULL_VERTICES as u64;
        let gridded32 = large_pair_iterations(gridded32_most, gridded32_most, 32, 1, false);
        assert!(
            gridded32 < LAVAPIPE_LOOP_ITERATIONS,
            "gridded32: {gridded32}"
        );
        assert!(deferred < LAVAPIPE_LOOP_ITERATIONS, "deferred: {deferred}");
        // One offer a step would not do for the largest hulls.
        let one_offer = large_pair_iterations(most, most, 64, 1, false);
        assert!(
            one_offer > LAVAPIPE_LOOP_ITERATIONS,
            "one offer: {one_offer}"
        );
        assert!(narrow < LAVAPIPE_LOOP_ITERATIONS, "narrow: {narrow}");
        let cached_most = CACHED_HULL_VERTICES as u64;
        let cached = hull_pair_iterations(cached_most, cached_most, &CACHED);
        assert!(cached < LAVAPIPE_LOOP_ITERATIONS, "cached: {cached}");
        let cached64_most = CACHED64_HULL_VERTICES as u64;
        let cached64 = hull_pair_iterations(cached64_most, cached64_most, &CACHED64);
        assert!(cached64 < LAVAPIPE_LOOP_ITERATIONS, "cached64: {cached64}");
        assert!(wide < LAVAPIPE_LOOP_ITERATIONS, "wide: {wide}");
        // Narrow steps would not do for larger hulls.
        let larger = hull_pair_iterations(2 * narrow_most, 2 * narrow_most, &NARROW);
        assert!(larger > LAVAPIPE_LOOP_ITERATIONS, "larger: {larger}");
        // A hull and a sphere: the faces, each face's loop, the edges.
        let v = most;
        let sphere = 2 * (2 * v - 4) + 2 * (3 * v - 6) + (3 * v - 6);
        assert!(sphere < LAVAPIPE_LOOP_ITERATIONS, "sphere: {sphere}");
    }
}
