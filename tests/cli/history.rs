//! `clawtop history` on a copy of host-a (2026.2.26, JSONL) and on bad input.

use super::support::cli::{Home, assistant, run_with, user};

#[test]
fn host_a_count_above_its_entries_is_named_with_both_numbers() {
    let h = Home::host_a();
    let o = h.run(&["history", "agent:main:main", "--json"]);
    o.expect(0);
    let v = o.json();
    assert_eq!(v["compactionCount"], 12);
    let c = v["compactions"].as_array().unwrap();
    assert_eq!(c.len(), 1);
    assert_eq!(c[0]["id"], "27ed3704");
    assert_eq!(c[0]["timestamp"], "2026-11-21T04:22:16.448Z");
    assert_eq!(c[0]["tokensBefore"], 37_863);
    // No tokensAfter in a 2026.2 entry: the next call's usage (totalTokens 37,896).
    assert_eq!(c[0]["tokensAfter"], 37_896);
    assert_eq!(c[0]["tokensAfterSource"], "next-call");
    assert_eq!(c[0]["summaryChars"], 338);
    let codes: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        [
            "compaction-count-mismatch",
            "no-flush-before-compaction",
            "compaction-loop"
        ]
    );
    let m = v["warnings"][0]["message"].as_str().unwrap();
    assert!(
        m.contains("compactionCount is 12") && m.contains("holds 1 compaction entry"),
        "{m}"
    );
    // The window is 48,000: compaction line 28,000, which the compaction did not get under.
    let l = v["warnings"][2]["message"].as_str().unwrap();
    assert!(l.contains("37,896") && l.contains("28,000"), "{l}");
    let text = h.run(&["history", "agent:main:main"]);
    text.expect(0);
    assert!(
        text.text()
            .contains("[compaction-count-mismatch] compactionCount is 12")
    );
}

#[test]
fn unknown_keys_and_odd_memory_files_fail_clearly_or_are_named() {
    let h = Home::host_a();
    let o = h.run(&["history", "agent:main:nope", "--json"]);
    o.expect(1);
    assert!(o.json()["error"].as_str().unwrap().contains("nope"));
    let mem = h.state().join("workspace/memory");
    std::fs::create_dir_all(&mem).unwrap();
    std::fs::write(mem.join("2026-11-20.md"), b"\x00\x01binary\xff").unwrap();
    let big = std::fs::File::create(mem.join("2026-11-21.md")).unwrap();
    big.set_len(64 << 20).unwrap();
    let v = h.run(&["history", "agent:main:main", "--json"]).json();
    let files = v["memory"]["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert!(files[0]["unread"].as_str().unwrap().contains("binary"));
    assert!(
        files[1]["unread"]
            .as_str()
            .unwrap()
            .contains("67108864 bytes")
    );
}

#[test]
fn a_transcript_without_usage_or_with_its_clock_going_back_is_unknown_not_a_crash() {
    let h = Home::empty();
    let f = h.path().join("odd.jsonl");
    let mut lines = vec![
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z"}"#
            .to_string(),
        user("u1", None, "hello"),
        // No usage on any reply.
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:01:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"stopReason":"stop"}}"#.to_string(),
    ];
    std::fs::write(&f, lines.join("\n") + "\n").unwrap();
    let v = run_with(h.path(), &["history", f.to_str().unwrap(), "--json"], &[]);
    v.expect(0);
    let v = v.json();
    assert!(v["forecast"]["tokensPerTurn"].is_null());
    assert!(
        v["forecast"]["note"]
            .as_str()
            .unwrap()
            .contains("no model call")
    );

    // Usage that goes down without a compaction, and an entry stamped in the past.
    lines.push(user("u2", Some("a1"), "more"));
    lines.push(assistant("a2", "u2", "ok", 9_000));
    lines.push(user("u3", Some("a2"), "more"));
    lines.push(assistant("a3", "u3", "ok", 5_000));
    lines.push(
        r#"{"type":"message","id":"u4","parentId":"a3","timestamp":"1999-01-01T00:00:00.000Z","message":{"role":"user","content":"back in time"}}"#
            .to_string(),
    );
    std::fs::write(&f, lines.join("\n") + "\n").unwrap();
    let v = run_with(h.path(), &["history", f.to_str().unwrap(), "--json"], &[]);
    v.expect(0);
    let v = v.json();
    let codes: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["clock-backwards", "usage-down"], "{v}");
    assert!(v["forecast"]["tokensPerTurn"].is_null());
}

