//! The model clients: endpoint resolution, streamed requests against the fake model
//! server, and that keys never show.

#[path = "../support/mod.rs"]
mod support;

mod client;
mod resolve;
