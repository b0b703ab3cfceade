//! `clawtop show`: one session's numbers with their sources, optionally its entries.

use super::SessionRow;
use super::entries::{self, EntryJson};
use crate::format::thousands;
use crate::numbers::{Numbers, push_transcript_warnings};
use crate::source::transcript_file::TranscriptFile;
use crate::source::{Session, SessionSource};
use crate::thresholds::{Source, Thresholds};
use crate::transcript::{EntryKind, Transcript};
use serde::Serialize;

/// Facts about the transcript file.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptInfo {
    pub version: u32,
    pub entries: usize,
    pub file_len: u64,
    pub leaf_id: Option<String>,
    pub leaf_index: Option<u32>,
    pub active_branch_length: usize,
    pub compactions: usize,
}

/// The sources behind the numbers.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sources {
    pub window_detail: String,
    pub used_detail: String,
    pub reserve_from: &'static str,
    pub reserve_source: Source,
    pub reserve_tokens: u64,
    pub reserve_tokens_source: Source,
    pub reserve_tokens_floor: u64,
    pub reserve_tokens_floor_source: Source,
    pub soft_threshold_tokens: u64,
    pub soft_threshold_tokens_source: Source,
    pub flush_enabled: bool,
    pub flush_enabled_source: Source,
    pub transcript_found_by: Option<&'static str>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShowReport {
    #[serde(flatten)]
    pub row: SessionRow,
    pub sources: Sources,
    pub transcript_info: Option<TranscriptInfo>,
    /// The figures reconciled, the overhead, the outlook of a compaction and the breakdown
    /// (flattened: `transcriptContext`, `usedCheck`, ...); None without a transcript.
    #[serde(flatten)]
    pub diagnosis: Option<crate::diagnosis::Diagnosis>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<Vec<EntryJson>>,
}

fn sources(t: &Thresholds, found_by: Option<&'static str>) -> Sources {
    Sources {
        window_detail: t.window_detail.clone(),
        used_detail: crate::used::describe(t),
        reserve_from: t.reserve_from,
        reserve_source: t.reserve_source,
        reserve_tokens: t.reserve_tokens.value,
        reserve_tokens_source: t.reserve_tokens.source,
        reserve_tokens_floor: t.reserve_floor.value,
        reserve_tokens_floor_source: t.reserve_floor.source,
        soft_threshold_tokens: t.soft_threshold.value,
        soft_threshold_tokens_source: t.soft_threshold.source,
        flush_enabled: t.flush_enabled.value,
        flush_enabled_source: t.flush_enabled.source,
        transcript_found_by: found_by,
    }
}

pub fn transcript_info(t: &Transcript) -> TranscriptInfo {
    TranscriptInfo {
        version: t.version,
        entries: t.len(),
        file_len: t.file_len,
        leaf_id: t.leaf().and_then(|l| t.entry_id(l)).map(String::from),
        leaf_index: t.leaf(),
        active_branch_length: t.active_branch().len(),
        compactions: t
            .entries
            .iter()
            .filter(|e| e.kind == EntryKind::Compaction)
            .count(),
    }
}

/// A session of a host. Returns the opened transcript too (for `--entries` text).
pub fn for_session(
    numbers: &mut Numbers<'_>,
    s: &Session,
    with_entries: bool,
) -> (ShowReport, Option<Transcript>) {
    let mut warnings = s.warnings.clone();
    let t = match &s.transcript {
        Some(_) => crate::numbers::open_transcript(numbers.source, s, &mut warnings),
        None => None,
    };
    let th = numbers.session_with_transcript(s, t.as_ref());
    let keep = numbers.settings.keep_recent_tokens.value;
    warnings.extend(numbers.prices.notes.iter().cloned());
    // The row `list` has for this session, from the transcript open here; made before the
    // diagnosis, so what its figures held while they were made is gone when the diagnosis
    // makes its own.
    let mut rows = crate::usecase::list::Rows::new(
        numbers.source,
        &crate::usecase::list::Options::default(),
        std::slice::from_ref(s),
    );
    let mut row = rows.row(s, &th, t.as_ref(), warnings);
    let diagnosis = t
        .as_ref()
        .map(|t| crate::diagnosis::gather::for_session(numbers.source, s, t, &th, keep));
    // A source that decides `used` without transcripts (a Gateway) still shows the check.
    if let (None, Some(d)) = (&row.transcript_context, &diagnosis) {
        row.transcript_context = Some(d.transcript_context.clone());
        row.used_check = d.used_check;
        row.used_check_reason = d.used_check_reason.clone();
    }
    let report = ShowReport {
        sources: sources(&th, Some(s.transcript_how)),
        row,
        transcript_info: t.as_ref().map(transcript_info),
        diagnosis,
        entries: if with_entries {
            t.as_ref().map(entries::to_json)
        } else {
            None
        },
    };
    (report, t)
}

