//! The 3D shapes: convex hulls (built only through [`Hull::new`], which
//! validates and cleans a point cloud), spheres, and cuboids (hulls of 8
//! corners).

use glam::{DVec3, Mat3, Vec3};

use super::super::math::{DIRECTION_CELLS, cross3, direction_cell, dot3, length3};
use super::super::sat::PARALLEL_TOLERANCE;
use super::gauss_grid::GaussGrid;
use super::hull::{HullMesh, MAX_HULL_VERTICES, build_hull};
use crate::core::error::ShapeError;
use crate::core::limits::check_size;
use crate::core::simd::prefetch_all;

/// An edge of a hull: its two vertices and the two faces it separates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HullEdge {
    /// The vertex it starts from in face `f0`'s loop.
    pub v0: u32,
    /// The vertex it ends at in face `f0`'s loop.
    pub v1: u32,
    /// The face whose loop runs `v0 -> v1`.
    pub f0: u32,
    /// The face whose loop runs `v1 -> v0`.
    pub f1: u32,
}

/// An edge's arc on the Gauss map, as the edge queries read it: the normals
/// of its two faces and their cross product, side by side in memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeGauss {
    /// The normal of face `f0`.
    pub u: Vec3,
    /// The normal of face `f1`.
    pub v: Vec3,
    /// `v x u`: along the edge, the normal of the arc's great circle
    /// (computed in single precision, as the GPU kernel recomputes it).
    pub arc: Vec3,
}

/// Lanes per vector in the eight-at-a-time queries.
pub(crate) const LANES: usize = 8;

/// A hull's vertices, faces and edges as structure of arrays, eight per
/// chunk, for the queries that test eight at a time (`sat/lanes.rs`): the
/// last chunk padded with copies of vertex 0 and with zero normals (whose
/// arcs are zero). With the byte arrays below, what a pair reads of a hull
/// on the common path, the manifold included: what the batch prefetches.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct HullLanes {
    /// `[x, y, z]` of eight vertices per chunk.
    pub(crate) vertices: Vec<[[f32; LANES]; 3]>,
    /// `[u.x, u.y, u.z, v.x, v.y, v.z]` of eight edges per chunk: the
    /// normals of each edge's two faces (see [`EdgeGauss`]). The arc `v x u`
    /// is not stored: the queries recompute it with the same operations
    /// (`arc_lanes` in `sat/lanes.rs`, as the GPU kernel does), which costs
    /// less than the third of a hull's edge rows it would take to bring in
    /// when many hulls take turns.
    pub(crate) edge_normals: Vec<[[f32; LANES]; 6]>,
    /// Per edge, its two vertices `(v0, v1)` as bytes (a hull has at most
    /// 256 vertices): an edge pair's separation reads the edge's first
    /// vertex from `vertices` through it, and the manifold its ends. Two
    /// bytes where the edge record is sixteen: with `vertices` already
    /// brought in for the face queries, an edge costs two of the lines it
    /// took when the point itself was stored beside the edge.
    pub(crate) edge_ends: Vec<[u8; 2]>,
    /// Each face's loop as vertex bytes, face `i`'s at
    /// `face_loops[face_loop_starts[i]..face_loop_starts[i + 1]]`: what the
    /// manifold reads of the reference and incident faces, a quarter of
    /// [`Hull::face`]'s bytes.
    pub(crate) face_loops: Vec<u8>,
    pub(crate) face_loop_starts: Vec<u16>,
    /// `[u . p, v . p, k]` of eight edges per chunk, with `p` the edge's
    /// first vertex and `k >= 1 / cos(angle / 2)` for the angle between its
    /// faces' normals `u` and `v` (capped at `f32::MAX`): what bounds the
    /// separation of every pair of the edge against another hull's inner
    /// ball (`edge_bounds` in `sat/lanes.rs`). Missing lanes zero.
    pub(crate) edge_planes: Vec<[[f32; LANES]; 3]>,
    /// `[n.x, n.y, n.z, d]` of eight faces per chunk (missing lanes zero):
    /// what bounds a face query against another hull's inner ball, eight
    /// faces at a time (`sat/lanes.rs`).
    pub(crate) face_planes: Vec<[[f32; LANES]; 4]>,
    /// For each [`direction_cell`], the chunk of eight faces that a face
    /// query starts at when the other hull lies in that direction
    /// (`sat/faces.rs`, `first_face`): the chunk of the first face whose
    /// normal's cell is at least that cell, chunk 0 if none is (the scan
    /// goes round). The hull builder orders faces by those cells.
    pub(crate) face_start: Vec<u8>,
    /// Per chunk of eight faces, a cone that holds their normals:
    /// `[axis.x, axis.y, axis.z, cos]`, `axis` a unit vector and `cos` at
    /// most the cosine of the widest angle between it and a normal of the
    /// chunk, that angle taken at least 0.01 radians (so that the sine the
    /// bound recomputes from `cos` stays accurate). A face query bounds the
    /// whole chunk's separations with it (`face_cone_bound`).
    pub(crate) face_cones: Vec<[f32; 4]>,
    /// The largest distance of a vertex from the local origin (rounded up):
    /// bounds the length of any vertex difference the edge scan meets.
    pub(crate) reach: f32,
    /// A point inside the hull (its centroid) and the radius of a ball
    /// about it that lies inside the hull, less an allowance for the plane
    /// fit and for rounding (`INNER_SLACK`): the hull reaches at least this
    /// far from the point in every direction, which bounds a face query
    /// against it from above (`sat/lanes.rs`).
    pub(crate) inner_centre: Vec3,
    pub(crate) inner_radius: f32,
    /// `(centre, half extents)` when the hull is exactly an axis-aligned box
    /// in its frame ([`exact_box`]): two boxes bound their edge pairs in
    /// closed form (`box_edge_bound` in `sat/lanes.rs`).
    pub(crate) cuboid: Option<(Vec3, Vec3)>,
    /// For a box, its edges along each of its axes, as bits (edge `e` is
    /// bit `e`): the edges whose pairs the closed-form bound covers
    /// direction by direction. Zero otherwise.
    pub(crate) cuboid_axis_edges: [u32; 3],
}

