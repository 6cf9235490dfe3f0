//! Defold's render-script messages that Sinew's fixed renderer honours: `draw_text`, `draw_line`,
//! `clear_color`, `resize`, the default render script's projections (`use_stretch_projection`,
//! `use_fixed_projection`, `use_fixed_fit_projection`, `use_camera_projection`,
//! `set_view_projection`) sent to `@render:`, and the `@system:` socket. Game state only: the
//! renderer reads the frame's requests; nothing here touches GL.
use crate::base::hash::{hash_str, name_of};
use crate::project::font::MAX_TEXT_SIZE;
use crate::project::types::{MAX_WINDOW_SIDE, window_side};
use crate::scene::Message;
use crate::scene::message::{MsgValue, decode};
use glam::Mat4;
use glam::camera::rh::proj::opengl::orthographic;
use std::collections::HashSet;
use std::sync::OnceLock;

/// The hashes this module compares against, computed once: `is_render_socket` runs for every
/// delivered message.
struct Ids {
    render: u64,
    system: u64,
    draw_text: u64,
    draw_line: u64,
    clear_color: u64,
    resize: u64,
    use_stretch_projection: u64,
    use_fixed_projection: u64,
    use_fixed_fit_projection: u64,
    use_camera_projection: u64,
    set_view_projection: u64,
}

fn ids() -> &'static Ids {
    static IDS: OnceLock<Ids> = OnceLock::new();
    IDS.get_or_init(|| Ids {
        render: hash_str("@render"),
        system: hash_str("@system"),
        draw_text: hash_str("draw_text"),
        draw_line: hash_str("draw_line"),
        clear_color: hash_str("clear_color"),
        resize: hash_str("resize"),
        use_stretch_projection: hash_str("use_stretch_projection"),
        use_fixed_projection: hash_str("use_fixed_projection"),
        use_fixed_fit_projection: hash_str("use_fixed_fit_projection"),
        use_camera_projection: hash_str("use_camera_projection"),
        set_view_projection: hash_str("set_view_projection"),
    })
}

/// At most this many texts and lines are kept per frame (a script posting them in a loop
/// cannot grow the frame without bound); the rest are dropped with one warning.
pub const MAX_PER_FRAME: usize = 4096;

/// At most this many characters of `draw_text` are drawn per frame, the rest cut with one
/// warning: 4,096 texts of 1,920 glyphs made the overlay ask for 1.3 GB in one frame (issue 32).
/// The same cap as one label's text; the overlay's vertices for it are about 12 MB.
pub const MAX_GLYPHS_PER_FRAME: usize = 65_536;

/// The fields `draw_text` reads; any other is refused, as every file format refuses unknown
/// fields (a `size` that is silently ignored looks like a renderer bug).
const DRAW_TEXT_FIELDS: [&str; 4] = ["text", "position", "color", "size"];

/// `draw_text`'s size (pixels per em of the built-in face) when the message gives none.
pub const DEFAULT_TEXT_SIZE: f32 = 16.0;

/// Screen text: pixels from the bottom-left corner of the window.
#[derive(Debug, Clone, PartialEq)]
pub struct DebugText {
    pub text: String,
    pub x: f32,
    pub y: f32,
    pub color: [f32; 4],
    /// Pixels per em.
    pub size: f32,
}

/// A world-space line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DebugLine {
    pub start: [f32; 3],
    pub end: [f32; 3],
    pub color: [f32; 4],
}

/// The projection a `use_*_projection` message asks for (`Fixed`'s zoom is read with the rest of
/// the message, in [`ScreenView::choose`]).
fn projection_of(id: u64) -> Option<ScreenProjection> {
    let ids = ids();
    match id {
        _ if id == ids.use_stretch_projection => Some(ScreenProjection::Stretch),
        _ if id == ids.use_fixed_projection => Some(ScreenProjection::Fixed { zoom: 1.0 }),
        _ if id == ids.use_fixed_fit_projection => Some(ScreenProjection::FixedFit),
        _ => None,
    }
}

