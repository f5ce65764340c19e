//! The peers: parry2d and parry3d agree with gpusat on the same pairs.

mod d2;
mod d3;
