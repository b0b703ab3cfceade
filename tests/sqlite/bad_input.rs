//! Bad input: each case gets a clear error naming the file or row, never a panic or a hang,
//! and the rest of the host still reads.

use super::common::*;
use clawtop::sqlite::events::RowError;
use clawtop::sqlite::{DbError, ReadOnlyDb, discover, entry, events};
use std::time::{Duration, Instant};

const INCIDENT: &str = "f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93";

/// Reads everything of one database, returning the first error.
fn read_all(path: &std::path::Path) -> Result<usize, DbError> {
    let db = ReadOnlyDb::open(path)?;
    let mut n = 0;
    for s in entry::read_sessions(&db)? {
        events::for_each(&db, &s.current_session_id, |_, _| n += 1)?;
    }
    Ok(n)
}

#[test]
fn truncated_database() {
    let h = HostF::new();
    let p = h.agent_db("main");
    let len = std::fs::metadata(&p).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(len / 3).unwrap();
    drop(f);
    let e = read_all(&p).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains(&p.display().to_string()), "{msg}");
    assert!(matches!(e, DbError::Corrupt { .. }), "{msg}");
    // A stub shorter than a header.
    std::fs::write(&p, b"SQLite format 3\0abc").unwrap();
    let msg = read_all(&p).unwrap_err().to_string();
    assert!(msg.contains("shorter than a SQLite header"), "{msg}");
    // The other agent still reads, and discovery names the damaged one.
    assert_eq!(read_all(&h.agent_db("ops")).unwrap(), 24);
    let layout = discover(&h.state());
    let main = layout.agents.iter().find(|a| a.agent_id == "main").unwrap();
    assert!(
        main.error
            .as_deref()
            .unwrap()
            .contains("openclaw-agent.sqlite"),
        "{main:?}"
    );
}

#[test]
fn corrupt_database() {
    let h = HostF::new();
    let p = h.agent_db("main");
    let mut bytes = std::fs::read(&p).unwrap();
    // Garbage over every page after the first: the schema reads, the tables do not.
    for b in bytes.iter_mut().skip(4096) {
        *b = 0xA5;
    }
    std::fs::write(&p, &bytes).unwrap();
    let e = read_all(&p).unwrap_err();
    assert!(matches!(e, DbError::Corrupt { .. }), "{e}");
    assert!(e.to_string().contains("damaged"), "{e}");
    // Not a database at all.
    std::fs::write(&p, vec![b'x'; 8192]).unwrap();
    let e = read_all(&p).unwrap_err();
    assert!(e.to_string().contains("no SQLite header"), "{e}");
}

/// Sets up a row case with the test's own writer (on the copy), closes it (checkpoint).
fn with_writer(h: &HostF, agent: &str, sql: &str) {
    let w = h.writer(agent);
    w.execute_batch(sql).unwrap();
    drop(w);
    assert!(!clawtop::sqlite::open::side(&h.agent_db(agent), "-wal").exists());
}

fn row_results(h: &HostF) -> Vec<(i64, Result<Vec<u8>, RowError>)> {
    let db = ReadOnlyDb::open(&h.agent_db("main")).unwrap();
    let mut out = Vec::new();
    events::for_each(&db, INCIDENT, |seq, r| out.push((seq, r))).unwrap();
    out
}

#[test]
fn damaged_zstd_row() {
    let h = HostF::new();
    // Flip bytes inside the frame of the compaction row (seq 54).
    with_writer(
        &h,
        "main",
        "UPDATE transcript_events SET event_zstd = CAST(substr(event_zstd, 1, 20) || zeroblob(40) || substr(event_zstd, 61) AS BLOB) WHERE session_id = 'f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93' AND seq = 54",
    );
    let rows = row_results(&h);
    assert_eq!(rows.len(), 61, "the other rows still read");
    let bad: Vec<_> = rows.iter().filter(|(_, r)| r.is_err()).collect();
    assert_eq!(bad.len(), 1);
    let (seq, r) = bad[0];
    assert_eq!(*seq, 54);
    let e = r.as_ref().unwrap_err();
    assert!(
        matches!(e, RowError::Zstd { .. } | RowError::Length { .. }),
        "{e}"
    );
    assert!(e.to_string().starts_with("seq 54: event_zstd"), "{e}");
}

