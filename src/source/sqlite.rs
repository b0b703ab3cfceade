//! A SQLite host (OpenClaw ≥ 2026.7.2): sessions from `session_nodes`, transcripts from
//! `transcript_events`, read strictly read-only through [`crate::sqlite`]; never written.
//!
//! Order: [`SessionSource::list`] reads every agent database's session rows through the
//! database's kept connection (no read transaction is held between calls, so each listing
//! sees every commit made before it; the TUI lists the host again at every commit, and a new
//! connection parses the schema again and starts with no prepared statement);
//! [`SessionSource::open_transcript`] indexes one session's rows and keeps its database open
//! only for fetching rows on demand. Changes are found by polling the databases and their
//! `-wal` files ([`Changes::Poll`]): every OpenClaw commit changes one of them.
//!
//! Nothing here writes the databases. The one local write a SQLite host allows is a memory
//! flush's notes, appended to `<workspace>/memory/<date>.md` (a plain workspace file) with
//! the flush left unrecorded ([`UNRECORDED_FLUSH`]).

use super::{
    Change, Changes, Listing, LocalWriter, Operation, Session, SessionRef, SessionSource,
    SourceError, SourceKind, Watch, Writer,
};
use crate::store::Host;
use crate::thresholds::Rules;
use crate::transcript::Transcript;
use foldhash::HashMap;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What a memory flush on a SQLite host does not do, said before the operator drafts and
/// again when the notes are written.
pub const UNRECORDED_FLUSH: &str = "the notes are appended to the workspace's memory file, but the flush cannot be recorded on the session: OpenClaw keeps memoryFlushAt in its SQLite database, which only OpenClaw writes and no gateway method sets. OpenClaw's own memory flush stays armed for this compaction cycle and will still run when the session reaches the flush line";

/// What differs from a compaction on a file-backed host, said before the operator types.
pub const GATEWAY_COMPACT_NOTE: &str = "OpenClaw compacts with its own model and saves the summary itself: no preview to edit, nothing for clawtop to commit. Instructions go as /compact <instructions> (800 characters at most); without them, sessions.compact. Refused while a run is active";

/// What [`SessionSource::read_together`] gathers for [`SessionSource::stamp_of_read`].
struct ReadStamps {
    /// Per database and session id, the stamp worked out from the last read of its rows.
    stamps: HashMap<(PathBuf, String), super::Stamp>,
    /// The connections read in one read transaction (every database but a rollback-journal
    /// one, read statement by statement so as not to lock out its writer).
    one_snapshot: HashMap<PathBuf, crate::sqlite::transcript::SharedDb>,
    /// Per database, the files a change of its sessions shows in ([`SqliteStore::watch_files`]),
    /// resolved once for the whole read (a `stat` each, asked once per session) and not again
    /// for each of its thousands of sessions.
    watched: HashMap<PathBuf, Vec<PathBuf>>,
}

/// The stamp of session `sid`'s rows, asked of `db` ([`SessionSource::transcript_stamp`]).
fn stamp_in(db: &crate::sqlite::ReadOnlyDb, sid: &str) -> Option<super::Stamp> {
    let f = crate::sqlite::events::fingerprint(db, sid).ok()?;
    Some(super::stamp::of_rows(f))
}

/// Decoded bytes of rows up to which a session is read whole for its figures.
const WHOLE_READ_MAX: u64 = 1 << 20;

pub struct SqliteStore {
    host: Host,
    rules: (Rules, Option<String>),
    /// Database and transcript session id of every listed session.
    /// Shared with the live-update task, which names changed sessions by their reference.
    rows: Arc<Mutex<super::RefMap<(PathBuf, String)>>>,
    /// The row envelopes of transcripts opened before: a reopen after a change reads only
    /// the rows appended since (live refresh does not re-read whole transcripts).
    indexes: Mutex<HashMap<(PathBuf, String), crate::sqlite::transcript::RowIndex>>,
    /// While [`SessionSource::read_together`] runs: per database and session id, the stamp
    /// of the rows its last read read ([`SessionSource::stamp_of_read`]).
    read_stamps: Mutex<Option<ReadStamps>>,
    /// Set by [`SessionSource::reads_once`]: no row index is kept for a next open.
    reads_once: std::sync::atomic::AtomicBool,
    /// One connection per database for its transcripts, replaced when the file it reads
    /// changed underneath an immutable or copied read.
    conns: Mutex<HashMap<PathBuf, crate::sqlite::transcript::SharedDb>>,
    /// Per database, the session rows its last listing read ([`SessionSource::list`]).
    kept_rows: Mutex<HashMap<PathBuf, crate::sqlite::entry::RowsKept>>,
    /// The listing is remembered between runs ([`SessionSource::recall_listing`]).
    remember_listing: std::sync::atomic::AtomicBool,
    /// Per database, the sessions' tips its last reload read, and the connection they were
    /// read through ([`SessionSource::transcript_tips`]).
    /// (A weak handle: a connection still alive cannot share its address with a new one.)
    #[allow(clippy::type_complexity)]
    tips_since: Mutex<
        HashMap<
            PathBuf,
            (
                std::sync::Weak<Mutex<crate::sqlite::ReadOnlyDb>>,
                crate::sqlite::events::TipsSince,
            ),
        >,
    >,
    /// Where clawtop's device identity for the host's gateway lives (live updates and the
    /// active-run check); `None` when there is no config dir.
    identity_dir: Option<PathBuf>,
    /// Ends the live-update task when the source goes.
    cancel: tokio_util::sync::CancellationToken,
    /// The process environment's gateway settings, read once: `list` asks every session's
    /// compaction writer, and reading the environment each time cost more than the rest of
    /// that answer.
    env: std::sync::OnceLock<crate::gateway::GatewayEnv>,
    /// The gateway the config and environment name, resolved once: a listing asks which
    /// writer each of its thousands of sessions has, and the answer is the host's.
    gateway:
        std::sync::OnceLock<Result<crate::gateway::GatewayTarget, crate::gateway::GatewayError>>,
}

