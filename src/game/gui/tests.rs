use super::layout::{adjust_scale, layout, position_for_screen};
use super::*;
use crate::project::gui::{AdjustMode, GuiScene, NodeKind, XAnchor, YAnchor};
use glam::Vec3;

fn node(id: &str, kind: NodeKind, parent: Option<usize>, position: [f32; 2]) -> GuiNode {
    let mut n = crate::project::gui::scene::default_node(kind);
    n.id = id.into();
    n.parent = parent;
    n.position = Vec3::new(position[0], position[1], 0.0);
    n.size = [100.0, 50.0];
    n
}

fn scene(nodes: Vec<GuiNode>) -> GuiScene {
    GuiScene {
        path: "/t.gui".into(),
        script: None,
        fonts: Vec::new(),
        font_files: Vec::new(),
        images: Vec::new(),
        layers: vec!["a".into(), "b".into()],
        nodes,
        effects: Vec::new(),
        materials: Vec::new(),
        layouts: Vec::new(),
    }
}

#[test]
fn adjust_modes_scale_by_the_window_to_display_ratio() {
    let (d, w) = ((960, 540), (540, 960));
    assert_eq!(adjust_scale(AdjustMode::Fit, d, w), (0.5625, 0.5625));
    assert_eq!(adjust_scale(AdjustMode::Zoom, d, w), (960.0 / 540.0, 960.0 / 540.0));
    assert_eq!(adjust_scale(AdjustMode::Stretch, d, w), (0.5625, 960.0 / 540.0));
}

#[test]
fn anchors_keep_distances_to_their_edges_and_children_follow() {
    let mut right = node("r", NodeKind::Box, None, [940.0, 520.0]);
    (right.xanchor, right.yanchor) = (XAnchor::Right, YAnchor::Top);
    let centre = node("c", NodeKind::Box, None, [480.0, 270.0]);
    let mut child = node("k", NodeKind::Box, Some(1), [10.0, 0.0]);
    child.inherit_alpha = true;
    let mut faded = centre.clone();
    faded.color[3] = 0.5;
    let nodes = vec![right, faded, child];
    let p = layout(&nodes, (960, 540), (1920, 1080));
    // 20 display pixels from the right and top edges: 40 window pixels at twice the size.
    assert_eq!(p[0].world.w_axis.truncate(), Vec3::new(1880.0, 1040.0, 0.0));
    assert_eq!(p[1].world.w_axis.truncate(), Vec3::new(960.0, 540.0, 0.0));
    // The child is 10 of its parent's units right: 20 window pixels; half its parent's alpha.
    assert_eq!(p[2].world.w_axis.truncate(), Vec3::new(980.0, 540.0, 0.0));
    assert_eq!(p[2].alpha, 0.5);
    // Portrait: the centre stays the centre.
    let q = layout(&nodes, (960, 540), (540, 960));
    assert_eq!(q[1].world.w_axis.truncate(), Vec3::new(270.0, 480.0, 0.0));
}

/// `gui.set_screen_position` undoes the layout: for anchored and centred roots under every
/// adjust mode, for a rotated and scaled parent's child, on a window of another shape.
#[test]
fn a_position_for_a_screen_point_lands_the_node_there() {
    let mut right = node("r", NodeKind::Box, None, [940.0, 520.0]);
    (right.xanchor, right.yanchor) = (XAnchor::Right, YAnchor::Top);
    let mut left = node("l", NodeKind::Box, None, [20.0, 30.0]);
    (left.xanchor, left.yanchor, left.adjust_mode) = (XAnchor::Left, YAnchor::Bottom, AdjustMode::Stretch);
    let mut centre = node("c", NodeKind::Box, None, [480.0, 270.0]);
    centre.adjust_mode = AdjustMode::Zoom;
    centre.set_rotation(glam::Quat::from_rotation_z(0.7));
    centre.scale = Vec3::new(2.0, 0.5, 1.0);
    let child = node("k", NodeKind::Box, Some(2), [10.0, -4.0]);
    let mut nodes = vec![right, left, centre, child];
    let (display, window) = ((960, 540), (700, 900));
    for (i, target) in [(0, [650.0, 880.0]), (1, [5.0, 7.0]), (2, [300.0, 450.0]), (3, [123.0, 456.0])] {
        let target = Vec3::new(target[0], target[1], 0.25);
        let placed = layout(&nodes, display, window);
        let p = position_for_screen(&nodes, &placed, i, target, display, window).expect("invertible");
        nodes[i].position = p;
        let got = layout(&nodes, display, window)[i].world.w_axis.truncate();
        assert!((got - target).length() < 1e-3, "node {i}: {got} instead of {target}");
    }
    // A parent scaled to nothing has no position that reaches the point.
    nodes[2].scale = Vec3::ZERO;
    let placed = layout(&nodes, display, window);
    assert_eq!(position_for_screen(&nodes, &placed, 3, Vec3::ONE, display, window), None);
}

