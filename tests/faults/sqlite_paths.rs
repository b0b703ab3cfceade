//! Issue 20 item 7: a symlinked agent database is read like the file it points to (its WAL
//! seen, not an immutable snapshot of the main file), and a WAL without its `-shm` is read
//! without leaving `clawtop-db-*` copies in TMPDIR.

use crate::support::cli::{Out, copy_dir};
use crate::support::fixtures::{HOST_F, fixture};
use std::path::{Path, PathBuf};
use std::process::Command;

const KEY: &str = "agent:ops:main";
const IN_WAL: u64 = 99_999;

struct Host {
    home: tempfile::TempDir,
    tmp: tempfile::TempDir,
}

impl Host {
    fn new() -> Host {
        let home = tempfile::tempdir().unwrap();
        copy_dir(
            &fixture(HOST_F).join("state"),
            &home.path().join(".openclaw"),
        );
        Host {
            home,
            tmp: tempfile::tempdir().unwrap(),
        }
    }
    fn db(&self) -> PathBuf {
        self.home
            .path()
            .join(".openclaw/agents/ops/agent/openclaw-agent.sqlite")
    }
    fn run(&self, args: &[&str]) -> Out {
        let o = Command::new(env!("CARGO_BIN_EXE_clawtop"))
            .args(args)
            .current_dir(self.home.path())
            .env("HOME", self.home.path())
            .env("XDG_STATE_HOME", self.home.path().join(".xdg-state"))
            .env("TMPDIR", self.tmp.path())
            .env_remove("OPENCLAW_STATE_DIR")
            .env_remove("OPENCLAW_CONFIG_PATH")
            .output()
            .unwrap();
        let out = Out {
            code: o.status.code().unwrap_or(-1),
            stdout: o.stdout,
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        };
        out.expect(0);
        out
    }
    fn total(&self) -> Option<u64> {
        let v = self.run(&["list", "--json"]).json();
        v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["sessionKey"] == KEY)
            .unwrap_or_else(|| panic!("no {KEY}: {v}"))["totalTokens"]
            .as_u64()
    }
    fn copies_left(&self) -> Vec<String> {
        std::fs::read_dir(self.tmp.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("clawtop-db-"))
            .collect()
    }
}

/// Commits `totalTokens = IN_WAL` for [`KEY`] into the WAL of `db` and leaves it there (no
/// checkpoint, the WAL kept on close as a killed gateway leaves it).
fn leave_in_wal(db: &Path) {
    let w = rusqlite::Connection::open(db).unwrap();
    w.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    let mode: String = w
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    w.execute(
        &format!("UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', {IN_WAL}) WHERE session_key = ?1"),
        [KEY],
    )
    .unwrap();
    // Keep the WAL on close, as a killed writer would.
    assert!(
        w.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true
        )
        .unwrap()
    );
    drop(w);
    assert!(
        std::fs::metadata(clawtop::sqlite::open::side(db, "-wal"))
            .unwrap()
            .len()
            > 0
    );
}

#[test]
fn a_symlinked_agent_database_is_read_with_its_wal() {
    let h = Host::new();
    let db = h.db();
    // The real file elsewhere in the state dir, the agent's path a link to it.
    let real = h.home.path().join(".openclaw/ops-db/openclaw-agent.sqlite");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::rename(&db, &real).unwrap();
    std::os::unix::fs::symlink(&real, &db).unwrap();
    leave_in_wal(&real);
    assert!(!clawtop::sqlite::open::side(&db, "-wal").exists());
    assert_eq!(h.total(), Some(IN_WAL), "the committed WAL data is seen");
    // With the -shm gone too (the private-copy way in), still seen through the link.
    std::fs::remove_file(clawtop::sqlite::open::side(&real, "-shm")).unwrap();
    assert_eq!(h.total(), Some(IN_WAL));
    assert_eq!(h.copies_left(), Vec::<String>::new());
}

#[test]
fn a_wal_without_shm_is_read_and_leaves_no_copy_behind() {
    let h = Host::new();
    let db = h.db();
    leave_in_wal(&db);
    std::fs::remove_file(clawtop::sqlite::open::side(&db, "-shm")).unwrap();
    assert_eq!(h.total(), Some(IN_WAL));
    h.run(&["show", KEY, "--entries", "--json"]);
    h.run(&["compact", KEY, "--dry-run", "--json"]);
    assert_eq!(
        h.copies_left(),
        Vec::<String>::new(),
        "private copies left in TMPDIR"
    );
    assert!(!clawtop::sqlite::open::side(&db, "-shm").exists());
}
