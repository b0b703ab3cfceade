//! Crash safety: SIGKILL a process in the middle of a commit (transcript append +
//! store patch) at many pseudo-random points and check after every kill that
//! - every transcript line is valid JSON and the file is exactly the old bytes or the
//!   old bytes plus the one new line;
//! - `sessions.json` parses and is exactly the old or the new bytes (and is only new
//!   when the transcript is new: the append comes first);
//! - whatever lock the dead child left is reclaimable by the next run, and that next
//!   commit succeeds.
//!
//! The child is this test binary re-executed with `CLAWTOP_TEST_CRASH_CHILD_DIR` set,
//! running only `crash_child`. `CLAWTOP_TEST_COMMIT_STEP_DELAY_US` (see
//! `clawtop::commit` docs) stretches the commit so kills land inside it. Kill delays
//! come from a fixed-seed PRNG over a window that follows the machine's speed
//! (`support::kill_window`), so runs are reproducible up to scheduling.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::commit::*;
use crate::support::kill_window::{KillWindow, Landed};
use clawtop::commit::lock::{self, LockOptions};
use clawtop::commit::{CommitError, Expect, append_line, compaction_patch, patch_store_entry};

const CHILD_ENV: &str = "CLAWTOP_TEST_CRASH_CHILD_DIR";
const STEP_DELAY_US: &str = "400";
const RUNS: usize = 120;
const NOW: i64 = 1_795_300_000_000;
const LINE: &[u8] = br#"{"type":"compaction","id":"c0ffee01","parentId":"p","timestamp":"2026-11-21T05:00:00.000Z","summary":"Goal: keep PR 12 open","firstKeptEntryId":"k","tokensBefore":75943,"details":{"readFiles":[],"modifiedFiles":[]}}"#;

fn commit_once(dir: &Path) -> Result<(), CommitError> {
    let t = dir.join(TRANSCRIPT_NAME);
    let store = dir.join("sessions.json");
    let exp = Expect::capture(&t)?;
    append_line(&t, &exp, LINE)?;
    patch_store_entry(&store, SESSION_KEY, |e| {
        compaction_patch(&store, e, 18_000, NOW)
    })?;
    Ok(())
}

/// The child side; a no-op in a normal test run.
#[test]
fn crash_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    println!("READY");
    let r = commit_once(Path::new(&dir));
    println!("DONE {r:?}");
    assert!(r.is_ok());
}

