//! The message queue and the binary form of message tables.
//!
//! Like Defold, a posted table is serialised at `msg.post` time (so later changes by the sender do
//! not leak through) and decoded again for each receiving script. One format serves Lua→Lua,
//! Lua→engine (`set_parent`) and engine→Lua (`model_animation_done`) messages.
use super::url::Url;
use crate::base::hash::Hash;
use std::collections::VecDeque;

/// Largest encoded message, as in Defold.
pub const MAX_MESSAGE_BYTES: usize = 2048;

/// Deepest nesting of tables in a message.
pub const MAX_DEPTH: u32 = 32;

pub mod tag {
    pub const FALSE: u8 = 1;
    pub const TRUE: u8 = 2;
    pub const NUMBER: u8 = 3;
    pub const STRING: u8 = 4;
    pub const HASH: u8 = 5;
    pub const URL: u8 = 6;
    pub const VECTOR3: u8 = 7;
    pub const VECTOR4: u8 = 8;
    pub const QUAT: u8 = 9;
    pub const MATRIX4: u8 = 10;
    pub const TABLE: u8 = 11;
    /// One of [`super::KEYS`] by its index (one byte): the engine's own field names cost no
    /// string to make or to intern on either side.
    pub const KEY: u8 = 12;
}

/// Declares [`Key`] and [`KEYS`] from one list, so a key's index and its text cannot drift.
macro_rules! message_keys {
    ($($key:ident => $text:literal),* $(,)?) => {
        /// A field name of the engine's own messages (collision, contact and trigger responses).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(u8)]
        pub enum Key { $($key),* }
        impl Key {
            pub const ALL: &[Key] = &[$(Key::$key),*];
        }
        /// The text of each [`Key`], in order: Lua's decoder gets this list from Rust.
        pub const KEYS: &[&str] = &[$($text),*];
    };
}

message_keys! {
    OtherId => "other_id",
    OtherPosition => "other_position",
    OtherGroup => "other_group",
    OwnGroup => "own_group",
    Group => "group",
    Position => "position",
    Normal => "normal",
    RelativeVelocity => "relative_velocity",
    Distance => "distance",
    AppliedImpulse => "applied_impulse",
    Life => "life",
    Mass => "mass",
    OtherMass => "other_mass",
    Enter => "enter",
}

/// A decoded message value.
#[derive(Debug, Clone, PartialEq)]
pub enum MsgValue {
    Bool(bool),
    Number(f64),
    String(String),
    Hash(Hash),
    Url(Url),
    Vector3([f32; 3]),
    Vector4([f32; 4]),
    Quat([f32; 4]),
    Matrix4([f32; 16]),
    Table(Vec<(MsgValue, MsgValue)>),
    /// A string of [`KEYS`], encoded as its index; decoded as [`MsgValue::String`].
    Key(Key),
}

impl MsgValue {
    /// Field of a table by string key.
    pub fn get(&self, key: &str) -> Option<&MsgValue> {
        match self {
            MsgValue::Table(t) => t
                .iter()
                .find(|(k, _)| match k {
                    MsgValue::String(s) => s == key,
                    MsgValue::Key(k) => KEYS[*k as usize] == key,
                    _ => false,
                })
                .map(|(_, v)| v),
            _ => None,
        }
    }
}

