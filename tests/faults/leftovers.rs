//! Issue 12 item 9: clawtop's own stale temp files are cleaned up; odd `sessions.json`
//! files (FIFO, directory, link to /dev/zero, link loop) are named in a warning and never
//! block; an unsafe `sessionId` and a symlinked transcript say why everywhere.

use crate::support::cli as cli_support;

use cli_support::{Home, Out};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

const STORE: &str = r#"{
  "agent:main:main": {
    "sessionId": "s1",
    "updatedAt": 1,
    "compactionCount": 2
  }
}"#;

fn dead_pid() -> u32 {
    let mut c = Command::new("true").spawn().unwrap();
    let pid = c.id();
    c.wait().unwrap();
    pid
}

fn touch_at(p: &Path, t: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

#[test]
fn stale_temp_files_of_dead_clawtops_are_removed_by_the_next_commit() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("sessions.json");
    std::fs::write(&store, STORE).unwrap();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    let dead = dead_pid();
    let me = std::process::id();
    let uuid = "0f8e4c1a-9f5e-4c59-8f00-5b1d2f3a4c5d";
    let stale = dir.path().join(format!("sessions.json.{dead}.{uuid}.tmp"));
    let fresh = dir
        .path()
        .join(format!("sessions.json.{dead}.1{}.tmp", &uuid[1..]));
    let live = dir
        .path()
        .join(format!("sessions.json.{me}.2{}.tmp", &uuid[1..]));
    let other = dir.path().join("sessions.json.backup.tmp");
    for p in [&stale, &fresh, &live, &other] {
        std::fs::write(p, "{}").unwrap();
    }
    for p in [&stale, &live, &other] {
        touch_at(p, hour_ago);
    }
    clawtop::commit::patch_store_entry(&store, "agent:main:main", |e| {
        clawtop::commit::compaction_patch(&store, e, 10, 5)
    })
    .unwrap();
    assert!(!stale.exists(), "a dead clawtop's old temp file is removed");
    assert!(
        fresh.exists(),
        "a recent one is left (its writer may be slow, not dead)"
    );
    assert!(live.exists(), "a live process's temp file is left");
    assert!(other.exists(), "files not named like clawtop's are left");
}

/// Run with a hard limit: a FIFO must never block clawtop.
fn run_bounded(h: &Home, args: &[&str]) -> Out {
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawtop"));
    c.args(args)
        .current_dir(h.path())
        .env("HOME", h.path())
        .env("XDG_STATE_HOME", h.path().join(".xdg-state"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, _) in std::env::vars() {
        if k.starts_with("OPENCLAW_") || k.starts_with("CLAWDBOT_") {
            c.env_remove(k);
        }
    }
    let mut child = c.spawn().unwrap();
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("clawtop {args:?} blocked");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: o.stdout,
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn mkfifo(p: &Path) {
    rustix::fs::mkfifoat(rustix::fs::CWD, p, rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
}

#[test]
fn odd_session_stores_are_named_in_a_warning_and_never_block() {
    type Make = fn(&Path);
    let cases: [(&str, Make, &str); 4] = [
        ("fifo", mkfifo, "FIFO"),
        ("dir", |p| std::fs::create_dir(p).unwrap(), "directory"),
        (
            "devzero",
            |p| std::os::unix::fs::symlink("/dev/zero", p).unwrap(),
            "device",
        ),
        (
            "loop",
            |p| std::os::unix::fs::symlink(p, p).unwrap(),
            "link",
        ),
    ];
    for (name, make, word) in cases {
        let h = Home::host_a();
        std::fs::remove_file(h.store()).unwrap();
        make(&h.store());
        for args in [&["list"][..], &["list", "--json"][..]] {
            let o = run_bounded(&h, args);
            let all = format!("{}{}", o.text(), o.stderr);
            assert!(
                all.contains("agents/main/sessions/sessions.json"),
                "{name} {args:?}: {all}"
            );
            assert!(all.contains(word), "{name} {args:?}: {all}");
        }
    }
}

fn set_session_id(h: &Home, id: &str) {
    let s = std::fs::read_to_string(h.store()).unwrap();
    let old = "adhoc-1";
    assert!(s.contains(old));
    std::fs::write(
        h.store(),
        s.replace(
            &format!("\"sessionId\": \"{old}\""),
            &format!("\"sessionId\": \"{id}\""),
        ),
    )
    .unwrap();
}

#[test]
fn show_and_compact_say_why_an_unsafe_session_id_is_skipped() {
    let h = Home::host_a();
    set_session_id(&h, "../../../etc/passwd");
    for args in [
        &["show", "agent:main:main"][..],
        &["compact", "agent:main:main", "--dry-run"][..],
        &["flush", "agent:main:main", "--dry-run"][..],
    ] {
        let o = h.run(args);
        assert_ne!(o.code, 0);
        assert!(o.stderr.contains("sessionId"), "{args:?}: {}", o.stderr);
        assert!(
            o.stderr.contains("unsafe") || o.stderr.contains("not safe"),
            "{args:?}: {}",
            o.stderr
        );
    }
}

#[test]
fn a_symlinked_transcript_says_it_is_a_link_and_is_refused() {
    let h = Home::host_a();
    let outside = h.path().join("outside.jsonl");
    std::fs::copy(h.transcript(), &outside).unwrap();
    std::fs::remove_file(h.transcript()).unwrap();
    std::os::unix::fs::symlink(&outside, h.transcript()).unwrap();
    for args in [
        &["show", "agent:main:main"][..],
        &["compact", "agent:main:main", "--dry-run"][..],
    ] {
        let o = h.run(args);
        let all = format!("{}{}", o.text(), o.stderr);
        assert!(all.contains("symbolic link"), "{args:?}: {all}");
        assert!(all.contains("refused"), "{args:?}: {all}");
        assert!(!all.contains("transcript not found"), "{args:?}: {all}");
    }
}
