//! Resolving 2D contacts on velocities.
//!
//! [`ContactSolver`] is a sequential-impulse solver on the contact points of
//! [`Manifold`]s: for each point a normal impulse (never pulling, with
//! restitution above a speed threshold) and a friction impulse clamped to the
//! friction coefficient times the normal impulse (Coulomb), both accumulated
//! over the iterations and clamped as totals, warm started from the previous
//! call's impulses of the points with the same bodies and feature id. The two
//! normal impulses of a two-point manifold are solved together, exactly (a
//! 2x2 complementarity problem, Box2D's block solver), when their mass
//! matrix is well conditioned. Body
//! velocities are those of the centre of mass; angular velocities turn about
//! it.

use std::collections::HashMap;

use glam::Vec2;

use crate::core::solver::{SolveReport, SolverOptions};
use crate::d2::body::Body;
use crate::d2::manifold::Manifold;
use crate::d2::math::{cross, transform_point};
use crate::d2::shape::ShapeSet;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct MassState {
    inv_mass: f32,
    inv_inertia: f32,
    /// World centre of mass.
    centre: Vec2,
}

fn mass_state(shapes: &ShapeSet, body: &Body) -> MassState {
    let (centroid, unit_inertia) = shapes
        .get(body.shape)
        .map(|shape| (shape.centroid(), shape.unit_inertia()))
        .unwrap_or((Vec2::ZERO, 0.0));
    MassState {
        inv_mass: body.inv_mass,
        inv_inertia: if unit_inertia > 0.0 {
            body.inv_mass / unit_inertia
        } else {
            0.0
        },
        centre: transform_point(body.transform(), centroid),
    }
}

#[derive(Clone, Copy, Debug)]
struct PointConstraint {
    r_a: Vec2,
    r_b: Vec2,
    normal_mass: f32,
    tangent_mass: f32,
    /// Target normal velocity always in force: restitution, or the
    /// speculative allowance to close a gap within the step.
    bias: f32,
    /// Extra separating velocity while the position bias is on.
    position_bias: f32,
    normal_impulse: f32,
    tangent_impulse: f32,
    key: (u32, u32, u32),
}

#[derive(Clone, Debug)]
struct ContactConstraint {
    a: usize,
    b: usize,
    normal: Vec2,
    points: [Option<PointConstraint>; 2],
    /// For two points: the inverse of the 2x2 normal mass matrix `K`, and
    /// `K` itself, when it is well conditioned (else the points are solved
    /// one after the other).
    block: Option<BlockMass>,
}

#[derive(Clone, Copy, Debug)]
struct BlockMass {
    k: [[f32; 2]; 2],
    inverse: [[f32; 2]; 2],
}

/// `K` of two contact points, inverted when its condition number allows.
fn block_mass(
    ma: &MassState,
    mb: &MassState,
    p1: &PointConstraint,
    p2: &PointConstraint,
    normal: Vec2,
) -> Option<BlockMass> {
    let (rn1a, rn1b) = (cross(p1.r_a, normal), cross(p1.r_b, normal));
    let (rn2a, rn2b) = (cross(p2.r_a, normal), cross(p2.r_b, normal));
    let linear = ma.inv_mass + mb.inv_mass;
    let k11 = linear + ma.inv_inertia * rn1a * rn1a + mb.inv_inertia * rn1b * rn1b;
    let k22 = linear + ma.inv_inertia * rn2a * rn2a + mb.inv_inertia * rn2b * rn2b;
    let k12 = linear + ma.inv_inertia * rn1a * rn2a + mb.inv_inertia * rn1b * rn2b;
    let determinant = k11 * k22 - k12 * k12;
    // Box2D's bound on the condition number.
    const MAX_CONDITION: f32 = 1000.0;
    if k11 * k11 < MAX_CONDITION * determinant && determinant > 0.0 {
        let inv = 1.0 / determinant;
        Some(BlockMass {
            k: [[k11, k12], [k12, k22]],
            inverse: [[k22 * inv, -k12 * inv], [-k12 * inv, k11 * inv]],
        })
    } else {
        None
    }
}

