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
    let blank = LogScan {
        file: path.display().to_string(),
        ..LogScan::default()
    };
    let mut out = vec![blank; keys.len()];
    let fail = |out: &mut Vec<LogScan>, why: String| {
        for s in out.iter_mut() {
            s.unread = Some(why.clone());
        }
    };
    let index: std::collections::HashMap<&str, usize> =
        keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let file = match crate::regular_file::open(path) {
        Ok(f) => f,
        Err(e) => {
            fail(&mut out, format!("not readable: {e}"));
            return out;
        }
    };
    let mut reader = BufReader::new(file.take(MAX_LOG_BYTES));
    let mut buf = Vec::new();
    // Each session's cycle: the compactionCount of its latest `check` line so far.
    let mut cycle: Vec<Option<u64>> = vec![None; keys.len()];
    // The cycles kept per session: at most MAX_LOG_CYCLES + 1 entries (the None cycle).
    let mut kept: Vec<std::collections::HashSet<Option<u64>>> =
        vec![Default::default(); keys.len()];
    let mut over: Vec<bool> = vec![false; keys.len()];
    let mut line = 0usize;
    let mut bytes = 0u64;
    loop {
        buf.clear();
        let n = match read_bounded_line(&mut reader, &mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                fail(&mut out, format!("read failed at line {}: {e}", line + 1));
                return out;
            }
        };
        line += 1;
        bytes += n as u64;
        if buf.len() > MAX_LINE_BYTES {
            continue;
        }
        let text = String::from_utf8_lossy(&buf);
        let of = |fields: &str| field(fields, "sessionKey").and_then(|k| index.get(k).copied());
        if let Some(fields) = after(&text, "memoryFlush check: ") {
            if let Some(i) = of(fields) {
                cycle[i] = field(fields, "compactionCount").and_then(|v| v.parse().ok());
            }
        } else if let Some(fields) = after(&text, "memoryFlush triggered: ") {
            if let Some(i) = of(fields) {
                if kept[i].contains(&cycle[i]) {
                    out[i].repeats += 1;
                    continue;
                }
                if kept[i].len() > MAX_LOG_CYCLES {
                    over[i] = true;
                    out[i].repeats += 1;
                    continue;
                }
                kept[i].insert(cycle[i]);
                out[i].flushes.push(LogFlush {
                    line,
                    timestamp: timestamp(&text),
                    compaction_count: cycle[i],
                    token_count: field(fields, "tokenCount").and_then(|v| v.parse().ok()),
                    threshold: field(fields, "threshold").and_then(|v| v.parse().ok()),
                });
            }
        }
    }
    for (i, o) in out.iter_mut().enumerate() {
        if over[i] {
            o.unread = Some(format!(
                "flush lines of more than {MAX_LOG_CYCLES} cycles for {}; the later cycles were not kept",
                crate::sanitize::one_line(keys[i])
            ));
        }
    }
    if bytes >= MAX_LOG_BYTES {
        fail(
            &mut out,
            format!("only its first {} MiB were read", MAX_LOG_BYTES >> 20),
        );
    }
    out
}

/// One line into `buf` (without its newline), keeping at most [`MAX_LINE_BYTES`] + 1 bytes
/// of it; returns the bytes consumed (0 at the end).
fn read_bounded_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut consumed = 0;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(consumed);
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
            return Ok(consumed);
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
