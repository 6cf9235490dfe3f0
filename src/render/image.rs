//! RGBA8 images: PNG load/save and per-pixel comparison for golden-image tests.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::Path;

/// An 8-bit RGBA image, rows stored top-to-bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Image {
    /// A `width` x `height` image filled with one colour.
    pub fn filled(width: u32, height: u32, rgba: [u8; 4]) -> Image {
        let count = width as usize * height as usize;
        Image { width, height, rgba: rgba.repeat(count) }
    }

    /// The pixel at (`x`, `y`), `y` counted from the top; `None` outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        let p = self.rgba.get(i..i + 4)?;
        Some([p[0], p[1], p[2], p[3]])
    }

    /// Sets the pixel at (`x`, `y`); ignored outside the image.
    pub fn set_pixel(&mut self, x: u32, y: u32, rgba: [u8; 4]) {
        if x >= self.width || y >= self.height {
            return;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        if let Some(p) = self.rgba.get_mut(i..i + 4) {
            p.copy_from_slice(&rgba);
        }
    }

    fn check_len(&self) -> Result<(), String> {
        let expected = self.width as usize * self.height as usize * 4;
        if self.rgba.len() != expected {
            return Err(format!(
                "image data is {} bytes, expected {} for {}x{} RGBA",
                self.rgba.len(),
                expected,
                self.width,
                self.height
            ));
        }
        Ok(())
    }

    /// Writes the image as an 8-bit RGBA PNG.
    pub fn save_png(&self, path: &Path) -> Result<(), String> {
        self.check_len()?;
        let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut encoder = png::Encoder::new(BufWriter::new(file), self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(|e| format!("{}: {e}", path.display()))?;
        writer.write_image_data(&self.rgba).map_err(|e| format!("{}: {e}", path.display()))?;
        writer.finish().map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Reads an 8-bit RGB or RGBA PNG (RGB gets alpha 255); other formats are an error.
    pub fn load_png(path: &Path) -> Result<Image, String> {
        let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut decoder = png::Decoder::new(BufReader::new(file));
        decoder.set_transformations(png::Transformations::IDENTITY);
        let mut reader = decoder.read_info().map_err(|e| format!("{}: {e}", path.display()))?;
        let size = reader.output_buffer_size().ok_or_else(|| format!("{}: image too large", path.display()))?;
        let mut buf = vec![0u8; size];
        let info = reader.next_frame(&mut buf).map_err(|e| format!("{}: {e}", path.display()))?;
        if info.bit_depth != png::BitDepth::Eight {
            return Err(format!(
                "{}: unsupported PNG bit depth {:?} (need 8-bit RGB or RGBA)",
                path.display(),
                info.bit_depth
            ));
        }
        let (w, h) = (info.width as usize, info.height as usize);
        let channels = match info.color_type {
            png::ColorType::Rgba => 4,
            png::ColorType::Rgb => 3,
            other => {
                return Err(format!(
                    "{}: unsupported PNG colour type {other:?} (need 8-bit RGB or RGBA)",
                    path.display()
                ));
            }
        };
        let mut rgba = Vec::with_capacity(w * h * 4);
        for y in 0..h {
            let start = y * info.line_size;
            let row = buf
                .get(start..start + w * channels)
                .ok_or_else(|| format!("{}: truncated image data", path.display()))?;
            if channels == 4 {
                rgba.extend_from_slice(row);
            } else {
                for px in row.chunks_exact(3) {
                    rgba.extend_from_slice(&[px[0], px[1], px[2], 255]);
                }
            }
        }
        Ok(Image { width: info.width, height: info.height, rgba })
    }
}

/// Result of [`compare`].
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Largest absolute difference seen in any channel of any pixel.
    pub max_channel_diff: u8,
    /// Pixels where some channel differs by more than the tolerance.
    pub differing_pixels: usize,
    /// A dimmed copy of `a` with the differing pixels in red.
    pub diff: Image,
}

/// Compares two images channel by channel. A pixel counts as differing when any channel's
/// absolute difference exceeds `tolerance`. Images of different sizes are an error.
pub fn compare(a: &Image, b: &Image, tolerance: u8) -> Result<Comparison, String> {
    if a.width != b.width || a.height != b.height {
        return Err(format!("image sizes differ: {}x{} vs {}x{}", a.width, a.height, b.width, b.height));
    }
    a.check_len()?;
    b.check_len()?;
    let mut max_channel_diff = 0u8;
    let mut differing_pixels = 0usize;
    let mut diff = Vec::with_capacity(a.rgba.len());
    for (pa, pb) in a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)) {
        let worst = pa.iter().zip(pb).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
        max_channel_diff = max_channel_diff.max(worst);
        if worst > tolerance {
            differing_pixels += 1;
            diff.extend_from_slice(&[255, 0, 0, 255]);
        } else {
            diff.extend_from_slice(&[pa[0] / 4, pa[1] / 4, pa[2] / 4, 255]);
        }
    }
    Ok(Comparison { max_channel_diff, differing_pixels, diff: Image { width: a.width, height: a.height, rgba: diff } })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gradient(w: u32, h: u32) -> Image {
        let mut img = Image::filled(w, h, [0, 0, 0, 255]);
        for y in 0..h {
            for x in 0..w {
                img.set_pixel(x, y, [(x * 10) as u8, (y * 20) as u8, 128, 255]);
            }
        }
        img
    }

    #[test]
    fn identical_images_have_no_diffs() {
        let a = gradient(8, 6);
        let c = compare(&a, &a.clone(), 0).unwrap();
        assert_eq!(c.max_channel_diff, 0);
        assert_eq!(c.differing_pixels, 0);
        assert_eq!((c.diff.width, c.diff.height), (8, 6));
        assert_eq!(c.diff.pixel(1, 1), Some([2, 5, 32, 255]));
    }

    #[test]
    fn one_changed_pixel_is_counted_and_marked_red() {
        let a = gradient(8, 6);
        let mut b = a.clone();
        b.set_pixel(3, 2, [0, 0, 0, 0]);
        let c = compare(&a, &b, 2).unwrap();
        assert_eq!(c.differing_pixels, 1);
        assert_eq!(c.max_channel_diff, 255);
        assert_eq!(c.diff.pixel(3, 2), Some([255, 0, 0, 255]));
    }

    #[test]
    fn tolerance_is_inclusive() {
        let a = Image::filled(4, 4, [100, 100, 100, 255]);
        let b = Image::filled(4, 4, [102, 98, 100, 255]);
        let c = compare(&a, &b, 2).unwrap();
        assert_eq!(c.max_channel_diff, 2);
        assert_eq!(c.differing_pixels, 0);
        let c = compare(&a, &b, 1).unwrap();
        assert_eq!(c.differing_pixels, 16);
    }

    #[test]
    fn size_mismatch_is_an_error() {
        let a = Image::filled(4, 4, [0; 4]);
        let b = Image::filled(4, 5, [0; 4]);
        assert!(compare(&a, &b, 0).is_err());
    }

    #[test]
    fn bad_buffer_length_is_an_error() {
        let a = Image::filled(4, 4, [0; 4]);
        let b = Image { width: 4, height: 4, rgba: vec![0; 10] };
        assert!(compare(&a, &b, 0).is_err());
        let dir = std::env::temp_dir().join(format!("sinew-bad-{}.png", std::process::id()));
        assert!(b.save_png(&dir).is_err());
    }

    #[test]
    fn png_round_trip() {
        let img = gradient(7, 5);
        let path = std::env::temp_dir().join(format!("sinew-rt-{}.png", std::process::id()));
        img.save_png(&path).unwrap();
        let back = Image::load_png(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(back, img);
    }

    #[test]
    fn rgb_png_loads_with_opaque_alpha() {
        let path = std::env::temp_dir().join(format!("sinew-rgb-{}.png", std::process::id()));
        {
            let file = File::create(&path).unwrap();
            let mut enc = png::Encoder::new(BufWriter::new(file), 2, 1);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().unwrap();
            w.write_image_data(&[1, 2, 3, 4, 5, 6]).unwrap();
        }
        let img = Image::load_png(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(img.rgba, vec![1, 2, 3, 255, 4, 5, 6, 255]);
    }

    #[test]
    fn grayscale_and_16_bit_pngs_are_rejected() {
        let path = std::env::temp_dir().join(format!("sinew-gray-{}.png", std::process::id()));
        {
            let file = File::create(&path).unwrap();
            let mut enc = png::Encoder::new(BufWriter::new(file), 2, 1);
            enc.set_color(png::ColorType::Grayscale);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().unwrap();
            w.write_image_data(&[1, 2]).unwrap();
        }
        assert!(Image::load_png(&path).is_err());
        {
            let file = File::create(&path).unwrap();
            let mut enc = png::Encoder::new(BufWriter::new(file), 1, 1);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Sixteen);
            let mut w = enc.write_header().unwrap();
            w.write_image_data(&[0; 8]).unwrap();
        }
        assert!(Image::load_png(&path).is_err());
        let _ = std::fs::remove_file(&path);
        assert!(Image::load_png(Path::new("/nonexistent/sinew.png")).is_err());
    }
}
