//! Box3D as a peer on the identical pairs of a 3D workload: its one-pair
//! manifold functions (`b3CollideHulls`, `b3CollideHullAndSphere`,
//! `b3CollideCapsules`, ...), the calls a Box3D world makes for each
//! touching pair, on the shapes converted once. Built with the `box3d`
//! feature (`boxddd-sys`: Box3D's C sources compiled by `cc`, with
//! pregenerated bindings), which a default build leaves out.
//!
//! Two hulls take a `b3SATCache`, Box3D's frame-to-frame hint: cold (a
//! fresh cache a call, what a pair's first frame costs) or kept from the
//! last call on the same pair (`collide_cached`: the bodies unmoved, the
//! best case of a pile at rest).

use boxddd_sys::ffi::{
    b3BoxHull, b3Capsule, b3CollideCapsuleAndSphere, b3CollideCapsules, b3CollideHullAndCapsule,
    b3CollideHullAndSphere, b3CollideHulls, b3CollideSpheres, b3CreateHull, b3DestroyHull,
    b3HullData, b3LocalManifold, b3LocalManifoldPoint, b3MakeOffsetBoxHull, b3Quat, b3SATCache,
    b3SimplexCache, b3Sphere, b3Transform, b3Vec3,
};
use glam::{Quat, Vec3};
use gpusat::Pair;
use gpusat::d3::{Body, Hull, Shape, ShapeSet};

/// Box3D's largest hull: `B3_MAX_HULL_VERTICES`, `B3_MAX_HULL_FACES` and
/// `B3_MAX_HULL_EDGES` (full edges), 128 each; random hulls of 64 vertices
/// already have about 186 edges.
pub const MAX_HULL_FEATURES: usize = 128;

/// Box3D widens a box thinner than this (`0.2 x B3_LINEAR_SLOP`, in
/// meters) to it; such a box is refused rather than compared as another.
const MIN_BOX_HALF_EXTENT: f32 = 0.001;

/// Points a manifold of one pair may hold (Box3D reduces a hull pair's to
/// four; the buffer is its capacity).
const CAPACITY: usize = 8;

/// A hull as Box3D holds it: built by `b3CreateHull` (freed on drop), or a
/// box from `b3MakeOffsetBoxHull`, whose arrays follow it in the same
/// allocation.
enum HullData {
    Created(*mut b3HullData),
    Boxed(Box<b3BoxHull>),
}

impl HullData {
    /// The hull for Box3D's functions. A box's pointer is the whole
    /// `b3BoxHull`'s, cast: Box3D reads its arrays at offsets from the
    /// header, past the `base` field.
    fn as_ptr(&self) -> *const b3HullData {
        match self {
            HullData::Created(pointer) => *pointer,
            HullData::Boxed(boxed) => std::ptr::from_ref::<b3BoxHull>(boxed).cast::<b3HullData>(),
        }
    }
}

impl Drop for HullData {
    fn drop(&mut self) {
        if let HullData::Created(pointer) = *self {
            // SAFETY: the pointer came from b3CreateHull and is freed once.
            unsafe { b3DestroyHull(pointer) };
        }
    }
}

/// A shape as Box3D holds it, in the order of its collide functions (the
/// higher kind is their shape A).
enum Converted {
    Sphere(b3Sphere),
    Capsule(b3Capsule),
    Hull(HullData),
}

impl Converted {
    fn rank(&self) -> u8 {
        match self {
            Converted::Sphere(_) => 0,
            Converted::Capsule(_) => 1,
            Converted::Hull(_) => 2,
        }
    }
}

fn vec3(v: Vec3) -> b3Vec3 {
    b3Vec3 {
        x: v.x,
        y: v.y,
        z: v.z,
    }
}

