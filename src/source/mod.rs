//! Where sessions come from: one trait, [`SessionSource`], with one implementation per kind of
//! host. Everything above this module (numbers, reports, the use cases, the CLI, the TUI)
//! names a session by a [`SessionRef`] and asks the source for its data; no layer above
//! reads a store file or builds a transcript path itself.
//!
//! Implementations, chosen in one place ([`for_host`], which is also the only era check):
//! - [`files::FileStore`]: a file-backed host (OpenClaw ≤ 2026.7.1, `sessions.json` + JSONL);
//! - [`sqlite::SqliteStore`]: a SQLite host (OpenClaw ≥ 2026.7.2) read locally, read-only;
//! - [`gateway::GatewaySource`]: a host reached only through its Gateway (`--gateway ws://…`,
//!   an ssh tunnel), chosen by [`for_gateway`];
//! - [`transcript_file::TranscriptFile`]: one bare pi transcript, no store;
//! - [`unreadable::Unreadable`]: a SQLite host whose databases clawtop could not find, which
//!   lists nothing and says why.
//!
//! # Adding a source
//! Write one type that implements [`SessionSource`] and return it from [`for_host`] (a local
//! host) or [`for_gateway`] (a remote one). Nothing else has to
//! change: the dialogs, the CLI commands and the reports only call the trait. What each
//! method must do:
//! - [`SessionSource::kind`] / [`SessionSource::label`]: [`SourceKind::Sqlite`] (its word is
//!   the `era` of `list --json`) and where the data is (the state dir).
//! - [`SessionSource::list`]: every session (of one agent if asked) as a [`Session`]: its
//!   [`SessionRef`], the store entry decoded into [`StoreEntry`] (for SQLite: the row's
//!   `entry_json`; map `memoryFlush.compactionCount` to `memory_flush_compaction_count` and
//!   leave `memory_flush_at` `None` — there is no timestamp, never invent one), a display
//!   string for where its transcript is (`Session::transcript`, e.g.
//!   `agents/main/agent/openclaw-agent.sqlite#<sessionId>`), and per-session warnings.
//!   Problems that do not stop listing go to [`Listing::warnings`]; an unreadable store
//!   (a corrupt database) goes to [`Listing::errors`] naming the file, and the other agents
//!   still list.
//! - [`SessionSource::open_transcript`]: the transcript of a listed session. Decode the rows
//!   (`event_json`, or `event_zstd`) into one JSON text per entry, in `seq` order, and build
//!   it with [`Transcript::from_entries`]; ids and parents are linked from the entries.
//! - [`SessionSource::changes`]: what to watch. `Changes::Poll(files)` makes the TUI stat
//!   those files about once a second (for SQLite: the database and its `-wal`);
//!   `Changes::Pushed` means the source reports changes itself through
//!   [`SessionSource::subscribe`] (the Gateway's `sessions.changed`).
//! - [`SessionSource::writer`]: `Writer::ReadOnly(reason)` on a SQLite host without a
//!   Gateway (the reason says what clawtop *can* do there); `Writer::Remote` once a Gateway
//!   can compact. Must not block: answer from what the source already knows.
//! - [`SessionSource::config`], [`SessionSource::models_json`]: the host's config and model
//!   catalogs (the numbers and the model endpoint come from them);
//!   [`SessionSource::workspace`]: the agent's workspace (a flush's `memory/<date>.md`).
//!
//! Sources are shared between threads (`Arc<dyn SessionSource>`) and called from blocking
//! tasks: `list` and `open_transcript` may do disk or network I/O, nothing else may.

pub mod files;
pub mod gateway;
pub mod lookup;
pub mod sqlite;
pub(crate) mod stamp;
pub mod transcript_file;
pub mod unreadable;

pub use stamp::Stamp;

use crate::commit::StoreRow;
use crate::store::{Host, StoreEntry};
use crate::transcript::{Transcript, TranscriptError};
use serde_json::Value;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// A session, named independently of where its data lives.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SessionRef {
    /// The source it belongs to ([`SessionSource::label`]: a state dir, a gateway URL, a file).
    pub source: String,
    pub agent_id: String,
    /// The session key (`agent:main:main`); for a bare transcript, its file name.
    pub key: String,
    pub session_id: String,
}

