//! The rows cache on a SQLite host (`usecase::rows_cache`, docs/cache.md): unchanged
//! sessions are not read again; appended rows, deleted rows, an edited row and a session
//! switched to another window (a reset) give the row a cold run gives.

use super::common::HostF;
use crate::support::io_counts::IoCounts;
use clawtop::source::SourceHandle;
use std::path::Path;

const OPS_MAIN: &str = "d23fd5eb-104f-4895-97d4-898265597e9c";

fn source(h: &HostF) -> SourceHandle {
    let opts = clawtop::store::Options {
        state_dir: Some(h.state()),
        ..Default::default()
    };
    let host = clawtop::store::Host::open(&opts, &clawtop::store::Env::default()).unwrap();
    clawtop::source::for_host(host)
}

fn list_json(source: &SourceHandle, cache: Option<&Path>) -> (String, IoCounts) {
    let counts = IoCounts::default();
    let opts = clawtop::usecase::list::Options {
        cache,
        ..Default::default()
    };
    let r = counts.during(|| clawtop::usecase::list::build(source.as_ref(), &opts));
    (clawtop::report::json::to_string(&r), counts)
}

struct Case {
    h: HostF,
    cache: tempfile::TempDir,
}

impl Case {
    fn new() -> Case {
        Case {
            h: HostF::new(),
            cache: tempfile::tempdir().unwrap(),
        }
    }
    fn warm(&self) -> (String, IoCounts) {
        list_json(&source(&self.h), Some(self.cache.path()))
    }
    fn cold(&self) -> String {
        list_json(&source(&self.h), None).0
    }
    /// Lists twice: the second run reads no transcript and prints the same.
    fn primed(&self) -> (String, usize) {
        let (first, counts) = self.warm();
        let read = counts.get("transcript read");
        assert!(read >= 3, "every session measured: {read}");
        assert_eq!(first, self.cold());
        let (second, counts) = self.warm();
        assert_eq!(counts.get("transcript read"), 0, "remembered");
        assert_eq!(counts.get("rows cache read"), 1);
        assert_eq!(second, first);
        (first, read)
    }
    /// After a change to one session, only it is read again, and the output is a cold run's.
    fn after_change(&self, before: &str) {
        let warm = self.seen_again();
        assert_ne!(warm, before, "the change shows");
    }
    /// Only the changed session is read again, and the output is a cold run's; then it is
    /// remembered again.
    fn seen_again(&self) -> String {
        let (warm, counts) = self.warm();
        assert_eq!(counts.get("transcript read"), 1, "only the changed session");
        assert_eq!(warm, self.cold());
        let (again, counts) = self.warm();
        assert_eq!(counts.get("transcript read"), 0);
        assert_eq!(again, warm);
        warm
    }
}

#[test]
fn appended_rows_are_seen() {
    let c = Case::new();
    let (before, _) = c.primed();
    let w = c.h.writer("ops");
    w.execute(
        "INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?1, 14, ?2, 0)",
        rusqlite::params![
            OPS_MAIN,
            serde_json::json!({"type": "message", "id": "appended-1", "parentId": null, "timestamp": "2026-11-23T18:10:00.000Z",
                "message": {"role": "user", "content": "one more", "timestamp": 1}}).to_string()
        ],
    )
    .unwrap();
    drop(w);
    c.after_change(&before);
}

#[test]
fn deleted_rows_are_seen() {
    let c = Case::new();
    let (before, _) = c.primed();
    let w = c.h.writer("ops");
    let n = w
        .execute(
            "DELETE FROM transcript_events WHERE session_id = ?1 AND seq >= 10",
            [OPS_MAIN],
        )
        .unwrap();
    assert!(n > 0);
    drop(w);
    c.after_change(&before);
}

