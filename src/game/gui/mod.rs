//! `gui` components: each instance's nodes (starting as its scene's, then changed by scripts),
//! laid out in screen space against the project's display size ([`layout`]) and turned into one
//! draw list for all instances ([`draw`]): vertices and batches the renderer draws above the
//! world, independent of the camera. Game state only; nothing here touches GL.
pub mod display_layouts;
pub mod draw;
pub mod effects;
pub mod flipbook;
pub mod layout;
mod resources;
#[cfg(test)]
mod tests;

use crate::project::font::atlas::GlyphAtlas;
use crate::project::gui::{BUILTIN_GUI_MATERIAL, GuiNode, GuiScene, GuiSpec};
use std::sync::Arc;

pub use draw::{GuiBatch, GuiDrawList, GuiTexture};

/// The highest `gui.set_render_order`: Defold's render keys hold 16 orders, and it clamps
/// others into them.
pub const MAX_RENDER_ORDER: u32 = 15;

/// One `gui` component.
pub struct GuiInstance {
    pub slot: u32,
    pub id: String,
    pub scene: Arc<GuiScene>,
    /// The nodes now: the scene's, as scripts changed them. Parents before children.
    pub nodes: Vec<GuiNode>,
    pub alive: bool,
    pub enabled: bool,
    /// `gui.set_render_order`: higher draws later (on top); at most [`MAX_RENDER_ORDER`].
    pub render_order: u32,
    /// Where each of the scene's nodes is in `nodes` (the same index until a hot reload of the
    /// scene adds nodes at the end; handles keep their index).
    pub scene_nodes: Vec<usize>,
    /// Each slot's generation: a script's node handle is `generation << 16 | index`, so a
    /// handle to a deleted node whose slot was reused for a new one is refused, not aliased.
    /// Never shorter than `nodes`.
    pub gens: Vec<u16>,
    /// Slots of deleted nodes that scripts made, for the next new node or clone: a game that
    /// makes and deletes nodes all the time does not grow.
    pub free: Vec<usize>,
    /// Nodes showing an atlas animation, with their clocks (few nodes animate, so the
    /// per-frame pass walks only these).
    pub flipbooks: Vec<flipbook::NodeFlipbook>,
    /// Particle nodes that were played, with their instances in [`GuiWorld::particles`].
    pub effects: Vec<effects::NodeEffect>,
    /// The rank the next node made or reparented takes: above every rank in use, so it draws
    /// after its new siblings (as Defold appends it).
    pub next_rank: u64,
    /// Per scene material (`scene.materials`): the `.material` it is now (a script may set
    /// another) and its index in the models' material registry, which compiles it (`None`:
    /// the built-in drawing). Filled by [`GuiWorld::resolve_materials`].
    pub materials: Vec<(String, Option<u32>)>,
    /// The scene layout its file nodes show (`GuiScene::layout_nodes`' index; 0: the default).
    pub layout: usize,
    /// The design size of that layout's display profile, instead of the project's.
    pub resolution: Option<(u32, u32)>,
}

/// A scene's materials as its file names them, not yet registered.
fn file_materials(scene: &GuiScene) -> Vec<(String, Option<u32>)> {
    scene.materials.iter().map(|(_, path)| (path.clone(), None)).collect()
}

/// The bits of a node handle that hold its slot index.
const INDEX_BITS: u32 = 16;
/// Generations wrap below 2^15 so a handle stays a positive i32 across the FFI.
const GEN_MASK: u16 = 0x7fff;

impl GuiInstance {
    /// The handle scripts get for slot `i`.
    pub fn handle(&self, i: usize) -> u32 {
        (u32::from(self.gens.get(i).copied().unwrap_or(0)) << INDEX_BITS) | i as u32
    }

    /// The slot of a live node's handle; a deleted node (its slot free or reused) is an error.
    pub fn resolve(&self, handle: u32) -> Result<usize, String> {
        let i = (handle & ((1 << INDEX_BITS) - 1)) as usize;
        let generation = (handle >> INDEX_BITS) as u16;
        match (self.nodes.get(i), self.gens.get(i)) {
            (Some(n), Some(&g)) if !n.deleted && g == generation => Ok(i),
            _ => Err("the node was deleted (gui.delete_node or gui.reset_nodes)".into()),
        }
    }

