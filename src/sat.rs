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
//!   [`inv_mul_transforms`]), so only small numbers meet and a pair far from
//!   the origin computes exactly what it would at the origin. The inner loop
//!   then reads the other polygon's vertices untransformed, straight from the
//!   shape library.
//! * **Normal and depth.** `normal` is a unit vector from A to B in the world
//!   frame and `depth > 0` is penetration. A pair is *reported* when
//!   `depth > -margin`; with the default margin 0 only overlapping pairs are.
//!   For separated pairs reported through a margin the depth is minus the
//!   largest face separation: a lower bound of the gap.
//! * **The axis.** A result names its axis as an [`Axis`]: the owner (A or B)
//!   and a feature of the owner. For a polygon of `n` vertices, feature `i < n`
//!   is the edge from vertex `i` to `i + 1` and feature `n + i` is vertex `i`
//!   (the axis from that vertex to a circle's centre). For a circle, feature 0
//!   is its centre (the centre line of two circles). The normal is rebuilt from
//!   the feature and the two transforms by [`axis_normal`], so a backend only
//!   has to report the feature and the depth.
//! * **Tie rule.** The candidates are scanned in a fixed order: A's faces
//!   `0..n`, then B's faces `0..m`. A later face replaces the best one so far
//!   only when its separation is larger by more than
//!   `tolerance = TIE_TOLERANCE * (size_a + size_b)` (sizes from
//!   [`Shape::size`](crate::Shape::size)); B's best replaces A's best on the
//!   same condition. Exact geometric ties (aligned boxes, symmetric piles) thus
//!   always go to the earlier face, whatever the rounding noise; the chosen
//!   separation is never more than `tolerance` below the true maximum.
//! * **Early exit.** As soon as one face separation reaches `margin`, the pair
//!   is not reported, whatever the other faces say.
//! * **Concentric circles.** When two circle centres are closer than
//!   `CONCENTRIC_TOLERANCE * (radius_a + radius_b)`, the normal is A's local
//!   x axis (rotated into the world).
//!
//! `shaders/sat.wgsl` is this module's twin: the same functions, with the same
//! names, in the same order, doing the same operations in the same order.
//! Polygons of up to 8 vertices go through straight-line `*8` variants there
//! (and here), which compute the same values as the looped functions.

use glam::Vec2;

use crate::math::{Transform, inv_mul_transforms, rotate, transform_point};
use crate::narrowphase::{Axis, Owner};
use crate::shape::{EdgeRecord, ShapeRecord, ShapeSet};

/// Relative tolerance of the tie rule, times `size_a + size_b`.
pub const TIE_TOLERANCE: f32 = 2.0e-6;
/// Relative distance, times `radius_a + radius_b`, below which two circles
/// count as concentric.
pub const CONCENTRIC_TOLERANCE: f32 = 1.0e-6;
/// Stands for "no separation found yet"; finite, as WGSL requires.
const LOWEST: f32 = -f32::MAX;

/// The best face of one polygon against another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Separation {
    pub value: f32,
    pub edge: u32,
}

/// The outcome of one pair: the chosen axis and its separation (`-depth`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairResult {
    pub axis: Axis,
    pub separation: f32,
}

#[inline(always)]
fn dot(a: Vec2, b: Vec2) -> f32 {
    a.x * b.x + a.y * b.y
}

#[inline(always)]
fn length(v: Vec2) -> f32 {
    (v.x * v.x + v.y * v.y).sqrt()
}