/// A hull's `(centre, half extents)` when it is an axis-aligned box exactly:
/// eight vertices, each coordinate at the lowest or the highest value of
/// its axis (eight distinct such points are the eight corners, and their
/// hull is the box). Centre and half extents are rounded once each.
fn exact_box(vertices: &[Vec3]) -> Option<(Vec3, Vec3)> {
    if vertices.len() != 8 {
        return None;
    }
    let low = vertices.iter().copied().fold(Vec3::MAX, Vec3::min);
    let high = vertices.iter().copied().fold(Vec3::MIN, Vec3::max);
    let at_corners = vertices
        .iter()
        .all(|v| (0..3).all(|k| v[k] == low[k] || v[k] == high[k]));
    at_corners.then(|| ((low + high) * 0.5, (high - low) * 0.5))
}

/// A cone around `normals` (see `HullLanes::face_cones`): the axis along
/// their sum, the half-angle the widest of them makes with it (in double
/// precision, plus `1e-6`, at least `0.01` radians), its cosine rounded
/// down. Normals that cancel out get the whole sphere (`cos = -1`).
fn face_cone(normals: &[Vec3]) -> [f32; 4] {
    let sum: DVec3 = normals.iter().map(|n| n.as_dvec3()).sum();
    let axis = sum.normalize_or_zero().as_vec3();
    if axis == Vec3::ZERO {
        return [1.0, 0.0, 0.0, -1.0];
    }
    let angle = normals
        .iter()
        .map(|n| {
            let n = n.as_dvec3();
            (n.dot(axis.as_dvec3()) / n.length())
                .clamp(-1.0, 1.0)
                .acos()
        })
        .fold(0.0, f64::max);
    let angle = (angle + 1e-6).max(0.01);
    let cos = if angle >= std::f64::consts::PI {
        -1.0
    } else {
        let rounded = angle.cos() as f32;
        if f64::from(rounded) > angle.cos() {
            rounded.next_down()
        } else {
            rounded
        }
    };
    [axis.x, axis.y, axis.z, cos]
}

/// What the inner ball gives up, times the hull's size (the coplanar merge
/// lets vertices lie `1e-5 x size` off a face's fitted plane), plus
/// `16 x 2^-24` times its reach (the rounding of a dot product in single
/// precision, with room to spare).
const INNER_SLACK: f64 = 1.0e-4;

