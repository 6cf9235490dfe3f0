//! Defold's input names (`KEY_SPACE`, `MOUSE_BUTTON_LEFT`, `GAMEPAD_RPAD_DOWN`, `TEXT` …) as a
//! small index, so per-frame code compares integers, never strings.
use std::collections::HashMap;
use std::sync::OnceLock;

/// Which `.input_binding` list an input belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Device {
    Key,
    Mouse,
    Gamepad,
    Text,
}

/// One input, an index into [`Input::names`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Input(pub u16);

const FIXED_KEYS: &[&str] = &[
    "KEY_SPACE",
    "KEY_ENTER",
    "KEY_ESC",
    "KEY_TAB",
    "KEY_BACKSPACE",
    "KEY_UP",
    "KEY_DOWN",
    "KEY_LEFT",
    "KEY_RIGHT",
    "KEY_LSHIFT",
    "KEY_RSHIFT",
    "KEY_LCTRL",
    "KEY_RCTRL",
    "KEY_LALT",
    "KEY_RALT",
    "KEY_LSUPER",
    "KEY_RSUPER",
    "KEY_INSERT",
    "KEY_DEL",
    "KEY_HOME",
    "KEY_END",
    "KEY_PAGEUP",
    "KEY_PAGEDOWN",
    "KEY_MENU",
    "KEY_PAUSE",
    "KEY_CAPSLOCK",
    "KEY_SCROLLOCK",
    "KEY_NUMLOCK",
    "KEY_EXCLAIM",
    "KEY_QUOTEDBL",
    "KEY_HASH",
    "KEY_DOLLAR",
    "KEY_AMPERSAND",
    "KEY_QUOTE",
    "KEY_LPAREN",
    "KEY_RPAREN",
    "KEY_ASTERISK",
    "KEY_PLUS",
    "KEY_COMMA",
    "KEY_MINUS",
    "KEY_PERIOD",
    "KEY_SLASH",
    "KEY_COLON",
    "KEY_SEMICOLON",
    "KEY_LESS",
    "KEY_EQUALS",
    "KEY_GREATER",
    "KEY_QUESTION",
    "KEY_AT",
    "KEY_LBRACKET",
    "KEY_BACKSLASH",
    "KEY_RBRACKET",
    "KEY_CARET",
    "KEY_UNDERSCORE",
    "KEY_BACKQUOTE",
    "KEY_LBRACE",
    "KEY_PIPE",
    "KEY_RBRACE",
    "KEY_TILDE",
    "KEY_KP_DIVIDE",
    "KEY_KP_MULTIPLY",
    "KEY_KP_MINUS",
    "KEY_KP_PLUS",
    "KEY_KP_DECIMAL",
    "KEY_KP_EQUAL",
    "KEY_KP_ENTER",
    // Android's back button in Defold; never pressed on a desktop, but a binding may name it.
    "KEY_BACK",
];

const MOUSE: &[&str] = &[
    "MOUSE_BUTTON_LEFT",
    "MOUSE_BUTTON_MIDDLE",
    "MOUSE_BUTTON_RIGHT",
    "MOUSE_BUTTON_4",
    "MOUSE_BUTTON_5",
    "MOUSE_BUTTON_6",
    "MOUSE_BUTTON_7",
    "MOUSE_BUTTON_8",
    "MOUSE_WHEEL_UP",
    "MOUSE_WHEEL_DOWN",
];

const GAMEPAD: &[&str] = &[
    "GAMEPAD_LSTICK_LEFT",
    "GAMEPAD_LSTICK_RIGHT",
    "GAMEPAD_LSTICK_UP",
    "GAMEPAD_LSTICK_DOWN",
    "GAMEPAD_LSTICK_CLICK",
    "GAMEPAD_RSTICK_LEFT",
    "GAMEPAD_RSTICK_RIGHT",
    "GAMEPAD_RSTICK_UP",
    "GAMEPAD_RSTICK_DOWN",
    "GAMEPAD_RSTICK_CLICK",
    "GAMEPAD_LTRIGGER",
    "GAMEPAD_RTRIGGER",
    "GAMEPAD_LSHOULDER",
    "GAMEPAD_RSHOULDER",
    "GAMEPAD_LPAD_LEFT",
    "GAMEPAD_LPAD_RIGHT",
    "GAMEPAD_LPAD_UP",
    "GAMEPAD_LPAD_DOWN",
    "GAMEPAD_RPAD_LEFT",
    "GAMEPAD_RPAD_RIGHT",
    "GAMEPAD_RPAD_UP",
    "GAMEPAD_RPAD_DOWN",
    "GAMEPAD_START",
    "GAMEPAD_BACK",
    "GAMEPAD_GUIDE",
    "GAMEPAD_CONNECTED",
    "GAMEPAD_DISCONNECTED",
    // Defold's raw state of a gamepad its mappings do not know: taken, and never sent (SDL maps
    // every gamepad Sinew reads to the names above).
    "GAMEPAD_RAW",
];

