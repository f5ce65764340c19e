//! Which of the 3D kernel's entry points each pair of bodies takes: the
//! body classes by shape and size (and adapter), and the kind of each pair
//! of classes, with the measurements behind each size limit.

use crate::d3::{Batch, Hull, Shape};
use crate::gpu::dimension::KindChoice;
use crate::gpu::error::GpuError;

/// Hulls of more vertices than this take the kernel's wide loops
/// (`hulls_large`; see "Loops and lavapipe" in `shaders/d3/sat.wgsl`).
pub(crate) const WIDE_HULL_VERTICES: usize = 64;

/// Pairs of hulls of more than 8 and at most this many vertices on both
/// sides take `hulls_cached`, whose face queries hold the other hull's
/// vertices in registers (read once per query instead of once per face),
/// and whose edge query holds A's edges' face normals (read once instead of
/// once per edge of B kept). Measured with `gpusat bench --dim 3 --backends
/// gpu-kernel` on lavapipe (20,000 pairs, min of 3 interleaved runs, ns per
/// pair, without the cache and with it): the vertices, 16-vertex hulls
/// 2,561 -> 2,324, 32: 5,317 -> 4,770; A's edges, 32: 5,902 -> 4,330. Boxes
/// (8 vertices: one step of the loop) lost 8% when the cached path shared
/// their entry point, so they keep `hulls`. Only software adapters take
/// this kind ([`GpuContext::is_software`]): llvmpipe keeps the arrays in
/// vector registers and spills them to its stack at the cost of a cache
/// hit, where each texel read gathers eight lanes; a GPU would spill some
/// 700 floats per invocation to local memory and lose occupancy, and its
/// texture cache serves the repeated reads well, so GPUs keep `hulls`.
pub(crate) const CACHED_HULL_VERTICES: usize = 32;

/// Pairs of hulls of at most this many vertices on both sides (but two
/// boxes, which take `boxes`: [`BOXES_KIND`]) take `hulls_small` on a
/// software adapter (a hull of 8 vertices has at most 18 edges): the caches of `hulls_cached` cut to 8 vertices and 20
/// edges, read in full as those are. Measured on boxes, when two boxes
/// took this kind, with `gpusat bench --dim 3 --shapes boxes --backends
/// cpu,gpu-kernel` on lavapipe (20,000 pairs,
/// three interleaved runs, ns per pair): boxes 955-1,056 (`hulls`) ->
/// 576-651; at 1M pairs 481.5 against one CPU thread's 295.8 (0.61x).
pub(crate) const SMALL_HULL_VERTICES: usize = 8;

/// Pairs of hulls of 9 to this many vertices on both sides take
/// `hulls_cached16` on a software adapter: the caches cut to 16 vertices
/// and 44 edges (a hull of 16 vertices has at most 42), where
/// `hulls_cached` reads 32 vertices, 96 edges and 96 of B's bound records
/// whatever the hull. Measured as `hulls_small`: 16-vertex hulls
/// 1,515-1,589 -> 1,163-1,238 ns (32-vertex hulls, the control, 2,158 to
/// 2,322 both ways); at 1M pairs 1,150 against one CPU thread's 780
/// (0.68x).
pub(crate) const CACHED16_HULL_VERTICES: usize = 16;

/// The same with caches twice the size (`hulls_cached64`): pairs of hulls
/// of 9 to this many vertices, one of them above [`CACHED_HULL_VERTICES`].
/// Measured the same way: 64-vertex hulls 10,482 -> 4,382 ns; the larger
/// caches made 16- and 32-vertex pairs a third slower (each cache is read
/// in full, whatever the hull's size), so those keep `hulls_cached`.
pub(crate) const CACHED64_HULL_VERTICES: usize = WIDE_HULL_VERTICES;

