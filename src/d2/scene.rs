//! Scene files and result files (JSON).
//!
//! A scene is
//!
//! ```json
//! {"shapes": [{"polygon": [[x, y], ...]}, {"circle": r},
//!             {"polygon": [[x, y], ...], "radius": r},
//!             {"capsule": [[x, y], [x, y]], "radius": r},
//!             {"segment": [[x, y], [x, y]]}],
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

/// One shape as written in a scene file: one of `polygon`, `circle`,
/// `capsule` or `segment`, with `radius` beside a polygon (optional, 0 by
/// default) or a capsule (required).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawShapeDesc", into = "RawShapeDesc")]
pub enum ShapeDesc {
    /// A convex polygon's points, either winding, grown by `radius` (0: a
    /// plain polygon): `{"polygon": [[x, y], ...]}` or
    /// `{"polygon": [[x, y], ...], "radius": r}`.
    Polygon {
        /// Its points.
        points: Vec<[f32; 2]>,
        /// The radius it is grown by.
        radius: f32,
    },
    /// A circle's radius: `{"circle": r}`.
    Circle(f32),
    /// A capsule: `{"capsule": [[x, y], [x, y]], "radius": r}`.
    Capsule {
        /// Its core segment's two points.
        points: [[f32; 2]; 2],
        /// Its radius.
        radius: f32,
    },
    /// A segment: `{"segment": [[x, y], [x, y]]}`.
    Segment([[f32; 2]; 2]),
}

/// A shape's fields as the file has them; [`ShapeDesc`] is read through
/// this and checked (one kind, a radius only where it belongs).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawShapeDesc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    polygon: Option<Vec<[f32; 2]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    circle: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    capsule: Option<[[f32; 2]; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    segment: Option<[[f32; 2]; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    radius: Option<f32>,
}

impl TryFrom<RawShapeDesc> for ShapeDesc {
    type Error = String;

    fn try_from(raw: RawShapeDesc) -> Result<ShapeDesc, String> {
        let kinds = [
            raw.polygon.is_some(),
            raw.circle.is_some(),
            raw.capsule.is_some(),
            raw.segment.is_some(),
        ];
        if kinds.iter().filter(|&&kind| kind).count() != 1 {
            return Err(
                "a shape is one of \"polygon\", \"circle\", \"capsule\" or \"segment\" \
                 (this one names none or several)"
                    .to_string(),
            );
        }
        match raw {
            RawShapeDesc {
                polygon: Some(points),
                radius,
                ..
            } => Ok(ShapeDesc::Polygon {
                points,
                radius: radius.unwrap_or(0.0),
            }),
            RawShapeDesc {
                circle: Some(_),
                radius: Some(_),
                ..
            } => Err("a circle's radius is its value: {\"circle\": r}, no \"radius\"".to_string()),
            RawShapeDesc {
                circle: Some(radius),
                ..
            } => Ok(ShapeDesc::Circle(radius)),
            RawShapeDesc {
                capsule: Some(points),
                radius: Some(radius),
                ..
            } => Ok(ShapeDesc::Capsule { points, radius }),
            RawShapeDesc {
                capsule: Some(_), ..
            } => Err("a capsule needs a \"radius\"".to_string()),
            RawShapeDesc {
                segment: Some(_),
                radius: Some(_),
                ..
            } => Err("a segment has no radius (a segment with one is a capsule)".to_string()),
            RawShapeDesc {
                segment: Some(points),
                ..
            } => Ok(ShapeDesc::Segment(points)),
            _ => unreachable!("one kind was checked above"),
        }
    }
}

impl From<ShapeDesc> for RawShapeDesc {
    fn from(desc: ShapeDesc) -> RawShapeDesc {
        match desc {
            ShapeDesc::Polygon { points, radius } => RawShapeDesc {
                polygon: Some(points),
                radius: (radius != 0.0).then_some(radius),
                ..RawShapeDesc::default()
            },
            ShapeDesc::Circle(radius) => RawShapeDesc {
                circle: Some(radius),
                ..RawShapeDesc::default()
            },
            ShapeDesc::Capsule { points, radius } => RawShapeDesc {
                capsule: Some(points),
                radius: Some(radius),
                ..RawShapeDesc::default()
            },
            ShapeDesc::Segment(points) => RawShapeDesc {
                segment: Some(points),
                ..RawShapeDesc::default()
            },
        }
    }
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
                ShapeDesc::Polygon { points, radius } => {
                    let points: Vec<Vec2> = points.iter().map(|p| Vec2::from(*p)).collect();
                    shapes.add_rounded_polygon(&points, *radius)?;
                }
                ShapeDesc::Circle(radius) => {
                    shapes.add_circle(*radius)?;
                }
                ShapeDesc::Capsule {
                    points: [a, b],
                    radius,
                } => {
                    shapes.add_capsule(Vec2::from(*a), Vec2::from(*b), *radius)?;
                }
                ShapeDesc::Segment([a, b]) => {
                    shapes.add_segment(Vec2::from(*a), Vec2::from(*b))?;
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
