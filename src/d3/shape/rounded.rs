//! Shapes with a radius: capsules (a segment core) and rounded hulls (a hull
//! core), each the set of points within `radius` of its core. A sphere is
//! the third: a point core.
//!
//! The narrowphase takes every shape as a core and a radius
//! ([`Shape::core`](super::Shape::core)): the cores' SAT or their exact
//! closest features, then the radii (`sat/rounded.rs`).
//!
//! Mass properties. A capsule's are exact (a cylinder and two half balls).
//! A rounded hull's volume is exact by Steiner's formula for a convex body
//! grown by `r`:
//!
//! ```text
//! V(r) = V + S r + (1/2) sum over edges (length x exterior angle) r^2 + (4/3) pi r^3
//! ```
//!
//! (`S` the core's surface area, an edge's exterior angle the angle between
//! its two faces' normals). Its centroid and inertia per unit mass are those
//! of a polyhedron inscribed in it: each core vertex `v` moved by the radius
//! along the normals of its faces (so the faces are moved out exactly), of
//! its edges' arcs at three inner points, and of its own mean normal,
//! hulled by the hull builder (its divergence-theorem mass properties).
//! Checked against a grid integration of the true shape: a cube grown by a
//! quarter of its half side and a rod grown by four times its width, within
//! 3%. Where that polyhedron would have more than the hull builder's
//! [`MAX_HULL_VERTICES`](super::hull::MAX_HULL_VERTICES), the arcs get fewer
//! inner points, down to none; past that (cores of more than about 60
//! vertices, where the radius is small beside the core) the core's own
//! centroid and inertia scaled by `(1 + r / size)^2` stand in (`size` the
//! core's).

use glam::{Mat3, Vec3};

use super::hull::{MAX_HULL_VERTICES, build_hull};
use super::shapes::Hull;
use crate::core::error::ShapeError;
use crate::core::limits::{check_radius, check_segment_core};

/// A validated capsule: the points within `radius` of the segment from `a`
/// to `b` in its local frame (Box3D's `b3Capsule`, parry's `Capsule`). Build
/// one with [`Capsule::new`].
#[derive(Clone, Debug, PartialEq)]
pub struct Capsule {
    points: [Vec3; 2],
    radius: f32,
    size: f32,
    volume: f32,
    unit_inertia: Mat3,
}

impl Capsule {
    /// The capsule around `a`-`b` of `radius`: finite points, a positive
    /// finite radius, the points at least `radius /`
    /// [`MAX_RADIUS_RATIO`](crate::core::limits::MAX_RADIUS_RATIO) apart (closer, it is a sphere).
    pub fn new(a: Vec3, b: Vec3, radius: f32) -> Result<Capsule, ShapeError> {
        for (point, p) in [a, b].into_iter().enumerate() {
            if !p.is_finite() {
                return Err(ShapeError::NonFinitePoint {
                    point,
                    x: p.x,
                    y: p.y,
                    z: p.z,
                });
            }
        }
        if !radius.is_finite() {
            return Err(ShapeError::RadiusNotFinite { radius });
        }
        if radius <= 0.0 {
            return Err(ShapeError::RadiusNotPositive { radius });
        }
        let (pa, pb) = (a.as_dvec3(), b.as_dvec3());
        let length = (pb - pa).length();
        check_segment_core(length, radius)?;
        // A cylinder of length L and two half balls, about the midpoint.
        let r = f64::from(radius);
        let cylinder = std::f64::consts::PI * r * r * length;
        let ball = 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
        let volume = cylinder + ball;
        let axial = (cylinder * r * r / 2.0 + ball * 0.4 * r * r) / volume;
        let across = (cylinder * (length * length / 12.0 + r * r / 4.0)
            + ball * (0.4 * r * r + length * length / 4.0 + 3.0 * length * r / 8.0))
            / volume;
        let d = (pb - pa) / length;
        let outer = glam::DMat3::from_cols(d * d.x, d * d.y, d * d.z);
        let inertia = glam::DMat3::IDENTITY * across + outer * (axial - across);
        Ok(Capsule {
            points: [a, b],
            radius,
            size: (0.5 * length + r) as f32,
            volume: volume as f32,
            unit_inertia: inertia.as_mat3(),
        })
    }

    /// Its core's two points.
    pub fn points(&self) -> [Vec3; 2] {
        self.points
    }

    /// The radius.
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// Its midpoint (the centre of mass).
    pub fn centroid(&self) -> Vec3 {
        0.5 * (self.points[0] + self.points[1])
    }

    /// Half its core's length plus the radius: the length scale tolerances
    /// are relative to.
    pub fn size(&self) -> f32 {
        self.size
    }

    /// The enclosed volume.
    pub fn volume(&self) -> f32 {
        self.volume
    }

    /// The inertia tensor about the centroid, per unit mass.
    pub fn unit_inertia(&self) -> Mat3 {
        self.unit_inertia
    }
}

