//! Turning transcript entries into what the Session and Summaries screens draw.
//!
//! Everything here reads the transcript, so it runs inside effects (off the render path);
//! opening it through its source is [`crate::tui::runtime::transcript`]. Every string that
//! leaves this module is already sanitized.

use crate::plan;
use crate::sanitize::{for_terminal, one_line};
use crate::tokens::{self, MessageView};
use crate::transcript::{EntryKind, Role, Transcript};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// What `n`/`N` look for on the Session screen.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Find {
    #[default]
    Compactions,
    Errors,
    ToolResults,
    FlushTurns,
    /// Text searched with `/` (case-insensitive, in the entry's JSON line).
    Text(String),
}

impl Find {
    pub fn name(&self) -> String {
        match self {
            Find::Compactions => "compactions".into(),
            Find::Errors => "errors".into(),
            Find::ToolResults => "tool results".into(),
            Find::FlushTurns => "flush turns".into(),
            Find::Text(t) => format!("\"{}\"", crate::sanitize::one_line(t)),
        }
    }

    /// The next kind (a text search goes back to the first kind).
    pub fn next_kind(&self) -> Find {
        match self {
            Find::Compactions => Find::Errors,
            Find::Errors => Find::ToolResults,
            Find::ToolResults => Find::FlushTurns,
            Find::FlushTurns | Find::Text(_) => Find::Compactions,
        }
    }
}

/// Characters of preview kept per entry (the list shows one line; more is wasted work).
const PREVIEW_CHARS: usize = 240;

/// One decoded list row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EntryRow {
    pub idx: u32,
    /// Short kind label: "user", "assistant", "tool:read", "bash", "compaction", ...
    pub label: String,
    /// One-line sanitized preview.
    pub preview: String,
    /// pi's per-entry token estimate (0 for entries that carry no message).
    pub tokens: u64,
    /// Assistant turn whose text is only `NO_REPLY` (a silent memory-flush turn).
    pub silent_flush: bool,
    /// Tool result with isError, assistant with stopReason error/aborted, bash exit ≠ 0.
    pub error: bool,
    pub card: Option<CompactionCard>,
}

/// The extra lines a compaction entry shows in the list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompactionCard {
    pub tokens_before: Option<u64>,
    pub first_kept_id: Option<String>,
    pub summary_head: String,
}

/// Everything the Summaries screen shows for one compaction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SummaryCard {
    pub idx: u32,
    pub id: String,
    pub timestamp: String,
    pub tokens_before: Option<u64>,
    pub first_kept_id: Option<String>,
    pub first_kept_idx: Option<u32>,
    pub from_hook: Option<bool>,
    pub on_branch: bool,
    /// Sanitized, newlines kept.
    pub summary: String,
    pub read_files: Vec<String>,
    pub modified_files: Vec<String>,
    /// What it lost (`clawtop audit`), computed by the loader for compactions on the active
    /// branch; None off the branch or for a transcript analyzed without its source.
    pub audit: Option<Box<crate::audit::CompactionAudit>>,
}