/// `db` followed by `parts`: where in a database a session's data is, written for each of
/// a host's thousands of sessions (sized once; `format!` cost a listing more).
fn in_db(db: &str, parts: &[&str]) -> String {
    let mut out = String::with_capacity(db.len() + parts.iter().map(|p| p.len()).sum::<usize>());
    out.push_str(db);
    parts.iter().for_each(|p| out.push_str(p));
    out
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

impl SqliteStore {
    /// The transcript of `r`, indexed from its rows (reusing the index of the last open of
    /// it); `capture`: for its history too ([`SessionSource::open_transcript_for_history`]).
    fn open_indexed(&self, r: &SessionRef, capture: bool) -> Result<Transcript, SourceError> {
        let (db, sid) = self.located_or_unavailable(r)?;
        let k = (db.clone(), sid.clone());
        let keep = !self.reads_once.load(std::sync::atomic::Ordering::Relaxed);
        let prev = match keep {
            true => self
                .indexes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&k)
                .unwrap_or_default(),
            false => crate::sqlite::transcript::RowIndex::unkept(),
        };
        let conn = self.connection(&db)?;
        let open = if capture {
            crate::sqlite::transcript::open_after_for_history
        } else {
            crate::sqlite::transcript::open_after
        };
        let (opened, index) = open(&conn, &sid, prev)
            .map_err(|e| SourceError::Unavailable(crate::sanitize::one_line(&e.to_string())))?;
        self.note_read_stamp(&k, || opened.fingerprint);
        if keep {
            self.indexes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(k, index);
        }
        Ok(opened.transcript)
    }

    /// While a list reads the host ([`SessionSource::read_together`]): the stamp of the rows
    /// just read for the session at `k`, worked out from that read (`fingerprint`, called
    /// only then), for [`SessionSource::stamp_of_read`]; a read that could not tell it
    /// forgets an earlier one.
    fn note_read_stamp(
        &self,
        k: &(PathBuf, String),
        fingerprint: impl FnOnce() -> Option<crate::sqlite::events::RowsFingerprint>,
    ) {
        let mut stamps = self.read_stamps.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = stamps.as_mut() {
            match fingerprint() {
                Some(f) => r.stamps.insert(k.clone(), super::stamp::of_rows(f)),
                None => r.stamps.remove(k),
            };
        }
    }

    /// A session whose rows come to at most [`WHOLE_READ_MAX`] bytes, read whole in one
    /// statement; a bigger one, or one with a row that does not decode, indexed
    /// ([`Self::open_indexed`]). `capture`: for its history too.
    fn open_whole_or_indexed(
        &self,
        r: &SessionRef,
        capture: bool,
    ) -> Result<Transcript, SourceError> {
        let Some((db, sid)) = self.located(r) else {
            return self.open_indexed(r, capture);
        };
        let conn = self.connection(&db)?;
        let guard = conn.lock().unwrap_or_else(|e| e.into_inner());
        let mut stamp = crate::sqlite::events::FingerprintOfRead::default();
        let text = crate::sqlite::events::read_text_within(
            &guard,
            &sid,
            WHOLE_READ_MAX,
            &mut stamp,
            crate::transcript::end_entry_line,
        )
        .map_err(|e| SourceError::Unavailable(crate::sanitize::one_line(&e.to_string())))?;
        if text.is_some() {
            self.note_read_stamp(&(db.clone(), sid.clone()), || {
                stamp.finish(crate::sqlite::events::rewrite_generation(&guard, &sid))
            });
        }
        drop(guard);
        let label = crate::sqlite::transcript::label(&db, &sid);
        match text.flatten() {
            Some(lines) => Ok(Transcript::from_entry_lines(label, lines, capture)),
            None => self.open_indexed(r, capture),
        }
    }

    /// The sessions read from the databases, as the source lists them (each one's rows
    /// located for opening its transcript).
    fn listing(&self, loaded: crate::sqlite::sessions::Loaded) -> Listing {
        let mut out = Listing {
            warnings: loaded.warnings,
            errors: loaded.errors,
            skipped: loaded.skipped,
            ..Listing::default()
        };
        let mut rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        // Looked at once per agent, not once per session (a stat each).
        let mut agent_warnings: HashMap<String, Vec<String>> = HashMap::default();
        // Named once per database, not once per session: the sessions come a database at
        // a time, thousands of them in a handful of databases.
        let mut db_name: Option<(PathBuf, String)> = None;
        let label = self.label();
        out.sessions.reserve(loaded.sessions.len());
        for mut s in loaded.sessions {
            if !agent_warnings.contains_key(&s.agent_id) {
                let w = self.host.agent_file_warnings(&s.agent_id);
                agent_warnings.insert(s.agent_id.clone(), w);
            }
            s.warnings
                .extend(agent_warnings[&s.agent_id].iter().cloned());
            let reference = SessionRef {
                source: label.clone(),
                agent_id: s.agent_id.clone(),
                key: s.key.clone(),
                session_id: s.entry.session_id.clone(),
            };
            let named = db_name
                .as_ref()
                .is_some_and(|(at, _)| at.as_os_str() == s.db.as_os_str());
            if !named {
                db_name = Some((s.db.clone(), self.rel(&s.db)));
            }
            let db = db_name.as_ref().map_or("", |(_, name)| name.as_str());
            rows.insert(
                reference.clone(),
                (s.db.clone(), s.transcript_session_id.clone()),
            );
            out.sessions.push(Session {
                reference,
                transcript: Some(in_db(db, &["#", &s.transcript_session_id])),
                transcript_how: "transcript_events rows of current_session_id",
                transcript_unread: None,
                entry_from: Some(in_db(db, &["#session_nodes/", &s.key])),
                entry: s.entry,
                warnings: s.warnings,
            });
        }
        out
    }

    /// `host.sqlite` must be set (see [`super::for_host`]).
    pub fn new(host: Host) -> SqliteStore {
        Self::with_identity_dir(host, crate::gateway::identity::config_dir())
    }

    /// [`Self::new`] with clawtop's device identity kept in `dir` rather than its usual
    /// config dir.
    pub fn with_identity_dir(mut host: Host, dir: Option<PathBuf>) -> SqliteStore {
        // Discovery's connections, listed through next (not opened again).
        let conns = host
            .sqlite
            .iter_mut()
            .flat_map(|l| &mut l.agents)
            .filter_map(|a| Some((a.path.clone(), a.opened.take()?.0)))
            .collect();
        SqliteStore {
            rules: host.rules(),
            host,
            rows: Arc::new(Mutex::new(Default::default())),
            indexes: Mutex::new(HashMap::default()),
            read_stamps: Mutex::new(None),
            reads_once: Default::default(),
            conns: Mutex::new(conns),
            kept_rows: Mutex::new(HashMap::default()),
            remember_listing: Default::default(),
            tips_since: Mutex::new(HashMap::default()),
            identity_dir: dir,
            cancel: tokio_util::sync::CancellationToken::new(),
            env: std::sync::OnceLock::new(),
            gateway: std::sync::OnceLock::new(),
        }
    }

    fn layout(&self) -> &crate::sqlite::SqliteLayout {
        static EMPTY: std::sync::OnceLock<crate::sqlite::SqliteLayout> = std::sync::OnceLock::new();
        self.host
            .sqlite
            .as_ref()
            .unwrap_or_else(|| EMPTY.get_or_init(Default::default))
    }

    fn gateway_env(&self) -> &crate::gateway::GatewayEnv {
        self.env
            .get_or_init(crate::gateway::GatewayEnv::from_process)
    }

    /// The host's gateway as the config and environment name it (no I/O; whether it
    /// answers is found on connect), or why none is named.
    fn gateway_target(
        &self,
    ) -> &Result<crate::gateway::GatewayTarget, crate::gateway::GatewayError> {
        self.gateway.get_or_init(|| {
            crate::gateway::target::resolve(
                &self.host.config,
                self.gateway_env(),
                &crate::gateway::Overrides::default(),
            )
        })
    }

    fn rel(&self, p: &Path) -> String {
        p.strip_prefix(&self.host.state_dir)
            .unwrap_or(p)
            .display()
            .to_string()
    }

    /// [`Self::located`], or why the session cannot be read.
    fn located_or_unavailable(&self, r: &SessionRef) -> Result<(PathBuf, String), SourceError> {
        self.located(r).ok_or_else(|| {
            SourceError::Unavailable(format!(
                "no session {} in {}",
                crate::sanitize::one_line(&r.key),
                self.label()
            ))
        })
    }

    fn located(&self, r: &SessionRef) -> Option<(PathBuf, String)> {
        let hit = |s: &Self| {
            s.rows
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(r)
                .cloned()
        };
        if let Some(x) = hit(self) {
            return Some(x);
        }
        self.list(Some(&r.agent_id));
        hit(self)
    }

    /// Each database's sessions among `sessions` (by index, with their transcript's session
    /// id), under one lock of the known rows: a batch asks each database once. A host has a
    /// database or a few: each is found by comparing, and its path copied once.
    fn by_database(&self, sessions: &[&SessionRef]) -> Vec<(PathBuf, Vec<(usize, String)>)> {
        let mut by_db: Vec<(PathBuf, Vec<(usize, String)>)> = Vec::new();
        let rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        for (i, r) in sessions.iter().enumerate() {
            if let Some((db, sid)) = rows.get(*r) {
                let at = match by_db
                    .iter()
                    .position(|(d, _)| d.as_os_str() == db.as_os_str())
                {
                    Some(at) => at,
                    None => {
                        by_db.push((db.clone(), Vec::new()));
                        by_db.len() - 1
                    }
                };
                by_db[at].1.push((i, sid.clone()));
            }
        }
        by_db
    }

    /// `one` of each session of a batch that is not among the known rows (it locates it).
    fn unlocated_each<T>(
        &self,
        sessions: &[&SessionRef],
        out: &mut [Option<T>],
        one: impl Fn(&SessionRef) -> Option<T>,
    ) {
        for (i, r) in sessions.iter().enumerate() {
            if out[i].is_none()
                && !self
                    .rows
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .contains_key(*r)
            {
                out[i] = one(r);
            }
        }
    }

    fn connection(&self, db: &Path) -> Result<crate::sqlite::transcript::SharedDb, SourceError> {
        let mut conns = self.conns.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = conns.get(db) {
            if c.lock()
                .unwrap_or_else(|e| e.into_inner())
                .check_unchanged()
            {
                return Ok(c.clone());
            }
        }
        let c = std::sync::Arc::new(Mutex::new(
            crate::sqlite::ReadOnlyDb::open(db)
                .map_err(|e| SourceError::Unavailable(crate::sanitize::one_line(&e.to_string())))?,
        ));
        conns.insert(db.to_path_buf(), c.clone());
        Ok(c)
    }

    /// `read` through the database's kept connection ([`Self::connection`]): each statement
    /// outside [`SessionSource::read_together`] is a read transaction of its own, so a kept
    /// connection sees every commit made before it. An immutable or copied read that saw the
    /// file change is done again on connections of its own, as before
    /// ([`crate::sqlite::ReadOnlyDb::read_stable`]).
    fn read_pooled<T>(
        &self,
        path: &Path,
        read: &mut dyn FnMut(&crate::sqlite::ReadOnlyDb) -> Result<T, crate::sqlite::open::DbError>,
    ) -> Result<T, crate::sqlite::open::DbError> {
        if let Ok(c) = self.connection(path) {
            let out = {
                let db = c.lock().unwrap_or_else(|e| e.into_inner());
                let out = read(&db);
                db.check_unchanged().then_some(out)
            };
            if let Some(out) = out {
                return out;
            }
        }
        crate::sqlite::ReadOnlyDb::read_stable(path, read)
    }

    /// The host's own gateway, when the config and environment name one on this machine (a
    /// `gateway.mode: "remote"` config names another host's gateway, which does not serve
    /// this database).
    fn local_gateway(&self) -> Option<crate::gateway::GatewayTarget> {
        if self.host.is_demo {
            return None;
        }
        self.gateway_target()
            .as_ref()
            .ok()
            .filter(|t| t.loopback)
            .cloned()
    }

    fn watch_files(&self, dbs: impl Iterator<Item = PathBuf>) -> Vec<PathBuf> {
        dbs.flat_map(|d| [crate::sqlite::open::wal_of(&d), d])
            .collect()
    }
}

