//! Issue 12: the faults adversarial testing found, one module per kind. Races are forced
//! through the commit pause seam (`clawtop::commit` module docs), never by timing luck.

#[path = "../support/mod.rs"]
mod support;

mod fifos;
mod file_size_limit;
mod flush_busy;
mod gateway_budget;
mod gateway_log;
mod large;
mod leftovers;
mod memory_links;
mod odd_entries;
mod rollback;
mod secrets;
mod signals;
mod sqlite_paths;
mod store_link;
mod stream_limits;
mod terminal_text;
mod test_hooks;
mod unread;
