use super::*;
use crate::project::Resources;
use crate::project::types::Pivot;

fn png(w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, w, h);
    e.set_color(png::ColorType::Rgba);
    let mut wr = e.write_header().unwrap();
    wr.write_image_data(&vec![200u8; (w * h * 4) as usize]).unwrap();
    drop(wr);
    out
}

fn res(files: &[(&str, &[u8])]) -> Resources {
    Resources::demo().with_overlay(files.iter().map(|(p, b)| (p.to_string(), b.to_vec())).collect())
}

fn load(r: &Resources, path: &str) -> Result<GuiScene, crate::base::error::LoadError> {
    load_gui(r, &Located { value: path.to_string(), at: None }, "/main.collection")
}

const JSON: &str = r#"{
  "script": "/hud.gui_script",
  "fonts": [ { "name": "big", "font": "/builtins/fonts/default.font" } ],
  "textures": [ { "name": "ui", "texture": "/ui.png" } ],
  "layers": [ { "name": "back" }, { "name": "front" } ],
  "nodes": [
    { "id": "label", "type": "text", "parent": "panel", "text": "Gems", "font": "big", "pivot": "w", "layer": "front" },
    { "id": "panel", "type": "box", "position": [480, 500, 0], "size": [300, 60], "texture": "ui", "slice9": [8, 8, 8, 8],
      "xanchor": "left", "yanchor": "top", "adjust_mode": "stretch", "color": [1, 0, 0], "alpha": 0.5, "layer": "back",
      "clipping_mode": "stencil" },
    { "id": "timer", "type": "pie", "position": [900, 40, 0], "euler": [0, 0, 90], "pie_fill_angle": 270, "inner_radius": 10,
      "outer_bounds": "rectangle", "perimeter_vertices": 16, "enabled": false }
  ]
}"#;

const DEFOLD: &str = r#"script: "/hud.gui_script"
fonts {
  name: "big"
  font: "/builtins/fonts/default.font"
}
textures {
  name: "ui"
  texture: "/ui.png"
}
layers {
  name: "back"
}
layers {
  name: "front"
}
nodes {
  position { x: 0.0 y: 0.0 z: 0.0 w: 1.0 }
  type: TYPE_TEXT
  text: "Gems"
  font: "big"
  id: "label"
  pivot: PIVOT_W
  parent: "panel"
  layer: "front"
}
nodes {
  position { x: 480.0 y: 500.0 z: 0.0 w: 1.0 }
  size { x: 300.0 y: 60.0 z: 0.0 w: 1.0 }
  color { x: 1.0 y: 0.0 z: 0.0 w: 1.0 }
  type: TYPE_BOX
  texture: "ui"
  id: "panel"
  xanchor: XANCHOR_LEFT
  yanchor: YANCHOR_TOP
  adjust_mode: ADJUST_MODE_STRETCH
  layer: "back"
  slice9 { x: 8.0 y: 8.0 z: 8.0 w: 8.0 }
  clipping_mode: CLIPPING_MODE_STENCIL
  alpha: 0.5
}
nodes {
  position { x: 900.0 y: 40.0 z: 0.0 w: 1.0 }
  rotation { x: 0.0 y: 0.0 z: 90.0 w: 1.0 }
  type: TYPE_PIE
  id: "timer"
  outerBounds: PIEBOUNDS_RECTANGLE
  innerRadius: 10.0
  perimeterVertices: 16
  pieFillAngle: 270.0
  enabled: false
}
material: "/builtins/materials/gui.material"
adjust_reference: ADJUST_REFERENCE_PARENT
max_nodes: 512
"#;

