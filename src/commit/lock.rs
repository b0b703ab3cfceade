//! OpenClaw's sidecar lock file, `<realpath(dir)>/<basename>.lock`
//! (docs/commit-protocol.md §5).
//!
//! Acquire = `open(O_CREAT|O_EXCL|O_WRONLY, 0600)` and write
//! `JSON.stringify({pid, createdAt}, null, 2) + "\n"` (what OpenClaw 2026.2.26 writes; later
//! versions add `maxHoldMs`/`starttime`, which we read but don't need to write).
//!
//! An existing lock is *live* when its pid is alive (kill(pid, 0) succeeds or fails
//! with EPERM, and /proc says it is not a zombie), its `starttime` (if recorded) still
//! matches that pid, and it is younger than the stale limit. Anything else is stale and
//! is reclaimed the way OpenClaw does it: removed only if the file is still the one we
//! judged (same inode, same bytes), then the O_EXCL create is retried.
//!
//! A lock whose content has no usable pid/createdAt may simply be mid-creation by
//! another process (created, content not yet written); like OpenClaw we only call it
//! stale once its mtime is older than min(stale limit, 30 s).
//!
//! Stale limits: store lock 30 s (OpenClaw ≤ 2026.4 `staleMs 30000`); transcript lock
//! 30 min (OpenClaw's `session.writeLock.staleMs` default 1800000 in 2026.7.1). A live
//! holder of the transcript lock is an OpenClaw turn in progress, so transcript
//! acquisition never waits; the store lock is held only for a quick rewrite, so we
//! retry with 50 → 1000 ms backoff for a few seconds (OpenClaw's own retry bounds).

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use chrono::{DateTime, SecondsFormat, Utc};

use super::{CommitError, parent_dir, test_step};

/// OpenClaw only trusts the mtime of a lock without a readable owner after this long.
const UNREADABLE_GRACE_CAP: Duration = Duration::from_secs(30);
/// Bound on stale-reclaim rounds so two reclaimers can't spin forever.
const MAX_RECLAIMS: usize = 16;

#[derive(Debug, Clone)]
pub struct LockOptions {
    /// A lock older than this is stale even if its pid is alive.
    pub stale_after: Duration,
    /// How long to keep retrying while a live process holds the lock (0 = refuse at once).
    pub wait: Duration,
}

/// A `stale_after` that no real lock age reaches (~3,000 years; small enough for chrono).
pub const LIVE_HOLDER_NEVER_EXPIRES: Duration = Duration::from_secs(100_000_000_000);

impl LockOptions {
    /// `sessions.json.lock` as OpenClaw ≤ 2026.4 uses it: stale after 30 s; we wait up
    /// to 5 s (OpenClaw waits 10 s; its writers hold the lock for milliseconds).
    pub fn store() -> Self {
        LockOptions {
            stale_after: Duration::from_secs(30),
            wait: Duration::from_secs(5),
        }
    }

    /// `<transcript>.jsonl.lock`: never wait, and never take it from a live holder however
    /// old the lock is. A live holder is an agent turn (2026.2.26 holds the lock for the
    /// whole run, which can outlast OpenClaw's 30 min staleMs); appending under it would
    /// leave our entry off the branch OpenClaw keeps writing to. Dead, zombie and recycled
    /// pids are still reclaimed at once.
    pub fn transcript() -> Self {
        LockOptions {
            stale_after: LIVE_HOLDER_NEVER_EXPIRES,
            wait: Duration::ZERO,
        }
    }
}

/// Why an existing lock was judged stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaleReason {
    /// Content is not the JSON object we expect (after the mtime grace).
    Unparsable,
    /// No positive integer `pid` (after the mtime grace).
    MissingPid,
    /// `createdAt` missing or not a date (after the mtime grace).
    InvalidCreatedAt,
    DeadPid,
    ZombiePid,
    /// `starttime` recorded in the lock differs from the live process's.
    RecycledPid,
    TooOld,
}

/// Who holds a lock, as read from its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockHolder {
    pub pid: Option<i32>,
    pub created_at: Option<DateTime<Utc>>,
}

