//! The peers: parry2d, parry3d and (with the `box2d` and `box3d` features)
//! Box2D and Box3D agree with gpusat on the same pairs.

#[cfg(feature = "box2d")]
mod box2d;
#[cfg(feature = "box3d")]
mod box3d;
mod d2;
mod d3;
