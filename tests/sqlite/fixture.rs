//! host-f's figures, computed in the test straight from the database rows and the config with
//! the 2026.9 formulas (docs/openclaw-2026.9.md §5), compared with clawtop's.

use super::common::*;
use clawtop::sqlite::{ReadOnlyDb, discover, entry, events};
use clawtop::thresholds::Rules;
use clawtop::thresholds::{self, Counters, Settings, UsedSource};
use serde_json::Value;
use std::collections::BTreeMap;

/// Figures of one session: window, used, reserve, compaction line, flush line, armed.
#[derive(Debug, PartialEq, Eq, Clone)]
pub struct Expected {
    pub window: u64,
    pub used: Option<u64>,
    pub reserve: u64,
    pub compact_at: u64,
    pub flush_at: u64,
    pub armed: bool,
    pub compaction_count: u64,
    pub flushed_at_compaction: Option<u64>,
}

/// Straight from the rows: no clawtop code involved.
pub fn expected(h: &HostF) -> BTreeMap<String, Expected> {
    let cfg: Value =
        json5::from_str(&std::fs::read_to_string(h.state().join("openclaw.json")).unwrap())
            .unwrap();
    let soft = cfg["agents"]["defaults"]["compaction"]["memoryFlush"]["softThresholdTokens"]
        .as_u64()
        .unwrap_or(4000);
    // 2026.9 retired the setting; its default still enters the max.
    let reserve_tokens = cfg["agents"]["defaults"]["compaction"]["reserveTokens"]
        .as_u64()
        .unwrap_or(16384);
    let mut out = BTreeMap::new();
    for agent in ["main", "ops"] {
        // A copy of the copy, so this plain open cannot disturb the host under test.
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("a.sqlite");
        std::fs::copy(h.agent_db(agent), &db).unwrap();
        let c = rusqlite::Connection::open(&db).unwrap();
        let mut st = c
            .prepare("SELECT session_key, entry_json FROM session_nodes")
            .unwrap();
        let rows: Vec<(String, String)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for (key, json) in rows {
            let e: Value = serde_json::from_str(&json).unwrap();
            let w = e["contextTokens"].as_u64().unwrap();
            let r = reserve_tokens.max(20000).min(w / 4);
            let c_line = w - r;
            let s = soft.min((w - r) / 2);
            let cc = e["compactionCount"].as_u64().unwrap_or(0);
            let flushed = e["memoryFlush"]["compactionCount"].as_u64();
            out.insert(
                key,
                Expected {
                    window: w,
                    used: (e["totalTokensFresh"] == Value::Bool(true))
                        .then(|| e["totalTokens"].as_u64().unwrap()),
                    reserve: r,
                    compact_at: c_line,
                    flush_at: c_line - s,
                    armed: flushed != Some(cc),
                    compaction_count: cc,
                    flushed_at_compaction: flushed,
                },
            );
        }
    }
    out
}

#[test]
fn expected_figures_match_the_reference_table() {
    // The independent computation itself agrees with the worked table of the reference.
    let h = HostF::new();
    let e = expected(&h);
    let i7 = &e["agent:main:incident-7"];
    assert_eq!(
        (
            i7.window,
            i7.reserve,
            i7.compact_at,
            i7.flush_at,
            i7.used,
            i7.armed
        ),
        (48000, 12000, 36000, 30000, Some(29144), true)
    );
    assert_eq!(e["agent:ops:main"].flush_at, 174000);
    assert_eq!(e["agent:ops:dr-drill"].used, Some(14721));
}

