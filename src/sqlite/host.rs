//! Finding the databases of a SQLite host (OpenClaw ≥ 2026.7.2; docs/sqlite-host.md §1).
//!
//! Order: the global state database `state/openclaw.sqlite` names every agent database in
//! `agent_databases` (paths relative to the state dir); the `agents/<id>/agent/` dirs are then
//! scanned for `openclaw-agent.sqlite` files the registry does not name. A registered database
//! that is missing is a problem of that agent, reported by name; the other agents still load.
//! An agent database is a session store when its schema is ≥ 4 or it has `session_nodes`
//! (2026.5.30–2026.7.1 already had the file at schema 1, without sessions). A `sessions.json`
//! beside such a database is a legacy leftover: named, never read for figures, never edited.

use super::open::{DbError, ReadOnlyDb};
use std::path::{Path, PathBuf};

/// The agent schema clawtop was written against (OpenClaw 2026.9.6).
pub const KNOWN_AGENT_SCHEMA: i64 = 23;
/// The first agent schema that keeps sessions (2026.7.2).
pub const FIRST_SESSION_SCHEMA: i64 = 4;
/// The global state schema of 2026.9.6.
pub const KNOWN_STATE_SCHEMA: i64 = 18;

/// Tables of agent schema 23 (2026.9.6). Tables outside this list are named as not understood
/// when the schema is newer.
pub const KNOWN_AGENT_TABLES: &[&str] = &[
    "acp_parent_stream_events",
    "auth_profile_state",
    "auth_profile_store",
    "board_tabs",
    "board_widgets",
    "cache_entries",
    "context_engine_turn_outbox",
    "conversation_deliveries",
    "conversations",
    "heartbeat_outcomes",
    "memory_embedding_cache",
    "memory_entry_origins",
    "memory_index_chunk_provenance",
    "memory_index_chunk_recall_metadata",
    "memory_index_chunks",
    "memory_index_meta",
    "memory_index_sources",
    "memory_index_state",
    "memory_session_tombstones",
    "message_tool_run_outcomes",
    "schema_meta",
    "session_canonical_validation_pending",
    "session_conversations",
    "session_goal_operations",
    "session_input_completions",
    "session_key_contract",
    "session_members",
    "session_nodes",
    "session_participants",
    "session_pending_inputs",
    "session_progress_cards",
    "session_suggestions",
    "session_transcript_active_events",
    "session_transcript_archives",
    "session_transcript_cold_archives",
    "session_transcript_index_state",
    "session_windows",
    "sqlite_sequence",
    "standing_intents",
    "trajectory_runtime_events",
    "transcript_event_identities",
    "transcript_events",
    "transcript_rewrite_watermarks",
];

/// The columns clawtop reads, per table.
pub const NEEDED_COLUMNS: &[(&str, &[&str])] = &[
    (
        "session_nodes",
        &[
            "session_key",
            "current_session_id",
            "entry_json",
            "updated_at",
        ],
    ),
    (
        "transcript_events",
        &[
            "session_id",
            "seq",
            "event_json",
            "event_zstd",
            "event_utf8_bytes",
        ],
    ),
];

/// One agent's database as found.
#[derive(Debug, Clone)]
pub struct AgentDb {
    pub agent_id: String,
    pub path: PathBuf,
    /// As the state database names it, or as found by the scan (relative to the state dir).
    pub rel: String,
    pub registered: bool,
    pub schema: Option<i64>,
    /// `schema_meta.app_version`: the OpenClaw release that wrote the schema.
    pub app_version: Option<String>,
    /// Holds sessions (schema ≥ 4 or a `session_nodes` table).
    pub has_sessions: bool,
    /// Legacy `sessions.json` beside it (named, never read for figures, never edited).
    pub legacy_store: Option<PathBuf>,
    /// Notes for the operator (newer schema, tables not understood).
    pub notes: Vec<String>,
    /// Why it could not be read, if it could not.
    pub error: Option<String>,
    /// The connection discovery read it through, for the source to list through next
    /// (opening it again parsed OpenClaw's schema of dozens of tables and triggers again: a
    /// tenth of a warm `list`). None when it could not be read.
    pub opened: Option<Opened>,
}

/// A connection kept from discovery ([`AgentDb::opened`]).
#[derive(Clone)]
pub struct Opened(pub crate::sqlite::transcript::SharedDb);

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Opened")
    }
}

