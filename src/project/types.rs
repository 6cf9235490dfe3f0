//! What a loaded project looks like to the runtime.
use crate::project::json::Located;

/// `project.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectSettings {
    pub title: String,
    pub main_collection: String,
    pub width: u32,
    pub height: u32,
    pub vsync: bool,
    pub clear_color: [f32; 4],
    pub update_frequency: f32,
    /// The `.input_binding` resource (input.md section 1).
    pub input: String,
    /// Calls of `fixed_update` per second; 0 turns it off.
    pub fixed_update_frequency: f32,
    /// Seconds before the first key repeat, then between repeats.
    pub repeat_delay: f32,
    pub repeat_interval: f32,
    /// Seconds one entry into Lua may run before the script is stopped; 0 = no limit.
    pub script_time_limit: f32,
    /// Game objects the running collection may hold at once (`factory.create` refuses more).
    pub max_instances: u32,
    /// Without a camera component, show the world as Defold's default render script does
    /// (orthographic, one unit per pixel of `width` x `height`, origin at the bottom left)
    /// instead of framing the scene: set for Defold projects, whose 2D examples rely on it.
    pub screen_view: bool,
    /// How the built-in model material lights, tone maps and exposes the picture.
    pub look: Look,
    /// `physics` (engine.md section 3).
    pub physics: crate::project::physics::PhysicsSettings,
    /// Files and folders a bundle packs besides what the game reaches by itself (the resources
    /// `sys.load_resource` reads): Defold's `[project] custom_resources`.
    pub custom_resources: Vec<String>,
    /// The `.display_profiles` GUI layouts are chosen from (`[display] display_profiles`).
    pub display_profiles: String,
    /// The `.render` file whose render script draws the game (`[bootstrap] render`); empty for
    /// Sinew's own pipeline, which draws what Defold's default render script draws.
    pub render: String,
}

/// The project-wide lighting and output settings the renderer reads each frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    /// Linear RGB light every surface gets, whatever its facing; replaced by the enabled
    /// `ambient` light components while there are any.
    pub ambient: [f32; 3],
    pub shading: Shading,
    pub tone_mapping: ToneMapping,
    /// Linear scale applied before tone mapping (three.js `toneMappingExposure`).
    pub exposure: f32,
    /// The first directional light's shadow map.
    pub shadows: Shadows,
    /// How sprite, particle and tile map pages are sampled where no material sampler says.
    pub texture_filter: TextureFilter,
}

/// `default_texture_min_filter` / `default_texture_mag_filter` (project.json, and Defold's
/// `[graphics]` keys in game.project).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureFilter {
    pub min: crate::project::material::FilterMode,
    pub mag: crate::project::material::FilterMode,
}

impl TextureFilter {
    /// Sinew's own projects: pixel-exact sprites (what its pictures were made with).
    pub const NEAREST: TextureFilter = TextureFilter {
        min: crate::project::material::FilterMode::Nearest,
        mag: crate::project::material::FilterMode::Nearest,
    };
    /// Defold's default when game.project names none: smooth.
    pub const LINEAR: TextureFilter = TextureFilter {
        min: crate::project::material::FilterMode::Linear,
        mag: crate::project::material::FilterMode::Linear,
    };
}

/// `shadows`, `shadow_map_size` and `shadow_distance` in project.json (docs/formats.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shadows {
    /// Off by default: the depth pass costs a second draw of every caster, which a project
    /// that shows no shadows should not pay (and existing pictures stay as they were).
    pub enabled: bool,
    /// Side of the square depth texture in texels.
    pub map_size: u32,
    /// How far from the camera (view depth, world units) shadows reach: the light's frustum is
    /// fitted to the view frustum up to here, so texels are not spread over a distant horizon.
    pub distance: f32,
}

/// Smallest and largest `shadow_map_size`: below, a shadow is a few blurry texels; above,
/// the depth texture alone passes 256 MB and most drivers' texture size limits.
pub const SHADOW_MAP_SIZES: std::ops::RangeInclusive<u32> = 256..=8192;

impl Default for Shadows {
    fn default() -> Shadows {
        Shadows { enabled: false, map_size: 2048, distance: 60.0 }
    }
}

/// Default ambient light: a quarter grey, so faces turned away from the light keep their colour.
pub const DEFAULT_AMBIENT: [f32; 3] = [0.25, 0.25, 0.25];

