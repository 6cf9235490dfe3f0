//! Uploading imported models: one VAO/VBO/IBO per primitive and one texture per image, made
//! once and shared by every instance. Node transforms are flattened per mesh at upload since
//! rigid meshes never move inside their model (skinning will move vertices, not nodes).
//! Morph targets become one float texture array per primitive (see [`super::morph`]). Skins keep
//! their rest-pose palette, drawn for instances that bring none.

use glam::{Mat4, Vec3};
use glow::HasContext;

use super::draw::{BoneRows, bone_rows};
use super::morph::{MorphLimits, MorphTexture, upload_morph_texture};
use super::shader::ATTRIBUTES;
use crate::project::model_data::{AlphaMode, MaterialData, ModelData, PrimitiveData, TextureData, TextureRef, Wrap};

/// Values of attributes a mesh has no stream for. They are context state, not VAO state, so
/// [`set_attribute_defaults`] is called before drawing.
const DEFAULTS: [[f32; 4]; 8] = [
    [0.0, 0.0, 0.0, 1.0], // position
    [0.0, 0.0, 1.0, 0.0], // normal
    [1.0, 0.0, 0.0, 1.0], // tangent
    [0.0, 0.0, 0.0, 1.0], // texcoord0
    [0.0, 0.0, 0.0, 1.0], // texcoord1
    [1.0, 1.0, 1.0, 1.0], // color
    [0.0, 0.0, 0.0, 0.0], // bone_indices
    [0.0, 0.0, 0.0, 0.0], // bone_weights: primitives without them are never skinned
];

pub(crate) fn set_attribute_defaults(gl: &glow::Context) {
    for ((index, _), v) in ATTRIBUTES.iter().zip(DEFAULTS) {
        // SAFETY: generic attribute values on the current context.
        unsafe { gl.vertex_attrib_4_f32(*index, v[0], v[1], v[2], v[3]) };
    }
}

/// The glTF material values a primitive draws with.
#[derive(Clone, Debug)]
pub(crate) struct PrimMaterial {
    pub base_color: [f32; 4],
    /// Index into the model's textures.
    pub texture: Option<usize>,
    /// Texcoord set of the base colour texture, as a float for the shader.
    pub texcoord: f32,
    pub alpha_mode: AlphaMode,
    pub alpha_cutoff: f32,
    pub double_sided: bool,
    /// rgb: emissive factor x strength; w: 0.
    pub emissive: [f32; 4],
    /// Indices into the model's textures.
    pub normal_map: Option<usize>,
    pub emissive_map: Option<usize>,
    pub occlusion_map: Option<usize>,
    /// Texcoord set per map: (base colour, normal, emissive, occlusion).
    pub texcoord_sets: [f32; 4],
    /// Normal scale, 0 when there is no normal map (the shader then keeps the vertex normal).
    pub normal_scale: f32,
    /// Occlusion strength, 0 when there is no occlusion map.
    pub occlusion_strength: f32,
    pub metallic_roughness_map: Option<usize>,
    /// Metallic factor, roughness factor, the map's texcoord set, 1 when there is a map.
    pub metallic_roughness: [f32; 4],
}

impl From<&MaterialData> for PrimMaterial {
    fn from(m: &MaterialData) -> Self {
        let set = |r: Option<TextureRef>| r.map_or(0.0, |r| if r.texcoord == 1 { 1.0 } else { 0.0 });
        let texcoord = if m.base_color_texcoord == 1 { 1.0 } else { 0.0 };
        PrimMaterial {
            base_color: m.base_color,
            texture: m.base_color_texture,
            texcoord,
            alpha_mode: m.alpha_mode,
            alpha_cutoff: m.alpha_cutoff,
            double_sided: m.double_sided,
            emissive: [m.emissive[0], m.emissive[1], m.emissive[2], 0.0],
            normal_map: m.normal_texture.map(|r| r.texture),
            emissive_map: m.emissive_texture.map(|r| r.texture),
            occlusion_map: m.occlusion_texture.map(|r| r.texture),
            texcoord_sets: [texcoord, set(m.normal_texture), set(m.emissive_texture), set(m.occlusion_texture)],
            normal_scale: if m.normal_texture.is_some() { m.normal_scale } else { 0.0 },
            occlusion_strength: if m.occlusion_texture.is_some() { m.occlusion_strength } else { 0.0 },
            metallic_roughness_map: m.metallic_roughness_texture.map(|r| r.texture),
            metallic_roughness: [
                m.metallic.clamp(0.0, 1.0),
                m.roughness.clamp(0.0, 1.0),
                set(m.metallic_roughness_texture),
                if m.metallic_roughness_texture.is_some() { 1.0 } else { 0.0 },
            ],
        }
    }
}

