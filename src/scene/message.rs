//! The message queue and the binary form of message tables.
//!
//! Like Defold, a posted table is serialised at `msg.post` time (so later changes by the sender do
//! not leak through) and decoded again for each receiving script. One format serves Lua→Lua,
//! Lua→engine (`set_parent`) and engine→Lua (`model_animation_done`) messages.
use super::url::Url;
use crate::base::hash::Hash;

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
    /// A table with the keys of one of [`super::RECORDS`], by its index (one byte), then its
    /// values in that order: the receiver makes it from a template, with no keys to read or to
    /// insert one by one (physics sends thousands a step).
    pub const RECORD: u8 = 13;
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
    LifeTime => "life_time",
    Mass => "mass",
    OtherMass => "other_mass",
    Enter => "enter",
}

/// Declares [`Record`] and [`RECORDS`] from one list, as [`Key`] and [`KEYS`] are.
macro_rules! message_records {
    ($($record:ident => [$($key:ident),* $(,)?]),* $(,)?) => {
        /// The field lists of the engine's own messages, each sent as [`tag::RECORD`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(u8)]
        pub enum Record { $($record),* }
        /// The keys of each [`Record`], in order: Lua's decoder gets these lists from Rust.
        pub const RECORDS: &[&[Key]] = &[$(&[$(Key::$key),*]),*];
    };
}

message_records! {
    Collision => [OtherId, OtherPosition, OtherGroup, OwnGroup, Group],
    ContactPoint => [
        Position, Normal, RelativeVelocity, Distance, AppliedImpulse, LifeTime, Mass, OtherMass, OtherId,
        OtherPosition, Group, OtherGroup, OwnGroup,
    ],
    Trigger => [OtherId, Enter, OtherGroup, OwnGroup, Group],
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

/// Writes one of the engine's own messages straight into its bytes, with no [`MsgValue`] tree to
/// build and drop: physics posts thousands a step. Each field is named where it is written and
/// must come in its [`Record`]'s order (checked in debug builds); only the values are sent.
pub struct Fields<'a> {
    out: &'a mut Vec<u8>,
    /// The record's keys not written yet.
    left: &'static [Key],
}

