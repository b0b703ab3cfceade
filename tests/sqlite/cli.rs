//! The `clawtop` binary on a copy of host-f: list, show, compact --dry-run exactly as on a
//! file-backed host, the figures computed independently from the rows, writes refused, and
//! the state dir left exactly as it was.

use super::common::*;
use super::fixture::expected;
use super::support::cli::run_with;
use serde_json::Value;

fn run(h: &HostF, args: &[&str]) -> super::support::cli::Out {
    let state = h.state();
    let mut a = vec!["--state-dir", state.to_str().unwrap()];
    a.extend_from_slice(args);
    run_with(h.root(), &a, &[])
}

#[test]
fn list_json_has_every_session_with_the_independent_figures() {
    let h = HostF::new();
    let want = expected(&h);
    let (before, bytes) = (snapshot(&h.state()), contents(&h.state()));
    let o = run(&h, &["list", "--json"]);
    o.expect(0);
    let v = o.json();
    assert_eq!(v["era"], "sqlite");
    let rows = v["sessions"].as_array().unwrap();
    assert_eq!(rows.len(), want.len());
    for r in rows {
        let key = r["sessionKey"].as_str().unwrap();
        let w = &want[key];
        assert_eq!(r["window"], w.window, "{key}");
        assert_eq!(r["used"].as_u64(), w.used, "{key}");
        assert_eq!(r["usedSource"], "fresh", "{key}");
        assert_eq!(r["reserve"], w.reserve, "{key}");
        assert_eq!(r["compactAt"], w.compact_at, "{key}");
        assert_eq!(r["flushAt"], w.flush_at, "{key}");
        assert_eq!(r["flushedThisCycle"], !w.armed, "{key}");
        assert_eq!(
            r["compactionCount"].as_u64().unwrap_or(0),
            w.compaction_count,
            "{key}"
        );
        assert_eq!(
            r["memoryFlushCompactionCount"].as_u64(),
            w.flushed_at_compaction,
            "{key}"
        );
        assert_eq!(
            r["memoryFlushAt"],
            Value::Null,
            "no flush time in 2026.9: {key}"
        );
        assert_eq!(r["rules"], "2026.9", "{key}");
        assert_eq!(r["totalTokensVersion"], 1, "{key}");
        let src = &r["dataSource"];
        assert_eq!(src["kind"], "sqlite", "{key}");
        let agent = r["agentId"].as_str().unwrap();
        let db = format!("agents/{agent}/agent/openclaw-agent.sqlite");
        assert_eq!(src["entry"], format!("{db}#session_nodes/{key}"), "{src}");
        assert_eq!(
            src["transcript"],
            format!("{db}#{}", r["sessionId"].as_str().unwrap()),
            "{src}"
        );
    }
    assert_eq!(snapshot(&h.state()), before);
    assert_eq!(contents(&h.state()), bytes);
    // The text table lists them too.
    let o = run(&h, &["list"]);
    o.expect(0);
    for k in want.keys() {
        assert!(o.text().contains(k.as_str()), "{}", o.text());
    }
}

#[test]
fn show_entries_and_summaries() {
    let h = HostF::new();
    let o = run(
        &h,
        &["show", "agent:main:incident-7", "--json", "--entries"],
    );
    o.expect(0);
    let v = o.json();
    assert_eq!(v["window"], 48000);
    assert_eq!(v["flushAt"], 30000);
    assert_eq!(v["transcriptInfo"]["version"], 4);
    assert_eq!(v["transcriptInfo"]["entries"], 60);
    assert_eq!(v["transcriptInfo"]["compactions"], 1);
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 60);
    let text = run(&h, &["show", "agent:main:incident-7", "--entries"]);
    text.expect(0);
    let t = text.text();
    assert!(t.contains("flushed at compaction 0"), "{t}");
    assert!(
        t.contains("FAKE-SUMMARY 18"),
        "the compaction card shows its summary: {t}"
    );
}

#[test]
fn compact_dry_run_plans_and_writes_are_refused() {
    let h = HostF::new();
    let (before, bytes) = (snapshot(&h.state()), contents(&h.state()));
    let o = run(
        &h,
        &["compact", "agent:main:incident-7", "--dry-run", "--json"],
    );
    o.expect(0);
    let v = o.json();
    assert!(v["firstKeptEntryId"].is_string(), "{v}");
    // A flush cannot be written here; the refusal says what clawtop can do instead.
    let o = run(&h, &["flush", "agent:main:incident-7"]);
    o.expect(3);
    assert!(o.stderr.contains("SQLite"), "{}", o.stderr);
    assert!(
        o.stderr.contains("--dry-run"),
        "says what clawtop can do: {}",
        o.stderr
    );
    // A compaction without --yes only says what it would ask the Gateway.
    let o = run(&h, &["compact", "agent:main:incident-7"]);
    o.expect(0);
    assert!(o.text().contains("Nothing was sent"), "{}", o.text());
    assert_eq!(snapshot(&h.state()), before);
    assert_eq!(contents(&h.state()), bytes);
}
