//! What the 2D and 3D contact solvers share: their options and report.

/// How the velocity solver works.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverOptions {
    /// Iterations with the position bias (Baumgarte), before positions move.
    pub iterations: usize,
    /// Iterations without it, after positions move (see [`ContactSolver::relax`](crate::d2::ContactSolver::relax)).
    pub relax_iterations: usize,
    /// Fraction of a point's depth beyond `slop` turned into separating
    /// velocity per step (0 turns the bias off).
    pub baumgarte: f32,
    /// Overlap the bias leaves alone.
    pub slop: f32,
    /// Most separating speed the bias may ask for.
    pub max_bias_velocity: f32,
    /// 0: contacts stop the approach; 1: perfectly elastic.
    pub restitution: f32,
    /// Approach speeds below this bounce with no restitution (resting contacts).
    pub restitution_threshold: f32,
    /// Coulomb friction coefficient.
    pub friction: f32,
    /// Start from the previous call's impulses of matching contact points.
    pub warm_start: bool,
}

impl Default for SolverOptions {
    fn default() -> SolverOptions {
        SolverOptions {
            iterations: 16,
            relax_iterations: 4,
            baumgarte: 0.1,
            slop: 0.005,
            max_bias_velocity: 2.0,
            restitution: 0.0,
            restitution_threshold: 0.5,
            friction: 0.6,
            warm_start: true,
        }
    }
}

/// What one [`ContactSolver::solve`](crate::d2::ContactSolver::solve) (or [`d3::ContactSolver::solve`](crate::d3::ContactSolver::solve)) did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolveReport {
    /// Contact points solved.
    pub points: usize,
    /// Points that started from a previous impulse.
    pub warm_started: usize,
}
