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

use rayon::prelude::*;
use serde::Serialize;

use crate::error::CliError;

pub mod d2;
pub mod d3;

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

/// Hits per chunk of the stream: small enough that a few chunks in memory
/// are a few megabytes, large enough to keep every core busy.
const CHUNK_HITS: usize = 8192;

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
