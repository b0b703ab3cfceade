//! What each compaction lost (SPEC §6a), for every compaction on the active branch and for a
//! draft summary before it is committed. Domain only: figures, no terminal.
//!
//! For a compaction C whose previous compaction on the branch is P:
//! 1. The **span** C replaced: P's summary, then the messages C summarized, from the boundary
//!    up to C's `firstKeptEntryId` (a split turn's prefix included). The boundary is its
//!    planner's ([`Boundary`], [`planned_with`]): pi 0.55.1 (OpenClaw 2026.2–2026.7) starts
//!    right after P, OpenClaw 2026.9 at P's `firstKeptEntryId`; clawtop records its own in the
//!    entry's `details` ([`crate::plan::RECORD_KEY`]). An entry with no record whose cut pi
//!    could not have made on a pre-2026.9 host is `unknown`: no loss is claimed for it.
//! 2. Its **identifiers** ([`extract`]), each with the first entry that held it, sorted into
//!    `kept` (C's summary includes it), `stillInKept` (a message C kept verbatim, from its
//!    `firstKeptEntryId` up to C, includes it) and `lost`; `invented` are the summary's own
//!    identifiers that nothing on the branch before C holds. "Includes" is OpenClaw's rule
//!    ([`presence`]).
//! 3. **droppedUnsummarized**: messages P kept (its `firstKeptEntryId` up to P) that C
//!    neither summarized nor kept: every such message under pi's boundary, none under
//!    2026.9's, not known (`unknown` says why) when the planner is not.
//! 4. The summary against OpenClaw 2026.9's guard ([`guard`]): required headings (reported
//!    as `missingSections` on 2026.9 hosts only), the 16,000-character cap, the verdict.
//!
//! Texts are the messages' text blocks, as OpenClaw's guard reads them, plus what the
//! summarizer also sees (a bash command and its output, a branch summary); tool-call
//! arguments are not scanned. The invented check needs every summary's identifiers before the
//! branch is read, so [`audit_transcript`] reads compactions first, then makes one pass over
//! the branch for "seen before", then one pass per compaction over its span and kept
//! messages: each entry is decoded a bounded number of times, whatever the number of
//! compactions.

pub mod automaton;
pub mod extract;
pub mod guard;
mod line_text;
pub mod presence;

use crate::thresholds::Rules;
use crate::tokens::{self, MessageView};
use crate::transcript::{EntryKind, Role, Transcript};
use foldhash::{HashMap, HashMapExt, HashSet};
use serde::Serialize;
use serde_json::Value;

pub use guard::{GuardVerdict, Verdict};

/// Where the range a compaction summarized starts after a previous compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Boundary {
    /// Right after the previous compaction entry (pi 0.55.1, OpenClaw 2026.2.26–2026.7).
    #[serde(rename = "pi-0.55.1")]
    AfterPrevious,
    /// At the previous compaction's `firstKeptEntryId` (OpenClaw 2026.9, clawtop's own plan).
    #[serde(rename = "openclaw-2026.9")]
    PreviousFirstKept,
    /// Not known: no record, and a cut the host's own planner could not have made.
    #[serde(rename = "unknown")]
    Unknown,
}

impl Boundary {
    /// The boundary the host's own compactions used.
    pub fn of_host(rules: Rules) -> Boundary {
        match rules {
            Rules::V2026_2 => Boundary::AfterPrevious,
            Rules::V2026_9 => Boundary::PreviousFirstKept,
        }
    }
}

