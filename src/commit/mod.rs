//! The write layer: the only code in clawtop that modifies an operator's files.
//!
//! - [`lock`]: OpenClaw's sidecar `<file>.lock` (O_EXCL + `{pid, createdAt}`), with
//!   OpenClaw's stale rules; RAII release.
//! - [`append`]: append one JSONL entry to a transcript under its lock, after checking
//!   the file is exactly what the preview was computed from; truncate back on failure.
//! - [`store_patch`]: patch one entry of `sessions.json` under `sessions.json.lock`,
//!   splicing only that entry's bytes, temp file + fsync + rename + dir fsync.
//!
//! No terminal, no network. Every error names the file and the cause
//! ([`CommitError`]); [`CommitError::verdict`] says refused or failed (the use cases map it
//! to an exit code).
//!
//! Rollback and writers that ignore the lock: a commit whose later step fails cuts its own
//! appended bytes again, under the same lock, and only when the file is exactly as long as
//! after its write and ends with exactly its bytes. A writer that honours the lock cannot
//! append in between. One that ignores it can, and then the guarantee is: if its bytes landed
//! before the final length check, nothing is cut (ours stay too, and the error says the
//! rollback did not happen); only an append that lands between that check (an `fstat`) and
//! the cut (`ftruncate`, the very next system call) can be lost. POSIX offers no atomic
//! "truncate if length is N", so that window of one system call is the smallest there is;
//! the slower byte comparison runs before the final check, outside it.
//!
//! Test hooks, compiled only with the `test-hooks` cargo feature (the tests enable it through
//! the crate's dev-dependency on itself; a release build has neither hook). First: when the
//! environment variable `CLAWTOP_TEST_COMMIT_STEP_DELAY_US` is set
//! (to a number of microseconds, read once per process), the commit code sleeps that
//! long between its steps (lock taken, file checked, bytes written, fsync, rename, ...).
//! It exists only so the crash test (`tests/commit/crash.rs`) can SIGKILL a child
//! inside the critical section; it changes timing, never behaviour.
//!
//! Second test hook, for races that must be forced rather than hoped for: when
//! `CLAWTOP_TEST_PAUSE_AT` lists steps (comma-separated) and `CLAWTOP_TEST_PAUSE_FIFO`
//! names a FIFO, the process stops at each listed step: it opens that FIFO for writing
//! (blocking until the test opens it for reading), writes the step name and a newline,
//! closes it, then opens `<fifo>.go` for reading and reads it to the end (the test opens
//! it for writing and closes it to let the commit go on). Steps the safety tests use:
//! `store-patched` (transcript or notes appended, locks held, store not yet written) and
//! `rollback-checked` (the appended bytes were found to be ours, not yet cut).

pub mod append;
pub(crate) mod jstext;
pub mod lock;
pub mod store_patch;

use std::io;
use std::path::{Path, PathBuf};
#[cfg(feature = "test-hooks")]
use std::sync::OnceLock;
#[cfg(feature = "test-hooks")]
use std::time::Duration;

pub use append::{
    AppendOutcome, Expect, HeldAppend, append_line, append_line_held, append_line_with,
};
pub use lock::{LockGuard, LockHolder, LockOptions, LockStatus, StaleReason};
pub use store_patch::{
    PatchOp, PatchOutcome, StoreLock, StorePatchOptions, compaction_patch, flush_patch,
    patch_store_entry, patch_store_entry_with, require_string_field,
};

/// One row of a file-backed session store: what a local commit updates next to the
/// transcript or the memory file. The previewed `session_id` is checked under the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreRow {
    /// The agent's `sessions.json`.
    pub store_path: PathBuf,
    pub session_key: String,
    pub session_id: String,
}

/// Errors of the write layer. Each names the file involved and the cause.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// A live process holds the lock (`pid` is `None` when the lock file is being
    /// written right now and has no readable owner yet).
    #[error("session busy: {} holds {}", fmt_pid(*.pid), .lock_path.display())]
    Busy {
        pid: Option<i32>,
        lock_path: PathBuf,
    },

    /// The file is not what the preview was computed from.
    #[error("{}: {reason}", .path.display())]
    Changed { path: PathBuf, reason: String },

    /// The request itself is unsafe or malformed (e.g. a line with a raw newline).
    #[error("refused: {reason}")]
    Refused { reason: String },

    /// The session key is not (or no longer) in the store.
    #[error("{}: no session entry with key {key:?}", .path.display())]
    MissingEntry { path: PathBuf, key: String },

    #[error("{}: {op}: {source}", .path.display())]
    Io {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: io::Error,
    },

    #[error("{}: corrupt: {detail}", .path.display())]
    Corrupt { path: PathBuf, detail: String },
}

fn fmt_pid(pid: Option<i32>) -> String {
    match pid {
        Some(p) => format!("pid {p}"),
        None => "another process (lock file still being written)".to_string(),
    }
}

