//! The peers: parry2d, parry3d and (with the `box2d` feature) Box2D agree
//! with gpusat on the same pairs.

#[cfg(feature = "box2d")]
mod box2d;
mod d2;
mod d3;
