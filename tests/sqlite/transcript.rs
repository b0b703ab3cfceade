//! Transcripts from `transcript_events` as clawtop's `Transcript`: every entry, the compaction
//! and its summary, the active branch and the used estimate, rows decoded on demand.

use super::common::*;
use clawtop::sqlite::transcript;
use clawtop::transcript::EntryKind;
use serde_json::Value;

const INCIDENT: &str = "f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93";

/// The compaction rows' summaries, read in the test with plain SQL and the zstd crate.
fn summaries_from_rows(h: &HostF, agent: &str) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("a.sqlite");
    std::fs::copy(h.agent_db(agent), &copy).unwrap();
    let c = rusqlite::Connection::open(&copy).unwrap();
    let mut st = c
        .prepare("SELECT coalesce(event_json, ''), event_zstd FROM transcript_events ORDER BY session_id, seq")
        .unwrap();
    st.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, Option<Vec<u8>>>(1)?))
    })
    .unwrap()
    .map(Result::unwrap)
    .map(|(j, z)| match z {
        Some(z) => String::from_utf8(zstd::stream::decode_all(&z[..]).unwrap()).unwrap(),
        None => j,
    })
    .filter_map(|j| {
        let v: Value = serde_json::from_str(&j).unwrap();
        (v["type"] == "compaction").then(|| v["summary"].as_str().unwrap().to_string())
    })
    .collect()
}

#[test]
fn incident_7_reads_like_a_file_transcript() {
    let h = HostF::new();
    let o = transcript::open(&h.agent_db("main"), INCIDENT).unwrap();
    let t = &o.transcript;
    assert_eq!((o.rows, o.zstd_rows, o.max_seq), (61, 13, Some(60)));
    assert_eq!(t.header.as_ref().unwrap().version, 4);
    assert_eq!(t.version, 4);
    assert_eq!(t.len(), 60, "every entry but the header");
    assert!(t.all_warnings().is_empty(), "{:?}", t.all_warnings());
    // Every entry decodes to its full JSON, whichever column holds it.
    for i in 0..t.len() as u32 {
        let v = t.entry_json(i).unwrap();
        assert_eq!(v["id"].as_str(), t.entry_id(i).as_deref());
    }
    let comps: Vec<u32> = (0..t.len() as u32)
        .filter(|&i| t.entries[i as usize].kind == EntryKind::Compaction)
        .collect();
    assert_eq!(comps.len(), 1);
    let c = t.entry_json(comps[0]).unwrap();
    assert_eq!(c["tokensBefore"], 37946);
    assert_eq!(c["tokensAfter"], 15042);
    assert_eq!(
        vec![c["summary"].as_str().unwrap().to_string()],
        summaries_from_rows(&h, "main")
    );
    assert!(c["summary"].as_str().unwrap().contains("FAKE-SUMMARY 18"));
    // The compaction's firstKeptEntryId resolves; the active branch runs from the header's
    // first child to the last row.
    assert!(t.first_kept_of(comps[0], &c).is_some());
    let branch = t.active_branch();
    assert_eq!(branch.len(), 60);
    assert_eq!(branch.last().copied(), t.leaf());
    assert_eq!(
        branch.first().map(|&i| t.entries[i as usize].kind),
        Some(EntryKind::ModelChange)
    );
    // The 2026.9 figure from the transcript equals the entry's totalTokens (29144), not the
    // reply's usage.totalTokens (31516), which pi's estimate starts from.
    assert_eq!(
        transcript::last_prompt_tokens(t),
        Some(transcript::PromptFromTranscript::LastCall(29144))
    );
    assert_eq!(
        clawtop::context::current_tokens(t).unwrap().usage_tokens,
        31516
    );
}

fn rewrite(h: &HostF, sql: &str) {
    let w = h.writer("main");
    w.execute_batch(sql).unwrap();
}

#[test]
fn event_json_that_is_not_json_is_skipped_with_its_row_named() {
    let h = HostF::new();
    // seq 3 is a short custom row stored as event_json.
    rewrite(
        &h,
        "UPDATE transcript_events SET event_json = '{\"type\":\"custom\", \"id\": broken' WHERE session_id = 'f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93' AND seq = 3",
    );
    let o = transcript::open(&h.agent_db("main"), INCIDENT).unwrap();
    let t = &o.transcript;
    assert_eq!(t.len(), 59);
    let ws: Vec<String> = t.all_warnings().iter().map(|w| w.to_string()).collect();
    assert!(
        ws.iter()
            .any(|w| w.starts_with("line 4: skipped: not valid JSON")),
        "{ws:?}"
    );
}

