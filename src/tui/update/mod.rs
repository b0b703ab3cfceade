//! `update(state, action) -> effects`: the only place state changes. Pure: no I/O, no clock,
//! no terminal. Work that touches the disk is returned as an [`Effect`] and comes back later
//! as an [`Action`].
//!
//! Order: an open dialog sees every action first ([`crate::tui::update::dialog::update`]); a key is
//! turned into its intent through the keymap and dispatched again; every other action goes to
//! the module of the screen or concern it belongs to, each with its own small `update`:
//! `sessions` (the list), `session` (a transcript), `prompt` (search and jump),
//! `summaries`, `live` (outside changes), `nav` (back, cursor keys, resize). The match
//! below names every action, so a new one cannot be forgotten.

pub mod dialog;
pub mod fleet;
mod live;
mod nav;
mod prompt;
mod session;
mod sessions;
mod summaries;
mod window;

pub use live::open_transcript_effect;
pub use session::open_session;
pub use window::{ensure_window, scroll_into_view};

use crate::sanitize::one_line;
use crate::tui::model::action::Action;
use crate::tui::model::effect::Effect;
use crate::tui::model::keymap;
use crate::tui::model::state::{AppState, Screen};

/// Extra entries decoded above and below the visible ones, in screens. The cache never holds
/// more than (1 + 2 × margin) screens of rows, however long the transcript.
pub const WINDOW_MARGIN: usize = 1;

/// The next state and the effects it asks for, for one action.
pub fn update(state: &mut AppState, action: Action) -> Vec<Effect> {
    let mut fx = dispatch(state, action);
    sessions::start_deferred(state, &mut fx);
    fx
}

/// Whether `action`, in `state` (before [`update`] takes it), leaves nothing on screen
/// different: then the runtime need not draw for it. So far one kind: a change to a watched
/// `sessions.json` seen while no dialog is open and no open transcript is touched only asks
/// for the list again (not shown), and the list's answer is drawn when it comes. On a live
/// host that is one frame of three each second (issue 31, live). Anything else is drawn.
pub fn quiet(state: &AppState, action: &Action) -> bool {
    match action {
        Action::FilesChanged(paths) => {
            state.dialog.is_none()
                && state
                    .session
                    .as_ref()
                    .is_none_or(|v| !v.watch.iter().any(|w| paths.contains(w)))
        }
        _ => false,
    }
}

fn dispatch(state: &mut AppState, action: Action) -> Vec<Effect> {
    let mut fx = Vec::new();
    if matches!(action, Action::OpenCompact) && state.screen() == Screen::Sessions {
        // The Compact dialog needs the transcript (the plan): open the session, then the
        // dialog once it is loaded.
        session::open(state, &mut fx);
        state.compact_on_load = state.screen() == Screen::Session;
        return fx;
    }
    if crate::tui::update::dialog::update(state, &action, &mut fx) {
        return fx;
    }
    match action {
        Action::Key(key) => {
            let mode = state.mode();
            if let Some(a) = keymap::lookup(mode, &key) {
                // A deliberate key press acknowledges the last error (typing does not).
                if !matches!(a, Action::DialogInput(_) | Action::DialogKeepChar(_)) {
                    state.status.error = None;
                    state.status.info = None;
                }
                return update(state, a);
            }
        }
        Action::Quit => state.should_quit = true,
        Action::ToggleHelp => state.help = if state.help.is_some() { None } else { Some(0) },
        Action::Back | Action::Close => nav::back(state, matches!(action, Action::Close)),
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Top
        | Action::Bottom => nav::move_cursor(state, &action, &mut fx),
        Action::Resize(w, h) => nav::resize(state, w, h, &mut fx),
        Action::Open => session::open(state, &mut fx),
        Action::Refresh => state.sessions.request_load(&mut fx),
        Action::Error(e) => state.status.error = Some(one_line(&e)),
        Action::Tick { now_ms } => {
            state.now_ms = now_ms;
            crate::tui::update::dialog::audit_when_quiet(state, &mut fx);
        }
        Action::CycleSort
        | Action::StartFilter
        | Action::FilterChar(_)
        | Action::FilterBackspace
        | Action::ClearFilter
        | Action::AcceptFilter
        | Action::SessionsLoaded(_)
        | Action::NamedLoaded(_) => sessions::update(state, action, &mut fx),
        Action::ShowContext
        | Action::ToggleHistory
        | Action::ToggleCost
        | Action::CycleFindKind
        | Action::FindNext
        | Action::FindPrev
        | Action::Found { .. }
        | Action::NextCompaction
        | Action::PrevCompaction
        | Action::JumpToCut
        | Action::TranscriptLoaded { .. }
        | Action::TranscriptDetailsLoaded { .. }
        | Action::RowsDecoded { .. }
        | Action::DetailLoaded { .. } => session::update(state, action, &mut fx),
        Action::StartSearch
        | Action::StartJump
        | Action::PromptChar(_)
        | Action::PromptBackspace
        | Action::PromptCancel
        | Action::PromptAccept => prompt::update(state, action, &mut fx),
        Action::ShowSummaries
        | Action::ToggleSummaryDiff
        | Action::ExportSummary
        | Action::Exported { .. }
        | Action::NextLost
        | Action::PrevLost
        | Action::JumpToLost => summaries::update(state, action, &mut fx),
        Action::FilesChanged(_) | Action::SourceChanged(_) => live::update(state, action, &mut fx),
        // Handled by `dialog::update` above.
        Action::OpenCompact
        | Action::OpenCompactViaGateway
        | Action::GatewayDone { .. }
        | Action::OpenFlush
        | Action::DialogKeepMore
        | Action::DialogKeepLess
        | Action::DialogInput(_)
        | Action::DialogFocus
        | Action::DialogButtonNext
        | Action::DialogButtonPrev
        | Action::DialogPress
        | Action::DialogGenerate
        | Action::DialogCancel
        | Action::DialogRegenerate
        | Action::DialogKeepIdentifiers
        | Action::DialogFlushFirst
        | Action::DraftAudited { .. }
        | Action::DialogSkipFlush
        | Action::DialogDiscard
        | Action::DialogClose
        | Action::DialogDiscardYes
        | Action::DialogDiscardNo
        | Action::DialogUndo
        | Action::DialogRedo
        | Action::DialogExternalEdit
        | Action::ExternalEdited { .. }
        | Action::DialogKeepChar(_)
        | Action::DialogKeepBackspace
        | Action::DialogModelNext
        | Action::DialogModelPrev
        | Action::DialogCommit
        | Action::ConfirmYes
        | Action::ConfirmNo
        | Action::DialogPrepared { .. }
        | Action::GenProgress { .. }
        | Action::GenDone { .. }
        | Action::Committed { .. } => {}
        // The fleet TUI's keys (its own update, `update::fleet`).
        Action::FleetAllSessions | Action::FleetNextHost => {}
    }
    fx
}
