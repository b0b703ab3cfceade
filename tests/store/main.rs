//! The store API and the data-source seam: state dir, config and sessions on a copy of host-a.

#[path = "../support/mod.rs"]
mod support;

mod api;
mod io_counts;
mod live;
mod lookup;
mod route;
mod rows_cache;
mod source_seam;