impl PrimMaterial {
    /// Drops texture indices the model does not have (the importer never makes them; a
    /// hand-built model might).
    fn keep_textures(&mut self, count: usize) {
        let maps = [
            &mut self.texture,
            &mut self.normal_map,
            &mut self.emissive_map,
            &mut self.occlusion_map,
            &mut self.metallic_roughness_map,
        ];
        for t in maps {
            *t = t.filter(|&i| i < count);
        }
        if self.metallic_roughness_map.is_none() {
            self.metallic_roughness[3] = 0.0;
        }
        if self.normal_map.is_none() {
            self.normal_scale = 0.0;
        }
        if self.occlusion_map.is_none() {
            self.occlusion_strength = 0.0;
        }
    }
}

pub(crate) struct GpuPrimitive {
    pub vao: glow::VertexArray,
    vbo: glow::Buffer,
    ibo: glow::Buffer,
    pub count: i32,
    pub index_type: u32,
    pub mesh: usize,
    /// Bounding sphere in mesh space: depth sorting of blended draws and frustum culling.
    pub center: Vec3,
    pub radius: f32,
    /// False when vertices move at run time (skinning, morph targets): bind-pose bounds lie.
    pub cullable: bool,
    pub material: PrimMaterial,
    pub morph: Option<MorphTexture>,
    /// The skin whose palette moves this primitive: its mesh has a skin and it has both
    /// `JOINTS_0` and `WEIGHTS_0` (without them there is nothing to blend, so it is drawn as is).
    pub skin: Option<usize>,
}

/// A model's GPU resources. Instances refer to it by handle; it is never copied.
pub struct GpuModel {
    /// The resource it came from, for messages.
    pub(crate) source: String,
    pub(crate) prims: Vec<GpuPrimitive>,
    /// Model-space transform per mesh (its node's world matrix; identity for skinned meshes).
    pub(crate) mesh_world: Vec<Mat4>,
    /// The textures as their bytes are (what custom shaders read).
    pub(crate) textures: Vec<glow::Texture>,
    /// Per texture, a copy stored as sRGB where a material shows it as base colour or emissive:
    /// the GPU decodes its texels before filtering (and its mipmaps average light, not bytes).
    /// Programs that declare `texture_srgb` (the built-in material) are given these.
    pub(crate) srgb: Vec<Option<glow::Texture>>,
    /// Mesh ids in mesh order, so callers can build `mesh_enabled` lists.
    pub mesh_ids: Vec<String>,
    /// Per mesh, (first index, target count) in a per-instance morph weight span.
    pub(crate) morph_ranges: Vec<(u32, u32)>,
    /// The glTF initial weights in span layout: what an item without weights draws with.
    pub(crate) initial_weights: Vec<f32>,
    /// Per skin, (first bone, joint count) in a per-instance palette span.
    pub(crate) skin_ranges: Vec<(u32, u32)>,
    /// The rest-pose palette in span layout: what an item without a palette draws with.
    pub(crate) rest_palette: Vec<BoneRows>,
}

pub use crate::anim::skeleton::node_world_matrices;

