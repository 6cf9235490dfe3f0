//! Automatic skin weights (rigs.md section 2.3, exact): primary bone by capsule distance, then
//! Microbe3D's soft joints sharing up to half of a vertex with the next or previous bone.
//!
//! The kernel takes slices and allocates nothing per call: the per-bone data is prepared once in
//! [`WeightRig::new`], and each vertex is one pass over the bones (plus, for a vertex past its
//! bone's MAX, a second look at the few children that start where that bone ends). Distances are
//! computed in f64 from the f32 positions, so ties the file writes exactly stay exact.
use super::parse::BonFile;

const NO_BONE: u32 = u32::MAX;

#[derive(Debug, Clone, PartialEq)]
struct KernelBone {
    pivot: [f64; 3],
    /// END − PIVOT.
    seg: [f64; 3],
    seg_len2: f64,
    /// −∞ when the file gives no radius (captures nothing, d ≥ 0).
    radius: f64,
    min: f64,
    max: f64,
    parent: u32,
    /// Range into `WeightRig::soft_children`: child bones whose PIVOT point is this bone's END.
    soft: (u32, u32),
}

/// The bones of one `.bon`, ready for [`WeightRig::weights`].
#[derive(Debug, Clone, PartialEq)]
pub struct WeightRig {
    bones: Vec<KernelBone>,
    soft_children: Vec<u32>,
}

/// One vertex's weights: at most two bones. `weights[1]` is 0 (and `bones[1]` = `bones[0]`)
/// for a vertex that belongs to one bone.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VertexWeights {
    pub bones: [u16; 2],
    pub weights: [f64; 2],
    /// The primary bone's radius reached the vertex (else it went to its nearest bone).
    pub captured: bool,
}

impl VertexWeights {
    /// Non-zero (bone, weight) pairs sorted by bone index (the `--weights` JSON layout).
    pub fn pairs(&self) -> impl Iterator<Item = (u16, f64)> {
        let mut p = [(self.bones[0], self.weights[0]), (self.bones[1], self.weights[1])];
        if p[1].0 < p[0].0 {
            p.swap(0, 1);
        }
        p.into_iter().filter(|(_, w)| *w != 0.0)
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

impl KernelBone {
    /// (t, d) of section 2.3.
    #[inline]
    fn measure(&self, v: [f64; 3]) -> (f64, f64) {
        let rel = sub(v, self.pivot);
        let t = if self.seg_len2 == 0.0 { 0.0 } else { (dot(rel, self.seg) / self.seg_len2).clamp(0.0, 1.0) };
        // Literally |v − (A + t s)|: the spec's order of operations, so that two bones over
        // the same segment (one reversed) tie exactly where the formula says they tie.
        let q = [self.pivot[0] + t * self.seg[0], self.pivot[1] + t * self.seg[1], self.pivot[2] + t * self.seg[2]];
        let off = sub(v, q);
        (t, dot(off, off).sqrt())
    }
}

impl WeightRig {
    pub fn new(file: &BonFile) -> WeightRig {
        let mut soft_children = Vec::new();
        let mut bones = Vec::with_capacity(file.bones.len());
        for (i, b) in file.bones.iter().enumerate() {
            let pivot = file.points[b.pivot].pos;
            let seg = sub(file.points[b.end].pos, pivot);
            let start = soft_children.len() as u32;
            for (k, c) in file.bones.iter().enumerate() {
                if c.parent == Some(i) && c.pivot == b.end {
                    soft_children.push(k as u32);
                }
            }
            bones.push(KernelBone {
                pivot,
                seg,
                seg_len2: dot(seg, seg),
                radius: b.radius.unwrap_or(f64::NEG_INFINITY),
                min: b.min,
                max: b.max,
                parent: b.parent.map_or(NO_BONE, |p| p as u32),
                soft: (start, soft_children.len() as u32),
            });
        }
        WeightRig { bones, soft_children }
    }

    pub fn bone_count(&self) -> usize {
        self.bones.len()
    }

    /// Weights of every position; `out` must be as long as `positions` (else nothing is written
    /// and false is returned). A rig without bones leaves `out` untouched too.
    pub fn weights(&self, positions: &[[f32; 3]], out: &mut [VertexWeights]) -> bool {
        self.fill(positions.len(), positions.iter().map(|p| p.map(f64::from)), out)
    }

    /// [`WeightRig::weights`] of coordinates as the file wrote them (the OBJ's `v` lines read
    /// as f64): `0.1` between bones at 0 and 0.2 is a tie, which its f32 rounding is not.
    pub fn weights_exact(&self, positions: &[[f64; 3]], out: &mut [VertexWeights]) -> bool {
        self.fill(positions.len(), positions.iter().copied(), out)
    }

    fn fill(&self, count: usize, positions: impl Iterator<Item = [f64; 3]>, out: &mut [VertexWeights]) -> bool {
        if out.len() != count || self.bones.is_empty() {
            return false;
        }
        for (v, o) in positions.zip(out.iter_mut()) {
            *o = self.vertex(v);
        }
        true
    }

    /// One vertex (the rig has at least one bone).
    pub fn vertex(&self, v: [f64; 3]) -> VertexWeights {
        let (mut best_in, mut best_in_d, mut best_in_t) = (NO_BONE, f64::INFINITY, 0.0);
        let (mut best, mut best_d, mut best_t) = (0u32, f64::INFINITY, 0.0);
        for (i, b) in self.bones.iter().enumerate() {
            let (t, d) = b.measure(v);
            // Strict `<`: on a tie the earlier bone stays.
            if d <= b.radius && d < best_in_d {
                (best_in, best_in_d, best_in_t) = (i as u32, d, t);
            }
            if d < best_d {
                (best, best_d, best_t) = (i as u32, d, t);
            }
        }
        let captured = best_in != NO_BONE;
        let (p, t) = if captured { (best_in, best_in_t) } else { (best, best_t) };
        let bone = &self.bones[p as usize];
        let single = VertexWeights { bones: [p as u16; 2], weights: [1.0, 0.0], captured };
        let children = &self.soft_children[bone.soft.0 as usize..bone.soft.1 as usize];
        if t > bone.max && !children.is_empty() {
            let (mut c, mut cd) = (children[0], f64::INFINITY);
            for &k in children {
                let (_, d) = self.bones[k as usize].measure(v);
                if d < cd {
                    (c, cd) = (k, d);
                }
            }
            let s = (t - bone.max) / (1.0 - bone.max);
            return VertexWeights { bones: [p as u16, c as u16], weights: [1.0 - s / 2.0, s / 2.0], captured };
        }
        if t < bone.min && bone.parent != NO_BONE {
            let s = (bone.min - t) / bone.min;
            return VertexWeights {
                bones: [p as u16, bone.parent as u16],
                weights: [1.0 - s / 2.0, s / 2.0],
                captured,
            };
        }
        single
    }
}
