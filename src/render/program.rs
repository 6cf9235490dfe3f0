//! A linked program and what it declares, found once at link time: every active uniform (plain
//! or a std140 block member) is mapped to the value the runtime feeds it, so drawing never looks
//! a name up.
//!
//! Names the runtime feeds (anything else is a user constant, a vec4 from the draw item or the
//! material, zero when neither has it):
//!
//! | name | value |
//! | --- | --- |
//! | `mtx_world`, `mtx_view`, `mtx_proj`, `mtx_worldview`, `mtx_viewproj`, `mtx_worldviewproj` | mat4 |
//! | `mtx_normal` | inverse-transpose of world-view |
//! | `base_color` | glTF base colour factor of the primitive (vec4) |
//! | `base_color_texcoord` | 0 or 1: which texcoord set the base colour texture uses |
//! | `emissive_factor` | vec4: rgb = glTF emissiveFactor x `KHR_materials_emissive_strength` (linear), w = 0 |
//! | `texcoord_sets` | vec4: texcoord set (0 or 1) of the base colour, normal, emissive and occlusion textures |
//! | `normal_scale` | glTF normalTexture.scale; 0 when the primitive has no normal map |
//! | `occlusion_strength` | glTF occlusionTexture.strength; 0 when the primitive has no occlusion map |
//! | `alpha_cutoff` | glTF cutoff for MASK primitives, else 0 |
//! | `alpha_opaque` | 1 for OPAQUE and MASK, 0 for BLEND |
//! | `light_position[8]` | view space; w = 0: direction towards a directional light, w = 1: point light; the lights in use fill the first slots, and the free ones are (0, 0, 0, -1) |
//! | `light_color[8]` | colour x intensity (rgb); w: a point light's range (its falloff `(1 - d / range)^2`, Defold's), 0 for `1 / (1 + d^2)`; unused slots are zero |
//! | `light_spot[8]` | a spot light's cone: `clamp(dot(-l, xyz) + w, 0, 1)` squared is its strength at a point (`l` the unit vector from it to the light), 1 inside the inner cone and 0 outside the outer one; (0, 0, 0, 1) for other lights |
//! | `ambient` | ambient colour (rgb): the project's `ambient`, or the sum of the enabled ambient light components |
//! | `shading_model` | float, project `shading`: 0 = Lambert, 1 = glTF metallic-roughness |
//! | `tone_mapping`, `exposure` | floats, project settings: 0 = none, 1 = ACES, 2 = AgX; linear scale before it |
//! | `texture_srgb` | vec4: x 1 when the base colour texture is stored as sRGB (decoded before filtering; 0: raw bytes, decode in the shader), y the same for the emissive texture |
//! | `metallic_roughness` | vec4: glTF metallicFactor, roughnessFactor, the metallic-roughness texture's texcoord set, 1 when the primitive has that texture |
//! | `tex0`..`tex7` | texture units 0..7; `tex0` defaults to the glTF base colour texture |
//! | `normal_map`, `emissive_map`, `occlusion_map`, `metallic_roughness_map` (`sampler2D`) | the primitive's glTF normal, emissive, occlusion and metallic-roughness textures (white when it has none); bound to free units from 8 up |
//! | `morph_targets_weights[n]`, also `morph_weights[n]` | vec4 array: the draw item's morph weights for this mesh, target `t` in `[t / 4][t % 4]` |
//! | `morph_target_count` | int (or float): the mesh's morph target count, 0 without targets |
//! | `morph_targets` | `sampler2DArray` of the primitive's deltas (see `render::morph`); an all-zero 1×1×3 array when it has none |
//! | `pose_matrix_cache` (`sampler2D`) | the frame's skinning matrices, 3 RGBA32F texels per bone (see `render::skin`); bound to the first free unit from 8 up |
//! | `animation_data` | vec4: `x` = first texel of the primitive's skin in `pose_matrix_cache`, `y` = its joint count (0: not skinned, pass through), `zw` = the texture's width and height |
//! | `bone_matrices[n]`, also `pose_matrix_cache[n]` declared as a `mat4` array | the primitive's skin, bone `j` in element `j` (no texture needed) |
//! | `shadow_map` (`sampler2DShadow`) | the first directional light's depth map, compared in hardware with linear filtering (a 1×1 map of depth 1 while shadows are off); bound to a free unit from 8 up |
//! | `mtx_shadow` | view space → shadow map: xy texture coordinates, z the depth to compare |
//! | `shadow_params` | vec4: x the slot in `light_position[]` of the light that casts (-1: none this frame, shadows off), y one texel in world units (for a normal offset), z one texel in texture coordinates (for PCF taps) |
//! | `shadow_receive` | float: 1 when the item's `receive_shadows` is on, else 0 |
//!
//! Block members are matched by the same names (a block instance prefix is ignored). Matrix and
//! vec4 arrays are filled element by element; other arrays get their first element only.
//!
//! Morph weights are written up to the mesh's target count, rounded up to whole vec4s: in a block
//! the rest is zero, a plain array keeps the previous draw's values there. Shaders must not read
//! weights past the mesh's target count (the contract shader stops at the layer count / 3).
//!
//! A skin with more joints than a program's bone array holds is not drawn with it (reported once),
//! as for morph targets; the texture has no such limit (at least 256 joints per skin, api spec).
//!
//! Instance attributes (Defold's instancing convention): a vertex program may declare the
//! per-instance values as vertex *attributes* instead of uniforms: `mtx_world`, `mtx_worldview`,
//! `mtx_worldviewproj`, `mtx_normal` (each `mat4` or `mat3`) and `animation_data` (`vec4`). The
//! renderer feeds them from a per-instance buffer (divisor 1), so one instanced draw covers every
//! instance of a primitive that shares its material, texture and constant overrides and morph
//! weights. A program that also reads any per-instance value as a uniform (`mtx_world` & co.,
//! `animation_data`, a `mat4` bone array) is drawn one instance per draw call (its attributes
//! are still fed). The built-in `model.vp` declares `mtx_worldview`, `mtx_normal` (`mat3`) and
//! `animation_data` this way; custom programs with uniforms only keep drawing one by one.