impl GpuModel {
    /// Uploads every primitive and texture. Inconsistent data (stream lengths, indices out of
    /// range) is an error naming the model source, mesh and primitive; nothing leaks on error.
    pub fn upload(gl: &glow::Context, model: &ModelData) -> Result<GpuModel, String> {
        let nodes = node_world_matrices(model);
        let mesh_world = model
            .meshes
            .iter()
            .map(|m| if m.skin.is_some() { Mat4::IDENTITY } else { nodes.get(m.node).copied().unwrap_or_default() })
            .collect();
        let (mut morph_ranges, mut initial_weights) = (Vec::new(), Vec::new());
        for m in &model.meshes {
            let count = m.primitives.iter().map(|p| p.targets.len()).max().unwrap_or(0);
            morph_ranges.push((initial_weights.len() as u32, count as u32));
            let start = initial_weights.len();
            initial_weights.extend(m.weights.iter().take(count));
            initial_weights.resize(start + count, 0.0);
        }
        let (skin_ranges, rest_palette) = rest_palette(model, &nodes);
        let mut gpu = GpuModel {
            source: model.source.clone(),
            prims: Vec::new(),
            mesh_world,
            textures: Vec::new(),
            srgb: Vec::new(),
            mesh_ids: model.meshes.iter().map(|m| m.id.clone()).collect(),
            morph_ranges,
            initial_weights,
            skin_ranges,
            rest_palette,
        };
        let result = gpu.fill(gl, model);
        match result {
            Ok(()) => Ok(gpu),
            Err(e) => {
                gpu.destroy(gl);
                Err(format!("{}: {e}", model.source))
            }
        }
    }

    fn fill(&mut self, gl: &glow::Context, model: &ModelData) -> Result<(), String> {
        // Colour is sRGB in glTF; the other maps are data.
        let colour = |i: usize| {
            model
                .materials
                .iter()
                .any(|m| m.base_color_texture == Some(i) || m.emissive_texture.is_some_and(|r| r.texture == i))
        };
        for (i, t) in model.textures.iter().enumerate() {
            self.textures.push(upload_texture(gl, t, false)?);
            self.srgb.push(if colour(i) { Some(upload_texture(gl, t, true)?) } else { None });
        }
        let default_material = MaterialData::default();
        let has_targets = model.meshes.iter().flat_map(|m| &m.primitives).any(|p| !p.targets.is_empty());
        let limits = has_targets.then(|| MorphLimits::query(gl));
        for (mi, mesh) in model.meshes.iter().enumerate() {
            for (pi, p) in mesh.primitives.iter().enumerate() {
                let material = match p.material {
                    Some(i) => model.materials.get(i).ok_or(format!("mesh '{}': no material {i}", mesh.id))?,
                    None => &default_material,
                };
                let mut material = PrimMaterial::from(material);
                material.keep_textures(self.textures.len());
                let at = |e: String| format!("mesh '{}' primitive {pi}: {e}", mesh.id);
                let skin = mesh.skin.filter(|_| !p.joints.is_empty() && !p.weights.is_empty());
                let prim = upload_primitive(gl, p, (mi, skin), material).map_err(at)?;
                // Pushed before the morph upload so that `destroy` frees it if that fails.
                self.prims.push(prim);
                if let (Some(limits), Some(last)) = (limits, self.prims.last_mut()) {
                    last.morph = upload_morph_texture(gl, p, limits).map_err(at)?;
                }
            }
        }
        Ok(())
    }

    /// Floats in a full per-instance morph weight span ([`super::DrawItem::morph_weights`]):
    /// the sum of every mesh's target count.
    pub fn morph_weight_count(&self) -> usize {
        self.initial_weights.len()
    }

    /// Where mesh `mesh`'s weights sit in a per-instance span (empty when it has no targets or
    /// does not exist). Its length is the mesh's target count.
    pub fn morph_range(&self, mesh: usize) -> std::ops::Range<usize> {
        self.morph_ranges.get(mesh).map_or(0..0, |&(start, len)| start as usize..(start + len) as usize)
    }

    /// The glTF initial weights in span layout (used for items whose span is empty).
    pub fn initial_morph_weights(&self) -> &[f32] {
        &self.initial_weights
    }

    /// Bones in a full per-instance palette span ([`super::DrawItem::palette`]): the sum of every
    /// skin's joint count.
    pub fn palette_len(&self) -> usize {
        self.rest_palette.len()
    }

    /// Where skin `skin`'s bones sit in a per-instance palette span (empty when it does not
    /// exist). Its length is the skin's joint count.
    pub fn skin_range(&self, skin: usize) -> std::ops::Range<usize> {
        self.skin_ranges.get(skin).map_or(0..0, |&(start, len)| start as usize..(start + len) as usize)
    }

    /// The rest-pose palette in span layout (used for items whose palette span is empty).
    pub fn rest_palette(&self) -> &[BoneRows] {
        &self.rest_palette
    }