#[test]
fn nodes_batch_by_texture_and_disabled_subtrees_draw_nothing() {
    let mut w = GuiWorld::default();
    let mut nodes = Vec::new();
    for i in 0..50 {
        nodes.push(node(&format!("b{i}"), NodeKind::Box, None, [i as f32 * 10.0, 100.0]));
    }
    let mut text = node("t", NodeKind::Text, None, [100.0, 100.0]);
    text.text = "Score".into();
    nodes.push(text);
    let mut pie = node("p", NodeKind::Pie, None, [100.0, 100.0]);
    pie.pie_fill_angle = 90.0;
    nodes.push(pie);
    let mut off = node("off", NodeKind::Box, None, [0.0, 0.0]);
    off.enabled = false;
    nodes.push(off);
    nodes.push(node("under_off", NodeKind::Box, Some(nodes.len() - 1), [0.0, 0.0]));
    w.create(0, "gui", &crate::project::gui::GuiSpec::new(scene(nodes)));
    let list = w.build((960, 540), (960, 540));
    // 50 boxes (one batch), the text (glyphs), the pie (white again).
    assert_eq!(list.draw_calls(), 3);
    let vertices = list.vertices.len() / crate::project::font::quads::FLOATS;
    let pie_vertices = 8 * 6;
    assert_eq!(vertices, 50 * 6 + 5 * 6 + pie_vertices);
}

#[test]
fn a_node_moved_under_a_later_parent_is_placed_after_it_and_deleted_nodes_are_not() {
    // 0 is put under 2 (gui.set_parent): it must be laid out after 2, in 2's space.
    let mut a = node("a", NodeKind::Box, Some(2), [10.0, 0.0]);
    a.inherit_alpha = true;
    let b = node("b", NodeKind::Box, None, [0.0, 0.0]);
    let mut c = node("c", NodeKind::Box, None, [480.0, 270.0]);
    c.color[3] = 0.5;
    let mut gone = node("gone", NodeKind::Box, None, [0.0, 0.0]);
    gone.deleted = true;
    let under_gone = node("under_gone", NodeKind::Box, Some(3), [0.0, 0.0]);
    let nodes = vec![a, b, c, gone, under_gone];
    assert_eq!(super::layout::order(&nodes), vec![1, 2, 0]);
    let p = layout(&nodes, (960, 540), (960, 540));
    assert_eq!(p[0].world.w_axis.truncate(), Vec3::new(490.0, 270.0, 0.0));
    assert_eq!(p[0].alpha, 0.5);
    assert!(p[0].enabled && !p[3].enabled && !p[4].enabled);
    // Scenes as loaded keep index order.
    let plain = vec![node("x", NodeKind::Box, None, [0.0; 2]), node("y", NodeKind::Box, Some(0), [0.0; 2])];
    assert_eq!(super::layout::order(&plain), vec![0, 1]);
}

