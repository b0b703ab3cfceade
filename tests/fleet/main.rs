//! A fleet read over a fake `ssh` (a script first on PATH that plays sshd for a few
//! destinations by running this build's clawtop on local copies of the fixture hosts), a
//! local host and hosts that fail the ways a real fleet fails.

#[path = "../support/mod.rs"]
mod support;

mod cli;
mod fake;
mod many;
mod one_road;
mod pty;
mod reap;
mod sshd;
mod tui;
