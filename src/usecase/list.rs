//! The session list: the one builder of a session's row. The TUI's Sessions screen, `list`
//! (text and JSON), `check`, `metrics` and the fleet all render the [`SessionRow`]s this
//! builds, so a figure or a problem is computed on one road and every surface tells the same
//! truth; a remote host's `list --json` is read back into the same type through serde
//! ([`crate::fleet`]), so a fleet grades a remote session with what its host computed.
//!
//! Each session's transcript is opened once, inside the source's consistent read
//! ([`SessionSource::read_together`]), and everything a row shows is taken from that one
//! read while it is open: `used` and the lines ([`Numbers`]), the forecast and the trend,
//! the history problems of its last compaction ([`crate::history`]) and what that
//! compaction lost ([`crate::audit`]). Then the transcript is dropped: a list holds one
//! transcript at a time, whatever the host's size.

use crate::audit::{self, HostFacts, Loss};
use crate::diagnosis::problem::{Finding, Problem};
use crate::history;
use crate::numbers::Numbers;
use crate::source::{Listing, Session, SessionRef, SessionSource, SourceKind, Watch};
use crate::thresholds::{self, Rules, Source, Status, Thresholds, UsedSource};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One session as every surface shows it; `list --json` prints it (key order is part of the
/// interface) and a fleet reads it back. Fields a remote did not send take their default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRow {
    #[serde(default)]
    pub agent_id: Option<String>,
    #[serde(default)]
    pub session_key: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub transcript: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub model_provider: Option<String>,
    /// Required when read back: a row without its window is not a session list's row.
    pub window: u64,
    #[serde(default)]
    pub window_source: Source,
    #[serde(default)]
    pub used: Option<u64>,
    #[serde(default)]
    pub used_source: UsedSource,
    #[serde(default)]
    pub reserve: u64,
    /// Required when read back, as `window`.
    pub compact_at: u64,
    #[serde(default)]
    pub flush_at: Option<u64>,
    #[serde(default)]
    pub compaction_count: Option<u64>,
    #[serde(default)]
    pub memory_flush_at: Option<i64>,
    #[serde(default)]
    pub memory_flush_compaction_count: Option<u64>,
    #[serde(default)]
    pub flushed_this_cycle: bool,
    #[serde(default)]
    pub status: Status,
    #[serde(default)]
    pub flush_reason: String,
    /// The transcript's view of the context now (null: no transcript was read).
    #[serde(default)]
    pub transcript_context: Option<crate::used::TranscriptContext>,
    /// The store's `totalTokens` against the transcript ([`crate::used`]).
    #[serde(default)]
    pub used_check: crate::used::UsedCheck,
    #[serde(default)]
    pub used_check_reason: String,
    /// A live OpenClaw turn holding `<transcript>.lock`, or null.
    #[serde(default)]
    pub busy: Option<crate::diagnosis::Busy>,
    /// A stale `<transcript>.lock` left behind, in words ([`crate::diagnosis::busy::stale_lock_words`]).
    #[serde(default)]
    pub stale_lock: Option<String>,
    /// The lock as the source saw it (None: free, or the source cannot tell). Not in JSON:
    /// `busy` and `staleLock` say it there.
    #[serde(skip)]
    pub lock: Option<crate::commit::LockStatus>,
    #[serde(default)]
    pub total_tokens: Option<Value>,
    #[serde(default)]
    pub total_tokens_fresh: Option<Value>,
    #[serde(default)]
    pub context_tokens: Option<Value>,
    #[serde(default)]
    pub updated_at: Option<i64>,
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Whose arithmetic made the numbers: `"2026.2"` (file-backed releases) or `"2026.9"`.
    #[serde(default)]
    pub rules: Rules,
    /// 2026.9 `memoryFlush.kind` of the last flush (`succeeded`, `failed`).
    #[serde(default)]
    pub memory_flush_kind: Option<String>,
    /// 2026.9 `totalTokensVersion` (1: `totalTokens` is the last call's prompt).
    #[serde(default)]
    pub total_tokens_version: Option<u64>,
    /// Where this session's data came from.
    #[serde(default)]
    pub data_source: Option<DataSource>,
    /// Figures the source cannot read (`compactionCount`, `memoryFlush`, `compactionSummary`)
    /// and why: their fields above are null because they are unknown, not zero.
    #[serde(default, skip_serializing_if = "crate::packed::empty_map")]
    pub unknown: BTreeMap<String, String>,
    /// Tokens per turn and turns left to each line (SPEC §3), from the transcript's tail.
    #[serde(default)]
    pub forecast: Option<crate::history::Forecast>,
    /// The store's `totalTokens` where it is not the figure used (shown beside it).
    #[serde(default)]
    pub store_used: Option<u64>,
    /// Why the store's figures are behind the transcript: its `updatedAt` is older than the
    /// transcript's last entry (a turn ran and OpenClaw has not recorded its tokens yet), or
    /// the store figure was found stale against the transcript. None when they are not, or
    /// clawtop cannot tell.
    #[serde(default)]
    pub stale: Option<String>,
    /// The context of the last [`TREND_TURNS`] measured turns, oldest first (the trend).
    #[serde(default)]
    pub recent_context: Vec<u64>,
    /// Where each number came from, in words an operator can check.
    #[serde(default)]
    pub sources: NumberSources,
    /// `compaction.keepRecentTokens` on this host (the "next cut" marker, the dialogs).
    #[serde(default)]
    pub keep_recent_tokens: u64,
    /// What the latest compaction lost ([`crate::audit`]); null without a compaction, or
    /// where summaries cannot be read.
    #[serde(default)]
    pub latest_compaction_loss: Option<Loss>,
    /// The problems `check` grades, each with its words (graded by the operator's sets).
    #[serde(default)]
    pub problems: Vec<Finding>,
    /// What the session spends (SPEC §10), from its transcript; null when none was read.
    #[serde(default)]
    pub cost: Option<crate::cost::SessionCost>,
}

/// Where each number came from, in words an operator can check ("entry contextTokens",
/// "config agents.defaults.compaction.reserveTokensFloor", "default 200000", ...).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NumberSources {
    pub used: String,
    pub window: String,
    pub reserve: String,
    pub compact_at: String,
    pub flush_at: String,
}

/// Where a session's entry and transcript were read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DataSource {
    /// `file`, `sqlite`, `gateway`, `transcript` (the source's kind).
    pub kind: String,
    /// The store entry: a `sessions.json` path, or `<database>#session_nodes/<key>`.
    pub entry: Option<String>,
    /// The transcript: a JSONL path, or `<database>#<sessionId>` (its `transcript_events` rows).
    pub transcript: Option<String>,
}

