//! 3D contact manifolds: from a SAT hit to up to four contact points.
//!
//! ```text
//! face axis (two hulls):
//!     reference face = the face the SAT chose; incident face = the other
//!         hull's face most anti-parallel to it
//!     clip the incident face's polygon (Sutherland-Hodgman) by the planes
//!         through the reference face's edges, perpendicular to it
//!     keep the points at or below the reference plane (or within the
//!         margin), each placed midway between the surfaces with its own depth
//!     reduce to at most 4: the deepest; the farthest from it; the one making
//!         the largest triangle with those; the one adding the most area outside it
//! edge pair: the closest points of the two edges, one point midway
//! a sphere:  one point midway between the surfaces along the normal
//! ```
//!
//! Everything is computed in the reference hull's frame and moved into the
//! world at the end. Each point's `id` names the features that made it, so a
//! solver can match points from frame to frame (see [`contact_id`]).

use glam::Vec3;

use super::batch::Batch;
use super::math::{
    Transform, cross3, dot3, inv_mul_transforms, inv_rotate, length3, rotate, transform_point,
};
use super::sat::rounded::closest_points_of_segments;
use super::sat::{centre_line, most_opposed_face, sphere_axis, sphere_centre};
use super::shape::kind::Shape;
use super::shape::shapes::Hull;
use super::types::{Axis, Hit};

mod rounded;
pub(crate) mod spheres_across;
use rounded::rounded_contact_points;
pub(crate) use rounded::{capsule_contacts, feature_contacts};

/// One 3D contact point.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactPoint {
    /// World position, midway between the two surfaces.
    pub point: Vec3,
    /// How deep this point is (negative: a gap, within the margin).
    pub depth: f32,
    /// Feature id (see [`contact_id`]).
    pub id: u32,
}

/// The contact points of one reported pair: one to four.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Manifold {
    /// Index of the pair in the batch.
    pub pair: u32,
    /// Body A.
    pub a: u32,
    /// Body B.
    pub b: u32,
    /// Unit normal from A to B (the hit's normal).
    pub normal: Vec3,
    pub(crate) points: [ContactPoint; 4],
    pub(crate) count: u8,
}

impl Manifold {
    /// A manifold with no points yet.
    pub fn new(pair: u32, a: u32, b: u32, normal: Vec3) -> Manifold {
        Manifold {
            pair,
            a,
            b,
            normal,
            ..Manifold::default()
        }
    }

    /// The contact points.
    pub fn points(&self) -> &[ContactPoint] {
        &self.points[..self.count as usize]
    }

    fn push(&mut self, point: ContactPoint) {
        if (self.count as usize) < self.points.len() {
            self.points[self.count as usize] = point;
            self.count += 1;
        }
    }

    /// The deepest point's depth.
    pub fn depth(&self) -> f32 {
        self.points()
            .iter()
            .map(|p| p.depth)
            .fold(f32::NEG_INFINITY, f32::max)
    }
}

/// What made a contact point, packed into 32 bits:
///
/// | kind | bits 31..30 | below |
/// |---|---|---|
/// | face of A (0) or of B (1) | kind | reference face (9 bits) << 21, incident face (9 bits) << 12, the point's feature (12 bits) |
/// | edge pair (2) | 2 | A's edge (15 bits) << 15, B's edge (15 bits) |
/// | a sphere (3) | 3 | the axis's packed index |
///
/// A face point's feature is the incident vertex it came from (below 256),
/// or, for a point cut by the reference face's side plane `k`, `256 + 64 (k
/// mod 60) + s` where `s` names the line it was cut on: the incident face's
/// edge `e` (`s = e mod 32`, edges numbered along the incident face's loop)
/// or, at a corner of the reference face, the side plane `j` the segment
/// ran along (`s = 32 + j mod 32`). A pair (plane, line) meets in one point,
/// so the ids of one manifold are distinct, and they stay the same from
/// frame to frame while the same features touch, as long as the reference
/// face has at most 60 edges and both faces at most 32 (beyond that ids can
/// repeat, and a solver matching them warm starts less well).
pub fn contact_id(kind: u32, reference: u32, incident: u32, feature: u32) -> u32 {
    match kind {
        0 | 1 => {
            kind << 30 | (reference & 0x1ff) << 21 | (incident & 0x1ff) << 12 | (feature & 0xfff)
        }
        2 => 2 << 30 | (reference & 0x7fff) << 15 | (incident & 0x7fff),
        _ => 3 << 30 | (feature & 0x3fff_ffff),
    }
}

