//! Sound components and the voices they play (engine.md section 5, docs/sound.md). The world
//! mixes on the game thread, a frame's worth of samples per frame (`dt` × [`mixer::RATE`],
//! the fraction carried), so what is heard follows the game clock exactly and `--audio-out`
//! under `--fixed-dt` is the same file on every run. The app hands each frame's block to the
//! audio device through a lock-free ring; the device callback only copies.
pub mod mixer;
pub mod ring;
pub mod spatial;
pub mod stream;

use crate::base::hash::{Hash, hash_remembered, hash_str};
use crate::project::Resources;
use crate::project::sound::{SoundData, SoundSpec, decode};
use mixer::{Buses, RATE, Voice, VoiceState};
use std::collections::HashMap;
use std::sync::Arc;

/// Voices playing at once; a play beyond this is refused (Defold's default `max_sound_instances`
/// is 256 sounds, its mixer 32 voices; 128 keeps a frame's mix well under a millisecond).
pub const MAX_VOICES: usize = 128;
/// The longest `delay` of a play: an hour of silence is a typo.
pub const MAX_DELAY_SECONDS: f32 = 3600.0;
/// The most frames one game frame may mix (a stall of a second is not made up for).
pub const MAX_FRAME_SAMPLES: usize = RATE as usize;

/// Who hears that a play ended: a script instance and its callback id (0: none), or the sender
/// of a `play_sound` message that gave a `play_id` (and that id, which its reply carries).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    pub script: u32,
    pub callback: u32,
    pub reply: Option<(crate::scene::Url, u32)>,
}

/// A play that ended this frame: `sound_done` or, stopped, `sound_stopped`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ended {
    pub play_id: u32,
    pub stopped: bool,
    pub instance: u32,
    pub owner: Owner,
}

pub struct SoundInstance {
    pub slot: u32,
    pub id: Hash,
    pub spec: SoundSpec,
    pub data: Arc<SoundData>,
    pub group: usize,
    /// The component's gain and pan as `set_gain`/`set_pan` left them.
    pub gain: f32,
    pub pan: f32,
    pub alive: bool,
}

/// What `sound.play` (or `play_sound`) asks for on top of the component's own settings.
#[derive(Debug, Clone, Copy)]
pub struct PlayOptions {
    pub delay: f32,
    pub gain: f32,
    pub pan: f32,
    pub speed: f32,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions { delay: 0.0, gain: 1.0, pan: 0.0, speed: 1.0 }
    }
}

pub struct SoundWorld {
    pub instances: Vec<SoundInstance>,
    free: Vec<u32>,
    /// Decoded files by resource path, shared by every component that names them.
    pub bank: HashMap<String, Arc<SoundData>>,
    /// Group names (hashes) and gains; group 0 is `master`.
    pub group_ids: Vec<Hash>,
    pub group_names: Vec<String>,
    pub group_gains: Vec<f32>,
    pub voices: Vec<Voice>,
    /// The instance and owner of each voice, index for index.
    owners: Vec<(u32, Owner)>,
    buses: Box<Buses>,
    /// This frame's mix, interleaved stereo at [`RATE`]; the app writes and plays it.
    pub out: Vec<f32>,
    /// Frames owed to the next frame (the fraction of `dt × RATE`).
    carry: f64,
    next_play_id: u32,
    pub ended: Vec<Ended>,
    /// The object `sound.set_listener` chose; else the active camera's.
    pub listener: Option<u32>,
}

impl Default for SoundWorld {
    fn default() -> Self {
        SoundWorld {
            instances: Vec::new(),
            free: Vec::new(),
            bank: HashMap::new(),
            group_ids: vec![hash_str("master")],
            group_names: vec!["master".into()],
            group_gains: vec![1.0],
            voices: Vec::with_capacity(MAX_VOICES),
            owners: Vec::with_capacity(MAX_VOICES),
            buses: Box::default(),
            out: Vec::with_capacity(MAX_FRAME_SAMPLES * 2),
            carry: 0.0,
            next_play_id: 0,
            ended: Vec::new(),
            listener: None,
        }
    }
}

impl SoundWorld {
    /// Decodes (once per path) and registers a sound component.
    pub fn create(&mut self, res: &Resources, slot: u32, id: &str, spec: &SoundSpec) -> Result<u32, String> {
        let data = self.load(res, &spec.sound)?;
        let group =
            self.group(&spec.group).ok_or_else(|| format!("sound '{id}': more than {} groups", mixer::MAX_GROUPS))?;
        let inst = SoundInstance {
            slot,
            id: hash_remembered(id),
            spec: spec.clone(),
            data,
            group,
            gain: spec.gain,
            pan: spec.pan,
            alive: true,
        };
        if let Some(i) = self.free.pop() {
            self.instances[i as usize] = inst;
            return Ok(i);
        }
        self.instances.push(inst);
        Ok((self.instances.len() - 1) as u32)
    }

