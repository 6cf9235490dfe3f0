//! Model, camera and light components: one world per type, instances in arrays (Defold style).
//! Imported glTF data is shared between the instances of one file; GPU copies live in the
//! renderer, keyed by asset index.
use super::animation::rig::Rig;
use super::animation::state::AnimState;
use crate::base::error::LoadError;
use crate::base::hash::{Hash, hash_remembered};
use crate::project::model_data::{ModelData, TextureData};
use crate::project::{CameraSpec, LightSpec, ModelSpec, Resources, json, material};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// One imported glTF file.
pub struct ModelAsset {
    pub path: String,
    pub data: Rc<ModelData>,
    /// What else the import read (see [`crate::project::import::Imported`]).
    pub files: Vec<String>,
    pub warnings: Vec<String>,
    pub limits: Vec<crate::project::JointLimitSpec>,
}

/// One loaded `.material` (constant defaults; the renderer compiles the shaders).
pub struct MaterialAsset {
    pub path: String,
    pub constants: Vec<(Hash, String, [f32; 4])>,
    /// The vertex and fragment program resources and the files they include (a save of any
    /// recompiles the material).
    pub shaders: Vec<String>,
}

/// One texture file named in a `.model`'s `textures`.
pub struct TextureAsset {
    pub path: String,
    pub data: Rc<TextureData>,
}

/// One model component.
pub struct ModelInstance {
    pub slot: u32,
    pub id: Hash,
    /// The component as loaded (hot reload rebuilds its rig from the same files).
    pub spec: ModelSpec,
    /// The component's id string and its object's id path (bone object ids derive from them).
    pub names: (String, String),
    pub asset: u32,
    pub material: u32,
    /// Sampler name → texture asset, over the glTF's base colour texture (`.model` `textures`).
    pub textures: Vec<(Hash, u32)>,
    /// One flag per mesh of the asset (`model.set_mesh_enabled`).
    pub mesh_enabled: Vec<bool>,
    /// Material constants set with `go.set` (e.g. `tint`), over the material's defaults.
    pub constants: Vec<(Hash, [f32; 4])>,
    /// Morph weights of every morphed mesh, meshes in model order (the renderer's layout):
    /// the glTF initial weights, then animation, then the script override.
    pub weights: Vec<f32>,
    /// `model.set_blend_weights`: applied to every morphed mesh after animation, each frame
    /// (set through [`ModelWorld::set_weight_override`]).
    weight_override: Option<Vec<f32>>,
    /// Skeletal / morph animation, when the model has a skeleton or animations.
    pub anim: Option<AnimState>,
    /// `msg.post("#model", "disable")` turns this off: no drawing (and later no animation).
    pub enabled: bool,
    pub alive: bool,
}

pub struct CameraInstance {
    pub slot: u32,
    pub id: Hash,
    pub spec: CameraSpec,
    pub enabled: bool,
    pub alive: bool,
    /// When it last received `acquire_camera_focus` (a count; 0: never, or released).
    pub focus: u64,
}

pub struct LightInstance {
    pub slot: u32,
    pub id: Hash,
    pub spec: LightSpec,
    pub enabled: bool,
    pub alive: bool,
}

