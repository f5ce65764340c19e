//! Scene files and result files (JSON).
//!
//! A scene is
//!
//! ```json
//! {"shapes": [{"polygon": [[x, y], ...]}, {"circle": r}],
//!  "bodies": [{"shape": i, "position": [x, y], "angle": radians, "inv_mass": m,
//!              "velocity": [x, y], "angular_velocity": w}],
//!  "pairs": [[a, b], ...],
//!  "margin": m}
//! ```
//!
//! with `angle` 0, `inv_mass` 1, `velocity` [0, 0], `angular_velocity` 0 and
//! `margin` 0 by default; `pairs` lists body indices. Unknown fields are
//! errors. Loading validates everything and reports the first problem with
//! its place in the file (`bodies[3].position`, `shape 2 is not convex ...`).

use std::path::Path;

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::batch::Batch;
use crate::body::Body;
use crate::error::Error;
use crate::shape::ShapeSet;
use crate::types::Pair;

/// One shape as written in a scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum ShapeDesc {
    /// A convex polygon's points, either winding: `{"polygon": [[x, y], ...]}`.
    Polygon(Vec<[f32; 2]>),
    /// A circle's radius: `{"circle": r}`.
    Circle(f32),
}

fn default_inv_mass() -> f32 {
    1.0
}

pub(crate) fn is_zero(value: &f32) -> bool {
    *value == 0.0
}

fn is_zero_vec(value: &[f32; 2]) -> bool {
    *value == [0.0, 0.0]
}

/// One body as written in a scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyDesc {
    /// Index into `shapes`.
    pub shape: u32,
    /// Where the shape's origin sits.
    pub position: [f32; 2],
    /// Rotation in radians (default 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub angle: f32,
    /// Inverse mass (default 1; 0 for a static body).
    #[serde(default = "default_inv_mass")]
    pub inv_mass: f32,
    /// Velocity (default 0).
    #[serde(default, skip_serializing_if = "is_zero_vec")]
    pub velocity: [f32; 2],
    /// Angular velocity in radians per second (default 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub angular_velocity: f32,
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

/// A scene file as written, before validation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// The shape library.
    pub shapes: Vec<ShapeDesc>,
    /// The bodies.
    pub bodies: Vec<BodyDesc>,
    /// Candidate pairs; without them the broadphase finds them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs: Option<Vec<PairDesc>>,
    /// Speculative margin (default 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub margin: f32,
}

/// A validated scene.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The validated shapes.
    pub shapes: ShapeSet,
    /// The validated bodies.
    pub bodies: Vec<Body>,
    /// The candidate pairs, when the file lists them.
    pub pairs: Option<Vec<Pair>>,
    /// The speculative margin.
    pub margin: f32,
    /// The shapes as written, to write the scene back unchanged.
    pub shape_descs: Vec<ShapeDesc>,
}

/// The largest scene file `Scene::load` reads. Parsing holds the text and
/// the scene at once (about 12 bytes of JSON and 8 of memory per pair), so
/// this bounds the memory a scene file can ask for to about 1 GiB.
pub const MAX_SCENE_BYTES: u64 = 512 << 20;