/// An identifier and the first entry (on the branch) that held it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Held {
    pub value: String,
    pub entry_id: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Identifiers {
    /// Distinct identifiers in the span.
    pub total: usize,
    pub kept: Vec<Held>,
    pub lost: Vec<Held>,
    pub still_in_kept: Vec<Held>,
    /// In the summary, in nothing on the branch before it.
    pub invented: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Span {
    /// The previous compaction, whose summary the span starts with.
    pub previous_summary_entry_id: Option<String>,
    /// Message entries summarized (the previous summary not counted).
    pub entries: usize,
    /// pi's estimate of the span, the previous summary included.
    pub tokens: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Dropped {
    pub messages: usize,
    pub tokens: u64,
    pub entry_ids: Vec<String>,
    /// Why what was dropped is not known (the planner's boundary is not); the figures are 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown: Option<String>,
}

/// The audit of one compaction (or of a draft: `entry_id` None).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionAudit {
    pub entry_id: Option<String>,
    pub first_kept_entry_id: Option<String>,
    pub boundary: Boundary,
    pub span: Span,
    /// None when the summary cannot be read (`unknown` says why).
    pub identifiers: Option<Identifiers>,
    pub dropped_unsummarized: Dropped,
    /// OpenClaw 2026.9's required headings the summary lacks; None on other hosts.
    pub missing_sections: Option<Vec<String>>,
    pub summary_chars: Option<usize>,
    pub summary_cap: usize,
    pub guard: GuardVerdict,
    pub unknown: Option<String>,
    /// `unknown` is because a message could not be read (not because the host hides its
    /// summaries): `check` says UNKNOWN for it.
    #[serde(skip)]
    pub unread_message: bool,
}

impl CompactionAudit {
    pub fn lost(&self) -> Option<usize> {
        self.identifiers.as_ref().map(|i| i.lost.len())
    }
    pub fn over_cap(&self) -> bool {
        self.summary_chars.is_some_and(|c| c > self.summary_cap)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub compactions: usize,
    pub identifiers_lost: usize,
    pub messages_dropped_unsummarized: usize,
    /// Compactions whose summary could not be read.
    pub unknown: usize,
    /// Compactions whose dropped messages are not known (their planner is not).
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped_unknown: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionAudit {
    pub boundary: Boundary,
    pub totals: Totals,
    /// Oldest first.
    pub compactions: Vec<CompactionAudit>,
    /// Entries that could not be read (named by line); their text was not audited.
    pub warnings: Vec<String>,
}

impl SessionAudit {
    pub fn latest(&self) -> Option<&CompactionAudit> {
        self.compactions.last()
    }
}

/// What the audit needs to know about the host.
#[derive(Debug, Clone)]
pub struct HostFacts {
    pub rules: Rules,
    /// Why compaction summaries cannot be read here (a gateway does not expose them).
    pub summaries_unreadable: Option<String>,
}

impl HostFacts {
    pub fn of(source: &dyn crate::source::SessionSource) -> HostFacts {
        HostFacts {
            rules: source.rules().0,
            summaries_unreadable: source
                .not_exposed()
                .into_iter()
                .find(|(what, _)| *what == "compactionSummary")
                .map(|(_, why)| why),
        }
    }
}

/// One entry of the branch, decoded once for what the audit reads of it.
struct Read {
    /// Its text as the summarizer sees it, and as OpenClaw's guard reads it (the text blocks).
    text: Text,
    guard_text: std::rc::Rc<str>,
    tokens: u64,
    /// The entry could not be decoded (too large, malformed): its text is unknown, not empty.
    unread: bool,
}

/// An entry's text as [`Read`] holds it: its own, or the string its guard text is too (held
/// once). Read from its line alone, it is its own: made shareable it would be copied again,
/// once per entry of every span audited.
enum Text {
    Own(String),
    Shared(std::rc::Rc<str>),
}

impl std::ops::Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Text::Own(s) => s,
            Text::Shared(s) => s,
        }
    }
}

/// Reads branch entries, reporting those that cannot be decoded once each.
struct Reader<'a> {
    t: &'a Transcript,
    warnings: Vec<String>,
    warned: HashSet<u32>,
    /// Only each entry's text is wanted ([`Scope::LatestLoss`]): read from its line
    /// ([`line_text`]), not decoded whole, and no tokens or guard text.
    text_only: bool,
}

