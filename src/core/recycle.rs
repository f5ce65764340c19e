//! Contact recycling, the worlds' option (off by default, and **not exact**
//! by design): a pair whose relative pose has moved at most a tolerance
//! since its answer was computed gets that answer again, carried along by
//! body A, instead of a new narrowphase: what parry's
//! `ContactManifold::try_update_contacts` does with a manifold that barely
//! moved. Everywhere else gpusat gives every backend's exact answer; this
//! option trades that for time.
//!
//! ```text
//! for each pair of this frame, with last frame's entry for the same pair
//! (a merge of the two sorted lists):
//!     relative = B's frame in A's, now
//!     moved    = |p - p_then| + reach_b |R - R_then|_F
//!                (no point of B within reach_b of its origin moved
//!                 farther than this in A's frame)
//!     moved <= tolerance: the entry's answer (not reported, or the hit and
//!                         the manifold in A's frame) carried into the world
//!                         by A's transform now; the entry kept as it was,
//!                         so the pose it answers stays the one it was
//!                         computed at and the error never grows past the
//!                         tolerance
//!     otherwise:          through the narrowphase; a new entry
//! ```
//!
//! So an answer is at most `tolerance` stale in where B is relative to A,
//! and a recycled depth is off by at most that much (the depth moves no
//! more than the shapes do). The manifold's points carry no such bound: a
//! clipped manifold can change its reference face, or its number of
//! points, under a smaller motion than that. A pair left unreported stays
//! so until it moves by the tolerance, which must therefore stay below the
//! margin (checked): it is never nearer than `margin - tolerance` unseen.
//! What is written here is shared; each dimension has its geometry
//! (`d2/recycle.rs`, `d3/recycle.rs`).
//!
//! A frame is split ([`split`]: which pairs keep their answer, which go to
//! the narrowphase) and merged ([`merge`]) in two calls, so that a world's
//! `begin_step` can start the fresh pairs on a GPU and finish the frame
//! when their results come in.

use super::pair::Pair;

/// Last frame's entries, by pair: sorted as the broadphase sorts its pairs;
/// and the buffers the next frame's are written into (kept from frame to
/// frame: a fresh allocation each frame costs its pages' faults).
#[derive(Clone, Debug)]
pub(crate) struct PairCache<E> {
    pairs: Vec<Pair>,
    entries: Vec<E>,
    spare_pairs: Vec<Pair>,
    spare_entries: Vec<E>,
}

impl<E> Default for PairCache<E> {
    fn default() -> PairCache<E> {
        PairCache {
            pairs: Vec::new(),
            entries: Vec::new(),
            spare_pairs: Vec::new(),
            spare_entries: Vec::new(),
        }
    }
}

impl<E> PairCache<E> {
    /// For each of `pairs` (sorted by `(a, b)`, as the broadphase gives
    /// them), the index of the entry kept for the same pair, if there is
    /// one: a merge of the two sorted lists, no lookup by hash.
    pub(crate) fn matched(&self, pairs: &[Pair]) -> Vec<Option<usize>> {
        let mut matched = Vec::with_capacity(pairs.len());
        let mut k = 0;
        for pair in pairs {
            while k < self.pairs.len() && self.pairs[k] < *pair {
                k += 1;
            }
            matched.push((self.pairs.get(k) == Some(pair)).then_some(k));
        }
        matched
    }

    /// Entry `k` of last frame's.
    pub(crate) fn entry(&self, k: usize) -> &E {
        &self.entries[k]
    }

    /// An empty buffer for this frame's entries, to be handed back with
    /// [`replace`](Self::replace).
    pub(crate) fn take_spare(&mut self) -> Vec<E> {
        let mut spare = std::mem::take(&mut self.spare_entries);
        spare.clear();
        spare
    }

    /// This frame's entries, one for each of `pairs` (sorted), in place of
    /// last frame's (whose buffers become the spares).
    pub(crate) fn replace(&mut self, pairs: &[Pair], entries: Vec<E>) {
        debug_assert_eq!(pairs.len(), entries.len());
        std::mem::swap(&mut self.pairs, &mut self.spare_pairs);
        self.pairs.clear();
        self.pairs.extend_from_slice(pairs);
        self.spare_entries = std::mem::replace(&mut self.entries, entries);
    }
}