/// The key of [`SessionRow::unknown`] saying why a compacted session's history could not be
/// read (its transcript could not be opened for it): `check` says UNKNOWN for it.
pub const HISTORY_UNREAD: &str = "history";

/// Turns the trend (the Sessions screen's TREND column, `recentContext`) shows.
pub const TREND_TURNS: usize = 12;

impl SessionRow {
    /// The row's numbers from the domain's thresholds (identity fields empty): a listed
    /// session's, a bare transcript's, a demo row's.
    pub fn numbers(t: &Thresholds) -> SessionRow {
        SessionRow {
            window: t.window,
            window_source: t.window_source,
            used: t.used,
            used_source: t.used_source,
            reserve: t.reserve,
            compact_at: t.compact_at,
            flush_at: t.flush_at,
            compaction_count: t.compaction_count,
            memory_flush_at: t.memory_flush_at,
            memory_flush_compaction_count: t.memory_flush_compaction_count,
            flushed_this_cycle: t.flushed_this_cycle,
            status: t.status,
            flush_reason: t.flush_reason.clone(),
            transcript_context: t.transcript_context.clone(),
            used_check: t.used_check,
            used_check_reason: t.used_check_reason.clone(),
            store_used: t.store_used,
            rules: t.rules,
            memory_flush_kind: t.memory_flush_kind.clone(),
            total_tokens_version: t.total_tokens_version,
            unknown: t
                .unknown
                .iter()
                .map(|(f, why)| (f.to_string(), why.clone()))
                .collect(),
            sources: sources_in_words(t),
            ..SessionRow::default()
        }
    }

    /// A listed session's row: who and where it is, and its numbers.
    pub fn from_session(kind: SourceKind, s: &Session, t: &Thresholds) -> SessionRow {
        let e = &s.entry;
        let mut row = SessionRow {
            data_source: Some(DataSource {
                kind: kind.as_str().to_string(),
                entry: s.entry_from.clone(),
                transcript: s.transcript.clone(),
            }),
            agent_id: Some(s.agent_id().to_string()),
            session_key: Some(s.key().to_string()),
            session_id: Some(e.session_id.clone()),
            transcript: s.transcript.clone(),
            model: e.model.clone(),
            model_provider: e.model_provider.clone(),
            total_tokens: e.total_tokens_raw.clone(),
            total_tokens_fresh: e.total_tokens_fresh_raw.clone(),
            context_tokens: e.context_tokens_raw.clone(),
            updated_at: e.updated_at,
            ..Self::numbers(t)
        };
        if kind == SourceKind::Gateway {
            name_gateway_rows(&mut row.sources);
        }
        row
    }

    /// The session key ("" when a remote row had none).
    pub fn key(&self) -> &str {
        self.session_key.as_deref().unwrap_or("")
    }

    /// The agent id ("" when a remote row had none).
    pub fn agent(&self) -> &str {
        self.agent_id.as_deref().unwrap_or("")
    }

    /// The session id ("" when a remote row had none).
    pub fn id(&self) -> &str {
        self.session_id.as_deref().unwrap_or("")
    }

    /// The model as `provider/model` (the entry's `model` alone when it already names its
    /// provider).
    pub fn provider_model(&self) -> Option<String> {
        match (&self.model_provider, &self.model) {
            (Some(p), Some(m)) if !m.contains('/') => Some(format!("{p}/{m}")),
            (_, Some(m)) => Some(m.clone()),
            (Some(p), None) => Some(p.clone()),
            (None, None) => None,
        }
    }

    /// Signed tokens to the next line that matters, and its name: negative while below it
    /// (`−1.2k to flush`), zero or positive once past (`+3.4k over compact`).
    pub fn headroom(&self) -> Option<(i64, &'static str)> {
        let used = self.used?;
        let (line, name) = match self.status {
            Status::Over => (self.window, "window"),
            Status::CompactDue | Status::FlushDue | Status::Flushed => (self.compact_at, "compact"),
            Status::Ok => match self.flush_at {
                Some(f) => (f, "flush"),
                None => (self.compact_at, "compact"),
            },
            Status::Unknown => return None,
        };
        Some((-crate::thresholds::room(used, line), name))
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

    /// used / window as a fraction; None when unknown.
    pub fn fill(&self) -> Option<f64> {
        let used = self.used?;
        if self.window == 0 {
            return None;
        }
        Some(used as f64 / self.window as f64)
    }

    /// The problems of this row that this build knows, in the row's order.
    pub fn known_problems(&self) -> impl Iterator<Item = (Problem, &Finding)> {
        self.problems
            .iter()
            .filter_map(|f| f.problem().map(|p| (p, f)))
    }
}

/// Each number's source in words (the Session screen's "why" column, `sources` in JSON).
fn sources_in_words(t: &Thresholds) -> NumberSources {
    let src = |s: Source| match s {
        Source::Entry => "store entry",
        Source::Config => "config",
        Source::ModelCatalog => "model catalog",
        Source::Flag => "flag",
        Source::Default => "default",
    };
    NumberSources {
        used: crate::used::describe(t),
        window: format!("{} [{}]", t.window_detail, src(t.window_source)),
        reserve: thresholds::explain_reserve(t.rules, t.window, t.reserve_tokens, t.reserve_floor),
        compact_at: "window − reserve".into(),
        flush_at: thresholds::explain_flush_line(
            t.rules,
            t.flush_at,
            t.reserve_floor,
            t.soft_threshold,
            t.flush_enabled,
            t.unknown("flushAt"),
        ),
    }
}

/// A gateway's sessions are its `sessions.list` rows: clawtop reads no store there, so the
/// figures' source is named the gateway's row.
pub fn name_gateway_rows(n: &mut NumberSources) {
    for text in [&mut n.used, &mut n.window, &mut n.reserve, &mut n.flush_at] {
        *text = text.replace("store entry", "gateway row");
    }
}

/// Every session of a host (or of one agent), as `list` prints it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListReport {
    #[serde(default)]
    pub state_dir: String,
    #[serde(default)]
    pub era: String,
    pub sessions: Vec<SessionRow>,
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Stores (or gateway logs) that could not be read: `list` exits 1 when there are any,
    /// `check` says UNKNOWN.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Entries or rows that could not be read, each with why (also among `warnings`):
    /// `check` says UNKNOWN for them, never a silent skip.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// Why the whole source cannot be read (`check` says UNKNOWN), if it cannot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
    /// The host's spend (SPEC §10): today, $/h, top sessions, by kind of key, archives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub totals: Option<crate::cost::host::HostTotals>,
    /// The reference of each row of `sessions` (same order), to ask the source more. Empty
    /// for a report read back from another host.
    #[serde(skip)]
    pub refs: Vec<SessionRef>,
}

