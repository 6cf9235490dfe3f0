//! Collision objects through the loader: Sinew JSON, Defold's `.collisionobject` file and its
//! embedded form give the same spec; bad sizes, types and counts are refused where written.
use crate::project::Resources;
use crate::project::collection::load_collection;
use crate::project::physics::*;
use crate::project::types::*;

fn load(files: &[(&str, &str)]) -> Result<CollectionSpec, String> {
    let files = files.iter().map(|(p, t)| (p.to_string(), t.as_bytes().to_vec())).collect();
    load_collection(&Resources::demo().with_overlay(files), "/main/test.collection").map_err(|e| e.to_string())
}

fn collision_object(c: &CollectionSpec) -> &CollisionObjectSpec {
    match &c.objects[0].components[0].kind {
        ComponentKind::CollisionObject(co) => co,
        other => panic!("not a collision object: {other:?}"),
    }
}

/// A collection of one object holding `component` (Sinew JSON).
fn json(component: &str) -> String {
    format!(r#"{{ "name": "main", "objects": [ {{ "id": "crate", "components": [ {component} ] }} ] }}"#)
}

/// A collection whose one object has the one component `component` (Sinew JSON).
fn load_json(component: &str) -> Result<CollectionSpec, String> {
    load(&[("/main/test.collection", &json(component))])
}

const BODY: &str = r#"{ "id": "body", "type": "collisionobject", "collision_type": "kinematic",
  "mass": 2, "friction": 0.25, "restitution": 0.75, "linear_damping": 0.5, "angular_damping": 0.125,
  "locked_rotation": true, "bullet": true, "group": "player", "mask": ["world", "enemy"],
  "event_contact": false, "event_trigger": false,
  "position": [1, 0, 0],
  "shapes": [ { "shape_type": "sphere", "position": [0, 0.5, 0], "data": [0.5], "id": "ball" },
              { "shape_type": "box", "rotation": [0, 0, 0.70710677, 0.70710677], "data": [1, 2, 3], "id": "" },
              { "shape_type": "capsule", "data": [0.25, 1.5] } ] }"#;

