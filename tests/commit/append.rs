//! Transcript append: preconditions, single write, rollback, lock handling.

use std::fs;

use crate::support::commit::*;
use clawtop::commit::{CommitError, Expect, append_line};

const LINE: &[u8] = br#"{"type":"compaction","id":"0a1b2c3d","parentId":"x","timestamp":"2026-11-21T05:00:00.000Z","summary":"Goal\nkeep PR 12","firstKeptEntryId":"y","tokensBefore":75943,"details":{"readFiles":[],"modifiedFiles":[]}}"#;

#[test]
fn appends_one_line_to_the_fixture() {
    let fx = Fixture::new();
    let t = fx.transcript();
    let before = fs::read(&t).expect("read");
    let exp = Expect::capture(&t).expect("capture");
    assert_eq!(exp.len, before.len() as u64);
    // The last line of the fixture is an assistant message; capture must find its id.
    let last_line = before[..before.len() - 1]
        .rsplit(|b| *b == b'\n')
        .next()
        .expect("last line");
    let v: serde_json::Value = serde_json::from_slice(last_line).expect("json");
    assert_eq!(exp.last_entry_id.as_deref(), v["id"].as_str());

    let out = append_line(&t, &exp, LINE).expect("append");
    let after = fs::read(&t).expect("read");
    assert_eq!(&after[..before.len()], &before[..]);
    assert_eq!(&after[before.len()..], [LINE, b"\n"].concat().as_slice());
    assert_eq!(out.offset, before.len() as u64);
    assert_eq!(out.new_len, after.len() as u64);
    assert_eq!(out.bytes_written, LINE.len() as u64 + 1);
    for l in after.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        serde_json::from_slice::<serde_json::Value>(l).expect("every line JSON");
    }
    assert!(!lock_of(&t).exists(), "lock released");
    assert_eq!(
        Expect::capture(&t)
            .expect("capture")
            .last_entry_id
            .as_deref(),
        Some("0a1b2c3d")
    );
}

#[test]
fn refuses_when_changed_since_preview() {
    let fx = Fixture::new();
    let t = fx.transcript();
    let exp = Expect::capture(&t).expect("capture");
    let before = fs::read(&t).expect("read");

    let wrong_len = Expect {
        len: exp.len - 1,
        ..exp.clone()
    };
    let e = append_line(&t, &wrong_len, LINE).expect_err("changed");
    assert!(matches!(e, CommitError::Changed { .. }), "{e}");
    assert_eq!(e.verdict(), clawtop::commit::Verdict::Refused);
    assert!(
        e.to_string().contains("transcript changed since preview"),
        "{e}"
    );

    let wrong_id = Expect {
        last_entry_id: Some("deadbeef".into()),
        ..exp.clone()
    };
    let e = append_line(&t, &wrong_id, LINE).expect_err("changed");
    assert!(matches!(e, CommitError::Changed { .. }), "{e}");

    assert_eq!(fs::read(&t).expect("read"), before, "untouched");
    assert!(!lock_of(&t).exists(), "lock released on the error path");
}

#[test]
fn refuses_when_openclaw_holds_the_lock() {
    let fx = Fixture::new();
    let t = fx.transcript();
    let exp = Expect::capture(&t).expect("capture");
    let before = fs::read(&t).expect("read");
    let turn = Sleeper::new();
    let payload = lock_payload(turn.pid(), &now_iso());
    fs::write(lock_of(&t), &payload).expect("lock");
    let e = append_line(&t, &exp, LINE).expect_err("busy");
    assert!(matches!(e, CommitError::Busy { pid: Some(p), .. } if p as i64 == turn.pid()));
    assert_eq!(e.verdict(), clawtop::commit::Verdict::Refused);
    assert_eq!(fs::read(&t).expect("read"), before);
    assert_eq!(fs::read_to_string(lock_of(&t)).expect("lock kept"), payload);
}

#[test]
fn stale_lock_left_by_a_dead_process_is_reclaimed() {
    let fx = Fixture::new();
    let t = fx.transcript();
    fs::write(lock_of(&t), lock_payload(dead_pid(), &now_iso())).expect("lock");
    let exp = Expect::capture(&t).expect("capture");
    append_line(&t, &exp, LINE).expect("append after reclaim");
    assert!(!lock_of(&t).exists());
}

#[test]
fn refuses_bad_lines_without_touching_anything() {
    let fx = Fixture::new();
    let t = fx.transcript();
    let exp = Expect::capture(&t).expect("capture");
    let before = fs::read(&t).expect("read");
    for bad in [
        &b"{\"a\":1}\n"[..],
        b"{\"a\":\n1}",
        b"[1]",
        b"\"s\"",
        b"{\"a\":",
        b"",
        b"{\"a\":1}\r",
    ] {
        let e = append_line(&t, &exp, bad).expect_err("refused");
        assert!(matches!(e, CommitError::Refused { .. }), "{bad:?}: {e}");
        assert_eq!(e.verdict(), clawtop::commit::Verdict::Refused);
    }
    assert_eq!(fs::read(&t).expect("read"), before);
    assert!(!lock_of(&t).exists());
}

