//! Building hulls from point clouds: shapes worked by hand (a box, an
//! octahedron, a hexagonal prism with points on its faces and edges), the
//! invariants of seeded random clouds, mass properties against closed
//! forms, and every error a cloud can earn.

use glam::{Mat3, Vec3};
use gpusat::ShapeError;
use gpusat::d3::{Hull, MAX_HULL_VERTICES};
use gpusat::generate::d3::{random_direction, random_hull};
use gpusat::generate::rng;

/// What every hull must be: closed, Euler, unit outward normals, CCW loops,
/// every face planar, every vertex below every face, edges consistent with
/// their faces and arcs.
fn check_hull(hull: &Hull, points: &[Vec3], what: &str) {
    let (v, f, e) = (
        hull.vertices().len() as i64,
        hull.face_count() as i64,
        hull.edges().len() as i64,
    );
    assert_eq!(v - e + f, 2, "{what}: V {v} E {e} F {f}");
    assert!(
        v >= 4 && v as usize <= MAX_HULL_VERTICES,
        "{what}: {v} vertices"
    );
    let scale = points.iter().map(|p| p.length()).fold(0.0, f32::max);
    let tolerance = 1e-4 * scale;
    for face in 0..hull.face_count() {
        let normal = hull.normals()[face];
        let offset = hull.offsets()[face];
        assert!(
            (normal.length() - 1.0).abs() < 1e-5,
            "{what}: face {face} normal {normal}"
        );
        let loop_ = hull.face(face);
        assert!(
            loop_.len() >= 3,
            "{what}: face {face} has {} vertices",
            loop_.len()
        );
        for (k, &i) in loop_.iter().enumerate() {
            let p = hull.vertices()[i as usize];
            assert!(
                (normal.dot(p) - offset).abs() <= tolerance,
                "{what}: face {face} vertex {i} off its plane by {}",
                normal.dot(p) - offset
            );
            // Counter-clockwise seen from outside: each corner turns left
            // about the outward normal.
            let prev = hull.vertices()[loop_[(k + loop_.len() - 1) % loop_.len()] as usize];
            let next = hull.vertices()[loop_[(k + 1) % loop_.len()] as usize];
            assert!(
                (p - prev).cross(next - p).dot(normal) > 0.0,
                "{what}: face {face} turns the wrong way at vertex {i}"
            );
        }
        for (i, p) in hull.vertices().iter().enumerate() {
            assert!(
                normal.dot(*p) - offset <= tolerance,
                "{what}: vertex {i} outside face {face}"
            );
        }
        for p in points {
            assert!(
                normal.dot(*p) - offset <= tolerance,
                "{what}: input point {p} outside face {face}"
            );
        }
    }
    for (index, edge) in hull.edges().iter().enumerate() {
        let in_loop = |face: u32, from: u32, to: u32| {
            let loop_ = hull.face(face as usize);
            (0..loop_.len()).any(|k| loop_[k] == from && loop_[(k + 1) % loop_.len()] == to)
        };
        assert!(
            in_loop(edge.f0, edge.v0, edge.v1),
            "{what}: edge {index} not in f0"
        );
        assert!(
            in_loop(edge.f1, edge.v1, edge.v0),
            "{what}: edge {index} not in f1"
        );
        let direction = hull.vertices()[edge.v1 as usize] - hull.vertices()[edge.v0 as usize];
        let arc = hull.edge_gauss()[index].arc;
        // n(f1) x n(f0) runs along the edge, from v1 to v0 (within a few
        // milliradians on nearly flat edges, where faces merged within the
        // plane tolerance tilt the normals).
        // The tilt is at most the planarity tolerance (4e-5 of the width)
        // over the edge's length times the sine of the dihedral angle.
        let along = arc.normalize().dot(direction.normalize());
        let tilt = arc.normalize().cross(direction.normalize()).length();
        let bound = 4.0 * 4e-5 * (2.0 * scale) / (direction.length() * arc.length());
        assert!(
            along < 0.0 && tilt <= bound.max(1e-4),
            "{what}: edge {index}'s arc normal is {along} along it, tilted {tilt} (bound {bound})"
        );
        assert!(
            arc.length() > 1e-6,
            "{what}: edge {index} between coplanar faces"
        );
    }
}