/// Points of one manifold before reduction.
const MAX_CLIP_POINTS: usize = 2 * 256 + 8;

thread_local! {
    /// The clipped polygon, the clipper's second buffer and the points kept,
    /// reused from pair to pair on a thread (the first two twice the most
    /// points a polygon keeps: a clip writes each point's two candidates).
    static CLIP: std::cell::RefCell<(Vec<ClipPoint>, Vec<ClipPoint>, Vec<ContactPoint>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// Builds the manifold of one hit.
pub fn manifold(batch: &Batch, hit: &Hit) -> Manifold {
    let (xf_a, xf_b) = (
        batch.transforms()[hit.a as usize],
        batch.transforms()[hit.b as usize],
    );
    let mut manifold = Manifold::new(hit.pair, hit.a, hit.b, hit.normal);
    contact_points(
        &mut manifold,
        (xf_a, batch.shape_of(hit.a)),
        (xf_b, batch.shape_of(hit.b)),
        hit,
        batch.margin(),
    );
    manifold
}

/// Manifolds of many hits, in order.
pub fn manifolds(batch: &Batch, hits: &[Hit]) -> Vec<Manifold> {
    hits.iter().map(|hit| manifold(batch, hit)).collect()
}

/// The contact points of a hit between two placed shapes, into `manifold`.
pub(crate) fn contact_points(
    manifold: &mut Manifold,
    (xf_a, shape_a): (Transform, &Shape),
    (xf_b, shape_b): (Transform, &Shape),
    hit: &Hit,
    margin: f32,
) {
    if !(shape_a.is_plain() && shape_b.is_plain()) {
        rounded_contact_points(manifold, (xf_a, shape_a), (xf_b, shape_b), hit, margin);
        return;
    }
    match (hit.axis, shape_a, shape_b) {
        (Axis::FaceA(face), Shape::Hull(a), Shape::Hull(b)) => {
            face_contact(manifold, (xf_a, a), (xf_b, b), (0, face), hit, margin)
        }
        (Axis::FaceB(face), Shape::Hull(a), Shape::Hull(b)) => {
            face_contact(manifold, (xf_b, b), (xf_a, a), (1, face), hit, margin)
        }
        (Axis::Edges(i, j), Shape::Hull(a), Shape::Hull(b)) => {
            edge_contact(manifold, (xf_a, a), (xf_b, b), (i, j), hit.normal)
        }
        _ => manifold.push(sphere_point((xf_a, shape_a), (xf_b, shape_b), hit)),
    }
}

/// A clipped point in the reference frame, with the feature it came from
/// and the line the polygon runs along from it to the next point: its code
/// in a cut point's feature (see [`contact_id`]), the incident face's edge
/// `e` from its loop's vertex `e` to the next as `e mod 32`, the reference
/// face's side plane `k` as `32 + k mod 32`.
#[derive(Clone, Copy, Debug, Default)]
struct ClipPoint {
    position: Vec3,
    feature: u32,
    outgoing: u32,
}

/// The line code of the reference face's side plane `k`.
fn side_plane(k: u32) -> u32 {
    32 + k % 32
}

/// Clips `input` (a convex polygon) by the plane `side . (p - origin) <= 0`,
/// Sutherland-Hodgman, into `output`; points cut by the plane record
/// `plane`. Returns how many points `output` holds.
///
/// ```text
/// for each point p, q the next (the first after the last), dp, dq their distances:
///     dp <= 0:                 p (on the plane heading out: the polygon then runs along it)
///     dp < 0 < dq or dq < 0 < dp:  the cut p + dp / (dp - dq) (q - p)
/// ```
///
/// Both candidates of a point are written and the count advanced by
/// whether each is kept, without a branch: which points lie inside is
/// random from pair to pair. `output` needs room for two points an input
/// point: writes past its end are dropped, and the count then goes on past
/// it (the callers' buffers always have the room).
fn clip_by_plane(
    input: &[ClipPoint],
    output: &mut [ClipPoint],
    (side, origin, plane): (Vec3, Vec3, u32),
) -> usize {
    let Some(&first) = input.first() else {
        return 0;
    };
    // Each point's distance once: a segment's end is the next one's start.
    let distance = |p: ClipPoint| dot3(side, p.position - origin);
    let first_distance = distance(first);
    let mut dp = first_distance;
    let mut count = 0;
    let mut write = |at: usize, point: ClipPoint| {
        if let Some(slot) = output.get_mut(at) {
            *slot = point;
        }
    };
    for (k, &p) in input.iter().enumerate() {
        let (q, dq) = match input.get(k + 1) {
            Some(&q) => (q, distance(q)),
            None => (first, first_distance),
        };
        // On the plane and heading out, the polygon then runs along it.
        // (`&` and `|`, not `&&` and `||`: no branch on which side.)
        let along = (dp == 0.0) & ((dq > 0.0) | dq.is_nan());
        write(
            count,
            ClipPoint {
                outgoing: if along { side_plane(plane) } else { p.outgoing },
                ..p
            },
        );
        count += usize::from(dp <= 0.0);
        // Leaving the inside, the polygon then runs along the plane;
        // entering it, along the segment it was on.
        let t = dp / (dp - dq);
        write(
            count,
            ClipPoint {
                position: p.position + t * (q.position - p.position),
                feature: 256 + 64 * (plane % 60) + p.outgoing,
                outgoing: if dp < 0.0 {
                    side_plane(plane)
                } else {
                    p.outgoing
                },
            },
        );
        count += usize::from(((dp < 0.0) & (dq > 0.0)) | ((dp > 0.0) & (dq < 0.0)));
        dp = dq;
    }
    count
}

/// The reference hull's face `face` (of body A when `kind` is 0, B when 1)
/// against the incident hull.
fn face_contact(
    manifold: &mut Manifold,
    (ref_xf, reference): (Transform, &Hull),
    (inc_xf, incident): (Transform, &Hull),
    (kind, face): (u32, u32),
    hit: &Hit,
    margin: f32,
) {
    let face = (face as usize).min(reference.face_count() - 1);
    let xf = inv_mul_transforms(ref_xf, inc_xf);
    // The planes from the lanes' rows, where the SAT's face queries have
    // just read them (the same bits as `normals()` and `offsets()`).
    let (normal, offset) = reference.lanes().face_plane(face);
    // The incident face: the most anti-parallel, found in the incident frame.
    let in_incident = inv_rotate(xf.r, normal);
    let incident_face = most_opposed_face(incident, in_incident);
    let faces = FacePair {
        reference,
        incident,
        face,
        incident_face,
        xf,
        plane: (normal, offset),
    };
    let id = |feature: u32| contact_id(kind, face as u32, incident_face as u32, feature);
    let mut keep = |point: ContactPoint| {
        manifold.push(ContactPoint {
            point: transform_point(ref_xf, point.point),
            ..point
        })
    };
    CLIP.with_borrow_mut(|(polygon, scratch, kept)| {
        for buffer in [&mut *polygon, &mut *scratch] {
            buffer.resize(2 * MAX_CLIP_POINTS, ClipPoint::default());
        }
        kept.resize(MAX_CLIP_POINTS, ContactPoint::default());
        let count = faces.clip((polygon, scratch, kept), (margin, hit.depth, id));
        debug_assert!(count.is_some(), "the thread's clip buffers are too small");
        if let Some(count) = count {
            reduce(&mut kept[..count], normal, &mut keep);
        }
    });
}

/// A reference face and the incident face, in the reference frame (`xf`
/// takes the incident hull's points into it; `plane` the face's).
struct FacePair<'a> {
    reference: &'a Hull,
    incident: &'a Hull,
    face: usize,
    incident_face: usize,
    xf: Transform,
    plane: (Vec3, f32),
}

impl FacePair<'_> {
    /// The incident face clipped by the reference face's side planes, and
    /// the points kept under it into `kept`: how many (`None` only where
    /// the buffers are too small, which the thread's, twice
    /// [`MAX_CLIP_POINTS`] for the polygons and as many for the points,
    /// never are).
    ///
    /// ```text
    /// polygon = the incident face's loop, in the reference frame
    /// for each edge a -> b of the reference face's loop:
    ///     polygon = clip_by_plane(polygon, side = (b - a) x normal through a)
    /// kept = the points at or below the plane (within the margin), each
    ///        midway between the surfaces, with its own depth;
    ///        none: the incident hull's deepest vertex
    /// ```
    fn clip(
        &self,
        (polygon, scratch, kept): (&mut [ClipPoint], &mut [ClipPoint], &mut [ContactPoint]),
        (margin, depth, id): (f32, f32, impl Fn(u32) -> u32),
    ) -> Option<usize> {
        let (normal, offset) = self.plane;
        // The loops and vertices from the lanes' copies (the same indices and
        // bits as `face()` and `vertices()`, in fewer cache lines).
        let (incident_lanes, reference_lanes) = (self.incident.lanes(), self.reference.lanes());
        let mut count = 0;
        for (e, &v) in incident_lanes
            .face_loop(self.incident_face)
            .iter()
            .enumerate()
        {
            *polygon.get_mut(count)? = ClipPoint {
                position: transform_point(self.xf, incident_lanes.vertex(usize::from(v))),
                feature: u32::from(v),
                outgoing: e as u32 % 32,
            };
            count += 1;
        }
        let (mut polygon, mut scratch) = (polygon, scratch);
        let loop_ = reference_lanes.face_loop(self.face);
        for k in 0..loop_.len() {
            if count == 0 {
                break;
            }
            let a = reference_lanes.vertex(usize::from(loop_[k]));
            let b = reference_lanes.vertex(usize::from(
                loop_[if k + 1 < loop_.len() { k + 1 } else { 0 }],
            ));
            let side = cross3(b - a, normal);
            count = clip_by_plane(&polygon[..count], scratch, (side, a, k as u32));
            std::mem::swap(&mut polygon, &mut scratch);
            count = count.min(MAX_CLIP_POINTS);
        }
        let mut kept_count = 0;
        let limit = margin.max(0.0);
        for p in &polygon[..count] {
            let separation = dot3(normal, p.position) - offset;
            if let Some(slot) = kept.get_mut(kept_count) {
                *slot = ContactPoint {
                    point: p.position - 0.5 * separation * normal,
                    depth: -separation,
                    id: id(p.feature),
                };
            }
            kept_count += usize::from(separation <= limit);
        }
        if kept_count == 0 {
            // Nothing under the face (near-ties, slivers, or a pair reported
            // through the margin): the incident hull's deepest vertex.
            let (vertex, separation, position) = self
                .incident
                .vertices()
                .iter()
                .enumerate()
                .map(|(v, &w)| {
                    let position = transform_point(self.xf, w);
                    (v as u32, dot3(normal, position) - offset, position)
                })
                .min_by(|x, y| x.1.total_cmp(&y.1))
                .unwrap_or((0, -depth, Vec3::ZERO));
            *kept.first_mut()? = ContactPoint {
                point: position - 0.5 * separation * normal,
                depth: -separation,
                id: id(vertex),
            };
            kept_count = 1;
        }
        Some(kept_count)
    }
}

