//! `.input_binding` (InputBinding of input_ddf.proto) into the trigger lists Sinew's binding
//! loader checks. Touch triggers are read and left out: a desktop has no multi-touch device.
use super::read::{Problems, Reader, message};
use super::text;
use crate::base::error::LoadError;
use crate::project::input::binding::{Trigger, TriggerLists};
use crate::project::input::names::Device;
use crate::project::json::Located;

const BINDING: &[&str] = &["key_trigger", "mouse_trigger", "gamepad_trigger", "touch_trigger", "text_trigger"];
const TRIGGER: &[&str] = &["input", "action"];

/// The triggers of each list, as Sinew's JSON names the lists.
pub fn triggers(path: &str, text: &str) -> Result<TriggerLists, LoadError> {
    let msg = text::parse(path, text).map_err(super::joined)?;
    let mut p = Problems::default();
    let r = Reader::new(&msg, "an input binding", BINDING, BINDING, &mut p);
    let lists = [
        (Device::Key, "key", "key_trigger"),
        (Device::Mouse, "mouse", "mouse_trigger"),
        (Device::Gamepad, "gamepad", "gamepad_trigger"),
        (Device::Text, "text", "text_trigger"),
    ];
    let mut out = Vec::new();
    for (device, name, field) in lists {
        let mut list = Vec::new();
        for f in r.all(field) {
            let Some(m) = message(f, "a trigger", &mut p) else { continue };
            let tr = Reader::new(m, "a trigger", TRIGGER, &[], &mut p);
            let input = tr.enum_name("input", &mut p);
            let action = tr.required("action", &mut p);
            if input.is_none() && tr.field("input").is_none() {
                p.0.push(tr.missing("input"));
            }
            if let (Some((i, inf)), Some((a, af))) = (input, action) {
                list.push(Trigger {
                    input: Located { value: i.to_string(), at: Some(inf.value_at.clone()) },
                    action: Located { value: a.to_string(), at: Some(af.value_at.clone()) },
                    at: Some(f.value_at.clone()),
                });
            }
        }
        out.push((device, name, list));
    }
    for f in r.all("touch_trigger") {
        if let Some(m) = message(f, "a trigger", &mut p) {
            Reader::new(m, "a trigger", TRIGGER, &[], &mut p);
        }
    }
    if p.0.is_empty() { Ok(out) } else { Err(super::joined(p.0)) }
}