#[test]
fn a_box_has_six_quadrilaterals_and_twelve_edges() {
    let half = Vec3::new(0.5, 1.0, 1.5);
    let hull = Hull::cuboid(half).expect("box");
    let corners: Vec<Vec3> = hull.vertices().to_vec();
    check_hull(&hull, &corners, "box");
    assert_eq!(hull.vertices().len(), 8);
    assert_eq!(hull.face_count(), 6);
    assert_eq!(hull.edges().len(), 12);
    assert!((0..6).all(|face| hull.face(face).len() == 4));
    let mut normals: Vec<[i32; 3]> = hull
        .normals()
        .iter()
        .map(|n| [n.x.round() as i32, n.y.round() as i32, n.z.round() as i32])
        .collect();
    normals.sort();
    assert_eq!(
        normals,
        vec![
            [-1, 0, 0],
            [0, -1, 0],
            [0, 0, -1],
            [0, 0, 1],
            [0, 1, 0],
            [1, 0, 0]
        ]
    );
    assert!((hull.volume() - 8.0 * half.x * half.y * half.z).abs() < 1e-5);
    assert!(hull.centroid().length() < 1e-6);
    // A solid box: I_xx = (hy^2 + hz^2) / 3 per unit mass, and so on.
    let expected = Mat3::from_diagonal(Vec3::new(
        (half.y * half.y + half.z * half.z) / 3.0,
        (half.x * half.x + half.z * half.z) / 3.0,
        (half.x * half.x + half.y * half.y) / 3.0,
    ));
    let inertia = hull.unit_inertia();
    for (got, want) in inertia.to_cols_array().iter().zip(expected.to_cols_array()) {
        assert!(
            (got - want).abs() < 1e-5,
            "inertia {inertia} against {expected}"
        );
    }
    assert!((hull.size() - half.length()).abs() < 1e-6);
}

#[test]
fn an_octahedron_and_a_tetrahedron() {
    let octahedron = [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z];
    let hull = Hull::new(&octahedron).expect("octahedron");
    check_hull(&hull, &octahedron, "octahedron");
    assert_eq!(
        (hull.vertices().len(), hull.face_count(), hull.edges().len()),
        (6, 8, 12)
    );
    assert!((hull.volume() - 4.0 / 3.0).abs() < 1e-5);

    let tetrahedron = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
    ];
    let hull = Hull::new(&tetrahedron).expect("tetrahedron");
    check_hull(&hull, &tetrahedron, "tetrahedron");
    assert_eq!(
        (hull.vertices().len(), hull.face_count(), hull.edges().len()),
        (4, 4, 6)
    );
    assert!((hull.volume() - 1.0 / 6.0).abs() < 1e-6);
    assert!((hull.centroid() - Vec3::splat(0.25)).length() < 1e-6);
}

#[test]
fn points_on_faces_and_edges_and_inside_are_dropped() {
    // A hexagonal prism, plus points in its faces' interiors, on its edges,
    // inside it, and duplicates closer than the weld tolerance.
    let mut points = Vec::new();
    for ring in [-1.0f32, 1.0] {
        for k in 0..6 {
            let angle = std::f32::consts::TAU * k as f32 / 6.0;
            points.push(Vec3::new(angle.cos(), ring, angle.sin()));
        }
    }
    let corners = points.clone();
    for k in 0..6 {
        let (a, b) = (corners[k], corners[(k + 1) % 6]);
        points.push(0.5 * (a + b)); // on a bottom edge
        points.push(Vec3::new(a.x, 0.3, a.z)); // on a vertical edge
        points.push(0.5 * (a + b) + Vec3::new(0.0, 1.2, 0.0)); // inside a side face
        points.push(0.3 * a + Vec3::new(0.0, 1.0, 0.0)); // inside the top face
        points.push(0.2 * a); // inside
        points.push(a + Vec3::splat(1e-7)); // welded
    }
    let hull = Hull::new(&points).expect("prism");
    check_hull(&hull, &points, "prism");
    assert_eq!(hull.vertices().len(), 12, "{:?}", hull.vertices());
    assert_eq!(hull.face_count(), 8);
    assert_eq!(hull.edges().len(), 18);
    let mut sizes: Vec<usize> = (0..8).map(|face| hull.face(face).len()).collect();
    sizes.sort();
    assert_eq!(sizes, vec![4, 4, 4, 4, 4, 4, 6, 6]);
}

