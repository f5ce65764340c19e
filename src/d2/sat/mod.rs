//! The CPU reference narrowphase: the Separating Axis Theorem with the
//! minimum translation vector. This module is the source of truth that every
//! other backend is checked against.
//!
//! # The theorem, and what is computed
//!
//! Two convex shapes are disjoint exactly when some line separates them, and
//! in 2D such a line can always be taken parallel to an edge of one of them:
//! it is enough to look along the edges' normals. For each face of a polygon
//! with outward normal `n` through vertex `v`, the *separation* of the other
//! shape from that face is how far its deepest point lies beyond the face:
//!
//! ```text
//!     s = min over the other shape's points w of  dot(n, w - v)
//! ```
//!
//! `s > 0` means the face's line separates the shapes. The largest separation
//! over all faces of both polygons is the one that matters: if it is positive
//! the shapes are apart; if it is negative, `depth = -s` is the penetration
//! depth and the face normal is the direction of the minimum translation
//! vector. Moving B by `normal * depth` makes the two touch.
//!
//! The seeds project both shapes on every axis and take the overlap of the two
//! intervals in both directions. For convex polygons the one-sided test above
//! is the same answer at half the work: a face normal points out of its own
//! polygon, so only the other shape's deepest point along `-n` can matter.
//! Nor is the normal turned by a centre-to-centre heuristic, which fails for
//! long or thin shapes: it is the chosen face's own outward normal, which
//! points from its owner towards the other shape.
//!
//! Every shape is a convex core grown by a radius (0 for a plain polygon
//! and a segment, a segment being a polygon of two faces). The radii add
//! to a circle's (a polygon's to the circle's radius); between two cores
//! with radii, `rounded.rs` says how the depth and axis follow from the
//! cores' SAT.
//!
//! Circles add two cases. Polygon against circle uses the separation of the
//! circle's centre from the polygon's faces, minus the radius; when the centre
//! lies outside the polygon beyond the end of the best face, the nearest
//! feature is that face's end vertex (its Voronoi region), and the axis runs
//! from the vertex to the centre. Circle against circle uses the centre line.
//!
//! # Conventions
//!
//! * **Frames.** Nothing is computed in world coordinates. A's faces are
//!   moved into B's local frame and B's faces into A's (see
//!   [`inv_mul_transforms`](crate::d2::math::inv_mul_transforms)), so only small numbers meet and a pair far from
//!   the origin computes exactly what it would at the origin. The inner loop
//!   then reads the other polygon's vertices untransformed, straight from the
//!   shape library.
//! * **Normal and depth.** `normal` is a unit vector from A to B in the world
//!   frame and `depth > 0` is penetration. A pair is *reported* when
//!   `depth > -margin`; with the default margin 0 only overlapping pairs are.
//!   For separated pairs reported through a margin the depth is minus the
//!   largest face separation: a lower bound of the gap.
//! * **The axis.** A result names its axis as an [`Axis`](crate::d2::Axis): the owner (A or B)
//!   and a feature of the owner. For a polygon of `n` vertices, feature `i < n`
//!   is the edge from vertex `i` to `i + 1` and feature `n + i` is vertex `i`
//!   (the axis from that vertex to a circle's centre); between two rounded
//!   cores, feature `2 n + i m + j` is the owner's vertex `i` and the other
//!   polygon's vertex `j` (of `m`), the axis from the one to the other. For a circle, feature 0
//!   is its centre (the centre line of two circles). The normal is rebuilt from
//!   the feature and the two transforms by `axis_normal` (`pair.rs`), so a backend only
//!   has to report the feature and the depth.
//! * **Tie rule.** The candidates are scanned in a fixed order: A's faces
//!   `0..n`, then B's faces `0..m`. A later face replaces the best one so far
//!   only when its separation is larger by more than
//!   `tolerance = TIE_TOLERANCE * (size_a + size_b)` (sizes from
//!   [`Shape::size`](crate::d2::Shape::size)); B's best replaces A's best on the
//!   same condition. Exact geometric ties (aligned boxes, symmetric piles) thus
//!   always go to the earlier face, whatever the rounding noise; the chosen
//!   separation is never more than `tolerance` below the true maximum.
//! * **Early exit.** As soon as one face separation reaches `margin`, the pair
//!   is not reported, whatever the other faces say.
//! * **Concentric circles.** When two circle centres are closer than
//!   `CONCENTRIC_TOLERANCE * (radius_a + radius_b)`, the normal is A's local
//!   x axis (rotated into the world).
//!
//! # Where each part lives
//!
//! | file | what |
//! |---|---|
//! | `separation.rs` | what the others share: the best face (`Separation`), a pair's result (`PairResult`), the tolerances, the face plane, the choice between A's and B's best face |
//! | `polygons.rs` | polygon against polygon, every face against every vertex (`find_max_separation`) |
//! | `merged.rs` | the same in `O(n + m)` for large polygons: seed 003's Gauss map in 2D (`find_max_separation_merged`) |
//! | `polygon_circle.rs` | polygon against circle: faces, then the vertex regions |
//! | `circles.rs` | circle against circle |
//! | `rounded.rs` | shapes with a radius (rounded polygons, capsules): the cores' SAT plus the radii, or the cores' exact closest features once they are apart |
//! | `segments.rs` | two segment cores (capsules, segments) in straight-line arithmetic: what the CPU backends run for the pair, bit for bit `polygons.rs` + `rounded.rs` |
//! | `circles_across.rs` | two circles eight pairs at a time, a lane a pair (their manifolds follow in the same lanes: `manifold/circles_across.rs`) |
//! | `polygons_across.rs` | two triangles or quads (with radii or without) eight pairs at a time, a lane a pair: what the batch loops run where a range's pairs are all of such polygons (their manifolds then clipped eight at a time: `manifold/clip_across.rs`) |
//! | `segments_across.rs` | the same, eight pairs at a time, a lane a pair: what the batch loops run where most pairs are of two segment cores (their manifolds follow in the same lanes: `manifold/segments_across.rs`) |
//! | `straight.rs` | the straight-line `*8` and `*16` paths for polygons of up to 8 and 16 vertices (loops that carry state ran five times slower on lavapipe) |
//! | `pair.rs` | one candidate pair: the choice of path, and the normal rebuilt from a feature (`axis_normal`) |
//! | `lanes.rs` | the whole computation eight faces at a time (AVX or SSE), bit for bit the scalar one: what the CPU backends run |
//!
//! `shaders/d2/sat.wgsl` is the twin of the scalar files: the same functions,
//! with the same names, in the same order, doing the same operations in the
//! same order, so that a difference can be found by reading the two side by
//! side.