/// Pairs of a hull of more than [`WIDE_HULL_VERTICES`] and at most this
/// many vertices with a hull of at most this many, both with grids, take
/// `hulls_gridded32` on a software adapter: `hulls_gridded` with 32 of
/// A's kept edges cached instead of 64 (its pairs whose A keeps more, 64
/// of the bench's 10,000 128-vertex pairs, are deferred to the second
/// dispatch, which caches 64). The cache is read in full and every kept
/// edge of B is tested against all of it, whatever A keeps; on the bench's
/// 128-vertex hulls A keeps at most 32 edges in 99.4% of the pairs.
/// Measured on lavapipe, 128-vertex hulls, `hulls_gridded` against this
/// kind: kernel instructions per pair under cachegrind (1,000 pairs)
/// 136.3k -> 127.5k; kernel time (10,000 pairs, eight interleaved runs,
/// the middle runs' medians) 8,806-8,977 -> 8,104-8,352 ns. Larger hulls
/// keep 64: with 32 for every large kind, 214 of 10,000 256-vertex pairs
/// deferred and their kernel time got worse (135-148 -> 148-162 ms).
pub(crate) const GRIDDED32_HULL_VERTICES: usize = 128;

/// The longest vertex list of a hull's Gauss-map grid for the kernel to
/// look its faces' deepest vertices up in it (`hulls_gridded`). Four
/// vertices a step, so at most eight steps a face: no more than the scan
/// over 256 vertices, 32 a step, takes (the loop-limit bound holds as it
/// is). The bench's random hulls list at most 17 (256 vertices; 12 to 17,
/// 300 hulls of each size from 24 to 256 vertices).
pub(crate) const GPU_GRID_LIST_MAX: usize = 32;

/// A hull's Gauss-map grid as the kernel reads it: squares per side of a
/// cube face, and each square's vertex list, in square order. Hulls with a
/// grid ([`GRID_MIN_VERTICES`](crate::d3::GRID_MIN_VERTICES) vertices or
/// more) give theirs; a smaller hull a one-cell grid whose six squares each
/// list every vertex. `None` where a list is empty or longer than
/// [`GPU_GRID_LIST_MAX`]: such a hull's pairs scan every vertex
/// (`hulls_large`).
pub(super) fn gpu_grid(hull: &Hull) -> Option<(u32, Vec<Vec<u16>>)> {
    let (cells, lists) = match hull.gauss_grid() {
        Some(grid) => (grid.cells(), grid.lists().map(<[u16]>::to_vec).collect()),
        None => (1, vec![(0..hull.vertices().len() as u16).collect(); 6]),
    };
    let usable = lists
        .iter()
        .all(|list| (1..=GPU_GRID_LIST_MAX).contains(&list.len()));
    usable.then_some((cells, lists))
}

/// Marks a body class whose hull has no grid the kernel can use
/// ([`gpu_grid`]).
pub(super) const NO_GRID: u8 = 16;

/// The hulls of at most this many vertices that a large hull's pairs take
/// the loop kinds with on a software adapter (where the hardware kinds are
/// forced), and the large hulls of at most [`LOOP_KINDS_SOFTWARE_MOST`]:
/// lavapipe's loop limit allows no more (`loop_budget.rs`). Boxes among
/// them.
pub(crate) const LOOP_PARTNER_VERTICES: usize = 8;

/// The largest hull whose pairs take the loop kinds on a software adapter
/// (see [`LOOP_PARTNER_VERTICES`]).
pub(crate) const LOOP_KINDS_SOFTWARE_MOST: usize = 128;

/// Which kinds a narrowphase's hulls take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum HullKinds {
    /// A hardware GPU's: `hulls` up to [`WIDE_HULL_VERTICES`], the loop
    /// kinds above.
    Hardware,
    /// A hardware GPU's on a software adapter (forced, as CI runs them):
    /// the loop kinds only where lavapipe's loop limit allows
    /// ([`LOOP_PARTNER_VERTICES`]), the straight-line large kinds for the
    /// other large pairs.
    HardwareOnSoftware,
    /// A software adapter's: the register-cached and straight-line kinds.
    Software,
}

impl HullKinds {
    /// The kinds `choice` says on an adapter that is software or not.
    pub(super) fn of(choice: KindChoice, software_adapter: bool) -> HullKinds {
        match (choice.software, software_adapter) {
            (true, _) => HullKinds::Software,
            (false, true) => HullKinds::HardwareOnSoftware,
            (false, false) => HullKinds::Hardware,
        }
    }
}

/// A sphere's class.
pub(super) const SPHERE_CLASS: u8 = 1;

/// A rounded hull's class: its pairs take `rounded` ([`ROUNDED_KIND`]),
/// but with a capsule.
pub(super) const ROUNDED_CLASS: u8 = 12;

