//! `list`, `show` and `compact --dry-run` as data (serde, camelCase, stable key order) and as
//! plain text, over the numbers of [`crate::numbers`].

pub mod audit;
pub mod check;
pub mod compact;
pub mod diagnosis;
pub mod entries;
pub mod history;
pub mod json;
pub mod list;
pub mod marks;
pub mod metrics;
pub mod show;
pub mod text;

/// The one session row, built by [`crate::usecase::list`] for every surface.
pub use crate::usecase::list::{DataSource, NumberSources, SessionRow};
