//! Status line: the filter being typed, else the last error, else info, else key hints for
//! the current mode (generated from the keymap).

use super::theme::Theme;
use super::truncate;
use crate::sanitize::one_line;
use crate::tui::model::keymap;
use crate::tui::model::state::AppState;
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

/// The hints that fit in `width` columns: whole hints in keymap order, and `? help` last
/// whenever the mode has it, so the way to every other key is never cut off.
pub fn fitted_hints(mode: keymap::Mode, width: usize) -> String {
    let all: Vec<(bool, String)> = keymap::for_mode(mode)
        .filter(|b| mode != keymap::Mode::Help || b.mode == mode)
        .filter_map(|b| {
            b.hint.map(|h| {
                (
                    matches!(b.action, crate::tui::model::action::Action::ToggleHelp),
                    format!("{} {h}", keymap::key_label(b.keys[0].0, b.keys[0].1)),
                )
            })
        })
        .collect();
    let help = all.iter().find(|(h, _)| *h).map(|(_, s)| s.clone());
    let reserve = help
        .as_ref()
        .map_or(0, |h| unicode_width::UnicodeWidthStr::width(h.as_str()) + 3);
    let mut out: Vec<String> = Vec::new();
    let mut used = 0;
    for (_, s) in all.iter().filter(|(h, _)| !*h) {
        let need =
            unicode_width::UnicodeWidthStr::width(s.as_str()) + if out.is_empty() { 0 } else { 3 };
        if used + need + reserve > width {
            break;
        }
        used += need;
        out.push(s.clone());
    }
    out.extend(help);
    truncate(&out.join(" · "), width)
}

/// `text` cut into lines of at most `width` columns, at spaces where it can be.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    use unicode_width::UnicodeWidthChar;
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut w = 0;
    for word in text.split(' ') {
        let ww = unicode_width::UnicodeWidthStr::width(word);
        let sep = usize::from(!line.is_empty());
        if w + sep + ww <= width {
            if sep == 1 {
                line.push(' ');
            }
            line.push_str(word);
            w += sep + ww;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
            w = 0;
        }
        // A word longer than the line is cut where the line ends.
        for c in word.chars() {
            let cw = c.width().unwrap_or(0);
            if w + cw > width {
                lines.push(std::mem::take(&mut line));
                w = 0;
            }
            line.push(c);
            w += cw;
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The hint that leads to every other key (`? help`), when `mode` has one.
pub fn help_hint(mode: keymap::Mode) -> Option<String> {
    keymap::for_mode(mode)
        .filter(|b| mode != keymap::Mode::Help || b.mode == mode)
        .find(|b| matches!(b.action, crate::tui::model::action::Action::ToggleHelp))
        .and_then(|b| {
            b.hint
                .map(|h| format!("{} {h}", keymap::key_label(b.keys[0].0, b.keys[0].1)))
        })
}

/// A message on the status line, drawn whole: wrapped upward over the bottom of the screen
/// when it is longer than the line (until the next key clears it), so no message is lost to
/// the width, and the status line still ends in `? help` (right-aligned after the message's
/// last line, or on a line of its own under it). At most half the screen: past that (a
/// message of thousands of characters) its last line ends in `…`.
fn draw_message(
    frame: &mut Frame,
    area: Rect,
    text: &str,
    style: ratatui::style::Style,
    hint: Option<&str>,
    t: Theme,
) {
    use unicode_width::UnicodeWidthStr;
    let w = area.width as usize;
    if w == 0 {
        return;
    }
    let mut lines = wrap(text, w);
    let hint_w = hint.map_or(0, |h| h.width() + 3);
    let own_line = hint.is_some()
        && lines
            .last()
            .is_some_and(|l| l.width() + hint_w > w && hint_w <= w);
    let room = (frame.area().height as usize / 2).clamp(1, area.y as usize + 1);
    let text_room = room.saturating_sub(usize::from(own_line)).max(1);
    if lines.len() > text_room {
        lines.truncate(text_room);
        let last = lines.last_mut().expect("room >= 1");
        *last = truncate(&format!("{last} …"), w);
        if !last.ends_with('…') {
            last.push('…');
        }
    }
    let total = lines.len() + usize::from(own_line);
    let top = area.y + 1 - total as u16;
    let block = Rect::new(area.x, top, area.width, total as u16);
    frame.render_widget(ratatui::widgets::Clear, block);
    for (k, l) in lines.iter().enumerate() {
        frame.buffer_mut().set_line(
            area.x,
            top + k as u16,
            &Line::from(Span::styled(l.clone(), style)),
            area.width,
        );
    }
    if let Some(h) = hint.filter(|_| hint_w <= w) {
        let x = area.x + area.width - h.width() as u16;
        frame.buffer_mut().set_string(x, area.y, h, t.dim());
    }
}

pub fn draw(frame: &mut Frame, area: Rect, state: &AppState, t: Theme) {
    let w = area.width as usize;
    let line = if state.sessions.filtering
        && state.screen() == crate::tui::model::state::Screen::Sessions
    {
        Line::from(vec![
            Span::styled("/", t.bold()),
            Span::raw(one_line(&state.sessions.filter)),
            Span::styled("▏", t.bold()),
            Span::styled("  Enter keep · Esc clear", t.dim()),
        ])
    } else if let Some(p) = state
        .session
        .as_ref()
        .and_then(|v| v.prompt.as_ref())
        .filter(|_| {
            matches!(
                state.screen(),
                crate::tui::model::state::Screen::Session
                    | crate::tui::model::state::Screen::Summaries
            )
        })
    {
        use crate::tui::model::state::PromptKind;
        let label = match p.kind {
            PromptKind::Search => "/".to_string(),
            PromptKind::Jump => "jump to # or id: ".to_string(),
            PromptKind::Export => "export to: ".to_string(),
            PromptKind::Overwrite => format!(
                "{} exists. Overwrite? y + Enter: ",
                state
                    .session
                    .as_ref()
                    .and_then(|v| v.pending_export.as_ref())
                    .map(|p| one_line(&p.display().to_string()))
                    .unwrap_or_default()
            ),
        };
        let keys = match p.kind {
            PromptKind::Overwrite => "  Esc keep it",
            PromptKind::Export => "  Enter write · Esc cancel",
            _ => "  Enter go · Esc cancel",
        };
        Line::from(vec![
            Span::styled(label, t.bold()),
            Span::raw(one_line(&p.text)),
            Span::styled("▏", t.bold()),
            Span::styled(keys, t.dim()),
        ])
    } else if let Some(e) = &state.status.error {
        let text = format!("✖ {}", one_line(e));
        let hint = help_hint(state.mode());
        return draw_message(frame, area, &text, t.error(), hint.as_deref(), t);
    } else if let Some(i) = &state.status.info {
        let hint = help_hint(state.mode());
        return draw_message(frame, area, &one_line(i), t.info(), hint.as_deref(), t);
    } else {
        Line::from(Span::styled(fitted_hints(state.mode(), w), t.dim()))
    };
    frame
        .buffer_mut()
        .set_line(area.x, area.y, &line, area.width);
}
