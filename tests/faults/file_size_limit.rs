//! Issue 20 item 6: a file-size limit (`ulimit -f`, RLIMIT_FSIZE) hit while appending is a
//! write error like any other: clawtop is not killed by SIGXFSZ, the partial line is cut
//! back, both locks are released and nothing else changes. The child runs under a real
//! limit (`bash -c 'ulimit -f N; exec clawtop …'`), set just above the file's size so the
//! append crosses it.

use crate::support::cli::{Home, Out};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn lock_of(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

/// Runs clawtop under `ulimit -f kib` (bash counts 1024-byte blocks).
fn run_limited(h: &Home, kib: u64, args: &[&str]) -> (Out, Option<i32>) {
    let mut c = Command::new("bash");
    c.arg("-c")
        .arg(format!("ulimit -f {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_clawtop"))
        .args(args)
        .current_dir(h.path())
        .env("HOME", h.path())
        .env("XDG_STATE_HOME", h.path().join(".xdg-state"));
    for (k, _) in std::env::vars() {
        if k.starts_with("OPENCLAW_") || k.starts_with("CLAWDBOT_") {
            c.env_remove(k);
        }
    }
    let o = c.output().unwrap();
    (
        Out {
            code: o.status.code().unwrap_or(-1),
            stdout: o.stdout,
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        },
        o.status.signal(),
    )
}

/// The smallest whole KiB limit above `len`: any growth past it is refused.
fn limit_above(len: u64) -> u64 {
    len.div_ceil(1024)
}

#[test]
fn a_compaction_over_the_file_size_limit_is_cut_back_and_releases_its_locks() {
    let h = Home::host_a();
    let summary = h.path().join("summary.md");
    // Larger than the slack between the transcript's size and the next KiB.
    std::fs::write(
        &summary,
        format!("## Goal\n{}", "keep the PR open. ".repeat(200)),
    )
    .unwrap();
    let before = std::fs::read(h.transcript()).unwrap();
    let store_before = std::fs::read(h.store()).unwrap();
    let dry = h.run(&[
        "compact",
        "agent:main:main",
        "--dry-run",
        "--json",
        "--keep-recent-tokens",
        "2000",
    ]);
    dry.expect(0);
    let leaf = dry.json()["leafId"].as_str().unwrap().to_string();
    let (o, signal) = run_limited(
        &h,
        limit_above(before.len() as u64),
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
    );
    assert_eq!(
        signal, None,
        "killed by signal {signal:?} (SIGXFSZ is 25): {}",
        o.stderr
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains(".jsonl"), "names the file: {}", o.stderr);
    assert!(
        o.stderr.to_lowercase().contains("too large"),
        "says why: {}",
        o.stderr
    );
    assert_eq!(
        std::fs::read(h.transcript()).unwrap(),
        before,
        "the partial line is cut back"
    );
    assert_eq!(std::fs::read(h.store()).unwrap(), store_before);
    assert!(!lock_of(&h.transcript()).exists(), "transcript lock left");
    assert!(!lock_of(&h.store()).exists(), "store lock left");
}

#[test]
fn a_flush_over_the_file_size_limit_is_cut_back_and_releases_its_locks() {
    let h = Home::host_a();
    let ws = h.path().join("ws");
    std::fs::create_dir_all(ws.join("memory")).unwrap();
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    let target = ws.join(format!("memory/{today}.md"));
    // An existing notes file a few bytes under a KiB boundary.
    let old = format!("# notes\n{}\n", "x".repeat(4 * 1024 - 20));
    std::fs::write(&target, &old).unwrap();
    let notes = h.path().join("notes.md");
    std::fs::write(&notes, "- keep PR #4411 open\n".repeat(20)).unwrap();
    let store_before = std::fs::read(h.store()).unwrap();
    let (o, signal) = run_limited(
        &h,
        limit_above(old.len() as u64),
        &[
            "flush",
            "agent:main:main",
            "--notes-file",
            notes.to_str().unwrap(),
            "--workspace",
            ws.to_str().unwrap(),
            "--yes",
        ],
    );
    assert_eq!(
        signal, None,
        "killed by signal {signal:?} (SIGXFSZ is 25): {}",
        o.stderr
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains(&format!("{today}.md")), "{}", o.stderr);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), old);
    assert_eq!(std::fs::read(h.store()).unwrap(), store_before);
    assert!(!lock_of(&h.store()).exists(), "store lock left");
    assert!(!lock_of(&h.transcript()).exists(), "transcript lock left");
}
