//! `clawtop check` (Nagios exit codes) and `clawtop metrics` (Prometheus text format, parsed
//! by the `prometheus-parse` crate).
use crate::support::cli::*;

fn demo(args: &[&str]) -> Out {
    let h = Home::empty();
    let mut a = vec!["--demo"];
    a.extend_from_slice(args);
    run_with(h.path(), &a, &[])
}

#[test]
fn check_grades_problems_with_nagios_codes() {
    // Defaults: warn flush-due,compact-due,lossy-compaction (and the history problems, tested
    // in tests/cli/history.rs); crit over,stuck,busy-stale-lock. Three demo sessions' latest
    // compactions lost identifiers or dropped messages (the demo host is 2026.2: pi's boundary).
    let o = demo(&["check", "--warn", "flush-due,compact-due,lossy-compaction"]);
    o.expect(2);
    let t = o.text();
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(
        lines,
        vec![
            "CRITICAL over agent:ops:main: 35k/33k used, over the window",
            "CRITICAL stuck agent:ops:main: 35k/33k used after the last run; compaction did not bring it under the window",
            "WARNING flush-due agent:main:telegram:direct:12345: 177k used, flush line 176k",
            "WARNING lossy-compaction agent:main:telegram:direct:12345: latest compaction 0fd4080c lost 2 identifiers, dropped 0 messages unsummarized",
            "WARNING lossy-compaction agent:main:discord:channel:998877: latest compaction 743af9e3 lost 0 identifiers, dropped 4 messages unsummarized",
            "WARNING compact-due agent:main:slack:channel:c07ops: 186k used, compaction line 180k",
            "WARNING lossy-compaction agent:main:dashboard:5f0c2a7e: latest compaction 1726e253 lost 2 identifiers, dropped 0 messages unsummarized",
        ],
        "{t}"
    );
    // Only warnings: exit 1.
    let o = demo(&["check", "--crit", "busy-stale-lock"]);
    o.expect(1);
    assert!(
        o.text().lines().all(|l| l.starts_with("WARNING ")),
        "{}",
        o.text()
    );
    // One agent with nothing wrong: exit 0, one OK line.
    let o = demo(&["check", "--agent", "main", "--warn", "over"]);
    o.expect(0);
    assert!(o.text().starts_with("OK: 7 sessions"), "{}", o.text());
    // Problems outside both sets are ignored; an added one is reported.
    let o = demo(&["check", "--warn", "unknown,no-transcript", "--crit", "over"]);
    o.expect(2);
    assert!(
        o.text()
            .contains("WARNING unknown agent:ops:cron:nightly-report"),
        "{}",
        o.text()
    );
    assert!(
        o.text()
            .contains("WARNING no-transcript agent:main:subagent:3b9e1d44"),
        "{}",
        o.text()
    );
    // A bad set is a usage error.
    demo(&["check", "--warn", "overr"]).expect(2);
}

#[test]
fn check_unknown_when_the_host_cannot_be_read() {
    let h = Home::empty();
    let o = h.run(&["check"]);
    o.expect(3);
    assert!(
        o.text().starts_with("UNKNOWN: no OpenClaw state dir"),
        "{}",
        o.text()
    );
}

#[test]
fn check_sees_a_stale_transcript_lock() {
    let h = Home::host_a();
    let lock = h
        .sessions_dir()
        .join("eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl.lock");
    // A holder pid that cannot be alive.
    std::fs::write(
        &lock,
        "{\"pid\": 999999999, \"createdAt\": \"2026-01-01T00:00:00.000Z\"}\n",
    )
    .unwrap();
    let o = h.run(&["check", "--warn", "busy", "--crit", "busy-stale-lock"]);
    o.expect(2);
    assert!(
        o.text()
            .contains("CRITICAL busy-stale-lock agent:main:main"),
        "{}",
        o.text()
    );
    // Issue 33 item 5: the text list says it too (it said only "compact-due").
    let list = |h: &Home| -> (String, String) {
        let o = h.run(&["list"]);
        o.expect(0);
        let t = o.text();
        let header = t.lines().next().unwrap().to_string();
        let row = t
            .lines()
            .find(|l| l.contains("agent:main:main"))
            .unwrap_or_else(|| panic!("{t}"))
            .to_string();
        (header, row)
    };
    let (header, row) = list(&h);
    let at = header.find("LOCK").unwrap_or_else(|| panic!("{header}"));
    assert_eq!(row.get(at..at + 5), Some("stale"), "{header}\n{row}");
    assert!(row.contains("compact-due"), "{row}");
    // A live holder (this test process) is busy, not stale.
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    std::fs::write(
        &lock,
        format!(
            "{{\"pid\": {}, \"createdAt\": \"{now}\"}}\n",
            std::process::id()
        ),
    )
    .unwrap();
    let o = h.run(&["check", "--warn", "busy", "--crit", "busy-stale-lock"]);
    o.expect(1);
    let (header, row) = list(&h);
    let at = header.find("LOCK").unwrap_or_else(|| panic!("{header}"));
    assert_eq!(row.get(at..at + 4), Some("busy"), "{header}\n{row}");
    assert!(
        o.text().contains("WARNING busy agent:main:main"),
        "{}",
        o.text()
    );
}

