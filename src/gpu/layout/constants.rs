//! Every number written both in Rust and in a kernel's WGSL, in one list
//! that the layout tests (`tests/it/gpu/layout.rs`) hold against the
//! shaders' text through naga: the tie rule's tolerances, the axis packing,
//! the 3D kernel's deferral words, the frame's state words, the scan's and
//! the scan's tiles, the texture width. A kernel constant whose name a Rust
//! constant also bears is either in [`shared_constants`] or in
//! [`DIFFERENT_MEANINGS`], with why; the tests check that too. The kernels are
//! [`kernels`](super::kernels).

use super::d3::{
    DEFERRAL_COUNT_WORD, DEFERRED_WORKGROUP_SIZE, FACE_BY_FACE_MOST, MAX_DEFERRED_GROUPS,
};
use super::{TEXTURE_WIDTH_LOG2, kernels};
use crate::core::limits::LOWEST;
use crate::gpu::context::MAX_WORKGROUP_SIZE;
use crate::gpu::frame::{grid, narrow, scan, state};

/// A constant's value as Rust states it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An unsigned integer.
    U32(u32),
    /// A signed integer.
    I32(i32),
    /// A float.
    F32(f32),
    /// An array of unsigned integers, in order.
    U32s(Vec<u32>),
}

/// One number a kernel and the host must agree on.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedConstant {
    /// The kernel's source, as the device gets it.
    pub kernel: &'static str,
    /// The kernel's name in messages (the files it is made of).
    pub kernel_name: &'static str,
    /// The constant's name in the WGSL.
    pub name: &'static str,
    /// Its value on the Rust side.
    pub value: Value,
}

/// Kernel constants that share a name with a Rust constant of another
/// meaning: (kernel name, constant, why).
pub const DIFFERENT_MEANINGS: &[(&str, &str, &str)] = &[
    (
        "batch.wgsl + d2/sat.wgsl",
        "NOT_REPORTED",
        "the kernel's pair result for no hit; the readback's NOT_REPORTED marks a slot without a record",
    ),
    (
        "frame/narrow",
        "NOT_REPORTED",
        "the kernel's pair result for no hit; the readback's NOT_REPORTED marks a slot without a record",
    ),
    (
        "frame/grid",
        "PAIR_KINDS",
        "the frame's 2D kinds (its entry points, listed here under that name); the batch narrowphase's PAIR_KINDS is the most kinds of either dimension",
    ),
];

