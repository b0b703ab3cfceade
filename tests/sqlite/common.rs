//! Helpers: copies of the 2026.9.6 fixture, directory snapshots, direct SQL on copies.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// `tests/fixtures/openclaw-2026.9.6/host-f` (see its README there).
pub fn host_f() -> PathBuf {
    super::support::fixtures::fixture(super::support::fixtures::HOST_F)
}

pub fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// A private copy of host-f; never open the fixture in place (a plain SQLite open writes).
pub struct HostF {
    pub dir: tempfile::TempDir,
}

impl HostF {
    pub fn new() -> HostF {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&host_f(), dir.path());
        HostF { dir }
    }
    pub fn root(&self) -> &Path {
        self.dir.path()
    }
    pub fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }
    pub fn agent_db(&self, id: &str) -> PathBuf {
        self.state()
            .join(format!("agents/{id}/agent/openclaw-agent.sqlite"))
    }
    /// The host as clawtop reads it (its sessions through `SessionSource`).
    pub fn source(&self) -> clawtop::source::SourceHandle {
        let opts = clawtop::store::Options {
            state_dir: Some(self.state()),
            ..Default::default()
        };
        clawtop::source::for_host(
            clawtop::store::Host::open(&opts, &clawtop::store::Env::default()).unwrap(),
        )
    }
    /// A read-write connection for setting up a case (the test's own writer).
    pub fn writer(&self, id: &str) -> rusqlite::Connection {
        rusqlite::Connection::open(self.agent_db(id)).unwrap()
    }
}

/// Every path under `dir` with its kind, size, mode and mtime (ns): any created, removed or
/// changed file shows up as a difference.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (bool, u64, u32, i64, i64, u64)> {
    let mut out = BTreeMap::new();
    fn walk(d: &Path, out: &mut BTreeMap<PathBuf, (bool, u64, u32, i64, i64, u64)>) {
        for e in std::fs::read_dir(d).unwrap() {
            let e = e.unwrap();
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            out.insert(
                e.path(),
                (
                    m.is_dir(),
                    if m.is_dir() { 0 } else { m.size() },
                    m.mode(),
                    m.mtime(),
                    m.mtime_nsec(),
                    m.ino(),
                ),
            );
            if m.is_dir() {
                walk(&e.path(), out);
            }
        }
    }
    walk(dir, &mut out);
    out
}

/// A content hash of every file, to catch writes that keep size and mtime.
pub fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for (p, (is_dir, ..)) in snapshot(dir) {
        if !is_dir {
            out.insert(p.clone(), std::fs::read(&p).unwrap());
        }
    }
    out
}