/// A table keyed by session. Hashed with foldhash rather than std's SipHash: a warm `list`
/// of thousands of sessions looks each one up in several such tables, and SipHash over its
/// four strings was a twentieth of the run (issue 31). Seeded per process; the keys are
/// store keys, which a session's owner names, not text from the wire.
pub type RefMap<V> = foldhash::HashMap<SessionRef, V>;

/// The set of sessions hashed as [`RefMap`].
pub type RefSet = foldhash::HashSet<SessionRef>;

impl fmt::Display for SessionRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.agent_id.is_empty() {
            write!(f, "{}", self.key)
        } else {
            write!(f, "{} · {}", self.agent_id, self.key)
        }
    }
}

/// One listed session.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub reference: SessionRef,
    pub entry: StoreEntry,
    /// Where its transcript is, for display (a path, a database row); None when missing.
    pub transcript: Option<String>,
    /// How the transcript was found, in words (`sessionFile`, `<sessionId>.jsonl …`).
    pub transcript_how: &'static str,
    /// Something is in the transcript's place that cannot be read (a FIFO, a directory, a
    /// link out of the state dir), and why: every figure that needs the transcript is
    /// unknown, never the store's alone ([`crate::numbers`], [`crate::history`]).
    pub transcript_unread: Option<String>,
    /// Where the store entry was read (a `sessions.json` path, a database row), for display.
    pub entry_from: Option<String>,
    pub warnings: Vec<String>,
}

impl Session {
    pub fn agent_id(&self) -> &str {
        &self.reference.agent_id
    }
    pub fn key(&self) -> &str {
        &self.reference.key
    }
}

/// What [`SessionSource::list`] found.
#[derive(Debug, Default)]
pub struct Listing {
    pub sessions: Vec<Session>,
    /// Per-entry problems (the entry is skipped), each naming the file and key.
    pub warnings: Vec<String>,
    /// Stores that could not be read at all, each naming the file.
    pub errors: Vec<String>,
    /// Entries skipped, by key, with the warning that says why (so a command asked for one
    /// of them says why instead of "no such session").
    pub skipped: Vec<(String, String)>,
    /// A file-backed host whose gateway is likely running (its notice is in `warnings` too):
    /// commands that write say so, and the TUI marks it in the Sessions title.
    pub running_gateway: Option<crate::gateway::running::RunningGateway>,
}

impl Listing {
    /// Why the entry `key` was skipped, if it was.
    pub fn why_skipped(&self, key: &str) -> Option<&str> {
        self.skipped
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, w)| w.as_str())
    }
}

/// What to watch for changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changes {
    /// Stat these files (size, mtime) about once a second; a difference means reload.
    Poll(Vec<PathBuf>),
    /// The source reports changes itself ([`SessionSource::subscribe`]).
    Pushed,
}

/// The scope of [`SessionSource::changes`].
#[derive(Debug, Clone, Copy)]
pub enum Watch<'a> {
    /// The session list (of one agent, or all).
    Sessions { agent: Option<&'a str> },
    /// One session's transcript.
    Transcript(&'a SessionRef),
}

/// A change a source pushes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Sessions,
    Transcript(SessionRef),
    /// The push channel came up (`true`) or went away (`false`; the source reconnects with
    /// backoff). While it is down the TUI shows so and polls what it can.
    Live(bool),
    /// Pushed changes will not come, and why (the gateway refused clawtop for a reason
    /// retrying cannot fix); the source is polled as before.
    LiveUnavailable(String),
}

/// What a host's gateway said about a run on a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunState {
    Active,
    Idle,
    /// It could not be asked; the note says what that means for the operator.
    Unknown(String),
}

/// The write a writer is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Compact,
    Flush,
}

/// Who can write an operation's result for a session.
#[derive(Debug, Clone)]
pub enum Writer {
    /// clawtop commits exactly the previewed text itself (file-backed host, bare transcript).
    Local(LocalWriter),
    /// Someone else writes (the Gateway): OpenClaw produces its own text, so there is no
    /// edited-text commit.
    Remote(Box<RemoteWriter>),
    /// Nothing can be written; the reason says why and what clawtop can do instead.
    ReadOnly(String),
}