impl Default for Look {
    fn default() -> Look {
        Look {
            ambient: DEFAULT_AMBIENT,
            shading: Shading::Lambert,
            tone_mapping: ToneMapping::None,
            exposure: 1.0,
            shadows: Shadows::default(),
            texture_filter: TextureFilter::NEAREST,
        }
    }
}

/// The built-in model material's lighting model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shading {
    /// Diffuse only: colour x (ambient + N.L x light).
    Lambert,
    /// glTF 2.0 metallic-roughness (the specification's Appendix B BRDF).
    Standard,
}

/// What maps the linear result into the frame buffer's 0..1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToneMapping {
    /// Clamp: colours stay as authored.
    None,
    /// Narkowicz's fit of ACES filmic, as three.js's `ACESFilmicToneMapping` scales it.
    Aces,
    /// AgX (Troy Sobotka's base transform, three.js's `AgXToneMapping`).
    Agx,
}

/// A collection flattened into game objects, parents always before their children.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectionSpec {
    /// The bootstrap collection's `name` (the URL socket, e.g. `main`).
    pub name: String,
    pub objects: Vec<ObjectSpec>,
}

/// One game object instance.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectSpec {
    /// Absolute id path: `/hero`, or `/level/door` inside a nested collection instance.
    pub path: String,
    /// The collection path prefix used to resolve relative ids from this object's scripts:
    /// `/` at the top level, `/level/` inside the instance `level`.
    pub collection_prefix: String,
    /// Index of the parent in `CollectionSpec::objects` (always smaller than this index).
    pub parent: Option<usize>,
    pub position: [f32; 3],
    /// Quaternion x, y, z, w.
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
    pub components: Vec<ComponentSpec>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ComponentSpec {
    pub id: String,
    pub kind: ComponentKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ComponentKind {
    /// Each override keeps where it was written: whether it fits the script is only known once
    /// the script's `go.property` calls have run, and that error must still point into the file.
    Script {
        script: String,
        properties: Vec<(String, Located<PropertyValue>)>,
    },
    Model(ModelSpec),
    Camera(CameraSpec),
    Light(LightSpec),
    /// `factory` and `collectionfactory`: the prototype is loaded (and checked) with the
    /// collection, so `factory.create` never reads a file or meets a broken prototype.
    Factory(FactorySpec),
    /// `collectionproxy`: a collection loaded into a world of its own on `load`.
    CollectionProxy(ProxySpec),
    Label(LabelSpec),
    Sound(crate::project::sound::SoundSpec),
    /// Boxed: a collision object's shapes would otherwise widen every component description.
    CollisionObject(Box<crate::project::physics::CollisionObjectSpec>),
    Sprite(crate::project::sprite::SpriteSpec),
    /// A `gui` component: its scene, loaded and checked with the collection.
    Gui(crate::project::gui::GuiSpec),
    /// A `particlefx` component: its effect, with every emitter's atlas, loaded with the
    /// collection (shared by the components naming the same file).
    ParticleFx(crate::project::particlefx::ParticleFxComponent),
    TileMap(crate::project::tilemap::TileMapComponent),
}

/// A `label` component (gameplay.md section 3): text drawn at its object's position, facing
/// the camera, in its font (the built-in face without one).
#[derive(Debug, Clone, PartialEq)]
pub struct LabelSpec {
    /// UTF-8; `\n` starts a new line.
    pub text: String,
    /// Pixels per em at scale 1 (the font's size when the label names a font).
    pub size: f32,
    pub color: [f32; 4],
    /// Without a font: drawn around each glyph (a twelfth of the size wide) when its alpha is
    /// above 0. With one: as wide as the font's `outline_width`, times its `outline_alpha`
    /// (Defold's: a font without an outline draws none).
    pub outline: [f32; 4],
    /// Drawn under the text at the font's shadow offset, times its `shadow_alpha`.
    pub shadow: [f32; 4],
    pub pivot: Pivot,
    /// The label's own offset in its game object (engine.md section 2); labels face the
    /// camera, so a component rotation does not turn them.
    pub position: [f32; 3],
    /// The `scale` property's first value (Defold's label scale times the component's).
    pub scale: [f32; 3],
    pub layout: LabelLayout,
}

/// How a label's text is laid out and sized, beyond what scripts set: each instance keeps a
/// copy of its spec's.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelLayout {
    /// `None`: the built-in face.
    pub font: Option<LabelFont>,
    /// Lines break at word boundaries to this width in pixels at scale 1 (Defold's
    /// `line_break` with the label's `size.x`); `None`: only at `\n`.
    pub wrap: Option<f32>,
    /// Line height factor (Defold's `leading`).
    pub leading: f32,
    /// Extra advance after each character, in ems (Defold's `tracking`).
    pub tracking: f32,
    /// Under an orthographic camera, `size` is in world units (Defold's labels: a zoomed-in
    /// camera enlarges the text); otherwise, and always under a perspective one, screen pixels.
    pub world_size: bool,
}