#[test]
fn zstd_row_with_the_wrong_length() {
    let h = HostF::new();
    with_writer(
        &h,
        "main",
        "UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes - 7 WHERE session_id = 'f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93' AND seq = 54",
    );
    let rows = row_results(&h);
    let e = rows[54].1.as_ref().unwrap_err();
    assert_eq!(
        e.to_string(),
        "seq 54: event_zstd decodes to more than 3184 bytes but event_utf8_bytes says 3184"
    );
    let h = HostF::new();
    with_writer(
        &h,
        "main",
        "UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes + 7 WHERE session_id = 'f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93' AND seq = 54",
    );
    let rows = row_results(&h);
    assert_eq!(
        rows[54].1.as_ref().unwrap_err().to_string(),
        "seq 54: event_zstd decodes to 3191 bytes but event_utf8_bytes says 3198"
    );
}

#[test]
fn unknown_newer_schema_reads_what_is_understood() {
    let h = HostF::new();
    with_writer(
        &h,
        "ops",
        "CREATE TABLE future_widgets(x); PRAGMA user_version = 31;",
    );
    let layout = discover(&h.state());
    let ops = layout.agents.iter().find(|a| a.agent_id == "ops").unwrap();
    assert_eq!(ops.schema, Some(31));
    assert!(ops.has_sessions && ops.error.is_none());
    let note = ops.notes.join("\n");
    assert!(
        note.contains("agent schema 31 is newer than schema 23"),
        "{note}"
    );
    assert!(note.contains("not understood: future_widgets"), "{note}");
    assert_eq!(
        read_all(&ops.path).unwrap(),
        24,
        "sessions and rows still read"
    );
}

#[test]
fn newer_schema_without_a_needed_column_says_so() {
    let h = HostF::new();
    with_writer(
        &h,
        "ops",
        "ALTER TABLE session_nodes RENAME COLUMN entry_json TO entry_doc; PRAGMA user_version = 40;",
    );
    let layout = discover(&h.state());
    let ops = layout.agents.iter().find(|a| a.agent_id == "ops").unwrap();
    let note = ops.notes.join("\n");
    assert!(
        note.contains("columns clawtop needs are missing: session_nodes.entry_json"),
        "{note}"
    );
    let e = read_all(&ops.path).unwrap_err();
    assert!(e.to_string().contains("entry_json"), "{e}");
}

