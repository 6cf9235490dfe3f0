//! Label components: text drawn at a game object's position, facing the camera. Game state only;
//! the app copies live labels into the renderer's draw list each frame.
use crate::base::error::LoadError;
use crate::base::hash::{Hash, hash_remembered};
use crate::project::font::file::load_font;
use crate::project::{LabelFont, LabelLayout, LabelSpec, Resources};
use std::sync::Arc;

/// The longest label text kept, in bytes (`label.set_text` refuses longer ones): beyond this a
/// label is a screenful of glyphs, and the draw list would grow by megabytes per frame.
pub const MAX_LABEL_TEXT: usize = 16 * 1024;

pub struct LabelInstance {
    pub slot: u32,
    pub id: Hash,
    pub text: String,
    /// Line height in screen pixels at scale 1.
    pub size: f32,
    pub color: [f32; 4],
    pub outline: [f32; 4],
    /// The `scale` property (Defold's label scale): x widens, y heightens the text.
    pub scale: [f32; 3],
    /// The pivot as fractions of the text block from its left and bottom edges.
    pub anchor: [f32; 2],
    /// `msg.post("#label", "disable")` hides it.
    pub enabled: bool,
    pub alive: bool,
    /// The component's offset in its game object.
    pub position: [f32; 3],
    pub shadow: [f32; 4],
    pub layout: LabelLayout,
}

/// Which property of a label `get`/`set` address (the Lua side names them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelProperty {
    Color,
    Outline,
    Scale,
}

#[derive(Default)]
pub struct LabelWorld {
    pub instances: Vec<LabelInstance>,
    /// Deleted instances, reused so factories that spawn and delete labels do not grow the list.
    free: Vec<u32>,
}

impl LabelWorld {
    pub fn create(&mut self, slot: u32, id: &str, spec: &LabelSpec) -> u32 {
        let mut text = spec.text.clone();
        truncate(&mut text);
        let l = LabelInstance {
            slot,
            id: hash_remembered(id),
            text,
            size: spec.size,
            color: spec.color,
            outline: spec.outline,
            scale: spec.scale,
            anchor: spec.pivot.anchor(),
            enabled: true,
            alive: true,
            position: spec.position,
            shadow: spec.shadow,
            layout: spec.layout.clone(),
        };
        if let Some(i) = self.free.pop() {
            self.instances[i as usize] = l;
            return i;
        }
        self.instances.push(l);
        (self.instances.len() - 1) as u32
    }

    /// Forgets a label of a deleted game object (its object's component list names it).
    pub fn remove(&mut self, i: u32) {
        if let Some(l) = self.get_mut(i) {
            l.alive = false;
            l.text = String::new();
            self.free.push(i);
        }
    }

    pub fn get(&self, i: u32) -> Option<&LabelInstance> {
        self.instances.get(i as usize).filter(|l| l.alive)
    }

    pub fn get_mut(&mut self, i: u32) -> Option<&mut LabelInstance> {
        self.instances.get_mut(i as usize).filter(|l| l.alive)
    }

    /// A vector property as 4 floats (`scale` has w = 0).
    pub fn property(&self, i: u32, p: LabelProperty) -> Option<[f32; 4]> {
        let l = self.get(i)?;
        Some(match p {
            LabelProperty::Color => l.color,
            LabelProperty::Outline => l.outline,
            LabelProperty::Scale => [l.scale[0], l.scale[1], l.scale[2], 0.0],
        })
    }

    /// Sets a vector property; false when there is no such label.
    pub fn set_property(&mut self, i: u32, p: LabelProperty, v: [f32; 4]) -> bool {
        let Some(l) = self.get_mut(i) else { return false };
        match p {
            LabelProperty::Color => l.color = v,
            LabelProperty::Outline => l.outline = v,
            LabelProperty::Scale => l.scale = [v[0], v[1], v[2]],
        }
        true
    }

    /// A saved `.font` or face file: every label drawn with it takes the new version (text,
    /// colours and scale kept); a broken save keeps the previous one. One result per font
    /// file read again.
    pub fn reload_fonts(&mut self, res: &Resources, saved: &str) -> Vec<(String, Result<(), LoadError>)> {
        let uses = |f: &LabelFont| f.path == saved || f.font.face.path() == saved;
        let mut fonts: Vec<LabelFont> = self
            .instances
            .iter()
            .filter(|l| l.alive)
            .filter_map(|l| l.layout.font.clone())
            .filter(|f| uses(f))
            .collect();
        fonts.sort_by(|a, b| a.path.cmp(&b.path));
        fonts.dedup_by(|a, b| a.path == b.path);
        let mut out = Vec::new();
        for old in fonts {
            let at = crate::project::json::Located { value: old.path.clone(), at: None };
            match load_font(res, &at, &old.path, old.font.size) {
                Ok(font) => {
                    let new = LabelFont { path: old.path.clone(), font: Arc::new(font) };
                    for l in self.instances.iter_mut().filter(|l| l.alive) {
                        if l.layout.font.as_ref().is_some_and(|f| f.path == old.path) {
                            l.layout.font = Some(new.clone());
                        }
                    }
                    out.push((old.path, Ok(())));
                }
                Err(e) => out.push((old.path, Err(e))),
            }
        }
        out
    }

