//! The CPU narrowphase, eight faces at a time.
//!
//! The scalar files of [`sat`](crate::d2::sat) state the computation one face at
//! a time (and are the WGSL kernel's twin). This module computes exactly the
//! same values with
//! vectors whose eight lanes are eight faces of one polygon: every lane does
//! the scalar code's operations in the scalar code's order, with no fused
//! multiply-adds, so each lane's result is the scalar result bit for bit
//! (`tests/it/d2/lanes.rs` checks it on every pair kind, on both paths). The
//! faces are stored as structure of arrays in the shape library
//! ([`FaceLanes`]); the other polygon's vertices are broadcast one at a time.
//! The tie rule and the early exit are then applied to each group of lanes
//! with the outcome of the scalar loop's face-by-face scan (see
//! `scan_group`), without its unpredictable branches.
//!
//! Two vector types implement the lanes: AVX registers on x86-64 CPUs that
//! have AVX (detected at run time, once per batch), and two portable
//! 4-lane vectors (`wide`, SSE on x86-64) everywhere else. With AVX a
//! broadcast is one load and an 8-gon's faces are one register, which is
//! where the speed comes from.

use std::ops::Range;

use glam::Vec2;

use crate::core::pair::Owner;
#[cfg(target_arch = "x86_64")]
use crate::core::simd::avx;
#[cfg(target_arch = "x86_64")]
use crate::core::simd::uses_avx;
use crate::core::simd::{Cache, Lanes, Portable, prefetch_line_run};
use crate::d2::batch::Batch;
use crate::d2::manifold::{
    Clip, ContactSide, LaneKinds, Manifold, PendingClips, circle_contacts, contact_points,
    segment_contacts,
};
use crate::d2::math::{Transform, inv_mul_transforms, inv_rotate, rotate};
use crate::d2::shape::{EdgeRecord, FACE_LANES, FaceLanes, FaceView, Faces, ShapeRecord, ShapeSet};
use crate::d2::types::{Hit, SatHit};

use super::circles::collide_circles;
use super::circles_across::CirclePairs;
use super::pair::{Side, axis_normal};
use super::polygon_circle::finish_polygon_circle;
use super::polygons_across::{MAX_VERTICES as POLYGON_LANES_VERTICES, PolygonPairs};
use super::rounded::{collide_segment_circle, finish_rounded};
use super::segments::collide_segments;
use super::segments_across::{PAIRS as SEGMENT_PAIRS, SegmentPairs};
use super::separation::{
    CPU_MERGE_THRESHOLD, LOWEST, PairResult, Separation, TIE_TOLERANCE, choose_polygon_axis,
    uses_merge_above,
};

/// The tie rule and the early exit over one group of lanes, with the
/// outcome of the scalar loop's face-by-face scan.
///
/// ```text
/// m, k = the group's largest value and its first lane    (no branches)
/// if m >= limit: exit (the pair is separated; which face does not matter)
/// if no other lane is within 2 * tolerance of m:
///     the face-by-face rule picks lane k if m > best + tolerance, else keeps best
///     (every other lane is too far below m to be picked, or to stop k)
/// else: a near-tie, scanned face by face exactly as the scalar loop does
/// ```
#[inline(always)]
fn scan_group<V: Lanes>(
    values: V,
    active: usize,
    first: u32,
    best: &mut Separation,
    tolerance: f32,
    limit: f32,
) -> Option<Separation> {
    let scan = values.scan(active, tolerance);
    if scan.largest >= limit {
        return Some(Separation {
            value: scan.largest,
            edge: first + scan.lane as u32,
        });
    }
    if scan.close == 1 {
        if scan.largest > best.value + tolerance {
            *best = Separation {
                value: scan.largest,
                edge: first + scan.lane as u32,
            };
        }
    } else {
        for (lane, &value) in values.to_array().iter().enumerate().take(active) {
            if value > best.value + tolerance {
                *best = Separation {
                    value,
                    edge: first + lane as u32,
                };
            }
        }
    }
    None
}

/// Eight faces moved into the other polygon's frame, per lane:
/// `rotate(xf.q, normal)`, and `dot(normal, transform_point(xf, vertex))`
/// as the face's offset, in the scalar twin's order of operations.
#[inline(always)]
fn moved_faces<V: Lanes>(faces: &FaceLanes, (c, s): (V, V), (px, py): (V, V)) -> (V, V, V) {
    let (fnx, fny) = (V::load(&faces.nx), V::load(&faces.ny));
    let (fvx, fvy) = (V::load(&faces.vx), V::load(&faces.vy));
    let nx = c * fnx - s * fny;
    let ny = s * fnx + c * fny;
    let vx = (c * fvx + px) - s * fvy;
    let vy = (s * fvx + py) + c * fvy;
    (nx, ny, nx * vx + ny * vy)
}

