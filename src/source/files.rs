//! The file-backed host (OpenClaw ≤ 2026.7.1): `agents/<id>/sessions/sessions.json` and one
//! JSONL transcript per session, read through [`crate::store::Host`] (the streaming store
//! parse and the transcript path rules live there).

use super::{
    Changes, Listing, LocalWriter, Operation, Session, SessionRef, SessionSource, SourceError,
    SourceKind, Watch, Writer,
};
use crate::commit::StoreRow;
use crate::store::live::{Diff, StoreBytes};
use crate::store::{Agent, Host, StoreEntry, TranscriptHow};
use crate::transcript::Transcript;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub struct FileStore {
    host: Host,
    /// Transcript path of every listed session, None for a listed session without a
    /// transcript file (so asking about it again does not read the store again: on a host
    /// whose store keeps entries after their transcripts are gone, that made `list`
    /// quadratic). Paths stay inside this source: the layers above hold only [`SessionRef`]s.
    transcripts: Mutex<HashMap<SessionRef, Option<PathBuf>>>,
    /// What the last listing read, for [`SessionSource::list_changed`].
    live: Mutex<Live>,
    /// Someone watches the stores ([`SessionSource::changes`]) or asked what changed: the
    /// listings keep what [`Live`] holds. A one-shot `list` keeps nothing (it does not hold
    /// a store of tens of megabytes while it measures every transcript).
    wanted: std::sync::atomic::AtomicBool,
    /// What the one-shot listings remember between runs ([`SessionSource::listing_memory`]).
    remembered: Mutex<Remembered>,
}

/// Each store's entries as parsed, with the store's stamp taken before it was read, kept
/// between runs in the rows cache ([`SessionSource::listing_memory`], docs/cache.md): while
/// a store's stamp ([`crate::source::stamp::of_file`]: identity, size, times and both ends'
/// bytes, settled) is that one, its entries are these, and `check` from cron or `metrics`
/// every minute does not parse a store of tens of megabytes again to list what it listed
/// last time (issue 31, warm). Only a store whose every entry parsed is remembered (a
/// skipped entry's reason is read again each run); the TUI, which keeps the bytes to compare
/// ([`Live`]), reads its stores itself.
#[derive(Default)]
struct Remembered {
    /// A rows cache asked for the memory ([`SessionSource::recall_listing`]).
    on: bool,
    /// By store path.
    stores: std::collections::BTreeMap<PathBuf, RememberedStore>,
    /// A store was parsed (or forgotten) since the memory was recalled: worth writing.
    moved: bool,
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct RememberedStore {
    stamp: crate::source::Stamp,
    entries: Vec<(String, StoreEntry)>,
}

impl Remembered {
    /// The entries of `a`'s store: remembered while its stamp holds, else read (and
    /// remembered when they can be).
    fn entries(
        &mut self,
        a: &Agent,
    ) -> Result<Vec<crate::store_entry::ParsedEntry>, crate::store_entry::StoreFileError> {
        let stamp = crate::source::stamp::of_file(&a.store_path);
        if let (Some(now), Some(r)) = (&stamp, self.stores.get(&a.store_path)) {
            if r.stamp == *now {
                tracing::debug!(target: "clawtop::io", io = "sessions.json remembered", agent = %a.id, "sessions.json remembered");
                return Ok(r
                    .entries
                    .iter()
                    .map(|(key, e)| crate::store_entry::ParsedEntry {
                        key: key.clone(),
                        entry: Ok(e.clone()),
                    })
                    .collect());
            }
        }
        // A store held and now read again is worth writing, whatever the read gives.
        self.moved |= self.stores.remove(&a.store_path).is_some();
        let parsed = crate::store_entry::read(&a.store_path)?;
        let whole: Option<Vec<(String, StoreEntry)>> = parsed
            .iter()
            .map(|p| Some((p.key.clone(), p.entry.clone().ok()?)))
            .collect();
        if let (Some(stamp), Some(entries)) = (stamp, whole) {
            self.stores
                .insert(a.store_path.clone(), RememberedStore { stamp, entries });
            self.moved = true;
        }
        Ok(parsed)
    }
}

/// What a listing read, kept to tell which sessions changed since (issue 31, live): each
/// store's bytes ([`StoreBytes`]: a rewrite is compared with them, only the entries that
/// differ are parsed) and each session's entry, transcript and its `stat`.
#[derive(Default)]
struct Live {
    /// A change was found that only a whole listing can tell: nothing is patched until one.
    whole_due: bool,
    /// By agent id: its store as the last listing or patch read it. An agent missing here
    /// (its store could not be read) makes every patch a whole listing.
    stores: HashMap<String, KeptStore>,
    /// By (agent id, key): each session listed.
    sessions: HashMap<(String, String), KeptSession>,
}

struct KeptStore {
    /// Taken before the bytes were read: equal and settled, the bytes are still the file's.
    stat: Option<FileStat>,
    bytes: StoreBytes,
}

struct KeptSession {
    entry: StoreEntry,
    transcript: Option<PathBuf>,
    how: TranscriptHow,
    refused: Option<String>,
    /// The transcript's `stat` taken before its row was built.
    tip: Option<FileStat>,
}

/// A file's identity, size and times, from one `stat` (links followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStat {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i64,
    ctime_ns: i64,
}

