//! The 3D shapes without a radius: convex hulls (built only through
//! [`Hull::new`], which validates and cleans a point cloud), spheres, and
//! cuboids (hulls of 8 corners).

use glam::{Mat3, Vec3};

use super::super::math::cross3;
use super::edge::{EdgeGauss, HullEdge};
use super::gauss_grid::GaussGrid;
use super::hull::{HullMesh, build_hull};
use super::lanes::{HullLanes, INNER_SLACK, RegionLanes};
use crate::core::error::ShapeError;
use crate::core::limits::check_size;
use crate::core::simd::{prefetch_all, prefetch_head};

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
/// bench --dim 3 --backends cpu,cpu-pairwise`, the lookup
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

    /// Asks for the head of each array the lanes read of this hull (faces,
    /// vertices, edges' normals, bounds and ends; the hardware follows the
    /// rest, `prefetch_head`) to be brought into the second-level cache:
    /// the batch asks for the next pair's while it tests this one, so that
    /// with many distinct hulls the lines arrive in the shadow of the
    /// current pair's work.
    pub(crate) fn prefetch_for_lanes(&self) {
        let lanes = &self.lanes;
        prefetch_head(&lanes.face_planes);
        prefetch_head(&lanes.vertices);
        prefetch_head(&lanes.edge_planes);
        prefetch_head(&lanes.edge_normals);
        prefetch_head(&lanes.edge_ends);
    }

    /// What the face queries of two boxes read of this one (`sat/boxes.rs`):
    /// its face rows (their edge query reads the corners beside them).
    /// Asking for the vertices and edges too on every box pair cost more
    /// than it saved when the general query ran their edges (VM, one thread,
    /// 200,000 box pairs, three interleaved rounds, SAT: 215.1 to 224.2 ns
    /// a pair with the face rows alone, 234.9 to 256.9 with everything the
    /// lanes read).
    pub(crate) fn prefetch_for_box_faces(&self) {
        prefetch_head(&self.lanes.face_planes);
    }

    /// What a sphere against this hull reads (`sat/sphere.rs`, `lanes.rs`'s
    /// `sphere_face_separation` and `closest_feature_lanes`): the lanes'
    /// face rows, and for a centre outside, their vertices, edges' ends and
    /// faces' loops, read out of order (a loop where a face's plane has the
    /// centre outside it, every edge's ends).
    pub(crate) fn prefetch_for_sphere(&self) {
        let lanes = &self.lanes;
        prefetch_all(&lanes.face_planes);
        prefetch_all(&lanes.vertices);
        prefetch_all(&lanes.edge_ends);
        prefetch_all(&lanes.face_loop_starts);
        prefetch_all(&lanes.face_loops);
    }

    /// The same for what a contact manifold reads beyond the lanes: the
    /// faces' loops (the vertices and the edges' ends are the lanes', which
    /// two boxes do not ask for: [`Hull::prefetch_for_box_faces`]). The
    /// manifold reads two faces' loops wherever they lie, yet asking for
    /// every line of a large hull's loops holds up more than it saves
    /// (VM, one thread, 1M pairs with contacts, ns a pair, the head of each
    /// array against every line: 128-vertex hulls 3,043.5 against 3,149.1,
    /// 256: 5,547.7 against 6,414.3; 64: 1,862.2 against 1,858.2).
    pub(crate) fn prefetch_for_contacts(&self) {
        prefetch_head(&self.lanes.face_loop_starts);
        prefetch_head(&self.lanes.face_loops);
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

    /// `(lowest, highest)` corners, as the vertices hold them, when the hull
    /// is exactly an axis-aligned box in its frame (eight vertices, each
    /// coordinate its axis' lowest or highest value, as [`Hull::cuboid`]
    /// builds); `None` for any other hull, a turned box included. A face
    /// query against a box takes its deepest corner in closed form, and two
    /// boxes whose face normals are exactly their axes (see
    /// [`Hull::is_axis_box`]) take their own query.
    pub fn cuboid_corners(&self) -> Option<(Vec3, Vec3)> {
        self.lanes.cuboid_corners
    }

    /// Whether the hull is a box whose face normals are exactly its axes
    /// (every box [`Hull::cuboid`] builds, and eight corners on the axes):
    /// two such boxes take their own SAT on every backend (`collide_boxes`,
    /// the kernel's `boxes` kind) under every edge search but the brute
    /// force.
    pub fn is_axis_box(&self) -> bool {
        self.lanes.box_regions.is_some()
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
