//! When a test may rewrite the committed file it compares against (golden images, generated doc
//! pages): one rule for every such file, so no kind of reference can be blessed where another
//! is refused.
#![allow(dead_code)]

/// What a check does with its committed reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Compare,
    /// Rewrite the reference from this run. The check still fails: a run that only wrote what it
    /// compares against has verified nothing, and must not read as green.
    Update,
}

/// The mode for the value of the update variable `var` (`update`, "1" asks for it) and of `CI`.
/// Updating is refused under CI, where nobody looks at the rewritten files before the run is
/// counted.
pub fn mode(var: &str, update: Option<&str>, ci: Option<&str>) -> Result<Mode, String> {
    match update {
        Some("1") if ci.is_some_and(|v| !v.is_empty() && v != "0" && v != "false") => {
            Err(format!("{var}=1 is refused when CI is set: committed references are updated by hand"))
        }
        Some("1") => Ok(Mode::Update),
        _ => Ok(Mode::Compare),
    }
}

/// [`mode`] from this process's environment.
pub fn mode_from_env(var: &str) -> Result<Mode, String> {
    let update = std::env::var(var).ok();
    let ci = std::env::var("CI").ok();
    mode(var, update.as_deref(), ci.as_deref())
}
