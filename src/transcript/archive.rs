//! Archived transcripts: what `/new`, `/reset` and deleted sessions leave behind, read only
//! for what they cost (SPEC §10). A file host keeps them beside the live transcripts
//! (`*.jsonl.reset.<ts>`, `*.jsonl.deleted.<ts>`, `.zst` when compressed); a SQLite host in its
//! archive tables (`crate::sqlite::archives`). Both are read through [`decode`], so one bound
//! holds for both: an archive is at most [`MAX_BYTES`], before and after decompression, and
//! one that is not read is counted and says why ([`ArchiveError`]).

use std::io::Read;

/// Archived transcripts larger than this are counted, not read.
pub const MAX_BYTES: u64 = 64 << 20;

/// Why an archived transcript was counted but not read.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("{0} bytes, over the archive limit")]
    TooLarge(u64),
    #[error("decompresses over the archive limit")]
    DecompressesTooLarge,
    #[error("zstd: {0}")]
    Zstd(std::io::Error),
    #[error("kept in a file outside the database (not read)")]
    OutsideTheDatabase,
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Where the archives are could not be read (a database), in words.
    #[error("{0}")]
    Unavailable(String),
}

/// zstd's frame magic (RFC 8878 §3.1.1).
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// An archive's bytes as JSONL: decompressed when `zstd`, at most `max` bytes either way.
/// `len` is the stored size, checked before anything is read.
pub fn decode(from: impl Read, len: u64, zstd: bool, max: u64) -> Result<Vec<u8>, ArchiveError> {
    if len > max {
        return Err(ArchiveError::TooLarge(len));
    }
    let mut out = Vec::new();
    if !zstd {
        from.take(max + 1).read_to_end(&mut out)?;
        if out.len() as u64 > max {
            return Err(ArchiveError::TooLarge(out.len() as u64));
        }
        return Ok(out);
    }
    zstd::stream::read::Decoder::new(from)
        .and_then(|d| d.take(max + 1).read_to_end(&mut out))
        .map_err(ArchiveError::Zstd)?;
    if out.len() as u64 > max {
        return Err(ArchiveError::DecompressesTooLarge);
    }
    Ok(out)
}

/// An archived transcript file (plain, or zstd when its name ends `.zst`), bounded.
pub fn read_file(p: &std::path::Path) -> Result<super::Transcript, ArchiveError> {
    let f = crate::regular_file::open(p)?;
    let len = f.metadata()?.len();
    let zstd = p.extension().is_some_and(|e| e == "zst");
    let bytes = decode(f, len, zstd, MAX_BYTES)?;
    Ok(super::Transcript::from_bytes(p, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_is_decoded_within_its_limit() {
        let text = b"{\"type\":\"session\"}\n".repeat(10);
        let n = text.len() as u64;
        let err = |r: Result<Vec<u8>, ArchiveError>| r.unwrap_err().to_string();
        assert_eq!(decode(text.as_slice(), n, false, 1 << 20).unwrap(), text);
        let z = zstd::encode_all(text.as_slice(), 3).unwrap();
        let zn = z.len() as u64;
        assert!(z.starts_with(&ZSTD_MAGIC));
        assert_eq!(decode(z.as_slice(), zn, true, 1 << 20).unwrap(), text);
        assert!(err(decode(z.as_slice(), zn, true, 50)).contains("over the archive limit"));
        assert!(err(decode(text.as_slice(), n, false, 50)).contains("over the archive limit"));
        assert!(err(decode(&b"not zstd"[..], 8, true, 1 << 20)).starts_with("zstd"));
    }
}
