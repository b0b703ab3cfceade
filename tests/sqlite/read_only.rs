//! Reading never creates, changes or leaves a file under the state dir, sees data committed in
//! the WAL, works when nothing there is writable, and is not blocked by a writer.

use super::common::*;
use clawtop::sqlite::{OpenMode, ReadOnlyDb, discover, entry, events};
use std::path::Path;

/// Everything clawtop reads from a host: every session entry and every transcript row.
/// Returns (key, totalTokens) pairs and the number of decoded rows.
/// (key, totalTokens) per session, rows decoded, the way each database was opened.
type ReadAll = (Vec<(String, Option<u64>)>, usize, Vec<OpenMode>);

fn read_everything(state: &Path) -> ReadAll {
    let layout = discover(state);
    assert!(layout.is_sqlite_host(), "{layout:?}");
    let mut keys = Vec::new();
    let mut decoded = 0;
    let mut modes = Vec::new();
    for a in &layout.agents {
        assert!(a.error.is_none(), "{:?}", a.error);
        let db = ReadOnlyDb::open(&a.path).unwrap();
        modes.push(db.mode);
        for s in entry::read_sessions(&db).unwrap() {
            let (e, _) = s.entry.unwrap();
            events::for_each(&db, &s.current_session_id, |_, r| {
                r.unwrap();
                decoded += 1;
            })
            .unwrap();
            keys.push((s.key, e.total_tokens()));
        }
        assert!(db.check_unchanged());
    }
    (keys, decoded, modes)
}

#[test]
fn checkpointed_host_read_leaves_no_trace() {
    let h = HostF::new();
    let (before, bytes) = (snapshot(h.root()), contents(h.root()));
    let (keys, decoded, modes) = read_everything(&h.state());
    assert_eq!(keys.len(), 3);
    assert_eq!(decoded, 61 + 14 + 10);
    assert_eq!(modes, vec![OpenMode::Immutable, OpenMode::Immutable]);
    assert_eq!(
        snapshot(h.root()),
        before,
        "a file was created, removed or touched"
    );
    assert_eq!(contents(h.root()), bytes);
}

fn wal_writer(h: &HostF) -> rusqlite::Connection {
    let w = h.writer("ops");
    w.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    let mode: String = w
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    w.execute(
        "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 99999) WHERE session_key = 'agent:ops:main'",
        [],
    )
    .unwrap();
    w
}

fn total_of(keys: &[(String, Option<u64>)], key: &str) -> Option<u64> {
    keys.iter().find(|(k, _)| k == key).and_then(|(_, t)| *t)
}

#[test]
fn live_wal_is_seen_without_touching_wal_or_shm() {
    let h = HostF::new();
    let w = wal_writer(&h);
    let wal = clawtop::sqlite::open::side(&h.agent_db("ops"), "-wal");
    assert!(
        std::fs::metadata(&wal).unwrap().len() > 0,
        "the update sits in the WAL"
    );
    // The writer also holds an open, uncommitted transaction while clawtop reads.
    w.execute_batch("BEGIN IMMEDIATE; UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 11111) WHERE session_key = 'agent:ops:main';")
        .unwrap();
    let (before, bytes) = (snapshot(h.root()), contents(h.root()));
    let (keys, decoded, modes) = read_everything(&h.state());
    assert_eq!(
        total_of(&keys, "agent:ops:main"),
        Some(99999),
        "committed WAL data seen, uncommitted not"
    );
    assert_eq!(decoded, 85);
    assert_eq!(modes, vec![OpenMode::Immutable, OpenMode::WalReadOnlyShm]);
    assert_eq!(snapshot(h.root()), before);
    assert_eq!(
        contents(h.root()),
        bytes,
        "-shm read marks are not written either"
    );
    w.execute_batch("ROLLBACK").unwrap();
}

/// A WAL left behind with committed data and no connection open (as after a crash, or host-f's
/// own state database): seen through the read-only -shm, and through a private copy when the
/// -shm is gone too.
#[test]
fn leftover_wal_is_seen_with_and_without_shm() {
    let h = HostF::new();
    let w = wal_writer(&h);
    // Keep the WAL on close, as a killed gateway would.
    assert!(
        w.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true
        )
        .unwrap()
    );
    drop(w);
    let db = h.agent_db("ops");
    let wal = clawtop::sqlite::open::side(&db, "-wal");
    let shm = clawtop::sqlite::open::side(&db, "-shm");
    assert!(wal.exists() && shm.exists());
    for (with_shm, mode) in [
        (true, OpenMode::WalReadOnlyShm),
        (false, OpenMode::PrivateCopy),
    ] {
        if !with_shm {
            std::fs::remove_file(&shm).unwrap();
        }
        let (before, bytes) = (snapshot(h.root()), contents(h.root()));
        let (keys, _, modes) = read_everything(&h.state());
        assert_eq!(
            total_of(&keys, "agent:ops:main"),
            Some(99999),
            "with -shm: {with_shm}"
        );
        assert_eq!(modes[1], mode);
        assert_eq!(snapshot(h.root()), before, "with -shm: {with_shm}");
        assert_eq!(contents(h.root()), bytes);
    }
}

