//! The peers gpusat's speed and answers are compared with, on the identical
//! pairs: parry2d ([`d2::Peer`]), parry3d ([`d3::Peer`]) and, built with the
//! `box2d` feature, Box2D v3 in 2D (`box2d::Peer`).

#[cfg(feature = "box2d")]
pub mod box2d;
#[cfg(feature = "box3d")]
pub mod box3d;
pub mod d2;
pub mod d3;
