//! Moving around: back out of overlays and screens, the cursor keys of every screen, and a
//! terminal resize (which re-lays out what the cursor keys depend on).

use super::sessions::clamp_sessions;
use super::window::{ensure_window, scroll_into_view};
use crate::tui::model::action::Action;
use crate::tui::model::effect::Effect;
use crate::tui::model::state::{AppState, Screen, layout};

pub(super) fn back(state: &mut AppState, may_quit: bool) {
    if state.help.take().is_some() {
        return;
    }
    let on_session = state.screen() == Screen::Session;
    if let Some(v) = state.session.as_mut() {
        if v.detail.take().is_some() && on_session {
            return;
        }
        if std::mem::take(&mut v.history_open) && on_session {
            return;
        }
        if std::mem::take(&mut v.cost_open) && on_session {
            return;
        }
    }
    // Opened for one session (the fleet's hand-over): leaving it is leaving clawtop.
    if state.session_only && on_session {
        state.should_quit = true;
        return;
    }
    if state.stack.len() <= 1 {
        if may_quit {
            state.should_quit = true;
        }
        return;
    }
    if state.stack.pop() == Some(Screen::Session) {
        state.session = None;
    }
}

fn step(cur: usize, len: usize, action: &Action, page: usize) -> usize {
    let last = len.saturating_sub(1);
    match action {
        Action::Up => cur.saturating_sub(1),
        Action::Down => (cur + 1).min(last),
        Action::PageUp => cur.saturating_sub(page.max(1)),
        Action::PageDown => (cur + page.max(1)).min(last),
        Action::Top => 0,
        Action::Bottom => last,
        _ => cur,
    }
}

pub(super) fn move_cursor(state: &mut AppState, action: &Action, fx: &mut Vec<Effect>) {
    match state.mode() {
        crate::tui::model::keymap::Mode::Help => {
            // The popup's text rows: the screen less two rows, less its border (draw::help).
            let page = state.size.1.saturating_sub(4).max(1) as usize;
            let lines = crate::tui::layout::help::help_lines().len();
            let h = state.help.unwrap_or(0) as usize;
            // The scroll stops at the last page, so Up moves at once after End or PgDn.
            let scrolled = step(h, lines.saturating_sub(page) + 1, action, page);
            state.help = Some(scrolled as _);
        }
        crate::tui::model::keymap::Mode::Sessions | crate::tui::model::keymap::Mode::Filter => {
            let n = state.sessions.visible().len();
            let page = crate::tui::layout::sessions_rows(state.size);
            state.sessions.selected = step(state.sessions.selected, n, action, page);
            clamp_sessions(state);
        }
        crate::tui::model::keymap::Mode::Session => {
            let h = layout::session_list(state.size);
            if let Some(v) = state.session.as_mut() {
                let len = v.len() as usize;
                v.selected = step(v.selected as usize, len, action, h.saturating_sub(1)) as u32;
                scroll_into_view(v, h);
                fx.extend(ensure_window(v, h));
            }
        }
        crate::tui::model::keymap::Mode::Detail => {
            let page = layout::detail_body(state.size);
            if let Some(d) = state.session.as_mut().and_then(|v| v.detail.as_mut()) {
                let max = d.lines.saturating_sub(page) as u16;
                d.scroll = step(d.scroll as usize, max as usize + 1, action, page) as u16;
            }
        }
        crate::tui::model::keymap::Mode::Summaries => {
            let count = state
                .session
                .as_ref()
                .and_then(|v| v.loaded.as_ref())
                .map(|l| l.summaries.len())
                .unwrap_or(0);
            let page = layout::summaries_body(state.size, count);
            let lines = state
                .session
                .as_ref()
                .and_then(|v| v.loaded.as_ref())
                .map(|l| {
                    crate::tui::layout::summaries::shown_lines(
                        &l.summaries,
                        state.summaries.selected,
                        state.summaries.diff,
                        crate::tui::layout::summaries::body_width(state.size.0),
                    )
                    .len()
                })
                .unwrap_or(0);
            let max = lines.saturating_sub(page);
            state.summaries.scroll =
                step(state.summaries.scroll as usize, max + 1, action, page) as u16;
        }
        crate::tui::model::keymap::Mode::Global
        | crate::tui::model::keymap::Mode::DialogEdit
        | crate::tui::model::keymap::Mode::DialogPreview
        | crate::tui::model::keymap::Mode::DialogButtons
        | crate::tui::model::keymap::Mode::DialogKeep
        | crate::tui::model::keymap::Mode::DialogModel
        | crate::tui::model::keymap::Mode::AskDiscard
        | crate::tui::model::keymap::Mode::Generating
        | crate::tui::model::keymap::Mode::DialogResult
        | crate::tui::model::keymap::Mode::Confirm
        | crate::tui::model::keymap::Mode::Prompt => {}
        // The fleet TUI's modes: never this TUI's.
        crate::tui::model::keymap::Mode::Fleet
        | crate::tui::model::keymap::Mode::FleetHosts
        | crate::tui::model::keymap::Mode::FleetSessions => {}
    }
}

pub(super) fn resize(state: &mut AppState, w: u16, h: u16, fx: &mut Vec<Effect>) {
    state.size = (w, h);
    clamp_sessions(state);
    let lh = layout::session_list(state.size);
    if let Some(v) = state.session.as_mut() {
        scroll_into_view(v, lh);
        fx.extend(ensure_window(v, lh));
        if let Some(d) = v.detail.as_mut() {
            d.wrapped =
                crate::tui::layout::wrap(&d.body, crate::tui::layout::detail_width(state.size));
            d.lines = d.wrapped.len();
        }
    }
}
