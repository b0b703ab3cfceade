//! The patched serde_json (vendor/README.md) against the JSON grammar, where the patch could
//! change an answer: a string's end, escape or control character found 16 and 32 bytes at a
//! time.
//! Strings of every length across two strides, with one byte of interest at every position,
//! at several offsets into the text, are parsed into a `String`, a `Value` and a `&RawValue`
//! and skipped as `IgnoredAny`; each answer, and each error's text and column, is what the
//! grammar gives. The crate's 8-byte loop passes it too: the test holds the patch to it.

use serde::de::IgnoredAny;
use serde_json::value::RawValue;

/// What goes at the position of interest: its JSON text and what it decodes to (None: a
/// raw control character, which no string may hold).
fn specials() -> Vec<(&'static str, Option<&'static str>)> {
    vec![
        ("\\\"", Some("\"")),
        ("\\\\", Some("\\")),
        ("\\n", Some("\n")),
        ("\\u00e9", Some("é")),
        ("\\ud83d\\ude00", Some("😀")),
        ("é", Some("é")),
        ("€", Some("€")),
        ("😀", Some("😀")),
        ("\u{7f}", Some("\u{7f}")),
        (" ", Some(" ")),
        ("!", Some("!")),
        ("\u{1}", None),
        ("\u{1f}", None),
        ("\t", None),
        ("\u{0}", None),
    ]
}

/// Plain text whose bytes are neither quote, backslash nor control: ASCII and multi-byte
/// characters, so bytes above 0x7f (which a signed comparison would take for control
/// characters) fill whole strides.
fn filler(len: usize, seed: usize) -> String {
    let pieces = ["a", "Z", "~", "ß", "€", " ", "0"];
    let mut s = String::new();
    let mut k = seed;
    while s.len() < len {
        let p = pieces[k % pieces.len()];
        if s.len() + p.len() > len {
            s.push('x');
        } else {
            s.push_str(p);
        }
        k = k.wrapping_mul(31).wrapping_add(7);
    }
    s
}

#[test]
fn strings_read_as_the_grammar_says_across_the_stride() {
    let mut checked = 0;
    for (special, decoded) in specials() {
        for before in 0..70 {
            for after in [0, 1, 5, 31, 32, 33, 64] {
                for prefix in [
                    "",
                    "[",
                    "{\"k\":",
                    "[1,2,\"abcdefghijklmnopqrstuvwxyz0123\",",
                ] {
                    let head = filler(before, before + after);
                    let tail = filler(after, before * 3 + after);
                    let literal = format!("\"{head}{special}{tail}\"");
                    let closing = match prefix {
                        "" => "",
                        "{\"k\":" => "}",
                        _ => "]",
                    };
                    let text = format!("{prefix}{literal}{closing}");
                    check(
                        &text,
                        prefix,
                        &literal,
                        decoded.map(|d| format!("{head}{d}{tail}")),
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

fn check(text: &str, prefix: &str, literal: &str, decoded: Option<String>) {
    let ignored = serde_json::from_str::<IgnoredAny>(text);
    let value = serde_json::from_str::<serde_json::Value>(text);
    let raw = serde_json::from_str::<Box<RawValue>>(text);
    let bytes = serde_json::from_slice::<IgnoredAny>(text.as_bytes());
    match decoded {
        Some(want) => {
            assert!(ignored.is_ok(), "{text:?}: {ignored:?}");
            assert!(bytes.is_ok(), "{text:?}: {bytes:?}");
            assert_eq!(raw.expect(text).get(), text);
            let value = value.expect(text);
            let got = match (prefix, &value) {
                ("", serde_json::Value::String(s)) => s.clone(),
                ("{\"k\":", v) => v["k"].as_str().expect(text).to_string(),
                (_, serde_json::Value::Array(a)) => {
                    a.last().and_then(|v| v.as_str()).expect(text).to_string()
                }
                _ => panic!("{text:?}: {value:?}"),
            };
            assert_eq!(got, want, "{text:?}");
            if prefix.is_empty() {
                assert_eq!(serde_json::from_str::<String>(text).expect(text), want);
            }
        }
        None => {
            // The control character is the first byte of its kind in the text. serde_json
            // 1.0.154 names its offset when skipping or keeping a string raw, and the offset
            // past it when decoding one (as the unpatched crate does: checked by hand).
            let at = prefix.len()
                + literal
                    .bytes()
                    .skip(1)
                    .position(|c| c < 0x20)
                    .expect(literal)
                + 1;
            let want = |column: usize| {
                format!(
                    "control character (\\u0000-\\u001F) found while parsing a string at line 1 column {column}"
                )
            };
            for (e, column) in [
                (ignored.map(|_| ()).unwrap_err(), at),
                (bytes.map(|_| ()).unwrap_err(), at),
                (raw.map(|_| ()).unwrap_err(), at),
                (value.map(|_| ()).unwrap_err(), at + 1),
            ] {
                assert_eq!(e.to_string(), want(column), "{text:?}");
            }
        }
    }
}
