//! The TUI headless: the driver, the dialogs, insta snapshots of every screen, the store
//! adapter and terminal sanitising.

#[path = "../support/mod.rs"]
mod support;

mod demo;
mod dialogs;
mod headless;
mod live;
mod sanitize;
mod snapshots;
mod store;
mod summaries;