/// What a state dir holds in SQLite.
#[derive(Debug, Clone, Default)]
pub struct SqliteLayout {
    pub state_db: Option<PathBuf>,
    pub state_schema: Option<i64>,
    pub state_app_version: Option<String>,
    pub agents: Vec<AgentDb>,
    /// Problems with the state database itself.
    pub problems: Vec<String>,
}

impl SqliteLayout {
    /// True when any agent database holds sessions: the host is a SQLite host.
    pub fn is_sqlite_host(&self) -> bool {
        self.agents.iter().any(|a| a.has_sessions)
    }

    /// The release that wrote the host: the newest `app_version` among its databases.
    pub fn app_version(&self) -> Option<&str> {
        self.agents
            .iter()
            .filter_map(|a| a.app_version.as_deref())
            .chain(self.state_app_version.as_deref())
            .max_by_key(|v| crate::thresholds::Release::parse(v))
    }
}

fn app_version(db: &ReadOnlyDb, role: &str) -> Option<String> {
    if !db.has_table("schema_meta").unwrap_or(false) {
        return None;
    }
    db.conn()
        .query_row(
            "SELECT app_version FROM schema_meta WHERE meta_key = 'primary' AND role = ?1",
            [role],
            |r| r.get::<_, Option<String>>(0),
        )
        .ok()
        .flatten()
}

/// Reads the layout of `state_dir` (read-only; cheap: a few small queries per database).
pub fn discover(state_dir: &Path) -> SqliteLayout {
    let mut out = SqliteLayout::default();
    let state_db = state_dir.join("state/openclaw.sqlite");
    let mut registered: Vec<(String, String)> = Vec::new();
    if state_db.is_file() {
        out.state_db = Some(state_db.clone());
        let read = ReadOnlyDb::read_stable(&state_db, |db| {
            let schema = db.user_version()?;
            let ver = app_version(db, "global");
            let mut rows = Vec::new();
            if db.has_table("agent_databases")? {
                let mut st = db
                    .conn()
                    .prepare("SELECT agent_id, path FROM agent_databases ORDER BY agent_id, path")
                    .map_err(|e| DbError::from_sqlite(&db.path, e))?;
                let it = st
                    .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                    .map_err(|e| DbError::from_sqlite(&db.path, e))?;
                for r in it {
                    rows.push(r.map_err(|e| DbError::from_sqlite(&db.path, e))?);
                }
            }
            Ok((schema, ver, rows))
        });
        match read {
            Ok((schema, ver, rows)) => {
                out.state_schema = Some(schema);
                out.state_app_version = ver;
                registered = rows;
            }
            Err(e) => out.problems.push(crate::sanitize::one_line(&e.to_string())),
        }
    }
    for (agent, rel) in registered {
        let Some(id) = crate::store_entry::normalize_agent_id(&agent) else {
            out.problems.push(format!(
                "{}: agent_databases names an unusable agent id {:?}; ignored",
                state_db.display(),
                crate::sanitize::one_line(&agent)
            ));
            continue;
        };
        let p = Path::new(&rel);
        if p.is_absolute()
            || p.components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
        {
            out.problems.push(format!(
                "{}: agent_databases path {:?} of agent {id} is not inside the state dir; not read",
                state_db.display(),
                crate::sanitize::one_line(&rel)
            ));
            continue;
        }
        if out.agents.iter().any(|a| a.agent_id == id) {
            continue;
        }
        out.agents.push(inspect(state_dir, &id, &rel, true));
    }
    if let Ok(rd) = std::fs::read_dir(state_dir.join("agents")) {
        let mut found: Vec<String> = rd
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| crate::store_entry::normalize_agent_id(n).as_deref() == Some(n.as_str()))
            .filter(|n| {
                state_dir
                    .join("agents")
                    .join(n)
                    .join("agent/openclaw-agent.sqlite")
                    .is_file()
            })
            .collect();
        found.sort();
        for id in found {
            if out.agents.iter().any(|a| a.agent_id == id) {
                continue;
            }
            let rel = format!("agents/{id}/agent/openclaw-agent.sqlite");
            out.agents.push(inspect(state_dir, &id, &rel, false));
        }
    }
    out.agents.sort_by(|a, b| a.agent_id.cmp(&b.agent_id));
    out
}

