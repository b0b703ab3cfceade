//! The terminal UI (docs/interface.md §2).
//!
//! Shape (after the ratatui templates, gitui and television):
//! - [`action::Action`]: the one message type (key intents and async results);
//! - [`state::AppState`] changed only by [`update::update`], which is pure and returns
//!   [`effects::Effect`]s; effects run in blocking tokio tasks and report back as actions;
//! - [`draw::draw`]: a pure function of `&AppState`;
//! - [`keymap`]: the (mode, key) → action table that also generates help and hints;
//! - [`terminal`]: raw mode / alternate screen, panic hook, input task.
//!
//! Sessions are reached only through a [`view::SessionLoader`] (tests and the demo feed rows
//! they build themselves); transcripts and writers through the [`crate::source`] its snapshot
//! names.

pub mod action;
pub mod app;
pub mod context_view;
pub mod dialog;
pub mod draw;
pub mod effects;
pub mod fleet;
pub mod flush_ui;
pub mod keymap;
pub mod palette;
pub mod rows;
pub mod state;
pub mod store_adapter;
pub mod terminal;
pub mod update;
pub mod view;
pub mod watch;

pub use view::{
    NamedLoader, NumberSources, Provenance, ReloadError, SessionLoader, SessionRow,
    SessionsSnapshot, Status,
};

use std::path::PathBuf;

/// How the TUI starts.
#[derive(Clone, Default)]
pub struct TuiLaunch {
    /// Reads the sessions (runs off the render thread, again on every change of a watched
    /// file). Its snapshot carries the source the dialogs ask for transcripts and writers.
    pub loader: Option<SessionLoader>,
    /// Bare-file mode: open this transcript on the Session screen, default numbers, no store.
    pub file: Option<PathBuf>,
    /// Show the built-in demo rows (bannered) instead of calling the loader.
    pub demo: bool,
    /// Capture the mouse (wheel scrolling). Off by default so terminal selection works.
    pub mouse: bool,
    /// No colours at all; see [`TuiLaunch::no_color_from_env`].
    pub no_color: bool,
    /// (agent, key) of a session to open as soon as the list is loaded (`clawtop KEY`).
    pub open: Option<(String, String)>,
    /// Reads `open`'s row alone, so its Session screen does not wait for the whole list
    /// (a SQLite host of thousands of sessions); without it, `open` waits for the list.
    pub named_loader: Option<NamedLoader>,
    /// A line shown on the status line at start (the first-run demo explanation).
    pub notice: Option<String>,
    /// The source to subscribe to for pushed changes ([`crate::source::SessionSource::subscribe`]);
    /// a source that pushes nothing is polled as before.
    pub live: Option<crate::source::SourceHandle>,
    /// Gateway log files the History pane reads flush evidence from (`clawtop --log FILE`),
    /// as `clawtop history KEY --log FILE` does.
    pub logs: Vec<std::path::PathBuf>,
}

impl TuiLaunch {
    /// `NO_COLOR` set to a non-empty value (no-color.org).
    pub fn no_color_from_env() -> bool {
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
    }
}

/// Runs the TUI until the operator quits. Blocks; builds its own tokio runtime.
pub fn run(launch: TuiLaunch) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let out = rt.block_on(app::run(launch));
    // Blocking disk tasks still running hold the host (and a demo's temporary copy); give
    // them a moment to finish so the copy is removed, without hanging on a stuck one.
    rt.shutdown_timeout(std::time::Duration::from_secs(2));
    out
}
