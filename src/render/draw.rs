//! The flat draw list the game builds each frame: camera, lights and one item per model
//! instance. Per-item variable-length data (constants, mesh switches, texture overrides) lives
//! in shared arrays that items index, so refilling a cleared list allocates nothing.

use glam::{Mat4, Vec3};

use super::camera::CameraView;
use crate::base::hash::Hash;
pub use crate::project::{DEFAULT_AMBIENT, LightKind, Look, Shading, ToneMapping};

/// A model uploaded to a [`super::ModelRenderer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModelHandle(pub u32);

/// A material loaded into a [`super::ModelRenderer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MaterialHandle(pub u32);

/// A stand-alone texture (e.g. a `.model` `textures` entry) uploaded to a renderer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureHandle(pub u32);

/// A range of one of the [`DrawList`]'s shared arrays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    pub(crate) fn of<'a, T>(&self, v: &'a [T]) -> &'a [T] {
        let start = (self.start as usize).min(v.len());
        let end = (start + self.len as usize).min(v.len());
        &v[start..end]
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LightItem {
    pub kind: LightKind,
    /// World position (point lights).
    pub position: Vec3,
    /// World direction the light shines along (directional lights): the game object's -Z.
    pub direction: Vec3,
    pub color: [f32; 3],
    pub intensity: f32,
    /// Point lights: where Defold's falloff ends; 0: Sinew's `1 / (1 + d^2)` (`LightSpec::range`).
    pub range: f32,
    /// Spot lights: the inner and outer cone in degrees from `direction` (`LightSpec`).
    pub cone: [f32; 2],
}

impl LightItem {
    /// The light a scene without light components is shown with: white, from above, front
    /// and right (matching the debug cubes).
    pub fn default_key_light() -> LightItem {
        LightItem {
            kind: LightKind::Directional,
            position: Vec3::ZERO,
            direction: -Vec3::new(0.5, 1.0, 0.3).normalize(),
            color: [1.0; 3],
            intensity: 0.8,
            range: 0.0,
            cone: [0.0; 2],
        }
    }
}

/// One model instance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawItem {
    pub model: ModelHandle,
    pub material: MaterialHandle,
    pub world: Mat4,
    /// Into [`DrawList::constants`]: per-instance constant values (e.g. `tint`).
    pub constants: Span,
    /// Into [`DrawList::mesh_enabled`], one flag per mesh in model order; meshes past the end
    /// of the span are enabled.
    pub mesh_enabled: Span,
    /// Into [`DrawList::textures`]: sampler name hash → texture, over the glTF textures.
    pub textures: Span,
    /// Into [`DrawList::morph_weights`]: this instance's morph target weights, meshes in model
    /// order, each mesh's targets in glTF order (mesh `m` at [`super::GpuModel::morph_range`],
    /// i.e. after the target counts of meshes `0..m`; for an imported model, the concatenation
    /// of every `MeshData::weights`). Empty: the glTF initial weights. Shorter than
    /// [`super::GpuModel::morph_weight_count`]: the missing weights are 0 (Defold's rule for
    /// `model.set_blend_weights`); longer: the rest is ignored.
    pub morph_weights: Span,
    /// Into [`DrawList::palettes`]: this instance's skinning matrices, every skin of the model in
    /// skin order and each skin's joints in skin joint order (skin `s` at
    /// [`super::GpuModel::skin_range`], i.e. after the joint counts of skins `0..s`). Bone `j` of
    /// skin `s` is `model_space(joints[j]) × inverse_bind[j]` ([`crate::anim::Skeleton::palette`]);
    /// skinned meshes are drawn with [`DrawItem::world`] only.
    ///
    /// Empty: the rest pose (the palette the nodes' rest transforms give, computed at upload), so
    /// a model nobody animates yet looks as it does in a glTF viewer rather than collapsed.
    /// Shorter than [`super::GpuModel::palette_len`]: the missing bones come from the rest pose;
    /// longer: the rest is ignored. A bone with a non-finite value is drawn as the identity.
    pub palette: Span,
    /// Into [`DrawList::mesh_worlds`]: model-space transform per mesh, in model order (the
    /// animated node matrices of rigid meshes; identity for skinned ones). Empty: each mesh at
    /// its node's rest place ([`super::GpuModel`]'s upload-time matrices); shorter: the missing
    /// meshes at rest.
    pub mesh_worlds: Span,
    /// Drawn into the shadow map (when the list's `look.shadows` is on).
    pub cast_shadows: bool,
    /// Darkened where the shadow map says the light is blocked; only programs that declare
    /// `shadow_map` read it (see `program`).
    pub receive_shadows: bool,
}

