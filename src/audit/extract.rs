//! The exact identifiers in a text, of the kinds OpenClaw 2026.9's compaction quality guard
//! extracts (docs/openclaw-2026.9.md §12; the facts are its `extractOpaqueIdentifiers`):
//!
//! - `http(s)://` URLs up to whitespace;
//! - absolute POSIX paths of two or more segments (first segment ≥ 2 characters) that do
//!   not follow a word character, `.`, `_` or `-`; Windows paths (`C:\…`);
//! - `name.domain:port` (a dotted name, a colon, 1–5 digits);
//! - word tokens (`[A-Za-z0-9_-]+`) holding 8+ hex digits or 6+ decimal digits in a row;
//!
//! with leading `("'`[{<` and trailing `)]"'`,;:.!?<>` stripped, values shorter than 4
//! dropped, and a token of pure hex (8+) upper-cased so that it compares case-insensitively.
//! Decimal and scientific numbers (`3.14`, `.5e-3`, `1e9`, with a unit such as `12.5ms`)
//! are consumed without yielding anything, exactly where OpenClaw's pattern consumes them:
//! that is why `v1.2.3456789` yields nothing.
//!
//! OpenClaw runs one regular expression whose alternatives backtrack; run over a 16 MB line
//! of digits or dotted names it goes quadratic. This is a hand-written scanner that makes the
//! same choices at each position (the alternatives in the same order) but answers every
//! "where does this run end" question from a cached run, so a text is scanned in linear time
//! and constant extra memory besides the identifiers themselves. Every class involved is
//! ASCII except the whitespace that ends a URL, so the scan works on bytes and decodes UTF-8
//! only there. Most of a conversation is prose in which nothing can match: a block of it is
//! passed over whole, from one word start to the last whitespace in it (`prose_end`), which
//! took a sixth off a cold `list` of the bench's 81-row sessions (their text is prose; on
//! text dense with identifiers it changes little).

/// Identifiers of `text` in order of first appearance, each once (normalized: pure hex
/// upper-cased). Unlike OpenClaw's guard, all of them (it keeps the first 12).
pub fn identifiers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    each(text, |v| {
        if seen.insert(v.to_string()) {
            out.push(v.to_string());
        }
    });
    out
}

/// Calls `found` with each identifier of `text`, in order, duplicates included.
pub fn each(text: &str, mut found: impl FnMut(&str)) {
    let mut s = Scanner::new(text.as_bytes());
    let n = s.b.len();
    let mut p = 0;
    // Where a stretch of prose is looked for next: after a block that was not one, not
    // before the block's end, so text dense with identifiers is classified once a block.
    let mut next_block = 0;
    while p < n {
        if p >= next_block && (p == 0 || is_cut(s.b[p - 1])) {
            match prose_end(s.b, p) {
                Some(q) => {
                    p = q;
                    continue;
                }
                None => next_block = p + PROSE_BLOCK,
            }
        }
        let after_h = p > 0 && is_h(s.b[p - 1]);
        if !s.may_start(p, after_h) {
            p += 1;
            continue;
        }
        if !after_h {
            if let Some(next) = s.plain_word(p) {
                p = next;
                continue;
            }
        }
        match s.at(p) {
            Some((end, true)) => {
                // The pattern matched bytes that are whole UTF-8 characters: every start and
                // end is at an ASCII byte or the end of the text.
                let raw = &text[p..end];
                let value = sanitize(raw);
                if is_pure_hex(value) {
                    let up = value.to_ascii_uppercase();
                    if up.len() >= 4 {
                        found(&up);
                    }
                } else if value.encode_utf16().count() >= 4 {
                    found(value);
                }
                p = end;
            }
            Some((end, false)) => p = end,
            None => p += 1,
        }
    }
}

/// Bytes of text [`prose_end`] looks at at once.
const PROSE_BLOCK: usize = 64;

