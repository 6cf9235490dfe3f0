//! Action state: raw inputs → the actions of one frame (input.md section 2). Every buffer is
//! kept between frames, so a steady-state frame allocates nothing.
use super::focus::FocusStack;
use super::raw::{DEAD_ZONE, RawEvent};
use crate::base::hash::Hash;
use crate::project::input::{Binding, Device, Input};

pub const PRESSED: u32 = 1;
pub const RELEASED: u32 = 2;
pub const REPEATED: u32 = 4;
pub const HAS_GAMEPAD: u32 = 8;
pub const HAS_TEXT: u32 = 16;
/// `text` holds the `gamepad_name` of a `GAMEPAD_CONNECTED` action.
pub const HAS_GAMEPAD_NAME: u32 = 32;

/// One action of one frame as Lua reads it (layout = `sinew_action` in script/lua/input.lua).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ActionEvent {
    /// 0 for mouse movement (`action_id == nil`).
    pub action: Hash,
    pub value: f32,
    pub x: f32,
    pub y: f32,
    pub screen_x: f32,
    pub screen_y: f32,
    pub dx: f32,
    pub dy: f32,
    pub screen_dx: f32,
    pub screen_dy: f32,
    pub flags: u32,
    pub gamepad: u32,
    /// Byte range in [`InputState::text`] (text, marked text or gamepad name).
    pub text_start: u32,
    pub text_len: u32,
}

/// What an input is, worked out once per binding so the per-frame loop compares no strings.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// Keys and mouse buttons.
    Button,
    GamepadButton,
    /// Stick directions and triggers.
    Analog,
    WheelUp,
    WheelDown,
    Text,
    MarkedText,
    Connected,
    Disconnected,
}

impl Kind {
    fn of(input: Input) -> Kind {
        match input.name() {
            "MOUSE_WHEEL_UP" => Kind::WheelUp,
            "MOUSE_WHEEL_DOWN" => Kind::WheelDown,
            "TEXT" => Kind::Text,
            "MARKED_TEXT" => Kind::MarkedText,
            "GAMEPAD_CONNECTED" => Kind::Connected,
            "GAMEPAD_DISCONNECTED" => Kind::Disconnected,
            _ if input.is_analog() => Kind::Analog,
            _ if input.device() == Device::Gamepad => Kind::GamepadButton,
            _ => Kind::Button,
        }
    }

    fn momentary(self) -> bool {
        !matches!(self, Kind::Button | Kind::GamepadButton | Kind::Analog)
    }
}

/// One bound action and its state across frames.
#[derive(Debug, Clone)]
struct Slot {
    action: Hash,
    inputs: Vec<(Input, Kind)>,
    value: f32,
    /// Seconds held, and when the next repeat is due.
    held: f64,
    next_repeat: f64,
}

#[derive(Debug, Clone, Default)]
struct InputLevel {
    value: f32,
    went_down: bool,
    gamepad: u32,
}

/// Bindings, raw input levels, the pointer, the focus stack and the frame's actions.
#[derive(Debug, Clone, Default)]
pub struct InputState {
    slots: Vec<Slot>,
    levels: Vec<InputLevel>,
    pub focus: FocusStack,
    repeat_delay: f64,
    repeat_interval: f64,
    /// The project's window size (logical coordinates) and the real window's.
    logical: (f32, f32),
    window: (f32, f32),
    pointer: (f32, f32),
    moved: bool,
    delta: (f32, f32),
    wheel_up: f32,
    wheel_down: f32,
    typed: String,
    marked: Option<String>,
    connected: Vec<(u32, String)>,
    disconnected: Vec<u32>,
    /// This frame's actions (built by [`InputState::build`]) and their strings.
    pub frame: Vec<ActionEvent>,
    pub text: String,
    /// Script instances to call, top of the stack first, [`GROUP_END`] after each object.
    pub targets: Vec<u32>,
}

/// Ends one object's scripts in [`InputState::targets`].
pub const GROUP_END: u32 = u32::MAX;

impl InputState {
    pub fn new(binding: &Binding, logical: (u32, u32), repeat_delay: f32, repeat_interval: f32) -> InputState {
        let mut s = InputState {
            levels: vec![InputLevel::default(); Input::count()],
            repeat_delay: repeat_delay as f64,
            repeat_interval: repeat_interval.max(1e-3) as f64,
            logical: (logical.0 as f32, logical.1 as f32),
            window: (logical.0 as f32, logical.1 as f32),
            ..InputState::default()
        };
        s.set_binding(binding);
        s
    }

