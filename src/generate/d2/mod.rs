//! Seeded random 2D shapes and scenes: polygons of a given vertex count,
//! slivers, circles, and the bench's scenes.

mod demo;
mod workload;

use glam::Vec2;
use rand::RngExt;

use super::{SceneRng, rng};
use crate::core::pair::Pair;
use crate::d2::body::Body;
use crate::d2::shape::{Capsule, Circle, Polygon, Shape, ShapeSet};

/// A convex polygon with exactly `count` vertices at random angles on a
/// circle of `radius` around the local origin.
///
/// Up to 16 vertices the angles are uniform; above that they are jittered
/// around evenly spaced angles, so that the hull builder does not weld or
/// flatten any of them and the count is exact.
pub fn random_polygon(rng: &mut SceneRng, count: usize, radius: f32) -> Polygon {
    loop {
        let mut angles: Vec<f32> = if count <= 16 {
            (0..count)
                .map(|_| rng.random_range(0.0..std::f32::consts::TAU))
                .collect()
        } else {
            let step = std::f32::consts::TAU / count as f32;
            (0..count)
                .map(|i| (i as f32 + rng.random_range(0.2..0.8)) * step)
                .collect()
        };
        angles.sort_by(f32::total_cmp);
        let points: Vec<Vec2> = angles
            .iter()
            .map(|a| Vec2::new(radius * a.cos(), radius * a.sin()))
            .collect();
        if let Ok(polygon) = Polygon::new(&points)
            && polygon.vertices().len() == count
        {
            return polygon;
        }
    }
}

/// A thin triangle or quadrilateral `length` long and `length / aspect` thick,
/// centred near the local origin.
pub fn random_sliver(rng: &mut SceneRng, length: f32, aspect: f32) -> Polygon {
    let half = 0.5 * length;
    let thickness = length / aspect;
    loop {
        let points: Vec<Vec2> = if rng.random_bool(0.5) {
            let apex = rng.random_range(-half..half);
            vec![
                Vec2::new(-half, -0.5 * thickness),
                Vec2::new(half, -0.5 * thickness),
                Vec2::new(apex, 0.5 * thickness),
            ]
        } else {
            let skew = rng.random_range(-0.2..0.2) * length;
            vec![
                Vec2::new(-half, -0.5 * thickness),
                Vec2::new(half, -0.5 * thickness),
                Vec2::new(half + skew, 0.5 * thickness),
                Vec2::new(-half + skew, 0.5 * thickness),
            ]
        };
        if let Ok(polygon) = Polygon::new(&points) {
            return polygon;
        }
    }
}

/// A capsule as wide as a circle of `radius` is: its core at a random
/// angle through the origin, a radius of 0.15 to 0.5 of `radius`.
///
/// # Panics
///
/// If `radius` is not a valid circle radius (as [`SceneSpec::generate`]):
/// a description for tests and benches.
pub fn random_capsule(rng: &mut SceneRng, radius: f32) -> Capsule {
    let round = rng.random_range(0.15..0.5) * radius;
    let half = radius - round;
    let direction = Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU));
    Capsule::new(-half * direction, half * direction, round)
        .expect("a core at least half the capsule's radius long")
}

/// What to generate. Every field has a meaning in world units; see
/// [`SceneSpec::reference`] for the headline distribution.
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
    /// Polygon vertex counts, drawn uniformly from this inclusive range.
    pub vertices: (usize, usize),
    /// Radius of the circle polygon vertices lie on, and of circles.
    pub radius: (f32, f32),
    /// Fraction of the library that is circles.
    pub circle_fraction: f64,
    /// Fraction of the library that is thin slivers (aspect 20 to 200).
    pub sliver_fraction: f64,
    /// Fraction of the library that is capsules: a core as long as the
    /// shape's diameter at a random angle, less twice a radius of 0.15 to
    /// 0.5 of the shape's radius.
    pub capsule_fraction: f64,
    /// Fraction of the polygons rounded: grown by 0.05 to 0.25 of their
    /// radius, their core shrunk as much (the same extent).
    pub rounded_fraction: f64,
    /// Bodies are placed uniformly in the square `offset ± half_extent`.
    pub half_extent: f32,
    /// The centre of that square.
    pub offset: Vec2,
}

impl SceneSpec {
    /// The reference distribution, with `vertices`-gon polygons only.
    pub fn reference(vertices: usize) -> SceneSpec {
        SceneSpec {
            seed: 0x5_A72D,
            shapes: 4096,
            bodies: 4096,
            pairs: 1_000_000,
            vertices: (vertices, vertices),
            radius: (0.5, 1.5),
            circle_fraction: 0.0,
            sliver_fraction: 0.0,
            capsule_fraction: 0.0,
            rounded_fraction: 0.0,
            half_extent: 1.0,
            offset: Vec2::ZERO,
        }
    }

