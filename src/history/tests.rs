use super::*;
use crate::thresholds::{Counters, Settings, Source, UsedSource, Window};
use serde_json::json;

/// A transcript under construction: a v3 chain, one line per entry.
struct Chain {
    lines: Vec<String>,
    n: u32,
    minute: i64,
}

impl Chain {
    fn new() -> Chain {
        Chain {
            lines: vec![json!({"type": "session", "version": 3, "id": "s"}).to_string()],
            n: 0,
            minute: 0,
        }
    }
    fn push(&mut self, mut v: Value) -> String {
        self.n += 1;
        let id = format!("e{}", self.n);
        let parent = (self.n > 1).then(|| format!("e{}", self.n - 1));
        self.minute += 1;
        let ts = chrono::DateTime::from_timestamp(1_795_000_000 + self.minute * 60, 0)
            .unwrap()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string();
        let o = v.as_object_mut().unwrap();
        o.insert("id".into(), id.clone().into());
        o.insert("parentId".into(), parent.into());
        o.entry("timestamp").or_insert(ts.into());
        self.lines.push(v.to_string());
        id
    }
    fn user(&mut self, text: &str) -> String {
        self.push(json!({"type": "message", "message": {"role": "user", "content": text}}))
    }
    fn call(&mut self, total: Option<u64>) -> String {
        let mut m = json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}], "stopReason": "stop"});
        if let Some(t) = total {
            m["usage"] = json!({"input": t - 10, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": t});
        }
        self.push(json!({"type": "message", "message": m}))
    }
    fn turn(&mut self, total: u64) {
        self.user("go on");
        self.call(Some(total));
    }
    fn compaction(&mut self, before: u64) -> String {
        self.push(json!({"type": "compaction", "summary": "s".repeat(400), "firstKeptEntryId": "e1", "tokensBefore": before, "fromHook": true}))
    }
    fn transcript(&self) -> Transcript {
        Transcript::from_bytes("t.jsonl", (self.lines.join("\n") + "\n").into_bytes())
    }
}

/// 2026.2 numbers of a 48,000 window: compaction line 28,000, flush line 24,000.
fn numbers(used: Option<u64>, c: Counters) -> Thresholds {
    let window = Window {
        tokens: 48_000,
        source: Source::Entry,
        detail: String::new(),
    };
    let used = (
        used,
        used.map_or(UsedSource::Unknown, |_| UsedSource::Fresh),
    );
    crate::thresholds::compute_with(
        Rules::V2026_2,
        window,
        used,
        &Settings::from_config(&Value::Null),
        &c,
    )
}

fn codes(h: &History) -> Vec<&'static str> {
    h.warnings.iter().map(|w| w.code).collect()
}

