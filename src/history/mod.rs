//! How a session got here: its compactions and flushes over time, the warnings they add up
//! to, and the forecast of the next flush and compaction (issue 22, SPEC §3 "forecast").
//!
//! OpenClaw keeps only the latest counters, so the history is pieced together from three
//! kinds of evidence, read in this order and never mixed up:
//! 1. the active branch of the transcript: compaction entries (`tokensBefore`, the summary,
//!    `fromHook`), the model calls that measured the context before and after each, and on
//!    2026.2.x hosts the memory-flush turns (OpenClaw's flush prompt), which 2026.9 no longer
//!    writes to the transcript;
//! 2. the store's counters, which record only the *last* flush: `memoryFlushAt` +
//!    `memoryFlushCompactionCount` (2026.2.x), `memoryFlush {kind, compactionCount}` (2026.9);
//! 3. the note blocks in `<workspace>/memory/<date>.md` ([`memory`]).
//!
//! The lines and `used` come from the session's [`Thresholds`] (computed once, by
//! [`crate::numbers`]); nothing here recomputes them. No terminal code: the report layer
//! renders and neutralises.
//!
//! Cycles: the turns between two compactions form a cycle, numbered by the compactions
//! before it, which is how OpenClaw counts (`memoryFlushCompactionCount` = the
//! `compactionCount` the flush ran at). Compaction *k* (1-based, on the branch) closes cycle
//! *k − 1*; a flush of that cycle should precede it.

pub mod log;
pub mod memory;
pub mod series;
pub mod tail;

use crate::thresholds::{Rules, Thresholds};
use crate::transcript::{Captured, EntryKind, Role, Transcript};
use serde::Serialize;
use serde_json::Value;

pub use memory::MemoryNotes;
pub use series::{Forecast, Turn, forecast};

/// Everything `clawtop history` shows.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
    /// The store's `compactionCount` (None: absent or not readable through this source).
    pub compaction_count: Option<u64>,
    /// Compaction entries anywhere in the transcript (all branches): what was written.
    pub compaction_entries: usize,
    /// The compactions of the active branch, oldest first.
    pub compactions: Vec<CompactionRecord>,
    /// Every flush there is evidence of, oldest first where the time is known.
    pub flushes: Vec<FlushRecord>,
    /// The workspace's memory files (None: the source knows no workspace).
    pub memory: Option<MemoryNotes>,
    pub window: u64,
    pub flush_at: Option<u64>,
    pub compact_at: u64,
    pub used: Option<u64>,
    pub forecast: Forecast,
    /// The context per turn (the chart's data), oldest first.
    pub turns: Vec<Turn>,
    pub warnings: Vec<HistoryWarning>,
    /// The transcript is there but could not be read, and why: the compactions, flushes in
    /// it, turns and forecast are unknown, not none ([`History::unread`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript_unread: Option<String>,
}

/// One compaction entry on the active branch.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionRecord {
    pub id: String,
    pub timestamp: Option<String>,
    /// 1-based position among the branch's compactions.
    pub number: u32,
    pub tokens_before: Option<u64>,
    /// The context right after: measured by the next model call when one followed in the
    /// same cycle, else the entry's own `tokensAfter` (OpenClaw's estimate, without the
    /// system prompt and tools); None when neither exists.
    pub tokens_after: Option<u64>,
    /// `next-call` or `entry` (see [`Self::tokens_after`]).
    pub tokens_after_source: Option<&'static str>,
    pub first_kept_entry_id: Option<String>,
    pub summary_chars: usize,
    /// pi's estimate of the summary message (characters / 4).
    pub summary_tokens: u64,
    /// `manual` (a `/compact` request or the gateway's notice around it), `openclaw` (written
    /// by OpenClaw's compaction hook, no manual request seen: automatic or overflow),
    /// `unknown` (pi's own format, which clawtop also writes).
    pub trigger: &'static str,
    /// Whether the cycle this compaction closed had a flush: `yes`, `no`, `unknown`.
    pub flush_before: &'static str,
    /// The evidence behind `flush_before`, in words.
    pub flush_evidence: String,
}

