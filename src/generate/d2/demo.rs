//! `gpusat demo`'s scene: particles dropped into a container of static walls.

use glam::Vec2;
use rand::RngExt;

use super::super::rng;
use super::random_polygon;
use crate::core::error::Error;
use crate::d2::body::Body;
use crate::d2::shape::{Shape, ShapeSet};

/// `gpusat demo`'s particles.
pub const DEMO_PARTICLES: usize = 3000;
/// `gpusat demo`'s frames.
pub const DEMO_FRAMES: u64 = 300;
/// `gpusat demo`'s time step, in seconds.
pub const DEMO_DT: f32 = 1.0 / 60.0;
/// `gpusat demo`'s seed.
pub const DEMO_SEED: u64 = 1;

/// The demo: particles dropped into a container of static walls.
#[derive(Clone, Debug)]
pub struct DemoScene {
    /// The walls' and the particles' shapes.
    pub shapes: ShapeSet,
    /// The walls first (static), then the particles.
    pub bodies: Vec<Body>,
    /// How many of the bodies are walls.
    pub walls: usize,
    /// The inside of the container: the left wall's face.
    pub inner_left: f32,
    /// The right wall's face.
    pub inner_right: f32,
    /// The floor's top.
    pub floor: f32,
    /// Top of the walls.
    pub top: f32,
}

/// Which shapes the demo's particles are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DemoShapes {
    /// Polygons of 3 to 8 vertices.
    pub polygons: bool,
    /// Circles.
    pub circles: bool,
    /// Capsules.
    pub capsules: bool,
    /// Rounded polygons.
    pub rounded: bool,
}

impl DemoShapes {
    /// Polygons and circles.
    pub const PLAIN: DemoShapes = DemoShapes {
        polygons: true,
        circles: true,
        capsules: false,
        rounded: false,
    };
    /// Every kind.
    pub const ALL: DemoShapes = DemoShapes {
        polygons: true,
        circles: true,
        capsules: true,
        rounded: true,
    };
}

impl DemoScene {
    /// `particles` random polygons (3 to 8 vertices) and circles of radius
    /// 0.1 to 0.3, in a grid above the floor of a container sized for them,
    /// with random angles and a little sideways speed.
    pub fn new(particles: usize, seed: u64) -> Result<DemoScene, Error> {
        DemoScene::with_shapes(particles, seed, DemoShapes::PLAIN)
    }

    /// [`DemoScene::new`] with the particles' kinds of shape chosen:
    /// polygons, circles, capsules (0.2 to 0.5 long, radius 0.06 to 0.14)
    /// and rounded polygons (3 to 8 vertices, as wide as the polygons,
    /// grown by 0.03 to 0.08). Polygons and circles are drawn first, so
    /// [`DemoShapes::PLAIN`] is [`DemoScene::new`]'s scene.
    pub fn with_shapes(particles: usize, seed: u64, which: DemoShapes) -> Result<DemoScene, Error> {
        const SPACING: f32 = 0.65;
        let mut rng = rng(seed);
        let mut shapes = ShapeSet::new();
        let mut kinds = Vec::new();
        for _ in 0..48 {
            let radius = rng.random_range(0.12..=0.3);
            let count = rng.random_range(3..=8);
            let polygon = random_polygon(&mut rng, count, radius);
            if which.polygons {
                kinds.push(shapes.push(Shape::Polygon(polygon)));
            }
        }
        for _ in 0..16 {
            let radius = rng.random_range(0.1..=0.25);
            if which.circles {
                kinds.push(shapes.add_circle(radius)?);
            }
        }
        if which.capsules {
            for _ in 0..16 {
                let half = rng.random_range(0.1..=0.25);
                let radius = rng.random_range(0.06..=0.14);
                kinds.push(shapes.add_capsule(
                    Vec2::new(-half, 0.0),
                    Vec2::new(half, 0.0),
                    radius,
                )?);
            }
        }
        if which.rounded {
            for _ in 0..16 {
                let rounding = rng.random_range(0.03..=0.08);
                let radius = rng.random_range(0.12..=0.3) - rounding;
                let count = rng.random_range(3..=8);
                let core = random_polygon(&mut rng, count, radius);
                kinds.push(shapes.add_rounded_polygon(core.vertices(), rounding)?);
            }
        }
        if kinds.is_empty() {
            return Err(Error::Argument {
                name: "the demo's shapes",
                message: "name no kind of shape".to_string(),
            });
        }

        let width = (particles as f32 * 0.45).sqrt().max(6.0);
        let columns = ((width / SPACING).floor() as usize).max(1);
        let rows = particles.div_ceil(columns);
        let column_height = rows as f32 * SPACING;
        let top = column_height + 3.0;
        let half = 0.5 * width;
        let thickness = 1.0;
        let mut wall = |half_width: f32, half_height: f32| {
            shapes.add_polygon(&[
                Vec2::new(-half_width, -half_height),
                Vec2::new(half_width, -half_height),
                Vec2::new(half_width, half_height),
                Vec2::new(-half_width, half_height),
            ])
        };
        let floor_shape = wall(half + thickness, 0.5 * thickness)?;
        let side_shape = wall(0.5 * thickness, 0.5 * top + thickness)?;
        let mut bodies = vec![
            Body::fixed(floor_shape, Vec2::new(0.0, -0.5 * thickness), 0.0),
            Body::fixed(
                side_shape,
                Vec2::new(-half - 0.5 * thickness, 0.5 * top - thickness),
                0.0,
            ),
            Body::fixed(
                side_shape,
                Vec2::new(half + 0.5 * thickness, 0.5 * top - thickness),
                0.0,
            ),
        ];
        let walls = bodies.len();
        let left = -half + 0.5 * SPACING;
        for index in 0..particles {
            let (row, column) = (index / columns, index % columns);
            let jitter = Vec2::new(rng.random_range(-0.03..0.03), rng.random_range(-0.03..0.03));
            let position = Vec2::new(
                left + column as f32 * SPACING,
                0.5 * SPACING + row as f32 * SPACING,
            ) + jitter;
            let shape = kinds[rng.random_range(0..kinds.len())];
            let mut body = Body::new(
                shape,
                position,
                rng.random_range(-std::f32::consts::PI..std::f32::consts::PI),
            );
            body.velocity = Vec2::new(rng.random_range(-0.5..0.5), 0.0);
            bodies.push(body);
        }
        Ok(DemoScene {
            shapes,
            bodies,
            walls,
            inner_left: -half,
            inner_right: half,
            floor: 0.0,
            top,
        })
    }
}
