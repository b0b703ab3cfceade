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
    /// The last compaction left the context at or above the compaction line
    /// ([`crate::history`]).
    CompactionLoop,
    /// The last compaction's cycle had no memory flush while flush is enabled.
    NoFlushBeforeCompaction,

    /// The latest compaction lost identifiers or dropped messages unsummarized (`clawtop
    /// audit` says which).
    LossyCompaction,
}

pub const ALL: [Problem; 11] = [
    Problem::Stuck,
    Problem::Over,
    Problem::CompactDue,
    Problem::FlushDue,
    Problem::Busy,
    Problem::BusyStaleLock,
    Problem::NoTranscript,
    Problem::Unknown,
    Problem::CompactionLoop,
    Problem::NoFlushBeforeCompaction,
    Problem::LossyCompaction,
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
            Problem::CompactionLoop => "compaction-loop",
            Problem::NoFlushBeforeCompaction => "no-flush-before-compaction",
            Problem::LossyCompaction => "lossy-compaction",
        }
    }

    pub fn parse(s: &str) -> Result<Problem, String> {
        ALL.iter().copied().find(|p| p.name() == s).ok_or_else(|| {
            let names: Vec<&str> = ALL.iter().map(|p| p.name()).collect();
            format!("unknown problem {s:?}; one of {}", names.join(", "))
        })
    }
}

pub const DEFAULT_WARN: [Problem; 5] = [
    Problem::FlushDue,
    Problem::CompactDue,
    Problem::CompactionLoop,
    Problem::NoFlushBeforeCompaction,
    Problem::LossyCompaction,
];

/// Whether `p` needs the session's history (a transcript read), which `check` does only
/// when the operator's sets name it.
pub fn needs_history(p: Problem) -> bool {
    matches!(
        p,
        Problem::CompactionLoop | Problem::NoFlushBeforeCompaction
    )
}

/// The history problems of one session: its last compaction's warnings
/// ([`crate::history::History::about_last_compaction`]), each with its numbers in words.
pub fn history_problems(warnings: &[crate::history::HistoryWarning]) -> Vec<(Problem, String)> {
    use crate::history::code;
    warnings
        .iter()
        .filter_map(|w| match w.code {
            code::LOOP => Some((Problem::CompactionLoop, w.message.clone())),
            code::NO_FLUSH => Some((Problem::NoFlushBeforeCompaction, w.message.clone())),
            // Not graded by the sets: `run` reports it UNKNOWN, naming why.
            code::TRANSCRIPT_UNREAD => Some((Problem::Unknown, w.message.clone())),
            _ => None,
        })
        .collect()
}

/// The [`history_problems`] of each reference of `refs` (same order), read through the use case
/// ([`crate::usecase::history::check_problems`]) with the flush evidence of Gateway `logs`
/// (`check --log FILE`); also why a log could not be read.
pub fn history_checks(
    source: &dyn crate::source::SessionSource,
    agent: Option<&str>,
    refs: &[crate::source::SessionRef],
    logs: &[std::path::PathBuf],
) -> (Vec<Vec<(Problem, String)>>, Vec<String>) {
    let (warnings, unread) = crate::usecase::history::check_problems(source, agent, refs, logs);
    (
        warnings.iter().map(|w| history_problems(w)).collect(),
        unread,
    )
}

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

