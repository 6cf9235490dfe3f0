//! The collision hull of each tile of a tile source, made from its `collision` image's alpha as
//! Defold's build makes it: a `.tilesource` keeps only each hull's group and vertex count, and
//! bob computes the points (`ConvexHull2D.imageConvexHull` with 16 planes), which the engine
//! then scales to the cell. Recomputed the same way here, a Defold tile map collides where
//! Defold's does.

/// Planes fitted around a tile's opaque pixels (Defold's build uses 16).
const PLANES: usize = 16;

/// One tile's hull: points in the tile's own square, -0.5..0.5 either way, y up, in order
/// around it.
pub type TileHull = Vec<[f32; 2]>;

/// The opaque pixels of a tile as the leftmost and rightmost of each row (y up, 0 the bottom
/// row): every test below is linear in x along a row, so those two decide it for the row.
struct Rows {
    rows: Vec<(f64, f64, f64)>,
}

impl Rows {
    /// Largest value of `f` over the opaque pixels (f linear in x for a fixed y).
    fn max(&self, f: impl Fn(f64, f64) -> f64) -> f64 {
        self.rows.iter().fold(f64::NEG_INFINITY, |m, &(y, x0, x1)| m.max(f(x0, y)).max(f(x1, y)))
    }
}

/// The hull of the tile whose alpha `opaque(x, y)` says (x right, y down, as image rows are
/// stored), `w`×`h` pixels; None for a tile with no opaque pixel or none with an area.
pub fn tile_hull(w: u32, h: u32, opaque: impl Fn(u32, u32) -> bool) -> Option<TileHull> {
    let mut rows = Vec::new();
    for row in 0..h {
        let y = f64::from(h - 1 - row);
        let mut xs = (0..w).filter(|&x| opaque(x, row));
        if let Some(first) = xs.next() {
            let last = xs.last().unwrap_or(first);
            rows.push((y, f64::from(first), f64::from(last)));
        }
    }
    if rows.is_empty() {
        return None;
    }
    let rows = Rows { rows };
    let (cx, cy) = ((f64::from(w) - 1.0) / 2.0, (f64::from(h) - 1.0) / 2.0);
    // A supporting line per plane: its point and its direction.
    let planes: Vec<([f64; 2], [f64; 2])> = (0..PLANES)
        .map(|i| {
            let angle = i as f64 * 2.0 * std::f64::consts::PI / PLANES as f64;
            let (dx, dy) = (angle.cos(), angle.sin());
            let reach = rows.max(|x, y| (x - cx) * dx + (y - cy) * dy);
            ([dx * reach + cx, dy * reach + cy], [-dy, dx])
        })
        .collect();
    // Neighbouring planes meet at the hull's corners, rounded to whole pixels, each once.
    let mut points: Vec<[i64; 2]> = Vec::with_capacity(PLANES);
    for i in 0..PLANES {
        let ((p0, d0), (p1, d1)) = (planes[i], planes[(i + 1) % PLANES]);
        let t = ((p0[1] - p1[1]) * d1[0] - (p0[0] - p1[0]) * d1[1]) / (d0[0] * d1[1] - d1[0] * d0[1]);
        // Java's Math.round: halves go up.
        let p = [(p0[0] + t * d0[0] + 0.5).floor() as i64, (p0[1] + t * d0[1] + 0.5).floor() as i64];
        if !points.contains(&p) {
            points.push(p);
        }
    }
    let points = refine(points, &rows);
    if points.len() < 3 {
        return None;
    }
    let (sx, sy) = (1.0 / (f64::from(w) - 1.0).max(1.0), 1.0 / (f64::from(h) - 1.0).max(1.0));
    Some(points.iter().map(|p| [(p[0] as f64 * sx - 0.5) as f32, (p[1] as f64 * sy - 0.5) as f32]).collect())
}