/// A transcript opened for the Session screen, with the facts that need a pass over the
/// index (cheap, envelope-only) or a few decodes (compactions, the cut point).
#[derive(Debug, Clone)]
pub struct LoadedTranscript {
    pub transcript: Arc<Transcript>,
    /// `on_branch[i]`: entry i is on the active branch.
    pub on_branch: Vec<bool>,
    /// Where the next compaction would cut (first kept entry), keepRecentTokens 20000.
    pub next_cut: Option<u32>,
    pub keep_recent_tokens: u64,
    /// first kept entry → compaction entry that keeps from there.
    pub kept_from: HashMap<u32, u32>,
    pub summaries: Vec<SummaryCard>,
    /// The session's numbers as the domain decided them with this transcript (the Session
    /// header shows these, the same as the list's row); None until computed.
    pub numbers: Option<crate::usecase::list::SessionRow>,
    /// Sanitized warnings (malformed lines, broken parents, ...).
    pub warnings: Vec<String>,
    /// The figures reconciled, the overhead, whether compaction can help, the breakdown
    /// (computed with the transcript, off the render path); None for a transcript alone.
    pub diagnosis: Option<Box<crate::diagnosis::Diagnosis>>,
    /// A live OpenClaw turn holding the transcript lock when it was read.
    pub busy: Option<crate::diagnosis::Busy>,
    /// Why nothing can be written here (None: the source offers a writer).
    pub read_only: Option<String>,
    /// The session's history (the History pane: its context per turn, compactions, flushes
    /// and warnings), with the numbers of this screen; None until the loader computed it.
    pub history: Option<Box<crate::history::History>>,
    /// Where the diagnosis, the history and the audits stand: the first screen is drawn
    /// before them (each is a pass over the whole transcript), and they follow.
    pub details: Details,
    /// What the details are computed with (the session's entry and the numbers of this
    /// screen), so they follow from the same figures; None for a transcript alone.
    pub basis: Option<std::sync::Arc<crate::diagnosis::gather::Basis>>,
}

/// Where a loaded transcript's details (diagnosis, history, audits) stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Details {
    /// Being computed; nothing shown yet ("still measuring", never "no problems").
    Pending,
    /// The previous load's are shown while this load's are computed (a reload of the open
    /// session: the figures stay on screen instead of flickering away).
    Previous,
    /// Computed for this transcript (or none will come: a transcript analyzed alone).
    Ready,
}

/// The details of a loaded transcript, computed off the first screen's path.
#[derive(Debug, Clone)]
pub struct TranscriptDetails {
    pub diagnosis: Option<Box<crate::diagnosis::Diagnosis>>,
    pub history: Box<crate::history::History>,
    /// The audits of the compactions on the branch, by their entry id.
    pub audits: HashMap<String, Box<crate::audit::CompactionAudit>>,
    /// The transcript they were computed from: details of an earlier read of the same
    /// session (a reload landed meanwhile) are shown as previous, not as this read's.
    pub of: Arc<Transcript>,
}

impl LoadedTranscript {
    /// The details are in: figures, history and the summaries' audits (by compaction id).
    /// Made from another read than the one shown (which the generations already keep out
    /// of the TUI), they stand as previous, never as this read's.
    pub fn set_details(&mut self, d: TranscriptDetails) {
        let TranscriptDetails {
            diagnosis,
            history,
            mut audits,
            of,
        } = d;
        self.diagnosis = diagnosis;
        self.history = Some(history);
        for card in &mut self.summaries {
            card.audit = audits.remove(&self.transcript.display_id(card.idx));
        }
        self.details = if Arc::ptr_eq(&of, &self.transcript) {
            Details::Ready
        } else {
            Details::Previous
        };
    }

    /// Shows `old`'s details (a previous load of the same session) until this load's
    /// arrive: audits move by compaction id (an entry's index may have changed).
    pub fn keep_previous_details(&mut self, old: &mut LoadedTranscript) {
        if self.details != Details::Pending || old.details == Details::Pending {
            return;
        }
        self.diagnosis = old.diagnosis.take();
        self.history = old.history.take();
        let mut by_id: HashMap<String, Box<crate::audit::CompactionAudit>> = old
            .summaries
            .iter_mut()
            .filter_map(|c| Some((c.id.clone(), c.audit.take()?)))
            .collect();
        for card in &mut self.summaries {
            card.audit = by_id.remove(&card.id);
        }
        self.details = Details::Previous;
    }

    /// True while this load's details are being computed (pending or previous shown).
    pub fn details_pending(&self) -> bool {
        self.details != Details::Ready
    }
}