/// The Gateway that writes a session's result, and what the operator is told about it.
#[derive(Debug, Clone)]
pub struct RemoteWriter {
    /// Where to connect (address and token resolved from the host's config, the environment
    /// and the flags; no I/O happened yet).
    pub target: crate::gateway::GatewayTarget,
    /// Who writes, in words ("OpenClaw's Gateway at ws://127.0.0.1:18789").
    pub via: String,
    /// What differs from a local commit, said before the operator types.
    pub note: String,
}

/// The files a local commit writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalWriter {
    /// The transcript a compaction entry is appended to (None: no compaction here).
    pub transcript: Option<PathBuf>,
    /// The store row updated with it (a compaction's counters, a flush's record); None for
    /// a bare transcript.
    pub store: Option<StoreRow>,
    /// Set where a flush's notes can be appended to the workspace but the flush cannot be
    /// recorded on the session (a SQLite host: only OpenClaw writes its database); says why
    /// and what follows for the operator (OpenClaw's own flush stays armed).
    pub unrecorded: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    #[error("{0}")]
    Unavailable(String),
}

/// What kind of source a session comes from: what front-ends and use cases match on (never
/// on a string). [`SourceKind::as_str`] is the word `list --json` calls the `era`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// A file-backed host (`sessions.json` + JSONL), also the demo state.
    Files,
    /// A SQLite host read locally (an unreadable one too: its era is still SQLite).
    Sqlite,
    /// A host reached only through its Gateway.
    Gateway,
    /// One bare transcript file, no store.
    Transcript,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Files => "file",
            SourceKind::Sqlite => "sqlite",
            SourceKind::Gateway => "gateway",
            SourceKind::Transcript => "transcript",
        }
    }

    /// The kind of a local host of this era.
    pub fn of_era(era: crate::store::Era) -> SourceKind {
        match era {
            crate::store::Era::File => SourceKind::Files,
            crate::store::Era::Sqlite => SourceKind::Sqlite,
        }
    }
}

impl fmt::Display for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A host's sessions, wherever they are kept. See the module doc for the contract.
/// A transcript the host archived (`/new`, `/reset`, a deleted session), as its source holds
/// it: read for what it cost, never shown as a session.
pub struct ArchivedTranscript {
    pub agent: String,
    /// Where it is (a label, for the operator: database and archive name).
    pub name: String,
    pub transcript: Result<Transcript, crate::transcript::archive::ArchiveError>,
}

