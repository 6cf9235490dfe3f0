//! What a glTF file becomes after import: plain arrays in Sinew's own types. The renderer and the
//! animation code only ever see these; nothing downstream knows the glTF format.

/// Everything imported from one glTF file (the default scene).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelData {
    /// The resource path it came from (for messages).
    pub source: String,
    pub meshes: Vec<MeshData>,
    pub materials: Vec<MaterialData>,
    pub textures: Vec<TextureData>,
    /// Node hierarchy of the default scene, parents before children.
    pub nodes: Vec<NodeData>,
    pub skins: Vec<SkinData>,
    pub animations: Vec<ClipData>,
    /// Bounds of all meshes in model space (every node transform applied; skins at bind pose).
    pub aabb: Aabb,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

impl Default for Aabb {
    /// The empty box (min > max), so that growing it with any point gives that point.
    fn default() -> Self {
        Aabb { min: [f32::INFINITY; 3], max: [f32::NEG_INFINITY; 3] }
    }
}

impl Aabb {
    pub fn is_empty(&self) -> bool {
        self.min[0] > self.max[0]
    }
    pub fn grow(&mut self, p: [f32; 3]) {
        for ((lo, hi), v) in self.min.iter_mut().zip(self.max.iter_mut()).zip(p) {
            *lo = lo.min(v);
            *hi = hi.max(v);
        }
    }
}

/// A node of the glTF scene graph, local TRS (a glTF matrix is decomposed at import).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeData {
    pub name: String,
    pub parent: Option<usize>,
    pub translation: [f32; 3],
    /// Quaternion x, y, z, w.
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
    /// The node's index in the glTF file (for tools and tests that match nodes against other glTF
    /// readers; the runtime uses positions in `ModelData::nodes`).
    pub gltf_index: usize,
}

/// One glTF mesh: its primitives share the mesh id and node.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshData {
    /// Mesh id for `model.set_mesh_enabled` / `get_mesh_aabb`: glTF mesh name, else node name.
    pub id: String,
    /// The node (index into `ModelData::nodes`) that instantiates this mesh.
    pub node: usize,
    /// Skin index when the node is skinned (its own node transform is then ignored).
    pub skin: Option<usize>,
    pub primitives: Vec<PrimitiveData>,
    /// Morph target names (`mesh.extras.targetNames`), one per target; may be empty strings.
    pub target_names: Vec<String>,
    /// Initial morph weights (`node.weights` over `mesh.weights`, else zeros).
    pub weights: Vec<f32>,
    /// Bounds in model space. For a skinned mesh, the bind-pose vertices as the file gives them:
    /// glTF ignores a skinned mesh's node transform.
    pub aabb: Aabb,
}

/// Indexed triangles; every attribute stream has one entry per vertex.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PrimitiveData {
    pub positions: Vec<[f32; 3]>,
    /// Always present: generated (flat or smooth) when the file has none.
    pub normals: Vec<[f32; 3]>,
    /// Empty when absent.
    pub tangents: Vec<[f32; 4]>,
    pub texcoords0: Vec<[f32; 2]>,
    pub texcoords1: Vec<[f32; 2]>,
    /// Empty when absent; RGB colours get alpha 1.
    pub colors: Vec<[f32; 4]>,
    /// Empty when not skinned. Joint indices into the skin's joint list.
    pub joints: Vec<[u16; 4]>,
    /// Renormalised to sum to 1 at import.
    pub weights: Vec<[f32; 4]>,
    /// Triangle list indices (u32 always; generated 0..n when the file has none).
    pub indices: Vec<u32>,
    /// Index into `ModelData::materials`, or None for the glTF default material.
    pub material: Option<usize>,
    pub targets: Vec<MorphTargetData>,
}

/// Per-vertex deltas of one morph target; each list is empty when the glTF has none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MorphTargetData {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub tangents: Vec<[f32; 3]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlphaMode {
    Opaque,
    Mask,
    Blend,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MaterialData {
    pub name: String,
    pub base_color: [f32; 4],
    /// Index into `ModelData::textures`.
    pub base_color_texture: Option<usize>,
    /// Which texcoord set the base colour texture uses (0 or 1).
    pub base_color_texcoord: u32,
    pub alpha_mode: AlphaMode,
    pub alpha_cutoff: f32,
    pub double_sided: bool,
    /// glTF `emissiveFactor` times `KHR_materials_emissive_strength` (linear RGB).
    pub emissive: [f32; 3],
    pub emissive_texture: Option<TextureRef>,
    /// Tangent-space normal map; primitives using it get tangents generated when they have none.
    pub normal_texture: Option<TextureRef>,
    pub normal_scale: f32,
    /// Ambient occlusion in the red channel.
    pub occlusion_texture: Option<TextureRef>,
    pub occlusion_strength: f32,
    /// glTF metallicFactor and roughnessFactor. The default is a rough dielectric (0, 1), the
    /// closest to Lambert, for formats without them; the glTF importer gives primitives without
    /// a material glTF's own default (1, 1).
    pub metallic: f32,
    pub roughness: f32,
    /// glTF metallicRoughnessTexture: roughness in green, metalness in blue (linear).
    pub metallic_roughness_texture: Option<TextureRef>,
}

/// A material's use of a texture: which one, and which texcoord set reads it (0 or 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureRef {
    /// Index into `ModelData::textures`.
    pub texture: usize,
    pub texcoord: u32,
}

impl Default for MaterialData {
    fn default() -> Self {
        MaterialData {
            name: String::new(),
            base_color: [1.0; 4],
            base_color_texture: None,
            base_color_texcoord: 0,
            alpha_mode: AlphaMode::Opaque,
            alpha_cutoff: 0.5,
            double_sided: false,
            emissive: [0.0; 3],
            emissive_texture: None,
            normal_texture: None,
            normal_scale: 1.0,
            occlusion_texture: None,
            occlusion_strength: 1.0,
            metallic: 0.0,
            roughness: 1.0,
            metallic_roughness_texture: None,
        }
    }
}

/// A decoded image, RGBA8, rows top to bottom, with its sampler settings.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureData {
    pub name: String,
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
    pub wrap_s: Wrap,
    pub wrap_t: Wrap,
    pub mag_linear: bool,
    pub min_linear: bool,
    pub mipmaps: bool,
    /// Six square faces one after another in `rgba` (+X, -X, +Y, -Y, +Z, -Z; `.cubemap`), for
    /// a `samplerCube`; `width` and `height` are one face's.
    pub cube: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrap {
    Repeat,
    ClampToEdge,
    MirroredRepeat,
}

/// A skin: joints are node indices; inverse bind matrices are column-major 4x4.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinData {
    pub name: String,
    pub joints: Vec<usize>,
    pub inverse_bind: Vec<[f32; 16]>,
}

/// One glTF animation.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipData {
    /// The glTF name, or `animation_<index>`.
    pub name: String,
    /// Largest key time of any channel (seconds).
    pub duration: f32,
    pub channels: Vec<ChannelData>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    Step,
    Linear,
    CubicSpline,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelPath {
    Translation,
    Rotation,
    Scale,
    Weights,
}

/// Keys of one animated property of one node.
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelData {
    pub node: usize,
    pub path: ChannelPath,
    pub interpolation: Interpolation,
    /// Strictly increasing key times.
    pub times: Vec<f32>,
    /// Flattened values: `components` floats per key (3 translation/scale, 4 rotation, N weights);
    /// for CUBICSPLINE, three such groups per key (in-tangent, value, out-tangent) as in glTF.
    pub values: Vec<f32>,
    pub components: usize,
}
