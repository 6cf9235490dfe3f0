//! SDL's window, keyboard, mouse, text and game-controller events → [`RawEvent`]s. The only
//! place input touches SDL; everything after this is the same for a live window and a replay.
//! Gamepads go through SDL's game-controller layer (its mapping database), so `GAMEPAD_RPAD_DOWN`
//! is the bottom face button on every pad SDL knows.
use crate::game::input::RawEvent;
use crate::game::input::raw::WindowChange;
use crate::project::input::Input;
use sdl2::controller::{Axis, Button, GameController};
use sdl2::event::{Event, WindowEvent};
use sdl2::keyboard::Keycode;
use sdl2::mouse::{MouseButton, MouseWheelDirection};

/// Open game controllers; a pad's gamepad index is its place in `pads`.
pub struct SdlInput {
    controllers: Option<sdl2::GameControllerSubsystem>,
    pads: Vec<Option<GameController>>,
    /// Relative mouse mode: SDL holds the cursor still, so positions are summed from the
    /// motion's `xrel`/`yrel` from where the lock began (`action.dx`/`dy` keep coming).
    locked: Option<(f32, f32)>,
    last: (f32, f32),
}

impl SdlInput {
    /// `sdl` is `None` when no controllers should be opened (headless).
    pub fn new(sdl: Option<&sdl2::Sdl>) -> SdlInput {
        let controllers = sdl.and_then(|s| match s.game_controller() {
            Ok(c) => Some(c),
            Err(e) => {
                log::warn!("no gamepads: SDL's game-controller layer did not start ({e})");
                None
            }
        });
        SdlInput { controllers, pads: Vec::new(), locked: None, last: (0.0, 0.0) }
    }

    fn pad_index(&self, instance: u32) -> Option<u32> {
        self.pads.iter().position(|p| p.as_ref().is_some_and(|c| c.instance_id() == instance)).map(|i| i as u32)
    }

    /// Translates one SDL event, appending zero or more raw events.
    pub fn mouse_locked(&self) -> bool {
        self.locked.is_some()
    }

    pub fn set_mouse_locked(&mut self, on: bool) {
        self.locked = on.then_some(self.last);
    }

    pub fn translate(&mut self, event: Event, out: &mut Vec<RawEvent>) {
        if let Event::MouseMotion { x, y, xrel, yrel, .. } = event {
            let p = match &mut self.locked {
                Some(at) => {
                    *at = (at.0 + xrel as f32, at.1 + yrel as f32);
                    *at
                }
                None => (x as f32, y as f32),
            };
            self.last = p;
            out.push(RawEvent::MouseMove { x: p.0, y: p.1 });
            return;
        }
        match event {
            Event::ControllerDeviceAdded { which, .. } => self.connect(which, out),
            Event::ControllerDeviceRemoved { which, .. } => {
                if let Some(g) = self.pad_index(which) {
                    self.pads[g as usize] = None;
                    out.push(RawEvent::GamepadDisconnected { gamepad: g });
                }
            }
            Event::ControllerAxisMotion { which, axis, value, .. } => {
                if let Some(g) = self.pad_index(which) {
                    axis_events(g, axis, value, out);
                }
            }
            Event::ControllerButtonDown { which, button, .. } | Event::ControllerButtonUp { which, button, .. } => {
                let down = matches!(event, Event::ControllerButtonDown { .. });
                if let (Some(g), Some(input)) = (self.pad_index(which), button_input(button)) {
                    out.push(RawEvent::GamepadButton { gamepad: g, input, down });
                }
            }
            other => {
                if let Some(e) = translate_plain(other) {
                    out.push(e);
                }
            }
        }
    }

    fn connect(&mut self, device_index: u32, out: &mut Vec<RawEvent>) {
        let Some(sub) = &self.controllers else { return };
        match sub.open(device_index) {
            Ok(c) => {
                if self.pad_index(c.instance_id()).is_some() {
                    return;
                }
                let name = c.name();
                let g = match self.pads.iter().position(Option::is_none) {
                    Some(free) => {
                        self.pads[free] = Some(c);
                        free
                    }
                    None => {
                        self.pads.push(Some(c));
                        self.pads.len() - 1
                    }
                };
                out.push(RawEvent::GamepadConnected { gamepad: g as u32, name });
            }
            Err(e) => log::warn!("cannot open gamepad {device_index}: {e}"),
        }
    }
}