/// A reset: the session's current window becomes a new transcript (here the first rows of
/// the old one under a new id), so its figures are measured under a new key.
#[test]
fn a_session_switched_to_a_new_window_is_seen() {
    let c = Case::new();
    let (before, _) = c.primed();
    let w = c.h.writer("ops");
    w.execute_batch(&format!(
        "PRAGMA foreign_keys = OFF;
         INSERT INTO transcript_events(session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json)
           SELECT 'new-window', seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json
           FROM transcript_events WHERE session_id = '{OPS_MAIN}' AND seq < 8;
         UPDATE session_nodes SET current_session_id = 'new-window' WHERE current_session_id = '{OPS_MAIN}';"
    ))
    .unwrap();
    drop(w);
    c.after_change(&before);
}

/// A SQLite host's cache file is one per state dir, and `--no-cache` (no cache dir) gives
/// the same bytes.
#[test]
fn one_cache_file_per_host() {
    let c = Case::new();
    c.primed();
    let files: Vec<_> = std::fs::read_dir(c.cache.path().join("rows"))
        .unwrap()
        .collect();
    assert_eq!(files.len(), 1);
    let other = Case::new();
    list_json(&source(&other.h), Some(c.cache.path()));
    let files: Vec<_> = std::fs::read_dir(c.cache.path().join("rows"))
        .unwrap()
        .collect();
    assert_eq!(files.len(), 2, "another state dir, another file");
}

