//! Game objects stored as a structure of arrays indexed by slot.
//!
//! World transforms are recomputed once per frame in one pass over `order`, a parent-before-child
//! list rebuilt only when the hierarchy changes, so the per-frame cost is a linear sweep with no
//! recursion and no allocation.
//!
//! The pass leaves out objects whose world transform is computed when read
//! ([`Scene::world_on_demand`]): the bone objects of animated models without children. A crowd
//! of 1,000 characters has 24,000 of them, nearly always unread, and computing their world
//! transforms was most of the pass. Every read of a world transform goes through
//! [`Scene::world_of`], which gives every bone object (with children or not) its parent's world
//! transform times its current local one: the product the pass makes, with the same float
//! operations, and between the animation pass and the transform pass already with this frame's
//! pose.
use crate::base::hash::{Hash, hash_str};
use glam::{Affine3A, Quat, Vec3};
use std::collections::HashMap;

/// "No object" in parent links and lookups.
pub const NONE: u32 = u32::MAX;

/// The lookup key of id `id` in the world of `socket`: the id itself in the main world (socket
/// 0), so the main world's lookups cost nothing more; mixed with the socket elsewhere.
#[inline]
fn key(socket: Hash, id: Hash) -> Hash {
    if socket == 0 { id } else { id ^ socket.rotate_left(29).wrapping_mul(0x9E37_79B9_7F4A_7C15) }
}

/// A live component of a game object: its type's world and its index there. (What a file
/// declares is `project::ComponentKind`.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentRef {
    Script(u32),
    Model(u32),
    Camera(u32),
    Light(u32),
    /// `factory` or `collectionfactory`: index into the world's factories.
    Factory(u32),
    /// Index into the world's labels.
    Label(u32),
    /// Index into the world's sounds.
    Sound(u32),
    /// Index into the world's collision objects (`game::physics`).
    CollisionObject(u32),
    /// Index into the world's sprites.
    Sprite(u32),
    /// Index into the world's GUI scenes.
    Gui(u32),
    /// Index into the world's particle effects.
    ParticleFx(u32),
    /// Index into the world's tile maps.
    TileMap(u32),
    /// Index into the world's collection proxies.
    CollectionProxy(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Component {
    pub id: Hash,
    pub kind: ComponentRef,
}

/// Where the local transforms live, for scripts that read and write their own object's transform
/// without a call (`go.get_position()`/`go.set_position(p)` in `update`, the hottest calls there
/// are). It is kept in a box of its own, so its address never changes, and it is rewritten after
/// every growth of the arrays it points into (the one place they grow is [`Scene::spawn_id`]).
#[repr(C)]
#[derive(Debug)]
pub struct TransformView {
    pub position: *mut f32,
    pub rotation: *mut f32,
    pub scale: *mut f32,
    /// Slots the arrays hold.
    pub len: u32,
}

impl Default for TransformView {
    fn default() -> TransformView {
        TransformView {
            position: std::ptr::null_mut(),
            rotation: std::ptr::null_mut(),
            scale: std::ptr::null_mut(),
            len: 0,
        }
    }
}

/// Where a slot's local transform lives. Bone objects of animated models get theirs as a matrix
/// every frame ([`Scene::drive`]); decomposing it into position, rotation and scale was the
/// costliest step of moving the 24 bones of each of 1,000 characters, and almost nothing reads
/// those, so it waits until something does ([`Scene::settle`]). Reads and writes of the three
/// arrays for any slot that may be a bone go through `settle` / `settle_for_write` first; a
/// script's own object (the transform view) is never a bone object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Local {
    /// Position, rotation and scale are the transform.
    #[default]
    Trs,
    /// The matrix is, and the three arrays are stale.
    Matrix,
    /// The matrix is, and the three arrays hold its decomposition.
    Settled,
}

