//! The fleet TUI's state, its one message type and its effects; its keys are the fleet modes
//! of the one keymap ([`crate::tui::model::keymap`]), its `update` is
//! [`crate::tui::update::fleet`].
//!
//! `update` is pure: it changes the state and returns effects (read a host, hand the
//! terminal to a host's own clawtop); the app runs them off the render path and feeds the
//! results back as actions. Reads are asked for by the clock ([`FleetAction::Tick`]) and by
//! `r`, never by a draw; a host that keeps failing is asked less often (doubling, capped).

use crate::fleet::hosts::HostSpec;
use crate::fleet::{HostResult, HostSummary};
use crate::report::SessionRow;
use crate::tui::model::keymap::{self, Mode};
use crossterm::event::KeyEvent;

/// How often every host is read again.
pub const DEFAULT_INTERVAL_MS: i64 = 30_000;
/// The longest a failing host waits between tries.
pub const MAX_BACKOFF_MS: i64 = 10 * 60_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FleetScreen {
    /// One row per host.
    Hosts,
    /// Sessions across hosts (or of one host).
    Sessions,
}

/// One host on the Fleet screen: its last good answer and how the last try went.
pub struct HostRow {
    pub spec: HostSpec,
    /// The sessions of the last answer (kept, with their age, when a later try fails).
    pub rows: Vec<SessionRow>,
    pub summary: Option<HostSummary>,
    /// The last try's error (a host that answered may still name stores it could not read).
    pub error: Option<String>,
    pub last_ok_ms: Option<i64>,
    pub failures: u32,
    pub next_due_ms: i64,
    pub reading: bool,
}

impl HostRow {
    /// Answered on the last try.
    pub fn reachable(&self) -> Option<bool> {
        if self.last_ok_ms.is_none() && self.error.is_none() {
            return None;
        }
        Some(self.failures == 0)
    }
}

pub struct FleetState {
    pub hosts: Vec<HostRow>,
    pub screen: FleetScreen,
    /// Selected host on the Fleet screen.
    pub host_sel: usize,
    /// Sessions screen: only this host's sessions (index into `hosts`), or every host's.
    pub host_filter: Option<usize>,
    pub session_sel: usize,
    pub interval_ms: i64,
    pub now_ms: i64,
    pub status: Option<String>,
    pub show_help: bool,
    pub should_quit: bool,
    /// This clawtop (local and gateway hosts are opened with it).
    pub this_exe: String,
}

pub enum FleetAction {
    Key(KeyEvent),
    Tick {
        now_ms: i64,
    },
    HostRead {
        index: usize,
        result: Box<HostResult>,
    },
    /// The handed-over program exited (its status, or why it could not run).
    OpenDone(Result<Option<i32>, HandOverError>),
}

/// Why the program a host was handed over to (ssh, or clawtop on a local host) did not run.
#[derive(Debug, thiserror::Error)]
pub enum HandOverError {
    #[error("cannot run {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    /// The task that waited for it stopped (it panicked).
    #[error("the hand-over task stopped: {0}")]
    Task(#[from] tokio::task::JoinError),
}

#[derive(Debug, PartialEq, Eq)]
pub enum FleetEffect {
    /// Read host `index` (a thread; the answer comes back as [`FleetAction::HostRead`]).
    Read(usize),
    /// Suspend the TUI and run this program on the terminal until it exits.
    Open { program: String, args: Vec<String> },
}

/// The bindings of a screen that have a hint (the hint line and the help), from the one
/// keymap ([`keymap::fleet_bindings`]).
pub fn bindings(screen: FleetScreen) -> impl Iterator<Item = &'static keymap::Binding> {
    keymap::for_mode(screen.mode()).filter(|b| b.hint.is_some())
}

impl FleetScreen {
    /// The keymap's mode of this screen.
    pub fn mode(self) -> Mode {
        match self {
            FleetScreen::Hosts => Mode::FleetHosts,
            FleetScreen::Sessions => Mode::FleetSessions,
        }
    }
}

impl FleetState {
    pub fn new(hosts: Vec<HostSpec>, now_ms: i64, this_exe: String) -> FleetState {
        FleetState {
            hosts: hosts
                .into_iter()
                .map(|spec| HostRow {
                    spec,
                    rows: Vec::new(),
                    summary: None,
                    error: None,
                    last_ok_ms: None,
                    failures: 0,
                    next_due_ms: now_ms,
                    reading: false,
                })
                .collect(),
            screen: FleetScreen::Hosts,
            host_sel: 0,
            host_filter: None,
            session_sel: 0,
            interval_ms: DEFAULT_INTERVAL_MS,
            now_ms,
            status: None,
            show_help: false,
            should_quit: false,
            this_exe,
        }
    }

    /// The Sessions screen's rows: (host index, row), most urgent first, then host order.
    pub fn sessions(&self) -> Vec<(usize, &SessionRow)> {
        let mut v: Vec<(usize, &SessionRow)> = self
            .hosts
            .iter()
            .enumerate()
            .filter(|(i, _)| self.host_filter.is_none_or(|f| f == *i))
            .flat_map(|(i, h)| h.rows.iter().map(move |r| (i, r)))
            .collect();
        v.sort_by_key(|(i, r)| (std::cmp::Reverse(crate::fleet::urgency(r.status)), *i));
        v
    }

    /// Asks for every host that is due (or all, `force`) and not being read.
    pub fn due(&mut self, force: bool) -> Vec<FleetEffect> {
        let now = self.now_ms;
        let mut fx = Vec::new();
        for (i, h) in self.hosts.iter_mut().enumerate() {
            if !h.reading && (force || h.next_due_ms <= now) {
                h.reading = true;
                fx.push(FleetEffect::Read(i));
            }
        }
        fx
    }
}