/// [`find_max_separation`](super::polygons::find_max_separation), eight
/// faces of `poly1` at a time; `poly2`'s vertices are read from its own
/// face groups.
#[inline(always)]
fn find_max_separation<V: Lanes>(
    poly1: &[FaceLanes],
    count1: u32,
    poly2: &[FaceLanes],
    count2: u32,
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let (c, s) = (V::splat(xf.q.c), V::splat(xf.q.s));
    let (px, py) = (V::splat(xf.p.x), V::splat(xf.p.y));
    let mut best = Separation::NONE;
    for (group, faces) in poly1.iter().enumerate() {
        let (nx, ny, offset) = moved_faces::<V>(faces, (c, s), (px, py));
        // Two running minima, so that consecutive vertices do not wait on
        // each other; min is exact, so the result is the same.
        let (mut even, mut odd) = (V::splat(f32::MAX), V::splat(f32::MAX));
        let mut remaining = count2 as usize;
        for vertices in poly2 {
            let here = remaining.min(FACE_LANES);
            remaining -= here;
            let mut j = 0;
            while j + 1 < here {
                let (w0x, w0y) = (V::splat(vertices.vx[j]), V::splat(vertices.vy[j]));
                let (w1x, w1y) = (V::splat(vertices.vx[j + 1]), V::splat(vertices.vy[j + 1]));
                even = even.min((nx * w0x - offset) + ny * w0y);
                odd = odd.min((nx * w1x - offset) + ny * w1y);
                j += 2;
            }
            if j < here {
                let (wx, wy) = (V::splat(vertices.vx[j]), V::splat(vertices.vy[j]));
                even = even.min((nx * wx - offset) + ny * wy);
            }
        }
        let values = even.min(odd);
        let first = (group * FACE_LANES) as u32;
        let active = (count1 - first).min(FACE_LANES as u32) as usize;
        if let Some(separated) = scan_group(values, active, first, &mut best, tolerance, limit) {
            return separated;
        }
    }
    best
}

/// Heights `dot(normal, w) - offset` of ring vertices `j..j + 8`, in the
/// scalar twin's order. A function, not a closure: it must inline into the
/// AVX caller.
#[inline(always)]
fn ring_heights<V: Lanes>(xs: &[f32], ys: &[f32], (nx, ny, offset): (V, V, V), j: usize) -> V {
    (nx * V::load_slice(&xs[j..]) - offset) + ny * V::load_slice(&ys[j..])
}

/// [`descend`](super::merged::descend) eight steps at a time, on the
/// polygon's ring (see [`ShapeSet::ring_of`]): the walk stops at the first
/// vertex whose successor lies higher, and each lane compares one vertex
/// with its successor.
#[inline(always)]
fn descend_ring<V: Lanes>(
    xs: &[f32],
    ys: &[f32],
    count: usize,
    (nx, ny, offset): (f32, f32, f32),
    start: usize,
) -> usize {
    let face = (V::splat(nx), V::splat(ny), V::splat(offset));
    let mut j = start;
    let mut walked = 0;
    // The scalar walk takes at most count - 1 steps.
    while walked + 1 < count {
        let active = (count - 1 - walked).min(FACE_LANES);
        let next = ring_heights(xs, ys, face, j + 1);
        if let Some(lane) = next.first_greater(ring_heights(xs, ys, face, j), active) {
            let stop = j + lane;
            return if stop < count { stop } else { stop - count };
        }
        j += FACE_LANES;
        if j >= count {
            j -= count;
        }
        walked += FACE_LANES;
    }
    let last = start + count - 1;
    if last < count { last } else { last - count }
}

/// [`find_max_separation_merged`](super::merged::find_max_separation_merged):
/// a group's 8 faces at once over its window of `poly2`'s vertices.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn find_max_separation_merged<V: Lanes>(
    poly1: &[FaceLanes],
    count1: u32,
    poly2: &[FaceLanes],
    (ring_x, ring_y): (&[f32], &[f32]),
    count2: u32,
    xf: Transform,
    tolerance: f32,
    limit: f32,
) -> Separation {
    let count2 = count2 as usize;
    let (c, s) = (V::splat(xf.q.c), V::splat(xf.q.s));
    let (px, py) = (V::splat(xf.p.x), V::splat(xf.p.y));
    let mut best = Separation::NONE;
    let mut low = usize::MAX;
    for (group, faces) in poly1.iter().enumerate() {
        let (nx, ny, offset) = moved_faces::<V>(faces, (c, s), (px, py));
        let first = (group * FACE_LANES) as u32;
        let active = (count1 - first).min(FACE_LANES as u32) as usize;
        // The walks use the lanes' own values: the same bits as the scalar twin.
        let (nxs, nys, offsets) = (nx.to_array(), ny.to_array(), offset.to_array());
        let face = |lane: usize| (nxs[lane], nys[lane], offsets[lane]);
        if low == usize::MAX {
            // The first lowest vertex along face 0, once: eight vertices at
            // a time, as the first largest of the negated heights (negation
            // is exact, so ties go to the first as in the scalar loop).
            let (nx0, ny0, offset0) = face(0);
            let (minus_nx, minus_ny, minus_offset) =
                (V::splat(-nx0), V::splat(-ny0), V::splat(-offset0));
            let mut best_height = LOWEST;
            low = 0;
            for (group2, vertices) in poly2.iter().enumerate() {
                let first2 = group2 * FACE_LANES;
                let active2 = (count2 - first2).min(FACE_LANES);
                let negated = (minus_nx * V::load(&vertices.vx) - minus_offset)
                    + minus_ny * V::load(&vertices.vy);
                let scan = negated.scan(active2, 0.0);
                if scan.largest > best_height {
                    best_height = scan.largest;
                    low = first2 + scan.lane;
                }
            }
        }
        let start = low;
        let end = descend_ring::<V>(ring_x, ring_y, count2, face(active - 1), start);
        let window = (end + count2 - start) % count2 + 1;
        let mut separation = V::splat(f32::MAX);
        for k in 0..window {
            let j = if start + k < count2 {
                start + k
            } else {
                start + k - count2
            };
            separation =
                separation.min((nx * V::splat(ring_x[j]) - offset) + ny * V::splat(ring_y[j]));
        }
        if let Some(separated) = scan_group(separation, active, first, &mut best, tolerance, limit)
        {
            return separated;
        }
        low = end;
    }
    best
}

