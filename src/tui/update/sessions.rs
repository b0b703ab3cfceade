//! The Sessions list: sort, filter, and the rows a reload brings (keeping the selection on
//! the same session, and the open Session screen's figures current).

use super::live::watch_effect;
use super::session::{open, open_session};
use crate::sanitize::one_line;
use crate::tui::model::action::Action;
use crate::tui::model::effect::Effect;
use crate::tui::model::state::AppState;

pub(super) fn update(state: &mut AppState, action: Action, fx: &mut Vec<Effect>) {
    match action {
        Action::CycleSort => {
            let key = state
                .sessions
                .selected_row()
                .map(|r| (r.agent().to_string(), r.key().to_string()));
            state.sessions.sort = state.sessions.sort.next();
            state.sessions.sort_rows();
            reselect(state, key);
        }
        Action::StartFilter => state.sessions.filtering = true,
        Action::FilterChar(c) => {
            state.sessions.filter.push(c);
            state.sessions.selected = 0;
            state.sessions.offset = 0;
        }
        Action::FilterBackspace => {
            state.sessions.filter.pop();
            state.sessions.selected = 0;
            state.sessions.offset = 0;
        }
        Action::ClearFilter => {
            state.sessions.filter.clear();
            state.sessions.filtering = false;
            clamp_sessions(state);
        }
        Action::AcceptFilter => state.sessions.filtering = false,
        Action::NamedLoaded(snap) => {
            if state.sessions.deferred == crate::tui::model::state::Deferred::Named {
                state.sessions.deferred = crate::tui::model::state::Deferred::Answered;
            }
            if let Some(snap) = snap {
                opened_before_the_list(state, snap, fx);
            }
        }
        Action::SessionsLoaded(Ok(snap)) => {
            state.sessions.load_ended(fx);
            // The list keeps its selection; on its first load under a Session screen opened
            // ahead of it, the selection is that session (Esc lands on it).
            let key = state
                .sessions
                .selected_row()
                .or_else(|| state.session.as_ref().map(|v| &v.row))
                .map(|r| (r.agent().to_string(), r.key().to_string()));
            if snap.patch {
                patch_rows(&mut state.sessions.rows, snap.rows);
            } else {
                state.sessions.rows = snap.rows;
                state.sessions.label = snap.label;
                state.sessions.running_gateway = snap.running_gateway;
            }
            state.sessions.loaded = true;
            state.sessions.refreshed_ms = Some(state.now_ms);
            state.sessions.reload_failed_ms = None;
            state.sessions.sort_rows();
            reselect(state, key);
            if let Some(want) = state.open_on_load.take() {
                reselect(state, Some(want.clone()));
                let picked = state.sessions.selected_row();
                if picked.is_some_and(|r| (r.agent(), r.key()) == (&want.0, &want.1)) {
                    open(state, fx);
                } else {
                    state.status.error = Some(format!("No session {} listed.", one_line(&want.1)));
                }
            }
            // The open Session screen shows the store's figures too: keep them current
            // (after a commit, or when OpenClaw updates the store).
            if let Some(v) = state.session.as_mut() {
                if let Some(r) =
                    state.sessions.rows.iter().find(|r| {
                        r.agent_id == v.row.agent_id && r.session_key == v.row.session_key
                    })
                {
                    v.row = r.clone();
                }
            }
            // An unread notice (the first-run line) stays until a key is pressed.
            if let Some(w) = snap
                .warnings
                .first()
                .filter(|_| state.status.info.is_none())
            {
                state.status.info = Some(one_line(w));
            }
            if !snap.patch && snap.watch != state.sessions.watch {
                state.sessions.watch = snap.watch;
                fx.push(watch_effect(state));
            }
        }
        Action::SessionsLoaded(Err(e)) => {
            state.sessions.load_ended(fx);
            state.sessions.loaded = true;
            state.sessions.reload_failed_ms = Some(state.now_ms);
            // The rows stay; say how old they are.
            let age = match state.sessions.refreshed_ms {
                Some(at) if !state.sessions.rows.is_empty() => format!(
                    " (the rows shown are from {} ago)",
                    crate::diagnosis::duration_words(state.now_ms - at)
                ),
                _ => String::new(),
            };
            state.status.error = Some(one_line(&format!("reload failed: {e}{age}")));
        }
        // Routed to another module by `super::update`.
        _ => {}
    }
}

