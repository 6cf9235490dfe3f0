//! `.material` files: which shaders to run, default values of user constants and sampler
//! settings. Loading goes through a reader closure so this module never touches the disk.

use glow::HasContext;

use super::program::{DrawMatrices, FrameValues, ShaderProgram, Values, set_plain, write_blocks};
use super::variant::{Uses, Variant};
use crate::base::error::LoadError;
use crate::base::hash::Hash;
use crate::project::json;
pub use crate::project::material::{FilterMode, MaterialDesc, SamplerDesc, WrapMode, parse_material};
use glam::Mat4;

impl WrapMode {
    pub(crate) fn gl(self) -> i32 {
        (match self {
            WrapMode::Repeat => glow::REPEAT,
            WrapMode::ClampToEdge => glow::CLAMP_TO_EDGE,
            WrapMode::MirroredRepeat => glow::MIRRORED_REPEAT,
        }) as i32
    }
}

impl FilterMode {
    /// (min, mag) GL filters.
    pub(crate) fn gl(self) -> (i32, i32) {
        let (min, mag) = match self {
            FilterMode::Nearest => (glow::NEAREST, glow::NEAREST),
            FilterMode::Linear => (glow::LINEAR, glow::LINEAR),
            FilterMode::NearestMipmapNearest => (glow::NEAREST_MIPMAP_NEAREST, glow::NEAREST),
            FilterMode::NearestMipmapLinear => (glow::NEAREST_MIPMAP_LINEAR, glow::NEAREST),
            FilterMode::LinearMipmapNearest => (glow::LINEAR_MIPMAP_NEAREST, glow::LINEAR),
            FilterMode::LinearMipmapLinear => (glow::LINEAR_MIPMAP_LINEAR, glow::LINEAR),
        };
        (min as i32, mag as i32)
    }
}

/// A driver's `N:line` counts in the N-th file of the stage that failed: lists those files
/// (`files`: the vertex stage's, then the fragment stage's, `fragment` naming the latter).
fn name_files(mut e: LoadError, fragment: &str, files: &[Vec<String>; 2]) -> LoadError {
    let files = &files[usize::from(e.resource == fragment)];
    if files.len() > 1 {
        let list: Vec<String> = files.iter().enumerate().map(|(i, f)| format!("{i} {f}")).collect();
        e.message.push_str(&format!("\n(N:line in the log is line of file N: {})", list.join(", ")));
    }
    e
}

/// The attribute name Defold feeds the texture transform to without a declaration.
const TEXTURE_TRANSFORM_2D: &str = "texture_transform_2d";

/// A usable material: linked program, constant defaults and sampler objects, each lined up
/// with what the program declares.
pub struct Material {
    pub resource: String,
    pub(crate) program: ShaderProgram,
    /// Default per user constant of the program (`ShaderProgram::constants` order); zero when
    /// the material lists none.
    pub(crate) defaults: Vec<[f32; 4]>,
    /// Sampler object per program sampler slot; `None` leaves the texture's own settings.
    pub(crate) sampler_objects: Vec<Option<glow::Sampler>>,
    /// Value attributes the program declares: (name hash, location, default). A sprite feeds
    /// each as one value for all its vertices, its own when a script set one.
    pub(crate) attributes: Vec<(crate::base::hash::Hash, u32, [f32; 4])>,
    /// Locations of the attributes the program declares that take the vertex's local position.
    pub(crate) local_position: Vec<u32>,
    /// First locations of the mat3 attributes that take the quad's texture transform (each
    /// takes three: one column per location).
    pub(crate) texture_transform: Vec<u32>,
    /// What its programs are compiled from when they name features (`render::variant`): this
    /// material is then the variant `Variant::LOADED`, and the renderer makes the others from it.
    pub(crate) variants: Option<Box<VariantSource>>,
    /// Whether models with it are drawn ([`MaterialDesc::drawn`]: its Defold tags name a
    /// predicate of Defold's default render script, or it has none).
    pub(crate) drawn: bool,
    /// Its Defold tags' hashes (a render script's predicates name them); empty: `model`.
    pub(crate) tags: Vec<u64>,
}

