//! Writes a deterministic OpenClaw 2026.9.6 SQLite host for the benchmarks (bench/run.sh).
//!
//!     cargo run --release --example gen_sqlite_host -- OUT_DIR [--sessions 2000] [--session-rows N] [--transcript-mb 100]
//!
//! Starts from a copy of the 2026.9.6 fixture (tests/fixtures/openclaw-2026.9.6/host-f) and
//! adds, to agent `main`'s database, rows cloned from the fixture's real rows with fresh ids:
//! - `--sessions` sessions `agent:main:bench-NNNN`, each with the 10-row transcript of
//!   `agent:ops:dr-drill`; every 7th entry has `totalTokensFresh: false` (so its used figure is
//!   estimated from the transcript), every 11th has no `totalTokensFresh`, every 13th no
//!   `totalTokens`; every 5th has had a memory flush;
//!   with `--session-rows N`, each holds instead the first N rows of the chain the huge
//!   session is made of (below: incident-7's header and rows, cloned with fresh ids), so a
//!   session is as long as real ones are (issue 31 names 81 rows);
//! - one session `agent:main:huge` whose transcript is the 60 rows of `agent:main:incident-7`
//!   cloned until the decoded JSON reaches `--transcript-mb` megabytes, one chain, one early
//!   compaction (the fixture's own, in the first clone). Rows the fixture stored as zstd are
//!   stored as zstd (level 1, content size and checksum, as OpenClaw writes them).
//!
//! - with `--big-row-mib N`, a session `agent:main:bigrow`: a header, a user message, an
//!   assistant tool call and one tool result of N MiB stored as plain `event_json` (the schema
//!   caps zstd rows at 4 MiB, not plain ones), then a closing reply (issue 20 item 1);
//! - with `--many-rows N`, a session `agent:main:many` of N small plain rows in one chain of
//!   user/assistant turns (issue 20 item 1).
//!
//! Every added session also gets OpenClaw 2026.9.6's transcript index rows
//! (`transcript_event_identities`, `session_transcript_index_state`,
//! `session_transcript_active_events`), derived from its rows as 2026.9.6 derives them
//! (`clawtop::sqlite::index::derive`, which tests/sqlite/index.rs checks against every
//! session of the 2026.9.6 fixture: a cloned session's index rows are its source's, ids aside).
//!
//! Same arguments → same rows. This writes only under OUT_DIR, which must not exist.

use rusqlite::{Connection, params};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// A deterministic UUID-shaped id from a label.
fn uuid(label: &str) -> String {
    // FNV-1a then splitmix64: stable across runs and platforms.
    let mut h: u64 = 0xcbf29ce484222325;
    for b in label.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    let mut next = || {
        h = h.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = h;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    };
    let (a, b) = (next(), next());
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        (b >> 48) & 0xfff,
        b & 0xffff_ffff_ffff
    )
}

struct Row {
    json: String,
    nav: Option<String>,
    zstd: bool,
    id: Option<String>,
    parent: Option<String>,
    ty: String,
}

fn template_rows(c: &Connection, session_id: &str) -> Vec<Row> {
    let mut st = c
        .prepare("SELECT event_json, event_zstd, navigation_json FROM transcript_events WHERE session_id = ?1 ORDER BY seq")
        .unwrap();
    st.query_map([session_id], |r| {
        let j: Option<String> = r.get(0)?;
        let z: Option<Vec<u8>> = r.get(1)?;
        let n: Option<String> = r.get(2)?;
        Ok((j, z, n))
    })
    .unwrap()
    .map(|r| {
        let (j, z, n) = r.unwrap();
        let json = match (j, &z) {
            (Some(j), _) => j,
            (None, Some(z)) => String::from_utf8(zstd::decode_all(&z[..]).unwrap()).unwrap(),
            _ => panic!("empty row"),
        };
        let v: Value = serde_json::from_str(&json).unwrap();
        Row {
            id: v.get("id").and_then(Value::as_str).map(str::to_string),
            parent: v
                .get("parentId")
                .and_then(Value::as_str)
                .map(str::to_string),
            ty: v["type"].as_str().unwrap_or("").to_string(),
            json,
            nav: n,
            zstd: z.is_some(),
        }
    })
    .collect()
}

