//! The 3D CPU narrowphase backends over a [`Batch`].

use super::batch::Batch;
use super::manifold::spheres_across::{SphereContact, contacts as sphere_contacts_across};
use super::manifold::{
    Manifold, capsule_contacts, contact_points, feature_contacts, hull_sphere_contacts,
    sphere_contacts,
};
use super::sat;
use super::sat::EDGE_TOLERANCE;
use super::sat::spheres_across::SpherePairs;
use super::shape::kind::Shape;
use super::types::{Axis, EdgeSearch, EdgeStats, Hit, SatHit};

impl Batch<'_> {
    /// Runs the SAT on the pair at `index`.
    pub fn test_pair(&self, index: usize) -> Option<SatHit> {
        test_pair(self, index, &mut EdgeStats::default())
    }

    /// Completes a backend's result with the bodies and the world normal,
    /// rebuilt from the reported feature.
    pub fn hit(&self, sat_hit: SatHit) -> Hit {
        sat::complete_hit(self, sat_hit)
    }

    /// [`Batch::hit`] for each result, in order.
    pub fn hits(&self, sat_hits: &[SatHit]) -> Vec<Hit> {
        sat_hits.iter().map(|&h| self.hit(h)).collect()
    }
}

/// Asks for what pair `index` reads to be brought into the cache while
/// earlier pairs are tested, in two stages: two pairs ahead its shapes'
/// records (where their arrays are) and its bodies' transforms, one pair
/// ahead the arrays the lanes read. With 1,024 distinct 32-vertex hulls a
/// pair's shapes are seldom in cache, and the lanes would wait on their
/// lines one array after another.
/// Hulls the walk takes prefetch their own. Two boxes ask only for their
/// face rows (`sat/boxes.rs`: their queries read nothing else but the
/// corners beside them). With
/// `contacts`, also what the manifold reads (most pairs of the bench
/// overlap).
#[inline]
fn prefetch_pairs(batch: &Batch, index: usize, contacts: bool) {
    prefetch_bodies(batch, index + 3);
    // The rest of a hull's shape two pairs ahead (`prefetch_bodies` asked
    // for its head a pair earlier, which says its kind).
    if let Some(pair) = batch.pairs().get(index + 2) {
        for body in [pair.a, pair.b] {
            let shape = batch.shape_of(body);
            if !matches!(shape, Shape::Sphere(_) | Shape::Capsule(_)) {
                crate::core::simd::prefetch_value(shape);
            }
        }
    }
    let Some(pair) = batch.pairs().get(index + 1) else {
        return;
    };
    let walk_min = match batch.edge_search() {
        EdgeSearch::Walk => 0,
        _ => sat::walk_min_vertices(),
    };
    let shapes = [pair.a, pair.b].map(|body| batch.shape_of(body));
    if let [Shape::Hull(hull), Shape::Sphere(_)] | [Shape::Sphere(_), Shape::Hull(hull)] = shapes {
        hull.prefetch_for_sphere();
        return;
    }
    let hulls = shapes.map(Shape::core_hull);
    let boxes = walk_min > 8
        && hulls
            .iter()
            .all(|hull| hull.is_some_and(|hull| hull.lanes().cuboid_corners.is_some()));
    for hull in hulls.into_iter().flatten() {
        if boxes {
            hull.prefetch_for_box_faces();
        } else if hull.vertices().len() < walk_min {
            hull.prefetch_for_lanes();
        }
        if contacts {
            hull.prefetch_for_contacts();
        }
    }
}

/// Asks for the head of the shapes (the first two lines of the 736-byte
/// shape: its kind, and all a sphere or a capsule holds, its points and
/// radius) and the transforms of pair `index`'s bodies, if it exists.
#[inline]
fn prefetch_bodies(batch: &Batch, index: usize) {
    if let Some(pair) = batch.pairs().get(index) {
        for body in [pair.a, pair.b] {
            crate::core::simd::prefetch_lines(batch.shape_of(body), 2);
            if let Some(transform) = batch.transforms().get(body as usize) {
                crate::core::simd::prefetch_value(transform);
            }
        }
    }
}

fn test_pair(batch: &Batch, index: usize, stats: &mut EdgeStats) -> Option<SatHit> {
    scalar_pair(batch, index, stats).map(|result| SatHit {
        pair: index as u32,
        axis: result.axis,
        depth: -result.separation,
    })
}

