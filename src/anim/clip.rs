//! Animation clips in runtime form and exact sampling ("Sinew decisions": glTF keys at their own
//! times, no resampling). A [`Clip`] is converted once from [`ClipData`]: keys of all tracks in two
//! flat arrays, quaternion keys normalised, morph-weight channels re-targeted at their mesh's slot
//! in the weights buffer, identical key-time lists stored once (exporters usually key every
//! channel at the same frames, so one search serves them all). Sampling writes into caller slices
//! and allocates nothing; a [`SamplingCache`] remembers the last key of each time list so forward
//! playback needs no search.
use super::skeleton::{RigError, Skeleton, need};
use super::transform::{
    NearSlerp4, SlerpAt, Transform, column_quats, quat_columns, quat_mul4, renormalise4, slerp, slerp4, transpose4,
};
use crate::project::model_data::{ChannelPath, ClipData, Interpolation};
use glam::{Quat, Vec3A, Vec4};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Track {
    path: ChannelPath,
    interpolation: Interpolation,
    /// Node index, or the first slot in the weights buffer for `Weights`.
    target: u32,
    components: u32,
    /// Index into `Clip::time_lists`.
    times: u32,
    first_value: u32,
}

/// The LINEAR translation, rotation and scale tracks of one key-time list (the bulk of an
/// exported character clip), stored key-major: key `k` of every track of the group sits in one
/// contiguous run of `Vec4`s (vec3 padded with 0), translations first, then rotations, then
/// scales. One key search serves the whole group, and a sample reads two contiguous runs
/// (keys `k` and `k + 1`) instead of two scattered places per track.
#[derive(Debug, Clone, PartialEq)]
struct LinearGroup {
    /// Index into `Clip::time_lists`.
    times: u32,
    /// Target node of each track: `translations`, then rotations, then `scales` of them.
    nodes: Vec<u32>,
    translations: usize,
    scales: usize,
    /// `keys × nodes.len()` values.
    keys: Vec<Vec4>,
    /// Difference clips only: the rotation keys again, four tracks per block as SIMD columns
    /// (`[x, y, z, w]`, a short last block repeating its first track), so the additive kernel
    /// loads them without a transpose. Empty otherwise.
    columns: Vec<Vec4>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    name: String,
    duration: f32,
    /// Tracks sampled one by one (STEP, CUBICSPLINE, weights, and properties keyed twice).
    tracks: Vec<Track>,
    /// All other tracks, grouped by time list.
    groups: Vec<LinearGroup>,
    track_count: usize,
    /// (first, count) of each distinct key-time list in `times`.
    time_lists: Vec<(u32, u32)>,
    times: Vec<f32>,
    values: Vec<f32>,
    /// Locals / weights entries a sample writes to (largest target + 1).
    node_span: usize,
    weight_span: usize,
    /// Made by [`Clip::difference`]: keys are differences from a reference pose.
    difference: bool,
}

impl Clip {
    /// Converts a glTF clip for `skeleton`. Everything the sampler indexes is validated here
    /// (targets in range, key counts, increasing finite times, finite values), so a clip that
    /// converts can be sampled without bounds failures.
    pub fn new(data: &ClipData, skeleton: &Skeleton) -> Result<Clip, RigError> {
        let mut clip = Clip {
            name: data.name.clone(),
            duration: if data.duration.is_finite() { data.duration.max(0.0) } else { 0.0 },
            tracks: Vec::with_capacity(data.channels.len()),
            groups: Vec::new(),
            track_count: data.channels.len(),
            time_lists: Vec::new(),
            times: Vec::new(),
            values: Vec::new(),
            node_span: 0,
            weight_span: 0,
            difference: false,
        };
        let mut seen: HashMap<Vec<u32>, u32> = HashMap::new();
        for (c, ch) in data.channels.iter().enumerate() {
            let bad = |m: String| Err(RigError::BadModel(format!("clip {}: channel {c}: {m}", data.name)));
            let want = match ch.path {
                ChannelPath::Translation | ChannelPath::Scale => 3,
                ChannelPath::Rotation => 4,
                ChannelPath::Weights => {
                    let Some(mesh) = skeleton.mesh_on_node(ch.node) else { return bad("no mesh on the node".into()) };
                    skeleton.mesh_weights(mesh).len()
                }
            };
            if ch.node >= skeleton.node_count() || ch.components != want || want == 0 {
                return bad(format!("node {} with {} components ({want} expected)", ch.node, ch.components));
            }
            let per_key = if ch.interpolation == Interpolation::CubicSpline { 3 * want } else { want };
            if ch.times.is_empty() || ch.values.len() != ch.times.len() * per_key {
                return bad(format!("{} keys, {} values", ch.times.len(), ch.values.len()));
            }
            let increasing = ch.times.windows(2).all(|w| w[0] < w[1]);
            if !increasing || ch.times.iter().chain(&ch.values).any(|v| !v.is_finite()) {
                return bad("times must increase and values be finite".into());
            }
            let target = match ch.path {
                ChannelPath::Weights => skeleton.mesh_on_node(ch.node).map_or(0, |m| skeleton.mesh_weights(m).start),
                _ => ch.node,
            };
            let bits: Vec<u32> = ch.times.iter().map(|t| t.to_bits()).collect();
            let times = *seen.entry(bits).or_insert_with(|| {
                clip.time_lists.push((clip.times.len() as u32, ch.times.len() as u32));
                clip.times.extend_from_slice(&ch.times);
                (clip.time_lists.len() - 1) as u32
            });
            let track = Track {
                path: ch.path,
                interpolation: ch.interpolation,
                target: target as u32,
                components: want as u32,
                times,
                first_value: clip.values.len() as u32,
            };
            let start = clip.values.len();
            clip.values.extend_from_slice(&ch.values);
            if ch.path == ChannelPath::Rotation {
                normalise_rotation_keys(&mut clip.values[start..], ch.interpolation);
            }
            match ch.path {
                ChannelPath::Weights => clip.weight_span = clip.weight_span.max(target + want),
                _ => clip.node_span = clip.node_span.max(ch.node + 1),
            }
            clip.tracks.push(track);
        }
        clip.group_linear_tracks();
        // Like tracks together: the sampling loop then branches the same way many times in a row.
        // Stable, so of two channels on one property the later still wins, as before.
        clip.tracks.sort_by_key(|t| (t.path as u8, t.interpolation as u8));
        if clip.times.len() > u32::MAX as usize / 2 || clip.values.len() > u32::MAX as usize / 2 {
            return Err(RigError::BadModel(format!("clip {}: too many keys", data.name)));
        }
        Ok(clip)
    }

