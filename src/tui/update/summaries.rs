//! The Summaries screen: opening it on the compaction at or before the selected entry, the
//! diff toggle, exporting the selected summary (prompt, then an effect that writes), and
//! the lost identifiers of its audit: `]` / `[` pick one, Enter goes back to the Session
//! screen on the entry that held it (as `:` does for a typed id).

use super::window::{ensure_window, scroll_into_view};
use crate::sanitize::one_line;
use crate::transcript::Transcript;
use crate::tui::model::action::Action;
use crate::tui::model::effect::Effect;
use crate::tui::model::state::{AppState, Screen, layout};

pub(super) fn update(state: &mut AppState, action: Action, fx: &mut Vec<Effect>) {
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
                        state.summaries = crate::tui::model::state::SummariesState {
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
            // The diff does not list the lost identifiers: no hidden pick for Enter.
            state.summaries.lost = None;
        }
        Action::NextLost | Action::PrevLost => pick_lost(state, matches!(action, Action::NextLost)),
        Action::JumpToLost => jump_to_lost(state, fx),
        Action::ExportSummary => {
            let sel = state.summaries.selected;
            if let Some(v) = state.session.as_mut() {
                let card = v.loaded.as_ref().and_then(|l| l.summaries.get(sel));
                if card.is_some() {
                    // A bare transcript has no key: its file name stands in.
                    let name = if v.row.key().is_empty() {
                        let file = v.label_file_name();
                        std::path::Path::new(&file)
                            .file_stem()
                            .map(|s| s.to_string_lossy().into_owned())
                            .unwrap_or(file)
                    } else {
                        v.row.key().to_string()
                    };
                    let path = crate::summary::export::default_path(&name, sel + 1);
                    v.prompt = Some(crate::tui::model::state::Prompt {
                        kind: crate::tui::model::state::PromptKind::Export,
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
                        v.prompt = Some(crate::tui::model::state::Prompt {
                            kind: crate::tui::model::state::PromptKind::Overwrite,
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
    kind: crate::tui::model::state::PromptKind,
    fx: &mut Vec<Effect>,
) {
    let sel = state.summaries.selected;
    let Some(v) = state.session.as_mut() else {
        return;
    };
    let Some(p) = v.prompt.take() else { return };
    let (path, overwrite) = match kind {
        crate::tui::model::state::PromptKind::Export => {
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
        one_line(v.row.key()),
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

/// `]` / `[`: picks the next / previous lost identifier of the selected compaction (round
/// the list), showing the body (not the diff) scrolled so its line is in view.
fn pick_lost(state: &mut AppState, forward: bool) {
    let sel = state.summaries.selected;
    let Some(l) = state.session.as_ref().and_then(|v| v.loaded.as_ref()) else {
        return;
    };
    let Some(card) = l.summaries.get(sel) else {
        return;
    };
    let n = match card.audit.as_ref().map(|a| a.identifiers.as_ref()) {
        None if card.on_branch && l.details_pending() => {
            state.status.info =
                Some("Still auditing this compaction (the whole transcript is read).".into());
            return;
        }
        None => {
            state.status.info =
                Some("This compaction has no audit (not on the active branch).".into());
            return;
        }
        Some(None) => {
            state.status.info =
                Some("What this compaction lost is unknown: its summary is not readable.".into());
            return;
        }
        Some(Some(i)) => i.lost.len(),
    };
    if n == 0 {
        state.status.info = Some("This compaction lost no identifiers.".into());
        return;
    }
    let s = &mut state.summaries;
    s.lost = Some(match (s.lost, forward) {
        (None, true) => 0,
        (None, false) => n - 1,
        (Some(k), true) => (k + 1) % n,
        (Some(k), false) => (k + n - 1) % n,
    });
    s.diff = false;
    // Bring the picked line into view (the first of its lines, when it wraps).
    let width = crate::tui::layout::summaries::body_width(state.size.0);
    let lines = crate::tui::layout::summaries::shown_lines(&l.summaries, sel, false, width);
    let at = lines.iter().position(|(kind, _)| {
        *kind == crate::tui::layout::summaries::LineKind::Lost(s.lost.unwrap_or(0))
    });
    if let Some(at) = at {
        let page = layout::summaries_body(state.size, l.summaries.len());
        let scroll = s.scroll as usize;
        if at < scroll {
            s.scroll = at as u16;
        } else if at >= scroll + page {
            s.scroll = (at + 1 - page) as u16;
        }
    }
}

/// Enter: back to the Session screen, on the entry that held the picked lost identifier.
fn jump_to_lost(state: &mut AppState, fx: &mut Vec<Effect>) {
    let sel = state.summaries.selected;
    let Some(k) = state.summaries.lost else {
        state.status.info =
            Some("Pick a lost identifier with ] (or [) first; Enter goes to its entry.".into());
        return;
    };
    let h = layout::session_list(state.size);
    let Some(v) = state.session.as_mut() else {
        return;
    };
    let Some(l) = v.loaded.as_ref() else { return };
    let Some(held) = l
        .summaries
        .get(sel)
        .and_then(|c| c.audit.as_ref())
        .and_then(|a| a.identifiers.as_ref())
        .and_then(|i| i.lost.get(k))
    else {
        return;
    };
    let Some(idx) = held_entry(&l.transcript, &held.entry_id) else {
        state.status.error = Some(format!(
            "Entry {} is not in this transcript.",
            one_line(&held.entry_id)
        ));
        return;
    };
    state.status.info = Some(format!(
        "Entry {} held {} (lost by compaction {}).",
        one_line(&held.entry_id),
        one_line(&held.value),
        one_line(&l.summaries[sel].id)
    ));
    v.selected = idx;
    scroll_into_view(v, h);
    fx.extend(ensure_window(v, h));
    // The Summaries screen sits on the Session screen it was opened from.
    if state.screen() == Screen::Summaries {
        state.stack.pop();
    }
}

/// The entry an audit names: its written id, or (a v1 file, whose ids are not kept) the
/// `#index` [`Transcript::display_id`] gave it.
fn held_entry(t: &Transcript, id: &str) -> Option<u32> {
    t.index_of_id(id).or_else(|| {
        let i = id.strip_prefix('#')?.parse::<u32>().ok()?;
        ((i as usize) < t.len() && t.display_id(i) == id).then_some(i)
    })
}