/// [`collide_polygon_circle`](super::polygon_circle::collide_polygon_circle) with
/// the face loop eight faces at a time.
#[inline(always)]
fn collide_polygon_circle<V: Lanes>(
    lanes: &[FaceLanes],
    poly: &[EdgeRecord],
    centre: Vec2,
    radius: f32,
    owner: Owner,
    tolerance: f32,
    margin: f32,
) -> Option<PairResult> {
    let count = poly.len() as u32;
    let limit = margin + radius;
    let (cx, cy) = (V::splat(centre.x), V::splat(centre.y));
    let mut best = Separation::NONE;
    for (group, faces) in lanes.iter().enumerate() {
        let (nx, ny) = (V::load(&faces.nx), V::load(&faces.ny));
        // dot(normal, vertex), as the scalar twin computes it.
        let offset = nx * V::load(&faces.vx) + ny * V::load(&faces.vy);
        let values = (nx * cx - offset) + ny * cy;
        let first = (group * FACE_LANES) as u32;
        let active = (count - first).min(FACE_LANES as u32) as usize;
        if scan_group(values, active, first, &mut best, tolerance, limit).is_some() {
            return None;
        }
    }
    finish_polygon_circle(poly, centre, radius, owner, margin, best)
}

/// [`collide_pair`](super::pair::collide_pair), vectorised.
#[inline(always)]
fn collide_pair_with<V: Lanes>(
    merge_threshold: u32,
    shapes: &ShapeSet,
    (xf_ab, xf_ba): (Transform, Transform),
    (index_a, shape_a): (u32, &ShapeRecord),
    (index_b, shape_b): (u32, &ShapeRecord),
    margin: f32,
) -> Option<PairResult> {
    let tolerance = TIE_TOLERANCE * (shape_a.size + shape_b.size);
    match (shape_a.count > 0, shape_b.count > 0) {
        (true, true) => {
            // Cores with radii: the cores' SAT out to the margin plus the
            // radii, then rounded.rs's cases.
            let radii = shape_a.radius + shape_b.radius;
            let outer_margin = margin;
            let margin = margin + radii;
            if shape_a.count == 2 && shape_b.count == 2 {
                // Two segment cores: two faces against two vertices each,
                // in straight-line arithmetic (segments.rs).
                // (Two edges each, always; were they not, the general path
                // below takes them.)
                let (edges_a, edges_b) = (shapes.edges_of(shape_a), shapes.edges_of(shape_b));
                if let (Ok(a), Ok(b)) = (edges_a.try_into(), edges_b.try_into()) {
                    return collide_segments(a, b, radii, (xf_ab, xf_ba), tolerance, outer_margin);
                }
            }
            let lanes_a = shapes.lanes_of(index_a, shape_a);
            let lanes_b = shapes.lanes_of(index_b, shape_b);
            // Direct calls in each branch, not a function pointer or a
            // closure: they must inline into the caller, whose target
            // features (AVX) they need.
            let merge = uses_merge_above(shape_a.count, shape_b.count, merge_threshold);
            let (count_a, count_b) = (shape_a.count, shape_b.count);
            let (ring_a, ring_b) = (
                shapes.ring_of(index_a, shape_a),
                shapes.ring_of(index_b, shape_b),
            );
            let separation_a = if merge {
                find_max_separation_merged::<V>(
                    lanes_a, count_a, lanes_b, ring_b, count_b, xf_ba, tolerance, margin,
                )
            } else {
                find_max_separation::<V>(
                    lanes_a, count_a, lanes_b, count_b, xf_ba, tolerance, margin,
                )
            };
            if separation_a.value >= margin {
                return None;
            }
            let separation_b = if merge {
                find_max_separation_merged::<V>(
                    lanes_b, count_b, lanes_a, ring_a, count_a, xf_ab, tolerance, margin,
                )
            } else {
                find_max_separation::<V>(
                    lanes_b, count_b, lanes_a, count_a, xf_ab, tolerance, margin,
                )
            };
            let core = choose_polygon_axis(separation_a, separation_b, tolerance, margin)?;
            if radii > 0.0 || count_a == 2 || count_b == 2 {
                finish_rounded(
                    shapes.edges_of(shape_a),
                    shapes.edges_of(shape_b),
                    radii,
                    (xf_ab, xf_ba),
                    core,
                    outer_margin,
                )
            } else {
                Some(core)
            }
        }
        (true, false) if shape_a.count == 2 => collide_segment_circle(
            shapes.edges_of(shape_a),
            xf_ab.p,
            shape_b.radius + shape_a.radius,
            Owner::A,
            margin,
        ),
        (false, true) if shape_b.count == 2 => collide_segment_circle(
            shapes.edges_of(shape_b),
            xf_ba.p,
            shape_a.radius + shape_b.radius,
            Owner::B,
            margin,
        ),
        (true, false) => collide_polygon_circle::<V>(
            shapes.lanes_of(index_a, shape_a),
            shapes.edges_of(shape_a),
            xf_ab.p,
            shape_b.radius + shape_a.radius,
            Owner::A,
            tolerance,
            margin,
        ),
        (false, true) => collide_polygon_circle::<V>(
            shapes.lanes_of(index_b, shape_b),
            shapes.edges_of(shape_b),
            xf_ba.p,
            shape_a.radius + shape_b.radius,
            Owner::B,
            tolerance,
            margin,
        ),
        (false, false) => collide_circles(xf_ab.p, shape_a.radius, shape_b.radius, margin),
    }
}

/// `(a^-1 b, b^-1 a)`: B's frame into A's, and A's into B's.
#[inline(always)]
fn relative_transforms(xf_a: Transform, xf_b: Transform) -> (Transform, Transform) {
    (
        inv_mul_transforms(xf_a, xf_b),
        inv_mul_transforms(xf_b, xf_a),
    )
}

