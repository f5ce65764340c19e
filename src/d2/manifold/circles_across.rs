//! Two circles' contacts, eight pairs at a time: a lane a pair, what the
//! general path (the hit's normal, then `circle_point`) builds for each,
//! bit for bit, in the lanes of their SAT (`sat/circles_across.rs`):
//!
//! ```text
//! normal = centre / |centre| rotated into the world, where |centre| is past
//!          the concentric tolerance (A's x axis otherwise)
//! point  = midway between the surfaces: (p_a + r_a n + p_b - r_b n) / 2
//! depth  = r_a + r_b - |centre|, id 0
//! ```
//!
//! Every lane's manifold is written, reported or not, and read where it is.

use glam::Vec2;

use crate::core::simd::Lanes;
use crate::d2::sat::CONCENTRIC_TOLERANCE;
use crate::d2::sat::circles_across::CirclePairs;
use crate::d2::sat::segments_across::{PAIRS, rotate, select2};

use super::segments_across::LaneKinds;
use super::{ContactPoint, Manifold};

/// The SAT and the manifolds of the filled lanes of `pairs`, lane `k`'s
/// into `manifolds[at[k]]` (but for the pair's index and bodies, which the
/// caller writes); the lanes emptied. The kinds say which to read (none
/// goes to the general path).
#[inline(always)]
pub(crate) fn contacts<V: Lanes>(
    pairs: &mut CirclePairs,
    margin: f32,
    at: &[usize; PAIRS],
    manifolds: &mut [Manifold],
) -> LaneKinds {
    let (one, half) = (V::splat(1.0), V::splat(0.5));
    let s = pairs.lanes::<V>(margin);
    // `axis_normal`'s centre line, rotated out of A's frame (A owns it).
    let apart = s
        .distance
        .gt(V::splat(CONCENTRIC_TOLERANCE) * (s.radius_a + s.radius_b));
    let local = select2(
        apart,
        (s.centre.0.div(s.distance), s.centre.1.div(s.distance)),
        (one, V::splat(0.0)),
    );
    let rotated = rotate(s.q_a, local);
    let normal = (one * rotated.0, one * rotated.1);
    // `circle_point`: midway between the surfaces along the normal.
    let surface_a = (
        s.p_a.0 + s.radius_a * normal.0,
        s.p_a.1 + s.radius_a * normal.1,
    );
    let surface_b = (
        s.p_b.0 - s.radius_b * normal.0,
        s.p_b.1 - s.radius_b * normal.1,
    );
    let point = (
        half * (surface_a.0 + surface_b.0),
        half * (surface_a.1 + surface_b.1),
    );
    let depth = (s.distance - (s.radius_a + s.radius_b)).neg();
    let (nx, ny) = (normal.0.to_array(), normal.1.to_array());
    let (x, y, depth) = (point.0.to_array(), point.1.to_array(), depth.to_array());
    for (lane, &position) in at.iter().enumerate().take(pairs.len()) {
        let manifold = &mut manifolds[position];
        manifold.normal = Vec2::new(nx[lane], ny[lane]);
        manifold.points = [
            ContactPoint {
                point: Vec2::new(x[lane], y[lane]),
                depth: depth[lane],
                id: 0,
            },
            ContactPoint::default(),
        ];
        manifold.count = 1;
    }
    let filled = (1u32 << pairs.len()) - 1;
    pairs.clear();
    LaneKinds {
        contact: s.reported.mask_bits() & filled,
        general: 0,
    }
}
