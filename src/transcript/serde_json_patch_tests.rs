//! The patched serde_json (vendor/README.md) against the JSON grammar, where the patch could
//! change an answer: a string's end, escape or control character found 16 and 32 bytes at a
//! time.
//! Strings of every length across two strides, with one byte of interest at every position,
//! at several offsets into the text, are parsed into a `String`, a `Value` and a `&RawValue`
//! and skipped as `IgnoredAny`; each answer, and each error's text and column, is what the
//! grammar gives. The crate's 8-byte loop passes it too: the test holds the patch to it.
//! And a value skipped in one loop (the third patch) against the crate's own skip, switched
//! off for the comparison: where each skip ends and each error, over the grammar, broken
//! copies of it and real transcript lines.

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

/// Every way of skipping a value, each as an answer to compare: the text kept raw (where the
/// skip ended), or the error with its line and column.
fn skips(text: &[u8]) -> Vec<String> {
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Keep {
        keep: u8,
    }
    fn show<T: std::fmt::Debug>(r: Result<T, serde_json::Error>) -> String {
        match r {
            Ok(v) => format!("ok {v:?}"),
            Err(e) => format!("err {e}"),
        }
    }
    let mut out = vec![
        show(serde_json::from_slice::<IgnoredAny>(text)),
        show(serde_json::from_slice::<&RawValue>(text).map(|r| r.get().to_string())),
    ];
    let mut inside = b"[ ".to_vec();
    inside.extend_from_slice(text);
    inside.extend_from_slice(b" ,7]");
    out.push(show(serde_json::from_slice::<Vec<&RawValue>>(&inside).map(
        |v| v.iter().map(|r| r.get().to_string()).collect::<Vec<_>>(),
    )));
    let mut field = br#"{"skip": "#.to_vec();
    field.extend_from_slice(text);
    field.extend_from_slice(br#" , "keep":1}"#);
    out.push(show(serde_json::from_slice::<Keep>(&field)));
    if let Ok(s) = std::str::from_utf8(text) {
        out.push(show(serde_json::from_str::<IgnoredAny>(s)));
        out.push(show(
            serde_json::from_str::<&RawValue>(s).map(|r| r.get().to_string()),
        ));
        out.push(show(serde_json::from_reader::<_, IgnoredAny>(text)));
    }
    out
}

/// Valid values covering the grammar: every token, escapes, numbers of every shape,
/// whitespace everywhere, nesting at and past the skip loop's 128 levels.
fn grammar_samples() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = [
        r#"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
        " \n\t\r{ \"k\" : [ 1 , -2 , 3.25 , -0.5e-3 , 4E+2 , 0 , -0 , 0.0 , 1e9 ] } ",
        r#"["\"","\\","\/","\b","\f","\n","\r","\t","\u00e9","\uD83D\uDE00","\ud800","\uABCD"]"#,
        r#"{"":"","x":{},"y":[],"z":[{},[],[[]],{"q":{}}]}"#,
        r#""plain text, long enough to cross the sixteen and thirty-two byte strides, é € 😀""#,
        "123456789012345678901234567890",
        "-12.5E-7",
        "true",
        "null",
        r#"{"systemPromptReport":{"chars":5313,"files":[{"name":"AGENTS.md","chars":1200,"missing":false}],"tools":{"count":12,"schemaChars":2048}}}"#,
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    for depth in [1, 127, 128, 129, 200] {
        let mut s = "[".repeat(depth);
        s += "{\"a\":1}";
        s += &"]".repeat(depth);
        v.push(s.into_bytes());
        let mut s = "{\"k\":".repeat(depth);
        s += "0";
        s += &"}".repeat(depth);
        v.push(s.into_bytes());
    }
    v
}

/// The skip loop (vendor/serde_json/src/read_skip.rs) against the crate's own
/// `ignore_value`: every sample, every prefix of it, and every byte of it replaced by each
/// byte that changes its meaning, skipped every way ([`skips`]) with the loop on and off. The
/// answers must be equal: where the skip ends, and each error's text, line and column.
#[test]
#[cfg(target_arch = "x86_64")]
fn values_skip_as_the_crate_skips_them() {
    use std::sync::atomic::Ordering;
    let answers = |text: &[u8]| {
        serde_json::read_skip::FAST_SKIP.store(false, Ordering::Relaxed);
        let slow = skips(text);
        serde_json::read_skip::FAST_SKIP.store(true, Ordering::Relaxed);
        (slow, skips(text))
    };
    let replacements: &[u8] = b"\"\\,:{}[] \n0-+.eExnu\x01\x1f\x7f";
    let mut texts: Vec<Vec<u8>> = Vec::new();
    for s in grammar_samples() {
        // The deep samples are long: their ends whole, their middles at a stride.
        let n = s.len();
        for k in (0..n).filter(|&k| n <= 200 || k < 40 || k + 40 >= n || k % 13 == 0) {
            texts.push(s[..k].to_vec());
            for &b in replacements {
                let mut m = s.clone();
                m[k] = b;
                texts.push(m);
            }
            let mut m = s.clone();
            m.insert(k, b' ');
            texts.push(m);
        }
        texts.push(s);
    }
    // Real rows and entries: every line of the fixture transcripts.
    let mut lines = 0;
    for p in super::fixture_transcripts() {
        let bytes = std::fs::read(&p).unwrap();
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            texts.push(line.to_vec());
            lines += 1;
        }
    }
    assert!(lines > 100, "fixture lines read: {lines}");
    let (mut ok, mut err) = (0, 0);
    for t in &texts {
        let (slow, fast) = answers(t);
        assert_eq!(slow, fast, "{:?}", String::from_utf8_lossy(t));
        if slow[0].starts_with("ok") {
            ok += 1;
        } else {
            err += 1;
        }
    }
    // Both kinds are there in numbers: the comparison means something either way.
    assert!(ok > 1000 && err > 10000, "ok {ok}, err {err}");
}