/// The projections of Defold's default render script for a world seen without a camera component.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScreenProjection {
    /// The display's area over the whole window, whatever its shape (the default).
    Stretch,
    /// The display's area centred, `zoom` window pixels per world unit.
    Fixed { zoom: f32 },
    /// As `Fixed`, zoomed so that the display's area just fits inside the window.
    FixedFit,
    /// `set_view_projection`'s projection.
    Camera,
}

/// How the world is seen when no camera component is enabled, as Defold's default render script
/// (1.9.6 and later: an enabled camera component wins over all of this) sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScreenView {
    pub projection: ScreenProjection,
    pub near: f32,
    pub far: f32,
    /// `set_view_projection`'s view (the identity until then).
    pub view: Mat4,
    /// `set_view_projection`'s projection, which `use_camera_projection` chooses.
    pub camera_projection: Mat4,
    /// Whether a script chose a projection: a Sinew project (whose world without a camera is
    /// framed by a camera of its own) is then seen as a Defold project is.
    pub chosen: bool,
}

impl Default for ScreenView {
    fn default() -> Self {
        ScreenView {
            projection: ScreenProjection::Stretch,
            near: -1.0,
            far: 1.0,
            view: Mat4::IDENTITY,
            camera_projection: Mat4::IDENTITY,
            chosen: false,
        }
    }
}

impl ScreenView {
    /// View and projection for a game made for a `display` area (game.project's `[display]`
    /// size) in a `window` of pixels: the default render script's sums.
    pub fn matrices(&self, display: (u32, u32), window: (u32, u32)) -> (Mat4, Mat4) {
        let (dw, dh) = (display.0.max(1) as f32, display.1.max(1) as f32);
        let (ww, wh) = (window.0.max(1) as f32, window.1.max(1) as f32);
        let fixed = |zoom: f32| {
            let (pw, ph) = (ww / zoom, wh / zoom);
            let (left, bottom) = (-(pw - dw) / 2.0, -(ph - dh) / 2.0);
            orthographic(left, left + pw, bottom, bottom + ph, self.near, self.far)
        };
        let proj = match self.projection {
            ScreenProjection::Stretch => orthographic(0.0, dw, 0.0, dh, self.near, self.far),
            ScreenProjection::Fixed { zoom } => fixed(zoom),
            ScreenProjection::FixedFit => fixed((ww / dw).min(wh / dh)),
            ScreenProjection::Camera => self.camera_projection,
        };
        (self.view, proj)
    }

    /// A `use_*_projection` message: `near` and `far` default to -1 and 1, `zoom` to 1, as the
    /// default render script's do.
    fn choose(&mut self, projection: ScreenProjection, data: &MsgValue) -> Result<(), String> {
        let number = |k: &str, default: f32| match data.get(k) {
            None => Ok(default),
            Some(MsgValue::Number(n)) if n.is_finite() => Ok(*n as f32),
            Some(_) => Err(format!("'{k}' must be a finite number")),
        };
        let (near, far) = (number("near", -1.0)?, number("far", 1.0)?);
        if near == far {
            return Err("'near' and 'far' must differ".into());
        }
        let projection = match projection {
            ScreenProjection::Fixed { .. } => match number("zoom", 1.0)? {
                zoom if zoom > 0.0 => ScreenProjection::Fixed { zoom },
                _ => return Err("'zoom' must be above 0".into()),
            },
            other => other,
        };
        *self = ScreenView { projection, near, far, chosen: true, ..*self };
        Ok(())
    }
}

#[derive(Default)]
pub struct RenderRequests {
    pub texts: Vec<DebugText>,
    pub lines: Vec<DebugLine>,
    /// Set by `clear_color`; stays until changed, as in Defold's render script.
    pub clear_color: Option<[f32; 4]>,
    /// The window size the last `resize` asked for, until the app applies it.
    pub resize: Option<(u32, u32)>,
    /// The view without a camera component.
    pub screen: ScreenView,
    warned: HashSet<u64>,
    dropped: bool,
    /// Characters of this frame's `texts`.
    glyphs: usize,
    glyphs_cut: bool,
}

