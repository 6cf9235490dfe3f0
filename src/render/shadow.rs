//! The shadow map of the scene's first directional light (project setting `shadows`).
//!
//! Each frame with shadows on, before the main pass:
//!
//! 1. **Fit.** An orthographic light frustum is fitted to what the camera can see: the view
//!    frustum cut at `shadow_distance`, intersected (across the light) with the bounds of the
//!    primitives in view. A close-up gets its few metres at full resolution, a field seen to
//!    the horizon gets the nearest `shadow_distance` of it, and a small scene seen from afar
//!    gets the scene rather than the empty frustum around it. The square is grown to the next
//!    step of a fixed ladder (2^(1/4) apart) and its centre snapped to whole texels, so a
//!    moving camera changes the frustum rarely and never by part of a texel: edges do not crawl.
//!    Depth covers every caster across the rectangle, in front of the view frustum or not (a
//!    post behind the camera still shades the ground in front of it).
//! 2. **Depth pass.** Every item with `cast_shadows` (opaque and masked primitives; blended ones
//!    cast nothing, as in three.js) is drawn with the built-in `model.vp` and `shadow.fp`, so
//!    skinning and morphing use the same code and the same frame's `pose_matrix_cache` as the
//!    main pass (opaque ones with an empty fragment program, so llvmpipe's depth-only path
//!    runs). Instances of one unmorphed primitive share an instanced draw call. Both faces
//!    are drawn (open meshes and planes cast too), with a slope-scaled polygon offset.
//! 3. **Lookup.** A program that declares `sampler2DShadow shadow_map` (the built-in model
//!    material does) gets the depth texture with hardware comparison and linear filtering, the
//!    matrix `mtx_shadow` (view space → map coordinates and depth), `shadow_params` and
//!    `shadow_receive`; `model.fp` takes four filtered taps 1.5 texels apart (PCF over 2×2
//!    bilinear comparisons: a soft edge about three and a half texels wide), from a point pushed off the surface
//!    along its normal by one to three texels (more where the light grazes the surface, where
//!    acne starts). Normal offset plus the small polygon offset keep the bias near a texel,
//!    so contact shadows stay attached (no peter-panning at the demo's scale).
//!
//! Custom materials that declare none of these names receive no shadow and draw as before.

use glam::camera::rh::proj::opengl::orthographic;
use glam::camera::rh::view::look_to_mat4;
use glam::{Mat4, Vec3, Vec4, Vec4Swizzles};
use glow::HasContext;

use super::draw::{DrawList, LightKind, MaterialHandle};
use super::mesh::{GpuModel, set_attribute_defaults};
use super::skin::PoseCache;
use crate::project::model_data::AlphaMode;

const VERTEX_SOURCE: &str = include_str!("../../shaders/model.vp");
const FRAGMENT_SOURCE: &str = include_str!("../../shaders/shadow.fp");
/// Opaque casters write depth only: without a `discard` in the program, llvmpipe takes its
/// fast depth-only path (a ground plane filling the map costs a fraction as much).
const OPAQUE_FRAGMENT_SOURCE: &str = "#version 140\nvoid main()\n{\n}\n";

/// Floats per caster instance: the world matrix (fed as `mtx_worldview`; the light's view is
/// in `mtx_proj`) and `animation_data`.
const INSTANCE_FLOATS: usize = 20;

/// Texture units of the depth program: base colour (alpha mask), pose cache, morph targets.
const UNIT_TEX0: u32 = 0;
const UNIT_POSE: u32 = 1;
const UNIT_MORPH: u32 = 2;

/// Slope-scaled depth bias of the depth pass (glPolygonOffset factor, units): small, since the
/// normal offset in `model.fp` does most of the work and a large bias detaches shadows.
const POLYGON_OFFSET: (f32, f32) = (1.5, 4.0);

/// What the main pass's programs read about this frame's shadow map.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ShadowFrame {
    /// World space → shadow map: xy texture coordinates, z depth in 0..1.
    pub world_to_map: Mat4,
    /// x: slot of the shadowing light in `light_position[]`, -1 when no light casts this frame;
    /// y: one texel in world units; z: one texel in texture coordinates.
    pub params: [f32; 4],
}