/// Pairs a chunk of the batch loops holds, where most pairs are two
/// capsules, two spheres or two boxes: those go first, eight at a time
/// (`sat/segments_across.rs`, `sat/spheres_across.rs`,
/// `sat/boxes_across.rs`), then every pair in order.
const CHUNK: usize = 64;

/// The two capsules of pair `index`, if it is one: each body's transform,
/// its capsule's points and radius.
#[inline]
#[allow(clippy::type_complexity)]
fn capsule_pair(
    batch: &Batch,
    index: usize,
) -> Option<(
    (super::math::Transform, [glam::Vec3; 2], f32),
    (super::math::Transform, [glam::Vec3; 2], f32),
)> {
    let pair = batch.pairs()[index];
    let side = |body: u32| match batch.shape_of(body) {
        Shape::Capsule(capsule) => Some((
            batch.transforms()[body as usize],
            capsule.points(),
            capsule.radius(),
        )),
        _ => None,
    };
    Some((side(pair.a)?, side(pair.b)?))
}

/// The two spheres of pair `index`, if it is one: each body's transform and
/// its sphere's radius.
#[inline]
#[allow(clippy::type_complexity)]
fn sphere_pair(
    batch: &Batch,
    index: usize,
) -> Option<((super::math::Transform, f32), (super::math::Transform, f32))> {
    let pair = batch.pairs()[index];
    let side = |body: u32| match batch.shape_of(body) {
        Shape::Sphere(sphere) => Some((batch.transforms()[body as usize], sphere.radius())),
        _ => None,
    };
    Some((side(pair.a)?, side(pair.b)?))
}