/// At most four of `points` (in the reference frame, `normal` the reference
/// face's), keeping the contact region (Gregorius; Box3D's version):
///
/// ```text
/// a = the deepest point
/// b = the farthest from a, across the face
/// c = the point making the largest triangle with a and b
/// d = the point adding the most area outside triangle abc
/// ```
fn reduce(points: &mut [ContactPoint], normal: Vec3, mut keep: impl FnMut(ContactPoint)) {
    if points.len() <= 4 {
        points.iter().copied().for_each(keep);
        return;
    }
    // The points not yet taken are `points[..len]`; taking one moves the
    // last into its place (`Vec::swap_remove`).
    let mut len = points.len();
    let mut take = |points: &mut [ContactPoint], index: usize| {
        let point = points[index];
        points[index] = points[len - 1];
        len -= 1;
        (point, len)
    };
    let best_by = |points: &[ContactPoint], score: &dyn Fn(&ContactPoint) -> f32| {
        let mut best = (0, f32::MIN);
        for (index, point) in points.iter().enumerate() {
            let value = score(point);
            if value > best.1 {
                best = (index, value);
            }
        }
        best
    };
    let (index, _) = best_by(points, &|p| p.depth);
    let (a, rest) = take(points, index);
    let across = |d: Vec3| d - dot3(d, normal) * normal;
    let (index, _) = best_by(&points[..rest], &|p| {
        dot3(across(p.point - a.point), across(p.point - a.point))
    });
    let (b, rest) = take(points, index);
    let ab = b.point - a.point;
    let signed_area = |p: Vec3| dot3(normal, cross3(ab, p - a.point));
    let (index, _) = best_by(&points[..rest], &|p| signed_area(p.point).abs());
    let (c, rest) = take(points, index);
    let sign = if signed_area(c.point) < 0.0 {
        -1.0
    } else {
        1.0
    };
    let outside = |p: Vec3| {
        let u1 = sign * dot3(normal, cross3(p - a.point, ab));
        let u2 = sign * dot3(normal, cross3(p - b.point, c.point - b.point));
        let u3 = sign * dot3(normal, cross3(p - c.point, a.point - c.point));
        u1.max(u2).max(u3)
    };
    let (index, score) = best_by(&points[..rest], &|p| outside(p.point));
    for point in [a, b, c] {
        keep(point);
    }
    if score > 0.0 {
        keep(points[index]);
    }
}