    /// A mixed library: polygons of 3 to 16 vertices, circles and slivers.
    pub fn mixed(seed: u64, pairs: usize) -> SceneSpec {
        SceneSpec {
            seed,
            shapes: 512,
            bodies: 2048,
            pairs,
            vertices: (3, 16),
            radius: (0.5, 1.5),
            circle_fraction: 0.2,
            sliver_fraction: 0.1,
            capsule_fraction: 0.0,
            rounded_fraction: 0.0,
            half_extent: 4.0,
            offset: Vec2::ZERO,
        }
    }

    /// The same description with another seed.
    pub fn with_seed(self, seed: u64) -> SceneSpec {
        SceneSpec { seed, ..self }
    }

    /// Generates the scene.
    ///
    /// # Panics
    ///
    /// If a range is empty, or the radii are not valid circle radii (which
    /// also makes every capsule and rounded polygon valid: cores of at
    /// least half and three quarters of the radius): a description for
    /// tests and benches, checked by whoever fills it in.
    pub fn generate(&self) -> GeneratedScene {
        let mut rng = rng(self.seed);
        let mut shapes = ShapeSet::new();
        for _ in 0..self.shapes.max(1) {
            let radius = rng.random_range(self.radius.0..=self.radius.1);
            let kind: f64 = rng.random();
            let shape = if kind < self.circle_fraction {
                Shape::Circle(Circle::new(radius).expect("radii of 0.001 to 1e8 are valid"))
            } else if kind < self.circle_fraction + self.sliver_fraction {
                let aspect = rng.random_range(20.0..200.0);
                Shape::Polygon(random_sliver(&mut rng, 2.0 * radius, aspect))
            } else if kind < self.circle_fraction + self.sliver_fraction + self.capsule_fraction {
                Shape::Capsule(random_capsule(&mut rng, radius))
            } else {
                let count = rng.random_range(self.vertices.0..=self.vertices.1);
                // Drawn only where the scene has rounded polygons, so that
                // scenes without them stay as they were.
                let rounding =
                    if self.rounded_fraction > 0.0 && rng.random::<f64>() < self.rounded_fraction {
                        rng.random_range(0.05..0.25) * radius
                    } else {
                        0.0
                    };
                let core = random_polygon(&mut rng, count, radius - rounding);
                if rounding > 0.0 {
                    Shape::Polygon(
                        Polygon::rounded(core.vertices(), rounding)
                            .expect("a valid polygon grown by less than its size"),
                    )
                } else {
                    Shape::Polygon(core)
                }
            };
            shapes.push(shape);
        }
        let bodies: Vec<Body> = (0..self.bodies)
            .map(|_| {
                let shape = rng.random_range(0..shapes.len() as u32);
                let position = self.offset
                    + Vec2::new(
                        rng.random_range(-self.half_extent..=self.half_extent),
                        rng.random_range(-self.half_extent..=self.half_extent),
                    );
                let angle = rng.random_range(-std::f32::consts::PI..std::f32::consts::PI);
                Body::new(shape, position, angle)
            })
            .collect();
        let pairs = random_pairs(&mut rng, self.bodies, self.pairs);
        GeneratedScene {
            shapes,
            bodies,
            pairs,
        }
    }
}

/// `count` pairs of distinct bodies drawn uniformly from `bodies`.
pub fn random_pairs(rng: &mut SceneRng, bodies: usize, count: usize) -> Vec<Pair> {
    if bodies < 2 {
        return Vec::new();
    }
    (0..count)
        .map(|_| {
            let a = rng.random_range(0..bodies as u32);
            let mut b = rng.random_range(0..bodies as u32 - 1);
            if b >= a {
                b += 1;
            }
            Pair::new(a, b)
        })
        .collect()
}

/// A generated scene: a shape library, bodies and candidate pairs.
#[derive(Clone, Debug)]
pub struct GeneratedScene {
    /// The shape library.
    pub shapes: ShapeSet,
    /// The bodies.
    pub bodies: Vec<Body>,
    /// The candidate pairs.
    pub pairs: Vec<Pair>,
}

pub use demo::{DEMO_DT, DEMO_FRAMES, DEMO_PARTICLES, DEMO_SEED, DemoScene, DemoShapes};
pub use workload::{Density, ShapeKind, workload, workload_spec};