    /// `set_text`: the text the label shows from now on (cut at [`MAX_LABEL_TEXT`] bytes).
    pub fn set_text(&mut self, i: u32, text: &str) -> bool {
        let Some(l) = self.get_mut(i) else { return false };
        l.text.clear();
        l.text.push_str(text);
        truncate(&mut l.text);
        true
    }
}

/// Cuts `text` to [`MAX_LABEL_TEXT`] bytes at a character boundary.
fn truncate(text: &mut String) {
    if text.len() > MAX_LABEL_TEXT {
        let mut end = MAX_LABEL_TEXT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::{LabelSpec, Pivot};

    fn spec() -> LabelSpec {
        LabelSpec {
            text: "hi".into(),
            size: 16.0,
            color: [1.0; 4],
            outline: [0.0; 4],
            pivot: Pivot::NE,
            position: [0.0; 3],
            ..LabelSpec::default()
        }
    }

    #[test]
    fn labels_are_created_removed_and_their_slots_reused() {
        let mut w = LabelWorld::default();
        let a = w.create(3, "label", &spec());
        let b = w.create(4, "label", &spec());
        assert_eq!(w.get(a).map(|l| (l.text.as_str(), l.anchor)), Some(("hi", [1.0, 1.0])));
        w.remove(a);
        w.remove(a);
        assert!(w.get(a).is_none() && w.get(b).is_some());
        assert!(!w.set_text(a, "x") && w.property(a, LabelProperty::Color).is_none());
        let c = w.create(5, "label", &spec());
        assert_eq!(c, a, "a freed instance is reused");
        assert_eq!(w.instances.len(), 2, "removing twice freed it once");
        assert!(w.free.is_empty());
    }

    #[test]
    fn properties_and_text_are_set() {
        let mut w = LabelWorld::default();
        let a = w.create(0, "label", &spec());
        assert!(w.set_property(a, LabelProperty::Scale, [2.0, 3.0, 1.0, 9.0]));
        assert_eq!(w.property(a, LabelProperty::Scale), Some([2.0, 3.0, 1.0, 0.0]));
        assert!(w.set_property(a, LabelProperty::Color, [0.5; 4]));
        assert_eq!(w.get(a).map(|l| l.color), Some([0.5; 4]));
        let long = "é".repeat(MAX_LABEL_TEXT);
        assert!(w.set_text(a, &long));
        let t = &w.get(a).map(|l| l.text.clone()).unwrap_or_default();
        assert!(t.len() <= MAX_LABEL_TEXT && t.len() >= MAX_LABEL_TEXT - 1 && t.chars().all(|c| c == 'é'));
    }

    #[test]
    fn a_saved_font_reaches_its_labels_and_a_broken_one_is_refused() {
        let res = |size: &str| {
            let font = format!(r#"{{ "font": "/builtins/fonts/DejaVuSans.ttf", "size": {size} }}"#);
            Resources::demo().with_overlay(vec![("/ui.font".into(), font.into_bytes())])
        };
        let at = crate::project::json::Located { value: "/ui.font".to_string(), at: None };
        let loaded = load_font(&res("20"), &at, "/ui.font", 16.0).expect("font");
        let font = LabelFont { path: "/ui.font".into(), font: Arc::new(loaded) };
        let mut w = LabelWorld::default();
        let a = w.create(
            1,
            "label",
            &LabelSpec { layout: LabelLayout { font: Some(font), ..LabelLayout::default() }, ..spec() },
        );
        let plain = w.create(2, "label", &spec());
        w.set_text(a, "kept");
        let size = |w: &LabelWorld| w.get(a).and_then(|l| l.layout.font.as_ref()).map(|f| f.font.size);
        assert!(w.reload_fonts(&res("30"), "/other.font").is_empty(), "no label uses it");
        let r = w.reload_fonts(&res("30"), "/ui.font");
        assert!(matches!(&r[..], [(p, Ok(()))] if p == "/ui.font"), "{r:?}");
        assert_eq!(size(&w), Some(30.0));
        assert_eq!(w.get(a).map(|l| l.text.as_str()), Some("kept"), "what the script set stays");
        assert!(w.get(plain).is_some_and(|l| l.layout.font.is_none()));
        // Saving the face reloads the fonts drawn with it too.
        assert_eq!(w.reload_fonts(&res("24"), "/builtins/fonts/DejaVuSans.ttf").len(), 1);
        assert_eq!(size(&w), Some(24.0));
        let r = w.reload_fonts(&res("-1"), "/ui.font");
        assert!(matches!(&r[..], [(_, Err(_))]), "{r:?}");
        assert_eq!(size(&w), Some(24.0), "a broken save keeps the previous font");
    }
}
