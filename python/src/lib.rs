//! `gpusat._gpusat`: the extension module under the Python package `gpusat`
//! (`python/gpusat/`), numpy arrays in and out.
//!
//! Each call copies what it must out of the caller's arrays (the bodies,
//! which the library holds as structures), borrows what it can (candidate
//! pairs in a C-contiguous `uint32` array of shape `(M, 2)` are the
//! library's `Pair`s as they lie), releases the GIL, runs the library, and
//! builds the result arrays from the library's own values: a result is bit
//! for bit what the Rust API returns. The package's Python layer converts
//! arrays to the dtypes and layouts taken here (without a copy when they are
//! already right) and turns errors into the `gpusat.Error` classes.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use gpusat::glam::{Quat, Vec2, Vec3};
use gpusat::{BackendKind, Pair, PairFilter, d2, d3};
use numpy::{
    IntoPyArray, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

/// A library error as the package's exception class of the same name
/// (`gpusat._errors`), carrying the message and, where the library names
/// one, the index of the shape, body or pair at fault.
fn raise(py: Python<'_>, error: gpusat::Error) -> PyErr {
    let (class, index) = match &error {
        gpusat::Error::Shape { index, .. } => ("ShapeError", Some(*index)),
        gpusat::Error::Body { index, .. } => ("BodyError", Some(*index)),
        gpusat::Error::Pair { index, .. } => ("PairError", Some(*index)),
        gpusat::Error::Margin { .. }
        | gpusat::Error::Argument { .. }
        | gpusat::Error::Input { .. }
        | gpusat::Error::InFile { .. } => ("InputError", None),
        gpusat::Error::Io { .. } => ("SceneFileError", None),
        gpusat::Error::Gpu(_) => ("GpuError", None),
        _ => ("Error", None),
    };
    let message = error.to_string();
    match py
        .import("gpusat._errors")
        .and_then(|errors| errors.getattr(class))
        .and_then(|class| class.call1((message.clone(), index)))
    {
        Ok(value) => PyErr::from_value(value),
        Err(_) => PyRuntimeError::new_err(message),
    }
}

/// An argument error of the Python layer's own checks (`InputError`).
fn input_error(py: Python<'_>, name: &'static str, message: String) -> PyErr {
    raise(py, gpusat::Error::Argument { name, message })
}

fn backend_kind(py: Python<'_>, name: &str) -> PyResult<BackendKind> {
    Ok(match name {
        "cpu" => BackendKind::Cpu,
        "cpu-parallel" => BackendKind::CpuParallel,
        "gpu" => BackendKind::Gpu,
        "auto" => BackendKind::Auto,
        other => {
            return Err(input_error(
                py,
                "backend",
                format!("{other:?} is not one of \"cpu\", \"cpu-parallel\", \"gpu\", \"auto\""),
            ));
        }
    })
}

/// The 2D shape library: every shape once, bodies refer to them by index.
#[pyclass(name = "Shapes2D", module = "gpusat._gpusat", frozen, subclass)]
struct Shapes2D {
    set: Mutex<d2::ShapeSet>,
}

#[pymethods]
impl Shapes2D {
    #[new]
    fn new() -> Shapes2D {
        Shapes2D {
            set: Mutex::new(d2::ShapeSet::new()),
        }
    }

    /// Adds a convex polygon (its convex hull) of `(k, 2)` points, grown by
    /// `radius`; returns its index.
    fn add_polygon(
        &self,
        py: Python<'_>,
        points: PyReadonlyArray2<'_, f32>,
        radius: f32,
    ) -> PyResult<u32> {
        let points = points_2d(py, &points)?;
        locked(py, &self.set, |set| {
            if radius == 0.0 {
                set.add_polygon(&points)
            } else {
                set.add_rounded_polygon(&points, radius)
            }
        })
    }

    /// Adds a circle; returns its index.
    fn add_circle(&self, py: Python<'_>, radius: f32) -> PyResult<u32> {
        locked(py, &self.set, |set| set.add_circle(radius))
    }

    /// Adds a capsule, the segment from `a` to `b` grown by `radius`.
    fn add_capsule(&self, py: Python<'_>, a: [f32; 2], b: [f32; 2], radius: f32) -> PyResult<u32> {
        locked(py, &self.set, |set| {
            set.add_capsule(Vec2::from(a), Vec2::from(b), radius)
        })
    }

    /// Adds a segment from `a` to `b` (no area).
    fn add_segment(&self, py: Python<'_>, a: [f32; 2], b: [f32; 2]) -> PyResult<u32> {
        locked(py, &self.set, |set| {
            set.add_segment(Vec2::from(a), Vec2::from(b))
        })
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        locked(py, &self.set, |set| Ok(set.len()))
    }
}

/// The 3D shape library.
#[pyclass(name = "Shapes3D", module = "gpusat._gpusat", frozen, subclass)]
struct Shapes3D {
    set: Mutex<d3::ShapeSet>,
}

#[pymethods]
impl Shapes3D {
    #[new]
    fn new() -> Shapes3D {
        Shapes3D {
            set: Mutex::new(d3::ShapeSet::new()),
        }
    }

    /// Adds the convex hull of a `(k, 3)` point cloud, grown by `radius`.
    fn add_hull(
        &self,
        py: Python<'_>,
        points: PyReadonlyArray2<'_, f32>,
        radius: f32,
    ) -> PyResult<u32> {
        let points = points_3d(py, &points)?;
        locked(py, &self.set, |set| {
            if radius == 0.0 {
                set.add_hull(&points)
            } else {
                set.add_rounded_hull(&points, radius)
            }
        })
    }

    /// Adds a box of these half extents, grown by `radius`.
    fn add_cuboid(&self, py: Python<'_>, half_extents: [f32; 3], radius: f32) -> PyResult<u32> {
        let half_extents = Vec3::from(half_extents);
        locked(py, &self.set, |set| {
            if radius == 0.0 {
                set.add_cuboid(half_extents)
            } else {
                set.add_rounded_cuboid(half_extents, radius)
            }
        })
    }

    /// Adds a sphere.
    fn add_sphere(&self, py: Python<'_>, radius: f32) -> PyResult<u32> {
        locked(py, &self.set, |set| set.add_sphere(radius))
    }

    /// Adds a capsule, the segment from `a` to `b` grown by `radius`.
    fn add_capsule(&self, py: Python<'_>, a: [f32; 3], b: [f32; 3], radius: f32) -> PyResult<u32> {
        locked(py, &self.set, |set| {
            set.add_capsule(Vec3::from(a), Vec3::from(b), radius)
        })
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        locked(py, &self.set, |set| Ok(set.len()))
    }
}

/// `f` on a mutex's contents, the lock taken and let go with the GIL
/// released: a thread holding one of these locks never waits for the GIL
/// (which another thread, waiting for the lock, could hold), and an error
/// becomes a Python exception only after the lock is let go.
fn locked<T: Send, R: Send>(
    py: Python<'_>,
    mutex: &Mutex<T>,
    f: impl FnOnce(&mut T) -> gpusat::Result<R> + Send,
) -> PyResult<R> {
    py.detach(|| f(&mut lock(mutex))).map_err(|e| raise(py, e))
}

/// A mutex's contents, whether or not a panic poisoned it (nothing here
/// leaves a shape library half-changed).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn points_2d(py: Python<'_>, points: &PyReadonlyArray2<'_, f32>) -> PyResult<Vec<Vec2>> {
    let view = points.as_array();
    if view.ncols() != 2 {
        return Err(input_error(
            py,
            "points",
            format!("has shape {:?}, not (k, 2)", view.shape()),
        ));
    }
    Ok(view
        .rows()
        .into_iter()
        .map(|r| Vec2::new(r[0], r[1]))
        .collect())
}