/// Reads a scene file's text, at most `limit` bytes of UTF-8.
fn read_scene_text(path: &Path, limit: u64) -> Result<String, Error> {
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

/// A validated scene of either dimension.
#[derive(Clone, Debug)]
pub enum AnyScene {
    /// Polygons and circles.
    Planar(Scene),
    /// Hulls, spheres and boxes ([`crate::d3::Scene`]).
    Spatial(crate::d3::Scene),
}

/// Which dimension a shape kind belongs to.
fn shape_dimension(kind: &str) -> Option<u8> {
    match kind {
        "polygon" | "circle" => Some(2),
        "hull" | "sphere" | "cuboid" => Some(3),
        _ => None,
    }
}

/// Reads and validates a scene file of either dimension, of at most
/// [`MAX_SCENE_BYTES`]: 3D when its shapes are 3D (`hull`, `sphere`,
/// `cuboid`), 2D otherwise. Mixing 2D and 3D shapes is an error naming the
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
        shapes: Vec<std::collections::BTreeMap<String, serde::de::IgnoredAny>>,
    }
    let mut dimension = None;
    if let Ok(probe) = serde_json::from_str::<Probe>(text) {
        let kinds = probe
            .shapes
            .iter()
            .map(|shape| shape.keys().next().map(String::as_str).unwrap_or(""));
        let mut first: Option<(usize, &str, u8)> = None;
        for (index, kind) in kinds.enumerate() {
            let Some(this) = shape_dimension(kind) else {
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
                             is all 2D (polygon, circle) or all 3D (hull, sphere, cuboid)"
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

impl Scene {
    /// Reads and validates a scene file of at most [`MAX_SCENE_BYTES`].
    pub fn load(path: &Path) -> Result<Scene, Error> {
        Scene::load_limited(path, MAX_SCENE_BYTES)
    }

    /// [`Scene::load`] with another size limit, in bytes.
    pub fn load_limited(path: &Path, limit: u64) -> Result<Scene, Error> {
        let text = read_scene_text(path, limit)?;
        Scene::from_json(&text, &path.display().to_string())
    }

    /// Parses and validates scene JSON; `file` names it in errors.
    pub fn from_json(text: &str, file: &str) -> Result<Scene, Error> {
        let scene_file: SceneFile = parse_json(text, file)?;
        Scene::from_file(scene_file).map_err(|source| Error::InFile {
            file: file.to_string(),
            source: Box::new(source),
        })
    }

    /// Validates a parsed scene file.
    pub fn from_file(file: SceneFile) -> Result<Scene, Error> {
        let mut shapes = ShapeSet::new();
        for desc in &file.shapes {
            match desc {
                ShapeDesc::Polygon(points) => {
                    let points: Vec<Vec2> = points.iter().map(|p| Vec2::from(*p)).collect();
                    shapes.add_polygon(&points)?;
                }
                ShapeDesc::Circle(radius) => {
                    shapes.add_circle(*radius)?;
                }
            }
        }
        let bodies: Vec<Body> = file
            .bodies
            .iter()
            .map(|desc| Body {
                shape: desc.shape,
                position: Vec2::from(desc.position),
                angle: desc.angle,
                inv_mass: desc.inv_mass,
                velocity: Vec2::from(desc.velocity),
                angular_velocity: desc.angular_velocity,
            })
            .collect();
        let pairs: Option<Vec<Pair>> = file.pairs.as_ref().map(|pairs| {
            pairs
                .iter()
                .map(|PairDesc([a, b])| Pair::new(*a, *b))
                .collect()
        });
        let scene = Scene {
            shapes,
            bodies,
            pairs,
            margin: file.margin,
            shape_descs: file.shapes,
        };
        // Validate bodies, pairs and margin now, so that loading fails rather
        // than a later step.
        scene.batch_with(scene.pairs.as_deref().unwrap_or(&[]))?;
        Ok(scene)
    }

    /// The scene's own pairs as a narrowphase batch (no pairs: an empty batch).
    pub fn batch(&self) -> Result<Batch<'_>, Error> {
        self.batch_with(self.pairs.as_deref().unwrap_or(&[]))
    }

    /// A batch over this scene's shapes and bodies with other pairs.
    pub fn batch_with<'a>(&'a self, pairs: &'a [Pair]) -> Result<Batch<'a>, Error> {
        Batch::new(&self.shapes, &self.bodies, pairs, self.margin)
    }

    /// The scene file form, with the bodies as they are now.
    pub fn to_file(&self) -> SceneFile {
        SceneFile {
            shapes: self.shape_descs.clone(),
            bodies: self
                .bodies
                .iter()
                .map(|body| BodyDesc {
                    shape: body.shape,
                    position: body.position.to_array(),
                    angle: body.angle,
                    inv_mass: body.inv_mass,
                    velocity: body.velocity.to_array(),
                    angular_velocity: body.angular_velocity,
                })
                .collect(),
            pairs: self
                .pairs
                .as_ref()
                .map(|pairs| pairs.iter().map(|p| PairDesc([p.a, p.b])).collect()),
            margin: self.margin,
        }
    }
}