    /// Replaces the binding (hot reload); held inputs stay held, action states start over.
    pub fn set_binding(&mut self, binding: &Binding) {
        self.slots.clear();
        for row in &binding.rows {
            let input = (row.input, Kind::of(row.input));
            match self.slots.iter_mut().find(|s| s.action == row.action) {
                Some(s) => s.inputs.push(input),
                None => self.slots.push(Slot {
                    action: row.action,
                    inputs: vec![input],
                    value: 0.0,
                    held: 0.0,
                    next_repeat: 0.0,
                }),
            }
        }
    }

    /// The real window's size in pixels (`window.get_size`).
    pub fn window_size(&self) -> (f32, f32) {
        self.window
    }

    /// The real window's size, in the units of mouse coordinates.
    pub fn set_window_size(&mut self, width: u32, height: u32) {
        self.window = (width.max(1) as f32, height.max(1) as f32);
    }

    fn level(&mut self, input: Input) -> Option<&mut InputLevel> {
        self.levels.get_mut(input.0 as usize)
    }

    fn set_level(&mut self, input: Input, value: f32, gamepad: u32) {
        if let Some(l) = self.level(input) {
            if l.value == 0.0 && value > 0.0 {
                l.went_down = true;
            }
            l.value = value;
            l.gamepad = gamepad;
        }
    }

    /// Applies one raw event (in the order they arrived).
    pub fn feed(&mut self, e: &RawEvent) {
        match e {
            RawEvent::Quit => {}
            RawEvent::Key { input, down } => self.set_level(*input, if *down { 1.0 } else { 0.0 }, 0),
            RawEvent::MouseMove { x, y } => {
                self.delta.0 += x - self.pointer.0;
                self.delta.1 += y - self.pointer.1;
                self.pointer = (*x, *y);
                self.moved = true;
            }
            RawEvent::MouseButton { input, down, x, y } => {
                self.pointer = (*x, *y);
                self.set_level(*input, if *down { 1.0 } else { 0.0 }, 0);
            }
            RawEvent::MouseWheel { steps } => {
                if *steps > 0.0 {
                    self.wheel_up += steps;
                } else {
                    self.wheel_down -= steps;
                }
            }
            RawEvent::Text(t) => self.typed.push_str(t),
            RawEvent::MarkedText(t) => self.marked = Some(t.clone()),
            RawEvent::GamepadConnected { gamepad, name } => self.connected.push((*gamepad, name.clone())),
            RawEvent::GamepadDisconnected { gamepad } => self.disconnected.push(*gamepad),
            RawEvent::GamepadAxis { gamepad, input, value } => {
                let v = if value.is_finite() && *value >= DEAD_ZONE { value.min(1.0) } else { 0.0 };
                self.set_level(*input, v, *gamepad);
            }
            RawEvent::GamepadButton { gamepad, input, down } => {
                self.set_level(*input, if *down { 1.0 } else { 0.0 }, *gamepad)
            }
            RawEvent::Resize { width, height } => self.set_window_size(*width, *height),
        }
    }

    /// A blank action with the pointer fields filled in.
    fn pointer_event(&self) -> ActionEvent {
        let (sx, sy) = (self.logical.0 / self.window.0, self.logical.1 / self.window.1);
        let screen_x = self.pointer.0;
        let screen_y = self.window.1 - self.pointer.1;
        let (sdx, sdy) = (self.delta.0, 0.0 - self.delta.1);
        ActionEvent {
            x: screen_x * sx,
            y: screen_y * sy,
            screen_x,
            screen_y,
            dx: sdx * sx,
            dy: sdy * sy,
            screen_dx: sdx,
            screen_dy: sdy,
            ..ActionEvent::default()
        }
    }

    fn push_text(&mut self, mut e: ActionEvent, flag: u32, s: &str) {
        e.flags |= flag;
        e.text_start = self.text.len() as u32;
        e.text_len = s.len() as u32;
        self.text.push_str(s);
        self.frame.push(e);
    }