/// The manifold's incident edge over face groups: the edge whose normal
/// is most anti-parallel to `normal_in_incident`, as the first largest of
/// the negated alignments (negation is exact: the same edge, ties included).
#[inline(always)]
fn incident_edge_lanes<V: Lanes>(normal_in_incident: Vec2, lanes: &[FaceLanes], count: u32) -> u32 {
    let opposite = -normal_in_incident;
    let (ox, oy) = (V::splat(opposite.x), V::splat(opposite.y));
    let mut best = (LOWEST, 0u32);
    for (group, faces) in lanes.iter().enumerate() {
        let first = (group * FACE_LANES) as u32;
        let active = (count - first).min(FACE_LANES as u32) as usize;
        let scan = (ox * V::load(&faces.nx) + oy * V::load(&faces.ny)).scan(active, 0.0);
        if scan.largest > best.0 {
            best = (scan.largest, first + scan.lane as u32);
        }
    }
    best.1
}

/// SAT and, when reported, the contact manifold of pair `index`, appended
/// to `out`; the polygon case reuses the SAT's relative transforms and face
/// groups, and builds the manifold in place.
#[inline(always)]
fn contact_with<'a, V: Lanes>(
    batch: &Batch<'a>,
    index: usize,
    across: Option<Option<PairResult>>,
    (out, pending): (&mut Vec<Manifold>, &mut PendingClips<FaceView<'a>>),
) {
    if let Some(None) = across {
        // Answered by the lanes: not reported.
        return;
    }
    let pair = batch.pairs()[index];
    let (a, b) = (pair.a as usize, pair.b as usize);
    let shapes = batch.shapes();
    let records = shapes.records();
    let (index_a, index_b) = (batch.shape_of()[a], batch.shape_of()[b]);
    let (record_a, record_b) = (&records[index_a as usize], &records[index_b as usize]);
    let (xf_a, xf_b) = (batch.transforms()[a], batch.transforms()[b]);
    let (xf_ab, xf_ba) = relative_transforms(xf_a, xf_b);
    // A segment pair's SAT, where the lanes across pairs have it.
    let result = match across {
        Some(result) => result,
        None => collide_pair_with::<V>(
            batch.face_search().threshold(CPU_MERGE_THRESHOLD),
            shapes,
            (xf_ab, xf_ba),
            (index_a, record_a),
            (index_b, record_b),
            batch.margin(),
        ),
    };
    let Some(result) = result else {
        return;
    };
    // A face of one core against the other's edges is clipped, with or
    // without radii; the rest (circles, vertex pairs, two segment cores
    // crossing deeper than their radii) takes the general manifold.
    let (reference_record, incident_record) = match result.axis.owner {
        Owner::A => (record_a, record_b),
        Owner::B => (record_b, record_a),
    };
    let crossing = reference_record.count == 2
        && incident_record.count == 2
        && -result.separation >= reference_record.radius + incident_record.radius;
    let clipped = record_a.count > 0
        && record_b.count > 0
        && result.axis.feature < reference_record.count
        && !crossing;
    if !clipped {
        // `Batch::hit` and `manifold` on the records and transforms at hand.
        let faces = |record: &ShapeRecord| (record.count > 0).then(|| shapes.edges_of(record));
        let (faces_a, faces_b) = (faces(record_a), faces(record_b));
        let side = |xf, faces, record: &ShapeRecord| Side {
            xf,
            faces,
            radius: record.radius,
        };
        let hit = Hit {
            pair: index as u32,
            a: pair.a,
            b: pair.b,
            normal: axis_normal(
                side(xf_a, faces_a, record_a),
                side(xf_b, faces_b, record_b),
                result.axis,
            ),
            depth: -result.separation,
            axis: result.axis,
        };
        let contact_side = |faces, record: &ShapeRecord| ContactSide {
            faces,
            radius: record.radius,
            size: record.size,
        };
        let mut contact = Manifold::new(hit.pair, hit.a, hit.b, hit.normal);
        contact_points(
            &mut contact,
            (xf_a, contact_side(faces_a, record_a)),
            (xf_b, contact_side(faces_b, record_b)),
            &hit,
            batch.margin(),
        );
        out.push(contact);
        return;
    }
    // As `Batch::hit` and `manifold` compute them, from the same values;
    // the clip itself waits for seven more (`manifold/clip_across.rs`).
    let (ref_xf, reference_faces, incident_faces, incident_lanes, xf, sign) =
        match result.axis.owner {
            Owner::A => (
                xf_a,
                shapes.faces(index_a, record_a),
                shapes.faces(index_b, record_b),
                shapes.lanes_of(index_b, record_b),
                xf_ab,
                1.0,
            ),
            Owner::B => (
                xf_b,
                shapes.faces(index_b, record_b),
                shapes.faces(index_a, record_a),
                shapes.lanes_of(index_a, record_a),
                xf_ba,
                -1.0,
            ),
        };
    let reference = result.axis.feature;
    let normal_local = reference_faces.normal(reference);
    let incident = incident_edge_lanes::<V>(
        inv_rotate(xf.q, normal_local),
        incident_lanes,
        incident_faces.count(),
    );
    out.push(Manifold::new(
        index as u32,
        pair.a,
        pair.b,
        sign * rotate(ref_xf.q, normal_local),
    ));
    let slot = out.len() - 1;
    pending.push::<V>(
        Clip {
            ref_xf,
            xf,
            reference_faces,
            incident_faces,
            reference,
            incident,
            owner: result.axis.owner,
            overlapping: result.separation < 0.0,
            size: record_a.size + record_b.size,
            margin: batch.margin(),
            radii: (reference_record.radius, incident_record.radius),
        },
        slot,
        out,
    );
}

