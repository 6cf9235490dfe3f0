//! Defold files through the loader: the same specs as the equivalent Sinew JSON, errors where
//! they were written, one error per unsupported component kind.
use crate::base::error::LoadError;
use crate::project::Resources;
use crate::project::collection::{load_collection, load_collection_all, load_model_file};
use crate::project::types::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Project(PathBuf);

impl Project {
    fn new(files: &[(&str, &str)]) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("sinew_defold_{}_{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (path, text) in files {
            let full = dir.join(path.trim_start_matches('/'));
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        Project(dir)
    }
    fn res(&self) -> Resources {
        Resources::open_dir(&self.0).unwrap()
    }
    fn load(&self, path: &str) -> Result<CollectionSpec, LoadError> {
        load_collection(&self.res(), path)
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Everything of a spec but where values were written (the two formats differ there).
fn shape(c: &CollectionSpec) -> String {
    let mut s = format!("{c:?}");
    while let Some(i) = s.find("at: Some(Pos {") {
        let Some(j) = s[i..].find("})") else { break };
        s.replace_range(i..i + j + 2, "at: _");
    }
    s.replace("at: None", "at: _")
}

const DEFOLD_COLLECTION: &str = r#"name: "main"
scale_along_z: 0
instances {
  id: "hero"
  prototype: "/main/hero.go"
  children: "sword"
  position { x: 1.0 y: 2.0 }
  rotation { z: 0.70710677 w: 0.70710677 }
  scale3 { x: 2.0 }
  component_properties {
    id: "script"
    properties { id: "speed" value: "3.5" type: PROPERTY_TYPE_NUMBER }
    properties { id: "target" value: "1.0, 2.0, 3.0" type: PROPERTY_TYPE_VECTOR3 }
    properties { id: "team" value: "red" type: PROPERTY_TYPE_HASH }
  }
}
embedded_instances {
  id: "sword"
  data: "embedded_components {\n"
  "  id: \"label\"\n"
  "  type: \"label\"\n"
  "  data: \"text: \\\"hi\\\"\\n"
  "pivot: PIVOT_W\\n"
  "color { x: 1.0 y: 0.5 z: 0.25 }\\n"
  "\"\n"
  "  position { x: 4.0 y: 5.0 }\n"
  "}\n"
  "embedded_components {\n"
  "  id: \"model\"\n"
  "  type: \"model\"\n"
  "  data: \"mesh: \\\"/m.glb\\\"\\n"
  "skeleton: \\\"\\\"\\n"
  "materials { name: \\\"a\\\" material: \\\"/m.material\\\" textures { sampler: \\\"tex0\\\" texture: \\\"/t.png\\\" } }\\n"
  "\"\n"
  "  rotation { y: 1.0 w: 0.0 }\n"
  "}\n"
  position { y: 0.5 }
}
collection_instances {
  id: "level"
  collection: "/main/level.collection"
  position { x: 10.0 }
  instance_properties {
    id: "door"
    properties {
      id: "script"
      properties { id: "speed" value: "2.0" type: PROPERTY_TYPE_NUMBER }
    }
  }
}
"#;

const JSON_COLLECTION: &str = r#"{ "name": "main",
  "objects": [ { "id": "hero", "prototype": "/main/hero.go", "position": [1, 2, 0],
      "rotation": [0, 0, 0.70710677, 0.70710677], "scale": [2, 1, 1],
      "components": [ { "id": "script", "properties": { "speed": 3.5, "target": [1, 2, 3], "team": "hash:red" } } ],
      "children": [ { "id": "sword", "position": [0, 0.5, 0], "components": [
        { "id": "label", "type": "label", "text": "hi", "pivot": "PIVOT_W", "color": [1, 0.5, 0.25, 1],
          "size": 14, "position": [4, 5, 0], "world_size": true, "outline": [0, 0, 0, 1] },
        { "id": "model", "type": "model", "mesh": "/m.glb", "material": "/m.material",
          "textures": { "tex0": "/t.png" }, "rotation": [0, 1, 0, 0] } ] } ] } ],
  "collections": [ { "id": "level", "collection": "/main/level.collection", "position": [10, 0, 0],
      "overrides": [ { "id": "door", "components": [ { "id": "script", "properties": { "speed": 2 } } ] } ] } ] }"#;

const FILES: &[(&str, &str)] = &[
    ("/main/hero.go", "components {\n  id: \"script\"\n  component: \"/main/hero.script\"\n}\n"),
    ("/main/hero.script", "go.property('speed', 1)\n"),
    (
        "/main/level.collection",
        "name: \"level\"\nembedded_instances {\n  id: \"door\"\n  data: \"components { id: \\\"script\\\" component: \\\"/main/hero.script\\\" }\"\n}\n",
    ),
];

#[test]
fn a_defold_collection_loads_as_its_json_twin() {
    let mut files = FILES.to_vec();
    files.push(("/main/main.collection", DEFOLD_COLLECTION));
    files.push(("/main/twin.collection", JSON_COLLECTION));
    let p = Project::new(&files);
    let defold = p.load("/main/main.collection").unwrap();
    let twin = p.load("/main/twin.collection").unwrap();
    assert_eq!(shape(&defold).replace("/main/main.collection", "/main/twin.collection"), shape(&twin));
    let paths: Vec<_> = defold.objects.iter().map(|o| (o.path.as_str(), o.parent)).collect();
    assert_eq!(paths, [("/hero", None), ("/sword", Some(0)), ("/level/door", None)]);
    let ComponentKind::Label(label) = &defold.objects[1].components[0].kind else { panic!("not a label") };
    assert_eq!(label.position, [4.0, 5.0, 0.0], "a label keeps its offset");
    let ComponentKind::Model(model) = &defold.objects[1].components[1].kind else { panic!("not a model") };
    assert_eq!(model.transform.rotation, [0.0, 1.0, 0.0, 0.0], "a model keeps its rotation");
    assert_eq!(model.skeleton, "/m.glb", "an empty skeleton means the mesh's");
    let ComponentKind::Script { properties, .. } = &defold.objects[2].components[0].kind else { panic!("no script") };
    let speed: Vec<_> = properties.iter().map(|(k, v)| (k.as_str(), v.value.clone())).collect();
    assert_eq!(speed, [("speed", PropertyValue::Number(2.0))], "instance_properties reach the door");
}

#[test]
fn component_transforms_in_sinew_json() {
    let p = Project::new(&[(
        "/c.collection",
        r#"{ "objects": [ { "id": "a", "components": [
            { "id": "l", "type": "label", "text": "x", "position": [1, 2, 3] },
            { "id": "m", "type": "model", "mesh": "/m.glb", "euler": [0, 90, 0], "scale": [2, 2, 2] } ] } ] }"#,
    )]);
    let c = p.load("/c.collection").unwrap();
    let ComponentKind::Label(l) = &c.objects[0].components[0].kind else { panic!("not a label") };
    assert_eq!(l.position, [1.0, 2.0, 3.0]);
    let ComponentKind::Model(m) = &c.objects[0].components[1].kind else { panic!("not a model") };
    let q = glam::Quat::from_array(m.transform.rotation);
    assert!(q.abs_diff_eq(glam::Quat::from_rotation_y(90f32.to_radians()), 1e-6), "{q}");
    assert_eq!(m.transform.scale, [2.0; 3]);
    assert!(m.transform.matrix().is_some());
    assert_eq!(ComponentTransform::IDENTITY.matrix(), None);
    // A label's scale is its `scale` property's first value; a camera has none.
    let scaled = Project::new(&[(
        "/c.collection",
        "{ \"objects\": [ { \"id\": \"a\", \"components\": [\n  { \"id\": \"l\", \"type\": \"label\", \"scale\": [2, 3, 1] } ] } ] }",
    )]);
    let c = scaled.load("/c.collection").unwrap();
    let ComponentKind::Label(l) = &c.objects[0].components[0].kind else { panic!("not a label") };
    assert_eq!(l.scale, [2.0, 3.0, 1.0]);
    let bad = Project::new(&[(
        "/c.collection",
        "{ \"objects\": [ { \"id\": \"a\", \"components\": [\n  { \"id\": \"c\", \"type\": \"camera\", \"scale\": [2, 2, 2] } ] } ] }",
    )]);
    let e = bad.load("/c.collection").unwrap_err();
    assert!(e.message.contains("field 'scale' does not apply to camera component 'c'"), "{e}");
}

