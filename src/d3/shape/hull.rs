//! Building a convex hull from a point cloud: validate, weld, hull, merge,
//! re-validate.
//!
//! As in 2D, this is the only way a [`Hull`](super::super::Hull) comes to exist,
//! so the narrowphase may assume what it checks: 4 to
//! [`MAX_HULL_VERTICES`] vertices, closed, convex at every edge, polygonal
//! faces wound counter-clockwise seen from outside with unit outward
//! normals, every edge shared by exactly two faces. Everything is decided in
//! double precision on the single-precision input, with tolerances relative
//! to the cloud's `width` (its bounding-box diagonal):
//!
//! 1. Every coordinate must be finite; `width` must be within the supported
//!    sizes.
//! 2. Weld: a point closer than `WELD * width` to a kept point is dropped.
//!    Fewer than 4 points left is an error.
//! 3. Quickhull: an initial tetrahedron from the extreme points (all points
//!    on one line or one plane are errors), then, for each face with points
//!    farther than `PLANE * width` outside, the farthest point: the faces it
//!    sees are replaced by a fan from it to their horizon. Points inside are
//!    dropped.
//! 4. Merge: triangles are grown into faces from a seed (largest first); a
//!    neighbour joins when its normal is within a few degrees' thousandths of
//!    the seed's and its vertices within `PLANE * width` of the seed's plane
//!    (the seed's plane, not the growing face's, so that a gently curved
//!    surface is never merged flat). A box comes out with 6 quadrilaterals.
//! 5. Clean: a vertex left on only two faces lies on the straight edge
//!    between them and is removed from both; a vertex on no face (inside a
//!    merged face) is dropped.
//! 6. Order the faces along their normals: by the cube cell their normal
//!    points through, then along a Z-order curve inside it
//!    ([`direction_cell`]), so that runs of
//!    eight faces point close together (the face queries bound such a run
//!    at once, and start at the run facing the other hull). Vertices and
//!    edges are numbered in the order the faces first use them.
//! 7. Re-validate: closed (every edge in two faces, once each way), Euler's
//!    `V - E + F = 2`, every face planar within tolerance, every vertex below
//!    every face plane (convex), at most [`MAX_HULL_VERTICES`] vertices, and a
//!    volume of at least `VOLUME * width^3` (not flat, not a needle).
//! 8. Planes (Newell's normal), volume, centroid and inertia by the
//!    divergence theorem, computed in double precision and rounded once.

use std::collections::HashMap;

use glam::{DMat3, DVec3, Vec3};

use super::super::math::direction_cell;
use crate::core::error::ShapeError;
use crate::core::limits::check_size;

/// The most vertices a hull may keep (Jolt's limit; Box3D's is 128).
pub const MAX_HULL_VERTICES: usize = 256;
/// Inputs with more points than this are rejected before hulling.
pub const MAX_HULL_INPUT_POINTS: usize = 64 * MAX_HULL_VERTICES;
/// Points closer than this fraction of the width are welded.
pub const WELD_TOLERANCE: f64 = 1e-5;
/// Points within this fraction of the width of a plane count as on it: for
/// quickhull's outside test and for merging coplanar faces.
pub const PLANE_TOLERANCE: f64 = 1e-5;
/// Hulls whose volume is below this fraction of width³ are flat or needles.
pub const VOLUME_TOLERANCE: f64 = 1e-6;
/// Triangles merge into a face only when their normals are this close
/// (cosine of the angle between them).
const MERGE_COSINE: f64 = 1.0 - 1e-6;

/// A validated hull in double precision: what [`Hull`](super::super::Hull) is
/// made from.
#[derive(Clone, Debug)]
pub struct HullMesh {
    /// The vertices.
    pub vertices: Vec<DVec3>,
    /// Each face's vertex loop, counter-clockwise seen from outside.
    pub faces: Vec<Vec<u32>>,
    /// Each face's unit outward normal and offset (`normal . x = offset` on it).
    pub planes: Vec<(DVec3, f64)>,
    /// Each edge: its vertices `v0, v1`, the face whose loop runs `v0 -> v1`
    /// and the face whose loop runs `v1 -> v0`.
    pub edges: Vec<[u32; 4]>,
    /// The enclosed volume.
    pub volume: f64,
    /// The centre of mass (uniform density).
    pub centroid: DVec3,
    /// The inertia tensor about the centroid, per unit mass.
    pub unit_inertia: DMat3,
    /// The largest distance from the centroid to a vertex.
    pub size: f64,
}

