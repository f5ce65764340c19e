//! A hull's Gauss map, bucketed: which vertex regions lie near each point of
//! the sphere of directions.
//!
//! On the Gauss map each face of a hull is a point (its unit normal), each
//! edge a great arc between its two faces' normals, and each vertex a region
//! (the spherical polygon of the normals of the faces around it): the
//! directions in which that vertex is the hull's support. A face query asks,
//! for each face normal `n` of the other hull, the deepest vertex along
//! `-n`: the vertex whose region holds `-n`.
//!
//! The grid is a cube map: each face of the cube around the sphere is cut
//! into `cells x cells` squares, and a direction belongs to the square its
//! central projection falls in. For each square it lists the vertex regions
//! that come within [`REGION_PAD`] of it: each region is bounded by a ball
//! (a cap around its corners, as a chord), grown by the pad, and entered in
//! every square that ball's box may project into. A face query then reads
//! the square of `-n` and takes the minimum over the regions listed there,
//! with the same arithmetic as the loop over every vertex:
//!
//! ```text
//! face i:  candidates = the regions listed in the square holding -n_i
//!          separation = min over the candidates of n_i . w - d_i
//! ```
//!
//! Exactness. The vertex found is the deepest one computed: a vertex whose
//! value comes within rounding (about `1e-7 x size`) of the minimum is one
//! whose region lies within `2.4e-7 x size / (its edge to the minimum)`
//! radians of the direction, and edges are at least the weld tolerance
//! (`1e-5 x size`) long, so within 0.024 radians: inside the pad of 0.03. So
//! the grid gives the loop's minimum bit for bit (the tests compare them on
//! every pair), reading about ten vertices instead of all of them.

use glam::Vec3;

use super::super::math::length3;

/// How far (as a chord on the unit sphere, about radians) each vertex region
/// is grown before it is bucketed: past the 0.024 radians within which a
/// vertex can come within rounding of the deepest (see above).
pub const REGION_PAD: f32 = 0.03;

/// A point on the sphere is at least this far along its cube face's axis.
const FACE_MIN: f32 = 0.577_35; // just under 1/sqrt(3)

/// The cube faces' major axes and the two others, in order.
const AXES: [(usize, usize, usize); 3] = [(0, 1, 2), (1, 2, 0), (2, 0, 1)];

/// A hull's Gauss map in a cube map: each of the cube's six faces cut into
/// `cells x cells` squares, each direction in the square its central
/// projection falls in.
#[derive(Clone, Debug, PartialEq)]
pub struct GaussGrid {
    /// Squares per side of a cube face.
    cells: u32,
    /// Square `c`'s vertex regions are `regions[region_start[c]..region_start[c + 1]]`.
    region_start: Vec<u32>,
    regions: Vec<u16>,
}

/// A ball around a set of unit vectors: the normalised mean, and the
/// largest chord to any of them.
fn bounding_ball(points: &[Vec3]) -> (Vec3, f32) {
    let sum = points.iter().fold(Vec3::ZERO, |sum, &p| sum + p);
    let length = length3(sum);
    let centre = if length > 1e-12 {
        sum / length
    } else {
        Vec3::X
    };
    let radius = points
        .iter()
        .map(|&p| length3(p - centre))
        .fold(0.0f32, f32::max);
    (centre, radius)
}

impl GaussGrid {
    /// Buckets the regions of the vertices, each given by the normals of the
    /// faces around it.
    pub fn new(vertex_regions: &[Vec<Vec3>]) -> GaussGrid {
        let cells = ((vertex_regions.len() as f32 / 2.0).sqrt().round() as u32).clamp(1, 24);
        let squares = (6 * cells * cells) as usize;
        let bucket = |balls: &mut dyn Iterator<Item = (Vec3, f32)>, pad: f32| {
            let mut lists: Vec<Vec<u16>> = vec![Vec::new(); squares];
            for (index, (centre, radius)) in balls.enumerate() {
                GaussGrid::squares_of_ball(cells, centre, radius + pad, |square| {
                    lists[square as usize].push(index as u16)
                });
            }
            let mut start = Vec::with_capacity(squares + 1);
            let mut items = Vec::new();
            for list in lists {
                start.push(items.len() as u32);
                items.extend(list);
            }
            start.push(items.len() as u32);
            (start, items)
        };
        let (region_start, regions) = bucket(
            &mut vertex_regions.iter().map(|corners| bounding_ball(corners)),
            REGION_PAD,
        );
        GaussGrid {
            cells,
            region_start,
            regions,
        }
    }

