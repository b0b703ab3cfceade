//! `list` reads each session's transcript once: the forecast's turns come from the transcript
//! opened for `used` (`history::tail::turns_of_transcript`) instead of a second read of its
//! tail (`history::tail::turns_of`). The two must give the same forecast and trend on every
//! fixture (host-f's rows, host-a's file, the loose transcripts) and on generated cases.

use super::common::*;
use super::support::fixtures::{AUDIT_PLANTED, HOST_A, PI, TRANSCRIPTS, fixture};
use clawtop::history::tail::{BUDGETS, read_file, steps, turns_of, turns_of_transcript};
use clawtop::history::{Turn, forecast};
use clawtop::store::{Env, Host, Options};
use clawtop::thresholds::Rules;
use clawtop::transcript::Transcript;
use std::path::Path;

/// What a caller reads from the turns: the forecast against a few lines and the Sessions
/// list's trend (the last 12 measured turns).
fn seen(turns: &[Turn]) -> Vec<String> {
    let mut out: Vec<String> = [(0, 1_000, 2_000), (30_000, 150_000, 160_000)]
        .iter()
        .map(|&(used, flush, compact)| {
            format!("{:?}", forecast(turns, Some(used), Some(flush), compact))
        })
        .collect();
    let tokens: Vec<u64> = turns.iter().filter_map(|t| t.tokens).collect();
    out.push(format!("{:?}", &tokens[tokens.len().saturating_sub(12)..]));
    out
}

/// The turns of a file as a file host's tail read gives them.
fn tail_turns(path: &Path, rules: Rules) -> Vec<Turn> {
    let mut last = Vec::new();
    for budget in BUDGETS {
        let tail = read_file(path, budget).unwrap();
        let (s, enough) = steps(&tail, rules);
        last = s;
        if enough || tail.complete {
            break;
        }
    }
    clawtop::history::series::turns(last)
}

/// Compares both ways on one file; returns whether it had a measured turn (so the suite
/// can check it compared something).
fn same_on_file(path: &Path) -> bool {
    let t = Transcript::open(path).unwrap();
    let mut measured = false;
    for rules in [Rules::V2026_2, Rules::V2026_9] {
        let by_tail = tail_turns(path, rules);
        let by_open = turns_of_transcript(&t, rules);
        assert_eq!(seen(&by_open), seen(&by_tail), "{}", path.display());
        measured |= by_tail.iter().any(|t| t.tokens.is_some());
    }
    measured
}

fn open_host(state: &Path) -> clawtop::source::SourceHandle {
    let opts = Options {
        state_dir: Some(state.to_path_buf()),
        ..Options::default()
    };
    clawtop::source::for_host(Host::open(&opts, &Env::default()).expect("host"))
}

fn same_on_host(state: &Path) -> usize {
    let source = open_host(state);
    let rules = source.rules().0;
    let listed = source.list(None);
    assert!(!listed.sessions.is_empty());
    let mut measured = 0;
    for s in &listed.sessions {
        let by_tail = turns_of(source.as_ref(), &s.reference, rules).unwrap();
        let t = source.open_transcript(&s.reference).unwrap();
        let by_open = turns_of_transcript(&t, rules);
        assert_eq!(seen(&by_open), seen(&by_tail), "{}", s.reference.key);
        measured += usize::from(by_tail.iter().any(|t| t.tokens.is_some()));
    }
    measured
}

#[test]
fn the_forecast_from_the_open_transcript_is_the_tails_on_every_fixture() {
    let h = HostF::new();
    assert!(
        same_on_host(&h.state()) >= 2,
        "host-f has measured sessions"
    );
    assert!(same_on_host(&fixture(HOST_A)) >= 1);
    let mut files = 0;
    for dir in [TRANSCRIPTS, PI] {
        for e in std::fs::read_dir(fixture(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                same_on_file(&p);
                files += 1;
            }
        }
    }
    same_on_file(&fixture(AUDIT_PLANTED));
    assert!(files >= 15, "{files} fixture transcripts");
}

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s","timestamp":"2026-11-01T00:00:00.000Z","cwd":"/w"}"#;

