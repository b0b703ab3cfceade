//! The one message type: key intents (from the keymap) and async results (from effects).
//! State changes only in [`crate::tui::update::update`] in response to an `Action`.

use crate::compaction::model::GenProgress;
use crate::tui::model::dialog::{GenFailure, Generated, Prep};
use crate::tui::model::rows::{EntryRow, LoadedTranscript};
use crate::tui::model::view::SessionsSnapshot;
use crossterm::event::KeyEvent;
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub enum Action {
    // --- raw input, mapped through the keymap inside `update` (the mode lives in the state)
    Key(KeyEvent),
    // --- intents (what keys map to)
    Quit,
    /// Close the top overlay or screen (Esc); never quits.
    Back,
    /// `q`: like Back, but quits on the first screen.
    Close,
    /// The fleet TUI: the Sessions screen of every host.
    FleetAllSessions,
    /// The fleet TUI's Sessions screen: the next host's sessions (then every host's).
    FleetNextHost,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// Sessions: open the selected session. Session: expand the selected entry.
    Open,
    CycleSort,
    StartFilter,
    FilterChar(char),
    FilterBackspace,
    /// Esc in the filter: clear it and leave typing mode.
    ClearFilter,
    /// Enter in the filter: keep it and leave typing mode.
    AcceptFilter,
    ShowSummaries,
    ToggleHelp,
    Refresh,
    NextCompaction,
    PrevCompaction,
    JumpToCut,
    /// Session screen: the context view (what the context is made of, figures, advice).
    ShowContext,
    /// Session: `/` opens the search prompt.
    StartSearch,
    /// Session: `:` opens the jump prompt (entry index or id).
    StartJump,
    /// Session: cycle what `n`/`N` look for among the entry kinds.
    CycleFindKind,
    /// Show or hide the History pane of the Session screen.
    ToggleHistory,
    /// Show or hide the Cost pane of the Session screen.
    ToggleCost,
    /// Session: next / previous match of the current find (a kind or the searched text).
    FindNext,
    FindPrev,
    /// Typing into the Session prompt: every printable key is text, never a command.
    PromptChar(char),
    PromptBackspace,
    PromptAccept,
    PromptCancel,
    /// Summaries: write the selected summary to a file (asks for the path).
    ExportSummary,
    /// Summaries: show what the selected compaction dropped from and added to the summary
    /// before it, instead of the summary itself.
    ToggleSummaryDiff,
    /// Summaries: pick the next / previous identifier the selected compaction lost.
    NextLost,
    PrevLost,
    /// Summaries: go to the Session screen, on the entry that held the picked lost
    /// identifier.
    JumpToLost,
    /// An export finished (Err: nothing written).
    Exported {
        path: PathBuf,
        result: Result<(), crate::summary::export::ExportError>,
    },
    /// A find ran off the render path.
    Found {
        generation: u64,
        idx: Option<u32>,
        what: String,
        /// The found entry's rank among all matches and their number ("match 3 of 17").
        rank: Option<(usize, usize)>,
    },
    // --- dialogs (docs/interface.md §2)
    /// Session screen: open the Compact dialog.
    OpenCompact,
    /// Sessions or Session screen of a file-backed host whose gateway runs: the Compact
    /// dialog that compacts through that gateway (OpenClaw writes the summary).
    OpenCompactViaGateway,
    /// Compact dialog (buttons, before generating): keep more / fewer recent tokens.
    DialogKeepMore,
    DialogKeepLess,
    /// Session screen / Sessions list: open the Flush dialog.
    OpenFlush,
    /// A key typed into the focused text area (instructions or preview).
    DialogInput(KeyEvent),
    /// Tab: text area ⇄ buttons.
    DialogFocus,
    DialogButtonNext,
    DialogButtonPrev,
    /// Enter on the buttons: press the selected one.
    DialogPress,
    DialogGenerate,
    /// Esc while generating: cancel (back to the editor, instructions kept).
    DialogCancel,
    /// Preview: back to the editor to change the instructions and generate again.
    DialogRegenerate,
    /// Preview: back to the instructions with "Keep these exact identifiers: …" added for
    /// what the draft lost (editable before generating again).
    DialogKeepIdentifiers,
    /// The preview's audit re-run on the edited draft (`seq`: the edit it was made for).
    DraftAudited {
        dialog: u64,
        seq: u64,
        audit: Box<crate::audit::CompactionAudit>,
    },
    /// Compact dialog, a flush due first: run the flush (its own dialog, previewed as `f`
    /// does), then come back to the compaction.
    DialogFlushFirst,
    /// Compact dialog, a flush due first: compact without it (the operator's explicit skip).
    DialogSkipFlush,
    /// Preview: throw the result away and close (nothing written).
    DialogDiscard,
    /// Close the dialog (nothing written). Asks first when the operator edited the
    /// instructions or the preview (issue 9); closes at once otherwise.
    DialogClose,
    /// The "discard your edits?" question: yes closes, no goes back to the dialog.
    DialogDiscardYes,
    DialogDiscardNo,
    /// Undo / redo in the focused editor (ratatui-textarea's history).
    DialogUndo,
    DialogRedo,
    /// Open the focused text (instructions or preview) in `$EDITOR` (an effect: the TUI is
    /// suspended while the editor runs).
    DialogExternalEdit,
    /// The external editor finished: the new text, or why the text is unchanged.
    ExternalEdited {
        dialog: u64,
        target: crate::tui::model::dialog::EditTarget,
        result: Result<String, crate::tui::model::effect::EditError>,
    },
    /// The dialog's model picker: the next / previous model for this operation.
    DialogModelNext,
    DialogModelPrev,
    /// Typing into the Compact dialog's keepRecentTokens field.
    DialogKeepChar(char),
    DialogKeepBackspace,
    /// Preview: open the confirmation popup carrying the previewed text.
    DialogCommit,
    ConfirmYes,
    ConfirmNo,
    // --- results and environment
    SessionsLoaded(Result<SessionsSnapshot, crate::tui::model::view::ReloadError>),
    /// The launch session's row, read alone (`Effect::LoadNamed`).
    /// None: it could not be read alone (the whole list opens it).
    NamedLoaded(Option<SessionsSnapshot>),
    TranscriptLoaded {
        generation: u64,
        /// Shared: actions are cloned, source errors are not.
        result: Result<Box<LoadedTranscript>, std::sync::Arc<crate::source::SourceError>>,
    },
    /// The details of the open transcript (`Effect::LoadTranscriptDetails`); dropped when it
    /// was reopened since.
    TranscriptDetailsLoaded {
        generation: u64,
        details: Box<crate::tui::model::rows::TranscriptDetails>,
    },
    RowsDecoded {
        generation: u64,
        rows: Vec<EntryRow>,
    },
    DetailLoaded {
        generation: u64,
        idx: u32,
        title: String,
        body: String,
    },
    /// Watched files changed size or mtime.
    FilesChanged(Vec<PathBuf>),
    /// The source pushed a change (a Gateway's session events), or its channel came or went.
    SourceChanged(crate::source::Change),
    Error(String),
    DialogPrepared {
        dialog: u64,
        /// The request's sequence number in its dialog (answers to older requests are
        /// dropped: the plan shown is always the one for the values on screen).
        seq: u64,
        result: Result<Box<Prep>, crate::usecase::Problem>,
        /// The models the picker offers (the session's own first).
        models: Vec<crate::usecase::ModelCandidate>,
    },
    GenProgress {
        dialog: u64,
        generation: u64,
        event: GenProgress,
        elapsed_ms: u64,
    },
    GenDone {
        dialog: u64,
        generation: u64,
        result: Result<Generated, GenFailure>,
    },
    /// A compaction OpenClaw's Gateway ran for the dialog, with what it wrote read back (Err:
    /// it did not compact, failed, or the wait was cancelled).
    GatewayDone {
        dialog: u64,
        generation: u64,
        result: Result<Box<crate::usecase::gateway_compact::GatewayReport>, GenFailure>,
    },
    /// A commit finished: Ok(what was written) or Err(why nothing (or not all) was written).
    Committed {
        dialog: u64,
        result: Result<String, crate::usecase::Problem>,
    },
    /// Clock tick (ages are computed from this, never from the system clock in draw).
    Tick {
        now_ms: i64,
    },
    Resize(u16, u16),
}