/// Events that need no controller state.
fn translate_plain(event: Event) -> Option<RawEvent> {
    Some(match event {
        Event::Quit { .. } => RawEvent::Quit,
        Event::MouseMotion { x, y, .. } => RawEvent::MouseMove { x: x as f32, y: y as f32 },
        // Auto-repeats are dropped: the input layer repeats on its own clock (input_repeat).
        Event::KeyDown { keycode: Some(key), repeat: false, .. } => {
            RawEvent::Key { input: key_input(key)?, down: true }
        }
        Event::KeyUp { keycode: Some(key), .. } => RawEvent::Key { input: key_input(key)?, down: false },
        Event::MouseButtonDown { mouse_btn, x, y, .. } => {
            RawEvent::MouseButton { input: mouse_input(mouse_btn)?, down: true, x: x as f32, y: y as f32 }
        }
        Event::MouseButtonUp { mouse_btn, x, y, .. } => {
            RawEvent::MouseButton { input: mouse_input(mouse_btn)?, down: false, x: x as f32, y: y as f32 }
        }
        Event::MouseWheel { y, direction, .. } if y != 0 => {
            let flip = if direction == MouseWheelDirection::Flipped { -1.0 } else { 1.0 };
            RawEvent::MouseWheel { steps: y as f32 * flip }
        }
        Event::TextInput { text, .. } => RawEvent::Text(text),
        Event::TextEditing { text, .. } => RawEvent::MarkedText(text),
        Event::Window { win_event: WindowEvent::FocusGained, .. } => RawEvent::Window(WindowChange::FocusGained),
        Event::Window { win_event: WindowEvent::FocusLost, .. } => RawEvent::Window(WindowChange::FocusLost),
        Event::Window { win_event: WindowEvent::Minimized, .. } => RawEvent::Window(WindowChange::Iconified),
        Event::Window { win_event: WindowEvent::Restored, .. } => RawEvent::Window(WindowChange::Deiconified),
        Event::Window { win_event: WindowEvent::SizeChanged(w, h), .. } => {
            RawEvent::Resize { width: w.max(1) as u32, height: h.max(1) as u32 }
        }
        _ => return None,
    })
}

fn named(name: &str) -> Option<Input> {
    Input::from_name(name)
}

/// SDL key → Defold key name.
fn key_input(key: Keycode) -> Option<Input> {
    let sdl = key.name();
    if sdl.len() == 1 {
        let c = sdl.chars().next()?;
        if c.is_ascii_alphanumeric() {
            return named(&format!("KEY_{}", c.to_ascii_uppercase()));
        }
    }
    if let Some(n) = sdl.strip_prefix('F').filter(|n| n.parse::<u8>().is_ok()) {
        return named(&format!("KEY_F{n}"));
    }
    let name = match sdl.as_str() {
        "Space" => "KEY_SPACE",
        "Return" => "KEY_ENTER",
        "Escape" => "KEY_ESC",
        "Tab" => "KEY_TAB",
        "Backspace" => "KEY_BACKSPACE",
        "Up" => "KEY_UP",
        "Down" => "KEY_DOWN",
        "Left" => "KEY_LEFT",
        "Right" => "KEY_RIGHT",
        "Left Shift" => "KEY_LSHIFT",
        "Right Shift" => "KEY_RSHIFT",
        "Left Ctrl" => "KEY_LCTRL",
        "Right Ctrl" => "KEY_RCTRL",
        "Left Alt" => "KEY_LALT",
        "Right Alt" => "KEY_RALT",
        "Left GUI" => "KEY_LSUPER",
        "Right GUI" => "KEY_RSUPER",
        "Insert" => "KEY_INSERT",
        "Delete" => "KEY_DEL",
        "Home" => "KEY_HOME",
        "End" => "KEY_END",
        "PageUp" => "KEY_PAGEUP",
        "PageDown" => "KEY_PAGEDOWN",
        "Menu" => "KEY_MENU",
        "Pause" => "KEY_PAUSE",
        "CapsLock" => "KEY_CAPSLOCK",
        "ScrollLock" => "KEY_SCROLLOCK",
        "Numlock" => "KEY_NUMLOCK",
        "," => "KEY_COMMA",
        "-" => "KEY_MINUS",
        "." => "KEY_PERIOD",
        "/" => "KEY_SLASH",
        ";" => "KEY_SEMICOLON",
        "=" => "KEY_EQUALS",
        "[" => "KEY_LBRACKET",
        "\\" => "KEY_BACKSLASH",
        "]" => "KEY_RBRACKET",
        "`" => "KEY_BACKQUOTE",
        "'" => "KEY_QUOTE",
        "Keypad Enter" => "KEY_KP_ENTER",
        "Keypad /" => "KEY_KP_DIVIDE",
        "Keypad *" => "KEY_KP_MULTIPLY",
        "Keypad -" => "KEY_KP_MINUS",
        "Keypad +" => "KEY_KP_PLUS",
        "Keypad ." => "KEY_KP_DECIMAL",
        "Keypad =" => "KEY_KP_EQUAL",
        other => return other.strip_prefix("Keypad ").and_then(|d| named(&format!("KEY_KP_{d}"))),
    };
    named(name)
}

