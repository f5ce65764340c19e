//! Building shapes: every rejection reason, cleanup (welding, collinear
//! removal), scale invariance of the tolerances, and body and pair checks.

use glam::Vec2;
use gpusat::generate::{random_polygon, rng};
use gpusat::{
    Batch, Body, BodyError, Error, MAX_POLYGON_VERTICES, Pair, PairError, Polygon, ShapeError,
    ShapeSet,
};

fn points(coords: &[(f32, f32)]) -> Vec<Vec2> {
    coords.iter().map(|&(x, y)| Vec2::new(x, y)).collect()
}

fn scaled(coords: &[(f32, f32)], scale: f32) -> Vec<Vec2> {
    coords
        .iter()
        .map(|&(x, y)| Vec2::new(x, y) * scale)
        .collect()
}

fn regular(count: usize) -> Vec<Vec2> {
    (0..count)
        .map(|i| {
            let angle = std::f32::consts::TAU * i as f32 / count as f32;
            Vec2::new(angle.cos(), angle.sin())
        })
        .collect()
}

#[test]
fn non_finite_coordinates_are_rejected_with_the_vertex() {
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let err = Polygon::new(&points(&[(0.0, 0.0), (1.0, 0.0), (bad, 1.0)])).unwrap_err();
        assert!(
            matches!(err, ShapeError::NonFinite { vertex: 2, .. }),
            "{bad}: {err:?}"
        );
    }
}

#[test]
fn fewer_than_three_distinct_points_are_rejected() {
    let err = Polygon::new(&points(&[(0.0, 0.0), (1.0, 0.0)])).unwrap_err();
    assert_eq!(err, ShapeError::TooFewPoints { count: 2 });
    let err = Polygon::new(&points(&[(1.0, 1.0), (1.0, 1.0), (1.0, 1.0)])).unwrap_err();
    assert_eq!(err, ShapeError::TooFewPoints { count: 1 });
    // Two distinct points after welding a near-duplicate.
    let err = Polygon::new(&points(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1e-7)])).unwrap_err();
    assert_eq!(err, ShapeError::TooFewPoints { count: 2 });
}

#[test]
fn collinear_points_are_rejected() {
    let err = Polygon::new(&points(&[(0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (3.0, 3.0)])).unwrap_err();
    assert_eq!(err, ShapeError::Collinear);
    let err = Polygon::new(&points(&[(0.0, 0.0), (1.0, 1e-7), (2.0, 0.0)])).unwrap_err();
    assert_eq!(err, ShapeError::Collinear);
}

#[test]
fn non_convex_outlines_are_rejected_with_the_vertex() {
    // An L-shape: the reflex vertex is input vertex 3, (1, 1).
    let l_shape = points(&[
        (0.0, 0.0),
        (2.0, 0.0),
        (2.0, 1.0),
        (1.0, 1.0),
        (1.0, 2.0),
        (0.0, 2.0),
    ]);
    assert_eq!(
        Polygon::new(&l_shape).unwrap_err(),
        ShapeError::NonConvex { vertex: 3 }
    );
    // A bow tie crosses itself: it turns both ways.
    let bow_tie = points(&[(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)]);
    assert!(matches!(
        Polygon::new(&bow_tie).unwrap_err(),
        ShapeError::NonConvex { .. }
    ));
}

#[test]
fn a_pentagram_is_self_intersecting() {
    let star: Vec<Vec2> = (0..5)
        .map(|i| {
            let angle = std::f32::consts::TAU * (2 * i) as f32 / 5.0;
            Vec2::new(angle.cos(), angle.sin())
        })
        .collect();
    assert_eq!(
        Polygon::new(&star).unwrap_err(),
        ShapeError::SelfIntersecting { turns: 2 }
    );
}

#[test]
fn near_zero_area_is_rejected() {
    let err =
        Polygon::new(&points(&[(0.0, 0.0), (1.0, 0.0), (1.0, 5e-5), (0.0, 5e-5)])).unwrap_err();
    assert!(matches!(err, ShapeError::ZeroArea { .. }), "{err:?}");
    // A sliver of aspect 1000 is a valid polygon.
    let sliver =
        Polygon::new(&points(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1e-3), (0.0, 1e-3)])).expect("sliver");
    assert_eq!(sliver.vertices().len(), 4);
}

#[test]
fn too_many_vertices_are_rejected() {
    assert_eq!(
        Polygon::new(&regular(MAX_POLYGON_VERTICES))
            .expect("at the limit")
            .vertices()
            .len(),
        MAX_POLYGON_VERTICES
    );
    let err = Polygon::new(&regular(MAX_POLYGON_VERTICES + 1)).unwrap_err();
    assert_eq!(
        err,
        ShapeError::TooManyVertices {
            count: MAX_POLYGON_VERTICES + 1,
            max: MAX_POLYGON_VERTICES
        }
    );
}

