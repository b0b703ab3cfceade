//! The forecast from the end of a transcript only: `list` forecasts every session of a host,
//! so it reads the last entries (a few KiB to a few MiB), not the whole file.
//!
//! A source hands over the last entries in append order ([`Tail`], through
//! [`crate::source::SessionSource::transcript_tail`]); the active branch is followed back from
//! the last entry through `parentId` as far as the tail reaches (file order for v1 files
//! without ids), and the reads grow through [`BUDGETS`] until they show enough turns or the
//! start of the transcript.

use super::series::{self, At, FORECAST_TURNS, Forecast, Step};
use crate::source::{SessionRef, SessionSource, SourceError};
use crate::thresholds::{Rules, Thresholds};
use serde_json::Value;

/// Read sizes, in bytes of transcript, tried in order.
pub const BUDGETS: [u64; 3] = [64 << 10, 1 << 20, 16 << 20];

pub use crate::transcript::tail::{Tail, read_file, slim};

/// The active branch's steps within the tail, oldest first, and whether they reach back far
/// enough (to the start, or over the measured turns the forecast takes).
pub fn steps(tail: &Tail, rules: Rules) -> (Vec<(Step, At)>, bool) {
    branch_steps(tail, rules)
}

/// The last entries as [`branch_steps`] reads them: a source's [`Tail`] of decoded entries,
/// or an open transcript's ([`OpenTail`]), whose uncounted entries are never made values.
trait TailEntries {
    fn len(&self) -> usize;
    /// True when the entries reach the transcript's start.
    fn complete(&self) -> bool;
    fn id(&self, k: usize) -> Option<&str>;
    fn parent_id(&self, k: usize) -> Option<&str>;
    /// Whether the entry is a session header.
    fn is_header(&self, k: usize) -> bool;
    /// The entry's step ([`series::step_of`]) and its `timestamp`, when it is one.
    fn step(&self, k: usize, rules: Rules) -> Option<(Step, Option<&str>)>;
}

/// [`TailEntries::step`] of a decoded entry.
fn step_of_head(v: &Value, rules: Rules) -> Option<(Step, Option<&str>)> {
    series::step_of(rules, v).map(|s| (s, text(v, "timestamp")))
}

impl TailEntries for Tail {
    fn len(&self) -> usize {
        self.entries.len()
    }
    fn complete(&self) -> bool {
        self.complete
    }
    fn id(&self, k: usize) -> Option<&str> {
        text(&self.entries[k], "id")
    }
    fn parent_id(&self, k: usize) -> Option<&str> {
        text(&self.entries[k], "parentId")
    }
    fn is_header(&self, k: usize) -> bool {
        text(&self.entries[k], "type") == Some("session")
    }
    fn step(&self, k: usize, rules: Rules) -> Option<(Step, Option<&str>)> {
        step_of_head(&self.entries[k], rules)
    }
}

/// A decoded entry's string field (None when absent or not a string).
fn text<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// [`steps`] over any [`TailEntries`]: one walk for a source's tail and an open transcript's.
fn branch_steps(e: &impl TailEntries, rules: Rules) -> (Vec<(Step, At)>, bool) {
    let is_header = |k: usize| e.is_header(k);
    let n = e.len();
    // A v1 file's header can carry an id while its entries have none: the entries decide.
    let has_ids = (0..n).any(|k| e.id(k).is_some() && !is_header(k));
    let mut branch: Vec<usize> = Vec::new();
    let mut cut = false;
    if has_ids {
        // foldhash (seeded per process, as std's is) rather than SipHash: this table is built
        // for every session of a listing.
        let by_id: foldhash::HashMap<&str, usize> =
            (0..n).filter_map(|k| e.id(k).map(|i| (i, k))).collect();
        let mut cur = (0..n).rposition(|k| e.id(k).is_some() && !is_header(k));
        while let Some(k) = cur {
            branch.push(k);
            cur = match e.parent_id(k) {
                Some(p) => match by_id.get(p) {
                    // Parents come earlier in append order; anything else (a cycle) stops.
                    Some(&pk) if pk < k => Some(pk),
                    _ => {
                        cut = true;
                        None
                    }
                },
                None => None,
            };
        }
        branch.reverse();
    } else {
        branch = (0..n).collect();
        cut = !e.complete();
    }
    let mut out = Vec::new();
    for k in branch {
        if let Some((s, timestamp)) = e.step(k, rules) {
            out.push((
                s,
                At {
                    id: e.id(k).map(str::to_string),
                    timestamp: timestamp.map(str::to_string),
                },
            ));
        }
    }
    // Enough when the tail shows the turns the forecast takes, counted the way the forecast
    // counts them (measured turns; one more, as the first may be cut), so a longer read could
    // not change its answer.
    let measured = series::turns(out.iter().cloned())
        .iter()
        .filter(|t| t.tokens.is_some())
        .count();
    let enough = !cut || measured > FORECAST_TURNS + 1;
    (out, enough)
}

