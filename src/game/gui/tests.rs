use super::layout::{adjust_scale, layout};
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
        images: Vec::new(),
        layers: vec!["a".into(), "b".into()],
        nodes,
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
