//! The 2D kernel's source and texels.

use crate::d2::math::Transform;
use crate::d2::shape::ShapeRecord;

/// The 2D SAT kernel's source: `batch.wgsl`, `workgroup_scan.wgsl`,
/// `d2/sat.wgsl`, then `d2/rounded.wgsl` (shapes with a radius).
pub const SAT_WGSL: &str = concat!(
    include_str!("../../../shaders/batch.wgsl"),
    "\n",
    include_str!("../../../shaders/workgroup_scan.wgsl"),
    "\n",
    include_str!("../../../shaders/d2/sat.wgsl"),
    "\n",
    include_str!("../../../shaders/d2/rounded.wgsl")
);

/// A body's transform: position, then the cosine and sine of its angle
/// (computed once on the CPU).
pub type TransformTexel = [f32; 4];

/// A body's shape record, as `u32` bits: first edge, vertex count (0 for a
/// circle), radius bits, size bits.
pub type ShapeTexel = [u32; 4];

/// A body's transform texel.
pub fn transform_texel(xf: &Transform) -> TransformTexel {
    [xf.p.x, xf.p.y, xf.q.c, xf.q.s]
}

/// A body's shape texel.
pub fn shape_texel(record: &ShapeRecord) -> ShapeTexel {
    [
        record.first,
        record.count,
        record.radius.to_bits(),
        record.size.to_bits(),
    ]
}