#[inline(always)]
fn test_pair_with<V: Lanes>(batch: &Batch, index: usize) -> Option<SatHit> {
    let pair = batch.pairs()[index];
    let (a, b) = (pair.a as usize, pair.b as usize);
    let shapes = batch.shapes();
    let records = shapes.records();
    let shape_of = batch.shape_of();
    let transforms = batch.transforms();
    let (shape_a, shape_b) = (shape_of[a], shape_of[b]);
    collide_pair_with::<V>(
        batch.face_search().threshold(CPU_MERGE_THRESHOLD),
        shapes,
        relative_transforms(transforms[a], transforms[b]),
        (shape_a, &records[shape_a as usize]),
        (shape_b, &records[shape_b as usize]),
        batch.margin(),
    )
    .map(|result| SatHit {
        pair: index as u32,
        axis: result.axis,
        depth: -result.separation,
    })
}

/// How many pairs ahead the shapes and transforms are prefetched: pairs are
/// random, so each one's data is usually out of the nearest caches.
const PREFETCH_DISTANCE: usize = 4;

/// Asks for the cache line holding `address` into the nearest cache.
#[inline(always)]
fn prefetch(address: *const u8) {
    prefetch_line_run(address, 1, Cache::Nearest);
}

/// Asks for the data of pair `index` (the caller checks it exists).
#[inline(always)]
fn prefetch_pair(batch: &Batch, index: usize) {
    let pair = batch.pairs()[index];
    let shapes = batch.shapes();
    for body in [pair.a as usize, pair.b as usize] {
        prefetch(&batch.transforms()[body] as *const _ as *const u8);
        let shape = batch.shape_of()[body];
        prefetch(&shapes.records()[shape as usize] as *const _ as *const u8);
        if let Some(lanes) = shapes.first_lanes(shape) {
            // The first group: normals (first line), vertices (second line).
            let address = lanes as *const FaceLanes as *const u8;
            prefetch(address);
            prefetch(address.wrapping_add(64));
        }
    }
}

/// Pairs a chunk of the batch loops holds: its pairs of two segment cores
/// are answered first, eight at a time (`segments_across.rs`), then every
/// pair in order.
const CHUNK: usize = 64;

/// Eight pairs of one kind waiting for their lanes (two segment cores, or
/// two circles): their SAT, or their SAT and manifolds, eight at a time.
trait PairLanes {
    /// Lanes filled.
    fn len(&self) -> usize;
    /// The filled lanes' results, in the order they were pushed, and the
    /// lanes emptied.
    fn results<V: Lanes>(&mut self, margin: f32) -> [Option<PairResult>; SEGMENT_PAIRS];
    /// The filled lanes' manifolds into `manifolds[at[k]]` (and the results
    /// of those the general path builds into `results[at[k]]`), and the
    /// lanes emptied.
    fn contacts<V: Lanes>(
        &mut self,
        margin: f32,
        at: &[usize; SEGMENT_PAIRS],
        out: (&mut [Manifold], &mut [Option<PairResult>]),
    ) -> LaneKinds;
}

impl PairLanes for SegmentPairs<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        SegmentPairs::len(self)
    }

    #[inline(always)]
    fn results<V: Lanes>(&mut self, margin: f32) -> [Option<PairResult>; SEGMENT_PAIRS] {
        self.finish::<V>(margin)
    }

    #[inline(always)]
    fn contacts<V: Lanes>(
        &mut self,
        margin: f32,
        at: &[usize; SEGMENT_PAIRS],
        out: (&mut [Manifold], &mut [Option<PairResult>]),
    ) -> LaneKinds {
        segment_contacts::<V>(self, margin, at, out)
    }
}

impl PairLanes for CirclePairs {
    #[inline(always)]
    fn len(&self) -> usize {
        CirclePairs::len(self)
    }

    #[inline(always)]
    fn results<V: Lanes>(&mut self, margin: f32) -> [Option<PairResult>; SEGMENT_PAIRS] {
        self.finish::<V>(margin)
    }

    #[inline(always)]
    fn contacts<V: Lanes>(
        &mut self,
        margin: f32,
        at: &[usize; SEGMENT_PAIRS],
        (manifolds, _): (&mut [Manifold], &mut [Option<PairResult>]),
    ) -> LaneKinds {
        circle_contacts::<V>(self, margin, at, manifolds)
    }
}

/// Where the lanes across pairs leave their answers for a chunk's pairs
/// (by position in the chunk): the SAT results, or the contacts. Made once
/// a range, refilled each chunk.
trait ChunkAnswers {
    /// Whether circle pairs are answered in lanes too: with contacts they
    /// gain (1M circle pairs, one thread, SAT and manifold 26.7 -> 19.7 ns
    /// a pair), for the SAT alone they lose (10.2 -> 12.8).
    const CIRCLES: bool;
    /// Forgets the last chunk's answers.
    fn clear(&mut self);
    /// The filled lanes' answers into their chunk positions, and the lanes
    /// emptied.
    fn answer<V: Lanes, P: PairLanes>(
        &mut self,
        lanes: &mut P,
        positions: &[usize; SEGMENT_PAIRS],
        margin: f32,
    );
}

/// A chunk's lane pairs' SAT results, and which positions hold one.
struct ChunkResults {
    results: [Option<PairResult>; CHUNK],
    taken: u64,
}

impl ChunkResults {
    fn new() -> ChunkResults {
        ChunkResults {
            results: [None; CHUNK],
            taken: 0,
        }
    }

    /// Pair `index`'s result, if the lanes across pairs answered it.
    #[inline(always)]
    fn get(&self, chunk_start: usize, index: usize) -> Option<Option<PairResult>> {
        let position = index - chunk_start;
        (self.taken & (1 << position) != 0).then(|| self.results[position])
    }
}

impl ChunkAnswers for ChunkResults {
    const CIRCLES: bool = false;