    fn load(&mut self, res: &Resources, path: &str) -> Result<Arc<SoundData>, String> {
        if let Some(d) = self.bank.get(path) {
            return Ok(d.clone());
        }
        let bytes = res.read(path, None).map_err(|e| e.to_string())?;
        let data = Arc::new(decode(path, &bytes).map_err(|e| e.to_string())?);
        self.bank.insert(path.to_string(), data.clone());
        Ok(data)
    }

    /// Re-reads a changed sound file: the components naming it play the new one from their next
    /// `play`; a broken file keeps the previous sound and the error is returned.
    pub fn reload(&mut self, res: &Resources, path: &str) -> Result<bool, String> {
        if !self.bank.contains_key(path) {
            return Ok(false);
        }
        let bytes = res.read(path, None).map_err(|e| e.to_string())?;
        let data = Arc::new(decode(path, &bytes).map_err(|e| e.to_string())?);
        for inst in self.instances.iter_mut().filter(|i| i.alive && i.spec.sound == path) {
            inst.data = data.clone();
        }
        self.bank.insert(path.to_string(), data);
        Ok(true)
    }

    /// The index of group `name`, made on first use; `None` past [`mixer::MAX_GROUPS`].
    pub fn group(&mut self, name: &str) -> Option<usize> {
        let h = hash_str(name);
        if let Some(i) = self.group_ids.iter().position(|&g| g == h) {
            return Some(i);
        }
        if self.group_ids.len() >= mixer::MAX_GROUPS {
            return None;
        }
        self.group_ids.push(h);
        self.group_names.push(name.to_string());
        self.group_gains.push(1.0);
        Some(self.group_ids.len() - 1)
    }

    pub fn group_index(&self, id: Hash) -> Option<usize> {
        self.group_ids.iter().position(|&g| g == id)
    }

    pub fn get(&self, i: u32) -> Option<&SoundInstance> {
        self.instances.get(i as usize).filter(|s| s.alive)
    }

    /// Starts a play of component `i`; returns its play id.
    pub fn play(&mut self, i: u32, o: PlayOptions, owner: Owner) -> Result<u32, String> {
        let Some(inst) = self.get(i) else { return Err("the sound component is gone".into()) };
        if self.voices.len() >= MAX_VOICES {
            return Err(format!("more than {MAX_VOICES} sounds playing at once"));
        }
        if !(0.0..=MAX_DELAY_SECONDS).contains(&o.delay) {
            return Err(format!("delay must be from 0 to {MAX_DELAY_SECONDS} seconds"));
        }
        let play_id = self.next_play_id % 0x7fff_fff0 + 1;
        let mut v = Voice::new(play_id, inst.data.clone(), inst.group);
        v.gain = inst.gain * o.gain;
        v.pan = (inst.pan + o.pan).clamp(-1.0, 1.0);
        v.set_speed(inst.spec.speed * o.speed);
        v.looping = inst.spec.looping;
        v.plays_left = if inst.spec.looping { inst.spec.loopcount } else { 0 };
        // Whole frames: a delay is heard to the sample, not to the frame.
        v.delay = (o.delay as f64 * RATE as f64).round() as u64;
        self.voices.push(v);
        self.owners.push((i, owner));
        self.next_play_id = play_id;
        Ok(play_id)
    }

    /// Stops the plays of component `i` (only `play_id` when not 0); they ramp out within one
    /// block and end with `sound_stopped`.
    pub fn stop(&mut self, i: u32, play_id: u32) {
        for (v, (inst, o)) in self.voices.iter_mut().zip(&self.owners) {
            let named = v.play_id == play_id || o.reply.is_some_and(|(_, id)| id == play_id);
            if *inst == i && (play_id == 0 || named) && v.state == VoiceState::Playing {
                v.state = VoiceState::Stopping;
            }
        }
    }

    pub fn pause(&mut self, i: u32, paused: bool) {
        for (v, (inst, _)) in self.voices.iter_mut().zip(&self.owners) {
            if *inst == i {
                v.paused = paused;
            }
        }
    }

