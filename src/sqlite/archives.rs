//! The transcripts a SQLite host archived: OpenClaw 2026.9 keeps what `/new`, `/reset` and
//! a deleted session leave behind in `session_transcript_archives` (the window's events as
//! JSONL, one `event_json` per line, whole-stream zstd or identity), and moves old windows
//! out to `session_transcript_cold_archives` (a blob in the database, or a file elsewhere).
//! Those calls were paid for, so a host's spend counts them (SPEC §10); nothing else reads
//! them. Rows are read one at a time, each blob bounded, so a large archive costs its own
//! size once, never the sum of all of them.

use super::{DbError, ReadOnlyDb};
use std::io::Read;

/// One archived transcript: its name, and its JSONL bytes or why they could not be had.
pub struct ArchiveRow {
    /// `<archive_name>` (`cold/<archive_name>` for a cold archive), as OpenClaw names it.
    pub name: String,
    pub jsonl: Result<Vec<u8>, String>,
}

/// zstd's frame magic (RFC 8878 §3.1.1).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// A blob as JSONL: decompressed when it is zstd (by its encoding column, or by its magic
/// where the table has no such column), at most `max` bytes either way.
fn decode(blob: Vec<u8>, zstd: bool, max: u64) -> Result<Vec<u8>, String> {
    if !zstd {
        if blob.len() as u64 > max {
            return Err(format!("{} bytes, over the archive limit", blob.len()));
        }
        return Ok(blob);
    }
    let mut out = Vec::new();
    zstd::stream::read::Decoder::new(blob.as_slice())
        .map_err(|e| format!("zstd: {e}"))?
        .take(max + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("zstd: {e}"))?;
    if out.len() as u64 > max {
        return Err("decompresses over the archive limit".into());
    }
    Ok(out)
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
                None => Err(format!("{len} bytes, over the archive limit")),
                Some(b) => decode(b, encoding == "zstd", max),
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
                ("file", _) => Err("kept in a file outside the database (not read)".into()),
                (_, Some(b)) => {
                    let z = b.starts_with(&ZSTD_MAGIC);
                    decode(b, z, max)
                }
                (_, None) => Err(format!(
                    "{} bytes, over the archive limit",
                    len.unwrap_or_default()
                )),
            };
            each(ArchiveRow {
                name: format!("cold/{name}"),
                jsonl,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_is_decoded_within_its_limit() {
        let text = b"{\"type\":\"session\"}\n".repeat(10);
        assert_eq!(decode(text.clone(), false, 1 << 20).unwrap(), text);
        let z = zstd::encode_all(text.as_slice(), 3).unwrap();
        assert_eq!(decode(z.clone(), true, 1 << 20).unwrap(), text);
        assert!(
            decode(z, true, 50)
                .unwrap_err()
                .contains("over the archive limit")
        );
        assert!(
            decode(text, false, 50)
                .unwrap_err()
                .contains("over the archive limit")
        );
        assert!(
            decode(b"not zstd".to_vec(), true, 1 << 20)
                .unwrap_err()
                .starts_with("zstd")
        );
    }
}
