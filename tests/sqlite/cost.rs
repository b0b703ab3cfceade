//! The cost fixture's transcript (`tests/fixtures/cost/host-c`) as the rows of a SQLite
//! session gives the same figures as the file (SPEC §10): same spend, calls, tokens, $/h,
//! hit ratio and busts.

use super::common::*;
use super::support::cli::run_with;
use super::support::fixtures::fixture;
use serde_json::Value;

/// `agent:ops:dr-drill`'s session (host-f's README).
const DR_DRILL: &str = "e050b933-502b-4898-9507-c451ca94449c";

fn close(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 1e-12)
}

#[test]
fn a_sqlite_session_costs_what_the_same_file_costs() {
    let h = HostF::new();
    let lines =
        std::fs::read_to_string(fixture("cost/host-c/agents/main/sessions/cost-1.jsonl")).unwrap();
    let w = h.writer("ops");
    w.execute(
        "DELETE FROM transcript_events WHERE session_id = ?1",
        [DR_DRILL],
    )
    .unwrap();
    for (seq, l) in lines.lines().enumerate() {
        w.execute(
            "INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?1, ?2, ?3, 0)",
            rusqlite::params![DR_DRILL, seq as i64, l],
        )
        .unwrap();
    }
    drop(w);
    let state = h.state();
    let config = h.root().join(".config/clawtop");
    let o = run_with(
        h.root(),
        &["--state-dir", state.to_str().unwrap(), "list", "--json"],
        &[
            ("CLAWTOP_TEST_NOW_MS", "1795173600000"),
            ("CLAWTOP_CONFIG_DIR", config.to_str().unwrap()),
        ],
    );
    o.expect(0);
    let v = o.json();
    let row = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["sessionKey"] == "agent:ops:dr-drill")
        .unwrap();
    let c = &row["cost"];
    assert!(close(&c["spendUsd"], 0.11837), "{c}");
    assert_eq!(c["calls"], 10, "{c}");
    assert_eq!(c["unpricedCalls"], 2, "{c}");
    assert!(close(&c["perHourUsd"], 0.03521), "{c}");
    assert!(close(&c["cacheHitRatio"], 26600.0 / 59150.0), "{c}");
    assert_eq!(
        c["tokens"],
        serde_json::json!({"input": 6150, "output": 970, "cacheRead": 37300, "cacheWrite": 26800})
    );
    let causes: Vec<&str> = c["cacheBusts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["cause"].as_str().unwrap())
        .collect();
    assert_eq!(causes, ["compaction", "idle", "model-change"]);
    // host-f's config asks for no long retention: a 5-minute cache, cold 48 minutes on.
    assert_eq!(c["cacheTtlSeconds"], 300);
    assert_eq!(c["cacheWarm"], false);
    // The other sessions have costs too (the fake model's calls: unpriced, never $0).
    for r in v["sessions"].as_array().unwrap() {
        let c = &r["cost"];
        assert!(c.is_object(), "{r}");
        if c["calls"].as_u64().unwrap() > 0 && c["spendUsd"] == 0.0 {
            assert!(c["unpricedCalls"].as_u64().unwrap() > 0, "{c}");
        }
    }
}

/// On the untouched fixture, the one-turn `agent:ops:dr-drill` sums to what OpenClaw itself
/// stored for that run (`inputTokens` 29374, `outputTokens` 2379: host-f's README), whatever
/// way its rows are stored; its fake model has no price anywhere, so its calls are unpriced.
#[test]
fn a_one_turn_session_sums_to_the_stores_run_counters() {
    let h = HostF::new();
    let state = h.state();
    let config = h.root().join(".config/clawtop");
    let o = run_with(
        h.root(),
        &["--state-dir", state.to_str().unwrap(), "list", "--json"],
        &[("CLAWTOP_CONFIG_DIR", config.to_str().unwrap())],
    );
    o.expect(0);
    let v = o.json();
    let row = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["sessionKey"] == "agent:ops:dr-drill")
        .unwrap();
    let c = &row["cost"];
    assert_eq!(c["tokens"]["input"], 29374, "{c}");
    assert_eq!(c["tokens"]["output"], 2379, "{c}");
    assert_eq!(c["calls"], 2, "{c}");
    assert_eq!(c["unpricedCalls"], 2, "{c}");
    assert_eq!(c["spendUsd"], 0.0, "{c}");
    assert!(
        c["notes"].to_string().contains("fake/fake-big unpriced"),
        "{c}"
    );
}
