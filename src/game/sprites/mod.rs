//! Sprite components: which flipbook each shows and how far it is, tint, size, flips. Game
//! state only; the per-frame pass ([`SpriteWorld::animate`]) walks a slice and allocates
//! nothing, and the draw list is made from this by the app.
pub mod flipbook;
pub mod quads;

use crate::base::hash::{Hash, hash_remembered};
use crate::project::sprite::{Atlas, Billboard, BlendMode, SizeMode, SpriteSpec};
use flipbook::Clock;
use std::sync::Arc;

/// Who hears that a once-flipbook ended: the script that played it, and its callback (0: an
/// `animation_done` message instead).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpriteListener {
    pub script: u32,
    pub url: crate::scene::Url,
    pub callback: u32,
}

pub struct SpriteInstance {
    pub slot: u32,
    pub id: Hash,
    pub atlas: Arc<Atlas>,
    /// Index of `atlas` in [`SpriteWorld::atlases`].
    pub atlas_index: u32,
    /// The spec's further textures: a custom material's sampler (name hash) and the index of
    /// the atlas bound to it in [`SpriteWorld::atlases`].
    pub textures: Vec<(Hash, u32)>,
    /// Index into the atlas's animations.
    pub animation: u32,
    /// Hash of that animation's id (the `animation` property, `animation_done`'s `id`).
    pub animation_hash: Hash,
    pub clock: Clock,
    /// Index into the atlas's frames shown now.
    pub frame: u32,
    pub tint: [f32; 4],
    pub scale: [f32; 3],
    /// Manual size (the `size` property sets it and switches to manual mode, as in Defold).
    pub size: [f32; 2],
    pub size_mode: SizeMode,
    /// `sprite.set_hflip/set_vflip`, applied over the flipbook's own flips.
    pub hflip: bool,
    pub vflip: bool,
    pub blend_mode: BlendMode,
    pub material: Hash,
    /// The custom material's index in `ModelWorld::materials` (shared with models, so its
    /// shaders compile and hot-reload once); None draws with the built-in sprite program.
    pub material_index: Option<u32>,
    /// Material constants a script set on this sprite (`go.set(url, "name", v)`), over the
    /// material's defaults; `tint` is kept in `tint`.
    pub constants: Vec<(Hash, [f32; 4])>,
    /// Nine-slice borders in pixels: left, top, right, bottom (manual size mode only).
    pub slice9: [f32; 4],
    pub billboard: Billboard,
    pub transform: crate::project::ComponentTransform,
    pub listener: Option<SpriteListener>,
    pub enabled: bool,
    pub alive: bool,
}

impl SpriteInstance {
    /// Width and height drawn at scale 1: the frame's pixels in auto mode.
    pub fn size(&self) -> [f32; 2] {
        match self.size_mode {
            SizeMode::Manual => self.size,
            SizeMode::Auto => match self.atlas.frames.get(self.frame as usize) {
                Some(f) => [f.width as f32, f.height as f32],
                None => [0.0; 2],
            },
        }
    }

    /// Whether the frame is drawn mirrored (the flipbook's flip and the script's, combined).
    pub fn flips(&self) -> (bool, bool) {
        let f = self.atlas.animations.get(self.animation as usize);
        (self.hflip ^ f.is_some_and(|f| f.flip_horizontal), self.vflip ^ f.is_some_and(|f| f.flip_vertical))
    }
}

/// A once-flipbook that ended this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Done {
    pub sprite: u32,
    pub listener: SpriteListener,
    pub animation: Hash,
    /// 1-based, as Defold's `current_tile`.
    pub current_tile: u32,
}

#[derive(Default)]
pub struct SpriteWorld {
    pub instances: Vec<SpriteInstance>,
    free: Vec<u32>,
    /// Flipbooks ended in the last [`SpriteWorld::animate`] (kept to reuse its allocation).
    pub done: Vec<Done>,
    /// Every atlas a sprite has used, so the renderer uploads each page once.
    pub atlases: Vec<Arc<Atlas>>,
}