fn points_3d(py: Python<'_>, points: &PyReadonlyArray2<'_, f32>) -> PyResult<Vec<Vec3>> {
    let view = points.as_array();
    if view.ncols() != 3 {
        return Err(input_error(
            py,
            "points",
            format!("has shape {:?}, not (k, 3)", view.shape()),
        ));
    }
    Ok(view
        .rows()
        .into_iter()
        .map(|r| Vec3::new(r[0], r[1], r[2]))
        .collect())
}

/// The bodies' arrays, as the package's Python layer hands them over:
/// C-contiguous `float32` (`uint32` for the shape indices), of one length.
struct BodyArrays<'py> {
    positions: PyReadonlyArray2<'py, f32>,
    rotations: PyReadonlyArray2<'py, f32>,
    shape_ids: PyReadonlyArray1<'py, u32>,
    inv_mass: Option<PyReadonlyArray1<'py, f32>>,
}

impl BodyArrays<'_> {
    /// Checks the arrays' shapes: `positions` `(N, dim)`, `rotations`
    /// `(N, 1)` (2D angles) or `(N, 4)` (3D quaternions, x y z w),
    /// `shape_ids` and `inv_mass` `(N,)`.
    fn count(&self, py: Python<'_>, dim: usize) -> PyResult<usize> {
        let n = self.positions.shape()[0];
        let rotation_width = if dim == 2 { 1 } else { 4 };
        let bad = |name: &'static str, shape: &[usize], want: String| {
            input_error(py, name, format!("has shape {shape:?}, not {want}"))
        };
        if self.positions.shape()[1] != dim {
            return Err(bad(
                "positions",
                self.positions.shape(),
                format!("(N, {dim})"),
            ));
        }
        if self.rotations.shape() != [n, rotation_width] {
            let want = if dim == 2 {
                format!("({n},)")
            } else {
                format!("({n}, 4)")
            };
            return Err(bad("rotations", self.rotations.shape(), want));
        }
        if self.shape_ids.shape() != [n] {
            return Err(bad("shape_ids", self.shape_ids.shape(), format!("({n},)")));
        }
        if let Some(inv_mass) = &self.inv_mass
            && inv_mass.shape() != [n]
        {
            return Err(bad("inv_mass", inv_mass.shape(), format!("({n},)")));
        }
        Ok(n)
    }

    fn bodies_2d(&self, py: Python<'_>) -> PyResult<Vec<d2::Body>> {
        let n = self.count(py, 2)?;
        let (positions, angles) = (self.positions.as_array(), self.rotations.as_array());
        let (shapes, inv_mass) = (self.shape_ids.as_array(), self.inv_mass.as_ref());
        let inv_mass = inv_mass.map(|m| m.as_array());
        Ok((0..n)
            .map(|i| {
                let mut body = d2::Body::new(
                    shapes[i],
                    Vec2::new(positions[[i, 0]], positions[[i, 1]]),
                    angles[[i, 0]],
                );
                if let Some(inv_mass) = &inv_mass {
                    body.inv_mass = inv_mass[i];
                }
                body
            })
            .collect())
    }

    fn bodies_3d(&self, py: Python<'_>) -> PyResult<Vec<d3::Body>> {
        let n = self.count(py, 3)?;
        let (positions, rotations) = (self.positions.as_array(), self.rotations.as_array());
        let (shapes, inv_mass) = (self.shape_ids.as_array(), self.inv_mass.as_ref());
        let inv_mass = inv_mass.map(|m| m.as_array());
        Ok((0..n)
            .map(|i| {
                let q = Quat::from_xyzw(
                    rotations[[i, 0]],
                    rotations[[i, 1]],
                    rotations[[i, 2]],
                    rotations[[i, 3]],
                );
                let mut body = d3::Body::new(
                    shapes[i],
                    Vec3::new(positions[[i, 0]], positions[[i, 1]], positions[[i, 2]]),
                    q,
                );
                if let Some(inv_mass) = &inv_mass {
                    body.inv_mass = inv_mass[i];
                }
                body
            })
            .collect())
    }
}

