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
use super::truncate;
use crate::sanitize::one_line;
use crate::tui::layout::summaries::{LineKind, body_width, shown_lines};
use crate::tui::model::state::{AppState, layout};
use crate::tui::model::view::thousands;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

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
        one_line(v.row.key())
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
                match c.audit.as_deref() {
                    Some(a) => format!(" · {}", crate::report::audit::badge(a)),
                    // Still being audited: no badge would read as nothing lost.
                    None if c.on_branch && l.details_pending() => " · auditing…".into(),
                    None => String::new(),
                }
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