/// Evidence of one flush.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlushRecord {
    /// `transcript` (a flush turn), `store` (the counters of the last flush).
    pub source: &'static str,
    /// The flush turn's user message (transcript evidence).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub timestamp: Option<String>,
    /// The cycle it ran in: compactions before it (the store's `compactionCount` at the flush,
    /// or the branch's compactions before the flush turn).
    pub compaction_count: Option<u64>,
    /// 2026.9 `memoryFlush.kind`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// A warning with its code (for `check` and scripts) and its numbers in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HistoryWarning {
    pub code: &'static str,
    pub message: String,
    /// The compaction it is about, when it is about one (its id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction: Option<String>,
}

impl History {
    /// Adds what Gateway logs say (`clawtop history KEY --log FILE`): each `memoryFlush
    /// triggered` line of the session is a flush (`source: "log"`). A log names its cycle by
    /// OpenClaw's `compactionCount`; where that count and the branch's compactions agree, the
    /// compaction that closed the cycle had a flush (its "no flush" warning goes). Where they
    /// do not (compactions that left no entry), the cycles cannot be lined up: listed only.
    pub fn with_logs(&mut self, scans: &[log::LogScan]) {
        let aligned = self.compaction_count == Some(self.compactions.len() as u64);
        for scan in scans {
            let file = crate::sanitize::one_line(&scan.file);
            if let Some(why) = &scan.unread {
                self.warnings.push(HistoryWarning {
                    code: code::LOG_UNREAD,
                    message: format!("log {file}: {why}"),
                    compaction: None,
                });
            }
            if scan.repeats > 0 {
                self.warnings.push(HistoryWarning {
                    code: code::LOG_REPEATS,
                    message: format!(
                        "log {file}: {} more `memoryFlush triggered` line(s) in cycles already listed (the first of each cycle is kept)",
                        scan.repeats
                    ),
                    compaction: None,
                });
            }
            for f in &scan.flushes {
                self.flushes.push(FlushRecord {
                    source: "log",
                    id: Some(format!("{file}:{}", f.line)),
                    timestamp: f.timestamp.clone(),
                    compaction_count: f.compaction_count,
                    kind: None,
                });
                let Some(cycle) = f.compaction_count.filter(|_| aligned) else {
                    continue;
                };
                // Compaction k (1-based) closed cycle k-1.
                let Some(c) = self.compactions.get_mut(cycle as usize) else {
                    continue;
                };
                if c.flush_before != "yes" {
                    c.flush_before = "yes";
                    c.flush_evidence = format!(
                        "gateway log {file} line {}: memoryFlush triggered at compactionCount {cycle}",
                        f.line
                    );
                    let id = c.id.clone();
                    self.warnings.retain(|w| {
                        !(w.code == code::NO_FLUSH && w.compaction.as_deref() == Some(&id))
                    });
                }
            }
        }
        self.flushes.sort_by_key(|f| {
            let ms = f.timestamp.as_deref().and_then(millis);
            (ms.is_none(), ms)
        });
    }

    /// The history of a session whose transcript could not be read (`why`): what the store
    /// says stays, and a warning (code [`code::TRANSCRIPT_UNREAD`]) that `check` grades
    /// UNKNOWN.
    pub fn unread(mut self, why: &str) -> History {
        self.transcript_unread = Some(why.to_string());
        self.warnings.push(HistoryWarning {
            compaction: None,
            code: code::TRANSCRIPT_UNREAD,
            message: format!("the transcript could not be read: {why}"),
        });
        self
    }

    /// The warnings about the last compaction on the branch, the one that shapes the context
    /// now: what `check` reports (older compactions are history, not a current problem).
    pub fn about_last_compaction(&self) -> Vec<&HistoryWarning> {
        if self.transcript_unread.is_some() {
            // Nothing is known about the last compaction: say so, not "no problem".
            return self
                .warnings
                .iter()
                .filter(|w| w.code == code::TRANSCRIPT_UNREAD)
                .collect();
        }
        let Some(last) = self.compactions.last() else {
            return Vec::new();
        };
        self.warnings
            .iter()
            .filter(|w| w.compaction.as_deref() == Some(last.id.as_str()))
            .collect()
    }
}

