//! Issue 33 item 7: never a quiet OK. A transcript that is there but cannot be read (a FIFO,
//! a directory, a link to a device, out of the state dir or in a loop, a file this user may
//! not read, a damaged SQLite page, a message too large to decode) makes its figures
//! unknown: `check` says UNKNOWN (exit 3) naming the cause, `list` shows `?` instead of the
//! store's figure, `history` fails, `audit` says the loss is unknown instead of "0 lost".
//!
//! The control for every case is the same host with its transcript readable: two problems
//! (no flush before the compaction, and its loop; the copy had three), exit 1. The
//! store's own figure is set low (10,000, fresh) so that the store alone says "no problem":
//! that is the quiet OK these tests keep out.

use crate::support::cli::{Home, Out, copy_dir, run_with};
use crate::support::fixtures::{HOST_F, fixture};
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;

const WARN: &str = "compaction-loop,no-flush-before-compaction,lossy-compaction";

/// host-a whose store says 10,000 used (fresh), well under every line.
fn quiet_host() -> Home {
    let h = Home::host_a();
    let text = std::fs::read_to_string(h.store()).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for (_, e) in v.as_object_mut().unwrap() {
        e["totalTokens"] = 10_000.into();
        e["totalTokensFresh"] = true.into();
    }
    std::fs::write(h.store(), serde_json::to_string(&v).unwrap()).unwrap();
    h
}

fn check(h: &Home) -> Out {
    h.run(&["check", "--warn", WARN])
}

/// `check` says UNKNOWN (exit 3), never OK, and names `cause`; `list --json` has no used
/// figure for the session and says why.
fn unknown_naming(h: &Home, cause: &str) {
    let o = check(h);
    let text = o.text();
    assert_eq!(o.code, 3, "check: {text}\nstderr: {}", o.stderr);
    assert!(!text.contains("OK"), "{text}");
    assert!(text.starts_with("UNKNOWN: agent:main:main: "), "{text}");
    assert!(
        text.contains(cause),
        "check does not name {cause:?}: {text}"
    );

    let o = h.run(&["list", "--json"]);
    let row = &o.json()["sessions"][0];
    assert_eq!(row["used"], serde_json::Value::Null, "{row}");
    assert_eq!(row["status"], "unknown", "{row}");
    let why = row["unknown"]["transcript"].as_str().unwrap_or_default();
    assert!(why.contains(cause), "list --json: {row}");

    let o = h.run(&["list"]);
    let line = o.text().lines().nth(1).unwrap_or_default().to_string();
    assert!(
        line.contains("?/48k"),
        "list shows the store's figure: {line}"
    );

    let o = h.run(&["history", "agent:main:main"]);
    assert_ne!(o.code, 0, "history: {}", o.text());
    assert!(o.stderr.contains(cause), "history: {}", o.stderr);
    assert!(o.text().contains("TRANSCRIPT NOT READ"), "{}", o.text());
    assert!(!o.text().contains("  none\n\nFLUSHES"), "{}", o.text());
}

#[test]
fn the_readable_host_has_two_problems() {
    let h = quiet_host();
    let o = check(&h);
    assert_eq!(o.code, 1, "{}", o.text());
    assert_eq!(o.text().lines().count(), 2, "{}", o.text());
    h.run(&["history", "agent:main:main"]).expect(0);
}

#[test]
fn a_fifo_transcript_is_unknown() {
    let h = quiet_host();
    std::fs::remove_file(h.transcript()).unwrap();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        h.transcript(),
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    unknown_naming(&h, "FIFO");
}

#[test]
fn a_directory_transcript_is_unknown() {
    let h = quiet_host();
    std::fs::remove_file(h.transcript()).unwrap();
    std::fs::create_dir(h.transcript()).unwrap();
    unknown_naming(&h, "directory");
}

#[test]
fn a_transcript_linked_to_dev_zero_is_unknown() {
    let h = quiet_host();
    std::fs::remove_file(h.transcript()).unwrap();
    symlink("/dev/zero", h.transcript()).unwrap();
    unknown_naming(&h, "symbolic link (to /dev/zero)");
}

#[test]
fn a_transcript_linked_out_of_the_state_dir_is_unknown() {
    let h = quiet_host();
    let outside = h.path().join("outside.jsonl");
    std::fs::rename(h.transcript(), &outside).unwrap();
    symlink(&outside, h.transcript()).unwrap();
    unknown_naming(&h, "leaves the state dir");
}

#[test]
fn a_transcript_link_loop_is_unknown() {
    let h = quiet_host();
    let other = h.sessions_dir().join("loop.jsonl");
    std::fs::remove_file(h.transcript()).unwrap();
    symlink(&other, h.transcript()).unwrap();
    symlink(h.transcript(), &other).unwrap();
    unknown_naming(&h, "symbolic link");
}