impl SpriteWorld {
    /// A sprite of `spec` on `slot`; `material_index` is its custom material in
    /// `ModelWorld::materials` (None: the built-in program).
    pub fn create(&mut self, slot: u32, id: &str, spec: &SpriteSpec, material_index: Option<u32>) -> u32 {
        let atlas_index = self.atlas_index(&spec.atlas);
        let textures = spec.textures.iter().map(|(sampler, a)| (*sampler, self.atlas_index(a))).collect();
        let mut s = SpriteInstance {
            slot,
            id: hash_remembered(id),
            atlas: spec.atlas.clone(),
            atlas_index,
            textures,
            animation: 0,
            animation_hash: 0,
            clock: Clock { timer: 0.0, inv_duration: 0.0, rate: 1.0, playing: false },
            frame: 0,
            tint: [1.0; 4],
            scale: [1.0; 3],
            size: spec.size,
            size_mode: spec.size_mode,
            hflip: false,
            vflip: false,
            blend_mode: spec.blend_mode,
            material: hash_remembered(&spec.material),
            material_index,
            constants: spec.attributes.clone(),
            slice9: spec.slice9,
            billboard: spec.billboard,
            transform: spec.transform,
            listener: None,
            enabled: true,
            alive: true,
        };
        play_on(&mut s, spec.default_animation, 0.0, 1.0, None);
        if let Some(i) = self.free.pop() {
            self.instances[i as usize] = s;
            return i;
        }
        self.instances.push(s);
        (self.instances.len() - 1) as u32
    }

    pub fn remove(&mut self, i: u32) {
        if let Some(s) = self.get_mut(i) {
            s.alive = false;
            s.listener = None;
            self.free.push(i);
        }
    }

    pub fn get(&self, i: u32) -> Option<&SpriteInstance> {
        self.instances.get(i as usize).filter(|s| s.alive)
    }

    pub fn get_mut(&mut self, i: u32) -> Option<&mut SpriteInstance> {
        self.instances.get_mut(i as usize).filter(|s| s.alive)
    }

    /// `sprite.play_flipbook`: an error names the animations the atlas has.
    pub fn play(
        &mut self,
        i: u32,
        animation: Hash,
        offset: f32,
        rate: f32,
        listener: Option<SpriteListener>,
    ) -> Result<(), String> {
        let s = self.get_mut(i).ok_or("the sprite was deleted")?;
        let k = s.atlas.animation_index(animation)? as usize;
        play_on(s, k as u32, offset, rate, listener);
        Ok(())
    }

    /// One frame of every playing flipbook, each at its world's time (`scale`, as
    /// `TweenWorld::update_scaled` takes it); ended once-flipbooks are left in `self.done`.
    pub fn animate(&mut self, dt: f32, scale: &[f32]) {
        self.done.clear();
        for (i, s) in self.instances.iter_mut().enumerate() {
            if !s.alive || !s.enabled || !s.clock.playing {
                continue;
            }
            let Some(f) = s.atlas.animations.get(s.animation as usize) else { continue };
            let ended = s.clock.advance(f, crate::anim::tween::scaled_dt(scale, s.slot, dt));
            let k = s.clock.frame(f);
            s.frame = f.frames.get(k as usize).copied().unwrap_or(0);
            if ended && let Some(listener) = s.listener.take() {
                self.done.push(Done { sprite: i as u32, listener, animation: s.animation_hash, current_tile: k + 1 });
            }
        }
    }

    /// The `image` property: the sprite draws from atlas `atlas` (one a sprite has used, so its
    /// page is uploaded once). As Defold's `CompSpriteSetProperty`: a flipbook of the same id
    /// in the new atlas is played again from the same cursor and rate (keeping its listener);
    /// otherwise the sprite stops on the new atlas's first frame with no animation (its
    /// `animation` is hash 0) until a `play_flipbook`.
    pub fn set_image(&mut self, i: u32, atlas: &Arc<Atlas>) -> Result<(), String> {
        let index = self.atlas_index(atlas);
        let s = self.get_mut(i).ok_or("the sprite was deleted")?;
        let old = s.atlas.animations.get(s.animation as usize);
        let cursor = old.map(|f| s.clock.cursor(f)).unwrap_or(0.0);
        let id = old.map(|f| f.id.clone());
        s.atlas = atlas.clone();
        s.atlas_index = index;
        match id.and_then(|id| atlas.animations.iter().position(|a| a.id == id)) {
            Some(k) => {
                let listener = s.listener.take();
                let rate = s.clock.rate;
                play_on(s, k as u32, cursor, rate, listener);
            }
            None => {
                s.animation = u32::MAX;
                s.animation_hash = 0;
                s.clock.playing = false;
                s.frame = 0;
                s.listener = None;
            }
        }
        Ok(())
    }

