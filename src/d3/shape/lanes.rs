//! A hull in lanes: its vertices, faces and edges as structure of arrays,
//! eight to a chunk, for the queries that test eight at a time
//! (`d3::sat::lanes`), with each run of faces' normal cone and each chunk's
//! Gauss-map arcs and regions.

use glam::{DVec3, Vec3};

use super::super::math::{DIRECTION_CELLS, cross3, direction_cell, dot3, length3};
use super::super::sat::PARALLEL_TOLERANCE;
use super::edge::{EdgeGauss, HullEdge};
use super::hull::MAX_HULL_VERTICES;
use crate::core::simd::prefetch_all;

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
    /// vertex from `vertices` through it, and the manifold and a sphere's
    /// closest feature its ends. Two
    /// bytes where the edge record is sixteen: with `vertices` already
    /// brought in for the face queries, an edge costs two of the lines it
    /// took when the point itself was stored beside the edge.
    pub(crate) edge_ends: Vec<[u8; 2]>,
    /// Each face's loop as vertex bytes, face `i`'s at
    /// `face_loops[face_loop_starts[i]..face_loop_starts[i + 1]]`: what the
    /// manifold reads of the reference and incident faces, and a sphere's
    /// closest feature of the faces it lies outside of, a quarter of
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
    /// faces at a time (`sat/lanes.rs`), and a sphere's centre's heights
    /// over the faces.
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
    /// in its frame ([`box_corners`]): the general query bounds two boxes'
    /// edge pairs in closed form (`box_edge_bound_lanes` in `sat/lanes.rs`,
    /// where it meets them: rounded boxes' cores, the public
    /// `collide_hulls`).
    pub(crate) cuboid: Option<(Vec3, Vec3)>,
    /// For the same boxes, their lowest and highest corners, the vertices'
    /// own coordinates: a face query of a hull of one run against a box
    /// takes its deepest corner in closed form (`sat/boxes.rs`).
    pub(crate) cuboid_corners: Option<(Vec3, Vec3)>,
    /// For a box, its edges along each of its axes, as bits (edge `e` is
    /// bit `e`): the edges whose pairs the closed-form bound covers
    /// direction by direction. Zero otherwise.
    pub(crate) cuboid_axis_edges: [u32; 3],
    /// For the same boxes whose face normals are exactly the axes, its
    /// features by the sides of the face planes they lie on: a sphere's
    /// closest feature by its centre's region (`sat/sphere.rs`,
    /// `box_closest_feature`).
    pub(crate) box_regions: Option<BoxRegions>,
}

/// A box's faces, edges and vertices by the sides of its axes' face planes
/// they lie on (side 1: the highest corner's coordinate, 0: the lowest).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct BoxRegions {
    /// The lowest and highest corners.
    pub(crate) low: Vec3,
    pub(crate) high: Vec3,
    /// `faces[k][side]`: the face whose normal is axis `k`, negated on
    /// side 0.
    pub(crate) faces: [[u32; 2]; 3],
    /// `edges[k][sides]`: the edge along axis `k` whose ends lie on the
    /// other two axes' `sides` (bit 0 the lower-numbered axis, bit 1 the
    /// other).
    pub(crate) edges: [[u32; 4]; 3],
    /// `vertices[sides]`: the corner on each axis `k`'s side (bit `k`).
    pub(crate) vertices: [u32; 8],
}