#[test]
fn compactions_flushes_and_the_warnings_of_their_cycles() {
    let mut c = Chain::new();
    for k in 0..5 {
        c.turn(16_000 + k * 2_000);
    }
    let flush = c.user(
        "Pre-compaction memory flush. Store durable memories now (use memory/2026-11-21.md).",
    );
    c.call(Some(25_000));
    let first = c.compaction(27_500);
    c.turn(30_000); // still above the compaction line: a loop
    c.turn(31_000);
    let second = c.compaction(32_000);
    c.turn(12_000);
    for k in 1..=4 {
        c.turn(12_000 + k * 1_000);
    }
    let t = c.transcript();
    let th = numbers(
        Some(16_000),
        Counters {
            compaction_count: Some(2),
            memory_flush_compaction_count: Some(0),
            memory_flush_at: Some(1_795_000_000_000 + 6 * 60_000),
            ..Default::default()
        },
    );
    assert_eq!((th.compact_at, th.flush_at), (28_000, Some(24_000)));
    let h = build(Some(&t), &th, None);
    assert_eq!(h.compactions.len(), 2);
    let (a, b) = (&h.compactions[0], &h.compactions[1]);
    assert_eq!((a.id.as_str(), a.number), (first.as_str(), 1));
    assert_eq!(a.tokens_before, Some(27_500));
    assert_eq!(
        (a.tokens_after, a.tokens_after_source),
        (Some(30_000), Some("next-call"))
    );
    assert_eq!(a.trigger, "openclaw");
    assert_eq!(a.flush_before, "yes", "{}", a.flush_evidence);
    assert!(a.flush_evidence.contains(&flush));
    assert_eq!(a.summary_chars, 400);
    assert_eq!(a.summary_tokens, 100);
    assert_eq!(b.id, second);
    assert_eq!(b.tokens_after, Some(12_000));
    assert_eq!(b.flush_before, "no", "{}", b.flush_evidence);
    let w = |code: &str| {
        h.warnings
            .iter()
            .filter(|w| w.code == code)
            .map(|w| w.message.clone())
            .collect::<Vec<_>>()
    };
    let loops = w(code::LOOP);
    assert_eq!(loops.len(), 1, "{:?}", h.warnings);
    assert!(
        loops[0].contains(&first) && loops[0].contains("30,000") && loops[0].contains("28,000")
    );
    let no_flush = w(code::NO_FLUSH);
    assert_eq!(no_flush.len(), 1);
    assert!(no_flush[0].contains(&second) && no_flush[0].contains("32,000"));
    assert!(no_flush[0].contains("24,000"), "{}", no_flush[0]);
    assert!(w(code::COUNT_MISMATCH).is_empty());
    // Flushes: the store's record and the transcript's flush turn.
    assert_eq!(h.flushes.len(), 2);
    assert!(
        h.flushes
            .iter()
            .any(|f| f.source == "transcript" && f.id.as_deref() == Some(flush.as_str()))
    );
    // Forecast over the last cycle: +1,000 a turn from 16,000.
    assert_eq!(h.forecast.tokens_per_turn, Some(1_000));
    assert_eq!(h.forecast.turns_to_flush, Some(8));
    assert_eq!(h.forecast.turns_to_compaction, Some(12));
    assert!(h.turns.iter().any(|t| t.flush));
}

#[test]
fn a_flush_recorded_after_its_compaction_or_written_right_after_it_is_named() {
    let mut c = Chain::new();
    for k in 0..3 {
        c.turn(20_000 + k * 2_000);
    }
    let comp = c.compaction(27_000);
    let late = c.user("Pre-compaction memory flush. Store durable memories now.");
    c.call(Some(9_000));
    c.turn(10_000);
    let t = c.transcript();
    let th = numbers(
        Some(10_000),
        Counters {
            compaction_count: Some(1),
            memory_flush_compaction_count: Some(0),
            // Stamped an hour after everything: later than the compaction of its cycle.
            memory_flush_at: Some(1_795_000_000_000 + 3_600_000),
            ..Default::default()
        },
    );
    let h = build(Some(&t), &th, None);
    let after: Vec<&HistoryWarning> = h
        .warnings
        .iter()
        .filter(|w| w.code == code::FLUSH_AFTER)
        .collect();
    assert_eq!(after.len(), 2, "{:?}", h.warnings);
    assert!(
        after
            .iter()
            .any(|w| w.message.contains(&late) && w.message.contains(&comp))
    );
    assert!(after.iter().any(|w| w.message.contains("memoryFlushAt")));
    // The store says the last flush ran at count 0: the compaction that closed cycle 0 had one.
    assert_eq!(h.compactions[0].flush_before, "yes");
}

#[test]
fn a_count_above_the_entries_names_both_numbers() {
    let mut c = Chain::new();
    c.turn(20_000);
    c.compaction(27_000);
    c.turn(9_000);
    let t = c.transcript();
    let th = numbers(
        Some(9_000),
        Counters {
            compaction_count: Some(12),
            ..Default::default()
        },
    );
    let h = build(Some(&t), &th, None);
    let m = &h
        .warnings
        .iter()
        .find(|w| w.code == code::COUNT_MISMATCH)
        .unwrap()
        .message;
    assert!(
        m.contains("compactionCount is 12")
            && m.contains("holds 1 compaction entry")
            && m.contains("11"),
        "{m}"
    );
    // The cycles cannot be lined up with the store's, and there is no flush turn: on 2026.2
    // the whole cycle is in the transcript, so "no".
    assert_eq!(h.compactions[0].flush_before, "no");
}

