//! clawtop: inspect and maintain OpenClaw sessions.
//!
//! Layering (docs/architecture.md, checked by `tests/architecture`), lowest first:
//! - foundation: `sanitize`, `format`, `jsjson`, `regular_file`, `logging`, `retry`,
//!   `paths`
//! - domain (no terminal): formats and arithmetic (`transcript`, `tokens`, `context`, `plan`,
//!   `summary`, `store_entry`, `thresholds`); readers, clients and writers (`commit`, `llm`,
//!   `gateway`, `sqlite`, `store`, `used`, `flush`, `compaction`); the data-source seam
//!   `source`; figures over a source (`numbers`, `audit`, `diagnosis`, `history`)
//! - use cases: `usecase` (prepare, generate, commit a compaction or a flush)
//! - `report` (list/show/check text + JSON), then `fleet` (many hosts, built on the reports)
//! - front-ends: `commands`, `tui`, `cli`
//!
//! A module is `pub` only when `main.rs`, the tests or the benches use it; the others are
//! crate-private, so rustc reports their code that nothing calls (dead code fails CI).

pub mod audit;
pub mod cli;
pub(crate) mod commands;
pub mod commit;
pub mod compaction;
pub mod context;
pub mod cost;
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
pub mod packed;
pub mod paths;
pub mod plan;
pub(crate) mod regular_file;
pub mod report;
pub mod retry;
pub(crate) mod sanitize;
pub mod source;
pub mod sqlite;
pub mod store;
pub(crate) mod store_entry;
pub mod summary;
pub mod thresholds;
pub mod tokens;
pub mod transcript;
pub mod tui;
pub mod usecase;
pub mod used;
