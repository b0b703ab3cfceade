//! Transcript rows: `transcript_events` (docs/sqlite-host.md §4).
//!
//! Each row is one pi session entry, the same JSON as a JSONL line, in `event_json` or, for
//! long entries, in `event_zstd`: one raw zstd frame whose decoded length is
//! `event_utf8_bytes`. Which column holds it is decided by which is non-NULL, never by size.
//! Rows are read in `seq` order (the append order; 0 is the header) and linked by `id` /
//! `parentId` like a file. Rows are decoded one at a time and dropped, so a transcript of any
//! size is read with memory bounded by its largest row.

use super::open::{DbError, ReadOnlyDb};
use rusqlite::types::ValueRef;

/// The schema caps a zstd row at 4 MiB and a plain one not at all; a row over this (the
/// limit of a file's line, [`crate::transcript::ENTRY_MAX`]) is never loaded or decoded whole.
pub const MAX_ROW_BYTES: usize = crate::transcript::ENTRY_MAX;

/// The payload columns of a row, each loaded only within [`MAX_ROW_BYTES`]: `octet_length`
/// of a column reads the record header alone, so an oversized value is refused before any of
/// it is read (read with [`stored_at`]).
const PAYLOAD: &str = "octet_length(event_json), \
     CASE WHEN octet_length(event_json) <= 16777216 THEN event_json END, \
     octet_length(event_zstd), \
     CASE WHEN octet_length(event_zstd) <= 16777216 THEN event_zstd END, event_utf8_bytes";

/// One row's payload as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored<'a> {
    Json(&'a [u8]),
    Zstd { frame: &'a [u8], utf8_bytes: i64 },
}

/// Why a row could not be decoded. The row is skipped with a warning naming its `seq`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowError {
    #[error("seq {seq}: event_zstd does not decode as zstd ({message})")]
    Zstd { seq: i64, message: String },
    #[error("seq {seq}: event_zstd decodes to {got} bytes but event_utf8_bytes says {want}")]
    Length { seq: i64, got: String, want: i64 },
    #[error("seq {seq}: event_utf8_bytes {want} is not a usable length")]
    BadLength { seq: i64, want: i64 },
    #[error("seq {seq}: neither event_json nor event_zstd holds the entry")]
    Empty { seq: i64 },
    #[error("seq {seq}: event_json and event_zstd are both set")]
    Both { seq: i64 },
    #[error("seq {seq}: {column} is {len} bytes, over the {} MiB clawtop decodes", MAX_ROW_BYTES >> 20)]
    TooLarge {
        seq: i64,
        column: &'static str,
        len: i64,
    },
}