impl<'a> Reader<'a> {
    fn new(t: &'a Transcript) -> Reader<'a> {
        Reader {
            t,
            warnings: Vec::new(),
            warned: Default::default(),
            text_only: false,
        }
    }

    fn value(&mut self, idx: u32) -> Option<Value> {
        match self.t.entry_json(idx) {
            Ok(v) => Some(v),
            Err(e) => {
                if self.warned.insert(idx) {
                    self.warnings.push(format!("{e}; its text is not audited"));
                }
                None
            }
        }
    }

    /// Text and tokens of a message-yielding entry (the compaction view's messages).
    fn read(&mut self, idx: u32) -> Read {
        let kind = self.t.entries[idx as usize].kind;
        if self.text_only {
            let text = self
                .t
                .raw_line(idx)
                .ok()
                .and_then(|raw| line_text::seen_text(kind, &raw));
            if let Some(text) = text {
                return Read {
                    text: Text::Own(text),
                    guard_text: "".into(),
                    tokens: 0,
                    unread: false,
                };
            }
        }
        let Some(v) = self.value(idx) else {
            return Read {
                text: Text::Own(String::new()),
                guard_text: "".into(),
                tokens: tokens::estimate_entry(self.t, idx, MessageView::Compaction),
                unread: true,
            };
        };
        let table = usize::from(matches!(
            kind,
            EntryKind::BranchSummary | EntryKind::Compaction
        ));
        let tokens = self.t.memo_estimate(idx, table, || match kind {
            // The message as written is the one estimated: no need to copy it out first.
            EntryKind::Message(_) => v
                .get("message")
                .filter(|m| m.is_object())
                .map_or(0, tokens::estimate_message),
            _ => tokens::message_of_entry(&v, MessageView::Compaction)
                .map(|m| tokens::estimate_message(&m))
                .unwrap_or(0),
        });
        let (text, guard_text) = texts(kind, &v);
        Read {
            text: Text::Shared(text),
            guard_text,
            tokens,
            unread: false,
        }
    }
}

/// (what the summarizer sees, what OpenClaw's guard reads) of an entry: one string when they
/// are the same (a message of 15 MB is held once, not twice).
fn texts(kind: EntryKind, v: &Value) -> (std::rc::Rc<str>, std::rc::Rc<str>) {
    let blocks = |content: Option<&Value>| -> String {
        match content {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    };
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    match kind {
        EntryKind::Message(role) => {
            let m = v.get("message").unwrap_or(&Value::Null);
            let guard: std::rc::Rc<str> = blocks(m.get("content")).into();
            let seen = match role {
                Role::BashExecution => format!("{}\n{}", s(m, "command"), s(m, "output")).into(),
                Role::BranchSummary | Role::CompactionSummary => s(m, "summary").into(),
                _ => guard.clone(),
            };
            (seen, guard)
        }
        EntryKind::CustomMessage => {
            let t: std::rc::Rc<str> = blocks(v.get("content")).into();
            (t.clone(), t)
        }
        EntryKind::BranchSummary | EntryKind::Compaction => (s(v, "summary").into(), "".into()),
        _ => ("".into(), "".into()),
    }
}

/// The text of entry `idx` as OpenClaw 2026.9's guard reads it (`extractMessageText`: the
/// `text` of each content block); None when the entry cannot be decoded.
pub fn guard_text(t: &Transcript, idx: u32) -> Option<String> {
    let v = t.entry_json(idx).ok()?;
    Some(texts(t.entries[idx as usize].kind, &v).1.to_string())
}

fn yields(kind: EntryKind) -> bool {
    kind != EntryKind::Compaction && tokens::kind_yields_message(kind, MessageView::Compaction)
}

/// One compaction as found on the branch.
struct Found {
    pos: usize,
    summary: Option<String>,
    /// Path position of its `firstKeptEntryId` when that is on the branch before it.
    first_kept: Option<usize>,
    first_kept_id: Option<String>,
    /// `plannedAs` of clawtop's record in its `details`.
    recorded: Option<String>,
}

/// The boundary compaction `c` was planned with, after the previous compaction `p`, on a host
/// whose own compactions use `host`: the one clawtop recorded in the entry; else the host's,
/// when the entry's cut is one that planner could make (pi 0.55.1 cuts after `p`, so a
/// `firstKeptEntryId` at or before `p`, or none on the branch, is not pi's); else unknown.
fn planned_with(c: &Found, p: &Found, host: Boundary) -> Boundary {
    match c.recorded.as_deref() {
        Some(crate::plan::RANGE_2026_9) => return Boundary::PreviousFirstKept,
        Some("pi-0.55.1") => return Boundary::AfterPrevious,
        Some(_) => return Boundary::Unknown,
        None => {}
    }
    match (host, c.first_kept) {
        (Boundary::AfterPrevious, Some(k)) if k > p.pos => Boundary::AfterPrevious,
        (Boundary::AfterPrevious, _) => Boundary::Unknown,
        (b, _) => b,
    }
}

/// The span and kept region of one audit, as branch positions.
struct Plan<'p> {
    path: &'p [u32],
    previous: Option<usize>,
    summarized: Positions,
    kept: Positions,
    dropped: Vec<usize>,
}

/// The message positions of the branch a job reads, in order, with a cursor. A compaction's
/// span and kept messages are each a range of the branch, kept as its two ends rather than
/// one number per entry: 20,000 compactions all keeping from one early entry hold 20,000
/// ranges, not 200 million positions. A draft's span is the plan's own list.
enum Positions {
    /// `next..end`, `msg` telling which positions are messages (one flag per branch entry,
    /// shared by every job).
    Range {
        next: usize,
        end: usize,
        msg: std::rc::Rc<[bool]>,
    },
    List {
        list: Vec<usize>,
        next: usize,
    },
}

impl Positions {
    fn range(r: std::ops::Range<usize>, msg: &std::rc::Rc<[bool]>) -> Positions {
        let mut p = Positions::Range {
            next: r.start,
            end: r.end.max(r.start),
            msg: msg.clone(),
        };
        p.skip_non_messages();
        p
    }

    fn skip_non_messages(&mut self) {
        if let Positions::Range { next, end, msg } = self {
            while *next < *end && !msg[*next] {
                *next += 1;
            }
        }
    }

