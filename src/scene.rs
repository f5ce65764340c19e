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

use crate::body::Body;
use crate::error::Error;
use crate::narrowphase::{Batch, Hit, Owner, Pair};
use crate::shape::ShapeSet;

/// One shape as written in a scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum ShapeDesc {
    Polygon(Vec<[f32; 2]>),
    Circle(f32),
}

fn default_inv_mass() -> f32 {
    1.0
}

fn is_zero(value: &f32) -> bool {
    *value == 0.0
}

fn is_zero_vec(value: &[f32; 2]) -> bool {
    *value == [0.0, 0.0]
}

/// One body as written in a scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyDesc {
    pub shape: u32,
    pub position: [f32; 2],
    #[serde(default, skip_serializing_if = "is_zero")]
    pub angle: f32,
    #[serde(default = "default_inv_mass")]
    pub inv_mass: f32,
    #[serde(default, skip_serializing_if = "is_zero_vec")]
    pub velocity: [f32; 2],
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
    pub shapes: Vec<ShapeDesc>,
    pub bodies: Vec<BodyDesc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs: Option<Vec<PairDesc>>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub margin: f32,
}

/// A validated scene.
#[derive(Clone, Debug)]
pub struct Scene {
    pub shapes: ShapeSet,
    pub bodies: Vec<Body>,
    /// The candidate pairs, when the file lists them.
    pub pairs: Option<Vec<Pair>>,
    pub margin: f32,
    /// The shapes as written, to write the scene back unchanged.
    pub shape_descs: Vec<ShapeDesc>,
}

/// The largest scene file `Scene::load` reads. Parsing holds the text and
/// the scene at once (about 12 bytes of JSON and 8 of memory per pair), so
/// this bounds the memory a scene file can ask for to about 1 GiB.
pub const MAX_SCENE_BYTES: u64 = 512 << 20;

impl Scene {
    /// Reads and validates a scene file of at most [`MAX_SCENE_BYTES`].
    pub fn load(path: &Path) -> Result<Scene, Error> {
        Scene::load_limited(path, MAX_SCENE_BYTES)
    }

    /// [`Scene::load`] with another size limit, in bytes.
    pub fn load_limited(path: &Path, limit: u64) -> Result<Scene, Error> {
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
        let text = String::from_utf8(bytes).map_err(|err| Error::Input {
            file: path.display().to_string(),
            message: format!("is not UTF-8 text ({err})"),
        })?;
        Scene::from_json(&text, &path.display().to_string())
    }

    /// Parses and validates scene JSON; `file` names it in errors.
    pub fn from_json(text: &str, file: &str) -> Result<Scene, Error> {
        let deserializer = &mut serde_json::Deserializer::from_str(text);
        let scene_file: SceneFile =
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
            })?;
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

/// A contact point as written in a result file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactOut {
    pub point: [f32; 2],
    pub depth: f32,
    pub id: u32,
}

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
    pub pair: u32,
    pub a: u32,
    pub b: u32,
    pub normal: [f32; 2],
    pub depth: f32,
    pub axis: AxisOut,
    pub contacts: Vec<ContactOut>,
}

impl HitOut {
    pub fn new(hit: &Hit, contacts: Vec<ContactOut>) -> HitOut {
        HitOut {
            pair: hit.pair,
            a: hit.a,
            b: hit.b,
            normal: hit.normal.to_array(),
            depth: hit.depth,
            axis: AxisOut {
                owner: match hit.axis.owner {
                    Owner::A => "a".to_string(),
                    Owner::B => "b".to_string(),
                },
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
    pub backend: String,
    pub pairs_tested: u64,
    pub hits: Vec<HitOut>,
}

/// Writes `contents` to `path` through a temporary file in the same folder,
/// so that a failure never leaves a partial file behind.
pub fn write_atomically(path: &Path, contents: &[u8]) -> Result<(), Error> {
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".to_string());
    let temporary = path.with_file_name(format!(".{file_name}.{}.tmp", std::process::id()));
    std::fs::write(&temporary, contents).map_err(io_error)?;
    std::fs::rename(&temporary, path).map_err(|source| {
        let _ = std::fs::remove_file(&temporary);
        io_error(source)
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
