//! What a transcript is at one moment, cheaply: the key under which the figures measured from
//! it are remembered (`numbers::cache`). Two equal stamps must mean the same transcript; a
//! stamp that cannot promise it is not given (the transcript is then simply read).
//!
//! A file: device, inode, size, mtime and ctime (ns), and a SHA-256 of its first and last
//! 4 KiB. Appending changes the size and the tail; truncating, the size; replacing it (a
//! rename over it, even with the same size and mtime), the inode; rewriting it in place with
//! the same size and its mtime set back, the ctime, which no program can set. The one gap of
//! timestamps is their granularity (a write in the same clock tick as the stamp): a file
//! changed less than [`SETTLE`] ago gets no stamp, so what is remembered was measured from a
//! file that had been still for a while, and any later change moves its ctime past it (git's
//! "racily clean" rule).
//!
//! A SQLite transcript (one `session_id` of `transcript_events`: a reset opens a new one, so
//! the window is in the cache's key already): the rows' count, first and last `seq`, the sum
//! of the seqs and of the stored bytes (`octet_length`, read from the record headers), the
//! last row's stored bytes hashed, and the rewrite generation. An append moves the last seq
//! and the sums; deleted rows, the count and the sums; a `maxLines` trim, the generation.
//!
//! A SQLite database as a whole ([`of_database`]): its file stamped as a file, and its
//! `-wal` by its identity, size, mtime and its header and last frame. Every commit writes
//! one of them (a WAL commit appends frames to the `-wal`, a checkpoint writes the
//! database, a rollback-journal commit the database), so while the database's stamp is
//! what it was, so is the stamp of every transcript in it: a run that finds a database as a
//! previous run left it need not stamp its thousands of sessions one by one (issue 31).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;
use std::time::Duration;

/// How long a file must have been still to be stamped (see the module docs).
pub const SETTLE: Duration = Duration::from_secs(1);

/// Bytes hashed at each end of a file.
const END_BYTES: u64 = 4096;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Stamp {
    #[serde(rename_all = "camelCase")]
    File {
        dev: u64,
        ino: u64,
        size: u64,
        mtime_ns: i64,
        ctime_ns: i64,
        /// SHA-256 (hex, 32 digits) of the first and last [`END_BYTES`].
        ends: String,
    },
    #[serde(rename_all = "camelCase")]
    Rows {
        rows: u64,
        first_seq: Option<i64>,
        last_seq: Option<i64>,
        seq_sum: i64,
        stored_bytes: u64,
        /// SHA-256 (hex, 32 digits) of the last row's stored bytes.
        last_row: String,
        generation: Option<String>,
    },
    /// [`of_file_tip`]: the file's identity, size and times, nothing read.
    #[serde(rename_all = "camelCase")]
    FileTip {
        dev: u64,
        ino: u64,
        size: u64,
        mtime_ns: i64,
        ctime_ns: i64,
    },
    /// [`of_rows_tip`]: the ends of a SQLite transcript's rows, nothing summed.
    #[serde(rename_all = "camelCase")]
    RowsTip {
        first_seq: Option<i64>,
        last_seq: Option<i64>,
        last_rowid: Option<i64>,
        last_bytes: u64,
        generation: Option<String>,
    },
}

fn short_hex(d: impl AsRef<[u8]>) -> String {
    hex::encode(&d.as_ref()[..16])
}

/// A file's mtime and ctime in nanoseconds, None when either is within [`SETTLE`] of now (a
/// write in the same tick could follow unseen).
fn settled_times(m: &std::fs::Metadata) -> Option<(i64, i64)> {
    let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
    let (mtime_ns, ctime_ns) = (ns(m.mtime(), m.mtime_nsec()), ns(m.ctime(), m.ctime_nsec()));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos() as i64;
    if now.saturating_sub(mtime_ns.max(ctime_ns)) < SETTLE.as_nanos() as i64 {
        return None;
    }
    Some((mtime_ns, ctime_ns))
}

/// The stamp of a transcript file, None when it cannot be read or changed within
/// [`SETTLE`].
pub fn of_file(path: &Path) -> Option<Stamp> {
    let (f, m) = crate::regular_file::open_with_metadata(path).ok()?;
    let (mtime_ns, ctime_ns) = settled_times(&m)?;
    let size = m.len();
    let mut h = Sha256::new();
    let mut buf = vec![0u8; END_BYTES as usize];
    for at in [0, size.saturating_sub(END_BYTES)] {
        let n = f.read_at(&mut buf, at).ok()?;
        h.update(&buf[..n]);
    }
    Some(Stamp::File {
        dev: m.dev(),
        ino: m.ino(),
        size,
        mtime_ns,
        ctime_ns,
        ends: short_hex(h.finalize()),
    })
}

