//! Owns uploaded models, textures and materials by handle and submits a [`DrawList`]: opaque
//! and alpha-masked primitives sorted by material then model (fewest state changes), then
//! blended ones back to front with depth writes off.
//!
//! Submission runs in two passes so uniform blocks cost one buffer upload per frame: the first
//! computes each draw's matrices and writes its block bytes into an arena, which is uploaded
//! once; the second sets plain uniforms, binds arena ranges and draws.
//!
//! Morphed primitives bind their target texture array as `morph_targets` and the item's weights
//! as `morph_targets_weights` (see `program`); a mesh with more targets than the material's
//! weight array holds is not drawn, and that is reported once per model and material.
//!
//! Skinned primitives: before drawing, every item's palette (or its model's rest pose) goes into
//! one `pose_matrix_cache` texture upload (see `skin`); each draw then gets `animation_data`
//! pointing at its skin there, or, for programs that declare a `mat4` bone array, the skin's
//! bones as uniforms. A skin larger than that array is not drawn with the program (reported once).
//!
//! Instancing: consecutive opaque draws of one primitive with one material, whose program takes
//! its per-instance values as attributes (see `program`), the same texture and constant
//! overrides and the same morph weights, become one `glDrawElementsInstanced`; each instance's
//! matrices and `animation_data` go into one per-frame instance buffer. Blended draws stay one
//! per item (back to front). GL draws instances in order, as if each were its own draw call, so
//! the picture is the same as drawing them one by one (`SINEW_NO_INSTANCING=1` does that).

use glam::{Mat4, Vec3, Vec4};
use glow::HasContext;

use super::draw::{
    DrawItem, DrawList, LightKind, MaterialHandle, ModelHandle, Shading, Span, TextureHandle, ToneMapping,
};
use super::material::{Material, VariantSource};
use super::mesh::{GpuModel, GpuPrimitive, set_attribute_defaults, upload_texture};
use super::morph::zero_morph_texture;
use super::pass_clock::{Pass, PassClock};
use super::program::{
    DrawMatrices, FrameValues, INSTANCE_FLOATS, MAX_LIGHTS, ShaderProgram, Values, set_plain, write_blocks,
};
use super::shadow::{ShadowMap, shadow_light};
use super::skin::{PoseCache, texels_to_cols};
use super::variant::{Feature, Variant};
use crate::base::error::LoadError;
use crate::base::hash::hash_str;
use crate::project::model_data::{AlphaMode, ModelData, TextureData, Wrap};

/// What one [`ModelRenderer::submit`] did, for tests and the stats overlay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubmitStats {
    /// Primitive instances drawn.
    pub draws: u32,
    /// GL draw calls issued for them (one per instanced batch).
    pub draw_calls: u32,
    /// Triangles drawn, every instance counted.
    pub triangles: u64,
    /// Draw items with at least one skinned primitive drawn.
    pub skinned_instances: u32,
    /// Primitives outside the view frustum (not drawn).
    pub culled: u32,
    /// Items whose model or material handle was not valid.
    pub skipped_items: u32,
    pub program_binds: u32,
    pub vao_binds: u32,
    pub texture_binds: u32,
    pub uniform_block_bytes: u32,
    /// Primitives not drawn because they have more morph targets than their material's
    /// weight array holds (see [`ModelRenderer::errors`]).
    pub morph_skipped: u32,
    /// Skinned primitives not drawn: more joints than the material's bone array holds, or the
    /// frame's bones overflowed the largest `pose_matrix_cache` (see [`ModelRenderer::errors`]).
    pub skin_skipped: u32,
    /// Bones uploaded to `pose_matrix_cache` this frame.
    pub bones: u32,
}

/// One primitive of one item to draw.
#[derive(Clone, Copy, Debug)]
struct DrawRec {
    key: u64,
    /// The material slot it draws with: the item's material, or one of its variants.
    material: u32,
    /// The variant of the item's material it needs (the zero one for a material without).
    variant: Variant,
    /// Hash of what else an instanced draw must share (overrides, morph weights); 0 for none,
    /// so lists without overrides keep the (key, item) order.
    group: u64,
    depth: f32,
    item: u32,
    prim: u32,
}

/// Consecutive draws of the frame's draw order issued as one (instanced) draw call.
#[derive(Clone, Copy, Debug)]
struct Batch {
    /// First draw (index into `ModelRenderer::recs`) and how many.
    start: u32,
    len: u32,
    /// First instance record in `ModelRenderer::instances`.
    first_instance: u32,
}

/// Texture units whose bindings are tracked to skip redundant binds.
const TRACKED_UNITS: usize = 16;

/// `item_bones` entry of an item without bones in the pose cache.
const NO_BONES: u32 = u32::MAX;

/// A program variant of a material (see `variant`), kept in `ModelRenderer::materials` after
/// the materials with handles.
#[derive(Clone, Copy, Debug)]
struct VariantSlot {
    base: u32,
    variant: Variant,
    /// Its index in `materials`; `u32::MAX` when it failed to compile (reported once).
    slot: u32,
}

pub struct ModelRenderer {
    models: Vec<Option<GpuModel>>,
    /// The loaded materials by handle, and their variants (`variants` says whose).
    materials: Vec<Option<Material>>,
    variants: Vec<VariantSlot>,
    /// What every draw of this frame shares: lights, shadow slot, shading, tone mapping.
    frame_variant: Variant,
    /// Frame whose per-frame uniforms each material's program last got.
    material_frames: Vec<u64>,
    /// Per material, the last value set for each of its per-draw plain uniforms.
    uniform_cache: Vec<Vec<[f32; 4]>>,
    textures: Vec<Option<glow::Texture>>,
    /// Per texture handle: a cube map (`.cubemap`), bound only to `samplerCube` uniforms.
    cube_textures: Vec<bool>,
    white: glow::Texture,
    /// Bound to `sampler2DArray` uniforms a primitive has nothing for (no morph targets).
    zero_array: glow::Texture,
    ubo: glow::Buffer,
    ubo_alignment: usize,
    frame: u64,
    opaque: Vec<DrawRec>,
    blend: Vec<DrawRec>,
    /// The frame's draws in order: the opaque ones, then the blended ones.
    recs: Vec<DrawRec>,
    batches: Vec<Batch>,
    /// False: one draw call per draw (`SINEW_NO_INSTANCING`, or [`ModelRenderer::set_instancing`]).
    instancing: bool,
    /// While a render script's `render.draw` is submitted ([`ModelRenderer::submit_scripted`]):
    /// its cull face and depth function (GL enums). None: Sinew's pipeline, back faces culled,
    /// less-than, drawing what Defold's default script does.
    scripted: Option<(u32, u32)>,
    /// That draw's predicate (its tag hashes): only models whose material it names are drawn.
    /// Kept between draws, so a frame of them allocates nothing.
    predicate: Vec<u64>,
    /// A render script's `render.enable_texture`s: the samplers they name (by unit or by name)
    /// read these textures, over what the draw's material and model give them. Later entries
    /// win, as the later call does.
    pub enabled_textures: Vec<(crate::game::render_script::Binding, glow::Texture)>,
    /// A render script's constants for the draw being submitted (`render.draw`'s `constants`):
    /// over the items' and the materials' values of the same names.
    pub draw_constants: Vec<(u64, [f32; 4])>,
    /// Per-instance attribute values of every batch, `INSTANCE_FLOATS` per instance.
    instances: Vec<f32>,
    instance_buffer: glow::Buffer,
    /// Per item, the frame it was last counted in `SubmitStats::skinned_instances`.
    skinned_counted: Vec<u64>,
    /// Per batch, its first draw's matrices.
    matrices: Vec<DrawMatrices>,
    block_offsets: Vec<u32>,
    arena: Vec<u8>,
    values: FrameValues,
    /// View frustum planes (xyz normal pointing inside, w distance), world space.
    frustum: [Vec4; 6],
    tex0: u64,
    /// `normal_map`, `emissive_map`, `occlusion_map`, `metallic_roughness_map`.
    material_maps: [u64; 4],
    morph_targets: u64,
    /// One draw's morph weights, padded to whole vec4s (reused, never shrinks).
    morph_scratch: Vec<f32>,
    /// (model, material) pairs already reported as unable to morph, so a bad pair logs once.
    reported: Vec<(u32, u32)>,
    /// The frame's skinning matrices (`pose_matrix_cache`).
    pose: PoseCache,
    pose_matrix_cache: u64,
    /// Per item of the list being drawn, its first bone in `pose`; `NO_BONES` when it has none.
    item_bones: Vec<u32>,
    /// Per model, (frame, first bone) of its rest palette in `pose`: shared by every item of
    /// the frame that brings no palette.
    rest_bones: Vec<(u64, u32)>,
    /// One draw's bones as column-major mat4s (reused, never shrinks).
    bone_scratch: Vec<f32>,
    /// (model, material) pairs already reported as unable to skin.
    skin_reported: Vec<(u32, u32)>,
    pose_overflow_reported: bool,
    /// The first directional light's shadow map (`look.shadows`, see `shadow`).
    shadow: ShadowMap,
    shadow_map: u64,
    errors: Vec<String>,
    /// `--stats`: each pass of the frame waited for and timed (the shadow and model passes
    /// here, the later ones by whoever draws them).
    pub clock: PassClock,
}