/// LabelDesc as Defold writes it (vector4 `size` and `scale`): `size.x` wraps with
/// `line_break`, the label's scale times the component's is its scale, leading, tracking and
/// shadow are kept, the font is the label's.
#[test]
fn a_defold_label_keeps_its_wrap_scale_and_font() {
    let label = "size {\n  x: 300.0\n  y: 32.0\n  z: 0.0\n  w: 0.0\n}\nscale {\n  x: 0.5\n  y: 0.5\n  z: 1.0\n  w: 0.0\n}\nshadow {\n  x: 1.0\n  y: 0.0\n  z: 0.0\n  w: 0.5\n}\nleading: 1.5\ntracking: 0.1\nline_break: true\ntext: \"a b\"\nfont: \"/f.font\"\nmaterial: \"/builtins/fonts/label-df.material\"\n";
    let p = Project::new(&[
        ("/w.label", label),
        (
            "/f.font",
            "font: \"/builtins/fonts/DejaVuSans.ttf\"\nmaterial: \"/builtins/fonts/font.material\"\nsize: 40\noutline_width: 2.0\n",
        ),
        ("/game.project", "[bootstrap]\nmain_collection = /c.collectionc\n"),
        (
            "/c.collection",
            "embedded_instances {\n  id: \"a\"\n  data: \"components { id: \\\"l\\\" component: \\\"/w.label\\\" scale { x: 2.0 y: 4.0 z: 1.0 } }\\n\"\n}\n",
        ),
    ]);
    let c = p.load("/c.collection").unwrap();
    let ComponentKind::Label(l) = &c.objects[0].components[0].kind else { panic!("not a label") };
    assert_eq!((l.size, l.layout.wrap, l.scale), (40.0, Some(300.0), [1.0, 2.0, 1.0]));
    assert_eq!((l.layout.leading, l.layout.tracking, l.shadow), (1.5, 0.1, [1.0, 0.0, 0.0, 0.5]));
    assert_eq!(l.layout.font.as_ref().map(|f| f.font.outline_width), Some(2.0));
    assert!(l.layout.world_size, "Defold's labels are sized in world units");
}