/// A capsule's class: its pairs with a hull or a rounded hull take
/// `hull_capsule` ([`HULL_CAPSULE_KIND`]), with a capsule or a sphere
/// `capsules` ([`CAPSULES_KIND`]).
pub(super) const CAPSULE_CLASS: u8 = 13;

/// The entry point of a rounded hull with a hull, a rounded hull or a
/// sphere.
pub(super) const ROUNDED_KIND: u8 = 12;

/// The entry point of a capsule with a hull or a rounded hull.
pub(super) const HULL_CAPSULE_KIND: u8 = 13;

/// The entry point of a capsule with a capsule or a sphere.
pub(super) const CAPSULES_KIND: u8 = 14;

/// The most vertices of either hull core of a `rounded` pair of two hull
/// cores (a rounded hull with a hull or a rounded hull): the cores' SAT is
/// the narrow `hulls` query, then the nearest features' search runs over
/// both cores' faces, vertices and edges, and lavapipe's loop limit allows
/// no more with room to spare (`loop_budget.rs`). A hull of any size takes
/// `rounded` with a capsule or a sphere.
pub const ROUNDED_HULL_VERTICES: usize = 32;

/// Refuses the pairs the 3D kernel does not collide: two hull cores, one
/// of them rounded, one of more than [`ROUNDED_HULL_VERTICES`] vertices.
pub(super) fn check_rounded_pairs(batch: &Batch<'_>) -> Result<(), GpuError> {
    let shapes = batch.shapes();
    let too_large = |shape: &Shape| {
        shape
            .core_hull()
            .is_some_and(|hull| hull.vertices().len() > ROUNDED_HULL_VERTICES)
    };
    let any_rounded_hull = shapes
        .shapes()
        .iter()
        .any(|shape| matches!(shape, Shape::RoundedHull(_)));
    if !any_rounded_hull || !shapes.shapes().iter().any(too_large) {
        return Ok(());
    }
    for (index, pair) in batch.pairs().iter().enumerate() {
        let (shape_a, shape_b) = (batch.shape_of(pair.a), batch.shape_of(pair.b));
        let rounded = !(shape_a.is_plain() && shape_b.is_plain());
        let (Some(hull_a), Some(hull_b)) = (shape_a.core_hull(), shape_b.core_hull()) else {
            continue;
        };
        if rounded && (too_large(shape_a) || too_large(shape_b)) {
            return Err(GpuError::UnsupportedPair {
                pair: index as u32,
                a: pair.a,
                b: pair.b,
                reason: format!(
                    "a {} of {} vertices and a {} of {} vertices: the 3D GPU kernel collides \
                     a rounded hull with a hull core of at most {ROUNDED_HULL_VERTICES} vertices",
                    shape_a.kind_name(),
                    hull_a.vertices().len(),
                    shape_b.kind_name(),
                    hull_b.vertices().len()
                ),
            });
        }
    }
    Ok(())
}

/// The classes [`body_class`] gives hulls with `kinds` (before [`NO_GRID`]),
/// boxes among them.
pub(super) fn hull_classes(kinds: HullKinds) -> &'static [u8] {
    match kinds {
        HullKinds::Hardware => &[0, 8, BOX_CLASS],
        HullKinds::HardwareOnSoftware => &[0, 9, 10, 11, BOX_CLASS],
        HullKinds::Software => &[5, 6, 3, 4, 7, 2, BOX_CLASS | 5],
    }
}

/// Added to a hull's class when it is a box whose face normals are exactly
/// its axes (its `BoxRegions`): two such boxes take `boxes`
/// ([`BOXES_KIND`]); with any other body, the class without it says.
pub(super) const BOX_CLASS: u8 = 32;

/// The entry point of two boxes: the face queries, then the boxes' own
/// edge query (`sat/boxes.rs`, `collide_boxes`), on every adapter.
/// Measured on lavapipe, which says nothing of a GPU's speed, with `gpusat
/// bench --dim 3 --shapes boxes --sizes 20000 --backends cpu,gpu-kernel`
/// (kernel ns a pair, one run each): `hulls_small`, which two boxes took
/// before, 421.9; `boxes` 463.6, and 1,197.8 while it looked the kept
/// candidate's edges up at every candidate kept instead of once.
pub(super) const BOXES_KIND: u8 = 15;

