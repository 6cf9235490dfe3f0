use super::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A throwaway project folder, removed again when the test ends.
struct Project(PathBuf);

impl Project {
    fn new(files: &[(&str, &str)]) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("sinew_coll_{}_{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let full = dir.join(path.trim_start_matches('/'));
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        std::fs::create_dir_all(&dir).unwrap();
        Project(dir)
    }

    fn load(&self, path: &str) -> Result<CollectionSpec, LoadError> {
        load_collection(&Resources::open_dir(&self.0).unwrap(), path)
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Loads `/main/main.collection` with the given text (plus a script) and expects an error.
fn error_of(collection: &str) -> LoadError {
    let p = Project::new(&[("/main/main.collection", collection), ("/main/a.script", "")]);
    p.load("/main/main.collection").unwrap_err()
}

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4)
}

fn values(props: &[(String, Located<PropertyValue>)]) -> Vec<(String, PropertyValue)> {
    props.iter().map(|(k, v)| (k.clone(), v.value.clone())).collect()
}

const MAIN: &str = r#"{
  "name": "main",
  "objects": [
{
  "id": "hero",
  "position": [0, 0, 0],
  "rotation": [0, 0, 0, 1],
  "scale": [1, 1, 1],
  "prototype": "/main/hero.go",
  "components": [
    { "id": "script", "type": "script", "script": "/main/hero.script",
      "properties": { "speed": 3.0, "target": [1, 2, 3] } },
    { "id": "model", "type": "model", "model": "/main/hero.model" }
  ],
  "children": [ { "id": "sword", "position": [0.2, 1, 0], "components": [] } ]
}
  ],
  "collections": [
{ "id": "level", "collection": "/main/level.collection", "position": [10, 0, 0] }
  ]
}"#;

const MODEL: &str = r#"{
  "mesh": "/models/wiggler.glb",
  "skeleton": "/models/wiggler.glb",
  "animations": ["/models/wiggler.glb", "/models/extra_moves.glb"],
  "default_animation": "wiggle",
  "material": "/builtins/materials/model.material",
  "textures": { "tex0": "/models/wiggler.png" },
  "create_go_bones": true
}"#;