#[test]
fn zstd_row_whose_length_disagrees_is_skipped_at_indexing() {
    let h = HostF::new();
    rewrite(
        &h,
        "UPDATE transcript_events SET event_utf8_bytes = 3000 WHERE session_id = 'f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93' AND seq = 54",
    );
    let o = transcript::open(&h.agent_db("main"), INCIDENT).unwrap();
    let t = &o.transcript;
    assert_eq!(t.len(), 59);
    let ws: Vec<String> = t.all_warnings().iter().map(|w| w.to_string()).collect();
    assert!(
        ws.iter().any(|w| w == "line 55: skipped: seq 54: event_zstd decodes to 3191 bytes but event_utf8_bytes says 3000"),
        "{ws:?}"
    );
    // Rows after it keep their own line numbers.
    assert_eq!(t.entries.last().unwrap().line, 61);
}

#[test]
fn damaged_zstd_row_fails_when_decoded_naming_its_seq() {
    let h = HostF::new();
    rewrite(
        &h,
        "UPDATE transcript_events SET event_zstd = CAST(substr(event_zstd, 1, 20) || zeroblob(40) || substr(event_zstd, 61) AS BLOB) WHERE session_id = 'f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93' AND seq = 54",
    );
    let o = transcript::open(&h.agent_db("main"), INCIDENT).unwrap();
    let t = &o.transcript;
    let i = t
        .entries
        .iter()
        .position(|e| e.kind == EntryKind::Compaction)
        .unwrap() as u32;
    let e = t.entry_json(i).unwrap_err().to_string();
    assert!(e.contains("seq 54: event_zstd"), "{e}");
    assert!(
        e.contains("openclaw-agent.sqlite#transcript_events/f5b41ddd"),
        "{e}"
    );
    // The other entries still decode.
    assert!(t.entry_json(i + 1).is_ok());
}

/// A reopen after an append reads only the new rows and gives the same transcript as a fresh
/// open; a rewrite (renumbered seq) starts over.
#[test]
fn reopen_reads_only_appended_rows() {
    let h = HostF::new();
    let db = h.agent_db("main");
    let shared = |p: &std::path::Path| {
        std::sync::Arc::new(std::sync::Mutex::new(
            clawtop::sqlite::ReadOnlyDb::open(p).unwrap(),
        ))
    };
    let (first, idx) = transcript::open_after(&shared(&db), INCIDENT, Default::default()).unwrap();
    assert_eq!(first.rows, 61);
    let w = h.writer("main");
    w.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    let last = first.transcript.entry_id(59).unwrap().to_string();
    w.execute(
        "INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?1, 61, ?2, 0)",
        rusqlite::params![
            INCIDENT,
            serde_json::json!({"type": "message", "id": "appended-1", "parentId": last, "timestamp": "2026-11-23T18:10:00.000Z",
                "message": {"role": "user", "content": "one more", "timestamp": 1}}).to_string()
        ],
    )
    .unwrap();
    let (again, idx) = transcript::open_after(&shared(&db), INCIDENT, idx).unwrap();
    let fresh = transcript::open(&db, INCIDENT).unwrap();
    assert_eq!(again.rows, 62);
    assert_eq!(again.transcript.len(), fresh.transcript.len());
    assert_eq!(again.transcript.entry_id(60).as_deref(), Some("appended-1"));
    assert_eq!(
        again.transcript.active_branch(),
        fresh.transcript.active_branch()
    );
    // A trim renumbers seq: the stale index is dropped, not extended.
    w.execute_batch(&format!(
        "DELETE FROM transcript_events WHERE session_id = '{INCIDENT}' AND seq BETWEEN 1 AND 40;"
    ))
    .unwrap();
    let (trimmed, _) = transcript::open_after(&shared(&db), INCIDENT, idx).unwrap();
    assert_eq!(trimmed.rows, 22);
    assert_eq!(
        trimmed.transcript.len(),
        transcript::open(&db, INCIDENT).unwrap().transcript.len()
    );
}

/// The plan on a SQLite transcript (its replies read in one pass for their file operations)
/// is the plan on the same entries as a file.
#[test]
fn the_plan_reads_like_the_plan_on_the_same_file() {
    use clawtop::plan;
    let h = HostF::new();
    let o = transcript::open(&h.agent_db("main"), INCIDENT).unwrap();
    let t = &o.transcript;
    let db = clawtop::sqlite::ReadOnlyDb::open(&h.agent_db("main")).unwrap();
    let mut rows = Vec::new();
    clawtop::sqlite::events::for_each(&db, INCIDENT, |_, r| {
        rows.push(String::from_utf8(r.unwrap()).unwrap())
    })
    .unwrap();
    let file = clawtop::transcript::Transcript::from_entries("incident-7.jsonl", &rows);
    for keep in [0, 2000, plan::DEFAULT_KEEP_RECENT_TOKENS] {
        let (a, b) = (plan::prepare(t, keep), plan::prepare(&file, keep));
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(a.read_files, b.read_files, "keep {keep}");
        assert_eq!(a.modified_files, b.modified_files, "keep {keep}");
        assert_eq!(a.messages_to_summarize, b.messages_to_summarize);
        assert_eq!(a.first_kept_entry, b.first_kept_entry);
        assert_eq!(a.tokens_before, b.tokens_before);
        if keep == 0 {
            assert!(
                !a.read_files.is_empty(),
                "the replies' read calls are found"
            );
        }
    }
}