/// All game objects of the running collection.
#[derive(Default)]
pub struct Scene {
    pub ids: Vec<Hash>,
    /// The URL socket of each object's world: 0 for the main collection's, else the name hash of
    /// the collection a proxy loaded (`level:/hero`). Ids are unique per socket.
    pub socket: Vec<Hash>,
    /// The socket new objects get (set while a proxy's collection or a factory of a proxied
    /// object spawns).
    spawn_socket: Hash,
    /// Index into `prefixes`: the collection path used to resolve relative ids.
    pub prefix: Vec<u32>,
    pub parent: Vec<u32>,
    pub position: Vec<Vec3>,
    pub rotation: Vec<Quat>,
    pub scale: Vec<Vec3>,
    /// World transforms as of the last pass (or a spawn, or `update_world_transform_of`); read
    /// them through [`Scene::world_of`], which also covers the objects the pass leaves out.
    world: Vec<Affine3A>,
    /// Per slot: computed when read while it has no children (see the module doc).
    on_demand: Vec<bool>,
    /// Per slot: where its local transform lives (see [`Local`]).
    local: Vec<Local>,
    /// The local matrix of a slot whose `local` is not `Trs` (a bone object of an animated model).
    local_matrix: Vec<Affine3A>,
    /// Bone objects removed so far (see [`Scene::bone_removals`]).
    bone_removals: u64,
    pub alive: Vec<bool>,
    /// Added through [`Scene::add_component`] (which keeps [`Scene::has_script`]).
    pub components: Vec<Vec<Component>>,
    /// Whether each object has a script, next to each other: physics asks for thousands of
    /// objects a step, where reading each one's component list would miss the cache for each.
    has_script: Vec<bool>,
    /// Objects whose deletion was requested this frame (deferred to the end of the frame).
    pub doomed: Vec<bool>,
    pub prefixes: Vec<String>,
    /// `prefixes` by text: collection factories add one per spawned collection.
    prefix_index: HashMap<String, u32, crate::base::hash::IdBuild>,
    by_id: crate::base::hash::IdMap<u32>,
    free: Vec<u32>,
    order: Vec<u32>,
    /// `order` less the objects computed when read: what the transform pass walks.
    pass_order: Vec<u32>,
    order_dirty: bool,
    /// Per slot: whether anything may read the object's transform — it was given a child, or
    /// the game asked for it ([`Scene::watch`]: `model.get_go`, an IK target). The animation
    /// pass drives only watched bone objects: a crowd's 24,000 bone objects are nearly never
    /// read, and writing them every frame was 0.1 ms of its 0.55 (issue 40). The game poses a
    /// bone object when it becomes watched, so no read ever sees it behind: whatever can name a
    /// bone object (`model.get_go`, the `set_parent` message) goes through
    /// `ModelWorld::watch`, which also tells the bone's model.
    watched: Vec<bool>,
    /// Live children per slot, so removing a leaf (the common case: spawned objects) does not
    /// scan every slot for children to re-attach.
    child_count: Vec<u32>,
    children_scratch: Vec<u32>,
    child_start: Vec<u32>,
    view: Box<TransformView>,
}

impl Scene {
    /// Adds a component to object `slot` (after its others: messages reach them in this order).
    pub fn add_component(&mut self, slot: u32, c: Component) {
        let s = slot as usize;
        if let (Some(list), Some(script)) = (self.components.get_mut(s), self.has_script.get_mut(s)) {
            *script |= matches!(c.kind, ComponentRef::Script(_));
            list.push(c);
        }
    }

    /// Whether object `slot` has a script component.
    pub fn has_script(&self, slot: u32) -> bool {
        self.has_script.get(slot as usize).copied().unwrap_or(false)
    }

    pub fn new() -> Self {
        Self::default()
    }

    /// The view of the transform arrays; its address is the same for the scene's whole life.
    pub fn transform_view(&self) -> *const TransformView {
        &*self.view
    }

    fn refresh_view(&mut self) {
        *self.view = TransformView {
            position: self.position.as_mut_ptr().cast(),
            rotation: self.rotation.as_mut_ptr().cast(),
            scale: self.scale.as_mut_ptr().cast(),
            len: self.position.len() as u32,
        };
    }

    /// Number of slots (live or free); valid slot indices are below this.
    pub fn capacity(&self) -> usize {
        self.ids.len()
    }

    pub fn live_count(&self) -> usize {
        self.ids.len() - self.free.len()
    }

    /// Whether a collection prefix such as `/level/` is in use.
    pub fn has_prefix(&self, prefix: &str) -> bool {
        self.prefix_index.contains_key(prefix)
    }

    /// Index of a collection prefix such as `/level/`, interned.
    pub fn intern_prefix(&mut self, prefix: &str) -> u32 {
        if let Some(&i) = self.prefix_index.get(prefix) {
            return i;
        }
        self.prefixes.push(prefix.to_string());
        let i = (self.prefixes.len() - 1) as u32;
        self.prefix_index.insert(prefix.to_string(), i);
        i
    }

    /// Adds a game object with the absolute id path `path`; fails if the id is taken.
    pub fn spawn(&mut self, path: &str, prefix: u32, pos: Vec3, rot: Quat, scale: Vec3) -> Result<u32, String> {
        crate::base::hash::remember(path);
        self.spawn_id(hash_str(path), path, prefix, pos, rot, scale)
    }

    /// [`Scene::spawn`] for objects a factory makes: their names are remembered among the
    /// script-made ones, since `/instanceN` never repeats and pinning each would grow forever.
    pub fn spawn_transient(
        &mut self,
        path: &str,
        prefix: u32,
        pos: Vec3,
        rot: Quat,
        scale: Vec3,
    ) -> Result<u32, String> {
        let id = crate::base::hash::hash_transient(path);
        self.spawn_id(id, path, prefix, pos, rot, scale)
    }

