//! The hull library as the 3D kernel reads it: each shape's record, its
//! float and integer texels (vertices, planes, edge records, bounds, face
//! loops, Gauss-map grids; see [`HullRecord`]).

use glam::Vec3;

use super::kinds::gpu_grid;
use crate::d3::math::dot3;
use crate::d3::{Hull, Shape, ShapeSet};
use crate::gpu::layout::d3::HullRecord;

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
        let record = match (shape, shape.core_hull()) {
            // A sphere: its radius and no vertex.
            (Shape::Sphere(_), _) => HullRecord {
                radius: shape.radius(),
                size: shape.size(),
                ..HullRecord::default()
            },
            // A capsule: its segment core as a record of two vertices, no
            // face and one edge (0, 1), and its radius (`rounded.wgsl`).
            (Shape::Capsule(capsule), _) => {
                let points = capsule.points();
                let record = HullRecord {
                    float_base: floats.len() as u32,
                    vertex_count: 2,
                    face_count: 0,
                    edge_count: 1,
                    int_base: ints.len() as u32,
                    radius: capsule.radius(),
                    size: shape.size(),
                    reach: points[0].length().max(points[1].length()),
                };
                floats.extend(points.iter().map(|p| [p.x, p.y, p.z, 0.0]));
                ints.push([0, 1, 0, 0]);
                record
            }
            // A hull, or a rounded hull's core with its radius.
            (_, Some(hull)) => {
                let record = HullRecord {
                    float_base: floats.len() as u32,
                    vertex_count: hull.vertices().len() as u32,
                    face_count: hull.face_count() as u32,
                    edge_count: hull.edges().len() as u32,
                    int_base: ints.len() as u32,
                    radius: shape.radius(),
                    size: shape.size(),
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
            (_, None) => HullRecord::default(),
        };
        if shape.core_hull().is_none() {
            gridded.push(false);
        }
        records.push(record);
    }
}

/// For each face, in order, the edges of its loop: entry `k` of face `f`'s
/// loop (`start + k`, as the vertex loops are numbered) is the edge from
/// its vertex `k` to vertex `k + 1` (the kernel's `kept_edges_of_faces`).
pub(super) fn face_loop_edges(hull: &Hull) -> Vec<u32> {
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
/// `shaders/d3/sat.wgsl`): `k` at least every edge's `1 / cos(angle / 2)` as
/// `skips_edge` computes it (the square root of `(1 + u . v) / 2`,
/// infinite for a zero), `delta` at least how far an edge's record offset
/// (`u . p`, `v . p`) lies below its face's offset; both rounded up.
pub(super) fn face_bound_texel(hull: &Hull) -> [f32; 4] {
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

/// A grid's lists in texels (`shaders/d3/sat.wgsl`, `grid_face_min`): per
/// square its list's first texel and its texels, two squares a texel; then
/// each list four vertices a texel, the last texel padded with the list's
/// last vertex (a minimum is unchanged by repeats).
pub(super) fn grid_texels(lists: &[Vec<u16>], ints: &mut Vec<[u32; 4]>) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
