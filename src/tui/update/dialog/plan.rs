//! The plan's answer ([`Action::DialogPrepared`]): a plan for the values on screen, or why
//! there is none. Answers to an older request are dropped; a value changed while the plan ran
//! asks again. When the session's own keepRecentTokens leaves nothing to summarize, the
//! diagnosis's suggested value is prefilled and planned.

use super::*;

/// Why there is no plan, in words for the dialog: the reason first (the file at the end: the
/// title already names the session), and "too small" said as what it means at the value
/// asked for.
pub fn no_plan_reason(problem: &crate::usecase::Problem, keep: u64) -> String {
    use crate::usecase::Problem;
    match problem {
        Problem::NoPlan {
            reason: crate::plan::NoPlan::TooSmall,
            ..
        } => format!(
            "Nothing to summarize at keepRecentTokens {}: it would keep every message a compaction could summarize.",
            thousands(keep)
        ),
        Problem::NoPlan { transcript, reason } => match transcript.file_name() {
            Some(f) => format!("{reason} ({})", f.to_string_lossy()),
            None => reason.to_string(),
        },
        other => other.to_string(),
    }
}

pub(super) fn update(state: &mut AppState, action: &Action, fx: &mut Vec<Effect>) -> bool {
    match action {
        Action::DialogPrepared {
            dialog,
            seq,
            result,
            models,
        } => {
            // The diagnosis (and its suggestion) may still be measuring: no "none suggested".
            let measuring = state
                .session
                .as_ref()
                .and_then(|v| v.loaded.as_ref())
                .is_some_and(|l| l.diagnosis.is_none() && l.details_pending());
            let Some(d) = state.dialog.as_mut().filter(|d| d.id == *dialog) else {
                return true;
            };
            if *seq != d.prep_seq {
                return true;
            }
            d.prep_running = false;
            if d.models.is_empty() {
                d.models = models.clone();
            }
            // The values changed while this plan ran: it is not the one for the screen.
            if std::mem::take(&mut d.prep_again) {
                d.request_prepare(fx);
                return true;
            }
            match result {
                Ok(prep) => {
                    if let Prep::Compact(c) = prep.as_ref() {
                        if let Some(ci) = &c.default_instructions {
                            if d.instructions_text().is_none() {
                                let ci = strip_controls(ci);
                                d.instructions = textarea(&ci, d.no_color, "");
                                d.instructions_base = ci;
                            }
                        }
                    }
                    d.prep = Some(prep.as_ref().clone());
                    d.prep_error = None;
                }
                Err(e) => {
                    let asked = d.keep.unwrap_or(d.base_keep);
                    let reason = no_plan_reason(e, asked);
                    let too_small = matches!(
                        e,
                        crate::usecase::Problem::NoPlan {
                            reason: crate::plan::NoPlan::TooSmall,
                            ..
                        }
                    );
                    match d.suggested_keep.filter(|&s| s < asked) {
                        // The session's own value leaves nothing to summarize: the
                        // diagnosis's value is prefilled and its plan asked for.
                        Some(s)
                            if too_small && d.keep.is_none() && d.kind == DialogKind::Compact =>
                        {
                            d.keep = Some(s);
                            d.keep_note = Some(format!(
                                "{reason} The diagnosis suggests keepRecentTokens {} (prefilled; +/- or type to change).",
                                thousands(s)
                            ));
                            d.prep = None;
                            d.prep_error = None;
                            d.request_prepare(fx);
                            if d.phase == Phase::Preparing {
                                d.phase = Phase::Edit;
                            }
                            d.restyle();
                            return true;
                        }
                        _ => {
                            // The plan shown must be the one for the value on screen.
                            d.prep = None;
                            d.prep_error = Some(if too_small && measuring {
                                format!(
                                    "{reason} The diagnosis is still measuring; its suggested keepRecentTokens follows."
                                )
                            } else if too_small && d.suggested_keep.is_none() {
                                format!(
                                    "{reason} No smaller keepRecentTokens is suggested for this session (i explains why)."
                                )
                            } else if too_small {
                                format!("{reason} (- keeps less)")
                            } else {
                                reason
                            });
                        }
                    }
                }
            }
            if d.phase == Phase::Preparing {
                d.phase = Phase::Edit;
            }
            d.restyle();
        }
        // Routed to another module by `super::update`.
        _ => return false,
    }
    true
}
