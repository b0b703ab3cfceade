//! OpenClaw 2026.9's own transcript index, beside `transcript_events`:
//! `transcript_event_identities` (every row's id, type and parent, without decoding it),
//! `session_transcript_active_events` (the active branch, root to leaf, the header left out,
//! messages numbered) and `session_transcript_index_state` (how far the index reaches).
//!
//! [`derive`] computes those rows from a session's decoded rows the way 2026.9.6 writes them
//! (tests/sqlite/index.rs checks it against every session of the 2026.9.6 fixture, and
//! `examples/gen_sqlite_host.rs` writes the benchmark host's index with it); [`read`] reads
//! what OpenClaw wrote; [`is_current`] says whether the index covers every row (its
//! `indexed_seq` is the window's last seq and nothing asks for a rebuild). An index that lags
//! is never trusted.

use super::open::{DbError, ReadOnlyDb};
use serde_json::Value;
use std::collections::HashMap;

/// One row of `transcript_event_identities`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Identity {
    pub event_id: String,
    pub seq: i64,
    pub event_type: Option<String>,
    pub parent_id: Option<String>,
    /// `message.idempotencyKey` of the row.
    pub message_idempotency_key: Option<String>,
    pub created_at: i64,
}

/// One row of `session_transcript_active_events`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveEvent {
    pub active_position: i64,
    pub event_seq: i64,
    /// The message's position among the branch's messages (None: not a message).
    pub message_position: Option<i64>,
    pub context_eligible: Option<i64>,
}

/// `session_transcript_index_state`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexState {
    pub indexed_seq: i64,
    pub leaf_event_id: Option<String>,
    pub needs_rebuild: bool,
    pub active_event_count: i64,
    pub active_message_count: i64,
    pub updated_at: i64,
}

/// A session's index rows: identities in seq order, the branch in position order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionIndex {
    pub identities: Vec<Identity>,
    pub active: Vec<ActiveEvent>,
    pub state: IndexState,
}

/// The index rows of a session whose rows `(seq, entry JSON, created_at)` are given in seq
/// order: an identity per row with an id (the header's too); the branch followed back from
/// the last row with an id through `parentId` (a parent must come earlier; the header is not
/// part of it); the state at the last seq.
pub fn derive(rows: &[(i64, &[u8], i64)]) -> SessionIndex {
    let mut identities = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut parsed: Vec<(Option<String>, String, Option<String>)> = Vec::new();
    for (k, (seq, json, created)) in rows.iter().enumerate() {
        let v: Value = serde_json::from_slice(json).unwrap_or(Value::Null);
        let id = v.get("id").and_then(Value::as_str).map(str::to_string);
        let ty = v
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let parent = v
            .get("parentId")
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(id) = &id {
            identities.push(Identity {
                event_id: id.clone(),
                seq: *seq,
                event_type: Some(ty.clone()),
                parent_id: parent.clone(),
                message_idempotency_key: v
                    .pointer("/message/idempotencyKey")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                created_at: *created,
            });
            by_id.insert(id.clone(), k);
        }
        parsed.push((id, ty, parent));
    }
    let leaf = parsed
        .iter()
        .rposition(|(id, ty, _)| id.is_some() && ty != "session");
    let mut branch = Vec::new();
    let mut cur = leaf;
    while let Some(k) = cur {
        branch.push(k);
        cur = parsed[k]
            .2
            .as_ref()
            .and_then(|p| by_id.get(p).copied())
            .filter(|&pk| pk < k && parsed[pk].1 != "session");
    }
    branch.reverse();
    let mut messages = 0i64;
    let active: Vec<ActiveEvent> = branch
        .iter()
        .enumerate()
        .map(|(pos, &k)| ActiveEvent {
            active_position: pos as i64,
            event_seq: rows[k].0,
            message_position: (parsed[k].1 == "message").then(|| {
                messages += 1;
                messages - 1
            }),
            context_eligible: Some(1),
        })
        .collect();
    let (indexed_seq, updated_at) = rows.last().map_or((-1, 0), |r| (r.0, r.2));
    SessionIndex {
        state: IndexState {
            indexed_seq,
            leaf_event_id: leaf.and_then(|k| parsed[k].0.clone()),
            needs_rebuild: false,
            active_event_count: active.len() as i64,
            active_message_count: messages,
            updated_at,
        },
        identities,
        active,
    }
}

/// What OpenClaw wrote for a session; None when the database has no index (before 2026.9)
/// or none for this session.
pub fn read(db: &ReadOnlyDb, session_id: &str) -> Result<Option<SessionIndex>, DbError> {
    let err = |e| DbError::from_sqlite(&db.path, e);
    let c = db.conn();
    let state = match c.query_row(
        "SELECT indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count, updated_at \
         FROM session_transcript_index_state WHERE session_id = ?1",
        [session_id],
        |r| {
            Ok(IndexState {
                indexed_seq: r.get(0)?,
                leaf_event_id: r.get(1)?,
                needs_rebuild: r.get::<_, i64>(2)? != 0,
                active_event_count: r.get(3)?,
                active_message_count: r.get(4)?,
                updated_at: r.get(5)?,
            })
        },
    ) {
        Ok(s) => s,
        Err(rusqlite::Error::QueryReturnedNoRows) => return Ok(None),
        Err(rusqlite::Error::SqliteFailure(_, Some(m))) if m.contains("no such table") => {
            return Ok(None);
        }
        Err(e) => return Err(err(e)),
    };
    let identities = c
        .prepare(
            "SELECT event_id, seq, event_type, parent_id, message_idempotency_key, created_at \
             FROM transcript_event_identities WHERE session_id = ?1 ORDER BY seq",
        )
        .map_err(err)?
        .query_map([session_id], |r| {
            Ok(Identity {
                event_id: r.get(0)?,
                seq: r.get(1)?,
                event_type: r.get(2)?,
                parent_id: r.get(3)?,
                message_idempotency_key: r.get(4)?,
                created_at: r.get(5)?,
            })
        })
        .map_err(err)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    let active = c
        .prepare(
            "SELECT active_position, event_seq, message_position, context_eligible \
             FROM session_transcript_active_events WHERE session_id = ?1 ORDER BY active_position",
        )
        .map_err(err)?
        .query_map([session_id], |r| {
            Ok(ActiveEvent {
                active_position: r.get(0)?,
                event_seq: r.get(1)?,
                message_position: r.get(2)?,
                context_eligible: r.get(3)?,
            })
        })
        .map_err(err)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    Ok(Some(SessionIndex {
        identities,
        active,
        state,
    }))
}

/// Whether OpenClaw's index of the session covers every row: its state's `indexed_seq` is
/// the window's last seq and it asks for no rebuild.
pub fn is_current(db: &ReadOnlyDb, session_id: &str) -> bool {
    db.conn()
        .query_row(
            "SELECT s.needs_rebuild = 0 AND s.indexed_seq = \
             (SELECT max(seq) FROM transcript_events WHERE session_id = ?1) \
             FROM session_transcript_index_state s WHERE s.session_id = ?1",
            [session_id],
            |r| r.get::<_, bool>(0),
        )
        .unwrap_or(false)
}
