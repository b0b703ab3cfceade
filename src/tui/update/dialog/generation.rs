//! Generating: starting the model call for the plan on screen, its progress, its answer
//! (into the editable preview, control characters removed), cancelling it, and going back to
//! the instructions to generate again.

use super::*;

fn generate(state: &mut AppState, fx: &mut Vec<Effect>) {
    let now = state.now_ms;
    let Some(d) = state.dialog.as_mut() else {
        return;
    };
    if d.phase != Phase::Edit {
        return;
    }
    if let Some(why) = &d.keep_invalid {
        d.error = Some(format!("keepRecentTokens: {why}"));
        d.keep_error = d.error.clone();
        return;
    }
    if d.prep_running {
        d.error = Some("The plan for these values is still being made; try again.".into());
        return;
    }
    let Some(prep) = d.prep.clone() else {
        d.error = Some(
            d.prep_error
                .clone()
                .unwrap_or_else(|| "The plan is not ready.".into()),
        );
        return;
    };
    if let Prep::Gateway(g) = &prep {
        gateway::ask_gateway_send(d, g);
        return;
    }
    // OpenClaw's order: a due flush first, unless skipped (the use case decides).
    if let Prep::Compact(c) = &prep {
        use crate::usecase::compact::{self as uc, FlushStep};
        match uc::flush_first(c, d.flush_choice) {
            Ok(FlushStep::Compact) => {}
            Ok(FlushStep::FlushThenCompact) => {
                compact::flush_then_compact(state, fx);
                return;
            }
            Err(_) => {
                d.error = Some(format!(
                    "{}. F3 flushes first (previewed as f does), F7 compacts without it.",
                    uc::flush_due(c).unwrap_or_default()
                ));
                return;
            }
        }
    }
    let model = match prep.model() {
        Ok(m) => m.clone(),
        Err(e) => {
            d.error = Some(format!("No model to call: {e}"));
            return;
        }
    };
    let (gen_id, cancel) = d.start_running(now, "starting");
    let instructions = d.instructions_text();
    let job = match prep {
        Prep::Compact(c) => GenJob::Compact {
            prep: c,
            instructions,
        },
        Prep::Flush(f) => GenJob::Flush {
            prep: f,
            instructions,
        },
        Prep::Gateway(_) => return,
    };
    fx.push(Effect::Generate {
        dialog: d.id,
        generation: gen_id,
        model: Box::new(model),
        cancel,
        job: Box::new(job),
    });
}

pub(super) fn update(state: &mut AppState, action: &Action, fx: &mut Vec<Effect>) -> bool {
    match action {
        Action::DialogGenerate => generate(state, fx),
        Action::DialogCancel => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            if d.phase == Phase::Generating {
                if let Some(g) = d.running.take() {
                    fx.push(Effect::Cancel(g.cancel));
                }
                d.phase = Phase::Edit;
                d.focus = Focus::Text;
                d.error = None;
                d.restyle();
                state.status.info = Some(if matches!(d.prep, Some(Prep::Gateway(_))) {
                    "Stopped waiting for the gateway. OpenClaw may still finish the compaction on the host; the list shows it when it does.".into()
                } else {
                    "Generation cancelled; nothing written. Instructions kept.".into()
                });
            }
        }
        Action::GenProgress {
            dialog,
            generation,
            event,
            elapsed_ms,
        } => gen_progress(state, dialog, generation, event, elapsed_ms),
        Action::GenDone {
            dialog,
            generation,
            result,
        } => gen_done(state, dialog, generation, result),
        Action::DialogRegenerate => {
            let Some(d) = state.dialog.as_mut() else {
                return true;
            };
            if d.phase == Phase::Preview && d.preview_edited() {
                d.ask_discard = true;
                d.ask_then = Some(Button::Regenerate);
                return true;
            }
            if d.phase == Phase::Preview {
                d.back_to_edit();
            }
        }
        // Routed to another module by `super::update`.
        _ => return false,
    }
    true
}

/// Progress of the running generation (call, characters and tokens so far, retries).
fn gen_progress(
    state: &mut AppState,
    dialog: &u64,
    generation: &u64,
    event: &GenProgress,
    elapsed_ms: &u64,
) {
    let Some(g) = state
        .dialog
        .as_mut()
        .filter(|d| d.id == *dialog)
        .and_then(|d| d.running.as_mut())
        .filter(|g| g.id == *generation)
    else {
        return;
    };
    g.elapsed_ms = g.elapsed_ms.max(*elapsed_ms);
    match event {
        GenProgress::Call { call, label } => {
            g.call = *call;
            g.label = label.clone();
            g.chars = 0;
            g.tokens = None;
            g.retry = None;
        }
        GenProgress::Delta { chars, tokens } => {
            g.chars = *chars;
            g.tokens = *tokens;
            g.retry = None;
        }
        GenProgress::Retrying {
            attempt,
            after_ms,
            reason,
        } => {
            g.retry = Some(format!(
                "attempt {attempt} failed ({reason}); retrying in {:.1}s",
                *after_ms as f64 / 1000.0
            ));
        }
    }
}

/// The model's answer: into the editable preview (control characters removed), or back to
/// the instructions with why there is none. Late answers are dropped ([`awaiting`]).
fn gen_done(
    state: &mut AppState,
    dialog: &u64,
    generation: &u64,
    result: &Result<Generated, GenFailure>,
) {
    let now = state.now_ms;
    let Some(d) = awaiting(&mut state.dialog, *dialog, *generation) else {
        return;
    };
    d.running = None;
    match result {
        Ok(g) => {
            if let (Some(Prep::Flush(f)), Some(cur)) = (d.prep.as_mut(), &g.current) {
                if f.current.is_some() || !cur.is_empty() {
                    f.current = Some(cur.clone());
                }
            }
            // A NO_REPLY answer previews as NO_REPLY: committing the preview as it
            // stands records the flush; emptied notes are refused (the use case's rule).
            let text = if g.no_reply && g.text.trim().is_empty() {
                crate::flush::prompts::SILENT_TOKEN
            } else {
                g.text.as_str()
            };
            let text = strip_controls(text);
            d.preview = textarea(&text, d.no_color, "");
            d.preview_base = text;
            d.warnings = g.warnings.clone();
            d.audit = g.audit.clone();
            d.audited_seq = d.edit_seq;
            d.phase = Phase::Preview;
            // A compaction's draft without its audit (none came with it): asked for at once.
            if d.kind == DialogKind::Compact && d.audit.is_none() {
                d.audit_due = Some(now);
            }
            d.focus = Focus::Text;
            d.error = None;
        }
        Err(GenFailure::Cancelled) => {
            d.phase = Phase::Edit;
        }
        Err(GenFailure::Failed(e)) => {
            d.phase = Phase::Edit;
            d.error = Some(format!("Generation failed, nothing written: {e}"));
        }
    }
    d.button = 0;
    d.restyle();
}
