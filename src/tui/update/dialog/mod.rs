//! The part of `update` that drives the Compact and Flush dialogs (their state is
//! [`crate::tui::model::dialog`]): [`update`] only dispatches; each dialog or phase has its
//! own module and its own small `update`: `compact` (opening, the keepRecentTokens field,
//! F6's identifiers), `flush` (opening), `gateway` (the Compact dialog OpenClaw's gateway
//! runs, and its read-only result), `plan` (the plan's answer, or why there is none),
//! `editor` (text, focus, buttons, model picker), `generation`, `confirm` (the popup and the
//! commit) and `close` (discard or ask).

use crate::compaction::model::GenProgress;
use crate::tui::model::action::Action;
use crate::tui::model::dialog::*;
use crate::tui::model::effect::{CommitJob, Effect, GenJob, PrepareRequest};
use crate::tui::model::state::AppState;
use crate::tui::model::view::thousands;
use crate::usecase::route::{Door, Route};

mod close;
mod compact;
mod confirm;
mod editor;
mod flush;
mod gateway;
mod generation;
mod plan;

pub use compact::{compact_confirm, open_compact};
pub use flush::open_flush;
pub use gateway::open_compact_via_gateway;
pub use plan::no_plan_reason;

/// The dialog an answer is for, while it still waits for that generation; None for an answer
/// that arrives late (the dialog closed, moved on, or asked again): it is dropped.
fn awaiting(dialog: &mut Option<Dialog>, id: u64, generation: u64) -> Option<&mut Dialog> {
    dialog.as_mut().filter(|d| {
        d.id == id
            && d.running.as_ref().map(|g| g.id) == Some(generation)
            && d.phase == Phase::Generating
    })
}

/// Asks the source who writes `op` for `session` (a cheap question, no I/O). A dialog opens
/// only on a local writer; otherwise the status line says why not.
fn can_write(
    state: &mut AppState,
    session: Option<&crate::source::SessionHandle>,
    op: crate::source::Operation,
) -> bool {
    let what = match op {
        crate::source::Operation::Compact => "compact",
        crate::source::Operation::Flush => "flush",
    };
    let Some(session) = session else {
        state.status.info = Some(if state.demo {
            format!("This is a demo row, with no session behind it: nothing to {what}.")
        } else {
            format!("This row has no session behind it: nothing to {what}.")
        });
        return false;
    };
    match crate::usecase::route::route(session, op, Default::default()).refusal(op) {
        None => true,
        Some(why) => {
            state.status.info = Some(format!("Cannot {what} here: {why}."));
            false
        }
    }
}

fn who_of(row: &crate::tui::model::view::SessionRow) -> String {
    format!("{} · {}", row.agent(), row.key())
}

/// Dialog actions. Returns true when `action` was a dialog action (handled here): each goes
/// to the module of the dialog or phase it belongs to.
pub fn update(state: &mut AppState, action: &Action, fx: &mut Vec<Effect>) -> bool {
    match action {
        Action::OpenCompact => {
            open_compact(state, fx);
            true
        }
        Action::OpenCompactViaGateway => {
            open_compact_via_gateway(state);
            true
        }
        Action::OpenFlush => {
            open_flush(state, fx);
            true
        }
        Action::DialogKeepMore
        | Action::DialogKeepLess
        | Action::DialogKeepChar(_)
        | Action::DialogKeepBackspace
        | Action::DialogKeepIdentifiers
        | Action::DialogFlushFirst
        | Action::DialogSkipFlush
        | Action::DraftAudited { .. } => compact::update(state, action, fx),
        Action::DialogPrepared { .. } => plan::update(state, action, fx),
        Action::DialogInput(_)
        | Action::DialogUndo
        | Action::DialogRedo
        | Action::DialogExternalEdit
        | Action::ExternalEdited { .. }
        | Action::DialogFocus
        | Action::DialogButtonNext
        | Action::DialogButtonPrev
        | Action::DialogPress
        | Action::DialogModelNext
        | Action::DialogModelPrev => editor::update(state, action, fx),
        Action::DialogGenerate
        | Action::DialogCancel
        | Action::GenProgress { .. }
        | Action::GenDone { .. }
        | Action::DialogRegenerate => generation::update(state, action, fx),
        Action::GatewayDone { .. } => gateway::update(state, action, fx),
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Top
        | Action::Bottom
            if state
                .dialog
                .as_ref()
                .is_some_and(|d| d.phase == Phase::Done) =>
        {
            gateway::scroll_result(state, action)
        }
        Action::DialogCommit
        | Action::ConfirmYes
        | Action::ConfirmNo
        | Action::Committed { .. } => confirm::update(state, action, fx),
        Action::DialogDiscardYes
        | Action::DialogDiscardNo
        | Action::DialogDiscard
        | Action::DialogClose => close::update(state, action, fx),
        _ => false,
    }
}

/// Reloads what a commit changed: the sessions list and the open transcript.
fn after_commit(state: &mut AppState, fx: &mut Vec<Effect>) {
    if !state.bare_file {
        state.sessions.request_load(fx);
    }
    if let Some(v) = state.session.as_mut() {
        v.generation = crate::tui::model::state::take_generation(&mut state.next_generation);
        v.loading = true;
        fx.extend(crate::tui::update::open_transcript_effect(v));
    }
}

impl Dialog {
    /// A plan for the values on screen: requested now, or queued behind the running one.
    pub(crate) fn request_prepare(&mut self, fx: &mut Vec<Effect>) {
        if self.prep_running {
            self.prep_again = true;
            return;
        }
        self.prep_seq += 1;
        self.prep_running = true;
        fx.push(Effect::Prepare(Box::new(PrepareRequest {
            dialog: self.id,
            seq: self.prep_seq,
            kind: self.kind,
            session: self.session.clone(),
            keep_recent_tokens: self.keep.unwrap_or(self.base_keep),
            model: self.picked_model(),
        })));
    }
}

/// On the clock: the audit of the draft as it stands, when the operator paused typing and
/// none is running (debounced; the effect reads the transcript on a worker, never in draw).
pub fn audit_when_quiet(state: &mut AppState, fx: &mut Vec<Effect>) {
    let now = state.now_ms;
    let Some(d) = state.dialog.as_mut() else {
        return;
    };
    let Some(crate::tui::model::dialog::Prep::Compact(c)) = &d.prep else {
        return;
    };
    if d.phase != crate::tui::model::dialog::Phase::Preview
        || d.audit_running
        || d.audit_due.is_none_or(|t| t > now)
    {
        return;
    }
    d.audit_due = None;
    d.audit_running = true;
    fx.push(Effect::AuditDraft {
        dialog: d.id,
        seq: d.edit_seq,
        prep: c.clone(),
        text: crate::tui::model::dialog::text_of(&d.preview),
    });
}
