//! Issue 20 item 2: a FIFO (or any non-regular file) where clawtop expects a file never
//! blocks it. Each file it reads is opened non-blocking and refused, by name, when it is not a
//! regular file: the agent database and its `-wal`/`-shm`, `models.json`, a transcript's
//! `.lock`, `memory/<date>.md`, `openclaw.json`, the transcript itself.
//!
//! A FIFO with no writer blocks an ordinary `open` forever, so a child that is still running
//! after [`LIMIT`] is a hang (the figure the issue asks for, one second, is measured by hand
//! on an idle machine; the bound here leaves room for a loaded CI box).

use crate::support::cli::{Home, Out};
use crate::support::fixtures::{HOST_F, fixture};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(10);

fn mkfifo(p: &Path) {
    let _ = std::fs::remove_file(p);
    rustix::fs::mkfifoat(rustix::fs::CWD, p, rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
}

/// Runs clawtop with HOME at `home`; kills it and fails the test when it outlives [`LIMIT`].
fn run_bounded(home: &Path, args: &[&str]) -> (Out, Duration) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawtop"));
    c.args(args)
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join(".xdg-state"))
        .stdin(Stdio::null())
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
        if t.elapsed() > LIMIT {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("clawtop {args:?} blocked for more than {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = t.elapsed();
    let o = child.wait_with_output().unwrap();
    let out = Out {
        code: o.status.code().unwrap_or(-1),
        stdout: o.stdout,
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    assert!(!out.stderr.contains("panicked"), "{args:?}: {}", out.stderr);
    (out, took)
}

fn all(o: &Out) -> String {
    format!("{}{}", o.text(), o.stderr)
}

/// Asserts `args` ends within the bound and names `file` and that it is a FIFO.
fn refuses(home: &Path, args: &[&str], file: &str) -> Out {
    let (o, took) = run_bounded(home, args);
    let text = all(&o);
    assert!(
        text.contains(file),
        "{args:?} ({took:?}) does not name {file}: {text}"
    );
    assert!(
        text.contains("FIFO"),
        "{args:?} ({took:?}) does not say {file} is a FIFO: {text}"
    );
    o
}

/// A copy of host-f (SQLite era) under a temp HOME as `~/.openclaw`.
fn host_f() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join(".openclaw");
    crate::support::cli::copy_dir(&fixture(HOST_F).join("state"), &state);
    (dir, state)
}

#[test]
fn a_fifo_agent_database_is_refused_by_name() {
    let (dir, state) = host_f();
    let db = state.join("agents/main/agent/openclaw-agent.sqlite");
    mkfifo(&db);
    for args in [&["list", "--json"][..], &["list"][..]] {
        refuses(dir.path(), args, "agents/main/agent/openclaw-agent.sqlite");
    }
}

#[test]
fn a_fifo_wal_or_shm_beside_the_agent_database_is_refused_by_name() {
    for suffix in ["-wal", "-shm"] {
        let (dir, state) = host_f();
        let db = state.join("agents/main/agent/openclaw-agent.sqlite");
        let mut side = db.clone().into_os_string();
        side.push(suffix);
        mkfifo(Path::new(&side));
        // The other side file present too, so the database is opened the WAL way.
        let other = if suffix == "-wal" { "-shm" } else { "-wal" };
        let mut o = db.clone().into_os_string();
        o.push(other);
        std::fs::write(Path::new(&o), b"").unwrap();
        refuses(
            dir.path(),
            &["list", "--json"],
            &format!("openclaw-agent.sqlite{suffix}"),
        );
    }
}

#[test]
fn a_fifo_models_json_is_refused_by_name() {
    let h = Home::host_a();
    mkfifo(&h.state().join("agents/main/agent/models.json"));
    for args in [&["list", "--json"][..], &["show", "agent:main:main"][..]] {
        refuses(h.path(), args, "models.json");
    }
    // The plan does not list the session's warnings; it must still not block.
    let (o, _) = run_bounded(h.path(), &["compact", "agent:main:main", "--dry-run"]);
    o.expect(0);
}

#[test]
fn a_fifo_openclaw_json_is_refused_by_name() {
    let h = Home::host_a();
    mkfifo(&h.state().join("openclaw.json"));
    refuses(h.path(), &["list", "--json"], "openclaw.json");
}

#[test]
fn a_fifo_transcript_is_refused_by_name() {
    let h = Home::host_a();
    mkfifo(&h.transcript());
    for args in [
        &["show", "agent:main:main"][..],
        &["compact", "agent:main:main", "--dry-run"][..],
    ] {
        refuses(h.path(), args, "eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl");
    }
}

#[test]
fn a_fifo_transcript_lock_is_refused_by_name() {
    let h = Home::host_a();
    let mut lock = h.transcript().into_os_string();
    lock.push(".lock");
    mkfifo(Path::new(&lock));
    let before = std::fs::read(h.transcript()).unwrap();
    let notes = h.path().join("notes.md");
    std::fs::write(&notes, "- keep PR #4411 open").unwrap();
    let ws = h.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    for args in [
        &["show", "agent:main:main"][..],
        &["compact", "agent:main:main", "--dry-run"][..],
        &[
            "flush",
            "agent:main:main",
            "--notes-file",
            notes.to_str().unwrap(),
            "--workspace",
            ws.to_str().unwrap(),
            "--yes",
        ][..],
    ] {
        let (o, took) = run_bounded(h.path(), args);
        let text = all(&o);
        if args[0] == "flush" {
            assert_ne!(o.code, 0, "a commit past an unreadable lock: {text}");
            assert!(text.contains(".jsonl.lock"), "{args:?} ({took:?}): {text}");
            assert!(text.contains("FIFO"), "{args:?} ({took:?}): {text}");
        }
    }
    assert_eq!(std::fs::read(h.transcript()).unwrap(), before);
    assert!(
        !ws.join("memory").exists() || std::fs::read_dir(ws.join("memory")).unwrap().count() == 0,
        "nothing written past an unreadable lock"
    );
}

#[test]
fn a_fifo_memory_file_is_refused_by_name() {
    let h = Home::host_a();
    let ws = h.path().join("ws");
    std::fs::create_dir_all(ws.join("memory")).unwrap();
    // Both dates: the run may cross midnight, and the test's clock is the child's.
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    let target = ws.join(format!("memory/{today}.md"));
    mkfifo(&target);
    let notes = h.path().join("notes.md");
    std::fs::write(&notes, "- keep PR #4411 open").unwrap();
    for last in ["--dry-run", "--yes"] {
        let o = refuses(
            h.path(),
            &[
                "flush",
                "agent:main:main",
                "--notes-file",
                notes.to_str().unwrap(),
                "--workspace",
                ws.to_str().unwrap(),
                last,
            ],
            &format!("memory/{today}.md"),
        );
        if last == "--yes" {
            assert_ne!(o.code, 0, "{}", all(&o));
        }
    }
}

#[test]
fn a_fifo_bootstrap_file_in_the_workspace_does_not_block_show() {
    let h = Home::host_a();
    mkfifo(&h.state().join("workspace/AGENTS.md"));
    for args in [
        &["show", "agent:main:main"][..],
        &["compact", "agent:main:main", "--dry-run"][..],
    ] {
        let (o, _) = run_bounded(h.path(), args);
        o.expect(0);
    }
}
