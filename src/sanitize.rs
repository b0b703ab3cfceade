//! Neutralises untrusted text before it reaches a terminal.
//!
//! Transcript content is written by models and tools; an escape sequence in it could recolour
//! the screen, move the cursor, set the window title or (OSC 52) write the operator's
//! clipboard. Every C0/C1 control, DEL and ESC becomes a visible placeholder instead.

/// Text that will be committed (a summary, flush notes), cleaned the same way on every
/// front-end: `\n` stays, `\t` becomes four spaces, `\r`, ESC, every other C0/C1 control, DEL
/// and the bidi overrides are dropped. Dropped, not the visible stand-ins of [`one_line`],
/// because this text is written to the operator's files; the use case applies it at commit,
/// and the TUI before its editable preview, so a TUI and a CLI commit of the same text write
/// the same bytes.
pub fn committable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push_str("    "),
            c if (c as u32) < 0x20 || c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c) => {}
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
            c => out.push(c),
        }
    }
    out
}

/// Replaces control characters with visible stand-ins. `keep_newlines` keeps `\n` (and maps
/// `\t` to spaces) for multi-line views; single-line views get `⏎` for newlines.
pub fn for_terminal(s: &str, keep_newlines: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' if keep_newlines => out.push('\n'),
            '\n' => out.push('⏎'),
            '\t' => out.push_str("    "),
            '\r' => {}
            '\u{1b}' => out.push('␛'),
            c if (c as u32) < 0x20 => {
                // Control Pictures block: U+2400 + code.
                out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?'));
            }
            '\u{7f}' => out.push('␡'),
            c if ('\u{80}'..='\u{9f}').contains(&c) => out.push('�'),
            // Bidi controls can reorder what the operator reads; zero-width and other
            // invisible format characters can hide text or make two names look the same.
            c if is_invisible_format(c) => out.push('�'),
            c => out.push(c),
        }
    }
    out
}

/// Bidi controls (embeddings, overrides, isolates, marks), zero-width and invisible
/// format characters, and the Unicode line/paragraph separators. Zero-width (non-)joiners
/// (U+200C/U+200D) are left alone: emoji sequences and several scripts need them, and
/// they neither reorder nor hide text.
pub fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{061c}'
            | '\u{180e}'
            | '\u{200b}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
    )
}

/// A character no terminal-bound text may carry as is: a C0 or C1 control, DEL, or an
/// invisible format character ([`is_invisible_format`]). The one test every surface that
/// writes untrusted text its own way (the metrics labels, a provider's error text) applies.
pub fn is_unsafe_for_terminal(c: char) -> bool {
    c.is_control() || is_invisible_format(c)
}

/// Single-line form (for tables and one-line previews).
pub fn one_line(s: &str) -> String {
    for_terminal(s, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_escape_survives() {
        let evil = "a\u{1b}[31mred\u{1b}]52;c;aGVsbG8=\u{7}\u{9b}2J\u{90}x\u{7f}\rz\u{202e}";
        for keep in [true, false] {
            let out = for_terminal(evil, keep);
            assert!(!out.chars().any(|c| c.is_control()), "{out:?}");
            assert!(out.contains("␛[31mred"));
        }
    }

    #[test]
    fn invisible_format_characters_are_shown() {
        let out = one_line("pay\u{200b}pal\u{feff}a\u{2060}b\u{202e}c\u{2066}d\u{200f}e\u{200d}f");
        assert_eq!(out, "pay�pal�a�b�c�d�e\u{200d}f");
    }

    #[test]
    fn newlines_kept_or_marked() {
        assert_eq!(for_terminal("a\nb", true), "a\nb");
        assert_eq!(one_line("a\nb"), "a⏎b");
    }
}
