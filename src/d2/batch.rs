//! The narrowphase's input: a validated batch of candidate pairs.
//!
//! A [`Batch`] is a shape library, a list of bodies and the candidate pairs
//! over them, checked once. Every backend takes a `Batch` and returns
//! [`SatHit`](crate::d2::SatHit)s in pair order, so any two can be compared pair
//! by pair. This module holds the data only; the backends live in
//! [`narrowphase`](crate::d2::narrowphase) and [`gpu`](crate::gpu).

use crate::core::error::Error;
use crate::core::pair::Pair;
use crate::core::pair::validate_pairs;
use crate::d2::body::Body;
use crate::d2::math::Transform;
use crate::d2::shape::ShapeSet;
use crate::d2::types::FaceSearch;

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
    face_search: FaceSearch,
}

impl<'a> Batch<'a> {
    /// Checks every body and pair; an error names the first bad one. Pairs
    /// with `depth > -margin` are reported (`margin` 0: overlapping pairs only).
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
            face_search: FaceSearch::Auto,
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
            shape_of: self.shape_of.clone(),
            margin: self.margin,
            face_search: self.face_search,
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

    /// Each body's transform, computed once (cosine and sine included).
    pub fn transforms(&self) -> &[Transform] {
        &self.transforms
    }

    /// Each body's shape index.
    pub fn shape_of(&self) -> &[u32] {
        &self.shape_of
    }

    /// The speculative margin.
    pub fn margin(&self) -> f32 {
        self.margin
    }

    /// Chooses how large polygons search each other's vertices (for
    /// benchmarks; the default picks by size, per backend). Every backend
    /// follows it.
    pub fn with_face_search(self, face_search: FaceSearch) -> Batch<'a> {
        Batch {
            face_search,
            ..self
        }
    }

    /// How large polygons search each other's vertices.
    pub fn face_search(&self) -> FaceSearch {
        self.face_search
    }

    /// The larger of the two shapes' sizes of pair `index`: the length scale
    /// of its tolerances.
    pub fn pair_size(&self, index: u32) -> f32 {
        let pair = self.pairs[index as usize];
        let records = self.shapes.records();
        let size = |body: u32| records[self.shape_of[body as usize] as usize].size;
        size(pair.a).max(size(pair.b))
    }
}
