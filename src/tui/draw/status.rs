//! Status line: the filter being typed, else the last error, else info, else key hints for
//! the current mode (generated from the keymap).

use super::theme::Theme;
use super::truncate;
use crate::sanitize::one_line;
use crate::tui::keymap;
use crate::tui::state::AppState;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// "Enter open · s sort · / filter · …" for a mode (the Help mode shows only its own keys).
pub fn hints(mode: keymap::Mode) -> String {
    keymap::for_mode(mode)
        .filter(|b| mode != keymap::Mode::Help || b.mode == mode)
        .filter_map(|b| {
            b.hint
                .map(|h| format!("{} {h}", keymap::key_label(b.keys[0].0, b.keys[0].1)))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

pub fn draw(frame: &mut Frame, area: Rect, state: &AppState, t: Theme) {
    let w = area.width as usize;
    let line = if state.sessions.filtering && state.screen() == crate::tui::state::Screen::Sessions
    {
        Line::from(vec![
            Span::styled("/", t.bold()),
            Span::raw(one_line(&state.sessions.filter)),
            Span::styled("▏", t.bold()),
            Span::styled("  Enter keep · Esc clear", t.dim()),
        ])
    } else if let Some(e) = &state.status.error {
        Line::from(Span::styled(
            truncate(&format!("✖ {}", one_line(e)), w),
            t.error(),
        ))
    } else if let Some(i) = &state.status.info {
        Line::from(Span::styled(truncate(&one_line(i), w), t.info()))
    } else {
        Line::from(Span::styled(truncate(&hints(state.mode()), w), t.dim()))
    };
    frame
        .buffer_mut()
        .set_line(area.x, area.y, &line, area.width);
}
