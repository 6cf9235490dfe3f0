//! Layouts of texts laid out in earlier frames. A GUI's texts mostly stay the same from one frame
//! to the next, and laying one out again (a glyph lookup, an advance and a kerning pair per
//! character, and the layout's vectors) was about a tenth of `cargo bench --bench gui`'s frame,
//! 1,000 text nodes among 5,000. The layout depends on the face, the style and the text alone,
//! so those are the key: a text, a style or a face that changes (a hot-reloaded font is a new
//! face with a new id) is simply another entry. With it the bench's frame went from 0.84-0.92 ms
//! to 0.70-0.76 (2-core Intel Xeon, 2026-12-06, five rounds interleaved with the build before).
use super::{Face, TextLayout, TextStyle};
use crate::base::hash::{Hash, IdBuild, hash_str};
use std::collections::HashMap;

/// Entries kept at most: a cache this full is emptied before it takes another (texts that
/// change every frame, a timer's, make new entries that are never asked for again).
pub const MAX_ENTRIES: usize = 4096;
/// Glyphs kept at most over all entries, likewise: a few thousand long texts (up to
/// `MAX_LAYOUT_CHARS` each) must not hold gigabytes.
pub const MAX_GLYPHS: usize = 1 << 18;

/// The face's id, the style's fields as bits (`wrap` as a flag and a width) and the text's hash;
/// the text itself is kept with the layout and compared on every hit, so two texts with one hash
/// cannot be mistaken for each other.
type Key = (u32, [u32; 6], Hash);

#[derive(Default)]
pub struct LayoutCache {
    entries: HashMap<Key, (String, TextLayout), IdBuild>,
    /// Glyphs of every entry's layout, as made (a replaced entry's stay counted until the cache
    /// is emptied: an over-count only empties it sooner).
    glyphs: usize,
}

impl LayoutCache {
    /// `face.layout(text, style)`, from an earlier call when one had the same face, style and
    /// text.
    pub fn layout(&mut self, face: &Face, text: &str, style: &TextStyle) -> &TextLayout {
        let key = (face.id(), style_bits(style), hash_str(text));
        let hit = self.entries.get(&key).is_some_and(|(t, _)| t == text);
        let fresh = (!hit).then(|| {
            let layout = face.layout(text, style);
            if self.entries.len() >= MAX_ENTRIES || self.glyphs + layout.glyphs.len() > MAX_GLYPHS {
                self.entries.clear();
                self.glyphs = 0;
            }
            self.glyphs += layout.glyphs.len();
            (text.to_owned(), layout)
        });
        let slot = self.entries.entry(key).or_default();
        if let Some(f) = fresh {
            *slot = f;
        }
        &slot.1
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

fn style_bits(s: &TextStyle) -> [u32; 6] {
    let (wraps, width) = s.wrap.map_or((0, 0), |w| (1, w.to_bits()));
    [s.size.to_bits(), wraps, width, s.leading.to_bits(), s.tracking.to_bits(), s.align.to_bits()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cached_layout_is_the_fresh_one_for_its_face_style_and_text() {
        let face = Face::default_face();
        let mut cache = LayoutCache::default();
        let style = TextStyle::sized(16.0);
        let wrapped = TextStyle { wrap: Some(40.0), ..style };
        for (text, style) in [("Score 10", style), ("Score 10", wrapped), ("Score 11", style), ("", style)] {
            let fresh = face.layout(text, &style);
            assert_eq!(cache.layout(&face, text, &style), &fresh, "{text:?}");
            assert_eq!(cache.layout(&face, text, &style), &fresh, "{text:?} again");
        }
        // Wrapping at 40 px breaks "Score 10" in two lines; no wrap keeps one: separate entries.
        let two = cache.layout(&face, "Score 10", &wrapped).lines;
        assert_eq!((two, cache.layout(&face, "Score 10", &style).lines), (2, 1));
        assert_eq!(cache.len(), 4);
        // Another face (same file, another id) is another entry.
        let bytes = crate::project::resources::builtin(super::super::DEFAULT_FACE_PATH).unwrap_or_default();
        let other = Face::parse("/other.ttf", bytes).expect("the built-in face parses");
        assert_eq!(cache.layout(&other, "Score 10", &style), &face.layout("Score 10", &style));
        assert_eq!(cache.len(), 5);
    }

    #[test]
    fn a_full_cache_starts_again_and_still_answers() {
        let face = Face::default_face();
        let mut cache = LayoutCache::default();
        let style = TextStyle::sized(12.0);
        for i in 0..MAX_ENTRIES + 10 {
            let text = format!("{i}");
            assert_eq!(cache.layout(&face, &text, &style), &face.layout(&text, &style));
        }
        assert!(cache.len() <= MAX_ENTRIES && !cache.is_empty(), "{}", cache.len());
        // Long texts: the glyphs held stay bounded too.
        let mut cache = LayoutCache::default();
        for i in 0..400 {
            let text = format!("{i} {}", "x".repeat(1000));
            assert_eq!(cache.layout(&face, &text, &style).glyphs.len(), face.layout(&text, &style).glyphs.len());
            assert!(cache.glyphs <= MAX_GLYPHS, "{} glyphs held", cache.glyphs);
        }
        assert!(cache.len() < 400, "{}", cache.len());
    }
}
