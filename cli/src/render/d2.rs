//! Pictures of 2D scenes, from above.
//!
//! Bodies are filled translucently, so that an overlap shows as a darker
//! blend where two shapes cover each other, with a thin dark outline; static
//! bodies are grey. Contact points are drawn as dots with a short line along
//! their normal. Pairs deeper than a threshold are outlined in red with their
//! minimum translation vector drawn as a red arrow from the deepest contact.

use glam::Vec2;
use tiny_skia::{
    Color, FillRule, LineCap, Paint, PathBuilder, Pixmap, Stroke, Transform as SkTransform,
};

use gpusat::math::transform_point;
use gpusat::{Body, Hit, Manifold, Shape, ShapeSet, body_aabb};

use crate::error::CliError as Error;

/// What to draw and how big.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderOptions {
    pub width: u32,
    pub height: u32,
    /// The world rectangle to show (`None`: all the bodies, with a border).
    pub view: Option<(Vec2, Vec2)>,
    pub contacts: bool,
    /// Pairs deeper than this are highlighted with their MTV (`None`: none).
    pub highlight_depth: Option<f32>,
}

impl Default for RenderOptions {
    fn default() -> RenderOptions {
        RenderOptions {
            width: 800,
            height: 600,
            view: None,
            contacts: true,
            highlight_depth: None,
        }
    }
}

/// World to pixel mapping, y up, aspect ratio kept.
struct Camera {
    scale: f32,
    offset: Vec2,
    height: f32,
}

impl Camera {
    fn new(min: Vec2, max: Vec2, width: u32, height: u32) -> Camera {
        let extent = (max - min).max(Vec2::splat(1e-6));
        let scale = (width as f32 / extent.x).min(height as f32 / extent.y);
        let used = extent * scale;
        let offset = Vec2::new(
            0.5 * (width as f32 - used.x),
            0.5 * (height as f32 - used.y),
        ) - min * scale;
        Camera {
            scale,
            offset,
            height: height as f32,
        }
    }

    fn pixel(&self, p: Vec2) -> (f32, f32) {
        let q = p * self.scale + self.offset;
        (q.x, self.height - q.y)
    }
}

fn color(r: u8, g: u8, b: u8, a: u8) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color(Color::from_rgba8(r, g, b, a));
    paint.anti_alias = true;
    paint
}

/// A fill colour per body, spread around the hue circle.
fn body_color(index: usize) -> (u8, u8, u8) {
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
    let channel = |c: f32| (60.0 + 170.0 * c) as u8;
    (channel(r), channel(g), channel(b))
}