/// What a list reads beyond the host itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// One agent's sessions only.
    pub agent: Option<&'a str>,
    /// Gateway log files whose flushes count as the host's (`check --log FILE`).
    pub logs: &'a [PathBuf],
    /// clawtop's cache directory: rows whose session did not change since the last run are
    /// taken from it ([`crate::usecase::rows_cache`]); None (`--no-cache`) reads every one.
    pub cache: Option<&'a std::path::Path>,
}

/// Reads every store (or one agent's) and builds every session's row.
pub fn build(source: &dyn SessionSource, opts: &Options<'_>) -> ListReport {
    build_held(source, opts).0
}

/// What a list held while it built its rows (the stores' listing, the rows remembered
/// between runs): freed with it, or left to a process that exits next
/// ([`Held::leave_to_exit`]).
#[derive(Default)]
pub struct Held {
    _loaded: Option<Listing>,
    _cached: Option<(super::rows_cache::RowsCache, RowMemo)>,
}

impl Held {
    /// Not freed: `list`, `check` and `metrics` exit once they have printed, and a warm
    /// run's thousands of remembered rows and listed sessions, freed one string at a time,
    /// were a twentieth of it (issue 31).
    pub fn leave_to_exit(self) {
        std::mem::forget(self);
    }
}

/// [`build`], with what it held handed back rather than freed.
pub fn build_held(source: &dyn SessionSource, opts: &Options<'_>) -> (ListReport, Held) {
    let mut report = empty(source);
    if let Some(why) = source.unreadable() {
        report.unreadable = Some(why);
        return (report, Held::default());
    }
    if let Some(a) = opts.agent {
        if !source.has_agent(a) {
            report.errors.push(format!(
                "no agent {:?} in {}",
                crate::sanitize::one_line(a),
                source.label()
            ));
            return (report, Held::default());
        }
    }
    let t0 = std::time::Instant::now();
    // A gateway log grows apart from any transcript: with logs, every row is read. A gateway
    // source stamps no transcript: nothing to remember.
    let cache = opts
        .cache
        .filter(|_| opts.logs.is_empty() && source.kind() != SourceKind::Gateway);
    // Opened before the listing: what the last run remembered of it is handed to the source
    // first ([`SessionSource::recall_listing`]).
    let mut cached = cache.map(|dir| super::rows_cache::RowsCache::open(dir, source));
    let loaded = source.list(opts.agent);
    tracing::debug!(
        sessions = loaded.sessions.len(),
        ms = t0.elapsed().as_millis() as u64,
        "stores read"
    );
    let report = match cached.as_mut() {
        Some((cache, memo)) => {
            let (mut report, archived) = rows_of(
                source,
                opts,
                &loaded,
                Some((memo, &mut |_| {})),
                KeptRows::Later,
            );
            cache.save(memo, source);
            // The kept rows go to the report now the file has them: moved, not copied (a
            // warm run's rows are thousands of rows read back, and a copy of each was a
            // twentieth of it).
            for (row, r) in report.sessions.iter_mut().zip(&report.refs) {
                if let Some(k) = memo.rows.get_mut(r) {
                    *row = std::mem::take(&mut *k.row);
                }
            }
            total(&mut report, archived);
            report
        }
        None => from_listing(source, opts, &loaded),
    };
    tracing::debug!(ms = t0.elapsed().as_millis() as u64, "rows built");
    let held = Held {
        _loaded: Some(loaded),
        _cached: cached,
    };
    (report, held)
}

fn empty(source: &dyn SessionSource) -> ListReport {
    ListReport {
        state_dir: source.label(),
        era: source.kind().as_str().to_string(),
        warnings: source.warnings(),
        ..ListReport::default()
    }
}

/// The rows of sessions the source already listed (the TUI lists the one session it opens
/// first, then the host).
pub fn from_listing(
    source: &dyn SessionSource,
    opts: &Options<'_>,
    loaded: &Listing,
) -> ListReport {
    build_rows(source, opts, loaded, None)
}

/// Rows of an earlier build over the same source, handed back by [`from_listing_kept`]
/// while nothing a row was built from has changed: the session's listing (its entry, where
/// its transcript is), its transcript ([`SessionSource::transcript_tip`], taken before the
/// read) and the clock ([`crate::cost::Clock`]: the last hour's and today's spend). What the
/// TUI keeps between reloads, so a turn on one session of thousands re-reads that session
/// only (issue 31). What is cheap and may move on its own (the lock, `busy`) is looked at
/// again for every row; the problems are graded again from it.
#[derive(Default)]
pub struct RowMemo {
    pub(crate) rows: crate::source::RefMap<Kept>,
    /// What the kept rows were measured and priced with ([`build_rows`]).
    pub(crate) basis: Option<String>,
    /// Rows built (not handed back) by the last build: what a test counts.
    pub last_built: usize,
    /// Rows handed back whose store now has a stamp other than the one kept with them
    /// ([`Kept::store`]): the rows cache writes them back so the next run can use it.
    pub(crate) stores_moved: usize,
    /// How a kept row is known to still hold, and what the list totals.
    pub(crate) keying: Keying,
    /// Sessions the last build listed but could not keep (nothing to key the row by: a
    /// transcript file written within its settling time has no tip). A patch that names
    /// one ([`changed_kept`]) names a session listed, not one added.
    pub(crate) unkeyed: crate::source::RefSet,
}

/// How a [`RowMemo`] knows a transcript is unchanged.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keying {
    /// The TUI's reloads: the transcript's cheap tip ([`SessionSource::transcript_tip`]),
    /// within one process that polls it; the Sessions screen shows no host totals, so the
    /// archives are not read.
    #[default]
    Live,
    /// Rows kept on disk between runs of `list`, `check` and `metrics`
    /// ([`crate::usecase::rows_cache`]): the full stamp
    /// ([`SessionSource::transcript_stamp`]), which another process's writes cannot slip
    /// past; the host's totals are read.
    BetweenRuns,
    /// The TUI's first load from the disk cache: the full stamp, and the tip as well for the
    /// reloads that follow ([`RowMemo::into_live`]); no totals.
    LiveFromDisk,
}

impl RowMemo {
    /// The memo of a first load from disk ([`Keying::LiveFromDisk`]) made the TUI's: each
    /// row keyed by the tip taken before its stamp (a row without one is dropped), and by
    /// the session it was listed as in `loaded`, so a reload compares sessions, not prints.
    pub fn into_live(mut self, loaded: &Listing) -> RowMemo {
        let listed: foldhash::HashMap<&SessionRef, &Session> =
            loaded.sessions.iter().map(|s| (&s.reference, s)).collect();
        self.rows.retain(|r, k| {
            let Some(tip) = k.tip.take() else {
                return false;
            };
            let Some(s) = listed.get(r).filter(|s| k.session.is(s)) else {
                return false;
            };
            k.stamp = tip;
            k.session = Listed::Session(Box::new((*s).clone()));
            true
        });
        self.keying = Keying::Live;
        self
    }
}