    /// Whether primitive `primitive` of mesh `mesh` is skinned on the GPU, and by which skin.
    pub fn primitive_skin(&self, mesh: usize, primitive: usize) -> Option<usize> {
        self.prims.iter().filter(|p| p.mesh == mesh).nth(primitive).and_then(|p| p.skin)
    }

    /// The morph target texture of primitive `primitive` of mesh `mesh`, if it has targets.
    pub fn morph_texture(&self, mesh: usize, primitive: usize) -> Option<&MorphTexture> {
        self.prims.iter().filter(|p| p.mesh == mesh).nth(primitive).and_then(|p| p.morph.as_ref())
    }

    /// Frees GL objects; call with the context that created them.
    pub fn destroy(&self, gl: &glow::Context) {
        // SAFETY: objects were created on `gl` and are not used afterwards.
        unsafe {
            for p in &self.prims {
                gl.delete_vertex_array(p.vao);
                gl.delete_buffer(p.vbo);
                gl.delete_buffer(p.ibo);
                if let Some(m) = p.morph {
                    gl.delete_texture(m.texture);
                }
            }
            for &t in self.textures.iter().chain(self.srgb.iter().flatten()) {
                gl.delete_texture(t);
            }
        }
    }
}

/// Every skin's rest-pose bones (`node world × inverse bind`, the palette an unanimated rig gives)
/// and where each skin starts. A joint index out of range gives an identity bone rather than an
/// upload error: the rig code reports bad skins, the renderer just draws.
fn rest_palette(model: &ModelData, nodes: &[Mat4]) -> (Vec<(u32, u32)>, Vec<BoneRows>) {
    let (mut ranges, mut bones) = (Vec::with_capacity(model.skins.len()), Vec::new());
    for skin in &model.skins {
        ranges.push((bones.len() as u32, skin.joints.len() as u32));
        for (k, &j) in skin.joints.iter().enumerate() {
            let ib = skin.inverse_bind.get(k).map_or(Mat4::IDENTITY, Mat4::from_cols_array);
            let bone = nodes.get(j).map_or(Mat4::IDENTITY, |w| *w * ib);
            bones.push(bone_rows(&bone));
        }
    }
    (ranges, bones)
}

fn check_len<T>(name: &str, v: &[T], n: usize) -> Result<(), String> {
    if v.is_empty() || v.len() == n { Ok(()) } else { Err(format!("{name} has {} entries for {n} vertices", v.len())) }
}

fn bytes_of<const N: usize>(out: &mut Vec<u8>, v: &[[f32; N]]) {
    for a in v {
        for f in a {
            out.extend_from_slice(&f.to_ne_bytes());
        }
    }
}