/// Candidate pairs `(M, 2)`, C-contiguous `uint32`, as the library's pairs
/// without a copy.
fn pairs_of<'a>(py: Python<'_>, pairs: &'a PyReadonlyArray2<'_, u32>) -> PyResult<&'a [Pair]> {
    if pairs.shape()[1] != 2 {
        return Err(input_error(
            py,
            "pairs",
            format!("has shape {:?}, not (M, 2)", pairs.shape()),
        ));
    }
    let flat = pairs
        .as_slice()
        .map_err(|_| input_error(py, "pairs", "is not C-contiguous".into()))?;
    Ok(gpusat_pairs(flat))
}

/// `[a0, b0, a1, b1, ...]` as pairs: `Pair` is two `u32`s, `repr(C)`.
fn gpusat_pairs(flat: &[u32]) -> &[Pair] {
    bytemuck::cast_slice(flat)
}

/// What one call computed, the library's own values, before they become
/// arrays.
enum Outcome {
    D2(Vec<d2::Hit>, Option<Vec<d2::Manifold>>),
    D3(Vec<d3::Hit>, Option<Vec<d3::Manifold>>),
}

/// Result buffers kept for reuse. A result's arrays are views of one
/// buffer owned by a [`Buffer`] object; when numpy lets go of the last of
/// them the buffer comes back here, its pages still mapped, and the next
/// result is written into memory the system need not hand out (and zero)
/// again: at a million hits, tens of megabytes a call.
static POOL: Mutex<Vec<Vec<u32>>> = Mutex::new(Vec::new());

/// Buffers the pool keeps at most (the largest ones).
const POOL_BUFFERS: usize = 4;

/// Words the pool keeps at most in all (1 GiB).
const POOL_WORDS: usize = 1 << 28;

/// A buffer of at least `words` words from the pool (the smallest that
/// fits, if no more than four times as large: a small result does not hold
/// a large buffer), or a new one; its contents are stale until written.
fn take_buffer(words: usize) -> Vec<u32> {
    if words == 0 {
        return Vec::new();
    }
    let mut pool = lock(&POOL);
    let fitting = (0..pool.len())
        .filter(|&k| pool[k].len() >= words && pool[k].len() / 4 <= words)
        .min_by_key(|&k| pool[k].len());
    match fitting {
        Some(k) => pool.swap_remove(k),
        None => vec![0; words],
    }
}

/// Gives a buffer back: the pool keeps the largest, within its limits.
fn give_back(words: Vec<u32>) {
    if words.is_empty() {
        return;
    }
    let mut pool = lock(&POOL);
    pool.push(words);
    pool.sort_by_key(|buffer| std::cmp::Reverse(buffer.len()));
    let mut kept = 0;
    pool.retain(|buffer| {
        let keep = kept + buffer.len() <= POOL_WORDS;
        if keep {
            kept += buffer.len();
        }
        keep
    });
    pool.truncate(POOL_BUFFERS);
}

/// The owner of a result's buffer, which its arrays borrow.
#[pyclass(module = "gpusat._gpusat", frozen)]
struct Buffer {
    words: Mutex<Vec<u32>>,
}

impl Drop for Buffer {
    fn drop(&mut self) {
        give_back(std::mem::take(&mut *lock(&self.words)));
    }
}

/// Where each column lies in a result's buffer, in words.
#[derive(Clone, Copy)]
struct Layout {
    hits: usize,
    dim: usize,
    max_points: usize,
    contacts: bool,
}

impl Layout {
    /// The columns' lengths in words, in buffer order: pair, a, b, normal,
    /// depth, axis, then with contacts points, point depths, point ids and
    /// the counts (bytes, four a word).
    fn words(self) -> [usize; 10] {
        let (h, d, p) = (self.hits, self.dim, self.max_points);
        let c = usize::from(self.contacts);
        [
            h,
            h,
            h,
            h * d,
            h,
            h,
            c * h * p * d,
            c * h * p,
            c * h * p,
            c * h.div_ceil(4),
        ]
    }

    fn total(self) -> usize {
        self.words().iter().sum()
    }
}

/// One stretch of hits' rows in every column.
struct Rows<'a> {
    pair: &'a mut [u32],
    a: &'a mut [u32],
    b: &'a mut [u32],
    normal: &'a mut [f32],
    depth: &'a mut [f32],
    axis: &'a mut [u32],
    points: Option<PointRows<'a>>,
}

/// The contact points' columns of one stretch of rows.
struct PointRows<'a> {
    points: &'a mut [f32],
    depth: &'a mut [f32],
    id: &'a mut [u32],
    count: &'a mut [u8],
}