    /// `set_gain` of a component: its later plays and the ones playing now (ramped, no click).
    pub fn set_gain(&mut self, i: u32, gain: f32) {
        let Some(inst) = self.instances.get_mut(i as usize) else { return };
        let k = if inst.gain > 0.0 { gain / inst.gain } else { 1.0 };
        inst.gain = gain;
        for (v, (owner, _)) in self.voices.iter_mut().zip(&self.owners) {
            if *owner == i {
                v.gain = if k.is_finite() && v.gain > 0.0 { v.gain * k } else { gain };
            }
        }
    }

    /// A component's `speed` (`go.set(url, "speed", v)`): its later plays, and the ones playing
    /// now keep their own play speed on top of it.
    pub fn set_speed(&mut self, i: u32, speed: f32) {
        let Some(inst) = self.instances.get_mut(i as usize) else { return };
        let k = if inst.spec.speed > 0.0 { speed as f64 / inst.spec.speed as f64 } else { 1.0 };
        inst.spec.speed = speed;
        for (v, (owner, _)) in self.voices.iter_mut().zip(&self.owners) {
            if *owner == i && k.is_finite() {
                v.step *= k;
            }
        }
    }

    pub fn set_pan(&mut self, i: u32, pan: f32) {
        let Some(inst) = self.instances.get_mut(i as usize) else { return };
        inst.pan = pan;
        for (v, (owner, _)) in self.voices.iter_mut().zip(&self.owners) {
            if *owner == i {
                v.pan = pan;
            }
        }
    }

    /// A deleted object's component: its plays end now, without callbacks (their script is
    /// gone with it or does not expect them, as in Defold).
    pub fn remove(&mut self, i: u32) {
        let mut k = 0;
        while k < self.voices.len() {
            if self.owners[k].0 == i {
                self.voices.swap_remove(k);
                self.owners.swap_remove(k);
            } else {
                k += 1;
            }
        }
        if let Some(inst) = self.instances.get_mut(i as usize)
            && inst.alive
        {
            inst.alive = false;
            self.free.push(i);
        }
    }

    /// Defold's `is_music_playing` asks whether another app's music plays on the device (a
    /// phone's player); no such thing reaches Sinew, so it is always false.
    pub fn is_music_playing(&self) -> bool {
        false
    }

    /// Mixes `dt` seconds into [`SoundWorld::out`] and collects the plays that ended in
    /// [`SoundWorld::ended`].
    pub fn mix_frame(&mut self, dt: f32) {
        let want = self.carry + dt.max(0.0) as f64 * RATE as f64;
        // Within a thousandth of a sample counts as whole: `--fixed-dt 0.02` is 0.0199999995 as
        // an f32, and must still make 960 frames every frame rather than 959 then 961.
        let frames = ((want + 1e-3).floor().max(0.0) as usize).min(MAX_FRAME_SAMPLES);
        self.carry = (want - frames as f64).clamp(-1e-3, 1.0);
        self.out.clear();
        self.out.resize(frames * 2, 0.0);
        for (v, (i, _)) in self.voices.iter_mut().zip(&self.owners) {
            if let Some(e) = v.refill(frames) {
                let path = self.instances.get(*i as usize).map_or("?", |s| s.spec.sound.as_str());
                log::warn!("{path}: {e}; the play ends there");
            }
        }
        mixer::mix(&mut self.voices, &self.group_gains, &mut self.buses, &mut self.out);
        self.collect_ended();
    }

    fn collect_ended(&mut self) {
        let mut k = 0;
        while k < self.voices.len() {
            if self.voices[k].finished() {
                let v = self.voices.swap_remove(k);
                let (instance, owner) = self.owners.swap_remove(k);
                self.ended.push(Ended { play_id: v.play_id, stopped: v.state == VoiceState::Stopped, instance, owner });
            } else {
                k += 1;
            }
        }
    }

    /// Root mean square (left, right) of group `g` over the last `window` seconds.
    pub fn rms(&self, g: usize, window: f32) -> (f32, f32) {
        self.buses.meters.get(g).map_or((0.0, 0.0), |m| m.rms(window))
    }

    pub fn peak(&self, g: usize, window: f32) -> (f32, f32) {
        self.buses.meters.get(g).map_or((0.0, 0.0), |m| m.peak(window))
    }

    /// Adds the callback ids that a play still holds to `out` and sorts it (the Lua side keeps
    /// those closures; `model_dead_callbacks` asks the models first).
    pub fn live_callbacks(&self, out: &mut Vec<u32>) {
        out.extend(self.owners.iter().map(|(_, o)| o.callback).filter(|&c| c != 0));
        out.sort_unstable();
    }

    /// The component that voice `k` plays.
    pub fn owner_instance(&self, k: usize) -> Option<&SoundInstance> {
        self.owners.get(k).and_then(|&(i, _)| self.get(i))
    }
}