/// A transcript of mode 0600 owned by someone else. Tests usually run as root, which reads
/// any file whatever its mode, so then clawtop runs as `nobody` (uid 65534) over a host
/// whose other files are world-readable; as another user the file is made mode 0000.
#[test]
fn a_transcript_this_user_may_not_read_is_unknown() {
    let h = quiet_host();
    let root = rustix::process::geteuid().is_root();
    if !root {
        std::fs::set_permissions(h.transcript(), std::fs::Permissions::from_mode(0o000)).unwrap();
        unknown_naming(&h, "Permission denied");
        return;
    }
    // Everything readable by all but the transcript.
    fn open_up(p: &Path) {
        let m = std::fs::symlink_metadata(p).unwrap();
        if m.is_dir() {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
            for e in std::fs::read_dir(p).unwrap() {
                open_up(&e.unwrap().path());
            }
        } else if m.is_file() {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
    open_up(h.path());
    std::fs::set_permissions(h.transcript(), std::fs::Permissions::from_mode(0o600)).unwrap();
    let as_nobody = |args: &[&str]| -> Out {
        use std::os::unix::process::CommandExt;
        let o = Command::new(env!("CARGO_BIN_EXE_clawtop"))
            .args(args)
            .current_dir(h.path())
            .env("HOME", h.path())
            .env("XDG_STATE_HOME", h.path().join(".xdg-state"))
            .uid(65534)
            .gid(65534)
            .output()
            .unwrap();
        Out {
            code: o.status.code().unwrap_or(-1),
            stdout: o.stdout,
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    };
    // The binary must be reachable by nobody for this to say anything.
    let probe = as_nobody(&["--version"]);
    assert_eq!(probe.code, 0, "nobody cannot run clawtop: {}", probe.stderr);
    let o = as_nobody(&["check", "--warn", WARN]);
    assert_eq!(o.code, 3, "{}\n{}", o.text(), o.stderr);
    assert!(
        o.text()
            .starts_with("UNKNOWN: agent:main:main: cannot read transcript"),
        "{}",
        o.text()
    );
    assert!(o.text().contains("Permission denied"), "{}", o.text());
    let o = as_nobody(&["list", "--json"]);
    assert_eq!(o.json()["sessions"][0]["used"], serde_json::Value::Null);
    let o = as_nobody(&["history", "agent:main:main"]);
    assert_ne!(o.code, 0, "{}", o.text());
    assert!(o.stderr.contains("Permission denied"), "{}", o.stderr);
}

/// A copy of host-f (2026.9.6) whose main agent database has one page of
/// `transcript_events` zeroed. The reproduction zeroed the page at 4096 × 192 of its
/// copy; in this fixture `transcript_events`' leaf pages are 173–186 (1-based, `dbstat`), so
/// the page at 4096 × 179 (page 180) is one of them.
fn host_f_damaged() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join(".openclaw");
    copy_dir(&fixture(HOST_F).join("state"), &state);
    let db = state.join("agents/main/agent/openclaw-agent.sqlite");
    let mut bytes = std::fs::read(&db).unwrap();
    bytes[4096 * 179..4096 * 180].fill(0);
    std::fs::write(&db, bytes).unwrap();
    (dir, state)
}

#[test]
fn a_damaged_sqlite_transcript_is_unknown() {
    let (dir, _state) = host_f_damaged();
    let o = run_with(dir.path(), &["check", "--warn", WARN], &[]);
    assert_eq!(o.code, 3, "{}\n{}", o.text(), o.stderr);
    assert!(
        o.text().starts_with("UNKNOWN: agent:main:incident-7: "),
        "{}",
        o.text()
    );
    assert!(o.text().contains("malformed"), "{}", o.text());
    let o = run_with(dir.path(), &["list", "--json"], &[]);
    let rows = o.json()["sessions"].as_array().unwrap().clone();
    let row = rows
        .iter()
        .find(|r| r["sessionKey"] == "agent:main:incident-7")
        .unwrap();
    assert_eq!(row["used"], serde_json::Value::Null, "{row}");
    assert!(row["unknown"]["transcript"].is_string(), "{row}");
    // The other agent's sessions are still read.
    assert!(
        rows.iter()
            .filter(|r| r["agentId"] == "ops")
            .all(|r| r["used"].is_u64()),
        "{rows:?}"
    );
    let o = run_with(dir.path(), &["history", "agent:main:incident-7"], &[]);
    assert_ne!(o.code, 0, "{}", o.text());
}

/// host-a with the first message the compaction summarized (entry b75e2424, a user turn)
/// grown past the 16 MiB clawtop decodes.
#[test]
fn a_message_too_large_to_read_in_the_summarized_span_is_an_unknown_loss() {
    let h = Home::host_a();
    let text = std::fs::read_to_string(h.transcript()).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let i = lines
        .iter()
        .position(|l| l.contains("\"id\":\"b75e2424\""))
        .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&lines[i]).unwrap();
    let big = "https://example.com/p ".repeat((17 << 20) / 22);
    v["message"]["content"] = serde_json::json!([{ "type": "text", "text": big }]);
    lines[i] = serde_json::to_string(&v).unwrap();
    std::fs::write(h.transcript(), lines.join("\n") + "\n").unwrap();

    let o = h.run(&["audit", "agent:main:main"]);
    let text = o.text();
    assert!(!text.contains("0 lost"), "{text}");
    assert!(text.contains("(1 unknown)"), "{text}");
    assert!(
        text.contains("b75e2424"),
        "the unread message is named: {text}"
    );
    let o = h.run(&["audit", "agent:main:main", "--json"]);
    let v = o.json();
    assert_eq!(v["totals"]["unknown"], 1, "{v}");
    assert_eq!(
        v["compactions"][0]["identifiers"],
        serde_json::Value::Null,
        "{v}"
    );
    // `check` asked about lossy compactions cannot say there is none.
    let o = h.run(&["check", "--warn", "lossy-compaction", "--crit", "over"]);
    assert_eq!(o.code, 3, "{}\n{}", o.text(), o.stderr);
    assert!(
        o.text()
            .starts_with("UNKNOWN: agent:main:main: lossy-compaction: message b75e2424"),
        "{}",
        o.text()
    );
}
