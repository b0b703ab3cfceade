//! `clawtop metrics`: the session list in the Prometheus text format.

use super::args::*;
use super::host::*;
use crate::commands::out;
use crate::report::metrics;
use crate::usecase::Exit;

pub(crate) fn cmd_metrics(g: &Global) -> i32 {
    let r = match list_report(g, &[]) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    out(&metrics::render(&r));
    for e in &r.errors {
        eprintln!("clawtop: {}", crate::sanitize::one_line(e));
    }
    // The process exits next: its rows are not freed one at a time (as `list`).
    std::mem::forget(r);
    Exit::OK
}
