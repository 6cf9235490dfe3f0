//! The raw input events of one frame, independent of SDL: the window layer translates SDL
//! events into these and a replay file is parsed into the same type, so both take one path.
use crate::project::input::Input;

/// Below this magnitude a stick or trigger reads 0 (README "Sinew decisions").
pub const DEAD_ZONE: f32 = 0.2;

#[derive(Debug, Clone, PartialEq)]
pub enum RawEvent {
    /// The window was closed (or a replay's `quit`).
    Quit,
    Key {
        input: Input,
        down: bool,
    },
    /// Physical window pixels, origin top-left.
    MouseMove {
        x: f32,
        y: f32,
    },
    MouseButton {
        input: Input,
        down: bool,
        x: f32,
        y: f32,
    },
    /// Positive: up (away from the user).
    MouseWheel {
        steps: f32,
    },
    Text(String),
    MarkedText(String),
    GamepadConnected {
        gamepad: u32,
        name: String,
    },
    GamepadDisconnected {
        gamepad: u32,
    },
    /// A stick direction or trigger with its value in 0..1 (one event per direction).
    GamepadAxis {
        gamepad: u32,
        input: Input,
        value: f32,
    },
    GamepadButton {
        gamepad: u32,
        input: Input,
        down: bool,
    },
    /// The window's new size in the same units as mouse coordinates.
    Resize {
        width: u32,
        height: u32,
    },
    /// Focus and minimising, for `window.set_listener` (a resize is [`RawEvent::Resize`]).
    Window(WindowChange),
}

/// What `window.set_listener`'s callback hears (Defold's `window.WINDOW_EVENT_*`; the Lua
/// constants are these values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowChange {
    FocusLost = 0,
    FocusGained = 1,
    Resized = 2,
    Iconified = 3,
    Deiconified = 4,
}

impl WindowChange {
    /// Names in replay files and Lua constants (`WINDOW_EVENT_` + upper case).
    pub const ALL: [(WindowChange, &'static str); 5] = [
        (WindowChange::FocusLost, "focus_lost"),
        (WindowChange::FocusGained, "focus_gained"),
        (WindowChange::Resized, "resized"),
        (WindowChange::Iconified, "iconified"),
        (WindowChange::Deiconified, "deiconified"),
    ];

    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(c, _)| *c == self).map_or("", |(_, n)| n)
    }
}
