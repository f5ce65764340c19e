//! 2D: shapes, the SAT (hand-worked cases, the exact oracle, properties, lanes and twins), contacts, manifolds, broadphase, separation, the solver, precision, the demo world.

mod broadphase;
mod contact;
mod demo;
mod lanes;
mod manifold;
mod manifold_batch;
mod oracle;
mod parallel;
mod precision;
mod properties;
mod recycle;
pub(crate) mod rounded;
mod sat_cases;
mod separation;
mod shape;
mod solver;
mod twins;
