//! Helpers for the commit-protocol tests (`tests/commit/`, `tests/compaction/crash.rs`):
//! a writable copy of host-a's sessions dir, lock files, pids, file modes and mtimes.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use super::fixtures;

pub const TRANSCRIPT_NAME: &str = "eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl";
pub const SESSION_KEY: &str = "agent:main:main";

/// A writable copy of the host-a `sessions/` dir (fixtures are never written).
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        for name in ["sessions.json", TRANSCRIPT_NAME] {
            let to = dir.path().join(name);
            fs::copy(fixtures::fixture(fixtures::HOST_A_SESSIONS).join(name), &to)
                .expect("copy fixture");
            set_mode(&to, 0o600);
        }
        Fixture { dir }
    }

    pub fn store(&self) -> PathBuf {
        self.dir.path().join("sessions.json")
    }

    pub fn transcript(&self) -> PathBuf {
        self.dir.path().join(TRANSCRIPT_NAME)
    }

    /// Every file name in the dir, sorted.
    pub fn names(&self) -> Vec<String> {
        list_names(self.dir.path())
    }
}

pub fn list_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

pub fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
}

pub fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).expect("stat").permissions().mode() & 0o777
}

/// Lock payload in OpenClaw's format.
pub fn lock_payload(pid: i64, created_at: &str) -> String {
    format!("{{\n  \"pid\": {pid},\n  \"createdAt\": \"{created_at}\"\n}}\n")
}

pub fn now_iso() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

pub fn iso_ago(secs: i64) -> String {
    (chrono::Utc::now() - chrono::Duration::seconds(secs))
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The lock file of `target`, as OpenClaw names it.
pub fn lock_of(target: &Path) -> PathBuf {
    let mut name = target.file_name().expect("name").to_os_string();
    name.push(".lock");
    fs::canonicalize(target.parent().expect("parent"))
        .expect("realpath")
        .join(name)
}

/// A pid that certainly belonged to a process that has exited and been reaped.
pub fn dead_pid() -> i64 {
    let mut child = Command::new("true").spawn().expect("spawn true");
    let pid = child.id() as i64;
    child.wait().expect("wait");
    pid
}

/// A live child process; killed and reaped on drop.
pub struct Sleeper(pub std::process::Child);

impl Sleeper {
    pub fn new() -> Sleeper {
        Sleeper(
            Command::new("sleep")
                .arg("60")
                .spawn()
                .expect("spawn sleep"),
        )
    }
    pub fn pid(&self) -> i64 {
        self.0.id() as i64
    }
}

impl Drop for Sleeper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Move a file's mtime into the past.
pub fn age_mtime(path: &Path, secs: u64) {
    let f = fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("open for set_modified");
    f.set_modified(SystemTime::now() - Duration::from_secs(secs))
        .expect("set_modified");
}