    /// The square of a direction (any length but zero). Its twin is
    /// `grid_square` in `shaders/d3/sat.wgsl`: the same operations.
    #[inline(always)]
    fn square_of(cells: u32, p: Vec3) -> u32 {
        let a = p.abs();
        let (face, major, u, v) = if a.x >= a.y && a.x >= a.z {
            (u32::from(p.x < 0.0), a.x, p.y, p.z)
        } else if a.y >= a.z {
            (2 + u32::from(p.y < 0.0), a.y, p.z, p.x)
        } else {
            (4 + u32::from(p.z < 0.0), a.z, p.x, p.y)
        };
        let scale = cells as f32 * 0.5 / major.max(1e-30);
        let cell =
            |x: f32| ((x * scale + cells as f32 * 0.5) as i32).clamp(0, cells as i32 - 1) as u32;
        (face * cells + cell(u)) * cells + cell(v)
    }

    /// Every square a ball (centre on the sphere, chord radius) may touch.
    #[inline]
    fn squares_of_ball(cells: u32, centre: Vec3, radius: f32, mut visit: impl FnMut(u32)) {
        let low = (centre - Vec3::splat(radius))
            .max(Vec3::splat(-1.0))
            .to_array();
        let high = (centre + Vec3::splat(radius))
            .min(Vec3::splat(1.0))
            .to_array();
        let n = cells as f32;
        let cell = |x: f32| {
            ((x.clamp(-1.0, 1.0) + 1.0) * 0.5 * n)
                .floor()
                .clamp(0.0, n - 1.0) as u32
        };
        for (axis_index, &(major, b, c)) in AXES.iter().enumerate() {
            for negative in [false, true] {
                // The range of the major coordinate on this face's side.
                let (lo, hi) = if negative {
                    (-high[major], -low[major])
                } else {
                    (low[major], high[major])
                };
                if hi < FACE_MIN {
                    continue;
                }
                let (t_lo, t_hi) = (lo.max(FACE_MIN), hi.max(FACE_MIN));
                // u = p_b / t and v = p_c / t over the box: extremes at corners.
                let range = |low: f32, high: f32| {
                    let values = [low / t_lo, low / t_hi, high / t_lo, high / t_hi];
                    (
                        values.iter().copied().fold(f32::MAX, f32::min),
                        values.iter().copied().fold(f32::MIN, f32::max),
                    )
                };
                let (u_lo, u_hi) = range(low[b], high[b]);
                let (v_lo, v_hi) = range(low[c], high[c]);
                let face = 2 * axis_index as u32 + u32::from(negative);
                for u in cell(u_lo)..=cell(u_hi) {
                    for v in cell(v_lo)..=cell(v_hi) {
                        visit((face * cells + u) * cells + v);
                    }
                }
            }
        }
    }

    /// The vertices whose regions may hold `direction`.
    #[inline]
    pub fn regions_at(&self, direction: Vec3) -> &[u16] {
        let square = GaussGrid::square_of(self.cells, direction) as usize;
        &self.regions[self.region_start[square] as usize..self.region_start[square + 1] as usize]
    }

    /// Asks for the grid's lists to be brought into the cache.
    pub(crate) fn prefetch(&self) {
        crate::core::simd::prefetch_all(&self.region_start);
        crate::core::simd::prefetch_all(&self.regions);
    }

    /// Each square's vertex regions, in square order: cube face, then the
    /// square's row and column (`shaders/d3/sat.wgsl`'s `grid_square`, the
    /// twin of the lookup [`GaussGrid::regions_at`] makes).
    pub fn lists(&self) -> impl Iterator<Item = &[u16]> {
        self.region_start
            .windows(2)
            .map(|w| &self.regions[w[0] as usize..w[1] as usize])
    }

    /// The most vertex regions one square lists.
    pub fn longest_list(&self) -> usize {
        self.lists().map(<[u16]>::len).max().unwrap_or(0)
    }

    /// Squares per side of a cube face.
    pub fn cells(&self) -> u32 {
        self.cells
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        4 * self.region_start.len() + 2 * self.regions.len()
    }
}