/// What recycling needs of a dimension: its transforms, B's frame in A's
/// and how far B moved in it, and a hit and its manifold carried between
/// the world and A's frame (`d2/recycle.rs`, `d3/recycle.rs`).
pub(crate) trait Recycling {
    type Transform: Copy;
    type Hit: Copy;
    type Manifold: Copy;
    /// B's frame in A's.
    fn relative(a: Self::Transform, b: Self::Transform) -> Self::Transform;
    /// How far a point of B within `reach` of B's origin moved in A's frame
    /// between B's frame in A's `then` and `now` (a bound).
    fn motion(now: Self::Transform, then: Self::Transform, reach: f32) -> f32;
    /// The hit's pair index.
    fn pair_of(hit: &Self::Hit) -> u32;
    /// A hit and its manifold with the pair index `pair`, out of A's frame
    /// (`xf_a`) into the world.
    fn to_world(
        answer: (Self::Hit, Self::Manifold),
        xf_a: Self::Transform,
        pair: u32,
    ) -> (Self::Hit, Self::Manifold);
    /// A hit and its manifold from the world into A's frame.
    fn to_local(
        answer: (Self::Hit, Self::Manifold),
        xf_a: Self::Transform,
    ) -> (Self::Hit, Self::Manifold);
    /// A hit and its manifold as they are, with the pair index `pair`.
    fn renumbered(answer: (Self::Hit, Self::Manifold), pair: u32) -> (Self::Hit, Self::Manifold);
}

/// A pair's answer as it was computed: B's frame in A's then, and the hit
/// and its manifold in A's frame (`None`: the pair was not reported).
pub(crate) struct Entry<D: Recycling> {
    relative: D::Transform,
    answer: Option<(D::Hit, D::Manifold)>,
}

impl<D: Recycling> Clone for Entry<D> {
    fn clone(&self) -> Entry<D> {
        *self
    }
}

impl<D: Recycling> Copy for Entry<D> {}

/// A frame's pairs split by the cache: B's frame in A's for each, the
/// entry each keeps (`None`: to the narrowphase), and those that go to it.
pub(crate) struct Split<D: Recycling> {
    relatives: Vec<D::Transform>,
    kept: Vec<Option<usize>>,
    fresh_pairs: Vec<Pair>,
}

impl<D: Recycling> Split<D> {
    /// The pairs for the narrowphase, in order.
    pub(crate) fn fresh_pairs(&self) -> &[Pair] {
        &self.fresh_pairs
    }

    /// How many pairs keep their answer.
    pub(crate) fn recycled(&self) -> usize {
        self.kept.len() - self.fresh_pairs.len()
    }
}

/// Which of `pairs` keep last frame's answer: those whose body B moved at
/// most `tolerance` in A's frame since it was computed. `transforms`: the
/// bodies' world transforms; `reach_b`: how far body B of a pair reaches
/// from its origin.
pub(crate) fn split<D: Recycling>(
    (transforms, pairs): (&[D::Transform], &[Pair]),
    reach_b: impl Fn(Pair) -> f32,
    tolerance: f32,
    cache: &PairCache<Entry<D>>,
) -> Split<D> {
    let relatives: Vec<D::Transform> = pairs
        .iter()
        .map(|p| D::relative(transforms[p.a as usize], transforms[p.b as usize]))
        .collect();
    let kept: Vec<Option<usize>> = cache
        .matched(pairs)
        .into_iter()
        .zip(pairs.iter().zip(&relatives))
        .map(|(k, (&pair, &relative))| {
            k.filter(|&k| D::motion(relative, cache.entry(k).relative, reach_b(pair)) <= tolerance)
        })
        .collect();
    let fresh_pairs = pairs
        .iter()
        .zip(&kept)
        .filter(|(_, entry)| entry.is_none())
        .map(|(pair, _)| *pair)
        .collect();
    Split {
        relatives,
        kept,
        fresh_pairs,
    }
}

