//! Which entries of a `sessions.json` a rewrite changed, without parsing the rest.
//!
//! OpenClaw ≤ 2026.7.1 saves its whole store after every turn (a temporary file renamed over
//! it) with one entry's `updatedAt` moved: on a busy host that is tens of megabytes written
//! to tell one change. A TUI left open would parse all of it again at every turn (issue 31,
//! live). Instead the bytes last read are kept ([`StoreBytes`]) and the new ones compared
//! with them at memory speed: the common prefix and suffix leave one changed region, which
//! lies within a run of entries; only that run is scanned, and only its entries whose bytes
//! differ are parsed ([`crate::store_entry::parse`], the same parse a whole read makes).
//!
//! What it cannot be sure of is [`Diff::Unsure`], and the caller reads the store whole:
//! entries added, removed, renamed or reordered; a change outside the entries (the braces,
//! the separators); a changed entry that is not a readable session; a store whose keys hold
//! escapes (the raw bytes of a key would not be its text) or repeat (a whole parse keeps the
//! last value at the first place).

use crate::store_entry::{ParsedEntry, StoreEntry};
use std::ops::Range;

/// One top-level member of the store: its key's bytes (between the quotes) and the member
/// from the key's opening quote to the end of its value.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Span {
    key: Range<usize>,
    whole: Range<usize>,
}

impl Span {
    fn shifted(&self, by: isize) -> Span {
        let at = |x: usize| x.wrapping_add_signed(by);
        Span {
            key: at(self.key.start)..at(self.key.end),
            whole: at(self.whole.start)..at(self.whole.end),
        }
    }
}

/// What a new read of a store changed against the one kept.
#[derive(Debug, PartialEq)]
pub enum Diff {
    /// The same bytes.
    Same,
    /// These entries (key, entry as a whole parse reads it) changed, nothing else did.
    Entries(Vec<(String, StoreEntry)>),
    /// Something this comparison cannot tell: read the store whole.
    Unsure,
}

/// A store's bytes as last read, and where its entries are in them (found at the first
/// comparison, then moved along with each change).
#[derive(Debug, Default)]
pub struct StoreBytes {
    bytes: Vec<u8>,
    /// The keys a whole parse of `bytes` read, in order (to check the spans against).
    keys: Vec<String>,
    spans: Option<Vec<Span>>,
    /// The buffer the new bytes are read into, a chunk at a time.
    chunk: Vec<u8>,
    /// The spans could not be found, or disagree with the parse: every change is unsure.
    unsure: bool,
}

impl StoreBytes {
    /// The bytes a whole read parsed into `parsed`.
    pub fn new(bytes: Vec<u8>, parsed: &[ParsedEntry]) -> StoreBytes {
        StoreBytes {
            bytes,
            keys: parsed.iter().map(|p| p.key.clone()).collect(),
            spans: None,
            chunk: Vec::new(),
            unsure: false,
        }
    }

    /// Compares `new` (the store read again) with the bytes kept, which become `new`'s.
    pub fn compare(&mut self, new: &[u8]) -> Diff {
        self.compare_at(&new)
    }

    /// [`Self::compare`] with the store's file, read a chunk at a time beside the bytes
    /// kept (no second copy of a store of tens of megabytes; the chunk stays in the CPU's
    /// cache), then only its changed bytes kept. An error reading it is [`Diff::Unsure`].
    pub fn compare_file(&mut self, file: &std::fs::File) -> Diff {
        match file.metadata() {
            Ok(m) => self.compare_at(&FileAt { file, len: m.len() }),
            Err(_) => self.compare_at(&Failed),
        }
    }

    fn compare_at(&mut self, new: &dyn At) -> Diff {
        if self.unsure {
            return Diff::Unsure;
        }
        let spans = match self.spans.take() {
            Some(s) => s,
            None => match spans_checked(&self.bytes, &self.keys) {
                Some(s) => s,
                None => {
                    self.unsure = true;
                    return Diff::Unsure;
                }
            },
        };
        let diff = self.moved(new, &spans);
        match diff {
            Some(Moved::Same) => {
                self.spans = Some(spans);
                Diff::Same
            }
            Some(Moved::Entries(spans, entries)) => {
                self.spans = Some(spans);
                if entries.is_empty() {
                    Diff::Same
                } else {
                    Diff::Entries(entries)
                }
            }
            None => {
                // The bytes kept may be neither the old nor the new store's any more.
                self.unsure = true;
                Diff::Unsure
            }
        }
    }