#[test]
fn no_usage_falling_usage_and_a_clock_going_backwards_are_named_not_divided_by() {
    let mut c = Chain::new();
    c.user("hi");
    c.call(None);
    c.compaction(1_000);
    c.user("again");
    c.call(None);
    let t = c.transcript();
    let h = build(Some(&t), &numbers(None, Counters::default()), None);
    assert_eq!(h.compactions[0].tokens_after, None);
    assert_eq!(h.compactions[0].tokens_after_source, None);
    assert_eq!(h.forecast.tokens_per_turn, None);
    assert!(
        h.forecast
            .note
            .as_deref()
            .unwrap()
            .contains("no model call")
    );

    let mut c = Chain::new();
    c.turn(20_000);
    c.turn(18_000);
    c.push(json!({"type": "message", "timestamp": "2020-01-01T00:00:00.000Z", "message": {"role": "user", "content": "from the past"}}));
    c.call(Some(19_000));
    let t = c.transcript();
    let h = build(Some(&t), &numbers(Some(19_000), Counters::default()), None);
    assert_eq!(codes(&h), vec![code::CLOCK, code::USAGE_DOWN]);
    assert!(
        h.warnings[1].message.contains("18,000 after 20,000"),
        "{}",
        h.warnings[1].message
    );
    assert!(h.warnings[0].message.contains("2020-01-01"));

    // No transcript at all: only the store's figures, everything else empty.
    let h = build(
        None,
        &numbers(
            None,
            Counters {
                compaction_count: Some(3),
                ..Default::default()
            },
        ),
        None,
    );
    assert!(h.compactions.is_empty() && h.warnings.is_empty());
    assert_eq!(h.compaction_count, Some(3));
}

#[test]
fn duplicate_note_blocks_become_warnings() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.path().join("memory")).unwrap();
    std::fs::write(
        ws.path().join("memory/2026-11-23.md"),
        "- durable note 16: deployment plan reviewed\n\n- durable note 16: deployment plan reviewed\n",
    )
    .unwrap();
    let h = build(
        None,
        &numbers(None, Counters::default()),
        Some(memory::read(ws.path())),
    );
    assert_eq!(codes(&h), vec![code::DUPLICATE_NOTE]);
    assert!(
        h.warnings[0]
            .message
            .contains("memory/2026-11-23.md: the block at line 1")
    );
    assert!(h.warnings[0].message.contains("again at line 3"));
}

#[test]
fn through_a_gateway_the_flush_of_a_cycle_is_unknown_not_no() {
    let mut c = Chain::new();
    for k in 0..3 {
        c.turn(20_000 + k * 2_000);
    }
    c.compaction(26_000);
    c.turn(10_000);
    let t = c.transcript();
    let mut th = numbers(
        Some(10_000),
        Counters {
            compaction_count: Some(5),
            ..Default::default()
        },
    );
    // What a GatewaySource reports as not exposed (source::gateway): the figures are masked.
    th.mask_not_exposed(&[
        ("compactionCount", "not exposed by the gateway".into()),
        ("memoryFlush", "not exposed by the gateway".into()),
    ]);
    let h = build(Some(&t), &th, None);
    assert_eq!(h.compaction_count, None);
    assert_eq!(h.compactions[0].flush_before, "unknown");
    assert!(h.compactions[0].flush_evidence.contains("cannot read"));
    assert!(codes(&h).is_empty(), "{:?}", h.warnings);
}

