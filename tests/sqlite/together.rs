//! `list` reads every session's transcript inside one read transaction per database
//! (`SessionSource::read_together`): the whole list sees one state of the host, and the
//! transaction ends with it, so later reads see what was written since.

use super::common::*;

#[test]
fn the_list_reads_one_snapshot_and_lets_go_of_it() {
    let h = HostF::new();
    // A live writer first: the database is read through SQLite's locks (WAL, `-shm`), the
    // mode where a transaction holds a snapshot.
    let w = h.writer("main");
    let mode: String = w
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let source = h.source();
    let listed = source.list(Some("main"));
    let s = listed
        .sessions
        .iter()
        .find(|s| s.transcript.is_some())
        .expect("a session with a transcript");
    let entries = || source.open_transcript(&s.reference).unwrap().len();
    let append = |id: &str| {
        let n = w
            .execute(
                &format!(
                    "INSERT INTO transcript_events (session_id, seq, event_json, created_at) \
                     SELECT session_id, max(seq) + 1, \
                     '{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":null,\"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}', 0 \
                     FROM transcript_events WHERE session_id = ?1"
                ),
                [&s.entry.session_id],
            )
            .unwrap();
        assert_eq!(n, 1);
    };
    let before = entries();
    let mut inside = (0, 0);
    source.read_together(&mut || {
        let first = entries();
        append("appended-during");
        inside = (first, entries());
    });
    assert_eq!(
        inside,
        (before, before),
        "one snapshot while the list reads"
    );
    assert_eq!(entries(), before + 1, "the snapshot is let go after it");
    append("appended-after");
    assert_eq!(entries(), before + 2);
}