/// The deepest face of `poly1` against the vertices of `poly2`.
///
/// ```text
/// best = (LOWEST, 0)
/// for each edge i of poly1:
///     n, v   = normal and vertex of edge i, moved into poly2's frame by xf
///     offset = dot(n, v)
///     s      = min over vertices w of poly2 of (n.x w.x - offset) + n.y w.y
///     if s > best.value + tolerance: best = (s, i)      # the tie rule
///     if s >= limit: return (s, i)                      # separated: stop
/// return best
/// ```
///
/// A returned value `>= limit` means the pair is separated by at least
/// `limit` along some face and is not reported.
#[inline(always)]
pub fn find_max_separation(
    poly1: &[EdgeRecord],
    poly2: &[EdgeRecord],
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let mut best = Separation {
        value: LOWEST,
        edge: 0,
    };
    for (i, edge) in poly1.iter().enumerate() {
        let normal = rotate(xf.q, edge.normal);
        let vertex = transform_point(xf, edge.vertex);
        let offset = dot(normal, vertex);
        let mut separation = f32::MAX;
        // dot(normal, other) - offset, in the order lavapipe evaluates the
        // WGSL twin (it takes the loop-invariant offset off the first
        // product; measured), so that both give the same bits.
        for other in poly2 {
            separation =
                separation.min((normal.x * other.vertex.x - offset) + normal.y * other.vertex.y);
        }
        if separation > best.value + tolerance {
            best = Separation {
                value: separation,
                edge: i as u32,
            };
        }
        if separation >= limit {
            return Separation {
                value: separation,
                edge: i as u32,
            };
        }
    }
    best
}

/// On the CPU, polygons that both have more vertices than this use
/// [`find_max_separation_merged`]. Set by measurement
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

/// How a polygon's faces find the other polygon's deepest vertex. Both
/// searches find the same values (`tests/sat_twins.rs`); they differ in
/// speed only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FaceSearch {
    /// Merged above each backend's threshold ([`CPU_MERGE_THRESHOLD`],
    /// [`GPU_MERGE_THRESHOLD`]), every vertex below.
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

/// One face of `poly1` moved into `poly2`'s frame: normal and `dot(normal, vertex)`.
#[inline(always)]
fn moved_face(face: &EdgeRecord, xf: Transform) -> (Vec2, f32) {
    let normal = rotate(xf.q, face.normal);
    let vertex = transform_point(xf, face.vertex);
    (normal, dot(normal, vertex))
}

/// `dot(normal, w) - offset` for vertex `j` of `poly`, in the loop's order.
#[inline(always)]
fn vertex_separation(poly: &[EdgeRecord], normal: Vec2, offset: f32, j: usize) -> f32 {
    let w = poly[j].vertex;
    (normal.x * w.x - offset) + normal.y * w.y
}

/// From vertex `from`, walks forward while the next vertex lies no higher
/// along `normal`: a lowest vertex (a convex polygon's heights along a
/// direction fall, then rise).
#[inline(always)]
pub fn descend(poly: &[EdgeRecord], normal: Vec2, offset: f32, from: usize) -> usize {
    let count = poly.len();
    let mut j = from;
    let mut height = vertex_separation(poly, normal, offset, j);
    for _ in 1..count {
        let next = if j + 1 < count { j + 1 } else { 0 };
        let next_height = vertex_separation(poly, normal, offset, next);
        if next_height > height {
            break;
        }
        j = next;
        height = next_height;
    }
    j
}

/// [`find_max_separation`] in `O(n + m)` instead of `O(n * m)`, for large
/// polygons: seed 003's Gauss map, in 2D.
///
/// The faces of `poly1` come in angular order, and so do the directions in
/// which `poly2` is deepest against them: as the face normal turns, `poly2`'s
/// deepest vertex (its support along `-n`) only moves forward. Merging the
/// two sorted sequences finds every face's deepest vertex in one sweep.
///
/// ```text
/// low = the first lowest vertex of poly2 along face 0      # O(m), once
/// for each group of 8 consecutive faces of poly1:
///     end = walk forward from low to the lowest vertex along the group's last face
///     for each face of the group:                           # as find_max_separation,
///         s = min over vertices low..=end of dot(n, w) - offset     # over that window only
///         tie rule, early exit
///     low = end
/// ```
///
/// Every face of the group has its deepest vertex inside the window (at or
/// after the previous group's last face's, at or before this group's last
/// face's), so the window's minimum is the same value the full loop finds. Groups of 8 match
/// the vectorised CPU path, which takes a group's faces at once.
pub fn find_max_separation_merged(
    poly1: &[EdgeRecord],
    poly2: &[EdgeRecord],
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let (count1, count2) = (poly1.len(), poly2.len());
    let (normal, offset) = moved_face(&poly1[0], xf);
    let mut low = 0;
    let mut lowest = vertex_separation(poly2, normal, offset, 0);
    for j in 1..count2 {
        let height = vertex_separation(poly2, normal, offset, j);
        if height < lowest {
            low = j;
            lowest = height;
        }
    }
    let mut best = Separation {
        value: LOWEST,
        edge: 0,
    };
    for group_start in (0..count1).step_by(8) {
        let group_end = (group_start + 8).min(count1);
        let start = low;
        let (last_normal, last_offset) = moved_face(&poly1[group_end - 1], xf);
        let end = descend(poly2, last_normal, last_offset, start);
        let window = (end + count2 - start) % count2 + 1;
        for i in group_start..group_end {
            let (normal, offset) = moved_face(&poly1[i], xf);
            let mut separation = f32::MAX;
            for k in 0..window {
                let j = if start + k < count2 {
                    start + k
                } else {
                    start + k - count2
                };
                separation = separation.min(vertex_separation(poly2, normal, offset, j));
            }
            if separation > best.value + tolerance {
                best = Separation {
                    value: separation,
                    edge: i as u32,
                };
            }
            if separation >= limit {
                return Separation {
                    value: separation,
                    edge: i as u32,
                };
            }
        }
        low = end;
    }
    best
}

