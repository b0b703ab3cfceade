//! The compaction plan: OpenClaw 2026.9's `prepareCompaction` on the active branch
//! (reference/openclaw-2026.9.md §12; pi's cut point, docs/pi-compaction.md §4 and §5), without
//! any model call and without 2026.9's `triggerUnitScale` (2026.2 hosts have none; SPEC §6.1).
//! The range to summarize starts at the previous compaction's `firstKeptEntryId` (after the
//! previous compaction entry when that is not on the branch before it), and pi's
//! `findCutPoint` runs over that whole range at keepRecentTokens: the newest keepRecentTokens
//! stay verbatim even when the previous compaction kept them. pi 0.55.1 starts both the range
//! and the cut search right after the previous compaction entry, so the messages that
//! compaction kept were neither summarized nor kept (what `clawtop audit` reports as dropped
//! for the compactions pi planned). The entry written loads unchanged in pi 0.55.1 and
//! OpenClaw 2026.2.26: their `buildSessionContext` emits the summary, then every message from
//! `firstKeptEntryId` on, skipping compaction entries.

use crate::jsjson::sort_js;
use crate::tokens::{self, MessageView};
use crate::transcript::{EntryKind, Role, Transcript};
use serde_json::Value;
use std::collections::BTreeSet;

pub const DEFAULT_KEEP_RECENT_TOKENS: u64 = 20000;

/// The key, inside a compaction entry's `details`, of clawtop's record of how it planned the
/// entry (pi 0.55.1 and OpenClaw keep `details` as written and read only its `readFiles` and
/// `modifiedFiles`): `{"plannedAs": RANGE_2026_9, "keepRecentTokens": N}`. The audit reads it
/// to judge the entry by the boundary it was really planned with (SPEC §6a).
pub const RECORD_KEY: &str = "clawtop";
/// `plannedAs` of a plan whose range starts at the previous compaction's `firstKeptEntryId`.
pub const RANGE_2026_9: &str = "openclaw-2026.9";

/// The record written into `details` under [`RECORD_KEY`].
pub fn record(plan: &CompactionPlan) -> Value {
    record_value(plan.keep_recent_tokens)
}

/// The record of a plan made at keepRecentTokens `keep`.
pub fn record_value(keep: u64) -> Value {
    serde_json::json!({"plannedAs": RANGE_2026_9, "keepRecentTokens": keep})
}

/// `plannedAs` of a compaction entry's record (None: the entry carries none).
pub fn recorded_planner(entry: &Value) -> Option<&str> {
    entry
        .get("details")?
        .get(RECORD_KEY)?
        .get("plannedAs")?
        .as_str()
}

/// Where the cut lands, as positions on the branch path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutPoint {
    pub first_kept: usize,
    /// -1 in pi; None here.
    pub turn_start: Option<usize>,
    pub is_split_turn: bool,
}

/// Everything a compaction needs to know before the model is called.
#[derive(Debug, Clone)]
pub struct CompactionPlan {
    /// Branch path (transcript indices, root first) the plan was made on.
    pub path: Vec<u32>,
    pub leaf: u32,
    /// Transcript index of the first entry kept verbatim.
    pub first_kept_entry: u32,
    pub cut: CutPoint,
    /// Path positions `[boundary_start, history_end)` whose messages get summarized (the
    /// previous compaction entry itself excepted: its summary is `previous_summary`).
    pub boundary_start: usize,
    pub history_end: usize,
    /// Transcript indices of the entries whose messages are summarized / are the turn prefix.
    pub messages_to_summarize: Vec<u32>,
    pub turn_prefix_messages: Vec<u32>,
    pub tokens_before: u64,
    pub previous_compaction: Option<u32>,
    pub previous_summary: Option<String>,
    pub read_files: Vec<String>,
    pub modified_files: Vec<String>,
    pub keep_recent_tokens: u64,
}

/// Why there is no plan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoPlan {
    #[error("nothing to compact: the transcript has no entries")]
    Empty,
    #[error("already compacted: the last entry of the branch is a compaction")]
    AlreadyCompacted,
    #[error("nothing to compact (session too small)")]
    TooSmall,
}