#[derive(Default)]
pub struct ModelWorld {
    pub assets: Vec<ModelAsset>,
    pub materials: Vec<MaterialAsset>,
    pub textures: Vec<TextureAsset>,
    pub instances: Vec<ModelInstance>,
    pub cameras: Vec<CameraInstance>,
    pub lights: Vec<LightInstance>,
    /// Whether the animation pass runs on the thread pool (see `base::parallel`).
    pub pose_threads: crate::base::parallel::Chooser,
    /// The local transforms and model matrices the serial animation pass poses every instance in.
    pub pose_buffers: super::animation::state::PoseBuffers,
    /// The same for each thread of the parallel pass (locked by the thread that uses them).
    pub worker_buffers: Vec<std::sync::Mutex<super::animation::state::PoseBuffers>>,
    /// The threads of the parallel animation pass.
    pub crew: crate::base::parallel::Crew,
    /// When this frame's update began and what waking the pool's threads then took, and how
    /// long after its frame's beginning the last animation pass started, on the pool or not
    /// (see `animation::ready`).
    pub frame_began: Option<(std::time::Instant, std::time::Duration)>,
    pub pass_lead: Option<(std::time::Duration, bool)>,
    /// Instances the last animation pass animated.
    pub animated: usize,
    /// Changes of any instance's IK state ([`ModelWorld::ik_state_mut`]), and (`ik_edits`,
    /// whether some live instance has a target) as last checked.
    ik_edits: u64,
    ik_checked: Option<(u64, bool)>,
    /// Whether a script has ever set a morph weight override (`set_weight_override`).
    weight_overrides: bool,
    /// The instances the parallel pass leaves to its serial part, in instance order.
    pub tail: Vec<u32>,
    /// Changes of any instance's bone list (see [`ModelWorld::bones_disjoint`]).
    bone_edits: super::animation::state::BoneEdits,
    /// (`bone_edits`, `Scene::bone_removals`, the answer) of the last `bones_disjoint` check,
    /// and its scratch bit set of scene slots.
    bones_checked: Option<(u64, u64, bool)>,
    bone_seen: Vec<u64>,
    asset_by_path: HashMap<String, u32>,
    material_by_path: HashMap<String, u32>,
    texture_by_path: HashMap<String, u32>,
    /// By skeleton, animation files and the `.model`'s joint limits (written out).
    rigs: HashMap<(String, Vec<String>, String), Arc<Rig>>,
    /// Indices of deleted model instances, reused so that spawning and deleting models (factories)
    /// neither grows `instances` nor slows the scans over it.
    free_instances: Vec<u32>,
}

impl ModelWorld {
    /// Imports a glTF file once; later calls return the same asset.
    pub fn asset(&mut self, res: &Resources, path: &str) -> Result<u32, LoadError> {
        if let Some(&i) = self.asset_by_path.get(path) {
            return Ok(i);
        }
        let im = crate::project::import::import_model(res, path)?;
        Ok(self.insert_asset(path, im))
    }

    /// Whether `path` was imported already.
    pub fn has_asset(&self, path: &str) -> bool {
        self.asset_by_path.contains_key(path)
    }

    /// Keeps a file imported elsewhere (a proxy's background load) as [`ModelWorld::asset`]
    /// would have; a path imported meanwhile keeps its first import.
    pub fn insert_asset(&mut self, path: &str, im: crate::project::import::Imported) -> u32 {
        if let Some(&i) = self.asset_by_path.get(path) {
            return i;
        }
        self.assets.push(ModelAsset {
            path: path.to_string(),
            data: Rc::new(im.data),
            files: im.files,
            warnings: im.warnings,
            limits: im.limits,
        });
        let i = (self.assets.len() - 1) as u32;
        self.asset_by_path.insert(path.to_string(), i);
        i
    }

    /// Reads a `.material` once (its constants); the shaders are compiled by the renderer.
    pub fn material(&mut self, res: &Resources, path: &str, referenced_from: &str) -> Result<u32, LoadError> {
        if let Some(&i) = self.material_by_path.get(path) {
            return Ok(i);
        }
        let m = read_material(res, path, referenced_from)?;
        self.materials.push(m);
        let i = (self.materials.len() - 1) as u32;
        self.material_by_path.insert(path.to_string(), i);
        Ok(i)
    }

    /// Forgets the rigs built from `path` so the next `rig` call rebuilds them.
    pub fn forget_rigs_of(&mut self, path: &str) {
        self.rigs.retain(|(skeleton, anims, _), _| skeleton != path && !anims.iter().any(|a| a == path));
    }

