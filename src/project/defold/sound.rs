//! Defold's `.sound` (SoundDesc: sound, looping, group, gain, pan, speed, loopcount) as the
//! inline fields of a Sinew `sound` component, so one loader checks both forms.
use super::Cx;
use super::node::Node;
use super::read::{Obj, Reader};
use super::text::Message;

const SOUND: &[&str] = &["sound", "looping", "group", "gain", "pan", "speed", "loopcount"];

pub fn sound(cx: &mut Cx, m: &Message, out: &mut Obj) {
    let p = &mut cx.problems;
    let r = Reader::new(m, "a sound", SOUND, &[], p);
    out.str("type", "sound", None);
    if let Some((s, f)) = r.required("sound", p) {
        out.str("sound", s, Some(&f.value_at));
    }
    if let Some((b, f)) = r.bool("looping", p) {
        out.put("looping", Node::Bool(b), Some(&f.value_at));
    }
    if let Some((g, f)) = r.non_empty("group", p) {
        out.str("group", g, Some(&f.value_at));
    }
    for name in ["gain", "pan", "speed"] {
        if let Some((v, f)) = r.number(name, p) {
            out.put(name, Node::Num(v), Some(&f.value_at));
        }
    }
    // Sinew plays a looping sound until stopped: a count of loops is Defold 1.9's, not yet here.
    if let Some((n, f)) = r.number("loopcount", p)
        && n != 0.0
    {
        p.at(&f.at, "`loopcount` of a sound is not supported yet (a looping sound plays until stopped)");
    }
}
