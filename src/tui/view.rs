//! View-model of the Sessions screen (`view`: "model" in clawtop means the LLM): one
//! [`SessionRow`] per session, carrying the numbers the domain computed (`crate::numbers`,
//! `crate::thresholds`) with their sources; the TUI computes none of its own. Rows come from a
//! [`SessionLoader`], so tests and the demo can construct them.

use std::path::PathBuf;
use std::sync::Arc;

/// The TUI shows the domain's own provenance and status (docs/numbers.md §2, §5).
pub use crate::thresholds::{Status, UsedSource as Provenance};

/// One-cell marker drawn next to the used figure.
pub fn provenance_marker(p: Provenance) -> &'static str {
    match p {
        Provenance::Fresh => "●",
        Provenance::Legacy => "○",
        Provenance::Transcript => "~",
        Provenance::Estimated => "≈",
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
    /// The transcript's write lock as the source saw it at load time (None: none, or the
    /// source cannot tell).
    pub lock: Option<crate::commit::LockStatus>,
    /// Why the store's figures are behind the transcript (its `updatedAt` is older than the
    /// transcript's last entry: a turn ran and OpenClaw has not recorded its tokens yet);
    /// None when they are not, or clawtop cannot tell.
    pub stale: Option<String>,
    /// Inputs the source cannot read, with why (the figures derived from them are unknown).
    pub unknown: Vec<(&'static str, String)>,
    /// The store's `totalTokens` where it is not the figure used (shown beside it).
    pub store_used: Option<u64>,
    pub used_check: crate::used::UsedCheck,
    pub used_check_reason: String,
    /// Tokens per turn and turns to each line (the list's forecast); None when not computed.
    pub forecast: Option<crate::history::Forecast>,
    /// The context of the last turns, oldest first (the Sessions list's trend column).
    pub recent: Vec<u64>,
}

impl SessionRow {
    /// Takes the numeric part of `n` (the domain's figures for this session), keeping who
    /// and where the row is.
    pub fn set_numbers(&mut self, n: SessionRow) {
        self.used = n.used;
        self.used_source = n.used_source;
        self.window = n.window;
        self.reserve = n.reserve;
        self.compact_at = n.compact_at;
        self.flush_at = n.flush_at;
        self.compaction_count = n.compaction_count;
        self.memory_flush_at = n.memory_flush_at;
        self.memory_flush_compaction_count = n.memory_flush_compaction_count;
        self.flushed_this_cycle = n.flushed_this_cycle;
        self.status = n.status;
        self.flush_reason = n.flush_reason;
        self.sources = n.sources;
        self.unknown = n.unknown;
        self.store_used = n.store_used;
        self.used_check = n.used_check;
        self.used_check_reason = n.used_check_reason;
    }

    /// A row whose numbers the domain computes from `window`, `used` and the session's
    /// counters with every setting at its default: the demo rows and rows built in tests
    /// explain themselves exactly like rows read from a store.
    pub fn with_counters(
        agent_id: &str,
        session_key: &str,
        window: u64,
        used: Option<u64>,
        used_source: Provenance,
        counters: &crate::thresholds::Counters,
    ) -> SessionRow {
        let settings = crate::thresholds::Settings::from_config(&serde_json::Value::Null);
        let window = crate::thresholds::Window {
            tokens: window,
            source: crate::thresholds::Source::Entry,
            detail: "entry contextTokens".into(),
        };
        let used = match used {
            Some(u) => (Some(u), used_source),
            None => (None, Provenance::Unknown),
        };
        let t = crate::thresholds::compute(window, used, &settings, counters);
        SessionRow {
            agent_id: agent_id.into(),
            session_key: session_key.into(),
            keep_recent_tokens: settings.keep_recent_tokens.value,
            ..crate::tui::store_adapter::numbers_row(&t)
        }
    }

    /// used / window as a fraction; None when unknown.
    /// Signed tokens to the next line that matters, and its name: negative while below it
    /// (`−1.2k to flush`), zero or positive once past (`+3.4k over compact`).
    pub fn headroom(&self) -> Option<(i64, &'static str)> {
        let used = self.used? as i64;
        let (line, name) = match self.status {
            Status::Over => (self.window, "window"),
            Status::CompactDue | Status::FlushDue | Status::Flushed => (self.compact_at, "compact"),
            Status::Ok => match self.flush_at {
                Some(f) => (f, "flush"),
                None => (self.compact_at, "compact"),
            },
            Status::Unknown => return None,
        };
        Some((used - line as i64, name))
    }

    /// What must be acted on first sorts first: over, compact-due, flush-due, the rest, and
    /// sessions without a figure last; within a rank the nearest to (or furthest past) its
    /// next line first.
    pub fn urgency(&self) -> (u8, i64) {
        let rank = match self.status {
            Status::Over => 0,
            Status::CompactDue => 1,
            Status::FlushDue => 2,
            Status::Ok | Status::Flushed => 3,
            Status::Unknown => 4,
        };
        (rank, -self.headroom().map_or(i64::MIN + 1, |(h, _)| h))
    }

    pub fn fill(&self) -> Option<f64> {
        let used = self.used?;
        if self.window == 0 {
            return None;
        }
        Some(used as f64 / self.window as f64)
    }
}

pub use crate::thresholds::thousands;

/// What a loader returns.
#[derive(Debug, Clone, Default)]
pub struct SessionsSnapshot {
    pub rows: Vec<SessionRow>,
    /// What could not be read (also among `warnings`); with no rows, the load failed.
    pub errors: Vec<String>,
    /// Files whose change means "reload" (the `sessions.json` files and the transcripts).
    pub watch: Vec<PathBuf>,
    /// How the loader found watched files before it read them (the poller's baseline; see
    /// [`crate::tui::watch`]). Files without a stamp are taken as they are at the first poll.
    pub stamps: Vec<(PathBuf, Option<crate::tui::watch::FileStamp>)>,
    /// Shown in the title (e.g. the state dir).
    pub label: String,
    /// Non-fatal problems (era B detected, unreadable agent dir, ...).
    pub warnings: Vec<String>,
    /// The port of a gateway likely running on this file-backed host
    /// ([`crate::source::Listing::running_gateway`]).
    pub running_gateway: Option<u16>,
}

/// The data-source seam: reads the store and returns rows. Runs off the render path
/// (`spawn_blocking`), so it may do disk I/O.
pub type SessionLoader = Arc<dyn Fn() -> Result<SessionsSnapshot, ReloadError> + Send + Sync>;

/// Reads the row of the one session the TUI was launched on, without the rest of the host
/// (None when the source cannot): the Session screen opens on it while the whole list loads.
pub type NamedLoader = Arc<dyn Fn() -> Option<SessionsSnapshot> + Send + Sync>;

/// Why a reload of the sessions gave no rows (the screen keeps the rows it had).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReloadError {
    /// The source listed nothing and said why: one line per store it could not read.
    #[error("{}", .0.join("; "))]
    Unreadable(Vec<String>),
    /// The loader panicked (caught: the UI stays up).
    #[error("the session loader panicked")]
    Panicked,
}

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
        let counters = crate::thresholds::Counters {
            compaction_count: Some(cc),
            memory_flush_compaction_count: flushed,
            ..Default::default()
        };
        let mut r = SessionRow::with_counters(agent, key, window, used, prov, &counters);
        r.session_id = format!("demo-{agent}-{cc}");
        r.model = Some(model.into());
        r.updated_at_ms = Some(now_ms - age_s * 1000);
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
            Provenance::Transcript,
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
    use crate::thresholds::Counters;

    #[test]
    fn rows_built_here_carry_the_domains_numbers() {
        let r = |used, cc, flushed| {
            let c = Counters {
                compaction_count: Some(cc),
                memory_flush_compaction_count: flushed,
                ..Default::default()
            };
            SessionRow::with_counters("a", "k", 200_000, used, Provenance::Fresh, &c)
        };
        assert_eq!(r(Some(10), 0, None).status, Status::Ok);
        assert_eq!(r(Some(176_000), 2, Some(1)).status, Status::FlushDue);
        assert_eq!(r(Some(176_000), 2, Some(2)).status, Status::Flushed);
        assert_eq!(r(Some(180_000), 2, Some(2)).status, Status::CompactDue);
        assert_eq!(r(Some(200_000), 0, None).status, Status::Over);
        assert_eq!(r(None, 0, None).status, Status::Unknown);
        assert_eq!(r(None, 0, None).used_source, Provenance::Unknown);
        // compactionCount absent counts as 0 for "flushed this cycle".
        let c = Counters {
            memory_flush_compaction_count: Some(0),
            ..Default::default()
        };
        let x = SessionRow::with_counters("a", "k", 200_000, Some(176_000), Provenance::Fresh, &c);
        assert!(x.flushed_this_cycle);
        // The reason is the domain's wording, the same as for a store row.
        assert!(
            r(Some(176_000), 2, Some(1))
                .flush_reason
                .starts_with("flush due: 176,000 used ≥ flush line 176,000")
        );
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