#[test]
fn random_clouds_make_valid_hulls() {
    let mut random = rng(1201);
    let mut total_vertices = 0;
    for trial in 0..300 {
        let count = [4, 6, 8, 12, 16, 32, 64, 128, 256][trial % 9];
        let flatness = if trial % 7 == 0 { 0.02 } else { 1.0 };
        let radius = [0.001, 1.0, 1000.0][trial % 3];
        let hull = random_hull(&mut random, count, radius, flatness);
        check_hull(
            &hull,
            hull.vertices(),
            &format!("trial {trial} ({count} points)"),
        );
        total_vertices += hull.vertices().len();
        assert!(hull.volume() > 0.0);
    }
    assert!(total_vertices > 10_000, "{total_vertices} vertices in all");

    // Gaussian-ish clouds: most points inside, the hull keeps the extremes.
    for trial in 0..50 {
        let points: Vec<Vec3> = (0..500)
            .map(|i| random_direction(&mut random) * (1.0 + (i % 7) as f32 * 0.1).powi(trial % 3))
            .collect();
        match Hull::new(&points) {
            Ok(hull) => check_hull(&hull, &points, &format!("cloud {trial}")),
            Err(ShapeError::TooManyVertices { count, max }) => {
                assert!(count > max, "{count} > {max}")
            }
            Err(err) => panic!("cloud {trial}: {err}"),
        }
    }
}

#[test]
fn bad_clouds_are_errors_that_say_why() {
    let err = |points: &[Vec3]| Hull::new(points).expect_err("invalid").to_string();
    let nan = err(&[Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(0.0, f32::NAN, 1.0)]);
    assert!(nan.contains("non-finite coordinate at point 3"), "{nan}");
    let three = err(&[Vec3::ZERO, Vec3::X, Vec3::Y]);
    assert!(
        three.contains("3 distinct points; a hull needs at least 4"),
        "{three}"
    );
    let welded = err(&[Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Y + Vec3::splat(1e-8)]);
    assert!(welded.contains("3 distinct points"), "{welded}");
    let flat = err(&[
        Vec3::ZERO,
        Vec3::X,
        Vec3::Y,
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(0.5, 0.5, 1e-7),
    ]);
    assert!(flat.contains("on one plane"), "{flat}");
    let line = err(&[
        Vec3::ZERO,
        Vec3::X,
        2.0 * Vec3::X,
        3.0 * Vec3::X + Vec3::splat(1e-8),
    ]);
    assert!(line.contains("on one line"), "{line}");
    let tiny = err(&[
        Vec3::ZERO,
        Vec3::X * 1e-12,
        Vec3::Y * 1e-12,
        Vec3::Z * 1e-12,
    ]);
    assert!(tiny.contains("sizes from"), "{tiny}");
    // 400 points on a sphere: all extreme, more than the hull may keep.
    let mut random = rng(1202);
    let many: Vec<Vec3> = (0..400).map(|_| random_direction(&mut random)).collect();
    match Hull::new(&many) {
        Err(ShapeError::TooManyVertices { count, max }) => {
            assert!(count > 256 && max == 256, "{count} {max}")
        }
        other => panic!("400 extreme points: {other:?}"),
    }
    let box_err = Hull::cuboid(Vec3::new(1.0, 0.0, 1.0))
        .expect_err("flat box")
        .to_string();
    assert!(box_err.contains("half extents"), "{box_err}");
    // A needle: four points off a line by 3e-5 of its length (past the
    // line and plane tolerances), a volume of 1.5e-10 of width³.
    let needle = err(&[
        Vec3::ZERO,
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.5, 3e-5, 0.0),
        Vec3::new(0.5, 0.0, 3e-5),
    ]);
    assert!(needle.contains("flat or needle-like"), "{needle}");
}