use glam::Mat4;
use glow::HasContext;

use super::shader::{Stage, link};
use crate::base::error::LoadError;
use crate::base::hash::{Hash, hash_str};

/// Light slots in the built-in uniforms `light_position[]` / `light_color[]`.
pub const MAX_LIGHTS: usize = 8;

/// Where a uniform's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    World,
    View,
    Proj,
    WorldView,
    ViewProj,
    WorldViewProj,
    Normal,
    /// glTF material values of the primitive being drawn.
    BaseColor,
    /// Which texcoord set the base colour texture uses (0 or 1).
    BaseColorTexcoord,
    EmissiveFactor,
    TexcoordSets,
    NormalScale,
    OcclusionStrength,
    AlphaCutoff,
    AlphaOpaque,
    LightPosition,
    LightColor,
    LightSpot,
    Ambient,
    /// 0: Lambert, 1: glTF metallic-roughness (project `shading`).
    ShadingModel,
    /// 0: none, 1: ACES, 2: AgX (project `tone_mapping`).
    ToneMapping,
    Exposure,
    /// glTF metallicFactor, roughnessFactor, the metallic-roughness texture's set, 1 when the
    /// primitive has that texture.
    MetallicRoughness,
    /// (base colour, emissive): 1 where the bound texture is stored as sRGB.
    TextureSrgb,
    /// The item's morph weights for the mesh being drawn (vec4 array).
    MorphWeights,
    MorphTargetCount,
    /// Where the primitive's skin sits in `pose_matrix_cache` (Defold's `animation_data`).
    AnimationData,
    /// The primitive's skin as mat4s (uniform-array alternative to the texture).
    BoneMatrices,
    /// View space → the shadow map (xy texture coordinates, z depth); see `render::shadow`.
    ShadowMatrix,
    /// x: slot of the shadowing light (-1: none this frame), y: a texel in world units, z: a
    /// texel in texture coordinates.
    ShadowParams,
    /// 1 when the item receives shadows, else 0.
    ShadowReceive,
    /// x: game seconds since the start, y: the frame's dt (Defold's `CONSTANT_TYPE_TIME`).
    Time,
    /// A user constant: index into [`ShaderProgram::constants`].
    Constant(usize),
}

impl Source {
    /// Differs between instances of one primitive, so a program reading it as a uniform cannot
    /// draw several instances at once. Constants and morph weights are compared per item instead.
    fn per_instance(self) -> bool {
        matches!(
            self,
            Source::World
                | Source::WorldView
                | Source::WorldViewProj
                | Source::Normal
                | Source::AnimationData
                | Source::BoneMatrices
        )
    }

