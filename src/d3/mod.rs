//! 3D: convex polyhedra, spheres, capsules and rounded polyhedra, with the
//! Gauss-map SAT.
//!
//! The same pipeline as in 2D, in its own namespace: shapes validated once
//! ([`Hull::new`] builds a hull from a point cloud; [`Capsule`] and
//! [`RoundedHull`] grow a segment or a hull by a radius), kept in a
//! [`ShapeSet`]; [`Body`]s place them (position and unit quaternion); a
//! validated [`Batch`] of candidate pairs goes through a backend
//! ([`collide_cpu`], [`collide_cpu_parallel`]) to [`SatHit`]s in pair
//! order, each naming its axis as features ([`Axis`]); [`Batch::hit`]
//! rebuilds the world normal; [`manifold`] clips the contact points (up to
//! four). [`collide_shapes`] does all of it for one pair. The [`sat`]
//! module teaches the algorithm.
//!
//! ```
//! use gpusat::d3::{Batch, Body, ShapeSet, collide_cpu, manifold};
//! use gpusat::glam::{Quat, Vec3};
//! use gpusat::Pair;
//!
//! let mut shapes = ShapeSet::new();
//! let cube = shapes.add_cuboid(Vec3::splat(0.5))?;
//! let ball = shapes.add_sphere(0.25)?;
//! let bodies = [
//!     Body::fixed(cube, Vec3::ZERO, Quat::IDENTITY),
//!     Body::new(cube, Vec3::new(0.2, 0.95, 0.0), Quat::from_rotation_y(0.3)),
//!     Body::new(ball, Vec3::new(-0.3, 0.7, 0.3), Quat::IDENTITY),
//! ];
//! let pairs = [Pair::new(0, 1), Pair::new(0, 2)];
//! let batch = Batch::new(&shapes, &bodies, &pairs, 0.0)?;
//! let hits = batch.hits(&collide_cpu(&batch));
//! assert_eq!(hits.len(), 2);
//! let resting = manifold(&batch, &hits[0]);
//! assert_eq!(resting.points().len(), 4);
//! # Ok::<(), gpusat::Error>(())
//! ```

pub(crate) mod backend;
pub(crate) mod batch;
pub(crate) mod body;
pub(crate) mod broadphase;
pub(crate) mod contact;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod manifold;
pub mod math;
pub(crate) mod narrowphase;
pub(crate) mod recycle;
pub mod sat;
#[cfg(feature = "serde")]
pub(crate) mod scene;
pub(crate) mod separation;
pub mod shape;
pub(crate) mod solver;
pub(crate) mod types;
pub(crate) mod world;

pub use backend::Narrowphase;
pub use batch::Batch;
pub use body::Body;
pub use broadphase::{Aabb, body_aabb, body_aabbs, brute_force_pairs, find_pairs, sweep_and_prune};
pub use contact::{Contact, collide_shapes};
pub use manifold::{ContactPoint, Manifold, contact_id, manifold, manifolds};
pub use math::{Rot, Transform};
pub use narrowphase::{
    collide_cpu, collide_cpu_with_stats, compare_hits, contacts_cpu, contacts_cpu_into,
};
#[cfg(feature = "parallel")]
pub use narrowphase::{collide_cpu_parallel, contacts_cpu_parallel};
#[cfg(feature = "serde")]
pub use scene::{BodyDesc, Scene, SceneFile, ShapeDesc};
pub use separation::{NarrowphaseFn, Overlap, SeparationReport, separate_positions};
pub use shape::hull::{MAX_HULL_VERTICES, build_hull};
pub use shape::{
    Capsule, EdgeGauss, GRID_MIN_VERTICES, Hull, HullEdge, RoundedHull, Shape, ShapeSet, Sphere,
    gauss_grid, hull,
};
pub use solver::{ContactSolver, tangents};
pub use types::{Axis, EdgeSearch, EdgeStats, Hit, SatHit};
pub use world::{World, WorldOptions};

/// The 3D GPU narrowphase: hulls and spheres (`shaders/d3/sat.wgsl`), the
/// same machinery as the 2D one ([`crate::gpu::GpuSat`]).
#[cfg(feature = "gpu")]
pub type GpuNarrowphase = crate::gpu::GpuSat<crate::gpu::Spatial>;
