//! Defold's `mesh` components: a `.buffer` file (a JSON list of named vertex streams) drawn with
//! a material. Sinew draws one as a model of one primitive: the Defold reader makes the
//! component a `model` whose `mesh` is a mesh reference (the buffer's path, and after a `#` how
//! to read it: [`MeshRef`]), and the model importer turns that into [`ModelData`], so meshes
//! share the model's materials, hot reload and draw path.
use crate::base::error::LoadError;
use crate::project::Resources;
use crate::project::model_data::{Aabb, MeshData, ModelData, NodeData, PrimitiveData};

/// Vertices one buffer may hold (a hostile file is refused before its triangles are made).
pub const MAX_VERTICES: usize = 1 << 22;

/// Defold's `MeshDesc.PrimitiveType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primitive {
    Triangles,
    TriangleStrip,
    Lines,
}

impl Primitive {
    const ALL: [Primitive; 3] = [Primitive::Triangles, Primitive::TriangleStrip, Primitive::Lines];

    pub fn name(self) -> &'static str {
        match self {
            Primitive::Triangles => "triangles",
            Primitive::TriangleStrip => "triangle_strip",
            Primitive::Lines => "lines",
        }
    }

    /// Sinew's lower-case names, or Defold's `PRIMITIVE_*` constants.
    pub fn parse(s: &str) -> Option<Primitive> {
        let s = s.strip_prefix("PRIMITIVE_").map(str::to_ascii_lowercase).unwrap_or_else(|| s.to_string());
        Self::ALL.into_iter().find(|p| p.name() == s)
    }
}

/// What a mesh component reads of its buffer: the file, the primitive and the streams that are
/// its positions and normals (Defold's `position_stream`, `normal_stream`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshRef {
    pub buffer: String,
    pub primitive: Primitive,
    pub position_stream: String,
    pub normal_stream: String,
}

impl MeshRef {
    /// `PATH#PRIMITIVE,POSITION_STREAM,NORMAL_STREAM`: the model's `mesh` string, which keys
    /// the imported model.
    pub fn key(&self) -> String {
        format!("{}#{},{},{}", self.buffer, self.primitive.name(), self.position_stream, self.normal_stream)
    }

    /// The reference a model's `mesh` names, if it is a `.buffer` (a plain path reads
    /// triangles from the streams `position` and `normal`).
    pub fn of(mesh: &str) -> Option<MeshRef> {
        let (path, how) = mesh.split_once('#').unwrap_or((mesh, ""));
        if !path.to_ascii_lowercase().ends_with(".buffer") {
            return None;
        }
        let mut parts = how.split(',');
        let primitive = match parts.next().filter(|s| !s.is_empty()) {
            None => Primitive::Triangles,
            Some(p) => Primitive::parse(p)?,
        };
        let mut stream = |default: &str| parts.next().filter(|s| !s.is_empty()).unwrap_or(default).to_string();
        let position_stream = stream("position");
        let normal_stream = stream("normal");
        Some(MeshRef { buffer: path.to_string(), primitive, position_stream, normal_stream })
    }
}

/// One stream of a `.buffer` file.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct StreamDesc {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    count: usize,
    data: Vec<f64>,
}

const TYPES: &[&str] = &["float32", "uint8", "uint16", "uint32", "int8", "int16", "int32"];