fn mouse_input(b: MouseButton) -> Option<Input> {
    named(match b {
        MouseButton::Left => "MOUSE_BUTTON_LEFT",
        MouseButton::Middle => "MOUSE_BUTTON_MIDDLE",
        MouseButton::Right => "MOUSE_BUTTON_RIGHT",
        MouseButton::X1 => "MOUSE_BUTTON_4",
        MouseButton::X2 => "MOUSE_BUTTON_5",
        MouseButton::Unknown => return None,
    })
}

fn button_input(b: Button) -> Option<Input> {
    named(match b {
        Button::A => "GAMEPAD_RPAD_DOWN",
        Button::B => "GAMEPAD_RPAD_RIGHT",
        Button::X => "GAMEPAD_RPAD_LEFT",
        Button::Y => "GAMEPAD_RPAD_UP",
        Button::Back => "GAMEPAD_BACK",
        Button::Guide => "GAMEPAD_GUIDE",
        Button::Start => "GAMEPAD_START",
        Button::LeftStick => "GAMEPAD_LSTICK_CLICK",
        Button::RightStick => "GAMEPAD_RSTICK_CLICK",
        Button::LeftShoulder => "GAMEPAD_LSHOULDER",
        Button::RightShoulder => "GAMEPAD_RSHOULDER",
        Button::DPadUp => "GAMEPAD_LPAD_UP",
        Button::DPadDown => "GAMEPAD_LPAD_DOWN",
        Button::DPadLeft => "GAMEPAD_LPAD_LEFT",
        Button::DPadRight => "GAMEPAD_LPAD_RIGHT",
        _ => return None,
    })
}

