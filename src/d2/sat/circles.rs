//! Circle against circle: the centre line.

use glam::Vec2;

use crate::core::pair::Owner;
use crate::d2::types::Axis;

use super::separation::{PairResult, length};

/// Circle A against circle B, whose centre is `centre` in A's frame.
#[inline(always)]
pub fn collide_circles(
    centre: Vec2,
    radius_a: f32,
    radius_b: f32,
    margin: f32,
) -> Option<PairResult> {
    let separation = length(centre) - (radius_a + radius_b);
    if separation >= margin {
        return None;
    }
    Some(PairResult {
        axis: Axis::new(Owner::A, 0),
        separation,
    })
}