pub trait SessionSource: Send + Sync {
    fn kind(&self) -> SourceKind;
    /// Where the data is (state dir, gateway URL, file path), for titles and messages.
    fn label(&self) -> String;
    /// Host-level problems that did not stop loading (config, era, ...).
    fn warnings(&self) -> Vec<String>;
    /// Figures this source can never read (`compactionCount`, `memoryFlush`,
    /// `compactionSummary`), each with the reason: shown as unknown with it, never as 0.
    fn not_exposed(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    /// Why this source cannot list sessions at all (None: it can).
    fn unreadable(&self) -> Option<String> {
        None
    }
    /// True for the embedded demo host: bannered, a private temporary copy (writable), whose
    /// text comes from the offline demo summarizer (`llm::offline_demo`).
    fn is_demo(&self) -> bool {
        false
    }
    /// Whether `agent` exists on the host.
    fn has_agent(&self, agent: &str) -> bool;
    /// Every session (of one agent when given). May do I/O.
    fn list(&self, agent: Option<&str>) -> Listing;
    /// The sessions whose store entry or transcript changed since the last [`Self::list`]
    /// (or call of this), as `list` lists them, read without the others: what a TUI's
    /// reload at every commit of a host of thousands rebuilds (issue 31, live). None when
    /// the source cannot tell — sessions came or went, a database could not be read, a
    /// whole read is due — and the caller lists everything again.
    fn list_changed(&self, _agent: Option<&str>) -> Option<Listing> {
        None
    }
    /// What the source remembers of its listings, to be written between runs (the rows
    /// cache, docs/cache.md), in a form only this source reads back: what lets the next run
    /// list without reading every entry again. None: it remembers nothing.
    fn listing_memory(&self) -> Option<Vec<u8>> {
        None
    }
    /// The listing read something the memory it was given did not hold (the memory is
    /// worth writing again).
    fn listing_moved(&self) -> bool {
        false
    }
    /// Takes back what an earlier run's [`Self::listing_memory`] wrote, before the first
    /// listing (None: nothing was written, remember from now on). A memory that does not
    /// read back is ignored: the listing reads as without one.
    fn recall_listing(&self, _memory: Option<&[u8]>) {}
    /// A short listing in which [`Listing::find`] gives for `name` what it gives in the
    /// whole [`Self::list`], when the source can read one without the rest (a SQLite host
    /// reads a full key's own row); None when it cannot (then only the whole list answers).
    fn listing_named(&self, _agent: Option<&str>, _name: &str) -> Option<Listing> {
        None
    }
    /// The listing to look `name` up in: [`Self::listing_named`], else the whole list. For
    /// naming one session, not for showing a list.
    fn listing_for(&self, agent: Option<&str>, name: &str) -> Listing {
        self.listing_named(agent, name)
            .unwrap_or_else(|| self.list(agent))
    }
    /// The transcript of a session. May do I/O.
    fn open_transcript(&self, session: &SessionRef) -> Result<Transcript, SourceError>;
    /// What the session's transcript is now, cheaply (no row or line decoded): equal stamps
    /// mean anything measured from it still holds (the key a per-transcript cache of figures
    /// needs; issue 31). None when the source cannot tell.
    fn transcript_stamp(&self, _session: &SessionRef) -> Option<Stamp> {
        None
    }
    /// [`Self::transcript_stamp`] of each of `sessions`, in order: what a run between runs
    /// asks of every session whose store changed. A SQLite source answers each database's
    /// sessions through statements prepared once; the default asks one by one.
    fn transcript_stamps(&self, sessions: &[&SessionRef]) -> Vec<Option<Stamp>> {
        sessions.iter().map(|r| self.transcript_stamp(r)).collect()
    }
    /// A stamp of the store each of `sessions`' transcripts lives in, in order: while it is
    /// what it was when a transcript was stamped (taken before that stamp), the transcript's
    /// stamp is what it was too, and need not be taken again. A SQLite source's database
    /// ([`stamp::of_database`]: thousands of transcripts, one `stat` each of two files);
    /// None where there is none (a file transcript has only its own stamp) or it cannot
    /// promise it.
    fn transcript_stores(&self, sessions: &[&SessionRef]) -> Vec<Option<String>> {
        vec![None; sessions.len()]
    }
    /// What the session's transcript is now, as cheaply as the source can tell, for a poll
    /// that asks at every change of the host (the TUI's reload, [`crate::usecase::list::RowMemo`]):
    /// a file's `stat` (identity, size, mtime, ctime), a SQLite window's first and last
    /// rows and rewrite generation. It sees every change OpenClaw makes (appends, a trim, a
    /// reset, a replaced file); [`Self::transcript_stamp`] also sees a row rewritten in
    /// place. The default is that stamp.
    fn transcript_tip(&self, session: &SessionRef) -> Option<Stamp> {
        self.transcript_stamp(session)
    }
    /// [`Self::transcript_tip`] of each of `sessions`, in order: what the TUI's reload asks
    /// of every session of the host at once. A SQLite source reads again only the tips of
    /// the sessions whose rows changed since its last answer, through one statement per
    /// database ([`crate::sqlite::events::TipsSince`]: an edit in place of a row below the
    /// table's top one, which OpenClaw never makes, shows at its whole read every 30th
    /// answer); the default asks one by one.
    fn transcript_tips(&self, sessions: &[&SessionRef]) -> Vec<Option<Stamp>> {
        sessions.iter().map(|r| self.transcript_tip(r)).collect()
    }
    /// The transcript of a session for its figures only (`used`, the forecast: `list` and
    /// the Sessions screen, for every session), never kept: a source may read a small one
    /// whole in one go rather than index it for showing. The same transcript either way.
    fn open_transcript_for_figures(&self, session: &SessionRef) -> Result<Transcript, SourceError> {
        self.open_transcript(session)
    }
    /// [`Self::open_transcript_for_figures`] for a caller that also builds the session's
    /// history from it (`list`, for a compacted session): a source that can capture in the
    /// same read what the history's walk of the branch reads does
    /// ([`Transcript::open_for_history`]), so that walk reads no entry again. The same
    /// transcript either way.
    fn open_transcript_for_history(&self, session: &SessionRef) -> Result<Transcript, SourceError> {
        self.open_transcript_for_figures(session)
    }
    /// Runs `work`, whose reads of this source are to see one state of it: `list` reads every
    /// session's transcript, and a SQLite source reads them in one read transaction per
    /// database (one snapshot for the whole list, and SQLite's page cache kept across the
    /// thousands of queries instead of checked and dropped at each). Others just run it.
    fn read_together(&self, work: &mut dyn FnMut()) {
        work()
    }
    /// Whether, within [`Self::read_together`], a session's transcript read tells its stamp
    /// ([`Self::stamp_of_read`]): then a list need not stamp a session it will read anyway
    /// before reading it (a SQLite host's stamp scans every row's record; issue 31).
    fn stamps_reads(&self) -> bool {
        false
    }
    /// Says this source serves one command that reads each session once and exits (`list`,
    /// `check`, `metrics`): nothing need be kept to read a session again faster.
    fn reads_once(&self) {}
    /// Within [`Self::read_together`], the stamp ([`Self::transcript_stamps`]) of the rows
    /// the last read of `session`'s transcript read: worked out from that read, or, where it
    /// could not tell (a row too large to load, a read of only the rows appended since an
    /// earlier one), asked in the read transaction the read ran in. Either way it describes
    /// exactly what was read, whatever was written since. None when neither can be had.
    fn stamp_of_read(&self, _session: &SessionRef) -> Option<Stamp> {
        None
    }
    /// The last entries of a session's transcript (about `budget` bytes of them, more for one
    /// long entry), for the forecast, which needs only the last turns. The default opens the
    /// transcript; a source that can read a tail cheaply (a file's end, the last rows) does.
    fn transcript_tail(
        &self,
        session: &SessionRef,
        budget: u64,
    ) -> Result<crate::transcript::tail::Tail, SourceError> {
        let t = self.open_transcript(session)?;
        let mut entries = Vec::new();
        let mut bytes = 0u64;
        let mut k = t.entries.len();
        while k > 0 && bytes < budget {
            k -= 1;
            bytes += u64::from(t.entries[k].len);
            if let Ok(v) = t.entry_json(k as u32) {
                entries.push(std::sync::Arc::new(v));
            }
        }
        entries.reverse();
        Ok(crate::transcript::tail::Tail {
            entries,
            complete: k == 0,
        })
    }
    fn changes(&self, what: Watch<'_>) -> Changes;
    /// Calls `each` with every transcript the host archived that it keeps itself (a SQLite
    /// host's archive tables), for the host's spend; false when the source keeps none of its
    /// own (a file host's archives lie beside its transcripts; a Gateway does not expose
    /// them).
    fn each_archived_transcript(&self, _each: &mut dyn FnMut(ArchivedTranscript)) -> bool {
        false
    }
    /// Registers a callback for pushed changes; false when the source only supports polling.
    fn subscribe(&self, _on_change: Box<dyn Fn(Change) + Send + Sync>) -> bool {
        false
    }
    /// Whether someone holds the session's write lock right now. May stat a file; the
    /// default (a source without locks it can see) is `None`.
    fn lock(&self, _session: &SessionRef) -> Option<crate::commit::LockStatus> {
        None
    }
    /// Whether an OpenClaw run is active on the session, asked of whoever runs the turns (a
    /// SQLite host's gateway). `None`: the source has no such check (a file-backed host's runs
    /// are seen through their transcript lock, [`Self::lock`]). May do network I/O, bounded.
    fn active_run(&self, _session: &SessionRef) -> Option<RunState> {
        None
    }
    /// Who writes `op` for `session`. Must not block.
    fn writer(&self, session: &SessionRef, op: Operation) -> Writer;
    /// The transcript file a compaction of `session` writes in place, whose lock says whether
    /// a run is busy with it ([`crate::diagnosis::busy`]); None when no local file is written.
    /// The default asks [`Self::writer`]; a source that never writes a local transcript says
    /// so without building a writer (a list asks once or twice per session).
    fn compacted_in_place(&self, session: &SessionRef) -> Option<std::path::PathBuf> {
        match self.writer(session, Operation::Compact) {
            Writer::Local(LocalWriter {
                transcript: Some(p),
                ..
            }) => Some(p),
            _ => None,
        }
    }
    /// `openclaw.json` (Null when there is none).
    fn config(&self) -> &Value;
    /// How to name the config in a source line (its path, or "config").
    fn config_label(&self) -> String;
    /// The agent's `models.json` catalog: (label for sources, value).
    fn models_json(&self, agent: &str) -> Option<(String, Value)>;
    /// Whose arithmetic the numbers follow (the host's release decides), and a note when the
    /// release was not known and the rules were assumed.
    fn rules(&self) -> (crate::thresholds::Rules, Option<String>) {
        (crate::thresholds::Rules::V2026_2, None)
    }
    /// Whether `used` is decided with the session's transcript ([`crate::used`]). A Gateway's
    /// transcript is one request per session and carries no compaction details, so its
    /// sessions are judged on the store figure the Gateway reports, on every surface alike.
    fn transcripts_decide_used(&self) -> bool {
        true
    }
    /// The agent's workspace (where a flush writes `memory/<date>.md`) and where that
    /// setting came from; None when the source knows no workspace (a bare transcript).
    fn workspace(&self, _agent: &str) -> Option<(PathBuf, String)> {
        None
    }
}

impl fmt::Debug for dyn SessionSource + '_ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.kind(), self.label())
    }
}

