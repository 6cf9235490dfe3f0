//! The rig of a model: its skeleton and the union of its animation files' clips, built once per
//! set of files and shared by every instance made from them (`ModelWorld::rig`), and the
//! `.model`'s masks, IK chains and events resolved against it.
use crate::anim::ik::{Aim, Chain, TwoBone};
use crate::anim::layers::{AdditiveRefs, subtree_mask};
use crate::anim::{Clip, Skeleton};
use crate::base::error::LoadError;
use crate::base::hash::{Hash, hash_remembered};
use crate::project::model_data::{ClipData, ModelData};
use crate::project::{IkKindSpec, RigExtrasSpec};
use glam::Vec3;
use std::collections::HashMap;

/// A skeleton with the union of the animations of a model's `animations` files, by name.
pub struct Rig {
    /// The skeleton file's resource path.
    pub source: String,
    pub skeleton: Skeleton,
    pub clips: Vec<Clip>,
    /// Hash of each clip's name, in `clips` order.
    pub clip_ids: Vec<Hash>,
    pub clip_names: Vec<String>,
    /// Each clip's pose at its first key over the rest pose (an additive layer's reference),
    /// and each clip as its difference from it.
    pub additive: AdditiveRefs,
    /// Joint rotation limits, applied to every pose (rigs.md section 3).
    pub limits: Vec<crate::anim::limits::JointLimit>,
}

impl Rig {
    /// Builds the rig from the skeleton file's data and the animation files' clips. Clips of
    /// another file are matched to the skeleton's nodes by node name; a later file's clip of an
    /// already seen name is ignored (the first one wins).
    pub fn new(source: &str, skeleton: &ModelData, animation_files: &[&ModelData]) -> Result<Rig, LoadError> {
        let err = |e: crate::anim::RigError| LoadError::new(source, e.to_string());
        let sk = Skeleton::new(skeleton).map_err(err)?;
        let by_name: HashMap<&str, usize> =
            skeleton.nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
        let (mut clips, mut clip_ids, mut clip_names) = (Vec::new(), Vec::new(), Vec::new());
        for file in animation_files {
            for data in &file.animations {
                let id = hash_remembered(&data.name);
                if clip_ids.contains(&id) {
                    continue;
                }
                let remapped;
                let data = if std::ptr::eq(*file, skeleton) {
                    data
                } else {
                    for w in unmatched_channels(source, skeleton, file) {
                        log::warn!("{w}");
                    }
                    remapped = remap(data, file, &by_name);
                    &remapped
                };
                let clip = Clip::new(data, &sk)
                    .map_err(|e| LoadError::new(source, format!("animation '{}': {e}", data.name)))?;
                clips.push(clip);
                clip_ids.push(id);
                clip_names.push(data.name.clone());
            }
        }
        let additive = AdditiveRefs::new(&sk, &clips).map_err(|e| LoadError::new(source, e.to_string()))?;
        Ok(Rig { source: source.to_string(), skeleton: sk, clips, clip_ids, clip_names, additive, limits: Vec::new() })
    }

    pub fn clip_index(&self, id: Hash) -> Option<usize> {
        self.clip_ids.iter().position(|&c| c == id)
    }
}

/// One line per clip of `file` that targets nodes the skeleton `skeleton` (from `source`) has no
/// node of the same name for: those channels are dropped when the rig is built.
pub fn unmatched_channels(source: &str, skeleton: &ModelData, file: &ModelData) -> Vec<String> {
    let names: std::collections::HashSet<&str> = skeleton.nodes.iter().map(|n| n.name.as_str()).collect();
    let mut out = Vec::new();
    for clip in &file.animations {
        let mut missing: Vec<&str> = clip
            .channels
            .iter()
            .filter_map(|c| file.nodes.get(c.node).map(|n| n.name.as_str()))
            .filter(|n| !names.contains(n))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if !missing.is_empty() {
            let shown: Vec<String> = missing.iter().take(5).map(|n| format!("'{n}'")).collect();
            let more = if missing.len() > 5 { format!(" and {} more", missing.len() - 5) } else { String::new() };
            out.push(format!(
                "{}: animation '{}' targets node(s) {}{more} that skeleton {source} does not have; they are ignored",
                file.source,
                clip.name,
                shown.join(", ")
            ));
        }
    }
    out
}

