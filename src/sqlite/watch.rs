//! Live refresh on a SQLite host without a connection or a re-read: every commit OpenClaw makes
//! changes the `-wal` (WAL mode: appended frames, or a reset after a checkpoint) or the main
//! file (rollback mode, checkpoints), so a `stat` of the two files per poll tells whether a
//! database changed. Only then are the session rows read again (small), and an open transcript
//! reads only the rows after the last `seq` it has ([`super::events::for_each_after`]), unless
//! its rewrite generation moved (a `maxLines` trim renumbers `seq`), which means a full reload.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What a database's files look like now: identity, size and mtime (ns) of the main file and
/// of its `-wal`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp(Option<(u64, u64, i64, i64)>, Option<(u64, u64, i64, i64)>);

pub fn stamp(path: &Path) -> Stamp {
    let f = |p: &Path| {
        std::fs::metadata(p)
            .ok()
            .map(|m| (m.ino(), m.size(), m.mtime(), m.mtime_nsec()))
    };
    Stamp(f(path), f(&super::open::wal_of(path)))
}

/// Databases watched for commits.
#[derive(Debug, Default)]
pub struct Watch {
    dbs: Vec<(PathBuf, Stamp)>,
}

impl Watch {
    pub fn new(paths: impl IntoIterator<Item = PathBuf>) -> Watch {
        Watch {
            dbs: paths
                .into_iter()
                .map(|p| {
                    let s = stamp(&p);
                    (p, s)
                })
                .collect(),
        }
    }

    /// The databases that changed since the last call (or since [`Watch::new`]).
    pub fn changed(&mut self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for (p, s) in &mut self.dbs {
            let now = stamp(p);
            if now != *s {
                *s = now;
                out.push(p.clone());
            }
        }
        out
    }
}
