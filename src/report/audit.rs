//! `clawtop audit KEY`: what each compaction lost, as text (JSON is the audit itself). A
//! summary line first, then one block per compaction, oldest first. Every value shown comes
//! from the transcript, so it is neutralised before it reaches the terminal.

use crate::audit::{CompactionAudit, Held, SessionAudit, Verdict};
use crate::format::thousands;
use crate::sanitize::one_line;

/// "3 compactions: 20 identifiers lost, 49 messages dropped unsummarized".
pub fn summary_line(a: &SessionAudit) -> String {
    let t = &a.totals;
    let n = |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
    let mut s = format!(
        "{}: {} lost, {} dropped unsummarized",
        n(t.compactions, "compaction", "compactions"),
        n(t.identifiers_lost, "identifier", "identifiers"),
        n(t.messages_dropped_unsummarized, "message", "messages"),
    );
    if t.unknown > 0 {
        s.push_str(&format!(" ({} unknown)", t.unknown));
    }
    if t.dropped_unknown > 0 {
        s.push_str(&format!(
            "; dropped not known for {}",
            n(t.dropped_unknown, "compaction", "compactions")
        ));
    }
    s
}

/// The badge of a compaction card: "12 lost · 49 dropped" ("? lost" when unknown).
pub fn badge(c: &CompactionAudit) -> String {
    let lost = c
        .lost()
        .map(|n| n.to_string())
        .unwrap_or_else(|| "?".into());
    format!("{lost} lost · {} dropped", dropped(c))
}

/// The dropped count, "?" when the planner (so the boundary) is not known.
fn dropped(c: &CompactionAudit) -> String {
    match c.dropped_unsummarized.unknown {
        Some(_) => "?".into(),
        None => c.dropped_unsummarized.messages.to_string(),
    }
}

/// One line for a draft under its preview: what it would lose.
pub fn draft_line(c: &CompactionAudit) -> String {
    let Some(i) = &c.identifiers else {
        return "unknown".into();
    };
    let mut s = format!(
        "this summary keeps {} of {} identifiers in the span it replaces",
        i.kept.len(),
        i.total
    );
    if !i.still_in_kept.is_empty() {
        s.push_str(&format!(
            ", {} stay in kept messages",
            i.still_in_kept.len()
        ));
    }
    if i.lost.is_empty() {
        s.push_str(", loses none");
    } else {
        let shown: Vec<String> = i.lost.iter().take(8).map(|h| one_line(&h.value)).collect();
        let more = i.lost.len().saturating_sub(shown.len());
        s.push_str(&format!(
            ", would lose {}: {}",
            i.lost.len(),
            shown.join(", ")
        ));
        if more > 0 {
            s.push_str(&format!(" … (+{more})"));
        }
    }
    if c.dropped_unsummarized.messages > 0 {
        s.push_str(&format!(
            "; {} messages dropped unsummarized",
            c.dropped_unsummarized.messages
        ));
    }
    s
}

const LIST_MAX: usize = 20;

fn list(out: &mut String, label: &str, items: &[Held]) {
    if items.is_empty() {
        return;
    }
    out.push_str(&format!("  {label} ({}):\n", items.len()));
    for h in items.iter().take(LIST_MAX) {
        out.push_str(&format!(
            "    {}  (entry {})\n",
            one_line(&h.value),
            one_line(&h.entry_id)
        ));
    }
    if items.len() > LIST_MAX {
        out.push_str(&format!(
            "    … {} more (--json lists all)\n",
            items.len() - LIST_MAX
        ));
    }
}

/// One compaction's block (also the draft's, under the preview).
pub fn block(c: &CompactionAudit, title: &str) -> String {
    let mut out = format!("{title}  [{}]\n", badge(c));
    let prev = c
        .span
        .previous_summary_entry_id
        .as_deref()
        .map(|p| format!("summary of {} + ", one_line(p)))
        .unwrap_or_default();
    out.push_str(&format!(
        "  replaced: {prev}{} messages, {} tokens\n",
        c.span.entries,
        thousands(c.span.tokens)
    ));
    if let Some(fk) = &c.first_kept_entry_id {
        out.push_str(&format!("  kept from: {}\n", one_line(fk)));
    }
    match &c.identifiers {
        Some(i) => {
            out.push_str(&format!(
                "  identifiers: {} in span: {} kept, {} still in kept messages, {} lost; {} invented\n",
                i.total,
                i.kept.len(),
                i.still_in_kept.len(),
                i.lost.len(),
                i.invented.len()
            ));
            list(&mut out, "lost", &i.lost);
            if !i.invented.is_empty() {
                out.push_str(&format!("  invented ({}):\n", i.invented.len()));
                for v in i.invented.iter().take(LIST_MAX) {
                    out.push_str(&format!("    {}\n", one_line(v)));
                }
            }
        }
        None => out.push_str(&format!(
            "  identifiers: unknown ({})\n",
            one_line(c.unknown.as_deref().unwrap_or("summary not readable"))
        )),
    }
    let d = &c.dropped_unsummarized;
    if let Some(why) = &d.unknown {
        out.push_str(&format!(
            "  dropped unsummarized: unknown ({})\n",
            one_line(why)
        ));
    }
    if d.messages > 0 {
        out.push_str(&format!(
            "  dropped unsummarized: {} messages, {} tokens (kept by the previous compaction, neither summarized nor kept: pi 0.55.1's boundary)\n",
            d.messages,
            thousands(d.tokens)
        ));
    }
    if let Some(chars) = c.summary_chars {
        let over = if c.over_cap() { " (over the cap)" } else { "" };
        out.push_str(&format!(
            "  summary: {} of {} characters{over}\n",
            thousands(chars as u64),
            thousands(c.summary_cap as u64)
        ));
    }
    if let Some(m) = &c.missing_sections {
        if !m.is_empty() {
            out.push_str(&format!("  missing sections: {}\n", m.join(", ")));
        }
    }
    let g = &c.guard;
    let verdict = match g.verdict {
        Verdict::Pass => "pass".to_string(),
        Verdict::Fail => format!("fail ({})", one_line(&g.reasons.join("; "))),
        Verdict::Unknown => "unknown".to_string(),
    };
    out.push_str(&format!("  OpenClaw 2026.9 guard: {verdict}\n"));
    out
}

/// The whole text report.
pub fn render(a: &SessionAudit) -> String {
    let mut out = summary_line(a);
    out.push('\n');
    for (k, c) in a.compactions.iter().enumerate() {
        out.push('\n');
        let id = one_line(c.entry_id.as_deref().unwrap_or("-"));
        out.push_str(&block(
            c,
            &format!("compaction {} of {} ({id})", k + 1, a.compactions.len()),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{Boundary, Dropped, GuardVerdict, Span};

    #[test]
    fn an_unknown_drop_is_said_not_counted() {
        let c = CompactionAudit {
            entry_id: Some("c2".into()),
            first_kept_entry_id: None,
            boundary: Boundary::Unknown,
            span: Span::default(),
            identifiers: None,
            dropped_unsummarized: Dropped {
                unknown: Some("no record".into()),
                ..Dropped::default()
            },
            missing_sections: None,
            summary_chars: None,
            summary_cap: 16_000,
            guard: GuardVerdict::unknown(),
            unknown: None,
            unread_message: false,
        };
        assert_eq!(badge(&c), "? lost · ? dropped");
        let b = block(&c, "compaction 2 of 2 (c2)");
        assert!(
            b.contains("dropped unsummarized: unknown (no record)"),
            "{b}"
        );
        assert!(!b.contains("dropped unsummarized: 0"), "{b}");
    }
}
