//! The one error type every loader reports with: a resource, an optional position, a message.
use std::fmt;

/// An error about one resource, printed as `/main/x.collection:3:5: message` so editors can jump to it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    pub resource: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl LoadError {
    pub fn new(resource: impl Into<String>, message: impl Into<String>) -> Self {
        LoadError { resource: resource.into(), line: None, column: None, message: message.into() }
    }
    pub fn at(resource: impl Into<String>, line: usize, column: usize, message: impl Into<String>) -> Self {
        LoadError { resource: resource.into(), line: Some(line), column: Some(column), message: message.into() }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A resource named by a file (a main collection in game.project) can be a hostile
        // path of any length.
        write!(f, "{}", abbreviated(&self.resource, LONGEST_NAME))?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

/// The longest resource name an error prints whole.
const LONGEST_NAME: usize = 256;

/// `text` whole when at most `longest` bytes, else its first 64 bytes and its length: a
/// hostile name, key or path from a file is named in an error, not printed whole.
pub fn abbreviated(text: &str, longest: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= longest {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(format!("{}… ({} bytes)", &text[..text.floor_char_boundary(64)], text.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by `tests/fuzz.rs`: a 2,000-byte `main_collection` was printed whole in each error.
    #[test]
    fn a_long_resource_name_is_printed_by_its_start() {
        let e = LoadError::at("/m".repeat(1000), 1, 2, "not found");
        assert_eq!(e.to_string(), format!("{}… (2000 bytes):1:2: not found", "/m".repeat(32)));
    }

    #[test]
    fn error_display_has_position() {
        let e = LoadError::at("/main/m.collection", 3, 5, "unknown field `posiiton`");
        assert_eq!(e.to_string(), "/main/m.collection:3:5: unknown field `posiiton`");
    }
}
