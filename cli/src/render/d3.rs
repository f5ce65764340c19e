//! Pictures of 3D scenes: a perspective camera, faces shaded by their
//! normal, back faces culled, drawn far to near (the painter's order of the
//! faces' centres), each outlined thinly; contact points as red dots.
//!
//! ```text
//! for each body (but the hidden ones), for each face of its hull (spheres:
//!     a 42-vertex hull scaled to the radius):
//!     world vertices; skip the face if its normal points away from the eye
//!     shade = base colour x (0.35 + 0.65 max(0, n . light))
//!     depth = static bodies: the farthest corner's distance along the view
//!             direction; moving ones: the face centre's
//! static faces first, then the moving ones (and the contact points), each
//! group farthest first; fill and outline each projected polygon
//! ```
//!
//! Drawing the static bodies first is right for a camera outside a box
//! looking into it (the demo's: the box's faces it sees are behind whatever
//! lies in it, its front wall cut away); a face ordered by its centre alone
//! would let a large floor cover the bodies standing on its far half.

use glam::{Vec2, Vec3};
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Stroke, Transform as SkTransform};

use gpusat::d3::math::{rotate, transform_point};
use gpusat::d3::{Body, Hull, Manifold, Shape, ShapeSet};

use crate::error::CliError as Error;

/// A pinhole camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    eye: Vec3,
    forward: Vec3,
    right: Vec3,
    up: Vec3,
    /// Pixels per unit of `tan(angle)` from the view axis.
    focal: f32,
    width: u32,
    height: u32,
}

impl Camera {
    /// At `eye`, looking at `target`, y up, a vertical field of view of
    /// `fov_y` radians, for a `width` x `height` picture.
    pub fn looking_at(eye: Vec3, target: Vec3, fov_y: f32, width: u32, height: u32) -> Camera {
        let forward = (target - eye).normalize();
        // Looking straight up or down: any horizontal right will do.
        let right = forward.cross(Vec3::Y).try_normalize().unwrap_or(Vec3::X);
        let up = right.cross(forward);
        Camera {
            eye,
            forward,
            right,
            up,
            focal: 0.5 * height as f32 / (0.5 * fov_y).tan(),
            width,
            height,
        }
    }

    /// The pixel of a world point and its depth along the view direction;
    /// `None` behind or too near the eye.
    pub fn project(&self, p: Vec3) -> Option<(Vec2, f32)> {
        let d = p - self.eye;
        let depth = d.dot(self.forward);
        if depth < 1e-3 {
            return None;
        }
        let x = 0.5 * self.width as f32 + self.focal * d.dot(self.right) / depth;
        let y = 0.5 * self.height as f32 - self.focal * d.dot(self.up) / depth;
        Some((Vec2::new(x, y), depth))
    }
}

/// What to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    pub width: u32,
    pub height: u32,
    /// Contact points as red dots.
    pub contacts: bool,
    /// Bodies not drawn (a box's front wall, cut away).
    pub hidden: Vec<usize>,
}

/// The unit sphere as a hull, for drawing spheres.
fn sphere_mesh() -> Option<Hull> {
    Hull::new(&sphere_points(42)).ok()
}

/// `count` points spread evenly over the unit sphere (a golden spiral).
fn sphere_points(count: usize) -> Vec<Vec3> {
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    (0..count)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f32 + 0.5) / count as f32;
            let ring = (1.0 - y * y).max(0.0).sqrt();
            let angle = golden * i as f32;
            Vec3::new(ring * angle.cos(), y, ring * angle.sin())
        })
        .collect()
}

/// The picture's mesh of a capsule or rounded hull: the hull of its core's
/// vertices each grown by a small sphere of the radius (fewer directions
/// the more vertices, under the hull's vertex limit). None for a plain
/// shape, or a mesh that cannot be built.
fn rounded_mesh(shape: &Shape) -> Option<Hull> {
    let (core, radius): (Vec<Vec3>, f32) = match shape {
        Shape::Capsule(capsule) => (capsule.points().to_vec(), capsule.radius()),
        Shape::RoundedHull(rounded) => (rounded.hull().vertices().to_vec(), rounded.radius()),
        Shape::Hull(_) | Shape::Sphere(_) => return None,
    };
    let directions = sphere_points((400 / core.len()).clamp(6, 42));
    let points: Vec<Vec3> = core
        .iter()
        .flat_map(|&v| directions.iter().map(move |&u| v + radius * u))
        .collect();
    Hull::new(&points).ok()
}

/// A colour per body: hues spread by the golden angle; static bodies grey.
fn base_colour(index: usize, body: &Body) -> Vec3 {
    if body.is_static() {
        return Vec3::new(0.78, 0.78, 0.76);
    }
    let hue = (index as f32 * 0.618_034).fract() * 6.0;
    let x = 1.0 - (hue % 2.0 - 1.0).abs();
    let (r, g, b) = match hue as u32 {
        0 => (1.0, x, 0.0),
        1 => (x, 1.0, 0.0),
        2 => (0.0, 1.0, x),
        3 => (0.0, x, 1.0),
        4 => (x, 0.0, 1.0),
        _ => (1.0, 0.0, x),
    };
    // Muted: mixed with grey.
    Vec3::new(0.35 + 0.55 * r, 0.35 + 0.55 * g, 0.35 + 0.55 * b)
}

