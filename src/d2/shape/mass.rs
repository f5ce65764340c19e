//! Area, centroid and rotational inertia of a convex core grown by a radius
//! (a rounded polygon, a capsule), exactly, in double precision.
//!
//! The set of points within `r` of a convex polygon (or of a segment, a
//! polygon of two vertices and no area) splits into pieces that do not
//! overlap: the core itself, one `length x r` rectangle outside each edge,
//! and at each vertex a circular sector of radius `r` whose angle is the
//! turn between the two edges' normals (the sectors' angles add up to one
//! turn). Each piece's area, centroid and polar moment about its own
//! centroid are known in closed form; the parallel axis theorem moves every
//! moment to the common centroid:
//!
//! ```text
//! rectangle (length l, width r):  area l r,       polar area (l^2 + r^2) / 12
//!                                 centroid = edge midpoint + (r / 2) n
//! sector (angle t, radius r):     area t r^2 / 2, polar about the vertex area r^2 / 2
//!                                 centroid = vertex + (4 r sin(t/2) / (3 t)) bisector
//! polar about C = sum over pieces of (own polar + area |centroid - C|^2)
//! ```
//!
//! With `r = 0` only the core is left, and a segment then has no area: its
//! inertia is that of a thin rod (`length^2 / 12` per unit mass), so that a
//! body of one still turns.

use glam::DVec2;

/// A shape's mass properties per unit density.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MassProperties {
    pub area: f64,
    pub centroid: DVec2,
    /// Polar moment of area about the centroid (per unit density).
    pub polar: f64,
    /// Rotational inertia about the centroid per unit mass.
    pub unit_inertia: f64,
}

/// One piece: its area, centroid and polar moment about its own centroid.
struct Piece {
    area: f64,
    centroid: DVec2,
    own_polar: f64,
}

/// The core polygon (at least three counter-clockwise vertices) as one
/// piece: triangles fanned around the first vertex.
fn core_piece(vertices: &[DVec2]) -> Piece {
    let count = vertices.len();
    let origin = vertices[0];
    let mut centroid_sum = DVec2::ZERO;
    let mut area = 0.0;
    for i in 1..count - 1 {
        let e1 = vertices[i] - origin;
        let e2 = vertices[i + 1] - origin;
        let triangle_area = 0.5 * e1.perp_dot(e2);
        centroid_sum += triangle_area * (e1 + e2) / 3.0;
        area += triangle_area;
    }
    let centroid = origin + centroid_sum / area;
    // Polar moment of each triangle (centroid, v_i, v_i+1) about the centroid.
    let mut polar = 0.0;
    for i in 0..count {
        let e1 = vertices[i] - centroid;
        let e2 = vertices[(i + 1) % count] - centroid;
        let triangle_area = 0.5 * e1.perp_dot(e2);
        polar += triangle_area * (e1.dot(e1) + e1.dot(e2) + e2.dot(e2)) / 6.0;
    }
    Piece {
        area,
        centroid,
        own_polar: polar,
    }
}

/// The outward unit normal of the edge from `a` to `b` of a counter-clockwise
/// outline.
fn outward_normal(a: DVec2, b: DVec2) -> DVec2 {
    let edge = b - a;
    DVec2::new(edge.y, -edge.x) / edge.length()
}

