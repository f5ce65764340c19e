//! # gpusat: batch 2D collision detection on the GPU
//!
//! gpusat tests many candidate pairs of convex polygons and circles with the
//! Separating Axis Theorem and reports, for each overlapping pair, the
//! minimum translation vector: a unit `normal` from A to B and a `depth`.
//! The same computation runs on the CPU (the reference, and a parallel
//! variant) and on the GPU (a WGSL compute shader through wgpu), and every
//! GPU result is checked against the CPU's.
//!
//! ## One frame, as data flows
//!
//! ```text
//! shapes ──validate──▶ ShapeSet (local space, CCW, unit normals)
//! bodies (shape, position, angle, inverse mass, velocity)
//!       │
//!       ▼ candidate pairs (given by the user, or a broadphase)
//! Batch ──▶ narrowphase backend ──▶ SatHit: pair, axis (owner + feature), depth
//!            ├─ collide_cpu           (scalar, the source of truth)
//!            └─ collide_cpu_parallel  (same code on all cores, same bits)
//!       ▼
//! Batch::hit ──▶ Hit: bodies, world normal rebuilt from the feature, depth
//! ```
//!
//! ```
//! use gpusat::{Batch, Body, Pair, ShapeSet, collide_cpu};
//! use glam::Vec2;
//!
//! let mut shapes = ShapeSet::new();
//! let square = shapes
//!     .add_polygon(&[Vec2::new(-1.0, -1.0), Vec2::new(1.0, -1.0),
//!                    Vec2::new(1.0, 1.0), Vec2::new(-1.0, 1.0)])
//!     .unwrap();
//! let bodies = [Body::new(square, Vec2::ZERO, 0.0),
//!               Body::new(square, Vec2::new(1.5, 0.0), 0.0)];
//! let pairs = [Pair::new(0, 1)];
//! let batch = Batch::new(&shapes, &bodies, &pairs, 0.0).unwrap();
//! let hits = batch.hits(&collide_cpu(&batch));
//! assert_eq!(hits.len(), 1);
//! assert_eq!(hits[0].normal, Vec2::X);
//! assert!((hits[0].depth - 0.5).abs() < 1e-6);
//! ```
//!
//! The conventions (frames, normal direction, the axis feature, the tie rule
//! that every backend follows) are documented in the [`sat`] module, the
//! shape validation in [`hull`].

mod backend;
mod bench;
mod body;
mod broadphase;
mod check;
mod error;
pub mod fuzzing;
pub mod generate;
pub mod gpu;
pub mod hull;
mod manifold;
mod math;
mod narrowphase;
mod plot;
mod render;
mod resolve;
pub mod sat;
pub mod sat_lanes;
mod scene;
mod shape;
mod workload;
mod world;

pub use backend::{BackendKind, Narrowphase};
pub use bench::{BenchBackend, BenchOptions, BenchReport, BenchRow, parallel_ceiling, run_bench};
pub use body::{Body, MAX_COORDINATE};
pub use broadphase::{
    Aabb, PairFilter, body_aabb, body_aabbs, brute_force_pairs, find_pairs, sweep_and_prune,
    uniform_grid,
};
pub use check::{Agreement, DEPTH_TOLERANCE, TOUCH_TOLERANCE, compare_hits};
pub use error::{BodyError, Error, PairError, Result, ShapeError};
pub use manifold::{ContactPoint, Manifold, contact_id, manifold, manifolds, manifolds_parallel};
pub use math::{
    Rot, Transform, cross, inv_mul_transforms, inv_rotate, inv_transform_point, right_perp, rotate,
    transform_point,
};
pub use narrowphase::{
    Axis, Batch, Hit, Owner, PARALLEL_MIN_PAIRS, Pair, SatHit, collide_cpu, collide_cpu_parallel,
    collide_scalar, contacts_cpu, contacts_cpu_into, contacts_cpu_parallel, reserve_output,
    validate_pairs,
};
pub use render::{GifRecorder, RenderOptions, encode_png, render, scene_bounds};
pub use resolve::{
    Candidates, ContactSolver, NarrowphaseFn, Overlap, SeparationOptions, SeparationReport,
    SolveReport, SolverOptions, relax_positions, separate_positions,
};
pub use scene::{
    AxisOut, BodyDesc, CollideOutput, ContactOut, HitOut, MAX_SCENE_BYTES, PairDesc, Scene,
    SceneFile, ShapeDesc, to_json_pretty, write_atomically,
};
pub use shape::{
    Circle, EdgeRecord, MAX_POLYGON_VERTICES, MAX_SHAPE_SIZE, MIN_SHAPE_SIZE, Polygon, Shape,
    ShapeRecord, ShapeSet,
};
pub use workload::{Density, Peer, ShapeKind, workload, workload_spec};
pub use world::{FrameStats, RunStats, StageTimes, World, WorldOptions};