impl Default for LabelLayout {
    fn default() -> Self {
        LabelLayout { font: None, wrap: None, leading: 1.0, tracking: 0.0, world_size: false }
    }
}

impl Default for LabelSpec {
    /// An empty label in the built-in face: white, centred, no outline.
    fn default() -> Self {
        LabelSpec {
            text: String::new(),
            size: DEFAULT_LABEL_SIZE,
            color: [1.0; 4],
            outline: [0.0; 4],
            shadow: [0.0, 0.0, 0.0, 1.0],
            pivot: Pivot::Center,
            position: [0.0; 3],
            scale: [1.0; 3],
            layout: LabelLayout::default(),
        }
    }
}

/// A label's font file, loaded with the collection. Two are equal when they name the same
/// file with the same settings (a collection compares its specs on hot reload, and a label
/// whose font did not change keeps the text its script gave it).
#[derive(Debug, Clone)]
pub struct LabelFont {
    pub path: String,
    pub font: std::sync::Arc<crate::project::font::file::Font>,
}

impl PartialEq for LabelFont {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (&self.font, &other.font);
        self.path == other.path
            && (a.size, a.alpha, a.outline_width, a.outline_alpha, a.shadow_alpha, a.shadow)
                == (b.size, b.alpha, b.outline_width, b.outline_alpha, b.shadow_alpha, b.shadow)
    }
}

/// `size` (pixels per em of the built-in face) when a label gives none, like `draw_text`.
pub const DEFAULT_LABEL_SIZE: f32 = 16.0;

/// Which point of the text block sits at the object's position (Defold's pivots).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pivot {
    Center,
    N,
    NE,
    E,
    SE,
    S,
    SW,
    W,
    NW,
}

impl Pivot {
    pub const NAMES: &'static str = "center, n, ne, e, se, s, sw, w or nw (or Defold's PIVOT_CENTER, PIVOT_N, ...)";

    /// Short names as in Defold's editor, or the `PIVOT_*` constants of its files.
    pub fn parse(s: &str) -> Option<Pivot> {
        let s = s.strip_prefix("PIVOT_").map(str::to_ascii_lowercase).unwrap_or_else(|| s.to_string());
        Some(match s.as_str() {
            "center" => Pivot::Center,
            "n" => Pivot::N,
            "ne" => Pivot::NE,
            "e" => Pivot::E,
            "se" => Pivot::SE,
            "s" => Pivot::S,
            "sw" => Pivot::SW,
            "w" => Pivot::W,
            "nw" => Pivot::NW,
            _ => return None,
        })
    }

    /// The pivot as fractions of the text block from its left and bottom edges.
    pub fn anchor(self) -> [f32; 2] {
        match self {
            Pivot::Center => [0.5, 0.5],
            Pivot::N => [0.5, 1.0],
            Pivot::NE => [1.0, 1.0],
            Pivot::E => [1.0, 0.5],
            Pivot::SE => [1.0, 0.0],
            Pivot::S => [0.5, 0.0],
            Pivot::SW => [0.0, 0.0],
            Pivot::W => [0.0, 0.5],
            Pivot::NW => [0.0, 1.0],
        }
    }
}

/// A factory's prototype, flattened like a collection: one object for a `.go`, every object of
/// a `.collection` (paths like `/root`, `/root_child`). Shared, since every object using a
/// prototype holding a factory would otherwise copy the whole nested prototype.
/// A `collectionproxy` component (engine.md section 7): the collection it loads into a world of
/// its own, loaded and checked with the collection holding the proxy.
#[derive(Debug, Clone, PartialEq)]
pub struct ProxySpec {
    /// The `.collection` resource.
    pub collection: String,
    /// Its `name`: the URL socket of its world (`level:/hero`).
    pub name: String,
    /// Its objects, flattened and checked with the collection that holds the proxy.
    pub objects: std::sync::Arc<Vec<ObjectSpec>>,
}

/// A `factory` or `collectionfactory` component.
#[derive(Debug, Clone, PartialEq)]
pub struct FactorySpec {
    /// The `.go` or `.collection` resource.
    pub prototype: String,
    /// True for a `collectionfactory`.
    pub collection: bool,
    pub objects: std::sync::Arc<Vec<ObjectSpec>>,
}