#[test]
fn errors_point_into_embedded_data_and_all_are_reported() {
    let text = "name: \"main\"\nembedded_instances {\n  id: \"a\"\n  children: \"ghost\"\n  data: \"embedded_components {\\n\"\n  \"  id: \\\"s\\\"\\n\"\n  \"  type: \\\"spinemodel\\\"\\n\"\n  \"  data: \\\"\\\"\\n\"\n  \"}\\n\"\n  \"embedded_components {\\n\"\n  \"  id: \\\"s2\\\"\\n\"\n  \"  type: \\\"spinemodel\\\"\\n\"\n  \"  data: \\\"\\\"\\n\"\n  \"}\\n\"\n  \"components {\\n\"\n  \"  id: \\\"c\\\"\\n\"\n  \"  component: \\\"/x.script\\\"\\n\"\n  \"  colour: 1\\n\"\n  \"}\\n\"\n}\n";
    let p = Project::new(&[("/main/main.collection", text)]);
    let loaded = load_collection_all(&p.res(), "/main/main.collection");
    let all: Vec<String> =
        loaded.problems.iter().flat_map(|e| e.to_string().lines().map(String::from).collect::<Vec<_>>()).collect();
    assert!(
        all.contains(&"/main/main.collection:4:3: 'a' has a child 'ghost' that is not in this collection".to_string()),
        "{all:?}"
    );
    // One error for the kind, not one per component.
    assert_eq!(all.iter().filter(|e| e.contains("spinemodel components are not supported yet")).count(), 1, "{all:?}");
    assert!(all.iter().any(|e| e.starts_with("/main/main.collection:7:6: spinemodel components")), "{all:?}");
    assert!(
        all.iter().any(|e| e.starts_with("/main/main.collection:18:6: unknown field `colour` in a component")),
        "{all:?}"
    );
}

