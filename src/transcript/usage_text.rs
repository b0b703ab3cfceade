//! A reply's `usage` read from its text as replies write it, without serde_json.
//!
//! A cold `list` reads the usage of every reply twice from the text the scan kept of it: the
//! cost for what the call spent ([`crate::cost`]) and the history for what it measured
//! ([`crate::tokens::UsageFields`]). Through serde_json a text of 150 bytes cost the first
//! some 4,600 instructions and the second 2,500 (a visitor call, a key match and a `Value`
//! per field, the nested `cost` object again): together about 5 % of a cold list of sessions
//! of 81 rows. Here it is some 1,500. (It lives with the transcript's readers: the kept heads
//! use it too, and the transcript reads nothing of `tokens`.)
//!
//! Replies write one shape: an object of counts (`"input":4560,…`) and one `cost` object of
//! prices (`"cost":{"input":0.01368,…}`), no whitespace, keys without escapes, numbers that
//! are not negative. That shape is read here in one pass over the bytes. Anything else (a
//! string, `null`, an array, a negative number, an escape in a key, whitespace, a second
//! `cost`, an object anywhere else, a number out of `f64`'s range, more digits than a `u64`
//! holds) makes [`read`] answer None, and the caller reads the text through serde_json as
//! before. What it answers is what serde_json gives: an integer is a `u64`, a number with a
//! fraction or an exponent the nearest `f64` (serde_json's `float_roundtrip`, which this
//! build enables, rounds correctly, as `str::parse` does), and a key given twice keeps its
//! last value. [`value`] makes the same text the `Value` serde_json makes of it, for the head
//! of a reply the forecast and `used` read ([`super::Transcript::slim`]). The
//! tests hold both to serde_json on every usage of the fixtures and on texts built to tell
//! them apart.

use serde_json::Value;

/// The fields of a usage text any reader of it reads.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct UsageText {
    pub input: Option<Value>,
    pub output: Option<Value>,
    pub cache_read: Option<Value>,
    pub cache_write: Option<Value>,
    pub total_tokens: Option<Value>,
    /// A usage's own `total` (pi writes none; the cost reads it all the same).
    pub total: Option<Value>,
    pub cost: Cost,
    /// The `cost` object's fields, when [`Self::cost`] is [`Cost::Object`].
    pub prices: Prices,
}

/// What the `cost` key of a usage holds.
#[derive(Debug, Default, PartialEq, Clone, Copy)]
pub(crate) enum Cost {
    #[default]
    Absent,
    /// A number: no prices.
    NotObject,
    /// An object: [`UsageText::prices`].
    Object,
}

/// The fields of a `cost` object its reader reads.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Prices {
    pub input: Option<Value>,
    pub output: Option<Value>,
    pub cache_read: Option<Value>,
    pub cache_write: Option<Value>,
    pub total: Option<Value>,
}

/// `text` read in the shape replies write (module docs); None for any other shape.
pub(crate) fn read(text: &str) -> Option<UsageText> {
    let b = text.as_bytes();
    let mut u = UsageText::default();
    let i = object(b, 0, |b, i, key| {
        if key == b"cost" && b.get(i) == Some(&b'{') {
            if u.cost != Cost::Absent {
                return None;
            }
            let p = &mut u.prices;
            let end = object(b, i, |b, i, key| {
                let (v, end) = number(b, i)?;
                match key {
                    b"input" => p.input = Some(v),
                    b"output" => p.output = Some(v),
                    b"cacheRead" => p.cache_read = Some(v),
                    b"cacheWrite" => p.cache_write = Some(v),
                    b"total" => p.total = Some(v),
                    _ => {}
                }
                Some(end)
            })?;
            u.cost = Cost::Object;
            return Some(end);
        }
        let (v, end) = number(b, i)?;
        match key {
            b"input" => u.input = Some(v),
            b"output" => u.output = Some(v),
            b"cacheRead" => u.cache_read = Some(v),
            b"cacheWrite" => u.cache_write = Some(v),
            b"totalTokens" => u.total_tokens = Some(v),
            b"total" => u.total = Some(v),
            b"cost" => {
                if u.cost != Cost::Absent {
                    return None;
                }
                u.cost = Cost::NotObject;
            }
            _ => {}
        }
        Some(end)
    })?;
    // Anything after the object (whitespace included): serde_json says what it is.
    (i == b.len()).then_some(u)
}

