//! Sidecar lock behaviour (OpenClaw `<file>.lock` protocol).

use std::fs;
use std::time::Duration;

use crate::support::commit::*;
use clawtop::commit::CommitError;
use clawtop::commit::lock::{self, LockOptions, LockStatus, StaleReason};

fn no_wait(stale_secs: u64) -> LockOptions {
    LockOptions {
        stale_after: Duration::from_secs(stale_secs),
        wait: Duration::ZERO,
    }
}

fn target(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let t = dir.path().join("x.jsonl");
    fs::write(&t, b"").expect("write target");
    t
}

#[test]
fn acquire_writes_openclaw_payload_and_releases_on_drop() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = target(&dir);
    let lp = lock_of(&t);
    {
        let g = lock::acquire(&t, &LockOptions::transcript()).expect("acquire");
        assert_eq!(g.path(), lp.as_path());
        let text = fs::read_to_string(&lp).expect("lock exists");
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(v["pid"].as_u64(), Some(std::process::id() as u64));
        assert!(
            chrono::DateTime::parse_from_rfc3339(v["createdAt"].as_str().expect("createdAt"))
                .is_ok()
        );
        assert!(text.starts_with("{\n  \"pid\": ") && text.ends_with("}\n"));
        assert_eq!(mode_of(&lp), 0o600);
        // Second acquire in the same process: our own live pid → busy.
        match lock::acquire(&t, &LockOptions::transcript()) {
            Err(CommitError::Busy { pid, lock_path }) => {
                assert_eq!(pid, Some(std::process::id() as i32));
                assert_eq!(lock_path, lp);
            }
            other => panic!("expected Busy, got {other:?}"),
        }
    }
    assert!(!lp.exists(), "released on drop");
    let g = lock::acquire(&t, &LockOptions::transcript()).expect("re-acquire");
    g.release().expect("release");
    assert!(!lp.exists(), "released explicitly");
}

#[test]
fn live_foreign_pid_is_busy_and_lock_untouched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = target(&dir);
    let lp = lock_of(&t);
    let child = Sleeper::new();
    let payload = lock_payload(child.pid(), &now_iso());
    fs::write(&lp, &payload).expect("write lock");
    let err = lock::acquire(&t, &LockOptions::transcript()).expect_err("busy");
    assert!(matches!(err, CommitError::Busy { pid: Some(p), .. } if p as i64 == child.pid()));
    assert_eq!(err.verdict(), clawtop::commit::Verdict::Refused);
    assert!(
        err.to_string()
            .contains(&format!("session busy: pid {}", child.pid())),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&lp).expect("lock still there"), payload);
    assert!(matches!(
        lock::status(&t, Duration::from_secs(1800)).expect("status"),
        LockStatus::Held(_)
    ));
}

#[test]
fn own_pid_lock_is_busy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = target(&dir);
    let lp = lock_of(&t);
    let payload = lock_payload(std::process::id() as i64, &now_iso());
    fs::write(&lp, &payload).expect("write lock");
    assert!(matches!(
        lock::acquire(&t, &no_wait(30)),
        Err(CommitError::Busy { .. })
    ));
    assert_eq!(fs::read_to_string(&lp).expect("lock"), payload);
}

#[test]
fn dead_pid_is_reclaimed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = target(&dir);
    let lp = lock_of(&t);
    fs::write(&lp, lock_payload(dead_pid(), &now_iso())).expect("write lock");
    assert!(matches!(
        lock::status(&t, Duration::from_secs(30)).expect("status"),
        LockStatus::Stale(StaleReason::DeadPid, _)
    ));
    let g = lock::acquire(&t, &LockOptions::transcript()).expect("reclaimed");
    let v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&lp).expect("lock")).expect("json");
    assert_eq!(v["pid"].as_u64(), Some(std::process::id() as u64));
    drop(g);
    assert!(!lp.exists());
}

#[test]
fn too_old_store_lock_is_reclaimed_but_live_transcript_lock_is_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = target(&dir);
    let lp = lock_of(&t);
    let child = Sleeper::new();
    fs::write(&lp, lock_payload(child.pid(), &iso_ago(31))).expect("write lock");
    // Store rules: 30 s.
    let g = lock::acquire(&t, &no_wait(30)).expect("too old → reclaimed");
    drop(g);
    // Transcript rules: 30 min; 31 s is still live.
    fs::write(&lp, lock_payload(child.pid(), &iso_ago(31))).expect("write lock");
    assert!(matches!(
        lock::acquire(&t, &LockOptions::transcript()),
        Err(CommitError::Busy { .. })
    ));
    // A live agent turn can hold the transcript lock longer than OpenClaw's staleMs: an
    // old lock of a live pid is still refused (docs/commit-protocol.md §5), only dead holders are
    // reclaimed.
    fs::write(&lp, lock_payload(child.pid(), &iso_ago(31 * 60))).expect("write lock");
    assert!(matches!(
        lock::acquire(&t, &LockOptions::transcript()),
        Err(CommitError::Busy { .. })
    ));
    assert!(lp.exists(), "a live holder's lock is never removed");
}