    pub fn name(&self) -> &str {
        &self.name
    }
    /// Seconds: the last key time of any channel.
    pub fn duration(&self) -> f32 {
        self.duration
    }
    pub fn track_count(&self) -> usize {
        self.track_count
    }

    /// Moves LINEAR translation / rotation / scale tracks into key-major `LinearGroup`s. A
    /// property keyed by more than one channel stays in `tracks`, where the later channel wins.
    fn group_linear_tracks(&mut self) {
        let mut keyed: HashMap<(u32, u8), u32> = HashMap::new();
        for t in &self.tracks {
            *keyed.entry((t.target, t.path as u8)).or_default() += 1;
        }
        let groupable = |t: &Track| {
            t.interpolation == Interpolation::Linear
                && t.path != ChannelPath::Weights
                && keyed[&(t.target, t.path as u8)] == 1
        };
        let (grouped, rest): (Vec<Track>, Vec<Track>) = self.tracks.iter().partition(|t| groupable(t));
        self.tracks = rest;
        for list in 0..self.time_lists.len() as u32 {
            let of = |path: ChannelPath| grouped.iter().filter(move |t| t.times == list && t.path == path);
            let members: Vec<&Track> =
                of(ChannelPath::Translation).chain(of(ChannelPath::Rotation)).chain(of(ChannelPath::Scale)).collect();
            if members.is_empty() {
                continue;
            }
            let n = self.time_lists[list as usize].1 as usize;
            let mut keys = Vec::with_capacity(n * members.len());
            for k in 0..n {
                for t in &members {
                    let c = t.components as usize;
                    let v = &self.values[t.first_value as usize + k * c..][..c];
                    keys.push(if c == 4 { Vec4::from_slice(v) } else { Vec4::new(v[0], v[1], v[2], 0.0) });
                }
            }
            self.groups.push(LinearGroup {
                times: list,
                nodes: members.iter().map(|t| t.target).collect(),
                translations: of(ChannelPath::Translation).count(),
                scales: of(ChannelPath::Scale).count(),
                keys,
                columns: Vec::new(),
            });
        }
    }
    /// Distinct key-time lists: what a `SamplingCache` holds one entry for.
    pub fn time_list_count(&self) -> usize {
        self.time_lists.len()
    }
    /// How many locals `sample` needs (largest animated node + 1).
    pub fn node_span(&self) -> usize {
        self.node_span
    }
    /// How many morph weights `sample` needs.
    pub fn weight_span(&self) -> usize {
        self.weight_span
    }

    /// Writes the clip's value at time `t` (seconds) into every animated node and weight;
    /// untouched entries keep what the caller put there (normally the rest pose). `t` outside the
    /// keys clamps to the first / last key; NaN samples time 0. Short slices or a cache made for a
    /// smaller clip → `Err(BufferTooShort)` with nothing written.
    pub fn sample(
        &self,
        t: f32,
        cache: &mut SamplingCache,
        out_locals: &mut [Transform],
        out_weights: &mut [f32],
    ) -> Result<(), RigError> {
        self.sample_where(t, cache, |_| true, out_locals, out_weights)
    }

    /// `sample` for the nodes a layer mask covers (`mask[node] > 0`; a node past the mask's end
    /// is not covered): the other nodes keep what the caller put there. A masked layer only
    /// reads its covered joints, so sampling the rest would be wasted. Morph weights are not
    /// per joint and are always sampled.
    pub fn sample_masked(
        &self,
        t: f32,
        cache: &mut SamplingCache,
        mask: &[f32],
        out_locals: &mut [Transform],
        out_weights: &mut [f32],
    ) -> Result<(), RigError> {
        // NaN counts as covered, as the blend does (it only skips weights `<= 0`).
        let covered = |n: usize| mask.get(n).is_some_and(|&m| m > 0.0 || m.is_nan());
        self.sample_where(t, cache, covered, out_locals, out_weights)
    }

    /// The tracks of this clip a masked layer needs (those on nodes `mask` covers, and every
    /// morph-weight track), for [`Clip::sample_selected`]. Built when a layer's clip or mask
    /// changes, so the per-frame sample neither tests the mask nor mispredicts on it.
    pub fn select(&self, mask: &[f32], out: &mut TrackSelection) {
        let covered = |n: usize| mask.get(n).is_some_and(|&m| m > 0.0 || m.is_nan());
        out.groups.resize_with(self.groups.len(), Default::default);
        for (g, sel) in self.groups.iter().zip(&mut out.groups) {
            let (nt, ns) = (g.translations, g.scales);
            let nr = g.nodes.len() - nt - ns;
            sel.tracks.clear();
            let mut counts = [0usize; 2];
            for (i, &n) in g.nodes.iter().enumerate() {
                if covered(n as usize) {
                    sel.tracks.push(i as u32);
                    if i < nt {
                        counts[0] += 1;
                    } else if i < nt + nr {
                        counts[1] += 1;
                    }
                }
            }
            sel.split = counts;
        }
        out.tracks.clear();
        for (i, t) in self.tracks.iter().enumerate() {
            if t.path == ChannelPath::Weights || covered(t.target as usize) {
                out.tracks.push(i as u32);
            }
        }
        // Covered properties no track keys: the layer's pose holds the rest value there.
        let bit = |p: ChannelPath| match p {
            ChannelPath::Translation => 1u8,
            ChannelPath::Rotation => 2,
            ChannelPath::Scale => 4,
            ChannelPath::Weights => 0,
        };
        let mut keyed = vec![0u8; self.node_span.min(mask.len())];
        let mut mark = |n: u32, b: u8| {
            if let Some(k) = keyed.get_mut(n as usize) {
                *k |= b;
            }
        };
        for g in &self.groups {
            let nr = g.nodes.len() - g.translations - g.scales;
            for (i, &n) in g.nodes.iter().enumerate() {
                let path = if i < g.translations {
                    ChannelPath::Translation
                } else if i < g.translations + nr {
                    ChannelPath::Rotation
                } else {
                    ChannelPath::Scale
                };
                mark(n, bit(path));
            }
        }
        for t in &self.tracks {
            mark(t.target, bit(t.path));
        }
        out.unkeyed.clear();
        for n in (0..mask.len()).filter(|&n| covered(n)) {
            let missing = 7 & !keyed.get(n).copied().unwrap_or(0);
            if missing != 0 {
                out.unkeyed.push((n as u32, missing));
            }
        }
        out.keyed_once = self.keyed_once();
    }