/// Every number the host and a kernel share, with the host's value.
pub fn shared_constants() -> Vec<SharedConstant> {
    use Value::{F32, I32, U32, U32s};
    let [
        sat2,
        sat3,
        sat3_software,
        grid_kernel,
        narrow_kernel,
        pairs_kernel,
        scan_kernel,
        scan_subgroups_kernel,
    ] = kernels();
    let entry = |(kernel_name, kernel): (&'static str, &'static str), name, value| SharedConstant {
        kernel,
        kernel_name,
        name,
        value,
    };
    let kind = |axis: crate::d3::Axis| axis.pack() >> crate::d3::Axis::KIND_SHIFT;
    use crate::d3::Axis as Axis3;
    let mut list = Vec::new();
    // What every SAT kernel shares (batch.wgsl), in every SAT module.
    for sat in [sat2, sat3, sat3_software] {
        list.extend([
            entry(sat, "MAX_WORKGROUP_SIZE", U32(MAX_WORKGROUP_SIZE)),
            entry(sat, "TEXTURE_WIDTH_LOG2", U32(TEXTURE_WIDTH_LOG2)),
            entry(sat, "LOWEST", F32(LOWEST)),
            entry(sat, "HIGHEST", F32(f32::MAX)),
        ]);
    }
    list.extend([
        // 2D: the tie rule and the axis's packing.
        entry(sat2, "TIE_TOLERANCE", F32(crate::d2::sat::TIE_TOLERANCE)),
        entry(sat2, "OWNER_B_BIT", U32(crate::d2::Axis::OWNER_B_BIT)),
    ]);
    // 3D (d3/sat.wgsl, in both modules): the tie rule, the bounds' slack,
    // the axis's packing, the kept edges' switch.
    for sat3 in [sat3, sat3_software] {
        list.extend([
            entry(sat3, "TIE_TOLERANCE", F32(crate::d3::sat::TIE_TOLERANCE)),
            entry(sat3, "EDGE_TOLERANCE", F32(crate::d3::sat::EDGE_TOLERANCE)),
            entry(
                sat3,
                "PARALLEL_TOLERANCE",
                F32(crate::d3::sat::PARALLEL_TOLERANCE),
            ),
            entry(sat3, "SKIP_SLACK", F32(crate::d3::sat::edges::SKIP_SLACK)),
            entry(sat3, "F32_EPSILON", F32(f32::EPSILON)),
            entry(sat3, "KIND_SHIFT", U32(Axis3::KIND_SHIFT)),
            entry(sat3, "INDEX_MASK", U32(Axis3::INDEX_MASK)),
            entry(sat3, "EDGE_BITS", U32(Axis3::EDGE_BITS)),
            entry(sat3, "AXIS_FACE_A", U32(kind(Axis3::FaceA(0)))),
            entry(sat3, "AXIS_FACE_B", U32(kind(Axis3::FaceB(0)))),
            entry(sat3, "AXIS_EDGES", U32(kind(Axis3::Edges(0, 0)))),
            entry(sat3, "AXIS_EDGE_A", U32(kind(Axis3::EdgeA(0)))),
            entry(sat3, "AXIS_VERTEX_A", U32(kind(Axis3::VertexA(0)))),
            entry(sat3, "AXIS_CENTRES", U32(kind(Axis3::Centres))),
            entry(
                sat3,
                "OWNER_B_KIND",
                U32(kind(Axis3::FaceB(0)) - kind(Axis3::FaceA(0))),
            ),
            entry(sat3, "FACE_BY_FACE_MOST", U32(FACE_BY_FACE_MOST)),
        ]);
    }
    list.extend([
        // 3D, the hardware module's shapes with a radius (d3/rounded.wgsl).
        entry(sat3, "AXIS_VERTEX_EDGE", U32(kind(Axis3::VertexEdge(0, 0)))),
        entry(sat3, "AXIS_EDGE_VERTEX", U32(kind(Axis3::EdgeVertex(0, 0)))),
        entry(sat3, "AXIS_VERTICES", U32(kind(Axis3::Vertices(0, 0)))),
        // 3D, the software module's deferred pairs.
        entry(sat3_software, "DEFERRAL_COUNT", U32(DEFERRAL_COUNT_WORD)),
        entry(
            sat3_software,
            "MAX_DEFERRED_GROUPS",
            U32(MAX_DEFERRED_GROUPS),
        ),
        entry(
            sat3_software,
            "DEFERRED_WORKGROUP_SIZE",
            U32(DEFERRED_WORKGROUP_SIZE),
        ),
        // The frame's grid.
        entry(grid_kernel, "MAX_SPAN", I32(grid::MAX_SPAN as i32)),
        entry(grid_kernel, "MAX_SCAN", U32(grid::MAX_SCAN)),
        entry(grid_kernel, "TEAM", U32(grid::TEAM)),
        entry(
            grid_kernel,
            "TEAMS",
            U32(grid::GRID_GROUP_SIZE / grid::TEAM),
        ),
        entry(grid_kernel, "TEAM_LIST", U32(grid::TEAM_LIST)),
        entry(grid_kernel, "KEPT", U32(grid::KEPT)),
        entry(grid_kernel, "SCAN_BLOCK", U32(scan::SCAN_BLOCK)),
        entry(grid_kernel, "SCAN_LEVELS", U32(scan::SCAN_LEVELS)),
        // The frame's narrowphase and manifolds (the 2D kernel's functions).
        entry(
            narrow_kernel,
            "TIE_TOLERANCE",
            F32(crate::d2::sat::TIE_TOLERANCE),
        ),
        entry(
            narrow_kernel,
            "OWNER_B_BIT",
            U32(crate::d2::Axis::OWNER_B_BIT),
        ),
        entry(
            narrow_kernel,
            "CONCENTRIC_TOLERANCE",
            F32(crate::d2::sat::CONCENTRIC_TOLERANCE),
        ),
        entry(
            narrow_kernel,
            "DEGENERATE_SEGMENT",
            F32(crate::d2::manifold::DEGENERATE_SEGMENT),
        ),
        // The frame's partition by kind.
        entry(
            grid_kernel,
            "PAIR_KINDS",
            U32(narrow::ENTRY_POINTS.len() as u32),
        ),
        entry(
            grid_kernel,
            "KIND_OF_CLASSES",
            U32s(
                crate::gpu::d2::kinds::KIND_OF_CLASSES
                    .iter()
                    .flatten()
                    .map(|&kind| u32::from(kind))
                    .collect(),
            ),
        ),
    ]);
    // The frame's scan, with subgroups and without.
    for scan_kernel in [scan_kernel, scan_subgroups_kernel] {
        list.extend([
            entry(scan_kernel, "SCAN_BLOCK", U32(scan::SCAN_BLOCK)),
            entry(scan_kernel, "NO_COUNT_INDEX", U32(scan::NO_COUNT_INDEX)),
        ]);
    }
    // The state words and the texture width, in every frame kernel that
    // has them (common.wgsl).
    for frame in [grid_kernel, narrow_kernel, pairs_kernel] {
        list.extend([
            entry(frame, "STATE_PAIRS", U32(state::STATE_PAIRS)),
            entry(frame, "STATE_ENTRIES", U32(state::STATE_ENTRIES)),
            entry(frame, "STATE_LARGE", U32(state::STATE_LARGE)),
            entry(frame, "STATE_CROWDED", U32(state::STATE_CROWDED)),
            entry(frame, "STATE_HITS", U32(state::STATE_HITS)),
            entry(
                frame,
                "STATE_PAIR_OVERFLOW",
                U32(state::STATE_PAIR_OVERFLOW),
            ),
            entry(frame, "STATE_KINDS", U32(state::STATE_KINDS)),
            entry(frame, "STATE_ARGS", U32(state::STATE_ARGS)),
            entry(frame, "STATE_HIT_ARGS", U32(state::STATE_HIT_ARGS)),
            entry(frame, "STATE_LARGE_ARGS", U32(state::STATE_LARGE_ARGS)),
            entry(frame, "STATE_SCAN_ARGS", U32(state::STATE_SCAN_ARGS)),
            entry(frame, "STATE_COMPACT_ARGS", U32(state::STATE_COMPACT_ARGS)),
            entry(frame, "STATE_LARGE_LIST", U32(state::STATE_LARGE_LIST)),
            entry(frame, "TEXTURE_WIDTH_LOG2", U32(TEXTURE_WIDTH_LOG2)),
            entry(frame, "LOWEST", F32(LOWEST)),
            entry(frame, "HIGHEST", F32(f32::MAX)),
        ]);
    }
    list
}
