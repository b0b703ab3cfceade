//! A session's transcript from `transcript_events`, as a [`Transcript`] that decodes rows on
//! demand (docs/sqlite-host.md §4).
//!
//! Indexing reads every row once but decodes none of the zstd ones: a zstd row carries
//! `navigation_json`, an uncompressed projection whose `navigation` object has the envelope
//! (`type`, `id`, `parentId`, `message.role`), and its frame header states the decoded size,
//! which is checked against `event_utf8_bytes` here. A row whose size disagrees, whose
//! projection is missing, or whose `event_json` is not JSON is skipped with a warning naming
//! it, as an unreadable line of a file is. Full entries are fetched and decoded by `seq` when a
//! screen or the plan asks for them, so memory is bounded by what is shown, not by the
//! transcript's size.

use super::events::{self, RowError};
use super::open::{DbError, ReadOnlyDb};
use crate::transcript::{
    ENTRY_MAX, FetchError, PREFIX_MAX, RowFetch, RowIndexer, StringChars, Transcript,
};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The label a SQLite transcript is shown under: the database and the session id.
pub fn label(db: &Path, session_id: &str) -> PathBuf {
    // What `format!("{}#transcript_events/{session_id}", db.display())` writes (a path that
    // is not UTF-8 made lossy the same way), put together without the formatting machinery:
    // two labels a session in a cold list.
    const TABLE: &str = "#transcript_events/";
    let db = db.to_string_lossy();
    let mut s = String::with_capacity(db.len() + TABLE.len() + session_id.len());
    s.push_str(&db);
    s.push_str(TABLE);
    s.push_str(session_id);
    PathBuf::from(s)
}

/// A database connection shared by the transcripts opened from it (opening one costs more
/// than indexing a short transcript). Holding it open holds no read transaction.
pub type SharedDb = std::sync::Arc<Mutex<ReadOnlyDb>>;

struct DbRows {
    db: SharedDb,
    session_id: String,
    recent: Recent,
    /// Rows read while indexing, served from here without a second query.
    kept: KeptRows,
}

/// Bytes of plain rows a transcript keeps from its indexing ([`KeptRows::plain`]).
const PLAIN_KEPT_MAX: usize = 4 * 1024 * 1024;
/// Bytes of zstd frames a transcript keeps from its indexing ([`KeptRows::frames`]).
const FRAMES_KEPT_MAX: usize = 8 * 1024 * 1024;

/// The rows fetched last, newest first. Working out one session's figures asks for the same
/// few entries several times (the last reply for its usage, its time, the run it ends); each
/// fetch is a query, a decode and a check of the file's identity, which on a 2,000-session
/// `list` was most of its time. Bounded in rows and in the size of a row kept, so a big row
/// is never held. A row served from here was read from the same snapshot as the index.
#[derive(Default)]
struct Recent(Mutex<std::collections::VecDeque<(u64, Vec<u8>)>>);

const RECENT_ROWS: usize = 8;
const RECENT_ROW_MAX: usize = 64 * 1024;

impl Recent {
    fn get_or_fetch(
        &self,
        seq: u64,
        fetch: impl FnOnce(u64) -> Result<Vec<u8>, FetchError>,
    ) -> Result<Vec<u8>, FetchError> {
        let mut recent = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pos) = recent.iter().position(|(k, _)| *k == seq) {
            if let Some(hit) = recent.remove(pos) {
                let bytes = hit.1.clone();
                recent.push_front(hit);
                return Ok(bytes);
            }
        }
        let bytes = fetch(seq)?;
        if bytes.len() <= RECENT_ROW_MAX {
            recent.truncate(RECENT_ROWS - 1);
            recent.push_front((seq, bytes.clone()));
        }
        Ok(bytes)
    }
}

impl RowFetch for DbRows {
    fn fetch(&self, seq: u64) -> Result<Vec<u8>, FetchError> {
        if let Some(row) = self.kept.get(seq) {
            return row.map_err(|e| FetchError::Store(Box::new(e)));
        }
        self.recent.get_or_fetch(seq, |seq| self.fetch_row(seq))
    }

    /// One statement for every key, each row decoded and handed over in turn (never held
    /// together), and the file's identity checked once at the end instead of per row: what
    /// the plan reads of a long transcript costs one pass, as indexing does.
    ///
    /// Rows kept from indexing are served from memory, in `seq` order with the ones queried:
    /// the plan reads every reply it summarizes, and a second pass over a long session's
    /// pages cost as much as the first.
    fn fetch_each(&self, keys: &[u64], each: &mut dyn FnMut(u64, &[u8])) -> bool {
        // Keys handed over sorted and distinct (Transcript::for_each_raw's) are not copied.
        let sorted: std::borrow::Cow<'_, [u64]> = if keys.windows(2).all(|w| w[0] < w[1]) {
            keys.into()
        } else {
            let mut sorted = keys.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            sorted.into()
        };
        let serve = |k: u64, each: &mut dyn FnMut(u64, &[u8])| {
            if let Some(Ok(bytes)) = self.kept.get(k) {
                each(k, &bytes);
            }
        };
        let mut db = None;
        let mut rest = &sorted[..];
        while !rest.is_empty() {
            // The next keys up to FETCH_BATCH that must be queried, and the held ones among
            // them: one statement per batch keeps SQLite's table of the wanted keys small
            // (a million-row session asked for whole built one of a million).
            let mut wanted = Vec::new();
            let mut n = 0;
            while n < rest.len() && wanted.len() < FETCH_BATCH {
                if !self.kept.has(rest[n]) {
                    wanted.push(rest[n]);
                }
                n += 1;
            }
            let (span, after) = rest.split_at(n);
            rest = after;
            let mut held = span
                .iter()
                .copied()
                .filter(|&k| self.kept.has(k))
                .peekable();
            if !wanted.is_empty() {
                if db.is_none() {
                    let Ok(guard) = self.db.lock() else {
                        return false;
                    };
                    db = Some(guard);
                }
                let Some(conn) = db.as_deref() else {
                    return false;
                };
                let list = serde_json::to_string(&wanted).unwrap_or_default();
                let read = events::each_of(conn, &self.session_id, &list, |seq, row| {
                    while let Some(k) = held.next_if(|&k| k < seq as u64) {
                        serve(k, each);
                    }
                    if let Ok(bytes) = row {
                        each(seq as u64, &bytes);
                    }
                });
                if read.is_err() {
                    return false;
                }
            }
            for k in held {
                serve(k, each);
            }
        }
        db.is_none_or(|d| d.check_unchanged())
    }
}

