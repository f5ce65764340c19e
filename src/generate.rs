//! Seeded random scenes (the `generate` feature), shared by the tests, the
//! benches, `gpusat bench` and `gpusat demo`, so that every figure and every
//! check is reproducible from a seed.
//!
//! The reference distribution for headline figures is
//! [`SceneSpec::reference`]: 4,096 random convex polygons (points at random
//! angles on a circle of radius 0.5 to 1.5, hulled), one body each at a
//! uniform random position in [-1, 1]² with a random angle, and 1,000,000
//! random pairs.

use glam::Vec2;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::core::pair::Pair;
use crate::d2::body::Body;
use crate::d2::shape::{Circle, Polygon, Shape, ShapeSet};

/// The generator used everywhere: small, fast, and the same on every platform.
pub type SceneRng = Pcg64Mcg;

/// The generator for `seed`.
pub fn rng(seed: u64) -> SceneRng {
    Pcg64Mcg::seed_from_u64(seed)
}

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
    /// If a range is empty, or the radii are not valid circle radii: a
    /// description for tests and benches, checked by whoever fills it in.
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
            } else {
                let count = rng.random_range(self.vertices.0..=self.vertices.1);
                Shape::Polygon(random_polygon(&mut rng, count, radius))
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

/// Seeded random 3D shapes and scenes.
pub mod d3 {
    use glam::{Quat, Vec3};
    use rand::RngExt;

    use super::SceneRng;
    use crate::core::pair::Pair;
    use crate::d3::{Body, Hull, Shape, ShapeSet, Sphere};

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
                half_extent: 2.5,
                offset: Vec3::ZERO,
            }
        }

        /// Generates the scene.
        ///
        /// # Panics
        ///
        /// If a range is empty or the radii are not valid sphere radii.
        pub fn generate(&self) -> Scene {
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
                } else {
                    let count = rng.random_range(self.vertices.0..=self.vertices.1);
                    Shape::Hull(random_hull(&mut rng, count, radius, 1.0))
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
            Scene {
                shapes,
                bodies,
                pairs,
            }
        }
    }

    /// A generated 3D scene.
    #[derive(Clone, Debug)]
    pub struct Scene {
        /// The shape library.
        pub shapes: ShapeSet,
        /// The bodies.
        pub bodies: Vec<Body>,
        /// The candidate pairs.
        pub pairs: Vec<Pair>,
    }
}