    /// The kept bytes made `new`'s, and what that changed.
    fn moved(&mut self, new: &dyn At, spans: &[Span]) -> Option<Moved> {
        let old_len = self.bytes.len();
        let new_len = usize::try_from(new.len()).ok()?;
        let (p, s) = self.ends(new, new_len).ok()?;
        if p == old_len && p == new_len {
            return Some(Moved::Same);
        }
        let (old_end, new_end) = (old_len - s, new_len - s);
        let delta = new_len as isize - old_len as isize;
        // The run of members the changed bytes touch, which must hold all of them.
        let i = spans.partition_point(|x| x.whole.end <= p);
        let j = spans.partition_point(|x| x.whole.start < old_end.max(p + 1));
        if i >= j || spans[i].whole.start > p || spans[j - 1].whole.end < old_end {
            return None;
        }
        let (from, old_to) = (spans[i].whole.start, spans[j - 1].whole.end);
        let old_run = self.bytes[from..old_to].to_vec();
        let mut middle = vec![0u8; new_end - p];
        new.read_exact_at(&mut middle, p as u64).ok()?;
        self.bytes.splice(p..old_end, middle);
        let to = old_to.checked_add_signed(delta)?;
        let (run, end) = members(self.bytes.get(..to)?, from)?;
        if end != to || run.len() != j - i {
            return None;
        }
        let mut entries = Vec::new();
        for (was, now) in spans[i..j].iter().zip(&run) {
            let old = |r: &Range<usize>| &old_run[r.start - from..r.end - from];
            if old(&was.key) != &self.bytes[now.key.clone()] {
                return None;
            }
            if old(&was.whole) != &self.bytes[now.whole.clone()] {
                entries.push(entry_at(&self.bytes, now)?);
            }
        }
        let mut out = Vec::with_capacity(spans.len());
        out.extend_from_slice(&spans[..i]);
        out.extend(run);
        out.extend(spans[j..].iter().map(|x| x.shifted(delta)));
        Some(Moved::Entries(out, entries))
    }

    /// How many leading and trailing bytes `new` shares with the bytes kept (never
    /// overlapping in either), read a chunk at a time.
    fn ends(&mut self, new: &dyn At, new_len: usize) -> std::io::Result<(usize, usize)> {
        let old = &self.bytes;
        let n = old.len().min(new_len);
        let buf = &mut self.chunk;
        let mut p = 0;
        while p < n {
            let k = READ_CHUNK.min(n - p);
            buf.resize(k, 0);
            new.read_exact_at(buf, p as u64)?;
            let same = common_prefix(&old[p..p + k], buf);
            p += same;
            if same < k {
                break;
            }
        }
        let m = n - p;
        let mut s = 0;
        while s < m {
            let k = READ_CHUNK.min(m - s);
            buf.resize(k, 0);
            new.read_exact_at(buf, (new_len - s - k) as u64)?;
            let same = common_suffix(&old[old.len() - s - k..old.len() - s], buf);
            s += same;
            if same < k {
                break;
            }
        }
        Ok((p, s))
    }
}

/// What [`StoreBytes::moved`] found.
enum Moved {
    /// The same bytes.
    Same,
    /// The spans of the new bytes, and the entries that changed (none when only the white
    /// space between them did).
    Entries(Vec<Span>, Vec<(String, StoreEntry)>),
}

/// Bytes of a store read at a time to compare with those kept.
const READ_CHUNK: usize = 256 * 1024;

/// New bytes to compare, read where asked.
trait At {
    fn len(&self) -> u64;
    fn read_exact_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()>;
}

impl At for &[u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }
    fn read_exact_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()> {
        let at = usize::try_from(at).map_err(std::io::Error::other)?;
        let src = self
            .get(at..at + buf.len())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

/// A store's file, its length as `fstat` gave it before the reads (a file that shrinks
/// under them fails a read: unsure).
struct FileAt<'a> {
    file: &'a std::fs::File,
    len: u64,
}

impl At for FileAt<'_> {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_exact_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self.file, buf, at)
    }
}

/// A file whose length could not be known.
struct Failed;

impl At for Failed {
    fn len(&self) -> u64 {
        u64::MAX
    }
    fn read_exact_at(&self, _: &mut [u8], _: u64) -> std::io::Result<()> {
        Err(std::io::ErrorKind::Other.into())
    }
}

/// The spans of every member of `bytes`, when they are the members `keys` names, in order,
/// none escaped or repeated.
fn spans_checked(bytes: &[u8], keys: &[String]) -> Option<Vec<Span>> {
    let spans = spans_of(bytes)?;
    if spans.len() != keys.len()
        || spans
            .iter()
            .zip(keys)
            .any(|(s, k)| &bytes[s.key.clone()] != k.as_bytes())
    {
        return None;
    }
    let mut seen = std::collections::HashSet::with_capacity(keys.len());
    keys.iter()
        .all(|k| seen.insert(k.as_str()))
        .then_some(spans)
}