impl ModelRenderer {
    pub fn new(gl: &glow::Context) -> Result<ModelRenderer, String> {
        let white = TextureData {
            name: "white".into(),
            width: 1,
            height: 1,
            rgba: vec![255; 4],
            wrap_s: Wrap::Repeat,
            wrap_t: Wrap::Repeat,
            mag_linear: false,
            min_linear: false,
            mipmaps: false,
            cube: false,
        };
        let white = upload_texture(gl, &white, false)?;
        let zero_array = match zero_morph_texture(gl) {
            Ok(t) => t,
            Err(e) => {
                // SAFETY: created above on this context, not used afterwards.
                unsafe { gl.delete_texture(white) };
                return Err(e);
            }
        };
        // SAFETY: plain object creation and query on the current context.
        let (ubo, instance_buffer, align) = unsafe {
            let (ubo, instance_buffer) = match super::mesh::create_buffer_pair(gl) {
                Ok(b) => b,
                Err(e) => {
                    gl.delete_texture(white);
                    gl.delete_texture(zero_array);
                    return Err(e);
                }
            };
            (ubo, instance_buffer, gl.get_parameter_i32(glow::UNIFORM_BUFFER_OFFSET_ALIGNMENT).max(16) as usize)
        };
        let shadow = match ShadowMap::new(gl) {
            Ok(s) => s,
            Err(e) => {
                // SAFETY: created above on this context, not used afterwards.
                unsafe {
                    gl.delete_texture(white);
                    gl.delete_texture(zero_array);
                    gl.delete_buffer(ubo);
                    gl.delete_buffer(instance_buffer);
                }
                return Err(e);
            }
        };
        let instancing = std::env::var_os("SINEW_NO_INSTANCING").is_none_or(|v| v.is_empty() || v == "0");
        Ok(ModelRenderer {
            models: Vec::new(),
            materials: Vec::new(),
            variants: Vec::new(),
            frame_variant: Variant::default(),
            material_frames: Vec::new(),
            uniform_cache: Vec::new(),
            textures: Vec::new(),
            cube_textures: Vec::new(),
            white,
            zero_array,
            ubo,
            ubo_alignment: align,
            frame: 0,
            opaque: Vec::new(),
            blend: Vec::new(),
            recs: Vec::new(),
            batches: Vec::new(),
            instancing,
            scripted: None,
            predicate: Vec::new(),
            enabled_textures: Vec::new(),
            draw_constants: Vec::new(),
            instances: Vec::new(),
            instance_buffer,
            skinned_counted: Vec::new(),
            matrices: Vec::new(),
            block_offsets: Vec::new(),
            arena: Vec::new(),
            values: FrameValues::default(),
            frustum: [Vec4::ZERO; 6],
            tex0: hash_str("tex0"),
            material_maps: [
                hash_str("normal_map"),
                hash_str("emissive_map"),
                hash_str("occlusion_map"),
                hash_str("metallic_roughness_map"),
            ],
            morph_targets: hash_str("morph_targets"),
            morph_scratch: Vec::new(),
            reported: Vec::new(),
            pose: PoseCache::new(gl),
            pose_matrix_cache: hash_str("pose_matrix_cache"),
            item_bones: Vec::new(),
            rest_bones: Vec::new(),
            bone_scratch: Vec::new(),
            skin_reported: Vec::new(),
            pose_overflow_reported: false,
            shadow,
            shadow_map: hash_str("shadow_map"),
            errors: Vec::new(),
            clock: PassClock::default(),
        })
    }

    /// Uploads a model once; any number of draw items may then use the handle.
    pub fn add_model(&mut self, gl: &glow::Context, model: &ModelData) -> Result<ModelHandle, String> {
        let gpu = GpuModel::upload(gl, model)?;
        self.models.push(Some(gpu));
        Ok(ModelHandle(self.models.len() as u32 - 1))
    }

    pub fn model(&self, h: ModelHandle) -> Option<&GpuModel> {
        self.models.get(h.0 as usize).and_then(Option::as_ref)
    }

    pub fn remove_model(&mut self, gl: &glow::Context, h: ModelHandle) {
        if let Some(m) = self.models.get_mut(h.0 as usize).and_then(Option::take) {
            m.destroy(gl);
        }
    }

    pub fn add_texture(&mut self, gl: &glow::Context, texture: &TextureData) -> Result<TextureHandle, String> {
        // Raw bytes: a material's own textures are read as its shader reads them.
        let t = upload_texture(gl, texture, false)?;
        self.textures.push(Some(t));
        self.cube_textures.push(texture.cube);
        Ok(TextureHandle(self.textures.len() as u32 - 1))
    }

    /// Loads a `.material` and its shaders through `read` (resource path → text). On error
    /// (bad JSON, missing file, compile or link failure) nothing is added; the caller skips the
    /// models that use it.
    pub fn add_material(
        &mut self,
        gl: &glow::Context,
        resource: &str,
        read: &mut dyn FnMut(&str) -> Result<String, LoadError>,
    ) -> Result<MaterialHandle, LoadError> {
        let m = Material::load(gl, resource, read, self.ubo_alignment)?;
        Ok(MaterialHandle(self.push_material(m)))
    }

    fn push_material(&mut self, m: Material) -> u32 {
        self.uniform_cache.push(vec![[f32::NAN; 4]; m.program.draw_uniforms.len()]);
        self.materials.push(Some(m));
        self.material_frames.push(u64::MAX);
        self.materials.len() as u32 - 1
    }