/// `play_sound`, `stop_sound` and `set_gain`, hashed once.
fn message_ids() -> (Hash, Hash, Hash) {
    static IDS: std::sync::OnceLock<(Hash, Hash, Hash)> = std::sync::OnceLock::new();
    *IDS.get_or_init(|| (hash_str("play_sound"), hash_str("stop_sound"), hash_str("set_gain")))
}

/// Whether a sound component acts on message `id` (dispatch runs the scripts' earlier messages
/// first when it does).
pub fn is_message(id: Hash) -> bool {
    let (play, stop, gain) = message_ids();
    id == play || id == stop || id == gain
}

/// `play_sound {delay, gain, pan, speed, play_id}`, `stop_sound {play_id}` and
/// `set_gain {gain}` sent to a sound component. A `play_sound` with a `play_id` gets
/// `sound_done` / `sound_stopped` back at its sender, as in Defold.
pub fn message(w: &mut crate::game::World, i: u32, m: &crate::scene::Message) -> bool {
    use crate::scene::message::{MsgValue, decode};
    let id = m.id;
    if !is_message(id) {
        return false;
    }
    let (play, stop, _) = message_ids();
    let data = match decode(&m.data) {
        Ok(d) => d,
        Err(e) => {
            log::error!("{}: {e}", crate::base::hash::name_of(id));
            return true;
        }
    };
    let num = |k: &str| match data.get(k) {
        Some(MsgValue::Number(n)) => Some(*n as f32),
        _ => None,
    };
    if id == play {
        let o = PlayOptions {
            delay: num("delay").unwrap_or(0.0),
            gain: num("gain").unwrap_or(1.0),
            pan: num("pan").unwrap_or(0.0),
            speed: num("speed").unwrap_or(1.0),
        };
        let reply = num("play_id").map(|id| (m.sender, id as u32));
        if let Err(e) = w.sounds.play(i, o, Owner { script: u32::MAX, callback: 0, reply }) {
            log::error!("play_sound: {e}");
        }
    } else if id == stop {
        w.sounds.stop(i, num("play_id").map_or(0, |p| p as u32));
    } else if let Some(g) = num("gain") {
        w.sounds.set_gain(i, g.clamp(0.0, crate::project::sound::MAX_GAIN));
    }
    true
}

/// The frame's sound step, after the transform pass: positional gains from this frame's
/// transforms, the frame's samples mixed, and `sound_done` / `sound_stopped` sent for the plays
/// that ended (to the `sound.play` callback, or as a message to a `play_sound` sender).
pub fn step(world: &std::cell::RefCell<crate::game::World>, hooks: &mut dyn crate::game::ScriptHooks, dt: f32) {
    use crate::scene::message::{MsgValue, encode};
    let ended = {
        let w = &mut *world.borrow_mut();
        let camera = w.models.cameras.iter().find(|c| c.alive && c.enabled).map(|c| c.slot);
        spatial::update(&mut w.sounds, &w.scene, camera);
        w.sounds.mix_frame(dt);
        std::mem::take(&mut w.sounds.ended)
    };
    for e in &ended {
        let msg = {
            let w = world.borrow();
            let path = w.sounds.instances.get(e.instance as usize).map(|s| (s.slot, s.id));
            let (socket, path, fragment) = match path {
                Some((slot, id)) => (w.socket_of(slot), w.scene.ids.get(slot as usize).copied().unwrap_or(0), id),
                None => (w.socket, 0, 0),
            };
            let sender = crate::scene::Url { socket, path, fragment };
            let play_id = e.owner.reply.map_or(e.play_id, |(_, id)| id);
            let table = MsgValue::Table(vec![(MsgValue::String("play_id".into()), MsgValue::Number(play_id as f64))]);
            let mut data = Vec::new();
            encode(&table, &mut data);
            let id = hash_remembered(if e.stopped { "sound_stopped" } else { "sound_done" });
            let receiver = e.owner.reply.map_or(sender, |(url, _)| url);
            crate::scene::Message::new(sender, receiver, id, data)
        };
        if e.owner.callback != 0 {
            hooks.model_done(e.owner.script, e.owner.callback, &msg);
        } else if e.owner.reply.is_some() && world.borrow_mut().messages.post(msg).is_err() {
            log::warn!("sound_done dropped: the frame's message budget is spent");
        }
    }
    // Handed back so its capacity is reused next frame.
    let mut ended = ended;
    ended.clear();
    world.borrow_mut().sounds.ended = ended;
}