/// [`DrawList::palettes`] stores skinning matrices as the pose keeps them.
pub use crate::anim::skinning::{BoneRows, bone_rows};

/// One label: text at a world position, facing the camera, a fixed size on screen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabelItem {
    pub position: Vec3,
    /// Byte range of [`DrawList::label_text`].
    pub text: Span,
    /// Line height in screen pixels.
    pub size: f32,
    /// Glyph width and height factors.
    pub scale: [f32; 2],
    pub color: [f32; 4],
    /// Not drawn when its alpha is 0.
    pub outline: [f32; 4],
    /// The point of the text block at `position`, as fractions from its left and bottom edges.
    pub anchor: [f32; 2],
    pub shadow: [f32; 4],
    /// 1 + index into [`DrawList::label_fonts`]; 0: the built-in face (set by `push_label`).
    pub font: u32,
    /// Wrap width in pixels at scale 1 (0: only at `\n`), line height factor, tracking in ems.
    pub wrap: f32,
    pub leading: f32,
    pub tracking: f32,
    /// `size` is in world units under an orthographic camera (Defold's labels), else in
    /// screen pixels.
    pub world_size: bool,
    /// The label's world x and y axes (its object's rotation and scale): a world-sized label
    /// under an orthographic camera turns and scales with them.
    pub axes: [Vec3; 2],
}

impl LabelItem {
    /// A label in the built-in face at `size` pixels: white, no outline, centred, scale 1.
    pub fn plain(position: Vec3, size: f32) -> LabelItem {
        LabelItem {
            position,
            text: Span::default(),
            size,
            scale: [1.0; 2],
            color: [1.0; 4],
            outline: [0.0; 4],
            anchor: [0.5; 2],
            shadow: [0.0, 0.0, 0.0, 1.0],
            font: 0,
            wrap: 0.0,
            leading: 1.0,
            tracking: 0.0,
            world_size: false,
            axes: [Vec3::X, Vec3::Y],
        }
    }
}

/// Everything the renderer draws in one frame.
#[derive(Clone, Debug, Default)]
pub struct DrawList {
    pub camera: CameraView,
    /// x: game seconds since the start, y: the frame's dt (materials' `CONSTANT_TYPE_TIME`).
    pub time: [f32; 4],
    pub lights: Vec<LightItem>,
    /// The project's ambient light, shading model and tone mapping, as the project settings
    /// hold them: one type with one default ([`DEFAULT_AMBIENT`]), so no way of making a list
    /// (the running game used `default()`, the tests `new`) leaves surfaces facing away from
    /// the light pure black.
    pub look: Look,
    pub items: Vec<DrawItem>,
    pub constants: Vec<(Hash, [f32; 4])>,
    pub mesh_enabled: Vec<bool>,
    pub textures: Vec<(Hash, TextureHandle)>,
    pub morph_weights: Vec<f32>,
    pub palettes: Vec<BoneRows>,
    pub mesh_worlds: Vec<Mat4>,
    pub labels: Vec<LabelItem>,
    /// The texts of every label, one after the other.
    pub label_text: String,
    /// The fonts labels name, each once a frame.
    pub label_fonts: Vec<std::sync::Arc<crate::project::font::file::Font>>,
}

impl DrawList {
    pub fn new(camera: CameraView) -> DrawList {
        DrawList { camera, ..Default::default() }
    }

    /// Empties the list, keeping its memory for the next frame.
    pub fn clear(&mut self) {
        self.lights.clear();
        self.items.clear();
        self.constants.clear();
        self.mesh_enabled.clear();
        self.textures.clear();
        self.morph_weights.clear();
        self.palettes.clear();
        self.mesh_worlds.clear();
        self.labels.clear();
        self.label_text.clear();
        self.label_fonts.clear();
    }

