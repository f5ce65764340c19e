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
//!
//! A dimension whose shapes are large (3D hulls: a 128-vertex hull's data is
//! some 27 KB) also groups each kind's pairs by the shape of their body A
//! ([`BodyClasses::group_by_shape`]), so that neighbouring invocations — one
//! SIMD group on llvmpipe, a warp on a GPU — read one hull A from the cache
//! instead of eight or thirty-two different ones from memory. Measured on
//! lavapipe with the 3D bench's workload (100,000 pairs over 4,096 bodies of
//! 1,024 random hulls, kernel ns a pair, three rounds of three runs each,
//! in the bench's pair order / grouped by A's shape): 128 vertices 5,507 to
//! 7,240 / 4,345 to 5,614, 256: 8,483 to 9,368 / 6,951 to 7,663, 64: 2,572
//! to 3,046 / 2,390 to 2,459, boxes unchanged (458-484 / 447-527). A window
//! already in that order (one kind, A's shapes ascending) still goes up as
//! it is.

use crate::core::pair::Pair;

/// The most kinds of pair a kernel has (entry points; the 2D kernel has six,
/// the 3D kernel sixteen, and besides them the entry point of its deferred
/// pairs, `dispatch::DEFERRED_KIND`).
pub(crate) const PAIR_KINDS: usize = 16;

/// The kinds the pairs of bodies of `classes` take (every two classes,
/// either order, and each with itself), in order.
pub(crate) fn kinds_of_classes(classes: &[u8], kind_of: fn(u8, u8) -> u8) -> Vec<usize> {
    let mut kinds: Vec<usize> = classes
        .iter()
        .flat_map(|&a| classes.iter().map(move |&b| usize::from(kind_of(a, b))))
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds
}

/// Every body's class, the kind of pair each pair of classes makes, and the
/// class of all the bodies if they share one. Each dimension says what its
/// classes are (2D: `planar.rs`, 3D: `spatial.rs`).
#[derive(Default)]
pub struct BodyClasses {
    classes: Vec<u8>,
    single: Option<u8>,
    kind_of: Option<fn(u8, u8) -> u8>,
    /// Every body's shape, when pairs are grouped by A's shape (else empty).
    shapes: Vec<u32>,
    /// One more than the largest shape index (the counting sort's buckets).
    shape_count: usize,
}

impl BodyClasses {
    /// Takes each body's class, and what kind of pair two classes make.
    pub fn classify(&mut self, classes: impl Iterator<Item = u8>, kind_of: fn(u8, u8) -> u8) {
        self.classes.clear();
        self.classes.extend(classes);
        self.kind_of = Some(kind_of);
        self.shapes.clear();
        self.shape_count = 0;
        self.single = match self.classes.first() {
            Some(&first) if self.classes.iter().all(|&class| class == first) => Some(first),
            _ => None,
        };
    }

    /// Groups each kind's pairs by the shape of their body A (after
    /// [`classify`](Self::classify), which forgets it): `shapes` is every
    /// body's shape. Nothing is grouped when the bodies share one shape.
    pub fn group_by_shape(&mut self, shapes: impl Iterator<Item = u32>) {
        self.shapes.clear();
        self.shapes.extend(shapes);
        let (least, most) = self
            .shapes
            .iter()
            .fold((u32::MAX, 0), |(least, most), &shape| {
                (least.min(shape), most.max(shape))
            });
        self.shape_count = most as usize + 1;
        if least >= most {
            self.shapes.clear();
        }
    }

    /// The shape of a pair's body A, when grouping by shape.
    fn shape_a(&self, pair: &Pair) -> Option<u32> {
        self.shapes.get(pair.a as usize).copied()
    }

    /// Whether `window` is already grouped: A's shapes ascending (or no
    /// grouping asked for).
    fn grouped(&self, window: &[Pair]) -> bool {
        self.shapes.is_empty()
            || window
                .windows(2)
                .all(|two| self.shape_a(&two[0]) <= self.shape_a(&two[1]))
    }