/// Solves the two normal impulses of a two-point contact together: the
/// linear complementarity problem `vn = K x + b, x >= 0, vn >= 0, x . vn = 0`
/// by trying its four cases in turn (Box2D's block solver). Exact where
/// Gauss–Seidel would need many iterations (a box landing flat).
fn solve_block(
    bodies: &mut [Body],
    mass: &[MassState],
    constraint: &mut ContactConstraint,
    block: &BlockMass,
    use_bias: bool,
) {
    let (a, b, normal) = (constraint.a, constraint.b, constraint.normal);
    let [Some(p1), Some(p2)] = &mut constraint.points else {
        return;
    };
    let old = Vec2::new(p1.normal_impulse, p2.normal_impulse);
    let vn1 = relative_velocity(&bodies[a], &bodies[b], p1.r_a, p1.r_b).dot(normal);
    let vn2 = relative_velocity(&bodies[a], &bodies[b], p2.r_a, p2.r_b).dot(normal);
    let k = block.k;
    // b' = vn - bias - K * old
    let target = |p: &PointConstraint| p.bias + if use_bias { p.position_bias } else { 0.0 };
    let rhs = Vec2::new(
        vn1 - target(p1) - (k[0][0] * old.x + k[0][1] * old.y),
        vn2 - target(p2) - (k[1][0] * old.x + k[1][1] * old.y),
    );
    let both = -Vec2::new(
        block.inverse[0][0] * rhs.x + block.inverse[0][1] * rhs.y,
        block.inverse[1][0] * rhs.x + block.inverse[1][1] * rhs.y,
    );
    let first_only = Vec2::new(-rhs.x / k[0][0], 0.0);
    let second_only = Vec2::new(0.0, -rhs.y / k[1][1]);
    let candidates = [
        // Both points push.
        (both, both.x >= 0.0 && both.y >= 0.0),
        // Only the first pushes; the second must not be approaching.
        (
            first_only,
            first_only.x >= 0.0 && k[1][0] * first_only.x + rhs.y >= 0.0,
        ),
        (
            second_only,
            second_only.y >= 0.0 && k[0][1] * second_only.y + rhs.x >= 0.0,
        ),
        // Neither pushes: both must be separating.
        (Vec2::ZERO, rhs.x >= 0.0 && rhs.y >= 0.0),
    ];
    // Rounding can leave no case exactly valid; then keep the impulses.
    let Some((new, _)) = candidates.into_iter().find(|(_, valid)| *valid) else {
        return;
    };
    let delta = new - old;
    p1.normal_impulse = new.x;
    p2.normal_impulse = new.y;
    let (r1a, r1b, r2a, r2b) = (p1.r_a, p1.r_b, p2.r_a, p2.r_b);
    apply_impulse(bodies, mass, a, b, r1a, r1b, delta.x * normal);
    apply_impulse(bodies, mass, a, b, r2a, r2b, delta.y * normal);
}

/// Sequential impulses with warm starting. Keep one solver per simulation:
/// it remembers the last impulses of every contact point.
#[derive(Clone, Debug, Default)]
pub struct ContactSolver {
    previous: HashMap<(u32, u32, u32), (f32, f32)>,
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

    /// Applies contact impulses to the bodies' velocities: [`begin`](Self::begin),
    /// the iterations without a position bias, [`finish`](Self::finish).
    ///
    /// With a time step `dt`, a point that is still apart (negative depth, a
    /// speculative contact through the margin) lets the bodies approach by
    /// at most its gap within the step; without one, such points are skipped.
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