/// A hull converted: a box through `b3MakeOffsetBoxHull`, any other through
/// `b3CreateHull`; refused, naming the limit, where Box3D would not keep it
/// as it is.
fn convert_hull(index: usize, hull: &Hull) -> Result<HullData, String> {
    if let Some((low, high)) = hull.cuboid_corners() {
        let half = (high - low) * 0.5;
        if half.min_element() < MIN_BOX_HALF_EXTENT {
            return Err(format!(
                "shape {index}: a box of half extents {half} (Box3D widens them to at least \
                 {MIN_BOX_HALF_EXTENT})"
            ));
        }
        let centre = (low + high) * 0.5;
        // SAFETY: plain values in, a plain value out.
        let boxed = unsafe { b3MakeOffsetBoxHull(half.x, half.y, half.z, vec3(centre)) };
        return Ok(HullData::Boxed(Box::new(boxed)));
    }
    let count = hull.vertices().len();
    for (what, features) in [
        ("vertices", count),
        ("faces", hull.face_count()),
        ("edges", hull.edges().len()),
    ] {
        if features > MAX_HULL_FEATURES {
            return Err(format!(
                "shape {index}: a hull of {features} {what} (Box3D takes at most \
                 {MAX_HULL_FEATURES})"
            ));
        }
    }
    let points: Vec<b3Vec3> = hull.vertices().iter().map(|&v| vec3(v)).collect();
    // SAFETY: `points` holds `count` initialised vectors.
    let created = unsafe { b3CreateHull(points.as_ptr(), count as i32, count as i32) };
    if created.is_null() {
        return Err(format!(
            "shape {index}: Box3D's hull builder refused the hull"
        ));
    }
    let data = HullData::Created(created);
    // SAFETY: a hull just created, alive until `data` drops.
    let kept = unsafe { (*created).vertexCount } as usize;
    if kept != count {
        return Err(format!(
            "shape {index}: Box3D's hull of the {count} vertices keeps {kept}"
        ));
    }
    Ok(data)
}

/// What Box3D keeps from one call on a pair to the next.
#[derive(Clone, Copy)]
pub struct PairCache {
    sat: b3SATCache,
    simplex: b3SimplexCache,
}

impl PairCache {
    /// An empty cache: what a pair's first call starts from.
    pub fn new() -> PairCache {
        // SAFETY: both are plain C structs of integers and floats, for which
        // all zeros is Box3D's empty cache (`b3_invalidAxis`, no simplex).
        unsafe { std::mem::zeroed() }
    }
}

impl Default for PairCache {
    fn default() -> PairCache {
        PairCache::new()
    }
}

/// Box3D's narrowphase on the same shapes and bodies.
pub struct Peer {
    shapes: Vec<Converted>,
    transforms: Vec<(Vec3, Quat)>,
    body_shapes: Vec<u32>,
}

impl Peer {
    /// The shapes converted once, the bodies' poses; an error naming a
    /// shape Box3D cannot hold (a rounded hull: its hulls have no radius;
    /// a hull past its limits).
    pub fn new(shapes: &ShapeSet, bodies: &[Body]) -> Result<Peer, String> {
        let mut converted = Vec::with_capacity(shapes.len());
        for (index, shape) in shapes.shapes().iter().enumerate() {
            converted.push(match shape {
                Shape::Hull(hull) => Converted::Hull(convert_hull(index, hull)?),
                Shape::Sphere(sphere) => Converted::Sphere(b3Sphere {
                    center: vec3(Vec3::ZERO),
                    radius: sphere.radius(),
                }),
                Shape::Capsule(capsule) => {
                    let [a, b] = capsule.points();
                    Converted::Capsule(b3Capsule {
                        center1: vec3(a),
                        center2: vec3(b),
                        radius: capsule.radius(),
                    })
                }
                Shape::RoundedHull(_) => {
                    return Err(format!(
                        "shape {index}: a rounded hull (Box3D's hulls have no radius)"
                    ));
                }
            });
        }
        Ok(Peer {
            shapes: converted,
            transforms: bodies
                .iter()
                .map(|body| (body.position, body.rotation.normalize()))
                .collect(),
            body_shapes: bodies.iter().map(|body| body.shape).collect(),
        })
    }

