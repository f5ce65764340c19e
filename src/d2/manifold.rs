//! Contact manifolds: from a SAT hit to contact points, by clipping.
//!
//! SAT says *that* two shapes overlap and along which axis; a solver needs
//! *where*. For two polygons the answer is the classic clipping method:
//!
//! ```text
//! reference face = the face SAT chose (no second SAT run)
//! incident edge  = the other polygon's edge whose normal is most
//!                  anti-parallel to the reference normal
//! clip the incident edge against the reference face's two side planes
//! keep the clipped points that lie at or below the reference face
//!     (or within the margin); each point's depth is its own distance
//!     below the face
//! ```
//!
//! Everything is done in the reference polygon's local frame. At most two
//! points survive. Each is placed **midway between the two surfaces**: halfway
//! from the incident point to its projection on the reference face (as Box2D
//! v3 does), so that neither body is favoured. A point's `id` names the
//! features that made it — the owner of the reference face, the reference
//! edge and the incident vertex the point came from — so that a solver can
//! match points from one frame to the next and warm start them.
//!
//! With a circle there is one point, also midway between the surfaces: on the
//! axis, halfway between the circle's surface point and the polygon's (the
//! foot on the face, or the vertex of a vertex region). The seed article's
//! "farthest point of the circle" lies on the circle alone and is wrong by
//! half the depth.
//!
//! Degenerate inputs give a sensible manifold, never NaN: an incident edge
//! parallel to the normal is clipped like any other; a clipped segment of
//! (nearly) zero length gives one point; if clipping leaves nothing (possible
//! at near-ties, with slivers, or for a separated pair reported through the
//! margin), one point is made: for an overlapping pair at the incident
//! polygon's deepest vertex, for a separated pair midway between the closest
//! points of the reference and incident edges, with minus their distance as
//! its depth.
//!
//! The batch loops clip eight pairs at a time, a lane a pair
//! (`manifold/clip_across.rs`), and build two segment cores' manifolds
//! (capsules, segments) in the lanes of their SAT
//! (`manifold/segments_across.rs`): bit for bit what this path builds.

use glam::Vec2;

use crate::core::pair::Owner;
use crate::d2::batch::Batch;
use crate::d2::math::{Transform, inv_mul_transforms, inv_rotate, transform_point};
use crate::d2::sat::vertex_pair_of;
use crate::d2::shape::Faces;
use crate::d2::types::Hit;

mod circles_across;
mod clip_across;
mod segments_across;
pub(crate) use circles_across::contacts as circle_contacts;
pub(crate) use clip_across::PendingClips;
pub(crate) use segments_across::{LaneKinds, contacts as segment_contacts};

/// One contact point.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactPoint {
    /// World position, midway between the two surfaces.
    pub point: Vec2,
    /// How deep this point is (negative: a gap, within the margin).
    pub depth: f32,
    /// Feature id: `owner_b << 16 | reference_edge << 8 | incident_vertex`
    /// for polygons; see [`contact_id`].
    pub id: u32,
}

/// The contact points of one reported pair.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Manifold {
    /// Index of the pair in the batch.
    pub pair: u32,
    /// Body A.
    pub a: u32,
    /// Body B.
    pub b: u32,
    /// Unit normal from A to B (the hit's normal).
    pub normal: Vec2,
    pub(crate) points: [ContactPoint; 2],
    pub(crate) count: u8,
}

impl Manifold {
    /// A manifold with no points yet.
    pub fn new(pair: u32, a: u32, b: u32, normal: Vec2) -> Manifold {
        Manifold {
            pair,
            a,
            b,
            normal,
            ..Manifold::default()
        }
    }

    /// The one or two contact points.
    pub fn points(&self) -> &[ContactPoint] {
        &self.points[..self.count as usize]
    }

