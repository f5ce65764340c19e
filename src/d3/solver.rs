//! The 3D impulse solver: sequential impulses on contact points, with
//! Coulomb friction and warm starting (the 2D solver's scheme, `resolve.rs`,
//! with 3-vectors and inertia tensors).
//!
//! For each contact point with normal `n` (from A to B), lever arms `r_a`,
//! `r_b` from the centres of mass, and the relative velocity of B's point
//! against A's, `v = v_b + w_b x r_b - v_a - w_a x r_a`:
//!
//! ```text
//! mass along d:  k(d) = 1/m_a + 1/m_b + (I_a^-1 (r_a x d)) . (r_a x d)
//!                                     + (I_b^-1 (r_b x d)) . (r_b x d)
//! friction:      for the two tangents t1, t2 of n (a basis that depends on
//!                n only, so warm starting carries across frames):
//!                lambda_k = -(v . t_k) / k(t_k); the accumulated pair
//!                clamped to the disc of radius mu * (normal impulse)
//! normal:        lambda = -(v . n - target) / k(n); accumulated impulse
//!                clamped at 0 (contacts push, never pull)
//! apply P:       v_a -= P / m_a, w_a -= I_a^-1 (r_a x P), and + for B
//! ```
//!
//! `target` is the velocity a point must reach: restitution for a fast
//! approach, the speculative allowance to close a gap within the step, and
//! while the position bias is on, a push out of the overlap beyond the slop
//! (Baumgarte), taken out again by the relax iterations after the positions
//! move. Inverse inertia tensors are rotated into the world once per step:
//! `R (I_unit^-1 / m) R^T`. Impulses are remembered per contact id (the
//! manifold's feature ids) and applied first next step; the friction
//! impulse is remembered as a world vector and projected on the next step's
//! tangents, since the basis turns (and at `|n.x| = 0.577` jumps) with the
//! normal.

use std::collections::HashMap;

use glam::{Mat3, Vec3};

use super::body::Body;
use super::manifold::Manifold;
use super::shape::set::ShapeSet;
pub use crate::core::solver::{SolveReport, SolverOptions};

/// Mass properties the solver needs, per body, in the world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MassState {
    pub(crate) inv_mass: f32,
    pub(crate) inv_inertia: Mat3,
    /// World centre of mass.
    pub(crate) centre: Vec3,
}

/// A body's mass properties in the world: its shape's centroid placed, and
/// the inverse inertia tensor (its shape's, per unit mass, over the mass)
/// rotated. A static body, or a shape without volume, gets zeros.
pub(crate) fn mass_state(shapes: &ShapeSet, body: &Body) -> MassState {
    let transform = body.transform();
    let (centroid, unit_inertia) = shapes
        .get(body.shape)
        .map(|shape| (shape.centroid(), shape.unit_inertia()))
        .unwrap_or((Vec3::ZERO, Mat3::ZERO));
    let rotation = Mat3::from_cols(transform.r.c0, transform.r.c1, transform.r.c2);
    let determinant = unit_inertia.determinant();
    let inv_inertia = if body.inv_mass > 0.0 && determinant.is_finite() && determinant > 0.0 {
        rotation * (unit_inertia.inverse() * body.inv_mass) * rotation.transpose()
    } else {
        Mat3::ZERO
    };
    MassState {
        inv_mass: body.inv_mass,
        inv_inertia,
        centre: transform.p + rotation * centroid,
    }
}

/// Two unit tangents completing `normal` to a right-handed basis, a function
/// of the normal alone (Erin Catto's choice: the larger of two crosses).
pub fn tangents(normal: Vec3) -> (Vec3, Vec3) {
    let t1 = if normal.x.abs() >= 0.577_35 {
        Vec3::new(normal.y, -normal.x, 0.0)
    } else {
        Vec3::new(0.0, normal.z, -normal.y)
    }
    .normalize();
    (t1, normal.cross(t1))
}

#[derive(Clone, Copy, Debug)]
struct PointConstraint {
    r_a: Vec3,
    r_b: Vec3,
    normal_mass: f32,
    tangent_mass: [f32; 2],
    /// Target normal velocity always in force: restitution, or the
    /// speculative allowance to close a gap within the step.
    bias: f32,
    /// Extra separating velocity while the position bias is on.
    position_bias: f32,
    normal_impulse: f32,
    tangent_impulse: [f32; 2],
    key: (u32, u32, u32),
}

#[derive(Clone, Debug)]
struct ContactConstraint {
    a: usize,
    b: usize,
    normal: Vec3,
    tangents: [Vec3; 2],
    points: [Option<PointConstraint>; 4],
}

/// Sequential impulses with warm starting, in 3D. Keep one solver per
/// simulation: it remembers the last impulses of every contact point.
#[derive(Clone, Debug, Default)]
pub struct ContactSolver {
    /// Each point's last normal impulse and friction impulse, the latter
    /// as a world vector: the tangent basis may turn with the normal.
    previous: HashMap<(u32, u32, u32), (f32, Vec3)>,
    constraints: Vec<ContactConstraint>,
    mass: Vec<MassState>,
}

