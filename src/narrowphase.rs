//! The narrowphase's input and output, shared by every backend.
//!
//! A [`Batch`] is a validated set of candidate pairs over a shape library and
//! a list of bodies. A backend turns it into [`SatHit`]s, the reported pairs in
//! pair order, each with its axis feature and depth; [`Batch::hit`] adds the
//! bodies and the world normal. Because every backend takes the same input and
//! gives the same output type, any two can be compared pair by pair.

use bytemuck::{Pod, Zeroable};
use glam::Vec2;
use rayon::prelude::*;

use crate::body::Body;
use crate::error::{Error, PairError};
use crate::math::Transform;
use crate::sat;
use crate::sat_lanes;
use crate::shape::ShapeSet;

/// A candidate pair of body indices. 8 bytes, uploaded to the GPU as is.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Pod, Zeroable)]
pub struct Pair {
    pub a: u32,
    pub b: u32,
}

impl Pair {
    pub fn new(a: u32, b: u32) -> Pair {
        Pair { a, b }
    }
}

/// Which body of a pair owns an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    A,
    B,
}

/// The axis of a result, as a feature of one of the two shapes. See the
/// [`sat`](crate::sat) module for the numbering of features.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Axis {
    pub owner: Owner,
    pub feature: u32,
}

impl Axis {
    const OWNER_B_BIT: u32 = 1 << 31;

    pub fn new(owner: Owner, feature: u32) -> Axis {
        Axis { owner, feature }
    }

    /// The 32-bit form the GPU writes: bit 31 set for owner B, the feature below.
    pub fn pack(self) -> u32 {
        match self.owner {
            Owner::A => self.feature,
            Owner::B => self.feature | Axis::OWNER_B_BIT,
        }
    }

    pub fn unpack(bits: u32) -> Axis {
        let owner = if bits & Axis::OWNER_B_BIT != 0 {
            Owner::B
        } else {
            Owner::A
        };
        Axis::new(owner, bits & !Axis::OWNER_B_BIT)
    }
}

/// What a narrowphase backend reports for one pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SatHit {
    /// Index of the pair in the batch.
    pub pair: u32,
    pub axis: Axis,
    /// Penetration depth; negative for a separated pair reported through the margin.
    pub depth: f32,
}

/// A reported pair with its bodies and world normal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub pair: u32,
    pub a: u32,
    pub b: u32,
    /// Unit vector from A to B: moving B by `normal * depth` makes them touch.
    pub normal: Vec2,
    pub depth: f32,
    pub axis: Axis,
}

/// A validated narrowphase input.
#[derive(Clone, Debug)]
pub struct Batch<'a> {
    shapes: &'a ShapeSet,
    bodies: &'a [Body],
    pairs: &'a [Pair],
    transforms: Vec<Transform>,
    /// Each body's shape, packed: the narrowphase reads little else of a body.
    shape_of: Vec<u32>,
    margin: f32,
    face_search: sat::FaceSearch,
}

impl<'a> Batch<'a> {
    /// Checks every body and pair; an error names the first bad one.
    pub fn new(
        shapes: &'a ShapeSet,
        bodies: &'a [Body],
        pairs: &'a [Pair],
        margin: f32,
    ) -> Result<Batch<'a>, Error> {
        if !margin.is_finite() || margin < 0.0 {
            return Err(Error::Margin { margin });
        }
        for (index, body) in bodies.iter().enumerate() {
            body.validate(shapes.len())
                .map_err(|reason| Error::Body { index, reason })?;
        }
        validate_pairs(pairs, bodies.len())?;
        Ok(Batch {
            shapes,
            bodies,
            pairs,
            transforms: bodies.iter().map(Body::transform).collect(),
            shape_of: bodies.iter().map(|body| body.shape).collect(),
            margin,
            face_search: sat::FaceSearch::Auto,
        })
    }

    pub fn shapes(&self) -> &'a ShapeSet {
        self.shapes
    }

    pub fn bodies(&self) -> &'a [Body] {
        self.bodies
    }

    pub fn pairs(&self) -> &'a [Pair] {
        self.pairs
    }

    /// Each body's transform, computed once (cosine and sine included).
    pub fn transforms(&self) -> &[Transform] {
        &self.transforms
    }

    /// Each body's shape index.
    pub fn shape_of(&self) -> &[u32] {
        &self.shape_of
    }

    pub fn margin(&self) -> f32 {
        self.margin
    }

    /// Chooses how large polygons search each other's vertices (for
    /// benchmarks; the default picks by size, per backend). Every backend
    /// follows it.
    pub fn with_face_search(self, face_search: sat::FaceSearch) -> Batch<'a> {
        Batch {
            face_search,
            ..self
        }
    }

    pub fn face_search(&self) -> sat::FaceSearch {
        self.face_search
    }

    /// Runs the reference SAT on the pair at `index` (vectorised across
    /// faces; bit for bit the scalar [`sat::collide_pair`]).
    #[inline]
    pub fn test_pair(&self, index: usize) -> Option<SatHit> {
        sat_lanes::test_pair(self, index)
    }

    /// Completes a backend's result with the bodies and the world normal.
    pub fn hit(&self, sat_hit: SatHit) -> Hit {
        let pair = self.pairs[sat_hit.pair as usize];
        let (a, b) = (pair.a as usize, pair.b as usize);
        let records = self.shapes.records();
        let (shape_a, shape_b) = (self.shape_of[a], self.shape_of[b]);
        let normal = sat::axis_normal(
            self.shapes,
            self.transforms[a],
            self.transforms[b],
            (shape_a, &records[shape_a as usize]),
            (shape_b, &records[shape_b as usize]),
            sat_hit.axis,
        );
        Hit {
            pair: sat_hit.pair,
            a: pair.a,
            b: pair.b,
            normal,
            depth: sat_hit.depth,
            axis: sat_hit.axis,
        }
    }

    pub fn hits(&self, sat_hits: &[SatHit]) -> Vec<Hit> {
        sat_hits.iter().map(|&h| self.hit(h)).collect()
    }
}

