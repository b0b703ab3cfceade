//! Help overlay, generated from the keymap table so it always matches the bindings.

use super::centered;
use super::theme::Theme;
use crate::tui::layout::help::help_lines;
use crate::tui::model::state::AppState;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

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