/// Keys read in one statement by [`DbRows::fetch_each`].
const FETCH_BATCH: usize = 4096;

impl DbRows {
    fn fetch_row(&self, seq: u64) -> Result<Vec<u8>, FetchError> {
        let db = self
            .db
            .lock()
            .map_err(|_| FetchError::Stale("database handle poisoned; reload".into()))?;
        let out = events::read_one(&db, &self.session_id, seq as i64)
            .map_err(|e| FetchError::Store(Box::new(e)))?
            .ok_or_else(|| {
                FetchError::Stale(format!(
                    "seq {seq}: row no longer exists (the transcript was rewritten; reload)"
                ))
            })?
            .map_err(|e| FetchError::Store(Box::new(e)));
        if !db.check_unchanged() {
            return Err(FetchError::Stale(format!(
                "{} changed while it was read; reload",
                db.path.display()
            )));
        }
        out
    }
}

/// Size stated in a zstd frame header, if the header states one.
fn frame_size(frame: &[u8]) -> Option<u64> {
    match zstd::zstd_safe::get_frame_content_size(frame) {
        Ok(Some(n)) => Some(n),
        _ => None,
    }
}

/// The `navigation` object of a `navigation_json`, borrowed, when it names a `type`.
fn navigation_of(nav: &[u8]) -> Option<Vec<u8>> {
    #[derive(serde::Deserialize)]
    struct Nav<'a> {
        #[serde(borrow)]
        navigation: Option<&'a serde_json::value::RawValue>,
    }
    // Checked as UTF-8 whole, then parsed as a `str`, not checked string by string (a row's
    // projection repeats its envelope several times). A projection that is not UTF-8 is not
    // used: the row itself is decoded, as for a row without one.
    let nav = simdutf8::basic::from_utf8(nav).ok()?;
    let n = serde_json::from_str::<Nav>(nav).ok()?.navigation?;
    let raw = n.get().as_bytes();
    memchr::memmem::find(raw, b"\"type\"").map(|_| raw.to_vec())
}

/// What indexing learned: the transcript, and the counts of rows it saw.
pub struct Opened {
    pub transcript: Transcript,
    pub rows: u64,
    pub zstd_rows: u64,
    pub max_seq: Option<i64>,
    /// The rows' fingerprint, worked out from this read when it read every row (not only
    /// those appended since an earlier index) and saw all the fingerprint needs.
    pub fingerprint: Option<events::RowsFingerprint>,
}

/// Bytes of envelopes a [`RowIndex`] keeps (about 60,000 rows). A session with more rows
/// than that is read again whole on a refresh: a second index of a million rows would double
/// what opening it costs in memory.
const KEPT_MAX: usize = 8 << 20;

/// The envelopes read by an earlier indexing of one session, so a refresh reads only the rows
/// appended since ([`open_after`]). Holds envelopes, never decoded rows, up to [`KEPT_MAX`].
#[derive(Default)]
pub struct RowIndex {
    /// Every row as indexing handed it over, one record after another (see [`Self::keep`]):
    /// one allocation rather than one per row.
    kept: Vec<u8>,
    /// Set when the envelopes went over [`KEPT_MAX`] and were dropped: the next open reads
    /// every row.
    dropped: bool,
    rows: u64,
    zstd_rows: u64,
    total: u64,
    max_seq: Option<i64>,
    generation: Option<String>,
}

const KEPT_HEAD: u8 = 0;
const KEPT_TOO_LARGE: u8 = 1;
const KEPT_SKIPPED: u8 = 2;

impl RowIndex {
    /// An index that keeps nothing: for a read made once (`list` exits after it), where the
    /// envelopes kept for the next open are never read back, and building them (a copy of
    /// each row's head, megabytes for a long transcript) is all they cost.
    pub fn unkept() -> RowIndex {
        RowIndex {
            dropped: true,
            ..RowIndex::default()
        }
    }

