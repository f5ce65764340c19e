//! The GPU: the 2D and 3D kernels against the CPU, the caller's device, faults, the resident frame, and the layout against naga.

mod d2;
mod d3;
mod device;
mod faults;
mod frame;
mod layout;
