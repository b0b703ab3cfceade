//! `commit_flush` on a copy of host-a: append rules, store patch field by field,
//! NO_REPLY, refusals that must leave everything untouched.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use crate::support::flush::*;
use clawtop::flush::{FlushError, FlushGate, commit_flush};
use serde_json::Value;

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

#[test]
fn store_patch_is_exactly_two_fields_in_place() {
    let h = Host::new();
    let before_text = String::from_utf8(h.store_bytes()).expect("utf8");
    let before = h.entry();
    let t0 = now_ms();
    let c =
        commit_flush(&h.workspace(), DATE, "- a note", false, Some(&h.session())).expect("commit");
    let t1 = now_ms();
    let at = c.memory_flush_at.expect("memoryFlushAt");
    assert!(t0 <= at && at <= t1, "{t0} <= {at} <= {t1}");
    assert_eq!(c.memory_flush_compaction_count, Some(12));

    // Byte for byte: only the two new keys, at the end of the entry; the rest (unknown
    // fields such as skillsSnapshot, key order, number text, no trailing newline) intact.
    let after_text = String::from_utf8(h.store_bytes()).expect("utf8");
    assert_eq!(after_text, expected_store_after_flush(&before_text, at, 12));

    // Field by field.
    let after = h.entry();
    let keys_before: Vec<&String> = before.keys().collect();
    let keys_after: Vec<&String> = after.keys().collect();
    assert_eq!(&keys_after[..keys_before.len()], &keys_before[..]);
    assert_eq!(
        &keys_after[keys_before.len()..],
        &["memoryFlushAt", "memoryFlushCompactionCount"]
    );
    for (k, v) in &before {
        assert_eq!(after.get(k), Some(v), "field {k} changed");
    }
    assert_eq!(after["memoryFlushAt"], Value::from(at));
    assert_eq!(after["memoryFlushCompactionCount"], Value::from(12));
    assert_eq!(after["updatedAt"], before["updatedAt"]);
    assert_eq!(
        fs::metadata(h.store()).expect("stat").permissions().mode() & 0o777,
        0o600
    );

    // Afterwards the session is flushed this cycle and no longer flush-due.
    let entry = Value::Object(after);
    let g = FlushGate::new(&h.config(), &entry, Some(24_000), Some(75_943), "fresh");
    assert!(g.flushed_this_cycle && !g.due, "{g:?}");
    assert_eq!(
        entry["memoryFlushCompactionCount"],
        entry["compactionCount"]
    );

    // No lock or temp files left behind.
    let mut names: Vec<String> = fs::read_dir(h.sessions_dir())
        .expect("ls")
        .map(|e| e.expect("e").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec![TRANSCRIPT_NAME.to_string(), "sessions.json".to_string()]
    );
}

#[test]
fn creates_memory_dir_and_file() {
    let h = Host::new();
    let ws_before = snapshot(&h.workspace());
    let notes = "## Deployment\n- step 12 reviewed; rollback plan pending\n- PR #4711 open";
    let c = commit_flush(&h.workspace(), DATE, notes, false, Some(&h.session())).expect("commit");
    assert!(c.created_memory_dir && c.created_file);
    assert_eq!(c.target, h.target());
    assert_eq!(
        fs::read(h.target()).expect("read"),
        format!("{notes}\n").into_bytes()
    );
    assert_eq!(c.appended_bytes, notes.len() as u64 + 1);
    assert_eq!(c.notes_offset, Some(0));
    assert!(fs::metadata(h.memory()).expect("stat").is_dir());
    // Nothing else in the workspace changed (no probe file left over).
    let ws_after: Vec<_> = snapshot(&h.workspace())
        .into_iter()
        .filter(|(p, _)| !p.starts_with(h.memory()))
        .collect();
    assert_eq!(ws_after, ws_before);
    assert_eq!(fs::read_dir(h.memory()).expect("ls").count(), 1);
}