    /// Whether no property is keyed by more than one channel (then the clip's sample is the sum
    /// of its tracks' values, each on its own property, which the kernels that blend straight
    /// from the keys rely on).
    fn keyed_once(&self) -> bool {
        let mut keyed = std::collections::HashSet::new();
        self.tracks.iter().filter(|t| t.path != ChannelPath::Weights).all(|t| keyed.insert((t.target, t.path as u8)))
    }

    /// The override blend of a masked layer (`out[n]` toward the clip's value at `t` by `w =
    /// weight × mask[n]`: lerp, shortest-path slerp renormalised, the value itself at `w >= 1`)
    /// straight from the keys, on the tracks `sel` selects and, for covered properties no track
    /// keys, toward `rest` (the layer's pose holds the rest value there). Equal to sampling the
    /// layer's pose through `sel` and blending it, up to rounding, with no pose buffer in
    /// between. Morph-weight tracks are not sampled (a caller whose clip animates weights
    /// samples them with the pose). Refused for a clip that keys a property twice (the later
    /// channel replaces, which a blend per track cannot express) or a foreign selection.
    #[allow(clippy::too_many_arguments)]
    pub fn blend_selected(
        &self,
        t: f32,
        cache: &mut SamplingCache,
        sel: &TrackSelection,
        weight: f32,
        mask: &[f32],
        rest: &[Transform],
        out: &mut [Transform],
    ) -> Result<(), RigError> {
        self.check_buffers(cache, out, &[])?;
        need("rest pose", out.len(), rest.len())?;
        let fits =
            sel.keyed_once && self.fits(sel) && sel.unkeyed.last().is_none_or(|&(n, _)| (n as usize) < out.len());
        if !fits {
            return Err(RigError::BadModel(format!("clip {}: no per-track blend with this selection", self.name)));
        }
        self.locate_keys(t, cache);
        let w_of = |n: u32| weight * mask.get(n as usize).copied().unwrap_or(0.0);
        let by = SlerpAt::new(weight);
        for (g, s) in self.groups.iter().zip(&sel.groups) {
            g.blend_some(cache.at[g.times as usize], s, &by, w_of, out);
        }
        for &i in &sel.tracks {
            let track = &self.tracks[i as usize];
            let w = w_of(track.target);
            if track.path == ChannelPath::Weights || w <= 0.0 {
                continue;
            }
            let mut at = cache.at[track.times as usize];
            if track.interpolation == Interpolation::Step {
                at.s = 0.0;
            }
            let values = &self.values[track.first_value as usize..];
            let cubic = track.interpolation == Interpolation::CubicSpline;
            let o = &mut out[track.target as usize];
            match track.path {
                ChannelPath::Translation => o.translation = lerp_or_set(o.translation, vec3(values, at, cubic), w),
                ChannelPath::Scale => o.scale = lerp_or_set(o.scale, vec3(values, at, cubic), w),
                ChannelPath::Rotation => o.rotation = slerp_or_set(o.rotation, quat(values, at, cubic), w),
                ChannelPath::Weights => {}
            }
        }
        for &(n, missing) in &sel.unkeyed {
            let w = w_of(n);
            if w <= 0.0 {
                continue;
            }
            let (o, r) = (&mut out[n as usize], &rest[n as usize]);
            if missing & 1 != 0 {
                o.translation = lerp_or_set(o.translation, r.translation, w);
            }
            if missing & 2 != 0 {
                o.rotation = slerp_or_set(o.rotation, r.rotation, w);
            }
            if missing & 4 != 0 {
                o.scale = lerp_or_set(o.scale, r.scale, w);
            }
        }
        Ok(())
    }

    /// `sample_masked` through a selection made by [`Clip::select`] for this clip (one made
    /// for another clip is refused, never misread).
    pub fn sample_selected(
        &self,
        t: f32,
        cache: &mut SamplingCache,
        sel: &TrackSelection,
        out_locals: &mut [Transform],
        out_weights: &mut [f32],
    ) -> Result<(), RigError> {
        self.check_buffers(cache, out_locals, out_weights)?;
        if !self.fits(sel) {
            return Err(RigError::BadModel(format!("clip {}: track selection made for another clip", self.name)));
        }
        self.locate_keys(t, cache);
        for (g, s) in self.groups.iter().zip(&sel.groups) {
            g.sample_some(cache.at[g.times as usize], s, out_locals);
        }
        for &i in &sel.tracks {
            self.sample_track(&self.tracks[i as usize], &cache.at, out_locals, out_weights);
        }
        Ok(())
    }