    /// Appends a record: tag, seq, two numbers (a too-large row's length and string
    /// characters), then the bytes (an envelope, a prefix or a message) with their length.
    fn keep(&mut self, tag: u8, seq: u64, numbers: [u64; 2], bytes: &[u8]) {
        if self.dropped {
            return;
        }
        if self.kept.len() + bytes.len() + 29 > KEPT_MAX {
            self.dropped = true;
            self.kept = Vec::new();
            return;
        }
        self.kept.push(tag);
        self.kept.extend_from_slice(&seq.to_le_bytes());
        for n in numbers {
            self.kept.extend_from_slice(&n.to_le_bytes());
        }
        self.kept
            .extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        self.kept.extend_from_slice(bytes);
    }

    /// Hands every kept record to `ix`, in order.
    fn replay(&self, ix: &mut RowIndexer) {
        let mut b = &self.kept[..];
        let mut take = |n: usize| {
            let (head, rest) = b.split_at(n.min(b.len()));
            b = rest;
            head
        };
        let num = |s: &[u8]| s.try_into().map(u64::from_le_bytes).unwrap_or(0);
        while let Some(&tag) = take(1).first() {
            let seq = num(take(8));
            let (len, chars) = (num(take(8)), num(take(8)));
            let n = take(4).try_into().map(u32::from_le_bytes).unwrap_or(0);
            let bytes = take(n as usize);
            match tag {
                KEPT_HEAD => ix.head(seq, bytes),
                KEPT_TOO_LARGE => ix.too_large(seq, bytes, len, chars),
                _ => ix.skipped(String::from_utf8_lossy(bytes).into_owned()),
            }
        }
    }

    /// Hands `head` to `ix` (`whole`: the row's JSON, not its projection) and keeps the row:
    /// as its envelope when it parsed cleanly (the same index, made from the indexer's own
    /// parse), else as it is.
    fn head(&mut self, ix: &mut RowIndexer, seq: u64, head: &[u8], whole: bool) {
        if whole {
            ix.whole(seq, head);
        } else {
            ix.head(seq, head);
        }
        if self.dropped {
            return;
        }
        match ix.take_envelope() {
            Some(small) => self.keep(KEPT_HEAD, seq, [0, 0], &small),
            None => self.keep(KEPT_HEAD, seq, [0, 0], head),
        }
        if self.dropped {
            ix.keep_envelopes(false);
        }
    }

    fn keep_too_large(&mut self, seq: u64, s: &Streamed, len: u64) {
        self.keep(KEPT_TOO_LARGE, seq, [len, s.chars], &s.prefix);
    }

    fn skip(&mut self, into: &mut RowIndexer, message: String) {
        self.keep(KEPT_SKIPPED, 0, [0, 0], message.as_bytes());
        into.skipped(message);
    }
}

/// Opens `session_id`'s transcript in the agent database `path`.
pub fn open(path: &Path, session_id: &str) -> Result<Opened, DbError> {
    let db = std::sync::Arc::new(Mutex::new(ReadOnlyDb::open(path)?));
    open_after(&db, session_id, RowIndex::default()).map(|(o, _)| o)
}

/// A row over [`ENTRY_MAX`], read in pieces: its first [`PREFIX_MAX`] bytes and the count of
/// its string characters, never the whole row.
struct Streamed {
    prefix: Vec<u8>,
    chars: u64,
}

fn stream_from(mut r: impl std::io::Read) -> std::io::Result<Streamed> {
    let mut buf = vec![0u8; 1 << 20];
    let mut out = Streamed {
        prefix: Vec::with_capacity(PREFIX_MAX),
        chars: 0,
    };
    let mut count = StringChars::default();
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let room = PREFIX_MAX - out.prefix.len();
        out.prefix.extend_from_slice(&buf[..n.min(room)]);
        count.feed(&buf[..n]);
    }
    out.chars = count.chars();
    Ok(out)
}

/// A plain row over [`ENTRY_MAX`], streamed from the database by its rowid.
fn stream_plain(db: &ReadOnlyDb, session_id: &str, seq: i64) -> Result<Streamed, StreamError> {
    let rowid: i64 = db.conn().query_row(
        "SELECT rowid FROM transcript_events WHERE session_id = ?1 AND seq = ?2",
        rusqlite::params![session_id, seq],
        |r| r.get(0),
    )?;
    let blob = db.conn().blob_open(
        rusqlite::MAIN_DB,
        c"transcript_events",
        c"event_json",
        rowid,
        true,
    )?;
    Ok(stream_from(blob)?)
}

