//! The TUI headless: the driver, the dialogs, insta snapshots of every screen, the store
//! adapter and terminal sanitising.

#[path = "../support/mod.rs"]
mod support;

mod at_80x24;
mod cost;
mod demo;
mod dialog_editing;
mod dialog_model;
mod dialogs;
mod editor_pty;
mod first_screen;
mod gateway_result;
mod headless;
mod history;
mod labels;
mod live;
mod one_road;
mod one_rule;
mod reload_pty;
mod sanitize;
mod snapshots;
mod store;
mod summaries;
