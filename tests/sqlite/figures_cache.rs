//! The figures cache on a SQLite host (`numbers::cache`, docs/cache.md): unchanged rows are
//! not read again; appended rows, deleted rows and a session switched to another window
//! (a reset) give the figures a cold run gives.

use super::common::HostF;
use crate::support::io_counts::IoCounts;
use clawtop::source::SourceHandle;
use std::path::Path;

const OPS_MAIN: &str = "d23fd5eb-104f-4895-97d4-898265597e9c";

fn source(h: &HostF, cache: Option<&Path>) -> SourceHandle {
    let opts = clawtop::store::Options {
        state_dir: Some(h.state()),
        ..Default::default()
    };
    let mut host = clawtop::store::Host::open(&opts, &clawtop::store::Env::default()).unwrap();
    host.figures_cache = cache.map(Path::to_path_buf);
    clawtop::source::for_host(host)
}

fn list_json(source: &SourceHandle) -> (String, IoCounts) {
    let counts = IoCounts::default();
    let r = counts.during(|| clawtop::usecase::list::build(source.as_ref(), &Default::default()));
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
        list_json(&source(&self.h, Some(self.cache.path())))
    }
    fn cold(&self) -> String {
        list_json(&source(&self.h, None)).0
    }
    /// Lists twice: the second run reads no transcript and prints the same.
    fn primed(&self) -> (String, usize) {
        let (first, counts) = self.warm();
        let read = counts.get("transcript read");
        assert!(read >= 3, "every session measured: {read}");
        assert_eq!(first, self.cold());
        let (second, counts) = self.warm();
        assert_eq!(counts.get("transcript read"), 0, "remembered");
        assert_eq!(counts.get("figures cached"), read);
        assert_eq!(second, first);
        (first, read)
    }
    /// After a change to one session, only it is read again, and the output is a cold run's.
    fn after_change(&self, before: &str) {
        let (warm, counts) = self.warm();
        assert_eq!(counts.get("transcript read"), 1, "only the changed session");
        assert_eq!(warm, self.cold());
        assert_ne!(warm, before, "the change shows");
        let (again, counts) = self.warm();
        assert_eq!(counts.get("transcript read"), 0);
        assert_eq!(again, warm);
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
    let files: Vec<_> = std::fs::read_dir(c.cache.path().join("figures"))
        .unwrap()
        .collect();
    assert_eq!(files.len(), 1);
    let other = Case::new();
    list_json(&source(&other.h, Some(c.cache.path())));
    let files: Vec<_> = std::fs::read_dir(c.cache.path().join("figures"))
        .unwrap()
        .collect();
    assert_eq!(files.len(), 2, "another state dir, another file");
}
