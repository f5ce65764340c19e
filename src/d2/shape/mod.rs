//! Shapes and the shape library.
//!
//! A [`Polygon`] or [`Circle`] exists only through validation ([`Polygon::new`]
//! runs [the hull module](crate::d2::shape::hull)'s checks, [`Circle::new`] its own), so
//! every later stage may assume what was checked. A [`ShapeSet`] stores every
//! shape once, in local space; bodies refer to a shape by its index, so ten
//! thousand copies of one particle polygon cost one polygon.

pub mod hull;
mod set;
mod shapes;

pub(crate) use set::FaceView;
pub use set::{FACE_LANES, FaceLanes, ShapeRecord, ShapeSet};
pub use shapes::{Circle, EdgeRecord, Polygon, Shape};
pub(crate) use shapes::{Faces, ShapeView};