/// Validates `points` and builds their convex hull.
pub fn build_hull(points: &[Vec3]) -> Result<HullMesh, ShapeError> {
    for (point, p) in points.iter().enumerate() {
        if !p.is_finite() {
            return Err(ShapeError::NonFinitePoint {
                point,
                x: p.x,
                y: p.y,
                z: p.z,
            });
        }
    }
    if points.len() > MAX_HULL_INPUT_POINTS {
        return Err(ShapeError::TooManyVertices {
            count: points.len(),
            max: MAX_HULL_VERTICES,
        });
    }
    let input: Vec<DVec3> = points.iter().map(|p| p.as_dvec3()).collect();
    let (min, max) = input.iter().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    if input.is_empty() {
        return Err(ShapeError::TooFewHullPoints { count: 0 });
    }
    let width = (max - min).length();
    if width == 0.0 {
        return Err(ShapeError::TooFewHullPoints { count: 1 });
    }
    check_size(width)?;
    let welded = weld(&input, WELD_TOLERANCE * width);
    if welded.len() < 4 {
        return Err(ShapeError::TooFewHullPoints {
            count: welded.len(),
        });
    }
    let tolerance = PLANE_TOLERANCE * width;
    let triangles = quickhull(&welded, tolerance)?;
    let mut faces = merge_coplanar(&welded, &triangles, tolerance);
    remove_collinear(&mut faces);
    match finish(&welded, faces, width, tolerance) {
        // Points at the edge of the tolerances can merge into faces that do
        // not close up; the unmerged triangles are a valid convex hull still
        // (more faces, the same solid).
        Err(ShapeError::DegenerateHull { .. }) => {
            let triangles = triangles.iter().map(|t| t.to_vec()).collect();
            finish(&welded, triangles, width, tolerance)
        }
        result => result,
    }
}

/// Drops points within `tolerance` of a kept one, with a grid of cells
/// `tolerance` wide (a kept point within reach sits in one of the 27 cells
/// around a point's own).
fn weld(points: &[DVec3], tolerance: f64) -> Vec<DVec3> {
    let cell = |p: DVec3| -> (i64, i64, i64) {
        let c = (p / tolerance).floor();
        (c.x as i64, c.y as i64, c.z as i64)
    };
    let mut grid: HashMap<(i64, i64, i64), Vec<usize>> = HashMap::new();
    let mut kept: Vec<DVec3> = Vec::new();
    for &p in points {
        let (cx, cy, cz) = cell(p);
        let mut near = false;
        'search: for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    if let Some(list) = grid.get(&(cx + dx, cy + dy, cz + dz))
                        && list.iter().any(|&k| (kept[k] - p).length() <= tolerance)
                    {
                        near = true;
                        break 'search;
                    }
                }
            }
        }
        if !near {
            grid.entry((cx, cy, cz)).or_default().push(kept.len());
            kept.push(p);
        }
    }
    kept
}

/// A triangle of the hull under construction.
struct Triangle {
    v: [u32; 3],
    normal: DVec3,
    offset: f64,
    /// Points outside it that no other triangle has claimed.
    outside: Vec<u32>,
    alive: bool,
}

impl Triangle {
    fn new(points: &[DVec3], v: [u32; 3]) -> Triangle {
        let (a, b, c) = (
            points[v[0] as usize],
            points[v[1] as usize],
            points[v[2] as usize],
        );
        let normal = (b - a).cross(c - a).normalize_or_zero();
        Triangle {
            v,
            normal,
            offset: normal.dot(a),
            outside: Vec::new(),
            alive: true,
        }
    }

    fn distance(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.offset
    }
}