/// The read transactions of [`SessionSource::read_together`], ended when dropped (a panic
/// in the work included). A connection whose transaction will not end is dropped from the
/// store's pool, so no later read is held on the old snapshot.
struct ReadTogether<'a> {
    held: Vec<(PathBuf, crate::sqlite::transcript::SharedDb)>,
    pool: &'a Mutex<HashMap<PathBuf, crate::sqlite::transcript::SharedDb>>,
}

impl Drop for ReadTogether<'_> {
    fn drop(&mut self) {
        for (path, c) in &self.held {
            let ended = {
                let db = c.lock().unwrap_or_else(|e| e.into_inner());
                db.conn().execute_batch("COMMIT").is_ok()
                    || db.conn().execute_batch("ROLLBACK").is_ok()
            };
            if !ended {
                tracing::debug!(db = %path.display(), "a read transaction did not end; connection dropped");
                let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
                if pool.get(path).is_some_and(|p| std::sync::Arc::ptr_eq(p, c)) {
                    pool.remove(path);
                }
            }
        }
    }
}

impl SessionSource for SqliteStore {
    fn read_together(&self, work: &mut dyn FnMut()) {
        let mut held = ReadTogether {
            held: Vec::new(),
            pool: &self.conns,
        };
        for a in &self.layout().agents {
            let Ok(c) = self.connection(&a.path) else {
                continue;
            };
            let begun = {
                let db = c.lock().unwrap_or_else(|e| e.into_inner());
                // A rollback-journal database would be locked against its writer for as long
                // as the work runs: read it statement by statement as before.
                db.mode != crate::sqlite::OpenMode::Rollback
                    && db.conn().execute_batch("BEGIN").is_ok()
            };
            if begun {
                held.held.push((a.path.clone(), c));
            }
        }
        *self.read_stamps.lock().unwrap_or_else(|e| e.into_inner()) = Some(ReadStamps {
            stamps: HashMap::default(),
            one_snapshot: held.held.iter().cloned().collect(),
            watched: HashMap::default(),
        });
        work();
        *self.read_stamps.lock().unwrap_or_else(|e| e.into_inner()) = None;
        drop(held);
    }