/// Checks that every pair names two different existing bodies.
pub fn validate_pairs(pairs: &[Pair], bodies: usize) -> Result<(), Error> {
    for (index, pair) in pairs.iter().enumerate() {
        for body in [pair.a, pair.b] {
            if body as usize >= bodies {
                return Err(Error::Pair {
                    index,
                    reason: PairError::MissingBody { body, bodies },
                });
            }
        }
        if pair.a == pair.b {
            return Err(Error::Pair {
                index,
                reason: PairError::SelfPair { body: pair.a },
            });
        }
    }
    Ok(())
}

/// The reference: every pair in order on one thread.
pub fn collide_cpu(batch: &Batch) -> Vec<SatHit> {
    // Room for every pair to hit: pages never written are never touched, and
    // growing by doubling would copy a large output twice over.
    let mut hits = Vec::with_capacity(batch.pairs.len());
    sat_lanes::collide_range(batch, 0..batch.pairs.len(), &mut hits);
    hits
}

/// Every pair through the scalar reference, one face at a time
/// ([`sat::collide_pair`], the WGSL kernel's twin): the same hits as
/// [`collide_cpu`], bit for bit, several times slower. For checking and for
/// measuring what the vectorised path gains.
pub fn collide_scalar(batch: &Batch) -> Vec<SatHit> {
    let records = batch.shapes.records();
    let threshold = batch.face_search.threshold(sat::CPU_MERGE_THRESHOLD);
    let mut hits = Vec::new();
    for (index, pair) in batch.pairs.iter().enumerate() {
        let (a, b) = (pair.a as usize, pair.b as usize);
        if let Some(result) = sat::collide_pair(
            batch.shapes,
            batch.transforms[a],
            batch.transforms[b],
            &records[batch.shape_of[a] as usize],
            &records[batch.shape_of[b] as usize],
            batch.margin,
            threshold,
        ) {
            hits.push(SatHit {
                pair: index as u32,
                axis: result.axis,
                depth: -result.separation,
            });
        }
    }
    hits
}

/// Checks that the results of a batch of `pairs` pairs, in the worst case
/// (every pair reported, `T` each), can be allocated, and returns an empty
/// vector with that room: a batch too large for the machine is then an
/// error saying how much it needs instead of an abort half-way.
pub fn reserve_output<T>(pairs: usize, what: &str) -> Result<Vec<T>, Error> {
    let mut out = Vec::new();
    out.try_reserve_exact(pairs)
        .map_err(|_| Error::OutOfMemory {
            what: format!("the {what} of {pairs} pairs"),
            bytes: pairs as u128 * size_of::<T>() as u128,
        })?;
    Ok(out)
}

/// Pairs per rayon task: at most 4,096 (small enough to balance dense and
/// sparse stretches of a batch), at least 2,048 (about 0.1 ms of work, as
/// long as waking a pool thread can take on a virtual machine), and
/// otherwise eight tasks per thread so that a batch of ten thousand pairs
/// still keeps every core busy to the end.
fn parallel_chunk(count: usize) -> usize {
    (count / (8 * rayon::current_num_threads()).max(1)).clamp(2048, 4096)
}