    /// This clip re-keyed as its difference from `reference` (an additive layer's reference
    /// pose, layers.md §1): rotation keys `ref⁻¹ · key`, translation keys `key − ref`, scale keys
    /// `key / ref` (1 on an axis where that is not finite, as the additive blend does). Each of
    /// these maps is linear in the key for a fixed reference (the rotation one also keeps
    /// lengths and angles), so they commute with every interpolation: LINEAR lerp and slerp, STEP,
    /// and the CUBICSPLINE Hermite sum (its tangents mapped by the linear part alone) with its
    /// normalisation. Sampling the difference therefore equals the difference of the sample up to
    /// rounding, and an additive layer skips the reference, one quaternion product and a division
    /// per joint every frame. Morph-weight tracks are dropped (additive layers leave weights
    /// alone). None when a property is keyed by more than one channel (the later channel wins
    /// there, which the additive sum in [`Clip::add_difference`] cannot express) or `reference`
    /// does not cover the clip's nodes.
    pub fn difference(&self, reference: &[Transform]) -> Option<Clip> {
        if reference.len() < self.node_span {
            return None;
        }
        if !self.keyed_once() {
            return None;
        }
        let mut d = self.clone();
        d.difference = true;
        d.tracks.retain(|t| t.path != ChannelPath::Weights);
        d.weight_span = 0;
        let ratio = |key: f32, r: f32| {
            let s = key / r;
            if s.is_finite() { s } else { 1.0 }
        };
        for g in &mut d.groups {
            let (nt, ns) = (g.translations, g.scales);
            let nr = g.nodes.len() - nt - ns;
            let w = g.nodes.len();
            for key in g.keys.chunks_exact_mut(w) {
                for (i, (v, &n)) in key.iter_mut().zip(&g.nodes).enumerate() {
                    let r = &reference[n as usize];
                    *v = if i < nt {
                        *v - Vec4::from((r.translation, 0.0))
                    } else if i < nt + nr {
                        Vec4::from(r.rotation.conjugate() * Quat::from_vec4(*v))
                    } else {
                        Vec4::new(ratio(v.x, r.scale.x), ratio(v.y, r.scale.y), ratio(v.z, r.scale.z), 0.0)
                    };
                }
            }
        }
        for g in &mut d.groups {
            let (nt, w) = (g.translations, g.nodes.len());
            let nr = w - nt - g.scales;
            for key in g.keys.chunks_exact(w) {
                for block in key[nt..nt + nr].chunks(4) {
                    let q = std::array::from_fn(|l| Quat::from_vec4(block[if l < block.len() { l } else { 0 }]));
                    g.columns.extend(quat_columns(q));
                }
            }
        }
        for t in &d.tracks {
            let r = &reference[t.target as usize];
            let c = t.components as usize;
            let cubic = t.interpolation == Interpolation::CubicSpline;
            let count = self.time_lists[t.times as usize].1 as usize;
            let values = &mut d.values[t.first_value as usize..][..count * if cubic { 3 * c } else { c }];
            // Per key: in-tangent, value, out-tangent for CUBICSPLINE; the value alone otherwise.
            for (e, v) in values.chunks_exact_mut(c).enumerate() {
                let tangent = cubic && e % 3 != 1;
                match t.path {
                    ChannelPath::Translation if !tangent => {
                        v.iter_mut().zip(r.translation.to_array()).for_each(|(v, r)| *v -= r);
                    }
                    ChannelPath::Translation => {}
                    ChannelPath::Rotation => {
                        let q = r.rotation.conjugate() * Quat::from_slice(v);
                        v.copy_from_slice(&q.to_array());
                    }
                    ChannelPath::Scale => {
                        for (v, r) in v.iter_mut().zip(r.scale.to_array()) {
                            // An axis with no finite ratio is held at 1: its tangents are 0.
                            *v = match (1.0 / r).is_finite() {
                                true => ratio(*v, r),
                                false if tangent => 0.0,
                                false => 1.0,
                            };
                        }
                    }
                    ChannelPath::Weights => {}
                }
            }
        }
        Some(d)
    }

    /// Adds this difference clip's value at `t` to `out`, on each node by `w = weight ×
    /// mask[node]` (nodes with `w <= 0`, or past the mask's end, are untouched): translation
    /// `+= w·d`, rotation `out · slerp(1, d, w)` renormalised, scale `*= lerp(1, d, w)` — the
    /// additive blend of layers.md §1, straight from the keys, with no pose buffer in between.
    /// Nodes the clip does not animate have a zero difference and are left as they are.
    /// Refused for a clip not made by [`Clip::difference`].
    pub fn add_difference(
        &self,
        t: f32,
        cache: &mut SamplingCache,
        weight: f32,
        mask: Option<&[f32]>,
        out: &mut [Transform],
    ) -> Result<(), RigError> {
        if !self.difference {
            return Err(RigError::BadModel(format!("clip {}: not a difference clip", self.name)));
        }
        self.check_buffers(cache, out, &[])?;
        self.locate_keys(t, cache);
        let w_of = |n: u32| weight * mask.map_or(1.0, |m| m.get(n as usize).copied().unwrap_or(0.0));
        let by = SlerpAt::new(weight);
        // Every node at the layer's weight: the group kernels skip reading a weight per lane.
        let uniform = mask.is_none() && weight > 0.0;
        for g in &self.groups {
            g.add(cache.at[g.times as usize], &by, uniform, w_of, out);
        }
        for track in &self.tracks {
            let w = w_of(track.target);
            if w <= 0.0 {
                continue;
            }
            let mut at = cache.at[track.times as usize];
            if track.interpolation == Interpolation::Step {
                at.s = 0.0;
            }
            let values = &self.values[track.first_value as usize..];
            let cubic = track.interpolation == Interpolation::CubicSpline;
            let o = &mut out[track.target as usize];
            match track.path {
                ChannelPath::Translation => o.translation += vec3(values, at, cubic) * w,
                ChannelPath::Scale => o.scale *= Vec3A::ONE.lerp(vec3(values, at, cubic), w),
                ChannelPath::Rotation => {
                    let d = quat(values, at, cubic);
                    let r = o.rotation * if w >= 1.0 { d } else { slerp(Quat::IDENTITY, d, w) };
                    o.rotation = r * (1.5 - 0.5 * r.length_squared());
                }
                ChannelPath::Weights => {}
            }
        }
        Ok(())
    }