/// What a domain error says about the operation, for the use cases to turn into an outcome
/// (and an exit code: `crate::usecase::Exit`, the only place codes are numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Refused for safety; nothing was written (busy, changed since the preview, unsafe).
    Refused,
    /// The operation failed (I/O, a corrupt file, the model).
    Failed,
    /// What was asked is malformed (a bad date).
    Usage,
}

impl CommitError {
    /// Refused for safety (busy, changed since preview, unsafe request, entry gone), or
    /// failed (I/O, corrupt file).
    pub fn verdict(&self) -> Verdict {
        match self {
            CommitError::Busy { .. }
            | CommitError::Changed { .. }
            | CommitError::Refused { .. }
            // The entry existed at preview time; its absence now means the store changed.
            | CommitError::MissingEntry { .. } => Verdict::Refused,
            CommitError::Io { .. } | CommitError::Corrupt { .. } => Verdict::Failed,
        }
    }

    pub(crate) fn io(path: &Path, op: &'static str, source: io::Error) -> Self {
        CommitError::Io {
            path: path.to_path_buf(),
            op,
            source,
        }
    }

    pub(crate) fn corrupt(path: &Path, detail: impl Into<String>) -> Self {
        CommitError::Corrupt {
            path: path.to_path_buf(),
            detail: detail.into(),
        }
    }

    pub(crate) fn changed(path: &Path, reason: impl Into<String>) -> Self {
        CommitError::Changed {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }
}

/// Test-only pacing between commit steps; see the module docs. Without the `test-hooks`
/// feature (every release build) it is empty, so no environment variable can stall a commit.
#[cfg(feature = "test-hooks")]
pub(crate) fn test_step(name: &str) {
    static DELAY: OnceLock<Option<Duration>> = OnceLock::new();
    let delay = DELAY.get_or_init(|| {
        std::env::var("CLAWTOP_TEST_COMMIT_STEP_DELAY_US")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|us| *us > 0)
            .map(Duration::from_micros)
    });
    if let Some(d) = delay {
        std::thread::sleep(*d);
    }
    test_pause(name);
}

#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub(crate) fn test_step(_name: &str) {}

/// The FIFO pause of the module docs.
#[cfg(feature = "test-hooks")]
fn test_pause(name: &str) {
    use std::io::{Read, Write};
    let Some(at) = std::env::var_os("CLAWTOP_TEST_PAUSE_AT") else {
        return;
    };
    if !at.to_string_lossy().split(',').any(|s| s == name) {
        return;
    }
    let Some(fifo) = std::env::var_os("CLAWTOP_TEST_PAUSE_FIFO") else {
        return;
    };
    if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&fifo) {
        let _ = writeln!(f, "{name}");
    }
    let mut go = fifo;
    go.push(".go");
    if let Ok(mut f) = std::fs::File::open(&go) {
        let mut sink = Vec::new();
        let _ = f.read_to_end(&mut sink);
    }
}

/// The last check before a rollback cuts: the file is still exactly `len` bytes long. See
/// "Rollback and writers that ignore the lock" in the module docs.
pub(crate) fn unchanged_len(f: &std::fs::File, len: u64) -> io::Result<bool> {
    Ok(f.metadata()?.len() == len)
}

/// Makes a file-size limit (`ulimit -f`, RLIMIT_FSIZE) an ordinary write error for this
/// process. By default the kernel kills a process whose write crosses the limit (SIGXFSZ)
/// after the bytes under the limit are written: a torn transcript line and lock files left
/// behind. Caught (a handler that only raises a flag nobody reads; unlike SIG_IGN it is not
/// inherited by the programs clawtop starts), the write fails with EFBIG instead, and the write layer's rollback cuts
/// the partial bytes and releases its locks as for any other I/O error. The binary calls this
/// first thing; a library user that appends through [`append`] should too (a signal
/// disposition is the process's to choose, so the library does not change it by itself).
pub fn ignore_file_size_signal() {
    let caught = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    if let Err(e) = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, caught) {
        tracing::warn!(error = %e, "could not catch SIGXFSZ; a file-size limit ends the process");
    }
}

/// fsync a directory so a rename/create/unlink in it is durable.
pub(crate) fn fsync_dir(dir: &Path) -> Result<(), CommitError> {
    let d = std::fs::File::open(dir).map_err(|e| CommitError::io(dir, "open directory", e))?;
    d.sync_all()
        .map_err(|e| CommitError::io(dir, "fsync directory", e))
}

/// `dir` of a path, `.` for a bare file name.
pub(crate) fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Permission bits of a store file; a store commit leaves it 0600 (OpenClaw's mode), so the
/// confirmation names a change when this differs.
pub fn store_mode(path: &std::path::Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode() & 0o777)
}

/// The mode a store commit leaves.
pub const STORE_MODE: u32 = 0o600;
