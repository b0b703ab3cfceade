//! Helpers for the memory-flush tests (`tests/flush/`): a writable copy of host-a with its
//! workspace, and the store text a flush must leave.
#![allow(dead_code, clippy::new_without_default)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use clawtop::commit::StoreRow;
use serde_json::Value;

use super::fixtures;

pub const SESSION_KEY: &str = "agent:main:main";
pub const SESSION_ID: &str = "adhoc-1";
pub const TRANSCRIPT_NAME: &str = "eac41430-1d8c-40e8-add8-b2ec20a92074.jsonl";
pub const DATE: &str = "2026-11-21";

/// A writable copy of host-a at `<home>/.openclaw` (the fixture itself is never written).
pub struct Host {
    pub home: tempfile::TempDir,
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    fs::set_permissions(to, fs::Permissions::from_mode(0o755)).expect("chmod dir");
    for e in fs::read_dir(from).expect("read_dir fixture") {
        let e = e.expect("entry");
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().expect("type").is_dir() {
            copy_tree(&src, &dst);
        } else {
            fs::copy(&src, &dst).expect("copy");
            fs::set_permissions(&dst, fs::Permissions::from_mode(0o644)).expect("chmod");
        }
    }
}

impl Host {
    pub fn new() -> Host {
        let home = tempfile::tempdir().expect("tempdir");
        copy_tree(
            &fixtures::fixture(fixtures::HOST_A),
            &home.path().join(".openclaw"),
        );
        fs::set_permissions(
            home.path()
                .join(".openclaw/agents/main/sessions/sessions.json"),
            fs::Permissions::from_mode(0o600),
        )
        .expect("chmod store");
        Host { home }
    }
    pub fn state(&self) -> PathBuf {
        self.home.path().join(".openclaw")
    }
    pub fn config(&self) -> Value {
        let text = fs::read_to_string(self.state().join("openclaw.json")).expect("config");
        json5::from_str(&text).expect("json5 config")
    }
    pub fn store(&self) -> PathBuf {
        self.state().join("agents/main/sessions/sessions.json")
    }
    pub fn sessions_dir(&self) -> PathBuf {
        self.state().join("agents/main/sessions")
    }
    pub fn transcript(&self) -> PathBuf {
        self.sessions_dir().join(TRANSCRIPT_NAME)
    }
    /// The workspace as the flush resolves it from the config (`~/.openclaw/workspace`).
    pub fn workspace(&self) -> PathBuf {
        let (ws, source) =
            clawtop::flush::workspace_for(&self.config(), &self.state(), "main", self.home.path());
        assert_eq!(source, clawtop::flush::workspace::SOURCE_DEFAULTS);
        ws
    }
    pub fn memory(&self) -> PathBuf {
        self.workspace().join("memory")
    }
    pub fn target(&self) -> PathBuf {
        self.memory().join(format!("{DATE}.md"))
    }
    pub fn session(&self) -> StoreRow {
        StoreRow {
            store_path: self.store(),
            session_key: SESSION_KEY.into(),
            session_id: SESSION_ID.into(),
        }
    }
    pub fn store_bytes(&self) -> Vec<u8> {
        fs::read(self.store()).expect("read store")
    }
    pub fn entry(&self) -> serde_json::Map<String, Value> {
        let v: Value = serde_json::from_slice(&self.store_bytes()).expect("store json");
        v[SESSION_KEY].as_object().expect("entry").clone()
    }
}

/// Every file under `dir` with its bytes, sorted by path (empty when `dir` is absent).
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(d: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        let Ok(rd) = fs::read_dir(d) else { return };
        for e in rd {
            let p = e.expect("entry").path();
            if p.is_dir() {
                out.push((p.clone(), b"<dir>".to_vec()));
                walk(&p, out);
            } else {
                out.push((p.clone(), fs::read(&p).expect("read")));
            }
        }
    }
    walk(dir, &mut out);
    out.sort();
    out
}

pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// The store text with `memoryFlushAt`/`memoryFlushCompactionCount` added at the end of
/// the host-a entry, exactly as `JSON.stringify(store, null, 2)` would place them.
pub fn expected_store_after_flush(original: &str, at: i64, count: u64) -> String {
    let anchor = "    \"compactionCount\": 12\n  }\n}";
    assert!(original.ends_with(anchor), "fixture layout changed");
    let head = &original[..original.len() - anchor.len()];
    format!(
        "{head}    \"compactionCount\": 12,\n    \"memoryFlushAt\": {at},\n    \"memoryFlushCompactionCount\": {count}\n  }}\n}}"
    )
}
