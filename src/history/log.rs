//! Flush evidence in OpenClaw Gateway log files: the third witness of a flush, beside the
//! transcript's flush turns and the store's counters.
//!
//! A Gateway with verbose logging writes, for every turn of a session (facts:
//! docs/openclaw-2026.9.md §5; where the file is: §10):
//!
//! ```text
//! memoryFlush check: sessionKey=<key> tokenCount=<used> … compactionCount=<c> memoryFlushCompactionCount=<f> …
//! memoryFlush triggered: sessionKey=<key> tokenCount=<used> threshold=<F>
//! ```
//!
//! A `triggered` line is a flush that ran; its cycle is the `compactionCount` of the session's
//! latest `check` line before it. Where the log file lives depends on how the Gateway was
//! started (a file in the system temp dir, printed at start as `[gateway] log file: …`), so
//! the operator names it (`clawtop history KEY --log FILE`); clawtop never guesses one.
//!
//! A log is untrusted and can be huge: it is opened as every read-only file is (a FIFO or a
//! device is refused), read line by line up to [`MAX_LOG_BYTES`], and lines longer than
//! [`MAX_LINE_BYTES`] are skipped unread. The time of a line is the first RFC 3339 timestamp
//! on it, if any (the prefix differs between log setups; none is invented).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Bytes of one log read at most (the newest part of a bigger log is not reached: said).
pub const MAX_LOG_BYTES: u64 = 256 << 20;
/// A longer line is not a flush line (those are short): skipped without being kept.
pub const MAX_LINE_BYTES: usize = 64 << 10;
/// Flush lines kept per session: the first of each cycle, up to this many cycles. What is
/// kept of a log is bounded, not only what is read of it: a 256 MiB log of `triggered` lines
/// for one session is 2.5 million lines, all but one per cycle repeats. A session with more
/// cycles than this in one log is said (its log counts as not read to the end).
pub const MAX_LOG_CYCLES: usize = 4096;

/// One `memoryFlush triggered` line for the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFlush {
    /// 1-based line number in the file.
    pub line: usize,
    pub timestamp: Option<String>,
    /// The cycle: the session's `compactionCount` on its latest `check` line before this one.
    pub compaction_count: Option<u64>,
    pub token_count: Option<u64>,
    pub threshold: Option<u64>,
}

/// What one log file said about a session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogScan {
    /// The file as the operator named it.
    pub file: String,
    /// The first flush line of each cycle, in the order of the file.
    pub flushes: Vec<LogFlush>,
    /// Flush lines not kept: a cycle already in `flushes`.
    pub repeats: usize,
    /// Why the file was not read, or not read to its end.
    pub unread: Option<String>,
}

/// Reads `path` for the flush lines of the session `key`. Never fails: what could not be
/// read is said in [`LogScan::unread`].
pub fn scan(path: &Path, key: &str) -> LogScan {
    scan_many(path, &[key]).pop().unwrap_or_default()
}

/// Reads `path` once for the flush lines of each session of `keys`: one [`LogScan`] per key,
/// in the order of `keys`, which are distinct (`check` grades many sessions against one
/// log). Never fails.
pub fn scan_many(path: &Path, keys: &[&str]) -> Vec<LogScan> {
    let mut sc = Scanner::new(path, keys);
    let file = match crate::regular_file::open(path) {
        Ok(f) => f,
        Err(e) => return sc.failed(format!("not readable: {e}")),
    };
    let mut reader = BufReader::new(file.take(MAX_LOG_BYTES));
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match read_bounded_line(&mut reader, &mut buf) {
            Ok((0, _)) => break,
            Ok((n, _)) => sc.feed(&buf, n),
            Err(e) => {
                let why = format!("read failed at line {}: {e}", sc.line + 1);
                return sc.failed(why);
            }
        }
    }
    sc.finish()
}

/// The state of a scan after the lines fed so far: what [`scan_many`] reads a file with, and
/// what a [`Follow`] keeps between reads of a growing one.
#[derive(Debug, Clone)]
struct Scanner {
    keys: Vec<String>,
    out: Vec<LogScan>,
    index: std::collections::HashMap<String, usize>,
    /// Each session's cycle: the compactionCount of its latest `check` line so far.
    cycle: Vec<Option<u64>>,
    /// The cycles kept per session: at most MAX_LOG_CYCLES + 1 entries (the None cycle).
    kept: Vec<std::collections::HashSet<Option<u64>>>,
    over: Vec<bool>,
    line: usize,
    bytes: u64,
}