    /// A rank above every rank in use: the node taking it draws after its siblings.
    pub fn take_rank(&mut self) -> u64 {
        self.next_rank += 1;
        self.next_rank
    }

    /// `gui.move_above` (`above`) and `gui.move_below`: node `node` becomes a sibling of
    /// `reference`, drawn right after (before) it; with no reference, a root drawn after (before)
    /// every other root. As Defold's, a move under another parent keeps the node's local
    /// transform. A reference under the node itself is refused (it would make a cycle).
    pub fn move_node(&mut self, node: usize, reference: Option<usize>, above: bool) -> Result<(), String> {
        if reference == Some(node) {
            return Ok(());
        }
        let parent = reference.and_then(|r| self.nodes.get(r)?.parent);
        let mut up = parent;
        while let Some(k) = up {
            if k == node {
                return Err("the reference is under the node".into());
            }
            up = self.nodes.get(k).and_then(|n| n.parent);
        }
        self.nodes[node].parent = parent;
        let order = layout::order(&self.nodes);
        let mut siblings: Vec<usize> =
            order.into_iter().filter(|&k| k != node && self.nodes[k].parent == parent).collect();
        let at = match reference.and_then(|r| siblings.iter().position(|&k| k == r)) {
            Some(p) if above => p + 1,
            Some(p) => p,
            None if above => siblings.len(),
            None => 0,
        };
        siblings.insert(at, node);
        // Fresh ranks, so a node made later still takes a higher one (u64: a game moving
        // thousands of nodes every frame takes millions of years to run out).
        for &s in &siblings {
            self.nodes[s].rank = self.take_rank();
        }
        Ok(())
    }

    /// Places a new node in a free slot (a new generation) or at the end, drawn after its
    /// siblings; its slot.
    pub fn add(&mut self, mut node: GuiNode) -> usize {
        node.rank = self.take_rank();
        let i = match self.free.pop() {
            Some(i) if i < self.nodes.len() => {
                self.nodes[i] = node;
                i
            }
            _ => {
                self.nodes.push(node);
                self.nodes.len() - 1
            }
        };
        if self.gens.len() <= i {
            self.gens.resize(i + 1, 0);
        } else {
            self.gens[i] = (self.gens[i] + 1) & GEN_MASK;
        }
        i
    }

    /// Slots that may take a new node: script-made ones (the scene's keep their index, so that
    /// `reset_nodes` can bring them back under their handles).
    fn free_slots(&mut self, slots: &[usize]) {
        let mut scene = vec![false; self.nodes.len()];
        for &i in &self.scene_nodes {
            if let Some(x) = scene.get_mut(i) {
                *x = true;
            }
        }
        self.free.extend(slots.iter().copied().filter(|&i| !scene.get(i).copied().unwrap_or(false)));
    }

    /// Deletes nodes `slots` (live ones), freeing the script-made slots.
    pub fn delete(&mut self, slots: &[usize]) {
        for &i in slots {
            if let Some(n) = self.nodes.get_mut(i) {
                n.deleted = true;
            }
        }
        self.free_slots(slots);
        self.drop_stale_flipbooks();
    }

    /// Live nodes, not counting deleted ones: the limit on how many a script may add.
    pub fn live_count(&self) -> usize {
        self.nodes.iter().filter(|n| !n.deleted).count()
    }
}

#[derive(Default)]
pub struct GuiWorld {
    pub instances: Vec<GuiInstance>,
    /// Glyphs of every GUI text node (one texture for all GUI text).
    pub atlas: GlyphAtlas,
    /// The last built draw list (its memory is reused).
    pub list: GuiDrawList,
    /// The display (design) size and window size of the last [`GuiWorld::build`]: `pick_node`
    /// and `get_screen_position` answer for the screen last drawn.
    pub screen: ((u32, u32), (u32, u32)),
    /// Node properties `gui.animate` drives through the tween kernel's script cells.
    pub animated: Vec<AnimatedValue>,
    /// Node flipbooks that ended in the last [`GuiWorld::animate_flipbooks`] (kept to reuse
    /// the allocation).
    pub done: Vec<flipbook::Done>,
    /// The particle nodes' effects, in screen pixels ([`effects`]).
    pub particles: crate::game::particles::ParticleWorld,
    /// Where each of `particles`' instances is this frame (its node's matrix; None: not
    /// stepped), kept to reuse the allocation.
    frames: Vec<Option<glam::Mat4>>,
    /// Emitters of GUI effects that changed state in the last step, for their listeners.
    pub effect_changes: Vec<effects::EffectChange>,
    /// The display profiles scenes' layouts are chosen from (game.project's); set with
    /// [`GuiWorld::set_profiles`].
    profiles: crate::project::display_profiles::DisplayProfiles,
    /// The window size the layouts were last chosen for: they are chosen again only when the
    /// window (or the profiles) change, so a layout a script set stays until then, as in Defold.
    chosen_for: Option<(u32, u32)>,
}

