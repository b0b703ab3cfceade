//! Committing a flush (docs/commit-protocol.md §3): append exactly the previewed notes to
//! `<workspace>/memory/<date>.md`, then record the flush on the store entry.
//!
//! Order, and why:
//! 1. Check the date, the notes, the workspace (exists, is a directory, writable — tested
//!    by creating and removing a probe file, because root ignores permission bits but not
//!    read-only mounts), `memory/` (a directory if present) and the target (a regular
//!    file if present, never a symlink). Any problem here: nothing is touched.
//! 2. With a store: take `sessions.json.lock` ([`commit::patch_store_entry`]); under it,
//!    check the entry still has the previewed `sessionId` and a valid `compactionCount`,
//!    then append the notes, then write the store patch (`memoryFlushAt = now`,
//!    `memoryFlushCompactionCount = compactionCount ?? 0`; every other byte unchanged).
//!    If the store write fails after the append, the append is undone (the file is
//!    truncated back, or removed if we created it) when the file still ends with exactly
//!    our bytes; the error says whether that happened.
//! 3. `NO_REPLY` (or blank notes): no file is written at all, the store is still patched.
//!
//! The append: one `O_APPEND` write of `separator + notes + "\n"?`, fsynced; on a failed
//! write or fsync the file is truncated back to its old length. The separator keeps
//! exactly one blank line between old and new text, because in Markdown a line right
//! after a paragraph continues that paragraph: nothing for an empty file, `"\n\n"` after
//! text without a final newline, `"\n"` after a single final newline, nothing after a
//! blank line. The notes are written as previewed, plus a final `"\n"` if they lack one.
//! A new `memory/` gets the process umask's normal directory mode, a new file the normal
//! file mode; when clawtop runs as root, new ones are given the workspace's owner so the
//! agent can keep writing them.

use super::FlushError;
use super::prompts::is_no_reply;
use super::workspace::{is_valid_date, target_path};
use crate::commit::PatchOp;
use crate::commit::StoreRow;
use crate::commit::{self, CommitError};
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use serde::Serialize;
use serde_json::Value;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// What a commit did. The store figures are the values written to the store (`None`
/// without a store).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlushCommitted {
    pub target: PathBuf,
    /// Bytes appended (separator + notes + final newline); 0 for `NO_REPLY`.
    pub appended_bytes: u64,
    /// File offset where the notes begin (after the separator); `None` when nothing was written.
    pub notes_offset: Option<u64>,
    pub created_memory_dir: bool,
    pub created_file: bool,
    pub memory_flush_at: Option<i64>,
    pub memory_flush_compaction_count: Option<u64>,
}

/// The separator between `tail` (the last bytes of the existing file, up to 2) and new notes.
pub fn separator(file_len: u64, tail: &[u8]) -> &'static str {
    if file_len == 0 {
        ""
    } else if !tail.ends_with(b"\n") {
        "\n\n"
    } else if file_len >= 2 && tail.ends_with(b"\n\n") {
        ""
    } else {
        "\n"
    }
}

/// The exact bytes appended to a file of length `file_len` ending in `tail`.
pub fn append_bytes(file_len: u64, tail: &[u8], notes: &str) -> (usize, Vec<u8>) {
    let sep = separator(file_len, tail);
    let mut out = Vec::with_capacity(sep.len() + notes.len() + 1);
    out.extend_from_slice(sep.as_bytes());
    out.extend_from_slice(notes.as_bytes());
    if !notes.ends_with('\n') {
        out.push(b'\n');
    }
    (sep.len(), out)
}

fn io_err(path: &Path, op: &'static str) -> impl FnOnce(io::Error) -> FlushError + use<> {
    let path = path.to_path_buf();
    move |source| FlushError::Io { path, op, source }
}

fn fsync_dir(dir: &Path) -> Result<(), FlushError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir, "fsync directory"))
}

fn probe_writable(dir: &Path) -> io::Result<()> {
    let id = uuid::Uuid::new_v4().simple().to_string();
    let probe = dir.join(format!(
        ".clawtop-write-probe-{}-{}",
        std::process::id(),
        &id[..8]
    ));
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&probe)?;
    fs::remove_file(&probe)
}