/// The mass properties of `vertices` (counter-clockwise; two for a segment)
/// grown by `radius >= 0`.
pub(crate) fn mass_properties(vertices: &[DVec2], radius: f64) -> MassProperties {
    let count = vertices.len();
    let mut pieces = Vec::with_capacity(2 * count + 1);
    if count >= 3 {
        pieces.push(core_piece(vertices));
    }
    if radius > 0.0 {
        for i in 0..count {
            let (a, b) = (vertices[i], vertices[(i + 1) % count]);
            let length = (b - a).length();
            let normal = outward_normal(a, b);
            let area = length * radius;
            pieces.push(Piece {
                area,
                centroid: 0.5 * (a + b) + 0.5 * radius * normal,
                own_polar: area * (length * length + radius * radius) / 12.0,
            });
            // The sector at b, between this edge's normal and the next's.
            let next = outward_normal(b, vertices[(i + 2) % count]);
            let mut turn = normal.perp_dot(next).atan2(normal.dot(next));
            if turn <= 0.0 {
                // Opposite normals (a segment's ends): half a turn.
                turn += std::f64::consts::TAU;
            }
            let half = 0.5 * turn;
            let bisector = DVec2::new(
                normal.x * half.cos() - normal.y * half.sin(),
                normal.x * half.sin() + normal.y * half.cos(),
            );
            let area = half * radius * radius;
            let offset = 4.0 * radius * half.sin() / (3.0 * turn);
            pieces.push(Piece {
                area,
                centroid: b + offset * bisector,
                own_polar: area * (0.5 * radius * radius - offset * offset),
            });
        }
    }
    if pieces.is_empty() {
        // A bare segment: a thin rod.
        let (a, b) = (vertices[0], vertices[1]);
        return MassProperties {
            area: 0.0,
            centroid: 0.5 * (a + b),
            polar: 0.0,
            unit_inertia: (b - a).length_squared() / 12.0,
        };
    }
    if let [core] = pieces.as_slice() {
        return MassProperties {
            area: core.area,
            centroid: core.centroid,
            polar: core.own_polar,
            unit_inertia: core.own_polar / core.area,
        };
    }
    let area: f64 = pieces.iter().map(|p| p.area).sum();
    let centroid = pieces
        .iter()
        .fold(DVec2::ZERO, |sum, p| sum + p.area * p.centroid)
        / area;
    let polar: f64 = pieces
        .iter()
        .map(|p| p.own_polar + p.area * (p.centroid - centroid).length_squared())
        .sum();
    MassProperties {
        area,
        centroid,
        polar,
        unit_inertia: polar / area,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
    }

    /// A square grown by r: area s^2 + 4 s r + pi r^2; and a capsule against
    /// its closed form (a rectangle and two half disks).
    #[test]
    fn rounded_squares_and_capsules_match_their_closed_forms() {
        let (s, r) = (2.0, 0.5);
        let square = [
            DVec2::new(0.0, 0.0),
            DVec2::new(s, 0.0),
            DVec2::new(s, s),
            DVec2::new(0.0, s),
        ];
        let m = mass_properties(&square, r);
        let pi = std::f64::consts::PI;
        assert!(close(m.area, s * s + 4.0 * s * r + pi * r * r), "{m:?}");
        assert!((m.centroid - DVec2::splat(1.0)).length() < 1e-12, "{m:?}");

        let (l, r) = (3.0, 0.75);
        let capsule = mass_properties(&[DVec2::new(-l / 2.0, 0.0), DVec2::new(l / 2.0, 0.0)], r);
        let rectangle = 2.0 * r * l;
        let disk = pi * r * r;
        // Rectangle l x 2r about its centre, plus two half disks whose
        // centres sit 4r / 3pi beyond each end.
        let rectangle_polar = rectangle * (l * l + 4.0 * r * r) / 12.0;
        let d = 4.0 * r / (3.0 * pi);
        let half_disk_polar =
            0.5 * disk * (0.5 * r * r - d * d) + 0.5 * disk * (l / 2.0 + d).powi(2);
        let polar = rectangle_polar + 2.0 * half_disk_polar;
        assert!(close(capsule.area, rectangle + disk), "{capsule:?}");
        assert!(capsule.centroid.length() < 1e-12, "{capsule:?}");
        assert!(
            close(capsule.unit_inertia, polar / (rectangle + disk)),
            "{} against {}",
            capsule.unit_inertia,
            polar / (rectangle + disk)
        );
        // No radius: the core alone; a bare segment is a rod.
        let core = mass_properties(&square, 0.0);
        assert!(
            close(core.area, s * s) && close(core.unit_inertia, s * s / 6.0),
            "{core:?}"
        );
        let rod = mass_properties(&[DVec2::ZERO, DVec2::new(l, 0.0)], 0.0);
        assert!(
            rod.area == 0.0 && close(rod.unit_inertia, l * l / 12.0),
            "{rod:?}"
        );
    }
}