/// Result of looking at a lock without taking it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockStatus {
    Free,
    /// Held by a live process (or being created right now when `pid` is None).
    Held(LockHolder),
    Stale(StaleReason, LockHolder),
}

/// Path of the sidecar lock for `target`: `<realpath(dir)>/<basename>.lock`.
pub fn lock_path_for(target: &Path) -> Result<PathBuf, CommitError> {
    let dir = parent_dir(target);
    let real = fs::canonicalize(dir).map_err(|e| CommitError::io(dir, "resolve directory", e))?;
    let name = target.file_name().ok_or_else(|| CommitError::Refused {
        reason: format!("{} has no file name to lock", target.display()),
    })?;
    let mut lock_name = name.to_os_string();
    lock_name.push(".lock");
    Ok(real.join(lock_name))
}

/// Held lock; removes the lock file on drop if it is still ours.
#[derive(Debug)]
pub struct LockGuard {
    path: PathBuf,
    content: Vec<u8>,
    dev: u64,
    ino: u64,
    released: bool,
}

impl LockGuard {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Release now and report failures (drop releases silently).
    pub fn release(mut self) -> Result<(), CommitError> {
        self.released = true;
        remove_if_ours(&self.path, self.dev, self.ino, &self.content)
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        if !self.released {
            self.released = true;
            let _ = remove_if_ours(&self.path, self.dev, self.ino, &self.content);
        }
    }
}

/// Remove the lock only if the file at `path` is the one we created, with our bytes:
/// never delete a lock someone else took after reclaiming ours.
fn remove_if_ours(path: &Path, dev: u64, ino: u64, content: &[u8]) -> Result<(), CommitError> {
    let Some(snap) = read_snapshot(path)? else {
        return Ok(());
    };
    if snap.dev == dev && snap.ino == ino && snap.content == content {
        match fs::remove_file(path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(CommitError::io(path, "remove lock", e)),
        }
    } else {
        Ok(())
    }
}

/// Take the sidecar lock of `target` (not the lock path itself).
pub fn acquire(target: &Path, opts: &LockOptions) -> Result<LockGuard, CommitError> {
    let lock_path = lock_path_for(target)?;
    acquire_at(&lock_path, opts)
}

/// Take a lock given the lock file's own path.
pub fn acquire_at(lock_path: &Path, opts: &LockOptions) -> Result<LockGuard, CommitError> {
    let deadline = Instant::now() + opts.wait;
    let mut backoff = Duration::from_millis(50);
    let mut reclaims = 0usize;
    loop {
        if let Some(guard) = try_create(lock_path)? {
            test_step("lock-acquired");
            return Ok(guard);
        }
        // Exists: judge the holder.
        let Some(snap) = read_snapshot(lock_path)? else {
            // Vanished between our create and read: just retry.
            reclaims += 1;
            if reclaims > MAX_RECLAIMS {
                return Err(CommitError::Busy {
                    pid: None,
                    lock_path: lock_path.to_path_buf(),
                });
            }
            continue;
        };
        match judge(&snap, opts.stale_after) {
            LockStatus::Stale(..) if reclaims < MAX_RECLAIMS => {
                reclaims += 1;
                reclaim(lock_path, &snap)?;
                continue;
            }
            status => {
                let pid = match status {
                    LockStatus::Held(h) | LockStatus::Stale(_, h) => h.pid,
                    LockStatus::Free => None,
                };
                let now = Instant::now();
                if now + backoff > deadline {
                    return Err(CommitError::Busy {
                        pid,
                        lock_path: lock_path.to_path_buf(),
                    });
                }
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(Duration::from_millis(1000));
            }
        }
    }
}

/// Look at the lock of `target` without taking or changing anything (for display and
/// for refusing early).
pub fn status(target: &Path, stale_after: Duration) -> Result<LockStatus, CommitError> {
    // Looking, not taking: `<dir>/<basename>.lock` is the same file as the lock's own path
    // (opening it resolves the dir's links as realpath does), so "no lock" is known without
    // resolving the path first, which a list of thousands of sessions paid once per row.
    // A lock that is there, or anything else, is looked at by its own path, as before.
    let dir = parent_dir(target);
    if let Some(name) = target.file_name() {
        let mut lock_name = name.to_os_string();
        lock_name.push(".lock");
        if matches!(read_snapshot(&dir.join(lock_name)), Ok(None)) && dir.is_dir() {
            return Ok(LockStatus::Free);
        }
    }
    let lock_path = lock_path_for(target)?;
    Ok(match read_snapshot(&lock_path)? {
        None => LockStatus::Free,
        Some(snap) => judge(&snap, stale_after),
    })
}

