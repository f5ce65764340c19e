//! Contact points of shapes with a radius: the cores' points, each moved
//! to midway between the two rounded surfaces and deepened by the radii.
//!
//! ```text
//! R = r_a + r_b
//! the cores' points as for plain shapes, kept to the margin + R:
//!     two hull cores: the face clip or the edge pair (the plain hulls' code)
//!     a hull face and a segment core: the segment clipped by the face's
//!         side planes (a capsule lying on a face: 2 points)
//!     two segments within ~6 degrees of parallel, overlapping along A:
//!         the overlap's two ends (capsules side by side: 2 points)
//!     any other axis: the two closest points, one point midway
//! each point: + (r_a - r_b) / 2 along the normal, depth + R
//! ```
//!
//! A point midway between the cores moved by `(r_a - r_b) / 2` along the
//! normal is midway between the surfaces `core_a + r_a n` and
//! `core_b - r_b n`, as Box2D and Box3D place theirs.

use glam::Vec3;

use super::super::math::{Transform, cross3, dot3, inv_mul_transforms, length3, transform_point};
use super::super::sat::rounded::{capsule_axis_geometry, closest_points_of_segments, feature_pair};
use super::super::sat::sphere_axis;
use super::super::shape::kind::{Core, Shape};
use super::super::shape::shapes::Hull;
use super::super::types::{Axis, Hit};
use super::{ContactPoint, Manifold, contact_id, edge_contact, face_contact};

/// Segments closer to parallel than this sine lying side by side give two
/// points (about 6 degrees).
const PARALLEL_SINE: f32 = 0.1;

/// The contact points of a hit of which a shape has a radius (a capsule, a
/// sphere against a rounded hull, a rounded hull), into `manifold`.
pub(super) fn rounded_contact_points(
    manifold: &mut Manifold,
    (xf_a, shape_a): (Transform, &Shape),
    (xf_b, shape_b): (Transform, &Shape),
    hit: &Hit,
    margin: f32,
) {
    let ((core_a, r_a), (core_b, r_b)) = (shape_a.core(), shape_b.core());
    let radii = r_a + r_b;
    let first = manifold.count as usize;
    let core_margin = margin + radii;
    let xf_ab = inv_mul_transforms(xf_a, xf_b);
    match (hit.axis, core_a, core_b) {
        (Axis::FaceA(face), Core::Hull(a), Core::Hull(b)) => {
            face_contact(manifold, (xf_a, a), (xf_b, b), (0, face), hit, core_margin)
        }
        (Axis::FaceB(face), Core::Hull(a), Core::Hull(b)) => {
            face_contact(manifold, (xf_b, b), (xf_a, a), (1, face), hit, core_margin)
        }
        (Axis::Edges(i, j), Core::Hull(a), Core::Hull(b)) => {
            edge_contact(manifold, (xf_a, a), (xf_b, b), (i, j), hit.normal)
        }
        (Axis::FaceA(face), Core::Hull(a), Core::Segment(points)) => {
            segment_face_contact(manifold, (xf_a, a), (xf_b, points), (0, face), core_margin)
        }
        (Axis::FaceB(face), Core::Segment(points), Core::Hull(b)) => {
            segment_face_contact(manifold, (xf_b, b), (xf_a, points), (1, face), core_margin)
        }
        (_, Core::Segment(a), Core::Segment(b))
            if side_by_side(
                manifold,
                xf_a,
                (a, b.map(|p| transform_point(xf_ab, p))),
                hit,
            ) => {}
        _ => {
            let closest = closest_points(core_a, core_b, (xf_a, xf_b, xf_ab), hit.axis);
            push_closest(manifold, xf_a, closest, hit);
        }
    }
    to_the_surfaces(manifold, first, (r_a, r_b), hit.normal);
}

