//! clawtop: inspect and maintain OpenClaw sessions.
//!
//! Layering (see README "Architecture"):
//! - domain (no terminal, no network): `jsjson`, `transcript`, `tokens`, `context`, `plan`,
//!   `store`, `thresholds`, `summary`, `flush`
//! - I/O with side effects: `commit` (locks, append, store patch), `llm` (model clients)
//! - front-ends over the same data: `report` (list/show text + JSON), `tui`, `cli`

pub mod jsjson;
pub mod sanitize;
pub mod transcript;
pub mod tokens;
pub mod context;
pub mod plan;
pub mod store;
pub mod thresholds;
pub mod report;
pub mod summary;
pub mod compaction;
pub mod commands;
pub mod flush;
pub mod llm;
pub mod commit;
pub mod tui;
pub mod cli;
