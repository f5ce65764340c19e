//! 3D benchmark workloads: the seeded scenes behind every 3D speed figure.
//!
//! The reference distribution of the 3D figures: 1,024 shapes of one kind
//! (boxes with half extents 0.3 to 1.0 of a radius 0.5 to 1.5, or hulls of
//! exactly `n` vertices: random points on a sphere of that radius, hulled),
//! 4,096 bodies each at a uniform random position in [-1, 1]³ with a random
//! rotation, random pairs. Nearly every pair overlaps, so every pair runs
//! the whole SAT (no early exit) and most produce contacts. The kinds with
//! a radius: capsules (a segment of 0.5 to 1.5 times the drawn radius,
//! grown by 0.3 of it), half of them with hulls, or hulls grown by a tenth
//! of their radius; and spheres, alone or half of them with boxes or hulls.

use super::{GeneratedScene, SceneSpec};

/// What the 3D shapes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeKind {
    /// Cuboids (6 faces, 12 edges).
    Boxes,
    /// Hulls of exactly this many vertices.
    Hulls(usize),
    /// Capsules.
    Capsules,
    /// Half capsules, half hulls of this many vertices.
    CapsulesAndHulls(usize),
    /// Hulls of this many vertices, each grown by a tenth of its radius.
    Rounded(usize),
    /// Spheres.
    Spheres,
    /// Half spheres, half cuboids.
    SpheresAndBoxes,
    /// Half spheres, half hulls of this many vertices.
    SpheresAndHulls(usize),
}

impl ShapeKind {
    /// The name in tables and files.
    pub fn name(self) -> String {
        match self {
            ShapeKind::Boxes => "boxes".to_string(),
            ShapeKind::Hulls(n) => format!("{n}-hulls"),
            ShapeKind::Capsules => "capsules".to_string(),
            ShapeKind::CapsulesAndHulls(n) => format!("capsules-{n}-hulls"),
            ShapeKind::Rounded(n) => format!("rounded-{n}-hulls"),
            ShapeKind::Spheres => "spheres".to_string(),
            ShapeKind::SpheresAndBoxes => "spheres-boxes".to_string(),
            ShapeKind::SpheresAndHulls(n) => format!("spheres-{n}-hulls"),
        }
    }

    /// The kinds of `gpusat bench --dim 3`.
    pub const ALL: [ShapeKind; 6] = [
        ShapeKind::Boxes,
        ShapeKind::Hulls(16),
        ShapeKind::Hulls(32),
        ShapeKind::Hulls(64),
        ShapeKind::Hulls(128),
        ShapeKind::Hulls(256),
    ];
}

/// The scene description of a 3D workload with `pairs` random pairs.
pub fn workload_spec(kind: ShapeKind, pairs: usize) -> SceneSpec {
    let base = SceneSpec {
        seed: 3003,
        shapes: 1024,
        bodies: 4096,
        pairs,
        half_extent: 1.0,
        sphere_fraction: 0.0,
        plate_fraction: 0.0,
        ..SceneSpec::mixed(3003, pairs)
    };
    match kind {
        ShapeKind::Boxes => SceneSpec {
            box_fraction: 1.0,
            ..base
        },
        ShapeKind::Hulls(n) => SceneSpec {
            vertices: (n, n),
            box_fraction: 0.0,
            ..base
        },
        ShapeKind::Capsules => SceneSpec {
            box_fraction: 0.0,
            capsule_fraction: 1.0,
            ..base
        },
        ShapeKind::CapsulesAndHulls(n) => SceneSpec {
            vertices: (n, n),
            box_fraction: 0.0,
            capsule_fraction: 0.5,
            ..base
        },
        ShapeKind::Rounded(n) => SceneSpec {
            vertices: (n, n),
            box_fraction: 0.0,
            rounded_fraction: 1.0,
            ..base
        },
        ShapeKind::Spheres => SceneSpec {
            sphere_fraction: 1.0,
            box_fraction: 0.0,
            ..base
        },
        ShapeKind::SpheresAndBoxes => SceneSpec {
            sphere_fraction: 0.5,
            box_fraction: 0.5,
            ..base
        },
        ShapeKind::SpheresAndHulls(n) => SceneSpec {
            vertices: (n, n),
            sphere_fraction: 0.5,
            box_fraction: 0.0,
            ..base
        },
    }
}

/// A 3D workload's scene.
pub fn workload(kind: ShapeKind, pairs: usize) -> GeneratedScene {
    workload_spec(kind, pairs).generate()
}
