//! `clawtop history` on a copy of host-f: the compaction read from the database rows (one of
//! them zstd-compressed), the 2026.9 `memoryFlush` record, the workspace's notes, and the
//! state dir left as it was.

use super::common::*;
use super::support::cli::run_with;

fn run(h: &HostF, args: &[&str]) -> super::support::cli::Out {
    let state = h.state();
    let mut a = vec!["--state-dir", state.to_str().unwrap()];
    a.extend_from_slice(args);
    run_with(h.root(), &a, &[])
}

/// Points the copy's workspaces (absolute paths of the generating machine) at the copy's own.
fn local_workspaces(h: &HostF) {
    let cfg = h.state().join("openclaw.json");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let ws = h.root().join("ws");
    std::fs::write(
        &cfg,
        text.replace("/home/operator/ws", ws.to_str().unwrap()),
    )
    .unwrap();
}

#[test]
fn history_lists_the_compaction_from_the_rows_and_the_2026_9_flush_record() {
    let h = HostF::new();
    local_workspaces(&h);
    let before = snapshot(&h.state());
    let o = run(&h, &["history", "agent:main:incident-7", "--json"]);
    o.expect(0);
    let v = o.json();
    assert_eq!(v["sessionKey"], "agent:main:incident-7");
    assert_eq!(v["compactionCount"], 1);
    assert_eq!(v["compactionEntries"], 1);
    let c = v["compactions"].as_array().unwrap();
    assert_eq!(c.len(), 1);
    // The fixture README: seq 54 (a zstd row), tokensBefore 37946, tokensAfter 15042.
    assert_eq!(c[0]["tokensBefore"], 37_946);
    assert!(c[0]["id"].as_str().unwrap().starts_with("dce1d1d1"));
    assert_eq!(c[0]["timestamp"], "2026-11-23T18:03:52.079Z");
    // The next call measured the context (its prompt, as 2026.9 records totalTokens).
    assert_eq!(c[0]["tokensAfterSource"], "next-call");
    assert_eq!(c[0]["tokensAfter"], 28_848);
    assert_eq!(c[0]["trigger"], "openclaw");
    // memoryFlush {kind: succeeded, compactionCount: 0}: the flush preceded compaction 1.
    assert_eq!(c[0]["flushBefore"], "yes");
    let f = v["flushes"].as_array().unwrap();
    assert_eq!(f.len(), 1);
    assert_eq!(f[0]["source"], "store");
    assert_eq!(f[0]["kind"], "succeeded");
    assert_eq!(f[0]["compactionCount"], 0);
    assert!(f[0]["timestamp"].is_null(), "2026.9 keeps no flush time");
    let mem = &v["memory"]["files"][0];
    assert_eq!(mem["date"], "2026-11-23");
    assert_eq!(mem["blocks"], 1);
    assert_eq!(v["warnings"], serde_json::json!([]));
    // 12 turns, the last two after the compaction; the lines are the session's.
    assert_eq!(v["turns"].as_array().unwrap().len(), 12);
    assert_eq!(
        (v["flushAt"].as_u64(), v["compactAt"].as_u64()),
        (Some(30_000), Some(36_000))
    );
    assert_eq!(
        before,
        snapshot(&h.state()),
        "history wrote into the state dir"
    );

    // The flush's note appended a second time: named with both lines.
    let note = h.root().join("ws/main/memory/2026-11-23.md");
    let text = std::fs::read_to_string(&note).unwrap();
    std::fs::write(&note, format!("{text}\n{text}")).unwrap();
    let v = run(&h, &["history", "agent:main:incident-7", "--json"]).json();
    let w = v["warnings"].as_array().unwrap();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0]["code"], "duplicate-note");
    assert!(w[0]["message"].as_str().unwrap().contains("line 1"));
    assert!(
        w[0]["message"]
            .as_str()
            .unwrap()
            .contains("again at line 3")
    );

    let text = run(&h, &["history", "agent:main:incident-7"]);
    text.expect(0);
    assert!(text.text().contains("#1 dce1d1d1"), "{}", text.text());
    assert!(text.text().contains("tokensBefore 37,946"));
}

#[test]
fn a_session_without_compactions_has_an_empty_history() {
    let h = HostF::new();
    let v = run(&h, &["history", "agent:ops:main", "--json"]).json();
    assert_eq!(v["compactions"], serde_json::json!([]));
    assert_eq!(v["flushes"], serde_json::json!([]));
    assert!(v["compactionCount"].is_null());
    // The copy keeps the generating machine's workspace paths: the notes are unknown, said so.
    assert!(
        v["memory"]["note"]
            .as_str()
            .unwrap()
            .contains("not readable")
    );
}