/// A generated session: per turn, `(input of its reply or None: no usage, compaction
/// before it, bytes of a tool result in it)`.
fn generated(turns: &[(Option<u64>, bool, usize)]) -> String {
    let mut lines = vec![HEADER.to_string()];
    let mut parent = "null".to_string();
    let mut push = |lines: &mut Vec<String>, id: String, body: String| {
        lines.push(format!(
            r#"{{"id":"{id}","parentId":{parent},"timestamp":"2026-11-01T00:00:01.000Z",{body}}}"#
        ));
        parent = format!("\"{id}\"");
    };
    for (k, &(input, compaction, tool)) in turns.iter().enumerate() {
        if compaction {
            let kept = format!("u{k}");
            push(
                &mut lines,
                format!("c{k}"),
                format!(
                    r#""type":"compaction","summary":"s","firstKeptEntryId":"{kept}","tokensBefore":9000"#
                ),
            );
        }
        push(
            &mut lines,
            format!("u{k}"),
            r#""type":"message","message":{"role":"user","content":"go on"}"#.into(),
        );
        if tool > 0 {
            push(
                &mut lines,
                format!("t{k}"),
                format!(
                    r#""type":"message","message":{{"role":"toolResult","toolCallId":"x","content":[{{"type":"text","text":"{}"}}]}}"#,
                    "r".repeat(tool)
                ),
            );
        }
        let usage = input.map_or(String::new(), |n| {
            format!(
                r#","usage":{{"input":{n},"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":{}}}"#,
                n + 10
            )
        });
        push(
            &mut lines,
            format!("a{k}"),
            format!(
                r#""type":"message","message":{{"role":"assistant","content":[{{"type":"text","text":"ok"}}]{usage},"stopReason":"stop"}}"#
            ),
        );
    }
    lines.join("\n") + "\n"
}

#[test]
fn the_forecast_from_the_open_transcript_is_the_tails_on_generated_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let growing: Vec<_> = (0..60)
        .map(|k| (Some(10_000 + k * 700), false, 0))
        .collect();
    let flat: Vec<_> = (0..30).map(|_| (Some(40_000), false, 0)).collect();
    let mut middle = growing.clone();
    middle[30].1 = true;
    for t in &mut middle[30..] {
        t.0 = t.0.map(|n| n - 20_000);
    }
    let mut start = growing.clone();
    start[0].1 = true;
    let none: Vec<_> = (0..25).map(|_| (None, false, 0)).collect();
    // One huge row among the last turns, and big turns that outgrow the first read sizes.
    let mut huge = growing.clone();
    huge[57].2 = 3 << 20;
    let big: Vec<_> = (0..40)
        .map(|k| (Some(20_000 + k * 900), k == 20, 200_000))
        .collect();
    let cases = [
        ("growing", growing),
        ("flat", flat),
        ("compaction-middle", middle),
        ("compaction-start", start),
        ("no-usage", none),
        ("huge-row", huge),
        ("big-turns", big),
    ];
    for (name, turns) in cases {
        let p = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&p, generated(&turns)).unwrap();
        let measured = same_on_file(&p);
        assert_eq!(measured, name != "no-usage", "{name}");
    }
}

/// Everything the figures read from a transcript, in words, and its warnings.
fn figures(t: &Transcript) -> String {
    format!(
        "{} entries, leaf {:?}\n{:?}\n{:?}\n{:?}",
        t.len(),
        t.leaf(),
        clawtop::used::facts(t),
        seen(&turns_of_transcript(t, Rules::V2026_9)),
        t.all_warnings()
    )
}

/// A SQLite session read whole for its figures (`open_transcript_for_figures`, one query) is
/// the transcript the index gives (`open_transcript`): the same facts, forecast and
/// warnings, also when a row does not decode (then it is indexed, and the warning names it).
#[test]
fn a_session_read_whole_for_its_figures_is_the_indexed_one() {
    let h = HostF::new();
    let check = |h: &HostF| {
        let source = open_host(&h.state());
        let listed = source.list(None);
        for s in &listed.sessions {
            let indexed = source.open_transcript(&s.reference).unwrap();
            let whole = source.open_transcript_for_figures(&s.reference).unwrap();
            assert!(!indexed.is_empty(), "{}", s.reference.key);
            assert_eq!(figures(&whole), figures(&indexed), "{}", s.reference.key);
        }
        listed.sessions.len()
    };
    assert!(check(&h) >= 2);
    // A zstd row whose stated size is wrong: skipped with a warning on both paths.
    let n = h
        .writer("main")
        .execute(
            "UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes + 1 \
             WHERE seq = (SELECT min(seq) FROM transcript_events WHERE event_zstd IS NOT NULL)",
            [],
        )
        .unwrap();
    assert_eq!(n, 1);
    check(&h);
    let source = open_host(&h.state());
    let warned = source.list(None).sessions.iter().any(|s| {
        let t = source.open_transcript_for_figures(&s.reference).unwrap();
        t.all_warnings()
            .iter()
            .any(|w| w.message.contains("event_utf8_bytes"))
    });
    assert!(warned, "the damaged row is named");
}