    /// The rig of a model: None when its skeleton file has no skins and no file has animations.
    pub fn rig(&mut self, res: &Resources, spec: &ModelSpec) -> Result<Option<Arc<Rig>>, String> {
        let key = (spec.skeleton.clone(), spec.animations.clone(), format!("{:?}", spec.joint_limits));
        if let Some(r) = self.rigs.get(&key) {
            return Ok(Some(r.clone()));
        }
        let at = |e: LoadError| format!("{e}\n(model of {})", spec.source);
        let sk = self.asset(res, &spec.skeleton).map_err(at)?;
        let mut files = Vec::new();
        for a in &spec.animations {
            files.push(self.asset(res, a).map_err(at)?);
        }
        let skeleton = self.assets[sk as usize].data.clone();
        let anims: Vec<Rc<ModelData>> = files.iter().map(|&i| self.assets[i as usize].data.clone()).collect();
        if skeleton.skins.is_empty() && anims.iter().all(|a| a.animations.is_empty()) {
            return Ok(None);
        }
        let refs: Vec<&ModelData> = anims.iter().map(|a| a.as_ref()).collect();
        let mut rig = Rig::new(&spec.skeleton, &skeleton, &refs).map_err(at)?;
        rig.limits = joint_limits(&rig, &self.assets[sk as usize].limits, &spec.joint_limits).map_err(|e| {
            let e = LoadError::new(&spec.source, e);
            at(e)
        })?;
        let rig = Arc::new(rig);
        self.rigs.insert(key, rig.clone());
        Ok(Some(rig))
    }

    /// Decodes a texture file once.
    pub fn texture(&mut self, res: &Resources, path: &str, referenced_from: &str) -> Result<u32, LoadError> {
        if let Some(&i) = self.texture_by_path.get(path) {
            return Ok(i);
        }
        let data = crate::project::gltf::load_texture(res, path, referenced_from)?;
        self.textures.push(TextureAsset { path: path.to_string(), data: Rc::new(data) });
        let i = (self.textures.len() - 1) as u32;
        self.texture_by_path.insert(path.to_string(), i);
        Ok(i)
    }

    /// Re-imports the glTF files a saved resource belongs to (the file itself, or for a `.bin`
    /// or image, every `.gltf` in its folder). On success every instance uses the new data; on
    /// failure the previous version stays. Returns each affected asset with its outcome.
    pub fn reload_assets(&mut self, res: &Resources, changed: &str) -> Vec<(u32, Result<(), LoadError>)> {
        let dir = |p: &str| p.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default();
        let sibling = !(changed.ends_with(".glb") || changed.ends_with(".gltf") || changed.ends_with(".obj"));
        let mut out = Vec::new();
        for (i, a) in self.assets.iter_mut().enumerate() {
            let hit = a.path == changed
                || a.files.iter().any(|f| f == changed)
                || (sibling && a.path.ends_with(".gltf") && dir(&a.path) == dir(changed));
            if !hit {
                continue;
            }
            let result = crate::project::import::import_model(res, &a.path).map(|im| {
                a.data = Rc::new(im.data);
                (a.files, a.warnings, a.limits) = (im.files, im.warnings, im.limits);
            });
            out.push((i as u32, result));
        }
        for (i, r) in &out {
            if r.is_ok() {
                let data = self.assets[*i as usize].data.clone();
                let meshes = data.meshes.len();
                for m in self.instances.iter_mut().filter(|m| m.asset == *i) {
                    if m.mesh_enabled.len() != meshes {
                        m.mesh_enabled = vec![true; meshes];
                    }
                    // The saved file may have other morph targets: the buffer takes the new
                    // layout (animation and the override write into it from the next frame).
                    m.weights = data.meshes.iter().flat_map(|x| x.weights.iter().copied()).collect();
                }
            }
        }
        out
    }

