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
        write!(f, "{}", self.resource)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_display_has_position() {
        let e = LoadError::at("/main/m.collection", 3, 5, "unknown field `posiiton`");
        assert_eq!(e.to_string(), "/main/m.collection:3:5: unknown field `posiiton`");
    }
}