/// The report: lines (worst first) and the exit code. `histories`: per row (same order), the
/// [`history_problems`] when they were asked for; `losses`: what the latest compaction of each
/// row lost (empty when `lossy-compaction` was not asked for).
pub fn run(
    r: &ListReport,
    locks: &[Option<LockStatus>],
    histories: &[Vec<(Problem, String)>],
    losses: &[Option<crate::audit::Loss>],
    warn: &[Problem],
    crit: &[Problem],
) -> (String, i32) {
    // What could not be read comes first and is never skipped silently.
    let mut unread = String::new();
    for e in r.errors.iter().chain(&r.skipped) {
        unread.push_str(&format!("UNKNOWN: {}\n", crate::sanitize::one_line(e)));
    }
    // A session whose transcript could not be read has unknown figures, not good ones.
    for s in &r.sessions {
        if let Some(why) = s.unknown.get(crate::thresholds::TRANSCRIPT_UNREAD) {
            let key = crate::sanitize::one_line(s.session_key.as_deref().unwrap_or("-"));
            unread.push_str(&format!(
                "UNKNOWN: {key}: {}; its figures are unknown\n",
                crate::sanitize::one_line(why)
            ));
        }
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
        for (p, detail) in histories.get(i).into_iter().flatten() {
            if *p == Problem::Unknown {
                if !s.unknown.contains_key(crate::thresholds::TRANSCRIPT_UNREAD) {
                    let key = crate::sanitize::one_line(s.session_key.as_deref().unwrap_or("-"));
                    unread.push_str(&format!(
                        "UNKNOWN: {key}: {}; its history is unknown\n",
                        crate::sanitize::one_line(detail)
                    ));
                }
                continue;
            }
            let level = if crit.contains(p) {
                CRITICAL
            } else if warn.contains(p) {
                WARNING
            } else {
                continue;
            };
            let tag = if level == CRITICAL {
                "CRITICAL"
            } else {
                "WARNING"
            };
            let key = crate::sanitize::one_line(s.session_key.as_deref().unwrap_or("-"));
            lines.push((
                level,
                format!(
                    "{tag} {} {key}: {}",
                    p.name(),
                    crate::sanitize::one_line(detail)
                ),
            ));
        }
        if let Some(loss) = losses.get(i).and_then(Option::as_ref) {
            let asked = [warn, crit]
                .iter()
                .any(|set| set.contains(&Problem::LossyCompaction));
            if let Some(why) = loss.unknown.as_deref().filter(|_| asked) {
                let key = crate::sanitize::one_line(s.session_key.as_deref().unwrap_or("-"));
                unread.push_str(&format!(
                    "UNKNOWN: {key}: lossy-compaction: {}\n",
                    crate::sanitize::one_line(why)
                ));
            }
            if let Some(l) = lossy_line(loss, s, warn, crit) {
                lines.push(l);
            }
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
                "OK: {} in {}, no problem\n",
                match r.sessions.len() {
                    1 => "1 session".to_string(),
                    n => format!("{n} sessions"),
                },
                crate::sanitize::one_line(&r.state_dir)
            ),
            OK,
        );
    }
    let out: String = lines.into_iter().map(|(_, l)| l + "\n").collect();
    (out, code)
}

/// `lossy-compaction` for a row whose latest compaction lost something, when asked for.
fn lossy_line(
    loss: &crate::audit::Loss,
    s: &SessionRow,
    warn: &[Problem],
    crit: &[Problem],
) -> Option<(i32, String)> {
    let p = Problem::LossyCompaction;
    let (level, tag) = if crit.contains(&p) {
        (CRITICAL, "CRITICAL")
    } else if warn.contains(&p) {
        (WARNING, "WARNING")
    } else {
        return None;
    };
    if !loss.is_lossy() {
        return None;
    }
    let key = crate::sanitize::one_line(s.session_key.as_deref().unwrap_or("-"));
    let id = crate::sanitize::one_line(loss.entry_id.as_deref().unwrap_or("-"));
    let lost = loss
        .identifiers_lost
        .map_or("an unknown number of".into(), |n| n.to_string());
    Some((
        level,
        format!(
            "{tag} {} {key}: latest compaction {id} lost {lost} identifiers, dropped {} messages unsummarized",
            p.name(),
            loss.messages_dropped_unsummarized
        ),
    ))
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
        // Reported from the history with their own numbers (`history_problems`).
        Problem::CompactionLoop | Problem::NoFlushBeforeCompaction => {
            "see `clawtop history`".into()
        }
        // Worded by `lossy_line`, which has the audit.
        Problem::LossyCompaction => String::new(),
    };
    format!("{tag} {} {key}: {detail}", p.name())
}