fn inspect(state_dir: &Path, id: &str, rel: &str, registered: bool) -> AgentDb {
    let path = state_dir.join(rel);
    let legacy = state_dir
        .join("agents")
        .join(id)
        .join("sessions/sessions.json");
    let mut a = AgentDb {
        agent_id: id.to_string(),
        path: path.clone(),
        rel: rel.to_string(),
        registered,
        schema: None,
        app_version: None,
        has_sessions: false,
        legacy_store: None,
        notes: Vec::new(),
        error: None,
        opened: None,
    };
    if !path.is_file() {
        a.error = Some(match std::fs::metadata(&path) {
            Ok(m) => format!(
                "agent database {} (named by state/openclaw.sqlite for agent {id}) is {}, not a regular file; not read",
                path.display(),
                crate::regular_file::describe(m.file_type())
            ),
            Err(_) => format!(
                "agent database {} (named by state/openclaw.sqlite for agent {id}) does not exist",
                path.display()
            ),
        });
        // The state database says this is a SQLite agent, so its sessions are not in files.
        a.has_sessions = registered;
        return a;
    }
    let read = ReadOnlyDb::read_stable_kept(&path, |db| {
        let schema = db.user_version()?;
        let has_nodes = db.has_table("session_nodes")?;
        let ver = app_version(db, "agent");
        let mut notes = Vec::new();
        if schema > KNOWN_AGENT_SCHEMA {
            let mut st = db
                .conn()
                .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
                .map_err(|e| DbError::from_sqlite(&db.path, e))?;
            let names: Vec<String> = st
                .query_map([], |r| r.get::<_, String>(0))
                .map_err(|e| DbError::from_sqlite(&db.path, e))?
                .filter_map(Result::ok)
                .filter(|n| !n.contains("fts") && !KNOWN_AGENT_TABLES.contains(&n.as_str()))
                .collect();
            let mut missing = Vec::new();
            for (table, cols) in NEEDED_COLUMNS {
                let have = columns(db, table)?;
                for c in *cols {
                    if !have.iter().any(|h| h == c) {
                        missing.push(format!("{table}.{c}"));
                    }
                }
            }
            let mut n = format!(
                "agent schema {schema} is newer than schema {KNOWN_AGENT_SCHEMA} (OpenClaw 2026.9.6) that clawtop knows; sessions and transcripts are read from session_nodes and transcript_events as in schema {KNOWN_AGENT_SCHEMA}"
            );
            if !names.is_empty() {
                n.push_str(&format!("; not understood: {}", names.join(", ")));
            }
            notes.push(n);
            if !missing.is_empty() {
                notes.push(format!(
                    "columns clawtop needs are missing: {}; this agent's sessions cannot be read",
                    missing.join(", ")
                ));
            }
        }
        Ok((schema, has_nodes, ver, notes))
    });
    match read {
        Ok(((schema, has_nodes, ver, notes), db)) => {
            a.schema = Some(schema);
            a.has_sessions = schema >= FIRST_SESSION_SCHEMA || has_nodes;
            a.app_version = ver;
            a.notes = notes;
            a.opened = a
                .has_sessions
                .then(|| Opened(std::sync::Arc::new(std::sync::Mutex::new(db))));
        }
        Err(e) => {
            a.error = Some(crate::sanitize::one_line(&e.to_string()));
            a.has_sessions = registered;
        }
    }
    if (a.has_sessions || a.error.is_some()) && legacy.is_file() {
        a.notes.push(format!(
            "{} is a legacy store from before the SQLite migration; not read, never edited",
            legacy.display()
        ));
        a.legacy_store = Some(legacy);
    }
    a
}

/// Column names of `table` (empty when the table is absent).
pub fn columns(db: &ReadOnlyDb, table: &str) -> Result<Vec<String>, DbError> {
    let mut st = db
        .conn()
        .prepare("SELECT name FROM pragma_table_info(?1)")
        .map_err(|e| DbError::from_sqlite(&db.path, e))?;
    let names = st
        .query_map([table], |r| r.get::<_, String>(0))
        .map_err(|e| DbError::from_sqlite(&db.path, e))?
        .filter_map(Result::ok)
        .collect();
    Ok(names)
}
