//! # gpusat: batch collision detection in 2D and 3D, on the GPU and the CPU
//!
//! gpusat tests pairs of convex shapes with the Separating Axis Theorem (2D:
//! polygons and circles, [`d2`]; 3D: hulls, boxes and spheres, [`d3`]) and
//! reports, for each overlapping pair, the minimum translation vector — a
//! unit `normal` from A to B, a `depth`, the axis as a feature of A or B —
//! and the contact points. The same computation runs on the CPU (the
//! reference, and a parallel variant) and on the GPU (WGSL compute shaders
//! through wgpu, [`gpu`]), and every GPU result is checked against the
//! CPU's: on a software Vulkan adapter bit for bit.
//!
//! The two dimensions are twins with the same names ([`d2::Batch`] and
//! [`d3::Batch`], [`d2::collide_cpu`] and [`d3::collide_cpu`], ...); what
//! both share ([`Pair`], [`Error`], [`BackendKind`], [`Agreement`], ...) is
//! here at the root, and so are the 2D names (`gpusat::Batch` is
//! [`d2::Batch`]).
//!
//! ## One pair
//!
//! [`collide_shapes`] answers for two shapes in one call, as Box2D's
//! `b2CollidePolygons` does ([`d3::collide_shapes`] in 3D):
//!
//! ```
//! use gpusat::{Polygon, Shape, Transform, collide_shapes};
//! use gpusat::glam::Vec2;
//!
//! let square = Shape::from(Polygon::rectangle(1.0, 1.0)?);
//! let a = Transform::new(Vec2::ZERO, 0.0);
//! let b = Transform::new(Vec2::new(1.5, 0.0), 0.0);
//! let contact = collide_shapes(&square, &a, &square, &b, 0.0).expect("they overlap");
//! assert_eq!(contact.normal, Vec2::X);
//! assert!((contact.depth - 0.5).abs() < 1e-6);
//! # Ok::<(), gpusat::ShapeError>(())
//! ```
//!
//! ```
//! use gpusat::d3::{Hull, Shape, Transform, collide_shapes};
//! use gpusat::glam::{Quat, Vec3};
//!
//! let cube = Shape::from(Hull::cuboid(Vec3::splat(0.5))?);
//! let below = Transform::new(Vec3::ZERO, Quat::IDENTITY);
//! let above = Transform::new(Vec3::new(0.1, 0.9, 0.2), Quat::IDENTITY);
//! let contact = collide_shapes(&cube, &below, &cube, &above, 0.0).expect("they overlap");
//! assert_eq!(contact.points().len(), 4); // a box resting on a box
//!
//! // A capsule lying on the box: two points, at its ends.
//! let pill = Shape::from(gpusat::d3::Capsule::new(-0.3 * Vec3::X, 0.3 * Vec3::X, 0.1)?);
//! let lying = Transform::new(Vec3::new(0.0, 0.59, 0.0), Quat::IDENTITY);
//! let contact = collide_shapes(&cube, &below, &pill, &lying, 0.0).expect("touching");
//! assert_eq!(contact.points().len(), 2);
//! # Ok::<(), gpusat::ShapeError>(())
//! ```
//!
//! ## Many pairs
//!
//! ```text
//! shapes ──validate──▶ ShapeSet (local space, every shape once)
//! bodies (shape, position, rotation, inverse mass, velocity)
//!       │
//!       ▼ candidate pairs (given by the caller, or find_pairs: sweep and prune)
//! Batch ──▶ narrowphase backend ──▶ SatHit: pair, axis (owner + feature), depth
//!            ├─ collide_cpu            (one thread, the source of truth)
//!            ├─ collide_cpu_parallel   (all cores, the same bits)
//!            └─ GpuNarrowphase         (WGSL; the same bits on lavapipe)
//!       ▼
//! Batch::hit ──▶ Hit: bodies, world normal rebuilt from the feature, depth
//!       ▼
//! manifold ──▶ Manifold: contact points with depths and feature ids
//! ```
//!
//! ```
//! use gpusat::{Batch, Body, Pair, ShapeSet, collide_cpu};
//! use gpusat::glam::Vec2;
//!
//! let mut shapes = ShapeSet::new();
//! let square = shapes.add_polygon(&[
//!     Vec2::new(-1.0, -1.0),
//!     Vec2::new(1.0, -1.0),
//!     Vec2::new(1.0, 1.0),
//!     Vec2::new(-1.0, 1.0),
//! ])?;
//! let bodies = [Body::new(square, Vec2::ZERO, 0.0), Body::new(square, Vec2::new(1.5, 0.0), 0.0)];
//! let pairs = [Pair::new(0, 1)];
//! let batch = Batch::new(&shapes, &bodies, &pairs, 0.0)?;
//! let hits = batch.hits(&collide_cpu(&batch));
//! assert_eq!(hits.len(), 1);
//! assert_eq!(hits[0].normal, Vec2::X);
//! # Ok::<(), gpusat::Error>(())
//! ```
//!
//! On the GPU, [`gpu::GpuNarrowphase`] (2D) and [`d3::GpuNarrowphase`] run
//! the same batch, on a device gpusat opens or on the caller's own
//! ([`gpu::GpuContext::from_device`]), blocking
//! ([`collide`](gpu::GpuNarrowphase::collide)) or recorded into the
//! caller's command encoder and collected later
//! ([`record`](gpu::GpuNarrowphase::record)). [`gpu::GpuFrame`] takes
//! bodies instead of pairs and runs a whole 2D frame's collision on the
//! device (broadphase, narrowphase, contact manifolds) in one submission,
//! for callers that keep their bodies on the GPU. [`World`] and
//! [`d3::World`] string the stages into a simulation step.
//!
//! The conventions (frames, normal direction, the axis feature, the tie rule
//! that every backend follows) are taught in the [`d2::sat`] and
//! [`d3::sat`] modules, the shape validation in [`d2::shape::hull`] and
//! [`d3::hull`].
//!
//! ## Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `gpu` | yes | the [`gpu`] backend (wgpu, pollster) |
//! | `parallel` | yes | the `*_parallel` CPU backends (rayon) |
//! | `serde` | no | scene files: `Scene`, `load_any` (serde, serde_json) |
//! | `generate` | no | seeded random scenes, the bench workloads and the demo scenes (`gpusat::generate`, rand) |
//! | `testing` | no | the project's own test internals: not a stable API |
//!
//! With `default-features = false` the library needs only glam, bytemuck,
//! thiserror and wide. [`glam`] (and with `gpu`, [`wgpu`]) are re-exported
//! so that a caller uses the same versions.

