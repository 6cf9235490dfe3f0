//! `.input_binding` files (input.md section 1): which inputs trigger which actions.
use super::names::{Device, Input};
use crate::base::error::LoadError;
use crate::base::hash::{Hash, hash_remembered};
use crate::project::Resources;
use crate::project::json::{self, Located};
use serde::Deserialize;

/// The binding used when `project.json` names none (Defold's default: each key to its
/// lower-case name, the left mouse button to `touch`).
pub const DEFAULT_BINDING: &str = "/builtins/input/default.input_binding";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BindingFile {
    #[serde(default)]
    key: Vec<Located<TriggerFile>>,
    #[serde(default)]
    mouse: Vec<Located<TriggerFile>>,
    #[serde(default)]
    gamepad: Vec<Located<TriggerFile>>,
    #[serde(default)]
    text: Vec<Located<TriggerFile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TriggerFile {
    input: Located<String>,
    action: Located<String>,
}

/// One trigger: an input feeding an action.
#[derive(Debug, Clone, PartialEq)]
pub struct BindingRow {
    pub input: Input,
    pub action: Hash,
    pub action_name: String,
}

/// A parsed binding file: its rows in file order (key, mouse, gamepad, text).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Binding {
    pub path: String,
    pub rows: Vec<BindingRow>,
}

/// Reads and parses a binding resource.
pub fn load_binding(res: &Resources, path: &str, referrer: &str) -> Result<Binding, LoadError> {
    let text = res.read_string(path, Some(referrer))?;
    parse_binding(path, &text)
}

/// Parses the text of a binding file strictly: unknown fields, unknown input names, an input
/// in the wrong list and a repeated trigger are errors with line and column.
pub fn parse_binding(path: &str, text: &str) -> Result<Binding, LoadError> {
    let file: BindingFile = json::parse(path, text)?;
    let mut rows: Vec<BindingRow> = Vec::new();
    let lists = [(Device::Key, "key", &file.key), (Device::Mouse, "mouse", &file.mouse)];
    let more = [(Device::Gamepad, "gamepad", &file.gamepad), (Device::Text, "text", &file.text)];
    for (device, list, triggers) in lists.into_iter().chain(more) {
        for t in triggers {
            let name = &t.value.input;
            let Some(input) = Input::from_name(&name.value) else {
                return Err(name.error(path, format!("unknown input name '{}' in \"{list}\"", name.value)));
            };
            if input.device() != device {
                return Err(name.error(path, format!("'{}' does not belong in the \"{list}\" list", name.value)));
            }
            let action = &t.value.action;
            if action.value.is_empty() {
                return Err(action.error(path, "action name must not be empty"));
            }
            let hash = hash_remembered(&action.value);
            if rows.iter().any(|r| r.input == input && r.action == hash) {
                return Err(t.error(
                    path,
                    format!("duplicate trigger: '{}' is already bound to '{}'", name.value, action.value),
                ));
            }
            rows.push(BindingRow { input, action: hash, action_name: action.value.clone() });
        }
    }
    Ok(Binding { path: path.to_string(), rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_example_parses() {
        let text = r#"{
          "key":     [ { "input": "KEY_SPACE", "action": "jump" }, { "input": "KEY_LEFT", "action": "left" } ],
          "mouse":   [ { "input": "MOUSE_BUTTON_LEFT", "action": "touch" }, { "input": "MOUSE_WHEEL_UP", "action": "zoom_in" } ],
          "gamepad": [ { "input": "GAMEPAD_LSTICK_LEFT", "action": "left" }, { "input": "GAMEPAD_RPAD_DOWN", "action": "jump" } ],
          "text":    [ { "input": "TEXT", "action": "type" }, { "input": "MARKED_TEXT", "action": "marked" } ]
        }"#;
        let b = parse_binding("/input/game.input_binding", text).unwrap();
        assert_eq!(b.rows.len(), 8);
        assert_eq!(b.rows[0].input.name(), "KEY_SPACE");
        assert_eq!(b.rows[0].action_name, "jump");
        assert_eq!(b.rows[5].action, b.rows[0].action);
    }

    #[test]
    fn bad_bindings_point_at_the_problem() {
        let p = "/b.input_binding";
        let e = parse_binding(p, "{\n \"key\": [ { \"input\": \"KEY_SPACEBAR\", \"action\": \"j\" } ] }").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(22)), "{e}");
        assert!(e.message.contains("unknown input name 'KEY_SPACEBAR'"), "{e}");
        let e = parse_binding(p, "{ \"key\": [ { \"input\": \"KEY_A\", \"action\": \"a\", \"x\": 1 } ] }").unwrap_err();
        assert!(e.message.contains("unknown field `x`") && e.line.is_some(), "{e}");
        let e = parse_binding(p, "{ \"keys\": [] }").unwrap_err();
        assert!(e.message.contains("unknown field `keys`"), "{e}");
        let dup = "{ \"key\": [ { \"input\": \"KEY_A\", \"action\": \"a\" },\n { \"input\": \"KEY_A\", \"action\": \"a\" } ] }";
        let e = parse_binding(p, dup).unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        assert!(e.message.contains("duplicate trigger"), "{e}");
        let e = parse_binding(p, "{ \"mouse\": [ { \"input\": \"KEY_A\", \"action\": \"a\" } ] }").unwrap_err();
        assert!(e.message.contains("does not belong"), "{e}");
        let e = parse_binding(p, "{ \"key\": [ { \"input\": \"KEY_A\" } ] }").unwrap_err();
        assert!(e.message.contains("missing field `action`") && e.line.is_some(), "{e}");
        let e = parse_binding(p, "{ \"key\": [ ").unwrap_err();
        assert!(e.line.is_some(), "{e}");
    }

    #[test]
    fn shared_actions_and_several_actions_per_input() {
        let text = r#"{ "key": [ { "input": "KEY_A", "action": "left" }, { "input": "KEY_LEFT", "action": "left" },
                                { "input": "KEY_A", "action": "strafe" } ] }"#;
        assert_eq!(parse_binding("/b", text).unwrap().rows.len(), 3);
    }

    #[test]
    fn default_binding_parses() {
        let res = Resources::demo();
        let b = load_binding(&res, DEFAULT_BINDING, "/project.json").unwrap();
        let find = |n: &str| b.rows.iter().find(|r| r.input.name() == n).map(|r| r.action_name.clone());
        assert_eq!(find("KEY_SPACE").as_deref(), Some("key_space"));
        assert_eq!(find("MOUSE_BUTTON_LEFT").as_deref(), Some("touch"));
    }
}
