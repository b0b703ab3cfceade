//! The Flush dialog's own part: opening it on a session with a transcript and a local
//! writer. Generating, previewing and committing notes go through the shared phases.

use super::*;

/// Opens the Flush dialog for the Session screen's session or the selected Sessions row.
pub fn open_flush(state: &mut AppState, fx: &mut Vec<Effect>) {
    use crate::tui::model::state::Screen;
    let row = match state.screen() {
        Screen::Session => match &state.session {
            Some(v) => v.row.clone(),
            None => return,
        },
        _ => match state.sessions.selected_row() {
            Some(r) => r.clone(),
            None => return,
        },
    };
    if !can_write(state, row.session.as_ref(), crate::source::Operation::Flush) {
        return;
    }
    let Some(session) = row.session.clone().filter(|_| row.transcript.is_some()) else {
        state.status.error = Some(format!(
            "No transcript file for {}.",
            crate::sanitize::one_line(row.key())
        ));
        return;
    };
    let id = crate::tui::model::state::take_generation(&mut state.next_generation);
    let mut d = Dialog::new(
        id,
        DialogKind::Flush,
        who_of(&row),
        session.clone(),
        state.no_color,
    );
    d.base_keep = row.keep_recent_tokens;
    state.dialog = Some(d);
    fx.push(Effect::Prepare(Box::new(PrepareRequest {
        dialog: id,
        seq: 1,
        model: Default::default(),
        kind: DialogKind::Flush,
        session,
        keep_recent_tokens: row.keep_recent_tokens,
    })));
}