/// Codes of [`HistoryWarning`].
pub mod code {
    pub const COUNT_MISMATCH: &str = "compaction-count-mismatch";
    pub const NO_FLUSH: &str = "no-flush-before-compaction";
    pub const FLUSH_AFTER: &str = "flush-after-compaction";
    pub const LOOP: &str = "compaction-loop";
    pub const DUPLICATE_NOTE: &str = "duplicate-note";
    pub const CLOCK: &str = "clock-backwards";
    pub const USAGE_DOWN: &str = "usage-down";
    pub const LOG_UNREAD: &str = "log-unread";
    pub const TRANSCRIPT_UNREAD: &str = "transcript-unread";
    pub const LOG_REPEATS: &str = "log-repeated-flushes";

    /// Every code, for reading one back from text (a remembered row's).
    pub const ALL: [&str; 10] = [
        COUNT_MISMATCH,
        NO_FLUSH,
        FLUSH_AFTER,
        LOOP,
        DUPLICATE_NOTE,
        CLOCK,
        USAGE_DOWN,
        LOG_UNREAD,
        TRANSCRIPT_UNREAD,
        LOG_REPEATS,
    ];

    /// The code spelled `s`, if it is one.
    pub fn known(s: &str) -> Option<&'static str> {
        ALL.iter().copied().find(|c| *c == s)
    }
}

/// What the branch walk found.
struct Read {
    turns: Vec<Turn>,
    compactions: Vec<Raw>,
    flush_turns: Vec<(Turn, bool)>,
    clock: Vec<String>,
    /// Why entries of the branch could not be read (not those too large to decode, which
    /// are estimated, never read): the history is then unknown, not shorter.
    unread: Option<String>,
}

/// A compaction entry as read, before the cycle evidence is added.
struct Raw {
    id: String,
    timestamp: Option<String>,
    tokens_before: Option<u64>,
    entry_tokens_after: Option<u64>,
    /// The first call after it that measured the context, before any later compaction.
    next_call: Option<u64>,
    first_kept: Option<String>,
    summary_chars: usize,
    summary_tokens: u64,
    from_hook: Option<bool>,
    manual: bool,
    /// The flush of its cycle that clawtop saw on the store row when it wrote this entry
    /// (`details.clawtop.flush`, [`crate::compaction::flush_seen`]): its `memoryFlushAt`.
    recorded_flush: Option<Option<i64>>,
}

/// A user message that starts with this asked for a compaction.
const COMPACT_COMMAND: &str = "/compact";
// A user message's head captured by the scan keeps the start of its text: long enough to
// test for the command (`crate::transcript::Captured`).
const _: () = assert!(COMPACT_COMMAND.len() <= crate::transcript::LEAD_MAX);

fn millis(ts: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(ts)
        .ok()
        .map(|d| d.timestamp_millis())
}

/// Walks the active branch once, decoding only user and assistant messages (slim) and
/// compactions (tool results, the bulk of a transcript, are never decoded). What the scan
/// captured of an entry ([`Transcript::captured`]: a transcript opened for its history) is
/// taken from there; only the other entries are read from the store.
fn read_branch(t: &Transcript, rules: Rules) -> Read {
    let wanted: Vec<u32> = t
        .active_branch()
        .into_iter()
        .filter(|&i| {
            matches!(
                t.entries[i as usize].kind,
                EntryKind::Compaction
                    | EntryKind::Message(Role::User)
                    | EntryKind::Message(Role::Assistant)
            )
        })
        .collect();
    let captures = t.captures();
    let need: Vec<u32> = if captures {
        wanted
            .iter()
            .copied()
            .filter(|&i| !t.has_captured(i))
            .collect()
    } else {
        wanted.clone()
    };
    let mut walk = BranchWalk::default();
    // A branch runs forward through its store (an entry is written after its parent): then
    // what is not captured is read in one pass over the rows or the file, not one read per
    // entry, and the captured entries between two read are walked as the pass reaches them.
    // An entry whose parent comes after it (a transcript rewritten out of order) is read
    // entry by entry, in branch order; so is a branch whose store changed during the pass.
    let key = |i: &u32| t.entries[*i as usize].offset;
    let forward = wanted.windows(2).all(|w| key(&w[0]) < key(&w[1]));
    let mut at = 0usize;
    let mut in_order = true;
    let read = need.is_empty()
        || (forward
            && t.for_each_raw(&need, |i, raw| {
                // Walks the captured entries before `i`, then `i`.
                while in_order && wanted.get(at).is_some_and(|&w| w != i) {
                    walk.captured(t, rules, wanted[at]);
                    at += 1;
                }
                if in_order && at < wanted.len() {
                    walk.raw(t, rules, i, raw);
                    at += 1;
                } else {
                    in_order = false;
                }
            }))
            && in_order;
    let mut unread = None;
    if read {
        for &i in &wanted[at..] {
            walk.captured(t, rules, i);
        }
    } else {
        walk = BranchWalk::default();
        let mut failed = 0usize;
        for &i in &wanted {
            if walk.captured(t, rules, i) {
                continue;
            }
            match t.raw_line(i) {
                Ok(raw) => walk.raw(t, rules, i, &raw),
                Err(_) if t.entries[i as usize].too_large().is_some() => {}
                Err(e) => {
                    failed += 1;
                    unread.get_or_insert(e.to_string());
                }
            }
        }
        if let Some(first) = unread.as_mut() {
            *first = format!("{failed} entries of the branch could not be read ({first})");
        }
    }
    let mut r = walk.finish();
    r.unread = unread;
    r
}