/// Up to eight edges' Gauss-map data as the lanes read it: the first `N`
/// of the rows `u.x, u.y, u.z, v.x, v.y, v.z, arc.x, arc.y, arc.z` (six
/// for a hull's edge normals, whose arcs are recomputed; nine for the
/// regions), one lane per edge, missing lanes zero (a zero arc passes no
/// Gauss-map test: every product is zero).
fn arc_rows<const N: usize>(chunk: &[EdgeGauss]) -> [[f32; LANES]; N] {
    const ROWS: [fn(&EdgeGauss) -> f32; 9] = [
        |g| g.u.x,
        |g| g.u.y,
        |g| g.u.z,
        |g| g.v.x,
        |g| g.v.y,
        |g| g.v.z,
        |g| g.arc.x,
        |g| g.arc.y,
        |g| g.arc.z,
    ];
    let zero = EdgeGauss {
        u: Vec3::ZERO,
        v: Vec3::ZERO,
        arc: Vec3::ZERO,
    };
    let at = |k: usize| chunk.get(k).copied().unwrap_or(zero);
    std::array::from_fn(|r| std::array::from_fn(|k| ROWS[r](&at(k))))
}

/// Eight of a vertex region's edges (its boundary arcs on the Gauss map)
/// as structure of arrays, nine rows ([`arc_rows`]: the normals, then the
/// arcs); the last chunk
/// of a region padded with zero arcs (which no Gauss-map test passes) and
/// edge `u16::MAX`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RegionChunk {
    pub(crate) arcs: [[f32; LANES]; 9],
    pub(crate) edges: [u16; LANES],
}

/// Each vertex region's edges, eight at a time, for the walk (`sat/walk.rs`):
/// one region's tests read one or two contiguous chunks instead of its
/// edges' scattered records.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RegionLanes {
    /// Vertex `v`'s chunks are `chunks[start[v]..start[v + 1]]`.
    start: Vec<u32>,
    chunks: Vec<RegionChunk>,
}

impl RegionLanes {
    fn new(vertex_edges: &[Vec<u16>], arcs: &[EdgeGauss]) -> RegionLanes {
        let mut start = vec![0u32];
        let mut chunks = Vec::new();
        for edges in vertex_edges {
            for group in edges.chunks(LANES) {
                let gauss: Vec<EdgeGauss> = group.iter().map(|&e| arcs[e as usize]).collect();
                chunks.push(RegionChunk {
                    arcs: arc_rows::<9>(&gauss),
                    edges: std::array::from_fn(|k| group.get(k).copied().unwrap_or(u16::MAX)),
                });
            }
            start.push(chunks.len() as u32);
        }
        RegionLanes { start, chunks }
    }

    /// Vertex `v`'s region, eight edges a chunk.
    #[inline(always)]
    pub(crate) fn of(&self, v: u16) -> &[RegionChunk] {
        &self.chunks[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }

    fn prefetch(&self) {
        prefetch_all(&self.start);
        prefetch_all(&self.chunks);
    }
}

/// Up to eight records of `N` values as `N` rows of eight lanes, missing
/// lanes zero.
fn rows_of<const N: usize>(chunk: &[[f32; N]]) -> [[f32; LANES]; N] {
    std::array::from_fn(|row| std::array::from_fn(|k| chunk.get(k).map_or(0.0, |r| r[row])))
}

impl HullLanes {
    /// For a box, the axis edge `e` runs along (see `cuboid_axis_edges`);
    /// `None` for any other hull.
    #[inline(always)]
    pub(crate) fn cuboid_axis_of(&self, e: usize) -> Option<usize> {
        let shift = u32::try_from(e).ok()?;
        (0..3).find(|&axis| {
            self.cuboid_axis_edges[axis]
                .checked_shr(shift)
                .is_some_and(|bits| bits & 1 == 1)
        })
    }

    /// Face `i`'s unit outward normal and offset, from the lanes' rows:
    /// the bits of [`Hull::normals`] and [`Hull::offsets`], read where the
    /// face queries have just read them (the scalar arrays would be one
    /// more cache miss per pair when many hulls take turns).
    #[inline(always)]
    pub(crate) fn face_plane(&self, i: usize) -> (Vec3, f32) {
        let (rows, k) = (&self.face_planes[i / LANES], i % LANES);
        (Vec3::new(rows[0][k], rows[1][k], rows[2][k]), rows[3][k])
    }

