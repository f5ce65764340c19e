//! `gpusat demo --dim 3`'s scene: hulls, boxes, spheres, capsules and
//! rounded hulls and boxes dropped into an open static box.

use glam::{Quat, Vec3};
use rand::RngExt;

use super::super::rng;
use super::{random_direction, random_hull, random_rotation};
use crate::core::error::Error;
use crate::d3::{Body, Shape, ShapeSet};

/// `gpusat demo --dim 3`'s bodies.
pub const DEMO_BODIES: usize = 1000;

/// One over the density of the bodies: the volume of a unit mass, a cube
/// 0.25 across.
const DENSITY_VOLUME: f32 = 0.25 * 0.25 * 0.25;

/// Which shapes the 3D demo's bodies are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DemoShapes {
    /// Hulls of 4 to 64 vertices.
    pub hulls: bool,
    /// Boxes.
    pub boxes: bool,
    /// Spheres.
    pub spheres: bool,
    /// Capsules.
    pub capsules: bool,
    /// Rounded hulls and boxes.
    pub rounded: bool,
}

impl DemoShapes {
    /// Hulls, boxes and spheres: the kinds every backend collides.
    pub const PLAIN: DemoShapes = DemoShapes {
        hulls: true,
        boxes: true,
        spheres: true,
        capsules: false,
        rounded: false,
    };
    /// The kinds the GPU kernels collide with each other: all but the
    /// rounded hulls and boxes, whose pairs with the demo's hulls of more
    /// than `gpu::ROUNDED_HULL_VERTICES` (32) vertices they do not take.
    pub const GPU: DemoShapes = DemoShapes {
        hulls: true,
        boxes: true,
        spheres: true,
        capsules: true,
        rounded: false,
    };
    /// Every kind.
    pub const ALL: DemoShapes = DemoShapes {
        hulls: true,
        boxes: true,
        spheres: true,
        capsules: true,
        rounded: true,
    };
}

/// The 3D demo: bodies dropped into an open box of static walls.
#[derive(Clone, Debug)]
pub struct DemoScene {
    /// The walls' and the bodies' shapes.
    pub shapes: ShapeSet,
    /// The walls first (static: floor, back, left, right, front), then the
    /// falling bodies.
    pub bodies: Vec<Body>,
    /// How many of the bodies are walls.
    pub walls: usize,
    /// Half the inner width of the box (x and z).
    pub half_width: f32,
    /// The height of its walls.
    pub wall_height: f32,
    /// Where the bodies start: the top of their column.
    pub top: f32,
}

impl DemoScene {
    /// `bodies` random hulls (4 to 64 vertices), boxes and spheres, 0.1 to
    /// 0.4 units across ([`DemoShapes::PLAIN`]).
    pub fn new(bodies: usize, seed: u64) -> Result<DemoScene, Error> {
        DemoScene::with_shapes(bodies, seed, DemoShapes::PLAIN)
    }