/// One float of one node that a tween cell drives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnimatedValue {
    pub instance: u32,
    pub node: u32,
    /// `gui_get`'s `which` (position 0, euler 1, scale 2, size 3, colour 4, outline 5, shadow 6).
    pub which: u8,
    pub axis: u8,
    pub cell: u32,
    /// The value last copied: a cell that stopped changing (its tween ended) no longer
    /// overwrites what a script set since.
    pub last: f32,
}

/// The float of a node property element (`which` as in [`AnimatedValue`]), for the properties
/// a node holds as floats; `euler` is kept with the rotation made from it ([`node_get`],
/// [`node_set`]).
fn node_value(n: &mut GuiNode, property: u8, axis: u8) -> Option<&mut f32> {
    let a = axis as usize;
    match i32::from(property) {
        which::POSITION => n.position.as_mut().get_mut(a),
        which::SCALE => n.scale.as_mut().get_mut(a),
        which::SIZE => n.size.get_mut(a),
        which::COLOR => n.color.get_mut(a),
        which::OUTLINE => n.outline.get_mut(a),
        which::SHADOW => n.shadow.get_mut(a),
        // A pie's fill angle and inner radius (`gui.animate` of `fill_angle`, `inner_radius`).
        which::PIE if a == 0 => Some(&mut n.pie_fill_angle),
        which::PIE if a == 1 => Some(&mut n.inner_radius),
        _ => None,
    }
}

/// A node property element that `gui.animate` can drive: the floats of [`node_value`], and
/// `euler.x/y/z` (degrees), the node's own angles ([`GuiNode::euler`]).
pub fn node_get(n: &mut GuiNode, property: u8, axis: u8) -> Option<f32> {
    if i32::from(property) == which::EULER {
        return n.euler.to_array().get(axis as usize).copied();
    }
    node_value(n, property, axis).map(|v| *v)
}

/// Writes what [`node_get`] reads. An euler element replaces that one of the node's angles and
/// keeps the other two as they were set.
pub fn node_set(n: &mut GuiNode, property: u8, axis: u8, v: f32) {
    if i32::from(property) == which::EULER {
        let mut e = n.euler.to_array();
        if let Some(slot) = e.get_mut(axis as usize) {
            *slot = v;
            n.set_euler(glam::Vec3::from(e));
        }
    } else if let Some(slot) = node_value(n, property, axis) {
        *slot = v;
    }
}

/// The node properties scripts read and write as vectors (`gui_get`/`gui_set`) and tweens
/// write element by element ([`node_set`]); Lua gets the numbers as `K.GUI_*`.
pub mod which {
    pub const POSITION: i32 = 0;
    pub const EULER: i32 = 1;
    pub const SCALE: i32 = 2;
    pub const SIZE: i32 = 3;
    pub const COLOR: i32 = 4;
    pub const OUTLINE: i32 = 5;
    pub const SHADOW: i32 = 6;
    /// A pie node's `[fill_angle, inner_radius, perimeter_vertices, 0]`.
    pub const PIE: i32 = 7;
    /// The rotation as a quaternion `[x, y, z, w]` (`gui.get_rotation`; EULER is the same in
    /// degrees).
    pub const ROTATION: i32 = 8;
    /// `slice9` borders: left, top, right, bottom.
    pub const SLICE9: i32 = 9;
    /// A text node's `[leading, tracking, 0, 0]`.
    pub const SPACING: i32 = 10;
}