#[test]
fn a_reloaded_scene_keeps_what_the_script_changed_and_takes_the_rest() {
    let mut w = GuiWorld::default();
    let old = vec![node("keep", NodeKind::Text, None, [1.0, 1.0]), node("drop", NodeKind::Box, None, [2.0, 2.0])];
    let i = w.create(0, "gui", &crate::project::gui::GuiSpec::new(scene(old)));
    let g = w.get_mut(i).expect("instance");
    g.nodes[0].text = "script".into();
    let mut made = node("", NodeKind::Box, Some(0), [3.0, 3.0]);
    made.layer = Some(1);
    let made_at = g.add(made);
    assert_eq!(made_at, 2);
    let old_drop = g.handle(1);
    let mut keep = node("keep", NodeKind::Text, None, [5.0, 5.0]);
    keep.text = "file".into();
    let added = node("added", NodeKind::Box, Some(0), [7.0, 7.0]);
    let mut new = scene(vec![keep, added]);
    new.layers = vec!["b".into()];
    assert_eq!(w.reload_scene("/t.gui", &Arc::new(new)), 1);
    let g = w.get_mut(i).expect("instance");
    // The script's text stays; the file's new position is taken.
    assert_eq!(g.nodes[0].text, "script");
    assert_eq!(g.nodes[0].position, Vec3::new(5.0, 5.0, 0.0));
    // The node the file lost is deleted; the added one takes its slot, a new generation, so
    // the lost node's handle is refused.
    assert_eq!(g.nodes[1].id, "added");
    assert_eq!(g.nodes[1].parent, Some(0), "a new node's parent by the file");
    assert!(g.resolve(old_drop).is_err() && g.resolve(g.handle(1)) == Ok(1));
    assert!(!g.nodes[2].deleted && g.nodes[2].parent == Some(0), "the script's node stays");
    assert_eq!(g.nodes[2].layer, Some(0), "its layer is found again by name");
    assert_eq!(g.scene_nodes, vec![0, 1]);
    // reset_nodes goes back to the new file, at the same handles; the script's node is gone
    // and its slot is free for the next.
    let made_handle = g.handle(2);
    g.reset();
    assert_eq!(g.nodes[0].text, "file");
    assert!(g.nodes[2].deleted && !g.nodes[1].deleted);
    assert!(g.resolve(made_handle).is_err());
    assert_eq!(g.add(node("next", NodeKind::Box, None, [0.0; 2])), 2);
    assert!(g.resolve(made_handle).is_err(), "a reused slot refuses the old handle");
}

/// A node's angles and the rotation made from them are one value through a reload: a turn
/// the file changed is taken whole (`gui.get_euler` reads the file's new angles), and one the
/// script set is kept whole.
#[test]
fn a_reload_takes_a_nodes_angles_with_its_rotation() {
    let mut w = GuiWorld::default();
    let mut file_turned = node("file", NodeKind::Box, None, [0.0; 2]);
    file_turned.set_euler(Vec3::new(0.0, 0.0, 10.0));
    let mut script_turned = node("script", NodeKind::Box, None, [0.0; 2]);
    script_turned.set_euler(Vec3::new(0.0, 0.0, 10.0));
    let i = w.create(0, "gui", &crate::project::gui::GuiSpec::new(scene(vec![file_turned, script_turned])));
    w.get_mut(i).expect("instance").nodes[1].set_euler(Vec3::new(0.0, 180.0, 30.0));
    let mut a = node("file", NodeKind::Box, None, [0.0; 2]);
    a.set_euler(Vec3::new(0.0, 180.0, 90.0));
    let mut b = node("script", NodeKind::Box, None, [0.0; 2]);
    b.set_euler(Vec3::new(0.0, 0.0, 45.0));
    assert_eq!(w.reload_scene("/t.gui", &Arc::new(scene(vec![a.clone(), b]))), 1);
    let g = w.get_mut(i).expect("instance");
    assert_eq!((g.nodes[0].euler, g.nodes[0].rotation), (a.euler, a.rotation), "the file's new turn");
    let mut kept = node("script", NodeKind::Box, None, [0.0; 2]);
    kept.set_euler(Vec3::new(0.0, 180.0, 30.0));
    assert_eq!((g.nodes[1].euler, g.nodes[1].rotation), (kept.euler, kept.rotation), "the script's turn");
}

