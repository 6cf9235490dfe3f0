//! Packing frames onto one page: each image gets a cell of its size plus inner padding and
//! extrusion on every side, cells `margin` apart, the page the smallest power-of-two size
//! (growing the shorter side first) that holds them all, as Defold sizes its atlas pages.
use super::{Frame, MAX_PAGE_SIDE};

/// A rectangle of pixels in a decoded image (RGBA8, rows top to bottom, `image_width` wide).
pub(super) struct Source<'a> {
    pub(super) pixels: &'a [u8],
    pub(super) image_width: u32,
    pub(super) x: u32,
    pub(super) y: u32,
    pub(super) width: u32,
    pub(super) height: u32,
}

/// Defold's `margin`, `extrude_borders` and `inner_padding`, in pixels.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Borders {
    pub(super) margin: u32,
    pub(super) extrude: u32,
    pub(super) padding: u32,
}

impl Borders {
    /// Pixels a cell adds on each side of its image.
    fn around(self) -> u32 {
        self.extrude + self.padding
    }

    /// A cell's area with the margin, to refuse hostile inputs before any page is allocated.
    pub(super) fn cell_area(self, w: u32, h: u32) -> u64 {
        let add = u64::from(2 * self.around() + self.margin);
        (u64::from(w) + add) * (u64::from(h) + add)
    }
}

pub(super) struct Page {
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) rgba: Vec<u8>,
    pub(super) frames: Vec<Frame>,
}

/// Packs `sources` onto one page; an error says why they do not fit.
pub(super) fn pack(sources: &[Source], b: Borders) -> Result<Page, String> {
    let around = b.around();
    let cells: Vec<(i32, i32)> =
        sources.iter().map(|s| ((s.width + 2 * around) as i32, (s.height + 2 * around) as i32)).collect();
    // Largest first packs tighter and, with the index as the last key, is deterministic.
    let mut order: Vec<usize> = (0..cells.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(cells[i].1.max(cells[i].0)), std::cmp::Reverse(cells[i].1), i));
    let total: u64 = sources.iter().map(|s| b.cell_area(s.width, s.height)).sum();
    let widest = cells.iter().map(|c| c.0).max().unwrap_or(1).max(1) as u32;
    let tallest = cells.iter().map(|c| c.1).max().unwrap_or(1).max(1) as u32;
    let (mut w, mut h) = (widest.next_power_of_two(), tallest.next_power_of_two());
    while u64::from(w) * u64::from(h) < total {
        if w <= h { w *= 2 } else { h *= 2 }
    }
    loop {
        if w > MAX_PAGE_SIDE || h > MAX_PAGE_SIDE {
            return Err(format!(
                "the images do not fit on one {MAX_PAGE_SIDE}x{MAX_PAGE_SIDE} page ({} images, {total} pixels with borders)",
                sources.len()
            ));
        }
        if let Some(places) = place(&cells, &order, w, h, b.margin) {
            return Ok(draw(sources, &places, w, h, b));
        }
        if w <= h { w *= 2 } else { h *= 2 }
    }
}

/// Cell corners per source, or None when they do not fit `w` x `h`.
fn place(cells: &[(i32, i32)], order: &[usize], w: u32, h: u32, margin: u32) -> Option<Vec<(u32, u32)>> {
    let config =
        rect_packer::Config { width: w as i32, height: h as i32, border_padding: 0, rectangle_padding: margin as i32 };
    let mut packer = rect_packer::Packer::new(config);
    let mut places = vec![(0, 0); cells.len()];
    for &i in order {
        let r = packer.pack(cells[i].0, cells[i].1, false)?;
        places[i] = (r.x as u32, r.y as u32);
    }
    Some(places)
}

fn draw(sources: &[Source], places: &[(u32, u32)], w: u32, h: u32, b: Borders) -> Page {
    let mut rgba = vec![0u8; w as usize * h as usize * 4];
    let mut frames = Vec::with_capacity(sources.len());
    let around = b.around();
    for (s, &(cx, cy)) in sources.iter().zip(places) {
        let (ix, iy) = (cx + around, cy + around);
        for row in 0..s.height {
            let from = ((s.y + row) as usize * s.image_width as usize + s.x as usize) * 4;
            let to = ((iy + row) as usize * w as usize + ix as usize) * 4;
            let n = s.width as usize * 4;
            rgba[to..to + n].copy_from_slice(&s.pixels[from..from + n]);
        }
        if b.extrude > 0 {
            // The padded image's edge repeated outwards: columns over its rows, then whole rows
            // (corners included) over the cell's width.
            let (x0, y0) = (cx + b.extrude, cy + b.extrude);
            let (pw, ph) = (s.width + 2 * b.padding, s.height + 2 * b.padding);
            let px = |x: u32, y: u32| (y as usize * w as usize + x as usize) * 4;
            for y in y0..y0 + ph {
                for k in 0..b.extrude {
                    let (l, r) = (px(x0, y), px(x0 + pw - 1, y));
                    rgba.copy_within(l..l + 4, px(cx + k, y));
                    rgba.copy_within(r..r + 4, px(x0 + pw + k, y));
                }
            }
            let cw = (pw + 2 * b.extrude) as usize * 4;
            for k in 0..b.extrude {
                let (top, bottom) = (px(cx, y0), px(cx, y0 + ph - 1));
                rgba.copy_within(top..top + cw, px(cx, cy + k));
                rgba.copy_within(bottom..bottom + cw, px(cx, y0 + ph + k));
            }
        }
        frames.push(super::Frame { x: ix, y: iy, width: s.width, height: s.height });
    }
    Page { width: w, height: h, rgba, frames }
}
