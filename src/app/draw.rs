//! From game state to the renderer's flat draw list: GPU uploads of the game's assets, the
//! camera, lights and one item per visible model instance.
use crate::base::hash::Hash;
use crate::game::World;
use crate::project::model_data::Aabb;
use crate::project::{LightKind, Look, Resources};
use crate::render::{CameraView, camera_from_component, default_camera, transform_aabb};
use crate::render::{
    DebugCube, DebugDraw, DrawList, LightItem, MaterialHandle, ModelHandle, ModelRenderer, Pass, SubmitStats,
    TextureHandle,
};
use glam::{Mat4, Vec3};

/// What `run` logs and `check` lists for a material that does not compile: the same words, so
/// both say what happens (Sinew decision: the game runs, the models and sprites using it are not drawn).
pub fn material_skipped(e: &dyn std::fmt::Display, path: &str) -> String {
    format!("{e}\n(models and sprites using {path} are skipped; the rest renders)")
}

/// GPU-side state of the running game.
pub struct Scenery {
    pub renderer: ModelRenderer,
    models: Vec<Option<ModelHandle>>,
    materials: Vec<Option<MaterialHandle>>,
    textures: Vec<Option<TextureHandle>>,
    /// Per-item texture overrides, reused every frame.
    bound: Vec<(Hash, TextureHandle)>,
    list: DrawList,
    /// The default camera frames the scene as it was on the first frame, then stays put.
    default_camera: Option<CameraView>,
    /// Set for Defold projects: without a camera, the world is seen as Defold's default render
    /// script shows it (`game::render_requests::ScreenView`) instead of by the framing camera.
    pub screen_view: bool,
    /// The game's display size (the window it was made for), which those views are made for.
    pub display: (u32, u32),
    debug: Option<DebugDraw>,
    /// `draw_text` / `draw_line` sent to `@render:`.
    overlay: crate::render::Overlay,
    /// The project's ambient, shading and tone mapping settings.
    look: Look,
    /// Sprite quads (made each frame into this kept list) and their renderer.
    sprites: crate::render::SpriteRenderer,
    sprite_quads: Vec<crate::game::sprites::quads::SpriteQuad>,
    /// Draw calls the sprites took in the last frame (benchmarks read it).
    pub sprite_draw_calls: u32,
    /// `gui` components, drawn last.
    gui: crate::render::GuiRenderer,
    gui_calls: Vec<crate::render::GuiCall>,
    /// The frame buffers of the render script's render targets.
    targets: crate::render::TargetFramebuffers,
}

impl Scenery {
    pub fn new(gl: &glow::Context, debug_draw: bool) -> Result<Scenery, String> {
        let debug = if debug_draw { Some(DebugDraw::new(gl)?) } else { None };
        Ok(Scenery {
            renderer: ModelRenderer::new(gl)?,
            models: Vec::new(),
            materials: Vec::new(),
            textures: Vec::new(),
            bound: Vec::new(),
            list: DrawList::default(),
            default_camera: None,
            screen_view: false,
            display: (1, 1),
            debug,
            overlay: crate::render::Overlay::new(gl)?,
            look: Look::default(),
            sprites: crate::render::SpriteRenderer::new(gl)?,
            sprite_quads: Vec::new(),
            sprite_draw_calls: 0,
            gui: crate::render::GuiRenderer::new(gl)?,
            gui_calls: Vec::new(),
            targets: Default::default(),
        })
    }

    /// Uses the project's lighting and output settings from the next frame on.
    pub fn set_look(&mut self, look: Look) {
        self.look = look;
    }

    /// Uploads assets and compiles materials the renderer has not seen yet. A material that
    /// fails to compile is reported once (with the driver log); its models are skipped.
    pub fn sync(&mut self, gl: &glow::Context, w: &World, res: &Resources) {
        for a in &w.models.assets[self.models.len().min(w.models.assets.len())..] {
            let h = self.renderer.add_model(gl, &a.data).map_err(|e| log::error!("{}: {e}", a.path)).ok();
            self.models.push(h);
        }
        for t in &w.models.textures[self.textures.len().min(w.models.textures.len())..] {
            let h = self.renderer.add_texture(gl, &t.data).map_err(|e| log::error!("{}: {e}", t.path)).ok();
            self.textures.push(h);
        }
        for m in &w.models.materials[self.materials.len().min(w.models.materials.len())..] {
            let mut read = |p: &str| res.read_string(p, Some(&m.path));
            let h = self
                .renderer
                .add_material(gl, &m.path, &mut read)
                .map_err(|e| log::error!("{}", material_skipped(&e, &m.path)))
                .ok();
            self.materials.push(h);
        }
    }