    /// Frees a material (e.g. before reloading it) and its variants; items still naming it
    /// are skipped.
    pub fn remove_material(&mut self, gl: &glow::Context, h: MaterialHandle) {
        let slots = self.variants.iter().filter(|v| v.base == h.0).map(|v| v.slot);
        for slot in std::iter::once(h.0).chain(slots) {
            if let Some(m) = self.materials.get_mut(slot as usize).and_then(Option::take) {
                m.destroy(gl);
            }
        }
        self.variants.retain(|v| v.base != h.0);
    }

    /// The slot in `materials` of `base`'s program for `variant`, compiled on first use;
    /// None when it does not compile (reported once, its draws skipped).
    fn variant_slot(&mut self, gl: &glow::Context, base: u32, variant: Variant) -> Option<u32> {
        let material = self.materials.get(base as usize)?.as_ref()?;
        let Some(uses) = material.variants.as_ref().map(|v| v.uses) else { return Some(base) };
        if variant == uses.keep(Variant::LOADED) {
            return Some(base);
        }
        if let Some(v) = self.variants.iter().find(|v| v.base == base && v.variant == variant) {
            return (v.slot != u32::MAX).then_some(v.slot);
        }
        let slot = match material.variant(gl, variant, self.ubo_alignment)? {
            Ok(m) => self.push_material(m),
            Err(e) => {
                let e = format!("{e}\n(the variant with {}; its draws are skipped)", uses.describe(variant));
                log::error!("{e}");
                self.errors.push(e);
                u32::MAX
            }
        };
        self.variants.push(VariantSlot { base, variant, slot });
        (slot != u32::MAX).then_some(slot)
    }

    pub fn material(&self, h: MaterialHandle) -> Option<&Material> {
        self.materials.get(h.0 as usize).and_then(Option::as_ref)
    }

    /// Frees every GL object; call with the context that created them.
    pub fn destroy(mut self, gl: &glow::Context) {
        self.pose.destroy(gl);
        self.shadow.destroy(gl);
        self.models.iter().flatten().for_each(|m| m.destroy(gl));
        self.materials.iter().flatten().for_each(|m| m.destroy(gl));
        // SAFETY: objects were created on `gl` and are not used afterwards.
        unsafe {
            self.textures.iter().flatten().for_each(|&t| gl.delete_texture(t));
            gl.delete_texture(self.white);
            gl.delete_texture(self.zero_array);
            gl.delete_buffer(self.ubo);
            gl.delete_buffer(self.instance_buffer);
        }
    }

    /// Whether instances may share draw calls (on unless `SINEW_NO_INSTANCING` is set): off, each
    /// primitive instance gets its own, which draws the same picture (tests compare the two).
    pub fn set_instancing(&mut self, on: bool) {
        self.instancing = on;
    }

    /// Problems found while drawing (each reported once), oldest first; also logged.
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    /// Whether a render script's draw of `predicate` would draw a model: a material loaded now
    /// carries one of its tags. A draw that would not skips the model pass and its shadow map.
    pub(crate) fn names_a_material(&self, predicate: &[u64]) -> bool {
        self.materials.iter().flatten().any(|m| m.drawn_by(Some(predicate)))
    }

    /// Draws `list` as a render script's `render.draw` of `predicate` says: only models whose
    /// material carries one of its tags, culling `cull` faces and testing depth with `depth`.
    pub(crate) fn submit_scripted(
        &mut self,
        gl: &glow::Context,
        list: &DrawList,
        predicate: &[u64],
        (cull, depth): (u32, u32),
    ) -> SubmitStats {
        self.predicate.clear();
        self.predicate.extend_from_slice(predicate);
        self.scripted = Some((cull, depth));
        let stats = self.submit(gl, list);
        self.scripted = None;
        stats
    }

    /// The predicate of the render script's draw being submitted; None: Sinew's pipeline.
    fn predicate(&self) -> Option<&[u64]> {
        self.scripted.map(|_| self.predicate.as_slice())
    }

    /// Takes `list`'s camera, time and lights as the frame's without drawing it: a render
    /// script's draw of sprites alone sees the world through its own view and projection.
    pub(crate) fn look_through(&mut self, list: &DrawList) {
        self.frame_values(list);
    }

    /// The last submitted frame's camera, time and lights (the sprite pass draws with them).
    pub(crate) fn frame(&self) -> &FrameValues {
        &self.values
    }