    /// Builds this frame's actions from the events fed since the last call, then clears the
    /// per-frame inputs. `dt` advances key repeat.
    pub fn build(&mut self, dt: f32) {
        self.frame.clear();
        self.text.clear();
        let base = self.pointer_event();
        if self.moved {
            self.frame.push(base);
        }
        for i in 0..self.slots.len() {
            let (action, prev) = (self.slots[i].action, self.slots[i].value);
            let mut value = 0.0f32;
            let mut went_down = false;
            let mut gamepad = None;
            let mut analog = false;
            for k in 0..self.slots[i].inputs.len() {
                let (input, kind) = self.slots[i].inputs[k];
                if kind.momentary() {
                    self.momentary(action, kind, &base);
                    continue;
                }
                let Some(l) = self.levels.get(input.0 as usize) else { continue };
                if l.value > value {
                    value = l.value;
                }
                went_down |= l.went_down;
                analog |= kind == Kind::Analog;
                if kind != Kind::Button && (l.value > 0.0 || l.went_down || gamepad.is_none()) {
                    gamepad = Some(l.gamepad);
                }
            }
            let pressed = prev == 0.0 && (value > 0.0 || went_down);
            let released = value == 0.0 && (prev > 0.0 || went_down);
            let slot = &mut self.slots[i];
            slot.value = value;
            let mut repeated = false;
            if pressed {
                // Defold's rule: a button's press frame is also a repeat (the next after
                // `repeat_delay`); sticks and triggers do not repeat.
                repeated = !analog;
                slot.held = 0.0;
                slot.next_repeat = self.repeat_delay;
            } else if value > 0.0 && !analog {
                slot.held += dt.max(0.0) as f64;
                // A small tolerance keeps sums of float frame times from missing a due repeat.
                if slot.held + 1e-6 >= slot.next_repeat {
                    repeated = true;
                    while slot.next_repeat <= slot.held + 1e-6 {
                        slot.next_repeat += self.repeat_interval;
                    }
                }
            }
            if value > 0.0 || pressed || released {
                let mut e = base;
                e.action = action;
                e.value = value;
                e.flags = (pressed as u32 * PRESSED) | (released as u32 * RELEASED) | (repeated as u32 * REPEATED);
                if let Some(g) = gamepad {
                    e.flags |= HAS_GAMEPAD;
                    e.gamepad = g;
                }
                self.frame.push(e);
            }
        }
        for l in &mut self.levels {
            l.went_down = false;
        }
        self.moved = false;
        self.delta = (0.0, 0.0);
        self.wheel_up = 0.0;
        self.wheel_down = 0.0;
        self.typed.clear();
        self.marked = None;
        self.connected.clear();
        self.disconnected.clear();
    }

    /// Wheel, text and gamepad-connection actions: delivered on the frame they happen.
    fn momentary(&mut self, action: Hash, kind: Kind, base: &ActionEvent) {
        let mut e = *base;
        e.action = action;
        e.flags = PRESSED;
        match kind {
            Kind::WheelUp | Kind::WheelDown => {
                let steps = if kind == Kind::WheelUp { self.wheel_up } else { self.wheel_down };
                if steps > 0.0 {
                    e.value = steps;
                    self.frame.push(e);
                }
            }
            Kind::Text if !self.typed.is_empty() => {
                e.value = 1.0;
                let typed = std::mem::take(&mut self.typed);
                self.push_text(e, HAS_TEXT, &typed);
                self.typed = typed;
            }
            Kind::MarkedText => {
                if let Some(m) = self.marked.take() {
                    e.value = 1.0;
                    self.push_text(e, HAS_TEXT, &m);
                    self.marked = Some(m);
                }
            }
            Kind::Connected => {
                for k in 0..self.connected.len() {
                    let (g, name) = std::mem::take(&mut self.connected[k]);
                    let mut c = e;
                    c.value = 1.0;
                    c.flags |= HAS_GAMEPAD;
                    c.gamepad = g;
                    self.push_text(c, HAS_GAMEPAD_NAME, &name);
                    self.connected[k] = (g, name);
                }
            }
            Kind::Disconnected => {
                for k in 0..self.disconnected.len() {
                    let mut c = e;
                    c.value = 1.0;
                    c.flags |= HAS_GAMEPAD;
                    c.gamepad = self.disconnected[k];
                    self.frame.push(c);
                }
            }
            _ => {}
        }
    }