/// True when screen point `at` is inside node `i` as laid out on `window` (and inside every
/// clipping node above it): the inverse of each node's transform, so rotated nodes pick as
/// drawn.
pub fn pick(
    scene: &GuiScene,
    nodes: &[GuiNode],
    i: usize,
    display: (u32, u32),
    window: (u32, u32),
    at: (f32, f32),
) -> bool {
    let placed = layout::layout(nodes, display, window);
    let inside = |k: usize| -> bool {
        let (Some(n), Some(p)) = (nodes.get(k), placed.get(k)) else { return false };
        let local = p.world.inverse().transform_point3(glam::Vec3::new(at.0, at.1, 0.0));
        let [x0, y0, x1, y1] = draw::rect(n, draw::auto_size(scene, n));
        local.is_finite() && local.x >= x0 && local.x <= x1 && local.y >= y0 && local.y <= y1
    };
    if !placed.get(i).is_some_and(|p| p.enabled) || !inside(i) {
        return false;
    }
    let mut up = nodes[i].parent;
    while let Some(k) = up {
        if nodes[k].clipping && !inside(k) {
            return false;
        }
        up = nodes[k].parent;
    }
    true
}

impl GuiWorld {
    /// A new instance of `spec`, showing the layout that best fits the window now (chosen
    /// before its script's `init`, without a `layout_changed`, as Defold does).
    pub fn create(&mut self, slot: u32, id: &str, spec: &GuiSpec) -> u32 {
        let layout = if self.profiles.auto_layout_selection {
            display_layouts::best_layout(&self.profiles, &spec.0, self.screen.1)
        } else {
            0
        };
        let mut g = GuiInstance {
            slot,
            id: id.to_string(),
            scene: spec.0.clone(),
            nodes: spec.0.layout_nodes(layout).to_vec(),
            alive: true,
            enabled: true,
            render_order: 0,
            scene_nodes: (0..spec.0.nodes.len()).collect(),
            gens: vec![0; spec.0.nodes.len()],
            free: Vec::new(),
            flipbooks: Vec::new(),
            effects: Vec::new(),
            next_rank: 0,
            materials: file_materials(&spec.0),
            layout,
            resolution: display_layouts::resolution(&self.profiles, &spec.0, layout),
        };
        g.start_file_flipbooks();
        self.instances.push(g);
        (self.instances.len() - 1) as u32
    }

    /// Gives instance `i`'s materials their registry indices: `register` reads a `.material`
    /// (once per file) and answers its index. The first that fails is the error; the ones
    /// before keep theirs, the rest draw built-in.
    pub fn resolve_materials(
        &mut self,
        i: u32,
        register: &mut dyn FnMut(&str) -> Result<u32, String>,
    ) -> Result<(), String> {
        let Some(g) = self.get_mut(i) else { return Ok(()) };
        for (path, index) in &mut g.materials {
            *index = None;
            if path != BUILTIN_GUI_MATERIAL {
                *index = Some(register(path)?);
            }
        }
        Ok(())
    }

    pub fn get_mut(&mut self, i: u32) -> Option<&mut GuiInstance> {
        self.instances.get_mut(i as usize).filter(|g| g.alive)
    }

    /// Copies the tween cells that changed in this frame's update into their nodes.
    pub fn apply_tweens(&mut self, cells: &[f32]) {
        let GuiWorld { instances, animated, .. } = self;
        animated.retain_mut(|a| {
            let Some(g) = instances.get_mut(a.instance as usize).filter(|g| g.alive) else { return false };
            let (Some(&v), Some(n)) = (cells.get(a.cell as usize), g.nodes.get_mut(a.node as usize)) else {
                return false;
            };
            if n.deleted {
                return false;
            }
            if v.to_bits() != a.last.to_bits() {
                a.last = v;
                node_set(n, a.which, a.axis, v);
            }
            true
        });
    }

    pub fn remove(&mut self, i: u32) {
        if let Some(g) = self.instances.get_mut(i as usize) {
            g.alive = false;
            g.nodes = Vec::new();
            g.flipbooks = Vec::new();
            for e in std::mem::take(&mut g.effects) {
                self.particles.remove(e.instance);
            }
        }
    }

