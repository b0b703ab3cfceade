//! Issue 33 item 8: a remote's rows are kept as the text its clawtop printed and read one at a
//! time (`HostList::each_row`), or all at once for check, metrics and the Fleet screen
//! (`HostList::materialize`). Over many varied rows the fleet's table, JSON, totals and grades
//! must be what the held rows give.

use crate::fake::Fleet;
use crate::support::cli::copy_dir;
use crate::support::fixtures::fixture;
use clawtop::fleet::{HostResult, parse_remote};
use serde_json::Value;

const NOW_MS: i64 = 1_795_000_000_000;

/// A remote answer of `n` rows cycling through the real rows of host-f and the cost host,
/// each given its own key, some a stale lock, a live turn, a long model or no figure.
fn answer(f: &Fleet, n: usize) -> (Value, Vec<u8>) {
    copy_dir(
        &fixture("cost/host-c"),
        &f.path().join("remote c/.openclaw"),
    );
    let a = f.local_list("remote f/state");
    let c = f.local_list("remote c/.openclaw");
    let real: Vec<Value> = a["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .chain(c["sessions"].as_array().unwrap())
        .cloned()
        .collect();
    assert!(real.len() >= 3 && real.iter().any(|r| r["cost"].is_object()));
    let mut rows = Vec::new();
    for i in 0..n {
        let mut r = real[i % real.len()].clone();
        r["sessionKey"] = Value::from(format!("agent:main:many-{i:05}"));
        match i % 7 {
            1 => r["staleLock"] = Value::from("held 3 h by pid 4242, which is gone"),
            2 => r["model"] = Value::from("m".repeat(70 + i % 13)),
            3 => r["used"] = Value::Null,
            4 => r["unknownToThisBuild"] = serde_json::json!({"x": [i]}),
            _ => {}
        }
        rows.push(r);
    }
    let mut whole = c.clone();
    whole["sessions"] = Value::Array(rows);
    let bytes = serde_json::to_vec(&whole).unwrap();
    (whole, bytes)
}

fn remote(name: &str, bytes: &[u8]) -> HostResult {
    HostResult {
        name: name.into(),
        kind: "ssh",
        at_ms: NOW_MS,
        took_ms: 0,
        outcome: parse_remote(name, bytes, 0, ""),
    }
}

fn materialized(name: &str, bytes: &[u8]) -> HostResult {
    let mut h = remote(name, bytes);
    h.outcome.as_mut().unwrap().materialize();
    h
}

#[test]
fn many_remote_rows_read_from_their_text_list_as_the_held_rows_do() {
    let f = Fleet::new();
    let (whole, bytes) = answer(&f, 1500);
    let h = remote("p1", &bytes);
    let l = h.outcome.as_ref().unwrap();
    // Only the text is held until a row is wanted.
    assert!(l.rows_in_json && l.report.sessions.is_empty());
    assert_eq!(l.len(), 1500);
    let held = materialized("p1", &bytes);
    let rows = &held.outcome.as_ref().unwrap().report.sessions;
    assert_eq!(rows.len(), 1500);
    assert_eq!(
        rows[1499].session_key.as_deref(),
        Some("agent:main:many-01499")
    );

    for width in [None, Some(80), Some(200)] {
        let from_text =
            clawtop::fleet::report::render_list(vec![remote("p1", &bytes)], NOW_MS, width);
        let from_rows =
            clawtop::fleet::report::render_list(vec![materialized("p1", &bytes)], NOW_MS, width);
        assert_eq!(from_text, from_rows, "width {width:?}");
        // Each session line is the line `list` prints for that row, after the host.
        let mut report = held.outcome.as_ref().unwrap().report.clone();
        report.totals = None;
        let single =
            clawtop::report::list::render(&report, NOW_MS, width.map(|w| w - "HOST ".len()));
        let fleet_lines: Vec<&str> = from_text.lines().collect();
        let single_lines: Vec<&str> = single.lines().collect();
        assert_eq!(fleet_lines[0], format!("HOST {}", single_lines[0]));
        for i in 1..=1500 {
            assert_eq!(
                fleet_lines[i],
                format!("p1   {}", single_lines[i]),
                "row {i}"
            );
        }
        assert!(from_text.contains("stale"), "the LOCK column is shown");
        assert!(
            from_text.contains(" spend: today "),
            "the host's spend line"
        );
        assert!(from_text.ends_with(&format!("{}\n", clawtop::report::list::LOCK_LEGEND)));
    }

    // --json: every row's own text (fields unknown here kept), its count and the host's totals.
    let v: Value = serde_json::from_str(&clawtop::report::json::to_string(
        &clawtop::fleet::to_json(&[remote("p1", &bytes)]),
    ))
    .unwrap();
    let sessions = v["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1500);
    for (got, want) in sessions.iter().zip(whole["sessions"].as_array().unwrap()) {
        let mut got = got.clone();
        assert_eq!(got.as_object_mut().unwrap().remove("host").unwrap(), "p1");
        assert_eq!(&got, want);
    }
    assert_eq!(v["hosts"][0]["sessions"], 1500);
    assert_eq!(v["hosts"][0]["totals"], whole["totals"]);

    // check and metrics grade the held rows as the host's own report.
    let report = &held.outcome.as_ref().unwrap().report;
    let (text, code) =
        clawtop::fleet::report::run_check(&[materialized("p1", &bytes)], &[], &[], None);
    let (own, own_code) = clawtop::report::check::run(report, &[], &[], None);
    assert_eq!(code, own_code);
    assert_eq!(
        text,
        own.lines()
            .map(|l| format!("p1: {l}\n"))
            .collect::<String>()
    );
    assert!(text.contains("1500 sessions"), "{text}");
}
