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
        Some("1") if is_ci(ci) => {
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

/// Whether a value of `CI` means "running under CI" (set, and not empty, "0" or "false").
pub fn is_ci(ci: Option<&str>) -> bool {
    ci.is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// A check that cannot run on this machine (no GL context, a display where none was expected):
/// locally it passes and says why; under CI it fails, since there a skip would read as a pass of
/// something nobody checked.
pub fn skip(reason: &str, ci: Option<&str>) -> Result<(), String> {
    if is_ci(ci) {
        return Err(format!("could not run: {reason} (a skip fails when CI is set)"));
    }
    println!("       skipped: {reason}");
    Ok(())
}

/// [`skip`] with this process's `CI`.
pub fn skip_from_env(reason: &str) -> Result<(), String> {
    skip(reason, std::env::var("CI").ok().as_deref())
}