impl ShadowFrame {
    pub const OFF: ShadowFrame = ShadowFrame { world_to_map: Mat4::IDENTITY, params: [-1.0, 0.0, 0.0, 0.0] };
}

/// The fitted light frustum of one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LightFit {
    /// Light view (rotation and translation) and orthographic projection.
    pub view: Mat4,
    pub proj: Mat4,
    /// Side of one texel in world units.
    pub texel: f32,
}

/// Fits the light's orthographic frustum (see the module doc). `direction` is where the light
/// shines; `receivers` and `casters` are world bounding spheres (xyz centre, w radius) of what
/// the camera sees and of what may cast. None when nothing in view can be shadowed.
pub(crate) fn fit_light(
    camera_view: Mat4,
    camera_proj: Mat4,
    direction: Vec3,
    distance: f32,
    size: u32,
    receivers: &[Vec4],
    casters: &[Vec4],
) -> Option<LightFit> {
    let dir = direction.try_normalize()?;
    let up = if dir.y.abs() > 0.99 { Vec3::Z } else { Vec3::Y };
    // Rotation only: the frustum's position is set by the projection's box, in light space.
    let light = look_to_mat4(Vec3::ZERO, dir, up);
    let inv = (camera_proj * camera_view).inverse();
    if !inv.is_finite() {
        return None;
    }
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for (x, y) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
        let near = inv.project_point3(Vec3::new(x, y, -1.0));
        let far = inv.project_point3(Vec3::new(x, y, 1.0));
        let (dn, df) = (-camera_view.transform_point3(near).z, -camera_view.transform_point3(far).z);
        let t = if df - dn > 1e-6 { ((distance - dn) / (df - dn)).clamp(0.0, 1.0) } else { 1.0 };
        for p in [near, near + (far - near) * t] {
            let q = light.transform_point3(p);
            (lo, hi) = (lo.min(q), hi.max(q));
        }
    }
    // Across the light: the frustum slice, narrowed to what is in view.
    let (mut rlo, mut rhi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for s in receivers {
        let c = light.transform_point3(s.xyz());
        (rlo, rhi) = (rlo.min(c - s.w), rhi.max(c + s.w));
    }
    let (x0, x1) = (lo.x.max(rlo.x), hi.x.min(rhi.x));
    let (y0, y1) = (lo.y.max(rlo.y), hi.y.min(rhi.y));
    if !(x0 < x1 && y0 < y1) {
        return None;
    }
    // The ladder: sides 2^(k/4), so the square changes size only in steps of ~19%.
    let side = (x1 - x0).max(y1 - y0).max(1e-3);
    let side = 2f32.powf((side.log2() * 4.0).ceil() / 4.0);
    let texel = side / size.max(1) as f32;
    let snap = |v: f32| (v / texel).round() * texel;
    let (cx, cy) = (snap((x0 + x1) * 0.5), snap((y0 + y1) * 0.5));
    let half = side * 0.5 + texel; // a texel of margin for the PCF taps at the edge
    // Along the light: everything that may cast onto the square, and the receivers behind it.
    let (mut zlo, mut zhi) = (rlo.z, rhi.z);
    for s in casters {
        let c = light.transform_point3(s.xyz());
        if (c.x - cx).abs() <= half + s.w && (c.y - cy).abs() <= half + s.w {
            (zlo, zhi) = (zlo.min(c.z - s.w), zhi.max(c.z + s.w));
        }
    }
    if !(zlo.is_finite() && zhi.is_finite()) {
        return None;
    }
    let margin = (zhi - zlo).max(1.0) * 0.01;
    // Right-handed view: the light looks down -z, so near and far distances are -z.
    let proj = orthographic(cx - half, cx + half, cy - half, cy + half, -zhi - margin, -zlo + margin);
    Some(LightFit { view: light, proj, texel })
}

