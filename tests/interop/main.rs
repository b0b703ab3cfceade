//! clawtop against pi itself (the oracle, `interop/node_modules`).

#[path = "../support/mod.rs"]
mod support;

mod identifiers;
mod pi;
