//! Building a polygon from user input: validate, clean up, re-validate.
//!
//! Like Box2D's `b2ComputeHull` followed by `b2MakePolygon`, this is the only
//! way a [`Polygon`](crate::d2::Polygon) comes to exist (through
//! [`Polygon::new`](crate::d2::Polygon::new)), so the narrowphase may
//! assume what it checks here: at least 3 and at most
//! [`MAX_POLYGON_VERTICES`] vertices,
//! counter-clockwise, strictly convex, edges of non-zero length, unit outward
//! normals. Unlike `b2ComputeHull`, an outline that is not convex is an error,
//! not something silently replaced by its hull: a user who draws an L-shape
//! should hear about it.
//!
//! The steps, all decided in double precision on the single-precision input:
//!
//! 1. Every coordinate must be finite.
//! 2. `width` = the diagonal of the points' bounding box. Every tolerance below
//!    is a fraction of it, so a polygon 0.001 units wide and the same polygon
//!    1000 units wide are treated alike.
//! 3. Weld: walking the outline, a point closer than `WELD * width` to the
//!    last kept point is dropped (and the last one if it is that close to the
//!    first).
//! 4. Orientation from the signed area; a clockwise outline is reversed.
//! 5. Remove nearly collinear points: a vertex closer than
//!    `COLLINEAR * width` to the chord between its neighbours is dropped
//!    (repeatedly, since a removal changes its neighbours' chords). A vertex
//!    farther than that on the inner side of the chord is a reflex vertex:
//!    the outline is not convex.
//! 6. Re-validate what is left: at least 3 vertices, an outline that turns
//!    around exactly once (all left turns summing to more than one turn is a
//!    star-shaped self-intersection), an area that is not negligible, and no
//!    more than `MAX_POLYGON_VERTICES` vertices.
//! 7. Normals, centroid, size and mass properties, computed in double
//!    precision and rounded once (by [`Polygon::new`](crate::d2::Polygon::new)
//!    from the outline returned here).

use glam::{DVec2, Vec2};

use crate::core::error::ShapeError;
use crate::core::limits::check_size;

/// The most vertices a polygon may keep after cleanup.
pub const MAX_POLYGON_VERTICES: usize = 64;

/// A validated outline: counter-clockwise, strictly convex, 3 to
/// [`MAX_POLYGON_VERTICES`] vertices, in double precision as given.
#[derive(Clone, Debug, PartialEq)]
pub struct Outline {
    /// The kept input points, counter-clockwise.
    pub vertices: Vec<DVec2>,
    /// The enclosed area.
    pub area: f64,
}

/// Points closer than this fraction of the width are welded.
pub const WELD_TOLERANCE: f64 = 1e-5;
/// Vertices closer than this fraction of the width to their neighbours' chord are removed.
pub const COLLINEAR_TOLERANCE: f64 = 1e-5;
/// Inputs with more points than this are rejected before cleanup.
pub const MAX_INPUT_POINTS: usize = 64 * MAX_POLYGON_VERTICES;
/// Polygons with an area below this fraction of width² are rejected. This is
/// larger than `WELD_TOLERANCE` and `COLLINEAR_TOLERANCE`, so that a polygon too thin to be useful
/// (a rectangle of aspect beyond about 10,000) is named for its area before
/// its vertices could all be flattened away; slivers of aspect 1,000 pass.
pub const AREA_TOLERANCE: f64 = 1e-4;

