//! `gpusat collide`'s result file for a 2D scene.

use std::io::Write;

use gpusat::{Batch, Hit, Owner, SatHit, manifold};
use serde::{Deserialize, Serialize};

use super::{Points, write_hit_stream};

/// A contact point as written in a result file.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactOut {
    /// World position, midway between the surfaces.
    pub point: [f32; 2],
    /// Its depth.
    pub depth: f32,
    /// Its feature id.
    pub id: u32,
}

/// An axis as written in a result file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisOut {
    /// "a" or "b".
    pub owner: String,
    pub feature: u32,
}

/// One reported pair as written in a result file.
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
    pub normal: [f32; 2],
    /// Depth.
    pub depth: f32,
    /// The axis the normal came from.
    pub axis: AxisOut,
    /// The contact points.
    pub contacts: Vec<ContactOut>,
}

impl HitOut {
    /// A hit and its contacts as written.
    pub fn new(hit: &Hit, contacts: Vec<ContactOut>) -> HitOut {
        HitOut {
            pair: hit.pair,
            a: hit.a,
            b: hit.b,
            normal: hit.normal.to_array(),
            depth: hit.depth,
            axis: AxisOut {
                owner: HitOut::owner_name(hit),
                feature: hit.axis.feature,
            },
            contacts,
        }
    }
}

/// The result file of `gpusat collide`.
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

/// One hit as the streaming writer serialises it.
#[derive(Serialize)]
struct HitRef {
    pair: u32,
    a: u32,
    b: u32,
    normal: [f32; 2],
    depth: f32,
    axis: AxisRef,
    contacts: Points<ContactOut, 2>,
}

#[derive(Serialize)]
struct AxisRef {
    owner: &'static str,
    feature: u32,
}

/// Writes `gpusat collide`'s result for `sat_hits` (a backend's output on
/// `batch`) to `out`: the hits with their normals and contact points, in
/// pair order, compact or `pretty`.
pub fn write_collide_output(
    out: &mut dyn Write,
    backend: &str,
    batch: &Batch,
    sat_hits: &[SatHit],
    pretty: bool,
) -> std::io::Result<()> {
    write_hit_stream(
        out,
        (backend, batch.pairs().len()),
        sat_hits,
        pretty,
        |sat_hit| {
            let hit = batch.hit(*sat_hit);
            let manifold = manifold(batch, &hit);
            HitRef {
                pair: hit.pair,
                a: hit.a,
                b: hit.b,
                normal: hit.normal.to_array(),
                depth: hit.depth,
                axis: AxisRef {
                    owner: owner_name(hit.axis.owner),
                    feature: hit.axis.feature,
                },
                contacts: Points::new(manifold.points().iter().map(|point| ContactOut {
                    point: point.point.to_array(),
                    depth: point.depth,
                    id: point.id,
                })),
            }
        },
    )
}

fn owner_name(owner: Owner) -> &'static str {
    match owner {
        Owner::A => "a",
        Owner::B => "b",
    }
}

impl HitOut {
    fn owner_name(hit: &Hit) -> String {
        owner_name(hit.axis.owner).to_string()
    }
}
