//! What the 3D pair kinds share: results, tolerances, and the tie rule's
//! final choice between face and edge axes.

use super::super::types::Axis;

/// Relative tolerance of the tie rule between faces, times `size_a + size_b`
/// (as in 2D).
pub const TIE_TOLERANCE: f32 = 2.0e-6;
/// An edge axis replaces the best face axis only when its separation is
/// larger by more than this, times `size_a + size_b`: faces give stable
/// multi-point contacts, so they win near-ties by a margin ten times the
/// face tie rule's (and still well inside the `1e-4 x size` the depth is
/// checked to against the exact oracle).
pub const EDGE_TOLERANCE: f32 = 2.0e-5;
/// Edge pairs whose directions are this close to parallel (the sine of the
/// angle, measured as B's face normals against A's edge) are skipped: their
/// axis is ill defined, and the face axes cover them.
pub const PARALLEL_TOLERANCE: f32 = 1.0e-4;
/// Relative distance, times `radius_a + radius_b`, below which two sphere
/// centres count as concentric.
pub const CONCENTRIC_TOLERANCE: f32 = 1.0e-6;
pub(crate) use crate::core::limits::LOWEST;

/// The best face of one hull against another (or the best face of a hull
/// against a sphere's centre).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Separation {
    /// The largest separation found (`-depth`).
    pub value: f32,
    /// The face.
    pub index: u32,
}

impl Separation {
    /// Nothing found yet.
    pub const NONE: Separation = Separation {
        value: LOWEST,
        index: 0,
    };

    /// The tie rule: `value` replaces the best so far only when larger by
    /// more than `tolerance`.
    #[inline(always)]
    pub fn offer(&mut self, value: f32, index: u32, tolerance: f32) {
        if value > self.value + tolerance {
            *self = Separation { value, index };
        }
    }

    /// [`Separation::offer`], then a face query's early exit: the face
    /// itself where it reaches `limit` (the query stops there and returns
    /// it, the pair separated).
    #[inline(always)]
    pub fn offer_or_stop(
        &mut self,
        value: f32,
        index: u32,
        tolerance: f32,
        limit: f32,
    ) -> Option<Separation> {
        self.offer(value, index, tolerance);
        (value >= limit).then_some(Separation { value, index })
    }
}

/// The best edge pair of two hulls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeSeparation {
    /// The largest separation found.
    pub value: f32,
    /// A's edge.
    pub a: u32,
    /// B's edge.
    pub b: u32,
}

impl EdgeSeparation {
    /// Nothing found yet.
    pub const NONE: EdgeSeparation = EdgeSeparation {
        value: LOWEST,
        a: 0,
        b: 0,
    };
}

/// The outcome of one pair: the chosen axis and its separation (`-depth`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairResult {
    /// The axis, as features.
    pub axis: Axis,
    /// Its separation: minus the depth.
    pub separation: f32,
}

/// The face axis of a hull–hull test: B's best face if it beats A's by more
/// than the face tolerance, else A's.
#[inline(always)]
fn choose_face(face_a: Separation, face_b: Separation, tolerance: f32) -> (Axis, f32) {
    if face_b.value > face_a.value + tolerance {
        (Axis::FaceB(face_b.index), face_b.value)
    } else {
        (Axis::FaceA(face_a.index), face_a.value)
    }
}

/// The edge query's floor once the face queries are done: the chosen face's
/// separation plus the edge tolerance. An edge pair is chosen only above it
/// (`choose_hull_axis`), so the edge query keeps no pair that does not
/// exceed it, and the searches' bounds pass over most pairs from the start
/// (`find_max_edge_separation`).
#[inline(always)]
pub fn edge_floor(
    face_a: Separation,
    face_b: Separation,
    tolerance: f32,
    edge_tolerance: f32,
) -> f32 {
    choose_face(face_a, face_b, tolerance).1 + edge_tolerance
}

/// The end of a hull–hull test, once none of the three queries separated
/// the pair by the margin:
///
/// ```text
/// face = B's best face if it beats A's by more than the face tolerance, else A's
/// edge pair if it beats that face by more than the edge tolerance, else the face
/// ```
#[inline(always)]
pub fn choose_hull_axis(
    face_a: Separation,
    face_b: Separation,
    edge: EdgeSeparation,
    tolerance: f32,
    edge_tolerance: f32,
) -> PairResult {
    let (face_axis, face_value) = choose_face(face_a, face_b, tolerance);
    if edge.value > face_value + edge_tolerance {
        PairResult {
            axis: Axis::Edges(edge.a, edge.b),
            separation: edge.value,
        }
    } else {
        PairResult {
            axis: face_axis,
            separation: face_value,
        }
    }
}
