//! A project's own render script (Defold's `[bootstrap] render`): what its `update` asked for in
//! one frame, as commands the renderer carries out in order — clear, viewport, view and
//! projection, and draws of predicates (material tags). Game state only: the script records,
//! the renderer reads the last frame that recorded without an error, and nothing here touches GL.
use super::render_targets::{Buffer, RenderTargets};
use crate::base::hash::hash_str;
use glam::Mat4;

/// Commands one frame may record: a script that draws in a loop cannot grow the frame without
/// bound (Defold's default script records about 20).
pub const MAX_COMMANDS: usize = 4096;
/// Predicates a render script may make (each `render.predicate` call makes one, as in Defold,
/// which keeps them until the script is gone): scripts make theirs in `init`.
pub const MAX_PREDICATES: usize = 256;
/// Tags one predicate may name.
pub const MAX_TAGS: usize = 32;
/// Named constants one frame's draws may carry together (`render.draw`'s `constants`).
pub const MAX_CONSTANTS: usize = 4096;

/// Texture units `render.enable_texture` may name (GL 3.3 promises 16 to a fragment shader).
pub const TEXTURE_UNITS: u32 = 16;

/// The script instance number messages to `@render:` are delivered to (no game object's script
/// has it: instances are numbered from 0 as they are made).
pub const RENDER_SCRIPT_INSTANCE: u32 = u32::MAX;

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `render.clear`: the buffers the table names, with their values.
    Clear {
        color: Option<[f32; 4]>,
        depth: Option<f32>,
        stencil: Option<i32>,
    },
    /// `render.set_viewport`: x, y, width, height in window pixels.
    Viewport([i32; 4]),
    View(Mat4),
    Projection(Mat4),
    /// `render.draw` of predicate number n (see [`RenderScript::tags`]).
    Draw(u32),
    /// The constants the next `Draw` gives its materials, over their own values: `count` of
    /// [`RenderScript::constants`] from `first` (a `render.draw` with `constants`).
    Constants {
        first: u32,
        count: u32,
    },
    /// `render.draw_debug3d`: the debug lines and texts (`draw_line`, `draw_text`, the physics
    /// debug view).
    DrawDebug3d,
    /// `render.set_cull_face`: which faces the next model draws cull (where they cull at all).
    CullFace(Face),
    /// `render.set_depth_func`: the next model draws' depth test.
    DepthFunc(Compare),
    /// `render.set_render_target`: the next clears and draws go into render target n (see
    /// [`RenderScript::targets`]); `None`: the window.
    Target(Option<u32>),
    /// `render.enable_texture`: model draws sample buffer `buffer` of render target `target`
    /// through the sampler at `binding`, over what their material gives it.
    EnableTexture {
        binding: Binding,
        target: u32,
        buffer: Buffer,
    },
    /// `render.disable_texture`.
    DisableTexture(Binding),
}

/// Which samplers `render.enable_texture` binds: by texture unit (a material's samplers take
/// units in the order it declares them) or by the sampler's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    Unit(u32),
    Sampler(u64),
}

/// `render.FACE_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Face {
    Front,
    Back,
    FrontAndBack,
}

impl Face {
    pub const ALL: [Face; 3] = [Face::Front, Face::Back, Face::FrontAndBack];
    pub fn name(self) -> &'static str {
        match self {
            Face::Front => "FRONT",
            Face::Back => "BACK",
            Face::FrontAndBack => "FRONT_AND_BACK",
        }
    }
}

/// `render.COMPARE_FUNC_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    Never,
    Less,
    Lequal,
    Greater,
    Gequal,
    Equal,
    Notequal,
    Always,
}

