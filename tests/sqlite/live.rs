//! The Sessions screen's reload on a SQLite host (issue 31, "live"): a reload after a change
//! rebuilds the rows of the sessions that changed and hands the others back, and what it
//! shows is what a first load of the changed host shows.

use super::common::HostF;
use clawtop::tui::store_adapter;
use clawtop::usecase::list::RowMemo;

const I7: &str = "agent:main:incident-7";
const I7_SID: &str = "f5b41ddd-c9f4-4372-aea6-7b5d0b4eca93";

/// Two messages (a user turn and its reply with a usage) after the session's last row, as
/// OpenClaw appends a turn.
fn append_turn(h: &HostF, input: u64) {
    let w = h.writer("main");
    let leaf: String = w
        .query_row(
            "SELECT event_id FROM transcript_event_identities \
             WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1",
            [I7_SID],
            |r| r.get(0),
        )
        .unwrap();
    // After the turns appended before (which OpenClaw's index does not list).
    let seq: i64 = w
        .query_row(
            "SELECT max(seq) FROM transcript_events WHERE session_id = ?1",
            [I7_SID],
            |r| r.get(0),
        )
        .unwrap();
    let at = "2026-03-01T10:00:00.000Z";
    let u = serde_json::json!({"type": "message", "id": format!("live-u{seq}"), "parentId": leaf,
        "timestamp": at, "message": {"role": "user", "content": "one more", "timestamp": 1772359200000i64}});
    let a = serde_json::json!({"type": "message", "id": format!("live-a{seq}"), "parentId": format!("live-u{seq}"),
        "timestamp": at, "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
        "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "stop", "timestamp": 1772359200000i64,
        "usage": {"input": input, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": input + 5}}});
    for (k, e) in [u, a].iter().enumerate() {
        w.execute(
            "INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?1, ?2, ?3, 0)",
            rusqlite::params![I7_SID, seq + 1 + k as i64, e.to_string()],
        )
        .unwrap();
    }
}

/// OpenClaw's writer on the main database as it holds it while it runs: open, in WAL mode,
/// its -wal and -shm there from a first write on.
fn live_writer(h: &HostF) -> rusqlite::Connection {
    let w = h.writer("main");
    let mode: String = w
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    w.execute(
        "UPDATE session_nodes SET updated_at = updated_at WHERE session_key = ?1",
        [I7],
    )
    .unwrap();
    w
}

/// What a first load of the host as it is now shows (a new source, nothing kept).
fn cold(h: &HostF) -> Vec<clawtop::usecase::list::SessionRow> {
    store_adapter::snapshot(&h.source(), None)
        .rows
        .into_iter()
        .map(|r| r.list)
        .collect()
}

fn kept(
    src: &clawtop::source::SourceHandle,
    memo: &mut RowMemo,
) -> Vec<clawtop::usecase::list::SessionRow> {
    store_adapter::snapshot_kept(src, None, memo)
        .rows
        .into_iter()
        .map(|r| r.list)
        .collect()
}

#[test]
fn a_reload_reads_again_only_the_session_that_changed() {
    let h = HostF::new();
    let src = h.source();
    let mut memo = RowMemo::default();
    let first = kept(&src, &mut memo);
    assert_eq!(first.len(), 3);
    assert_eq!(memo.last_built, 3);
    assert_eq!(first, cold(&h));

    // Nothing changed: every row handed back, the same rows.
    assert_eq!(kept(&src, &mut memo), first);
    assert_eq!(memo.last_built, 0);

    // A turn on one session: that row only, and it follows the turn.
    append_turn(&h, 31_000);
    let after = kept(&src, &mut memo);
    assert_eq!(memo.last_built, 1);
    assert_eq!(after, cold(&h));
    let i7 = after.iter().find(|r| r.key() == I7).unwrap();
    let before = first.iter().find(|r| r.key() == I7).unwrap();
    assert_ne!(
        i7.transcript_context, before.transcript_context,
        "the row follows the turn"
    );

    // Rows deleted from the end (the same count as another append would make is not needed:
    // the last seq moves back).
    h.writer("main")
        .execute(
            "DELETE FROM transcript_events WHERE session_id = ?1 AND seq = (SELECT max(seq) FROM transcript_events WHERE session_id = ?1)",
            [I7_SID],
        )
        .unwrap();
    assert_eq!(kept(&src, &mut memo), cold(&h));
    assert_eq!(memo.last_built, 1);

    // The store row changed, the transcript not: that row again.
    h.writer("main")
        .execute(
            "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.updatedAt', 1772359300000) WHERE session_key = ?1",
            [I7],
        )
        .unwrap();
    assert_eq!(kept(&src, &mut memo), cold(&h));
    assert_eq!(memo.last_built, 1);
    assert_eq!(kept(&src, &mut memo), cold(&h));
    assert_eq!(memo.last_built, 0);
}

/// A reload after a change hands over only the rows of the sessions that changed when the
/// source can tell them (`store_adapter::snapshot_changed`: a patch), each as a first load
/// of the changed host shows it: a turn, an entry written. What the source cannot tell that
/// way (a session row added or deleted) asks for the whole list, after which patches go on.
#[test]
fn a_reload_hands_over_only_the_rows_that_changed() {
    use clawtop::usecase::list::SessionRow;
    let h = HostF::new();
    // A live host (a database read as an immutable file is opened again after any write,
    // and every reload is a whole one).
    let w = live_writer(&h);
    let src = h.source();
    let mut memo = RowMemo::default();
    let mut shown = kept(&src, &mut memo);
    assert_eq!(shown, cold(&h));
    let patch = |memo: &mut RowMemo| {
        store_adapter::snapshot_changed(&src, None, memo).map(|s| {
            assert!(s.patch);
            s.rows.into_iter().map(|r| r.list).collect::<Vec<_>>()
        })
    };
    // The first listing keeps no session rows (`read_sessions_kept`): the whole list again.
    assert!(patch(&mut memo).is_none());
    assert_eq!(kept(&src, &mut memo), shown);
    assert_eq!(patch(&mut memo), Some(vec![]), "nothing changed");
    let merge = |shown: &mut Vec<SessionRow>, rows: Vec<SessionRow>| {
        let keys: Vec<String> = rows.iter().map(|r| r.key().to_string()).collect();
        for r in rows {
            let i = shown.iter().position(|s| s.key() == r.key()).unwrap();
            shown[i] = r;
        }
        keys
    };
    append_turn(&h, 31_000);
    let rows = patch(&mut memo).expect("a turn is a patch");
    assert_eq!(merge(&mut shown, rows), [I7]);
    assert_eq!(shown, cold(&h));
    // OpenClaw writes the entry alone (its updated_at moves).
    h.writer("main")
        .execute(
            "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 4242), updated_at = updated_at + 1 WHERE session_key = ?1",
            [I7],
        )
        .unwrap();
    let rows = patch(&mut memo).expect("an entry written is a patch");
    assert_eq!(merge(&mut shown, rows), [I7]);
    assert_eq!(shown, cold(&h));
    assert_eq!(patch(&mut memo), Some(vec![]));
    // Another program edits the entry alone: OpenClaw's trigger marks it not yet valid.
    w.execute(
        "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 777) WHERE session_key = ?1",
        [I7],
    )
    .unwrap();
    let valid: i64 = w
        .query_row(
            "SELECT entry_valid FROM session_nodes WHERE session_key = ?1",
            [I7],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(valid, 0, "the fixture has OpenClaw's triggers");
    let rows = patch(&mut memo).expect("an entry edited is a patch");
    assert_eq!(merge(&mut shown, rows), [I7]);
    assert_eq!(shown, cold(&h));
    // A session row added, then deleted: each time the whole list.
    const ADDED: &str = "agent:main:added-31";
    for sql in [
        "INSERT INTO session_nodes(session_key, current_session_id, entry_json, entry_valid, updated_at) \
         SELECT ?1, current_session_id, entry_json, 1, updated_at FROM session_nodes WHERE session_key = ?2",
        "DELETE FROM session_nodes WHERE session_key = ?1 AND ?2 IS NOT NULL",
    ] {
        w.execute(sql, [ADDED, I7]).unwrap();
        assert!(patch(&mut memo).is_none());
        shown = kept(&src, &mut memo);
        assert_eq!(shown, cold(&h));
    }
    assert!(shown.iter().all(|r| r.key() != ADDED));
    append_turn(&h, 32_000);
    let rows = patch(&mut memo).expect("patches go on");
    assert_eq!(merge(&mut shown, rows), [I7]);
    assert_eq!(shown, cold(&h));
}

#[test]
fn a_reset_to_a_new_window_is_read_again() {
    let h = HostF::new();
    let src = h.source();
    let mut memo = RowMemo::default();
    kept(&src, &mut memo);
    // The session's rows move to a new window (a reset): its current_session_id changes.
    let w = h.writer("main");
    w.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    let new_sid = "00000000-0000-4000-8000-000000000031";
    w.execute(
        "UPDATE transcript_events SET session_id = ?1 WHERE session_id = ?2 AND seq <= 10",
        rusqlite::params![new_sid, I7_SID],
    )
    .unwrap();
    w.execute(
        "UPDATE session_nodes SET current_session_id = ?1 WHERE session_key = ?2",
        rusqlite::params![new_sid, I7],
    )
    .unwrap();
    let after = kept(&src, &mut memo);
    assert_eq!(memo.last_built, 1);
    assert_eq!(after, cold(&h));
}

/// The listing's rows kept between reads (`sqlite::entry::read_sessions_kept`): an entry
/// read again only when its row changed, the rows always those a whole read gives.
#[test]
fn kept_session_rows_are_read_again_only_when_they_change() {
    use clawtop::sqlite::{ReadOnlyDb, entry};
    let h = HostF::new();
    let mut kept = entry::RowsKept::default();
    let keys = |rows: &[entry::SessionRow]| {
        rows.iter()
            .map(|r| {
                (
                    r.key.clone(),
                    r.current_session_id.clone(),
                    r.updated_at,
                    r.entry.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    let read = |kept: &mut entry::RowsKept| {
        let db = ReadOnlyDb::open(&h.agent_db("main")).unwrap();
        let k = entry::read_sessions_kept(&db, kept, &|| None).unwrap();
        let whole = entry::read_sessions(&db).unwrap();
        assert_eq!(keys(&k), keys(&whole));
    };
    // The first read keeps nothing (a one-shot listing), the second keeps every row, the
    // third reads none again.
    read(&mut kept);
    let all = kept.last_read;
    assert!(all >= 1, "{all}");
    read(&mut kept);
    assert_eq!(kept.last_read, all);
    read(&mut kept);
    assert_eq!(kept.last_read, 0);
    // OpenClaw's write: the entry and its updated_at.
    h.writer("main")
        .execute(
            "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 1), updated_at = updated_at + 1 WHERE session_key = ?1",
            [I7],
        )
        .unwrap();
    read(&mut kept);
    assert_eq!(kept.last_read, 1);
    // An edit of the entry alone (another program): its length or entry_valid moves.
    h.writer("main")
        .execute(
            "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 123456) WHERE session_key = ?1",
            [I7],
        )
        .unwrap();
    read(&mut kept);
    assert_eq!(kept.last_read, 1);
    h.writer("main")
        .execute("DELETE FROM session_nodes WHERE session_key = ?1", [I7])
        .unwrap();
    read(&mut kept);
    assert_eq!(kept.last_read, 0);
}

/// A listing remembered between runs is taken whole, without a statement, by the first read
/// after it is recalled while the database's files carry the stamp they had when it was read
/// (docs/cache.md); another stamp, or none, reads the table.
#[test]
fn remembered_rows_are_taken_whole_while_the_files_have_not_moved() {
    use clawtop::sqlite::{ReadOnlyDb, entry};
    let h = HostF::new();
    let keys = |rows: &[entry::SessionRow]| {
        rows.iter()
            .map(|r| (r.key.clone(), r.updated_at, r.entry.clone()))
            .collect::<Vec<_>>()
    };
    let stamp = |s: Option<&'static str>| move || s.map(String::from);
    let remembering = || {
        let mut k = entry::RowsKept::default();
        k.remember = true;
        k
    };
    let db = ReadOnlyDb::open(&h.agent_db("main")).unwrap();
    let mut first = remembering();
    let read = entry::read_sessions_kept(&db, &mut first, &stamp(Some("A"))).unwrap();
    let text = first.remembered().unwrap();
    drop(db);
    // A write the injected stamp does not show: a real one moves with every commit.
    h.writer("main")
        .execute(
            "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 1), updated_at = updated_at + 1 WHERE session_key = ?1",
            [I7],
        )
        .unwrap();
    let db = ReadOnlyDb::open(&h.agent_db("main")).unwrap();
    let whole = entry::read_sessions(&db).unwrap();
    assert_ne!(keys(&read), keys(&whole));
    // The same stamp: the rows as remembered, in key order (the write unseen: nothing asked).
    let mut same = remembering();
    same.recall(&text);
    let k = entry::read_sessions_kept(&db, &mut same, &stamp(Some("A"))).unwrap();
    assert_eq!(keys(&k), keys(&read));
    assert_eq!(same.last_read, 0);
    assert!(!same.moved);
    // The next read of the same process compares columns: the write is seen.
    let k = entry::read_sessions_kept(&db, &mut same, &stamp(Some("A"))).unwrap();
    assert_eq!(keys(&k), keys(&whole));
    assert_eq!(same.last_read, 1);
    // Another stamp, or none: the table is asked, and the write seen.
    for files in [Some("B"), None] {
        let mut other = remembering();
        other.recall(&text);
        let k = entry::read_sessions_kept(&db, &mut other, &stamp(files)).unwrap();
        assert_eq!(keys(&k), keys(&whole), "{files:?}");
        assert_eq!(other.last_read, 1, "{files:?}");
    }
    // Files that moved under unchanged rows are remembered anew (the cache is written).
    let mut now = remembering();
    entry::read_sessions_kept(&db, &mut now, &stamp(Some("B"))).unwrap();
    let mut quiet = remembering();
    quiet.recall(&now.remembered().unwrap());
    let k = entry::read_sessions_kept(&db, &mut quiet, &stamp(Some("C"))).unwrap();
    assert_eq!(keys(&k), keys(&whole));
    assert_eq!(quiet.last_read, 0);
    assert!(quiet.moved);
}

/// The TUI's first load takes the rows the last run remembered on disk (docs/cache.md), and
/// its reloads then keep rows as a TUI that built them itself would: a second TUI start
/// reads no transcript, a turn rebuilds that one row, and what shows is always a cold load.
#[test]
fn a_first_load_takes_the_rows_the_last_run_remembered() {
    let h = HostF::new();
    let dir = tempfile::tempdir().unwrap();
    let first_start = |memo: &mut RowMemo| -> Vec<clawtop::usecase::list::SessionRow> {
        store_adapter::snapshot_remembered(&h.source(), None, dir.path(), memo)
            .rows
            .into_iter()
            .map(|r| r.list)
            .collect()
    };
    // A first TUI start: every row built, and remembered.
    let mut memo = RowMemo::default();
    assert_eq!(first_start(&mut memo), cold(&h));
    assert_eq!(memo.last_built, 3);
    // A second start: every row from the disk.
    let mut memo = RowMemo::default();
    let counts = crate::support::io_counts::IoCounts::default();
    let rows = counts.during(|| first_start(&mut memo));
    assert_eq!(rows, cold(&h));
    assert_eq!(memo.last_built, 0);
    assert_eq!(counts.get("transcript read"), 0, "nothing read again");
    // Its reloads: nothing changed, nothing built; a turn, that row.
    let src = h.source();
    assert_eq!(kept(&src, &mut memo), cold(&h));
    assert_eq!(memo.last_built, 0);
    append_turn(&h, 31_000);
    assert_eq!(kept(&src, &mut memo), cold(&h));
    assert_eq!(memo.last_built, 1);
}

/// The reload's tips of every session at once (`SessionSource::transcript_tips`, one
/// statement per database) are each session's own tip, through every way a transcript
/// changes: a turn, an in-place edit of the last row, rows deleted at either end, a reset to
/// a new window, a window emptied; a session the source does not know has none.
#[test]
fn tips_in_one_batch_are_each_sessions_tip() {
    use clawtop::source::SessionRef;
    let h = HostF::new();
    let src = h.source();
    let check = |what: &str| {
        let mut refs: Vec<SessionRef> = src
            .list(None)
            .sessions
            .iter()
            .map(|s| s.reference.clone())
            .collect();
        let mut unknown = refs[0].clone();
        unknown.key = "agent:main:no-such-session".into();
        refs.push(unknown);
        let each: Vec<_> = refs.iter().map(|r| src.transcript_tip(r)).collect();
        let batch = src.transcript_tips(&refs.iter().collect::<Vec<_>>());
        assert_eq!(batch, each, "{what}");
        assert!(
            batch[..batch.len() - 1].iter().all(Option::is_some),
            "{what}"
        );
        assert_eq!(batch.last(), Some(&None), "{what}");
        batch
    };
    let mut seen = vec![check("as found")];
    let w = h.writer("main");
    let mut step = |what: &str, sql: &str| {
        w.execute_batch(sql).unwrap();
        let now = check(what);
        assert!(!seen.contains(&now), "{what}: the tips did not move");
        seen.push(now);
    };
    append_turn(&h, 31_000);
    step("a turn", "");
    step(
        "the last row edited in place",
        &format!(
            "UPDATE transcript_events SET event_json = json_set(event_json, '$.message.content', 'edited') WHERE session_id = '{I7_SID}' AND seq = (SELECT max(seq) FROM transcript_events WHERE session_id = '{I7_SID}')"
        ),
    );
    step(
        "the last row deleted",
        &format!(
            "DELETE FROM transcript_events WHERE session_id = '{I7_SID}' AND seq = (SELECT max(seq) FROM transcript_events WHERE session_id = '{I7_SID}')"
        ),
    );
    step(
        "the first row deleted",
        &format!(
            "PRAGMA foreign_keys = OFF; DELETE FROM transcript_events WHERE session_id = '{I7_SID}' AND seq = (SELECT min(seq) FROM transcript_events WHERE session_id = '{I7_SID}')"
        ),
    );
    step(
        "a reset to a new window",
        &format!(
            "PRAGMA foreign_keys = OFF; UPDATE transcript_events SET session_id = 'new-window-31' WHERE session_id = '{I7_SID}' AND seq <= 10; UPDATE session_nodes SET current_session_id = 'new-window-31' WHERE session_key = '{I7}'"
        ),
    );
    step(
        "the window emptied",
        "DELETE FROM transcript_events WHERE session_id = 'new-window-31'",
    );
}

/// A reload reads the tips of the sessions whose rows changed since the last one, not every
/// session's (`sqlite::events::TipsSince`), and what it shows is still a first load's: a turn
/// reads one tip and builds that one row, which shows the turn; nothing changed, no tip and
/// no transcript is read.
#[test]
fn a_reload_reads_the_tip_of_the_session_that_changed_only() {
    use crate::support::io_counts::IoCounts;
    let h = HostF::new();
    let src = h.source();
    let mut memo = RowMemo::default();
    let counts = IoCounts::default();
    let first = counts.during(|| kept(&src, &mut memo));
    assert_eq!(
        counts.get("transcript tip"),
        3,
        "the first reload reads every tip"
    );

    let counts = IoCounts::default();
    assert_eq!(counts.during(|| kept(&src, &mut memo)), first);
    assert_eq!(
        counts.get("transcript tip"),
        0,
        "nothing changed: no tip read"
    );
    assert_eq!(
        counts.get("transcript read"),
        0,
        "nothing changed: no transcript read"
    );
    assert_eq!(memo.last_built, 0);

    append_turn(&h, 31_000);
    let counts = IoCounts::default();
    let after = counts.during(|| kept(&src, &mut memo));
    assert_eq!(counts.get("transcript tip"), 1, "one session got a turn");
    assert_eq!(counts.get("transcript read"), 1);
    assert_eq!(memo.last_built, 1);
    assert_eq!(after, cold(&h));
    let i7 = |rows: &[clawtop::usecase::list::SessionRow]| {
        rows.iter()
            .find(|r| r.key() == I7)
            .and_then(|r| r.transcript_context.clone())
            .map(|c| c.tokens)
    };
    assert_ne!(i7(&after), i7(&first), "the row follows the turn");
    assert_eq!(
        after.iter().filter(|r| r.key() != I7).collect::<Vec<_>>(),
        first.iter().filter(|r| r.key() != I7).collect::<Vec<_>>(),
        "the other rows are as they were"
    );
}

/// The tips kept between reloads are what a whole read gives through everything that is not
/// an append, each seen at the reload right after it: rows deleted, the top row replaced by
/// another session's row with the same rowid, a rewrite (a new generation), a session's rows
/// moved to a new window; and an edit in place of a row below the top one, which none of the
/// table's marks show, at the next whole read (`TIPS_FULL_EVERY`).
#[test]
fn kept_tips_see_every_change_a_whole_read_sees() {
    use clawtop::sqlite::ReadOnlyDb;
    use clawtop::sqlite::events::{TIPS_FULL_EVERY, TipsSince, tips};
    let h = HostF::new();
    let path = h.agent_db("main");
    // The session with rows, and one without (yet).
    const OTHER: &str = "other-window-31";
    let ids: Vec<String> = vec![I7_SID.to_string(), OTHER.to_string()];
    let mut since = TipsSince::default();
    let check = |what: &str, since: &mut TipsSince| -> usize {
        let db = ReadOnlyDb::open(&path).unwrap();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let kept: Vec<_> = since
            .tips(&db, &ids)
            .unwrap()
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let whole: Vec<_> = tips(&db, &ids)
            .unwrap()
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(kept, whole, "{what}");
        since.last_read
    };
    assert_eq!(check("first", &mut since), ids.len());
    assert_eq!(check("unchanged", &mut since), 0);
    append_turn(&h, 31_000);
    assert_eq!(check("a turn", &mut since), 1);
    let w = h.writer("main");
    let top = |w: &rusqlite::Connection| -> i64 {
        w.query_row("SELECT max(rowid) FROM transcript_events", [], |r| r.get(0))
            .unwrap()
    };
    // The top row deleted and another session's row given its rowid: the count is as it was.
    let t = top(&w);
    w.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    w.execute("DELETE FROM transcript_events WHERE rowid = ?1", [t])
        .unwrap();
    w.execute(
        "INSERT INTO transcript_events(rowid, session_id, seq, event_json, created_at) VALUES (?1, ?2, 1000000, '{}', 0)",
        rusqlite::params![t, OTHER],
    )
    .unwrap();
    assert_eq!(check("the top row replaced", &mut since), ids.len());
    w.execute(
        "DELETE FROM transcript_events WHERE session_id = ?1 AND seq = (SELECT min(seq) FROM transcript_events WHERE session_id = ?1)",
        [I7_SID],
    )
    .unwrap();
    assert_eq!(check("the first row deleted", &mut since), ids.len());
    w.execute(
        "UPDATE transcript_rewrite_watermarks SET generation = 'moved-31' WHERE session_id = ?1",
        [I7_SID],
    )
    .unwrap();
    assert_eq!(check("a rewrite", &mut since), ids.len());
    // An edit in place below the top row: no mark moves; the whole read every
    // TIPS_FULL_EVERY calls sees it.
    w.execute(
        "UPDATE transcript_events SET event_json = json_set(event_json, '$.edited', 'yes, at length') WHERE session_id = ?1 AND seq = (SELECT max(seq) FROM transcript_events WHERE session_id = ?1)",
        [I7_SID],
    )
    .unwrap();
    let db = ReadOnlyDb::open(&path).unwrap();
    let i7 = |since: &mut TipsSince| since.tips(&db, &[I7_SID]).unwrap().pop().unwrap().unwrap();
    let whole = tips(&db, &[I7_SID]).unwrap().pop().unwrap().unwrap();
    let mut seen_at = None;
    for n in 0..TIPS_FULL_EVERY {
        if i7(&mut since) == whole {
            seen_at = Some(n);
            break;
        }
    }
    assert!(seen_at.is_some(), "seen within {TIPS_FULL_EVERY} calls");
}

/// The listing reads through a connection kept between reloads, and a write made after that
/// connection opened is seen by the next listing: OpenClaw's writer holds the database open
/// in WAL mode, as it does while it runs.
#[test]
fn a_kept_connection_sees_a_write_made_after_it_opened() {
    use crate::support::io_counts::IoCounts;
    let h = HostF::new();
    let w = live_writer(&h);
    let src = h.source();
    let tokens = |src: &clawtop::source::SourceHandle| {
        src.list(None)
            .sessions
            .iter()
            .find(|s| s.key() == I7)
            .and_then(|s| s.entry.total_tokens())
    };
    let before = tokens(&src);
    let counts = IoCounts::default();
    counts.during(|| {
        w.execute(
            "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 123457), updated_at = updated_at + 1 WHERE session_key = ?1",
            [I7],
        )
        .unwrap();
        assert_eq!(tokens(&src), Some(123_457), "the write is seen");
        assert_ne!(before, Some(123_457));
    });
    assert_eq!(
        counts.get("database opened"),
        0,
        "read through the kept connection"
    );
}

/// `TipsSince::appended` names every session appended to since it last answered, even when
/// a tip read for some sessions only (a reload of the changed sessions) saw the others'
/// appends first; and a change that is more than appends, seen by such a read, makes the
/// next `appended` say it cannot tell (seen by a read of every session, it does not).
#[test]
fn appends_seen_by_a_read_of_other_sessions_are_named_next() {
    use clawtop::sqlite::ReadOnlyDb;
    use clawtop::sqlite::events::TipsSince;
    const OTHER: &str = "other-window-32";
    let h = HostF::new();
    let path = h.agent_db("main");
    let db = || ReadOnlyDb::open(&path).unwrap();
    let append = |sid: &str| {
        let w = h.writer("main");
        w.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
        let seq: i64 = w
            .query_row(
                "SELECT coalesce(max(seq), -1) + 1 FROM transcript_events WHERE session_id = ?1",
                [sid],
                |r| r.get(0),
            )
            .unwrap();
        w.execute(
            "INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?1, ?2, '{}', 0)",
            rusqlite::params![sid, seq],
        )
        .unwrap();
    };
    let named = |since: &mut TipsSince| -> Option<Vec<String>> {
        since.appended(&db()).unwrap().map(|s| {
            let mut v: Vec<String> = s.into_iter().collect();
            v.sort();
            v
        })
    };
    let mut since = TipsSince::default();
    assert_eq!(named(&mut since), None, "nothing seen yet");
    since.tips(&db(), &[I7_SID, OTHER]).unwrap();
    assert_eq!(named(&mut since), Some(vec![]));
    append(I7_SID);
    assert_eq!(named(&mut since), Some(vec![I7_SID.to_string()]));
    // OTHER is appended to, and a read of I7's tip alone sees it first.
    append(OTHER);
    since.tips_of(&db(), &[I7_SID], false).unwrap();
    assert_eq!(named(&mut since), Some(vec![OTHER.to_string()]));
    assert_eq!(named(&mut since), Some(vec![]), "named once");
    // Rows deleted, seen by a read of I7's tip alone: the next answer cannot tell.
    h.writer("main")
        .execute(
            "DELETE FROM transcript_events WHERE session_id = ?1 AND seq = (SELECT min(seq) FROM transcript_events WHERE session_id = ?1)",
            [I7_SID],
        )
        .unwrap();
    since.tips_of(&db(), &[I7_SID], false).unwrap();
    assert_eq!(named(&mut since), None);
    // Read for every session instead, the whole listing that follows knows it all.
    h.writer("main")
        .execute(
            "DELETE FROM transcript_events WHERE session_id = ?1 AND seq = (SELECT min(seq) FROM transcript_events WHERE session_id = ?1)",
            [I7_SID],
        )
        .unwrap();
    since.tips(&db(), &[I7_SID, OTHER]).unwrap();
    assert_eq!(named(&mut since), Some(vec![]));
}

/// The patch path of a live host whose other agent database holds no session rows (an agent
/// just added), and where one session's `updated_at` is dated ahead of the clock: reloads are
/// still patches, and a write to another session is named.
#[test]
fn patches_go_on_beside_an_empty_database_and_a_row_dated_ahead() {
    let h = HostF::new();
    h.writer("ops")
        .execute_batch("PRAGMA foreign_keys = OFF; DELETE FROM session_nodes;")
        .unwrap();
    let w = live_writer(&h);
    // A second session in main, its row dated a day ahead of the clock.
    const AHEAD: &str = "agent:main:ahead-32";
    w.execute(
        "INSERT INTO session_nodes(session_key, current_session_id, entry_json, entry_valid, updated_at) \
         SELECT ?1, 'ahead-window-32', json_set(entry_json, '$.sessionId', 'ahead-window-32'), 1, ?3 FROM session_nodes WHERE session_key = ?2",
        rusqlite::params![AHEAD, I7, chrono::Utc::now().timestamp_millis() + 86_400_000],
    )
    .unwrap();
    let src = h.source();
    let mut memo = RowMemo::default();
    kept(&src, &mut memo);
    let shown = kept(&src, &mut memo);
    assert_eq!(shown, cold(&h));
    assert!(shown.iter().any(|r| r.key() == AHEAD));
    let patch = |memo: &mut RowMemo| {
        store_adapter::snapshot_changed(&src, None, memo).map(|s| {
            s.rows
                .into_iter()
                .map(|r| r.list.key().to_string())
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(
        patch(&mut memo),
        Some(vec![]),
        "the empty database stops nothing"
    );
    // OpenClaw writes I7's entry with the time now, below the row dated ahead, and has
    // validated it again (its trigger cleared entry_valid) before the reload.
    w.execute(
        "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 5151), updated_at = ?2 WHERE session_key = ?1",
        rusqlite::params![I7, chrono::Utc::now().timestamp_millis()],
    )
    .unwrap();
    w.execute(
        "UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?1",
        [I7],
    )
    .unwrap();
    assert_eq!(patch(&mut memo), Some(vec![I7.to_string()]));
}
