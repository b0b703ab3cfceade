//! The operator's instructions: the focus text a summary or a flush is asked with (the CLI's
//! `--instructions`, the TUI editor, the config's `compaction.customInstructions`, the
//! `/compact <instructions>` sent to OpenClaw's Gateway).
//!
//! One rule, owned here: instructions are trimmed, and blank text is no instructions (a blank
//! `customInstructions` never reaches the model, and typing only spaces asks for none). Every
//! layer that takes instructions holds an [`Instructions`], which can only be made through
//! that rule, so no caller trims or tests for blank text again. OpenClaw's Gateway counts
//! its 800-character cap on the trimmed text in code points ([`Instructions::within_cap`]).

use std::fmt;

/// Trimmed, never blank focus text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instructions(String);

impl Instructions {
    /// The trimmed text; `None` when it is blank.
    pub fn new(text: &str) -> Option<Instructions> {
        let t = text.trim();
        (!t.is_empty()).then(|| Instructions(t.to_string()))
    }

    /// What the operator gave, else the config's default. Giving blank text asks for none: it
    /// does not fall back to the default (an operator who clears the editor means it).
    pub fn given_or_default(given: Option<&str>, default: Option<&str>) -> Option<Instructions> {
        match given {
            Some(text) => Instructions::new(text),
            None => default.and_then(Instructions::new),
        }
    }

    /// [`Instructions::new`] on optional text.
    pub fn from_opt(text: Option<&str>) -> Option<Instructions> {
        text.and_then(Instructions::new)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Length in code points, as OpenClaw counts its cap.
    pub fn chars(&self) -> usize {
        self.0.chars().count()
    }

    /// The text when it is at most `cap` code points; else its length.
    pub fn within_cap(&self, cap: usize) -> Result<&str, usize> {
        match self.chars() {
            n if n > cap => Err(n),
            _ => Ok(&self.0),
        }
    }

    /// These instructions followed by `more` (a paragraph apart).
    pub fn then(&self, more: &str) -> Instructions {
        Instructions::new(&format!("{}\n\n{more}", self.0)).unwrap_or_else(|| self.clone())
    }
}

impl From<Instructions> for String {
    fn from(i: Instructions) -> String {
        i.0
    }
}

impl fmt::Display for Instructions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimmed_and_never_blank() {
        assert_eq!(Instructions::new("  focus \n").unwrap().as_str(), "focus");
        assert_eq!(Instructions::new(" \n\t "), None);
        assert_eq!(Instructions::from_opt(None), None);
    }

    #[test]
    fn blank_given_text_does_not_fall_back_to_the_default() {
        let d = Some("config default");
        assert_eq!(Instructions::given_or_default(Some("   "), d), None);
        assert_eq!(
            Instructions::given_or_default(None, d).unwrap().as_str(),
            "config default"
        );
        assert_eq!(Instructions::given_or_default(None, Some("  ")), None);
        assert_eq!(
            Instructions::given_or_default(Some(" mine "), d)
                .unwrap()
                .as_str(),
            "mine"
        );
    }

    #[test]
    fn the_cap_counts_code_points_of_the_trimmed_text() {
        let ok = Instructions::new(&format!("  {}  ", "é".repeat(800))).unwrap();
        assert_eq!(ok.within_cap(800).unwrap().chars().count(), 800);
        let long = Instructions::new(&"x".repeat(801)).unwrap();
        assert_eq!(long.within_cap(800), Err(801));
    }
}
