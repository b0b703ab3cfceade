//! `clawtop check`: the problems of a [`ListReport`] (the same rows `list` prints), graded
//! warning or critical by the operator's sets, as a monitoring plugin reports them.
//!
//! Exit codes follow the Nagios plugin convention (also used by Icinga, Sensu, Zabbix
//! agents): 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (the host could not be read). One line per
//! problem on stdout, worst first; with no problem, one `OK` line.

use super::SessionRow;
use super::list::ListReport;
use super::text::compact_number;
use crate::commit::LockStatus;
use crate::thresholds::{Status, UsedSource};

pub const OK: i32 = 0;
pub const WARNING: i32 = 1;
pub const CRITICAL: i32 = 2;
pub const UNKNOWN: i32 = 3;

/// What can be wrong with a session; the names are what `--warn` and `--crit` accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Problem {
    /// Used ≥ the model window, by a figure from the last run: compaction did not bring the
    /// context back and the next turn overflows.
    Stuck,
    /// Used ≥ the model window.
    Over,
    /// Past the compaction line.
    CompactDue,
    /// Past the flush line and not flushed this compaction cycle.
    FlushDue,
    /// The transcript lock is held by a live process (a turn or a commit is running).
    Busy,
    /// A transcript lock whose holder is dead or older than OpenClaw's 30 min staleMs.
    BusyStaleLock,
    /// The store names a transcript that is not there.
    NoTranscript,
    /// No usable token figure at all.
    Unknown,
}

pub const ALL: [Problem; 8] = [
    Problem::Stuck,
    Problem::Over,
    Problem::CompactDue,
    Problem::FlushDue,
    Problem::Busy,
    Problem::BusyStaleLock,
    Problem::NoTranscript,
    Problem::Unknown,
];

impl Problem {
    pub fn name(self) -> &'static str {
        match self {
            Problem::Stuck => "stuck",
            Problem::Over => "over",
            Problem::CompactDue => "compact-due",
            Problem::FlushDue => "flush-due",
            Problem::Busy => "busy",
            Problem::BusyStaleLock => "busy-stale-lock",
            Problem::NoTranscript => "no-transcript",
            Problem::Unknown => "unknown",
        }
    }

    pub fn parse(s: &str) -> Result<Problem, String> {
        ALL.iter().copied().find(|p| p.name() == s).ok_or_else(|| {
            let names: Vec<&str> = ALL.iter().map(|p| p.name()).collect();
            format!("unknown problem {s:?}; one of {}", names.join(", "))
        })
    }
}

pub const DEFAULT_WARN: [Problem; 2] = [Problem::FlushDue, Problem::CompactDue];
pub const DEFAULT_CRIT: [Problem; 3] = [Problem::Over, Problem::Stuck, Problem::BusyStaleLock];

/// The problems of one row (`lock`: what the source says about its write lock).
pub fn problems(s: &SessionRow, lock: Option<&LockStatus>) -> Vec<Problem> {
    let mut p = Vec::new();
    match s.status {
        Status::Over => {
            p.push(Problem::Over);
            if s.used_source == UsedSource::Fresh {
                p.push(Problem::Stuck);
            }
        }
        Status::CompactDue => p.push(Problem::CompactDue),
        Status::FlushDue => p.push(Problem::FlushDue),
        Status::Unknown => p.push(Problem::Unknown),
        Status::Ok | Status::Flushed => {}
    }
    match lock {
        Some(LockStatus::Held(_)) => p.push(Problem::Busy),
        Some(LockStatus::Stale(..)) => p.push(Problem::BusyStaleLock),
        _ => {}
    }
    if s.transcript.is_none() {
        p.push(Problem::NoTranscript);
    }
    p
}

/// The report: lines (worst first) and the exit code.
pub fn run(
    r: &ListReport,
    locks: &[Option<LockStatus>],
    warn: &[Problem],
    crit: &[Problem],
) -> (String, i32) {
    // What could not be read comes first and is never skipped silently.
    let mut unread = String::new();
    for e in r.errors.iter().chain(&r.skipped) {
        unread.push_str(&format!("UNKNOWN: {}\n", crate::sanitize::one_line(e)));
    }
    let mut lines: Vec<(i32, String)> = Vec::new();
    for (i, s) in r.sessions.iter().enumerate() {
        for p in problems(s, locks.get(i).and_then(Option::as_ref)) {
            let level = if crit.contains(&p) {
                CRITICAL
            } else if warn.contains(&p) {
                WARNING
            } else {
                continue;
            };
            lines.push((level, line(level, p, s)));
        }
    }
    // Worst first; within a level the order of `list`.
    lines.sort_by_key(|(l, _)| std::cmp::Reverse(*l));
    let code = lines.first().map_or(OK, |(l, _)| *l);
    if !unread.is_empty() {
        // A part of the host could not be read: UNKNOWN, unless what was read is CRITICAL
        // already (the worse news for the operator paged).
        let out: String = unread + &lines.into_iter().map(|(_, l)| l + "\n").collect::<String>();
        return (out, if code == CRITICAL { CRITICAL } else { UNKNOWN });
    }
    if lines.is_empty() {
        return (
            format!(
                "OK: {} sessions in {}, no problem\n",
                r.sessions.len(),
                crate::sanitize::one_line(&r.state_dir)
            ),
            OK,
        );
    }
    let out: String = lines.into_iter().map(|(_, l)| l + "\n").collect();
    (out, code)
}

fn line(level: i32, p: Problem, s: &SessionRow) -> String {
    let tag = if level == CRITICAL {
        "CRITICAL"
    } else {
        "WARNING"
    };
    let key = crate::sanitize::one_line(s.session_key.as_deref().unwrap_or("-"));
    let used = s.used.map_or("?".into(), compact_number);
    let detail = match p {
        Problem::Stuck => format!(
            "{used}/{} used after the last run; compaction did not bring it under the window",
            compact_number(s.window)
        ),
        Problem::Over => format!("{used}/{} used, over the window", compact_number(s.window)),
        Problem::CompactDue => format!(
            "{used} used, compaction line {}",
            compact_number(s.compact_at)
        ),
        Problem::FlushDue => format!(
            "{used} used, flush line {}",
            s.flush_at.map_or("-".into(), compact_number)
        ),
        Problem::Busy => "transcript lock held by a live process".into(),
        Problem::BusyStaleLock => s
            .stale_lock
            .clone()
            .unwrap_or_else(|| "stale transcript lock".into()),
        Problem::NoTranscript => "transcript not found".into(),
        Problem::Unknown => "no token figure".into(),
    };
    format!("{tag} {} {key}: {detail}", p.name())
}