/// The model of the mesh `mesh` names; its buffer file's problems with their position.
pub fn import(res: &Resources, m: &MeshRef) -> Result<ModelData, LoadError> {
    let path = &m.buffer;
    let text = res.read_string(path, None)?;
    // Defold's reader takes the first JSON value and ignores what follows (its own
    // examples' `quad.buffer` ends in a second `]`), so Sinew does too.
    let mut values = serde_json::Deserializer::from_str(&text).into_iter::<Vec<StreamDesc>>();
    let streams = match values.next() {
        Some(Ok(s)) => s,
        Some(Err(e)) => return Err(LoadError::at(path.clone(), e.line(), e.column(), format!("a buffer: {e}"))),
        None => return Err(LoadError::new(path, "a buffer holds a list of streams")),
    };
    let bad = |msg: String| LoadError::new(path, msg);
    let mut vertices = None;
    for s in &streams {
        if !TYPES.contains(&s.kind.as_str()) {
            return Err(bad(format!("stream '{}': type '{}' is not one of {}", s.name, s.kind, TYPES.join(", "))));
        }
        if !(1..=4).contains(&s.count) || s.data.len() % s.count != 0 {
            let msg = format!(
                "stream '{}': count {} does not divide its {} values (1 to 4 per vertex)",
                s.name,
                s.count,
                s.data.len()
            );
            return Err(bad(msg));
        }
        let n = s.data.len() / s.count;
        if n > MAX_VERTICES {
            return Err(bad(format!("stream '{}': {n} vertices, more than {MAX_VERTICES}", s.name)));
        }
        if *vertices.get_or_insert(n) != n {
            return Err(bad(format!(
                "stream '{}' has {n} vertices, the streams before it {}",
                s.name,
                vertices.unwrap_or(0)
            )));
        }
        if !s.data.iter().all(|v| v.is_finite()) {
            return Err(bad(format!("stream '{}' holds a value that is not a finite number", s.name)));
        }
    }
    let find = |name: &str| streams.iter().find(|s| s.name == name);
    let Some(positions) = find(&m.position_stream) else {
        return Err(bad(format!("no stream '{}' for the positions", m.position_stream)));
    };
    let n = positions.data.len() / positions.count;
    let vec_of = |s: &StreamDesc, fill: f64| -> Vec<[f64; 4]> {
        s.data
            .chunks_exact(s.count)
            .map(|c| std::array::from_fn(|k| c.get(k).copied().unwrap_or(if k == 3 { 1.0 } else { fill })))
            .collect()
    };
    let mut p = PrimitiveData {
        positions: vec_of(positions, 0.0).iter().map(|v| [v[0] as f32, v[1] as f32, v[2] as f32]).collect(),
        ..Default::default()
    };
    if let Some(s) = find(&m.normal_stream).filter(|s| s.count >= 3) {
        p.normals = vec_of(s, 0.0).iter().map(|v| [v[0] as f32, v[1] as f32, v[2] as f32]).collect();
    }
    if let Some(s) = find("tangent").filter(|s| s.count == 4) {
        p.tangents = vec_of(s, 0.0).iter().map(|v| v.map(|x| x as f32)).collect();
    }
    // A buffer's texture coordinates are in Defold's texture space, v up from the image's bottom
    // row; model data's are glTF's, v down from its top (the renderer turns them back).
    for (name, out) in [("texcoord0", &mut p.texcoords0), ("texcoord1", &mut p.texcoords1)] {
        if let Some(s) = find(name) {
            *out = vec_of(s, 0.0).iter().map(|v| [v[0] as f32, 1.0 - v[1] as f32]).collect();
        }
    }
    if let Some(s) = find("color0").or_else(|| find("color")) {
        // Integer colours are 0..255, as Defold normalises them.
        let scale = if s.kind == "float32" { 1.0 } else { 1.0 / 255.0 };
        p.colors = vec_of(s, 0.0)
            .iter()
            .map(|v| std::array::from_fn(|k| if k == 3 && s.count < 4 { 1.0 } else { (v[k] * scale) as f32 }))
            .collect();
    }
    let n32 = n as u32;
    p.indices = match m.primitive {
        Primitive::Triangles if n % 3 == 0 => (0..n32).collect(),
        Primitive::Triangles => return Err(bad(format!("{n} vertices are not whole triangles"))),
        // Every second triangle of a strip turns the other way: swapped, they all face one way.
        Primitive::TriangleStrip => (0..n32.saturating_sub(2))
            .flat_map(|i| if i % 2 == 0 { [i, i + 1, i + 2] } else { [i + 1, i, i + 2] })
            .collect(),
        Primitive::Lines => return Err(bad("a mesh of lines (PRIMITIVE_LINES) is not drawn by Sinew".to_string())),
    };
    if p.normals.is_empty() {
        p.normals = crate::project::gltf::mesh::smooth_normals(&p.positions, &p.indices);
    }
    let mut aabb = Aabb::default();
    for q in &p.positions {
        aabb.grow(*q);
    }
    Ok(ModelData {
        source: path.clone(),
        meshes: vec![MeshData {
            id: "mesh".into(),
            node: 0,
            skin: None,
            primitives: vec![p],
            target_names: Vec::new(),
            weights: Vec::new(),
            aabb,
        }],
        materials: Vec::new(),
        textures: Vec::new(),
        nodes: vec![NodeData {
            name: "mesh".into(),
            parent: None,
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            gltf_index: 0,
        }],
        skins: Vec::new(),
        animations: Vec::new(),
        aabb,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn import_text(key: &str, text: &str) -> Result<ModelData, String> {
        let m = MeshRef::of(key).ok_or("not a mesh reference")?;
        let res = Resources::demo().with_overlay(vec![(m.buffer.clone(), text.as_bytes().to_vec())]);
        import(&res, &m).map_err(|e| e.to_string())
    }

    const QUAD: &str = r#"[
        { "name": "position", "type": "float32", "count": 3,
          "data": [-0.5, -0.5, 0, 0.5, -0.5, 0, -0.5, 0.5, 0, 0.5, 0.5, 0] },
        { "name": "texcoord0", "type": "float32", "count": 2, "data": [0, 0, 1, 0, 0, 1, 1, 1] },
        { "name": "color0", "type": "uint8", "count": 3, "data": [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255] }
    ]
    ]"#;

    #[test]
    fn a_strip_becomes_triangles_facing_one_way() {
        let key = MeshRef {
            buffer: "/q.buffer".into(),
            primitive: Primitive::TriangleStrip,
            position_stream: "position".into(),
            normal_stream: "normal".into(),
        }
        .key();
        assert_eq!(MeshRef::of(&key).map(|m| m.primitive), Some(Primitive::TriangleStrip), "{key}");
        // The trailing `]` (as in Defold's own quad.buffer) is ignored, as Defold's reader does.
        let m = import_text(&key, QUAD).unwrap();
        let p = &m.meshes[0].primitives[0];
        assert_eq!(p.indices, [0, 1, 2, 2, 1, 3]);
        let normal = |t: &[u32]| {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| glam::Vec3::from(p.positions[i as usize]));
            (b - a).cross(c - a).normalize()
        };
        assert_eq!((normal(&p.indices[..3]), normal(&p.indices[3..])), (glam::Vec3::Z, glam::Vec3::Z));
        assert_eq!((p.texcoords0[0], p.texcoords0[3]), ([0.0, 1.0], [1.0, 0.0]), "v from the top, as glTF's");
        assert_eq!((p.colors[0], p.colors[3]), ([1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]), "bytes are 0..255");
        assert_eq!(p.normals.len(), 4, "made when the buffer has none");
        assert_eq!((m.aabb.min, m.aabb.max), ([-0.5, -0.5, 0.0], [0.5, 0.5, 0.0]));
        // Imported as a model, the key names the buffer among its files: a save of the buffer
        // reloads the mesh.
        let res = Resources::demo().with_overlay(vec![("/q.buffer".to_string(), QUAD.as_bytes().to_vec())]);
        let im = crate::project::import::import_model(&res, &key).unwrap();
        assert_eq!((im.files, im.data.meshes[0].primitives[0].indices.len()), (vec!["/q.buffer".to_string()], 6));
    }

    #[test]
    fn bad_buffers_name_the_stream_and_the_problem() {
        let cases = [
            (
                "/b.buffer",
                "[{\"name\": \"position\", \"type\": \"float32\", \"count\": 3, \"data\": [0, 0]}]",
                "count 3 does not divide its 2 values",
            ),
            (
                "/b.buffer",
                "[{\"name\": \"position\", \"type\": \"half\", \"count\": 3, \"data\": []}]",
                "type 'half' is not one of",
            ),
            (
                "/b.buffer",
                "[{\"name\": \"p\", \"type\": \"float32\", \"count\": 3, \"data\": [0, 0, 0]}]",
                "no stream 'position'",
            ),
            (
                "/b.buffer",
                "[{\"name\": \"position\", \"type\": \"float32\", \"count\": 3, \"data\": [0, 0, 0, 1, 1, 1]}]",
                "2 vertices are not whole triangles",
            ),
            (
                "/b.buffer#lines",
                "[{\"name\": \"position\", \"type\": \"float32\", \"count\": 3, \"data\": [0, 0, 0, 1, 1, 1]}]",
                "PRIMITIVE_LINES",
            ),
            (
                "/b.buffer",
                "[{\"name\": \"position\", \"type\": \"float32\", \"count\": 3, \"data\": [0, 0, 0]},\n {\"name\": \"normal\", \"type\": \"float32\", \"count\": 3, \"data\": [0, 0, 1, 0, 0, 1]}]",
                "stream 'normal' has 2 vertices, the streams before it 1",
            ),
            (
                "/b.buffer",
                "[{\"name\": \"position\",\n \"type\": \"float32\", \"count\": 3, \"dat\": []}]",
                "/b.buffer:2:",
            ),
        ];
        for (key, text, want) in cases {
            let e = import_text(key, text).unwrap_err();
            assert!(e.contains(want) && e.starts_with("/b.buffer"), "{key}: {e}");
        }
        assert!(MeshRef::of("/b.buffer#points").is_none(), "an unknown primitive is no mesh reference");
        assert!(MeshRef::of("/b.glb").is_none());
    }
}