/// Quickhull: the hull's triangles, counter-clockwise from outside.
///
/// ```text
/// tetrahedron from extreme points; each point goes to the first face it is outside of
/// while some face has outside points:
///     p = its farthest outside point
///     visible = the faces p is above at all, found by walking from that face
///     horizon = the edges between visible and not visible faces
///     replace the visible faces by triangles (horizon edge, p)
///     their outside points go to the first new triangle they are outside of
/// ```
///
/// Two tolerances: a point is worth adding when it is more than `tolerance`
/// outside a face, but a face is visible from it when it is above the face
/// at all (beyond rounding, `tolerance * 1e-7`). Keeping a face that the
/// point sees by less than `tolerance` would leave a concave edge, and a thin
/// new triangle beside it amplifies that: a cloud of this crate's fuzzing
/// had a vertex 70 tolerances above a face that way.
fn quickhull(points: &[DVec3], tolerance: f64) -> Result<Vec<[u32; 3]>, ShapeError> {
    let visible_above = tolerance * 1e-7;
    let (i0, i1, i2, i3) = initial_simplex(points, tolerance)?;
    let mut triangles: Vec<Triangle> = Vec::new();
    // Orient the tetrahedron outward: i3 must be below the first face.
    let first = Triangle::new(points, [i0, i1, i2]);
    let base = if first.distance(points[i3 as usize]) > 0.0 {
        [i0, i2, i1]
    } else {
        [i0, i1, i2]
    };
    let [a, b, c] = base;
    for v in [[a, b, c], [a, i3, b], [b, i3, c], [c, i3, a]] {
        triangles.push(Triangle::new(points, v));
    }
    // Directed edge (from, to) -> the triangle whose loop has it.
    let mut edge_owner: HashMap<(u32, u32), usize> = HashMap::new();
    for (index, triangle) in triangles.iter().enumerate() {
        for k in 0..3 {
            edge_owner.insert((triangle.v[k], triangle.v[(k + 1) % 3]), index);
        }
    }
    let corners = [i0, i1, i2, i3];
    for index in 0..points.len() as u32 {
        if corners.contains(&index) {
            continue;
        }
        let p = points[index as usize];
        if let Some(triangle) = triangles
            .iter_mut()
            .find(|triangle| triangle.distance(p) > tolerance)
        {
            triangle.outside.push(index);
        }
    }

    // Each step adds one point to the hull: at most every point once.
    for _ in 0..points.len() {
        let Some(start) = triangles
            .iter()
            .position(|triangle| triangle.alive && !triangle.outside.is_empty())
        else {
            break;
        };
        let apex = *triangles[start]
            .outside
            .iter()
            .max_by(|&&p, &&q| {
                let (dp, dq) = (
                    triangles[start].distance(points[p as usize]),
                    triangles[start].distance(points[q as usize]),
                );
                dp.total_cmp(&dq)
            })
            .unwrap_or(&triangles[start].outside[0]);
        let p = points[apex as usize];

        // The visible faces, by a walk over neighbours. If their boundary
        // is not one simple loop (a face the point is nearly coplanar with
        // left as a hole, or the region pinched at a vertex), the faces it
        // is coplanar with count as visible too, and the walk is redone.
        let mut found = None;
        for threshold in [visible_above, -visible_above] {
            let (visible, is_visible) = visible_faces(&triangles, &edge_owner, start, p, threshold);
            let horizon = horizon_of(&triangles, &edge_owner, &visible, &is_visible);
            if is_simple_cycle(&horizon) {
                found = Some((visible, horizon));
                break;
            }
        }
        let Some((visible, horizon)) = found else {
            return Err(ShapeError::DegenerateHull {
                reason: "points too nearly coplanar to hull in double precision".to_string(),
            });
        };
        // Retire the visible faces and gather their orphaned points.
        let mut orphans: Vec<u32> = Vec::new();
        for &face in &visible {
            let triangle = &mut triangles[face];
            triangle.alive = false;
            orphans.append(&mut triangle.outside);
            let v = triangle.v;
            for k in 0..3 {
                edge_owner.remove(&(v[k], v[(k + 1) % 3]));
            }
        }
        let first_new = triangles.len();
        for &(from, to) in &horizon {
            let index = triangles.len();
            triangles.push(Triangle::new(points, [from, to, apex]));
            for edge in [(from, to), (to, apex), (apex, from)] {
                edge_owner.insert(edge, index);
            }
        }
        for orphan in orphans {
            if orphan == apex {
                continue;
            }
            let q = points[orphan as usize];
            if let Some(triangle) = triangles[first_new..]
                .iter_mut()
                .find(|triangle| triangle.distance(q) > tolerance)
            {
                triangle.outside.push(orphan);
            }
        }
    }
    if triangles
        .iter()
        .any(|triangle| triangle.alive && !triangle.outside.is_empty())
    {
        return Err(ShapeError::DegenerateHull {
            reason: "quickhull did not converge".to_string(),
        });
    }
    Ok(triangles
        .iter()
        .filter(|triangle| triangle.alive)
        .map(|triangle| triangle.v)
        .collect())
}

