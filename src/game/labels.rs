//! Label components: text drawn at a game object's position, facing the camera. Game state only;
//! the app copies live labels into the renderer's draw list each frame.
use crate::base::hash::{Hash, hash_remembered};
use crate::project::LabelSpec;

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
            scale: [1.0; 3],
            anchor: spec.pivot.anchor(),
            enabled: true,
            alive: true,
            position: spec.position,
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
}
