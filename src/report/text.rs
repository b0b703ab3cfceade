//! Small text helpers for plain-ASCII tables.

use unicode_width::UnicodeWidthStr;

/// A token count as OpenClaw writes it ([`crate::format::tokens`]).
pub fn compact_number(n: u64) -> String {
    crate::format::tokens(n)
}

/// Age of an epoch-ms timestamp relative to `now_ms` ([`crate::format::age`]); `-` if unknown.
pub fn age(updated_at_ms: Option<i64>, now_ms: i64) -> String {
    crate::format::age(now_ms, updated_at_ms).unwrap_or_else(|| "-".into())
}

/// Display width (sanitized text only).
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Shortens `s` to `max` columns by replacing its middle with `..` (session keys keep their
/// distinctive start and end).
pub fn shorten_middle(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    // `..`, not `~`: `~` already marks a figure from the transcript (`~17k`), and the table
    // stays plain ASCII (the TUI shortens with `…`).
    if max <= 2 {
        return ".".repeat(max);
    }
    let chars: Vec<char> = s.chars().collect();
    let keep = max - 2;
    let head = keep.div_ceil(2);
    let tail = keep - head;
    let mut out: String = String::new();
    let mut w = 0;
    for &c in &chars {
        let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if w + cw > head {
            break;
        }
        out.push(c);
        w += cw;
    }
    let mut back = Vec::new();
    let mut w2 = 0;
    for &c in chars.iter().rev() {
        let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if w2 + cw > tail {
            break;
        }
        back.push(c);
        w2 += cw;
    }
    out.push_str("..");
    out.extend(back.into_iter().rev());
    out
}

/// Left-aligned cell of exactly `w` columns (shortened from the middle when too long).
pub fn cell(s: &str, w: usize) -> String {
    let s = shorten_middle(s, w);
    let pad = w.saturating_sub(width(&s));
    format!("{s}{}", " ".repeat(pad))
}

/// `s` whole, padded to `w` when shorter.
pub fn pad(s: &str, w: usize) -> String {
    let pad = w.saturating_sub(width(s));
    format!("{s}{}", " ".repeat(pad))
}

/// Right-aligned cell.
pub fn rcell(s: &str, w: usize) -> String {
    let s = shorten_middle(s, w);
    let pad = w.saturating_sub(width(&s));
    format!("{}{s}", " ".repeat(pad))
}

/// ASCII-only rendering for the list table (keys and models may be any Unicode; the
/// table promises plain ASCII so it lines up in every terminal and log).
pub fn ascii(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_ages() {
        assert_eq!(compact_number(950), "950");
        assert_eq!(compact_number(9500), "9.5k");
        // OpenClaw's rounding (was 75k and 1.0M: floored, upper-case M).
        assert_eq!(compact_number(75943), "76k");
        assert_eq!(compact_number(1_048_576), "1.0m");
        assert_eq!(age(Some(1000), 61_000), "1m");
        assert_eq!(age(None, 0), "-");
        assert_eq!(age(Some(10_000), 0), "now");
    }

    #[test]
    fn shorten() {
        assert_eq!(
            shorten_middle("agent:main:telegram:direct:12345", 12),
            "agent..12345"
        );
        assert_eq!(
            width(&shorten_middle("agent:main:telegram:direct:12345", 12)),
            12
        );
        assert_eq!(cell("ab", 4), "ab  ");
        assert_eq!(rcell("ab", 4), "  ab");
    }
}