    /// Builds the constraints of a step and applies the warm-start impulses.
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
            let tangent = Vec2::new(-normal.y, normal.x);
            let mut constraint = ContactConstraint {
                a,
                b,
                normal,
                points: [None, None],
                block: None,
            };
            let mut slot = 0;
            for point in manifold.points() {
                let speculative = point.depth < 0.0;
                if speculative && dt.is_none() {
                    continue;
                }
                let r_a = point.point - ma.centre;
                let r_b = point.point - mb.centre;
                let effective = |direction: Vec2| {
                    let ra_cross = cross(r_a, direction);
                    let rb_cross = cross(r_b, direction);
                    let k = ma.inv_mass
                        + mb.inv_mass
                        + ma.inv_inertia * ra_cross * ra_cross
                        + mb.inv_inertia * rb_cross * rb_cross;
                    if k > 0.0 { 1.0 / k } else { 0.0 }
                };
                let relative = relative_velocity(&bodies[a], &bodies[b], r_a, r_b);
                let approach = relative.dot(normal);
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
                let (normal_impulse, tangent_impulse) = if options.warm_start {
                    self.previous.get(&key).copied().unwrap_or((0.0, 0.0))
                } else {
                    (0.0, 0.0)
                };
                if normal_impulse != 0.0 || tangent_impulse != 0.0 {
                    report.warm_started += 1;
                }
                constraint.points[slot.min(1)] = Some(PointConstraint {
                    r_a,
                    r_b,
                    normal_mass: effective(normal),
                    tangent_mass: effective(tangent),
                    bias,
                    position_bias,
                    normal_impulse,
                    tangent_impulse,
                    key,
                });
                report.points += 1;
                slot += 1;
            }
            if slot == 0 {
                continue;
            }
            if let [Some(p1), Some(p2)] = &constraint.points {
                constraint.block = block_mass(&ma, &mb, p1, p2, normal);
            }
            self.constraints.push(constraint);
        }

        // Warm start: apply last frame's impulses first.
        for constraint in &self.constraints {
            let tangent = Vec2::new(-constraint.normal.y, constraint.normal.x);
            for point in constraint.points.iter().flatten() {
                let impulse =
                    point.normal_impulse * constraint.normal + point.tangent_impulse * tangent;
                apply_impulse(
                    bodies,
                    mass,
                    constraint.a,
                    constraint.b,
                    point.r_a,
                    point.r_b,
                    impulse,
                );
            }
        }

        report
    }

    /// Iterations with the position bias: velocities that also push
    /// overlapping bodies apart. Integrate positions after this.
    pub fn solve_biased(&mut self, bodies: &mut [Body], options: &SolverOptions) {
        self.iterate(bodies, options.iterations, true, options);
    }

    /// Iterations without the position bias, after positions moved: the
    /// separating velocity the bias added is taken out again, so it moved
    /// the bodies apart without launching them (Box2D v3's relax step).
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
        for _ in 0..iterations {
            for constraint in &mut self.constraints {
                let (a, b) = (constraint.a, constraint.b);
                let normal = constraint.normal;
                let tangent = Vec2::new(-normal.y, normal.x);
                // Friction first: the normal impulse, solved last, matters most.
                for point in constraint.points.iter_mut().flatten() {
                    let relative = relative_velocity(&bodies[a], &bodies[b], point.r_a, point.r_b);
                    let lambda = -point.tangent_mass * relative.dot(tangent);
                    let limit = options.friction * point.normal_impulse;
                    let total = (point.tangent_impulse + lambda).clamp(-limit, limit);
                    let lambda = total - point.tangent_impulse;
                    point.tangent_impulse = total;
                    apply_impulse(
                        bodies,
                        &self.mass,
                        a,
                        b,
                        point.r_a,
                        point.r_b,
                        lambda * tangent,
                    );
                }
                if let Some(block) = constraint.block {
                    solve_block(bodies, &self.mass, constraint, &block, use_bias);
                    continue;
                }
                for point in constraint.points.iter_mut().flatten() {
                    let relative = relative_velocity(&bodies[a], &bodies[b], point.r_a, point.r_b);
                    let target = point.bias + if use_bias { point.position_bias } else { 0.0 };
                    let lambda = -point.normal_mass * (relative.dot(normal) - target);
                    let total = (point.normal_impulse + lambda).max(0.0);
                    let lambda = total - point.normal_impulse;
                    point.normal_impulse = total;
                    apply_impulse(
                        bodies,
                        &self.mass,
                        a,
                        b,
                        point.r_a,
                        point.r_b,
                        lambda * normal,
                    );
                }
            }
        }
    }

    /// Remembers every point's impulses for the next step's warm start.
    pub fn finish(&mut self) {
        self.previous.clear();
        for constraint in &self.constraints {
            for point in constraint.points.iter().flatten() {
                self.previous
                    .insert(point.key, (point.normal_impulse, point.tangent_impulse));
            }
        }
    }
}

/// Velocity of B's contact point relative to A's.
fn relative_velocity(a: &Body, b: &Body, r_a: Vec2, r_b: Vec2) -> Vec2 {
    let point_velocity =
        |body: &Body, r: Vec2| body.velocity + body.angular_velocity * Vec2::new(-r.y, r.x);
    point_velocity(b, r_b) - point_velocity(a, r_a)
}

fn apply_impulse(
    bodies: &mut [Body],
    mass: &[MassState],
    a: usize,
    b: usize,
    r_a: Vec2,
    r_b: Vec2,
    impulse: Vec2,
) {
    let (ma, mb) = (mass[a], mass[b]);
    bodies[a].velocity -= ma.inv_mass * impulse;
    bodies[a].angular_velocity -= ma.inv_inertia * cross(r_a, impulse);
    bodies[b].velocity += mb.inv_mass * impulse;
    bodies[b].angular_velocity += mb.inv_inertia * cross(r_b, impulse);
}
