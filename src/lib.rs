//! clawtop: inspect and maintain OpenClaw sessions.
//!
//! Layering (see README "Architecture"):
//! - domain (no terminal, no network): `audit`, `jsjson`, `transcript`, `tokens`, `context`,
//!   `plan`, `store`, `thresholds`, `numbers`, `format`, `summary`, `flush`, `history`
//! - the data-source seam: `source` (a session is a `SessionRef`; files, later SQLite and a
//!   Gateway, behind one trait)
//! - I/O with side effects: `commit` (locks, append, store patch), `llm` (model clients),
//!   `gateway` (OpenClaw Gateway client: handshake, sessions, compaction, live events)
//! - use cases: `usecase` (prepare, generate, commit a compaction or a flush)
//! - front-ends over the same data and use cases: `report` (list/show text + JSON), `tui`,
//!   `cli` with `commands`
//!
//! A module is `pub` only when `main.rs`, the tests or the benches use it; the others are
//! crate-private, so rustc reports their code that nothing calls (dead code fails CI).

pub mod audit;
pub mod cli;
pub(crate) mod commands;
pub mod commit;
pub mod compaction;
pub mod context;
pub mod diagnosis;
pub mod fleet;
pub mod flush;
pub(crate) mod format;
pub mod gateway;
pub mod history;
pub mod instructions;
pub(crate) mod jsjson;
pub mod llm;
pub(crate) mod logging;
pub(crate) mod numbers;
pub mod plan;
pub(crate) mod regular_file;
pub mod report;
pub(crate) mod sanitize;
pub mod source;
pub mod sqlite;
pub mod store;
pub mod summary;
pub mod thresholds;
pub mod tokens;
pub mod transcript;
pub mod tui;
pub mod usecase;
pub mod used;
