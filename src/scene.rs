//! Scene files of either dimension: [`load_any`] tells a 2D scene from a 3D
//! one by its shapes' kinds.

use std::path::Path;

use serde::Deserialize;

use crate::core::error::Error;
use crate::core::scene::{MAX_SCENE_BYTES, read_scene_text};
use crate::d2::Scene;

/// A validated scene of either dimension.
#[derive(Clone, Debug)]
pub enum AnyScene {
    /// Polygons and circles.
    Planar(Scene),
    /// Hulls, spheres and boxes ([`crate::d3::Scene`]).
    Spatial(crate::d3::Scene),
}

/// Which dimension a shape belongs to, by its kind (a capsule, of either,
/// by its points' coordinates).
fn shape_dimension(kind: &str, value: &serde_json::Value) -> Option<u8> {
    match kind {
        "polygon" | "circle" | "segment" => Some(2),
        "hull" | "sphere" | "cuboid" => Some(3),
        "capsule" => match value
            .get(0)
            .and_then(|point| point.as_array())
            .map(Vec::len)
        {
            Some(2) => Some(2),
            Some(3) => Some(3),
            _ => None,
        },
        _ => None,
    }
}

/// Reads and validates a scene file of either dimension, of at most
/// [`MAX_SCENE_BYTES`]: 3D when its shapes are 3D (`hull`, `sphere`,
/// `cuboid`, a `capsule` of 3D points), 2D otherwise. Mixing 2D and 3D shapes is an error naming the
/// first shape of the other kind.
pub fn load_any(path: &Path) -> Result<AnyScene, Error> {
    let text = read_scene_text(path, MAX_SCENE_BYTES)?;
    any_from_json(&text, &path.display().to_string())
}

/// [`load_any`] on JSON text; `file` names it in errors.
pub fn any_from_json(text: &str, file: &str) -> Result<AnyScene, Error> {
    /// Only the shapes' kinds: everything else is skipped unread.
    #[derive(Deserialize)]
    struct Probe {
        shapes: Vec<std::collections::BTreeMap<String, serde_json::Value>>,
    }
    let mut dimension = None;
    if let Ok(probe) = serde_json::from_str::<Probe>(text) {
        let mut first: Option<(usize, &str, u8)> = None;
        for (index, shape) in probe.shapes.iter().enumerate() {
            // The kind is the shape's field other than its radius.
            let Some((kind, value)) = shape.iter().find(|(key, _)| key.as_str() != "radius") else {
                continue;
            };
            let kind = kind.as_str();
            let Some(this) = shape_dimension(kind, value) else {
                continue;
            };
            match first {
                None => first = Some((index, kind, this)),
                Some((first_index, first_kind, first_dimension)) if first_dimension != this => {
                    return Err(Error::Input {
                        file: file.to_string(),
                        message: format!(
                            "shapes[{index}]: a {this}D shape ({kind:?}) in a scene whose \
                             shapes[{first_index}] is {first_dimension}D ({first_kind:?}); a scene \
                             is all 2D (polygon, circle, segment, capsule of 2D points) or \
                             all 3D (hull, sphere, cuboid, capsule of 3D points)"
                        ),
                    });
                }
                Some(_) => {}
            }
        }
        dimension = first.map(|(_, _, d)| d);
    }
    match dimension {
        Some(3) => crate::d3::Scene::from_json(text, file).map(AnyScene::Spatial),
        _ => Scene::from_json(text, file).map(AnyScene::Planar),
    }
}
