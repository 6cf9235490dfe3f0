//! Posing bones from scripts (rigs.md section 4): for a model with no animation (always for a
//! `.bon` rig), the bone game objects are the pose. Bone objects are children of the model's
//! object holding model-space transforms (as the animation writes them), so a script's write is
//! found by comparing each bone object with what the pose wrote last; that bone's local transform
//! becomes parent⁻¹ × the written one, and every bone not written keeps its local transform and
//! follows its parent. The limits clamp the locals, and the bones are written back (a clamped
//! one with its clamped value, so `go.get` reads the limit), all in the frame of the write.
//!
//! The buffers are sized once per rig; a frame allocates nothing. The instance's state
//! (`AnimState::pose_from_bones`) runs the two halves around the rest of its pose.
use crate::anim::{Skeleton, Transform};
use crate::scene::Scene;
use glam::{Mat4, Quat, Vec3};

/// Per-instance state of script posing.
#[derive(Debug, Clone, Default)]
pub struct BonePose {
    /// Per bone object: the transform the pose last wrote (or found) there.
    written: Vec<(Vec3, Quat, Vec3)>,
    /// Per skeleton node: what a script wrote this frame (position, rotation, scale, each only
    /// when it changed).
    set: Vec<Option<Written>>,
    /// Per node: the local rotation derived from a script's write, before the limits.
    derived: Vec<Option<Quat>>,
}

/// The parts of a bone object's transform a script changed.
#[derive(Debug, Clone, Copy, Default)]
struct Written {
    t: Option<Vec3>,
    r: Option<Quat>,
    s: Option<Vec3>,
}

impl BonePose {
    /// The first half of a frame of script posing: what scripts wrote to the bone objects
    /// `bones` (skeleton node, object slot) becomes the local transforms `locals` and model
    /// matrices `model` of skeleton `sk`, ready for the rest of the pose (IK, limits, palettes).
    pub fn take_writes(
        &mut self,
        sk: &Skeleton,
        bones: &[(usize, u32)],
        locals: &mut [Transform],
        model: &mut [Mat4],
        scene: &mut Scene,
    ) {
        let n = sk.node_count();
        let bp = self;
        if bp.written.len() != bones.len() || bp.set.len() != n {
            // New bones (creation or a reload): they were spawned at (or, kept from the old rig, are
            // compared with) the current pose, so a bone a script had moved stays where it was put.
            bp.written = bones.iter().map(|&(node, _)| decompose(model.get(node))).collect();
            bp.set = vec![None; n];
            bp.derived = vec![None; n];
        }
        let mut any = false;
        for (b, &(node, slot)) in bones.iter().enumerate() {
            // The last animated frame left the bones driven: they are read (and written) here.
            scene.settle_for_write(slot);
            let k = slot as usize;
            let (Some(&t), Some(&r), Some(&s)) = (scene.position.get(k), scene.rotation.get(k), scene.scale.get(k))
            else {
                continue;
            };
            let (wt, wr, ws) = bp.written[b];
            if (t, r, s) != (wt, wr, ws) && node < n {
                // Each part on its own: a script turning a bone whose parent it also moved this
                // frame did not mean to pin the bone's (stale) position.
                bp.set[node] =
                    Some(Written { t: (t != wt).then_some(t), r: (r != wr).then_some(r), s: (s != ws).then_some(s) });
                any = true;
            }
        }
        if any {
            // Parents come first: each parent's model matrix is final when its children read it.
            for i in 0..n {
                let parent = sk.parent(i).and_then(|p| model.get(p).copied()).unwrap_or(Mat4::IDENTITY);
                if let (Some(w), Some(l)) = (bp.set[i].take(), locals.get_mut(i)) {
                    let (ps, pr, _) = parent.to_scale_rotation_translation();
                    if let Some(t) = w.t.map(|t| parent.inverse().transform_point3(t)).filter(|t| t.is_finite()) {
                        l.translation = t.into();
                    }
                    if let Some(r) = w.r.map(|r| (pr.inverse() * r).normalize()).filter(|r| r.is_finite()) {
                        l.rotation = r;
                        bp.derived[i] = Some(r);
                    }
                    if let Some(s) = w.s.map(|s| s / ps).filter(|s| s.is_finite()) {
                        l.scale = s.into();
                    }
                }
                if let (Some(l), Some(out)) = (locals.get(i).copied(), model.get_mut(i)) {
                    *out = parent * l.to_mat4();
                }
            }
        }
    }

    /// The second half, once the pose is finished: the bone objects get their joints' model
    /// matrices (a bone whose rotation a script wrote and the limits kept keeps it as written).
    pub fn write_back(&mut self, bones: &[(usize, u32)], locals: &[Transform], model: &[Mat4], scene: &mut Scene) {
        let bp = self;
        for (b, &(node, slot)) in bones.iter().enumerate() {
            let k = slot as usize;
            let derived = bp.derived.get_mut(node).and_then(Option::take);
            let kept = derived.is_some_and(|r| locals.get(node).is_some_and(|l| l.rotation == r));
            if kept {
                // Exactly as the script wrote it (its Euler angles stay readable as written).
                bp.written[b] = (scene.position[k], scene.rotation[k], scene.scale[k]);
                continue;
            }
            let w = decompose(model.get(node));
            (scene.position[k], scene.rotation[k], scene.scale[k]) = w;
            bp.written[b] = w;
        }
    }
}

fn decompose(m: Option<&Mat4>) -> (Vec3, Quat, Vec3) {
    let (s, r, t) = m.copied().unwrap_or(Mat4::IDENTITY).to_scale_rotation_translation();
    (t, r, s)
}
