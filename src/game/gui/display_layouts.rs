//! A scene's layouts (Defold's GUI layouts): which of its node sets the scene shows, chosen
//! for the window from the project's display profiles when the scene starts and whenever the
//! window changes size, or by `gui.set_layout`. Switching puts every node of the file back as
//! the chosen layout has it (what scripts changed on them is lost, as in Defold, which is why
//! the script hears `layout_changed`), makes the profile's size the scene's design size, and
//! leaves nodes scripts made alone. Not placement on screen: that is [`super::layout`].
use super::{GuiInstance, GuiWorld};
use crate::project::display_profiles::DisplayProfiles;
use crate::project::gui::GuiScene;

/// A layout switch to report to the scene's script: layout indices as
/// [`GuiScene::layout_nodes`] takes them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayoutChange {
    pub instance: u32,
    pub layout: usize,
    pub previous: usize,
}

/// The layout of `scene` that best fits `window`: the default one when the scene has no
/// layout for any profile.
pub fn best_layout(profiles: &DisplayProfiles, scene: &GuiScene, window: (u32, u32)) -> usize {
    if scene.layouts.is_empty() {
        return 0;
    }
    profiles.best(window, |name| scene.layout_index(name).is_some()).and_then(|n| scene.layout_index(n)).unwrap_or(0)
}

/// The design size layout `layout` of `scene` was made for: its profile's size; `None` for a
/// layout no profile names (the default one, unless a profile is called "Default"), which keeps
/// the size the scene had, as Defold does.
pub fn resolution(profiles: &DisplayProfiles, scene: &GuiScene, layout: usize) -> Option<(u32, u32)> {
    profiles.size_of(scene.layout_name(layout))
}

/// What `gui.set_layout` did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LayoutSet {
    /// The scene has no layout of that name: nothing changed.
    Unknown,
    /// The scene already showed it.
    Same,
    Changed(LayoutChange),
}

impl GuiInstance {
    /// Every node of the file that is not deleted takes layout `layout`'s values, keeping its
    /// parent, draw order and handle; flipbooks of those nodes start again. The design size
    /// becomes `resolution`, or stays when it is `None`.
    pub fn apply_layout(&mut self, layout: usize, resolution: Option<(u32, u32)>) {
        let scene = self.scene.clone();
        let src = scene.layout_nodes(layout);
        let mut reset = vec![false; self.nodes.len()];
        for (k, &i) in self.scene_nodes.iter().enumerate() {
            let (Some(from), Some(n)) = (src.get(k), self.nodes.get_mut(i)) else { continue };
            if n.deleted {
                continue;
            }
            let (parent, rank) = (n.parent, n.rank);
            *n = from.clone();
            n.parent = parent;
            n.rank = rank;
            reset[i] = true;
        }
        self.flipbooks.retain(|f| !reset.get(f.node).copied().unwrap_or(false));
        for (i, was_reset) in reset.into_iter().enumerate() {
            if was_reset && self.nodes[i].animation.is_some() {
                self.push_clock(i, 0.0, 1.0, None);
            }
        }
        self.layout = layout;
        if resolution.is_some() {
            self.resolution = resolution;
        }
    }
}

impl GuiWorld {
    /// New profiles (a saved file): the layouts are chosen again at the next frame's start.
    pub fn set_profiles(&mut self, profiles: DisplayProfiles) {
        self.profiles = profiles;
        self.chosen_for = None;
    }

    /// When the window is not the size the layouts were last chosen for, every scene with
    /// layouts takes the one that best fits it, unless the profiles turn automatic selection
    /// off; the switches, for `layout_changed`.
    pub fn follow_window(&mut self, window: (u32, u32)) -> Vec<LayoutChange> {
        let mut out = Vec::new();
        if self.chosen_for == Some(window) {
            return out;
        }
        self.chosen_for = Some(window);
        let GuiWorld { instances, profiles, .. } = self;
        if !profiles.auto_layout_selection {
            return out;
        }
        for (i, g) in instances.iter_mut().enumerate() {
            if !g.alive || g.scene.layouts.is_empty() {
                continue;
            }
            let layout = best_layout(profiles, &g.scene, window);
            // Profiles may change while the game runs (a saved file): the size follows.
            if let Some(size) = resolution(profiles, &g.scene, g.layout) {
                g.resolution = Some(size);
            }
            if layout != g.layout {
                let previous = g.layout;
                g.apply_layout(layout, resolution(profiles, &g.scene, layout));
                out.push(LayoutChange { instance: i as u32, layout, previous });
            }
        }
        out
    }

