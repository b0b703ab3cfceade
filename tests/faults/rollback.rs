//! Issue 12 item 1: a rollback must never erase what someone else appended. The commit is
//! paused (commit pause seam) after the append, while the store write is still to come;
//! the test checks the locks are held, makes the store write fail, and checks the undo
//! happens under the locks and only removes clawtop's own bytes.

use crate::support::cli as cli_support;
use crate::support::pause;

use clawtop::commit::CommitError;
use clawtop::commit::lock::{self, LockOptions};
use cli_support::Home;
use pause::Pause;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The paused child, killed if the test fails before letting it finish (it would otherwise
/// wait at the pause point forever).
struct Paused(Option<Child>);

impl Paused {
    fn id(&self) -> u32 {
        self.0.as_ref().map_or(0, Child::id)
    }
}

impl Drop for Paused {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn spawn(h: &Home, args: &[&str], env: &[(String, String)]) -> Paused {
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawtop"));
    c.args(args)
        .current_dir(h.path())
        .env("HOME", h.path())
        .env("XDG_STATE_HOME", h.path().join(".xdg-state"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, _) in std::env::vars() {
        if k.starts_with("OPENCLAW_") || k.starts_with("CLAWDBOT_") || k.starts_with("CLAWTOP_TEST")
        {
            c.env_remove(k);
        }
    }
    for (k, v) in env {
        c.env(k, v);
    }
    Paused(Some(c.spawn().unwrap()))
}

fn lock_of(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

/// OpenClaw's side: try the lock the way a turn takes it.
fn openclaw_can_take(target: &Path) -> Result<(), CommitError> {
    lock::acquire(target, &LockOptions::transcript()).map(drop)
}

/// Rewrite the store with the same bytes: a new mtime, so clawtop's pre-rename check sees
/// another writer and refuses ("store changed while being patched").
fn touch_store(h: &Home) {
    let bytes = std::fs::read(h.store()).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(h.store(), bytes).unwrap();
}

fn finish(mut c: Paused) -> (i32, String) {
    let o = c.0.take().unwrap().wait_with_output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `compact --summary-file … --expect-leaf … --yes` on host-a's main session (a small
/// summary, keepRecentTokens 2000), paused at the commit steps `points`.
fn spawn_committed_compaction(h: &Home, pause: &Pause, points: &str) -> Paused {
    let leaf = leaf(h);
    let summary = h.path().join("summary.md");
    std::fs::write(&summary, "## Goal\nkeep the PR open").unwrap();
    spawn(
        h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--keep-recent-tokens",
            "2000",
            "--summary-file",
            summary.to_str().unwrap(),
            "--expect-leaf",
            &leaf,
            "--yes",
        ],
        &pause.env(points),
    )
}

fn leaf(h: &Home) -> String {
    let dry = h.run(&[
        "compact",
        "agent:main:main",
        "--dry-run",
        "--json",
        "--keep-recent-tokens",
        "2000",
    ]);
    dry.expect(0);
    dry.json()["leafId"].as_str().unwrap().to_string()
}

#[test]
fn compaction_rollback_happens_under_both_locks_and_cuts_only_its_own_line() {
    let h = Home::host_a();
    let before = std::fs::read(h.transcript()).unwrap();
    let store_before = std::fs::read(h.store()).unwrap();
    let pause = Pause::new(h.path());
    let child = spawn_committed_compaction(&h, &pause, "store-patched,rollback-checked");

    assert_eq!(pause.reached(), "store-patched");
    let grown = std::fs::read(h.transcript()).unwrap();
    assert!(
        grown.len() > before.len(),
        "the compaction line is appended"
    );
    assert!(
        lock_of(&h.transcript()).exists(),
        "the transcript lock is held until the store is written"
    );
    match openclaw_can_take(&h.transcript()) {
        Err(CommitError::Busy { pid, .. }) => assert_eq!(pid, Some(child.id() as i32)),
        other => panic!("OpenClaw could take the transcript lock mid-commit: {other:?}"),
    }
    assert!(lock_of(&h.store()).exists(), "the store lock is held");
    touch_store(&h);
    pause.resume();

    assert_eq!(pause.reached(), "rollback-checked");
    assert!(
        matches!(
            openclaw_can_take(&h.transcript()),
            Err(CommitError::Busy { .. })
        ),
        "the transcript lock is held until the rollback is done"
    );
    assert!(
        lock_of(&h.store()).exists(),
        "the store lock is held during the rollback"
    );
    pause.resume();

    let (code, stderr) = finish(child);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("removed again"), "{stderr}");
    assert_eq!(std::fs::read(h.transcript()).unwrap(), before);
    assert_eq!(std::fs::read(h.store()).unwrap(), store_before);
    assert!(!lock_of(&h.transcript()).exists());
    assert!(!lock_of(&h.store()).exists());
}

#[test]
fn compaction_rollback_keeps_a_line_appended_after_ours() {
    let h = Home::host_a();
    let pause = Pause::new(h.path());
    let child = spawn_committed_compaction(&h, &pause, "store-patched");
    assert_eq!(pause.reached(), "store-patched");
    // A writer that ignores the lock appends after our line.
    let theirs = b"{\"type\":\"custom\",\"id\":\"7h31r5\",\"parentId\":null}\n";
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(h.transcript())
            .unwrap();
        f.write_all(theirs).unwrap();
    }
    let with_theirs = std::fs::read(h.transcript()).unwrap();
    touch_store(&h);
    pause.resume();
    let (code, stderr) = finish(child);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("but the session store was not updated"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(h.transcript()).unwrap(),
        with_theirs,
        "nothing is cut when the file no longer ends with our line"
    );
}

#[test]
fn flush_rollback_happens_under_the_store_lock() {
    let h = Home::host_a();
    let ws = h.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let notes = h.path().join("notes.md");
    std::fs::write(&notes, "- keep PR #4411 open").unwrap();
    let pause = Pause::new(h.path());
    let child = spawn(
        &h,
        &[
            "flush",
            "agent:main:main",
            "--notes-file",
            notes.to_str().unwrap(),
            "--workspace",
            ws.to_str().unwrap(),
            "--yes",
        ],
        &pause.env("store-patched,rollback-checked"),
    );
    assert_eq!(pause.reached(), "store-patched");
    assert!(lock_of(&h.store()).exists());
    touch_store(&h);
    pause.resume();
    assert_eq!(pause.reached(), "rollback-checked");
    assert!(
        lock_of(&h.store()).exists(),
        "the store lock is held until the notes are removed again"
    );
    pause.resume();
    let (code, stderr) = finish(child);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        !ws.join("memory").exists(),
        "created file and dir removed again"
    );
    assert!(!lock_of(&h.store()).exists());
}

#[test]
fn a_line_appended_after_the_rollback_check_is_not_cut() {
    let h = Home::host_a();
    let pause = Pause::new(h.path());
    let child = spawn_committed_compaction(&h, &pause, "store-patched,rollback-checked");
    assert_eq!(pause.reached(), "store-patched");
    touch_store(&h);
    pause.resume();
    // Our bytes were found to be the file's last ones; a writer that ignores the lock
    // appends before the cut.
    assert_eq!(pause.reached(), "rollback-checked");
    let theirs = b"{\"type\":\"custom\",\"id\":\"l473r\",\"parentId\":null}\n";
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(h.transcript())
            .unwrap();
        f.write_all(theirs).unwrap();
    }
    let with_theirs = std::fs::read(h.transcript()).unwrap();
    pause.resume();
    let (code, stderr) = finish(child);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        std::fs::read(h.transcript()).unwrap(),
        with_theirs,
        "their line (and ours before it) are kept, not cut"
    );
    assert!(!lock_of(&h.transcript()).exists());
    assert!(!lock_of(&h.store()).exists());
}