/// The refusal for a symlink where clawtop would create or write below the workspace.
fn link_refusal(path: &Path) -> FlushError {
    let reason = match fs::read_link(path) {
        Ok(to) if fs::metadata(path).is_err() => format!(
            "is a symbolic link to {}, which does not exist; clawtop does not write through links below the workspace (make it a directory, or remove it)",
            to.display()
        ),
        Ok(to) => format!(
            "is a symbolic link to {}; clawtop writes notes only inside the workspace and does not follow links below it",
            to.display()
        ),
        Err(_) => "is a symbolic link; clawtop does not write through links below the workspace"
            .to_string(),
    };
    FlushError::Target {
        path: path.to_path_buf(),
        reason,
    }
}

/// Step 1: everything that can be checked without writing. Returns whether the notes
/// will be written.
fn preflight(
    workspace: &Path,
    date: &str,
    notes: &str,
    no_reply: bool,
) -> Result<bool, FlushError> {
    if !is_valid_date(date) {
        return Err(FlushError::InvalidDate(date.to_string()));
    }
    let silent_text = notes.trim().is_empty() || is_no_reply(notes);
    if no_reply && !silent_text {
        return Err(FlushError::Refused {
            reason: "the flush is marked NO_REPLY but notes were given; clear the notes or unmark NO_REPLY".into(),
        });
    }
    let write = !no_reply && !silent_text;

    match fs::metadata(workspace) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(FlushError::WorkspaceMissing {
                path: workspace.to_path_buf(),
            });
        }
        Err(e) => {
            return Err(FlushError::WorkspaceReadOnly {
                path: workspace.to_path_buf(),
                source: e,
            });
        }
        Ok(m) if !m.is_dir() => {
            return Err(FlushError::WorkspaceNotDir {
                path: workspace.to_path_buf(),
            });
        }
        Ok(_) => {}
    }
    probe_writable(workspace).map_err(|source| FlushError::WorkspaceReadOnly {
        path: workspace.to_path_buf(),
        source,
    })?;

    if write {
        let memory = workspace.join("memory");
        match fs::symlink_metadata(&memory) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(FlushError::Io {
                    path: memory,
                    op: "stat",
                    source: e,
                });
            }
            Ok(m) if m.file_type().is_symlink() => {
                return Err(link_refusal(&memory));
            }
            Ok(m) if !m.is_dir() => {
                return Err(FlushError::Target {
                    path: memory,
                    reason: "exists but is not a directory".into(),
                });
            }
            Ok(_) => {
                probe_writable(&memory).map_err(|source| FlushError::WorkspaceReadOnly {
                    path: memory.clone(),
                    source,
                })?;
            }
        }
        let target = target_path(workspace, date);
        match fs::symlink_metadata(&target) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(FlushError::Io {
                    path: target,
                    op: "stat",
                    source: e,
                });
            }
            Ok(m) if m.file_type().is_symlink() => {
                return Err(FlushError::Target {
                    path: target,
                    reason: "is a symbolic link; clawtop does not write through links".into(),
                });
            }
            Ok(m) if !m.file_type().is_file() => {
                return Err(FlushError::Target {
                    path: target,
                    reason: format!(
                        "exists but is {}, not a regular file",
                        crate::regular_file::describe(m.file_type())
                    ),
                });
            }
            Ok(_) => {}
        }
    }
    Ok(write)
}

/// One finished append, enough to undo it.
#[derive(Debug, Clone)]
struct Appended {
    target: PathBuf,
    old_len: u64,
    bytes: Vec<u8>,
    sep_len: usize,
    created_file: bool,
    created_dir: bool,
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// As root, hand a file we created to the workspace's owner (best effort).
fn give_to_owner(path: &Path, owner: Option<(u32, u32)>) {
    if let Some((uid, gid)) = owner {
        if is_root() && (uid != 0 || gid != 0) {
            if let Err(e) = std::os::unix::fs::chown(path, Some(uid), Some(gid)) {
                tracing::warn!(path = %path.display(), error = %e, "could not give the new file to the workspace owner");
            }
        }
    }
}

fn open_dir_nofollow(dir: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC).bits() as i32)
        .open(dir)
}

/// `openat(dir, name, O_RDWR|O_APPEND|O_NOFOLLOW|O_NONBLOCK[|O_CREAT|O_EXCL])`.
fn open_in_dir(dir: &File, name: &str, create_new: bool) -> io::Result<File> {
    // O_NONBLOCK: a FIFO in the file's place must not block the open (it is refused below).
    let mut flags =
        OFlags::RDWR | OFlags::APPEND | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
    if create_new {
        flags |= OFlags::CREATE | OFlags::EXCL;
    }
    let fd = rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(0o666))?;
    Ok(File::from(fd))
}

