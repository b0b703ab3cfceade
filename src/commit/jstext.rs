//! Byte-exact JSON handling for writes.
//!
//! A strict JSON parser (what `JSON.parse` accepts) that keeps every value's byte span,
//! numbers as their original text, and strings as their raw escaped text, plus a
//! formatter that writes what `JSON.stringify(value, null, 2)` would write at a given
//! depth. Why not serde_json: it would turn `1795234943664.0`-like floats into a
//! different text, and it rejects lone UTF-16 surrogate escapes (`"\ud83d"`), which
//! `JSON.parse` accepts and OpenClaw can write (it truncates error strings by UTF-16
//! units). We must never refuse, or alter, a field we do not touch.

use std::ops::Range;

/// Deep enough for any real store; protects the stack from hostile input.
const MAX_DEPTH: usize = 512;

#[derive(Debug, Clone)]
pub(crate) struct Node<'a> {
    pub kind: Kind<'a>,
    /// Byte span of the value in the parsed text.
    pub span: Range<usize>,
}

#[derive(Debug, Clone)]
pub(crate) enum Kind<'a> {
    Null,
    Bool(bool),
    /// Original number text, validated against the JSON grammar.
    Number(&'a str),
    /// Raw text between the quotes (escapes not decoded), validated.
    Str(&'a str),
    Array(Vec<Node<'a>>),
    /// Members in file order; keys as raw text between the quotes.
    Object(Vec<(&'a str, Node<'a>)>),
}

#[derive(Debug)]
pub(crate) struct ParseError {
    pub offset: usize,
    pub msg: &'static str,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid JSON at byte {}: {}", self.offset, self.msg)
    }
}

/// Parse a complete JSON text (surrounding JSON whitespace allowed, nothing else).
pub(crate) fn parse(text: &str) -> Result<Node<'_>, ParseError> {
    let mut p = Parser {
        s: text,
        b: text.as_bytes(),
        i: 0,
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i != p.b.len() {
        return Err(p.err("unexpected data after the JSON value"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, msg: &'static str) -> ParseError {
        ParseError {
            offset: self.i,
            msg,
        }
    }

    fn ws(&mut self) {
        while let Some(c) = self.b.get(self.i) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn lit(&mut self, word: &'static [u8]) -> Result<(), ParseError> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(self.err("invalid literal"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node<'a>, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        let start = self.i;
        let kind = match self.b.get(self.i) {
            None => return Err(self.err("unexpected end of input")),
            Some(b'n') => {
                self.lit(b"null")?;
                Kind::Null
            }
            Some(b't') => {
                self.lit(b"true")?;
                Kind::Bool(true)
            }
            Some(b'f') => {
                self.lit(b"false")?;
                Kind::Bool(false)
            }
            Some(b'"') => Kind::Str(self.string()?),
            Some(b'-' | b'0'..=b'9') => Kind::Number(self.number()?),
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        items.push(self.value(depth + 1)?);
                        self.ws();
                        match self.b.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                break;
                            }
                            _ => return Err(self.err("expected ',' or ']'")),
                        }
                    }
                }
                Kind::Array(items)
            }
            Some(b'{') => {
                self.i += 1;
                let mut members = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        if self.b.get(self.i) != Some(&b'"') {
                            return Err(self.err("expected a string key"));
                        }
                        let key = self.string()?;
                        self.ws();
                        if self.b.get(self.i) != Some(&b':') {
                            return Err(self.err("expected ':'"));
                        }
                        self.i += 1;
                        self.ws();
                        let v = self.value(depth + 1)?;
                        members.push((key, v));
                        self.ws();
                        match self.b.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                break;
                            }
                            _ => return Err(self.err("expected ',' or '}'")),
                        }
                    }
                }
                Kind::Object(members)
            }
            Some(_) => return Err(self.err("unexpected character")),
        };
        Ok(Node {
            kind,
            span: start..self.i,
        })
    }

    /// At an opening quote; returns the raw contents.
    fn string(&mut self) -> Result<&'a str, ParseError> {
        self.i += 1;
        let start = self.i;
        loop {
            match self.b.get(self.i) {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => {
                    let raw = &self.s[start..self.i];
                    self.i += 1;
                    return Ok(raw);
                }
                Some(b'\\') => {
                    self.i += 1;
                    match self.b.get(self.i) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 1,
                        Some(b'u') => {
                            let hex = self.b.get(self.i + 1..self.i + 5);
                            match hex {
                                Some(h) if h.iter().all(u8::is_ascii_hexdigit) => self.i += 5,
                                _ => return Err(self.err("invalid \\u escape")),
                            }
                        }
                        _ => return Err(self.err("invalid escape")),
                    }
                }
                Some(c) if *c < 0x20 => return Err(self.err("raw control character in string")),
                Some(_) => self.i += 1,
            }
        }
    }

    fn number(&mut self) -> Result<&'a str, ParseError> {
        let start = self.i;
        if self.b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.b.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.err("invalid number")),
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if !self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
                return Err(self.err("invalid number fraction"));
            }
            self.digits();
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
                return Err(self.err("invalid number exponent"));
            }
            self.digits();
        }
        Ok(&self.s[start..self.i])
    }

    fn digits(&mut self) {
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
    }
}