/// The per-file facts for an already indexed transcript, at `keep` (resolved by the caller).
pub fn analyze(t: Arc<Transcript>, keep: u64) -> LoadedTranscript {
    let mut on_branch = vec![false; t.len()];
    for i in t.active_branch() {
        on_branch[i as usize] = true;
    }
    let mut kept_from = HashMap::new();
    let mut summaries = Vec::new();
    for (i, e) in t.entries.iter().enumerate() {
        if e.kind != EntryKind::Compaction {
            continue;
        }
        let idx = i as u32;
        let v = t.entry_json(idx).unwrap_or(Value::Null);
        let first_kept_idx = t.first_kept_of(idx, &v);
        if let Some(fk) = first_kept_idx {
            kept_from.insert(fk, idx);
        }
        summaries.push(summary_card(&t, idx, &v, first_kept_idx, on_branch[i]));
    }
    let next_cut = plan::next_cut_entry(&t, keep);
    let warnings = t
        .all_warnings()
        .iter()
        .map(|w| one_line(&w.to_string()))
        .collect();
    LoadedTranscript {
        transcript: t,
        on_branch,
        next_cut,
        keep_recent_tokens: keep,
        kept_from,
        summaries,
        numbers: None,
        warnings,
        diagnosis: None,
        busy: None,
        read_only: None,
        history: None,
        details: Details::Ready,
        basis: None,
    }
}

fn str_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(one_line).collect())
        .unwrap_or_default()
}

fn summary_card(
    t: &Transcript,
    idx: u32,
    v: &Value,
    first_kept_idx: Option<u32>,
    on_branch: bool,
) -> SummaryCard {
    let details = v.get("details");
    SummaryCard {
        idx,
        id: one_line(&t.display_id(idx)),
        timestamp: one_line(v.get("timestamp").and_then(Value::as_str).unwrap_or("")),
        tokens_before: v.get("tokensBefore").and_then(Value::as_u64),
        first_kept_id: first_kept_label(t, v),
        first_kept_idx,
        from_hook: v.get("fromHook").and_then(Value::as_bool),
        on_branch,
        summary: for_terminal(v.get("summary").and_then(Value::as_str).unwrap_or(""), true),
        read_files: str_list(details.and_then(|d| d.get("readFiles"))),
        modified_files: str_list(details.and_then(|d| d.get("modifiedFiles"))),
        audit: None,
    }
}

fn first_kept_label(t: &Transcript, v: &Value) -> Option<String> {
    if let Some(id) = v.get("firstKeptEntryId").and_then(Value::as_str) {
        return Some(one_line(id));
    }
    // v1 files: legacy index, shown as pi's migration would resolve it.
    v.get("firstKeptEntryIndex")
        .and_then(Value::as_u64)
        .map(|i| format!("index {i}"))
        .filter(|_| t.version < 2)
}

/// Cuts a sanitized single-line string to about `n` chars (on a char boundary).
fn clip(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Preview text: collapse runs of whitespace so a one-line preview carries content.
fn squash(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(PREVIEW_CHARS * 4));
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
        if out.len() > PREVIEW_CHARS * 4 {
            break;
        }
    }
    clip(&one_line(&out), PREVIEW_CHARS)
}

fn content_text(content: Option<&Value>) -> String {
    crate::transcript::content::text(content, " ", &|ty, _| match ty {
        "" => None,
        "image" => Some("[image]".into()),
        other => Some(format!("[{other}]")),
    })
}

/// A silent memory-flush turn: an assistant message saying only `NO_REPLY`.
pub fn is_silent_flush(message: &Value) -> bool {
    crate::transcript::content::is_silent_reply(message)
}

