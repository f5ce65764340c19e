//! Helpers shared by the integration tests: an exact double-precision oracle
//! built on the Minkowski difference, independent of the code under test.
#![allow(dead_code)]

pub mod oracle3;

use glam::{DVec2, Vec2};
use gpusat::{Body, Shape, ShapeSet};

/// A shape placed in the world, in double precision.
#[derive(Clone, Debug)]
pub enum WorldShape {
    /// Counter-clockwise vertices.
    Polygon(Vec<DVec2>),
    Circle {
        centre: DVec2,
        radius: f64,
    },
    /// A core (a CCW polygon, or a segment's two points) grown by a radius
    /// (0 for a bare segment): rounded polygons, capsules, segments.
    Rounded {
        core: Vec<DVec2>,
        radius: f64,
    },
}

/// The body's shape in world coordinates, from its single-precision data,
/// with the rotation evaluated in double precision.
pub fn world_shape(shapes: &ShapeSet, body: &Body) -> WorldShape {
    let position = body.position.as_dvec2();
    let (sin, cos) = (body.angle as f64).sin_cos();
    let place = |v: Vec2| {
        let v = v.as_dvec2();
        position + DVec2::new(cos * v.x - sin * v.y, sin * v.x + cos * v.y)
    };
    match shapes.get(body.shape).expect("body refers to a shape") {
        Shape::Polygon(polygon) if polygon.radius() == 0.0 => {
            WorldShape::Polygon(polygon.vertices().iter().map(|&v| place(v)).collect())
        }
        Shape::Circle(circle) => WorldShape::Circle {
            centre: position,
            radius: circle.radius() as f64,
        },
        shape => WorldShape::Rounded {
            core: shape
                .edges()
                .expect("a polygon or segment core")
                .iter()
                .map(|edge| place(edge.vertex))
                .collect(),
            radius: shape.radius() as f64,
        },
    }
}