impl Scanner {
    fn new(path: &Path, keys: &[&str]) -> Scanner {
        let blank = LogScan {
            file: path.display().to_string(),
            ..LogScan::default()
        };
        Scanner {
            keys: keys.iter().map(|k| k.to_string()).collect(),
            out: vec![blank; keys.len()],
            index: keys
                .iter()
                .enumerate()
                .map(|(i, k)| (k.to_string(), i))
                .collect(),
            cycle: vec![None; keys.len()],
            kept: vec![Default::default(); keys.len()],
            over: vec![false; keys.len()],
            line: 0,
            bytes: 0,
        }
    }

    /// Every key's scan says why the file was not read.
    fn failed(mut self, why: String) -> Vec<LogScan> {
        for s in self.out.iter_mut() {
            s.unread = Some(why.clone());
        }
        self.out
    }

    /// One line (`buf`, at most [`MAX_LINE_BYTES`] + 1 of its bytes) that took `n` bytes of
    /// the file.
    fn feed(&mut self, buf: &[u8], n: usize) {
        self.line += 1;
        self.bytes += n as u64;
        if buf.len() > MAX_LINE_BYTES {
            return;
        }
        let line = self.line;
        let text = String::from_utf8_lossy(buf);
        let index = &self.index;
        let of = |fields: &str| field(fields, "sessionKey").and_then(|k| index.get(k).copied());
        if let Some(fields) = after(&text, "memoryFlush check: ") {
            if let Some(i) = of(fields) {
                self.cycle[i] = field(fields, "compactionCount").and_then(|v| v.parse().ok());
            }
        } else if let Some(fields) = after(&text, "memoryFlush triggered: ") {
            if let Some(i) = of(fields) {
                let cycle = self.cycle[i];
                if self.kept[i].contains(&cycle) {
                    self.out[i].repeats += 1;
                    return;
                }
                if self.kept[i].len() > MAX_LOG_CYCLES {
                    self.over[i] = true;
                    self.out[i].repeats += 1;
                    return;
                }
                self.kept[i].insert(cycle);
                self.out[i].flushes.push(LogFlush {
                    line,
                    timestamp: timestamp(&text),
                    compaction_count: cycle,
                    token_count: field(fields, "tokenCount").and_then(|v| v.parse().ok()),
                    threshold: field(fields, "threshold").and_then(|v| v.parse().ok()),
                });
            }
        }
    }

    fn finish(self) -> Vec<LogScan> {
        let mut out = self.out;
        for (i, o) in out.iter_mut().enumerate() {
            if self.over[i] {
                o.unread = Some(format!(
                    "flush lines of more than {MAX_LOG_CYCLES} cycles for {}; the later cycles were not kept",
                    crate::sanitize::one_line(&self.keys[i])
                ));
            }
        }
        if self.bytes >= MAX_LOG_BYTES {
            for s in out.iter_mut() {
                s.unread = Some(format!(
                    "only its first {} MiB were read",
                    MAX_LOG_BYTES >> 20
                ));
            }
        }
        out
    }
}

/// Bytes before the read position compared again at each read of a [`Follow`]: a log
/// truncated and written again past where it was read is then read from its start.
const FOLLOW_CHECK_BYTES: usize = 256;

/// One session's flush lines in a log read as it grows (the TUI's History pane is computed
/// again at each turn of the open session): each [`Follow::scan`] reads only the complete
/// lines added since the last one and gives what [`scan`] of the whole file gives. A file
/// replaced (another inode), shorter than what was read, or whose bytes before the read
/// position changed is read again from its start.
#[derive(Debug, Clone)]
pub struct Follow {
    path: std::path::PathBuf,
    key: String,
    /// Device and inode of the file read.
    id: Option<(u64, u64)>,
    /// Bytes read up to the end of the last complete line.
    offset: u64,
    /// The file's bytes just before `offset`.
    before: Vec<u8>,
    scanner: Scanner,
}

impl Follow {
    pub fn new(path: &Path, key: &str) -> Follow {
        Follow {
            path: path.to_path_buf(),
            key: key.to_string(),
            id: None,
            offset: 0,
            before: Vec::new(),
            scanner: Scanner::new(path, &[key]),
        }
    }

