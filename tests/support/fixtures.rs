//! Where the test fixtures live: `tests/fixtures/` in this repository, found from
//! `CARGO_MANIFEST_DIR` so the suite runs from any clone (`tests/fixtures/README.md` says where
//! each fixture came from). Fixtures are never written: a test that writes copies one into a
//! temp dir first.
#![allow(dead_code)]

use std::path::PathBuf;

/// The state dir written by OpenClaw 2026.2.26 (`~/.openclaw`), relative to `tests/fixtures/`.
pub const HOST_A: &str = "openclaw-2026.2.26/host-a";
/// host-a's `sessions/` dir (`sessions.json` and the one transcript).
pub const HOST_A_SESSIONS: &str = "openclaw-2026.2.26/host-a/agents/main/sessions";
/// The state dir and workspaces written by OpenClaw 2026.9.6 (SQLite era).
pub const HOST_F: &str = "openclaw-2026.9.6/host-f";
/// pi's own legacy (v1) test transcripts.
pub const PI: &str = "pi";
/// A transcript with identifiers planted for `clawtop audit` (see the fixtures README).
pub const AUDIT_PLANTED: &str = "audit/planted.jsonl";
/// clawtop's generated edge-case transcripts (v1–v3).
pub const TRANSCRIPTS: &str = "transcripts";

/// `tests/fixtures/<rel>`; panics naming the missing path, so a broken checkout says so.
pub fn fixture(rel: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel);
    assert!(p.exists(), "fixture missing: {}", p.display());
    p
}