    /// Draws `list` into the bound frame buffer (depth-tested; `Gfx::begin_frame` clears it).
    pub fn submit(&mut self, gl: &glow::Context, list: &DrawList) -> SubmitStats {
        self.frame = self.frame.wrapping_add(1);
        let mut stats = SubmitStats::default();
        self.frame_values(list);
        self.fill_pose(gl, list, &mut stats);
        let predicate = self.scripted.map(|_| self.predicate.as_slice());
        let materials = &self.materials;
        let drawn = |m: super::MaterialHandle| {
            materials.get(m.0 as usize).and_then(Option::as_ref).is_none_or(|m| m.drawn_by(predicate))
        };
        let (models, pose, bones, frustum) = (&self.models, &self.pose, &self.item_bones, &self.frustum);
        self.shadow.render(gl, list, models, pose, bones, frustum, shadow_light(list), &drawn);
        self.clock.lap(gl, Pass::Shadow);
        for e in self.shadow.take_errors() {
            self.errors.push(e);
        }
        let shadow = self.shadow.frame;
        // View space, where the programs light: the camera's inverse first.
        self.values.shadow_matrix = shadow.world_to_map * self.values.view.inverse();
        self.values.shadow_params = shadow.params;
        let casting = shadow.params[0] >= 0.0 && shadow.params[1] > 0.0;
        self.frame_variant =
            self.frame_variant.with(Feature::ShadowSlot, if casting { shadow.params[0] as i32 } else { -1 });
        self.collect(gl, list, &mut stats);
        self.batch(list);
        self.prepare(list);
        stats.uniform_block_bytes = self.arena.len() as u32;
        if !self.arena.is_empty() {
            // SAFETY: plain buffer upload on the current context (orphans last frame's data).
            unsafe {
                gl.bind_buffer(glow::UNIFORM_BUFFER, Some(self.ubo));
                gl.buffer_data_u8_slice(glow::UNIFORM_BUFFER, &self.arena, glow::STREAM_DRAW);
            }
        }
        if !self.instances.is_empty() {
            // SAFETY: as above; the VAOs' instance attributes are pointed at it in `issue`.
            unsafe {
                gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.instance_buffer));
                gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, f32_bytes(&self.instances), glow::STREAM_DRAW);
                gl.bind_buffer(glow::ARRAY_BUFFER, None);
            }
        }
        self.issue(gl, list, &mut stats);
        self.clock.lap(gl, Pass::Models);
        stats
    }

    fn frame_values(&mut self, list: &DrawList) {
        const NO_CONE: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
        // w = -1: the first free slot, where `lighting.glsl`'s light loop ends (the built-in model
        // program loops over `SINEW_LIGHTS` slots instead).
        const NO_LIGHT: [f32; 4] = [0.0, 0.0, 0.0, -1.0];
        let v = &mut self.values;
        v.view = list.camera.view;
        v.proj = list.camera.proj;
        v.viewproj = list.camera.proj * list.camera.view;
        v.time = list.time;
        self.frustum = frustum_planes(v.viewproj);
        v.light_position = [NO_LIGHT; MAX_LIGHTS];
        v.light_color = [[0.0; 4]; MAX_LIGHTS];
        v.light_spot = [NO_CONE; MAX_LIGHTS];
        // Ambient lights (summed, as three.js sums its AmbientLights) replace the list's ambient
        // while there are any, and take no slot.
        let mut ambient: Option<Vec3> = None;
        let mut slot = 0;
        for l in &list.lights {
            let c = Vec3::from(l.color) * l.intensity;
            let position = match l.kind {
                LightKind::Directional => {
                    let d = v.view.transform_vector3(-l.direction).normalize_or_zero();
                    [d.x, d.y, d.z, 0.0]
                }
                LightKind::Point | LightKind::Spot => {
                    let p = v.view.transform_point3(l.position);
                    [p.x, p.y, p.z, 1.0]
                }
                LightKind::Ambient => {
                    ambient = Some(ambient.unwrap_or(Vec3::ZERO) + c);
                    continue;
                }
            };
            if slot < MAX_LIGHTS {
                v.light_position[slot] = position;
                v.light_color[slot] = [c.x, c.y, c.z, l.range];
                if l.kind == LightKind::Spot {
                    v.light_spot[slot] = spot_cone(v.view.transform_vector3(l.direction), l.cone);
                }
                slot += 1;
            }
        }
        // The operator and shading model once, as the custom programs' uniforms and as the
        // built-in program's variant.
        let tone = match list.look.tone_mapping {
            ToneMapping::None => 0,
            ToneMapping::Aces => 1,
            ToneMapping::Agx => 2,
        };
        let standard = i32::from(list.look.shading == Shading::Standard);
        let point = v.light_position[..slot].iter().any(|p| p[3] != 0.0);
        self.frame_variant = Variant::default()
            .with(Feature::Lights, slot as i32)
            .with(Feature::PointLights, i32::from(point))
            .with(Feature::Standard, standard)
            .with(Feature::ToneMapping, tone);
        let a = ambient.unwrap_or(Vec3::from(list.look.ambient));
        v.ambient = [a.x, a.y, a.z, 1.0];
        v.shading = [standard as f32, 0.0, 0.0, 0.0];
        let exposure =
            if list.look.exposure.is_finite() && list.look.exposure > 0.0 { list.look.exposure } else { 1.0 };
        v.tone_mapping = [tone as f32, exposure, 0.0, 0.0];
    }

    /// Puts every skinned item's bones into the pose cache and uploads it (one texture upload).
    /// Items without a palette share their model's rest pose.
    fn fill_pose(&mut self, gl: &glow::Context, list: &DrawList, stats: &mut SubmitStats) {
        self.pose.clear();
        self.item_bones.clear();
        self.rest_bones.resize(self.models.len(), (u64::MAX, NO_BONES));
        let mut overflow = false;
        for item in &list.items {
            let model = self.models.get(item.model.0 as usize).and_then(Option::as_ref);
            let Some(model) = model.filter(|m| m.palette_len() > 0) else {
                self.item_bones.push(NO_BONES);
                continue;
            };
            let span = item.palette.of(&list.palettes);
            let rest = model.rest_palette();
            let base = if span.is_empty() {
                let slot = &mut self.rest_bones[item.model.0 as usize];
                if slot.0 != self.frame {
                    *slot = (self.frame, self.pose.push_rows(rest.iter().copied()).unwrap_or(NO_BONES));
                }
                slot.1
            } else {
                let bones = rest.iter().enumerate().map(|(k, r)| *span.get(k).unwrap_or(r));
                self.pose.push_rows(bones).unwrap_or(NO_BONES)
            };
            overflow |= base == NO_BONES;
            self.item_bones.push(base);
        }
        stats.bones = self.pose.len() as u32;
        if overflow && !self.pose_overflow_reported {
            self.pose_overflow_reported = true;
            let e = format!(
                "this frame's skinned instances need more than {} bone matrices; the rest are not drawn",
                self.pose.capacity()
            );
            log::error!("{e}");
            self.errors.push(e);
        }
        if let Err(e) = self.pose.upload(gl) {
            // Nothing skinned can be drawn right; drawing it unskinned beats not drawing at all.
            log::error!("{e}");
            if !self.errors.contains(&e) {
                self.errors.push(e);
            }
        }
    }

    /// Lists every primitive to draw, with the program variant each needs, and sorts both
    /// passes.
    fn collect(&mut self, gl: &glow::Context, list: &DrawList, stats: &mut SubmitStats) {
        self.opaque.clear();
        self.blend.clear();
        for (ii, item) in list.items.iter().enumerate() {
            let model = self.models.get(item.model.0 as usize).and_then(Option::as_ref);
            let material = self.materials.get(item.material.0 as usize).and_then(Option::as_ref);
            let (Some(model), Some(material)) = (model, material) else {
                stats.skipped_items += 1;
                continue;
            };
            // Tagged for a project's own render script (`skybox`, `postprocess`): not drawn.
            if !material.drawn_by(self.predicate()) {
                continue;
            }
            let capacity = material.program.morph_capacity;
            let enabled = item.mesh_enabled.of(&list.mesh_enabled);
            for (pi, prim) in model.prims.iter().enumerate() {
                if !enabled.get(prim.mesh).copied().unwrap_or(true) {
                    continue;
                }
                if let (Some(morph), Some(capacity)) = (prim.morph, capacity)
                    && morph.targets as usize > capacity
                {
                    stats.morph_skipped += 1;
                    let pair = (item.model.0, item.material.0);
                    if !self.reported.contains(&pair) {
                        self.reported.push(pair);
                        let e = format!(
                            "{}: mesh '{}' has {} morph targets but material {} holds weights for {capacity} \
                             (morph_targets_weights[{}]); it is not drawn with that material",
                            model.source,
                            model.mesh_ids.get(prim.mesh).map_or("?", String::as_str),
                            morph.targets,
                            material.resource,
                            capacity / 4,
                        );
                        log::error!("{e}");
                        self.errors.push(e);
                    }
                    continue;
                }
                if let Some(skin) = prim.skin {
                    let joints = model.skin_range(skin).len();
                    let no_bones = self.item_bones.get(ii).is_none_or(|&b| b == NO_BONES);
                    let too_big = material.program.bone_capacity.is_some_and(|c| joints > c);
                    if no_bones || too_big {
                        stats.skin_skipped += 1;
                        let pair = (item.model.0, item.material.0);
                        if too_big && !self.skin_reported.contains(&pair) {
                            self.skin_reported.push(pair);
                            let e = format!(
                                "{}: mesh '{}' has a skin of {joints} joints but material {} holds {} bone matrices; \
                                 it is not drawn with that material",
                                model.source,
                                model.mesh_ids.get(prim.mesh).map_or("?", String::as_str),
                                material.resource,
                                material.program.bone_capacity.unwrap_or(0),
                            );
                            log::error!("{e}");
                            self.errors.push(e);
                        }
                        continue;
                    }
                }
                let variant = material.variants.as_deref().map_or(Variant::default(), |source| {
                    draw_variant(self.frame_variant, source, list, item, prim, self.material_maps[1])
                });
                let rec = DrawRec {
                    key: (item.model.0 as u64 & 0xff_ffff) << 24 | pi as u64 & 0xff_ffff,
                    material: item.material.0,
                    variant,
                    group: 0,
                    depth: 0.0,
                    item: ii as u32,
                    prim: pi as u32,
                };
                let world = item.world
                    * list.mesh_world(item, prim.mesh, model.mesh_world.get(prim.mesh).copied().unwrap_or_default());
                let center = world.transform_point3(prim.center);
                if prim.cullable && !sphere_visible(&self.frustum, center, prim.radius * max_scale(&world)) {
                    stats.culled += 1;
                    continue;
                }
                if prim.material.alpha_mode == AlphaMode::Blend {
                    let depth = self.values.view.transform_point3(center).z;
                    self.blend.push(DrawRec { depth, ..rec });
                } else {
                    let group = override_hash(list, item, model, prim, material);
                    self.opaque.push(DrawRec { group, ..rec });
                }
            }
        }
        self.resolve_variants(gl, stats);
        // Instances with the same overrides next to each other, so they can share a draw call.
        self.opaque.sort_unstable_by_key(|r| (r.key, r.group, r.item));
        // View-space z is negative in front of the camera: most negative (farthest) first.
        self.blend.sort_unstable_by(|a, b| a.depth.total_cmp(&b.depth).then(a.item.cmp(&b.item)));
        self.recs.clear();
        self.recs.extend_from_slice(&self.opaque);
        self.recs.extend_from_slice(&self.blend);
    }

    /// Points each draw at its material's program for the variant it needs (compiling those not
    /// made yet) and puts that slot first in its sort key; drops the draws whose variant does
    /// not compile.
    fn resolve_variants(&mut self, gl: &glow::Context, stats: &mut SubmitStats) {
        let mut last: Option<(u32, Variant, Option<u32>)> = None;
        for pass in [0, 1] {
            let mut recs = std::mem::take(if pass == 0 { &mut self.opaque } else { &mut self.blend });
            recs.retain_mut(|r| {
                let slot = match last {
                    Some((base, variant, slot)) if base == r.material && variant == r.variant => slot,
                    _ => {
                        let slot = self.variant_slot(gl, r.material, r.variant);
                        last = Some((r.material, r.variant, slot));
                        slot
                    }
                };
                let Some(slot) = slot else {
                    stats.skipped_items += 1;
                    return false;
                };
                r.material = slot;
                r.key |= (slot as u64) << 48;
                true
            });
            *(if pass == 0 { &mut self.opaque } else { &mut self.blend }) = recs;
        }
    }

    /// Groups the draw order into batches: runs of opaque draws that may share a draw call.
    fn batch(&mut self, list: &DrawList) {
        self.batches.clear();
        let opaque = self.opaque.len();
        for (n, rec) in self.recs.iter().enumerate() {
            if let Some(last) = self.batches.last_mut()
                && self.instancing
                && n < opaque
                && instances_compatible(&self.models, &self.materials, list, &self.recs[last.start as usize], rec)
            {
                last.len += 1;
                continue;
            }
            self.batches.push(Batch { start: n as u32, len: 1, first_instance: 0 });
        }
    }

    /// Pass 1: matrices and uniform block bytes of every batch, instance records of every draw.
    fn prepare(&mut self, list: &DrawList) {
        self.matrices.clear();
        self.block_offsets.clear();
        self.arena.clear();
        self.instances.clear();
        let frame = &self.values;
        for batch in &mut self.batches {
            let rec = &self.recs[batch.start as usize];
            let item = &list.items[rec.item as usize];
            let (Some(Some(model)), Some(Some(material))) =
                (self.models.get(item.model.0 as usize), self.materials.get(rec.material as usize))
            else {
                // Never batched with anything (`collect` skips such items); keeps indices aligned.
                self.matrices.push(DrawMatrices::default());
                self.block_offsets.push(0);
                continue;
            };
            let prim = &model.prims[rec.prim as usize];
            let p = &material.program;
            let m = draw_matrices(frame, p, list, item, model, prim);
            batch.first_instance = (self.instances.len() / INSTANCE_FLOATS) as u32;
            if !p.instance_attributes.is_empty() {
                let recs = &self.recs[batch.start as usize..(batch.start + batch.len) as usize];
                for r in recs {
                    let item = &list.items[r.item as usize];
                    let m = draw_matrices(frame, p, list, item, model, prim);
                    let base = self.item_bones.get(r.item as usize).copied().unwrap_or(NO_BONES);
                    self.instances.extend_from_slice(m.world.as_ref());
                    self.instances.extend_from_slice(m.worldview.as_ref());
                    self.instances.extend_from_slice(m.normal.as_ref());
                    self.instances.extend_from_slice(m.worldviewproj.as_ref());
                    self.instances.extend_from_slice(&animation_data(&self.pose, base, model, prim));
                }
            }
            let offset = self.arena.len().div_ceil(self.ubo_alignment) * self.ubo_alignment;
            if p.block_bytes > 0 {
                self.arena.resize(offset + p.block_bytes, 0);
                let count = fill_morph_weights(&mut self.morph_scratch, model, prim, list, item.morph_weights);
                let morph = (self.morph_scratch.as_slice(), count);
                let base = self.item_bones.get(rec.item as usize).copied().unwrap_or(NO_BONES);
                let animation = animation_data(&self.pose, base, model, prim);
                if p.bone_capacity.is_some() {
                    fill_bones(&mut self.bone_scratch, &self.pose, base, model, prim);
                }
                let mut values = draw_values(frame, &m, prim, list, item, material, morph);
                (values.animation, values.bones) = (animation, &self.bone_scratch);
                values.draw_constants = &self.draw_constants;
                write_blocks(p, &mut self.arena[offset..], &values);
            }
            self.matrices.push(m);
            self.block_offsets.push(offset as u32);
        }
    }

    /// Pass 2: GL calls, one draw call per batch, skipping state that is already set.
    fn issue(&mut self, gl: &glow::Context, list: &DrawList, stats: &mut SubmitStats) {
        set_attribute_defaults(gl);
        let mut bound_material = u32::MAX;
        let mut bound_vao = None;
        let mut cull = None;
        let mut units = [None; TRACKED_UNITS];
        let mut max_unit = 0;
        // SAFETY: fixed-function state on the current context.
        unsafe {
            let (cull, depth) = self.scripted.unwrap_or((glow::BACK, glow::LESS));
            gl.enable(glow::DEPTH_TEST);
            gl.depth_func(depth);
            gl.depth_mask(true);
            gl.disable(glow::BLEND);
            gl.front_face(glow::CCW);
            gl.cull_face(cull);
        }
        let opaque_count = self.opaque.len() as u32;
        self.skinned_counted.resize(list.items.len(), u64::MAX);
        for (n, batch) in self.batches.iter().enumerate() {
            let rec = &self.recs[batch.start as usize];
            if batch.start == opaque_count {
                // SAFETY: as above.
                unsafe {
                    gl.enable(glow::BLEND);
                    gl.blend_func_separate(
                        glow::SRC_ALPHA,
                        glow::ONE_MINUS_SRC_ALPHA,
                        glow::ONE,
                        glow::ONE_MINUS_SRC_ALPHA,
                    );
                    gl.depth_mask(false);
                }
            }
            let item = &list.items[rec.item as usize];
            let (Some(Some(model)), Some(Some(material))) =
                (self.models.get(item.model.0 as usize), self.materials.get(rec.material as usize))
            else {
                continue;
            };
            let prim: &GpuPrimitive = &model.prims[rec.prim as usize];
            let p = &material.program;
            let m = &self.matrices[n];
            let count = if p.morph_capacity.is_some() {
                fill_morph_weights(&mut self.morph_scratch, model, prim, list, item.morph_weights)
            } else {
                0
            };
            let morph = (self.morph_scratch.as_slice(), count);
            let base = self.item_bones.get(rec.item as usize).copied().unwrap_or(NO_BONES);
            if p.bone_capacity.is_some() {
                fill_bones(&mut self.bone_scratch, &self.pose, base, model, prim);
            }
            let mut values = draw_values(&self.values, m, prim, list, item, material, morph);
            values.draw_constants = &self.draw_constants;
            values.texture_srgb =
                texture_srgb(model, prim, item.textures.of(&list.textures), self.tex0, self.material_maps[1]);
            (values.animation, values.bones) = (animation_data(&self.pose, base, model, prim), &self.bone_scratch);
            // SAFETY: every object below belongs to this context; uniform data are plain floats.
            unsafe {
                if bound_material != rec.material {
                    bound_material = rec.material;
                    gl.use_program(Some(p.program));
                    stats.program_binds += 1;
                    for (slot, sampler) in p.samplers.iter().zip(&material.sampler_objects) {
                        // The pose cache must be read unfiltered and the shadow map compared
                        // (its texture's own parameters), whatever the material says.
                        let own = slot.hash == self.pose_matrix_cache || slot.hash == self.shadow_map;
                        let sampler = if own { None } else { *sampler };
                        gl.bind_sampler(slot.unit, sampler);
                        max_unit = max_unit.max(slot.unit);
                    }
                    let stamp = &mut self.material_frames[rec.material as usize];
                    if *stamp != self.frame {
                        *stamp = self.frame;
                        set_plain(gl, &p.frame_uniforms, &values, None);
                        // Uniform values live in the program; start each frame from scratch
                        // anyway so nothing stale can survive a context-level surprise.
                        self.uniform_cache[rec.material as usize].fill([f32::NAN; 4]);
                    }
                }
                let double_sided = prim.material.double_sided;
                if cull != Some(!double_sided) {
                    cull = Some(!double_sided);
                    if double_sided { gl.disable(glow::CULL_FACE) } else { gl.enable(glow::CULL_FACE) }
                }
                let overrides = item.textures.of(&list.textures);
                for slot in &p.samplers {
                    if slot.array {
                        let morph = prim.morph.filter(|_| slot.hash == self.morph_targets);
                        let tex = morph.map_or(self.zero_array, |m| m.texture);
                        let tracked = units.get_mut(slot.unit as usize);
                        if tracked.as_ref().is_some_and(|t| **t == Some(tex)) {
                            continue;
                        }
                        if let Some(t) = tracked {
                            *t = Some(tex);
                        }
                        gl.active_texture(glow::TEXTURE0 + slot.unit);
                        gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(tex));
                        stats.texture_binds += 1;
                        continue;
                    }
                    if slot.cube {
                        // The model's `.cubemap` for this sampler, else none (samples black).
                        let cube = overrides
                            .iter()
                            .find(|(h, th)| *h == slot.hash && self.cube_textures.get(th.0 as usize) == Some(&true))
                            .and_then(|(_, th)| self.textures.get(th.0 as usize).copied().flatten());
                        if let Some(t) = units.get_mut(slot.unit as usize) {
                            *t = cube;
                        }
                        gl.active_texture(glow::TEXTURE0 + slot.unit);
                        gl.bind_texture(glow::TEXTURE_CUBE_MAP, cube);
                        stats.texture_binds += 1;
                        continue;
                    }
                    let pose = self.pose.texture().filter(|_| slot.hash == self.pose_matrix_cache);
                    let shadow = (slot.hash == self.shadow_map).then(|| self.shadow.texture());
                    let enabled = self.enabled_textures.iter().rev().find(|(b, _)| match *b {
                        crate::game::render_script::Binding::Unit(u) => u == slot.unit,
                        crate::game::render_script::Binding::Sampler(h) => h == slot.hash,
                    });
                    let tex = match overrides.iter().find(|(h, _)| *h == slot.hash) {
                        _ if enabled.is_some() => enabled.map(|(_, t)| *t),
                        _ if pose.is_some() => pose,
                        _ if shadow.is_some() => shadow,
                        Some((_, th)) if self.cube_textures.get(th.0 as usize) != Some(&true) => {
                            self.textures.get(th.0 as usize).copied().flatten()
                        }
                        Some(_) => None,
                        None => {
                            let pm = &prim.material;
                            let maps = self.material_maps;
                            let own = match slot.hash {
                                h if h == self.tex0 => pm.texture,
                                h if h == maps[0] => pm.normal_map,
                                h if h == maps[1] => pm.emissive_map,
                                h if h == maps[2] => pm.occlusion_map,
                                h if h == maps[3] => pm.metallic_roughness_map,
                                _ => None,
                            };
                            let srgb = own.and_then(|t| model.srgb.get(t).copied().flatten());
                            match srgb {
                                Some(t) if p.reads_srgb => Some(t),
                                _ => own.and_then(|t| model.textures.get(t).copied()),
                            }
                        }
                    }
                    .unwrap_or(self.white);
                    let tracked = units.get_mut(slot.unit as usize);
                    if tracked.as_ref().is_some_and(|t| **t == Some(tex)) {
                        continue;
                    }
                    if let Some(t) = tracked {
                        *t = Some(tex);
                    }
                    gl.active_texture(glow::TEXTURE0 + slot.unit);
                    gl.bind_texture(glow::TEXTURE_2D, Some(tex));
                    stats.texture_binds += 1;
                }
                let cache = self.uniform_cache.get_mut(rec.material as usize).map(Vec::as_mut_slice);
                set_plain(gl, &p.draw_uniforms, &values, cache);
                let base = self.block_offsets[n] as i32;
                for b in &p.blocks {
                    gl.bind_buffer_range(
                        glow::UNIFORM_BUFFER,
                        b.binding,
                        Some(self.ubo),
                        base + b.offset as i32,
                        b.size as i32,
                    );
                }
                if bound_vao != Some(prim.vao) {
                    bound_vao = Some(prim.vao);
                    gl.bind_vertex_array(Some(prim.vao));
                    stats.vao_binds += 1;
                }
                if p.instance_attributes.is_empty() {
                    gl.draw_elements(glow::TRIANGLES, prim.count, prim.index_type, 0);
                } else {
                    let stride = (INSTANCE_FLOATS * 4) as i32;
                    gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.instance_buffer));
                    for a in &p.instance_attributes {
                        for c in 0..a.columns {
                            let at = batch.first_instance as usize * INSTANCE_FLOATS + a.offset + 4 * c as usize;
                            gl.enable_vertex_attrib_array(a.location + c);
                            gl.vertex_attrib_pointer_f32(
                                a.location + c,
                                a.rows,
                                glow::FLOAT,
                                false,
                                stride,
                                at as i32 * 4,
                            );
                            gl.vertex_attrib_divisor(a.location + c, 1);
                        }
                    }
                    gl.draw_elements_instanced(glow::TRIANGLES, prim.count, prim.index_type, 0, batch.len as i32);
                    // Another program may give these locations to attributes of its own, which
                    // must read their generic values, not this buffer.
                    for a in &p.instance_attributes {
                        for c in 0..a.columns {
                            gl.disable_vertex_attrib_array(a.location + c);
                        }
                    }
                    gl.bind_buffer(glow::ARRAY_BUFFER, None);
                }
            }
            stats.draw_calls += 1;
            stats.draws += batch.len;
            stats.triangles += (prim.count / 3) as u64 * batch.len as u64;
            if prim.skin.is_some() {
                let recs = &self.recs[batch.start as usize..(batch.start + batch.len) as usize];
                for r in recs {
                    if let Some(stamp) = self.skinned_counted.get_mut(r.item as usize)
                        && *stamp != self.frame
                    {
                        *stamp = self.frame;
                        stats.skinned_instances += 1;
                    }
                }
            }
        }
        // SAFETY: restoring default state on the current context.
        unsafe {
            gl.bind_vertex_array(None);
            gl.use_program(None);
            for unit in 0..=max_unit {
                gl.bind_sampler(unit, None);
            }
            gl.active_texture(glow::TEXTURE0);
            gl.disable(glow::BLEND);
            gl.disable(glow::CULL_FACE);
            gl.depth_mask(true);
        }
    }
}