thread_local! {
    /// A decoder context per thread, reused: setting one up costs more than decoding a
    /// typical row.
    static DCTX: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// `f` with the thread's decoder context, made on first use; None when none can be made.
fn with_decoder<T>(f: impl FnOnce(&mut zstd::bulk::Decompressor<'static>) -> T) -> Option<T> {
    DCTX.with(|d| {
        let mut d = d.borrow_mut();
        if d.is_none() {
            *d = zstd::bulk::Decompressor::new().ok();
        }
        d.as_mut().map(f)
    })
}

/// The decoded size a zstd row promises (`event_utf8_bytes`), when it is one a row may have.
fn promised(utf8_bytes: i64) -> Option<usize> {
    usize::try_from(utf8_bytes)
        .ok()
        .filter(|&n| n > 0 && n <= MAX_ROW_BYTES)
}

/// Decodes a stored payload to the entry's JSON bytes.
pub fn decode(seq: i64, stored: Stored<'_>) -> Result<Vec<u8>, RowError> {
    match stored {
        Stored::Json(b) => Ok(b.to_vec()),
        Stored::Zstd { frame, utf8_bytes } => {
            let want = promised(utf8_bytes).ok_or(RowError::BadLength {
                seq,
                want: utf8_bytes,
            })?;
            // One byte of room beyond the promise tells "longer than said" from "as said".
            let res = with_decoder(|d| d.decompress(frame, want + 1))
                .unwrap_or_else(|| zstd::bulk::decompress(frame, want + 1));
            match res {
                Ok(out) if out.len() == want => Ok(out),
                Ok(out) => Err(RowError::Length {
                    seq,
                    got: out.len().to_string(),
                    want: utf8_bytes,
                }),
                Err(e) if e.to_string().contains("Destination buffer is too small") => {
                    Err(RowError::Length {
                        seq,
                        got: format!("more than {want}"),
                        want: utf8_bytes,
                    })
                }
                Err(e) => Err(RowError::Zstd {
                    seq,
                    message: e.to_string(),
                }),
            }
        }
    }
}

/// [`decode`], the bytes appended to `out` (a zstd frame decoded straight onto its end, not
/// into a vector of its own and copied there): true exactly where [`decode`] gives bytes,
/// and then the same bytes. On false `out` is as it was; why is [`decode`]'s to say.
fn decode_onto(stored: Stored<'_>, out: &mut Vec<u8>) -> bool {
    let (frame, utf8_bytes) = match stored {
        // As `decode` takes it: as it is.
        Stored::Json(b) => {
            out.extend_from_slice(b);
            return true;
        }
        Stored::Zstd { frame, utf8_bytes } => (frame, utf8_bytes),
    };
    let Some(want) = promised(utf8_bytes) else {
        return false;
    };
    let start = out.len();
    // The room may be larger than `decode`'s (one byte over the promise): only a frame
    // that decodes to exactly the promised size is taken, which fits either room.
    out.reserve(want + 1);
    let mut room = std::io::Cursor::new(&mut *out);
    room.set_position(start as u64);
    let decoded = with_decoder(|d| d.decompress_to_buffer(frame, &mut room));
    if matches!(decoded, Some(Ok(n)) if n == want) {
        return true;
    }
    out.truncate(start);
    false
}

/// The payload of a row read with [`PAYLOAD`] from column `at` on.
fn stored_at<'a>(r: &'a rusqlite::Row<'a>, at: usize, seq: i64) -> Result<Stored<'a>, RowError> {
    let len = |i: usize| r.get::<_, Option<i64>>(i).unwrap_or(None);
    let value = |i: usize| match r.get_ref(i) {
        Ok(ValueRef::Text(t) | ValueRef::Blob(t)) => Some(t),
        _ => None,
    };
    let (json_len, frame_len) = (len(at), len(at + 2));
    match (json_len, frame_len) {
        (Some(_), Some(_)) => Err(RowError::Both { seq }),
        (None, None) => Err(RowError::Empty { seq }),
        (Some(n), None) => value(at + 1).map(Stored::Json).ok_or(RowError::TooLarge {
            seq,
            column: "event_json",
            len: n,
        }),
        (None, Some(n)) => match value(at + 3) {
            Some(frame) => Ok(Stored::Zstd {
                frame,
                utf8_bytes: len(at + 4).unwrap_or(-1),
            }),
            None => Err(RowError::TooLarge {
                seq,
                column: "event_zstd",
                len: n,
            }),
        },
    }
}

/// Counts of a session's rows, without decoding anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RowCounts {
    pub rows: u64,
    pub zstd_rows: u64,
    pub max_seq: Option<i64>,
    /// Sum of the decoded sizes (`length(event_json)` + `event_utf8_bytes`).
    pub utf8_bytes: u64,
}

pub fn counts(db: &ReadOnlyDb, session_id: &str) -> Result<RowCounts, DbError> {
    db.conn()
        .query_row(
            "SELECT count(*), count(event_zstd), max(seq), \
             coalesce(sum(CASE WHEN event_zstd IS NULL THEN length(CAST(event_json AS BLOB)) ELSE event_utf8_bytes END), 0) \
             FROM transcript_events WHERE session_id = ?1",
            [session_id],
            |r| {
                Ok(RowCounts {
                    rows: r.get::<_, i64>(0)? as u64,
                    zstd_rows: r.get::<_, i64>(1)? as u64,
                    max_seq: r.get(2)?,
                    utf8_bytes: r.get::<_, i64>(3)?.max(0) as u64,
                })
            },
        )
        .map_err(|e| DbError::from_sqlite(&db.path, e))
}

/// What a session's rows are, from their record headers and the last row: the figures
/// cache's key (`source::Stamp::Rows`). Nothing is decoded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowsFingerprint {
    pub rows: u64,
    pub first_seq: Option<i64>,
    pub last_seq: Option<i64>,
    pub seq_sum: i64,
    pub stored_bytes: u64,
    /// The last row's stored bytes (its first MiB), as stored (a zstd frame stays one).
    pub last_row: Vec<u8>,
    pub generation: Option<String>,
}

pub fn fingerprint(db: &ReadOnlyDb, session_id: &str) -> Result<RowsFingerprint, DbError> {
    // One id in, one answer out.
    fingerprints(db, &[session_id])?
        .pop()
        .unwrap_or_else(|| Ok(RowsFingerprint::default()))
}

/// Bytes of the last row a [`RowsFingerprint`] holds.
const LAST_ROW_MAX: usize = 1 << 20;

/// The [`RowsFingerprint`] of a session's rows worked out from a read of all of them in `seq`
/// order: a cold `list` reads every row anyway, and stamping them first read them twice (a
/// scan of every record for their sizes; issue 31). It says what [`fingerprints`] says of
/// the same rows, and describes exactly the rows read, whatever was written meanwhile. None
/// when the read did not see all of it: the last row's bytes not loaded, or a `seq` sum past
/// what SQLite's `sum` holds.
#[derive(Debug, Default)]
pub struct FingerprintOfRead {
    f: RowsFingerprint,
    last_unread: bool,
    overflow: bool,
}

impl FingerprintOfRead {
    /// One row: its `seq`, the octet lengths of its `event_json` and `event_zstd`, and its
    /// stored bytes when they were loaded (the frame when it has one, as the stamp takes it).
    pub fn row(&mut self, seq: i64, lens: [Option<i64>; 2], stored: Option<&[u8]>) {
        let f = &mut self.f;
        f.rows += 1;
        f.first_seq.get_or_insert(seq);
        f.last_seq = Some(seq);
        match f.seq_sum.checked_add(seq) {
            Some(sum) => f.seq_sum = sum,
            None => self.overflow = true,
        }
        f.stored_bytes += lens
            .iter()
            .map(|n| n.unwrap_or(0).max(0) as u64)
            .sum::<u64>();
        f.last_row.clear();
        self.last_unread = stored.is_none();
        if let Some(b) = stored {
            f.last_row
                .extend_from_slice(&b[..b.len().min(LAST_ROW_MAX)]);
        }
    }