    /// Whether every index of `sel` is in range for this clip. `select` lists indices in
    /// ascending order (and nothing else writes a selection), so the last of each list decides:
    /// a check per group, not per track, every frame.
    fn fits(&self, sel: &TrackSelection) -> bool {
        let below = |list: &[u32], n: usize| list.last().is_none_or(|&i| (i as usize) < n);
        sel.groups.len() == self.groups.len()
            && sel.groups.iter().zip(&self.groups).all(|(s, g)| below(&s.tracks, g.nodes.len()))
            && below(&sel.tracks, self.tracks.len())
    }

    /// The buffers a sampling pass writes are large enough for this clip.
    fn check_buffers(
        &self,
        cache: &SamplingCache,
        out_locals: &[Transform],
        out_weights: &[f32],
    ) -> Result<(), RigError> {
        need("sampling cache", self.time_lists.len(), cache.keys.len().min(cache.at.len()))?;
        need("locals", self.node_span, out_locals.len())?;
        need("weights", self.weight_span, out_weights.len())
    }

    /// Each time list's key position at `t` (NaN reads as 0), from the cached hints.
    #[inline(always)]
    fn locate_keys(&self, t: f32, cache: &mut SamplingCache) {
        let t = if t.is_nan() { 0.0 } else { t };
        for ((&(first, n), hint), at) in self.time_lists.iter().zip(&mut cache.keys).zip(&mut cache.at) {
            *at = locate(&self.times[first as usize..][..n as usize], t, hint);
        }
    }

    #[inline(always)]
    fn sample_where(
        &self,
        t: f32,
        cache: &mut SamplingCache,
        keep: impl Fn(usize) -> bool + Copy,
        out_locals: &mut [Transform],
        out_weights: &mut [f32],
    ) -> Result<(), RigError> {
        self.check_buffers(cache, out_locals, out_weights)?;
        self.locate_keys(t, cache);
        for g in &self.groups {
            g.sample(cache.at[g.times as usize], keep, out_locals);
        }
        for track in &self.tracks {
            if track.path != ChannelPath::Weights && !keep(track.target as usize) {
                continue;
            }
            self.sample_track(track, &cache.at, out_locals, out_weights);
        }
        Ok(())
    }

    /// One track of `tracks` at its key position (targets were validated at construction).
    #[inline(always)]
    fn sample_track(&self, track: &Track, ats: &[At], out_locals: &mut [Transform], out_weights: &mut [f32]) {
        let mut at = ats[track.times as usize];
        if track.interpolation == Interpolation::Step {
            at.s = 0.0; // hold key k until the next key's time
        }
        let c = track.components as usize;
        let values = &self.values[track.first_value as usize..];
        let cubic = track.interpolation == Interpolation::CubicSpline;
        let target = track.target as usize;
        match track.path {
            ChannelPath::Translation => out_locals[target].translation = vec3(values, at, cubic),
            ChannelPath::Scale => out_locals[target].scale = vec3(values, at, cubic),
            ChannelPath::Rotation => out_locals[target].rotation = quat(values, at, cubic),
            ChannelPath::Weights => {
                let out = &mut out_weights[target..target + c];
                for (k, o) in out.iter_mut().enumerate() {
                    *o = scalar(values, c, k, at, cubic);
                }
            }
        }
    }
}

impl LinearGroup {
    /// Writes every track of the group at `at`. Nodes were validated against the skeleton, and
    /// `sample` checked `out` against the clip's node span.
    #[inline(always)]
    fn sample(&self, at: At, keep: impl Fn(usize) -> bool, out: &mut [Transform]) {
        let w = self.nodes.len();
        let a = &self.keys[at.k * w..][..w];
        // Before the first / after the last key (s == 0) key k is the value; k + 1 may not exist.
        let b = if at.s == 0.0 { a } else { &self.keys[(at.k + 1) * w..][..w] };
        let (nt, nr) = (self.translations, w - self.translations - self.scales);
        let s = at.s;
        let (nodes_t, nodes) = self.nodes.split_at(nt);
        let (nodes_r, nodes_s) = nodes.split_at(nr);
        let (a_t, a) = a.split_at(nt);
        let (a_r, a_s) = a.split_at(nr);
        let (b_t, b) = b.split_at(nt);
        let (b_r, b_s) = b.split_at(nr);
        for ((&n, a), b) in nodes_t.iter().zip(a_t).zip(b_t) {
            if !keep(n as usize) {
                continue;
            }
            out[n as usize].translation = Vec3A::from_vec4(*a).lerp(Vec3A::from_vec4(*b), s);
        }
        // Rotations four at a time in SIMD lanes, bit-identical to one `slerp` each
        // (`NearSlerp4`); a batch with a wide arc, and the last one to three, one by one.
        let near = NearSlerp4::new(s);
        let one_by_one = |nodes: &[u32], a: &[Vec4], b: &[Vec4], out: &mut [Transform]| {
            for ((&n, a), b) in nodes.iter().zip(a).zip(b) {
                if keep(n as usize) {
                    out[n as usize].rotation = slerp(Quat::from_vec4(*a), Quat::from_vec4(*b), s);
                }
            }
        };
        let whole = nodes_r.len() / 4 * 4;
        for ((nodes, a), b) in nodes_r[..whole].chunks_exact(4).zip(a_r.chunks_exact(4)).zip(b_r.chunks_exact(4)) {
            let (qa, qb) = ([a[0], a[1], a[2], a[3]], [b[0], b[1], b[2], b[3]]);
            match near.slerp4(transpose4(qa), transpose4(qb)) {
                Some(q) => {
                    for (&n, q) in nodes.iter().zip(transpose4(q)) {
                        if keep(n as usize) {
                            out[n as usize].rotation = Quat::from_vec4(q);
                        }
                    }
                }
                None => one_by_one(nodes, a, b, out),
            }
        }
        one_by_one(&nodes_r[whole..], &a_r[whole..], &b_r[whole..], out);
        for ((&n, a), b) in nodes_s.iter().zip(a_s).zip(b_s) {
            if !keep(n as usize) {
                continue;
            }
            out[n as usize].scale = Vec3A::from_vec4(*a).lerp(Vec3A::from_vec4(*b), s);
        }
    }
}

