//! Candidate pairs, in either dimension: a pair of body indices, which body
//! owns an axis, the checks every batch makes of its pairs, and which pairs
//! the broadphase leaves out.

use bytemuck::{Pod, Zeroable};

use super::error::{Error, PairError};

/// A candidate pair of body indices. 8 bytes, uploaded to the GPU as is.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Pod, Zeroable)]
pub struct Pair {
    /// Index of body A.
    pub a: u32,
    /// Index of body B.
    pub b: u32,
}

impl Pair {
    /// The pair `(a, b)`.
    pub fn new(a: u32, b: u32) -> Pair {
        Pair { a, b }
    }
}

/// Which body of a pair owns an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// Body A, the first of the pair.
    A,
    /// Body B.
    B,
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

/// Which pairs to leave out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairFilter {
    /// Leave out pairs of two static bodies (a simulation has no use for them).
    pub skip_static_pairs: bool,
}

impl PairFilter {
    /// Whether a pair whose bodies are static or not as given is kept.
    pub(crate) fn keeps(self, a_static: bool, b_static: bool) -> bool {
        !(self.skip_static_pairs && a_static && b_static)
    }
}
