//! An OpenClaw host on disk: state dir, config, agents, era, session stores, transcript and
//! workspace paths (docs/host-layout.md). Read-only; no terminal code.

pub mod demo;
pub mod era;
pub mod live;
pub mod resolve;

pub use crate::store_entry::{StoreEntry, normalize_agent_id};
pub use resolve::{ConfigSource, Env, Looked, Options, StateDirSource};

use serde::Serialize;
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no OpenClaw state dir found; looked at: {}{}", fmt_looked(.looked), if .note.is_empty() { String::new() } else { format!(" ({})", .note) })]
    NoStateDir { looked: Vec<Looked>, note: String },
    #[error("state dir {} (from {}) does not exist", .path.display(), .from.describe())]
    StateDirMissing { path: PathBuf, from: StateDirSource },
    #[error("config file {} (from {}) does not exist", .path.display(), .from.describe())]
    ConfigMissing { path: PathBuf, from: ConfigSource },
    #[error("cannot read config {}: {source}", .path.display())]
    ConfigRead {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot parse config {}: {message}", .path.display())]
    ConfigParse { path: PathBuf, message: String },
    #[error("cannot read session store {}: {message}", .path.display())]
    Store { path: PathBuf, message: String },
    #[error("cannot set up the demo state dir: {0}")]
    Demo(String),
}

