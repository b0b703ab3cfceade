//! Every session of a SQLite host, read once per agent database.

use super::entry::{self, Entry96};
use super::host::SqliteLayout;
use super::open::ReadOnlyDb;
use crate::store_entry::StoreEntry;
use crate::thresholds::Counters;
use std::path::PathBuf;

/// One `session_nodes` row with its entry read.
#[derive(Debug, Clone)]
pub struct Session {
    pub agent_id: String,
    pub key: String,
    /// The agent database the row and its transcript live in.
    pub db: PathBuf,
    /// `current_session_id`: whose `transcript_events` rows are the transcript.
    pub transcript_session_id: String,
    pub entry: StoreEntry,
    pub extra: Entry96,
    pub warnings: Vec<String>,
}

impl Session {
    /// What the thresholds need, with the 2026.9 fields.
    pub fn counters(&self) -> Counters {
        Counters::from_entry(&self.entry)
    }
}

/// What reading the agent databases gave.
#[derive(Debug, Default)]
pub struct Loaded {
    pub sessions: Vec<Session>,
    /// Per-row problems (row skipped) and per-database notes.
    pub warnings: Vec<String>,
    /// Databases that could not be read at all, each naming the file.
    pub errors: Vec<String>,
    /// Session rows that could not be read, by key, with the warning that says why.
    pub skipped: Vec<(String, String)>,
}

/// Reads the sessions of every agent (or one) of `layout`. A database that cannot be read is
/// an error and the others still load.
pub fn load(layout: &SqliteLayout, only_agent: Option<&str>) -> Loaded {
    load_rows(layout, only_agent, &mut fresh, &mut entry::read_sessions)
}

/// How [`load_rows`] reads a database: `read` on a connection of its own.
pub type OpenDb<'a> = dyn FnMut(
        &std::path::Path,
        &mut ReadRows<'_>,
    ) -> Result<Vec<entry::SessionRow>, super::open::DbError>
    + 'a;

/// A new connection for one read, read again while the database changed under an
/// immutable or copied read ([`ReadOnlyDb::read_stable`]).
fn fresh(
    path: &std::path::Path,
    read: &mut ReadRows<'_>,
) -> Result<Vec<entry::SessionRow>, super::open::DbError> {
    ReadOnlyDb::read_stable(path, read)
}

/// [`load`], each database's rows read by `read` (e.g. [`entry::read_sessions_kept`])
/// through `open` (a connection kept between reads: the TUI lists the host again at every
/// change, and opening a database parses its schema again and starts with an empty
/// statement cache).
pub fn load_through(
    layout: &SqliteLayout,
    only_agent: Option<&str>,
    open: &mut OpenDb<'_>,
    read: &mut ReadRows<'_>,
) -> Loaded {
    load_rows(layout, only_agent, open, read)
}

/// [`load`], each database's rows given by `rows_of` (e.g. only those that changed since
/// the last listing) instead of read.
pub fn load_each(
    layout: &SqliteLayout,
    only_agent: Option<&str>,
    rows_of: &mut dyn FnMut(
        &std::path::Path,
    ) -> Result<Vec<entry::SessionRow>, super::open::DbError>,
) -> Loaded {
    load_rows(
        layout,
        only_agent,
        &mut |path, _| rows_of(path),
        &mut |_| Ok(Vec::new()),
    )
}

/// The sessions whose key is `key`, in every agent database (or one), read by the key
/// instead of with every row: what naming a session by its full key needs. None when that
/// does not settle it — no such row, or a database or the row could not be read — and the
/// caller reads everything (whose errors and skip reasons then say why).
pub fn load_key(layout: &SqliteLayout, only_agent: Option<&str>, key: &str) -> Option<Loaded> {
    let out = load_rows(layout, only_agent, &mut fresh, &mut |db: &ReadOnlyDb| {
        entry::read_session(db, key)
    });
    (out.errors.is_empty() && out.skipped.is_empty() && !out.sessions.is_empty()).then_some(out)
}

pub type ReadRows<'a> =
    dyn FnMut(&ReadOnlyDb) -> Result<Vec<entry::SessionRow>, super::open::DbError> + 'a;

fn load_rows(
    layout: &SqliteLayout,
    only_agent: Option<&str>,
    open: &mut OpenDb<'_>,
    read: &mut ReadRows<'_>,
) -> Loaded {
    let mut out = Loaded::default();
    out.warnings.extend(layout.problems.iter().cloned());
    for a in &layout.agents {
        // A database that could not be read is reported even when it cannot say whether it
        // holds sessions.
        if only_agent.is_some_and(|o| o != a.agent_id) || (!a.has_sessions && a.error.is_none()) {
            continue;
        }
        out.warnings.extend(a.notes.iter().cloned());
        if let Some(e) = &a.error {
            out.errors.push(e.clone());
            continue;
        }
        let rows = match open(&a.path, &mut *read) {
            Ok(r) => r,
            Err(e) => {
                out.errors.push(crate::sanitize::one_line(&e.to_string()));
                continue;
            }
        };
        let total = rows.len();
        let before = out.sessions.len();
        let mut first_why = None;
        for r in rows {
            match r.entry {
                Ok((entry, extra)) => {
                    let mut warnings = Vec::new();
                    if entry.session_id != r.current_session_id {
                        warnings.push(format!(
                            "entry sessionId {} differs from the row's current_session_id {}; the transcript is read from the latter",
                            crate::sanitize::one_line(&entry.session_id),
                            crate::sanitize::one_line(&r.current_session_id)
                        ));
                    }
                    out.sessions.push(Session {
                        agent_id: a.agent_id.clone(),
                        key: r.key,
                        db: a.path.clone(),
                        transcript_session_id: r.current_session_id,
                        entry,
                        extra,
                        warnings,
                    });
                }
                Err(why) => {
                    let w = format!(
                        "{}: session {:?}: {why}; skipped",
                        a.path.display(),
                        crate::sanitize::one_line(&r.key)
                    );
                    first_why.get_or_insert_with(|| w.clone());
                    out.skipped.push((r.key, w.clone()));
                    out.warnings.push(w);
                }
            }
        }
        // Not one row readable: the database's sessions are unknown, not absent.
        if total > 0 && out.sessions.len() == before {
            out.errors.push(format!(
                "{}: none of its {total} session rows could be read (first: {})",
                a.path.display(),
                first_why.unwrap_or_default()
            ));
        }
    }
    out
}