    /// Lays out every enabled instance for a `window` pixel screen whose design size is
    /// `display` (game.project's / project.json's), and rebuilds [`GuiWorld::list`].
    pub fn build(&mut self, display: (u32, u32), window: (u32, u32)) -> &GuiDrawList {
        self.screen = (display, window);
        let GuiWorld { instances, atlas, list, particles, .. } = self;
        let mut order: Vec<usize> =
            (0..instances.len()).filter(|&i| instances[i].alive && instances[i].enabled).collect();
        order.sort_by_key(|&i| instances[i].render_order);
        // A second pass when the glyph atlas was emptied on the way (its first quads would
        // point at texels that are gone); the second fits, or its text is left out.
        for _ in 0..2 {
            list.clear();
            for &i in &order {
                let g = &instances[i];
                let walk = layout::order(&g.nodes);
                let placed = layout::layout_in(&g.nodes, &walk, g.resolution.unwrap_or(display), window);
                draw::append(list, atlas, (&g.scene, &g.nodes, &placed, &walk), (particles, &g.effects), &g.materials);
            }
            if !list.stale {
                break;
            }
        }
        &self.list
    }
}

/// The name of index `i` in `names` (fonts, images, layers), for remapping across scenes.
fn name_at<T>(list: &[T], i: Option<usize>, name: impl Fn(&T) -> &str) -> Option<String> {
    i.and_then(|i| list.get(i)).map(|x| name(x).to_string())
}

impl GuiWorld {
    /// Hot reload of a saved `.gui`: every instance of scene `path` takes `scene` while keeping
    /// what its script did. A node keeps its index (script handles are indices): a property the
    /// script changed (the instance's value differs from the old file's) keeps the script's
    /// value, the others take the new file's; nodes the file no longer has are deleted, nodes it
    /// gained are added at the end, and nodes the script made stay. Returns how many instances
    /// were updated.
    /// A scene keeps the layout it showed when the new file still has one by that name, else
    /// takes the one that fits the window.
    pub fn reload_scene(&mut self, path: &str, scene: &Arc<GuiScene>) -> usize {
        let mut count = 0;
        let GuiWorld { instances, profiles, screen, .. } = self;
        for g in instances.iter_mut().filter(|g| g.alive && g.scene.path == path) {
            let layout = match scene.layout_index(g.scene.layout_name(g.layout)) {
                Some(k) => k,
                None if profiles.auto_layout_selection => display_layouts::best_layout(profiles, scene, screen.1),
                None => 0,
            };
            reload_instance(g, scene, layout);
            g.layout = layout;
            if let Some(size) = display_layouts::resolution(profiles, scene, layout) {
                g.resolution = Some(size);
            }
            count += 1;
        }
        count
    }
}

/// The id of the atlas animation node `n` of `scene` shows.
fn animation_id(scene: &GuiScene, n: &GuiNode) -> Option<String> {
    let atlas = scene.images.get(n.texture?)?.atlas.as_ref()?;
    Some(atlas.animations.get(n.animation? as usize)?.id.clone())
}

/// A flipbook as it was before a reload, to go on from the same place in the new atlas.
struct Playing {
    node: usize,
    id: String,
    cursor: f32,
    clock: flipbook::NodeFlipbook,
}