impl Compare {
    pub const ALL: [Compare; 8] = [
        Compare::Never,
        Compare::Less,
        Compare::Lequal,
        Compare::Greater,
        Compare::Gequal,
        Compare::Equal,
        Compare::Notequal,
        Compare::Always,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Compare::Never => "NEVER",
            Compare::Less => "LESS",
            Compare::Lequal => "LEQUAL",
            Compare::Greater => "GREATER",
            Compare::Gequal => "GEQUAL",
            Compare::Equal => "EQUAL",
            Compare::Notequal => "NOTEQUAL",
            Compare::Always => "ALWAYS",
        }
    }
}

/// The tags of Sinew's passes, as the built-in materials carry them in Defold.
#[derive(Debug, Clone, Copy)]
pub struct PassTags {
    pub model: u64,
    pub tile: u64,
    pub particle: u64,
    pub text: u64,
    pub gui: u64,
}

pub fn pass_tags() -> &'static PassTags {
    static TAGS: std::sync::OnceLock<PassTags> = std::sync::OnceLock::new();
    TAGS.get_or_init(|| PassTags {
        model: hash_str("model"),
        tile: hash_str("tile"),
        particle: hash_str("particle"),
        text: hash_str("text"),
        gui: hash_str("gui"),
    })
}

#[derive(Default)]
pub struct RenderScript {
    /// The `.render_script` running, if any; empty: Sinew's own pipeline draws.
    pub path: String,
    /// The commands of the last frame whose `update` finished without an error: a frame whose
    /// script failed is drawn as the one before it, not half drawn.
    pub commands: Vec<Command>,
    /// Whether `commands` holds a frame (until the first good `update`, Sinew's pipeline draws).
    pub ready: bool,
    recording: Vec<Command>,
    /// The named vector4 constants the last good frame's draws carry ([`Command::Constants`]).
    pub constants: Vec<(u64, [f32; 4])>,
    recording_constants: Vec<(u64, [f32; 4])>,
    /// Whether an `update` is running: `render.*` records only then (and `predicate` in `init`).
    pub open: bool,
    predicates: Vec<Vec<u64>>,
    warned_full: bool,
    /// game.project's display size (`render.get_width`/`get_height`).
    pub display: (u32, u32),
    /// The render targets the script made (`render.render_target`), kept while it runs.
    pub targets: RenderTargets,
}

impl RenderScript {
    /// Starts recording a frame.
    pub fn begin(&mut self) {
        self.recording.clear();
        self.recording_constants.clear();
        self.open = true;
        self.warned_full = false;
    }

    /// Ends the frame's recording; a failed `update` keeps the previous frame's commands.
    pub fn end(&mut self, ok: bool) {
        self.open = false;
        if ok {
            std::mem::swap(&mut self.commands, &mut self.recording);
            std::mem::swap(&mut self.constants, &mut self.recording_constants);
            self.ready = true;
        }
        self.recording.clear();
        self.recording_constants.clear();
    }

    /// No render script from now on (it was stopped): Sinew's pipeline draws.
    pub fn stop(&mut self) {
        self.path.clear();
        self.ready = false;
        self.open = false;
        self.commands.clear();
        self.recording.clear();
        self.constants.clear();
        self.recording_constants.clear();
        self.targets.clear();
    }

    /// Records one command of the frame being recorded.
    pub fn push(&mut self, c: Command) -> Result<(), String> {
        if !self.open {
            return Err("render.* draws only from a render script's update".into());
        }
        if let Command::Draw(p) = c
            && p as usize >= self.predicates.len()
        {
            return Err(format!("no predicate {p}"));
        }
        match &c {
            Command::View(m) | Command::Projection(m) if !m.is_finite() => {
                return Err("the matrix has a NaN or infinite element".into());
            }
            Command::Viewport([_, _, w, h]) if *w < 0 || *h < 0 => {
                return Err(format!("the viewport's width and height must not be negative, not {w} x {h}"));
            }
            Command::Target(Some(n)) => {
                self.targets.find(*n)?;
            }
            Command::EnableTexture { binding, target, buffer } => {
                let t = self.targets.find(*target)?;
                if !t.has(*buffer) || *buffer == Buffer::Stencil {
                    return Err(format!("render target {target} has no {buffer:?} buffer to sample"));
                }
                binding_ok(*binding)?;
            }
            Command::DisableTexture(binding) => binding_ok(*binding)?,
            _ => {}
        }
        if self.recording.len() >= MAX_COMMANDS {
            if !self.warned_full {
                self.warned_full = true;
                log::warn!(
                    "render script: more than {MAX_COMMANDS} render commands in one frame; the rest are dropped"
                );
            }
            return Ok(());
        }
        self.recording.push(c);
        Ok(())
    }