/// Polygon A against polygon B. `xf_ab` takes B's local points into A's
/// frame, `xf_ba` the reverse.
#[inline(always)]
pub fn collide_polygons(
    poly_a: &[EdgeRecord],
    poly_b: &[EdgeRecord],
    xf_ab: Transform,
    xf_ba: Transform,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    collide_polygons_with(
        find_max_separation,
        poly_a,
        poly_b,
        (xf_ab, xf_ba),
        tolerance,
        margin,
    )
}

/// [`collide_polygons`] with the merged search.
pub fn collide_polygons_merged(
    poly_a: &[EdgeRecord],
    poly_b: &[EdgeRecord],
    xf_ab: Transform,
    xf_ba: Transform,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    collide_polygons_with(
        find_max_separation_merged,
        poly_a,
        poly_b,
        (xf_ab, xf_ba),
        tolerance,
        margin,
    )
}

type Search = fn(&[EdgeRecord], &[EdgeRecord], Transform, f32, f32) -> Separation;

fn collide_polygons_with(
    search: Search,
    poly_a: &[EdgeRecord],
    poly_b: &[EdgeRecord],
    (xf_ab, xf_ba): (Transform, Transform),
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    let separation_a = search(poly_a, poly_b, xf_ba, tolerance, margin);
    if separation_a.value >= margin {
        return None;
    }
    let separation_b = search(poly_b, poly_a, xf_ab, tolerance, margin);
    if separation_b.value >= margin {
        return None;
    }
    if separation_b.value > separation_a.value + tolerance {
        Some(PairResult {
            axis: Axis::new(Owner::B, separation_b.edge),
            separation: separation_b.value,
        })
    } else {
        Some(PairResult {
            axis: Axis::new(Owner::A, separation_a.edge),
            separation: separation_a.value,
        })
    }
}

/// A polygon against a circle whose centre is `centre` in the polygon's frame.
/// The result's feature is the polygon's; the caller says who owns it.
///
/// ```text
/// (s, i) = max over faces of dot(n_i, centre) - dot(n_i, v_i)   # tie rule, early exit
/// if s > 0:                       # centre outside the polygon
///     if centre is before v_i along edge i:      vertex region of v_i
///     elif centre is past v_i+1 along edge i:    vertex region of v_i+1
///     (walking on to a neighbouring face or vertex if the centre lies
///     past that vertex too: see walk_to_region)
/// separation = (distance to that vertex, or s) - radius
/// ```
#[inline(always)]
pub fn collide_polygon_circle(
    poly: &[EdgeRecord],
    centre: Vec2,
    radius: f32,
    owner: Owner,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    let limit = margin + radius;
    let mut best = Separation {
        value: LOWEST,
        edge: 0,
    };
    for (i, edge) in poly.iter().enumerate() {
        let offset = dot(edge.normal, edge.vertex);
        // dot(normal, centre) - offset, in lavapipe's order (as above).
        let separation = (edge.normal.x * centre.x - offset) + edge.normal.y * centre.y;
        if separation > best.value + tolerance {
            best = Separation {
                value: separation,
                edge: i as u32,
            };
        }
        if separation >= limit {
            return None;
        }
    }

    finish_polygon_circle(poly, centre, radius, owner, margin, best)
}

