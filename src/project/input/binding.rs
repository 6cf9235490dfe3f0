//! `.input_binding` files (input.md section 1): which inputs trigger which actions.
use super::names::{Device, Input};
use crate::base::error::LoadError;
use crate::base::hash::{Hash, hash_remembered};
use crate::project::Resources;
use crate::project::json::{self, Located};
use serde::Deserialize;

/// The binding used when `project.json` names none: Defold's `all.input_binding` (each key,
/// mouse button and text input to its lower-case name, the left mouse button to `touch` too).
pub const DEFAULT_BINDING: &str = "/builtins/input/all.input_binding";

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

/// The triggers of each list of a binding file: device, the list's name, the triggers.
pub type TriggerLists = Vec<(Device, &'static str, Vec<Trigger>)>;

/// One trigger as written, in either format: an input name and the action it feeds.
pub struct Trigger {
    pub input: Located<String>,
    pub action: Located<String>,
    /// The whole trigger (a repeated one is reported there).
    pub at: Option<crate::project::json::Pos>,
}

/// Parses the text of a binding file strictly: unknown fields, unknown input names, an input
/// in the wrong list and a repeated trigger are errors with line and column. Defold's
/// protobuf text form (`key_trigger { input: KEY_SPACE action: "jump" }`) is read too.
pub fn parse_binding(path: &str, text: &str) -> Result<Binding, LoadError> {
    // An empty file is Defold's binding without triggers (its editor saves one so): no actions.
    let lists = if crate::project::defold::is_empty_text(text) {
        Vec::new()
    } else if crate::project::defold::is_protobuf_text(text) {
        crate::project::defold::input::triggers(path, text)?
    } else {
        let file: BindingFile = json::parse(path, text)?;
        let lists = [(Device::Key, "key", file.key), (Device::Mouse, "mouse", file.mouse)];
        let more = [(Device::Gamepad, "gamepad", file.gamepad), (Device::Text, "text", file.text)];
        let triggers = |list: Vec<Located<TriggerFile>>| {
            list.into_iter().map(|t| Trigger { input: t.value.input, action: t.value.action, at: t.at }).collect()
        };
        lists.into_iter().chain(more).map(|(d, name, list)| (d, name, triggers(list))).collect()
    };
    let mut rows: Vec<BindingRow> = Vec::new();
    for (device, list, triggers) in lists {
        for t in triggers {
            let name = &t.input;
            let Some(input) = Input::from_name(&name.value) else {
                return Err(name.error(path, format!("unknown input name '{}' in \"{list}\"", name.value)));
            };
            if input.device() != device {
                return Err(name.error(path, format!("'{}' does not belong in the \"{list}\" list", name.value)));
            }
            // An empty action name is taken, as Defold's editor saves a new trigger and its
            // engine sends it (as `hash("")`; OscarLeif/FlappyBird-Defold ships two).
            let action = &t.action;
            let hash = hash_remembered(&action.value);
            // The same input bound to the same action again (MOUSE_BUTTON_1 and
            // MOUSE_BUTTON_LEFT are one button) is taken, as Defold's editor and engine take it:
            // the action fires as it does for one trigger.
            if rows.iter().any(|r| r.input == input && r.action == hash) {
                continue;
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

    /// Defold's editor saves a binding without triggers as an empty file (britzl's loadtexture
    /// example ships one): no actions, where Sinew once read it as broken JSON.
    #[test]
    fn an_empty_binding_file_has_no_actions() {
        for text in ["", "\n  \n", "\u{feff}"] {
            let b = parse_binding("/input/game.input_binding", text).expect("an empty binding");
            assert!(b.rows.is_empty(), "{text:?}");
        }
        assert!(parse_binding("/input/game.input_binding", "{").is_err(), "a broken file is still refused");
    }

    /// A shipped Defold game (gerrykwok/gwjtest_defold) binds MOUSE_BUTTON_1 and
    /// MOUSE_BUTTON_LEFT, one button, to `touch`; Defold takes it, and so does Sinew: one row.
    #[test]
    fn a_trigger_bound_twice_to_one_action_counts_once() {
        let p = "/b.input_binding";
        let dup = "{ \"key\": [ { \"input\": \"KEY_A\", \"action\": \"a\" },\n { \"input\": \"KEY_A\", \"action\": \"a\" } ] }";
        let b = parse_binding(p, dup).expect("taken");
        assert_eq!(b.rows.len(), 1);
        let defold = "mouse_trigger {\n  input: MOUSE_BUTTON_1\n  action: \"touch\"\n}\n\
            mouse_trigger {\n  input: MOUSE_BUTTON_LEFT\n  action: \"touch\"\n}\n\
            mouse_trigger {\n  input: MOUSE_BUTTON_LEFT\n  action: \"click\"\n}\n";
        let b = parse_binding(p, defold).expect("taken");
        let rows: Vec<(&str, &str)> = b.rows.iter().map(|r| (r.input.name(), r.action_name.as_str())).collect();
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(rows[0].1, "touch");
        assert_eq!(rows[1].1, "click", "another action on the same button is a row of its own");
        // Defold's GAMEPAD_RAW (OscarLeif/FlappyBird-Defold binds it) is taken; it never fires.
        let raw = "gamepad_trigger {\n  input: GAMEPAD_RAW\n  action: \"raw\"\n}\n";
        assert_eq!(parse_binding(p, raw).expect("taken").rows.len(), 1);
        // A trigger whose action Defold's editor left empty: taken, as `hash("")`.
        let empty = "gamepad_trigger {\n  input: GAMEPAD_RPAD_UP\n  action: \"\"\n}\n";
        let b = parse_binding(p, empty).expect("taken");
        assert_eq!((b.rows.len(), b.rows[0].action), (1, crate::base::hash::hash_str("")));
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
        assert_eq!(find("MOUSE_BUTTON_LEFT").as_deref(), Some("mouse_button_left"));
        let left: Vec<_> = b.rows.iter().filter(|r| r.input.name() == "MOUSE_BUTTON_LEFT").collect();
        assert_eq!(left.iter().map(|r| r.action_name.as_str()).collect::<Vec<_>>(), ["mouse_button_left", "touch"]);
        for n in ["KEY_KP_SUBTRACT", "KEY_KP_ADD", "KEY_KP_NUM_LOCK", "KEY_CAPS_LOCK", "KEY_SCROLL_LOCK", "KEY_BACK"] {
            let action = format!("key_{}", n[4..].to_ascii_lowercase());
            assert!(b.rows.iter().any(|r| r.action_name == action), "{n}");
        }
        // The older JSON default gives both actions for the left button too.
        let old = load_binding(&res, "/builtins/input/default.input_binding", "/project.json").unwrap();
        assert_eq!(old.rows.iter().filter(|r| r.input.name() == "MOUSE_BUTTON_LEFT").count(), 2);
    }

    #[test]
    fn defold_text_bindings() {
        let text = "key_trigger {\n  input: KEY_SPACE\n  action: \"jump\"\n}\nmouse_trigger {\n  input: MOUSE_BUTTON_LEFT\n  action: \"touch\"\n}\ntouch_trigger {\n  input: TOUCH_MULTI\n  action: \"touch_multi\"\n}\n";
        let b = parse_binding("/input/game.input_binding", text).unwrap();
        let rows: Vec<_> = b.rows.iter().map(|r| (r.input.name(), r.action_name.as_str())).collect();
        assert_eq!(rows, [("KEY_SPACE", "jump"), ("MOUSE_BUTTON_LEFT", "touch")]);
        let e = parse_binding("/b.input_binding", "key_trigger {\n  input: KEY_SPACEBAR\n  action: \"j\"\n}\n")
            .unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(10)), "{e}");
        assert!(e.message.contains("unknown input name 'KEY_SPACEBAR'"), "{e}");
        let e = parse_binding("/b.input_binding", "key_trigger {\n  input: KEY_A\n  acton: \"j\"\n}\n").unwrap_err();
        assert!(e.to_string().contains("/b.input_binding:3:3: unknown field `acton`"), "{e}");
    }
}