impl FileStat {
    fn of(path: &Path) -> Option<FileStat> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
        Some(FileStat {
            dev: m.dev(),
            ino: m.ino(),
            size: m.len(),
            mtime_ns: ns(m.mtime(), m.mtime_nsec()),
            ctime_ns: ns(m.ctime(), m.ctime_nsec()),
        })
    }

    /// Its times are older than [`super::stamp::SETTLE`]: a write in the same clock tick
    /// as the `stat` would have shown since (git's "racily clean" rule). An unsettled file
    /// is looked at again at the next patch.
    fn settled(&self) -> bool {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as i64)
            .unwrap_or(i64::MAX);
        now.saturating_sub(self.mtime_ns.max(self.ctime_ns))
            >= super::stamp::SETTLE.as_nanos() as i64
    }

    /// Still what `kept` said, and `kept` had settled.
    fn still(now: Option<FileStat>, kept: Option<FileStat>) -> bool {
        now.is_some() && now == kept && kept.is_some_and(|k| k.settled())
    }
}

impl KeptSession {
    fn of(s: &crate::store::Session, tip: Option<FileStat>) -> KeptSession {
        KeptSession {
            entry: s.entry.clone(),
            transcript: s.transcript.clone(),
            how: s.transcript_how,
            refused: s.transcript_refused.clone(),
            tip,
        }
    }
}

impl FileStore {
    pub fn new(host: Host) -> FileStore {
        FileStore {
            host,
            transcripts: Mutex::new(HashMap::new()),
            live: Mutex::new(Live::default()),
            wanted: std::sync::atomic::AtomicBool::new(false),
            remembered: Mutex::new(Remembered::default()),
        }
    }

    pub fn host(&self) -> &Host {
        &self.host
    }

    fn reference(&self, agent_id: &str, key: &str, session_id: &str) -> SessionRef {
        SessionRef {
            source: self.label(),
            agent_id: agent_id.to_string(),
            key: key.to_string(),
            session_id: session_id.to_string(),
        }
    }

    /// The transcript path of a session: remembered from the last listing (which also
    /// remembers that a session has none), else the agent's store is read again (a reference
    /// from an earlier run, or a session listed since) without probing the gateway again.
    fn transcript_path(&self, r: &SessionRef) -> Option<PathBuf> {
        if let Some(known) = self.known(r) {
            return known;
        }
        let loaded = self.host.load_sessions(Some(&r.agent_id));
        self.remember(&loaded.sessions);
        self.cached(r)
    }