/// From the vertex at the end of the chosen face that the centre lies
/// beyond, walk along the outline (`forward` or back) to the feature whose
/// region holds the centre: that vertex, the face past it (its separation
/// when the centre lies over its edge and outside it), or on. The tie rule
/// may choose a face up to the tolerance below the best, and then the
/// centre can lie past its end in a neighbour's region: the fuzzer found a
/// circle over the second of two nearly parallel edges given the first's
/// vertex, whose depth was not the overlap along its axis. Returns the
/// feature and the distance; usually the first step settles it.
#[inline(always)]
pub fn walk_to_region(poly: &[EdgeRecord], centre: Vec2, start: u32, forward: bool) -> (u32, f32) {
    let count = poly.len() as u32;
    let mut vertex = start;
    for _ in 0..count {
        let previous = if vertex > 0 { vertex - 1 } else { count - 1 };
        let (face, far) = if forward {
            (vertex, if vertex + 1 < count { vertex + 1 } else { 0 })
        } else {
            (previous, previous)
        };
        let near_point = poly[vertex as usize].vertex;
        let far_point = poly[far as usize].vertex;
        if dot(centre - near_point, far_point - near_point) <= 0.0 {
            break;
        }
        if dot(centre - far_point, near_point - far_point) > 0.0 {
            let separation = circle_face_separation8(&poly[face as usize], centre);
            if separation > 0.0 {
                return (face, separation);
            }
            break;
        }
        vertex = far;
    }
    (
        count + vertex,
        length(centre - poly[vertex as usize].vertex),
    )
}

/// The end of [`collide_polygon_circle`], once the best face is known: the
/// vertex regions (see [`walk_to_region`]), then the reporting test.
#[inline(always)]
pub fn finish_polygon_circle(
    poly: &[EdgeRecord],
    centre: Vec2,
    radius: f32,
    owner: Owner,
    margin: f32,
    best: Separation,
) -> Option<PairResult> {
    let count = poly.len() as u32;
    let mut feature = best.edge;
    let mut distance = best.value;
    if best.value > 0.0 {
        let i1 = best.edge;
        let i2 = if i1 + 1 < count { i1 + 1 } else { 0 };
        let v1 = poly[i1 as usize].vertex;
        let v2 = poly[i2 as usize].vertex;
        let u1 = dot(centre - v1, v2 - v1);
        let u2 = dot(centre - v2, v1 - v2);
        if u1 < 0.0 || u2 < 0.0 {
            let (start, forward) = if u1 < 0.0 { (i1, false) } else { (i2, true) };
            let (region, to_region) = walk_to_region(poly, centre, start, forward);
            if to_region > 0.0 {
                feature = region;
                distance = to_region;
            }
        }
    }
    let separation = distance - radius;
    if separation >= margin {
        return None;
    }
    Some(PairResult {
        axis: Axis::new(owner, feature),
        separation,
    })
}

/// Circle A against circle B, whose centre is `centre` in A's frame.
#[inline(always)]
pub fn collide_circles(
    centre: Vec2,
    radius_a: f32,
    radius_b: f32,
    margin: f32,
) -> Option<PairResult> {
    let separation = length(centre) - (radius_a + radius_b);
    if separation >= margin {
        return None;
    }
    Some(PairResult {
        axis: Axis::new(Owner::A, 0),
        separation,
    })
}

// ---- Polygons of up to 8 vertices: straight-line code ----------------------
// The twins of the WGSL kernel's `*8` functions, which run there because
// loops carrying state ran five times slower on lavapipe. Each polygon is
// read once, padded to 8 by repeating its last vertex (harmless to a
// minimum), every face separation computed without a loop, and faces past
// the count left out of the scan. The values are those of the looped
// functions, operation for operation, and the scan gives what their
// face-by-face loop gives (`tests/sat_twins.rs`).

/// A polygon of up to 8 vertices, padded by repeating its last vertex.
pub type Faces8 = [EdgeRecord; 8];

