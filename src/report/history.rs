//! `clawtop history KEY [--json]`: a session's compactions, flushes, warnings and forecast
//! ([`crate::history`]) as JSON, or as plain text for a pager. Every string read from the
//! host (ids, times, previews, paths) is neutralised here before it is printed.

use crate::format::thousands;
use crate::history::History;
use crate::numbers::Numbers;
use crate::source::Session;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryReport {
    pub agent_id: Option<String>,
    pub session_key: String,
    pub session_id: String,
    #[serde(flatten)]
    pub history: History,
    /// Problems met reading the session (its transcript's, naming it).
    pub read_warnings: Vec<String>,
}

pub fn build(numbers: &mut Numbers<'_>, s: &Session) -> HistoryReport {
    let (history, read_warnings) = crate::usecase::history::for_session(numbers, s);
    HistoryReport {
        agent_id: (!s.agent_id().is_empty()).then(|| s.agent_id().to_string()),
        session_key: s.key().to_string(),
        session_id: s.entry.session_id.clone(),
        history,
        read_warnings,
    }
}

fn n(v: Option<u64>) -> String {
    v.map_or_else(|| "unknown".into(), thousands)
}

fn s(v: Option<&str>) -> String {
    v.map_or_else(|| "-".into(), crate::sanitize::one_line)
}

/// Says the transcript could not be read, then opens the compactions (unknown, or none).
fn unread_header(h: &History, o: &mut String) {
    if let Some(why) = &h.transcript_unread {
        o.push_str(&format!(
            "TRANSCRIPT NOT READ: {}\n  its compactions, flushes, turns and forecast are unknown\n",
            crate::sanitize::one_line(why)
        ));
    }
    o.push_str("\nCOMPACTIONS (active branch, oldest first)\n");
    if h.transcript_unread.is_some() {
        o.push_str("  unknown (the transcript could not be read)\n");
    } else if h.compactions.is_empty() {
        o.push_str("  none\n");
    }
}

/// Plain text, oldest first.
pub fn render(r: &HistoryReport) -> String {
    let h = &r.history;
    let mut o = String::new();
    o.push_str(&format!(
        "history of {}{}\n",
        crate::sanitize::one_line(&r.session_key),
        r.agent_id
            .as_deref()
            .map(|a| format!(" (agent {})", crate::sanitize::one_line(a)))
            .unwrap_or_default()
    ));
    o.push_str(&format!(
        "window {} · flush line {} · compaction line {} · used {}\n",
        thousands(h.window),
        h.flush_at.map_or_else(|| "none".into(), thousands),
        thousands(h.compact_at),
        n(h.used)
    ));
    o.push_str(&format!(
        "compactionCount {} · compaction entries in the transcript {}\n",
        n(h.compaction_count),
        h.compaction_entries
    ));

    unread_header(h, &mut o);
    for c in &h.compactions {
        let after = match (c.tokens_after, c.tokens_after_source) {
            (Some(a), Some("next-call")) => format!("{} (next call)", thousands(a)),
            (Some(a), _) => format!("{} (entry's estimate)", thousands(a)),
            (None, _) => "unknown".into(),
        };
        o.push_str(&format!(
            "  #{} {} at {}: tokensBefore {} -> after {}; summary {} chars (~{} tokens); trigger {}; flush before: {}\n",
            c.number,
            crate::sanitize::one_line(&c.id),
            s(c.timestamp.as_deref()),
            n(c.tokens_before),
            after,
            c.summary_chars,
            thousands(c.summary_tokens),
            c.trigger,
            c.flush_before
        ));
        o.push_str(&format!(
            "      flush evidence: {}\n",
            crate::sanitize::one_line(&c.flush_evidence)
        ));
    }

    o.push_str("\nFLUSHES\n");
    if h.flushes.is_empty() {
        o.push_str("  none recorded\n");
    }
    for f in &h.flushes {
        o.push_str(&format!(
            "  {}: {}{} at compactionCount {}{}\n",
            f.source,
            f.id.as_deref()
                .map(|i| format!("turn {} ", crate::sanitize::one_line(i)))
                .unwrap_or_default(),
            s(f.timestamp.as_deref()),
            n(f.compaction_count),
            f.kind
                .as_deref()
                .map(|k| format!(" ({})", crate::sanitize::one_line(k)))
                .unwrap_or_default()
        ));
    }
    match &h.memory {
        None => o.push_str("  memory notes: no workspace known for this session\n"),
        Some(m) => {
            o.push_str(&format!(
                "  memory notes in {}: {} dated file(s)\n",
                crate::sanitize::one_line(&m.dir),
                m.files.len()
            ));
            if let Some(note) = &m.note {
                o.push_str(&format!("    {}\n", crate::sanitize::one_line(note)));
            }
            for f in &m.files {
                match &f.unread {
                    Some(why) => o.push_str(&format!(
                        "    {}.md: not read: {}\n",
                        f.date,
                        crate::sanitize::one_line(why)
                    )),
                    None => o.push_str(&format!(
                        "    {}.md: {} bytes, {} block(s), {} duplicate(s)\n",
                        f.date,
                        f.bytes,
                        f.blocks,
                        f.duplicates.len()
                    )),
                }
            }
        }
    }

    o.push_str("\nFORECAST\n");
    let fc = &h.forecast;
    match fc.tokens_per_turn {
        Some(rate) => o.push_str(&format!(
            "  +{} tokens per turn (median of the last turns); flush line in {} turn(s), compaction line in {} turn(s)\n",
            thousands(rate),
            n(fc.turns_to_flush),
            n(fc.turns_to_compaction)
        )),
        None => o.push_str("  unknown\n"),
    }
    if let Some(note) = &fc.note {
        o.push_str(&format!("  ({})\n", crate::sanitize::one_line(note)));
    }

    o.push_str("\nCONTEXT PER TURN (cycle = compactions before the turn; * flush turn)\n");
    if h.transcript_unread.is_some() {
        o.push_str("  unknown (the transcript could not be read)\n");
    } else if h.turns.is_empty() {
        o.push_str("  no turns\n");
    }
    for t in &h.turns {
        o.push_str(&format!(
            "  turn {:>4} cycle {:>3} {:>9}{}  {}\n",
            t.turn,
            t.cycle,
            n(t.tokens),
            if t.flush { " *" } else { "  " },
            s(t.timestamp.as_deref())
        ));
    }

    o.push_str("\nWARNINGS\n");
    if h.warnings.is_empty() {
        o.push_str("  none\n");
    }
    for w in &h.warnings {
        o.push_str(&format!(
            "  [{}] {}\n",
            w.code,
            crate::sanitize::one_line(&w.message)
        ));
    }
    o
}