pub(crate) struct Kept {
    pub(crate) session: Listed,
    pub(crate) stamp: crate::source::Stamp,
    /// The stamp of the store the transcript lives in, taken before `stamp`
    /// ([`SessionSource::transcript_stores`]): while the store's is the same, so is `stamp`.
    pub(crate) store: Option<String>,
    /// [`Keying::LiveFromDisk`]: the tip the TUI's reloads will compare, taken before `stamp`.
    pub(crate) tip: Option<crate::source::Stamp>,
    /// A fingerprint of its agent's models.json ([`build_rows`]).
    pub(crate) models: String,
    /// Boxed: a row is large, and a kept row moves through a list's maps and vectors.
    pub(crate) row: Box<SessionRow>,
    pub(crate) last_compaction: Vec<history::HistoryWarning>,
    pub(crate) clock: Option<crate::cost::Clock>,
    pub(crate) watch: Vec<PathBuf>,
    /// The transcript whose lock says `busy` ([`crate::diagnosis::busy::transcript_of`]).
    pub(crate) busy_at: Option<PathBuf>,
}

impl Kept {
    /// Kept past this listing: what was taken of its transcript now (the tip, the store's
    /// stamp, the files watched) replaces what was. Counts a store stamp that moved, so the
    /// rows cache is written again.
    fn renew(
        &mut self,
        tip: Option<crate::source::Stamp>,
        store: Option<String>,
        watch: Vec<PathBuf>,
        stores_moved: &mut usize,
    ) {
        if store.is_some() && self.store != store {
            *stores_moved += 1;
        }
        self.tip = tip;
        self.store = store;
        self.watch = watch;
    }
}

/// The listing a kept row was built from: the session itself while in memory, its
/// fingerprint once written to disk ([`listing_print`]).
pub(crate) enum Listed {
    Session(Box<Session>),
    Print(String),
}

impl Listed {
    fn is(&self, s: &Session) -> bool {
        match self {
            Listed::Session(k) => **k == *s,
            Listed::Print(p) => *p == listing_print(s),
        }
    }
}

/// A fingerprint of everything a listed session holds (its entry, where its transcript is,
/// the warnings its listing gave): two listings with the same print built the same row.
/// Every field is packed ([`crate::packed`]: MessagePack by position, none left out) and
/// hashed: a warm `list` prints each of a host's thousands of sessions, and this is several
/// times cheaper than their `Debug`.
pub(crate) fn listing_print(s: &Session) -> String {
    #[derive(Serialize)]
    struct Print<'a> {
        reference: (&'a str, &'a str, &'a str, &'a str),
        entry: &'a crate::store_entry::StoreEntry,
        transcript: &'a Option<String>,
        transcript_how: &'a str,
        transcript_unread: &'a Option<String>,
        entry_from: &'a Option<String>,
        warnings: &'a [String],
    }
    // Every field of a session: a field added to it and not here fails to build.
    let Session {
        reference,
        entry,
        transcript,
        transcript_how,
        transcript_unread,
        entry_from,
        warnings,
    } = s;
    let print = Print {
        reference: (
            &reference.source,
            &reference.agent_id,
            &reference.key,
            &reference.session_id,
        ),
        entry,
        transcript,
        transcript_how,
        transcript_unread,
        entry_from,
        warnings,
    };
    thread_local! {
        static PACKED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    // Packed into one buffer reused for every session of a list, not a new one each.
    let packed = PACKED.with(|b| {
        let mut own = Vec::new();
        let mut shared = b.try_borrow_mut();
        let buf = shared.as_deref_mut().unwrap_or(&mut own);
        crate::packed::write_into(buf, &print).map(|()| hex_digest(buf))
    });
    match packed {
        Ok(print) => print,
        // Not expected (every field is plain data); the `Debug` form is a print all the same.
        Err(_) => fingerprint(s),
    }
}

/// SHA-256 of `bytes`, its first 16 bytes in hex.
fn hex_digest(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(&Sha256::digest(bytes)[..16])
}

