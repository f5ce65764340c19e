//! What the pair kinds share: the result types, the tolerances of the tie
//! rule, a face moved into the other shape's frame, and the choice between
//! A's best face and B's.

use glam::Vec2;

use crate::core::pair::Owner;
use crate::d2::math::{Transform, rotate, transform_point};
use crate::d2::shape::EdgeRecord;
use crate::d2::types::Axis;

/// Relative tolerance of the tie rule, times `size_a + size_b`.
pub const TIE_TOLERANCE: f32 = 2.0e-6;
/// Relative distance, times `radius_a + radius_b`, below which two circles
/// count as concentric.
pub const CONCENTRIC_TOLERANCE: f32 = 1.0e-6;
pub(crate) use crate::core::limits::LOWEST;

/// The best face of one polygon against another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Separation {
    /// The largest separation found (`-depth`).
    pub value: f32,
    /// The face it belongs to.
    pub edge: u32,
}

impl Separation {
    /// Nothing found yet.
    pub(crate) const NONE: Separation = Separation {
        value: LOWEST,
        edge: 0,
    };
}

/// The outcome of one pair: the chosen axis and its separation (`-depth`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairResult {
    /// The axis, as a feature of one shape.
    pub axis: Axis,
    /// Its separation: minus the depth.
    pub separation: f32,
}

/// `a.x * b.x + a.y * b.y`, written out so that the order of operations is
/// the kernel's.
#[inline(always)]
pub(crate) fn dot(a: Vec2, b: Vec2) -> f32 {
    a.x * b.x + a.y * b.y
}

/// `sqrt(v.x * v.x + v.y * v.y)`, as the kernel computes it.
#[inline(always)]
pub(crate) fn length(v: Vec2) -> f32 {
    (v.x * v.x + v.y * v.y).sqrt()
}

/// One face moved into the other polygon's frame by `xf`: its normal and
/// `dot(normal, vertex)`.
#[inline(always)]
pub fn face_plane(face: &EdgeRecord, xf: Transform) -> (Vec2, f32) {
    let normal = rotate(xf.q, face.normal);
    let vertex = transform_point(xf, face.vertex);
    (normal, dot(normal, vertex))
}

/// On the CPU, polygons that both have more vertices than this use
/// the merged face search (`merged.rs`). Set by measurement
/// (`benches/large_polygons.rs`, this 2-core machine): there the brute force
/// takes 8 faces per AVX instruction, and the merge only wins from about 48
/// vertices (1.1x), 1.3x at 64.
pub const CPU_MERGE_THRESHOLD: u32 = 48;

/// On the GPU, the same threshold. Set by measurement on lavapipe: the merge
/// wins from 17 vertices (1.6x at 24, 4.1x at 64), where every vertex read in
/// a loop is costly.
pub const GPU_MERGE_THRESHOLD: u32 = 16;

/// Whether a pair of polygons with these vertex counts merges, polygons of
/// more than `threshold` vertices on both sides doing so.
#[inline(always)]
pub fn uses_merge_above(count1: u32, count2: u32, threshold: u32) -> bool {
    count1 > threshold && count2 > threshold
}

/// The end of every polygon–polygon test: nothing when either side
/// separates by the margin, else B's axis only when it is better by more
/// than the tolerance (the tie rule). The one place the choice is made, on
/// every CPU path.
#[inline(always)]
pub fn choose_polygon_axis(
    separation_a: Separation,
    separation_b: Separation,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    if separation_a.value >= margin || separation_b.value >= margin {
        return None;
    }
    Some(if separation_b.value > separation_a.value + tolerance {
        PairResult {
            axis: Axis::new(Owner::B, separation_b.edge),
            separation: separation_b.value,
        }
    } else {
        PairResult {
            axis: Axis::new(Owner::A, separation_a.edge),
            separation: separation_a.value,
        }
    })
}
