//! Which watched files changed: the bookkeeping of the file watcher (docs/interface.md §2,
//! "Live figures").
//!
//! The app polls [`FileWatch::poll`] once a second on a blocking thread; headless tests call
//! it themselves, so a test appends a line and drives the poll without sleeping.
//!
//! Order, and why: a loader stamps a file (size and mtime) *before* it reads it and hands the
//! stamp over with what it read ([`FileWatch::seed`]); the poller compares against that
//! stamp. So a change made after the read began and before the first poll is reported,
//! where a poller that took its own first look as the baseline would swallow it. A stamp
//! that is older than the poller's own look costs one extra reload, never a missed change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use crate::tui::model::view::FileStamp;

/// The file's stamp now.
pub fn stamp(path: &Path) -> Option<FileStamp> {
    std::fs::metadata(path).ok().map(|m| FileStamp {
        len: m.len(),
        modified: m.modified().ok(),
    })
}

/// Stamps of `paths`, taken now (call it before reading them).
pub fn stamps(paths: &[PathBuf]) -> Vec<(PathBuf, Option<FileStamp>)> {
    paths.iter().map(|p| (p.clone(), stamp(p))).collect()
}

#[derive(Default)]
struct Inner {
    paths: Vec<PathBuf>,
    /// What each file looked like when last read or polled.
    seen: HashMap<PathBuf, Option<FileStamp>>,
}

/// The watched files and what they looked like; shared by the effects (which set and seed
/// it) and the poller.
#[derive(Clone, Default)]
pub struct FileWatch(Arc<Mutex<Inner>>);

impl FileWatch {
    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Replaces the set of files polled. Stamps of files no longer watched are kept: a file
    /// watched again later is seeded again by the load that names it.
    pub fn set(&self, paths: Vec<PathBuf>) {
        let mut i = self.inner();
        i.paths = paths;
        // Bound the map: keep only what is watched plus what a pending load just seeded.
        if i.seen.len() > 4 * i.paths.len() + 64 {
            let keep: std::collections::HashSet<PathBuf> = i.paths.iter().cloned().collect();
            i.seen.retain(|p, _| keep.contains(p));
        }
    }

    /// Records how files looked when a load began reading them.
    pub fn seed(&self, stamps: &[(PathBuf, Option<FileStamp>)]) {
        let mut i = self.inner();
        for (p, s) in stamps {
            i.seen.insert(p.clone(), *s);
        }
    }

    /// The watched files that changed since they were seeded or last polled. A file neither
    /// seeded nor polled before is taken as it is now.
    pub fn poll(&self) -> Vec<PathBuf> {
        let mut i = self.inner();
        let paths = i.paths.clone();
        let mut changed = Vec::new();
        for p in paths {
            let now = stamp(&p);
            match i.seen.insert(p.clone(), now) {
                Some(prev) if prev != now => changed.push(p),
                _ => {}
            }
        }
        changed
    }

    /// The files polled now.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.inner().paths.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn append(p: &Path, s: &str) {
        let mut f = std::fs::OpenOptions::new().append(true).open(p).unwrap();
        f.write_all(s.as_bytes()).unwrap();
    }

    #[test]
    fn a_change_after_the_seed_and_before_the_first_poll_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.jsonl");
        std::fs::write(&p, "one\n").unwrap();
        let w = FileWatch::default();
        let seeded = stamps(std::slice::from_ref(&p));
        append(&p, "two\n");
        w.seed(&seeded);
        w.set(vec![p.clone()]);
        assert_eq!(w.poll(), vec![p.clone()]);
        assert!(w.poll().is_empty(), "reported once");
    }

    #[test]
    fn without_a_seed_the_first_poll_is_the_baseline() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.jsonl");
        std::fs::write(&p, "one\n").unwrap();
        let w = FileWatch::default();
        w.set(vec![p.clone()]);
        assert!(w.poll().is_empty());
        append(&p, "two\n");
        assert_eq!(w.poll(), vec![p.clone()]);
        std::fs::remove_file(&p).unwrap();
        assert_eq!(w.poll(), vec![p], "a removed file is a change too");
    }
}