/// The two boxes of pair `index`, if it is one (two hulls with
/// `BoxRegions`, which `collide_pair` gives `collide_boxes` under every
/// search but the brute force): each body's transform and its hull.
#[inline]
#[allow(clippy::type_complexity)]
fn box_pair<'b>(
    batch: &'b Batch,
    index: usize,
) -> Option<(
    (super::math::Transform, &'b super::shape::shapes::Hull),
    (super::math::Transform, &'b super::shape::shapes::Hull),
)> {
    if batch.edge_search() == EdgeSearch::BruteForce {
        return None;
    }
    let pair = batch.pairs()[index];
    let side = |body: u32| match batch.shape_of(body) {
        Shape::Hull(hull) if hull.lanes().box_regions.is_some() => {
            Some((batch.transforms()[body as usize], hull))
        }
        _ => None,
    };
    Some((side(pair.a)?, side(pair.b)?))
}

/// Whether the pairs of `range` go through the lanes across pairs: at
/// least half of its first [`CHUNK`] are two capsules, two spheres or two
/// boxes. As in
/// 2D, below that the pass over a chunk's pairs of those kinds and the
/// choice between two answers for every pair would cost a mixed batch more
/// than the lanes save.
///
/// Sphere pairs gain with contacts and with the SAT alone (unlike 2D's
/// circles, whose SAT alone stays pair by pair). Measured with `gpusat
/// bench --dim 3 --shapes spheres --backends cpu,cpu-contacts` (one thread,
/// two interleaved runs, ns a pair, pair by pair -> in lanes): 100,000
/// pairs, SAT 24.0-24.3 -> 20.0, SAT and manifold 51.3-52.3 -> 21.9-22.0;
/// 1M pairs, SAT 24.8-25.9 -> 20.8-22.5, SAT and manifold 58.2-61.2 ->
/// 33.3-33.6.
///
/// Box pairs, `gpusat bench --dim 3 --shapes boxes --backends
/// cpu,cpu-contacts` (100,000 pairs, one thread, three interleaved runs,
/// ns a pair, pair by pair -> in lanes): SAT 178.6-182.4 -> 78.1-79.2, SAT
/// and manifold 339.0-353.4 -> 243.4-247.1.
fn mostly_across(batch: &Batch, range: std::ops::Range<usize>) -> bool {
    let sample = range.start..range.end.min(range.start + CHUNK);
    let across = sample
        .clone()
        .filter(|&index| {
            capsule_pair(batch, index).is_some()
                || sphere_pair(batch, index).is_some()
                || box_pair(batch, index).is_some()
        })
        .count();
    2 * across >= sample.len() && across > 0
}

/// A chunk's pairs answered in lanes across pairs, by position in the
/// chunk: SAT results (`taken`), and, with contacts, sphere pairs' contacts
/// (`sphere_taken`, kept where `sphere_reported`). Made once a range,
/// refilled each chunk.
struct ChunkAnswers {
    results: [Option<sat::PairResult>; CHUNK],
    taken: u64,
    spheres: [SphereContact; CHUNK],
    sphere_taken: u64,
    sphere_reported: u64,
}

impl ChunkAnswers {
    fn new() -> ChunkAnswers {
        ChunkAnswers {
            results: [None; CHUNK],
            taken: 0,
            spheres: [SphereContact::default(); CHUNK],
            sphere_taken: 0,
            sphere_reported: 0,
        }
    }

    /// Pair `index`'s result: the lanes' where they answered it, else the
    /// scalar path's.
    #[inline(always)]
    fn result(
        &self,
        batch: &Batch,
        (chunk_start, index): (usize, usize),
        stats: &mut EdgeStats,
    ) -> Option<sat::PairResult> {
        let position = index - chunk_start;
        if self.taken & (1 << position) != 0 {
            self.results[position]
        } else {
            scalar_pair(batch, index, stats)
        }
    }
}

/// The capsule, sphere and box pairs of a chunk (at most [`CHUNK`])
/// answered eight at a time into `answers` (with `contacts`, the spheres'
/// contacts; without, their results); a capsule lane the check sends back
/// goes through the scalar path.
fn lane_answers(
    batch: &Batch,
    chunk: std::ops::Range<usize>,
    contacts: bool,
    stats: &mut EdgeStats,
    answers: &mut ChunkAnswers,
) {
    (answers.taken, answers.sphere_taken, answers.sphere_reported) = (0, 0, 0);
    let margin = batch.margin();
    let mut capsules = sat::CapsulePairs::default();
    let mut capsule_at = [0usize; sat::CAPSULE_PAIRS];
    let mut spheres = SpherePairs::default();
    let mut sphere_at = [0usize; sat::CAPSULE_PAIRS];
    let flush_capsules = |lanes: &mut sat::CapsulePairs,
                          at: &[usize; sat::CAPSULE_PAIRS],
                          answers: &mut ChunkAnswers,
                          stats: &mut EdgeStats| {
        let count = lanes.len();
        for (&position, answer) in at.iter().zip(lanes.finish(margin)).take(count) {
            answers.results[position] = match answer {
                Ok(result) => result,
                Err(()) => scalar_pair(batch, chunk.start + position, stats),
            };
            answers.taken |= 1 << position;
        }
    };
    let flush_spheres =
        |lanes: &mut SpherePairs, at: &[usize; sat::CAPSULE_PAIRS], answers: &mut ChunkAnswers| {
            let count = lanes.len();
            if contacts {
                let reported = sphere_contacts_across(lanes, margin, at, &mut answers.spheres);
                for (lane, &position) in at.iter().enumerate().take(count) {
                    answers.sphere_taken |= 1 << position;
                    answers.sphere_reported |= u64::from(reported >> lane & 1) << position;
                }
            } else {
                for (&position, result) in at.iter().zip(lanes.finish(margin)).take(count) {
                    answers.results[position] = result;
                    answers.taken |= 1 << position;
                }
            }
        };
    let mut boxes = sat::BoxPairs::default();
    let mut box_at = [0usize; sat::CAPSULE_PAIRS];
    let flush_boxes = |lanes: &mut sat::BoxPairs,
                       at: &[usize; sat::CAPSULE_PAIRS],
                       answers: &mut ChunkAnswers| {
        let count = lanes.len();
        for (&position, answer) in at.iter().zip(lanes.finish(margin)).take(count) {
            if let Ok(result) = answer {
                answers.results[position] = result;
                answers.taken |= 1 << position;
            }
        }
    };
    for index in chunk.clone() {
        // A capsule or sphere pair reads its bodies' transforms and the
        // head of their shapes only (a capsule's points and radius, a
        // sphere's radius: the first two lines of the shape enum, whose
        // hull variant is twelve).
        if let Some(pair) = batch.pairs().get(index + 4) {
            for body in [pair.a, pair.b] {
                crate::core::simd::prefetch_lines(batch.shape_of(body), 2);
                if let Some(transform) = batch.transforms().get(body as usize) {
                    crate::core::simd::prefetch_lines(transform, 2);
                }
            }
        }
        let position = index - chunk.start;
        if let Some((a, b)) = capsule_pair(batch, index) {
            capsule_at[capsules.len()] = position;
            capsules.push(a, b);
            if capsules.is_full() {
                flush_capsules(&mut capsules, &capsule_at, answers, stats);
            }
        } else if let Some((a, b)) = sphere_pair(batch, index) {
            sphere_at[spheres.len()] = position;
            spheres.push(a, b);
            if spheres.is_full() {
                flush_spheres(&mut spheres, &sphere_at, answers);
            }
        } else if let Some((a, b)) = box_pair(batch, index) {
            box_at[boxes.len()] = position;
            if boxes.push(a, b) && boxes.is_full() {
                flush_boxes(&mut boxes, &box_at, answers);
            }
        }
    }
    if boxes.len() > 0 {
        flush_boxes(&mut boxes, &box_at, answers);
    }
    if capsules.len() > 0 {
        flush_capsules(&mut capsules, &capsule_at, answers, stats);
    }
    if spheres.len() > 0 {
        flush_spheres(&mut spheres, &sphere_at, answers);
    }
}

/// Pair `index` through the scalar SAT.
fn scalar_pair(batch: &Batch, index: usize, stats: &mut EdgeStats) -> Option<sat::PairResult> {
    let pair = batch.pairs()[index];
    let (a, b) = (pair.a as usize, pair.b as usize);
    sat::collide_pair(
        batch.transforms()[a],
        batch.transforms()[b],
        batch.shape_of(pair.a),
        batch.shape_of(pair.b),
        batch.margin(),
        batch.edge_search(),
        stats,
    )
}

/// Pairs `range` of the batch, appending the reported ones in order:
/// through the lanes across pairs where most pairs are two capsules, two
/// spheres or two boxes, else pair by pair.
fn collide_range(
    batch: &Batch,
    range: std::ops::Range<usize>,
    out: &mut Vec<SatHit>,
    stats: &mut EdgeStats,
) {
    let push = |out: &mut Vec<SatHit>, index: usize, result: Option<sat::PairResult>| {
        if let Some(result) = result {
            out.push(SatHit {
                pair: index as u32,
                axis: result.axis,
                depth: -result.separation,
            });
        }
    };
    if !mostly_across(batch, range.clone()) {
        for index in range {
            prefetch_pairs(batch, index, false);
            push(out, index, scalar_pair(batch, index, stats));
        }
        return;
    }
    let mut answers = ChunkAnswers::new();
    let mut start = range.start;
    while start < range.end {
        let chunk = start..(start + CHUNK).min(range.end);
        start = chunk.end;
        lane_answers(batch, chunk.clone(), false, stats, &mut answers);
        for index in chunk.clone() {
            push(
                out,
                index,
                answers.result(batch, (chunk.start, index), stats),
            );
        }
    }
}

/// The reference: every pair in order on one thread.
pub fn collide_cpu(batch: &Batch) -> Vec<SatHit> {
    collide_cpu_with_stats(batch).0
}

/// [`collide_cpu`], and how many edge pairs were looked at and kept.
pub fn collide_cpu_with_stats(batch: &Batch) -> (Vec<SatHit>, EdgeStats) {
    let mut hits = Vec::with_capacity(batch.pairs().len());
    let mut stats = EdgeStats::default();
    collide_range(batch, 0..batch.pairs().len(), &mut hits, &mut stats);
    (hits, stats)
}

/// The same computation as [`collide_cpu`] on all cores; the same hits, in
/// the same order.
#[cfg(feature = "parallel")]
pub fn collide_cpu_parallel(batch: &Batch) -> Vec<SatHit> {
    crate::core::parallel::in_parallel_chunks_weighted(
        batch.pairs().len(),
        pair_weight(batch),
        |range, hits| collide_range(batch, range, hits, &mut EdgeStats::default()),
    )
}

/// About how many 2D polygon pairs one of the batch's pairs costs, from the
/// bodies' mean vertex count `v`: `v^2 / 4`, between 1 and 4,096. Measured
/// with `gpusat bench` (one thread, ns per pair, against 45 for 8-gons):
/// boxes 680 (15x; the estimate 16), 32-vertex hulls 12,700 (280; 256),
/// 256-vertex hulls 170,000 (3,800; 4,096).
#[cfg(feature = "parallel")]
fn pair_weight(batch: &Batch) -> usize {
    let bodies = batch.bodies().len();
    if bodies == 0 {
        return 1;
    }
    let vertices: usize = (0..bodies as u32)
        .map(|body| {
            batch
                .shape_of(body)
                .core_hull()
                .map_or(1, |h| h.vertices().len())
        })
        .sum();
    let mean = vertices / bodies;
    (mean * mean / 4).clamp(1, 4096)
}

/// SAT and contact manifold of each reported pair, in pair order, one pair
/// at a time while its shapes are in cache.
pub fn contacts_cpu(batch: &Batch) -> Vec<Manifold> {
    // As in 2D: room for every pair, touched only where written.
    let mut out = Vec::with_capacity(batch.pairs().len());
    contacts_range(batch, 0..batch.pairs().len(), &mut out);
    out
}

/// [`contacts_cpu`] into a caller's vector (cleared first), so that a
/// caller running frame after frame reuses one allocation: a fresh output
/// of a million manifolds (112 MB) otherwise costs a page fault per 4 KiB
/// written and, without the room reserved, copies as it grows.
pub fn contacts_cpu_into(batch: &Batch, out: &mut Vec<Manifold>) {
    out.clear();
    out.reserve(batch.pairs().len());
    contacts_range(batch, 0..batch.pairs().len(), out);
}

fn contacts_range(batch: &Batch, range: std::ops::Range<usize>, out: &mut Vec<Manifold>) {
    let mut stats = EdgeStats::default();
    if !mostly_across(batch, range.clone()) {
        for index in range {
            prefetch_pairs(batch, index, true);
            let result = scalar_pair(batch, index, &mut stats);
            contact_of(batch, index, result, out);
        }
        return;
    }
    let mut answers = ChunkAnswers::new();
    let mut start = range.start;
    while start < range.end {
        let chunk = start..(start + CHUNK).min(range.end);
        start = chunk.end;
        lane_answers(batch, chunk.clone(), true, &mut stats, &mut answers);
        for index in chunk.clone() {
            let bit = 1 << (index - chunk.start);
            if answers.sphere_taken & bit != 0 {
                // Reported or not, without a branch on it (a coin toss):
                // written, and kept where reported.
                let pair = batch.pairs()[index];
                let contact = answers.spheres[index - chunk.start];
                out.push(contact.manifold(index as u32, pair.a, pair.b));
                let kept = out.len() - usize::from(answers.sphere_reported & bit == 0);
                out.truncate(kept);
            } else {
                let result = answers.result(batch, (chunk.start, index), &mut stats);
                contact_of(batch, index, result, out);
            }
        }
    }
}

/// The manifold of pair `index` from its SAT result, appended if reported.
#[inline(always)]
fn contact_of(
    batch: &Batch,
    index: usize,
    result: Option<sat::PairResult>,
    out: &mut Vec<Manifold>,
) {
    let Some(result) = result else {
        return;
    };
    let pair = batch.pairs()[index];
    if let (Shape::Sphere(a), Shape::Sphere(b)) = (batch.shape_of(pair.a), batch.shape_of(pair.b)) {
        // Two spheres: the normal and the point from one centre line.
        out.push(sphere_contacts(
            (index as u32, pair.a, pair.b),
            (batch.transforms()[pair.a as usize], a.radius()),
            (batch.transforms()[pair.b as usize], b.radius()),
            result.axis,
        ));
        return;
    }
    match (batch.shape_of(pair.a), batch.shape_of(pair.b)) {
        // A hull and a sphere: the normal and the point from one finding
        // of the hull's nearest feature.
        (Shape::Hull(hull), Shape::Sphere(sphere)) => {
            out.push(hull_sphere_contacts(
                (index as u32, pair.a, pair.b),
                (batch.transforms()[pair.a as usize], hull),
                (batch.transforms()[pair.b as usize], sphere.radius()),
                result.axis,
                true,
            ));
            return;
        }
        (Shape::Sphere(sphere), Shape::Hull(hull)) => {
            out.push(hull_sphere_contacts(
                (index as u32, pair.a, pair.b),
                (batch.transforms()[pair.b as usize], hull),
                (batch.transforms()[pair.a as usize], sphere.radius()),
                result.axis,
                false,
            ));
            return;
        }
        _ => {}
    }
    if let (Shape::Capsule(a), Shape::Capsule(b)) = (batch.shape_of(pair.a), batch.shape_of(pair.b))
    {
        // Two capsules: the normal and the points from one finding of the
        // closest points (the same bits as the lines below).
        out.push(capsule_contacts(
            (index as u32, pair.a, pair.b),
            (batch.transforms()[pair.a as usize], a),
            (batch.transforms()[pair.b as usize], b),
            (result.axis, -result.separation),
        ));
        return;
    }
    // A pair of the cores' features (a capsule and a sphere, cores apart):
    // the normal and the point from one finding of the features' points.
    let (xf_a, xf_b) = (
        batch.transforms()[pair.a as usize],
        batch.transforms()[pair.b as usize],
    );
    if let Some(manifold) = feature_contacts(
        (index as u32, pair.a, pair.b),
        (xf_a, batch.shape_of(pair.a)),
        (xf_b, batch.shape_of(pair.b)),
        (result.axis, -result.separation),
    ) {
        out.push(manifold);
        return;
    }
    let hit = batch.hit(SatHit {
        pair: index as u32,
        axis: result.axis,
        depth: -result.separation,
    });
    let mut manifold = Manifold::new(hit.pair, hit.a, hit.b, hit.normal);
    contact_points(
        &mut manifold,
        (xf_a, batch.shape_of(hit.a)),
        (xf_b, batch.shape_of(hit.b)),
        &hit,
        batch.margin(),
    );
    out.push(manifold);
}

/// [`contacts_cpu`] on all cores; the same result.
#[cfg(feature = "parallel")]
pub fn contacts_cpu_parallel(batch: &Batch) -> Vec<Manifold> {
    crate::core::parallel::in_parallel_chunks_weighted(
        batch.pairs().len(),
        pair_weight(batch),
        |range, out| contacts_range(batch, range, out),
    )
}

impl crate::core::check::CheckedHit for SatHit {
    fn pair(&self) -> u32 {
        self.pair
    }
    fn depth(&self) -> f32 {
        self.depth
    }
    fn same_axis(&self, other: &SatHit) -> bool {
        self.axis == other.axis
    }
    /// A face against an edge pair, or against the nearest features of two
    /// rounded shapes' cores apart (`VertexEdge`, `EdgeVertex`,
    /// `Vertices`): the tie rule keeps the face unless the other's
    /// separation is larger by more than `EDGE_TOLERANCE x (size_a +
    /// size_b)`, at most twice that times the larger size.
    fn tie_allowance(&self, other: &SatHit) -> f32 {
        let is_face = |axis: &Axis| matches!(axis, Axis::FaceA(_) | Axis::FaceB(_));
        let yields_to_a_face = |axis: &Axis| {
            matches!(
                axis,
                Axis::Edges(..) | Axis::VertexEdge(..) | Axis::EdgeVertex(..) | Axis::Vertices(..)
            )
        };
        let (a, b) = (&self.axis, &other.axis);
        if (is_face(a) && yields_to_a_face(b)) || (is_face(b) && yields_to_a_face(a)) {
            2.0 * EDGE_TOLERANCE
        } else {
            0.0
        }
    }
}

/// Compares a candidate backend's 3D hits with the reference's (both in pair
/// order), with the 2D rules ([`crate::d2::compare_hits`]): one side only within
/// `TOUCH_TOLERANCE x size` of touching, other axes only at near-ties, depths
/// within `DEPTH_TOLERANCE x size`; a face against an edge pair at a near-tie
/// within the edge tolerance more (the tie rule's window: it keeps a face
/// over an edge pair unless the pair is larger by `EDGE_TOLERANCE x (size_a
/// + size_b)`, so a backend whose last bits differ may keep the other).
pub fn compare_hits(
    batch: &Batch,
    reference: &[SatHit],
    candidate: &[SatHit],
) -> crate::core::check::Agreement {
    crate::core::check::compare(
        (batch.pairs().len(), batch.margin()),
        |pair| batch.pair_size(pair),
        reference,
        candidate,
    )
}