#[test]
fn zombie_pid_is_reclaimed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = target(&dir);
    let lp = lock_of(&t);
    let mut child = std::process::Command::new("true").spawn().expect("spawn");
    let pid = child.id();
    // Wait (without reaping) until it is a zombie.
    for _ in 0..200 {
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat
            .rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with('Z'))
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    fs::write(&lp, lock_payload(pid as i64, &now_iso())).expect("write lock");
    assert!(matches!(
        lock::status(&t, Duration::from_secs(30)).expect("status"),
        LockStatus::Stale(StaleReason::ZombiePid, _)
    ));
    lock::acquire(&t, &LockOptions::transcript()).expect("zombie → reclaimed");
    child.wait().expect("reap");
}

#[test]
fn garbage_lock_reclaimed_only_after_grace() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = target(&dir);
    let lp = lock_of(&t);
    for garbage in [
        "",
        "not json",
        "{\"createdAt\":\"2026-01-01T00:00:00.000Z\"}",
        "{\"pid\":-1}",
        "[1,2]",
    ] {
        fs::write(&lp, garbage).expect("write lock");
        // Fresh: could be mid-creation by its owner → busy, no pid, untouched.
        assert!(
            matches!(
                lock::acquire(&t, &no_wait(30)),
                Err(CommitError::Busy { pid: None, .. })
            ),
            "{garbage:?}"
        );
        assert_eq!(fs::read_to_string(&lp).expect("lock"), garbage);
        age_mtime(&lp, 60);
        let g = lock::acquire(&t, &no_wait(30)).unwrap_or_else(|e| panic!("{garbage:?}: {e}"));
        drop(g);
        assert!(!lp.exists());
    }
    // Valid pid but an invalid createdAt.
    fs::write(&lp, lock_payload(std::process::id() as i64, "not a date")).expect("write lock");
    age_mtime(&lp, 60);
    lock::acquire(&t, &no_wait(30)).expect("invalid createdAt → reclaimed");
}

#[test]
fn guard_never_removes_a_lock_that_is_not_ours() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = target(&dir);
    let lp = lock_of(&t);
    let g = lock::acquire(&t, &LockOptions::transcript()).expect("acquire");
    // Someone judged ours stale and took the lock (new inode, other content).
    fs::remove_file(&lp).expect("rm");
    let other = lock_payload(4_000_000, &now_iso());
    fs::write(&lp, &other).expect("write other");
    drop(g);
    assert_eq!(fs::read_to_string(&lp).expect("other lock kept"), other);

    // Same inode, content rewritten by another owner: also kept.
    fs::remove_file(&lp).expect("rm");
    let g = lock::acquire(&t, &LockOptions::transcript()).expect("acquire");
    fs::write(&lp, &other).expect("overwrite in place");
    assert!(g.release().is_ok());
    assert_eq!(fs::read_to_string(&lp).expect("kept"), other);
}

#[test]
fn store_lock_waits_for_a_short_holder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = dir.path().join("sessions.json");
    fs::write(&t, b"{}").expect("store");
    let g = lock::acquire(&t, &LockOptions::store()).expect("first");
    let h = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        drop(g);
    });
    let start = std::time::Instant::now();
    let g2 = lock::acquire(&t, &LockOptions::store()).expect("acquired after holder released");
    assert!(start.elapsed() >= Duration::from_millis(250));
    drop(g2);
    h.join().expect("join");

    // A holder that doesn't let go: busy after the wait.
    let child = Sleeper::new();
    fs::write(lock_of(&t), lock_payload(child.pid(), &now_iso())).expect("lock");
    let opts = LockOptions {
        stale_after: Duration::from_secs(30),
        wait: Duration::from_millis(400),
    };
    let start = std::time::Instant::now();
    assert!(matches!(
        lock::acquire(&t, &opts),
        Err(CommitError::Busy { .. })
    ));
    // Bounded by the 400 ms wait, not by the holder (who never lets go).
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn lock_path_uses_realpath_of_dir() {
    let dir = tempfile::tempdir().expect("tempdir");
    let real = dir.path().join("real");
    fs::create_dir(&real).expect("mkdir");
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");
    let lp = lock::lock_path_for(&link.join("s.jsonl")).expect("lock path");
    assert_eq!(
        lp,
        fs::canonicalize(&real)
            .expect("realpath")
            .join("s.jsonl.lock")
    );
}