/// The widest or tallest window (or `--size`) accepted: GL's usual largest framebuffer side,
/// and already a gigabyte of pixels.
pub const MAX_WINDOW_SIDE: u32 = 16384;

/// `v` as a window or screen side: a whole number from 1 to [`MAX_WINDOW_SIDE`], else `None`
/// (NaN included).
pub fn window_side(v: f64) -> Option<u32> {
    (v.fract() == 0.0 && (1.0..=f64::from(MAX_WINDOW_SIDE)).contains(&v)).then_some(v as u32)
}

/// `max_instances` when project.json gives none (Defold's default collection capacity is
/// smaller; a runtime with flat arrays has no reason to be stingy).
pub const DEFAULT_MAX_INSTANCES: u32 = 65_536;

/// A `go.property` override from a collection or game object file.
#[derive(Debug, Clone, PartialEq)]
pub enum PropertyValue {
    Number(f64),
    Bool(bool),
    String(String),
    /// From `"hash:name"`: the string that is hashed.
    Hash(String),
    Vector3([f32; 3]),
    Vector4([f32; 4]),
    /// From `"url:main:/hero#model"`: the URL string.
    Url(String),
}

/// A `.model` file or the same fields inline in a component.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSpec {
    /// The `.model` resource this came from, or the referencing collection for inline models.
    pub source: String,
    pub mesh: String,
    pub skeleton: String,
    pub animations: Vec<String>,
    /// Located: the name is checked against the animation set after the glTF files are imported.
    pub default_animation: Option<Located<String>>,
    pub material: String,
    /// Sampler name → texture resource path.
    pub textures: Vec<(String, String)>,
    pub create_go_bones: bool,
    /// Masks, IK chains and events (layers.md); names are checked against the rig later.
    pub rig_extras: Box<RigExtrasSpec>,
    /// `joint_limits` (rigs.md section 3), over the limits a `.bon` rig gives its bones.
    pub joint_limits: Vec<JointLimitSpec>,
    /// The model's own placement in its game object (engine.md section 2): it draws at the
    /// object's world transform times this. Boxed: most models have none, and every
    /// component description would otherwise grow by it.
    pub transform: Box<ComponentTransform>,
    /// Sinew's own fields (no Defold counterpart): whether the model is drawn into the shadow
    /// map and whether shadows darken it, when the project's `shadows` is on.
    pub cast_shadows: bool,
    pub receive_shadows: bool,
}

/// A component's position, rotation and scale relative to its game object.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ComponentTransform {
    pub position: [f32; 3],
    /// Quaternion x, y, z, w.
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
}

impl ComponentTransform {
    pub const IDENTITY: ComponentTransform =
        ComponentTransform { position: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0], scale: [1.0; 3] };

    /// None for the identity, so the common case costs no matrix product per frame.
    pub fn matrix(&self) -> Option<glam::Mat4> {
        (*self != Self::IDENTITY).then(|| {
            glam::Mat4::from_scale_rotation_translation(
                self.scale.into(),
                glam::Quat::from_array(self.rotation),
                self.position.into(),
            )
        })
    }
}

impl Default for ComponentTransform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

/// The `.model` fields beyond Defold's (layers.md): `masks`, `ik` and `events`, in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RigExtrasSpec {
    /// Mask name → joint names (each joint with its descendants).
    pub masks: Vec<(String, Vec<String>)>,
    pub ik: Vec<IkChainSpec>,
    /// Clip name → its events, by time.
    pub events: Vec<(String, Vec<EventSpec>)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct IkChainSpec {
    pub name: String,
    pub kind: IkKindSpec,
}

#[derive(Debug, Clone, PartialEq)]
pub enum IkKindSpec {
    /// Root, middle and end joint; the middle joint bends toward `pole` (model space).
    TwoBone { joints: [String; 3], pole: [f32; 3] },
    /// `forward` (joint space) points at the target, `up` (joint space) stays near model up.
    Aim { joint: String, forward: [f32; 3], up: [f32; 3] },
}

#[derive(Debug, Clone, PartialEq)]
pub struct EventSpec {
    pub time: f32,
    pub id: String,
}

/// One joint's rotation limits: degrees per axis, in the convention of the `euler` property.
#[derive(Debug, Clone, PartialEq)]
pub struct JointLimitSpec {
    pub joint: String,
    pub min: [f32; 3],
    pub max: [f32; 3],
}