impl ContactSolver {
    /// A solver with no remembered impulses.
    pub fn new() -> ContactSolver {
        ContactSolver::default()
    }

    /// Forgets the remembered impulses.
    pub fn reset(&mut self) {
        self.previous.clear();
    }

    /// Builds the constraints of a step and applies the warm-start impulses.
    ///
    /// With a time step `dt`, a point that is still apart (negative depth, a
    /// speculative contact through the margin) lets the bodies approach by
    /// at most its gap within the step; without one, such points are skipped.
    pub fn begin(
        &mut self,
        shapes: &ShapeSet,
        bodies: &mut [Body],
        manifolds: &[Manifold],
        options: &SolverOptions,
        dt: Option<f32>,
    ) -> SolveReport {
        let mut report = SolveReport::default();
        self.constraints.clear();
        self.mass.clear();
        self.mass
            .extend(bodies.iter().map(|body| mass_state(shapes, body)));
        let mass = &self.mass;
        for manifold in manifolds {
            let (a, b) = (manifold.a as usize, manifold.b as usize);
            let (ma, mb) = (mass[a], mass[b]);
            if ma.inv_mass + mb.inv_mass == 0.0 {
                continue;
            }
            let normal = manifold.normal;
            let (t1, t2) = tangents(normal);
            let mut constraint = ContactConstraint {
                a,
                b,
                normal,
                tangents: [t1, t2],
                points: [None; 4],
            };
            let mut slot = 0;
            for point in manifold.points() {
                let speculative = point.depth < 0.0;
                if speculative && dt.is_none() {
                    continue;
                }
                let r_a = point.point - ma.centre;
                let r_b = point.point - mb.centre;
                let effective = |direction: Vec3| {
                    let (ra, rb) = (r_a.cross(direction), r_b.cross(direction));
                    let k = ma.inv_mass
                        + mb.inv_mass
                        + (ma.inv_inertia * ra).dot(ra)
                        + (mb.inv_inertia * rb).dot(rb);
                    if k > 0.0 { 1.0 / k } else { 0.0 }
                };
                let approach =
                    relative_velocity(&bodies[a], &bodies[b], &ma, &mb, r_a, r_b).dot(normal);
                let bias = match dt {
                    // May close the gap, no more, within the step.
                    Some(dt) if speculative && dt > 0.0 => point.depth / dt,
                    _ if approach < -options.restitution_threshold => {
                        -options.restitution * approach
                    }
                    _ => 0.0,
                };
                let position_bias = match dt {
                    Some(dt) if dt > 0.0 && point.depth > options.slop => {
                        (options.baumgarte * (point.depth - options.slop) / dt)
                            .min(options.max_bias_velocity)
                    }
                    _ => 0.0,
                };
                let key = (manifold.a, manifold.b, point.id);
                let (normal_impulse, friction) = if options.warm_start {
                    self.previous
                        .get(&key)
                        .copied()
                        .unwrap_or((0.0, Vec3::ZERO))
                } else {
                    (0.0, Vec3::ZERO)
                };
                let tangent_impulse = [friction.dot(t1), friction.dot(t2)];
                if normal_impulse != 0.0 || tangent_impulse != [0.0; 2] {
                    report.warm_started += 1;
                }
                constraint.points[slot] = Some(PointConstraint {
                    r_a,
                    r_b,
                    normal_mass: effective(normal),
                    tangent_mass: [effective(t1), effective(t2)],
                    bias,
                    position_bias,
                    normal_impulse,
                    tangent_impulse,
                    key,
                });
                report.points += 1;
                slot += 1;
            }
            if slot > 0 {
                self.constraints.push(constraint);
            }
        }

        // Warm start: apply last step's impulses first.
        for constraint in &self.constraints {
            let [t1, t2] = constraint.tangents;
            for point in constraint.points.iter().flatten() {
                let impulse = point.normal_impulse * constraint.normal
                    + point.tangent_impulse[0] * t1
                    + point.tangent_impulse[1] * t2;
                let pair = (constraint.a, constraint.b);
                apply_impulse(bodies, (&mass[pair.0], &mass[pair.1]), pair, point, impulse);
            }
        }
        report
    }

    /// Applies contact impulses to the bodies' velocities: [`begin`](Self::begin),
    /// the iterations without a position bias, [`finish`](Self::finish).
    pub fn solve(
        &mut self,
        shapes: &ShapeSet,
        bodies: &mut [Body],
        manifolds: &[Manifold],
        options: &SolverOptions,
        dt: Option<f32>,
    ) -> SolveReport {
        let report = self.begin(shapes, bodies, manifolds, options, dt);
        self.iterate(bodies, options.iterations, false, options);
        self.finish();
        report
    }

    /// Iterations with the position bias: velocities that also push
    /// overlapping bodies apart. Integrate positions after this.
    pub fn solve_biased(&mut self, bodies: &mut [Body], options: &SolverOptions) {
        self.iterate(bodies, options.iterations, true, options);
    }