    /// The next position to read, if any.
    fn peek(&self) -> Option<usize> {
        match self {
            Positions::Range { next, end, .. } => (*next < *end).then_some(*next),
            Positions::List { list, next } => list.get(*next).copied(),
        }
    }

    fn advance(&mut self) {
        match self {
            Positions::Range { next, .. } => *next += 1,
            Positions::List { next, .. } => *next += 1,
        }
        self.skip_non_messages();
    }

    /// One past the last position it may read (0: none).
    fn end(&self) -> usize {
        match self {
            Positions::Range { next, end, .. } => {
                if next < end {
                    *end
                } else {
                    0
                }
            }
            Positions::List { list, .. } => list.last().map_or(0, |&p| p + 1),
        }
    }
}

/// What the latest compaction of a session lost, for `check` and `metrics`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Loss {
    pub entry_id: Option<String>,
    /// None when the summary cannot be read.
    pub identifiers_lost: Option<usize>,
    pub messages_dropped_unsummarized: usize,
    /// Why what it lost is unknown, when a message of its span could not be read (never
    /// counted as "0 lost"; a summary the host does not expose is not this).
    pub unknown: Option<String>,
}

impl Loss {
    pub fn of(c: &CompactionAudit) -> Loss {
        Loss {
            entry_id: c.entry_id.clone(),
            identifiers_lost: c.lost(),
            messages_dropped_unsummarized: c.dropped_unsummarized.messages,
            unknown: c.unknown.clone().filter(|_| c.unread_message),
        }
    }

    /// Lost an identifier or dropped a message unsummarized.
    pub fn is_lossy(&self) -> bool {
        self.identifiers_lost.is_some_and(|n| n > 0) || self.messages_dropped_unsummarized > 0
    }
}

/// Audits every compaction on the active branch of `t`, oldest first.
pub fn audit_transcript(t: &Transcript, host: &HostFacts) -> SessionAudit {
    audit_compactions(t, host, Scope::Full)
}

/// What the latest compaction on the active branch lost (None: there is none). Only what
/// that loss needs is worked out (`Scope::LatestLoss`): the compaction's span, and the
/// messages it kept as far as the identifiers its summary left out need, each read for its
/// text alone.
pub fn audit_latest(t: &Transcript, host: &HostFacts) -> Option<Loss> {
    audit_compactions(t, host, Scope::LatestLoss)
        .latest()
        .map(Loss::of)
}

/// How much of an audit is worked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// Every compaction, everything a report shows.
    Full,
    /// The latest compaction, and of it only what [`Loss`] reads: the span's identifiers, the
    /// summary's and the kept messages' verdict on them, what was dropped and what could not
    /// be read. A list row wants no more, and of a session of real size the rest is most of
    /// the work: which summary identifiers were invented (a search of the whole branch before
    /// the compaction) and the guard's verdict (a second extraction of the span's last texts,
    /// then a search of the summary for each identifier).
    LatestLoss,
}