/// A validated hull grown by a radius: the points within `radius` of a
/// convex polyhedron (Jolt's convex radius, parry's `RoundShape`). Build one
/// with [`RoundedHull::new`] or [`RoundedHull::cuboid`].
#[derive(Clone, Debug, PartialEq)]
pub struct RoundedHull {
    hull: Hull,
    radius: f32,
    volume: f32,
    centroid: Vec3,
    unit_inertia: Mat3,
}

/// The points of a polyhedron inscribed in `hull` grown by `radius`: each
/// vertex moved along its faces' normals, along `arc_points` inner points
/// of each of its edges' arcs, and along its mean normal.
fn inscribed_points(hull: &Hull, radius: f32, arc_points: usize) -> Vec<Vec3> {
    let mut faces_at: Vec<Vec<u32>> = vec![Vec::new(); hull.vertices().len()];
    for face in 0..hull.face_count() {
        for &v in hull.face(face) {
            faces_at[v as usize].push(face as u32);
        }
    }
    let normals = hull.normals();
    let mut points = Vec::new();
    for (v, &vertex) in hull.vertices().iter().enumerate() {
        let mut mean = Vec3::ZERO;
        for &face in &faces_at[v] {
            let n = normals[face as usize];
            points.push(vertex + radius * n);
            mean += n;
        }
        points.push(vertex + radius * mean.normalize_or(Vec3::Y));
        for &edge in hull.vertex_edges(v) {
            let edge = hull.edges()[edge as usize];
            let (u, w) = (normals[edge.f0 as usize], normals[edge.f1 as usize]);
            for k in 1..=arc_points {
                let t = k as f32 / (arc_points + 1) as f32;
                points.push(vertex + radius * ((1.0 - t) * u + t * w).normalize_or(u));
            }
        }
    }
    points
}

impl RoundedHull {
    /// The hull of `points` grown by `radius`: the points validated as
    /// [`Hull::new`] does, the radius finite, at least 0 and at most
    /// [`MAX_RADIUS_RATIO`](crate::core::limits::MAX_RADIUS_RATIO) times the hull's extent.
    pub fn new(points: &[Vec3], radius: f32) -> Result<RoundedHull, ShapeError> {
        RoundedHull::from_hull(Hull::new(points)?, radius)
    }

    /// A box with these half extents (its core's: the rounded box is
    /// `half_extents + radius` on each side) grown by `radius`.
    pub fn cuboid(half_extents: Vec3, radius: f32) -> Result<RoundedHull, ShapeError> {
        RoundedHull::from_hull(Hull::cuboid(half_extents)?, radius)
    }

    /// A validated hull grown by `radius`.
    pub fn from_hull(hull: Hull, radius: f32) -> Result<RoundedHull, ShapeError> {
        let size = f64::from(hull.size());
        check_radius(radius, 2.0 * size)?;
        let r = f64::from(radius);
        let vertices = hull.vertices();
        let mut area = 0.0f64;
        for face in 0..hull.face_count() {
            let loop_ = hull.face(face);
            let origin = vertices[loop_[0] as usize].as_dvec3();
            for k in 1..loop_.len() - 1 {
                let (p, q) = (
                    vertices[loop_[k] as usize].as_dvec3(),
                    vertices[loop_[k + 1] as usize].as_dvec3(),
                );
                area += 0.5 * (p - origin).cross(q - origin).length();
            }
        }
        let mut bend = 0.0f64;
        for edge in hull.edges() {
            let length = (vertices[edge.v1 as usize] - vertices[edge.v0 as usize])
                .as_dvec3()
                .length();
            let (u, v) = (
                hull.normals()[edge.f0 as usize].as_dvec3(),
                hull.normals()[edge.f1 as usize].as_dvec3(),
            );
            bend += 0.5 * length * u.dot(v).clamp(-1.0, 1.0).acos();
        }
        let volume = f64::from(hull.volume())
            + area * r
            + bend * r * r
            + 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
        // Every point is a vertex of the inscribed polyhedron: as many inner
        // points on each arc as keep it within the hull builder's limit.
        let corners: usize = (0..hull.face_count())
            .map(|f| hull.face(f).len())
            .sum::<usize>()
            + hull.vertices().len();
        let arc_points = (0..=3)
            .rev()
            .find(|m| corners + 2 * m * hull.edges().len() <= MAX_HULL_VERTICES);
        let inscribed = arc_points
            .filter(|_| radius > 0.0)
            .and_then(|m| build_hull(&inscribed_points(&hull, radius, m)).ok());
        let (centroid, unit_inertia) = match inscribed {
            Some(mesh) => {
                let i = mesh.unit_inertia;
                (
                    mesh.centroid.as_vec3(),
                    Mat3::from_cols(i.x_axis.as_vec3(), i.y_axis.as_vec3(), i.z_axis.as_vec3()),
                )
            }
            None => (
                hull.centroid(),
                hull.unit_inertia() * (1.0 + r / size).powi(2) as f32,
            ),
        };
        Ok(RoundedHull {
            hull,
            radius,
            volume: volume as f32,
            centroid,
            unit_inertia,
        })
    }

    /// The core.
    pub fn hull(&self) -> &Hull {
        &self.hull
    }

    /// The radius the core is grown by.
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// The core's size plus the radius: the length scale tolerances are
    /// relative to.
    pub fn size(&self) -> f32 {
        self.hull.size() + self.radius
    }

