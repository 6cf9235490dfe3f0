//! Reading a `--replay` file: only a regular file, one bounded line at a time, so a FIFO cannot
//! block the start of a run and `/dev/zero` (or a file with no newline) is refused after one
//! line's worth instead of being read whole (1.8 GB before it erred, issue 32).
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The longest line accepted. A recorded event is under 200 bytes; a hand-written one with a
/// long text input is still far below this.
pub const MAX_LINE: usize = 64 * 1024;

/// The file's text, or `PATH: message` / `PATH:LINE: message`.
pub fn read(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let cannot = |e: std::io::Error| format!("{shown}: cannot read replay file: {e}");
    // Checked before opening: opening a FIFO for reading blocks until someone writes to it.
    if !std::fs::metadata(path).map_err(cannot)?.is_file() {
        return Err(format!("{shown}: cannot read replay file: not a regular file"));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(cannot)?;
    // The file may have been swapped for a FIFO since the check above.
    if !file.metadata().map_err(cannot)?.is_file() {
        return Err(format!("{shown}: cannot read replay file: not a regular file"));
    }
    let mut reader = BufReader::new(file);
    let mut text = String::new();
    let mut line = Vec::new();
    for n in 1.. {
        line.clear();
        let got = (&mut reader).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut line).map_err(cannot)?;
        if got == 0 {
            break;
        }
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        if body.len() > MAX_LINE {
            return Err(format!("{shown}:{n}: line longer than {MAX_LINE} bytes"));
        }
        let body = std::str::from_utf8(body).map_err(|_| format!("{shown}:{n}: not UTF-8 text"))?;
        text.push_str(body);
        text.push('\n');
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("sinew_replay_{}_{name}", std::process::id()))
    }

    #[test]
    fn lines_are_read_and_long_ones_refused() {
        let p = temp("lines");
        std::fs::write(&p, "a\nb").unwrap();
        assert_eq!(read(&p).unwrap(), "a\nb\n");
        std::fs::write(&p, format!("{}\n{}\n", "x".repeat(MAX_LINE), "y".repeat(MAX_LINE + 1))).unwrap();
        let e = read(&p).unwrap_err();
        assert!(e.ends_with(":2: line longer than 65536 bytes"), "{e}");
        let _ = std::fs::remove_file(&p);
    }

    /// Issue 32: `/dev/zero` was read until memory ran out (1.8 GB), a FIFO blocked for ever.
    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_refused_without_reading() {
        let e = read(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(e, "/dev/zero: cannot read replay file: not a regular file");
        let fifo = temp("fifo");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let e = read(&fifo).unwrap_err();
        assert!(e.ends_with("not a regular file"), "{e}");
        let _ = std::fs::remove_file(&fifo);
    }
}
