//! clawtop's Gateway client: against a real OpenClaw 2026.9.6 gateway on a copy of host-f
//! (`live`, one gateway for the whole file), and against a small scripted WebSocket server that
//! misbehaves (`faults`).

#[path = "../support/mod.rs"]
mod support;

mod faults;
mod live;
mod source;