/// Edge `i` of A against edge `j` of B: one point midway between their
/// closest points, its depth along the hit's normal.
fn edge_contact(
    manifold: &mut Manifold,
    (xf_a, hull_a): (Transform, &Hull),
    (xf_b, hull_b): (Transform, &Hull),
    (i, j): (u32, u32),
    normal: Vec3,
) {
    let i = i.min(hull_a.edges().len() as u32 - 1);
    let j = j.min(hull_b.edges().len() as u32 - 1);
    let xf = inv_mul_transforms(xf_a, xf_b);
    let axis = inv_rotate(xf_a.r, normal);
    // The ends from the lanes' copies (the bits of `edges()` and
    // `vertices()`, in fewer cache lines).
    let (a0, a1) = hull_a.lanes().edge_vertices(i as usize);
    let (b0, b1) = hull_b.lanes().edge_vertices(j as usize);
    let (on_a, on_b, _, _) =
        closest_points_of_segments(a0, a1, transform_point(xf, b0), transform_point(xf, b1));
    manifold.push(ContactPoint {
        point: transform_point(xf_a, 0.5 * (on_a + on_b)),
        depth: -dot3(axis, on_b - on_a),
        id: contact_id(2, i, j, 0),
    });
}

/// A sphere against a hull's feature, or two spheres: one point midway
/// between the surfaces along the normal, its depth recomputed as the SAT
/// computes it.
fn sphere_point(
    (xf_a, shape_a): (Transform, &Shape),
    (xf_b, shape_b): (Transform, &Shape),
    hit: &Hit,
) -> ContactPoint {
    let id = contact_id(3, 0, 0, hit.axis.pack());
    match (shape_a, shape_b) {
        (Shape::Sphere(a), Shape::Sphere(b)) => spheres_point(
            (xf_a, a.radius()),
            (xf_b, b.radius()),
            (length3(inv_mul_transforms(xf_a, xf_b).p), hit.normal),
            id,
        ),
        (Shape::Hull(hull), Shape::Sphere(sphere)) => {
            let centre = inv_mul_transforms(xf_a, xf_b).p;
            hull_sphere_point((xf_a, hull), (centre, sphere.radius()), hit.axis).1
        }
        (Shape::Sphere(sphere), Shape::Hull(hull)) => {
            let centre = inv_mul_transforms(xf_b, xf_a).p;
            hull_sphere_point((xf_b, hull), (centre, sphere.radius()), hit.axis).1
        }
        _ => {
            // A hull pair's axis of a sphere kind: a backend's garbage, made
            // total (shapes with a radius take rounded_contact_points).
            // Midway between the centres, the hit's depth.
            ContactPoint {
                point: 0.5 * (xf_a.p + xf_b.p),
                depth: hit.depth,
                id,
            }
        }
    }
}