/// A bare transcript file: window 200000 unless `--window`, used from the transcript.
pub fn for_file(
    file: &TranscriptFile,
    window: Option<u64>,
    with_entries: bool,
) -> Result<(ShowReport, Transcript), crate::source::SourceError> {
    let t = file.open_transcript(&file.reference())?;
    let mut warnings = Vec::new();
    push_transcript_warnings(&t, &mut warnings);
    let (th, settings) = crate::numbers::bare_file(Some(&t), window);
    let ctx_model = crate::context::build(&t, t.leaf()).model;
    let mut row = SessionRow::numbers(&th);
    row.session_id = t.header.as_ref().and_then(|h| h.id.clone());
    row.transcript = Some(file.label());
    if let Some((p, m)) = ctx_model {
        row.model = Some(m).filter(|m| !m.is_empty());
        row.model_provider = Some(p).filter(|p| !p.is_empty());
    }
    row.warnings = warnings;
    // The file is open already: its whole branch, rather than a tail read again.
    row.forecast = Some(crate::history::forecast(
        &crate::history::branch_turns(&t, th.rules),
        th.used,
        th.flush_at,
        th.compact_at,
    ));
    let diagnosis = Some(crate::diagnosis::gather::for_file(
        &t,
        &th,
        settings.keep_recent_tokens.value,
    ));
    let report = ShowReport {
        sources: sources(&th, None),
        row,
        transcript_info: Some(transcript_info(&t)),
        diagnosis,
        entries: if with_entries {
            Some(entries::to_json(&t))
        } else {
            None
        },
    };
    Ok((report, t))
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".into(), |v| v.to_string())
}

/// Plain text (every transcript- or store-derived string sanitized): the key/value lines in
/// the order an operator reads them (which session, its figures, its flush and compaction
/// state, the transcript's facts and diagnosis), then the entries when asked for.
pub fn render(r: &ShowReport, t: Option<&Transcript>, with_entries: bool) -> String {
    let mut lines = Lines(Vec::new());
    which_session(&mut lines, r);
    figures(&mut lines, r);
    flush_and_compaction_state(&mut lines, r);
    transcript_facts(&mut lines, r);
    layout(&lines.0, t, with_entries)
}

/// Key/value lines of [`render`].
struct Lines(Vec<(String, String)>);

impl Lines {
    fn add(&mut self, k: &str, v: String) {
        self.0.push((k.to_string(), v));
    }
}

fn clean(s: &str) -> String {
    crate::sanitize::one_line(s)
}

/// Session, agent, session id, transcript and model.
fn which_session(lines: &mut Lines, r: &ShowReport) {
    let row = &r.row;
    let src = &r.sources;
    let mut add = |k: &str, v: String| lines.add(k, v);
    if let Some(k) = &row.session_key {
        add("session", clean(k));
    }
    if let Some(a) = &row.agent_id {
        add("agent", clean(a));
    }
    add("session id", clean(&opt(row.session_id.as_deref())));
    let found = src
        .transcript_found_by
        .map(|h| format!("  (via {h})"))
        .unwrap_or_default();
    add(
        "transcript",
        format!("{}{}", clean(&opt(row.transcript.as_deref())), found),
    );
    let model = match (&row.model_provider, &row.model) {
        (Some(p), Some(m)) => format!("{p}/{m}"),
        (None, Some(m)) => m.clone(),
        _ => "-".into(),
    };
    add("model", clean(&model));
}