/// A material's description and expanded sources, kept to compile its other variants.
pub(crate) struct VariantSource {
    pub uses: Uses,
    desc: MaterialDesc,
    vertex: (String, String),
    fragment: (String, String),
    /// The files each stage's source was expanded from (`#include`), for its errors.
    files: [Vec<String>; 2],
    /// The material's own `material_shading` constant: Some(standard) pins the shading model,
    /// None follows the project's `shading`.
    pub standard: Option<bool>,
}

impl Material {
    /// Whether a draw of `predicate` draws models with this material (None: Sinew's pipeline).
    pub(crate) fn drawn_by(&self, predicate: Option<&[u64]>) -> bool {
        match predicate {
            None => self.drawn,
            Some(p) if self.tags.is_empty() => p.contains(&crate::game::render_script::pass_tags().model),
            Some(p) => self.tags.iter().any(|t| p.contains(t)),
        }
    }

    /// Whether the sprite renderer must make the per-vertex data only some programs read.
    pub(crate) fn reads_quad_extras(&self) -> bool {
        !self.local_position.is_empty() || !self.texture_transform.is_empty()
    }
}

impl Material {
    /// Reads `resource` and its two programs through `read` (resource path → text), compiles
    /// and links them. `ubo_alignment` is GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT.
    pub fn load(
        gl: &glow::Context,
        resource: &str,
        read: &mut dyn FnMut(&str) -> Result<String, LoadError>,
        ubo_alignment: usize,
    ) -> Result<Material, LoadError> {
        let desc = parse_material(resource, &read(resource)?)?;
        let vp = json::resource_path(&desc.vertex_program, resource)?;
        let fp = json::resource_path(&desc.fragment_program, resource)?;
        let (mut vs, vs_files) = crate::project::material::expand_includes(&vp, &read(&vp)?, read)?;
        let (mut fs, fs_files) = crate::project::material::expand_includes(&fp, &read(&fp)?, read)?;
        for (from, to) in &desc.renamed {
            vs = crate::project::material::rename_identifier(&vs, from, to);
            fs = crate::project::material::rename_identifier(&fs, from, to);
        }
        let uses = Uses::of(&[&vs, &fs]);
        let defines = uses.map_or(String::new(), |u| u.keep(Variant::LOADED).defines());
        let files = [vs_files, fs_files];
        let mut material = Material::new(gl, resource, &desc, (&vp, &vs), (&fp, &fs), &defines, ubo_alignment)
            .map_err(|e| name_files(e, &fp, &files))?;
        if let Some(uses) = uses {
            let shading = desc.fragment_constants.iter().flat_map(|m| &m.0).find(|(n, _)| n == "material_shading");
            let standard = shading.map(|(_, v)| v[0]).filter(|x| *x > -0.5).map(|x| x > 0.5);
            let (vertex, fragment) = ((vp, vs), (fp, fs));
            material.variants = Some(Box::new(VariantSource { uses, desc, vertex, fragment, files, standard }));
        }
        Ok(material)
    }

    /// This material's program compiled for `variant` (`self` being `Variant::LOADED`), with
    /// the same constants and samplers. None for a material not compiled in variants.
    pub(crate) fn variant(
        &self,
        gl: &glow::Context,
        variant: Variant,
        ubo_alignment: usize,
    ) -> Option<Result<Material, LoadError>> {
        let v = self.variants.as_ref()?;
        let (vertex, fragment) =
            ((v.vertex.0.as_str(), v.vertex.1.as_str()), (v.fragment.0.as_str(), v.fragment.1.as_str()));
        let made = Material::new(gl, &self.resource, &v.desc, vertex, fragment, &variant.defines(), ubo_alignment);
        Some(made.map_err(|e| name_files(e, &v.fragment.0, &v.files)))
    }