    /// The enclosed volume (exact, Steiner's formula).
    pub fn volume(&self) -> f32 {
        self.volume
    }

    /// The centre of mass in the local frame (the inscribed polyhedron's:
    /// see the module).
    pub fn centroid(&self) -> Vec3 {
        self.centroid
    }

    /// The inertia tensor about the centroid, per unit mass (the inscribed
    /// polyhedron's: see the module).
    pub fn unit_inertia(&self) -> Mat3 {
        self.unit_inertia
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capsule_has_the_mass_of_a_cylinder_and_a_ball() {
        let capsule = Capsule::new(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), 0.5)
            .expect("a valid capsule");
        let pi = std::f32::consts::PI;
        let expected = pi * 0.25 * 2.0 + 4.0 / 3.0 * pi * 0.125;
        assert!(
            (capsule.volume() - expected).abs() < 1e-5,
            "{} against {expected}",
            capsule.volume()
        );
        // About its own axis: r^2 / 2 for the cylinder, 2 r^2 / 5 for the ball.
        let axial = capsule.unit_inertia().x_axis.x;
        let expected_axial = (pi * 0.25 * 2.0 * 0.125 + 4.0 / 3.0 * pi * 0.125 * 0.1) / expected;
        assert!(
            (axial - expected_axial).abs() < 1e-5,
            "{axial} against {expected_axial}"
        );
        assert_eq!(capsule.size(), 1.5);
    }

    #[test]
    fn a_rounded_box_has_steiners_volume() {
        // A unit cube grown by r: 1 + 6 r + 3 pi r^2 + 4/3 pi r^3.
        let r = 0.25f32;
        let rounded = RoundedHull::cuboid(Vec3::splat(0.5), r).expect("a valid rounded box");
        let pi = std::f32::consts::PI;
        let expected = 1.0 + 6.0 * r + 3.0 * pi * r * r + 4.0 / 3.0 * pi * r.powi(3);
        assert!(
            (rounded.volume() - expected).abs() < 1e-5,
            "{} against {expected}",
            rounded.volume()
        );
    }

    /// The inertia against a midpoint-rule integration over a fine grid
    /// (points within the radius of the core), for a cube grown by a
    /// quarter of its half side and a thin rod grown by four times its
    /// width: within 3%.
    #[test]
    fn a_rounded_box_has_the_inertia_of_its_shape() {
        for (half, radius) in [
            (Vec3::splat(0.5), 0.125f32),
            (Vec3::new(1.0, 0.05, 0.05), 0.2),
        ] {
            let rounded = RoundedHull::cuboid(half, radius).expect("a rounded box");
            let reach = half + Vec3::splat(radius);
            let n = 120;
            let (mut mass, mut moments) = (0.0f64, glam::DVec3::ZERO);
            for i in 0..n {
                for j in 0..n {
                    for k in 0..n {
                        let cell = |c: usize, r: f32| (2.0 * (c as f32 + 0.5) / n as f32 - 1.0) * r;
                        let p = Vec3::new(cell(i, reach.x), cell(j, reach.y), cell(k, reach.z));
                        let outside = (p.abs() - half).max(Vec3::ZERO);
                        if outside.length() <= radius {
                            let p = p.as_dvec3();
                            mass += 1.0;
                            moments += glam::DVec3::new(
                                p.y * p.y + p.z * p.z,
                                p.x * p.x + p.z * p.z,
                                p.x * p.x + p.y * p.y,
                            );
                        }
                    }
                }
            }
            let expected = moments / mass;
            let got = rounded.unit_inertia();
            let got = glam::DVec3::new(
                f64::from(got.x_axis.x),
                f64::from(got.y_axis.y),
                f64::from(got.z_axis.z),
            );
            let error = ((got - expected) / expected).abs().max_element();
            assert!(
                error < 0.03,
                "{half} grown by {radius}: {got} against {expected}"
            );
        }
    }

    #[test]
    fn bad_radii_and_points_are_refused_with_the_reason() {
        let (a, b) = (Vec3::ZERO, Vec3::X);
        assert!(matches!(
            Capsule::new(a, b, -1.0),
            Err(ShapeError::RadiusNotPositive { .. })
        ));
        assert!(matches!(
            Capsule::new(a, b, f32::NAN),
            Err(ShapeError::RadiusNotFinite { .. })
        ));
        assert!(matches!(
            Capsule::new(a, a, 0.5),
            Err(ShapeError::CoincidentPoints { .. })
        ));
        assert!(matches!(
            Capsule::new(a, Vec3::new(f32::INFINITY, 0.0, 0.0), 0.5),
            Err(ShapeError::NonFinitePoint { point: 1, .. })
        ));
        assert!(matches!(
            RoundedHull::cuboid(Vec3::ONE, -0.1),
            Err(ShapeError::RadiusNegative { .. })
        ));
        assert!(matches!(
            RoundedHull::cuboid(Vec3::splat(1e-3), 1e3),
            Err(ShapeError::RadiusTooLarge { .. })
        ));
    }
}