/// Gribb-Hartmann planes of a GL clip-space matrix, normalised so distances are world units.
pub(super) fn frustum_planes(m: Mat4) -> [Vec4; 6] {
    let (r0, r1, r2, r3) = (m.row(0), m.row(1), m.row(2), m.row(3));
    [r3 + r0, r3 - r0, r3 + r1, r3 - r1, r3 + r2, r3 - r2].map(|p| {
        let len = p.truncate().length();
        if len > 0.0 { p / len } else { p }
    })
}

pub(super) fn sphere_visible(planes: &[Vec4; 6], center: Vec3, radius: f32) -> bool {
    planes.iter().all(|p| p.truncate().dot(center) + p.w >= -radius)
}

/// A draw's matrices, computed only as far as the program needs them.
fn draw_matrices(
    frame: &FrameValues,
    p: &ShaderProgram,
    list: &DrawList,
    item: &DrawItem,
    model: &GpuModel,
    prim: &GpuPrimitive,
) -> DrawMatrices {
    let mut m = DrawMatrices {
        world: item.world
            * list.mesh_world(item, prim.mesh, model.mesh_world.get(prim.mesh).copied().unwrap_or_default()),
        ..Default::default()
    };
    if p.needs.worldview || p.needs.normal {
        m.worldview = frame.view * m.world;
    }
    if p.needs.worldviewproj {
        m.worldviewproj = frame.viewproj * m.world;
    }
    if p.needs.normal {
        m.normal = m.worldview.inverse().transpose();
    }
    m
}

