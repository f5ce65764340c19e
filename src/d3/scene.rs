//! 3D scene files (JSON, the `serde` feature).
//!
//! A 3D scene is
//!
//! ```json
//! {"shapes": [{"hull": [[x, y, z], ...]}, {"sphere": r}, {"cuboid": [hx, hy, hz]},
//!             {"capsule": [[x, y, z], [x, y, z]], "radius": r},
//!             {"hull": [[x, y, z], ...], "radius": r}, {"cuboid": [hx, hy, hz], "radius": r}],
//!  "bodies": [{"shape": i, "position": [x, y, z], "rotation": [x, y, z, w], "inv_mass": m,
//!              "velocity": [x, y, z], "angular_velocity": [x, y, z]}],
//!  "pairs": [[a, b], ...],
//!  "margin": m}
//! ```
//!
//! with `rotation` the identity `[0, 0, 0, 1]` (a quaternion, normalised on
//! load; zero or non-finite is an error), `inv_mass` 1, velocities 0 and
//! `margin` 0 by default; without `pairs` the 3D broadphase finds them. A
//! hull is built from its points (see [`Hull::new`](super::Hull::new)); a
//! `radius` grows a hull or a box into a rounded one (0: a plain one) and
//! is a capsule's own.
//! Unknown fields are errors; every error names its place in the file.
//! [`crate::d2::scene::load_any`] reads a scene of either dimension.

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::batch::Batch;
use super::body::Body;
use super::shape::set::ShapeSet;
use crate::core::error::Error;
use crate::core::pair::Pair;
use crate::core::scene::{PairDesc, parse_json};

/// One 3D shape as written in a scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawShapeDesc", into = "RawShapeDesc")]
pub enum ShapeDesc {
    /// A convex hull's points (interior points are dropped), grown by
    /// `radius` (0: a plain hull): `{"hull": [[x, y, z], ...]}` or
    /// `{"hull": [[x, y, z], ...], "radius": r}`.
    Hull {
        /// Its points.
        points: Vec<[f32; 3]>,
        /// The radius it is grown by.
        radius: f32,
    },
    /// A sphere's radius: `{"sphere": r}`.
    Sphere(f32),
    /// A box's half extents, grown by `radius` (0: a plain box):
    /// `{"cuboid": [hx, hy, hz]}` or `{"cuboid": [hx, hy, hz], "radius": r}`.
    Cuboid {
        /// Its core's half extents.
        half_extents: [f32; 3],
        /// The radius it is grown by.
        radius: f32,
    },
    /// A capsule: `{"capsule": [[x, y, z], [x, y, z]], "radius": r}`.
    Capsule {
        /// Its core segment's two points.
        points: [[f32; 3]; 2],
        /// Its radius.
        radius: f32,
    },
}

/// A shape's fields as the file has them; [`ShapeDesc`] is read through
/// this and checked (one kind, a radius only where it belongs).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawShapeDesc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hull: Option<Vec<[f32; 3]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sphere: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cuboid: Option<[f32; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    capsule: Option<[[f32; 3]; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    radius: Option<f32>,
}

impl TryFrom<RawShapeDesc> for ShapeDesc {
    type Error = String;

    fn try_from(raw: RawShapeDesc) -> Result<ShapeDesc, String> {
        let kinds = [
            raw.hull.is_some(),
            raw.sphere.is_some(),
            raw.cuboid.is_some(),
            raw.capsule.is_some(),
        ];
        if kinds.iter().filter(|&&kind| kind).count() != 1 {
            return Err(
                "a shape is one of \"hull\", \"sphere\", \"cuboid\" or \"capsule\" \
                 (this one names none or several)"
                    .to_string(),
            );
        }
        let radius = raw.radius;
        match (raw.hull, raw.sphere, raw.cuboid, raw.capsule) {
            (Some(points), ..) => Ok(ShapeDesc::Hull {
                points,
                radius: radius.unwrap_or(0.0),
            }),
            (_, Some(_), ..) if radius.is_some() => {
                Err("a sphere's radius is its value: {\"sphere\": r}, no \"radius\"".to_string())
            }
            (_, Some(sphere), ..) => Ok(ShapeDesc::Sphere(sphere)),
            (_, _, Some(half_extents), _) => Ok(ShapeDesc::Cuboid {
                half_extents,
                radius: radius.unwrap_or(0.0),
            }),
            (.., Some(points)) => match radius {
                Some(radius) => Ok(ShapeDesc::Capsule { points, radius }),
                None => Err("a capsule needs a \"radius\"".to_string()),
            },
            (None, None, None, None) => Err("a shape names no kind".to_string()),
        }
    }
}