    fn spawn_id(
        &mut self,
        id: Hash,
        path: &str,
        prefix: u32,
        pos: Vec3,
        rot: Quat,
        scale: Vec3,
    ) -> Result<u32, String> {
        let key = key(self.spawn_socket, id);
        if self.by_id.contains_key(&key) {
            return Err(format!("a game object with id '{path}' already exists"));
        }
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.ids.push(0);
                self.socket.push(0);
                self.prefix.push(0);
                self.parent.push(NONE);
                self.position.push(Vec3::ZERO);
                self.rotation.push(Quat::IDENTITY);
                self.scale.push(Vec3::ONE);
                self.world.push(Affine3A::IDENTITY);
                self.on_demand.push(false);
                self.watched.push(false);
                self.local.push(Local::Trs);
                self.local_matrix.push(Affine3A::IDENTITY);
                self.alive.push(false);
                self.components.push(Vec::new());
                self.has_script.push(false);
                self.doomed.push(false);
                self.child_count.push(0);
                self.refresh_view();
                (self.ids.len() - 1) as u32
            }
        };
        let s = slot as usize;
        self.ids[s] = id;
        self.socket[s] = self.spawn_socket;
        self.prefix[s] = prefix;
        self.parent[s] = NONE;
        self.position[s] = pos;
        self.rotation[s] = rot;
        self.scale[s] = scale;
        self.world[s] = Affine3A::from_scale_rotation_translation(scale, rot, pos);
        self.on_demand[s] = false;
        self.watched[s] = false;
        self.local[s] = Local::Trs;
        self.alive[s] = true;
        self.doomed[s] = false;
        self.components[s].clear();
        self.has_script[s] = false;
        self.by_id.insert(key, slot);
        self.order_dirty = true;
        Ok(slot)
    }

    /// Slot of a live object of the main collection's world by id.
    pub fn find(&self, id: Hash) -> Option<u32> {
        self.by_id.get(&id).copied()
    }

    /// Whether `slot` holds the live object [`Scene::find_in`] finds by `socket` and `id`
    /// (whose look-up this spares, where the slot is known).
    pub fn holds(&self, slot: u32, socket: Hash, id: Hash) -> bool {
        let s = slot as usize;
        self.alive.get(s) == Some(&true) && self.ids.get(s) == Some(&id) && self.socket.get(s) == Some(&socket)
    }

    /// Slot of a live object by socket (0: the main collection's) and id.
    pub fn find_in(&self, socket: Hash, id: Hash) -> Option<u32> {
        self.by_id.get(&key(socket, id)).copied()
    }

    /// The socket new objects get now.
    pub fn spawn_socket(&self) -> Hash {
        self.spawn_socket
    }

    /// Sets the socket new objects get; the caller puts the previous one back.
    pub fn set_spawn_socket(&mut self, socket: Hash) {
        self.spawn_socket = socket;
    }

    pub fn is_live(&self, slot: u32) -> bool {
        self.alive.get(slot as usize).copied().unwrap_or(false)
    }

    /// Sets the parent, optionally keeping the world transform. Refuses cycles.
    pub fn set_parent(&mut self, child: u32, parent: u32, keep_world: bool) -> Result<(), String> {
        if !self.is_live(child) || (parent != NONE && !self.is_live(parent)) {
            return Err("no such game object".into());
        }
        let mut p = parent;
        while p != NONE {
            if p == child {
                return Err("a game object cannot be parented to itself or its descendant".into());
            }
            p = self.parent[p as usize];
        }
        let c = child as usize;
        if keep_world {
            let parent_world = if parent == NONE { Affine3A::IDENTITY } else { self.world_of(parent) };
            let local = parent_world.inverse() * self.world_of(child);
            let (s, r, t) = local.to_scale_rotation_translation();
            self.position[c] = t;
            self.rotation[c] = r.normalize();
            self.scale[c] = s;
            self.local[c] = Local::Trs;
        }
        let old = std::mem::replace(&mut self.parent[c], parent);
        if old != NONE {
            self.child_count[old as usize] -= 1;
        }
        if parent != NONE {
            self.watched[parent as usize] = true;
            // A leaf computed when read joins the pass with its first child: until that pass, its
            // stored world transform must already be the one it reads as.
            if self.child_count[parent as usize] == 0 {
                self.world[parent as usize] = self.world_of(parent);
            }
            self.child_count[parent as usize] += 1;
        }
        self.order_dirty = true;
        Ok(())
    }

    /// Removes an object now. Children are re-attached to its parent, keeping their world transform.
    pub fn remove(&mut self, slot: u32) {
        if !self.is_live(slot) {
            return;
        }
        let s = slot as usize;
        let grand = self.parent[s];
        if self.child_count[s] > 0 {
            for c in 0..self.ids.len() {
                if self.alive[c] && self.parent[c] == slot {
                    let _ = self.set_parent(c as u32, grand, true);
                }
            }
        }
        if grand != NONE {
            self.child_count[grand as usize] -= 1;
        }
        if self.on_demand[s] || self.local[s] != Local::Trs {
            // A bone object: its slot may come back as another model's bone.
            self.bone_removals += 1;
        }
        self.by_id.remove(&key(self.socket[s], self.ids[s]));
        self.alive[s] = false;
        self.doomed[s] = false;
        self.components[s].clear();
        self.has_script[s] = false;
        self.parent[s] = NONE;
        self.free.push(slot);
        self.order_dirty = true;
    }

    /// Direct children of `slot` (not hot: used by recursive deletion).
    pub fn children(&self, slot: u32) -> Vec<u32> {
        if self.child_count.get(slot as usize).is_none_or(|&n| n == 0) {
            return Vec::new();
        }
        (0..self.ids.len() as u32).filter(|&c| self.alive[c as usize] && self.parent[c as usize] == slot).collect()
    }

    /// Parent-before-child order of live objects.
    pub fn order(&mut self) -> &[u32] {
        if self.order_dirty {
            self.rebuild_order();
        }
        &self.order
    }

    /// Counting sort by parent, then a breadth-first walk from the roots: O(n), no recursion.
    fn rebuild_order(&mut self) {
        let n = self.ids.len();
        self.child_start.clear();
        self.child_start.resize(n + 2, 0);
        for c in 0..n {
            if self.alive[c] {
                let p = self.parent[c];
                let bucket = if p == NONE { 0 } else { p as usize + 1 };
                self.child_start[bucket + 1] += 1;
            }
        }
        for i in 1..self.child_start.len() {
            self.child_start[i] += self.child_start[i - 1];
        }
        self.children_scratch.clear();
        self.children_scratch.resize(self.live_count(), 0);
        let mut fill = self.child_start.clone();
        for c in 0..n {
            if self.alive[c] {
                let p = self.parent[c];
                let bucket = if p == NONE { 0 } else { p as usize + 1 };
                self.children_scratch[fill[bucket] as usize] = c as u32;
                fill[bucket] += 1;
            }
        }
        self.order.clear();
        let roots = self.child_start[0] as usize..self.child_start[1] as usize;
        self.order.extend_from_slice(&self.children_scratch[roots]);
        let mut i = 0;
        while i < self.order.len() {
            let b = self.order[i] as usize + 1;
            let range = self.child_start[b] as usize..self.child_start[b + 1] as usize;
            self.order.extend_from_slice(&self.children_scratch[range]);
            i += 1;
        }
        let mut pass_order = std::mem::take(&mut self.pass_order);
        pass_order.clear();
        pass_order.extend(self.order.iter().copied().filter(|&s| !self.left_out_of_pass(s as usize)));
        self.pass_order = pass_order;
        self.order_dirty = false;
    }

    /// Recomputes every world transform from the locals, parents first.
    pub fn update_world_transforms(&mut self) {
        if self.order_dirty {
            self.rebuild_order();
        }
        let Scene { pass_order, parent, position, rotation, scale, world, local, local_matrix, .. } = self;
        for &slot in pass_order.iter() {
            let s = slot as usize;
            let local = match local[s] {
                Local::Trs => Affine3A::from_scale_rotation_translation(scale[s], rotation[s], position[s]),
                _ => local_matrix[s],
            };
            let p = parent[s];
            world[s] = if p == NONE { local } else { world[p as usize] * local };
        }
    }

    /// Marks `slot` (a bone object of an animated model) as computed when read while it has no
    /// children; a spawn into the slot clears it.
    pub fn world_on_demand(&mut self, slot: u32) {
        if let Some(d) = self.on_demand.get_mut(slot as usize)
            && !*d
        {
            *d = true;
            self.order_dirty = true;
        }
    }

    /// Whether `slot` is a bone object ([`Scene::world_on_demand`]).
    pub fn is_on_demand(&self, slot: u32) -> bool {
        self.on_demand.get(slot as usize).copied().unwrap_or(false)
    }

    /// Marks `slot` as read from now on (see the `watched` field); true when it was not. A bone
    /// object becoming watched must be posed by the caller before anything reads it.
    pub fn watch(&mut self, slot: u32) -> bool {
        match self.watched.get_mut(slot as usize) {
            Some(w) if !*w => {
                *w = true;
                true
            }
            _ => false,
        }
    }

    pub fn is_watched(&self, slot: u32) -> bool {
        self.watched.get(slot as usize).copied().unwrap_or(false)
    }

    #[inline]
    fn left_out_of_pass(&self, s: usize) -> bool {
        self.on_demand[s] && self.child_count[s] == 0
    }

    /// The world transform of `slot` (identity for a slot that does not exist): the one of the
    /// last pass, or for a bone object (marked by [`Scene::world_on_demand`], children or not),
    /// its parent's world transform of the last pass times its local transform now. So every bone
    /// object reads the same way: in `late_update`, with the pose of this frame, as the mesh is
    /// drawn (its model object's world transform is still the one of the last pass).
    pub fn world_of(&self, slot: u32) -> Affine3A {
        let s = slot as usize;
        let Some(&stored) = self.world.get(s) else { return Affine3A::IDENTITY };
        if !self.on_demand[s] {
            return stored;
        }
        let local = match self.local[s] {
            Local::Trs => Affine3A::from_scale_rotation_translation(self.scale[s], self.rotation[s], self.position[s]),
            _ => self.local_matrix[s],
        };
        // The parent's stored transform: a bone object's parent is its model object (or, moved by
        // a script, another object with a child), which the pass computes.
        match self.parent[s] {
            NONE => local,
            p => self.world[p as usize] * local,
        }
    }

    /// The world rotation of `slot`, given `decomposed`, the one its world matrix gives: that
    /// one, or where a zero scale (an object shrunk to nothing) leaves the matrix no rotation to
    /// recover, its own rotation composed with its parents', as Defold composes transforms. So a
    /// vanished object still reports, and its body keeps, the way it faces.
    pub fn world_rotation(&self, slot: u32, decomposed: Quat) -> Quat {
        if decomposed.is_finite() {
            return decomposed;
        }
        let mut q = Quat::IDENTITY;
        let mut s = slot as usize;
        // At most one step per object: the parent links form a tree.
        for _ in 0..self.parent.len() {
            let (Some(local), Some(&r)) = (self.local.get(s), self.rotation.get(s)) else { break };
            let own = match local {
                Local::Trs => r,
                _ => self.local_matrix[s].to_scale_rotation_translation().1,
            };
            q = own * q;
            match self.parent[s] {
                NONE => break,
                p => s = p as usize,
            }
        }
        crate::base::quat::unit_quat(q.to_array()).unwrap_or(Quat::IDENTITY)
    }

    /// A just-spawned `slot` under `parent`: its world transform was its local one until now.
    pub fn place_under(&mut self, slot: u32, parent: u32) {
        let parent_world = self.world_of(parent);
        if let Some(w) = self.world.get_mut(slot as usize) {
            *w = parent_world * *w;
        }
    }

    /// Recomputes the world transform of one object and its ancestors (`go.update_world_transform`).
    pub fn update_world_transform_of(&mut self, slot: u32) {
        let mut chain = Vec::new();
        let mut s = slot;
        while s != NONE && self.is_live(s) {
            chain.push(s);
            s = self.parent[s as usize];
        }
        for &s in chain.iter().rev() {
            let i = s as usize;
            let local = match self.local[i] {
                Local::Trs => {
                    Affine3A::from_scale_rotation_translation(self.scale[i], self.rotation[i], self.position[i])
                }
                _ => self.local_matrix[i],
            };
            let p = self.parent[i];
            self.world[i] = if p == NONE { local } else { self.world[p as usize] * local };
        }
    }

    /// Gives `slot` this local matrix (an affine one: bottom row 0 0 0 1) as its transform from
    /// now until the next write of its position, rotation or scale. One fence per call: a pass
    /// that drives many slots holds a [`BoneStream`] instead.
    #[inline]
    pub fn drive(&mut self, slot: u32, m: &glam::Mat4) {
        let driver = self.bone_driver();
        let stream = driver.stream();
        // SAFETY: the driver borrows the scene exclusively and this thread is its only user.
        unsafe { stream.store(slot, m) }
    }

    /// How many bone objects (slots marked [`Scene::world_on_demand`] or driven) were removed
    /// so far: a removed slot can be spawned again as another model's bone while the first
    /// model still lists it, so what was known of the bone lists holds until this changes.
    pub fn bone_removals(&self) -> u64 {
        self.bone_removals
    }

    /// A handle that drives bone objects from several threads at once (the parallel pose
    /// pass), holding the scene's transform arrays for as long as it lives.
    pub fn bone_driver(&mut self) -> BoneDriver<'_> {
        let len = self.local.len().min(self.local_matrix.len()).min(self.watched.len());
        BoneDriver {
            local: self.local.as_mut_ptr(),
            matrix: self.local_matrix.as_mut_ptr(),
            watched: self.watched.as_ptr(),
            len,
            _scene: std::marker::PhantomData,
        }
    }

    /// Makes `position`, `rotation` and `scale` of `slot` current before they are read: a
    /// driven slot's matrix is decomposed (exactly as the animation pass used to do it every
    /// frame, so what is read is unchanged).
    #[inline]
    pub fn settle(&mut self, slot: u32) {
        if self.local.get(slot as usize) == Some(&Local::Matrix) {
            self.decompose(slot as usize);
        }
    }

    #[cold]
    fn decompose(&mut self, s: usize) {
        let (sc, r, t) = glam::Mat4::from(self.local_matrix[s]).to_scale_rotation_translation();
        (self.position[s], self.rotation[s], self.scale[s]) = (t, r, sc);
        self.local[s] = Local::Settled;
    }

    /// [`Scene::settle`] before a write of any part of the transform: from then on the three
    /// arrays are the transform again.
    #[inline]
    pub fn settle_for_write(&mut self, slot: u32) {
        let s = slot as usize;
        if let Some(l) = self.local.get(s).copied()
            && l != Local::Trs
        {
            if l == Local::Matrix {
                self.decompose(s);
            }
            self.local[s] = Local::Trs;
        }
    }

    /// Finds a component of an object by id.
    pub fn component(&self, slot: u32, id: Hash) -> Option<Component> {
        self.components.get(slot as usize)?.iter().copied().find(|c| c.id == id)
    }
}