    fn stamps_reads(&self) -> bool {
        true
    }

    fn reads_once(&self) {
        self.reads_once
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn stamp_of_read(&self, r: &SessionRef) -> Option<super::Stamp> {
        let k = self.located(r)?;
        let held = {
            let reads = self.read_stamps.lock().unwrap_or_else(|e| e.into_inner());
            let reads = reads.as_ref()?;
            if let Some(s) = reads.stamps.get(&k) {
                return Some(s.clone());
            }
            reads.one_snapshot.get(&k.0)?.clone()
        };
        let (db, sid) = k;
        // Not worked out by a read (none was made, or one that read only the rows appended
        // since an earlier index): asked now, through the connection every read of this
        // database went through, in its read transaction: what the read saw. A connection
        // replaced since (an immutable or copied read whose file changed) answers nothing.
        let conn = self
            .conns
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&db)
            .cloned()?;
        if !Arc::ptr_eq(&conn, &held) {
            return None;
        }
        let guard = held.lock().unwrap_or_else(|e| e.into_inner());
        guard.check_unchanged().then(|| stamp_in(&guard, &sid))?
    }

    fn kind(&self) -> SourceKind {
        SourceKind::Sqlite
    }

    fn label(&self) -> String {
        self.host.state_dir.display().to_string()
    }