/// The members of a whole store (an object, a byte-order mark allowed before it).
fn spans_of(bytes: &[u8]) -> Option<Vec<Span>> {
    let start = if bytes.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    };
    let i = ws(bytes, start);
    if bytes.get(i) != Some(&b'{') {
        return None;
    }
    let i = ws(bytes, i + 1);
    let (spans, end) = if bytes.get(i) == Some(&b'}') {
        (Vec::new(), i)
    } else {
        let (spans, end) = members(bytes, i)?;
        (spans, ws(bytes, end))
    };
    (bytes.get(end) == Some(&b'}') && ws(bytes, end + 1) == bytes.len()).then_some(spans)
}

/// The members from `i` (a key's opening quote) on, separated by commas, up to the end of
/// the last (where neither a comma nor another member follows).
fn members(b: &[u8], mut i: usize) -> Option<(Vec<Span>, usize)> {
    let mut out = Vec::new();
    loop {
        let span = member(b, i)?;
        let end = span.whole.end;
        out.push(span);
        let j = ws(b, end);
        if b.get(j) != Some(&b',') {
            return Some((out, end));
        }
        i = ws(b, j + 1);
    }
}

/// One `"key": value` at `i`. A key with an escape is refused (its bytes are not its text).
fn member(b: &[u8], i: usize) -> Option<Span> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let (key_end, escaped) = string_end(b, i)?;
    if escaped {
        return None;
    }
    let j = ws(b, key_end);
    if b.get(j) != Some(&b':') {
        return None;
    }
    let v = ws(b, j + 1);
    let end = value_end(b, v)?;
    Some(Span {
        key: i + 1..key_end - 1,
        whole: i..end,
    })
}

fn ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The end (past the closing quote) of the string opening at `i`, and whether it holds an
/// escape.
fn string_end(b: &[u8], i: usize) -> Option<(usize, bool)> {
    let mut j = i + 1;
    let mut escaped = false;
    loop {
        j += memchr::memchr2(b'"', b'\\', b.get(j..)?)?;
        if b[j] == b'"' {
            return Some((j + 1, escaped));
        }
        escaped = true;
        j += 2;
    }
}

/// The end of the value at `i`: its extent only; what it holds is checked by the parse of
/// each changed entry (and was by the whole read, for the rest).
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i).map(|(e, _)| e),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            // Outside strings a store holds little (structure, numbers, white space); its
            // bulk, the strings, is skipped by `string_end`.
            loop {
                match *b.get(j)? {
                    b'"' => {
                        j = string_end(b, j)?.0;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let n = b[i..]
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(b.len() - i);
            (n > 0).then_some(i + n)
        }
    }
}

/// Bytes compared at a time before the byte that differs is looked for.
const CHUNK: usize = 4096;

/// How many leading bytes `a` and `b` share.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + CHUNK <= n && a[i..i + CHUNK] == b[i..i + CHUNK] {
        i += CHUNK;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many trailing bytes `a` and `b` share.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (ea, eb) = (a.len(), b.len());
    let mut i = 0;
    while i + CHUNK <= n && a[ea - i - CHUNK..ea - i] == b[eb - i - CHUNK..eb - i] {
        i += CHUNK;
    }
    i + a[..ea - i]
        .iter()
        .rev()
        .zip(b[..eb - i].iter().rev())
        .take(n - i)
        .take_while(|(x, y)| x == y)
        .count()
}