/// [`Scene::drive`] for several threads at once: see [`Scene::bone_driver`]. Slots are driven
/// through a [`BoneStream`] that each thread takes for itself.
pub struct BoneDriver<'a> {
    local: *mut Local,
    matrix: *mut Affine3A,
    watched: *const bool,
    len: usize,
    _scene: std::marker::PhantomData<&'a mut Scene>,
}

// SAFETY: the driver itself writes nothing; its streams write only through `BoneStream::drive`,
// whose callers promise that no two threads drive one slot at the same time, and the arrays
// stay borrowed (and unmoved) while it lives.
unsafe impl Send for BoneDriver<'_> {}
// SAFETY: as for `Send`: shared, it only hands out streams.
unsafe impl Sync for BoneDriver<'_> {}

impl BoneDriver<'_> {
    /// This thread's way to drive slots. Its stores are fenced when it is dropped, on this
    /// thread (it cannot leave it), and before the driver and with it the scene's borrow end:
    /// so no thread reads a driven matrix that was not fenced.
    pub fn stream(&self) -> BoneStream<'_> {
        BoneStream {
            local: self.local,
            matrix: self.matrix,
            watched: self.watched,
            len: self.len,
            streaming: crate::base::prefetch::Streaming::new(),
        }
    }
}

/// One thread's writes of bone matrices: see [`BoneDriver::stream`].
pub struct BoneStream<'d> {
    local: *mut Local,
    matrix: *mut Affine3A,
    watched: *const bool,
    len: usize,
    streaming: crate::base::prefetch::Streaming<'d>,
}