#[test]
fn json_and_defold_scenes_resolve_alike() {
    let ui = png(16, 8);
    let r = res(&[
        ("/hud.json.gui", JSON.as_bytes()),
        ("/hud.gui", DEFOLD.as_bytes()),
        ("/ui.png", &ui),
        ("/hud.gui_script", b""),
    ]);
    for path in ["/hud.json.gui", "/hud.gui"] {
        let s = load(&r, path).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(s.script.as_deref(), Some("/hud.gui_script"));
        assert_eq!(s.layers, ["back", "front"]);
        assert_eq!((s.images.len(), s.images[0].width, s.images[0].height), (1, 16, 8));
        assert_eq!(s.fonts[0].1.size, 14.0);
        // Parents first: the panel, its label, then the pie.
        let ids: Vec<&str> = s.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, ["panel", "label", "timer"], "{path}");
        let (panel, label, timer) = (&s.nodes[0], &s.nodes[1], &s.nodes[2]);
        assert_eq!(label.parent, Some(0));
        assert_eq!((label.kind, label.pivot, label.font, label.layer), (NodeKind::Text, Pivot::W, Some(0), Some(1)));
        assert_eq!(label.text, "Gems");
        assert_eq!(
            (panel.xanchor, panel.yanchor, panel.adjust_mode),
            (XAnchor::Left, YAnchor::Top, AdjustMode::Stretch)
        );
        assert_eq!((panel.size, panel.slice9, panel.texture, panel.clipping), ([300.0, 60.0], [8.0; 4], Some(0), true));
        assert_eq!(panel.color, [1.0, 0.0, 0.0, 0.5]);
        assert_eq!(
            (timer.kind, timer.outer_bounds, timer.perimeter_vertices),
            (NodeKind::Pie, PieBounds::Rectangle, 16)
        );
        assert_eq!((timer.pie_fill_angle, timer.inner_radius, timer.enabled), (270.0, 10.0, false));
        let z = (timer.rotation * glam::Vec3::X).y;
        assert!((z - 1.0).abs() < 1e-5, "90 degrees about z turns x into y");
    }
}