    fn warnings(&self) -> Vec<String> {
        let mut w = vec![format!(
            "{}; read-only: clawtop never writes here",
            self.host.era_message()
        )];
        w.extend(self.host.warnings.iter().cloned());
        if let Some(n) = &self.rules.1 {
            w.push(n.clone());
        }
        w
    }

    fn is_demo(&self) -> bool {
        self.host.is_demo
    }

    fn has_agent(&self, agent: &str) -> bool {
        self.host.agent(agent).is_some() || self.layout().agents.iter().any(|a| a.agent_id == agent)
    }

    /// The rows read before are kept ([`crate::sqlite::entry::read_sessions_kept`]): the
    /// TUI lists the host again at every change of a database, and most of what it would
    /// read again (the entries' JSON) has not changed.
    fn list(&self, agent: Option<&str>) -> Listing {
        let mut kept = self.kept_rows.lock().unwrap_or_else(|e| e.into_inner());
        let remember = self
            .remember_listing
            .load(std::sync::atomic::Ordering::Relaxed);
        self.listing(crate::sqlite::sessions::load_through(
            self.layout(),
            agent,
            &mut |path, read| self.read_pooled(path, read),
            &mut |db: &crate::sqlite::ReadOnlyDb| {
                let k = kept.entry(db.path.clone()).or_default();
                k.remember |= remember;
                crate::sqlite::entry::read_sessions_kept(db, k, &|| {
                    super::stamp::of_database(&db.path)
                })
            },
        ))
    }

    /// Per database: the session rows that changed ([`crate::sqlite::entry::changed_rows`])
    /// and the kept rows of the sessions appended to ([`crate::sqlite::events::TipsSince::appended`]),
    /// through the connection the listing and the tips were read through; None where either
    /// cannot tell, or the database changed under an immutable read. A database read before
    /// another said None is not asked (what it consumed is seen by the whole listing: its
    /// changed rows are kept as read, and its appended sessions' tips are read again).
    fn list_changed(&self, agent: Option<&str>) -> Option<Listing> {
        let mut kept = self.kept_rows.lock().unwrap_or_else(|e| e.into_inner());
        let mut since = self.tips_since.lock().unwrap_or_else(|e| e.into_inner());
        let mut whole = false;
        let loaded = crate::sqlite::sessions::load_each(self.layout(), agent, &mut |path| {
            let mut changed = || -> Option<Vec<crate::sqlite::entry::SessionRow>> {
                let k = kept.get_mut(path)?;
                let conn = self.connection(path).ok()?;
                // A database of no sessions has no tips to compare (and still none when
                // its row count says so).
                let mut t = since
                    .get_mut(path)
                    .filter(|t| t.0.upgrade().is_some_and(|c| Arc::ptr_eq(&c, &conn)));
                if t.is_none() && !k.is_empty() {
                    return None;
                }
                let db = conn.lock().unwrap_or_else(|e| e.into_inner());
                // One read transaction: the session rows and the appends of one state.
                let own = db.conn().is_autocommit() && db.conn().execute_batch("BEGIN").is_ok();
                let read = crate::sqlite::entry::changed_rows(&db, k)
                    .ok()
                    .flatten()
                    .and_then(|rows| match t.as_mut() {
                        Some(t) => Some((rows, t.1.appended(&db).ok()??)),
                        None => Some((rows, Default::default())),
                    });
                if own {
                    let _ = db.conn().execute_batch("COMMIT");
                }
                let (mut rows, appended) = read?;
                if !db.check_unchanged() || (t.is_none() && !rows.is_empty()) {
                    return None;
                }
                let listed: std::collections::HashSet<String> =
                    rows.iter().map(|r| r.key.clone()).collect();
                rows.extend(
                    crate::sqlite::entry::kept_rows_of(k, &appended)
                        .into_iter()
                        .filter(|r| !listed.contains(&r.key)),
                );
                Some(rows)
            };
            if whole {
                return Ok(Vec::new());
            }
            match changed() {
                Some(rows) => Ok(rows),
                None => {
                    whole = true;
                    Ok(Vec::new())
                }
            }
        });
        drop((kept, since));
        if whole || !loaded.errors.is_empty() || !loaded.skipped.is_empty() {
            return None;
        }
        Some(self.listing(loaded))
    }

