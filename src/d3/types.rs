//! The 3D narrowphase's vocabulary: the axis of a result as a feature, and
//! what a backend reports.

use glam::Vec3;

/// The axis of a 3D result, as features of the two shapes. From it the
/// normal is rebuilt exactly, on the CPU, for every backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// Face `i` of A's hull (its outward normal).
    FaceA(u32),
    /// Face `i` of B's hull (its outward normal, negated).
    FaceB(u32),
    /// Edge `a` of A's hull with edge `b` of B's: the normal to both,
    /// pointing out of A.
    Edges(u32, u32),
    /// A's hull edge `e` against sphere B: from the closest point on it to
    /// the centre.
    EdgeA(u32),
    /// B's hull edge `e` against sphere A.
    EdgeB(u32),
    /// A's hull vertex `v` against sphere B: from the vertex to the centre.
    VertexA(u32),
    /// B's hull vertex `v` against sphere A.
    VertexB(u32),
    /// Two spheres: the centre line.
    Centres,
    /// A's core vertex `v` nearest to B's core edge `e`, the cores apart (a
    /// rounded shape or a capsule): from the vertex's closest point on the
    /// edge to the vertex, negated (from A to B). A capsule's segment core has
    /// vertices 0 and 1 and edge 0; a sphere's point core, vertex 0.
    VertexEdge(u32, u32),
    /// A's core edge `e` nearest to B's core vertex `v`: from the closest
    /// point on the edge to the vertex.
    EdgeVertex(u32, u32),
    /// A's core vertex `v` nearest to B's core vertex `w`: from `v` to `w`.
    Vertices(u32, u32),
}

impl Axis {
    pub(crate) const KIND_SHIFT: u32 = 28;
    pub(crate) const INDEX_MASK: u32 = (1 << 28) - 1;
    pub(crate) const EDGE_BITS: u32 = 14;

    /// The 32-bit form the GPU writes: the kind in bits 28 to 31, below it
    /// the index (for two features, A's above bit 14 and B's below).
    pub fn pack(self) -> u32 {
        let (kind, index) = match self {
            Axis::FaceA(i) => (0, i),
            Axis::FaceB(i) => (1, i),
            Axis::Edges(a, b) => (2, a << Axis::EDGE_BITS | b),
            Axis::EdgeA(i) => (3, i),
            Axis::EdgeB(i) => (4, i),
            Axis::VertexA(i) => (5, i),
            Axis::VertexB(i) => (6, i),
            Axis::Centres => (7, 0),
            Axis::VertexEdge(a, b) => (8, a << Axis::EDGE_BITS | b),
            Axis::EdgeVertex(a, b) => (9, a << Axis::EDGE_BITS | b),
            Axis::Vertices(a, b) => (10, a << Axis::EDGE_BITS | b),
        };
        kind << Axis::KIND_SHIFT | (index & Axis::INDEX_MASK)
    }

    /// The inverse of [`Axis::pack`].
    pub fn unpack(bits: u32) -> Axis {
        let index = bits & Axis::INDEX_MASK;
        let (high, low) = (
            index >> Axis::EDGE_BITS,
            index & ((1 << Axis::EDGE_BITS) - 1),
        );
        match bits >> Axis::KIND_SHIFT {
            0 => Axis::FaceA(index),
            1 => Axis::FaceB(index),
            2 => Axis::Edges(high, low),
            3 => Axis::EdgeA(index),
            4 => Axis::EdgeB(index),
            5 => Axis::VertexA(index),
            6 => Axis::VertexB(index),
            8 => Axis::VertexEdge(high, low),
            9 => Axis::EdgeVertex(high, low),
            10 => Axis::Vertices(high, low),
            _ => Axis::Centres,
        }
    }

    /// Whether the axis is a face's normal (the kinds that give face
    /// contacts, or sphere contacts on a face).
    pub fn is_face(self) -> bool {
        matches!(self, Axis::FaceA(_) | Axis::FaceB(_))
    }
}

/// What a 3D backend reports for one pair: 12 bytes of information (16 on
/// the GPU), the same on every backend.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SatHit {
    /// Index of the pair in the batch.
    pub pair: u32,
    /// The axis the depth was measured along.
    pub axis: Axis,
    /// Penetration depth; negative for a separated pair reported through the margin.
    pub depth: f32,
}

/// A reported pair with its bodies and world normal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Index of the pair in the batch.
    pub pair: u32,
    /// Body A.
    pub a: u32,
    /// Body B.
    pub b: u32,
    /// Unit vector from A to B: moving B by `normal * depth` makes them touch.
    pub normal: Vec3,
    /// Penetration depth; negative for a separated pair reported through the margin.
    pub depth: f32,
    /// The axis the normal was rebuilt from.
    pub axis: Axis,
}

/// How hull pairs search their faces' deepest vertices and their edge pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EdgeSearch {
    /// The Gauss-map test on the edge pairs that may cross, the axis and
    /// separation only for the pairs that pass (a face of the Minkowski
    /// difference), eight edges a vector, with the bounds that skip faces
    /// and edges that cannot win (and the walk of [`EdgeSearch::Walk`] from
    /// [`sat::walk_min_vertices`](super::sat::walk_min_vertices) on). The
    /// same results as [`EdgeSearch::Pairwise`].
    #[default]
    Pruned,
    /// The Gauss-map test on every pair of edges and every vertex against
    /// every face, whatever the hulls' size: the GPU kernel's loops.
    Pairwise,
    /// Every pair of non-parallel edges, each axis's separation from the
    /// full projections of both hulls, both orientations: the unpruned SAT,
    /// for tests and the bench.
    BruteForce,
    /// The output-sensitive queries on every hull pair, whatever its size:
    /// each face's deepest vertex looked up on the other hull's Gauss-map
    /// grid, the edge pairs found by walking B's arcs across A's Gauss map
    /// (`sat::find_max_edge_separation_walk`). The same results as
    /// [`EdgeSearch::Pairwise`]. [`EdgeSearch::Pruned`] takes them only from
    /// [`sat::walk_min_vertices`](super::sat::walk_min_vertices) on, which
    /// no hull the library builds reaches on the CPUs measured (see
    /// `WALK_MIN_VERTICES`): for tests, the bench, and hulls whose shapes
    /// favour the walk.
    Walk,
}

/// How much edge-pair work a batch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EdgeStats {
    /// Hull pairs whose edge pairs were searched (the face queries did not
    /// separate them).
    pub hull_pairs: u64,
    /// Edge pairs the searches covered: `E_A x E_B` per hull pair (the
    /// fast searches rule most out without testing them).
    pub edge_pairs: u64,
    /// Edge pairs whose arcs cross on the Gauss map: the ones given an axis
    /// and a separation.
    pub kept: u64,
    /// Edges of B whose pairs the fast searches left untested because a
    /// bound showed none could matter (their crossings are not in `kept`).
    pub skipped: u64,
    /// Edges of A left out, by the same kind of bound, of the tests of an
    /// edge of B (counted once per edge of B tested).
    pub skipped_a: u64,
}

impl EdgeStats {
    /// Adds another batch's counts.
    pub fn absorb(&mut self, other: EdgeStats) {
        self.hull_pairs += other.hull_pairs;
        self.edge_pairs += other.edge_pairs;
        self.kept += other.kept;
        self.skipped += other.skipped;
        self.skipped_a += other.skipped_a;
    }
}
