//! Memory flush: drafting through the fake model server and committing to
//! `memory/<date>.md` and the store, on a copy of host-a.

#[path = "../support/mod.rs"]
mod support;

mod commit;
mod generate;
