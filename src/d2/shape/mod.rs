//! Shapes and the shape library.
//!
//! Every shape is a convex core grown by a radius: a [`Polygon`] (plain, or
//! rounded by [`Polygon::rounded`]), a [`Circle`], a [`Capsule`] or a bare
//! [`Segment`]. Each exists only through validation ([`Polygon::new`]
//! runs [the hull module](crate::d2::shape::hull)'s checks, the others their own), so
//! every later stage may assume what was checked. A [`ShapeSet`] stores every
//! shape once, in local space; bodies refer to a shape by its index, so ten
//! thousand copies of one particle polygon cost one polygon.

mod capsule;
pub mod hull;
mod kind;
mod mass;
mod set;
mod shapes;

pub use capsule::{Capsule, Segment};
pub use kind::Shape;
pub(crate) use kind::{Faces, ShapeView};
pub(crate) use set::FaceView;
pub use set::{FACE_LANES, FaceLanes, ShapeRecord, ShapeSet};
pub use shapes::{Circle, EdgeRecord, MAX_RADIUS_RATIO, Polygon};