/// `text` as serde_json's `Value` holds it, when it is in the shape replies write (module
/// docs); None for any other shape. Every key is kept, in the order written, a repeated one
/// where it first stood with its last value (as `Value`'s map inserts it).
pub(crate) fn value(text: &str) -> Option<Value> {
    let b = text.as_bytes();
    let key_of = |k: &[u8]| std::str::from_utf8(k).ok().map(str::to_owned);
    let mut cost = false;
    let mut top = serde_json::Map::with_capacity(6);
    let end = object(b, 0, |b, i, key| {
        if key == b"cost" {
            // One `cost` only, as [`read`] takes it.
            if std::mem::replace(&mut cost, true) {
                return None;
            }
            if b.get(i) == Some(&b'{') {
                let mut prices = serde_json::Map::with_capacity(5);
                let end = object(b, i, |b, i, key| {
                    let (v, end) = number(b, i)?;
                    prices.insert(key_of(key)?, v);
                    Some(end)
                })?;
                top.insert("cost".to_owned(), Value::Object(prices));
                return Some(end);
            }
        }
        let (v, end) = number(b, i)?;
        top.insert(key_of(key)?, v);
        Some(end)
    })?;
    (end == b.len()).then_some(Value::Object(top))
}

/// The object starting at `b[at]` (`{`), each key and the index of its value handed to
/// `value`, which answers where the value ends; the index past the closing `}`.
fn object(
    b: &[u8],
    at: usize,
    mut value: impl FnMut(&[u8], usize, &[u8]) -> Option<usize>,
) -> Option<usize> {
    if b.get(at) != Some(&b'{') {
        return None;
    }
    let mut i = at + 1;
    if b.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let start = i + 1;
        let len = b[start..].iter().position(|&c| c == b'"')?;
        let key = &b[start..start + len];
        // An escape or a control character: serde_json reads the key.
        if key.iter().any(|&c| c == b'\\' || c < 0x20) {
            return None;
        }
        i = start + len + 1;
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = value(b, i + 1, key)?;
        match b.get(i)? {
            b',' => i += 1,
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// The longest number read here; a longer one is left to serde_json.
const NUMBER_MAX: usize = 32;

/// A number that is not negative, at `b[at]`, as serde_json's `Value` holds it, and the index
/// past it.
fn number(b: &[u8], at: usize) -> Option<(Value, usize)> {
    // The integer part, its value kept as it is read (wrapping: more than 19 digits are left
    // to serde_json below, before the value is used).
    let mut end = at;
    let mut n: u64 = 0;
    while let Some(&c @ b'0'..=b'9') = b.get(end) {
        n = n.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
        end += 1;
    }
    let int = end - at;
    // JSON allows one leading zero, and only alone.
    if int == 0 || (int > 1 && b[at] == b'0') {
        return None;
    }
    let digits = |from: usize| {
        b.get(from..)
            .map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count())
    };
    let mut float = false;
    if b.get(end) == Some(&b'.') {
        let frac = digits(end + 1);
        if frac == 0 {
            return None;
        }
        end += 1 + frac;
        float = true;
    }
    if let Some(b'e' | b'E') = b.get(end) {
        let sign = usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
        let exp = digits(end + 1 + sign);
        if exp == 0 {
            return None;
        }
        end += 1 + sign + exp;
        float = true;
    }
    if end - at > NUMBER_MAX {
        return None;
    }
    if !float {
        // 19 digits always fit a u64; past that serde_json may read an f64: left to it.
        return (int <= 19).then(|| (Value::from(n), end));
    }
    // Digits, a dot, `e`, a sign: ASCII.
    let f: f64 = std::str::from_utf8(&b[at..end]).ok()?.parse().ok()?;
    // Out of range is an error to serde_json; it reads that text itself.
    let v = serde_json::Number::from_f64(f).filter(|_| f.is_finite())?;
    Some((Value::Number(v), end))
}

/// Usage texts to hold a reader of them to serde_json with: every usage the fixtures' replies
/// wrote, as written, and texts of every shape near the one read here (module docs).
#[cfg(test)]
pub(crate) fn sample_texts() -> Vec<String> {
    let mut out: Vec<String> = super::fixture_lines()
        .iter()
        .filter_map(|(_, line)| usage_of(line))
        .collect();
    let numbers = [
        "0",
        "1",
        "7",
        "10",
        "01",
        "00",
        "0.0",
        "1.0",
        "1.",
        ".5",
        "0.01368",
        "0.1",
        "0.30000000000000004",
        "1e5",
        "1E5",
        "1e+5",
        "1e-5",
        "1E-07",
        "1e",
        "1e+",
        "5e-324",
        "2.2250738585072011e-308",
        "1.7976931348623157e308",
        "1.8e308",
        "1e400",
        "1e-400",
        "18446744073709551615",
        "18446744073709551616",
        "1234567890123456789",
        "12345678901234567890123456789012345",
        "-1",
        "-0",
        "-0.5",
        "+1",
        "Infinity",
        "NaN",
        "null",
        "true",
        "\"5\"",
        "[1]",
        "{}",
        "{\"a\":1}",
        "{\"cost\":1}",
        "0x10",
        "1_000",
        "١",
    ];
    let keys = [
        "input",
        "output",
        "cacheRead",
        "cacheWrite",
        "totalTokens",
        "total",
        "cost",
        "other",
        "inp\\u0075t",
        "",
        "Input",
        "é",
    ];
    for k in keys {
        for n in numbers {
            for text in [
                format!("{{\"{k}\":{n}}}"),
                format!("{{\"input\":1,\"{k}\":{n},\"output\":2}}"),
                format!("{{\"cost\":{{\"{k}\":{n}}},\"input\":3}}"),
                format!("{{\"input\":1,\"cost\":{{\"total\":0.5,\"{k}\":{n}}}}}"),
                format!("{{\"{k}\":{n},\"{k}\":4}}"),
                format!("{{\"{k}\":4,\"{k}\":{n}}}"),
                format!("{{\"{k}\" :{n}}}"),
                format!("{{\"{k}\": {n}}}"),
                format!("{{\"{k}\":{n} }}"),
                format!("{{\"{k}\":{n},}}"),
                format!("{{\"{k}\":{n}}} "),
                format!("{{\"{k}\":{n}}}x"),
                format!("{{\"cost\":1,\"{k}\":{n}}}"),
                format!("{{\"cost\":{{}},\"cost\":{{\"{k}\":{n}}}}}"),
                format!("{{\"cost\":{{\"cost\":{{\"{k}\":{n}}}}}}}"),
            ] {
                // And every prefix: a text cut short.
                for end in 0..text.len() {
                    if text.is_char_boundary(end) {
                        out.push(text[..end].to_string());
                    }
                }
                out.push(text);
            }
        }
    }
    for text in [
        "{}", "[]", "1", "null", "\"x\"", "", "{", "}", "{\"a\"}", "{\"a\":}", " {}",
    ] {
        out.push(text.to_string());
    }
    // Numbers as JavaScript and others write them.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..20_000 {
        let n = match next() % 4 {
            0 => format!("{:?}", f64::from_bits(next() >> 2)),
            1 => format!("{}.{}", next() % 100_000, next() % 10_000_000_000),
            2 => format!(
                "{}e{}{}",
                next() % 10_000_000,
                ["", "-", "+"][(next() % 3) as usize],
                next() % 330
            ),
            _ => format!("0.{:0>17}", next() % 100_000_000_000_000_000),
        };
        out.push(format!(
            "{{\"input\":7,\"cost\":{{\"total\":{n}}},\"output\":{n}}}"
        ));
    }
    out
}