    /// The fingerprint, with the session's rewrite generation ([`rewrite_generation`]).
    pub fn finish(self, generation: Option<String>) -> Option<RowsFingerprint> {
        (!self.last_unread && !self.overflow).then_some(RowsFingerprint {
            generation,
            ..self.f
        })
    }
}

/// [`fingerprint`] of each of `session_ids`, in order, its three statements prepared once
/// for all of them: a run between runs stamps every session of a host of thousands whose
/// database changed (issue 31).
pub fn fingerprints(
    db: &ReadOnlyDb,
    session_ids: &[&str],
) -> Result<Vec<Result<RowsFingerprint, DbError>>, DbError> {
    let err = |e| DbError::from_sqlite(&db.path, e);
    let mut sums = db
        .conn()
        .prepare_cached(
            "SELECT count(*), min(seq), max(seq), coalesce(sum(seq), 0), \
             total(coalesce(octet_length(event_json), 0) + coalesce(octet_length(event_zstd), 0)) \
             FROM transcript_events WHERE session_id = ?1",
        )
        .map_err(err)?;
    let mut last_row = db
        .conn()
        .prepare_cached(
            "SELECT substr(coalesce(event_zstd, CAST(event_json AS BLOB)), 1, 1048576) \
             FROM transcript_events WHERE session_id = ?1 AND seq = ?2",
        )
        .map_err(err)?;
    let mut out = Vec::with_capacity(session_ids.len());
    for session_id in session_ids {
        let one = (|| -> Result<RowsFingerprint, DbError> {
            let mut f = sums
                .query_row([session_id], |r| {
                    Ok(RowsFingerprint {
                        rows: r.get::<_, i64>(0)?.max(0) as u64,
                        first_seq: r.get(1)?,
                        last_seq: r.get(2)?,
                        seq_sum: r.get(3)?,
                        stored_bytes: r.get::<_, f64>(4)?.max(0.0) as u64,
                        ..RowsFingerprint::default()
                    })
                })
                .map_err(err)?;
            if let Some(last) = f.last_seq {
                f.last_row = last_row
                    .query_row(rusqlite::params![session_id, last], |r| {
                        Ok(r.get::<_, Option<Vec<u8>>>(0)?.unwrap_or_default())
                    })
                    .map_err(err)?;
            }
            f.generation = rewrite_generation(db, session_id);
            Ok(f)
        })();
        out.push(one);
    }
    Ok(out)
}

/// A session's first and last `seq`, the last row's rowid and stored bytes, and the rewrite
/// generation: what a poll at every change compares (`source::Stamp::RowsTip`), in two index
/// lookups whatever the transcript's length. An append moves the last seq; a `maxLines`
/// trim, the generation; rows deleted at either end, the first or last seq.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowsTip {
    pub first_seq: Option<i64>,
    pub last_seq: Option<i64>,
    pub last_rowid: Option<i64>,
    pub last_bytes: u64,
    pub generation: Option<String>,
}

pub fn tip(db: &ReadOnlyDb, session_id: &str) -> Result<RowsTip, DbError> {
    // One id in, one answer out.
    tips(db, &[session_id])?
        .pop()
        .unwrap_or_else(|| Ok(RowsTip::default()))
}

/// [`tip`] of each of `session_ids`, in order, through one statement prepared once: the
/// TUI's reload asks it for every session of a host of thousands (issue 31), where building
/// and looking up the statement again for each was a good part of the cost.
pub fn tips(
    db: &ReadOnlyDb,
    session_ids: &[&str],
) -> Result<Vec<Result<RowsTip, DbError>>, DbError> {
    let err = |e| DbError::from_sqlite(&db.path, e);
    // One statement where the rewrite watermarks exist (2026.9.6 has them), else two.
    const LAST: &str = "SELECT seq, rowid, \
        coalesce(octet_length(event_json), 0) + coalesce(octet_length(event_zstd), 0), \
        (SELECT seq FROM transcript_events WHERE session_id = ?1 ORDER BY seq LIMIT 1)";
    const FROM: &str = " FROM transcript_events WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1";
    let with_generation = format!(
        "{LAST}, (SELECT CAST(generation AS TEXT) FROM transcript_rewrite_watermarks WHERE session_id = ?1){FROM}"
    );
    let (mut st, generation) = match db.conn().prepare_cached(&with_generation) {
        Ok(st) => (st, true),
        Err(_) => (
            db.conn()
                .prepare_cached(&format!("{LAST}, NULL{FROM}"))
                .map_err(err)?,
            false,
        ),
    };
    let mut out = Vec::with_capacity(session_ids.len());
    let mut empty = Vec::new();
    for (i, session_id) in session_ids.iter().enumerate() {
        let one = (|| -> Result<RowsTip, DbError> {
            let mut rows = st.query([session_id]).map_err(err)?;
            let mut t = RowsTip::default();
            if let Some(r) = rows.next().map_err(err)? {
                t.last_seq = Some(r.get(0).map_err(err)?);
                t.last_rowid = Some(r.get(1).map_err(err)?);
                t.last_bytes = r.get::<_, i64>(2).map_err(err)?.max(0) as u64;
                t.first_seq = r.get(3).map_err(err)?;
                if generation {
                    t.generation = r.get(4).map_err(err)?;
                }
            } else if generation {
                // No rows: the generation alone (a window trimmed to nothing still has one),
                // asked once the statement is done with.
                empty.push(i);
            }
            Ok(t)
        })();
        out.push(one);
    }
    drop(st);
    for i in empty {
        if let Some(Ok(t)) = out.get_mut(i) {
            t.generation = rewrite_generation(db, session_ids[i]);
        }
    }
    Ok(out)
}

