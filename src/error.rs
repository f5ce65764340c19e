//! The one error type of the library.
//!
//! Every error names the item it is about (shape, body or pair index, or the
//! path inside a scene file) and the reason, in one line.

use std::path::PathBuf;

use crate::body::MAX_COORDINATE;
use crate::shape::{MAX_POLYGON_VERTICES, MAX_SHAPE_SIZE, MIN_SHAPE_SIZE};

/// Why a shape was rejected. The message reads after "shape N ".
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ShapeError {
    #[error("has a non-finite coordinate at vertex {vertex} ({x}, {y})")]
    NonFinite { vertex: usize, x: f32, y: f32 },
    #[error("has {count} distinct points; a polygon needs at least 3")]
    TooFewPoints { count: usize },
    #[error("has all its points on one line")]
    Collinear,
    #[error("is not convex: it turns the other way at input vertex {vertex}")]
    NonConvex { vertex: usize },
    #[error("is self-intersecting: its outline winds around {turns} times")]
    SelfIntersecting { turns: i32 },
    #[error("has near-zero area ({area:e} for a width of {width:e})")]
    ZeroArea { area: f32, width: f32 },
    #[error("has {count} vertices after cleanup; the limit is {MAX_POLYGON_VERTICES}")]
    TooManyVertices { count: usize },
    #[error(
        "is {size:e} units across; sizes from {MIN_SHAPE_SIZE:e} to {MAX_SHAPE_SIZE:e} are \
         supported (in single precision, the squares and fourth powers of a size outside \
         that range overflow or lose all their digits)"
    )]
    SizeOutOfRange { size: f64 },
    #[error("has a radius that is not finite ({radius})")]
    RadiusNotFinite { radius: f32 },
    #[error("has a radius that is not positive ({radius})")]
    RadiusNotPositive { radius: f32 },
}

/// Why a body was rejected. The message reads after "body N ".
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BodyError {
    #[error("refers to shape {shape}, which does not exist (shapes: {shapes})")]
    MissingShape { shape: u32, shapes: usize },
    #[error("has a {field} that is not finite")]
    NotFinite { field: &'static str },
    #[error(
        "is at ({x:e}, {y:e}), beyond the {MAX_COORDINATE:e} units from the origin that positions may be"
    )]
    TooFar { x: f32, y: f32 },
    #[error("has a negative inverse mass ({inv_mass}); use 0 for a static body")]
    NegativeInvMass { inv_mass: f32 },
}

/// Why a candidate pair was rejected. The message reads after "pair N ".
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PairError {
    #[error("refers to body {body}, which does not exist (bodies: {bodies})")]
    MissingBody { body: u32, bodies: usize },
    #[error("pairs body {body} with itself")]
    SelfPair { body: u32 },
}

/// Everything that can go wrong in gpusat.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("shape {index} {reason}")]
    Shape { index: usize, reason: ShapeError },
    #[error("body {index} {reason}")]
    Body { index: usize, reason: BodyError },
    #[error("pair {index} {reason}")]
    Pair { index: usize, reason: PairError },
    #[error("the margin {margin} is not a finite number >= 0")]
    Margin { margin: f32 },
    /// A scene or other input file that is not what it should be.
    #[error("{file}: {message}")]
    Input { file: String, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Any other error, found while reading the named file.
    #[error("{file}: {source}")]
    InFile {
        file: String,
        #[source]
        source: Box<Error>,
    },
    #[error("{0}")]
    Gpu(String),
    /// A picture or animation that could not be made.
    #[error("{0}")]
    Render(String),
    /// Memory for a batch's results that could not be allocated.
    #[error("{what} need {} MiB, which cannot be allocated", bytes.div_ceil(1 << 20))]
    OutOfMemory { what: String, bytes: u128 },
    /// A benchmark that could not be run honestly (a backend disagreeing
    /// with the CPU reference).
    #[error("bench: {0}")]
    Bench(String),
    /// No adapter could be found (or none matching the requested one).
    #[error("{0}")]
    NoAdapter(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
