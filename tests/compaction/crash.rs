//! Crash safety of the real compaction commit (`compaction::commit` on a copy of host-a):
//! the committing process is SIGKILLed at 100 seeded points; after each kill the transcript
//! is the old bytes or the old bytes plus one compaction line carrying exactly the summary,
//! the store parses and is the old bytes or the new state (and never new before the
//! transcript), and the next commit succeeds (stale locks of the dead child are reclaimed).
//! `tests/commit/crash.rs` does the same for the write primitives with byte-exact states.

use crate::support::kill_window::{KillWindow, Landed};
use crate::support::{self, fixtures};
use clawtop::commit::StoreRow;
use clawtop::compaction;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "CLAWTOP_TEST_COMPACTION_CRASH_DIR";
const RUNS: usize = 100;
const SUMMARY: &str =
    "## Goal\nKeep the deployment plan on track.\n\n## Critical Context\n- PR #4411";
const TRANSCRIPT: &str = "eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl";

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = fixtures::fixture(fixtures::HOST_A_SESSIONS);
    for f in ["sessions.json", TRANSCRIPT] {
        std::fs::write(dir.path().join(f), std::fs::read(src.join(f)).unwrap()).unwrap();
    }
    dir
}

fn commit_once(dir: &Path) -> Result<(), String> {
    let p = compaction::prepare(&dir.join(TRANSCRIPT), 2000).map_err(|e| e.to_string())?;
    let s = StoreRow {
        store_path: dir.join("sessions.json"),
        session_key: "agent:main:main".into(),
        session_id: "adhoc-1".into(),
    };
    compaction::commit(&p, SUMMARY, Some(&s))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The child side; a no-op in a normal test run.
#[test]
fn compaction_crash_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    println!("READY");
    let r = commit_once(Path::new(&dir));
    println!("DONE {r:?}");
    assert!(r.is_ok());
}

fn run_child(dir: &Path, kill_after: Option<Duration>) -> Duration {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &crate::support::exact_test_name(module_path!(), "compaction_crash_child"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, dir)
        .env("CLAWTOP_TEST_COMMIT_STEP_DELAY_US", "300")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while out.read_line(&mut line).unwrap() > 0 && !line.contains("READY") {
        line.clear();
    }
    let start = Instant::now();
    if let Some(d) = kill_after {
        std::thread::sleep(d);
        // SIGKILL: no chance to clean up, as a crash.
        child.kill().unwrap();
    }
    child.wait().unwrap();
    start.elapsed()
}

#[test]
fn sigkill_during_a_compaction_commit_leaves_old_or_new_state() {
    let started = Instant::now();
    let cal = fixture();
    let full = run_child(cal.path(), None);
    let old_t = std::fs::read(fixture().path().join(TRANSCRIPT)).unwrap();
    let old_s = std::fs::read(fixture().path().join("sessions.json")).unwrap();
    assert!(
        std::fs::read(cal.path().join(TRANSCRIPT)).unwrap().len() > old_t.len(),
        "uninterrupted child commits"
    );
    let mut kills = KillWindow::new(0x2545_F491_4F6C_DD1D, full);
    let (mut olds, mut halves, mut news) = (0, 0, 0);
    for run in 0..RUNS {
        let fx = fixture();
        let delay = kills.next_delay();
        run_child(fx.path(), Some(delay));
        let t = std::fs::read(fx.path().join(TRANSCRIPT)).unwrap();
        let s = std::fs::read(fx.path().join("sessions.json")).unwrap();
        let store: Value = serde_json::from_slice(&s)
            .unwrap_or_else(|e| panic!("run {run}: store does not parse: {e}"));
        let t_new = if t == old_t {
            false
        } else {
            assert!(t.starts_with(&old_t), "run {run}: transcript rewritten");
            let added = &t[old_t.len()..];
            let line = std::str::from_utf8(added).unwrap().trim_matches('\n');
            assert_eq!(
                added.iter().filter(|&&b| b == b'\n').count(),
                1,
                "run {run}: partial or extra line {added:?}"
            );
            let e: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("run {run}: appended line invalid: {e}"));
            assert_eq!(e["type"], "compaction");
            assert_eq!(e["summary"], SUMMARY);
            true
        };
        let s_new = if s == old_s {
            false
        } else {
            assert_eq!(
                store["agent:main:main"]["compactionCount"], 13,
                "run {run}: store neither old nor new"
            );
            true
        };
        assert!(
            t_new || !s_new,
            "run {run}: store updated before the transcript"
        );
        kills.observe(match (t_new, s_new) {
            (false, _) => {
                olds += 1;
                Landed::Before
            }
            (true, false) => {
                halves += 1;
                Landed::Inside
            }
            (true, true) => {
                news += 1;
                Landed::After
            }
        });
        // A lock the child created but died before writing has no pid: OpenClaw (and
        // clawtop) reclaim it only once its mtime is past the grace period.
        for f in [TRANSCRIPT, "sessions.json"] {
            let lp = support::commit::lock_of(&fx.path().join(f));
            if std::fs::read_to_string(&lp)
                .is_ok_and(|c| serde_json::from_str::<Value>(&c).is_err())
            {
                support::commit::age_mtime(&lp, 60);
            }
        }
        // The next commit works: dead-pid locks are reclaimed. (A half state already has
        // the compaction as leaf, so the next attempt is refused as "already compacted".)
        let next = commit_once(fx.path());
        if t_new {
            assert!(
                next.is_err_and(|e| e.contains("already compacted")),
                "run {run}"
            );
        } else {
            next.unwrap_or_else(|e| {
                panic!("run {run} (kill after {delay:?}): next commit failed: {e}")
            });
        }
    }
    eprintln!(
        "compaction crash test: {RUNS} kills (window now {:?}): old {olds}, transcript-only {halves}, both new {news}; {:?}",
        kills.window(),
        started.elapsed()
    );
    assert!(olds > 0 && news > 0, "the kills missed the commit window");
}
