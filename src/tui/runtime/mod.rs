//! The runtime: everything that touches the terminal, the clock, the disk and the network.
//! [`app`] is the loop (input, ticks, watched files → actions → `update` → effects → draw);
//! [`effects`] runs what `update` asked for and reports back as actions (and drives the
//! TUI headless in tests: [`effects::drive`]); [`store_adapter`] is the sessions loader;
//! [`transcript`] opens one session's transcript; [`terminal`], [`palette`] and [`watch`] are
//! the terminal and the file watch; [`fleet`] is the fleet TUI's loop.

pub mod app;
pub mod effects;
pub mod fleet;
pub mod palette;
pub mod store_adapter;
pub mod terminal;
pub mod transcript;
pub mod watch;

use crate::tui::model::view::{NamedLoader, SessionLoader};
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
    /// `--session-only`: leaving the `open` session ends the TUI.
    pub session_only: bool,
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