/// SHA-256 (32 hex digits) of a value's `Debug` form. The form is written out first and
/// hashed whole: `Debug` writes a row's session in hundreds of pieces, and hashing each as
/// it came cost a warm `list` of 2,000 sessions more than the hash of their text.
pub(crate) fn fingerprint(s: &dyn std::fmt::Debug) -> String {
    use std::fmt::Write;
    thread_local! {
        static TEXT: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    TEXT.with(|t| {
        // Reused between calls; a `Debug` that fingerprints again inside gets its own.
        let mut own = String::new();
        let mut shared = t.try_borrow_mut();
        let text = match shared.as_deref_mut() {
            Ok(text) => text,
            Err(_) => &mut own,
        };
        text.clear();
        let _ = write!(text, "{s:?}");
        hex_digest(text.as_bytes())
    })
}

/// [`from_listing`], handing back the rows of `memo` that still hold and remembering the
/// others. `watch` is told, before each session is read, the files whose change means it
/// must be read again ([`SessionSource::changes`] of its transcript, asked once per session
/// and kept with its row), so a watcher stamps them before the read and misses no change
/// made while it reads.
pub fn from_listing_kept(
    source: &dyn SessionSource,
    opts: &Options<'_>,
    loaded: &Listing,
    memo: &mut RowMemo,
    watch: &mut dyn FnMut(&[PathBuf]),
) -> ListReport {
    memo.last_built = 0;
    memo.stores_moved = 0;
    // A gateway log grows apart from any transcript: with logs, every row is read again.
    if !opts.logs.is_empty() {
        memo.rows.clear();
    }
    build_rows(source, opts, loaded, Some((memo, watch)))
}

/// [`from_listing_kept`] for the sessions that changed since `memo` was filled, when the
/// source can tell them ([`SessionSource::list_changed`]): their rows only, built or handed
/// back by the same rule, and kept in `memo` beside the others. What a TUI's reload at every
/// commit of a host of thousands needs (issue 31, live: one session's turn rebuilds its row,
/// not 2,000). None — the caller lists the whole host — when the source cannot tell, a
/// changed session is not one `memo` holds (it came, or was reset under a new id), or the
/// basis the rows were priced with moved.
pub fn changed_kept(
    source: &dyn SessionSource,
    opts: &Options<'_>,
    memo: &mut RowMemo,
    watch: &mut dyn FnMut(&[PathBuf]),
) -> Option<(ListReport, Listing)> {
    if memo.keying != Keying::Live || !opts.logs.is_empty() || memo.rows.is_empty() {
        return None;
    }
    let changed = source.list_changed(opts.agent)?;
    let mut part = RowMemo {
        keying: memo.keying,
        basis: memo.basis.clone(),
        ..RowMemo::default()
    };
    if !changed
        .sessions
        .iter()
        .all(|s| memo.rows.contains_key(&s.reference) || memo.unkeyed.contains(&s.reference))
    {
        return None;
    }
    for s in &changed.sessions {
        if let Some((r, k)) = memo.rows.remove_entry(&s.reference) {
            part.rows.insert(r, k);
        }
    }
    let report = build_rows(source, opts, &changed, Some((&mut part, watch)));
    if part.basis != memo.basis {
        return None;
    }
    memo.last_built = part.last_built;
    memo.stores_moved = part.stores_moved;
    memo.rows.extend(part.rows);
    for s in &changed.sessions {
        memo.unkeyed.remove(&s.reference);
    }
    memo.unkeyed.extend(part.unkeyed);
    Some((report, changed))
}

/// A session's kept row (when its listing is unchanged), its files told to the watcher, and
/// its transcript's tip, taken ahead of the reads ([`build_rows`]).
type Ahead = (Option<Kept>, Vec<PathBuf>, Option<crate::source::Stamp>);

/// Every session's [`Ahead`] of a list with a memo, the watcher told of all files before any
/// tip is taken; a TUI's reload ([`Keying::Live`], [`Keying::LiveFromDisk`]) then takes the
/// tips in one batch ([`SessionSource::transcript_tips`]); a run between runs takes none.
/// None without a memo.
fn tips_ahead(
    source: &dyn SessionSource,
    sessions: &[Session],
    kept: Option<&mut Keeping<'_>>,
) -> Option<Vec<Ahead>> {
    let (memo, watch) = kept?;
    let mut ahead: Vec<Ahead> = sessions
        .iter()
        .map(|s| {
            let (prev, files) = take_kept(source, memo, &mut **watch, s);
            (prev, files, None)
        })
        .collect();
    if memo.keying == Keying::BetweenRuns {
        return Some(ahead);
    }
    let refs: Vec<&SessionRef> = sessions.iter().map(|s| &s.reference).collect();
    for (a, tip) in ahead.iter_mut().zip(source.transcript_tips(&refs)) {
        a.2 = tip;
    }
    Some(ahead)
}

/// Every session's full stamp, and the stamp of the store it lives in, for a list keyed by
/// full stamps ([`Keying::BetweenRuns`], [`Keying::LiveFromDisk`]), taken after the tips:
/// the stores' first, then, of a session whose kept row was stamped under the store's stamp
/// of now, the kept stamp (nothing in its store moved since: a quiet SQLite database's
/// thousands of sessions are not stamped one by one); the others in one batch
/// ([`SessionSource::transcript_stamps`]). None for the TUI's reloads, keyed by tips.
///
/// A session with no kept row is read whatever its stamp says: where its read tells its
/// stamp ([`SessionSource::stamps_reads`]) it is not stamped here but marked to take the
/// stamp of that read ([`Stamps::from_read`]), so a cold list reads each transcript once.
fn stamps_ahead(
    source: &dyn SessionSource,
    sessions: &[Session],
    keying: Option<Keying>,
    ahead: Option<&Vec<Ahead>>,
) -> Option<Vec<Stamps>> {
    let ahead = ahead.filter(|_| keying != Some(Keying::Live))?;
    let refs: Vec<&SessionRef> = sessions.iter().map(|s| &s.reference).collect();
    let from_reads = source.stamps_reads();
    let mut out: Vec<Stamps> = ahead
        .iter()
        .zip(sessions)
        .zip(source.transcript_stores(&refs))
        .map(|((a, s), store)| {
            let known =
                a.0.as_ref()
                    .filter(|k| store.is_some() && k.store == store)
                    .map(|k| k.stamp.clone());
            Stamps {
                from_read: from_reads && a.0.is_none() && s.transcript.is_some(),
                stamp: known,
                store,
            }
        })
        .collect();
    let need: Vec<usize> = (0..out.len())
        .filter(|&i| out[i].stamp.is_none() && !out[i].from_read)
        .collect();
    let wanted: Vec<&SessionRef> = need.iter().map(|&i| refs[i]).collect();
    for (i, stamp) in need.into_iter().zip(source.transcript_stamps(&wanted)) {
        tracing::debug!(target: "clawtop::io", io = "transcript stamped", "transcript stamped");
        out[i].stamp = stamp;
    }
    Some(out)
}

/// A session's stamps for [`rows_of`] ([`stamps_ahead`]).
#[derive(Default)]
struct Stamps {
    stamp: Option<crate::source::Stamp>,
    /// The stamp of the store it lives in.
    store: Option<String>,
    /// Not stamped ahead: its row is built, and its stamp is that of the read the build
    /// makes ([`SessionSource::stamp_of_read`]).
    from_read: bool,
}

/// `s`'s row in `memo` while its listing is unchanged, and the files whose change means it
/// must be read again, told to the watcher before anything of it is stamped or read: a change
/// made after is seen next time.
fn take_kept(
    source: &dyn SessionSource,
    memo: &mut RowMemo,
    watch: &mut dyn FnMut(&[PathBuf]),
    s: &Session,
) -> (Option<Kept>, Vec<PathBuf>) {
    let mut prev = memo.rows.remove(&s.reference).filter(|k| k.session.is(s));
    // Moved out, not copied: a kept row that holds takes them back ([`build_rows`]).
    let files = match prev.as_mut() {
        Some(k) => std::mem::take(&mut k.watch),
        None => transcript_watch(source, s),
    };
    watch(&files);
    (prev, files)
}

fn transcript_watch(source: &dyn SessionSource, s: &Session) -> Vec<PathBuf> {
    match source.changes(Watch::Transcript(&s.reference)) {
        crate::source::Changes::Poll(files) => files,
        crate::source::Changes::Pushed => Vec::new(),
    }
}

/// A memo and the watcher told of each session's files ([`from_listing_kept`]).
type Keeping<'a> = (&'a mut RowMemo, &'a mut dyn FnMut(&[PathBuf]));

/// Where [`rows_of`] puts a row it keeps in the memo.
#[derive(Clone, Copy)]
enum KeptRows {
    /// A copy in the report as well: the memo serves the reloads that follow.
    Copy,
    /// A default row in its place, for the caller to move the kept one into once the memo
    /// has served (a one-shot list writes the rows cache from it first; [`build`]).
    Later,
}

fn build_rows(
    source: &dyn SessionSource,
    opts: &Options<'_>,
    loaded: &Listing,
    kept: Option<Keeping<'_>>,
) -> ListReport {
    let (mut report, archived) = rows_of(source, opts, loaded, kept, KeptRows::Copy);
    total(&mut report, archived);
    report
}

/// The host's spend from the rows' (SPEC §10), with the archives' when they were read.
fn total(report: &mut ListReport, archived: Option<crate::cost::host::Archived>) {
    report.totals = Some(crate::cost::host::HostTotals::of(
        report
            .sessions
            .iter()
            .filter_map(|r| Some((r.session_key.as_deref().unwrap_or(""), r.cost.as_ref()?))),
        archived,
    ));
}

/// What every row was measured and priced with besides its session and transcript: the
/// config and the price tables (a change builds every row again: `memo` is emptied), and
/// per agent its models.json (a change builds that agent's rows again; returned), so no kept
/// row stands on an old window or old prices. Per agent, so a list of one agent and a list
/// of all keep the same rows.
fn basis_of_rows<'a>(
    source: &dyn SessionSource,
    loaded: &'a Listing,
    rows: &Rows<'_>,
    memo: &mut RowMemo,
) -> foldhash::HashMap<&'a str, String> {
    let mut models: foldhash::HashMap<&str, String> = Default::default();
    for s in &loaded.sessions {
        models
            .entry(s.agent_id())
            .or_insert_with(|| fingerprint(&source.models_json(s.agent_id())));
    }
    let basis = fingerprint(&(
        &rows.numbers.prices,
        source.config_label(),
        source.config().to_string(),
        &rows.host,
        rows.count_unknown,
    ));
    if memo.basis.as_deref() != Some(basis.as_str()) {
        memo.rows.clear();
        memo.basis = Some(basis);
    }
    models
}

