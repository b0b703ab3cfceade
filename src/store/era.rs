//! Era detection (docs/host-layout.md §1) without a SQLite library.
//!
//! Heuristic, in order, for `agents/<id>/agent/openclaw-agent.sqlite`:
//! 1. the file must start with the SQLite magic `"SQLite format 3\0"`, else it is ignored;
//! 2. `PRAGMA user_version` is the big-endian u32 at byte 60 of the header: ≥ 4 is era B
//!    (agent schema 4 moved sessions into SQLite);
//! 3. otherwise the first 1 MiB of the file, then of its `-wal`, is searched for the table
//!    name `session_nodes`: the schema text lives in `sqlite_schema` on page 1, and in WAL
//!    mode a fresh schema (and header) may only be in the WAL until a checkpoint.
//!
//! Era-A hosts from 2026.5.30 have this file at schema 1 (auth and memory only), which has
//! neither mark.

use memchr::memmem;
use std::io::Read;
use std::path::Path;

const MAGIC: &[u8; 16] = b"SQLite format 3\0";
const SCAN: u64 = 1 << 20;

/// Why a SQLite file marks era B, or None.
pub fn sqlite_era_b(path: &Path) -> Option<String> {
    let mut file = crate::regular_file::open(path).ok()?;
    // The header first: on every era-B host it answers, and the mebibyte scan is for the
    // rare schema still in the WAL (a list opens this file on every run).
    let mut head = Vec::with_capacity(100);
    (&mut file).take(100).read_to_end(&mut head).ok()?;
    if head.len() < 100 || &head[..16] != MAGIC {
        return None;
    }
    let uv = u32::from_be_bytes([head[60], head[61], head[62], head[63]]);
    if uv >= 4 {
        return Some(format!(
            "{} has user_version {uv} (sessions moved to SQLite at schema 4)",
            path.display()
        ));
    }
    file.take(SCAN - 100).read_to_end(&mut head).ok()?;
    if memmem::find(&head, b"session_nodes").is_some() {
        return Some(format!("{} has a session_nodes table", path.display()));
    }
    let wal = path.with_file_name(format!("{}-wal", path.file_name()?.to_string_lossy()));
    let mut w = Vec::new();
    if let Ok(f) = crate::regular_file::open(&wal) {
        if f.take(SCAN).read_to_end(&mut w).is_ok() && memmem::find(&w, b"session_nodes").is_some()
        {
            return Some(format!("{} mentions a session_nodes table", wal.display()));
        }
    }
    None
}

/// A minimal SQLite-looking file for tests: the header with `user_version` and optional text.
pub fn fake_sqlite(user_version: u32, extra: &[u8]) -> Vec<u8> {
    let mut b = vec![0u8; 4096];
    b[..16].copy_from_slice(MAGIC);
    b[16] = 0x10; // page size 4096, big-endian
    b[60..64].copy_from_slice(&user_version.to_be_bytes());
    b.extend_from_slice(extra);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_user_version_and_table_name() {
        let d = std::env::temp_dir().join(format!("clawtop-era-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("openclaw-agent.sqlite");
        std::fs::write(&p, fake_sqlite(4, b"")).unwrap();
        assert!(sqlite_era_b(&p).unwrap().contains("user_version 4"));
        std::fs::write(&p, fake_sqlite(1, b"")).unwrap();
        assert!(sqlite_era_b(&p).is_none());
        std::fs::write(&p, fake_sqlite(1, b"CREATE TABLE session_nodes(")).unwrap();
        assert!(sqlite_era_b(&p).unwrap().contains("session_nodes"));
        std::fs::write(&p, fake_sqlite(1, b"")).unwrap();
        std::fs::write(
            d.join("openclaw-agent.sqlite-wal"),
            b"....CREATE TABLE session_nodes",
        )
        .unwrap();
        assert!(sqlite_era_b(&p).unwrap().contains("-wal"));
        std::fs::write(&p, b"not sqlite at all, user_version irrelevant......................................................................").unwrap();
        assert!(sqlite_era_b(&p).is_none());
        let _ = std::fs::remove_dir_all(&d);
    }
}