#[test]
fn a_node_the_script_deleted_stays_deleted_across_a_reload() {
    let mut w = GuiWorld::default();
    let nodes = vec![node("a", NodeKind::Box, None, [1.0, 1.0]), node("b", NodeKind::Box, None, [2.0, 2.0])];
    let i = w.create(0, "gui", &crate::project::gui::GuiSpec::new(scene(nodes.clone())));
    let g = w.get_mut(i).expect("instance");
    let b = g.handle(1);
    g.delete(&[1]);
    assert!(g.free.is_empty(), "a scene node's slot is not reused");
    assert_eq!(w.reload_scene("/t.gui", &Arc::new(scene(nodes))), 1);
    let g = w.get_mut(i).expect("instance");
    assert_eq!(g.nodes.len(), 2);
    assert!(g.resolve(b).is_err(), "still deleted");
    g.reset();
    assert_eq!(g.resolve(b), Ok(1), "reset_nodes brings it back under its handle");
}

/// An atlas scene: a 2-frame loop `blink` over two 4x4 images (red, blue) at 4 fps.
fn atlas_scene(nodes: usize) -> GuiScene {
    use crate::project::sprite::{Atlas, Flipbook, Frame, Playback};
    let atlas = Atlas {
        source: "/a.atlas".into(),
        width: 8,
        height: 4,
        rgba: Vec::new(),
        frames: vec![Frame { x: 0, y: 0, width: 4, height: 4 }, Frame { x: 4, y: 0, width: 4, height: 4 }],
        animations: vec![Flipbook {
            id: "blink".into(),
            frames: vec![0, 1],
            fps: 4.0,
            playback: Playback::LoopForward,
            flip_horizontal: false,
            flip_vertical: false,
        }],
        images: Vec::new(),
        hulls: Vec::new(),
        pivots: Vec::new(),
    };
    let image = crate::project::gui::GuiImage {
        name: "a".into(),
        path: "/a.atlas".into(),
        width: 8,
        height: 4,
        rgba: Arc::new(vec![255; 8 * 4 * 4]),
        atlas: Some(Arc::new(atlas)),
    };
    let mut s = scene(
        (0..nodes)
            .map(|i| {
                let mut n = node(&format!("n{i}"), NodeKind::Box, None, [i as f32 * 10.0, 0.0]);
                (n.texture, n.animation) = (Some(0), Some(0));
                n
            })
            .collect(),
    );
    s.images = vec![image];
    s
}

#[test]
fn nodes_on_different_frames_of_one_atlas_draw_in_one_batch() {
    let mut w = GuiWorld::default();
    w.create(0, "gui", &GuiSpec::new(atlas_scene(3)));
    // Two nodes a frame apart: one on frame 0, the others on frame 1.
    let g = &mut w.instances[0];
    g.set_flipbook_cursor(1, 0.5);
    g.set_flipbook_cursor(2, 0.5);
    assert_eq!(g.nodes.iter().map(|n| n.frame).collect::<Vec<_>>(), vec![0, 1, 1]);
    let list = w.build((960, 540), (960, 540));
    assert_eq!(list.draw_calls(), 1);
    assert_eq!(list.images.len(), 1);
    // Node 0 samples the left half of the page, node 1 the right.
    let u = |node: usize| list.vertices[node * 6 * 9 + 3];
    assert_eq!((u(0), u(1)), (0.0, 0.5));
}

#[test]
fn flipbooks_go_on_through_a_reload_and_stop_with_their_nodes() {
    let mut w = GuiWorld::default();
    w.create(0, "gui", &GuiSpec::new(atlas_scene(2)));
    w.animate_flipbooks(0.25, &[]);
    assert_eq!(w.instances[0].nodes[0].frame, 1, "4 fps: the second frame after 0.25 s");
    w.instances[0].set_flipbook_rate(1, 0.5);
    // The same file again: the flipbooks keep their place and rate.
    let again = Arc::new(atlas_scene(2));
    w.reload_scene("/t.gui", &again);
    let g = &w.instances[0];
    assert_eq!((g.flipbook_cursor(0), g.flipbook_rate(1)), (0.5, 0.5));
    assert_eq!(g.nodes[0].frame, 1);
    w.instances[0].delete(&[0]);
    assert!(w.instances[0].flipbook(0).is_none(), "a deleted node's flipbook is gone");
    w.instances[0].reset();
    assert_eq!(w.instances[0].flipbook_cursor(0), 0.0, "reset_nodes plays the file's animations from the start");
}