const TEXT: &[&str] = &["TEXT", "MARKED_TEXT"];

struct Table {
    names: Vec<String>,
    by_name: HashMap<String, Input>,
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        let mut names: Vec<String> = Vec::new();
        names.extend((b'A'..=b'Z').map(|c| format!("KEY_{}", c as char)));
        names.extend((0..10).map(|d| format!("KEY_{d}")));
        names.extend((1..=12).map(|f| format!("KEY_F{f}")));
        names.extend((0..10).map(|d| format!("KEY_KP_{d}")));
        names.extend(FIXED_KEYS.iter().map(|s| s.to_string()));
        names.extend(MOUSE.iter().chain(GAMEPAD).chain(TEXT).map(|s| s.to_string()));
        let mut by_name: HashMap<String, Input> =
            names.iter().enumerate().map(|(i, n)| (n.clone(), Input(i as u16))).collect();
        // Defold's numbered names for the first three buttons are the same inputs.
        for (alias, name) in [("MOUSE_BUTTON_1", "LEFT"), ("MOUSE_BUTTON_2", "RIGHT"), ("MOUSE_BUTTON_3", "MIDDLE")] {
            if let Some(&i) = by_name.get(&format!("MOUSE_BUTTON_{name}")) {
                by_name.insert(alias.to_string(), i);
            }
        }
        // Defold's spellings of keys Sinew named after SDL's (input_ddf.proto's `Key` enum).
        for (alias, name) in [
            ("KEY_KP_SUBTRACT", "KEY_KP_MINUS"),
            ("KEY_KP_ADD", "KEY_KP_PLUS"),
            ("KEY_KP_NUM_LOCK", "KEY_NUMLOCK"),
            ("KEY_CAPS_LOCK", "KEY_CAPSLOCK"),
            ("KEY_SCROLL_LOCK", "KEY_SCROLLOCK"),
        ] {
            if let Some(&i) = by_name.get(name) {
                by_name.insert(alias.to_string(), i);
            }
        }
        Table { names, by_name }
    })
}

impl Input {
    pub fn from_name(name: &str) -> Option<Input> {
        table().by_name.get(name).copied()
    }

    /// Panics never: an index from [`Input::from_name`] is always in the table.
    pub fn name(self) -> &'static str {
        table().names.get(self.0 as usize).map_or("UNKNOWN", |s| s.as_str())
    }

    /// Every input name, in table order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        table().names.iter().map(|s| s.as_str())
    }

    pub fn count() -> usize {
        table().names.len()
    }

    pub fn device(self) -> Device {
        let n = self.name();
        if n.starts_with("KEY_") {
            Device::Key
        } else if n.starts_with("MOUSE_") {
            Device::Mouse
        } else if n.starts_with("GAMEPAD_") {
            Device::Gamepad
        } else {
            Device::Text
        }
    }

    /// Stick directions and triggers: their value is analog (0..1), not 0 or 1.
    pub fn is_analog(self) -> bool {
        let n = self.name();
        n.starts_with("GAMEPAD_") && (n.ends_with("TRIGGER") || (n.contains("STICK_") && !n.ends_with("CLICK")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_devices() {
        for n in Input::names() {
            let i = Input::from_name(n).unwrap();
            assert_eq!(i.name(), n);
        }
        assert_eq!(Input::from_name("KEY_SPACE").unwrap().device(), Device::Key);
        assert_eq!(Input::from_name("MOUSE_WHEEL_UP").unwrap().device(), Device::Mouse);
        assert_eq!(Input::from_name("GAMEPAD_RPAD_DOWN").unwrap().device(), Device::Gamepad);
        assert_eq!(Input::from_name("MARKED_TEXT").unwrap().device(), Device::Text);
        assert!(Input::from_name("GAMEPAD_LSTICK_LEFT").unwrap().is_analog());
        assert!(!Input::from_name("GAMEPAD_LSTICK_CLICK").unwrap().is_analog());
        assert!(Input::from_name("KEY_SPACEBAR").is_none());
        assert_eq!(Input::from_name("MOUSE_BUTTON_1"), Input::from_name("MOUSE_BUTTON_LEFT"));
        assert!(Input::from_name("KEY_F12").is_some() && Input::from_name("KEY_Z").is_some());
    }

    /// Every name of Defold's `Key` enum (input_ddf.proto) is known.
    #[test]
    fn defolds_key_names() {
        for n in ["KEY_KP_SUBTRACT", "KEY_KP_ADD", "KEY_KP_NUM_LOCK", "KEY_CAPS_LOCK", "KEY_SCROLL_LOCK", "KEY_BACK"] {
            assert_eq!(Input::from_name(n).map(|i| i.device()), Some(Device::Key), "{n}");
        }
        assert_eq!(Input::from_name("KEY_CAPS_LOCK"), Input::from_name("KEY_CAPSLOCK"));
    }
}
