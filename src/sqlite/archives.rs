//! The transcripts a SQLite host archived: OpenClaw 2026.9 keeps what `/new`, `/reset` and
//! a deleted session leave behind in `session_transcript_archives` (the window's events as
//! JSONL, one `event_json` per line, whole-stream zstd or identity), and moves old windows
//! out to `session_transcript_cold_archives` (a blob in the database, or a file elsewhere).
//! Those calls were paid for, so a host's spend counts them (SPEC §10); nothing else reads
//! them. Rows are read one at a time, each blob bounded, so a large archive costs its own
//! size once, never the sum of all of them.

use super::{DbError, ReadOnlyDb};
use crate::transcript::archive::{ArchiveError, ZSTD_MAGIC, decode};

/// One archived transcript: its name, and its JSONL bytes or why they could not be had.
pub struct ArchiveRow {
    /// `<archive_name>` (`cold/<archive_name>` for a cold archive), as OpenClaw names it.
    pub name: String,
    pub jsonl: Result<Vec<u8>, ArchiveError>,
}

/// Calls `each` with every archived transcript of the database (none when it has no archive
/// tables: a schema before them). A blob whose stored size is over `max` is named, not read.
pub fn each(db: &ReadOnlyDb, max: u64, each: &mut dyn FnMut(ArchiveRow)) -> Result<(), DbError> {
    let err = |e| DbError::from_sqlite(&db.path, e);
    if db.has_table("session_transcript_archives")? {
        let mut st = db
            .conn()
            .prepare(
                "SELECT archive_name, encoding, length(archive_blob), \
                 CASE WHEN length(archive_blob) <= ?1 THEN archive_blob END \
                 FROM session_transcript_archives ORDER BY created_at, archive_name",
            )
            .map_err(err)?;
        let mut rows = st.query([max as i64]).map_err(err)?;
        while let Some(r) = rows.next().map_err(err)? {
            let name: String = r.get(0).map_err(err)?;
            let encoding: String = r.get(1).map_err(err)?;
            let len: i64 = r.get(2).map_err(err)?;
            let blob: Option<Vec<u8>> = r.get(3).map_err(err)?;
            let jsonl = match blob {
                None => Err(ArchiveError::TooLarge(len as u64)),
                Some(b) => decode(b.as_slice(), b.len() as u64, encoding == "zstd", max),
            };
            each(ArchiveRow { name, jsonl });
        }
    }
    if db.has_table("session_transcript_cold_archives")? {
        let mut st = db
            .conn()
            .prepare(
                "SELECT archive_name, storage, length(archive_blob), \
                 CASE WHEN length(archive_blob) <= ?1 THEN archive_blob END \
                 FROM session_transcript_cold_archives ORDER BY archived_at, archive_name",
            )
            .map_err(err)?;
        let mut rows = st.query([max as i64]).map_err(err)?;
        while let Some(r) = rows.next().map_err(err)? {
            let name: String = r.get(0).map_err(err)?;
            let storage: String = r.get(1).map_err(err)?;
            let len: Option<i64> = r.get(2).map_err(err)?;
            let blob: Option<Vec<u8>> = r.get(3).map_err(err)?;
            let jsonl = match (storage.as_str(), blob) {
                ("file", _) => Err(ArchiveError::OutsideTheDatabase),
                (_, Some(b)) => {
                    let z = b.starts_with(&ZSTD_MAGIC);
                    decode(b.as_slice(), b.len() as u64, z, max)
                }
                (_, None) => Err(ArchiveError::TooLarge(len.unwrap_or_default() as u64)),
            };
            each(ArchiveRow {
                name: format!("cold/{name}"),
                jsonl,
            });
        }
    }
    Ok(())
}
