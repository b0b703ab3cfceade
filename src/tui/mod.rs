//! The terminal UI (docs/interface.md §2).
//!
//! Shape (after the ratatui templates, gitui and television), one folder per layer, each
//! using only the ones before it (tests/architecture checks it; docs/architecture.md):
//! - [`model`]: data only: [`model::action::Action`] (the one message type, key intents and
//!   async results), [`model::state::AppState`], the dialogs' state, the effects `update`
//!   asks for ([`model::effect::Effect`]), and [`model::keymap`], the (mode, key) → action
//!   table that also generates help and hints;
//! - [`layout`]: widths, heights and wrapping that `update` and `draw` must agree on;
//! - [`update`]: `AppState` is changed only by [`update::update`], which is pure and returns
//!   effects (the dialogs' part is [`update::dialog`]);
//! - [`draw`]: a pure function of `&AppState`;
//! - [`runtime`]: the app loop, the effect runner (effects run in blocking tokio tasks and
//!   report back as actions), the sessions loader, the terminal (raw mode / alternate
//!   screen, panic hook, input task) and the headless test driver.
//!
//! The fleet TUI has the same skeleton: [`model::fleet`], [`update::fleet`], [`draw::fleet`],
//! [`runtime::fleet`].
//!
//! Sessions are reached only through a [`model::view::SessionLoader`] (tests and the demo feed
//! rows they build themselves); transcripts and writers through the [`crate::source`] its
//! snapshot names.
//!
//! The re-exports below keep the paths callers and tests used before the layers had folders.

pub mod draw;
pub mod layout;
pub mod model;
pub mod runtime;
pub mod update;

pub use model::view::{
    NamedLoader, NumberSources, Provenance, ReloadError, SessionLoader, SessionRow,
    SessionsSnapshot, Status,
};
pub use model::{action, dialog, keymap, rows, state, view};
pub use runtime::{TuiLaunch, app, effects, fleet, palette, run, store_adapter, terminal, watch};