fn assistant_preview(m: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(blocks) = m.get("content").and_then(Value::as_array) {
        for b in blocks {
            match b.get("type").and_then(Value::as_str) {
                Some("text") => parts.push(
                    b.get("text")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                ),
                Some("thinking") => {
                    let th = b.get("thinking").and_then(Value::as_str).unwrap_or("");
                    parts.push(format!("(thinking) {}", clip(th, 60)));
                }
                Some("toolCall") => {
                    let name = b.get("name").and_then(Value::as_str).unwrap_or("?");
                    let args = b
                        .get("arguments")
                        .map(|a| clip(&a.to_string(), 80))
                        .unwrap_or_default();
                    parts.push(format!("→ {name} {args}"));
                }
                Some(other) => parts.push(format!("[{other}]")),
                None => {}
            }
        }
    }
    if let Some(err) = m.get("errorMessage").and_then(Value::as_str) {
        parts.push(format!("error: {err}"));
    }
    if parts.is_empty() {
        let stop = m.get("stopReason").and_then(Value::as_str).unwrap_or("");
        return format!(
            "(empty{}{})",
            if stop.is_empty() { "" } else { ", stop " },
            stop
        );
    }
    parts.join(" · ")
}

/// Decodes one entry into a list row. Blocking (reads the mapped file).
/// The next entry after `from` (or before it) that `find` matches, wrapping around once.
pub fn find(t: &Transcript, from: u32, forward: bool, find: &Find) -> Option<u32> {
    use Find;
    let n = t.len() as u32;
    if n == 0 {
        return None;
    }
    let needle = match find {
        Find::Text(q) => Some(q.to_lowercase()),
        _ => None,
    };
    let hit = |i: u32| -> bool {
        match (find, &needle) {
            (Find::Text(_), Some(q)) => t
                .raw_line(i)
                .map(|l| {
                    String::from_utf8_lossy(&l)
                        .to_lowercase()
                        .contains(q.as_str())
                })
                .unwrap_or(false),
            (Find::Compactions, _) => {
                t.entries[i as usize].kind == crate::transcript::EntryKind::Compaction
            }
            (Find::Errors, _) => decode_row(t, i).error,
            (Find::ToolResults, _) => matches!(
                t.entries[i as usize].kind,
                crate::transcript::EntryKind::Message(crate::transcript::Role::ToolResult)
            ),
            (Find::FlushTurns, _) => decode_row(t, i).silent_flush,
            _ => false,
        }
    };
    (1..=n)
        .map(|k| {
            if forward {
                (from + k) % n
            } else {
                (from + n - k % n) % n
            }
        })
        .find(|&i| hit(i))
}

/// Where entry `idx` stands among every entry `find` matches: (its 1-based rank, how many
/// match), for "match 3 of 17". One pass over the transcript, on the find's worker.
pub fn rank(t: &Transcript, idx: u32, find: &Find) -> (usize, usize) {
    let n = t.len() as u32;
    let (mut rank, mut total) = (0, 0);
    let mut from = n.saturating_sub(1);
    // Every hit once, in order: find from the last entry forward wraps to the first.
    for _ in 0..n {
        match self::find(t, from, true, find) {
            Some(i) if total == 0 || i > from => {
                total += 1;
                if i <= idx {
                    rank = total;
                }
                from = i;
                if i == n - 1 {
                    break;
                }
            }
            _ => break,
        }
    }
    (rank, total)
}