/// A shared source.
pub type SourceHandle = Arc<dyn SessionSource>;

/// A session together with the source it lives in: what a front-end holds to reach a
/// session again (open its transcript, ask for its writer). Equal when the references are.
#[derive(Clone)]
pub struct SessionHandle {
    pub source: SourceHandle,
    pub session: SessionRef,
}

impl SessionHandle {
    pub fn new(source: SourceHandle, session: SessionRef) -> SessionHandle {
        SessionHandle { source, session }
    }

    pub fn open_transcript(&self) -> Result<Transcript, SourceError> {
        self.source.open_transcript(&self.session)
    }

    pub fn writer(&self, op: Operation) -> Writer {
        self.source.writer(&self.session, op)
    }

    /// Files to poll for changes of this session's transcript (empty when pushed).
    pub fn transcript_watch(&self) -> Vec<PathBuf> {
        match self.source.changes(Watch::Transcript(&self.session)) {
            Changes::Poll(files) => files,
            Changes::Pushed => Vec::new(),
        }
    }
}

impl PartialEq for SessionHandle {
    fn eq(&self, other: &Self) -> bool {
        self.session == other.session
    }
}

impl Eq for SessionHandle {}

impl fmt::Debug for SessionHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.source, self.session)
    }
}

impl fmt::Display for SessionHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.session.fmt(f)
    }
}

/// The source of a host reached through its Gateway (`--gateway URL`): the one place a remote
/// target is chosen; the layers above see only the trait.
pub fn for_gateway(
    target: crate::gateway::GatewayTarget,
) -> Result<SourceHandle, crate::gateway::GatewayError> {
    Ok(Arc::new(gateway::GatewaySource::new(target)?))
}

/// The source of a resolved host. The one place the era decides what can be read.
pub fn for_host(host: Host) -> SourceHandle {
    match host.era {
        crate::store::Era::File => Arc::new(files::FileStore::new(host)),
        crate::store::Era::Sqlite if host.sqlite.is_some() => {
            Arc::new(sqlite::SqliteStore::new(host))
        }
        crate::store::Era::Sqlite => Arc::new(unreadable::Unreadable::era_b(host)),
    }
}
