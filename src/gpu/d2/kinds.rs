//! Which of the 2D kernel's entry points each pair of bodies takes: the
//! body classes by shape and size, and the kind of each pair of classes.

use crate::d2::shape::ShapeRecord;

/// A body's class: 0 a polygon of up to 8 vertices, 1 a circle, 2 a larger
/// polygon, 3 a polygon of 9 to 16 vertices, 4 a capsule, a segment or a
/// rounded polygon ([`ROUNDED_CLASS`]). Class 3 exists only when no pair of
/// such polygons merges (`merge_threshold` of 16 or more); otherwise they
/// are class 2 and go through the kernel's full dispatch.
pub(crate) fn body_class(record: &ShapeRecord, merge_threshold: u32) -> u8 {
    if is_rounded(record) {
        return ROUNDED_CLASS;
    }
    match record.count {
        0 => 1,
        1..=8 => 0,
        9..=16 if merge_threshold >= 16 => 3,
        _ => 2,
    }
}

/// The class of a core with a radius or a segment core: every pair with
/// one takes the kind `rounded` (`shaders/d2/rounded.wgsl`).
pub(crate) const ROUNDED_CLASS: u8 = 4;

/// A body's class in the resident frame, which has no kind `rounded`: a
/// capsule's, a segment's or a rounded polygon's pairs take the loop kind
/// there (`general`, whose `collide_pair` turns to the rounded cases),
/// every other body's class is [`body_class`]'s. The frame's `grid.wgsl`
/// has the same (its `body_class`).
pub(crate) fn frame_body_class(record: &ShapeRecord, merge_threshold: u32) -> u8 {
    if is_rounded(record) {
        LOOP_CLASS
    } else {
        body_class(record, merge_threshold)
    }
}

/// Whether a shape's pairs take the kind `rounded`: a polygon or segment
/// core with a radius, or a segment.
pub(crate) fn is_rounded(record: &ShapeRecord) -> bool {
    record.count == 2 || (record.count > 0 && record.radius > 0.0)
}

/// The class whose every pair takes the loop kind (`general`): a large
/// polygon's.
pub(crate) const LOOP_CLASS: u8 = 2;

/// The entry point (kind) for a pair of body classes: the straight-line
/// entry points take exactly the pairs for which the kernel's `collide_pair`
/// would pick the function they call.
pub(crate) const KIND_OF_CLASSES: [[u8; 4]; 4] = [
    // small polygon with: small polygon, circle, large polygon, medium polygon
    [0, 1, 3, 4],
    // circle with: small polygon, circle, large polygon, medium polygon
    [1, 2, 3, 5],
    // large polygon with anything
    [3, 3, 3, 3],
    // medium polygon with: small polygon, circle, large polygon, medium polygon
    [4, 5, 3, 4],
];

/// The kind a pair with a [`ROUNDED_CLASS`] body takes, whatever the other
/// (`rounded`). The resident frame, whose grid shares
/// [`KIND_OF_CLASSES`], takes no such body.
pub(crate) const ROUNDED_KIND: u8 = 6;

pub(crate) fn kind_of(a: u8, b: u8) -> u8 {
    if a == ROUNDED_CLASS || b == ROUNDED_CLASS {
        return ROUNDED_KIND;
    }
    KIND_OF_CLASSES[a as usize][b as usize]
}