#[test]
fn appends_after_text_without_final_newline() {
    let h = Host::new();
    fs::create_dir(h.memory()).expect("mkdir");
    let existing = "# 2026-11-21\n\n- earlier: café ✓ \u{1b}[31m raw bytes kept"
        .as_bytes()
        .to_vec();
    fs::write(h.target(), &existing).expect("write");
    let notes = "- new fact";
    let c = commit_flush(&h.workspace(), DATE, notes, false, Some(&h.session())).expect("commit");
    let after = fs::read(h.target()).expect("read");
    assert_eq!(
        &after[..existing.len()],
        &existing[..],
        "existing bytes intact"
    );
    assert_eq!(&after[existing.len()..], b"\n\n- new fact\n");
    assert_eq!(c.notes_offset, Some(existing.len() as u64 + 2));
    assert!(!c.created_file && !c.created_memory_dir);
}

#[test]
fn separator_rules_on_disk() {
    for (existing, notes, appended) in [
        ("", "- a", "- a\n"),
        ("x\n", "- a", "\n- a\n"),
        ("x\n\n", "- a\n", "- a\n"),
        ("x", "- a\n\n", "\n\n- a\n\n"),
    ] {
        let h = Host::new();
        fs::create_dir(h.memory()).expect("mkdir");
        fs::write(h.target(), existing).expect("write");
        commit_flush(&h.workspace(), DATE, notes, false, None).expect("commit");
        assert_eq!(
            fs::read_to_string(h.target()).expect("read"),
            format!("{existing}{appended}"),
            "{existing:?} + {notes:?}"
        );
    }
}

#[test]
fn no_reply_writes_no_file_but_records_the_flush() {
    let h = Host::new();
    let ws_before = snapshot(&h.workspace());
    let c = commit_flush(&h.workspace(), DATE, "", true, Some(&h.session())).expect("commit");
    assert_eq!(c.appended_bytes, 0);
    assert_eq!(c.notes_offset, None);
    assert_eq!(snapshot(&h.workspace()), ws_before);
    assert!(!h.memory().exists());
    let e = h.entry();
    assert_eq!(
        e["memoryFlushAt"],
        Value::from(c.memory_flush_at.expect("at"))
    );
    assert_eq!(e["memoryFlushCompactionCount"], Value::from(12));

    // Notes that are themselves NO_REPLY are not written either.
    let h = Host::new();
    commit_flush(
        &h.workspace(),
        DATE,
        " no_reply. ",
        false,
        Some(&h.session()),
    )
    .expect("commit");
    assert!(!h.memory().exists());
    assert_eq!(h.entry()["memoryFlushCompactionCount"], Value::from(12));

    // NO_REPLY together with real notes is contradictory: refused, nothing touched.
    let h = Host::new();
    let store = h.store_bytes();
    let e = commit_flush(
        &h.workspace(),
        DATE,
        "- real note",
        true,
        Some(&h.session()),
    )
    .expect_err("refused");
    assert!(matches!(e, FlushError::Refused { .. }), "{e}");
    assert_eq!(e.verdict(), clawtop::commit::Verdict::Refused);
    assert_eq!(h.store_bytes(), store);
    assert!(!h.memory().exists());
}

