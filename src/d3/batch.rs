//! The 3D narrowphase's input: a validated batch of candidate pairs.

use super::body::Body;
use super::math::Transform;
use super::shape::kind::Shape;
use super::shape::set::ShapeSet;
use super::types::EdgeSearch;
use crate::core::error::Error;
use crate::core::pair::Pair;
use crate::core::pair::validate_pairs;

/// A validated 3D narrowphase input: a shape library, bodies, and candidate
/// pairs over them, checked once.
#[derive(Clone, Debug)]
pub struct Batch<'a> {
    shapes: &'a ShapeSet,
    bodies: &'a [Body],
    pairs: &'a [Pair],
    transforms: Vec<Transform>,
    /// Each body's shape, resolved once validation has checked it exists.
    shape_refs: Vec<&'a Shape>,
    margin: f32,
    edge_search: EdgeSearch,
}

impl<'a> Batch<'a> {
    /// Checks every body and pair; an error names the first bad one. Pairs
    /// with `depth > -margin` are reported.
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
        let shape_refs = bodies
            .iter()
            .filter_map(|body| shapes.get(body.shape))
            .collect();
        Ok(Batch {
            shapes,
            bodies,
            pairs,
            transforms: bodies.iter().map(Body::transform).collect(),
            shape_refs,
            margin,
            edge_search: EdgeSearch::Pruned,
        })
    }

    /// The same bodies over other pairs (checked against the bodies), with
    /// the transforms this batch computed: a world's recycling runs the
    /// pairs it does not recycle as a batch of their own.
    pub(crate) fn with_pairs<'b>(&self, pairs: &'b [Pair]) -> Result<Batch<'b>, Error>
    where
        'a: 'b,
    {
        validate_pairs(pairs, self.bodies.len())?;
        Ok(Batch {
            shapes: self.shapes,
            bodies: self.bodies,
            pairs,
            transforms: self.transforms.clone(),
            shape_refs: self.shape_refs.clone(),
            margin: self.margin,
            edge_search: self.edge_search,
        })
    }

    /// The shape library.
    pub fn shapes(&self) -> &'a ShapeSet {
        self.shapes
    }

    /// The bodies.
    pub fn bodies(&self) -> &'a [Body] {
        self.bodies
    }

    /// The candidate pairs.
    pub fn pairs(&self) -> &'a [Pair] {
        self.pairs
    }

    /// Each body's transform (its rotation matrix computed once).
    pub fn transforms(&self) -> &[Transform] {
        &self.transforms
    }

    /// Body `body`'s shape.
    pub fn shape_of(&self, body: u32) -> &'a Shape {
        self.shape_refs[body as usize]
    }

    /// The speculative margin.
    pub fn margin(&self) -> f32 {
        self.margin
    }

    /// Chooses how hull pairs search their edge pairs (for tests and the
    /// bench; the default is the Gauss-map pruned search).
    pub fn with_edge_search(self, edge_search: EdgeSearch) -> Batch<'a> {
        Batch {
            edge_search,
            ..self
        }
    }

    /// How hull pairs search their edge pairs.
    pub fn edge_search(&self) -> EdgeSearch {
        self.edge_search
    }

    /// The larger of the two shapes' sizes of pair `index`.
    pub fn pair_size(&self, index: u32) -> f32 {
        let pair = self.pairs[index as usize];
        self.shape_of(pair.a)
            .size()
            .max(self.shape_of(pair.b).size())
    }
}