    /// One pair's overlap as Box3D reports it, from `cache` (updated):
    /// `(depth, normal)` from its deepest manifold point (the normal from A
    /// to B, in the world) where a point has a negative separation; its
    /// manifolds also hold speculative points, which are not overlaps.
    pub fn contact_cached(&self, pair: Pair, cache: &mut PairCache) -> Option<(f32, Vec3)> {
        let side = |body: u32| {
            (
                &self.shapes[self.body_shapes[body as usize] as usize],
                self.transforms[body as usize],
            )
        };
        let (mut a, mut b) = (side(pair.a), side(pair.b));
        let reversed = a.0.rank() < b.0.rank();
        if reversed {
            std::mem::swap(&mut a, &mut b);
        }
        // B's frame in A's.
        let inverse = a.1.1.conjugate();
        let q = inverse * b.1.1;
        let transform = b3Transform {
            p: vec3(inverse * (b.1.0 - a.1.0)),
            q: b3Quat {
                v: vec3(Vec3::new(q.x, q.y, q.z)),
                s: q.w,
            },
        };
        // SAFETY: all zeros is an empty manifold point.
        let mut points: [b3LocalManifoldPoint; CAPACITY] = unsafe { std::mem::zeroed() };
        // SAFETY: all zeros is an empty manifold (a null buffer, set next).
        let mut manifold: b3LocalManifold = unsafe { std::mem::zeroed() };
        manifold.points = points.as_mut_ptr();
        let capacity = CAPACITY as i32;
        use Converted::{Capsule, Hull, Sphere};
        // SAFETY: every pointer is to a shape converted by `new` (a box's to
        // its whole `b3BoxHull`, whose arrays Box3D reads by offset) or to
        // the buffers above, alive for the call; the functions write only
        // the manifold, its buffer (up to `capacity` points) and the cache.
        unsafe {
            match (a.0, b.0) {
                (Hull(s), Hull(t)) => b3CollideHulls(
                    &mut manifold,
                    capacity,
                    s.as_ptr(),
                    t.as_ptr(),
                    transform,
                    &mut cache.sat,
                ),
                (Hull(s), Capsule(t)) => b3CollideHullAndCapsule(
                    &mut manifold,
                    capacity,
                    s.as_ptr(),
                    t,
                    transform,
                    &mut cache.simplex,
                ),
                (Hull(s), Sphere(t)) => b3CollideHullAndSphere(
                    &mut manifold,
                    capacity,
                    s.as_ptr(),
                    t,
                    transform,
                    &mut cache.simplex,
                ),
                (Capsule(s), Capsule(t)) => {
                    b3CollideCapsules(&mut manifold, capacity, s, t, transform)
                }
                (Capsule(s), Sphere(t)) => {
                    b3CollideCapsuleAndSphere(&mut manifold, capacity, s, t, transform)
                }
                (Sphere(s), Sphere(t)) => {
                    b3CollideSpheres(&mut manifold, capacity, s, t, transform)
                }
                // The higher kind is always A.
                (Sphere(_) | Capsule(_), _) => return None,
            }
        };
        let count = (manifold.pointCount.max(0) as usize).min(CAPACITY);
        let deepest = points[..count]
            .iter()
            .map(|point| point.separation)
            .fold(f32::MAX, f32::min);
        if deepest >= 0.0 {
            return None;
        }
        let local = Vec3::new(manifold.normal.x, manifold.normal.y, manifold.normal.z);
        let normal = a.1.1 * local;
        Some((-deepest, if reversed { -normal } else { normal }))
    }

    /// [`Peer::contact_cached`] from an empty cache: the pair's first call.
    pub fn contact(&self, pair: Pair) -> Option<(f32, Vec3)> {
        self.contact_cached(pair, &mut PairCache::new())
    }

    /// Every pair's manifold, each from an empty cache; the number that
    /// overlap.
    pub fn collide(&self, pairs: &[Pair]) -> usize {
        pairs
            .iter()
            .filter(|pair| self.contact(**pair).is_some())
            .count()
    }

    /// Every pair's manifold from its entry of `caches` (one a pair, in
    /// order; updated); the number that overlap.
    pub fn collide_cached(&self, pairs: &[Pair], caches: &mut [PairCache]) -> usize {
        let mut overlapping = 0;
        for (pair, cache) in pairs.iter().zip(caches) {
            overlapping += usize::from(self.contact_cached(*pair, cache).is_some());
        }
        overlapping
    }
}