/// The faces `p` is above by more than `threshold`, connected to `start`.
fn visible_faces(
    triangles: &[Triangle],
    edge_owner: &HashMap<(u32, u32), usize>,
    start: usize,
    p: DVec3,
    threshold: f64,
) -> (Vec<usize>, Vec<bool>) {
    let mut visible = vec![start];
    let mut is_visible = vec![false; triangles.len()];
    is_visible[start] = true;
    let mut next = 0;
    while next < visible.len() {
        let current = visible[next];
        next += 1;
        let v = triangles[current].v;
        for k in 0..3 {
            let twin = (v[(k + 1) % 3], v[k]);
            if let Some(&neighbour) = edge_owner.get(&twin)
                && !is_visible[neighbour]
                && triangles[neighbour].distance(p) > threshold
            {
                is_visible[neighbour] = true;
                visible.push(neighbour);
            }
        }
    }
    (visible, is_visible)
}

/// The edges of the visible faces whose twin is not visible.
fn horizon_of(
    triangles: &[Triangle],
    edge_owner: &HashMap<(u32, u32), usize>,
    visible: &[usize],
    is_visible: &[bool],
) -> Vec<(u32, u32)> {
    let mut horizon = Vec::new();
    for &face in visible {
        let v = triangles[face].v;
        for k in 0..3 {
            let edge = (v[k], v[(k + 1) % 3]);
            let twin_visible = edge_owner
                .get(&(edge.1, edge.0))
                .is_some_and(|&neighbour| is_visible[neighbour]);
            if !twin_visible {
                horizon.push(edge);
            }
        }
    }
    horizon
}

/// Whether `edges` form one simple cycle.
fn is_simple_cycle(edges: &[(u32, u32)]) -> bool {
    let mut next_of: HashMap<u32, u32> = HashMap::new();
    for &(from, to) in edges {
        if next_of.insert(from, to).is_some() {
            return false;
        }
    }
    let Some(&(start, _)) = edges.first() else {
        return false;
    };
    let mut current = start;
    for _ in 0..edges.len() {
        match next_of.get(&current) {
            Some(&to) => current = to,
            None => return false,
        }
    }
    current == start && edges.len() >= 3 && {
        // Every edge visited: walk once more counting distinct vertices.
        let mut seen = std::collections::HashSet::new();
        let mut current = start;
        while seen.insert(current) {
            current = next_of[&current];
        }
        seen.len() == edges.len()
    }
}

/// Four points spanning a tetrahedron: the two farthest apart of the six
/// axis extremes, the farthest from their line, the farthest from their
/// plane. All points on a line or a plane are errors.
fn initial_simplex(points: &[DVec3], tolerance: f64) -> Result<(u32, u32, u32, u32), ShapeError> {
    let mut extremes = [0usize; 6];
    for (index, p) in points.iter().enumerate() {
        for axis in 0..3 {
            if p[axis] < points[extremes[2 * axis]][axis] {
                extremes[2 * axis] = index;
            }
            if p[axis] > points[extremes[2 * axis + 1]][axis] {
                extremes[2 * axis + 1] = index;
            }
        }
    }
    let (mut i0, mut i1, mut farthest) = (0, 0, -1.0);
    for &a in &extremes {
        for &b in &extremes {
            let distance = (points[a] - points[b]).length_squared();
            if distance > farthest {
                (i0, i1, farthest) = (a, b, distance);
            }
        }
    }
    let line = (points[i1] - points[i0]).normalize();
    let (i2, from_line) = points
        .iter()
        .enumerate()
        .map(|(index, &p)| {
            let d = p - points[i0];
            (index, (d - line * d.dot(line)).length())
        })
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .unwrap_or((0, 0.0));
    if from_line <= tolerance {
        return Err(ShapeError::Collinear);
    }
    let normal = (points[i1] - points[i0])
        .cross(points[i2] - points[i0])
        .normalize();
    let (i3, from_plane) = points
        .iter()
        .enumerate()
        .map(|(index, &p)| (index, normal.dot(p - points[i0]).abs()))
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .unwrap_or((0, 0.0));
    if from_plane <= tolerance {
        return Err(ShapeError::Coplanar);
    }
    Ok((i0 as u32, i1 as u32, i2 as u32, i3 as u32))
}