pub fn load_faces8(poly: &[EdgeRecord]) -> Faces8 {
    let last = poly.len() - 1;
    std::array::from_fn(|i| poly[i.min(last)])
}

/// One face of [`find_max_separation`] moved into the other polygon's frame:
/// its normal and `dot(normal, vertex)`.
#[inline(always)]
pub fn face_plane(face: &EdgeRecord, xf: Transform) -> (Vec2, f32) {
    let normal = rotate(xf.q, face.normal);
    let vertex = transform_point(xf, face.vertex);
    (normal, dot(normal, vertex))
}

/// `separation` lowered to the least separation of 8 vertices from a face
/// plane, in the vertices' order.
#[inline(always)]
pub fn vertex_min8(separation: f32, normal: Vec2, offset: f32, other: &Faces8) -> f32 {
    let mut separation = separation;
    for w in other {
        separation = separation.min((normal.x * w.vertex.x - offset) + normal.y * w.vertex.y);
    }
    separation
}

/// One face of [`find_max_separation`]: min over the 8 vertices of `other`.
#[inline(always)]
pub fn face_separation8(face: &EdgeRecord, xf: Transform, other: &Faces8) -> f32 {
    let (normal, offset) = face_plane(face, xf);
    vertex_min8(f32::MAX, normal, offset, other)
}

/// The tie rule and the limit test of one face; whether some face reached
/// the limit is carried in bit 31 of `best.edge`.
#[inline(always)]
pub fn scan_face8(
    best: Separation,
    value: f32,
    face: u32,
    count: u32,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let live = face < count;
    let take = live && value > best.value + tolerance;
    let reached = if live && value >= limit {
        REACHED_BIT
    } else {
        0
    };
    Separation {
        value: if take { value } else { best.value },
        edge: (if take { face } else { best.edge }) | reached,
    }
}

const REACHED_BIT: u32 = 1 << 31;

/// The reached-the-limit flag made into a separation at or past the limit.
#[inline(always)]
pub fn settle8(best: Separation) -> Separation {
    let reached = best.edge & REACHED_BIT != 0;
    Separation {
        value: if reached { f32::MAX } else { best.value },
        edge: best.edge & !REACHED_BIT,
    }
}

pub fn find_max_separation8(
    faces1: &Faces8,
    count1: u32,
    faces2: &Faces8,
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let separation = |record: &EdgeRecord| face_separation8(record, xf, faces2);
    scan_faces(faces1.iter(), count1, separation, tolerance, limit)
}

/// The straight-line scan: every padded face's separation, in order,
/// through the tie rule and the limit test.
#[inline(always)]
fn scan_faces<'a>(
    faces: impl Iterator<Item = &'a EdgeRecord>,
    count: u32,
    separation: impl Fn(&EdgeRecord) -> f32,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let mut best = Separation {
        value: LOWEST,
        edge: 0,
    };
    for (face, record) in faces.enumerate() {
        best = scan_face8(
            best,
            separation(record),
            face as u32,
            count,
            tolerance,
            limit,
        );
    }
    settle8(best)
}

pub fn collide_polygons8(
    poly_a: &[EdgeRecord],
    poly_b: &[EdgeRecord],
    xf_ab: Transform,
    xf_ba: Transform,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    let faces_a = load_faces8(poly_a);
    let faces_b = load_faces8(poly_b);
    let separation_a = find_max_separation8(
        &faces_a,
        poly_a.len() as u32,
        &faces_b,
        xf_ba,
        tolerance,
        margin,
    );
    let separation_b = find_max_separation8(
        &faces_b,
        poly_b.len() as u32,
        &faces_a,
        xf_ab,
        tolerance,
        margin,
    );
    choose_polygon_axis(separation_a, separation_b, tolerance, margin)
}

/// The end of the straight-line polygon tests: nothing when either side
/// separates by the margin, else B's axis only when it is better by more
/// than the tolerance (the tie rule).
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

/// One face of [`collide_polygon_circle`].
#[inline(always)]
pub fn circle_face_separation8(face: &EdgeRecord, centre: Vec2) -> f32 {
    let offset = dot(face.normal, face.vertex);
    (face.normal.x * centre.x - offset) + face.normal.y * centre.y
}

