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

thread_local! {
    static NAMES: std::cell::RefCell<std::collections::HashMap<Hash, String>> = Default::default();
}

/// Hashes a string and remembers it, so messages and `tostring(hash)` can show the original text.
pub fn hash_remembered(s: &str) -> Hash {
    let h = hash_str(s);
    NAMES.with(|n| {
        n.borrow_mut().entry(h).or_insert_with(|| s.to_string());
    });
    h
}

/// Remembers the text of a hash (see [`hash_remembered`]).
pub fn remember(s: &str) {
    hash_remembered(s);
}

/// The text a hash was made from, when known, else its hex digits.
pub fn name_of(h: Hash) -> String {
    NAMES.with(|n| n.borrow().get(&h).cloned()).unwrap_or_else(|| to_hex(h))
}

/// 16 lowercase hex digits, as `hash_to_hex` prints.
pub fn to_hex(h: Hash) -> String {
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defold_test_vectors() {
        assert_eq!(to_hex(hash_str("my_hash")), "a2bc06d97f580aab");
        assert_eq!(to_hex(hash_str("position")), "e25b1118853d15c6");
        assert_eq!(to_hex(hash_str("/go")), "2159aaae9b469178");
    }

    #[test]
    fn empty_and_block_boundaries_differ() {
        let a = hash_str("");
        let b = hash_str("12345678");
        let c = hash_str("123456789");
        assert!(a != b && b != c && a != c);
    }
}