/// `text` with every id of `map` replaced.
fn remap(text: &str, map: &HashMap<String, String>) -> String {
    let mut out = text.to_string();
    for (from, to) in map {
        if out.contains(from.as_str()) {
            out = out.replace(from.as_str(), to);
        }
    }
    out
}

/// Writes to `sid` the header of `tpl` (incident-7's rows), then clones of its other rows
/// with fresh ids as one chain until `stop(rows, bytes)`, asked before each row, says so.
/// One early compaction: the first clone's; later clones leave it out and link past it.
/// `labels`: what the clones' ids and idempotency keys are derived from (unique per session).
/// Returns the rows and decoded bytes written.
fn chain(
    w: &mut Writer<'_>,
    big: &[Row],
    sid: &str,
    labels: (&str, &str),
    stop: &dyn Fn(u64, u64) -> bool,
) -> (i64, u64) {
    let (ids, idem) = labels;
    let mut written = w.put(
        sid,
        0,
        &big[0]
            .json
            .replace("f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93", sid),
        None,
        false,
    ) as u64;
    let mut seq = 1i64;
    let mut last: Option<String> = None;
    let mut k = 0u64;
    while !stop(seq as u64, written) {
        let mut map: HashMap<String, String> = HashMap::new();
        for (j, r) in big.iter().enumerate().skip(1) {
            if let Some(id) = &r.id {
                map.insert(id.clone(), uuid(&format!("{ids}/{k}/{j}")));
            }
        }
        for r in big.iter().skip(1) {
            if stop(seq as u64, written) {
                break;
            }
            // One early compaction: later clones leave it out and link past it.
            if r.ty == "compaction" && k > 0 {
                continue;
            }
            let mut json = remap(&r.json, &map);
            let mut nav = r.nav.as_deref().map(|n| remap(n, &map));
            let parent_in_clone = r.parent.as_ref().filter(|p| map.contains_key(*p));
            let want_parent = match parent_in_clone {
                Some(p)
                    if big
                        .iter()
                        .any(|b| b.id.as_ref() == Some(p) && b.ty == "compaction")
                        && k > 0 =>
                {
                    // The skipped compaction's child hangs on the compaction's parent.
                    let cp = big
                        .iter()
                        .find(|b| b.ty == "compaction")
                        .and_then(|b| b.parent.clone())
                        .unwrap();
                    Some(map[&cp].clone())
                }
                Some(p) => Some(map[p].clone()),
                None => last.clone(),
            };
            let new_id = r.id.as_ref().map(|i| map[i].clone());
            let mut v: Value = serde_json::from_str(&json).unwrap();
            // An idempotency key is unique per session: each clone gets its own.
            if let Some(key) = v.pointer_mut("/message/idempotencyKey") {
                let role = key
                    .as_str()
                    .and_then(|k| k.rsplit(':').next())
                    .unwrap_or("user");
                *key = Value::String(format!("{}:{role}", uuid(&format!("{idem}/{seq}"))));
            }
            v["parentId"] = want_parent
                .clone()
                .map(Value::String)
                .unwrap_or(Value::Null);
            json = v.to_string();
            if let Some(n) = nav.as_mut() {
                let mut nv: Value = serde_json::from_str(n).unwrap();
                for path in ["/report/entry", "/navigation", "/reset", "/model"] {
                    if let Some(o) = nv.pointer_mut(path).and_then(Value::as_object_mut) {
                        o.insert(
                            "parentId".into(),
                            want_parent
                                .clone()
                                .map(Value::String)
                                .unwrap_or(Value::Null),
                        );
                    }
                }
                *n = nv.to_string();
            }
            written += w.put(sid, seq, &json, nav.as_deref(), r.zstd) as u64;
            seq += 1;
            last = new_id;
        }
        k += 1;
    }
    (seq, written)
}

struct Writer<'c> {
    ins: rusqlite::Statement<'c>,
    now: i64,
}