fn audit_compactions(t: &Transcript, host: &HostFacts, scope: Scope) -> SessionAudit {
    let only_latest = scope == Scope::LatestLoss;
    let path = t.active_branch();
    let boundary = Boundary::of_host(host.rules);
    let mut reader = Reader::new(t);
    reader.text_only = only_latest;
    let found = compactions_on(t, &path, host, &mut reader);

    // Every summary's identifiers, and the first branch position that holds each.
    let audited = if only_latest {
        found.len().saturating_sub(1)
    } else {
        0
    };
    let summary_ids: Vec<Vec<String>> = found
        .iter()
        .enumerate()
        .map(|(k, f)| match &f.summary {
            Some(s) if k >= audited && scope == Scope::Full => extract::identifiers(s),
            _ => Vec::new(),
        })
        .collect();

    let msg: std::rc::Rc<[bool]> = path
        .iter()
        .map(|&i| yields(t.entries[i as usize].kind))
        .collect();
    let mut jobs = Vec::with_capacity(found.len() - audited);
    for (k, c) in found.iter().enumerate().skip(audited) {
        let prev = k.checked_sub(1).map(|j| &found[j]);
        // Only a previous compaction that kept messages makes the boundary matter.
        let planned = match prev {
            Some(p) if p.first_kept.is_some() => planned_with(c, p, boundary),
            _ => boundary,
        };
        // Unknown: the span is read as 2026.9's (the widest), and no drop is claimed.
        let start = match (prev, planned) {
            (None, _) => 0,
            (Some(p), Boundary::PreviousFirstKept | Boundary::Unknown) => {
                p.first_kept.unwrap_or(p.pos + 1)
            }
            (Some(p), Boundary::AfterPrevious) => p.pos + 1,
        };
        let keep_from = c.first_kept.unwrap_or(c.pos);
        let is_msg = |p: &usize| msg[*p];
        let summarized = Positions::range(start..keep_from.max(start), &msg);
        let kept = Positions::range(keep_from..c.pos, &msg);
        let dropped: Vec<usize> = match prev
            .and_then(|p| p.first_kept.map(|fk| (fk, p.pos)))
            .filter(|_| planned != Boundary::Unknown)
        {
            // Only what lies before both the span and the kept messages is walked.
            Some((fk, pp)) => (fk..pp.min(start).min(keep_from)).filter(is_msg).collect(),
            None => Vec::new(),
        };
        let plan = Plan {
            path: &path,
            previous: prev.map(|p| p.pos),
            summarized,
            kept,
            dropped,
        };
        jobs.push((
            planned,
            Job::new(
                t,
                plan,
                c.pos,
                prev.and_then(|p| p.summary.as_deref()),
                c.summary.as_deref(),
            )
            .judged(scope == Scope::Full),
        ));
    }
    let (planned, jobs): (Vec<Boundary>, Vec<Job>) = jobs.into_iter().unzip();
    // Each audit is finished as soon as the pass reaches its compaction (every identifier
    // seen before it is known by then), so only the audits in progress hold their identifiers.
    let mut audits = Vec::with_capacity(jobs.len());
    let done = |j: usize, job: Job, first_seen: &HashMap<String, usize>| {
        let k = audited + j;
        let c = &found[k];
        let invented = summary_ids[k]
            .iter()
            .filter(|id| first_seen.get(id.as_str()).is_none_or(|&s| s >= c.pos))
            .cloned()
            .collect();
        let mut a = job.finish(t, invented, host, planned[j]);
        a.entry_id = Some(t.display_id(path[c.pos]));
        a.first_kept_entry_id = c.first_kept_id.clone();
        if a.identifiers.is_none() && a.unknown.is_none() {
            a.unknown = Some(match &host.summaries_unreadable {
                Some(why) => format!("compaction summaries are {why}"),
                None => "the compaction entry has no readable summary".to_string(),
            });
        }
        audits.push(a);
    };
    read_branch(t, &path, &summary_ids, jobs, &mut reader, done);
    let totals = Totals {
        compactions: audits.len(),
        identifiers_lost: audits.iter().filter_map(CompactionAudit::lost).sum(),
        messages_dropped_unsummarized: audits.iter().map(|a| a.dropped_unsummarized.messages).sum(),
        unknown: audits.iter().filter(|a| a.identifiers.is_none()).count(),
        dropped_unknown: audits
            .iter()
            .filter(|a| a.dropped_unsummarized.unknown.is_some())
            .count(),
    };
    SessionAudit {
        boundary,
        totals,
        compactions: audits,
        warnings: reader.warnings,
    }
}

/// The compactions on the branch `path`, each read once.
fn compactions_on(
    t: &Transcript,
    path: &[u32],
    host: &HostFacts,
    reader: &mut Reader,
) -> Vec<Found> {
    let mut pos_of = vec![u32::MAX; t.len()];
    for (p, &i) in path.iter().enumerate() {
        pos_of[i as usize] = p as u32;
    }
    path.iter()
        .enumerate()
        .filter(|(_, i)| t.entries[**i as usize].kind == EntryKind::Compaction)
        .map(|(pos, &i)| {
            let v = reader.value(i);
            let summary = v
                .as_ref()
                .and_then(|v| v.get("summary"))
                .and_then(Value::as_str)
                .filter(|_| host.summaries_unreadable.is_none())
                .map(str::to_string);
            let first_kept = v
                .as_ref()
                .and_then(|v| t.first_kept_of(i, v))
                .map(|k| pos_of[k as usize] as usize)
                .filter(|&k| k < pos);
            let first_kept_id = v
                .as_ref()
                .and_then(|v| v.get("firstKeptEntryId"))
                .and_then(Value::as_str)
                .map(str::to_string);
            let recorded = v
                .as_ref()
                .and_then(crate::plan::recorded_planner)
                .map(str::to_string);
            Found {
                pos,
                summary,
                first_kept,
                first_kept_id,
                recorded,
            }
        })
        .collect()
}