/// A scene with particle node `fx` at (100, 50) showing `effect`, its emitter on a one-frame
/// atlas that is the scene's image 0; `others` are more effects listed before it.
fn effect_scene(others: &[&str]) -> GuiScene {
    use crate::project::sprite::Atlas;
    let mut atlas = Atlas::one_frame("dot", false);
    atlas.source = "/dot.atlas".into();
    let image = crate::project::gui::GuiImage::of_atlas("", "/dot.atlas", atlas);
    let shared = image.atlas.clone().expect("an atlas");
    let text = "emitters {\n  id: \"e\"\n  mode: PLAY_MODE_LOOP\n  duration: 1\n  space: EMISSION_SPACE_WORLD\n  tile_source: \"/dot.atlas\"\n  animation: \"dot\"\n  max_particle_count: 64\n  type: EMITTER_TYPE_CIRCLE\n  properties { key: EMITTER_KEY_SPAWN_RATE points { y: 60.0 } }\n  properties { key: EMITTER_KEY_PARTICLE_LIFE_TIME points { y: 1.0 } }\n  properties { key: EMITTER_KEY_PARTICLE_SIZE points { y: 4.0 } }\n  properties { key: EMITTER_KEY_PARTICLE_RED points { y: 1.0 } }\n  properties { key: EMITTER_KEY_PARTICLE_ALPHA points { y: 1.0 } }\n}\n";
    let spec = crate::project::particlefx::parse("/e.particlefx", text, &mut |_, _| Ok(shared.clone()))
        .unwrap_or_else(|e| panic!("{e:?}"));
    let spec = Arc::new(spec);
    let mut fx = node("fx", NodeKind::ParticleFx, None, [100.0, 50.0]);
    fx.effect = Some(others.len());
    let mut s = scene(vec![fx, node("box", NodeKind::Box, None, [10.0, 10.0])]);
    s.images = vec![image];
    s.effects = others.iter().map(|n| (n.to_string(), spec.clone())).collect();
    s.effects.push(("effect".into(), spec));
    s
}

/// A played particle node's effect runs at the node in screen pixels and draws there with the
/// emitter's atlas image; a reloaded scene names the effect again by name (its instance, made
/// for the old file, goes); a deleted node's instance goes; both leave nothing behind.
#[test]
fn particle_nodes_run_at_their_node_and_go_with_it() {
    let mut gui = GuiWorld::default();
    let g = gui.create(0, "gui", &GuiSpec::new(effect_scene(&[])));
    assert!(gui.play_effect(g, 1, None).unwrap_err().contains("node 'box' is not a particlefx node"));
    gui.play_effect(g, 0, None).expect("played");
    let screen = ((200, 100), (200, 100));
    gui.build(screen.0, screen.1);
    for _ in 0..10 {
        gui.step_effects(1.0 / 60.0);
    }
    let instance = gui.instances[0].effects[0].instance;
    let alive = gui.particles.get(instance).map_or(0, |p| p.count());
    assert!(alive >= 8, "{alive} particles after ten frames at 60 a second");
    let list = gui.build(screen.0, screen.1);
    assert!(list.batches.iter().any(|b| b.texture == GuiTexture::Image(0)), "{:?}", list.batches);
    // Every particle vertex near the node (a circle emitter of size 0, speed 0).
    let floats = crate::project::font::quads::FLOATS;
    for b in list.batches.iter().filter(|b| b.texture == GuiTexture::Image(0)) {
        let vertices = &list.vertices[b.first as usize * floats..(b.first + b.count) as usize * floats];
        for v in vertices.chunks_exact(floats) {
            assert!((v[0] - 100.0).abs() <= 4.0 && (v[1] - 50.0).abs() <= 4.0, "vertex at ({}, {})", v[0], v[1]);
        }
    }
    // Playing again keeps the instance (its living particles stay).
    gui.play_effect(g, 0, None).expect("played");
    assert_eq!(gui.instances[0].effects[0].instance, instance);

    // A reload listing another effect first: the node's effect is the same name at index 1.
    let reloaded = Arc::new(effect_scene(&["other"]));
    assert_eq!(gui.reload_scene("/t.gui", &reloaded), 1);
    assert_eq!(gui.instances[0].nodes[0].effect, Some(1));
    gui.step_effects(1.0 / 60.0);
    assert!(gui.instances[0].effects.is_empty() && gui.particles.get(instance).is_none(), "the old instance goes");
    gui.play_effect(g, 0, None).expect("played after the reload");
    let again = gui.instances[0].effects[0].instance;
    assert!(Arc::ptr_eq(&gui.particles.get(again).expect("made").spec, &reloaded.effects[1].1));

    gui.instances[0].delete(&[0]);
    gui.step_effects(1.0 / 60.0);
    assert!(gui.instances[0].effects.is_empty() && gui.particles.get(again).is_none(), "a deleted node's goes");
    assert!(gui.play_effect(g, 0, None).is_err(), "a deleted node plays nothing");

    // A node a script made, played, deleted, and a new one in its slot in the same frame: the
    // new node starts without the old one's particles.
    let made = effect_scene(&[]).nodes[0].clone();
    let k = gui.instances[0].add(made.clone());
    gui.play_effect(g, k, None).expect("played");
    for _ in 0..10 {
        gui.step_effects(1.0 / 60.0);
    }
    let old = gui.instances[0].effects[0].instance;
    assert!(gui.particles.get(old).is_some_and(|p| p.count() > 0));
    gui.instances[0].delete(&[k]);
    let k2 = gui.instances[0].add(made);
    assert_eq!(k2, k, "the slot is reused");
    gui.play_effect(g, k2, None).expect("played");
    let fresh = gui.instances[0].effects.iter().find(|e| e.node == k2).expect("an instance").instance;
    assert_eq!(gui.particles.get(fresh).map(|p| p.count()), Some(0), "a fresh instance, no particles yet");
}

