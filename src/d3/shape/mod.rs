//! Shapes and the shape library.
//!
//! A [`Hull`] exists only through validation ([`Hull::new`] builds the
//! convex hull of a point cloud and runs [the hull module](hull)'s checks;
//! [`Sphere::new`] and the cuboids their own), so every later stage may
//! assume what was checked. A [`ShapeSet`] stores every shape once, in local
//! space; bodies refer to a shape by its index. Hulls of
//! [`GRID_MIN_VERTICES`] or more carry a Gauss-map grid ([`gauss_grid`]) for
//! their face and vertex lookups.

pub(crate) mod edge;
pub mod gauss_grid;
pub mod hull;
pub(crate) mod kind;
pub(crate) mod lanes;
pub(crate) mod rounded;
pub(crate) mod set;
pub(crate) mod shapes;

pub use edge::{EdgeGauss, HullEdge};
pub use kind::Shape;
pub use rounded::{Capsule, RoundedHull};
pub use set::ShapeSet;
pub use shapes::{GRID_MIN_VERTICES, Hull, Sphere};
