//! The `clawtop` binary run as an operator would: list, show, compact, flush, state-dir
//! resolution and bad input, on temp copies of host-a (and the fake model server).

#[path = "../support/mod.rs"]
mod support;

mod audit;
mod bad_input;
mod compact;
mod compact_model;
mod cost;
mod demo;
mod diagnosis;
mod flush_first;
mod flush_model;
mod forecast;
mod history;
mod instructions;
mod keys;
mod list;
mod monitoring;
mod one_truth;
mod show;
mod state;