pub fn collide_polygon_circle8(
    poly: &[EdgeRecord],
    centre: Vec2,
    radius: f32,
    owner: Owner,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    let faces = load_faces8(poly);
    scan_circle_faces(poly, faces.iter(), centre, radius, owner, tolerance, margin)
}

/// The straight-line polygon–circle test over `faces` (the polygon padded
/// to 8 or 16): each face scanned in order, then the vertex regions.
#[inline(always)]
fn scan_circle_faces<'a>(
    poly: &[EdgeRecord],
    faces: impl Iterator<Item = &'a EdgeRecord>,
    centre: Vec2,
    radius: f32,
    owner: Owner,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    let limit = margin + radius;
    let separation = |record: &EdgeRecord| circle_face_separation8(record, centre);
    let settled = scan_faces(faces, poly.len() as u32, separation, tolerance, limit);
    if settled.value >= limit {
        return None;
    }
    finish_polygon_circle(poly, centre, radius, owner, margin, settled)
}

// ---- Polygons of 9 to 16 vertices: straight-line code, twice over --------
// The same idea as the `*8` functions for the next size up: a polygon read
// as two groups of 8 (padded by repeating its last vertex), each face's
// minimum taken over the first group and then the second, which is the
// looped functions' vertex order, and 16 faces scanned in order. On lavapipe
// this ran 16-gon pairs 10 times faster than the loops (903 to 89 ns per
// pair in the kernel).

/// A polygon of up to 16 vertices, padded by repeating its last vertex.
pub struct Faces16 {
    pub low: Faces8,
    pub high: Faces8,
}

pub fn load_faces16(poly: &[EdgeRecord]) -> Faces16 {
    let last = poly.len() - 1;
    Faces16 {
        low: std::array::from_fn(|i| poly[i.min(last)]),
        high: std::array::from_fn(|i| poly[(i + 8).min(last)]),
    }
}

/// One face of [`find_max_separation`]: min over the 16 vertices of `other`.
#[inline(always)]
pub fn face_separation16(face: &EdgeRecord, xf: Transform, other: &Faces16) -> f32 {
    let (normal, offset) = face_plane(face, xf);
    let separation = vertex_min8(f32::MAX, normal, offset, &other.low);
    vertex_min8(separation, normal, offset, &other.high)
}

pub fn find_max_separation16(
    faces1: &Faces16,
    count1: u32,
    faces2: &Faces16,
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let all = faces1.low.iter().chain(&faces1.high);
    let separation = |record: &EdgeRecord| face_separation16(record, xf, faces2);
    scan_faces(all, count1, separation, tolerance, limit)
}

pub fn collide_polygons16(
    poly_a: &[EdgeRecord],
    poly_b: &[EdgeRecord],
    xf_ab: Transform,
    xf_ba: Transform,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    let faces_a = load_faces16(poly_a);
    let faces_b = load_faces16(poly_b);
    let separation_a = find_max_separation16(
        &faces_a,
        poly_a.len() as u32,
        &faces_b,
        xf_ba,
        tolerance,
        margin,
    );
    let separation_b = find_max_separation16(
        &faces_b,
        poly_b.len() as u32,
        &faces_a,
        xf_ab,
        tolerance,
        margin,
    );
    choose_polygon_axis(separation_a, separation_b, tolerance, margin)
}

pub fn collide_polygon_circle16(
    poly: &[EdgeRecord],
    centre: Vec2,
    radius: f32,
    owner: Owner,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    let faces = load_faces16(poly);
    let all = faces.low.iter().chain(&faces.high);
    scan_circle_faces(poly, all, centre, radius, owner, tolerance, margin)
}