impl<'a> Rows<'a> {
    /// Every column of a buffer laid out by `layout`.
    fn of_buffer(words: &'a mut [u32], layout: Layout) -> Rows<'a> {
        let [
            pair,
            a,
            b,
            normal,
            depth,
            axis,
            points,
            point_depth,
            id,
            count,
        ] = layout.words();
        let (pair_words, rest) = words.split_at_mut(pair);
        let (a_words, rest) = rest.split_at_mut(a);
        let (b_words, rest) = rest.split_at_mut(b);
        let (normal_words, rest) = rest.split_at_mut(normal);
        let (depth_words, rest) = rest.split_at_mut(depth);
        let (axis_words, rest) = rest.split_at_mut(axis);
        let (points_words, rest) = rest.split_at_mut(points);
        let (point_depth_words, rest) = rest.split_at_mut(point_depth);
        let (id_words, rest) = rest.split_at_mut(id);
        let count_words = &mut rest[..count];
        Rows {
            pair: pair_words,
            a: a_words,
            b: b_words,
            normal: bytemuck::cast_slice_mut(normal_words),
            depth: bytemuck::cast_slice_mut(depth_words),
            axis: axis_words,
            points: layout.contacts.then(|| PointRows {
                points: bytemuck::cast_slice_mut(points_words),
                depth: bytemuck::cast_slice_mut(point_depth_words),
                id: id_words,
                count: &mut bytemuck::cast_slice_mut(count_words)[..layout.hits],
            }),
        }
    }

    /// The first `k` hits' rows, and the rest.
    fn split(self, k: usize, dim: usize, max_points: usize) -> (Rows<'a>, Rows<'a>) {
        let (pair, pair_rest) = self.pair.split_at_mut(k);
        let (a, a_rest) = self.a.split_at_mut(k);
        let (b, b_rest) = self.b.split_at_mut(k);
        let (normal, normal_rest) = self.normal.split_at_mut(k * dim);
        let (depth, depth_rest) = self.depth.split_at_mut(k);
        let (axis, axis_rest) = self.axis.split_at_mut(k);
        let (points, points_rest) = match self.points {
            Some(p) => {
                let (points, points_rest) = p.points.split_at_mut(k * max_points * dim);
                let (depth, depth_rest) = p.depth.split_at_mut(k * max_points);
                let (id, id_rest) = p.id.split_at_mut(k * max_points);
                let (count, count_rest) = p.count.split_at_mut(k);
                (
                    Some(PointRows {
                        points,
                        depth,
                        id,
                        count,
                    }),
                    Some(PointRows {
                        points: points_rest,
                        depth: depth_rest,
                        id: id_rest,
                        count: count_rest,
                    }),
                )
            }
            None => (None, None),
        };
        (
            Rows {
                pair,
                a,
                b,
                normal,
                depth,
                axis,
                points,
            },
            Rows {
                pair: pair_rest,
                a: a_rest,
                b: b_rest,
                normal: normal_rest,
                depth: depth_rest,
                axis: axis_rest,
                points: points_rest,
            },
        )
    }
}

/// Hits a task of the parallel fill writes.
const FILL_CHUNK: usize = 1 << 14;

/// A result's columns in one buffer (filled with the GIL released: see
/// `Columns::of`); `into_dict` makes the arrays, views of the buffer.
struct Columns {
    layout: Layout,
    words: Vec<u32>,
}

impl Columns {
    /// The columns of the library's hits and manifolds, filled by chunks
    /// of hits on rayon's threads (a result of a million hits is tens of
    /// megabytes to write), every element written.
    fn of(outcome: &Outcome) -> Columns {
        macro_rules! fill {
            ($hits:expr, $manifolds:expr, $dim:expr, $max_points:expr) => {{
                let (hits, manifolds) = ($hits, $manifolds);
                let (dim, max_points) = ($dim, $max_points);
                let layout = Layout {
                    hits: hits.len(),
                    dim,
                    max_points,
                    contacts: manifolds.is_some(),
                };
                let mut words = take_buffer(layout.total());
                let mut tasks = Vec::new();
                let mut rest = Rows::of_buffer(&mut words, layout);
                let mut start = 0;
                while start < hits.len() {
                    let end = (start + FILL_CHUNK).min(hits.len());
                    let (rows, after) = rest.split(end - start, dim, max_points);
                    tasks.push((start..end, rows));
                    rest = after;
                    start = end;
                }
                tasks.into_par_iter().for_each(|(range, rows)| {
                    let Rows {
                        pair,
                        a,
                        b,
                        normal,
                        depth,
                        axis,
                        mut points,
                    } = rows;
                    let hits = &hits[range.clone()];
                    // Slices of the hits' length: the loop's indices need no checks.
                    let n = hits.len();
                    let (pair, a, b) = (&mut pair[..n], &mut a[..n], &mut b[..n]);
                    let (depth, axis) = (&mut depth[..n], &mut axis[..n]);
                    for (k, hit) in hits.iter().enumerate() {
                        pair[k] = hit.pair;
                        a[k] = hit.a;
                        b[k] = hit.b;
                        depth[k] = hit.depth;
                        axis[k] = hit.axis.pack();
                    }
                    for (slot, hit) in normal.chunks_exact_mut(dim).zip(hits) {
                        slot.copy_from_slice(&hit.normal.to_array());
                    }
                    if let (Some(out), Some(manifolds)) = (points.as_mut(), manifolds) {
                        let rows = out
                            .points
                            .chunks_exact_mut(max_points * dim)
                            .zip(out.depth.chunks_exact_mut(max_points))
                            .zip(out.id.chunks_exact_mut(max_points))
                            .zip(out.count.iter_mut())
                            .zip(&manifolds[range]);
                        for ((((xyz, depths), ids), count), manifold) in rows {
                            let found = manifold.points();
                            *count = found.len() as u8;
                            xyz.fill(f32::NAN);
                            depths.fill(f32::NAN);
                            ids.fill(0);
                            for (j, point) in found.iter().enumerate() {
                                xyz[j * dim..(j + 1) * dim]
                                    .copy_from_slice(&point.point.to_array());
                                depths[j] = point.depth;
                                ids[j] = point.id;
                            }
                        }
                    }
                });
                Columns { layout, words }
            }};
        }
        match outcome {
            Outcome::D2(hits, manifolds) => fill!(hits, manifolds.as_ref(), 2, 2),
            Outcome::D3(hits, manifolds) => fill!(hits, manifolds.as_ref(), 3, 4),
        }
    }