fn fmt_looked(l: &[Looked]) -> String {
    if l.is_empty() {
        return "nowhere".into();
    }
    l.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Storage era of a host (docs/host-layout.md §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Era {
    /// `sessions.json` + JSONL transcripts (OpenClaw ≤ 2026.7.1).
    File,
    /// `openclaw-agent.sqlite` (OpenClaw ≥ 2026.7.2): detected, never written.
    Sqlite,
}

impl Era {
    pub fn name(self) -> &'static str {
        match self {
            Era::File => "file",
            Era::Sqlite => "sqlite",
        }
    }
}

/// One agent of the host.
#[derive(Debug, Clone)]
pub struct Agent {
    pub id: String,
    pub dir: PathBuf,
    pub sessions_dir: PathBuf,
    pub store_path: PathBuf,
    pub has_store: bool,
    pub in_config: bool,
    /// Why this agent's SQLite file marks era B.
    pub era_b: Option<String>,
    /// The sessions dir (symlinks resolved) is inside the state dir: then a plain file
    /// directly in it is inside too, checked with one lstat instead of a realpath.
    sessions_inside: bool,
}

/// A resolved host. Cheap to build: session stores are read by [`Host::load_sessions`].
#[derive(Debug)]
pub struct Host {
    pub state_dir: PathBuf,
    pub state_source: StateDirSource,
    /// Every place resolution considered, in order.
    pub looked: Vec<Looked>,
    pub config_path: Option<PathBuf>,
    pub config_source: ConfigSource,
    pub config: Value,
    pub agents: Vec<Agent>,
    pub era: Era,
    /// The SQLite layout (state and agent databases) of a SQLite host.
    pub sqlite: Option<crate::sqlite::SqliteLayout>,
    /// Human-readable evidence for era B.
    pub era_evidence: Vec<String>,
    pub is_demo: bool,
    /// Home `~` expands against in config values (OPENCLAW_HOME, else HOME; the demo's own).
    pub home: Option<PathBuf>,
    /// Problems that did not stop loading (bad agent ids in config, ...).
    pub warnings: Vec<String>,
    /// Parts of the host that exist but could not be read (an agents dir or a sessions dir
    /// that cannot be listed, a store that is not a regular file): reported as errors by
    /// every listing, so `check` says UNKNOWN instead of "no problem".
    pub unreadable_parts: Vec<(PathBuf, String)>,
    /// The state dir with symlinks resolved, for containment checks.
    canonical_state: Option<PathBuf>,
    /// Keeps the extracted demo alive; removed on drop.
    _demo: Option<demo::DemoDir>,
}

/// What the TUI is asked to open: a host (whose source `tui::TuiLaunch::from_store` builds)
/// or a bare transcript file.
#[derive(Debug)]
pub struct Launch {
    pub host: Option<Host>,
    pub file: Option<PathBuf>,
    pub agent: Option<String>,
}

impl Host {
    /// Resolves the state dir and config (docs/host-layout.md §2) and discovers agents and the era.
    pub fn open(opts: &Options, env: &Env) -> Result<Host, StoreError> {
        let (state_dir, state_source, looked) = resolve::resolve_state_dir(opts, env)?;
        let (config_path, config_source, config) =
            resolve::resolve_config(opts, env, &state_dir, state_source)?;
        let home = env.effective_home().map(Path::to_path_buf);
        Ok(Self::assemble(
            state_dir,
            state_source,
            looked,
            config_path,
            config_source,
            config,
            home,
            None,
        ))
    }

    /// The embedded demo host, extracted to a private temp dir (read-only use).
    pub fn demo() -> Result<Host, StoreError> {
        let d = demo::DemoDir::extract().map_err(|e| StoreError::Demo(e.to_string()))?;
        let state_dir = d.state_dir();
        let (config_path, config_source, config) = resolve::resolve_config(
            &Options::default(),
            &Env::default(),
            &state_dir,
            StateDirSource::Demo,
        )?;
        let home = Some(d.home());
        let looked = vec![Looked {
            path: state_dir.clone(),
            source: StateDirSource::Demo,
        }];
        let mut h = Self::assemble(
            state_dir,
            StateDirSource::Demo,
            looked,
            config_path,
            config_source,
            config,
            home,
            Some(d),
        );
        h.is_demo = true;
        Ok(h)
    }

    #[allow(clippy::too_many_arguments)]
    fn assemble(
        state_dir: PathBuf,
        state_source: StateDirSource,
        looked: Vec<Looked>,
        config_path: Option<PathBuf>,
        config_source: ConfigSource,
        config: Value,
        home: Option<PathBuf>,
        demo: Option<demo::DemoDir>,
    ) -> Host {
        let mut warnings = Vec::new();
        let mut unreadable_parts = Vec::new();
        let mut ids: Vec<(String, bool)> = Vec::new();
        let agents_root = state_dir.join("agents");
        match std::fs::read_dir(&agents_root) {
            Ok(rd) => {
                for e in rd {
                    let e = match e {
                        Ok(e) => e,
                        Err(err) => {
                            unreadable_parts.push((agents_root.clone(), err.to_string()));
                            continue;
                        }
                    };
                    let name = e.file_name().to_string_lossy().into_owned();
                    let p = e.path();
                    let store = p.join("sessions/sessions.json");
                    if let Some(kind) = crate::regular_file::odd_kind(&store) {
                        unreadable_parts.push((
                            store.clone(),
                            format!(
                                "is {kind}, not a regular file: agent {:?} has no readable sessions",
                                crate::sanitize::one_line(&name)
                            ),
                        ));
                    }
                    // A sessions dir that exists but cannot be looked into hides its store.
                    match std::fs::metadata(&store) {
                        Err(err) if err.kind() == std::io::ErrorKind::PermissionDenied => {
                            unreadable_parts.push((store.clone(), err.to_string()));
                        }
                        _ => {}
                    }
                    if store.is_file() || p.join("agent/openclaw-agent.sqlite").is_file() {
                        ids.push((name, false));
                    }
                }
            }
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                unreadable_parts.push((agents_root.clone(), err.to_string()));
            }
            Err(_) => {}
        }
        // 2026.9 keys its agents (`agents.entries.<id>`); earlier releases list them.
        let keyed: Vec<Value> = config
            .pointer("/agents/entries")
            .and_then(Value::as_object)
            .map(|o| o.keys().map(|k| serde_json::json!({ "id": k })).collect())
            .unwrap_or_default();
        let listed = config
            .pointer("/agents/list")
            .and_then(Value::as_array)
            .map(|l| l.as_slice())
            .unwrap_or_default();
        {
            for a in listed.iter().chain(keyed.iter()) {
                let Some(raw) = a.get("id").and_then(Value::as_str) else {
                    continue;
                };
                match normalize_agent_id(raw) {
                    Some(id) => match ids.iter_mut().find(|(i, _)| *i == id) {
                        Some(slot) => slot.1 = true,
                        None => ids.push((id, true)),
                    },
                    None => warnings.push(format!(
                        "config agents.list has an unusable agent id {:?}; ignored",
                        crate::sanitize::one_line(raw)
                    )),
                }
            }
        }
        ids.sort();
        let canonical_state = state_dir.canonicalize().ok();
        let mut era_evidence = Vec::new();
        let agents: Vec<Agent> = ids
            .into_iter()
            .map(|(id, in_config)| {
                let dir = agents_root.join(&id);
                let sessions_dir = dir.join("sessions");
                let store_path = sessions_dir.join("sessions.json");
                let era_b = era::sqlite_era_b(&dir.join("agent/openclaw-agent.sqlite"));
                if let Some(why) = &era_b {
                    era_evidence.push(format!("agent {id}: {why}"));
                }
                let sessions_inside = match (sessions_dir.canonicalize(), &canonical_state) {
                    (Ok(a), Some(b)) => a.starts_with(b),
                    _ => false,
                };
                Agent {
                    has_store: store_path.is_file(),
                    id,
                    dir,
                    sessions_dir,
                    store_path,
                    in_config,
                    era_b,
                    sessions_inside,
                }
            })
            .collect();
        // The databases themselves (and the state database's registry) are read only when the
        // header check or a state database suggests a SQLite host.
        let sqlite = (!era_evidence.is_empty()
            || state_dir.join("state/openclaw.sqlite").is_file())
        .then(|| crate::sqlite::discover(&state_dir))
        .filter(|l| !era_evidence.is_empty() || l.is_sqlite_host());
        let era = if sqlite.is_some() {
            Era::Sqlite
        } else {
            Era::File
        };
        if era_evidence.is_empty() && sqlite.is_some() {
            era_evidence.push(format!(
                "{} registers agent databases with sessions",
                state_dir.join("state/openclaw.sqlite").display()
            ));
        }
        Host {
            sqlite,
            canonical_state,
            state_dir,
            state_source,
            looked,
            config_path,
            config_source,
            config,
            agents,
            era,
            era_evidence,
            is_demo: false,
            home,
            warnings,
            unreadable_parts,
            _demo: demo,
        }
    }

    pub fn agent(&self, id: &str) -> Option<&Agent> {
        self.agents.iter().find(|a| a.id == id)
    }

    /// One-line description of era B for messages.
    pub fn era_message(&self) -> String {
        format!(
            "{} is a SQLite host (OpenClaw >= 2026.7.2 keeps sessions in SQLite): {}",
            self.state_dir.display(),
            self.era_evidence.join("; ")
        )
    }

    /// Why a write is refused on a SQLite host, and what clawtop can do there instead.
    pub fn sqlite_write_refusal(&self, what: &str) -> String {
        format!(
            "clawtop cannot write a {what} here: {} keeps its sessions in SQLite, which only OpenClaw writes. Here clawtop reads (`list`, `show KEY [--entries]`, `compact KEY --dry-run`, the TUI), and `clawtop compact KEY [--instructions TEXT] --yes` asks OpenClaw's Gateway to compact (OpenClaw writes its own summary); `clawtop flush KEY` appends notes to the workspace's memory file without recording the flush (OpenClaw's own flush stays armed)",
            self.state_dir.display()
        )
    }

    /// The arithmetic the host's numbers follow, and a note when it was assumed.
    pub fn rules(&self) -> (crate::thresholds::Rules, Option<String>) {
        match &self.sqlite {
            Some(l) => crate::thresholds::Rules::for_sqlite_host(l.app_version()),
            None => (crate::thresholds::Rules::V2026_2, None),
        }
    }

    /// Reads the session stores of all agents (or one). A store that cannot be read is an
    /// error in `errors` and the other agents still load.
    pub fn load_sessions(&self, only_agent: Option<&str>) -> Loaded {
        self.load_sessions_with(only_agent, &mut |a| crate::store_entry::read(&a.store_path))
    }

    /// [`Self::load_sessions`] with each agent's store read and parsed by `read` (the file
    /// source keeps the bytes it read, to tell later which entries a rewrite changed:
    /// [`live::StoreBytes`]).
    pub fn load_sessions_with(
        &self,
        only_agent: Option<&str>,
        read: &mut dyn FnMut(
            &Agent,
        ) -> Result<
            Vec<crate::store_entry::ParsedEntry>,
            crate::store_entry::StoreFileError,
        >,
    ) -> Loaded {
        let mut out = Loaded::default();
        for (path, message) in &self.unreadable_parts {
            out.errors.push(StoreError::Store {
                path: path.clone(),
                message: message.clone(),
            });
        }
        for a in &self.agents {
            if only_agent.is_some_and(|o| o != a.id) || !a.has_store {
                continue;
            }
            let t0 = std::time::Instant::now();
            let parsed = read(a);
            tracing::debug!(
                target: "clawtop::io",
                io = "sessions.json",
                agent = %a.id,
                ms = t0.elapsed().as_millis() as u64,
                "sessions.json parsed"
            );
            let items = match parsed {
                Ok(items) => items,
                Err(e) => {
                    out.errors.push(StoreError::Store {
                        path: a.store_path.clone(),
                        message: e.to_string(),
                    });
                    continue;
                }
            };
            for item in items {
                match item.entry {
                    Ok(entry) => out.sessions.push(self.session_of(a, item.key, entry)),
                    Err(why) => {
                        let w = format!(
                            "{}: entry {:?} {why}",
                            a.store_path.display(),
                            crate::sanitize::one_line(&item.key)
                        );
                        out.skipped.push((item.key, w.clone()));
                        out.warnings.push(w);
                    }
                }
            }
        }
        out
    }

    /// The session of `agent`'s store entry `key`, its transcript looked up
    /// ([`Self::transcript_for`]).
    pub fn session_of(&self, agent: &Agent, key: String, entry: StoreEntry) -> Session {
        let mut warnings = Vec::new();
        let (transcript, how, refused) = self.transcript_for(agent, &entry, &mut warnings);
        Session {
            agent_id: agent.id.clone(),
            key,
            entry,
            transcript,
            transcript_how: how,
            transcript_refused: refused,
            warnings,
        }
    }

    /// docs/host-layout.md §3: `sessionFile` when it exists inside the state dir; else the same
    /// basename in the agent's sessions dir; else `<sessions>/<sessionId>.jsonl`. A path outside
    /// the state dir is never read. An absolute path of the form `…/agents/<id>/sessions/<file>`
    /// from another machine is remapped quietly (as OpenClaw does); any other outside path warns.
    /// The third value says why, when something is in the transcript's place but is refused (a
    /// FIFO, a directory, a device, a link out of the state dir, to no regular file or in a
    /// loop): the transcript is there and could not be read, which is not the same as missing.
    pub fn transcript_for(
        &self,
        agent: &Agent,
        entry: &StoreEntry,
        warnings: &mut Vec<String>,
    ) -> (Option<PathBuf>, TranscriptHow, Option<String>) {
        let sdir = &agent.sessions_dir;
        let mut basename: Option<String> = None;
        if let Some(sf) = &entry.session_file {
            let raw = Path::new(sf);
            let joined = if raw.is_absolute() {
                raw.to_path_buf()
            } else {
                sdir.join(raw)
            };
            let norm = normalize(&joined);
            basename = norm.file_name().map(|n| n.to_string_lossy().into_owned());
            if norm.starts_with(normalize(&self.state_dir)) {
                // Directly in the sessions dir (nearly every entry), the dir's own resolution
                // answers for a plain file: no path resolved per session of thousands. Only
                // when the dir's path has no `.` or `..`: `normalize` drops them by text,
                // and after a link the text names another directory than the kernel does.
                let inside = if normalize(sdir) == *sdir && norm.parent() == Some(sdir.as_path()) {
                    self.readable_in(agent, &norm)
                } else {
                    norm.is_file() && self.inside_state(&norm)
                };
                if inside {
                    return (Some(norm), TranscriptHow::SessionFile, None);
                }
            } else if !looks_remappable(&norm, &agent.id) {
                warnings.push(format!(
                    "sessionFile {:?} points outside the state dir; not read",
                    crate::sanitize::one_line(sf)
                ));
            }
        }
        if let Some(b) = basename.filter(|b| !b.is_empty() && b != ".." && b != ".") {
            let p = sdir.join(&b);
            if self.readable_in(agent, &p) {
                return (Some(p), TranscriptHow::Basename, None);
            }
        }
        let p = sdir.join(format!("{}.jsonl", entry.session_id));
        if self.readable_in(agent, &p) {
            return (Some(p), TranscriptHow::SessionId, None);
        }
        // A candidate that exists as a link we will not follow is named as such, not as missing.
        let mut candidates: Vec<PathBuf> = Vec::new();
        if let Some(sf) = &entry.session_file {
            let raw = Path::new(sf);
            candidates.push(normalize(&if raw.is_absolute() {
                raw.to_path_buf()
            } else {
                sdir.join(raw)
            }));
            if let Some(b) = candidates[0].file_name() {
                candidates.push(sdir.join(b));
            }
        }
        candidates.push(p.clone());
        if let Some(link) = candidates
            .iter()
            .find(|c| std::fs::symlink_metadata(c).is_ok_and(|m| m.file_type().is_symlink()))
        {
            let to = std::fs::read_link(link)
                .map(|t| t.display().to_string())
                .unwrap_or_default();
            let why = format!(
                "transcript {} is a symbolic link (to {to}) that leaves the state dir or leads to no regular file; refused",
                link.display()
            );
            warnings.push(why.clone());
            return (None, TranscriptHow::Missing, Some(why));
        }
        // Likewise a FIFO, directory or device in a transcript's place: never opened.
        if let Some((odd, ft)) = candidates.iter().find_map(|c| {
            std::fs::symlink_metadata(c)
                .ok()
                .filter(|m| !m.is_file())
                .map(|m| (c, m.file_type()))
        }) {
            let why = format!(
                "transcript {} is {}, not a regular file; refused",
                odd.display(),
                crate::regular_file::describe(ft)
            );
            warnings.push(why.clone());
            return (None, TranscriptHow::Missing, Some(why));
        }
        warnings.push(format!("transcript not found (looked for {})", p.display()));
        (None, TranscriptHow::Missing, None)
    }

    /// Every path [`Self::transcript_for`] looks at for `entry`: names in the agent's
    /// sessions dir, and the `sessionFile` path when it is elsewhere. While none of them
    /// exists it finds nothing, as before: a poll of thousands of entries whose transcripts
    /// are gone lists the dir once instead of looking each up.
    pub fn transcript_places(
        &self,
        agent: &Agent,
        entry: &StoreEntry,
    ) -> (Vec<std::ffi::OsString>, Option<PathBuf>) {
        let sdir = &agent.sessions_dir;
        let mut names = vec![std::ffi::OsString::from(format!(
            "{}.jsonl",
            entry.session_id
        ))];
        let mut elsewhere = None;
        if let Some(sf) = &entry.session_file {
            let raw = Path::new(sf);
            let norm = normalize(&if raw.is_absolute() {
                raw.to_path_buf()
            } else {
                sdir.join(raw)
            });
            if let Some(b) = norm.file_name() {
                names.push(b.to_os_string());
            }
            if norm.parent() != Some(normalize(sdir).as_path()) {
                elsewhere = Some(norm);
            }
        }
        (names, elsewhere)
    }

    /// `p` is a file directly in the agent's sessions dir and, symlinks resolved, inside the
    /// state dir.
    fn readable_in(&self, agent: &Agent, p: &Path) -> bool {
        match std::fs::symlink_metadata(p) {
            Ok(m) if m.file_type().is_file() => agent.sessions_inside || self.inside_state(p),
            Ok(m) if m.file_type().is_symlink() => p.is_file() && self.inside_state(p),
            _ => false,
        }
    }

    /// True when `p` (symlinks resolved) is inside the state dir.
    fn inside_state(&self, p: &Path) -> bool {
        match (p.canonicalize(), &self.canonical_state) {
            (Ok(a), Some(b)) => a.starts_with(b),
            _ => false,
        }
    }

    /// `agents/<id>/agent/models.json`, if present and parseable.
    pub fn models_json(&self, agent_id: &str) -> Option<(PathBuf, Value)> {
        let p = self.agent(agent_id)?.dir.join("agent/models.json");
        let text = crate::regular_file::read(&p).ok()?;
        let v: Value = serde_json::from_slice(&text).ok()?;
        Some((p, v))
    }

    /// What the sources show as the config's name: its path, or "config" when there is none.
    pub fn config_label(&self) -> String {
        self.config_path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "config".into())
    }

    /// Problems with the agent's own files that every one of its sessions' figures inherits
    /// (a `models.json` that is a FIFO or a directory is not read, so windows may fall back
    /// to defaults): the sources add them to each session's warnings.
    pub fn agent_file_warnings(&self, agent_id: &str) -> Vec<String> {
        let Some(a) = self.agent(agent_id) else {
            return Vec::new();
        };
        let models = a.dir.join("agent/models.json");
        crate::regular_file::odd_kind(&models)
            .map(|kind| {
                format!(
                    "{} is {kind}, not a regular file; not read",
                    models.display()
                )
            })
            .into_iter()
            .collect()
    }

    /// `models_json` with the path as the label the sources show.
    pub fn models_json_labelled(&self, agent_id: &str) -> Option<(String, Value)> {
        self.models_json(agent_id)
            .map(|(p, v)| (p.display().to_string(), v))
    }
}