    #[inline(always)]
    fn clear(&mut self) {
        self.taken = 0;
    }

    #[inline(always)]
    fn answer<V: Lanes, P: PairLanes>(
        &mut self,
        lanes: &mut P,
        positions: &[usize; SEGMENT_PAIRS],
        margin: f32,
    ) {
        let count = lanes.len();
        let results = lanes.results::<V>(margin);
        for k in 0..count {
            self.results[positions[k]] = results[k];
            self.taken |= 1 << positions[k];
        }
    }
}

/// A chunk's lane pairs' contacts: manifolds (read where `contact` says),
/// the results of the pairs whose manifold the general path builds
/// (`general`), and which positions the lanes took.
struct ChunkContacts {
    manifolds: [Manifold; CHUNK],
    results: [Option<PairResult>; CHUNK],
    taken: u64,
    contact: u64,
    general: u64,
}

impl ChunkContacts {
    fn new() -> ChunkContacts {
        ChunkContacts {
            manifolds: [Manifold::default(); CHUNK],
            results: [None; CHUNK],
            taken: 0,
            contact: 0,
            general: 0,
        }
    }
}

impl ChunkAnswers for ChunkContacts {
    const CIRCLES: bool = true;

    #[inline(always)]
    fn clear(&mut self) {
        (self.taken, self.contact, self.general) = (0, 0, 0);
    }

    #[inline(always)]
    fn answer<V: Lanes, P: PairLanes>(
        &mut self,
        lanes: &mut P,
        positions: &[usize; SEGMENT_PAIRS],
        margin: f32,
    ) {
        let count = lanes.len();
        let kinds =
            lanes.contacts::<V>(margin, positions, (&mut self.manifolds, &mut self.results));
        for (k, &position) in positions.iter().enumerate().take(count) {
            let lane = 1 << k;
            self.taken |= 1 << position;
            self.contact |= u64::from(kinds.contact & lane != 0) << position;
            self.general |= u64::from(kinds.general & lane != 0) << position;
        }
    }
}

/// The segment and circle pairs among pairs `chunk` (at most [`CHUNK`])
/// answered eight at a time into `answers`, while the chunk's data is
/// prefetched for the pass that follows.
#[inline(always)]
fn lane_answers<V: Lanes, T: ChunkAnswers>(
    batch: &Batch,
    chunk: Range<usize>,
    end: usize,
    answers: &mut T,
) {
    answers.clear();
    let shapes = batch.shapes();
    let (records, shape_of, transforms) = (shapes.records(), batch.shape_of(), batch.transforms());
    let margin = batch.margin();
    let mut segments = SegmentPairs::default();
    let mut segment_positions = [0usize; SEGMENT_PAIRS];
    let mut circles = CirclePairs::default();
    let mut circle_positions = [0usize; SEGMENT_PAIRS];
    for index in chunk.clone() {
        if index + PREFETCH_DISTANCE < end {
            prefetch_pair(batch, index + PREFETCH_DISTANCE);
        }
        let pair = batch.pairs()[index];
        let (a, b) = (pair.a as usize, pair.b as usize);
        let (record_a, record_b) = (
            &records[shape_of[a] as usize],
            &records[shape_of[b] as usize],
        );
        if T::CIRCLES && record_a.count == 0 && record_b.count == 0 {
            circle_positions[circles.len()] = index - chunk.start;
            circles.push(
                (transforms[a], record_a.radius),
                (transforms[b], record_b.radius),
            );
            if circles.is_full() {
                answers.answer::<V, _>(&mut circles, &circle_positions, margin);
            }
            continue;
        }
        if record_a.count != 2 || record_b.count != 2 {
            continue;
        }
        let (Ok(edges_a), Ok(edges_b)) = (
            shapes.edges_of(record_a).try_into(),
            shapes.edges_of(record_b).try_into(),
        ) else {
            continue;
        };
        segment_positions[segments.len()] = index - chunk.start;
        segments.push(
            (transforms[a], edges_a, (record_a.size, record_a.radius)),
            (transforms[b], edges_b, (record_b.size, record_b.radius)),
        );
        if segments.is_full() {
            answers.answer::<V, _>(&mut segments, &segment_positions, margin);
        }
    }
    if segments.len() > 0 {
        answers.answer::<V, _>(&mut segments, &segment_positions, margin);
    }
    if circles.len() > 0 {
        answers.answer::<V, _>(&mut circles, &circle_positions, margin);
    }
}

/// Whether the pairs of `range` go through the lanes across pairs: at
/// least half of its first [`CHUNK`] are of two segment cores or (with
/// contacts) two circles. Below that, the pass over a chunk's pairs of those kinds and
/// the choice between the two answers for every pair cost more than the
/// lanes save (measured, 1M pairs, one thread: capsules only, SAT 59.0 ->
/// 35.2 ns a pair through the lanes; a quarter capsule pairs among
/// capsule-polygon and polygon pairs, 60.5 -> 67.7 through them). A
/// sample, once a range: counting every chunk cost that mix 4 ns a pair.
#[inline(always)]
fn mostly_across<T: ChunkAnswers>(batch: &Batch, range: Range<usize>) -> bool {
    let shapes = batch.shapes();
    let circles = T::CIRCLES && shapes.has_circles();
    if !shapes.has_segments() && !circles {
        return false;
    }
    let (records, shape_of) = (shapes.records(), batch.shape_of());
    let count = |body: u32| records[shape_of[body as usize] as usize].count;
    let sample = &batch.pairs()[range.start..range.end.min(range.start + CHUNK)];
    let across = sample
        .iter()
        .filter(|pair| {
            let (a, b) = (count(pair.a), count(pair.b));
            (a == b) & ((circles & (a == 0)) | (a == 2))
        })
        .count();
    2 * across >= sample.len()
}