/// Decode a validated raw string body into UTF-16 code units (lone surrogates kept).
pub(crate) fn decode_units(raw: &str) -> Vec<u16> {
    let mut out = Vec::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u16; 2];
            out.extend_from_slice(c.encode_utf16(&mut buf));
            continue;
        }
        match chars.next() {
            Some('b') => out.push(0x08),
            Some('f') => out.push(0x0c),
            Some('n') => out.push(0x0a),
            Some('r') => out.push(0x0d),
            Some('t') => out.push(0x09),
            Some('u') => {
                let mut v: u16 = 0;
                for _ in 0..4 {
                    let d = chars.next().and_then(|h| h.to_digit(16)).unwrap_or(0);
                    v = (v << 4) | d as u16;
                }
                out.push(v);
            }
            Some(other) => {
                // '"', '\\', '/'
                let mut buf = [0u16; 2];
                out.extend_from_slice(other.encode_utf16(&mut buf));
            }
            None => {}
        }
    }
    out
}

/// Whether a raw key decodes to `key`.
pub(crate) fn raw_eq(raw: &str, key: &str) -> bool {
    if !raw.contains('\\') {
        return raw == key;
    }
    decode_units(raw).iter().copied().eq(key.encode_utf16())
}

/// Lossy decode for read-only inspection (lone surrogates become U+FFFD).
pub(crate) fn decode_lossy(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_string();
    }
    String::from_utf16_lossy(&decode_units(raw))
}

/// Write UTF-16 units as a JSON string literal the way `JSON.stringify` does:
/// `"` `\` and `\b\f\n\r\t` escaped, other C0 controls as lowercase `\u00xx`, lone
/// surrogates as lowercase `\udxxx`, everything else raw (non-ASCII, `/`, U+2028).
pub(crate) fn quote_units(out: &mut String, units: &[u16]) {
    out.push('"');
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Ok(c) => push_char_escaped(out, c),
            Err(e) => {
                out.push_str(&format!("\\u{:04x}", e.unpaired_surrogate()));
            }
        }
    }
    out.push('"');
}

/// Raw string body → canonical `JSON.stringify` literal. Fast path: a body with no
/// escapes and no characters that need one is already canonical.
pub(crate) fn quote_raw(out: &mut String, raw: &str) {
    if !raw.bytes().any(|b| b == b'\\') {
        // The parser rejected raw controls, so nothing needs escaping.
        out.push('"');
        out.push_str(raw);
        out.push('"');
    } else {
        quote_units(out, &decode_units(raw));
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// `JSON.stringify(node, null, 2)` text of a parsed value nested at `depth`
/// (the first line is not indented; inner lines are). Numbers keep their text.
pub(crate) fn write_node(out: &mut String, node: &Node<'_>, depth: usize) {
    match &node.kind {
        Kind::Null => out.push_str("null"),
        Kind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Kind::Number(n) => out.push_str(n),
        Kind::Str(raw) => quote_raw(out, raw),
        Kind::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(out, depth + 1);
                write_node(out, item, depth + 1);
            }
            out.push('\n');
            indent(out, depth);
            out.push(']');
        }
        Kind::Object(members) => {
            // JSON.parse semantics for duplicate keys: first position, last value.
            let members = dedup_members(members);
            if members.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push_str("{\n");
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(out, depth + 1);
                quote_raw(out, k);
                out.push_str(": ");
                write_node(out, v, depth + 1);
            }
            out.push('\n');
            indent(out, depth);
            out.push('}');
        }
    }
}