    /// The dict of arrays `gpusat.Hits` wraps, each a view of the buffer
    /// (which a `Buffer` owns, kept alive by the arrays); `seconds` is the
    /// time spent in the library with the GIL released.
    fn into_dict<'py>(
        self,
        py: Python<'py>,
        pairs_tested: usize,
        seconds: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let Columns { layout, mut words } = self;
        let (h, dim, points) = (layout.hits, layout.dim, layout.max_points);
        let rows = Rows::of_buffer(&mut words, layout);
        // Raw views: the arrays outlive this function's borrows, and the
        // buffer moves into its owner below (its heap memory does not).
        // From the mutable slices: numpy's arrays are writeable.
        let view_u32 = |slice: &mut [u32], shape: &[usize]| (slice.as_mut_ptr(), shape.to_vec());
        let view_f32 = |slice: &mut [f32], shape: &[usize]| (slice.as_mut_ptr(), shape.to_vec());
        let u32_columns = [
            ("pair", view_u32(rows.pair, &[h])),
            ("a", view_u32(rows.a, &[h])),
            ("b", view_u32(rows.b, &[h])),
            ("axis", view_u32(rows.axis, &[h])),
        ];
        let f32_columns = [
            ("normal", view_f32(rows.normal, &[h, dim])),
            ("depth", view_f32(rows.depth, &[h])),
        ];
        let point_columns = rows.points.map(|p| {
            (
                view_f32(p.points, &[h, points, dim]),
                view_f32(p.depth, &[h, points]),
                view_u32(p.id, &[h, points]),
                (p.count.as_mut_ptr(), vec![h]),
            )
        });
        let owner = Bound::new(
            py,
            Buffer {
                words: Mutex::new(words),
            },
        )?
        .into_any();
        let dict = PyDict::new(py);
        dict.set_item("pairs_tested", pairs_tested)?;
        dict.set_item("seconds", seconds)?;
        for (name, (pointer, shape)) in u32_columns {
            dict.set_item(name, borrowed(&owner, pointer, &shape)?)?;
        }
        for (name, (pointer, shape)) in f32_columns {
            dict.set_item(name, borrowed(&owner, pointer, &shape)?)?;
        }
        if let Some((points, depth, id, count)) = point_columns {
            dict.set_item("points", borrowed(&owner, points.0, &points.1)?)?;
            dict.set_item("point_depth", borrowed(&owner, depth.0, &depth.1)?)?;
            dict.set_item("point_id", borrowed(&owner, id.0, &id.1)?)?;
            dict.set_item("point_count", borrowed(&owner, count.0, &count.1)?)?;
        }
        Ok(dict)
    }
}

/// A C-contiguous array of `shape` over the memory at `pointer`, which
/// `owner` (a [`Buffer`]) holds.
fn borrowed<'py, T: numpy::Element>(
    owner: &Bound<'py, PyAny>,
    pointer: *mut T,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    let len: usize = shape.iter().product();
    let pointer = if len == 0 {
        std::ptr::NonNull::<T>::dangling().as_ptr()
    } else {
        pointer
    };
    // SAFETY: `pointer` is the start of `len` initialised elements of the
    // buffer `owner` holds (`Rows::of_buffer` of its layout, every element
    // written by `Columns::of`), taken from a mutable borrow of it (numpy
    // may write through it), or dangling for none. The buffer is a `Vec`
    // whose heap memory stays where it is until the `Buffer` drops (nothing
    // resizes it or reads it), and the array keeps `owner` alive as its
    // base, so the memory outlives the array.
    let view = unsafe { ndarray::ArrayView::from_shape_ptr(ndarray::IxDyn(shape), pointer) };
    // SAFETY: as above: `owner` owns the memory the view describes.
    let array = unsafe { numpy::PyArray::borrow_from_array(&view, owner.clone()) };
    Ok(array.into_any())
}

/// A GPU device and queue, shared by the narrowphases built on it (one
/// device for both dimensions, one per process).
#[pyclass(name = "GpuContext", module = "gpusat._gpusat", frozen)]
struct GpuContext {
    context: Arc<gpusat::gpu::GpuContext>,
}

#[pymethods]
impl GpuContext {
    /// Opens the adapter `adapter` names ("auto": the best one; else part
    /// of its name, a type or a backend, as the command's `--adapter`).
    #[new]
    #[pyo3(signature = (adapter = "auto"))]
    fn new(py: Python<'_>, adapter: &str) -> PyResult<GpuContext> {
        let choice = gpusat::gpu::AdapterChoice::parse(adapter);
        let context = py
            .detach(|| gpusat::gpu::GpuContext::new(&choice))
            .map_err(|e| raise(py, e.into()))?;
        Ok(GpuContext {
            context: Arc::new(context),
        })
    }

    /// The adapter, as `adapters()` lists it.
    #[getter]
    fn adapter(&self) -> String {
        self.context.adapter().to_string()
    }
}

/// A narrowphase of one dimension.
enum Engine {
    D2(d2::Narrowphase),
    D3(d3::Narrowphase),
}

/// A ready narrowphase: the CPU, or a GPU device with its pipelines and
/// buffers, kept across calls.
#[pyclass(name = "Narrowphase", module = "gpusat._gpusat", frozen)]
struct Narrowphase {
    dim: usize,
    engine: Mutex<Engine>,
}