/// The member at `span` of `bytes`, parsed as a whole read parses it; None when it is not a
/// readable session (a whole read says why).
fn entry_at(bytes: &[u8], span: &Span) -> Option<(String, StoreEntry)> {
    let mut one = Vec::with_capacity(span.whole.len() + 2);
    one.push(b'{');
    one.extend_from_slice(&bytes[span.whole.clone()]);
    one.push(b'}');
    let mut parsed = crate::store_entry::parse(&one).ok()?;
    let ParsedEntry { key, entry } = parsed.pop().filter(|_| parsed.is_empty())?;
    Some((key, entry.ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(text: &str) -> StoreBytes {
        let parsed = crate::store_entry::parse(text.as_bytes()).unwrap();
        StoreBytes::new(text.as_bytes().to_vec(), &parsed)
    }

    fn keys(d: &Diff) -> Vec<&str> {
        match d {
            Diff::Entries(e) => e.iter().map(|(k, _)| k.as_str()).collect(),
            _ => Vec::new(),
        }
    }

    const STORE: &str = r#"{
  "a": {"sessionId": "s-a", "updatedAt": 1000, "skills": {"x": ["{", "}\"", 1]}},
  "b": {"sessionId": "s-b", "updatedAt": 2000},
  "c": {"sessionId": "s-c", "updatedAt": 3000, "n": null}
}"#;

    #[test]
    fn one_entry_moved_is_that_entry_parsed() {
        let mut k = kept(STORE);
        let new = STORE.replace("2000", "2001").into_bytes();
        let d = k.compare(&new);
        assert_eq!(keys(&d), ["b"]);
        let Diff::Entries(e) = d else { unreachable!() };
        assert_eq!(e[0].1.updated_at, Some(2001));
        // A longer value moves the members after it; the next change still finds them.
        let new = STORE
            .replace("2000", "20010")
            .replace("3000", "3001")
            .into_bytes();
        let d = k.compare(&new);
        assert_eq!(keys(&d), ["b", "c"]);
        let new = STORE
            .replace("2000", "20010")
            .replace("3000", "3")
            .into_bytes();
        let d = k.compare(&new);
        assert_eq!(keys(&d), ["c"]);
        let again = STORE
            .replace("2000", "20010")
            .replace("3000", "3")
            .into_bytes();
        assert_eq!(k.compare(&again), Diff::Same);
        // The first and the last, far apart: the run between is scanned, only they parse.
        let new = STORE
            .replace("2000", "20010")
            .replace("3000", "4")
            .replace("1000", "9")
            .into_bytes();
        assert_eq!(keys(&k.compare(&new)), ["a", "c"]);
    }

    #[test]
    fn what_it_cannot_tell_is_unsure() {
        for new in [
            STORE.replace("\"b\"", "\"bb\""),
            STORE.replace("  \"c\"", "  \"d\": {\"sessionId\": \"s-d\"},\n  \"c\""),
            STORE.replace(
                ",\n  \"c\": {\"sessionId\": \"s-c\", \"updatedAt\": 3000, \"n\": null}",
                "",
            ),
            STORE.replace("{\"sessionId\": \"s-b\", \"updatedAt\": 2000}", "[]"),
            STORE.replace("\"s-b\"", "\"../x\""),
            STORE.replace("\"s-b\", ", "\"s-b\" "),
            STORE.replace("\n}", "\n}}"),
            STORE.replace("{\n", "{ \n"),
            String::new(),
            STORE[..40].to_string(),
        ] {
            let mut k = kept(STORE);
            let bytes = new.clone().into_bytes();
            assert_eq!(k.compare(&bytes), Diff::Unsure, "{new}");
        }
        // Keys with escapes, or repeated: never patched.
        for store in [
            r#"{"a\u0062": {"sessionId": "x"}, "c": {"sessionId": "y"}}"#,
            r#"{"a": {"sessionId": "x"}, "a": {"sessionId": "y"}}"#,
        ] {
            let mut k = kept(store);
            let bytes = store.replace("\"y\"", "\"z\"").into_bytes();
            assert_eq!(k.compare(&bytes), Diff::Unsure, "{store}");
        }
    }

    #[test]
    fn prefix_and_suffix_over_chunks() {
        let a: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
        let mut b = a.clone();
        b[9_000] ^= 1;
        assert_eq!(common_prefix(&a, &b), 9_000);
        assert_eq!(common_suffix(&a, &b), 20_000 - 9_001);
        assert_eq!(common_prefix(&a, &a[..5]), 5);
        assert_eq!(common_suffix(&a, &a[19_990..]), 10);
    }

    #[test]
    fn a_big_store_is_compared_from_its_file_a_chunk_at_a_time() {
        let entry = |i: usize, at: u64| {
            format!(
                "\"agent:main:s{i}\": {{\"sessionId\": \"s{i}\", \"updatedAt\": {at}, \"pad\": \"{}\"}}",
                "x".repeat(300)
            )
        };
        let store = |ats: &[u64]| {
            let members: Vec<String> = ats
                .iter()
                .enumerate()
                .map(|(i, at)| entry(i, *at))
                .collect();
            format!("{{\n  {}\n}}\n", members.join(",\n  "))
        };
        let mut ats = vec![1000u64; 3000];
        let mut k = kept(&store(&ats));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions.json");
        for (moved, at) in [
            (1500, 1_772_000_000_000),
            (2999, 7),
            (0, 123_456),
            (0, 123_456),
        ] {
            let same = ats[moved] == at;
            ats[moved] = at;
            std::fs::write(&path, store(&ats)).unwrap();
            let d = k.compare_file(&std::fs::File::open(&path).unwrap());
            assert_eq!(k.bytes, std::fs::read(&path).unwrap());
            match d {
                Diff::Entries(e) => {
                    assert_eq!(e.len(), 1);
                    assert_eq!(e[0].0, format!("agent:main:s{moved}"));
                    assert_eq!(e[0].1.updated_at, Some(at as i64));
                }
                Diff::Same => assert!(same),
                Diff::Unsure => panic!("unsure"),
            }
        }
        // White space between two members is outside every entry: unsure.
        let spaced = store(&ats).replacen(",\n  ", ",\n\n  ", 1);
        assert_eq!(k.compare(spaced.as_bytes()), Diff::Unsure);
    }
}
