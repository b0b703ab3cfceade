//! SQLite hosts (OpenClaw ≥ 2026.7.2): sessions and transcripts in one database per agent,
//! read strictly read-only (docs/sqlite-host.md). No terminal code.
//!
//! Order of use: [`host::discover`] finds the state database and the agent databases (and
//! names legacy `sessions.json` files, which are never read for figures or edited);
//! [`open::ReadOnlyDb`] opens each one without creating, changing or leaving a file beside it;
//! [`entry`] reads `session_nodes.entry_json`; [`events`] decodes `transcript_events` one row
//! at a time; [`crate::thresholds::Rules`] picks the release's arithmetic from the database's
//! `schema_meta.app_version`.

pub mod archives;
pub mod entry;
pub mod events;
pub mod host;
pub mod index;
pub mod open;
pub mod sessions;
pub mod transcript;
pub mod watch;

pub use host::{AgentDb, SqliteLayout, discover};
pub use open::{DbError, OpenMode, ReadOnlyDb};
