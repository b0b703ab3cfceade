//! Data only: the state, the one message type ([`action::Action`]), the effects `update` asks
//! for ([`effect::Effect`]), the dialogs' state, the rows the screens show, and the key table.
//! No I/O, no drawing, no update logic: every other layer of the TUI reads these types.

pub mod action;
pub mod dialog;
pub mod effect;
pub mod fleet;
pub mod keymap;
pub mod rows;
pub mod state;
pub mod view;