#[test]
fn missing_final_newline_gets_one_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = dir.path().join("s.jsonl");
    fs::write(
        &t,
        b"{\"type\":\"session\",\"id\":\"h\"}\n{\"type\":\"message\",\"id\":\"a1\"}",
    )
    .expect("write");
    let exp = Expect::capture(&t).expect("capture");
    assert_eq!(exp.last_entry_id.as_deref(), Some("a1"));
    let out = append_line(&t, &exp, br#"{"id":"b2"}"#).expect("append");
    assert_eq!(out.bytes_written, 13);
    assert_eq!(
        fs::read_to_string(&t).expect("read"),
        "{\"type\":\"session\",\"id\":\"h\"}\n{\"type\":\"message\",\"id\":\"a1\"}\n{\"id\":\"b2\"}\n"
    );
}

#[test]
fn half_written_tail_and_blank_lines_are_skipped_for_the_id() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = dir.path().join("s.jsonl");
    fs::write(
        &t,
        b"{\"id\":\"a1\"}\n\n  \n{\"type\":\"message\",\"id\":\"a2\"}\n{\"type\":\"mess",
    )
    .expect("write");
    let exp = Expect::capture(&t).expect("capture");
    assert_eq!(exp.last_entry_id.as_deref(), Some("a2"));
    append_line(&t, &exp, br#"{"id":"a3"}"#).expect("append");
    assert!(
        fs::read_to_string(&t)
            .expect("read")
            .ends_with("{\"type\":\"mess\n{\"id\":\"a3\"}\n")
    );

    // v1 entries have no id.
    fs::write(&t, b"{\"type\":\"message\"}\n").expect("write");
    assert_eq!(Expect::capture(&t).expect("capture").last_entry_id, None);
}

#[test]
fn empty_file_and_long_last_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = dir.path().join("s.jsonl");
    fs::write(&t, b"").expect("write");
    let exp = Expect::capture(&t).expect("capture");
    assert_eq!(
        exp,
        Expect {
            len: 0,
            last_entry_id: None
        }
    );
    append_line(&t, &exp, br#"{"id":"h"}"#).expect("append");
    assert_eq!(fs::read(&t).expect("read"), b"{\"id\":\"h\"}\n");

    // A last line spanning several 64 KiB read chunks.
    let big = format!("{{\"id\":\"big\",\"pad\":\"{}\"}}\n", "x".repeat(300_000));
    fs::write(&t, format!("{{\"id\":\"first\"}}\n{big}")).expect("write");
    assert_eq!(
        Expect::capture(&t)
            .expect("capture")
            .last_entry_id
            .as_deref(),
        Some("big")
    );
}

#[test]
fn missing_transcript_is_an_io_error_naming_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = dir.path().join("nope.jsonl");
    let e = append_line(
        &t,
        &Expect {
            len: 0,
            last_entry_id: None,
        },
        br#"{"id":"h"}"#,
    )
    .expect_err("missing");
    assert!(matches!(e, CommitError::Io { .. }));
    assert_eq!(e.verdict(), clawtop::commit::Verdict::Failed);
    assert!(e.to_string().contains("nope.jsonl"), "{e}");
    assert!(!t.exists(), "not created");
    assert!(!lock_of(&t).exists(), "lock released");
}

/// A write that fails half-way (file size limit) is rolled back to the old length.
/// Runs in a child process because RLIMIT_FSIZE is process-wide.
#[test]
fn failed_write_is_truncated_back() {
    const ENV: &str = "CLAWTOP_TEST_APPEND_ROLLBACK_FILE";
    if let Ok(path) = std::env::var(ENV) {
        let t = std::path::PathBuf::from(path);
        let exp = Expect::capture(&t).expect("capture");
        // As the binary does first thing: the limit is a write error, not the end.
        clawtop::commit::ignore_file_size_signal();
        rustix::process::setrlimit(
            rustix::process::Resource::Fsize,
            rustix::process::Rlimit {
                current: Some(exp.len + 10),
                maximum: None,
            },
        )
        .expect("setrlimit");
        let e = append_line(&t, &exp, LINE).expect_err("write must fail");
        assert!(matches!(e, CommitError::Io { .. }), "{e}");
        println!("CHILD-OK {e}");
        return;
    }
    let fx = Fixture::new();
    let t = fx.transcript();
    let before = fs::read(&t).expect("read");
    let out = std::process::Command::new(std::env::current_exe().expect("exe"))
        .args([
            "--exact",
            &crate::support::exact_test_name(module_path!(), "failed_write_is_truncated_back"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ENV, &t)
        .output()
        .expect("run child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("CHILD-OK"),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        fs::read(&t).expect("read"),
        before,
        "rolled back to the exact old bytes"
    );
    assert!(!lock_of(&t).exists());
}