    /// [`Self::transcript_path`], or why there is none.
    fn transcript_path_of(&self, r: &SessionRef) -> Result<PathBuf, SourceError> {
        self.transcript_path(r).ok_or_else(|| {
            SourceError::Unavailable(format!(
                "no transcript file for {} in {}",
                crate::sanitize::one_line(&r.key),
                self.label()
            ))
        })
    }

    /// What the last listing said of this session's transcript: Some(None) when it had none,
    /// None when the session was not listed.
    fn known(&self, r: &SessionRef) -> Option<Option<PathBuf>> {
        self.transcripts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(r)
            .cloned()
    }

    fn cached(&self, r: &SessionRef) -> Option<PathBuf> {
        self.known(r).flatten()
    }

    fn remember(&self, sessions: &[crate::store::Session]) {
        let mut paths = self.transcripts.lock().unwrap_or_else(|e| e.into_inner());
        for s in sessions {
            let reference = self.reference(&s.agent_id, &s.key, &s.entry.session_id);
            paths.insert(reference, s.transcript.clone());
        }
    }

    /// A session of the store as the sources list it.
    fn session(&self, mut s: crate::store::Session) -> Session {
        s.warnings
            .extend(self.host.agent_file_warnings(&s.agent_id));
        let reference = self.reference(&s.agent_id, &s.key, &s.entry.session_id);
        Session {
            reference,
            transcript: s.transcript.as_ref().map(|p| p.display().to_string()),
            transcript_how: s.transcript_how.describe(),
            transcript_unread: s.transcript_refused,
            entry_from: self
                .host
                .agent(&s.agent_id)
                .map(|a| a.store_path.display().to_string()),
            entry: s.entry,
            warnings: s.warnings,
        }
    }

    /// The host's stores read (of one agent, when given), kept with each session's entry,
    /// transcript and its `stat` when someone will ask what changed.
    fn load(&self, agent: Option<&str>) -> crate::store::Loaded {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        if !self.wanted.load(std::sync::atomic::Ordering::Relaxed) {
            *live = Live::default();
            let mut mem = self.remembered.lock().unwrap_or_else(|e| e.into_inner());
            if !mem.on {
                return self.host.load_sessions(agent);
            }
            let loaded = self.host.load_sessions_with(agent, &mut |a| mem.entries(a));
            if agent.is_none() {
                // Only the stores listed now are remembered: a removed agent's is forgotten.
                let listed: HashSet<&Path> = self
                    .host
                    .agents
                    .iter()
                    .map(|a| a.store_path.as_path())
                    .collect();
                let before = mem.stores.len();
                mem.stores.retain(|p, _| listed.contains(p.as_path()));
                mem.moved |= mem.stores.len() != before;
            }
            return loaded;
        }
        let mut stores = HashMap::new();
        let loaded = self.host.load_sessions_with(agent, &mut |a| {
            let stat = FileStat::of(&a.store_path);
            let mut bytes = Vec::new();
            crate::store_entry::read_into(&a.store_path, &mut bytes)?;
            let parsed = crate::store_entry::parse(&bytes)?;
            let bytes = StoreBytes::new(bytes, &parsed);
            stores.insert(a.id.clone(), KeptStore { stat, bytes });
            Ok(parsed)
        });
        let mut stats: HashMap<&Path, Option<FileStat>> = HashMap::new();
        let sessions = loaded
            .sessions
            .iter()
            .map(|s| {
                let tip = s
                    .transcript
                    .as_deref()
                    .and_then(|p| *stats.entry(p).or_insert_with(|| FileStat::of(p)));
                ((s.agent_id.clone(), s.key.clone()), KeptSession::of(s, tip))
            })
            .collect();
        *live = Live {
            whole_due: false,
            stores,
            sessions,
        };
        loaded
    }