/// The bounding rectangle of all bodies, with a 5% border.
pub fn scene_bounds(shapes: &ShapeSet, bodies: &[Body]) -> (Vec2, Vec2) {
    let (min, max) = bodies.iter().fold(
        (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
        |(lo, hi), body| {
            let aabb = body_aabb(shapes, body, 0.0);
            (lo.min(aabb.min), hi.max(aabb.max))
        },
    );
    if min.x > max.x {
        return (Vec2::splat(-1.0), Vec2::splat(1.0));
    }
    let border = 0.05 * (max - min).max_element().max(1e-3);
    (min - Vec2::splat(border), max + Vec2::splat(border))
}

/// Draws bodies, contacts and (optionally) highlighted overlaps.
pub fn render(
    shapes: &ShapeSet,
    bodies: &[Body],
    hits: &[Hit],
    manifolds: &[Manifold],
    options: &RenderOptions,
) -> Result<Pixmap, Error> {
    let mut pixmap = Pixmap::new(options.width, options.height).ok_or_else(|| {
        Error::Render(format!(
            "cannot make a {}x{} picture",
            options.width, options.height
        ))
    })?;
    pixmap.fill(Color::from_rgba8(250, 250, 247, 255));
    let (min, max) = options.view.unwrap_or_else(|| scene_bounds(shapes, bodies));
    let camera = Camera::new(min, max, options.width, options.height);
    let identity = SkTransform::identity();
    let outline = Stroke {
        width: 1.0,
        ..Stroke::default()
    };

    let highlighted: std::collections::HashSet<u32> = match options.highlight_depth {
        Some(limit) => hits
            .iter()
            .filter(|h| h.depth > limit)
            .flat_map(|h| [h.a, h.b])
            .collect(),
        None => Default::default(),
    };

    for (index, body) in bodies.iter().enumerate() {
        let xf = body.transform();
        let mut path = PathBuilder::new();
        let mut spoke = None;
        match shapes.get(body.shape) {
            Some(shape @ (Shape::Polygon(_) | Shape::Capsule(_) | Shape::Segment(_))) => {
                let edges = shape.edges().unwrap_or_default();
                for (i, p) in outline_points(edges, shape.radius())
                    .into_iter()
                    .enumerate()
                {
                    let (x, y) = camera.pixel(transform_point(xf, p));
                    if i == 0 {
                        path.move_to(x, y);
                    } else {
                        path.line_to(x, y);
                    }
                }
                path.close();
            }
            Some(Shape::Circle(circle)) => {
                let (x, y) = camera.pixel(xf.p);
                path.push_circle(x, y, (circle.radius() * camera.scale).max(0.5));
                // A radius shows how the circle turns.
                spoke = Some((xf.p, transform_point(xf, Vec2::new(circle.radius(), 0.0))));
            }
            None => continue,
        }
        let Some(path) = path.finish() else { continue };
        let fill = if body.is_static() {
            color(150, 150, 150, 255)
        } else {
            let (r, g, b) = body_color(index);
            color(r, g, b, 170)
        };
        pixmap.fill_path(&path, &fill, FillRule::Winding, identity, None);
        let edge = if highlighted.contains(&(index as u32)) {
            color(220, 20, 20, 255)
        } else {
            color(40, 40, 40, 220)
        };
        let stroke = if highlighted.contains(&(index as u32)) {
            Stroke {
                width: 2.0,
                ..Stroke::default()
            }
        } else {
            outline.clone()
        };
        if stroke.width < 1.5 && typical_pixels(&camera, shapes, body) < 4.0 {
            // Too small to outline without turning black.
        } else {
            pixmap.stroke_path(&path, &edge, &stroke, identity, None);
        }
        if let Some((from, to)) = spoke {
            line(&mut pixmap, &camera, from, to, &color(40, 40, 40, 200), 1.0);
        }
    }

    if options.contacts {
        let dot = color(10, 110, 30, 230);
        // Markers in proportion to the bodies: a third of a typical body
        // for the normals, so that they never hide the shapes.
        let typical = typical_size(shapes, bodies);
        let normal_length = 0.35 * typical;
        let dot_radius = (0.08 * typical * camera.scale).clamp(0.6, 3.0);
        for manifold in manifolds {
            for point in manifold.points() {
                let (x, y) = camera.pixel(point.point);
                if let Some(circle) = PathBuilder::from_circle(x, y, dot_radius) {
                    pixmap.fill_path(&circle, &dot, FillRule::Winding, identity, None);
                }
                line(
                    &mut pixmap,
                    &camera,
                    point.point,
                    point.point + manifold.normal * normal_length,
                    &dot,
                    1.0,
                );
            }
        }
    }

    if let Some(limit) = options.highlight_depth {
        let red = color(220, 20, 20, 255);
        for (hit, manifold) in hits.iter().zip(manifolds) {
            if hit.depth <= limit {
                continue;
            }
            let from = manifold
                .points()
                .iter()
                .max_by(|p, q| p.depth.total_cmp(&q.depth))
                .map_or(bodies[hit.b as usize].position, |p| p.point);
            // The MTV itself: where B must move; at least a few pixels long.
            let length = hit.depth.max(8.0 / camera.scale);
            let to = from + hit.normal * length;
            line(&mut pixmap, &camera, from, to, &red, 2.0);
            let side = Vec2::new(-hit.normal.y, hit.normal.x) * (4.0 / camera.scale);
            let back = to - hit.normal * (6.0 / camera.scale);
            line(&mut pixmap, &camera, to, back + side, &red, 2.0);
            line(&mut pixmap, &camera, to, back - side, &red, 2.0);
        }
    }
    Ok(pixmap)
}

fn typical_pixels(camera: &Camera, shapes: &ShapeSet, body: &Body) -> f32 {
    shapes.get(body.shape).map_or(0.0, |s| s.size()) * camera.scale
}

/// The median size of the dynamic bodies' shapes (all bodies if none move).
fn typical_size(shapes: &ShapeSet, bodies: &[Body]) -> f32 {
    let mut sizes: Vec<f32> = bodies
        .iter()
        .filter(|b| !b.is_static())
        .filter_map(|b| shapes.get(b.shape).map(|s| s.size()))
        .collect();
    if sizes.is_empty() {
        sizes = bodies
            .iter()
            .filter_map(|b| shapes.get(b.shape).map(|s| s.size()))
            .collect();
    }
    if sizes.is_empty() {
        return 1.0;
    }
    let middle = sizes.len() / 2;
    sizes.select_nth_unstable_by(middle, f32::total_cmp);
    sizes[middle]
}

fn line(pixmap: &mut Pixmap, camera: &Camera, from: Vec2, to: Vec2, paint: &Paint, width: f32) {
    let mut path = PathBuilder::new();
    let (x0, y0) = camera.pixel(from);
    let (x1, y1) = camera.pixel(to);
    path.move_to(x0, y0);
    path.line_to(x1, y1);
    if let Some(path) = path.finish() {
        let stroke = Stroke {
            width,
            line_cap: LineCap::Round,
            ..Stroke::default()
        };
        pixmap.stroke_path(&path, paint, &stroke, SkTransform::identity(), None);
    }
}

/// The outline of a core (its faces: vertices and outward normals) grown by
/// `radius`, counter-clockwise: each face moved out by the radius, and at
/// each vertex an arc from the face before to the face after, in steps of
/// at most 15 degrees. With no radius, the core's vertices (a segment: its
/// two points).
fn outline_points(edges: &[gpusat::EdgeRecord], radius: f32) -> Vec<Vec2> {
    if radius <= 0.0 {
        return edges.iter().map(|edge| edge.vertex).collect();
    }
    let count = edges.len();
    let mut points = Vec::new();
    for i in 0..count {
        let before = edges[(i + count - 1) % count].normal;
        let after = edges[i].normal;
        let mut turn = before.perp_dot(after).atan2(before.dot(after));
        if turn <= 0.0 {
            turn += std::f32::consts::TAU;
        }
        let steps = (turn / 15f32.to_radians()).ceil().max(1.0) as usize;
        for k in 0..=steps {
            let angle = turn * k as f32 / steps as f32;
            let (sin, cos) = angle.sin_cos();
            let direction = Vec2::new(
                before.x * cos - before.y * sin,
                before.x * sin + before.y * cos,
            );
            points.push(edges[i].vertex + radius * direction);
        }
    }
    points
}