impl<'a> Fields<'a> {
    /// Starts a message of `record`'s fields at the end of `out`.
    pub fn record(out: &'a mut Vec<u8>, record: Record) -> Fields<'a> {
        out.extend_from_slice(&[tag::RECORD, record as u8]);
        Fields { out, left: RECORDS[record as usize] }
    }
    fn key(&mut self, k: Key) -> &mut Vec<u8> {
        debug_assert_eq!(self.left.first(), Some(&k), "a field out of its record's order");
        self.left = self.left.get(1..).unwrap_or_default();
        self.out
    }
    pub fn vector3(&mut self, k: Key, v: [f32; 3]) -> &mut Self {
        let out = self.key(k);
        out.push(tag::VECTOR3);
        put_f32s(out, &v);
        self
    }
    pub fn number(&mut self, k: Key, v: f64) -> &mut Self {
        let out = self.key(k);
        out.push(tag::NUMBER);
        out.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn hash(&mut self, k: Key, v: Hash) -> &mut Self {
        let out = self.key(k);
        out.push(tag::HASH);
        out.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn bool(&mut self, k: Key, v: bool) -> &mut Self {
        self.key(k).push(if v { tag::TRUE } else { tag::FALSE });
        self
    }
}

impl Drop for Fields<'_> {
    fn drop(&mut self) {
        debug_assert!(self.left.is_empty(), "fields of the record left unwritten: {:?}", self.left);
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
            tag::RECORD => {
                let i = self.take(1)?[0] as usize;
                let keys = RECORDS.get(i).ok_or_else(|| format!("unknown message record {i}"))?;
                let mut t = Vec::with_capacity(keys.len());
                for &k in keys.iter() {
                    t.push((MsgValue::String(KEYS[k as usize].to_string()), self.value(depth + 1)?));
                }
                MsgValue::Table(t)
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
    /// The receiving object's slot where the poster knew it (a physics step knows each of its
    /// thousands), else [`super::NONE`]: dispatch takes it while that slot still holds the
    /// receiver, where looking the path up in the table of every object missed the cache.
    pub to: u32,
}

impl Message {
    pub fn new(sender: Url, receiver: Url, id: Hash, data: Vec<u8>) -> Message {
        Message { sender, receiver, id, data, to: super::NONE }
    }

    /// This message, its receiver's object known to be at `slot`.
    pub fn to_slot(self, slot: u32) -> Message {
        Message { to: slot, ..self }
    }
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

/// FIFO of messages waiting for the next dispatch. A vector, not a ring: dispatch takes the
/// whole queue at once, so [`MessageQueue::take_all`] swaps it for last batch's emptied vector
/// where draining a ring copied every message (a physics step's 10,000 are 880 KB).
#[derive(Default)]
pub struct MessageQueue {
    queue: Vec<Message>,
    posted_this_frame: usize,
    refused_this_frame: bool,
    spare: Vec<Message>,
    /// Emptied data buffers of delivered messages, for [`MessageQueue::buffer`]: a physics step
    /// posts thousands of messages a frame, each of which would allocate and free one.
    spare_data: Vec<Vec<u8>>,
}

/// Data buffers kept for reuse: a frame's worth of messages ...
const MAX_SPARE_BUFFERS: usize = MAX_MESSAGES_PER_FRAME;
/// ... of small records only (a contact point's is 136 bytes): at most 4 MiB held.
const MAX_SPARE_BUFFER_BYTES: usize = 256;

impl MessageQueue {
    /// Queues `m` unless [`MAX_MESSAGES_PER_FRAME`] messages were already posted this frame.
    pub fn post(&mut self, m: Message) -> Result<(), QueueFull> {
        if self.posted_this_frame >= MAX_MESSAGES_PER_FRAME {
            let first = !self.refused_this_frame;
            self.refused_this_frame = true;
            return Err(if first { QueueFull::First } else { QueueFull::Again });
        }
        self.posted_this_frame += 1;
        self.queue.push(m);
        Ok(())
    }
    /// Starts a new frame's post budget.
    pub fn new_frame(&mut self) {
        self.posted_this_frame = 0;
        self.refused_this_frame = false;
    }
    /// Every queued message, in order, in a vector that [`MessageQueue::give_back`] returns so the
    /// next frame's batch reuses its room (a physics step's batch is ~1 MB, which the allocator
    /// would otherwise map and fault in again each frame).
    pub fn take_all(&mut self) -> Vec<Message> {
        let spare = std::mem::take(&mut self.spare);
        std::mem::replace(&mut self.queue, spare)
    }
    /// An empty buffer for a message's data, with room for `capacity` bytes: one a delivered
    /// message gave back when there is one.
    pub fn buffer(&mut self, capacity: usize) -> Vec<u8> {
        match self.spare_data.pop() {
            Some(mut b) => {
                b.reserve(capacity);
                b
            }
            None => Vec::with_capacity(capacity),
        }
    }
    /// Takes back a batch from [`MessageQueue::take_all`], emptied; the small data buffers are
    /// kept for [`MessageQueue::buffer`].
    pub fn give_back(&mut self, mut batch: Vec<Message>) {
        for m in batch.drain(..) {
            if self.spare_data.len() >= MAX_SPARE_BUFFERS {
                break;
            }
            let mut data = m.data;
            if data.capacity() > 0 && data.capacity() <= MAX_SPARE_BUFFER_BYTES {
                data.clear();
                self.spare_data.push(data);
            }
        }
        batch.clear();
        if batch.capacity() > self.spare.capacity() {
            self.spare = batch;
        }
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

    /// Delivered messages' small data buffers come back empty from `buffer`; large ones are not
    /// kept, and neither is more than a frame's worth.
    #[test]
    fn data_buffers_are_reused_within_bounds() {
        let mut q = MessageQueue::default();
        let message = |data: Vec<u8>| Message::new(Url::default(), Url::default(), 1, data);
        let mut small = q.buffer(136);
        small.extend_from_slice(&[7; 100]);
        let kept = small.as_ptr();
        q.post(message(small)).expect("posted");
        q.post(message(vec![1; MAX_SPARE_BUFFER_BYTES + 1])).expect("posted");
        q.post(message(Vec::new())).expect("posted");
        let batch = q.take_all();
        assert_eq!(batch.len(), 3);
        q.give_back(batch);
        assert_eq!(q.spare_data.len(), 1, "only the small buffer is kept");
        let again = q.buffer(10);
        assert!(again.is_empty() && again.capacity() >= 136);
        assert_eq!(again.as_ptr(), kept, "the same allocation");
        assert_eq!(q.buffer(10).capacity(), 10, "then new ones");
        let many: Vec<Message> = (0..MAX_SPARE_BUFFERS + 5).map(|_| message(Vec::with_capacity(8))).collect();
        q.give_back(many);
        assert_eq!(q.spare_data.len(), MAX_SPARE_BUFFERS);
    }

    /// `take_all` hands over the queue as it is, in posting order, and the vectors of earlier
    /// batches take turns as the queue: no message is copied and no room is allocated again.
    #[test]
    fn take_all_hands_over_the_queue_in_order_in_reused_room() {
        let mut q = MessageQueue::default();
        let post = |q: &mut MessageQueue, id| q.post(Message::new(Url::default(), Url::default(), id, Vec::new()));
        let ids = |b: &[Message]| b.iter().map(|m| m.id).collect::<Vec<_>>();
        for id in 1..=3 {
            post(&mut q, id).expect("posted");
        }
        let first = q.take_all();
        assert_eq!(ids(&first), [1, 2, 3]);
        assert!(q.is_empty());
        let room = first.as_ptr();
        q.give_back(first);
        post(&mut q, 4).expect("posted");
        post(&mut q, 5).expect("posted");
        let second = q.take_all();
        assert_eq!(ids(&second), [4, 5]);
        // Posted while the second batch is delivered: into the first batch's room.
        post(&mut q, 6).expect("posted");
        q.give_back(second);
        let third = q.take_all();
        assert_eq!(ids(&third), [6]);
        assert_eq!(third.as_ptr(), room, "the first batch's vector");
    }

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
    fn records_decode_as_the_tables_of_their_keys() {
        let mut got = vec![];
        Fields::record(&mut got, Record::Trigger)
            .hash(Key::OtherId, 0xdead_beef_0123_4567)
            .bool(Key::Enter, true)
            .hash(Key::OtherGroup, 1)
            .hash(Key::OwnGroup, 2)
            .hash(Key::Group, 3);
        let key = |k: &str| MsgValue::String(k.into());
        let want = MsgValue::Table(vec![
            (key("other_id"), MsgValue::Hash(0xdead_beef_0123_4567)),
            (key("enter"), MsgValue::Bool(true)),
            (key("other_group"), MsgValue::Hash(1)),
            (key("own_group"), MsgValue::Hash(2)),
            (key("group"), MsgValue::Hash(3)),
        ]);
        assert_eq!(decode(&got), Ok(want));
        for cut in 1..got.len() {
            assert!(decode(&got[..cut]).is_err(), "truncated at {cut}");
        }
        assert_eq!(
            decode(&[tag::RECORD, RECORDS.len() as u8]),
            Err(format!("unknown message record {}", RECORDS.len()))
        );
        let mut contact = vec![];
        let mut f = Fields::record(&mut contact, Record::ContactPoint);
        f.vector3(Key::Position, [1.0, -2.0, 3.5]).vector3(Key::Normal, [0.0, 1.0, 0.0]);
        f.vector3(Key::RelativeVelocity, [0.0; 3]).number(Key::Distance, 0.25).number(Key::AppliedImpulse, 2.0);
        f.number(Key::LifeTime, 0.0).number(Key::Mass, 1.0).number(Key::OtherMass, 0.0).hash(Key::OtherId, 9);
        f.vector3(Key::OtherPosition, [0.0; 3]).hash(Key::Group, 1).hash(Key::OtherGroup, 1).hash(Key::OwnGroup, 2);
        drop(f);
        let d = decode(&contact).expect("a contact point");
        assert_eq!(d.get("position"), Some(&MsgValue::Vector3([1.0, -2.0, 3.5])));
        assert_eq!(d.get("own_group"), Some(&MsgValue::Hash(2)));
        assert_eq!(d.get("life_time"), Some(&MsgValue::Number(0.0)), "Defold's field name");
    }

    #[test]
    fn posts_per_frame_are_capped_and_reported_once() {
        let m = Message::new(Url::default(), Url::default(), 1, Vec::new());
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
