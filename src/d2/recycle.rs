//! The 2D world's contact recycling (`core/recycle.rs`, off by default and
//! not exact by design): how far B moved in A's frame, and a hit and its
//! manifold carried between the world and A's frame. The 3D twin is
//! `d3/recycle.rs`.

use glam::Vec2;

use super::manifold::Manifold;
use super::math::{
    Transform, inv_mul_transforms, inv_rotate, inv_transform_point, rotate, transform_point,
};
use super::types::Hit;
use crate::core::recycle::Recycling;

/// The 2D geometry of recycling.
pub(crate) struct Recycle2;

/// A hit and its manifold with their normal turned and points carried
/// (depths, ids and the axis as they are), and the pair index `pair`.
fn carried(
    (hit, manifold): (Hit, Manifold),
    pair: u32,
    turn: impl Fn(Vec2) -> Vec2,
    carry: impl Fn(Vec2) -> Vec2,
) -> (Hit, Manifold) {
    let mut moved = manifold;
    for point in &mut moved.points[..usize::from(manifold.count)] {
        point.point = carry(point.point);
    }
    moved.normal = turn(manifold.normal);
    moved.pair = pair;
    let hit = Hit {
        pair,
        normal: turn(hit.normal),
        ..hit
    };
    (hit, moved)
}

impl Recycling for Recycle2 {
    type Transform = Transform;
    type Hit = Hit;
    type Manifold = Manifold;

    fn relative(a: Transform, b: Transform) -> Transform {
        inv_mul_transforms(a, b)
    }

    /// `|dp| + reach |dq|`: the change of a 2D rotation, `[[dc, -ds], [ds,
    /// dc]]`, scales every vector by exactly `|(dc, ds)|`.
    fn motion(now: Transform, then: Transform, reach: f32) -> f32 {
        let turned = Vec2::new(now.q.c - then.q.c, now.q.s - then.q.s).length();
        (now.p - then.p).length() + reach * turned
    }

    fn pair_of(hit: &Hit) -> u32 {
        hit.pair
    }

    fn to_world(answer: (Hit, Manifold), xf_a: Transform, pair: u32) -> (Hit, Manifold) {
        carried(
            answer,
            pair,
            |n| rotate(xf_a.q, n),
            |p| transform_point(xf_a, p),
        )
    }

    fn to_local(answer: (Hit, Manifold), xf_a: Transform) -> (Hit, Manifold) {
        carried(
            answer,
            0,
            |n| inv_rotate(xf_a.q, n),
            |p| inv_transform_point(xf_a, p),
        )
    }

    fn renumbered((hit, manifold): (Hit, Manifold), pair: u32) -> (Hit, Manifold) {
        (Hit { pair, ..hit }, Manifold { pair, ..manifold })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pose that did not move has moved by nothing; a shift moves every
    /// point by its length; a turn moves a point at `reach` by exactly the
    /// bound (a chord).
    #[test]
    fn motion_bounds_how_far_a_point_of_b_moved() {
        let then = Transform::new(Vec2::new(1.0, 2.0), 0.3);
        assert_eq!(Recycle2::motion(then, then, 2.0), 0.0);
        let shifted = Transform::new(Vec2::new(1.0, 2.5), 0.3);
        assert!((Recycle2::motion(shifted, then, 2.0) - 0.5).abs() < 1e-6);
        let turned = Transform::new(Vec2::new(1.0, 2.0), 0.31);
        let corner = Vec2::new(2.0, 0.0);
        let moved = (transform_point(turned, corner) - transform_point(then, corner)).length();
        let bound = Recycle2::motion(turned, then, 2.0);
        assert!(
            (bound - moved).abs() < 1e-5 && bound > 0.0,
            "{bound} against {moved}"
        );
    }

    /// Into A's frame and back is the same hit and manifold but for
    /// rounding, whatever A's pose.
    #[test]
    fn an_answer_carried_into_a_and_back_is_itself() {
        let xf_a = Transform::new(Vec2::new(-3.0, 7.0), 1.1);
        let normal = Vec2::new(0.6, 0.8);
        let hit = Hit {
            pair: 4,
            a: 1,
            b: 2,
            normal,
            depth: 0.01,
            axis: crate::d2::types::Axis::new(crate::core::pair::Owner::A, 3),
        };
        let mut manifold = Manifold::new(4, 1, 2, normal);
        manifold.points[0].point = Vec2::new(1.0, 2.0);
        manifold.points[1].point = Vec2::new(-1.0, 2.5);
        manifold.count = 2;
        let local = Recycle2::to_local((hit, manifold), xf_a);
        let (back_hit, back) = Recycle2::to_world(local, xf_a, 9);
        assert_eq!((back_hit.pair, back.pair, back.count), (9, 9, 2));
        assert!((back_hit.normal - normal).length() < 1e-6);
        assert_eq!(back_hit.axis, hit.axis);
        for (p, q) in back.points().iter().zip(manifold.points()) {
            assert!((p.point - q.point).length() < 1e-5, "{p:?} against {q:?}");
        }
    }
}
