//! Benchmark workloads: the seeded scenes behind every speed figure, shared
//! by the criterion benches, the tests and `gpusat bench`.
//!
//! * [`Density::Reference`] is the reference distribution of the headline
//!   figures: 4,096 random shapes (polygons: points at random angles on a
//!   circle of radius 0.5 to 1.5, hulled), one body each at a uniform random
//!   position in [-1, 1]² with a random angle, random pairs. Nearly every
//!   pair overlaps.
//! * [`Density::Sparse`] and [`Density::Dense`] spread the same bodies over
//!   a square sized so that about 10% or 80% of random pairs overlap. The
//!   size is found by bisection on a sample of the scene itself, so the
//!   fraction holds for every shape kind.

use super::{GeneratedScene, SceneSpec};
use crate::d2::batch::Batch;
use crate::d2::narrowphase::collide_cpu;

/// What the shapes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeKind {
    /// Polygons with exactly this many vertices.
    Polygons(usize),
    /// Circles.
    Circles,
    /// Polygons of 3 to 16 vertices, circles and thin slivers.
    Mixed,
    /// Capsules ([`random_capsule`](super::random_capsule)).
    Capsules,
    /// Half capsules, half 8-gons: a quarter of the pairs capsule with
    /// capsule, half capsule with polygon.
    CapsulesAndPolygons,
    /// Half circles, half polygons of exactly this many vertices: half the
    /// pairs polygon with circle, a quarter circle with circle.
    CirclesAndPolygons(usize),
    /// Polygons with exactly this many vertices, each rounded (grown by
    /// 0.05 to 0.25 of its radius).
    Rounded(usize),
}

impl ShapeKind {
    /// The name in tables and files.
    pub fn name(self) -> String {
        match self {
            ShapeKind::Polygons(n) => format!("{n}-gons"),
            ShapeKind::Circles => "circles".to_string(),
            ShapeKind::Mixed => "mixed".to_string(),
            ShapeKind::Capsules => "capsules".to_string(),
            ShapeKind::CapsulesAndPolygons => "capsules and 8-gons".to_string(),
            ShapeKind::CirclesAndPolygons(n) => format!("circles and {n}-gons"),
            ShapeKind::Rounded(n) => format!("rounded {n}-gons"),
        }
    }
}

/// How crowded the bodies are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Density {
    /// Bodies in [-1, 1]²: the reference distribution.
    Reference,
    /// About 10% of pairs overlap.
    Sparse,
    /// About 80% of pairs overlap.
    Dense,
}

impl Density {
    /// The name in tables and files.
    pub fn name(self) -> &'static str {
        match self {
            Density::Reference => "reference",
            Density::Sparse => "sparse",
            Density::Dense => "dense",
        }
    }

    /// The fraction of overlapping pairs aimed at, if any.
    pub fn target(self) -> Option<f64> {
        match self {
            Density::Reference => None,
            Density::Sparse => Some(0.10),
            Density::Dense => Some(0.80),
        }
    }
}

/// The scene description of a workload (with `pairs` random pairs).
pub fn workload_spec(kind: ShapeKind, density: Density, pairs: usize) -> SceneSpec {
    let base = match kind {
        ShapeKind::Polygons(n) => SceneSpec::reference(n),
        ShapeKind::Circles => SceneSpec {
            circle_fraction: 1.0,
            ..SceneSpec::reference(8)
        },
        ShapeKind::Mixed => SceneSpec {
            vertices: (3, 16),
            circle_fraction: 0.2,
            sliver_fraction: 0.1,
            ..SceneSpec::reference(8)
        },
        ShapeKind::Capsules => SceneSpec {
            capsule_fraction: 1.0,
            ..SceneSpec::reference(8)
        },
        ShapeKind::CapsulesAndPolygons => SceneSpec {
            capsule_fraction: 0.5,
            ..SceneSpec::reference(8)
        },
        ShapeKind::CirclesAndPolygons(n) => SceneSpec {
            circle_fraction: 0.5,
            ..SceneSpec::reference(n)
        },
        ShapeKind::Rounded(n) => SceneSpec {
            rounded_fraction: 1.0,
            ..SceneSpec::reference(n)
        },
    };
    let base = SceneSpec { pairs, ..base };
    match density.target() {
        None => base,
        Some(target) => SceneSpec {
            half_extent: calibrate_half_extent(&base, target),
            ..base
        },
    }
}

/// A workload's scene.
pub fn workload(kind: ShapeKind, density: Density, pairs: usize) -> GeneratedScene {
    workload_spec(kind, density, pairs).generate()
}

/// The half extent at which about `target` of the scene's random pairs
/// overlap, by bisection (in log scale) on 4,000 of them.
fn calibrate_half_extent(spec: &SceneSpec, target: f64) -> f32 {
    let fraction = |half_extent: f32| {
        let scene = SceneSpec {
            pairs: 4000,
            half_extent,
            ..spec.clone()
        }
        .generate();
        match Batch::new(&scene.shapes, &scene.bodies, &scene.pairs, 0.0) {
            Ok(batch) => collide_cpu(&batch).len() as f64 / scene.pairs.len().max(1) as f64,
            Err(_) => 0.0,
        }
    };
    let (mut low, mut high) = (0.01f32.ln(), 1000f32.ln());
    for _ in 0..24 {
        let middle = 0.5 * (low + high);
        // Larger squares: fewer overlaps.
        if fraction(middle.exp()) > target {
            low = middle;
        } else {
            high = middle;
        }
    }
    (0.5 * (low + high)).exp()
}