    /// Edge `i`'s `(u . p, v . p)` from the lanes' bound rows (`p` its
    /// first vertex): the GPU's per-edge bound records.
    #[cfg(feature = "gpu")]
    #[inline(always)]
    pub(crate) fn edge_plane(&self, i: usize) -> (f32, f32) {
        let (rows, k) = (&self.edge_planes[i / LANES], i % LANES);
        (rows[0][k], rows[1][k])
    }

    /// Vertex `v` from the lanes' rows (the bits of [`Hull::vertices`]).
    #[inline(always)]
    pub(crate) fn vertex(&self, v: usize) -> Vec3 {
        let (rows, k) = (&self.vertices[v / LANES], v % LANES);
        Vec3::new(rows[0][k], rows[1][k], rows[2][k])
    }

    /// Edge `i`'s first vertex (`v0`).
    #[inline(always)]
    pub(crate) fn edge_origin(&self, i: usize) -> Vec3 {
        self.vertex(usize::from(self.edge_ends[i][0]))
    }

    /// Edge `i`'s `(v0, v1)`.
    #[inline(always)]
    pub(crate) fn edge_vertices(&self, i: usize) -> (Vec3, Vec3) {
        let [v0, v1] = self.edge_ends[i];
        (self.vertex(usize::from(v0)), self.vertex(usize::from(v1)))
    }

    /// Edge `i`'s `PARALLEL_TOLERANCE x |arc|`: the bound of
    /// `nearly_parallel`, computed with its operations.
    #[inline(always)]
    pub(crate) fn parallel_bound(&self, i: usize) -> f32 {
        PARALLEL_TOLERANCE * length3(self.edge_gauss(i).arc)
    }

    /// Face `i`'s loop, as vertex indices (the indices of [`Hull::face`]).
    #[inline(always)]
    pub(crate) fn face_loop(&self, i: usize) -> &[u8] {
        let starts = &self.face_loop_starts;
        &self.face_loops[usize::from(starts[i])..usize::from(starts[i + 1])]
    }

    /// Edge `i`'s arc on the Gauss map from the lanes' rows: the bits of
    /// [`Hull::edge_gauss`] (the arc recomputed as it was built), where the
    /// edge queries read them.
    #[inline(always)]
    pub(crate) fn edge_gauss(&self, i: usize) -> EdgeGauss {
        let (rows, k) = (&self.edge_normals[i / LANES], i % LANES);
        let row = |r: usize| Vec3::new(rows[r][k], rows[r + 1][k], rows[r + 2][k]);
        let (u, v) = (row(0), row(3));
        EdgeGauss {
            u,
            v,
            arc: cross3(v, u),
        }
    }