#[test]
fn near_duplicates_are_welded_and_collinear_points_removed() {
    // A square with a near-duplicate corner and two points on its edges.
    let messy = points(&[
        (0.0, 0.0),
        (0.5, 0.0),
        (1.0, 0.0),
        (1.0, 1e-6),
        (1.0, 1.0),
        (0.0, 1.0),
        (0.0, 0.5 + 1e-7),
    ]);
    let polygon = Polygon::new(&messy).expect("valid after cleanup");
    assert_eq!(
        polygon.vertices(),
        &points(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)])[..]
    );
}

#[test]
fn tolerances_are_relative_to_the_shape_size() {
    let messy = [
        (0.0, 0.0),
        (0.5, 1e-6),
        (1.0, 0.0),
        (1.0, 1.0),
        (1.0 - 1e-5, 1.0),
        (0.0, 1.0),
    ];
    let thin = [(0.0, 0.0), (1.0, 0.0), (1.0, 5e-5), (0.0, 5e-5)];
    let concave = [(0.0, 0.0), (1.0, 0.0), (0.5, 0.01), (1.0, 1.0), (0.0, 1.0)];
    for scale in [1e-3f32, 1.0, 1e3] {
        let polygon = Polygon::new(&scaled(&messy, scale)).expect("valid");
        assert_eq!(polygon.vertices().len(), 4, "scale {scale}");
        assert!(
            (polygon.area() - scale * scale).abs() <= 1e-5 * scale * scale,
            "scale {scale}: area {}",
            polygon.area()
        );
        assert!(
            matches!(
                Polygon::new(&scaled(&thin, scale)),
                Err(ShapeError::ZeroArea { .. })
            ),
            "scale {scale}"
        );
        assert!(
            matches!(
                Polygon::new(&scaled(&concave, scale)),
                Err(ShapeError::NonConvex { vertex: 2 })
            ),
            "scale {scale}"
        );
    }
}

#[test]
fn stored_polygons_are_ccw_with_unit_outward_normals() {
    let mut generator = rng(7);
    for count in 3..=MAX_POLYGON_VERTICES {
        let polygon = random_polygon(&mut generator, count, 1.0);
        let vertices = polygon.vertices();
        assert_eq!(vertices.len(), count);
        for i in 0..count {
            let edge = vertices[(i + 1) % count] - vertices[i];
            let normal = polygon.normals()[i];
            assert!(
                (normal.length() - 1.0).abs() < 1e-6,
                "normal {normal} not unit"
            );
            assert!(
                normal.dot(edge).abs() < 1e-5 * edge.length(),
                "normal not perpendicular"
            );
            // Outward for CCW: every vertex is behind every face.
            for v in vertices {
                assert!(
                    normal.dot(*v - vertices[i]) <= 1e-6,
                    "vertex {v} in front of face {i}"
                );
            }
        }
        let centroid = polygon.centroid();
        assert!(
            centroid.length() < 1.0,
            "centroid {centroid} outside the unit circle"
        );
    }
}

#[test]
fn circles_need_a_finite_positive_radius() {
    let mut shapes = ShapeSet::new();
    shapes.add_circle(1.0).expect("fine");
    for (radius, expected) in [
        (f32::NAN, "not finite"),
        (f32::INFINITY, "not finite"),
        (0.0, "not positive"),
        (-1.0, "not positive"),
    ] {
        let err = shapes.add_circle(radius).unwrap_err();
        let message = err.to_string();
        assert!(message.starts_with("shape 1 "), "{message}");
        assert!(message.contains(expected), "{message}");
    }
}

#[test]
fn the_shape_set_names_the_offending_shape() {
    let mut shapes = ShapeSet::new();
    shapes.add_circle(1.0).expect("fine");
    shapes.add_polygon(&regular(5)).expect("fine");
    let err = shapes
        .add_polygon(&points(&[
            (0.0, 0.0),
            (2.0, 0.0),
            (2.0, 1.0),
            (1.0, 1.0),
            (1.0, 2.0),
            (0.0, 2.0),
        ]))
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Shape {
                index: 2,
                reason: ShapeError::NonConvex { vertex: 3 }
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "shape 2 is not convex: it turns the other way at input vertex 3"
    );
    assert_eq!(shapes.len(), 2, "a rejected shape is not added");
}

