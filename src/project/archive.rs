//! The archive a bundled game reads its resources from (`sinew bundle`, docs/bundle.md): one file
//! holding every resource the game reaches, read whole and checked once at start-up, then
//! served from memory.
//!
//! Layout, little-endian: `SINEWPAK`, format version (u32), entry count (u32), then per entry the
//! path's length (u16) and bytes, the data's offset from the start of the data and its length
//! (u64 each) and its CRC-32; then the data. Everything a header says is checked against the
//! bytes there before anything is reserved, and every checksum before the game starts, so a
//! truncated, foreign or tampered archive is an error naming it, never a panic or a half game.
use crate::base::path::normalize;
use std::collections::HashMap;
use std::sync::Arc;

pub const MAGIC: &[u8; 8] = b"SINEWPAK";
pub const VERSION: u32 = 1;
/// The end of an executable with an archive appended (`sinew bundle --single-file`): the
/// archive's length (u64), then this.
pub const TRAILER: &[u8; 8] = b"SINEWEND";
/// More entries than this is no game's archive (a project of 100,000 objects has far fewer files).
pub const MAX_ENTRIES: u32 = 1_000_000;

/// A checked archive: resource path → its bytes' place in `data`.
#[derive(Debug)]
pub struct Archive {
    data: Arc<[u8]>,
    /// Start of the data area in `data`.
    base: usize,
    files: HashMap<String, (usize, usize)>,
}

impl Archive {
    /// Checks `bytes` as an archive; `name` names it in errors.
    pub fn parse(name: &str, bytes: Vec<u8>) -> Result<Archive, String> {
        let bad = |what: String| format!("{name}: not a valid game archive: {what}");
        let mut at = 0usize;
        let take = |at: &mut usize, n: usize| -> Result<&[u8], String> {
            let end = at
                .checked_add(n)
                .filter(|&e| e <= bytes.len())
                .ok_or_else(|| bad(format!("truncated at byte {at}")))?;
            let s = &bytes[*at..end];
            *at = end;
            Ok(s)
        };
        let le = |b: &[u8]| b.iter().rev().fold(0u64, |v, &x| (v << 8) | x as u64);
        if take(&mut at, 8)? != MAGIC {
            return Err(bad("it does not start with SINEWPAK".into()));
        }
        let version = le(take(&mut at, 4)?) as u32;
        if version != VERSION {
            return Err(bad(format!("format version {version}; this Sinew reads version {VERSION}")));
        }
        let count = le(take(&mut at, 4)?) as u32;
        if count > MAX_ENTRIES {
            return Err(bad(format!("{count} entries (at most {MAX_ENTRIES})")));
        }
        // Each entry takes at least 22 bytes: a count the file cannot hold reserves nothing.
        if count as usize > bytes.len() / 22 {
            return Err(bad(format!("{count} entries do not fit in {} bytes (truncated)", bytes.len())));
        }
        let mut entries = Vec::with_capacity(count as usize);
        for i in 0..count {
            let len = le(take(&mut at, 2)?) as usize;
            let path =
                std::str::from_utf8(take(&mut at, len)?).map_err(|_| bad(format!("entry {i}'s path is not UTF-8")))?;
            let norm =
                normalize(path).filter(|n| n == path).ok_or_else(|| bad(format!("entry {i}'s path '{path}'")))?;
            let offset = le(take(&mut at, 8)?);
            let size = le(take(&mut at, 8)?);
            let crc = le(take(&mut at, 4)?) as u32;
            entries.push((norm, offset, size, crc));
        }
        let base = at;
        let data_len = (bytes.len() - base) as u64;
        let mut files = HashMap::with_capacity(entries.len());
        for (path, offset, size, crc) in entries {
            let end = offset.checked_add(size).filter(|&e| e <= data_len);
            let Some(end) = end else {
                return Err(bad(format!("'{path}' lies past the end of the file (truncated)")));
            };
            let (start, end) = (base + offset as usize, base + end as usize);
            if crc32fast::hash(&bytes[start..end]) != crc {
                return Err(bad(format!("'{path}' does not match its checksum (damaged or changed)")));
            }
            if files.insert(path.clone(), (start, end)).is_some() {
                return Err(bad(format!("'{path}' is in it twice")));
            }
        }
        Ok(Archive { data: bytes.into(), base, files })
    }