/// The last row rewritten in place with the same length (an edit OpenClaw never makes, a
/// repair tool might): the stamp's hash of the last row sees it.
#[test]
fn an_edited_last_row_is_seen() {
    let c = Case::new();
    c.primed();
    let w = c.h.writer("ops");
    let (seq, json): (i64, String) = w
        .query_row(
            "SELECT seq, event_json FROM transcript_events WHERE session_id = ?1 AND event_json IS NOT NULL ORDER BY seq DESC LIMIT 1",
            [OPS_MAIN],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let edited = json.replacen("\"timestamp\":17", "\"timestamp\":18", 1);
    assert_ne!(edited, json);
    assert_eq!(edited.len(), json.len());
    w.execute(
        "UPDATE transcript_events SET event_json = ?1 WHERE session_id = ?2 AND seq = ?3",
        rusqlite::params![edited, OPS_MAIN, seq],
    )
    .unwrap();
    drop(w);
    c.seen_again();
}

/// A list of one agent and a list of all share what is remembered: neither reads a
/// transcript the other measured, and the one-agent list forgets no other agent's rows.
#[test]
fn one_agents_list_and_the_whole_list_share_the_cache() {
    let c = Case::new();
    c.primed();
    let list = |agent: Option<&str>| {
        let counts = IoCounts::default();
        let opts = clawtop::usecase::list::Options {
            agent,
            cache: Some(c.cache.path()),
            ..Default::default()
        };
        let src = source(&c.h);
        let r = counts.during(|| clawtop::usecase::list::build(src.as_ref(), &opts));
        (r.sessions.len(), counts.get("transcript read"))
    };
    let (ops, read) = list(Some("ops"));
    assert!(ops >= 1);
    assert_eq!(read, 0, "the ops rows were remembered by the whole list");
    let (all, read) = list(None);
    assert!(all > ops);
    assert_eq!(read, 0, "and the main rows are still remembered");
}

/// A database changed less than `source::stamp::SETTLE` (1 s) ago has no stamp as a whole:
/// wait past it, as a host's databases are between turns.
fn settle() {
    std::thread::sleep(std::time::Duration::from_millis(1100));
}

/// Appends the row `event_json` at `seq` to the ops agent's main session, as OpenClaw does.
fn append_to_ops_main(h: &HostF, seq: i64, event_json: &str) {
    h.writer("ops")
        .execute(
            "INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?1, ?2, ?3, 0)",
            rusqlite::params![OPS_MAIN, seq, event_json],
        )
        .unwrap();
}

/// Deletes every row of the ops agent's main session.
fn empty_ops_main(h: &HostF) {
    h.writer("ops")
        .execute(
            "DELETE FROM transcript_events WHERE session_id = ?1",
            [OPS_MAIN],
        )
        .unwrap();
}

/// `check` of `h` as it is, after `event_json` is appended to the ops session, and after that
/// session's rows are all deleted: each change changes what it gives.
fn across_changes<T: PartialEq + std::fmt::Debug>(
    h: &HostF,
    event_json: &str,
    check: impl Fn(&HostF) -> T,
) {
    let first = check(h);
    append_to_ops_main(h, 14, event_json);
    let appended = check(h);
    assert_ne!(appended, first);
    empty_ops_main(h);
    let emptied = check(h);
    assert_ne!(emptied, appended);
}

/// A user message past the size a session is read whole at (1 MiB): the session holding it
/// is read by indexing its rows.
fn long_message() -> String {
    serde_json::json!({"type": "message", "id": "long-1", "parentId": null,
        "timestamp": "2026-11-23T18:10:00.000Z",
        "message": {"role": "user", "content": "x".repeat(1_200_000), "timestamp": 1}})
    .to_string()
}

/// A database no write touched since the last run (its file and `-wal` as they were) is not
/// stamped session by session: every session's stamp is the one kept. A write to it, seen
/// at once or only after it settled, makes its sessions stamped again, and the changed one
/// read again; the other database's sessions are still not stamped.
#[test]
fn a_quiet_database_is_not_stamped_session_by_session() {
    let c = Case::new();
    let (before, _) = c.primed();
    settle();
    // The databases are stamped now: every session once more, nothing read, and the
    // databases' stamps written for the next run.
    let (out, counts) = c.warm();
    assert_eq!(out, before);
    let sessions = counts.get("transcript stamped");
    assert!(sessions >= 3, "every session stamped: {sessions}");
    assert_eq!(counts.get("transcript read"), 0);
    assert_eq!(
        counts.get("rows cache written"),
        1,
        "the stores' stamps kept"
    );
    let (out, counts) = c.warm();
    assert_eq!(out, before);
    assert_eq!(counts.get("transcript stamped"), 0, "quiet databases");
    assert_eq!(counts.get("transcript read"), 0);
    assert_eq!(counts.get("rows cache written"), 0, "nothing new to keep");
    let cold: serde_json::Value = serde_json::from_str(&c.cold()).unwrap();
    let ops_sessions = cold["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["agentId"] == "ops")
        .count();
    assert!(ops_sessions >= 1 && ops_sessions < sessions);
    for seq in [14, 15] {
        // Every database's stamp as it is now kept (a no-op the first time).
        settle();
        assert_eq!(c.warm().0, list_json(&source(&c.h), None).0);
        let w = c.h.writer("ops");
        w.execute(
            "INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?1, ?2, ?3, 0)",
            rusqlite::params![
                OPS_MAIN,
                seq,
                serde_json::json!({"type": "message", "id": format!("appended-{seq}"), "parentId": null, "timestamp": "2026-11-23T18:10:00.000Z",
                    "message": {"role": "user", "content": "one more", "timestamp": 1}}).to_string()
            ],
        )
        .unwrap();
        drop(w);
        if seq == 15 {
            // Seen by its stamp after the write settled, not only by its recency.
            settle();
        }
        let (warm, counts) = c.warm();
        assert_eq!(counts.get("transcript read"), 1, "the appended session");
        assert_eq!(
            counts.get("transcript stamped"),
            ops_sessions,
            "the written database's sessions only"
        );
        assert_eq!(warm, c.cold());
        assert_ne!(warm, before);
    }
}

/// Stamps asked for many sessions at once are the stamps asked one by one, on every session
/// of the 2026.9.6 fixture, after its transcripts change (rows appended, a session's rows all
/// deleted), and for a session the source does not know.
#[test]
fn batched_stamps_are_the_stamps_one_by_one() {
    let h = HostF::new();
    let check = |h: &HostF| {
        let src = source(h);
        let listing = src.list(None);
        let mut refs: Vec<clawtop::source::SessionRef> = listing
            .sessions
            .iter()
            .map(|s| s.reference.clone())
            .collect();
        assert!(refs.len() >= 3);
        let mut unknown = refs[0].clone();
        unknown.key = "agent:ops:no-such-session".into();
        refs.push(unknown);
        let refs: Vec<&clawtop::source::SessionRef> = refs.iter().collect();
        let one_by_one: Vec<_> = refs.iter().map(|r| src.transcript_stamp(r)).collect();
        assert_eq!(src.transcript_stamps(&refs), one_by_one);
        assert!(one_by_one[..refs.len() - 1].iter().all(Option::is_some));
        assert_eq!(
            one_by_one.last(),
            Some(&None),
            "an unknown session has none"
        );
        one_by_one
    };
    across_changes(&h, "{}", check);
}

/// A SQLite host's listing is remembered with its rows (`SessionSource::listing_memory`):
/// the next run reads no `entry_json`; an entry OpenClaw writes is read again alone, a row
/// deleted is gone; a remembered listing that does not read back is ignored (every entry
/// read). Every output is a cold run's.
#[test]
fn the_listing_is_remembered_and_only_changed_entries_are_read() {
    let c = Case::new();
    let (first, counts) = c.warm();
    let all = counts.get("session entry read");
    assert!(all >= 3, "every entry read: {all}");
    let (second, counts) = c.warm();
    assert_eq!(counts.get("session entry read"), 0, "remembered");
    assert_eq!(second, first);
    let key: String =
        c.h.writer("ops")
            .query_row(
                "SELECT session_key FROM session_nodes ORDER BY session_key LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
    // OpenClaw's write: the entry and its updated_at.
    c.h.writer("ops")
        .execute(
            "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 4242), updated_at = updated_at + 1 WHERE session_key = ?1",
            [&key],
        )
        .unwrap();
    let (third, counts) = c.warm();
    assert_eq!(
        counts.get("session entry read"),
        1,
        "the written entry only"
    );
    assert_eq!(third, c.cold());
    assert_ne!(third, first);
    assert!(third.contains("4242"));
    let (again, counts) = c.warm();
    assert_eq!(counts.get("session entry read"), 0);
    assert_eq!(again, third);
    c.h.writer("ops")
        .execute("DELETE FROM session_nodes WHERE session_key = ?1", [&key])
        .unwrap();
    let (fourth, counts) = c.warm();
    assert_eq!(counts.get("session entry read"), 0);
    assert_eq!(fourth, c.cold());
    assert!(!fourth.contains(&format!("\"{key}\"")));
    // The remembered listing replaced by something this build did not write: ignored.
    let file = std::fs::read_dir(c.cache.path().join("rows"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut v = clawtop::usecase::rows_cache::to_json(&std::fs::read(&file).unwrap()).unwrap();
    // The source's memory: per database, its rows (MessagePack, opaque to the cache file).
    let listing: Vec<u8> =
        serde_json::from_value(v["listing"].clone()).expect("a listing remembered");
    let by_db: std::collections::BTreeMap<String, serde_bytes::ByteBuf> =
        rmp_serde::from_slice(&listing).unwrap();
    assert!(!by_db.is_empty());
    let foreign =
        rmp_serde::to_vec_named(&serde_json::json!({"readWholeAt": "yesterday", "rows": 3}))
            .unwrap();
    let replaced: std::collections::BTreeMap<String, serde_bytes::ByteBuf> = by_db
        .keys()
        .map(|db| (db.clone(), serde_bytes::ByteBuf::from(foreign.clone())))
        .collect();
    v["listing"] = serde_json::json!(rmp_serde::to_vec_named(&replaced).unwrap());
    std::fs::write(&file, clawtop::usecase::rows_cache::from_json(&v).unwrap()).unwrap();
    let (fifth, counts) = c.warm();
    assert_eq!(
        counts.get("session entry read"),
        all - 1,
        "every entry read"
    );
    assert_eq!(fifth, fourth);
}

/// A session row whose entry does not parse is read every run (it is not remembered), and
/// that alone does not write the cache file again each run, also once the databases settled:
/// such a listing is remembered with no stamp of its files, and a stamp the next run takes
/// always differs from none (the review of 8073052: the cache was written every run).
#[test]
fn an_unreadable_entry_does_not_rewrite_the_cache_every_run() {
    let c = Case::new();
    c.h.writer("ops")
        .execute(
            "UPDATE session_nodes SET entry_json = '[]' WHERE session_key = (SELECT session_key FROM session_nodes ORDER BY session_key LIMIT 1)",
            [],
        )
        .unwrap();
    let (first, _) = c.warm();
    let (second, _) = c.warm();
    assert_eq!(second, first);
    let (third, counts) = c.warm();
    assert_eq!(third, first);
    assert_eq!(
        counts.get("session entry read"),
        1,
        "the unreadable entry, again"
    );
    assert_eq!(counts.get("rows cache written"), 0, "nothing new to keep");
    settle();
    let (fourth, _) = c.warm();
    assert_eq!(fourth, first);
    let (fifth, counts) = c.warm();
    assert_eq!(fifth, first);
    assert_eq!(counts.get("rows cache written"), 0, "nothing new to keep");
    let (_, counts) = c.warm();
    assert_eq!(counts.get("rows cache written"), 0, "nothing new to keep");
}

/// `clawtop KEY`'s row read alone takes the remembered row of that session (decoding no
/// other): no transcript is read, and the row is the one read without the cache.
#[test]
fn the_named_session_row_is_taken_from_the_cache_alone() {
    use clawtop::tui::store_adapter;
    let c = Case::new();
    let (_, _) = c.warm();
    let src = source(&c.h);
    let key = src.list(None).sessions[0].key().to_string();
    let rows = |cache: Option<&Path>| {
        let counts = IoCounts::default();
        let snap = counts
            .during(|| store_adapter::snapshot_named_remembered(&source(&c.h), None, &key, cache))
            .expect("read alone");
        let rows: Vec<_> = snap.rows.into_iter().map(|r| r.list).collect();
        (rows, counts.get("transcript read"))
    };
    let (without, read) = rows(None);
    assert_eq!(read, 1, "measured without the cache");
    let (with, read) = rows(Some(c.cache.path()));
    assert_eq!(read, 0, "remembered");
    assert_eq!(with, without);
    assert_eq!(with.len(), 1);
}

/// Review of 8073052: an agent database reached through a symbolic link (SQLite keeps its
/// `-wal` beside the link's target) in WAL mode with OpenClaw's writer open. The listing's
/// stamp is `of_database(link)`, which looks for `<link>-wal` (absent): a commit that only
/// appends to the target's `-wal` does not move it, and the remembered listing is taken
/// whole, stale.
#[test]
fn a_symlinked_wal_database_write_is_seen() {
    let c = Case::new();
    let db = c.h.agent_db("main");
    let elsewhere = c.h.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let real = elsewhere.join("openclaw-agent.sqlite");
    std::fs::rename(&db, &real).unwrap();
    std::os::unix::fs::symlink(&real, &db).unwrap();
    // OpenClaw's writer, open for the whole test (no checkpoint on close).
    let w = c.h.writer("main");
    let mode: String = w
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let key: String = w
        .query_row(
            "SELECT session_key FROM session_nodes ORDER BY session_key LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    w.execute(
        "UPDATE session_nodes SET updated_at = updated_at WHERE session_key = ?1",
        [&key],
    )
    .unwrap();
    assert!(elsewhere.join("openclaw-agent.sqlite-wal").exists());
    settle();
    let (first, _) = c.warm();
    let (second, _) = c.warm();
    assert_eq!(second, first);
    w.execute(
        "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 4242), updated_at = updated_at + 1 WHERE session_key = ?1",
        [&key],
    )
    .unwrap();
    settle();
    let cold = c.cold();
    assert!(cold.contains("4242"));
    let (third, _) = c.warm();
    assert_eq!(third, cold, "the write shows");
}

/// A quiet host's warm run asks its databases for no session row (docs/cache.md, "A SQLite
/// host's listing"): the listing is taken whole under the databases' stamps, through the
/// real stamps and the real listing. A commit moves the stamp: the next run compares the
/// rows' columns, reads the one that changed and prints what a cold run prints.
#[test]
fn a_quiet_host_is_listed_without_asking_for_a_row() {
    let c = Case::new();
    let (first, _) = c.warm();
    settle();
    // The stamps of the first run were taken while the fixture's files were new: none.
    let (second, counts) = c.warm();
    assert_eq!(second, first);
    assert!(counts.get("session columns read") >= 1);
    let (third, counts) = c.warm();
    assert_eq!(third, first);
    assert_eq!(counts.get("session columns read"), 0, "taken whole");
    assert_eq!(counts.get("session entry read"), 0);
    assert_eq!(counts.get("rows cache written"), 0);
    c.h.writer("ops")
        .execute(
            "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 4243), updated_at = updated_at + 1 WHERE current_session_id = ?1",
            [OPS_MAIN],
        )
        .unwrap();
    settle();
    let cold = c.cold();
    assert!(cold.contains("4243"));
    let (fourth, counts) = c.warm();
    assert_eq!(fourth, cold, "the write shows");
    assert!(counts.get("session columns read") >= 1);
    assert_eq!(
        counts.get("session entry read"),
        1,
        "only the row that changed"
    );
    let (fifth, counts) = c.warm();
    assert_eq!(fifth, cold);
    assert_eq!(counts.get("session columns read"), 0, "taken whole again");
}

/// The stamp a list takes from a transcript read (`SessionSource::stamp_of_read`, read whole
/// or indexed) is the stamp asked of the database (`transcript_stamp`), on every session of
/// the 2026.9.6 fixture; after a row too long to read whole is appended (the indexed read);
/// and after a session's rows are all deleted. Outside a list's read there is none.
#[test]
fn stamps_of_reads_are_the_stamps_asked() {
    let h = HostF::new();
    let check = |h: &HostF| {
        let src = source(h);
        let listing = src.list(None);
        let refs: Vec<&clawtop::source::SessionRef> =
            listing.sessions.iter().map(|s| &s.reference).collect();
        assert!(refs.len() >= 3);
        let mut of_reads = Vec::new();
        src.read_together(&mut || {
            for r in &refs {
                src.open_transcript_for_figures(r).expect("opens");
                of_reads.push(src.stamp_of_read(r));
            }
        });
        let asked: Vec<_> = refs.iter().map(|r| src.transcript_stamp(r)).collect();
        assert!(of_reads.iter().all(Option::is_some), "{of_reads:?}");
        assert_eq!(of_reads, asked);
        assert_eq!(src.stamp_of_read(refs[0]), None, "outside a list's read");
        asked
    };
    across_changes(&h, &long_message(), check);
}

/// A session whose transcript was opened before the list (a TUI opened on it: its rows
/// index kept, so the list reads only rows appended since and cannot work the stamp out from
/// that read) still gets its row kept, stamped in the list's read transaction: the next run
/// reads nothing, and prints what a cold run prints.
#[test]
fn a_transcript_opened_before_the_list_is_still_remembered() {
    let c = Case::new();
    append_to_ops_main(&c.h, 14, &long_message());
    settle();
    let src = source(&c.h);
    let listing = src.list(None);
    let opened = listing
        .sessions
        .iter()
        .find(|s| {
            s.transcript
                .as_deref()
                .is_some_and(|t| t.contains(OPS_MAIN))
        })
        .expect("the long session");
    src.open_transcript(&opened.reference).expect("opens");
    let (first, counts) = list_json(&src, Some(c.cache.path()));
    assert!(counts.get("transcript read") >= 3);
    assert_eq!(
        counts.get("transcript stamped"),
        0,
        "no session stamped ahead"
    );
    let (second, counts) = c.warm();
    assert_eq!(counts.get("transcript read"), 0, "every row kept");
    assert_eq!(second, first);
    assert_eq!(second, c.cold());
}