/// Why a big plain row could not be streamed.
#[derive(Debug, thiserror::Error)]
enum StreamError {
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Like [`open`], reusing `prev` (the index of an earlier open of the same session) when the
/// rows it saw are still there unchanged: then only rows with a larger `seq` are read. A
/// rewrite (OpenClaw's `maxLines` trim renumbers `seq`) or any other change starts over.
///
/// Rows are handed to the indexer as they are read and nothing of a row is kept but its
/// envelope: a plain row's text only while it is read, a zstd row's `navigation_json`
/// projection (decoded only when that is missing). A row over [`ENTRY_MAX`] (decoded size) is
/// never held whole: SQLite is asked for its length alone, and it is streamed from the
/// database (plain) or through a bounded zstd decoder for its first bytes and a count of its
/// characters, then shown as too large, as a file's over-long line is.
pub fn open_after(
    shared: &SharedDb,
    session_id: &str,
    prev: RowIndex,
) -> Result<(Opened, RowIndex), DbError> {
    index_rows(shared, session_id, prev, false)
}

/// [`open_after`], also capturing what the history's walk of the branch reads
/// ([`Transcript::open_for_history`]): from each row read whole, and from the zstd rows of
/// messages and compactions, decoded here for it rather than fetched and decoded again by
/// the walk. Rows replayed from `prev` are not captured (the walk reads those).
pub fn open_after_for_history(
    shared: &SharedDb,
    session_id: &str,
    prev: RowIndex,
) -> Result<(Opened, RowIndex), DbError> {
    index_rows(shared, session_id, prev, true)
}

fn index_rows(
    shared: &SharedDb,
    session_id: &str,
    prev: RowIndex,
    capture: bool,
) -> Result<(Opened, RowIndex), DbError> {
    let guard = shared.lock().unwrap_or_else(|e| e.into_inner());
    let db: &ReadOnlyDb = &guard;
    let path = db.path.clone();
    let path = path.as_path();
    let generation = events::rewrite_generation(db, session_id);
    let mut idx = prev;
    if idx.rows > 0 {
        let still: i64 = db
            .conn()
            .query_row(
                "SELECT count(*) FROM transcript_events WHERE session_id = ?1 AND seq <= ?2",
                rusqlite::params![session_id, idx.max_seq.unwrap_or(-1)],
                |r| r.get(0),
            )
            .map_err(|e| DbError::from_sqlite(path, e))?;
        if idx.dropped || still as u64 != idx.rows || generation != idx.generation {
            idx = RowIndex::default();
        }
    }
    // Read from the first row: the fingerprint comes from the same read.
    let mut stamp = (idx.rows == 0).then(events::FingerprintOfRead::default);
    idx.generation = generation;
    let mut ix = if capture {
        RowIndexer::capturing()
    } else {
        RowIndexer::default()
    };
    idx.replay(&mut ix);
    ix.keep_envelopes(!idx.dropped);
    let after = idx.max_seq.unwrap_or(-1);
    let mut kept = KeptRows::default();
    {
        // `octet_length` of a column reads the record header only, so a row's size is known
        // before any of it is loaded; the CASE loads the payload only when it is in bounds.
        let mut st = db
            .conn()
            .prepare_cached(
                "SELECT seq, octet_length(event_json), \
                 CASE WHEN octet_length(event_json) <= ?3 THEN event_json END, \
                 navigation_json, octet_length(event_zstd), \
                 CASE WHEN octet_length(event_zstd) <= ?3 THEN event_zstd END, event_utf8_bytes \
                 FROM transcript_events WHERE session_id = ?1 AND seq > ?2 ORDER BY seq",
            )
            .map_err(|e| DbError::from_sqlite(path, e))?;
        let mut q = st
            .query(rusqlite::params![session_id, after, ENTRY_MAX as i64])
            .map_err(|e| DbError::from_sqlite(path, e))?;
        while let Some(r) = q.next().map_err(|e| DbError::from_sqlite(path, e))? {
            let seq: i64 = r.get(0).map_err(|e| DbError::from_sqlite(path, e))?;
            idx.rows += 1;
            idx.max_seq = Some(seq);
            let json_len: Option<i64> = r.get(1).unwrap_or(None);
            let frame_len: Option<i64> = r.get(4).unwrap_or(None);
            let json = r.get_ref(2).map_err(|e| DbError::from_sqlite(path, e))?;
            let frame = r.get_ref(5).map_err(|e| DbError::from_sqlite(path, e))?;
            use rusqlite::types::ValueRef as V;
            if let Some(stamp) = stamp.as_mut() {
                fn loaded(v: rusqlite::types::ValueRef<'_>) -> Option<&[u8]> {
                    match v {
                        V::Text(b) | V::Blob(b) => Some(b),
                        _ => None,
                    }
                }
                let stored = match (json_len, frame_len) {
                    (Some(_), None) => loaded(json),
                    (None, Some(_)) => loaded(frame),
                    (None, None) => Some(&[][..]),
                    (Some(_), Some(_)) => None,
                };
                stamp.row(seq, [json_len, frame_len], stored);
            }
            match (json_len, frame_len) {
                (Some(n), None) => {
                    index_plain_row(db, session_id, &mut idx, &mut ix, &mut kept, seq, n, json)
                }
                (None, Some(flen)) => {
                    let want: Option<i64> = r.get(6).unwrap_or(None);
                    let nav = r.get_ref(3).unwrap_or(V::Null);
                    let want = want.unwrap_or(-1);
                    let before = ix.count_and_last_kind().0;
                    index_zstd_row(&mut idx, &mut ix, seq, flen, frame, want, nav);
                    if let V::Blob(f) | V::Text(f) = frame {
                        kept.keep_frame(&ix, before, seq, f, want);
                    }
                }
                (None, None) => idx.skip(&mut ix, format!("skipped: {}", RowError::Empty { seq })),
                _ => idx.skip(&mut ix, format!("skipped: {}", RowError::Both { seq })),
            }
        }
    }
    drop(guard);
    let fetch = DbRows {
        db: shared.clone(),
        session_id: session_id.to_string(),
        recent: Recent::default(),
        kept,
    };
    let t = ix.finish(label(path, session_id), Box::new(fetch), idx.total);
    let opened = Opened {
        transcript: t,
        rows: idx.rows,
        zstd_rows: idx.zstd_rows,
        max_seq: idx.max_seq,
        fingerprint: stamp.and_then(|s| s.finish(idx.generation.clone())),
    };
    Ok((opened, idx))
}

/// Indexes one `event_json` row of `n` bytes: kept whole when small (for reads without a
/// query), its head parsed; a row over the entry limit is read in pieces, never whole.
#[allow(clippy::too_many_arguments)]
fn index_plain_row(
    db: &ReadOnlyDb,
    session_id: &str,
    idx: &mut RowIndex,
    ix: &mut RowIndexer,
    kept: &mut KeptRows,
    seq: i64,
    n: i64,
    json: rusqlite::types::ValueRef<'_>,
) {
    use rusqlite::types::ValueRef as V;
    idx.total += n.max(0) as u64;
    match json {
        V::Text(t) | V::Blob(t) => {
            let before = ix.count_and_last_kind().0;
            idx.head(ix, seq as u64, t, true);
            kept.keep_plain(ix, before, seq, t);
        }
        _ => match stream_plain(db, session_id, seq) {
            Ok(s) => {
                ix.too_large(seq as u64, &s.prefix, n as u64, s.chars);
                idx.keep_too_large(seq as u64, &s, n as u64);
            }
            Err(e) => idx.skip(
                ix,
                format!(
                    "skipped: seq {seq}: event_json is {n} bytes, over the {} MiB clawtop decodes, and could not be read in pieces ({e})",
                    ENTRY_MAX >> 20
                ),
            ),
        },
    }
}

/// Indexes one `event_zstd` row (a `flen`-byte frame that decodes to `want` bytes): its head
/// from `navigation_json` when that names the entry, else from the decoded row; a row whose
/// decoded size is over the entry limit is decoded in pieces, never whole.
fn index_zstd_row(
    idx: &mut RowIndex,
    ix: &mut RowIndexer,
    seq: i64,
    flen: i64,
    frame: rusqlite::types::ValueRef<'_>,
    want: i64,
    nav: rusqlite::types::ValueRef<'_>,
) {
    use rusqlite::types::ValueRef as V;
    idx.zstd_rows += 1;
    let f = match frame {
        V::Blob(f) | V::Text(f) => f,
        _ => {
            idx.skip(
                ix,
                format!(
                    "skipped: seq {seq}: event_zstd is a {flen}-byte frame, over the {} MiB clawtop reads",
                    ENTRY_MAX >> 20
                ),
            );
            return;
        }
    };
    let stated = frame_size(f);
    if want <= 0 || stated.is_some_and(|n| n as i64 != want) {
        let e = RowError::Length {
            seq,
            got: stated.map_or("?".into(), |n| n.to_string()),
            want,
        };
        idx.skip(ix, format!("skipped: {e}"));
        return;
    }
    idx.total += want as u64;
    if want as u64 > ENTRY_MAX as u64 {
        // Decoded in pieces for its first bytes and size; never whole.
        let streamed =
            zstd::stream::read::Decoder::with_buffer(f).and_then(|d| stream_from(d.single_frame()));
        match streamed {
            Ok(s) => {
                ix.too_large(seq as u64, &s.prefix, want as u64, s.chars);
                idx.keep_too_large(seq as u64, &s, want as u64);
            }
            Err(e) => idx.skip(
                ix,
                format!(
                    "skipped: {}",
                    RowError::Zstd {
                        seq,
                        message: e.to_string()
                    }
                ),
            ),
        }
        return;
    }
    let head = match nav {
        V::Text(n) => navigation_of(n),
        _ => None,
    };
    let decode = || {
        events::decode(
            seq,
            events::Stored::Zstd {
                frame: f,
                utf8_bytes: want,
            },
        )
    };
    match head {
        Some(h) => {
            let before = ix.count_and_last_kind().0;
            idx.head(ix, seq as u64, &h, false);
            if ix.wants_rows() && walked(ix, before) {
                if let Ok(b) = decode() {
                    ix.capture_row(&b);
                }
            }
        }
        // No usable projection: decode this row to index it.
        None => match decode() {
            Ok(b) => {
                idx.head(ix, seq as u64, &b, true);
            }
            Err(e) => idx.skip(ix, format!("skipped: {e}")),
        },
    }
}

/// Whether the row `ix` indexed last (if it became an entry since `before`) is one the
/// history's walk of the branch reads: a user or assistant message, a compaction.
fn walked(ix: &RowIndexer, before: usize) -> bool {
    use crate::transcript::{EntryKind as K, Role};
    matches!(
        ix.count_and_last_kind(),
        (n, Some(K::Message(Role::User | Role::Assistant) | K::Compaction)) if n > before
    )
}

/// Rows kept after indexing, so a SQLite transcript's reads need no second query: small
/// plain rows as their text (the entry itself) and small zstd rows as their frame (a tenth of
/// the decoded size), each up to its byte budget. Only entries the plan and the figures read
/// are kept: messages other than tool results (the bulk of a transcript, read by no one but
/// a screen that shows them), compactions, summaries, model and thinking-level changes; the
/// rest are fetched.
#[derive(Default)]
struct KeptRows {
    plain: std::collections::HashMap<u64, Box<[u8]>>,
    plain_bytes: usize,
    /// A frame and the decoded size its row states (checked again on decoding).
    frames: std::collections::HashMap<u64, (Box<[u8]>, i64)>,
    frame_bytes: usize,
}

impl KeptRows {
    /// Whether the row `ix` indexed last (if it became an entry since `before`) is worth
    /// keeping.
    fn wanted(ix: &RowIndexer, before: usize) -> bool {
        use crate::transcript::{EntryKind as K, Role};
        match ix.count_and_last_kind() {
            (n, Some(kind)) if n > before => match kind {
                K::Message(r) => r != Role::ToolResult,
                K::Compaction | K::BranchSummary | K::CustomMessage => true,
                // Small, and the context reads the newest of each.
                K::ModelChange | K::ThinkingLevelChange => true,
                _ => false,
            },
            _ => false,
        }
    }

