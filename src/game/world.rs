//! Everything a running game holds, apart from the Lua state and GPU resources.
use super::model_world::ModelWorld;
use crate::anim::TweenWorld;
use crate::base::hash::{Hash, hash_remembered};
use crate::scene::{MessageQueue, Scene, Url};

pub struct World {
    pub scene: Scene,
    pub messages: MessageQueue,
    /// `go.animate` tweens, advanced once per frame after the scripts' update.
    pub tweens: TweenWorld,
    /// Model, camera and light components.
    pub models: ModelWorld,
    /// Label components.
    pub labels: super::labels::LabelWorld,
    /// `gui` components.
    pub gui: super::gui::GuiWorld,
    /// Hash of the bootstrap collection's name: the URL socket of every object.
    pub socket: Hash,
    pub socket_name: String,
    /// Set by `sys.exit`: the run ends after the current frame with this status.
    pub exit_code: Option<i32>,
    pub frame: u64,
    /// Game seconds since the start (the sum of the frames' dt) and the last frame's dt: the
    /// value of materials' `CONSTANT_TYPE_TIME` constants.
    pub time: f64,
    pub dt: f32,
    /// Bindings, action state and the input focus stack.
    pub input: super::input::InputState,
    pub fixed: super::input::FixedClock,
    /// `draw_text`, `draw_line` and `clear_color` sent to `@render:` this frame.
    pub render: super::render_requests::RenderRequests,
    /// The project's own render script's commands (Sinew's pipeline draws without one).
    pub render_script: super::render_script::RenderScript,
    /// Scratch of the once-a-frame sweep of `model.play_anim` callbacks (kept to reuse).
    pub live_callbacks: Vec<u32>,
    /// Factory components and the names and limit of what they spawn.
    pub factories: super::factory::Factories,
    /// Index of the next script instance: shared by load and `factory.create`, so the script
    /// runtime and the scene agree on every index.
    pub next_script: u32,
    /// Sound components, their voices and the mixer.
    pub sounds: super::sound::SoundWorld,
    /// Collision objects and their rapier world.
    pub physics: super::physics::Physics,
    /// Sprite components (sprites.md).
    pub sprites: super::sprites::SpriteWorld,
    /// Textures scripts made (`resource.create_texture`); their atlases join `sprites`.
    pub textures: super::runtime_textures::RuntimeTextures,
    /// Particle effect components (their quads are drawn with the sprites').
    pub particles: super::particles::ParticleWorld,
    pub tilemaps: super::tilemaps::TileMapWorld,
    /// Collection proxies and their worlds (docs/proxies.md).
    pub proxies: super::proxy::ProxyWorld,
}

impl World {
    pub fn new(socket_name: &str) -> Self {
        World {
            scene: Scene::new(),
            messages: MessageQueue::default(),
            tweens: TweenWorld::new(),
            models: ModelWorld::default(),
            labels: Default::default(),
            gui: Default::default(),
            socket: hash_remembered(socket_name),
            socket_name: socket_name.to_string(),
            exit_code: None,
            frame: 0,
            time: 0.0,
            dt: 0.0,
            input: super::input::InputState::new(&Default::default(), (960, 540), 0.5, 0.2),
            fixed: super::input::FixedClock::new(60.0),
            render: Default::default(),
            render_script: Default::default(),
            live_callbacks: Vec::new(),
            factories: Default::default(),
            next_script: 0,
            sounds: Default::default(),
            physics: Default::default(),
            sprites: Default::default(),
            textures: Default::default(),
            particles: Default::default(),
            tilemaps: Default::default(),
            proxies: Default::default(),
        }
    }

    /// The URL socket of an object: the main collection's name hash, or its proxy world's.
    pub fn socket_of(&self, slot: u32) -> Hash {
        match self.scene.socket.get(slot as usize) {
            Some(&s) if s != 0 => s,
            _ => self.socket,
        }
    }

    /// The object a URL's socket (0 or the main collection's: the main world) and path name.
    pub fn find_url(&self, socket: Hash, path: Hash) -> Option<u32> {
        if socket == 0 || socket == self.socket { self.scene.find(path) } else { self.scene.find_in(socket, path) }
    }

    /// [`World::find_url`] of a message's receiver, from the slot its poster gave where that
    /// still holds it.
    pub fn find_receiver(&self, m: &crate::scene::Message) -> Option<u32> {
        let Url { socket, path, .. } = m.receiver;
        let own = if socket == self.socket { 0 } else { socket };
        if m.to != crate::scene::NONE && self.scene.holds(m.to, own, path) {
            debug_assert_eq!(self.find_url(socket, path), Some(m.to), "a message's slot is its receiver's");
            return Some(m.to);
        }
        self.find_url(socket, path)
    }
}