impl Writer<'_> {
    fn put(&mut self, sid: &str, seq: i64, json: &str, nav: Option<&str>, zstd: bool) -> usize {
        if zstd {
            let frame = {
                let mut enc = zstd::bulk::Compressor::new(1).unwrap();
                enc.include_checksum(true).unwrap();
                enc.include_contentsize(true).unwrap();
                enc.compress(json.as_bytes()).unwrap()
            };
            self.ins
                .execute(params![
                    sid,
                    seq,
                    None::<String>,
                    self.now,
                    frame,
                    json.len() as i64,
                    nav
                ])
                .unwrap();
        } else {
            self.ins
                .execute(params![
                    sid,
                    seq,
                    json,
                    self.now,
                    None::<Vec<u8>>,
                    None::<i64>,
                    None::<String>
                ])
                .unwrap();
        }
        json.len()
    }
}

/// Every row of a session, decoded, in seq order.
fn session_rows(c: &Connection, sid: &str) -> Vec<(i64, String, i64)> {
    let mut st = c
        .prepare("SELECT seq, event_json, event_zstd, created_at FROM transcript_events WHERE session_id = ?1 ORDER BY seq")
        .unwrap();
    st.query_map([sid], |r| {
        let j: Option<String> = r.get(1)?;
        let z: Option<Vec<u8>> = r.get(2)?;
        Ok((r.get::<_, i64>(0)?, j, z, r.get::<_, i64>(3)?))
    })
    .unwrap()
    .map(|r| {
        let (seq, j, z, created) = r.unwrap();
        let json = match (j, z) {
            (Some(j), _) => j,
            (None, Some(z)) => String::from_utf8(zstd::decode_all(&z[..]).unwrap()).unwrap(),
            _ => String::new(),
        };
        (seq, json, created)
    })
    .collect()
}