    /// Builds a material from an already-parsed description and program sources, compiled with
    /// `defines` (a variant's, or empty).
    fn new(
        gl: &glow::Context,
        resource: &str,
        desc: &MaterialDesc,
        vertex: (&str, &str),
        fragment: (&str, &str),
        defines: &str,
        ubo_alignment: usize,
    ) -> Result<Material, LoadError> {
        let program = ShaderProgram::new(gl, vertex, fragment, defines, ubo_alignment)?;
        let mut defaults = vec![[0.0; 4]; program.constants.len()];
        let listed = desc.vertex_constants.iter().chain(&desc.fragment_constants).flat_map(|m| &m.0);
        for (name, value) in listed {
            match program.constants.iter().position(|(_, n)| n == name) {
                Some(i) => defaults[i] = *value,
                None => log::debug!("{resource}: constant '{name}' is not used by its shaders"),
            }
        }
        let mut sampler_objects = Vec::with_capacity(program.samplers.len());
        for slot in &program.samplers {
            let desc = desc.samplers.iter().flat_map(|m| &m.0).find(|(n, _)| *n == slot.name).map(|(_, d)| *d);
            let object = match desc {
                Some(d) => match create_sampler(gl, d) {
                    Ok(s) => Some(s),
                    Err(e) => {
                        destroy_samplers(gl, &sampler_objects);
                        program.destroy(gl);
                        return Err(LoadError::new(resource, e));
                    }
                },
                None => None,
            };
            sampler_objects.push(object);
        }
        // Looked up once here, not per draw.
        let location = |name: &str| {
            // SAFETY: the program was linked on this context just above.
            unsafe { gl.get_attrib_location(program.program, name) }
        };
        let attributes = desc
            .attributes
            .iter()
            .flat_map(|m| &m.0)
            .filter_map(|(name, v)| Some((crate::base::hash::hash_remembered(name), location(name)?, *v)))
            .collect();
        let local_position = desc
            .semantic_attributes
            .iter()
            .filter(|(_, kind)| *kind == crate::project::material::SemanticAttribute::LocalPosition)
            .filter_map(|(name, _)| location(name))
            .collect();
        let semantic =
            |kind| desc.semantic_attributes.iter().filter(move |(_, k)| *k == kind).map(|(name, _)| name.as_str());
        let mut texture_transform: Vec<u32> = std::iter::once(TEXTURE_TRANSFORM_2D)
            .chain(semantic(crate::project::material::SemanticAttribute::TextureTransform2d))
            .filter_map(location)
            .collect();
        texture_transform.sort_unstable();
        texture_transform.dedup();
        let material = Material {
            resource: resource.to_string(),
            program,
            defaults,
            sampler_objects,
            attributes,
            local_position,
            texture_transform,
            variants: None,
            drawn: desc.drawn(),
            tags: desc.tags.iter().map(|t| crate::base::hash::hash_str(t)).collect(),
        };
        Ok(material)
    }

    /// The linked program (to ask what it declares).
    pub fn program(&self) -> &ShaderProgram {
        &self.program
    }

    /// Points the program's `position` (3 floats), `texcoord0` (2) and `color` (4) attributes,
    /// those it declares, at the bound array buffer: the layout of sprite and GUI vertices,
    /// `stride` bytes apart.
    pub(crate) fn point_quad_attributes(&self, gl: &glow::Context, stride: i32) {
        let program = self.program.program;
        // SAFETY: the context is current and the program belongs to it.
        unsafe {
            for (name, size, offset) in [("position", 3, 0), ("texcoord0", 2, 12), ("color", 4, 20)] {
                if let Some(loc) = gl.get_attrib_location(program, name) {
                    gl.enable_vertex_attrib_array(loc);
                    gl.vertex_attrib_pointer_f32(loc, size, glow::FLOAT, false, stride, offset);
                }
            }
        }
    }

    /// Makes the program current with every uniform a batch of quads already in world (or
    /// screen) space reads — sprites', tiles', particles', GUI nodes' — from `frame`, then
    /// `overrides`, then the material's defaults; uniform blocks are written to `ubo` through
    /// `scratch`.
    pub(crate) fn use_for_quads(
        &self,
        gl: &glow::Context,
        frame: &FrameValues,
        overrides: &[(Hash, [f32; 4])],
        ubo: glow::Buffer,
        scratch: &mut Vec<u8>,
    ) {
        let p = &self.program;
        let m = DrawMatrices {
            world: Mat4::IDENTITY,
            worldview: frame.view,
            worldviewproj: frame.viewproj,
            normal: Mat4::IDENTITY,
        };
        let zero = [0.0; 4];
        let values = Values {
            frame,
            m: &m,
            base_color: [1.0; 4],
            texcoord: zero,
            emissive: zero,
            texcoord_sets: zero,
            normal_scale: zero,
            occlusion_strength: zero,
            metallic_roughness: zero,
            alpha: zero,
            opaque: zero,
            draw_constants: &[],
            overrides,
            program_constants: &p.constants,
            defaults: &self.defaults,
            morph: &[],
            morph_count: zero,
            animation: zero,
            bones: &[],
            texture_srgb: zero,
            shadow_receive: zero,
        };
        // SAFETY: the context is current (as for every renderer call) and every object
        // belongs to it.
        unsafe {
            gl.use_program(Some(p.program));
            set_plain(gl, &p.frame_uniforms, &values, None);
            set_plain(gl, &p.draw_uniforms, &values, None);
            if p.block_bytes > 0 {
                scratch.clear();
                scratch.resize(p.block_bytes, 0);
                write_blocks(p, scratch, &values);
                gl.bind_buffer(glow::UNIFORM_BUFFER, Some(ubo));
                gl.buffer_data_u8_slice(glow::UNIFORM_BUFFER, scratch, glow::STREAM_DRAW);
                for b in &p.blocks {
                    gl.bind_buffer_range(glow::UNIFORM_BUFFER, b.binding, Some(ubo), b.offset as i32, b.size as i32);
                }
            }
        }
    }

