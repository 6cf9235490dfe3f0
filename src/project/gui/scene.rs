//! A `.gui` file checked and resolved: templates expanded, names of parents, fonts, textures
//! and layers turned into indices, enum names parsed, Defold's defaults applied. Every problem
//! of a scene is reported in one error, each at its `path:line:column`.
use super::{GuiDesc, LayoutDesc, NodeDesc};
use crate::base::error::LoadError;
use crate::project::Resources;
use crate::project::font::file::{Font, load_font};
use crate::project::json::Located;
use crate::project::particlefx::ParticleFxSpec;
use crate::project::sprite::Atlas;
use crate::project::types::Pivot;
use glam::{Quat, Vec3};
use std::collections::HashMap;
use std::sync::Arc;

/// Nodes per scene at most (Defold's `max_nodes` default is 512; its editor allows 8192).
pub const MAX_GUI_NODES: usize = 16384;
/// Templates nest at most this deep (a template naming itself is a cycle, reported as such).
const MAX_TEMPLATE_DEPTH: usize = 16;
/// Pie perimeters have at most this many vertices.
pub const MAX_PERIMETER_VERTICES: u32 = 1000;

/// A text node's line spacing, in lines, when its file names none (Defold's `text_leading`).
pub const DEFAULT_TEXT_LEADING: f32 = 1.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    Box,
    Text,
    Pie,
    /// A template's root: a transform for the template's nodes; draws nothing.
    Template,
    /// A particle effect (`GuiNode::effect`) played at the node (`gui.play_particlefx`).
    ParticleFx,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XAnchor {
    None,
    Left,
    Right,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YAnchor {
    None,
    Top,
    Bottom,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdjustMode {
    Fit,
    Zoom,
    Stretch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlendMode {
    Alpha,
    Add,
    Mult,
    Screen,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieBounds {
    Ellipse,
    Rectangle,
}

/// One texture a scene's nodes may show (RGBA8, rows top first): an image file, or the packed
/// page of an atlas or tile source.
#[derive(Debug, Clone)]
pub struct GuiImage {
    /// The name the scene's `textures` give it.
    pub name: String,
    /// The image, `.atlas` or `.tilesource` file.
    pub path: String,
    pub width: u32,
    pub height: u32,
    pub rgba: Arc<Vec<u8>>,
    /// An atlas's frames and flipbooks, packed by the sprites' packer (one source of truth for
    /// atlases); its page's pixels are moved into `rgba`, so they are held once.
    pub atlas: Option<Arc<Atlas>>,
}

impl GuiImage {
    /// Where frame `frame` of the atlas sits on the page, as `[u0, v0, u1, v1]` (v down from
    /// the page's top) and its size in pixels; the whole texture for an image or no frame.
    /// A scene texture showing `atlas` (its page moves into the image; the frames stay).
    pub fn of_atlas(name: &str, path: &str, mut atlas: Atlas) -> GuiImage {
        let rgba = Arc::new(std::mem::take(&mut atlas.rgba));
        GuiImage {
            name: name.to_string(),
            path: path.to_string(),
            width: atlas.width,
            height: atlas.height,
            rgba,
            atlas: Some(Arc::new(atlas)),
        }
    }

    pub fn frame_uv(&self, frame: Option<u32>) -> ([f32; 4], [f32; 2]) {
        let whole = ([0.0, 0.0, 1.0, 1.0], [self.width as f32, self.height as f32]);
        let Some(f) = frame.and_then(|k| self.atlas.as_ref()?.frames.get(k as usize)) else { return whole };
        let (w, h) = (self.width.max(1) as f32, self.height.max(1) as f32);
        let (x0, y0) = (f.x as f32 / w, f.y as f32 / h);
        let (x1, y1) = ((f.x + f.width) as f32 / w, (f.y + f.height) as f32 / h);
        ([x0, y0, x1, y1], [f.width as f32, f.height as f32])
    }
}

/// A node with every property resolved (the starting state `gui.reset_nodes` returns to).
#[derive(Debug, Clone)]
pub struct GuiNode {
    pub id: String,
    pub kind: NodeKind,
    pub parent: Option<usize>,
    pub position: Vec3,
    /// Derived from `euler` or set with it ([`GuiNode::set_euler`], [`GuiNode::set_rotation`]):
    /// what layout turns the node by.
    pub rotation: Quat,
    /// The node's rotation as Defold keeps it, degrees about x, y and z in Defold's order
    /// (`base::euler`): `gui.get_euler` returns the angles set, and a tween of `euler.z` on a
    /// node turned about two axes keeps the other two, where angles read back from the
    /// quaternion could come out as another triple for the same turn.
    pub euler: Vec3,
    pub scale: Vec3,
    pub size: [f32; 2],
    /// RGBA, the node's `alpha` folded into a.
    pub color: [f32; 4],
    pub inherit_alpha: bool,
    pub blend: BlendMode,
    pub pivot: Pivot,
    pub xanchor: XAnchor,
    pub yanchor: YAnchor,
    pub adjust_mode: AdjustMode,
    /// True: the node takes its texture's size.
    pub size_auto: bool,
    /// Index in [`GuiScene::layers`]; None: the parent's layer (or none).
    pub layer: Option<usize>,
    pub enabled: bool,
    pub visible: bool,
    /// Index in [`GuiScene::images`].
    pub texture: Option<usize>,
    /// Index into the texture's atlas's animations (`texture: "atlas/anim"`); None for an
    /// image, or an atlas shown as its whole page.
    pub animation: Option<u32>,
    /// Index into the atlas's frames shown now: the animation's first as loaded, then the
    /// flipbook's (`game::gui` runs the clocks).
    pub frame: u32,
    /// Border widths left, top, right, bottom in pixels of the texture.
    pub slice9: [f32; 4],
    pub text: String,
    /// Index in [`GuiScene::fonts`]; text nodes without one use the built-in font.
    pub font: Option<usize>,
    pub line_break: bool,
    pub outline: [f32; 4],
    pub shadow: [f32; 4],
    pub leading: f32,
    pub tracking: f32,
    pub clipping: bool,
    pub clipping_visible: bool,
    pub clipping_inverted: bool,
    pub outer_bounds: PieBounds,
    pub inner_radius: f32,
    pub perimeter_vertices: u32,
    pub pie_fill_angle: f32,
    /// Index in [`GuiScene::effects`]: a particle node's effect.
    pub effect: Option<usize>,
    /// Index in [`GuiScene::materials`] (box and pie nodes); `None`: the built-in drawing.
    pub material: Option<usize>,
    /// Its place among its siblings: they draw by (rank, index). A scene's nodes have 0 (file
    /// order); a node a script makes, reparents or moves (`gui.move_above`) gets one that puts
    /// it where Defold would.
    pub rank: u64,
    /// `gui.delete_node` removed it: never laid out, drawn or picked, and its handle refuses
    /// every call. Nodes keep their index (handles are indices), so it stays as a tombstone.
    pub deleted: bool,
}

#[derive(Debug, Clone)]
pub struct GuiScene {
    pub path: String,
    pub script: Option<String>,
    /// (name, font) in file order.
    pub fonts: Vec<(String, Font)>,
    /// The file each of `fonts` was read from (`.font` or TrueType): `go.get(gui, "fonts",
    /// { key = name })` answers its hash.
    pub font_files: Vec<String>,
    pub images: Vec<GuiImage>,
    pub layers: Vec<String>,
    /// Parents before their children, siblings in file order.
    pub nodes: Vec<GuiNode>,
    /// (name, effect) of the scene's `particlefxs`, in file order. Their emitters' atlases are
    /// among `images` (by the atlas's path), which hold the pixels.
    pub effects: Vec<(String, Arc<ParticleFxSpec>)>,
    /// (name, `.material` path) of the scene's `materials`, in file order
    /// ([`BUILTIN_GUI_MATERIAL`]: the built-in drawing); the scene's own `material`, when it
    /// is not the built-in one, is among them with an empty name.
    pub materials: Vec<(String, String)>,
    /// The scene's layouts in file order, each a whole node list parallel to `nodes` (the same
    /// nodes in the same order, the layout's fields over the default layout's).
    pub layouts: Vec<GuiLayout>,
}

/// One of a scene's `layouts`, named after the display profile it is for.
#[derive(Debug, Clone)]
pub struct GuiLayout {
    pub name: String,
    pub nodes: Vec<GuiNode>,
}

/// Layouts a scene may have: Defold's editor offers one per display profile, a handful.
pub const MAX_GUI_LAYOUTS: usize = 64;
/// Nodes all of a scene's layouts hold together (each is a whole copy of the scene's nodes):
/// four layouts of the largest scene, refused before any is made.
pub const MAX_GUI_LAYOUT_NODES: usize = 4 * MAX_GUI_NODES;

/// The material a `.gui` names for drawing as Sinew's GUI renderer draws by itself.
pub const BUILTIN_GUI_MATERIAL: &str = "/builtins/materials/gui.material";

impl GuiNode {
    /// Turns the node by Euler angles in degrees ([`turn_by_euler`]).
    pub fn set_euler(&mut self, degrees: Vec3) {
        (self.rotation, self.euler) = turn_by_euler(degrees);
    }

    /// Turns the node by a unit quaternion ([`turn_by_quat`]).
    pub fn set_rotation(&mut self, q: Quat) {
        (self.rotation, self.euler) = turn_by_quat(q);
    }
}

/// A node's rotation and angles when turned by Euler angles in degrees, as Defold's nodes turn
/// (the same conversion as game objects' `euler`, `base::euler`).
fn turn_by_euler(degrees: Vec3) -> (Quat, Vec3) {
    (crate::base::euler::euler_to_quat(degrees).normalize(), degrees)
}

/// A node's rotation and angles when turned by unit quaternion `q`: its angles as
/// `vmath.quat_to_euler` reads them (Defold's `gui.set_rotation` with a quat).
fn turn_by_quat(q: Quat) -> (Quat, Vec3) {
    (q, crate::base::euler::quat_to_euler(q))
}

/// A node with Defold's defaults (`gui.new_*_node` starts from it).
pub fn default_node(kind: NodeKind) -> GuiNode {
    GuiNode {
        id: String::new(),
        kind,
        parent: None,
        position: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        euler: Vec3::ZERO,
        scale: Vec3::ONE,
        size: [100.0, 100.0],
        color: [1.0; 4],
        inherit_alpha: false,
        blend: BlendMode::Alpha,
        pivot: Pivot::Center,
        xanchor: XAnchor::None,
        yanchor: YAnchor::None,
        adjust_mode: AdjustMode::Fit,
        size_auto: false,
        layer: None,
        enabled: true,
        visible: true,
        texture: None,
        animation: None,
        frame: 0,
        slice9: [0.0; 4],
        text: String::new(),
        font: None,
        line_break: false,
        outline: [0.0, 0.0, 0.0, 1.0],
        shadow: [0.0, 0.0, 0.0, 1.0],
        leading: DEFAULT_TEXT_LEADING,
        tracking: 0.0,
        clipping: false,
        clipping_visible: true,
        clipping_inverted: false,
        outer_bounds: PieBounds::Ellipse,
        inner_radius: 0.0,
        perimeter_vertices: 32,
        pie_fill_angle: 360.0,
        effect: None,
        material: None,
        rank: 0,
        deleted: false,
    }
}

impl GuiScene {
    pub fn node_index(&self, id: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id)
    }

    /// The nodes of layout `layout`: 0 is the default layout (`nodes`), `k` is `layouts[k - 1]`.
    pub fn layout_nodes(&self, layout: usize) -> &[GuiNode] {
        match layout.checked_sub(1).and_then(|k| self.layouts.get(k)) {
            Some(l) => &l.nodes,
            None => &self.nodes,
        }
    }

    /// The index `layout_nodes` takes for layout `name` ("Default" or absent: 0).
    pub fn layout_index(&self, name: &str) -> Option<usize> {
        if name == DEFAULT_LAYOUT {
            return Some(0);
        }
        self.layouts.iter().position(|l| l.name == name).map(|k| k + 1)
    }

    /// The name of layout index `layout` (as `layout_nodes` takes it).
    pub fn layout_name(&self, layout: usize) -> &str {
        layout.checked_sub(1).and_then(|k| self.layouts.get(k)).map_or(DEFAULT_LAYOUT, |l| l.name.as_str())
    }

    /// The scene image holding the pixels of atlas `source` (an emitter's).
    pub fn image_of_atlas(&self, source: &str) -> Option<usize> {
        self.images.iter().position(|i| i.atlas.as_ref().is_some_and(|a| a.source == source))
    }
}

/// Problems collected over the scene and its templates.
#[derive(Default)]
struct Problems(Vec<LoadError>);

impl Problems {
    fn at<T>(&mut self, v: &Located<T>, file: &str, msg: impl Into<String>) {
        self.0.push(v.error(file, msg));
    }
}

/// The name of the layout every scene has: its own `nodes` (`gui.get_layout` answers its hash).
pub const DEFAULT_LAYOUT: &str = "Default";

/// A node as read from its file, before parents are resolved.
#[derive(Clone)]
struct Raw {
    desc: NodeDesc,
    id: String,
    /// The file it was written in (templates add nodes from other files).
    file: String,
    /// Its parent's id, already prefixed for template nodes.
    parent: Option<Located<String>>,
    /// Names of fonts, textures, layers resolve in the scene that wrote the node.
    scope: usize,
}

/// Where the nodes as read go: `order` lists them parents first (depth first, siblings in
/// file order), `parent[i]` is read node `i`'s parent as read, `new_index[i]` its place in
/// `order`.
struct Tree {
    order: Vec<usize>,
    parent: Vec<Option<usize>>,
    new_index: Vec<usize>,
}

/// A layout node's fields over the scene node's (all but the ones that make the tree).
fn overlay(to: &mut NodeDesc, from: &NodeDesc) {
    macro_rules! take {
        ($($f:ident),*) => { $( if from.$f.is_some() { to.$f.clone_from(&from.$f); } )* };
    }
    take!(
        position,
        rotation,
        euler,
        scale,
        size,
        color,
        alpha,
        inherit_alpha,
        blend_mode,
        text,
        texture,
        font,
        xanchor,
        yanchor,
        pivot,
        outline,
        shadow,
        outline_alpha,
        shadow_alpha,
        adjust_mode,
        line_break,
        layer,
        slice9,
        outer_bounds,
        inner_radius,
        perimeter_vertices,
        pie_fill_angle,
        clipping_mode,
        clipping_visible,
        clipping_inverted,
        text_leading,
        text_tracking,
        size_mode,
        enabled,
        visible,
        material,
        font_size,
        particlefx
    );
    // One rotation: a layout's quaternion replaces the scene's Euler angles too.
    if from.rotation.is_some() && from.euler.is_none() {
        to.euler = None;
    }
}

/// The names a file declares: fonts, textures, layers (templates have their own).
#[derive(Default)]
struct Scope {
    fonts: HashMap<String, usize>,
    textures: HashMap<String, usize>,
    layers: HashMap<String, usize>,
    effects: HashMap<String, usize>,
    materials: HashMap<String, usize>,
}

struct Loader<'a> {
    res: &'a Resources,
    p: Problems,
    fonts: Vec<(String, Font)>,
    font_paths: HashMap<String, usize>,
    images: Vec<GuiImage>,
    image_paths: HashMap<String, usize>,
    layers: Vec<String>,
    scopes: Vec<Scope>,
    /// Atlas path → its image files that were not found (left out of it).
    missing: HashMap<String, Vec<String>>,
    effects: Vec<(String, Arc<ParticleFxSpec>)>,
    effect_paths: HashMap<String, usize>,
    materials: Vec<(String, String)>,
    /// The scene's own `material` when it is not the built-in one.
    scene_material: Option<usize>,
}

/// Loads the `.gui` at `path` (Sinew JSON or Defold text), `referrer` naming where it is used.
pub fn load_gui(res: &Resources, path: &Located<String>, referrer: &str) -> Result<GuiScene, LoadError> {
    let (norm, desc): (String, GuiDesc) = crate::project::json::read(res, path, referrer)?;
    let mut l = Loader {
        res,
        p: Problems::default(),
        fonts: Vec::new(),
        font_paths: HashMap::new(),
        images: Vec::new(),
        image_paths: HashMap::new(),
        layers: Vec::new(),
        scopes: Vec::new(),
        missing: HashMap::new(),
        effects: Vec::new(),
        effect_paths: HashMap::new(),
        materials: Vec::new(),
        scene_material: None,
    };
    if let Some(m) = desc.material.as_ref().filter(|m| !m.value.is_empty()) {
        l.scene_material = l.material(&norm, "", m);
    }
    let script = match &desc.script {
        Some(s) if !s.value.is_empty() => match crate::project::json::resource_path(s, &norm) {
            Ok(p) if res.exists(&p) => Some(p),
            Ok(p) => {
                l.p.at(s, &norm, format!("gui script '{p}' not found"));
                None
            }
            Err(e) => {
                l.p.0.push(e);
                None
            }
        },
        _ => None,
    };
    let mut raw = Vec::new();
    let mut chain = vec![norm.clone()];
    l.collect(&norm, &desc, "", None, &mut raw, &mut chain);
    let tree = l.tree(&raw);
    let nodes = l.build(&raw, &tree);
    let layouts = l.layouts(&norm, &desc.layouts, &raw, &tree);
    if !l.p.0.is_empty() {
        return Err(crate::project::defold::joined(l.p.0));
    }
    let mut font_files = vec![String::new(); l.fonts.len()];
    for (file, &i) in &l.font_paths {
        if let Some(f) = font_files.get_mut(i) {
            f.clone_from(file);
        }
    }
    Ok(GuiScene {
        path: norm,
        script,
        fonts: l.fonts,
        font_files,
        images: l.images,
        layers: l.layers,
        nodes,
        effects: l.effects,
        materials: l.materials,
        layouts,
    })
}

/// A font file read on its own, as a scene's `fonts` entry reads it (`go.set(gui, "fonts", ...)`).
pub fn load_scene_font(res: &Resources, path: &str) -> Result<Font, LoadError> {
    load_font(res, &Located { value: path.to_string(), at: None }, path, 16.0)
}

/// An image, atlas or tile source read on its own, as a scene's `textures` entry reads it
/// (`go.set(gui, "textures", ...)`); an atlas's missing images are an error here.
pub fn load_scene_image(res: &Resources, name: &str, path: &str) -> Result<GuiImage, LoadError> {
    if [".atlas", ".tilesource", ".tileset"].iter().any(|e| path.ends_with(e)) {
        return Ok(GuiImage::of_atlas(name, path, crate::project::sprite::load_atlas(res, path)?));
    }
    let bytes = res.read(path, None)?;
    let (width, height, rgba) =
        crate::project::gltf::decode_image(&bytes).map_err(|e| LoadError::new(path, e.to_string()))?;
    Ok(GuiImage { name: name.to_string(), path: path.to_string(), width, height, rgba: Arc::new(rgba), atlas: None })
}

fn vector(v: &Option<Located<Vec<f32>>>, defaults: [f32; 4], min: usize, file: &str, p: &mut Problems) -> [f32; 4] {
    let Some(v) = v else { return defaults };
    if v.value.len() < min || v.value.len() > 4 || v.value.iter().any(|x| !x.is_finite()) {
        p.at(v, file, format!("expected {min} to 4 finite numbers"));
        return defaults;
    }
    let mut out = defaults;
    out[..v.value.len()].copy_from_slice(&v.value);
    out
}

/// An enum field: Defold's constant (`XANCHOR_LEFT`) or its short name (`left`).
fn choice<T: Copy>(
    v: &Option<Located<String>>,
    prefix: &str,
    options: &[(&str, T)],
    default: T,
    file: &str,
    p: &mut Problems,
) -> T {
    let Some(v) = v else { return default };
    let name = v.value.strip_prefix(prefix).unwrap_or(&v.value).to_ascii_lowercase();
    match options.iter().find(|(n, _)| *n == name) {
        Some((_, t)) => *t,
        None => {
            let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
            p.at(v, file, format!("unknown value '{}' (expected {})", v.value, names.join(", ")));
            default
        }
    }
}

impl Loader<'_> {
    /// A node's `texture` as (index in the scene's images, animation of its atlas).
    fn node_texture(&mut self, r: &Raw, t: Option<&Located<String>>) -> (Option<usize>, Option<u32>) {
        let Some(t) = t.filter(|t| !t.value.is_empty()) else { return (None, None) };
        let file = r.file.as_str();
        let (name, anim) = t.value.split_once('/').unwrap_or((&t.value, ""));
        let scopes = &self.scopes;
        let hit = scopes
            .get(r.scope)
            .and_then(|s| s.textures.get(name))
            .or_else(|| scopes.iter().find_map(|s| s.textures.get(name)));
        let Some(&i) = hit else {
            self.p.at(t, file, format!("node '{}': unknown texture '{}'", r.id, t.value));
            return (None, None);
        };
        if anim.is_empty() {
            return (Some(i), None);
        }
        let Some(img) = self.images.get(i) else { return (None, None) };
        let Some(atlas) = &img.atlas else {
            self.p.at(
                t,
                file,
                format!("node '{}': texture '{name}' is an image, not an atlas: it has no '{anim}'", r.id),
            );
            return (None, None);
        };
        match atlas.animations.iter().position(|a| a.id == anim) {
            Some(k) => (Some(i), Some(k as u32)),
            None => {
                let note = match self.missing.get(&img.path) {
                    Some(m) => format!(" ({} of its image files were not found, e.g. {})", m.len(), m[0]),
                    None => String::new(),
                };
                let msg = format!("node '{}': atlas {} has no image or animation '{anim}'{note}", r.id, img.path);
                self.p.at(t, file, msg);
                (None, None)
            }
        }
    }

    /// Declares `desc`'s fonts, textures and layers, then adds its nodes to `out`, each id
    /// prefixed with `prefix` and its root nodes parented to `root` (a template's node).
    fn collect(
        &mut self,
        file: &str,
        desc: &GuiDesc,
        prefix: &str,
        root: Option<&str>,
        out: &mut Vec<Raw>,
        chain: &mut Vec<String>,
    ) {
        let scope = self.declare(file, desc);
        // Nodes this file writes for its templates' children (`template_node_child`) replace
        // the template's own.
        let overrides: Vec<String> = desc
            .nodes
            .iter()
            .filter(|n| n.template_node_child == Some(true))
            .filter_map(|n| n.id.clone())
            .map(|i| i.value)
            .collect();
        for n in &desc.nodes {
            if out.len() >= MAX_GUI_NODES {
                self.p.0.push(LoadError::new(file, format!("more than {MAX_GUI_NODES} nodes")));
                return;
            }
            let Some(id) = &n.id else {
                self.p.0.push(LoadError::new(file, "a node needs an `id`"));
                continue;
            };
            if id.value.is_empty() {
                self.p.at(id, file, "a node's `id` must not be empty");
                continue;
            }
            let full = format!("{prefix}{}", id.value);
            if out.iter().any(|r: &Raw| r.id == full) {
                if n.template_node_child != Some(true) {
                    self.p.at(id, file, format!("node id '{full}' is used twice"));
                }
                continue;
            }
            let parent = match &n.parent {
                Some(pa) if !pa.value.is_empty() => {
                    Some(Located { value: format!("{prefix}{}", pa.value), at: pa.at.clone() })
                }
                _ => root.map(|r| Located { value: r.to_string(), at: None }),
            };
            let is_template = n.kind.as_ref().is_some_and(|k| {
                let k = k.value.to_ascii_lowercase();
                k == "type_template" || k == "template"
            });
            out.push(Raw { desc: n.clone(), id: full.clone(), file: file.to_string(), parent, scope });
            if is_template {
                self.template(file, n, &full, &overrides, out, chain);
            }
        }
    }

    fn template(
        &mut self,
        file: &str,
        n: &NodeDesc,
        full: &str,
        overrides: &[String],
        out: &mut Vec<Raw>,
        chain: &mut Vec<String>,
    ) {
        let Some(t) = n.template.as_ref().filter(|t| !t.value.is_empty()) else {
            if let Some(id) = &n.id {
                self.p.at(id, file, "a template node needs `template` (a .gui file)");
            }
            return;
        };
        let loaded: Result<(String, GuiDesc), LoadError> = crate::project::json::read(self.res, t, file);
        let (tpath, tdesc) = match loaded {
            Ok(x) => x,
            Err(e) => return self.p.0.push(e),
        };
        if chain.contains(&tpath) {
            return self.p.at(t, file, format!("template cycle: {} -> {tpath}", chain.join(" -> ")));
        }
        if chain.len() >= MAX_TEMPLATE_DEPTH {
            return self.p.at(t, file, format!("templates nest deeper than {MAX_TEMPLATE_DEPTH}"));
        }
        chain.push(tpath.clone());
        let start = out.len();
        self.collect(&tpath, &tdesc, &format!("{full}/"), Some(full), out, chain);
        chain.pop();
        // Children the outer file writes itself win: drop the template's copies.
        let mut k = start;
        while k < out.len() {
            if overrides.contains(&out[k].id) {
                out.remove(k);
            } else {
                k += 1;
            }
        }
    }

    fn declare(&mut self, file: &str, desc: &GuiDesc) -> usize {
        let mut scope = Scope::default();
        for f in &desc.fonts {
            let key = match crate::project::json::resource_path(&f.font, file) {
                Ok(k) => k,
                Err(e) => {
                    self.p.0.push(e);
                    continue;
                }
            };
            let index = match self.font_paths.get(&key) {
                Some(&i) => i,
                None => match load_font(self.res, &f.font, file, 16.0) {
                    Ok(font) => {
                        self.fonts.push((f.name.value.clone(), font));
                        self.font_paths.insert(key, self.fonts.len() - 1);
                        self.fonts.len() - 1
                    }
                    Err(e) => {
                        self.p.0.push(e);
                        continue;
                    }
                },
            };
            scope.fonts.insert(f.name.value.clone(), index);
        }
        for t in &desc.textures {
            let key = match crate::project::json::resource_path(&t.texture, file) {
                Ok(k) => k,
                Err(e) => {
                    self.p.0.push(e);
                    continue;
                }
            };
            let index = match self.image_paths.get(&key) {
                Some(&i) => i,
                None => match self.image(file, &t.name.value, &key, &t.texture) {
                    Some(img) => {
                        self.images.push(img);
                        self.image_paths.insert(key, self.images.len() - 1);
                        self.images.len() - 1
                    }
                    None => continue,
                },
            };
            scope.textures.insert(t.name.value.clone(), index);
        }
        for e in &desc.particlefxs {
            if let Some(index) = self.effect(file, e) {
                scope.effects.insert(e.name.value.clone(), index);
            }
        }
        for m in &desc.materials {
            if let Some(index) = self.material(file, &m.name.value, &m.material) {
                scope.materials.insert(m.name.value.clone(), index);
            }
        }
        for layer in &desc.layers {
            let index = match self.layers.iter().position(|l| *l == layer.name.value) {
                Some(i) => i,
                None => {
                    self.layers.push(layer.name.value.clone());
                    self.layers.len() - 1
                }
            };
            scope.layers.insert(layer.name.value.clone(), index);
        }
        self.scopes.push(scope);
        self.scopes.len() - 1
    }

    /// A `materials` entry (or the scene's `material`, named ""): its index in the scene's
    /// materials; `None` for a file that is not there (reported) and for the scene's material
    /// when it is the built-in one.
    fn material(&mut self, file: &str, name: &str, path: &Located<String>) -> Option<usize> {
        let key = match crate::project::json::resource_path(path, file) {
            Ok(k) => k,
            Err(e) => {
                self.p.0.push(e);
                return None;
            }
        };
        if key == BUILTIN_GUI_MATERIAL && name.is_empty() {
            return None;
        }
        if key != BUILTIN_GUI_MATERIAL && !key.ends_with(".material") || !self.res.exists(&key) {
            let what = if name.is_empty() { "the scene's material".to_string() } else { format!("material '{name}'") };
            self.p.at(path, file, format!("{what}: '{key}' is no .material file of the project"));
            return None;
        }
        self.materials.push((name.to_string(), key));
        Some(self.materials.len() - 1)
    }

    /// A `particlefxs` entry's effect (read once per scene), its emitters' atlases added to the
    /// scene's images (an atlas the scene also names as a texture is held once).
    fn effect(&mut self, file: &str, e: &crate::project::gui::ParticleFxEntry) -> Option<usize> {
        let norm = match crate::project::json::resource_path(&e.particlefx, file) {
            Ok(k) => k,
            Err(err) => {
                self.p.0.push(err);
                return None;
            }
        };
        if let Some(&i) = self.effect_paths.get(&norm) {
            return Some(i);
        }
        let text = match self.res.read_string(&norm, Some(file)) {
            Ok(t) => t,
            Err(err) => {
                self.p.at(&e.particlefx, file, format!("particlefx '{}': {}", e.name.value, err.message));
                return None;
            }
        };
        let mut atlas = |path: &str, at: &crate::project::defold::text::Field| {
            let located = Located { value: path.to_string(), at: Some(at.value_at.clone()) };
            let key = crate::project::json::resource_path(&located, &norm)?;
            if ![".atlas", ".tilesource", ".tileset"].iter().any(|e| key.ends_with(e)) {
                let msg = format!("'{key}' is an image; an emitter needs an atlas or tile source");
                return Err(located.error(&norm, msg));
            }
            let i = match self.image_paths.get(&key) {
                Some(&i) => i,
                None => {
                    let before = self.p.0.len();
                    let img = self.atlas(&norm, &key, &key, &located);
                    let img = img.ok_or_else(|| {
                        self.p.0.drain(before..).next().unwrap_or_else(|| LoadError::new(&norm, "atlas not loaded"))
                    })?;
                    self.images.push(img);
                    self.image_paths.insert(key.clone(), self.images.len() - 1);
                    self.images.len() - 1
                }
            };
            match self.images.get(i).and_then(|img| img.atlas.clone()) {
                Some(a) => Ok(a),
                None => {
                    Err(located.error(&norm, format!("'{key}' is an image; an emitter needs an atlas or tile source")))
                }
            }
        };
        match crate::project::particlefx::parse(&norm, &text, &mut atlas) {
            Ok(spec) => {
                self.effects.push((e.name.value.clone(), Arc::new(spec)));
                self.effect_paths.insert(norm, self.effects.len() - 1);
                Some(self.effects.len() - 1)
            }
            Err(errors) => {
                self.p.0.extend(errors);
                None
            }
        }
    }

    /// An image file (PNG or JPEG), or an atlas or tile source packed onto one page.
    fn image(&mut self, file: &str, name: &str, path: &str, at: &Located<String>) -> Option<GuiImage> {
        if [".atlas", ".tilesource", ".tileset"].iter().any(|e| path.ends_with(e)) {
            return self.atlas(file, name, path, at);
        }
        let bytes = match self.res.read(path, Some(file)) {
            Ok(b) => b,
            Err(e) => {
                self.p.at(at, file, e.message);
                return None;
            }
        };
        match crate::project::gltf::decode_image(&bytes) {
            Ok((width, height, rgba)) => Some(GuiImage {
                name: name.to_string(),
                path: path.to_string(),
                width,
                height,
                rgba: Arc::new(rgba),
                atlas: None,
            }),
            Err(e) => {
                self.p.at(at, file, format!("texture '{name}': {path}: {e}"));
                None
            }
        }
    }

    fn atlas(&mut self, file: &str, name: &str, path: &str, at: &Located<String>) -> Option<GuiImage> {
        let (atlas, missing) = match crate::project::sprite::load_atlas_leaving_out_missing(self.res, path) {
            Ok(x) => x,
            Err(e) => {
                // At the atlas's own `path:line:column` when it has one, else where the scene
                // names it.
                if e.line.is_some() {
                    self.p.0.push(e);
                } else {
                    self.p.at(at, file, format!("texture '{name}': {}: {}", e.resource, e.message));
                }
                return None;
            }
        };
        if !missing.is_empty() {
            log::warn!(
                "{path}: {} image file(s) not found, left out with their animations (first: {})",
                missing.len(),
                missing[0]
            );
            self.missing.insert(path.to_string(), missing);
        }
        Some(GuiImage::of_atlas(name, path, atlas))
    }

    /// Parents resolved (unknown ones and cycles reported), nodes ordered parents first.
    /// Each layout's nodes: the scene's (`raw`), the layout's fields over them, placed as
    /// `tree` places the scene's. A layout keeps the scene's tree: its `parent`, `type`,
    /// `template` are not applied (Defold sets them only when it makes the nodes).
    fn layouts(&mut self, file: &str, descs: &[LayoutDesc], raw: &[Raw], tree: &Tree) -> Vec<GuiLayout> {
        let mut out: Vec<GuiLayout> = Vec::new();
        if descs.len() > MAX_GUI_LAYOUTS {
            self.p.0.push(LoadError::new(file, format!("more than {MAX_GUI_LAYOUTS} layouts")));
            return out;
        }
        if descs.len().saturating_mul(raw.len()) > MAX_GUI_LAYOUT_NODES {
            let msg = format!(
                "{} layouts of {} nodes: more than {MAX_GUI_LAYOUT_NODES} layout nodes in all",
                descs.len(),
                raw.len()
            );
            self.p.0.push(LoadError::new(file, msg));
            return out;
        }
        for d in descs {
            let name = &d.name.value;
            if name.is_empty() || name == DEFAULT_LAYOUT || out.iter().any(|l| l.name == *name) {
                let why = if name.is_empty() { "must not be empty" } else { "is used twice" };
                self.p.at(&d.name, file, format!("layout name '{name}' {why}"));
                continue;
            }
            let mut merged = raw.to_vec();
            for n in &d.nodes {
                let Some(id) = &n.id else {
                    self.p.0.push(LoadError::new(file, format!("layout '{name}': a node needs an `id`")));
                    continue;
                };
                match merged.iter_mut().find(|r| r.id == id.value) {
                    Some(r) => overlay(&mut r.desc, n),
                    None => self.p.at(id, file, format!("layout '{name}': node '{}' is not in the scene", id.value)),
                }
            }
            out.push(GuiLayout { name: name.clone(), nodes: self.build(&merged, tree) });
        }
        out
    }

    fn build(&mut self, raw: &[Raw], tree: &Tree) -> Vec<GuiNode> {
        tree.order.iter().map(|&i| self.node(&raw[i], tree.parent[i].map(|j| tree.new_index[j]))).collect()
    }

    fn tree(&mut self, raw: &[Raw]) -> Tree {
        let index: HashMap<&str, usize> = raw.iter().enumerate().map(|(i, r)| (r.id.as_str(), i)).collect();
        let mut parent: Vec<Option<usize>> = vec![None; raw.len()];
        for (i, r) in raw.iter().enumerate() {
            if let Some(pa) = &r.parent {
                match index.get(pa.value.as_str()) {
                    Some(&j) => parent[i] = Some(j),
                    None => self.p.at(pa, &r.file, format!("node '{}': unknown parent '{}'", r.id, pa.value)),
                }
            }
        }
        // Cycles: walking up from a node must end within the node count.
        let in_cycle: Vec<bool> = (0..raw.len())
            .map(|i| {
                let mut at = i;
                for _ in 0..=raw.len() {
                    match parent[at] {
                        Some(j) if j == i => return true,
                        Some(j) => at = j,
                        None => return false,
                    }
                }
                false
            })
            .collect();
        for (i, r) in raw.iter().enumerate() {
            if in_cycle[i] {
                let pa = r.parent.as_ref().map_or_else(String::new, |p| p.value.clone());
                match &r.parent {
                    Some(p) => self.p.at(p, &r.file, format!("node '{}': parent '{pa}' makes a cycle", r.id)),
                    None => self.p.0.push(LoadError::new(&r.file, format!("node '{}' is in a parent cycle", r.id))),
                }
                parent[i] = None;
            }
        }
        // Depth-first from the roots, siblings in file order.
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); raw.len()];
        let mut roots = Vec::new();
        for (i, pa) in parent.iter().enumerate() {
            match pa {
                Some(j) => children[*j].push(i),
                None => roots.push(i),
            }
        }
        let mut order = Vec::with_capacity(raw.len());
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(children[i].iter().rev());
        }
        let mut new_index = vec![0usize; raw.len()];
        for (k, &i) in order.iter().enumerate() {
            new_index[i] = k;
        }
        Tree { order, parent, new_index }
    }

    fn node(&mut self, r: &Raw, parent: Option<usize>) -> GuiNode {
        let (d, file) = (&r.desc, r.file.as_str());
        let p = &mut self.p;
        let kind = choice(
            &d.kind,
            "TYPE_",
            &[
                ("box", NodeKind::Box),
                ("text", NodeKind::Text),
                ("pie", NodeKind::Pie),
                ("template", NodeKind::Template),
                ("particlefx", NodeKind::ParticleFx),
            ],
            NodeKind::Box,
            file,
            p,
        );
        let position = vector(&d.position, [0.0; 4], 2, file, p);
        let scale = vector(&d.scale, [1.0; 4], 2, file, p);
        let size = vector(&d.size, [100.0, 100.0, 0.0, 0.0], 2, file, p);
        let color = vector(&d.color, [1.0; 4], 3, file, p);
        let (rotation, euler) = match (&d.rotation, &d.euler) {
            (_, Some(_)) => {
                let e = vector(&d.euler, [0.0; 4], 3, file, p);
                turn_by_euler(Vec3::new(e[0], e[1], e[2]))
            }
            (Some(r), None) => {
                let q = vector(&d.rotation, [0.0, 0.0, 0.0, 1.0], 4, file, p);
                turn_by_quat(crate::base::quat::unit_quat(q).unwrap_or_else(|| {
                    p.at(r, file, "a rotation quaternion must not be zero");
                    Quat::IDENTITY
                }))
            }
            _ => (Quat::IDENTITY, Vec3::ZERO),
        };
        let pivot = match &d.pivot {
            None => Pivot::Center,
            Some(v) => Pivot::parse(&v.value).unwrap_or_else(|| {
                p.at(v, file, format!("unknown pivot '{}' (expected {})", v.value, Pivot::NAMES));
                Pivot::Center
            }),
        };
        let xanchor = choice(
            &d.xanchor,
            "XANCHOR_",
            &[("none", XAnchor::None), ("left", XAnchor::Left), ("right", XAnchor::Right)],
            XAnchor::None,
            file,
            p,
        );
        let yanchor = choice(
            &d.yanchor,
            "YANCHOR_",
            &[("none", YAnchor::None), ("top", YAnchor::Top), ("bottom", YAnchor::Bottom)],
            YAnchor::None,
            file,
            p,
        );
        let adjust_mode = choice(
            &d.adjust_mode,
            "ADJUST_MODE_",
            &[("fit", AdjustMode::Fit), ("zoom", AdjustMode::Zoom), ("stretch", AdjustMode::Stretch)],
            AdjustMode::Fit,
            file,
            p,
        );
        let blend = choice(
            &d.blend_mode,
            "BLEND_MODE_",
            &[
                ("alpha", BlendMode::Alpha),
                ("add", BlendMode::Add),
                ("add_alpha", BlendMode::Add),
                ("mult", BlendMode::Mult),
                ("screen", BlendMode::Screen),
            ],
            BlendMode::Alpha,
            file,
            p,
        );
        let size_auto = choice(&d.size_mode, "SIZE_MODE_", &[("manual", false), ("auto", true)], false, file, p);
        let outer_bounds = choice(
            &d.outer_bounds,
            "PIEBOUNDS_",
            &[("ellipse", PieBounds::Ellipse), ("rectangle", PieBounds::Rectangle)],
            PieBounds::Ellipse,
            file,
            p,
        );
        let clipping =
            choice(&d.clipping_mode, "CLIPPING_MODE_", &[("none", false), ("stencil", true)], false, file, p);
        // A name resolves in the file that wrote the node, else in any file of the scene (an
        // outer file's copy of a template child names the template's fonts and textures).
        let scopes = &self.scopes;
        let find =
            |pick: &dyn Fn(&Scope) -> Option<usize>| pick(&scopes[r.scope]).or_else(|| scopes.iter().find_map(pick));
        let layer = match &d.layer {
            Some(l) if !l.value.is_empty() => match find(&|s: &Scope| s.layers.get(&l.value).copied()) {
                Some(i) => Some(i),
                None => {
                    p.at(l, file, format!("node '{}': unknown layer '{}'", r.id, l.value));
                    None
                }
            },
            _ => None,
        };
        // `texture` is an image's name, or `atlas/animation` (the name before the slash).
        let (texture, animation) = self.node_texture(r, d.texture.as_ref());
        let frame = animation
            .and_then(|k| {
                self.images.get(texture?)?.atlas.as_ref()?.animations.get(k as usize)?.frames.first().copied()
            })
            .unwrap_or(0);
        let p = &mut self.p;
        let scopes = &self.scopes;
        let find =
            |pick: &dyn Fn(&Scope) -> Option<usize>| pick(&scopes[r.scope]).or_else(|| scopes.iter().find_map(pick));
        let font = match &d.font {
            Some(f) if !f.value.is_empty() => match find(&|s: &Scope| s.fonts.get(&f.value).copied()) {
                Some(i) => Some(i),
                None => {
                    p.at(f, file, format!("node '{}': missing font '{}' (not in the scene's `fonts`)", r.id, f.value));
                    None
                }
            },
            _ => None,
        };
        let effect = match &d.particlefx {
            Some(f) if !f.value.is_empty() && kind == NodeKind::ParticleFx => {
                match find(&|s: &Scope| s.effects.get(&f.value).copied()) {
                    Some(i) => Some(i),
                    None => {
                        let msg = format!(
                            "node '{}': unknown particlefx '{}' (not in the scene's `particlefxs`)",
                            r.id, f.value
                        );
                        p.at(f, file, msg);
                        None
                    }
                }
            }
            _ => None,
        };
        let material = match &d.material {
            Some(m) if !m.value.is_empty() => match find(&|s: &Scope| s.materials.get(&m.value).copied()) {
                Some(i) => Some(i),
                None => {
                    let msg =
                        format!("node '{}': unknown material '{}' (not in the scene's `materials`)", r.id, m.value);
                    p.at(m, file, msg);
                    None
                }
            },
            _ => self.scene_material,
        };
        let perimeter_vertices = match &d.perimeter_vertices {
            None => 32,
            Some(v) if v.value >= 2.0 && v.value <= MAX_PERIMETER_VERTICES as f64 => v.value as u32,
            Some(v) => {
                p.at(v, file, format!("perimeter_vertices must be from 2 to {MAX_PERIMETER_VERTICES}"));
                32
            }
        };
        let finite = |x: Option<f32>, default: f32| x.filter(|v| v.is_finite()).unwrap_or(default);
        let mut color = color;
        color[3] *= finite(d.alpha, 1.0);
        let mut outline = vector(&d.outline, [0.0, 0.0, 0.0, 1.0], 3, file, p);
        outline[3] *= finite(d.outline_alpha, 1.0);
        let mut shadow = vector(&d.shadow, [0.0, 0.0, 0.0, 1.0], 3, file, p);
        shadow[3] *= finite(d.shadow_alpha, 1.0);
        // Defold writes outline and shadow colours with alpha 1 by default but draws them only
        // when the font has an outline or shadow; Sinew does the same through the font.
        let slice9 = vector(&d.slice9, [0.0; 4], 4, file, p).map(|v| v.max(0.0));
        GuiNode {
            id: r.id.clone(),
            kind,
            parent,
            position: Vec3::new(position[0], position[1], position[2]),
            rotation,
            euler,
            scale: Vec3::new(scale[0], scale[1], scale[2]),
            size: [size[0], size[1]],
            color,
            inherit_alpha: d.inherit_alpha.unwrap_or(false),
            blend,
            pivot,
            xanchor,
            yanchor,
            adjust_mode,
            size_auto,
            layer,
            enabled: d.enabled.unwrap_or(true),
            visible: d.visible.unwrap_or(true),
            texture,
            animation,
            frame,
            slice9,
            text: d.text.clone().unwrap_or_default(),
            font,
            line_break: d.line_break.unwrap_or(false),
            outline,
            shadow,
            leading: finite(d.text_leading, DEFAULT_TEXT_LEADING),
            tracking: finite(d.text_tracking, 0.0),
            clipping,
            clipping_visible: d.clipping_visible.unwrap_or(true),
            clipping_inverted: d.clipping_inverted.unwrap_or(false),
            outer_bounds,
            inner_radius: finite(d.inner_radius, 0.0).max(0.0),
            perimeter_vertices,
            pie_fill_angle: finite(d.pie_fill_angle, 360.0),
            effect,
            material,
            rank: 0,
            deleted: false,
        }
    }
}
