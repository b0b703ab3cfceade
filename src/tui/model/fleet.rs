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
use crate::tui::model::state::SortKey;
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
    /// The host's spend totals of its last answer (the Fleet screen shows its
    /// [`crate::fleet::Spend`]).
    pub totals: Option<crate::cost::host::HostTotals>,
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
    /// The Sessions screen's order and filter, as on a single host
    /// ([`SortKey::compare`], [`crate::tui::model::state::row_matches`]).
    pub sort: SortKey,
    pub filter: String,
    /// Typing into the filter (keys are the single-host [`Mode::Filter`]'s).
    pub filtering: bool,
    /// The whole text of a host's error, over the screen until a key is pressed.
    pub detail: Option<String>,
    pub interval_ms: i64,
    pub now_ms: i64,
    pub status: Option<String>,
    pub show_help: bool,
    pub should_quit: bool,
    /// This clawtop (local and gateway hosts are opened with it).
    pub this_exe: String,
}

/// One row of the fleet's Sessions screen.
#[derive(Debug, Clone, Copy)]
pub enum FleetItem<'a> {
    Session {
        host: usize,
        row: &'a SessionRow,
    },
    /// A host whose last read failed, and why.
    Failed {
        host: usize,
        cause: &'a str,
    },
}

impl FleetItem<'_> {
    pub fn host(&self) -> usize {
        match self {
            FleetItem::Session { host, .. } | FleetItem::Failed { host, .. } => *host,
        }
    }
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
pub fn bindings(mode: Mode) -> impl Iterator<Item = &'static keymap::Binding> {
    keymap::for_mode(mode).filter(|b| b.hint.is_some())
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
                    totals: None,
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
            sort: SortKey::default(),
            filter: String::new(),
            filtering: false,
            detail: None,
            interval_ms: DEFAULT_INTERVAL_MS,
            now_ms,
            status: None,
            show_help: false,
            should_quit: false,
            this_exe,
        }
    }

    /// The keymap's mode now: typing into the filter, or the screen's.
    pub fn mode(&self) -> Mode {
        if self.filtering && self.screen == FleetScreen::Sessions {
            Mode::Filter
        } else {
            self.screen.mode()
        }
    }

    /// The Sessions screen's rows: a host whose last read failed is one row with its cause,
    /// first (what to fix before any session); then the sessions in the order of `sort`
    /// (ties in host order), those passing `filter` (a row's own fields, or its host's name).
    pub fn sessions(&self) -> Vec<FleetItem<'_>> {
        let needle = self.filter.to_lowercase();
        let shown = |i: usize| self.host_filter.is_none_or(|f| f == i);
        let host_matches = |i: usize| {
            !needle.is_empty() && self.hosts[i].spec.name.to_lowercase().contains(&needle)
        };
        let mut v: Vec<FleetItem<'_>> = self
            .hosts
            .iter()
            .enumerate()
            .filter(|(i, h)| shown(*i) && h.reachable() == Some(false))
            .filter_map(|(i, h)| {
                let cause = h.error.as_deref()?;
                (needle.is_empty() || host_matches(i) || cause.to_lowercase().contains(&needle))
                    .then_some(FleetItem::Failed { host: i, cause })
            })
            .collect();
        let mut rows: Vec<(usize, &SessionRow)> = self
            .hosts
            .iter()
            .enumerate()
            .filter(|(i, _)| shown(*i))
            .flat_map(|(i, h)| h.rows.iter().map(move |r| (i, r)))
            .filter(|(i, r)| host_matches(*i) || crate::tui::model::state::row_matches(r, &needle))
            .collect();
        let sort = self.sort;
        rows.sort_by(|(i, a), (j, b)| sort.compare(a, b).then(i.cmp(j)));
        v.extend(
            rows.into_iter()
                .map(|(host, row)| FleetItem::Session { host, row }),
        );
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