pub fn decode_row(t: &Transcript, idx: u32) -> EntryRow {
    let meta = &t.entries[idx as usize];
    let mut row = EntryRow {
        idx,
        label: kind_label(meta.kind, meta.raw_type()),
        ..EntryRow::default()
    };
    let v = match t.entry_json(idx) {
        Ok(v) => v,
        Err(e) => {
            row.error = true;
            row.preview = squash(&e.to_string());
            return row;
        }
    };
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let preview = match meta.kind {
        EntryKind::Message(role) => {
            let m = v.get("message").cloned().unwrap_or(Value::Null);
            match role {
                Role::User => content_text(m.get("content")),
                Role::Assistant => {
                    row.silent_flush = is_silent_flush(&m);
                    row.error = matches!(
                        m.get("stopReason").and_then(Value::as_str),
                        Some("error") | Some("aborted")
                    );
                    assistant_preview(&m)
                }
                Role::ToolResult => {
                    let name = m.get("toolName").and_then(Value::as_str).unwrap_or("?");
                    row.label = clip(&format!("tool:{}", one_line(name)), 14);
                    row.error = m.get("isError").and_then(Value::as_bool) == Some(true);
                    content_text(m.get("content"))
                }
                Role::BashExecution => {
                    let cmd = m.get("command").and_then(Value::as_str).unwrap_or("");
                    let code = m.get("exitCode").and_then(Value::as_i64);
                    row.error = code.is_some_and(|c| c != 0);
                    let out = m.get("output").and_then(Value::as_str).unwrap_or("");
                    let tail = match code {
                        Some(c) => format!(" → exit {c}"),
                        None if m.get("cancelled").and_then(Value::as_bool) == Some(true) => {
                            " → cancelled".into()
                        }
                        None => String::new(),
                    };
                    format!("$ {cmd}{tail} {out}")
                }
                Role::Custom => {
                    let ct = m.get("customType").and_then(Value::as_str).unwrap_or("");
                    format!("[{ct}] {}", content_text(m.get("content")))
                }
                Role::BranchSummary | Role::CompactionSummary => m
                    .get("summary")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                Role::Other => clip(&m.to_string(), PREVIEW_CHARS),
            }
        }
        EntryKind::Compaction => {
            let summary = s("summary");
            row.card = Some(CompactionCard {
                tokens_before: v.get("tokensBefore").and_then(Value::as_u64),
                first_kept_id: first_kept_label(t, &v),
                summary_head: squash(&summary),
            });
            summary
        }
        EntryKind::BranchSummary => format!("from {}: {}", s("fromId"), s("summary")),
        EntryKind::CustomMessage => {
            let hidden = if v.get("display").and_then(Value::as_bool) == Some(false) {
                " (hidden)"
            } else {
                ""
            };
            format!(
                "[{}]{hidden} {}",
                s("customType"),
                content_text(v.get("content"))
            )
        }
        EntryKind::Custom => {
            let data = v
                .get("data")
                .map(|d| clip(&d.to_string(), PREVIEW_CHARS))
                .unwrap_or_default();
            format!("[{}] {data}", s("customType"))
        }
        EntryKind::ModelChange => format!("model → {}/{}", s("provider"), s("modelId")),
        EntryKind::ThinkingLevelChange => format!("thinking level → {}", s("thinkingLevel")),
        EntryKind::Label => {
            let label = v
                .get("label")
                .and_then(Value::as_str)
                .unwrap_or("(cleared)");
            format!("label {} = {label}", s("targetId"))
        }
        EntryKind::SessionInfo => format!("session name: {}", s("name")),
        EntryKind::Unknown => clip(
            &t.raw_line(idx)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_else(|e| e.to_string()),
            PREVIEW_CHARS * 2,
        ),
    };
    row.preview = squash(&preview);
    row.tokens = if meta.kind == EntryKind::Compaction {
        tokens::estimate_message(&tokens::compaction_summary_message(&v))
    } else {
        tokens::message_of_entry(&v, MessageView::Context)
            .map(|m| tokens::estimate_message(&m))
            .unwrap_or(0)
    };
    row
}

/// Short label of an entry kind (before decoding; tool results refine it to `tool:<name>`).
pub fn kind_label(kind: EntryKind, raw_type: Option<&str>) -> String {
    match kind {
        EntryKind::Message(Role::User) => "user".into(),
        EntryKind::Message(Role::Assistant) => "assistant".into(),
        EntryKind::Message(Role::ToolResult) => "tool".into(),
        EntryKind::Message(Role::BashExecution) => "bash".into(),
        EntryKind::Message(Role::Custom) => "custom msg".into(),
        EntryKind::Message(Role::BranchSummary) => "branch sum".into(),
        EntryKind::Message(Role::CompactionSummary) => "compact sum".into(),
        EntryKind::Message(Role::Other) => "message".into(),
        EntryKind::Compaction => "compaction".into(),
        EntryKind::BranchSummary => "branch sum".into(),
        EntryKind::CustomMessage => "custom msg".into(),
        EntryKind::Custom => "custom".into(),
        EntryKind::ModelChange => "model".into(),
        EntryKind::ThinkingLevelChange => "think-level".into(),
        EntryKind::Label => "label".into(),
        EntryKind::SessionInfo => "session".into(),
        EntryKind::Unknown => clip(&format!("?{}", one_line(raw_type.unwrap_or(""))), 12),
    }
}