    /// Same value for every draw of a frame: plain uniforms of this kind are set once per frame.
    fn per_frame(self) -> bool {
        matches!(
            self,
            Source::View
                | Source::Proj
                | Source::ViewProj
                | Source::LightPosition
                | Source::LightColor
                | Source::LightSpot
                | Source::Ambient
                | Source::ShadingModel
                | Source::ToneMapping
                | Source::Exposure
                | Source::ShadowMatrix
                | Source::ShadowParams
                | Source::Time
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Float,
    Vec2,
    Vec3,
    Vec4,
    Mat4,
    /// Fed the value's first component, truncated (only `morph_target_count` needs it).
    Int,
}

impl Kind {
    fn of(gl_type: u32) -> Option<Kind> {
        Some(match gl_type {
            glow::INT => Kind::Int,
            glow::FLOAT => Kind::Float,
            glow::FLOAT_VEC2 => Kind::Vec2,
            glow::FLOAT_VEC3 => Kind::Vec3,
            glow::FLOAT_VEC4 => Kind::Vec4,
            glow::FLOAT_MAT4 => Kind::Mat4,
            _ => return None,
        })
    }
    fn components(self) -> usize {
        match self {
            Kind::Float | Kind::Int => 1,
            Kind::Vec2 => 2,
            Kind::Vec3 => 3,
            Kind::Vec4 => 4,
            Kind::Mat4 => 16,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Target {
    Plain(glow::UniformLocation),
    /// std140 member: byte offsets relative to the block's start.
    Block {
        block: usize,
        offset: usize,
        array_stride: usize,
        matrix_stride: usize,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct Uniform {
    pub source: Source,
    pub kind: Kind,
    pub count: usize,
    pub target: Target,
}

/// A uniform block: its slot in the per-draw arena region and its size.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub binding: u32,
    pub offset: usize,
    pub size: usize,
}

/// A sampler uniform and the texture unit it reads.
#[derive(Clone, Debug)]
pub(crate) struct SamplerSlot {
    pub name: String,
    pub hash: Hash,
    pub unit: u32,
    /// A `sampler2DArray`: bound to TEXTURE_2D_ARRAY (morph targets), not TEXTURE_2D.
    pub array: bool,
    /// A `samplerCube`: bound to TEXTURE_CUBE_MAP (a `.cubemap` texture of the model's).
    pub cube: bool,
}

/// Which per-draw matrices any uniform needs (world is always computed).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Needs {
    pub worldview: bool,
    pub worldviewproj: bool,
    pub normal: bool,
}

/// A linked program with its uniforms sorted by how often they change.
pub struct ShaderProgram {
    pub(crate) program: glow::Program,
    pub(crate) frame_uniforms: Vec<Uniform>,
    pub(crate) draw_uniforms: Vec<Uniform>,
    pub(crate) block_uniforms: Vec<Uniform>,
    pub(crate) blocks: Vec<Block>,
    /// Bytes of arena one draw uses for all blocks (each block start aligned).
    pub(crate) block_bytes: usize,
    pub(crate) samplers: Vec<SamplerSlot>,
    /// User constant names (and their hashes) in `Source::Constant` order.
    pub(crate) constants: Vec<(Hash, String)>,
    pub(crate) needs: Needs,
    /// Most morph targets the program's weight arrays hold (4 per vec4, the smallest array when
    /// both names are declared); None when it declares none and so does not morph.
    pub(crate) morph_capacity: Option<usize>,
    /// Most bones the program's `mat4` bone arrays hold (the smallest when both names are
    /// declared); None when it declares none.
    pub(crate) bone_capacity: Option<usize>,
    /// Per-instance vertex attributes it declares (see the module doc).
    pub(crate) instance_attributes: Vec<InstanceAttribute>,
    /// True when no uniform reads a per-instance value, so instances may share a draw call.
    pub(crate) instanceable: bool,
    /// It declares `texture_srgb`: it is given the models' colour maps stored as sRGB (decoded
    /// before filtering). A program that does not (Defold's contract) reads their raw bytes.
    pub(crate) reads_srgb: bool,
    instance_names: Vec<String>,
}

/// Floats per instance in the renderer's instance buffer: world, world-view, normal and
/// world-view-projection matrices (column-major), then `animation_data`.
pub(crate) const INSTANCE_FLOATS: usize = 68;

/// A per-instance vertex attribute: `columns` consecutive locations from `location`, each
/// reading `rows` floats of one 4-float column of the instance record from float `offset` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct InstanceAttribute {
    pub location: u32,
    pub columns: u32,
    pub rows: i32,
    pub offset: usize,
}

/// Where an instance attribute's value sits in the instance record, by name.
fn instance_offset(name: &str) -> Option<usize> {
    Some(match name {
        "mtx_world" => 0,
        "mtx_worldview" => 16,
        "mtx_normal" => 32,
        "mtx_worldviewproj" => 48,
        "animation_data" => 64,
        _ => return None,
    })
}

/// Built-in sources by name; anything else is a user constant.
fn builtin_source(name: &str) -> Option<Source> {
    Some(match name {
        "mtx_world" => Source::World,
        "mtx_view" => Source::View,
        "mtx_proj" => Source::Proj,
        "mtx_worldview" => Source::WorldView,
        "mtx_viewproj" => Source::ViewProj,
        "mtx_worldviewproj" => Source::WorldViewProj,
        "mtx_normal" => Source::Normal,
        "base_color" => Source::BaseColor,
        "base_color_texcoord" => Source::BaseColorTexcoord,
        "emissive_factor" => Source::EmissiveFactor,
        "texcoord_sets" => Source::TexcoordSets,
        "normal_scale" => Source::NormalScale,
        "occlusion_strength" => Source::OcclusionStrength,
        "alpha_cutoff" => Source::AlphaCutoff,
        "alpha_opaque" => Source::AlphaOpaque,
        "light_position" => Source::LightPosition,
        "light_color" => Source::LightColor,
        "light_spot" => Source::LightSpot,
        "ambient" => Source::Ambient,
        "shading_model" => Source::ShadingModel,
        "tone_mapping" => Source::ToneMapping,
        "exposure" => Source::Exposure,
        "metallic_roughness" => Source::MetallicRoughness,
        "texture_srgb" => Source::TextureSrgb,
        "mtx_shadow" => Source::ShadowMatrix,
        "shadow_params" => Source::ShadowParams,
        "shadow_receive" => Source::ShadowReceive,
        "engine_time" => Source::Time,
        "morph_targets_weights" | "morph_weights" => Source::MorphWeights,
        "morph_target_count" => Source::MorphTargetCount,
        "animation_data" => Source::AnimationData,
        // Samplers never get here, so the texture and the array can share Defold's name.
        "bone_matrices" | "pose_matrix_cache" => Source::BoneMatrices,
        // The classic skinning shader contract (rigs.md section 5, see `render::classic`).
        "bonesMatrices" | "boneMatrices" => Source::BoneMatrices,
        "projectionMatrix" => Source::Proj,
        "viewMatrix" => Source::View,
        "modelMatrix" => Source::World,
        _ => return None,
    })
}

fn is_sampler(gl_type: u32) -> bool {
    matches!(
        gl_type,
        glow::SAMPLER_2D
            | glow::SAMPLER_2D_ARRAY
            | glow::SAMPLER_3D
            | glow::SAMPLER_CUBE
            | glow::SAMPLER_BUFFER
            | glow::INT_SAMPLER_2D
            | glow::UNSIGNED_INT_SAMPLER_2D
            | glow::SAMPLER_2D_SHADOW
    )
}

/// `blk.light[0]` → `light`: block instance prefixes and array suffixes are not part of the name.
fn base_name(name: &str) -> &str {
    let name = name.strip_suffix("[0]").unwrap_or(name);
    name.rsplit('.').next().unwrap_or(name)
}

impl ShaderProgram {
    /// Compiles, links and reflects a vertex + fragment program, with a variant's `defines`
    /// (empty for none) in both stages. Errors name the resource.
    pub fn new(
        gl: &glow::Context,
        vertex: (&str, &str),
        fragment: (&str, &str),
        defines: &str,
        ubo_alignment: usize,
    ) -> Result<ShaderProgram, LoadError> {
        let program = link(
            gl,
            &[
                Stage { kind: glow::VERTEX_SHADER, resource: vertex.0, source: vertex.1, defines },
                Stage { kind: glow::FRAGMENT_SHADER, resource: fragment.0, source: fragment.1, defines },
            ],
        )?;
        Ok(reflect(gl, program, ubo_alignment.max(16)))
    }

    /// Index of a user constant by name hash, if the program declares it.
    pub fn constant_index(&self, hash: Hash) -> Option<usize> {
        self.constants.iter().position(|(h, _)| *h == hash)
    }

    /// Whether any uniform or sampler of this program is called `name`.
    pub fn declares(&self, name: &str) -> bool {
        let all = self.frame_uniforms.iter().chain(&self.draw_uniforms).chain(&self.block_uniforms);
        let builtin = builtin_source(name);
        all.map(|u| u.source).any(|s| Some(s) == builtin || self.constant_name(s) == Some(name))
            || self.samplers.iter().any(|s| s.name == name)
            || self.instance_names.iter().any(|n| n == name)
    }

    fn constant_name(&self, s: Source) -> Option<&str> {
        match s {
            Source::Constant(i) => self.constants.get(i).map(|(_, n)| n.as_str()),
            _ => None,
        }
    }

    /// Frees the GL program; call with the context that created it.
    pub fn destroy(&self, gl: &glow::Context) {
        // SAFETY: created on `gl`, not used afterwards.
        unsafe { gl.delete_program(self.program) };
    }
}

fn reflect(gl: &glow::Context, program: glow::Program, align: usize) -> ShaderProgram {
    let mut p = ShaderProgram {
        program,
        frame_uniforms: Vec::new(),
        draw_uniforms: Vec::new(),
        block_uniforms: Vec::new(),
        blocks: Vec::new(),
        block_bytes: 0,
        samplers: Vec::new(),
        constants: Vec::new(),
        needs: Needs::default(),
        morph_capacity: None,
        bone_capacity: None,
        instance_attributes: Vec::new(),
        instanceable: false,
        reads_srgb: false,
        instance_names: Vec::new(),
    };
    // SAFETY: queries on a linked program of the current context; indices come from GL itself.
    unsafe {
        let block_count = gl.get_program_parameter_i32(program, glow::ACTIVE_UNIFORM_BLOCKS).max(0) as u32;
        for b in 0..block_count {
            let size = gl.get_active_uniform_block_parameter_i32(program, b, glow::UNIFORM_BLOCK_DATA_SIZE).max(0);
            gl.uniform_block_binding(program, b, b);
            p.blocks.push(Block { binding: b, offset: p.block_bytes, size: size as usize });
            p.block_bytes += (size as usize).div_ceil(align) * align;
        }
        let count = gl.get_active_uniforms(program);
        let indices: Vec<u32> = (0..count).collect();
        let param = |pname| gl.get_active_uniforms_parameter(program, &indices, pname);
        let (block_of, offsets) = (param(glow::UNIFORM_BLOCK_INDEX), param(glow::UNIFORM_OFFSET));
        let (array_strides, matrix_strides) = (param(glow::UNIFORM_ARRAY_STRIDE), param(glow::UNIFORM_MATRIX_STRIDE));
        gl.use_program(Some(program));
        let mut next_unit = 8;
        for i in 0..count as usize {
            let Some(active) = gl.get_active_uniform(program, i as u32) else { continue };
            let name = base_name(&active.name).to_string();
            let in_block = block_of.get(i).copied().unwrap_or(-1);
            if is_sampler(active.utype) {
                let unit = match name.strip_prefix("tex").and_then(|n| n.parse::<u32>().ok()) {
                    Some(n) if n < 8 => n,
                    _ => {
                        next_unit += 1;
                        next_unit - 1
                    }
                };
                if let Some(loc) = gl.get_uniform_location(program, &active.name) {
                    gl.uniform_1_i32(Some(&loc), unit as i32);
                }
                let array = active.utype == glow::SAMPLER_2D_ARRAY;
                let cube = active.utype == glow::SAMPLER_CUBE;
                p.samplers.push(SamplerSlot { hash: hash_str(&name), name, unit, array, cube });
                continue;
            }
            let Some(kind) = Kind::of(active.utype) else {
                log::debug!("uniform '{}' of GL type 0x{:x} is not fed by the runtime", active.name, active.utype);
                continue;
            };
            let source = builtin_source(&name).unwrap_or_else(|| {
                let hash = hash_str(&name);
                let index = p.constants.iter().position(|(h, _)| *h == hash).unwrap_or_else(|| {
                    p.constants.push((hash, name.clone()));
                    p.constants.len() - 1
                });
                Source::Constant(index)
            });
            let at = |v: &Vec<i32>| v.get(i).copied().unwrap_or(0).max(0) as usize;
            let target = if in_block >= 0 {
                Target::Block {
                    block: in_block as usize,
                    offset: at(&offsets),
                    array_stride: at(&array_strides),
                    matrix_stride: at(&matrix_strides),
                }
            } else if let Some(loc) = gl.get_uniform_location(program, &active.name) {
                Target::Plain(loc)
            } else {
                continue;
            };
            let uniform = Uniform { source, kind, count: active.size.max(1) as usize, target };
            if source == Source::MorphWeights {
                let capacity = uniform.count * uniform.kind.components();
                p.morph_capacity = Some(p.morph_capacity.map_or(capacity, |c| c.min(capacity)));
            }
            if source == Source::BoneMatrices {
                // Only mat4 arrays are fed; another type holds no whole bone.
                let capacity = if uniform.kind == Kind::Mat4 { uniform.count } else { 0 };
                p.bone_capacity = Some(p.bone_capacity.map_or(capacity, |c| c.min(capacity)));
            }
            match (&uniform.target, source.per_frame()) {
                (Target::Block { .. }, _) => p.block_uniforms.push(uniform),
                (_, true) => p.frame_uniforms.push(uniform),
                (_, false) => p.draw_uniforms.push(uniform),
            }
            match source {
                Source::WorldView => p.needs.worldview = true,
                Source::WorldViewProj => p.needs.worldviewproj = true,
                Source::Normal => p.needs.normal = true,
                _ => {}
            }
        }
        gl.use_program(None);
        reflect_instance_attributes(gl, &mut p);
    }
    let per_instance_uniform =
        p.frame_uniforms.iter().chain(&p.draw_uniforms).chain(&p.block_uniforms).any(|u| u.source.per_instance());
    p.instanceable = !p.instance_attributes.is_empty() && !per_instance_uniform;
    p.reads_srgb = p.frame_uniforms.iter().chain(&p.draw_uniforms).any(|u| matches!(u.source, Source::TextureSrgb));
    p
}

/// Finds the per-instance attributes (see the module doc) among the program's active ones.
///
/// # Safety
/// `p.program` must be a linked program of the current context.
unsafe fn reflect_instance_attributes(gl: &glow::Context, p: &mut ShaderProgram) {
    // SAFETY: queries on a linked program (the caller's contract); indices come from GL.
    unsafe {
        for i in 0..gl.get_active_attributes(p.program) {
            let Some(a) = gl.get_active_attribute(p.program, i) else { continue };
            let Some(offset) = instance_offset(&a.name) else { continue };
            let (columns, rows) = match a.atype {
                glow::FLOAT_MAT4 if offset < 64 => (4, 4),
                glow::FLOAT_MAT3 if offset < 64 => (3, 3),
                glow::FLOAT_VEC4 if offset == 64 => (1, 4),
                _ => {
                    log::debug!("attribute '{}' of GL type 0x{:x} is not fed by the runtime", a.name, a.atype);
                    continue;
                }
            };
            let Some(location) = gl.get_attrib_location(p.program, &a.name) else { continue };
            match offset {
                16 => p.needs.worldview = true,
                32 => p.needs.normal = true,
                48 => p.needs.worldviewproj = true,
                _ => {}
            }
            p.instance_attributes.push(InstanceAttribute { location, columns, rows, offset });
            p.instance_names.push(a.name);
        }
    }
}

/// Per-draw matrices, computed only as far as the program needs them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DrawMatrices {
    pub world: Mat4,
    pub worldview: Mat4,
    pub worldviewproj: Mat4,
    pub normal: Mat4,
}

/// Values that are the same for every draw in a frame (lights already in view space).
#[derive(Clone, Debug, Default)]
pub(crate) struct FrameValues {
    pub view: Mat4,
    pub proj: Mat4,
    pub viewproj: Mat4,
    pub light_position: [[f32; 4]; MAX_LIGHTS],
    pub light_color: [[f32; 4]; MAX_LIGHTS],
    pub light_spot: [[f32; 4]; MAX_LIGHTS],
    pub ambient: [f32; 4],
    pub shading: [f32; 4],
    /// x: tone mapping operator, y: exposure.
    pub tone_mapping: [f32; 4],
    pub shadow_matrix: Mat4,
    pub shadow_params: [f32; 4],
    /// x: game seconds since the start, y: the frame's dt.
    pub time: [f32; 4],
}

/// Everything a uniform of one draw can read.
pub(crate) struct Values<'a> {
    pub frame: &'a FrameValues,
    pub m: &'a DrawMatrices,
    pub base_color: [f32; 4],
    pub texcoord: [f32; 4],
    pub emissive: [f32; 4],
    pub texcoord_sets: [f32; 4],
    pub normal_scale: [f32; 4],
    pub occlusion_strength: [f32; 4],
    pub metallic_roughness: [f32; 4],
    pub alpha: [f32; 4],
    pub opaque: [f32; 4],
    /// A render script's constants for this draw (`render.draw`'s `constants`), searched first.
    pub draw_constants: &'a [(Hash, [f32; 4])],
    /// Item overrides (name hash, value), searched before the material's defaults.
    pub overrides: &'a [(Hash, [f32; 4])],
    pub program_constants: &'a [(Hash, String)],
    pub defaults: &'a [[f32; 4]],
    /// This draw's morph weights, a whole number of vec4s.
    pub morph: &'a [f32],
    pub morph_count: [f32; 4],
    /// Defold's `animation_data` for this draw (zero when the primitive is not skinned).
    pub animation: [f32; 4],
    /// This draw's bones as column-major mat4s (filled only when the program declares an array).
    pub bones: &'a [f32],
    /// (base colour, emissive): 1 where that texture is stored as sRGB.
    pub texture_srgb: [f32; 4],
    pub shadow_receive: [f32; 4],
}

const ZERO: [f32; 4] = [0.0; 4];

/// The value named `hash` in `list`.
fn named(list: &[(Hash, [f32; 4])], hash: Hash) -> Option<&[f32; 4]> {
    list.iter().find(|(h, _)| *h == hash).map(|(_, v)| v)
}

impl Values<'_> {
    fn get(&self, source: Source) -> &[f32] {
        match source {
            Source::World => self.m.world.as_ref(),
            Source::View => self.frame.view.as_ref(),
            Source::Proj => self.frame.proj.as_ref(),
            Source::WorldView => self.m.worldview.as_ref(),
            Source::ViewProj => self.frame.viewproj.as_ref(),
            Source::WorldViewProj => self.m.worldviewproj.as_ref(),
            Source::Normal => self.m.normal.as_ref(),
            Source::BaseColor => &self.base_color,
            Source::BaseColorTexcoord => &self.texcoord,
            Source::EmissiveFactor => &self.emissive,
            Source::TexcoordSets => &self.texcoord_sets,
            Source::NormalScale => &self.normal_scale,
            Source::OcclusionStrength => &self.occlusion_strength,
            Source::AlphaCutoff => &self.alpha,
            Source::AlphaOpaque => &self.opaque,
            Source::LightPosition => self.frame.light_position.as_flattened(),
            Source::LightColor => self.frame.light_color.as_flattened(),
            Source::LightSpot => self.frame.light_spot.as_flattened(),
            Source::Ambient => &self.frame.ambient,
            Source::ShadingModel => &self.frame.shading,
            Source::ToneMapping => &self.frame.tone_mapping,
            Source::Exposure => &self.frame.tone_mapping[1..],
            Source::Time => &self.frame.time,
            Source::MetallicRoughness => &self.metallic_roughness,
            Source::TextureSrgb => &self.texture_srgb,
            Source::MorphWeights => self.morph,
            Source::MorphTargetCount => &self.morph_count,
            Source::AnimationData => &self.animation,
            Source::BoneMatrices => self.bones,
            Source::ShadowMatrix => self.frame.shadow_matrix.as_ref(),
            Source::ShadowParams => &self.frame.shadow_params,
            Source::ShadowReceive => &self.shadow_receive,
            Source::Constant(i) => {
                let hash = self.program_constants.get(i).map_or(0, |c| c.0);
                match named(self.draw_constants, hash).or_else(|| named(self.overrides, hash)) {
                    Some(v) => v,
                    None => self.defaults.get(i).unwrap_or(&ZERO),
                }
            }
        }
    }
}

/// Sets plain uniforms on the bound program. Arrays are set for vec4 and mat4; for smaller
/// kinds only the first element is (nothing built in needs more). With `cache` (one entry per
/// uniform), single non-matrix values equal to what the program already holds are skipped.
pub(crate) fn set_plain(gl: &glow::Context, uniforms: &[Uniform], values: &Values, mut cache: Option<&mut [[f32; 4]]>) {
    for (i, u) in uniforms.iter().enumerate() {
        let Target::Plain(loc) = &u.target else { continue };
        let v = values.get(u.source);
        let single = u.kind != Kind::Mat4 && u.count == 1;
        if let Some(slot) = cache.as_deref_mut().and_then(|c| c.get_mut(i)).filter(|_| single) {
            let mut now = [0.0; 4];
            let n = v.len().min(4);
            now[..n].copy_from_slice(&v[..n]);
            if now == *slot {
                continue;
            }
            *slot = now;
        }
        let loc = Some(loc);
        // SAFETY: `loc` belongs to the bound program; slices are whole elements.
        unsafe {
            match u.kind {
                Kind::Mat4 => {
                    let n = u.count.min(v.len() / 16);
                    if n > 0 {
                        gl.uniform_matrix_4_f32_slice(loc, false, &v[..n * 16]);
                    }
                }
                Kind::Vec4 => {
                    let n = u.count.min(v.len() / 4);
                    if n > 0 {
                        gl.uniform_4_f32_slice(loc, &v[..n * 4]);
                    }
                }
                Kind::Vec3 if v.len() >= 3 => gl.uniform_3_f32(loc, v[0], v[1], v[2]),
                Kind::Vec2 if v.len() >= 2 => gl.uniform_2_f32(loc, v[0], v[1]),
                Kind::Float if !v.is_empty() => gl.uniform_1_f32(loc, v[0]),
                Kind::Int if !v.is_empty() => gl.uniform_1_i32(loc, v[0] as i32),
                _ => {}
            }
        }
    }
}

/// Writes block members into `region` (this draw's slice of the arena, zeroed by the caller).
pub(crate) fn write_blocks(program: &ShaderProgram, region: &mut [u8], values: &Values) {
    for u in &program.block_uniforms {
        let Target::Block { block, offset, array_stride, matrix_stride } = u.target else { continue };
        let Some(b) = program.blocks.get(block) else { continue };
        let v = values.get(u.source);
        let per = if u.kind == Kind::Mat4 { 16 } else { 4 };
        let elements = u.count.min(v.len() / per);
        for e in 0..elements {
            let base = b.offset + offset + e * array_stride;
            let src = &v[e * per..];
            if u.kind == Kind::Mat4 {
                for c in 0..4 {
                    put(region, base + c * matrix_stride, src.get(c * 4..c * 4 + 4).unwrap_or(&ZERO));
                }
            } else if u.kind == Kind::Int {
                if let (Some(dst), Some(&v)) = (region.get_mut(base..base + 4), src.first()) {
                    dst.copy_from_slice(&(v as i32).to_ne_bytes());
                }
            } else {
                let n = u.kind.components().min(src.len());
                put(region, base, &src[..n]);
            }
        }
    }
}

fn put(region: &mut [u8], at: usize, floats: &[f32]) {
    if let Some(dst) = region.get_mut(at..at + floats.len() * 4) {
        for (chunk, f) in dst.chunks_exact_mut(4).zip(floats) {
            chunk.copy_from_slice(&f.to_ne_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_block_prefix_and_array_suffix() {
        assert_eq!(base_name("mtx_world"), "mtx_world");
        assert_eq!(base_name("light_position[0]"), "light_position");
        assert_eq!(base_name("fs.tint"), "tint");
    }

    #[test]
    fn frame_sources_are_camera_and_lights() {
        assert!(Source::View.per_frame() && Source::Ambient.per_frame() && Source::LightColor.per_frame());
        assert!(!Source::World.per_frame() && !Source::Constant(0).per_frame() && !Source::BaseColor.per_frame());
    }

    #[test]
    fn put_ignores_out_of_range() {
        let mut r = [0u8; 8];
        put(&mut r, 4, &[1.0]);
        assert_eq!(&r[4..], &1.0f32.to_ne_bytes());
        put(&mut r, 6, &[1.0]);
    }
}
