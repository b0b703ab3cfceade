//! Changes from outside: watched files and a source's pushed events reopen what they touch
//! (a new generation, so answers for the old one are dropped).

use crate::sanitize::one_line;
use crate::tui::model::action::Action;
use crate::tui::model::effect::Effect;
use crate::tui::model::state::{AppState, SessionView};

pub(super) fn update(state: &mut AppState, action: Action, fx: &mut Vec<Effect>) {
    match action {
        Action::FilesChanged(paths) => {
            if paths.iter().any(|p| state.sessions.watch.contains(p)) {
                state.sessions.request_load(fx);
            }
            if let Some(v) = state.session.as_mut() {
                if v.watch.iter().any(|w| paths.contains(w)) {
                    v.generation =
                        crate::tui::model::state::take_generation(&mut state.next_generation);
                    v.loading = true;
                    if let Some(e) = open_transcript_effect(v) {
                        fx.push(e);
                    }
                }
            }
        }
        Action::SourceChanged(change) => match change {
            crate::source::Change::Live(up) => state.sessions.live = Some(up),
            crate::source::Change::LiveUnavailable(why) => {
                state.sessions.live = None;
                state.status.info = Some(one_line(&format!(
                    "No live updates from the gateway ({why}); changes are still polled every second"
                )));
            }
            crate::source::Change::Sessions => state.sessions.request_load(fx),
            crate::source::Change::Transcript(r) => {
                if let Some(v) = state.session.as_mut() {
                    if v.session.as_ref().is_some_and(|s| s.session == r) {
                        v.generation =
                            crate::tui::model::state::take_generation(&mut state.next_generation);
                        v.loading = true;
                        if let Some(e) = open_transcript_effect(v) {
                            fx.push(e);
                        }
                    }
                }
            }
        },
        // Routed to another module by `super::update`.
        _ => {}
    }
}

/// Paths the watcher polls: the sessions.json files and the open transcript.
pub(super) fn watch_effect(state: &AppState) -> Effect {
    let mut paths = state.sessions.watch.clone();
    if let Some(v) = &state.session {
        paths.extend(v.watch.iter().cloned());
    }
    Effect::Watch(paths)
}

/// Asks the source for the view's transcript (None without a session: nothing to open).
pub fn open_transcript_effect(v: &SessionView) -> Option<Effect> {
    Some(Effect::OpenTranscript {
        session: v.session.clone()?,
        generation: v.generation,
        keep_recent_tokens: v.row.keep_recent_tokens,
    })
}
