//! The 3D narrowphase: the Separating Axis Theorem for convex polyhedra,
//! with Gauss-map pruning of the edge pairs (seed 003), and spheres.
//!
//! # The theorem in 3D
//!
//! Two convex polyhedra are disjoint exactly when some plane separates them,
//! and the candidate normals of that plane are the face normals of either
//! polyhedron and the cross products of an edge of one with an edge of the
//! other: the face normals of their Minkowski difference. For each candidate
//! axis the *separation* is how far apart the two shapes' projections are;
//! the largest separation over all candidates is positive exactly when the
//! shapes are apart, and otherwise `depth = -separation` is the penetration
//! depth along that axis, the minimum translation. Moving B by
//! `normal * depth` makes the two touch.
//!
//! * **Face queries** (`faces.rs`): for a face of A, the separation is B's
//!   deepest vertex beyond its plane; the plane is moved into B's frame once
//!   and B's vertices read as they are stored. Then B's faces against A.
//! * **Edge queries** (`edges.rs`): `E_A x E_B` pairs, but only the pairs
//!   whose arcs cross on the two Gauss maps (A's, and B's negated) can be
//!   faces of the Minkowski difference; the test is four dot products and
//!   three sign tests per pair, and only the pairs that pass get an axis (the
//!   crossing point itself) and a separation. On random hulls about `0.86 E`
//!   of the `E^2` pairs pass. `EdgeSearch::BruteForce` skips the pruning and
//!   projects both hulls on every pair's axis instead: the unpruned SAT.
//! * **The default search** (`lanes.rs`) gives the pairwise queries'
//!   results bit for bit with less work: eight vertices or edges per
//!   vector, and bounds from each hull's inner ball that skip faces, whole
//!   edges of B, and the exact axis of pairs, that could neither beat the
//!   best so far (or the edge query's floor) nor reach the limit
//!   (`edges.rs`, `EdgeScan`). The output-sensitive walk (`walk.rs`: each
//!   of B's arcs walked across A's Gauss map) gives the same results too;
//!   the default takes it only from [`walk_min_vertices`] on, which no hull
//!   the library builds reaches on the CPUs measured (`EdgeSearch::Walk`
//!   asks for it on every pair).
//! * **Faces against a box** (`boxes.rs`): a face query against a box
//!   takes its deepest corner from the moved normal, up to eight faces at
//!   once, with the scan's bits; two boxes take their own edge query, their
//!   nine pairs of edge directions in closed form (on every backend: the
//!   kernel's `boxes` kind), and a hull's edges
//!   against a flat or long box (a floor, a wall) are bounded in closed
//!   form against its three (`lanes.rs`, `tighten_against_box`).
//! * **Spheres** (`sphere.rs`): against a hull, the hull's closest feature to
//!   the centre (a face, an edge or a vertex; the best face when the centre
//!   is inside), minus the radius; two spheres, the centre line.
//! * **Shapes with a radius** (`rounded.rs`): capsules and rounded hulls as
//!   cores grown by their radii: the cores' SAT plus the radii where the
//!   cores overlap, their exact nearest features where they are apart.
//! * **Which test a pair takes** (`pair.rs`): two hulls (`hulls.rs`), a hull
//!   and a sphere, two spheres, or a shape with a radius on either side;
//!   and the normal rebuilt from the reported feature.
//!
//! # Conventions (as in 2D)
//!
//! * **Frames.** Nothing is computed in world coordinates: B's transform
//!   relative to A (and A's relative to B) is formed once from the two world
//!   transforms, so a pair far from the origin computes what it would at the
//!   origin.
//! * **Normal and depth.** `normal` is a unit vector from A to B in the world
//!   frame, taken from the geometry (a face's normal, the edge pair's axis,
//!   the direction from a hull's feature to a sphere's centre), never from
//!   the centres of the shapes. `depth > 0` is penetration; a pair is
//!   reported when `depth > -margin`.
//! * **The axis** is a feature, [`Axis`](super::Axis): a face of A or of B,
//!   an edge of A with an edge of B, a hull's edge or vertex against a
//!   sphere, or the centre line of two spheres. The normal is rebuilt from
//!   it on the CPU for every backend (`axis_normal`), with the operations the
//!   SAT used.
//! * **Tie rule.** Candidates are scanned in a fixed order: A's faces, B's
//!   faces, then the edge pairs, B's edges outermost. A face query takes
//!   its hull's faces (ordered along their normals by the hull builder)
//!   from the run of eight that faces the other hull, going round
//!   (`faces.rs`, `first_face`): the same order on every backend. Within a query a later
//!   candidate replaces the best only when its separation is larger by more
//!   than `TIE_TOLERANCE * (size_a + size_b)`; B's best face replaces A's on
//!   the same condition; and an edge pair replaces the best face only when
//!   larger by more than `EDGE_TOLERANCE * (size_a + size_b)`, ten times as
//!   much: faces give stable multi-point contacts (as Box3D and Gregorius
//!   bias them), and the depth stays within `4e-5 x size` of the exact one.
//!   The edge query keeps only pairs above that level from the start (its
//!   floor, [`edge_floor`]: the chosen face plus the edge tolerance), so a
//!   pair that could never be chosen does not become the edge query's best
//!   and the bounds pass over most pairs at once.
//! * **Early exit.** As soon as one separation reaches the margin, the pair
//!   is not reported.

mod boxes;
mod boxes_across;
pub(crate) mod edges;
mod faces;
mod hulls;
mod lanes;
mod pair;
pub(crate) mod rounded;
pub(crate) mod segments_across;
mod separation;
mod sphere;
pub(crate) mod spheres_across;
mod walk;

pub use edges::{find_max_edge_separation, find_max_edge_separation_brute};
pub use faces::find_max_face_separation;
pub(crate) use lanes::most_opposed_face;
// The kernel's hot_faces bounds runs of faces as the face queries do.
#[cfg(test)]
pub(crate) use faces::{FaceOrder, face_cone_bound};
// The seeded stream of the unit tests of this dimension.
pub(crate) use boxes_across::BoxPairs;
pub use hulls::{
    WALK_MIN_VERTICES, WALK_MIN_VERTICES_AVX, collide_hulls, edge_pair_axis, walk_min_vertices,
};
#[cfg(test)]
pub(crate) use lanes::tests::xorshift;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub use lanes::{
    closest_feature_lanes, closest_feature_portable, find_max_edge_separation_portable,
    find_max_face_separation_portable, sphere_face_separation, sphere_face_separation_portable,
};
pub use lanes::{find_max_edge_separation_lanes, find_max_face_separation_lanes};
pub use pair::{axis_normal, collide_pair, complete_hit};
pub(crate) use pair::{centre_line, sphere_centre};
pub use rounded::{collide_rounded, rounded_axis_normal};
pub(crate) use segments_across::{CapsulePairs, PAIRS as CAPSULE_PAIRS};
pub use separation::{
    CONCENTRIC_TOLERANCE, EDGE_TOLERANCE, EdgeSeparation, PARALLEL_TOLERANCE, PairResult,
    Separation, TIE_TOLERANCE, edge_floor,
};
pub use sphere::{
    BOX_REGION_BAND, Closest, box_closest_feature, closest_feature, collide_hull_sphere,
    collide_spheres, sphere_axis, sphere_face_loop,
};
pub use walk::{FaceSupports, find_max_edge_separation_walk, find_max_face_separation_supports};
