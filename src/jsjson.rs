//! JavaScript-compatible string and JSON arithmetic.
//!
//! pi measures text with `String.prototype.length` (UTF-16 code units), serializes tool-call
//! arguments with `JSON.stringify` and sorts file lists with the default (UTF-16) sort. Token
//! figures only match pi's when these are reproduced exactly, so they live here in one place.

use serde_json::Value;
use std::cmp::Ordering;
use std::fmt::Write as _;

/// Length of `s` as JavaScript counts it (UTF-16 code units).
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    // Every character has one byte that is not a continuation byte (10xxxxxx), and those
    // outside the BMP (the 4-byte ones, lead 11110xxx) take a second unit: counted byte by
    // byte, which the compiler vectorizes, instead of decoding each character.
    s.bytes()
        .map(|b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// `Math.ceil(chars / 4)`.
pub fn ceil_div4(chars: usize) -> u64 {
    (chars as u64).div_ceil(4)
}

/// Orders strings the way `Array.prototype.sort()` without a comparator does.
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Sorts in JavaScript's default order.
pub fn sort_js(v: &mut [String]) {
    v.sort_by(|a, b| cmp_utf16(a, b));
}

/// `JSON.stringify(value)` (compact, insertion key order, JS escaping and number format).
pub fn stringify(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v);
    out
}

/// Length in UTF-16 units of `JSON.stringify(value)`, without building the string when it
/// can be avoided.
pub fn stringify_len(v: &Value) -> usize {
    utf16_len(&stringify(v))
}

fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, x);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_value(out, x);
            }
            out.push('}');
        }
    }
}

/// JSON string literal with `JSON.stringify` escaping (non-ASCII left raw).
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        write_char_escaped(out, c);
    }
    out.push('"');
}

/// One character of a JSON string body as `JSON.stringify` writes it.
pub fn write_char_escaped(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x20 => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
        c => out.push(c),
    }
}

/// A number as `JSON.stringify` writes it.
pub fn write_number(out: &mut String, n: &serde_json::Number) {
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else if let Some(f) = n.as_f64() {
        out.push_str(&js_number(f));
    } else {
        out.push_str("null");
    }
}

/// `Number.prototype.toString()` for a finite double.
pub fn js_number(f: f64) -> String {
    if !f.is_finite() {
        return "null".into();
    }
    if f == 0.0 {
        return "0".into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, as JS does; only the layout differs.
    let sci = format!("{:e}", f.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let k = digits.len() as i32;
    let n = exp + 1; // position of the decimal point relative to the digits
    let mut s = String::new();
    if f < 0.0 {
        s.push('-');
    }
    if k <= n && n <= 21 {
        s.push_str(&digits);
        for _ in 0..(n - k) {
            s.push('0');
        }
    } else if 0 < n && n <= 21 {
        s.push_str(&digits[..n as usize]);
        s.push('.');
        s.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        s.push_str("0.");
        for _ in 0..(-n) {
            s.push('0');
        }
        s.push_str(&digits);
    } else {
        s.push_str(&digits[..1]);
        if k > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('e');
        s.push(if n > 0 { '+' } else { '-' });
        let _ = write!(s, "{}", (n - 1).abs());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn utf16_counts_surrogate_pairs() {
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("😀"), 2);
        for s in [
            "aé😀€\u{10FFFF}\u{7FF}\u{800}\u{FFFF}\u{10000}",
            "ab😀c\u{2028}",
        ] {
            assert_eq!(utf16_len(s), s.encode_utf16().count(), "{s}");
        }
    }

    #[test]
    fn numbers_format_like_js() {
        assert_eq!(js_number(1.5), "1.5");
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(1e20), "100000000000000000000");
        assert_eq!(js_number(1e-7), "1e-7");
        assert_eq!(js_number(0.000001), "0.000001");
        assert_eq!(js_number(-2.5e-8), "-2.5e-8");
        assert_eq!(js_number(123.456), "123.456");
        assert_eq!(js_number(1.0), "1");
    }

    #[test]
    fn stringify_matches_js() {
        let v: Value =
            serde_json::from_str(r#"{"b":1,"a":[1.5,"x\u0001\"é😀",null,true],"c":{"d":1.0}}"#)
                .unwrap();
        assert_eq!(
            stringify(&v),
            "{\"b\":1,\"a\":[1.5,\"x\\u0001\\\"é😀\",null,true],\"c\":{\"d\":1}}"
        );
        assert_eq!(
            stringify(&json!({"path": "foo.ts", "offset": 10})),
            r#"{"path":"foo.ts","offset":10}"#
        );
    }

    #[test]
    fn js_sort_uses_utf16_order() {
        // In UTF-8 byte order U+FF5E comes first; in UTF-16 order the surrogate pair does.
        let mut v = vec!["\u{1F600}".to_string(), "\u{FF5E}".to_string()];
        sort_js(&mut v);
        assert_eq!(v, vec!["\u{1F600}".to_string(), "\u{FF5E}".to_string()]);
    }
}