    /// `window`'s indices in the order the pairs go up before the split by
    /// kind: by A's shape (stable: a counting sort), or as they are.
    fn shape_order(&self, window: &[Pair]) -> Vec<u32> {
        if self.shapes.is_empty() {
            return (0..window.len() as u32).collect();
        }
        let shape = |pair: &Pair| self.shape_a(pair).map_or(0, |shape| shape as usize);
        let mut starts = vec![0u32; self.shape_count + 1];
        for pair in window {
            starts[shape(pair) + 1] += 1;
        }
        for at in 1..starts.len() {
            starts[at] += starts[at - 1];
        }
        let mut order = vec![0u32; window.len()];
        for (index, pair) in window.iter().enumerate() {
            let next = &mut starts[shape(pair)];
            order[*next as usize] = index as u32;
            *next += 1;
        }
        order
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

/// Sorts `window` by kind (and within each kind by A's shape, where the
/// classes group by shape) into `staged` (cleared), recording in
/// `slot_order` (appended to) the batch index of the pair in each slot,
/// `base` being the window's first pair's index in the batch. With one kind
/// and the window already grouped nothing is staged: the window goes up as
/// it is.
pub(crate) fn sort_by_kind(
    window: &[Pair],
    base: u32,
    classes: &BodyClasses,
    workgroup_size: u32,
    staged: &mut Vec<Pair>,
    slot_order: &mut Vec<u32>,
) -> KindRanges {
    let mut ranges = KindRanges::default();
    if let Some(kind) = classes.single_kind()
        && classes.grouped(window)
    {
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
    for offset in classes.shape_order(window) {
        let kind = kinds[offset as usize] as usize;
        let slot = next[kind] as usize;
        staged[slot] = window[offset as usize];
        slot_order[first_slot + slot] = base + offset;
        next[kind] += 1;
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bodies 0..8: classes alternate (kind 0 for two class-0 bodies, kind
    /// 1 otherwise), shapes `body % 3`.
    fn classes(grouped: bool) -> BodyClasses {
        let mut classes = BodyClasses::default();
        classes.classify((0..8u8).map(|body| body % 2), |a, b| u8::from(a | b != 0));
        if grouped {
            classes.group_by_shape((0..8u32).map(|body| body % 3));
        }
        classes
    }

    fn pair(a: u32, b: u32) -> Pair {
        Pair { a, b }
    }

    /// Each kind starts at a workgroup boundary, holds its pairs grouped by
    /// A's shape (stably: pair order within a shape), and the slot order maps
    /// every slot back to its pair.
    #[test]
    fn each_kind_is_grouped_by_as_shape_and_every_slot_maps_back() {
        let window = [
            pair(4, 2), // kind 0, shape 1
            pair(1, 3), // kind 1, shape 1
            pair(3, 0), // kind 1, shape 0
            pair(2, 6), // kind 0, shape 2
            pair(0, 2), // kind 0, shape 0
            pair(5, 7), // kind 1, shape 2
            pair(6, 4), // kind 0, shape 0
            pair(7, 1), // kind 1, shape 1
        ];
        let base = 100;
        let (mut staged, mut slot_order) = (Vec::new(), Vec::new());
        let ranges = sort_by_kind(
            &window,
            base,
            &classes(true),
            4,
            &mut staged,
            &mut slot_order,
        );
        assert!(!ranges.in_order, "two kinds: staged");
        assert_eq!(ranges.counts[..2], [4, 4], "pairs of each kind");
        assert_eq!(ranges.starts[..2], [0, 4], "kind 1 starts at a workgroup");
        let expected = [
            pair(0, 2),
            pair(6, 4),
            pair(4, 2),
            pair(2, 6),
            pair(3, 0),
            pair(1, 3),
            pair(7, 1),
            pair(5, 7),
        ];
        assert_eq!(staged, expected, "staged against expected");
        for (slot, staged_pair) in staged.iter().enumerate() {
            let index = (slot_order[slot] - base) as usize;
            assert_eq!(
                window[index], *staged_pair,
                "slot {slot}: pair {index} of the window against the pair staged"
            );
        }
    }

    /// One kind: a window already grouped goes up as it is; one that is not
    /// is staged, grouped; without grouping it goes up as it is.
    #[test]
    fn one_kind_goes_up_as_it_is_unless_it_must_be_grouped() {
        let mut even = BodyClasses::default();
        even.classify((0..8u8).map(|_| 0), |_, _| 0);
        even.group_by_shape((0..8u32).map(|body| body % 3));
        let grouped = [pair(0, 1), pair(3, 2), pair(4, 5), pair(2, 7)];
        let (mut staged, mut slot_order) = (Vec::new(), Vec::new());
        let ranges = sort_by_kind(&grouped, 0, &even, 4, &mut staged, &mut slot_order);
        assert!(ranges.in_order, "A's shapes 0, 0, 1, 2: in order");
        assert!(slot_order.is_empty(), "nothing staged");
        let scattered = [pair(2, 0), pair(0, 1), pair(4, 5), pair(3, 2)];
        let ranges = sort_by_kind(&scattered, 0, &even, 4, &mut staged, &mut slot_order);
        assert!(!ranges.in_order, "A's shapes 2, 0, 1, 0: staged");
        assert_eq!(
            staged,
            [pair(0, 1), pair(3, 2), pair(4, 5), pair(2, 0)],
            "staged against expected"
        );
        assert_eq!(slot_order, [1, 3, 2, 0], "slot order against expected");
        let mut plain = BodyClasses::default();
        plain.classify((0..8u8).map(|_| 0), |_, _| 0);
        let (mut staged, mut slot_order) = (Vec::new(), Vec::new());
        let ranges = sort_by_kind(&scattered, 0, &plain, 4, &mut staged, &mut slot_order);
        assert!(ranges.in_order, "no grouping: in order");
    }

    /// Bodies sharing one shape are not grouped; classifying again forgets
    /// the grouping.
    #[test]
    fn one_shape_or_a_new_classification_groups_nothing() {
        let mut classes = BodyClasses::default();
        classes.classify((0..4u8).map(|_| 0), |_, _| 0);
        classes.group_by_shape((0..4u32).map(|_| 7));
        assert!(classes.shapes.is_empty(), "one shape: nothing to group");
        let mut classes = self::tests::classes(true);
        assert!(!classes.shapes.is_empty(), "three shapes: grouped");
        classes.classify((0..8u8).map(|_| 0), |_, _| 0);
        assert!(classes.shapes.is_empty(), "classified again: not grouped");
    }
}