/// A Defold node written without `size` is 0 x 0, NodeDesc's default (Defold's editor leaves
/// out what equals it): benjames' menus hold their nodes in a box without one, which Defold
/// never draws and Sinew drew as a white 100 x 100 square. Sinew JSON keeps its 100 x 100.
#[test]
fn a_defold_node_without_a_size_is_zero_by_zero() {
    let r = res(&[
        ("/menu.gui", b"nodes {\n  id: \"container\"\n  type: TYPE_BOX\n}\n"),
        ("/menu.json.gui", br#"{ "nodes": [ { "id": "container", "type": "box" } ] }"#),
    ]);
    assert_eq!(load(&r, "/menu.gui").unwrap().nodes[0].size, [0.0, 0.0]);
    assert_eq!(load(&r, "/menu.json.gui").unwrap().nodes[0].size, [100.0, 100.0]);
}

/// Defold's editor writes a node's `rotation` as Euler degrees, turned in the order game objects
/// are (`dmVMath::EulerToQuat`): the pie of Defold's `timer/repeating_timer` example, turned
/// 180 about y and 90 about z, starts its fill at twelve o'clock and fills clockwise, like a
/// clock (turned z first, it started at six).
#[test]
fn node_euler_turns_in_defolds_order() {
    let r = res(&[(
        "/clock.gui",
        b"nodes {\n  id: \"radial\"\n  type: TYPE_PIE\n  rotation {\n    x: 0.0\n    y: 180.0\n    z: 90.0\n    w: 1.0\n  }\n}\n",
    )]);
    let s = load(&r, "/clock.gui").unwrap_or_else(|e| panic!("{e}"));
    let n = &s.nodes[0];
    assert_eq!(n.euler, glam::Vec3::new(0.0, 180.0, 90.0), "the angles as written");
    let start = n.rotation * glam::Vec3::X;
    let quarter = n.rotation * glam::Vec3::Y;
    assert!(start.abs_diff_eq(glam::Vec3::Y, 1e-5), "the fill starts up: {start}");
    assert!(quarter.abs_diff_eq(glam::Vec3::X, 1e-5), "and turns towards the right: {quarter}");
}

#[test]
fn bad_scenes_name_the_place() {
    let r = res(&[
        (
            "/parent.gui",
            b"{ \"nodes\": [\n  { \"id\": \"a\", \"parent\": \"nobody\" },\n  { \"id\": \"b\", \"parent\": \"c\" },\n  { \"id\": \"c\", \"parent\": \"b\" } ] }",
        ),
        ("/font.gui", b"nodes {\n  id: \"t\"\n  type: TYPE_TEXT\n  font: \"missing\"\n}\n"),
        ("/fontfile.gui", b"fonts {\n  name: \"f\"\n  font: \"/nope.font\"\n}\n"),
        ("/typo.gui", b"nodes {\n  id: \"t\"\n  pivto: PIVOT_N\n}\n"),
        ("/enum.gui", b"{ \"nodes\": [ { \"id\": \"t\", \"xanchor\": \"middle\" } ] }"),
        ("/dup.gui", b"{ \"nodes\": [ { \"id\": \"t\" }, { \"id\": \"t\" } ] }"),
        ("/loop_a.gui", b"nodes {\n  id: \"b\"\n  type: TYPE_TEMPLATE\n  template: \"/loop_b.gui\"\n}\n"),
        ("/loop_b.gui", b"nodes {\n  id: \"a\"\n  type: TYPE_TEMPLATE\n  template: \"/loop_a.gui\"\n}\n"),
        ("/a.atlas", b"images {\n  image: \"/img/red.png\"\n}\n"),
        ("/atlas.gui", b"{ \"textures\": [ { \"name\": \"t\", \"texture\": \"/a.atlas\" } ],\n  \"nodes\": [ { \"id\": \"b\", \"texture\": \"t/blue\" } ] }"),
    ]);
    let err = |p: &str| load(&r, p).unwrap_err().to_string();
    let e = err("/parent.gui");
    assert!(e.starts_with("/parent.gui:2:26: node 'a': unknown parent 'nobody'"), "{e}");
    assert!(e.contains("/parent.gui:3:26: node 'b': parent 'c' makes a cycle"), "{e}");
    assert!(e.contains("/parent.gui:4:26: node 'c': parent 'b' makes a cycle"), "{e}");
    let e = err("/font.gui");
    assert!(e.starts_with("/font.gui:4:9: node 't': missing font 'missing'"), "{e}");
    assert!(err("/fontfile.gui").starts_with("/fontfile.gui:3:9:"), "{}", err("/fontfile.gui"));
    assert!(err("/typo.gui").starts_with("/typo.gui:3:3: unknown field `pivto` in a gui node"), "{}", err("/typo.gui"));
    assert!(err("/enum.gui").contains("unknown value 'middle' (expected none, left, right)"), "{}", err("/enum.gui"));
    assert!(err("/dup.gui").contains("node id 't' is used twice"), "{}", err("/dup.gui"));
    let e = err("/atlas.gui");
    assert!(e.starts_with("/atlas.gui:2:38: node 'b': atlas /a.atlas has no image or animation 'blue'"), "{e}");
    let e = err("/loop_a.gui");
    assert!(e.contains("template cycle: /loop_a.gui -> /loop_b.gui -> /loop_a.gui"), "{e}");
}

#[test]
fn templates_expand_under_their_node_with_overrides() {
    let button = br#"{ "fonts": [ { "name": "f", "font": "/builtins/fonts/default.font" } ],
      "nodes": [ { "id": "bg", "size": [200, 50] }, { "id": "label", "type": "text", "parent": "bg", "text": "OK", "font": "f" } ] }"#;
    let menu = br#"{ "nodes": [
      { "id": "play", "type": "template", "template": "/button.gui", "position": [0, 100, 0] },
      { "id": "play/label", "type": "text", "parent": "play/bg", "text": "Play", "font": "f", "template_node_child": true },
      { "id": "quit", "type": "template", "template": "/button.gui" } ] }"#;
    let r = res(&[("/button.gui", button), ("/menu.gui", menu)]);
    let s = load(&r, "/menu.gui").unwrap();
    let ids: Vec<&str> = s.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["play", "play/bg", "play/label", "quit", "quit/bg", "quit/label"]);
    let text = |id: &str| s.nodes[s.node_index(id).unwrap()].text.clone();
    assert_eq!((text("play/label"), text("quit/label")), ("Play".to_string(), "OK".to_string()));
    assert_eq!(s.nodes[1].parent, Some(0));
    assert_eq!(s.nodes[0].kind, NodeKind::Template);
    assert_eq!(s.fonts.len(), 1, "one font, shared");
}

