//! Committing: the confirmation popup that names what will be written, the commit effect,
//! and its answer (closed and reloaded, or back to the preview with why nothing was written).

use super::*;

pub(super) fn update(state: &mut AppState, action: &Action, fx: &mut Vec<Effect>) -> bool {
    match action {
        Action::DialogCommit => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            if d.phase != Phase::Preview {
                return true;
            }
            let text = text_of(&d.preview);
            let lines = match &d.prep {
                Some(Prep::Compact(c)) => {
                    if text.trim().is_empty() {
                        d.error = Some("The summary is empty: nothing to commit.".into());
                        return true;
                    }
                    compact_confirm(c.as_ref(), &text)
                }
                Some(Prep::Flush(f)) => {
                    // The use case's rule: empty notes are refused (NO_REPLY records a
                    // flush without notes).
                    if let Err(e) = crate::usecase::flush::notes_to_commit(&text) {
                        d.error = Some(e.to_string());
                        return true;
                    }
                    crate::tui::layout::flush_ui::confirm_lines(f.as_ref(), &text)
                }
                Some(Prep::Gateway(_)) => {
                    d.error = Some(
                        "Nothing to commit: OpenClaw wrote and saved this summary on the host itself. Close with q."
                            .into(),
                    );
                    return true;
                }
                None => return true,
            };
            d.confirm = Some(PendingCommit { text, lines });
        }
        Action::ConfirmNo => {
            if let Some(d) = state.dialog.as_mut() {
                d.confirm = None;
            }
        }
        Action::ConfirmYes => {
            let now = state.now_ms;
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            let Some(p) = d.confirm.take() else {
                return true;
            };
            if let Some(Prep::Gateway(g)) = &d.prep {
                let g = g.as_ref().clone();
                gateway::start_gateway_compaction(d, &g, now, fx);
                return true;
            }
            let job = match &d.prep {
                Some(Prep::Compact(c)) => CommitJob::Compact {
                    prep: c.clone(),
                    text: p.text,
                },
                Some(Prep::Flush(f)) => CommitJob::Flush {
                    prep: f.clone(),
                    text: p.text,
                },
                Some(Prep::Gateway(_)) | None => return true,
            };
            d.phase = Phase::Committing;
            d.error = None;
            d.restyle();
            fx.push(Effect::Commit {
                dialog: d.id,
                job: Box::new(job),
            });
        }
        Action::Committed { dialog, result } => {
            let Some(d) = state.dialog.as_mut().filter(|d| d.id == *dialog) else {
                return true;
            };
            match result {
                Ok(msg) => {
                    let then = d.then_compact.take();
                    state.dialog = None;
                    state.status.info = Some(msg.clone());
                    after_commit(state, fx);
                    // The flush ran first (F3 in the Compact dialog): now the compaction.
                    if let Some(then) = then {
                        compact::reopen_after_flush(state, fx, then);
                    }
                }
                Err(p) => {
                    use crate::usecase::Problem;
                    let e = match p {
                        Problem::Refused(m) => format!("Commit refused, nothing written: {m}"),
                        Problem::Failed(m) => format!("Commit failed, nothing written: {m}"),
                        Problem::PartlyWritten(m) => format!("Partly committed: {m}"),
                        Problem::Usage(m) => m.clone(),
                        Problem::Cancelled | Problem::NoPlan { .. } => p.to_string(),
                    };
                    d.phase = Phase::Preview;
                    d.focus = Focus::Text;
                    d.error = Some(e.clone());
                    d.restyle();
                    state.status.error = Some(e);
                }
            }
        }
        // Routed to another module by `super::update`.
        _ => return false,
    }
    true
}