#[test]
fn library_figures_equal_the_independent_ones() {
    let h = HostF::new();
    let want = expected(&h);
    let layout = discover(&h.state());
    assert_eq!(layout.app_version(), Some("2026.9.6"));
    let (rules, note) = Rules::for_sqlite_host(layout.app_version());
    assert_eq!((rules, note), (Rules::V2026_9, None));
    let cfg: Value =
        json5::from_str(&std::fs::read_to_string(h.state().join("openclaw.json")).unwrap())
            .unwrap();
    let settings = Settings::from_config(&cfg);
    let mut got = BTreeMap::new();
    for a in &layout.agents {
        let db = ReadOnlyDb::open(&a.path).unwrap();
        for s in entry::read_sessions(&db).unwrap() {
            let (e, x) = s.entry.unwrap();
            let w = thresholds::resolve_window(e.context_tokens(), &settings, &[], None, None);
            let mut c = Counters::from_entry(&e);
            c.memory_flush_kind = x.memory_flush.as_ref().map(|m| m.kind.clone());
            c.total_tokens_version = x.total_tokens_version;
            let used = thresholds::resolve_used(&c, || None);
            assert_eq!(used.1, UsedSource::Fresh);
            let t = thresholds::compute_with(rules, w, used, &settings, &c);
            // OpenClaw's own pre-prompt budget agrees where the entry still has one.
            if let Some(r) = x.budget_reserve {
                assert_eq!(r, t.reserve, "{}", s.key);
            }
            if let Some(cl) = x.budget_compact_at {
                assert_eq!(cl, t.compact_at, "{}", s.key);
            }
            assert_eq!(t.total_tokens_version, Some(1));
            got.insert(
                s.key,
                Expected {
                    window: t.window,
                    used: t.used,
                    reserve: t.reserve,
                    compact_at: t.compact_at,
                    flush_at: t.flush_at.unwrap(),
                    armed: !t.flushed_this_cycle,
                    compaction_count: t.compaction_count.unwrap_or(0),
                    flushed_at_compaction: t.memory_flush_compaction_count,
                },
            );
        }
    }
    assert_eq!(got, want);
}

#[test]
fn every_row_decodes_and_zstd_rows_are_counted() {
    let h = HostF::new();
    let layout = discover(&h.state());
    let mut zstd_total = 0;
    for a in &layout.agents {
        // Independent counts, from a plain connection on a private copy.
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join("a.sqlite");
        std::fs::copy(&a.path, &copy).unwrap();
        let c = rusqlite::Connection::open(&copy).unwrap();
        let (rows, zrows): (i64, i64) = c
            .query_row(
                "SELECT count(*), count(event_zstd) FROM transcript_events",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        let db = ReadOnlyDb::open(&a.path).unwrap();
        let mut decoded = 0i64;
        let mut zstd_decoded = 0i64;
        for s in entry::read_sessions(&db).unwrap() {
            let counts = events::counts(&db, &s.current_session_id).unwrap();
            let mut prev = -1;
            let mut first = true;
            events::for_each(&db, &s.current_session_id, |seq, r| {
                assert!(seq > prev, "ordered by seq");
                prev = seq;
                let bytes = r.unwrap();
                let v: Value = serde_json::from_slice(&bytes).unwrap();
                if first {
                    assert_eq!(v["type"], "session");
                    assert_eq!(v["version"], 4);
                    assert_eq!(v["id"].as_str(), Some(s.current_session_id.as_str()));
                    first = false;
                } else {
                    assert!(
                        v["id"].is_string() && v.get("parentId").is_some(),
                        "seq {seq}"
                    );
                }
                decoded += 1;
            })
            .unwrap();
            zstd_decoded += counts.zstd_rows as i64;
            // Each zstd row, decoded independently with the streaming decoder.
            let mut st = c
                .prepare("SELECT seq, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ?1 AND event_zstd IS NOT NULL")
                .unwrap();
            let rows: Vec<(i64, Vec<u8>, i64)> = st
                .query_map([&s.current_session_id], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .unwrap()
                .map(Result::unwrap)
                .collect();
            for (seq, blob, n) in rows {
                let indep = zstd::stream::decode_all(&blob[..]).unwrap();
                assert_eq!(indep.len() as i64, n);
                let ours = events::read_one(&db, &s.current_session_id, seq)
                    .unwrap()
                    .unwrap()
                    .unwrap();
                assert_eq!(ours, indep, "seq {seq}");
            }
        }
        assert_eq!(decoded, rows, "agent {}", a.agent_id);
        assert_eq!(zstd_decoded, zrows);
        zstd_total += zrows;
        if a.agent_id == "main" {
            assert_eq!(zrows, 13);
        } else {
            assert_eq!(zrows, 3);
        }
    }
    assert_eq!(zstd_total, 16);
}