    /// Swaps in a re-imported model: the new GPU copy replaces the old one for every instance.
    pub fn refresh_model(&mut self, gl: &glow::Context, w: &World, asset: u32) -> Result<(), String> {
        let a = w.models.assets.get(asset as usize).ok_or("no such model")?;
        let new = self.renderer.add_model(gl, &a.data)?;
        if let Some(Some(old)) = self.models.get_mut(asset as usize).map(|h| h.replace(new)) {
            self.renderer.remove_model(gl, old);
        }
        Ok(())
    }

    /// Recompiles a material; on a compile or link error the previous program stays in use.
    pub fn refresh_material(
        &mut self,
        gl: &glow::Context,
        w: &World,
        res: &Resources,
        material: u32,
    ) -> Result<(), String> {
        let m = w.models.materials.get(material as usize).ok_or("no such material")?;
        let mut read = |p: &str| res.read_string(p, Some(&m.path));
        let new = self.renderer.add_material(gl, &m.path, &mut read).map_err(|e| e.to_string())?;
        if let Some(Some(old)) = self.materials.get_mut(material as usize).map(|h| h.replace(new)) {
            self.renderer.remove_material(gl, old);
        }
        Ok(())
    }

    /// Builds this frame's draw list and submits it (and the debug cubes, when on); returns what
    /// the model renderer did, for `--stats`.
    pub fn draw(&mut self, gl: &glow::Context, w: &World, size: (u32, u32)) -> SubmitStats {
        self.list.clear();
        self.list.camera = self.camera(w, size);
        self.list.time = [w.time as f32, w.dt, 0.0, 0.0];
        self.list.look = self.look;
        for l in w.models.lights.iter().filter(|l| l.alive && l.enabled) {
            let m = world_matrix(w, l.slot);
            self.list.lights.push(LightItem {
                kind: l.spec.kind,
                position: m.w_axis.truncate(),
                direction: -m.z_axis.truncate().normalize_or_zero(),
                color: l.spec.color,
                intensity: l.spec.intensity,
                range: l.spec.range,
                cone: [l.spec.inner_cone, l.spec.outer_cone],
            });
        }
        // The key light stands in while nothing lights a side more than another (ambient lights
        // alone leave the scene flat).
        if self.list.lights.iter().all(|l| l.kind == LightKind::Ambient) {
            self.list.lights.push(LightItem::default_key_light());
        }
        for m in w.models.instances.iter().filter(|m| m.alive && m.enabled) {
            let (Some(Some(model)), Some(Some(material))) =
                (self.models.get(m.asset as usize), self.materials.get(m.material as usize))
            else {
                continue;
            };
            let mut world = world_matrix(w, m.slot);
            if let Some(local) = m.spec.transform.matrix() {
                world *= local;
            }
            self.bound.clear();
            for &(sampler, t) in &m.textures {
                if let Some(Some(h)) = self.textures.get(t as usize) {
                    self.bound.push((sampler, *h));
                }
            }
            self.list.push_with(*model, *material, world, &m.constants, &m.mesh_enabled, &self.bound);
            self.list.set_shadows(m.spec.cast_shadows, m.spec.receive_shadows);
            if !m.weights.is_empty() {
                self.list.set_morph_weights(&m.weights);
            }
            if let Some(anim) = m.anim.as_ref() {
                if !anim.palette.is_empty() {
                    self.list.set_palette_rows(&anim.palette);
                }
                if !anim.mesh_world.is_empty() {
                    self.list.set_mesh_worlds(&anim.mesh_world);
                }
            }
        }
        for l in w.labels.instances.iter().filter(|l| l.alive && l.enabled && !l.text.is_empty()) {
            let world = world_matrix(w, l.slot);
            let item = crate::render::LabelItem {
                scale: [l.scale[0], l.scale[1]],
                color: l.color,
                outline: l.outline,
                anchor: l.anchor,
                shadow: l.shadow,
                wrap: l.layout.wrap.unwrap_or(0.0),
                leading: l.layout.leading,
                tracking: l.layout.tracking,
                world_size: l.layout.world_size,
                axes: [world.x_axis.truncate(), world.y_axis.truncate()],
                ..crate::render::LabelItem::plain(world.transform_point3(Vec3::from(l.position)), l.size)
            };
            self.list.push_label(item, &l.text, l.layout.font.as_ref().map(|f| &f.font));
        }
        self.renderer.clock.begin(gl);
        if w.render_script.ready {
            return self.draw_as_scripted(gl, w, size);
        }
        // A render script that stopped leaves no frame buffers behind.
        self.targets.sync(gl, w.render_script.targets.all());
        let stats = self.renderer.submit(gl, &self.list);
        w.sprites.quads(&w.scene, self.list.camera.view.inverse(), &mut self.sprite_quads);
        w.particles.quads(&w.scene, &mut self.sprite_quads);
        w.tilemaps.quads(&w.scene, &mut self.sprite_quads);
        // Looked up per run rather than collected, so a frame allocates nothing here.
        let (renderer, handles) = (&self.renderer, &self.materials);
        let material = |i: u32| handles.get(i as usize).copied().flatten().and_then(|h| renderer.material(h));
        let frame = renderer.frame();
        self.sprites.set_filter(gl, self.look.texture_filter);
        self.sprite_draw_calls = self.sprites.draw(gl, &self.sprite_quads, &w.sprites, &material, frame);
        self.renderer.clock.lap(gl, Pass::Sprites);
        if let Some(d) = &self.debug {
            let half = Mat4::from_scale(Vec3::splat(0.5));
            let cubes: Vec<DebugCube> = (0..w.scene.capacity())
                .filter(|&s| w.scene.alive[s] && !has_model(w, s) && !w.models.is_bone(s as u32))
                .map(|s| DebugCube { world: world_matrix(w, s as u32) * half, color: id_color(w.scene.ids[s]) })
                .collect();
            d.draw(gl, self.list.camera.proj * self.list.camera.view, &cubes);
        }
        for l in &w.render.lines {
            self.overlay.line(l.start, l.end, l.color);
        }
        for t in &w.render.texts {
            self.overlay.text(&t.text, (t.x, t.y), t.color, t.size);
        }
        self.overlay.labels(&self.list, size);
        self.overlay.draw(gl, self.list.camera.proj * self.list.camera.view, size);
        self.renderer.clock.lap(gl, Pass::Overlay);
        self.draw_gui(gl, w, size);
        self.renderer.clock.lap(gl, Pass::Gui);
        stats
    }

