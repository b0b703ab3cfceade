//! The Summaries screen: opening it on the compaction at or before the selected entry, the
//! diff toggle, and exporting the selected summary (prompt, then an effect that writes).

use crate::sanitize::one_line;
use crate::tui::action::Action;
use crate::tui::effects::Effect;
use crate::tui::state::{AppState, Screen};

pub(super) fn update(state: &mut AppState, action: Action) {
    match action {
        Action::ShowSummaries => {
            if let Some(v) = &state.session {
                match &v.loaded {
                    Some(l) if !l.summaries.is_empty() => {
                        // Start at the compaction at or before the selected entry.
                        let sel = l
                            .summaries
                            .iter()
                            .rposition(|c| c.idx <= v.selected)
                            .unwrap_or(0);
                        state.summaries = crate::tui::state::SummariesState {
                            selected: sel,
                            ..Default::default()
                        };
                        state.stack.push(Screen::Summaries);
                    }
                    Some(_) => {
                        state.status.info = Some("This session has no compaction entries.".into())
                    }
                    None => {}
                }
            }
        }
        Action::ToggleSummaryDiff => {
            state.summaries.diff = !state.summaries.diff;
            state.summaries.scroll = 0;
        }
        Action::ExportSummary => {
            let sel = state.summaries.selected;
            if let Some(v) = state.session.as_mut() {
                let card = v.loaded.as_ref().and_then(|l| l.summaries.get(sel));
                if card.is_some() {
                    // A bare transcript has no key: its file name stands in.
                    let name = if v.row.session_key.is_empty() {
                        let file = v.label_file_name();
                        std::path::Path::new(&file)
                            .file_stem()
                            .map(|s| s.to_string_lossy().into_owned())
                            .unwrap_or(file)
                    } else {
                        v.row.session_key.clone()
                    };
                    let path = crate::summary::export::default_path(&name, sel + 1);
                    v.prompt = Some(crate::tui::state::Prompt {
                        kind: crate::tui::state::PromptKind::Export,
                        text: path.display().to_string(),
                    });
                }
            }
        }
        Action::Exported { path, result } => {
            use crate::summary::export::ExportError;
            match result {
                Ok(()) => {
                    state.status.info = Some(format!(
                        "Summary written to {}.",
                        one_line(&path.display().to_string())
                    ))
                }
                Err(ExportError::Exists { .. }) => {
                    if let Some(v) = state.session.as_mut() {
                        v.pending_export = Some(path);
                        v.prompt = Some(crate::tui::state::Prompt {
                            kind: crate::tui::state::PromptKind::Overwrite,
                            text: String::new(),
                        });
                    }
                }
                Err(e) => state.status.error = Some(one_line(&e.to_string())),
            }
        }
        // Routed to another module by `super::update`.
        _ => {}
    }
}

/// Enter in the export prompts: write the selected summary to the typed path, or (`y` to
/// "overwrite?") replace the existing file.
pub(super) fn export_accept(
    state: &mut AppState,
    kind: crate::tui::state::PromptKind,
    fx: &mut Vec<Effect>,
) {
    let sel = state.summaries.selected;
    let Some(v) = state.session.as_mut() else {
        return;
    };
    let Some(p) = v.prompt.take() else { return };
    let (path, overwrite) = match kind {
        crate::tui::state::PromptKind::Export => {
            let typed = p.text.trim();
            if typed.is_empty() {
                return;
            }
            (std::path::PathBuf::from(typed), false)
        }
        _ => {
            let Some(path) = v.pending_export.take() else {
                return;
            };
            if !p.text.trim().eq_ignore_ascii_case("y") {
                state.status.info = Some(format!(
                    "{} is kept; nothing written.",
                    one_line(&path.display().to_string())
                ));
                return;
            }
            (path, true)
        }
    };
    let Some(l) = v.loaded.as_ref() else { return };
    let Some(card) = l.summaries.get(sel) else {
        return;
    };
    let header = format!(
        "<!-- clawtop export: summary of compaction {} ({} of {}) of session {}, {}, tokensBefore {} -->",
        card.id,
        sel + 1,
        l.summaries.len(),
        one_line(&v.row.session_key),
        card.timestamp,
        card.tokens_before
            .map(|t| t.to_string())
            .unwrap_or_else(|| "?".into())
    );
    fx.push(Effect::ExportSummary {
        transcript: l.transcript.clone(),
        idx: card.idx,
        path,
        overwrite,
        header,
    });
}
