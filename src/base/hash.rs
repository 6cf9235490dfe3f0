//! Defold's 64-bit string hash (MurmurHash2A-style, seed 0, endian-neutral; api.md 6.3).
//!
//! Ids are hashed by *continuing* the hash of a prefix in Defold, which is the same as hashing
//! the concatenated string, so a plain one-shot function is all the runtime needs.

/// A 64-bit hash of an id, message name or property name.
pub type Hash = u64;

const M: u64 = 0xc6a4a7935bd1e995;
const R: u32 = 47;

#[inline]
fn mix(h: &mut u64, mut k: u64) {
    k = k.wrapping_mul(M);
    k ^= k >> R;
    k = k.wrapping_mul(M);
    *h = h.wrapping_mul(M);
    *h ^= k;
}

/// Hashes raw bytes exactly as Defold's `dmHashBuffer64` does.
pub fn hash_bytes(data: &[u8]) -> Hash {
    let mut h: u64 = 0;
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let mut b = [0u8; 8];
        b.copy_from_slice(c);
        mix(&mut h, u64::from_le_bytes(b));
    }
    let rest = chunks.remainder();
    let mut tail = [0u8; 8];
    tail[..rest.len()].copy_from_slice(rest);
    mix(&mut h, u64::from_le_bytes(tail));
    mix(&mut h, data.len() as u64);
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// Hashes a string id.
pub fn hash_str(s: &str) -> Hash {
    hash_bytes(s.as_bytes())
}

/// The hasher of the runtime's maps keyed by [`Hash`] ids (and of a few keyed by short
/// strings): an id is already a well-mixed 64-bit hash, so it is its own hash; SipHash cost
/// ~90 instructions a lookup on the spawn and delete path (callgrind, factory bench). Bytes
/// (strings) are folded in with the id hash's own mixing step.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            mix(&mut self.0, u64::from_le_bytes(b));
        }
        let rest = chunks.remainder();
        let mut tail = [0u8; 8];
        tail[..rest.len()].copy_from_slice(rest);
        mix(&mut self.0, u64::from_le_bytes(tail) ^ ((rest.len() as u64) << 56));
        self.0 ^= self.0 >> R;
    }

    fn write_u64(&mut self, v: u64) {
        self.0 ^= v;
    }
}

/// `BuildHasher` of [`IdHasher`].
pub type IdBuild = std::hash::BuildHasherDefault<IdHasher>;

/// A map keyed by ids.
pub type IdMap<V> = std::collections::HashMap<Hash, V, IdBuild>;

/// How many names of script-made hashes are kept: the most recently made or looked-up ones, at
/// least half of this and at most all of it. Names from the project's files and the runtime's
/// own ids are kept for the whole run; a forgotten name prints as its hex digits.
pub const SCRIPT_NAMES: usize = 65_536;

/// Reverse names. `recent` and `older` are two generations of an approximate LRU: when `recent`
/// is full it becomes `older` and the previous `older` is dropped; a hit in `older` moves back.
#[derive(Default)]
struct Names {
    pinned: IdMap<String>,
    recent: IdMap<String>,
    older: IdMap<String>,
}

impl Names {
    fn touch(&mut self, h: Hash, s: &str) {
        if self.pinned.contains_key(&h) || self.recent.contains_key(&h) {
            return;
        }
        let name = self.older.remove(&h).unwrap_or_else(|| s.to_string());
        if self.recent.len() >= SCRIPT_NAMES / 2 {
            self.older = std::mem::take(&mut self.recent);
        }
        self.recent.insert(h, name);
    }

    fn get(&self, h: Hash) -> Option<&String> {
        self.pinned.get(&h).or_else(|| self.recent.get(&h)).or_else(|| self.older.get(&h))
    }
}

thread_local! {
    static NAMES: std::cell::RefCell<Names> = Default::default();
}

