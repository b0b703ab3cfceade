//! View-model of the Sessions screen (`view`: "model" in clawtop means the LLM): one
//! [`SessionRow`] per session, carrying the numbers the domain computed (`crate::numbers`,
//! `crate::thresholds`) with their sources; the TUI computes none of its own. Rows come from a
//! [`SessionLoader`], so tests and the demo can construct them.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

/// The TUI shows the domain's own provenance and status (docs/numbers.md §2, §5).
pub use crate::thresholds::{Status, UsedSource as Provenance};

/// One-cell marker drawn next to the used figure.
pub fn provenance_marker(p: Provenance) -> &'static str {
    crate::report::marks::used(p)
}

/// Where each number came from, in words ([`crate::usecase::list::NumberSources`]).
pub use crate::usecase::list::NumberSources;

/// One session of the Sessions screen: the session list's row ([`crate::usecase::list`], the
/// one every surface renders) paired with the session it names. Strings in the row are raw
/// (from the store); the draw code sanitizes them. Reads and writes of the row's fields go
/// through to it (`row.used`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionRow {
    pub list: crate::usecase::list::SessionRow,
    /// The session this row shows and its source (None: built-in demo rows, no source).
    pub session: Option<crate::source::SessionHandle>,
}

impl std::ops::Deref for SessionRow {
    type Target = crate::usecase::list::SessionRow;
    fn deref(&self) -> &Self::Target {
        &self.list
    }
}

impl std::ops::DerefMut for SessionRow {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.list
    }
}

impl SessionRow {
    pub fn new(
        list: crate::usecase::list::SessionRow,
        session: Option<crate::source::SessionHandle>,
    ) -> SessionRow {
        SessionRow { list, session }
    }

    /// Takes the numeric part of `n` (the domain's figures for this session, decided again
    /// with the transcript the Session screen opened), keeping who and where the row is and
    /// what the list found beside the numbers.
    pub fn set_numbers(&mut self, n: crate::usecase::list::SessionRow) {
        let r = &mut self.list;
        r.used = n.used;
        r.used_source = n.used_source;
        r.window = n.window;
        r.window_source = n.window_source;
        r.reserve = n.reserve;
        r.compact_at = n.compact_at;
        r.flush_at = n.flush_at;
        r.compaction_count = n.compaction_count;
        r.memory_flush_at = n.memory_flush_at;
        r.memory_flush_compaction_count = n.memory_flush_compaction_count;
        r.flushed_this_cycle = n.flushed_this_cycle;
        r.status = n.status;
        r.flush_reason = n.flush_reason;
        r.sources = n.sources;
        r.unknown = n.unknown;
        r.store_used = n.store_used;
        r.used_check = n.used_check;
        r.used_check_reason = n.used_check_reason;
        r.transcript_context = n.transcript_context;
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
        let mut list = crate::usecase::list::SessionRow::numbers(&t);
        list.agent_id = Some(agent_id.into());
        list.session_key = Some(session_key.into());
        list.keep_recent_tokens = settings.keep_recent_tokens.value;
        list.problems = crate::usecase::list::findings(&list, &[]);
        SessionRow::new(list, None)
    }
}

pub use crate::format::thousands;

/// What a loader returns.
#[derive(Debug, Clone, Default)]
pub struct SessionsSnapshot {
    pub rows: Vec<SessionRow>,
    /// What could not be read (also among `warnings`); with no rows, the load failed.
    pub errors: Vec<String>,
    /// Files whose change means "reload" (the `sessions.json` files and the transcripts).
    pub watch: Vec<PathBuf>,
    /// How the loader found watched files before it read them (the poller's baseline; see
    /// [`crate::tui::runtime::watch`]). Files without a stamp are taken as they are at the
    /// first poll.
    pub stamps: Vec<(PathBuf, Option<FileStamp>)>,
    /// Shown in the title (e.g. the state dir).
    pub label: String,
    /// Non-fatal problems (era B detected, unreadable agent dir, ...).
    pub warnings: Vec<String>,
    /// The port of a gateway likely running on this file-backed host
    /// ([`crate::source::Listing::running_gateway`]).
    pub running_gateway: Option<u16>,
    /// `rows` are only the sessions that changed since the last snapshot, each replacing the
    /// row of its session; the other rows, the watched files and the notices stay
    /// ([`crate::usecase::list::changed_kept`]).
    pub patch: bool,
}

/// Size and modification time of a file (None: it does not exist or cannot be read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub len: u64,
    pub modified: Option<SystemTime>,
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
        r.session_id = Some(format!("demo-{agent}-{cc}"));
        r.model = Some(model.into());
        r.updated_at = Some(now_ms - age_s * 1000);
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
