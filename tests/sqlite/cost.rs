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

/// Issue 32: a SQLite host's archived transcripts count in its totals, as a file host's
/// `*.jsonl.reset.*` do. The cost fixture's transcript archived three ways in the `ops`
/// database — a reset archive as plain JSONL, a deleted one zstd-compressed, a cold archive
/// blob — each costs what the live session costs; a cold archive kept in a file outside the
/// database is counted and named as unread, never priced $0.
#[test]
fn a_sqlite_hosts_archive_tables_count_in_its_totals() {
    let h = HostF::new();
    let jsonl = std::fs::read(fixture("cost/host-c/agents/main/sessions/cost-1.jsonl")).unwrap();
    let sha = "0".repeat(64);
    let w = h.writer("ops");
    let ops_main: String = w
        .query_row(
            "SELECT current_session_id FROM session_nodes WHERE session_key = 'agent:ops:main'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let zst = zstd::encode_all(jsonl.as_slice(), 3).unwrap();
    for (generation, reason, encoding, blob, name) in [
        ("g1", "reset", "identity", &jsonl, "a.jsonl.reset"),
        ("g2", "deleted", "zstd", &zst, "b.jsonl.deleted.zst"),
    ] {
        w.execute(
            "INSERT INTO session_transcript_archives(session_id, generation, session_key, reason, \
             encoding, archive_blob, archive_sha256, archive_name, created_at) \
             VALUES ('old-window', ?1, 'agent:ops:old', ?2, ?3, ?4, ?5, ?6, 1)",
            rusqlite::params![generation, reason, encoding, blob, sha, name],
        )
        .unwrap();
    }
    for (session, storage, blob, name) in [
        (DR_DRILL, "sqlite", Some(&zst), "cold-1.jsonl.zst"),
        (ops_main.as_str(), "file", None, "cold-2.jsonl.zst"),
    ] {
        w.execute(
            "INSERT INTO session_transcript_cold_archives(session_id, generation, archive_name, \
             archive_sha256, event_count, raw_bytes, archive_bytes, last_seq, archived_at, storage, \
             archive_blob) VALUES (?1, 'g', ?2, ?3, 1, 0, 0, 0, 1, ?4, ?5)",
            rusqlite::params![session, name, sha, storage, blob],
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
    let t = &v["totals"];
    let a = &t["archived"];
    assert_eq!(a["transcripts"], 4, "{t}");
    assert!(close(&a["spendUsd"], 3.0 * 0.11837), "{t}");
    assert_eq!(a["unpricedCalls"], 3 * 2, "{t}");
    let unread = a["unread"].as_array().unwrap();
    assert_eq!(unread.len(), 1, "{t}");
    assert!(
        unread[0]
            .as_str()
            .unwrap()
            .contains("cold/cold-2.jsonl.zst")
            && unread[0].as_str().unwrap().contains("outside the database"),
        "{t}"
    );
    let rows: f64 = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["cost"]["spendUsd"].as_f64().unwrap())
        .sum();
    assert!(close(&t["spendUsd"], rows + 3.0 * 0.11837), "{t}");
    // The text list says so in its spend line.
    let o = run_with(
        h.root(),
        &["--state-dir", state.to_str().unwrap(), "list"],
        &[
            ("CLAWTOP_TEST_NOW_MS", "1795173600000"),
            ("CLAWTOP_CONFIG_DIR", config.to_str().unwrap()),
        ],
    );
    assert!(o.text().contains("archived 4"), "{}", o.text());
}