/// Writes the index rows of every session of `c` that has none, derived from its rows as
/// OpenClaw 2026.9.6 writes them ([`clawtop::sqlite::index::derive`]).
fn write_index(c: &Connection) {
    let sids: Vec<String> = c
        .prepare("SELECT current_session_id FROM session_nodes WHERE current_session_id NOT IN (SELECT session_id FROM session_transcript_index_state)")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut ins_id = c.prepare("INSERT INTO transcript_event_identities(session_id, event_id, seq, event_type, parent_id, message_idempotency_key, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)").unwrap();
    let mut ins_active = c.prepare("INSERT INTO session_transcript_active_events(session_id, active_position, event_seq, message_position, context_eligible) VALUES (?1, ?2, ?3, ?4, ?5)").unwrap();
    let mut ins_state = c.prepare("INSERT INTO session_transcript_index_state(session_id, indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)").unwrap();
    for sid in sids {
        let rows = session_rows(c, &sid);
        let rows: Vec<(i64, &[u8], i64)> = rows
            .iter()
            .map(|(seq, json, at)| (*seq, json.as_bytes(), *at))
            .collect();
        let ix = clawtop::sqlite::index::derive(&rows);
        for i in ix.identities {
            ins_id
                .execute(params![
                    sid,
                    i.event_id,
                    i.seq,
                    i.event_type,
                    i.parent_id,
                    i.message_idempotency_key,
                    i.created_at
                ])
                .unwrap();
        }
        for a in ix.active {
            ins_active
                .execute(params![
                    sid,
                    a.active_position,
                    a.event_seq,
                    a.message_position,
                    a.context_eligible
                ])
                .unwrap();
        }
        let st = ix.state;
        ins_state
            .execute(params![
                sid,
                st.indexed_seq,
                st.leaf_event_id,
                i64::from(st.needs_rebuild),
                st.active_event_count,
                st.active_message_count,
                st.updated_at
            ])
            .unwrap();
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut take = |flag: &str, default: u64| -> u64 {
        match args.iter().position(|a| a == flag) {
            Some(i) => {
                let v = args[i + 1].parse().expect("a number");
                args.drain(i..i + 2);
                v
            }
            None => default,
        }
    };
    let n_sessions = take("--sessions", 2000);
    let mb = take("--transcript-mb", 100);
    let big_row_mib = take("--big-row-mib", 0);
    let many_rows = take("--many-rows", 0);
    let session_rows = take("--session-rows", 0);
    let [out] = &args[..] else {
        eprintln!(
            "usage: gen_sqlite_host OUT_DIR [--sessions N] [--session-rows N] [--transcript-mb N] [--big-row-mib N] [--many-rows N]"
        );
        std::process::exit(2);
    };
    let out = PathBuf::from(out);
    assert!(!out.exists(), "{} exists", out.display());
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/openclaw-2026.9.6/host-f");
    copy_dir(&fixture, &out);
    let db = out.join("state/agents/main/agent/openclaw-agent.sqlite");
    let mut c = Connection::open(&db).unwrap();
    c.pragma_update(None, "synchronous", "OFF").unwrap();
    let (entry_tpl, _): (String, String) = c
        .query_row(
            "SELECT entry_json, current_session_id FROM session_nodes WHERE session_key = 'agent:main:incident-7'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let big = template_rows(&c, "f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93");
    let small = {
        let ops =
            Connection::open(out.join("state/agents/ops/agent/openclaw-agent.sqlite")).unwrap();
        template_rows(&ops, "e050b933-502b-4898-9507-c451ca94449c")
    };
    let now = 1795457042282i64;
    let tx = c.transaction().unwrap();
    {
        let mut w = Writer {
            ins: tx
                .prepare("INSERT INTO transcript_events(session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
                .unwrap(),
            now,
        };
        let mut node = tx
            .prepare("INSERT INTO session_nodes(session_key, current_session_id, entry_json, updated_at) VALUES (?1, ?2, ?3, ?4)")
            .unwrap();
        let mut window = tx
            .prepare("INSERT INTO session_windows(session_id, session_key, created_at, updated_at) VALUES (?1, ?2, ?3, ?4)")
            .unwrap();
        let tpl: Value = serde_json::from_str(&entry_tpl).unwrap();
        let mut add_session = |key: &str, sid: &str, i: u64, updated: i64| {
            let mut e = tpl.clone();
            let o = e.as_object_mut().unwrap();
            o.insert("sessionId".into(), sid.into());
            o.insert("updatedAt".into(), updated.into());
            let window_tokens = if i % 3 == 0 { 200000 } else { 48000 };
            o.insert("contextTokens".into(), window_tokens.into());
            o.insert("totalTokens".into(), ((i * 7919) % window_tokens).into());
            o.insert("compactionCount".into(), (i % 4).into());
            if i % 5 == 0 {
                o.insert(
                    "memoryFlush".into(),
                    serde_json::json!({"kind": "succeeded", "compactionCount": i % 4}),
                );
            } else {
                o.remove("memoryFlush");
            }
            if i % 7 == 0 {
                o.insert("totalTokensFresh".into(), false.into());
            }
            if i % 11 == 0 {
                o.remove("totalTokensFresh");
            }
            if i % 13 == 0 {
                o.remove("totalTokens");
            }
            node.execute(params![key, sid, e.to_string(), updated])
                .unwrap();
            window.execute(params![sid, key, updated, updated]).unwrap();
        };
        for i in 0..n_sessions {
            let key = format!("agent:main:bench-{i:04}");
            let sid = uuid(&format!("session/{i}"));
            add_session(&key, &sid, i + 1, now - i as i64 * 60_000);
            if session_rows > 0 {
                let label = format!("bench/{i}");
                let idem = format!("bench/{i}/idem");
                chain(&mut w, &big, &sid, (&label, &idem), &|rows, _| {
                    rows >= session_rows
                });
                continue;
            }
            let mut map: HashMap<String, String> = HashMap::new();
            map.insert("e050b933-502b-4898-9507-c451ca94449c".into(), sid.clone());
            for (j, r) in small.iter().enumerate() {
                if let Some(id) = &r.id {
                    map.entry(id.clone())
                        .or_insert_with(|| uuid(&format!("row/{i}/{j}")));
                }
            }
            for (seq, r) in small.iter().enumerate() {
                w.put(
                    &sid,
                    seq as i64,
                    &remap(&r.json, &map),
                    r.nav.as_deref().map(|n| remap(n, &map)).as_deref(),
                    r.zstd,
                );
            }
        }
        // The huge transcript: header, then clones of incident-7's rows as one chain.
        let sid = uuid("huge");
        add_session("agent:main:huge", &sid, 2, now);
        let target = mb * 1_000_000;
        let (seq, written) = chain(&mut w, &big, &sid, ("huge", "idem"), &|_, bytes| {
            bytes >= target
        });
        if big_row_mib > 0 {
            let sid = uuid("bigrow");
            add_session("agent:main:bigrow", &sid, 3, now - 1);
            let ts = "2026-11-23T18:01:10.735Z";
            let text = "0123456789abcdef".repeat((big_row_mib as usize) << 16);
            let rows = [
                format!(
                    r#"{{"type":"session","version":4,"id":"{sid}","timestamp":"{ts}","cwd":"/home/operator/ws/main"}}"#
                ),
                format!(
                    r#"{{"type":"message","id":"b0000001","parentId":null,"timestamp":"{ts}","message":{{"role":"user","content":"dump the log","timestamp":1795456864192}}}}"#
                ),
                format!(
                    r#"{{"type":"message","id":"b0000002","parentId":"b0000001","timestamp":"{ts}","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"call_1","name":"read","arguments":{{"path":"big.log"}}}}],"usage":{{"input":1200,"output":7,"cacheRead":0,"cacheWrite":0,"totalTokens":1207}},"stopReason":"toolUse","timestamp":1795456864193}}}}"#
                ),
                format!(
                    r#"{{"type":"message","id":"b0000003","parentId":"b0000002","timestamp":"{ts}","message":{{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{{"type":"text","text":"{text}"}}],"isError":false,"timestamp":1795456864194}}}}"#
                ),
                format!(
                    r#"{{"type":"message","id":"b0000004","parentId":"b0000003","timestamp":"{ts}","message":{{"role":"assistant","content":[{{"type":"text","text":"That log is too long to read."}}],"usage":{{"input":1300,"output":9,"cacheRead":0,"cacheWrite":0,"totalTokens":1309}},"stopReason":"stop","timestamp":1795456864195}}}}"#
                ),
            ];
            for (seq, r) in rows.iter().enumerate() {
                w.put(&sid, seq as i64, r, None, false);
            }
        }
        if many_rows > 0 {
            let sid = uuid("many");
            add_session("agent:main:many", &sid, 4, now - 2);
            let ts = "2026-11-23T18:01:10.735Z";
            w.put(
                &sid,
                0,
                &format!(r#"{{"type":"session","version":4,"id":"{sid}","timestamp":"{ts}","cwd":"/home/operator/ws/main"}}"#),
                None,
                false,
            );
            let mut parent = "null".to_string();
            for i in 1..many_rows as i64 {
                let id = uuid(&format!("many/{i}"));
                let json = if i % 2 == 1 {
                    format!(
                        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"user","content":"step {i}: check the queue","timestamp":1795456864192}}}}"#
                    )
                } else {
                    format!(
                        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"assistant","content":[{{"type":"text","text":"Queue {i} is fine."}}],"usage":{{"input":{},"output":6,"cacheRead":0,"cacheWrite":0,"totalTokens":{}}},"stopReason":"stop","timestamp":1795456864193}}}}"#,
                        1000 + i,
                        1006 + i
                    )
                };
                w.put(&sid, i, &json, None, false);
                parent = format!("\"{id}\"");
            }
        }
        eprintln!(
            "{} sessions, huge transcript {} rows, {:.1} MB decoded",
            n_sessions + 3 + 1,
            seq,
            written as f64 / 1e6
        );
    }
    // OpenClaw's triggers mark inserted rows for validation; these rows are copies of valid
    // ones, so they are marked valid as OpenClaw's own writer leaves them.
    tx.execute_batch(
        "UPDATE session_nodes SET entry_valid = 1; DELETE FROM session_canonical_validation_pending;",
    )
    .unwrap();
    write_index(&tx);
    tx.commit().unwrap();
    c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
    drop(c);
    for side in ["-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(side);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
}
