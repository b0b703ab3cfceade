//! Editing inside a dialog: keys typed into the focused text (instructions or preview),
//! undo / redo, the round trip through `$EDITOR`, the focus ring, the buttons and the model
//! picker.

use super::*;

pub(super) fn update(state: &mut AppState, action: &Action, fx: &mut Vec<Effect>) -> bool {
    match action {
        Action::DialogInput(key) => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            // A character typed on the buttons goes back to the text (keymap's `lookup`).
            if d.focus == Focus::Buttons
                && matches!(d.phase, Phase::Edit | Phase::Preparing | Phase::Preview)
            {
                d.focus = Focus::Text;
                d.restyle();
            }
            if d.focus != Focus::Text {
                return true;
            }
            match d.phase {
                Phase::Edit | Phase::Preparing => {
                    d.instructions.input(*key);
                }
                Phase::Preview if d.preview.input(*key) => {
                    draft_edited(d, state.now_ms);
                }
                _ => {}
            }
        }
        Action::DialogUndo | Action::DialogRedo => {
            let Some((_, ta)) = state.dialog.as_mut().and_then(|d| d.focused_text()) else {
                return true;
            };
            let changed = if matches!(action, Action::DialogUndo) {
                ta.undo()
            } else {
                ta.redo()
            };
            let now = state.now_ms;
            if let (true, Some(d)) = (changed, state.dialog.as_mut()) {
                draft_edited(d, now);
            }
        }
        Action::DialogExternalEdit => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            let id = d.id;
            let Some((target, ta)) = d.focused_text() else {
                return true;
            };
            fx.push(Effect::ExternalEdit {
                dialog: id,
                target,
                text: text_of(ta),
            });
        }
        Action::ExternalEdited {
            dialog,
            target,
            result,
        } => external_edited(state, dialog, target, result),
        Action::DialogFocus => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            d.focus = d.next_focus();
            d.button = 0;
            d.restyle();
        }
        Action::DialogButtonNext | Action::DialogButtonPrev => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            let n = d.buttons().len();
            d.button = if matches!(action, Action::DialogButtonNext) {
                (d.button + 1) % n
            } else {
                (d.button + n - 1) % n
            };
        }
        Action::DialogPress => {
            let Some(d) = state.dialog.as_ref() else {
                return true;
            };
            let b = d.buttons().get(d.button).copied();
            let next = match b {
                Some(Button::Generate) => Action::DialogGenerate,
                Some(Button::Close) => Action::DialogClose,
                Some(Button::Commit) => Action::DialogCommit,
                Some(Button::Regenerate) => Action::DialogRegenerate,
                Some(Button::Discard) => Action::DialogDiscard,
                None => return true,
            };
            return super::update(state, &next, fx);
        }
        Action::DialogModelNext | Action::DialogModelPrev => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            // Only before generating: a preview belongs to the model that wrote it.
            let n = d.models.len();
            if d.phase != Phase::Edit || d.focus != Focus::Model || n < 2 {
                return true;
            }
            d.model_pick = if matches!(action, Action::DialogModelNext) {
                (d.model_pick + 1) % n
            } else {
                (d.model_pick + n - 1) % n
            };
            d.request_prepare(fx);
        }
        // Routed to another module by `super::update`.
        _ => return false,
    }
    true
}

/// The text back from `$EDITOR`, into the text it was taken from (if the dialog is still on
/// it), cleaned as model output is.
fn external_edited(
    state: &mut AppState,
    dialog: &u64,
    target: &EditTarget,
    result: &Result<String, crate::tui::model::effect::EditError>,
) {
    let Some(d) = state.dialog.as_mut().filter(|d| d.id == *dialog) else {
        return;
    };
    let text = match result {
        Ok(t) => t,
        Err(e) => {
            d.error = Some(format!("{e}; the text is unchanged"));
            return;
        }
    };
    let ta = match (target, d.phase) {
        (EditTarget::Instructions, Phase::Edit | Phase::Preparing) => &mut d.instructions,
        (EditTarget::Preview, Phase::Preview) => &mut d.preview,
        // The dialog moved on meanwhile (cannot happen while the TUI waits for the
        // editor, but an answer for another phase must not land in the wrong text).
        _ => return,
    };
    // What a commit writes is what the preview shows: the same control characters
    // are removed as from the model's answer. One undoable edit.
    let text = strip_controls(text);
    if text != text_of(ta) {
        ta.select_all();
        ta.insert_str(&text);
        if *target == EditTarget::Preview {
            draft_edited(d, state.now_ms);
        }
    }
    d.error = None;
    state.status.info = Some(format!(
        "Read back from the editor: {} lines.",
        thousands(text.lines().count() as u64)
    ));
}