/// The turns at the end of a session's transcript, reading more only while needed.
pub fn turns_of(
    source: &dyn SessionSource,
    session: &SessionRef,
    rules: Rules,
) -> Result<Vec<series::Turn>, SourceError> {
    let mut last = Vec::new();
    for budget in BUDGETS {
        let tail = source.transcript_tail(session, budget)?;
        let (s, enough) = steps(&tail, rules);
        last = s;
        if enough || tail.complete {
            break;
        }
    }
    Ok(series::turns(last))
}

/// The last entries of a transcript already open, as [`branch_steps`] reads them: the
/// messages the scan captured as their steps, the other entries the series counts
/// (compactions, messages not captured) as their heads, every other one (tool results: the
/// bulk of a transcript) as its written `id` and `parentId` from the index, never made a
/// value.
struct OpenTail<'t> {
    /// Per entry in append order.
    entries: Vec<OpenEntry<'t>>,
    complete: bool,
}

type WrittenId<'t> = Option<crate::transcript::Id<'t>>;

enum OpenEntry<'t> {
    Head(std::sync::Arc<Value>),
    /// A message the scan captured: its written ids, its step
    /// ([`series::step_of_captured`]) and its `timestamp`.
    Step(WrittenId<'t>, WrittenId<'t>, Option<Step>, Option<&'t str>),
    Ids(WrittenId<'t>, WrittenId<'t>),
}

impl TailEntries for OpenTail<'_> {
    fn len(&self) -> usize {
        self.entries.len()
    }
    fn complete(&self) -> bool {
        self.complete
    }
    fn id(&self, k: usize) -> Option<&str> {
        match &self.entries[k] {
            OpenEntry::Head(v) => text(v, "id"),
            OpenEntry::Step(id, ..) | OpenEntry::Ids(id, _) => id.as_deref(),
        }
    }
    fn parent_id(&self, k: usize) -> Option<&str> {
        match &self.entries[k] {
            OpenEntry::Head(v) => text(v, "parentId"),
            OpenEntry::Step(_, parent, ..) | OpenEntry::Ids(_, parent) => parent.as_deref(),
        }
    }
    fn is_header(&self, k: usize) -> bool {
        match &self.entries[k] {
            OpenEntry::Head(v) => text(v, "type") == Some("session"),
            OpenEntry::Step(..) | OpenEntry::Ids(..) => false,
        }
    }
    fn step(&self, k: usize, rules: Rules) -> Option<(Step, Option<&str>)> {
        match &self.entries[k] {
            OpenEntry::Head(v) => step_of_head(v, rules),
            OpenEntry::Step(_, _, step, timestamp) => step.map(|s| (s, *timestamp)),
            OpenEntry::Ids(..) => None,
        }
    }
}