/// Whether draw `b` may join the instanced draw call that `a` starts: same primitive, same
/// material (whose program takes its per-instance values as attributes), and nothing else that
/// could differ between the two: texture and constant overrides, morph weights, whether it
/// receives shadows (`shadow_receive` is a per-draw uniform).
fn instances_compatible(
    models: &[Option<GpuModel>],
    materials: &[Option<Material>],
    list: &DrawList,
    a: &DrawRec,
    b: &DrawRec,
) -> bool {
    let (ia, ib) = (&list.items[a.item as usize], &list.items[b.item as usize]);
    if ia.model != ib.model || a.material != b.material || a.prim != b.prim || ia.receive_shadows != ib.receive_shadows
    {
        return false;
    }
    let (Some(Some(model)), Some(Some(material))) =
        (models.get(ia.model.0 as usize), materials.get(a.material as usize))
    else {
        return false;
    };
    let p = &material.program;
    if !p.instanceable
        || ia.constants.of(&list.constants) != ib.constants.of(&list.constants)
        || ia.textures.of(&list.textures) != ib.textures.of(&list.textures)
    {
        return false;
    }
    let Some(prim) = model.prims.get(a.prim as usize) else { return false };
    match (prim.morph, p.morph_capacity) {
        (Some(_), Some(_)) => {
            morph_source(model, prim, list, ia.morph_weights).eq(morph_source(model, prim, list, ib.morph_weights))
        }
        _ => true,
    }
}