/// Drops every corner the hull holds all the pixels without, one at a time, until none can go
/// (bob's `refine`, in its order).
fn refine(mut points: Vec<[i64; 2]>, rows: &Rows) -> Vec<[i64; 2]> {
    loop {
        let mut dropped = false;
        let mut i = 0;
        while i < points.len() {
            let mut fewer = points.clone();
            fewer.remove(i);
            if holds_all(&fewer, rows) {
                points = fewer;
                dropped = true;
            } else {
                i += 1;
            }
        }
        if points.len() <= 3 || !dropped {
            return points;
        }
    }
}

/// Whether every pixel is inside (or within 0.01 of) each edge of the polygon.
fn holds_all(points: &[[i64; 2]], rows: &Rows) -> bool {
    let n = points.len();
    (0..n).all(|i| {
        let (p0, p1) = (points[(i + 1) % n], points[i]);
        let normal = [-(p1[1] - p0[1]) as f64, (p1[0] - p0[0]) as f64];
        let len = (normal[0] * normal[0] + normal[1] * normal[1]).sqrt();
        if len == 0.0 {
            // Java normalises a zero vector to NaN, and NaN < -0.01 is false: the edge passes.
            return true;
        }
        let normal = [normal[0] / len, normal[1] / len];
        // distance(x, y) = (p0 - (x, y)) . normal; the smallest is -max((x, y) . normal) + p0 . normal.
        let base = p0[0] as f64 * normal[0] + p0[1] as f64 * normal[1];
        base - rows.max(|x, y| x * normal[0] + y * normal[1]) >= -0.01
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_tile_is_its_square() {
        let hull = tile_hull(64, 64, |_, _| true).unwrap();
        let mut corners: Vec<[f32; 2]> = hull.clone();
        corners.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(corners, vec![[-0.5, -0.5], [-0.5, 0.5], [0.5, -0.5], [0.5, 0.5]], "{hull:?}");
    }

    #[test]
    fn the_lower_half_of_a_tile_is_a_box_up_to_its_middle() {
        // Rows 32..64 (the bottom half in image order) opaque.
        let hull = tile_hull(64, 64, |_, y| y >= 32).unwrap();
        let top = hull.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
        let bottom = hull.iter().map(|p| p[1]).fold(f32::MAX, f32::min);
        assert_eq!(bottom, -0.5);
        // y = 31 of 63 at the top: 31/63 - 0.5.
        assert!((top - (31.0 / 63.0 - 0.5)).abs() < 1e-6, "{hull:?}");
        assert_eq!(hull.len(), 4, "{hull:?}");
    }

    #[test]
    fn a_triangle_keeps_its_slope_and_every_pixel() {
        // A ramp rising to the right: pixel (x, y-up) opaque when y <= x.
        let hull = tile_hull(32, 32, |x, row| 31 - row <= x).unwrap();
        assert!(hull.len() >= 3 && hull.len() <= PLANES, "{hull:?}");
        // Every opaque pixel's centre is inside (allowing Defold's 0.01 pixel).
        let n = hull.len();
        for x in 0..32 {
            for y in 0..=x {
                let p = [x as f32 / 31.0 - 0.5, y as f32 / 31.0 - 0.5];
                let mut sign = 0.0f32;
                for i in 0..n {
                    let (a, b) = (hull[i], hull[(i + 1) % n]);
                    let c = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
                    if c.abs() > 1e-3 {
                        assert!(sign == 0.0 || c.signum() == sign, "pixel {x},{y} outside {hull:?}");
                        sign = c.signum();
                    }
                }
            }
        }
        // The top-left corner of the tile is outside: the ramp is not a box.
        assert!(!hull.iter().any(|p| p[0] < -0.4 && p[1] > 0.4), "{hull:?}");
    }

    #[test]
    fn an_empty_tile_has_no_hull() {
        assert!(tile_hull(16, 16, |_, _| false).is_none());
        assert!(tile_hull(1, 1, |_, _| true).is_none());
    }
}