/// Window, used, reserve and the compaction and flush lines, each with how it was found.
fn figures(lines: &mut Lines, r: &ShowReport) {
    let row = &r.row;
    let src = &r.sources;
    let mut add = |k: &str, v: String| lines.add(k, v);
    add(
        "window",
        format!(
            "{}  from {}",
            thousands(row.window),
            clean(&src.window_detail)
        ),
    );
    let used = match row.used {
        Some(u) => {
            let pct = if row.window > 0 {
                format!(" ({:.1}% of window)", u as f64 * 100.0 / row.window as f64)
            } else {
                String::new()
            };
            format!(
                "{}{pct}  {}: {}",
                thousands(u),
                row.used_source.name(),
                src.used_detail
            )
        }
        None => format!("unknown  ({})", src.used_detail),
    };
    add("used", used);
    use crate::thresholds::{Sourced, explain_flush_line, explain_reserve};
    add(
        "reserve",
        format!(
            "{}  = {}",
            thousands(row.reserve),
            explain_reserve(
                row.rules,
                row.window,
                Sourced::new(src.reserve_tokens, src.reserve_tokens_source),
                Sourced::new(src.reserve_tokens_floor, src.reserve_tokens_floor_source),
            )
        ),
    );
    add(
        "compact line",
        format!("{}  = window - reserve", thousands(row.compact_at)),
    );
    let flush = explain_flush_line(
        row.rules,
        row.flush_at,
        Sourced::new(src.reserve_tokens_floor, src.reserve_tokens_floor_source),
        Sourced::new(src.soft_threshold_tokens, src.soft_threshold_tokens_source),
        Sourced::new(false, src.flush_enabled_source),
        row.unknown.get("flushAt").map(String::as_str),
    );
    add(
        "flush line",
        match row.flush_at {
            Some(f) => format!("{}  = {flush}", thousands(f)),
            None => flush,
        },
    );
}

/// Compactions, the memory flush as the host's release records it, where the data came
/// from, the status and the flush reason.
fn flush_and_compaction_state(lines: &mut Lines, r: &ShowReport) {
    let row = &r.row;
    let v9 = row.rules == crate::thresholds::Rules::V2026_9;
    let mut add = |k: &str, v: String| lines.add(k, v);
    let unknown = |field: &str| row.unknown.get(field).map(|why| format!("unknown ({why})"));
    add(
        "compactions",
        unknown("compactionCount").unwrap_or_else(|| opt(row.compaction_count)),
    );
    if v9 {
        // 2026.9 records no flush time: the compaction count is all there is.
        add(
            "memory flush",
            match (&row.memory_flush_kind, row.memory_flush_compaction_count) {
                (Some(k), Some(n)) if k == "succeeded" => format!("flushed at compaction {n}"),
                (Some(k), Some(n)) => format!("{} at compaction {n}", clean(k)),
                (Some(k), None) => clean(k),
                (None, _) => unknown("memoryFlush").unwrap_or_else(|| "none recorded".into()),
            },
        );
        if let Some(v) = row.total_tokens_version {
            add("totalTokensVersion", v.to_string());
        }
    } else {
        let now = chrono::Utc::now().timestamp_millis();
        add(
            "memoryFlushAt",
            row.memory_flush_at
                .map(|t| crate::format::time_and_age(t, now))
                .unwrap_or_else(|| "-".into()),
        );
        add(
            "memoryFlushCompactionCount",
            opt(row.memory_flush_compaction_count),
        );
    }
    if let Some(d) = &row.data_source {
        add(
            "data from",
            format!(
                "{} (entry {}, transcript {})",
                d.kind,
                clean(&opt(d.entry.as_deref())),
                clean(&opt(d.transcript.as_deref()))
            ),
        );
    }
    add("status", row.status.name().to_string());
    add("flush", row.flush_reason.clone());
}

