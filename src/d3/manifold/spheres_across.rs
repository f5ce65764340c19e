//! Two spheres' contacts, eight pairs at a time: a lane a pair, what
//! `sphere_contacts` builds for each (the same bits as the general path's
//! hit normal and `spheres_point`), in the lanes of their SAT
//! (`sat/spheres_across.rs`). The 2D twin is `manifold/circles_across.rs`.
//!
//! ```text
//! normal = centre / |centre| rotated into the world, where |centre| is past
//!          the concentric tolerance (A's x axis otherwise)
//! point  = midway between the surfaces: (p_a + r_a n + p_b - r_b n) / 2
//! depth  = -(|centre| - (r_a + r_b)), one point, id contact_id(3, 0, 0, Centres)
//! ```
//!
//! Every lane's contact is written, reported or not, and read where it is.

use glam::Vec3;

use crate::core::simd::Lanes;
use crate::d3::sat::CONCENTRIC_TOLERANCE;
use crate::d3::sat::segments_across::{PAIRS, add3, rotate, scale3, select3, sub3};
use crate::d3::sat::spheres_across::SpherePairs;
use crate::d3::types::Axis;

use super::{ContactPoint, Manifold, contact_id};

/// What a sphere pair's manifold holds besides its pair and bodies.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SphereContact {
    normal: Vec3,
    point: Vec3,
    depth: f32,
}

impl SphereContact {
    /// The manifold of pair `pair` of bodies `a` and `b`.
    #[inline(always)]
    pub(crate) fn manifold(self, pair: u32, a: u32, b: u32) -> Manifold {
        let mut manifold = Manifold::new(pair, a, b, self.normal);
        manifold.points[0] = ContactPoint {
            point: self.point,
            depth: self.depth,
            id: contact_id(3, 0, 0, Axis::Centres.pack()),
        };
        manifold.count = 1;
        manifold
    }
}

/// The SAT and the contacts of the filled lanes of `pairs`, lane `k`'s into
/// `out[at[k]]`, and the lanes emptied. Returns the lanes reported, as
/// bits.
pub(crate) fn contacts(
    pairs: &mut SpherePairs,
    margin: f32,
    at: &[usize; PAIRS],
    out: &mut [SphereContact],
) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if crate::core::simd::uses_avx() {
        // SAFETY: AVX was detected on this CPU.
        return unsafe { contacts_avx(pairs, margin, at, out) };
    }
    contacts_with::<crate::core::simd::Portable>(pairs, margin, at, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,popcnt")]
fn contacts_avx(
    pairs: &mut SpherePairs,
    margin: f32,
    at: &[usize; PAIRS],
    out: &mut [SphereContact],
) -> u32 {
    contacts_with::<crate::core::simd::avx::Avx>(pairs, margin, at, out)
}

#[inline(always)]
fn contacts_with<V: Lanes>(
    pairs: &mut SpherePairs,
    margin: f32,
    at: &[usize; PAIRS],
    out: &mut [SphereContact],
) -> u32 {
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    let s = pairs.lanes::<V>(margin);
    let radii = s.radius_a + s.radius_b;
    // `centre_line`: the centre line rotated out of A's frame, A's x axis
    // when the centres are within the concentric tolerance.
    let apart = s.distance.gt(V::splat(CONCENTRIC_TOLERANCE) * radii);
    let along = [
        s.centre[0].div(s.distance),
        s.centre[1].div(s.distance),
        s.centre[2].div(s.distance),
    ];
    let normal = rotate(s.r_a, select3(apart, along, [one, zero, zero]));
    // `spheres_point`: midway between the surfaces along the normal.
    let surface_a = add3(s.p_a, scale3(s.radius_a, normal));
    let surface_b = sub3(s.p_b, scale3(s.radius_b, normal));
    let point = scale3(V::splat(0.5), add3(surface_a, surface_b));
    let depth = (s.distance - radii).neg().to_array();
    // Written out: a `map` would not inline the AVX caller's operations.
    let (nx, ny, nz) = (
        normal[0].to_array(),
        normal[1].to_array(),
        normal[2].to_array(),
    );
    let (x, y, z) = (
        point[0].to_array(),
        point[1].to_array(),
        point[2].to_array(),
    );
    for (lane, &position) in at.iter().enumerate().take(pairs.len()) {
        out[position] = SphereContact {
            normal: Vec3::new(nx[lane], ny[lane], nz[lane]),
            point: Vec3::new(x[lane], y[lane], z[lane]),
            depth: depth[lane],
        };
    }
    pairs.clear();
    s.reported
}
