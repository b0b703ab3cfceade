//! The time of a transcript's last entry without opening the transcript: the file's tail is
//! read (a few KiB for a usual last line, more only when that line is long), so every
//! session of a large host can be checked on each reload.
//!
//! Also the last entries of a transcript ([`Tail`]), slimmed to what the forecast reads: every
//! source hands them over (`SessionSource::transcript_tail`), so they live below the sources
//! here rather than in `history`, which reads them.

use serde_json::Value;
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

/// How many turn-to-turn growths the forecast takes the median of. Here because the sources'
/// tail readers stop once they have this many turns (`history` re-exports it).
pub const FORECAST_TURNS: usize = 10;

/// How a tail read given `budget` bytes goes (every source's and the open transcript's):
/// the first, small read stops at the user turns the forecast takes (and two more), so one
/// read is usually enough and a session of a few big turns is not read a MiB at a time for
/// nothing; any later read goes by bytes only (at least 1 MiB), because turns that measured
/// nothing (aborted, failed) can leave the first one short, and stopping at the same count
/// again would read the same rows again.
pub fn read_limits(budget: u64) -> (u64, Option<usize>) {
    const FIRST: u64 = 1 << 20;
    let users = (budget < FIRST).then_some(FORECAST_TURNS + 2);
    (budget.max(FIRST), users)
}

/// The last entries of a transcript.
#[derive(Debug, Default)]
pub struct Tail {
    /// Decoded entries in append order (lines that are not JSON are left out); shared, as an
    /// open transcript keeps the heads it made ([`super::Transcript::slim`]).
    pub entries: Vec<std::sync::Arc<Value>>,
    /// True when they reach the transcript's start.
    pub complete: bool,
}

/// The last `budget` bytes of a JSONL file (from the first line start inside them), decoded.
pub fn read_file(path: &Path, budget: u64) -> std::io::Result<Tail> {
    let mut f = std::fs::File::open(path)?;
    let len = f.metadata()?.len();
    let start = len.saturating_sub(budget);
    f.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::with_capacity((len - start) as usize);
    (&mut f).take(len - start).read_to_end(&mut buf)?;
    let body = if start == 0 {
        &buf[..]
    } else {
        // The first line is cut (or starts exactly here: then it is dropped too, harmlessly).
        match memchr::memchr(b'\n', &buf) {
            Some(nl) => &buf[nl + 1..],
            None => &[][..],
        }
    };
    let entries = body
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .filter_map(slim)
        .map(std::sync::Arc::new)
        .collect();
    Ok(Tail {
        entries,
        complete: start == 0,
    })
}

/// The fields of an entry the series reads; the rest (tool results, assistant text, the
/// bulk of a transcript) is skipped without being built.
#[derive(serde::Deserialize)]
struct SlimEntry<'a> {
    #[serde(rename = "type", borrow)]
    ty: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<std::borrow::Cow<'a, str>>,
    #[serde(rename = "parentId", borrow)]
    parent_id: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<std::borrow::Cow<'a, str>>,
    #[serde(rename = "tokensAfter")]
    tokens_after: Option<Value>,
    #[serde(borrow)]
    message: Option<SlimMessage<'a>>,
}

#[derive(serde::Deserialize)]
struct SlimMessage<'a> {
    #[serde(borrow)]
    role: Option<std::borrow::Cow<'a, str>>,
    usage: Option<Value>,
    #[serde(rename = "stopReason", borrow)]
    stop_reason: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    provider: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    model: Option<std::borrow::Cow<'a, str>>,
    timestamp: Option<Value>,
    #[serde(borrow)]
    content: Option<&'a serde_json::value::RawValue>,
}

/// One entry's JSON reduced to what `history::series::step_of`, the branch walk and
/// `used::facts` read: the envelope and a compaction's `tokensAfter`, and of a message its
/// role, usage, stop reason, provider, model and time, plus the content of user messages
/// only (the flush prompt is recognised there). None for a line that is not a JSON object
/// of that shape.
pub fn slim(line: &[u8]) -> Option<Value> {
    let e: SlimEntry = super::parse::from_bytes(line).ok()?;
    let mut o = serde_json::Map::with_capacity(6);
    let mut put = |k: &str, v: Option<std::borrow::Cow<'_, str>>| {
        if let Some(v) = v {
            o.insert(k.into(), Value::String(v.into_owned()));
        }
    };
    put("type", e.ty);
    put("id", e.id);
    put("parentId", e.parent_id);
    put("timestamp", e.timestamp);
    if let Some(n) = e.tokens_after {
        o.insert("tokensAfter".into(), n);
    }
    if let Some(m) = e.message {
        let mut mo = serde_json::Map::with_capacity(7);
        let user = m.role.as_deref() == Some("user");
        for (k, v) in [
            ("role", m.role),
            ("stopReason", m.stop_reason),
            ("provider", m.provider),
            ("model", m.model),
        ] {
            if let Some(v) = v {
                mo.insert(k.into(), Value::String(v.into_owned()));
            }
        }
        if let Some(u) = m.usage {
            mo.insert("usage".into(), u);
        }
        if let Some(ts) = m.timestamp {
            mo.insert("timestamp".into(), ts);
        }
        if let (true, Some(c)) = (user, m.content) {
            if let Ok(c) = serde_json::from_str::<Value>(c.get()) {
                mo.insert("content".into(), c);
            }
        }
        o.insert("message".into(), Value::Object(mo));
    }
    Some(Value::Object(o))
}

/// What [`slim`] gives of a line holding a user message, read the same way without making
/// the rest of its value (the scan captures it for the history's walk of the branch).
pub(crate) enum SlimUser {
    /// [`slim`] refuses the line.
    Refused,
    /// No user message.
    Other,
    /// Its `timestamp` and `content` as [`slim`] has them (content None: absent, or left out
    /// as it does).
    User {
        timestamp: Option<String>,
        content: Option<Value>,
    },
}

pub(crate) fn slim_user(line: &[u8]) -> SlimUser {
    let Ok(e) = super::parse::from_bytes::<SlimEntry>(line) else {
        return SlimUser::Refused;
    };
    match e.message {
        Some(m) if m.role.as_deref() == Some("user") => SlimUser::User {
            timestamp: e.timestamp.map(|t| t.into_owned()),
            content: m
                .content
                .and_then(|c| serde_json::from_str::<Value>(c.get()).ok()),
        },
        _ => SlimUser::Other,
    }
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