/// Groups opaque draws of one primitive by what `instances_compatible` compares besides it: 0
/// when the item overrides nothing (and the primitive is not morphed).
fn override_hash(list: &DrawList, item: &DrawItem, model: &GpuModel, prim: &GpuPrimitive, material: &Material) -> u64 {
    let (constants, textures) = (item.constants.of(&list.constants), item.textures.of(&list.textures));
    let morphed = prim.morph.is_some() && material.program.morph_capacity.is_some();
    if constants.is_empty() && textures.is_empty() && !morphed && item.receive_shadows {
        return 0;
    }
    // FNV-1a over the values' bits; collisions only cost a shared call (equality is checked).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |v: u64| h = (h ^ v).wrapping_mul(0x0000_0100_0000_01b3);
    for (k, v) in constants {
        mix(*k);
        v.iter().for_each(|f| mix(f.to_bits() as u64));
    }
    for (k, t) in textures {
        mix(*k);
        mix(t.0 as u64);
    }
    if morphed {
        morph_source(model, prim, list, item.morph_weights).for_each(|b| mix(b as u64));
    }
    mix(u64::from(item.receive_shadows));
    h.max(1)
}

/// The weights `fill_morph_weights` gives `prim` of an item, without the padding.
fn morph_source<'a>(
    model: &'a GpuModel,
    prim: &GpuPrimitive,
    list: &'a DrawList,
    span: Span,
) -> impl Iterator<Item = u32> + 'a {
    let count = prim.morph.map_or(0, |m| m.targets as usize);
    let start = model.morph_range(prim.mesh).start;
    let span = span.of(&list.morph_weights);
    let src = if span.is_empty() { model.initial_morph_weights() } else { span };
    let src = src.get(start..).unwrap_or(&[]);
    // Bit patterns, so that equal means "draws the same" (and -0.0 vs 0.0 is conservative).
    src.iter().take(count).map(|&w| if w.is_finite() { w.to_bits() } else { 0 })
}

