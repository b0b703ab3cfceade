//! Issue 12 item 2: the notes never land outside the workspace through a symlinked
//! `<workspace>/memory`; a dangling `memory` link gets a clear message.

use crate::support::cli as cli_support;

use cli_support::{Home, snapshot};

fn flush_into(h: &Home, ws: &std::path::Path) -> cli_support::Out {
    let notes = h.path().join("notes.md");
    std::fs::write(&notes, "- keep PR #4411 open").unwrap();
    h.run(&[
        "flush",
        "agent:main:main",
        "--notes-file",
        notes.to_str().unwrap(),
        "--workspace",
        ws.to_str().unwrap(),
        "--yes",
    ])
}

#[test]
fn symlinked_memory_dir_is_refused_and_nothing_is_written_through_it() {
    let h = Home::host_a();
    let ws = h.path().join("ws");
    let elsewhere = h.path().join("elsewhere");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, ws.join("memory")).unwrap();
    let before = snapshot(&h.state());
    let o = flush_into(&h, &ws);
    o.expect(3);
    assert!(o.stderr.contains("memory"), "{}", o.stderr);
    assert!(o.stderr.contains("symbolic link"), "{}", o.stderr);
    assert_eq!(
        std::fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing created outside the workspace"
    );
    assert_eq!(snapshot(&h.state()), before, "store untouched");
}

#[test]
fn dangling_memory_link_gets_a_clear_message() {
    let h = Home::host_a();
    let ws = h.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let gone = h.path().join("gone");
    std::os::unix::fs::symlink(&gone, ws.join("memory")).unwrap();
    let o = flush_into(&h, &ws);
    o.expect(3);
    assert!(o.stderr.contains("symbolic link"), "{}", o.stderr);
    assert!(o.stderr.contains("does not exist"), "{}", o.stderr);
    assert!(!o.stderr.contains("File exists"), "{}", o.stderr);
    assert!(!gone.exists(), "the link target is not created");
}

#[test]
fn library_commit_refuses_a_memory_link_even_without_preflight_help() {
    // Straight through the use-case layer, no store: the same refusal.
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, ws.join("memory")).unwrap();
    let e = clawtop::flush::commit_flush(&ws, "2026-11-21", "- a", false, None).unwrap_err();
    assert_eq!(e.verdict(), clawtop::commit::Verdict::Refused, "{e}");
    assert!(e.to_string().contains("symbolic link"), "{e}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}
