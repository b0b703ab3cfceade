//! Session rows of an agent database: `session_nodes.entry_json` (docs/sqlite-host.md §3).
//!
//! `entry_json` is authoritative; the promoted columns are indexes and mostly NULL. The entry
//! has the shape of a 2026.2 `sessions.json` value with three changes that matter here: the
//! flush state is one `memoryFlush` object (`{kind, compactionCount}`, no time), there is
//! `totalTokensVersion`, and `sessionFile` is gone (the transcript is `transcript_events`).

use super::open::{DbError, ReadOnlyDb};
use crate::store_entry::StoreEntry;
use crate::store_entry::non_negative;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `memoryFlush` of a 2026.9 entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryFlush {
    /// `succeeded`, `failed`, or whatever a newer release writes.
    pub kind: String,
    /// `compactionCount` of the session when the flush ran (absent on some failures).
    pub compaction_count: Option<u64>,
    pub failure_count: Option<u64>,
}

/// The 2026.9 fields clawtop reads beyond the 2026.2 ones.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Entry96 {
    pub memory_flush: Option<MemoryFlush>,
    /// 1: `totalTokens` is the prompt snapshot of the last model call.
    pub total_tokens_version: Option<u64>,
    pub context_tokens_source: Option<String>,
    /// `contextBudgetStatus.reserveTokens` / `promptBudgetBeforeReserve`: OpenClaw's own
    /// reserve and compaction line at the last prompt (absent after a compaction).
    pub budget_reserve: Option<u64>,
    pub budget_compact_at: Option<u64>,
}

/// One `session_nodes` row.
#[derive(Debug, Clone)]
pub struct SessionRow {
    pub key: String,
    /// `current_session_id`: the transcript's session id.
    pub current_session_id: String,
    pub updated_at: i64,
    pub entry: Result<(StoreEntry, Entry96), RowEntryError>,
}

/// Why a `session_nodes` row's `entry_json` is skipped (the other rows are still read).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowEntryError {
    #[error("entry_json is not JSON ({0})")]
    NotJson(String),
    #[error("entry_json is not a JSON object")]
    NotObject,
    #[error("entry_json has an unsafe sessionId {0:?}")]
    UnsafeSessionId(String),
    #[error("entry_json has no sessionId")]
    NoSessionId,
}

/// The fields of an entry clawtop reads, as values by their place in [`KEEP`] (a repeated
/// key keeps its last value, as a map would); None when the JSON is not an object.
/// `contextBudgetStatus` is kept as the two fields read of it ([`Budget`]).
struct Kept(Option<([Option<Value>; KEEP.len()], Budget)>);

const KEEP: [&str; 11] = [
    "sessionId",
    "updatedAt",
    "model",
    "modelProvider",
    "totalTokens",
    "totalTokensFresh",
    "totalTokensVersion",
    "contextTokens",
    "contextTokensSource",
    "compactionCount",
    "memoryFlush",
];

/// `contextBudgetStatus.reserveTokens` and `.promptBudgetBeforeReserve`, as values (both None
/// when the status is not an object). Its other fields are read as values too and dropped, so
/// an entry is refused exactly where reading the whole status as a value refuses it; what is
/// saved is the map of a dozen fields built for two of them.
#[derive(Default)]
struct Budget {
    reserve: Option<Value>,
    compact_at: Option<Value>,
}