/// An atlas texture is one packed page (the sprites' packer) whose animations nodes name as
/// `atlas/animation`, in Sinew JSON and in Defold's text format alike; an absent image file is
/// left out with the animations that show it, and a node naming one of those is an error.
#[test]
fn atlas_textures_are_packed_pages_with_animations() {
    let (a, b) = (png(4, 2), png(2, 6));
    let atlas = "images {\n  image: \"/img/a.png\"\n}\nanimations {\n  id: \"run\"\n  images {\n    image: \"/img/a.png\"\n  }\n  images {\n    image: \"/img/b.png\"\n  }\n  playback: PLAYBACK_LOOP_PINGPONG\n  fps: 12\n  flip_horizontal: 1\n}\nanimations {\n  id: \"gone\"\n  images {\n    image: \"/img/missing.png\"\n  }\n}\n";
    let json = r#"{ "textures": [ { "name": "t", "texture": "/a.atlas" } ],
  "nodes": [ { "id": "run", "texture": "t/run" }, { "id": "img", "texture": "t/a" }, { "id": "page", "texture": "t" } ] }"#;
    let defold = "textures {\n  name: \"t\"\n  texture: \"/a.atlas\"\n}\nnodes {\n  id: \"run\"\n  texture: \"t/run\"\n}\nnodes {\n  id: \"img\"\n  texture: \"t/a\"\n}\nnodes {\n  id: \"page\"\n  texture: \"t\"\n}\n";
    let bad = r#"{ "textures": [ { "name": "t", "texture": "/a.atlas" }, { "name": "i", "texture": "/img/a.png" } ],
  "nodes": [ { "id": "g", "texture": "t/gone" }, { "id": "i", "texture": "i/run" } ] }"#;
    let r = res(&[
        ("/img/a.png", &a),
        ("/img/b.png", &b),
        ("/a.atlas", atlas.as_bytes()),
        ("/j.gui", json.as_bytes()),
        ("/d.gui", defold.as_bytes()),
        ("/bad.gui", bad.as_bytes()),
    ]);
    for path in ["/j.gui", "/d.gui"] {
        let s = load(&r, path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.images.len(), 1, "{path}: one texture for the atlas");
        let img = &s.images[0];
        let atlas = img.atlas.as_ref().expect("an atlas texture");
        assert_eq!((img.width, img.height), (atlas.width, atlas.height), "{path}");
        assert_eq!(img.rgba.len(), (img.width * img.height * 4) as usize, "{path}: the page's pixels");
        assert!(atlas.animation("gone").is_none(), "{path}: an animation of an absent image is left out");
        let run = atlas.animation("run").expect("run");
        assert_eq!(
            (run.playback, run.fps, run.flip_horizontal),
            (crate::project::sprite::Playback::LoopPingpong, 12.0, true)
        );
        let node = |id: &str| &s.nodes[s.node_index(id).expect("node")];
        let k = atlas.animations.iter().position(|f| f.id == "run").map(|k| k as u32);
        assert_eq!(
            (node("run").texture, node("run").animation, node("run").frame),
            (Some(0), k, run.frames[0]),
            "{path}"
        );
        let a = atlas.animations.iter().position(|f| f.id == "a").map(|k| k as u32);
        assert_eq!(node("img").animation, a, "{path}: an image of the atlas by its name");
        assert_eq!((node("page").texture, node("page").animation), (Some(0), None), "{path}: the whole page");
        // The frame's place on the page, as UVs.
        let f = atlas.frames[run.frames[0] as usize];
        let (uv, size) = img.frame_uv(Some(run.frames[0]));
        let (w, h) = (img.width as f32, img.height as f32);
        assert_eq!(uv, [f.x as f32 / w, f.y as f32 / h, (f.x + 4) as f32 / w, (f.y + 2) as f32 / h]);
        assert_eq!(size, [4.0, 2.0]);
        assert_eq!(img.frame_uv(None), ([0.0, 0.0, 1.0, 1.0], [w, h]));
    }
    let e = load(&r, "/bad.gui").unwrap_err().to_string();
    assert!(
        e.contains("node 'g': atlas /a.atlas has no image or animation 'gone' (1 of its image files were not found, e.g. /img/missing.png)"),
        "{e}"
    );
    assert!(e.contains("node 'i': texture 'i' is an image, not an atlas: it has no 'run'"), "{e}");
}