/// Groups the triangles into planar faces and returns each face's boundary
/// loop, counter-clockwise from outside.
fn merge_coplanar(points: &[DVec3], triangles: &[[u32; 3]], tolerance: f64) -> Vec<Vec<u32>> {
    let mut owner: HashMap<(u32, u32), usize> = HashMap::new();
    for (index, v) in triangles.iter().enumerate() {
        for k in 0..3 {
            owner.insert((v[k], v[(k + 1) % 3]), index);
        }
    }
    let area = |v: &[u32; 3]| {
        let (a, b, c) = (
            points[v[0] as usize],
            points[v[1] as usize],
            points[v[2] as usize],
        );
        (b - a).cross(c - a)
    };
    // Seeds from the largest triangle down.
    let mut order: Vec<usize> = (0..triangles.len()).collect();
    order.sort_by(|&x, &y| {
        area(&triangles[y])
            .length_squared()
            .total_cmp(&area(&triangles[x]).length_squared())
    });
    let mut group = vec![usize::MAX; triangles.len()];
    let mut faces = Vec::new();
    for &seed in &order {
        if group[seed] != usize::MAX {
            continue;
        }
        let id = faces.len();
        let normal = area(&triangles[seed]).normalize_or_zero();
        let offset = normal.dot(points[triangles[seed][0] as usize]);
        let mut members = vec![seed];
        group[seed] = id;
        let mut next = 0;
        while next < members.len() {
            let v = triangles[members[next]];
            next += 1;
            for k in 0..3 {
                let Some(&neighbour) = owner.get(&(v[(k + 1) % 3], v[k])) else {
                    continue;
                };
                if group[neighbour] != usize::MAX {
                    continue;
                }
                let w = triangles[neighbour];
                let flat = area(&w).normalize_or_zero().dot(normal) >= MERGE_COSINE
                    && w.iter()
                        .all(|&i| (normal.dot(points[i as usize]) - offset).abs() <= tolerance);
                if flat {
                    group[neighbour] = id;
                    members.push(neighbour);
                }
            }
        }
        match boundary_loop(triangles, &members, &group, &owner, id) {
            Some(boundary) => faces.push(boundary),
            None => {
                // Not a disk (cannot happen for a convex surface, but never
                // build a broken face): keep its triangles as they are.
                for (k, &member) in members.iter().enumerate() {
                    group[member] = id + k;
                    faces.push(triangles[member].to_vec());
                }
            }
        }
    }
    faces
}

/// The boundary of a group of triangles as one loop, or `None` if it is not
/// one simple loop.
fn boundary_loop(
    triangles: &[[u32; 3]],
    members: &[usize],
    group: &[usize],
    owner: &HashMap<(u32, u32), usize>,
    id: usize,
) -> Option<Vec<u32>> {
    let mut next_of: HashMap<u32, u32> = HashMap::new();
    for &member in members {
        let v = triangles[member];
        for k in 0..3 {
            let (from, to) = (v[k], v[(k + 1) % 3]);
            let inside = owner
                .get(&(to, from))
                .is_some_and(|&neighbour| group[neighbour] == id);
            if !inside && next_of.insert(from, to).is_some() {
                return None;
            }
        }
    }
    let &start = next_of.keys().min()?;
    let mut boundary = vec![start];
    let mut current = next_of[&start];
    while current != start {
        if boundary.len() > next_of.len() {
            return None;
        }
        boundary.push(current);
        current = *next_of.get(&current)?;
    }
    (boundary.len() == next_of.len()).then_some(boundary)
}