fn example() -> Project {
    Project::new(&[
        ("/main/main.collection", MAIN),
        (
            "/main/hero.go",
            r#"{ "components": [ { "id": "script", "type": "script", "script": "/main/hero.script" } ] }"#,
        ),
        ("/main/hero.script", "function update(self, dt) end"),
        ("/main/hero.model", MODEL),
        ("/main/level.collection", r#"{ "objects": [ { "id": "door", "position": [1, 0, 0] } ] }"#),
    ])
}

#[test]
fn full_example_from_the_spec() {
    let c = example().load("/main/main.collection").unwrap();
    assert_eq!(c.name, "main");
    let paths: Vec<_> = c.objects.iter().map(|o| (o.path.as_str(), o.collection_prefix.as_str(), o.parent)).collect();
    assert_eq!(paths, [("/hero", "/", None), ("/sword", "/", Some(0)), ("/level/door", "/level/", None)]);
    let hero = &c.objects[0];
    assert_eq!(hero.components.len(), 2);
    let ComponentKind::Script { script, properties } = &hero.components[0].kind else { panic!() };
    assert_eq!(script, "/main/hero.script");
    let expected = [
        ("speed".to_string(), PropertyValue::Number(3.0)),
        ("target".to_string(), PropertyValue::Vector3([1.0, 2.0, 3.0])),
    ];
    assert_eq!(values(properties), expected);
    let ComponentKind::Model(m) = &hero.components[1].kind else { panic!() };
    assert_eq!(m.source, "/main/hero.model");
    assert_eq!(m.animations, ["/models/wiggler.glb", "/models/extra_moves.glb"]);
    assert_eq!(m.default_animation.as_ref().map(|a| a.value.as_str()), Some("wiggle"));
    let at = m.default_animation.as_ref().and_then(|a| a.at.as_ref()).map(|p| (p.resource.as_str(), p.line));
    assert_eq!(at, Some(("/main/hero.model", 5)));
    assert_eq!(m.textures, [("tex0".to_string(), "/models/wiggler.png".to_string())]);
    assert_eq!(c.objects[1].position, [0.2, 1.0, 0.0]);
    assert!(close(&c.objects[2].position, &[11.0, 0.0, 0.0]));
}

#[test]
fn defaults() {
    let p = Project::new(&[(
        "/c.collection",
        r#"{ "objects": [ { "id": "a", "components": [
            { "id": "m", "type": "model", "mesh": "/m.glb" },
            { "id": "c", "type": "camera" },
            { "id": "l", "type": "light" } ] } ] }"#,
    )]);
    let c = p.load("/c.collection").unwrap();
    assert_eq!(c.name, "default");
    let o = &c.objects[0];
    assert_eq!((o.position, o.rotation, o.scale), ([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
    let model = ModelSpec {
        source: "/c.collection".into(),
        mesh: "/m.glb".into(),
        skeleton: "/m.glb".into(),
        animations: vec!["/m.glb".into()],
        default_animation: None,
        material: DEFAULT_MODEL_MATERIAL.into(),
        textures: vec![],
        create_go_bones: true,
        rig_extras: Box::default(),
        joint_limits: vec![],
        transform: Box::default(),
        cast_shadows: true,
        receive_shadows: true,
    };
    assert_eq!(o.components[0].kind, ComponentKind::Model(model));
    let cam = CameraSpec {
        fov: DEFAULT_FOV,
        near: 0.1,
        far: 1000.0,
        orthographic: false,
        ortho_height: 10.0,
        zoom: 1.0,
        ortho_mode: OrthoMode::Fixed,
        design_aspect: 0.0,
    };
    assert_eq!(o.components[1].kind, ComponentKind::Camera(cam));
    let light = LightSpec {
        kind: LightKind::Directional,
        color: [1.0; 3],
        intensity: 1.0,
        range: 0.0,
        inner_cone: 0.0,
        outer_cone: 0.0,
    };
    assert_eq!(o.components[2].kind, ComponentKind::Light(light));
    let empty = Project::new(&[("/e.collection", "{}")]);
    assert!(empty.load("/e.collection").unwrap().objects.is_empty());
}

#[test]
fn nested_children_keep_parents_first() {
    let p = Project::new(&[(
        "/c.collection",
        r#"{ "objects": [
            { "id": "a", "children": [ { "id": "b", "children": [ { "id": "c" } ] }, { "id": "d" } ] },
            { "id": "e", "components": [ { "id": "light", "type": "light", "kind": "point", "intensity": 2 } ] } ] }"#,
    )]);
    let c = p.load("/c.collection").unwrap();
    let got: Vec<_> = c.objects.iter().map(|o| (o.path.as_str(), o.parent)).collect();
    assert_eq!(got, [("/a", None), ("/b", Some(0)), ("/c", Some(1)), ("/d", Some(0)), ("/e", None)]);
    let ComponentKind::Light(l) = &c.objects[4].components[0].kind else { panic!() };
    assert_eq!((l.kind, l.intensity, l.range), (LightKind::Point, 2.0, 0.0));
}