    /// The sessions whose store entry or transcript changed since the last listing or
    /// patch, and what is kept moved on to now; None when that cannot be told.
    fn changed(&self, live: &mut Live, agent: Option<&str>) -> Option<Vec<crate::store::Session>> {
        let mut out = Vec::new();
        // By agent, then key: looked up for every kept session without building its pair.
        let mut named: foldhash::HashMap<String, foldhash::HashSet<String>> = Default::default();
        let wanted = |a: &&Agent| a.has_store && agent.is_none_or(|o| o == a.id);
        for a in self.host.agents.iter().filter(wanted) {
            let kept = live.stores.get_mut(&a.id)?;
            let stat = FileStat::of(&a.store_path);
            if FileStat::still(stat, kept.stat) {
                continue;
            }
            let file = crate::regular_file::open(&a.store_path).ok()?;
            let entries = match kept.bytes.compare_file(&file) {
                Diff::Same => Vec::new(),
                Diff::Entries(entries) => entries,
                Diff::Unsure => return None,
            };
            for (key, entry) in entries {
                let k = (a.id.clone(), key);
                // An entry that was not listed (it could not be read) is a session added:
                // only a whole listing tells it.
                if !live.sessions.contains_key(&k) {
                    return None;
                }
                out.push(self.host.session_of(a, k.1.clone(), entry));
                named.entry(k.0).or_default().insert(k.1);
            }
            kept.stat = stat;
        }
        // Every kept session is looked at once a poll: nothing of its is copied to do it.
        let mut stats: foldhash::HashMap<&Path, Option<FileStat>> = Default::default();
        let mut dirs = HashMap::new();
        for ((agent_id, key), kept) in &live.sessions {
            if agent.is_some_and(|o| o != agent_id)
                || named
                    .get(agent_id.as_str())
                    .is_some_and(|keys| keys.contains(key.as_str()))
            {
                continue;
            }
            let a = self.host.agent(agent_id)?;
            if self.transcript_moved(a, kept, &mut stats, &mut dirs) {
                out.push(self.host.session_of(a, key.clone(), kept.entry.clone()));
            }
        }
        // Sessions on one transcript one after the other: the rows read it once.
        out.sort_by(|a, b| {
            (&a.transcript, &a.agent_id, &a.key).cmp(&(&b.transcript, &b.agent_id, &b.key))
        });
        let tips: Vec<Option<FileStat>> = out
            .iter()
            .map(|s| {
                s.transcript.as_deref().and_then(|p| match stats.get(p) {
                    Some(known) => *known,
                    None => FileStat::of(p),
                })
            })
            .collect();
        drop(stats);
        for (s, tip) in out.iter().zip(tips) {
            live.sessions
                .insert((s.agent_id.clone(), s.key.clone()), KeptSession::of(s, tip));
        }
        Some(out)
    }

    /// The session's transcript is not what its row was built from: another file is found
    /// for it now, or its file's `stat` moved (or had not settled).
    fn transcript_moved<'a>(
        &self,
        agent: &Agent,
        kept: &'a KeptSession,
        stats: &mut foldhash::HashMap<&'a Path, Option<FileStat>>,
        dirs: &mut HashMap<PathBuf, Option<HashSet<std::ffi::OsString>>>,
    ) -> bool {
        // None found, none refused, and still nothing where the lookup looks: the same.
        if kept.transcript.is_none() && kept.refused.is_none() {
            let (names, elsewhere) = self.host.transcript_places(agent, &kept.entry);
            let listed = dirs
                .entry(agent.sessions_dir.clone())
                .or_insert_with(|| names_in(&agent.sessions_dir));
            let absent = |p: &Path| matches!(std::fs::symlink_metadata(p), Err(e) if e.kind() == std::io::ErrorKind::NotFound);
            if listed
                .as_ref()
                .is_some_and(|l| names.iter().all(|n| !l.contains(n)))
                && elsewhere.as_deref().is_none_or(absent)
            {
                return false;
            }
        }
        // A file found by a rule below `sessionFile`, or none: a better one may have appeared.
        if kept.how != TranscriptHow::SessionFile {
            let (t, how, refused) = self
                .host
                .transcript_for(agent, &kept.entry, &mut Vec::new());
            if t != kept.transcript || how != kept.how || refused != kept.refused {
                return true;
            }
        }
        let Some(p) = &kept.transcript else {
            return false;
        };
        let now = *stats.entry(p).or_insert_with(|| FileStat::of(p));
        !FileStat::still(now, kept.tip)
    }
}

