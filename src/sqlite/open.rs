//! Opening an OpenClaw database strictly read-only (docs/sqlite-host.md §2).
//!
//! The obvious `mode=ro` open is not read-only on disk: for a WAL database SQLite creates
//! `-wal` and `-shm` next to it when they are missing, and a reader writes its read marks
//! into an existing `-shm`. Copying only the main file misses the data committed in the WAL,
//! and `immutable=1` ignores the WAL. So the way in depends on what is on disk, checked in
//! this order:
//!
//! 1. **Rollback-journal database** (header bytes 18/19 are 1): `mode=ro` creates nothing.
//! 2. **WAL database with both `-wal` and `-shm` present** (a live writer, or a stop that left
//!    them): `mode=ro&readonly_shm=1`. SQLite maps the `-shm` read-only and, when it cannot
//!    trust it, rebuilds the WAL index in its own heap from the `-wal`: the committed WAL
//!    content is seen and no byte is written.
//! 3. **WAL database without a `-wal`** (checkpointed, no connection open: SQLite removes the
//!    WAL on the last close): `mode=ro&immutable=1`, which takes no locks and opens no side
//!    files. Immutable reads are only trusted while nothing writes, so the file's identity
//!    (inode, size, mtime) and the absence of `-wal` are checked again after every read
//!    ([`ReadOnlyDb::check_unchanged`]); a change means "read again", never stale figures.
//! 4. **WAL database with a `-wal` but no `-shm`** (unusual: an exclusive-mode writer, or a
//!    crash): the main file and the `-wal` are copied into a private temp dir and the copy is
//!    opened; the same identity check guards the copy. SQLite cannot read such a WAL
//!    read-only without writing a `-shm` beside it, hence the copy. It is made once per
//!    process and state of the files (later opens of unchanged files reuse it), in
//!    `$TMPDIR/clawtop-db-<pid>-*`; the process removes its copies when it exits
//!    ([`remove_copies`]), and a new copy first removes those of processes that are gone
//!    (killed before they could).
//!
//! A database path that is a symbolic link is resolved first: SQLite itself follows the link
//! and looks for `-wal`/`-shm` beside the file it points to, so that is where the checks
//! above look too (a link's own `-wal` would not exist, and the WAL would be ignored).
//!
//! The database is first opened by clawtop itself, non-blocking (`crate::regular_file`), to
//! read its header, and its `-wal`/`-shm` are checked to be regular files when present: SQLite
//! opens them with a blocking `open`, which a FIFO there would hold forever.
//!
//! Every connection also runs `PRAGMA query_only=ON` and never checkpoints (read-only
//! connections cannot). A busy or locked database is retried for [`busy_timeout`] and then
//! reported as such, naming the file; it never blocks forever.

use rusqlite::{Connection, OpenFlags};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a busy or locked database is retried before giving up (default 3 s;
/// `CLAWTOP_SQLITE_BUSY_MS` overrides it, for tests and slow disks).
pub fn busy_timeout() -> Duration {
    std::env::var("CLAWTOP_SQLITE_BUSY_MS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_secs(3))
}

/// Why a database could not be read. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("cannot read {}: {message}", .path.display())]
    Open { path: PathBuf, message: String },
    #[error("{} is not a SQLite database or is damaged ({message})", .path.display())]
    Corrupt { path: PathBuf, message: String },
    #[error("{} is locked by another process (still busy after {} ms); clawtop only reads it, try again when the writer is done", .path.display(), .waited_ms)]
    Busy { path: PathBuf, waited_ms: u64 },
    #[error("{} kept changing while it was read ({tries} tries); try again", .path.display())]
    Unstable { path: PathBuf, tries: u32 },
    #[error("{}: {message}", .path.display())]
    Query { path: PathBuf, message: String },
}

impl DbError {
    /// Classifies a SQLite error for `path`.
    pub fn from_sqlite(path: &Path, e: rusqlite::Error) -> DbError {
        use rusqlite::ErrorCode as C;
        let path = path.to_path_buf();
        match e.sqlite_error_code() {
            Some(C::DatabaseBusy) | Some(C::DatabaseLocked) => DbError::Busy {
                path,
                waited_ms: busy_timeout().as_millis() as u64,
            },
            Some(C::NotADatabase) | Some(C::DatabaseCorrupt) => DbError::Corrupt {
                path,
                message: e.to_string(),
            },
            _ => DbError::Query {
                path,
                message: e.to_string(),
            },
        }
    }
}

/// Which of the ways in of the module docs was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    Rollback,
    WalReadOnlyShm,
    Immutable,
    PrivateCopy,
}