    /// Re-reads the materials that a saved `.material`, `.vp` or `.fp` belongs to (constants);
    /// the renderer recompiles their shaders. Returns the affected materials with the outcome.
    pub fn reload_materials(&mut self, res: &Resources, changed: &str) -> Vec<(u32, Result<(), LoadError>)> {
        let mut out = Vec::new();
        for (i, m) in self.materials.iter_mut().enumerate() {
            if m.path != changed && !m.shaders.iter().any(|s| s == changed) {
                continue;
            }
            let result = read_material(res, &m.path, &m.path).map(|new| *m = new);
            out.push((i as u32, result));
        }
        out
    }

    /// Creates a model component on `slot`; import errors name the glTF file and the model.
    pub fn create_model(
        &mut self,
        res: &Resources,
        slot: u32,
        (id, go_path): (&str, &str),
        spec: &ModelSpec,
    ) -> Result<u32, String> {
        let asset = self.asset(res, &spec.mesh).map_err(|e| format!("{e}\n(model '{id}' of {})", spec.source))?;
        let material = self.material(res, &spec.material, &spec.source).map_err(|e| e.to_string())?;
        let meshes = self.assets[asset as usize].data.meshes.len();
        let mut textures = Vec::new();
        for (sampler, path) in &spec.textures {
            let t = self.texture(res, path, &spec.source).map_err(|e| e.to_string())?;
            textures.push((hash_remembered(sampler), t));
        }
        let data = self.assets[asset as usize].data.clone();
        let mut anim = self.rig(res, spec)?.map(|r| AnimState::with_meshes(r, &data));
        if let Some(a) = anim.as_mut()
            && spec.rig_extras != Default::default()
        {
            let extras = super::animation::rig::RigExtras::resolve(&a.rig, &spec.rig_extras, &spec.source)?;
            a.set_extras(Arc::new(extras));
        }
        let instance = ModelInstance {
            slot,
            id: hash_remembered(id),
            spec: spec.clone(),
            names: (id.to_string(), go_path.to_string()),
            asset,
            material,
            textures,
            mesh_enabled: vec![true; meshes],
            weights: self.assets[asset as usize].data.meshes.iter().flat_map(|m| m.weights.iter().copied()).collect(),
            weight_override: None,
            anim,
            constants: Vec::new(),
            enabled: true,
            alive: true,
        };
        if let Some(i) = self.free_instances.pop() {
            self.instances[i as usize] = instance;
            return Ok(i);
        }
        self.instances.push(instance);
        Ok((self.instances.len() - 1) as u32)
    }

    pub fn create_camera(&mut self, slot: u32, id: &str, spec: &CameraSpec) -> u32 {
        let id = hash_remembered(id);
        self.cameras.push(CameraInstance { slot, id, spec: spec.clone(), enabled: true, alive: true, focus: 0 });
        (self.cameras.len() - 1) as u32
    }

    /// The camera drawn: of the live, enabled ones, the last to acquire focus
    /// (`acquire_camera_focus`), else the first made.
    pub fn active_camera(&self) -> Option<&CameraInstance> {
        let live = || self.cameras.iter().filter(|c| c.alive && c.enabled);
        live().filter(|c| c.focus > 0).max_by_key(|c| c.focus).or_else(|| live().next())
    }

    /// `acquire_camera_focus` (`on`) or `release_camera_focus` for camera `i`.
    pub fn camera_focus(&mut self, i: u32, on: bool) {
        let next = self.cameras.iter().map(|c| c.focus).max().unwrap_or(0) + 1;
        if let Some(c) = self.cameras.get_mut(i as usize) {
            c.focus = if on { next } else { 0 };
        }
    }

    pub fn create_light(&mut self, slot: u32, id: &str, spec: &LightSpec) -> u32 {
        let id = hash_remembered(id);
        self.lights.push(LightInstance { slot, id, spec: spec.clone(), enabled: true, alive: true });
        (self.lights.len() - 1) as u32
    }