#[test]
fn json_fields_become_the_spec() {
    let c = load_json(BODY).unwrap();
    let co = collision_object(&c);
    assert_eq!(co.collision_type, CollisionType::Kinematic);
    assert_eq!((co.mass, co.friction, co.restitution), (2.0, 0.25, 0.75));
    assert_eq!((co.linear_damping, co.angular_damping), (0.5, 0.125));
    assert!(co.locked_rotation && co.bullet);
    let events = crate::project::physics::Events { collision: true, contact: false, trigger: false };
    assert_eq!(co.events, events, "Defold's event switches, on unless given");
    assert_eq!(co.group, "player");
    assert_eq!(co.mask, ["world", "enemy"]);
    assert_eq!(co.shapes.len(), 3);
    assert_eq!(co.shapes[0].kind, ShapeKind::Sphere { radius: 0.5 });
    // The component's own position moves every shape.
    assert_eq!(co.shapes[0].position, [1.0, 0.5, 0.0]);
    assert_eq!(co.shapes[1].kind, ShapeKind::Box { half: [1.0, 2.0, 3.0] });
    assert!((co.shapes[1].rotation[2] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
    assert_eq!(co.shapes[2].kind, ShapeKind::Capsule { radius: 0.25, height: 1.5 });
    // Shape ids (physics.get_shape / set_shape): an empty one is none.
    let ids: Vec<_> = co.shapes.iter().map(|s| s.id).collect();
    assert_eq!(ids, [Some(crate::base::hash::hash_str("ball")), None, None]);
}

#[test]
fn defaults_are_defolds() {
    let c =
        load_json(r#"{ "id": "b", "type": "collisionobject", "shapes": [ { "shape_type": "sphere", "data": [1] } ] }"#)
            .unwrap();
    let co = collision_object(&c);
    assert_eq!(co.collision_type, CollisionType::Dynamic);
    assert_eq!((co.mass, co.friction, co.restitution), (1.0, 0.1, 0.5));
    assert_eq!(co.group, "default");
    assert_eq!(co.mask, ["default"], "an object with no mask collides with its own group");
}

const DEFOLD_BODY: &str = r#"collision_shape: ""
type: COLLISION_OBJECT_TYPE_KINEMATIC
mass: 2.0
friction: 0.25
restitution: 0.75
group: "player"
mask: "world"
mask: "enemy"
embedded_collision_shape {
  shapes {
    shape_type: TYPE_SPHERE
    position { y: 0.5 }
    rotation { }
    index: 0
    count: 1
    id: "ball"
  }
  shapes {
    shape_type: TYPE_BOX
    position { }
    rotation { z: 0.70710677 w: 0.70710677 }
    index: 1
    count: 3
    id: ""
  }
  shapes {
    shape_type: TYPE_CAPSULE
    position { }
    rotation { }
    index: 4
    count: 2
  }
  data: 0.5
  data: 1.0
  data: 2.0
  data: 3.0
  data: 0.25
  data: 1.5
}
linear_damping: 0.5
angular_damping: 0.125
locked_rotation: true
bullet: true
event_contact: false
event_trigger: false
"#;

#[test]
fn defold_file_and_embedded_form_match_the_json() {
    let want = load_json(BODY).unwrap();
    let want = collision_object(&want);
    let go = "components {\n  id: \"body\"\n  component: \"/main/body.collisionobject\"\n  position { x: 1.0 }\n}\n";
    let collection = "name: \"main\"\ninstances {\n  id: \"crate\"\n  prototype: \"/main/crate.go\"\n}\n";
    let c = load(&[
        ("/main/test.collection", collection),
        ("/main/crate.go", go),
        ("/main/body.collisionobject", DEFOLD_BODY),
    ])
    .unwrap();
    assert_eq!(collision_object(&c), want, "a .collisionobject file");
    let escaped = DEFOLD_BODY.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
    let embedded = format!(
        "name: \"main\"\nembedded_instances {{\n  id: \"crate\"\n  data: \"embedded_components {{\\n  id: \\\"body\\\"\\n  type: \\\"collisionobject\\\"\\n  data: \\\"{}\\\"\\n  position {{ x: 1.0 }}\\n}}\\n\"\n}}\n",
        escaped.replace('\\', "\\\\").replace('"', "\\\"")
    );
    let c = load(&[("/main/test.collection", &embedded)]).unwrap();
    assert_eq!(collision_object(&c), want, "an embedded collision object");
}

/// The error of a collection whose one component is `component`.
fn error(component: &str) -> String {
    load_json(component).unwrap_err()
}

fn co(shapes: &str) -> String {
    format!(r#"{{ "id": "b", "type": "collisionobject", "shapes": {shapes} }}"#)
}

#[test]
fn bad_shapes_are_refused_where_written() {
    for (shapes, says) in [
        (r#"[ { "shape_type": "sphere", "data": [0] } ]"#, "a sphere takes `data` [radius]"),
        (r#"[ { "shape_type": "box", "data": [1, -1, 1] } ]"#, "a box takes `data`"),
        (r#"[ { "shape_type": "capsule", "data": [1] } ]"#, "a capsule takes `data` [radius, height]"),
        (r#"[ { "shape_type": "cone", "data": [1] } ]"#, "unknown shape_type 'cone'"),
        (r#"[ { "shape_type": "sphere", "data": [1e30] } ]"#, "a sphere takes `data`"),
        (r#"[ { "shape_type": "sphere", "data": [1], "rotation": [0, 0, 0, 0] } ]"#, "non-zero quaternion"),
        ("[]", "`shapes` is empty"),
    ] {
        let e = error(&co(shapes));
        assert!(e.contains(says), "{shapes}: {e}");
        assert!(e.starts_with("/main/test.collection:1:"), "with the file and position: {e}");
    }
    let e = error(r#"{ "id": "b", "type": "collisionobject", "collision_type": "ghost", "shapes": [] }"#);
    assert!(e.contains("unknown collision_type 'ghost'"), "{e}");
    let e = error(&co(r#"[ { "shape_type": "sphere", "data": [1] } ], "mass": 0"#));
    assert!(e.contains("needs a mass above 0"), "{e}");
    let e = error(r#"{ "id": "b", "type": "collisionobject" }"#);
    assert!(e.contains("needs `shapes`"), "{e}");
    let e = error(r#"{ "id": "b", "type": "model", "mesh": "/m.glb", "mass": 1 }"#);
    assert!(e.contains("field 'mass' does not apply to model"), "{e}");
}

#[test]
fn a_million_shapes_are_refused_before_they_are_kept() {
    let one = r#"{ "shape_type": "sphere", "data": [1] }"#;
    let shapes = format!("[{}]", vec![one; 1_000_000].join(","));
    let t = std::time::Instant::now();
    let e = error(&co(&shapes));
    assert!(e.contains(&format!("more than {MAX_SHAPES} shapes")), "{}", &e[..e.len().min(300)]);
    assert!(e.starts_with("/main/test.collection:1:"), "{}", &e[..e.len().min(300)]);
    // Refused at entry 257: parsing stops there, long before the end of the text.
    assert!(t.elapsed() < std::time::Duration::from_secs(5), "took {:?}", t.elapsed());
}

#[test]
fn defold_nan_and_bad_slices_are_refused() {
    let go = |body: &str| {
        let collection = "name: \"main\"\ninstances {\n  id: \"crate\"\n  prototype: \"/main/crate.go\"\n}\n";
        let go = "components {\n  id: \"body\"\n  component: \"/main/body.collisionobject\"\n}\n";
        load(&[("/main/test.collection", collection), ("/main/crate.go", go), ("/main/body.collisionobject", body)])
            .unwrap_err()
    };
    let nan = DEFOLD_BODY.replacen("data: 0.5", "data: nan", 1);
    let e = go(&nan);
    assert!(e.contains("a sphere takes `data`"), "{e}");
    assert!(e.contains("/main/body.collisionobject:"), "points into the Defold file: {e}");
    let e = go(&DEFOLD_BODY.replacen("count: 2", "count: 9", 1));
    assert!(e.contains("outside `data`"), "{e}");
    assert!(e.contains("/main/body.collisionobject:26:"), "{e}");
    let e = go(&DEFOLD_BODY.replacen("TYPE_BOX", "TYPE_HULL", 1));
    assert!(e.contains("a hull takes `data` of x, y, z per point, 3 to 256 points (got 3 numbers)"), "{e}");
}

/// Hull shapes: points from JSON, embedded data or a `.convexshape` file; a flat (2D) hull is
/// given a thickness; bad files and counts are refused where written.
#[test]
fn hull_shapes_from_json_and_convexshape_files() {
    let c = load_json(
        r#"{ "id": "b", "type": "collisionobject", "shapes": [ { "shape_type": "hull", "data": [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1] } ] }"#,
    )
    .unwrap();
    let ShapeKind::Hull { points } = &collision_object(&c).shapes[0].kind else { panic!("not a hull") };
    assert_eq!(points.len(), 4, "a solid hull keeps its points");
    let body = "collision_shape: \"/main/tri.convexshape\"\ntype: COLLISION_OBJECT_TYPE_STATIC\nmass: 0.0\n";
    let tri = "shape_type: TYPE_HULL\ndata: -30.0\ndata: 0.0\ndata: 0.0\ndata: 30.0\ndata: 0.0\ndata: 0.0\ndata: 0.0\ndata: 30.0\ndata: 0.0\n";
    let files = |body: &str, shape: &str| {
        let go = "components {\n  id: \"body\"\n  component: \"/main/body.collisionobject\"\n}\n";
        let collection = "name: \"main\"\ninstances {\n  id: \"crate\"\n  prototype: \"/main/crate.go\"\n}\n";
        load(&[
            ("/main/test.collection", collection),
            ("/main/crate.go", go),
            ("/main/body.collisionobject", body),
            ("/main/tri.convexshape", shape),
        ])
    };
    let c = files(body, tri).unwrap();
    let ShapeKind::Hull { points } = &collision_object(&c).shapes[0].kind else { panic!("not a hull") };
    // Three points at z 0: the triangle at z -1 and z 1.
    assert_eq!(points.len(), 6);
    assert_eq!((points[0], points[5]), ([-30.0, 0.0, -1.0], [0.0, 30.0, 1.0]));
    let e = files(body, "shape_type: TYPE_HULL\ndata: 1.0\n").unwrap_err();
    assert!(e.contains("a hull takes `data`") && e.contains("(got 1 numbers)"), "{e}");
    let e = files(body, "shape_type: TYPE_HULL\ndata: 1.0\nwat: 2\n").unwrap_err();
    assert!(e.contains("/main/tri.convexshape:3:1"), "points into the shape file: {e}");
    let e = files(&body.replace("tri.convexshape", "none.convexshape"), tri).unwrap_err();
    assert!(
        e.contains("/main/body.collisionobject:1:1: collision shape file:") && e.contains("none.convexshape"),
        "{e}"
    );
    // A tile map is read as the shape (its file missing here).
    let e = files(&body.replace("tri.convexshape", "level.tilemap"), tri).unwrap_err();
    assert!(e.contains("/main/body.collisionobject:1:18: tilemap 'body': no such file '/main/level.tilemap'"), "{e}");
    let e = files(&body.replace("tri.convexshape", "level.png"), tri).unwrap_err();
    assert!(e.contains("Sinew reads `.convexshape` and `.tilemap` files"), "{e}");
}

/// game.project's `[physics]` with `lines`, read.
fn game_physics(lines: &str) -> Result<PhysicsSettings, crate::base::error::LoadError> {
    let text = format!("[bootstrap]\nmain_collection = /main/main.collectionc\n[physics]\n{lines}\n");
    crate::project::defold::game_project::parse(&text).map(|s| s.physics)
}

/// project.json with `"physics": { members }`, read.
fn json_physics(members: &str) -> Result<PhysicsSettings, crate::base::error::LoadError> {
    let text = format!(r#"{{ "main_collection": "/main/main.collection", "physics": {{ {members} }} }}"#);
    crate::project::settings::parse_settings(&text).map(|s| s.physics)
}

#[test]
fn physics_settings_from_both_project_files() {
    let s = crate::project::settings::parse_settings(
        r#"{ "main_collection": "/main/main.collection",
             "physics": { "type": "2d", "gravity": [0, -20, 0], "scale": 0.5, "debug": true } }"#,
    )
    .unwrap();
    assert_eq!(
        s.physics,
        PhysicsSettings {
            two_d: true,
            gravity: [0.0, -20.0, 0.0],
            scale: 0.5,
            debug: true,
            ..PhysicsSettings::default()
        }
    );
    let e = crate::project::settings::parse_settings(
        r#"{ "main_collection": "/main/main.collection", "physics": { "scale": 0 } }"#,
    )
    .unwrap_err();
    assert!(e.to_string().contains("physics.scale must be between"), "{e}");
    let d = crate::project::defold::game_project::parse(
        "[bootstrap]\nmain_collection = /main/main.collectionc\n[physics]\ntype = 2D\ngravity_y = -500\ndebug = 1\n",
    )
    .unwrap();
    assert_eq!(
        d.physics,
        PhysicsSettings {
            two_d: true,
            gravity: [0.0, -500.0, 0.0],
            scale: 1.0,
            debug: true,
            // Defold's defaults: a step a frame by the frame's time; fixed, at most 2 a frame;
            // 64 pairs and 128 points reported a step.
            fixed_timestep: false,
            max_fixed_steps: Some(2),
            max_collisions: Some(64),
            max_contacts: Some(128),
            ..PhysicsSettings::default()
        }
    );
    let plain = crate::project::settings::parse_settings(r#"{ "main_collection": "/main/main.collection" }"#).unwrap();
    assert_eq!(plain.physics, PhysicsSettings::default());
    assert!(plain.physics.dynamic_transforms, "on unless the project says otherwise, as in Defold");
    // Off in either file.
    let off = crate::project::settings::parse_settings(
        r#"{ "main_collection": "/main/main.collection", "physics": { "allow_dynamic_transforms": false } }"#,
    )
    .unwrap();
    assert!(!off.physics.dynamic_transforms);
    let off = crate::project::defold::game_project::parse(
        "[bootstrap]\nmain_collection = /main/main.collectionc\n[physics]\nallow_dynamic_transforms = 0\n",
    )
    .unwrap();
    assert!(!off.physics.dynamic_transforms);
    // The fixed step: Defold's keys and project.json's.
    let fixed = crate::project::defold::game_project::parse(
        "[bootstrap]\nmain_collection = /main/main.collectionc\n[physics]\nuse_fixed_timestep = 1\nmax_fixed_timesteps = 3\n",
    )
    .unwrap();
    assert_eq!((fixed.physics.fixed_timestep, fixed.physics.max_fixed_steps), (true, Some(3)));
    let e = crate::project::defold::game_project::parse(
        "[bootstrap]\nmain_collection = /main/main.collectionc\n[physics]\nmax_fixed_timesteps = 0\n",
    )
    .unwrap_err();
    assert!(e.to_string().contains("game.project:4:") && e.to_string().contains("at least 1"), "{e}");
    let json = crate::project::settings::parse_settings(
        r#"{ "main_collection": "/main/main.collection",
             "physics": { "use_fixed_timestep": false, "max_fixed_timesteps": 2 } }"#,
    )
    .unwrap();
    assert_eq!((json.physics.fixed_timestep, json.physics.max_fixed_steps), (false, Some(2)));
    let e = crate::project::settings::parse_settings(
        r#"{ "main_collection": "/main/main.collection", "physics": { "max_fixed_timesteps": 0 } }"#,
    )
    .unwrap_err();
    assert!(e.to_string().contains("physics.max_fixed_timesteps must be at least 1"), "{e}");
    // The contact impulse limit, the 2D restitution threshold and the message limits, in both
    // files; bad values refused where they are (game.project's line 4).
    let limit = game_physics("contact_impulse_limit = 2.5").unwrap();
    assert_eq!(limit.contact_impulse_limit, 2.5);
    assert_eq!(json_physics(r#""contact_impulse_limit": 0.75"#).unwrap().contact_impulse_limit, 0.75);
    let t = game_physics("velocity_threshold = 50.0").unwrap();
    assert_eq!(t.velocity_threshold, Some(50.0));
    assert_eq!(json_physics(r#""velocity_threshold": 2"#).unwrap().velocity_threshold, Some(2.0));
    let m = game_physics("max_collisions = 256\nmax_contacts = 0").unwrap();
    assert_eq!((m.max_collisions, m.max_contacts), (Some(256), None));
    let m = json_physics(r#""max_collisions": 3, "max_contacts": 0"#).unwrap();
    assert_eq!((m.max_collisions, m.max_contacts), (Some(3), None));
    for bad in [
        "contact_impulse_limit = -1",
        "contact_impulse_limit = x",
        "contact_impulse_limit = inf",
        "velocity_threshold = -3",
        "max_contacts = -1",
    ] {
        let e = game_physics(bad).unwrap_err().to_string();
        let key = bad.split(' ').next().unwrap();
        assert!(e.contains("game.project:4:") && e.contains(key), "{e}");
    }
    let e = json_physics(r#""contact_impulse_limit": -2"#).unwrap_err().to_string();
    assert!(e.contains("physics.contact_impulse_limit must be a number from 0"), "{e}");
}