#[test]
fn database_locked_by_a_writer() {
    // The busy timeout comes from the environment, which a test cannot change for itself
    // without racing the others of this binary: the test runs again in a child that has it.
    const TEST: &str = "bad_input::database_locked_by_a_writer";
    if std::env::var_os("CLAWTOP_SQLITE_BUSY_MS").is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", TEST, "--nocapture", "--test-threads=1"])
            .env("CLAWTOP_SQLITE_BUSY_MS", "400")
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{stdout}\n{stderr}");
        assert!(
            stdout.contains("1 passed"),
            "the child ran the test: {stdout}"
        );
        return;
    }
    let h = HostF::new();
    let p = h.agent_db("ops");
    let w = h.writer("ops");
    // A rollback-journal database whose writer holds the exclusive lock: readers must wait.
    w.pragma_update(None, "journal_mode", "DELETE").unwrap();
    w.execute_batch("BEGIN EXCLUSIVE; UPDATE session_nodes SET updated_at = updated_at + 1;")
        .unwrap();
    let t0 = Instant::now();
    let e = read_all(&p).unwrap_err();
    let took = t0.elapsed();
    assert!(matches!(e, DbError::Busy { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("is locked by another process (still busy after 400 ms)"),
        "{e}"
    );
    assert!(e.to_string().contains(&p.display().to_string()));
    assert!(took >= Duration::from_millis(300), "it retried: {took:?}");
    assert!(took < Duration::from_secs(10), "no hang: {took:?}");
    // Once the writer is done, the same read works.
    w.execute_batch("COMMIT").unwrap();
    assert_eq!(read_all(&p).unwrap(), 24);
}

#[test]
fn missing_agent_database_named_by_the_state_database() {
    let h = HostF::new();
    std::fs::remove_file(h.agent_db("ops")).unwrap();
    let layout = discover(&h.state());
    assert!(layout.is_sqlite_host());
    let ops = layout.agents.iter().find(|a| a.agent_id == "ops").unwrap();
    assert!(ops.registered);
    let e = ops.error.as_deref().unwrap();
    assert!(
        e.contains("agents/ops/agent/openclaw-agent.sqlite")
            && e.contains("named by state/openclaw.sqlite")
            && e.contains("does not exist"),
        "{e}"
    );
    let main = layout.agents.iter().find(|a| a.agent_id == "main").unwrap();
    assert!(main.error.is_none());
    assert_eq!(read_all(&main.path).unwrap(), 61);
}

#[test]
fn legacy_sessions_json_is_named_and_left_alone() {
    let h = HostF::new();
    let legacy = h.state().join("agents/main/sessions/sessions.json");
    std::fs::create_dir_all(legacy.parent().unwrap()).unwrap();
    std::fs::write(
        &legacy,
        br#"{"agent:main:old":{"sessionId":"old-1","totalTokens":5}}"#,
    )
    .unwrap();
    let before = contents(h.root());
    let snap = snapshot(h.root());
    let layout = discover(&h.state());
    assert!(layout.is_sqlite_host());
    let main = layout.agents.iter().find(|a| a.agent_id == "main").unwrap();
    assert_eq!(main.legacy_store.as_deref(), Some(legacy.as_path()));
    assert!(
        main.notes
            .iter()
            .any(|n| n.contains("legacy store") && n.contains("never edited"))
    );
    assert_eq!(contents(h.root()), before);
    assert_eq!(snapshot(h.root()), snap);
}

/// A session's text read whole (None: too large; Some(None): refused) and its rows decoded
/// one by one and made lines (None: a row does not decode).
type WholeAndRows = (Option<Option<Vec<u8>>>, Option<Vec<u8>>);

/// Session `sid`'s text as `list` reads it whole, up to `max` bytes of rows.
fn read_whole(db: &ReadOnlyDb, sid: &str, max: u64) -> Option<Option<Vec<u8>>> {
    let mut stamp = events::FingerprintOfRead::default();
    events::read_text_within(
        db,
        sid,
        max,
        &mut stamp,
        clawtop::transcript::end_entry_line,
    )
    .unwrap()
}

/// Every session of `agent`'s database: its text read whole and its rows one by one.
fn whole_texts(h: &HostF, agent: &str, max: u64) -> Vec<WholeAndRows> {
    let db = ReadOnlyDb::open(&h.agent_db(agent)).unwrap();
    let mut out = Vec::new();
    for s in entry::read_sessions(&db).unwrap() {
        let sid = &s.current_session_id;
        let text = read_whole(&db, sid, max);
        let mut rows = Vec::new();
        events::for_each(&db, sid, |_, r| rows.push(r)).unwrap();
        let lines = rows.into_iter().try_fold(Vec::new(), |mut lines, r| {
            let start = lines.len();
            lines.extend_from_slice(&r.ok()?);
            clawtop::transcript::end_entry_line(&mut lines, start).then_some(lines)
        });
        out.push((text, lines));
    }
    out
}

/// The text `list` reads a session whole as ([`events::read_text_within`]: every row decoded
/// onto the end of one buffer) against the rows decoded one by one, each made a line: equal
/// on every session of the fixture; refused (for the row-by-row read to report) wherever a
/// row does not decode as [`events::decode`] would have it; too large past the limit.
#[test]
fn a_session_read_whole_is_its_rows_decoded_one_by_one() {
    let h = HostF::new();
    let mut sessions = 0;
    for agent in ["main", "ops"] {
        for (text, lines) in whole_texts(&h, agent, u64::MAX) {
            let lines = lines.expect("every fixture row decodes");
            assert!(lines.len() > 100);
            assert_eq!(text, Some(Some(lines)));
            sessions += 1;
        }
    }
    assert!(sessions >= 3, "{sessions}");
    // Past the limit: too large, nothing decoded.
    let all = whole_texts(&h, "main", u64::MAX);
    let (k, size) = all
        .iter()
        .enumerate()
        .map(|(k, (t, _))| (k, t.clone().flatten().unwrap().len() as u64))
        .max_by_key(|&(_, n)| n)
        .unwrap();
    // The limit counts the rows' bytes, not the line breaks after them.
    let rows = all[k]
        .1
        .as_ref()
        .unwrap()
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64;
    assert_eq!(whole_texts(&h, "main", size - rows - 1)[k].0, None);
    assert_eq!(whole_texts(&h, "main", size - rows)[k].0, all[k].0);

    // A row whose frame is damaged, or decodes to more or fewer bytes than promised (by 7
    // and by 1): refused, as the row-by-row read refuses that row.
    for sql in [
        "UPDATE transcript_events SET event_zstd = CAST(substr(event_zstd, 1, 20) || zeroblob(40) || substr(event_zstd, 61) AS BLOB) WHERE seq = 54",
        "UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes - 7 WHERE seq = 54",
        "UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes - 1 WHERE seq = 54",
        "UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes + 1 WHERE seq = 54",
        "UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes + 7 WHERE seq = 54",
    ] {
        let h = HostF::new();
        with_writer(&h, "main", &format!("{sql} AND session_id = '{INCIDENT}'"));
        let db = ReadOnlyDb::open(&h.agent_db("main")).unwrap();
        assert_eq!(read_whole(&db, INCIDENT, u64::MAX), Some(None), "{sql}");
        assert!(row_results(&h).iter().any(|(_, r)| r.is_err()), "{sql}");
    }
}