#[test]
fn check_names_the_loop_and_the_missing_flush_of_the_last_compaction_with_their_numbers() {
    let h = Home::host_a();
    // Only the history problems graded, so the store's own (over, stuck) stay out of the way.
    let o = h.run(&[
        "check",
        "--warn",
        "compaction-loop,no-flush-before-compaction",
        "--crit",
        "busy",
    ]);
    o.expect(1);
    let t = o.text();
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), 2, "{t}");
    let lp = lines
        .iter()
        .find(|l| l.starts_with("WARNING compaction-loop agent:main:main: "))
        .unwrap();
    assert!(
        lp.contains("27ed3704") && lp.contains("37,896") && lp.contains("28,000"),
        "{lp}"
    );
    let nf = lines
        .iter()
        .find(|l| l.starts_with("WARNING no-flush-before-compaction agent:main:main: "))
        .unwrap();
    assert!(
        nf.contains("tokensBefore 37,863") && nf.contains("flush line 24,000"),
        "{nf}"
    );
    // Graded critical on request; left out when not asked for.
    let o = h.run(&["check", "--warn", "flush-due", "--crit", "compaction-loop"]);
    o.expect(2);
    assert!(
        o.text()
            .starts_with("CRITICAL compaction-loop agent:main:main: ")
    );
    let o = h.run(&["check", "--warn", "busy", "--crit", "busy"]);
    o.expect(0);
    // A flush recorded in the cycle that compaction closed: no missing-flush warning.
    let store = h.store();
    let text = std::fs::read_to_string(&store).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["agent:main:main"]["compactionCount"] = 1.into();
    v["agent:main:main"]["memoryFlushCompactionCount"] = 0.into();
    v["agent:main:main"]["memoryFlushAt"] = 1_795_234_900_000i64.into();
    std::fs::write(&store, v.to_string()).unwrap();
    let o = h.run(&[
        "check",
        "--warn",
        "no-flush-before-compaction,compaction-loop",
        "--crit",
        "busy",
    ]);
    o.expect(1);
    assert!(
        !o.text().contains("no-flush-before-compaction"),
        "{}",
        o.text()
    );
    assert!(o.text().contains("compaction-loop"));
}

#[test]
fn check_grades_the_history_problems_by_default() {
    let h = Home::empty();
    let o = run_with(h.path(), &["--demo", "check"], &[]);
    o.expect(2);
    let t = o.text();
    // The demo's discord and dashboard sessions compacted without a flush in the cycle.
    let nf: Vec<&str> = t
        .lines()
        .filter(|l| l.starts_with("WARNING no-flush-before-compaction "))
        .collect();
    assert_eq!(nf.len(), 2, "{t}");
    assert!(nf.iter().any(
        |l| l.contains("agent:main:discord:channel:998877: compaction 743af9e3")
            && l.contains("tokensBefore 183,020")
    ));
}