/// Whether a pair of two records goes through the polygon lanes
/// (`polygons_across.rs`): two polygon cores of 3 to
/// [`POLYGON_LANES_VERTICES`] vertices that the general path would not
/// search merged.
#[inline(always)]
fn in_polygon_lanes(a: &ShapeRecord, b: &ShapeRecord, merge_threshold: u32) -> bool {
    let small = |count: u32| (3..=POLYGON_LANES_VERTICES).contains(&count);
    small(a.count) && small(b.count) && !uses_merge_above(a.count, b.count, merge_threshold)
}

/// Whether the pairs of `range` go through the polygon lanes eight at a
/// time: every one of its first [`CHUNK`] is of two such polygons.
#[inline(always)]
fn all_polygon_lanes(batch: &Batch, range: Range<usize>) -> bool {
    let shapes = batch.shapes();
    let (records, shape_of) = (shapes.records(), batch.shape_of());
    let record = |body: u32| &records[shape_of[body as usize] as usize];
    let merge_threshold = batch.face_search().threshold(CPU_MERGE_THRESHOLD);
    let sample = &batch.pairs()[range.start..range.end.min(range.start + CHUNK)];
    !sample.is_empty()
        && sample
            .iter()
            .all(|pair| in_polygon_lanes(record(pair.a), record(pair.b), merge_threshold))
}

/// What [`polygon_group`] made of the pairs from a start.
enum PolygonGroup {
    /// The eight pairs' results from the lanes, and the pairs (bit `k` for
    /// the `k`-th) whose result is their own path's to give.
    Lanes([Option<PairResult>; SEGMENT_PAIRS], u32),
    /// The first `n` pairs to take one by one: the last of them is of
    /// another kind, or they are the last few.
    Alone(usize),
}

/// The eight pairs from `start` through the polygon lanes, the pairs eight
/// further on prefetched; or as many pairs as reach the first of another
/// kind, or the last few, to be taken one by one.
#[inline(always)]
fn polygon_group<'a, V: Lanes>(
    batch: &Batch<'a>,
    start: usize,
    end: usize,
    lanes: &mut PolygonPairs<'a>,
) -> PolygonGroup {
    if start + SEGMENT_PAIRS > end {
        return PolygonGroup::Alone(end - start);
    }
    let shapes = batch.shapes();
    let (records, shape_of, transforms) = (shapes.records(), batch.shape_of(), batch.transforms());
    let merge_threshold = batch.face_search().threshold(CPU_MERGE_THRESHOLD);
    for index in start..start + SEGMENT_PAIRS {
        if index + SEGMENT_PAIRS < end {
            prefetch_pair(batch, index + SEGMENT_PAIRS);
        }
        let pair = batch.pairs()[index];
        let (a, b) = (pair.a as usize, pair.b as usize);
        let (shape_a, shape_b) = (shape_of[a], shape_of[b]);
        let (record_a, record_b) = (&records[shape_a as usize], &records[shape_b as usize]);
        if !in_polygon_lanes(record_a, record_b, merge_threshold) {
            lanes.clear();
            return PolygonGroup::Alone(index + 1 - start);
        }
        lanes.push(
            (
                transforms[a],
                &shapes.lanes_of(shape_a, record_a)[0],
                shapes.edges_of(record_a),
                (record_a.size, record_a.radius),
            ),
            (
                transforms[b],
                &shapes.lanes_of(shape_b, record_b)[0],
                shapes.edges_of(record_b),
                (record_b.size, record_b.radius),
            ),
        );
    }
    let (results, own_path) = lanes.finish::<V>(batch.margin());
    PolygonGroup::Lanes(results, own_path)
}

// The two loops below share their shape, written out twice: a closure
// passed to a shared loop does not inline into the AVX callers, and the
// lanes' operations then become calls.

#[inline(always)]
fn collide_range_with<V: Lanes>(batch: &Batch, range: Range<usize>, out: &mut Vec<SatHit>) {
    let end = range.end;
    if all_polygon_lanes(batch, range.clone()) {
        // Eight pairs at a time; a pair of another kind, the pairs before
        // it in its group, and the last few, pair by pair.
        let mut lanes = PolygonPairs::default();
        let mut start = range.start;
        while start < end {
            match polygon_group::<V>(batch, start, end, &mut lanes) {
                PolygonGroup::Lanes(results, own_path) => {
                    for (k, result) in results.into_iter().enumerate() {
                        let index = start + k;
                        let hit = if own_path & (1 << k) != 0 {
                            test_pair_with::<V>(batch, index)
                        } else {
                            result.map(|result| SatHit {
                                pair: index as u32,
                                axis: result.axis,
                                depth: -result.separation,
                            })
                        };
                        if let Some(hit) = hit {
                            out.push(hit);
                        }
                    }
                    start += SEGMENT_PAIRS;
                }
                PolygonGroup::Alone(count) => {
                    for index in start..start + count {
                        if let Some(hit) = test_pair_with::<V>(batch, index) {
                            out.push(hit);
                        }
                    }
                    start += count;
                }
            }
        }
        return;
    }
    if !mostly_across::<ChunkResults>(batch, range.clone()) {
        for index in range {
            if index + PREFETCH_DISTANCE < end {
                prefetch_pair(batch, index + PREFETCH_DISTANCE);
            }
            if let Some(hit) = test_pair_with::<V>(batch, index) {
                out.push(hit);
            }
        }
        return;
    }
    let mut answered = ChunkResults::new();
    let mut start = range.start;
    while start < end {
        let chunk = start..(start + CHUNK).min(end);
        start = chunk.end;
        // The segment pairs first, eight at a time (that pass prefetches
        // for this one), then every pair in order.
        lane_answers::<V, _>(batch, chunk.clone(), end, &mut answered);
        for index in chunk.clone() {
            let hit = match answered.get(chunk.start, index) {
                Some(result) => result.map(|result| SatHit {
                    pair: index as u32,
                    axis: result.axis,
                    depth: -result.separation,
                }),
                None => test_pair_with::<V>(batch, index),
            };
            if let Some(hit) = hit {
                out.push(hit);
            }
        }
    }
}

