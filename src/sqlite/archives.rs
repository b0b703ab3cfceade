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

/// How one archive table's rows are read: its name, the column that says how the blob is
/// kept (`encoding` or `storage`), the order, and the name prefix given to its archives.
struct Table {
    name: &'static str,
    how: &'static str,
    order: &'static str,
    prefix: &'static str,
}

const TABLES: [Table; 2] = [
    Table {
        name: "session_transcript_archives",
        how: "encoding",
        order: "created_at, archive_name",
        prefix: "",
    },
    Table {
        name: "session_transcript_cold_archives",
        how: "storage",
        order: "archived_at, archive_name",
        prefix: "cold/",
    },
];

/// An archive's JSONL from its row: `how` is the table's `encoding` (identity or zstd) or
/// `storage` (sqlite: a blob, zstd by its magic; file: kept outside the database); `blob`
/// is None when its `len` is over `max`.
fn jsonl(
    how: &str,
    len: Option<i64>,
    blob: Option<Vec<u8>>,
    max: u64,
) -> Result<Vec<u8>, ArchiveError> {
    match (how, blob) {
        ("file", _) => Err(ArchiveError::OutsideTheDatabase),
        (_, None) => Err(ArchiveError::TooLarge(len.unwrap_or_default() as u64)),
        (how, Some(b)) => {
            let zstd = how == "zstd" || (how == "sqlite" && b.starts_with(&ZSTD_MAGIC));
            decode(b.as_slice(), b.len() as u64, zstd, max)
        }
    }
}

/// Calls `each` with every archived transcript of the database (none when it has no archive
/// tables: a schema before them). A blob whose stored size is over `max` is named, not read.
pub fn each(db: &ReadOnlyDb, max: u64, each: &mut dyn FnMut(ArchiveRow)) -> Result<(), DbError> {
    let err = |e| DbError::from_sqlite(&db.path, e);
    for t in &TABLES {
        if !db.has_table(t.name)? {
            continue;
        }
        let sql = format!(
            "SELECT archive_name, {how}, length(archive_blob), \
             CASE WHEN length(archive_blob) <= ?1 THEN archive_blob END \
             FROM {table} ORDER BY {order}",
            how = t.how,
            table = t.name,
            order = t.order
        );
        let mut st = db.conn().prepare(&sql).map_err(err)?;
        let mut rows = st.query([max as i64]).map_err(err)?;
        while let Some(r) = rows.next().map_err(err)? {
            let name: String = r.get(0).map_err(err)?;
            let how: String = r.get(1).map_err(err)?;
            let len: Option<i64> = r.get(2).map_err(err)?;
            let blob: Option<Vec<u8>> = r.get(3).map_err(err)?;
            each(ArchiveRow {
                name: format!("{}{name}", t.prefix),
                jsonl: jsonl(&how, len, blob, max),
            });
        }
    }
    Ok(())
}