/// The text of a line's `usage`, as the line holds it.
#[cfg(test)]
fn usage_of(line: &str) -> Option<String> {
    let at = line.find("\"usage\":")? + 8;
    let mut d = serde_json::Deserializer::from_str(&line[at..]);
    <&serde_json::value::RawValue as serde::Deserialize>::deserialize(&mut d)
        .ok()
        .map(|r| r.get().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// serde_json's reading of `text` in [`UsageText`]'s terms: the oracle.
    fn by_serde(text: &str) -> Option<UsageText> {
        let v: Value = serde_json::from_str(text).ok()?;
        let o = v.as_object()?;
        let f = |m: &serde_json::Map<String, Value>, k: &str| m.get(k).cloned();
        Some(UsageText {
            input: f(o, "input"),
            output: f(o, "output"),
            cache_read: f(o, "cacheRead"),
            cache_write: f(o, "cacheWrite"),
            total_tokens: f(o, "totalTokens"),
            total: f(o, "total"),
            cost: match o.get("cost") {
                None => Cost::Absent,
                Some(Value::Object(_)) => Cost::Object,
                Some(_) => Cost::NotObject,
            },
            prices: match o.get("cost") {
                Some(Value::Object(c)) => Prices {
                    input: f(c, "input"),
                    output: f(c, "output"),
                    cache_read: f(c, "cacheRead"),
                    cache_write: f(c, "cacheWrite"),
                    total: f(c, "total"),
                },
                _ => Prices::default(),
            },
        })
    }

    #[test]
    fn what_reads_here_reads_as_serde_json_reads_it() {
        let texts = sample_texts();
        let mut read_here = 0;
        for text in &texts {
            if let Some(fast) = read(text) {
                assert_eq!(Some(fast), by_serde(text), "{text}");
                read_here += 1;
            }
        }
        assert!(
            read_here > 20_000,
            "{read_here} of {} read here",
            texts.len()
        );
    }

    /// A usage made a `Value` here is the `Value` serde_json makes of it, key order included.
    #[test]
    fn values_made_here_are_serde_jsons() {
        let texts = sample_texts();
        let mut made_here = 0;
        for text in &texts {
            if let Some(fast) = value(text) {
                let decoded: Option<Value> = serde_json::from_str(text).ok();
                // `==` on maps ignores their order: the text does not.
                assert_eq!(
                    Some(fast.to_string()),
                    decoded.as_ref().map(Value::to_string),
                    "{text}"
                );
                assert_eq!(Some(&fast), decoded.as_ref(), "{text}");
                made_here += 1;
            }
            assert_eq!(value(text).is_some(), read(text).is_some(), "{text}");
        }
        assert!(
            made_here > 20_000,
            "{made_here} of {} made here",
            texts.len()
        );
    }

    /// The fixtures' replies write the shape read here: every usage of theirs reads here.
    #[test]
    fn every_usage_of_the_fixtures_reads_here() {
        let mut seen = 0;
        let mut rows = 0;
        for (at, line) in crate::transcript::fixture_lines() {
            let Some(usage) = usage_of(&line).filter(|u| u.starts_with('{')) else {
                continue;
            };
            seen += 1;
            rows += usize::from(at.ends_with(".sqlite"));
            assert!(read(&usage).is_some(), "{at}: {usage}");
        }
        assert!(
            seen > 50 && rows > 5,
            "only {seen} usages in the fixtures, {rows} in rows"
        );
    }
}
