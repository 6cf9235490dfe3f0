//! Replay files (input.md section 5): one JSON object per line, each a raw event stamped with
//! the frame it is delivered in. The whole file is checked before a run starts.
use super::raw::RawEvent;
use crate::project::input::{Device, Input};
use serde_json::{Map, Value};

/// A parsed replay: events in frame order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replay {
    pub events: Vec<(u64, RawEvent)>,
    next: usize,
}

impl Replay {
    /// The events of `frame` (call with increasing frames).
    pub fn take(&mut self, frame: u64) -> &[(u64, RawEvent)] {
        let start = self.next;
        while self.next < self.events.len() && self.events[self.next].0 <= frame {
            self.next += 1;
        }
        &self.events[start..self.next]
    }
}

/// Parses a replay file's text; errors are `FILE:LINE: message`.
pub fn parse(file: &str, text: &str) -> Result<Replay, String> {
    let mut events = Vec::new();
    let mut last = 0u64;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let err = |m: String| format!("{file}:{n}: {m}");
        let v: Value = serde_json::from_str(line).map_err(|e| err(format!("not a JSON object: {e}")))?;
        let Value::Object(o) = v else { return Err(err("not a JSON object".into())) };
        let (frame, e) = event(&o).map_err(err)?;
        if frame < last {
            return Err(err(format!("frame {frame} comes after frame {last}: lines must be in frame order")));
        }
        last = frame;
        events.push((frame, e));
    }
    Ok(Replay { events, next: 0 })
}

fn event(o: &Map<String, Value>) -> Result<(u64, RawEvent), String> {
    let frame = o.get("frame").and_then(Value::as_u64).ok_or("missing or bad \"frame\" (a whole number >= 0)")?;
    let kind = o.get("type").and_then(Value::as_str).ok_or("missing \"type\"")?;
    let allowed: &[&str] = match kind {
        "key" | "gamepad_button" => &["input", "down", "gamepad"],
        "mouse_move" => &["x", "y"],
        "mouse_button" => &["input", "down", "x", "y"],
        "mouse_wheel" => &["steps"],
        "text" | "marked_text" => &["text"],
        "gamepad_connected" => &["gamepad", "name"],
        "gamepad_disconnected" => &["gamepad"],
        "gamepad_axis" => &["gamepad", "input", "value"],
        "resize" => &["width", "height"],
        "window" => &["event"],
        "quit" => &[],
        other => return Err(format!("unknown event type '{other}'")),
    };
    if let Some(k) = o.keys().find(|k| !["frame", "type"].contains(&k.as_str()) && !allowed.contains(&k.as_str())) {
        return Err(format!("unknown field '{k}' in a '{kind}' event"));
    }
    let num = |k: &str| -> Result<f32, String> {
        o.get(k)
            .and_then(Value::as_f64)
            .map(|v| v as f32)
            .filter(|v| v.is_finite())
            .ok_or(format!("missing or bad \"{k}\" (a number)"))
    };
    let uint = |k: &str| -> Result<u32, String> {
        o.get(k)
            .and_then(Value::as_u64)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or(format!("missing or bad \"{k}\" (a whole number)"))
    };
    let down = || o.get("down").and_then(Value::as_bool).ok_or("missing or bad \"down\" (true or false)".to_string());
    let text = |k: &str| {
        o.get(k).and_then(Value::as_str).map(str::to_string).ok_or(format!("missing or bad \"{k}\" (a string)"))
    };
    let input = |device: Device| -> Result<Input, String> {
        let name = o.get("input").and_then(Value::as_str).ok_or("missing \"input\"")?;
        let i = Input::from_name(name).ok_or(format!("unknown input name '{name}'"))?;
        if i.device() != device {
            return Err(format!("'{name}' is not a {kind} input"));
        }
        Ok(i)
    };
    let e = match kind {
        "key" => RawEvent::Key { input: input(Device::Key)?, down: down()? },
        "mouse_move" => RawEvent::MouseMove { x: num("x")?, y: num("y")? },
        "mouse_button" => {
            RawEvent::MouseButton { input: input(Device::Mouse)?, down: down()?, x: num("x")?, y: num("y")? }
        }
        "mouse_wheel" => RawEvent::MouseWheel { steps: num("steps")? },
        "text" => RawEvent::Text(text("text")?),
        "marked_text" => RawEvent::MarkedText(text("text")?),
        "gamepad_connected" => RawEvent::GamepadConnected { gamepad: uint("gamepad")?, name: text("name")? },
        "gamepad_disconnected" => RawEvent::GamepadDisconnected { gamepad: uint("gamepad")? },
        "gamepad_axis" => {
            RawEvent::GamepadAxis { gamepad: uint("gamepad")?, input: input(Device::Gamepad)?, value: num("value")? }
        }
        "gamepad_button" => {
            RawEvent::GamepadButton { gamepad: uint("gamepad")?, input: input(Device::Gamepad)?, down: down()? }
        }
        "resize" => {
            // The drawing area follows the window: a size no window could have is refused here,
            // before a frame buffer of it is made.
            let side = |k: &str| {
                let v = uint(k)?;
                if (1..=crate::project::types::MAX_WINDOW_SIDE).contains(&v) {
                    Ok(v)
                } else {
                    Err(format!("\"{k}\" must be from 1 to {}", crate::project::types::MAX_WINDOW_SIDE))
                }
            };
            RawEvent::Resize { width: side("width")?, height: side("height")? }
        }
        "window" => {
            let name = text("event")?;
            match super::raw::WindowChange::ALL
                .iter()
                .find(|(c, n)| *n == name && *c != super::raw::WindowChange::Resized)
            {
                Some((c, _)) => RawEvent::Window(*c),
                None => {
                    return Err(format!(
                        "unknown window event {name:?} (focus_lost, focus_gained, iconified, deiconified; a resize is a \"resize\" event)"
                    ));
                }
            }
        }
        _ => RawEvent::Quit,
    };
    Ok((frame, e))
}

