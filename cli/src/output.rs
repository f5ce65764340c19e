//! Result files: `gpusat collide`'s output, written as it is computed, and
//! files written whole or not at all.
//!
//! The output of a large batch is streamed: the hits go out in chunks, each
//! chunk's contacts built and formatted on all cores while the previous one
//! is written, so that memory holds a few chunks, never the whole file.
//! Compact JSON by default (about 220 bytes per hit); `--pretty` indents it
//! for people, keeping arrays of numbers on one line.

use std::io::Write;
use std::path::Path;

use gpusat::{Batch, Hit, Owner, SatHit, manifold};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::CliError;

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

/// Up to `N` contact points, kept inline (no allocation per hit) and
/// written as a JSON array.
pub(crate) struct Points<T, const N: usize> {
    items: [Option<T>; N],
}

impl<T: Copy, const N: usize> Points<T, N> {
    pub(crate) fn new(points: impl Iterator<Item = T>) -> Self {
        let mut items = [None; N];
        for (slot, point) in items.iter_mut().zip(points) {
            *slot = Some(point);
        }
        Points { items }
    }
}

impl<T: Serialize, const N: usize> Serialize for Points<T, N> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let count = self.items.iter().flatten().count();
        let mut seq = serializer.serialize_seq(Some(count))?;
        for item in self.items.iter().flatten() {
            seq.serialize_element(item)?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct AxisRef {
    owner: &'static str,
    feature: u32,
}

/// Hits per chunk of the stream: small enough that a few chunks in memory
/// are a few megabytes, large enough to keep every core busy.
const CHUNK_HITS: usize = 8192;

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

/// The result file's frame around the hits, each hit made by `record` and
/// formatted on all cores a chunk at a time (either dimension).
pub(crate) fn write_hit_stream<H: Sync, R: Serialize>(
    out: &mut dyn Write,
    (backend, pairs): (&str, usize),
    sat_hits: &[H],
    pretty: bool,
    record: impl Fn(&H) -> R + Sync,
) -> std::io::Result<()> {
    if pretty {
        write!(
            out,
            "{{\n  \"backend\": {},\n  \"pairs_tested\": {pairs},\n  \"hits\": [",
            serde_json::to_string(backend)?
        )?;
    } else {
        write!(
            out,
            "{{\"backend\":{},\"pairs_tested\":{pairs},\"hits\":[",
            serde_json::to_string(backend)?
        )?;
    }
    let group = CHUNK_HITS * rayon::current_num_threads().max(1) * 2;
    let mut first = true;
    for hits in sat_hits.chunks(group) {
        let texts: Vec<std::io::Result<Vec<u8>>> = hits
            .par_chunks(CHUNK_HITS)
            .map(|chunk| format_chunk(chunk, pretty, &record))
            .collect();
        for text in texts {
            let text = text?;
            if text.is_empty() {
                continue;
            }
            if !first {
                out.write_all(b",")?;
            }
            out.write_all(&text)?;
            first = false;
        }
    }
    if pretty {
        if first {
            out.write_all(b"]\n}\n")?;
        } else {
            out.write_all(b"\n  ]\n}\n")?;
        }
    } else {
        out.write_all(b"]}\n")?;
    }
    Ok(())
}

/// One chunk of hits as JSON, joined by commas.
fn format_chunk<H, R: Serialize>(
    chunk: &[H],
    pretty: bool,
    record: &impl Fn(&H) -> R,
) -> std::io::Result<Vec<u8>> {
    let mut text = Vec::with_capacity(chunk.len() * if pretty { 480 } else { 240 });
    for (index, sat_hit) in chunk.iter().enumerate() {
        let hit_ref = record(sat_hit);
        if index > 0 {
            text.push(b',');
        }
        if pretty {
            let json = to_json_pretty(&hit_ref).map_err(std::io::Error::other)?;
            for line in json.trim_end().lines() {
                text.extend_from_slice(b"\n    ");
                text.extend_from_slice(line.as_bytes());
            }
        } else {
            serde_json::to_writer(&mut text, &hit_ref)?;
        }
    }
    Ok(text)
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

/// Writes `path` through a temporary file in the same folder, renamed into
/// place once `write` succeeds: a failure never leaves a partial file behind.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let file_error = |source| CliError::File {
        path: path.to_path_buf(),
        source,
    };
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".to_string());
    let temporary = path.with_file_name(format!(".{file_name}.{}.tmp", std::process::id()));
    let written = (|| {
        let file = std::fs::File::create(&temporary).map_err(file_error)?;
        let mut writer = std::io::BufWriter::with_capacity(1 << 20, file);
        write(&mut writer)?;
        writer.flush().map_err(file_error)?;
        drop(
            writer
                .into_inner()
                .map_err(|err| file_error(err.into_error()))?,
        );
        std::fs::rename(&temporary, path).map_err(file_error)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Writes `contents` to `path` whole or not at all.
pub fn write_atomically(path: &Path, contents: &[u8]) -> Result<(), CliError> {
    write_atomically_with(path, |out| {
        out.write_all(contents).map_err(|source| CliError::File {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// JSON for people: serde_json's pretty layout, with arrays of plain values
/// (coordinates, pairs) kept on one line.
pub fn to_json_pretty<T: Serialize>(value: &T) -> Result<String, serde_json::Error> {
    let pretty = serde_json::to_string_pretty(value)?;
    let mut out = String::with_capacity(pretty.len());
    let mut rest = pretty.as_str();
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        // Innermost arrays of numbers only: no nesting, no strings.
        let inner_end = rest.find(['[', ']', '{', '"']);
        match inner_end {
            Some(close) if rest.as_bytes()[close] == b']' => {
                let items: Vec<&str> = rest[..close]
                    .split(',')
                    .map(str::trim)
                    .filter(|item| !item.is_empty())
                    .collect();
                out.push_str(&items.join(", "));
                out.push(']');
                rest = &rest[close + 1..];
            }
            _ => {}
        }
    }
    out.push_str(rest);
    out.push('\n');
    Ok(out)
}

/// A 3D contact point as written in a result file.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactOut3 {
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
    /// `[edge of A, edge of B]`.
    Two([u32; 2]),
}

/// A 3D axis as written: `{"kind": "face_a" | "face_b" | "edges" | "edge_a"
/// | "edge_b" | "vertex_a" | "vertex_b" | "centres", "feature": ...}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisOut3 {
    /// What the normal came from.
    pub kind: String,
    /// Which features.
    pub feature: FeatureOut,
}

/// One reported 3D pair as written in a result file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HitOut3 {
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
    pub axis: AxisOut3,
    /// One to four contact points.
    pub contacts: Vec<ContactOut3>,
}

/// The result file of `gpusat collide` on a 3D scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollideOutput3 {
    /// The backend that ran.
    pub backend: String,
    /// Candidate pairs tested.
    pub pairs_tested: u64,
    /// The reported pairs, in pair order.
    pub hits: Vec<HitOut3>,
}

/// A 3D axis's name and feature as written.
pub fn axis_out3(axis: gpusat::d3::Axis) -> (&'static str, FeatureOut) {
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
    }
}

#[derive(Serialize)]
struct AxisRef3 {
    kind: &'static str,
    feature: FeatureOut,
}

#[derive(Serialize)]
struct HitRef3 {
    pair: u32,
    a: u32,
    b: u32,
    normal: [f32; 3],
    depth: f32,
    axis: AxisRef3,
    contacts: Points<ContactOut3, 4>,
}

/// [`write_collide_output`] for a 3D batch: normals and contact points in
/// 3D, the axis as a kind and features.
pub fn write_collide_output3(
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
            let (kind, feature) = axis_out3(hit.axis);
            HitRef3 {
                pair: hit.pair,
                a: hit.a,
                b: hit.b,
                normal: hit.normal.to_array(),
                depth: hit.depth,
                axis: AxisRef3 { kind, feature },
                contacts: Points::new(manifold.points().iter().map(|point| ContactOut3 {
                    point: point.point.to_array(),
                    depth: point.depth,
                    id: point.id,
                })),
            }
        },
    )
}
