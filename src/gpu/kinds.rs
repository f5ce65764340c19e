//! Kinds of pair, each with its own kernel entry point, and a window's pairs
//! sorted by kind.
//!
//! lavapipe pays for code on branches no lane takes, so each kind of pair
//! (two small polygons, a small polygon and a circle, two circles, ...) has
//! an entry point holding only the code its pairs run. The host sorts each
//! window's pairs by kind — stably, each kind starting at a workgroup
//! boundary so that no workgroup mixes kinds — and remembers where each slot
//! came from, to put the results back in pair order. When every body is of
//! one class (the common case) every pair is of one kind, and the pairs go
//! up as they are.

use crate::shape::ShapeRecord;
use crate::types::Pair;

/// Kinds of pair, each with its own kernel entry point (in this order).
pub(crate) const ENTRY_POINTS: [&str; PAIR_KINDS] = [
    "polygons8",
    "polygon_circle8",
    "circles",
    "general",
    "polygons16",
    "polygon_circle16",
];
pub(crate) const PAIR_KINDS: usize = 6;

/// A body's class: 0 a polygon of up to 8 vertices, 1 a circle, 2 a larger
/// polygon, 3 a polygon of 9 to 16 vertices. Class 3 exists only when no
/// pair of such polygons merges (`merge_threshold` of 16 or more); otherwise
/// they are class 2 and go through the kernel's full dispatch.
fn body_class(record: &ShapeRecord, merge_threshold: u32) -> u8 {
    match record.count {
        0 => 1,
        1..=8 => 0,
        9..=16 if merge_threshold >= 16 => 3,
        _ => 2,
    }
}

/// The entry point (kind) for a pair of body classes: the straight-line
/// entry points take exactly the pairs for which the kernel's `collide_pair`
/// would pick the function they call.
const KIND_OF_CLASSES: [[u8; 4]; 4] = [
    // small polygon with: small polygon, circle, large polygon, medium polygon
    [0, 1, 3, 4],
    // circle with: small polygon, circle, large polygon, medium polygon
    [1, 2, 3, 5],
    // large polygon with anything
    [3, 3, 3, 3],
    // medium polygon with: small polygon, circle, large polygon, medium polygon
    [4, 5, 3, 4],
];

/// Every body's class, and the class of all of them if they share one.
#[derive(Default)]
pub(crate) struct BodyClasses {
    classes: Vec<u8>,
    single: Option<u8>,
}

impl BodyClasses {
    /// Classifies bodies whose shapes have these records.
    pub fn classify<'a>(
        &mut self,
        records: impl Iterator<Item = &'a ShapeRecord>,
        merge_threshold: u32,
    ) {
        self.classes.clear();
        self.classes
            .extend(records.map(|record| body_class(record, merge_threshold)));
        self.single = match self.classes.first() {
            Some(&first) if self.classes.iter().all(|&class| class == first) => Some(first),
            _ => None,
        };
    }

    fn kind(&self, pair: &Pair) -> u8 {
        KIND_OF_CLASSES[self.classes[pair.a as usize] as usize]
            [self.classes[pair.b as usize] as usize]
    }

    /// The kind of every pair, when the bodies are all of one class.
    pub fn single_kind(&self) -> Option<u8> {
        self.single
            .map(|class| KIND_OF_CLASSES[class as usize][class as usize])
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