/// The frame's hits and manifolds, in pair order: the kept entries'
/// answers carried by A's transform now, and the narrowphase's on the fresh
/// pairs (`fresh`: its hits, each hit's pair an index into the fresh
/// pairs, in order, and a manifold for each hit) as they are; the cache
/// then holds this frame's entries. `pairs` and `transforms` are those the
/// split was made with.
#[allow(clippy::type_complexity)]
pub(crate) fn merge<D: Recycling>(
    split: &Split<D>,
    (transforms, pairs): (&[D::Transform], &[Pair]),
    cache: &mut PairCache<Entry<D>>,
    (fresh_hits, fresh_manifolds): (Vec<D::Hit>, Vec<D::Manifold>),
) -> (Vec<D::Hit>, Vec<D::Manifold>) {
    debug_assert_eq!(fresh_hits.len(), fresh_manifolds.len());
    debug_assert_eq!(split.kept.len(), pairs.len());
    let reported = fresh_hits.len() + split.recycled();
    let mut answers = fresh_hits.into_iter().zip(fresh_manifolds).peekable();
    let (mut hits, mut manifolds) = (Vec::with_capacity(reported), Vec::with_capacity(reported));
    let mut entries = cache.take_spare();
    entries.reserve(pairs.len());
    let mut fresh_index = 0;
    for (k, (pair, &kept)) in pairs.iter().zip(&split.kept).enumerate() {
        let xf_a = transforms[pair.a as usize];
        let entry = match kept {
            // Recycled: the entry's answer carried into the world by A.
            Some(old) => {
                let entry = *cache.entry(old);
                if let Some(answer) = entry.answer {
                    let (hit, manifold) = D::to_world(answer, xf_a, k as u32);
                    hits.push(hit);
                    manifolds.push(manifold);
                }
                entry
            }
            // Computed now: the narrowphase's answer as it is, and its
            // entry in A's frame.
            None => {
                let answer = answers
                    .next_if(|(hit, _)| D::pair_of(hit) as usize == fresh_index)
                    .map(|answer| {
                        let (hit, manifold) = D::renumbered(answer, k as u32);
                        hits.push(hit);
                        manifolds.push(manifold);
                        D::to_local(answer, xf_a)
                    });
                fresh_index += 1;
                Entry {
                    relative: split.relatives[k],
                    answer,
                }
            }
        };
        entries.push(entry);
    }
    // Every fresh hit named one of the fresh pairs, in order.
    debug_assert!(answers.peek().is_none(), "a fresh hit out of order");
    cache.replace(pairs, entries);
    (hits, manifolds)
}

/// A recycling tolerance checked: a finite length of at least zero, and
/// below the margin (a pair left unreported stays so until it moves by the
/// tolerance).
pub(crate) fn check_tolerance(
    tolerance: Option<f32>,
    margin: f32,
) -> Result<(), super::error::Error> {
    let Some(t) = tolerance else {
        return Ok(());
    };
    let message = if !(t.is_finite() && t >= 0.0) {
        format!("{t} is not a finite length of at least zero")
    } else if t >= margin {
        format!(
            "{t} is not below the margin {margin}: a pair left unreported would stay so \
             while it closed in by the tolerance, and could overlap unseen"
        )
    } else {
        return Ok(());
    };
    Err(super::error::Error::Argument {
        name: "the contact recycling tolerance",
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(u32, u32)]) -> Vec<Pair> {
        list.iter().map(|&(a, b)| Pair::new(a, b)).collect()
    }

    /// Pairs that stay find their entries, pairs that appear find none,
    /// pairs that went are dropped, in any interleaving.
    #[test]
    fn the_merge_finds_the_pairs_that_stayed() {
        let mut cache = PairCache::default();
        let before = pairs(&[(0, 1), (0, 5), (1, 2), (3, 4), (7, 9)]);
        cache.replace(&before, vec![10, 11, 12, 13, 14]);
        let now = pairs(&[(0, 2), (0, 5), (1, 2), (2, 3), (7, 9), (8, 9)]);
        let found: Vec<Option<i32>> = cache
            .matched(&now)
            .into_iter()
            .map(|k| k.map(|k| *cache.entry(k)))
            .collect();
        assert_eq!(found, vec![None, Some(11), Some(12), None, Some(14), None]);
        assert_eq!(cache.matched(&[]), Vec::<Option<usize>>::new());
        // The next frame's entries replace these, in the spare buffer.
        let spare = cache.take_spare();
        assert!(spare.is_empty());
        cache.replace(&now, vec![20, 21, 22, 23, 24, 25]);
        assert_eq!(cache.matched(&before[1..2]), vec![Some(1)]);
        assert_eq!(*cache.entry(1), 21);
        let empty: PairCache<i32> = PairCache::default();
        assert!(empty.matched(&now).iter().all(Option::is_none));
    }

    #[test]
    fn a_tolerance_must_be_a_finite_length_below_the_margin() {
        assert!(check_tolerance(None, 0.02).is_ok());
        assert!(check_tolerance(Some(0.0), 0.02).is_ok());
        assert!(check_tolerance(Some(1e-3), 0.02).is_ok());
        for bad in [-1e-3, f32::NAN, f32::INFINITY, 0.02, 0.5] {
            let error = check_tolerance(Some(bad), 0.02)
                .expect_err("rejected")
                .to_string();
            assert!(error.contains("recycling tolerance"), "{error}");
        }
    }
}