#[pymethods]
impl Narrowphase {
    /// A narrowphase for `dim` (2 or 3) on `backend` ("cpu",
    /// "cpu-parallel", "gpu" or "auto"): a GPU's device and pipelines are
    /// created here, once.
    #[new]
    #[pyo3(signature = (dim, backend, context=None))]
    fn new(
        py: Python<'_>,
        dim: usize,
        backend: &str,
        context: Option<&GpuContext>,
    ) -> PyResult<Narrowphase> {
        let kind = backend_kind(py, backend)?;
        if context.is_some() && kind != BackendKind::Gpu {
            return Err(input_error(
                py,
                "context",
                format!("is for the \"gpu\" backend, not {backend:?}"),
            ));
        }
        let context = context.map(|c| c.context.clone());
        let engine = py
            .detach(|| -> gpusat::Result<Option<Engine>> {
                let gpu_options = gpusat::gpu::GpuOptions::default;
                Ok(match (dim, context) {
                    (2, Some(context)) => Some(Engine::D2(d2::Narrowphase::with_gpu(
                        gpusat::gpu::GpuNarrowphase::new(context, gpu_options())?,
                    ))),
                    (3, Some(context)) => Some(Engine::D3(d3::Narrowphase::with_gpu(
                        d3::GpuNarrowphase::new(context, gpu_options())?,
                    ))),
                    (2, None) => Some(Engine::D2(d2::Narrowphase::new(kind)?)),
                    (3, None) => Some(Engine::D3(d3::Narrowphase::new(kind)?)),
                    _ => None,
                })
            })
            .map_err(|e| raise(py, e))?
            .ok_or_else(|| input_error(py, "dim", format!("{dim} is not 2 or 3")))?;
        Ok(Narrowphase {
            dim,
            engine: Mutex::new(engine),
        })
    }

    /// The dimension, 2 or 3.
    #[getter]
    fn dim(&self) -> usize {
        self.dim
    }

    /// The backend that runs: "cpu", "cpu-parallel" or "gpu".
    #[getter]
    fn backend(&self, py: Python<'_>) -> PyResult<&'static str> {
        locked(py, &self.engine, |engine| {
            Ok(match engine {
                Engine::D2(engine) => engine.name(),
                Engine::D3(engine) => engine.name(),
            })
        })
    }

    /// The GPU context it runs on, or None on the CPU: another
    /// narrowphase can be built on it.
    #[getter]
    fn context(&self, py: Python<'_>) -> PyResult<Option<GpuContext>> {
        locked(py, &self.engine, |engine| {
            let gpu_context = match engine {
                Engine::D2(engine) => engine.gpu().map(|gpu| gpu.context().clone()),
                Engine::D3(engine) => engine.gpu().map(|gpu| gpu.context().clone()),
            };
            Ok(gpu_context.map(|context| GpuContext { context }))
        })
    }

    /// Why "auto" chose what it did, if it says.
    #[getter]
    fn note(&self, py: Python<'_>) -> PyResult<Option<String>> {
        locked(py, &self.engine, |engine| {
            Ok(match engine {
                Engine::D2(engine) => engine.note().map(str::to_owned),
                Engine::D3(engine) => engine.note().map(str::to_owned),
            })
        })
    }

    /// The SAT of the candidate pairs (the broadphase's when `pairs` is
    /// None) and, with `contacts`, the reported pairs' manifolds: a dict of
    /// arrays (`gpusat.Hits` wraps it).
    #[pyo3(signature = (shapes, positions, rotations, shape_ids, pairs, margin, contacts))]
    #[allow(clippy::too_many_arguments)]
    fn collide<'py>(
        &self,
        py: Python<'py>,
        shapes: &Bound<'py, PyAny>,
        positions: PyReadonlyArray2<'py, f32>,
        rotations: PyReadonlyArray2<'py, f32>,
        shape_ids: PyReadonlyArray1<'py, u32>,
        pairs: Option<PyReadonlyArray2<'py, u32>>,
        margin: f32,
        contacts: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let arrays = BodyArrays {
            positions,
            rotations,
            shape_ids,
            inv_mass: None,
        };
        let given = pairs.as_ref().map(|p| pairs_of(py, p)).transpose()?;
        // Before the broadphase, which a margin of infinity would have
        // pair every body with every other.
        if !(margin.is_finite() && margin >= 0.0) {
            return Err(raise(py, gpusat::Error::Margin { margin }));
        }
        // The locks are taken and let go with the GIL released: a thread
        // that held one across the GIL's return could wait for the GIL
        // while another, holding the GIL, waits for the lock.
        let mismatch = || gpusat::Error::Argument {
            name: "dim",
            message: "of the shapes is not the narrowphase's".into(),
        };
        // One dimension's batch: the same steps in `d2` and `d3`.
        macro_rules! collide_in {
            ($dim:ident, $shapes:ty, $variant:ident, $bodies:ident, $what:literal) => {{
                let shapes = shapes
                    .cast::<$shapes>()
                    .map_err(|_| input_error(py, "shapes", $what.into()))?;
                let shapes = shapes.get();
                let bodies = arrays.$bodies(py)?;
                py.detach(|| {
                    let mut engine = lock(&self.engine);
                    let Engine::$variant(narrowphase) = &mut *engine else {
                        return Err(mismatch());
                    };
                    let set = lock(&shapes.set);
                    let set = &*set;
                    let started = Instant::now();
                    let found;
                    let pairs = match given {
                        Some(pairs) => pairs,
                        None => {
                            found = $dim::find_pairs(set, &bodies, margin, PairFilter::default());
                            &found[..]
                        }
                    };
                    let batch = $dim::Batch::new(set, &bodies, pairs, margin)?;
                    let hits = batch.hits(&narrowphase.collide(&batch)?);
                    let manifolds = contacts.then(|| $dim::manifolds(&batch, &hits));
                    let seconds = started.elapsed().as_secs_f64();
                    let outcome = Outcome::$variant(hits, manifolds);
                    let columns = Columns::of(&outcome);
                    // The library's own vectors freed off this thread.
                    rayon::spawn(move || drop(outcome));
                    Ok((columns, pairs.len(), seconds))
                })
            }};
        }
        let (columns, tested, seconds) = if self.dim == 2 {
            collide_in!(
                d2,
                Shapes2D,
                D2,
                bodies_2d,
                "is not a gpusat.Shapes2D (dim is 2)"
            )
        } else {
            collide_in!(
                d3,
                Shapes3D,
                D3,
                bodies_3d,
                "is not a gpusat.Shapes3D (dim is 3)"
            )
        }
        .map_err(|e: gpusat::Error| raise(py, e))?;
        columns.into_dict(py, tested, seconds)
    }
}

