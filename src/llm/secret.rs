//! `Secret`: an API key that cannot be printed by accident.

use std::fmt;

/// An API key or token. `Debug` and `Display` print `***`; the only way to the value
/// is [`Secret::expose`], used when building a request header.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The raw key. Call only to put it on the wire.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Replace every occurrence of the key in `text` with `***` (for provider error
    /// bodies, which we quote to the operator and which could echo the key).
    pub fn scrub(&self, text: &str) -> String {
        // Very short "keys" (placeholders like "x") would mangle ordinary words and
        // are not secrets anyway.
        if self.0.len() < 6 {
            return text.to_string();
        }
        text.replace(&self.0, "***")
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_never_formats() {
        let s = Secret::new("sk-very-secret-123");
        assert_eq!(format!("{s:?}"), "***");
        assert_eq!(format!("{s}"), "***");
        assert_eq!(format!("{:?}", Some(s.clone())), "Some(***)");
        assert_eq!(s.expose(), "sk-very-secret-123");
    }

    #[test]
    fn scrub_removes_key() {
        let s = Secret::new("sk-very-secret-123");
        assert_eq!(s.scrub("bad key sk-very-secret-123!"), "bad key ***!");
        assert_eq!(Secret::new("x").scrub("x marks"), "x marks");
    }
}
