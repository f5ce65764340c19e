//! The 3D world's contact recycling (`core/recycle.rs`, off by default and
//! not exact by design): how far B moved in A's frame, and a hit and its
//! manifold carried between the world and A's frame. The 2D twin is
//! `d2/recycle.rs`.

use glam::Vec3;

use super::manifold::Manifold;
use super::math::{
    Transform, inv_mul_transforms, inv_rotate, inv_transform_point, rotate, transform_point,
};
use super::types::Hit;
use crate::core::recycle::Recycling;

/// The 3D geometry of recycling.
pub(crate) struct Recycle3;

/// A hit and its manifold with their normal turned and points carried
/// (depths, ids and the axis as they are), and the pair index `pair`.
fn carried(
    (hit, manifold): (Hit, Manifold),
    pair: u32,
    turn: impl Fn(Vec3) -> Vec3,
    carry: impl Fn(Vec3) -> Vec3,
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

impl Recycling for Recycle3 {
    type Transform = Transform;
    type Hit = Hit;
    type Manifold = Manifold;

    fn relative(a: Transform, b: Transform) -> Transform {
        inv_mul_transforms(a, b)
    }

    /// `|dp| + reach |dR|_F`: the Frobenius norm bounds how far the
    /// rotation's change takes a point.
    fn motion(now: Transform, then: Transform, reach: f32) -> f32 {
        let turned = (now.r.c0 - then.r.c0).length_squared()
            + (now.r.c1 - then.r.c1).length_squared()
            + (now.r.c2 - then.r.c2).length_squared();
        (now.p - then.p).length() + reach * turned.sqrt()
    }

    fn pair_of(hit: &Hit) -> u32 {
        hit.pair
    }

    fn to_world(answer: (Hit, Manifold), xf_a: Transform, pair: u32) -> (Hit, Manifold) {
        carried(
            answer,
            pair,
            |n| rotate(xf_a.r, n),
            |p| transform_point(xf_a, p),
        )
    }

    fn to_local(answer: (Hit, Manifold), xf_a: Transform) -> (Hit, Manifold) {
        carried(
            answer,
            0,
            |n| inv_rotate(xf_a.r, n),
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
    use glam::Quat;

    /// A pose that did not move has moved by nothing; a shift moves every
    /// point by its length; a turn by at least the arc of the farthest point
    /// and at most `reach` times the rotation's change.
    #[test]
    fn motion_bounds_how_far_a_point_of_b_moved() {
        let then = Transform::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.3));
        assert_eq!(Recycle3::motion(then, then, 2.0), 0.0);
        let shifted = Transform::new(Vec3::new(1.0, 2.0, 3.5), Quat::from_rotation_y(0.3));
        assert!((Recycle3::motion(shifted, then, 2.0) - 0.5).abs() < 1e-6);
        let turned = Transform::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.31));
        let corner = Vec3::new(2.0, 0.0, 0.0);
        let moved = (transform_point(turned, corner) - transform_point(then, corner)).length();
        let bound = Recycle3::motion(turned, then, 2.0);
        assert!(
            bound >= moved && bound < 2.0 * moved,
            "{bound} against {moved}"
        );
    }

    /// Into A's frame and back is the same hit and manifold but for
    /// rounding, whatever A's pose.
    #[test]
    fn an_answer_carried_into_a_and_back_is_itself() {
        let xf_a = Transform::new(Vec3::new(-3.0, 0.5, 7.0), Quat::from_rotation_x(1.1));
        let normal = Vec3::new(0.0, 0.6, 0.8);
        let hit = Hit {
            pair: 4,
            a: 1,
            b: 2,
            normal,
            depth: 0.01,
            axis: crate::d3::types::Axis::FaceA(3),
        };
        let mut manifold = Manifold::new(4, 1, 2, normal);
        manifold.points[0].point = Vec3::new(1.0, 2.0, 3.0);
        manifold.points[1].point = Vec3::new(-1.0, 0.0, 2.5);
        manifold.count = 2;
        let local = Recycle3::to_local((hit, manifold), xf_a);
        let (back_hit, back) = Recycle3::to_world(local, xf_a, 9);
        assert_eq!((back_hit.pair, back.pair, back.count), (9, 9, 2));
        assert!((back_hit.normal - normal).length() < 1e-6);
        assert_eq!(back_hit.axis, hit.axis);
        for (p, q) in back.points().iter().zip(manifold.points()) {
            assert!((p.point - q.point).length() < 1e-5, "{p:?} against {q:?}");
        }
    }
}
