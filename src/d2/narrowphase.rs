//! The CPU narrowphase backends over a [`Batch`].
//!
//! Each returns the reported pairs as [`SatHit`]s in pair order, computed by
//! [the SAT](crate::d2::sat) eight faces at a time (bit for bit the scalar
//! reference, [`collide_scalar`]); [`Batch::hit`] adds the bodies and the
//! world normal. The `*_parallel` variants (the `parallel` feature) split
//! the batch over rayon's pool and return the same bits in the same order.
//! [`contacts_cpu`] fuses the SAT with the contact clipping, pair by pair.

use crate::core::alloc::reserve;
use crate::core::check::{Agreement, CheckedHit, compare};
use crate::core::error::Error;
use crate::d2::batch::Batch;
use crate::d2::manifold::Manifold;
use crate::d2::sat::{self, CPU_MERGE_THRESHOLD};
use crate::d2::types::{Hit, SatHit};

impl Batch<'_> {
    /// Runs the reference SAT on the pair at `index` (vectorised across
    /// faces; bit for bit the scalar reference).
    #[inline]
    pub fn test_pair(&self, index: usize) -> Option<SatHit> {
        sat::test_pair(self, index)
    }

    /// Completes a backend's result with the bodies and the world normal,
    /// rebuilt from the reported feature: two backends that report the same
    /// feature report the same normal bits.
    pub fn hit(&self, sat_hit: SatHit) -> Hit {
        sat::complete_hit(self, sat_hit)
    }

    /// [`Batch::hit`] for each result, in order.
    pub fn hits(&self, sat_hits: &[SatHit]) -> Vec<Hit> {
        sat_hits.iter().map(|&h| self.hit(h)).collect()
    }
}

/// The reference: every pair in order on one thread.
pub fn collide_cpu(batch: &Batch) -> Vec<SatHit> {
    // Room for every pair to hit: pages never written are never touched, and
    // growing by doubling would copy a large output twice over.
    let mut hits = Vec::with_capacity(batch.pairs().len());
    sat::collide_range(batch, 0..batch.pairs().len(), &mut hits);
    hits
}

/// [`collide_cpu`] into a caller's vector (cleared first), checking first
/// that the worst case (every pair reported) can be allocated: a batch too
/// large for the machine is then an error saying how much it needs instead
/// of an abort half-way.
pub fn collide_cpu_into(batch: &Batch, hits: &mut Vec<SatHit>) -> Result<(), Error> {
    hits.clear();
    reserve(hits, batch.pairs().len(), "hits")?;
    sat::collide_range(batch, 0..batch.pairs().len(), hits);
    Ok(())
}

/// Every pair through the scalar reference, one face at a time (the WGSL
/// kernel's twin): the same hits as [`collide_cpu`], bit for bit, several
/// times slower. For checking and for measuring what the vectorised path
/// gains.
pub fn collide_scalar(batch: &Batch) -> Vec<SatHit> {
    let threshold = batch.face_search().threshold(CPU_MERGE_THRESHOLD);
    let shapes = batch.shapes();
    let mut hits = Vec::new();
    for (index, pair) in batch.pairs().iter().enumerate() {
        let (a, b) = (pair.a as usize, pair.b as usize);
        if let Some(result) = sat::collide_pair(
            batch.transforms()[a],
            batch.transforms()[b],
            shapes.view(batch.shape_of()[a]),
            shapes.view(batch.shape_of()[b]),
            batch.margin(),
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

/// The same computation as [`collide_cpu`] on all cores; the result is
/// identical, bit for bit and in the same order.
#[cfg(feature = "parallel")]
pub fn collide_cpu_parallel(batch: &Batch) -> Vec<SatHit> {
    crate::core::parallel::in_parallel_chunks(batch.pairs().len(), |range, hits| {
        sat::collide_range(batch, range, hits)
    })
}

/// Contact manifolds of every reported pair, in pair order, on one thread:
/// SAT, normal and clipping done pair by pair (faster than
/// [`collide_cpu`], [`Batch::hits`] and [`manifolds`](crate::d2::manifolds) in
/// turn, which read every shape twice).
pub fn contacts_cpu(batch: &Batch) -> Vec<Manifold> {
    // As in `collide_cpu`: room for every pair, touched only where written.
    let mut contacts = Vec::with_capacity(batch.pairs().len());
    sat::contacts_range(batch, 0..batch.pairs().len(), &mut contacts);
    contacts
}

/// [`contacts_cpu`] into a caller's vector (cleared first), so that a
/// caller running frame after frame reuses one allocation: a fresh output of
/// a million manifolds (56 MB) otherwise costs a page fault per 4 KiB
/// written, about 15 ns per pair on a 2-vCPU Xeon virtual machine.
pub fn contacts_cpu_into(batch: &Batch, contacts: &mut Vec<Manifold>) {
    contacts.clear();
    contacts.reserve(batch.pairs().len());
    sat::contacts_range(batch, 0..batch.pairs().len(), contacts);
}

/// [`contacts_cpu`] on all cores; the same result.
#[cfg(feature = "parallel")]
pub fn contacts_cpu_parallel(batch: &Batch) -> Vec<Manifold> {
    crate::core::parallel::in_parallel_chunks(batch.pairs().len(), |range, contacts| {
        sat::contacts_range(batch, range, contacts)
    })
}

/// [`collide_cpu_parallel`] when the library has the `parallel` feature,
/// else [`collide_cpu`]: for the library's own pipelines.
pub(crate) fn collide_cpu_best(batch: &Batch) -> Vec<SatHit> {
    #[cfg(feature = "parallel")]
    return collide_cpu_parallel(batch);
    #[cfg(not(feature = "parallel"))]
    return collide_cpu(batch);
}

/// [`manifolds_parallel`](crate::d2::manifolds_parallel) with the `parallel`
/// feature, else [`manifolds`](crate::d2::manifolds).
pub(crate) fn manifolds_best(batch: &Batch, hits: &[Hit]) -> Vec<Manifold> {
    #[cfg(feature = "parallel")]
    return crate::d2::manifold::manifolds_parallel(batch, hits);
    #[cfg(not(feature = "parallel"))]
    return crate::d2::manifold::manifolds(batch, hits);
}

impl CheckedHit for SatHit {
    fn pair(&self) -> u32 {
        self.pair
    }
    fn depth(&self) -> f32 {
        self.depth
    }
    fn same_axis(&self, other: &SatHit) -> bool {
        self.axis == other.axis
    }
}

/// Compares `candidate` with `reference` (both in pair order).
pub fn compare_hits(batch: &Batch, reference: &[SatHit], candidate: &[SatHit]) -> Agreement {
    compare(
        (batch.pairs().len(), batch.margin()),
        |pair| batch.pair_size(pair),
        reference,
        candidate,
    )
}