/// Removes the vertices that only two faces share: they lie on the straight
/// edge between those faces. A vertex goes from both faces or from neither
/// (never leaving a face with fewer than 3 vertices), so the two faces'
/// loops still meet edge for edge.
fn remove_collinear(faces: &mut [Vec<u32>]) {
    let mut faces_of: HashMap<u32, Vec<usize>> = HashMap::new();
    for (index, face) in faces.iter().enumerate() {
        for &v in face {
            faces_of.entry(v).or_default().push(index);
        }
    }
    let mut candidates: Vec<(u32, [usize; 2])> = faces_of
        .iter()
        .filter_map(|(&v, owners)| match owners[..] {
            [f, g] => Some((v, [f, g])),
            _ => None,
        })
        .collect();
    candidates.sort_unstable();
    for (v, [f, g]) in candidates {
        if faces[f].len() > 3 && faces[g].len() > 3 {
            faces[f].retain(|&w| w != v);
            faces[g].retain(|&w| w != v);
        }
    }
}

/// A face's unit normal by Newell's method (zero for a face of no area).
fn newell_normal(points: &[DVec3], face: &[u32]) -> DVec3 {
    let mut normal = DVec3::ZERO;
    for k in 0..face.len() {
        let (p, q) = (
            points[face[k] as usize],
            points[face[(k + 1) % face.len()] as usize],
        );
        // Newell's sum: half of (p - q) x (p + q) is p x q, the doubled
        // area of the triangle (origin, p, q), counter-clockwise outward.
        normal += (p - q).cross(p + q) * 0.5;
    }
    normal.normalize_or_zero()
}

/// Where a face with unit normal `n` goes in the hull's face order: the
/// [`direction_cell`] of its normal, then a Z-order curve through the cell
/// (the normal's two minor components over its major one, 8 bits each).
/// Consecutive faces then point close together: eight of them span a
/// narrow cone, which the face queries bound as one (`face_cone_bound`), and a
/// query can start at the faces facing the other hull (`sat/faces.rs`).
fn normal_order(n: DVec3) -> (u32, u32) {
    let cell = direction_cell(n.as_vec3());
    let a = n.abs();
    let (u, w, m) = if a.x >= a.y && a.x >= a.z {
        (n.y, n.z, a.x)
    } else if a.y >= a.z {
        (n.z, n.x, a.y)
    } else {
        (n.x, n.y, a.z)
    };
    let quantise = |x: f64| {
        if m > 0.0 {
            ((x / m + 1.0) * 128.0).clamp(0.0, 255.0) as u32
        } else {
            0
        }
    };
    let (qu, qw) = (quantise(u), quantise(w));
    let mut code = 0;
    for bit in 0..8 {
        code |= ((qu >> bit) & 1) << (2 * bit) | ((qw >> bit) & 1) << (2 * bit + 1);
    }
    (cell, code)
}

