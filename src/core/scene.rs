//! What the scene files of both dimensions share: reading a file within a
//! size limit, parsing JSON with errors that name the place in the file,
//! and a candidate pair as written.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::Error;

pub(crate) fn is_zero(value: &f32) -> bool {
    *value == 0.0
}

/// A candidate pair as written: exactly two body indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct PairDesc(pub [u32; 2]);

impl<'de> Deserialize<'de> for PairDesc {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let indices = Vec::<u32>::deserialize(deserializer)?;
        match indices[..] {
            [a, b] => Ok(PairDesc([a, b])),
            _ => Err(serde::de::Error::invalid_length(
                indices.len(),
                &"two body indices [a, b]",
            )),
        }
    }
}

/// The largest scene file `Scene::load` (either dimension) reads. Parsing holds the text and
/// the scene at once (about 12 bytes of JSON and 8 of memory per pair), so
/// this bounds the memory a scene file can ask for to about 1 GiB.
pub const MAX_SCENE_BYTES: u64 = 512 << 20;

/// Reads a scene file's text, at most `limit` bytes of UTF-8.
pub(crate) fn read_scene_text(path: &Path, limit: u64) -> Result<String, Error> {
    use std::io::Read;
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io_error)?;
    // Read one byte past the limit: a file that grows, or a device that
    // never ends, is caught as surely as a large regular file.
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() as u64 > limit {
        return Err(Error::Input {
            file: path.display().to_string(),
            message: format!(
                "is larger than {limit} bytes, the limit for scene files ({} MiB by \
                 default, about 40 million pairs); split the batch",
                MAX_SCENE_BYTES >> 20
            ),
        });
    }
    String::from_utf8(bytes).map_err(|err| Error::Input {
        file: path.display().to_string(),
        message: format!("is not UTF-8 text ({err})"),
    })
}

/// Parses JSON into `T`, an error naming the place in the file.
pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(
    text: &str,
    file: &str,
) -> Result<T, Error> {
    let deserializer = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(deserializer).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        let message = if path == "." || path.is_empty() {
            inner.to_string()
        } else {
            format!("{path}: {inner}")
        };
        Error::Input {
            file: file.to_string(),
            message,
        }
    })
}