    /// Adds a label; `item.text` is replaced by the range `text` takes in the shared text.
    /// `font`: the label's font (`None`: the built-in face), kept once per frame however many
    /// labels share it.
    pub fn push_label(
        &mut self,
        mut item: LabelItem,
        text: &str,
        font: Option<&std::sync::Arc<crate::project::font::file::Font>>,
    ) {
        item.text = Span { start: self.label_text.len() as u32, len: text.len() as u32 };
        item.font = match font {
            None => 0,
            Some(f) => match self.label_fonts.iter().position(|g| std::sync::Arc::ptr_eq(f, g)) {
                Some(i) => i as u32 + 1,
                None => {
                    self.label_fonts.push(f.clone());
                    self.label_fonts.len() as u32
                }
            },
        };
        self.label_text.push_str(text);
        self.labels.push(item);
    }

    /// The text of a label item (empty if its range is not in this list).
    pub fn label_text(&self, item: &LabelItem) -> &str {
        let (start, end) = (item.text.start as usize, item.text.start as usize + item.text.len as usize);
        self.label_text.get(start..end).unwrap_or("")
    }

    /// Adds an instance with nothing overridden.
    pub fn push(&mut self, model: ModelHandle, material: MaterialHandle, world: Mat4) {
        self.items.push(DrawItem {
            model,
            material,
            world,
            constants: Span::default(),
            mesh_enabled: Span::default(),
            textures: Span::default(),
            morph_weights: Span::default(),
            palette: Span::default(),
            mesh_worlds: Span::default(),
            cast_shadows: true,
            receive_shadows: true,
        });
    }

    /// Adds an instance with constants, mesh switches and texture overrides.
    pub fn push_with(
        &mut self,
        model: ModelHandle,
        material: MaterialHandle,
        world: Mat4,
        constants: &[(Hash, [f32; 4])],
        mesh_enabled: &[bool],
        textures: &[(Hash, TextureHandle)],
    ) {
        let item = DrawItem {
            model,
            material,
            world,
            constants: append(&mut self.constants, constants),
            mesh_enabled: append(&mut self.mesh_enabled, mesh_enabled),
            textures: append(&mut self.textures, textures),
            morph_weights: Span::default(),
            palette: Span::default(),
            mesh_worlds: Span::default(),
            cast_shadows: true,
            receive_shadows: true,
        };
        self.items.push(item);
    }

    /// Gives the item pushed last these morph weights (layout: [`DrawItem::morph_weights`]).
    /// A separate call rather than another `push_with` argument, since most items have none.
    pub fn set_morph_weights(&mut self, weights: &[f32]) {
        if let Some(item) = self.items.last_mut() {
            item.morph_weights = append(&mut self.morph_weights, weights);
        }
    }

    /// Gives the item pushed last these skinning matrices (layout: [`DrawItem::palette`]), e.g.
    /// the concatenation of [`crate::anim::Skeleton::palette`] over the model's skins. Only the
    /// affine part of each matrix is kept.
    pub fn set_palette(&mut self, bones: &[Mat4]) {
        if let Some(item) = self.items.last_mut() {
            let start = self.palettes.len() as u32;
            self.palettes.extend(bones.iter().map(bone_rows));
            item.palette = Span { start, len: bones.len() as u32 };
        }
    }

    /// Whether the item pushed last casts and receives shadows (both do by default).
    pub fn set_shadows(&mut self, cast: bool, receive: bool) {
        if let Some(item) = self.items.last_mut() {
            (item.cast_shadows, item.receive_shadows) = (cast, receive);
        }
    }

    /// Model-space transform of `item`'s mesh `mesh`: the list's animated one when given, else
    /// `rest` (the model's upload-time node matrix).
    pub fn mesh_world(&self, item: &DrawItem, mesh: usize, rest: Mat4) -> Mat4 {
        if mesh < item.mesh_worlds.len as usize {
            self.mesh_worlds.get(item.mesh_worlds.start as usize + mesh).copied().unwrap_or(rest)
        } else {
            rest
        }
    }

    /// Gives the last item's meshes their animated model-space transforms.
    pub fn set_mesh_worlds(&mut self, worlds: &[Mat4]) {
        if let Some(item) = self.items.last_mut() {
            item.mesh_worlds = append(&mut self.mesh_worlds, worlds);
        }
    }

    /// [`DrawList::set_palette`] for callers that already hold bones as [`BoneRows`].
    pub fn set_palette_rows(&mut self, bones: &[BoneRows]) {
        if let Some(item) = self.items.last_mut() {
            item.palette = append(&mut self.palettes, bones);
        }
    }
}