/// Whether `@render:` message `id` is one the engine draws itself (`draw_text`, `draw_line`),
/// which a project's render script never sees.
pub fn engine_draws(id: u64) -> bool {
    id == ids().draw_text || id == ids().draw_line
}

/// Whether `@render:` message `id` is `resize`, which the window takes even when a render
/// script is running.
pub fn is_resize(id: u64) -> bool {
    id == ids().resize
}

/// The sockets the runtime answers instead of a game object.
pub fn is_render_socket(socket: u64) -> bool {
    socket == ids().render
}

pub fn is_system_socket(socket: u64) -> bool {
    socket == ids().system
}

/// The first key of table `data` that is not in `known`, quoted for a message.
fn unknown_field(data: &MsgValue, known: &[&str]) -> Option<String> {
    let MsgValue::Table(entries) = data else { return None };
    entries.iter().find_map(|(k, _)| match k {
        MsgValue::String(s) if known.contains(&s.as_str()) => None,
        MsgValue::String(s) => Some(format!("'{s}'")),
        other => Some(format!("{other:?}")),
    })
}

fn vec3(v: Option<&MsgValue>) -> Option<[f32; 3]> {
    match v {
        Some(MsgValue::Vector3(a)) => Some(*a),
        Some(MsgValue::Vector4([x, y, z, _])) => Some([*x, *y, *z]),
        _ => None,
    }
}

fn color(v: Option<&MsgValue>, default: [f32; 4]) -> [f32; 4] {
    match v {
        Some(MsgValue::Vector4(a)) => *a,
        Some(MsgValue::Vector3([r, g, b])) => [*r, *g, *b, 1.0],
        _ => default,
    }
}

impl RenderRequests {
    /// Forgets this frame's texts and lines (after it was drawn).
    pub fn end_frame(&mut self) {
        self.texts.clear();
        self.lines.clear();
        self.dropped = false;
        self.glyphs = 0;
        self.glyphs_cut = false;
    }

    /// `text` cut to what is left of this frame's glyph budget (None when nothing is).
    fn within_glyph_budget(&mut self, mut text: String) -> Option<String> {
        let left = MAX_GLYPHS_PER_FRAME - self.glyphs;
        let fits = match text.char_indices().nth(left) {
            None => true,
            Some((cut, _)) => {
                text.truncate(cut);
                false
            }
        };
        if !fits && !self.glyphs_cut {
            self.glyphs_cut = true;
            log::warn!(
                "@render: more than {MAX_GLYPHS_PER_FRAME} characters of draw_text this frame; the rest are cut"
            );
        }
        self.glyphs += text.chars().count();
        (!text.is_empty()).then_some(text)
    }

    /// A world-space line drawn over the scene this frame (the physics debug view), within
    /// the frame's budget; false once it is spent.
    pub fn line(&mut self, start: [f32; 3], end: [f32; 3], color: [f32; 4]) -> bool {
        let room = self.room();
        if room {
            self.lines.push(DebugLine { start, end, color });
        }
        room
    }

    fn room(&mut self) -> bool {
        if self.texts.len() + self.lines.len() < MAX_PER_FRAME {
            return true;
        }
        if !self.dropped {
            self.dropped = true;
            log::warn!("@render: more than {MAX_PER_FRAME} draw_text/draw_line this frame; the rest are dropped");
        }
        false
    }