fn assert_untouched(h: &Host, store: &[u8], ws: &[(std::path::PathBuf, Vec<u8>)]) {
    assert_eq!(h.store_bytes(), store, "store changed");
    assert_eq!(snapshot(&h.workspace()), ws, "workspace changed");
    let names: Vec<_> = fs::read_dir(h.sessions_dir())
        .expect("ls")
        .map(|e| e.expect("e").file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn missing_or_non_directory_workspace_touches_nothing() {
    let h = Host::new();
    let store = h.store_bytes();

    let missing = h.home.path().join("nope");
    let e = commit_flush(&missing, DATE, "- n", false, Some(&h.session())).expect_err("missing");
    assert!(matches!(e, FlushError::WorkspaceMissing { .. }), "{e}");
    assert!(e.to_string().contains("does not exist"), "{e}");
    assert_eq!(e.verdict(), clawtop::commit::Verdict::Failed);
    assert!(!missing.exists());
    assert_eq!(h.store_bytes(), store);

    // NO_REPLY needs a workspace too: the flush is about the workspace.
    let e = commit_flush(&missing, DATE, "", true, Some(&h.session())).expect_err("missing");
    assert!(matches!(e, FlushError::WorkspaceMissing { .. }), "{e}");
    assert_eq!(h.store_bytes(), store);

    let file_ws = h.home.path().join("ws-file");
    fs::write(&file_ws, "not a dir").expect("write");
    let e = commit_flush(&file_ws, DATE, "- n", false, Some(&h.session())).expect_err("file");
    assert!(matches!(e, FlushError::WorkspaceNotDir { .. }), "{e}");
    assert_eq!(fs::read(&file_ws).expect("read"), b"not a dir");
    assert_eq!(h.store_bytes(), store);
}

/// Makes `dir` unwritable for this process: mode 0555, or, as root (who ignores mode
/// bits), the immutable attribute. Restored on drop. `None` when neither is possible.
struct ReadOnly {
    dir: std::path::PathBuf,
    immutable: bool,
}

impl ReadOnly {
    fn make(dir: &std::path::Path) -> Option<ReadOnly> {
        if !is_root() {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o555)).expect("chmod");
            return Some(ReadOnly {
                dir: dir.to_path_buf(),
                immutable: false,
            });
        }
        let ok = std::process::Command::new("chattr")
            .arg("+i")
            .arg(dir)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| ReadOnly {
            dir: dir.to_path_buf(),
            immutable: true,
        })
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        if self.immutable {
            let _ = std::process::Command::new("chattr")
                .arg("-i")
                .arg(&self.dir)
                .status();
        } else {
            let _ = fs::set_permissions(&self.dir, fs::Permissions::from_mode(0o755));
        }
    }
}

#[test]
fn read_only_workspace_touches_nothing() {
    let h = Host::new();
    let store = h.store_bytes();
    let ws = h.workspace();
    let before = snapshot(&ws);
    let Some(guard) = ReadOnly::make(&ws) else {
        // Root without chattr support: the missing / non-directory cases cover the same early exit.
        eprintln!("skipped: cannot make a directory read-only for root here");
        return;
    };
    let e = commit_flush(&ws, DATE, "- n", false, Some(&h.session())).expect_err("read-only");
    let e2 = commit_flush(&ws, DATE, "", true, Some(&h.session())).expect_err("read-only");
    drop(guard);
    assert!(matches!(e, FlushError::WorkspaceReadOnly { .. }), "{e}");
    assert!(e.to_string().contains("not writable"), "{e}");
    assert_eq!(e.verdict(), clawtop::commit::Verdict::Failed);
    assert!(matches!(e2, FlushError::WorkspaceReadOnly { .. }), "{e2}");
    assert_untouched(&h, &store, &before);
}

#[test]
fn memory_path_that_is_not_a_directory_or_a_symlinked_target_is_refused() {
    let h = Host::new();
    let store = h.store_bytes();
    fs::write(h.memory(), "oops").expect("write");
    let ws = snapshot(&h.workspace());
    let e = commit_flush(&h.workspace(), DATE, "- n", false, Some(&h.session()))
        .expect_err("memory file");
    assert!(matches!(e, FlushError::Target { .. }), "{e}");
    assert_untouched(&h, &store, &ws);

    let h = Host::new();
    let store = h.store_bytes();
    fs::create_dir(h.memory()).expect("mkdir");
    let outside = h.home.path().join("outside.md");
    fs::write(&outside, "outside").expect("write");
    std::os::unix::fs::symlink(&outside, h.target()).expect("symlink");
    let ws = snapshot(&h.workspace());
    let e =
        commit_flush(&h.workspace(), DATE, "- n", false, Some(&h.session())).expect_err("symlink");
    assert!(matches!(e, FlushError::Target { .. }), "{e}");
    assert_eq!(e.verdict(), clawtop::commit::Verdict::Refused);
    assert_eq!(fs::read(&outside).expect("read"), b"outside");
    assert_untouched(&h, &store, &ws);
}