/// The tail of a transcript already open (`list` has it open for `used`), so the forecast
/// needs no second read of the session. Only the entries the series can count (user and
/// assistant messages, compactions) are decoded, as a SQLite source's tail keeps a tool
/// result's projection: on the 81-row bench host, making every other entry an object was a
/// third of this read.
fn tail_of_transcript(
    t: &crate::transcript::Transcript,
    budget: u64,
    rules: Rules,
) -> OpenTail<'_> {
    use crate::transcript::{Captured, EntryKind, Role};
    let (budget, max_users) = crate::transcript::tail::read_limits(budget);
    let (mut entries, mut bytes, mut users) = (Vec::new(), 0u64, 0usize);
    let mut k = t.entries.len();
    while k > 0 && bytes < budget && max_users.is_none_or(|m| users <= m) {
        k -= 1;
        let e = &t.entries[k];
        bytes += u64::from(e.len);
        let counted = matches!(
            e.kind,
            EntryKind::Compaction
                | EntryKind::Message(Role::User)
                | EntryKind::Message(Role::Assistant)
        );
        // A message the scan captured is read as its step, made neither from its line nor
        // as a head (on the 81-row bench host making those heads was a twelfth of a cold
        // list); the heads the transcript keeps are shared, not copied.
        let ids = || (t.written_id(k as u32), t.written_parent_id(k as u32));
        let captured = match t.captured(k as u32) {
            Some(
                c @ (Captured::User { timestamp, .. } | Captured::Assistant { timestamp, .. }),
            ) if counted => series::step_of_captured(rules, &c).map(|step| (step, timestamp)),
            _ => None,
        };
        entries.push(match captured {
            Some((step, timestamp)) => {
                let (id, parent) = ids();
                OpenEntry::Step(id, parent, step, timestamp)
            }
            None => match counted.then(|| t.slim(k as u32)).flatten() {
                Some(v) => OpenEntry::Head(v),
                None => {
                    let (id, parent) = ids();
                    OpenEntry::Ids(id, parent)
                }
            },
        });
        if e.kind == EntryKind::Message(Role::User) {
            users += 1;
        }
    }
    entries.reverse();
    OpenTail {
        entries,
        complete: k == 0,
    }
}

/// [`turns_of`] for a transcript already open, through the same [`BUDGETS`].
pub fn turns_of_transcript(t: &crate::transcript::Transcript, rules: Rules) -> Vec<series::Turn> {
    let mut last = Vec::new();
    for budget in BUDGETS {
        let tail = tail_of_transcript(t, budget, rules);
        let (s, enough) = branch_steps(&tail, rules);
        last = s;
        if enough || tail.complete {
            break;
        }
    }
    series::turns(last)
}

/// The forecast of a listed session from its transcript's tail and its numbers: what `list`
/// and `show` print (`history` computes the same from the whole branch). Unreadable
/// transcripts give an unknown forecast that says why.
pub fn forecast_of(
    source: &dyn SessionSource,
    session: &crate::source::Session,
    th: &Thresholds,
) -> Forecast {
    Forecasts::default().of(source, session, th)
}

/// Forecasts of many sessions, reading each transcript's tail once: sessions can share a
/// transcript (forks, copies), and the turns do not depend on the session's numbers.
#[derive(Default)]
pub struct Forecasts {
    turns: foldhash::HashMap<String, Result<Vec<series::Turn>, SourceError>>,
}

impl Forecasts {
    fn turns_for(
        &mut self,
        source: &dyn SessionSource,
        session: &crate::source::Session,
        rules: Rules,
    ) -> Option<&Result<Vec<series::Turn>, SourceError>> {
        let at = session.transcript.as_ref()?;
        Some(
            self.turns
                .entry(at.clone())
                .or_insert_with(|| turns_of(source, &session.reference, rules)),
        )
    }

    /// Takes the session's turns from its transcript, open for another reason (`used`), so
    /// [`Self::of`] and [`Self::recent`] do not read it again.
    pub fn read_open(
        &mut self,
        session: &crate::source::Session,
        t: &crate::transcript::Transcript,
        rules: Rules,
    ) {
        if let Some(at) = &session.transcript {
            self.turns
                .entry(at.clone())
                .or_insert_with(|| Ok(turns_of_transcript(t, rules)));
        }
    }