fn lock_content() -> Vec<u8> {
    let created = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
    format!(
        "{{\n  \"pid\": {},\n  \"createdAt\": \"{}\"\n}}\n",
        std::process::id(),
        created
    )
    .into_bytes()
}

/// O_EXCL create; Ok(None) when the lock exists.
fn try_create(lock_path: &Path) -> Result<Option<LockGuard>, CommitError> {
    let mut file = match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(lock_path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(None),
        Err(e) => return Err(CommitError::io(lock_path, "create lock", e)),
    };
    let content = lock_content();
    let meta = file
        .metadata()
        .map_err(|e| CommitError::io(lock_path, "stat lock", e));
    let written = file
        .write_all(&content)
        .map_err(|e| CommitError::io(lock_path, "write lock", e));
    match (meta, written) {
        (Ok(meta), Ok(())) => Ok(Some(LockGuard {
            path: lock_path.to_path_buf(),
            content,
            dev: meta.dev(),
            ino: meta.ino(),
            released: false,
        })),
        (Err(e), _) | (_, Err(e)) => {
            // We just created it, so it is ours to remove.
            let _ = fs::remove_file(lock_path);
            Err(e)
        }
    }
}

#[derive(Debug)]
struct Snapshot {
    content: Vec<u8>,
    dev: u64,
    ino: u64,
    mtime: SystemTime,
}

/// Bytes and identity of the lock file; None if it does not exist.
fn read_snapshot(lock_path: &Path) -> Result<Option<Snapshot>, CommitError> {
    let mut f = match crate::regular_file::open(lock_path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        // Not a lock OpenClaw writes: nothing to judge stale or remove, so no commit past it.
        Err(e) if crate::regular_file::is_not_regular(&e) => {
            return Err(CommitError::Refused {
                reason: format!("{} is {e}; remove it by hand", lock_path.display()),
            });
        }
        Err(e) => return Err(CommitError::io(lock_path, "open lock", e)),
    };
    let meta = f
        .metadata()
        .map_err(|e| CommitError::io(lock_path, "stat lock", e))?;
    let mut content = Vec::new();
    // A lock file is tiny; cap the read so a bogus huge file can't hurt.
    (&mut f)
        .take(64 * 1024)
        .read_to_end(&mut content)
        .map_err(|e| CommitError::io(lock_path, "read lock", e))?;
    let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
    Ok(Some(Snapshot {
        content,
        dev: meta.dev(),
        ino: meta.ino(),
        mtime,
    }))
}

fn judge(snap: &Snapshot, stale_after: Duration) -> LockStatus {
    let parsed: Option<serde_json::Value> = serde_json::from_slice(&snap.content).ok();
    let obj = parsed.as_ref().and_then(|v| v.as_object());
    let pid = obj.and_then(|o| o.get("pid")).and_then(valid_pid);
    let created_at = obj
        .and_then(|o| o.get("createdAt"))
        .and_then(|v| v.as_str())
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|d| d.with_timezone(&Utc));
    let holder = LockHolder { pid, created_at };

    let unreadable = if obj.is_none() {
        Some(StaleReason::Unparsable)
    } else if pid.is_none() {
        Some(StaleReason::MissingPid)
    } else if created_at.is_none() {
        Some(StaleReason::InvalidCreatedAt)
    } else {
        None
    };
    if let Some(reason) = unreadable {
        // Possibly being written right now by its creator: wait for the mtime grace.
        let grace = stale_after.min(UNREADABLE_GRACE_CAP);
        let age = SystemTime::now()
            .duration_since(snap.mtime)
            .unwrap_or(Duration::ZERO);
        return if age > grace {
            LockStatus::Stale(reason, holder)
        } else {
            LockStatus::Held(holder)
        };
    }
    let (Some(pid), Some(created)) = (pid, created_at) else {
        return LockStatus::Stale(StaleReason::MissingPid, holder);
    };
    match process_state(pid) {
        ProcState::Dead => return LockStatus::Stale(StaleReason::DeadPid, holder),
        ProcState::Zombie => return LockStatus::Stale(StaleReason::ZombiePid, holder),
        ProcState::Alive { starttime } => {
            let recorded = obj
                .and_then(|o| o.get("starttime"))
                .and_then(|v| v.as_u64());
            if let (Some(rec), Some(now)) = (recorded, starttime) {
                if rec != now {
                    return LockStatus::Stale(StaleReason::RecycledPid, holder);
                }
            }
        }
    }
    let age = Utc::now().signed_duration_since(created);
    if age.to_std().is_ok_and(|a| a > stale_after) {
        return LockStatus::Stale(StaleReason::TooOld, holder);
    }
    LockStatus::Held(holder)
}