    /// The file and session this follows.
    pub fn is_of(&self, path: &Path, key: &str) -> bool {
        self.path == path && self.key == key
    }

    fn restart(&mut self) {
        *self = Follow::new(&self.path.clone(), &self.key.clone());
    }

    /// What [`scan`] gives of the file as it is now.
    pub fn scan(&mut self) -> LogScan {
        use std::io::{Seek, SeekFrom};
        use std::os::unix::fs::{FileExt, MetadataExt};
        let mut file = match crate::regular_file::open(&self.path) {
            Ok(f) => f,
            Err(e) => {
                self.restart();
                return self
                    .scanner
                    .clone()
                    .failed(format!("not readable: {e}"))
                    .remove(0);
            }
        };
        let meta = file.metadata();
        let id = meta.as_ref().ok().map(|m| (m.dev(), m.ino()));
        let len = meta.map(|m| m.len()).unwrap_or(0);
        let same_bytes = || {
            let mut b = vec![0; self.before.len()];
            file.read_exact_at(&mut b, self.offset - self.before.len() as u64)
                .is_ok_and(|()| b == self.before)
        };
        if id != self.id || len < self.offset || !same_bytes() {
            self.restart();
            self.id = id;
        }
        let start = self.offset;
        if file.seek(SeekFrom::Start(start)).is_err() {
            self.restart();
            return Scanner::new(&self.path, &[&self.key])
                .failed("seek failed".into())
                .remove(0);
        }
        let mut reader = BufReader::new(file.take(MAX_LOG_BYTES.saturating_sub(start)));
        let mut buf = Vec::new();
        let mut tail: Vec<u8> = std::mem::take(&mut self.before);
        loop {
            buf.clear();
            match read_bounded_line(&mut reader, &mut buf) {
                Ok((0, _)) => break,
                Ok((n, true)) => {
                    self.scanner.feed(&buf, n);
                    self.offset += n as u64;
                    if n == buf.len() + 1 {
                        // The line's last bytes and its newline, as they are in the file.
                        tail.extend_from_slice(
                            &buf[buf.len().saturating_sub(FOLLOW_CHECK_BYTES)..],
                        );
                        tail.push(b'\n');
                        let cut = tail.len().saturating_sub(FOLLOW_CHECK_BYTES);
                        tail.drain(..cut);
                    } else {
                        // A line longer than kept: its end is not at hand; nothing is checked.
                        tail.clear();
                    }
                }
                Ok((n, false)) => {
                    // An unfinished last line: counted as scan counts it, not kept.
                    self.before = tail;
                    let mut sc = self.scanner.clone();
                    sc.feed(&buf, n);
                    return sc.finish().remove(0);
                }
                Err(e) => {
                    let why = format!("read failed at line {}: {e}", self.scanner.line + 1);
                    let out = self.scanner.clone().failed(why).remove(0);
                    self.restart();
                    return out;
                }
            }
        }
        self.before = tail;
        self.scanner.clone().finish().remove(0)
    }
}

/// One line into `buf` (without its newline), keeping at most [`MAX_LINE_BYTES`] + 1 bytes
/// of it; returns the bytes consumed (0 at the end) and whether the line ended with a
/// newline.
fn read_bounded_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<(usize, bool)> {
    let mut consumed = 0;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok((consumed, false));
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = (MAX_LINE_BYTES + 1).saturating_sub(buf.len());
        let keep = if done { take - 1 } else { take };
        buf.extend_from_slice(&chunk[..keep.min(room)]);
        r.consume(take);
        consumed += take;
        if done {
            return Ok((consumed, true));
        }
    }
}

fn after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    text.find(marker).map(|i| &text[i + marker.len()..])
}

/// The value of `name=value` among space-separated fields.
fn field<'a>(fields: &'a str, name: &str) -> Option<&'a str> {
    fields.split_ascii_whitespace().find_map(|kv| {
        kv.strip_prefix(name)
            .and_then(|rest| rest.strip_prefix('='))
    })
}

