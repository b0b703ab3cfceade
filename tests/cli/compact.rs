//! `clawtop compact --dry-run`.
use crate::support::cli::*;

#[test]
fn dry_run_json_host_a() {
    let h = Home::host_a();
    let before = snapshot(&h.state());
    let o = h.run(&["compact", "agent:main:main", "--dry-run", "--json"]);
    o.expect(0);
    let v = o.json();
    assert_eq!(v["sessionKey"], "agent:main:main");
    assert_eq!(v["transcript"], h.transcript().display().to_string());
    assert_eq!(v["leafId"], "0d090fcc");
    assert_eq!(v["leafIndex"], 39);
    assert_eq!(v["keepRecentTokens"], 20000);
    assert_eq!(v["hasPreviousSummary"], true);
    assert!(v["firstKeptEntryId"].is_string());
    for k in [
        "firstKeptEntryIndex",
        "tokensBefore",
        "messagesToSummarize",
        "turnPrefixMessages",
    ] {
        assert!(v[k].is_u64(), "{k}: {v}");
    }
    assert_eq!(before, snapshot(&h.state()));
    // Flag beats config/default.
    let o = h.run(&[
        "compact",
        "adhoc-1",
        "--dry-run",
        "--json",
        "--keep-recent-tokens",
        "5000",
    ]);
    o.expect(0);
    assert_eq!(o.json()["keepRecentTokens"], 5000);
    assert_eq!(o.json()["keepRecentTokensSource"], "flag");
    // Text mode says the same in words.
    let o = h.run(&["compact", "agent:main:main", "--dry-run"]);
    o.expect(0);
    assert!(
        o.text().contains("dry run") && o.text().contains("0d090fcc"),
        "{}",
        o.text()
    );
}

#[test]
fn keep_recent_from_config() {
    let h = Home::host_a();
    std::fs::write(
        h.state().join("openclaw.json"),
        "{agents: {defaults: {compaction: {keepRecentTokens: 1234}}}}",
    )
    .unwrap();
    let o = h.run(&["compact", "agent:main:main", "--dry-run", "--json"]);
    o.expect(0);
    assert_eq!(o.json()["keepRecentTokens"], 1234);
    assert_eq!(o.json()["keepRecentTokensSource"], "config");
}

#[test]
fn dry_run_json_large_pi_session_v1() {
    let h = Home::empty();
    let f = h.path().join("large-session.jsonl");
    std::fs::copy(fixture("pi/large-session.jsonl"), &f).unwrap();
    let before = std::fs::read(&f).unwrap();
    let o = h.run(&["compact", f.to_str().unwrap(), "--dry-run", "--json"]);
    o.expect(0);
    let v = o.json();
    assert_eq!(v["sessionKey"], serde_json::Value::Null);
    assert_eq!(v["firstKeptEntryIndex"], 837);
    assert_eq!(
        v["firstKeptEntryId"],
        serde_json::Value::Null,
        "v1 files have no ids"
    );
    assert_eq!(v["leafId"], serde_json::Value::Null);
    assert_eq!(v["tokensBefore"], 177657);
    assert_eq!(v["messagesToSummarize"], 730);
    assert_eq!(v["turnPrefixMessages"], 3);
    assert_eq!(v["isSplitTurn"], true);
    assert_eq!(v["readFiles"].as_array().unwrap().len(), 7);
    assert_eq!(v["modifiedFiles"].as_array().unwrap().len(), 20);
    assert_eq!(
        std::fs::read(&f).unwrap(),
        before,
        "the pi file is never modified"
    );
}

#[test]
fn without_dry_run_a_model_problem_writes_nothing() {
    let h = Home::host_a();
    let before = snapshot(&h.state());
    // The key variable named on the command line is unset: a clear error before any request.
    let o = h.run(&[
        "compact",
        "agent:main:main",
        "--no-flush",
        "--keep-recent-tokens",
        "2000",
        "--api-key-env",
        "CLAWTOP_TEST_UNSET_KEY",
        "--yes",
    ]);
    o.expect(1);
    assert!(o.stderr.contains("CLAWTOP_TEST_UNSET_KEY"), "{}", o.stderr);
    // An edited summary needs the leaf it was made for.
    let o = h.run(&[
        "compact",
        "agent:main:main",
        "--no-flush",
        "--summary-file",
        "x.md",
        "--yes",
    ]);
    o.expect(2);
    assert_eq!(before, snapshot(&h.state()));
}

#[test]
fn unknown_session_exit_1() {
    let h = Home::host_a();
    let o = h.run(&["compact", "agent:main:nope", "--dry-run"]);
    o.expect(1);
    assert!(o.stderr.contains("agent:main:nope"), "{}", o.stderr);
}