/// The depth program and where its inputs are.
struct DepthProgram {
    program: glow::Program,
    mtx_proj: Option<glow::UniformLocation>,
    base_color: Option<glow::UniformLocation>,
    base_color_texcoord: Option<glow::UniformLocation>,
    alpha_cutoff: Option<glow::UniformLocation>,
    morph_weights: Option<glow::UniformLocation>,
    morph_count: Option<glow::UniformLocation>,
    /// (location, columns, rows, float offset in the instance record).
    attributes: Vec<(u32, u32, i32, usize)>,
    /// `mtx_normal`'s first location and columns, when the linker kept it: fed the identity.
    normal: Option<(u32, u32)>,
}

impl DepthProgram {
    fn new(gl: &glow::Context, fragment: &str) -> Result<DepthProgram, String> {
        use super::shader::{Stage, link};
        let program = link(
            gl,
            &[
                Stage {
                    kind: glow::VERTEX_SHADER,
                    resource: "/builtins/shaders/model.vp",
                    source: VERTEX_SOURCE,
                    defines: "",
                },
                Stage {
                    kind: glow::FRAGMENT_SHADER,
                    resource: "/builtins/shaders/shadow.fp",
                    source: fragment,
                    defines: "",
                },
            ],
        )
        .map_err(|e| e.to_string())?;
        // SAFETY: queries and uniform setup on a program just linked on the current context.
        unsafe {
            let loc = |name: &str| gl.get_uniform_location(program, name);
            gl.use_program(Some(program));
            for (name, unit) in [("tex0", UNIT_TEX0), ("pose_matrix_cache", UNIT_POSE), ("morph_targets", UNIT_MORPH)] {
                if let Some(l) = loc(name) {
                    gl.uniform_1_i32(Some(&l), unit as i32);
                }
            }
            gl.use_program(None);
            let mut attributes = Vec::new();
            if let Some(l) = gl.get_attrib_location(program, "mtx_worldview") {
                attributes.push((l, 4, 4, 0));
            }
            if let Some(l) = gl.get_attrib_location(program, "animation_data") {
                attributes.push((l, 1, 4, 16));
            }
            let normal = gl.get_attrib_location(program, "mtx_normal").map(|l| (l, 3));
            Ok(DepthProgram {
                mtx_proj: loc("mtx_proj"),
                base_color: loc("base_color"),
                base_color_texcoord: loc("base_color_texcoord"),
                alpha_cutoff: loc("alpha_cutoff"),
                morph_weights: loc("morph_targets_weights"),
                morph_count: loc("morph_target_count"),
                program,
                attributes,
                normal,
            })
        }
    }
}

/// One caster primitive of the frame.
#[derive(Clone, Copy, Debug)]
struct Caster {
    model: u32,
    prim: u32,
    item: u32,
}

/// GL objects and per-frame scratch of the shadow pass.
pub(crate) struct ShadowMap {
    /// (opaque, alpha-masked) depth programs, compiled on the first frame with shadows on; Err
    /// once either failed (reported once).
    program: Option<Result<[DepthProgram; 2], ()>>,
    /// Depth texture, its frame buffer and its side; made (again) when the size changes.
    target: Option<(glow::Texture, glow::Framebuffer, u32)>,
    /// A 1×1 depth texture of depth 1 (nothing shadowed): bound to `shadow_map` while shadows
    /// are off, so a program that declares it always samples a depth texture.
    lit: glow::Texture,
    instance_buffer: glow::Buffer,
    instances: Vec<f32>,
    receivers: Vec<Vec4>,
    casters: Vec<Vec4>,
    draws: Vec<Caster>,
    morph_scratch: Vec<f32>,
    /// This frame's values for the main pass.
    pub frame: ShadowFrame,
    errors: Vec<String>,
}

