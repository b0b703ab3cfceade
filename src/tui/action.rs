//! The one message type: key intents (from the keymap) and async results (from effects).
//! State changes only in [`crate::tui::update::update`] in response to an `Action`.

use crate::tui::model::SessionsSnapshot;
use crate::tui::rows::{EntryRow, LoadedTranscript};
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
    // --- results and environment
    SessionsLoaded(Result<SessionsSnapshot, String>),
    TranscriptLoaded { generation: u64, result: Result<Box<LoadedTranscript>, String> },
    RowsDecoded { generation: u64, rows: Vec<EntryRow> },
    DetailLoaded { generation: u64, idx: u32, title: String, body: String },
    /// Watched files changed size or mtime.
    FilesChanged(Vec<PathBuf>),
    Error(String),
    /// Clock tick (ages are computed from this, never from the system clock in draw).
    Tick { now_ms: i64 },
    Resize(u16, u16),
}