/// How a transcript path was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TranscriptHow {
    SessionFile,
    Basename,
    SessionId,
    Missing,
}

impl TranscriptHow {
    pub fn describe(self) -> &'static str {
        match self {
            TranscriptHow::SessionFile => "sessionFile",
            TranscriptHow::Basename => "sessionFile's name in the agent's sessions dir",
            TranscriptHow::SessionId => "<sessionId>.jsonl in the agent's sessions dir",
            TranscriptHow::Missing => "not found",
        }
    }
}

/// One session of a host.
#[derive(Debug, Clone)]
pub struct Session {
    pub agent_id: String,
    pub key: String,
    pub entry: StoreEntry,
    pub transcript: Option<PathBuf>,
    pub transcript_how: TranscriptHow,
    /// Something is in the transcript's place but was refused, and why
    /// ([`Host::transcript_for`]): its figures are unknown, not the store's alone.
    pub transcript_refused: Option<String>,
    pub warnings: Vec<String>,
}

/// Result of reading the stores.
#[derive(Debug, Default)]
pub struct Loaded {
    pub sessions: Vec<Session>,
    /// Per-entry problems (entry skipped), each naming the file and key.
    pub warnings: Vec<String>,
    /// The entries skipped, by key, with the warning that says why (so a command asked for
    /// one of them can say why instead of "no such session").
    pub skipped: Vec<(String, String)>,
    /// Stores that could not be read at all.
    pub errors: Vec<StoreError>,
}

