//! The numeric ranges every shape and body is held to, in both dimensions,
//! and the separation sentinel of every SAT query.

use super::error::ShapeError;

/// The largest position coordinate accepted. Differences of two positions
/// and their products with shape sizes then stay finite in single
/// precision (two bodies at ±3e38 would make the relative position infinite
/// and every answer NaN). Far below it, precision runs out first: see the
/// the precision section of `docs/conventions.md`.
pub const MAX_COORDINATE: f32 = 1e15;

/// The smallest shape size accepted (a polygon's bounding-box diagonal, a
/// circle's diameter): its fourth power (moments of inertia) is still a
/// normal single-precision number, and so are the products the narrowphase
/// forms. The fuzzer found a triangle 4e-42 wide whose every cross product
/// was zero.
pub const MIN_SHAPE_SIZE: f64 = 1e-9;
/// The largest shape size accepted: its fourth power is still finite in
/// single precision.
pub const MAX_SHAPE_SIZE: f64 = 1e9;

/// Whether a shape `size` units across is within the supported range.
pub fn check_size(size: f64) -> Result<(), ShapeError> {
    if (MIN_SHAPE_SIZE..=MAX_SHAPE_SIZE).contains(&size) {
        Ok(())
    } else {
        Err(ShapeError::SizeOutOfRange {
            size,
            min: MIN_SHAPE_SIZE,
            max: MAX_SHAPE_SIZE,
        })
    }
}

/// A radius may be at most this many times its core's extent: a larger one
/// makes the core a point for single precision (use a circle or a sphere).
pub const MAX_RADIUS_RATIO: f64 = 1e3;

/// Checks a radius that may be 0 against its core's extent.
pub(crate) fn check_radius(radius: f32, extent: f64) -> Result<(), ShapeError> {
    if !radius.is_finite() {
        return Err(ShapeError::RadiusNotFinite { radius });
    }
    if radius < 0.0 {
        return Err(ShapeError::RadiusNegative { radius });
    }
    if f64::from(radius) > MAX_RADIUS_RATIO * extent {
        return Err(ShapeError::RadiusTooLarge {
            radius,
            extent,
            ratio: MAX_RADIUS_RATIO,
        });
    }
    check_size(extent + 2.0 * f64::from(radius))
}

/// Checks a segment core of `length` grown by `radius` (a segment's 0, a
/// capsule's): its points apart by at least [`MIN_SHAPE_SIZE`] and by
/// `radius /` [`MAX_RADIUS_RATIO`] (closer, it is a circle or a sphere),
/// its length and radius within range.
pub(crate) fn check_segment_core(length: f64, radius: f32) -> Result<(), ShapeError> {
    let min = MIN_SHAPE_SIZE.max(f64::from(radius) / MAX_RADIUS_RATIO);
    if length < min {
        return Err(ShapeError::CoincidentPoints { length, min });
    }
    check_size(length)?;
    check_radius(radius, length)
}

/// The lowest separation: what a query's best starts from. A large finite
/// value, not infinity, so that the GPU twins (which may assume no value is
/// infinite) compute the same.
pub(crate) const LOWEST: f32 = -f32::MAX;