    /// `gui.set_layout`: instance `i` switches to layout `name`, as Defold's: a name the scene
    /// lacks changes nothing (the script gets `false`).
    pub fn set_layout(&mut self, i: u32, name: &str) -> Result<LayoutSet, String> {
        let GuiWorld { instances, profiles, .. } = self;
        let Some(g) = instances.get_mut(i as usize).filter(|g| g.alive) else {
            return Err("the gui component was deleted".into());
        };
        let Some(layout) = g.scene.layout_index(name) else { return Ok(LayoutSet::Unknown) };
        if layout == g.layout {
            return Ok(LayoutSet::Same);
        }
        let previous = g.layout;
        g.apply_layout(layout, resolution(profiles, &g.scene, layout));
        Ok(LayoutSet::Changed(LayoutChange { instance: i, layout, previous }))
    }

    /// `gui.get_layouts`: instance `i`'s layouts (the default one first) with the size of each
    /// one's display profile: the scene's present size for the default layout, (0, 0) for a
    /// layout no profile names.
    pub fn layouts(&self, i: u32) -> Vec<(String, (u32, u32))> {
        (0..).map_while(|k| self.layout_at(i, k)).map(|(name, size)| (name.to_string(), size)).collect()
    }

    /// Layout `k` of instance `i` as [`GuiWorld::layouts`] lists it; `None` past the last.
    pub fn layout_at(&self, i: u32, k: usize) -> Option<(&str, (u32, u32))> {
        let g = self.instances.get(i as usize).filter(|g| g.alive && k <= g.scene.layouts.len())?;
        let name = g.scene.layout_name(k);
        let size = match self.profiles.size_of(name) {
            Some(s) => s,
            None if k == 0 => self.screen_of(i).0,
            None => (0, 0),
        };
        Some((name, size))
    }

    /// The design size instance `i` is laid out from, and the window: `pick_node` and
    /// `get_screen_position` answer for the screen last drawn.
    pub fn screen_of(&self, i: u32) -> ((u32, u32), (u32, u32)) {
        let (display, window) = self.screen;
        let own = self.instances.get(i as usize).and_then(|g| g.resolution);
        (own.unwrap_or(display), window)
    }
}

/// Tells each switched scene's script: `layout_changed { id, previous_id }`, from and to its
/// own component, as Defold sends it.
pub fn report(w: &mut crate::game::World, changes: &[LayoutChange]) {
    use crate::base::hash::hash_remembered;
    use crate::scene::message::{MsgValue, encode};
    if changes.is_empty() {
        return;
    }
    let id = hash_remembered("layout_changed");
    for c in changes {
        let Some(g) = w.gui.instances.get(c.instance as usize) else { continue };
        let Some(&path) = w.scene.ids.get(g.slot as usize) else { continue };
        let url = crate::scene::Url { socket: w.socket_of(g.slot), path, fragment: hash_remembered(&g.id) };
        let table = MsgValue::Table(vec![
            (MsgValue::String("id".into()), MsgValue::Hash(hash_remembered(g.scene.layout_name(c.layout)))),
            (MsgValue::String("previous_id".into()), MsgValue::Hash(hash_remembered(g.scene.layout_name(c.previous)))),
        ]);
        let mut data = Vec::new();
        encode(&table, &mut data);
        let msg = crate::scene::Message::new(url, url, id, data);
        if w.messages.post(msg).is_err() {
            log::warn!("layout_changed dropped: the frame's message budget is spent");
        }
    }
}