    /// Frees GL objects; call with the context that created them.
    pub fn destroy(&self, gl: &glow::Context) {
        destroy_samplers(gl, &self.sampler_objects);
        self.program.destroy(gl);
    }
}

fn destroy_samplers(gl: &glow::Context, samplers: &[Option<glow::Sampler>]) {
    for s in samplers.iter().flatten() {
        // SAFETY: created on `gl`, not used afterwards.
        unsafe { gl.delete_sampler(*s) };
    }
}

fn create_sampler(gl: &glow::Context, d: SamplerDesc) -> Result<glow::Sampler, String> {
    let wrap = d.wrap.unwrap_or(WrapMode::Repeat).gl();
    let (min, mag) = d.filter.unwrap_or(FilterMode::LinearMipmapLinear).gl();
    // SAFETY: plain object creation and parameters on the current context.
    unsafe {
        let s = gl.create_sampler()?;
        gl.sampler_parameter_i32(s, glow::TEXTURE_WRAP_S, wrap);
        gl.sampler_parameter_i32(s, glow::TEXTURE_WRAP_T, wrap);
        gl.sampler_parameter_i32(s, glow::TEXTURE_MIN_FILTER, min);
        gl.sampler_parameter_i32(s, glow::TEXTURE_MAG_FILTER, mag);
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_full_material() {
        let text = r#"{
  "vertex_program": "/main/a.vp",
  "fragment_program": "/main/a.fp",
  "vertex_constants": { "tint_scale": [1, 2, 3, 4] },
  "fragment_constants": { "tint": [1, 1, 1, 0.5] },
  "samplers": { "tex0": { "wrap": "clamp_to_edge", "filter": "nearest" } }
}"#;
        let d = parse_material("/main/a.material", text).unwrap();
        assert_eq!(d.vertex_program.value, "/main/a.vp");
        assert_eq!(d.fragment_constants.unwrap().0, vec![("tint".to_string(), [1.0, 1.0, 1.0, 0.5])]);
        let s = d.samplers.unwrap().0;
        assert_eq!(s[0].1, SamplerDesc { wrap: Some(WrapMode::ClampToEdge), filter: Some(FilterMode::Nearest) });
    }

    #[test]
    fn unknown_fields_are_errors_with_position() {
        let e =
            parse_material("/m.material", "{\n \"vertex_program\": \"/a.vp\",\n \"fragmnet_program\": \"/a.fp\"\n}")
                .unwrap_err();
        assert_eq!((e.resource.as_str(), e.line, e.column), ("/m.material", Some(3), Some(20)));
        assert!(e.message.contains("unknown field `fragmnet_program`"), "{e}");
        let e = parse_material(
            "/m.material",
            "{\"vertex_program\": \"/a.vp\", \"fragment_program\": \"/a.fp\",\n \"samplers\": {\"tex0\": {\"wrap\": \"tile\"}}}",
        )
        .unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
    }

    #[test]
    fn builtin_model_material_parses() {
        let text = include_str!("../../builtins/materials/model.material");
        let d = parse_material("/builtins/materials/model.material", text).unwrap();
        assert_eq!(d.vertex_program.value, "/builtins/shaders/model.vp");
        assert_eq!(d.fragment_constants.unwrap().0[0].0, "tint");
    }
}