/// The session's cost in one line: spend, $/h, calls, hit ratio, cache, busts.
fn cost_words(c: &crate::cost::SessionCost) -> String {
    let mut s = format!(
        "{} ({}) over {} calls",
        c.spend_label(),
        c.per_hour_label(),
        c.calls
    );
    if c.unpriced_calls > 0 {
        s.push_str(&format!(", {} unpriced", c.unpriced_calls));
    }
    if let Some(r) = c.cache_hit_ratio {
        s.push_str(&format!("; cache hit {:.0}%", r * 100.0));
    }
    s.push_str(match c.cache_expires_in_seconds {
        Some(_) => ", warm",
        None => ", cold",
    });
    if !c.cache_busts.is_empty() {
        let b: Vec<String> = c
            .cache_busts
            .iter()
            .map(|b| format!("{} {}", clean(&b.entry_id), b.cause.name()))
            .collect();
        s.push_str(&format!("; busts: {}", b.join(", ")));
    }
    s
}

/// The transcript file's facts, the diagnosis, a stale lock and a running turn.
fn transcript_facts(lines: &mut Lines, r: &ShowReport) {
    let row = &r.row;
    let mut add = |k: &str, v: String| lines.add(k, v);
    if let Some(i) = &r.transcript_info {
        add(
            "entries",
            format!(
                "{} (v{}, {} bytes, {} on the active branch, {} compactions, leaf {})",
                i.entries,
                i.version,
                thousands(i.file_len),
                i.active_branch_length,
                i.compactions,
                clean(&opt(i
                    .leaf_id
                    .as_deref()
                    .or(i.leaf_index.map(|_| "(no ids)"))))
            ),
        );
    }
    if let Some(c) = &row.cost {
        lines.0.push(("cost".into(), cost_words(c)));
    }
    if let Some(d) = &r.diagnosis {
        lines.0.extend(super::diagnosis::lines(d));
    }
    if let Some(l) = &row.stale_lock {
        lines.0.push(("lock".into(), clean(l)));
    }
    if let Some(b) = &row.busy {
        lines.0.push((
            "busy".into(),
            format!(
                "an OpenClaw turn is running (pid {}, since {})",
                opt(b.pid),
                clean(&opt(b.created_at.as_deref()))
            ),
        ));
    }
}

/// The lines aligned on their keys, then the entries when asked for.
fn layout(lines: &[(String, String)], t: Option<&Transcript>, with_entries: bool) -> String {
    let kw = lines.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (k, v) in lines {
        out.push_str(&format!("{k:<kw$}  {v}\n"));
    }
    if with_entries {
        out.push('\n');
        match t {
            Some(t) => out.push_str(&entries::render_text(t)),
            None => out.push_str("(no transcript)\n"),
        }
    }
    out
}

/// [`render`] written to `w`, the entries streamed one at a time.
pub fn write_text(
    r: &ShowReport,
    t: Option<&Transcript>,
    with_entries: bool,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    w.write_all(render(r, t, false).as_bytes())?;
    if with_entries {
        w.write_all(b"\n")?;
        match t {
            Some(t) => entries::write_text(t, w)?,
            None => w.write_all(b"(no transcript)\n")?,
        }
    }
    Ok(())
}

/// The JSON of `r` (built without entries) with `"entries"` streamed from `t` as the last
/// field: the same bytes as serializing a report that holds them, without holding them.
pub fn write_json(
    r: &ShowReport,
    t: Option<&Transcript>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let head = super::json::to_string(r);
    let Some(t) = t else {
        return w.write_all(head.as_bytes());
    };
    // `head` ends with "\n}\n" (an object with at least the row's fields).
    let body = head
        .trim_end()
        .strip_suffix('}')
        .unwrap_or(&head)
        .trim_end();
    w.write_all(body.as_bytes())?;
    w.write_all(b",\n  \"entries\": ")?;
    entries::write_json_array(t, "  ", w)?;
    w.write_all(b"\n}\n")
}
