//! One pair, no batch: two shapes placed in the world, tested with one call,
//! and the contact printed — the normal from A to B, the depth, the feature
//! it came from, and the contact points.
//!
//! ```sh
//! cargo run --example one_pair
//! ```

use gpusat::glam::Vec2;
use gpusat::{Circle, Owner, Polygon, Shape, Transform, collide_shapes};

fn main() -> Result<(), gpusat::ShapeError> {
    // A 2 x 1 box, and a triangle resting into its top face, turned a little.
    let plank = Shape::from(Polygon::rectangle(1.0, 0.5)?);
    let wedge = Shape::from(Polygon::new(&[
        Vec2::new(-0.4, -0.3),
        Vec2::new(0.4, -0.3),
        Vec2::new(0.0, 0.4),
    ])?);
    let ball = Shape::from(Circle::new(0.25)?);

    let plank_at = Transform::new(Vec2::new(0.0, 0.0), 0.0);
    let wedge_at = Transform::new(Vec2::new(0.3, 0.75), 0.1);
    let ball_at = Transform::new(Vec2::new(-1.1, 0.6), 0.0);

    for (name, (b, xf_b)) in [("wedge", (&wedge, &wedge_at)), ("ball", (&ball, &ball_at))] {
        match collide_shapes(&plank, &plank_at, b, xf_b, 0.0) {
            None => println!("plank and {name}: apart"),
            Some(contact) => {
                let owner = match contact.axis.owner {
                    Owner::A => "the plank",
                    Owner::B => "the other shape",
                };
                println!(
                    "plank and {name}: overlap {:.4} along ({:.4}, {:.4}), the normal of feature {} of {owner}",
                    contact.depth, contact.normal.x, contact.normal.y, contact.axis.feature
                );
                for point in contact.points() {
                    println!(
                        "  contact at ({:.4}, {:.4}), depth {:.4}, id {:#x}",
                        point.point.x, point.point.y, point.depth, point.id
                    );
                }
            }
        }
    }
    // With a speculative margin, a pair that is close but apart is reported
    // with a negative depth: the gap.
    let near = Transform::new(Vec2::new(-1.1, 0.8), 0.0);
    if let Some(contact) = collide_shapes(&plank, &plank_at, &ball, &near, 0.1) {
        println!(
            "plank and ball, 0.066 apart, with a margin of 0.1: depth {:.4}",
            contact.depth
        );
    }
    Ok(())
}