/// What [`read_branch`] has seen so far of the branch, entry by entry.
#[derive(Default)]
struct BranchWalk {
    turns: series::Turns,
    raws: Vec<Raw>,
    clock: Vec<String>,
    /// The newest entry with a time: its time in ms, its index, its `timestamp`.
    last_ms: Option<(i64, u32, String)>,
    last_user_compact: bool,
    /// The compaction still waiting for the call that measures the context after it.
    waiting: Option<usize>,
}

/// A message of the branch as the walk reads it.
struct Seen<'a> {
    timestamp: Option<&'a str>,
    /// A user message asking for a compaction (`/compact`).
    compact_request: bool,
    /// The gateway's notice after a `/compact` it served.
    notice: bool,
    step: Option<series::Step>,
}

impl<'a> Seen<'a> {
    /// Message `v` (decoded slim) of kind `kind`.
    fn of_slim(kind: EntryKind, rules: Rules, v: &'a Value) -> Seen<'a> {
        let m = v.get("message").unwrap_or(&Value::Null);
        Seen {
            timestamp: v.get("timestamp").and_then(Value::as_str),
            compact_request: kind == EntryKind::Message(Role::User)
                && crate::transcript::content::plain(m.get("content"))
                    .trim_start()
                    .starts_with(COMPACT_COMMAND),
            notice: kind == EntryKind::Message(Role::Assistant)
                && crate::tokens::is_gateway_notice(m),
            step: series::step_of(rules, v),
        }
    }

    /// A message as the scan captured it, read as [`Self::of_slim`] reads its decode; None
    /// for an entry that decode refuses (skipped), or that is no message.
    fn of_captured(rules: Rules, c: Captured<'a>) -> Option<Seen<'a>> {
        // The step as the forecast reads it too (one function for both).
        let step = series::step_of_captured(rules, &c)?;
        match c {
            Captured::Unreadable | Captured::Entry(_) => None,
            Captured::User { timestamp, lead } => Some(Seen {
                timestamp,
                compact_request: lead.trim_start().starts_with(COMPACT_COMMAND),
                notice: false,
                step,
            }),
            Captured::Assistant {
                timestamp,
                provider,
                model,
                ..
            } => Some(Seen {
                timestamp,
                compact_request: false,
                notice: crate::tokens::is_gateway_model(provider, model),
                step,
            }),
        }
    }
}

impl BranchWalk {
    fn finish(self) -> Read {
        let turns = self.turns.finish();
        let flush_turns = flush_turns(&turns);
        Read {
            turns,
            compactions: self.raws,
            flush_turns,
            clock: self.clock,
            unread: None,
        }
    }

    /// Entry `i` of the branch from its bytes `raw`: a compaction decoded whole, a message
    /// slim (assistant text and pasted content are most of a transcript's bytes and none of
    /// its figures); an entry that does not decode is skipped.
    fn raw(&mut self, t: &Transcript, rules: Rules, i: u32, raw: &[u8]) {
        let kind = t.entries[i as usize].kind;
        if kind == EntryKind::Compaction {
            if let Ok(v) = t.decode_entry(i, raw) {
                self.compaction(t, i, &v);
            }
        } else if let Some(v) = tail::slim(raw) {
            self.message(t, i, Seen::of_slim(kind, rules, &v));
        }
    }

    /// Entry `i` of the branch from what the scan captured of it, read as [`Self::raw`]
    /// reads it; false when nothing was captured (the entry is then to be read).
    fn captured(&mut self, t: &Transcript, rules: Rules, i: u32) -> bool {
        let Some(c) = t.captured(i) else {
            return false;
        };
        match c {
            Captured::Entry(v) if t.entries[i as usize].kind == EntryKind::Compaction => {
                self.compaction(t, i, v)
            }
            c => {
                if let Some(seen) = Seen::of_captured(rules, c) {
                    self.message(t, i, seen);
                }
            }
        }
        true
    }

    /// The clock check of entry `i`, stamped `ts`.
    fn clock(&mut self, t: &Transcript, i: u32, ts: Option<&str>) {
        let Some((ts, ms)) = ts.and_then(|ts| millis(ts).map(|ms| (ts, ms))) else {
            return;
        };
        match &mut self.last_ms {
            Some((prev, prev_i, prev_ts)) => {
                if ms < *prev {
                    self.clock.push(format!(
                        "entry {} is stamped {ts} but comes after entry {} stamped {prev_ts}",
                        t.display_id(i),
                        t.display_id(*prev_i)
                    ));
                }
                (*prev, *prev_i) = (ms, i);
                prev_ts.clear();
                prev_ts.push_str(ts);
            }
            None => self.last_ms = Some((ms, i, ts.to_string())),
        }
    }

    /// Compaction `i` of the branch, decoded as `v`.
    fn compaction(&mut self, t: &Transcript, i: u32, v: &Value) {
        let ts = v.get("timestamp").and_then(Value::as_str);
        self.clock(t, i, ts);
        let id = t.display_id(i);
        let summary = v.get("summary").and_then(Value::as_str).unwrap_or("");
        let msg = crate::tokens::compaction_summary_message(v);
        self.raws.push(Raw {
            id: id.clone(),
            timestamp: ts.map(str::to_string),
            tokens_before: v
                .get("tokensBefore")
                .and_then(crate::store_entry::non_negative),
            entry_tokens_after: v
                .get("tokensAfter")
                .and_then(crate::store_entry::non_negative),
            next_call: None,
            first_kept: v
                .get("firstKeptEntryId")
                .and_then(Value::as_str)
                .map(str::to_string),
            summary_chars: summary.chars().count(),
            summary_tokens: crate::tokens::estimate_message(&msg),
            from_hook: v.get("fromHook").and_then(Value::as_bool),
            manual: self.last_user_compact,
            recorded_flush: v
                .pointer(&format!("/details/{}/flush", crate::plan::RECORD_KEY))
                .filter(|f| f.is_object())
                .map(|f| f.get("memoryFlushAt").and_then(Value::as_i64)),
        });
        self.waiting = Some(self.raws.len() - 1);
        self.turns.push(series::Step::Compaction, || series::At {
            id: Some(id),
            timestamp: ts.map(str::to_string),
        });
    }

    /// Message `i` of the branch, as read.
    fn message(&mut self, t: &Transcript, i: u32, m: Seen<'_>) {
        self.clock(t, i, m.timestamp);
        let kind = t.entries[i as usize].kind;
        if kind == EntryKind::Message(Role::User) {
            self.last_user_compact = m.compact_request;
        }
        // The gateway's "Compacted" notice follows a `/compact` request it served.
        if m.notice {
            if let Some(r) = self.raws.last_mut() {
                r.manual = true;
            }
        }
        if let Some(s) = m.step {
            if let (series::Step::Call(n), Some(w)) = (&s, self.waiting) {
                self.raws[w].next_call = Some(*n);
                self.waiting = None;
            }
            self.turns.push(s, || series::At {
                id: Some(t.display_id(i)),
                timestamp: m.timestamp.map(str::to_string),
            });
        }
    }
}

/// The context per turn of the active branch (the TUI's History pane; `history` has the same
/// in [`History::turns`]). Reads the transcript: never on the render path.
pub fn branch_turns(t: &Transcript, rules: Rules) -> Vec<Turn> {
    read_branch(t, rules).turns
}

/// The flush turns, each with whether it came first in its cycle after a compaction (no
/// ordinary turn between the compaction and the flush: it ran after the compaction it should
/// have preceded).
fn flush_turns(turns: &[Turn]) -> Vec<(Turn, bool)> {
    let mut out = Vec::new();
    for (k, t) in turns.iter().enumerate() {
        if !t.flush {
            continue;
        }
        let first_in_cycle = t.cycle > 0
            && turns[..k]
                .iter()
                .filter(|p| p.cycle == t.cycle)
                .all(|p| p.flush);
        out.push((t.clone(), first_in_cycle));
    }
    out
}

/// The history of a session. `t`: its transcript (None when it could not be read; the
/// transcript's figures are then unknown); `th`: its numbers; `memory`: its workspace's notes.
pub fn build(t: Option<&Transcript>, th: &Thresholds, memory: Option<MemoryNotes>) -> History {
    let rules = th.rules;
    let read = t.map(|t| read_branch(t, rules));
    let entries = t.map_or(0, |t| {
        t.entries
            .iter()
            .filter(|e| e.kind == EntryKind::Compaction)
            .count()
    });
    let mut warnings = Vec::new();
    let mut flushes = Vec::new();
    let turns = read.as_ref().map(|r| r.turns.clone()).unwrap_or_default();

    if t.is_some() {
        warnings.extend(count_mismatch(th, entries));
    }
    flushes.extend(store_flush(th));
    let mut compactions = Vec::new();
    if let Some(r) = &read {
        transcript_flushes(r, &mut flushes, &mut warnings);
        compactions = compaction_records(r, th, &mut warnings);
        warnings.extend(anomalies(r));
    }
    if let Some(m) = &memory {
        warnings.extend(duplicate_notes(m));
    }
    flushes.sort_by_key(|f| {
        let ms = f.timestamp.as_deref().and_then(millis);
        (ms.is_none(), ms)
    });
    let forecast = series::forecast(&turns, th.used, th.flush_at, th.compact_at);
    let h = History {
        compaction_count: th.compaction_count,
        compaction_entries: entries,
        compactions,
        flushes,
        memory,
        window: th.window,
        flush_at: th.flush_at,
        compact_at: th.compact_at,
        used: th.used,
        forecast,
        turns,
        warnings,
        transcript_unread: None,
    };
    match read.and_then(|r| r.unread) {
        Some(why) => h.unread(&why),
        None => h,
    }
}

/// `compactionCount` above the compaction entries the transcript holds.
fn count_mismatch(th: &Thresholds, entries: usize) -> Option<HistoryWarning> {
    let count = th.compaction_count?;
    (count > entries as u64).then(|| HistoryWarning {
        compaction: None,
        code: code::COUNT_MISMATCH,
        message: format!(
            "compactionCount is {count} but the transcript holds {entries} compaction {}: {} compaction(s) left no entry (failed, cancelled or looping)",
            if entries == 1 { "entry" } else { "entries" },
            count - entries as u64
        ),
    })
}

/// The store's last flush, when it records one.
fn store_flush(th: &Thresholds) -> Option<FlushRecord> {
    (th.memory_flush_compaction_count.is_some()
        || th.memory_flush_at.is_some()
        || th.memory_flush_kind.is_some())
    .then(|| FlushRecord {
        source: "store",
        id: None,
        timestamp: th.memory_flush_at.and_then(|ms| {
            chrono::DateTime::from_timestamp_millis(ms)
                .map(|d| d.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
        }),
        compaction_count: th.memory_flush_compaction_count,
        kind: th.memory_flush_kind.clone(),
    })
}

/// The flush turns of the branch, and a warning for each that came right after the
/// compaction it should have preceded.
fn transcript_flushes(
    r: &Read,
    flushes: &mut Vec<FlushRecord>,
    warnings: &mut Vec<HistoryWarning>,
) {
    for (turn, _) in &r.flush_turns {
        flushes.push(FlushRecord {
            source: "transcript",
            id: turn.id.clone(),
            timestamp: turn.timestamp.clone(),
            compaction_count: Some(turn.cycle as u64),
            kind: None,
        });
    }
    for (turn, first) in &r.flush_turns {
        if *first {
            let c = &r.compactions[turn.cycle as usize - 1];
            warnings.push(HistoryWarning {
                compaction: Some(c.id.clone()),
                code: code::FLUSH_AFTER,
                message: format!(
                    "flush turn {} ({}) came after compaction {} ({}) with no turn between: it ran after the compaction it should have preceded",
                    turn.id.as_deref().unwrap_or("?"),
                    turn.timestamp.as_deref().unwrap_or("no time"),
                    c.id,
                    c.timestamp.as_deref().unwrap_or("no time")
                ),
            });
        }
    }
}

/// One record per compaction on the branch, with the warnings each one earns (no flush in
/// its cycle, a store flush stamped after it, a context left at or above the compaction line).
fn compaction_records(
    r: &Read,
    th: &Thresholds,
    warnings: &mut Vec<HistoryWarning>,
) -> Vec<CompactionRecord> {
    let rules = th.rules;
    let branch_compactions = r.compactions.len();
    // The store's last flush maps to a branch cycle only when the store's count and the
    // branch's compactions agree: otherwise the cycles cannot be lined up.
    let store_cycle = th.memory_flush_compaction_count;
    let aligned = th.compaction_count.unwrap_or(0) == branch_compactions as u64;
    let failed = th.memory_flush_kind.as_deref() == Some("failed");
    let store_unknown = th.unknown("memoryFlush").is_some()
        || th.unknown("compactionCount").is_some()
        || th.unknown("memoryFlushCompactionCount").is_some();
    let mut compactions = Vec::new();
    for (k, c) in r.compactions.iter().enumerate() {
        let number = k as u32 + 1;
        let cycle = number - 1;
        let (tokens_after, tokens_after_source) = match (c.next_call, c.entry_tokens_after) {
            (Some(n), _) => (Some(n), Some("next-call")),
            (None, Some(n)) => (Some(n), Some("entry")),
            (None, None) => (None, None),
        };
        let trigger = if c.manual {
            "manual"
        } else if c.from_hook == Some(true) {
            "openclaw"
        } else {
            "unknown"
        };
        let (flush_before, flush_evidence) = flush_before(
            th,
            rules,
            cycle,
            r,
            aligned && !failed,
            store_unknown,
            branch_compactions,
        );
        if flush_before == "no" {
            let last = r
                .turns
                .iter()
                .rev()
                .filter(|t| t.cycle == cycle)
                .find_map(|t| t.tokens);
            warnings.push(HistoryWarning {
                compaction: Some(c.id.clone()),
                code: code::NO_FLUSH,
                message: format!(
                    "compaction {} ({}; tokensBefore {}) had no flush in its cycle while flush is enabled (flush line {}; the cycle's last measured context {}): {flush_evidence}",
                    c.id,
                    c.timestamp.as_deref().unwrap_or("no time"),
                    opt(c.tokens_before),
                    opt(th.flush_at),
                    opt(last)
                ),
            });
        }
        // 2026.2 memoryFlushAt: a flush of this cycle stamped after the compaction.
        if let (Some(at), Some(sc), true) = (th.memory_flush_at, store_cycle, aligned) {
            let c_ms = c.timestamp.as_deref().and_then(millis);
            if sc == cycle as u64 && c_ms.is_some_and(|cm| at > cm) {
                warnings.push(HistoryWarning {
                    compaction: Some(c.id.clone()),
                    code: code::FLUSH_AFTER,
                    message: format!(
                        "the flush recorded for cycle {sc} (memoryFlushAt {at}) is later than compaction {} ({}) that closed that cycle",
                        c.id,
                        c.timestamp.as_deref().unwrap_or("?")
                    ),
                });
            }
        }
        if let Some(a) = tokens_after.filter(|&a| a >= th.compact_at) {
            warnings.push(HistoryWarning {
                compaction: Some(c.id.clone()),
                code: code::LOOP,
                message: format!(
                    "compaction {} left the context at {} tokens ({}), at or above the compaction line {}: the next turn compacts again",
                    c.id,
                    crate::format::thousands(a),
                    if tokens_after_source == Some("next-call") {
                        "measured by the next call"
                    } else {
                        "OpenClaw's estimate in the entry"
                    },
                    crate::format::thousands(th.compact_at)
                ),
            });
        }
        compactions.push(CompactionRecord {
            id: c.id.clone(),
            timestamp: c.timestamp.clone(),
            number,
            tokens_before: c.tokens_before,
            tokens_after,
            tokens_after_source,
            first_kept_entry_id: c.first_kept.clone(),
            summary_chars: c.summary_chars,
            summary_tokens: c.summary_tokens,
            trigger,
            flush_before,
            flush_evidence,
        });
    }
    compactions
}

/// Anomalies of the branch: named, counted, never turned into figures.
fn anomalies(r: &Read) -> Vec<HistoryWarning> {
    let mut warnings = Vec::new();
    let measured: Vec<&Turn> = r.turns.iter().filter(|t| t.tokens.is_some()).collect();
    if !r.clock.is_empty() {
        warnings.push(HistoryWarning {
            compaction: None,
            code: code::CLOCK,
            message: format!(
                "the clock went backwards {} time(s) on the branch; first: {}",
                r.clock.len(),
                r.clock[0]
            ),
        });
    }
    let drops: Vec<String> = measured
        .windows(2)
        .filter(|w| w[0].cycle == w[1].cycle && w[1].tokens < w[0].tokens)
        .map(|w| {
            format!(
                "turn {} measured {} after {}",
                w[1].turn,
                opt(w[1].tokens),
                opt(w[0].tokens)
            )
        })
        .collect();
    if !drops.is_empty() {
        warnings.push(HistoryWarning {
            compaction: None,
            code: code::USAGE_DOWN,
            message: format!(
                "the context went down without a compaction {} time(s) (pruning, a model change or a reset counter); first: {}",
                drops.len(),
                drops[0]
            ),
        });
    }
    warnings
}

/// A note block appended twice to a memory file.
fn duplicate_notes(m: &MemoryNotes) -> Vec<HistoryWarning> {
    let mut warnings = Vec::new();
    for f in &m.files {
        for d in &f.duplicates {
            warnings.push(HistoryWarning {
                compaction: None,
                code: code::DUPLICATE_NOTE,
                message: format!(
                    "memory/{}.md: the block at line {} ({} line(s), {:?}) was appended again at line {}",
                    f.date, d.line, d.lines, d.preview, d.again_line
                ),
            });
        }
    }
    warnings
}

fn opt(n: Option<u64>) -> String {
    n.map_or_else(|| "unknown".into(), crate::format::thousands)
}

/// Whether cycle `cycle` had a flush, and the evidence.
fn flush_before(
    th: &Thresholds,
    rules: Rules,
    cycle: u32,
    r: &Read,
    store_usable: bool,
    store_unknown: bool,
    branch_compactions: usize,
) -> (&'static str, String) {
    if let Some((t, _)) = r.flush_turns.iter().find(|(t, _)| t.cycle == cycle) {
        return (
            "yes",
            format!(
                "flush turn {} in the transcript",
                t.id.as_deref().unwrap_or("?")
            ),
        );
    }
    // clawtop compacted after the flush of this cycle and wrote so in the entry.
    if let Some(at) = r
        .compactions
        .get(cycle as usize)
        .and_then(|c| c.recorded_flush)
    {
        return (
            "yes",
            format!(
                "the compaction entry records the flush of its cycle (memoryFlushAt {}), which clawtop saw before compacting",
                at.map(|a| a.to_string()).unwrap_or_else(|| "-".into())
            ),
        );
    }
    if !th.flush_enabled.value {
        return ("unknown", "memoryFlush.enabled is false".into());
    }
    if store_unknown {
        return (
            "unknown",
            "this source cannot read the flush counters".into(),
        );
    }
    let sc = th.memory_flush_compaction_count;
    if store_usable {
        match sc {
            Some(c) if c == cycle as u64 => {
                return (
                    "yes",
                    format!("the store's last flush ran at compactionCount {c}"),
                );
            }
            // The store keeps the last successful flush: none ran in a later cycle.
            Some(c) if c < cycle as u64 => {
                return (
                    "no",
                    format!(
                        "the store's last flush ran at compactionCount {c}, before this cycle ({cycle})"
                    ),
                );
            }
            None => {
                return ("no", "no flush is recorded on the session".into());
            }
            Some(_) => {}
        }
    }
    // On 2026.2.x the flush turn is written to the transcript; a cycle seen whole with none.
    let whole = cycle > 0 || r.turns.first().is_some_and(|t| t.turn <= 1);
    if rules == Rules::V2026_2 && whole && branch_compactions > 0 {
        return (
            "no",
            format!("no flush turn in cycle {cycle} of the transcript"),
        );
    }
    (
        "unknown",
        if store_usable {
            "the store records only the last flush, which ran later".into()
        } else {
            "the store's compactionCount does not match the compactions written, so its flush cannot be placed".into()
        },
    )
}

#[cfg(test)]
mod tests;
