//! The narrowphase's vocabulary: candidate pairs, axes and what a backend
//! reports. Every other module speaks these types; this one imports none of
//! them back.

use crate::core::pair::Owner;
use glam::Vec2;

/// The axis of a result, as a feature of one of the two shapes. See the
/// [`sat`](crate::d2::sat) module for the numbering of features.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Axis {
    /// Which shape the feature belongs to.
    pub owner: Owner,
    /// The feature: an edge `i < n` or a vertex region `n + i` of a polygon
    /// of `n` vertices; 0, the centre, for a circle.
    pub feature: u32,
}

impl Axis {
    pub(crate) const OWNER_B_BIT: u32 = 1 << 31;

    /// The axis along `feature` of `owner`'s shape.
    pub fn new(owner: Owner, feature: u32) -> Axis {
        Axis { owner, feature }
    }

    /// The 32-bit form the GPU writes: bit 31 set for owner B, the feature below.
    pub fn pack(self) -> u32 {
        match self.owner {
            Owner::A => self.feature,
            Owner::B => self.feature | Axis::OWNER_B_BIT,
        }
    }

    /// The inverse of [`Axis::pack`].
    pub fn unpack(bits: u32) -> Axis {
        let owner = if bits & Axis::OWNER_B_BIT != 0 {
            Owner::B
        } else {
            Owner::A
        };
        Axis::new(owner, bits & !Axis::OWNER_B_BIT)
    }
}

/// What a narrowphase backend reports for one pair: 16 bytes, the same on
/// every backend.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SatHit {
    /// Index of the pair in the batch.
    pub pair: u32,
    /// The axis the depth was measured along.
    pub axis: Axis,
    /// Penetration depth; negative for a separated pair reported through the margin.
    pub depth: f32,
}

/// A reported pair with its bodies and world normal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Index of the pair in the batch.
    pub pair: u32,
    /// Body A.
    pub a: u32,
    /// Body B.
    pub b: u32,
    /// Unit vector from A to B: moving B by `normal * depth` makes them touch.
    pub normal: Vec2,
    /// Penetration depth; negative for a separated pair reported through the margin.
    pub depth: f32,
    /// The axis the normal was rebuilt from.
    pub axis: Axis,
}

/// How a polygon's faces find the other polygon's deepest vertex. Both
/// searches find the same values, bit for bit; they differ in speed only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FaceSearch {
    /// Merged above each backend's measured threshold
    /// ([`CPU_MERGE_THRESHOLD`](crate::d2::sat::CPU_MERGE_THRESHOLD),
    /// [`GPU_MERGE_THRESHOLD`](crate::d2::sat::GPU_MERGE_THRESHOLD)), every
    /// vertex below.
    #[default]
    Auto,
    /// Every face against every vertex.
    BruteForce,
    /// Merged for all polygons of more than 8 vertices (the GPU always takes
    /// its straight-line path up to 8).
    Merged,
}

impl FaceSearch {
    /// Polygons with more vertices than this (on both sides) merge, on a
    /// backend whose own threshold is `backend`.
    pub fn threshold(self, backend: u32) -> u32 {
        match self {
            FaceSearch::Auto => backend,
            FaceSearch::BruteForce => u32::MAX,
            FaceSearch::Merged => 8,
        }
    }
}
