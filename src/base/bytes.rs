//! Little-endian numbers at byte offsets of a file's bytes (GLB chunks, zip records): `None`
//! past the end, never a panic, whatever offset a damaged file gives.

pub fn le_u16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at.checked_add(2)?)?.try_into().ok()?))
}

pub fn le_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at.checked_add(4)?)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_within_the_bytes_and_nothing_past_them() {
        let b = [0x34, 0x12, 0x78, 0x56];
        assert_eq!(le_u16(&b, 0), Some(0x1234));
        assert_eq!(le_u32(&b, 0), Some(0x5678_1234));
        assert_eq!(le_u16(&b, 3), None);
        assert_eq!(le_u32(&b, 1), None);
        assert_eq!(le_u32(&b, usize::MAX), None);
    }
}