/// What is drawn, far to near: a shaded face (outlined or not: spheres'
/// facets are not), or a contact point.
enum Item {
    Face {
        points: Vec<Vec2>,
        colour: Vec3,
        outline: bool,
    },
    Contact {
        at: Vec2,
        radius: f32,
    },
}

/// Draws the bodies from `camera`, with `manifolds`' points when asked.
pub fn render(
    shapes: &ShapeSet,
    bodies: &[Body],
    manifolds: &[Manifold],
    camera: &Camera,
    options: &RenderOptions,
) -> Result<Pixmap, Error> {
    let mut pixmap = Pixmap::new(options.width, options.height).ok_or_else(|| {
        Error::Render(format!(
            "cannot make a {}x{} picture",
            options.width, options.height
        ))
    })?;
    pixmap.fill(Color::from_rgba8(246, 246, 242, 255));
    let light = Vec3::new(-0.4, 1.0, 0.6).normalize();
    let sphere = sphere_mesh();
    let rounded: Vec<Option<Hull>> = shapes.shapes().iter().map(rounded_mesh).collect();
    let mut faces = Vec::new();
    for (index, body) in bodies.iter().enumerate() {
        if options.hidden.contains(&index) {
            continue;
        }
        let xf = body.transform();
        let (hull, scale, outline) = match shapes.get(body.shape) {
            Some(Shape::Hull(hull)) => (hull, 1.0, true),
            Some(Shape::Sphere(ball)) => match &sphere {
                Some(mesh) => (mesh, ball.radius(), false),
                None => continue,
            },
            Some(Shape::Capsule(_) | Shape::RoundedHull(_)) => {
                match &rounded[body.shape as usize] {
                    Some(mesh) => (mesh, 1.0, false),
                    None => continue,
                }
            }
            None => continue,
        };
        let colour = base_colour(index, body);
        for face in 0..hull.face_count() {
            let normal = rotate(xf.r, hull.normals()[face]);
            let corners: Vec<Vec3> = hull
                .face(face)
                .iter()
                .map(|&v| transform_point(xf, scale * hull.vertices()[v as usize]))
                .collect();
            let centre = corners.iter().copied().sum::<Vec3>() / corners.len() as f32;
            if normal.dot(camera.eye - centre) <= 0.0 {
                continue;
            }
            let projected: Option<Vec<(Vec2, f32)>> =
                corners.iter().map(|&c| camera.project(c)).collect();
            let Some(projected) = projected else {
                continue;
            };
            let shade = 0.35 + 0.65 * normal.dot(light).max(0.0);
            // Static bodies (the box) are drawn first, each face ordered by
            // its farthest corner: a floor runs under the walls that stand
            // on it, and a face's centre says nothing about a large face.
            // The moving bodies follow, ordered by their faces' centres.
            let depth = if body.is_static() {
                projected.iter().map(|(_, d)| *d).fold(f32::MIN, f32::max)
            } else {
                (centre - camera.eye).dot(camera.forward)
            };
            faces.push((
                (!body.is_static(), depth),
                Item::Face {
                    points: projected.into_iter().map(|(p, _)| p).collect(),
                    colour: colour * shade,
                    outline,
                },
            ));
        }
    }
    if options.contacts {
        // A point lies on both surfaces: drawn just before the faces at
        // its depth, so the bodies in front of it hide it.
        for point in manifolds.iter().flat_map(|m| m.points()) {
            if let Some((at, depth)) = camera.project(point.point) {
                let radius = (camera.focal * 0.012 / depth).clamp(1.0, 4.0);
                faces.push(((true, depth - 0.02), Item::Contact { at, radius }));
            }
        }
    }
    faces.sort_by(|a, b| a.0.0.cmp(&b.0.0).then(b.0.1.total_cmp(&a.0.1)));
    let outline = Stroke {
        width: 0.6,
        ..Stroke::default()
    };
    let mut edge_paint = Paint::default();
    edge_paint.set_color_rgba8(40, 40, 40, 110);
    edge_paint.anti_alias = true;
    let mut dot = Paint::default();
    dot.set_color_rgba8(210, 30, 30, 255);
    dot.anti_alias = true;
    for (_, item) in &faces {
        let (points, colour, outlined) = match item {
            Item::Face {
                points,
                colour,
                outline,
            } => (points, colour, *outline),
            Item::Contact { at, radius } => {
                if let Some(circle) = PathBuilder::from_circle(at.x, at.y, *radius) {
                    pixmap.fill_path(
                        &circle,
                        &dot,
                        FillRule::Winding,
                        SkTransform::identity(),
                        None,
                    );
                }
                continue;
            }
        };
        let mut path = PathBuilder::new();
        for (i, p) in points.iter().enumerate() {
            if i == 0 {
                path.move_to(p.x, p.y);
            } else {
                path.line_to(p.x, p.y);
            }
        }
        path.close();
        let Some(path) = path.finish() else {
            continue;
        };
        let mut paint = Paint::default();
        let channel = |c: f32| (c.clamp(0.0, 1.0) * 255.0) as u8;
        paint.set_color_rgba8(channel(colour.x), channel(colour.y), channel(colour.z), 255);
        paint.anti_alias = true;
        pixmap.fill_path(
            &path,
            &paint,
            FillRule::Winding,
            SkTransform::identity(),
            None,
        );
        if outlined {
            pixmap.stroke_path(&path, &edge_paint, &outline, SkTransform::identity(), None);
        }
    }
    Ok(pixmap)
}