/// A depth texture with hardware comparison and bilinear filtering (2×2 PCF per lookup).
///
/// # Safety
/// The context must be current.
unsafe fn depth_texture(gl: &glow::Context, size: u32, data: Option<&[u8]>) -> Result<glow::Texture, String> {
    // SAFETY: the caller's contract; plain texture creation and parameters.
    unsafe {
        let t = gl.create_texture()?;
        gl.bind_texture(glow::TEXTURE_2D, Some(t));
        // 32-bit float rather than 24-bit: llvmpipe fetches a plain float channel with vector
        // code, where packed 24-bit depth took a per-pixel path that made each lookup several
        // times slower.
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            glow::DEPTH_COMPONENT32F as i32,
            size as i32,
            size as i32,
            0,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            glow::PixelUnpackData::Slice(data),
        );
        for (p, v) in [
            (glow::TEXTURE_MIN_FILTER, glow::LINEAR),
            (glow::TEXTURE_MAG_FILTER, glow::LINEAR),
            (glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE),
            (glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE),
            (glow::TEXTURE_COMPARE_MODE, glow::COMPARE_REF_TO_TEXTURE),
            (glow::TEXTURE_COMPARE_FUNC, glow::LEQUAL),
        ] {
            gl.tex_parameter_i32(glow::TEXTURE_2D, p, v as i32);
        }
        gl.bind_texture(glow::TEXTURE_2D, None);
        Ok(t)
    }
}

impl ShadowMap {
    pub fn new(gl: &glow::Context) -> Result<ShadowMap, String> {
        // SAFETY: object creation on the current context; freed on the error path.
        unsafe {
            let lit = depth_texture(gl, 1, Some(&1.0f32.to_ne_bytes()))?;
            let instance_buffer = match gl.create_buffer() {
                Ok(b) => b,
                Err(e) => {
                    gl.delete_texture(lit);
                    return Err(e);
                }
            };
            Ok(ShadowMap {
                program: None,
                target: None,
                lit,
                instance_buffer,
                instances: Vec::new(),
                receivers: Vec::new(),
                casters: Vec::new(),
                draws: Vec::new(),
                morph_scratch: Vec::new(),
                frame: ShadowFrame::OFF,
                errors: Vec::new(),
            })
        }
    }

    /// What to bind to `shadow_map`: this frame's depth texture, or one that shadows nothing.
    pub fn texture(&self) -> glow::Texture {
        match self.target {
            Some((t, _, _)) if self.frame.params[0] >= 0.0 => t,
            _ => self.lit,
        }
    }

    /// Problems met (each once): the depth program or frame buffer could not be made.
    pub fn take_errors(&mut self) -> Vec<String> {
        std::mem::take(&mut self.errors)
    }

    pub fn destroy(&mut self, gl: &glow::Context) {
        // SAFETY: objects created on `gl`, not used afterwards.
        unsafe {
            for p in self.program.take().into_iter().flatten().flatten() {
                gl.delete_program(p.program);
            }
            if let Some((t, f, _)) = self.target.take() {
                gl.delete_texture(t);
                gl.delete_framebuffer(f);
            }
            gl.delete_texture(self.lit);
            gl.delete_buffer(self.instance_buffer);
        }
    }

    fn report(&mut self, e: String) {
        log::error!("shadows: {e}");
        self.errors.push(format!("shadows: {e}"));
    }