/// A pid we may pass to kill(2): positive and in range (0 or negative would address
/// process groups).
fn valid_pid(v: &serde_json::Value) -> Option<i32> {
    let n = v
        .as_i64()
        .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))?;
    if n > 0 && n <= i32::MAX as i64 {
        Some(n as i32)
    } else {
        None
    }
}

/// Whether `pid` is a running (not zombie) process.
pub(crate) fn pid_alive(pid: i32) -> bool {
    pid > 0 && matches!(process_state(pid), ProcState::Alive { .. })
}

enum ProcState {
    Dead,
    Zombie,
    Alive { starttime: Option<u64> },
}

fn process_state(pid: i32) -> ProcState {
    // Signal 0 only checks for existence and permission; EPERM means it exists.
    let Some(p) = rustix::process::Pid::from_raw(pid) else {
        return ProcState::Dead;
    };
    if let Err(e) = rustix::process::test_kill_process(p) {
        if e != rustix::io::Errno::PERM {
            return ProcState::Dead;
        }
    }
    match proc_stat(pid) {
        Some((state, _)) if state == 'Z' || state == 'X' => ProcState::Zombie,
        Some((_, starttime)) => ProcState::Alive { starttime },
        None => ProcState::Alive { starttime: None },
    }
}

/// (state, starttime) from /proc/<pid>/stat. The comm field may contain spaces and
/// parentheses, so fields are counted from the last ')'.
fn proc_stat(pid: i32) -> Option<(char, Option<u64>)> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    // rest starts at field 3 (state); starttime is field 22.
    let starttime = fields.nth(18).and_then(|s| s.parse().ok());
    Some((state, starttime))
}

