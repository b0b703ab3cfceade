//! `clawtop --demo compact` / `flush` from the command line: the offline demo summarizer
//! writes the text (no network, labelled), the commit lands in the demo's temporary copy, and
//! the copy is gone when the process exits.

use crate::support::cli::*;

fn demo_copies(tmp: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("clawtop-demo-"))
        .collect()
}

#[test]
fn demo_compact_and_flush_commit_to_the_copy_and_leave_nothing() {
    let home = Home::empty();
    let tmp = tempfile::tempdir().unwrap();
    let env = [("TMPDIR", tmp.path().to_str().unwrap())];
    let o = home.run_env(
        &["--demo", "compact", "agent:ops:main", "--no-flush", "--yes"],
        &env,
    );
    o.expect(0);
    assert!(
        o.stderr
            .contains("offline demo summarizer writes the text (no network)"),
        "{}",
        o.stderr
    );
    assert!(
        o.text().contains(clawtop::llm::offline_demo::LABEL),
        "{}",
        o.text()
    );
    let o = home.run_env(
        &[
            "--demo",
            "flush",
            "agent:main:telegram:direct:12345",
            "--yes",
        ],
        &env,
    );
    o.expect(0);
    assert!(
        o.text().contains(clawtop::llm::offline_demo::LABEL),
        "{}",
        o.text()
    );
    assert!(demo_copies(tmp.path()).is_empty(), "copy left behind");
    // Nothing outside the temp dir: the home stays empty.
    let left: Vec<_> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != ".xdg-state")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
