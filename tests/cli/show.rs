//! `clawtop show` by key, session id and file; entries; escape neutralisation.
use crate::support::cli::*;

#[test]
fn show_key_and_session_id() {
    let h = Home::host_a();
    let before = snapshot(&h.state());
    for target in ["agent:main:main", "adhoc-1"] {
        let o = h.run(&["show", target]);
        o.expect(0);
        let t = o.text();
        assert!(
            t.contains("48,000") && t.contains("entry contextTokens"),
            "{t}"
        );
        // The store's run-sum stays beside the figure used (the last call's context).
        assert!(
            t.contains("40,378") && t.contains("the store says 75,943 (run-sum)"),
            "{t}"
        );
        assert!(t.contains("28,000") && t.contains("24,000"), "{t}");
        assert!(
            t.contains(
                "flush due: 40,378 used ≥ flush line 24,000 and no flush since compaction 12; OpenClaw up to 2026.7 decides its flush on the stored totalTokens 75,943, at or past the flush line"
            ),
            "{t}"
        );
        let o = h.run(&["show", target, "--json"]);
        o.expect(0);
        let v = o.json();
        assert_eq!(v["sessionKey"], "agent:main:main");
        assert_eq!(v["status"], "compact-due");
        assert_eq!(v["sources"]["reserveTokensFloorSource"], "default");
        assert_eq!(v["sources"]["windowDetail"], "entry contextTokens");
        assert_eq!(v["transcriptInfo"]["entries"], 40);
        assert!(v.get("entries").is_none());
    }
    assert_eq!(before, snapshot(&h.state()));
}

#[test]
fn show_entries_host_a_compaction_card() {
    let h = Home::host_a();
    let o = h.run(&["show", "agent:main:main", "--entries"]);
    o.expect(0);
    let t = o.text();
    assert!(
        t.contains("compaction") && t.contains("tokensBefore") && t.contains("firstKeptEntryId"),
        "{t}"
    );
    let o = h.run(&["show", "agent:main:main", "--entries", "--json"]);
    o.expect(0);
    let v = o.json();
    let es = v["entries"].as_array().unwrap();
    assert_eq!(es.len(), 40);
    let c = es.iter().find(|e| e["type"] == "compaction").unwrap();
    for k in [
        "index",
        "id",
        "parentId",
        "line",
        "type",
        "role",
        "estimate",
        "onActiveBranch",
        "entry",
    ] {
        assert!(c.get(k).is_some(), "{k}");
    }
    assert!(c["entry"]["summary"].is_string());
}

#[test]
fn show_bare_file_defaults_and_window_flag() {
    let h = Home::empty();
    let f = h.path().join("t.jsonl");
    let body = [
        HEADER.to_string(),
        user("u1", None, "hi"),
        assistant("a1", "u1", "hello", 1000),
    ]
    .join("\n")
        + "\n";
    std::fs::write(&f, &body).unwrap();
    let o = h.run(&["show", f.to_str().unwrap(), "--json"]);
    o.expect(0);
    let v = o.json();
    assert_eq!(v["sessionKey"], serde_json::Value::Null);
    assert_eq!(v["window"], 200000);
    assert_eq!(v["windowSource"], "default");
    assert_eq!(v["usedSource"], "transcript");
    assert_eq!(v["used"], 1005, "usage totalTokens = input + output");
    let o = h.run(&["show", f.to_str().unwrap(), "--json", "--window", "1000"]);
    o.expect(0);
    assert_eq!(o.json()["windowSource"], "flag");
    assert_eq!(o.json()["status"], "over");
    // Also the pi v1 fixture (copied) and through `show FILE` without a state dir.
    let g = h.path().join("before-compaction.jsonl");
    std::fs::copy(fixture("pi/before-compaction.jsonl"), &g).unwrap();
    let bytes = std::fs::read(&g).unwrap();
    h.run(&["show", g.to_str().unwrap(), "--entries"]).expect(0);
    assert_eq!(std::fs::read(&g).unwrap(), bytes);
    assert_eq!(body.as_bytes(), std::fs::read(&f).unwrap());
}