/// A branch is read in one pass where it runs forward through its file, entry by entry where
/// it does not (a transcript whose lines were reordered): the same history either way.
#[test]
fn a_branch_out_of_file_order_reads_as_the_same_history() {
    let mut c = Chain::new();
    c.turn(12_000);
    c.turn(20_000);
    c.compaction(27_000);
    c.turn(9_000);
    c.user("/compact now");
    c.compaction(15_000);
    c.turn(7_000);
    let forward = c.transcript();
    // Everything but the header and the leaf in reverse: the leaf is still the last entry.
    let n = c.lines.len();
    let mut reordered = vec![c.lines[0].clone()];
    reordered.extend(c.lines[1..n - 1].iter().rev().cloned());
    reordered.push(c.lines[n - 1].clone());
    let backward = Transcript::from_bytes("t.jsonl", (reordered.join("\n") + "\n").into_bytes());
    assert_eq!(
        forward.active_branch().len(),
        backward.active_branch().len()
    );
    let th = numbers(Some(7_000), Counters::default());
    let (a, b) = (
        build(Some(&forward), &th, None),
        build(Some(&backward), &th, None),
    );
    assert_eq!(a.turns, b.turns);
    assert!(a.turns.len() >= 5, "{:?}", a.turns);
    assert_eq!(
        serde_json::to_value(&a.compactions).unwrap(),
        serde_json::to_value(&b.compactions).unwrap()
    );
    assert_eq!(a.compactions.len(), 2);
    assert_eq!(
        a.compactions[1].trigger, "manual",
        "the /compact request, in either order"
    );
    assert_eq!(codes(&a), codes(&b));
}

/// Entries of the branch that cannot be read (the file shrank after it was indexed) make the
/// history unknown, never a shorter history with no problem in it.
#[test]
fn a_branch_whose_entries_cannot_be_read_is_unknown() {
    let mut c = Chain::new();
    c.turn(12_000);
    c.compaction(27_000);
    c.turn(9_000);
    c.turn(9_500);
    // Out of file order, so the entries are read one by one after the index was made.
    let n = c.lines.len();
    let mut reordered = vec![c.lines[0].clone()];
    reordered.extend(c.lines[1..n - 1].iter().rev().cloned());
    reordered.push(c.lines[n - 1].clone());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, reordered.join("\n") + "\n").unwrap();
    let t = Transcript::open(&path).unwrap();
    let th = numbers(Some(9_500), Counters::default());
    assert!(build(Some(&t), &th, None).transcript_unread.is_none());
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(10)
        .unwrap();
    let h = build(Some(&t), &th, None);
    let why = h
        .transcript_unread
        .as_deref()
        .expect("unknown, not shorter");
    assert!(why.contains("could not be read"), "{why}");
    assert!(codes(&h).contains(&code::TRANSCRIPT_UNREAD));
}

/// The same in file order, read in one forward pass (what every branch OpenClaw writes is):
/// the pass that lost entries says so, and they are read one by one and named.
#[test]
fn a_branch_in_file_order_whose_entries_cannot_be_read_is_unknown() {
    let mut c = Chain::new();
    c.turn(12_000);
    c.compaction(27_000);
    c.turn(9_000);
    c.turn(9_500);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, c.lines.join("\n") + "\n").unwrap();
    let t = Transcript::open(&path).unwrap();
    let th = numbers(Some(9_500), Counters::default());
    let whole = build(Some(&t), &th, None);
    assert!(whole.transcript_unread.is_none());
    // The file keeps its first half: the compaction and the turns after it are gone.
    let half = t.entries[t.entries.len() / 2].offset;
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(half)
        .unwrap();
    let h = build(Some(&t), &th, None);
    let why = h
        .transcript_unread
        .as_deref()
        .expect("unknown, not shorter");
    assert!(why.contains("could not be read"), "{why}");
    assert!(codes(&h).contains(&code::TRANSCRIPT_UNREAD));
}