#[test]
fn models_and_component_files() {
    let p = Project::new(&[
        (
            "/m.model",
            "mesh: \"/m.glb\"\nmaterial: \"/builtins/materials/model.material\"\ntextures: \"/t.png\"\nanimations: \"/a.glb\"\ndefault_animation: \"run\"\ncreate_go_bones: false\ncast_shadows: false\n",
        ),
        (
            "/two.model",
            "mesh: \"/m.glb\"\nmaterials { name: \"a\" material: \"/a.material\" }\nmaterials { name: \"b\" material: \"/b.material\" }\n",
        ),
        (
            "/skinned_and_not.model",
            "mesh: \"/m.glb\"\nmaterials { name: \"a\" material: \"/builtins/materials/model_skinned.material\" }\nmaterials { name: \"b\" material: \"/builtins/materials/model.material\" }\n",
        ),
        ("/l.label", "text: \"score\"\nfont: \"/f.font\"\nsize { x: 100 y: 20 }\n"),
        (
            "/f.font",
            "font: \"/builtins/fonts/DejaVuSans.ttf\"\nmaterial: \"/builtins/fonts/font.material\"\nsize: 28\n",
        ),
        (
            "/c.camera",
            "aspect_ratio: 1.0\nfov: 0.5\nnear_z: -1.0\nfar_z: 1.0\northographic_projection: 1\northographic_zoom: 2.0\northographic_mode: ORTHO_MODE_AUTO_COVER\n",
        ),
        ("/f.factory", "prototype: \"/p.go\"\n"),
        ("/p.go", "components {\n  id: \"l\"\n  component: \"/l.label\"\n}\n"),
        ("/game.project", "[bootstrap]\nmain_collection = /c.collectionc\n[display]\nwidth = 600\nheight = 400\n"),
        (
            "/c.collection",
            "embedded_instances {\n  id: \"a\"\n  data: \"components { id: \\\"cam\\\" component: \\\"/c.camera\\\" }\\ncomponents { id: \\\"f\\\" component: \\\"/f.factory\\\" }\\ncomponents { id: \\\"l\\\" component: \\\"/l.label\\\" }\\n\"\n}\n",
        ),
    ]);
    let m = load_model_file(&p.res(), "/m.model").unwrap();
    assert_eq!(m.textures, [("tex0".to_string(), "/t.png".to_string())]);
    assert_eq!((m.animations.as_slice(), m.create_go_bones), (["/a.glb".to_string()].as_slice(), false));
    assert_eq!((m.cast_shadows, m.receive_shadows), (false, true), "Sinew's own field in Defold's format");
    assert_eq!(m.default_animation.map(|d| d.value).as_deref(), Some("run"));
    let e = load_model_file(&p.res(), "/two.model").unwrap_err();
    assert!(e.to_string().starts_with("/two.model:3:23: a model with several materials"), "{e}");
    // Defold's skinned and plain built-in materials are Sinew's one model material.
    let m = load_model_file(&p.res(), "/skinned_and_not.model").expect("one material in Sinew");
    assert_eq!(m.material, "/builtins/materials/model_skinned.material");
    let c = p.load("/c.collection").unwrap();
    let kinds = &c.objects[0].components;
    let ComponentKind::Camera(cam) = &kinds[0].kind else { panic!("not a camera") };
    // Zoom 1 shows the display's height (400 here); the file's zoom 2 is kept as the zoom.
    assert_eq!(
        (cam.fov, cam.near, cam.far, cam.orthographic, cam.ortho_height, cam.zoom),
        (0.5, -1.0, 1.0, true, 400.0, 2.0)
    );
    // The auto modes fit or cover the display's 600 x 400.
    assert_eq!((cam.ortho_mode, cam.design_aspect), (OrthoMode::AutoCover, 1.5));
    let ComponentKind::Factory(f) = &kinds[1].kind else { panic!("not a factory") };
    assert_eq!(f.prototype, "/p.go");
    let ComponentKind::Label(l) = &kinds[2].kind else { panic!("not a label") };
    assert_eq!((l.text.as_str(), l.size), ("score", 28.0), "a label's size is its font's");
    assert_eq!(l.layout.font.as_ref().map(|f| (f.path.as_str(), f.font.size)), Some(("/f.font", 28.0)));
    assert_eq!(l.layout.wrap, None, "size.x wraps only with line_break");
    // Colours the file leaves out are Defold's defaults: white text, black outline and shadow.
    assert_eq!((l.color, l.outline, l.shadow), ([1.0; 4], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0]));
}