    /// Packs a hull's vertices, faces (`normal . x = offset`, and their
    /// loops: `starts`, `loops` as [`Hull`] keeps them), edge arcs and the
    /// edges' bound data (`edges` gives each arc's first vertex). At most
    /// [`MAX_HULL_VERTICES`] vertices, which is what lets a vertex index
    /// be a byte and a loop's start a `u16` (`2 x` the edges at most).
    pub fn new(
        vertices: &[Vec3],
        (normals, offsets): (&[Vec3], &[f32]),
        (starts, loops): (&[u32], &[u32]),
        edges: &[HullEdge],
        arcs: &[EdgeGauss],
    ) -> HullLanes {
        const _: () = assert!(MAX_HULL_VERTICES <= 256 && 6 * MAX_HULL_VERTICES <= 1 << 16);
        let byte = |v: u32| {
            debug_assert!(v < 256, "vertex {v} of a hull of at most 256");
            v as u8
        };
        let vertex_chunks = vertices
            .chunks(LANES)
            .map(|chunk| {
                let at = |k: usize| chunk.get(k).copied().unwrap_or(vertices[0]);
                [
                    std::array::from_fn(|k| at(k).x),
                    std::array::from_fn(|k| at(k).y),
                    std::array::from_fn(|k| at(k).z),
                ]
            })
            .collect();
        let normal_chunks = arcs.chunks(LANES).map(arc_rows::<6>).collect();
        let planes: Vec<[f32; 3]> = edges
            .iter()
            .zip(arcs)
            .map(|(edge, g)| {
                let p = vertices[edge.v0 as usize];
                // 1 / cos(angle / 2) in double precision, rounded up past
                // the single-precision rounding of u . v.
                let cos_half = ((1.0 + f64::from(dot3(g.u, g.v))) * 0.5 - 1e-6)
                    .max(0.0)
                    .sqrt();
                let k = if cos_half > 0.0 {
                    ((1.0 + 1e-6) / cos_half).min(f64::from(f32::MAX)) as f32
                } else {
                    f32::MAX
                };
                [dot3(g.u, p), dot3(g.v, p), k]
            })
            .collect();
        let faces: Vec<[f32; 4]> = normals
            .iter()
            .zip(offsets)
            .map(|(n, &d)| [n.x, n.y, n.z, d])
            .collect();
        let face_chunks = faces.chunks(LANES).map(rows_of).collect();
        let face_start = (0..DIRECTION_CELLS as u32)
            .map(|cell| {
                let first = normals
                    .iter()
                    .position(|&n| direction_cell(n) >= cell)
                    .unwrap_or(0);
                (first / LANES) as u8
            })
            .collect();
        let face_cones = normals.chunks(LANES).map(face_cone).collect();
        let plane_chunks = planes.chunks(LANES).map(rows_of).collect();
        let reach = vertices.iter().map(|&v| length3(v)).fold(0.0, f32::max);
        let cuboid = exact_box(vertices);
        let mut cuboid_axis_edges = [0u32; 3];
        if cuboid.is_some() {
            // A box's arc (`v x u`) runs along its edge, on one axis.
            for (e, g) in arcs.iter().enumerate() {
                let along = g.arc.abs();
                let axis = if along.x >= along.y.max(along.z) {
                    0
                } else if along.y >= along.z {
                    1
                } else {
                    2
                };
                cuboid_axis_edges[axis] |= 1 << e;
            }
        }
        HullLanes {
            inner_centre: Vec3::ZERO,
            inner_radius: 0.0,
            cuboid,
            cuboid_axis_edges,
            vertices: vertex_chunks,
            edge_normals: normal_chunks,
            edge_planes: plane_chunks,
            face_planes: face_chunks,
            face_start,
            face_cones,
            edge_ends: edges
                .iter()
                .map(|edge| [byte(edge.v0), byte(edge.v1)])
                .collect(),
            face_loops: loops.iter().map(|&v| byte(v)).collect(),
            face_loop_starts: starts.iter().map(|&start| start as u16).collect(),
            reach: reach * (1.0 + 4.0 * f32::EPSILON),
        }
    }
}

/// A validated convex polyhedron in its local frame. Build one with
/// [`Hull::new`] or [`Hull::cuboid`].
#[derive(Clone, Debug, PartialEq)]
pub struct Hull {
    vertices: Vec<Vec3>,
    /// Unit outward normal and offset of each face: `normal . x = offset` on it.
    normals: Vec<Vec3>,
    offsets: Vec<f32>,
    /// Face `i`'s loop is `face_vertices[face_starts[i]..face_starts[i + 1]]`.
    face_starts: Vec<u32>,
    face_vertices: Vec<u32>,
    edges: Vec<HullEdge>,
    /// For each edge, its arc on the Gauss map (see [`EdgeGauss`]).
    edge_gauss: Vec<EdgeGauss>,
    centroid: Vec3,
    volume: f32,
    size: f32,
    unit_inertia: Mat3,
    /// Vertex `v`'s edges are `vertex_edges[vertex_edge_start[v]..vertex_edge_start[v + 1]]`.
    vertex_edge_start: Vec<u32>,
    vertex_edges: Vec<u16>,
    /// The Gauss map in a grid, for hulls of at least [`GRID_MIN_VERTICES`] vertices.
    grid: Option<GaussGrid>,
    /// The regions' edges eight at a time (the walk's data).
    regions: RegionLanes,
    /// The vertices and arcs eight at a time.
    lanes: HullLanes,
}

/// Hulls with at least this many vertices get a [`GaussGrid`], and the
/// output-sensitive face queries (hull pairs that walk: `EdgeSearch::Walk`,
/// or from `sat::walk_min_vertices` on, which no hull the library builds
/// reaches on the CPUs measured) look each face's deepest
/// vertex up in it instead of reading every vertex: measured with `gpusat
/// bench --dim 3 --backends cpu,cpu-pairwise` (see DESIGN.md), the lookup
/// wins from about this size on. Pairs of smaller hulls read every vertex,
/// eight at a time.
pub const GRID_MIN_VERTICES: usize = 24;

impl Hull {
    /// Validates `points` and builds their convex hull; see
    /// [the hull module](super::hull) for every check and tolerance.
    pub fn new(points: &[Vec3]) -> Result<Hull, ShapeError> {
        Ok(Hull::from_mesh(&build_hull(points)?))
    }