impl LinearGroup {
    /// `sample` of the selected tracks (translations, rotations, scales in that order, as
    /// `Clip::select` lists them).
    #[inline]
    fn sample_some(&self, at: At, sel: &GroupSelection, out: &mut [Transform]) {
        let w = self.nodes.len();
        let a = &self.keys[at.k * w..][..w];
        let b = if at.s == 0.0 { a } else { &self.keys[(at.k + 1) * w..][..w] };
        let s = at.s;
        let (t, rest) = sel.tracks.split_at(sel.split[0].min(sel.tracks.len()));
        let (r, sc) = rest.split_at(sel.split[1].min(rest.len()));
        for &i in t {
            let i = i as usize;
            out[self.nodes[i] as usize].translation = Vec3A::from_vec4(a[i]).lerp(Vec3A::from_vec4(b[i]), s);
        }
        for &i in r {
            let i = i as usize;
            out[self.nodes[i] as usize].rotation = slerp(Quat::from_vec4(a[i]), Quat::from_vec4(b[i]), s);
        }
        for &i in sc {
            let i = i as usize;
            out[self.nodes[i] as usize].scale = Vec3A::from_vec4(a[i]).lerp(Vec3A::from_vec4(b[i]), s);
        }
    }
}

impl LinearGroup {
    /// `Clip::add_difference` of the group's tracks: translations and scales one by one,
    /// rotations four consecutive tracks at a time (their keys are contiguous, so the gather is
    /// a transpose), sampled, weighted and composed in SIMD; only the lanes with `w > 0` are
    /// written back. `uniform`: no mask and a positive weight, so every lane has the layer's
    /// weight and is written, and the batch reads no weight of its own (the usual additive layer,
    /// breathing or leaning over a whole body: 9% of its cost at 100 joints, 3% at 24).
    #[inline]
    fn add(&self, at: At, weight: &SlerpAt, uniform: bool, w_of: impl Fn(u32) -> f32, out: &mut [Transform]) {
        let w = self.nodes.len();
        let a = &self.keys[at.k * w..][..w];
        let b = if at.s == 0.0 { a } else { &self.keys[(at.k + 1) * w..][..w] };
        let (nt, nr) = (self.translations, w - self.translations - self.scales);
        let s = at.s;
        let (nodes_t, nodes) = self.nodes.split_at(nt);
        let (nodes_r, nodes_s) = nodes.split_at(nr);
        let (a_t, a) = a.split_at(nt);
        let (a_r, a_s) = a.split_at(nr);
        let (b_t, b) = b.split_at(nt);
        let (b_r, b_s) = b.split_at(nr);
        for ((&n, a), b) in nodes_t.iter().zip(a_t).zip(b_t) {
            let k = w_of(n);
            if k > 0.0 || k.is_nan() {
                out[n as usize].translation += Vec3A::from_vec4(*a).lerp(Vec3A::from_vec4(*b), s) * k;
            }
        }
        for ((&n, a), b) in nodes_s.iter().zip(a_s).zip(b_s) {
            let k = w_of(n);
            if k > 0.0 || k.is_nan() {
                out[n as usize].scale *= Vec3A::ONE.lerp(Vec3A::from_vec4(*a).lerp(Vec3A::from_vec4(*b), s), k);
            }
        }
        let identity = [Vec4::ZERO, Vec4::ZERO, Vec4::ZERO, Vec4::ONE];
        let keys = SlerpAt::new(s);
        // The column blocks of keys k and k + 1 (`difference` made one per four tracks).
        let blocks = nr.div_ceil(4) * 4;
        let col_a = self.columns.get(at.k * blocks..).and_then(|c| c.get(..blocks)).unwrap_or(&[]);
        let col_b = self.columns.get((at.k + usize::from(s != 0.0)) * blocks..).and_then(|c| c.get(..blocks));
        let col_b = col_b.unwrap_or(&[]);
        let columns = col_a.len() == blocks && col_b.len() == blocks;
        for (j, ((nodes, a), b)) in nodes_r.chunks(4).zip(a_r.chunks(4)).zip(b_r.chunks(4)).enumerate() {
            let len = nodes.len();
            if len <= 2 {
                // A short last batch: one or two scalar slerps cost less than four lanes.
                for ((&n, a), b) in nodes.iter().zip(a).zip(b) {
                    let k = w_of(n);
                    if k <= 0.0 {
                        continue;
                    }
                    let (a, b) = (Quat::from_vec4(*a), Quat::from_vec4(*b));
                    let d = if s == 0.0 { a } else { slerp(a, b, s) };
                    let o = &mut out[n as usize];
                    let r = o.rotation * if k >= 1.0 { d } else { slerp(Quat::IDENTITY, d, k) };
                    o.rotation = r * (1.5 - 0.5 * r.length_squared());
                }
                continue;
            }
            // A short last batch repeats its first track in weight-0 lanes.
            let lane = |l: usize| if l < len { l } else { 0 };
            let ws: [f32; 4] = if uniform {
                [weight.t(); 4]
            } else {
                std::array::from_fn(|l| if l < len { w_of(nodes[l]) } else { 0.0 })
            };
            let wv = Vec4::from_array(ws);
            // A NaN weight counts as covered, as in the layer blend (it skips `w <= 0` only).
            if !uniform && wv.cmple(Vec4::ZERO).all() {
                continue;
            }
            let block = |c: &[Vec4]| std::array::from_fn(|k| c[4 * j + k]);
            let qa =
                if columns { block(col_a) } else { quat_columns(std::array::from_fn(|l| Quat::from_vec4(a[lane(l)]))) };
            let d = if s == 0.0 {
                qa
            } else if columns {
                keys.slerp4(qa, block(col_b))
            } else {
                keys.slerp4(qa, quat_columns(std::array::from_fn(|l| Quat::from_vec4(b[lane(l)]))))
            };
            let e = if uniform {
                if weight.t() >= 1.0 { d } else { weight.from_identity4(d) }
            } else {
                let full = wv.cmpge(Vec4::ONE);
                if full.all() {
                    d
                } else {
                    let part = if ws[..len].iter().all(|&w| w == weight.t()) {
                        weight.from_identity4(d)
                    } else {
                        slerp4(identity, d, wv)
                    };
                    std::array::from_fn(|c| Vec4::select(full, d[c], part[c]))
                }
            };
            let o = quat_columns(std::array::from_fn(|l| out[nodes[lane(l)] as usize].rotation));
            // Both factors are unit to float precision (sampled and weighted slerps), and the
            // pose is rebuilt from the keys every frame, so no error accumulates: no
            // renormalisation (layer 0's samples get none either).
            let q = column_quats(quat_mul4(o, e));
            for l in 0..len {
                if uniform || ws[l] > 0.0 || ws[l].is_nan() {
                    out[nodes[l] as usize].rotation = q[l];
                }
            }
        }
    }
}