/// Two spheres' point: midway between the surfaces along `normal`, its
/// depth from the centre line (`distance`: between the centres).
#[inline(always)]
fn spheres_point(
    (xf_a, radius_a): (Transform, f32),
    (xf_b, radius_b): (Transform, f32),
    (distance, normal): (f32, Vec3),
    id: u32,
) -> ContactPoint {
    let surface_a = xf_a.p + radius_a * normal;
    let surface_b = xf_b.p - radius_b * normal;
    ContactPoint {
        point: 0.5 * (surface_a + surface_b),
        depth: -(distance - (radius_a + radius_b)),
        id,
    }
}

/// Two spheres' contact: the normal and the point from one centre line
/// (the same bits as `Batch::hit` and `contact_points`).
pub(crate) fn sphere_contacts(
    (pair, a, b): (u32, u32, u32),
    (xf_a, radius_a): (Transform, f32),
    (xf_b, radius_b): (Transform, f32),
    axis: Axis,
) -> Manifold {
    let centre = sphere_centre(xf_a, xf_b);
    let distance = length3(centre);
    // A sphere's size is its radius.
    let normal = centre_line(xf_a, (centre, distance), radius_a + radius_b);
    let mut manifold = Manifold::new(pair, a, b, normal);
    manifold.push(spheres_point(
        (xf_a, radius_a),
        (xf_b, radius_b),
        (distance, normal),
        contact_id(3, 0, 0, axis.pack()),
    ));
    manifold
}

