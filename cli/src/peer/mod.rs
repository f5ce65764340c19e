//! The peers gpusat's speed and answers are compared with, on the identical
//! pairs: parry2d ([`d2::Peer`]) and parry3d ([`d3::Peer`]).

pub mod d2;
pub mod d3;