/// `--log FILE`: a Gateway log's `memoryFlush triggered` lines for the session are flushes. On
/// host-a the store counts 12 compactions for 1 entry, so the log's cycle cannot be lined up
/// with the branch: listed, the warning stays. With the counts agreeing, the compaction that
/// closed the logged cycle had a flush, and its "no flush" warning goes.
#[test]
fn gateway_log_lines_are_flush_evidence() {
    let h = Home::host_a();
    let log = h.path().join("gateway.log");
    std::fs::write(
        &log,
        "2026-11-21T04:20:00.000Z memoryFlush check: sessionKey=agent:main:main tokenCount=30100 contextWindow=48000 threshold=24000 compactionCount=0 memoryFlushCompactionCount=0\n\
         2026-11-21T04:20:01.000Z memoryFlush triggered: sessionKey=agent:main:main tokenCount=30100 threshold=24000\n\
         2026-11-21T04:20:02.000Z memoryFlush triggered: sessionKey=agent:main:other tokenCount=1 threshold=24000\n",
    )
    .unwrap();
    let log_arg = log.to_str().unwrap();
    let codes = |v: &serde_json::Value| -> Vec<String> {
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["code"].as_str().unwrap().to_string())
            .collect()
    };
    let o = h.run(&["history", "agent:main:main", "--json", "--log", log_arg]);
    o.expect(0);
    let v = o.json();
    let logged: Vec<_> = v["flushes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["source"] == "log")
        .collect();
    assert_eq!(logged.len(), 1, "{v}");
    assert_eq!(logged[0]["timestamp"], "2026-11-21T04:20:01.000Z");
    assert_eq!(logged[0]["compactionCount"], 0);
    assert!(logged[0]["id"].as_str().unwrap().ends_with("gateway.log:2"));
    assert!(codes(&v).contains(&"no-flush-before-compaction".to_string()));

    // The store agreeing with the branch (1 compaction): the cycle lines up.
    let store = h.store();
    let text = std::fs::read_to_string(&store).unwrap();
    let mut s: serde_json::Value = serde_json::from_str(&text).unwrap();
    s["agent:main:main"]["compactionCount"] = 1.into();
    std::fs::write(&store, s.to_string()).unwrap();
    let v = h
        .run(&["history", "agent:main:main", "--json", "--log", log_arg])
        .json();
    assert!(
        !codes(&v).contains(&"no-flush-before-compaction".to_string()),
        "{v}"
    );
    assert_eq!(v["compactions"][0]["flushBefore"], "yes");
    assert!(
        v["compactions"][0]["flushEvidence"]
            .as_str()
            .unwrap()
            .contains("gateway log"),
        "{v}"
    );
    // A log that cannot be read is named, not waited on.
    let v = h
        .run(&[
            "history",
            "agent:main:main",
            "--json",
            "--log",
            h.path().to_str().unwrap(),
        ])
        .json();
    assert!(codes(&v).contains(&"log-unread".to_string()), "{v}");
}

/// `check --log FILE` grades with the same evidence as `history --log`: with the counts
/// agreeing, the logged flush clears the no-flush warning in both; without the log, both
/// keep it. An unreadable log makes the answer UNKNOWN and names it.
#[test]
fn check_takes_the_gateway_log_history_takes() {
    let h = Home::host_a();
    let log = h.path().join("gateway.log");
    std::fs::write(
        &log,
        "2026-11-21T04:20:00.000Z memoryFlush check: sessionKey=agent:main:main tokenCount=30100 compactionCount=0 memoryFlushCompactionCount=0\n\
         2026-11-21T04:20:01.000Z memoryFlush triggered: sessionKey=agent:main:main tokenCount=30100 threshold=24000\n",
    )
    .unwrap();
    let store = h.store();
    let mut s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&store).unwrap()).unwrap();
    s["agent:main:main"]["compactionCount"] = 1.into();
    std::fs::write(&store, s.to_string()).unwrap();
    let log_arg = log.to_str().unwrap();
    let grade = ["--warn", "no-flush-before-compaction", "--crit", "busy"];
    let check = |extra: &[&str]| {
        let mut args = vec!["check"];
        args.extend(grade);
        args.extend(extra);
        h.run(&args)
    };
    let history_says = |extra: &[&str]| {
        let mut args = vec!["history", "agent:main:main", "--json"];
        args.extend(extra);
        let v = h.run(&args).json();
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["code"] == "no-flush-before-compaction")
    };
    // Without the log: both say the flush is missing.
    let o = check(&[]);
    o.expect(1);
    assert!(
        o.text()
            .starts_with("WARNING no-flush-before-compaction agent:main:main: ")
    );
    assert!(history_says(&[]));
    // With it: neither does.
    let o = check(&["--log", log_arg]);
    o.expect(0);
    assert!(
        !o.text().contains("no-flush-before-compaction"),
        "{}",
        o.text()
    );
    assert!(!history_says(&["--log", log_arg]));
    // A log that cannot be read (a directory here): UNKNOWN, named.
    let dir = h.path().to_str().unwrap();
    let o = check(&["--log", dir]);
    o.expect(3);
    assert!(
        o.text().starts_with("UNKNOWN: gateway log ") && o.text().contains("not readable"),
        "{}",
        o.text()
    );
    // One host's log: not with --hosts.
    let o = h.run(&["check", "--hosts", "--log", log_arg]);
    o.expect(2);
    assert!(
        o.stderr.contains("does not go with --hosts"),
        "{}",
        o.stderr
    );
}