    /// Carries out the commands of the project's render script's last good `update`, in order
    /// (`game::render_script`): clears, viewports, the view and projection each draw is seen
    /// through (and, for models, the cull face and depth function), and each `render.draw`
    /// drawing the passes its predicate's tags name — models by
    /// their material's tags (`model` for a material without), `tile` sprites and tile maps,
    /// `particle` particles, `text` labels, `gui` the GUI; `render.draw_debug3d` the debug lines
    /// and texts; `render.set_render_target` switches between the window and the script's
    /// render targets, and `render.enable_texture` has model draws sample one. The draw list was
    /// built by `draw`.
    fn draw_as_scripted(&mut self, gl: &glow::Context, w: &World, size: (u32, u32)) -> SubmitStats {
        use crate::game::render_script::{Command, pass_tags};
        use glow::HasContext;
        self.targets.sync(gl, w.render_script.targets.all());
        // SAFETY: a plain query on the current context.
        let window = unsafe { gl.get_parameter_framebuffer(glow::DRAW_FRAMEBUFFER_BINDING) };
        let tags = pass_tags();
        let builtin = [tags.tile, tags.particle, tags.text, tags.gui];
        let mut stats = SubmitStats::default();
        let (mut view, mut proj) = (Mat4::IDENTITY, Mat4::IDENTITY);
        let mut viewport = (size.0, size.1);
        let (mut cull, mut depth) = (glow::BACK, glow::LESS);
        self.sprite_draw_calls = 0;
        let mut lost = false;
        for c in &w.render_script.commands {
            match *c {
                Command::Clear { .. } | Command::Draw(_) | Command::DrawDebug3d if lost => {
                    self.renderer.draw_constants.clear();
                }
                Command::Constants { first, count } => {
                    self.renderer.draw_constants.clear();
                    self.renderer.draw_constants.extend_from_slice(w.render_script.constants_of(first, count));
                }
                Command::Clear { color, depth, stencil } => clear(gl, color, depth, stencil),
                Command::Viewport([x, y, width, height]) => {
                    viewport = (width as u32, height as u32);
                    // SAFETY: plain state on the current context.
                    unsafe { glow::HasContext::viewport(gl, x, y, width, height) };
                }
                Command::CullFace(f) => cull = gl_face(f),
                Command::DepthFunc(c) => depth = gl_compare(c),
                Command::Target(t) => {
                    // A target that could not be made (reported when it was) takes nothing: its
                    // clears and draws are skipped rather than drawn over the window.
                    let fbo = t.map_or(Some(window), |n| self.targets.framebuffer(n).map(Some));
                    lost = fbo.is_none();
                    // SAFETY: the frame buffers belong to the current context.
                    unsafe { gl.bind_framebuffer(glow::FRAMEBUFFER, fbo.unwrap_or(window)) };
                }
                Command::EnableTexture { binding, target, buffer } => {
                    if let Some(tex) = self.targets.texture(target, buffer) {
                        self.renderer.enabled_textures.push((binding, tex));
                    }
                }
                Command::DisableTexture(binding) => self.renderer.enabled_textures.retain(|(b, _)| *b != binding),
                Command::View(m) => view = m,
                Command::Projection(m) => proj = m,
                Command::Draw(p) => {
                    let pred = w.render_script.tags(p);
                    self.list.camera = CameraView { view, proj, position: view.inverse().w_axis.truncate() };
                    if pred.iter().any(|t| !builtin.contains(t)) && self.renderer.names_a_material(pred) {
                        let s = self.renderer.submit_scripted(gl, &self.list, pred, (cull, depth));
                        stats.draws += s.draws;
                        stats.draw_calls += s.draw_calls;
                        stats.triangles += s.triangles;
                        stats.skinned_instances += s.skinned_instances;
                        stats.culled += s.culled;
                    } else {
                        self.renderer.look_through(&self.list);
                    }
                    let (tile, particle) = (pred.contains(&tags.tile), pred.contains(&tags.particle));
                    if tile || particle {
                        self.sprite_quads.clear();
                        if tile {
                            w.sprites.quads(&w.scene, view.inverse(), &mut self.sprite_quads);
                            w.tilemaps.quads(&w.scene, &mut self.sprite_quads);
                        }
                        if particle {
                            w.particles.quads(&w.scene, &mut self.sprite_quads);
                        }
                        let (renderer, handles) = (&self.renderer, &self.materials);
                        let material =
                            |i: u32| handles.get(i as usize).copied().flatten().and_then(|h| renderer.material(h));
                        self.sprites.set_filter(gl, self.look.texture_filter);
                        self.sprite_draw_calls +=
                            self.sprites.draw(gl, &self.sprite_quads, &w.sprites, &material, renderer.frame());
                    }
                    if pred.contains(&tags.text) {
                        self.overlay.labels(&self.list, viewport);
                        self.overlay.draw(gl, proj * view, viewport);
                    }
                    if pred.contains(&tags.gui) {
                        self.draw_gui(gl, w, size);
                    }
                    // A draw's constants are its own.
                    self.renderer.draw_constants.clear();
                }
                Command::DrawDebug3d => {
                    for l in &w.render.lines {
                        self.overlay.line(l.start, l.end, l.color);
                    }
                    for t in &w.render.texts {
                        self.overlay.text(&t.text, (t.x, t.y), t.color, t.size);
                    }
                    self.overlay.draw(gl, proj * view, viewport);
                }
            }
        }
        self.renderer.enabled_textures.clear();
        self.renderer.draw_constants.clear();
        // SAFETY: the window's frame buffer, bound when the frame began.
        unsafe { gl.bind_framebuffer(glow::FRAMEBUFFER, window) };
        self.renderer.clock.lap(gl, Pass::Gui);
        stats
    }