/// One candidate pair, given the two bodies' transforms and shape records;
/// polygons with more than `merge_threshold` vertices on both sides use the
/// merged search.
#[inline(always)]
pub fn collide_pair(
    shapes: &ShapeSet,
    xf_a: Transform,
    xf_b: Transform,
    shape_a: &ShapeRecord,
    shape_b: &ShapeRecord,
    margin: f32,
    merge_threshold: u32,
) -> Option<PairResult> {
    let xf_ab = inv_mul_transforms(xf_a, xf_b);
    let xf_ba = inv_mul_transforms(xf_b, xf_a);
    let tolerance = TIE_TOLERANCE * (shape_a.size + shape_b.size);
    let (small_a, small_b) = (shape_a.count <= 8, shape_b.count <= 8);
    let (medium_a, medium_b) = (shape_a.count <= 16, shape_b.count <= 16);
    let (poly_a, poly_b) = (shapes.edges_of(shape_a), shapes.edges_of(shape_b));
    match (shape_a.count > 0, shape_b.count > 0) {
        (true, true) if small_a && small_b => {
            collide_polygons8(poly_a, poly_b, xf_ab, xf_ba, tolerance, margin)
        }
        (true, true) if uses_merge_above(shape_a.count, shape_b.count, merge_threshold) => {
            collide_polygons_merged(poly_a, poly_b, xf_ab, xf_ba, tolerance, margin)
        }
        (true, true) if medium_a && medium_b => {
            collide_polygons16(poly_a, poly_b, xf_ab, xf_ba, tolerance, margin)
        }
        (true, true) => collide_polygons(poly_a, poly_b, xf_ab, xf_ba, tolerance, margin),
        (true, false) if small_a => {
            collide_polygon_circle8(poly_a, xf_ab.p, shape_b.radius, Owner::A, tolerance, margin)
        }
        (true, false) if medium_a => {
            collide_polygon_circle16(poly_a, xf_ab.p, shape_b.radius, Owner::A, tolerance, margin)
        }
        (true, false) => {
            collide_polygon_circle(poly_a, xf_ab.p, shape_b.radius, Owner::A, tolerance, margin)
        }
        (false, true) if small_b => {
            collide_polygon_circle8(poly_b, xf_ba.p, shape_a.radius, Owner::B, tolerance, margin)
        }
        (false, true) if medium_b => {
            collide_polygon_circle16(poly_b, xf_ba.p, shape_a.radius, Owner::B, tolerance, margin)
        }
        (false, true) => {
            collide_polygon_circle(poly_b, xf_ba.p, shape_a.radius, Owner::B, tolerance, margin)
        }
        (false, false) => collide_circles(xf_ab.p, shape_a.radius, shape_b.radius, margin),
    }
}

/// Rebuilds the world-frame unit normal (from A to B) of a reported axis.
///
/// This runs on the CPU for the results of every backend, so two backends
/// that report the same feature report the same normal, bit for bit.
pub fn axis_normal(
    shapes: &ShapeSet,
    xf_a: Transform,
    xf_b: Transform,
    (index_a, shape_a): (u32, &ShapeRecord),
    (index_b, shape_b): (u32, &ShapeRecord),
    axis: Axis,
) -> Vec2 {
    // Everything is expressed in the owner's frame, then rotated out.
    let (owner_xf, owner_index, owner_shape, other_xf, other_shape, sign) = match axis.owner {
        Owner::A => (xf_a, index_a, shape_a, xf_b, shape_b, 1.0),
        Owner::B => (xf_b, index_b, shape_b, xf_a, shape_a, -1.0),
    };
    let local = if owner_shape.count == 0 {
        // Centre line of two circles.
        let other_centre = inv_mul_transforms(owner_xf, other_xf).p;
        let distance = length(other_centre);
        if distance > CONCENTRIC_TOLERANCE * (owner_shape.radius + other_shape.radius) {
            other_centre / distance
        } else {
            Vec2::X
        }
    } else {
        let faces = shapes.faces(owner_index, owner_shape);
        let count = owner_shape.count;
        let feature = axis.feature.min(2 * count - 1);
        if feature < count {
            faces.normal(feature)
        } else {
            // A vertex region: from the vertex to the circle's centre.
            let vertex_index = feature - count;
            let other_centre = inv_mul_transforms(owner_xf, other_xf).p;
            let offset = other_centre - faces.vertex(vertex_index);
            let distance = length(offset);
            if distance > 0.0 {
                offset / distance
            } else {
                // Cannot be chosen (the SAT only picks a vertex at a positive
                // distance); the adjacent edge's normal keeps this total.
                faces.normal(vertex_index)
            }
        }
    };
    sign * rotate(owner_xf.q, local)
}