/// `layout`: the new scene's layout the instance shows from now on; a node's values are
/// compared with and taken from the layouts shown before and after.
fn reload_instance(g: &mut GuiInstance, scene: &Arc<GuiScene>, layout: usize) {
    let old = g.scene.clone();
    let old_nodes = old.layout_nodes(g.layout);
    let new_nodes = scene.layout_nodes(layout);
    let playing: Vec<Playing> = g
        .flipbooks
        .iter()
        .filter_map(|p| {
            let id = animation_id(&old, g.nodes.get(p.node)?)?;
            Some(Playing { node: p.node, id, cursor: g.flipbook_cursor(p.node), clock: *p })
        })
        .collect();
    // Each live node's animation by id, for remapping what a script chose.
    let anim_ids: Vec<Option<String>> = g.nodes.iter().map(|n| animation_id(&old, n)).collect();
    let font_name = |s: &GuiScene, i| name_at(&s.fonts, i, |(n, _)| n.as_str());
    let image_name = |s: &GuiScene, i| name_at(&s.images, i, |img| img.name.as_str());
    let layer_name = |s: &GuiScene, i| name_at(&s.layers, i, |l| l.as_str());
    let font_in = |n: String| scene.fonts.iter().position(|(f, _)| *f == n);
    let image_in = |n: String| scene.images.iter().position(|i| i.name == n);
    let layer_in = |n: String| scene.layers.iter().position(|l| *l == n);
    let effect_name = |s: &GuiScene, i| name_at(&s.effects, i, |(n, _)| n.as_str());
    let effect_in = |n: String| scene.effects.iter().position(|(e, _)| *e == n);
    let material_name = |s: &GuiScene, i| name_at(&s.materials, i, |(n, _)| n.as_str());
    let material_in = |n: String| scene.materials.iter().position(|(m, _)| *m == n);
    let from_file: Vec<bool> = {
        let mut v = vec![false; g.nodes.len()];
        for &i in &g.scene_nodes {
            if let Some(x) = v.get_mut(i) {
                *x = true;
            }
        }
        v
    };
    // New scene node k → the instance's index for it.
    let mut index_of_new: Vec<Option<usize>> = vec![None; scene.nodes.len()];
    let mut kept = vec![false; g.nodes.len()];
    // The old scene's nodes by id (a scene may hold thousands: no search per node).
    let mut by_id: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (k, was) in old.nodes.iter().enumerate().rev() {
        by_id.entry(was.id.as_str()).or_default().push(k);
    }
    for (k, new) in new_nodes.iter().enumerate() {
        let Some(k_old) = by_id.get_mut(new.id.as_str()).and_then(|v| v.pop()) else { continue };
        let (Some(was), Some(&i)) = (old_nodes.get(k_old), g.scene_nodes.get(k_old)) else { continue };
        let Some(deleted) = g.nodes.get(i).map(|n| n.deleted) else { continue };
        kept[i] = true;
        index_of_new[k] = Some(i);
        if deleted {
            // The script deleted it: it stays deleted (`reset_nodes` brings it back).
            continue;
        }
        let now = &mut g.nodes[i];
        macro_rules! merge {
            ($($f:ident),*) => { $( if now.$f == was.$f { now.$f = new.$f.clone(); } )* };
        }
        merge!(
            kind,
            position,
            scale,
            size,
            color,
            inherit_alpha,
            blend,
            pivot,
            xanchor,
            yanchor,
            adjust_mode,
            size_auto,
            enabled,
            visible,
            slice9,
            text,
            line_break,
            outline,
            shadow,
            leading,
            tracking,
            clipping,
            clipping_visible,
            clipping_inverted,
            outer_bounds,
            inner_radius,
            perimeter_vertices,
            pie_fill_angle
        );
        // The angles and the rotation made from them are one value (`GuiNode::euler`): taken
        // from the file together, or kept together.
        if now.rotation == was.rotation && now.euler == was.euler {
            (now.rotation, now.euler) = (new.rotation, new.euler);
        }
        // Names, not indices, say what a script chose: the new scene may list them otherwise.
        let file_animation = now.animation == was.animation && now.texture == was.texture;
        now.font = if now.font == was.font { new.font } else { font_name(&old, now.font).and_then(font_in) };
        now.texture =
            if now.texture == was.texture { new.texture } else { image_name(&old, now.texture).and_then(image_in) };
        now.layer = if now.layer == was.layer { new.layer } else { layer_name(&old, now.layer).and_then(layer_in) };
        now.effect =
            if now.effect == was.effect { new.effect } else { effect_name(&old, now.effect).and_then(effect_in) };
        now.material = if now.material == was.material {
            new.material
        } else {
            material_name(&old, now.material).and_then(material_in)
        };
        if file_animation {
            now.animation = new.animation;
            now.frame = new.frame;
        } else {
            now.animation =
                anim_ids.get(i).cloned().flatten().as_deref().and_then(|id| animation_in(scene, now.texture, id));
        }
    }
    let mut lost = Vec::new();
    for (i, n) in g.nodes.iter_mut().enumerate() {
        if from_file[i] && !kept[i] {
            // A node the file no longer has.
            n.deleted = true;
            lost.push(i);
        } else if !from_file[i] && !n.deleted {
            // A node the script made keeps its font, texture and layer by name.
            n.font = font_name(&old, n.font).and_then(font_in);
            n.texture = image_name(&old, n.texture).and_then(image_in);
            n.layer = layer_name(&old, n.layer).and_then(layer_in);
            n.effect = effect_name(&old, n.effect).and_then(effect_in);
            n.material = material_name(&old, n.material).and_then(material_in);
            n.animation =
                anim_ids.get(i).cloned().flatten().as_deref().and_then(|id| animation_in(scene, n.texture, id));
        }
    }
    // Nodes new to the file, in free slots or at the end. The lost ones' slots are free once
    // the scene no longer names them (their handles are refused by generation).
    let old_scene_nodes = std::mem::take(&mut g.scene_nodes);
    g.scene_nodes = index_of_new.iter().flatten().copied().collect();
    g.free_slots(&lost);
    let mut fresh = Vec::new();
    for (k, new) in new_nodes.iter().enumerate() {
        if index_of_new[k].is_none() {
            let i = g.add(new.clone());
            index_of_new[k] = Some(i);
            fresh.push(i);
        }
    }
    g.scene_nodes = old_scene_nodes;
    // Parents as the new file has them, unless the script moved the node (`gui.set_parent`).
    let old_parent: Vec<Option<Option<usize>>> = {
        let mut v = vec![None; g.nodes.len()];
        for (k, &i) in g.scene_nodes.iter().enumerate() {
            if let (Some(x), Some(was)) = (v.get_mut(i), old.nodes.get(k)) {
                *x = Some(was.parent.and_then(|p| g.scene_nodes.get(p).copied()));
            }
        }
        v
    };
    for (k, new) in scene.nodes.iter().enumerate() {
        let Some(i) = index_of_new[k] else { continue };
        let moved =
            !fresh.contains(&i) && old_parent[..].get(i).copied().flatten().is_some_and(|was| was != g.nodes[i].parent);
        if !moved {
            g.nodes[i].parent = new.parent.and_then(|p| index_of_new.get(p).copied().flatten());
        }
    }
    g.scene_nodes = index_of_new.into_iter().map(|i| i.unwrap_or(usize::MAX)).collect();
    g.scene = scene.clone();
    g.materials = file_materials(scene);
    reload_flipbooks(g, &playing);
}

