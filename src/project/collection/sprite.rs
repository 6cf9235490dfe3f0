//! A `sprite` component from its fields: the atlas or tile source loaded once per collection
//! load (many sprites share one), the default animation found in it, enums and sizes checked
//! where they were written.
use super::*;
use crate::project::sprite::{
    self, Billboard, BlendMode, DEFAULT_SPRITE_MATERIAL, MAX_SPRITE_ATTRIBUTES, MAX_SPRITE_SIZE, MAX_SPRITE_TEXTURES,
    SizeMode,
};
use std::sync::Arc;

impl Loader<'_> {
    /// The atlas or tile source at `source` (relative to `file`), loaded once per collection
    /// load, and its normalised path.
    fn sprite_atlas(
        &mut self,
        source: &Located<String>,
        file: &str,
        id: &str,
    ) -> Result<(String, Arc<sprite::Atlas>), LoadError> {
        let norm = json::resource_path(source, file)?;
        if let Some(a) = self.atlases.get(&norm) {
            return Ok((norm, a.clone()));
        }
        if !self.res.exists(&norm) {
            return Err(source.error(file, format!("sprite '{id}': no such atlas '{norm}'")));
        }
        let a = Arc::new(sprite::load_atlas(self.res, &norm)?);
        self.atlases.insert(norm.clone(), a.clone());
        Ok((norm, a))
    }

    pub(super) fn sprite(&mut self, c: &ComponentDesc, file: &str) -> Result<sprite::SpriteSpec, LoadError> {
        let id = &c.id.value.0;
        // An error at `$at` (anything `Located`), prefixed with the sprite it is about.
        macro_rules! bad {
            ($at:expr, $m:expr) => {
                $at.error(file, format!("sprite '{id}': {}", $m))
            };
        }
        // The first texture gives the frames and animations; the others only their pixels.
        let (source, more) = match (&c.tile_set, &c.textures) {
            (Some(t), None) => (t, &[][..]),
            (None, Some(map)) if !map.0.is_empty() => (&map.0[0].1, &map.0[1..]),
            (Some(_), Some(_)) => {
                return Err(bad!(c.id, "give either 'tile_set' or 'textures', not both"));
            }
            _ => {
                let msg = "needs 'tile_set' (an .atlas or .tilesource), or 'textures' naming one".to_string();
                return Err(bad!(c.id, msg));
            }
        };
        let (norm, atlas) = self.sprite_atlas(source, file, id)?;
        if more.len() > MAX_SPRITE_TEXTURES {
            let msg = format!("at most {} textures", MAX_SPRITE_TEXTURES + 1);
            return Err(bad!(c.id, msg));
        }
        let mut textures = Vec::with_capacity(more.len());
        for (sampler, path) in more {
            textures.push((crate::base::hash::hash_remembered(sampler), self.sprite_atlas(path, file, id)?.1));
        }
        let default_animation = match &c.default_animation {
            Some(name) => match atlas.animations.iter().position(|a| a.id == name.value) {
                Some(i) => i as u32,
                None => {
                    let ids: Vec<&str> = atlas.animations.iter().map(|a| a.id.as_str()).collect();
                    let msg = format!("no animation '{}' in '{norm}' (it has {})", name.value, ids.join(", "));
                    return Err(bad!(name, msg));
                }
            },
            None if atlas.animations.is_empty() => {
                return Err(bad!(source, format!("'{norm}' has no images or animations")));
            }
            None => 0,
        };
        let blend_mode = match &c.blend_mode {
            Some(b) => BlendMode::parse(&b.value)
                .ok_or_else(|| bad!(b, format!("unknown blend_mode '{}' (expected {})", b.value, BlendMode::NAMES)))?,
            None => BlendMode::Alpha,
        };
        let size_mode = match &c.size_mode {
            Some(s) => SizeMode::parse(&s.value)
                .ok_or_else(|| bad!(s, format!("unknown size_mode '{}' (expected auto or manual)", s.value)))?,
            None if c.size.is_some() => SizeMode::Manual,
            None => SizeMode::Auto,
        };
        let size = match &c.size {
            Some(v) => {
                let n: Option<Vec<f32>> =
                    v.value.as_array().map(|a| a.iter().filter_map(|x| x.as_f64()).map(|x| x as f32).collect());
                match n.as_deref() {
                    Some([w, h] | [w, h, _] | [w, h, _, _])
                        if [w, h].iter().all(|x| x.is_finite() && **x >= 0.0 && **x <= MAX_SPRITE_SIZE) =>
                    {
                        [*w, *h]
                    }
                    _ => {
                        let msg =
                            format!("'size' must be [width, height] (or 3 or 4 numbers), each 0 to {MAX_SPRITE_SIZE}");
                        return Err(bad!(v, msg));
                    }
                }
            }
            None => [0.0; 2],
        };
        let billboard = match &c.billboard {
            None => Billboard::Off,
            Some(b) => match &b.value {
                Value::Bool(false) => Billboard::Off,
                Value::Bool(true) => Billboard::Face,
                Value::String(s) if s == "upright" => Billboard::Upright,
                _ => {
                    let msg = "'billboard' must be true, false or \"upright\"".to_string();
                    return Err(bad!(b, msg));
                }
            },
        };
        let slice9 = match &c.slice9 {
            None => [0.0; 4],
            Some(v) => {
                let n: Option<Vec<f32>> =
                    v.value.as_array().map(|a| a.iter().filter_map(|x| x.as_f64()).map(|x| x as f32).collect());
                match n.as_deref() {
                    Some(&[l, t, r, b])
                        if [l, t, r, b].iter().all(|x| x.is_finite() && (0.0..=MAX_SPRITE_SIZE).contains(x)) =>
                    {
                        [l, t, r, b]
                    }
                    _ => {
                        let msg = "'slice9' must be [left, top, right, bottom] in pixels, each 0 or more".to_string();
                        return Err(bad!(v, msg));
                    }
                }
            }
        };
        let mut attributes = Vec::new();
        if let Some(a) = &c.attributes {
            let msg = format!(
                "'attributes' must be {{ \"name\": [1 to 4 numbers], ... }}, at most {MAX_SPRITE_ATTRIBUTES} of them"
            );
            let map =
                a.value.as_object().filter(|m| m.len() <= MAX_SPRITE_ATTRIBUTES).ok_or_else(|| bad!(a, msg.clone()))?;
            for (name, v) in map {
                let n: Option<Vec<f32>> = v
                    .as_array()
                    .filter(|l| (1..=4).contains(&l.len()))
                    .and_then(|l| l.iter().map(|x| x.as_f64().filter(|x| x.is_finite()).map(|x| x as f32)).collect());
                let Some(n) = n else { return Err(bad!(a, format!("attribute '{name}': {msg}"))) };
                let mut value = [0.0; 4];
                value[..n.len()].copy_from_slice(&n);
                attributes.push((crate::base::hash::hash_remembered(name), value));
            }
        }
        let material = match &c.material {
            Some(p) => json::resource_path(p, file)?,
            None => DEFAULT_SPRITE_MATERIAL.to_string(),
        };
        Ok(sprite::SpriteSpec {
            atlas,
            textures,
            attributes,
            default_animation,
            material,
            blend_mode,
            size_mode,
            size,
            billboard,
            transform: component_transform(c, file)?,
            slice9,
        })
    }
}

