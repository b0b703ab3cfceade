//! View-model of the Sessions screen: one [`SessionRow`] per session, already resolved to the
//! numbers (docs/numbers.md) with their sources. The TUI never reads the store itself; a
//! [`SessionLoader`] (the seam) hands it rows, so tests and the demo can construct them.

use std::path::PathBuf;
use std::sync::Arc;

/// The TUI shows the domain's own provenance and status (docs/numbers.md §2, §5).
pub use crate::thresholds::{Status, UsedSource as Provenance};

/// One-cell marker drawn next to the used figure.
pub fn provenance_marker(p: Provenance) -> &'static str {
    match p {
        Provenance::Fresh => "●",
        Provenance::Legacy => "○",
        Provenance::Estimated => "~",
        Provenance::Unknown => "?",
    }
}

/// Where each number came from, in words an operator can check ("entry contextTokens",
/// "config agents.defaults.compaction.reserveTokensFloor", "default 200000", ...).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NumberSources {
    pub used: String,
    pub window: String,
    pub reserve: String,
    pub compact_at: String,
    pub flush_at: String,
}

/// One session as the TUI shows it. Strings here are raw (from the store); the draw code
/// sanitizes them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionRow {
    pub agent_id: String,
    pub session_key: String,
    pub session_id: String,
    pub model: Option<String>,
    pub updated_at_ms: Option<i64>,
    pub used: Option<u64>,
    pub used_source: Provenance,
    pub window: u64,
    pub reserve: u64,
    pub compact_at: u64,
    /// None when `memoryFlush.enabled` is false.
    pub flush_at: Option<u64>,
    pub compaction_count: Option<u64>,
    pub memory_flush_at: Option<i64>,
    pub memory_flush_compaction_count: Option<u64>,
    pub flushed_this_cycle: bool,
    pub status: Status,
    /// Plain-words reason for the flush/compaction state.
    pub flush_reason: String,
    /// The session this row shows and its source (None: built-in demo rows, no source).
    pub session: Option<crate::source::SessionHandle>,
    /// Where its transcript is, for display; None when it has none.
    pub transcript: Option<String>,
    pub sources: NumberSources,
    /// `compaction.keepRecentTokens` for the "next cut" marker (0 means the default 20000).
    pub keep_recent_tokens: u64,
    /// Raw `modelProvider` and `model` of the entry (endpoint resolution, docs/models.md).
    pub model_provider: Option<String>,
    pub model_id: Option<String>,
}

/// OpenClaw defaults (docs/numbers.md §3), used for bare files and for rows built in tests.
pub const DEFAULT_WINDOW: u64 = 200_000;
pub const DEFAULT_RESERVE_TOKENS: u64 = 16_384;
pub const DEFAULT_RESERVE_FLOOR: u64 = 20_000;
pub const DEFAULT_SOFT_THRESHOLD: u64 = 4_000;

impl SessionRow {
    /// A row with default thresholds for `window` (reserve = max(16384, floor 20000), flush line
    /// = window − 20000 − 4000), status and reason derived. Sources say "default".
    pub fn with_defaults(
        agent_id: &str,
        session_key: &str,
        window: u64,
        used: Option<u64>,
        used_source: Provenance,
    ) -> SessionRow {
        let reserve = DEFAULT_RESERVE_TOKENS.max(DEFAULT_RESERVE_FLOOR);
        let mut row = SessionRow {
            agent_id: agent_id.into(),
            session_key: session_key.into(),
            window,
            used,
            used_source: if used.is_some() {
                used_source
            } else {
                Provenance::Unknown
            },
            reserve,
            compact_at: window.saturating_sub(reserve),
            flush_at: Some(
                window
                    .saturating_sub(DEFAULT_RESERVE_FLOOR)
                    .saturating_sub(DEFAULT_SOFT_THRESHOLD),
            ),
            sources: NumberSources {
                used: match used_source {
                    Provenance::Fresh => "entry totalTokens (totalTokensFresh: true)".into(),
                    Provenance::Legacy => "entry totalTokens (no freshness flag)".into(),
                    Provenance::Estimated => {
                        "transcript estimate (last usage + later messages)".into()
                    }
                    Provenance::Unknown => {
                        "no fresh totalTokens, no usable transcript usage".into()
                    }
                },
                window: if window == DEFAULT_WINDOW {
                    "default 200000".into()
                } else {
                    "entry contextTokens".into()
                },
                reserve: "default max(reserveTokens 16384, reserveTokensFloor 20000)".into(),
                compact_at: "window − reserve".into(),
                flush_at: "window − reserveTokensFloor 20000 − softThresholdTokens 4000 (defaults)"
                    .into(),
            },
            keep_recent_tokens: crate::plan::DEFAULT_KEEP_RECENT_TOKENS,
            ..SessionRow::default()
        };
        row.derive();
        row
    }