/// The first RFC 3339 timestamp on the line (bracketed or quoted is fine), normalised to UTC.
fn timestamp(text: &str) -> Option<String> {
    text.split(|c: char| c.is_ascii_whitespace() || matches!(c, '[' | ']' | '"' | ','))
        .filter(|w| w.len() >= 20 && w.as_bytes()[0].is_ascii_digit())
        .find_map(|w| chrono::DateTime::parse_from_rfc3339(w).ok())
        .map(|d| {
            d.with_timezone(&chrono::Utc)
                .format("%Y-%m-%dT%H:%M:%S%.3fZ")
                .to_string()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_text(text: &str, key: &str) -> LogScan {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("gw.log");
        std::fs::write(&p, text).unwrap();
        scan(&p, key)
    }

    /// Issue 31: a followed log gives at every read what a whole scan gives, through appends
    /// (a line written in two parts), a truncation, a replacement and a rewrite in place
    /// past the read position; it reads only what was added.
    #[test]
    fn a_followed_log_reads_what_grew_and_gives_what_a_scan_gives() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("gw.log");
        let key = "agent:main:main";
        let check = |c: u32| format!("memoryFlush check: sessionKey={key} compactionCount={c}\n");
        let flush = format!(
            "2026-11-23T10:05:01.000Z memoryFlush triggered: sessionKey={key} tokenCount=31000 threshold=30000\n"
        );
        let append = |s: &str| {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&p)
                .unwrap();
            f.write_all(s.as_bytes()).unwrap();
        };
        let mut f = Follow::new(&p, key);
        assert_eq!(f.scan(), scan(&p, key), "missing file");
        append(&(check(0) + &flush));
        assert_eq!(f.scan(), scan(&p, key));
        let read = f.offset;
        assert_eq!(read, std::fs::metadata(&p).unwrap().len());
        append(&check(1));
        append(&flush[..20]);
        assert_eq!(f.scan(), scan(&p, key), "an unfinished line");
        assert_eq!(
            f.offset,
            read + check(1).len() as u64,
            "only whole lines are kept"
        );
        append(&flush[20..]);
        let s = f.scan();
        assert_eq!(s, scan(&p, key));
        assert_eq!(s.flushes.len(), 2);
        // Truncated, then written again past the old end with other bytes.
        std::fs::write(&p, check(7).repeat(4) + &flush).unwrap();
        let s = f.scan();
        assert_eq!(s, scan(&p, key));
        assert_eq!(s.flushes[0].compaction_count, Some(7));
        // Replaced by another file of the same length.
        let q = dir.path().join("new.log");
        std::fs::write(&q, check(8).repeat(4) + &flush).unwrap();
        std::fs::rename(&q, &p).unwrap();
        let s = f.scan();
        assert_eq!(s, scan(&p, key));
        assert_eq!(s.flushes[0].compaction_count, Some(8));
        std::fs::remove_file(&p).unwrap();
        assert_eq!(f.scan(), scan(&p, key), "removed");
    }

    /// Issue 33 item 8: what is kept of a log is bounded by its cycles, not its lines.
    #[test]
    fn repeated_flush_lines_of_a_cycle_are_counted_not_kept() {
        let mut log = String::from(
            "memoryFlush check: sessionKey=agent:main:main tokenCount=1 compactionCount=3\n",
        );
        for _ in 0..10_000 {
            log.push_str(
                "2026-11-23T10:05:01.000Z memoryFlush triggered: sessionKey=agent:main:main tokenCount=31000 threshold=30000\n",
            );
        }
        let s = scan_text(&log, "agent:main:main");
        assert_eq!(s.flushes.len(), 1);
        assert_eq!(s.flushes[0].compaction_count, Some(3));
        assert_eq!(s.flushes[0].line, 2);
        assert_eq!(s.repeats, 9_999);
        assert_eq!(s.unread, None);
    }

    #[test]
    fn more_cycles_than_kept_is_said() {
        let mut log = String::new();
        for c in 0..MAX_LOG_CYCLES + 10 {
            log.push_str(&format!(
                "memoryFlush check: sessionKey=k compactionCount={c}\nmemoryFlush triggered: sessionKey=k\n"
            ));
        }
        let s = scan_text(&log, "k");
        assert_eq!(s.flushes.len(), MAX_LOG_CYCLES + 1);
        assert!(
            s.unread
                .as_deref()
                .unwrap()
                .contains("more than 4096 cycles"),
            "{:?}",
            s.unread
        );
    }

    #[test]
    fn a_triggered_line_is_a_flush_in_the_cycle_of_the_latest_check() {
        let log = "\
2026-11-23T10:00:00.000Z memoryFlush check: sessionKey=agent:main:main tokenCount=12000 contextWindow=48000 threshold=30000 compactionCount=0 memoryFlushCompactionCount=0
2026-11-23T10:05:00.000Z memoryFlush check: sessionKey=agent:main:other tokenCount=31000 contextWindow=48000 threshold=30000 compactionCount=4 memoryFlushCompactionCount=3
2026-11-23T10:05:01.000Z memoryFlush triggered: sessionKey=agent:main:other tokenCount=31000 threshold=30000
2026-11-23T10:09:00.000Z memoryFlush check: sessionKey=agent:main:main tokenCount=30500 contextWindow=48000 threshold=30000 compactionCount=1 memoryFlushCompactionCount=0
[2026-11-23T10:09:01+01:00] memoryFlush triggered: sessionKey=agent:main:main tokenCount=30500 threshold=30000
";
        let s = scan_text(log, "agent:main:main");
        assert_eq!(s.unread, None);
        assert_eq!(
            s.flushes,
            vec![LogFlush {
                line: 5,
                timestamp: Some("2026-11-23T09:09:01.000Z".into()),
                compaction_count: Some(1),
                token_count: Some(30500),
                threshold: Some(30000),
            }]
        );
        // A key that is only a prefix of another is not that session.
        assert!(scan_text(log, "agent:main").flushes.is_empty());
    }

    #[test]
    fn no_time_no_check_and_hostile_lines_are_unknown_not_errors() {
        let long = "x".repeat(MAX_LINE_BYTES * 3);
        let log = format!(
            "memoryFlush triggered: sessionKey=k tokenCount=abc\n{long}memoryFlush triggered: sessionKey=k\n\u{1b}[2J\0\n"
        );
        let s = scan_text(&log, "k");
        assert_eq!(s.flushes.len(), 1, "the over-long line is skipped");
        let f = &s.flushes[0];
        assert_eq!((f.timestamp.as_deref(), f.compaction_count), (None, None));
        assert_eq!(f.token_count, None);
    }

    #[test]
    fn a_fifo_or_a_missing_file_is_said_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let s = scan(&dir.path().join("none.log"), "k");
        assert!(s.unread.as_deref().unwrap().contains("not readable"));
        let s = scan(dir.path(), "k");
        assert!(s.unread.as_deref().unwrap().contains("directory"), "{s:?}");
    }

    /// One pass for many sessions gives each the scan it would get alone (its own cycle from
    /// its own check lines), in the order asked; a file that cannot be read is said for all.
    #[test]
    fn one_pass_for_many_sessions_equals_one_scan_each() {
        let log = "\
2026-11-23T10:00:00.000Z memoryFlush check: sessionKey=a compactionCount=2
2026-11-23T10:00:01.000Z memoryFlush check: sessionKey=b compactionCount=7
2026-11-23T10:00:02.000Z memoryFlush triggered: sessionKey=a tokenCount=10 threshold=9
2026-11-23T10:00:03.000Z memoryFlush triggered: sessionKey=b tokenCount=20 threshold=9
2026-11-23T10:00:04.000Z memoryFlush check: sessionKey=a compactionCount=3
2026-11-23T10:00:05.000Z memoryFlush triggered: sessionKey=a tokenCount=11 threshold=9
2026-11-23T10:00:06.000Z memoryFlush triggered: sessionKey=c tokenCount=1 threshold=1
";
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("gw.log");
        std::fs::write(&p, log).unwrap();
        let many = scan_many(&p, &["b", "a", "none"]);
        assert_eq!(many, vec![scan(&p, "b"), scan(&p, "a"), scan(&p, "none")]);
        let cycles: Vec<_> = many[1].flushes.iter().map(|f| f.compaction_count).collect();
        assert_eq!(cycles, [Some(2), Some(3)]);
        assert_eq!(many[0].flushes[0].compaction_count, Some(7));
        assert!(many[2].flushes.is_empty());
        let gone = scan_many(&dir.path().join("missing.log"), &["a", "b"]);
        assert!(gone.iter().all(|s| {
            s.unread
                .as_deref()
                .is_some_and(|w| w.starts_with("not readable"))
        }));
    }
}