    /// The GUI list `World::gui` built for this frame, above everything.
    fn draw_gui(&mut self, gl: &glow::Context, w: &World, size: (u32, u32)) {
        use crate::game::gui::GuiTexture;
        let list = &w.gui.list;
        self.gui_calls.clear();
        self.gui_calls.extend(list.batches.iter().map(|b| {
            let (mode, image) = match b.texture {
                GuiTexture::White => (0, 0),
                GuiTexture::Glyphs => (1, 0),
                GuiTexture::Image(i) => (2, i),
            };
            crate::render::GuiCall {
                mode,
                image,
                first: b.first,
                count: b.count,
                stencil_test: b.stencil_test,
                stencil_write: b.stencil_write,
                additive: b.additive,
                material: b.material,
            }
        }));
        let (renderer, handles) = (&self.renderer, &self.materials);
        let material = |i: u32| handles.get(i as usize).copied().flatten().and_then(|h| renderer.material(h));
        let frame = renderer.frame();
        self.gui.draw(gl, size, &list.vertices, &self.gui_calls, &list.images, &w.gui.atlas, &material, frame);
    }

    /// The active camera component (the last to acquire focus, else the first enabled), else a camera framing the models (or, with none,
    /// all game objects) as they were on the first frame.
    fn camera(&mut self, w: &World, size: (u32, u32)) -> CameraView {
        let aspect = size.0 as f32 / size.1.max(1) as f32;
        if let Some(c) = w.models.active_camera() {
            return camera_from_component(world_matrix(w, c.slot), &c.spec, aspect);
        }
        if self.screen_view || w.render.screen.chosen {
            let (view, proj) = w.render.screen.matrices(self.display, size);
            return CameraView { view, proj, position: view.inverse().w_axis.truncate() };
        }
        *self.default_camera.get_or_insert_with(|| default_camera(&scene_bounds(w), aspect))
    }
}