impl From<ShapeDesc> for RawShapeDesc {
    fn from(desc: ShapeDesc) -> RawShapeDesc {
        let radius = |r: f32| (r != 0.0).then_some(r);
        match desc {
            ShapeDesc::Hull { points, radius: r } => RawShapeDesc {
                hull: Some(points),
                radius: radius(r),
                ..RawShapeDesc::default()
            },
            ShapeDesc::Sphere(r) => RawShapeDesc {
                sphere: Some(r),
                ..RawShapeDesc::default()
            },
            ShapeDesc::Cuboid {
                half_extents,
                radius: r,
            } => RawShapeDesc {
                cuboid: Some(half_extents),
                radius: radius(r),
                ..RawShapeDesc::default()
            },
            ShapeDesc::Capsule { points, radius: r } => RawShapeDesc {
                capsule: Some(points),
                radius: Some(r),
                ..RawShapeDesc::default()
            },
        }
    }
}

const IDENTITY: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

fn identity() -> [f32; 4] {
    IDENTITY
}

fn is_identity(rotation: &[f32; 4]) -> bool {
    *rotation == IDENTITY
}

fn default_inv_mass() -> f32 {
    1.0
}

fn is_zero_vec(value: &[f32; 3]) -> bool {
    *value == [0.0; 3]
}

/// One 3D body as written in a scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyDesc {
    /// Index into `shapes`.
    pub shape: u32,
    /// Where the shape's origin sits.
    pub position: [f32; 3],
    /// A quaternion `[x, y, z, w]` (default the identity; normalised on load).
    #[serde(default = "identity", skip_serializing_if = "is_identity")]
    pub rotation: [f32; 4],
    /// Inverse mass (default 1; 0 for a static body).
    #[serde(default = "default_inv_mass")]
    pub inv_mass: f32,
    /// Velocity (default 0).
    #[serde(default, skip_serializing_if = "is_zero_vec")]
    pub velocity: [f32; 3],
    /// Angular velocity, radians per second about each axis (default 0).
    #[serde(default, skip_serializing_if = "is_zero_vec")]
    pub angular_velocity: [f32; 3],
}

/// A 3D scene file as written, before validation.
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
    #[serde(default, skip_serializing_if = "crate::core::scene::is_zero")]
    pub margin: f32,
}

/// A validated 3D scene.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The validated shapes.
    pub shapes: ShapeSet,
    /// The validated bodies (rotations normalised).
    pub bodies: Vec<Body>,
    /// The candidate pairs, when the file lists them.
    pub pairs: Option<Vec<Pair>>,
    /// The speculative margin.
    pub margin: f32,
    /// The shapes as written, to write the scene back unchanged.
    pub shape_descs: Vec<ShapeDesc>,
}

impl Scene {
    /// Parses and validates 3D scene JSON; `file` names it in errors.
    pub fn from_json(text: &str, file: &str) -> Result<Scene, Error> {
        let scene_file: SceneFile = parse_json(text, file)?;
        Scene::from_file(scene_file).map_err(|source| Error::InFile {
            file: file.to_string(),
            source: Box::new(source),
        })
    }

    /// Validates a parsed 3D scene file.
    pub fn from_file(file: SceneFile) -> Result<Scene, Error> {
        let mut shapes = ShapeSet::new();
        for desc in &file.shapes {
            match desc {
                ShapeDesc::Hull { points, radius } => {
                    let points: Vec<Vec3> = points.iter().map(|p| Vec3::from(*p)).collect();
                    shapes.add_rounded_hull(&points, *radius)?;
                }
                ShapeDesc::Sphere(radius) => {
                    shapes.add_sphere(*radius)?;
                }
                ShapeDesc::Cuboid {
                    half_extents,
                    radius,
                } => {
                    shapes.add_rounded_cuboid(Vec3::from(*half_extents), *radius)?;
                }
                ShapeDesc::Capsule { points, radius } => {
                    shapes.add_capsule(Vec3::from(points[0]), Vec3::from(points[1]), *radius)?;
                }
            }
        }
        let bodies: Vec<Body> = file
            .bodies
            .iter()
            .map(|desc| {
                let q = Quat::from_array(desc.rotation);
                // Normalised when it can be; a zero or non-finite one is
                // left for the validation to report.
                let length = q.length();
                let rotation = if length.is_finite() && length > 0.0 {
                    q / length
                } else {
                    q
                };
                Body {
                    shape: desc.shape,
                    position: Vec3::from(desc.position),
                    rotation,
                    inv_mass: desc.inv_mass,
                    velocity: Vec3::from(desc.velocity),
                    angular_velocity: Vec3::from(desc.angular_velocity),
                }
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
                    rotation: body.rotation.to_array(),
                    inv_mass: body.inv_mass,
                    velocity: body.velocity.to_array(),
                    angular_velocity: body.angular_velocity.to_array(),
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