/// A component kind whose own file names atlases or tile sources (a particle effect, a tile
/// map): read once per load, its atlases loaded as sprites' are.
struct AtlasFile<T: 'static> {
    kind: &'static str,
    field: fn(&ComponentDesc) -> &Option<Located<String>>,
    cache: for<'a, 'b> fn(&'a mut Loader<'b>) -> &'a mut HashMap<String, Arc<T>>,
    parse: fn(&str, &str, &mut crate::project::particlefx::AtlasLoader) -> Result<T, Vec<LoadError>>,
}

const PARTICLEFX: AtlasFile<crate::project::particlefx::ParticleFxSpec> = AtlasFile {
    kind: "particlefx",
    field: |c| &c.particlefx,
    cache: |l| &mut l.effects,
    parse: crate::project::particlefx::parse,
};

const TILEMAP: AtlasFile<crate::project::tilemap::TileMapSpec> =
    AtlasFile { kind: "tilemap", field: |c| &c.tilemap, cache: |l| &mut l.maps, parse: crate::project::tilemap::parse };

impl Loader<'_> {
    pub(super) fn particlefx(
        &mut self,
        c: &ComponentDesc,
        file: &str,
    ) -> Result<Arc<crate::project::particlefx::ParticleFxSpec>, LoadError> {
        self.atlas_file(c, file, &PARTICLEFX)
    }

    pub(super) fn tilemap(
        &mut self,
        c: &ComponentDesc,
        file: &str,
    ) -> Result<Arc<crate::project::tilemap::TileMapSpec>, LoadError> {
        self.atlas_file(c, file, &TILEMAP)
    }

    fn atlas_file<T>(&mut self, c: &ComponentDesc, file: &str, k: &AtlasFile<T>) -> Result<Arc<T>, LoadError> {
        let (id, kind) = (&c.id.value.0, k.kind);
        let Some(source) = (k.field)(c) else {
            return Err(c.id.error(file, format!("{kind} component '{id}' needs `{kind}` (a .{kind} file)")));
        };
        let norm = json::resource_path(source, file)?;
        if let Some(v) = (k.cache)(self).get(&norm) {
            return Ok(v.clone());
        }
        if !self.res.exists(&norm) {
            return Err(source.error(file, format!("{kind} '{id}': no such file '{norm}'")));
        }
        let text = self.res.read_string(&norm, Some(file))?;
        let mut atlas = |path: &str, at: &crate::project::defold::text::Field| {
            let located = Located { value: path.to_string(), at: Some(at.value_at.clone()) };
            self.sprite_atlas(&located, &norm, id).map(|(_, a)| a)
        };
        let value = match (k.parse)(&norm, &text, &mut atlas) {
            Ok(v) => Arc::new(v),
            Err(mut errors) => {
                // Every problem is reported; the first is this component's error.
                let first = errors.remove(0);
                self.problems.extend(errors);
                return Err(first);
            }
        };
        (k.cache)(self).insert(norm, value.clone());
        Ok(value)
    }
}