    /// Whether no scene slot is the bone object of two live instances, which lets the parallel
    /// animation pass drive bone objects from several threads. Bone objects are spawned for
    /// one model each, so this only fails after a removed bone's slot was reused for another
    /// model's bone; it is checked again only after bone lists changed (`bone_edits`) or bone
    /// objects were removed.
    pub fn bones_disjoint(&mut self, scene: &crate::scene::Scene) -> bool {
        let now = (self.bone_edits.count(), scene.bone_removals());
        if let Some((edits, removals, answer)) = self.bones_checked
            && (edits, removals) == now
        {
            return answer;
        }
        let lists = self.instances.iter().filter(|m| m.alive).filter_map(|m| m.anim.as_ref()).map(|a| a.bones());
        let disjoint = slots_disjoint(lists, scene.capacity(), &mut self.bone_seen);
        if !disjoint {
            log::debug!("animation: a bone object slot is listed by two models; the pass stays on one thread");
        }
        self.bones_checked = Some((now.0, now.1, disjoint));
        disjoint
    }

    /// Gives model instance `model` these bone objects: (skeleton node, game object slot).
    pub fn set_bones(&mut self, model: u32, bones: Vec<(usize, u32)>, scene: &crate::scene::Scene) {
        if let Some(a) = self.instances.get_mut(model as usize).and_then(|m| m.anim.as_mut()) {
            let any_watched = bones.iter().any(|&(_, s)| scene.is_watched(s));
            a.set_bones(bones, any_watched, &mut self.bone_edits);
        }
    }

    /// Makes the deletion marks of bone objects those of their models' objects: bone objects
    /// live and die with their model (scripts cannot delete them, api.md), whichever way a
    /// deletion reached them (a recursive `go.delete` of an object a bone was moved under).
    /// A bone removed under a living model would stay in its bone list, and its slot, reused
    /// by the next spawn, would be driven to the bone's pose every frame.
    pub fn bones_follow_models(&self, doomed: &mut [bool]) {
        for m in self.instances.iter().filter(|m| m.alive) {
            let Some(a) = m.anim.as_ref() else { continue };
            let owner_doomed = doomed.get(m.slot as usize).copied().unwrap_or(false);
            for &(_, slot) in a.bones() {
                if let Some(d) = doomed.get_mut(slot as usize) {
                    *d = owner_doomed;
                }
            }
        }
    }

    /// The IK state of model `model`'s chain named `chain`, to change (`model.set_ik_target*`,
    /// `model.clear_ik_target`, `model.set_ik_weight`): the only way to one from outside the
    /// animation module, so every change of a target is counted for [`ik_target_known`].
    ///
    /// [`ik_target_known`]: ModelWorld::ik_target_known
    pub fn ik_state_mut(&mut self, model: u32, chain: Hash) -> Option<&mut super::animation::state::IkState> {
        self.ik_edits = self.ik_edits.wrapping_add(1);
        self.instances.get_mut(model as usize)?.anim.as_mut()?.ik_state_mut(chain)
    }

    /// `scan(instances)` (whether some instance has an IK target), walked again only after an
    /// IK state was handed out to change ([`ModelWorld::ik_state_mut`]) or an instance was
    /// removed while the answer was yes: a target appears through nothing else, and a walk over
    /// a crowd's instances cost a tenth of its animation pass.
    pub fn ik_target_known(&mut self, scan: impl FnOnce(&[ModelInstance]) -> bool) -> bool {
        if let Some((edits, answer)) = self.ik_checked
            && edits == self.ik_edits
        {
            return answer;
        }
        let answer = scan(&self.instances);
        self.ik_checked = Some((self.ik_edits, answer));
        answer
    }