#[test]
fn changed_session_or_missing_entry_writes_nothing() {
    let h = Host::new();
    let store = h.store_bytes();
    let ws = snapshot(&h.workspace());
    let mut s = h.session();
    s.session_id = "another-session".into();
    let e = commit_flush(&h.workspace(), DATE, "- n", false, Some(&s)).expect_err("changed");
    assert!(
        matches!(
            e,
            FlushError::Store(clawtop::commit::CommitError::Changed { .. })
        ),
        "{e}"
    );
    assert_eq!(e.verdict(), clawtop::commit::Verdict::Refused);
    assert_untouched(&h, &store, &ws);

    let mut s = h.session();
    s.session_key = "agent:main:gone".into();
    let e = commit_flush(&h.workspace(), DATE, "- n", false, Some(&s)).expect_err("missing");
    assert!(
        matches!(
            e,
            FlushError::Store(clawtop::commit::CommitError::MissingEntry { .. })
        ),
        "{e}"
    );
    assert_untouched(&h, &store, &ws);
}

#[test]
fn bad_dates_are_refused_before_anything() {
    let h = Host::new();
    let store = h.store_bytes();
    let ws = snapshot(&h.workspace());
    for d in ["../../etc/x", "2026-11-21/../..", "21-11-2026"] {
        let e = commit_flush(&h.workspace(), d, "- n", false, Some(&h.session()))
            .expect_err("bad date");
        assert!(matches!(e, FlushError::InvalidDate(_)), "{e}");
    }
    assert_untouched(&h, &store, &ws);
}

#[test]
fn without_a_store_only_the_file_is_written() {
    let h = Host::new();
    let store = h.store_bytes();
    let c = commit_flush(&h.workspace(), DATE, "- n", false, None).expect("commit");
    assert_eq!(c.memory_flush_at, None);
    assert_eq!(c.memory_flush_compaction_count, None);
    assert_eq!(fs::read_to_string(h.target()).expect("read"), "- n\n");
    assert_eq!(h.store_bytes(), store);
}

#[test]
fn a_compaction_between_preview_and_commit_is_refused() {
    // The notes were drafted at compactionCount 11; OpenClaw has compacted since (12 now):
    // recording the flush would mark the new cycle as flushed. Refused, nothing written.
    let h = Host::new();
    let store_before = h.store_bytes();
    let err = clawtop::flush::commit_flush_for_cycle(
        &h.workspace(),
        DATE,
        "- note",
        false,
        Some(&h.session()),
        Some(11),
    )
    .expect_err("refused");
    assert_eq!(err.verdict(), clawtop::commit::Verdict::Refused, "{err}");
    assert!(err.to_string().contains("compactionCount is 12"), "{err}");
    assert_eq!(h.store_bytes(), store_before);
    assert!(
        !h.workspace()
            .join("memory")
            .join(format!("{DATE}.md"))
            .exists()
    );
    // The cycle it was drafted in: accepted.
    clawtop::flush::commit_flush_for_cycle(
        &h.workspace(),
        DATE,
        "- note",
        false,
        Some(&h.session()),
        Some(12),
    )
    .expect("commit");
}

#[test]
fn host_copy_is_writable_and_separate() {
    let h = Host::new();
    assert!(h.store().is_file() && h.transcript().is_file());
    assert!(h.workspace().is_dir());
    assert!(!h.memory().exists());
    assert!(h.workspace().starts_with(h.home.path()));
}
