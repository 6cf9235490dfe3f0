//! The node tree of the default scene, re-ordered so parents come before children (the animation
//! code computes world transforms in one pass), with world matrices for bounds.
use crate::project::model_data::NodeData;
use glam::{Mat4, Quat, Vec3};
use gltf::json;

pub(crate) struct Scene {
    /// Parents first; `NodeData::parent` indexes this list.
    pub nodes: Vec<NodeData>,
    /// glTF node index → index into `nodes` (None: not in the scene).
    pub map: Vec<Option<usize>>,
    /// Index into `nodes` → glTF node index.
    pub order: Vec<usize>,
    /// World matrix of each of `nodes` (model space).
    pub world: Vec<Mat4>,
}

/// The scene's nodes: `scene`, else scene 0, else every node that is nobody's child. A node with two
/// parents, a cycle or a non-finite transform is an error.
pub(crate) fn build(root: &json::Root) -> Result<Scene, String> {
    let n = root.nodes.len();
    let mut parent: Vec<Option<usize>> = vec![None; n];
    for (i, node) in root.nodes.iter().enumerate() {
        for (k, c) in node.children.iter().flatten().enumerate() {
            let c = c.value();
            let slot = parent.get_mut(c).ok_or_else(|| format!("nodes[{i}].children[{k}]: node {c} does not exist"))?;
            if let Some(p) = slot {
                return Err(format!("nodes[{i}].children[{k}]: node {c} already has parent {p}"));
            }
            *slot = Some(i);
        }
    }
    let roots: Vec<usize> = match root.scene.map(|s| s.value()).or(if root.scenes.is_empty() { None } else { Some(0) })
    {
        Some(s) => {
            let scene = root.scenes.get(s).ok_or_else(|| format!("scene: scene {s} does not exist"))?;
            scene.nodes.iter().map(|i| i.value()).collect()
        }
        None => (0..n).filter(|&i| parent.get(i).is_some_and(|p| p.is_none())).collect(),
    };
    // Walk down from the roots; with one parent per node, a visited node again means a cycle or a
    // root listed twice.
    let mut in_scene = vec![false; n];
    let mut stack = Vec::new();
    for (k, &r) in roots.iter().enumerate() {
        match parent.get(r) {
            None => return Err(format!("scenes[..].nodes[{k}]: node {r} does not exist")),
            Some(Some(p)) => return Err(format!("scenes[..].nodes[{k}]: node {r} is a child of node {p}, not a root")),
            Some(None) => stack.push(r),
        }
        while let Some(i) = stack.pop() {
            let seen = in_scene.get_mut(i).ok_or_else(|| format!("node {i} does not exist"))?;
            if *seen {
                return Err(format!("nodes[{i}] is reached twice (a cycle, or a root listed twice)"));
            }
            *seen = true;
            if let Some(node) = root.nodes.get(i) {
                stack.extend(node.children.iter().flatten().map(|c| c.value()));
            }
        }
    }
    // Keep the file's order where it already has parents first, so indices stay familiar.
    let mut map: Vec<Option<usize>> = vec![None; n];
    let mut order = Vec::new();
    for i in 0..n {
        if !in_scene.get(i).copied().unwrap_or(false) || map.get(i).is_some_and(|m| m.is_some()) {
            continue;
        }
        let mut chain = vec![i];
        let mut at = i;
        while let Some(Some(p)) = parent.get(at).copied() {
            if map.get(p).is_some_and(|m| m.is_some()) {
                break;
            }
            chain.push(p);
            at = p;
        }
        for &c in chain.iter().rev() {
            if let Some(slot) = map.get_mut(c) {
                *slot = Some(order.len());
            }
            order.push(c);
        }
    }
    let mut nodes = Vec::with_capacity(order.len());
    let mut world = Vec::with_capacity(order.len());
    for &g in &order {
        let node = root.nodes.get(g).ok_or_else(|| format!("node {g} does not exist"))?;
        let (t, r, s) = local_trs(node).ok_or_else(|| format!("nodes[{g}]: transform is not finite"))?;
        let p = parent.get(g).copied().flatten().and_then(|p| map.get(p).copied().flatten());
        let local = Mat4::from_scale_rotation_translation(Vec3::from(s), Quat::from_array(r), Vec3::from(t));
        world.push(p.and_then(|p| world.get(p).copied()).unwrap_or(Mat4::IDENTITY) * local);
        let name = node.name.clone().unwrap_or_default();
        nodes.push(NodeData { name, parent: p, translation: t, rotation: r, scale: s, gltf_index: g });
    }
    Ok(Scene { nodes, map, order, world })
}

type Trs = ([f32; 3], [f32; 4], [f32; 3]);

/// The node's local transform as TRS; a `matrix` is decomposed. None when anything is not finite.
fn local_trs(node: &json::scene::Node) -> Option<Trs> {
    let trs = match node.matrix {
        Some(m) if m.iter().all(|v| v.is_finite()) => {
            let (s, r, t) = Mat4::from_cols_array(&m).to_scale_rotation_translation();
            // A zero scale leaves no rotation to recover; identity is as good as any.
            let r = if r.is_finite() { r.normalize() } else { Quat::IDENTITY };
            (t.to_array(), r.to_array(), s.to_array())
        }
        Some(_) => return None,
        None => (
            node.translation.unwrap_or([0.0; 3]),
            node.rotation.map_or([0.0, 0.0, 0.0, 1.0], |q| q.0),
            node.scale.unwrap_or([1.0; 3]),
        ),
    };
    let finite = trs.0.iter().chain(&trs.1).chain(&trs.2).all(|v| v.is_finite());
    finite.then_some(trs)
}
