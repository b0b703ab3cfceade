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
    // A flush's dry run says the flush will not be recorded here.
    let o = run(
        &h,
        &["flush", "agent:main:incident-7", "--dry-run", "--json"],
    );
    o.expect(0);
    let v = o.json();
    assert_eq!(v["flushRecorded"], false, "{v}");
    assert!(
        v["flushNotRecordedBecause"]
            .as_str()
            .is_some_and(|w| w.contains("stays armed")),
        "{v}"
    );
    // A compaction without --yes only says what it would ask the Gateway.
    let o = run(&h, &["compact", "agent:main:incident-7"]);
    o.expect(0);
    assert!(o.text().contains("Nothing was sent"), "{}", o.text());
    assert_eq!(snapshot(&h.state()), before);
    assert_eq!(contents(&h.state()), bytes);
}

/// A flush on a SQLite host: the notes the operator previewed are appended to the workspace's
/// memory file exactly; the databases (and everything else under the state dir) are left
/// byte-identical, and every output says OpenClaw's own flush stays armed.
#[test]
fn flush_appends_notes_and_leaves_the_database_alone() {
    let h = HostF::new();
    let ws = h.root().join("ws/main");
    let (before, bytes) = (snapshot(&h.state()), contents(&h.state()));
    let notes_file = h.root().join("notes.md");
    let notes = "- incident-7: the failover drill is scheduled for Friday\n- keep the runbook link";
    std::fs::write(&notes_file, notes).unwrap();
    let target = ws
        .join("memory")
        .join(format!("{}.md", clawtop::flush::today()));
    // The fixture's own memory file may be today's; the notes go after whatever is there.
    let old = std::fs::read_to_string(&target).unwrap_or_default();
    let after_one = format!("{}{notes}\n", blank_line_after(&old));
    let o = commit(&h, &ws, &notes_file, &["--json"]);
    o.expect(0);
    let v = o.json();
    assert_eq!(v["committed"], true, "{v}");
    assert_eq!(v["flushRecorded"], false, "{v}");
    assert_eq!(v["memoryFlushAt"], Value::Null, "{v}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), after_one);
    assert_eq!(snapshot(&h.state()), before, "the state dir is untouched");
    assert_eq!(contents(&h.state()), bytes);

    // Text output says the flush is not recorded and why; a second flush appends after a
    // blank line, as on a file-backed host. With no gateway listening, the note says no
    // gateway run can be active, and no device key was made for clawtop to ask with.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    let identity_dir = h.root().join("clawtop-config");
    let o = commit_env(
        &h,
        &ws,
        &notes_file,
        &[],
        &[
            ("OPENCLAW_GATEWAY_PORT", &closed),
            ("CLAWTOP_CONFIG_DIR", identity_dir.to_str().unwrap()),
        ],
    );
    o.expect(0);
    assert!(o.stderr.contains("not recorded"), "{}", o.stderr);
    assert!(o.stderr.contains("stays armed"), "{}", o.stderr);
    assert!(
        o.stderr.contains(&format!(
            "no gateway answered at ws://127.0.0.1:{closed}, so no gateway run can be active"
        )),
        "{}",
        o.stderr
    );
    assert!(!identity_dir.exists(), "no device key made for nothing");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        format!("{after_one}\n{notes}\n")
    );

    // NO_REPLY would only record a flush, which cannot happen here: refused, nothing written.
    std::fs::write(&notes_file, "NO_REPLY").unwrap();
    let o = commit(&h, &ws, &notes_file, &[]);
    o.expect(3);
    assert!(o.stderr.contains("NO_REPLY"), "{}", o.stderr);
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        format!("{after_one}\n{notes}\n")
    );
    assert_eq!(contents(&h.state()), bytes);
}

/// `flush agent:main:incident-7 --workspace WS --notes-file F --yes` plus `extra`.
fn commit(
    h: &HostF,
    ws: &std::path::Path,
    notes: &std::path::Path,
    extra: &[&str],
) -> super::support::cli::Out {
    commit_env(h, ws, notes, extra, &[])
}

/// [`commit`] with extra environment.
fn commit_env(
    h: &HostF,
    ws: &std::path::Path,
    notes: &std::path::Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> super::support::cli::Out {
    let (state, ws, notes) = (
        h.state().display().to_string(),
        ws.display().to_string(),
        notes.display().to_string(),
    );
    let mut a = vec![
        "--state-dir",
        &state,
        "flush",
        "agent:main:incident-7",
        "--workspace",
        &ws,
        "--notes-file",
        &notes,
        "--yes",
    ];
    a.extend_from_slice(extra);
    run_with(h.root(), &a, env)
}

/// `old` followed by what separates it from appended notes: one blank line (docs/memory-flush.md).
fn blank_line_after(old: &str) -> String {
    let sep = match old {
        "" => "",
        o if o.ends_with("\n\n") => "",
        o if o.ends_with('\n') => "\n",
        _ => "\n\n",
    };
    format!("{old}{sep}")
}

#[test]
fn check_is_unknown_when_no_session_row_can_be_read() {
    // Issue 17 item 4: every session row of every agent database unreadable is not "OK: no
    // problem" but UNKNOWN naming the database.
    let h = HostF::new();
    for agent in ["main", "ops"] {
        let w = h.writer(agent);
        w.execute_batch("UPDATE session_nodes SET entry_json = 'not json';")
            .unwrap();
    }
    let o = run(&h, &["check"]);
    assert_eq!(o.code, 3, "{}", o.text());
    let t = o.text();
    assert!(t.starts_with("UNKNOWN: "), "{t}");
    assert!(
        t.contains("openclaw-agent.sqlite") && t.contains("none of its"),
        "{t}"
    );
    let o = run(&h, &["list"]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stdout.is_empty(), "{}", o.text());
    // One unreadable row among readable ones: the others are checked, the row is UNKNOWN.
    let h = HostF::new();
    let w = h.writer("ops");
    w.execute_batch(
        "UPDATE session_nodes SET entry_json = 'not json' WHERE session_key = 'agent:ops:main';",
    )
    .unwrap();
    drop(w);
    let o = run(&h, &["check"]);
    assert_eq!(o.code, 3, "{}", o.text());
    assert!(o.text().contains("agent:ops:main"), "{}", o.text());
}