/// Every this many calls, [`TipsSince::tips`] reads every session's tip again, whatever the
/// table says changed: the bargain [`super::entry::read_sessions_kept`] makes for the listing.
pub const TIPS_FULL_EVERY: u32 = super::entry::KEPT_FULL_EVERY;

/// The tips of a database's sessions kept between calls, so a call reads again only the tips
/// of the sessions whose rows changed since (issue 31: a TUI reloads at every commit, and
/// reading 2,000 tips to find the one session that got a turn was most of a reload).
///
/// What changed is told by the table itself, in four small reads: rows with a rowid above
/// the highest one seen name the sessions that were appended to (SQLite gives a new row a
/// rowid above every one in the table); the row count, which moves when rows are deleted
/// (or inserted below that rowid, which needs the top row deleted first); the top row
/// itself (session, seq and length, which move when it is replaced or edited); and the
/// rewrite generations (a `maxLines` trim renumbers a session's rows in place). When any of
/// them says more than appends happened, every tip is read again. An in-place edit of a row
/// that is not the table's top one changes none of them: it is seen at the next whole read,
/// every [`TIPS_FULL_EVERY`]th call, as an edit of a session row's entry is
/// ([`super::entry::KEPT_FULL_EVERY`]). OpenClaw itself only appends, rewrites (a new
/// generation) and resets (a new `current_session_id`, which the listing sees).
#[derive(Debug, Default)]
pub struct TipsSince {
    /// Per session id, its tip as last read.
    tips: std::collections::HashMap<String, RowsTip>,
    /// What the table looked like then; None: nothing read yet.
    seen: Option<TableMark>,
    /// Calls since every tip was last read from the table ([`TIPS_FULL_EVERY`]).
    since_full: u32,
    /// Sessions whose tip the last call read from the table (a test counts them).
    pub last_read: usize,
    /// Sessions a [`Self::tips`] call found appended to and forgot without being asked for
    /// them (a reload of the changed sessions only): [`Self::appended`] names them next.
    unasked: std::collections::HashSet<String>,
    /// A [`Self::tips`] call found more than appends and forgot every tip: the next
    /// [`Self::appended`] cannot name what changed.
    lost: bool,
}

/// The row count, the top row (rowid, session, seq, stored bytes) and a digest of the
/// rewrite generations.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TableMark {
    count: i64,
    top: Option<(i64, String, i64, i64)>,
    generations: u64,
}

impl TableMark {
    fn read(db: &ReadOnlyDb) -> Result<TableMark, DbError> {
        let err = |e| DbError::from_sqlite(&db.path, e);
        // Two statements: together, SQLite walks the whole index for both (4 ms on 60,000
        // rows); apart, the count is its own b-tree count and the max one seek (0.6 ms).
        let one = |sql: &str| -> Result<Option<i64>, DbError> {
            db.conn()
                .prepare_cached(sql)
                .and_then(|mut st| st.query_row([], |r| r.get(0)))
                .map_err(err)
        };
        let count = one("SELECT count(*) FROM transcript_events")?.unwrap_or(0);
        let max = one("SELECT max(rowid) FROM transcript_events")?;
        let top = match max {
            Some(rowid) => Some(top_row(db, rowid)?.ok_or_else(|| DbError::Query {
                path: db.path.clone(),
                message: "the top row went away within the read".into(),
            })?),
            None => None,
        };
        Ok(TableMark {
            count,
            top,
            generations: generations_digest(db),
        })
    }
}

/// The row `rowid`: its session, seq and stored bytes.
fn top_row(db: &ReadOnlyDb, rowid: i64) -> Result<Option<(i64, String, i64, i64)>, DbError> {
    use rusqlite::OptionalExtension;
    db.conn()
        .prepare_cached(
            "SELECT session_id, seq, \
             coalesce(octet_length(event_json), 0) + coalesce(octet_length(event_zstd), 0) \
             FROM transcript_events WHERE rowid = ?1",
        )
        .and_then(|mut st| {
            st.query_row([rowid], |r| Ok((rowid, r.get(0)?, r.get(1)?, r.get(2)?)))
                .optional()
        })
        .map_err(|e| DbError::from_sqlite(&db.path, e))
}

