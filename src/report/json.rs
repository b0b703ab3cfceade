//! JSON output that is safe to print to a terminal.
//!
//! serde_json escapes C0 controls (ESC included) but writes DEL, C1 controls (U+0080–U+009F,
//! which some terminals honour as CSI/OSC), bidi controls and zero-width characters as raw
//! characters. Transcript
//! text is untrusted, so those are escaped as `\uXXXX` too; the JSON value is unchanged.

mod pretty;
#[cfg(test)]
mod reference;

use serde::Serialize;
use std::io::{self, Write};

/// What a terminal must not be handed raw, escaped beyond what JSON escapes.
fn must_escape(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}') || crate::sanitize::is_invisible_format(c)
}

/// Pretty JSON (2-space indent) with terminal-unsafe characters escaped, plus a newline.
pub fn to_string<T: Serialize>(v: &T) -> String {
    let mut buf = Vec::new();
    if let Err(e) = to_writer(v, &mut buf) {
        // Serializing our own structs and decoded JSON cannot fail; keep the output valid anyway.
        return format!("{{\"error\": {:?}}}\n", e.to_string());
    }
    String::from_utf8(buf).unwrap_or_default()
}

/// [`to_string`]'s text written to `w` as it is made: a fleet's answer of 400,000 sessions
/// is never held whole (issue 33, item 8).
pub fn to_writer<T: Serialize, W: Write>(v: &T, mut w: W) -> io::Result<()> {
    let mut ser = pretty::Pretty::new(&mut w);
    v.serialize(&mut ser)?;
    ser.finish()?.write_all(b"\n")
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