/// The child half of `unwritable_state_dir_is_read`: run as another user, prints what it read.
#[test]
#[ignore = "run by unwritable_state_dir_is_read as an unprivileged user"]
fn child_reads_state_dir() {
    let state = std::env::var_os("CLAWTOP_TEST_STATE").expect("CLAWTOP_TEST_STATE");
    let (keys, decoded, modes) = read_everything(Path::new(&state));
    println!(
        "RESULT {} {decoded} {:?} {modes:?}",
        keys.len(),
        total_of(&keys, "agent:ops:main")
    );
}

#[test]
fn unwritable_state_dir_is_read() {
    use std::os::unix::fs::PermissionsExt;
    let h = HostF::new();
    // A live WAL too, so both ways in are exercised without write access.
    let w = wal_writer(&h);
    let exe = h.root().join("reader");
    std::fs::copy(std::env::current_exe().unwrap(), &exe).unwrap();
    let mut stack = vec![h.root().to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p != exe {
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
            }
        }
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o555)).unwrap();
    let before = snapshot(h.root());
    // root ignores permissions, so as root the reader runs as nobody.
    let is_root = rustix::process::geteuid().is_root();
    let mut cmd = if is_root {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(&exe);
        c
    } else {
        std::process::Command::new(&exe)
    };
    let out = cmd
        .args([
            "--ignored",
            "--exact",
            "read_only::child_reads_state_dir",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("CLAWTOP_TEST_STATE", h.state())
        .output()
        .expect("run the reader");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("RESULT 3 85 Some(99999) [Immutable, WalReadOnlyShm]"),
        "{stdout}"
    );
    assert_eq!(snapshot(h.root()), before);
    drop(w);
    // Let the temp dir be removed.
    let mut stack = vec![h.root().to_path_buf()];
    while let Some(d) = stack.pop() {
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
}

/// Why the ways in exist: the obvious read-only open of a checkpointed WAL database creates
/// `-wal` and `-shm` (so the snapshot comparison above does see such files).
#[test]
fn plain_read_only_open_would_create_files() {
    let h = HostF::new();
    let before = snapshot(h.root());
    let c = rusqlite::Connection::open_with_flags(
        h.agent_db("ops"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    let _: i64 = c
        .query_row("SELECT count(*) FROM session_nodes", [], |r| r.get(0))
        .unwrap();
    drop(c);
    let after = snapshot(h.root());
    assert_ne!(after, before);
    assert!(
        after
            .keys()
            .any(|p| p.to_string_lossy().ends_with("openclaw-agent.sqlite-shm"))
    );
}

/// Live refresh: a commit in the WAL is noticed by a stat, and only the new rows are read.
#[test]
fn commits_are_noticed_and_only_new_rows_read() {
    use clawtop::sqlite::watch::Watch;
    let h = HostF::new();
    let db = h.agent_db("ops");
    let w = h.writer("ops");
    w.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    let mut watch = Watch::new([db.clone(), h.agent_db("main")]);
    assert!(watch.changed().is_empty());
    let sid = "d23fd5eb-104f-4895-97d4-898265597e9c";
    let before = snapshot(h.root());
    let r = ReadOnlyDb::open(&db).unwrap();
    let mut last = -1;
    events::for_each(&r, sid, |seq, _| last = seq).unwrap();
    assert_eq!(last, 13);
    drop(r);
    assert!(watch.changed().is_empty(), "reading changes nothing");
    assert_eq!(snapshot(h.root()), before);
    w.execute(
        "INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?1, 14, '{\"type\":\"custom\",\"customType\":\"x\",\"id\":\"new-1\",\"parentId\":null}', 0)",
        [sid],
    )
    .unwrap();
    assert_eq!(watch.changed(), vec![db.clone()]);
    assert!(watch.changed().is_empty());
    let r = ReadOnlyDb::open(&db).unwrap();
    let mut new = Vec::new();
    events::for_each_after(&r, sid, last, |seq, b| new.push((seq, b.unwrap()))).unwrap();
    assert_eq!(new.len(), 1);
    assert_eq!(new[0].0, 14);
    assert!(events::rewrite_generation(&r, sid).is_some());
}