/// Spawn the child on `dir`, wait for READY, then kill after `delay` (None = let it
/// finish). Returns the child's pid and the time from READY to exit or kill.
fn run_child(dir: &Path, delay: Option<Duration>) -> (u32, Duration) {
    let mut child = Command::new(std::env::current_exe().expect("exe"))
        .args([
            "--exact",
            &crate::support::exact_test_name(module_path!(), "crash_child"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, dir)
        .env("CLAWTOP_TEST_COMMIT_STEP_DELAY_US", STEP_DELAY_US)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn child");
    let pid = child.id();
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    loop {
        line.clear();
        let n = out.read_line(&mut line).expect("read child stdout");
        assert!(n > 0, "child exited before READY");
        if line.contains("READY") {
            break;
        }
    }
    let start = Instant::now();
    match delay {
        Some(d) => {
            std::thread::sleep(d);
            let _ = child.kill(); // SIGKILL
            let _ = child.wait();
        }
        None => {
            let mut rest = String::new();
            let _ = std::io::Read::read_to_string(&mut out, &mut rest);
            let status = child.wait().expect("wait");
            assert!(
                status.success() && rest.contains("DONE Ok"),
                "uninterrupted child failed: {rest}"
            );
        }
    }
    (pid, start.elapsed())
}

#[test]
fn sigkill_anywhere_in_a_commit_leaves_old_or_new_state() {
    let started = Instant::now();

    // Reference states: old bytes, and new bytes from an uninterrupted in-process commit.
    let reference = Fixture::new();
    let old_t = fs::read(reference.transcript()).expect("read");
    let old_s = fs::read(reference.store()).expect("read");
    commit_once(reference.dir.path()).expect("reference commit");
    let new_t = fs::read(reference.transcript()).expect("read");
    let new_s = fs::read(reference.store()).expect("read");
    assert_eq!(new_t, [&old_t[..], LINE, b"\n"].concat());

    // Calibrate the kill window on an uninterrupted child.
    let cal = Fixture::new();
    let (_, full) = run_child(cal.dir.path(), None);
    assert_eq!(fs::read(cal.transcript()).expect("read"), new_t);
    assert_eq!(fs::read(cal.store()).expect("read"), new_s);
    let mut kills = KillWindow::new(0x9E37_79B9_7F4A_7C15, full);

    let (mut old_old, mut new_old, mut new_new, mut locks_left, mut temps_left) = (0, 0, 0, 0, 0);
    for run in 0..RUNS {
        let fx = Fixture::new();
        let delay = kills.next_delay();
        let (pid, _) = run_child(fx.dir.path(), Some(delay));
        let t = fx.transcript();
        let s = fx.store();

        let got_t = fs::read(&t).expect("read transcript");
        let got_s = fs::read(&s).expect("read store");
        for (i, l) in got_t
            .split(|b| *b == b'\n')
            .enumerate()
            .filter(|(_, l)| !l.is_empty())
        {
            serde_json::from_slice::<serde_json::Value>(l).unwrap_or_else(|e| {
                panic!("run {run} (kill after {delay:?}): transcript line {i} invalid: {e}")
            });
        }
        serde_json::from_slice::<serde_json::Value>(&got_s)
            .unwrap_or_else(|e| panic!("run {run}: store does not parse: {e}"));
        let t_new = match () {
            _ if got_t == old_t => false,
            _ if got_t == new_t => true,
            _ => panic!(
                "run {run} (kill after {delay:?}): transcript is neither old nor old + line ({} bytes)",
                got_t.len()
            ),
        };
        let s_new = match () {
            _ if got_s == old_s => false,
            _ if got_s == new_s => true,
            _ => panic!("run {run} (kill after {delay:?}): store is neither old nor new"),
        };
        assert!(
            t_new || !s_new,
            "run {run}: store updated without the transcript entry"
        );
        kills.observe(match (t_new, s_new) {
            (false, false) => {
                old_old += 1;
                Landed::Before
            }
            (true, false) => {
                new_old += 1;
                Landed::Inside
            }
            _ => {
                new_new += 1;
                Landed::After
            }
        });

        // Leftovers of the dead child: its locks (maybe still empty if it died between
        // create and write) and its temp file (OpenClaw ignores/cleans `*.tmp`).
        for target in [&t, &s] {
            let lp = lock_of(target);
            if let Ok(content) = fs::read_to_string(&lp) {
                locks_left += 1;
                match serde_json::from_str::<serde_json::Value>(&content) {
                    Ok(v) => assert_eq!(
                        v["pid"].as_u64(),
                        Some(pid as u64),
                        "run {run}: lock not the child's"
                    ),
                    // Unwritten lock: reclaimable once its mtime is past the grace.
                    Err(_) => age_mtime(&lp, 60),
                }
            }
        }
        temps_left += fx
            .names()
            .iter()
            .filter(|n| n.starts_with(&format!("sessions.json.{pid}.")) && n.ends_with(".tmp"))
            .count();
        assert!(
            fx.names().iter().all(|n| n == "sessions.json"
                || n == TRANSCRIPT_NAME
                || n.ends_with(".lock")
                || n.ends_with(".tmp")),
            "run {run}: unexpected files {:?}",
            fx.names()
        );

        // The next run: locks reclaimable at once (dead pid), and a full commit works.
        let g1 = lock::acquire(&t, &LockOptions::transcript())
            .unwrap_or_else(|e| panic!("run {run}: {e}"));
        let g2 = lock::acquire(
            &s,
            &LockOptions {
                wait: Duration::ZERO,
                ..LockOptions::store()
            },
        )
        .unwrap_or_else(|e| panic!("run {run}: {e}"));
        drop((g1, g2));
        commit_once(fx.dir.path()).unwrap_or_else(|e| panic!("run {run}: next commit failed: {e}"));
        assert!(!lock_of(&t).exists() && !lock_of(&s).exists());
    }
    eprintln!(
        "crash test: {RUNS} kills (window now {:?}): old/old {old_old}, new/old {new_old}, new/new {new_new}; \
         {locks_left} locks and {temps_left} temp files left behind; {:?}",
        kills.window(),
        started.elapsed()
    );
    // The kills must actually land inside the commit, not only before or after it.
    assert!(old_old > 0 && new_new > 0, "kill window missed the commit");
    assert!(
        new_old + locks_left + temps_left > 0,
        "no kill landed inside the critical section"
    );
}