mod circles;
pub(crate) mod circles_across;
mod lanes;
mod merged;
mod pair;
mod polygon_circle;
mod polygons;
pub(crate) mod polygons_across;
mod rounded;
mod segments;
pub(crate) mod segments_across;
mod separation;
mod straight;

pub use separation::{
    CONCENTRIC_TOLERANCE, CPU_MERGE_THRESHOLD, GPU_MERGE_THRESHOLD, TIE_TOLERANCE,
};

pub(crate) use lanes::{collide_range, contacts_range, test_pair};
pub(crate) use pair::{Side, axis_normal, collide_pair, complete_hit};
pub(crate) use rounded::vertex_pair_of;
pub(crate) use separation::PairResult;

/// The kernels one by one, for the project's twin tests and benches: not a
/// stable API.
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod twins {
    pub use super::circles::collide_circles;
    pub use super::lanes::{
        collide_range, collide_range_portable, contacts_range, contacts_range_portable, test_pair,
    };
    pub use super::merged::{collide_polygons_merged, descend, find_max_separation_merged};
    pub use super::pair::collide_pair_records;
    pub use super::polygon_circle::{
        circle_face_separation, collide_polygon_circle, finish_polygon_circle, walk_to_region,
    };
    pub use super::polygons::{collide_polygons, find_max_separation};
    pub use super::separation::{
        PairResult, Separation, choose_polygon_axis, face_plane, uses_merge_above,
    };
    pub use super::straight::{
        Faces8, Faces16, collide_polygon_circle8, collide_polygon_circle16, collide_polygons8,
        collide_polygons16, face_separation8, face_separation16, find_max_separation8,
        find_max_separation16, load_faces8, load_faces16, scan_face8, settle8, vertex_min8,
    };
    pub use crate::core::simd::uses_avx;
}