#[derive(Debug, Clone, PartialEq)]
pub struct CameraSpec {
    pub fov: f32,
    pub near: f32,
    pub far: f32,
    pub orthographic: bool,
    pub ortho_height: f32,
    /// Defold's `orthographic_zoom`: the view shows `ortho_height / zoom` world units.
    pub zoom: f32,
    /// How an orthographic camera's zoom is found (Defold's `orthographic_mode`).
    pub ortho_mode: OrthoMode,
    /// The design area's width / height (a Defold camera's: game.project's display), which
    /// the auto modes fit into or cover the window with; 0: the window's own.
    pub design_aspect: f32,
}

/// Defold's `OrthoZoomMode` (camera_ddf.proto), its values those of `camera.ORTHO_MODE_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrthoMode {
    /// `orthographic_zoom` as set.
    Fixed = 0,
    /// The design area fits inside the window (the largest zoom that shows all of it).
    AutoFit = 1,
    /// The design area covers the window (the smallest zoom that leaves no border).
    AutoCover = 2,
}

impl OrthoMode {
    pub const NAMES: &'static str = "fixed, auto_fit or auto_cover";
    pub const ALL: [OrthoMode; 3] = [OrthoMode::Fixed, OrthoMode::AutoFit, OrthoMode::AutoCover];

    /// Sinew's lower-case names, or Defold's `ORTHO_MODE_*` constants.
    pub fn parse(s: &str) -> Option<OrthoMode> {
        let s = s.strip_prefix("ORTHO_MODE_").map(str::to_ascii_lowercase).unwrap_or_else(|| s.to_string());
        Self::ALL.into_iter().find(|m| m.name() == s)
    }

    pub fn name(self) -> &'static str {
        match self {
            OrthoMode::Fixed => "fixed",
            OrthoMode::AutoFit => "auto_fit",
            OrthoMode::AutoCover => "auto_cover",
        }
    }

    /// The mode of a `camera.ORTHO_MODE_*` value.
    pub fn from_number(v: f32) -> Option<OrthoMode> {
        Self::ALL.into_iter().find(|&m| m as i32 as f32 == v)
    }
}

impl CameraSpec {
    /// What would make the projection singular or flipped, if anything: the one check for the
    /// component fields and for `camera.set_*` / `go.set` at run time.
    pub fn problem(&self) -> Option<&'static str> {
        let finite = [self.fov, self.near, self.far, self.ortho_height, self.zoom].iter().all(|v| v.is_finite());
        if !finite {
            Some("camera values must be finite numbers")
        } else if self.far <= self.near {
            Some("far must be greater than near")
        } else if !self.orthographic && self.near <= 0.0 {
            Some("near must be positive for a perspective camera")
        } else if !self.orthographic && (self.fov <= 0.0 || self.fov >= std::f32::consts::PI) {
            Some("fov must be between 0 and pi radians")
        } else if self.orthographic && self.ortho_height <= 0.0 {
            Some("ortho_height must be positive")
        } else if self.zoom <= 0.0 {
            Some("orthographic_zoom must be positive")
        } else {
            None
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LightKind {
    Directional,
    Point,
    /// A point light shining into a cone about its game object's -Z (Defold's `spot_light`).
    Spot,
    /// Lights everything evenly: its colour x intensity replaces the project's `ambient`.
    Ambient,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LightSpec {
    pub kind: LightKind,
    pub color: [f32; 3],
    pub intensity: f32,
    /// A point light's reach: it falls off as Defold's `(1 - d / range)^2`, nothing past it;
    /// 0 (Sinew's default) falls off as `1 / (1 + d^2)` without end.
    pub range: f32,
    /// A spot light's cone, in degrees from its axis: full strength within `inner_cone`, fading
    /// to nothing at `outer_cone` (Defold's `inner_cone_angle` and `outer_cone_angle`); 0 for
    /// other kinds.
    pub inner_cone: f32,
    pub outer_cone: f32,
}

/// A spot light's cone when its file gives none (Defold's editor defaults), in degrees.
pub const DEFAULT_SPOT_CONE: [f32; 2] = [30.0, 45.0];

/// The built-in model material used when a model names none.
pub const DEFAULT_MODEL_MATERIAL: &str = "/builtins/materials/model.material";

/// `script_time_limit` when project.json gives none (seconds).
pub const DEFAULT_SCRIPT_TIME_LIMIT: f32 = 5.0;
