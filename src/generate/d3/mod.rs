//! Seeded random 3D shapes and scenes: hulls of a given vertex count,
//! boxes and spheres, random rotations, and the bench's scenes.

mod demo;
mod workload;

use glam::{Quat, Vec3};
use rand::RngExt;

use super::SceneRng;
use crate::core::pair::Pair;
use crate::d3::{Body, Capsule, Hull, RoundedHull, Shape, ShapeSet, Sphere};

/// A unit vector drawn uniformly on the sphere.
pub fn random_direction(rng: &mut SceneRng) -> Vec3 {
    loop {
        let v = Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        let length = v.length();
        if (0.1..=1.0).contains(&length) {
            return v / length;
        }
    }
}

/// A rotation drawn uniformly.
pub fn random_rotation(rng: &mut SceneRng) -> Quat {
    loop {
        let q = Quat::from_xyzw(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        let length = q.length();
        if (0.1..=1.0).contains(&length) {
            return q / length;
        }
    }
}

/// The hull of `count` points on a sphere of `radius` (and as many inside
/// it, which the hull drops), squashed along y by `flatness` (1: round).
/// Points on the sphere are spread evenly enough (a jittered spiral) that
/// the hull keeps every one of them.
pub fn random_hull(rng: &mut SceneRng, count: usize, radius: f32, flatness: f32) -> Hull {
    loop {
        let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
        let twist = rng.random_range(0.0..std::f32::consts::TAU);
        let mut points: Vec<Vec3> = (0..count)
            .map(|i| {
                let y = 1.0 - 2.0 * (i as f32 + rng.random_range(0.3..0.7)) / count as f32;
                let ring = (1.0 - y * y).max(0.0).sqrt();
                let angle = twist + golden * i as f32 + rng.random_range(-0.2..0.2);
                radius * Vec3::new(ring * angle.cos(), y * flatness, ring * angle.sin())
            })
            .collect();
        for _ in 0..count {
            let inside = 0.8 * radius * rng.random_range(0.0..1.0) * random_direction(rng);
            points.push(inside * Vec3::new(1.0, flatness, 1.0));
        }
        if let Ok(hull) = Hull::new(&points)
            && (count < 8 || hull.vertices().len() >= count * 3 / 4)
        {
            return hull;
        }
    }
}

/// What a 3D scene holds.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneSpec {
    /// The seed of the generator.
    pub seed: u64,
    /// Distinct shapes in the library.
    pub shapes: usize,
    /// Bodies, each with a shape drawn from the library.
    pub bodies: usize,
    /// Random candidate pairs of distinct bodies.
    pub pairs: usize,
    /// Hull vertex counts, drawn uniformly from this inclusive range.
    pub vertices: (usize, usize),
    /// Radius of the sphere hull points lie on, and of spheres.
    pub radius: (f32, f32),
    /// Fraction of the library that is spheres.
    pub sphere_fraction: f64,
    /// Fraction that is boxes.
    pub box_fraction: f64,
    /// Fraction that is flat plates (hulls squashed 1:50).
    pub plate_fraction: f64,
    /// Fraction that is capsules: a segment of 0.5 to 1.5 times the radius
    /// drawn for it, grown by 0.3 of it.
    pub capsule_fraction: f64,
    /// Fraction of the hulls and boxes grown by a radius of 0.1 of their
    /// own (rounded).
    pub rounded_fraction: f64,
    /// Bodies are placed uniformly in the cube `offset ± half_extent`.
    pub half_extent: f32,
    /// The centre of that cube.
    pub offset: Vec3,
}

impl SceneSpec {
    /// A mixed library: hulls of 4 to 32 vertices, boxes, plates, spheres.
    pub fn mixed(seed: u64, pairs: usize) -> SceneSpec {
        SceneSpec {
            seed,
            shapes: 128,
            bodies: 1024,
            pairs,
            vertices: (4, 32),
            radius: (0.5, 1.5),
            sphere_fraction: 0.15,
            box_fraction: 0.15,
            plate_fraction: 0.1,
            capsule_fraction: 0.0,
            rounded_fraction: 0.0,
            half_extent: 2.5,
            offset: Vec3::ZERO,
        }
    }

    /// Generates the scene.
    ///
    /// # Panics
    ///
    /// If a range is empty or the radii are not valid sphere radii (nor,
    /// with capsules or rounded hulls, their shapes': every radius from
    /// 1e-8 to 1e8 is).
    pub fn generate(&self) -> GeneratedScene {
        let mut rng = super::rng(self.seed);
        let mut shapes = ShapeSet::new();
        for _ in 0..self.shapes.max(1) {
            let radius = rng.random_range(self.radius.0..=self.radius.1);
            let kind: f64 = rng.random();
            let shape = if kind < self.sphere_fraction {
                Shape::Sphere(Sphere::new(radius).expect("a valid radius"))
            } else if kind < self.sphere_fraction + self.box_fraction {
                let half = Vec3::new(
                    rng.random_range(0.3..1.0),
                    rng.random_range(0.3..1.0),
                    rng.random_range(0.3..1.0),
                ) * radius;
                Shape::Hull(Hull::cuboid(half).expect("valid half extents"))
            } else if kind < self.sphere_fraction + self.box_fraction + self.plate_fraction {
                let count = rng.random_range(self.vertices.0.max(8)..=self.vertices.1.max(8));
                Shape::Hull(random_hull(&mut rng, count, radius, 0.02))
            } else if kind
                < self.sphere_fraction
                    + self.box_fraction
                    + self.plate_fraction
                    + self.capsule_fraction
            {
                let half_length = 0.5 * radius * rng.random_range(0.5..1.5f32);
                let direction = random_direction(&mut rng);
                Shape::Capsule(
                    Capsule::new(
                        -half_length * direction,
                        half_length * direction,
                        0.3 * radius,
                    )
                    .expect("a valid capsule"),
                )
            } else {
                let count = rng.random_range(self.vertices.0..=self.vertices.1);
                Shape::Hull(random_hull(&mut rng, count, radius, 1.0))
            };
            // Rounded: a radius of a tenth of the shape's.
            let shape = match shape {
                Shape::Hull(hull)
                    if self.rounded_fraction > 0.0
                        && rng.random::<f64>() < self.rounded_fraction =>
                {
                    Shape::RoundedHull(
                        RoundedHull::from_hull(hull, 0.1 * radius).expect("a valid radius"),
                    )
                }
                shape => shape,
            };
            shapes.push(shape);
        }
        let bodies: Vec<Body> = (0..self.bodies)
            .map(|_| {
                let shape = rng.random_range(0..shapes.len() as u32);
                let h = self.half_extent;
                let position = self.offset
                    + Vec3::new(
                        rng.random_range(-h..=h),
                        rng.random_range(-h..=h),
                        rng.random_range(-h..=h),
                    );
                Body::new(shape, position, random_rotation(&mut rng))
            })
            .collect();
        let pairs = super::random_pairs(&mut rng, self.bodies, self.pairs);
        GeneratedScene {
            shapes,
            bodies,
            pairs,
        }
    }
}

/// A generated 3D scene.
#[derive(Clone, Debug)]
pub struct GeneratedScene {
    /// The shape library.
    pub shapes: ShapeSet,
    /// The bodies.
    pub bodies: Vec<Body>,
    /// The candidate pairs.
    pub pairs: Vec<Pair>,
}

pub use demo::{DEMO_BODIES, DemoScene, DemoShapes};
pub use workload::{ShapeKind, workload, workload_spec};