/// ASCII whitespace: no alternative matches across it (a URL ends at `\s`, the others hold
/// no whitespace), so a word after it is scanned as if the text started there.
#[inline]
fn is_cut(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// At `p`, the start of the text or just after ASCII whitespace: when the next
/// [`PROSE_BLOCK`] bytes hold no digit, `/`, `:` or `\\` and no eight of `[A-Fa-f]` in a
/// row, where the scan may go on, past every word that ends inside them: the last ASCII
/// whitespace among them. Such a word is matched by no alternative at any of its bytes (a
/// URL, a drive and `host:port` need a colon, a path a slash, a number a digit, a token
/// eight hex digits or six decimal ones in a row), so [`each`] would step through it and
/// find nothing. Prose is mostly such blocks; the classes are computed over the whole block
/// in passes the compiler turns into vector instructions, rather than a byte at a time.
fn prose_end(b: &[u8], p: usize) -> Option<usize> {
    let block = b.get(p..p + PROSE_BLOCK)?;
    let special = block.iter().fold(false, |any, &c| {
        any | (c.wrapping_sub(b'0') < 10) | (c == b'/') | (c == b':') | (c == b'\\')
    });
    if special {
        return None;
    }
    // Eight bytes past the block count as no hex letter: a run reaching them belongs to a
    // word that does not end inside the block, which is not skipped.
    let mut hex = [0u8; PROSE_BLOCK + 8];
    for (h, &c) in hex.iter_mut().zip(block) {
        *h = u8::from((c | 0x20).wrapping_sub(b'a') < 6);
    }
    let mut run = 0u8;
    for k in 0..PROSE_BLOCK {
        run |= hex[k]
            & hex[k + 1]
            & hex[k + 2]
            & hex[k + 3]
            & hex[k + 4]
            & hex[k + 5]
            & hex[k + 6]
            & hex[k + 7];
    }
    if run != 0 {
        return None;
    }
    let last = block.iter().rposition(|&c| is_cut(c))?;
    (last > 0).then_some(p + last)
}

/// `^[A-Fa-f0-9]{8,}$`: compared case-insensitively.
pub fn is_pure_hex(v: &str) -> bool {
    v.len() >= 8 && v.bytes().all(|c| c.is_ascii_hexdigit())
}

/// Whether `haystack` holds identifier `id` the way OpenClaw's guard checks a summary: pure
/// hex case-insensitively (the whole haystack upper-cased, as JavaScript does), anything else
/// verbatim. For one check; [`super::presence`] checks many identifiers at once.
pub fn includes(haystack: &str, id: &str) -> bool {
    if is_pure_hex(id) {
        haystack.to_uppercase().contains(&id.to_ascii_uppercase())
    } else {
        haystack.contains(id)
    }
}

fn sanitize(v: &str) -> &str {
    let v = v.trim_matches(is_js_space);
    let v = v.trim_start_matches(['(', '"', '\'', '`', '[', '{', '<']);
    v.trim_end_matches([
        ')', ']', '"', '\'', '`', ',', ';', ':', '.', '!', '?', '<', '>',
    ])
}

/// JavaScript's `\s` (the set `\S` excludes), which differs from `char::is_whitespace`
/// (U+FEFF is in, U+0085 is out).
pub(crate) fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0b}' | '\u{0c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `[A-Za-z0-9._-]`: the lookbehind class, path segments and the dotted name of `host:port`.
#[inline]
fn is_h(c: u8) -> bool {
    CLASS[c as usize] & H != 0
}

/// Bits of [`CLASS`]: `[A-Za-z0-9._-]`, a digit or `.`, a hex digit.
const H: u8 = 1;
const DIGIT_OR_DOT: u8 = 2;
const HEX: u8 = 4;

/// The classes the scanner asks about most, one lookup a byte.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-' {
            t[c] |= H;
        }
        if b.is_ascii_digit() || b == b'.' {
            t[c] |= DIGIT_OR_DOT;
        }
        if b.is_ascii_hexdigit() {
            t[c] |= HEX;
        }
        c += 1;
    }
    t
};
/// `[A-Za-z0-9._/-]`: the part of `host:port` after its first dot.
fn is_h2(c: u8) -> bool {
    is_h(c) || c == b'/'
}
/// `[A-Za-z0-9_-]`: a word token.
fn is_w(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-')
}

#[derive(Clone, Copy)]
enum Class {
    Digit,
    Hex,
    Alpha,
    H,
    H2,
}

impl Class {
    fn has(self, c: u8) -> bool {
        match self {
            Class::Digit => c.is_ascii_digit(),
            Class::Hex => c.is_ascii_hexdigit(),
            Class::Alpha => c.is_ascii_alphabetic(),
            Class::H => is_h(c),
            Class::H2 => is_h2(c),
        }
    }
}

struct Scanner<'a> {
    b: &'a [u8],
    /// Per class, the last run computed as `[start, end)`: every position inside a maximal run
    /// has the same end, so asking again from inside it costs nothing.
    runs: [(usize, usize); 5],
}