fn is_cut_point(kind: EntryKind) -> bool {
    matches!(
        kind,
        EntryKind::BranchSummary
            | EntryKind::CustomMessage
            | EntryKind::Message(
                Role::User
                    | Role::Assistant
                    | Role::BashExecution
                    | Role::Custom
                    | Role::BranchSummary
                    | Role::CompactionSummary
            )
    )
}

fn is_turn_start(kind: EntryKind) -> bool {
    matches!(
        kind,
        EntryKind::BranchSummary
            | EntryKind::CustomMessage
            | EntryKind::Message(Role::User | Role::BashExecution)
    )
}

/// `findCutPoint(path, start, end, keepRecentTokens)`.
pub fn find_cut_point(
    t: &Transcript,
    path: &[u32],
    start: usize,
    end: usize,
    keep: u64,
) -> CutPoint {
    let kind = |pos: usize| t.entries[path[pos] as usize].kind;
    let cps: Vec<usize> = (start..end).filter(|&p| is_cut_point(kind(p))).collect();
    if cps.is_empty() {
        return CutPoint {
            first_kept: start,
            turn_start: None,
            is_split_turn: false,
        };
    }
    let mut cut = cps[0];
    let mut acc = 0u64;
    for i in (start..end).rev() {
        if !kind(i).is_message() {
            continue;
        }
        acc += tokens::estimate_entry(t, path[i], MessageView::Compaction);
        if acc >= keep {
            if let Some(&c) = cps.iter().find(|&&c| c >= i) {
                cut = c;
            }
            break;
        }
    }
    while cut > start {
        let prev = kind(cut - 1);
        if prev == EntryKind::Compaction || prev.is_message() {
            break;
        }
        cut -= 1;
    }
    let is_user = kind(cut) == EntryKind::Message(Role::User);
    let turn_start = if is_user {
        None
    } else {
        (start..=cut).rev().find(|&i| is_turn_start(kind(i)))
    };
    CutPoint {
        first_kept: cut,
        turn_start,
        is_split_turn: !is_user && turn_start.is_some(),
    }
}

/// `prepareCompaction(getBranch(), settings)` for the current leaf.
pub fn prepare(t: &Transcript, keep_recent_tokens: u64) -> Result<CompactionPlan, NoPlan> {
    prepare_on(t, t.active_branch(), keep_recent_tokens)
}

pub fn prepare_on(t: &Transcript, path: Vec<u32>, keep: u64) -> Result<CompactionPlan, NoPlan> {
    prepare_with(t, path, keep, true)
}

/// The plan's cut and sizes without its file lists (`read_files`/`modified_files` empty):
/// what an outlook needs when it tries many keepRecentTokens values, without decoding every
/// summarized message for tool calls each time.
pub fn prepare_cut(t: &Transcript, keep_recent_tokens: u64) -> Result<CompactionPlan, NoPlan> {
    prepare_with(t, t.active_branch(), keep_recent_tokens, false)
}