fn append<T: Copy>(v: &mut Vec<T>, new: &[T]) -> Span {
    let start = v.len() as u32;
    v.extend_from_slice(new);
    Span { start, len: new.len() as u32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_index_shared_arrays() {
        let mut list = DrawList::new(CameraView::default());
        list.push(ModelHandle(0), MaterialHandle(0), Mat4::IDENTITY);
        list.push_with(ModelHandle(1), MaterialHandle(0), Mat4::IDENTITY, &[(7, [1.0; 4])], &[true, false], &[]);
        list.push_with(ModelHandle(1), MaterialHandle(0), Mat4::IDENTITY, &[(8, [2.0; 4])], &[], &[]);
        assert_eq!(list.items[1].constants.of(&list.constants), &[(7, [1.0; 4])]);
        assert_eq!(list.items[2].constants.of(&list.constants), &[(8, [2.0; 4])]);
        assert_eq!(list.items[1].mesh_enabled.of(&list.mesh_enabled), &[true, false]);
        assert!(list.items[0].constants.of(&list.constants).is_empty());
        assert!(Span { start: 9, len: 3 }.of(&list.constants).is_empty());
        list.set_morph_weights(&[0.5, 0.25]);
        assert_eq!(list.items[2].morph_weights.of(&list.morph_weights), &[0.5, 0.25]);
        assert!(list.items[1].morph_weights.of(&list.morph_weights).is_empty());
        list.clear();
        assert!(list.items.is_empty() && list.constants.is_empty() && list.constants.capacity() > 0);
        assert!(list.morph_weights.is_empty());
        list.set_morph_weights(&[1.0]);
        assert!(list.morph_weights.is_empty(), "no item to attach them to");
        list.set_palette(&[Mat4::IDENTITY]);
        assert!(list.palettes.is_empty(), "no item to attach them to");
    }

    #[test]
    fn labels_share_one_text_buffer() {
        let mut list = DrawList::new(CameraView::default());
        let item = LabelItem::plain(Vec3::ZERO, 16.0);
        let font = std::sync::Arc::new(crate::project::font::file::Font::default_sized(20.0));
        list.push_label(item, "héllo", None);
        list.push_label(item, "w", Some(&font));
        list.push_label(item, "v", Some(&font.clone()));
        assert_eq!((list.label_text(&list.labels[0]), list.label_text(&list.labels[1])), ("héllo", "w"));
        let fonts: Vec<u32> = list.labels.iter().map(|l| l.font).collect();
        assert_eq!((fonts, list.label_fonts.len()), (vec![0, 1, 1], 1), "a font shared by labels is kept once");
        let stray = LabelItem { text: Span { start: 99, len: 2 }, ..item };
        assert_eq!(list.label_text(&stray), "");
        list.clear();
        assert!(list.labels.is_empty() && list.label_text.is_empty() && list.label_fonts.is_empty());
    }

    #[test]
    fn palettes_keep_the_affine_rows() {
        let mut list = DrawList::new(CameraView::default());
        list.push(ModelHandle(0), MaterialHandle(0), Mat4::IDENTITY);
        list.push(ModelHandle(0), MaterialHandle(0), Mat4::IDENTITY);
        let m =
            Mat4::from_cols_array(&[1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0, 7.0, 8.0, 9.0, 0.0, 10.0, 11.0, 12.0, 1.0]);
        list.set_palette(&[Mat4::IDENTITY, m]);
        assert_eq!(list.items[1].palette, Span { start: 0, len: 2 });
        assert_eq!(
            list.items[1].palette.of(&list.palettes)[1],
            [1.0, 4.0, 7.0, 10.0, 2.0, 5.0, 8.0, 11.0, 3.0, 6.0, 9.0, 12.0]
        );
        assert!(list.items[0].palette.of(&list.palettes).is_empty());
        list.set_palette_rows(&[bone_rows(&m)]);
        assert_eq!(list.items[1].palette, Span { start: 2, len: 1 });
        list.clear();
        assert!(list.palettes.is_empty());
    }

    #[test]
    fn every_way_of_making_a_list_has_the_ambient_light() {
        // The running game made its list with `default()` and lost the ambient term.
        assert_eq!(DrawList::default().look.ambient, DEFAULT_AMBIENT);
        assert_eq!(DrawList::new(CameraView::default()).look.ambient, DEFAULT_AMBIENT);
        let mut list = DrawList::default();
        list.clear();
        assert_eq!(list.look.ambient, DEFAULT_AMBIENT);
    }
}
