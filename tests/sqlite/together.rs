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

/// What a list asks of each session inside its read (the files whose change means the row
/// is read again, the transcript a compaction writes in place) is what the source says of
/// that session outside it: answered once per database inside, and without building a
/// writer, it must not answer differently.
#[test]
fn inside_the_read_each_session_is_watched_and_written_as_outside_it() {
    use clawtop::source::{Changes, Operation, Watch, Writer};
    let h = HostF::new();
    let source = h.source();
    let listed = source.list(None);
    assert!(listed.sessions.len() > 1, "a host of several sessions");
    let files = |r| match source.changes(Watch::Transcript(r)) {
        Changes::Poll(f) => f,
        Changes::Pushed => panic!("a SQLite host is polled"),
    };
    let outside: Vec<_> = listed
        .sessions
        .iter()
        .map(|s| files(&s.reference))
        .collect();
    for (s, f) in listed.sessions.iter().zip(&outside) {
        assert_eq!(f.len(), 2, "the database and its -wal: {f:?}");
        assert!(f[1].ends_with("openclaw-agent.sqlite"), "{f:?}");
        assert_eq!(
            f[0].file_name(),
            Some(std::ffi::OsStr::new("openclaw-agent.sqlite-wal"))
        );
        // Only the Gateway writes a SQLite host's transcripts: no file is written in place,
        // which is what the writer says too.
        assert_eq!(source.compacted_in_place(&s.reference), None);
        assert!(!matches!(
            source.writer(&s.reference, Operation::Compact),
            Writer::Local(_)
        ));
    }
    let mut inside = Vec::new();
    source.read_together(&mut || {
        inside = listed
            .sessions
            .iter()
            .map(|s| files(&s.reference))
            .collect();
    });
    assert_eq!(inside, outside);
}