/// A scene's `particlefxs` are read with their emitters' atlases, which join the scene's images
/// (one image for an atlas also named as a texture), in Sinew JSON and Defold's text alike; a
/// particle node names one. An unknown name, a missing effect file and an emitter on a plain
/// image are reported where they are written.
#[test]
fn particle_nodes_name_the_scenes_effects() {
    let a = png(4, 4);
    let atlas = "images {\n  image: \"/img/a.png\"\n}\n";
    let effect = |source: &str| {
        format!(
            "emitters {{\n  id: \"e\"\n  mode: PLAY_MODE_ONCE\n  duration: 1\n  space: EMISSION_SPACE_WORLD\n  tile_source: \"{source}\"\n  animation: \"a\"\n  max_particle_count: 8\n  type: EMITTER_TYPE_CIRCLE\n}}\n"
        )
    };
    let json = r#"{ "textures": [ { "name": "t", "texture": "/a.atlas" } ],
  "particlefxs": [ { "name": "sparks", "particlefx": "/s.particlefx" } ],
  "nodes": [ { "id": "fx", "type": "particlefx", "particlefx": "sparks" }, { "id": "b", "texture": "t/a" } ] }"#;
    let defold = "particlefxs {\n  name: \"sparks\"\n  particlefx: \"/s.particlefx\"\n}\nnodes {\n  id: \"fx\"\n  type: TYPE_PARTICLEFX\n  particlefx: \"sparks\"\n}\n";
    let bad = "particlefxs {\n  name: \"gone\"\n  particlefx: \"/gone.particlefx\"\n}\nparticlefxs {\n  name: \"png\"\n  particlefx: \"/png.particlefx\"\n}\nnodes {\n  id: \"fx\"\n  type: TYPE_PARTICLEFX\n  particlefx: \"nope\"\n}\n";
    let (s, p) = (effect("/a.atlas"), effect("/img/a.png"));
    let r = res(&[
        ("/img/a.png", &a),
        ("/a.atlas", atlas.as_bytes()),
        ("/s.particlefx", s.as_bytes()),
        ("/png.particlefx", p.as_bytes()),
        ("/j.gui", json.as_bytes()),
        ("/d.gui", defold.as_bytes()),
        ("/bad.gui", bad.as_bytes()),
    ]);
    for path in ["/j.gui", "/d.gui"] {
        let scene = load(&r, path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(scene.effects.len(), 1, "{path}");
        assert_eq!(scene.effects[0].0, "sparks");
        assert_eq!(scene.images.len(), 1, "{path}: the emitter's atlas is held once");
        assert_eq!(scene.image_of_atlas("/a.atlas"), Some(0), "{path}");
        let fx = &scene.nodes[scene.node_index("fx").expect("fx")];
        assert_eq!((fx.kind, fx.effect), (NodeKind::ParticleFx, Some(0)), "{path}");
    }
    let e = load(&r, "/bad.gui").unwrap_err().to_string();
    for want in [
        "/bad.gui:3:15: particlefx 'gone'",
        "/png.particlefx:6:16: '/img/a.png' is an image; an emitter needs an atlas or tile source",
        "/bad.gui:12:15: node 'fx': unknown particlefx 'nope' (not in the scene's `particlefxs`)",
    ] {
        assert!(e.contains(want), "missing {want:?} in\n{e}");
    }
}

/// `materials` (Defold's MaterialDesc list) and a node's `material` name: the built-in
/// `gui.material` is an entry like any other (a script may swap it), the scene's own custom
/// `material` is the one of nodes naming none, and every wrong name or file is reported at its
/// position, all in one error.
#[test]
fn materials_resolve_by_name_and_bad_ones_are_reported() {
    let defold = "materials {\n  name: \"default\"\n  material: \"/builtins/materials/gui.material\"\n}\nmaterials {\n  name: \"glow\"\n  material: \"/glow.material\"\n}\nnodes {\n  id: \"a\"\n  type: TYPE_BOX\n  material: \"glow\"\n}\nnodes {\n  id: \"b\"\n  type: TYPE_BOX\n  material: \"default\"\n}\nnodes {\n  id: \"c\"\n  type: TYPE_BOX\n  material: \"\"\n}\nmaterial: \"/base.material\"\n";
    let json = r#"{ "materials": [ { "name": "glow", "material": "/glow.material" } ],
  "nodes": [ { "id": "a", "type": "box", "material": "glow" }, { "id": "c", "type": "box" } ] }"#;
    let bad = "materials {\n  name: \"gone\"\n  material: \"/gone.material\"\n}\nmaterials {\n  name: \"png\"\n  material: \"/a.png\"\n}\nnodes {\n  id: \"a\"\n  type: TYPE_BOX\n  material: \"nope\"\n}\n";
    let r = res(&[
        ("/glow.material", b"name: \"glow\"\n"),
        ("/base.material", b"name: \"base\"\n"),
        ("/a.png", &png(2, 2)),
        ("/d.gui", defold.as_bytes()),
        ("/j.gui", json.as_bytes()),
        ("/bad.gui", bad.as_bytes()),
    ]);
    let s = load(&r, "/d.gui").unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<(&str, &str)> = s.materials.iter().map(|(n, m)| (n.as_str(), m.as_str())).collect();
    assert_eq!(
        names,
        [("", "/base.material"), ("default", "/builtins/materials/gui.material"), ("glow", "/glow.material")]
    );
    let material = |s: &GuiScene, id: &str| s.nodes[s.node_index(id).expect("node")].material;
    assert_eq!([material(&s, "a"), material(&s, "b"), material(&s, "c")], [Some(2), Some(1), Some(0)]);
    let s = load(&r, "/j.gui").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!([material(&s, "a"), material(&s, "c")], [Some(0), None], "no scene material: built-in");
    let e = load(&r, "/bad.gui").unwrap_err().to_string();
    for want in [
        "/bad.gui:3:13: material 'gone': '/gone.material' is no .material file of the project",
        "/bad.gui:7:13: material 'png': '/a.png' is no .material file of the project",
        "/bad.gui:12:13: node 'a': unknown material 'nope' (not in the scene's `materials`)",
    ] {
        assert!(e.contains(want), "missing {want:?} in\n{e}");
    }
}