fn upload_primitive(
    gl: &glow::Context,
    p: &PrimitiveData,
    (mesh, skinned): (usize, Option<usize>),
    material: PrimMaterial,
) -> Result<GpuPrimitive, String> {
    let n = p.positions.len();
    check_len("normals", &p.normals, n)?;
    check_len("tangents", &p.tangents, n)?;
    check_len("texcoords0", &p.texcoords0, n)?;
    check_len("texcoords1", &p.texcoords1, n)?;
    check_len("colors", &p.colors, n)?;
    check_len("joints", &p.joints, n)?;
    check_len("weights", &p.weights, n)?;
    if let Some(bad) = p.indices.iter().find(|&&i| i as usize >= n) {
        return Err(format!("index {bad} out of range for {n} vertices"));
    }
    // Streams one after another: (attribute index, components, GL type, byte offset).
    let mut data = Vec::new();
    let mut streams: Vec<(u32, i32, u32, usize)> = Vec::new();
    let mut add = |data: &mut Vec<u8>, attr: u32, comps: i32, ty: u32, fill: &dyn Fn(&mut Vec<u8>)| {
        streams.push((attr, comps, ty, data.len()));
        fill(data);
    };
    add(&mut data, 0, 3, glow::FLOAT, &|d| bytes_of(d, &p.positions));
    if !p.normals.is_empty() {
        add(&mut data, 1, 3, glow::FLOAT, &|d| bytes_of(d, &p.normals));
    }
    if !p.tangents.is_empty() {
        add(&mut data, 2, 4, glow::FLOAT, &|d| bytes_of(d, &p.tangents));
    }
    // Defold's texture space (see `upload_texture`): v runs up from the bottom row.
    let flipped = |uv: &[[f32; 2]]| uv.iter().map(|&[u, v]| [u, 1.0 - v]).collect::<Vec<_>>();
    if !p.texcoords0.is_empty() {
        add(&mut data, 3, 2, glow::FLOAT, &|d| bytes_of(d, &flipped(&p.texcoords0)));
    }
    if !p.texcoords1.is_empty() {
        add(&mut data, 4, 2, glow::FLOAT, &|d| bytes_of(d, &flipped(&p.texcoords1)));
    }
    if !p.colors.is_empty() {
        add(&mut data, 5, 4, glow::FLOAT, &|d| bytes_of(d, &p.colors));
    }
    if !p.joints.is_empty() {
        // Float indices in the shader (Defold's bone_indices is a vec4), converted by GL.
        add(&mut data, 6, 4, glow::UNSIGNED_SHORT, &|d| {
            p.joints.iter().flatten().for_each(|j| d.extend_from_slice(&j.to_ne_bytes()))
        });
    }
    if !p.weights.is_empty() {
        add(&mut data, 7, 4, glow::FLOAT, &|d| bytes_of(d, &p.weights));
    }
    let (index_bytes, index_type): (Vec<u8>, u32) = if n <= 1 << 16 {
        (p.indices.iter().flat_map(|&i| (i as u16).to_ne_bytes()).collect(), glow::UNSIGNED_SHORT)
    } else {
        (p.indices.iter().flat_map(|i| i.to_ne_bytes()).collect(), glow::UNSIGNED_INT)
    };
    let (mut center, mut radius) = (Vec3::ZERO, 0.0);
    if n > 0 {
        let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for &q in &p.positions {
            lo = lo.min(Vec3::from(q));
            hi = hi.max(Vec3::from(q));
        }
        center = (lo + hi) * 0.5;
        radius = (hi - lo).length() * 0.5;
    }
    let cullable = skinned.is_none() && p.targets.is_empty() && radius.is_finite();
    // SAFETY: the context is current; buffers outlive the upload calls; attribute layouts
    // match the byte streams written above. Objects are deleted on error.
    unsafe {
        let vao = gl.create_vertex_array()?;
        let (vbo, ibo) = match create_buffer_pair(gl) {
            Ok(b) => b,
            Err(e) => {
                gl.delete_vertex_array(vao);
                return Err(e);
            }
        };
        gl.bind_vertex_array(Some(vao));
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
        gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &data, glow::STATIC_DRAW);
        for (attr, comps, ty, offset) in streams {
            gl.enable_vertex_attrib_array(attr);
            gl.vertex_attrib_pointer_f32(attr, comps, ty, false, 0, offset as i32);
        }
        gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(ibo));
        gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, &index_bytes, glow::STATIC_DRAW);
        gl.bind_vertex_array(None);
        gl.bind_buffer(glow::ARRAY_BUFFER, None);
        gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, None);
        Ok(GpuPrimitive {
            vao,
            vbo,
            ibo,
            count: p.indices.len() as i32,
            index_type,
            mesh,
            center,
            radius,
            cullable,
            material,
            morph: None,
            skin: skinned,
        })
    }
}

fn wrap_gl(w: Wrap) -> i32 {
    (match w {
        Wrap::Repeat => glow::REPEAT,
        Wrap::ClampToEdge => glow::CLAMP_TO_EDGE,
        Wrap::MirroredRepeat => glow::MIRRORED_REPEAT,
    }) as i32
}