    /// Per database (by its path), its rows as [`crate::sqlite::entry::RowsKept`] writes them.
    fn listing_memory(&self) -> Option<Vec<u8>> {
        let kept = self.kept_rows.lock().unwrap_or_else(|e| e.into_inner());
        let remembered: Vec<(&str, Vec<u8>)> = kept
            .iter()
            .filter_map(|(db, k)| Some((db.to_str()?, k.remembered()?)))
            .collect();
        if remembered.is_empty() {
            return None;
        }
        let by_db: std::collections::BTreeMap<&str, &serde_bytes::Bytes> = remembered
            .iter()
            .map(|(db, rows)| (*db, serde_bytes::Bytes::new(rows)))
            .collect();
        rmp_serde::to_vec_named(&by_db).ok()
    }

    fn listing_moved(&self) -> bool {
        let kept = self.kept_rows.lock().unwrap_or_else(|e| e.into_inner());
        kept.values().any(|k| k.remember && k.moved)
    }

    fn recall_listing(&self, memory: Option<&[u8]>) {
        self.remember_listing
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let Some(by_db) = memory
            .and_then(|m| rmp_serde::from_slice::<HashMap<PathBuf, &serde_bytes::Bytes>>(m).ok())
        else {
            return;
        };
        let mut kept = self.kept_rows.lock().unwrap_or_else(|e| e.into_inner());
        for (db, rows) in by_db {
            kept.entry(db).or_default().recall(rows);
        }
    }

    /// A full key is looked up by the table's primary key: rule 1 of [`super::lookup`] wins
    /// whenever it matches, so the other rows cannot change which session `name` names.
    /// Opening one session of a host of thousands then reads one `entry_json`, not all.
    fn listing_named(&self, agent: Option<&str>, name: &str) -> Option<Listing> {
        crate::sqlite::sessions::load_key(self.layout(), agent, name.trim())
            .map(|loaded| self.listing(loaded))
    }

    fn open_transcript(&self, r: &SessionRef) -> Result<Transcript, SourceError> {
        self.open_indexed(r, false)
    }

    fn open_transcript_for_history(&self, r: &SessionRef) -> Result<Transcript, SourceError> {
        self.open_whole_or_indexed(r, true)
    }

    fn transcript_stamp(&self, r: &SessionRef) -> Option<super::Stamp> {
        let (db, sid) = self.located(r)?;
        let conn = self.connection(&db).ok()?;
        let guard = conn.lock().unwrap_or_else(|e| e.into_inner());
        stamp_in(&guard, &sid)
    }

    fn transcript_stamps(&self, sessions: &[&SessionRef]) -> Vec<Option<super::Stamp>> {
        let mut out = vec![None; sessions.len()];
        for (db, wanted) in self.by_database(sessions) {
            let Ok(conn) = self.connection(&db) else {
                continue;
            };
            let guard = conn.lock().unwrap_or_else(|e| e.into_inner());
            let ids: Vec<&str> = wanted.iter().map(|(_, sid)| sid.as_str()).collect();
            let Ok(stamps) = crate::sqlite::events::fingerprints(&guard, &ids) else {
                continue;
            };
            for ((i, _), f) in wanted.iter().zip(stamps) {
                out[*i] = f.ok().map(super::stamp::of_rows);
            }
        }
        // A session not among the known rows is located (the listing read again) one by one.
        self.unlocated_each(sessions, &mut out, |r| self.transcript_stamp(r));
        out
    }

    fn transcript_stores(&self, sessions: &[&SessionRef]) -> Vec<Option<String>> {
        let mut out = vec![None; sessions.len()];
        for (db, wanted) in self.by_database(sessions) {
            let stamp = super::stamp::of_database(&db);
            for (i, _) in wanted {
                out[i].clone_from(&stamp);
            }
        }
        out
    }

    fn transcript_tip(&self, r: &SessionRef) -> Option<super::Stamp> {
        let (db, sid) = self.located(r)?;
        let conn = self.connection(&db).ok()?;
        let guard = conn.lock().unwrap_or_else(|e| e.into_inner());
        let t = crate::sqlite::events::tip(&guard, &sid).ok()?;
        Some(super::stamp::of_rows_tip(t))
    }

    /// Each database's tips through its [`crate::sqlite::events::TipsSince`]: a reload reads
    /// the tips of the sessions whose rows changed since the one before, not every session's.
    fn transcript_tips(&self, sessions: &[&SessionRef]) -> Vec<Option<super::Stamp>> {
        // How many sessions each database lists: a call for all of them (a whole listing)
        // or for some (the sessions a reload found changed; `TipsSince::tips_of`).
        // (A few databases: found by comparing, each path copied once.)
        let listed: Vec<(PathBuf, usize)> = {
            let rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
            let mut n: Vec<(PathBuf, usize)> = Vec::new();
            for (p, _) in rows.values() {
                match n.iter_mut().find(|(q, _)| q == p) {
                    Some((_, c)) => *c += 1,
                    None => n.push((p.clone(), 1)),
                }
            }
            n
        };
        let mut out = vec![None; sessions.len()];
        for (db, wanted) in self.by_database(sessions) {
            let Ok(conn) = self.connection(&db) else {
                continue;
            };
            // What was read through another connection (the file replaced, or a read that
            // would not end) is not compared with.
            let mut since = self.tips_since.lock().unwrap_or_else(|e| e.into_inner());
            let kept = since.entry(db.clone()).or_default();
            if kept
                .0
                .upgrade()
                .is_none_or(|c| !std::sync::Arc::ptr_eq(&c, &conn))
            {
                *kept = (std::sync::Arc::downgrade(&conn), Default::default());
            }
            let guard = conn.lock().unwrap_or_else(|e| e.into_inner());
            let ids: Vec<&str> = wanted.iter().map(|(_, sid)| sid.as_str()).collect();
            let every = listed
                .iter()
                .find(|(p, _)| *p == db)
                .is_none_or(|&(_, n)| n <= ids.len());
            let Ok(tips) = kept.1.tips_of(&guard, &ids, every) else {
                continue;
            };
            for ((i, _), t) in wanted.iter().zip(tips) {
                out[*i] = t.ok().map(super::stamp::of_rows_tip);
            }
        }
        // A session not among the known rows is located (the listing read again) one by one.
        self.unlocated_each(sessions, &mut out, |r| self.transcript_tip(r));
        out
    }