/// Reindexes the vertices the faces use, builds the edges and planes,
/// validates, and computes the mass properties.
fn finish(
    points: &[DVec3],
    faces: Vec<Vec<u32>>,
    width: f64,
    tolerance: f64,
) -> Result<HullMesh, ShapeError> {
    let degenerate = |reason: &str| ShapeError::DegenerateHull {
        reason: reason.to_string(),
    };
    // Faces ordered along their normals (`normal_order`), so that eight
    // consecutive faces point close together; the sort is stable, so the
    // order is deterministic.
    let mut faces = faces;
    if faces.iter().any(|face| face.len() < 3) {
        return Err(degenerate("a face with fewer than 3 vertices"));
    }
    faces.sort_by_cached_key(|face| normal_order(newell_normal(points, face)));
    let mut new_index: HashMap<u32, u32> = HashMap::new();
    let mut vertices: Vec<DVec3> = Vec::new();
    // Vertices in order of first use, faces in order: deterministic.
    let faces: Vec<Vec<u32>> = faces
        .into_iter()
        .map(|face| {
            face.into_iter()
                .map(|v| {
                    *new_index.entry(v).or_insert_with(|| {
                        vertices.push(points[v as usize]);
                        (vertices.len() - 1) as u32
                    })
                })
                .collect()
        })
        .collect();
    if vertices.len() > MAX_HULL_VERTICES {
        return Err(ShapeError::TooManyVertices {
            count: vertices.len(),
            max: MAX_HULL_VERTICES,
        });
    }

    // Edges: each directed edge once, its twin once, in another face.
    let mut directed: HashMap<(u32, u32), u32> = HashMap::new();
    for (index, face) in faces.iter().enumerate() {
        for k in 0..face.len() {
            let edge = (face[k], face[(k + 1) % face.len()]);
            if directed.insert(edge, index as u32).is_some() {
                return Err(degenerate("an edge used twice the same way"));
            }
        }
    }
    let mut edges: Vec<[u32; 4]> = Vec::new();
    for (index, face) in faces.iter().enumerate() {
        for k in 0..face.len() {
            let (v0, v1) = (face[k], face[(k + 1) % face.len()]);
            let Some(&twin) = directed.get(&(v1, v0)) else {
                return Err(degenerate("not closed: an edge with one face"));
            };
            if twin as usize == index {
                return Err(degenerate("an edge with the same face on both sides"));
            }
            // Each undirected edge once: from the face that runs it from the
            // lower vertex index.
            if v0 < v1 {
                edges.push([v0, v1, index as u32, twin]);
            }
        }
    }
    let (v, e, f) = (
        vertices.len() as i64,
        edges.len() as i64,
        faces.len() as i64,
    );
    if v - e + f != 2 {
        return Err(degenerate(&format!("V - E + F = {v} - {e} + {f}, not 2")));
    }

    // Planes by Newell's method; every face vertex on its plane, every
    // vertex below every plane.
    let mut planes = Vec::with_capacity(faces.len());
    for face in &faces {
        let normal = newell_normal(&vertices, face);
        if normal == DVec3::ZERO {
            return Err(degenerate("a face of no area"));
        }
        let centre = face.iter().map(|&i| vertices[i as usize]).sum::<DVec3>() / face.len() as f64;
        let offset = normal.dot(centre);
        if face
            .iter()
            .any(|&i| (normal.dot(vertices[i as usize]) - offset).abs() > 4.0 * tolerance)
        {
            return Err(degenerate("a face that is not planar"));
        }
        planes.push((normal, offset));
    }
    for &(normal, offset) in &planes {
        if vertices
            .iter()
            .any(|&p| normal.dot(p) - offset > 4.0 * tolerance)
        {
            return Err(degenerate("not convex"));
        }
    }

    // Volume, centroid and inertia: tetrahedra from a point inside (the
    // vertices' mean) to each face's fan triangles.
    let origin = vertices.iter().copied().sum::<DVec3>() / vertices.len() as f64;
    let mut volume = 0.0;
    let mut first_moment = DVec3::ZERO;
    let mut second = DMat3::ZERO;
    for face in &faces {
        let a = vertices[face[0] as usize] - origin;
        for k in 1..face.len() - 1 {
            let b = vertices[face[k] as usize] - origin;
            let c = vertices[face[k + 1] as usize] - origin;
            let tetra = a.dot(b.cross(c)) / 6.0;
            volume += tetra;
            first_moment += tetra * (a + b + c) / 4.0;
            // The covariance of a tetrahedron with a vertex at the origin:
            // det/120 * (sum of outer products + outer product of the sum).
            let sum = a + b + c;
            let outer = |u: DVec3, w: DVec3| DMat3::from_cols(u * w.x, u * w.y, u * w.z);
            second += (outer(a, a) + outer(b, b) + outer(c, c) + outer(sum, sum)) * (tetra / 20.0);
        }
    }
    if volume < VOLUME_TOLERANCE * width * width * width {
        return Err(ShapeError::ZeroVolume { volume, width });
    }
    let centroid_local = first_moment / volume;
    let centroid = origin + centroid_local;
    // Covariance about the centroid (parallel axis), per unit volume.
    let outer = |u: DVec3, w: DVec3| DMat3::from_cols(u * w.x, u * w.y, u * w.z);
    let covariance = second * (1.0 / volume) - outer(centroid_local, centroid_local);
    let trace = covariance.x_axis.x + covariance.y_axis.y + covariance.z_axis.z;
    let unit_inertia = DMat3::from_diagonal(DVec3::splat(trace)) - covariance;
    let size = vertices
        .iter()
        .map(|p| (*p - centroid).length())
        .fold(0.0, f64::max);
    Ok(HullMesh {
        vertices,
        faces,
        planes,
        edges,
        volume,
        centroid,
        unit_inertia,
        size,
    })
}