/// The history of `t` under both rule sets, with counters that line up with its compactions
/// and without, as JSON, and the History pane's turns: everything the walk of the branch
/// decides (turns, compactions, flush turns, the clock's anomalies) shows in one of them.
fn all_histories(t: &Transcript) -> Vec<String> {
    let written = t
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Compaction)
        .count() as u64;
    let lined_up = Counters {
        compaction_count: Some(written),
        memory_flush_compaction_count: Some(written.saturating_sub(1)),
        memory_flush_at: Some(1_795_000_000_000),
        ..Counters::default()
    };
    let mut out = Vec::new();
    for rules in [Rules::V2026_2, Rules::V2026_9] {
        for c in [Counters::default(), lined_up.clone()] {
            let window = Window {
                tokens: 48_000,
                source: Source::Entry,
                detail: String::new(),
            };
            let th = crate::thresholds::compute_with(
                rules,
                window,
                (Some(20_000), UsedSource::Fresh),
                &Settings::from_config(&Value::Null),
                &c,
            );
            out.push(serde_json::to_string(&build(Some(t), &th, None)).unwrap());
        }
        out.push(format!("{:?}", branch_turns(t, rules)));
    }
    out
}

/// The messages and compactions of the active branch that the scan did not capture.
fn uncaptured(t: &Transcript) -> Vec<u32> {
    t.active_branch()
        .into_iter()
        .filter(|&i| {
            matches!(
                t.entries[i as usize].kind,
                EntryKind::Compaction
                    | EntryKind::Message(Role::User)
                    | EntryKind::Message(Role::Assistant)
            ) && t.captured(i).is_none()
        })
        .collect()
}

#[test]
fn the_captured_walk_is_the_read_walk_on_every_fixture() {
    let mut seen = std::collections::BTreeSet::new();
    for p in crate::transcript::fixture_transcripts() {
        let (Ok(read), Ok(captured)) = (Transcript::open(&p), Transcript::open_for_history(&p))
        else {
            continue;
        };
        assert!(!read.captures() && captured.captures());
        let (a, b) = (all_histories(&read), all_histories(&captured));
        assert_eq!(a, b, "{}", p.display());
        // What the fixtures exercise, so the comparison is known to cover it.
        let h: Value = serde_json::from_str(&b[1]).unwrap();
        for c in h["compactions"].as_array().unwrap() {
            seen.insert(format!("trigger {}", c["trigger"]));
            seen.insert(format!("after {}", c["tokensAfterSource"]));
        }
        for f in h["flushes"].as_array().unwrap() {
            seen.insert(format!("flush {}", f["source"]));
        }
        for w in h["warnings"].as_array().unwrap() {
            seen.insert(format!("warning {}", w["code"]));
        }
        if uncaptured(&captured).is_empty() && !captured.active_branch().is_empty() {
            seen.insert("all captured".into());
        }
    }
    // (Flush turns, `/compact` and the gateway's notice: in the generated chain below.)
    for want in [
        "trigger \"openclaw\"",
        "trigger \"unknown\"",
        "after \"next-call\"",
        "warning \"usage-down\"",
        "warning \"no-flush-before-compaction\"",
        "all captured",
    ] {
        assert!(seen.contains(want), "{want} not among {seen:?}");
    }
}