    /// A session whose rows come to at most [`WHOLE_READ_MAX`] bytes is read whole in one
    /// statement and held in memory: `list` has thousands of such sessions, and indexing one
    /// then fetching its last entries row by row cost more than reading it. A bigger one, or
    /// one with a row that does not decode (the index names it in a warning), is indexed.
    fn open_transcript_for_figures(&self, r: &SessionRef) -> Result<Transcript, SourceError> {
        self.open_whole_or_indexed(r, false)
    }

    fn transcript_tail(
        &self,
        r: &SessionRef,
        budget: u64,
    ) -> Result<crate::transcript::tail::Tail, SourceError> {
        let (db, sid) = self.located_or_unavailable(r)?;
        let conn = self.connection(&db)?;
        let guard = conn.lock().unwrap_or_else(|e| e.into_inner());
        // Newest first, within the read's limits (`read_limits`: the first read stops at
        // the user turns the forecast takes).
        let (budget, max_users) = crate::transcript::tail::read_limits(budget);
        let (mut entries, mut bytes, mut users) = (Vec::new(), 0u64, 0usize);
        let complete = crate::sqlite::events::last_rows(&guard, &sid, |b| {
            bytes += b.len() as u64;
            if let Some(v) = crate::transcript::tail::slim(b) {
                if v.pointer("/message/role")
                    .and_then(serde_json::Value::as_str)
                    == Some("user")
                {
                    users += 1;
                }
                entries.push(std::sync::Arc::new(v));
            }
            bytes < budget && max_users.is_none_or(|m| users <= m)
        })
        .map_err(|e| SourceError::Unavailable(crate::sanitize::one_line(&e.to_string())))?;
        drop(guard);
        entries.reverse();
        Ok(crate::transcript::tail::Tail { entries, complete })
    }

    fn each_archived_transcript(&self, each: &mut dyn FnMut(super::ArchivedTranscript)) -> bool {
        for a in self.layout().agents.iter().filter(|a| a.has_sessions) {
            let db_label = self.rel(&a.path);
            let read = self.connection(&a.path).and_then(|c| {
                let db = c.lock().unwrap_or_else(|e| e.into_inner());
                crate::sqlite::archives::each(
                    &db,
                    crate::transcript::archive::MAX_BYTES,
                    &mut |row| {
                        let name = format!("{db_label}#archive/{}", row.name);
                        each(super::ArchivedTranscript {
                            agent: a.agent_id.clone(),
                            transcript: row.jsonl.map(|b| Transcript::from_bytes(name.clone(), b)),
                            name,
                        })
                    },
                )
                .map_err(|e| SourceError::Unavailable(crate::sanitize::one_line(&e.to_string())))
            });
            if let Err(e) = read {
                each(super::ArchivedTranscript {
                    agent: a.agent_id.clone(),
                    name: format!("{db_label}#archives"),
                    transcript: Err(crate::transcript::archive::ArchiveError::Unavailable(
                        e.to_string(),
                    )),
                });
            }
        }
        true
    }

    fn changes(&self, what: Watch<'_>) -> Changes {
        match what {
            Watch::Sessions { agent } => Changes::Poll(
                self.watch_files(
                    self.layout()
                        .agents
                        .iter()
                        .filter(|a| agent.is_none_or(|o| o == a.agent_id))
                        .map(|a| a.path.clone()),
                ),
            ),
            Watch::Transcript(r) => {
                let Some(db) = self
                    .rows
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(r)
                    .map(|(db, _)| db.clone())
                else {
                    return Changes::Poll(Vec::new());
                };
                let mut reads = self.read_stamps.lock().unwrap_or_else(|e| e.into_inner());
                let files = match reads.as_mut() {
                    Some(reads) => reads
                        .watched
                        .entry(db)
                        .or_insert_with_key(|db| self.watch_files(std::iter::once(db.clone())))
                        .clone(),
                    None => self.watch_files(std::iter::once(db)),
                };
                Changes::Poll(files)
            }
        }
    }