/// Full sanitized text of one entry for the detail pane: (title, body). Blocking.
pub fn detail_text(t: &Transcript, idx: u32) -> (String, String) {
    let meta = &t.entries[idx as usize];
    let title = format!(
        "{} {} · line {}",
        kind_label(meta.kind, meta.raw_type()),
        one_line(&t.display_id(idx)),
        meta.line
    );
    let v = match t.entry_json(idx) {
        Ok(v) => v,
        Err(e) => return (title, for_terminal(&e.to_string(), true)),
    };
    let mut out = String::new();
    let mut push = |head: &str, body: &str| {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        if !head.is_empty() {
            out.push_str(head);
            out.push('\n');
        }
        out.push_str(body);
    };
    let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
    match (meta.kind, v.get("message")) {
        (EntryKind::Message(_), Some(m)) => {
            if let Some(s) = m.get("summary").and_then(Value::as_str) {
                push("── summary", s);
            }
            match m.get("content") {
                Some(Value::String(s)) => push("── text", s),
                Some(Value::Array(blocks)) => {
                    for b in blocks {
                        match b.get("type").and_then(Value::as_str) {
                            Some("text") => push(
                                "── text",
                                b.get("text").and_then(Value::as_str).unwrap_or(""),
                            ),
                            Some("thinking") => push(
                                "── thinking",
                                b.get("thinking").and_then(Value::as_str).unwrap_or(""),
                            ),
                            Some("toolCall") => {
                                let name = b.get("name").and_then(Value::as_str).unwrap_or("?");
                                let id = b.get("id").and_then(Value::as_str).unwrap_or("");
                                push(
                                    &format!("── tool call {name} ({id})"),
                                    &b.get("arguments").map(pretty).unwrap_or_default(),
                                );
                            }
                            Some("image") => push(
                                "── image",
                                b.get("mimeType").and_then(Value::as_str).unwrap_or(""),
                            ),
                            _ => push("── block", &pretty(b)),
                        }
                    }
                }
                _ => {}
            }
            if let Some(cmd) = m.get("command").and_then(Value::as_str) {
                push("── command", cmd);
                push(
                    "── output",
                    m.get("output").and_then(Value::as_str).unwrap_or(""),
                );
            }
            let mut meta_fields = serde_json::Map::new();
            if let Some(o) = m.as_object() {
                for (k, val) in o {
                    if !matches!(k.as_str(), "content" | "summary" | "command" | "output") {
                        meta_fields.insert(k.clone(), val.clone());
                    }
                }
            }
            push("── fields", &pretty(&Value::Object(meta_fields)));
        }
        (EntryKind::Compaction | EntryKind::BranchSummary, _) => {
            push(
                "── summary",
                v.get("summary").and_then(Value::as_str).unwrap_or(""),
            );
            let mut rest = v.clone();
            if let Some(o) = rest.as_object_mut() {
                o.remove("summary");
            }
            push("── fields", &pretty(&rest));
        }
        _ => push("", &pretty(&v)),
    }
    // Bound what a single popup holds; the file itself is the place for 100 MB tool outputs.
    const MAX_DETAIL: usize = 512 * 1024;
    if out.len() > MAX_DETAIL {
        let cut = (0..=MAX_DETAIL)
            .rev()
            .find(|&i| out.is_char_boundary(i))
            .unwrap_or(0);
        let more = out.len() - cut;
        out.truncate(cut);
        out.push_str(&format!(
            "\n\n… {more} more bytes not shown (see line {} of the file)",
            meta.line
        ));
    }
    (one_line(&title), for_terminal(&out, true))
}