/// The names in `dir`, None when it cannot be listed whole.
fn names_in(dir: &Path) -> Option<HashSet<std::ffi::OsString>> {
    std::fs::read_dir(dir)
        .ok()?
        .map(|e| e.ok().map(|e| e.file_name()))
        .collect()
}

impl SessionSource for FileStore {
    fn kind(&self) -> SourceKind {
        SourceKind::of_era(self.host.era)
    }

    fn label(&self) -> String {
        self.host.state_dir.display().to_string()
    }

    fn listing_memory(&self) -> Option<Vec<u8>> {
        let mem = self.remembered.lock().unwrap_or_else(|e| e.into_inner());
        if !mem.on || mem.stores.is_empty() {
            return None;
        }
        crate::packed::to_vec(&mem.stores).ok()
    }

    fn listing_moved(&self) -> bool {
        self.remembered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .moved
    }

    fn recall_listing(&self, memory: Option<&[u8]>) {
        let mut mem = self.remembered.lock().unwrap_or_else(|e| e.into_inner());
        mem.on = true;
        mem.stores = memory
            .and_then(|m| crate::packed::from_slice(m).ok())
            .unwrap_or_default();
    }

    fn lock(&self, session: &SessionRef) -> Option<crate::commit::LockStatus> {
        // OpenClaw's own rule for a transcript lock: a live pid younger than
        // session.writeLock.staleMs (30 min by default) holds it; anything else is stale.
        let path = self.transcript_path(session)?;
        crate::commit::lock::status(&path, std::time::Duration::from_secs(1800)).ok()
    }

    fn warnings(&self) -> Vec<String> {
        self.host.warnings.clone()
    }

    fn is_demo(&self) -> bool {
        self.host.is_demo
    }

    fn has_agent(&self, agent: &str) -> bool {
        self.host.agent(agent).is_some()
    }

    /// A full key is rule 1 of [`super::lookup`], which wins whenever it matches: the sessions
    /// with that key name what the whole list names. The store is parsed whole (one JSON
    /// file) either way; what this spares is the rest: `clawtop KEY` opens its Session screen
    /// without waiting for every other session's transcript to be measured. None (the whole
    /// list answers) for any other name, or when an entry or a store could not be read.
    fn listing_named(&self, agent: Option<&str>, name: &str) -> Option<Listing> {
        let Listing {
            sessions,
            warnings,
            errors,
            skipped,
            running_gateway,
        } = self.list(agent);
        if !errors.is_empty() || !skipped.is_empty() {
            return None;
        }
        let key = name.trim();
        let sessions: Vec<Session> = sessions.into_iter().filter(|s| s.key() == key).collect();
        (!sessions.is_empty()).then_some(Listing {
            sessions,
            warnings,
            errors,
            skipped,
            running_gateway,
        })
    }

    fn list(&self, agent: Option<&str>) -> Listing {
        let loaded = self.load(agent);
        let mut out = Listing {
            warnings: loaded.warnings,
            skipped: loaded.skipped,
            errors: loaded
                .errors
                .iter()
                .map(|e| crate::sanitize::one_line(&e.to_string()))
                .collect(),
            ..Listing::default()
        };
        if !self.host.is_demo {
            let env_port = std::env::var("OPENCLAW_GATEWAY_PORT").ok();
            if let Some(gw) = crate::gateway::running::detect(
                &self.host.config,
                env_port.as_deref(),
                std::time::Duration::from_millis(300),
            ) {
                out.warnings.push(gw.notice());
                out.running_gateway = Some(gw);
            }
        }
        self.remember(&loaded.sessions);
        out.sessions = loaded
            .sessions
            .into_iter()
            .map(|s| self.session(s))
            .collect();
        out
    }