/// SAT, normal and contact manifold of each pair in turn, while the shapes
/// are still in the nearest cache (segment pairs' SAT eight at a time, as
/// in [`collide_range_with`]).
#[inline(always)]
fn contacts_range_with<V: Lanes>(batch: &Batch, range: Range<usize>, out: &mut Vec<Manifold>) {
    let end = range.end;
    let mut pending = PendingClips::new(batch.margin());
    if all_polygon_lanes(batch, range.clone()) {
        // As in `collide_range_with`; each reported pair's manifold from
        // its result, the clip waiting for seven more.
        let mut lanes = PolygonPairs::default();
        let mut start = range.start;
        while start < end {
            match polygon_group::<V>(batch, start, end, &mut lanes) {
                PolygonGroup::Lanes(results, own_path) => {
                    for (k, result) in results.into_iter().enumerate() {
                        let across = (own_path & (1 << k) == 0).then_some(result);
                        contact_with::<V>(batch, start + k, across, (out, &mut pending));
                    }
                    start += SEGMENT_PAIRS;
                }
                PolygonGroup::Alone(count) => {
                    for index in start..start + count {
                        contact_with::<V>(batch, index, None, (out, &mut pending));
                    }
                    start += count;
                }
            }
        }
        pending.flush::<V>(out);
        return;
    }
    if !mostly_across::<ChunkContacts>(batch, range.clone()) {
        for index in range {
            if index + PREFETCH_DISTANCE < end {
                prefetch_pair(batch, index + PREFETCH_DISTANCE);
            }
            contact_with::<V>(batch, index, None, (out, &mut pending));
        }
        pending.flush::<V>(out);
        return;
    }
    let mut answered = ChunkContacts::new();
    let mut start = range.start;
    while start < end {
        let chunk = start..(start + CHUNK).min(end);
        start = chunk.end;
        lane_answers::<V, _>(batch, chunk.clone(), end, &mut answered);
        for index in chunk.clone() {
            let bit = 1 << (index - chunk.start);
            if answered.taken & bit == 0 {
                contact_with::<V>(batch, index, None, (out, &mut pending));
            } else if answered.general & bit != 0 {
                let result = answered.results[index - chunk.start];
                contact_with::<V>(batch, index, Some(result), (out, &mut pending));
            } else {
                // Reported or not, without a branch on it (a coin toss):
                // written, and kept where reported.
                let pair = batch.pairs()[index];
                let mut contact = answered.manifolds[index - chunk.start];
                (contact.pair, contact.a, contact.b) = (index as u32, pair.a, pair.b);
                out.push(contact);
                let kept = out.len() - usize::from(answered.contact & bit == 0);
                out.truncate(kept);
            }
        }
    }
    pending.flush::<V>(out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn contacts_range_avx(batch: &Batch, range: Range<usize>, out: &mut Vec<Manifold>) {
    contacts_range_with::<avx::Avx>(batch, range, out)
}

/// The contact manifolds of the reported pairs in `range`, appended in order:
/// the same as running the SAT, [`Batch::hit`] and
/// [`manifold`](crate::d2::manifold()) one after the other, but pair by pair, so
/// the shapes are read from memory once.
pub fn contacts_range(batch: &Batch, range: Range<usize>, out: &mut Vec<Manifold>) {
    #[cfg(target_arch = "x86_64")]
    if uses_avx() {
        // SAFETY: AVX was detected on this CPU.
        unsafe { contacts_range_avx(batch, range, out) };
        return;
    }
    contacts_range_with::<Portable>(batch, range, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn collide_range_avx(batch: &Batch, range: Range<usize>, out: &mut Vec<SatHit>) {
    collide_range_with::<avx::Avx>(batch, range, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn collide_pair_avx(batch: &Batch, index: usize) -> Option<SatHit> {
    test_pair_with::<avx::Avx>(batch, index)
}

/// Tests pairs `range` of the batch, appending the reported ones in order.
pub fn collide_range(batch: &Batch, range: Range<usize>, out: &mut Vec<SatHit>) {
    #[cfg(target_arch = "x86_64")]
    if uses_avx() {
        // SAFETY: AVX was detected on this CPU.
        unsafe { collide_range_avx(batch, range, out) };
        return;
    }
    collide_range_with::<Portable>(batch, range, out)
}

/// [`contacts_range`] on the portable path, whatever the CPU (for tests
/// and benches).
#[cfg(feature = "testing")]
pub fn contacts_range_portable(batch: &Batch, range: Range<usize>, out: &mut Vec<Manifold>) {
    contacts_range_with::<Portable>(batch, range, out)
}

/// The same on the portable path, whatever the CPU (for tests and benches).
#[cfg(feature = "testing")]
pub fn collide_range_portable(batch: &Batch, range: Range<usize>, out: &mut Vec<SatHit>) {
    collide_range_with::<Portable>(batch, range, out)
}

/// Tests one pair of the batch.
pub fn test_pair(batch: &Batch, index: usize) -> Option<SatHit> {
    #[cfg(target_arch = "x86_64")]
    if uses_avx() {
        // SAFETY: AVX was detected on this CPU.
        return unsafe { collide_pair_avx(batch, index) };
    }
    test_pair_with::<Portable>(batch, index)
}