/// One point between the cores' closest points `(on_a, on_b)` (in A's
/// frame), as deep as they are apart along the normal.
fn push_closest(manifold: &mut Manifold, xf_a: Transform, (on_a, on_b): (Vec3, Vec3), hit: &Hit) {
    let normal = super::super::math::inv_rotate(xf_a.r, hit.normal);
    manifold.push(ContactPoint {
        point: transform_point(xf_a, 0.5 * (on_a + on_b)),
        depth: -dot3(normal, on_b - on_a),
        id: rounded_id(hit.axis, 0),
    });
}

/// The cores' points from `first` on moved to midway between the rounded
/// surfaces (`(r_a - r_b) / 2` along the normal) and deepened by the radii.
fn to_the_surfaces(manifold: &mut Manifold, first: usize, (r_a, r_b): (f32, f32), normal: Vec3) {
    let shift = 0.5 * (r_a - r_b) * normal;
    for point in &mut manifold.points[first..manifold.count as usize] {
        point.point += shift;
        point.depth += r_a + r_b;
    }
}

/// A hit of two capsules, its normal and its manifold from one finding of
/// the axis's closest points (`rounded_axis_normal` and
/// [`rounded_contact_points`] each find them; this is their arithmetic, in
/// their order, the same bits): what the CPU backends' contacts run for
/// the pair. `result_depth` and `axis` are the SAT's.
pub(crate) fn capsule_contacts(
    (pair, a, b): (u32, u32, u32),
    (xf_a, capsule_a): (Transform, &super::super::shape::rounded::Capsule),
    (xf_b, capsule_b): (Transform, &super::super::shape::rounded::Capsule),
    (axis, depth): (Axis, f32),
) -> Manifold {
    let (r_a, r_b) = (capsule_a.radius(), capsule_b.radius());
    let xf_ab = inv_mul_transforms(xf_a, xf_b);
    let (ends_a, b_local) = (capsule_a.points(), capsule_b.points());
    let ends_b = b_local.map(|p| transform_point(xf_ab, p));
    let geometry = capsule_axis_geometry(ends_a, (ends_b, b_local), xf_ab, axis);
    let (hit, mut manifold) = hit_in_a((pair, a, b), xf_a, geometry.normal, (axis, depth));
    if !side_by_side(&mut manifold, xf_a, (ends_a, ends_b), &hit) {
        push_closest(&mut manifold, xf_a, (geometry.on_a, geometry.on_b), &hit);
    }
    to_the_surfaces(&mut manifold, 0, (r_a, r_b), hit.normal);
    manifold
}

/// The hit of pair `(pair, a, b)` whose normal is `normal` in A's frame
/// (`xf_a`), and its manifold, empty.
#[inline]
fn hit_in_a(
    (pair, a, b): (u32, u32, u32),
    xf_a: Transform,
    normal: Vec3,
    (axis, depth): (Axis, f32),
) -> (Hit, Manifold) {
    let hit = Hit {
        pair,
        a,
        b,
        normal: super::super::math::rotate(xf_a.r, normal),
        depth,
        axis,
    };
    (hit, Manifold::new(pair, a, b, hit.normal))
}

/// A hit of shapes with a radius whose axis is a pair of the cores'
/// features (a vertex and an edge, or two vertices: a capsule and a sphere,
/// cores apart), its normal and its manifold from one finding of the
/// features' points (`rounded_axis_normal` and [`rounded_contact_points`]
/// each find them; this is their arithmetic, in their order, the same
/// bits): what the CPU backends' contacts run for the pair. `None` for any
/// other axis, for two plain shapes, and for two segment cores (whose
/// manifold looks for a side-by-side contact first).
pub(crate) fn feature_contacts(
    (pair, a, b): (u32, u32, u32),
    (xf_a, shape_a): (Transform, &Shape),
    (xf_b, shape_b): (Transform, &Shape),
    (axis, depth): (Axis, f32),
) -> Option<Manifold> {
    // Every other pair asks only this (a hull pair's face or edge axis).
    let features = matches!(
        axis,
        Axis::VertexEdge(..) | Axis::EdgeVertex(..) | Axis::Vertices(..)
    );
    if !features || (shape_a.is_plain() && shape_b.is_plain()) {
        return None;
    }
    let ((core_a, r_a), (core_b, r_b)) = (shape_a.core(), shape_b.core());
    if matches!((core_a, core_b), (Core::Segment(_), Core::Segment(_))) {
        return None;
    }
    let xf_ab = inv_mul_transforms(xf_a, xf_b);
    let features = feature_pair(core_a, core_b, xf_ab, axis)?;
    let (hit, mut manifold) = hit_in_a((pair, a, b), xf_a, features.normal, (axis, depth));
    push_closest(&mut manifold, xf_a, (features.on_a, features.on_b), &hit);
    to_the_surfaces(&mut manifold, 0, (r_a, r_b), hit.normal);
    Some(manifold)
}