/// Andrew's monotone chain: the convex hull, counter-clockwise, without
/// collinear points.
pub fn convex_hull(points: &[DVec2]) -> Vec<DVec2> {
    let mut sorted: Vec<DVec2> = points.to_vec();
    sorted.sort_by(|p, q| p.x.total_cmp(&q.x).then(p.y.total_cmp(&q.y)));
    sorted.dedup();
    if sorted.len() < 3 {
        return sorted;
    }
    let turn = |o: DVec2, a: DVec2, b: DVec2| (a - o).perp_dot(b - o);
    let mut hull: Vec<DVec2> = Vec::with_capacity(sorted.len() * 2);
    for &p in &sorted {
        while hull.len() >= 2 && turn(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
            hull.pop();
        }
        hull.push(p);
    }
    let lower_len = hull.len() + 1;
    for &p in sorted.iter().rev().skip(1) {
        while hull.len() >= lower_len && turn(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
        {
            hull.pop();
        }
        hull.push(p);
    }
    hull.pop();
    hull
}

fn distance_to_segment(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
    (p - (a + t * ab)).length()
}

/// Signed distance from `p` to a CCW convex polygon: negative inside.
pub fn signed_distance(p: DVec2, polygon: &[DVec2]) -> f64 {
    let n = polygon.len();
    let mut inside = true;
    let mut nearest_edge = f64::INFINITY;
    for i in 0..n {
        let a = polygon[i];
        let b = polygon[(i + 1) % n];
        if (b - a).perp_dot(p - a) < 0.0 {
            inside = false;
        }
        nearest_edge = nearest_edge.min(distance_to_segment(p, a, b));
    }
    if inside { -nearest_edge } else { nearest_edge }
}

/// The exact penetration depth of B into A: positive when they overlap (the
/// shortest translation of B that separates them), minus the gap otherwise.
///
/// Polygon–polygon: the Minkowski difference B − A is the hull of all vertex
/// differences; the depth is the signed distance from the origin to it,
/// negated. With circles, the difference is the other shape reflected,
/// inflated by the radius.
pub fn oracle_depth(a: &WorldShape, b: &WorldShape) -> f64 {
    if matches!(a, WorldShape::Rounded { .. }) || matches!(b, WorldShape::Rounded { .. }) {
        let (core_a, radius_a) = core_and_radius(a);
        let (core_b, radius_b) = core_and_radius(b);
        return radius_a + radius_b - core_signed_distance(&core_a, &core_b);
    }
    match (a, b) {
        (WorldShape::Polygon(pa), WorldShape::Polygon(pb)) => {
            let differences: Vec<DVec2> = pb
                .iter()
                .flat_map(|&vb| pa.iter().map(move |&va| vb - va))
                .collect();
            let hull = convex_hull(&differences);
            -signed_distance(DVec2::ZERO, &hull)
        }
        (WorldShape::Polygon(pa), WorldShape::Circle { centre, radius }) => {
            radius - signed_distance(*centre, pa)
        }
        (WorldShape::Circle { centre, radius }, WorldShape::Polygon(pb)) => {
            radius - signed_distance(*centre, pb)
        }
        (
            WorldShape::Circle {
                centre: ca,
                radius: ra,
            },
            WorldShape::Circle {
                centre: cb,
                radius: rb,
            },
        ) => ra + rb - (*cb - *ca).length(),
        _ => unreachable!("rounded shapes are handled above"),
    }
}

/// Any placed shape as a core (one point, two, or a CCW polygon) and a
/// radius.
pub fn core_and_radius(shape: &WorldShape) -> (Vec<DVec2>, f64) {
    match shape {
        WorldShape::Polygon(vertices) => (vertices.clone(), 0.0),
        WorldShape::Circle { centre, radius } => (vec![*centre], *radius),
        WorldShape::Rounded { core, radius } => (core.clone(), *radius),
    }
}

/// A core's edges: a polygon's, a segment's one, a point's none.
fn core_edges(core: &[DVec2]) -> Vec<(DVec2, DVec2)> {
    match core.len() {
        0 | 1 => Vec::new(),
        2 => vec![(core[0], core[1])],
        n => (0..n).map(|i| (core[i], core[(i + 1) % n])).collect(),
    }
}

/// Every supporting line of a core as (a point on it, its outward unit
/// normal): a polygon's faces; a segment's two sides and its two ends
/// (which complete the axes of a degenerate Minkowski difference); none for
/// a point.
fn core_axes(core: &[DVec2]) -> Vec<(DVec2, DVec2)> {
    let normal = |a: DVec2, b: DVec2| {
        let edge = b - a;
        DVec2::new(edge.y, -edge.x) / edge.length()
    };
    match core.len() {
        0 | 1 => Vec::new(),
        2 => {
            let (a, b) = (core[0], core[1]);
            let along = (b - a).normalize();
            vec![
                (a, normal(a, b)),
                (a, -normal(a, b)),
                (b, along),
                (a, -along),
            ]
        }
        n => (0..n)
            .map(|i| (core[i], normal(core[i], core[(i + 1) % n])))
            .collect(),
    }
}

/// The signed distance between two convex cores (a point, a segment or a
/// CCW polygon each): the distance to the Minkowski difference `B - A` from
/// the origin, negative inside. Inside (every axis separates by at most 0):
/// the largest separation over every supporting line of either core, the
/// difference's edges being among them. Outside: the least distance of a
/// vertex of one core from an edge (or the point) of the other.
pub fn core_signed_distance(a: &[DVec2], b: &[DVec2]) -> f64 {
    if a.len() == 1 && b.len() == 1 {
        return (b[0] - a[0]).length();
    }
    let separation = |axes: Vec<(DVec2, DVec2)>, other: &[DVec2]| {
        axes.into_iter()
            .map(|(point, normal)| {
                other
                    .iter()
                    .map(|&v| normal.dot(v - point))
                    .fold(f64::INFINITY, f64::min)
            })
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let s = separation(core_axes(a), b).max(separation(core_axes(b), a));
    if s <= 0.0 {
        return s;
    }
    let mut distance = f64::INFINITY;
    for (p, edges) in [(a, core_edges(b)), (b, core_edges(a))] {
        for &v in p {
            for &(e0, e1) in &edges {
                distance = distance.min(distance_to_segment(v, e0, e1));
            }
        }
    }
    distance
}

/// The signed distance from `p` to a core: negative inside a polygon.
pub fn core_point_distance(p: DVec2, core: &[DVec2]) -> f64 {
    match core.len() {
        1 => (p - core[0]).length(),
        2 => distance_to_segment(p, core[0], core[1]),
        _ => signed_distance(p, core),
    }
}

/// The largest projection of the shape on `direction`.
pub fn support(shape: &WorldShape, direction: DVec2) -> f64 {
    match shape {
        WorldShape::Polygon(vertices) => vertices
            .iter()
            .map(|v| v.dot(direction))
            .fold(f64::NEG_INFINITY, f64::max),
        WorldShape::Circle { centre, radius } => {
            centre.dot(direction) + radius * direction.length()
        }
        WorldShape::Rounded { core, radius } => {
            core.iter()
                .map(|v| v.dot(direction))
                .fold(f64::NEG_INFINITY, f64::max)
                + radius * direction.length()
        }
    }
}

/// How much A and B overlap along `normal` (from A to B): how far B must
/// move along it for the two projections to just touch. Negative: the gap.
pub fn overlap_along(a: &WorldShape, b: &WorldShape, normal: DVec2) -> f64 {
    support(a, normal) + support(b, -normal)
}

/// The length scale of a pair: the larger of the two shapes' sizes.
pub fn pair_scale(shapes: &ShapeSet, a: &Body, b: &Body) -> f64 {
    let size = |body: &Body| shapes.get(body.shape).expect("shape").size() as f64;
    size(a).max(size(b))
}

/// Whether a test must have a GPU (set by `.ci/run`).
pub fn gpu_required() -> bool {
    std::env::var("GPUSAT_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// The GPU context shared by a test binary's GPU tests, built once. `None`
/// (the test then returns early) when there is no adapter, unless
/// `GPUSAT_REQUIRE_GPU=1`, which makes a missing adapter a failure.
pub fn gpu_context() -> Option<std::sync::Arc<gpusat::gpu::GpuContext>> {
    use gpusat::gpu::{AdapterChoice, GpuContext};
    static CONTEXT: std::sync::OnceLock<Result<std::sync::Arc<GpuContext>, String>> =
        std::sync::OnceLock::new();
    let context = CONTEXT.get_or_init(|| {
        GpuContext::new(&AdapterChoice::Auto)
            .map(std::sync::Arc::new)
            .map_err(|err| err.to_string())
    });
    match context {
        Ok(context) => Some(context.clone()),
        Err(err) if gpu_required() => panic!("GPUSAT_REQUIRE_GPU=1 but there is no GPU: {err}"),
        Err(err) => {
            say_skipped(err);
            None
        }
    }
}

/// Says in the test output (not captured by the test harness, which shows
/// captured output only for failures) that the running test skipped its
/// GPU part, and why.
fn say_skipped(reason: &str) {
    use std::io::Write;
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let _ = writeln!(
        std::io::stderr(),
        "{test}: GPU part skipped, no adapter ({reason}); GPUSAT_REQUIRE_GPU=1 makes this a failure"
    );
}

/// Whether the tests' GPU computes the CPU reference's bits. lavapipe does
/// (LLVM compiles WGSL's products and sums one operation at a time, in the
/// order written, as the CPU reference computes them), so there the tests
/// ask for identical hits and identical trajectories. A hardware GPU's
/// compiler may fuse a product and a sum into one multiply-add, which WGSL
/// allows and cannot forbid (an NVIDIA H100 did: the same pairs, but the
/// last bits of about two depths in three differ); there the tests ask for
/// the documented tolerances (`gpusat::check`), and simulations that
/// amplify a last bit frame after frame follow their own trajectories.
/// `GPUSAT_TOLERANCES_ONLY=1` asks for the tolerances on any adapter, so
/// that CI runs those checks on lavapipe too (`.ci/run`).
#[allow(dead_code)]
pub fn gpu_is_bit_exact() -> bool {
    let tolerances_only = std::env::var("GPUSAT_TOLERANCES_ONLY").is_ok_and(|v| v == "1");
    !tolerances_only && gpu_context().is_some_and(|context| context.is_software())
}

/// Signed distance from a point to a placed shape: negative inside.
pub fn distance_to_shape(p: DVec2, shape: &WorldShape) -> f64 {
    match shape {
        WorldShape::Polygon(vertices) => signed_distance(p, vertices),
        WorldShape::Circle { centre, radius } => (p - *centre).length() - radius,
        WorldShape::Rounded { core, radius } => core_point_distance(p, core) - radius,
    }
}

/// A device and queue opened the way an application opens its own (not by
/// gpusat), with the given limits and features; the instance and adapter
/// kept alive beside them.
pub struct CallerDevice {
    pub instance: gpusat::wgpu::Instance,
    pub adapter: gpusat::wgpu::Adapter,
    pub device: gpusat::wgpu::Device,
    pub queue: gpusat::wgpu::Queue,
}

/// Opens a [`CallerDevice`] on the adapter wgpu picks by default (Vulkan,
/// Metal or DX12). `None` (the test returns early) when there is no
/// adapter, unless `GPUSAT_REQUIRE_GPU=1`.
pub fn caller_device(
    limits: gpusat::wgpu::Limits,
    features: gpusat::wgpu::Features,
) -> Option<CallerDevice> {
    use gpusat::wgpu;
    gpu_context()?;
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
    descriptor.backends = wgpu::Backends::PRIMARY;
    let instance = wgpu::Instance::new(descriptor.with_env());
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .expect("the adapter gpu_context found");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: limits,
        required_features: features,
        ..wgpu::DeviceDescriptor::default()
    }))
    .expect("a device with these limits");
    Some(CallerDevice {
        instance,
        adapter,
        device,
        queue,
    })
}