fn put_f32s(out: &mut Vec<u8>, v: &[f32]) {
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

/// Encodes a value (normally a table) into the message format.
pub fn encode(v: &MsgValue, out: &mut Vec<u8>) {
    match v {
        MsgValue::Bool(false) => out.push(tag::FALSE),
        MsgValue::Bool(true) => out.push(tag::TRUE),
        MsgValue::Number(n) => {
            out.push(tag::NUMBER);
            out.extend_from_slice(&n.to_le_bytes());
        }
        MsgValue::String(s) => {
            out.push(tag::STRING);
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        MsgValue::Hash(h) => {
            out.push(tag::HASH);
            out.extend_from_slice(&h.to_le_bytes());
        }
        MsgValue::Url(u) => {
            out.push(tag::URL);
            for h in [u.socket, u.path, u.fragment] {
                out.extend_from_slice(&h.to_le_bytes());
            }
        }
        MsgValue::Vector3(a) => {
            out.push(tag::VECTOR3);
            put_f32s(out, a);
        }
        MsgValue::Vector4(a) => {
            out.push(tag::VECTOR4);
            put_f32s(out, a);
        }
        MsgValue::Quat(a) => {
            out.push(tag::QUAT);
            put_f32s(out, a);
        }
        MsgValue::Matrix4(a) => {
            out.push(tag::MATRIX4);
            put_f32s(out, a);
        }
        MsgValue::Key(k) => {
            out.push(tag::KEY);
            out.push(*k as u8);
        }
        MsgValue::Table(t) => {
            // A guess of a field's size (a key and a vector3): growing by doubling from nothing
            // cost more than all the rest of encoding a physics message.
            out.reserve(5 + t.len() * 16);
            out.push(tag::TABLE);
            out.extend_from_slice(&(t.len() as u32).to_le_bytes());
            for (k, v) in t {
                encode(k, out);
                encode(v, out);
            }
        }
    }
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len()).ok_or("truncated message data")?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> Result<u64, String> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }
    fn f32s<const N: usize>(&mut self) -> Result<[f32; N], String> {
        let mut out = [0f32; N];
        for o in out.iter_mut() {
            let b = self.take(4)?;
            *o = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        Ok(out)
    }
    fn value(&mut self, depth: u32) -> Result<MsgValue, String> {
        if depth > MAX_DEPTH {
            return Err("message tables nest too deeply".into());
        }
        let t = self.take(1)?[0];
        Ok(match t {
            tag::FALSE => MsgValue::Bool(false),
            tag::TRUE => MsgValue::Bool(true),
            tag::NUMBER => MsgValue::Number(f64::from_bits(self.u64()?)),
            tag::STRING => {
                let n = self.u32()? as usize;
                MsgValue::String(String::from_utf8_lossy(self.take(n)?).into_owned())
            }
            tag::HASH => MsgValue::Hash(self.u64()?),
            tag::URL => MsgValue::Url(Url { socket: self.u64()?, path: self.u64()?, fragment: self.u64()? }),
            tag::VECTOR3 => MsgValue::Vector3(self.f32s::<3>()?),
            tag::VECTOR4 => MsgValue::Vector4(self.f32s::<4>()?),
            tag::QUAT => MsgValue::Quat(self.f32s::<4>()?),
            tag::MATRIX4 => MsgValue::Matrix4(self.f32s::<16>()?),
            tag::KEY => {
                let i = self.take(1)?[0] as usize;
                MsgValue::String(KEYS.get(i).ok_or_else(|| format!("unknown message key {i}"))?.to_string())
            }
            tag::TABLE => {
                let n = self.u32()? as usize;
                let mut t = Vec::with_capacity(n.min(256));
                for _ in 0..n {
                    let k = self.value(depth + 1)?;
                    let v = self.value(depth + 1)?;
                    t.push((k, v));
                }
                MsgValue::Table(t)
            }
            other => return Err(format!("unknown message value tag {other}")),
        })
    }
}

/// Decodes message data; empty data is an empty table.
pub fn decode(data: &[u8]) -> Result<MsgValue, String> {
    if data.is_empty() {
        return Ok(MsgValue::Table(Vec::new()));
    }
    let mut r = Reader { data, pos: 0 };
    let v = r.value(0)?;
    if r.pos != data.len() {
        return Err("trailing bytes in message data".into());
    }
    Ok(v)
}

/// A queued message.
#[derive(Debug, Clone)]
pub struct Message {
    pub sender: Url,
    pub receiver: Url,
    pub id: Hash,
    /// Encoded table (see [`encode`]); empty means `{}`.
    pub data: Vec<u8>,
}

/// Most messages that may be posted in one frame. Defold bounds its message buffers and refuses
/// posts to a full socket; Sinew counts posts per frame so that a script whose `on_message`
/// posts two messages for each it gets cannot grow the queue without bound.
pub const MAX_MESSAGES_PER_FRAME: usize = 16_384;

/// Why [`MessageQueue::post`] refused a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueFull {
    /// The first refusal this frame: report it (once, naming the sender).
    First,
    /// Already reported this frame: drop silently.
    Again,
}

/// FIFO of messages waiting for the next dispatch.
#[derive(Default)]
pub struct MessageQueue {
    queue: VecDeque<Message>,
    posted_this_frame: usize,
    refused_this_frame: bool,
}

impl MessageQueue {
    /// Queues `m` unless [`MAX_MESSAGES_PER_FRAME`] messages were already posted this frame.
    pub fn post(&mut self, m: Message) -> Result<(), QueueFull> {
        if self.posted_this_frame >= MAX_MESSAGES_PER_FRAME {
            let first = !self.refused_this_frame;
            self.refused_this_frame = true;
            return Err(if first { QueueFull::First } else { QueueFull::Again });
        }
        self.posted_this_frame += 1;
        self.queue.push_back(m);
        Ok(())
    }
    /// Starts a new frame's post budget.
    pub fn new_frame(&mut self) {
        self.posted_this_frame = 0;
        self.refused_this_frame = false;
    }
    pub fn pop(&mut self) -> Option<Message> {
        self.queue.pop_front()
    }
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
    pub fn len(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_bad_input() {
        let v = MsgValue::Table(vec![
            (MsgValue::String("a".into()), MsgValue::Number(1.5)),
            (MsgValue::Number(1.0), MsgValue::Vector3([1.0, 2.0, 3.0])),
            (MsgValue::String("u".into()), MsgValue::Url(Url { socket: 1, path: 2, fragment: 3 })),
            (MsgValue::String("t".into()), MsgValue::Table(vec![(MsgValue::Bool(true), MsgValue::Hash(7))])),
        ]);
        let mut buf = Vec::new();
        encode(&v, &mut buf);
        assert_eq!(decode(&buf).unwrap(), v);
        assert_eq!(v.get("a"), Some(&MsgValue::Number(1.5)));
        for cut in 1..buf.len() {
            assert!(decode(&buf[..cut]).is_err(), "truncated at {cut}");
        }
        assert!(decode(&[99]).is_err());
        let mut deep = vec![];
        for _ in 0..40 {
            deep.extend_from_slice(&[tag::TABLE, 1, 0, 0, 0, tag::TRUE]);
        }
        assert!(decode(&deep).is_err());
        assert_eq!(decode(&[]).unwrap(), MsgValue::Table(vec![]));
    }

    #[test]
    fn posts_per_frame_are_capped_and_reported_once() {
        let m = Message { sender: Url::default(), receiver: Url::default(), id: 1, data: Vec::new() };
        let mut q = MessageQueue::default();
        for _ in 0..MAX_MESSAGES_PER_FRAME {
            assert_eq!(q.post(m.clone()), Ok(()));
        }
        assert_eq!(q.post(m.clone()), Err(QueueFull::First));
        assert_eq!(q.post(m.clone()), Err(QueueFull::Again));
        assert_eq!(q.len(), MAX_MESSAGES_PER_FRAME);
        q.new_frame();
        assert_eq!(q.post(m.clone()), Ok(()));
    }
}