fn prepare_with(
    t: &Transcript,
    path: Vec<u32>,
    keep: u64,
    file_ops: bool,
) -> Result<CompactionPlan, NoPlan> {
    let Some(&leaf) = path.last() else {
        return Err(NoPlan::Empty);
    };
    let kind = |pos: usize| t.entries[path[pos] as usize].kind;
    if kind(path.len() - 1) == EntryKind::Compaction {
        return Err(NoPlan::AlreadyCompacted);
    }
    let prev_pos = (0..path.len())
        .rev()
        .find(|&p| kind(p) == EntryKind::Compaction);
    let boundary_start = range_start(t, &path, prev_pos);
    let end = path.len();
    // tokensBefore counts from the previous compaction (its summary included) to the end.
    let from = prev_pos.unwrap_or(0);
    let tokens_before =
        tokens::estimate_context_of_entries(t, &path[from..], MessageView::Compaction).tokens;
    let cut = find_cut_point(t, &path, boundary_start, end, keep);
    if cut.first_kept >= path.len() {
        return Err(NoPlan::TooSmall);
    }
    if t.version >= 2 && !t.entries[path[cut.first_kept] as usize].has_id() {
        return Err(NoPlan::TooSmall);
    }
    let history_end = if cut.is_split_turn {
        cut.turn_start.unwrap_or(cut.first_kept)
    } else {
        cut.first_kept
    };
    let yields = |p: &usize| {
        kind(*p) != EntryKind::Compaction
            && tokens::kind_yields_message(kind(*p), MessageView::Compaction)
    };
    let messages_to_summarize: Vec<u32> = (boundary_start..history_end)
        .filter(yields)
        .map(|p| path[p])
        .collect();
    let turn_prefix_messages: Vec<u32> = match (cut.is_split_turn, cut.turn_start) {
        (true, Some(ts)) => (ts..cut.first_kept)
            .filter(yields)
            .map(|p| path[p])
            .collect(),
        _ => Vec::new(),
    };
    let mut previous_summary = None;
    let mut read = BTreeSet::new();
    let mut edited = BTreeSet::new();
    let mut written = BTreeSet::new();
    if let Some(pp) = prev_pos {
        if let Ok(v) = t.entry_json(path[pp]) {
            previous_summary = v.get("summary").and_then(Value::as_str).map(str::to_string);
            let from_hook = v.get("fromHook").and_then(Value::as_bool) == Some(true);
            if let (false, Some(d)) = (from_hook, v.get("details").filter(|d| d.is_object())) {
                for (key, set) in [("readFiles", &mut read), ("modifiedFiles", &mut edited)] {
                    if let Some(a) = d.get(key).and_then(Value::as_array) {
                        set.extend(a.iter().filter_map(Value::as_str).map(str::to_string));
                    }
                }
            }
        }
    }
    if file_ops {
        let replies: Vec<u32> = messages_to_summarize
            .iter()
            .chain(turn_prefix_messages.iter())
            .copied()
            .filter(|&i| t.entries[i as usize].kind == EntryKind::Message(Role::Assistant))
            .collect();
        // Read in one pass (rows of a database), into sets of their own: a pass whose data
        // cannot be trusted is dropped and the entries are read one by one instead.
        let (mut r, mut w, mut e) = (read.clone(), BTreeSet::new(), edited.clone());
        let whole = t.for_each_raw(&replies, |i, raw| {
            file_ops_of(t, i, raw, &mut r, &mut w, &mut e)
        });
        if whole {
            (read, written, edited) = (r, w, e);
        } else {
            for &i in &replies {
                if let Ok(raw) = t.raw_line(i) {
                    file_ops_of(t, i, &raw, &mut read, &mut written, &mut edited);
                }
            }
        }
    }
    let modified: BTreeSet<String> = edited.union(&written).cloned().collect();
    let mut read_files: Vec<String> = read.difference(&modified).cloned().collect();
    let mut modified_files: Vec<String> = modified.into_iter().collect();
    sort_js(&mut read_files);
    sort_js(&mut modified_files);
    Ok(CompactionPlan {
        leaf,
        first_kept_entry: path[cut.first_kept],
        cut,
        boundary_start,
        history_end,
        messages_to_summarize,
        turn_prefix_messages,
        tokens_before,
        previous_compaction: prev_pos.map(|p| path[p]),
        previous_summary,
        read_files,
        modified_files,
        keep_recent_tokens: keep,
        path,
    })
}

/// Where the range a compaction summarizes starts on `path` (2026.9's `boundaryStart`): the
/// previous compaction's `firstKeptEntryId` when it is on the branch before it, else right
/// after the previous compaction, else the root. `prev` is the last compaction's position.
pub fn range_start(t: &Transcript, path: &[u32], prev: Option<usize>) -> usize {
    match prev {
        Some(pp) => previous_first_kept(t, path, pp).unwrap_or(pp + 1),
        None => 0,
    }
}

/// [`range_start`] of the active branch `path`, finding its last compaction.
pub fn range_start_of(t: &Transcript, path: &[u32]) -> usize {
    let prev = path
        .iter()
        .rposition(|&i| t.entries[i as usize].kind == EntryKind::Compaction);
    range_start(t, path, prev)
}

/// The branch position of the `firstKeptEntryId` of the compaction at position `prev`, when
/// it is on the branch before it.
fn previous_first_kept(t: &Transcript, path: &[u32], prev: usize) -> Option<usize> {
    let v = t.entry_json(path[prev]).ok()?;
    let idx = t.first_kept_of(path[prev], &v)?;
    path[..prev].iter().rposition(|&i| i == idx)
}

