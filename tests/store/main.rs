//! The store API: state dir, config and sessions on a copy of host-a.

#[path = "../support/mod.rs"]
mod support;

mod api;