    /// A box centred on the local origin with these half extents: 8
    /// vertices, 6 quadrilateral faces, 12 edges.
    pub fn cuboid(half_extents: Vec3) -> Result<Hull, ShapeError> {
        let h = half_extents;
        if !(h.is_finite() && h.min_element() > 0.0) {
            return Err(ShapeError::HalfExtents {
                x: h.x,
                y: h.y,
                z: h.z,
            });
        }
        let corners: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { -h.x } else { h.x },
                    if i & 2 == 0 { -h.y } else { h.y },
                    if i & 4 == 0 { -h.z } else { h.z },
                )
            })
            .collect();
        Hull::new(&corners)
    }

    fn from_mesh(mesh: &HullMesh) -> Hull {
        let mut face_starts = vec![0u32];
        let mut face_vertices = Vec::new();
        for face in &mesh.faces {
            face_vertices.extend_from_slice(face);
            face_starts.push(face_vertices.len() as u32);
        }
        let edges: Vec<HullEdge> = mesh
            .edges
            .iter()
            .map(|&[v0, v1, f0, f1]| HullEdge { v0, v1, f0, f1 })
            .collect();
        let normals: Vec<Vec3> = mesh.planes.iter().map(|(n, _)| n.as_vec3()).collect();
        // The arcs in single precision from the stored normals, as the GPU
        // kernel recomputes them (it does not store them).
        let edge_gauss: Vec<EdgeGauss> = edges
            .iter()
            .map(|edge| {
                let (u, v) = (normals[edge.f0 as usize], normals[edge.f1 as usize]);
                EdgeGauss {
                    u,
                    v,
                    arc: cross3(v, u),
                }
            })
            .collect();
        let mut vertex_edges: Vec<Vec<u16>> = vec![Vec::new(); mesh.vertices.len()];
        for (index, edge) in edges.iter().enumerate() {
            vertex_edges[edge.v0 as usize].push(index as u16);
            vertex_edges[edge.v1 as usize].push(index as u16);
        }
        let mut vertex_edge_start = vec![0u32];
        for list in &vertex_edges {
            vertex_edge_start
                .push(vertex_edge_start.last().copied().unwrap_or(0) + list.len() as u32);
        }
        let regions = RegionLanes::new(&vertex_edges, &edge_gauss);
        let vertex_edges: Vec<u16> = vertex_edges.concat();
        let grid = (mesh.vertices.len() >= GRID_MIN_VERTICES).then(|| {
            let mut regions: Vec<Vec<Vec3>> = vec![Vec::new(); mesh.vertices.len()];
            for (face, window) in face_starts.windows(2).enumerate() {
                for &v in &face_vertices[window[0] as usize..window[1] as usize] {
                    regions[v as usize].push(normals[face]);
                }
            }
            GaussGrid::new(&regions)
        });
        let i = mesh.unit_inertia;
        let vertices: Vec<Vec3> = mesh.vertices.iter().map(|v| v.as_vec3()).collect();
        let offsets: Vec<f32> = mesh.planes.iter().map(|(_, d)| *d as f32).collect();
        let mut lanes = HullLanes::new(
            &vertices,
            (&normals, &offsets),
            (&face_starts, &face_vertices),
            &edges,
            &edge_gauss,
        );
        let inradius = mesh
            .planes
            .iter()
            .map(|(n, d)| d - n.dot(mesh.centroid))
            .fold(f64::MAX, f64::min);
        lanes.inner_centre = mesh.centroid.as_vec3();
        lanes.inner_radius = (inradius
            - INNER_SLACK * mesh.size
            - 16.0 * f64::from(f32::EPSILON) * f64::from(lanes.reach))
        .max(0.0) as f32;
        Hull {
            lanes,
            vertices,
            normals,
            offsets,
            face_starts,
            face_vertices,
            edges,
            edge_gauss,
            centroid: mesh.centroid.as_vec3(),
            volume: mesh.volume as f32,
            size: mesh.size as f32,
            unit_inertia: Mat3::from_cols(
                i.x_axis.as_vec3(),
                i.y_axis.as_vec3(),
                i.z_axis.as_vec3(),
            ),
            vertex_edge_start,
            vertex_edges,
            grid,
            regions,
        }
    }

    /// Asks for everything the lanes read of this hull (faces, vertices,
    /// edges' normals, bounds and ends) to be brought into the second-level
    /// cache: the batch asks for the next pair's while it tests this one, so
    /// that with many distinct hulls the lines arrive in the shadow of the
    /// current pair's work.
    pub(crate) fn prefetch_for_lanes(&self) {
        let lanes = &self.lanes;
        prefetch_all(&lanes.face_planes);
        prefetch_all(&lanes.vertices);
        prefetch_all(&lanes.edge_planes);
        prefetch_all(&lanes.edge_normals);
        prefetch_all(&lanes.edge_ends);
    }

    /// The same for what a contact manifold reads beyond the lanes: the
    /// faces' loops (the vertices and the edges' ends are the lanes').
    pub(crate) fn prefetch_for_contacts(&self) {
        prefetch_all(&self.lanes.face_loop_starts);
        prefetch_all(&self.lanes.face_loops);
    }

    /// Asks for what a face query against this hull reads out of order on
    /// the walking search (the Gauss-map grid and the vertices) to be brought
    /// into the cache: with many large hulls a pair's shapes are seldom
    /// there, and each lookup would wait on its lines in turn.
    pub(crate) fn prefetch_for_faces(&self) {
        prefetch_all(&self.vertices);
        if let Some(grid) = &self.grid {
            grid.prefetch();
        }
    }

    /// The same for what a walk across this hull's Gauss map reads: its
    /// regions and its edges (a walk's next region depends on the last).
    pub(crate) fn prefetch_for_walk(&self) {
        self.regions.prefetch();
        prefetch_all(&self.edges);
    }

    /// The vertices, in the local frame.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Each face's unit outward normal.
    pub fn normals(&self) -> &[Vec3] {
        &self.normals
    }

    /// Each face's offset: `normal . x = offset` on the face.
    pub fn offsets(&self) -> &[f32] {
        &self.offsets
    }

    /// The number of faces.
    pub fn face_count(&self) -> usize {
        self.normals.len()
    }

    /// Face `i`'s vertex loop, counter-clockwise seen from outside.
    pub fn face(&self, i: usize) -> &[u32] {
        &self.face_vertices[self.face_starts[i] as usize..self.face_starts[i + 1] as usize]
    }

    /// The edges.
    pub fn edges(&self) -> &[HullEdge] {
        &self.edges
    }

    /// For each edge, its arc on the Gauss map: its faces' normals and
    /// `normal(f1) x normal(f0)`, the normal of the arc's plane (parallel to
    /// the edge).
    pub fn edge_gauss(&self) -> &[EdgeGauss] {
        &self.edge_gauss
    }

    /// The edges at vertex `v` (the arcs around its region on the Gauss map).
    pub fn vertex_edges(&self, v: usize) -> &[u16] {
        &self.vertex_edges
            [self.vertex_edge_start[v] as usize..self.vertex_edge_start[v + 1] as usize]
    }

    /// The vertices and edge arcs, eight per chunk.
    pub(crate) fn lanes(&self) -> &HullLanes {
        &self.lanes
    }

    /// Each vertex region's edges eight at a time.
    pub(crate) fn regions(&self) -> &RegionLanes {
        &self.regions
    }

    /// The Gauss map in a grid, for hulls of [`GRID_MIN_VERTICES`] vertices or more.
    pub fn gauss_grid(&self) -> Option<&GaussGrid> {
        self.grid.as_ref()
    }

    /// The centre of mass, in the local frame.
    pub fn centroid(&self) -> Vec3 {
        self.centroid
    }

    /// The enclosed volume.
    pub fn volume(&self) -> f32 {
        self.volume
    }

    /// The largest distance from the centroid to a vertex: the length scale
    /// that tolerances are relative to.
    pub fn size(&self) -> f32 {
        self.size
    }

    /// The inertia tensor about the centroid, per unit mass.
    pub fn unit_inertia(&self) -> Mat3 {
        self.unit_inertia
    }
}