/// A digest of every session's rewrite generation (0 where the table is missing: a schema
/// before 2026.9.6 has no rewrites to see).
fn generations_digest(db: &ReadOnlyDb) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let read = db
        .conn()
        .prepare_cached(
            "SELECT session_id, CAST(generation AS TEXT) FROM transcript_rewrite_watermarks ORDER BY session_id",
        )
        .and_then(|mut st| {
            let mut rows = st.query([])?;
            while let Some(r) = rows.next()? {
                r.get_ref(0)?.as_str().ok().hash(&mut h);
                r.get_ref(1)?.as_str().ok().hash(&mut h);
            }
            Ok(())
        });
    if read.is_err() {
        return 0;
    }
    h.finish()
}

/// The sessions of the rows with a rowid above `rowid`, and how many rows those are. One
/// walk of the rowid range: `DISTINCT` made SQLite scan the whole session index instead.
fn appended_since(
    db: &ReadOnlyDb,
    rowid: i64,
) -> Result<(std::collections::HashSet<String>, i64), DbError> {
    let err = |e| DbError::from_sqlite(&db.path, e);
    let mut st = db
        .conn()
        .prepare_cached("SELECT session_id FROM transcript_events WHERE rowid > ?1")
        .map_err(err)?;
    let mut rows = st.query([rowid]).map_err(err)?;
    let (mut ids, mut n) = (std::collections::HashSet::new(), 0);
    while let Some(r) = rows.next().map_err(err)? {
        n += 1;
        let id = r.get_ref(0).map_err(err)?;
        let id = id.as_str().map_err(|e| err(e.into()))?;
        if !ids.contains(id) {
            ids.insert(id.to_string());
        }
    }
    Ok((ids, n))
}

impl TipsSince {
    /// The ids of the sessions rows were appended to since the last call, their kept tips
    /// forgotten (the next [`Self::tips`] reads them); None when the table says more than
    /// appends happened (or nothing was read yet, or a whole read is due), and then nothing
    /// is forgotten or marked: the next [`Self::tips`] sees the change itself. What a TUI's
    /// reload asks first, to rebuild those sessions' rows only (issue 31, live).
    pub fn appended(
        &mut self,
        db: &ReadOnlyDb,
    ) -> Result<Option<std::collections::HashSet<String>>, DbError> {
        // A whole read due: the whole listing that follows a None reads every tip.
        if self.seen.is_none()
            || std::mem::take(&mut self.lost)
            || self.since_full.saturating_add(1) >= TIPS_FULL_EVERY
        {
            return Ok(None);
        }
        let mark = TableMark::read(db)?;
        let Some(mut appended) = self.appends_since(db, &mark)? else {
            return Ok(None);
        };
        appended.extend(self.unasked.drain());
        self.since_full += 1;
        for id in &appended {
            self.tips.remove(id);
        }
        self.seen = Some(mark);
        Ok(Some(appended))
    }

    /// The sessions appended to between the mark last seen and `mark`; None when nothing
    /// was seen yet or more than appends happened (rows deleted or inserted below the old
    /// top, the top row replaced, a rewrite generation moved).
    fn appends_since(
        &self,
        db: &ReadOnlyDb,
        mark: &TableMark,
    ) -> Result<Option<std::collections::HashSet<String>>, DbError> {
        let Some(was) = self
            .seen
            .as_ref()
            .filter(|w| w.generations == mark.generations)
        else {
            return Ok(None);
        };
        let since = was.top.as_ref().map_or(i64::MIN, |t| t.0);
        let (appended, appended_len) = appended_since(db, since)?;
        // Rows only added above the old top, which is still there as it was.
        let only_appends = mark.count - was.count == appended_len
            && match &was.top {
                Some(t) => top_row(db, t.0)?.as_ref() == Some(t),
                None => true,
            };
        Ok(only_appends.then_some(appended))
    }

    /// [`tips`] of each of `session_ids` (every session of the database), in order, reading
    /// from the table only those of sessions that changed since the last call (or were not
    /// asked then). Call it inside one read transaction
    /// ([`crate::source::SessionSource::read_together`]): the marks and the tips must come
    /// from the same snapshot.
    pub fn tips(
        &mut self,
        db: &ReadOnlyDb,
        session_ids: &[&str],
    ) -> Result<Vec<Result<RowsTip, DbError>>, DbError> {
        self.tips_of(db, session_ids, true)
    }

