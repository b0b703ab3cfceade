//! Rows over the entry limit (16 MiB decoded, as for a file's line): indexed from their first
//! bytes and shown as too large, never loaded whole (issue 20 item 1). The memory figures
//! themselves are measured by bench/run.sh; these tests check what the operator sees.

use super::common::*;
use super::support::cli::run_with;
use clawtop::sqlite::{ReadOnlyDb, events, transcript};
use clawtop::transcript::{ENTRY_MAX, EntryKind, Role};
use serde_json::Value;

const INCIDENT: &str = "f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93";

/// Seq and decoded JSON of incident-7's last tool result.
fn last_tool_result(h: &HostF) -> (i64, Value) {
    let db = ReadOnlyDb::open(&h.agent_db("main")).unwrap();
    let mut found = None;
    events::for_each(&db, INCIDENT, |seq, r| {
        let v: Value = serde_json::from_slice(&r.unwrap()).unwrap();
        if v.pointer("/message/role").and_then(Value::as_str) == Some("toolResult") {
            found = Some((seq, v));
        }
    })
    .unwrap();
    found.unwrap()
}

/// `v` with its text content made `bytes` long (plus the envelope).
fn inflate(mut v: Value, bytes: usize) -> String {
    v["message"]["content"] = serde_json::json!([{"type": "text", "text": "x".repeat(bytes)}]);
    v.to_string()
}

/// Replaces the row at `seq` with `json`, stored plain or as a zstd frame. A zstd row over
/// 4 MiB breaks the schema's CHECK, so it is written as a damaged database would hold it.
fn put_row(h: &HostF, seq: i64, json: &str, zstd: bool) {
    let w = h.writer("main");
    w.pragma_update(None, "ignore_check_constraints", true)
        .unwrap();
    if zstd {
        let frame = zstd::bulk::compress(json.as_bytes(), 1).unwrap();
        w.execute(
            "UPDATE transcript_events SET event_json = NULL, event_zstd = ?1, event_utf8_bytes = ?2 \
             WHERE session_id = ?3 AND seq = ?4",
            rusqlite::params![frame, json.len() as i64, INCIDENT, seq],
        )
        .unwrap();
    } else {
        w.execute(
            "UPDATE transcript_events SET event_json = ?1, event_zstd = NULL, event_utf8_bytes = NULL, \
             navigation_json = NULL WHERE session_id = ?2 AND seq = ?3",
            rusqlite::params![json, INCIDENT, seq],
        )
        .unwrap();
    }
    drop(w);
}

fn check_too_large(h: &HostF, seq: i64, id: &str, len: usize) {
    let before = transcript::open(&h.agent_db("main"), INCIDENT).unwrap();
    let t = &before.transcript;
    assert_eq!(t.len(), 60, "every entry is still indexed");
    let i = t.index_of_id(id).unwrap();
    let e = &t.entries[i as usize];
    assert_eq!(e.offset, seq as u64, "keyed by its seq");
    assert_eq!(e.kind, EntryKind::Message(Role::ToolResult));
    let big = e.too_large().expect("marked too large");
    assert_eq!(big.len, len as u64);
    // Its estimate counts the characters of its strings, as for a file's over-long line.
    assert!(big.est_tokens >= (len as u64 - 200) / 4, "{big:?}");
    assert!(big.est_tokens <= len as u64 / 4 + 1, "{big:?}");
    let err = t.entry_json(i).unwrap_err().to_string();
    assert!(err.contains(&format!("entry is {len} bytes")), "{err}");
    assert!(err.contains("not shown"), "{err}");
    // Links through it are intact: the branch still runs over every entry.
    assert_eq!(t.active_branch().len(), 60);
    let w: Vec<String> = t.all_warnings().iter().map(|w| w.to_string()).collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with(&format!("line {}: entry of ", seq + 1))
            && w[0].contains(&format!("over the {} MiB clawtop decodes", ENTRY_MAX >> 20)),
        "{w:?}"
    );
    // Reading rows one by one refuses it by name instead of loading it.
    let db = ReadOnlyDb::open(&h.agent_db("main")).unwrap();
    let got = events::read_one(&db, INCIDENT, seq).unwrap().unwrap();
    let e = got.unwrap_err().to_string();
    assert!(e.starts_with(&format!("seq {seq}: ")), "{e}");
}

#[test]
fn a_plain_row_over_the_limit_is_indexed_and_shown_as_too_large() {
    let h = HostF::new();
    let (seq, v) = last_tool_result(&h);
    let id = v["id"].as_str().unwrap().to_string();
    let json = inflate(v, ENTRY_MAX + 1024);
    put_row(&h, seq, &json, false);
    check_too_large(&h, seq, &id, json.len());
}

#[test]
fn a_zstd_row_decoding_over_the_limit_is_indexed_and_shown_as_too_large() {
    let h = HostF::new();
    let (seq, v) = last_tool_result(&h);
    let id = v["id"].as_str().unwrap().to_string();
    let json = inflate(v, ENTRY_MAX + 1024);
    put_row(&h, seq, &json, true);
    check_too_large(&h, seq, &id, json.len());
}

#[test]
fn show_and_compact_on_a_session_with_a_too_large_row() {
    let h = HostF::new();
    let (seq, v) = last_tool_result(&h);
    let json = inflate(v, ENTRY_MAX + 1024);
    put_row(&h, seq, &json, false);
    let state = h.state();
    let run = |args: &[&str]| {
        let mut a = vec!["--state-dir", state.to_str().unwrap()];
        a.extend_from_slice(args);
        run_with(h.root(), &a, &[])
    };
    let o = run(&["show", "agent:main:incident-7", "--json", "--entries"]);
    o.expect(0);
    let v = o.json();
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("over the 16 MiB clawtop decodes"),
        "{warnings}"
    );
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 60);
    let big = entries
        .iter()
        .find(|e| e["line"] == seq + 1)
        .expect("the big row is listed");
    assert!(big["entry"].is_null(), "{big}");
    assert!(
        big["error"].as_str().unwrap().contains("not shown"),
        "{big}"
    );
    // Its size stands in for its tokens wherever the context is estimated.
    assert!(
        big["estimate"].as_u64().unwrap() >= (ENTRY_MAX as u64) / 4,
        "{big}"
    );
    // The output never carries the row itself.
    assert!(o.stdout.len() < ENTRY_MAX / 4, "{} bytes", o.stdout.len());
    let c = run(&["compact", "agent:main:incident-7", "--dry-run", "--json"]);
    assert!(
        matches!(c.code, 0 | 1 | 3),
        "a refusal is fine, a crash is not: {} {}",
        c.code,
        c.stderr
    );
    assert!(c.stdout.len() < ENTRY_MAX / 4);
}