/// A sphere centred on its body's position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    radius: f32,
}

impl Sphere {
    /// A sphere of `radius`, which must be positive, finite and within the
    /// supported sizes.
    pub fn new(radius: f32) -> Result<Sphere, ShapeError> {
        if !radius.is_finite() {
            return Err(ShapeError::RadiusNotFinite { radius });
        }
        if radius <= 0.0 {
            return Err(ShapeError::RadiusNotPositive { radius });
        }
        check_size(2.0 * f64::from(radius))?;
        Ok(Sphere { radius })
    }

    /// The radius.
    pub fn radius(&self) -> f32 {
        self.radius
    }
}

/// A 3D shape: a convex hull or a sphere.
// Unboxed: shapes are few (a library that many bodies share), and a box
// would put one more pointer between every pair and its hull's data.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A convex polyhedron.
    Hull(Hull),
    /// A sphere.
    Sphere(Sphere),
}

impl From<Hull> for Shape {
    fn from(hull: Hull) -> Shape {
        Shape::Hull(hull)
    }
}

impl From<Sphere> for Shape {
    fn from(sphere: Sphere) -> Shape {
        Shape::Sphere(sphere)
    }
}

impl Shape {
    /// The length scale of the shape: a hull's [`Hull::size`], a sphere's radius.
    pub fn size(&self) -> f32 {
        match self {
            Shape::Hull(hull) => hull.size,
            Shape::Sphere(sphere) => sphere.radius,
        }
    }

