//! 2D: convex polygons and circles.
//!
//! The pipeline, one file a stage (the twin of [`crate::d3`], file for
//! file): shapes validated once ([`shape`]: [`Polygon::new`] hulls a point
//! set, [`Circle::new`]) and kept in a [`ShapeSet`]; [`Body`]s place them
//! (position and angle); a validated [`Batch`] of candidate pairs
//! ([`find_pairs`] finds them by sweep and prune) goes through a backend
//! ([`collide_cpu`], [`collide_cpu_parallel`], or the GPU's
//! [`GpuNarrowphase`](crate::gpu::GpuNarrowphase)) to [`SatHit`]s in pair
//! order, each naming its axis as a feature ([`Axis`]); [`Batch::hit`]
//! rebuilds the world normal; [`manifold`] clips the contact points (one or
//! two). [`collide_shapes`] does all of it for one pair. The [`sat`] module
//! teaches the algorithm; [`World`] strings the stages into a simulation
//! step, [`ContactSolver`] and [`separate_positions`] resolve contacts.
//!
//! Every name here is also re-exported at the crate root (`gpusat::Batch`
//! is `gpusat::d2::Batch`).

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
pub use broadphase::{
    Aabb, body_aabb, body_aabbs, brute_force_pairs, find_pairs, sweep_and_prune, uniform_grid,
};
pub use contact::{Contact, collide_shapes};
#[cfg(feature = "parallel")]
pub use manifold::manifolds_parallel;
pub use manifold::{ContactPoint, Manifold, contact_id, manifold, manifolds};
pub use math::{Rot, Transform};
pub use narrowphase::{
    collide_cpu, collide_cpu_into, collide_scalar, compare_hits, contacts_cpu, contacts_cpu_into,
};
#[cfg(feature = "parallel")]
pub use narrowphase::{collide_cpu_parallel, contacts_cpu_parallel};
#[cfg(feature = "serde")]
pub use scene::{BodyDesc, Scene, SceneFile, ShapeDesc};
pub use separation::{
    NarrowphaseFn, Overlap, SeparationReport, relax_positions, separate_positions,
};
pub use shape::hull::MAX_POLYGON_VERTICES;
pub use shape::{Capsule, Circle, MAX_RADIUS_RATIO, Polygon, Segment, Shape, ShapeSet};
#[doc(hidden)]
pub use shape::{EdgeRecord, ShapeRecord};
pub use solver::ContactSolver;
pub use types::{Axis, FaceSearch, Hit, SatHit};
pub use world::{World, WorldOptions};