    /// Takes the session's turns as measured elsewhere (from its open transcript, or
    /// remembered: `numbers::cache`).
    pub fn remember(
        &mut self,
        session: &crate::source::Session,
        turns: Result<Vec<series::Turn>, SourceError>,
    ) {
        if let Some(at) = &session.transcript {
            self.turns.entry(at.clone()).or_insert(turns);
        }
    }

    pub fn of(
        &mut self,
        source: &dyn SessionSource,
        session: &crate::source::Session,
        th: &Thresholds,
    ) -> Forecast {
        match self.turns_for(source, session, th.rules) {
            None => Forecast::unknown("no transcript"),
            Some(Ok(turns)) => series::forecast(turns, th.used, th.flush_at, th.compact_at),
            Some(Err(e)) => Forecast::unknown(&format!("transcript not readable: {e}")),
        }
    }

    /// The context of the last `n` measured turns, oldest first (the Sessions list's trend);
    /// empty when unknown.
    pub fn recent(
        &mut self,
        source: &dyn SessionSource,
        session: &crate::source::Session,
        rules: Rules,
        n: usize,
    ) -> Vec<u64> {
        match self.turns_for(source, session, rules) {
            Some(Ok(turns)) => {
                let v: Vec<u64> = turns.iter().filter_map(|t| t.tokens).collect();
                v[v.len().saturating_sub(n)..].to_vec()
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str, parent: Option<&str>, role: &str, input: u64) -> String {
        let usage = if role == "assistant" {
            serde_json::json!({"input": input, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": input + 10})
        } else {
            Value::Null
        };
        serde_json::json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-11-21T04:00:00.000Z",
            "message": {"role": role, "content": [{"type": "text", "text": "x".repeat(200)}], "usage": usage, "stopReason": "stop"}})
        .to_string()
    }

    #[test]
    fn a_slim_entry_keeps_what_the_series_reads() {
        let line = br#"{"type":"message","id":"a","parentId":"u","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"long"}],"usage":{"input":5,"totalTokens":9},"stopReason":"stop","provider":"p","model":"m"}}"#;
        let v = slim(line).unwrap();
        assert_eq!(v["message"]["usage"]["totalTokens"], 9);
        assert!(v["message"].get("content").is_none());
        assert_eq!(series::step_of(Rules::V2026_2, &v), Some(Step::Call(9)));
        let u = br#"{"type":"message","id":"u","message":{"role":"user","content":"Pre-compaction memory flush. Store"}}"#;
        assert_eq!(
            series::step_of(Rules::V2026_2, &slim(u).unwrap()),
            Some(Step::User { flush: true })
        );
        assert_eq!(slim(b"[1,2]"), None);
        assert_eq!(slim(b"{\"type\": 3}"), None);
    }

    #[test]
    fn a_tail_follows_the_branch_and_grows_until_it_has_enough_turns() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        let mut text = String::from("{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n");
        let mut parent: Option<String> = None;
        for k in 0..400u64 {
            let u = format!("u{k}");
            let a = format!("a{k}");
            text.push_str(&line(&u, parent.as_deref(), "user", 0));
            text.push('\n');
            text.push_str(&line(&a, Some(&u), "assistant", 1_000 + k * 250));
            text.push('\n');
            parent = Some(a);
        }
        // An abandoned branch appended last would be the leaf; here the leaf is a0399.
        std::fs::write(&p, &text).unwrap();
        let small = read_file(&p, 4 << 10).unwrap();
        assert!(!small.complete);
        let (s, enough) = steps(&small, Rules::V2026_2);
        assert!(!enough, "4 KiB hold only a few turns: {}", s.len());
        let big = read_file(&p, 64 << 10).unwrap();
        let (s, enough) = steps(&big, Rules::V2026_2);
        assert!(enough);
        let turns = series::turns(s);
        let f = series::forecast(&turns, Some(100_760), Some(110_000), 120_000);
        assert_eq!(f.tokens_per_turn, Some(250));
        assert_eq!(f.turns_to_flush, Some(37)); // 9,240 / 250, rounded up
        assert_eq!(f.turns_to_compaction, Some(77));
    }
}