/// Uploads an RGBA8 image with mipmaps (always made, so a material may ask for mipmapped
/// filtering; made on the CPU, see `mipmap`). A 2D image goes in bottom row first and models'
/// texture coordinates go up with v flipped (`upload_primitive`): the picture is the same as
/// glTF's top-down convention gives, and texture space is Defold's — GL's own — so a model
/// that samples a render target (a post-processing quad), or a Defold shader that works out
/// texture coordinates itself, sees it the way up Defold shows it. Cube map faces go in as
/// they are.
/// `srgb`: stored as `SRGB8_ALPHA8`, so sampling decodes to linear before filtering (and the
/// mipmaps average light, not bytes), as three.js and every PBR pipeline read colour maps.
pub(crate) fn upload_texture(gl: &glow::Context, t: &TextureData, srgb: bool) -> Result<glow::Texture, String> {
    let faces = if t.cube { 6 } else { 1 };
    let expected = t.width as usize * t.height as usize * 4 * faces;
    if t.width == 0 || t.height == 0 || t.rgba.len() != expected {
        return Err(format!(
            "texture '{}' is {}x{} with {} bytes (expected {expected})",
            t.name,
            t.width,
            t.height,
            t.rgba.len()
        ));
    }
    let min = match (t.mipmaps, t.min_linear) {
        (true, true) => glow::LINEAR_MIPMAP_LINEAR,
        (true, false) => glow::NEAREST_MIPMAP_NEAREST,
        (false, true) => glow::LINEAR,
        (false, false) => glow::NEAREST,
    };
    let mag = if t.mag_linear { glow::LINEAR } else { glow::NEAREST };
    let target = if t.cube { glow::TEXTURE_CUBE_MAP } else { glow::TEXTURE_2D };
    let face_bytes = expected / faces;
    // SAFETY: the context is current; the pixel slice holds width*height RGBA8 texels a face.
    unsafe {
        let tex = gl.create_texture()?;
        gl.bind_texture(target, Some(tex));
        gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
        let internal = if srgb { glow::SRGB8_ALPHA8 } else { glow::RGBA8 };
        let mut bottom_up: Vec<u8> = Vec::new();
        for face in 0..faces {
            let face_target = if t.cube { glow::TEXTURE_CUBE_MAP_POSITIVE_X + face as u32 } else { glow::TEXTURE_2D };
            let mut texels = &t.rgba[face * face_bytes..(face + 1) * face_bytes];
            if !t.cube {
                bottom_up.extend(texels.rchunks_exact(t.width as usize * 4).flatten());
                texels = &bottom_up;
            }
            gl.tex_image_2d(
                face_target,
                0,
                internal as i32,
                t.width as i32,
                t.height as i32,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(texels)),
            );
            super::mipmap::upload_levels(gl, target, face_target, internal, (t.width, t.height), texels, srgb);
        }
        gl.tex_parameter_i32(target, glow::TEXTURE_WRAP_S, wrap_gl(t.wrap_s));
        gl.tex_parameter_i32(target, glow::TEXTURE_WRAP_T, wrap_gl(t.wrap_t));
        if t.cube {
            gl.tex_parameter_i32(target, glow::TEXTURE_WRAP_R, wrap_gl(t.wrap_t));
        }
        gl.tex_parameter_i32(target, glow::TEXTURE_MIN_FILTER, min as i32);
        gl.tex_parameter_i32(target, glow::TEXTURE_MAG_FILTER, mag as i32);
        gl.bind_texture(target, None);
        Ok(tex)
    }
}

/// Two new buffer objects, or none: the first is deleted when the second cannot be made.
///
/// # Safety
/// `gl` must be current on this thread.
pub(super) unsafe fn create_buffer_pair(gl: &glow::Context) -> Result<(glow::Buffer, glow::Buffer), String> {
    use glow::HasContext;
    // SAFETY: plain object creation on the current context (the caller's promise).
    unsafe {
        let a = gl.create_buffer()?;
        match gl.create_buffer() {
            Ok(b) => Ok((a, b)),
            Err(e) => {
                gl.delete_buffer(a);
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::model_data::NodeData;

    fn node(parent: Option<usize>, t: [f32; 3], s: f32) -> NodeData {
        NodeData {
            name: String::new(),
            parent,
            translation: t,
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [s; 3],
            gltf_index: 0,
        }
    }

    #[test]
    fn node_worlds_compose_parent_first() {
        let model = ModelData {
            nodes: vec![
                node(None, [1.0, 0.0, 0.0], 2.0),
                node(Some(0), [0.0, 1.0, 0.0], 1.0),
                node(Some(5), [0.0; 3], 1.0),
            ],
            ..Default::default()
        };
        let w = node_world_matrices(&model);
        assert!(w[1].transform_point3(Vec3::ZERO).abs_diff_eq(Vec3::new(1.0, 2.0, 0.0), 1e-6));
        assert_eq!(w[2], Mat4::IDENTITY);
    }

    #[test]
    fn stream_length_check() {
        assert!(check_len::<u8>("x", &[], 3).is_ok());
        assert!(check_len("x", &[1, 2, 3], 3).is_ok());
        assert!(check_len("x", &[1, 2], 3).is_err());
    }
}