/// A one-point or side-by-side contact's id: [`contact_id`]'s kind 3 with
/// the point's number (0 alone, 1 and 2 side by side) in bits 28-29, the
/// axis's kind in bits 24-27 and its two features' low 12 bits below, so
/// the new axis kinds do not share ids with the others.
fn rounded_id(axis: Axis, point: u32) -> u32 {
    let bits = axis.pack();
    let (kind, index) = (bits >> 28, bits & 0x0fff_ffff);
    let (high, low) = (index >> 14, index & 0x3fff);
    contact_id(
        3,
        0,
        0,
        point << 28 | kind << 24 | (high & 0xfff) << 12 | (low & 0xfff),
    )
}

/// The closest points of the two cores along a one-point axis, in A's frame
/// (`xf_ab` takes B's points into it).
fn closest_points(
    core_a: Core,
    core_b: Core,
    (xf_a, xf_b, xf_ab): (Transform, Transform, Transform),
    axis: Axis,
) -> (Vec3, Vec3) {
    if let Some(pair) = feature_pair(core_a, core_b, xf_ab, axis) {
        return (pair.on_a, pair.on_b);
    }
    match (axis, core_a, core_b) {
        // A hull's face, edge or vertex against a point core.
        (_, Core::Hull(hull), Core::Point) => {
            let (_, surface, _) = sphere_axis(hull, xf_ab.p, axis);
            (surface, xf_ab.p)
        }
        (_, Core::Point, Core::Hull(hull)) => {
            let xf_ba = inv_mul_transforms(xf_b, xf_a);
            let (_, surface, _) = sphere_axis(hull, xf_ba.p, axis);
            (Vec3::ZERO, transform_point(xf_ab, surface))
        }
        // A hull edge against a segment, or two segments: their closest points.
        (Axis::Edges(i, j), _, _) => {
            let (a0, a1) = core_a.edge(i);
            let (b0, b1) = core_b.edge(j);
            let (on_a, on_b, _, _) = closest_points_of_segments(
                a0,
                a1,
                transform_point(xf_ab, b0),
                transform_point(xf_ab, b1),
            );
            (on_a, on_b)
        }
        // A face against a point of the other core (a backend's garbage
        // for anything else, made total): the cores' reference points.
        _ => (Vec3::ZERO, xf_ab.p),
    }
}

