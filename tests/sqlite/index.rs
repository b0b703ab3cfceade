//! OpenClaw 2026.9.6's own transcript index (`clawtop::sqlite::index`): the derivation
//! clawtop (and the benchmark host's generator) uses gives exactly the rows OpenClaw wrote for
//! every session of the fixture, and an index that lags its rows is not current.

use super::common::HostF;
use clawtop::sqlite::{ReadOnlyDb, entry, events, index};

fn rows(db: &ReadOnlyDb, sid: &str) -> Vec<(i64, Vec<u8>, i64)> {
    let created: std::collections::HashMap<i64, i64> = db
        .conn()
        .prepare("SELECT seq, created_at FROM transcript_events WHERE session_id = ?1")
        .unwrap()
        .query_map([sid], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = Vec::new();
    events::for_each(db, sid, |seq, r| out.push((seq, r.unwrap(), created[&seq]))).unwrap();
    out
}

#[test]
fn the_derived_index_is_the_one_openclaw_wrote_for_every_fixture_session() {
    let h = HostF::new();
    let mut sessions = 0;
    for agent in ["main", "ops"] {
        let db = ReadOnlyDb::open(&h.agent_db(agent)).unwrap();
        for s in entry::read_sessions(&db).unwrap() {
            let sid = &s.current_session_id;
            let rows = rows(&db, sid);
            let borrowed: Vec<(i64, &[u8], i64)> =
                rows.iter().map(|(s, b, c)| (*s, &b[..], *c)).collect();
            let derived = index::derive(&borrowed);
            let real = index::read(&db, sid)
                .unwrap()
                .expect("2026.9.6 indexes every session");
            assert_eq!(derived, real, "{agent} {sid}");
            assert!(index::is_current(&db, sid));
            sessions += 1;
        }
    }
    assert_eq!(sessions, 3);
}

#[test]
fn an_index_that_lags_or_asks_for_a_rebuild_is_not_current() {
    let h = HostF::new();
    let sid = "d23fd5eb-104f-4895-97d4-898265597e9c";
    let w = h.writer("ops");
    w.execute(
        "INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?1, 14, ?2, 0)",
        rusqlite::params![sid, r#"{"type":"custom","customType":"x","id":"new-1","parentId":null}"#],
    )
    .unwrap();
    let db = ReadOnlyDb::open(&h.agent_db("ops")).unwrap();
    assert!(!index::is_current(&db, sid), "a row past indexed_seq");
    assert!(index::is_current(
        &db,
        "e050b933-502b-4898-9507-c451ca94449c"
    ));
    drop(db);
    w.execute(
        "UPDATE session_transcript_index_state SET needs_rebuild = 1 WHERE session_id = 'e050b933-502b-4898-9507-c451ca94449c'",
        [],
    )
    .unwrap();
    let db = ReadOnlyDb::open(&h.agent_db("ops")).unwrap();
    assert!(!index::is_current(
        &db,
        "e050b933-502b-4898-9507-c451ca94449c"
    ));
}