fn open_error(target: &Path, e: io::Error) -> FlushError {
    if e.raw_os_error() == Some(Errno::LOOP.raw_os_error()) {
        FlushError::Target {
            path: target.to_path_buf(),
            reason: "is a symbolic link; clawtop does not write through links".into(),
        }
    } else {
        FlushError::Io {
            path: target.to_path_buf(),
            op: "open",
            source: e,
        }
    }
}

fn append_notes(workspace: &Path, date: &str, notes: &str) -> Result<Appended, FlushError> {
    let owner = fs::metadata(workspace).ok().map(|m| (m.uid(), m.gid()));
    let memory = workspace.join("memory");
    let created_dir = match fs::create_dir(&memory) {
        Ok(()) => {
            give_to_owner(&memory, owner);
            if let Err(e) = fsync_dir(workspace) {
                let _ = fs::remove_dir(&memory);
                return Err(e);
            }
            true
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match fs::symlink_metadata(&memory) {
            Ok(m) if m.file_type().is_symlink() => return Err(link_refusal(&memory)),
            Ok(m) if m.is_dir() => false,
            _ => {
                return Err(FlushError::Target {
                    path: memory,
                    reason: "exists but is not a directory".into(),
                });
            }
        },
        Err(e) => {
            return Err(FlushError::Io {
                path: memory,
                op: "create directory",
                source: e,
            });
        }
    };
    // The file is opened relative to a handle on `memory/` taken without following links,
    // so a link swapped in after the checks above is refused rather than followed.
    let dir = match open_dir_nofollow(&memory) {
        Ok(d) => d,
        Err(e) => {
            if created_dir {
                let _ = fs::remove_dir(&memory);
            }
            return Err(
                if e.raw_os_error() == Some(Errno::LOOP.raw_os_error())
                    || e.raw_os_error() == Some(Errno::NOTDIR.raw_os_error())
                {
                    link_refusal(&memory)
                } else {
                    FlushError::Io {
                        path: memory,
                        op: "open directory",
                        source: e,
                    }
                },
            );
        }
    };
    let target = target_path(workspace, date);
    let name = format!("{date}.md");
    let open = |create_new: bool| open_in_dir(&dir, &name, create_new);
    let (file, created_file) = match open(true) {
        Ok(f) => (f, true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            (open(false).map_err(|e| open_error(&target, e))?, false)
        }
        Err(e) => {
            let err = open_error(&target, e);
            if created_dir {
                let _ = fs::remove_dir(&memory);
            }
            return Err(err);
        }
    };
    let undo_create = |err: FlushError| {
        if created_file {
            let _ = fs::remove_file(&target);
        }
        if created_dir {
            let _ = fs::remove_dir(&memory);
        }
        err
    };
    let meta = file
        .metadata()
        .map_err(io_err(&target, "stat"))
        .map_err(undo_create)?;
    if !meta.file_type().is_file() {
        return Err(FlushError::Target {
            path: target.clone(),
            reason: format!(
                "is {}, not a regular file",
                crate::regular_file::describe(meta.file_type())
            ),
        });
    }
    // Another name for the same file may be outside the workspace (a link planted to make
    // clawtop write somewhere else): the notes go only to a file that is only here.
    if meta.nlink() > 1 {
        return Err(FlushError::Target {
            path: target.clone(),
            reason: format!(
                "has {} hard links, so writing it would also change a file elsewhere; clawtop does not write through links",
                meta.nlink()
            ),
        });
    }
    let old_len = meta.len();
    let mut tail = [0u8; 2];
    let tail_len = old_len.min(2) as usize;
    file.read_exact_at(&mut tail[..tail_len], old_len - tail_len as u64)
        .map_err(io_err(&target, "read end of file"))?;
    let (sep_len, bytes) = append_bytes(old_len, &tail[..tail_len], notes);

    let written = (&file)
        .write_all(&bytes)
        .map_err(io_err(&target, "append"))
        .and_then(|()| {
            commit::test_step("flush-appended");
            file.sync_all().map_err(io_err(&target, "fsync"))
        });
    if let Err(e) = written {
        // Undo a partial append; the file was ours alone for these microseconds at best,
        // so only cut what is beyond the old length.
        let _ = file.set_len(old_len);
        let _ = file.sync_all();
        return Err(undo_create(e));
    }
    drop(file);
    let a = Appended {
        target,
        old_len,
        bytes,
        sep_len,
        created_file,
        created_dir,
    };
    if created_file {
        give_to_owner(&a.target, owner);
        // The new name must be durable before the store says the flush happened.
        if let Err(e) = fsync_dir(&memory) {
            roll_back(&a);
            return Err(e);
        }
    }
    Ok(a)
}

/// Undo an append whose store update failed, if the file still ends with exactly our bytes.
fn roll_back(a: &Appended) -> bool {
    let undo = || -> io::Result<bool> {
        // Through the directory handle, never through a link swapped in meanwhile.
        let dir = open_dir_nofollow(commit::parent_dir(&a.target))?;
        let name = a
            .target
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        let f = open_in_dir(&dir, name, false)?;
        let len = f.metadata()?.len();
        if len != a.old_len + a.bytes.len() as u64 {
            return Ok(false);
        }
        let mut now = vec![0u8; a.bytes.len()];
        f.read_exact_at(&mut now, a.old_len)?;
        if now != a.bytes {
            return Ok(false);
        }
        commit::test_step("rollback-checked");
        if !commit::unchanged_len(&f, a.old_len + a.bytes.len() as u64)? {
            return Ok(false);
        }
        if a.created_file && a.old_len == 0 {
            drop(f);
            fs::remove_file(&a.target)?;
            if a.created_dir {
                let _ = fs::remove_dir(commit::parent_dir(&a.target));
            }
        } else {
            f.set_len(a.old_len)?;
            f.sync_all()?;
        }
        Ok(true)
    };
    undo().unwrap_or(false)
}

/// Commits a flush: appends `notes` (exactly, see the module docs) to
/// `<workspace>/memory/<date>.md` unless `no_reply` (or the notes are blank / themselves
/// `NO_REPLY`), then, with `store`, sets `memoryFlushAt = now` (epoch ms) and
/// `memoryFlushCompactionCount = compactionCount ?? 0` on the entry under the store lock,
/// after checking its `sessionId` is still `store.session_id`.
pub fn commit_flush(
    workspace: &Path,
    date: &str,
    notes: &str,
    no_reply: bool,
    store: Option<&StoreRow>,
) -> Result<FlushCommitted, FlushError> {
    commit_flush_for_cycle(workspace, date, notes, no_reply, store, None)
}

/// [`commit_flush_for_cycle`] for a session whose transcript is `transcript`: its lock is
/// taken first (refused, exit 3, while a live turn holds it; a stale lock is reclaimed as
/// OpenClaw does) and held until the commit is complete, so no turn starts in between.
pub fn commit_flush_beside(
    transcript: Option<&Path>,
    workspace: &Path,
    date: &str,
    notes: &str,
    no_reply: bool,
    store: Option<&StoreRow>,
    expected_compaction_count: Option<u64>,
) -> Result<FlushCommitted, FlushError> {
    let guard = match transcript {
        Some(t) => Some(
            commit::lock::acquire(t, &commit::LockOptions::transcript())
                .map_err(FlushError::Store)?,
        ),
        None => None,
    };
    let out = commit_flush_for_cycle(
        workspace,
        date,
        notes,
        no_reply,
        store,
        expected_compaction_count,
    );
    if let Some(g) = guard {
        if let Err(e) = g.release() {
            tracing::warn!("transcript lock not released: {e}");
        }
    }
    out
}

/// [`commit_flush`] that also refuses (exit 3) when the row's `compactionCount` is no longer
/// `expected_compaction_count`, the cycle the notes were drafted in. Otherwise a compaction
/// that ran between preview and commit would have its new cycle marked as flushed, and
/// OpenClaw would skip the flush that cycle needs.
pub fn commit_flush_for_cycle(
    workspace: &Path,
    date: &str,
    notes: &str,
    no_reply: bool,
    store: Option<&StoreRow>,
    expected_compaction_count: Option<u64>,
) -> Result<FlushCommitted, FlushError> {
    let write = preflight(workspace, date, notes, no_reply)?;
    let target = target_path(workspace, date);

    let Some(s) = store else {
        let a = if write {
            Some(append_notes(workspace, date, notes)?)
        } else {
            None
        };
        return Ok(committed(target, a.as_ref()));
    };

    let mut appended: Option<Appended> = None;
    let mut append_error: Option<FlushError> = None;
    let mut written: Option<(i64, u64)> = None;
    let now = chrono::Utc::now().timestamp_millis();
    let store_lock = commit::StoreLock::acquire(&s.store_path, &Default::default())
        .map_err(FlushError::Store)?;
    let result = store_lock.patch_entry(&s.session_key, |entry| {
        commit::require_string_field(&s.store_path, entry, "sessionId", &s.session_id)?;
        if let Some(expected) = expected_compaction_count {
            let current = entry
                .get("compactionCount")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            if current != expected {
                return Err(CommitError::Changed {
                    path: s.store_path.clone(),
                    reason: format!(
                        "compactionCount is {current}, the notes were drafted at {expected}: a compaction ran since; draft the notes again"
                    ),
                });
            }
        }
        let ops = commit::flush_patch(&s.store_path, entry, now)?;
        let value = |name: &str| {
            ops.iter()
                .find(|(k, _)| k == name)
                .and_then(|(_, op)| match op {
                    PatchOp::Set(v) => Some(v.clone()),
                    PatchOp::Remove => None,
                })
        };
        let at = value("memoryFlushAt").as_ref().and_then(Value::as_i64);
        let count = value("memoryFlushCompactionCount")
            .as_ref()
            .and_then(Value::as_u64);
        written = at.zip(count);
        if write {
            match append_notes(workspace, date, notes) {
                Ok(a) => appended = Some(a),
                Err(e) => {
                    append_error = Some(e);
                    return Err(CommitError::Refused {
                        reason: "memory append failed".into(),
                    });
                }
            }
        }
        Ok(ops)
    });
    // `sessions.json.lock` is still held: a failed store write undoes the notes before
    // another clawtop may append to the same file.
    let out = match result {
        Ok(_) => {
            let (at, count) = written.expect("flush_patch sets both fields");
            let mut c = committed(target, appended.as_ref());
            c.memory_flush_at = Some(at);
            c.memory_flush_compaction_count = Some(count);
            Ok(c)
        }
        Err(source) => {
            if let Some(e) = append_error {
                Err(e)
            } else {
                match appended {
                    None => Err(FlushError::Store(source)),
                    Some(a) => Err(FlushError::StoreAfterAppend {
                        target,
                        rolled_back: roll_back(&a),
                        source,
                    }),
                }
            }
        }
    };
    store_lock.release();
    out
}

fn committed(target: PathBuf, a: Option<&Appended>) -> FlushCommitted {
    FlushCommitted {
        target,
        appended_bytes: a.map_or(0, |a| a.bytes.len() as u64),
        notes_offset: a.map(|a| a.old_len + a.sep_len as u64),
        created_memory_dir: a.is_some_and(|a| a.created_dir),
        created_file: a.is_some_and(|a| a.created_file),
        memory_flush_at: None,
        memory_flush_compaction_count: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators() {
        assert_eq!(append_bytes(0, b"", "- a").1, b"- a\n");
        assert_eq!(append_bytes(3, b"xy", "- a\n").1, b"\n\n- a\n");
        assert_eq!(append_bytes(3, b"y\n", "- a").1, b"\n- a\n");
        assert_eq!(append_bytes(1, b"\n", "- a").1, b"\n- a\n");
        assert_eq!(append_bytes(5, b"\n\n", "- a").1, b"- a\n");
        assert_eq!(append_bytes(5, b"x\n", "- a\n\n").1, b"\n- a\n\n");
        assert_eq!(append_bytes(5, b"x\n", "- a").0, 1);
    }

    #[test]
    fn roll_back_undoes_only_our_own_bytes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = dir.path();
        let date = "2026-11-21";
        let target = target_path(ws, date);

        // Created dir and file: both removed again.
        let a = append_notes(ws, date, "- a").expect("append");
        assert!(a.created_dir && a.created_file);
        assert!(roll_back(&a));
        assert!(!ws.join("memory").exists());

        // Existing file: truncated back to its old bytes.
        fs::create_dir(ws.join("memory")).expect("mkdir");
        fs::write(&target, "x").expect("write");
        let a = append_notes(ws, date, "- a").expect("append");
        assert_eq!(fs::read(&target).expect("read"), b"x\n\n- a\n");
        assert!(roll_back(&a));
        assert_eq!(fs::read(&target).expect("read"), b"x");

        // Someone wrote after us: our notes stay, nothing is cut.
        let a = append_notes(ws, date, "- a").expect("append");
        OpenOptions::new()
            .append(true)
            .open(&target)
            .expect("open")
            .write_all(b"theirs\n")
            .expect("write");
        assert!(!roll_back(&a));
        assert_eq!(fs::read(&target).expect("read"), b"x\n\n- a\ntheirs\n");
    }
}
