//! What can be wrong with a session, as `check` grades it and every row of the session list
//! carries it ([`crate::usecase::list::SessionRow::problems`]): the names are what
//! `check --warn` and `--crit` accept, and what a remote host's `list --json` says, so a fleet
//! grades a host read over ssh exactly as `check` on that host does.

use serde::{Deserialize, Serialize};

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
    /// The session spent more in the last hour than `--max-cost-per-hour` (opt-in: graded
    /// by `check` from the row's cost, never a finding of the row itself).
    Burn,
}

pub const ALL: [Problem; 12] = [
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
    Problem::Burn,
];

/// What `check` warns about when the operator names nothing.
pub const DEFAULT_WARN: [Problem; 5] = [
    Problem::FlushDue,
    Problem::CompactDue,
    Problem::CompactionLoop,
    Problem::NoFlushBeforeCompaction,
    Problem::LossyCompaction,
];

/// What `check` calls critical when the operator names nothing.
pub const DEFAULT_CRIT: [Problem; 3] = [Problem::Over, Problem::Stuck, Problem::BusyStaleLock];

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
            Problem::Burn => "burn",
        }
    }

    pub fn parse(s: &str) -> Result<Problem, String> {
        ALL.iter().copied().find(|p| p.name() == s).ok_or_else(|| {
            let names: Vec<&str> = ALL.iter().map(|p| p.name()).collect();
            format!("unknown problem {s:?}; one of {}", names.join(", "))
        })
    }

    /// How `check` grades it with the default sets: `critical`, `warning`, or `info` (graded
    /// only when the operator names it).
    pub fn default_severity(self) -> &'static str {
        if DEFAULT_CRIT.contains(&self) {
            "critical"
        } else if DEFAULT_WARN.contains(&self) {
            "warning"
        } else {
            "info"
        }
    }
}

/// One problem of one session, in the words `check` prints after `KEY: `.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// [`Problem::name`]; a code this build does not know (a newer host's) is carried, never
    /// graded.
    pub code: String,
    /// [`Problem::default_severity`].
    #[serde(default)]
    pub severity: String,
    #[serde(default)]
    pub text: String,
}

impl Finding {
    pub fn new(p: Problem, text: impl Into<String>) -> Finding {
        Finding {
            code: p.name().to_string(),
            severity: p.default_severity().to_string(),
            text: text.into(),
        }
    }

    /// The problem, when this build knows its code.
    pub fn problem(&self) -> Option<Problem> {
        Problem::parse(&self.code).ok()
    }
}