impl BoneStream<'_> {
    /// [`Scene::drive`] for a watched `slot` (see the `watched` field of [`Scene`]); nothing
    /// for one that is not: its transform is made when it becomes watched.
    ///
    /// # Safety
    /// No other thread may drive `slot` while this stream lives.
    #[inline]
    pub unsafe fn drive(&self, slot: u32, m: &glam::Mat4) {
        let s = slot as usize;
        // SAFETY: `s` is in bounds of `watched`, which the driver borrows (shared: nothing
        // writes it while the scene is borrowed) for longer than this stream lives.
        if s < self.len && unsafe { *self.watched.add(s) } {
            // SAFETY: the caller's contract.
            unsafe { self.store(slot, m) }
        }
    }

    /// [`Scene::drive`], watched or not.
    ///
    /// # Safety
    /// No other thread may drive `slot` while this stream lives.
    #[inline]
    unsafe fn store(&self, slot: u32, m: &glam::Mat4) {
        let s = slot as usize;
        if s < self.len {
            // Streamed: a crowd's bone matrices are written every frame and read only on
            // demand (see `base::prefetch::Streaming`, which fences them when this is dropped).
            // SAFETY: `s` is in bounds of both arrays, which the driver borrows exclusively
            // from the scene for longer than this stream lives; the caller guarantees that no
            // other thread writes slot `s` meanwhile, and the scene cannot be read before the
            // driver is dropped.
            unsafe {
                self.streaming.store_raw(self.matrix.add(s), &Affine3A::from_mat4(*m));
                *self.local.add(s) = Local::Matrix;
            }
        }
    }

    /// Starts loading what [`BoneStream::drive`] reads for `slot` (a hint: no effect on
    /// results): its `watched` flag; the matrix is streamed, never read.
    #[inline(always)]
    pub fn prefetch(&self, slot: u32) {
        if (slot as usize) < self.len {
            crate::base::prefetch::prefetch_ptr(self.watched.wrapping_add(slot as usize), 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn(s: &mut Scene, p: &str, x: f32) -> u32 {
        s.spawn(p, 0, Vec3::new(x, 0.0, 0.0), Quat::IDENTITY, Vec3::ONE).unwrap()
    }

    #[test]
    fn world_transforms_follow_parents_in_any_slot_order() {
        let mut s = Scene::new();
        let c = spawn(&mut s, "/c", 1.0);
        let b = spawn(&mut s, "/b", 1.0);
        let a = spawn(&mut s, "/a", 1.0);
        s.set_parent(c, b, false).unwrap();
        s.set_parent(b, a, false).unwrap();
        s.rotation[a as usize] = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        s.scale[a as usize] = Vec3::splat(2.0);
        s.update_world_transforms();
        let w = s.world_of(c).translation;
        assert!((w - glam::Vec3A::new(1.0, 4.0, 0.0)).length() < 1e-5, "{w:?}");
        assert_eq!(s.order(), &[a, b, c]);
    }

    #[test]
    fn duplicate_ids_cycles_and_removal() {
        let mut s = Scene::new();
        let a = spawn(&mut s, "/a", 0.0);
        assert!(s.spawn("/a", 0, Vec3::ZERO, Quat::IDENTITY, Vec3::ONE).is_err());
        let b = spawn(&mut s, "/b", 2.0);
        s.set_parent(b, a, false).unwrap();
        assert!(s.set_parent(a, b, false).is_err());
        assert!(s.set_parent(a, a, false).is_err());
        s.position[a as usize] = Vec3::new(5.0, 0.0, 0.0);
        s.update_world_transforms();
        s.remove(a);
        assert_eq!(s.parent[b as usize], NONE);
        assert!((s.position[b as usize].x - 7.0).abs() < 1e-5);
        assert!(s.find(hash_str("/a")).is_none());
        let c = spawn(&mut s, "/c", 0.0);
        assert_eq!(c, a, "slots are reused");
    }

    /// A slot given with a message holds its receiver only while the object there is the one
    /// the look-up finds: not once it is removed, nor when the slot is reused by another.
    #[test]
    fn a_slot_holds_an_object_as_long_as_the_lookup_finds_it_there() {
        let mut s = Scene::new();
        let a = spawn(&mut s, "/a", 0.0);
        let (id_a, id_c) = (hash_str("/a"), hash_str("/c"));
        assert!(s.holds(a, 0, id_a));
        assert_eq!(s.find(id_a), Some(a));
        assert!(!s.holds(a, 0, id_c), "another id");
        assert!(!s.holds(a, hash_str("level"), id_a), "the same id in another world");
        assert!(!s.holds(NONE, 0, id_a) && !s.holds(a + 100, 0, id_a), "no such slot");
        s.remove(a);
        assert!(!s.holds(a, 0, id_a), "removed");
        let c = spawn(&mut s, "/c", 0.0);
        assert_eq!(c, a, "the slot is reused");
        assert!(!s.holds(a, 0, id_a), "reused by another object");
        assert!(s.holds(a, 0, id_c));
    }

    #[test]
    fn child_counts_follow_reparenting_and_removal() {
        let mut s = Scene::new();
        let a = spawn(&mut s, "/a", 0.0);
        let b = spawn(&mut s, "/b", 0.0);
        let c = spawn(&mut s, "/c", 0.0);
        let d = spawn(&mut s, "/d", 0.0);
        s.set_parent(b, a, false).unwrap();
        s.set_parent(c, b, false).unwrap();
        s.set_parent(d, b, false).unwrap();
        assert_eq!((s.child_count[a as usize], s.child_count[b as usize]), (1, 2));
        s.set_parent(d, a, false).unwrap();
        assert_eq!((s.child_count[a as usize], s.child_count[b as usize]), (2, 1));
        // Removing b moves c up to a.
        s.remove(b);
        assert_eq!(s.parent[c as usize], a);
        assert_eq!(s.child_count[a as usize], 2);
        assert_eq!(s.children(a), vec![c, d]);
        s.remove(d);
        assert_eq!(s.children(a), vec![c]);
        // A reused slot starts without children.
        let e = spawn(&mut s, "/e", 0.0);
        assert_eq!(s.child_count[e as usize], 0);
        assert!(s.children(e).is_empty() && s.children(99).is_empty());
    }

    #[test]
    fn keep_world_transform_on_reparent() {
        let mut s = Scene::new();
        let a = spawn(&mut s, "/a", 3.0);
        let b = spawn(&mut s, "/b", 1.0);
        s.update_world_transforms();
        s.set_parent(b, a, true).unwrap();
        s.update_world_transforms();
        assert!((s.world_of(b).translation.x - 1.0).abs() < 1e-5);
        assert!((s.position[b as usize].x + 2.0).abs() < 1e-5);
    }

    /// Bone objects nobody reads are not written by the pass; a parent, a bone given a child
    /// and a bone asked for (`watch`) are, and `Scene::drive` writes either way.
    #[test]
    fn the_pass_drives_watched_bone_objects_only() {
        let mut s = Scene::new();
        let owner = spawn(&mut s, "/owner", 0.0);
        let bones: Vec<u32> = (0..3).map(|i| spawn(&mut s, &format!("/owner#model/b{i}"), 0.0)).collect();
        for &b in &bones {
            s.set_parent(b, owner, false).unwrap();
            s.world_on_demand(b);
        }
        assert!(s.is_watched(owner), "a parent is watched");
        assert!(bones.iter().all(|&b| !s.is_watched(b) && s.is_on_demand(b)));
        assert!(s.watch(bones[0]) && !s.watch(bones[0]), "watched once");
        let child = spawn(&mut s, "/sword", 0.0);
        s.set_parent(child, bones[1], false).unwrap();
        assert!(s.is_watched(bones[1]), "a bone given a child is watched");
        let m = glam::Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
        {
            let driver = s.bone_driver();
            let stream = driver.stream();
            for &b in &bones {
                // SAFETY: one thread drives.
                unsafe { stream.drive(b, &m) };
            }
        }
        let at = |s: &Scene, b: u32| s.world_of(b).translation;
        assert_eq!(at(&s, bones[0]), glam::Vec3A::new(1.0, 2.0, 3.0));
        assert_eq!(at(&s, bones[1]), glam::Vec3A::new(1.0, 2.0, 3.0));
        assert_eq!(at(&s, bones[2]), glam::Vec3A::ZERO, "not watched: not written");
        // `Scene::drive` (a bone posed as it becomes watched) writes watched or not.
        s.drive(bones[2], &m);
        assert_eq!(at(&s, bones[2]), glam::Vec3A::new(1.0, 2.0, 3.0));
        // A slot spawned again is not watched.
        s.remove(child);
        let again = spawn(&mut s, "/again", 0.0);
        assert_eq!(again, child);
        assert!(!s.is_watched(again));
    }

    /// Two scenes with the same objects, one computing the leaf "bones" when read: every world
    /// transform reads the same, bit for bit, through driving, settling, a script-style write,
    /// a child attached (the bone joins the pass) and removed again, and a reparent keeping the
    /// world transform.
    #[test]
    fn world_on_demand_reads_as_the_pass_computes() {
        let build = |lazy: bool| {
            let mut s = Scene::new();
            let owner = spawn(&mut s, "/owner", 2.0);
            s.rotation[owner as usize] = Quat::from_rotation_y(0.7);
            s.scale[owner as usize] = Vec3::new(1.0, 2.0, 0.5);
            let bones: Vec<u32> = (0..4).map(|i| spawn(&mut s, &format!("/owner#model/b{i}"), 0.0)).collect();
            for &b in &bones {
                s.set_parent(b, owner, false).unwrap();
                if lazy {
                    s.world_on_demand(b);
                }
            }
            (s, owner, bones)
        };
        let (mut eager, owner, bones) = build(false);
        let (mut lazy, _, _) = build(true);
        let drive = |s: &mut Scene, k: f32| {
            for (i, &b) in bones.iter().enumerate() {
                let m = glam::Mat4::from_scale_rotation_translation(
                    Vec3::splat(1.0 + 0.1 * i as f32),
                    Quat::from_rotation_x(k * (i as f32 + 1.0)),
                    Vec3::new(k, i as f32, -k),
                );
                s.drive(b, &m);
            }
        };
        let same = |a: &Scene, b: &Scene, when: &str| {
            for slot in 0..a.capacity() as u32 {
                assert_eq!(a.world_of(slot), b.world_of(slot), "{when}: slot {slot}");
            }
        };
        for (scene, k) in [(&mut eager, 0.3), (&mut lazy, 0.3)] {
            drive(scene, k);
            scene.update_world_transforms();
        }
        same(&eager, &lazy, "driven");
        assert_eq!(lazy.pass_order.len(), 1, "only the owner is in the pass");
        for scene in [&mut eager, &mut lazy] {
            scene.settle(bones[1]);
            scene.settle_for_write(bones[2]);
            scene.position[bones[2] as usize].x += 1.5;
            scene.update_world_transforms();
        }
        same(&eager, &lazy, "settled and written");
        // A child on a lazy bone: the bone joins the pass at once, and reads the same before it.
        for scene in [&mut eager, &mut lazy] {
            let child = spawn(scene, "/sword", 0.25);
            scene.set_parent(child, bones[3], false).unwrap();
        }
        same(&eager, &lazy, "child attached, before the pass");
        for (scene, k) in [(&mut eager, 0.9), (&mut lazy, 0.9)] {
            drive(scene, k);
            scene.update_world_transforms();
        }
        same(&eager, &lazy, "child attached, after the pass");
        assert_eq!(lazy.pass_order.len(), 3, "the owner, the bone with a child and the child");
        for scene in [&mut eager, &mut lazy] {
            let sword = scene.find(hash_str("/sword")).unwrap();
            scene.set_parent(sword, bones[0], true).unwrap();
            scene.update_world_transforms();
        }
        same(&eager, &lazy, "child moved to another bone, keeping its world transform");
        for scene in [&mut eager, &mut lazy] {
            let sword = scene.find(hash_str("/sword")).unwrap();
            scene.remove(sword);
            scene.update_world_transforms();
        }
        same(&eager, &lazy, "child removed");
        assert_eq!(lazy.pass_order.len(), 1);
        // A slot spawned again into a lazy bone's place is an ordinary object.
        lazy.remove(bones[0]);
        let again = spawn(&mut lazy, "/again", 4.0);
        assert_eq!(again, bones[0]);
        assert!(!lazy.on_demand[again as usize]);
        lazy.update_world_transforms();
        assert!((lazy.world_of(again).translation.x - 4.0).abs() < 1e-6);
        assert_eq!(lazy.world_of(u32::MAX), Affine3A::IDENTITY);
        let _ = owner;
    }
}
