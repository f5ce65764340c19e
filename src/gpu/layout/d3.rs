//! The 3D kernel's source, constants and texels.

use bytemuck::{Pod, Zeroable};

use crate::d3::Transform;

/// The 3D SAT kernel's hardware module (the kinds a hardware GPU runs, and
/// every adapter's sphere kinds and shapes with a radius): `batch.wgsl`,
/// `workgroup_scan.wgsl`, `d3/sat.wgsl`, `d3/hardware.wgsl`, then
/// `d3/rounded.wgsl`.
pub const SAT_WGSL: &str = concat!(
    include_str!("../../../shaders/batch.wgsl"),
    "\n",
    include_str!("../../../shaders/workgroup_scan.wgsl"),
    "\n",
    include_str!("../../../shaders/d3/sat.wgsl"),
    "\n",
    include_str!("../../../shaders/d3/hardware.wgsl"),
    "\n",
    include_str!("../../../shaders/d3/rounded.wgsl")
);

/// The 3D SAT kernel's software module (the register-cached and
/// straight-line kinds written for llvmpipe, created only where a pair
/// takes them): `batch.wgsl`, `workgroup_scan.wgsl`, `d3/sat.wgsl`, then
/// `d3/software.wgsl`.
pub const SAT_SOFTWARE_WGSL: &str = concat!(
    include_str!("../../../shaders/batch.wgsl"),
    "\n",
    include_str!("../../../shaders/workgroup_scan.wgsl"),
    "\n",
    include_str!("../../../shaders/d3/sat.wgsl"),
    "\n",
    include_str!("../../../shaders/d3/software.wgsl")
);

/// The 3D kernel's deferred pairs (`shaders/d3/software.wgsl`, "Deferred pairs"),
/// the same constants as there (the layout tests checks): where the
/// count of pairs deferred sits among a window's deferral words
/// (`DEFERRAL_COUNT`), the workgroups along x every device allows, and the
/// deferred dispatch's invocations per workgroup (one llvmpipe SIMD group;
/// the kernel says why).
pub const DEFERRAL_COUNT_WORD: u32 = 3;
pub const MAX_DEFERRED_GROUPS: u32 = 65_535;
pub const DEFERRED_WORKGROUP_SIZE: u32 = 8;

/// The most hot faces a hull may have for the 3D kernel's large kinds to
/// find its kept edges face by face (`FACE_BY_FACE_MOST` in
/// `shaders/d3/sat.wgsl`, "Kept edges face by face"; the layout tests
/// checks): beyond, edge by edge.
pub const FACE_BY_FACE_MOST: u32 = 32;

/// A 3D shape as the 3D kernel reads it: two rgba32uint texels, copied per
/// body (`body_shapes`, texels `2 body` and `2 body + 1`).
///
/// A hull's data sits at `float_base` in the `hull_floats` texture
/// (rgba32float): its vertices (`xyz`), then its face planes (unit normal,
/// offset), then its edges' face normals (`f0`'s `u`, `f1`'s `v`), two
/// edges to three texels (`u0.xyz, v0.x`; `v0.yz, u1.xy`; `u1.z, v1.xyz`),
/// then its inner ball (centre, radius: the bound that lets
/// the face and edge queries pass over faces and edges), then each edge's
/// record, three texels (`u.xyz, u . p`; `v.xyz, v . p` with `p` its
/// first vertex: the edge's bound in the hull's own frame; `p.xyz, 0`: what
/// the edge query reads of an edge, adjacent), then the face
/// bound's `k` and `delta` (one texel), then each run of eight faces' cone
/// (axis, cosine; one texel a run); and at `int_base` in the
/// `hull_ints` texture (rgba32uint): one texel per edge (`v0`, `v1`, `f0`,
/// `f1`), one per face (where its loop starts among the loop indices, its
/// length; face 0's spare slots say where the Gauss-map grid is, face 1's
/// where the edges' faces are, face 2's where the face queries' starts
/// are), then the faces' loops, four vertex indices to a texel, the grid's
/// lists where it has one, the run each face query starts at per direction
/// cell (96 bytes, four to a u32), and each edge's faces as
/// `f0 | f1 << 16`, four edges to a texel. A sphere has `vertex_count` 0; a
/// capsule two vertices (its segment core), no face and one edge (0, 1); a
/// rounded hull is its core's record with its radius.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct HullRecord {
    /// The hull's first texel in `hull_floats`.
    pub float_base: u32,
    /// Vertices (0 for a sphere).
    pub vertex_count: u32,
    /// Faces.
    pub face_count: u32,
    /// Edges.
    pub edge_count: u32,
    /// The hull's first texel in `hull_ints`.
    pub int_base: u32,
    /// The radius the core is grown by: a sphere's, a capsule's, a rounded
    /// hull's (0 for a plain hull).
    pub radius: f32,
    /// The shape's size (for the tolerances).
    pub size: f32,
    /// A hull's reach: the largest distance of a vertex from its origin,
    /// rounded up (0 for a sphere), for the edge query's slack.
    pub reach: f32,
}

/// A 3D body's shape texels.
pub fn hull_record_texels(record: &HullRecord) -> [[u32; 4]; 2] {
    bytemuck::cast(*record)
}

/// A 3D body's transform: three rgba32float texels, each a column of the
/// rotation matrix with one coordinate of the position:
/// `(c0, p.x), (c1, p.y), (c2, p.z)`.
pub type TransformTexels = [[f32; 4]; 3];

/// A 3D body's transform texels.
pub fn transform_texels(xf: &Transform) -> TransformTexels {
    let (c0, c1, c2) = (xf.r.c0, xf.r.c1, xf.r.c2);
    [
        [c0.x, c0.y, c0.z, xf.p.x],
        [c1.x, c1.y, c1.z, xf.p.y],
        [c2.x, c2.y, c2.z, xf.p.z],
    ]
}
