//! The Session screen's prompt: search text, jump to `#N` or an entry id; Enter in the
//! Summaries export prompts is handed to [`super::summaries::export_accept`].

use super::session::find_effect;
use super::summaries::export_accept;
use super::window::{ensure_window, scroll_into_view};
use crate::sanitize::one_line;
use crate::tui::model::action::Action;
use crate::tui::model::effect::Effect;
use crate::tui::model::state::{AppState, layout};

pub(super) fn update(state: &mut AppState, action: Action, fx: &mut Vec<Effect>) {
    match action {
        Action::StartSearch | Action::StartJump => {
            if let Some(v) = state.session.as_mut() {
                v.prompt = Some(crate::tui::model::state::Prompt {
                    kind: if matches!(action, Action::StartSearch) {
                        crate::tui::model::state::PromptKind::Search
                    } else {
                        crate::tui::model::state::PromptKind::Jump
                    },
                    text: String::new(),
                });
            }
        }
        Action::PromptChar(c) => {
            if let Some(p) = state.session.as_mut().and_then(|v| v.prompt.as_mut()) {
                p.text.push(c);
            }
        }
        Action::PromptBackspace => {
            if let Some(p) = state.session.as_mut().and_then(|v| v.prompt.as_mut()) {
                p.text.pop();
            }
        }
        Action::PromptCancel => {
            if let Some(v) = state.session.as_mut() {
                v.prompt = None;
                if v.pending_export.take().is_some() {
                    state.status.info = Some("The file is kept; nothing written.".into());
                }
            }
        }
        Action::PromptAccept => prompt_accept(state, fx),
        // Routed to another module by `super::update`.
        _ => {}
    }
}

/// Enter in the prompt: search for the text, or jump to `#N` / `N` (1-based index) or an
/// entry id.
fn prompt_accept(state: &mut AppState, fx: &mut Vec<Effect>) {
    use crate::tui::model::state::{Find, PromptKind};
    let kind = state
        .session
        .as_ref()
        .and_then(|v| v.prompt.as_ref())
        .map(|p| p.kind);
    if let Some(kind @ (PromptKind::Export | PromptKind::Overwrite)) = kind {
        export_accept(state, kind, fx);
        return;
    }
    let h = layout::session_list(state.size);
    let Some(v) = state.session.as_mut() else {
        return;
    };
    let Some(p) = v.prompt.take() else { return };
    let text = p.text.trim().to_string();
    if text.is_empty() {
        return;
    }
    match p.kind {
        PromptKind::Search => {
            v.find = Find::Text(text.clone());
            find_effect(state, Find::Text(text), true, fx);
        }
        PromptKind::Jump => {
            let Some(l) = v.loaded.as_ref() else { return };
            let len = l.transcript.len() as u32;
            let by_index = text
                .strip_prefix('#')
                .unwrap_or(&text)
                .parse::<u32>()
                .ok()
                .filter(|&n| n >= 1 && n <= len)
                .map(|n| n - 1);
            match by_index.or_else(|| l.transcript.index_of_id(&text)) {
                Some(i) => {
                    v.selected = i;
                    scroll_into_view(v, h);
                    fx.extend(ensure_window(v, h));
                }
                None => {
                    state.status.error = Some(format!(
                        "No entry #{} or id {:?} (entries are #1 to #{len}).",
                        one_line(&text),
                        one_line(&text)
                    ))
                }
            }
        }
        // Handled by `export_accept` above.
        PromptKind::Export | PromptKind::Overwrite => {}
    }
}