/// Below this many pairs the parallel variants run on the calling thread:
/// waking the pool's threads took 0.1 to 0.2 ms on the 2-core virtual
/// machine of the README's figures, as long as 5,000 pairs take on one
/// thread, and 10,000 pairs split in parallel ran 0.9 to 1.05x one thread.
pub const PARALLEL_MIN_PAIRS: usize = 16_384;

/// Runs `range_fn` over the batch's pairs in parallel chunks, each into an
/// output reserved for the worst case (every pair reported), and joins the
/// outputs in pair order.
fn in_parallel_chunks<T: Copy + Send + Sync>(
    count: usize,
    range_fn: impl Fn(std::ops::Range<usize>, &mut Vec<T>) + Sync,
) -> Vec<T> {
    let chunk_len = parallel_chunk(count);
    if count < PARALLEL_MIN_PAIRS {
        // Handing work to the pool costs a round trip that, measured with
        // `gpusat bench`, outweighs splitting less than this.
        let mut out = Vec::with_capacity(count);
        range_fn(0..count, &mut out);
        return out;
    }
    let chunks: Vec<Vec<T>> = (0..count.div_ceil(chunk_len))
        .into_par_iter()
        .map(|chunk| {
            let start = chunk * chunk_len;
            let end = (start + chunk_len).min(count);
            let mut out = Vec::with_capacity(end - start);
            range_fn(start..end, &mut out);
            out
        })
        .collect();
    concat_parallel(chunks)
}

/// Joins per-chunk results in order, copying them in parallel: a large output
/// is fresh memory, and first touching it (page faults) is then shared by the
/// cores instead of following the parallel work on one.
fn concat_parallel<T: Copy + Send + Sync>(chunks: Vec<Vec<T>>) -> Vec<T> {
    let total: usize = chunks.iter().map(Vec::len).sum();
    let mut out: Vec<T> = Vec::with_capacity(total);
    {
        let mut rest = &mut out.spare_capacity_mut()[..total];
        let mut places = Vec::with_capacity(chunks.len());
        for chunk in &chunks {
            let (place, tail) = rest.split_at_mut(chunk.len());
            places.push(place);
            rest = tail;
        }
        places
            .into_par_iter()
            .zip(chunks.par_iter())
            .for_each(|(place, chunk)| {
                for (slot, item) in place.iter_mut().zip(chunk) {
                    slot.write(*item);
                }
            });
    }
    // SAFETY: the `total` slots were split into one place per chunk, each
    // exactly as long as its chunk, and every place was written in full.
    unsafe { out.set_len(total) };
    out
}

/// The same computation as [`collide_cpu`] on all cores; the result is
/// identical, bit for bit and in the same order.
pub fn collide_cpu_parallel(batch: &Batch) -> Vec<SatHit> {
    in_parallel_chunks(batch.pairs.len(), |range, hits| {
        sat_lanes::collide_range(batch, range, hits)
    })
}

/// Contact manifolds of every reported pair, in pair order, on one thread:
/// SAT, normal and clipping done pair by pair (faster than
/// [`collide_cpu`], [`Batch::hits`] and [`manifolds`](crate::manifolds) in
/// turn, which read every shape twice).
pub fn contacts_cpu(batch: &Batch) -> Vec<crate::manifold::Manifold> {
    // As in `collide_cpu`: room for every pair, touched only where written.
    let mut contacts = Vec::with_capacity(batch.pairs.len());
    sat_lanes::contacts_range(batch, 0..batch.pairs.len(), &mut contacts);
    contacts
}

/// [`contacts_cpu`] into a caller's vector (cleared first), so that a
/// caller running frame after frame reuses one allocation: a fresh output of
/// a million manifolds (56 MB) otherwise costs a page fault per 4 KiB
/// written, about 15 ns per pair on the README's machine.
pub fn contacts_cpu_into(batch: &Batch, contacts: &mut Vec<crate::manifold::Manifold>) {
    contacts.clear();
    contacts.reserve(batch.pairs.len());
    sat_lanes::contacts_range(batch, 0..batch.pairs.len(), contacts);
}

/// [`contacts_cpu`] on all cores; the same result.
pub fn contacts_cpu_parallel(batch: &Batch) -> Vec<crate::manifold::Manifold> {
    in_parallel_chunks(batch.pairs.len(), |range, contacts| {
        sat_lanes::contacts_range(batch, range, contacts)
    })
}