/// Draw order is depth first, siblings by (rank, index): a scene's file order, a reparented
/// node last under its new parent (not at the end of everything), and `move_node` puts a node
/// right above or below its reference, or first or last among the roots, as Defold's
/// `gui.move_above` / `move_below`.
#[test]
fn nodes_draw_depth_first_and_move_above_and_below_their_siblings() {
    // Roots a, b; a's child a1 (the file order, depth first).
    let nodes = vec![
        node("a", NodeKind::Box, None, [0.0, 0.0]),
        node("a1", NodeKind::Box, Some(0), [0.0, 0.0]),
        node("b", NodeKind::Box, None, [0.0, 0.0]),
    ];
    let mut gui = GuiWorld::default();
    let g = gui.create(0, "gui", &GuiSpec::new(scene(nodes))) as usize;
    let g = &mut gui.instances[g];
    let ids = |g: &GuiInstance| layout::order(&g.nodes).iter().map(|&i| g.nodes[i].id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(g), ["a", "a1", "b"]);
    // A new root draws last; reparented under a, it draws after a's other children.
    let mut n = node("n", NodeKind::Box, None, [0.0, 0.0]);
    n.rank = 0;
    let k = g.add(n);
    assert_eq!(ids(g), ["a", "a1", "b", "n"]);
    g.nodes[k].parent = Some(0);
    g.nodes[k].rank = g.take_rank();
    assert_eq!(ids(g), ["a", "a1", "n", "b"]);
    // n above b: a sibling of b (a root), right after it; a1 below n: a root before n.
    g.move_node(k, Some(2), true).expect("moved");
    assert_eq!(g.nodes[k].parent, None);
    assert_eq!(ids(g), ["a", "a1", "b", "n"]);
    g.move_node(1, Some(k), false).expect("moved");
    assert_eq!(ids(g), ["a", "b", "a1", "n"]);
    // Without a reference: the last root, or the first.
    g.move_node(0, None, true).expect("moved");
    assert_eq!(ids(g), ["b", "a1", "n", "a"]);
    g.move_node(k, None, false).expect("moved");
    assert_eq!(ids(g), ["n", "b", "a1", "a"]);
    // A node made now still draws last among the roots.
    g.add(node("m", NodeKind::Box, None, [0.0, 0.0]));
    assert_eq!(ids(g), ["n", "b", "a1", "a", "m"]);
    // A reference under the node is refused (a cycle); the order stays.
    g.nodes[1].parent = Some(0);
    assert!(g.move_node(0, Some(1), true).unwrap_err().contains("under the node"));
    assert_eq!(g.nodes[0].parent, None);
}