/// Hashes a string and remembers it for the whole run, so messages and `tostring(hash)` can show
/// the original text. For names the project's files and the runtime produce, a bounded set.
pub fn hash_remembered(s: &str) -> Hash {
    let h = hash_str(s);
    NAMES.with(|n| {
        let mut n = n.borrow_mut();
        if !n.pinned.contains_key(&h) {
            let name = n.recent.remove(&h).or_else(|| n.older.remove(&h)).unwrap_or_else(|| s.to_string());
            n.pinned.insert(h, name);
        }
    });
    h
}

/// Hashes a string a script made (`hash()`, message strings, URLs) and remembers its name among
/// the last [`SCRIPT_NAMES`]: a script hashing a new string every frame must not grow forever.
pub fn hash_transient(s: &str) -> Hash {
    let h = hash_str(s);
    NAMES.with(|n| n.borrow_mut().touch(h, s));
    h
}

/// Remembers the text of a hash (see [`hash_remembered`]).
pub fn remember(s: &str) {
    hash_remembered(s);
}

/// The text a hash was made from, when known, else its hex digits.
pub fn name_of(h: Hash) -> String {
    NAMES.with(|n| n.borrow().get(h).cloned()).unwrap_or_else(|| to_hex(h))
}

/// The text a hash was made from, when known.
pub fn text_of(h: Hash) -> Option<String> {
    NAMES.with(|n| n.borrow().get(h).cloned())
}

/// How many names are held: (kept for the run, script-made).
pub fn name_counts() -> (usize, usize) {
    NAMES.with(|n| {
        let n = n.borrow();
        (n.pinned.len(), n.recent.len() + n.older.len())
    })
}

/// 16 lowercase hex digits, as `hash_to_hex` prints.
pub fn to_hex(h: Hash) -> String {
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_maps_find_ids_and_strings() {
        let mut m: IdMap<u32> = IdMap::default();
        for i in 0..1000u32 {
            m.insert(hash_str(&format!("/instance{i}")), i);
        }
        assert_eq!(m.get(&hash_str("/instance777")), Some(&777));
        let mut s: std::collections::HashMap<String, u32, IdBuild> = Default::default();
        for i in 0..100u32 {
            s.insert(format!("/collection{i}/"), i);
        }
        assert_eq!(s.get("/collection42/"), Some(&42));
        assert_eq!(s.get("/collection42"), None);
        use std::hash::BuildHasher;
        let b = IdBuild::default();
        assert_ne!(b.hash_one("ab"), b.hash_one("ba"));
        assert_ne!(b.hash_one(""), b.hash_one("\0"));
    }

    #[test]
    fn defold_test_vectors() {
        assert_eq!(to_hex(hash_str("my_hash")), "a2bc06d97f580aab");
        assert_eq!(to_hex(hash_str("position")), "e25b1118853d15c6");
        assert_eq!(to_hex(hash_str("/go")), "2159aaae9b469178");
    }

    #[test]
    fn script_names_are_bounded_and_project_names_stay() {
        let project = hash_remembered("/hostile/project_object");
        let (pinned, _) = name_counts();
        for i in 0..(3 * SCRIPT_NAMES) {
            hash_transient(&format!("per_frame_{i}"));
        }
        let (pinned_after, script) = name_counts();
        assert_eq!(pinned_after, pinned, "script hashes are not kept for the run");
        assert!(script <= SCRIPT_NAMES, "{script} script names kept");
        assert_eq!(name_of(project), "/hostile/project_object");
        let last = format!("per_frame_{}", 3 * SCRIPT_NAMES - 1);
        assert_eq!(name_of(hash_str(&last)), last, "recent names are kept");
        let first = hash_str("per_frame_0");
        assert_eq!(name_of(first), to_hex(first), "a forgotten name prints as hex");
    }

    #[test]
    fn empty_and_block_boundaries_differ() {
        let a = hash_str("");
        let b = hash_str("12345678");
        let c = hash_str("123456789");
        assert!(a != b && b != c && a != c);
    }
}