/// Every row of `loaded`, without the host's totals ([`total`]), and the archives' spend
/// the totals add.
fn rows_of(
    source: &dyn SessionSource,
    opts: &Options<'_>,
    loaded: &Listing,
    mut kept: Option<Keeping<'_>>,
    kept_rows: KeptRows,
) -> (ListReport, Option<crate::cost::host::Archived>) {
    let mut report = empty(source);
    report.warnings.extend(loaded.warnings.iter().cloned());
    report.errors.extend(loaded.errors.iter().cloned());
    report.skipped = loaded.skipped.iter().map(|(_, w)| w.clone()).collect();
    let mut rows = Rows::new(source, opts, &loaded.sessions);
    report.errors.extend(rows.logs.unread.iter().cloned());
    // Sized once: a kept row is large, and growing the table moved every row again.
    let mut fresh: crate::source::RefMap<Kept> =
        foldhash::HashMapExt::with_capacity(if kept.is_some() {
            loaded.sessions.len()
        } else {
            0
        });
    report.sessions.reserve(loaded.sessions.len());
    report.refs.reserve(loaded.sessions.len());
    let mut unkeyed = crate::source::RefSet::default();
    let now = rows.numbers.now_ms;
    let keying = kept.as_ref().map(|(m, _)| m.keying);
    let live = matches!(keying, Some(Keying::Live | Keying::LiveFromDisk));
    let models = match kept.as_mut() {
        Some((memo, _)) => basis_of_rows(source, loaded, &rows, memo),
        None => Default::default(),
    };
    source.read_together(&mut || {
        // A TUI's reload takes every session's tip at once (one statement per SQLite
        // database, not one lookup each; issue 31), after the watcher's stamps of every
        // session and before any stamp or read: a change made in between is seen next time.
        let mut ahead = tips_ahead(source, &loaded.sessions, kept.as_mut());
        let mut stamps = stamps_ahead(source, &loaded.sessions, keying, ahead.as_ref());
        for (n, s) in loaded.sessions.iter().enumerate() {
            let Some((memo, watch)) = kept.as_mut() else {
                let files = transcript_watch(source, s);
                let built = rows.build(s, &files);
                report.sessions.push(built.row);
                report.refs.push(s.reference.clone());
                continue;
            };
            let (prev, files, tip) = match ahead.as_mut() {
                Some(ahead) => std::mem::take(&mut ahead[n]),
                None => {
                    let (prev, files) = take_kept(source, memo, &mut **watch, s);
                    (prev, files, None)
                }
            };
            let Stamps {
                stamp,
                store,
                from_read,
            } = match stamps.as_mut() {
                Some(stamps) => std::mem::take(&mut stamps[n]),
                None => Stamps::default(),
            };
            let (stamp, tip) = match memo.keying {
                Keying::Live => (tip, None),
                Keying::BetweenRuns => (stamp, None),
                // The tip the reloads after this one compare, taken before the stamp.
                Keying::LiveFromDisk => (stamp, tip),
            };
            let agent_models = models.get(s.agent_id()).map_or("", String::as_str);
            let held = prev.filter(|k| {
                stamp.as_ref() == Some(&k.stamp)
                    && k.models == agent_models
                    && k.clock.is_none_or(|c| c.holds_at(now))
            });
            let k = match held {
                Some(mut k) => {
                    rows.refresh(s, &mut k, now);
                    k.renew(tip, store, files, &mut memo.stores_moved);
                    k
                }
                None => {
                    memo.last_built += 1;
                    let built = rows.build(s, &files);
                    let stamp = match from_read {
                        true => source.stamp_of_read(&s.reference),
                        false => stamp,
                    };
                    let Some(stamp) = stamp else {
                        // Nothing to key it by (no stamp, or one its read could not tell):
                        // read again next time.
                        unkeyed.insert(s.reference.clone());
                        report.sessions.push(built.row);
                        report.refs.push(s.reference.clone());
                        continue;
                    };
                    Kept {
                        session: Listed::Session(Box::new(s.clone())),
                        stamp,
                        store,
                        tip,
                        models: agent_models.to_string(),
                        row: Box::new(built.row),
                        last_compaction: built.last_compaction,
                        clock: built.clock,
                        watch: files,
                        busy_at: crate::diagnosis::busy::transcript_of(source, s),
                    }
                }
            };
            report.sessions.push(match kept_rows {
                KeptRows::Copy => (*k.row).clone(),
                KeptRows::Later => SessionRow::default(),
            });
            report.refs.push(s.reference.clone());
            fresh.insert(s.reference.clone(), k);
        }
    });
    // Only the sessions listed now are remembered: a deleted one is forgotten. A list of one
    // agent keeps what is remembered of the others for the next whole list.
    if let Some((memo, _)) = kept {
        if let Some(agent) = opts.agent.filter(|_| memo.keying != Keying::Live) {
            fresh.extend(memo.rows.drain().filter(|(r, _)| r.agent_id != agent));
        }
        memo.rows = fresh;
        memo.unkeyed = unkeyed;
    }
    report
        .warnings
        .extend(rows.numbers.prices.notes.iter().cloned());
    // A live reload (the TUI's Sessions screen, which shows no host totals) does not read the
    // archives again on every change: they are what `list` and the fleet total.
    let archived = if live {
        None
    } else {
        rows.numbers.archived(&loaded.sessions)
    };
    (report, archived)
}