    /// The `cursor` property.
    pub fn cursor(&self, i: u32) -> Option<f32> {
        let s = self.get(i)?;
        Some(s.clock.cursor(s.atlas.animations.get(s.animation as usize)?))
    }

    pub fn set_cursor(&mut self, i: u32, cursor: f32) -> bool {
        let Some(s) = self.get_mut(i) else { return false };
        let Some(f) = s.atlas.animations.get(s.animation as usize) else { return false };
        s.clock.set_cursor(f, cursor);
        s.frame = f.frames.get(s.clock.frame(f) as usize).copied().unwrap_or(0);
        true
    }
}

fn play_on(s: &mut SpriteInstance, k: u32, offset: f32, rate: f32, listener: Option<SpriteListener>) {
    let Some(f) = s.atlas.animations.get(k as usize) else { return };
    s.animation = k;
    s.animation_hash = hash_remembered(&f.id);
    s.clock = Clock::start(f, offset, rate);
    s.frame = f.frames.get(s.clock.frame(f) as usize).copied().unwrap_or(0);
    s.listener = listener;
}

/// The flipbook phase of a frame: every flipbook advanced, then `animation_done {current_tile,
/// id}` for each once-flipbook that ended, to the `play_flipbook` callback when there was one,
/// else as a message to the script that played it (Defold's `PostMessages`, same update).
pub fn step(world: &std::cell::RefCell<super::World>, hooks: &mut dyn super::ScriptHooks, dt: f32) {
    use crate::scene::message::{MsgValue, encode};
    let mut done = {
        let w = &mut *world.borrow_mut();
        w.sprites.animate(dt, &w.proxies.time_scale);
        if w.sprites.done.is_empty() {
            return;
        }
        std::mem::take(&mut w.sprites.done)
    };
    let id = hash_remembered("animation_done");
    for d in &done {
        let msg = {
            let w = world.borrow();
            let Some(s) = w.sprites.instances.get(d.sprite as usize) else { continue };
            let sender =
                crate::scene::Url { socket: w.socket_of(s.slot), path: w.scene.ids[s.slot as usize], fragment: s.id };
            let table = MsgValue::Table(vec![
                (MsgValue::String("current_tile".into()), MsgValue::Number(f64::from(d.current_tile))),
                (MsgValue::String("id".into()), MsgValue::Hash(d.animation)),
            ]);
            let mut data = Vec::new();
            encode(&table, &mut data);
            crate::scene::Message::new(sender, d.listener.url, id, data)
        };
        if d.listener.callback != 0 {
            hooks.model_done(d.listener.script, d.listener.callback, &msg);
        } else if world.borrow_mut().messages.post(msg).is_err() {
            log::warn!("animation_done dropped: the frame's message budget is spent");
        }
    }
    // Handed back so the next frame reuses the allocation.
    done.clear();
    world.borrow_mut().sprites.done = done;
}

