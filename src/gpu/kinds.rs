//! Kinds of pair, each with its own kernel entry point, and a window's pairs
//! sorted by kind.
//!
//! lavapipe pays for code on branches no lane takes, so each kind of pair
//! (two small polygons, a small polygon and a circle, two circles, two
//! hulls, ...) has an entry point holding only the code its pairs run. The host sorts each
//! window's pairs by kind — stably, each kind starting at a workgroup
//! boundary so that no workgroup mixes kinds — and remembers where each slot
//! came from, to put the results back in pair order. When every body is of
//! one class (the common case) every pair is of one kind, and the pairs go
//! up as they are.

use crate::types::Pair;

/// The most kinds of pair a kernel has (entry points; the 2D kernel has six,
/// the 3D kernel ten, and besides them the entry point of its deferred
/// pairs, `dispatch::DEFERRED_KIND`).
pub(crate) const PAIR_KINDS: usize = 10;

/// Every body's class, the kind of pair each pair of classes makes, and the
/// class of all the bodies if they share one. Each dimension says what its
/// classes are (2D: `planar.rs`, 3D: `spatial.rs`).
#[derive(Default)]
pub struct BodyClasses {
    classes: Vec<u8>,
    single: Option<u8>,
    kind_of: Option<fn(u8, u8) -> u8>,
}

impl BodyClasses {
    /// Takes each body's class, and what kind of pair two classes make.
    pub fn classify(&mut self, classes: impl Iterator<Item = u8>, kind_of: fn(u8, u8) -> u8) {
        self.classes.clear();
        self.classes.extend(classes);
        self.kind_of = Some(kind_of);
        self.single = match self.classes.first() {
            Some(&first) if self.classes.iter().all(|&class| class == first) => Some(first),
            _ => None,
        };
    }

    fn kind(&self, pair: &Pair) -> u8 {
        let kind_of = self.kind_of.unwrap_or(|_, _| 0);
        kind_of(self.classes[pair.a as usize], self.classes[pair.b as usize])
    }

    /// The kind of every pair, when the bodies are all of one class.
    pub fn single_kind(&self) -> Option<u8> {
        let kind_of = self.kind_of.unwrap_or(|_, _| 0);
        self.single.map(|class| kind_of(class, class))
    }
}

/// Where a window's pairs sit once sorted by kind.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct KindRanges {
    /// Pairs of each kind.
    pub counts: [u32; PAIR_KINDS],
    /// The slot of each kind's first pair.
    pub starts: [u32; PAIR_KINDS],
    /// Slots in all (each kind padded to whole workgroups when sorted).
    pub slots: u32,
    /// Whether the pairs kept their order (one kind): slot `i` is pair `i`.
    pub in_order: bool,
}

/// Sorts `window` by kind into `staged` (cleared), recording in `slot_order`
/// (appended to) the batch index of the pair in each slot, `base` being the
/// window's first pair's index in the batch. With one kind nothing is
/// staged: the window goes up as it is.
pub(crate) fn sort_by_kind(
    window: &[Pair],
    base: u32,
    classes: &BodyClasses,
    workgroup_size: u32,
    staged: &mut Vec<Pair>,
    slot_order: &mut Vec<u32>,
) -> KindRanges {
    let mut ranges = KindRanges::default();
    if let Some(kind) = classes.single_kind() {
        ranges.counts[kind as usize] = window.len() as u32;
        ranges.slots = window.len() as u32;
        ranges.in_order = true;
        return ranges;
    }
    let kinds: Vec<u8> = window
        .iter()
        .map(|pair| {
            let kind = classes.kind(pair);
            ranges.counts[kind as usize] += 1;
            kind
        })
        .collect();
    let mut slots = 0;
    for kind in 0..PAIR_KINDS {
        ranges.starts[kind] = slots;
        slots += ranges.counts[kind].div_ceil(workgroup_size) * workgroup_size;
    }
    ranges.slots = slots;
    staged.clear();
    staged.resize(slots as usize, Pair::default());
    let first_slot = slot_order.len();
    slot_order.resize(first_slot + slots as usize, u32::MAX);
    let mut next = ranges.starts;
    for (offset, (pair, &kind)) in window.iter().zip(&kinds).enumerate() {
        let slot = next[kind as usize] as usize;
        staged[slot] = *pair;
        slot_order[first_slot + slot] = base + offset as u32;
        next[kind as usize] += 1;
    }
    ranges
}
