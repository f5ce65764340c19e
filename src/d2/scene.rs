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

use crate::core::error::Error;
use crate::core::pair::Pair;
use crate::core::scene::{MAX_SCENE_BYTES, PairDesc, is_zero, parse_json, read_scene_text};
use crate::d2::batch::Batch;
use crate::d2::body::Body;
use crate::d2::shape::ShapeSet;

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