#![warn(missing_docs)]

mod core;
pub mod d2;
pub mod d3;
#[cfg(feature = "generate")]
pub mod generate;
#[cfg(feature = "gpu")]
pub mod gpu;
#[cfg(feature = "serde")]
mod scene;

pub use glam;
#[cfg(feature = "gpu")]
pub use wgpu;

// What both dimensions share.
pub use crate::core::alloc::reserve_output;
pub use crate::core::backend::BackendKind;
pub use crate::core::check::{Agreement, DEPTH_TOLERANCE, TOUCH_TOLERANCE};
pub use crate::core::error::{BodyError, Error, PairError, Result, ShapeError};
pub use crate::core::frame::{FrameStats, RunStats, StageTimes};
pub use crate::core::limits::{MAX_COORDINATE, MAX_SHAPE_SIZE, MIN_SHAPE_SIZE};
pub use crate::core::pair::{Owner, Pair, PairFilter, validate_pairs};
#[cfg(feature = "parallel")]
pub use crate::core::parallel::PARALLEL_MIN_PAIRS;
#[cfg(feature = "serde")]
pub use crate::core::scene::{MAX_SCENE_BYTES, PairDesc};
pub use crate::core::separation::{Candidates, Overlap, SeparationOptions, SeparationReport};
pub use crate::core::solver::{SolveReport, SolverOptions};
#[cfg(feature = "serde")]
pub use scene::{AnyScene, any_from_json, load_any};

// The 2D names, also at the root: `gpusat::Batch` is `gpusat::d2::Batch`.
pub use d2::*;
