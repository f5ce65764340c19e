//! 3D: hulls, the SAT (the exact oracle, properties, lanes, pruning), manifolds, separation, the world and the demo world.

mod demo;
mod lanes;
mod manifold;
mod oracle;
mod properties;
mod pruning;
mod recycle;
mod rounded;
mod separation;
mod shape;
mod world;
