//! clawtop: inspect and maintain OpenClaw sessions.
//!
//! Layering (see README "Architecture"):
//! - domain (no terminal, no network): `jsjson`, `transcript`, `tokens`, `context`, `plan`,
//!   `store`, `thresholds`, `summary`, `flush`
//! - I/O with side effects: `commit` (locks, append, store patch), `llm` (model clients)
//! - front-ends over the same data: `report` (list/show text + JSON), `tui`, `cli`

pub mod cli;
pub mod commands;
pub mod commit;
pub mod compaction;
pub mod context;
pub mod flush;
pub mod jsjson;
pub mod llm;
pub mod plan;
pub mod report;
pub mod sanitize;
pub mod sqlite;
pub mod store;
pub mod summary;
pub mod thresholds;
pub mod tokens;
pub mod transcript;
pub mod tui;