    /// Forgets every component of a deleted game object.
    pub fn remove_object(&mut self, slot: u32) {
        // The pass may leave one thread again if the object's model had the only IK target.
        if matches!(self.ik_checked, Some((_, true))) {
            self.ik_checked = None;
        }
        let ModelWorld { instances, bone_edits, free_instances, .. } = self;
        for (i, m) in instances.iter_mut().enumerate().filter(|(_, m)| m.alive && m.slot == slot) {
            m.alive = false;
            if let Some(a) = m.anim.as_mut() {
                a.listener = None;
                for l in &mut a.layers {
                    l.listener = None;
                }
                // The bone objects go with the model; their slots will be reused.
                a.set_bones(Vec::new(), false, bone_edits);
            }
            free_instances.push(i as u32);
        }
        for c in self.cameras.iter_mut().filter(|c| c.slot == slot) {
            c.alive = false;
        }
        for l in self.lights.iter_mut().filter(|l| l.slot == slot) {
            l.alive = false;
        }
    }

    /// Fills `out` with the `model.play_anim` callback ids that a live model may still call,
    /// sorted (a buffer the caller keeps, so the once-a-frame sweep allocates nothing).
    pub fn live_callbacks(&self, out: &mut Vec<u32>) {
        out.clear();
        out.extend(
            self.instances
                .iter()
                .filter(|m| m.alive)
                .filter_map(|m| m.anim.as_ref())
                .flat_map(|a| std::iter::once(a.listener).chain(a.layers.iter().map(|l| l.listener)))
                .filter_map(|l| l.map(|l| l.callback))
                .filter(|&c| c != 0),
        );
        out.sort_unstable();
    }

    /// `model.set_blend_weights` (`None` clears it: back to the initial weights until animation
    /// writes new ones), applied at once and after each animation pass.
    pub fn set_weight_override(&mut self, model: u32, values: Option<Vec<f32>>) {
        let Some(inst) = self.instances.get_mut(model as usize) else { return };
        let cleared = values.is_none();
        self.weight_overrides |= !cleared;
        inst.weight_override = values;
        if cleared && let Some(asset) = self.assets.get(inst.asset as usize) {
            inst.weights = asset.data.meshes.iter().flat_map(|x| x.weights.iter().copied()).collect();
        }
        self.apply_weight_override(model);
    }

    /// [`ModelWorld::apply_weight_override`] of every instance, after the animation pass; none
    /// is looked at until a script has set an override (a crowd's 1,000 instance records were
    /// 5 µs a frame to walk).
    pub fn apply_weight_overrides(&mut self) {
        if self.weight_overrides {
            for i in 0..self.instances.len() as u32 {
                self.apply_weight_override(i);
            }
        }
    }

    /// Applies the script override (if any) over `weights`: each morphed mesh takes as many
    /// values as it has targets, missing ones are zero, extra ones ignored.
    fn apply_weight_override(&mut self, model: u32) {
        let Some(m) = self.instances.get_mut(model as usize) else { return };
        let Some(over) = &m.weight_override else { return };
        let data = &self.assets[m.asset as usize].data;
        let mut at = 0;
        for mesh in &data.meshes {
            let n = mesh.weights.len();
            // A buffer of another layout (never after a reload, see reload_assets) is left alone.
            let Some(ws) = m.weights.get_mut(at..at + n) else { return };
            for (i, w) in ws.iter_mut().enumerate() {
                *w = over.get(i).copied().unwrap_or(0.0);
            }
            at += n;
        }
    }

    /// Weights of the first mesh that has morph targets (`model.get_blend_weights`).
    pub fn first_mesh_weights(&self, model: u32) -> &[f32] {
        let Some(m) = self.instances.get(model as usize) else { return &[] };
        let data = &self.assets[m.asset as usize].data;
        let mut at = 0;
        for mesh in &data.meshes {
            if !mesh.weights.is_empty() {
                return m.weights.get(at..at + mesh.weights.len()).unwrap_or(&[]);
            }
            at += mesh.weights.len();
        }
        &[]
    }