/// One SDL axis → one event per direction (a stick's x gives LEFT and RIGHT), values 0..1.
fn axis_events(gamepad: u32, axis: Axis, value: i16, out: &mut Vec<RawEvent>) {
    let v = (value as f32 / 32767.0).clamp(-1.0, 1.0);
    let pair = |neg: &str, pos: &str, out: &mut Vec<RawEvent>| {
        for (name, val) in [(neg, (-v).max(0.0)), (pos, v.max(0.0))] {
            if let Some(input) = named(name) {
                out.push(RawEvent::GamepadAxis { gamepad, input, value: val });
            }
        }
    };
    match axis {
        Axis::LeftX => pair("GAMEPAD_LSTICK_LEFT", "GAMEPAD_LSTICK_RIGHT", out),
        // SDL's y axes point down.
        Axis::LeftY => pair("GAMEPAD_LSTICK_UP", "GAMEPAD_LSTICK_DOWN", out),
        Axis::RightX => pair("GAMEPAD_RSTICK_LEFT", "GAMEPAD_RSTICK_RIGHT", out),
        Axis::RightY => pair("GAMEPAD_RSTICK_UP", "GAMEPAD_RSTICK_DOWN", out),
        Axis::TriggerLeft | Axis::TriggerRight => {
            let name = if axis == Axis::TriggerLeft { "GAMEPAD_LTRIGGER" } else { "GAMEPAD_RTRIGGER" };
            if let Some(input) = named(name) {
                out.push(RawEvent::GamepadAxis { gamepad, input, value: v.max(0.0) });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdl2::keyboard::Mod;
    use sdl2::mouse::MouseState;

    fn key_down(keycode: Keycode, repeat: bool) -> Event {
        Event::KeyDown {
            timestamp: 0,
            window_id: 1,
            keycode: Some(keycode),
            scancode: None,
            keymod: Mod::empty(),
            repeat,
        }
    }
    fn input(n: &str) -> Input {
        Input::from_name(n).unwrap()
    }
    fn one(e: Event) -> Vec<RawEvent> {
        let mut s = SdlInput::new(None);
        let mut out = Vec::new();
        s.translate(e, &mut out);
        out
    }

    #[test]
    fn events_are_translated() {
        assert_eq!(one(Event::Quit { timestamp: 0 }), [RawEvent::Quit]);
        assert_eq!(one(key_down(Keycode::Space, false)), [RawEvent::Key { input: input("KEY_SPACE"), down: true }]);
        assert_eq!(one(key_down(Keycode::Space, true)), []);
        assert_eq!(one(key_down(Keycode::W, false)), [RawEvent::Key { input: input("KEY_W"), down: true }]);
        assert_eq!(one(key_down(Keycode::Num7, false)), [RawEvent::Key { input: input("KEY_7"), down: true }]);
        assert_eq!(one(key_down(Keycode::F11, false)), [RawEvent::Key { input: input("KEY_F11"), down: true }]);
        assert_eq!(one(key_down(Keycode::LShift, false)), [RawEvent::Key { input: input("KEY_LSHIFT"), down: true }]);
        let motion = Event::MouseMotion {
            timestamp: 0,
            window_id: 1,
            which: 0,
            mousestate: MouseState::from_sdl_state(0),
            x: 10,
            y: 20,
            xrel: 1,
            yrel: 1,
        };
        assert_eq!(one(motion), [RawEvent::MouseMove { x: 10.0, y: 20.0 }]);
        let up = Event::MouseButtonUp {
            timestamp: 0,
            window_id: 1,
            which: 0,
            mouse_btn: MouseButton::Right,
            clicks: 1,
            x: 3,
            y: 4,
        };
        assert_eq!(
            one(up),
            [RawEvent::MouseButton { input: input("MOUSE_BUTTON_RIGHT"), down: false, x: 3.0, y: 4.0 }]
        );
        let text = Event::TextInput { timestamp: 0, window_id: 1, text: "é".into() };
        assert_eq!(one(text), [RawEvent::Text("é".into())]);
    }

    /// Under a mouse lock SDL holds the cursor still: positions go on from where the lock began,
    /// summed from the relative motion, so `action.dx`/`dy` keep coming.
    #[test]
    fn a_locked_mouse_moves_by_its_relative_motion() {
        let motion = |x, y, xrel, yrel| Event::MouseMotion {
            timestamp: 0,
            window_id: 1,
            which: 0,
            mousestate: MouseState::from_sdl_state(0),
            x,
            y,
            xrel,
            yrel,
        };
        let mut s = SdlInput::new(None);
        let mut out = Vec::new();
        s.translate(motion(10, 20, 0, 0), &mut out);
        s.set_mouse_locked(true);
        s.translate(motion(50, 50, 5, -3), &mut out);
        s.translate(motion(50, 50, 5, -3), &mut out);
        s.set_mouse_locked(false);
        s.translate(motion(7, 8, 0, 0), &mut out);
        let at: Vec<(f32, f32)> = out
            .iter()
            .filter_map(|e| if let RawEvent::MouseMove { x, y } = e { Some((*x, *y)) } else { None })
            .collect();
        assert_eq!(at, [(10.0, 20.0), (15.0, 17.0), (20.0, 14.0), (7.0, 8.0)]);
    }

    #[test]
    fn stick_axes_split_into_directions() {
        let mut out = Vec::new();
        axis_events(0, Axis::LeftX, -32767, &mut out);
        assert_eq!(
            out,
            [
                RawEvent::GamepadAxis { gamepad: 0, input: input("GAMEPAD_LSTICK_LEFT"), value: 1.0 },
                RawEvent::GamepadAxis { gamepad: 0, input: input("GAMEPAD_LSTICK_RIGHT"), value: 0.0 },
            ]
        );
        assert_eq!(button_input(Button::A), Some(input("GAMEPAD_RPAD_DOWN")));
    }
}