/// Messages a sprite understands (Defold's `play_animation {id, offset, playback_rate}`, which
/// `sprite.play_flipbook` posts with the id of its callback, and `set_flip_horizontal/vertical
/// {flip}` of `sprite.set_hflip/set_vflip`); false for others (`enable`, `disable` are common).
pub fn message(w: &mut super::World, sprite: u32, m: &crate::scene::Message) -> bool {
    use crate::scene::ComponentRef;
    use crate::scene::message::{MsgValue, decode};
    if !is_message(m.id) {
        return false;
    }
    let (play, hflip, _) = message_ids();
    let data = match decode(&m.data) {
        Ok(d) => d,
        Err(e) => {
            log::error!("{}: {e}", crate::base::hash::name_of(m.id));
            return true;
        }
    };
    let num = |k: &str, default: f64| match data.get(k) {
        Some(MsgValue::Number(n)) => *n,
        Some(MsgValue::Bool(b)) => f64::from(u8::from(*b)),
        _ => default,
    };
    if m.id != play {
        let on = num("flip", 0.0) != 0.0;
        if let Some(s) = w.sprites.get_mut(sprite) {
            if m.id == hflip { s.hflip = on } else { s.vflip = on }
        }
        return true;
    }
    let script = w
        .find_url(m.sender.socket, m.sender.path)
        .and_then(|s| w.scene.component(s, m.sender.fragment))
        .and_then(|c| match c.kind {
            ComponentRef::Script(i) => Some(i),
            _ => None,
        });
    let listener = script.map(|script| SpriteListener { script, url: m.sender, callback: num("callback", 0.0) as u32 });
    let id = match data.get("id") {
        Some(MsgValue::Hash(h)) => *h,
        Some(MsgValue::String(s)) => crate::base::hash::hash_transient(s),
        _ => 0,
    };
    let (offset, rate) = (num("offset", 0.0) as f32, num("playback_rate", 1.0) as f32);
    if let Err(e) = w.sprites.play(sprite, id, offset, rate, listener) {
        log::warn!("'{}': {e}", crate::base::hash::name_of(m.receiver.fragment));
    }
    true
}

/// Whether a sprite acts on message `id` (dispatch runs the scripts' earlier messages first when
/// it does).
pub fn is_message(id: Hash) -> bool {
    let (play, hflip, vflip) = message_ids();
    id == play || id == hflip || id == vflip
}

fn message_ids() -> (Hash, Hash, Hash) {
    static IDS: std::sync::OnceLock<(Hash, Hash, Hash)> = std::sync::OnceLock::new();
    *IDS.get_or_init(|| {
        (
            hash_remembered("play_animation"),
            hash_remembered("set_flip_horizontal"),
            hash_remembered("set_flip_vertical"),
        )
    })
}

impl SpriteWorld {
    /// Adds the `play_flipbook` callback ids a live sprite may still call (unsorted), so the
    /// once-a-frame sweep of callbacks keeps them.
    pub fn extend_live_callbacks(&self, out: &mut Vec<u32>) {
        out.extend(
            self.instances
                .iter()
                .filter(|s| s.alive)
                .filter_map(|s| s.listener)
                .map(|l| l.callback)
                .filter(|&c| c != 0),
        );
    }
}

impl SpriteWorld {
    /// Hot reload: every atlas that is `path` or uses the image `path` is loaded again and
    /// swapped in for its sprites (the renderer uploads the new page when it sees the new
    /// atlas). A sprite keeps its flipbook by id, else shows the atlas's first one. Returns the
    /// atlases tried; on an error the previous version stays.
    pub fn reload_atlases(
        &mut self,
        res: &crate::project::Resources,
        path: &str,
    ) -> Vec<(String, Result<(), crate::base::error::LoadError>)> {
        let mut out = Vec::new();
        for i in 0..self.atlases.len() {
            let old = self.atlases[i].clone();
            if old.source != path && !old.images.iter().any(|p| p == path) {
                continue;
            }
            let new = match crate::project::sprite::load_atlas(res, &old.source) {
                Ok(a) if a.animations.is_empty() => {
                    let e = crate::base::error::LoadError::new(&old.source, "the atlas has no images or animations");
                    out.push((old.source.clone(), Err(e)));
                    continue;
                }
                Ok(a) => Arc::new(a),
                Err(e) => {
                    out.push((old.source.clone(), Err(e)));
                    continue;
                }
            };
            for s in self.instances.iter_mut().filter(|s| s.alive && Arc::ptr_eq(&s.atlas, &old)) {
                let id = old.animations.get(s.animation as usize).map(|a| a.id.as_str()).unwrap_or("");
                let k = new.animations.iter().position(|a| a.id == id).unwrap_or(0) as u32;
                let (offset, rate) = (0.0, s.clock.rate);
                let cursor = old.animations.get(s.animation as usize).map(|f| s.clock.cursor(f)).unwrap_or(offset);
                s.atlas = new.clone();
                let listener = s.listener.take();
                play_on(s, k, cursor, rate, listener);
            }
            self.atlases[i] = new;
            out.push((old.source.clone(), Ok(())));
        }
        out
    }
}