impl Loaded {
    /// Why the entry `key` was skipped, if it was.
    pub fn why_skipped(&self, key: &str) -> Option<&str> {
        self.skipped
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, w)| w.as_str())
    }
}

/// Lexical normalisation (no filesystem access): drops `.`, applies `..`.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// `…/agents/<agent>/sessions/<file>`: a transcript path written on another machine.
fn looks_remappable(p: &Path, agent_id: &str) -> bool {
    let comps: Vec<_> = p
        .components()
        .rev()
        .take(4)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    comps.len() == 4 && comps[1] == "sessions" && comps[2] == agent_id && comps[3] == "agents"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_ids_normalised() {
        assert_eq!(normalize_agent_id("Main").as_deref(), Some("main"));
        assert_eq!(normalize_agent_id("../x").as_deref(), None);
        assert_eq!(normalize_agent_id("a/../b").as_deref(), Some("a----b"));
    }

    #[test]
    fn remappable_shape() {
        assert!(looks_remappable(
            Path::new("/home/op/.openclaw/agents/main/sessions/x.jsonl"),
            "main"
        ));
        assert!(!looks_remappable(Path::new("/etc/passwd"), "main"));
        assert!(!looks_remappable(
            Path::new("/x/agents/other/sessions/x.jsonl"),
            "main"
        ));
    }

    #[test]
    fn normalize_dots() {
        assert_eq!(
            normalize(Path::new("/a/b/../../etc/x")),
            PathBuf::from("/etc/x")
        );
    }
}