    /// Records the constants of the next `render.draw` (name hash, value), straight into the
    /// frame's list: a draw with constants allocates nothing once the list has grown.
    pub fn push_constants(&mut self, given: impl IntoIterator<Item = (u64, [f32; 4])>) -> Result<(), String> {
        if !self.open {
            return Err("render.* draws only from a render script's update".into());
        }
        let first = self.recording_constants.len();
        self.recording_constants.extend(given);
        let added = &self.recording_constants[first..];
        let refused = if added.iter().any(|(_, v)| !v.iter().all(|x| x.is_finite())) {
            Some("a constant has a NaN or infinite component".to_string())
        } else if self.recording_constants.len() > MAX_CONSTANTS {
            Some(format!("the draws of one frame may carry at most {MAX_CONSTANTS} constants together"))
        } else {
            None
        };
        if let Some(e) = refused {
            self.recording_constants.truncate(first);
            return Err(e);
        }
        let count = added.len() as u32;
        self.push(Command::Constants { first: first as u32, count })
    }

    /// The constants a [`Command::Constants`] names (none for a range outside the frame's).
    pub fn constants_of(&self, first: u32, count: u32) -> &[(u64, [f32; 4])] {
        let (a, b) = (first as usize, first as usize + count as usize);
        self.constants.get(a..b).unwrap_or(&[])
    }

    /// `render.predicate(tags)`: a new predicate's number.
    pub fn predicate(&mut self, tags: &[u64]) -> Result<u32, String> {
        if tags.is_empty() || tags.len() > MAX_TAGS {
            return Err(format!("a predicate needs 1 to {MAX_TAGS} tags, not {}", tags.len()));
        }
        if self.predicates.len() >= MAX_PREDICATES {
            return Err(format!("a render script may make at most {MAX_PREDICATES} predicates"));
        }
        self.predicates.push(tags.to_vec());
        Ok(self.predicates.len() as u32 - 1)
    }

    /// The tags of predicate `p` (none for a number no predicate has).
    pub fn tags(&self, p: u32) -> &[u64] {
        self.predicates.get(p as usize).map_or(&[], Vec::as_slice)
    }
}