impl LinearGroup {
    /// `Clip::blend_selected` of the group's selected tracks: translations and scales one by
    /// one, rotations four selected tracks at a time (sampled, then slerped from `out`, in
    /// SIMD); lanes with `w <= 0` are not written.
    #[inline]
    fn blend_some(
        &self,
        at: At,
        sel: &GroupSelection,
        weight: &SlerpAt,
        w_of: impl Fn(u32) -> f32,
        out: &mut [Transform],
    ) {
        let w = self.nodes.len();
        let a = &self.keys[at.k * w..][..w];
        let b = if at.s == 0.0 { a } else { &self.keys[(at.k + 1) * w..][..w] };
        let s = at.s;
        let (t, rest) = sel.tracks.split_at(sel.split[0].min(sel.tracks.len()));
        let (r, sc) = rest.split_at(sel.split[1].min(rest.len()));
        for &i in t.iter().chain(sc) {
            let i = i as usize;
            let n = self.nodes[i];
            let k = w_of(n);
            if k <= 0.0 {
                continue;
            }
            let v = Vec3A::from_vec4(a[i]).lerp(Vec3A::from_vec4(b[i]), s);
            let o = &mut out[n as usize];
            if i < self.translations {
                o.translation = lerp_or_set(o.translation, v, k);
            } else {
                o.scale = lerp_or_set(o.scale, v, k);
            }
        }
        let keys = SlerpAt::new(s);
        for batch in r.chunks(4) {
            let len = batch.len();
            if len <= 2 {
                // A short last batch: one or two scalar slerps cost less than four lanes.
                for &i in batch {
                    let (i, n) = (i as usize, self.nodes[i as usize]);
                    let k = w_of(n);
                    if k <= 0.0 {
                        continue;
                    }
                    let (qa, qb) = (Quat::from_vec4(a[i]), Quat::from_vec4(b[i]));
                    let v = if s == 0.0 { qa } else { slerp(qa, qb, s) };
                    let o = &mut out[n as usize];
                    o.rotation = slerp_or_set(o.rotation, v, k);
                }
                continue;
            }
            // A short last batch repeats its first track in weight-0 lanes.
            let track = |l: usize| batch[if l < len { l } else { 0 }] as usize;
            let ws: [f32; 4] = std::array::from_fn(|l| if l < len { w_of(self.nodes[track(l)]) } else { 0.0 });
            let wv = Vec4::from_array(ws);
            if wv.cmple(Vec4::ZERO).all() {
                continue;
            }
            let qa = quat_columns(std::array::from_fn(|l| Quat::from_vec4(a[track(l)])));
            let v = if s == 0.0 {
                qa
            } else {
                keys.slerp4(qa, quat_columns(std::array::from_fn(|l| Quat::from_vec4(b[track(l)]))))
            };
            let full = wv.cmpge(Vec4::ONE);
            let q = if full.all() {
                v
            } else {
                let o = quat_columns(std::array::from_fn(|l| out[self.nodes[track(l)] as usize].rotation));
                let part = renormalise4(slerp4_by(weight, o, v, &ws, len));
                std::array::from_fn(|c| Vec4::select(full, v[c], part[c]))
            };
            let q = column_quats(q);
            for l in 0..len {
                if ws[l] > 0.0 || ws[l].is_nan() {
                    out[self.nodes[batch[l] as usize] as usize].rotation = q[l];
                }
            }
        }
    }
}

/// The tracks of one clip that a masked layer samples ([`Clip::select`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrackSelection {
    groups: Vec<GroupSelection>,
    /// Indices into `Clip::tracks`, ascending.
    tracks: Vec<u32>,
    /// Covered nodes with properties no track keys, ascending: (node, bits 1 translation,
    /// 2 rotation, 4 scale).
    unkeyed: Vec<(u32, u8)>,
    /// The clip keys no property twice ([`Clip::blend_selected`] needs it).
    keyed_once: bool,
}

impl TrackSelection {
    /// Whether [`Clip::blend_selected`] can blend through this selection.
    pub fn blends_per_track(&self) -> bool {
        self.keyed_once
    }
}

/// `slerp4` by the weights of the first `len` lanes (the others are not read back): lanes all
/// at the layer's weight (an unmasked or fully masked layer) take its precomputed series,
/// only as long as the widest arc needs.
#[inline(always)]
fn slerp4_by(weight: &SlerpAt, a: [Vec4; 4], b: [Vec4; 4], ws: &[f32; 4], len: usize) -> [Vec4; 4] {
    if ws[..len].iter().all(|&w| w == weight.t()) { weight.slerp4(a, b) } else { slerp4(a, b, Vec4::from_array(*ws)) }
}

/// The override blend of one property: the value itself at `w >= 1`.
#[inline(always)]
fn lerp_or_set(o: Vec3A, v: Vec3A, w: f32) -> Vec3A {
    if w >= 1.0 { v } else { o.lerp(v, w) }
}