/// A world of one dimension.
enum Simulation {
    D2(Box<d2::World>),
    D3(Box<d3::World>),
}

/// Bodies stepped through time: broadphase, narrowphase, contacts,
/// impulses and positional correction each frame.
#[pyclass(name = "World", module = "gpusat._gpusat", frozen)]
struct World {
    dim: usize,
    world: Mutex<Simulation>,
}

#[pymethods]
impl World {
    /// A world over `shapes` (a copy is kept) with these bodies; `gravity`
    /// (dim values) and `margin` as in the library's `WorldOptions`.
    #[new]
    #[pyo3(signature = (shapes, positions, rotations, shape_ids, inv_mass, backend, gravity, margin))]
    #[allow(clippy::too_many_arguments)]
    fn new<'py>(
        py: Python<'py>,
        shapes: &Bound<'py, PyAny>,
        positions: PyReadonlyArray2<'py, f32>,
        rotations: PyReadonlyArray2<'py, f32>,
        shape_ids: PyReadonlyArray1<'py, u32>,
        inv_mass: Option<PyReadonlyArray1<'py, f32>>,
        backend: &str,
        gravity: Option<Vec<f32>>,
        margin: Option<f32>,
    ) -> PyResult<World> {
        let kind = backend_kind(py, backend)?;
        let arrays = BodyArrays {
            positions,
            rotations,
            shape_ids,
            inv_mass,
        };
        if let Ok(shapes) = shapes.cast::<Shapes2D>() {
            let bodies = arrays.bodies_2d(py)?;
            let set = locked(py, &shapes.get().set, |set| Ok(set.clone()))?;
            let mut options = d2::WorldOptions::default();
            if let Some(gravity) = gravity {
                let [x, y] = <[f32; 2]>::try_from(gravity.as_slice())
                    .map_err(|_| input_error(py, "gravity", "needs 2 values in 2D".into()))?;
                options.gravity = Vec2::new(x, y);
            }
            if let Some(margin) = margin {
                options.margin = margin;
            }
            let world = py
                .detach(|| {
                    let narrowphase = d2::Narrowphase::new(kind)?;
                    d2::World::new(set, bodies, narrowphase, options)
                })
                .map_err(|e| raise(py, e))?;
            return Ok(World {
                dim: 2,
                world: Mutex::new(Simulation::D2(Box::new(world))),
            });
        }
        let shapes = shapes.cast::<Shapes3D>().map_err(|_| {
            input_error(py, "shapes", "is not a gpusat.Shapes2D or Shapes3D".into())
        })?;
        let bodies = arrays.bodies_3d(py)?;
        let set = locked(py, &shapes.get().set, |set| Ok(set.clone()))?;
        let mut options = d3::WorldOptions::default();
        if let Some(gravity) = gravity {
            let [x, y, z] = <[f32; 3]>::try_from(gravity.as_slice())
                .map_err(|_| input_error(py, "gravity", "needs 3 values in 3D".into()))?;
            options.gravity = Vec3::new(x, y, z);
        }
        if let Some(margin) = margin {
            options.margin = margin;
        }
        let world = py
            .detach(|| {
                let narrowphase = d3::Narrowphase::new(kind)?;
                d3::World::new(set, bodies, narrowphase, options)
            })
            .map_err(|e| raise(py, e))?;
        Ok(World {
            dim: 3,
            world: Mutex::new(Simulation::D3(Box::new(world))),
        })
    }

    /// The dimension, 2 or 3.
    #[getter]
    fn dim(&self) -> usize {
        self.dim
    }

    /// Runs `frames` frames of `dt` seconds, the GIL released.
    fn step(&self, py: Python<'_>, frames: usize, dt: f32) -> PyResult<()> {
        // The lock taken and let go with the GIL released (see `collide`).
        py.detach(|| -> gpusat::Result<()> {
            let mut world = lock(&self.world);
            let world = &mut *world;
            for _ in 0..frames {
                match world {
                    Simulation::D2(world) => {
                        world.step(dt)?;
                    }
                    Simulation::D3(world) => {
                        world.step(dt)?;
                    }
                }
            }
            Ok(())
        })
        .map_err(|e| raise(py, e))
    }

    /// The bodies' state: positions `(N, dim)`, rotations (2D: angles
    /// `(N,)`; 3D: quaternions `(N, 4)`, x y z w), velocities `(N, dim)`,
    /// angular velocities (2D `(N,)`, 3D `(N, 3)`).
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        // The bodies copied under the lock (GIL released), the arrays
        // built after.
        let (dim, columns) = locked(py, &self.world, |world| {
            Ok(match world {
                Simulation::D2(world) => {
                    let bodies = world.bodies();
                    let flat = |f: fn(&d2::Body) -> [f32; 2]| -> Vec<f32> {
                        bodies.iter().flat_map(f).collect()
                    };
                    (
                        2,
                        [
                            flat(|b| b.position.to_array()),
                            bodies.iter().map(|b| b.angle).collect(),
                            flat(|b| b.velocity.to_array()),
                            bodies.iter().map(|b| b.angular_velocity).collect(),
                        ],
                    )
                }
                Simulation::D3(world) => {
                    let bodies = world.bodies();
                    (
                        3,
                        [
                            bodies.iter().flat_map(|b| b.position.to_array()).collect(),
                            bodies.iter().flat_map(|b| b.rotation.to_array()).collect(),
                            bodies.iter().flat_map(|b| b.velocity.to_array()).collect(),
                            bodies
                                .iter()
                                .flat_map(|b| b.angular_velocity.to_array())
                                .collect(),
                        ],
                    )
                }
            })
        })?;
        let [positions, rotations, velocities, spins] = columns;
        let n = positions.len() / dim;
        let dict = PyDict::new(py);
        dict.set_item("positions", positions.into_pyarray(py).reshape([n, dim])?)?;
        dict.set_item("velocities", velocities.into_pyarray(py).reshape([n, dim])?)?;
        if dim == 2 {
            dict.set_item("rotations", rotations.into_pyarray(py))?;
            dict.set_item("angular_velocities", spins.into_pyarray(py))?;
        } else {
            dict.set_item("rotations", rotations.into_pyarray(py).reshape([n, 4])?)?;
            dict.set_item(
                "angular_velocities",
                spins.into_pyarray(py).reshape([n, 3])?,
            )?;
        }
        Ok(dict)
    }

    /// The last frame's reported pairs and their contacts, as `collide`
    /// gives them.
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        // The columns written under the lock, with the GIL released.
        let columns = locked(py, &self.world, |world| {
            let outcome = match world {
                Simulation::D2(world) => {
                    Outcome::D2(world.hits().to_vec(), Some(world.manifolds().to_vec()))
                }
                Simulation::D3(world) => {
                    Outcome::D3(world.hits().to_vec(), Some(world.manifolds().to_vec()))
                }
            };
            Ok(Columns::of(&outcome))
        })?;
        columns.into_dict(py, 0, 0.0)
    }

    /// The kinetic energy of the bodies (float64).
    fn kinetic_energy(&self, py: Python<'_>) -> PyResult<f64> {
        locked(py, &self.world, |world| {
            Ok(match world {
                Simulation::D2(world) => world.kinetic_energy(),
                Simulation::D3(world) => world.kinetic_energy(),
            })
        })
    }
}