/// `extractFileOpsFromMessage` on assistant entry `idx`, whose raw line is `raw`:
/// read/write/edit tool calls with a non-empty string `path`.
fn file_ops_of(
    t: &Transcript,
    idx: u32,
    raw: &[u8],
    read: &mut BTreeSet<String>,
    written: &mut BTreeSet<String>,
    edited: &mut BTreeSet<String>,
) {
    // Most assistant lines carry no read/write/edit call; skip decoding those. Any such call
    // has the tool name as a JSON string, so the quoted name must occur in the raw line. The
    // searchers are built once: building one per line and needle cost as much as searching.
    use memchr::memmem::Finder;
    use std::sync::LazyLock;
    static NEEDLES: LazyLock<[Finder<'static>; 4]> = LazyLock::new(|| {
        let needles: [&'static [u8]; 4] = [b"toolCall", b"\"read\"", b"\"write\"", b"\"edit\""];
        needles.map(Finder::new)
    });
    let [call, r, w, e] = &*NEEDLES;
    let has = |f: &Finder| f.find(raw).is_some();
    if !has(call) || !(has(r) || has(w) || has(e)) {
        return;
    }
    // Fast path: decode only the tool-call fields (no allocation for text blocks).
    if let Ok(line) = serde_json::from_slice::<ops::Line>(raw) {
        for b in line.message.content {
            if b.ty.0.as_deref() != Some("toolCall") {
                continue;
            }
            if let (Some(name), Some(path)) = (b.name.0, b.arguments.and_then(|a| a.path.0)) {
                add_op(&name, &path, read, written, edited);
            }
        }
        return;
    }
    let Ok(v) = t.entry_json(idx) else { return };
    let Some(blocks) = v
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
    else {
        return;
    };
    for b in blocks {
        if b.get("type").and_then(Value::as_str) != Some("toolCall") {
            continue;
        }
        let (Some(name), Some(path)) = (
            b.get("name").and_then(Value::as_str),
            b.get("arguments")
                .and_then(|a| a.get("path"))
                .and_then(Value::as_str),
        ) else {
            continue;
        };
        add_op(name, path, read, written, edited);
    }
}

fn add_op(
    name: &str,
    path: &str,
    read: &mut BTreeSet<String>,
    written: &mut BTreeSet<String>,
    edited: &mut BTreeSet<String>,
) {
    if path.is_empty() {
        return;
    }
    let set = match name {
        "read" => read,
        "write" => written,
        "edit" => edited,
        _ => return,
    };
    if !set.contains(path) {
        set.insert(path.to_string());
    }
}

/// Borrowing decoders for the tool-call fields of an assistant line.
mod ops {
    use crate::transcript::parse::AnyStr;
    use serde::Deserialize;

    #[derive(Deserialize)]
    pub struct Line<'a> {
        #[serde(borrow)]
        pub message: Msg<'a>,
    }
    #[derive(Deserialize)]
    pub struct Msg<'a> {
        #[serde(borrow, default)]
        pub content: Vec<Block<'a>>,
    }
    #[derive(Deserialize)]
    pub struct Block<'a> {
        #[serde(rename = "type", borrow, default)]
        pub ty: AnyStr<'a>,
        #[serde(borrow, default)]
        pub name: AnyStr<'a>,
        #[serde(borrow, default)]
        pub arguments: Option<Args<'a>>,
    }
    #[derive(Deserialize)]
    pub struct Args<'a> {
        #[serde(borrow, default)]
        pub path: AnyStr<'a>,
    }
}

/// The cut a compaction would make now, as a transcript index (for the "next cut" marker);
/// None when a compaction would have nothing to summarize. The plan without its file lists
/// ([`prepare_cut`]): the same cut, without decoding every reply to be summarized (the whole
/// transcript of a session never compacted) for the files it touched.
pub fn next_cut_entry(t: &Transcript, keep: u64) -> Option<u32> {
    prepare_cut(t, keep)
        .ok()
        .filter(|p| !p.messages_to_summarize.is_empty() || !p.turn_prefix_messages.is_empty())
        .map(|p| p.first_kept_entry)
}