/// The bytes of a float slice, without copying.
pub(super) fn f32_bytes(v: &[f32]) -> &[u8] {
    // SAFETY: `v` is a live, initialised slice; u8 has alignment 1 and the length is exact.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// Largest axis scale of an affine matrix, to grow a bounding sphere radius.
pub(super) fn max_scale(m: &Mat4) -> f32 {
    let s = [m.x_axis, m.y_axis, m.z_axis].map(|a| a.truncate().length_squared());
    s[0].max(s[1]).max(s[2]).sqrt()
}

/// Writes the weights `prim` of an item draws with into `out` (zero-padded to whole vec4s) and
/// returns the primitive's target count. Non-finite weights (e.g. NaN from a script) become 0
/// so one bad value cannot turn the mesh into NaN vertices.
pub(super) fn fill_morph_weights(
    out: &mut Vec<f32>,
    model: &GpuModel,
    prim: &GpuPrimitive,
    list: &DrawList,
    span: Span,
) -> usize {
    out.clear();
    let count = prim.morph.map_or(0, |m| m.targets as usize);
    if count == 0 {
        return 0;
    }
    let start = model.morph_range(prim.mesh).start;
    let span = span.of(&list.morph_weights);
    let src = if span.is_empty() { model.initial_morph_weights() } else { span };
    let src = src.get(start..).unwrap_or(&[]);
    out.extend(src.iter().take(count).map(|&w| if w.is_finite() { w } else { 0.0 }));
    out.resize(count.div_ceil(4) * 4, 0.0);
    count
}

/// Defold's `animation_data` for one draw: where the primitive's skin starts in the pose cache (in
/// texels), its joint count, and the cache size; all zero (pass-through) when it is not skinned.
pub(super) fn animation_data(pose: &PoseCache, base: u32, model: &GpuModel, prim: &GpuPrimitive) -> [f32; 4] {
    match prim.skin {
        Some(skin) if base != NO_BONES && pose.texture().is_some() => {
            let range = model.skin_range(skin);
            let (w, h) = pose.size();
            [(3 * (base as usize + range.start)) as f32, range.len() as f32, w as f32, h as f32]
        }
        _ => [0.0; 4],
    }
}

/// Writes the primitive's skin as column-major mat4s into `out` (empty when it is not skinned).
fn fill_bones(out: &mut Vec<f32>, pose: &PoseCache, base: u32, model: &GpuModel, prim: &GpuPrimitive) {
    out.clear();
    let (Some(skin), false) = (prim.skin, base == NO_BONES) else { return };
    let range = model.skin_range(skin);
    let start = base as usize + range.start;
    let bones = pose.bones().get(start..start + range.len()).unwrap_or(&[]);
    out.extend(bones.iter().flat_map(texels_to_cols));
}

/// `texture_srgb` for a program that declares it: (base colour, emissive) 1 where the texture
/// bound for it is the model's sRGB copy, 0 where it holds raw bytes (an item's texture, which
/// the shader then decodes after filtering, as before). With no texture either way reads white.
fn texture_srgb(
    model: &GpuModel,
    prim: &GpuPrimitive,
    overrides: &[(u64, TextureHandle)],
    tex0: u64,
    emissive: u64,
) -> [f32; 4] {
    let flag = |slot: u64, own: Option<usize>| {
        if overrides.iter().any(|(h, _)| *h == slot) {
            0.0
        } else {
            f32::from(u8::from(own.is_some_and(|t| model.srgb.get(t).is_some_and(Option::is_some))))
        }
    };
    [flag(tex0, prim.material.texture), flag(emissive, prim.material.emissive_map), 0.0, 0.0]
}

/// The program variant a primitive of an item needs: the frame's, with the item's shadow and
/// the primitive's maps and alpha mode. `emissive_map` is that sampler's name hash (an item may
/// bring the texture).
fn draw_variant(
    frame: Variant,
    source: &VariantSource,
    list: &DrawList,
    item: &DrawItem,
    prim: &GpuPrimitive,
    emissive_map: u64,
) -> Variant {
    let pm = &prim.material;
    let emissive =
        pm.emissive_map.is_some() || item.textures.of(&list.textures).iter().any(|(h, _)| *h == emissive_map);
    let standard = source.standard.map_or(frame.get(Feature::Standard), i32::from);
    let v = frame
        .with(Feature::ShadowSlot, if item.receive_shadows { frame.get(Feature::ShadowSlot) } else { -1 })
        .with(Feature::Standard, standard)
        .with(Feature::NormalMap, i32::from(pm.normal_scale != 0.0))
        .with(Feature::OcclusionMap, i32::from(pm.occlusion_strength != 0.0))
        .with(Feature::MetallicRoughnessMap, i32::from(pm.metallic_roughness[3] > 0.5))
        .with(Feature::EmissiveMap, i32::from(emissive))
        .with(Feature::AlphaMask, i32::from(pm.alpha_mode == AlphaMode::Mask))
        .with(Feature::Morph, i32::from(prim.morph.is_some()))
        .with(Feature::Skinned, i32::from(prim.skin.is_some()));
    source.uses.keep(v)
}

/// The uniform values of one draw; `morph` is (weights, target count).
fn draw_values<'a>(
    frame: &'a FrameValues,
    m: &'a DrawMatrices,
    prim: &GpuPrimitive,
    list: &'a DrawList,
    item: &DrawItem,
    material: &'a Material,
    morph: (&'a [f32], usize),
) -> Values<'a> {
    let pm = &prim.material;
    let cutoff = if pm.alpha_mode == AlphaMode::Mask { pm.alpha_cutoff } else { 0.0 };
    let opaque = if pm.alpha_mode == AlphaMode::Blend { 0.0 } else { 1.0 };
    Values {
        frame,
        m,
        shadow_receive: [f32::from(u8::from(item.receive_shadows)), 0.0, 0.0, 0.0],
        base_color: pm.base_color,
        texcoord: [pm.texcoord, 0.0, 0.0, 0.0],
        emissive: pm.emissive,
        texcoord_sets: pm.texcoord_sets,
        normal_scale: [pm.normal_scale, 0.0, 0.0, 0.0],
        occlusion_strength: [pm.occlusion_strength, 0.0, 0.0, 0.0],
        metallic_roughness: pm.metallic_roughness,
        alpha: [cutoff, 0.0, 0.0, 0.0],
        opaque: [opaque, 0.0, 0.0, 0.0],
        draw_constants: &[],
        overrides: item.constants.of(&list.constants),
        program_constants: &material.program.constants,
        defaults: &material.defaults,
        morph: morph.0,
        morph_count: [morph.1 as f32, 0.0, 0.0, 0.0],
        animation: [0.0; 4],
        bones: &[],
        texture_srgb: [0.0; 4],
    }
}

/// A spot light's `light_spot` slot: its view-space axis scaled so that `dot(-l, xyz) + w` (with
/// `l` the unit vector from the lit point to the light) is 0 on the outer cone and 1 on the
/// inner one (clamped and squared in the shaders, as Filament shapes its spot lights).
fn spot_cone(axis: Vec3, [inner, outer]: [f32; 2]) -> [f32; 4] {
    let axis = axis.normalize_or_zero();
    let (cos_inner, cos_outer) = (inner.to_radians().cos(), outer.to_radians().cos());
    // Equal cones: a hard edge.
    let scale = 1.0 / (cos_inner - cos_outer).max(1e-4);
    let a = axis * scale;
    [a.x, a.y, a.z, -cos_outer * scale]
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::camera::rh::proj::opengl::perspective;
    use glam::camera::rh::view::look_at_mat4;

    #[test]
    fn frustum_culls_spheres_outside_only() {
        let vp = perspective(1.0, 1.0, 0.1, 50.0) * look_at_mat4(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y);
        let f = frustum_planes(vp);
        assert!(sphere_visible(&f, Vec3::ZERO, 0.5));
        assert!(!sphere_visible(&f, Vec3::new(0.0, 0.0, 20.0), 0.5), "behind the camera");
        assert!(!sphere_visible(&f, Vec3::new(30.0, 0.0, 0.0), 1.0), "far right");
        assert!(sphere_visible(&f, Vec3::new(6.0, 0.0, 0.0), 1.5), "straddles the right plane");
        assert!(!sphere_visible(&f, Vec3::new(0.0, 0.0, -45.0), 1.0), "past far");
        assert_eq!(max_scale(&Mat4::from_scale(Vec3::new(1.0, 3.0, 2.0))), 3.0);
    }

    #[test]
    fn a_spot_cone_is_one_inside_the_inner_angle_and_zero_outside_the_outer() {
        let slot = super::spot_cone(Vec3::new(0.0, 0.0, -2.0), [30.0, 45.0]);
        // `l` points from the lit point back to the light: -l is the way the light travels.
        let strength = |deg: f32| {
            let travel = Vec3::new(deg.to_radians().sin(), 0.0, -deg.to_radians().cos());
            (travel.dot(Vec3::new(slot[0], slot[1], slot[2])) + slot[3]).clamp(0.0, 1.0)
        };
        assert_eq!((strength(0.0), strength(29.0)), (1.0, 1.0));
        assert!((strength(30.0) - 1.0).abs() < 1e-4 && strength(45.0).abs() < 1e-4);
        assert!(strength(37.5) > 0.3 && strength(37.5) < 0.7);
        assert_eq!(strength(60.0), 0.0);
        // Equal angles: a hard edge, not a division by zero.
        let hard = super::spot_cone(Vec3::Z, [20.0, 20.0]);
        assert!(hard.iter().all(|x| x.is_finite()));
    }
}