/// A row as [`Rows::build`] made it, with what [`Rows::refresh`] needs to keep it.
struct Built {
    row: SessionRow,
    last_compaction: Vec<history::HistoryWarning>,
    clock: Option<crate::cost::Clock>,
}

/// What every row of one host needs, read once for all of them: the numbers' settings and
/// catalogs, what the host says about itself, the gateway logs.
pub struct Rows<'s> {
    source: &'s dyn SessionSource,
    pub numbers: Numbers<'s>,
    keep: u64,
    host: HostFacts,
    count_unknown: bool,
    logs: LogEvidence,
    forecasts: crate::history::tail::Forecasts,
    /// The transcript the last row was built from, by where it is ([`Session::transcript`]):
    /// sessions that share one (a patch lists them one after the other) read it once. One
    /// only, so a whole list never holds more than one transcript open.
    last_open: Option<(String, crate::transcript::Transcript)>,
}

impl<'s> Rows<'s> {
    /// For `sessions` of `source` (the gateway logs are scanned for these).
    pub fn new(source: &'s dyn SessionSource, opts: &Options<'_>, sessions: &[Session]) -> Self {
        let numbers = Numbers::new(source);
        let count_unknown = source
            .not_exposed()
            .iter()
            .any(|(f, _)| *f == "compactionCount");
        let mut rows = Rows {
            source,
            keep: numbers.settings.keep_recent_tokens.value,
            numbers,
            host: HostFacts::of(source),
            count_unknown,
            logs: LogEvidence::default(),
            forecasts: Default::default(),
            last_open: None,
        };
        rows.logs = LogEvidence::read(opts.logs, sessions.iter().filter(|s| rows.compacted(s)));
        rows
    }

    /// Only a session that has compacted can have a last compaction's problems (unless the
    /// source cannot read the count).
    fn compacted(&self, s: &Session) -> bool {
        s.transcript.is_some() && (self.count_unknown || s.entry.compaction_count.unwrap_or(0) > 0)
    }

    /// The row of `s`, whose numbers `t` were computed with its transcript `open` (None: it
    /// has none, or the source decides `used` without it), which every other figure of the
    /// row is taken from.
    pub fn row(
        &mut self,
        s: &Session,
        t: &Thresholds,
        open: Option<&crate::transcript::Transcript>,
        warnings: Vec<String>,
    ) -> SessionRow {
        let files = transcript_watch(self.source, s);
        self.row_with(s, t, open, warnings, &files).row
    }

    /// The row of `s`, its transcript opened once for every figure of it, and once for the
    /// next row too when that session's transcript is the same ([`Rows::last_open`]).
    fn build(&mut self, s: &Session, files: &[PathBuf]) -> Built {
        let mut warnings = s.warnings.clone();
        let shared = self
            .last_open
            .take()
            .filter(|(at, _)| s.transcript.as_ref() == Some(at) && s.transcript_unread.is_none());
        let (t, open) = match shared {
            Some((_, tr)) => {
                crate::numbers::push_transcript_warnings(&tr, &mut warnings);
                (self.numbers.session_with_transcript(s, Some(&tr)), Some(tr))
            }
            None => self
                .numbers
                .session_open(s, self.compacted(s), &mut warnings),
        };
        let built = self.row_with(s, &t, open.as_ref(), warnings, files);
        self.last_open = s.transcript.clone().zip(open);
        built
    }

    /// A kept row brought up to now: what may move without its transcript or entry (the
    /// lock, `busy`, the cache's countdown), and the problems graded from it.
    fn refresh(&self, s: &Session, k: &mut Kept, now_ms: i64) {
        let source = self.source;
        let row = &mut k.row;
        row.busy = k.busy_at.as_deref().and_then(crate::diagnosis::busy::busy);
        let lock = source.lock(&s.reference);
        row.stale_lock = crate::diagnosis::busy::stale_lock_words(lock.as_ref());
        row.lock = lock.filter(|l| *l != crate::commit::LockStatus::Free);
        if let (Some(c), Some(clock)) = (row.cost.as_mut(), k.clock) {
            clock.apply(c, now_ms);
        }
        row.problems = findings(row, &k.last_compaction);
    }

    /// `files`: what [`SessionSource::changes`] says of the session's transcript.
    fn row_with(
        &mut self,
        s: &Session,
        t: &Thresholds,
        open: Option<&crate::transcript::Transcript>,
        warnings: Vec<String>,
        files: &[PathBuf],
    ) -> Built {
        let source = self.source;
        if let Some(tr) = open {
            self.forecasts.read_open(s, tr, t.rules);
        }
        // What the session spends, from the same open transcript (SPEC §10).
        let full_cost = open.map(|tr| self.numbers.cost(s, tr));
        let clock = full_cost.as_ref().map(|c| c.clock(self.numbers.now_ms));
        let cost = full_cost.map(crate::cost::SessionCost::without_calls);
        let mut row = SessionRow::from_session(source.kind(), s, t);
        row.warnings = warnings;
        row.keep_recent_tokens = self.keep;
        row.busy = crate::diagnosis::busy::of_session(source, s);
        let lock = source.lock(&s.reference);
        row.stale_lock = crate::diagnosis::busy::stale_lock_words(lock.as_ref());
        row.lock = lock.filter(|l| *l != crate::commit::LockStatus::Free);
        row.forecast = Some(self.forecasts.of(source, s, t));
        row.recent_context = self.forecasts.recent(source, s, t.rules, TREND_TURNS);
        row.stale = stale(s, &row, files);
        for (field, why) in source.not_exposed() {
            row.unknown.insert(field.to_string(), why);
        }
        let mut last_compaction = Vec::new();
        if self.compacted(s) {
            // A source whose transcripts do not decide `used` (a gateway) opened none for the
            // numbers: the history needs it all the same.
            let reopened = match open {
                Some(_) => None,
                None => match source.open_transcript(&s.reference) {
                    Ok(t) => Some(t),
                    Err(e) => {
                        // Said once: a transcript the numbers could not read is unknown already.
                        if !row
                            .unknown
                            .contains_key(crate::thresholds::TRANSCRIPT_UNREAD)
                        {
                            row.unknown.insert(
                                HISTORY_UNREAD.to_string(),
                                crate::sanitize::one_line(&e.to_string()),
                            );
                        }
                        None
                    }
                },
            };
            if let Some(tr) = open.or(reopened.as_ref()) {
                let mut h = history::build(Some(tr), t, None);
                if let Some(why) = &h.transcript_unread {
                    // Entries of the branch could not be read: its problems are unknown, and
                    // the row is not remembered (rows_cache keeps no row with a failed read).
                    row.unknown
                        .insert(HISTORY_UNREAD.to_string(), crate::sanitize::one_line(why));
                }
                h.with_logs(&self.logs.of(s.key()));
                last_compaction = h.about_last_compaction().into_iter().cloned().collect();
                if self.host.summaries_unreadable.is_none() {
                    row.latest_compaction_loss = audit::audit_latest(tr, &self.host);
                }
            }
        }
        row.problems = findings(&row, &last_compaction);
        row.cost = cost;
        Built {
            row,
            last_compaction,
            clock,
        }
    }
}

