//! clawtop's patch to serde_json: a value skipped (`IgnoredAny`, `RawValue`) in one tight
//! loop over the bytes, for `SliceRead` and `StrRead`. `Deserializer::ignore_value` pays a
//! `Read` call, a `Result` and a match for every byte of whitespace, every digit and every
//! token; a store entry's skipped fields (hundreds of short tokens) and a row's skipped
//! `content` spent most of their parse there.
//!
//! The loop accepts exactly what `ignore_value` accepts and ends where it ends: the JSON
//! grammar, `\uXXXX` checked as four hex digits (not as a code point, as `ignore_value` does
//! not), bytes of 0x80 and above taken as they are (`ignore_str` does not check UTF-8), no
//! whitespace read after the value. Anything it does not take (malformed input, nesting deeper
//! than 128) makes it answer None without moving, and `ignore_value` reads the value itself:
//! every error, and its line and column, is the crate's own.

use core::sync::atomic::{AtomicBool, Ordering};

/// Off only in tests, to compare this loop with the crate's own `ignore_value`.
#[doc(hidden)]
pub static FAST_SKIP: AtomicBool = AtomicBool::new(true);

/// Where the value starting at `s[at..]` (after any whitespace) ends; None when the loop does
/// not take it (see the module docs).
#[inline]
pub(crate) fn skip_value(s: &[u8], at: usize) -> Option<usize> {
    if !FAST_SKIP.load(Ordering::Relaxed) {
        return None;
    }
    let mut i = at;
    // One bit per open container, 1 for an object; `depth` of them.
    let mut stack: u128 = 0;
    let mut depth: u32 = 0;
    loop {
        // A value.
        i = whitespace(s, i);
        match *s.get(i)? {
            b'"' => i = string(s, i + 1)?,
            b'{' => {
                if depth == 128 {
                    return None;
                }
                i = whitespace(s, i + 1);
                match *s.get(i)? {
                    b'}' => i += 1,
                    b'"' => {
                        stack = (stack << 1) | 1;
                        depth += 1;
                        i = colon(s, string(s, i + 1)?)?;
                        continue;
                    }
                    _ => return None,
                }
            }
            b'[' => {
                if depth == 128 {
                    return None;
                }
                i = whitespace(s, i + 1);
                if *s.get(i)? == b']' {
                    i += 1;
                } else {
                    stack <<= 1;
                    depth += 1;
                    continue;
                }
            }
            b'n' => i = literal(s, i, b"null")?,
            b't' => i = literal(s, i, b"true")?,
            b'f' => i = literal(s, i, b"false")?,
            b'-' | b'0'..=b'9' => i = number(s, i)?,
            _ => return None,
        }
        // After a value: close what ends here, up to the next element.
        loop {
            if depth == 0 {
                return Some(i);
            }
            i = whitespace(s, i);
            let object = stack & 1 == 1;
            match *s.get(i)? {
                b',' => {
                    i += 1;
                    if object {
                        i = whitespace(s, i);
                        if *s.get(i)? != b'"' {
                            return None;
                        }
                        i = colon(s, string(s, i + 1)?)?;
                    }
                    break;
                }
                b'}' if object => {}
                b']' if !object => {}
                _ => return None,
            }
            i += 1;
            stack >>= 1;
            depth -= 1;
        }
    }
}

#[inline(always)]
fn whitespace(s: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = s.get(i) {
        i += 1;
    }
    i
}

/// After a key: whitespace, the colon, the index past it.
#[inline(always)]
fn colon(s: &[u8], i: usize) -> Option<usize> {
    let i = whitespace(s, i);
    (*s.get(i)? == b':').then_some(i + 1)
}

#[inline(always)]
fn literal(s: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    let end = i + word.len();
    (s.get(i..end)? == word).then_some(end)
}

/// From a string's first byte (past its quote) to past its closing quote.
#[inline(always)]
fn string(s: &[u8], mut i: usize) -> Option<usize> {
    loop {
        let rest = s.get(i..)?;
        let found = match crate::read_simd::find_escape(rest) {
            Ok(k) => k,
            Err(n) => n + rest[n..].iter().position(|&b| crate::read::is_escape(b, true))?,
        };
        i += found;
        match s[i] {
            b'"' => return Some(i + 1),
            b'\\' => match *s.get(i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' => {
                    if !s.get(i + 2..i + 6)?.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    i += 6;
                }
                _ => return None,
            },
            // A control character.
            _ => return None,
        }
    }
}

/// A number as `ignore_integer` and what follows it read it.
#[inline(always)]
fn number(s: &[u8], mut i: usize) -> Option<usize> {
    let digits = |mut i: usize| {
        while let Some(b'0'..=b'9') = s.get(i) {
            i += 1;
        }
        i
    };
    if s[i] == b'-' {
        i += 1;
    }
    match *s.get(i)? {
        b'0' => {
            i += 1;
            // One leading zero only.
            if let Some(b'0'..=b'9') = s.get(i) {
                return None;
            }
        }
        b'1'..=b'9' => i = digits(i + 1),
        _ => return None,
    }
    if s.get(i) == Some(&b'.') {
        let end = digits(i + 1);
        if end == i + 1 {
            return None;
        }
        i = end;
    }
    if let Some(b'e' | b'E') = s.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = s.get(i) {
            i += 1;
        }
        let end = digits(i);
        if end == i {
            return None;
        }
        i = end;
    }
    Some(i)
}