    /// Recomputes `flushed_this_cycle`, `status` and `flush_reason` from the numbers.
    pub fn derive(&mut self) {
        self.flushed_this_cycle = self.memory_flush_compaction_count.is_some()
            && self.memory_flush_compaction_count == Some(self.compaction_count.unwrap_or(0));
        self.status = status_of(
            self.used,
            self.window,
            self.compact_at,
            self.flush_at,
            self.flushed_this_cycle,
        );
        self.flush_reason = reason(self);
    }

    /// used / window as a fraction; None when unknown.
    pub fn fill(&self) -> Option<f64> {
        let used = self.used?;
        if self.window == 0 {
            return None;
        }
        Some(used as f64 / self.window as f64)
    }
}

/// Status from the numbers (docs/numbers.md §5).
pub fn status_of(
    used: Option<u64>,
    window: u64,
    compact_at: u64,
    flush_at: Option<u64>,
    flushed: bool,
) -> Status {
    let Some(used) = used else {
        return Status::Unknown;
    };
    if used >= window {
        Status::Over
    } else if used >= compact_at {
        Status::CompactDue
    } else if flush_at.is_some_and(|f| used >= f) {
        if flushed {
            Status::Flushed
        } else {
            Status::FlushDue
        }
    } else {
        Status::Ok
    }
}

pub use crate::thresholds::thousands;

fn cycle(row: &SessionRow) -> String {
    format!("compaction cycle {}", row.compaction_count.unwrap_or(0))
}

fn reason(row: &SessionRow) -> String {
    let Some(used) = row.used else {
        return "No token count: the store has no fresh totalTokens and the transcript has no usable assistant usage, so clawtop cannot tell whether a flush is due.".into();
    };
    let pct = if row.window > 0 {
        used as f64 * 100.0 / row.window as f64
    } else {
        0.0
    };
    let flush = match row.flush_at {
        None => "Memory flush is disabled in config.".to_string(),
        Some(_) if row.flushed_this_cycle => {
            format!("Memory was already flushed in {}.", cycle(row))
        }
        Some(f) if used >= f => format!("No memory flush yet in {}.", cycle(row)),
        Some(f) => format!("Flush line {} not reached.", thousands(f)),
    };
    match row.status {
        Status::Over => format!(
            "Used {} is over the {} window ({pct:.0} %): compaction is overdue. {flush}",
            thousands(used),
            thousands(row.window)
        ),
        Status::CompactDue => format!(
            "Used {} ≥ compaction line {} (window − reserve {}): compaction runs before the next turn. {flush}",
            thousands(used),
            thousands(row.compact_at),
            thousands(row.reserve)
        ),
        Status::FlushDue => format!(
            "Used {} ≥ flush line {} and no memory flush yet in {}: a flush runs on the next turn.",
            thousands(used),
            thousands(row.flush_at.unwrap_or(0)),
            cycle(row)
        ),
        Status::Flushed => format!(
            "Used {} ≥ flush line {}, but memory was already flushed in {} (memoryFlushCompactionCount = {}): no second flush until the next compaction.",
            thousands(used),
            thousands(row.flush_at.unwrap_or(0)),
            cycle(row),
            row.memory_flush_compaction_count.unwrap_or(0)
        ),
        Status::Ok => match row.flush_at {
            Some(f) => format!(
                "Used {} is below the flush line {} ({} to go).",
                thousands(used),
                thousands(f),
                thousands(f - used)
            ),
            None => format!(
                "Used {} is below the compaction line {}; memory flush is disabled in config.",
                thousands(used),
                thousands(row.compact_at)
            ),
        },
        Status::Unknown => flush,
    }
}