/// The one pass over the branch: each entry that anything needs is decoded once, in branch
/// order, and its text handed to everything that reads it — the search for the first entry
/// holding each summary identifier (`ids`, returned as identifier → position), and each job's
/// span and kept messages. A job is handed to `done` (with its index and the identifiers
/// found so far) when the pass reaches its `done_at`; the pass stops once every identifier is
/// found and every job is past.
fn read_branch<'p>(
    t: &Transcript,
    path: &[u32],
    ids: &[Vec<String>],
    jobs: Vec<Job<'p>>,
    reader: &mut Reader,
    mut done: impl FnMut(usize, Job<'p>, &HashMap<String, usize>),
) -> HashMap<String, usize> {
    let all: Vec<&str> = {
        let mut seen = HashSet::default();
        ids.iter()
            .flatten()
            .map(String::as_str)
            .filter(|s| seen.insert(*s))
            .collect()
    };
    let mut first_seen = HashMap::default();
    let mut presence = (!all.is_empty()).then(|| presence::Presence::new(&all));
    // In progress, in order (a job's `done_at` never decreases down the list); each is
    // touched only at the positions it reads, found through a queue keyed by its next one, so
    // the pass costs what the jobs read, not (positions × jobs).
    let jobs_end = jobs.iter().map(Job::end).max().unwrap_or(0);
    let mut jobs: Vec<Option<Job>> = jobs.into_iter().map(Some).collect();
    let mut next_done = 0;
    let mut queue: std::collections::BinaryHeap<std::cmp::Reverse<(usize, usize)>> = jobs
        .iter()
        .enumerate()
        .filter_map(|(n, j)| Some(std::cmp::Reverse((j.as_ref()?.next_wanted()?, n))))
        .collect();
    for (pos, &i) in path.iter().enumerate() {
        while next_done < jobs.len() && jobs[next_done].as_ref().is_some_and(|j| j.done_at <= pos) {
            let j = jobs[next_done].take().expect("not done yet");
            done(next_done, j, &first_seen);
            next_done += 1;
        }
        let searching = presence.as_ref().is_some_and(|p| !p.all_found());
        if !searching && pos >= jobs_end {
            break;
        }
        let kind = t.entries[i as usize].kind;
        let search_here = searching && tokens::kind_yields_message(kind, MessageView::Compaction);
        let job_here = queue.peek().is_some_and(|r| r.0.0 <= pos);
        if !search_here && !job_here {
            continue;
        }
        let r = reader.read(i);
        if search_here {
            if let Some(p) = presence.as_mut() {
                p.scan(&r.text, |k| {
                    first_seen.insert(all[k].to_string(), pos);
                });
            }
        }
        while let Some(std::cmp::Reverse((at, n))) = queue.peek().copied() {
            if at > pos {
                break;
            }
            queue.pop();
            if let Some(j) = jobs[n].as_mut() {
                j.take(pos, &r);
                if let Some(next) = j.next_wanted().filter(|&p| p > pos) {
                    queue.push(std::cmp::Reverse((next, n)));
                }
            }
        }
    }
    for (n, j) in jobs.into_iter().enumerate().skip(next_done) {
        if let Some(j) = j {
            done(n, j, &first_seen);
        }
    }
    first_seen
}

/// One audit being gathered during [`read_branch`]: the span's identifiers in order of first
/// appearance with the entry that held each, its size, the guard's last texts, and once the
/// span is complete (the kept messages come after it), the search of the kept messages for
/// the identifiers the summary left out.
struct Job<'p> {
    plan: Plan<'p>,
    /// The position where it is complete: its compaction (the end of the branch for a draft).
    done_at: usize,
    summary: Option<&'p str>,
    /// The span's identifiers in order of first appearance, each held once (a span of
    /// 600,000 URLs is 600,000 strings, not twice that), and the position that held each.
    order: indexmap::IndexSet<String>,
    first_at: Vec<usize>,
    span: Span,
    /// The last [`guard::GUARD_MESSAGES`] summarized messages as the guard reads them.
    guard_texts: std::collections::VecDeque<std::rc::Rc<str>>,
    /// Whether the summary is judged as OpenClaw's guard would ([`guard::verdict`], its
    /// sections and length); when not, those stay unknown ([`Scope::LatestLoss`]).
    judged: bool,
    kept: Option<KeptSearch>,
    /// The first position of the span or the kept messages whose text could not be read:
    /// what the summary lost is then unknown, never counted from the rest.
    unread: Option<usize>,
}

/// The summary's verdict on the span's identifiers, and the search of the kept messages for
/// the rest.
struct KeptSearch {
    in_summary: Vec<bool>,
    residual: Vec<usize>,
    in_kept: presence::Presence,
}