/// Defold takes any camera fov, and shipped 2D games (whose render scripts set their own
/// projection) hold `fov: 45.0`, meant as degrees: such a perspective camera loads with Sinew's
/// default fov (and a warning); an orthographic one keeps it, unused; a NaN is still refused.
#[test]
fn a_camera_fov_in_degrees_loads_with_the_default_fov() {
    let camera = |fields: &str| {
        let p = Project::new(&[
            ("/c.camera", fields),
            (
                "/c.collection",
                "embedded_instances {\n  id: \"a\"\n  data: \"components { id: \\\"cam\\\" component: \\\"/c.camera\\\" }\\n\"\n}\n",
            ),
        ]);
        p.load("/c.collection").map(|c| match &c.objects[0].components[0].kind {
            ComponentKind::Camera(cam) => (cam.fov, cam.orthographic, cam.near),
            _ => panic!("not a camera"),
        })
    };
    let default = crate::project::collection::DEFAULT_FOV;
    assert_eq!(camera("fov: 45.0\nnear_z: 0.1\nfar_z: 1000.0\n").expect("loads"), (default, false, 0.1));
    assert_eq!(camera("fov: -1.0\nnear_z: 0.1\nfar_z: 1000.0\n").expect("loads"), (default, false, 0.1));
    assert_eq!(camera("fov: 1.0\nnear_z: 0.1\nfar_z: 1000.0\n").expect("loads"), (1.0, false, 0.1));
    assert_eq!(camera("fov: 45.0\northographic_projection: 1\n").expect("loads"), (45.0, true, 0.1));
    // defold/sample-lights-and-shadows: a perspective camera with an orthographic one's planes.
    let near = crate::project::collection::DEFAULT_NEAR;
    assert_eq!(camera("fov: 0.5\nnear_z: -5.0\nfar_z: 5.0\n").expect("loads"), (0.5, false, near));
    assert_eq!(camera("near_z: -5.0\nfar_z: 5.0\northographic_projection: 1\n").expect("loads").2, -5.0);
    let e = camera("fov: nan\nnear_z: 0.1\nfar_z: 1000.0\n").expect_err("refused");
    assert!(e.to_string().contains("camera values must be finite numbers"), "{e}");
}

/// geekhunger/cavemen-defold ships a camera with `near_z: 1.0` and `far_z: -1.0`, which Defold
/// takes (its render script sets its own projection): it loads (with a warning), its far plane
/// 1000 units beyond the near one.
#[test]
fn a_camera_far_plane_before_its_near_plane_loads() {
    let p = Project::new(&[
        ("/c.camera", "fov: 1.57\nnear_z: 1.0\nfar_z: -1.0\n"),
        (
            "/c.collection",
            "embedded_instances {\n  id: \"a\"\n  data: \"components { id: \\\"cam\\\" component: \\\"/c.camera\\\" }\\n\"\n}\n",
        ),
    ]);
    let loaded = p.load("/c.collection").expect("loads");
    let ComponentKind::Camera(cam) = &loaded.objects[0].components[0].kind else { panic!("not a camera") };
    assert_eq!((cam.near, cam.far), (1.0, 1001.0));
}

/// No `[input] game_binding`: the project's own `/input/game.input_binding` (Defold's default),
/// or, when the project has none, the built-in binding of every key (where Defold would stop).
#[test]
fn the_default_game_binding_is_the_projects_own_when_it_has_one() {
    use crate::project::defold::game_project::{ALL_BINDING, DEFAULT_BINDING, load};
    let settings = "[bootstrap]\nmain_collection = /main/main.collectionc\n";
    let own = Project::new(&[("/game.project", settings), ("/input/game.input_binding", "")]);
    assert_eq!(load(&own.res()).expect("loads").input, DEFAULT_BINDING);
    let none = Project::new(&[("/game.project", settings)]);
    assert_eq!(load(&none.res()).expect("loads").input, ALL_BINDING);
}