/// A scene file (JSON, either dimension; the command's format): a dict
/// with `dim`, `shapes` (a `gpusat.Shapes2D` or `Shapes3D`), the bodies' arrays,
/// `pairs` (`(M, 2)` `uint32`, or None when the file lists none) and
/// `margin`.
#[pyfunction]
fn load_scene<'py>(py: Python<'py>, path: std::path::PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let scene = py
        .detach(|| gpusat::load_any(&path))
        .map_err(|e| raise(py, e))?;
    let dict = PyDict::new(py);
    let pairs_array = |pairs: Option<Vec<Pair>>| {
        pairs.map(|pairs| {
            let m = pairs.len();
            let flat: Vec<u32> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
            flat.into_pyarray(py).reshape([m, 2])
        })
    };
    match scene {
        gpusat::AnyScene::Planar(scene) => {
            let n = scene.bodies.len();
            let bodies = &scene.bodies;
            let positions: Vec<f32> = bodies.iter().flat_map(|b| b.position.to_array()).collect();
            let angles: Vec<f32> = bodies.iter().map(|b| b.angle).collect();
            let ids: Vec<u32> = bodies.iter().map(|b| b.shape).collect();
            let inv_mass: Vec<f32> = bodies.iter().map(|b| b.inv_mass).collect();
            dict.set_item("dim", 2)?;
            let shapes = py.import("gpusat")?.getattr("Shapes2D")?.call0()?;
            *lock(&shapes.cast::<Shapes2D>()?.get().set) = scene.shapes;
            dict.set_item("shapes", shapes)?;
            dict.set_item("positions", positions.into_pyarray(py).reshape([n, 2])?)?;
            dict.set_item("rotations", angles.into_pyarray(py))?;
            dict.set_item("shape_ids", ids.into_pyarray(py))?;
            dict.set_item("inv_mass", inv_mass.into_pyarray(py))?;
            dict.set_item("pairs", pairs_array(scene.pairs).transpose()?)?;
            dict.set_item("margin", scene.margin)?;
        }
        gpusat::AnyScene::Spatial(scene) => {
            let n = scene.bodies.len();
            let bodies = &scene.bodies;
            let positions: Vec<f32> = bodies.iter().flat_map(|b| b.position.to_array()).collect();
            let rotations: Vec<f32> = bodies.iter().flat_map(|b| b.rotation.to_array()).collect();
            let ids: Vec<u32> = bodies.iter().map(|b| b.shape).collect();
            let inv_mass: Vec<f32> = bodies.iter().map(|b| b.inv_mass).collect();
            dict.set_item("dim", 3)?;
            let shapes = py.import("gpusat")?.getattr("Shapes3D")?.call0()?;
            *lock(&shapes.cast::<Shapes3D>()?.get().set) = scene.shapes;
            dict.set_item("shapes", shapes)?;
            dict.set_item("positions", positions.into_pyarray(py).reshape([n, 3])?)?;
            dict.set_item("rotations", rotations.into_pyarray(py).reshape([n, 4])?)?;
            dict.set_item("shape_ids", ids.into_pyarray(py))?;
            dict.set_item("inv_mass", inv_mass.into_pyarray(py))?;
            dict.set_item("pairs", pairs_array(scene.pairs).transpose()?)?;
            dict.set_item("margin", scene.margin)?;
        }
    }
    Ok(dict)
}

/// The adapters wgpu finds, one line each, and which one "auto" picks.
#[pyfunction]
fn adapters(py: Python<'_>) -> PyResult<Vec<String>> {
    Ok(py.detach(|| {
        gpusat::gpu::list_adapters()
            .iter()
            .map(|adapter| adapter.to_string())
            .collect()
    }))
}

#[pymodule]
fn _gpusat(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Shapes2D>()?;
    module.add_class::<Shapes3D>()?;
    module.add_class::<Narrowphase>()?;
    module.add_class::<World>()?;
    module.add_class::<GpuContext>()?;
    module.add_function(wrap_pyfunction!(adapters, module)?)?;
    module.add_function(wrap_pyfunction!(load_scene, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
