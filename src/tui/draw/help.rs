//! Help overlay, generated from the keymap table so it always matches the bindings.

use super::theme::Theme;
use super::{centered, pad};
use crate::tui::model::keymap::{self, Mode};
use crate::tui::model::state::AppState;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

/// Every help line: a title per mode, then "keys  description" per binding.
pub fn help_lines() -> Vec<(bool, String)> {
    let mut out = Vec::new();
    for mode in Mode::ALL {
        let bs: Vec<_> = keymap::bindings()
            .iter()
            .filter(|b| b.mode == mode)
            .collect();
        if bs.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push((false, String::new()));
        }
        out.push((true, mode.title().to_string()));
        for b in bs {
            out.push((false, format!("  {} {}", pad(&b.keys_label(), 20), b.help)));
        }
        if mode == Mode::Sessions {
            out.push((false, String::new()));
            out.push((true, "Marks".to_string()));
            for (m, what) in super::gauge::MARKS {
                out.push((false, format!("  {} {}", pad(m, 20), what)));
            }
        }
        if mode == Mode::Filter {
            out.push((
                false,
                format!(
                    "  {} {}",
                    pad("(any character)", 20),
                    "type into the filter"
                ),
            ));
        }
    }
    out
}

pub fn draw(frame: &mut Frame, area: Rect, state: &AppState, t: Theme) {
    let popup = centered(area, 78, area.height.saturating_sub(2));
    frame.render_widget(Clear, popup);
    let lines = help_lines();
    let h = popup.height.saturating_sub(2) as usize;
    let max = lines.len().saturating_sub(h);
    let scroll = (state.help.unwrap_or(0) as usize).min(max);
    let text: Vec<Line> = lines
        .into_iter()
        .skip(scroll)
        .take(h)
        .map(|(head, s)| {
            if head {
                Line::from(Span::styled(s, t.header()))
            } else {
                Line::from(s)
            }
        })
        .collect();
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.title())
        .title(Span::styled(" Keys ", t.bold()))
        .title_bottom(Line::from(" ↑/↓ scroll · ?/Esc close ").right_aligned());
    frame.render_widget(Paragraph::new(text).block(block), popup);
}