/// What gateway logs say about the compacted sessions of a list: each log read once for all
/// of them ([`history::log::scan_many`]).
#[derive(Default)]
struct LogEvidence {
    keys: Vec<String>,
    /// Per log, one scan per key of `keys`.
    scans: Vec<Vec<history::log::LogScan>>,
    /// Why a log could not be read (or not to its end), one line per such log.
    unread: Vec<String>,
}

impl LogEvidence {
    fn read<'s>(logs: &[PathBuf], sessions: impl Iterator<Item = &'s Session>) -> LogEvidence {
        let mut keys: Vec<String> = if logs.is_empty() {
            Vec::new()
        } else {
            sessions.map(|s| s.key().to_string()).collect()
        };
        keys.sort_unstable();
        keys.dedup();
        let scans: Vec<Vec<history::log::LogScan>> = if keys.is_empty() {
            Vec::new()
        } else {
            let k: Vec<&str> = keys.iter().map(String::as_str).collect();
            logs.iter()
                .map(|l| history::log::scan_many(l, &k))
                .collect()
        };
        let unread = scans
            .iter()
            .filter_map(|per_key| per_key.first())
            .filter_map(|s| {
                let why = s.unread.as_deref()?;
                Some(format!(
                    "gateway log {}: {}",
                    crate::sanitize::one_line(&s.file),
                    crate::sanitize::one_line(why)
                ))
            })
            .collect();
        LogEvidence {
            keys,
            scans,
            unread,
        }
    }

    fn of(&self, key: &str) -> Vec<history::log::LogScan> {
        match self.keys.binary_search_by(|k| k.as_str().cmp(key)) {
            Ok(i) => self.scans.iter().map(|per| per[i].clone()).collect(),
            Err(_) => Vec::new(),
        }
    }
}

/// The problems of a row, in the order `check` lists them for a session: its status, its
/// lock, its transcript, then its last compaction's (history, then what it lost).
pub fn findings(row: &SessionRow, last_compaction: &[history::HistoryWarning]) -> Vec<Finding> {
    use crate::format::tokens as compact_number;
    let used = row.used.map_or("?".into(), compact_number);
    let mut out = Vec::new();
    match row.status {
        Status::Over => {
            out.push(Finding::new(
                Problem::Over,
                format!(
                    "{used}/{} used, over the window",
                    compact_number(row.window)
                ),
            ));
            if row.used_source == UsedSource::Fresh {
                out.push(Finding::new(
                    Problem::Stuck,
                    format!(
                        "{used}/{} used after the last run; compaction did not bring it under the window",
                        compact_number(row.window)
                    ),
                ));
            }
        }
        Status::CompactDue => out.push(Finding::new(
            Problem::CompactDue,
            format!(
                "{used} used, compaction line {}",
                compact_number(row.compact_at)
            ),
        )),
        Status::FlushDue => out.push(Finding::new(
            Problem::FlushDue,
            format!(
                "{used} used, flush line {}",
                row.flush_at.map_or("-".into(), compact_number)
            ),
        )),
        Status::Unknown => out.push(Finding::new(Problem::Unknown, "no token figure")),
        Status::Ok | Status::Flushed => {}
    }
    match &row.lock {
        Some(crate::commit::LockStatus::Held(_)) => out.push(Finding::new(
            Problem::Busy,
            "transcript lock held by a live process",
        )),
        Some(crate::commit::LockStatus::Stale(..)) => out.push(Finding::new(
            Problem::BusyStaleLock,
            row.stale_lock
                .clone()
                .unwrap_or_else(|| "stale transcript lock".into()),
        )),
        _ => {}
    }
    if row.transcript.is_none() {
        out.push(Finding::new(Problem::NoTranscript, "transcript not found"));
    }
    for w in last_compaction {
        let p = match w.code {
            history::code::LOOP => Problem::CompactionLoop,
            history::code::NO_FLUSH => Problem::NoFlushBeforeCompaction,
            _ => continue,
        };
        out.push(Finding::new(p, w.message.clone()));
    }
    if let Some(loss) = row.latest_compaction_loss.as_ref().filter(|l| l.is_lossy()) {
        let id = loss.entry_id.as_deref().unwrap_or("-");
        let lost = loss
            .identifiers_lost
            .map_or("an unknown number of".into(), |n| n.to_string());
        out.push(Finding::new(
            Problem::LossyCompaction,
            format!(
                "latest compaction {id} lost {lost} identifiers, dropped {} messages unsummarized",
                loss.messages_dropped_unsummarized
            ),
        ));
    }
    out
}

/// Why the store's figures are behind the transcript ([`SessionRow::stale`]). Only a store
/// figure can be stale: a file host's transcript whose last entry is later than the store's
/// `updatedAt` (OpenClaw records the tokens after the turn is written), or the domain's own
/// finding against the transcript.
fn stale(s: &Session, row: &SessionRow, files: &[PathBuf]) -> Option<String> {
    let mut why = None;
    if matches!(row.used_source, UsedSource::Fresh | UsedSource::Legacy) {
        if let Some(f) = files
            .iter()
            .find(|f| f.extension().is_some_and(|e| e == "jsonl"))
        {
            why = store_behind(s.entry.updated_at, f);
        }
    }
    if why.is_none() && row.used_check == crate::used::UsedCheck::Stale {
        why = Some(format!("stale: {}", row.used_check_reason));
    }
    why
}

fn store_behind(updated_at: Option<i64>, transcript: &std::path::Path) -> Option<String> {
    let last = crate::transcript::tail::last_entry_ms(transcript)?;
    let hms = |ms: i64| {
        chrono::DateTime::from_timestamp_millis(ms)
            .map(|d| d.format("%H:%M:%S").to_string())
            .unwrap_or_else(|| "?".into())
    };
    match updated_at {
        Some(u) if last > u => Some(format!(
            "stale: store updated {}, transcript has an entry at {}",
            hms(u),
            hms(last)
        )),
        // No updatedAt: clawtop cannot tell.
        _ => None,
    }
}