/// Remove a stale lock only if it is still exactly what we judged.
fn reclaim(lock_path: &Path, judged: &Snapshot) -> Result<(), CommitError> {
    match read_snapshot(lock_path)? {
        Some(now)
            if now.dev == judged.dev && now.ino == judged.ino && now.content == judged.content =>
        {
            match fs::remove_file(lock_path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(CommitError::io(lock_path, "remove stale lock", e)),
            }
        }
        // Changed or gone: someone else moved first; the caller retries the create.
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick look at `<dir>/<name>.lock` tells what the lock's own path tells: no lock,
    /// a lock written at the realpath seen through a linked dir, and a missing dir an error.
    #[test]
    fn status_through_a_linked_dir_and_of_a_missing_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        fs::create_dir(&real).unwrap();
        let linked = tmp.path().join("linked");
        std::os::unix::fs::symlink(&real, &linked).unwrap();
        let target = linked.join("s.jsonl");
        fs::write(real.join("s.jsonl"), b"").unwrap();
        let after = Duration::from_secs(1800);
        assert_eq!(status(&target, after).unwrap(), LockStatus::Free);
        let content = payload(std::process::id() as i64, Utc::now());
        fs::write(real.join("s.jsonl.lock"), &content).unwrap();
        assert!(
            matches!(status(&target, after).unwrap(), LockStatus::Held(_)),
            "the lock at the realpath is seen through the link"
        );
        let gone = tmp.path().join("gone").join("s.jsonl");
        assert!(
            status(&gone, after).is_err(),
            "a missing dir is not 'no lock'"
        );
        fs::create_dir(tmp.path().join("refused")).unwrap();
        let dir_lock = tmp.path().join("refused").join("s.jsonl.lock");
        fs::create_dir(&dir_lock).unwrap();
        assert!(
            status(&tmp.path().join("refused").join("s.jsonl"), after).is_err(),
            "a directory in the lock's place is refused, not 'no lock'"
        );
    }

    fn snap(content: &str, age: Duration) -> Snapshot {
        Snapshot {
            content: content.as_bytes().to_vec(),
            dev: 1,
            ino: 1,
            mtime: SystemTime::now() - age,
        }
    }

    fn payload(pid: i64, created: DateTime<Utc>) -> String {
        format!(
            "{{\n  \"pid\": {pid},\n  \"createdAt\": \"{}\"\n}}\n",
            created.to_rfc3339_opts(SecondsFormat::Millis, true)
        )
    }

    #[test]
    fn own_pid_fresh_is_held() {
        let s = snap(
            &payload(std::process::id() as i64, Utc::now()),
            Duration::ZERO,
        );
        assert!(
            matches!(judge(&s, Duration::from_secs(30)), LockStatus::Held(h) if h.pid == Some(std::process::id() as i32))
        );
    }

    #[test]
    fn too_old_is_stale() {
        let old = Utc::now() - chrono::Duration::seconds(120);
        let s = snap(&payload(std::process::id() as i64, old), Duration::ZERO);
        assert!(matches!(
            judge(&s, Duration::from_secs(30)),
            LockStatus::Stale(StaleReason::TooOld, _)
        ));
    }

    #[test]
    fn garbage_needs_mtime_grace() {
        assert!(matches!(
            judge(&snap("", Duration::ZERO), Duration::from_secs(30)),
            LockStatus::Held(_)
        ));
        assert!(matches!(
            judge(
                &snap("garbage", Duration::from_secs(60)),
                Duration::from_secs(30)
            ),
            LockStatus::Stale(StaleReason::Unparsable, _)
        ));
        assert!(matches!(
            judge(
                &snap(
                    "{\"pid\":0,\"createdAt\":\"2026-01-01T00:00:00.000Z\"}",
                    Duration::from_secs(60)
                ),
                Duration::from_secs(30)
            ),
            LockStatus::Stale(StaleReason::MissingPid, _)
        ));
        assert!(matches!(
            judge(
                &snap(
                    &format!(
                        "{{\"pid\":{},\"createdAt\":\"yesterday\"}}",
                        std::process::id()
                    ),
                    Duration::from_secs(60)
                ),
                Duration::from_secs(30)
            ),
            LockStatus::Stale(StaleReason::InvalidCreatedAt, _)
        ));
    }

    #[test]
    fn recycled_pid_is_stale() {
        let (_, st) = proc_stat(std::process::id() as i32).expect("/proc available");
        let st = st.expect("starttime");
        let content = format!(
            "{{\"pid\":{},\"createdAt\":\"{}\",\"starttime\":{}}}",
            std::process::id(),
            Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
            st + 1
        );
        assert!(matches!(
            judge(&snap(&content, Duration::ZERO), Duration::from_secs(30)),
            LockStatus::Stale(StaleReason::RecycledPid, _)
        ));
        let same = content.replace(&format!("{}}}", st + 1), &format!("{st}}}"));
        assert!(matches!(
            judge(&snap(&same, Duration::ZERO), Duration::from_secs(30)),
            LockStatus::Held(_)
        ));
    }

    #[test]
    fn lock_content_is_stringify_format() {
        let c = String::from_utf8(lock_content()).expect("utf8");
        let v: serde_json::Value = serde_json::from_str(&c).expect("json");
        assert_eq!(v["pid"], std::process::id());
        assert!(
            c.starts_with("{\n  \"pid\": ") && c.ends_with("Z\"\n}\n"),
            "{c}"
        );
        assert_eq!(v["createdAt"].as_str().map(str::len), Some(24));
    }
}
