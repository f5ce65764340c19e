//! The library's error types.
//!
//! Every error names the item it is about (shape, body or pair index, or the
//! path inside a scene file) and the reason, in one line. The reasons are
//! enums a caller can match on; the limits a value broke travel with it, so
//! this module depends on nothing else in the crate.

use std::path::PathBuf;

/// Why a shape was rejected. The message reads after "shape N ".
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ShapeError {
    /// A coordinate is NaN or infinite.
    #[error("has a non-finite coordinate at vertex {vertex} ({x}, {y})")]
    NonFinite {
        /// Index of the offending input point.
        vertex: usize,
        /// Its x coordinate.
        x: f32,
        /// Its y coordinate.
        y: f32,
    },
    /// Fewer than three distinct points.
    #[error("has {count} distinct points; a polygon needs at least 3")]
    TooFewPoints {
        /// Distinct points found.
        count: usize,
    },
    /// Every point lies on one line.
    #[error("has all its points on one line")]
    Collinear,
    /// The outline turns the wrong way somewhere.
    #[error("is not convex: it turns the other way at input vertex {vertex}")]
    NonConvex {
        /// Index of the input point where it turns back.
        vertex: usize,
    },
    /// The outline crosses itself.
    #[error("is self-intersecting: its outline winds around {turns} times")]
    SelfIntersecting {
        /// How many times the outline turns around.
        turns: i32,
    },
    /// The area is negligible for the shape's width.
    #[error("has near-zero area ({area:e} for a width of {width:e})")]
    ZeroArea {
        /// The area.
        area: f32,
        /// The width (bounding-box diagonal) it is compared with.
        width: f32,
    },
    /// More vertices than a polygon may keep.
    #[error("has {count} vertices after cleanup; the limit is {max}")]
    TooManyVertices {
        /// Vertices (or input points, when far too many).
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A shape too small or too large for single precision.
    #[error(
        "is {size:e} units across; sizes from {min:e} to {max:e} are supported (in single \
         precision, the squares and fourth powers of a size outside that range overflow or \
         lose all their digits)"
    )]
    SizeOutOfRange {
        /// The shape's size (bounding-box diagonal, or diameter).
        size: f64,
        /// The smallest size accepted.
        min: f64,
        /// The largest size accepted.
        max: f64,
    },
    /// A circle's radius is NaN or infinite.
    #[error("has a radius that is not finite ({radius})")]
    RadiusNotFinite {
        /// The radius given.
        radius: f32,
    },
    /// A circle's radius is zero or negative.
    #[error("has a radius that is not positive ({radius})")]
    RadiusNotPositive {
        /// The radius given.
        radius: f32,
    },
    /// A rounded shape's radius is negative.
    #[error("has a negative radius ({radius})")]
    RadiusNegative {
        /// The radius given.
        radius: f32,
    },
    /// A radius so large for its core that the core is a point in single
    /// precision.
    #[error(
        "has a radius of {radius:e}, more than {ratio:e} times its core's extent of {extent:e} \
         (use a circle or a sphere)"
    )]
    RadiusTooLarge {
        /// The radius given.
        radius: f32,
        /// The core's extent (its largest distance between two points).
        extent: f64,
        /// The largest radius for a unit extent.
        ratio: f64,
    },
    /// A segment or capsule whose two points are (nearly) the same.
    #[error(
        "has its two points {length:e} apart, under {min:e} (a segment or capsule needs two \
         distinct points; use a circle or a sphere)"
    )]
    CoincidentPoints {
        /// The distance between the points.
        length: f64,
        /// The least distance accepted.
        min: f64,
    },
    /// A 3D point is NaN or infinite.
    #[error("has a non-finite coordinate at point {point} ({x}, {y}, {z})")]
    NonFinitePoint {
        /// Index of the offending input point.
        point: usize,
        /// Its x coordinate.
        x: f32,
        /// Its y coordinate.
        y: f32,
        /// Its z coordinate.
        z: f32,
    },
    /// Fewer than four distinct points for a hull.
    #[error("has {count} distinct points; a hull needs at least 4")]
    TooFewHullPoints {
        /// Distinct points found (after welding).
        count: usize,
    },
    /// Every point of a hull lies on one plane.
    #[error("has all its points on one plane (a flat hull)")]
    Coplanar,
    /// A hull whose volume is negligible for its size: flat or a needle.
    #[error("is flat or needle-like: volume {volume:e} for a width of {width:e}")]
    ZeroVolume {
        /// The volume.
        volume: f64,
        /// The width (bounding-box diagonal) it is compared with.
        width: f64,
    },
    /// A point cloud whose hull could not be made a valid polyhedron
    /// (points at the very edge of the tolerances).
    #[error("does not make a valid convex polyhedron ({reason})")]
    DegenerateHull {
        /// What failed.
        reason: String,
    },
    /// A cuboid's half extents are not all positive and finite.
    #[error("has half extents ({x}, {y}, {z}); each must be a positive finite number")]
    HalfExtents {
        /// Along x.
        x: f32,
        /// Along y.
        y: f32,
        /// Along z.
        z: f32,
    },
}