    /// One message to `@render:`; unknown ones warn once per message id.
    pub fn render_message(&mut self, m: &Message) {
        let data = match decode(&m.data) {
            Ok(d) => d,
            Err(e) => return log::error!("@render: {}: {e}", name_of(m.id)),
        };
        if m.id == ids().draw_text {
            if let Some(field) = unknown_field(&data, &DRAW_TEXT_FIELDS) {
                return log::error!(
                    "@render: draw_text has no field {field} (its fields: {}); the text is not drawn",
                    DRAW_TEXT_FIELDS.join(", ")
                );
            }
            let text = match data.get("text") {
                Some(MsgValue::String(s)) => s.clone(),
                _ => return log::error!("@render: draw_text needs a string 'text'"),
            };
            let size = match data.get("size") {
                None => DEFAULT_TEXT_SIZE,
                Some(MsgValue::Number(n)) if *n > 0.0 && *n <= MAX_TEXT_SIZE as f64 => *n as f32,
                Some(_) => {
                    return log::error!(
                        "@render: draw_text 'size' must be a number above 0 and at most {MAX_TEXT_SIZE}; the text is not drawn"
                    );
                }
            };
            let p = vec3(data.get("position")).unwrap_or([0.0; 3]);
            if self.room()
                && let Some(text) = self.within_glyph_budget(text)
            {
                self.texts.push(DebugText { text, x: p[0], y: p[1], color: color(data.get("color"), [1.0; 4]), size });
            }
        } else if m.id == ids().draw_line {
            let (Some(start), Some(end)) = (vec3(data.get("start_point")), vec3(data.get("end_point"))) else {
                return log::error!("@render: draw_line needs vector3 'start_point' and 'end_point'");
            };
            if self.room() {
                self.lines.push(DebugLine { start, end, color: color(data.get("color"), [1.0; 4]) });
            }
        } else if m.id == ids().clear_color {
            match data.get("color") {
                Some(MsgValue::Vector4(c)) => self.clear_color = Some(*c),
                _ => log::error!("@render: clear_color needs a vector4 'color'"),
            }
        } else if m.id == ids().resize {
            let side = |k: &str| match data.get(k) {
                Some(MsgValue::Number(n)) => window_side(*n),
                _ => None,
            };
            match (side("width"), side("height")) {
                (Some(w), Some(h)) => self.resize = Some((w, h)),
                _ => log::error!(
                    "@render: resize needs whole numbers 'width' and 'height' from 1 to {MAX_WINDOW_SIDE}; the window keeps its size"
                ),
            }
        } else if let Some(projection) = projection_of(m.id) {
            if let Err(e) = self.screen.choose(projection, &data) {
                log::error!("@render: {}: {e}; the projection stays as it was", name_of(m.id));
            }
        } else if m.id == ids().use_camera_projection {
            self.screen.projection = ScreenProjection::Camera;
            self.screen.chosen = true;
        } else if m.id == ids().set_view_projection {
            let matrix = |k: &str| match data.get(k) {
                Some(MsgValue::Matrix4(m)) if m.iter().all(|v| v.is_finite()) => Some(Mat4::from_cols_array(m)),
                _ => None,
            };
            match (matrix("view"), data.get("projection").map(|_| matrix("projection"))) {
                (Some(view), Some(Some(p))) => (self.screen.view, self.screen.camera_projection) = (view, p),
                (Some(view), None) => self.screen.view = view,
                _ => log::error!("@render: set_view_projection needs a finite matrix4 'view' (and 'projection')"),
            }
        } else {
            self.warn_once("@render", m.id);
        }
    }

    /// A message to `@system:` (Defold's exit, reboot, profiler toggles …): none is handled
    /// yet; each warns once, naming it.
    pub fn system_message(&mut self, m: &Message) {
        self.warn_once("@system", m.id);
    }