#[inline(always)]
fn slerp_or_set(o: Quat, v: Quat, w: f32) -> Quat {
    if w >= 1.0 {
        v
    } else {
        let r = slerp(o, v, w);
        r * (1.5 - 0.5 * r.length_squared())
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
struct GroupSelection {
    /// Indices into the group's tracks, ascending: translations, then rotations, then scales.
    tracks: Vec<u32>,
    /// How many of `tracks` are translations, and how many rotations.
    split: [usize; 2],
}

/// Per-instance memory of the key each time list used last. Only a hint: a stale or foreign
/// cache costs a binary search, never a wrong value. Also holds this sample's key positions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SamplingCache {
    keys: Vec<u32>,
    at: Vec<At>,
}

impl SamplingCache {
    pub fn new(clip: &Clip) -> Self {
        Self::with_capacity(clip.time_list_count())
    }
    /// Big enough for any of `clips` (one cache per player, reused across clips).
    pub fn for_clips(clips: &[Clip]) -> Self {
        Self::with_capacity(clips.iter().map(Clip::time_list_count).max().unwrap_or(0))
    }
    /// For clips with up to `time_lists` distinct key-time lists.
    pub fn with_capacity(time_lists: usize) -> Self {
        SamplingCache { keys: vec![0; time_lists], at: vec![At::default(); time_lists] }
    }
    pub fn capacity(&self) -> usize {
        self.keys.len().min(self.at.len())
    }
    pub fn reset(&mut self) {
        self.keys.fill(0);
    }
    /// Starts loading what the next sample reads (`base::prefetch`).
    pub fn prefetch(&self) {
        crate::base::prefetch::prefetch(&self.keys);
        crate::base::prefetch::prefetch(&self.at);
    }
}

/// Where `t` falls: key `k` exactly (`s == 0`, also before the first and after the last key), or
/// between `k` and `k + 1` at fraction `s` of an interval `dt` long.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct At {
    k: usize,
    s: f32,
    dt: f32,
}

fn locate(times: &[f32], t: f32, hint: &mut u32) -> At {
    let n = times.len();
    let (first, last) = (times[0], times[n - 1]);
    if t <= first || n == 1 {
        *hint = 0;
        return At { k: 0, s: 0.0, dt: 0.0 };
    }
    if t >= last {
        *hint = (n - 2) as u32;
        return At { k: n - 1, s: 0.0, dt: 0.0 };
    }
    // first < t < last, so some k in 0..n-1 has times[k] <= t < times[k + 1].
    let h = *hint as usize;
    let inside = |k: usize| k + 1 < n && times[k] <= t && t < times[k + 1];
    let k = if inside(h) {
        h
    } else if inside(h + 1) {
        h + 1
    } else {
        times.partition_point(|&x| x <= t).saturating_sub(1).min(n - 2)
    };
    *hint = k as u32;
    let dt = times[k + 1] - times[k];
    At { k, s: (t - times[k]) / dt, dt }
}

/// Hermite basis (glTF Appendix C): value k, out-tangent k, value k+1, in-tangent k+1; tangents
/// are per second, hence scaled by the key interval.
#[inline]
fn hermite(s: f32, dt: f32) -> [f32; 4] {
    let (s2, s3) = (s * s, s * s * s);
    [2.0 * s3 - 3.0 * s2 + 1.0, (s3 - 2.0 * s2 + s) * dt, -2.0 * s3 + 3.0 * s2, (s3 - s2) * dt]
}

fn vec3(v: &[f32], at: At, cubic: bool) -> Vec3A {
    let get = |i: usize| Vec3A::new(v[i], v[i + 1], v[i + 2]);
    if cubic {
        // Groups per key: in-tangent, value, out-tangent.
        let v0 = get(at.k * 9 + 3);
        if at.s == 0.0 {
            return v0;
        }
        let h = hermite(at.s, at.dt);
        v0 * h[0] + get(at.k * 9 + 6) * h[1] + get(at.k * 9 + 12) * h[2] + get(at.k * 9 + 9) * h[3]
    } else {
        let v0 = get(at.k * 3);
        if at.s == 0.0 { v0 } else { v0.lerp(get(at.k * 3 + 3), at.s) }
    }
}

fn quat(v: &[f32], at: At, cubic: bool) -> Quat {
    let get = |i: usize| Vec4::new(v[i], v[i + 1], v[i + 2], v[i + 3]);
    if cubic {
        let v0 = get(at.k * 12 + 4);
        if at.s == 0.0 {
            return Quat::from_vec4(v0);
        }
        let h = hermite(at.s, at.dt);
        let q = v0 * h[0] + get(at.k * 12 + 8) * h[1] + get(at.k * 12 + 16) * h[2] + get(at.k * 12 + 12) * h[3];
        let len = q.length();
        if len > 0.0 { Quat::from_vec4(q / len) } else { Quat::from_vec4(v0) }
    } else {
        let q0 = Quat::from_vec4(get(at.k * 4));
        if at.s == 0.0 { q0 } else { slerp(q0, Quat::from_vec4(get(at.k * 4 + 4)), at.s) }
    }
}

/// Component `i` of a `c`-wide track (morph weights).
fn scalar(v: &[f32], c: usize, i: usize, at: At, cubic: bool) -> f32 {
    if cubic {
        let key = |k: usize, group: usize| v[k * 3 * c + group * c + i];
        if at.s == 0.0 {
            return key(at.k, 1);
        }
        let h = hermite(at.s, at.dt);
        key(at.k, 1) * h[0] + key(at.k, 2) * h[1] + key(at.k + 1, 1) * h[2] + key(at.k + 1, 0) * h[3]
    } else {
        let v0 = v[at.k * c + i];
        if at.s == 0.0 { v0 } else { v0 + (v[(at.k + 1) * c + i] - v0) * at.s }
    }
}

/// glTF rotation keys should be unit quaternions; exporters round. Value keys are normalised
/// (tangents of a cubic spline are not quaternions and stay as they are); a zero key becomes
/// identity rather than NaN.
fn normalise_rotation_keys(values: &mut [f32], interpolation: Interpolation) {
    let (stride, offset) = if interpolation == Interpolation::CubicSpline { (12, 4) } else { (4, 0) };
    for key in values.chunks_exact_mut(stride) {
        let q = &mut key[offset..offset + 4];
        let len = q.iter().map(|x| x * x).sum::<f32>().sqrt();
        if len > 0.0 {
            q.iter_mut().for_each(|x| *x /= len);
        } else {
            q.copy_from_slice(&[0.0, 0.0, 0.0, 1.0]);
        }
    }
}