    /// Iterations without the position bias, after positions moved: the
    /// separating velocity the bias added is taken out again.
    pub fn relax(&mut self, bodies: &mut [Body], options: &SolverOptions) {
        self.iterate(bodies, options.relax_iterations, false, options);
    }

    fn iterate(
        &mut self,
        bodies: &mut [Body],
        iterations: usize,
        use_bias: bool,
        options: &SolverOptions,
    ) {
        let mass = &self.mass;
        for _ in 0..iterations {
            for constraint in &mut self.constraints {
                let (a, b) = (constraint.a, constraint.b);
                let (ma, mb) = (mass[a], mass[b]);
                let normal = constraint.normal;
                let [t1, t2] = constraint.tangents;
                // Friction first: the normal impulse, solved last, matters most.
                for point in constraint.points.iter_mut().flatten() {
                    let relative =
                        relative_velocity(&bodies[a], &bodies[b], &ma, &mb, point.r_a, point.r_b);
                    let old = point.tangent_impulse;
                    let wanted = [
                        old[0] - point.tangent_mass[0] * relative.dot(t1),
                        old[1] - point.tangent_mass[1] * relative.dot(t2),
                    ];
                    let limit = options.friction * point.normal_impulse;
                    let length = (wanted[0] * wanted[0] + wanted[1] * wanted[1]).sqrt();
                    let scale = if length > limit && length > 0.0 {
                        limit / length
                    } else {
                        1.0
                    };
                    let total = [wanted[0] * scale, wanted[1] * scale];
                    point.tangent_impulse = total;
                    let impulse = (total[0] - old[0]) * t1 + (total[1] - old[1]) * t2;
                    apply_impulse(bodies, (&ma, &mb), (a, b), point, impulse);
                }
                for point in constraint.points.iter_mut().flatten() {
                    let relative =
                        relative_velocity(&bodies[a], &bodies[b], &ma, &mb, point.r_a, point.r_b);
                    let target = point.bias + if use_bias { point.position_bias } else { 0.0 };
                    let lambda = -point.normal_mass * (relative.dot(normal) - target);
                    let total = (point.normal_impulse + lambda).max(0.0);
                    let lambda = total - point.normal_impulse;
                    point.normal_impulse = total;
                    apply_impulse(bodies, (&ma, &mb), (a, b), point, lambda * normal);
                }
            }
        }
    }

    /// Remembers every point's impulses for the next step's warm start.
    pub fn finish(&mut self) {
        self.previous.clear();
        for constraint in &self.constraints {
            let [t1, t2] = constraint.tangents;
            for point in constraint.points.iter().flatten() {
                let friction = point.tangent_impulse[0] * t1 + point.tangent_impulse[1] * t2;
                self.previous
                    .insert(point.key, (point.normal_impulse, friction));
            }
        }
    }
}

/// Velocity of B's contact point relative to A's. A static body's
/// velocities count as zero whatever they hold.
#[inline(always)]
fn relative_velocity(
    a: &Body,
    b: &Body,
    ma: &MassState,
    mb: &MassState,
    r_a: Vec3,
    r_b: Vec3,
) -> Vec3 {
    let point_velocity = |body: &Body, mass: &MassState, r: Vec3| {
        if mass.inv_mass == 0.0 {
            Vec3::ZERO
        } else {
            body.velocity + body.angular_velocity.cross(r)
        }
    };
    point_velocity(b, mb, r_b) - point_velocity(a, ma, r_a)
}

#[inline(always)]
fn apply_impulse(
    bodies: &mut [Body],
    (ma, mb): (&MassState, &MassState),
    (a, b): (usize, usize),
    point: &PointConstraint,
    impulse: Vec3,
) {
    if ma.inv_mass > 0.0 {
        bodies[a].velocity -= ma.inv_mass * impulse;
        bodies[a].angular_velocity -= ma.inv_inertia * point.r_a.cross(impulse);
    }
    if mb.inv_mass > 0.0 {
        bodies[b].velocity += mb.inv_mass * impulse;
        bodies[b].angular_velocity += mb.inv_inertia * point.r_b.cross(impulse);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tangents_complete_a_right_handed_orthonormal_basis() {
        for normal in [
            Vec3::X,
            -Vec3::Y,
            Vec3::Z,
            Vec3::new(0.3, -0.8, 0.52).normalize(),
            Vec3::new(-0.577, 0.577, 0.578).normalize(),
        ] {
            let (t1, t2) = tangents(normal);
            for (what, value) in [
                ("|t1|", t1.length() - 1.0),
                ("|t2|", t2.length() - 1.0),
                ("t1 . n", t1.dot(normal)),
                ("t2 . n", t2.dot(normal)),
                ("t1 . t2", t1.dot(t2)),
                ("t1 x t2 - n", (t1.cross(t2) - normal).length()),
            ] {
                assert!(value.abs() < 1e-6, "normal {normal}: {what} = {value}");
            }
        }
    }
}