fn binding_ok(b: Binding) -> Result<(), String> {
    match b {
        Binding::Unit(u) if u >= TEXTURE_UNITS => Err(format!("texture unit {u} is not below {TEXTURE_UNITS}")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_kept_only_when_its_update_finished() {
        let mut r = RenderScript::default();
        let p = r.predicate(&[pass_tags().tile]).unwrap();
        r.begin();
        r.push(Command::Draw(p)).unwrap();
        r.end(true);
        assert!(r.ready);
        assert_eq!(r.commands, vec![Command::Draw(p)]);
        r.begin();
        r.push(Command::DrawDebug3d).unwrap();
        r.end(false);
        assert_eq!(r.commands, vec![Command::Draw(p)], "a failed frame keeps the last good one");
    }

    #[test]
    fn bad_commands_are_refused() {
        let mut r = RenderScript::default();
        assert!(r.push(Command::DrawDebug3d).unwrap_err().contains("update"), "outside update");
        r.begin();
        assert!(r.push(Command::Draw(0)).unwrap_err().contains("no predicate 0"));
        let nan = Mat4::from_cols_array(&[f32::NAN; 16]);
        assert!(r.push(Command::View(nan)).unwrap_err().contains("NaN"));
        assert!(r.push(Command::Projection(Mat4::IDENTITY * f32::INFINITY)).is_err());
        assert!(r.push(Command::Viewport([0, 0, -1, 10])).unwrap_err().contains("negative"));
        assert!(r.predicate(&[]).is_err());
        assert!(r.predicate(&vec![1; MAX_TAGS + 1]).is_err());
        for _ in 0..MAX_PREDICATES {
            r.predicate(&[1]).unwrap();
        }
        assert!(r.predicate(&[1]).unwrap_err().contains("at most"));
        for _ in 0..MAX_COMMANDS + 10 {
            r.push(Command::DrawDebug3d).unwrap();
        }
        r.end(true);
        assert_eq!(r.commands.len(), MAX_COMMANDS, "the rest of a runaway frame is dropped");
    }

    #[test]
    fn target_commands_name_a_live_target_and_one_of_its_buffers() {
        use crate::game::render_targets::BufferParams;
        let mut r = RenderScript::default();
        let color = BufferParams {
            buffer: Buffer::Color(0),
            format: None,
            width: Some(4.0),
            height: Some(4.0),
            min_filter: None,
            mag_filter: None,
            u_wrap: None,
            v_wrap: None,
        };
        let t = r.targets.make(&[color]).unwrap();
        r.begin();
        r.push(Command::Target(Some(t))).unwrap();
        r.push(Command::Target(None)).unwrap();
        assert!(r.push(Command::Target(Some(t + 1))).unwrap_err().contains("does not exist"));
        let enable = |binding, buffer| Command::EnableTexture { binding, target: t, buffer };
        r.push(enable(Binding::Unit(0), Buffer::Color(0))).unwrap();
        r.push(enable(Binding::Sampler(7), Buffer::Color(0))).unwrap();
        assert!(r.push(enable(Binding::Unit(0), Buffer::Depth)).unwrap_err().contains("no Depth buffer"));
        assert!(r.push(enable(Binding::Unit(TEXTURE_UNITS), Buffer::Color(0))).unwrap_err().contains("unit 16"));
        assert!(r.push(Command::DisableTexture(Binding::Unit(99))).is_err());
        r.push(Command::DisableTexture(Binding::Sampler(7))).unwrap();
        r.end(true);
        assert_eq!(r.commands.len(), 5);
        r.stop();
        assert!(r.targets.all().is_empty(), "a stopped script's targets go with it");
    }

    #[test]
    fn a_draws_constants_are_kept_with_its_frame() {
        let mut r = RenderScript::default();
        let p = r.predicate(&[1]).unwrap();
        assert!(r.push_constants([(5, [1.0; 4])]).unwrap_err().contains("update"), "outside update");
        r.begin();
        r.push_constants([(5, [0.5, 1.0, 1.0, 1.0]), (6, [2.0; 4])]).unwrap();
        r.push(Command::Draw(p)).unwrap();
        assert!(r.push_constants([(7, [f32::NAN, 0.0, 0.0, 0.0])]).unwrap_err().contains("NaN"));
        let many = vec![(8, [0.0; 4]); MAX_CONSTANTS];
        assert!(r.push_constants(many).unwrap_err().contains("at most"));
        r.end(true);
        assert_eq!(r.commands, vec![Command::Constants { first: 0, count: 2 }, Command::Draw(p)]);
        assert_eq!(r.constants_of(0, 2), &[(5, [0.5, 1.0, 1.0, 1.0]), (6, [2.0; 4])]);
        assert!(r.constants_of(1, 5).is_empty(), "a range past the frame's names none");
        r.begin();
        r.push_constants([(9, [3.0; 4])]).unwrap();
        r.end(false);
        assert_eq!(r.constants_of(0, 1), &[(5, [0.5, 1.0, 1.0, 1.0])], "a failed frame keeps the last good one's");
    }
}
