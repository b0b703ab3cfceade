//! Closing a dialog: at once when nothing was edited, after "discard your edits?" when the
//! instructions or the preview were, and the preview's Discard.

use super::*;

pub(super) fn update(state: &mut AppState, action: &Action, fx: &mut Vec<Effect>) -> bool {
    match action {
        Action::DialogDiscardYes => {
            let then = state
                .dialog
                .as_mut()
                .filter(|d| d.ask_discard)
                .and_then(|d| d.ask_then.take());
            if let (Some(b), Some(d)) = (then, state.dialog.as_mut()) {
                // The edits are given up: the preview as it stands is no longer "edited".
                d.ask_discard = false;
                d.preview_base = text_of(&d.preview);
                let next = match b {
                    Button::Regenerate => Action::DialogRegenerate,
                    _ => Action::DialogDiscard,
                };
                return super::update(state, &next, fx);
            }
            if state.dialog.as_ref().is_some_and(|d| d.ask_discard) {
                if let Some(g) = state.dialog.as_ref().and_then(|d| d.running.as_ref()) {
                    fx.push(Effect::Cancel(g.cancel.clone()));
                }
                state.dialog = None;
                state.status.info =
                    Some("Closed; the edited text was discarded, nothing written.".into());
            }
        }
        Action::DialogDiscardNo => {
            if let Some(d) = state.dialog.as_mut() {
                d.ask_discard = false;
                d.ask_then = None;
            }
        }
        Action::DialogDiscard => {
            if let Some(d) = state
                .dialog
                .as_mut()
                .filter(|d| d.phase == Phase::Preview && d.preview_edited())
            {
                d.ask_discard = true;
                d.ask_then = Some(Button::Discard);
                return true;
            }
            if state
                .dialog
                .as_ref()
                .is_some_and(|d| d.phase == Phase::Preview)
            {
                state.dialog = None;
                state.status.info = Some("Discarded; nothing written.".into());
            }
        }
        Action::DialogClose => {
            let Some(d) = state.dialog.as_ref() else {
                return true;
            };
            match d.phase {
                Phase::Generating => return super::update(state, &Action::DialogCancel, fx),
                Phase::Committing => {}
                // OpenClaw's compaction is saved on the host: closing loses nothing.
                Phase::Done => {
                    let who = crate::sanitize::one_line(&d.who);
                    state.dialog = None;
                    state.status.info = Some(format!(
                        "Closed. OpenClaw's compaction of {who} is saved on the host."
                    ));
                }
                _ if d.edited() => {
                    if let Some(d) = state.dialog.as_mut() {
                        d.ask_discard = true;
                    }
                }
                _ => {
                    if let Some(g) = &d.running {
                        fx.push(Effect::Cancel(g.cancel.clone()));
                    }
                    state.dialog = None;
                }
            }
        }
        // Routed to another module by `super::update`.
        _ => return false,
    }
    true
}