/// Defold's editor saves a game object without components as an empty `.go` file (Defold's own
/// physics/box2d_dynamic_scale example holds one): an instance of it loads with nothing.
#[test]
fn an_empty_go_file_is_a_game_object_without_components() {
    let p = Project::new(&[
        ("/e.go", ""),
        ("/blank.go", "\n  \n"),
        (
            "/c.collection",
            "instances {\n  id: \"a\"\n  prototype: \"/e.go\"\n}\ninstances {\n  id: \"b\"\n  prototype: \"/blank.go\"\n}\n",
        ),
    ]);
    let c = p.load("/c.collection").expect("loads");
    let ids: Vec<(&str, usize)> = c.objects.iter().map(|o| (o.path.as_str(), o.components.len())).collect();
    assert_eq!(ids, [("/a", 0), ("/b", 0)]);
}

/// Defold's light components (their data a `google.protobuf.Struct`) become Sinew lights: kind,
/// colour and intensity, a point or spot light's range and a spot light's cone.
#[test]
fn light_components_become_sinew_lights() {
    let light = |ty: &str, rgb: [f32; 3], intensity: f32| {
        format!(
            "embedded_components {{\n  id: \"{ty}\"\n  type: \"{ty}\"\n  data: \"data {{\\n  struct {{\\n    fields {{\\n      key: \\\"color\\\"\\n      value {{\\n        list {{\\n          values {{ number: {} }}\\n          values {{ number: {} }}\\n          values {{ number: {} }}\\n        }}\\n      }}\\n    }}\\n    fields {{\\n      key: \\\"intensity\\\"\\n      value {{ number: {intensity} }}\\n    }}\\n    fields {{\\n      key: \\\"range\\\"\\n      value {{ number: 10.0 }}\\n    }}\\n  }}\\n}}\\n\"\n}}\n",
            rgb[0], rgb[1], rgb[2]
        )
    };
    let go = light("directional_light", [1.0, 0.5, 0.25], 0.7)
        + &light("ambient_light", [0.2, 0.3, 0.4], 0.5)
        + &light("spot_light", [1.0, 1.0, 0.0], 2.0);
    let p = Project::new(&[
        ("/lights.go", &go),
        ("/main.collection", "name: \"main\"\ninstances {\n  id: \"lights\"\n  prototype: \"/lights.go\"\n}\n"),
    ]);
    let c = p.load("/main.collection").unwrap();
    let lights: Vec<(String, LightSpec)> = c.objects[0]
        .components
        .iter()
        .filter_map(|c| match &c.kind {
            ComponentKind::Light(l) => Some((c.id.clone(), l.clone())),
            _ => None,
        })
        .collect();
    let spec =
        |kind, color, intensity, range| LightSpec { kind, color, intensity, range, inner_cone: 0.0, outer_cone: 0.0 };
    // Only point (and spot) lights reach as far as their `range`.
    assert_eq!(
        lights,
        vec![
            ("directional_light".to_string(), spec(LightKind::Directional, [1.0, 0.5, 0.25], 0.7, 0.0)),
            ("ambient_light".to_string(), spec(LightKind::Ambient, [0.2, 0.3, 0.4], 0.5, 0.0)),
            (
                "spot_light".to_string(),
                LightSpec { inner_cone: 30.0, outer_cone: 45.0, ..spec(LightKind::Spot, [1.0, 1.0, 0.0], 2.0, 10.0) }
            ),
        ]
    );
}

/// An embedded component whose `data` is empty lacks its required fields where `data` is.
#[test]
fn an_empty_embedded_mesh_is_reported_at_its_data() {
    let text = "name: \"main\"\nembedded_instances {\n  id: \"a\"\n  data: \"embedded_components {\\n\"\n  \"  id: \\\"m\\\"\\n\"\n  \"  type: \\\"mesh\\\"\\n\"\n  \"  data: \\\"\\\"\\n\"\n  \"}\\n\"\n}\n";
    let p = Project::new(&[("/main/main.collection", text)]);
    let loaded = load_collection_all(&p.res(), "/main/main.collection");
    let all: Vec<String> = loaded.problems.iter().map(ToString::to_string).collect();
    assert!(
        all.iter().any(|e| e.starts_with("/main/main.collection:7:") && e.contains("a mesh needs `vertices`")),
        "{all:?}"
    );
    assert!(all.iter().any(|e| e.contains("a mesh needs `material`")), "{all:?}");
}