impl BoxRegions {
    /// The regions of a box with corners `(low, high)` whose normals are
    /// exactly the axes, or none (normals off the axes, or features that
    /// are not a box's).
    fn new(
        (low, high): (Vec3, Vec3),
        vertices: &[Vec3],
        normals: &[Vec3],
        edges: &[HullEdge],
    ) -> Option<BoxRegions> {
        let side = |v: Vec3, k: usize| usize::from(v[k] == high[k]);
        let mut regions = BoxRegions {
            low,
            high,
            ..BoxRegions::default()
        };
        let (mut faces, mut edges_seen, mut vertices_seen) = (0u32, 0u32, 0u32);
        for (index, &v) in vertices.iter().enumerate() {
            let code = side(v, 0) | side(v, 1) << 1 | side(v, 2) << 2;
            regions.vertices[code] = index as u32;
            vertices_seen |= 1 << code;
        }
        for (index, &n) in normals.iter().enumerate() {
            let k = (0..3).find(|&k| n[k] != 0.0)?;
            let exact = n[k].abs() == 1.0 && (0..3).all(|j| j == k || n[j] == 0.0);
            if !exact {
                return None;
            }
            let s = usize::from(n[k] > 0.0);
            regions.faces[k][s] = index as u32;
            faces |= 1 << (2 * k + s);
        }
        for (index, edge) in edges.iter().enumerate() {
            let (p0, p1) = (vertices[edge.v0 as usize], vertices[edge.v1 as usize]);
            let k = (0..3).find(|&k| p0[k] != p1[k])?;
            let (j0, j1) = ((k + 1) % 3, (k + 2) % 3);
            let (j0, j1) = (j0.min(j1), j0.max(j1));
            let code = side(p0, j0) | side(p0, j1) << 1;
            regions.edges[k][code] = index as u32;
            edges_seen |= 1 << (4 * k + code);
        }
        let whole = normals.len() == 6
            && edges.len() == 12
            && faces == 0x3f
            && edges_seen == 0xfff
            && vertices_seen == 0xff;
        whole.then_some(regions)
    }
}

/// A box's `(centre, half extents)` from its corners ([`box_corners`]),
/// each rounded once.
fn exact_box((low, high): (Vec3, Vec3)) -> (Vec3, Vec3) {
    ((low + high) * 0.5, (high - low) * 0.5)
}

/// The lowest and highest corners of a hull that is an axis-aligned box
/// exactly, as its vertices hold them: eight vertices, each coordinate at
/// the lowest or the highest value of its axis (eight distinct such points
/// are the eight corners, and their hull is the box).
fn box_corners(vertices: &[Vec3]) -> Option<(Vec3, Vec3)> {
    if vertices.len() != 8 {
        return None;
    }
    let low = vertices.iter().copied().fold(Vec3::MAX, Vec3::min);
    let high = vertices.iter().copied().fold(Vec3::MIN, Vec3::max);
    let at_corners = vertices
        .iter()
        .all(|v| (0..3).all(|k| v[k] == low[k] || v[k] == high[k]));
    at_corners.then_some((low, high))
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
pub(crate) const INNER_SLACK: f64 = 1.0e-4;

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
    pub(crate) fn new(vertex_edges: &[Vec<u16>], arcs: &[EdgeGauss]) -> RegionLanes {
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

    pub(crate) fn prefetch(&self) {
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
        let corners = box_corners(vertices);
        let cuboid = corners.map(exact_box);
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
        let box_regions =
            corners.and_then(|corners| BoxRegions::new(corners, vertices, normals, edges));
        HullLanes {
            inner_centre: Vec3::ZERO,
            inner_radius: 0.0,
            cuboid,
            cuboid_corners: corners,
            cuboid_axis_edges,
            box_regions,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3::shape::shapes::Hull;

    /// The lanes' copies that the queries, the manifold and a sphere's
    /// closest feature read instead of the scalar arrays hold the same bits:
    /// planes, vertices, faces' loops, edges' ends and arcs.
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
        // 256 points on a sphere: every vertex byte up to 255.
        let sphere: Vec<Vec3> = (0..256)
            .map(|k| {
                let z = 1.0 - (2 * k + 1) as f32 / 256.0;
                let angle = k as f32 * 2.399_963;
                let ring = (1.0 - z * z).sqrt();
                Vec3::new(ring * angle.cos(), ring * angle.sin(), z)
            })
            .collect();
        let round = Hull::new(&sphere).expect("points on a sphere hull");
        assert_eq!(round.vertices().len(), 256);
        hulls.push(round);
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
            for (v, vertex) in hull.vertices().iter().enumerate() {
                let copy = lanes.vertex(v);
                assert_eq!(
                    copy.to_array().map(f32::to_bits),
                    vertex.to_array().map(f32::to_bits),
                    "hull {h} vertex {v}"
                );
            }
            for i in 0..hull.face_count() {
                let copy: Vec<u32> = lanes.face_loop(i).iter().map(|&v| u32::from(v)).collect();
                assert_eq!(copy, hull.face(i), "hull {h} face {i}'s loop");
            }
            for (i, edge) in hull.edges().iter().enumerate() {
                let ends = lanes.edge_ends[i].map(u32::from);
                assert_eq!(ends, [edge.v0, edge.v1], "hull {h} edge {i}'s ends");
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