#[test]
fn show_entries_marks_silent_flush_turn() {
    let h = Home::empty();
    let f = h.path().join("t.jsonl");
    std::fs::write(
        &f,
        [
            HEADER.to_string(),
            user("u1", None, "flush now"),
            assistant("a1", "u1", "NO_REPLY", 10),
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let o = h.run(&["show", f.to_str().unwrap(), "--entries"]);
    o.expect(0);
    assert!(o.text().contains("silent flush turn"), "{}", o.text());
    let o = h.run(&["show", f.to_str().unwrap(), "--entries", "--json"]);
    assert_eq!(o.json()["entries"][1]["silentFlushTurn"], true);
}

fn has_c1(bytes: &[u8]) -> bool {
    // U+0080..U+009F in UTF-8 is C2 80..C2 9F; a raw 0x9B byte outside a sequence also counts.
    let s = String::from_utf8_lossy(bytes);
    s.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c))
}

#[test]
fn show_entries_neutralises_escapes() {
    let h = Home::empty();
    let evil = "red \u{1b}[31mALERT\u{1b}[0m clip \u{1b}]52;c;aGk=\u{7} bare \u{1b} c1 \u{9b}2J bell \u{7} end";
    let f = h.path().join("evil.jsonl");
    let lines = [
        HEADER.to_string(),
        user("u1", None, evil),
        assistant("a1", "u1", evil, 10),
        format!(
            r#"{{"type":"mystery","id":"m1","parentId":"a1","text":{}}}"#,
            serde_json::to_string(evil).unwrap()
        ),
    ];
    std::fs::write(&f, lines.join("\n") + "\n").unwrap();
    for args in [
        &["show", "--entries"][..],
        &["show", "--entries", "--json"],
        &["show"],
    ] {
        let mut a = args.to_vec();
        a.insert(1, f.to_str().unwrap());
        let o = h.run(&a);
        o.expect(0);
        for (i, &b) in o.stdout.iter().enumerate() {
            assert!(
                b != 0x1b && b != 0x07,
                "control byte {b:#x} at {i} for {args:?}: {}",
                o.text()
            );
        }
        assert!(!has_c1(&o.stdout), "C1 reached stdout for {args:?}");
        assert!(
            !o.stderr.bytes().any(|b| b == 0x1b || b == 0x07),
            "stderr: {:?}",
            o.stderr
        );
    }
    let o = h.run(&["show", f.to_str().unwrap(), "--entries"]);
    assert!(
        o.text().contains("␛[31mALERT"),
        "visible stand-ins: {}",
        o.text()
    );
    assert!(o.text().contains("mystery"), "unknown types shown raw");
}

/// `memoryFlushAt` (OpenClaw ≤ 2026.7 keeps it in epoch ms) is shown as a time and its age,
/// never as the raw number.
#[test]
fn memory_flush_at_is_a_time_and_an_age() {
    let h = Home::host_a();
    let mut store: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(h.store()).unwrap()).unwrap();
    let at = store["agent:main:main"]["updatedAt"].as_i64().unwrap();
    store["agent:main:main"]["memoryFlushAt"] = serde_json::json!(at);
    std::fs::write(h.store(), store.to_string()).unwrap();
    let o = h.run(&["show", "agent:main:main"]);
    o.expect(0);
    let t = o.text();
    let line = t
        .lines()
        .find(|l| l.contains("memoryFlushAt"))
        .unwrap_or_else(|| panic!("no memoryFlushAt line: {t}"));
    assert!(!line.contains(&at.to_string()), "raw epoch ms: {line}");
    let when = chrono::DateTime::from_timestamp_millis(at)
        .unwrap()
        .format("%Y-%m-%d %H:%M:%S UTC")
        .to_string();
    assert!(line.contains(&when) && line.contains(" ago)"), "{line}");
}