impl<'a> Scanner<'a> {
    fn new(b: &'a [u8]) -> Scanner<'a> {
        Scanner {
            b,
            runs: [(0, 0); 5],
        }
    }

    fn byte(&self, i: usize) -> Option<u8> {
        self.b.get(i).copied()
    }
    fn is(&self, i: usize, f: impl Fn(u8) -> bool) -> bool {
        self.byte(i).is_some_and(f)
    }
    fn digit(&self, i: usize) -> bool {
        self.is(i, |c| c.is_ascii_digit())
    }

    /// End of the run of `class` starting at `i` (`i` itself when `b[i]` is not in it).
    fn run_end(&mut self, class: Class, i: usize) -> usize {
        let slot = class as usize;
        let (s, e) = self.runs[slot];
        if s <= i && i < e {
            return e;
        }
        let mut j = i;
        while j < self.b.len() && class.has(self.b[j]) {
            j += 1;
        }
        if j > i {
            self.runs[slot] = (i, j);
        }
        j
    }

    /// The match at `p`: its end and whether it yields a value (the number alternative
    /// consumes without yielding); None when no alternative matches at `p`.
    fn at(&mut self, p: usize) -> Option<(usize, bool)> {
        let c = self.b[p];
        if !c.is_ascii() {
            return None;
        }
        let after_h = p > 0 && is_h(self.b[p - 1]);
        if !self.may_start(p, after_h) {
            return None;
        }
        self.alternatives(p)
    }

    /// Each alternative in turn at `p` ([`Self::at`] without its first look).
    fn alternatives(&mut self, p: usize) -> Option<(usize, bool)> {
        let c = self.b[p];
        if !c.is_ascii() {
            return None;
        }
        let after_h = p > 0 && is_h(self.b[p - 1]);
        if let Some(e) = self.url(p) {
            return Some((e, true));
        }
        if c == b'/' && !after_h {
            if let Some(e) = self.posix_path(p) {
                return Some((e, true));
            }
        }
        if let Some(e) = self.windows_path(p) {
            return Some((e, true));
        }
        if is_h(c) && !after_h {
            if let Some(e) = self.host_port(p) {
                return Some((e, true));
            }
        }
        if let Some(e) = self.number(p) {
            return Some((e, false));
        }
        let after_w = p > 0 && is_w(self.b[p - 1]);
        if is_w(c) && !after_w {
            if let Some(e) = self.token(p) {
                return Some((e, true));
            }
        }
        None
    }

    /// Whether any alternative can start at `p`: most bytes of prose start none. Past a
    /// `[A-Za-z0-9_-]` byte only a URL (`h`), a Windows drive (`X:`) or a number (a digit or
    /// `.`) can; past a `.`, also a token; elsewhere every alternative starts with a
    /// `[A-Za-z0-9._-]` byte or `/`.
    #[inline]
    fn may_start(&self, p: usize, after_h: bool) -> bool {
        let c = self.b[p];
        if !after_h {
            return is_h(c) || c == b'/';
        }
        c == b'h'
            || c.is_ascii_digit()
            || c == b'.'
            || (c.is_ascii_alphabetic() && self.byte(p + 1) == Some(b':'))
            || (is_w(c) && !is_w(self.b[p - 1]))
    }

    /// For a word starting at `p` (not after a `[A-Za-z0-9._-]` byte) that no alternative can
    /// match from or inside: where to look next. That is a run of `[A-Za-z0-9._-]` starting
    /// with a letter other than `h`, holding no digit, no `.` and no eight hex letters in a
    /// row, and not a lone letter before a colon: it is no URL, path, drive, `host:port`,
    /// number or token, and inside it (every byte follows such a byte) only a URL or a drive
    /// could start, and only when a colon ends the run: then within its last five bytes.
    /// Prose is mostly such words; one look at each keeps the scan linear with a small
    /// constant.
    fn plain_word(&self, p: usize) -> Option<usize> {
        let c = self.b[p];
        if !c.is_ascii_alphabetic() || c == b'h' {
            return None;
        }
        let (mut j, mut hex) = (p, 0);
        while j < self.b.len() {
            let class = CLASS[self.b[j] as usize];
            if class & H == 0 {
                break;
            }
            if class & DIGIT_OR_DOT != 0 {
                return None;
            }
            hex = if class & HEX != 0 { hex + 1 } else { 0 };
            if hex >= 8 {
                return None;
            }
            j += 1;
        }
        if self.byte(j) != Some(b':') {
            return Some(j);
        }
        if j == p + 1 {
            return None;
        }
        Some(j.saturating_sub(5).max(p + 1))
    }

    /// `https?://\S+`
    fn url(&self, p: usize) -> Option<usize> {
        let rest = &self.b[p..];
        let body = if rest.starts_with(b"http://") {
            p + 7
        } else if rest.starts_with(b"https://") {
            p + 8
        } else {
            return None;
        };
        let end = self.non_space_end(body);
        (end > body).then_some(end)
    }

    fn non_space_end(&self, from: usize) -> usize {
        let mut i = from;
        while i < self.b.len() {
            let c = self.b[i];
            if c.is_ascii() {
                if is_js_space(c as char) {
                    break;
                }
                i += 1;
            } else {
                // Text came from a &str, so `i` starts a well-formed character.
                let len = utf8_len(c);
                let ch = std::str::from_utf8(&self.b[i..(i + len).min(self.b.len())])
                    .ok()
                    .and_then(|s| s.chars().next());
                if ch.is_some_and(is_js_space) {
                    break;
                }
                i += len;
            }
        }
        i.min(self.b.len())
    }

    /// `/[\w.-]{2,}(?:/[\w.-]+)+` (the lookbehind was checked by the caller).
    fn posix_path(&mut self, p: usize) -> Option<usize> {
        let first = self.run_end(Class::H, p + 1);
        if first - (p + 1) < 2 {
            return None;
        }
        let mut end = None;
        let mut i = first;
        while self.byte(i) == Some(b'/') {
            let seg = self.run_end(Class::H, i + 1);
            if seg == i + 1 {
                break;
            }
            end = Some(seg);
            i = seg;
        }
        end
    }

    /// `[A-Za-z]:\\[\w\\.-]+`
    fn windows_path(&self, p: usize) -> Option<usize> {
        if !(self.b[p].is_ascii_alphabetic()
            && self.byte(p + 1) == Some(b':')
            && self.byte(p + 2) == Some(b'\\'))
        {
            return None;
        }
        let mut i = p + 3;
        while self.is(i, |c| is_h(c) || c == b'\\') {
            i += 1;
        }
        (i > p + 3).then_some(i)
    }

    /// `[A-Za-z0-9._-]+\.[A-Za-z0-9._/-]+:\d{1,5}` (lookbehind checked by the caller). The
    /// first run and the dot can only end inside the run of `[A-Za-z0-9._-]` at `p`, and the
    /// colon can only sit where the following `[A-Za-z0-9._/-]` run ends, so the match exists
    /// iff a dot in that first run leaves at least one character before the colon.
    fn host_port(&mut self, p: usize) -> Option<usize> {
        let e1 = self.run_end(Class::H, p);
        let dot = self.b[p + 1..e1].iter().position(|&c| c == b'.')? + p + 1;
        let e2 = self.run_end(Class::H2, dot + 1);
        if e2 <= dot + 1 || self.byte(e2) != Some(b':') || !self.digit(e2 + 1) {
            return None;
        }
        let mut end = e2 + 1;
        while end < e2 + 6 && self.digit(end) {
            end += 1;
        }
        Some(end)
    }

    /// The word token alternative: `[A-Za-z0-9_-]+` holding `[A-Fa-f0-9]{8,}` or `\d{6,}`
    /// (lookbehind checked by the caller); the whole run is the match.
    fn token(&self, p: usize) -> Option<usize> {
        let (mut hex, mut dec, mut found) = (0usize, 0usize, false);
        let mut i = p;
        while i < self.b.len() && is_w(self.b[i]) {
            let c = self.b[i];
            hex = if c.is_ascii_hexdigit() { hex + 1 } else { 0 };
            dec = if c.is_ascii_digit() { dec + 1 } else { 0 };
            found |= hex >= 8 || dec >= 6;
            i += 1;
        }
        found.then_some(i)
    }

    /// OpenClaw's number alternative, which yields nothing; its end when it matches at `p`:
    /// `(?:(?:\d+\.\d+|\.\d+)(?:[eE][+-]?\d+)?|\d+\.[eE][+-]?\d+|\d+\.?[eE][+-]\d+|`
    /// `(?![A-Fa-f0-9]{8,}(?![A-Fa-f0-9]))\d+\.?[eE]\d+)` then an optional unit
    /// (letters, at least one of them past `f`, not followed by a digit), then no letter or
    /// digit. Each `\d+` before a fixed character can only end where its run ends, and a
    /// shorter one leaves a digit next, which nothing after it accepts; so every alternative
    /// has at most two candidate ends (with and without the exponent), tried in the order the
    /// backtracking engine tries them.
    fn number(&mut self, p: usize) -> Option<usize> {
        let is_e = |s: &Self, i: usize| s.is(i, |c| c == b'e' || c == b'E');
        let is_sign = |s: &Self, i: usize| s.is(i, |c| c == b'+' || c == b'-');
        // (?:\d+\.\d+|\.\d+)(?:[eE][+-]?\d+)?
        let frac_end = if self.digit(p) {
            let d1 = self.run_end(Class::Digit, p);
            (self.byte(d1) == Some(b'.') && self.digit(d1 + 1))
                .then(|| self.run_end(Class::Digit, d1 + 1))
        } else if self.b[p] == b'.' && self.digit(p + 1) {
            Some(self.run_end(Class::Digit, p + 1))
        } else {
            None
        };
        if let Some(d2) = frac_end {
            if is_e(self, d2) {
                let s = if is_sign(self, d2 + 1) {
                    d2 + 2
                } else {
                    d2 + 1
                };
                if self.digit(s) {
                    let d3 = self.run_end(Class::Digit, s);
                    if let Some(e) = self.unit_tail(d3) {
                        return Some(e);
                    }
                }
            }
            if let Some(e) = self.unit_tail(d2) {
                return Some(e);
            }
        }
        if !self.digit(p) {
            return None;
        }
        let d1 = self.run_end(Class::Digit, p);
        let dot = self.byte(d1) == Some(b'.');
        // \d+\.[eE][+-]?\d+
        if dot && is_e(self, d1 + 1) {
            let s = if is_sign(self, d1 + 2) {
                d1 + 3
            } else {
                d1 + 2
            };
            if self.digit(s) {
                let d3 = self.run_end(Class::Digit, s);
                if let Some(e) = self.unit_tail(d3) {
                    return Some(e);
                }
            }
        }
        // \d+\.?[eE][+-]\d+
        let e_at = if dot { d1 + 1 } else { d1 };
        if is_e(self, e_at) && is_sign(self, e_at + 1) && self.digit(e_at + 2) {
            let d3 = self.run_end(Class::Digit, e_at + 2);
            if let Some(e) = self.unit_tail(d3) {
                return Some(e);
            }
        }
        // (?![A-Fa-f0-9]{8,}(?![A-Fa-f0-9]))\d+\.?[eE]\d+
        if self.run_end(Class::Hex, p) - p < 8 && is_e(self, e_at) && self.digit(e_at + 1) {
            let d3 = self.run_end(Class::Digit, e_at + 1);
            if let Some(e) = self.unit_tail(d3) {
                return Some(e);
            }
        }
        None
    }

    /// After a number ending at `x`: the optional unit, then no letter or digit. The unit,
    /// tried first, is the whole letter run at `x` when no digit follows it and one of its
    /// letters is past `f` (so `12ab` is not a number with a unit).
    fn unit_tail(&mut self, x: usize) -> Option<usize> {
        if self.is(x, |c| c.is_ascii_alphabetic()) {
            let l = self.run_end(Class::Alpha, x);
            if !self.digit(l)
                && self.b[x..l]
                    .iter()
                    .any(|c| matches!(c.to_ascii_lowercase(), b'g'..=b'z'))
            {
                return Some(l);
            }
        }
        (!self.is(x, |c| c.is_ascii_alphanumeric())).then_some(x)
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(t: &str) -> Vec<String> {
        identifiers(t)
    }

    #[test]
    fn each_kind() {
        assert_eq!(
            ids("see https://github.com/o/r/pull/4711), /srv/app/config.yaml. and C:\\x\\y"),
            [
                "https://github.com/o/r/pull/4711",
                "/srv/app/config.yaml",
                "C:\\x\\y"
            ]
        );
        assert_eq!(ids("db.internal:5432 up"), ["db.internal:5432"]);
        assert_eq!(ids("host.example.com:123456"), ["host.example.com:12345"]);
        assert_eq!(
            ids("commit deadBEEF12 ticket INC-1234567"),
            ["DEADBEEF12", "INC-1234567"]
        );
        assert_eq!(
            ids("uuid 9e08b9f6-5a80-4ffe-82e5-668220e4656a"),
            ["9e08b9f6-5a80-4ffe-82e5-668220e4656a"]
        );
    }

    #[test]
    fn what_is_not_an_identifier() {
        // Short or relative paths, a one-character first segment, a path glued to a word.
        assert!(ids("a/b/c /x/y ./rel/path word/abs/path 12345 abcdef1").is_empty());
        // Numbers are consumed: the digits after a decimal point are not a token.
        assert!(ids("v1.2.3456789 took 12.5ms 1e10 3.14159265").is_empty());
        assert_eq!(ids("//srv/a/b"), ["/srv/a/b"]);
        assert_eq!(ids("xhttp://a"), ["http://a"]);
    }

    #[test]
    fn hex_is_case_insensitive_in_the_summary() {
        assert!(includes("Commit DEADbeef12 landed", "DEADBEEF12"));
        assert!(!includes("/SRV/APP", "/srv/app"));
    }

    /// The scan without skipping anything: every alternative tried at every position.
    fn each_position(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut s = Scanner::new(text.as_bytes());
        let mut p = 0;
        while p < s.b.len() {
            match s.alternatives(p) {
                Some((end, yields)) => {
                    if yields {
                        let v = sanitize(&text[p..end]);
                        if is_pure_hex(v) {
                            out.push(v.to_ascii_uppercase());
                        } else if v.encode_utf16().count() >= 4 {
                            out.push(v.to_string());
                        }
                    }
                    p = end;
                }
                None => p += 1,
            }
        }
        out
    }

    /// A fixed sequence of pseudo-random numbers from `seed` (xorshift64).
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    #[test]
    fn skipping_words_finds_what_every_position_finds() {
        // Texts drawn from the characters every alternative turns on, words of all lengths.
        let pieces = [
            "a", "h", "http", "https", "://", "x", "e", "E", "f", "0", "7", "12345", ".", "-", "_",
            "/", "\\", ":", "C:", " ", "\n", "(", ")", "é", "ttp", "deadbeef", "+", "ms", "srv",
            "g", "1e5", "3.14",
        ];
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..20_000 {
            let n = (next() % 24) as usize;
            let text: String = (0..n)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            let mut got = Vec::new();
            each(&text, |v| got.push(v.to_string()));
            assert_eq!(got, each_position(&text), "{text:?}");
        }
    }

    #[test]
    fn skipping_prose_finds_what_every_position_finds() {
        // Long texts, mostly words no alternative matches, with what turns a block into one
        // that is not prose at every distance from a block's edge: a digit, a slash, a
        // colon, a backslash, eight hex letters in a row (and seven), other whitespace.
        let pieces = [
            "the ",
            "deployment ",
            "plan, ",
            "review ",
            "facade ",
            "decafbad ",
            "deadbeefs",
            "cafebabe",
            "bead ",
            "x",
            " ",
            "  ",
            "\n",
            "\t",
            "\r\n",
            "7",
            "/",
            ":",
            "\\",
            "https://h.io/a ",
            "srv.local:8080",
            "/usr/lib ",
            "\u{a0}",
            "é",
            "\u{b}",
            ".",
            "-",
            "_",
            "Deadbeef",
            "ABCDEF",
            "abcdefg ",
            "(",
            ")",
        ];
        let weights: [usize; 33] = [
            30, 20, 10, 10, 4, 1, 1, 1, 4, 6, 20, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2,
            1, 1, 1, 2, 1, 1,
        ];
        let total: usize = weights.iter().sum();
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut skipped = 0;
        for _ in 0..4_000 {
            let n = 10 + (next() % 120) as usize;
            let text: String = (0..n)
                .map(|_| {
                    let mut w = (next() % total as u64) as usize;
                    let mut k = 0;
                    while w >= weights[k] {
                        w -= weights[k];
                        k += 1;
                    }
                    pieces[k]
                })
                .collect();
            if prose_end(text.as_bytes(), 0).is_some() {
                skipped += 1;
            }
            let mut got = Vec::new();
            each(&text, |v| got.push(v.to_string()));
            assert_eq!(got, each_position(&text), "{text:?}");
        }
        assert!(
            skipped > 100,
            "prose blocks were skipped in {skipped} texts"
        );
    }

    #[test]
    fn linear_on_hostile_runs() {
        for unit in ["1", "a.", "1.", "/ab", "a.b/", "x-", "e1", "1e", "deadbeef"] {
            let text = unit.repeat(400_000);
            let t = std::time::Instant::now();
            let _ = identifiers(&text);
            assert!(
                t.elapsed() < std::time::Duration::from_secs(5),
                "{unit:?} took {:?}",
                t.elapsed()
            );
        }
    }
}