/// One line of a recording (without the newline), `frame` and `type` first as in the spec.
pub fn line(frame: u64, e: &RawEvent) -> String {
    let q = |t: &str| Value::String(t.to_string()).to_string();
    let head = |kind: &str| format!("{{\"frame\": {frame}, \"type\": \"{kind}\"");
    match e {
        RawEvent::Quit => format!("{}}}", head("quit")),
        RawEvent::Key { input, down } => {
            format!("{}, \"input\": \"{}\", \"down\": {down}}}", head("key"), input.name())
        }
        RawEvent::MouseMove { x, y } => format!("{}, \"x\": {x}, \"y\": {y}}}", head("mouse_move")),
        RawEvent::MouseButton { input, down, x, y } => format!(
            "{}, \"input\": \"{}\", \"down\": {down}, \"x\": {x}, \"y\": {y}}}",
            head("mouse_button"),
            input.name()
        ),
        RawEvent::MouseWheel { steps } => format!("{}, \"steps\": {steps}}}", head("mouse_wheel")),
        RawEvent::Text(t) => format!("{}, \"text\": {}}}", head("text"), q(t)),
        RawEvent::MarkedText(t) => format!("{}, \"text\": {}}}", head("marked_text"), q(t)),
        RawEvent::GamepadConnected { gamepad, name } => {
            format!("{}, \"gamepad\": {gamepad}, \"name\": {}}}", head("gamepad_connected"), q(name))
        }
        RawEvent::GamepadDisconnected { gamepad } => {
            format!("{}, \"gamepad\": {gamepad}}}", head("gamepad_disconnected"))
        }
        RawEvent::GamepadAxis { gamepad, input, value } => format!(
            "{}, \"gamepad\": {gamepad}, \"input\": \"{}\", \"value\": {value}}}",
            head("gamepad_axis"),
            input.name()
        ),
        RawEvent::GamepadButton { gamepad, input, down } => format!(
            "{}, \"gamepad\": {gamepad}, \"input\": \"{}\", \"down\": {down}}}",
            head("gamepad_button"),
            input.name()
        ),
        RawEvent::Resize { width, height } => format!("{}, \"width\": {width}, \"height\": {height}}}", head("resize")),
        RawEvent::Window(c) => format!("{}, \"event\": \"{}\"}}", head("window"), c.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"{"frame": 10, "type": "key", "input": "KEY_SPACE", "down": true}
{"frame": 14, "type": "key", "input": "KEY_SPACE", "down": false}
{"frame": 20, "type": "mouse_move", "x": 480, "y": 270}
{"frame": 21, "type": "mouse_button", "input": "MOUSE_BUTTON_LEFT", "down": true, "x": 480, "y": 270}
{"frame": 22, "type": "mouse_wheel", "steps": 1}
{"frame": 30, "type": "text", "text": "hé"}
{"frame": 40, "type": "gamepad_connected", "gamepad": 0, "name": "Test Pad"}
{"frame": 41, "type": "gamepad_axis", "gamepad": 0, "input": "GAMEPAD_LSTICK_LEFT", "value": 0.75}
{"frame": 42, "type": "gamepad_button", "gamepad": 0, "input": "GAMEPAD_RPAD_DOWN", "down": true}
{"frame": 50, "type": "resize", "width": 1280, "height": 720}
{"frame": 60, "type": "quit"}
"#;

    #[test]
    fn spec_example_round_trips() {
        let r = parse("r.jsonl", SPEC).unwrap();
        assert_eq!(r.events.len(), 11);
        let text: String = r.events.iter().map(|(f, e)| line(*f, e) + "\n").collect();
        assert_eq!(parse("again", &text).unwrap().events, r.events);
        // Whole numbers print as in the spec, so a recording reads like a hand-written file.
        assert_eq!(text.lines().next(), SPEC.lines().next());
        assert_eq!(text.lines().nth(5), SPEC.lines().nth(5));
    }

    #[test]
    fn take_hands_out_each_frame_once() {
        let mut r = parse("r", SPEC).unwrap();
        assert!(r.take(9).is_empty());
        assert_eq!(r.take(10).len(), 1);
        assert!(r.take(10).is_empty());
        assert_eq!(r.take(21).len(), 3);
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let bad = [
            (
                "{\"frame\": 1, \"type\": \"key\", \"input\": \"KEY_A\", \"down\": true}\n{\"frame\": 0, \"type\": \"quit\"}",
                "r:2: frame 0 comes after frame 1",
            ),
            ("{\"frame\": 1, \"type\": \"jump\"}", "r:1: unknown event type 'jump'"),
            (
                "\n{\"frame\": 1, \"type\": \"key\", \"input\": \"KEY_NOPE\", \"down\": true}",
                "r:2: unknown input name 'KEY_NOPE'",
            ),
            (
                "{\"frame\": 1, \"type\": \"key\", \"input\": \"MOUSE_BUTTON_LEFT\", \"down\": true}",
                "r:1: 'MOUSE_BUTTON_LEFT' is not a key input",
            ),
            ("{\"frame\": 1, \"type\": \"mouse_wheel\", \"steps\": 1, \"extra\": 2}", "r:1: unknown field 'extra'"),
            ("{\"frame\": -1, \"type\": \"quit\"}", "r:1: missing or bad \"frame\""),
            ("{\"frame\": 1, \"type\": \"quit\"", "r:1: not a JSON object"),
            ("[1]", "r:1: not a JSON object"),
            (
                "{\"frame\": 1, \"type\": \"resize\", \"width\": 100000, \"height\": 10}",
                "r:1: \"width\" must be from 1 to 16384",
            ),
            (
                "{\"frame\": 1, \"type\": \"resize\", \"width\": 10, \"height\": 0}",
                "r:1: \"height\" must be from 1 to 16384",
            ),
        ];
        for (text, want) in bad {
            let e = parse("r", text).unwrap_err();
            assert!(e.starts_with(want), "{e} (wanted {want})");
        }
    }
}