    fn keep_plain(&mut self, ix: &RowIndexer, before: usize, seq: i64, t: &[u8]) {
        if t.len() <= RECENT_ROW_MAX
            && self.plain_bytes + t.len() <= PLAIN_KEPT_MAX
            && Self::wanted(ix, before)
        {
            self.plain_bytes += t.len();
            self.plain.insert(seq as u64, Box::from(t));
        }
    }

    fn keep_frame(&mut self, ix: &RowIndexer, before: usize, seq: i64, f: &[u8], want: i64) {
        // A row decoding to more than a kept plain row may is fetched (and never held whole
        // beyond ENTRY_MAX: such a row is indexed as too large and not kept here).
        if want > 0
            && want as usize <= RECENT_ROW_MAX
            && self.frame_bytes + f.len() <= FRAMES_KEPT_MAX
            && Self::wanted(ix, before)
        {
            self.frame_bytes += f.len();
            self.frames.insert(seq as u64, (Box::from(f), want));
        }
    }

    fn has(&self, seq: u64) -> bool {
        self.plain.contains_key(&seq) || self.frames.contains_key(&seq)
    }

    /// The row's text, decoded as a query's would be; None when it was not kept.
    fn get(&self, seq: u64) -> Option<Result<Vec<u8>, RowError>> {
        if let Some(row) = self.plain.get(&seq) {
            return Some(Ok(row.to_vec()));
        }
        let (frame, want) = self.frames.get(&seq)?;
        Some(events::decode(
            seq as i64,
            events::Stored::Zstd {
                frame,
                utf8_bytes: *want,
            },
        ))
    }
}

/// A 2026.9 used figure taken from a transcript (docs/sqlite-host.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptFromTranscript {
    /// `usage.input + cacheRead + cacheWrite` of the last real model reply on the active
    /// branch: what `totalTokens` (version 1) records.
    LastCall(u64),
    /// A compaction came after the last reply: its `tokensAfter`, which leaves out the system
    /// prompt and tools (an under-count) until the next reply.
    AfterCompaction(u64),
}