/// The history of every session of a host from its transcript opened for its history (what
/// `list` does for a compacted session: the scan captures what the branch walk reads) is the
/// history from the transcript opened plainly and walked by reading its entries back, under
/// both rule sets; on host-f (SQLite rows, a zstd compaction among them) every message and
/// compaction of a branch is captured, so the walk reads no row again. Returns how many
/// sessions had a compaction on the branch.
fn history_same_on_host(state: &Path, all_captured: bool) -> usize {
    use clawtop::transcript::{EntryKind, Role};
    let source = open_host(state);
    let listed = source.list(None);
    assert!(!listed.sessions.is_empty());
    let mut compacted = 0;
    for s in &listed.sessions {
        let Ok(plain) = source.open_transcript(&s.reference) else {
            continue;
        };
        let captured = source.open_transcript_for_history(&s.reference).unwrap();
        for rules in [Rules::V2026_2, Rules::V2026_9] {
            let window = clawtop::thresholds::Window {
                tokens: 48_000,
                source: clawtop::thresholds::Source::Entry,
                detail: String::new(),
            };
            let th = clawtop::thresholds::compute_with(
                rules,
                window,
                (Some(20_000), clawtop::thresholds::UsedSource::Fresh),
                &clawtop::thresholds::Settings::from_config(&serde_json::Value::Null),
                &clawtop::thresholds::Counters::from_entry(&s.entry),
            );
            let (a, b) = (
                clawtop::history::build(Some(&plain), &th, None),
                clawtop::history::build(Some(&captured), &th, None),
            );
            assert_eq!(
                serde_json::to_string(&a).unwrap(),
                serde_json::to_string(&b).unwrap(),
                "{}",
                s.reference.key
            );
            compacted += usize::from(rules == Rules::V2026_2 && !a.compactions.is_empty());
        }
        if all_captured {
            for i in captured.active_branch() {
                let walked = matches!(
                    captured.entries[i as usize].kind,
                    EntryKind::Compaction
                        | EntryKind::Message(Role::User)
                        | EntryKind::Message(Role::Assistant)
                );
                assert!(
                    !walked || captured.has_captured(i),
                    "{} entry {i}",
                    s.reference.key
                );
            }
        }
    }
    compacted
}

/// The history of one session indexed from its rows (one of them a zstd compaction, whose
/// projection indexes it), opened for its history or not, under both rule sets.
fn indexed_histories(db: &Path, session: &str, capture: bool) -> (Vec<String>, bool) {
    use clawtop::sqlite::transcript;
    let shared = std::sync::Arc::new(std::sync::Mutex::new(
        clawtop::sqlite::ReadOnlyDb::open(db).unwrap(),
    ));
    let open = if capture {
        transcript::open_after_for_history
    } else {
        transcript::open_after
    };
    let (o, _) = open(&shared, session, Default::default()).unwrap();
    assert!(o.zstd_rows >= 1);
    let t = o.transcript;
    let out = [Rules::V2026_2, Rules::V2026_9]
        .into_iter()
        .map(|rules| {
            let th = clawtop::thresholds::compute_with(
                rules,
                clawtop::thresholds::Window {
                    tokens: 48_000,
                    source: clawtop::thresholds::Source::Entry,
                    detail: String::new(),
                },
                (Some(20_000), clawtop::thresholds::UsedSource::Fresh),
                &clawtop::thresholds::Settings::from_config(&serde_json::Value::Null),
                &clawtop::thresholds::Counters {
                    compaction_count: Some(1),
                    ..Default::default()
                },
            );
            serde_json::to_string(&clawtop::history::build(Some(&t), &th, None)).unwrap()
        })
        .collect();
    use clawtop::transcript::{EntryKind, Role};
    let all = t.active_branch().iter().all(|&i| {
        t.has_captured(i)
            || !matches!(
                t.entries[i as usize].kind,
                EntryKind::Compaction
                    | EntryKind::Message(Role::User)
                    | EntryKind::Message(Role::Assistant)
            )
    });
    (out, all)
}

#[test]
fn the_history_from_a_transcript_opened_for_it_is_the_one_read_back() {
    // A copy: a SQLite fixture is never opened in place.
    let h = HostF::new();
    assert!(history_same_on_host(&h.state(), true) >= 1);
    history_same_on_host(&fixture(HOST_A), false);
    // Indexed from its rows rather than read whole: the zstd compaction row is decoded at
    // indexing for the capture.
    let incident = "f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93";
    let (read, _) = indexed_histories(&h.agent_db("main"), incident, false);
    let (captured, all) = indexed_histories(&h.agent_db("main"), incident, true);
    assert_eq!(read, captured);
    assert!(all, "every message and compaction of the branch captured");
    assert!(read[0].contains("\"tokensBefore\":37946"), "{}", read[0]);
}
