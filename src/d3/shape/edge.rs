//! A hull's edges: the two vertices and the two faces of each, and each
//! edge's arc on the Gauss map, as the edge queries read them.

use glam::Vec3;

/// An edge of a hull: its two vertices and the two faces it separates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HullEdge {
    /// The vertex it starts from in face `f0`'s loop.
    pub v0: u32,
    /// The vertex it ends at in face `f0`'s loop.
    pub v1: u32,
    /// The face whose loop runs `v0 -> v1`.
    pub f0: u32,
    /// The face whose loop runs `v1 -> v0`.
    pub f1: u32,
}

/// An edge's arc on the Gauss map, as the edge queries read it: the normals
/// of its two faces and their cross product, side by side in memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeGauss {
    /// The normal of face `f0`.
    pub u: Vec3,
    /// The normal of face `f1`.
    pub v: Vec3,
    /// `v x u`: along the edge, the normal of the arc's great circle
    /// (computed in single precision, as the GPU kernel recomputes it).
    pub arc: Vec3,
}