impl<'p> Job<'p> {
    fn new(
        t: &Transcript,
        plan: Plan<'p>,
        done_at: usize,
        prev_summary: Option<&str>,
        summary: Option<&'p str>,
    ) -> Job<'p> {
        let mut job = Job {
            done_at,
            span: Span {
                previous_summary_entry_id: plan.previous.map(|p| t.display_id(plan.path[p])),
                ..Span::default()
            },
            plan,
            summary,
            order: Default::default(),
            first_at: Vec::new(),
            guard_texts: Default::default(),
            judged: true,
            kept: None,
            unread: None,
        };
        if let Some(pp) = job.plan.previous {
            if let Some(s) = prev_summary {
                job.add(s, pp);
            }
            job.span.tokens +=
                tokens::estimate_entry(t, job.plan.path[pp], MessageView::Compaction);
        }
        job.start_kept_search_when_span_done();
        job
    }

    /// Whether the summary is judged (the default) or only its identifiers counted.
    fn judged(mut self, judged: bool) -> Job<'p> {
        self.judged = judged;
        self
    }

    /// The kept messages come after the span: once it is all read, what the summary left out
    /// is known and the kept messages can be searched for it.
    fn start_kept_search_when_span_done(&mut self) {
        if let (Some(summary), None) = (self.summary, &self.kept) {
            if self.plan.summarized.peek().is_none() {
                self.kept = Some(kept_search(&self.order, summary));
            }
        }
    }

    fn add(&mut self, text: &str, pos: usize) {
        let (order, first_at) = (&mut self.order, &mut self.first_at);
        extract::each(text, |v| {
            if !order.contains(v) {
                order.insert(v.to_string());
                first_at.push(pos);
            }
        });
    }

    /// One past the last position it reads.
    fn end(&self) -> usize {
        self.plan.summarized.end().max(if self.summary.is_some() {
            self.plan.kept.end()
        } else {
            0
        })
    }

    /// The next position it reads, if any.
    fn next_wanted(&self) -> Option<usize> {
        let kept = self
            .plan
            .kept
            .peek()
            .filter(|_| self.kept.as_ref().is_some_and(|k| !k.in_kept.all_found()));
        match (self.plan.summarized.peek(), kept) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Takes entry `pos` (read as `r`) when it is the next one of its span or kept messages.
    fn take(&mut self, pos: usize, r: &Read) {
        if self.plan.summarized.peek() == Some(pos) {
            self.plan.summarized.advance();
            if r.unread {
                self.unread.get_or_insert(pos);
            }
            self.add(&r.text, pos);
            self.span.entries += 1;
            self.span.tokens += r.tokens;
            if self.judged {
                self.guard_texts.push_back(r.guard_text.clone());
                if self.guard_texts.len() > guard::GUARD_MESSAGES {
                    self.guard_texts.pop_front();
                }
            }
            self.start_kept_search_when_span_done();
        }
        if self.plan.kept.peek() == Some(pos) {
            if let Some(k) = self.kept.as_mut().filter(|k| !k.in_kept.all_found()) {
                self.plan.kept.advance();
                if r.unread {
                    self.unread.get_or_insert(pos);
                }
                k.in_kept.scan(&r.text, |_| {});
            }
        }
    }

    /// The audit, once the pass is over.
    fn finish(
        mut self,
        t: &Transcript,
        invented: Vec<String>,
        host: &HostFacts,
        boundary: Boundary,
    ) -> CompactionAudit {
        let path = self.plan.path;
        let id_at = |p: usize| t.display_id(path[p]);
        let mut dropped = Dropped::default();
        if boundary == Boundary::Unknown {
            dropped.unknown = Some(
                "the entry does not record how it was planned, and its cut is not one the host's own planner (pi 0.55.1) makes"
                    .into(),
            );
        }
        for &p in &self.plan.dropped {
            dropped.messages += 1;
            dropped.tokens += tokens::estimate_entry(t, path[p], MessageView::Compaction);
            dropped.entry_ids.push(id_at(p));
        }
        let unread = self.unread.map(|p| {
            format!(
                "message {} in the span or the kept messages could not be read (too large or malformed), so what the summary lost is unknown",
                id_at(p)
            )
        });
        let summary = match (self.summary, &unread) {
            (Some(summary), None) => Some(summary),
            _ => None,
        };
        let Some(summary) = summary else {
            return CompactionAudit {
                entry_id: None,
                first_kept_entry_id: None,
                boundary,
                span: self.span,
                identifiers: None,
                dropped_unsummarized: dropped,
                missing_sections: None,
                summary_chars: None,
                summary_cap: guard::SUMMARY_CAP,
                guard: GuardVerdict::unknown(),
                unread_message: unread.is_some(),
                unknown: unread,
            };
        };
        let k = self
            .kept
            .take()
            .unwrap_or_else(|| kept_search(&self.order, summary));
        let in_kept = k.in_kept.into_found();
        // The identifiers move into what is reported; the set's table goes first.
        let mut order: Vec<String> = std::mem::take(&mut self.order).into_iter().collect();
        let first_at = &self.first_at;
        let mut held = |i: usize| Held {
            value: std::mem::take(&mut order[i]),
            entry_id: id_at(first_at[i]),
        };
        let mut ids = Identifiers {
            total: first_at.len(),
            invented,
            ..Identifiers::default()
        };
        for (i, _) in k.in_summary.iter().enumerate().filter(|(_, s)| **s) {
            ids.kept.push(held(i));
        }
        for (r, &i) in k.residual.iter().enumerate() {
            if in_kept[r] {
                ids.still_in_kept.push(held(i));
            } else {
                ids.lost.push(held(i));
            }
        }
        let guard_texts: Vec<&str> = self.guard_texts.iter().map(|t| &**t).collect();
        CompactionAudit {
            entry_id: None,
            first_kept_entry_id: None,
            boundary,
            span: self.span,
            identifiers: Some(ids),
            dropped_unsummarized: dropped,
            missing_sections: (self.judged && host.rules == Rules::V2026_9)
                .then(|| guard::missing_sections(summary)),
            summary_chars: self.judged.then(|| guard::chars(summary)),
            summary_cap: guard::SUMMARY_CAP,
            guard: match self.judged {
                true => guard::verdict(summary, &guard_texts),
                false => GuardVerdict::unknown(),
            },
            unknown: None,
            unread_message: false,
        }
    }
}

