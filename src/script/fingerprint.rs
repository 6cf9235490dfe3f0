/// FNV-1a over `bytes`: which text a built-in Lua file's bytecode was compiled from. Included
/// by build.rs, which records it for each file, and by the test that checks the bytecode in
/// the binary is that of the file as it is now.
pub fn fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}