/// The stamp of a SQLite database file as a whole (see the module docs): [`of_file`] of the
/// database and [`of_wal`] of its `-wal` (or that there is none), hashed; None when either
/// changed within [`SETTLE`] or cannot be read, or while a rollback journal (`-journal`)
/// exists (a write under way).
pub fn of_database(db: &Path) -> Option<String> {
    use crate::sqlite::open::{database_file, side};
    // The side files are beside the file a link leads to, as SQLite keeps them: stamped
    // beside the link, a commit that only grows the `-wal` would not show.
    let db = database_file(db).ok()?;
    if std::fs::symlink_metadata(side(&db, "-journal")).is_ok() {
        return None;
    }
    let wal_path = side(&db, "-wal");
    let wal = match std::fs::symlink_metadata(&wal_path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(_) => return None,
        Ok(_) => Some(of_wal(&wal_path)?),
    };
    let main = of_file(&db)?;
    Some(short_hex(Sha256::digest(format!("{main:?} {wal:?}"))))
}

/// Bytes at the end of a `-wal` that hold its last frame whole, whatever the page size
/// (a 24-byte frame header and a page of at most 64 KiB).
const WAL_LAST_FRAME: u64 = 24 + 65536;

/// A `-wal` file's identity, size and mtime, and a hash of its header (the salts a WAL
/// restart changes) and of its last frame (whose header carries the checksum chained over
/// every frame before it). Not its ctime: SQLite opening a WAL database as root hands the
/// `-wal` to the database's owner (`fchown`), which moves its ctime on every read, without a
/// write. Its mtime settles it as [`of_file`]'s times do.
fn of_wal(path: &Path) -> Option<String> {
    let (f, m) = crate::regular_file::open_with_metadata(path).ok()?;
    let mtime_ns = m
        .mtime()
        .saturating_mul(1_000_000_000)
        .saturating_add(m.mtime_nsec());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos() as i64;
    if now.saturating_sub(mtime_ns) < SETTLE.as_nanos() as i64 {
        return None;
    }
    let size = m.len();
    let mut h = Sha256::new();
    let mut head = [0u8; 32];
    let n = f.read_at(&mut head, 0).ok()?;
    h.update(&head[..n]);
    let mut tail = vec![0u8; WAL_LAST_FRAME.min(size) as usize];
    f.read_exact_at(&mut tail, size.saturating_sub(WAL_LAST_FRAME))
        .ok()?;
    h.update(&tail);
    Some(format!(
        "{} {} {size} {mtime_ns} {}",
        m.dev(),
        m.ino(),
        short_hex(h.finalize())
    ))
}

/// A transcript file's identity, size, mtime and ctime, from one `stat` (the tip a poll
/// compares, [`crate::source::SessionSource::transcript_tip`]); None when it cannot be read
/// or changed within [`SETTLE`], as [`of_file`].
pub fn of_file_tip(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    if !m.is_file() {
        return None;
    }
    let (mtime_ns, ctime_ns) = settled_times(&m)?;
    Some(Stamp::FileTip {
        dev: m.dev(),
        ino: m.ino(),
        size: m.len(),
        mtime_ns,
        ctime_ns,
    })
}

/// The tip of a SQLite transcript's rows ([`crate::sqlite::events::tip`]).
pub fn of_rows_tip(t: crate::sqlite::events::RowsTip) -> Stamp {
    Stamp::RowsTip {
        first_seq: t.first_seq,
        last_seq: t.last_seq,
        last_rowid: t.last_rowid,
        last_bytes: t.last_bytes,
        generation: t.generation,
    }
}

/// The stamp of a transcript's rows from their figures (see the module docs).
pub fn of_rows(f: crate::sqlite::events::RowsFingerprint) -> Stamp {
    Stamp::Rows {
        rows: f.rows,
        first_seq: f.first_seq,
        last_seq: f.last_seq,
        seq_sum: f.seq_sum,
        stored_bytes: f.stored_bytes,
        last_row: short_hex(Sha256::digest(&f.last_row)),
        generation: f.generation,
    }
}