    /// [`Self::tips`] of some sessions (`every`: false) or of every session of the
    /// database. Only a call for every session reads every tip again when a whole read is
    /// due ([`TIPS_FULL_EVERY`]); one for some sessions that finds more than appends leaves
    /// the next [`Self::appended`] unable to tell what changed.
    pub fn tips_of(
        &mut self,
        db: &ReadOnlyDb,
        session_ids: &[&str],
        every: bool,
    ) -> Result<Vec<Result<RowsTip, DbError>>, DbError> {
        self.since_full = self.since_full.saturating_add(1);
        let mark = match TableMark::read(db) {
            Ok(m) => m,
            Err(e) => {
                self.seen = None;
                self.tips.clear();
                return Err(e);
            }
        };
        // Which sessions to read: None, every one.
        let changed = if every && self.since_full >= TIPS_FULL_EVERY {
            self.since_full = 0;
            None
        } else {
            self.appends_since(db, &mark)?
        };
        // What changed is forgotten, asked now or not: a session asked later is read then,
        // and one not asked is named by the next `appended` (a reload of only the sessions
        // that changed asks for those alone).
        let asked: std::collections::HashSet<&str> = session_ids.iter().copied().collect();
        match &changed {
            Some(c) => c.iter().for_each(|id| {
                self.tips.remove(id);
                if !asked.contains(id.as_str()) {
                    self.unasked.insert(id.clone());
                }
            }),
            None => {
                self.tips.clear();
                // More than appends since a mark seen (not a first read), and sessions not
                // asked now: they may have changed in ways `appended` cannot name.
                self.lost |= !every && self.seen.is_some();
            }
        }
        self.unasked.retain(|id| !asked.contains(id.as_str()));
        let wanted: Vec<usize> = (0..session_ids.len())
            .filter(|&i| !self.tips.contains_key(session_ids[i]))
            .collect();
        let read = tips(
            db,
            &wanted.iter().map(|&i| session_ids[i]).collect::<Vec<_>>(),
        )?;
        self.last_read = wanted.len();
        let mut out: Vec<Option<Result<RowsTip, DbError>>> =
            (0..session_ids.len()).map(|_| None).collect();
        for (i, t) in wanted.into_iter().zip(read) {
            tracing::debug!(target: "clawtop::io", io = "transcript tip", "a session's tip read");
            match &t {
                Ok(tip) => {
                    self.tips.insert(session_ids[i].to_string(), tip.clone());
                }
                Err(_) => {
                    self.tips.remove(session_ids[i]);
                }
            }
            out[i] = Some(t);
        }
        self.seen = Some(mark);
        Ok(out
            .into_iter()
            .zip(session_ids)
            .map(|(t, id)| t.unwrap_or_else(|| Ok(self.tips.get(*id).cloned().unwrap_or_default())))
            .collect())
    }
}

/// Calls `each(seq, decoded)` for every row of `session_id` in `seq` order, decoding one row
/// at a time. A row that does not decode is passed as `Err` and reading goes on.
pub fn for_each(
    db: &ReadOnlyDb,
    session_id: &str,
    each: impl FnMut(i64, Result<Vec<u8>, RowError>),
) -> Result<(), DbError> {
    for_each_after(db, session_id, -1, each)
}

/// [`for_each`] over the rows with `seq > after` only (live refresh appends).
pub fn for_each_after(
    db: &ReadOnlyDb,
    session_id: &str,
    after: i64,
    mut each: impl FnMut(i64, Result<Vec<u8>, RowError>),
) -> Result<(), DbError> {
    let mut st = db
        .conn()
        .prepare(&format!(
            "SELECT seq, {PAYLOAD} FROM transcript_events \
             WHERE session_id = ?1 AND seq > ?2 ORDER BY seq"
        ))
        .map_err(|e| DbError::from_sqlite(&db.path, e))?;
    let mut rows = st
        .query(rusqlite::params![session_id, after])
        .map_err(|e| DbError::from_sqlite(&db.path, e))?;
    while let Some(r) = rows.next().map_err(|e| DbError::from_sqlite(&db.path, e))? {
        let seq: i64 = r.get(0).map_err(|e| DbError::from_sqlite(&db.path, e))?;
        let out = stored_at(r, 1, seq).and_then(|s| decode(seq, s));
        each(seq, out);
    }
    Ok(())
}

/// `transcript_rewrite_watermarks.generation`: changes when `seq` is renumbered (a `maxLines`
/// trim), not on appends. None when the table or row is absent.
pub fn rewrite_generation(db: &ReadOnlyDb, session_id: &str) -> Option<String> {
    // Prepared once per connection: a list asks it of each of thousands of sessions.
    db.conn()
        .prepare_cached(
            "SELECT CAST(generation AS TEXT) FROM transcript_rewrite_watermarks WHERE session_id = ?1",
        )
        .ok()?
        .query_row([session_id], |r| r.get::<_, Option<String>>(0))
        .ok()
        .flatten()
}

/// The rows whose `seq` is in `seqs` (a JSON array), each decoded and handed to `each` in
/// turn, in `seq` order, in one statement.
pub fn each_of(
    db: &ReadOnlyDb,
    session_id: &str,
    seqs: &str,
    mut each: impl FnMut(i64, Result<Vec<u8>, RowError>),
) -> Result<(), DbError> {
    let mut st = db
        .conn()
        .prepare_cached(&format!(
            "SELECT seq, {PAYLOAD} FROM transcript_events WHERE session_id = ?1 \
             AND seq IN (SELECT value FROM json_each(?2)) ORDER BY seq"
        ))
        .map_err(|e| DbError::from_sqlite(&db.path, e))?;
    let mut rows = st
        .query(rusqlite::params![session_id, seqs])
        .map_err(|e| DbError::from_sqlite(&db.path, e))?;
    while let Some(r) = rows.next().map_err(|e| DbError::from_sqlite(&db.path, e))? {
        let seq: i64 = r.get(0).map_err(|e| DbError::from_sqlite(&db.path, e))?;
        each(seq, stored_at(r, 1, seq).and_then(|s| decode(seq, s)));
    }
    Ok(())
}