    fn warn_once(&mut self, socket: &str, id: u64) {
        if self.warned.insert(id) {
            log::warn!("{socket}: message '{}' is not supported by Sinew and is ignored", name_of(id));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::message::encode;

    fn table(fields: &[(&str, MsgValue)]) -> MsgValue {
        MsgValue::Table(fields.iter().map(|(k, v)| (MsgValue::String(k.to_string()), v.clone())).collect())
    }

    fn draw_text(fields: &[(&str, MsgValue)]) -> Message {
        let mut data = Vec::new();
        encode(&table(fields), &mut data);
        Message::new(Default::default(), Default::default(), hash_str("draw_text"), data)
    }

    fn text(s: &str) -> (&'static str, MsgValue) {
        ("text", MsgValue::String(s.to_string()))
    }

    fn message(id: &str, fields: &[(&str, MsgValue)]) -> Message {
        let mut data = Vec::new();
        encode(&table(fields), &mut data);
        Message::new(Default::default(), Default::default(), hash_str(id), data)
    }

    /// `resize` asks for a window size the app applies; a size that is not a whole number from 1
    /// to the window limit leaves the request as it was.
    #[test]
    fn resize_takes_whole_sizes_in_range() {
        let mut r = RenderRequests::default();
        let size =
            |w: f64, h: f64| message("resize", &[("width", MsgValue::Number(w)), ("height", MsgValue::Number(h))]);
        r.render_message(&size(740.0, 720.0));
        assert_eq!(r.resize, Some((740, 720)));
        for (w, h) in [(0.0, 10.0), (10.5, 10.0), (f64::NAN, 1.0), (1.0, f64::from(MAX_WINDOW_SIDE) + 1.0), (-5.0, 5.0)]
        {
            r.render_message(&size(w, h));
            assert_eq!(r.resize, Some((740, 720)), "{w}x{h} is refused");
        }
        r.render_message(&message("resize", &[("width", MsgValue::String("wide".into()))]));
        assert_eq!(r.resize, Some((740, 720)));
        r.render_message(&size(1.0, f64::from(MAX_WINDOW_SIDE)));
        assert_eq!(r.resize, Some((1, MAX_WINDOW_SIDE)));
    }

    /// Issue 32's glyph bomb: 4,096 texts of 1,920 glyphs a frame. What is kept stays within the
    /// budget (the overlay's memory follows it), cut at a character, and the next frame starts over.
    #[test]
    fn draw_text_glyphs_are_budgeted_per_frame() {
        let mut r = RenderRequests::default();
        let long = "é".repeat(1920);
        for _ in 0..MAX_PER_FRAME {
            r.render_message(&draw_text(&[text(&long)]));
        }
        let kept: usize = r.texts.iter().map(|t| t.text.chars().count()).sum();
        assert_eq!(kept, MAX_GLYPHS_PER_FRAME);
        assert_eq!(r.texts.len(), MAX_GLYPHS_PER_FRAME.div_ceil(1920));
        assert_eq!(r.texts.last().map(|t| t.text.chars().count()), Some(MAX_GLYPHS_PER_FRAME % 1920));
        r.end_frame();
        r.render_message(&draw_text(&[text("again")]));
        assert_eq!(r.texts.len(), 1);
    }

    /// Issue 31: `size` was ignored without a word; any field draw_text does not read is
    /// refused (issue 35: `size` is read now).
    #[test]
    fn draw_text_refuses_unknown_fields() {
        let mut r = RenderRequests::default();
        r.render_message(&draw_text(&[text("big"), ("font_size", MsgValue::Number(40.0))]));
        assert!(r.texts.is_empty());
        let fields = table(&[text("x"), ("font", MsgValue::Number(1.0))]);
        assert_eq!(unknown_field(&fields, &DRAW_TEXT_FIELDS).as_deref(), Some("'font'"));
        let known =
            [text("ok"), ("position", MsgValue::Vector3([1.0, 2.0, 0.0])), ("color", MsgValue::Vector4([1.0; 4]))];
        r.render_message(&draw_text(&known));
        assert_eq!(r.texts.len(), 1);
        assert_eq!(r.texts[0].size, DEFAULT_TEXT_SIZE);
    }

    /// Issue 35: `draw_text` takes a size; a size that is not a number in range is refused.
    #[test]
    fn draw_text_takes_a_size() {
        let mut r = RenderRequests::default();
        r.render_message(&draw_text(&[text("big"), ("size", MsgValue::Number(40.0))]));
        assert_eq!(r.texts.len(), 1);
        assert_eq!(r.texts[0].size, 40.0);
        for bad in
            [MsgValue::Number(0.0), MsgValue::Number(1e9), MsgValue::Number(f64::NAN), MsgValue::String("9".into())]
        {
            r.render_message(&draw_text(&[text("no"), ("size", bad)]));
        }
        assert_eq!(r.texts.len(), 1);
    }

    /// Where world point `p` lands in normalised device coordinates.
    fn clip(r: &RenderRequests, display: (u32, u32), window: (u32, u32), p: [f32; 3]) -> glam::Vec3 {
        let (view, proj) = r.screen.matrices(display, window);
        (proj * view).project_point3(glam::Vec3::from(p))
    }

    fn near(a: glam::Vec3, b: [f32; 3]) -> bool {
        a.abs_diff_eq(glam::Vec3::from(b), 1e-5)
    }

    /// Without a camera component the world is seen as Defold's default render script shows it:
    /// stretched over the window, near -1 and far 1, until a script asks for another projection.
    #[test]
    fn the_default_render_scripts_projections() {
        let mut r = RenderRequests::default();
        let (display, wide) = ((720, 360), (1440, 360));
        // Stretch: the display's corners are the window's, whatever its shape.
        assert!(near(clip(&r, display, wide, [0.0, 0.0, 0.0]), [-1.0, -1.0, 0.0]));
        assert!(near(clip(&r, display, wide, [720.0, 360.0, 0.0]), [1.0, 1.0, 0.0]));
        // z 1 is at the near plane (-1 in clip space), -1 at the far one.
        assert!(near(clip(&r, display, wide, [10.0, 10.0, 1.0]), [-1.0 + 20.0 / 720.0, -1.0 + 20.0 / 360.0, -1.0]));
        assert!(!r.screen.chosen);

        // Fixed fit in a window twice as wide: the display's height fills it, centred, with as
        // much again to the sides.
        r.render_message(&message("use_fixed_fit_projection", &[("near", MsgValue::Number(-5.0))]));
        assert!(r.screen.chosen);
        // (z 0 is 5/6 of the way from near -5 to far 1.)
        assert!(near(clip(&r, display, wide, [0.0, 0.0, 0.0]), [-0.5, -1.0, 2.0 / 3.0]));
        assert!(near(clip(&r, display, wide, [720.0, 360.0, 0.0]), [0.5, 1.0, 2.0 / 3.0]));
        assert!(near(clip(&r, display, wide, [360.0, 180.0, 5.0]), [0.0, 0.0, -1.0]), "near -5, far 1 (default)");

        // Fixed with zoom 2 in a window of the display's size: the middle half, twice as large.
        r.render_message(&message("use_fixed_projection", &[("zoom", MsgValue::Number(2.0))]));
        assert!(near(clip(&r, display, display, [180.0, 90.0, 0.0]), [-1.0, -1.0, 0.0]));
        assert!(near(clip(&r, display, display, [540.0, 270.0, 0.0]), [1.0, 1.0, 0.0]));

        // A bad field is refused whole, naming the field; the projection stays.
        for bad in [
            message("use_fixed_projection", &[("zoom", MsgValue::Number(0.0))]),
            message("use_stretch_projection", &[("near", MsgValue::Number(1.0))]),
            message("use_fixed_fit_projection", &[("far", MsgValue::String("1".into()))]),
        ] {
            r.render_message(&bad);
            assert_eq!(r.screen.projection, ScreenProjection::Fixed { zoom: 2.0 });
        }

        // set_view_projection's view moves the world; use_camera_projection takes its projection.
        let view = Mat4::from_translation(glam::Vec3::new(-100.0, 0.0, 0.0));
        let proj = orthographic(0.0, 10.0, 0.0, 10.0, -1.0, 1.0);
        let matrix = |m: Mat4| MsgValue::Matrix4(m.to_cols_array());
        r.render_message(&message("use_stretch_projection", &[]));
        r.render_message(&message("set_view_projection", &[("view", matrix(view)), ("projection", matrix(proj))]));
        assert!(near(clip(&r, display, wide, [100.0, 0.0, 0.0]), [-1.0, -1.0, 0.0]));
        r.render_message(&message("use_camera_projection", &[]));
        assert!(near(clip(&r, display, wide, [110.0, 10.0, 0.0]), [1.0, 1.0, 0.0]));
        assert!(r.warned.is_empty(), "none of these is an unknown message");
    }
}