impl OpenMode {
    pub fn describe(self) -> &'static str {
        match self {
            OpenMode::Rollback => "read-only (rollback journal)",
            OpenMode::WalReadOnlyShm => "read-only, WAL seen through a read-only -shm",
            OpenMode::Immutable => "read-only snapshot of a checkpointed WAL database",
            OpenMode::PrivateCopy => "private copy of the database and its -wal",
        }
    }
}

/// What identifies the on-disk state an immutable or copied read was taken from.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fingerprint {
    main: Option<(u64, u64, u64, i64, i64)>,
    wal: Option<(u64, u64, i64, i64)>,
}

fn fingerprint(path: &Path) -> Fingerprint {
    let main = fs::metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino(), m.size(), m.mtime(), m.mtime_nsec()));
    let wal = fs::metadata(side(path, "-wal"))
        .ok()
        .map(|m| (m.ino(), m.size(), m.mtime(), m.mtime_nsec()));
    Fingerprint { main, wal }
}

/// The file a database path leads to: the link's target when `path` is a symbolic link,
/// where SQLite keeps the side files (module docs), else `path` itself.
pub fn database_file(path: &Path) -> std::io::Result<std::borrow::Cow<'_, Path>> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path).map(std::borrow::Cow::Owned),
        _ => Ok(std::borrow::Cow::Borrowed(path)),
    }
}

/// The `-wal` beside the file a database path leads to ([`database_file`]), where SQLite
/// itself looks.
pub fn wal_of(path: &Path) -> PathBuf {
    side(
        &database_file(path).unwrap_or(std::borrow::Cow::Borrowed(path)),
        "-wal",
    )
}

/// `<path><suffix>`, e.g. the `-wal` beside a database.
pub fn side(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// A database opened by one of the read-only ways in.
pub struct ReadOnlyDb {
    pub path: PathBuf,
    pub mode: OpenMode,
    conn: Connection,
    /// The file read: `path`, or where it leads when it is a symbolic link.
    file: PathBuf,
    /// For immutable and copied reads: the state the read must still match.
    guard: Option<Fingerprint>,
    _copy: Option<std::sync::Arc<tempfile::TempDir>>,
}

impl std::fmt::Debug for ReadOnlyDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadOnlyDb")
            .field("path", &self.path)
            .field("mode", &self.mode)
            .finish()
    }
}