/// A clip of another file, with its channels pointed at the skeleton's nodes of the same name.
fn remap(data: &ClipData, file: &ModelData, by_name: &HashMap<&str, usize>) -> ClipData {
    let mut out = data.clone();
    out.channels.retain_mut(|ch| {
        let target = file.nodes.get(ch.node).and_then(|n| by_name.get(n.name.as_str()));
        match target {
            Some(&t) => {
                ch.node = t;
                true
            }
            None => false,
        }
    });
    out
}

/// A `.model`'s masks, IK chains and events resolved against its rig (joint names to nodes,
/// clip names to indices). Shared by the instances of one model file.
#[derive(Debug, Default)]
pub struct RigExtras {
    /// (name hash, per-node coverage).
    pub masks: Vec<(Hash, std::sync::Arc<[f32]>)>,
    /// (name, name hash, chain).
    pub chains: Vec<(String, Hash, Chain)>,
    /// Events of each clip, by clip index (times ascending).
    pub events: Vec<ClipEvents>,
}

#[derive(Debug, Default, Clone)]
pub struct ClipEvents {
    pub times: Vec<f32>,
    pub ids: Vec<Hash>,
}

impl RigExtras {
    /// Names the `.model` (`source`) and the bad entry: an unknown joint or clip, an event after
    /// the clip's end, a two-bone chain whose joints are not parent and child.
    pub fn resolve(rig: &Rig, spec: &RigExtrasSpec, source: &str) -> Result<RigExtras, String> {
        let sk = &rig.skeleton;
        let joint = |what: &str, name: &str| {
            sk.find_joint(name)
                .or_else(|| (0..sk.node_count()).find(|&i| sk.name(i) == name))
                .ok_or_else(|| format!("{source}: {what}: no joint named '{name}'"))
        };
        let mut out = RigExtras { events: vec![ClipEvents::default(); rig.clips.len()], ..Default::default() };
        for (name, joints) in &spec.masks {
            let roots = joints.iter().map(|j| joint(&format!("mask '{name}'"), j)).collect::<Result<Vec<_>, _>>()?;
            out.masks.push((hash_remembered(name), subtree_mask(sk, &roots)));
        }
        for c in &spec.ik {
            let what = format!("ik chain '{}'", c.name);
            let chain = match &c.kind {
                IkKindSpec::TwoBone { joints, pole } => Chain::TwoBone(TwoBone {
                    root: joint(&what, &joints[0])?,
                    mid: joint(&what, &joints[1])?,
                    end: joint(&what, &joints[2])?,
                    pole: Vec3::from(*pole),
                }),
                IkKindSpec::Aim { joint: j, forward, up } => {
                    Chain::Aim(Aim { joint: joint(&what, j)?, forward: Vec3::from(*forward), up: Vec3::from(*up) })
                }
            };
            chain.validate(sk).map_err(|e| format!("{source}: {what}: {e}"))?;
            out.chains.push((c.name.clone(), hash_remembered(&c.name), chain));
        }
        for (clip, events) in &spec.events {
            let Some(i) = rig.clip_index(hash_remembered(clip)) else {
                let names = rig.clip_names.join(", ");
                return Err(format!("{source}: events: no animation named '{clip}' (animations: {names})"));
            };
            let d = rig.clips[i].duration();
            let list = &mut out.events[i];
            for e in events {
                if e.time > d + 1e-4 {
                    return Err(format!(
                        "{source}: event '{}' of '{clip}' at {} s is after its end ({d} s)",
                        e.id, e.time
                    ));
                }
                list.times.push(e.time.min(d));
                list.ids.push(hash_remembered(&e.id));
            }
        }
        Ok(out)
    }

    pub fn mask(&self, name: Hash) -> Option<&std::sync::Arc<[f32]>> {
        self.masks.iter().find(|(h, _)| *h == name).map(|(_, m)| m)
    }
    pub fn chain(&self, name: Hash) -> Option<usize> {
        self.chains.iter().position(|(_, h, _)| *h == name)
    }
}
