//! `gpusat collide`'s result file for a 3D scene.

use std::io::Write;

use serde::{Deserialize, Serialize};

use super::{Points, write_hit_stream};

/// A 3D contact point as written in a result file.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactOut {
    /// World position, midway between the surfaces.
    pub point: [f32; 3],
    /// Its depth.
    pub depth: f32,
    /// Its feature id.
    pub id: u32,
}

/// A 3D axis's feature: one index, or an edge of A and an edge of B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FeatureOut {
    /// A face, an edge, a vertex (0 for two spheres' centres).
    One(u32),
    /// `[edge of A, edge of B]`, or for two cores' closest features
    /// `[A's vertex, B's edge]`, `[A's edge, B's vertex]`, `[A's vertex, B's vertex]`.
    Two([u32; 2]),
}

/// A 3D axis as written: `{"kind": "face_a" | "face_b" | "edges" | "edge_a"
/// | "edge_b" | "vertex_a" | "vertex_b" | "centres" | "vertex_edge" |
/// "edge_vertex" | "vertices", "feature": ...}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisOut {
    /// What the normal came from.
    pub kind: String,
    /// Which features.
    pub feature: FeatureOut,
}

/// One reported 3D pair as written in a result file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HitOut {
    /// Index of the pair.
    pub pair: u32,
    /// Body A.
    pub a: u32,
    /// Body B.
    pub b: u32,
    /// Unit normal from A to B.
    pub normal: [f32; 3],
    /// Depth.
    pub depth: f32,
    /// The axis the normal came from.
    pub axis: AxisOut,
    /// One to four contact points.
    pub contacts: Vec<ContactOut>,
}

/// The result file of `gpusat collide` on a 3D scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollideOutput {
    /// The backend that ran.
    pub backend: String,
    /// Candidate pairs tested.
    pub pairs_tested: u64,
    /// The reported pairs, in pair order.
    pub hits: Vec<HitOut>,
}

/// A 3D axis's name and feature as written.
pub fn axis_out(axis: gpusat::d3::Axis) -> (&'static str, FeatureOut) {
    use gpusat::d3::Axis;
    match axis {
        Axis::FaceA(i) => ("face_a", FeatureOut::One(i)),
        Axis::FaceB(i) => ("face_b", FeatureOut::One(i)),
        Axis::Edges(a, b) => ("edges", FeatureOut::Two([a, b])),
        Axis::EdgeA(i) => ("edge_a", FeatureOut::One(i)),
        Axis::EdgeB(i) => ("edge_b", FeatureOut::One(i)),
        Axis::VertexA(i) => ("vertex_a", FeatureOut::One(i)),
        Axis::VertexB(i) => ("vertex_b", FeatureOut::One(i)),
        Axis::Centres => ("centres", FeatureOut::One(0)),
        Axis::VertexEdge(v, e) => ("vertex_edge", FeatureOut::Two([v, e])),
        Axis::EdgeVertex(e, v) => ("edge_vertex", FeatureOut::Two([e, v])),
        Axis::Vertices(v, w) => ("vertices", FeatureOut::Two([v, w])),
    }
}

#[derive(Serialize)]
struct AxisRef {
    kind: &'static str,
    feature: FeatureOut,
}

#[derive(Serialize)]
struct HitRef {
    pair: u32,
    a: u32,
    b: u32,
    normal: [f32; 3],
    depth: f32,
    axis: AxisRef,
    contacts: Points<ContactOut, 4>,
}

/// [`write_collide_output`] for a 3D batch: normals and contact points in
/// 3D, the axis as a kind and features.
pub fn write_collide_output(
    out: &mut dyn Write,
    backend: &str,
    batch: &gpusat::d3::Batch,
    sat_hits: &[gpusat::d3::SatHit],
    pretty: bool,
) -> std::io::Result<()> {
    write_hit_stream(
        out,
        (backend, batch.pairs().len()),
        sat_hits,
        pretty,
        |sat_hit| {
            let hit = batch.hit(*sat_hit);
            let manifold = gpusat::d3::manifold(batch, &hit);
            let (kind, feature) = axis_out(hit.axis);
            HitRef {
                pair: hit.pair,
                a: hit.a,
                b: hit.b,
                normal: hit.normal.to_array(),
                depth: hit.depth,
                axis: AxisRef { kind, feature },
                contacts: Points::new(manifold.points().iter().map(|point| ContactOut {
                    point: point.point.to_array(),
                    depth: point.depth,
                    id: point.id,
                })),
            }
        },
    )
}
