//! SQLite hosts (OpenClaw 2026.9.6): read-only access, the fixture's figures computed
//! independently from its rows, and bad input.

#[path = "../support/mod.rs"]
mod support;

mod audit;
mod bad_input;
mod big_rows;
mod cli;
mod common;
mod cost;
mod fixture;
mod history;
mod index;
mod live;
mod lookup;
mod one_read;
mod read_only;
mod rows_cache;
mod together;
mod transcript;
mod tui;