/// Why a body was rejected. The message reads after "body N ".
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BodyError {
    /// The body names a shape the library does not have.
    #[error("refers to shape {shape}, which does not exist (shapes: {shapes})")]
    MissingShape {
        /// The shape index given.
        shape: u32,
        /// Shapes in the library.
        shapes: usize,
    },
    /// A field is NaN or infinite.
    #[error("has a {field} that is not finite")]
    NotFinite {
        /// Which field.
        field: &'static str,
    },
    /// The position is too far from the origin for differences to stay finite.
    #[error("is at ({x:e}, {y:e}), beyond the {max:e} units from the origin that positions may be")]
    TooFar {
        /// Its x coordinate.
        x: f32,
        /// Its y coordinate.
        y: f32,
        /// The limit.
        max: f32,
    },
    /// A negative inverse mass.
    #[error("has a negative inverse mass ({inv_mass}); use 0 for a static body")]
    NegativeInvMass {
        /// The inverse mass given.
        inv_mass: f32,
    },
    /// A rotation quaternion that is zero or not finite (any other is
    /// normalised).
    #[error(
        "has a rotation ({x}, {y}, {z}, {w}) that is zero or not finite; a rotation is a quaternion [x, y, z, w]"
    )]
    Rotation {
        /// x.
        x: f32,
        /// y.
        y: f32,
        /// z.
        z: f32,
        /// w.
        w: f32,
    },
    /// A 3D position too far from the origin.
    #[error(
        "is at ({x:e}, {y:e}, {z:e}), beyond the {max:e} units from the origin that positions may be"
    )]
    TooFar3 {
        /// x.
        x: f32,
        /// y.
        y: f32,
        /// z.
        z: f32,
        /// The limit.
        max: f32,
    },
}

/// Why a candidate pair was rejected. The message reads after "pair N ".
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PairError {
    /// The pair names a body that does not exist.
    #[error("refers to body {body}, which does not exist (bodies: {bodies})")]
    MissingBody {
        /// The body index given.
        body: u32,
        /// Bodies in the batch.
        bodies: usize,
    },
    /// Both indices are the same body.
    #[error("pairs body {body} with itself")]
    SelfPair {
        /// The body.
        body: u32,
    },
}

/// Everything that can go wrong in gpusat.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A shape failed validation.
    #[error("shape {index} {reason}")]
    Shape {
        /// Its index in the library (or the index it would have had).
        index: usize,
        /// Why.
        reason: ShapeError,
    },
    /// A body failed validation.
    #[error("body {index} {reason}")]
    Body {
        /// Its index.
        index: usize,
        /// Why.
        reason: BodyError,
    },
    /// A candidate pair failed validation.
    #[error("pair {index} {reason}")]
    Pair {
        /// Its index in the batch.
        index: usize,
        /// Why.
        reason: PairError,
    },
    /// The speculative margin is negative or not finite.
    #[error("the margin {margin} is not a finite number >= 0")]
    Margin {
        /// The margin given.
        margin: f32,
    },
    /// An argument of a call that is out of range (a time step, an option).
    #[error("{name} {message}")]
    Argument {
        /// What the argument is.
        name: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// A scene file that is not what it should be.
    #[error("{file}: {message}")]
    Input {
        /// The file, as the caller named it.
        file: String,
        /// What is wrong, with the place in the file.
        message: String,
    },
    /// A file that could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// Any other error, found while reading the named file.
    #[error("{file}: {source}")]
    InFile {
        /// The file.
        file: String,
        /// The error.
        #[source]
        source: Box<Error>,
    },
    /// Memory for a batch's results that could not be allocated.
    #[error("{what} need {} MiB, which cannot be allocated", bytes.div_ceil(1 << 20))]
    OutOfMemory {
        /// What the memory was for.
        what: String,
        /// Bytes asked for.
        bytes: u128,
    },
    /// Something the GPU backend could not do.
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    /// A backend this build of the library leaves out (a cargo feature that
    /// is off).
    #[error(
        "the {backend} backend is not in this build of gpusat (enable the `{feature}` feature)"
    )]
    NotBuilt {
        /// The backend asked for.
        backend: &'static str,
        /// The cargo feature that builds it.
        feature: &'static str,
    },
}

/// `Result` with gpusat's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