/// One row, decoded (None when no row has that `seq`).
pub fn read_one(
    db: &ReadOnlyDb,
    session_id: &str,
    seq: i64,
) -> Result<Option<Result<Vec<u8>, RowError>>, DbError> {
    let mut st = db
        .conn()
        .prepare_cached(&format!(
            "SELECT {PAYLOAD} FROM transcript_events WHERE session_id = ?1 AND seq = ?2"
        ))
        .map_err(|e| DbError::from_sqlite(&db.path, e))?;
    let mut rows = st
        .query(rusqlite::params![session_id, seq])
        .map_err(|e| DbError::from_sqlite(&db.path, e))?;
    let Some(r) = rows.next().map_err(|e| DbError::from_sqlite(&db.path, e))? else {
        return Ok(None);
    };
    Ok(Some(stored_at(r, 0, seq).and_then(|s| decode(seq, s))))
}

/// The last rows of a session, newest first, each handed to `more` until it returns false
/// (the forecast reads a transcript's end only); returns whether the rows ran out (the first
/// row was reached). A zstd row whose `navigation_json` says it is a tool result is handed
/// over as that projection (type, id, parentId, role) without being decompressed: tool
/// results are the bulk of a transcript and carry no usage. Undecodable rows are left out.
pub fn last_rows(
    db: &ReadOnlyDb,
    session_id: &str,
    mut more: impl FnMut(&[u8]) -> bool,
) -> Result<bool, DbError> {
    #[derive(serde::Deserialize)]
    struct Nav<'a> {
        #[serde(borrow)]
        navigation: Option<&'a serde_json::value::RawValue>,
    }
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(borrow)]
        message: Option<Role<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Role<'a> {
        #[serde(borrow)]
        role: Option<std::borrow::Cow<'a, str>>,
    }
    let tool_result_projection = |nav: &[u8]| -> Option<Vec<u8>> {
        let n = serde_json::from_slice::<Nav>(nav).ok()?.navigation?;
        let head: Head = serde_json::from_str(n.get()).ok()?;
        (head.message?.role.as_deref() == Some("toolResult")).then(|| n.get().as_bytes().to_vec())
    };
    let mut st = db
        .conn()
        .prepare_cached(&format!(
            "SELECT seq, {PAYLOAD}, navigation_json \
             FROM transcript_events WHERE session_id = ?1 ORDER BY seq DESC"
        ))
        .map_err(|e| DbError::from_sqlite(&db.path, e))?;
    let mut rows = st
        .query(rusqlite::params![session_id])
        .map_err(|e| DbError::from_sqlite(&db.path, e))?;
    while let Some(r) = rows.next().map_err(|e| DbError::from_sqlite(&db.path, e))? {
        let seq: i64 = r.get(0).map_err(|e| DbError::from_sqlite(&db.path, e))?;
        let plain = !matches!(r.get_ref(1), Ok(ValueRef::Null) | Err(_));
        let projected = match (plain, r.get_ref(6)) {
            (false, Ok(ValueRef::Text(nav))) => tool_result_projection(nav),
            _ => None,
        };
        let bytes = match projected {
            Some(p) => Some(p),
            None => stored_at(r, 1, seq).and_then(|s| decode(seq, s)).ok(),
        };
        if let Some(b) = bytes {
            if !more(&b) {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

thread_local! {
    /// [`read_text_within`]'s buffers, between two calls.
    static ASIDE: std::cell::Cell<(Vec<u8>, Vec<AsideRow>)> =
        const { std::cell::Cell::new((Vec::new(), Vec::new())) };
}

/// Bytes of payloads [`Aside`] keeps for the next call; a larger buffer is let go.
const ASIDE_KEPT_MAX: usize = 4 << 20;

/// A row copied aside: `event_utf8_bytes` for a frame (None for plain JSON) and where its
/// payload ends among the payloads.
type AsideRow = (Option<i64>, usize);

/// The thread's buffers for [`read_text_within`], handed back empty when dropped.
struct Aside(Vec<u8>, Vec<AsideRow>);

impl Aside {
    fn take() -> Aside {
        let (mut payloads, mut rows) = ASIDE.take();
        payloads.clear();
        rows.clear();
        Aside(payloads, rows)
    }
}

impl Drop for Aside {
    fn drop(&mut self) {
        if self.0.capacity() <= ASIDE_KEPT_MAX {
            ASIDE.set((std::mem::take(&mut self.0), std::mem::take(&mut self.1)));
        }
    }
}

/// Every row of `session_id` in `seq` order, in one query, decoded into one text, when their
/// decoded sizes add up to at most `max_bytes`; `Ok(None)` as soon as they do not (nothing
/// over the limit is decoded). `list` reads its many small sessions whole this way, one
/// statement each.
///
/// Each row's payload is copied aside as it is read (a frame is a fraction of what it decodes
/// to), then decoded onto the end of one text sized for them all and handed to `finish`
/// (the row is `text[start..]`; `finish` may change it, and false drops the text): no
/// vector per row, and the decoded bytes are not copied again. `Ok(Some(None))`: a row that
/// does not decode ([`decode`] says why), or `finish` said no. The fingerprint is taken of
/// every row read either way.
pub fn read_text_within(
    db: &ReadOnlyDb,
    session_id: &str,
    max_bytes: u64,
    stamp: &mut FingerprintOfRead,
    mut finish: impl FnMut(&mut Vec<u8>, usize) -> bool,
) -> Result<Option<Option<Vec<u8>>>, DbError> {
    let err = |e| DbError::from_sqlite(&db.path, e);
    let mut st = db
        .conn()
        .prepare_cached(&format!(
            "SELECT seq, {PAYLOAD} FROM transcript_events WHERE session_id = ?1 ORDER BY seq"
        ))
        .map_err(err)?;
    let mut rows = st.query([session_id]).map_err(err)?;
    // Payloads one after another, and per row what [`AsideRow`] says. Both are the thread's,
    // reused from one session to the next (a list reads thousands): grown once, not once per
    // session.
    let mut reused = Aside::take();
    let Aside(aside, kept) = &mut reused;
    let (mut bytes, mut whole) = (0u64, true);
    while let Some(r) = rows.next().map_err(err)? {
        let seq: i64 = r.get(0).map_err(err)?;
        let stored = stored_at(r, 1, seq);
        let lens = [1, 3].map(|i| r.get::<_, Option<i64>>(i).unwrap_or(None));
        stamp.row(
            seq,
            lens,
            match &stored {
                Ok(Stored::Json(b)) | Ok(Stored::Zstd { frame: b, .. }) => Some(b),
                Err(RowError::Empty { .. }) => Some(&[][..]),
                Err(_) => None,
            },
        );
        bytes += match &stored {
            Ok(Stored::Json(b)) => b.len() as u64,
            Ok(Stored::Zstd { utf8_bytes, .. }) => (*utf8_bytes).max(0) as u64,
            // A row too large to load makes the session too large to read whole.
            Err(RowError::TooLarge { len, .. }) => (*len).max(0) as u64,
            Err(_) => 0,
        };
        if bytes > max_bytes {
            return Ok(None);
        }
        match stored {
            _ if !whole => {}
            Ok(Stored::Json(b)) => {
                aside.extend_from_slice(b);
                kept.push((None, aside.len()));
            }
            Ok(Stored::Zstd { frame, utf8_bytes }) => {
                aside.extend_from_slice(frame);
                kept.push((Some(utf8_bytes), aside.len()));
            }
            Err(_) => whole = false,
        }
    }
    if !whole {
        return Ok(Some(None));
    }
    // A line break after each row.
    let mut text = Vec::with_capacity(bytes as usize + kept.len());
    let mut from = 0;
    for &(utf8_bytes, end) in kept.iter() {
        let b = &aside[from..end];
        from = end;
        let stored = match utf8_bytes {
            None => Stored::Json(b),
            Some(utf8_bytes) => Stored::Zstd {
                frame: b,
                utf8_bytes,
            },
        };
        let start = text.len();
        if !decode_onto(stored, &mut text) || !finish(&mut text, start) {
            return Ok(Some(None));
        }
    }
    Ok(Some(Some(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_payload_limit_is_the_entry_limit() {
        assert!(PAYLOAD.contains(&format!("<= {MAX_ROW_BYTES} THEN event_json")));
        assert!(PAYLOAD.contains(&format!("<= {MAX_ROW_BYTES} THEN event_zstd")));
    }

    #[test]
    fn zstd_rows_checked_against_their_length() {
        let text = br#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hello hello hello hello"}}"#;
        let frame = zstd::bulk::compress(text, 1).unwrap();
        let n = text.len() as i64;
        assert_eq!(
            decode(
                5,
                Stored::Zstd {
                    frame: &frame,
                    utf8_bytes: n
                }
            )
            .unwrap(),
            text.to_vec()
        );
        let e = decode(
            5,
            Stored::Zstd {
                frame: &frame,
                utf8_bytes: n - 3,
            },
        )
        .unwrap_err();
        assert!(matches!(e, RowError::Length { .. }), "{e}");
        assert!(e.to_string().contains("seq 5"));
        let e = decode(
            5,
            Stored::Zstd {
                frame: &frame,
                utf8_bytes: n + 3,
            },
        )
        .unwrap_err();
        assert!(
            e.to_string().contains(&format!("decodes to {n} bytes")),
            "{e}"
        );
        let mut bad = frame.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 0xff;
        bad.truncate(bad.len() - 2);
        let e = decode(
            6,
            Stored::Zstd {
                frame: &bad,
                utf8_bytes: n,
            },
        )
        .unwrap_err();
        assert!(
            matches!(e, RowError::Zstd { .. } | RowError::Length { .. }),
            "{e}"
        );
        assert!(matches!(
            decode(
                7,
                Stored::Zstd {
                    frame: &frame,
                    utf8_bytes: 0
                }
            ),
            Err(RowError::BadLength { .. })
        ));
    }
}