/// The index of animation `id` in the atlas of texture `texture` of `scene`.
fn animation_in(scene: &GuiScene, texture: Option<usize>, id: &str) -> Option<u32> {
    let atlas = scene.images.get(texture?)?.atlas.as_ref()?;
    atlas.animations.iter().position(|a| a.id == id).map(|k| k as u32)
}

/// After a reload: a node still on the animation it played goes on from the same cursor and
/// rate (playing or not, with its callback), as sprites do when their atlas reloads; a node
/// the file gave another animation (or a new node) plays it from the start.
fn reload_flipbooks(g: &mut GuiInstance, playing: &[Playing]) {
    g.flipbooks.clear();
    for node in 0..g.nodes.len() {
        let n = &g.nodes[node];
        if n.deleted || n.animation.is_none() {
            continue;
        }
        let id = animation_id(&g.scene, n);
        match playing.iter().find(|p| p.node == node && Some(&p.id) == id.as_ref()) {
            Some(p) => {
                g.start(node, 0.0, p.clock.clock.rate, p.clock.listener);
                g.set_flipbook_cursor(node, p.cursor);
                if let Some(f) = g.flipbooks.iter_mut().find(|f| f.node == node) {
                    f.clock.playing = p.clock.clock.playing;
                }
            }
            None => g.start(node, 0.0, 1.0, None),
        }
    }
}

impl GuiInstance {
    /// `gui.reset_nodes`: every node of the scene back as the file has it in the layout shown
    /// (at the index its handles know), and the nodes scripts made deleted (their slots free).
    pub fn reset(&mut self) {
        let mut from_file = vec![false; self.nodes.len()];
        let scene = self.scene.clone();
        let file = scene.layout_nodes(self.layout);
        for (k, &i) in self.scene_nodes.iter().enumerate() {
            let (Some(src), Some(slot)) = (file.get(k), self.nodes.get_mut(i)) else { continue };
            *slot = src.clone();
            slot.parent = src.parent.and_then(|p| self.scene_nodes.get(p).copied());
            from_file[i] = true;
        }
        let mut gone = Vec::new();
        for (i, (n, file)) in self.nodes.iter_mut().zip(&from_file).enumerate() {
            if !file && !n.deleted {
                n.deleted = true;
                gone.push(i);
            }
        }
        self.free_slots(&gone);
        self.start_file_flipbooks();
    }
}