fn gl_face(f: crate::game::render_script::Face) -> u32 {
    use crate::game::render_script::Face;
    match f {
        Face::Front => glow::FRONT,
        Face::Back => glow::BACK,
        Face::FrontAndBack => glow::FRONT_AND_BACK,
    }
}

fn gl_compare(c: crate::game::render_script::Compare) -> u32 {
    use crate::game::render_script::Compare;
    match c {
        Compare::Never => glow::NEVER,
        Compare::Less => glow::LESS,
        Compare::Lequal => glow::LEQUAL,
        Compare::Greater => glow::GREATER,
        Compare::Gequal => glow::GEQUAL,
        Compare::Equal => glow::EQUAL,
        Compare::Notequal => glow::NOTEQUAL,
        Compare::Always => glow::ALWAYS,
    }
}

/// `render.clear`: the buffers given, whatever masks the passes before left.
fn clear(gl: &glow::Context, color: Option<[f32; 4]>, depth: Option<f32>, stencil: Option<i32>) {
    use glow::HasContext;
    let mut bits = 0;
    // SAFETY: plain state and a clear on the current context.
    unsafe {
        if let Some([r, g, b, a]) = color {
            gl.color_mask(true, true, true, true);
            gl.clear_color(r, g, b, a);
            bits |= glow::COLOR_BUFFER_BIT;
        }
        if let Some(d) = depth {
            gl.depth_mask(true);
            gl.clear_depth_f32(d);
            bits |= glow::DEPTH_BUFFER_BIT;
        }
        if let Some(s) = stencil {
            gl.stencil_mask(0xff);
            gl.clear_stencil(s);
            bits |= glow::STENCIL_BUFFER_BIT;
        }
        if bits != 0 {
            gl.disable(glow::SCISSOR_TEST);
            gl.clear(bits);
        }
    }
}

fn world_matrix(w: &World, slot: u32) -> Mat4 {
    Mat4::from(w.scene.world_of(slot))
}

/// Debug cubes stand in for objects that show nothing else.
fn has_model(w: &World, slot: usize) -> bool {
    w.scene.components[slot].iter().any(|c| matches!(c.kind, crate::scene::ComponentRef::Model(_)))
}

/// World bounds of every model instance and every game object (as a unit cube).
fn scene_bounds(w: &World) -> Aabb {
    let mut b = Aabb::default();
    for m in w.models.instances.iter().filter(|m| m.alive) {
        if let Some(a) = w.models.assets.get(m.asset as usize) {
            let wb = transform_aabb(&a.data.aabb, world_matrix(w, m.slot));
            if !wb.is_empty() {
                b.grow(wb.min);
                b.grow(wb.max);
            }
        }
    }
    for s in (0..w.scene.capacity()).filter(|&s| w.scene.alive[s]) {
        let p = world_matrix(w, s as u32).w_axis.truncate();
        b.grow((p - Vec3::splat(0.5)).to_array());
        b.grow((p + Vec3::splat(0.5)).to_array());
    }
    b
}

/// A stable colour per game object for debug cubes.
fn id_color(h: u64) -> [f32; 4] {
    let c = |shift: u32| 0.35 + ((h >> shift) & 0xff) as f32 / 400.0;
    [c(0), c(8), c(16), 1.0]
}
