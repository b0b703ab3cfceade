//! `clawtop audit`: the planted sets exactly, the real fixtures, hostile input.
use crate::support::cli::*;
use crate::support::fixtures;
use serde_json::Value;

fn pairs(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["value"].as_str().unwrap().to_string(),
                h["entryId"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn p(v: &str, e: &str) -> (String, String) {
    (v.to_string(), e.to_string())
}

#[test]
fn planted_identifiers_give_exactly_the_planted_sets() {
    let h = Home::empty();
    let file = fixture(fixtures::AUDIT_PLANTED);
    let o = h.run(&["audit", file.to_str().unwrap(), "--json"]);
    o.expect(0);
    let v = o.json();
    assert_eq!(v["boundary"], "pi-0.55.1");
    assert_eq!(v["totals"]["compactions"], 2);
    assert_eq!(v["totals"]["identifiersLost"], 8);
    assert_eq!(v["totals"]["messagesDroppedUnsummarized"], 2);
    let c1 = &v["compactions"][0];
    assert_eq!(c1["entryId"], "c0000001");
    assert_eq!(c1["firstKeptEntryId"], "a0000005");
    assert_eq!(c1["span"]["entries"], 4);
    assert_eq!(c1["span"]["previousSummaryEntryId"], Value::Null);
    let ids = &c1["identifiers"];
    assert_eq!(ids["total"], 7);
    assert_eq!(
        pairs(&ids["kept"]),
        [
            p("https://github.com/acme/api/pull/4711", "a0000001"),
            p("9F3A2B1C7D", "a0000002")
        ]
    );
    assert_eq!(
        pairs(&ids["stillInKept"]),
        [p("/srv/api/config.yaml", "a0000001")]
    );
    assert_eq!(
        pairs(&ids["lost"]),
        [
            p("db.internal:5432", "a0000002"),
            p("OPS-204817", "a0000002"),
            p("/var/log/api/error.log", "a0000003"),
            p("ABCDEF0123", "a0000004"),
        ]
    );
    assert_eq!(
        ids["invented"],
        serde_json::json!(["/opt/ghost/path", "INC-999999"])
    );
    assert_eq!(c1["droppedUnsummarized"]["messages"], 0);
    // Not a 2026.9 host: no missing sections reported, but the guard's verdict is.
    assert_eq!(c1["missingSections"], Value::Null);
    assert_eq!(c1["guard"]["verdict"], "fail");

    let c2 = &v["compactions"][1];
    assert_eq!(c2["span"]["previousSummaryEntryId"], "c0000001");
    assert_eq!(c2["span"]["entries"], 2);
    assert_eq!(
        c2["droppedUnsummarized"]["entryIds"],
        serde_json::json!(["a0000005", "a0000006"])
    );
    let ids = &c2["identifiers"];
    assert_eq!(
        pairs(&ids["kept"]),
        [
            p("https://github.com/acme/api/pull/4711", "c0000001"),
            p("build-778899", "a0000007"),
            p("https://staging.acme.dev/app", "a0000007"),
        ]
    );
    assert_eq!(
        pairs(&ids["lost"]),
        [
            p("9F3A2B1C7D", "c0000001"),
            p("/opt/ghost/path", "c0000001"),
            p("INC-999999", "c0000001"),
            p("staging.acme.dev:8443", "a0000008"),
        ]
    );
    assert!(ids["stillInKept"].as_array().unwrap().is_empty());
    assert!(ids["invented"].as_array().unwrap().is_empty());

    let o = h.run(&["audit", file.to_str().unwrap()]);
    o.expect(0);
    let t = o.text();
    assert!(
        t.starts_with("2 compactions: 8 identifiers lost, 2 messages dropped unsummarized\n"),
        "{t}"
    );
    assert!(t.contains("[4 lost · 2 dropped]"), "{t}");
    assert!(t.contains("db.internal:5432  (entry a0000002)"), "{t}");
}

#[test]
fn host_a_audits_without_error() {
    let h = Home::host_a();
    let before = snapshot(&h.state());
    let o = h.run(&["audit", "agent:main:main", "--json"]);
    o.expect(0);
    let v = o.json();
    assert_eq!(v["totals"]["compactions"], 1);
    assert_eq!(v["compactions"][0]["entryId"], "27ed3704");
    assert_eq!(v["compactions"][0]["span"]["entries"], 5);
    assert!(v["compactions"][0]["identifiers"]["lost"].is_array());
    let o = h.run(&["audit", "agent:main:main"]);
    o.expect(0);
    assert!(
        o.text().starts_with("1 compaction: 0 identifiers lost"),
        "{}",
        o.text()
    );
    assert_eq!(before, snapshot(&h.state()));
}

/// A transcript of `lines` (after a v3 header) in a temp dir.
fn transcript(h: &Home, lines: &[Value]) -> std::path::PathBuf {
    let mut text = serde_json::json!({"type": "session", "version": 3, "id": "x",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"})
    .to_string();
    text.push('\n');
    for l in lines {
        text.push_str(&l.to_string());
        text.push('\n');
    }
    let f = h.path().join("hostile.jsonl");
    std::fs::write(&f, text).unwrap();
    f
}

fn message(id: &str, parent: Option<&str>, role: &str, text: &str) -> Value {
    serde_json::json!({"type": "message", "id": id, "parentId": parent,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1}})
}

#[test]
fn hostile_input_stays_bounded_and_neutralised() {
    let h = Home::empty();
    // A 16 MB single-line tool result of near-matches (dotted names without a port, hex one
    // short, a path without a second segment, digits after a decimal point), 100,000 real
    // identifiers, and a URL carrying terminal escapes.
    let near = "a.b.c.d.e: 12345 /ab 1.23456789 abcdef1 ".repeat(16_000_000 / 42);
    let many: String = (0..100_000).map(|i| format!("id-{i:08} ")).collect();
    let lines = [
        message("m1", None, "user", &near),
        message("m2", Some("m1"), "assistant", &many),
        message(
            "m3",
            Some("m2"),
            "user",
            "see https://x.example/\u{1b}]0;pwned\u{7}\u{1b}[31m",
        ),
        message("m4", Some("m3"), "user", "keep me"),
        serde_json::json!({"type": "compaction", "id": "c1", "parentId": "m4",
            "timestamp": "2026-01-01T00:00:00.000Z", "firstKeptEntryId": "m4",
            "tokensBefore": 1, "summary": "kept id-00000007 and \u{1b}[2J"}),
    ];
    let f = transcript(&h, &lines);
    let o = h.run(&["audit", f.to_str().unwrap(), "--json"]);
    o.expect(0);
    let v = o.json();
    let ids = &v["compactions"][0]["identifiers"];
    // 100,000 tokens plus the URL; none of the near-matches.
    assert_eq!(ids["total"], 100_001);
    assert_eq!(pairs(&ids["kept"]), [p("id-00000007", "m2")]);
    assert_eq!(ids["lost"].as_array().unwrap().len(), 100_000);
    let o = h.run(&["audit", f.to_str().unwrap()]);
    o.expect(0);
    assert!(!o.stdout.contains(&0x1b), "raw escape reached the terminal");
    assert!(
        o.text().contains("100,001 in span") || o.text().contains("100001 in span"),
        "{}",
        o.text()
    );
    assert!(o.text().contains("… 99980 more"), "{}", o.text());
}

/// SPEC §6.1: clawtop's plan summarizes the messages the last compaction kept (pi 0.55.1
/// would start after the compaction entry and have nothing but the new message), and the
/// draft's audit then drops nothing.
#[test]
fn dry_run_summarizes_what_the_last_compaction_kept() {
    let h = Home::empty();
    let f = h.path().join("planted.jsonl");
    std::fs::copy(fixture(fixtures::AUDIT_PLANTED), &f).unwrap();
    let o = h.run(&[
        "compact",
        f.to_str().unwrap(),
        "--dry-run",
        "--json",
        "--keep-recent-tokens",
        "1",
    ]);
    o.expect(0);
    let v = o.json();
    // c0000002 kept a0000009; the cut (pi's) keeps the newest message a0000010.
    assert_eq!(v["firstKeptEntryId"], "a0000010");
    assert_eq!(v["messagesToSummarize"], 1, "{v}");
    assert_eq!(v["hasPreviousSummary"], true);
}

/// A host whose session transcript is the planted one: `check` warns `lossy-compaction` by
/// default and `metrics` carries the latest compaction's figures.
#[test]
fn check_and_metrics_report_the_latest_compaction() {
    let h = Home::host_a();
    std::fs::copy(fixture(fixtures::AUDIT_PLANTED), h.transcript()).unwrap();
    let o = h.run(&["check"]);
    let t = o.text();
    assert!(
        t.contains("WARNING lossy-compaction agent:main:main: latest compaction c0000002 lost 4 identifiers, dropped 2 messages unsummarized"),
        "{t}"
    );
    assert!(o.code >= 1, "{t}");
    // Not asked for: not reported.
    let o = h.run(&["check", "--warn", "flush-due"]);
    assert!(!o.text().contains("lossy-compaction"), "{}", o.text());
    let o = h.run(&["check", "--warn", "flush-due", "--crit", "lossy-compaction"]);
    assert!(
        o.text().contains("CRITICAL lossy-compaction"),
        "{}",
        o.text()
    );
    let o = h.run(&["metrics"]);
    o.expect(0);
    let m = o.text();
    let labels = r#"{agent="main",session_key="agent:main:main",session_id="adhoc-1"}"#;
    assert!(
        m.contains(&format!("clawtop_compaction_identifiers_lost{labels} 4")),
        "{m}"
    );
    assert!(
        m.contains(&format!(
            "clawtop_compaction_messages_dropped_unsummarized{labels} 2"
        )),
        "{m}"
    );
}