/// Older Defold projects name the built-in meshes as Collada files (selimanac's daabbcc
/// platformer: `/builtins/assets/meshes/quad.dae`): they are Sinew's glTF built-ins of the same
/// shape. Any other `.dae` is refused where it is written, naming the way out.
#[test]
fn builtin_collada_meshes_are_the_gltf_builtins_and_other_collada_is_refused() {
    let p = Project::new(&[
        ("/q.model", "mesh: \"/builtins/assets/meshes/quad.dae\"\nmaterial: \"/builtins/materials/model.material\"\n"),
        (
            "/s.model",
            "mesh: \"/builtins/assets/meshes/sphere.dae\"\nmaterial: \"/builtins/materials/model.material\"\n",
        ),
        ("/own.model", "mesh: \"/meshes/ship.dae\"\nmaterial: \"/builtins/materials/model.material\"\n"),
    ]);
    assert_eq!(load_model_file(&p.res(), "/q.model").unwrap().mesh, "/builtins/assets/gltf/quad.gltf");
    assert_eq!(load_model_file(&p.res(), "/s.model").unwrap().mesh, "/builtins/assets/gltf/sphere.gltf");
    let e = load_model_file(&p.res(), "/own.model").unwrap_err().to_string();
    assert!(e.starts_with("/own.model:1:7: '/meshes/ship.dae' is a Collada model, which Sinew does not read"), "{e}");
}

/// `text` as a Defold string literal (what `data:` fields hold).
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n"))
}

/// Found by `tests/fuzz.rs` (fuzz_defold_project_files): a rotation component past 1.8e19 is
/// finite in single precision but its square is not, and normalising it there gave a zero
/// quaternion that turned every transform under it into NaN; a number past f32's range gave
/// an infinite position.
#[test]
fn huge_rotations_normalise_and_numbers_past_f32_are_refused() {
    let collection = |r: &str, position: &str| {
        let shape = format!(
            "type: COLLISION_OBJECT_TYPE_STATIC\nembedded_collision_shape {{\n  shapes {{\n    shape_type: TYPE_SPHERE\n    \
             rotation {{ x: {r} w: 1.0 }}\n    index: 0\n    count: 1\n  }}\n  data: 2.0\n}}\n"
        );
        let component = format!(
            "embedded_components {{\n  id: \"co\"\n  type: \"collisionobject\"\n  data: {}\n  rotation {{ z: {r} w: 1.0 }}\n}}\n",
            quoted(&shape)
        );
        let instance = format!(
            "embedded_instances {{\n  id: \"a\"\n  data: {}\n  position {{ x: {position} }}\n  rotation {{ y: {r} w: 1.0 }}\n}}\n",
            quoted(&component)
        );
        format!("name: \"main\"\n{instance}")
    };
    let p = Project::new(&[("/main/main.collection", &collection("18446744073709551616", "1.0"))]);
    let spec = p.load("/main/main.collection").unwrap_or_else(|e| panic!("{e}"));
    let unit = |q: [f32; 4]| q.iter().all(|x| x.is_finite()) && (glam::Quat::from_array(q).length() - 1.0).abs() < 1e-5;
    let o = &spec.objects[0];
    assert!(unit(o.rotation) && (o.rotation[1] - 1.0).abs() < 1e-5, "{:?}", o.rotation);
    let ComponentKind::CollisionObject(co) = &o.components[0].kind else { panic!("{:?}", o.components[0].kind) };
    // The component's turn (z) and the shape's (x), a half turn each about its axis: together
    // a half turn about y.
    let r = co.shapes[0].rotation;
    assert!(unit(r) && (r[1].abs() - 1.0).abs() < 1e-5, "{r:?}");

    let p = Project::new(&[("/main/main.collection", &collection("0.0", "1e39"))]);
    let all = load_collection_all(&p.res(), "/main/main.collection").problems;
    let all: Vec<String> = all.iter().map(ToString::to_string).collect();
    assert!(all.iter().any(|e| e.contains("`position.x` must be finite")), "{all:?}");
}