#[test]
fn a_spot_light_keeps_its_cone_and_a_bad_one_is_refused() {
    let light = |fields: &str| {
        format!(
            r#"{{ "objects": [ {{ "id": "e", "components": [ {{ "id": "lamp", "type": "light", {fields} }} ] }} ] }}"#
        )
    };
    let load = |fields: &str| Project::new(&[("/c.collection", light(fields).as_str())]).load("/c.collection");
    let c = load(r#""kind": "spot", "inner_cone_angle": 10, "outer_cone_angle": 25"#).unwrap();
    let ComponentKind::Light(l) = &c.objects[0].components[0].kind else { panic!() };
    assert_eq!((l.kind, l.inner_cone, l.outer_cone), (LightKind::Spot, 10.0, 25.0));
    let c = load(r#""kind": "spot""#).unwrap();
    let ComponentKind::Light(l) = &c.objects[0].components[0].kind else { panic!() };
    assert_eq!([l.inner_cone, l.outer_cone], crate::project::types::DEFAULT_SPOT_CONE);
    for (fields, needle) in [
        (
            r#""kind": "spot", "inner_cone_angle": 30, "outer_cone_angle": 20"#,
            "0 <= inner_cone_angle <= outer_cone_angle <= 90",
        ),
        (r#""kind": "spot", "outer_cone_angle": 120"#, "<= 90 degrees"),
        (r#""kind": "point", "outer_cone_angle": 20"#, "cone angles are for spot lights"),
    ] {
        let e = load(fields).unwrap_err().to_string();
        assert!(e.contains("light 'lamp'") && e.contains(needle), "{fields}: {e}");
    }
}

#[test]
fn a_light_range_is_kept_and_a_negative_one_refused() {
    let light = |range: &str| {
        format!(
            r#"{{ "objects": [ {{ "id": "e", "components": [ {{ "id": "lamp", "type": "light", "kind": "point", "range": {range} }} ] }} ] }}"#
        )
    };
    let ok = light("12.5");
    let p = Project::new(&[("/c.collection", ok.as_str())]);
    let c = p.load("/c.collection").unwrap();
    let ComponentKind::Light(l) = &c.objects[0].components[0].kind else { panic!() };
    assert_eq!(l.range, 12.5);
    let bad = light("-1");
    let p = Project::new(&[("/c.collection", bad.as_str())]);
    let e = p.load("/c.collection").unwrap_err().to_string();
    assert!(e.contains("light 'lamp': range must be a number >= 0 (got -1)"), "{e}");
}

#[test]
fn prototype_components_are_merged_by_id() {
    let p = Project::new(&[
        ("/a.script", ""),
        ("/b.script", ""),
        (
            "/hero.go",
            r#"{ "components": [
                { "id": "script", "type": "script", "script": "/a.script",
                  "properties": { "speed": 1, "name": "x", "tag": "hash:hero" } },
                { "id": "cam", "type": "camera", "fov": 1.0 } ] }"#,
        ),
        (
            "/c.collection",
            r#"{ "objects": [ { "id": "h", "prototype": "/hero.go", "components": [
                { "id": "script", "properties": { "speed": 5, "home": "url:main:/base#script", "tint": [1, 0, 0, 1] } },
                { "id": "cam", "near": 0.5 },
                { "id": "extra", "type": "script", "script": "/b.script" } ] },
              { "id": "plain", "prototype": "/hero.go" } ] }"#,
        ),
    ]);
    let c = p.load("/c.collection").unwrap();
    let comps = &c.objects[0].components;
    let ids: Vec<_> = comps.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["script", "cam", "extra"]);
    let ComponentKind::Script { script, properties } = &comps[0].kind else { panic!() };
    assert_eq!(script, "/a.script");
    let expected = [
        ("speed".to_string(), PropertyValue::Number(5.0)),
        ("name".to_string(), PropertyValue::String("x".into())),
        ("tag".to_string(), PropertyValue::Hash("hero".into())),
        ("home".to_string(), PropertyValue::Url("main:/base#script".into())),
        ("tint".to_string(), PropertyValue::Vector4([1.0, 0.0, 0.0, 1.0])),
    ];
    assert_eq!(values(properties), expected);
    let ComponentKind::Camera(cam) = &comps[1].kind else { panic!() };
    assert_eq!((cam.fov, cam.near), (1.0, 0.5));
    let ComponentKind::Script { properties, .. } = &c.objects[1].components[0].kind else { panic!() };
    assert_eq!(values(properties)[0], ("speed".to_string(), PropertyValue::Number(1.0)));

    let bad = r#"{ "objects": [ { "id": "h", "prototype": "/hero.go", "components": [ { "id": "script", "type": "light" } ] } ] }"#;
    std::fs::write(p.0.join("c.collection"), bad).unwrap();
    let e = p.load("/c.collection").unwrap_err();
    assert!(e.message.contains("is a script in the prototype but a light here"), "{e}");
    assert_eq!(e.line, Some(1), "{e}");
}

#[test]
fn nested_collection_instances_compose_transforms() {
    let p = Project::new(&[
        (
            "/main.collection",
            r#"{ "name": "world", "objects": [ { "id": "obj" } ], "collections": [
                { "id": "level", "collection": "/level.collection", "position": [10, 0, 0], "euler": [0, 0, 90], "scale": [2, 2, 2] },
                { "id": "outer", "collection": "/outer.collection", "position": [0, 5, 0] } ] }"#,
        ),
        (
            "/level.collection",
            r#"{ "name": "ignored", "objects": [ { "id": "door", "position": [1, 0, 0], "children": [ { "id": "knob", "position": [0, 1, 0] } ] } ] }"#,
        ),
        (
            "/outer.collection",
            r#"{ "collections": [ { "id": "inner", "collection": "/inner.collection", "position": [1, 0, 0] } ] }"#,
        ),
        ("/inner.collection", r#"{ "objects": [ { "id": "obj", "position": [0, 0, 1] } ] }"#),
    ]);
    let c = p.load("/main.collection").unwrap();
    assert_eq!(c.name, "world");
    let got: Vec<_> = c.objects.iter().map(|o| (o.path.as_str(), o.collection_prefix.as_str(), o.parent)).collect();
    let expected = [
        ("/obj", "/", None),
        ("/level/door", "/level/", None),
        ("/level/knob", "/level/", Some(1)),
        ("/outer/inner/obj", "/outer/inner/", None),
    ];
    assert_eq!(got, expected);
    let door = &c.objects[1];
    assert!(close(&door.position, &[10.0, 2.0, 0.0]), "{:?}", door.position);
    assert!(close(&door.rotation, &[0.0, 0.0, 0.70710677, 0.70710677]), "{:?}", door.rotation);
    assert!(close(&door.scale, &[2.0; 3]), "{:?}", door.scale);
    assert_eq!(c.objects[2].position, [0.0, 1.0, 0.0], "children stay relative to their parent");
    assert!(close(&c.objects[3].position, &[1.0, 5.0, 1.0]), "{:?}", c.objects[3].position);
}

