//! Test support shared by every test area (`tests/<area>/main.rs` includes it with
//! `#[path = "../support/mod.rs"] mod support;`). Each area uses only part of it.
#![allow(dead_code)]

pub mod cli;
pub mod commit;
pub mod fake_model;
pub mod fixtures;
pub mod flush;
pub mod io_counts;
pub mod kill_window;
pub mod lookup;
pub mod openclaw_gateway;
pub mod pause;
pub mod pty;
pub mod tui;

/// The name libtest gives test `name` of module `module` (pass `module_path!()`), for tests
/// that re-run one test of their own binary in a child process with `--exact`.
pub fn exact_test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_crate, path)) => format!("{path}::{name}"),
        None => name.to_string(),
    }
}

/// The host whose state dir is `state_dir`, opened as clawtop opens it (no environment).
pub fn open_host(state_dir: std::path::PathBuf) -> clawtop::store::Host {
    clawtop::store::Host::open(
        &clawtop::store::Options {
            state_dir: Some(state_dir),
            ..Default::default()
        },
        &clawtop::store::Env::default(),
    )
    .expect("open the host")
}