    /// Marks `slot` as read from now on ([`Scene::watch`]). A bone object that was not
    /// watched has not been driven since it stopped being: it gets its model's last pose now,
    /// before anything reads it.
    pub fn watch(&mut self, scene: &mut crate::scene::Scene, slot: u32) {
        if !scene.watch(slot) || !scene.is_on_demand(slot) {
            return;
        }
        let Some(&owner) = scene.parent.get(slot as usize) else { return };
        let owning = self
            .instances
            .iter_mut()
            .filter(|m| m.alive && m.slot == owner)
            .filter_map(|m| m.anim.as_mut())
            .find_map(|a| a.bones().iter().find(|&&(_, s)| s == slot).map(|&(node, _)| node).map(|node| (a, node)));
        if let Some((a, node)) = owning {
            a.bone_watched();
            if let Some(m) = a.bone_matrix(node) {
                scene.drive(slot, &m);
            }
        }
    }

    /// True when `slot` is the game object of a model's bone (scripts cannot delete those).
    pub fn is_bone(&self, slot: u32) -> bool {
        self.instances
            .iter()
            .filter(|m| m.alive)
            .filter_map(|m| m.anim.as_ref())
            .any(|a| a.bones().iter().any(|&(_, s)| s == slot))
    }

    /// The bone game objects of the models on object `slot`.
    pub fn bones_of(&self, slot: u32) -> Vec<u32> {
        self.instances
            .iter()
            .filter(|m| m.alive && m.slot == slot)
            .filter_map(|m| m.anim.as_ref())
            .flat_map(|a| a.bones().iter().map(|&(_, s)| s))
            .collect()
    }

    /// Current value of a material constant of a model (override, else material default).
    pub fn constant(&self, model: u32, name: Hash) -> Option<[f32; 4]> {
        let m = self.instances.get(model as usize)?;
        if let Some((_, v)) = m.constants.iter().find(|(h, _)| *h == name) {
            return Some(*v);
        }
        let mat = self.materials.get(m.material as usize)?;
        mat.constants.iter().find(|(h, _, _)| *h == name).map(|(_, _, v)| *v)
    }

    /// Draws model `model` with material `material` from now on; of the constants set on it,
    /// those the new material declares too are kept.
    pub fn set_material(&mut self, model: u32, material: u32) {
        let Some(mat) = self.materials.get(material as usize) else { return };
        if let Some(m) = self.instances.get_mut(model as usize) {
            m.material = material;
            m.constants.retain(|(h, _)| mat.constants.iter().any(|(c, _, _)| c == h));
        }
    }

    /// Sets a material constant; false when the material declares no such constant.
    pub fn set_constant(&mut self, model: u32, name: Hash, value: [f32; 4]) -> bool {
        let Some(m) = self.instances.get_mut(model as usize) else { return false };
        let declared =
            self.materials.get(m.material as usize).is_some_and(|mat| mat.constants.iter().any(|(h, _, _)| *h == name));
        if !declared {
            return false;
        }
        match m.constants.iter_mut().find(|(h, _)| *h == name) {
            Some(c) => c.1 = value,
            None => m.constants.push((name, value)),
        }
        true
    }
}

/// The limits of a rig: the skeleton file's own (a `.bon`), then the `.model`'s `joint_limits`
/// over them by joint name. A name the skeleton lacks is an error (a typo would silently leave
/// the joint free).
fn joint_limits(
    rig: &Rig,
    from_file: &[crate::project::JointLimitSpec],
    from_model: &[crate::project::JointLimitSpec],
) -> Result<Vec<crate::anim::limits::JointLimit>, String> {
    let sk = &rig.skeleton;
    let mut out: Vec<crate::anim::limits::JointLimit> = Vec::new();
    for (l, given) in from_file.iter().map(|l| (l, false)).chain(from_model.iter().map(|l| (l, true))) {
        let Some(node) = (0..sk.node_count()).find(|&n| sk.name(n) == l.joint) else {
            if given {
                return Err(format!("joint_limits: skeleton {} has no joint '{}'", rig.source, l.joint));
            }
            continue;
        };
        let limit = crate::anim::limits::JointLimit {
            node,
            min: glam::Vec3::from_array(l.min),
            max: glam::Vec3::from_array(l.max),
        };
        out.retain(|o| o.node != node);
        if !limit.is_free() {
            out.push(limit);
        }
    }
    Ok(out)
}