/// Members with JS duplicate-key semantics applied (first position, last value).
pub(crate) fn dedup_members<'n, 'a>(
    members: &'n [(&'a str, Node<'a>)],
) -> Vec<(&'a str, &'n Node<'a>)> {
    let mut out: Vec<(&'a str, &'n Node<'a>)> = Vec::with_capacity(members.len());
    let mut keys: Vec<Vec<u16>> = Vec::new();
    let needs_check = members.len() > 1;
    for (k, v) in members {
        if needs_check {
            let units = decode_units(k);
            if let Some(pos) = keys.iter().position(|u| *u == units) {
                out[pos].1 = v;
                continue;
            }
            keys.push(units);
        }
        out.push((*k, v));
    }
    out
}

/// `JSON.stringify(value, null, 2)` text of a serde_json value nested at `depth`.
pub(crate) fn write_value(out: &mut String, v: &serde_json::Value, depth: usize) {
    use serde_json::Value;
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => quote_str(out, s),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(out, depth + 1);
                write_value(out, item, depth + 1);
            }
            out.push('\n');
            indent(out, depth);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push_str("{\n");
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(out, depth + 1);
                quote_str(out, k);
                out.push_str(": ");
                write_value(out, v, depth + 1);
            }
            out.push('\n');
            indent(out, depth);
            out.push('}');
        }
    }
}

use crate::jsjson::{
    write_char_escaped as push_char_escaped, write_number, write_string as quote_str,
};

/// Lossy serde_json view of a parsed value, for callers' read-only checks.
pub(crate) fn to_serde(node: &Node<'_>) -> serde_json::Value {
    use serde_json::Value;
    match &node.kind {
        Kind::Null => Value::Null,
        Kind::Bool(b) => Value::Bool(*b),
        Kind::Number(n) => serde_json::from_str::<serde_json::Number>(n)
            .map(Value::Number)
            .or_else(|_| {
                n.parse::<f64>()
                    .map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number))
            })
            .unwrap_or(Value::Null),
        Kind::Str(raw) => Value::String(decode_lossy(raw)),
        Kind::Array(items) => Value::Array(items.iter().map(to_serde).collect()),
        Kind::Object(members) => {
            let mut m = serde_json::Map::new();
            for (k, v) in members {
                m.insert(decode_lossy(k), to_serde(v));
            }
            Value::Object(m)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(text: &str, depth: usize) -> String {
        let n = parse(text).expect("parse");
        let mut s = String::new();
        write_node(&mut s, &n, depth);
        s
    }

    #[test]
    fn rejects_invalid_json() {
        for bad in [
            "",
            "{",
            "{\"a\":}",
            "[1,]",
            "{\"a\":1,}",
            "01",
            "1.",
            "-",
            "\"\u{1}\"",
            "\"\\x\"",
            "nul",
            "{} x",
            "\u{feff}{}",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn accepts_lone_surrogates_and_keeps_them() {
        let s = fmt(
            r#"{"e":"cut \ud83d","ok":"\ud83d\ude00 \u00e9 \u001F \/"}"#,
            0,
        );
        assert_eq!(
            s,
            "{\n  \"e\": \"cut \\ud83d\",\n  \"ok\": \"😀 é \\u001f /\"\n}"
        );
    }

    #[test]
    fn numbers_keep_their_text() {
        assert_eq!(
            fmt("[1795234943664, 1.50, 1e3, -0.0]", 0),
            "[\n  1795234943664,\n  1.50,\n  1e3,\n  -0.0\n]"
        );
    }

    #[test]
    fn nested_formatting_matches_stringify() {
        let s = fmt(r#"{"a":{"b":[],"c":{},"d":[{"x":null}]}}"#, 1);
        assert_eq!(
            s,
            "{\n    \"a\": {\n      \"b\": [],\n      \"c\": {},\n      \"d\": [\n        {\n          \"x\": null\n        }\n      ]\n    }\n  }"
        );
    }

    #[test]
    fn duplicate_keys_follow_json_parse() {
        assert_eq!(
            fmt(r#"{"a":1,"b":2,"a":3}"#, 0),
            "{\n  \"a\": 3,\n  \"b\": 2\n}"
        );
    }

    #[test]
    fn js_number_matches_ecmascript() {
        let cases = [
            (0.1, "0.1"),
            (5.0, "5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (-2.5, "-2.5"),
            (123456.789, "123456.789"),
            (1795234943664.0, "1795234943664"),
        ];
        for (f, want) in cases {
            assert_eq!(crate::jsjson::js_number(f), want, "{f}");
        }
    }

    #[test]
    fn serde_values_format_like_stringify() {
        let v = serde_json::json!({"s": "a\"b\\c\n\u{7}é", "n": 1.0, "arr": [1, {"k": []}]});
        let mut s = String::new();
        write_value(&mut s, &v, 1);
        assert_eq!(
            s,
            "{\n    \"s\": \"a\\\"b\\\\c\\n\\u0007é\",\n    \"n\": 1,\n    \"arr\": [\n      1,\n      {\n        \"k\": []\n      }\n    ]\n  }"
        );
    }
}
