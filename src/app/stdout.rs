//! Reports written to stdout when the reader may leave early (`sinew inspect FILE | head`):
//! `print!` panics on a closed pipe ("failed printing to stdout: Broken pipe"); here the
//! command ends quietly, as tools at the head of a pipeline do.
use std::io::Write;

/// Writes `text`; a reader that is gone is no error, anything else is.
pub fn write(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("cannot write to stdout: {e}")),
    }
}

/// [`write`] for a command's result: its status, 1 after printing a failed write.
pub fn status_after(text: &str) -> i32 {
    match write(text) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