impl<'de> serde::Deserialize<'de> for Budget {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{MapAccess, SeqAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Budget;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Budget, A::Error> {
                let mut b = Budget::default();
                while let Some(k) = m.next_key::<crate::transcript::parse::AnyStr<'de>>()? {
                    let v = m.next_value::<Value>()?;
                    match k.0.as_deref() {
                        Some("reserveTokens") => b.reserve = Some(v),
                        Some("promptBudgetBeforeReserve") => b.compact_at = Some(v),
                        _ => {}
                    }
                }
                Ok(b)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Budget, A::Error> {
                while s.next_element::<Value>()?.is_some() {}
                Ok(Budget::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<Budget, E> {
                Ok(Budget::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<Budget, E> {
                Ok(Budget::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<Budget, E> {
                Ok(Budget::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<Budget, E> {
                Ok(Budget::default())
            }
            fn visit_str<E>(self, _: &str) -> Result<Budget, E> {
                Ok(Budget::default())
            }
            fn visit_unit<E>(self) -> Result<Budget, E> {
                Ok(Budget::default())
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> serde::Deserialize<'de> for Kept {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Kept;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a session entry object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Kept, A::Error> {
                let mut out: [Option<Value>; KEEP.len()] = Default::default();
                let mut budget = Budget::default();
                // Keys borrowed from the text (a `Cow<str>` key would allocate every one).
                while let Some(k) = m.next_key::<crate::transcript::parse::AnyStr<'de>>()? {
                    let k = k.0.unwrap_or_default();
                    if let Some(i) = KEEP.iter().position(|&f| f == k) {
                        out[i] = Some(m.next_value::<Value>()?);
                    } else if k == "contextBudgetStatus" {
                        budget = m.next_value::<Budget>()?;
                    } else {
                        m.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Kept(Some((out, budget))))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<Kept, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Kept(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Kept, E> {
                Ok(Kept(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Kept, E> {
                Ok(Kept(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Kept, E> {
                Ok(Kept(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Kept, E> {
                Ok(Kept(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Kept, E> {
                Ok(Kept(None))
            }
            fn visit_unit<E>(self) -> Result<Kept, E> {
                Ok(Kept(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// Reads the fields clawtop uses from one `entry_json`.
pub fn parse_entry(json: &str) -> Result<(StoreEntry, Entry96), RowEntryError> {
    // Only the top-level fields clawtop reads are kept; the rest (`skillsSnapshot`,
    // `systemPromptReport`: most of the bytes) is skipped without building a tree.
    let mut probe = serde_json::Deserializer::from_str(json);
    let kept: Result<Kept, _> = serde::Deserialize::deserialize(&mut probe);
    let (fields, budget) = match kept.and_then(|k| probe.end().map(|_| k)) {
        Ok(Kept(Some(kept))) => kept,
        Ok(Kept(None)) => return Err(RowEntryError::NotObject),
        Err(e) => return Err(RowEntryError::NotJson(e.to_string())),
    };
    let get = |k: &str| {
        KEEP.iter()
            .position(|&f| f == k)
            .and_then(|i| fields[i].as_ref())
    };
    let session_id = match get("sessionId") {
        Some(Value::String(s)) if crate::store_entry::safe_session_id(s) => s.clone(),
        Some(Value::String(s)) => {
            return Err(RowEntryError::UnsafeSessionId(crate::sanitize::one_line(s)));
        }
        _ => return Err(RowEntryError::NoSessionId),
    };
    let string = |k: &str| match get(k) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    };
    let int = |k: &str| {
        get(k).and_then(|v| {
            v.as_i64().or_else(|| {
                v.as_f64()
                    .filter(|f| f.is_finite())
                    .map(|f| f.floor() as i64)
            })
        })
    };
    let memory_flush = match get("memoryFlush") {
        Some(Value::Object(m)) => Some(MemoryFlush {
            kind: m
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_string(),
            compaction_count: m.get("compactionCount").and_then(non_negative),
            failure_count: m.get("failureCount").and_then(non_negative),
        }),
        _ => None,
    };
    let store = StoreEntry {
        session_id,
        session_file: None,
        updated_at: int("updatedAt"),
        model: string("model"),
        model_provider: string("modelProvider"),
        total_tokens_raw: get("totalTokens").cloned(),
        total_tokens_fresh_raw: get("totalTokensFresh").cloned(),
        context_tokens_raw: get("contextTokens").cloned(),
        compaction_count: get("compactionCount").and_then(non_negative),
        // 2026.9 keeps no flush time; a migrated `memoryFlushAt` is dropped by OpenClaw too.
        memory_flush_at: None,
        memory_flush_compaction_count: memory_flush.as_ref().and_then(|m| m.compaction_count),
        memory_flush_kind: memory_flush.as_ref().map(|m| m.kind.clone()),
        total_tokens_version: get("totalTokensVersion").and_then(non_negative),
    };
    let extra = Entry96 {
        memory_flush,
        total_tokens_version: get("totalTokensVersion").and_then(non_negative),
        context_tokens_source: string("contextTokensSource"),
        budget_reserve: budget.reserve.as_ref().and_then(non_negative),
        budget_compact_at: budget.compact_at.as_ref().and_then(non_negative),
    };
    Ok((store, extra))
}

/// Every session row of an agent database, ordered by key.
pub fn read_sessions(db: &ReadOnlyDb) -> Result<Vec<SessionRow>, DbError> {
    read_rows(db, "ORDER BY session_key", [])
}

/// The row of one session key (none or one: `session_key` is the table's primary key).
pub fn read_session(db: &ReadOnlyDb, key: &str) -> Result<Vec<SessionRow>, DbError> {
    read_rows(db, "WHERE session_key = ?1", [key])
}

fn read_rows<P: rusqlite::Params>(
    db: &ReadOnlyDb,
    tail: &str,
    params: P,
) -> Result<Vec<SessionRow>, DbError> {
    let mut st = db
        .conn()
        .prepare(&format!(
            "SELECT session_key, current_session_id, entry_json, updated_at FROM session_nodes {tail}"
        ))
        .map_err(|e| DbError::from_sqlite(&db.path, e))?;
    let err = |e| DbError::from_sqlite(&db.path, e);
    let mut rows = st.query(params).map_err(err)?;
    let mut out = Vec::new();
    while let Some(r) = rows.next().map_err(err)? {
        let key = r.get::<_, String>(0).map_err(err)?;
        let current_session_id = r.get::<_, String>(1).map_err(err)?;
        // The entry is parsed where SQLite holds it (~13 KB each, ~26 MB on a host of 2,000
        // sessions), not copied first; anything but UTF-8 text fails as `String` does.
        let text = match r.get_ref(2).map_err(err)? {
            rusqlite::types::ValueRef::Text(t) => simdutf8::basic::from_utf8(t).ok(),
            _ => None,
        };
        let entry = match text {
            Some(json) => parse_entry(json),
            None => parse_entry(&r.get::<_, String>(2).map_err(err)?),
        };
        let updated_at = r.get::<_, Option<i64>>(3).map_err(err)?;
        tracing::debug!(target: "clawtop::io", io = "session entry read", "session entry read");
        out.push(SessionRow {
            key,
            current_session_id,
            updated_at: updated_at.unwrap_or(0),
            entry,
        });
    }
    Ok(out)
}

/// Every this many reads, [`read_sessions_kept`] reads every row whole again.
pub const KEPT_FULL_EVERY: u32 = 30;

/// The rows a listing read before, for [`read_sessions_kept`]: each with the columns that
/// say whether it changed without reading its `entry_json` (most of the table's bytes: a
/// 2,000-session host holds ~26 MB of them).
#[derive(Debug, Default)]
pub struct RowsKept {
    rows: std::collections::HashMap<String, (Cheap, SessionRow)>,
    reads: u32,
    /// Rows whose `entry_json` the last read read (a test counts them).
    pub last_read: usize,
    /// Keep from the first read on: the rows are remembered between runs
    /// ([`RowsKept::remembered`]), so even a one-shot listing asks again, in the next run.
    pub remember: bool,
    /// When every row was last read whole (ms since the epoch; 0: never).
    read_whole_at: i64,
    /// The rows changed since they were recalled (or there was nothing to recall).
    pub moved: bool,
    /// Read at least once by this process: rows recalled for a database no longer listed
    /// are not written again.
    listed: bool,
    /// [`changed_rows`] found a whole read due: the next [`read_sessions_kept`] reads every row.
    whole_due: bool,
    /// The clock when the rows were last read (ms since the epoch; 0: never).
    read_at_ms: i64,
    /// The stamp of the database's files ([`crate::source::stamp::of_database`]) taken
    /// before the read that left `rows` as the whole table; None when unknown, or when rows
    /// were taken since without reading every row's columns ([`changed_rows`]).
    files: Option<String>,
    /// The rows were recalled and not read since: the next [`read_sessions_kept`] may take
    /// them whole when the files have not moved.
    recalled: bool,
}

/// `current_session_id`, `updated_at`, `entry_valid` and the entry's stored length.
type Cheap = (String, Option<i64>, Option<i64>, i64);

/// Rows remembered between runs are read whole again once they are this old: the next run
/// of a `check` from cron, like every [`KEPT_FULL_EVERY`]th reload of a TUI, misses no edit
/// that kept a row's cheap columns for long.
pub const REMEMBERED_FOR_MS: i64 = 30 * 60 * 1000;

/// [`RowsKept`] as written between runs (the rows cache, docs/cache.md): each readable row
/// with its cheap columns and its entry as parsed, never the rest of `entry_json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RememberedOut<'a> {
    read_whole_at: i64,
    /// [`RowsKept::files`], written only when `rows` are every row of the table.
    files: Option<&'a str>,
    rows: Vec<(&'a str, &'a Cheap, i64, &'a StoreEntry, &'a Entry96)>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RememberedIn {
    read_whole_at: i64,
    files: Option<String>,
    rows: Vec<(String, Cheap, i64, StoreEntry, Entry96)>,
}

impl RowsKept {
    /// No session row is kept.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Every kept row's entry parsed: only then are the rows written between runs the whole
    /// table, and the files' stamp written with them.
    fn all_parsed(&self) -> bool {
        self.rows.values().all(|(_, r)| r.entry.is_ok())
    }

    /// The rows as written between runs (MessagePack, as the rows cache: docs/cache.md);
    /// None when they are not remembered.
    pub fn remembered(&self) -> Option<Vec<u8>> {
        if !self.remember || !self.listed || self.rows.is_empty() {
            return None;
        }
        let mut rows: Vec<_> = self
            .rows
            .iter()
            .filter_map(|(key, (cheap, row))| {
                let (entry, extra) = row.entry.as_ref().ok()?;
                Some((key.as_str(), cheap, row.updated_at, entry, extra))
            })
            .collect();
        // In key order: the same rows write the same text.
        rows.sort_unstable_by(|a, b| a.0.cmp(b.0));
        crate::packed::to_vec(&RememberedOut {
            read_whole_at: self.read_whole_at,
            files: self.files.as_deref().filter(|_| self.all_parsed()),
            rows,
        })
        .ok()
    }

    /// Takes back the rows an earlier run remembered ([`Self::remembered`]), unless they
    /// are older than [`REMEMBERED_FOR_MS`] or this reader read already; rows that cannot be
    /// read back are not taken (every row is read again).
    pub fn recall(&mut self, bytes: &[u8]) {
        self.recall_at(bytes, chrono::Utc::now().timestamp_millis())
    }

    fn recall_at(&mut self, bytes: &[u8], now_ms: i64) {
        if self.reads > 0 || !self.rows.is_empty() {
            return;
        }
        let Ok(r) = crate::packed::from_slice::<RememberedIn>(bytes) else {
            return;
        };
        if now_ms.saturating_sub(r.read_whole_at) >= REMEMBERED_FOR_MS || r.read_whole_at > now_ms {
            return;
        }
        self.read_whole_at = r.read_whole_at;
        let written = r.rows.len();
        self.rows = std::collections::HashMap::with_capacity(written);
        self.rows.extend(
            r.rows
                .into_iter()
                // An entry with an id `parse_entry` would refuse is not taken (it is read).
                .filter(|(_, _, _, entry, _)| {
                    crate::store_entry::safe_session_id(&entry.session_id)
                })
                .map(|(key, cheap, updated_at, entry, extra)| {
                    let row = SessionRow {
                        key: key.clone(),
                        current_session_id: cheap.0.clone(),
                        updated_at,
                        entry: Ok((entry, extra)),
                    };
                    (key, (cheap, row))
                }),
        );
        // Rows left out are read again, and the files' stamp no longer speaks for the table.
        self.files = r.files.filter(|_| self.rows.len() == written);
        self.recalled = true;
        // Recalled rows are asked about as a reload's are: the next read is not a first.
        self.reads = 1;
        self.moved = false;
    }
}

/// [`read_sessions`] for a reader that asks again at every change of the database (the TUI's
/// reload), from its second read on: a row whose `current_session_id`, `updated_at`,
/// `entry_valid` and `entry_json` length are those of the last read is handed back as it
/// was, unparsed and unread. OpenClaw moves `updated_at` with every entry write, and its
/// triggers set `entry_valid` to 0 on any change of `entry_json`; a write that kept all four
/// (a same-length edit by another program, validated again before the next read) would be
/// missed, so every [`KEPT_FULL_EVERY`]th read reads every row again.
///
/// `files` stamps the database's files as a whole (the source's
/// [`crate::source::stamp::of_database`]). Rows recalled from an earlier run whose read left
/// them as the whole table under the stamp the files still have are handed back without a
/// statement: nothing was written to the database since (a `list` or `check` run again on a
/// quiet host reads no row).
pub fn read_sessions_kept(
    db: &ReadOnlyDb,
    kept: &mut RowsKept,
    files: &dyn Fn() -> Option<String>,
) -> Result<Vec<SessionRow>, DbError> {
    kept.reads = kept.reads.wrapping_add(1);
    kept.listed = true;
    kept.read_at_ms = chrono::Utc::now().timestamp_millis();
    if kept.reads == 1 && !kept.remember {
        // The first read keeps nothing: a one-shot listing (`list`, `check`, `metrics`) is
        // not asked again, and keeping 2,000 rows with their columns cost it a tenth of a
        // warm run. A reader that asks again keeps from its second read on.
        return read_all(db, kept);
    }
    // Taken before anything is read: a write during the read moves it, so what this read
    // keeps is never taken whole under a stamp of files that moved after it. Not inside a
    // read transaction already begun: its snapshot may be older than the files now.
    let files = if db.conn().is_autocommit() {
        files()
    } else {
        None
    };
    let recalled = std::mem::take(&mut kept.recalled);
    if recalled
        && !kept.whole_due
        && !kept.rows.is_empty()
        && files.is_some()
        && files == kept.files
    {
        kept.last_read = 0;
        let mut out: Vec<SessionRow> = kept.rows.values().map(|(_, r)| r.clone()).collect();
        // As [`read_sessions`] and [`cheap_columns`] give them: in key order.
        out.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        return Ok(out);
    }
    let before = kept.files.take();
    let out = read_kept(db, kept)?;
    // Files that moved under rows that did not (a checkpoint, a write elsewhere) are
    // remembered anew, so the next run takes the rows whole again; not when the stamp would
    // not be written ([`RowsKept::remembered`]: a row that did not parse), or every run
    // would write the cache for nothing.
    kept.moved |= recalled && files.is_some() && files != before && kept.all_parsed();
    kept.files = files;
    Ok(out)
}

/// Every row read and parsed, nothing kept (the caller keeps what it keeps).
fn read_all(db: &ReadOnlyDb, kept: &mut RowsKept) -> Result<Vec<SessionRow>, DbError> {
    let rows = read_sessions(db)?;
    kept.rows.clear();
    kept.last_read = rows.len();
    kept.moved = true;
    kept.read_whole_at = chrono::Utc::now().timestamp_millis();
    Ok(rows)
}

/// [`read_sessions_kept`] once it asks the database.
fn read_kept(db: &ReadOnlyDb, kept: &mut RowsKept) -> Result<Vec<SessionRow>, DbError> {
    if kept.rows.is_empty() || kept.reads % KEPT_FULL_EVERY == 0 || kept.whole_due {
        kept.whole_due = false;
        // The cheap columns first, then the rows: a write between the two statements then
        // makes the next read see a change and read the row again, never keep an old entry
        // under new columns.
        let cheap = cheap_columns(db)?;
        let rows = read_all(db, kept)?;
        let by_key: std::collections::HashMap<&str, &Cheap> =
            cheap.iter().map(|(k, c)| (k.as_str(), c)).collect();
        for r in &rows {
            if let Some(c) = by_key.get(r.key.as_str()) {
                kept.rows.insert(r.key.clone(), ((*c).clone(), r.clone()));
            }
        }
        return Ok(rows);
    }
    let cheap = match cheap_columns(db) {
        Ok(c) => c,
        Err(_) => return read_all(db, kept),
    };
    kept.last_read = 0;
    let mut out = Vec::with_capacity(cheap.len());
    for (key, c) in cheap {
        // A row unchanged stays where it is in the map: looked up, not taken out and put back.
        if let Some((k, row)) = kept.rows.get(&key) {
            if *k == c {
                out.push(row.clone());
                continue;
            }
        }
        kept.last_read += 1;
        // What is remembered between runs moved (a row that does not parse is not
        // remembered, and reading it again each run is no reason to write the cache again).
        let was_remembered = kept.rows.get(&key).is_some_and(|(_, r)| r.entry.is_ok());
        match read_session(db, &key)?.pop() {
            Some(r) => {
                kept.moved |= was_remembered || r.entry.is_ok();
                out.push(r.clone());
                kept.rows.insert(key, (c, r));
            }
            None => {
                kept.moved |= was_remembered;
                kept.rows.remove(&key);
            }
        }
    }
    // Rows deleted since: forgotten.
    if kept.rows.len() != out.len() {
        let listed: std::collections::HashSet<&str> = out.iter().map(|r| r.key.as_str()).collect();
        let mut moved = false;
        kept.rows.retain(|k, (_, r)| {
            let keep = listed.contains(k.as_str());
            moved |= !keep && r.entry.is_ok();
            keep
        });
        kept.moved |= moved;
    }
    Ok(out)
}

/// The rows that changed since `kept` was filled, read again and kept (what a TUI's reload
/// rebuilds; issue 31, live); the others are not handed back. Found from OpenClaw's indexes
/// without a walk of the table: the rows whose `updated_at` is above every kept one (OpenClaw
/// moves it with every entry write) and the rows whose `entry_valid` is not 1 (its triggers
/// clear it on any change of `entry_json`, `current_session_id` or `updated_at`, until it
/// validates the row again), each then compared by its cheap columns. An edit by another
/// program that OpenClaw validated before this read, keeping `updated_at`, is seen by the
/// next [`read_sessions_kept`] (the TUI's whole reload, at least every 30 s). None when the
/// rows cannot be told apart from the kept ones that way — nothing kept, a row added or
/// deleted (the row count moved), or a whole read due ([`KEPT_FULL_EVERY`]) — and the next
/// [`read_sessions_kept`] reads as it would have.
pub fn changed_rows(
    db: &ReadOnlyDb,
    kept: &mut RowsKept,
) -> Result<Option<Vec<SessionRow>>, DbError> {
    // Nothing kept: a database that had no session rows still has none (the count), or
    // was read once without keeping (a one-shot reader's first read).
    if kept.whole_due || (kept.rows.is_empty() && kept.reads <= 1) {
        return Ok(None);
    }
    // Rows taken one by one: the files' stamp no longer speaks for the whole table.
    kept.files = None;
    kept.recalled = false;
    kept.reads = kept.reads.wrapping_add(1);
    if kept.reads % KEPT_FULL_EVERY == 0 {
        kept.whole_due = true;
        return Ok(None);
    }
    let err = |e| DbError::from_sqlite(&db.path, e);
    let conn = db.conn();
    let own = conn.is_autocommit();
    if own {
        conn.execute_batch("BEGIN").map_err(err)?;
    }
    let out = changed_rows_in(db, kept);
    if own {
        let _ = conn.execute_batch("COMMIT");
    }
    out
}

fn changed_rows_in(
    db: &ReadOnlyDb,
    kept: &mut RowsKept,
) -> Result<Option<Vec<SessionRow>>, DbError> {
    let err = |e| DbError::from_sqlite(&db.path, e);
    let count: i64 = db
        .conn()
        .prepare_cached("SELECT count(*) FROM session_nodes")
        .and_then(|mut st| st.query_row([], |r| r.get(0)))
        .map_err(err)?;
    if count != kept.rows.len() as i64 {
        return Ok(None);
    }
    // From a little before the newest kept `updated_at`, or before the last read's clock if
    // that is earlier (a row dated ahead of the clock must not hide the writes after it);
    // rows written in the same millisecond as the read are then asked again, and each
    // candidate is compared by its columns anyway.
    let newest = kept
        .rows
        .values()
        .filter_map(|(c, _)| c.1)
        .max()
        .unwrap_or(i64::MIN);
    let from = newest.min(kept.read_at_ms).saturating_sub(CHANGED_SLACK_MS);
    kept.read_at_ms = chrono::Utc::now().timestamp_millis();
    let mut candidates = keys_where(db, "updated_at >= ?1", [from])?;
    candidates.extend(keys_where(db, "entry_valid != 1", [])?);
    candidates.sort_unstable();
    candidates.dedup();
    kept.last_read = 0;
    let mut out = Vec::new();
    for key in candidates {
        let Some(c) = cheap_of(db, &key)? else {
            return Ok(None);
        };
        match kept.rows.get(&key) {
            Some((k, _)) if *k == c => continue,
            Some(_) => {}
            None => return Ok(None),
        }
        kept.last_read += 1;
        kept.moved = true;
        match read_session(db, &key)?.pop() {
            Some(r) => {
                out.push(r.clone());
                kept.rows.insert(key, (c, r));
            }
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// The keys of the rows `condition` holds for.
fn keys_where<P: rusqlite::Params>(
    db: &ReadOnlyDb,
    condition: &str,
    params: P,
) -> Result<Vec<String>, DbError> {
    let err = |e| DbError::from_sqlite(&db.path, e);
    let mut st = db
        .conn()
        .prepare_cached(&format!(
            "SELECT session_key FROM session_nodes WHERE {condition}"
        ))
        .map_err(err)?;
    let rows = st
        .query_map(params, |r| r.get::<_, String>(0))
        .map_err(err)?;
    rows.collect::<Result<_, _>>().map_err(err)
}

/// How far before the newest kept `updated_at` [`changed_rows`] looks again.
const CHANGED_SLACK_MS: i64 = 5_000;

/// The cheap columns of one row (None: no such row).
fn cheap_of(db: &ReadOnlyDb, key: &str) -> Result<Option<Cheap>, DbError> {
    use rusqlite::OptionalExtension;
    db.conn()
        .prepare_cached(
            "SELECT current_session_id, updated_at, entry_valid, octet_length(entry_json) \
             FROM session_nodes WHERE session_key = ?1",
        )
        .and_then(|mut st| {
            st.query_row([key], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<i64>>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, Option<i64>>(3)?.unwrap_or(-1),
                ))
            })
            .optional()
        })
        .map_err(|e| DbError::from_sqlite(&db.path, e))
}

/// The kept rows whose transcript (`current_session_id`) is one of `ids`: the sessions
/// whose transcript moved while their entry did not.
pub fn kept_rows_of(kept: &RowsKept, ids: &std::collections::HashSet<String>) -> Vec<SessionRow> {
    kept.rows
        .values()
        .filter(|(_, r)| ids.contains(&r.current_session_id))
        .map(|(_, r)| r.clone())
        .collect()
}

/// The cheap columns of every row, by key. `updated_at` and `entry_valid` come after
/// `entry_json` in the row, so reading them from the table walks each entry's overflow pages
/// (~13 KB an entry, the cost of a reload on a host of thousands; issue 31): they are taken
/// from OpenClaw's indexes where it has them, which the planner picks by itself — the
/// covering `(updated_at, session_key)` index, and the partial index of the rows whose
/// `entry_valid` is not 1 (every other row's is 1). `octet_length(entry_json)` reads the
/// record header alone. One read transaction for the three statements (when none is open
/// already), so they see one state of the table.
fn cheap_columns(db: &ReadOnlyDb) -> Result<Vec<(String, Cheap)>, DbError> {
    tracing::debug!(target: "clawtop::io", io = "session columns read", "every session row's columns read");
    let err = |e| DbError::from_sqlite(&db.path, e);
    let conn = db.conn();
    let own = conn.is_autocommit();
    if own {
        conn.execute_batch("BEGIN").map_err(err)?;
    }
    let out = cheap_columns_in(db);
    if own {
        let _ = conn.execute_batch("COMMIT");
    }
    out
}

fn cheap_columns_in(db: &ReadOnlyDb) -> Result<Vec<(String, Cheap)>, DbError> {
    let err = |e| DbError::from_sqlite(&db.path, e);
    let by_key = |sql: &str| -> Result<std::collections::HashMap<String, Option<i64>>, DbError> {
        let mut st = db.conn().prepare_cached(sql).map_err(err)?;
        let rows = st
            .query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, Option<i64>>(1)?))
            })
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    };
    let updated = by_key("SELECT session_key, updated_at FROM session_nodes")?;
    // NOT NULL in every schema OpenClaw wrote; a NULL is asked for all the same, where the
    // column allows it.
    let mut not_valid =
        by_key("SELECT session_key, entry_valid FROM session_nodes WHERE entry_valid != 1")?;
    let nullable: bool = db
        .conn()
        .prepare_cached(
            "SELECT count(*) FROM pragma_table_info('session_nodes') WHERE name = 'entry_valid' AND \"notnull\" = 0",
        )
        .and_then(|mut st| st.query_row([], |r| r.get::<_, i64>(0)))
        .map_err(err)?
        > 0;
    if nullable {
        not_valid.extend(by_key(
            "SELECT session_key, entry_valid FROM session_nodes WHERE entry_valid IS NULL",
        )?);
    }
    let mut st = db
        .conn()
        .prepare_cached(
            "SELECT session_key, current_session_id, octet_length(entry_json) FROM session_nodes",
        )
        .map_err(err)?;
    let rows = st
        .query_map([], |r| {
            let key = r.get::<_, String>(0)?;
            let updated_at = updated.get(&key).copied().flatten();
            let valid = not_valid.get(&key).copied().unwrap_or(Some(1));
            Ok((
                key,
                (
                    r.get::<_, String>(1)?,
                    updated_at,
                    valid,
                    r.get::<_, Option<i64>>(2)?.unwrap_or(-1),
                ),
            ))
        })
        .map_err(err)?;
    // In key order, sorted here: a scan of the table in rowid order and a sort of the keys
    // cost less than a walk of the key index with a lookup of each row (byte order, as
    // SQLite's BINARY collation orders the keys).
    let mut out: Vec<(String, Cheap)> = rows.collect::<Result<_, _>>().map_err(err)?;
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_2026_9_fields() {
        let (e, x) = parse_entry(r#"{"sessionId":"s1","totalTokens":29144,"totalTokensFresh":true,"totalTokensVersion":1,"contextTokens":48000,"compactionCount":1,"memoryFlush":{"kind":"succeeded","compactionCount":0},"memoryFlushAt":5,"contextBudgetStatus":{"reserveTokens":12000,"promptBudgetBeforeReserve":36000}}"#).unwrap();
        assert_eq!(e.total_tokens(), Some(29144));
        assert_eq!(e.compaction_count, Some(1));
        assert_eq!(e.memory_flush_compaction_count, Some(0));
        assert_eq!(e.memory_flush_at, None, "2026.9 has no flush time");
        assert_eq!(x.memory_flush.unwrap().kind, "succeeded");
        assert_eq!(
            (
                x.total_tokens_version,
                x.budget_reserve,
                x.budget_compact_at
            ),
            (Some(1), Some(12000), Some(36000))
        );
        assert!(matches!(parse_entry("{"), Err(RowEntryError::NotJson(_))));
        assert_eq!(parse_entry("[]").unwrap_err(), RowEntryError::NotObject);
        assert_eq!(parse_entry("{}").unwrap_err(), RowEntryError::NoSessionId);
    }

    /// The kept fields read as a map of values would give them: a repeated key's last value,
    /// a status that is no object giving neither budget field, and an entry refused (with
    /// the same words) exactly where reading the kept fields as values refuses it; a field
    /// not kept is skipped as before, an unreadable number in it included.
    #[test]
    fn kept_fields_read_as_values_would() {
        let budget = |json: &str| {
            let (_, x) = parse_entry(json).unwrap();
            (x.budget_reserve, x.budget_compact_at)
        };
        let with = |status: &str| format!(r#"{{"sessionId":"s","contextBudgetStatus":{status}}}"#);
        assert_eq!(
            budget(&with(
                r#"{"a":[1,{"b":2}],"reserveTokens":5,"promptBudgetBeforeReserve":7}"#
            )),
            (Some(5), Some(7))
        );
        assert_eq!(
            budget(&with(r#"{"reserveTokens":5,"reserveTokens":6}"#)),
            (Some(6), None)
        );
        assert_eq!(
            budget(
                r#"{"sessionId":"s","contextBudgetStatus":{"reserveTokens":5},"contextBudgetStatus":{"promptBudgetBeforeReserve":9}}"#
            ),
            (None, Some(9))
        );
        for odd in [
            r#"[1,{"reserveTokens":5}]"#,
            "3",
            "null",
            r#""x""#,
            "true",
            "-2.5",
        ] {
            assert_eq!(budget(&with(odd)), (None, None), "{odd}");
        }
        // A status field no figure reads still has to be a readable value, as before.
        for bad in [
            r#"{"x":1e400,"reserveTokens":5}"#,
            "[1,2e999]",
            r#"{"x":"\ud800"}"#,
        ] {
            let json = with(bad);
            let whole = serde_json::from_str::<Value>(&json)
                .unwrap_err()
                .to_string();
            assert_eq!(
                parse_entry(&json).unwrap_err(),
                RowEntryError::NotJson(whole),
                "{bad}"
            );
        }
        let (e, _) = parse_entry(r#"{"sessionId":"s","model":"a","model":"b"}"#).unwrap();
        assert_eq!(e.model.as_deref(), Some("b"));
        let (e, _) = parse_entry(r#"{"skillsSnapshot":{"x":1e400},"sessionId":"s"}"#).unwrap();
        assert_eq!(e.session_id, "s");
    }

    fn kept_of(entries: &[(&str, &str)]) -> RowsKept {
        let mut k = RowsKept {
            remember: true,
            listed: true,
            read_whole_at: 1_000,
            ..RowsKept::default()
        };
        for (i, (key, json)) in entries.iter().enumerate() {
            let row = SessionRow {
                key: key.to_string(),
                current_session_id: format!("s{i}"),
                updated_at: i as i64,
                entry: parse_entry(json),
            };
            let cheap = (row.current_session_id.clone(), Some(i as i64), Some(1), 7);
            k.rows.insert(key.to_string(), (cheap, row));
        }
        k
    }

    /// A remembered listing as read back, written again (after a test edited it).
    fn written_again(r: &RememberedIn) -> Vec<u8> {
        crate::packed::to_vec(&RememberedOut {
            read_whole_at: r.read_whole_at,
            files: r.files.as_deref(),
            rows: r
                .rows
                .iter()
                .map(|(k, c, u, e, x)| (k.as_str(), c, *u, e, x))
                .collect(),
        })
        .unwrap()
    }

    /// The files' stamp is written only with every row of the table, and taken back only
    /// with every row written: a listing missing a row is compared column by column.
    #[test]
    fn the_files_stamp_speaks_only_for_the_whole_table() {
        let whole = [("agent:main:a", r#"{"sessionId":"s1"}"#)];
        let mut k = kept_of(&whole);
        k.files = Some("F".into());
        let mut back = RowsKept::default();
        back.recall_at(&k.remembered().unwrap(), 1_000);
        assert_eq!(back.files.as_deref(), Some("F"));
        assert!(back.recalled);
        let mut k = kept_of(&[whole[0], ("agent:main:c", "[]")]);
        k.files = Some("F".into());
        let text = k.remembered().unwrap();
        let mut back = RowsKept::default();
        back.recall_at(&text, 1_000);
        assert_eq!(back.rows.len(), 1);
        assert_eq!(back.files, None, "a row that did not parse was not written");
        // A row written but refused on the way back (an id `parse_entry` would refuse).
        let mut k = kept_of(&[whole[0], ("agent:main:b", r#"{"sessionId":"s2"}"#)]);
        k.files = Some("F".into());
        let mut written =
            crate::packed::from_slice::<RememberedIn>(&k.remembered().unwrap()).unwrap();
        assert_eq!(written.files.as_deref(), Some("F"));
        written.rows[1].3.session_id = "../s2".into();
        let text = written_again(&written);
        let mut back = RowsKept::default();
        back.recall_at(&text, 1_000);
        assert_eq!(back.rows.len(), 1);
        assert_eq!(back.files, None);
    }

    /// Remembered rows read back as they were parsed (a raw `null`, a fraction, an absent
    /// field, the 2026.9 fields), rows that did not parse are left to be read again, and
    /// rows older than [`REMEMBERED_FOR_MS`] or that do not read back are not taken.
    #[test]
    fn remembered_rows_read_back_as_parsed() {
        let entries = [
            (
                "agent:main:a",
                r#"{"sessionId":"s1","totalTokens":null,"contextTokens":1.5,"updatedAt":7,"model":"m","memoryFlush":{"kind":"failed","failureCount":2},"totalTokensVersion":1,"contextBudgetStatus":{"reserveTokens":3}}"#,
            ),
            (
                "agent:main:b",
                r#"{"sessionId":"s2","totalTokensFresh":false}"#,
            ),
            ("agent:main:c", "[]"),
        ];
        let k = kept_of(&entries);
        let text = k.remembered().unwrap();
        let mut back = RowsKept::default();
        back.recall_at(&text, 1_000 + REMEMBERED_FOR_MS - 1);
        assert_eq!(
            back.rows.len(),
            2,
            "the row that did not parse is read again"
        );
        for (key, (cheap, row)) in &back.rows {
            let (c, was) = &k.rows[key];
            assert_eq!(cheap, c);
            assert_eq!(
                (&row.current_session_id, row.updated_at, &row.entry),
                (&was.current_session_id, was.updated_at, &was.entry)
            );
        }
        let (e, _) = back.rows["agent:main:a"].1.entry.as_ref().unwrap();
        assert_eq!(
            e.total_tokens_raw,
            Some(Value::Null),
            "a written null stays written"
        );
        let (e, _) = back.rows["agent:main:b"].1.entry.as_ref().unwrap();
        assert_eq!(e.total_tokens_raw, None);
        assert!(!back.moved);
        // An id `parse_entry` refuses is not taken from the file either.
        let mut written = crate::packed::from_slice::<RememberedIn>(&text).unwrap();
        let b = written
            .rows
            .iter_mut()
            .find(|r| r.0 == "agent:main:b")
            .unwrap();
        b.3.session_id = "../s2".into();
        let unsafe_id = written_again(&written);
        let mut other = RowsKept::default();
        other.recall_at(&unsafe_id, 1_000);
        assert_eq!(other.rows.len(), 1);
        assert!(!other.rows.contains_key("agent:main:b"));
        // Too old, from the future, or not what was written: nothing is taken.
        let foreign =
            rmp_serde::to_vec_named(&serde_json::json!({"readWholeAt": 1000, "rows": [["k"]]}))
                .unwrap();
        for (bytes, now) in [
            (text.clone(), 1_000 + REMEMBERED_FOR_MS),
            (text.clone(), 999),
            (foreign, 1_000),
            (b"{\"readWholeAt\":1000}".to_vec(), 1_000),
        ] {
            let mut other = RowsKept::default();
            other.recall_at(&bytes, now);
            assert!(other.rows.is_empty() && other.reads == 0);
        }
        // Not remembered unless asked, nor for a database this process did not list.
        let mut not = kept_of(&entries);
        not.remember = false;
        assert!(not.remembered().is_none());
        back.remember = true;
        assert!(back.remembered().is_none(), "recalled, never listed");
    }
}