    pub(crate) fn push(&mut self, point: ContactPoint) {
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

/// The id of a contact point: which body owns the reference feature, the
/// reference feature (edge, or a vertex region's feature number) and the
/// incident feature (the incident polygon's vertex; 0 for a circle).
pub fn contact_id(owner: Owner, reference: u32, incident: u32) -> u32 {
    let owner_bit = match owner {
        Owner::A => 0,
        Owner::B => 1,
    };
    owner_bit << 16 | (reference & 0xff) << 8 | (incident & 0xff)
}

/// Segments shorter than this fraction of the shapes' size give one point.
pub(crate) const DEGENERATE_SEGMENT: f32 = 1e-6;

/// Builds the manifold of one hit.
pub fn manifold(batch: &Batch, hit: &Hit) -> Manifold {
    let shapes = batch.shapes();
    let records = shapes.records();
    let shape_of = batch.shape_of();
    let transforms = batch.transforms();
    let (a, b) = (hit.a as usize, hit.b as usize);
    let (index_a, index_b) = (shape_of[a], shape_of[b]);
    let (record_a, record_b) = (&records[index_a as usize], &records[index_b as usize]);
    let side = |index: u32, record: &crate::d2::shape::ShapeRecord| ContactSide {
        faces: (record.count > 0).then(|| shapes.faces(index, record)),
        radius: record.radius,
        size: record.size,
    };
    let mut manifold = Manifold::new(hit.pair, hit.a, hit.b, hit.normal);
    contact_points(
        &mut manifold,
        (transforms[a], side(index_a, record_a)),
        (transforms[b], side(index_b, record_b)),
        hit,
        batch.margin(),
    );
    manifold
}

/// What the contact points need of one shape: its faces (`None` for a
/// circle), radius and size.
#[derive(Clone, Copy)]
pub(crate) struct ContactSide<F> {
    pub faces: Option<F>,
    pub radius: f32,
    pub size: f32,
}

/// The contact points of a hit between two placed shapes, into `manifold`.
pub(crate) fn contact_points<F: Faces>(
    manifold: &mut Manifold,
    (xf_a, side_a): (Transform, ContactSide<F>),
    (xf_b, side_b): (Transform, ContactSide<F>),
    hit: &Hit,
    margin: f32,
) {
    // The reference side owns the axis.
    let ((ref_xf, reference), (inc_xf, incident)) = match hit.axis.owner {
        Owner::A => ((xf_a, side_a), (xf_b, side_b)),
        Owner::B => ((xf_b, side_b), (xf_a, side_a)),
    };
    let size = side_a.size + side_b.size;
    match (reference.faces, incident.faces) {
        (Some(reference_faces), Some(incident_faces))
            if hit.axis.feature >= 2 * reference_faces.count() =>
        {
            manifold.push(vertex_pair_point(
                (ref_xf, reference_faces, reference.radius),
                (inc_xf, incident_faces, incident.radius),
                hit,
            ))
        }
        (Some(reference_faces), Some(incident_faces)) => {
            // Two segment cores that cross (capsules, segments): one point.
            let crossed = if reference_faces.count() == 2
                && incident_faces.count() == 2
                && hit.depth >= reference.radius + incident.radius
            {
                crossing_point(
                    (ref_xf, reference_faces),
                    (inc_xf, incident_faces),
                    (reference.radius, incident.radius),
                    hit,
                )
            } else {
                None
            };
            match crossed {
                Some(point) => manifold.push(point),
                None => clip_polygons(
                    manifold,
                    (ref_xf, reference_faces),
                    (inc_xf, incident_faces),
                    (reference.radius, incident.radius),
                    hit,
                    size,
                    margin,
                ),
            }
        }
        (Some(faces), None) => manifold.push(polygon_circle_point(
            (ref_xf, faces, reference.radius),
            inc_xf,
            incident.radius,
            hit,
        )),
        (None, _) => manifold.push(circle_point(xf_a, xf_b, side_a.radius, side_b.radius, hit)),
    }
}

/// Manifolds of many hits, in order.
pub fn manifolds(batch: &Batch, hits: &[Hit]) -> Vec<Manifold> {
    hits.iter().map(|hit| manifold(batch, hit)).collect()
}

/// Manifolds on all cores; the same result as [`manifolds`].
#[cfg(feature = "parallel")]
pub fn manifolds_parallel(batch: &Batch, hits: &[Hit]) -> Vec<Manifold> {
    crate::core::parallel::map(hits, |hit| manifold(batch, hit))
}

fn next(i: u32, count: u32) -> u32 {
    if i + 1 < count { i + 1 } else { 0 }
}

fn clip_polygons<F: Faces>(
    manifold: &mut Manifold,
    (ref_xf, reference_faces): (Transform, F),
    (inc_xf, incident_faces): (Transform, F),
    radii: (f32, f32),
    hit: &Hit,
    size: f32,
    margin: f32,
) {
    // A backend reports an edge below the count; clamp rather than divide.
    let reference = hit.axis.feature.min(reference_faces.count() - 1);
    // The incident polygon, seen from the reference frame.
    let xf = inv_mul_transforms(ref_xf, inc_xf);
    let normal = reference_faces.normal(reference);
    let incident = incident_edge(inv_rotate(xf.q, normal), incident_faces);
    clip(
        manifold,
        &Clip {
            ref_xf,
            xf,
            reference_faces,
            incident_faces,
            reference,
            incident,
            owner: hit.axis.owner,
            overlapping: hit.depth > 0.0,
            size,
            margin,
            radii,
        },
    );
}

/// The incident polygon's edge most anti-parallel to the reference normal,
/// given that normal in the incident polygon's frame (one rotation, not m).
fn incident_edge<F: Faces>(normal_in_incident: Vec2, incident_faces: F) -> u32 {
    let mut incident = 0u32;
    let mut most_opposed = f32::MAX;
    for j in 0..incident_faces.count() {
        let alignment = normal_in_incident.dot(incident_faces.normal(j));
        // Selects, not branches: which edge wins is unpredictable.
        let better = alignment < most_opposed;
        incident = if better { j } else { incident };
        most_opposed = if better { alignment } else { most_opposed };
    }
    incident
}

/// Everything clipping needs, found by the caller.
#[derive(Clone, Copy)]
pub(crate) struct Clip<F> {
    /// The reference polygon's world transform.
    pub ref_xf: Transform,
    /// Takes the incident polygon's points into the reference frame.
    pub xf: Transform,
    pub reference_faces: F,
    pub incident_faces: F,
    pub reference: u32,
    pub incident: u32,
    /// Who owns the reference face.
    pub owner: Owner,
    /// Whether the pair overlaps (else it came through the margin).
    pub overlapping: bool,
    pub size: f32,
    pub margin: f32,
    /// The reference core's radius and the incident one's (0 for plain
    /// polygons and segments).
    pub radii: (f32, f32),
}

/// Clips the incident edge against the reference face's side planes and keeps
/// the points at or below the face.
#[inline]
pub(crate) fn clip<F: Faces>(manifold: &mut Manifold, input: &Clip<F>) {
    let Clip {
        ref_xf,
        xf,
        reference_faces,
        incident_faces,
        reference,
        incident,
        owner,
        overlapping,
        size,
        margin,
        radii: (radius_ref, radius_inc),
    } = *input;

    let v1 = reference_faces.vertex(reference);
    let v2 = reference_faces.vertex(next(reference, reference_faces.count()));
    let normal = reference_faces.normal(reference);
    let radii = radius_ref + radius_inc;
    // A point midway between the rounded surfaces: the cores' midpoint
    // moved by half the difference of the radii (none without radii).
    let rounded = |point: Vec2| {
        if radius_ref != radius_inc {
            point + 0.5 * (radius_ref - radius_inc) * normal
        } else {
            point
        }
    };
    // An incident core point `p` whose separation from the reference face
    // is `core`: midway between the reference surface over it and the
    // incident surface under it, along the normal (Box2D's choice).
    let place = |p: Vec2, core: f32| rounded(p - 0.5 * core * normal);
    // The reference polygon is CCW: its edges run along the left-hand
    // perpendicular of their outward normal.
    let tangent = Vec2::new(-normal.y, normal.x);
    let i1 = incident;
    let i2 = next(incident, incident_faces.count());
    let w1 = transform_point(xf, incident_faces.vertex(i1));
    let w2 = transform_point(xf, incident_faces.vertex(i2));

    // Clip [w1, w2] to the slab between the side planes through v1 and v2.
    let lower = tangent.dot(v1);
    let upper = tangent.dot(v2);
    let mut segment = [(w1, i1), (w2, i2)];
    let mut kept = 2;
    for (plane, side) in [(lower, -1.0f32), (upper, 1.0f32)] {
        // Inside when side * (t . p - plane) <= 0.
        let d0 = side * (tangent.dot(segment[0].0) - plane);
        let d1 = side * (tangent.dot(segment[1].0) - plane);
        if d0 > 0.0 && d1 > 0.0 {
            kept = 0;
            break;
        }
        if d0 > 0.0 || d1 > 0.0 {
            let t = d0 / (d0 - d1);
            let cut = segment[0].0 + t * (segment[1].0 - segment[0].0);
            if d0 > 0.0 {
                segment[0].0 = cut;
            } else {
                segment[1].0 = cut;
            }
        }
    }

    let to_world = |p: Vec2| transform_point(ref_xf, p);
    if kept == 2 {
        for (p, vertex) in segment {
            // The cores' separation, and less the radii.
            let core = normal.dot(p - v1);
            let separation = core - radii;
            if separation <= margin.max(0.0) {
                manifold.push(ContactPoint {
                    point: to_world(place(p, core)),
                    depth: -separation,
                    id: contact_id(owner, reference, vertex),
                });
            }
        }
        let shortest = DEGENERATE_SEGMENT * size;
        if manifold.count == 2
            && (manifold.points[0].point - manifold.points[1].point).length_squared()
                <= shortest * shortest
        {
            // A zero-length segment: one point, the deeper.
            if manifold.points[1].depth > manifold.points[0].depth {
                manifold.points.swap(0, 1);
            }
            manifold.count = 1;
        }
    }
    if manifold.count == 0 {
        if overlapping {
            // Overlapping, yet nothing survived clipping (a near-tie or a
            // sliver): the incident polygon's deepest vertex.
            let (vertex, deepest) = (0..incident_faces.count())
                .map(|j| (j, transform_point(xf, incident_faces.vertex(j))))
                .min_by(|(_, p), (_, q)| normal.dot(*p).total_cmp(&normal.dot(*q)))
                .unwrap_or((i1, w1));
            let core = normal.dot(deepest - v1);
            manifold.push(ContactPoint {
                point: to_world(place(deepest, core)),
                depth: -(core - radii),
                id: contact_id(owner, reference, vertex),
            });
        } else {
            // Separated, reported through the margin, but the incident edge
            // is not above the reference face: the closest points of the two
            // edges, and minus their distance as the depth.
            let (on_reference, on_incident, t) = closest_points_of_segments(v1, v2, w1, w2);
            let vertex = if t < 0.5 { i1 } else { i2 };
            manifold.push(ContactPoint {
                point: to_world(rounded(0.5 * (on_reference + on_incident))),
                depth: -((on_incident - on_reference).length() - radii),
                id: contact_id(owner, reference, vertex),
            });
        }
    }
}

/// The closest points of segments `[a1, a2]` and `[b1, b2]`, and the
/// parameter of the second along its segment.
fn closest_points_of_segments(a1: Vec2, a2: Vec2, b1: Vec2, b2: Vec2) -> (Vec2, Vec2, f32) {
    let closest_on = |p: Vec2, s1: Vec2, s2: Vec2| {
        let d = s2 - s1;
        let length_squared = d.length_squared();
        let t = if length_squared > 0.0 {
            ((p - s1).dot(d) / length_squared).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (s1 + t * d, t)
    };
    // Disjoint segments (the pair is separated) are closest at an endpoint
    // of one of them.
    let candidates = [(a1, closest_on(a1, b1, b2)), (a2, closest_on(a2, b1, b2))];
    let mut best = (a1, candidates[0].1.0, candidates[0].1.1);
    let mut best_distance = f32::MAX;
    for (a, (b, t)) in candidates {
        let distance = (a - b).length_squared();
        if distance < best_distance {
            best = (a, b, t);
            best_distance = distance;
        }
    }
    for (b, t) in [(b1, 0.0), (b2, 1.0)] {
        let (a, _) = closest_on(b, a1, a2);
        let distance = (a - b).length_squared();
        if distance < best_distance {
            best = (a, b, t);
            best_distance = distance;
        }
    }
    best
}

/// A polygon (the reference, which owns the axis) against a circle.
///
/// The depth is recomputed from the feature with the reference SAT's own
/// operations, so a manifold depends on the backend's choice of feature only,
/// never on the bits of its depth: two backends that agree on features give
/// identical manifolds, and simulations driven by them identical trajectories.
fn polygon_circle_point<F: Faces>(
    (poly_xf, faces, grown): (Transform, F, f32),
    circle_xf: Transform,
    radius: f32,
    hit: &Hit,
) -> ContactPoint {
    // The SAT adds the polygon's radius to the circle's (in this order).
    let radii = radius + grown;
    let count = faces.count();
    let centre = inv_mul_transforms(poly_xf, circle_xf).p;
    let feature = hit.axis.feature;
    // The axis in the polygon's frame, from the polygon towards the circle.
    let outward = match hit.axis.owner {
        Owner::A => crate::d2::math::inv_rotate(poly_xf.q, hit.normal),
        Owner::B => crate::d2::math::inv_rotate(poly_xf.q, -hit.normal),
    };
    let (polygon_surface, distance) = if feature >= count {
        let vertex = faces.vertex((feature - count).min(count - 1));
        let offset = centre - vertex;
        (vertex, (offset.x * offset.x + offset.y * offset.y).sqrt())
    } else {
        let (vertex, normal) = (faces.vertex(feature), faces.normal(feature));
        let offset = normal.x * vertex.x + normal.y * vertex.y;
        let separation = (normal.x * centre.x - offset) + normal.y * centre.y;
        (centre - separation * outward, separation)
    };
    let polygon_surface = if grown > 0.0 {
        polygon_surface + grown * outward
    } else {
        polygon_surface
    };
    let circle_surface = centre - radius * outward;
    ContactPoint {
        point: transform_point(poly_xf, 0.5 * (polygon_surface + circle_surface)),
        depth: -(distance - radii),
        id: contact_id(hit.axis.owner, feature, 0),
    }
}

/// Two segment cores that cross: one point, where they cross, as deep as
/// the pair. `None` for (nearly) parallel cores, which are clipped as any
/// faces are (two points where they overlap side by side).
fn crossing_point<F: Faces>(
    (ref_xf, reference_faces): (Transform, F),
    (inc_xf, incident_faces): (Transform, F),
    (radius_ref, radius_inc): (f32, f32),
    hit: &Hit,
) -> Option<ContactPoint> {
    let xf = inv_mul_transforms(ref_xf, inc_xf);
    let (v1, v2) = (reference_faces.vertex(0), reference_faces.vertex(1));
    let (w1, w2) = (
        transform_point(xf, incident_faces.vertex(0)),
        transform_point(xf, incident_faces.vertex(1)),
    );
    let (along_ref, along_inc) = (v2 - v1, w2 - w1);
    let cross = along_ref.perp_dot(along_inc);
    // Parallel within a thousandth of a radian: clipped instead.
    if cross.abs() <= 1e-3 * along_ref.length() * along_inc.length() {
        return None;
    }
    let t = ((w1 - v1).perp_dot(along_inc) / cross).clamp(0.0, 1.0);
    let crossing = v1 + t * along_ref;
    let normal = reference_faces.normal(hit.axis.feature.min(1));
    let point = if radius_ref != radius_inc {
        crossing + 0.5 * (radius_ref - radius_inc) * normal
    } else {
        crossing
    };
    Some(ContactPoint {
        point: transform_point(ref_xf, point),
        depth: hit.depth,
        id: contact_id(hit.axis.owner, hit.axis.feature, 0),
    })
}

/// Two rounded cores closest at a vertex of each (`rounded.rs`): one point,
/// midway between the two rounded surfaces on the line of the vertices; the
/// depth recomputed as the SAT computes it.
fn vertex_pair_point<F: Faces>(
    (ref_xf, reference_faces, radius_ref): (Transform, F, f32),
    (inc_xf, incident_faces, radius_inc): (Transform, F, f32),
    hit: &Hit,
) -> ContactPoint {
    let (n, m) = (reference_faces.count(), incident_faces.count());
    let (i, j) = vertex_pair_of(n, m, hit.axis.feature);
    let xf = inv_mul_transforms(ref_xf, inc_xf);
    let p = reference_faces.vertex(i);
    let w = transform_point(xf, incident_faces.vertex(j));
    let offset = w - p;
    let distance = (offset.x * offset.x + offset.y * offset.y).sqrt();
    let direction = if distance > 0.0 {
        offset / distance
    } else {
        reference_faces.normal(i)
    };
    let surface_ref = p + radius_ref * direction;
    let surface_inc = w - radius_inc * direction;
    ContactPoint {
        point: transform_point(ref_xf, 0.5 * (surface_ref + surface_inc)),
        depth: -(distance - (radius_ref + radius_inc)),
        id: contact_id(hit.axis.owner, n + i, j),
    }
}

/// Two circles: midway between the surfaces along the normal; the depth
/// recomputed as the reference SAT computes it.
fn circle_point(
    xf_a: Transform,
    xf_b: Transform,
    radius_a: f32,
    radius_b: f32,
    hit: &Hit,
) -> ContactPoint {
    let surface_a = xf_a.p + radius_a * hit.normal;
    let surface_b = xf_b.p - radius_b * hit.normal;
    let centre = inv_mul_transforms(xf_a, xf_b).p;
    let distance = (centre.x * centre.x + centre.y * centre.y).sqrt();
    ContactPoint {
        point: 0.5 * (surface_a + surface_b),
        depth: -(distance - (radius_a + radius_b)),
        id: contact_id(Owner::A, 0, 0),
    }
}