#[test]
fn metrics_parse_as_prometheus_text() {
    let o = demo(&["metrics"]);
    o.expect(0);
    let text = o.text();
    let lines = text.lines().map(|l| Ok(l.to_string()));
    let scrape = prometheus_parse::Scrape::parse(lines).expect("valid exposition format");
    let name_ok = |n: &str| {
        n.starts_with("clawtop_")
            && n.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            && !n.ends_with("_total")
    };
    for s in &scrape.samples {
        assert!(name_ok(&s.metric), "{}", s.metric);
        for (k, _) in s.labels.iter() {
            assert!(k.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{k}");
        }
    }
    let get = |metric: &str, key: &str| {
        scrape
            .samples
            .iter()
            .find(|s| s.metric == metric && s.labels.get("session_key") == Some(key))
            .map(|s| match s.value {
                prometheus_parse::Value::Gauge(v) => v,
                ref other => panic!("{metric} not a gauge: {other:?}"),
            })
    };
    let ops = "agent:ops:main";
    assert_eq!(get("clawtop_session_used_tokens", ops), Some(35120.0));
    assert_eq!(get("clawtop_session_window_tokens", ops), Some(32768.0));
    assert_eq!(
        get(
            "clawtop_session_compactions",
            "agent:main:discord:channel:998877"
        ),
        Some(2.0)
    );
    assert_eq!(
        get(
            "clawtop_session_flushed_this_cycle",
            "agent:main:discord:channel:998877"
        ),
        Some(1.0)
    );
    assert!(get("clawtop_session_flush_line_tokens", "agent:main:main").is_some());
    assert!(get("clawtop_session_compaction_line_tokens", "agent:main:main").is_some());
    // Unknown used: no sample rather than a 0.
    assert_eq!(
        get(
            "clawtop_session_used_tokens",
            "agent:ops:cron:nightly-report"
        ),
        None
    );
    // Provenance is a label of used.
    let est = scrape
        .samples
        .iter()
        .find(|s| {
            s.metric == "clawtop_session_used_tokens"
                && s.labels.get("session_key") == Some("agent:main:dashboard:5f0c2a7e")
        })
        .unwrap();
    assert_eq!(est.labels.get("provenance"), Some("transcript"));
    // Counts per status sum to the sessions listed.
    let statuses: f64 = scrape
        .samples
        .iter()
        .filter(|s| s.metric == "clawtop_sessions")
        .map(|s| match s.value {
            prometheus_parse::Value::Gauge(v) => v,
            _ => panic!(),
        })
        .sum();
    let listed = demo(&["list", "--json"]).json()["sessions"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(statuses, listed as f64);
    assert_eq!(
        scrape.docs.get("clawtop_sessions").map(String::as_str),
        Some("Sessions by status (ok, flush-due, flushed, compact-due, over, unknown).")
    );
}

#[test]
fn metrics_escape_hostile_keys() {
    let h = Home::host_a();
    let store = h.store();
    let s = std::fs::read_to_string(&store).unwrap();
    std::fs::write(
        &store,
        s.replace(
            "\"agent:main:main\"",
            "\"agent:main:a\\\"b\\\\c\\u001b[31m\"",
        ),
    )
    .unwrap();
    let o = h.run(&["metrics"]);
    o.expect(0);
    let text = o.text();
    assert!(!text.contains('\u{1b}'), "{text}");
    let scrape = prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).unwrap();
    let s = scrape
        .samples
        .iter()
        .find(|s| s.metric == "clawtop_session_window_tokens")
        .unwrap();
    // The parser keeps the escapes of the text format; the value ends where it should.
    assert_eq!(
        s.labels.get("session_key"),
        Some("agent:main:a\\\"b\\\\c\u{fffd}[31m")
    );
}