impl PromptFromTranscript {
    pub fn tokens(self) -> u64 {
        match self {
            PromptFromTranscript::LastCall(n) | PromptFromTranscript::AfterCompaction(n) => n,
        }
    }
}

/// The prompt size of the last model call, the way OpenClaw 2026.9 records `totalTokens`:
/// the gateway's `/compact` notice and aborted or failed replies are not calls that measured
/// anything. None when the branch has neither a reply with usage nor a compaction.
pub fn last_prompt_tokens(t: &Transcript) -> Option<PromptFromTranscript> {
    use crate::transcript::{EntryKind, Role};
    for &i in t.active_branch().iter().rev() {
        match t.entries[i as usize].kind {
            EntryKind::Compaction => {
                let v = t.entry_json(i).ok()?;
                return v
                    .get("tokensAfter")
                    .and_then(crate::store_entry::non_negative)
                    .map(PromptFromTranscript::AfterCompaction);
            }
            EntryKind::Message(Role::Assistant) => {
                let Ok(v) = t.entry_json(i) else { continue };
                let Some(m) = v.get("message") else { continue };
                let Some(u) = crate::tokens::valid_usage(m) else {
                    continue;
                };
                let n = |k: &str| {
                    u.get(k)
                        .and_then(crate::store_entry::non_negative)
                        .unwrap_or(0)
                };
                let p = n("input") + n("cacheRead") + n("cacheWrite");
                if p > 0 {
                    return Some(PromptFromTranscript::LastCall(p));
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A label reads as the database's display and the session id would be formatted, a path
    /// that is not UTF-8 included.
    #[test]
    fn labels_read_as_the_formatted_path() {
        use std::os::unix::ffi::OsStrExt;
        for db in [
            Path::new("/home/op/.openclaw/agents/main/agent/openclaw-agent.sqlite"),
            Path::new("relative/é/agent.sqlite"),
            Path::new(std::ffi::OsStr::from_bytes(b"state/a\xff\xfeb/x.sqlite")),
        ] {
            assert_eq!(
                label(db, "s-1"),
                PathBuf::from(format!("{}#transcript_events/s-1", db.display())),
            );
        }
    }

    #[test]
    fn recent_rows_are_fetched_once_and_big_rows_never_kept() {
        let r = Recent::default();
        let reads = Cell::new(0);
        let row = |seq: u64| {
            reads.set(reads.get() + 1);
            let n = if seq == 99 { RECENT_ROW_MAX + 1 } else { 10 };
            Ok(vec![seq as u8; n])
        };
        assert_eq!(r.get_or_fetch(1, row).unwrap(), vec![1u8; 10]);
        assert_eq!(r.get_or_fetch(2, row).unwrap(), vec![2u8; 10]);
        assert_eq!(r.get_or_fetch(1, row).unwrap(), vec![1u8; 10]);
        assert_eq!(reads.get(), 2);
        // A big row is read every time it is asked for.
        r.get_or_fetch(99, row).unwrap();
        r.get_or_fetch(99, row).unwrap();
        assert_eq!(reads.get(), 4);
        // Past RECENT_ROWS other rows, the oldest is read again; a failed read keeps nothing.
        for seq in 10..10 + RECENT_ROWS as u64 {
            r.get_or_fetch(seq, row).unwrap();
        }
        let before = reads.get();
        assert_eq!(r.get_or_fetch(2, row).unwrap(), vec![2u8; 10]);
        assert_eq!(reads.get(), before + 1);
        assert!(
            r.get_or_fetch(7, |_| Err(FetchError::Stale("gone".into())))
                .is_err()
        );
        assert_eq!(r.get_or_fetch(7, row).unwrap(), vec![7u8; 10]);
    }

    /// What indexing made of a transcript, for comparing two indexings.
    fn shape(t: &Transcript) -> Vec<String> {
        let mut out: Vec<String> = (0..t.len() as u32)
            .map(|i| {
                let e = &t.entries[i as usize];
                format!(
                    "{} {} {:?} {:?} {:?} {:?} {:?}",
                    e.line,
                    e.offset,
                    e.kind,
                    t.written_id(i),
                    e.parent(),
                    t.written_parent_id(i),
                    e.too_large()
                )
            })
            .collect();
        out.extend(t.all_warnings().iter().map(|w| w.to_string()));
        out.push(format!(
            "{:?} {}",
            t.header.as_ref().map(|h| h.version),
            t.file_len
        ));
        out
    }

    /// A database with OpenClaw 2026.9's `transcript_events` table, empty.
    fn events_table(path: &Path) -> rusqlite::Connection {
        let c = rusqlite::Connection::open(path).unwrap();
        c.execute_batch(
            "CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, \
             event_json TEXT, created_at INTEGER NOT NULL DEFAULT 0, event_zstd BLOB, \
             event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq))",
        )
        .unwrap();
        c
    }

    #[test]
    fn a_refresh_from_the_kept_index_indexes_like_a_fresh_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agent.sqlite");
        let c = events_table(&path);
        let plain = |seq: i64, json: &str| {
            c.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json) VALUES ('s1', ?1, ?2)",
                rusqlite::params![seq, json],
            )
            .unwrap();
        };
        plain(
            0,
            r#"{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/w"}"#,
        );
        plain(
            1,
            r#"{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"hi"}}"#,
        );
        plain(2, "not json");
        let big = format!(
            r#"{{"type":"message","id":"r1","parentId":"u1","message":{{"role":"toolResult","content":"{}"}}}}"#,
            "y".repeat(ENTRY_MAX)
        );
        plain(3, &big);
        let z = r#"{"type":"message","id":"a1","parentId":"r1","message":{"role":"assistant","content":[]}}"#;
        c.execute(
            "INSERT INTO transcript_events (session_id, seq, event_zstd, event_utf8_bytes, navigation_json) \
             VALUES ('s1', 4, ?1, ?2, ?3)",
            rusqlite::params![
                zstd::bulk::compress(z.as_bytes(), 1).unwrap(),
                z.len() as i64,
                format!(r#"{{"navigation":{z}}}"#)
            ],
        )
        .unwrap();
        c.execute(
            "INSERT INTO transcript_events (session_id, seq) VALUES ('s1', 5)",
            [],
        )
        .unwrap();
        plain(6, r#"{"type":"mystery","id":"m1","parentId":"u1"}"#);
        let shared: SharedDb = std::sync::Arc::new(Mutex::new(ReadOnlyDb::open(&path).unwrap()));
        let (first, index) = open_after(&shared, "s1", RowIndex::default()).unwrap();
        assert!(!index.dropped && !index.kept.is_empty());
        assert!(
            index.kept.len() < 1 << 20,
            "the big row is not kept, only its start"
        );
        let t = &first.transcript;
        assert_eq!(t.len(), 4);
        assert!(t.entries[1].too_large().is_some());
        // Rows appended: the refresh reads only them.
        plain(
            7,
            r#"{"type":"message","id":"u2","parentId":"m1","message":{"role":"user","content":"more"}}"#,
        );
        plain(
            8,
            r#"{"type":"message","id":"a2","parentId":"a1","message":{"role":"assistant","content":[]}}"#,
        );
        drop(c);
        let shared: SharedDb = std::sync::Arc::new(Mutex::new(ReadOnlyDb::open(&path).unwrap()));
        let (refreshed, _) = open_after(&shared, "s1", index).unwrap();
        let fresh = open(&path, "s1").unwrap();
        assert_eq!(refreshed.rows, 9);
        assert_eq!(shape(&refreshed.transcript), shape(&fresh.transcript));
        assert_eq!(refreshed.transcript.len(), 6);
        assert_eq!(refreshed.transcript.entries[4].parent(), Some(3));
        let w = shape(&fresh.transcript).join("\n");
        assert!(w.contains("line 3: skipped: not valid JSON"), "{w}");
        assert!(w.contains("line 6: skipped: seq 5: neither"), "{w}");
    }

    #[test]
    fn many_rows_are_read_in_batches_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agent.sqlite");
        let c = events_table(&path);
        // Replies (kept) and tool results (queried) in turn: more queried rows than one
        // statement takes, with kept rows between them.
        let n = 2 * FETCH_BATCH + 101;
        c.execute_batch("BEGIN").unwrap();
        let mut parent = "null".to_string();
        for seq in 0..n {
            let role = if seq % 2 == 0 {
                "assistant"
            } else {
                "toolResult"
            };
            let row = format!(
                r#"{{"type":"message","id":"e{seq}","parentId":{parent},"message":{{"role":"{role}","content":[{{"type":"text","text":"row {seq}"}}]}}}}"#
            );
            parent = format!("\"e{seq}\"");
            c.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json) VALUES ('s1', ?1, ?2)",
                rusqlite::params![seq as i64, row],
            )
            .unwrap();
        }
        c.execute_batch("COMMIT").unwrap();
        drop(c);
        let t = open(&path, "s1").unwrap().transcript;
        assert_eq!(t.len(), n);
        // Asked out of order and twice: each row once, in order.
        let mut asked: Vec<u32> = (0..n as u32).rev().collect();
        asked.extend(0..10);
        let mut passed = Vec::new();
        assert!(t.for_each_raw(&asked, |i, raw| passed.push((i, raw.to_vec()))));
        let c = rusqlite::Connection::open(&path).unwrap();
        let mut st = c
            .prepare("SELECT event_json FROM transcript_events ORDER BY seq")
            .unwrap();
        let want: Vec<(u32, Vec<u8>)> = st
            .query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .enumerate()
            .map(|(i, r)| (i as u32, r.unwrap().into_bytes()))
            .collect();
        assert_eq!(passed.len(), want.len());
        assert!(passed == want);
    }

    #[test]
    fn rows_kept_from_indexing_are_the_rows_a_query_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agent.sqlite");
        let c = events_table(&path);
        let rows = [
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-11-01T00:00:00.000Z"}"#.to_string(),
            r#"{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"hi \u00e9"}}"#.to_string(),
            // Over the size kept from indexing: fetched by query.
            format!(
                r#"{{"type":"message","id":"a1","parentId":"u1","message":{{"role":"assistant","content":[{{"type":"text","text":"{}"}}]}}}}"#,
                "x".repeat(RECENT_ROW_MAX)
            ),
        ];
        for (seq, r) in rows.iter().enumerate() {
            c.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json) VALUES ('s1', ?1, ?2)",
                rusqlite::params![seq as i64, r],
            )
            .unwrap();
        }
        // zstd rows with their projection: a reply (kept as its frame) and a tool result
        // (not kept: fetched).
        let zstd = |seq: i64, json: &str, role: &str, id: &str, parent: &str| {
            let frame = zstd::bulk::compress(json.as_bytes(), 1).unwrap();
            let nav = format!(
                r#"{{"version":1,"navigation":{{"type":"message","id":"{id}","parentId":"{parent}","message":{{"role":"{role}"}}}}}}"#
            );
            c.execute(
                "INSERT INTO transcript_events (session_id, seq, event_zstd, event_utf8_bytes, navigation_json) VALUES ('s1', ?1, ?2, ?3, ?4)",
                rusqlite::params![seq, frame, json.len() as i64, nav],
            )
            .unwrap();
        };
        zstd(
            3,
            r#"{"type":"message","id":"a2","parentId":"a1","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x.rs"}}]}}"#,
            "assistant",
            "a2",
            "a1",
        );
        zstd(
            4,
            r#"{"type":"message","id":"r2","parentId":"a2","message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"fn main() {}"}]}}"#,
            "toolResult",
            "r2",
            "a2",
        );
        zstd(
            5,
            r#"{"type":"message","id":"a3","parentId":"r2","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}"#,
            "assistant",
            "a3",
            "r2",
        );
        drop(c);
        let t = open(&path, "s1").unwrap().transcript;
        assert_eq!(t.len(), 5);
        let db = ReadOnlyDb::open(&path).unwrap();
        let mut queried = Vec::new();
        for i in 0..t.len() as u32 {
            let seq = t.entries[i as usize].offset as i64;
            let q = events::read_one(&db, "s1", seq).unwrap().unwrap().unwrap();
            assert_eq!(t.raw_line(i).unwrap().as_ref(), q.as_slice(), "entry {i}");
            queried.push(q);
        }
        // One pass over every entry (rows kept and rows queried interleaved), in order.
        let all: Vec<u32> = (0..t.len() as u32).collect();
        let mut passed = Vec::new();
        assert!(t.for_each_raw(&all, |i, raw| passed.push((i, raw.to_vec()))));
        let want: Vec<(u32, Vec<u8>)> = all.iter().copied().zip(queried).collect();
        assert_eq!(passed, want);
        // Which rows were kept shows once the rows are gone: a kept row still reads as it was
        // indexed (the same snapshot), a fetched one is refused as no longer there.
        // (A fresh open: rows read once are also served from the recent rows.)
        drop(db);
        let t = open(&path, "s1").unwrap().transcript;
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute("DELETE FROM transcript_events", []).unwrap();
        drop(c);
        let read = |i: u32| t.raw_line(i).is_ok();
        // user (plain), long reply (fetched), read call (zstd), tool result, last reply.
        assert_eq!(
            (0..5).map(read).collect::<Vec<_>>(),
            [true, false, true, false, true]
        );
    }
}
