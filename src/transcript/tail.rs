//! The time of a transcript's last entry without opening the transcript: the file's tail is
//! read (a few KiB for a usual last line, more only when that line is long), so every
//! session of a large host can be checked on each reload.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Reads grow through these sizes until the last line's start is found.
const STEPS: [u64; 3] = [4 * 1024, 256 * 1024, 16 * 1024 * 1024];

/// The `timestamp` of the file's last non-blank line, in ms since the epoch; None when the
/// file cannot be read, the line is not an entry with an RFC 3339 `timestamp` (a line being
/// written, garbage), or the line is longer than the largest read.
pub fn last_entry_ms(path: &Path) -> Option<i64> {
    let mut f = crate::regular_file::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    for step in STEPS {
        let start = len.saturating_sub(step);
        f.seek(SeekFrom::Start(start)).ok()?;
        let mut buf = Vec::with_capacity((len - start) as usize);
        (&mut f).take(len - start).read_to_end(&mut buf).ok()?;
        let end = buf.iter().rposition(|b| !b.is_ascii_whitespace())? + 1;
        let line = match memchr::memrchr(b'\n', &buf[..end]) {
            Some(nl) => &buf[nl + 1..end],
            None if start == 0 => &buf[..end],
            None => continue,
        };
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        let ts = v.get("timestamp")?.as_str()?;
        return chrono::DateTime::parse_from_rfc3339(ts)
            .ok()
            .map(|d| d.timestamp_millis());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_line_counts_however_long_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        let long = "x".repeat(300_000);
        std::fs::write(
            &p,
            format!(
                "{{\"type\":\"session\",\"timestamp\":\"2026-11-21T04:00:00.000Z\"}}\n{{\"type\":\"message\",\"timestamp\":\"2026-11-21T04:22:23.655Z\",\"text\":\"{long}\"}}\n\n"
            ),
        )
        .unwrap();
        assert_eq!(last_entry_ms(&p), Some(1_795_234_943_655));
        std::fs::write(
            &p,
            "{\"type\":\"message\",\"timestamp\":\"2026-11-21T04:00:00.000Z\"}\n{\"type\":\"mess",
        )
        .unwrap();
        assert_eq!(last_entry_ms(&p), None, "a line being written has no time");
        assert_eq!(last_entry_ms(&dir.path().join("missing")), None);
    }
}