/// A hull's face `face` (of body A when `kind` is 0, B when 1) against a
/// segment core: the segment clipped by the face's side planes, the points
/// at or below the face's plane (or within the margin).
///
/// ```text
/// [t0, t1] = [0, 1]
/// for each side plane k (through the face's edge k, perpendicular to it):
///     d0, d1 = the ends' heights over it; both outside: nothing
///     entering at t = d0 / (d0 - d1): raise t0; leaving: lower t1
/// the points at t0 and t1, each midway between the core and the plane
/// nothing left: the segment's deeper end
/// ```
fn segment_face_contact(
    manifold: &mut Manifold,
    (ref_xf, reference): (Transform, &Hull),
    (inc_xf, segment): (Transform, [Vec3; 2]),
    (kind, face): (u32, u32),
    margin: f32,
) {
    let face = (face as usize).min(reference.face_count() - 1);
    let xf = inv_mul_transforms(ref_xf, inc_xf);
    let (q0, q1) = (
        transform_point(xf, segment[0]),
        transform_point(xf, segment[1]),
    );
    let (normal, offset) = reference.lanes().face_plane(face);
    let loop_ = reference.face(face);
    let vertices = reference.vertices();
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    let (mut feature0, mut feature1) = (0u32, 1u32);
    let mut empty = false;
    for k in 0..loop_.len() {
        let a = vertices[loop_[k] as usize];
        let b = vertices[loop_[(k + 1) % loop_.len()] as usize];
        let side = cross3(b - a, normal);
        let (d0, d1) = (dot3(side, q0 - a), dot3(side, q1 - a));
        let cut = 256 + 64 * (k as u32 % 60);
        if d0 > 0.0 && d1 > 0.0 {
            empty = true;
            break;
        }
        if d0 > 0.0 {
            let t = d0 / (d0 - d1);
            if t > t0 {
                (t0, feature0) = (t, cut);
            }
        } else if d1 > 0.0 {
            let t = d0 / (d0 - d1);
            if t < t1 {
                (t1, feature1) = (t, cut);
            }
        }
    }
    let id = |feature: u32| contact_id(kind, face as u32, 0, feature);
    let mut push = |position: Vec3, feature: u32| {
        let separation = dot3(normal, position) - offset;
        if separation <= margin.max(0.0) {
            manifold.push(ContactPoint {
                point: transform_point(ref_xf, position - 0.5 * separation * normal),
                depth: -separation,
                id: id(feature),
            });
            true
        } else {
            false
        }
    };
    let along = q1 - q0;
    let mut kept = false;
    if !empty && t0 <= t1 {
        kept |= push(q0 + t0 * along, feature0);
        if t1 > t0 {
            kept |= push(q0 + t1 * along, feature1);
        }
    }
    if !kept {
        // Nothing under the face: the segment's deeper end.
        let (end, position) = if dot3(normal, q1) < dot3(normal, q0) {
            (1, q1)
        } else {
            (0, q0)
        };
        let separation = dot3(normal, position) - offset;
        manifold.push(ContactPoint {
            point: transform_point(ref_xf, position - 0.5 * separation * normal),
            depth: -separation,
            id: id(end),
        });
    }
}

/// Two segments (B's in A's frame) within [`PARALLEL_SINE`] of parallel
/// whose projections on A overlap: the overlap's two ends, each against its
/// closest point of B; false (nothing pushed) otherwise.
fn side_by_side(
    manifold: &mut Manifold,
    xf_a: Transform,
    (a, b): ([Vec3; 2], [Vec3; 2]),
    hit: &Hit,
) -> bool {
    let (da, db) = (a[1] - a[0], b[1] - b[0]);
    let (la, lb) = (length3(da), length3(db));
    if length3(cross3(da, db)) > PARALLEL_SINE * la * lb {
        return false;
    }
    let along = |p: Vec3| dot3(p - a[0], da) / (la * la);
    let (u0, u1) = (along(b[0]), along(b[1]));
    let (lo, hi) = (u0.min(u1).max(0.0), u0.max(u1).min(1.0));
    if hi - lo <= 1e-3 {
        return false;
    }
    let normal = super::super::math::inv_rotate(xf_a.r, hit.normal);
    for (k, u) in [lo, hi].into_iter().enumerate() {
        let on_a = a[0] + u * da;
        let t = (dot3(on_a - b[0], db) / (lb * lb)).clamp(0.0, 1.0);
        let on_b = b[0] + t * db;
        manifold.push(ContactPoint {
            point: transform_point(xf_a, 0.5 * (on_a + on_b)),
            depth: -dot3(normal, on_b - on_a),
            id: contact_id(
                3,
                0,
                0,
                (hit.axis.pack() & 0x0fff_ffff) | ((k as u32 + 1) << 28),
            ),
        });
    }
    true
}
