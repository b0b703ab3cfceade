//! JSON output that is safe to print to a terminal.
//!
//! serde_json escapes C0 controls (ESC included) but writes DEL, C1 controls (U+0080–U+009F,
//! which some terminals honour as CSI/OSC), bidi controls and zero-width characters as raw
//! characters. Transcript
//! text is untrusted, so those are escaped as `\uXXXX` too; the JSON value is unchanged.

use serde::Serialize;
use serde_json::ser::Formatter;
use std::io::{self, Write};

/// serde_json's pretty layout (2-space indent, `": "`, empty `[]` and `{}`), each line's
/// break and indent written in one piece rather than two bytes a level: `list --json` of a
/// host of thousands is megabytes of such lines.
#[derive(Default)]
struct SafeFormatter {
    level: usize,
    has_value: bool,
}

/// A line break and the deepest indent written in one piece.
const BREAK: &[u8; 1 + 2 * 32] =
    b"\n                                                                ";

fn line<W: ?Sized + Write>(w: &mut W, level: usize) -> io::Result<()> {
    match BREAK.get(..1 + 2 * level) {
        Some(b) => w.write_all(b),
        None => {
            w.write_all(b"\n")?;
            (0..level).try_for_each(|_| w.write_all(b"  "))
        }
    }
}

fn must_escape(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}') || crate::sanitize::is_invisible_format(c)
}

impl Formatter for SafeFormatter {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // Nearly every string is printable ASCII: one pass that vectorizes, then one write.
        if fragment.bytes().all(|b| b < 0x7f) {
            return w.write_all(fragment.as_bytes());
        }
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if must_escape(c) {
                w.write_all(&fragment.as_bytes()[start..i])?;
                write!(w, "\\u{:04x}", c as u32)?;
                start = i + c.len_utf8();
            }
        }
        w.write_all(&fragment.as_bytes()[start..])
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b"[")
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            line(w, self.level)?;
        }
        w.write_all(b"]")
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        line(w, self.level)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b"{")
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            line(w, self.level)?;
        }
        w.write_all(b"}")
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        line(w, self.level)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Pretty JSON (2-space indent) with terminal-unsafe characters escaped, plus a newline.
pub fn to_string<T: Serialize>(v: &T) -> String {
    let mut buf = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, SafeFormatter::default());
    if let Err(e) = v.serialize(&mut ser) {
        // Serializing our own structs and decoded JSON cannot fail; keep the output valid anyway.
        return format!("{{\"error\": {:?}}}\n", e.to_string());
    }
    buf.push(b'\n');
    String::from_utf8(buf).unwrap_or_default()
}

/// [`to_string`]'s text written to `w` as it is made: a fleet's answer of 400,000 sessions
/// is never held whole (issue 33, item 8).
pub fn to_writer<T: Serialize, W: Write>(v: &T, mut w: W) -> io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(&mut w, SafeFormatter::default());
    v.serialize(&mut ser).map_err(io::Error::other)?;
    w.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_c1_and_keeps_value() {
        let v = serde_json::json!({"s": "a\u{1b}[31m\u{9b}2J\u{7f}\u{202e}é"});
        let out = super::to_string(&v);
        assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back, v);
    }

    /// The layout is serde_json's own pretty layout, byte for byte, at any depth.
    #[test]
    fn the_layout_is_serde_jsons_pretty_layout() {
        let mut deep = serde_json::json!({"leaf": [1, {"k": []}, {}]});
        for i in 0..40 {
            deep = serde_json::json!({ format!("level{i}"): [deep, [], {}, null, "s", 1.5] });
        }
        for v in [
            deep,
            serde_json::json!([]),
            serde_json::json!({}),
            serde_json::json!([[], [[]], {"a": {}}]),
            serde_json::json!("plain"),
        ] {
            let want = serde_json::to_string_pretty(&v).unwrap() + "\n";
            assert_eq!(super::to_string(&v), want);
            let mut streamed = Vec::new();
            super::to_writer(&v, &mut streamed).unwrap();
            assert_eq!(String::from_utf8(streamed).unwrap(), want);
        }
    }
}