    /// Makes the depth target `size` texels square, if it is not already.
    fn ensure_target(&mut self, gl: &glow::Context, size: u32) -> Option<glow::Framebuffer> {
        if let Some((_, f, s)) = self.target
            && s == size
        {
            return Some(f);
        }
        // SAFETY: object management on the current context; the old target is unused now.
        unsafe {
            if let Some((t, f, _)) = self.target.take() {
                gl.delete_texture(t);
                gl.delete_framebuffer(f);
            }
            let previous = gl.get_parameter_framebuffer(glow::DRAW_FRAMEBUFFER_BINDING);
            let made = depth_texture(gl, size, None).and_then(|t| match gl.create_framebuffer() {
                Ok(f) => Ok((t, f)),
                Err(e) => {
                    gl.delete_texture(t);
                    Err(e)
                }
            });
            let (t, f) = match made {
                Ok(v) => v,
                Err(e) => {
                    self.report(format!("cannot make a {size}×{size} shadow map: {e}"));
                    return None;
                }
            };
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(f));
            gl.framebuffer_texture_2d(glow::FRAMEBUFFER, glow::DEPTH_ATTACHMENT, glow::TEXTURE_2D, Some(t), 0);
            gl.draw_buffer(glow::NONE);
            gl.read_buffer(glow::NONE);
            let complete = gl.check_framebuffer_status(glow::FRAMEBUFFER) == glow::FRAMEBUFFER_COMPLETE;
            gl.bind_framebuffer(glow::FRAMEBUFFER, previous);
            if !complete {
                gl.delete_texture(t);
                gl.delete_framebuffer(f);
                self.report(format!("the {size}×{size} shadow map frame buffer is incomplete on this driver"));
                return None;
            }
            self.target = Some((t, f, size));
            Some(f)
        }
    }

    /// Fits the light and draws the casters into the depth texture (see the module doc); sets
    /// [`ShadowMap::frame`]. `bones` is each item's first bone in `pose` (`u32::MAX`: none),
    /// `frustum` the camera's planes, `drawn` whether a material's models are drawn at all (a
    /// model the pipeline does not draw casts no shadow either). Called right after the bound
    /// frame buffer was cleared and before anything is drawn into it: when the pass runs it
    /// clears it again.
    #[allow(clippy::too_many_arguments)]
    pub fn render(
        &mut self,
        gl: &glow::Context,
        list: &DrawList,
        models: &[Option<GpuModel>],
        pose: &PoseCache,
        bones: &[u32],
        frustum: &[Vec4; 6],
        light_slot: Option<(usize, Vec3)>,
        drawn: &dyn Fn(MaterialHandle) -> bool,
    ) {
        self.frame = ShadowFrame::OFF;
        let settings = list.look.shadows;
        let Some((slot, direction)) = light_slot.filter(|_| settings.enabled) else { return };
        if self.program.is_none() {
            let made = DepthProgram::new(gl, OPAQUE_FRAGMENT_SOURCE).and_then(|opaque| {
                match DepthProgram::new(gl, FRAGMENT_SOURCE) {
                    Ok(masked) => Ok([opaque, masked]),
                    Err(e) => {
                        // SAFETY: linked above on this context, not used afterwards.
                        unsafe { gl.delete_program(opaque.program) };
                        Err(e)
                    }
                }
            });
            self.program = Some(made.map_err(|e| self.report(format!("depth program: {e}"))));
        }
        if !matches!(self.program, Some(Ok(_))) {
            return;
        }
        self.gather(list, models, frustum, settings.distance, drawn);
        let view = list.camera.view;
        let size = settings.map_size;
        let Some(fit) =
            fit_light(view, list.camera.proj, direction, settings.distance, size, &self.receivers, &self.casters)
        else {
            return;
        };
        let Some(fbo) = self.ensure_target(gl, size) else { return };
        let light_viewproj = fit.proj * fit.view;
        let light_planes = super::renderer::frustum_planes(light_viewproj);
        self.collect_casters(list, models, &light_planes, drawn);
        let bias = Mat4::from_translation(Vec3::splat(0.5)) * Mat4::from_scale(Vec3::splat(0.5));
        self.frame = ShadowFrame {
            world_to_map: bias * light_viewproj,
            params: [slot as f32, fit.texel, 1.0 / size as f32, 0.0],
        };
        self.draw(gl, list, models, pose, bones, fbo, size, light_viewproj);
    }

    /// World bounding spheres of the primitives in view (receivers) and of every caster.
    fn gather(
        &mut self,
        list: &DrawList,
        models: &[Option<GpuModel>],
        frustum: &[Vec4; 6],
        distance: f32,
        drawn: &dyn Fn(MaterialHandle) -> bool,
    ) {
        self.receivers.clear();
        self.casters.clear();
        for item in list.items.iter().filter(|i| drawn(i.material)) {
            let Some(Some(model)) = models.get(item.model.0 as usize) else { continue };
            let enabled = item.mesh_enabled.of(&list.mesh_enabled);
            for prim in &model.prims {
                if !enabled.get(prim.mesh).copied().unwrap_or(true) {
                    continue;
                }
                let s = bounds(list, item, model, prim);
                let depth = -list.camera.view.transform_point3(s.xyz()).z;
                if super::renderer::sphere_visible(frustum, s.xyz(), s.w) && depth - s.w < distance {
                    self.receivers.push(s);
                }
                if item.cast_shadows && prim.material.alpha_mode != AlphaMode::Blend {
                    self.casters.push(s);
                }
            }
        }
    }

    /// The frame's caster draws inside the light frustum, sorted so instances of one primitive
    /// are neighbours.
    fn collect_casters(
        &mut self,
        list: &DrawList,
        models: &[Option<GpuModel>],
        planes: &[Vec4; 6],
        drawn: &dyn Fn(MaterialHandle) -> bool,
    ) {
        self.draws.clear();
        for (ii, item) in list.items.iter().enumerate().filter(|(_, i)| i.cast_shadows && drawn(i.material)) {
            let Some(Some(model)) = models.get(item.model.0 as usize) else { continue };
            let enabled = item.mesh_enabled.of(&list.mesh_enabled);
            for (pi, prim) in model.prims.iter().enumerate() {
                if !enabled.get(prim.mesh).copied().unwrap_or(true) || prim.material.alpha_mode == AlphaMode::Blend {
                    continue;
                }
                let s = bounds(list, item, model, prim);
                if !super::renderer::sphere_visible(planes, s.xyz(), s.w) {
                    continue;
                }
                self.draws.push(Caster { model: item.model.0, prim: pi as u32, item: ii as u32 });
            }
        }
        self.draws.sort_unstable_by_key(|d| (d.model, d.prim, d.item));
    }

    #[allow(clippy::too_many_arguments)]
    fn draw(
        &mut self,
        gl: &glow::Context,
        list: &DrawList,
        models: &[Option<GpuModel>],
        pose: &PoseCache,
        bones: &[u32],
        fbo: glow::Framebuffer,
        size: u32,
        light_viewproj: Mat4,
    ) {
        let Some(Ok(programs)) = &self.program else { return };
        // Instance records first (one upload), then the draws.
        self.instances.clear();
        for d in &self.draws {
            let (item, Some(Some(model))) = (&list.items[d.item as usize], models.get(d.model as usize)) else {
                continue;
            };
            let prim = &model.prims[d.prim as usize];
            let rest = model.mesh_world.get(prim.mesh).copied().unwrap_or_default();
            let world = item.world * list.mesh_world(item, prim.mesh, rest);
            let base = bones.get(d.item as usize).copied().unwrap_or(u32::MAX);
            self.instances.extend_from_slice(world.as_ref());
            self.instances.extend_from_slice(&super::renderer::animation_data(pose, base, model, prim));
        }
        // SAFETY: every object belongs to this context; previous bindings are restored.
        unsafe {
            let previous = gl.get_parameter_framebuffer(glow::DRAW_FRAMEBUFFER_BINDING);
            let mut viewport = [0i32; 4];
            gl.get_parameter_i32_slice(glow::VIEWPORT, &mut viewport);
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.viewport(0, 0, size as i32, size as i32);
            gl.depth_mask(true);
            gl.enable(glow::DEPTH_TEST);
            gl.depth_func(glow::LESS);
            gl.clear_depth_f32(1.0);
            gl.clear(glow::DEPTH_BUFFER_BIT);
            gl.disable(glow::CULL_FACE);
            gl.disable(glow::BLEND);
            gl.enable(glow::POLYGON_OFFSET_FILL);
            gl.polygon_offset(POLYGON_OFFSET.0, POLYGON_OFFSET.1);
            for p in programs {
                gl.use_program(Some(p.program));
                gl.uniform_matrix_4_f32_slice(p.mtx_proj.as_ref(), false, light_viewproj.as_ref());
            }
            set_attribute_defaults(gl);
            // Both programs link the same vertex stage, so the linker gives them the same
            // locations; each program's own are used below all the same.
            for p in programs {
                if let Some((l, columns)) = p.normal {
                    for c in 0..columns {
                        let mut v = [0.0; 4];
                        v[c as usize] = 1.0;
                        gl.vertex_attrib_4_f32(l + c, v[0], v[1], v[2], v[3]);
                    }
                }
            }
            let mut bound = None;
            for unit in [UNIT_TEX0, UNIT_POSE, UNIT_MORPH] {
                gl.bind_sampler(unit, None);
            }
            gl.active_texture(glow::TEXTURE0 + UNIT_POSE);
            gl.bind_texture(glow::TEXTURE_2D, pose.texture());
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.instance_buffer));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, super::renderer::f32_bytes(&self.instances), glow::STREAM_DRAW);
            let mut start = 0;
            while start < self.draws.len() {
                let first = self.draws[start];
                let Some(Some(model)) = models.get(first.model as usize) else {
                    start += 1;
                    continue;
                };
                let prim = &model.prims[first.prim as usize];
                // Morph weights are uniforms, so morphed instances are drawn one by one.
                let mut len = 1;
                if prim.morph.is_none() {
                    while self.draws.get(start + len).is_some_and(|d| d.model == first.model && d.prim == first.prim) {
                        len += 1;
                    }
                }
                let pm = &prim.material;
                let masked = pm.alpha_mode == AlphaMode::Mask;
                let p = &programs[usize::from(masked)];
                if bound != Some(masked) {
                    bound = Some(masked);
                    gl.use_program(Some(p.program));
                }
                if masked {
                    gl.uniform_1_f32(p.alpha_cutoff.as_ref(), pm.alpha_cutoff);
                    let (c, t) = (pm.base_color, pm.texture.and_then(|t| model.textures.get(t).copied()));
                    gl.uniform_4_f32(p.base_color.as_ref(), c[0], c[1], c[2], c[3]);
                    gl.uniform_1_f32(p.base_color_texcoord.as_ref(), pm.texcoord);
                    gl.active_texture(glow::TEXTURE0 + UNIT_TEX0);
                    // Without a texture GL reads (0, 0, 0, 1): the factor's alpha alone decides.
                    gl.bind_texture(glow::TEXTURE_2D, t);
                }
                let item = &list.items[first.item as usize];
                let count =
                    super::renderer::fill_morph_weights(&mut self.morph_scratch, model, prim, list, item.morph_weights);
                gl.uniform_1_i32(p.morph_count.as_ref(), count as i32);
                gl.active_texture(glow::TEXTURE0 + UNIT_MORPH);
                gl.bind_texture(glow::TEXTURE_2D_ARRAY, prim.morph.map(|m| m.texture));
                if count > 0 {
                    let n = self.morph_scratch.len().min(128);
                    gl.uniform_4_f32_slice(p.morph_weights.as_ref(), &self.morph_scratch[..n]);
                }
                gl.bind_vertex_array(Some(prim.vao));
                let stride = (INSTANCE_FLOATS * 4) as i32;
                for &(location, columns, rows, offset) in &p.attributes {
                    for c in 0..columns {
                        let at = (start * INSTANCE_FLOATS + offset + 4 * c as usize) * 4;
                        gl.enable_vertex_attrib_array(location + c);
                        gl.vertex_attrib_pointer_f32(location + c, rows, glow::FLOAT, false, stride, at as i32);
                        gl.vertex_attrib_divisor(location + c, 1);
                    }
                }
                gl.draw_elements_instanced(glow::TRIANGLES, prim.count, prim.index_type, 0, len as i32);
                for &(location, columns, ..) in &p.attributes {
                    for c in 0..columns {
                        gl.disable_vertex_attrib_array(location + c);
                    }
                }
                start += len;
            }
            gl.bind_vertex_array(None);
            gl.bind_buffer(glow::ARRAY_BUFFER, None);
            for unit in [UNIT_MORPH, UNIT_POSE, UNIT_TEX0] {
                gl.active_texture(glow::TEXTURE0 + unit);
                gl.bind_texture(glow::TEXTURE_2D, None);
                gl.bind_texture(glow::TEXTURE_2D_ARRAY, None);
            }
            gl.use_program(None);
            gl.disable(glow::POLYGON_OFFSET_FILL);
            gl.bind_framebuffer(glow::FRAMEBUFFER, previous);
            gl.viewport(viewport[0], viewport[1], viewport[2], viewport[3]);
        }
    }
}