    /// A store rewritten is compared with the bytes the last listing read ([`StoreBytes`]):
    /// only its entries whose bytes differ are parsed. A transcript changed is told by its
    /// `stat` (identity, size, times; each file once, however many sessions share it); a
    /// session whose transcript was not found by `sessionFile` has its transcript looked up
    /// again (a file may have appeared). Entries added, removed or reordered, a store that
    /// cannot be read, any part of the host that could not be: None. The running gateway is
    /// not probed again (the whole listing does, at least every 30 s in a TUI).
    fn list_changed(&self, agent: Option<&str>) -> Option<Listing> {
        self.wanted
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        if live.whole_due || !self.host.unreadable_parts.is_empty() {
            return None;
        }
        let Some(sessions) = self.changed(&mut live, agent) else {
            live.whole_due = true;
            return None;
        };
        drop(live);
        self.remember(&sessions);
        Some(Listing {
            sessions: sessions.into_iter().map(|s| self.session(s)).collect(),
            ..Listing::default()
        })
    }

    fn open_transcript(&self, r: &SessionRef) -> Result<Transcript, SourceError> {
        Ok(Transcript::open(&self.transcript_path_of(r)?)?)
    }

    fn open_transcript_for_history(&self, r: &SessionRef) -> Result<Transcript, SourceError> {
        Ok(Transcript::open_for_history(&self.transcript_path_of(r)?)?)
    }

    fn transcript_stamp(&self, r: &SessionRef) -> Option<super::Stamp> {
        super::stamp::of_file(&self.transcript_path(r)?)
    }

    fn transcript_tip(&self, r: &SessionRef) -> Option<super::Stamp> {
        super::stamp::of_file_tip(&self.transcript_path(r)?)
    }

    fn transcript_tail(
        &self,
        r: &SessionRef,
        budget: u64,
    ) -> Result<crate::transcript::tail::Tail, SourceError> {
        let path = self.transcript_path(r).ok_or_else(|| {
            SourceError::Unavailable(format!(
                "no transcript file for {} in {}",
                crate::sanitize::one_line(&r.key),
                self.label()
            ))
        })?;
        crate::transcript::tail::read_file(&path, budget).map_err(|source| {
            SourceError::Transcript(crate::transcript::TranscriptError::Io { path, source })
        })
    }

    fn changes(&self, what: Watch<'_>) -> Changes {
        match what {
            Watch::Sessions { agent } => {
                // Asked by whoever watches the stores (a TUI), who will ask what changed
                // ([`SessionSource::list_changed`]): the listings keep the stores' bytes from
                // now on, so even the first patch compares bytes.
                self.wanted
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                Changes::Poll(
                    self.host
                        .agents
                        .iter()
                        .filter(|a| a.has_store && agent.is_none_or(|o| o == a.id))
                        .map(|a| a.store_path.clone())
                        .collect(),
                )
            }
            Watch::Transcript(r) => Changes::Poll(self.cached(r).into_iter().collect()),
        }
    }

    fn writer(&self, r: &SessionRef, op: Operation) -> Writer {
        let Some(agent) = self.host.agent(&r.agent_id) else {
            return Writer::ReadOnly(format!("no agent {:?} on this host", r.agent_id));
        };
        let transcript = self.cached(r);
        if op == Operation::Compact && transcript.is_none() {
            return Writer::ReadOnly(format!(
                "session {} has no transcript file",
                crate::sanitize::one_line(&r.key)
            ));
        }
        Writer::Local(LocalWriter {
            transcript,
            store: Some(StoreRow {
                store_path: agent.store_path.clone(),
                session_key: r.key.clone(),
                session_id: r.session_id.clone(),
            }),
            unrecorded: None,
        })
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

    fn workspace(&self, agent: &str) -> Option<(PathBuf, String)> {
        let home = self.host.home.clone().unwrap_or_else(|| PathBuf::from("/"));
        let (w, src) =
            crate::flush::workspace_for(&self.host.config, &self.host.state_dir, agent, &home);
        Some((w, src.to_string()))
    }
}