#[test]
fn bodies_and_pairs_are_validated() {
    let mut shapes = ShapeSet::new();
    let s = shapes.add_circle(1.0).expect("circle");
    let good = Body::new(s, Vec2::ZERO, 0.0);
    let cases: Vec<(Body, BodyError)> = vec![
        (
            Body { shape: 3, ..good },
            BodyError::MissingShape {
                shape: 3,
                shapes: 1,
            },
        ),
        (
            Body {
                position: Vec2::new(f32::NAN, 0.0),
                ..good
            },
            BodyError::NotFinite { field: "position" },
        ),
        (
            Body {
                angle: f32::INFINITY,
                ..good
            },
            BodyError::NotFinite { field: "angle" },
        ),
        (
            Body {
                inv_mass: f32::NAN,
                ..good
            },
            BodyError::NotFinite {
                field: "inverse mass",
            },
        ),
        (
            Body {
                inv_mass: -1.0,
                ..good
            },
            BodyError::NegativeInvMass { inv_mass: -1.0 },
        ),
        (
            Body {
                velocity: Vec2::new(0.0, f32::INFINITY),
                ..good
            },
            BodyError::NotFinite { field: "velocity" },
        ),
    ];
    for (bad, expected) in cases {
        let bodies = [good, bad];
        let err = Batch::new(&shapes, &bodies, &[], 0.0).unwrap_err();
        match err {
            Error::Body { index: 1, reason } => assert_eq!(reason, expected),
            other => panic!("expected body 1 {expected:?}, got {other:?}"),
        }
    }
    let bodies = [good, good];
    let err = Batch::new(&shapes, &bodies, &[Pair::new(0, 1), Pair::new(1, 2)], 0.0).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Pair {
                index: 1,
                reason: PairError::MissingBody { body: 2, bodies: 2 }
            }
        ),
        "{err:?}"
    );
    let err = Batch::new(&shapes, &bodies, &[Pair::new(1, 1)], 0.0).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Pair {
                index: 0,
                reason: PairError::SelfPair { body: 1 }
            }
        ),
        "{err:?}"
    );
    for margin in [-0.1, f32::NAN] {
        assert!(matches!(
            Batch::new(&shapes, &bodies, &[], margin),
            Err(Error::Margin { .. })
        ));
    }
    // Static bodies are fine.
    Batch::new(
        &shapes,
        &[good, Body::fixed(s, Vec2::ONE, 0.0)],
        &[Pair::new(0, 1)],
        0.0,
    )
    .expect("valid");
}

/// Found by the polygon fuzzer: an outline that runs out and back along one
/// line (a spike) is not convex, even when its turning adds up to one turn.
#[test]
fn spikes_out_and_back_are_not_convex() {
    // (Spikes whose turning points lie on their neighbours' chord are
    // removed as collinear points instead, leaving a valid polygon.)
    let spikes = [points(&[
        (0.1, -0.085_940_34),
        (0.1, 0.1),
        (0.1, -0.085_940_34),
        (0.1, 0.1),
        (-0.1, 0.099_221_79),
        (-0.1, -0.099_993_9),
    ])];
    for spike in spikes {
        let err = Polygon::new(&spike).unwrap_err();
        assert!(
            matches!(err, ShapeError::NonConvex { .. }),
            "{spike:?}: {err:?}"
        );
    }
}

/// Found by the polygon fuzzer: a triangle 4e-42 wide passed validation in
/// double precision while every single-precision cross product of its
/// vertices was zero. Sizes outside 1e-9 to 1e9 are rejected, by name.
#[test]
fn sizes_outside_the_supported_range_are_rejected() {
    let triangle = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)];
    for scale in [3.6e-42, 1e-12, 1e10, 1e30] {
        let err = Polygon::new(&scaled(&triangle, scale)).unwrap_err();
        assert!(
            matches!(err, ShapeError::SizeOutOfRange { .. }),
            "scale {scale}: {err:?}"
        );
        assert!(err.to_string().contains("units across"), "{err}");
    }
    for scale in [1e-8, 1e8] {
        assert!(
            Polygon::new(&scaled(&triangle, scale)).is_ok(),
            "scale {scale}"
        );
    }
    let mut shapes = ShapeSet::new();
    for radius in [1e-20, 1e12] {
        let err = shapes.add_circle(radius).unwrap_err();
        assert!(
            err.to_string().contains("units across"),
            "radius {radius}: {err}"
        );
    }
}

/// Positions far enough out that two of them could differ by more than
/// f32 holds are refused, naming the body.
#[test]
fn bodies_beyond_the_coordinate_limit_are_rejected() {
    let mut shapes = ShapeSet::new();
    let ball = shapes.add_circle(1.0).expect("circle");
    let bodies = [
        Body::new(ball, Vec2::new(-3e38, 0.0), 0.0),
        Body::new(ball, Vec2::new(3e38, 0.0), 0.0),
    ];
    let err = Batch::new(&shapes, &bodies, &[Pair::new(0, 1)], 0.0).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Body {
                index: 0,
                reason: BodyError::TooFar { .. }
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().starts_with("body 0 is at"), "{err}");
    let near_limit = [
        Body::new(ball, Vec2::new(-gpusat::MAX_COORDINATE, 0.0), 0.0),
        Body::new(ball, Vec2::new(gpusat::MAX_COORDINATE, 0.0), 0.0),
    ];
    let pairs = [Pair::new(0, 1)];
    let batch = Batch::new(&shapes, &near_limit, &pairs, 0.0).expect("at the limit");
    assert!(gpusat::collide_cpu(&batch).is_empty());
}