/// A body's class. A sphere: [`SPHERE_CLASS`]; a rounded hull:
/// [`ROUNDED_CLASS`]; a capsule: [`CAPSULE_CLASS`]. A hull, with [`NO_GRID`] added where it
/// has no `gridded` grid ([`gpu_grid`]) and [`BOX_CLASS`] where it is a box:
/// - [`HullKinds::Hardware`]: 0 up to [`WIDE_HULL_VERTICES`] vertices, 8
///   above;
/// - [`HullKinds::HardwareOnSoftware`]: 0 up to
///   [`LOOP_PARTNER_VERTICES`], 9 up to [`WIDE_HULL_VERTICES`], 10 up to
///   [`LOOP_KINDS_SOFTWARE_MOST`], 11 above;
/// - [`HullKinds::Software`]: 5 up to [`SMALL_HULL_VERTICES`], 6 up to
///   [`CACHED16_HULL_VERTICES`], 3 up to [`CACHED_HULL_VERTICES`], 4 up
///   to [`CACHED64_HULL_VERTICES`], 7 up to [`GRIDDED32_HULL_VERTICES`], 2
///   above.
pub(super) fn body_class(shape: &Shape, kinds: HullKinds, gridded: bool) -> u8 {
    let hull = match shape {
        Shape::Hull(hull) => hull,
        Shape::Sphere(_) => return SPHERE_CLASS,
        Shape::RoundedHull(_) => return ROUNDED_CLASS,
        Shape::Capsule(_) => return CAPSULE_CLASS,
    };
    let flag = if gridded { 0 } else { NO_GRID };
    let flag = if hull.lanes().box_regions.is_some() {
        flag | BOX_CLASS
    } else {
        flag
    };
    let vertices = hull.vertices().len();
    flag | match kinds {
        HullKinds::Hardware if vertices <= WIDE_HULL_VERTICES => 0,
        HullKinds::Hardware => 8,
        HullKinds::HardwareOnSoftware => match vertices {
            v if v <= LOOP_PARTNER_VERTICES => 0,
            v if v <= WIDE_HULL_VERTICES => 9,
            v if v <= LOOP_KINDS_SOFTWARE_MOST => 10,
            _ => 11,
        },
        HullKinds::Software => match vertices {
            v if v <= SMALL_HULL_VERTICES => 5,
            v if v <= CACHED16_HULL_VERTICES => 6,
            v if v <= CACHED_HULL_VERTICES => 3,
            v if v <= CACHED64_HULL_VERTICES => 4,
            v if v <= GRIDDED32_HULL_VERTICES => 7,
            _ => 2,
        },
    }
}

