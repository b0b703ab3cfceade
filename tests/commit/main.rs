//! The write protocol: sidecar locks, append-only transcript writes, the sessions.json
//! patch, and crash safety under SIGKILL.

#[path = "../support/mod.rs"]
mod support;

mod append;
mod crash;
mod lock;
mod store;