/// `clawtop KEY`: the launch session's row arrived before the whole list. Its Session screen
/// opens now, as it would have on the list's load (which then only refreshes its figures),
/// unless the list came first or the operator has already opened something.
fn opened_before_the_list(
    state: &mut AppState,
    snap: crate::tui::model::view::SessionsSnapshot,
    fx: &mut Vec<Effect>,
) {
    let Some(want) = state.open_on_load.clone() else {
        return;
    };
    if state.sessions.loaded || state.session.is_some() {
        return;
    }
    let Some(row) = snap
        .rows
        .into_iter()
        .find(|r| (r.agent(), r.key()) == (&want.0, &want.1))
    else {
        return;
    };
    if let (Some(session), Some(label)) = (row.session.clone(), row.transcript.clone()) {
        state.open_on_load = None;
        open_session(state, row, session, label, fx);
    }
}

/// The rows of the sessions that changed, each in place of its session's row (by agent and
/// key; a session not shown yet is added).
fn patch_rows(
    rows: &mut Vec<crate::tui::model::view::SessionRow>,
    changed: Vec<crate::tui::model::view::SessionRow>,
) {
    // By key, the rows walked once: a turn on a transcript that many sessions share
    // patches many rows of thousands. Hashed with foldhash, not SipHash: every row's key is
    // looked up at each turn.
    let mut by_key: foldhash::HashMap<String, Vec<(usize, crate::tui::model::view::SessionRow)>> =
        foldhash::HashMapExt::with_capacity(changed.len());
    for (n, row) in changed.into_iter().enumerate() {
        by_key
            .entry(row.key().to_string())
            .or_default()
            .push((n, row));
    }
    for r in rows.iter_mut() {
        let Some(same_key) = by_key.get_mut(r.key()) else {
            continue;
        };
        if let Some(i) = same_key.iter().position(|(_, c)| c.agent() == r.agent()) {
            *r = same_key.swap_remove(i).1;
        }
    }
    // Sessions not shown yet, in the order they came.
    let mut added: Vec<_> = by_key.into_values().flatten().collect();
    added.sort_by_key(|(n, _)| *n);
    rows.extend(added.into_iter().map(|(_, r)| r));
}

/// Starts a list deferred behind the launch session's first screen once nothing holds it
/// back ([`crate::tui::model::state::SessionsState::waits_for_first_screen`]): after any
/// action, so an answer without the row, a failed read or the operator leaving the screen
/// start it too.
pub(super) fn start_deferred(state: &mut AppState, fx: &mut Vec<Effect>) {
    if state.sessions.deferred != crate::tui::model::state::Deferred::No
        && !state
            .sessions
            .waits_for_first_screen(state.session.as_ref())
    {
        state.sessions.deferred = crate::tui::model::state::Deferred::No;
        state.sessions.request_load(fx);
    }
}

fn reselect(state: &mut AppState, key: Option<(String, String)>) {
    if let Some((agent, skey)) = key {
        let vis = state.sessions.visible();
        if let Some(pos) = vis.iter().position(|&i| {
            state.sessions.rows[i].agent() == agent && state.sessions.rows[i].key() == skey
        }) {
            state.sessions.selected = pos;
        }
    }
    clamp_sessions(state);
}

pub(super) fn clamp_sessions(state: &mut AppState) {
    let n = state.sessions.visible().len();
    let s = &mut state.sessions;
    s.selected = s.selected.min(n.saturating_sub(1));
    let h = crate::tui::layout::sessions_rows(state.size);
    if s.selected < s.offset {
        s.offset = s.selected;
    } else if s.selected >= s.offset + h {
        s.offset = s.selected + 1 - h;
    }
    s.offset = s.offset.min(n.saturating_sub(h.min(n)));
}