fn read_material(res: &Resources, path: &str, referenced_from: &str) -> Result<MaterialAsset, LoadError> {
    let text = res.read_string(path, Some(referenced_from))?;
    let desc = material::parse_material(path, &text)?;
    let constants = desc.constants().into_iter().map(|(n, v)| (hash_remembered(&n), n, v)).collect();
    let programs =
        [json::resource_path(&desc.vertex_program, path)?, json::resource_path(&desc.fragment_program, path)?];
    // The files the programs include too, so saving one recompiles the material; a program that
    // cannot be read or expanded is the renderer's error to report, with its position.
    let mut shaders = programs.to_vec();
    for program in &programs {
        let Ok(text) = res.read_string(program, Some(path)) else { continue };
        let mut read = |p: &str| res.read_string(p, Some(program.as_str()));
        if let Ok((_, files)) = material::expand_includes(program, &text, &mut read) {
            shaders.extend(files.into_iter().skip(1).filter(|f| !programs.contains(f)));
        }
    }
    shaders.dedup();
    Ok(MaterialAsset { path: path.to_string(), constants, shaders })
}

/// Whether no slot appears twice in `lists` (each a bone list: (node, slot)); `seen` is a
/// scratch bit set, sized here for slots below `capacity` (others cannot be driven).
fn slots_disjoint<'a>(lists: impl Iterator<Item = &'a [(usize, u32)]>, capacity: usize, seen: &mut Vec<u64>) -> bool {
    seen.clear();
    seen.resize(capacity.div_ceil(64), 0);
    for list in lists {
        for &(_, slot) in list {
            if crate::base::bits::test_and_insert(seen, slot as usize) == Some(true) {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    #[test]
    fn ik_targets_are_looked_for_again_only_after_an_edit_or_a_removal() {
        let mut m = super::ModelWorld::default();
        let scans = std::cell::Cell::new(0);
        let ask = |m: &mut super::ModelWorld, answer: bool| {
            m.ik_target_known(|_| {
                scans.set(scans.get() + 1);
                answer
            })
        };
        assert!(!ask(&mut m, false));
        assert!(!ask(&mut m, true), "no edit: the last answer");
        assert_eq!(scans.get(), 1);
        m.ik_edits += 1;
        assert!(ask(&mut m, true), "an edit: looked for again");
        assert!(ask(&mut m, false));
        assert_eq!(scans.get(), 2);
        // A removal forgets a yes (the model with the target may be gone), never a no.
        m.remove_object(7);
        assert!(!ask(&mut m, false));
        assert_eq!(scans.get(), 3);
        m.remove_object(7);
        assert!(!ask(&mut m, true));
        assert_eq!(scans.get(), 3);
    }

    #[test]
    fn a_slot_in_two_bone_lists_is_found() {
        let mut seen = Vec::new();
        let a: Vec<(usize, u32)> = (0..24).map(|j| (j, 100 + j as u32)).collect();
        let b: Vec<(usize, u32)> = (0..24).map(|j| (j, 124 + j as u32)).collect();
        let mut c = b.clone();
        c[7].1 = 130; // twice in one list
        let mut d = b.clone();
        d[23].1 = 100; // also a's first bone
        let check =
            |lists: &[&[(usize, u32)]], seen: &mut Vec<u64>| super::slots_disjoint(lists.iter().copied(), 200, seen);
        assert!(check(&[&a, &b], &mut seen));
        assert!(!check(&[&a, &c], &mut seen));
        assert!(!check(&[&a, &d], &mut seen));
        // The scratch set is cleared between checks.
        assert!(check(&[&b], &mut seen) && check(&[&a], &mut seen));
        // Slots past the scene's end are never driven.
        assert!(check(&[&[(0, 500)], &[(1, 500)]], &mut seen));
    }
}