/// The journal mode written in the database header: bytes 18 and 19 are 2 for WAL.
fn header_is_wal(path: &Path) -> Result<bool, DbError> {
    use std::io::Read;
    let mut head = [0u8; 100];
    let mut f = crate::regular_file::open(path).map_err(|e| DbError::Open {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let n = f.read(&mut head).map_err(|e| DbError::Open {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    if n < 100 || &head[..16] != b"SQLite format 3\0" {
        return Err(DbError::Corrupt {
            path: path.to_path_buf(),
            message: if n < 100 {
                format!("{n} bytes, shorter than a SQLite header")
            } else {
                "no SQLite header".into()
            },
        });
    }
    Ok(head[18] == 2 || head[19] == 2)
}

fn uri(path: &Path, params: &str) -> String {
    // Percent-encode what a URI path cannot hold as is.
    let mut s = String::from("file:");
    for b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'%' | b'?' | b'#' | b' ' | 0..=0x1f | 0x7f..=0xff => {
                s.push_str(&format!("%{b:02X}"));
            }
            _ => s.push(*b as char),
        }
    }
    s.push('?');
    s.push_str(params);
    s
}

/// A private copy of a WAL database without `-shm` (way in 4 of the module docs).
struct Copy {
    source: PathBuf,
    state: Fingerprint,
    dir: std::sync::Arc<tempfile::TempDir>,
}

/// This process's copies: the newest per source, and every directory ever made (removed at
/// exit even while a thread still holds a connection to it).
static COPIES: std::sync::Mutex<(Vec<Copy>, Vec<PathBuf>)> =
    std::sync::Mutex::new((Vec::new(), Vec::new()));

fn copies() -> std::sync::MutexGuard<'static, (Vec<Copy>, Vec<PathBuf>)> {
    COPIES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes every private copy this process made; for the last step before it exits.
pub fn remove_copies() {
    let mut c = copies();
    c.0.clear();
    for d in c.1.drain(..) {
        let _ = fs::remove_dir_all(d);
    }
}

/// Removes `clawtop-db-<pid>-*` directories of processes that no longer run.
fn sweep_dead_copies(tmp: &Path) {
    let Ok(rd) = fs::read_dir(tmp) else { return };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("clawtop-db-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() as i32
            && !crate::commit::lock::pid_alive(pid)
            && e.file_type().is_ok_and(|t| t.is_dir())
        {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// The copy of `file` (and its `-wal`) for the files' state `now`: the one made earlier when
/// nothing changed since, else a new one.
fn private_copy(
    file: &Path,
    shown: &Path,
    now: &Fingerprint,
) -> Result<(PathBuf, std::sync::Arc<tempfile::TempDir>), DbError> {
    let io = |e: std::io::Error| DbError::Open {
        path: shown.to_path_buf(),
        message: format!("cannot make a private copy: {e}"),
    };
    let mut c = copies();
    if let Some(hit) = c.0.iter().find(|c| c.source == file && c.state == *now) {
        return Ok((hit.dir.path().join("copy.sqlite"), hit.dir.clone()));
    }
    let tmp = std::env::temp_dir();
    sweep_dead_copies(&tmp);
    let dir = tempfile::Builder::new()
        .prefix(&format!("clawtop-db-{}-", std::process::id()))
        .tempdir_in(&tmp)
        .map_err(io)?;
    c.1.push(dir.path().to_path_buf());
    let copy = dir.path().join("copy.sqlite");
    // The -wal first: a checkpoint between the two copies only moves pages the copied -wal
    // still holds.
    fs::copy(side(file, "-wal"), side(&copy, "-wal")).map_err(io)?;
    fs::copy(file, &copy).map_err(io)?;
    let dir = std::sync::Arc::new(dir);
    c.0.retain(|c| c.source != file);
    c.0.push(Copy {
        source: file.to_path_buf(),
        state: now.clone(),
        dir: dir.clone(),
    });
    Ok((copy, dir))
}

impl ReadOnlyDb {
    /// Opens `path` without creating, changing or leaving any file beside it.
    pub fn open(path: &Path) -> Result<ReadOnlyDb, DbError> {
        tracing::debug!(target: "clawtop::io", io = "database opened", "a database opened");
        // A link is read as the file it points to (module docs); errors name `path`.
        let resolved = database_file(path).map_err(|e| DbError::Open {
            path: path.to_path_buf(),
            message: format!("a symbolic link that leads nowhere: {e}"),
        })?;
        let file: &Path = &resolved;
        // Taken before anything is read or copied, so a write during the read shows.
        let before = fingerprint(file);
        let wal = header_is_wal(file).map_err(|e| match e {
            DbError::Open { message, .. } => DbError::Open {
                path: path.to_path_buf(),
                message,
            },
            DbError::Corrupt { message, .. } => DbError::Corrupt {
                path: path.to_path_buf(),
                message,
            },
            other => other,
        })?;
        // SQLite opens the side files itself, with a blocking open: one that is there but
        // is not a regular file (a FIFO) is refused here, by name.
        for suffix in ["-wal", "-shm"] {
            let p = side(file, suffix);
            match crate::regular_file::check(&p) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(DbError::Open {
                        path: p,
                        message: e.to_string(),
                    });
                }
                _ => {}
            }
        }
        let has_wal = side(file, "-wal").exists();
        let has_shm = side(file, "-shm").exists();
        let (mode, target, params, copy) = if !wal {
            (OpenMode::Rollback, file.to_path_buf(), "mode=ro", None)
        } else if has_wal && has_shm {
            (
                OpenMode::WalReadOnlyShm,
                file.to_path_buf(),
                "mode=ro&readonly_shm=1",
                None,
            )
        } else if !has_wal {
            (
                OpenMode::Immutable,
                file.to_path_buf(),
                "mode=ro&immutable=1",
                None,
            )
        } else {
            let (copy, dir) = private_copy(file, path, &before)?;
            (OpenMode::PrivateCopy, copy, "", Some(dir))
        };
        let guard = matches!(mode, OpenMode::Immutable | OpenMode::PrivateCopy).then_some(before);
        let flags = if mode == OpenMode::PrivateCopy {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX
        } else {
            OpenFlags::SQLITE_OPEN_READ_ONLY
                | OpenFlags::SQLITE_OPEN_URI
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
        };
        let conn = if mode == OpenMode::PrivateCopy {
            Connection::open_with_flags(&target, flags)
        } else {
            Connection::open_with_flags(uri(&target, params), flags)
        }
        .map_err(|e| DbError::from_sqlite(path, e))?;
        conn.busy_timeout(busy_timeout())
            .map_err(|e| DbError::from_sqlite(path, e))?;
        conn.pragma_update(None, "query_only", true)
            .map_err(|e| DbError::from_sqlite(path, e))?;
        let db = ReadOnlyDb {
            path: path.to_path_buf(),
            file: file.to_path_buf(),
            mode,
            conn,
            guard,
            _copy: copy,
        };
        // Reading the schema now turns "not a database" into an error here, not later.
        db.conn
            .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
            .map_err(|e| DbError::from_sqlite(path, e))?;
        Ok(db)
    }

    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// After an immutable or copied read: true while the file is still what was read.
    /// Always true for the modes that follow SQLite's own locking.
    pub fn check_unchanged(&self) -> bool {
        match &self.guard {
            None => true,
            Some(g) => *g == fingerprint(&self.file),
        }
    }

    /// Runs `read` on a fresh connection until it saw a stable database (at most 4 tries).
    pub fn read_stable<T>(
        path: &Path,
        read: impl FnMut(&ReadOnlyDb) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        Self::read_stable_kept(path, read).map(|(out, _)| out)
    }

    /// [`Self::read_stable`], handing back the connection the read was made through: a
    /// caller that reads the same database next (discovery, then the listing) does not
    /// open it and parse its schema again.
    pub fn read_stable_kept<T>(
        path: &Path,
        mut read: impl FnMut(&ReadOnlyDb) -> Result<T, DbError>,
    ) -> Result<(T, ReadOnlyDb), DbError> {
        const TRIES: u32 = 4;
        for attempt in 1..=TRIES {
            let db = ReadOnlyDb::open(path)?;
            let out = read(&db);
            if db.check_unchanged() {
                return out.map(|out| (out, db));
            }
            tracing::debug!(path = %path.display(), attempt, "database changed during an immutable read; reading again");
            std::thread::sleep(Duration::from_millis(20 * attempt as u64));
        }
        Err(DbError::Unstable {
            path: path.to_path_buf(),
            tries: TRIES,
        })
    }

    /// `PRAGMA user_version`.
    pub fn user_version(&self) -> Result<i64, DbError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| DbError::from_sqlite(&self.path, e))
    }

    /// Whether a table of that name exists.
    pub fn has_table(&self, name: &str) -> Result<bool, DbError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                [name],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(|e| DbError::from_sqlite(&self.path, e))
    }

    /// A number that changes whenever another connection commits (cheap; for live refresh).
    /// For immutable and copied reads, the file fingerprint stands in (see the module docs).
    pub fn data_version(&self) -> Result<i64, DbError> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(|e| DbError::from_sqlite(&self.path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A WAL database whose committed data is only in its `-wal`, with no `-shm`.
    fn wal_without_shm(dir: &Path) -> PathBuf {
        let p = dir.join("db.sqlite");
        let w = Connection::open(&p).unwrap();
        w.pragma_update(None, "journal_mode", "wal").unwrap();
        w.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        w.execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (7);")
            .unwrap();
        // Keep the WAL on close, as a killed writer would.
        assert!(
            w.set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true
            )
            .unwrap()
        );
        drop(w);
        fs::remove_file(side(&p, "-shm")).unwrap();
        assert!(side(&p, "-wal").exists());
        p
    }

    #[test]
    fn a_wal_without_shm_is_copied_once_while_it_does_not_change() {
        let d = tempfile::tempdir().unwrap();
        let p = wal_without_shm(d.path());
        let read = |db: &ReadOnlyDb| -> i64 {
            db.conn()
                .query_row("SELECT x FROM t", [], |r| r.get(0))
                .unwrap()
        };
        let a = ReadOnlyDb::open(&p).unwrap();
        let b = ReadOnlyDb::open(&p).unwrap();
        assert_eq!(a.mode, OpenMode::PrivateCopy);
        assert_eq!((read(&a), read(&b)), (7, 7));
        let (ca, cb) = (a._copy.clone().unwrap(), b._copy.clone().unwrap());
        assert!(std::sync::Arc::ptr_eq(&ca, &cb), "one copy for both reads");
        let dir = ca.path().to_path_buf();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(&format!("clawtop-db-{}-", std::process::id())));
        // This test's copy only: other tests of this process may hold theirs.
        copies().0.retain(|c| c.source != p);
        drop((a, b, ca, cb));
        assert!(!dir.exists(), "removed with its last reader");
        assert!(
            !side(&p, "-shm").exists(),
            "nothing written beside the database"
        );
    }

    #[test]
    fn copies_of_processes_that_are_gone_are_swept() {
        let d = tempfile::tempdir().unwrap();
        let mut c = std::process::Command::new("true").spawn().unwrap();
        let dead = c.id();
        c.wait().unwrap();
        let gone = d.path().join(format!("clawtop-db-{dead}-abc"));
        let ours = d
            .path()
            .join(format!("clawtop-db-{}-abc", std::process::id()));
        let init = d.path().join("clawtop-db-1-abc");
        let other = d.path().join("clawtop-demo-1-abc");
        for p in [&gone, &ours, &init, &other] {
            fs::create_dir(p).unwrap();
        }
        sweep_dead_copies(d.path());
        assert!(!gone.exists());
        assert!(ours.exists() && init.exists() && other.exists());
    }

    #[test]
    fn uri_escapes() {
        assert_eq!(
            uri(Path::new("/a b/c?d#e%"), "mode=ro"),
            "file:/a%20b/c%3Fd%23e%25?mode=ro"
        );
    }
}