    /// The enclosed volume.
    pub fn volume(&self) -> f32 {
        match self {
            Shape::Hull(hull) => hull.volume,
            Shape::Sphere(sphere) => 4.0 / 3.0 * std::f32::consts::PI * sphere.radius.powi(3),
        }
    }

    /// The centre of mass in the local frame.
    pub fn centroid(&self) -> Vec3 {
        match self {
            Shape::Hull(hull) => hull.centroid,
            Shape::Sphere(_) => Vec3::ZERO,
        }
    }

    /// The inertia tensor about the centroid, per unit mass.
    pub fn unit_inertia(&self) -> Mat3 {
        match self {
            Shape::Hull(hull) => hull.unit_inertia,
            Shape::Sphere(sphere) => {
                Mat3::from_diagonal(Vec3::splat(0.4 * sphere.radius * sphere.radius))
            }
        }
    }

    /// The radius of the smallest sphere about the local origin that holds the shape.
    pub fn bounding_radius(&self) -> f32 {
        match self {
            Shape::Hull(hull) => hull.vertices.iter().map(|v| v.length()).fold(0.0, f32::max),
            Shape::Sphere(sphere) => sphere.radius,
        }
    }

    /// The hull, if the shape is one.
    pub fn hull(&self) -> Option<&Hull> {
        match self {
            Shape::Hull(hull) => Some(hull),
            Shape::Sphere(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lanes' copies that the queries and the manifold read instead of
    /// the scalar arrays hold the same bits, face by face and edge by edge.
    #[test]
    fn lanes_copies_match_the_scalar_arrays_bit_for_bit() {
        let mut state = 0x9e37_79b9_u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as f32 / u32::MAX as f32 * 2.0 - 1.0
        };
        let mut hulls = vec![Hull::cuboid(Vec3::new(0.3, 1.0, 2.5)).expect("a valid box")];
        for count in [4, 9, 17, 40, 120] {
            let points: Vec<Vec3> = (0..count)
                .map(|_| Vec3::new(next(), next(), next()))
                .collect();
            hulls.push(Hull::new(&points).expect("a random cloud hulls"));
        }
        for (h, hull) in hulls.iter().enumerate() {
            let lanes = hull.lanes();
            for i in 0..hull.face_count() {
                let (normal, offset) = lanes.face_plane(i);
                let scalar = (hull.normals()[i], hull.offsets()[i]);
                assert_eq!(
                    (normal.to_array().map(f32::to_bits), offset.to_bits()),
                    (scalar.0.to_array().map(f32::to_bits), scalar.1.to_bits()),
                    "hull {h} face {i}: lanes {:?} against scalar {scalar:?}",
                    (normal, offset)
                );
            }
            for i in 0..hull.edges().len() {
                let (copy, scalar) = (lanes.edge_gauss(i), hull.edge_gauss()[i]);
                let bits = |g: EdgeGauss| [g.u, g.v, g.arc].map(|v| v.to_array().map(f32::to_bits));
                assert_eq!(
                    bits(copy),
                    bits(scalar),
                    "hull {h} edge {i}: lanes {copy:?} against scalar {scalar:?}"
                );
            }
        }
    }
}