/// A scene with layouts shows the one fitting the window from its start, switches when the
/// window turns, resets only the file's live nodes (keeping parents and draw order), lays out
/// from the profile's size, and stays put when automatic selection is off.
#[test]
fn layouts_follow_the_window() {
    use crate::project::gui::GuiLayout;
    let nodes =
        vec![node("panel", NodeKind::Box, None, [10.0, 10.0]), node("gone", NodeKind::Box, Some(0), [0.0, 0.0])];
    let mut s = scene(nodes.clone());
    let mut tall = nodes.clone();
    tall[0].position = Vec3::new(360.0, 1200.0, 0.0);
    let mut wide = nodes;
    wide[0].position = Vec3::new(80.0, 360.0, 0.0);
    s.layouts =
        vec![GuiLayout { name: "Portrait".into(), nodes: tall }, GuiLayout { name: "Landscape".into(), nodes: wide }];
    let mut w = GuiWorld { screen: ((960, 640), (720, 720)), ..GuiWorld::default() };
    let i = w.create(0, "gui", &crate::project::gui::GuiSpec::new(s));
    let g = &w.instances[i as usize];
    assert_eq!((g.layout, g.resolution), (1, Some((720, 1280))), "a square window is portrait");
    assert_eq!(g.nodes[0].position, Vec3::new(360.0, 1200.0, 0.0));
    assert_eq!(w.screen_of(i).0, (720, 1280));
    // A script's changes: a moved node, a deleted one, a new one.
    let g = &mut w.instances[i as usize];
    g.nodes[0].position = Vec3::ZERO;
    g.delete(&[1]);
    let made = g.add(node("made", NodeKind::Box, Some(0), [5.0, 5.0]));
    let rank = g.nodes[0].rank;
    assert!(w.follow_window((720, 720)).is_empty(), "no switch while the layout fits");
    let changes = w.follow_window((740, 720));
    assert_eq!(changes, vec![display_layouts::LayoutChange { instance: i, layout: 2, previous: 1 }]);
    let g = &w.instances[i as usize];
    assert_eq!(g.nodes[0].position, Vec3::new(80.0, 360.0, 0.0), "the layout's value replaces the script's");
    assert_eq!(g.nodes[0].rank, rank);
    assert!(g.nodes[1].deleted, "a deleted node stays deleted");
    assert_eq!((g.nodes[made].position, g.nodes[made].parent), (Vec3::new(5.0, 5.0, 0.0), Some(0)));
    assert_eq!(w.screen_of(i).0, (1280, 720));
    let sizes = w.layouts(i);
    assert_eq!(
        sizes,
        [("Default".to_string(), (1280, 720)), ("Portrait".into(), (720, 1280)), ("Landscape".into(), (1280, 720))],
        "the default layout's size is the scene's present one"
    );
    use display_layouts::{LayoutChange, LayoutSet};
    let back = LayoutSet::Changed(LayoutChange { instance: i, layout: 0, previous: 2 });
    assert_eq!(w.set_layout(i, "Default"), Ok(back));
    assert_eq!(w.screen_of(i).0, (1280, 720), "no profile is named Default: the size stays, as Defold's");
    assert_eq!(w.set_layout(i, "Default"), Ok(LayoutSet::Same));
    assert_eq!(w.set_layout(i, "Square"), Ok(LayoutSet::Unknown));
    assert_eq!(w.instances[i as usize].layout, 0);
    assert!(w.follow_window((740, 720)).is_empty(), "a layout a script set stays while the window does");
    assert_eq!(w.instances[i as usize].layout, 0);
    assert_eq!(w.follow_window((720, 720)).len(), 1, "a new window size chooses again");
    assert_eq!(w.instances[i as usize].layout, 1);
    w.set_profiles(crate::project::display_profiles::DisplayProfiles {
        auto_layout_selection: false,
        ..Default::default()
    });
    assert!(w.follow_window((1000, 400)).is_empty());
    assert_eq!(w.instances[i as usize].layout, 1, "no automatic choice: the layout stays");
}