/// A primitive's world bounding sphere (xyz, radius). Skinned and morphed primitives move away
/// from their bind-pose bounds, so theirs is taken half as large again.
fn bounds(list: &DrawList, item: &super::draw::DrawItem, model: &GpuModel, prim: &super::mesh::GpuPrimitive) -> Vec4 {
    let rest = model.mesh_world.get(prim.mesh).copied().unwrap_or_default();
    let world = item.world * list.mesh_world(item, prim.mesh, rest);
    let center = world.transform_point3(prim.center);
    let grow = if prim.cullable { 1.0 } else { 1.5 };
    center.extend(prim.radius * super::renderer::max_scale(&world) * grow)
}

/// The slot in `light_position[]` of the light that casts (the list's first directional light)
/// and the direction it shines; None when it has none or it got no slot.
pub(crate) fn shadow_light(list: &DrawList) -> Option<(usize, Vec3)> {
    let mut slot = 0;
    for l in &list.lights {
        match l.kind {
            LightKind::Ambient => continue,
            LightKind::Directional => {
                return (slot < super::program::MAX_LIGHTS).then_some((slot, l.direction));
            }
            LightKind::Point | LightKind::Spot => slot += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::camera::rh::proj::opengl::perspective;
    use glam::camera::rh::view::look_at_mat4;

    fn camera(eye: Vec3) -> (Mat4, Mat4) {
        (look_at_mat4(eye, Vec3::ZERO, Vec3::Y), perspective(0.8, 16.0 / 9.0, 0.1, 1000.0))
    }

    #[test]
    fn a_close_up_gets_a_small_frustum_and_a_field_a_bounded_one() {
        let down = Vec3::new(0.3, -1.0, 0.2);
        let ground = [Vec4::new(0.0, 0.0, 0.0, 67.0)];
        let (v, p) = camera(Vec3::new(0.0, 1.5, 3.0));
        let close = fit_light(v, p, down, 60.0, 2048, &ground, &ground).unwrap();
        let (v, p) = camera(Vec3::new(0.0, 10.0, 40.0));
        let far = fit_light(v, p, down, 60.0, 2048, &ground, &ground).unwrap();
        // A small scene seen from afar: the scene's bounds, not the frustum, set the size.
        let small = [Vec4::new(0.0, 0.5, 0.0, 2.0)];
        let tiny = fit_light(v, p, down, 60.0, 2048, &small, &small).unwrap();
        assert!(tiny.texel * 2048.0 < 6.0, "{}", tiny.texel * 2048.0);
        assert!(far.texel < 0.07, "the field's texels are capped by the distance: {}", far.texel);
        assert!(close.texel < far.texel, "{} vs {}", close.texel, far.texel);
        // Everything in the scene lies between the near and far planes.
        for fit in [close, far, tiny] {
            let m = fit.proj * fit.view;
            for y in [-1.0, 2.0] {
                let z = m.project_point3(Vec3::new(0.0, y, 0.0)).z;
                assert!((-1.0..=1.0).contains(&z), "depth {z}");
            }
        }
    }

    #[test]
    fn small_camera_moves_keep_texels_in_place() {
        let down = Vec3::new(0.3, -1.0, 0.2);
        let ground = [Vec4::new(0.0, 0.0, 0.0, 67.0)];
        let (v, p) = camera(Vec3::new(0.0, 4.0, 10.0));
        let a = fit_light(v, p, down, 60.0, 1024, &ground, &ground).unwrap();
        let (v, p) = camera(Vec3::new(0.013, 4.0, 10.0));
        let b = fit_light(v, p, down, 60.0, 1024, &ground, &ground).unwrap();
        assert_eq!(a.texel, b.texel);
        // The same world point falls on the same fraction of a texel in both frames.
        let frac = |f: LightFit| {
            let s = (f.proj * f.view).project_point3(Vec3::new(1.234, 0.0, -2.5)).x * 0.5 * 1024.0;
            s - s.floor()
        };
        assert!((frac(a) - frac(b)).abs() < 1e-2, "{} vs {}", frac(a), frac(b));
    }

    #[test]
    fn nothing_in_view_fits_nothing() {
        let (v, p) = camera(Vec3::new(0.0, 2.0, 5.0));
        assert!(fit_light(v, p, Vec3::NEG_Y, 60.0, 1024, &[], &[]).is_none());
        assert!(fit_light(v, p, Vec3::ZERO, 60.0, 1024, &[Vec4::ONE], &[]).is_none());
    }
}
