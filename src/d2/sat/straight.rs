//! Straight-line code for polygons of up to 8 and up to 16 vertices.
//!
//! The twins of the WGSL kernel's `*8` and `*16` functions, which exist
//! because loops that carry state ran five times slower on lavapipe than
//! straight-line code. Each polygon is read once, padded to 8 (or 16) by
//! repeating its last vertex (harmless to a minimum), every face
//! separation computed without a loop, and faces past the count left out of
//! the scan. The values are those of the looped functions, operation for
//! operation, and the scan gives what their face-by-face loop gives
//! (`tests/it/d2/twins.rs`).

use glam::Vec2;

use crate::core::pair::Owner;
use crate::d2::math::Transform;
use crate::d2::shape::EdgeRecord;

use super::polygon_circle::{circle_face_separation, finish_polygon_circle};
use super::separation::{PairResult, Separation, choose_polygon_axis, face_plane};

/// A polygon of up to 8 vertices, padded by repeating its last vertex.
pub type Faces8 = [EdgeRecord; 8];

/// Reads a polygon of up to 8 vertices, padded.
pub fn load_faces8(poly: &[EdgeRecord]) -> Faces8 {
    let last = poly.len() - 1;
    std::array::from_fn(|i| poly[i.min(last)])
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

/// One face of [`find_max_separation`](super::polygons::find_max_separation): min over the 8 vertices of `other`.
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

/// [`find_max_separation`](super::polygons::find_max_separation) over padded
/// faces, in straight-line code.
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
    let mut best = Separation::NONE;
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

/// [`collide_polygons`](super::polygons::collide_polygons) for polygons of up
/// to 8 vertices.
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

/// [`collide_polygon_circle`](super::polygon_circle::collide_polygon_circle)
/// for a polygon of up to 8 vertices.
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
    let separation = |record: &EdgeRecord| circle_face_separation(record, centre);
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
    /// Vertices 0 to 7.
    pub low: Faces8,
    /// Vertices 8 to 15.
    pub high: Faces8,
}

/// Reads a polygon of up to 16 vertices, padded.
pub fn load_faces16(poly: &[EdgeRecord]) -> Faces16 {
    let last = poly.len() - 1;
    Faces16 {
        low: std::array::from_fn(|i| poly[i.min(last)]),
        high: std::array::from_fn(|i| poly[(i + 8).min(last)]),
    }
}

/// One face of [`find_max_separation`](super::polygons::find_max_separation): min over the 16 vertices of `other`.
#[inline(always)]
pub fn face_separation16(face: &EdgeRecord, xf: Transform, other: &Faces16) -> f32 {
    let (normal, offset) = face_plane(face, xf);
    let separation = vertex_min8(f32::MAX, normal, offset, &other.low);
    vertex_min8(separation, normal, offset, &other.high)
}

/// [`find_max_separation`](super::polygons::find_max_separation) over
/// padded faces, in straight-line code, twice over.
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

/// [`collide_polygons`](super::polygons::collide_polygons) for polygons of up
/// to 16 vertices.
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

/// [`collide_polygon_circle`](super::polygon_circle::collide_polygon_circle)
/// for a polygon of up to 16 vertices.
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
