//! The Summaries screen's body as lines at a width: `update` counts and scrolls them, `draw`
//! paints them; both call this, so they agree on every line.

use super::wrap;
use crate::sanitize::one_line;
use crate::tui::model::rows::SummaryCard;
use crate::tui::model::view::thousands;

/// Inner width of the summary body for a terminal width.
pub fn body_width(cols: u16) -> usize {
    cols.saturating_sub(2).max(1) as usize
}

/// The lines of one compaction's body: fields, then the summary text, wrapped to `width`.
pub fn body_lines(c: &SummaryCard, width: usize) -> Vec<String> {
    tagged_body(c, width).into_iter().map(|(_, l)| l).collect()
}

/// The body's lines, each with the lost identifier it shows (its index in the audit's
/// `lost`; a long one wraps over several lines), so the selection and the jump know where
/// each is.
fn tagged_body(c: &SummaryCard, width: usize) -> Vec<(Option<usize>, String)> {
    let list = |v: &[String]| {
        if v.is_empty() {
            crate::report::marks::NONE.to_string()
        } else {
            v.join(", ")
        }
    };
    let mut text = format!(
        "tokensBefore      {}\nfirstKeptEntryId  {}\nreadFiles         {}\nmodifiedFiles     {}\n",
        c.tokens_before.map(thousands).unwrap_or_else(|| "?".into()),
        c.first_kept_id
            .as_deref()
            .unwrap_or(crate::report::marks::NONE),
        list(&c.read_files),
        list(&c.modified_files),
    );
    if let Some(h) = c.from_hook {
        text.push_str(&format!("fromHook          {h}\n"));
    }
    if !c.on_branch {
        text.push_str("(not on the active branch)\n");
    }
    // Logical line of the first lost identifier: they follow one another, one line each.
    let mut first_lost = None;
    if let Some(a) = &c.audit {
        let before = text.matches('\n').count();
        let (audit, lost_at) = audit_text(a);
        first_lost = lost_at.map(|k| before + k);
        text.push_str(&audit);
    }
    let lost_count = c
        .audit
        .as_ref()
        .and_then(|a| a.identifiers.as_ref())
        .map_or(0, |i| i.lost.len());
    text.push_str("── summary ──\n");
    text.push_str(&c.summary);
    let mut out = Vec::new();
    for (n, line) in text.split('\n').enumerate() {
        let tag = first_lost
            .and_then(|f| n.checked_sub(f))
            .filter(|&k| k < lost_count);
        out.extend(wrap(line, width).into_iter().map(|l| (tag, l)));
    }
    out
}

/// The audit block of a compaction's body (`clawtop audit`'s figures, the same code), and
/// the line in it where the lost identifiers start (one line each).
fn audit_text(a: &crate::audit::CompactionAudit) -> (String, Option<usize>) {
    let mut t = format!("── audit: {} ──\n", crate::report::audit::badge(a));
    let mut lost_at = None;
    match &a.identifiers {
        Some(i) => {
            t.push_str(&format!(
                "identifiers       {} in span · {} kept · {} in kept messages · {} lost · {} invented\n",
                i.total,
                i.kept.len(),
                i.still_in_kept.len(),
                i.lost.len(),
                i.invented.len()
            ));
            lost_at = Some(2);
            for h in &i.lost {
                t.push_str(&format!(
                    "  lost  {}  (entry {})\n",
                    one_line(&h.value),
                    one_line(&h.entry_id)
                ));
            }
        }
        None => t.push_str(&format!(
            "identifiers       unknown ({})\n",
            one_line(a.unknown.as_deref().unwrap_or("summary not readable"))
        )),
    }
    if a.dropped_unsummarized.unknown.is_some() {
        t.push_str("dropped           unknown (not recorded how this compaction was planned)\n");
    }
    if a.dropped_unsummarized.messages > 0 {
        t.push_str(&format!(
            "dropped           {} messages kept by the previous compaction, never summarized\n",
            a.dropped_unsummarized.messages
        ));
    }
    (t, lost_at)
}

/// How a body line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Plain,
    Heading,
    Dropped,
    Added,
    /// A line of the `k`th lost identifier (drawn as `Plain` unless it is selected).
    Lost(usize),
}

/// The body shown for the selected compaction: its fields and summary, or (`diff`) what it
/// dropped from and added to the summary before it, wrapped to `width`.
pub fn shown_lines(
    cards: &[SummaryCard],
    sel: usize,
    diff: bool,
    width: usize,
) -> Vec<(LineKind, String)> {
    let Some(card) = cards.get(sel) else {
        return Vec::new();
    };
    if !diff {
        return tagged_body(card, width)
            .into_iter()
            .map(|(tag, l)| (tag.map_or(LineKind::Plain, LineKind::Lost), l))
            .collect();
    }
    let Some(prev) = sel.checked_sub(1).and_then(|p| cards.get(p)) else {
        return wrap(
            "The first compaction: there is no earlier summary to compare with (d: the summary).",
            width,
        )
        .into_iter()
        .map(|l| (LineKind::Heading, l))
        .collect();
    };
    let d = crate::summary::diff::line_diff(&prev.summary, &card.summary);
    let mut out: Vec<(LineKind, String)> = wrap(
        &format!(
            "Against compaction {}/{} {}: −{} dropped · +{} added (d: the summary)",
            sel,
            cards.len(),
            prev.id,
            d.dropped,
            d.added
        ),
        width,
    )
    .into_iter()
    .map(|l| (LineKind::Heading, l))
    .collect();
    let inner = width.saturating_sub(2).max(1);
    for (change, text) in d.lines {
        use crate::summary::diff::Change;
        let (kind, mark) = match change {
            Change::Kept => (LineKind::Plain, ' '),
            Change::Dropped => (LineKind::Dropped, '-'),
            Change::Added => (LineKind::Added, '+'),
        };
        for (i, part) in wrap(&text, inner).into_iter().enumerate() {
            let m = if i == 0 { mark } else { ' ' };
            out.push((kind, format!("{m} {part}")));
        }
    }
    out
}