    /// The bytes of a resource (a normalised path).
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(|&(s, e)| &self.data[s..e])
    }

    /// Every resource path, sorted.
    pub fn paths(&self) -> Vec<String> {
        let mut v: Vec<String> = self.files.keys().cloned().collect();
        v.sort();
        v
    }

    /// Bytes of resource data (without the index).
    pub fn data_len(&self) -> usize {
        self.data.len() - self.base
    }
}

/// An archive of `files` (normalised resource path → bytes), in path order.
pub fn write(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut sorted: Vec<&(String, Vec<u8>)> = files.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(sorted.len() as u32).to_le_bytes());
    let mut offset = 0u64;
    for (path, bytes) in &sorted {
        out.extend_from_slice(&(path.len() as u16).to_le_bytes());
        out.extend_from_slice(path.as_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(bytes).to_le_bytes());
        offset += bytes.len() as u64;
    }
    for (_, bytes) in &sorted {
        out.extend_from_slice(bytes);
    }
    out
}

/// The 16 bytes written after an archive appended to an executable: its length, then [`TRAILER`].
pub fn trailer(archive_len: usize) -> [u8; 16] {
    let mut t = [0u8; 16];
    t[..8].copy_from_slice(&(archive_len as u64).to_le_bytes());
    t[8..].copy_from_slice(TRAILER);
    t
}

/// The archive length the last 16 bytes of a file announce, when they are a [`trailer`] (the
/// reader checks it against the file's size).
pub fn trailer_len(tail: &[u8; 16]) -> Option<u64> {
    if &tail[8..] != TRAILER {
        return None;
    }
    Some(u64::from_le_bytes(tail[..8].try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        write(&[("/main/a.script".into(), b"print(1)".to_vec()), ("/project.json".into(), b"{}".to_vec())])
    }

    #[test]
    fn a_written_archive_reads_back() {
        let a = Archive::parse("game.pak", sample()).expect("valid");
        assert_eq!(a.get("/main/a.script"), Some(&b"print(1)"[..]));
        assert_eq!(a.get("/project.json"), Some(&b"{}"[..]));
        assert_eq!(a.get("/missing"), None);
        assert_eq!(a.paths(), ["/main/a.script", "/project.json"]);
        assert_eq!(a.data_len(), 10);
    }

    #[test]
    fn every_truncation_is_an_error() {
        let full = sample();
        for n in 0..full.len() {
            let e = Archive::parse("game.pak", full[..n].to_vec()).expect_err("truncated");
            assert!(e.starts_with("game.pak: not a valid game archive"), "{n}: {e}");
        }
    }

    #[test]
    fn foreign_versions_tampering_and_lies_are_errors() {
        let e = Archive::parse("x", b"PK\x03\x04 not ours at all".to_vec()).expect_err("foreign");
        assert!(e.contains("does not start with SINEWPAK"), "{e}");
        let mut v2 = sample();
        v2[8] = 2;
        assert!(Archive::parse("x", v2).expect_err("version").contains("format version 2"));
        let mut tampered = sample();
        let last = tampered.len() - 1;
        tampered[last] ^= 1;
        assert!(Archive::parse("x", tampered).expect_err("tampered").contains("checksum"));
        // A header claiming a million entries in a few bytes reserves nothing.
        let mut lying = sample();
        lying[12..16].copy_from_slice(&900_000u32.to_le_bytes());
        assert!(Archive::parse("x", lying).expect_err("lying count").contains("do not fit"));
        let escape = write(&[("/../etc/passwd".into(), b"x".to_vec())]);
        assert!(Archive::parse("x", escape).expect_err("escape").contains("path"));
    }

    #[test]
    fn an_appended_archive_is_found_by_its_trailer() {
        let plain: [u8; 16] = *b"pretend ELF tail";
        assert!(trailer_len(&plain).is_none());
        let pak = sample();
        assert_eq!(trailer_len(&trailer(pak.len())), Some(pak.len() as u64));
    }
}