/// Defold writes every field of a layout node but means only those `overridden_fields`
/// numbers; the JSON form writes only those. Both give each layout a whole node list.
#[test]
fn layouts_override_only_the_fields_they_name() {
    let defold = r#"nodes {
  position { x: 10.0 y: 20.0 z: 0.0 }
  size { x: 100.0 y: 50.0 z: 0.0 }
  type: TYPE_BOX
  id: "panel"
}
nodes {
  type: TYPE_TEXT
  text: "Score:\n"
  id: "score"
  parent: "panel"
}
layouts {
  name: "Landscape"
  nodes {
    position { x: 80.0 y: 353.0 z: 0.0 }
    size { x: 999.0 y: 999.0 z: 0.0 }
    type: TYPE_BOX
    id: "panel"
    overridden_fields: 1
  }
}
"#;
    let json = r#"{ "nodes": [
    { "id": "panel", "position": [10, 20, 0], "size": [100, 50, 0] },
    { "id": "score", "type": "text", "text": "Score:\n", "parent": "panel" } ],
  "layouts": [ { "name": "Landscape", "nodes": [ { "id": "panel", "position": [80, 353, 0] } ] } ] }"#;
    for (path, text) in [("/d.gui", defold), ("/j.gui", json)] {
        let r = res(&[(path, text.as_bytes())]);
        let s = load(&r, path).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(s.layouts.len(), 1, "{path}");
        assert_eq!(s.layout_index("Landscape"), Some(1));
        assert_eq!(s.layout_index("Default"), Some(0));
        assert_eq!(s.layout_name(1), "Landscape");
        let l = s.layout_nodes(1);
        assert_eq!(l.len(), s.nodes.len());
        let panel = s.node_index("panel").expect("panel");
        assert_eq!(l[panel].position, glam::Vec3::new(80.0, 353.0, 0.0), "{path}: the overridden position");
        assert_eq!(l[panel].size, [100.0, 50.0], "{path}: the size is not overridden, whatever is written");
        assert_eq!(s.layout_nodes(0)[panel].position, glam::Vec3::new(10.0, 20.0, 0.0));
        let score = s.node_index("score").expect("score");
        assert_eq!(l[score].parent, Some(panel), "{path}: the tree is the scene's");
        assert_eq!(l[score].text, "Score:\n");
    }
    let bad = r#"{ "nodes": [ { "id": "panel" } ],
  "layouts": [ { "name": "Wide", "nodes": [ { "id": "ghost", "position": [1, 2, 0] },
                                             { "id": "panel", "pivot": "sideways" } ] },
               { "name": "Wide" } ] }"#;
    let r = res(&[("/b.gui", bad.as_bytes())]);
    let e = load(&r, "/b.gui").expect_err("refused").to_string();
    assert!(e.contains("/b.gui:2:") && e.contains("layout 'Wide': node 'ghost' is not in the scene"), "{e}");
    assert!(e.contains("/b.gui:3:") && e.contains("unknown pivot 'sideways'"), "{e}");
    assert!(e.contains("/b.gui:4:") && e.contains("layout name 'Wide' is used twice"), "{e}");
    // Each layout copies every node: a large scene with many layouts is refused before any is.
    let nodes: Vec<String> = (0..5000).map(|i| format!("{{ \"id\": \"n{i}\" }}")).collect();
    let layouts: Vec<String> = (0..20).map(|i| format!("{{ \"name\": \"L{i}\" }}")).collect();
    let huge = format!("{{ \"nodes\": [{}], \"layouts\": [{}] }}", nodes.join(","), layouts.join(","));
    let r = res(&[("/h.gui", huge.as_bytes())]);
    let e = load(&r, "/h.gui").expect_err("refused").to_string();
    assert!(e.contains("20 layouts of 5000 nodes: more than 65536 layout nodes in all"), "{e}");
}