/// Which span identifiers `summary` includes, and a search for the others.
fn kept_search(order: &indexmap::IndexSet<String>, summary: &str) -> KeptSearch {
    let values: Vec<&str> = order.iter().map(String::as_str).collect();
    let in_summary = presence::included(&values, summary);
    let residual: Vec<usize> = (0..values.len()).filter(|&i| !in_summary[i]).collect();
    let residual_values: Vec<&str> = residual.iter().map(|&i| values[i]).collect();
    KeptSearch {
        in_summary,
        in_kept: presence::Presence::new(&residual_values),
        residual,
    }
}

/// The audit of a draft `summary` for `plan` before it is committed: what it would lose of
/// the span the plan replaces (the previous summary included), against what stays in context
/// (the plan's `firstKeptEntryId` to the leaf).
pub fn audit_draft(
    t: &Transcript,
    plan: &crate::plan::CompactionPlan,
    summary: &str,
    host: &HostFacts,
) -> CompactionAudit {
    let path = &plan.path;
    let mut reader = Reader::new(t);
    let mut pos_of: HashMap<u32, usize> = HashMap::with_capacity(path.len());
    for (p, &i) in path.iter().enumerate() {
        pos_of.insert(i, p);
    }
    let at = |i: &u32| pos_of.get(i).copied();
    let summarized: Vec<usize> = plan
        .messages_to_summarize
        .iter()
        .chain(&plan.turn_prefix_messages)
        .filter_map(at)
        .collect();
    let first_kept = at(&plan.first_kept_entry).unwrap_or(path.len());
    let msg: std::rc::Rc<[bool]> = path
        .iter()
        .map(|&i| yields(t.entries[i as usize].kind))
        .collect();
    let kept = Positions::range(first_kept..path.len(), &msg);
    let previous = plan.previous_compaction.and_then(|i| at(&i));
    let dropped = previous
        .and_then(|pp| {
            let v = reader.value(path[pp])?;
            let fk = t.first_kept_of(path[pp], &v).and_then(|i| at(&i))?;
            let summarized: HashSet<usize> = summarized.iter().copied().collect();
            Some(
                (fk..pp)
                    .filter(|p| yields(t.entries[path[*p] as usize].kind))
                    .filter(|p| !summarized.contains(p) && *p < first_kept)
                    .collect(),
            )
        })
        .unwrap_or_default();
    let boundary =
        if plan.boundary_start > 0 && previous.is_some_and(|pp| plan.boundary_start <= pp) {
            Boundary::PreviousFirstKept
        } else {
            Boundary::AfterPrevious
        };
    // The plan's messages to summarize and its split turn's prefix follow each other on the
    // branch: in branch order, as the pass reads them.
    debug_assert!(summarized.windows(2).all(|w| w[0] < w[1]));
    let p = Plan {
        path,
        previous,
        summarized: Positions::List {
            list: summarized,
            next: 0,
        },
        kept,
        dropped,
    };
    let draft_ids = vec![extract::identifiers(summary)];
    let job = Job::new(
        t,
        p,
        path.len(),
        plan.previous_summary.as_deref(),
        Some(summary),
    );
    let mut finished = None;
    let seen = read_branch(t, path, &draft_ids, vec![job], &mut reader, |_, j, _| {
        finished = Some(j)
    });
    let job = finished.expect("read_branch hands back every job");
    let invented = draft_ids
        .into_iter()
        .flatten()
        .filter(|id| !seen.contains_key(id))
        .collect();
    let mut a = job.finish(t, invented, host, boundary);
    a.first_kept_entry_id = t.entry_id(plan.first_kept_entry).map(String::from);
    a
}

#[cfg(test)]
mod tests;