/// Validates `points` (any winding) and returns the cleaned,
/// counter-clockwise outline.
pub fn build_outline(points: &[Vec2]) -> Result<Outline, ShapeError> {
    for (vertex, p) in points.iter().enumerate() {
        if !p.x.is_finite() || !p.y.is_finite() {
            return Err(ShapeError::NonFinite {
                vertex,
                x: p.x,
                y: p.y,
            });
        }
    }
    if points.len() < 3 {
        return Err(ShapeError::TooFewPoints {
            count: distinct_count(points),
        });
    }
    // Cleanup is quadratic in the input size; far more points than a polygon
    // may keep cannot be meant as one.
    if points.len() > MAX_INPUT_POINTS {
        return Err(ShapeError::TooManyVertices {
            count: points.len(),
            max: MAX_POLYGON_VERTICES,
        });
    }

    let input: Vec<DVec2> = points.iter().map(|p| p.as_dvec2()).collect();
    let (min, max) = input.iter().fold(
        (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    let width = (max - min).length();
    if width == 0.0 {
        return Err(ShapeError::TooFewPoints { count: 1 });
    }
    check_size(width)?;

    // Each kept point remembers its input index, for error messages.
    let mut outline = weld(&input, WELD_TOLERANCE * width);
    if outline.len() < 3 {
        return Err(ShapeError::TooFewPoints {
            count: outline.len(),
        });
    }

    if signed_area(&outline, &input) < 0.0 {
        outline.reverse();
    }

    remove_collinear(&mut outline, &input, COLLINEAR_TOLERANCE * width)?;
    if outline.len() < 3 {
        return Err(ShapeError::Collinear);
    }

    let turns = winding_turns(&outline, &input);
    if turns != 1 {
        return Err(ShapeError::SelfIntersecting { turns });
    }
    let area = signed_area(&outline, &input);
    if area < AREA_TOLERANCE * width * width {
        return Err(ShapeError::ZeroArea {
            area: area as f32,
            width: width as f32,
        });
    }
    if outline.len() > MAX_POLYGON_VERTICES {
        return Err(ShapeError::TooManyVertices {
            count: outline.len(),
            max: MAX_POLYGON_VERTICES,
        });
    }

    Ok(Outline {
        vertices: outline.iter().map(|&i| input[i]).collect(),
        area,
    })
}

fn distinct_count(points: &[Vec2]) -> usize {
    let mut distinct: Vec<Vec2> = Vec::new();
    for p in points {
        if !distinct.contains(p) {
            distinct.push(*p);
        }
    }
    distinct.len()
}

/// Drops points within `tolerance` of the last kept one, cyclically.
fn weld(input: &[DVec2], tolerance: f64) -> Vec<usize> {
    let mut kept: Vec<usize> = Vec::with_capacity(input.len());
    for (i, p) in input.iter().enumerate() {
        match kept.last() {
            Some(&last) if (*p - input[last]).length() <= tolerance => {}
            _ => kept.push(i),
        }
    }
    while kept.len() > 1 && (input[kept[kept.len() - 1]] - input[kept[0]]).length() <= tolerance {
        kept.pop();
    }
    kept
}

/// The signed area of the outline (positive for counter-clockwise).
fn signed_area(outline: &[usize], input: &[DVec2]) -> f64 {
    let origin = input[outline[0]];
    let mut twice = 0.0;
    for k in 1..outline.len().saturating_sub(1) {
        let e1 = input[outline[k]] - origin;
        let e2 = input[outline[k + 1]] - origin;
        twice += e1.perp_dot(e2);
    }
    0.5 * twice
}

/// Distance of `v` from the chord `prev -> next`, positive on the outer
/// (right-hand) side, which is where a convex CCW vertex lies.
fn chord_height(prev: DVec2, v: DVec2, next: DVec2) -> f64 {
    let chord = next - prev;
    let length = chord.length();
    if length == 0.0 {
        // prev and next coincide: v sticks out (or back) by its distance.
        return (v - prev).length();
    }
    (v - prev).perp_dot(chord) / length
}

fn remove_collinear(
    outline: &mut Vec<usize>,
    input: &[DVec2],
    tolerance: f64,
) -> Result<(), ShapeError> {
    loop {
        if outline.len() < 3 {
            return Ok(());
        }
        let n = outline.len();
        // Remove the flattest vertex first, so that a long run of nearly
        // collinear points keeps its ends.
        let mut flattest: Option<(usize, f64)> = None;
        for k in 0..n {
            let prev = input[outline[(k + n - 1) % n]];
            let v = input[outline[k]];
            let next = input[outline[(k + 1) % n]];
            let height = chord_height(prev, v, next);
            if height.abs() <= tolerance && flattest.is_none_or(|(_, h)| height.abs() < h) {
                flattest = Some((k, height.abs()));
            }
        }
        match flattest {
            Some((k, _)) => {
                outline.remove(k);
            }
            None => break,
        }
    }
    let n = outline.len();
    for k in 0..n {
        let prev = input[outline[(k + n - 1) % n]];
        let v = input[outline[k]];
        let next = input[outline[(k + 1) % n]];
        // A strict left turn at every vertex. The second test catches what
        // the chord misses: a spike that runs out and back along one line
        // (its chord has no length), which the fuzzer found passing as convex.
        if chord_height(prev, v, next) < 0.0 || (v - prev).perp_dot(next - v) <= 0.0 {
            return Err(ShapeError::NonConvex { vertex: outline[k] });
        }
    }
    Ok(())
}

/// How many times the outline's edge direction turns around (1 for a simple
/// convex polygon, 2 for a pentagram).
fn winding_turns(outline: &[usize], input: &[DVec2]) -> i32 {
    let n = outline.len();
    let mut total = 0.0;
    for k in 0..n {
        let a = input[outline[k]];
        let b = input[outline[(k + 1) % n]];
        let c = input[outline[(k + 2) % n]];
        let e1 = b - a;
        let e2 = c - b;
        total += e1.perp_dot(e2).atan2(e1.dot(e2));
    }
    (total / std::f64::consts::TAU).round() as i32
}