    /// Text of one action of [`InputState::frame`].
    pub fn text_of(&self, e: &ActionEvent) -> &str {
        let (a, b) = (e.text_start as usize, (e.text_start + e.text_len) as usize);
        self.text.get(a..b).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::input::parse_binding;

    fn state(text: &str) -> InputState {
        InputState::new(&parse_binding("/t", text).unwrap(), (960, 540), 0.5, 0.2)
    }
    fn key(name: &str, down: bool) -> RawEvent {
        RawEvent::Key { input: Input::from_name(name).unwrap(), down }
    }
    fn flags(s: &InputState) -> Vec<(f32, u32)> {
        s.frame.iter().map(|e| (e.value, e.flags)).collect()
    }

    #[test]
    fn press_hold_repeat_release() {
        let mut s = state(r#"{ "key": [ { "input": "KEY_SPACE", "action": "jump" } ] }"#);
        s.feed(&key("KEY_SPACE", true));
        s.build(0.25);
        assert_eq!(flags(&s), [(1.0, PRESSED | REPEATED)], "the press frame repeats, as in Defold");
        s.build(0.25);
        assert_eq!(flags(&s), [(1.0, 0)]);
        s.build(0.25);
        assert_eq!(flags(&s), [(1.0, REPEATED)], "first repeat after 0.5 s");
        s.build(0.1);
        assert_eq!(flags(&s), [(1.0, 0)]);
        s.build(0.1);
        assert_eq!(flags(&s), [(1.0, REPEATED)], "then every 0.2 s");
        s.feed(&key("KEY_SPACE", false));
        s.build(0.1);
        assert_eq!(flags(&s), [(0.0, RELEASED)]);
        s.build(0.1);
        assert!(s.frame.is_empty());
    }

    #[test]
    fn tap_within_one_frame_is_pressed_and_released() {
        let mut s = state(r#"{ "key": [ { "input": "KEY_A", "action": "a" } ] }"#);
        s.feed(&key("KEY_A", true));
        s.feed(&key("KEY_A", false));
        s.build(0.1);
        assert_eq!(flags(&s), [(0.0, PRESSED | RELEASED | REPEATED)]);
    }

    #[test]
    fn shared_action_is_held_while_any_input_is() {
        let mut s = state(
            r#"{ "key": [ { "input": "KEY_A", "action": "left" }, { "input": "KEY_LEFT", "action": "left" } ] }"#,
        );
        s.feed(&key("KEY_A", true));
        s.build(0.1);
        s.feed(&key("KEY_LEFT", true));
        s.feed(&key("KEY_A", false));
        s.build(0.1);
        assert_eq!(flags(&s), [(1.0, 0)]);
    }

    #[test]
    fn mouse_coordinates_are_logical_bottom_left() {
        let mut s = state(r#"{ "mouse": [ { "input": "MOUSE_BUTTON_LEFT", "action": "touch" } ] }"#);
        s.set_window_size(480, 270);
        s.feed(&RawEvent::MouseMove { x: 120.0, y: 70.0 });
        s.build(0.1);
        let e = s.frame[0];
        assert_eq!(e.action, 0);
        assert_eq!((e.screen_x, e.screen_y), (120.0, 200.0));
        assert_eq!((e.x, e.y), (240.0, 400.0));
        assert_eq!((e.screen_dx, e.screen_dy), (120.0, -70.0));
        s.build(0.1);
        assert!(s.frame.is_empty(), "no movement, no action");
    }

    #[test]
    fn sticks_have_analog_values_and_a_dead_zone() {
        let mut s = state(r#"{ "gamepad": [ { "input": "GAMEPAD_LSTICK_LEFT", "action": "left" } ] }"#);
        let input = Input::from_name("GAMEPAD_LSTICK_LEFT").unwrap();
        s.feed(&RawEvent::GamepadAxis { gamepad: 1, input, value: 0.1 });
        s.build(0.1);
        assert!(s.frame.is_empty());
        s.feed(&RawEvent::GamepadAxis { gamepad: 1, input, value: 0.75 });
        s.build(0.1);
        assert_eq!(flags(&s), [(0.75, PRESSED | HAS_GAMEPAD)]);
        assert_eq!(s.frame[0].gamepad, 1);
    }

    #[test]
    fn text_wheel_and_connection() {
        let mut s = state(
            r#"{ "mouse": [ { "input": "MOUSE_WHEEL_UP", "action": "zoom" } ],
                 "gamepad": [ { "input": "GAMEPAD_CONNECTED", "action": "pad" } ],
                 "text": [ { "input": "TEXT", "action": "type" } ] }"#,
        );
        s.feed(&RawEvent::MouseWheel { steps: 2.0 });
        s.feed(&RawEvent::Text("h".into()));
        s.feed(&RawEvent::Text("é".into()));
        s.feed(&RawEvent::GamepadConnected { gamepad: 0, name: "Test Pad".into() });
        s.build(0.1);
        assert_eq!(s.frame.len(), 3);
        assert_eq!(s.frame[0].value, 2.0);
        assert_eq!(s.text_of(&s.frame[1]), "Test Pad");
        assert_eq!(s.text_of(&s.frame[2]), "hé");
        s.build(0.1);
        assert!(s.frame.is_empty());
    }
}