/// A chain with every case the walk tells apart, and lines the scan's parse and the walk's
/// decode read differently (left to the walk's read), as bytes (`@BAD@`: a byte that is not
/// UTF-8).
fn odd_chain() -> (Vec<u8>, usize) {
    let mut c = Chain::new();
    c.turn(12_000);
    c.user("Pre-compaction memory flush. Store durable memories now.");
    c.call(Some(13_000));
    c.turn(20_000);
    c.compaction(27_000);
    c.turn(9_000);
    // A `/compact` request behind blank text blocks, then the gateway's notice.
    c.push(json!({"type": "message", "message": {"role": "user", "content": [
        {"type": "text", "text": "  "}, {"type": "image"}, {"type": "text", "text": "\n /compact please"}]}}));
    c.push(json!({"type": "compaction", "summary": "short", "tokensBefore": 15_000, "tokensAfter": 4_000,
        "firstKeptEntryId": "e3", "details": {crate::plan::RECORD_KEY: {"flush": {"memoryFlushAt": 1_795_000_100_000i64}}}}));
    c.push(
        json!({"type": "message", "message": {"role": "assistant", "provider": "openclaw",
        "model": "gateway-injected", "usage": {"input": 0, "output": 0}, "stopReason": "stop"}}),
    );
    // Calls that measured nothing, and one with the 2026.9 fields only.
    c.user("go on");
    c.push(
        json!({"type": "message", "message": {"role": "assistant", "stopReason": "aborted",
        "usage": {"input": 50_000, "totalTokens": 50_000}}}),
    );
    c.push(
        json!({"type": "message", "message": {"role": "assistant", "stopReason": "error",
        "usage": {"input": 50_000}}}),
    );
    c.push(json!({"type": "message", "message": {"role": "assistant", "usage": null}}));
    c.push(
        json!({"type": "message", "message": {"role": "assistant", "stopReason": "sto\u{70}",
        "usage": {"input": 7_000, "cacheRead": 500, "cacheWrite": 100, "output": 40}}}),
    );
    // The clock going backwards.
    c.push(
        json!({"type": "message", "timestamp": "2026-11-19T00:00:00.000+00:00",
        "message": {"role": "user", "content": "later, stamped earlier"}}),
    );
    c.call(Some(8_000));
    let mut lines = c.lines.clone();
    let mut n = c.n;
    let mut raw = |body: &str| {
        n += 1;
        let ts = "\"timestamp\":\"2026-11-20T00:00:00.000Z\",";
        let body = body.replacen(
            '{',
            &format!("{{\"id\":\"e{n}\",\"parentId\":\"e{}\",", n - 1),
            1,
        );
        lines.push(body.replace("@TS@", ts));
    };
    // Read alike by both: a stopReason with an escape, a user message whose content has a
    // lone surrogate (the decode drops the content), one whose time is not a string (the
    // decode refuses it).
    raw(
        r#"{"type":"message",@TS@"message":{"role":"assistant","stopReason":"\u0061borted","usage":{"input":60000}}}"#,
    );
    raw(r#"{"type":"message",@TS@"message":{"role":"user","content":"/compact \ud800"}}"#);
    raw(r#"{"type":"message","timestamp":5,"message":{"role":"user","content":"go"}}"#);
    raw(
        r#"{"type":"message",@TS@"message":{"role":"assistant","content":[{"type":"text","text":"\udc00"}],"usage":{"input":9100}}}"#,
    );
    // Left to the walk's read: a repeated usage, a time or stop reason that is not a string,
    // a lone surrogate in a string the scan reads, a byte that is not UTF-8.
    raw(
        r#"{"type":"message",@TS@"message":{"role":"assistant","usage":{"input":1},"usage":{"input":9200}}}"#,
    );
    raw(
        r#"{"type":"message","timestamp":7,"message":{"role":"assistant","usage":{"input":9300}}}"#,
    );
    raw(
        r#"{"type":"message",@TS@"message":{"role":"assistant","stopReason":3,"usage":{"input":9400}}}"#,
    );
    raw(
        r#"{"type":"message",@TS@"message":{"role":"assistant","model":"m\ud800","usage":{"input":9500}}}"#,
    );
    raw(
        r#"{"type":"message",@TS@"message":{"role":"assistant","content":"@BAD@","usage":{"input":9600}}}"#,
    );
    raw(
        r#"{"type":"message",@TS@"message":{"role":"assistant","provider":"x","provider":"y","usage":{"input":9700}}}"#,
    );
    let bytes = (lines.join("\n") + "\n").replace("@BAD@", "\u{1}");
    let bytes: Vec<u8> = bytes
        .into_bytes()
        .into_iter()
        .map(|b| if b == 1 { 0xFF } else { b })
        .collect();
    (bytes, 6)
}

#[test]
fn the_captured_walk_is_the_read_walk_on_every_case_and_odd_line() {
    let (bytes, left) = odd_chain();
    let read = Transcript::from_bytes("t.jsonl", bytes.clone());
    let captured = Transcript::from_bytes_for_history("t.jsonl", bytes);
    assert!(!read.captures());
    assert_eq!(uncaptured(&read).len(), read.active_branch().len());
    assert_eq!(
        uncaptured(&captured).len(),
        left,
        "{:?}",
        uncaptured(&captured)
    );
    let (a, b) = (all_histories(&read), all_histories(&captured));
    assert_eq!(a, b);
    let h: Value = serde_json::from_str(&a[1]).unwrap();
    let triggers: Vec<&str> = h["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["trigger"].as_str().unwrap())
        .collect();
    assert_eq!(triggers, ["openclaw", "manual"], "{h}");
    assert!(h["flushes"].to_string().contains("transcript"), "{h}");
    assert!(a[1].contains(code::CLOCK), "{}", a[1]);
    assert!(a[1].contains("memoryFlushAt 1795000100000"), "{}", a[1]);
    // Out of file order: entries are read one by one, the captured ones still not.
    let with_cap = |b: Vec<u8>| Transcript::from_bytes_for_history("t.jsonl", b);
    let text = String::from_utf8_lossy(&odd_chain().0).into_owned();
    let mut rev: Vec<&str> = text.lines().collect();
    let last = rev.pop().unwrap();
    rev[1..].reverse();
    rev.push(last);
    let rev = rev.join("\n").into_bytes();
    assert_eq!(
        all_histories(&Transcript::from_bytes("t.jsonl", rev.clone())),
        all_histories(&with_cap(rev))
    );
}

/// A transcript opened for its history gives the same history after its file is emptied:
/// the walk read nothing back (opened plainly, the same walk finds the entries gone).
#[test]
fn a_transcript_opened_for_its_history_is_not_read_again() {
    let (bytes, _) = odd_chain();
    // Without the lines left to the walk's read (the last six).
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    let body = lines[..lines.len() - 6].join("\n") + "\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, &body).unwrap();
    let expected = all_histories(&Transcript::open(&path).unwrap());
    let plain = Transcript::open(&path).unwrap();
    let captured = Transcript::open_for_history(&path).unwrap();
    assert!(uncaptured(&captured).is_empty());
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    assert_eq!(all_histories(&captured), expected);
    assert_ne!(all_histories(&plain), expected);
}

/// Rows fetched, counted: a store's reads after the index was made.
struct CountedRows {
    rows: std::collections::HashMap<u64, Vec<u8>>,
    fetched: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl crate::transcript::RowFetch for CountedRows {
    fn fetch(&self, key: u64) -> Result<Vec<u8>, crate::transcript::FetchError> {
        self.fetched
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.rows
            .get(&key)
            .cloned()
            .ok_or_else(|| crate::transcript::FetchError::Stale("gone".into()))
    }
}

/// `lines` as the rows of a store, each handed over whole, or (`projections`) every other
/// one as its envelope with the row given to capture separately, as a SQLite host's zstd
/// rows are; with the count of rows fetched after.
fn from_rows(
    lines: &[&[u8]],
    capture: bool,
    projections: bool,
) -> (Transcript, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use crate::transcript::RowIndexer;
    let mut ix = if capture {
        RowIndexer::capturing()
    } else {
        RowIndexer::default()
    };
    let mut rows = std::collections::HashMap::new();
    for (k, line) in lines.iter().enumerate() {
        let key = k as u64 + 1;
        rows.insert(key, line.to_vec());
        match crate::transcript::envelope(line) {
            Some(env) if projections && k % 2 == 1 => {
                ix.head(key, &env);
                if ix.wants_rows() {
                    ix.capture_row(line);
                }
            }
            _ if capture => ix.whole(key, line),
            _ => ix.head(key, line),
        }
    }
    let fetched = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let fetch = CountedRows {
        rows,
        fetched: fetched.clone(),
    };
    let t = ix.finish("db#s", Box::new(fetch), 0);
    (t, fetched)
}

#[test]
fn rows_captured_whole_or_beside_their_projection_are_not_fetched_again() {
    use std::sync::atomic::Ordering::Relaxed;
    let (bytes, left) = odd_chain();
    let lines: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let (plain, plain_reads) = from_rows(&lines, false, false);
    let expected = all_histories(&plain);
    assert!(plain_reads.load(Relaxed) > 0);
    for projections in [false, true] {
        let (t, reads) = from_rows(&lines, true, projections);
        assert_eq!(all_histories(&t), expected, "projections {projections}");
        assert_eq!(uncaptured(&t).len(), left);
        // Only the rows left to the walk's read, once per walk (4 histories, 2 turn lists).
        assert_eq!(reads.load(Relaxed), left * 6, "projections {projections}");
    }
    let clean = &lines[..lines.len() - left];
    let (t, reads) = from_rows(clean, true, true);
    assert_eq!(
        all_histories(&t),
        all_histories(&from_rows(clean, false, false).0)
    );
    assert_eq!(reads.load(Relaxed), 0);
}

/// The forecast reads a message the scan captured from the capture
/// (`series::step_of_captured`), not from its line: on every fixture transcript and the odd
/// chain, each captured message it reads so gives the ids, the time and the step its line's
/// head gives, under either host's rules, and the turns of a transcript opened with captures
/// are those of one opened without.
#[test]
fn a_captured_message_is_the_step_its_line_is() {
    use crate::transcript::{Captured, EntryKind, Role, Transcript};
    let mut captured = 0;
    let mut stepped = 0;
    let opened = crate::transcript::fixture_transcripts()
        .into_iter()
        .map(|p| {
            (
                p.display().to_string(),
                Transcript::open_for_history(&p).unwrap(),
                Transcript::open(&p).unwrap(),
            )
        })
        .chain(std::iter::once({
            let (bytes, _) = odd_chain();
            (
                "the odd chain".to_string(),
                Transcript::from_bytes_for_history("t.jsonl", bytes.clone()),
                Transcript::from_bytes("t.jsonl", bytes),
            )
        }));
    for (path, with, without) in opened {
        assert!(!without.captures(), "{path}");
        for k in 0..with.len() as u32 {
            let kind = with.entries[k as usize].kind;
            let message = matches!(
                kind,
                EntryKind::Message(Role::User) | EntryKind::Message(Role::Assistant)
            );
            let Some(c) = with.captured(k).filter(|_| message) else {
                continue;
            };
            captured += 1;
            let line = without.slim(k);
            let field = |f: &str| line.as_ref().and_then(|v| v.get(f)?.as_str());
            for rules in [Rules::V2026_2, Rules::V2026_9] {
                let Some(s) = series::step_of_captured(rules, &c) else {
                    continue;
                };
                stepped += 1;
                let from_line = line.as_ref().and_then(|v| series::step_of(rules, v));
                assert_eq!(s, from_line, "{path} entry {k}");
                let timestamp = match c {
                    Captured::User { timestamp, .. } | Captured::Assistant { timestamp, .. } => {
                        timestamp
                    }
                    _ => unreachable!("a step is only of a message"),
                };
                assert_eq!(timestamp, field("timestamp"), "{path} entry {k}");
                assert_eq!(
                    with.written_id(k).as_deref(),
                    field("id"),
                    "{path} entry {k}"
                );
                assert_eq!(
                    with.written_parent_id(k).as_deref(),
                    field("parentId"),
                    "{path} entry {k}"
                );
            }
        }
        for rules in [Rules::V2026_2, Rules::V2026_9] {
            assert_eq!(
                tail::turns_of_transcript(&with, rules),
                tail::turns_of_transcript(&without, rules),
                "{path}"
            );
        }
    }
    assert!(captured >= 50, "{captured}");
    assert!(stepped >= 100, "{stepped}");
}