/// Defold's `instance_properties`: an outer collection sets the properties of objects inside
/// the instances it places, through deeper instances too, and its word beats theirs.
#[test]
fn a_collection_instance_overrides_the_properties_of_its_objects() {
    let script =
        r#"{ "id": "script", "type": "script", "script": "/a.script", "properties": { "speed": 1, "size": 2 } }"#;
    let room = format!(
        r#"{{ "objects": [ {{ "id": "door", "components": [ {script} ] }} ], "collections": [
            {{ "id": "inner", "collection": "/knob.collection", "overrides": [
                {{ "id": "knob", "components": [ {{ "id": "script", "properties": {{ "speed": 3, "size": 4 }} }} ] }} ] }} ] }}"#
    );
    let knob = format!(r#"{{ "objects": [ {{ "id": "knob", "components": [ {script} ] }} ] }}"#);
    let main = r#"{ "collections": [ { "id": "a", "collection": "/room.collection", "overrides": [
        { "id": "door", "components": [ { "id": "script", "properties": { "speed": 5 } } ] },
        { "id": "inner/knob", "components": [ { "id": "script", "properties": { "speed": 7 } } ] } ] },
        { "id": "b", "collection": "/room.collection" } ] }"#;
    let p = Project::new(&[
        ("/main.collection", main),
        ("/room.collection", &room),
        ("/knob.collection", &knob),
        ("/a.script", ""),
    ]);
    let c = p.load("/main.collection").unwrap();
    let props = |path: &str| {
        let o = c.objects.iter().find(|o| o.path == path).unwrap();
        let ComponentKind::Script { properties, .. } = &o.components[0].kind else { panic!() };
        values(properties)
    };
    let n = |speed: f64, size: f64| {
        vec![("speed".to_string(), PropertyValue::Number(speed)), ("size".to_string(), PropertyValue::Number(size))]
    };
    assert_eq!(props("/a/door"), n(5.0, 2.0));
    assert_eq!(props("/a/inner/knob"), n(7.0, 4.0), "the outermost override wins, the inner one keeps the rest");
    assert_eq!(props("/b/door"), n(1.0, 2.0), "another instance of the same file is untouched");
    assert_eq!(props("/b/inner/knob"), n(3.0, 4.0));

    let wrong = |overrides: &str| {
        let main = format!(
            r#"{{ "collections": [ {{ "id": "r", "collection": "/knob.collection", "overrides": [
            {overrides} ] }} ] }}"#
        );
        let p = Project::new(&[("/main.collection", &main), ("/knob.collection", &knob), ("/a.script", "")]);
        p.load("/main.collection").unwrap_err()
    };
    let e = wrong(r#"{ "id": "nobody", "components": [] }"#);
    assert!(e.message.contains("overrides: collection instance 'r' has no object 'nobody'"), "{e}");
    assert_eq!((e.resource.as_str(), e.line), ("/main.collection", Some(2)), "{e}");
    let e = wrong(r#"{ "id": "knob", "components": [ { "id": "sprite", "properties": { "speed": 1 } } ] }"#);
    assert!(e.message.contains("overrides: object 'knob' has no component 'sprite'"), "{e}");
    assert_eq!((e.resource.as_str(), e.line), ("/main.collection", Some(2)), "{e}");
}

#[test]
fn euler_matches_defold() {
    let q = euler_to_quat([0.0, 0.0, 90.0]);
    assert!(close(&q.to_array(), &[0.0, 0.0, 0.70710677, 0.70710677]), "{q:?}");
    let q = euler_to_quat([90.0, 0.0, 0.0]);
    assert!(close(&q.to_array(), &[0.70710677, 0.0, 0.0, 0.70710677]), "{q:?}");
    // Defold applies Y, then Z, then X.
    let q = euler_to_quat([30.0, 40.0, 50.0]);
    let yzx = Quat::from_rotation_y(40f32.to_radians())
        * Quat::from_rotation_z(50f32.to_radians())
        * Quat::from_rotation_x(30f32.to_radians());
    assert!(close(&q.to_array(), &yzx.to_array()), "{q:?} {yzx:?}");
    let p = Project::new(&[("/c.collection", r#"{ "objects": [ { "id": "a", "euler": [0, 0, 90] } ] }"#)]);
    let o = &p.load("/c.collection").unwrap().objects[0];
    assert!(close(&o.rotation, &[0.0, 0.0, 0.70710677, 0.70710677]));
}

#[test]
fn syntax_and_schema_errors_have_positions() {
    let e = error_of("{\n  \"objects\": [\n    { \"id\": \"a\", }\n  ]\n}");
    assert_eq!(e.resource, "/main/main.collection");
    assert_eq!(e.line, Some(3), "{e}");
    assert!(e.column.is_some());
    let e = error_of("{\n  \"objects\": [\n    { \"id\": \"a\", \"posiiton\": [0, 0, 0] }\n  ]\n}");
    assert!(e.message.contains("unknown field `posiiton`"), "{e}");
    assert!(e.to_string().starts_with("/main/main.collection:3:"), "{e}");
    let e = error_of(r#"{ "objects": [ { "id": "a", "position": "up" } ] }"#);
    assert!(e.message.contains("invalid type"), "{e}");
    assert_eq!(e.line, Some(1));
    let e = error_of(r#"{ "objects": [ { "position": [0, 0, 0] } ] }"#);
    assert!(e.message.contains("missing field `id`"), "{e}");
    let e = error_of(
        "{ \"objects\": [ { \"id\": \"a\",\n \"components\": [ { \"id\": \"s\", \"type\": \"spinemodel\" } ] } ] }",
    );
    assert_eq!(
        e.message,
        "unknown component type 'spinemodel' (expected script, model, camera, light, factory, collectionfactory, collectionproxy, label, sound, collisionobject, sprite, gui, particlefx or tilemap)"
    );
    assert_eq!(e.line, Some(2), "{e}");
    let e = error_of(r#"{ "objects": [ { "id": "a:b" } ] }"#);
    assert!(e.message.contains("must not contain ':'"), "{e}");
    assert!(e.line.is_some());
    // A '/' is taken, as Defold takes it (d954mas' jam game names an object `factory/character`):
    // the object's path is the id under the root.
    let p = Project::new(&[("/main/main.collection", r#"{ "objects": [ { "id": "factory/character" } ] }"#)]);
    let loaded = p.load("/main/main.collection").expect("an id with '/' loads");
    assert_eq!(loaded.objects[0].path, "/factory/character");
    let e = error_of(r#"{ "objects": [ { "id": "a", "rotation": [0, 0, 0, 1], "euler": [0, 0, 0] } ] }"#);
    assert!(e.message.contains("not both"), "{e}");
    assert_eq!(e.column, Some(64), "{e}");
}

#[test]
fn every_problem_is_found_in_one_pass() {
    let text = "{ \"objects\": [\n { \"id\": \"a\" },\n { \"id\": \"a\", \"children\": [ { \"id\": \"kid\" } ] },\n { \"id\": \"r\", \"rotation\": [0, 0, 0, 0], \"components\": [ { \"id\": \"c\", \"type\": \"camera\", \"far\": 0.01 } ] },\n { \"id\": \"p\", \"prototype\": \"/main/none.go\" },\n { \"id\": \"s\", \"components\": [ { \"id\": \"s\", \"type\": \"script\", \"script\": \"/main/a.script\", \"properties\": { \"bad\": null, \"good\": 1 } } ] } ],\n \"collections\": [ { \"id\": \"l\", \"collection\": \"/main/none.collection\" } ] }";
    let p = Project::new(&[("/main/main.collection", text), ("/main/a.script", "")]);
    let res = Resources::open_dir(&p.0).unwrap();
    let loaded = load_collection_all(&res, "/main/main.collection");
    let got: Vec<(Option<usize>, &str)> = loaded.problems.iter().map(|e| (e.line, e.message.as_str())).collect();
    let lines: Vec<Option<usize>> = got.iter().map(|g| g.0).collect();
    assert_eq!(lines, [Some(3), Some(4), Some(4), Some(5), Some(6), Some(7)], "{got:?}");
    assert!(got[0].1.contains("duplicate id 'a'"), "{got:?}");
    assert!(got[1].1.contains("rotation quaternion must not be zero"), "{got:?}");
    assert!(got[2].1.contains("far must be greater than near"), "{got:?}");
    assert!(got[3].1.contains("'/main/none.go' not found"), "{got:?}");
    assert!(got[4].1.contains("property 'bad'"), "{got:?}");
    assert!(got[5].1.contains("'/main/none.collection' not found"), "{got:?}");
    // What loaded is kept: the first 'a' (the duplicate and its child are left out), the
    // objects with problems, and the script with its one good override.
    let paths: Vec<&str> = loaded.spec.objects.iter().map(|o| o.path.as_str()).collect();
    assert_eq!(paths, ["/a", "/r", "/p", "/s"]);
    let ComponentKind::Script { properties, .. } = &loaded.spec.objects[3].components[0].kind else { panic!() };
    assert_eq!(values(properties), [("good".to_string(), PropertyValue::Number(1.0))]);
    assert_eq!(loaded.files, ["/main/main.collection"]);
}

#[test]
fn semantic_errors_name_the_file_and_position() {
    let e =
        error_of("{ \"objects\": [\n { \"id\": \"a\" },\n { \"id\": \"b\", \"children\": [ { \"id\": \"a\" } ] } ] }");
    assert!(e.message.contains("duplicate id 'a'"), "{e}");
    assert_eq!((e.line, e.column), (Some(3), Some(37)), "{e}");
    let e = error_of(r#"{ "objects": [ { "id": "a", "components": [ { "id": "s", "type": "script" } ] } ] }"#);
    assert!(e.message.contains("needs a 'script' path"), "{e}");
    let e = error_of(
        r#"{ "objects": [ { "id": "a", "components": [ { "id": "s", "type": "script", "script": "/main/a.script", "fov": 1 } ] } ] }"#,
    );
    assert!(e.message.contains("field 'fov' does not apply to script component 's'"), "{e}");
    let e = error_of(r#"{ "objects": [ { "id": "a", "components": [ { "id": "s", "type": "model" } ] } ] }"#);
    assert!(e.message.contains("needs 'model' or 'mesh'"), "{e}");
    let e = error_of(
        r#"{ "objects": [ { "id": "a", "components": [ { "id": "c", "type": "camera", "near": 5, "far": 1 } ] } ] }"#,
    );
    assert!(e.message.contains("far must be greater than near"), "{e}");
    let e = error_of(
        "{ \"objects\": [ { \"id\": \"a\", \"components\": [ { \"id\": \"c\", \"type\": \"camera\",\n \"orthographic_mode\": \"sideways\" } ] } ] }",
    );
    assert!(e.message.contains("unknown orthographic_mode 'sideways' (expected fixed, auto_fit or auto_cover)"), "{e}");
    assert_eq!(e.line, Some(2), "{e}");
    let e = error_of(
        "{ \"objects\": [ { \"id\": \"a\", \"components\": [ { \"id\": \"s\", \"type\": \"script\", \"script\": \"/main/a.script\",\n \"properties\": { \"ok\": 1, \"bad\": { \"x\": 1 } } } ] } ] }",
    );
    assert!(e.message.contains("property 'bad'"), "{e}");
    assert_eq!((e.line, e.column), (Some(2), Some(34)), "{e}");
    let e = error_of(
        r#"{ "objects": [ { "id": "a", "components": [ { "id": "s", "type": "script", "script": "/main/a.script", "properties": { "v": [1, 2] } } ] } ] }"#,
    );
    assert!(e.message.contains("property 'v'"), "{e}");
}

#[test]
fn missing_and_escaping_files_name_the_referrer() {
    let e = error_of("{ \"objects\": [\n { \"id\": \"a\", \"prototype\": \"/main/missing.go\" } ] }");
    assert_eq!(e.resource, "/main/main.collection");
    assert_eq!((e.line, e.column), (Some(2), Some(28)), "{e}");
    assert!(e.message.contains("'/main/missing.go' not found"), "{e}");
    let e = error_of(
        r#"{ "objects": [ { "id": "a", "components": [ { "id": "s", "type": "script", "script": "/main/nope.script" } ] } ] }"#,
    );
    assert!(e.message.contains("not found") && e.line.is_some(), "{e}");
    let e = error_of(r#"{ "collections": [ { "id": "x", "collection": "/../x.collection" } ] }"#);
    assert!(e.message.contains("escapes the project root"), "{e}");
    assert_eq!(e.resource, "/main/main.collection");
    let p = Project::new(&[]);
    assert!(p.load("/main/main.collection").unwrap_err().message.contains("not found"));
    let e = p.load("/../x.collection").unwrap_err();
    assert!(e.message.contains("escapes"), "{e}");
    let e = error_of(
        r#"{ "objects": [ { "id": "a", "components": [ { "id": "m", "type": "model", "model": "/main/a.model" } ] } ] }"#,
    );
    assert!(e.message.contains("'/main/a.model' not found"), "{e}");
}

#[test]
fn errors_inside_referenced_files_name_that_file() {
    let p = Project::new(&[
        (
            "/c.collection",
            r#"{ "objects": [ { "id": "a", "prototype": "/a.go", "components": [ { "id": "m", "type": "model", "model": "/a.model" } ] } ] }"#,
        ),
        ("/a.go", "{ \"components\": [\n { \"id\": \"x\", \"type\": \"light\", \"colour\": [1, 1, 1] } ] }"),
        ("/a.model", r#"{ "mesh": "/a.glb" }"#),
    ]);
    let e = p.load("/c.collection").unwrap_err();
    assert_eq!(e.resource, "/a.go");
    assert_eq!(e.line, Some(2));
    assert!(e.message.contains("unknown field `colour`"), "{e}");
    std::fs::write(p.0.join("a.go"), "{}").unwrap();
    std::fs::write(p.0.join("a.model"), r#"{ "skeleton": "/a.glb" }"#).unwrap();
    let e = p.load("/c.collection").unwrap_err();
    assert_eq!((e.resource.as_str(), e.message.as_str()), ("/a.model", "missing field `mesh`"));
}

#[test]
fn cycles_are_named() {
    let p = Project::new(&[
        ("/main/a.collection", r#"{ "collections": [ { "id": "b", "collection": "/main/b.collection" } ] }"#),
        ("/main/b.collection", r#"{ "collections": [ { "id": "a", "collection": "/main//a.collection" } ] }"#),
        ("/main/self.collection", r#"{ "collections": [ { "id": "me", "collection": "/main/self.collection" } ] }"#),
    ]);
    let e = p.load("/main/a.collection").unwrap_err();
    assert_eq!(e.message, "collection cycle: /main/a.collection -> /main/b.collection -> /main/a.collection");
    assert_eq!(e.resource, "/main/b.collection");
    assert!(e.line.is_some());
    let e = p.load("/main/self.collection").unwrap_err();
    assert!(e.message.contains("collection cycle: /main/self.collection -> /main/self.collection"), "{e}");
}

#[test]
fn depth_is_capped() {
    let mut files: Vec<(String, String)> = Vec::new();
    for i in 0..40 {
        let text = format!(r#"{{ "collections": [ {{ "id": "n", "collection": "/c{}.collection" }} ] }}"#, i + 1);
        files.push((format!("/c{i}.collection"), text));
    }
    let refs: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let e = Project::new(&refs).load("/c0.collection").unwrap_err();
    assert!(e.message.contains("nested more than 32 deep"), "{e}");
}

/// Issue 31: an unknown component type was a parse error of the whole file, which hid a missing
/// model and a missing script beside it.
#[test]
fn an_unknown_component_type_does_not_hide_the_other_problems() {
    let text = "{ \"objects\": [ { \"id\": \"a\", \"components\": [\n { \"id\": \"s\", \"type\": \"spinemodel\" },\n \
                { \"id\": \"m\", \"type\": \"model\", \"model\": \"/main/none.model\" },\n \
                { \"id\": \"c\", \"type\": \"script\", \"script\": \"/main/none.script\" },\n \
                { \"id\": \"ok\", \"type\": \"script\", \"script\": \"/main/a.script\" } ] } ] }";
    let p = Project::new(&[("/main/main.collection", text), ("/main/a.script", "")]);
    let loaded = load_collection_all(&Resources::open_dir(&p.0).unwrap(), "/main/main.collection");
    let got: Vec<(Option<usize>, &str)> = loaded.problems.iter().map(|e| (e.line, e.message.as_str())).collect();
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0].0, Some(2), "{got:?}");
    assert!(got[0].1.starts_with("unknown component type 'spinemodel' (expected script, model"), "{got:?}");
    assert!(got[1].1.contains("'/main/none.model' not found"), "{got:?}");
    assert!(got[2].1.contains("'/main/none.script' not found"), "{got:?}");
    let ids: Vec<&str> = loaded.spec.objects[0].components.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["ok"]);
}

/// `depth` files, each with one object and two instances of the next: 2^depth − 1 objects.
fn laughs(depth: usize) -> Vec<(String, String)> {
    (0..depth)
        .map(|i| {
            let next = if i + 1 < depth {
                format!(
                    r#", "collections": [ {{ "id": "x", "collection": "/l{n}.collection" }}, {{ "id": "y", "collection": "/l{n}.collection" }} ]"#,
                    n = i + 1
                )
            } else {
                String::new()
            };
            (format!("/l{i}.collection"), format!(r#"{{ "objects": [ {{ "id": "o" }} ]{next} }}"#))
        })
        .collect()
}

/// Issue 32 "laughs": 22 tiny files expand to 4 million objects (45 s and 3.5 GB before). The
/// count comes from the files alone, each read once, so the refusal costs nothing; within
/// `max_instances` the same nesting loads as before.
#[test]
fn a_collection_expanding_past_max_instances_is_refused_before_loading() {
    let files = laughs(22);
    let refs: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let p = Project::new(&refs);
    let res = Resources::open_dir(&p.0).unwrap();
    let loaded = load_collection_within(&res, "/l0.collection", 1024);
    assert!(loaded.spec.objects.is_empty(), "{} objects made", loaded.spec.objects.len());
    assert_eq!(loaded.problems.len(), 1, "{:?}", loaded.problems);
    let e = loaded.problems[0].to_string();
    assert_eq!(
        e,
        "/l0.collection: collection '/l0.collection' expands to 4194303 game objects (nested collections \
         included), more than max_instances (1024; project.json \"max_instances\" raises it)"
    );
    // The default capacity refuses it too.
    assert!(p.load("/l0.collection").unwrap_err().message.contains("more than max_instances (65536"));
    // Ten levels: 1023 objects fit in 1024.
    assert_eq!(load_collection_within(&res, "/l12.collection", 1023).spec.objects.len(), 1023);
    let e = load_collection_within(&res, "/l12.collection", 1022).problems.remove(0);
    assert!(e.message.contains("expands to 1023 game objects"), "{e}");
}

/// The same through a collection factory: its prototype is flattened at load, so it is counted
/// before it is flattened and refused at the factory's line.
#[test]
fn a_collection_factory_prototype_past_max_instances_is_refused() {
    let mut files = laughs(22);
    files.push((
        "/main.collection".into(),
        "{ \"objects\": [ { \"id\": \"spawner\", \"components\": [\n { \"id\": \"f\", \"type\": \"collectionfactory\", \"prototype\": \"/l0.collection\" } ] } ] }".into(),
    ));
    let refs: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let p = Project::new(&refs);
    let e = p.load("/main.collection").unwrap_err();
    assert_eq!((e.resource.as_str(), e.line), ("/main.collection", Some(2)), "{e}");
    assert!(e.message.contains("collection '/l0.collection' expands to 4194303 game objects"), "{e}");
}

/// Defold leaves some component ids empty (its examples have `id: ""` scripts): such a
/// component loads; an empty object id is still refused where it is written.
#[test]
fn empty_component_ids_load_and_empty_object_ids_do_not() {
    let p = Project::new(&[
        (
            "/main/main.collection",
            r#"{ "objects": [ { "id": "a", "components": [ { "id": "", "type": "script", "script": "/main/a.script" } ] } ] }"#,
        ),
        ("/main/a.script", ""),
    ]);
    let spec = p.load("/main/main.collection").expect("an empty component id loads");
    assert_eq!(spec.objects[0].components[0].id, "");
    let e = error_of("{ \"objects\": [\n { \"id\": \"\" } ] }");
    assert!(e.message.contains("an id must not be empty"), "{e}");
    assert_eq!(e.line, Some(2), "{e}");
}

/// `cast_shadows` / `receive_shadows`: inline, in a `.model`, beside `model` (over the file's),
/// and refused on a component of another type.
#[test]
fn shadow_switches() {
    let p = Project::new(&[
        ("/m.model", r#"{ "mesh": "/m.glb", "cast_shadows": false }"#),
        (
            "/c.collection",
            r#"{ "objects": [ { "id": "a", "components": [
            { "id": "inline", "type": "model", "mesh": "/m.glb", "receive_shadows": false },
            { "id": "file", "type": "model", "model": "/m.model" },
            { "id": "over", "type": "model", "model": "/m.model", "cast_shadows": true, "receive_shadows": false } ] } ] }"#,
        ),
        (
            "/bad.collection",
            r#"{ "objects": [ { "id": "a", "components": [ { "id": "c", "type": "camera", "cast_shadows": true } ] } ] }"#,
        ),
    ]);
    let c = p.load("/c.collection").unwrap();
    let flags: Vec<(bool, bool)> = c.objects[0]
        .components
        .iter()
        .map(|c| match &c.kind {
            ComponentKind::Model(m) => (m.cast_shadows, m.receive_shadows),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(flags, [(true, false), (false, true), (true, false)]);
    let e = p.load("/bad.collection").unwrap_err();
    assert!(e.to_string().contains("cast_shadows"), "{e}");
}