    /// `bodies` random shapes of the kinds `which` names, 0.1 to 0.4 units
    /// across, of one density (mass from the volume), in a jittered grid
    /// above the floor of a box sized for them, turned at random, with a
    /// little sideways speed. The hulls, boxes and spheres are drawn the
    /// same whichever other kinds join them.
    pub fn with_shapes(bodies: usize, seed: u64, which: DemoShapes) -> Result<DemoScene, Error> {
        const SPACING: f32 = 0.45;
        let mut rng = rng(seed);
        let mut shapes = ShapeSet::new();
        let mut kinds = Vec::new();
        let mut keep = |kind: u32, wanted: bool| {
            if wanted {
                kinds.push(kind);
            }
        };
        for _ in 0..40 {
            let radius = rng.random_range(0.05..=0.2);
            let count = rng.random_range(4..=64);
            let flatness = rng.random_range(0.5..=1.0);
            let hull = random_hull(&mut rng, count, radius, flatness);
            keep(shapes.push(Shape::Hull(hull)), which.hulls);
        }
        for _ in 0..16 {
            let half = Vec3::new(
                rng.random_range(0.05..=0.2),
                rng.random_range(0.05..=0.2),
                rng.random_range(0.05..=0.2),
            );
            keep(shapes.add_cuboid(half)?, which.boxes);
        }
        for _ in 0..8 {
            keep(
                shapes.add_sphere(rng.random_range(0.05..=0.2))?,
                which.spheres,
            );
        }
        if which.capsules {
            for _ in 0..16 {
                let half_length = rng.random_range(0.05..=0.15);
                let direction = random_direction(&mut rng);
                let radius = rng.random_range(0.04..=0.08);
                keep(
                    shapes.add_capsule(
                        -half_length * direction,
                        half_length * direction,
                        radius,
                    )?,
                    true,
                );
            }
        }
        if which.rounded {
            for k in 0..24 {
                let radius = rng.random_range(0.01..=0.05);
                let shape = if k % 2 == 0 {
                    let half = Vec3::new(
                        rng.random_range(0.04..=0.15),
                        rng.random_range(0.04..=0.15),
                        rng.random_range(0.04..=0.15),
                    );
                    shapes.add_rounded_cuboid(half, radius)?
                } else {
                    let count = rng.random_range(4..=32);
                    let size = rng.random_range(0.05..=0.15);
                    let core = random_hull(&mut rng, count, size, 1.0);
                    shapes.add_rounded_hull(core.vertices(), radius)?
                };
                keep(shape, true);
            }
        }
        if kinds.is_empty() {
            return Err(Error::Argument {
                name: "shapes",
                message: "the demo needs at least one kind of shape".to_string(),
            });
        }

        // A square column of layers of `columns x columns` bodies.
        let columns = ((bodies as f32 / 8.0).sqrt().ceil() as usize).max(3);
        let layers = bodies.div_ceil(columns * columns);
        let half_width = 0.5 * columns as f32 * SPACING + 0.3;
        let top = layers as f32 * SPACING + 0.5;
        let wall_height = 1.5;
        let thickness = 0.5;
        let reach = half_width + thickness;
        let floor = shapes.add_cuboid(Vec3::new(reach, 0.5 * thickness, reach))?;
        let side = shapes.add_cuboid(Vec3::new(0.5 * thickness, 0.5 * wall_height, reach))?;
        let across =
            shapes.add_cuboid(Vec3::new(half_width, 0.5 * wall_height, 0.5 * thickness))?;
        let wall_y = 0.5 * wall_height;
        let offset = half_width + 0.5 * thickness;
        let mut all = vec![
            Body::fixed(floor, Vec3::new(0.0, -0.5 * thickness, 0.0), Quat::IDENTITY),
            Body::fixed(across, Vec3::new(0.0, wall_y, -offset), Quat::IDENTITY),
            Body::fixed(side, Vec3::new(-offset, wall_y, 0.0), Quat::IDENTITY),
            Body::fixed(side, Vec3::new(offset, wall_y, 0.0), Quat::IDENTITY),
            Body::fixed(across, Vec3::new(0.0, wall_y, offset), Quat::IDENTITY),
        ];
        let walls = all.len();
        let start = -0.5 * (columns - 1) as f32 * SPACING;
        for index in 0..bodies {
            let layer = index / (columns * columns);
            let (row, column) = (index / columns % columns, index % columns);
            let jitter = Vec3::new(
                rng.random_range(-0.03..0.03),
                rng.random_range(-0.03..0.03),
                rng.random_range(-0.03..0.03),
            );
            let position = Vec3::new(
                start + column as f32 * SPACING,
                0.5 + layer as f32 * SPACING,
                start + row as f32 * SPACING,
            ) + jitter;
            let shape = kinds[rng.random_range(0..kinds.len())];
            // Mass from the volume, at a density that gives a 0.25-unit
            // cube a mass of 1.
            let volume = shapes.get(shape).map_or(1.0, |s| s.volume());
            let mut body = Body::new(shape, position, random_rotation(&mut rng))
                .with_inv_mass(DENSITY_VOLUME / volume.max(1e-6));
            body.velocity = Vec3::new(
                rng.random_range(-0.5..0.5),
                0.0,
                rng.random_range(-0.5..0.5),
            );
            all.push(body);
        }
        Ok(DemoScene {
            shapes,
            bodies: all,
            walls,
            half_width,
            wall_height,
            top,
        })
    }
}
