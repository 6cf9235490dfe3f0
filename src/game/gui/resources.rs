//! A gui's fonts, textures and materials changed by a script (`go.set(gui, "fonts" |
//! "textures" | "materials", v, { key = name })`, Defold's resource properties of a gui
//! component): the instance gets its own copy of the scene with the named entry replaced (a
//! material: its own table). A hot reload of the `.gui` brings the file's entries back.
use super::GuiInstance;
use crate::project::font::file::Font;
use crate::project::gui::GuiImage;
use std::sync::Arc;

impl GuiInstance {
    /// The file the scene's font `name` was read from.
    pub fn font_file(&self, name: &str) -> Option<&str> {
        let k = self.scene.fonts.iter().position(|(n, _)| n == name)?;
        self.scene.font_files.get(k).map(String::as_str)
    }

    /// The file the scene's texture `name` was read from.
    pub fn texture_file(&self, name: &str) -> Option<&str> {
        self.scene.images.iter().find(|i| i.name == name).map(|i| i.path.as_str())
    }

    /// The file the scene's material `name` is now.
    pub fn material_file(&self, name: &str) -> Option<&str> {
        let k = self.scene.materials.iter().position(|(n, _)| n == name)?;
        self.materials.get(k).map(|(path, _)| path.as_str())
    }

    /// Nodes of material `name` draw with `path` from now on, compiled as `index` in the
    /// models' material registry (`None`: the built-in drawing).
    pub fn set_material(&mut self, name: &str, path: &str, index: Option<u32>) -> Result<(), String> {
        let k = self.scene.materials.iter().position(|(n, _)| n == name);
        let Some(slot) = k.and_then(|k| self.materials.get_mut(k)) else {
            return Err(format!("the gui has no material '{name}'"));
        };
        *slot = (path.to_string(), index);
        Ok(())
    }

    /// Text nodes of font `name` are drawn with `font` (read from `file`) from now on.
    pub fn set_font(&mut self, name: &str, font: Font, file: &str) -> Result<(), String> {
        let Some(k) = self.scene.fonts.iter().position(|(n, _)| n == name) else {
            return Err(format!("the gui has no font '{name}'"));
        };
        let scene = Arc::make_mut(&mut self.scene);
        scene.fonts[k].1 = font;
        if let Some(f) = scene.font_files.get_mut(k) {
            *f = file.to_string();
        }
        Ok(())
    }

    /// Nodes of texture `name` show `image` from now on (a name the scene lacks is added): a
    /// node's flipbook (or single image)
    /// plays on from its start when the new atlas has one of the same id, else the node shows
    /// the whole texture with no animation, as after `gui.set_texture` to it.
    pub fn set_texture(&mut self, name: &str, mut image: GuiImage) -> Result<(), String> {
        image.name = name.to_string();
        let Some(k) = self.scene.images.iter().position(|i| i.name == name) else {
            // A name the scene lacks: a texture of that name from now on (Defold adds it).
            Arc::make_mut(&mut self.scene).images.push(image);
            return Ok(());
        };
        let old = self.scene.images[k].atlas.clone();
        let new = image.atlas.clone();
        Arc::make_mut(&mut self.scene).images[k] = image;
        for i in 0..self.nodes.len() {
            if self.nodes[i].texture != Some(k) {
                continue;
            }
            let id =
                self.nodes[i].animation.and_then(|a| old.as_ref()?.animations.get(a as usize)).map(|b| b.id.clone());
            let found = id.and_then(|id| new.as_ref()?.animations.iter().position(|b| b.id == id));
            self.flipbooks.retain(|f| f.node != i);
            self.nodes[i].animation = found.map(|a| a as u32);
            self.nodes[i].frame = 0;
            if found.is_some() {
                self.start(i, 0.0, 1.0, None);
            }
        }
        Ok(())
    }
}