    /// Live updates from the host's own gateway, next to the polling (which stays: it is what
    /// shows changes while no gateway runs). Nothing is said until the gateway first answers:
    /// a host whose gateway is stopped is simply polled. The first connection pairs clawtop's
    /// device with the gateway (silent on loopback; docs/sqlite-host.md §5); `--no-live` opts out.
    fn subscribe(&self, on_change: Box<dyn Fn(Change) + Send + Sync>) -> bool {
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            return false;
        };
        let Some(target) = self.local_gateway() else {
            return false;
        };
        let Some(dir) = self.identity_dir.clone() else {
            return false;
        };
        let rows = self.rows.clone();
        let cancel = self.cancel.child_token();
        handle.spawn(async move {
            use crate::gateway::live::{self, Backoff, LiveEvent};
            // Wait for a gateway to listen before creating clawtop's device key: a host
            // whose gateway is stopped is polled, and nothing is said.
            while !crate::gateway::target::accepts_connections(
                &target.url,
                std::time::Duration::from_secs(1),
            )
            .await
            {
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    _ = tokio::time::sleep(std::time::Duration::from_secs(5)) => {}
                }
            }
            let identity = match tokio::task::spawn_blocking(move || {
                crate::gateway::DeviceIdentity::load_or_create(&dir)
            })
            .await
            {
                Ok(Ok(i)) => Arc::new(i),
                Ok(Err(e)) => return on_change(Change::LiveUnavailable(e.to_string())),
                Err(_) => return,
            };
            let mut rx = live::watch(
                target,
                identity,
                crate::gateway::Timeouts::default(),
                Backoff::default(),
                cancel,
            );
            let mut was_up = false;
            while let Some(ev) = rx.recv().await {
                match ev {
                    LiveEvent::Connected { .. } => {
                        was_up = true;
                        on_change(Change::Live(true));
                        // Whatever changed while the gateway was away.
                        on_change(Change::Sessions);
                    }
                    LiveEvent::Disconnected { .. } if was_up => on_change(Change::Live(false)),
                    LiveEvent::Disconnected { .. } => {}
                    LiveEvent::Failed { message } => on_change(Change::LiveUnavailable(message)),
                    LiveEvent::SessionChanged { key, .. } => {
                        on_change(Change::Sessions);
                        let Some(k) = key else { continue };
                        let found = rows
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .keys()
                            .find(|r| r.key == k)
                            .cloned();
                        if let Some(r) = found {
                            on_change(Change::Transcript(r));
                        }
                    }
                }
            }
        });
        true
    }

    fn active_run(&self, r: &SessionRef) -> Option<super::RunState> {
        use super::RunState;
        if self.host.is_demo {
            return None;
        }
        let target = match self.gateway_target() {
            Ok(t) => t.clone(),
            Err(e) => {
                return Some(RunState::Unknown(format!(
                    "no gateway to ask whether a run is active ({e})"
                )));
            }
        };
        let Some(dir) = self.identity_dir.clone() else {
            return Some(RunState::Unknown(
                "could not ask the gateway whether a run is active: no config dir for clawtop's device identity (set HOME or CLAWTOP_CONFIG_DIR)".into(),
            ));
        };
        let url = crate::gateway::target::redact_userinfo(&target.url);
        Some(
            match crate::gateway::ops::active_run_blocking(&target, &dir, &r.key) {
                Ok(true) => RunState::Active,
                Ok(false) => RunState::Idle,
                Err(e) => RunState::Unknown(match e {
                    crate::gateway::GatewayError::Unreachable { .. } => format!(
                        "no gateway answered at {url}, so no gateway run can be active; a run started with `openclaw agent --local` cannot be seen from outside"
                    ),
                    e => format!("could not ask the gateway at {url} whether a run is active: {e}"),
                }),
            },
        )
    }

    /// Only the Gateway writes a SQLite host's transcripts ([`Self::writer`]): no local file.
    fn compacted_in_place(&self, _r: &SessionRef) -> Option<std::path::PathBuf> {
        None
    }

    fn writer(&self, _r: &SessionRef, op: Operation) -> Writer {
        match op {
            // Only OpenClaw's Gateway may change the database. Its address comes from the
            // config and environment (no I/O here); whether it answers is found on connect.
            Operation::Compact => match self.gateway_target() {
                Ok(t) => Writer::Remote(Box::new(super::RemoteWriter {
                    via: format!(
                        "OpenClaw's Gateway at {}",
                        crate::gateway::target::redact_userinfo(&t.url)
                    ),
                    note: GATEWAY_COMPACT_NOTE.into(),
                    target: t.clone(),
                })),
                Err(e) => Writer::ReadOnly(format!(
                    "{} ({e})",
                    self.host.sqlite_write_refusal("compaction")
                )),
            },
            // The notes go to `<workspace>/memory/<date>.md`, a plain workspace file; what
            // cannot happen is the record on the session (memoryFlushAt and its cycle live in
            // the database, and no gateway method sets them).
            Operation::Flush => Writer::Local(LocalWriter {
                transcript: None,
                store: None,
                unrecorded: Some(UNRECORDED_FLUSH.to_string()),
            }),
        }
    }

    fn config(&self) -> &Value {
        &self.host.config
    }

    fn config_label(&self) -> String {
        self.host.config_label()
    }

    fn models_json(&self, agent: &str) -> Option<(String, Value)> {
        self.host.models_json_labelled(agent)
    }

    fn rules(&self) -> (Rules, Option<String>) {
        self.rules.clone()
    }

    fn workspace(&self, agent: &str) -> Option<(PathBuf, String)> {
        let home = self.host.home.clone().unwrap_or_else(|| PathBuf::from("/"));
        let (w, src) =
            crate::flush::workspace_for(&self.host.config, &self.host.state_dir, agent, &home);
        Some((w, src.to_string()))
    }
}
