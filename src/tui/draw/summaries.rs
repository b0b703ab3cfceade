//! Summaries screen: every compaction of the session, the selected one in full.
//!
//! ```text
//! Summaries · agent:main:main · 2 compactions
//! ┌ compactions ─────────────────────────────────────────────────────────┐
//! │› 1/2 27ed3704 2026-11-21T04:22:16Z tokensBefore 75,943 · kept 0e49b72e│
//! └──────────────────────────────────────────────────────────────────────┘
//! ┌ 27ed3704 ───────────────────────────────────────────── 1/40 lines ┐
//! │tokensBefore      75,943                                           │
//! │firstKeptEntryId  0e49b72e                                         │
//! │readFiles         NOTES.md                                         │
//! │modifiedFiles     —                                                │
//! │                                                                   │
//! │FAKE-SUMMARY 16 …                                                  │
//! └───────────────────────────────────────────────────────────────────┘
//! ```

use super::theme::Theme;
use super::{truncate, wrap};
use crate::sanitize::one_line;
use crate::tui::rows::SummaryCard;
use crate::tui::state::{AppState, layout};
use crate::tui::view::thousands;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

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
            "—".to_string()
        } else {
            v.join(", ")
        }
    };
    let mut text = format!(
        "tokensBefore      {}\nfirstKeptEntryId  {}\nreadFiles         {}\nmodifiedFiles     {}\n",
        c.tokens_before.map(thousands).unwrap_or_else(|| "?".into()),
        c.first_kept_id.as_deref().unwrap_or("—"),
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

pub fn draw(frame: &mut Frame, area: Rect, state: &AppState, t: Theme) {
    let Some(v) = &state.session else { return };
    let Some(l) = &v.loaded else { return };
    let cards = &l.summaries;
    let list_h = layout::summaries_list(cards.len());
    let [title_area, list_area, body_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(list_h + 2),
        Constraint::Fill(1),
    ])
    .areas(area);
    let who = if state.bare_file {
        v.label_file_name()
    } else {
        one_line(&v.row.session_key)
    };
    frame.buffer_mut().set_line(
        title_area.x,
        title_area.y,
        &Line::from(vec![
            Span::styled("Summaries ", t.title()),
            Span::styled(who, t.bold()),
            Span::raw(format!(" · {}", super::plural(cards.len(), "compaction"))),
        ]),
        title_area.width,
    );
    let sel = state.summaries.selected.min(cards.len().saturating_sub(1));
    let first = sel.saturating_sub(list_h as usize - 1);
    let lines: Vec<Line> = cards
        .iter()
        .enumerate()
        .skip(first)
        .take(list_h as usize)
        .map(|(i, c)| {
            let text = format!(
                "{} {}/{} {} {} · tokensBefore {} · kept from {}{}{}",
                if i == sel { "›" } else { " " },
                i + 1,
                cards.len(),
                c.id,
                c.timestamp,
                c.tokens_before.map(thousands).unwrap_or_else(|| "?".into()),
                c.first_kept_id.as_deref().unwrap_or("?"),
                if c.on_branch { "" } else { " · off branch" },
                c.audit
                    .as_deref()
                    .map(|a| format!(" · {}", crate::report::audit::badge(a)))
                    .unwrap_or_default()
            );
            let text = truncate(&text, list_area.width.saturating_sub(2) as usize);
            if i == sel {
                Line::styled(text, t.selected())
            } else {
                Line::styled(text, if c.on_branch { t.plain() } else { t.dim() })
            }
        })
        .collect();
    let list = if cards.is_empty() {
        vec![Line::styled("No compactions in this session.", t.dim())]
    } else {
        lines
    };
    frame.render_widget(
        Paragraph::new(list).block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(t.dim())
                .title(" compactions "),
        ),
        list_area,
    );
    let Some(card) = cards.get(sel) else { return };
    let diff = state.summaries.diff;
    let body = shown_lines(cards, sel, diff, body_width(area.width));
    let h = body_area.height.saturating_sub(2) as usize;
    let scroll = state.summaries.scroll as usize;
    let picked = state.summaries.lost;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.dim())
        .title(Span::styled(
            if diff {
                format!(" compaction {} · diff ", card.id)
            } else {
                format!(" compaction {} ", card.id)
            },
            t.compaction(),
        ))
        .title(
            Line::from(format!(
                " {}-{}/{} lines ",
                (scroll + 1).min(body.len()),
                (scroll + h).min(body.len()),
                body.len()
            ))
            .right_aligned(),
        );
    let text: Vec<Line> = body
        .into_iter()
        .skip(scroll)
        .take(h)
        .map(|(kind, l)| {
            let style = match kind {
                LineKind::Lost(k) if picked == Some(k) => {
                    // The picked identifier: marked where its line starts (`  lost  …`).
                    let l = match l.strip_prefix(' ') {
                        Some(rest) if l.starts_with("  lost") => format!("›{rest}"),
                        _ => l,
                    };
                    return Line::styled(l, t.selected());
                }
                LineKind::Plain | LineKind::Lost(_) => t.plain(),
                LineKind::Heading => t.bold(),
                LineKind::Dropped => t.error(),
                LineKind::Added => t.status(crate::thresholds::Status::Ok),
            };
            Line::styled(l, style)
        })
        .collect();
    frame.render_widget(Paragraph::new(text).block(block), body_area);
}