/// What a loader returns.
#[derive(Debug, Clone, Default)]
pub struct SessionsSnapshot {
    pub rows: Vec<SessionRow>,
    /// Files whose change means "reload" (the `sessions.json` files).
    pub watch: Vec<PathBuf>,
    /// Shown in the title (e.g. the state dir).
    pub label: String,
    /// Non-fatal problems (era B detected, unreadable agent dir, ...).
    pub warnings: Vec<String>,
}

/// The data-source seam: reads the store and returns rows. Runs off the render path
/// (`spawn_blocking`), so it may do disk I/O.
pub type SessionLoader = Arc<dyn Fn() -> anyhow::Result<SessionsSnapshot> + Send + Sync>;

/// Fixed demo data (`--demo`): one row per status, clearly bannered as demo.
pub fn demo_rows(now_ms: i64) -> Vec<SessionRow> {
    let mk = |agent: &str,
              key: &str,
              model: &str,
              used: Option<u64>,
              prov: Provenance,
              window: u64,
              cc: u64,
              flushed: Option<u64>,
              age_s: i64| {
        let mut r = SessionRow::with_defaults(agent, key, window, used, prov);
        r.session_id = format!("demo-{agent}-{cc}");
        r.model = Some(model.into());
        r.updated_at_ms = Some(now_ms - age_s * 1000);
        r.compaction_count = Some(cc);
        r.memory_flush_compaction_count = flushed;
        r.derive();
        r
    };
    vec![
        mk(
            "main",
            "agent:main:main",
            "claude-sonnet-4-5",
            Some(41_200),
            Provenance::Fresh,
            200_000,
            0,
            None,
            42,
        ),
        mk(
            "main",
            "agent:main:telegram:direct:55512345",
            "claude-sonnet-4-5",
            Some(181_500),
            Provenance::Fresh,
            200_000,
            3,
            Some(2),
            310,
        ),
        mk(
            "ops",
            "agent:ops:discord:channel:1234567890123",
            "gpt-5.1",
            Some(178_000),
            Provenance::Legacy,
            200_000,
            5,
            None,
            3_600,
        ),
        mk(
            "ops",
            "agent:ops:cron:nightly-backup",
            "gpt-5.1",
            Some(177_100),
            Provenance::Estimated,
            200_000,
            7,
            Some(7),
            86_400,
        ),
        mk(
            "research",
            "agent:research:main",
            "qwen3-coder",
            Some(41_000),
            Provenance::Fresh,
            32_768,
            12,
            Some(11),
            5,
        ),
        mk(
            "research",
            "agent:research:subagent:7f3e",
            "qwen3-coder",
            None,
            Provenance::Unknown,
            128_000,
            0,
            None,
            600_000,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_and_reasons() {
        let r = |used, cc, flushed| {
            let mut r = SessionRow::with_defaults("a", "k", 200_000, used, Provenance::Fresh);
            r.compaction_count = Some(cc);
            r.memory_flush_compaction_count = flushed;
            r.derive();
            r
        };
        assert_eq!(r(Some(10), 0, None).status, Status::Ok);
        assert_eq!(r(Some(176_000), 2, Some(1)).status, Status::FlushDue);
        assert_eq!(r(Some(176_000), 2, Some(2)).status, Status::Flushed);
        assert_eq!(r(Some(180_000), 2, Some(2)).status, Status::CompactDue);
        assert_eq!(r(Some(200_000), 0, None).status, Status::Over);
        assert_eq!(r(None, 0, None).status, Status::Unknown);
        assert_eq!(r(None, 0, None).used_source, Provenance::Unknown);
        // compactionCount absent counts as 0 for "flushed this cycle".
        let mut x = r(Some(176_000), 0, Some(0));
        x.compaction_count = None;
        x.derive();
        assert!(x.flushed_this_cycle);
        assert!(
            r(Some(176_000), 2, Some(1))
                .flush_reason
                .contains("no memory flush yet in compaction cycle 2")
        );
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