/// A hull (with its world transform) and a sphere whose centre is `centre`
/// in the hull's frame, along the hull's feature `axis`: the unit normal in
/// the hull's frame (towards the centre) and the point midway between the
/// surfaces, its depth as the SAT computes it.
#[inline(always)]
fn hull_sphere_point(
    (xf_hull, hull): (Transform, &Hull),
    (centre, radius): (Vec3, f32),
    axis: Axis,
) -> (Vec3, ContactPoint) {
    let (local, surface, distance) = sphere_axis(hull, centre, axis);
    let sphere_surface = centre - radius * local;
    let point = ContactPoint {
        point: transform_point(xf_hull, 0.5 * (surface + sphere_surface)),
        depth: -(distance - radius),
        id: contact_id(3, 0, 0, axis.pack()),
    };
    (local, point)
}

/// A hull and a sphere's contact: the normal and the point from one finding
/// of the hull's feature nearest the centre (`sphere_axis`), where the
/// hit's normal and the manifold each found it (the same bits as
/// `Batch::hit` and `contact_points`). `hull_is_a`: the hull is body A.
pub(crate) fn hull_sphere_contacts(
    (pair, a, b): (u32, u32, u32),
    (xf_hull, hull): (Transform, &Hull),
    (xf_sphere, radius): (Transform, f32),
    axis: Axis,
    hull_is_a: bool,
) -> Manifold {
    let centre = sphere_centre(xf_hull, xf_sphere);
    // A face's normal here is the one `axis_normal` reads from the lanes'
    // planes: the same values.
    let (local, point) = hull_sphere_point((xf_hull, hull), (centre, radius), axis);
    let rotated = rotate(xf_hull.r, local);
    let normal = if hull_is_a { rotated } else { -rotated };
    let mut manifold = Manifold::new(pair, a, b, normal);
    manifold.push(point);
    manifold
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3::sat::xorshift;

    /// The clipper as it was written first, one branch a case: the oracle
    /// of the branch-free one.
    fn clip_with_branches(
        input: &[ClipPoint],
        output: &mut Vec<ClipPoint>,
        (side, origin, plane): (Vec3, Vec3, u32),
    ) {
        output.clear();
        let Some(&first) = input.first() else {
            return;
        };
        let distance = |p: ClipPoint| dot3(side, p.position - origin);
        let first_distance = distance(first);
        let mut dp = first_distance;
        for (k, &p) in input.iter().enumerate() {
            let (q, dq) = match input.get(k + 1) {
                Some(&q) => (q, distance(q)),
                None => (first, first_distance),
            };
            if dp < 0.0 || (dp == 0.0 && dq <= 0.0) {
                output.push(p);
            } else if dp == 0.0 {
                output.push(ClipPoint {
                    outgoing: side_plane(plane),
                    ..p
                });
            }
            if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
                let t = dp / (dp - dq);
                output.push(ClipPoint {
                    position: p.position + t * (q.position - p.position),
                    feature: 256 + 64 * (plane % 60) + p.outgoing,
                    outgoing: if dp < 0.0 {
                        side_plane(plane)
                    } else {
                        p.outgoing
                    },
                });
            }
            dp = dq;
        }
    }

    /// The reduction as it was written first, on a `Vec`.
    fn reduce_vec(points: &mut Vec<ContactPoint>, normal: Vec3) -> Vec<ContactPoint> {
        let mut kept = Vec::new();
        if points.len() <= 4 {
            return std::mem::take(points);
        }
        let best_by = |points: &[ContactPoint], score: &dyn Fn(&ContactPoint) -> f32| {
            let mut best = (0, f32::MIN);
            for (index, point) in points.iter().enumerate() {
                let value = score(point);
                if value > best.1 {
                    best = (index, value);
                }
            }
            best
        };
        let a = points.swap_remove(best_by(points, &|p| p.depth).0);
        let across = |d: Vec3| d - dot3(d, normal) * normal;
        let far = best_by(points, &|p| {
            dot3(across(p.point - a.point), across(p.point - a.point))
        });
        let b = points.swap_remove(far.0);
        let ab = b.point - a.point;
        let signed_area = |p: Vec3| dot3(normal, cross3(ab, p - a.point));
        let c = points.swap_remove(best_by(points, &|p| signed_area(p.point).abs()).0);
        let sign = if signed_area(c.point) < 0.0 {
            -1.0
        } else {
            1.0
        };
        let outside = |p: Vec3| {
            let u1 = sign * dot3(normal, cross3(p - a.point, ab));
            let u2 = sign * dot3(normal, cross3(p - b.point, c.point - b.point));
            let u3 = sign * dot3(normal, cross3(p - c.point, a.point - c.point));
            u1.max(u2).max(u3)
        };
        let (index, score) = best_by(points, &|p| outside(p.point));
        kept.extend([a, b, c]);
        if score > 0.0 {
            kept.push(points[index]);
        }
        kept
    }

    fn bits(point: &ClipPoint) -> ([u32; 3], u32, u32) {
        (
            point.position.to_array().map(f32::to_bits),
            point.feature,
            point.outgoing,
        )
    }

    /// Polygons of 1 to 12 points on a grid of quarter units, so that many
    /// lie exactly on the plane (`dp == 0` heading in, out and along), and
    /// random ones; the branch-free clipper writes the same points, bit for
    /// bit, in the same order.
    #[test]
    fn the_branch_free_clip_equals_the_clip_with_branches() {
        let mut next = xorshift(0x9E37_79B9);
        let (mut compared, mut on_plane) = (0, 0);
        for case in 0..20_000 {
            let count = 1 + (case % 12);
            let grid = case % 2 == 0;
            let mut coordinate = || {
                let value = next() * 2.0;
                if grid {
                    (value * 4.0).round() / 4.0
                } else {
                    value
                }
            };
            let input: Vec<ClipPoint> = (0..count)
                .map(|k| ClipPoint {
                    position: Vec3::new(coordinate(), coordinate(), coordinate()),
                    feature: k as u32,
                    outgoing: (k % 32) as u32,
                })
                .collect();
            let side = if grid {
                Vec3::new(1.0, 0.0, 0.0)
            } else {
                Vec3::new(next(), next(), next())
            };
            let plane = (case % 70) as u32;
            let mut expected = Vec::new();
            clip_with_branches(&input, &mut expected, (side, Vec3::ZERO, plane));
            let mut output = vec![ClipPoint::default(); 2 * input.len()];
            let written = clip_by_plane(&input, &mut output, (side, Vec3::ZERO, plane));
            assert_eq!(
                output[..written].iter().map(bits).collect::<Vec<_>>(),
                expected.iter().map(bits).collect::<Vec<_>>(),
                "case {case}: {input:?}"
            );
            on_plane += input.iter().filter(|p| p.position.x == 0.0).count();
            compared += 1;
        }
        assert!(on_plane > 2_000, "only {on_plane} points on the plane");
        assert_eq!(compared, 20_000);
    }

    /// The reduction over a slice keeps what the one over a `Vec` kept, in
    /// the same order, for 1 to 16 points.
    #[test]
    fn the_reduction_over_a_slice_equals_the_one_over_a_vec() {
        let mut next = xorshift(0x85EB_CA6B);
        for case in 0..5_000 {
            let count = 1 + case % 16;
            let normal = Vec3::new(next(), next(), next()).normalize();
            let mut points: Vec<ContactPoint> = (0..count)
                .map(|k| ContactPoint {
                    point: Vec3::new(next(), next(), next()),
                    depth: next(),
                    id: k as u32,
                })
                .collect();
            let mut slice = points.clone();
            let mut kept = Vec::new();
            reduce(&mut slice, normal, |point| kept.push(point));
            assert_eq!(kept, reduce_vec(&mut points, normal), "case {case}");
        }
    }
}