/// The entry point of two classes: 0 `hulls`, 1 `hull_sphere` (either
/// order), 2 `spheres`, 3 `hulls_large` (a large hull with any hull), 4
/// `hulls_cached` (classes 3 and 6, one of them 3), 5 `hulls_cached64`
/// (classes 3, 4 and 6, one of them 4), 6 `hulls_gridded` (a large hull
/// with any hull, both with a grid the kernel can use), 7 `hulls_small`
/// (two hulls of class 5), 8 `hulls_cached16` (two hulls of class 6), 9
/// `hulls_gridded32` (a hull of class 7 with any hull but a class 2 one,
/// both with grids), 10 `hulls_large_loops` (a hull of class 8 with a hull
/// of class 0 or 8, or of class 10 with one of class 0), 11
/// `hulls_gridded_loops` (the same, both with grids), 12 `rounded` (a
/// rounded hull with a hull, a rounded hull or a sphere), 13
/// `hull_capsule` (a capsule with a hull or a rounded hull), 14 `capsules`
/// (a capsule with a capsule or a sphere), 15 `boxes` (two boxes, both
/// with [`BOX_CLASS`]).
pub(super) fn kind_of(a: u8, b: u8) -> u8 {
    if a & b & BOX_CLASS != 0 {
        return BOXES_KIND;
    }
    let (a, b) = (a & !BOX_CLASS, b & !BOX_CLASS);
    let gridded = (a | b) & NO_GRID == 0;
    let (large, loops) = if gridded { (6, 11) } else { (3, 10) };
    match (a & !NO_GRID, b & !NO_GRID) {
        (CAPSULE_CLASS, CAPSULE_CLASS | SPHERE_CLASS) | (SPHERE_CLASS, CAPSULE_CLASS) => {
            CAPSULES_KIND
        }
        (CAPSULE_CLASS, _) | (_, CAPSULE_CLASS) => HULL_CAPSULE_KIND,
        (ROUNDED_CLASS, _) | (_, ROUNDED_CLASS) => ROUNDED_KIND,
        (1, 1) => 2,
        (1, _) | (_, 1) => 1,
        (8, 0 | 8) | (0, 8) | (10, 0) | (0, 10) => loops,
        (10 | 11, _) | (_, 10 | 11) => large,
        (0 | 9, 0 | 9) => 0,
        (6, 6) => 8,
        (3 | 6, 3 | 6) => 4,
        (3 | 4 | 6, 3 | 4 | 6) => 5,
        (5, 5) => 7,
        (0 | 3 | 4 | 5 | 6, 0 | 3 | 4 | 5 | 6) => 0,
        (0 | 3..=7, 0 | 3..=7) if gridded => 9,
        _ => large,
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    /// Hulls of up to 8, 9 to 32 and 33 to 64 vertices take the cached
    /// kinds only on a software adapter, and only against each other.
    #[test]
    fn the_cached_kind_is_for_software_adapters_and_mid_sized_hulls() {
        use crate::d3::{Hull, Sphere};
        let hull = |n: usize| {
            let points: Vec<Vec3> = (0..n)
                .map(|k| {
                    let (t, z) = (
                        k as f32 * 2.399_963,
                        1.0 - 2.0 * (k as f32 + 0.5) / n as f32,
                    );
                    let r = (1.0 - z * z).sqrt();
                    Vec3::new(r * t.cos(), r * t.sin(), z)
                })
                .collect();
            Shape::Hull(Hull::new(&points).expect("points on a sphere hull"))
        };
        let sphere = Shape::Sphere(Sphere::new(1.0).expect("a valid radius"));
        let cases = [
            (
                Shape::Hull(Hull::cuboid(Vec3::ONE).expect("a valid box")),
                BOX_CLASS,
                BOX_CLASS | 5,
            ),
            (hull(4), 0, 5),
            (hull(8), 0, 5),
            (hull(9), 0, 6),
            (hull(16), 0, 6),
            (hull(17), 0, 3),
            (hull(32), 0, 3),
            (hull(33), 0, 4),
            (hull(64), 0, 4),
            (hull(65), 8, 7),
            (hull(128), 8, 7),
            (hull(129), 8, 2),
            (sphere, 1, 1),
        ];
        for (shape, on_gpu, on_software) in &cases {
            let vertices = shape.hull().map_or(0, |hull| hull.vertices().len());
            assert_eq!(
                (
                    body_class(shape, HullKinds::Hardware, true),
                    body_class(shape, HullKinds::Software, true)
                ),
                (*on_gpu, *on_software),
                "a shape of {vertices} vertices: (GPU, software) classes"
            );
        }
        assert_eq!(kind_of(3, 3), 4, "two mid-sized hulls: hulls_cached");
        assert_eq!(kind_of(5, 5), 7, "two hulls of at most 8: hulls_small");
        assert_eq!(kind_of(6, 6), 8, "two up to 16: hulls_cached16");
        assert_eq!(kind_of(6, 3), 4, "up to 16 and up to 32: hulls_cached");
        assert_eq!(kind_of(3, 6), 4, "up to 32 and up to 16: hulls_cached");
        assert_eq!(kind_of(6, 4), 5, "up to 16 and up to 64: hulls_cached64");
        assert_eq!(kind_of(6, 5), 0, "up to 16 and a box: hulls");
        assert_eq!(kind_of(0, 0), 0, "two boxes on a GPU: hulls");
        assert_eq!(kind_of(3, 5), 0, "a mid-sized hull and a box: hulls");
        assert_eq!(kind_of(5, 3), 0, "a box and a mid-sized hull: hulls");
        assert_eq!(kind_of(5, 4), 0, "a box and up to 64: hulls");
        assert_eq!(kind_of(5, 1), 1, "a box and a sphere: hull_sphere");
        assert_eq!(kind_of(5, 2), 6, "a box and a large hull: hulls_gridded");
        assert_eq!(kind_of(3, 4), 5, "up to 32 and up to 64: hulls_cached64");
        assert_eq!(kind_of(4, 4), 5, "two up to 64: hulls_cached64");
        assert_eq!(kind_of(4, 0), 0, "up to 64 and a box: hulls");
        assert_eq!(
            kind_of(3, 2),
            6,
            "a mid-sized and a large hull with grids: hulls_gridded"
        );
        assert_eq!(
            kind_of(3, 2 | NO_GRID),
            3,
            "a mid-sized hull and a large one without a grid: hulls_large"
        );
        assert_eq!(
            kind_of(1, 3),
            1,
            "a sphere and a mid-sized hull: hull_sphere"
        );
        assert_eq!(kind_of(7, 7), 9, "two up to 128: hulls_gridded32");
        assert_eq!(kind_of(7, 5), 9, "up to 128 and a box: hulls_gridded32");
        assert_eq!(kind_of(3, 7), 9, "up to 32 and up to 128: hulls_gridded32");
        assert_eq!(kind_of(7, 2), 6, "up to 128 and larger: hulls_gridded");
        assert_eq!(
            kind_of(7, 7 | NO_GRID),
            3,
            "up to 128, one without a grid: hulls_large"
        );
        assert_eq!(kind_of(7, 1), 1, "up to 128 and a sphere: hull_sphere");
        let boxed = BOX_CLASS | 5;
        assert_eq!(kind_of(boxed, boxed), BOXES_KIND, "two boxes: boxes");
        assert_eq!(
            kind_of(BOX_CLASS, BOX_CLASS),
            BOXES_KIND,
            "two boxes: boxes"
        );
        assert_eq!(kind_of(boxed, 5), 7, "a box and a small hull: hulls_small");
        assert_eq!(kind_of(6, boxed), 0, "up to 16 and a box: hulls");
        assert_eq!(kind_of(boxed, 7), 9, "a box and up to 128: hulls_gridded32");
        assert_eq!(kind_of(1, boxed), 1, "a sphere and a box: hull_sphere");
        assert_eq!(
            kind_of(BOX_CLASS, 8),
            11,
            "a box and a large hull: the loops"
        );
        let capsule =
            Shape::Capsule(crate::d3::Capsule::new(Vec3::ZERO, Vec3::X, 0.1).expect("a capsule"));
        let rounded = Shape::RoundedHull(
            crate::d3::RoundedHull::cuboid(Vec3::ONE, 0.1).expect("a rounded box"),
        );
        let (capsule, rounded) = (
            body_class(&capsule, HullKinds::Software, false),
            body_class(&rounded, HullKinds::Software, true),
        );
        for (a, b, kind, what) in [
            (capsule, capsule, CAPSULES_KIND, "two capsules"),
            (
                capsule,
                SPHERE_CLASS,
                CAPSULES_KIND,
                "a capsule and a sphere",
            ),
            (
                SPHERE_CLASS,
                capsule,
                CAPSULES_KIND,
                "a sphere and a capsule",
            ),
            (capsule, 5, HULL_CAPSULE_KIND, "a capsule and a box"),
            (
                2 | NO_GRID,
                capsule,
                HULL_CAPSULE_KIND,
                "a large hull and a capsule",
            ),
            (
                capsule,
                rounded,
                HULL_CAPSULE_KIND,
                "a capsule and a rounded box",
            ),
            (rounded, rounded, ROUNDED_KIND, "two rounded boxes"),
            (
                rounded,
                SPHERE_CLASS,
                ROUNDED_KIND,
                "a rounded box and a sphere",
            ),
            (3, rounded, ROUNDED_KIND, "a hull and a rounded box"),
        ] {
            assert_eq!(kind_of(a, b), kind, "{what}");
        }
    }

    /// A hardware GPU's large hulls take the loop kinds with every hull;
    /// the hardware kinds forced on a software adapter take them only
    /// where lavapipe's loop limit allows (a large hull of up to 128
    /// vertices with one of up to 8), the straight-line large kinds for
    /// the other large pairs.
    #[test]
    fn the_loop_kinds_are_the_hardware_gpus_large_kinds() {
        use HullKinds::{Hardware, HardwareOnSoftware};
        let mut random = crate::generate::rng(9);
        let hull =
            |random: &mut _, n| Shape::Hull(crate::generate::d3::random_hull(random, n, 1.0, 1.0));
        let cuboid = Shape::Hull(Hull::cuboid(Vec3::ONE).expect("a valid box"));
        let (mid, large, larger) = (
            hull(&mut random, 32),
            hull(&mut random, 128),
            hull(&mut random, 200),
        );
        let kind = |kinds, a: &Shape, b: &Shape| {
            kind_of(body_class(a, kinds, true), body_class(b, kinds, true))
        };
        for (a, b) in [
            (&large, &cuboid),
            (&cuboid, &large),
            (&large, &mid),
            (&larger, &large),
            (&mid, &larger),
        ] {
            assert_eq!(
                kind(Hardware, a, b),
                11,
                "a large pair on a GPU: hulls_gridded_loops"
            );
        }
        assert_eq!(
            kind_of(
                body_class(&large, Hardware, false),
                body_class(&cuboid, Hardware, true)
            ),
            10,
            "a large hull without a grid on a GPU: hulls_large_loops"
        );
        assert_eq!(kind(Hardware, &mid, &cuboid), 0, "hulls");
        assert_eq!(
            kind(HardwareOnSoftware, &large, &cuboid),
            11,
            "forced: loops"
        );
        assert_eq!(
            kind(HardwareOnSoftware, &cuboid, &large),
            11,
            "forced: loops"
        );
        assert_eq!(
            kind(HardwareOnSoftware, &large, &mid),
            6,
            "forced, a mid partner: straight-line"
        );
        assert_eq!(
            kind(HardwareOnSoftware, &larger, &cuboid),
            6,
            "forced, over 128: straight-line"
        );
        assert_eq!(
            kind(HardwareOnSoftware, &large, &large),
            6,
            "forced, two large: straight-line"
        );
        assert_eq!(kind(HardwareOnSoftware, &mid, &cuboid), 0, "forced: hulls");
        assert_eq!(kind(HardwareOnSoftware, &mid, &mid), 0, "forced: hulls");
    }

    /// Random hulls and boxes go up with a grid (a box's: one cell, every
    /// vertex in each square); a cylinder's rims list more than
    /// [`GPU_GRID_LIST_MAX`] vertices in a square, so it goes without, and
    /// its pairs with a large hull take `hulls_large`, not `hulls_gridded`.
    #[test]
    fn grids_go_up_where_their_lists_are_short() {
        let mut random = crate::generate::rng(5);
        let round = crate::generate::d3::random_hull(&mut random, 128, 1.0, 1.0);
        let (cells, lists) = gpu_grid(&round).expect("a round hull's grid");
        assert_eq!(cells, round.gauss_grid().expect("a grid").cells());
        assert_eq!(lists.len(), (6 * cells * cells) as usize);
        let cuboid = Hull::cuboid(Vec3::ONE).expect("a valid box");
        let (cells, lists) = gpu_grid(&cuboid).expect("a box's grid");
        assert_eq!((cells, lists.len()), (1, 6));
        assert!(lists.iter().all(|list| list == &[0, 1, 2, 3, 4, 5, 6, 7]));
        let rims: Vec<Vec3> = (0..128)
            .map(|k| {
                let angle = std::f32::consts::TAU * (k % 64) as f32 / 64.0;
                Vec3::new(angle.cos(), if k < 64 { -0.6 } else { 0.6 }, angle.sin())
            })
            .collect();
        let cylinder = Hull::new(&rims).expect("a cylinder");
        assert!(gpu_grid(&cylinder).is_none(), "the cylinder's grid went up");
        let (round_class, cylinder_class) = (
            body_class(&Shape::Hull(round), HullKinds::Software, true),
            body_class(&Shape::Hull(cylinder), HullKinds::Software, false),
        );
        assert_eq!(kind_of(round_class, round_class), 9, "hulls_gridded32");
        assert_eq!(
            kind_of(round_class, 0),
            9,
            "a large and a small hull with grids"
        );
        let larger = crate::generate::d3::random_hull(&mut random, 200, 1.0, 1.0);
        let larger_class = body_class(&Shape::Hull(larger), HullKinds::Software, true);
        assert_eq!(kind_of(larger_class, round_class), 6, "hulls_gridded");
        assert_eq!(kind_of(round_class, cylinder_class), 3, "hulls_large");
        assert_eq!(kind_of(cylinder_class, 1), 1, "hull_sphere");
        assert_eq!(
            kind_of(round_class, NO_GRID),
            3,
            "a mid-sized hull without a grid"
        );
    }
}
